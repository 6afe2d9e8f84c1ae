//! The scenes a physics user tries first on terrain, through the default
//! dispatcher, at a thousand random poses each (a quarter of them unless
//! `GEOM_FULL_SWEEPS` is set: `geom_random::sweep_cases`), against answers
//! worked out here from the scene's geometry (flat ground at a known height):
//! resting boxes report their four corners at the exact depth, standing
//! cylinders their rim, hovering spheres one point, every normal the
//! face's; distances and closest points match the height above ground;
//! shapes across the terrain's border leave by the smaller push; capsules,
//! spheres, boxes and cylinders swept down stop at the exact time, in
//! `f64` and `f32`.

use geom::prelude::*;
use geom_random::Rng;

/// A flat terrain at height `level`, `n × n` samples one unit apart, its
/// triangles' diagonals in both directions (alternating flip).
fn flat(n: usize, level: f64) -> HeightField<f64> {
    HeightField::try_from_desc(HeightFieldDesc::new(
        Point3::new(0.0, level, 0.0),
        [1.0, 1.0],
        n,
        n,
        vec![0.0; n * n],
    ))
    .unwrap()
}

/// Random poses per scene.
fn poses() -> usize {
    geom_random::sweep_cases(1000)
}
const LEVEL: f64 = 0.75;
const SIZE: usize = 17;

fn up() -> Vector3<f64> {
    Vector3::y()
}

fn assert_up(normal: &Vector3<f64>, context: &str) {
    assert!((normal - up()).norm() <= 1e-5, "{context}: normal {normal:?}");
}

#[test]
fn resting_boxes_report_four_corners_at_the_exact_depth() {
    let table = geom::default_dispatcher::<f64>();
    let ground = flat(SIZE, LEVEL);
    let id = Isometry3::identity();
    let mut rng = Rng::from_state(0x9E37_79B9_7F4A_7C15);
    let mut out = ContactManifolds::new();
    for k in 0..poses() {
        let half = Vector3::new(rng.range(0.1, 1.5), rng.range(0.05, 1.0), rng.range(0.1, 1.5));
        let depth = rng.range(0.001, 0.2).min(half.y);
        let center = Vector3::new(rng.range(3.0, 13.0), LEVEL + half.y - depth, rng.range(3.0, 13.0));
        let pose = Isometry3::new(center, Vector3::y() * rng.range(0.0, std::f64::consts::TAU));
        let cuboid = Cuboid::new(half);
        for swap in [false, true] {
            let context = format!("pose {k} {pose:?} {half:?} swap {swap}");
            if swap {
                table
                    .contact(&cuboid, &pose, &ground, &id, 0.0, &mut out)
                    .unwrap();
            } else {
                table
                    .contact(&ground, &id, &cuboid, &pose, 0.0, &mut out)
                    .unwrap();
            }
            assert_eq!(out.len(), 1, "{context}: {out:?}");
            let manifold = &out.as_slice()[0];
            let sign = if swap { -1.0 } else { 1.0 };
            assert_up(&(manifold.normal * sign), &context);
            assert_eq!(manifold.points.len(), 4, "{context}: {manifold:?}");
            for point in &manifold.points {
                assert!(
                    (point.depth - depth).abs() <= 1e-12,
                    "{context}: depth {} vs {depth}",
                    point.depth
                );
                let on_box = if swap { point.point_a } else { point.point_b };
                let on_ground = if swap { point.point_b } else { point.point_a };
                // A bottom corner of the box, straight above its foot.
                let local = pose.inverse_transform_point(&on_box);
                let corner = local.coords.abs() - half;
                assert!(
                    corner.amax().abs() <= 1e-12 && corner.amin().abs() <= 1e-12,
                    "{context}: {local:?}"
                );
                assert!(local.y < 0.0, "{context}: {local:?}");
                assert!((on_ground.y - LEVEL).abs() <= 1e-12, "{context}: {on_ground:?}");
                assert!((on_ground.xz() - on_box.xz()).norm() <= 1e-12, "{context}");
            }
        }
    }
}

#[test]
fn standing_cylinders_and_cones_report_their_rim() {
    let table = geom::default_dispatcher::<f64>();
    let ground = flat(SIZE, LEVEL);
    let id = Isometry3::identity();
    let mut rng = Rng::from_state(0xD1B5_4A32_D192_ED03);
    let mut out = ContactManifolds::new();
    for k in 0..poses() {
        let radius = rng.range(0.1, 2.0);
        let height = rng.range(0.1, 3.0);
        let depth = rng.range(0.001, 0.2);
        let bottom = Point3::new(rng.range(3.0, 13.0), LEVEL - depth, rng.range(3.0, 13.0));
        let top = bottom + up() * height;
        let cylinder = Cylinder::from_points(bottom, top, radius);
        // A cone standing on its base: apex up.
        let cone = Cone::from_points(top, bottom, radius);
        for (name, shape) in [("cylinder", &cylinder as &dyn Shape<f64>), ("cone", &cone)] {
            let context = format!("{name} {k}: bottom {bottom:?} radius {radius} height {height}");
            table.contact(&ground, &id, shape, &id, 0.0, &mut out).unwrap();
            assert_eq!(out.len(), 1, "{context}: {out:?}");
            let manifold = &out.as_slice()[0];
            assert_up(&manifold.normal, &context);
            assert!(manifold.points.len() >= 3, "{context}: {manifold:?}");
            for point in &manifold.points {
                assert!(
                    (point.depth - depth).abs() <= 1e-12,
                    "{context}: depth {}",
                    point.depth
                );
                let from_axis = (point.point_b - bottom).xz().norm();
                assert!(
                    (from_axis - radius).abs() <= 1e-12 * (1.0 + radius),
                    "{context}: {point:?}"
                );
                assert!(
                    (point.point_b.y - bottom.y).abs() <= 1e-12,
                    "{context}: {point:?}"
                );
            }
        }
    }
}

#[test]
fn hovering_spheres_get_one_point_below_them() {
    let table = geom::default_dispatcher::<f64>();
    let ground = flat(SIZE, LEVEL);
    let id = Isometry3::identity();
    let mut rng = Rng::from_state(0x2545_F491_4F6C_DD1D);
    let mut out = ContactManifolds::new();
    for k in 0..poses() {
        let radius = rng.range(0.05, 2.0);
        let gap = rng.range(0.0, 3.0);
        let margin = gap + rng.range(0.0, 5.0);
        let center = Point3::new(rng.range(3.0, 13.0), LEVEL + radius + gap, rng.range(3.0, 13.0));
        let pose = Isometry3::translation(center.x, center.y, center.z);
        let sphere = Sphere::new(radius);
        let context = format!("sphere {k}: {center:?} radius {radius} gap {gap} margin {margin}");
        table
            .contact(&ground, &id, &sphere, &pose, margin, &mut out)
            .unwrap();
        let points: Vec<_> = out.points().collect();
        assert_eq!(points.len(), 1, "{context}: {out:?}");
        let (normal, point) = points[0];
        assert_up(normal, &context);
        assert!(
            (point.depth + gap).abs() <= 1e-12 * (1.0 + center.y),
            "{context}: {point:?}"
        );
        let below = Point3::new(center.x, LEVEL, center.z);
        assert!(
            (point.point_a - below).norm() <= 1e-12 * (1.0 + center.y),
            "{context}: {point:?}"
        );
        // Beyond the margin: nothing.
        table
            .contact(&ground, &id, &sphere, &pose, gap * 0.5, &mut out)
            .unwrap();
        assert!(gap == 0.0 || out.is_empty(), "{context}: {out:?}");
    }
}

#[test]
fn distances_and_closest_points_to_flat_terrain() {
    let table = geom::default_dispatcher::<f64>();
    let ground = flat(SIZE, LEVEL);
    let id = Isometry3::identity();
    let mut rng = Rng::from_state(0x6A09_E667_F3BC_C908);
    for k in 0..poses() {
        let gap = rng.range(1e-3, 8.0);
        let half = Vector3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
        let cuboid = Cuboid::new(half);
        let sphere = Sphere::new(half.y);
        let x = rng.range(3.0, 13.0);
        let z = rng.range(3.0, 13.0);
        let pose = Isometry3::new(
            Vector3::new(x, LEVEL + half.y + gap, z),
            Vector3::y() * rng.unit() * 6.0,
        );
        for (name, shape) in [("box", &cuboid as &dyn Shape<f64>), ("sphere", &sphere)] {
            let context = format!("{name} {k}: gap {gap} at {pose:?}");
            let distance = table.distance(&ground, &id, shape, &pose).unwrap();
            assert!(
                (distance - gap).abs() <= 1e-12 * (1.0 + pose.translation.vector.y),
                "{context}: {distance}"
            );
            let reversed = table.distance(shape, &pose, &ground, &id).unwrap();
            assert_eq!(reversed, distance, "{context}");
            match table
                .closest_points(&ground, &id, shape, &pose, f64::INFINITY)
                .unwrap()
            {
                ClosestPoints::WithinMargin { point_a, point_b } => {
                    assert!((point_a.y - LEVEL).abs() <= 1e-12, "{context}: {point_a:?}");
                    assert!(
                        shape.distance(&pose, &point_b).unwrap().abs() <= 1e-12,
                        "{context}: {point_b:?}"
                    );
                    assert!(
                        ((point_b - point_a).norm() - gap).abs() <= 1e-12 * (1.0 + gap),
                        "{context}"
                    );
                }
                other => panic!("{context}: {other:?}"),
            }
            assert!(matches!(
                table
                    .closest_points(&ground, &id, shape, &pose, gap * 0.5)
                    .unwrap(),
                ClosestPoints::Disjoint
            ));
            assert!(
                !table.intersects(&ground, &id, shape, &pose).unwrap(),
                "{context}"
            );
            // Sunk: intersecting, distance zero.
            let mut sunk = pose;
            sunk.translation.vector.y = LEVEL - 5.0;
            assert!(table.intersects(&ground, &id, shape, &sunk).unwrap(), "{context}");
            assert_eq!(
                table.distance(shape, &sunk, &ground, &id).unwrap(),
                0.0,
                "{context}"
            );
        }
    }
}

#[test]
fn a_capsule_standing_through_the_border_leaves_sideways() {
    let table = geom::default_dispatcher::<f64>();
    let ground = flat(SIZE, LEVEL);
    let id = Isometry3::identity();
    let mut out = ContactManifolds::new();
    // Standing through the ground 0.1 inside the x = 0 border.
    for shape_kind in ["capsule", "cylinder"] {
        let (bottom, top) = (
            Point3::new(0.1 - 0.3, LEVEL - 1.0, 8.3),
            Point3::new(0.1 - 0.3, LEVEL + 2.0, 8.3),
        );
        let capsule = Capsule::from_points(bottom, top, 0.3);
        let cylinder = Cylinder::from_points(bottom, top, 0.3);
        let shape: &dyn Shape<f64> = if shape_kind == "capsule" {
            &capsule
        } else {
            &cylinder
        };
        table.contact(&ground, &id, shape, &id, 0.0, &mut out).unwrap();
        let (normal, deepest) = out
            .points()
            .max_by(|p, q| p.1.depth.total_cmp(&q.1.depth))
            .unwrap_or_else(|| panic!("{shape_kind}: no contact"));
        assert!(
            (normal + Vector3::x()).norm() <= 1e-9,
            "{shape_kind}: {normal:?} {out:?}"
        );
        assert!((deepest.depth - 0.1).abs() <= 1e-9, "{shape_kind}: {deepest:?}");
    }
}

#[test]
fn shapes_lying_across_the_border_are_pushed_up() {
    let table = geom::default_dispatcher::<f64>();
    let ground = flat(SIZE, LEVEL);
    let id = Isometry3::identity();
    let mut out = ContactManifolds::new();
    let mut rng = Rng::from_state(0xBB67_AE85_84CA_A73B);
    for k in 0..poses() {
        // Lying 0.05 deep, along x across the x = 16 border, at any z
        // inside, overhanging by up to half its length.
        let radius = rng.range(0.1, 0.5);
        let length = rng.range(1.0, 4.0);
        let depth = rng.range(0.001, 0.2).min(radius);
        let overhang = rng.range(0.05, 0.5) * length;
        let z = rng.range(2.0, 14.0);
        let y = LEVEL + radius - depth;
        let end = 16.0 + overhang;
        let capsule = Capsule::from_points(Point3::new(end - length, y, z), Point3::new(end, y, z), radius);
        let half = Vector3::new(length * 0.5, radius, radius);
        let cuboid = Cuboid::new(half);
        let box_pose = Isometry3::translation(end - length * 0.5, y, z);
        for (name, shape, pose) in [
            ("capsule", &capsule as &dyn Shape<f64>, id),
            ("box", &cuboid, box_pose),
        ] {
            table.contact(&ground, &id, shape, &pose, 0.0, &mut out).unwrap();
            assert!(!out.is_empty(), "{name} {k}");
            for (normal, point) in out.points() {
                assert_up(normal, &format!("{name} {k}: {out:?}"));
                assert!(
                    (point.depth - depth).abs() <= 1e-12,
                    "{name} {k}: {point:?} vs {depth}"
                );
            }
        }
    }
}

/// Shapes swept down (and sideways) onto flat ground, in `N`: the first
/// contact is where the lowest point reaches the ground, a time known
/// exactly from the scene; the sweep stops within 16 ε of the local size
/// (the shape's box and the motion) of it, never past it, with the
/// ground's normal and a point on the ground under the lowest point.
fn shapes_swept_down_stop_at_the_exact_time<N: geom::Real + Into<f64>>(
    kinds: &[&str],
    normal_tolerance: f64,
) {
    let table = geom::default_dispatcher::<N>();
    let n = |x: f64| nalgebra::convert::<f64, N>(x);
    let ground = HeightField::try_from_desc(HeightFieldDesc::new(
        Point3::new(n(0.0), n(LEVEL), n(0.0)),
        [n(1.0), n(1.0)],
        SIZE,
        SIZE,
        vec![n(0.0); SIZE * SIZE],
    ))
    .unwrap();
    let id = Isometry3::identity();
    let epsilon: f64 = N::default_epsilon().into();
    let mut rng = Rng::from_state(0x3C6E_F372_FE94_F82B);
    for k in 0..poses() {
        let radius = rng.range(0.05, 0.6);
        let length = rng.range(0.0, 3.0);
        // Any tilt, lying flat one pose in four.
        let tilt = if k % 4 == 0 { 0.0 } else { rng.range(-1.5, 1.5) };
        let yaw = rng.range(0.0, 6.3);
        let axis = Vector3::new(yaw.cos() * tilt.cos(), tilt.sin(), yaw.sin() * tilt.cos()) * (0.5 * length);
        // Clear of the ground by up to 5 (the box's corners reach
        // farthest).
        let reach = (2.0 * radius * radius + (0.5 * length + radius).powi(2)).sqrt();
        let center = Vector3::new(
            rng.range(4.0, 12.0),
            LEVEL + reach + rng.range(1e-3, 5.0),
            rng.range(4.0, 12.0),
        );
        // Deep enough for every shape: none has its lowest point above
        // its centre.
        let fall = (center.y - LEVEL) * rng.range(1.0, 3.0);
        let motion64 = Vector3::new(rng.range(-1.0, 1.0), -fall, rng.range(-1.0, 1.0));
        let rotation = nalgebra::UnitQuaternion::rotation_between(&Vector3::y(), &axis)
            .unwrap_or_else(nalgebra::UnitQuaternion::identity);
        let pose: Isometry3<N> = nalgebra::convert(Isometry3::from_parts(center.into(), rotation));
        let motion: Vector3<N> = motion64.map(n);
        // The scene as `N` holds it, in f64 for the exact answer.
        let pose64 = Isometry3::from_parts(
            Translation3::from(pose.translation.vector.map(|c| c.into())),
            nalgebra::UnitQuaternion::new_unchecked(nalgebra::Quaternion::from(
                pose.rotation.coords.map(|c| c.into()),
            )),
        );
        let motion64: Vector3<f64> = motion.map(|c| c.into());
        let half_length = n(0.5 * length);
        let r = n(radius);
        let shapes = |half_length: f64, r: f64| -> Vec<(&str, Box<dyn Shape<f64>>)> {
            let (bottom, top) = (
                Point3::new(0.0, -half_length, 0.0),
                Point3::new(0.0, half_length, 0.0),
            );
            vec![
                ("capsule", Box::new(Capsule::from_points(bottom, top, r))),
                ("sphere", Box::new(Sphere::new(r))),
                ("box", Box::new(Cuboid::new(Vector3::new(r, half_length + r, r)))),
                (
                    "cylinder",
                    Box::new(Cylinder::from_points(
                        bottom - Vector3::y() * r,
                        top + Vector3::y() * r,
                        r,
                    )),
                ),
            ]
        };
        let shapes64 = shapes(half_length.into(), r.into());
        let (bottom, top) = (
            Point3::new(n(0.0), -half_length, n(0.0)),
            Point3::new(n(0.0), half_length, n(0.0)),
        );
        let capsule = Capsule::from_points(bottom, top, r);
        let sphere = Sphere::new(r);
        let cuboid = Cuboid::new(Vector3::new(r, half_length + r, r));
        let cylinder = Cylinder::from_points(bottom - Vector3::y() * r, top + Vector3::y() * r, r);
        for &kind in kinds {
            let shape: &dyn Shape<N> = match kind {
                "capsule" => &capsule,
                "sphere" => &sphere,
                "box" => &cuboid,
                "cylinder" => &cylinder,
                _ => unreachable!(),
            };
            let shape64 = &shapes64.iter().find(|(name, _)| *name == kind).unwrap().1;
            let lowest = shape64.support(&pose64, &-Vector3::y()).unwrap();
            let exact = (lowest.y - LEVEL) / -motion64.y;
            let context = format!(
                "{kind} {k}: radius {radius} length {length} tilt {tilt} at {center:?} by {motion64:?}"
            );
            let hit = geom::sweep_shape(shape, &pose, &motion, &ground, &id, &table)
                .unwrap()
                .unwrap_or_else(|| panic!("{context}: no hit"));
            let toi: f64 = hit.toi.into();
            let aabb = shape.aabb(&pose);
            let size: f64 = (aabb.maxs - aabb.mins).norm().into();
            let local = size + motion64.norm();
            // The gap left along the ground's normal (the sweep stops
            // when the shapes are within its tolerance; the positions
            // themselves carry ε of their size).
            let gap = (toi - exact) * -motion64.y;
            assert!(
                gap.abs() <= 16.0 * epsilon * local + 4.0 * epsilon * center.norm(),
                "{context}: toi {toi} vs {exact} (gap {:e} ε·local)",
                gap / (epsilon * local)
            );
            let normal: Vector3<f64> = hit.normal.map(|c| c.into());
            assert!(
                (normal - up()).norm() <= normal_tolerance,
                "{context}: normal {normal:?}"
            );
            let point_y: f64 = hit.point.y.into();
            assert!(
                (point_y - LEVEL).abs() <= 16.0 * epsilon * local,
                "{context}: point {:?}",
                hit.point
            );
        }
    }
}

#[test]
fn shapes_swept_down_onto_flat_ground_stop_at_the_exact_time_f64() {
    shapes_swept_down_stop_at_the_exact_time::<f64>(&["capsule", "sphere", "box", "cylinder"], 1e-9);
}

#[test]
fn shapes_swept_down_onto_flat_ground_stop_at_the_exact_time_f32() {
    shapes_swept_down_stop_at_the_exact_time::<f32>(&["capsule", "sphere", "box", "cylinder"], 1e-5);
}

/// Shapes that start sunk into flat ground and move further in: the hit is
/// at `toi = 0` with the deepest penetration's normal (the ground's) and a
/// point on the ground (Jolt: "deepest penetration at fraction 0"), not a
/// grid vertex.
#[test]
fn shapes_starting_in_the_ground_report_the_deepest_penetration() {
    let table = geom::default_dispatcher::<f64>();
    let ground = flat(SIZE, LEVEL);
    let id = Isometry3::identity();
    let mut rng = Rng::from_state(0xA54F_F53A_5F1D_36F1);
    for k in 0..poses() {
        let radius = rng.range(0.1, 0.6);
        let half_length = rng.range(0.0, 1.0);
        let depth = rng.range(0.01, 0.9) * radius;
        let yaw = rng.range(0.0, 6.3);
        // Lying flat (its axis along the ground) so the deepest part is a
        // whole line or face, or standing.
        let lying = k % 2 == 0;
        let rotation = if lying {
            nalgebra::UnitQuaternion::from_scaled_axis(Vector3::y() * yaw)
                * nalgebra::UnitQuaternion::from_scaled_axis(Vector3::z() * std::f64::consts::FRAC_PI_2)
        } else {
            nalgebra::UnitQuaternion::from_scaled_axis(Vector3::y() * yaw)
        };
        let (bottom, top) = (
            Point3::new(0.0, -half_length, 0.0),
            Point3::new(0.0, half_length, 0.0),
        );
        let capsule = Capsule::from_points(bottom, top, radius);
        let sphere = Sphere::new(radius);
        let cuboid = Cuboid::new(Vector3::new(radius, half_length + radius, radius));
        let cylinder = Cylinder::from_points(
            bottom - Vector3::y() * radius,
            top + Vector3::y() * radius,
            radius,
        );
        let motion = Vector3::new(rng.range(-0.5, 0.5), -rng.range(0.1, 1.0), rng.range(-0.5, 0.5));
        let (x, z) = (rng.range(4.0, 12.0), rng.range(4.0, 12.0));
        for (name, shape) in [
            ("capsule", &capsule as &dyn Shape<f64>),
            ("sphere", &sphere),
            ("box", &cuboid),
            ("cylinder", &cylinder),
        ] {
            let probe = Isometry3::from_parts(Translation3::new(x, 0.0, z), rotation);
            let lowest = shape.support(&probe, &-Vector3::y()).unwrap().y;
            let pose = Isometry3::from_parts(Translation3::new(x, LEVEL - lowest - depth, z), rotation);
            let context = format!("{name} {k}: depth {depth} at {pose:?}");
            let hit = geom::sweep_shape(shape, &pose, &motion, &ground, &id, &table)
                .unwrap()
                .unwrap_or_else(|| panic!("{context}: no hit"));
            assert_eq!(hit.toi, 0.0, "{context}");
            assert!(
                (hit.normal - up()).norm() <= 1e-9,
                "{context}: normal {:?}",
                hit.normal
            );
            assert!(
                (hit.point.y - LEVEL).abs() <= 1e-9,
                "{context}: point {:?}",
                hit.point
            );
            // Under the shape: the point is within the shape's outline
            // seen from above (its distance to the shape is the depth at
            // most, along the normal).
            let distance = shape.distance(&pose, &hit.point).unwrap();
            assert!(
                distance <= 1e-9,
                "{context}: point {:?} outside the shape ({distance})",
                hit.point
            );
        }
    }
}
