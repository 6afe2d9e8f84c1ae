//! Sweeps against independent references: bisection on a static distance
//! written here from scratch, long motions at a thin wall, starting contact.

use super::*;
use crate::test_support::TestRng;
use crate::{Capsule, Triangle};
use nalgebra::{Point3, UnitQuaternion, Vector3};

// ---- independent static distances (plain f64, branchy, no shared code) ----

fn point_segment_distance(p: &Point3<f64>, a: &Point3<f64>, b: &Point3<f64>) -> f64 {
    let ab = b - a;
    let length_squared = ab.norm_squared();
    let s = if length_squared > 0.0 {
        ((p - a).dot(&ab) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + ab * s)).norm()
}

fn point_triangle_distance(p: &Point3<f64>, t: &Triangle<f64>) -> f64 {
    let n = (t.b - t.a).cross(&(t.c - t.a));
    let inside = [(t.a, t.b), (t.b, t.c), (t.c, t.a)]
        .iter()
        .all(|(s, e)| (e - s).cross(&(p - s)).dot(&n) >= 0.0);
    if inside && n.norm() > 0.0 {
        return ((p - t.a).dot(&n) / n.norm()).abs();
    }
    point_segment_distance(p, &t.a, &t.b)
        .min(point_segment_distance(p, &t.b, &t.c))
        .min(point_segment_distance(p, &t.c, &t.a))
}

/// Minimum of a convex function on `[0, 1]` by ternary search: (argmin, min).
fn convex_minimum(f: impl Fn(f64) -> f64) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..110 {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let t = 0.5 * (lo + hi);
    (t, f(t))
}

fn segment_segment_distance(p0: &Point3<f64>, p1: &Point3<f64>, q0: &Point3<f64>, q1: &Point3<f64>) -> f64 {
    convex_minimum(|s| point_segment_distance(&(p0 + (p1 - p0) * s), q0, q1)).1
}

fn segment_triangle_distance(p0: &Point3<f64>, p1: &Point3<f64>, t: &Triangle<f64>) -> f64 {
    let n = (t.b - t.a).cross(&(t.c - t.a));
    let (h0, h1) = ((p0 - t.a).dot(&n), (p1 - t.a).dot(&n));
    if h0 * h1 <= 0.0 && h0 != h1 {
        let crossing = p0 + (p1 - p0) * (h0 / (h0 - h1));
        if point_triangle_distance(&crossing, t) <= 1e-12 {
            return 0.0;
        }
    }
    [(t.a, t.b), (t.b, t.c), (t.c, t.a)]
        .iter()
        .map(|(s, e)| segment_segment_distance(p0, p1, s, e))
        .fold(
            point_triangle_distance(p0, t).min(point_triangle_distance(p1, t)),
            f64::min,
        )
}

/// The smallest `t` with `distance(t) <= radius`, by bisection (the
/// distance along a translation is convex in `t`).
fn bisection_toi(distance: impl Fn(f64) -> f64, radius: f64) -> Option<f64> {
    if distance(0.0) <= radius {
        return Some(0.0);
    }
    let (t_min, d_min) = convex_minimum(&distance);
    if d_min > radius {
        return None;
    }
    let (mut lo, mut hi) = (0.0, t_min);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if distance(mid) <= radius {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

fn random_triangle(rng: &mut TestRng, size: f64) -> Triangle<f64> {
    let centre = Point3::from(rng.vector(size));
    Triangle::new(
        centre + rng.vector(size),
        centre + rng.vector(size),
        centre + rng.vector(size),
    )
}

/// Compares a sweep with a bisection reference over `full_cases` random
/// cases (a quarter unless `GEOM_FULL_SWEEPS` is set); returns the share of
/// them compared (grazing ones, where `toi` is ill-conditioned, are
/// skipped).
fn check_against_bisection(
    seed: u64,
    full_cases: usize,
    sweep: impl Fn(&Point3<f64>, &Vector3<f64>, &Triangle<f64>) -> Option<SweepHit<f64>>,
    distance: impl Fn(&Point3<f64>, &Triangle<f64>) -> f64,
    radius: f64,
) -> f64 {
    let cases = geom_random::sweep_cases(full_cases);
    let mut rng = TestRng::new(seed);
    let mut compared = 0;
    let mut worst = 0.0f64;
    for case in 0..cases {
        let triangle = random_triangle(&mut rng, 2.0);
        let start = Point3::from(rng.vector(4.0));
        // Aim near the triangle half the time, so most cases hit.
        let motion = if case % 2 == 0 {
            (triangle.a + rng.vector(1.5) - start) * rng.uniform(0.5, 2.0)
        } else {
            rng.vector(6.0)
        };
        let at = |t: f64| distance(&(start + motion * t), &triangle);
        let reference = bisection_toi(at, radius);
        let hit = sweep(&start, &motion, &triangle);
        let slope = reference.map(|t| (at(t) - at((t - 1e-6).max(0.0))) / 1e-6);
        let grazing = matches!(slope, Some(s) if s > -1e-3 * motion.norm()) && reference != Some(0.0);
        // Near-misses and near-hits are grazing too.
        let (_, d_min) = convex_minimum(at);
        if grazing || (d_min - radius).abs() < 1e-6 * radius {
            continue;
        }
        match (hit, reference) {
            (Some(hit), Some(expected)) => {
                let error = (hit.toi - expected).abs();
                worst = worst.max(error / expected.max(1e-3));
                assert!(
                    error <= 1e-9 * expected.max(1e-3),
                    "case {case}: toi {} vs bisection {expected}",
                    hit.toi
                );
                assert!((hit.normal.norm() - 1.0).abs() < 1e-12);
                // The point is on the triangle and the shape touches it there.
                assert!(point_triangle_distance(&hit.point, &triangle) < 1e-9);
                compared += 1;
            }
            (None, None) => compared += 1,
            // Overlapping at the start but moving apart: no hit, by contract.
            (None, Some(expected)) if expected == 0.0 && at(1e-6) > at(0.0) => compared += 1,
            (hit, reference) => panic!(
                "case {case}: {hit:?} vs bisection {reference:?}; {start:?} {motion:?} {triangle:?} d0 {} d1 {}",
                at(0.0),
                at(1e-6)
            ),
        }
    }
    eprintln!("seed {seed}: worst relative toi error {worst:e} over {compared} cases");
    compared as f64 / cases as f64
}

#[test]
fn sphere_toi_equals_bisection_on_the_static_distance() {
    for radius in [0.05, 0.5, 1.5] {
        let compared = check_against_bisection(
            11 + (radius * 100.0) as u64,
            2000,
            |start, motion, triangle| sweep_sphere_triangle(start, radius, motion, triangle),
            point_triangle_distance,
            radius,
        );
        assert!(compared > 0.75, "{compared}");
    }
}

#[test]
fn capsule_toi_equals_bisection_on_the_static_distance() {
    let mut rng = TestRng::new(5);
    for round in 0..6 {
        let half_axis = rng.vector(1.0);
        let radius = [0.1, 0.4, 0.8][round % 3];
        let compared = check_against_bisection(
            100 + round as u64,
            400,
            |start, motion, triangle| {
                sweep_capsule_triangle(
                    &(start - half_axis),
                    &(start + half_axis),
                    radius,
                    motion,
                    triangle,
                )
            },
            |centre, triangle| {
                segment_triangle_distance(&(centre - half_axis), &(centre + half_axis), triangle)
            },
            radius,
        );
        assert!(compared > 0.625, "{compared}");
    }
}

#[test]
fn ellipsoid_toi_equals_bisection_in_ellipsoid_space() {
    let mut rng = TestRng::new(77);
    for round in 0..6 {
        let radii = Vector3::new(
            rng.uniform(0.2, 1.5),
            rng.uniform(0.2, 1.5),
            rng.uniform(0.2, 1.5),
        );
        let rotation = UnitQuaternion::from_scaled_axis(rng.vector(3.0));
        let to_unit = |v: Vector3<f64>| rotation.inverse_transform_vector(&v).component_div(&radii);
        let compared = check_against_bisection(
            300 + round,
            400,
            |start, motion, triangle| sweep_ellipsoid_triangle(start, &radii, &rotation, motion, triangle),
            |centre, triangle| {
                let map = |p: &Point3<f64>| Point3::from(to_unit(p - centre));
                point_triangle_distance(
                    &Point3::origin(),
                    &Triangle::new(map(&triangle.a), map(&triangle.b), map(&triangle.c)),
                )
            },
            1.0,
        );
        assert!(compared > 0.625, "{compared}");
    }
}

/// A zero-thickness wall in the plane x = 0, far larger than any motion.
fn wall() -> Triangle<f64> {
    Triangle::new(
        Point3::new(0.0, -1.0e4, -1.0e4),
        Point3::new(0.0, 2.0e4, -1.0e4),
        Point3::new(0.0, -1.0e4, 2.0e4),
    )
}

/// Directions into the wall (positive x) at angles 0°..89° from its normal.
fn directions_into_wall() -> Vec<Vector3<f64>> {
    let mut directions = Vec::new();
    for tilt in 0..90 {
        for azimuth in 0..12 {
            let (tilt, azimuth) = ((tilt as f64).to_radians(), (azimuth as f64 * 30.0).to_radians());
            directions.push(Vector3::new(
                tilt.cos(),
                tilt.sin() * azimuth.cos(),
                tilt.sin() * azimuth.sin(),
            ));
        }
    }
    directions
}

#[test]
fn no_tunnelling_through_a_thin_wall() {
    let wall = wall();
    let mut rng = TestRng::new(3);
    let radius = 0.25;
    let mut hits = 0;
    for direction in directions_into_wall() {
        let start = Point3::new(-rng.uniform(1.01, 3.0) * radius, rng.uniform(-1.0, 1.0), 0.0);
        let motion = direction * (100.0 * radius);
        // Where each shape ends: at the contact, or the whole motion when it
        // misses (then it must not have reached the wall either).
        let end_of = |hit: Option<SweepHit<f64>>| hit.map_or(1.0, |hit| hit.toi);
        let allowed = 16.0 * f64::EPSILON * 2.0e4; // the wall's vertices are 10⁴ away
        // Sphere.
        let hit = sweep_sphere_triangle(&start, radius, &motion, &wall);
        let end = start + motion * end_of(hit);
        assert!(end.x + radius <= allowed, "{direction:?}: {end:?}");
        if let Some(hit) = hit {
            assert!((hit.normal - Vector3::new(-1.0, 0.0, 0.0)).norm() < 1e-12);
        }
        // Ellipsoid 3:1:1, any orientation.
        let radii = Vector3::new(3.0, 1.0, 1.0) * radius;
        let rotation = UnitQuaternion::from_scaled_axis(rng.vector(3.0));
        let extent = rotation
            .inverse_transform_vector(&Vector3::x())
            .component_mul(&radii)
            .norm();
        let start_e = Point3::new(-extent * rng.uniform(1.01, 3.0), start.y, start.z);
        let hit = sweep_ellipsoid_triangle(&start_e, &radii, &rotation, &motion, &wall);
        let end = start_e + motion * end_of(hit);
        assert!(end.x + extent <= allowed, "{direction:?}: {end:?}");
        if let Some(hit) = hit {
            assert!((hit.normal - Vector3::new(-1.0, 0.0, 0.0)).norm() < 1e-9);
        }
        // Capsule, any orientation.
        let half_axis =
            UnitQuaternion::from_scaled_axis(rng.vector(3.0)) * Vector3::new(0.0, 2.0 * radius, 0.0);
        let reach = half_axis.x.abs() + radius;
        let centre = Point3::new(-reach * rng.uniform(1.01, 3.0), start.y, start.z);
        let hit = sweep_capsule_triangle(
            &(centre - half_axis),
            &(centre + half_axis),
            radius,
            &motion,
            &wall,
        );
        let end = centre + motion * end_of(hit);
        assert!(end.x + reach <= allowed, "{direction:?}: {end:?}");
        hits += usize::from(hit.is_some());
    }
    assert!(hits > 900, "{hits}");
}

#[test]
fn starting_in_contact_or_inside_reports_toi_zero_with_a_separating_normal() {
    let triangle = Triangle::new(
        Point3::new(-5.0, 0.0, -5.0),
        Point3::new(5.0, 0.0, -5.0),
        Point3::new(0.0, 0.0, 5.0),
    );
    let radius = 1.0;
    let down = Vector3::new(0.3, -2.0, 0.1);
    for height in [1.0, 0.999, 0.5, 1e-9] {
        // Touching, slightly inside, deep inside: toi 0, the normal pushes up.
        let centre = Point3::new(0.5, height, 0.25);
        let hit = sweep_sphere_triangle(&centre, radius, &down, &triangle).unwrap();
        assert_eq!(hit.toi, 0.0);
        assert_eq!(hit.normal, Vector3::y());
        assert!((hit.point - Point3::new(0.5, 0.0, 0.25)).norm() < 1e-15);
        // From below, the same, mirrored.
        let below = Point3::new(0.5, -height, 0.25);
        let hit = sweep_sphere_triangle(&below, radius, &-down, &triangle).unwrap();
        assert_eq!((hit.toi, hit.normal), (0.0, -Vector3::y()));
        // Moving away: the distance only grows, no hit.
        assert_eq!(sweep_sphere_triangle(&centre, radius, &-down, &triangle), None);
        // Capsule and ellipsoid, the same.
        let capsule = Capsule::from_points(
            Point3::new(0.0, height, 0.0),
            Point3::new(1.0, height, 0.5),
            radius,
        );
        let hit = sweep_capsule_triangle(&capsule.a, &capsule.b, radius, &down, &triangle).unwrap();
        assert_eq!((hit.toi, hit.normal), (0.0, Vector3::y()));
        let hit = sweep_ellipsoid_triangle(
            &centre,
            &Vector3::new(2.0, 1.0, 3.0),
            &UnitQuaternion::identity(),
            &down,
            &triangle,
        )
        .unwrap();
        assert_eq!(hit.toi, 0.0);
        assert!((hit.normal - Vector3::y()).norm() < 1e-15);
    }
    // Centre exactly on the triangle: the face normal facing away from the motion.
    let hit = sweep_sphere_triangle(&Point3::new(0.0, 0.0, 0.0), radius, &down, &triangle).unwrap();
    assert_eq!((hit.toi, hit.normal), (0.0, Vector3::y()));
    let hit = sweep_sphere_triangle(&Point3::new(0.0, 0.0, 0.0), radius, &-down, &triangle).unwrap();
    assert_eq!((hit.toi, hit.normal), (0.0, -Vector3::y()));
}

#[test]
fn motion_parallel_to_an_edge() {
    // The edge from (0,0,0) to (4,0,0); the sphere runs alongside it at
    // distance 1.5 > r and then alongside it at 0.5 < r from outside its end.
    let triangle = Triangle::new(
        Point3::new(0.0, 0.0, 0.0),
        Point3::new(4.0, 0.0, 0.0),
        Point3::new(2.0, 0.0, -3.0),
    );
    let along = Vector3::new(10.0, 0.0, 0.0);
    assert_eq!(
        sweep_sphere_triangle(&Point3::new(-3.0, 0.0, 1.5), 1.0, &along, &triangle),
        None
    );
    // Starts within r of the edge's line, before its start: meets vertex a
    // when |centre − a| = 1, at x = −√(1 − 0.25).
    let hit = sweep_sphere_triangle(&Point3::new(-3.0, 0.0, 0.5), 1.0, &along, &triangle).unwrap();
    let expected = (-(0.75f64).sqrt() + 3.0) / 10.0;
    assert!((hit.toi - expected).abs() < 1e-15, "{hit:?}");
    assert_eq!(hit.point, Point3::origin());
}

#[test]
fn bad_input_gives_none() {
    let triangle = wall();
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let centre = Point3::new(-1.0, 0.0, 0.0);
    let motion = Vector3::new(5.0, 0.0, 0.0);
    assert_eq!(sweep_sphere_triangle(&centre, nan, &motion, &triangle), None);
    assert_eq!(sweep_sphere_triangle(&centre, -1.0, &motion, &triangle), None);
    assert_eq!(
        sweep_sphere_triangle(&centre, 0.5, &Vector3::new(inf, 0.0, 0.0), &triangle),
        None
    );
    assert_eq!(
        sweep_sphere_triangle(&Point3::new(nan, 0.0, 0.0), 0.5, &motion, &triangle),
        None
    );
    let capsule_end = Point3::new(-1.0, 1.0, 0.0);
    assert_eq!(
        sweep_capsule_triangle(&centre, &capsule_end, inf, &motion, &triangle),
        None
    );
    assert_eq!(
        sweep_capsule_triangle(&centre, &Point3::new(nan, 0.0, 0.0), 0.5, &motion, &triangle),
        None
    );
    let rotation = UnitQuaternion::identity();
    assert_eq!(
        sweep_ellipsoid_triangle(
            &centre,
            &Vector3::new(1.0, 0.0, 1.0),
            &rotation,
            &motion,
            &triangle
        ),
        None
    );
    assert_eq!(
        sweep_ellipsoid_triangle(
            &centre,
            &Vector3::new(1.0, nan, 1.0),
            &rotation,
            &motion,
            &triangle
        ),
        None
    );
    // A zero motion and a zero radius are fine: no hit here, no NaN.
    assert_eq!(
        sweep_sphere_triangle(&centre, 0.5, &Vector3::zeros(), &triangle),
        None
    );
    let hit = sweep_sphere_triangle(&centre, 0.0, &motion, &triangle).unwrap();
    assert!((hit.toi - 0.2).abs() < 1e-15);
    // A degenerate triangle (a segment) is still hit through its edges.
    let sliver = Triangle::new(
        Point3::new(0.0, -1.0, 0.0),
        Point3::new(0.0, 1.0, 0.0),
        Point3::new(0.0, 0.0, 0.0),
    );
    let hit = sweep_sphere_triangle(&Point3::new(-2.0, 0.0, 0.0), 0.5, &motion, &sliver).unwrap();
    assert!((hit.toi - 0.3).abs() < 1e-15 && hit.is_finite());
}

#[test]
fn f32_far_from_the_origin_within_documented_bounds() {
    // Scenes 10⁴ from the origin: the toi times the motion's length stays
    // within 16 ε·scale of the f64 answer (scale = the largest coordinate,
    // DESIGN.md's bound). Positions are subtracted first, so in fact the
    // error is set by the local size (motion, radius, triangle): it is
    // checked against 64 ε·local too.
    let mut rng = TestRng::new(99);
    let offset = Vector3::new(1.0e4, -1.0e4, 1.0e4);
    let mut worst = 0.0f64;
    let mut hits = 0;
    for _ in 0..3000 {
        let triangle = random_triangle(&mut rng, 2.0);
        let start = Point3::from(rng.vector(4.0));
        let motion = (triangle.a + rng.vector(1.0) - start) * rng.uniform(0.5, 2.0);
        let radius = rng.uniform(0.1, 1.0);
        let shift = |p: Point3<f64>| (p + offset).map(|c| c as f32);
        let triangle32 = Triangle::new(shift(triangle.a), shift(triangle.b), shift(triangle.c));
        let start32 = shift(start);
        let motion32 = motion.map(|c| c as f32);
        // The f64 reference on exactly the f32 inputs.
        let widen = |p: Point3<f32>| p.map(f64::from);
        let reference = sweep_sphere_triangle(
            &widen(start32),
            f64::from(radius as f32),
            &motion32.map(f64::from),
            &Triangle::new(widen(triangle32.a), widen(triangle32.b), widen(triangle32.c)),
        );
        let hit = sweep_sphere_triangle(&start32, radius as f32, &motion32, &triangle32);
        let scale = 1.0e4 + 10.0;
        match (hit, reference) {
            (Some(hit), Some(reference)) => {
                let travel_error = (f64::from(hit.toi) - reference.toi).abs() * motion.norm();
                let error = travel_error / (f64::from(f32::EPSILON) * scale);
                let local = motion.norm() + radius + 4.0;
                let local_error = travel_error / (f64::from(f32::EPSILON) * local);
                worst = worst.max(local_error);
                hits += 1;
                assert!(error <= 16.0, "{error} ε·scale: {hit:?} vs {reference:?}");
                assert!(
                    local_error <= 64.0,
                    "{local_error} ε·local: {hit:?} vs {reference:?}"
                );
                assert!(hit.normal.iter().all(|c| c.is_finite()));
            }
            (None, None) => {}
            // A grazing contact may flip within the rounding of the inputs:
            // only then may the answers disagree.
            (hit, reference) => {
                let reference_min = convex_minimum(|t| {
                    point_triangle_distance(
                        &(widen(start32) + motion32.map(f64::from) * t),
                        &Triangle::new(widen(triangle32.a), widen(triangle32.b), widen(triangle32.c)),
                    )
                })
                .1;
                assert!(
                    (reference_min - f64::from(radius as f32)).abs() < 1e-3,
                    "{hit:?} vs {reference:?}"
                );
            }
        }
    }
    eprintln!("f32 at 1e4: worst toi error {worst:.2} ε·local over {hits} hits");
    assert!(hits > 1000);
}

#[test]
fn conservative_advancement_converges_on_two_spheres() {
    // Sphere of radius 1 at the origin moving by (10, 0.5, 0) at a sphere
    // of radius 2 centred (6, 0, 0): |(10t, 0.5t, 0) − (6,0,0)| = 3.
    let target = Point3::new(6.0, 0.0, 0.0);
    let motion = Vector3::new(10.0, 0.5, 0.0);
    let proximity = |offset: &Vector3<f64>| {
        let centre = Point3::from(*offset);
        let between = centre - target;
        let distance = between.norm();
        let direction = between / distance;
        Some(if distance <= 3.0 {
            Proximity::Touching {
                point: target + direction * 2.0,
                normal: direction,
            }
        } else {
            Proximity::Apart {
                point_on_mover: centre - direction,
                point_on_target: target + direction * 2.0,
            }
        })
    };
    // Exact: 100.25 t² − 120 t + 27 = 0, the smaller root.
    let (a, b, c) = (100.25f64, -120.0f64, 27.0f64);
    let exact = (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a);
    for tolerance in [1e-3, 1e-9] {
        let hit = conservative_advancement(&motion, true, tolerance, 100, proximity).unwrap();
        assert!(hit.toi <= exact, "never past the contact");
        assert!((exact - hit.toi) * motion.norm() <= tolerance * 1.0001, "{hit:?}");
        // The non-convex (Lipschitz) step is slower but as safe.
        let hit = conservative_advancement(&motion, false, tolerance, 1000, proximity).unwrap();
        assert!(hit.toi <= exact && (exact - hit.toi) * motion.norm() <= tolerance * 1.0001);
    }
    // Moving away misses; a failing query stops the sweep.
    assert_eq!(
        conservative_advancement(&-motion, true, 1e-9, 100, proximity),
        None
    );
    assert_eq!(conservative_advancement(&motion, true, 1e-9, 100, |_| None), None);
}
