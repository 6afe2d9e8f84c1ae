//! Pair contacts against answers computed independently here: centre
//! distances, geom-core's segment distances, brute-force separating axes
//! and direction sampling, support points; symmetry through the dispatch
//! table; degenerate inputs.

use super::*;
use crate::test_support::TestRng;
use geom_core::distance::{closest_points_segment_segment, closest_points_segment_triangle};
use geom_core::{ClosestPoints, ContactManifold, FeatureId, Shape};
use nalgebra::{Point3, UnitQuaternion};

type BoxedShape = Box<dyn Shape<f64>>;

fn table64() -> DispatchTable<f64> {
    let mut table = DispatchTable::new();
    register_pairs(&mut table);
    table
}

fn table32() -> DispatchTable<f32> {
    let mut table = DispatchTable::new();
    register_pairs(&mut table);
    table
}

fn random_pose(rng: &mut TestRng, spread: f64) -> Isometry3<f64> {
    let rotation = UnitQuaternion::from_scaled_axis(rng.vector(std::f64::consts::PI));
    Isometry3::from_parts(Translation3::from(rng.vector(spread)), rotation)
}

fn pose32(pose: &Isometry3<f64>) -> Isometry3<f32> {
    pose.cast::<f32>()
}

fn contact(
    table: &DispatchTable<f64>,
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
    margin: f64,
) -> ContactManifolds<f64> {
    let mut out = ContactManifolds::new();
    table.contact(a, pose_a, b, pose_b, margin, &mut out).unwrap();
    check_well_formed(&out, margin);
    out
}

/// Unit normals, finite values, depths within the margin, at most four
/// points per manifold.
fn check_well_formed<N: Real>(out: &ContactManifolds<N>, margin: N) {
    for manifold in out.as_slice() {
        let length: N = manifold.normal.norm();
        assert!(
            (length - N::one()).abs() <= nalgebra::convert(1e-5),
            "normal {:?}",
            manifold.normal
        );
        assert!(!manifold.points.is_empty() && manifold.points.len() <= 4);
        for p in &manifold.points {
            assert!(
                p.point_a.iter().chain(p.point_b.iter()).all(|c| c.is_finite()),
                "{p:?}"
            );
            assert!(p.depth.is_finite() && p.depth >= -margin, "{p:?}");
        }
    }
}

fn max_depth<N: Real>(out: &ContactManifolds<N>) -> Option<N> {
    out.points().map(|(_, p)| p.depth).reduce(|x, y| x.max(y))
}

/// Signed distance from a world point to a box, by the textbook formula.
fn box_signed_distance(h: &Vector3<f64>, pose: &Isometry3<f64>, point: &Point3<f64>) -> f64 {
    let local = pose.inverse_transform_point(point);
    let q = local.coords.abs() - h;
    let outside = q.map(|x| x.max(0.0)).norm();
    outside + q.max().min(0.0)
}

// ---------------------------------------------------------------- round

#[test]
fn sphere_sphere_against_centre_distance() {
    let table = table64();
    let table_f32 = table32();
    let mut rng = TestRng::new(1);
    let mut worst_f32 = 0.0f64;
    for i in 0..2000 {
        let offset = if i % 2 == 0 { 0.0 } else { 1e4 };
        let mut pose_a = random_pose(&mut rng, 2.0);
        let mut pose_b = random_pose(&mut rng, 2.0);
        pose_a.translation.vector.x += offset;
        pose_b.translation.vector.x += offset;
        let (ra, rb) = (rng.uniform(0.0, 2.0), rng.uniform(0.0, 2.0));
        let (a, b) = (Sphere::new(ra), Sphere::new(rb));
        let margin = rng.uniform(0.0, 0.5);
        let out = contact(&table, &a, &pose_a, &b, &pose_b, margin);
        let centre_a = Point3::from(pose_a.translation.vector);
        let centre_b = Point3::from(pose_b.translation.vector);
        let exact = ra + rb - (centre_b - centre_a).norm();
        if exact < -margin {
            assert!(out.is_empty());
            continue;
        }
        let scale = 1.0 + offset;
        let m = &out.as_slice()[0];
        let p = m.points[0];
        assert!(
            (p.depth - exact).abs() <= 1e-9 * (1.0 + exact.abs()),
            "{} vs {exact}",
            p.depth
        );
        assert!(((p.point_a - centre_a).norm() - ra).abs() <= 1e-12 * scale);
        assert!(((p.point_b - centre_b).norm() - rb).abs() <= 1e-12 * scale);
        assert!((m.normal - (centre_b - centre_a).normalize()).norm() <= 1e-12);

        let mut out32 = ContactManifolds::new();
        table_f32
            .contact(
                &Sphere::new(ra as f32),
                &pose32(&pose_a),
                &Sphere::new(rb as f32),
                &pose32(&pose_b),
                margin as f32,
                &mut out32,
            )
            .unwrap();
        if let Some(depth) = max_depth(&out32) {
            worst_f32 = worst_f32.max((depth as f64 - exact).abs() / (f32::EPSILON as f64 * scale));
        }
    }
    // f32 depth within 16 ε·scale of the f64 answer (DESIGN.md's target).
    assert!(worst_f32 <= 16.0, "f32 error {worst_f32} ε·scale");
}

fn random_capsule(rng: &mut TestRng) -> Capsule<f64> {
    Capsule::from_points(
        Point3::from(rng.vector(1.5)),
        Point3::from(rng.vector(1.5)),
        rng.uniform(0.0, 1.0),
    )
}

#[test]
fn capsule_capsule_against_segment_distance() {
    let table = table64();
    let table_f32 = table32();
    let mut rng = TestRng::new(2);
    let mut worst_f32 = 0.0f64;
    let mut touching = 0;
    for _ in 0..2000 {
        let (pose_a, pose_b) = (random_pose(&mut rng, 2.0), random_pose(&mut rng, 2.0));
        let (a, b) = (random_capsule(&mut rng), random_capsule(&mut rng));
        let out = contact(&table, &a, &pose_a, &b, &pose_b, 0.1);
        let closest = closest_points_segment_segment(
            &(pose_a * a.a),
            &(pose_a * a.b),
            &(pose_b * b.a),
            &(pose_b * b.b),
        );
        let exact = a.radius + b.radius - closest.distance();
        if exact < -0.1 {
            assert!(out.is_empty());
            continue;
        }
        touching += 1;
        let depth = max_depth(&out).unwrap();
        assert!(
            (depth - exact).abs() <= 1e-9 * (1.0 + exact.abs()),
            "{depth} vs {exact}"
        );
        let normal = out.as_slice()[0].normal;
        for p in &out.as_slice()[0].points {
            // Each point on its capsule's surface.
            let on_a = Capsule::from_points(pose_a * a.a, pose_a * a.b, a.radius)
                .distance_local(&p.point_a)
                .unwrap();
            let on_b = Capsule::from_points(pose_b * b.a, pose_b * b.b, b.radius)
                .distance_local(&p.point_b)
                .unwrap();
            assert!(on_a.abs() <= 1e-9 && on_b.abs() <= 1e-9, "{on_a} {on_b}");
            if closest.distance() > 1e-9 {
                assert!(((p.point_b - p.point_a).dot(&normal) + p.depth).abs() <= 1e-9);
            }
        }
        let mut out32 = ContactManifolds::new();
        let a32 = Capsule::from_points(a.a.cast::<f32>(), a.b.cast::<f32>(), a.radius as f32);
        let b32 = Capsule::from_points(b.a.cast::<f32>(), b.b.cast::<f32>(), b.radius as f32);
        table_f32
            .contact(&a32, &pose32(&pose_a), &b32, &pose32(&pose_b), 0.1, &mut out32)
            .unwrap();
        if let Some(depth32) = max_depth(&out32) {
            worst_f32 = worst_f32.max((depth32 as f64 - exact).abs() / (f32::EPSILON as f64 * 4.0));
        }
    }
    assert!(touching > 200, "{touching}");
    // f32 depth within 16 ε·scale (scale 4: the largest coordinate).
    assert!(worst_f32 <= 16.0, "f32 error {worst_f32} ε·scale");
}

#[test]
fn parallel_capsules_give_two_points() {
    let table = table64();
    let a = Capsule::from_points(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), 0.5);
    let b = Capsule::from_points(Point3::new(-2.0, 0.0, 0.0), Point3::new(0.5, 0.0, 0.0), 0.25);
    let pose_a = Isometry3::identity();
    let pose_b = Isometry3::translation(0.0, 0.7, 0.0);
    let out = contact(&table, &a, &pose_a, &b, &pose_b, 0.0);
    let m = &out.as_slice()[0];
    assert_eq!(m.normal, Vector3::y());
    assert_eq!(m.points.len(), 2);
    let xs: Vec<f64> = m.points.iter().map(|p| p.point_a.x).collect();
    assert_eq!(xs, vec![-1.0, 0.5]);
    for p in &m.points {
        assert!((p.depth - 0.05).abs() < 1e-15);
    }
    // Coaxial and overlapping: documented fixed perpendicular, depth r_a + r_b.
    let out = contact(&table, &a, &pose_a, &b, &Isometry3::identity(), 0.0);
    let m = &out.as_slice()[0];
    assert!(m.normal.x.abs() < 1e-15 && (m.normal.norm() - 1.0).abs() < 1e-15);
    assert!(m.points.iter().all(|p| (p.depth - 0.75).abs() < 1e-15));
    // Crossing at right angles through each other: normal a × b oriented a → b.
    let c = Capsule::from_points(Point3::new(0.0, 0.0, -1.0), Point3::new(0.0, 0.0, 1.0), 0.25);
    let out = contact(
        &table,
        &a,
        &pose_a,
        &c,
        &Isometry3::translation(0.0, 0.0, 0.0),
        0.0,
    );
    let m = &out.as_slice()[0];
    assert_eq!(m.points.len(), 1);
    assert!((m.normal.y.abs() - 1.0).abs() < 1e-15);
    assert_eq!(m.points[0].depth, 0.75);
}

#[test]
fn sphere_capsule_against_point_segment_distance() {
    let table = table64();
    let mut rng = TestRng::new(3);
    for _ in 0..1000 {
        let (pose_a, pose_b) = (random_pose(&mut rng, 2.0), random_pose(&mut rng, 2.0));
        let sphere = Sphere::new(rng.uniform(0.0, 1.0));
        let capsule = random_capsule(&mut rng);
        let out = contact(&table, &sphere, &pose_a, &capsule, &pose_b, 0.2);
        let centre = Point3::from(pose_a.translation.vector);
        let (q0, q1) = (pose_b * capsule.a, pose_b * capsule.b);
        // Independent: dense sampling refined by the exact projection formula.
        let d = q1 - q0;
        let s = ((centre - q0).dot(&d) / d.norm_squared()).clamp(0.0, 1.0);
        let exact = sphere.radius + capsule.radius - (centre - (q0 + d * s)).norm();
        match max_depth(&out) {
            Some(depth) => assert!((depth - exact).abs() <= 1e-9 * (1.0 + exact.abs())),
            None => assert!(exact < -0.2),
        }
        // Reversed order through the table: same depth.
        let reversed = contact(&table, &capsule, &pose_b, &sphere, &pose_a, 0.2);
        assert_eq!(max_depth(&reversed), max_depth(&out));
    }
}

// ---------------------------------------------------------------- boxes

#[test]
fn sphere_box_against_signed_distance() {
    let table = table64();
    let table_f32 = table32();
    let mut rng = TestRng::new(4);
    let mut worst_f32 = 0.0f64;
    let mut inside = 0;
    for _ in 0..3000 {
        let (pose_a, pose_b) = (random_pose(&mut rng, 2.0), random_pose(&mut rng, 2.0));
        let sphere = Sphere::new(rng.uniform(0.0, 1.0));
        let h = Vector3::new(
            rng.uniform(0.0, 1.5),
            rng.uniform(0.0, 1.5),
            rng.uniform(0.0, 1.5),
        );
        let cuboid = Cuboid::new(h);
        let out = contact(&table, &sphere, &pose_a, &cuboid, &pose_b, 0.1);
        let centre = Point3::from(pose_a.translation.vector);
        let signed = box_signed_distance(&h, &pose_b, &centre);
        inside += usize::from(signed < 0.0);
        let exact = sphere.radius - signed;
        let Some(depth) = max_depth(&out) else {
            assert!(exact < -0.1);
            continue;
        };
        assert!(
            (depth - exact).abs() <= 1e-9 * (1.0 + exact.abs()),
            "{depth} vs {exact}"
        );
        let p = out.as_slice()[0].points[0];
        assert!(box_signed_distance(&h, &pose_b, &p.point_b).abs() <= 1e-12 * 8.0);
        assert!(((p.point_a - centre).norm() - sphere.radius).abs() <= 1e-12 * 8.0);
        assert!(((p.point_b - p.point_a).dot(&out.as_slice()[0].normal) + depth).abs() <= 1e-9);

        let mut out32 = ContactManifolds::new();
        table_f32
            .contact(
                &Sphere::new(sphere.radius as f32),
                &pose32(&pose_a),
                &Cuboid::new(h.cast::<f32>()),
                &pose32(&pose_b),
                0.1,
                &mut out32,
            )
            .unwrap();
        if let Some(depth32) = max_depth(&out32) {
            worst_f32 = worst_f32.max((depth32 as f64 - exact).abs() / (f32::EPSILON as f64 * 4.0));
        }
    }
    assert!(inside > 50, "{inside}");
    assert!(worst_f32 <= 16.0, "f32 error {worst_f32} ε·scale");
}

/// Closest distance between a segment and a box by dense sampling along
/// the segment (each sample's distance by the textbook formula).
fn sampled_segment_box_distance(
    p0: &Point3<f64>,
    p1: &Point3<f64>,
    h: &Vector3<f64>,
    pose: &Isometry3<f64>,
) -> f64 {
    let n = 20_000;
    (0..=n)
        .map(|i| box_signed_distance(h, pose, &(p0 + (p1 - p0) * (i as f64 / n as f64))))
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn capsule_box_apart_against_sampling() {
    let table = table64();
    let mut rng = TestRng::new(5);
    let mut checked = 0;
    for _ in 0..600 {
        let (pose_a, pose_b) = (random_pose(&mut rng, 2.5), random_pose(&mut rng, 2.5));
        let capsule = random_capsule(&mut rng);
        let h = Vector3::new(
            rng.uniform(0.1, 1.0),
            rng.uniform(0.1, 1.0),
            rng.uniform(0.1, 1.0),
        );
        let (p0, p1) = (pose_a * capsule.a, pose_a * capsule.b);
        let sampled = sampled_segment_box_distance(&p0, &p1, &h, &pose_b);
        if sampled <= 1e-3 {
            continue;
        }
        let out = contact(&table, &capsule, &pose_a, &Cuboid::new(h), &pose_b, 10.0);
        let depth = max_depth(&out).unwrap();
        // The exact distance is at most the sampled one, and not by more
        // than the sampling step times the segment length.
        let exact_bound = capsule.radius - sampled;
        assert!(depth >= exact_bound - 1e-12, "{depth} vs {exact_bound}");
        assert!(depth <= exact_bound + (p1 - p0).norm() / 20_000.0 + 1e-12);
        // Closest points agree with the contact.
        match table
            .closest_points(&capsule, &pose_a, &Cuboid::new(h), &pose_b, 10.0)
            .unwrap()
        {
            ClosestPoints::WithinMargin { point_a, point_b } => {
                assert!(((point_b - point_a).norm() + depth).abs() <= 1e-9);
            }
            other => assert!(depth >= 0.0, "{other:?}"),
        }
        checked += 1;
    }
    assert!(checked > 300);
}

#[test]
fn capsule_box_overlapping_and_lying_flat() {
    let table = table64();
    let cuboid = Cuboid::new(Vector3::new(2.0, 0.5, 2.0));
    let capsule = Capsule::from_points(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), 0.25);
    // Lying on the top face, 0.05 deep: two points, normal −y (capsule → box).
    let out = contact(
        &table,
        &capsule,
        &Isometry3::translation(0.0, 0.7, 0.3),
        &cuboid,
        &Isometry3::identity(),
        0.0,
    );
    let m = &out.as_slice()[0];
    assert_eq!(m.points.len(), 2);
    assert!((m.normal - -Vector3::y()).norm() < 1e-15);
    for p in &m.points {
        assert!((p.depth - 0.05).abs() < 1e-12);
        assert!((p.point_b.y - 0.5).abs() < 1e-15);
        assert_eq!(p.feature_b, FeatureId::Face(3));
    }
    // Core sunk below the top face: still two points, depth r + sink.
    let out = contact(
        &table,
        &capsule,
        &Isometry3::translation(0.0, 0.4, 0.3),
        &cuboid,
        &Isometry3::identity(),
        0.0,
    );
    let m = &out.as_slice()[0];
    assert_eq!(m.points.len(), 2);
    assert!((m.normal - -Vector3::y()).norm() < 1e-15);
    assert!(m.points.iter().all(|p| (p.depth - 0.35).abs() < 1e-12));
    // Standing on the face: one point, the lower cap.
    let standing = Capsule::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.25);
    let out = contact(
        &table,
        &standing,
        &Isometry3::translation(0.5, 1.7, 0.0),
        &cuboid,
        &Isometry3::identity(),
        0.0,
    );
    let m = &out.as_slice()[0];
    assert_eq!(m.points.len(), 1);
    assert!((m.points[0].depth - 0.05).abs() < 1e-12);
    assert_eq!(m.points[0].feature_a, FeatureId::Face(1));
}

/// The 15 separating axes of two boxes, computed from their world axes.
fn box_axes(pose_a: &Isometry3<f64>, pose_b: &Isometry3<f64>) -> Vec<Vector3<f64>> {
    let axes_a: Vec<_> = (0..3).map(|k| pose_a.rotation * Vector3::ith(k, 1.0)).collect();
    let axes_b: Vec<_> = (0..3).map(|k| pose_b.rotation * Vector3::ith(k, 1.0)).collect();
    let mut axes = [axes_a.clone(), axes_b.clone()].concat();
    for a in &axes_a {
        for b in &axes_b {
            let c = a.cross(b);
            if c.norm() > 1e-6 {
                axes.push(c.normalize());
            }
        }
    }
    axes
}

fn corners(h: &Vector3<f64>, pose: &Isometry3<f64>) -> Vec<Point3<f64>> {
    (0..8)
        .map(|i| {
            pose * Point3::new(
                if i & 1 == 1 { h.x } else { -h.x },
                if i & 2 == 2 { h.y } else { -h.y },
                if i & 4 == 4 { h.z } else { -h.z },
            )
        })
        .collect()
}

/// Penetration of two point sets along `axis` (either orientation): the
/// smaller overlap of their projections.
fn overlap(a: &[Point3<f64>], b: &[Point3<f64>], axis: &Vector3<f64>) -> f64 {
    let range = |s: &[Point3<f64>]| {
        s.iter()
            .map(|p| p.coords.dot(axis))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            })
    };
    let ((a_lo, a_hi), (b_lo, b_hi)) = (range(a), range(b));
    (a_hi - b_lo).min(b_hi - a_lo)
}

/// Directions spread over the sphere (a Fibonacci lattice).
fn sphere_directions(count: usize) -> Vec<Vector3<f64>> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..count)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f64 + 0.5) / count as f64;
            let r = (1.0 - y * y).sqrt();
            Vector3::new(r * (golden * i as f64).cos(), y, r * (golden * i as f64).sin())
        })
        .collect()
}

#[test]
fn box_box_against_brute_force_axes_and_sampling() {
    let table = table64();
    let mut rng = TestRng::new(6);
    let directions = sphere_directions(4000);
    let mut exact_depths = 0;
    let mut overlapping = 0;
    for _ in 0..400 {
        let (pose_a, pose_b) = (random_pose(&mut rng, 1.2), random_pose(&mut rng, 1.2));
        let ha = Vector3::new(
            rng.uniform(0.2, 1.0),
            rng.uniform(0.2, 1.0),
            rng.uniform(0.2, 1.0),
        );
        let hb = Vector3::new(
            rng.uniform(0.2, 1.0),
            rng.uniform(0.2, 1.0),
            rng.uniform(0.2, 1.0),
        );
        let (ca, cb) = (corners(&ha, &pose_a), corners(&hb, &pose_b));
        let axis_depth = box_axes(&pose_a, &pose_b)
            .iter()
            .map(|axis| overlap(&ca, &cb, axis))
            .fold(f64::INFINITY, f64::min);
        let sampled_depth = directions
            .iter()
            .map(|axis| overlap(&ca, &cb, axis))
            .fold(f64::INFINITY, f64::min);
        if axis_depth >= 0.0 {
            // Overlapping, the 15 axes find the minimum: no sampled
            // direction does better, and the sampling comes close.
            assert!(axis_depth <= sampled_depth + 1e-12);
            assert!(
                sampled_depth - axis_depth < 0.05,
                "{sampled_depth} vs {axis_depth}"
            );
        }
        let out = contact(&table, &Cuboid::new(ha), &pose_a, &Cuboid::new(hb), &pose_b, 0.0);
        if axis_depth < 0.0 {
            assert!(out.is_empty(), "separated by {axis_depth}");
            continue;
        }
        overlapping += 1;
        let m = &out.as_slice()[0];
        // Along the reported normal the boxes overlap by the minimum over
        // the 15 axes (the exact penetration depth of two boxes).
        let along = overlap(&ca, &cb, &m.normal);
        assert!((along - axis_depth).abs() <= 1e-9, "{along} vs {axis_depth}");
        let depth = max_depth(&out).unwrap();
        assert!(depth <= along + 1e-9, "{depth} vs {along}");
        if (depth - axis_depth).abs() <= 1e-9 * (1.0 + axis_depth) {
            exact_depths += 1;
        }
        for p in &m.points {
            assert!(
                box_signed_distance(&ha, &pose_a, &p.point_a).abs() <= 1e-9,
                "{p:?}"
            );
            assert!(
                box_signed_distance(&hb, &pose_b, &p.point_b).abs() <= 1e-9,
                "{p:?}"
            );
            // The two points are `depth` apart along the normal.
            assert!(
                ((p.point_a - p.point_b).dot(&m.normal) - p.depth).abs() <= 1e-9,
                "{p:?}"
            );
            assert!((p.point_a - p.point_b).norm() <= p.depth + 1e-9);
        }
    }
    assert!(overlapping > 150, "{overlapping}");
    // Most configurations have no near-tie between a face and an edge axis.
    assert!(
        exact_depths * 10 >= overlapping * 8,
        "{exact_depths} of {overlapping}"
    );
}

#[test]
fn resting_box_on_box_gives_four_points() {
    let table = table64();
    let ground = Cuboid::new(Vector3::new(5.0, 0.5, 5.0));
    let crate_box = Cuboid::new(Vector3::new(0.5, 0.5, 0.5));
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.3);
    for sink in [0.0, 0.01] {
        let pose_top = Isometry3::from_parts(Translation3::new(0.3, 1.0 - sink, -0.2), rotation);
        for (a, pa, b, pb, sign) in [
            (&ground, Isometry3::identity(), &crate_box, pose_top, 1.0),
            (&crate_box, pose_top, &ground, Isometry3::identity(), -1.0),
        ] {
            let out = contact(&table, a, &pa, b, &pb, 0.0);
            let m = &out.as_slice()[0];
            assert_eq!(m.points.len(), 4, "{m:?}");
            assert!((m.normal - Vector3::y() * sign).norm() < 1e-12, "{:?}", m.normal);
            assert!(m.points.iter().all(|p| (p.depth - sink).abs() < 1e-12));
        }
    }
}

#[test]
fn box_triangle_against_brute_force_axes() {
    let table = table64();
    let mut rng = TestRng::new(7);
    let directions = sphere_directions(4000);
    let mut overlapping = 0;
    for _ in 0..400 {
        let pose_a = random_pose(&mut rng, 0.8);
        let h = Vector3::new(
            rng.uniform(0.2, 1.0),
            rng.uniform(0.2, 1.0),
            rng.uniform(0.2, 1.0),
        );
        let triangle = Triangle::new(
            Point3::from(rng.vector(1.5)),
            Point3::from(rng.vector(1.5)),
            Point3::from(rng.vector(1.5)),
        );
        let tri = [triangle.a, triangle.b, triangle.c];
        let ca = corners(&h, &pose_a);
        let sampled = directions
            .iter()
            .map(|axis| overlap(&ca, &tri, axis))
            .fold(f64::INFINITY, f64::min);
        let mut axes: Vec<Vector3<f64>> = (0..3).map(|k| pose_a.rotation * Vector3::ith(k, 1.0)).collect();
        axes.push((tri[1] - tri[0]).cross(&(tri[2] - tri[0])).normalize());
        for k in 0..3 {
            for e in 0..3 {
                let c = (pose_a.rotation * Vector3::ith(k, 1.0)).cross(&(tri[(e + 1) % 3] - tri[e]));
                if c.norm() > 1e-6 {
                    axes.push(c.normalize());
                }
            }
        }
        let exact = axes
            .iter()
            .map(|axis| overlap(&ca, &tri, axis))
            .fold(f64::INFINITY, f64::min);
        if exact >= 0.0 {
            assert!(exact <= sampled + 1e-12);
        }
        let out = contact(
            &table,
            &Cuboid::new(h),
            &pose_a,
            &triangle,
            &Isometry3::identity(),
            0.0,
        );
        if exact < 0.0 {
            assert!(out.is_empty());
            continue;
        }
        overlapping += 1;
        let m = &out.as_slice()[0];
        let along = overlap(&ca, &tri, &m.normal);
        assert!(
            along >= exact - 1e-9 && along <= exact * 1.02 + 1e-9,
            "{along} vs {exact}"
        );
        for p in &m.points {
            assert!(p.depth <= along + 1e-9);
            assert!(
                box_signed_distance(&h, &pose_a, &p.point_a).abs() <= 1e-9,
                "{p:?}"
            );
            let on_triangle =
                geom_core::distance::closest_point_on_triangle(&p.point_b, &tri[0], &tri[1], &tri[2]).0;
            assert!((on_triangle - p.point_b).norm() <= 1e-9, "{p:?}");
        }
    }
    assert!(overlapping > 100, "{overlapping}");
}

#[test]
fn box_resting_on_triangle_gives_four_points() {
    let table = table64();
    let ground = Triangle::new(
        Point3::new(-10.0, 0.0, -10.0),
        Point3::new(0.0, 0.0, 10.0),
        Point3::new(10.0, 0.0, -10.0),
    );
    let crate_box = Cuboid::new(Vector3::new(0.5, 0.5, 0.5));
    let pose = Isometry3::translation(0.0, 0.49, 0.0);
    let out = contact(&table, &crate_box, &pose, &ground, &Isometry3::identity(), 0.0);
    let m = &out.as_slice()[0];
    assert_eq!(m.points.len(), 4);
    assert!((m.normal + Vector3::y()).norm() < 1e-12);
    assert!(m.points.iter().all(|p| (p.depth - 0.01).abs() < 1e-12));
}

// ---------------------------------------------------------------- triangles

#[test]
fn sphere_and_capsule_triangle_against_geom_core_distances() {
    let table = table64();
    let mut rng = TestRng::new(8);
    for _ in 0..1500 {
        let triangle = Triangle::new(
            Point3::from(rng.vector(1.5)),
            Point3::from(rng.vector(1.5)),
            Point3::from(rng.vector(1.5)),
        );
        let pose_t = random_pose(&mut rng, 1.0);
        let world = [pose_t * triangle.a, pose_t * triangle.b, pose_t * triangle.c];
        let capsule = random_capsule(&mut rng);
        let pose_c = random_pose(&mut rng, 2.0);
        let (p0, p1) = (pose_c * capsule.a, pose_c * capsule.b);
        let closest = closest_points_segment_triangle(&p0, &p1, &world[0], &world[1], &world[2]);
        let out = contact(&table, &capsule, &pose_c, &triangle, &pose_t, 0.3);
        let exact = capsule.radius - closest.distance();
        if closest.distance() > 1e-9 {
            match max_depth(&out) {
                Some(depth) => assert!((depth - exact).abs() <= 1e-9, "{depth} vs {exact}"),
                None => assert!(exact < -0.3),
            }
        } else {
            assert!(max_depth(&out).unwrap() >= capsule.radius - 1e-9);
        }
        // The sphere at the capsule's first end.
        let sphere = Sphere::new(capsule.radius);
        let pose_s = Isometry3::translation(p0.x, p0.y, p0.z);
        let (on_triangle, _) =
            geom_core::distance::closest_point_on_triangle(&p0, &world[0], &world[1], &world[2]);
        let out = contact(&table, &sphere, &pose_s, &triangle, &pose_t, 0.3);
        let exact = sphere.radius - (on_triangle - p0).norm();
        match max_depth(&out) {
            Some(depth) => {
                assert!((depth - exact).abs() <= 1e-9);
                assert!((out.as_slice()[0].points[0].point_b - on_triangle).norm() <= 1e-9);
            }
            None => assert!(exact < -0.3),
        }
    }
}

#[test]
fn capsule_lying_on_triangle_gives_two_points() {
    let table = table64();
    let ground = Triangle::new(
        Point3::new(-10.0, 0.0, -10.0),
        Point3::new(0.0, 0.0, 10.0),
        Point3::new(10.0, 0.0, -10.0),
    );
    let capsule = Capsule::from_points(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), 0.5);
    for height in [0.45, 0.2] {
        let out = contact(
            &table,
            &capsule,
            &Isometry3::translation(0.0, height, 0.0),
            &ground,
            &Isometry3::identity(),
            0.0,
        );
        let m = &out.as_slice()[0];
        assert_eq!(m.points.len(), 2, "{m:?}");
        assert!((m.normal + Vector3::y()).norm() < 1e-12);
        assert!(m.points.iter().all(|p| (p.depth - (0.5 - height)).abs() < 1e-12));
    }
}

// ---------------------------------------------------------------- half-space

fn convex_shapes(rng: &mut TestRng) -> Vec<Box<dyn Shape<f64>>> {
    vec![
        Box::new(Sphere::new(rng.uniform(0.0, 1.0))),
        Box::new(random_capsule(rng)),
        Box::new(Cuboid::new(Vector3::new(
            rng.uniform(0.0, 1.0),
            rng.uniform(0.0, 1.0),
            rng.uniform(0.0, 1.0),
        ))),
        Box::new(Cylinder::from_points(
            Point3::from(rng.vector(1.0)),
            Point3::from(rng.vector(1.0)),
            rng.uniform(0.0, 1.0),
        )),
        Box::new(Cone::from_points(
            Point3::from(rng.vector(1.0)),
            Point3::from(rng.vector(1.0)),
            rng.uniform(0.0, 1.0),
        )),
        Box::new(Ellipsoid::new(Vector3::new(
            rng.uniform(0.0, 1.0),
            rng.uniform(0.0, 1.0),
            rng.uniform(0.0, 1.0),
        ))),
        Box::new(Triangle::new(
            Point3::from(rng.vector(1.0)),
            Point3::from(rng.vector(1.0)),
            Point3::from(rng.vector(1.0)),
        )),
        Box::new(Segment::new(
            Point3::from(rng.vector(1.0)),
            Point3::from(rng.vector(1.0)),
        )),
    ]
}

#[test]
fn convex_half_space_against_support_points() {
    let table = table64();
    let mut rng = TestRng::new(9);
    for i in 0..500 {
        let plane = HalfSpace::new(
            rng.vector(2.0) + Vector3::new(0.0, 0.1, 0.0),
            rng.uniform(-1.0, 1.0),
        );
        let pose_plane = random_pose(&mut rng, 1.0);
        let world_unit = pose_plane.rotation * plane.unit_normal();
        let world_offset =
            plane.offset() / plane.normal().norm() + world_unit.dot(&pose_plane.translation.vector);
        for shape in convex_shapes(&mut rng) {
            let pose = random_pose(&mut rng, 1.5);
            let out = contact(&table, shape.as_ref(), &pose, &plane, &pose_plane, 0.25);
            // Independent: the support point along −n.
            let support = shape.support(&pose, &-world_unit).unwrap();
            let exact = world_offset - world_unit.dot(&support.coords);
            match max_depth(&out) {
                Some(depth) => {
                    assert!(
                        (depth - exact).abs() <= 1e-9,
                        "{i} {:?}: {depth} vs {exact}",
                        shape.kind()
                    );
                    let m = &out.as_slice()[0];
                    assert!((m.normal + world_unit).norm() <= 1e-12);
                    for p in &m.points {
                        // point_b on the plane, point_a at the depth below it.
                        assert!((world_unit.dot(&p.point_b.coords) - world_offset).abs() <= 1e-9);
                        assert!((world_offset - world_unit.dot(&p.point_a.coords) - p.depth).abs() <= 1e-9);
                        assert!(
                            shape.distance(&pose, &p.point_a).unwrap() <= 1e-9,
                            "{:?}",
                            shape.kind()
                        );
                    }
                }
                None => assert!(exact < -0.25, "{:?}: {exact}", shape.kind()),
            }
        }
    }
}

#[test]
fn resting_shapes_on_half_space() {
    let table = table64();
    let floor = HalfSpace::new(Vector3::new(0.0, 2.0, 0.0), 0.0);
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.7);
    let count = |shape: &dyn Shape<f64>, pose: Isometry3<f64>| {
        let out = contact(&table, shape, &pose, &floor, &Isometry3::identity(), 0.0);
        let m = &out.as_slice()[0];
        assert!((m.normal + Vector3::y()).norm() < 1e-12);
        (m.points.len(), max_depth(&out).unwrap())
    };
    let cuboid = Cuboid::new(Vector3::new(1.0, 0.5, 2.0));
    let (n, depth) = count(
        &cuboid,
        Isometry3::from_parts(Translation3::new(3.0, 0.49, 1.0), rotation),
    );
    assert_eq!(n, 4);
    assert!((depth - 0.01).abs() < 1e-12);
    let standing = Cylinder::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5);
    assert_eq!(count(&standing, Isometry3::translation(0.0, 0.99, 0.0)).0, 4);
    let lying = Cylinder::from_points(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), 0.5);
    assert_eq!(count(&lying, Isometry3::translation(0.0, 0.49, 0.0)).0, 2);
    let cone = Cone::from_points(Point3::new(0.0, 1.0, 0.0), Point3::new(0.0, -1.0, 0.0), 0.5);
    assert_eq!(count(&cone, Isometry3::translation(0.0, 0.99, 0.0)).0, 4);
    let capsule = Capsule::from_points(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), 0.5);
    assert_eq!(count(&capsule, Isometry3::translation(0.0, 0.49, 0.0)).0, 2);
}

// ---------------------------------------------------------------- symmetry and degenerate input

/// One shape of every kind with a registered pair.
fn all_shapes(rng: &mut TestRng) -> Vec<Box<dyn Shape<f64>>> {
    let mut shapes = convex_shapes(rng);
    shapes.push(Box::new(HalfSpace::new(
        rng.vector(1.0) + Vector3::new(0.0, 0.5, 0.0),
        rng.uniform(-0.5, 0.5),
    )));
    shapes
}

fn flipped(manifold: &ContactManifold<f64>) -> ContactManifold<f64> {
    ContactManifold {
        normal: -manifold.normal,
        points: manifold.points.iter().map(|p| p.swapped()).collect(),
    }
}

#[test]
fn table_answers_both_orders_as_mirror_images() {
    let table = table64();
    let mut rng = TestRng::new(10);
    let mut compared = 0;
    for _ in 0..300 {
        let shapes = all_shapes(&mut rng);
        let others = all_shapes(&mut rng);
        for a in &shapes {
            for b in &others {
                if !table.supports_contact(a.as_ref(), b.as_ref()) {
                    continue;
                }
                let (pose_a, pose_b) = (random_pose(&mut rng, 1.0), random_pose(&mut rng, 1.0));
                let mut forward = ContactManifolds::new();
                let mut backward = ContactManifolds::new();
                table
                    .contact(a.as_ref(), &pose_a, b.as_ref(), &pose_b, 0.1, &mut forward)
                    .unwrap();
                table
                    .contact(b.as_ref(), &pose_b, a.as_ref(), &pose_a, 0.1, &mut backward)
                    .unwrap();
                let mirrored: Vec<_> = backward.as_slice().iter().map(flipped).collect();
                assert_eq!(forward.as_slice(), &mirrored[..], "{:?} {:?}", a.kind(), b.kind());
                compared += usize::from(!forward.is_empty());
            }
        }
    }
    assert!(compared > 1000, "{compared}");
}

#[test]
fn every_registered_pair_is_served() {
    let table = table64();
    let mut rng = TestRng::new(11);
    let shapes = all_shapes(&mut rng);
    let kinds: Vec<_> = shapes.iter().map(|s| s.kind()).collect();
    let served = |a: ShapeKind, b: ShapeKind| {
        let (i, j) = (
            kinds.iter().position(|k| *k == a).unwrap(),
            kinds.iter().position(|k| *k == b).unwrap(),
        );
        table.supports_contact(shapes[i].as_ref(), shapes[j].as_ref())
    };
    use ShapeKind as K;
    for (a, b) in [
        (K::Sphere, K::Sphere),
        (K::Sphere, K::Capsule),
        (K::Capsule, K::Capsule),
        (K::Sphere, K::Cuboid),
        (K::Capsule, K::Cuboid),
        (K::Cuboid, K::Cuboid),
        (K::Sphere, K::Triangle),
        (K::Capsule, K::Triangle),
        (K::Cuboid, K::Triangle),
    ] {
        assert!(served(a, b) && served(b, a), "{a:?} {b:?}");
    }
    for kind in [
        K::Sphere,
        K::Capsule,
        K::Cuboid,
        K::Cylinder,
        K::Cone,
        K::Ellipsoid,
        K::Triangle,
        K::Segment,
    ] {
        assert!(
            served(kind, K::HalfSpace) && served(K::HalfSpace, kind),
            "{kind:?}"
        );
    }
}

#[test]
fn degenerate_inputs_answer_as_documented() {
    let table = table64();
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.5);
    // Coincident sphere centres: +y of the canonical first sphere's frame
    // (the one with the smaller translation, then rotation).
    let pose_a = Isometry3::from_parts(Translation3::new(1.0, 2.0, 3.0), rotation);
    let pose_b = Isometry3::translation(1.0, 2.0, 3.0);
    let out = contact(
        &table,
        &Sphere::new(1.0),
        &pose_a,
        &Sphere::new(0.5),
        &pose_b,
        0.0,
    );
    let m = &out.as_slice()[0];
    let first_up = if is_canonical_order(&pose_a, &[1.0], &pose_b, &[0.5]) {
        rotation * Vector3::y()
    } else {
        -Vector3::y()
    };
    assert!((m.normal - first_up).norm() < 1e-15, "{:?}", m.normal);
    assert_eq!(m.points[0].depth, 1.5);
    // Zero radii touching exactly: depth 0 kept with margin 0.
    let out = contact(
        &table,
        &Sphere::new(0.0),
        &pose_b,
        &Sphere::new(0.0),
        &pose_b,
        0.0,
    );
    assert_eq!(max_depth(&out), Some(0.0));
    let out = contact(
        &table,
        &Sphere::new(1.0),
        &Isometry3::identity(),
        &Sphere::new(1.0),
        &Isometry3::translation(2.0, 0.0, 0.0),
        0.0,
    );
    assert_eq!(max_depth(&out), Some(0.0));
    // Sphere centre on a capsule's axis: a fixed perpendicular of the axis.
    let capsule = Capsule::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5);
    let out = contact(
        &table,
        &Sphere::new(0.5),
        &Isometry3::identity(),
        &capsule,
        &Isometry3::identity(),
        0.0,
    );
    let m = &out.as_slice()[0];
    assert!(m.normal.y.abs() < 1e-15 && m.points[0].depth == 1.0);
    // Sphere centre at a box's centre: exits along the smallest half extent.
    let cuboid = Cuboid::new(Vector3::new(1.0, 0.25, 2.0));
    let out = contact(
        &table,
        &Sphere::new(0.5),
        &Isometry3::identity(),
        &cuboid,
        &Isometry3::identity(),
        0.0,
    );
    let m = &out.as_slice()[0];
    assert_eq!(m.normal, -Vector3::y());
    assert_eq!(m.points[0].depth, 0.75);
    assert_eq!(m.points[0].feature_b, FeatureId::Face(3));
    // Coincident boxes, zero-size boxes and flat triangles: no panic, no NaN.
    let shapes: Vec<Box<dyn Shape<f64>>> = vec![
        Box::new(Sphere::new(0.0)),
        Box::new(Capsule::from_points(Point3::origin(), Point3::origin(), 0.0)),
        Box::new(Capsule::from_points(
            Point3::new(-1.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            0.0,
        )),
        Box::new(Cuboid::new(Vector3::zeros())),
        Box::new(Cuboid::new(Vector3::new(1.0, 0.0, 1.0))),
        Box::new(Cuboid::new(Vector3::new(1.0, 1.0, 1.0))),
        Box::new(Triangle::new(
            Point3::origin(),
            Point3::origin(),
            Point3::origin(),
        )),
        Box::new(Triangle::new(
            Point3::origin(),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(2.0, 0.0, 0.0),
        )),
        Box::new(Cylinder::from_points(
            Point3::origin(),
            Point3::new(0.0, 1.0, 0.0),
            0.0,
        )),
        Box::new(Cone::from_points(
            Point3::origin(),
            Point3::new(0.0, 1.0, 0.0),
            0.0,
        )),
        Box::new(Ellipsoid::new(Vector3::zeros())),
        Box::new(Segment::new(Point3::origin(), Point3::origin())),
        Box::new(HalfSpace::new(Vector3::y(), 0.0)),
    ];
    let poses = [
        Isometry3::identity(),
        Isometry3::translation(0.5, 0.0, 0.0),
        Isometry3::from_parts(Translation3::new(0.0, 1e-300, 0.0), rotation),
    ];
    for a in &shapes {
        for b in &shapes {
            if !table.supports_contact(a.as_ref(), b.as_ref()) {
                continue;
            }
            for pose_a in &poses {
                for pose_b in &poses {
                    for margin in [0.0, 1.0, f64::INFINITY] {
                        let mut out = ContactManifolds::new();
                        table
                            .contact(a.as_ref(), pose_a, b.as_ref(), pose_b, margin, &mut out)
                            .unwrap();
                        check_well_formed(&out, margin);
                    }
                }
            }
        }
    }
    // Coincident identical boxes: one manifold, depth 2 (a full face).
    let out = contact(
        &table,
        &Cuboid::new(Vector3::repeat(1.0)),
        &Isometry3::identity(),
        &Cuboid::new(Vector3::repeat(1.0)),
        &Isometry3::identity(),
        0.0,
    );
    assert_eq!(max_depth(&out), Some(2.0));
}

#[test]
fn closest_points_agree_with_contacts() {
    let table = table64();
    let mut rng = TestRng::new(12);
    for _ in 0..500 {
        let (pose_a, pose_b) = (random_pose(&mut rng, 3.0), random_pose(&mut rng, 3.0));
        let pairs: Vec<(BoxedShape, BoxedShape)> = vec![
            (Box::new(Sphere::new(0.5)), Box::new(Sphere::new(0.3))),
            (Box::new(Sphere::new(0.5)), Box::new(random_capsule(&mut rng))),
            (
                Box::new(random_capsule(&mut rng)),
                Box::new(random_capsule(&mut rng)),
            ),
            (
                Box::new(Sphere::new(0.5)),
                Box::new(Cuboid::new(Vector3::new(0.5, 0.2, 0.9))),
            ),
        ];
        for (a, b) in &pairs {
            let answer = table
                .closest_points(a.as_ref(), &pose_a, b.as_ref(), &pose_b, 2.0)
                .unwrap();
            let out = contact(&table, a.as_ref(), &pose_a, b.as_ref(), &pose_b, 2.0);
            match answer {
                ClosestPoints::Intersecting => assert!(max_depth(&out).unwrap() >= 0.0),
                ClosestPoints::WithinMargin { point_a, point_b } => {
                    let depth = max_depth(&out).unwrap();
                    assert!(((point_b - point_a).norm() + depth).abs() <= 1e-9);
                }
                ClosestPoints::Disjoint => assert!(out.is_empty()),
            }
        }
    }
}

#[test]
fn capsule_box_overlapping_against_brute_force_axes() {
    let table = table64();
    let mut rng = TestRng::new(13);
    let directions = sphere_directions(4000);
    let (mut overlapping, mut exact_depths) = (0, 0);
    for _ in 0..600 {
        let (pose_a, pose_b) = (random_pose(&mut rng, 0.8), random_pose(&mut rng, 0.8));
        let capsule = random_capsule(&mut rng);
        let h = Vector3::new(
            rng.uniform(0.1, 1.0),
            rng.uniform(0.1, 1.0),
            rng.uniform(0.1, 1.0),
        );
        let core = [pose_a * capsule.a, pose_a * capsule.b];
        let boxed = corners(&h, &pose_b);
        if sampled_segment_box_distance(&core[0], &core[1], &h, &pose_b) > 0.0 {
            continue;
        }
        // Independent: box axes and core × box axes, in world space.
        let d = core[1] - core[0];
        let mut axes: Vec<Vector3<f64>> = (0..3).map(|k| pose_b.rotation * Vector3::ith(k, 1.0)).collect();
        for k in 0..3 {
            let c = d.cross(&(pose_b.rotation * Vector3::ith(k, 1.0)));
            if c.norm() > 1e-6 {
                axes.push(c.normalize());
            }
        }
        let exact = axes
            .iter()
            .map(|axis| overlap(&core, &boxed, axis))
            .fold(f64::INFINITY, f64::min)
            + capsule.radius;
        let sampled = directions
            .iter()
            .map(|axis| overlap(&core, &boxed, axis))
            .fold(f64::INFINITY, f64::min)
            + capsule.radius;
        assert!(exact <= sampled + 1e-12);
        let out = contact(&table, &capsule, &pose_a, &Cuboid::new(h), &pose_b, 0.0);
        let depth = max_depth(&out).unwrap();
        overlapping += 1;
        assert!(
            depth >= exact - 1e-9 && depth <= exact * 1.02 + 1e-9,
            "{depth} vs {exact}"
        );
        exact_depths += usize::from((depth - exact).abs() <= 1e-9);
        let m = &out.as_slice()[0];
        for p in &m.points {
            assert!(
                box_signed_distance(&h, &pose_b, &p.point_b).abs() <= 1e-9,
                "{p:?}"
            );
            let surface = Capsule::from_points(core[0], core[1], capsule.radius)
                .distance_local(&p.point_a)
                .unwrap();
            assert!(surface.abs() <= 1e-9, "{surface}");
        }
    }
    assert!(overlapping > 100, "{overlapping}");
    assert!(
        exact_depths * 10 >= overlapping * 8,
        "{exact_depths} of {overlapping}"
    );
}

/// Box–box and box–triangle pairs apart within the margin, through the
/// table in both orders: the closest points and the contact, whose depth
/// is minus the exact distance (GJK's
/// closest points in `f64`, another algorithm), the points lie on the
/// shapes that distance apart across the normal, and the normal is their
/// direction. In `f32`, the distance within a few ulps of the `f64`
/// answer's scale and the normal within 10⁻⁴ rad where the gap dwarfs the
/// rounding.
#[test]
fn polytopes_apart_within_the_margin_get_the_exact_distance() {
    let (table, table_f32) = (table64(), table32());
    let mut rng = TestRng::new(41);
    let margin = 0.4;
    let (mut apart, mut replaced) = (0, 0);
    for case in 0..1500 {
        let pose_a = random_pose(&mut rng, 1.3);
        let h = Vector3::new(
            rng.uniform(0.1, 0.8),
            rng.uniform(0.1, 0.8),
            rng.uniform(0.1, 0.8),
        );
        let cuboid = Cuboid::new(h);
        let (other, pose_b): (BoxedShape, Isometry3<f64>) = if case % 2 == 0 {
            let hb = Vector3::new(
                rng.uniform(0.1, 0.8),
                rng.uniform(0.1, 0.8),
                rng.uniform(0.1, 0.8),
            );
            (Box::new(Cuboid::new(hb)), random_pose(&mut rng, 1.3))
        } else {
            let triangle = Triangle::new(
                Point3::from(rng.vector(1.5)),
                Point3::from(rng.vector(1.5)),
                Point3::from(rng.vector(1.5)),
            );
            (Box::new(triangle), Isometry3::identity())
        };
        let oracle =
            crate::gjk::convex_closest_points(&cuboid, &pose_a, other.as_ref(), &pose_b, margin).unwrap();
        let ClosestPoints::WithinMargin { point_a, point_b } = oracle else {
            continue;
        };
        let distance = (point_b - point_a).norm();
        if distance < 1e-6 {
            continue;
        }
        apart += 1;
        for swapped in [false, true] {
            let out = if swapped {
                contact(&table, other.as_ref(), &pose_b, &cuboid, &pose_a, margin)
            } else {
                contact(&table, &cuboid, &pose_a, other.as_ref(), &pose_b, margin)
            };
            let context = format!("case {case} swapped {swapped}: distance {distance}, {out:?}");
            // The closest points, through the table too.
            let closest = if swapped {
                table.closest_points(other.as_ref(), &pose_b, &cuboid, &pose_a, margin)
            } else {
                table.closest_points(&cuboid, &pose_a, other.as_ref(), &pose_b, margin)
            };
            let Ok(ClosestPoints::WithinMargin {
                point_a: p,
                point_b: q,
            }) = closest
            else {
                panic!("{context}: {closest:?}");
            };
            assert!(((q - p).norm() - distance).abs() <= 1e-9, "{context}: {p} {q}");
            let depth = max_depth(&out).expect(&context);
            assert!((depth + distance).abs() <= 1e-9, "{context}");
            replaced += usize::from(out.len() == 1 && out.as_slice()[0].points.len() == 1);
            for (normal, p) in out.points().filter(|(_, p)| p.depth >= depth - 1e-12) {
                let (on_box, on_other) = if swapped {
                    (p.point_b, p.point_a)
                } else {
                    (p.point_a, p.point_b)
                };
                assert!(
                    box_signed_distance(&h, &pose_a, &on_box).abs() <= 1e-9,
                    "{context}"
                );
                let other_local = pose_b.inverse() * on_other;
                let on_surface = other.closest_point_local(&other_local, false).unwrap().point;
                assert!((on_surface - other_local).norm() <= 1e-9, "{context}");
                assert!(
                    ((p.point_b - p.point_a) - normal * distance).norm() <= 1e-9,
                    "{context}"
                );
            }
            // f32: the same pair, against the f64 answer.
            let mut out32 = ContactManifolds::new();
            let (a32, b32) = (pose32(&pose_a), pose32(&pose_b));
            let other32: Box<dyn Shape<f32>> = match other.kind() {
                geom_core::ShapeKind::Cuboid => Box::new(Cuboid::new(
                    (other.as_ref() as &dyn std::any::Any)
                        .downcast_ref::<Cuboid<f64>>()
                        .unwrap()
                        .half_extents
                        .cast(),
                )),
                _ => {
                    let t = (other.as_ref() as &dyn std::any::Any)
                        .downcast_ref::<Triangle<f64>>()
                        .unwrap();
                    Box::new(Triangle::new(t.a.cast(), t.b.cast(), t.c.cast()))
                }
            };
            let cuboid32 = Cuboid::new(h.cast::<f32>());
            if swapped {
                table_f32.contact(other32.as_ref(), &b32, &cuboid32, &a32, margin as f32, &mut out32)
            } else {
                table_f32.contact(&cuboid32, &a32, other32.as_ref(), &b32, margin as f32, &mut out32)
            }
            .unwrap();
            // The f32 poses and sizes are the f64 ones rounded: the
            // distance moves by their rounding (a few ε of the scale 3).
            let depth32 = out32
                .points()
                .map(|(_, p)| p.depth)
                .fold(f32::NEG_INFINITY, f32::max);
            assert!(
                (f64::from(depth32) + distance).abs() <= 64.0 * f64::from(f32::EPSILON) * 3.0,
                "{context}: f32 {out32:?}"
            );
            if distance > 0.01 {
                let reference = out
                    .as_slice()
                    .iter()
                    .find(|m| !m.points.is_empty())
                    .unwrap()
                    .normal;
                let normal32 = out32.as_slice()[0].normal.cast::<f64>();
                assert!((normal32 - reference).norm() <= 1e-4, "{context}: f32 {out32:?}");
            }
        }
    }
    assert!(apart > 300, "{apart}");
    assert!(replaced > 100, "{replaced}");
}
