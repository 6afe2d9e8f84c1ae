//! GJK and EPA against analytic answers and optimality certificates.
//!
//! A GJK answer `(point_a, point_b)` at distance `d` is certified by the
//! plane through them: with `n = (point_b − point_a)/d`, every point of `a`
//! lies below `n·point_a + slack_a` and every point of `b` above
//! `n·point_b − slack_b` (checked through the support functions), so the
//! true distance lies in `[d − slack_a − slack_b, d]`. An EPA answer is
//! certified by the overlap of the shapes along its normal (their support
//! functions) equalling its depth, and by no sampled direction overlapping
//! less.

use crate::support;

use geom_core::distance::closest_points_segment_segment;
use geom_core::{
    Aabb, ClosestPoints, ContactManifolds, DispatchTable, GeomError, PointProjection, Ray, RayHit, Shape,
    ShapeKind,
};
use geom_prims::gjk::{
    GjkResult, GjkStatus, Penetration, convex_closest_points, convex_contact, gjk_closest_points,
    install_convex_fallback, penetration,
};
use geom_prims::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, HalfSpace, Segment, Sphere, Triangle};
use geom_random::Rng;
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use proptest::prelude::*;
use support::Spec;

/// A random pose whose centre is within `spread` of `base` (per axis).
fn pose_near(rng: &mut Rng, base: Vector3<f64>, spread: f64) -> Isometry3<f64> {
    let center = base + rng.vector(spread);
    Isometry3::from_parts(Translation3::from(center), rng.rotation())
}

fn at(x: f64, y: f64, z: f64) -> Isometry3<f64> {
    Isometry3::translation(x, y, z)
}

/// Support-function slack of the separating plane of a GJK answer (see the
/// file's documentation): how far `a` reaches beyond the plane at
/// `point_a`, and `b` before the plane at `point_b`.
fn plane_slack(
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
    result: &GjkResult<f64>,
) -> f64 {
    let n = (result.point_b - result.point_a) / result.distance;
    let reach_a = n.dot(&(a.support(pose_a, &n).unwrap() - result.point_a));
    let reach_b = n.dot(&(result.point_b - b.support(pose_b, &-n).unwrap()));
    reach_a.max(0.0) + reach_b.max(0.0)
}

/// Checks a separated GJK answer: the points lie on the surfaces, their
/// distance is the reported one, and the plane certificate holds within
/// `tolerance` (absolute).
fn check_separated(
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
    tolerance: f64,
) -> GjkResult<f64> {
    let result = gjk_closest_points(a, pose_a, b, pose_b, f64::INFINITY).unwrap();
    assert_eq!(result.status, GjkStatus::Separated, "{a:?} {b:?}: {result:?}");
    assert!(result.converged, "{result:?}");
    let d = result.distance;
    assert!(((result.point_b - result.point_a).norm() - d).abs() <= tolerance);
    let on_a = a.distance(pose_a, &result.point_a).unwrap();
    let on_b = b.distance(pose_b, &result.point_b).unwrap();
    assert!(
        on_a.abs() <= tolerance && on_b.abs() <= tolerance,
        "{a:?} at {pose_a:?}\n{b:?} at {pose_b:?}: {on_a} {on_b} ({result:?})"
    );
    let slack = plane_slack(a, pose_a, b, pose_b, &result);
    assert!(slack <= tolerance, "{a:?} {b:?}: slack {slack} ({result:?})");
    result
}

/// How much the shapes overlap along unit `n`: the support of `A − B`.
fn overlap_along(
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
    n: &Vector3<f64>,
) -> f64 {
    n.dot(&(a.support(pose_a, n).unwrap() - b.support(pose_b, &-n).unwrap()))
}

/// Checks an EPA answer: consistent points, overlap along the normal equal
/// to the depth, and no direction among `samples` random ones (plus the
/// axes of both poses) overlapping less, all within `tolerance`.
fn check_penetration(
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
    tolerance: f64,
    samples: usize,
) -> Penetration<f64> {
    let p = penetration(a, pose_a, b, pose_b, 0.0)
        .unwrap()
        .unwrap_or_else(|| panic!("{a:?} {b:?} reported apart"));
    assert!(p.converged, "{p:?}");
    assert!((p.normal.norm() - 1.0).abs() < 1e-12, "{p:?}");
    assert!(
        ((p.point_a - p.point_b).dot(&p.normal) - p.depth).abs() <= tolerance,
        "{p:?}"
    );
    let along = overlap_along(a, pose_a, b, pose_b, &p.normal);
    assert!(
        (along - p.depth).abs() <= tolerance,
        "{a:?} {b:?}: overlap {along} vs {p:?}"
    );
    let mut rng = Rng::new(99);
    let mut directions: Vec<Vector3<f64>> = (0..samples).map(|_| rng.direction()).collect();
    for pose in [pose_a, pose_b] {
        for axis in [Vector3::x(), Vector3::y(), Vector3::z()] {
            directions.push(pose.rotation * axis);
            directions.push(-(pose.rotation * axis));
        }
    }
    for m in &directions {
        let along = overlap_along(a, pose_a, b, pose_b, m);
        assert!(
            along >= p.depth - tolerance,
            "{a:?} {b:?}: {m:?} overlaps {along} < {p:?}"
        );
    }
    p
}

// ---------------------------------------------------------------------------
// GJK distances against analytic answers.

#[test]
fn sphere_sphere_distance_is_exact() {
    let mut rng = Rng::new(1);
    let mut worst = 0.0f64;
    for _ in 0..2000 {
        let (ra, rb) = (rng.range(0.0, 3.0), rng.range(0.0, 3.0));
        let (pose_a, pose_b) = (
            pose_near(&mut rng, Vector3::zeros(), 50.0),
            pose_near(&mut rng, Vector3::zeros(), 50.0),
        );
        let exact = (pose_b.translation.vector - pose_a.translation.vector).norm() - ra - rb;
        if exact <= 1e-6 {
            continue;
        }
        let result = gjk_closest_points(
            &Sphere::new(ra),
            &pose_a,
            &Sphere::new(rb),
            &pose_b,
            f64::INFINITY,
        )
        .unwrap();
        assert!(result.converged && result.iterations <= 3, "{result:?}");
        worst = worst.max((result.distance - exact).abs() / exact.max(1.0));
    }
    assert!(worst <= 1e-14, "worst relative error {worst}");
}

#[test]
fn sphere_box_distance_matches_closest_point() {
    let mut rng = Rng::new(2);
    let mut worst = 0.0f64;
    for _ in 0..2000 {
        let cuboid = Cuboid::new(Vector3::new(
            rng.range(0.0, 3.0),
            rng.range(0.0, 3.0),
            rng.range(0.0, 3.0),
        ));
        let radius = rng.range(0.0, 1.0);
        let pose_box = pose_near(&mut rng, Vector3::zeros(), 20.0);
        let pose_sphere = pose_near(&mut rng, pose_box.translation.vector, 6.0);
        let center = Point3::from(pose_sphere.translation.vector);
        let PointProjection { point, is_inside } = cuboid.closest_point(&pose_box, &center, true).unwrap();
        let exact = (center - point).norm() - radius;
        if is_inside || exact <= 1e-6 {
            continue;
        }
        let result = check_separated(&Sphere::new(radius), &pose_sphere, &cuboid, &pose_box, 1e-9);
        worst = worst.max((result.distance - exact).abs() / exact.max(1.0));
    }
    assert!(worst <= 1e-12, "worst relative error {worst}");
}

#[test]
fn capsule_capsule_distance_matches_segment_segment() {
    let mut rng = Rng::new(3);
    let mut worst = 0.0f64;
    for _ in 0..2000 {
        let make = |rng: &mut Rng| {
            Capsule::from_points(
                Point3::from(rng.vector(2.0)),
                Point3::from(rng.vector(2.0)),
                rng.range(0.0, 1.0),
            )
        };
        let (a, b) = (make(&mut rng), make(&mut rng));
        let pose_a = pose_near(&mut rng, Vector3::zeros(), 100.0);
        let pose_b = pose_near(&mut rng, pose_a.translation.vector, 8.0);
        let segments = closest_points_segment_segment(
            &(pose_a * a.a),
            &(pose_a * a.b),
            &(pose_b * b.a),
            &(pose_b * b.b),
        );
        let exact = segments.distance() - a.radius - b.radius;
        if exact <= 1e-6 {
            continue;
        }
        let result = check_separated(&a, &pose_a, &b, &pose_b, 1e-9);
        worst = worst.max((result.distance - exact).abs() / exact.max(1.0));
    }
    assert!(worst <= 1e-12, "worst relative error {worst}");
}

#[test]
fn point_like_shapes() {
    // A radius-0 sphere against a box corner region, a point against a
    // segment, two points.
    let point = Sphere::new(0.0);
    let cuboid = Cuboid::new(Vector3::new(1.0, 2.0, 3.0));
    let result = gjk_closest_points(
        &point,
        &at(4.0, 6.0, 0.5),
        &cuboid,
        &at(0.0, 0.0, 0.0),
        f64::INFINITY,
    )
    .unwrap();
    assert_eq!(result.status, GjkStatus::Separated);
    assert!((result.distance - 5.0).abs() < 1e-14, "{result:?}");
    assert!((result.point_b - Point3::new(1.0, 2.0, 0.5)).norm() < 1e-14);
    let segment = Segment::new(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0));
    let result = gjk_closest_points(
        &segment,
        &at(0.0, 0.0, 0.0),
        &point,
        &at(0.5, 2.0, 0.0),
        f64::INFINITY,
    )
    .unwrap();
    assert!((result.distance - 2.0).abs() < 1e-15, "{result:?}");
    assert_eq!(result.point_a, Point3::new(0.5, 0.0, 0.0));
    let result = gjk_closest_points(
        &point,
        &at(1.0, 2.0, 3.0),
        &point,
        &at(1.0, 2.0, 7.0),
        f64::INFINITY,
    )
    .unwrap();
    assert_eq!(result.distance, 4.0);
}

#[test]
fn box_box_distance_certified_by_the_separating_plane() {
    let mut rng = Rng::new(4);
    let mut checked = 0;
    for _ in 0..2000 {
        let a = Cuboid::new(rng.vector(2.0).abs());
        let b = Cuboid::new(rng.vector(2.0).abs());
        let pose_a = pose_near(&mut rng, Vector3::zeros(), 1000.0);
        let pose_b = pose_near(&mut rng, pose_a.translation.vector, 8.0);
        let result = gjk_closest_points(&a, &pose_a, &b, &pose_b, f64::INFINITY).unwrap();
        if result.status != GjkStatus::Separated {
            continue;
        }
        check_separated(&a, &pose_a, &b, &pose_b, 1e-9 * result.distance.max(1.0));
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
}

/// Smooth shapes (cylinder rims, cone rims, ellipsoids) converge linearly:
/// GJK stops at its relative tolerance or when rounding stalls its descent
/// (the decrease of `|v|²` is quadratic in the remaining gap). The
/// certificate measures the gap between GJK's upper and lower bounds: at
/// most 2·10⁻⁸ of the distance (5.7·10⁻⁹ seen over these 3000 pairs).
#[test]
fn smooth_pairs_certified_by_the_separating_plane() {
    let mut rng = Rng::new(5);
    let mut worst_slack = 0.0f64;
    let mut most_iterations = 0;
    let mut total_iterations = 0;
    let mut checked = 0;
    for round in 0..3000 {
        let shapes: [Box<dyn Shape<f64>>; 2] = std::array::from_fn(|_| -> Box<dyn Shape<f64>> {
            match (round + rng.range(0.0, 7.0) as usize) % 7 {
                0 => Box::new(Cylinder::from_points(
                    Point3::from(rng.vector(1.0)),
                    Point3::from(rng.vector(1.0)),
                    rng.range(0.05, 1.0),
                )),
                1 => Box::new(Cone::from_points(
                    Point3::from(rng.vector(1.0)),
                    Point3::from(rng.vector(1.0)),
                    rng.range(0.05, 1.0),
                )),
                2 => Box::new(Ellipsoid::new(Vector3::new(
                    rng.range(0.05, 2.0),
                    rng.range(0.05, 2.0),
                    rng.range(0.05, 2.0),
                ))),
                3 => Box::new(Cuboid::new(rng.vector(1.0).abs())),
                4 => Box::new(Capsule::from_points(
                    Point3::from(rng.vector(1.0)),
                    Point3::from(rng.vector(1.0)),
                    rng.range(0.0, 1.0),
                )),
                5 => Box::new(Triangle::new(
                    Point3::from(rng.vector(1.0)),
                    Point3::from(rng.vector(1.0)),
                    Point3::from(rng.vector(1.0)),
                )),
                _ => Box::new(Sphere::new(rng.range(0.0, 1.0))),
            }
        });
        let pose_a = pose_near(&mut rng, Vector3::zeros(), 100.0);
        let pose_b = pose_near(&mut rng, pose_a.translation.vector, 5.0);
        let (a, b) = (shapes[0].as_ref(), shapes[1].as_ref());
        let result = gjk_closest_points(a, &pose_a, b, &pose_b, f64::INFINITY).unwrap();
        if result.status != GjkStatus::Separated || result.distance < 1e-3 {
            continue;
        }
        let tolerance = 1e-9 * result.distance.max(1.0);
        check_separated(a, &pose_a, b, &pose_b, tolerance);
        let relative_slack = plane_slack(a, &pose_a, b, &pose_b, &result) / result.distance;
        worst_slack = worst_slack.max(relative_slack);
        most_iterations = most_iterations.max(result.iterations);
        total_iterations += result.iterations;
        checked += 1;
    }
    assert!(checked > 1500, "{checked}");
    println!(
        "smooth pairs: {checked}, worst slack/distance {worst_slack:e}, iterations max {most_iterations} mean {}",
        total_iterations as f64 / checked as f64
    );
    assert!(worst_slack <= 2e-8, "{worst_slack}");
}

/// Regression: for a direction nearly along the axis, the cone's and the
/// cylinder's support points left the base plane (the cross-axis part of
/// the direction was rounding noise, not perpendicular to the axis), and
/// GJK converged to a distance 0.14 too small.
#[test]
fn supports_along_the_axis_stay_on_the_shape() {
    let apex = Point3::new(-0.9239570477075094, 0.2239946597561786, -0.31463096852200745);
    let base = Point3::new(-0.6402490235661789, 0.6777838534846892, -0.8191915344636389);
    let cone = Cone::from_points(apex, base, 0.7824691891310771);
    let cylinder = Cylinder::from_points(apex, base, 0.7824691891310771);
    let axis = (base - apex).normalize();
    let mut rng = Rng::new(13);
    for _ in 0..1000 {
        let dir = axis * 1.698 + rng.vector(1e-15);
        for shape in [&cone as &dyn Shape<f64>, &cylinder] {
            let support = shape.support_local(&dir).unwrap();
            let height = (support - base).dot(&axis);
            assert!(height.abs() < 4e-15, "{shape:?} {dir:?}: {support:?} {height}");
        }
    }
    let sphere = Sphere::new(0.2884658408010349);
    let pose_sphere = at(0.4514906697355823, 1.3574497597613018, -2.069566172714134);
    let identity = Isometry3::identity();
    check_separated(&sphere, &pose_sphere, &cone, &identity, 1e-9);
}

/// The same for axis-aligned axes, where the projection's rounding residue
/// lies exactly along the axis: a cylinder along y queried along −y gave
/// the cap centre moved a radius further down (the "rim point" of a residue
/// of length 1e-32), a support point outside the shape.
#[test]
fn supports_along_an_axis_aligned_axis_stay_on_the_cap() {
    let mut rng = Rng::new(14);
    for axis_index in 0..3 {
        for (length, radius) in [(0.8, 0.35), (2e-3, 1.3), (3.0, 1e-3), (0.1, 7.0)] {
            let mut axis = Vector3::zeros();
            axis[axis_index] = length;
            let low = Point3::from(-axis * 0.5);
            let high = Point3::from(axis * 0.5);
            let unit = axis / length;
            let cylinder = Cylinder::from_points(low, high, radius);
            let cone = Cone::from_points(high, low, radius);
            for scale in [1.0, 0.7, 3.0, 1e-3, 1e3] {
                for noise in [0.0, 1e-17, 1e-15] {
                    for sign in [1.0, -1.0] {
                        let dir = unit * (sign * scale) + rng.vector(noise * scale);
                        let cap = if sign > 0.0 { high } else { low };
                        let support = cylinder.support_local(&dir).unwrap();
                        let height = (support - cap).dot(&unit);
                        let off_axis = (support - cap).norm();
                        assert!(
                            height.abs() <= 4e-15 * length.max(1.0) && off_axis <= radius * (1.0 + 1e-15),
                            "{cylinder:?} {dir:?}: {support:?}"
                        );
                        if sign < 0.0 {
                            let support = cone.support_local(&dir).unwrap();
                            let height = (support - low).dot(&unit);
                            assert!(
                                height.abs() <= 4e-15 * length.max(1.0)
                                    && (support - low).norm() <= radius * (1.0 + 1e-15),
                                "{cone:?} {dir:?}: {support:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// EPA depths against analytic answers.

#[test]
fn overlapping_spheres_depth_is_exact() {
    let mut rng = Rng::new(6);
    for _ in 0..2000 {
        let (ra, rb) = (rng.range(0.1, 3.0), rng.range(0.1, 3.0));
        let pose_a = pose_near(&mut rng, Vector3::zeros(), 100.0);
        let offset = rng.direction() * rng.range(0.0, 0.99) * (ra + rb);
        let pose_b = pose_near(&mut rng, pose_a.translation.vector + offset, 0.0);
        let p = penetration(&Sphere::new(ra), &pose_a, &Sphere::new(rb), &pose_b, 0.0)
            .unwrap()
            .unwrap();
        let exact = ra + rb - offset.norm();
        assert!((p.depth - exact).abs() <= 1e-12 * (ra + rb), "{p:?} vs {exact}");
        if offset.norm() > 1e-9 {
            assert!(
                (p.normal - offset.normalize()).norm() <= 1e-9,
                "{p:?} vs {offset:?}"
            );
        }
        let surface_a = Point3::from(pose_a.translation.vector + p.normal * ra);
        assert!((p.point_a - surface_a).norm() <= 1e-12 * 200.0, "{p:?}");
    }
}

#[test]
fn sphere_box_depth() {
    let cuboid = Cuboid::new(Vector3::new(2.0, 1.0, 3.0));
    let pose = rng_pose(7);
    let world = |local: Vector3<f64>| {
        Isometry3::from_parts(Translation3::from(pose * Point3::from(local)), pose.rotation)
    };
    // Centre outside the box, sphere reaching in: depth r − distance.
    let p = check_penetration(
        &Sphere::new(0.5),
        &world(Vector3::new(0.0, 1.25, 0.5)),
        &cuboid,
        &pose,
        1e-12,
        500,
    );
    assert!((p.depth - 0.25).abs() < 1e-12, "{p:?}");
    assert!((p.normal - pose.rotation * -Vector3::y()).norm() < 1e-12, "{p:?}");
    // Centre inside, nearest face +y at 0.25: depth r + 0.25 (EPA on the
    // point core against the box).
    let p = check_penetration(
        &Sphere::new(0.5),
        &world(Vector3::new(0.5, 0.75, -1.0)),
        &cuboid,
        &pose,
        1e-12,
        500,
    );
    assert!((p.depth - 0.75).abs() < 1e-12, "{p:?}");
    assert!((p.normal - pose.rotation * -Vector3::y()).norm() < 1e-12, "{p:?}");
    // Past a corner: depth r − |corner offset|.
    let p = penetration(
        &cuboid,
        &pose,
        &Sphere::new(1.0),
        &world(Vector3::new(2.3, 1.4, 3.0)),
        0.0,
    )
    .unwrap()
    .unwrap();
    assert!((p.depth - 0.5).abs() < 1e-12, "{p:?}");
    assert!(
        (p.normal - pose.rotation * Vector3::new(0.6, 0.8, 0.0)).norm() < 1e-12,
        "{p:?}"
    );
}

fn rng_pose(seed: u64) -> Isometry3<f64> {
    let mut rng = Rng::new(seed);
    pose_near(&mut rng, Vector3::zeros(), 50.0)
}

#[test]
fn axis_aligned_box_overlaps() {
    let mut rng = Rng::new(8);
    for _ in 0..500 {
        let ha = rng.vector(2.0).abs() + Vector3::repeat(0.1);
        let hb = rng.vector(2.0).abs() + Vector3::repeat(0.1);
        let offset = rng.vector(1.0).component_mul(&(ha + hb));
        let base = rng.vector(1000.0);
        let pose_a = Isometry3::translation(base.x, base.y, base.z);
        let pose_b = Isometry3::translation(base.x + offset.x, base.y + offset.y, base.z + offset.z);
        let overlaps = ha + hb - offset.abs();
        let axis = overlaps.imin();
        let exact = overlaps[axis];
        let (a, b) = (Cuboid::new(ha), Cuboid::new(hb));
        let p = check_penetration(&a, &pose_a, &b, &pose_b, 1e-9, 200);
        assert!((p.depth - exact).abs() <= 1e-12 * 1000.0, "{p:?} vs {exact}");
        let mut normal = Vector3::zeros();
        normal[axis] = offset[axis].signum();
        // Ties between axes may pick either; the depth is what matters then.
        let tied = (0..3).filter(|&k| (overlaps[k] - exact).abs() < 1e-9).count() > 1;
        assert!(tied || (p.normal - normal).norm() < 1e-9, "{p:?} vs {normal:?}");
    }
}

#[test]
fn rotated_box_overlaps_certified() {
    let mut rng = Rng::new(9);
    let mut checked = 0;
    for _ in 0..300 {
        let (a, b) = (
            Cuboid::new(rng.vector(2.0).abs() + Vector3::repeat(0.2)),
            Cuboid::new(rng.vector(2.0).abs() + Vector3::repeat(0.2)),
        );
        let pose_a = pose_near(&mut rng, Vector3::zeros(), 100.0);
        let pose_b = pose_near(&mut rng, pose_a.translation.vector, 1.0);
        let status = gjk_closest_points(&a, &pose_a, &b, &pose_b, 0.0).unwrap().status;
        if status == GjkStatus::Intersecting {
            check_penetration(&a, &pose_a, &b, &pose_b, 1e-9, 500);
            checked += 1;
        }
    }
    assert!(checked > 150, "{checked}");
}

#[test]
fn capsule_capsule_depth() {
    let mut rng = Rng::new(10);
    for _ in 0..1000 {
        let a = Capsule::from_points(
            Point3::from(rng.vector(1.0)),
            Point3::from(rng.vector(1.0)),
            rng.range(0.1, 1.0),
        );
        let b = Capsule::from_points(
            Point3::from(rng.vector(1.0)),
            Point3::from(rng.vector(1.0)),
            rng.range(0.1, 1.0),
        );
        let pose_a = pose_near(&mut rng, Vector3::zeros(), 100.0);
        let pose_b = pose_near(&mut rng, pose_a.translation.vector, 1.5);
        let segments = closest_points_segment_segment(
            &(pose_a * a.a),
            &(pose_a * a.b),
            &(pose_b * b.a),
            &(pose_b * b.b),
        );
        let exact = a.radius + b.radius - segments.distance();
        if exact <= 1e-9 {
            continue;
        }
        let p = penetration(&a, &pose_a, &b, &pose_b, 0.0).unwrap().unwrap();
        // Axes apart: GJK on the segments, exact to rounding. Axes crossing:
        // the segments' difference is a parallelogram and the depth is the
        // sum of the radii along its normal.
        assert!((p.depth - exact).abs() <= 1e-12 * 100.0, "{p:?} vs {exact}");
        check_penetration(&a, &pose_a, &b, &pose_b, 1e-9, 200);
    }
    // Crossing axes, hand-checked: depth 0.5 + 0.25 along z.
    let a = Capsule::from_points(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), 0.5);
    let b = Capsule::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.25);
    let p = penetration(&a, &at(0.0, 0.0, 0.0), &b, &at(0.0, 0.0, 0.0), 0.0)
        .unwrap()
        .unwrap();
    assert_eq!(p.depth, 0.75);
    assert_eq!(p.normal.z.abs(), 1.0);
}

/// Smooth overlapping pairs: EPA converges to its relative tolerance.
#[test]
fn smooth_overlaps_certified() {
    let mut rng = Rng::new(11);
    let mut unconverged = 0;
    let mut checked = 0;
    for round in 0..600 {
        let a: Box<dyn Shape<f64>> = match round % 3 {
            0 => Box::new(Ellipsoid::new(rng.vector(1.0).abs() + Vector3::repeat(0.3))),
            1 => Box::new(Cylinder::from_points(
                Point3::from(rng.vector(1.0)),
                Point3::from(rng.vector(1.0)),
                0.5,
            )),
            _ => Box::new(Cone::from_points(
                Point3::from(rng.vector(1.0)),
                Point3::from(rng.vector(1.0)),
                0.7,
            )),
        };
        let b = Cuboid::new(rng.vector(1.0).abs() + Vector3::repeat(0.2));
        let pose_a = pose_near(&mut rng, Vector3::zeros(), 10.0);
        let pose_b = pose_near(&mut rng, pose_a.translation.vector, 0.7);
        let Some(p) = penetration(a.as_ref(), &pose_a, &b, &pose_b, 0.0).unwrap() else {
            continue;
        };
        checked += 1;
        if !p.converged {
            unconverged += 1;
            continue;
        }
        check_penetration(a.as_ref(), &pose_a, &b, &pose_b, 1e-6 * p.depth.max(1.0), 300);
    }
    assert!(checked > 300, "{checked}");
    assert!(
        unconverged <= checked / 100,
        "{unconverged} of {checked} did not converge"
    );
}

// ---------------------------------------------------------------------------
// Degenerate inputs.

#[test]
fn coincident_centres() {
    let p = penetration(
        &Sphere::new(1.0),
        &at(3.0, 4.0, 5.0),
        &Sphere::new(2.0),
        &at(3.0, 4.0, 5.0),
        0.0,
    )
    .unwrap()
    .unwrap();
    assert_eq!(p.depth, 3.0);
    assert!((p.normal.norm() - 1.0).abs() < 1e-15, "{p:?}");
    let cuboid = Cuboid::new(Vector3::new(1.0, 2.0, 3.0));
    let p = check_penetration(
        &cuboid,
        &at(1.0, 1.0, 1.0),
        &cuboid,
        &at(1.0, 1.0, 1.0),
        1e-12,
        300,
    );
    assert_eq!(p.depth, 2.0);
    let p = check_penetration(
        &Sphere::new(0.5),
        &at(0.0, 0.0, 0.0),
        &cuboid,
        &at(0.0, 0.0, 0.0),
        1e-12,
        300,
    );
    assert_eq!(p.depth, 1.5);
    let ellipsoid = Ellipsoid::new(Vector3::new(1.0, 0.5, 2.0));
    let p = penetration(
        &ellipsoid,
        &at(0.0, 0.0, 0.0),
        &ellipsoid,
        &at(0.0, 0.0, 0.0),
        0.0,
    )
    .unwrap()
    .unwrap();
    assert!((p.depth - 1.0).abs() < 1e-6, "{p:?}");
}

#[test]
fn zero_size_shapes() {
    let point = Sphere::new(0.0);
    // Two points at the same place: flat difference, depth zero.
    let p = penetration(&point, &at(1.0, 2.0, 3.0), &point, &at(1.0, 2.0, 3.0), 0.0)
        .unwrap()
        .unwrap();
    assert_eq!(p.depth, 0.0);
    assert!((p.normal.norm() - 1.0).abs() < 1e-15);
    // A point inside a box: the depth to its nearest face.
    let cuboid = Cuboid::new(Vector3::new(1.0, 2.0, 3.0));
    let p = check_penetration(
        &point,
        &at(0.75, 0.0, 0.0),
        &cuboid,
        &at(0.0, 0.0, 0.0),
        1e-12,
        300,
    );
    assert_eq!(p.depth, 0.25);
    // A flat box (a rectangle) through a box, and two flat boxes in one
    // plane: zero volume difference for the latter.
    let flat = Cuboid::new(Vector3::new(1.0, 1.0, 0.0));
    let p = check_penetration(&flat, &at(0.0, 0.0, 2.5), &cuboid, &at(0.0, 0.0, 0.0), 1e-12, 300);
    assert_eq!(p.depth, 0.5);
    let p = penetration(&flat, &at(0.5, 0.0, 0.0), &flat, &at(0.0, 0.5, 0.0), 0.0)
        .unwrap()
        .unwrap();
    assert_eq!(p.depth, 0.0);
    assert_eq!(p.normal.z.abs(), 1.0, "{p:?}");
    // Coplanar triangles overlapping: depth zero along the plane normal.
    let triangle = Triangle::new(
        Point3::new(0.0, 0.0, 0.0),
        Point3::new(2.0, 0.0, 0.0),
        Point3::new(0.0, 2.0, 0.0),
    );
    let p = penetration(&triangle, &at(0.0, 0.0, 0.0), &triangle, &at(0.5, 0.5, 0.0), 0.0)
        .unwrap()
        .unwrap();
    assert_eq!(p.depth, 0.0);
    assert_eq!(p.normal.z.abs(), 1.0, "{p:?}");
    // Collinear segments overlapping.
    let segment = Segment::new(Point3::new(0.0, 0.0, 0.0), Point3::new(2.0, 0.0, 0.0));
    let p = penetration(&segment, &at(0.0, 0.0, 0.0), &segment, &at(1.0, 0.0, 0.0), 0.0)
        .unwrap()
        .unwrap();
    assert_eq!(p.depth, 0.0);
    assert!(
        p.normal.x.abs() < 1e-15 && (p.normal.norm() - 1.0).abs() < 1e-15,
        "{p:?}"
    );
    // A zero-length capsule is a sphere.
    let ball = Capsule::from_points(Point3::origin(), Point3::origin(), 1.0);
    let p = penetration(
        &ball,
        &at(0.0, 0.0, 0.0),
        &Sphere::new(1.0),
        &at(0.0, 1.5, 0.0),
        0.0,
    )
    .unwrap()
    .unwrap();
    assert!(
        (p.depth - 0.5).abs() < 1e-15 && (p.normal - Vector3::y()).norm() < 1e-15,
        "{p:?}"
    );
}

#[test]
fn exactly_touching() {
    let p = penetration(
        &Sphere::new(1.0),
        &at(0.0, 0.0, 0.0),
        &Sphere::new(1.0),
        &at(2.0, 0.0, 0.0),
        0.0,
    )
    .unwrap()
    .unwrap();
    assert_eq!((p.depth, p.normal), (0.0, Vector3::x()));
    let cuboid = Cuboid::new(Vector3::new(1.0, 1.0, 1.0));
    let p = penetration(&cuboid, &at(0.0, 0.0, 0.0), &cuboid, &at(0.5, 2.0, 0.25), 0.0)
        .unwrap()
        .unwrap();
    assert_eq!(p.depth, 0.0, "{p:?}");
    assert_eq!(p.normal, Vector3::y(), "{p:?}");
    let result = gjk_closest_points(&cuboid, &at(0.0, 0.0, 0.0), &cuboid, &at(0.5, 2.0, 0.25), 0.0).unwrap();
    assert_eq!(result.status, GjkStatus::Intersecting);
    // Rotated and touching to rounding: about zero depth, the face normal.
    let rotation = UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1);
    let pose_a = Isometry3::from_parts(Translation3::new(10.0, -3.0, 7.0), rotation);
    let pose_b = Isometry3::from_parts((pose_a * Point3::new(0.5, 2.0, 0.25)).coords.into(), rotation);
    let p = penetration(&cuboid, &pose_a, &cuboid, &pose_b, 0.0)
        .unwrap()
        .unwrap();
    assert!(p.depth.abs() < 1e-13, "{p:?}");
    assert!((p.normal - rotation * Vector3::y()).norm() < 1e-12, "{p:?}");
    // Capsules touching side to side.
    let capsule = Capsule::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5);
    let p = penetration(&capsule, &at(0.0, 0.0, 0.0), &capsule, &at(1.0, 0.5, 0.0), 0.0)
        .unwrap()
        .unwrap();
    assert_eq!((p.depth, p.normal), (0.0, Vector3::x()));
}

#[test]
fn far_from_the_origin() {
    for offset in [1e6, -3e6] {
        // f64: a unit box pair 1e6 away keeps the relative geometry exact.
        let cuboid = Cuboid::new(Vector3::new(1.0, 1.0, 1.0));
        let rotation = UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3);
        let pose_a = Isometry3::from_parts(Translation3::new(offset, offset, 0.0), rotation);
        let pose_b = Isometry3::from_parts(Translation3::new(offset + 0.5, offset + 2.5, 0.0), rotation);
        let result = gjk_closest_points(&cuboid, &pose_a, &cuboid, &pose_b, f64::INFINITY).unwrap();
        let exact = {
            let local = rotation.inverse() * Vector3::new(0.5, 2.5, 0.0);
            (local.abs() - Vector3::repeat(2.0)).map(|x| x.max(0.0)).norm()
        };
        assert!((result.distance - exact).abs() < 1e-9, "{result:?} vs {exact}");
        // f32: a sphere pair 1e6 away. The relative translation is exact in
        // f32 (both centres are representable and their difference too).
        let a = Sphere::new(0.5f32);
        let pose_a = Isometry3::translation(offset as f32, 0.0, offset as f32);
        let pose_b = Isometry3::translation(offset as f32 + 0.75, 0.0, offset as f32);
        let p = penetration(&a, &pose_a, &a, &pose_b, 0.0).unwrap().unwrap();
        assert_eq!(p.depth, 0.25);
        assert_eq!(p.normal, Vector3::x());
        let boxes = Cuboid::new(Vector3::new(0.5f32, 0.5, 0.5));
        let rotation = UnitQuaternion::from_euler_angles(0.1f32, 0.2, 0.3);
        let pose_a = Isometry3::from_parts(Translation3::new(offset as f32, 0.0, 0.0), rotation);
        let pose_b = Isometry3::from_parts(Translation3::new(offset as f32 + 0.75, 0.0, 0.0), rotation);
        let p = penetration(&boxes, &pose_a, &boxes, &pose_b, 0.0)
            .unwrap()
            .unwrap();
        let local = rotation.inverse() * Vector3::new(0.75f32, 0.0, 0.0);
        let exact = (Vector3::repeat(1.0f32) - local.abs()).min();
        assert!((p.depth - exact).abs() < 1e-5, "{p:?} vs {exact}");
        assert!(p.depth.is_finite() && p.normal.iter().all(|c| c.is_finite()));
    }
}

/// A convex shape whose support function answers NaN.
#[derive(Debug)]
struct Broken;

impl Shape<f64> for Broken {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Sphere
    }
    fn is_convex(&self) -> bool {
        true
    }
    fn local_aabb(&self) -> Aabb<f64> {
        Aabb::new(Point3::origin(), Point3::origin())
    }
    fn ray_cast_local(&self, _: &Ray<f64>, _: f64, _: bool) -> Option<RayHit<f64>> {
        None
    }
    fn closest_point_local(&self, _: &Point3<f64>, _: bool) -> Option<PointProjection<f64>> {
        None
    }
    fn support_local(&self, _: &Vector3<f64>) -> Option<Point3<f64>> {
        Some(Point3::new(f64::NAN, 0.0, 0.0))
    }
}

#[test]
fn bad_inputs_are_errors() {
    let sphere = Sphere::new(1.0);
    let origin = at(0.0, 0.0, 0.0);
    let nan_pose = at(f64::NAN, 0.0, 0.0);
    assert_eq!(
        penetration(&sphere, &nan_pose, &sphere, &origin, 0.0),
        Err(GeomError::NonFinite { input: "pose_a" })
    );
    assert_eq!(
        gjk_closest_points(&sphere, &origin, &sphere, &at(0.0, f64::INFINITY, 0.0), 1.0),
        Err(GeomError::NonFinite { input: "pose_b" })
    );
    assert_eq!(
        penetration(&Broken, &origin, &sphere, &origin, 0.0),
        Err(GeomError::NonFinite {
            input: "support point"
        })
    );
    let half_space = HalfSpace::new(Vector3::y(), 0.0);
    assert_eq!(
        penetration(&sphere, &origin, &half_space, &origin, 0.0),
        Err(GeomError::Unsupported {
            a: ShapeKind::Sphere,
            b: ShapeKind::HalfSpace
        })
    );
    assert!(matches!(
        penetration(&sphere, &origin, &sphere, &origin, -1.0),
        Err(GeomError::InvalidParameter { .. })
    ));
    assert!(matches!(
        gjk_closest_points(&sphere, &origin, &sphere, &origin, f64::NAN),
        Err(GeomError::InvalidParameter { .. })
    ));
}

// ---------------------------------------------------------------------------
// Margins, the fallback and the dispatch table.

#[test]
fn margins_and_limits() {
    let cuboid = Cuboid::new(Vector3::new(1.0, 1.0, 1.0));
    let (pose_a, pose_b) = (at(0.0, 0.0, 0.0), at(3.0, 0.0, 0.0));
    assert_eq!(
        penetration(&cuboid, &pose_a, &cuboid, &pose_b, 0.5).unwrap(),
        None
    );
    let p = penetration(&cuboid, &pose_a, &cuboid, &pose_b, 1.0)
        .unwrap()
        .unwrap();
    assert_eq!((p.depth, p.normal), (-1.0, Vector3::x()));
    let result = gjk_closest_points(&cuboid, &pose_a, &cuboid, &pose_b, 0.5).unwrap();
    assert_eq!(result.status, GjkStatus::BeyondLimit);
    assert!(result.distance > 0.5 && result.distance.is_finite());
    let far = gjk_closest_points(&cuboid, &pose_a, &cuboid, &at(1e3, 0.0, 0.0), 1.0).unwrap();
    assert_eq!(far.status, GjkStatus::BeyondLimit);
    assert!(far.iterations <= 2, "{far:?}");
}

#[test]
fn dispatch_fallback_answers_convex_pairs() {
    let mut table = DispatchTable::<f64>::new();
    install_convex_fallback(&mut table);
    let cylinder = Cylinder::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5);
    let cone = Cone::from_points(Point3::new(0.0, 1.0, 0.0), Point3::new(0.0, -1.0, 0.0), 1.0);
    let mut out = ContactManifolds::new();
    // The cone turned apex down, its apex at y = 0.5 in the cylinder whose
    // top is at y = 1: overlap 0.5 along +y.
    let (pose_a, pose_b) = (at(0.0, 0.0, 0.0), at(0.0, 1.5, 0.0));
    let flipped = Isometry3::from_parts(
        pose_b.translation,
        UnitQuaternion::from_euler_angles(std::f64::consts::PI, 0.0, 0.0),
    );
    table
        .contact(&cylinder, &pose_a, &cone, &flipped, 0.0, &mut out)
        .unwrap();
    let (normal, point) = out.points().next().unwrap();
    assert!((point.depth - 0.5).abs() < 1e-12, "{point:?}");
    assert!((normal - Vector3::y()).norm() < 1e-12, "{normal:?}");
    assert!(!out.is_approximate());
    let distance = table
        .distance(&cylinder, &pose_a, &cone, &at(0.0, 5.0, 0.0))
        .unwrap();
    // The cone's base disk at y = 4 faces the cylinder top at y = 1.
    assert!((distance - 3.0).abs() < 1e-12, "{distance}");
    assert_eq!(
        table
            .closest_points(&cylinder, &pose_a, &cone, &flipped, 0.0)
            .unwrap(),
        ClosestPoints::Intersecting
    );
    assert!(table.intersects(&cylinder, &pose_a, &cone, &flipped).unwrap());
    // Direct calls agree with the table.
    let mut direct = ContactManifolds::new();
    convex_contact(&cylinder, &pose_a, &cone, &flipped, 0.0, &mut direct).unwrap();
    assert_eq!(direct.as_slice(), out.as_slice());
    assert_eq!(
        convex_closest_points(&cylinder, &pose_a, &cone, &at(0.0, 5.0, 0.0), 2.0).unwrap(),
        ClosestPoints::Disjoint
    );
}

// ---------------------------------------------------------------------------
// f32 against f64.

/// The same pairs at f32 and f64 (depths, or minus the distances): within
/// `16 ε₃₂ · scale` (scale: the pair's size plus their separation) when
/// the cores are polytopes (boxes, spheres, capsules), the error of
/// rounding the poses, the supports and the simplex weights. Ellipsoids:
/// within `256 ε₃₂ · scale` — GJK on a smooth surface stalls once its
/// progress, quadratic in the remaining gap, falls below rounding, which
/// leaves a gap of order `√ε` relative.
#[test]
fn f32_against_f64() {
    let mut rng = Rng::new(12);
    let mut worst = 0.0f64;
    let mut worst_smooth = 0.0f64;
    for round in 0..1000 {
        let half_a = rng.vector(1.0).abs() + Vector3::repeat(0.1);
        let (ra, rb) = (rng.range(0.1, 1.0), rng.range(0.1, 1.0));
        let ends = [rng.vector(1.0), rng.vector(1.0)];
        let q = rng.rotation();
        let center = rng.vector(10.0);
        let other = center + rng.vector(3.0);
        let q_b = rng.rotation();
        macro_rules! answer {
            ($t:ty) => {{
                let cast = |v: Vector3<f64>| v.map(|x| x as $t);
                let pose = |c: Vector3<f64>, q: UnitQuaternion<f64>| {
                    Isometry3::from_parts(
                        Translation3::from(cast(c)),
                        nalgebra::convert::<_, UnitQuaternion<$t>>(q),
                    )
                };
                let a: Box<dyn Shape<$t>> = match round % 3 {
                    0 => Box::new(Cuboid::new(cast(half_a))),
                    1 => Box::new(Sphere::new(ra as $t)),
                    _ => Box::new(Ellipsoid::new(cast(half_a))),
                };
                let b: Box<dyn Shape<$t>> = match round % 2 {
                    0 => Box::new(Capsule::from_points(
                        Point3::from(cast(ends[0])),
                        Point3::from(cast(ends[1])),
                        rb as $t,
                    )),
                    _ => Box::new(Cuboid::new(cast(half_a.yzx()))),
                };
                penetration(
                    a.as_ref(),
                    &pose(center, q),
                    b.as_ref(),
                    &pose(other, q_b),
                    <$t>::INFINITY,
                )
                .unwrap()
                .map(|p| p.depth as f64)
            }};
        }
        let (d64, d32) = (answer!(f64).unwrap(), answer!(f32).unwrap());
        let scale = 3.0 + (other - center).norm();
        let error = (d64 - d32).abs() / (scale * f32::EPSILON as f64);
        if round % 3 == 2 {
            worst_smooth = worst_smooth.max(error);
        } else {
            worst = worst.max(error);
        }
    }
    println!("f32 vs f64: worst {worst} eps32·scale (polytope cores), {worst_smooth} (ellipsoids)");
    assert!(worst <= 16.0, "worst {worst} eps32·scale");
    assert!(worst_smooth <= 256.0, "worst {worst_smooth} eps32·scale");
}

// ---------------------------------------------------------------------------
// Random convex pairs: no panic, no NaN, mostly converged.

fn convex_spec() -> impl Strategy<Value = Box<dyn Spec>> {
    prop_oneof![
        support::sphere::strategy().prop_map(|s| Box::new(s) as Box<dyn Spec>),
        support::capsule::strategy().prop_map(|s| Box::new(s) as Box<dyn Spec>),
        support::cylinder::strategy().prop_map(|s| Box::new(s) as Box<dyn Spec>),
        support::cone::strategy().prop_map(|s| Box::new(s) as Box<dyn Spec>),
        support::ellipsoid::strategy().prop_map(|s| Box::new(s) as Box<dyn Spec>),
        support::cuboid::strategy().prop_map(|s| Box::new(s) as Box<dyn Spec>),
        support::triangle::strategy().prop_map(|s| Box::new(s) as Box<dyn Spec>),
        support::segment::strategy().prop_map(|s| Box::new(s) as Box<dyn Spec>),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_pairs_never_fail(
        a in convex_spec(),
        b in convex_spec(),
        closeness in 0.0f64..1.5,
    ) {
        let (shape_a, pose_a) = a.build64();
        let (shape_b, mut pose_b) = b.build64();
        // Pull b toward a so that about half of the pairs overlap.
        let gap = pose_b.translation.vector - pose_a.translation.vector;
        let reach = a.size() + b.size();
        if gap.norm() > 0.0 {
            pose_b.translation.vector = pose_a.translation.vector + gap.normalize() * reach * closeness;
        }
        let result = gjk_closest_points(shape_a.as_ref(), &pose_a, shape_b.as_ref(), &pose_b, f64::INFINITY).unwrap();
        prop_assert!(result.distance.is_finite() && result.point_a.iter().chain(result.point_b.iter()).all(|c| c.is_finite()), "{result:?}");
        prop_assert!(result.converged, "{result:?}");
        let p = penetration(shape_a.as_ref(), &pose_a, shape_b.as_ref(), &pose_b, f64::INFINITY).unwrap().unwrap();
        prop_assert!(p.depth.is_finite() && (p.normal.norm() - 1.0).abs() < 1e-9, "{p:?}");
        prop_assert!(p.point_a.iter().chain(p.point_b.iter()).all(|c| c.is_finite()), "{p:?}");
        if result.status == GjkStatus::Separated {
            prop_assert!((p.depth + result.distance).abs() <= 1e-9 * reach, "{p:?} vs {result:?}");
        } else {
            prop_assert!(p.depth >= -1e-9 * reach, "{p:?}");
        }
        // f32 runs too, without NaN.
        let (shape_a, pose_a) = a.build32();
        let (shape_b, _) = b.build32();
        let pose_b = Isometry3::from_parts(Translation3::from(pose_b.translation.vector.cast::<f32>()), nalgebra::convert(pose_b.rotation));
        let p = penetration(shape_a.as_ref(), &pose_a, shape_b.as_ref(), &pose_b, f32::INFINITY).unwrap().unwrap();
        prop_assert!(p.depth.is_finite() && p.normal.iter().all(|c| c.is_finite()), "{p:?}");
    }
}

// ---------------------------------------------------------------------------
// Flat contacts: flat faces, caps and triangles crossing each other.
//
// A flat triangle against a flat cap makes GJK end on a flat simplex with
// the origin on its boundary, and every support query along the contact
// normal is exactly along a cylinder's or cone's axis. A support point
// that leaves the shape there (a cylinder's "rim point" a radius beyond
// its cap) put a vertex outside the Minkowski difference into EPA's
// polytope, and EPA converged on a face through it: depth 0.1116 along
// (−0.5, 0.707, 0.5) instead of 0.02 along +y, reported as converged.

/// The flat triangle of the regression: y = 0, x in [4, 6], z in [4, x].
fn flat_triangle() -> Triangle<f64> {
    Triangle::new(
        Point3::new(4.0, 0.0, 4.0),
        Point3::new(6.0, 0.0, 6.0),
        Point3::new(6.0, 0.0, 4.0),
    )
}

/// Checks a flat-contact case: converged, certified by
/// [`check_certified_depth`] (2000 random directions plus `faces`, `±` each,
/// tolerance `1e-9`), and, when `expected` is given, the depth and normal
/// within `1e-12`.
fn check_flat_case(
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
    faces: &[Vector3<f64>],
    expected: Option<(f64, Vector3<f64>)>,
) -> Penetration<f64> {
    let p = penetration(a, pose_a, b, pose_b, 0.0)
        .unwrap()
        .unwrap_or_else(|| panic!("{a:?} {b:?}: reported apart"));
    assert!(p.converged, "{a:?} at {pose_a:?}\n{b:?} at {pose_b:?}\n{p:?}");
    let directions = feature_directions(faces, &[], &[]);
    let mut errors = CertificateErrors::default();
    check_certified_depth(a, pose_a, b, pose_b, &p, &directions, 2000, 1e-9, &mut errors);
    if let Some((depth, normal)) = expected {
        assert!(
            (p.depth - depth).abs() <= 1e-12 && (p.normal - normal).norm() <= 1e-12,
            "{a:?} at {pose_a:?}\n{b:?} at {pose_b:?}\n{p:?}, expected {depth} along {normal:?}"
        );
    }
    p
}

/// The regression itself: a cylinder standing 0.02 deep in a flat
/// triangle. Lifting it by 0.02 separates them and no smaller translation
/// does; EPA reported 0.1116 along (−0.5, 0.707, 0.5), converged.
#[test]
fn cylinder_standing_in_a_flat_triangle() {
    let cylinder = Cylinder::from_points(Point3::new(0.0, -0.4, 0.0), Point3::new(0.0, 0.4, 0.0), 0.35);
    let identity = Isometry3::identity();
    let up = Vector3::y();
    check_flat_case(
        &flat_triangle(),
        &identity,
        &cylinder,
        &at(5.0, 0.38, 5.3),
        &[up],
        Some((0.02, up)),
    );
    // Several places over the triangle, several turns about y and several
    // depths. Sliding the disk off sideways costs the radius plus the
    // centre's distance inside the triangle, or the radius minus its
    // distance outside (0.212 for the first place, 0.071 for the last):
    // where that is more than the depth the answer is the lift, otherwise
    // the certificate decides.
    let places = [
        (5.0, 5.3, 0.35 - 0.3 / 2f64.sqrt()),
        (5.5, 4.5, 0.35),
        (5.0, 4.8, 0.35),
        (5.3, 5.0, 0.35),
        (4.5, 4.3, 0.35),
        (5.9, 4.1, 0.35),
        (4.2, 4.1, 0.35),
        (5.8, 5.9, 0.35 - 0.1 / 2f64.sqrt()),
    ];
    for (x, z, slide) in places {
        for angle in [
            0.0,
            0.3,
            std::f64::consts::FRAC_PI_4,
            std::f64::consts::FRAC_PI_2,
            2.0,
        ] {
            for depth in [0.02, 1e-6, 0.3] {
                let pose = Isometry3::from_parts(
                    Translation3::new(x, 0.4 - depth, z),
                    UnitQuaternion::from_axis_angle(&Vector3::y_axis(), angle),
                );
                let lift = depth < slide;
                let p = check_flat_case(
                    &flat_triangle(),
                    &identity,
                    &cylinder,
                    &pose,
                    &[up],
                    lift.then_some((depth, up)),
                );
                assert!(p.depth <= depth + 1e-12, "{p:?}");
                // And in the other order: the normal points down, into b.
                check_flat_case(
                    &cylinder,
                    &pose,
                    &flat_triangle(),
                    &identity,
                    &[up],
                    lift.then_some((depth, -up)),
                );
            }
        }
    }
}

/// A cone's base and a box's bottom 0.02 through a flat triangle, and a
/// cylinder through a slab 2·10⁻³ thick: the lift.
#[test]
fn flat_bottoms_crossing_flat_shapes() {
    let identity = Isometry3::identity();
    let up = Vector3::y();
    let cone = Cone::from_points(Point3::new(0.0, 0.6, 0.0), Point3::origin(), 0.35);
    let cuboid = Cuboid::new(Vector3::new(0.3, 0.2, 0.25));
    for angle in [0.0, 0.4, std::f64::consts::FRAC_PI_2] {
        let turn = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), angle);
        for (x, z) in [(5.3, 4.6), (5.0, 4.8), (5.7, 5.5)] {
            let pose = Isometry3::from_parts(Translation3::new(x, -0.02, z), turn);
            check_flat_case(&flat_triangle(), &identity, &cone, &pose, &[up], Some((0.02, up)));
            let pose = Isometry3::from_parts(Translation3::new(x, 0.2 - 0.02, z), turn);
            check_flat_case(
                &flat_triangle(),
                &identity,
                &cuboid,
                &pose,
                &[up, turn * Vector3::x(), turn * Vector3::z()],
                Some((0.02, up)),
            );
        }
    }
    // A cylinder 0.8 tall through a slab (half-thickness 1e-3): its bottom
    // 5e-4 into the slab's top, or 0.02 below it (lift 0.021 < 0.781 down).
    let slab = Cuboid::new(Vector3::new(2.0, 1e-3, 2.0));
    let cylinder = Cylinder::from_points(Point3::new(0.0, -0.4, 0.0), Point3::new(0.0, 0.4, 0.0), 0.35);
    for slab_turn in [0.0, 0.7] {
        let slab_pose = Isometry3::from_parts(
            Translation3::new(1.0, -2.0, 3.0),
            UnitQuaternion::from_axis_angle(&Vector3::y_axis(), slab_turn),
        );
        let faces = [
            up,
            slab_pose.rotation * Vector3::x(),
            slab_pose.rotation * Vector3::z(),
        ];
        for (x, z, bottom, depth) in [
            (1.0, 3.0, -2.0 + 5e-4, 5e-4),
            (1.5, 2.2, -2.02, 0.021),
            (0.0, 4.0, -2.0 + 1e-3 - 1e-7, 1e-7),
        ] {
            let pose = at(x, bottom + 0.4, z);
            check_flat_case(&slab, &slab_pose, &cylinder, &pose, &faces, Some((depth, up)));
        }
    }
}

/// A flat triangle through a box, and triangles nearly in the plane of a
/// cap (tilted by 1e-7, touching, the cylinder tilted by 1e-9).
#[test]
fn triangles_crossing_boxes_and_caps() {
    let identity = Isometry3::identity();
    let up = Vector3::y();
    let cuboid = Cuboid::new(Vector3::new(1.0, 1.0, 1.0));
    // The plane y = 0.9 cuts the box's top 0.1: the box moves down 0.1.
    let large = Triangle::new(
        Point3::new(-3.0, 0.9, -3.0),
        Point3::new(0.0, 0.9, 3.0),
        Point3::new(3.0, 0.9, -3.0),
    );
    let small = Triangle::new(
        Point3::new(-0.5, 0.9, -0.5),
        Point3::new(0.0, 0.9, 0.5),
        Point3::new(0.5, 0.9, -0.5),
    );
    for triangle in [&large, &small] {
        for angle in [0.0, 0.5] {
            let pose = Isometry3::from_parts(
                Translation3::identity(),
                UnitQuaternion::from_axis_angle(&Vector3::y_axis(), angle),
            );
            let faces = [up, pose.rotation * Vector3::x(), pose.rotation * Vector3::z()];
            check_flat_case(triangle, &identity, &cuboid, &pose, &faces, Some((0.1, -up)));
        }
    }
    let cylinder = Cylinder::from_points(Point3::new(0.0, -0.4, 0.0), Point3::new(0.0, 0.4, 0.0), 0.35);
    // Exactly touching: depth zero along +y.
    check_flat_case(
        &flat_triangle(),
        &identity,
        &cylinder,
        &at(5.2, 0.4, 4.7),
        &[up],
        Some((0.0, up)),
    );
    // Tilted by 1e-7 and 1e-9: certified (the lift, nearly).
    let tilted = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 1e-7);
    let tilted_triangle = Isometry3::from_parts(Translation3::identity(), tilted);
    check_flat_case(
        &flat_triangle(),
        &tilted_triangle,
        &cylinder,
        &at(5.2, 0.38, 4.7),
        &[tilted * up, up],
        None,
    );
    let tilted_cylinder = Isometry3::from_parts(
        Translation3::new(5.2, 0.38, 4.7),
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 1e-9),
    );
    let p = check_flat_case(
        &flat_triangle(),
        &identity,
        &cylinder,
        &tilted_cylinder,
        &[up],
        None,
    );
    assert!(
        (p.depth - 0.02).abs() < 1e-9 && (p.normal - up).norm() < 1e-8,
        "{p:?}"
    );
}

/// Directions that must not overlap less than the depth, beyond the random
/// samples: `±` each face normal, the cross products of edge directions of
/// `a` with those of `b` (the 15 separating axes for two boxes), and the
/// coordinate axes.
fn feature_directions(
    faces: &[Vector3<f64>],
    edges_a: &[Vector3<f64>],
    edges_b: &[Vector3<f64>],
) -> Vec<Vector3<f64>> {
    let mut out = vec![Vector3::x(), Vector3::y(), Vector3::z()];
    out.extend_from_slice(faces);
    for ea in edges_a {
        for eb in edges_b {
            let c = ea.cross(eb);
            if c.norm() > 1e-9 {
                out.push(c.normalize());
            }
        }
    }
    let negated: Vec<Vector3<f64>> = out.iter().map(|d| -d).collect();
    out.extend(negated);
    out
}

/// The largest error seen by [`check_certified_depth`]: how far the overlap
/// along the normal strays from the depth, and how far below the depth the
/// smallest sampled overlap reaches (both absolute).
#[derive(Default, Debug)]
struct CertificateErrors {
    along_normal: f64,
    below_depth: f64,
}

/// Checks an EPA answer against its certificate, within `tolerance`:
/// (a) a valid separating translation: the overlap of the shapes along the
/// normal (`max_a n·x − min_b n·x`, from the support functions) equals the
/// depth, and moving `b` by `normal · (depth + 2·tolerance)` leaves the
/// shapes separated by GJK; (b) minimal: none of `samples` random
/// directions nor `extra` overlaps less than `depth − tolerance`.
#[allow(clippy::too_many_arguments)]
fn check_certified_depth(
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
    p: &Penetration<f64>,
    extra: &[Vector3<f64>],
    samples: usize,
    tolerance: f64,
    errors: &mut CertificateErrors,
) {
    let context = || format!("{a:?} at {pose_a:?}\n{b:?} at {pose_b:?}\n{p:?}");
    assert!(
        p.depth.is_finite() && (p.normal.norm() - 1.0).abs() < 1e-12,
        "{}",
        context()
    );
    let along = overlap_along(a, pose_a, b, pose_b, &p.normal);
    errors.along_normal = errors.along_normal.max((along - p.depth).abs());
    assert!(
        (along - p.depth).abs() <= tolerance,
        "overlap along the normal {along}: {}",
        context()
    );
    let mut moved = *pose_b;
    moved.translation.vector += p.normal * (p.depth + 2.0 * tolerance);
    let apart = gjk_closest_points(a, pose_a, b, &moved, f64::INFINITY).unwrap();
    assert_eq!(apart.status, GjkStatus::Separated, "{apart:?}: {}", context());
    let mut rng = Rng::new(4242);
    let random = (0..samples).map(|_| rng.direction());
    for d in random.chain(extra.iter().copied()) {
        let along = overlap_along(a, pose_a, b, pose_b, &d);
        errors.below_depth = errors.below_depth.max(p.depth - along);
        assert!(
            along >= p.depth - tolerance,
            "{d:?} overlaps {along} < depth: {}",
            context()
        );
    }
}

/// The shapes of the flat-contact tests, in their local frames, with their
/// face normals and edge directions (local) for [`feature_directions`].
struct Piece {
    shape: Box<dyn Shape<f64>>,
    faces: Vec<Vector3<f64>>,
    edges: Vec<Vector3<f64>>,
}

fn piece(shape: impl Shape<f64> + 'static, faces: &[Vector3<f64>], edges: &[Vector3<f64>]) -> Piece {
    Piece {
        shape: Box::new(shape),
        faces: faces.to_vec(),
        edges: edges.to_vec(),
    }
}

const AXES: [Vector3<f64>; 3] = [
    Vector3::new(1.0, 0.0, 0.0),
    Vector3::new(0.0, 1.0, 0.0),
    Vector3::new(0.0, 0.0, 1.0),
];

/// A random shape, flat ones (triangles, segments, thin boxes, flat
/// cylinders and cones) as often as solid ones.
fn random_piece(rng: &mut Rng) -> Piece {
    let size = rng.range(0.2, 2.0);
    match (rng.unit() * 10.0) as usize {
        0 => {
            // Triangles in the local xz plane (flat after an upright pose).
            let corner = |rng: &mut Rng| Point3::new(rng.range(-size, size), 0.0, rng.range(-size, size));
            let (p, q, r) = (corner(rng), corner(rng), corner(rng));
            let normal = (q - p).cross(&(r - p));
            if normal.norm() < 1e-3 * size * size {
                return random_piece(rng);
            }
            let edges = [(q - p).normalize(), (r - q).normalize(), (p - r).normalize()];
            piece(Triangle::new(p, q, r), &[normal.normalize()], &edges)
        }
        1 => piece(
            Segment::new(Point3::new(-size, 0.0, 0.0), Point3::new(size, 0.0, 0.0)),
            &[],
            &[Vector3::x()],
        ),
        2 => {
            // A slab: half-extent 1e-3 along y.
            let half = Vector3::new(size, 1e-3, rng.range(0.2, 2.0));
            piece(Cuboid::new(half), &AXES, &AXES)
        }
        3 => piece(
            Cuboid::new(Vector3::new(size, rng.range(0.05, 2.0), rng.range(0.2, 2.0))),
            &AXES,
            &AXES,
        ),
        4 | 5 => {
            // Cylinders along y, half of them flat disks.
            let half_height = if rng.unit() < 0.5 {
                1e-3
            } else {
                rng.range(0.05, 1.0)
            };
            piece(
                Cylinder::from_points(
                    Point3::new(0.0, -half_height, 0.0),
                    Point3::new(0.0, half_height, 0.0),
                    size,
                ),
                &[Vector3::y()],
                &[],
            )
        }
        6 => {
            let height = if rng.unit() < 0.5 {
                1e-2
            } else {
                rng.range(0.1, 2.0)
            };
            piece(
                Cone::from_points(Point3::new(0.0, height, 0.0), Point3::origin(), size),
                &[Vector3::y()],
                &[],
            )
        }
        7 => piece(Sphere::new(size), &[], &[]),
        8 => piece(
            Capsule::from_points(
                Point3::new(-size, 0.0, 0.0),
                Point3::new(size, 0.0, 0.0),
                0.3 * size,
            ),
            &[],
            &[Vector3::x()],
        ),
        _ => piece(
            Ellipsoid::new(Vector3::new(size, rng.range(0.01, 1.0), rng.range(0.2, 1.0))),
            &[],
            &[],
        ),
    }
}

/// A rotation that keeps flat shapes flat as often as not: none, about y
/// (a quarter turn or any angle), a quarter turn about x, or any.
fn random_flat_rotation(rng: &mut Rng) -> UnitQuaternion<f64> {
    match (rng.unit() * 5.0) as usize {
        0 => UnitQuaternion::identity(),
        1 => UnitQuaternion::from_axis_angle(
            &Vector3::y_axis(),
            std::f64::consts::FRAC_PI_2 * (rng.unit() * 4.0).floor(),
        ),
        2 => UnitQuaternion::from_axis_angle(&Vector3::y_axis(), rng.range(-3.2, 3.2)),
        3 => UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_2),
        _ => rng.rotation(),
    }
}

/// Random overlapping pairs with flat shapes and flat contacts, certified
/// by [`check_certified_depth`] with 2000 random directions plus the
/// feature directions (face normals, including the triangle's, and edge
/// cross products: the 15 axes for two boxes).
///
/// Tolerance: `1e-9 · (1 + size)`, `size` the larger shape extent
/// (0.2 to 2 here; the pair sits within 5 of the origin). EPA's own
/// tolerances are far tighter (`16 ε · scale` for polytope cores,
/// `5.8e-11` relative for smooth ones), so this leaves room only for the
/// support functions' rounding. At most 1 % of the pairs may come back not
/// converged; those must still be finite.
#[test]
fn flat_contacts_certified() {
    let mut rng = Rng::new(2024);
    let (mut checked, mut unconverged) = (0, 0);
    let mut errors = CertificateErrors::default();
    for _ in 0..3000 {
        let (a, b) = (random_piece(&mut rng), random_piece(&mut rng));
        let pose_a = Isometry3::from_parts(
            Translation3::from(rng.vector(5.0)),
            random_flat_rotation(&mut rng),
        );
        let rotation_b = random_flat_rotation(&mut rng);
        // Stack b on a with a small vertical overlap half of the time, else
        // put it anywhere within reach.
        let top_a = a.shape.support(&pose_a, &Vector3::y()).unwrap().y;
        let bottom_b = b
            .shape
            .support(
                &Isometry3::from_parts(Translation3::identity(), rotation_b),
                &-Vector3::y(),
            )
            .unwrap()
            .y;
        let reach = a.shape.local_aabb().half_extents().norm();
        let mut center_b =
            pose_a.translation.vector + Vector3::new(rng.range(-reach, reach), 0.0, rng.range(-reach, reach));
        center_b.y = if rng.unit() < 0.5 {
            top_a - bottom_b - rng.range(1e-4, 0.1)
        } else {
            pose_a.translation.vector.y + rng.range(-reach, reach)
        };
        let pose_b = Isometry3::from_parts(Translation3::from(center_b), rotation_b);
        let status = gjk_closest_points(a.shape.as_ref(), &pose_a, b.shape.as_ref(), &pose_b, 0.0)
            .unwrap()
            .status;
        if status != GjkStatus::Intersecting {
            continue;
        }
        let Some(p) = penetration(a.shape.as_ref(), &pose_a, b.shape.as_ref(), &pose_b, 0.0).unwrap() else {
            panic!("{:?} {:?}: intersecting but no penetration", a.shape, b.shape);
        };
        assert!(
            p.depth.is_finite() && p.normal.iter().all(|c| c.is_finite()),
            "{p:?}"
        );
        checked += 1;
        if !p.converged {
            unconverged += 1;
            continue;
        }
        let faces: Vec<Vector3<f64>> = a
            .faces
            .iter()
            .map(|f| pose_a.rotation * f)
            .chain(b.faces.iter().map(|f| pose_b.rotation * f))
            .collect();
        let edges_a: Vec<Vector3<f64>> = a.edges.iter().map(|e| pose_a.rotation * e).collect();
        let edges_b: Vec<Vector3<f64>> = b.edges.iter().map(|e| pose_b.rotation * e).collect();
        let size = 2.0
            * a.shape
                .local_aabb()
                .half_extents()
                .max()
                .max(b.shape.local_aabb().half_extents().max());
        check_certified_depth(
            a.shape.as_ref(),
            &pose_a,
            b.shape.as_ref(),
            &pose_b,
            &p,
            &feature_directions(&faces, &edges_a, &edges_b),
            2000,
            1e-9 * (1.0 + size),
            &mut errors,
        );
    }
    println!("flat contacts: {checked} checked, {unconverged} not converged, worst {errors:?}");
    assert!(checked > 1000, "{checked}");
    assert!(
        unconverged * 100 <= checked,
        "{unconverged} of {checked} did not converge"
    );
}
