//! Closest point of the solid capped cone.

use geom_core::{Lane, LaneProjection, distance::closest_point_on_segment, lit};
use nalgebra::{Point3, SimdValue, Vector3};

use super::{cone_axis, inside_cone};
use crate::orthonormal_basis;

/// The point of the cone's boundary closest to `point`, and whether `point`
/// is inside or on the solid cone, on lanes.
///
/// The cone is a solid of revolution, so the problem is 2D in the
/// (axial, radial) half-plane of the query: the closest of the segments
/// apex→rim (lateral) and base-centre→rim (base) of the triangle
/// (apex, base centre, rim), mapped back along the query's radial direction
/// (any perpendicular to the axis, from [`orthonormal_basis`], for a point on
/// the axis). Lateral points are mapped as `apex + s (base − apex) + s r ρ̂`
/// and base points as `base + ρ ρ̂`, so the defining points keep their bits.
#[inline]
pub fn project_point_cone<T: Lane>(
    point: &Point3<T>,
    apex: &Point3<T>,
    base: &Point3<T>,
    radius: T,
) -> LaneProjection<T> {
    let zero = T::zero();
    let from_apex = point - apex;
    let from_base = point - base;
    let (height, axis_unit, slope_squared) = cone_axis(apex, base, radius);
    let axial = from_apex.dot(&axis_unit);
    let radial_vector = from_apex - axis_unit * axial;
    let radial = radial_vector.norm();
    let (any_perpendicular, _) = orthonormal_basis(&axis_unit);
    // A point on the axis (within rounding: the radial part of its offset
    // is then about ε |offset| of noise, pointing anywhere, even along the
    // axis) takes any perpendicular.
    let noise_scale = T::simd_default_epsilon() * lit::<T>(4.0);
    let on_axis = (radial * radial).simd_le(from_apex.norm_squared() * noise_scale * noise_scale);
    let radial_unit = (radial_vector / radial).select(!on_axis, any_perpendicular);

    // The half-plane: x axial from the apex, y radial.
    let query = Point3::new(axial, radial, zero);
    let apex_2d = Point3::new(zero, zero, zero);
    let base_2d = Point3::new(height, zero, zero);
    let rim_2d = Point3::new(height, radius, zero);
    let (on_lateral, s) = closest_point_on_segment(&query, &apex_2d, &rim_2d);
    let (on_base, _) = closest_point_on_segment(&query, &base_2d, &rim_2d);
    let lateral_closer = (query - on_lateral)
        .norm_squared()
        .simd_le((query - on_base).norm_squared());

    let lateral_point = apex.coords + (base - apex) * s + radial_unit * (radius * s);
    let base_point = base.coords + radial_unit * on_base.y;
    let closest: Vector3<T> = lateral_point.select(lateral_closer, base_point);
    LaneProjection {
        point: Point3::from(closest),
        inside: inside_cone(&from_apex, &from_base, &axis_unit, slope_squared),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Cone;
    use crate::test_support::TestRng;
    use geom_core::Shape;
    use nalgebra::{Isometry3, Point3, Vector3};

    /// Apex (0, 0, 2), base disk at z = 0 of radius 1.
    fn unit_cone() -> Cone<f64> {
        Cone::from_points(Point3::new(0.0, 0.0, 2.0), Point3::origin(), 1.0)
    }

    fn project(cone: &Cone<f64>, p: [f64; 3], solid: bool) -> (Point3<f64>, bool) {
        let projection = cone.closest_point_local(&p.into(), solid).unwrap();
        (projection.point, projection.is_inside)
    }

    #[test]
    fn closest_points_by_hand() {
        let cone = unit_cone();
        // (2, 0, 1): axial 1, radial 2 in the half-plane. The lateral segment
        // (0,0)→(2,1) is closest at s = (1·2 + 2·1)/5 = 0.8, i.e. (1.6, 0.8):
        // back in 3D z = 2 − 1.6 = 0.4, x = 0.8 (distance² 1.8; the base
        // segment's closest point, the rim, is at distance² 2).
        let (p, inside) = project(&cone, [2.0, 0.0, 1.0], true);
        assert!(
            (p - Point3::new(0.8, 0.0, 0.4)).norm() < 1e-15 && !inside,
            "{p:?}"
        );
        // Below the base: straight up onto the disk.
        let (p, inside) = project(&cone, [0.5, 0.0, -3.0], true);
        assert_eq!((p, inside), (Point3::new(0.5, 0.0, 0.0), false));
        // Beyond the apex along the axis: the apex.
        assert_eq!(
            project(&cone, [0.0, 0.0, 3.0], true).0,
            Point3::new(0.0, 0.0, 2.0)
        );
        // Inside on the axis at z = 0.5: the base (0.5 away) beats the side
        // ((1.5, 0) → (1.2, 0.6), √0.45 away).
        assert_eq!(project(&cone, [0.0, 0.0, 0.5], false), (Point3::origin(), true));
        assert_eq!(
            project(&cone, [0.0, 0.0, 0.5], true).0,
            Point3::new(0.0, 0.0, 0.5)
        );
        // On the axis at z = 1: the side at s = 0.4, (0.8, 0.4) in the
        // half-plane: radius 0.4 at z = 1.2 in some perpendicular direction.
        let (p, inside) = project(&cone, [0.0, 0.0, 1.0], false);
        assert!(inside);
        assert!((p.z - 1.2).abs() < 1e-15 && ((p.x * p.x + p.y * p.y).sqrt() - 0.4).abs() < 1e-15);
        // Beside the rim, outward and below: the rim.
        let (p, _) = project(&cone, [2.0, 0.0, -1.0], true);
        assert!((p - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-15);
        // Signed distance: −0.5 at the inside axis point above.
        assert!((cone.distance_local(&Point3::new(0.0, 0.0, 0.5)).unwrap() + 0.5).abs() < 1e-15);
    }

    #[test]
    fn zero_radius_projects_onto_the_segment() {
        let segment = Cone::from_points(Point3::new(0.0, 0.0, 2.0), Point3::origin(), 0.0);
        assert_eq!(
            project(&segment, [3.0, 0.0, 1.5], true),
            (Point3::new(0.0, 0.0, 1.5), false)
        );
        assert_eq!(
            project(&segment, [0.0, 1.0, -2.0], true),
            (Point3::origin(), false)
        );
        assert_eq!(
            project(&segment, [0.0, 0.0, 1.0], false),
            (Point3::new(0.0, 0.0, 1.0), true)
        );
        assert!(
            segment
                .closest_point_local(&Point3::new(f64::NAN, 0.0, 0.0), true)
                .is_none()
        );
    }

    #[test]
    fn f64_against_dense_sampling() {
        let apex = Point3::new(0.3, -0.7, 1.9);
        let base = Point3::new(-0.4, 0.6, -1.1);
        let radius = 0.8;
        let cone = Cone::from_points(apex, base, radius);
        let u = (base - apex).normalize();
        let (b1, b2) = crate::orthonormal_basis(&u);
        let mut samples = Vec::new();
        for i in 0..=200 {
            let s = i as f64 / 200.0;
            for j in 0..400 {
                let angle = j as f64 * std::f64::consts::TAU / 400.0;
                let out = b1 * angle.cos() + b2 * angle.sin();
                samples.push(apex + (base - apex) * s + out * (radius * s));
                samples.push(base + out * (radius * s));
            }
        }
        let mut rng = TestRng::new(21);
        for _ in 0..100 {
            let q = Point3::from(rng.vector(4.0));
            let projection = cone.closest_point_local(&q, false).unwrap();
            let d = (q - projection.point).norm();
            let best = samples
                .iter()
                .map(|s| (q - s).norm())
                .fold(f64::INFINITY, f64::min);
            // Sampling spacing ≈ 2π·0.8/400 ≈ 0.0126, so it is within ~0.01 of exact.
            assert!(d <= best + 1e-12 && d >= best - 0.01, "{d} vs {best}");
            // The point is on the surface: the cone's own inside test flips
            // within a hair of it.
            let inside = cone.closest_point_local(&q, true).unwrap().is_inside;
            assert_eq!(inside, projection.is_inside);
        }
    }

    /// Error of the f32 closest point against f64, in f32 ulps of the largest
    /// coordinate of the inputs (query, apex, base) and the answer:
    /// `(p99, max, count)`.
    fn ulp_errors(
        apex: Point3<f64>,
        base: Point3<f64>,
        radius: f64,
        offset: f64,
        points: &[Point3<f64>],
    ) -> (f64, f64, usize) {
        let cone64 = Cone::from_points(apex, base, radius);
        let cone32 = Cone::from_points(apex.cast::<f32>(), base.cast::<f32>(), radius as f32);
        let pose64 = Isometry3::translation(offset, offset, -offset);
        let pose32 = Isometry3::translation(offset as f32, offset as f32, -offset as f32);
        let mut errors = Vec::new();
        for p in points {
            let world = (pose64 * p).map(|c| c as f32 as f64);
            let a = cone32
                .closest_point(&pose32, &world.cast::<f32>(), false)
                .unwrap();
            let b = cone64.closest_point(&pose64, &world, false).unwrap();
            assert_eq!(a.is_inside, b.is_inside, "inside flag at {p:?}");
            let shape_scale = (pose64 * apex).coords.amax().max((pose64 * base).coords.amax());
            let largest = world.coords.amax().max(b.point.coords.amax()).max(shape_scale) as f32;
            let ulp = (f32::from_bits(largest.to_bits() + 1) - largest) as f64;
            errors.push((a.point.cast::<f64>() - b.point).amax() / ulp);
        }
        super::super::ray::tests::percentile_and_max(errors)
    }

    fn report(case: &str, (p99, max, count): (f64, f64, usize), max_bound: f64) {
        println!("cone f32 closest {case}: p99 {p99:.2} ulp, max {max:.2} ulp over {count} points");
        assert!(p99 <= 4.0 && max <= max_bound, "{case}: p99 {p99} max {max} ulp");
    }

    #[test]
    fn f32_closest_points_within_4_ulp() {
        let r = |x: f64| x as f32 as f64;
        let apex = Point3::new(r(0.3), r(-0.7), r(1.9));
        let base = Point3::new(r(-0.4), r(0.6), r(-1.1));
        let radius = r(0.8);
        let mut rng = TestRng::new(22);
        // Keep clear of the medial surfaces (where the closest point jumps
        // between faces and the two precisions may pick different ones).
        let cone = Cone::from_points(apex, base, radius);
        let mut points = Vec::new();
        while points.len() < 3000 {
            let q = Point3::from(rng.vector(4.0));
            let (near, far) = cone_two_nearest(&cone, &q);
            if far - near > 1e-3 {
                points.push(q);
            }
        }
        // The maximum comes from the rounding of û and of the 2D parameter,
        // scaled by the slant length (3.4 here): measured p99 3.5, max 5.7 ulp
        // at offset 0.
        for offset in [0.0, 1e6] {
            report(
                &format!("offset {offset}"),
                ulp_errors(apex, base, radius, offset, &points),
                8.0,
            );
        }
        // Points on the axis: any perpendicular direction is right, but both
        // precisions take the one from orthonormal_basis.
        let on_axis: Vec<_> = (0..=50)
            .map(|i| apex + (base - apex) * (i as f64 / 50.0))
            .collect();
        let on_axis: Vec<_> = on_axis.iter().map(|p| Point3::new(0.0, 0.0, p.z)).collect();
        let aligned = (Point3::new(0.0, 0.0, 2.0), Point3::new(0.0, 0.0, -1.0));
        report(
            "on the axis",
            ulp_errors(aligned.0, aligned.1, 1.5, 0.0, &on_axis),
            4.0,
        );
    }

    /// Distances from `q` to the lateral surface and to the base disk,
    /// sorted: the gap tells how far `q` is from a face switch.
    fn cone_two_nearest(cone: &Cone<f64>, q: &Point3<f64>) -> (f64, f64) {
        let u = cone.axis_unit();
        let h = (cone.base - cone.apex).norm();
        let axial = (q - cone.apex).dot(&u);
        let radial = ((q - cone.apex) - u * axial).norm();
        let to_segment = |a: (f64, f64), b: (f64, f64)| {
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let s = (((axial - a.0) * dx + (radial - a.1) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
            ((axial - a.0 - s * dx).powi(2) + (radial - a.1 - s * dy).powi(2)).sqrt()
        };
        let lateral = to_segment((0.0, 0.0), (h, cone.radius));
        let base = to_segment((h, 0.0), (h, cone.radius));
        (lateral.min(base), lateral.max(base))
    }

    #[test]
    fn far_points_project_onto_the_rim_or_apex() {
        let cone = unit_cone();
        let p = cone
            .closest_point_local(&Point3::new(1e6, 0.0, -1e6), true)
            .unwrap();
        assert!((p.point - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-9);
        let p = cone
            .closest_point_local(&Point3::new(0.0, 0.0, 1e6), true)
            .unwrap();
        assert_eq!(p.point, Point3::new(0.0, 0.0, 2.0));
        let _ = Vector3::<f64>::zeros();
    }
}
