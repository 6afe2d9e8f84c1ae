//! The naive baseline of `geom precision`: the formulas a first version
//! typically uses, evaluated in `f32` in world coordinates, so the report
//! shows what geom's stable forms buy.
//!
//! Both answer solid ray casts from outside the shape only (the survey
//! skips the baseline for other cases).

use geom::prelude::{Point3, Vector3};

/// The textbook ray–sphere quadratic: `a t² + b t + c = 0` with
/// `b = 2 (o − c)·d`, `c = |o − c|² − r²`, roots `(−b ± √(b² − 4ac)) / 2a`.
/// Loses the hit far from the sphere: `b²` and `4ac` cancel.
pub fn ray_sphere(
    origin: Point3<f32>,
    dir: Vector3<f32>,
    center: Point3<f32>,
    radius: f32,
    max_t: f32,
) -> Option<f32> {
    let oc = origin - center;
    let a = dir.dot(&dir);
    let b = 2.0 * oc.dot(&dir);
    let c = oc.dot(&oc) - radius * radius;
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return None;
    }
    let t = (-b - disc.sqrt()) / (2.0 * a);
    (t >= 0.0 && t <= max_t).then_some(t)
}

/// Ray against a capped cylinder, after the seed code (a C# Unity port of
/// Eberly's method, as in the ray–cylinder seed article `shared/seeds/000`): rotate the ray into a frame
/// along the axis built from the axis direction, solve the side quadratic
/// `a t² + 2 b t + c` with `δ = b² − a c`, and reach the caps through
/// `Vector3.Angle` and a cosine. Its bugs are fixed only as far as needed
/// to get numbers: the entry through a cap is preferred to the side exit
/// (the seed returned the exit), and hits behind the origin are refused.
pub fn ray_cylinder(
    origin: Point3<f32>,
    dir: Vector3<f32>,
    p0: Point3<f32>,
    p1: Point3<f32>,
    radius: f32,
    max_t: f32,
) -> Option<f32> {
    let axis = p1 - p0;
    let axis_length = axis.norm();
    if axis_length <= 1e-6 {
        return None;
    }
    let w = axis / axis_length;
    let u = if w.x.abs() >= w.y.abs() {
        let inv = 1.0 / (w.x * w.x + w.z * w.z).sqrt();
        Vector3::new(-w.z * inv, 0.0, w.x * inv)
    } else {
        let inv = 1.0 / (w.y * w.y + w.z * w.z).sqrt();
        Vector3::new(0.0, w.z * inv, -w.y * inv)
    };
    let v = w.cross(&u).normalize();
    let local_dir = Vector3::new(u.dot(&dir), v.dot(&dir), w.dot(&dir));
    let dir_length = local_dir.norm();
    let d = local_dir / dir_length;
    let inv_dir_length = 1.0 / dir_length;
    let diff = origin - p0;
    let p = Vector3::new(u.dot(&diff), v.dot(&diff), w.dot(&diff));
    let radius_squared = radius * radius;
    let accept = |t: f32| (t >= 0.0 && t <= max_t).then_some(t);

    // Unity's Mathf.Epsilon, the smallest subnormal.
    let tiny = f32::from_bits(1);
    if d.z.abs() >= 1.0 - tiny {
        let disc = radius_squared - p.x * p.x - p.y * p.y;
        if disc < 0.0 {
            return None;
        }
        return if d.z < 0.0 && p.z > axis_length {
            accept((p.z - axis_length) * inv_dir_length)
        } else if d.z > 0.0 && p.z < 0.0 {
            accept(-p.z * inv_dir_length)
        } else {
            None
        };
    }
    let a = d.x * d.x + d.y * d.y;
    let b = p.x * d.x + p.y * d.y;
    let c = p.x * p.x + p.y * p.y - radius_squared;
    let delta = b * b - a * c;
    if delta < 0.0 {
        return None;
    }
    let t_side = (-b - delta.sqrt()) / a;
    let z_side = p.z + t_side * d.z;
    if (0.0..=axis_length).contains(&z_side) {
        return accept(t_side * inv_dir_length);
    }
    // The caps, as the seed: the distance to the cap plane over the cosine
    // of the angle between the ray and the axis, in degrees and back.
    let unit_dir = dir.normalize();
    let angle_between = |a: Vector3<f32>, b: Vector3<f32>| a.dot(&b).clamp(-1.0, 1.0).acos().to_degrees();
    let (distance, cap) = if d.z < 0.0 && p.z > axis_length {
        let angle = angle_between(unit_dir, -w);
        (
            (p.z - axis_length) * inv_dir_length / angle.to_radians().cos(),
            p1,
        )
    } else if d.z > 0.0 && p.z < 0.0 {
        let angle = angle_between(unit_dir, w);
        (-p.z * inv_dir_length / angle.to_radians().cos(), p0)
    } else {
        return None;
    };
    let point = origin + dir * distance;
    ((point - cap).norm() <= radius)
        .then_some(distance)
        .and_then(accept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baselines_hit_what_they_should() {
        let t = ray_sphere(
            Point3::new(0.0, 0.0, -5.0),
            Vector3::z(),
            Point3::origin(),
            1.0,
            f32::INFINITY,
        );
        assert_eq!(t, Some(4.0));
        let (p0, p1) = (Point3::new(0.0, 0.0, 0.0), Point3::new(0.0, 0.0, 2.0));
        // Through the side, through a cap, and a miss.
        let side = ray_cylinder(
            Point3::new(-5.0, 0.0, 1.0),
            Vector3::x() * 2.0,
            p0,
            p1,
            1.0,
            f32::INFINITY,
        );
        assert!((side.unwrap() - 2.0).abs() < 1e-6);
        let cap = ray_cylinder(
            Point3::new(0.2, 0.1, 5.0),
            Vector3::new(0.01, 0.0, -1.0),
            p0,
            p1,
            1.0,
            f32::INFINITY,
        );
        assert!((cap.unwrap() - 3.0).abs() < 1e-3, "{cap:?}");
        assert_eq!(
            ray_cylinder(
                Point3::new(-5.0, 3.0, 1.0),
                Vector3::x(),
                p0,
                p1,
                1.0,
                f32::INFINITY
            ),
            None
        );
    }
}
