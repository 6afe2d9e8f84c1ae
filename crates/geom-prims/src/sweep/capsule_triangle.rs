//! Swept capsule against a triangle, exactly.

use geom_core::distance::closest_points_segment_triangle;
use geom_core::{Ray, Real};
use nalgebra::{Point3, Vector3};

use super::sphere_triangle::sweep_sphere_triangle_relative;
use super::{SweepHit, all_finite, unit};
use crate::Triangle;
use crate::capsule::ray_cast_capsule;

/// The capsule of `radius` around segment `axis_a axis_b`, moved by
/// `motion`, against `triangle`: the first contact with `toi ∈ [0, 1]`, or
/// `None`. Exact, no tolerance.
///
/// The capsule is the segment grown by `r`; at first contact the closest
/// points of segment and triangle are an end of the segment against the
/// triangle, a vertex of the triangle against the segment, or the interiors
/// of the segment and a triangle edge (a segment parallel to the face also
/// touches it at an end). So the earliest of: the end spheres swept against
/// the triangle ([`sweep_sphere_triangle`](super::sweep_sphere_triangle)),
/// each vertex cast backwards (`−motion`) against the capsule
/// ([`ray_cast_capsule`]), and, per edge, the time the axis line and the
/// edge line come within `r` (their distance along `m = axis × edge` is
/// linear in `t`) when the closest points then lie inside both segments
/// (Ericson, *Real-Time Collision Detection* §5.1.8 for the line
/// parameters). Everything is relative to `axis_a`. Starting in contact is
/// reported as in the [module docs](super), with the normal of the closest
/// points of segment and triangle (Ericson §5.1.10).
pub fn sweep_capsule_triangle<N: Real>(
    axis_a: &Point3<N>,
    axis_b: &Point3<N>,
    radius: N,
    motion: &Vector3<N>,
    triangle: &Triangle<N>,
) -> Option<SweepHit<N>> {
    let valid = all_finite(
        &[axis_a, axis_b, &triangle.a, &triangle.b, &triangle.c],
        &[motion],
    ) && radius >= N::zero()
        && radius.is_finite();
    if !valid {
        return None;
    }
    let zero = N::zero();
    let one = N::one();
    let relative = |p: &Point3<N>| Point3::from(p - axis_a);
    let (a, b, c) = (
        relative(&triangle.a),
        relative(&triangle.b),
        relative(&triangle.c),
    );
    let start = Point3::origin();
    let end = relative(axis_b);
    let axis = end.coords;
    let face_normal = unit(&(b - a).cross(&(c - a)));
    let world = |hit: SweepHit<N>| {
        let hit = SweepHit {
            point: axis_a + hit.point.coords,
            ..hit
        };
        hit.is_finite().then_some(hit)
    };

    let closest = closest_points_segment_triangle(&start, &end, &a, &b, &c);
    if closest.distance_squared <= radius * radius {
        // Crossing the triangle (distance zero up to rounding): the face
        // normal, not the direction of the rounding error.
        let scale = axis.norm() + a.coords.norm().max(b.coords.norm()).max(c.coords.norm());
        let crossing = closest.distance_squared.sqrt()
            <= nalgebra::convert::<f64, N>(8.0) * N::default_epsilon() * scale;
        let between = closest.point_on_segment - closest.point_on_triangle;
        let normal = (!crossing)
            .then(|| unit(&between))
            .flatten()
            .or_else(|| face_normal.map(|n| if n.dot(motion) > zero { -n } else { n }))
            .or_else(|| unit(&-motion))
            .unwrap_or_else(Vector3::z);
        if normal.dot(motion) > zero {
            return None;
        }
        return world(SweepHit {
            toi: zero,
            point: closest.point_on_triangle,
            normal,
        });
    }

    // The two end spheres.
    let mut best = sweep_sphere_triangle_relative(&a, &b, &c, radius, motion);
    let shifted = |p: &Point3<N>| Point3::from(p - axis);
    let from_end = sweep_sphere_triangle_relative(&shifted(&a), &shifted(&b), &shifted(&c), radius, motion)
        .map(|hit| SweepHit {
            point: hit.point + axis,
            ..hit
        });
    best = SweepHit::earliest(best, from_end);

    // Each vertex moving by −motion against the capsule.
    for vertex in [a, b, c] {
        let hit = ray_cast_capsule(&Ray::new(vertex, -motion), &start, &end, radius, one, false);
        if hit.mask && hit.t >= zero && hit.t <= one {
            let candidate = unit(&hit.normal).map(|normal| SweepHit {
                toi: hit.t,
                point: vertex,
                normal: -normal,
            });
            best = SweepHit::earliest(best, candidate);
        }
    }

    // The axis against each edge, interiors only.
    for (edge_start, edge_end) in [(a, b), (b, c), (c, a)] {
        let edge = edge_end - edge_start;
        let Some(across) = unit(&axis.cross(&edge)) else {
            continue; // parallel (or a point): an end or a vertex touches first
        };
        // Scale-aware parallel guard: |axis × edge| tiny against |axis||edge|.
        let sine_squared = axis.cross(&edge).norm_squared() / (axis.norm_squared() * edge.norm_squared());
        let skewed = sine_squared > N::default_epsilon();
        if !skewed {
            continue;
        }
        let separation = (start - edge_start).dot(&across);
        let outward = if separation >= zero { across } else { -across };
        let line_distance = separation.abs();
        let approach_speed = -outward.dot(motion);
        if !(line_distance > radius && approach_speed > zero) {
            continue;
        }
        let toi = (line_distance - radius) / approach_speed;
        if toi > one {
            continue;
        }
        // Closest points of the two lines at `toi` (Ericson §5.1.8).
        let between = (start + motion * toi) - edge_start;
        let (aa, ab, ee) = (axis.dot(&axis), axis.dot(&edge), edge.dot(&edge));
        let (ca, fe) = (axis.dot(&between), edge.dot(&between));
        let denominator = aa * ee - ab * ab;
        let on_axis = (ab * fe - ca * ee) / denominator;
        let on_edge = (aa * fe - ab * ca) / denominator;
        if (zero..=one).contains(&on_axis) && (zero..=one).contains(&on_edge) {
            let candidate = SweepHit {
                toi,
                point: edge_start + edge * on_edge,
                normal: outward,
            };
            best = SweepHit::earliest(best, Some(candidate));
        }
    }
    best.and_then(world)
}
