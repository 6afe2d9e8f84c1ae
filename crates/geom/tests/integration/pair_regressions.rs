//! Pair answers that were wrong once, each against its exact value worked
//! out from the geometry: EPA stopping early on large shapes, nearly
//! parallel capsule cores, SAT gaps reported as distances, single points
//! for shapes resting on a face.

use geom::prelude::*;

fn table() -> geom::base::dispatch::DispatchTable<f64> {
    geom::default_dispatcher::<f64>()
}

fn deepest(out: &ContactManifolds<f64>) -> (Vector3<f64>, ContactPoint<f64>) {
    out.points()
        .map(|(n, p)| (*n, *p))
        .max_by(|a, b| a.1.depth.total_cmp(&b.1.depth))
        .expect("a contact")
}

/// Every contact point of `out` with its manifold's normal, in `f64`.
fn points_f64<N: geom::Real + Into<f64>>(
    out: &ContactManifolds<N>,
) -> Vec<(Vector3<f64>, ContactPoint<f64>)> {
    let to64 = |q: Point3<N>| q.map(Into::into);
    out.points()
        .map(|(n, p)| {
            let point = ContactPoint {
                point_a: to64(p.point_a),
                point_b: to64(p.point_b),
                depth: p.depth.into(),
                feature_a: p.feature_a,
                feature_b: p.feature_b,
            };
            (n.map(Into::into), point)
        })
        .collect()
}

/// The deepest of `points` (the last of equals), as [`deepest`] takes it.
fn deepest_of(points: &[(Vector3<f64>, ContactPoint<f64>)]) -> (Vector3<f64>, ContactPoint<f64>) {
    *points
        .iter()
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

/// The pose with rotation `q` (`[x, y, z, w]`) and translation `t`, each
/// value rounded to `f32` first (so both precisions see one geometry), in
/// precision `N`: the pair oracle's cases as it prints them.
fn pose<N: geom::Real>(q: [f64; 4], t: [f64; 3]) -> Isometry3<N> {
    let r = |c: f64| c as f32 as f64;
    let q = nalgebra::Quaternion::new(r(q[3]), r(q[0]), r(q[1]), r(q[2]));
    nalgebra::convert(Isometry3::from_parts(
        Translation3::new(r(t[0]), r(t[1]), r(t[2])),
        UnitQuaternion::new_unchecked(q),
    ))
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

/// Two `f32` answers that were measurably off the `f64` ones, each
/// bounded by 16 ε of the scene's size against the `f64` dispatcher (whose
/// answers the pair oracle checks to 10⁻⁹) and the exact `f64` kernels:
///
/// - a box corner 0.17 from a triangle's edge, its foot 3·10⁻⁴ from a
///   vertex: the vertex's pair (within rounding as long) once replaced the
///   edge's, tilting the normal by 10⁻³;
/// - a tiny box against a large one, least depth on an edge pair 2·10⁻⁵
///   shallower than a face: the faces' tie allowance (64 ε of the
///   coordinates) once took the face.
#[test]
fn f32_box_pairs_keep_the_closest_pair_and_the_least_depth() {
    let scene = |precision: &str| -> Vec<(Vector3<f64>, ContactPoint<f64>)> {
        fn run<N: geom::Real + Into<f64>>() -> Vec<(Vector3<f64>, ContactPoint<f64>)> {
            let c = |x: f64| nalgebra::convert::<f64, N>(x as f32 as f64);
            let p = |v: [f64; 3]| Point3::new(c(v[0]), c(v[1]), c(v[2]));
            let table = geom::default_dispatcher::<N>();
            let mut out = ContactManifolds::new();
            let mut answers = Vec::new();
            let mut record = |out: &ContactManifolds<N>| answers.push(deepest_of(&points_f64(out)));
            let cuboid = Cuboid::new(Vector3::new(c(0.429_730_713), c(0.146_248_013), c(0.473_546_445)));
            let triangle = Triangle::new(
                p([0.161_271_11, -0.160_651_073, -0.063_199_654]),
                p([0.531_357_706, -0.190_718_189, 0.000_870_293]),
                p([0.012_637_614, -0.375_472_873, 0.252_860_725]),
            );
            let pose_box = pose::<N>(
                [-0.085_872_727, -0.250_012_591, -0.196_692_386, 0.944_156_6],
                [0.740_453_839, -0.075_835_705, -0.002_268_74],
            );
            let pose_triangle = pose::<N>(
                [0.669_458_902, -0.121_631_831, 0.435_178_278, 0.589_618_812],
                [1.322_830_796, -0.290_818_363, -0.166_671_172],
            );
            let margin = c(0.287);
            table
                .contact(&cuboid, &pose_box, &triangle, &pose_triangle, margin, &mut out)
                .unwrap();
            record(&out);
            table
                .contact(&triangle, &pose_triangle, &cuboid, &pose_box, margin, &mut out)
                .unwrap();
            record(&out);
            let large = Cuboid::new(Vector3::new(c(1.320_080_161), c(3.303_257_465), c(3.920_410_872)));
            let small = Cuboid::new(Vector3::new(c(0.025_339_307), c(0.012_108_718), c(0.015_362_843)));
            let pose_large = pose::<N>(
                [-0.622_778_486, 0.616_704_392, 0.120_038_361, 0.466_276_143],
                [-0.421_734_78, -0.061_435_901, 0.163_141_623],
            );
            let pose_small = pose::<N>(
                [0.834_621_959, -0.105_624_466, 0.087_408_073, 0.533_488_038],
                [-4.138_439_655, 0.587_169_647, 0.338_039_666],
            );
            table
                .contact(&large, &pose_large, &small, &pose_small, c(0.0056), &mut out)
                .unwrap();
            record(&out);
            table
                .contact(&small, &pose_small, &large, &pose_large, c(0.0056), &mut out)
                .unwrap();
            record(&out);
            answers
        }
        if precision == "f64" {
            run::<f64>()
        } else {
            run::<f32>()
        }
    };
    let (exact, single) = (scene("f64"), scene("f32"));
    for (k, ((n64, p64), (n32, p32))) in exact.iter().zip(&single).enumerate() {
        let size = if k < 2 { 2.0 } else { 5.0 };
        let bound = 16.0 * f32::EPSILON as f64 * size;
        assert!((p32.depth - p64.depth).abs() <= bound, "#{k}: {p32:?} vs {p64:?}");
        if k < 2 {
            // Apart: one closest pair, which the f32 answer must match.
            assert!(
                (p32.point_b - p64.point_b).norm() <= 4.0 * bound,
                "#{k}: {p32:?} vs {p64:?}"
            );
            assert!((n32 - n64).norm() <= 1e-5, "#{k}: {n32:?} vs {n64:?}");
        }
    }
    // The first scene's distance by brute force in f64: every box corner
    // against the triangle, every triangle vertex against the box, every
    // box edge against every triangle edge.
    let r = |c: f64| c as f32 as f64;
    let half = Vector3::new(r(0.429_730_713), r(0.146_248_013), r(0.473_546_445));
    let pose_box = pose::<f64>(
        [-0.085_872_727, -0.250_012_591, -0.196_692_386, 0.944_156_6],
        [0.740_453_839, -0.075_835_705, -0.002_268_74],
    );
    let pose_triangle = pose::<f64>(
        [0.669_458_902, -0.121_631_831, 0.435_178_278, 0.589_618_812],
        [1.322_830_796, -0.290_818_363, -0.166_671_172],
    );
    let triangle = [
        [0.161_271_11, -0.160_651_073, -0.063_199_654],
        [0.531_357_706, -0.190_718_189, 0.000_870_293],
        [0.012_637_614, -0.375_472_873, 0.252_860_725],
    ]
    .map(|v| pose_box.inverse_transform_point(&(pose_triangle * Point3::new(r(v[0]), r(v[1]), r(v[2])))));
    let corner = |k: usize| {
        let sign = |bit: usize| if k >> bit & 1 == 1 { 1.0 } else { -1.0 };
        Point3::new(sign(0) * half.x, sign(1) * half.y, sign(2) * half.z)
    };
    let mut distance = f64::INFINITY;
    for k in 0..8 {
        let (on_triangle, _) = geom::base::distance::closest_point_on_triangle(
            &corner(k),
            &triangle[0],
            &triangle[1],
            &triangle[2],
        );
        distance = distance.min((on_triangle - corner(k)).norm());
        for j in 0..3 {
            if k.count_ones() < (k ^ (1 << j)).count_ones() {
                for i in 0..3 {
                    let closest = geom::base::distance::closest_points_segment_segment(
                        &corner(k),
                        &corner(k ^ (1 << j)),
                        &triangle[i],
                        &triangle[(i + 1) % 3],
                    );
                    distance = distance.min((closest.point_on_q - closest.point_on_p).norm());
                }
            }
        }
    }
    for vertex in &triangle {
        let clamped = vertex.coords.zip_map(&half, |x, h| x.clamp(-h, h));
        distance = distance.min((vertex.coords - clamped).norm());
    }
    assert!(
        (exact[0].1.depth + distance).abs() <= 1e-9,
        "{:?} vs {distance}",
        exact[0]
    );
}

/// Two cases from the pair oracle (seed 0), in `f32`, both orders, each
/// against the `f64` dispatcher's answer:
///
/// - a segment through a triangle's edge region, touching to rounding: the
///   contact pair is the touching point on both (`point_a − point_b =
///   depth · normal`); the separating axis's support points, a vertex and
///   a segment end 1.5 apart, once stood for it;
/// - a segment 0.008 long through a triangle 15 across, 9.9·10⁻⁴ deep by an
///   edge axis: 64 ε of the triangle's coordinates once handed the face
///   the tie, 8·10⁻⁵ deeper.
#[test]
fn segments_through_a_triangle_get_the_touching_pair_and_the_least_depth() {
    type Case = (
        [[f64; 3]; 2],
        [f64; 4],
        [f64; 3],
        [[f64; 3]; 3],
        [f64; 4],
        [f64; 3],
    );
    let cases: [Case; 2] = [
        (
            [
                [0.829_909_217, 1.439_046_249, -0.441_450_355],
                [-0.739_999_879, -1.237_756_863, 0.419_271_353],
            ],
            [0.469_878_471, -0.474_966_27, -0.741_533_136, 0.061_236_203],
            [0.924_995_422, -1.693_426_251, -2.549_633_265],
            [
                [-1.274_964_69, -0.187_876_359, 1.181_319_952],
                [0.067_407_154, 0.103_477_441, 0.569_053_471],
                [0.582_133_293, 0.194_485_202, 0.384_685_099],
            ],
            [-0.805_933_411, 0.414_666_035, -0.421_947_319, 0.021_997_202],
            [0.891_627_61, -0.982_117_593, -1.444_150_805],
        ),
        (
            [
                [0.001_929_096, -0.002_574_517, -0.002_476_305],
                [-0.000_139_879, 0.004_588_923, -0.001_095_073],
            ],
            [-0.045_333_779, -0.142_443_512, 0.763_820_437, 0.627_879_793],
            [2.830_685_616, -3.586_605_549, -3.328_666_21],
            [
                [10.600_558_281, 10.358_582_497, 0.137_442_246],
                [12.416_567_802, 2.001_863_48, 10.663_008_689],
                [0.554_241_419, -6.005_173_207, -2.983_563_662],
            ],
            [0.193_553_542, 0.110_442_025, 0.085_608_186, 0.971_087_444],
            [-0.030_467_274, -0.126_027_524, -0.415_686_786],
        ),
    ];
    fn run<N: geom::Real + Into<f64>>(case: &Case, swap: bool) -> (Vector3<f64>, ContactPoint<f64>) {
        let c =
            |v: [f64; 3]| Point3::new(v[0], v[1], v[2]).map(|x| nalgebra::convert::<f64, N>(x as f32 as f64));
        let segment = Segment::new(c(case.0[0]), c(case.0[1]));
        let triangle = Triangle::new(c(case.3[0]), c(case.3[1]), c(case.3[2]));
        let (pose_s, pose_t) = (pose::<N>(case.1, case.2), pose::<N>(case.4, case.5));
        let table = geom::default_dispatcher::<N>();
        let mut out = ContactManifolds::new();
        let margin = nalgebra::convert::<f64, N>(0.002);
        if swap {
            table
                .contact(&triangle, &pose_t, &segment, &pose_s, margin, &mut out)
                .unwrap();
        } else {
            table
                .contact(&segment, &pose_s, &triangle, &pose_t, margin, &mut out)
                .unwrap();
        }
        deepest_of(&points_f64(&out))
    }
    for (k, case) in cases.iter().enumerate() {
        let scale = if k == 0 { 3.0 } else { 16.0 };
        let bound = 16.0 * f32::EPSILON as f64 * scale;
        for swap in [false, true] {
            let (n32, p32) = run::<f32>(case, swap);
            let (_, p64) = run::<f64>(case, swap);
            let mismatch = ((p32.point_a - p32.point_b) - n32 * p32.depth).norm();
            assert!(mismatch <= bound, "#{k} {swap}: {mismatch:e}: {p32:?}");
            assert!(
                (p32.depth - p64.depth).abs() <= bound,
                "#{k} {swap}: {p32:?} vs {p64:?}"
            );
        }
    }
}

/// A capsule 2·10⁻⁴ from a triangle's edge (pair oracle, seed 6): the
/// normal is perpendicular to the core and the edge, so the overlap along
/// it is the reported depth; the closest pair's own direction, rounding of
/// 10⁻⁴ rad in `f32`, once let the edge's far end stick out by 8·10⁻⁵.
/// Both orders, against the `f64` depth.
#[test]
fn a_capsule_beside_a_triangle_edge_gets_the_edge_normal() {
    fn run<N: geom::Real + Into<f64>>(swap: bool) -> (f64, f64) {
        let c =
            |v: [f64; 3]| Point3::new(v[0], v[1], v[2]).map(|x| nalgebra::convert::<f64, N>(x as f32 as f64));
        const QC: [f64; 4] = [-0.544_418_757, 0.427_069_12, -0.411_717_009, 0.593_050_831];
        const TC: [f64; 3] = [0.217_314_78, -0.153_144_941, -0.159_292_087];
        const QT: [f64; 4] = [-0.224_275_663, -0.789_539_206, 0.089_247_99, 0.564_236_71];
        const TT: [f64; 3] = [0.076_531_187, -0.129_120_305, -0.165_473_327];
        let capsule = Capsule::from_points(
            c([0.080_785_52, -0.256_510_139, 0.074_282_512]),
            c([-0.080_785_52, 0.256_510_139, -0.074_282_512]),
            nalgebra::convert::<f64, N>(0.112_959_661_f64 as f32 as f64),
        );
        let triangle = Triangle::new(
            c([-0.036_146_998, -0.146_651_044, 0.040_264_118]),
            c([0.054_952_785, -0.063_704_476, -0.257_668_406]),
            c([0.136_049_271, -0.136_541_65, 0.045_490_31]),
        );
        let (pose_c, pose_t) = (pose::<N>(QC, TC), pose::<N>(QT, TT));
        let table = geom::default_dispatcher::<N>();
        let mut out = ContactManifolds::new();
        let margin = nalgebra::convert::<f64, N>(0.068);
        if swap {
            table
                .contact(&triangle, &pose_t, &capsule, &pose_c, margin, &mut out)
                .unwrap();
        } else {
            table
                .contact(&capsule, &pose_c, &triangle, &pose_t, margin, &mut out)
                .unwrap();
        }
        let manifold = &out.as_slice()[0];
        let depth: f64 = manifold.max_depth().expect("a contact").into();
        // The overlap of the two shapes along the manifold's normal, in f64.
        let n = manifold.normal.map(Into::into);
        let n = if swap { -n } else { n };
        let (pc, pt) = (pose::<f64>(QC, TC), pose::<f64>(QT, TT));
        let ends = [capsule.a, capsule.b].map(|e| pc * e.map(Into::into));
        let corners = [triangle.a, triangle.b, triangle.c].map(|v| pt * v.map(Into::into));
        let reach = ends.iter().map(|e| e.coords.dot(&n)).fold(f64::MIN, f64::max) + capsule.radius.into();
        let low = corners.iter().map(|v| v.coords.dot(&n)).fold(f64::MAX, f64::min);
        (depth, reach - low)
    }
    for swap in [false, true] {
        let (depth64, _) = run::<f64>(swap);
        let (depth32, overlap32) = run::<f32>(swap);
        let bound = 16.0 * f32::EPSILON as f64 * 0.5;
        assert!(
            (depth32 - depth64).abs() <= bound,
            "{swap}: {depth32} vs {depth64}"
        );
        assert!(
            (overlap32 - depth32).abs() <= bound,
            "{swap}: overlap {overlap32} vs depth {depth32}"
        );
    }
}

/// A shape of a curved-pair regression case: the kind and its local values
/// (each rounded to `f32`, as the pair oracle prints them).
#[derive(Clone, Copy)]
enum Curved {
    Sphere(f64),
    Cylinder([f64; 3], f64),
    Cone([f64; 3], f64),
}

impl Curved {
    /// The shape in precision `N`: a cylinder or cone from `−h` to `h`.
    fn build<N: geom::Real>(self) -> Box<dyn Shape<N>> {
        let c = |x: f64| nalgebra::convert::<f64, N>(x as f32 as f64);
        let ends = |h: [f64; 3]| {
            (
                Point3::new(c(h[0]), c(h[1]), c(h[2])),
                Point3::new(c(-h[0]), c(-h[1]), c(-h[2])),
            )
        };
        match self {
            Curved::Sphere(r) => Box::new(Sphere::new(c(r))),
            Curved::Cylinder(h, r) => {
                let (p, q) = ends(h);
                Box::new(Cylinder::from_points(p, q, c(r)))
            }
            Curved::Cone(h, r) => {
                let (p, q) = ends(h);
                Box::new(Cone::from_points(p, q, c(r)))
            }
        }
    }
}

/// Curved pairs through GJK/EPA and the normal's refinement, from the pair
/// oracle (seeds 5 and 9), in `f32`, both orders: every contact point on
/// both shapes and `point_a − point_b = depth · normal`, to 16 ε of the
/// scene's size (the oracle's: the larger of the centre's coordinate plus
/// the bounding radius), and the depth the `f64` one's to the same bound.
///
/// - A cylinder of radius 0.036 on the rim of a cone of radius 54: EPA's
///   normal, 0.14 rad off, was refined by full Newton steps that circled
///   the answer; the point on the cone lay 5·10⁻³ off it.
/// - A cone of radius 0.42 on the base rim of a cone of radius 180: the
///   large cone's side was taken, its rim never tried (Newton started at
///   the side's normal, where the support jumps between the side's ends);
///   the pair was 1.9·10⁻³ across the normal.
/// - A cone's rim 0.035 deep in a cylinder's cap, within 10⁻³ of the cap's
///   normal: Newton across the normal could not follow the rim point,
///   which turns at `radius / tilt`; the cylinder's point was 9·10⁻⁵ off.
/// - A sphere near a cone's side 190 from its apex: the point's lift onto
///   the side, chosen from the normal's last bits, stood 1.5·10⁻³ beside
///   the witness as a second contact.
/// - A sphere whose centre is 7·10⁻⁴ inside a cone's side (seed 2, case
///   1218 of 2000): the centre's offset to its projection, rounding of
///   10⁻⁴ rad in that direction, tilted the normal off the side, and the
///   shapes overlapped by 1.8·10⁻⁴ more along it than the depth said.
///
/// Each answer's deepest point is also the overlap of the two shapes
/// along its normal (from their `f64` support functions).
#[test]
fn f32_curved_pairs_of_different_sizes_keep_their_points_on_the_shapes() {
    type Placed = (Curved, [f64; 4], [f64; 3]);
    let cases: [(Placed, Placed, f64, f64); 5] = [
        (
            (
                Curved::Cone(
                    [49.754_882_812_5, 163.612_411_499, 37.135_715_484],
                    54.333_438_873,
                ),
                [-0.227_970_876, 0.065_278_716, -0.229_043_462, 0.944_090_6],
                [151.197_296_143, 83.012_466_431, -61.544_445_038],
            ),
            (
                Curved::Cylinder([-0.014_480_907, -0.002_181_274, -0.012_132_627], 0.035_680_071),
                [0.006_744_678, -0.217_384_511, 0.210_899_213, 0.953_005_774],
                [-0.815_650_344, 0.715_827_167, -0.705_988_705],
            ),
            0.007_233_647,
            334.0,
        ),
        (
            (
                Curved::Cone(
                    [18.569_936_752, -111.736_488_342, 110.013_549_805],
                    180.027_542_114,
                ),
                [0.046_886_085, 0.986_901_896, -0.079_944_874, 0.132_042_267],
                [-4.282_477_856, 4.034_814_835, 13.064_881_325],
            ),
            (
                Curved::Cone([-0.024_756_335, -0.044_210_277, 0.073_087_752], 0.416_459_888),
                [-0.549_389_239, -0.063_896_065, -0.031_047_53, 0.832_541_175],
                [-69.820_960_999, 33.194_164_276, 241.786_636_353],
            ),
            0.084_016_904,
            252.0,
        ),
        (
            (
                Curved::Cylinder([0.022_556_324, 0.035_223_044, -0.056_534_551], 0.140_134_051),
                [-0.147_101_455, -0.330_182_197, 0.501_093_867, 0.786_286_09],
                [-0.083_344_579, -0.147_793_01, -0.040_552_777],
            ),
            (
                Curved::Cone([0.014_895_156, -0.027_947_363, 0.111_018_091], 0.145_005_688),
                [-0.196_853_113, 0.533_637_564, -0.389_427_891, 0.724_448_563],
                [0.144_864_976, -0.000_387_155, -0.020_517_305],
            ),
            0.0,
            0.3,
        ),
        (
            (
                Curved::Cone([-62.241_058_35, -34.247_138_977, 191.466_369_629], 86.074_028_015),
                [-0.131_510_71, 0.744_933_956, 0.543_186_157, 0.364_317_35],
                [127.988_853_455, 65.980_834_961, -51.886_257_172],
            ),
            (
                Curved::Sphere(0.190_455_556),
                [-0.050_399_338, -0.168_474_028, 0.736_145_452, 0.653_579_592],
                [-0.308_100_253, 5.936_861_515, 3.686_121_702],
            ),
            0.059_130_497,
            349.0,
        ),
        (
            (
                Curved::Sphere(0.228_066_653),
                [-0.306_108_597, -0.436_635_073, 0.084_642_78, 0.841_714_286],
                [0.103_383_303, 0.184_104_502, 0.195_069_134],
            ),
            (
                Curved::Cone([0.054_768_223, 0.458_445_758, -0.293_525_994], 0.668_799_341),
                [0.057_587_561, -0.460_239_479, -0.191_757_199, 0.864_923_39],
                [0.038_150_534, 1.043_196_201, 0.152_992_114],
            ),
            0.152_128_518,
            1.9,
        ),
    ];
    type Answer = Vec<(Vector3<f64>, ContactPoint<f64>)>;
    fn run<N: geom::Real + Into<f64>>(a: &Placed, b: &Placed, margin: f64) -> Answer {
        let (shape_a, shape_b) = (a.0.build::<N>(), b.0.build::<N>());
        let (pose_a, pose_b) = (pose::<N>(a.1, a.2), pose::<N>(b.1, b.2));
        let table = geom::default_dispatcher::<N>();
        let mut out = ContactManifolds::new();
        let margin = nalgebra::convert::<f64, N>(margin as f32 as f64);
        table
            .contact(
                shape_a.as_ref(),
                &pose_a,
                shape_b.as_ref(),
                &pose_b,
                margin,
                &mut out,
            )
            .unwrap();
        points_f64(&out)
    }
    for (k, (a, b, margin, scale)) in cases.iter().enumerate() {
        let bound = 16.0 * f32::EPSILON as f64 * scale;
        for swap in [false, true] {
            let (a, b) = if swap { (b, a) } else { (a, b) };
            let single = run::<f32>(a, b, *margin);
            let exact = run::<f64>(a, b, *margin);
            assert!(!single.is_empty() && !exact.is_empty(), "#{k} {swap}: a contact");
            let (shape_a, shape_b) = (a.0.build::<f64>(), b.0.build::<f64>());
            let (pose_a, pose_b) = (pose::<f64>(a.1, a.2), pose::<f64>(b.1, b.2));
            for (n, p) in &single {
                let off_a = shape_a.distance(&pose_a, &p.point_a).unwrap().abs();
                let off_b = shape_b.distance(&pose_b, &p.point_b).unwrap().abs();
                assert!(
                    off_a <= bound && off_b <= bound,
                    "#{k} {swap}: off {off_a:e} {off_b:e}: {p:?}"
                );
                let across = ((p.point_a - p.point_b) - n * p.depth).norm();
                assert!(across <= bound, "#{k} {swap}: across {across:e}: {p:?}");
            }
            if let Some((n, _)) = single.first() {
                let overlap =
                    (shape_a.support(&pose_a, n).unwrap() - shape_b.support(&pose_b, &-n).unwrap()).dot(n);
                let deepest = single.iter().map(|(_, p)| p.depth).fold(f64::MIN, f64::max);
                assert!(
                    (overlap - deepest).abs() <= bound,
                    "#{k} {swap}: overlap {overlap:e} along {n:?}, depth {deepest:e}"
                );
            }
            let deepest = |answer: &Answer| answer.iter().map(|(_, p)| p.depth).fold(f64::MIN, f64::max);
            let (d32, d64) = (deepest(&single), deepest(&exact));
            assert!((d32 - d64).abs() <= bound, "#{k} {swap}: depth {d32} vs {d64}");
        }
    }
}

/// A box grazing a triangle (pair oracle, seed 2, case 632 of 2000),
/// 4·10⁻⁶ deep: an edge × edge axis whose triangle edge lies behind the
/// triangle's opposite vertex along it is no face of the Minkowski
/// difference, yet it once won the least depth (a tie at the rounding of
/// a grazing contact), and its edges' closest points came out 1.07 across
/// the normal. Both orders, `f32` and `f64`: points on the shapes,
/// `point_a − point_b = depth · normal`, the depth the `f64` one's, to 16 ε
/// of the scene's size.
#[test]
fn a_box_grazing_a_triangle_takes_edges_that_support_the_axis() {
    fn run<N: geom::Real + Into<f64>>(swap: bool) -> Vec<(Vector3<f64>, ContactPoint<f64>)> {
        let c = |x: f64| nalgebra::convert::<f64, N>(x as f32 as f64);
        let p = |v: [f64; 3]| Point3::new(c(v[0]), c(v[1]), c(v[2]));
        let cuboid = Cuboid::new(Vector3::new(c(5.463_660_717), c(4.459_671_497), c(4.450_890_541)));
        let triangle = Triangle::new(
            p([-4.730_458_26, 1.326_560_974, -1.935_089_111]),
            p([5.222_849_369, -1.781_856_418, 2.258_152_008]),
            p([-0.518_270_731, -1.151_962_28, -0.525_997_4]),
        );
        let pose_box = pose::<N>(
            [-0.508_966_842, 0.340_248_385, -0.759_782_573, 0.218_893_198],
            [-0.091_073_64, 0.490_746_468, -0.309_213_251],
        );
        let pose_triangle = pose::<N>(
            [0.902_645_67, 0.091_118_74, -0.246_737_884, 0.340_659_048],
            [2.241_663_456, -8.669_241_906, 0.908_759_892],
        );
        let table = geom::default_dispatcher::<N>();
        let mut out = ContactManifolds::new();
        if swap {
            table
                .contact(&triangle, &pose_triangle, &cuboid, &pose_box, N::zero(), &mut out)
                .unwrap();
        } else {
            table
                .contact(&cuboid, &pose_box, &triangle, &pose_triangle, N::zero(), &mut out)
                .unwrap();
        }
        points_f64(&out)
    }
    let bound = 16.0 * f32::EPSILON as f64 * 14.4;
    for swap in [false, true] {
        let exact = run::<f64>(swap);
        let deepest = |answer: &[(Vector3<f64>, ContactPoint<f64>)]| {
            answer.iter().map(|(_, q)| q.depth).fold(f64::MIN, f64::max)
        };
        for (precision, answer) in [("f64", exact.clone()), ("f32", run::<f32>(swap))] {
            assert!(!answer.is_empty(), "{precision} {swap}: a contact");
            for (n, q) in &answer {
                let across = ((q.point_a - q.point_b) - n * q.depth).norm();
                assert!(across <= bound, "{precision} {swap}: across {across:e}: {q:?}");
            }
            let (d, d64) = (deepest(&answer), deepest(&exact));
            assert!((d - d64).abs() <= bound, "{precision} {swap}: depth {d} vs {d64}");
        }
    }
}

/// The deepest contact of `a` (at `pose_a`) and `b` (at `pose_b`) through
/// the default table at precision `N`, in `f64`: `(normal, depth)`.
fn deepest_at<N: geom::Real + Into<f64>>(
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    margin: N,
) -> Option<(Vector3<f64>, f64)> {
    let mut out = ContactManifolds::new();
    geom::default_dispatcher::<N>()
        .contact(a, pose_a, b, pose_b, margin, &mut out)
        .expect("a built-in pair");
    let points = points_f64(&out);
    (!points.is_empty()).then(|| {
        let (normal, point) = deepest_of(&points);
        (normal, point.depth)
    })
}

/// An `f32` pose in `f64`, every number as it is (the quaternion is not
/// renormalised, so both precisions rotate by the same numbers).
fn pose_f64(pose: &Isometry3<f32>) -> Isometry3<f64> {
    let q = pose.rotation.quaternion();
    Isometry3::from_parts(
        Translation3::from(pose.translation.vector.map(f64::from)),
        UnitQuaternion::new_unchecked(geom::nalgebra::Quaternion::new(
            f64::from(q.w),
            f64::from(q.i),
            f64::from(q.j),
            f64::from(q.k),
        )),
    )
}

/// The f32 deepest contact `(normal, depth)` agrees with f64's on the same
/// f32-exact inputs to the size's precision (ε·size ≈ 1.2e-7, within
/// 1e-5), not to the coordinates' (ε·1e5 ≈ 1e-2).
fn assert_f32_agrees_with_f64(f32_answer: (Vector3<f64>, f64), f64_answer: (Vector3<f64>, f64)) {
    let ((normal, depth), (normal64, depth64)) = (f32_answer, f64_answer);
    assert!(
        (depth - depth64).abs() < 1e-5,
        "f32 depth {depth} against {depth64}"
    );
    assert!(
        (normal - normal64).amax() < 1e-5,
        "f32 normal {normal:?} against {normal64:?}"
    );
}

/// The same pair built at `f32` and at `f64` from `f32`-exact numbers.
fn triangle_and_capsule<N: geom::Real>() -> (Triangle<N>, Capsule<N>, Isometry3<N>) {
    let s = |x: f32| geom::nalgebra::convert::<f64, N>(f64::from(x));
    let p = |x: f32, y: f32, z: f32| Point3::new(s(x), s(y), s(z));
    let triangle = Triangle::new(
        p(-38528.47, 101010.57, -112364.914),
        p(-38527.062, 101011.11, -112364.57),
        p(-38528.66, 101010.8, -112365.45),
    );
    let capsule = Capsule::from_points(
        p(0.041658, 0.508044, 0.616568),
        p(0.258617, 0.589602, 0.474854),
        s(0.4),
    );
    let rotation = UnitQuaternion::from_quaternion(geom::nalgebra::Quaternion::new(
        s(0.453344),
        s(-0.744631),
        s(-0.293056),
        s(0.392584),
    ));
    let pose = Isometry3::from_parts(
        Translation3::new(s(-38527.7), s(101011.055), s(-112365.336)),
        rotation,
    );
    (triangle, capsule, pose)
}

#[test]
fn a_world_triangle_far_from_the_origin_keeps_the_precision_of_its_size() {
    // A triangle given in world coordinates 1.6e5 from the origin and a
    // capsule 0.37 beyond the margin of 0.1. The f32 routine used to take
    // the core for touching (its rounding tolerance scaled with the
    // coordinates: 64 ε · 1.1e5 = 0.84) and report a contact 0.2 deep.
    let (triangle, capsule, pose) = triangle_and_capsule::<f32>();
    let (triangle64, capsule64, pose64) = triangle_and_capsule::<f64>();
    let identity = Isometry3::identity();
    assert_eq!(
        deepest_at::<f32>(&triangle, &identity, &capsule, &pose, 0.1),
        None
    );
    let answer64 = deepest_at::<f64>(&triangle64, &Isometry3::identity(), &capsule64, &pose64, 1.0).unwrap();
    let (normal, depth) = deepest_at::<f32>(&triangle, &identity, &capsule, &pose, 1.0).unwrap();
    assert!((answer64.1 + 0.3728).abs() < 1e-3, "f64 depth {}", answer64.1);
    assert_f32_agrees_with_f64((normal, depth), answer64);
    // Both orders through the table.
    let (normal_swapped, depth_swapped) =
        deepest_at::<f32>(&capsule, &pose, &triangle, &identity, 1.0).unwrap();
    assert_eq!(depth_swapped, depth);
    assert_eq!(normal_swapped, -normal);
}

#[test]
fn posed_pairs_far_from_the_origin_get_normals_of_their_size() {
    // Two capsules posed 1e5 from the origin: the table works about the
    // pair's midpoint, so the f32 normal agrees with f64's to a few ulps
    // of 1 instead of ε·1e5 (1e-2 rad) as when the cores were placed in
    // world coordinates first.
    let capsule32 = Capsule::from_points(Point3::new(0.0f32, -0.8, 0.0), Point3::new(0.0, 0.8, 0.0), 0.3);
    let capsule64 = Capsule::from_points(Point3::new(0.0f64, -0.8, 0.0), Point3::new(0.0, 0.8, 0.0), 0.3);
    let rotation = |axis: Vector3<f32>, angle: f32| {
        UnitQuaternion::from_axis_angle(&geom::nalgebra::Unit::new_normalize(axis), angle)
    };
    let pose_a32 = Isometry3::from_parts(
        Translation3::new(100000.25f32, -70000.5, 40000.125),
        rotation(Vector3::new(1.0, 0.2, 0.1), 0.3),
    );
    let pose_b32 = Isometry3::from_parts(
        Translation3::new(100000.75f32, -69999.875, 40000.625),
        rotation(Vector3::new(0.1, 0.3, 1.0), 1.2),
    );
    let answer = deepest_at::<f32>(&capsule32, &pose_a32, &capsule32, &pose_b32, 0.1).unwrap();
    let answer64 = deepest_at::<f64>(
        &capsule64,
        &pose_f64(&pose_a32),
        &capsule64,
        &pose_f64(&pose_b32),
        0.1,
    )
    .unwrap();
    assert_f32_agrees_with_f64(answer, answer64);
}

#[test]
fn a_world_capsule_far_from_the_origin_against_a_posed_box_keeps_its_normal() {
    // A capsule given by world points 1e5 out, a box posed next to it: the
    // routine used to bring the capsule into the box's frame as
    // `R·(p − t)` with `p` and `t` both at 1e5, rounding the core by ε·1e5;
    // it now moves the capsule about its first end first.
    let capsule32 = Capsule::from_points(
        Point3::new(100000.25f32, -70000.5, 40000.125),
        Point3::new(100001.0, -70000.0, 40000.5),
        0.3,
    );
    let capsule64 = Capsule::from_points(
        Point3::new(100000.25f64, -70000.5, 40000.125),
        Point3::new(100001.0, -70000.0, 40000.5),
        0.3,
    );
    let rotation = UnitQuaternion::from_axis_angle(
        &geom::nalgebra::Unit::new_normalize(Vector3::new(0.3f32, 1.0, 0.2)),
        0.7,
    );
    let pose32 = Isometry3::from_parts(Translation3::new(100000.5f32, -69999.75, 40000.5), rotation);
    let (box32, box64) = (
        Cuboid::new(Vector3::new(0.5f32, 0.4, 0.6)),
        Cuboid::new(Vector3::new(0.5f64, 0.4, 0.6)),
    );
    let answer = deepest_at::<f32>(&capsule32, &Isometry3::identity(), &box32, &pose32, 0.1).unwrap();
    let answer64 = deepest_at::<f64>(
        &capsule64,
        &Isometry3::identity(),
        &box64,
        &pose_f64(&pose32),
        0.1,
    )
    .unwrap();
    assert_f32_agrees_with_f64(answer, answer64);
}

/// A box hovering within the margin over a triangle or a box, turned a
/// little or not at all: the contact's deepest point is minus the
/// distance that brute force over the features gives (the box's corners
/// against the other shape, the other's corners against the box, and
/// every pair of edges), in both orders. A face-parallel box keeps its
/// four clipped corners.
#[test]
fn boxes_apart_within_the_margin_report_the_exact_distance() {
    use geom::base::distance::{closest_point_on_triangle, closest_points_segment_segment};
    let cube = Cuboid::new(Vector3::new(0.5, 0.25, 0.4));
    let corners_of = |c: &Cuboid<f64>, pose: &Isometry3<f64>| -> Vec<Point3<f64>> {
        (0..8)
            .map(|k| {
                let h = c.half_extents;
                let s = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
                pose * Point3::new(s(1) * h.x, s(2) * h.y, s(4) * h.z)
            })
            .collect()
    };
    let edges_of = |corners: &[Point3<f64>]| -> Vec<(Point3<f64>, Point3<f64>)> {
        let mut edges = Vec::new();
        for i in 0..corners.len() {
            for j in i + 1..corners.len() {
                if corners.len() != 8 || (i ^ j).count_ones() == 1 {
                    edges.push((corners[i], corners[j]));
                }
            }
        }
        edges
    };
    let triangle = Triangle::new(
        Point3::new(-1.5, 0.0, -1.0),
        Point3::new(1.5, 0.1, -1.2),
        Point3::new(0.2, -0.05, 1.6),
    );
    let id = Isometry3::identity();
    for (k, (turn, lift)) in [(0.0, 0.02), (0.05, 0.03), (0.3, 0.04), (1.0, 0.045), (0.0, 0.3)]
        .into_iter()
        .enumerate()
    {
        // The box's lowest corner `lift` above the triangle's highest:
        // apart by at least `lift`.
        let turned = Isometry3::new(Vector3::new(0.1, 0.0, 0.05), Vector3::new(turn, 0.3, 0.5 * turn));
        let lowest = corners_of(&cube, &turned)
            .iter()
            .map(|p| p.y)
            .fold(f64::INFINITY, f64::min);
        let pose = Isometry3::translation(0.0, 0.1 + lift - lowest, 0.0) * turned;
        let box_corners = corners_of(&cube, &pose);
        // Brute force against the triangle.
        let tri = [triangle.a, triangle.b, triangle.c];
        let mut distance = f64::INFINITY;
        for p in &box_corners {
            let (q, _) = closest_point_on_triangle(p, &tri[0], &tri[1], &tri[2]);
            distance = distance.min((p - q).norm());
        }
        for p in &tri {
            let local = pose.inverse_transform_point(p);
            let q = local.coords.zip_map(&cube.half_extents, |x, h| x.clamp(-h, h));
            distance = distance.min((local.coords - q).norm());
        }
        for (p0, p1) in edges_of(&box_corners) {
            for (q0, q1) in edges_of(&tri) {
                let closest = closest_points_segment_segment(&p0, &p1, &q0, &q1);
                distance = distance.min((closest.point_on_p - closest.point_on_q).norm());
            }
        }
        let margin = 0.05;
        for swap in [false, true] {
            let mut out = ContactManifolds::new();
            if swap {
                table()
                    .contact(&cube, &pose, &triangle, &id, margin, &mut out)
                    .unwrap();
            } else {
                table()
                    .contact(&triangle, &id, &cube, &pose, margin, &mut out)
                    .unwrap();
            }
            if distance > margin {
                assert!(out.is_empty(), "case {k}: {distance} beyond the margin: {out:?}");
                continue;
            }
            let (_, point) = deepest(&out);
            assert!(
                (point.depth + distance).abs() <= 1e-12,
                "case {k} swap {swap}: {distance} vs {point:?}"
            );
            if turn == 0.0 {
                assert_eq!(out.points().count(), 4, "case {k}: {out:?}");
            }
        }
    }
}

/// An ellipsoid deep over a large triangle's corner (the pair oracle's
/// f64 seed 9, case 42): EPA ends at its iteration cap, and the answer
/// must still be the least push, as a scan of directions with a local
/// polish finds it (the support overlap `h_E(n) + h_T(−n)`), in both
/// orders, its points on their shapes. EPA's closest face at the cap
/// was 2 % deeper, and the refinement from it stopped 1 % deep.
#[test]
fn an_ellipsoid_deep_over_a_triangles_corner_gets_the_least_push() {
    use nalgebra::Quaternion;
    let ellipsoid = Ellipsoid::new(Vector3::new(
        1.68427312374115,
        1.7155585289001465,
        2.4896621704101563,
    ));
    let pose_e = Isometry3::from_parts(
        Translation3::new(-2.526543378829956, 0.8303278088569641, -1.3269686698913574),
        UnitQuaternion::from_quaternion(Quaternion::new(
            0.6395317477005843,
            -0.6612811071004183,
            0.35402974561741757,
            0.16843212369719693,
        )),
    );
    let triangle = Triangle::new(
        Point3::new(-1.6731288433074951, 0.03456320986151695, -2.906519889831543),
        Point3::new(2.820560932159424, -0.21141885221004486, 0.8428301215171814),
        Point3::new(0.5597122311592102, -0.17591099441051483, -1.5710277557373047),
    );
    let pose_t = Isometry3::from_parts(
        Translation3::new(-4.899659633636475, 2.5616719722747803, -0.2951415479183197),
        UnitQuaternion::from_quaternion(Quaternion::new(
            0.8826025963817415,
            0.37434185603598386,
            0.26884688129044143,
            -0.09274797086808219,
        )),
    );
    // The least support overlap over directions: a scan, then a local
    // polish of each coordinate with halving steps.
    let overlap = |n: &Vector3<f64>| {
        ellipsoid.support(&pose_e, n).unwrap().coords.dot(n)
            - triangle.support(&pose_t, &-n).unwrap().coords.dot(n)
    };
    let mut best = (f64::INFINITY, Vector3::zeros());
    let k = 200;
    for i in 0..k {
        for j in 0..2 * k {
            let (theta, phi) = (
                std::f64::consts::PI * (i as f64 + 0.5) / k as f64,
                std::f64::consts::PI * j as f64 / k as f64,
            );
            let n = Vector3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos());
            let o = overlap(&n);
            if o < best.0 {
                best = (o, n);
            }
        }
    }
    let mut step = 1e-2;
    while step > 1e-13 {
        let mut improved = false;
        for axis in 0..3 {
            for sign in [-1.0, 1.0] {
                let mut n = best.1;
                n[axis] += sign * step;
                let n = n.normalize();
                let o = overlap(&n);
                if o < best.0 {
                    best = (o, n);
                    improved = true;
                }
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
    let (least, _) = best;
    for swap in [false, true] {
        let mut out = ContactManifolds::new();
        if swap {
            table()
                .contact(&triangle, &pose_t, &ellipsoid, &pose_e, 0.7, &mut out)
                .unwrap();
        } else {
            table()
                .contact(&ellipsoid, &pose_e, &triangle, &pose_t, 0.7, &mut out)
                .unwrap();
        }
        let (_, point) = deepest(&out);
        // No deeper than the least push, and not shallower than it either
        // (the scan's polish is a hair above the true least).
        assert!(
            (point.depth - least).abs() <= 1e-9,
            "swap {swap}: {point:?} against {least}"
        );
        let (on_e, on_t) = if swap {
            (point.point_b, point.point_a)
        } else {
            (point.point_a, point.point_b)
        };
        let off_e = (ellipsoid.closest_point(&pose_e, &on_e, false).unwrap().point - on_e).norm();
        let off_t = (triangle.closest_point(&pose_t, &on_t, false).unwrap().point - on_t).norm();
        assert!(
            off_e < 1e-9 && off_t < 1e-9,
            "swap {swap}: points off by {off_e}, {off_t}"
        );
    }
}
