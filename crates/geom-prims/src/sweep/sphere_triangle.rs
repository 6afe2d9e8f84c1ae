//! Swept sphere against a triangle.

use geom_core::distance::closest_point_on_triangle;
use geom_core::quadratic::ray_cast_sphere;
use geom_core::{Ray, Real, lit};
use nalgebra::{Point3, Vector3};

use super::{SweepHit, all_finite, unit};
use crate::Triangle;

/// The sphere of `radius` centred at `center`, moved by `motion`, against
/// `triangle`: the first contact with `toi ∈ [0, 1]`, or `None`.
///
/// After Fauerby, "Improved Collision detection and Response" (2003), made
/// robust: the face is tried first (plane distance `r` reached inside the
/// triangle is the earliest possible contact; a sphere already within `r`
/// of the plane, the embedded case, can only meet an edge or a vertex
/// first); each vertex is a ray against a sphere of radius `r` and each edge
/// a ray against an infinite cylinder of radius `r` (the motion and the
/// offset projected perpendicular to the edge), both solved with the stable
/// quadratic of [`ray_cast_sphere`] (Haines et al., *Ray Tracing Gems*
/// ch. 7), which also guards `a ≈ 0`: a motion parallel to an edge has no
/// root there. Everything is computed relative to the start centre.
///
/// Starting in contact or overlapping: `toi = 0` with the normal from the
/// closest point of the triangle to the centre (the face normal facing away
/// from the motion when the centre lies on the triangle), unless the motion
/// separates them (see the [module docs](super)).
pub fn sweep_sphere_triangle<N: Real>(
    center: &Point3<N>,
    radius: N,
    motion: &Vector3<N>,
    triangle: &Triangle<N>,
) -> Option<SweepHit<N>> {
    let valid = all_finite(&[center, &triangle.a, &triangle.b, &triangle.c], &[motion])
        && radius >= N::zero()
        && radius.is_finite();
    if !valid {
        return None;
    }
    let relative = |p: &Point3<N>| Point3::from(p - center);
    let hit = sweep_sphere_triangle_relative(
        &relative(&triangle.a),
        &relative(&triangle.b),
        &relative(&triangle.c),
        radius,
        motion,
    )?;
    let world = SweepHit {
        point: center + hit.point.coords,
        ..hit
    };
    world.is_finite().then_some(world)
}

/// [`sweep_sphere_triangle`] with the sphere starting at the origin and the
/// triangle given relative to it; the hit point is relative too.
pub(crate) fn sweep_sphere_triangle_relative<N: Real>(
    a: &Point3<N>,
    b: &Point3<N>,
    c: &Point3<N>,
    radius: N,
    motion: &Vector3<N>,
) -> Option<SweepHit<N>> {
    let zero = N::zero();
    let one = N::one();
    let origin = Point3::origin();
    let face_normal = unit(&(b - a).cross(&(c - a)));

    // Already touching: report at once, with the normal of the closest points.
    let (closest, _) = closest_point_on_triangle(&origin, a, b, c);
    let start_distance = closest.coords.norm();
    if start_distance <= radius {
        let normal = unit(&-closest.coords)
            .or_else(|| face_normal.map(|n| if n.dot(motion) > zero { -n } else { n }))
            .or_else(|| unit(&-motion))
            .unwrap_or_else(Vector3::z);
        if normal.dot(motion) > zero {
            return None;
        }
        return Some(SweepHit {
            toi: zero,
            point: closest,
            normal,
        });
    }

    // The face: the plane at distance r, reached inside the triangle.
    if let Some(normal) = face_normal {
        let height = -normal.dot(&a.coords);
        let outward = if height >= zero { normal } else { -normal };
        let plane_distance = height.abs();
        let approach_speed = -outward.dot(motion);
        if plane_distance > radius && approach_speed > zero {
            let toi = (plane_distance - radius) / approach_speed;
            if toi <= one {
                let touch = Point3::from(motion * toi - outward * radius);
                // On the triangle to rounding: a touch on an edge (a sphere
                // landing on a flat terrain's diagonal) is the face's
                // contact too, with the face's exact normal; rejected, the
                // edge's hit at the same time to rounding would answer,
                // its normal tilted by the touch's offset over the radius.
                let (closest, _) = closest_point_on_triangle(&touch, a, b, c);
                let size = touch.coords.norm() + a.coords.norm().max(b.coords.norm()).max(c.coords.norm());
                if (touch - closest).norm() <= N::default_epsilon() * lit(4.0) * size {
                    return Some(SweepHit {
                        toi,
                        point: touch,
                        normal: outward,
                    });
                }
            }
        }
    }

    // Vertices and edges: the earliest root of each quadratic.
    let mut best: Option<SweepHit<N>> = None;
    let mut consider = |toi: N, point: Point3<N>| {
        if !(toi >= zero && toi <= one) || best.is_some_and(|hit| hit.toi <= toi) {
            return;
        }
        let center = motion * toi;
        let normal = unit(&(center - point.coords))
            .or(face_normal.map(|n| if n.dot(motion) > zero { -n } else { n }))
            .or_else(|| unit(&-motion));
        if let Some(normal) = normal {
            best = Some(SweepHit { toi, point, normal });
        }
    };
    for vertex in [a, b, c] {
        // The centre, a ray from the origin, against the ball of radius r about the vertex.
        let hit = ray_cast_sphere(
            &Ray::new(Point3::from(-vertex.coords), *motion),
            radius,
            one,
            false,
        );
        if hit.mask {
            consider(hit.t, *vertex);
        }
    }
    for (start, end) in [(a, b), (b, c), (c, a)] {
        let edge = end - start;
        let length_squared = edge.norm_squared();
        let has_length = length_squared > zero;
        if !has_length {
            continue;
        }
        let perpendicular = |v: &Vector3<N>| v - edge * (v.dot(&edge) / length_squared);
        let from_start = -start.coords;
        let offset = perpendicular(&from_start);
        // Starting within r of the edge's line (but not of the edge): the
        // first contact, if any, is at a vertex.
        if offset.norm_squared() <= radius * radius {
            continue;
        }
        let hit = ray_cast_sphere(
            &Ray::new(Point3::from(offset), perpendicular(motion)),
            radius,
            one,
            false,
        );
        if hit.mask {
            let along = (from_start + motion * hit.t).dot(&edge) / length_squared;
            if (zero..=one).contains(&along) {
                consider(hit.t, start + edge * along);
            }
        }
    }
    best
}
