//! Contact tests: ghost collisions on flat and sloped ground, ridges and
//! valleys, depths against brute force, holes, both orders.

use geom_core::distance::closest_points_segment_triangle;
use geom_core::{ContactManifolds, Real};
use geom_prims::{Capsule, Sphere};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};

use super::*;
use crate::test_support::{TestRng, random_field};
use crate::{HeightField, HeightFieldDesc, TriangleId};

/// A `rows × rows` field with heights `height(x, z)` at unit spacing and
/// every third cell flipped.
fn field_from<N: Real>(rows: usize, height: impl Fn(f64, f64) -> f64) -> HeightField<N> {
    let heights = (0..rows * rows)
        .map(|k| nalgebra::convert(height((k / rows) as f64, (k % rows) as f64)))
        .collect();
    let mut desc = HeightFieldDesc::new(Point3::origin(), [N::one(), N::one()], rows, rows, heights);
    desc.flipped_cells = (0..(rows - 1) * (rows - 1)).filter(|c| c % 3 == 1).collect();
    HeightField::try_from_desc(desc).unwrap()
}

/// The smallest segment–triangle distance over every triangle (f64).
fn brute_force_distance(field: &HeightField<f64>, p0: &Point3<f64>, p1: &Point3<f64>) -> f64 {
    (0..2 * field.cell_count() as u32)
        .filter_map(|id| field.triangle(TriangleId(id)))
        .map(|t| closest_points_segment_triangle(p0, p1, &t.a, &t.b, &t.c).distance())
        .fold(f64::INFINITY, f64::min)
}

/// Whether the segment point closest to some triangle lies below the
/// surface (the segment dips into the solid between samples).
fn closest_segment_point_inside(field: &HeightField<f64>, p0: &Point3<f64>, p1: &Point3<f64>) -> bool {
    (0..2 * field.cell_count() as u32)
        .filter_map(|id| field.triangle(TriangleId(id)))
        .any(|t| {
            field.contains_local_point(
                &closest_points_segment_triangle(p0, p1, &t.a, &t.b, &t.c).point_on_segment,
            )
        })
}

/// Capsule poses: lying along x, along z and diagonally, standing, tilted
/// by 20° and 60°, with half-height 1.
fn capsule_axes() -> Vec<Vector3<f64>> {
    let tilt = |degrees: f64| {
        let r = degrees.to_radians();
        Vector3::new(r.sin() * 0.6, r.cos(), r.sin() * 0.8)
    };
    vec![
        Vector3::x(),
        Vector3::z(),
        Vector3::new(1.0, 0.0, 1.0).normalize(),
        Vector3::y(),
        tilt(20.0),
        tilt(60.0),
    ]
}

/// Slides capsules of every pose over the plane `y = slope·(x, z)` in steps
/// of 0.0625 cells across the middle of a 14 × 14 field, each sunk `sink`
/// into the plane, and returns the largest angle between a manifold normal
/// and the plane's normal, the largest error of the deepest point's depth,
/// and how many manifolds were seen.
fn slide_over_plane<N: Real>(slope: [f64; 2], sink: f64) -> (f64, f64, usize) {
    let field: HeightField<N> = field_from(14, |x, z| slope[0] * x + slope[1] * z);
    let up = Vector3::new(-slope[0], 1.0, -slope[1]).normalize();
    let radius = 0.5;
    let mut out = ContactManifolds::new();
    let (mut worst_angle, mut worst_depth, mut count) = (0.0f64, 0.0f64, 0);
    for axis in capsule_axes() {
        // The lowest point of the capsule is `half·|axis·up| + radius` below
        // the centre along `up`.
        let reach = axis.dot(&up).abs() + radius;
        for step in 0..=64 {
            for lane in 0..5 {
                let x = 4.0 + step as f64 * 0.0625 + 0.003 * lane as f64;
                let z = 4.2 + 1.13 * lane as f64 + 0.0625 * step as f64 * 0.3;
                let surface = Point3::new(x, slope[0] * x + slope[1] * z, z);
                let center = surface + up * (reach - sink);
                let cast = |p: Point3<f64>| p.map(nalgebra::convert::<f64, N>);
                let capsule = Capsule::from_points(
                    cast(center - axis),
                    cast(center + axis),
                    nalgebra::convert(radius),
                );
                out.clear();
                contact_heightfield_capsule(
                    &field,
                    &Isometry3::identity(),
                    &capsule,
                    &Isometry3::identity(),
                    N::zero(),
                    &mut out,
                );
                // One manifold: every candidate shares the plane's normal.
                assert_eq!(out.len(), 1, "at {x} {z} axis {axis:?}");
                let mut deepest = f64::NEG_INFINITY;
                for manifold in out.as_slice() {
                    let normal = manifold.normal.map(|c| c.to_subset().unwrap());
                    worst_angle = worst_angle.max(normal.angle(&up));
                    assert!(!manifold.points.is_empty() && manifold.points.len() <= 4);
                    for point in &manifold.points {
                        let depth: f64 = point.depth.to_subset().unwrap();
                        deepest = deepest.max(depth);
                        // Lying flat: every point of the manifold is as deep
                        // (no shallow point from a neighbouring triangle).
                        if axis.dot(&up).abs() < 1e-12 {
                            worst_depth = worst_depth.max((depth - sink).abs());
                        }
                    }
                    count += 1;
                }
                worst_depth = worst_depth.max((deepest - sink).abs());
            }
        }
    }
    (worst_angle, worst_depth, count)
}

#[test]
fn no_ghost_normals_on_flat_ground() {
    let (angle, depth, count) = slide_over_plane::<f64>([0.0, 0.0], 0.1);
    assert!(angle <= 1e-5, "f64 flat: {angle}");
    assert!(depth <= 1e-12, "f64 flat depth: {depth}");
    assert!(count >= 6 * 65 * 5);
    let (angle, depth, _) = slide_over_plane::<f32>([0.0, 0.0], 0.1);
    // f32: flat faces have the exact normal (0, dx·dz, 0).
    assert!(angle <= 1e-6, "f32 flat: {angle}");
    assert!(depth <= 1e-5, "f32 flat depth: {depth}");
}

#[test]
fn no_ghost_normals_on_a_planar_slope() {
    let (angle, depth, count) = slide_over_plane::<f64>([0.3, -0.2], 0.1);
    assert!(angle <= 1e-5, "f64 slope: {angle}");
    assert!(depth <= 1e-9, "f64 slope depth: {depth}");
    assert!(count >= 6 * 65 * 5);
    // f32: each triangle's normal is its own rounded cross product; the
    // documented bound is 1e-6 rad (measured 8.7e-8; f64 measures 1.5e-8,
    // the resolution of the angle computed from a dot product).
    let (angle, depth, _) = slide_over_plane::<f32>([0.3, -0.2], 0.1);
    assert!(angle <= 1e-6, "f32 slope: {angle}");
    assert!(depth <= 1e-4, "f32 slope depth: {depth}");
}

#[test]
fn convex_ridge_gives_the_edge_normal() {
    // A tent along z: y = 3 − |x − 3| (slopes ±1, face normals 45° either
    // side of +y). A capsule lying along z, touching the ridge line from 20°
    // off vertical, 0.05 deep.
    let field: HeightField<f64> = field_from(7, |x, _| 3.0 - (x - 3.0).abs());
    let radius = 0.5;
    let expected = Vector3::new(20f64.to_radians().sin(), 20f64.to_radians().cos(), 0.0);
    let center = Point3::new(3.0, 3.0, 3.0) + expected * (radius - 0.05);
    let capsule = Capsule::from_points(center - Vector3::z(), center + Vector3::z(), radius);
    let mut out = ContactManifolds::new();
    contact_heightfield_capsule(
        &field,
        &Isometry3::identity(),
        &capsule,
        &Isometry3::identity(),
        0.0,
        &mut out,
    );
    assert_eq!(out.len(), 1, "{out:?}");
    let manifold = &out.as_slice()[0];
    assert!(
        (manifold.normal - expected).norm() < 1e-12,
        "{:?}",
        manifold.normal
    );
    for point in &manifold.points {
        assert!((point.depth - 0.05).abs() < 1e-12);
        assert!((point.point_a.x - 3.0).abs() < 1e-12 && (point.point_a.y - 3.0).abs() < 1e-12);
    }
}

#[test]
fn concave_valley_gives_two_face_normals() {
    // A V along z: y = |x − 3|; a capsule lying in it touches both faces
    // 0.05 deep.
    let field: HeightField<f64> = field_from(7, |x, _| (x - 3.0).abs());
    let radius = 0.5;
    let height = 2f64.sqrt() * (radius - 0.05);
    let center = Point3::new(3.0, height, 3.0);
    let capsule = Capsule::from_points(center - Vector3::z(), center + Vector3::z(), radius);
    let mut out = ContactManifolds::new();
    contact_heightfield_capsule(
        &field,
        &Isometry3::identity(),
        &capsule,
        &Isometry3::identity(),
        0.0,
        &mut out,
    );
    assert_eq!(out.len(), 2, "{out:?}");
    let mut normals: Vec<Vector3<f64>> = out.as_slice().iter().map(|m| m.normal).collect();
    normals.sort_by(|a, b| a.x.total_cmp(&b.x));
    let s = 0.5f64.sqrt();
    assert!(
        (normals[0] - Vector3::new(-s, s, 0.0)).norm() < 1e-12,
        "{normals:?}"
    );
    assert!(
        (normals[1] - Vector3::new(s, s, 0.0)).norm() < 1e-12,
        "{normals:?}"
    );
    for (_, point) in out.points() {
        assert!((point.depth - 0.05).abs() < 1e-12, "{}", point.depth);
    }
    // A sphere in the valley: the same two normals.
    let sphere = Sphere::new(radius);
    out.clear();
    contact_heightfield_sphere(
        &field,
        &Isometry3::identity(),
        &sphere,
        &Isometry3::translation(3.0, height, 3.0),
        0.0,
        &mut out,
    );
    assert_eq!(out.len(), 2, "{out:?}");
}

/// Capsules over 40 random terrains, 60 draws each: `draw` gives a
/// segment and radius, `keep` picks the segments to test, and `check`
/// gets the round, the segment's brute-force distance to the surface,
/// the radius and the contacts (margin [`RANDOM_MARGIN`]), and answers
/// whether it counted the case. Returns the count.
fn capsules_on_random_terrains(
    seed: u64,
    draw: impl Fn(&mut TestRng, &geom_core::Aabb<f64>) -> (Point3<f64>, Point3<f64>, f64),
    keep: impl Fn(&HeightField<f64>, &Point3<f64>, &Point3<f64>) -> bool,
    mut check: impl FnMut(usize, f64, f64, &ContactManifolds<f64>) -> bool,
) -> usize {
    let mut rng = TestRng::new(seed);
    let mut checked = 0;
    let mut out = ContactManifolds::new();
    for round in 0..40 {
        let field = random_field(&mut rng, 4 + round % 9, 4 + round % 7);
        let extent = field.local_extent();
        for _ in 0..60 {
            let (p0, p1, radius) = draw(&mut rng, &extent);
            if !keep(&field, &p0, &p1) {
                continue;
            }
            let minimum = brute_force_distance(&field, &p0, &p1);
            out.clear();
            let capsule = Capsule::from_points(p0, p1, radius);
            contact_heightfield_capsule(
                &field,
                &Isometry3::identity(),
                &capsule,
                &Isometry3::identity(),
                RANDOM_MARGIN,
                &mut out,
            );
            if check(round, minimum, radius, &out) {
                checked += 1;
            }
        }
    }
    checked
}

/// The contact margin of [`capsules_on_random_terrains`].
const RANDOM_MARGIN: f64 = 0.05;

/// Which of 65 points evenly along segment `p0 p1` are below the surface.
fn samples_below(field: &HeightField<f64>, p0: &Point3<f64>, p1: &Point3<f64>) -> impl Iterator<Item = bool> {
    (0..=64).map(move |k| field.contains_local_point(&(p0 + (p1 - p0) * (k as f64 / 64.0))))
}

/// The deepest contact depth (`−∞` for none).
fn deepest_depth(out: &ContactManifolds<f64>) -> f64 {
    out.points()
        .map(|(_, p)| p.depth)
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn deepest_depth_matches_brute_force_on_random_terrains() {
    let checked = capsules_on_random_terrains(
        99,
        |rng, extent| {
            let center = rng.point_in(&extent.loosened(0.5));
            let half = Vector3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0))
                * rng.range(0.0, 1.2);
            (center - half, center + half, rng.range(0.1, 1.0))
        },
        // The brute-force rule holds for segments in the air; a segment
        // below the surface is pushed out (tested apart).
        |field, p0, p1| {
            !samples_below(field, p0, p1).any(|b| b) && !closest_segment_point_inside(field, p0, p1)
        },
        |round, minimum, radius, out| {
            let deepest = deepest_depth(out);
            if minimum > radius + RANDOM_MARGIN {
                assert!(
                    out.is_empty(),
                    "round {round}: {minimum} > {radius} + margin but {out:?}"
                );
                return false;
            }
            if minimum <= 1e-9 {
                // Crossing (into a hole or out past the rim, since no point
                // is below the surface): the separating-axis depth is at
                // least the radius.
                assert!(deepest >= radius - 1e-12, "round {round}");
                return false;
            }
            let expected = radius - minimum;
            assert!(
                (deepest - expected).abs() <= 1e-9 * expected.abs().max(minimum),
                "round {round}: {deepest} vs {expected}"
            );
            for manifold in out.as_slice() {
                assert!((manifold.normal.norm() - 1.0).abs() < 1e-12);
                assert!(manifold.points.len() <= 4 && !manifold.points.is_empty());
            }
            true
        },
    );
    assert!(checked > 150, "{checked}");
}

#[test]
fn sunk_capsules_on_random_terrains_are_pushed_out_at_least_the_brute_force_depth() {
    // Segments wholly under random terrains (every sample of the segment
    // below the surface, none touching it): the deepest point pushes the
    // capsule out by at least `radius + d`, `d` the segment's distance to
    // the surface over every triangle (the nearest triangle's push; less
    // would leave the capsule in the ground). Other points may claim
    // less: in a valley the capsule also meets the slope in front of it,
    // from the air side, as a contact of its own.
    let checked = capsules_on_random_terrains(
        77,
        |rng, extent| {
            let center = rng.point_in(extent);
            let half = Vector3::new(rng.range(-1.0, 1.0), rng.range(-0.3, 0.3), rng.range(-1.0, 1.0))
                * rng.range(0.0, 0.8);
            (center - half, center + half, rng.range(0.05, 0.6))
        },
        |field, p0, p1| samples_below(field, p0, p1).all(|b| b),
        |round, minimum, radius, out| {
            if minimum <= 1e-9 {
                return false;
            }
            let deepest = deepest_depth(out);
            assert!(
                deepest >= radius + minimum - 1e-9,
                "round {round}: {deepest} vs {}: {out:?}",
                radius + minimum
            );
            true
        },
    );
    assert!(checked > 100, "{checked}");
}

#[test]
fn nothing_is_reported_under_a_hole() {
    // A 4 × 4-cell hole in flat ground, cells 4..8 in x and z.
    let rows = 13;
    let mut desc = HeightFieldDesc::new(Point3::origin(), [1.0, 1.0], rows, rows, vec![0.0; rows * rows]);
    desc.hole_cells = (4..8).flat_map(|i| (4..8).map(move |j| i * 12 + j)).collect();
    let field = HeightField::try_from_desc(desc).unwrap();
    let mut out = ContactManifolds::new();
    for (x, z) in [(6.0, 6.0), (5.2, 6.7), (6.9, 5.1)] {
        contact_heightfield_sphere(
            &field,
            &Isometry3::identity(),
            &Sphere::new(0.5),
            &Isometry3::translation(x, 0.1, z),
            0.0,
            &mut out,
        );
        let capsule = Capsule::from_points(Point3::new(x - 0.3, 0.0, z), Point3::new(x + 0.3, 0.2, z), 0.4);
        contact_heightfield_capsule(
            &field,
            &Isometry3::identity(),
            &capsule,
            &Isometry3::identity(),
            0.0,
            &mut out,
        );
    }
    assert!(out.is_empty(), "{out:?}");
    // Next to the hole the ground is there.
    contact_heightfield_sphere(
        &field,
        &Isometry3::identity(),
        &Sphere::new(0.5),
        &Isometry3::translation(2.0, 0.4, 2.0),
        0.0,
        &mut out,
    );
    assert_eq!(out.len(), 1);
    let depth: f64 = out.as_slice()[0].points[0].depth;
    assert!((depth - 0.1).abs() < 1e-15);
}

#[test]
fn poses_orders_margin_and_reuse() {
    let field: HeightField<f64> = field_from(9, |x, z| 0.1 * x - 0.05 * z);
    let capsule = Capsule::from_points(Point3::new(-0.8, 0.0, 0.0), Point3::new(0.8, 0.0, 0.0), 0.5);
    let local_pose = Isometry3::translation(4.0, 0.3, 4.0);
    let mut reference = ContactManifolds::new();
    contact_heightfield_capsule(
        &field,
        &Isometry3::identity(),
        &capsule,
        &local_pose,
        0.0,
        &mut reference,
    );
    assert_eq!(reference.len(), 1);
    // The whole scene moved and turned: the same contacts, moved and turned.
    let scene = Isometry3::from_parts(
        Translation3::new(100.0, -20.0, 7.0),
        UnitQuaternion::from_euler_angles(0.3, 1.1, -0.4),
    );
    let mut moved = ContactManifolds::new();
    contact_heightfield_capsule(&field, &scene, &capsule, &(scene * local_pose), 0.0, &mut moved);
    assert_eq!(moved.len(), 1);
    let (a, b) = (&reference.as_slice()[0], &moved.as_slice()[0]);
    assert!((scene * a.normal - b.normal).norm() < 1e-12);
    assert_eq!(a.points.len(), b.points.len());
    for (p, q) in a.points.iter().zip(&b.points) {
        assert!((scene * p.point_a - q.point_a).norm() < 1e-12);
        assert!((p.depth - q.depth).abs() < 1e-12);
    }
    // Reversed order: normal negated, points swapped.
    let mut reversed = ContactManifolds::new();
    contact_capsule_heightfield(
        &capsule,
        &local_pose,
        &field,
        &Isometry3::identity(),
        0.0,
        &mut reversed,
    );
    let r = &reversed.as_slice()[0];
    assert_eq!(r.normal, -a.normal);
    assert_eq!(r.points[0].point_a, a.points[0].point_b);
    assert_eq!(r.points[0].feature_b, a.points[0].feature_a);
    // Margin: lifted 0.2 clear of the slope, found only with margin 0.25.
    let up = Vector3::new(-0.1, 1.0, 0.05).normalize();
    let lifted = Isometry3::translation(4.0, 0.3, 4.0) * Isometry3::translation(up.x, up.y, up.z);
    let mut out = ContactManifolds::new();
    contact_heightfield_capsule(&field, &Isometry3::identity(), &capsule, &lifted, 0.0, &mut out);
    assert!(out.is_empty());
    contact_heightfield_capsule(&field, &Isometry3::identity(), &capsule, &lifted, 2.0, &mut out);
    assert!(!out.is_empty() && out.points().all(|(_, p)| p.depth < 0.0));
    // Bad input appends nothing.
    out.clear();
    contact_heightfield_capsule(
        &field,
        &Isometry3::identity(),
        &capsule,
        &lifted,
        f64::NAN,
        &mut out,
    );
    let nan_capsule = Capsule {
        a: Point3::new(f64::NAN, 0.0, 0.0),
        ..capsule
    };
    contact_heightfield_capsule(
        &field,
        &Isometry3::identity(),
        &nan_capsule,
        &local_pose,
        0.0,
        &mut out,
    );
    assert!(out.is_empty());
    // Warm buffers keep their storage.
    let mut buffer = ContactManifolds::new();
    contact_heightfield_capsule(
        &field,
        &Isometry3::identity(),
        &capsule,
        &local_pose,
        0.0,
        &mut buffer,
    );
    let capacity = buffer.candidates_mut().capacity();
    let points_capacity = buffer.as_slice()[0].points.capacity();
    for _ in 0..3 {
        buffer.clear();
        contact_heightfield_capsule(
            &field,
            &Isometry3::identity(),
            &capsule,
            &local_pose,
            0.0,
            &mut buffer,
        );
    }
    assert_eq!(buffer.candidates_mut().capacity(), capacity);
    assert_eq!(buffer.as_slice()[0].points.capacity(), points_capacity);
}

#[test]
fn sunk_and_crossing_capsules_are_pushed_up() {
    // Flat ground at y = 0. A capsule of radius 0.5 lying along x with its
    // axis 0.3 below the ground: depth 0.8, normal +y, every point as deep.
    let field: HeightField<f64> = field_from(12, |_, _| 0.0);
    let mut out = ContactManifolds::new();
    let lying = Capsule::from_points(Point3::new(4.1, -0.3, 5.3), Point3::new(6.7, -0.3, 5.3), 0.5);
    contact_heightfield_capsule(
        &field,
        &Isometry3::identity(),
        &lying,
        &Isometry3::identity(),
        0.0,
        &mut out,
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out.as_slice()[0].normal, Vector3::y());
    for (_, point) in out.points() {
        assert!((point.depth - 0.8).abs() < 1e-12, "{}", point.depth);
    }
    // Standing, its axis crossing the ground from −0.4 to 1.6: the
    // separating axis is the face normal, depth 0.4 + 0.5.
    for (x, z) in [(5.0, 5.0), (5.5, 5.25), (5.3, 6.0)] {
        out.clear();
        let standing = Capsule::from_points(Point3::new(x, -0.4, z), Point3::new(x, 1.6, z), 0.5);
        contact_heightfield_capsule(
            &field,
            &Isometry3::identity(),
            &standing,
            &Isometry3::identity(),
            0.0,
            &mut out,
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out.as_slice()[0].normal, Vector3::y());
        let deepest = deepest_depth(&out);
        assert!((deepest - 0.9).abs() < 1e-12, "{deepest}");
    }
}
