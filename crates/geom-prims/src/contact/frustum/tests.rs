//! The separating-axis search against the overlap function itself, and
//! the ellipse's stationary points against sampling.

use nalgebra::{Isometry3, UnitQuaternion};

use super::*;
use crate::test_support::TestRng;
use crate::{Cuboid, Triangle};

/// Points on the unit sphere, evenly spread (Fibonacci lattice).
fn sphere_directions(count: usize) -> Vec<Vector3<f64>> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..count)
        .map(|k| {
            let y = 1.0 - 2.0 * (k as f64 + 0.5) / count as f64;
            let r = (1.0 - y * y).sqrt();
            let angle = golden * k as f64;
            Vector3::new(r * angle.cos(), y, r * angle.sin())
        })
        .collect()
}

/// The least of the overlap function over directions: the best of a dense
/// sampling, each of the best few refined by a shrinking pattern search
/// on the sphere. An upper bound on the penetration depth, close to it.
fn least_overlap_by_search(polytope: &Polytope<f64>, frustum: &Frustum<f64>) -> f64 {
    let overlap = |d: &Vector3<f64>| {
        let d = d.normalize();
        polytope.reach(&d) + frustum.reach(&-d)
    };
    let mut samples: Vec<(f64, Vector3<f64>)> = sphere_directions(3000)
        .into_iter()
        .map(|d| (overlap(&d), d))
        .collect();
    samples.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut best = f64::INFINITY;
    for &(value, start) in samples.iter().take(6) {
        let (mut value, mut d) = (value, start);
        let mut step = 0.05;
        while step > 1e-11 {
            let (u, v) = crate::orthonormal_basis(&d);
            let mut improved = false;
            for (du, dv) in [
                (1.0, 0.0),
                (-1.0, 0.0),
                (0.0, 1.0),
                (0.0, -1.0),
                (0.7, 0.7),
                (-0.7, 0.7),
                (0.7, -0.7),
                (-0.7, -0.7),
            ] {
                let trial = (d + (u * du + v * dv) * step).normalize();
                let trial_value = overlap(&trial);
                if trial_value < value {
                    (value, d, improved) = (trial_value, trial, true);
                }
            }
            if !improved {
                step *= 0.5;
            }
        }
        best = best.min(value);
    }
    best
}

fn random_frustum(rng: &mut TestRng) -> Frustum<f64> {
    let half = rng.vector(1.5) + Vector3::new(0.0, 0.2, 0.0);
    let radius = rng.uniform(0.2, 1.2);
    let ends = [Point3::from(-half), Point3::from(half)];
    if rng.next_u64().is_multiple_of(2) {
        Frustum::new(ends, [radius, radius]).unwrap()
    } else {
        Frustum::new(ends, [radius, 0.0]).unwrap()
    }
}

/// The least overlap the search reports is the penetration depth: its
/// normal overlaps by it (so it is no less than the least), and no
/// direction a dense search refines overlaps less (so it is no more). Random cylinders and cones against triangles and
/// boxes, overlapping, near the rims and apexes as often as not.
#[test]
fn least_overlap_is_the_least_over_all_directions() {
    let mut rng = TestRng::new(17);
    let mut compared = 0;
    for case in 0..400 {
        let frustum = random_frustum(&mut rng);
        let near = frustum.ends[case % 2] + rng.vector(1.0);
        let polytope = if case % 3 == 0 {
            let pose = Isometry3::from_parts(
                near.coords.into(),
                UnitQuaternion::from_scaled_axis(rng.vector(3.0)),
            );
            Polytope::cuboid(
                &Cuboid::new(Vector3::new(
                    rng.uniform(0.1, 1.0),
                    rng.uniform(0.1, 1.0),
                    rng.uniform(0.1, 1.0),
                ))
                .half_extents,
                &pose,
            )
        } else {
            let t = Triangle::new(
                near + rng.vector(1.5),
                near + rng.vector(1.5),
                near + rng.vector(1.5),
            );
            Polytope::triangle(&t.a, &t.b, &t.c)
        };
        let Some((d, depth, _)) = least_overlap(&polytope, &frustum, f64::INFINITY) else {
            panic!("case {case}: no answer with an infinite margin");
        };
        let searched = least_overlap_by_search(&polytope, &frustum);
        if searched < 0.0 {
            continue;
        }
        compared += 1;
        assert!((d.norm() - 1.0).abs() < 1e-12, "case {case}: {d:?}");
        let along = polytope.reach(&d) + frustum.reach(&-d);
        assert!((along - depth).abs() <= 1e-12, "case {case}: {along} vs {depth}");
        assert!(
            depth <= searched + 1e-9,
            "case {case}: {depth} where a direction overlaps by only {searched}"
        );
    }
    assert!(compared > 150, "{compared}");
}

/// The ellipse's stationary points: each reported normal is the normal at
/// a point whose offset from `z` is along it, and the first is the nearest
/// point (against 20 000 samples of the ellipse).
#[test]
fn ellipse_normals_are_stationary_and_the_first_is_nearest() {
    let mut rng = TestRng::new(5);
    for case in 0..500 {
        let a = rng.uniform(0.1, 2.0);
        let b = a * rng.uniform(0.02, 1.0);
        let z = match case % 4 {
            0 => (rng.uniform(-0.1, 0.1) * a, rng.uniform(-0.1, 0.1) * b),
            1 => (0.0, rng.uniform(-2.0, 2.0) * b),
            _ => (rng.uniform(-2.0, 2.0) * a, rng.uniform(-2.0, 2.0) * b),
        };
        let mut normals = Vec::new();
        ellipse_stationary_normals(a, b, z, |n1, n2| normals.push((n1, n2)));
        assert!(!normals.is_empty(), "case {case}");
        // The ellipse's point with outward normal along (n1, n2).
        let point = |(n1, n2): (f64, f64)| {
            let scale = (a * a * n1 * n1 + b * b * n2 * n2).sqrt();
            (a * a * n1 / scale, b * b * n2 / scale)
        };
        for &n in &normals {
            let (x, y) = point(n);
            assert!(
                (x * x / (a * a) + y * y / (b * b) - 1.0).abs() < 1e-9,
                "case {case}"
            );
            let (dx, dy) = (x - z.0, y - z.1);
            let cross = (dx * n.1 - dy * n.0) / n.0.hypot(n.1);
            assert!(
                cross.abs() <= 1e-9 * (a + dx.hypot(dy)),
                "case {case}: {n:?} {cross}"
            );
        }
        let nearest = (0..20_000)
            .map(|k| {
                let angle = std::f64::consts::TAU * k as f64 / 20_000.0;
                (a * angle.cos() - z.0).hypot(b * angle.sin() - z.1)
            })
            .fold(f64::INFINITY, f64::min);
        let (x, y) = point(normals[0]);
        let first = (x - z.0).hypot(y - z.1);
        assert!(first <= nearest + 1e-9 * a, "case {case}: {first} vs {nearest}");
    }
}

/// Against boxes, overlapping and apart alike, the candidate normals (the
/// rim–edge pairs pruned to those whose Gauss images meet) find the least
/// overlap, or the largest separation, that a dense search of directions
/// finds.
#[test]
fn least_overlap_against_boxes_overlapping_or_apart() {
    let mut rng = TestRng::new(23);
    let (mut overlapping, mut apart) = (0, 0);
    for case in 0..300 {
        let frustum = random_frustum(&mut rng);
        let near = frustum.ends[case % 2] + rng.vector(1.6);
        let pose = Isometry3::from_parts(
            near.coords.into(),
            UnitQuaternion::from_scaled_axis(rng.vector(3.0)),
        );
        let half_extents = Vector3::new(
            rng.uniform(0.1, 1.0),
            rng.uniform(0.1, 1.0),
            rng.uniform(0.1, 1.0),
        );
        let polytope = Polytope::cuboid(&half_extents, &pose);
        let Some((d, depth, _)) = least_overlap(&polytope, &frustum, f64::INFINITY) else {
            panic!("case {case}: no answer with an infinite margin");
        };
        let searched = least_overlap_by_search(&polytope, &frustum);
        if searched < 0.0 {
            apart += 1;
        } else {
            overlapping += 1;
        }
        let along = polytope.reach(&d) + frustum.reach(&-d);
        assert!((along - depth).abs() <= 1e-12, "case {case}: {along} vs {depth}");
        assert!(
            depth <= searched + 1e-9,
            "case {case}: {depth} where a direction overlaps by only {searched}"
        );
    }
    assert!(
        overlapping > 60 && apart > 60,
        "{overlapping} overlapping, {apart} apart"
    );
}
