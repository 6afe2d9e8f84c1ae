//! Pair answers that were wrong once, each against its exact value worked
//! out from the geometry: EPA stopping early on large shapes, nearly
//! parallel capsule cores, SAT gaps reported as distances, single points
//! for shapes resting on a face.

use geom::prelude::*;

fn table() -> geom::core::dispatch::DispatchTable<f64> {
    geom::default_dispatcher::<f64>()
}

fn deepest(out: &ContactManifolds<f64>) -> (Vector3<f64>, ContactPoint<f64>) {
    out.points()
        .map(|(n, p)| (*n, *p))
        .max_by(|a, b| a.1.depth.total_cmp(&b.1.depth))
        .expect("a contact")
}

/// A capsule of radius 10 lying across a cylinder of radius 100, its core
/// on the cylinder's axis: the way out is along the capsule's core
/// direction's normal, depth `100 + 10` (EPA once stopped at 109.88).
#[test]
fn large_cylinder_and_capsule_get_the_full_depth() {
    let cylinder = Cylinder::from_points(Point3::new(0.0, -50.0, 0.0), Point3::new(0.0, 50.0, 0.0), 100.0);
    let capsule = Capsule::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 10.0);
    // The capsule stands in the middle of the cylinder, axis along its axis:
    // out through the side (110) or a cap (50 + 1 + 10 = 61).
    let id = Isometry3::identity();
    let mut out = ContactManifolds::new();
    for swap in [false, true] {
        if swap {
            table()
                .contact(&capsule, &id, &cylinder, &id, 0.0, &mut out)
                .unwrap();
        } else {
            table()
                .contact(&cylinder, &id, &capsule, &id, 0.0, &mut out)
                .unwrap();
        }
        let (normal, point) = deepest(&out);
        assert!((point.depth - 61.0).abs() <= 1e-9, "{swap}: {point:?}");
        assert!(normal.x.abs() <= 1e-12 && normal.z.abs() <= 1e-12, "{normal:?}");
    }
    // Lying across it, centred: out along the cylinder's axis is 50 + 10;
    // moved to the side wall, the side is the way out.
    let lying = Capsule::from_points(Point3::new(-20.0, 0.0, 0.0), Point3::new(20.0, 0.0, 0.0), 10.0);
    let at_rim = Isometry3::translation(95.0, 0.0, 0.0);
    table()
        .contact(&cylinder, &id, &lying, &at_rim, 0.0, &mut out)
        .unwrap();
    let (normal, point) = deepest(&out);
    // The capsule's inner end (x = 75) is 25 inside the side, plus its radius.
    let expected = (100.0 - 75.0 + 10.0f64).min(50.0 + 10.0);
    assert!((point.depth - expected).abs() <= 1e-9, "{point:?} vs {expected}");
    assert!((normal - Vector3::x()).norm() <= 1e-9, "{normal:?}");
}

/// Capsules whose cores cross while nearly parallel (1e-6 rad): the cores
/// meet, so the depth is the sum of the radii exactly.
#[test]
fn nearly_parallel_crossing_capsules_overlap_by_their_radii() {
    for angle in [1e-3f64, 1e-6, 1e-9] {
        let a = Capsule::from_points(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), 0.25);
        let direction = Vector3::new(angle.cos(), angle.sin(), 0.0);
        let b = Capsule::from_points(Point3::from(-direction), Point3::from(direction), 0.25);
        let mut out = ContactManifolds::new();
        let id = Isometry3::identity();
        let lift = Isometry3::translation(0.3, 0.0, 0.0);
        table().contact(&a, &id, &b, &lift, 0.0, &mut out).unwrap();
        let (_, point) = deepest(&out);
        assert!(
            (point.depth - 0.5).abs() <= 4.0 * f64::EPSILON,
            "{angle}: {point:?}"
        );
    }
}

/// Two unit boxes whose nearest corners are `(1, 1, 1)` and `(4, 3, 2)`
/// ((5, 4, 3) between centres): apart by √14, not by the SAT axis gap 3;
/// the witness points are the corners; no contact beyond the margin.
#[test]
fn separated_boxes_report_the_distance_corner_to_corner() {
    let cube = Cuboid::new(Vector3::new(1.0, 1.0, 1.0));
    let id = Isometry3::identity();
    let far = Isometry3::translation(5.0, 4.0, 3.0);
    let gap = 14f64.sqrt();
    let mut out = ContactManifolds::new();
    table().contact(&cube, &id, &cube, &far, 4.0, &mut out).unwrap();
    let (normal, point) = deepest(&out);
    assert!((point.depth + gap).abs() <= 1e-12, "{point:?}");
    assert!(
        (point.point_a - Point3::new(1.0, 1.0, 1.0)).norm() <= 1e-12,
        "{point:?}"
    );
    assert!(
        (point.point_b - Point3::new(4.0, 3.0, 2.0)).norm() <= 1e-12,
        "{point:?}"
    );
    assert!(
        (normal - Vector3::new(3.0, 2.0, 1.0) / gap).norm() <= 1e-12,
        "{normal:?}"
    );
    // Within 3.7 by the SAT gap but not by the distance.
    table().contact(&cube, &id, &cube, &far, 3.7, &mut out).unwrap();
    assert!(out.is_empty(), "{out:?}");
    assert!((table().distance(&cube, &id, &cube, &far).unwrap() - gap).abs() <= 1e-12);
}

/// A cylinder standing on a box and a cone on its base, 0.01 deep: a rim
/// manifold (at least 3 points) at the exact depth, normal straight up.
#[test]
fn cylinders_and_cones_resting_on_a_box_get_a_rim_manifold() {
    let ground = Cuboid::new(Vector3::new(5.0, 0.5, 5.0));
    let id = Isometry3::identity();
    let mut out = ContactManifolds::new();
    for yaw in [0.0, 0.3, 1.1] {
        let pose = Isometry3::new(Vector3::new(0.7, 0.49, -0.4), Vector3::y() * yaw);
        let cylinder = Cylinder::from_points(Point3::origin(), Point3::new(0.0, 2.0, 0.0), 0.8);
        let cone = Cone::from_points(Point3::new(0.0, 2.0, 0.0), Point3::origin(), 0.8);
        for (name, shape) in [("cylinder", &cylinder as &dyn Shape<f64>), ("cone", &cone)] {
            table()
                .contact(&ground, &id, shape, &pose, 0.0, &mut out)
                .unwrap();
            let points: Vec<_> = out.points().collect();
            assert!(points.len() >= 3, "{name} {yaw}: {out:?}");
            for (normal, point) in points {
                assert!((normal - Vector3::y()).norm() <= 1e-9, "{name}: {normal:?}");
                assert!((point.depth - 0.01).abs() <= 1e-12, "{name}: {point:?}");
                let rim = (point.point_b - Point3::new(0.7, 0.49, -0.4)).xz().norm();
                assert!((rim - 0.8).abs() <= 1e-12, "{name}: {point:?}");
            }
        }
    }
}

/// A capsule whose core passes through a triangle (found by the
/// `pair_oracle` fuzz target): at one rotation the core–triangle closest
/// points came out 1e-17 apart instead of 0, and their noise direction
/// became the normal (depth `r`, a point 0.07 inside the capsule). Two
/// renderings of the same rotation, 1e-16 apart, must give the same
/// contact, with its points on the shapes.
#[test]
fn a_capsule_core_through_a_triangle_takes_the_separating_axis() {
    use nalgebra::Quaternion;
    let coords = (
        0.15688529070603685,
        -0.7715021677290688,
        0.5730220305741236,
        0.22763383585516941,
    );
    let capsule = Capsule::from_points(
        Point3::new(-1.4185516834259033, -0.023251058533787727, -0.07157852500677109),
        Point3::new(1.4185516834259033, 0.023251058533787727, 0.07157852500677109),
        0.351102739572525,
    );
    let triangle = Triangle::new(
        Point3::new(-0.23482760787010193, 1.1737490892410278, 0.4468896687030792),
        Point3::new(1.1667228937149048, 0.3716747462749481, 0.18367256224155426),
        Point3::new(-0.6539115905761719, -0.21579381823539734, -0.45298296213150024),
    );
    let pose_b = Isometry3::from_parts(
        Translation3::new(-1.4065834283828735, 1.1529630422592163, -0.449624240398407),
        UnitQuaternion::new_unchecked(Quaternion::new(
            0.48427145268873495,
            -0.4800288762537063,
            0.5805627743856622,
            0.4449722497762852,
        )),
    );
    let translation = Translation3::new(-2.700385093688965, 1.079345941543579, 0.6153745651245117);
    let quaternion = Quaternion::new(coords.3, coords.0, coords.1, coords.2);
    let mut answers = Vec::new();
    for rotation in [
        UnitQuaternion::new_unchecked(quaternion),
        UnitQuaternion::new_normalize(quaternion),
    ] {
        let pose_a = Isometry3::from_parts(translation, rotation);
        let mut out = ContactManifolds::new();
        table()
            .contact(&capsule, &pose_a, &triangle, &pose_b, 0.0, &mut out)
            .unwrap();
        let (normal, point) = deepest(&out);
        assert!(
            capsule.distance(&pose_a, &point.point_a).unwrap().abs() <= 1e-12,
            "{point:?}"
        );
        assert!(
            triangle.distance(&pose_b, &point.point_b).unwrap().abs() <= 1e-12,
            "{point:?}"
        );
        // The other order: the same contact, roles swapped.
        let mut swapped = ContactManifolds::new();
        table()
            .contact(&triangle, &pose_b, &capsule, &pose_a, 0.0, &mut swapped)
            .unwrap();
        let (normal_swapped, point_swapped) = deepest(&swapped);
        assert!(
            (normal + normal_swapped).norm() <= 1e-12,
            "{normal:?} {normal_swapped:?}"
        );
        assert!(
            (point.depth - point_swapped.depth).abs() <= 1e-12,
            "{point:?} {point_swapped:?}"
        );
        answers.push((normal, point.depth));
    }
    assert!((answers[0].0 - answers[1].0).norm() <= 1e-9, "{answers:?}");
    assert!((answers[0].1 - answers[1].1).abs() <= 1e-12, "{answers:?}");
    // Deeper than the radius: the core crosses the triangle's plane.
    assert!(answers[0].1 > capsule.radius + 0.05, "{answers:?}");
}

/// A sphere whose centre lies on a turned triangle, to the rounding of
/// the pose (about 1e-16 off its plane): the normal is the face's and the
/// depth the radius, not the direction of a rounding-sized offset.
#[test]
fn a_sphere_centred_on_a_turned_triangle_leaves_along_the_face_normal() {
    let triangle = Triangle::new(
        Point3::new(-1.3, 0.2, 0.1),
        Point3::new(1.1, -0.4, 0.3),
        Point3::new(0.2, 1.7, -0.5),
    );
    let face = (triangle.b - triangle.a)
        .cross(&(triangle.c - triangle.a))
        .normalize();
    let sphere = Sphere::new(0.25);
    let mut out = ContactManifolds::new();
    for k in 0..200 {
        let angle = 0.05 * k as f64;
        let pose = Isometry3::new(
            Vector3::new(3.7, -2.1, 0.9),
            Vector3::new(angle, 0.3 * angle, -0.7 * angle),
        );
        let (u, v) = (0.1 + 0.002 * k as f64, 0.3);
        let local = triangle.a + (triangle.b - triangle.a) * u + (triangle.c - triangle.a) * v;
        let center = pose * local;
        let sphere_pose =
            Isometry3::from_parts(Translation3::from(center.coords), UnitQuaternion::identity());
        table()
            .contact(&sphere, &sphere_pose, &triangle, &pose, 0.0, &mut out)
            .unwrap();
        let (normal, point) = deepest(&out);
        let mut swapped = ContactManifolds::new();
        table()
            .contact(&triangle, &pose, &sphere, &sphere_pose, 0.0, &mut swapped)
            .unwrap();
        let (normal_swapped, point_swapped) = deepest(&swapped);
        assert!(
            (normal + normal_swapped).norm() <= 1e-12,
            "{k}: {normal:?} {normal_swapped:?}"
        );
        assert_eq!(point.depth, point_swapped.depth, "{k}");
        let world_face = pose.rotation * face;
        let off = (normal - world_face).norm().min((normal + world_face).norm());
        assert!(off <= 1e-9, "{k}: normal {normal:?}, face {world_face:?}");
        assert!((point.depth - 0.25).abs() <= 1e-12, "{k}: {point:?}");
    }
}

/// Two segments crossing in the plane `z = 0` touch at depth 0 with the
/// normal `±z`, the only direction that does not push one through the
/// other; their closest points' difference, rounding only, once gave a
/// normal in the plane. In `f32`, both orders, at several offsets from
/// the origin. And nearly parallel segments a gap apart in `z` report the
/// gap as minus the depth, with `point_a − point_b = depth · normal`.
#[test]
fn segments_touch_across_their_plane_and_keep_the_gap_when_apart() {
    let table = geom::default_dispatcher::<f32>();
    let mut out = ContactManifolds::new();
    for (k, offset) in [0.0f32, 1.3, 17.0, 250.0].into_iter().enumerate() {
        let turn = 0.3 + 0.7 * k as f32;
        let a = Segment::new(Point3::new(-1.5, -0.2, 0.0), Point3::new(1.5, 0.2, 0.0));
        let b = Segment::new(
            Point3::new(-2.0 * turn.cos(), -2.0 * turn.sin(), 0.0),
            Point3::new(2.0 * turn.cos(), 2.0 * turn.sin(), 0.0),
        );
        let pose = Isometry3::translation(offset, -offset, 0.5 * offset);
        for swap in [false, true] {
            let (first, second) = if swap { (&b, &a) } else { (&a, &b) };
            table
                .contact(first, &pose, second, &pose, 0.01, &mut out)
                .unwrap();
            let (normal, point) = out.points().next().map(|(n, p)| (*n, *p)).expect("touching");
            assert!(
                normal.z.abs() >= 1.0 - 1e-6,
                "offset {offset}, {swap}: {normal:?}"
            );
            assert!(point.depth.abs() <= 1e-5 * (1.0 + offset), "{point:?}");
        }
        // Nearly parallel (1e-4 rad) and 0.03 apart along z: the ends of
        // the overlap each with their own gap, and the closest pair along
        // the normal.
        let c = Segment::new(Point3::new(-1.5, -0.2001, 0.03), Point3::new(1.5, 0.2001, 0.03));
        table.contact(&a, &pose, &c, &pose, 0.05, &mut out).unwrap();
        for (_, point) in out.points() {
            assert!((point.depth + 0.03).abs() <= 1e-5 * (1.0 + offset), "{point:?}");
        }
        let (normal, closest) = out
            .points()
            .map(|(n, p)| (*n, *p))
            .max_by(|x, y| x.1.depth.total_cmp(&y.1.depth))
            .expect("within the margin");
        let mismatch = ((closest.point_a - closest.point_b) - normal * closest.depth).norm();
        assert!(mismatch <= 2e-6 * (1.0 + offset), "{mismatch:e}: {closest:?}");
    }
}
