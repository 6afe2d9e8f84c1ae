//! The interop features as a user calls them, each against an independent
//! answer: the batch against the surface height under each ray and the
//! scalar trait call; JSON against the values' bits; glam and mint
//! against the components.

use geom::base::dispatch::DispatchTable;
use geom::glam::{DQuat, DVec3, Quat, Vec3};
use geom::prelude::*;
use geom::{ContactManifolds, default_dispatcher};
use geom_interop_example::{cast, from_json, grid_rays, scene, terrain, to_json};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Two values print alike under `Debug` exactly when their floats have the
/// same bits: Rust prints the shortest decimal that reads back to the same
/// float, and `-0.0` as `-0.0` (no NaN appears in these values).
fn same_bits<T: std::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// A contact buffer keeps spare storage its `Debug` shows: compare the
/// manifolds it holds.
fn round_trip_manifolds(manifolds: &ContactManifolds<f32>) {
    let json = serde_json::to_string(manifolds).unwrap();
    let read: ContactManifolds<f32> = serde_json::from_str(&json).unwrap();
    assert!(same_bits(&read.as_slice(), &manifolds.as_slice()), "{json}");
    assert_eq!(read.is_approximate(), manifolds.is_approximate());
}

fn round_trip<T: Serialize + DeserializeOwned + std::fmt::Debug>(value: &T) -> T {
    let json = serde_json::to_string(value).unwrap();
    let read: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert!(
        same_bits(value, &read),
        "{value:?} became {read:?} through {json}"
    );
    read
}

#[test]
fn a_batch_of_rays_lands_on_the_surface_under_each_ray() {
    let field = terrain();
    let rays = grid_rays(100_000);
    let hits = cast(&field, &rays);
    assert_eq!(hits.len(), 100_000);
    let mut through_holes = 0;
    for (i, hit) in hits.iter().enumerate() {
        let ray = rays.get(i);
        // The batch is the trait call, bit for bit.
        let scalar = field.ray_cast(&Isometry3::identity(), &ray, f32::MAX, true);
        assert!(same_bits(&hit, &scalar), "ray {i}: {hit:?} vs {scalar:?}");
        // Straight down from y = 10: the hit is at the surface height under
        // the ray (the interpolated triangle, in f64 from the samples), or
        // the ray is over a hole.
        match (hit, field.surface_y_at(ray.origin.x, ray.origin.z)) {
            (Some(hit), Some(y)) => {
                let exact = interpolated_height(&field, ray.origin.x as f64, ray.origin.z as f64);
                let landed = (10.0 - hit.t) as f64;
                assert!(
                    (landed - exact).abs() <= 4e-6,
                    "ray {i}: landed at {landed}, surface {exact}"
                );
                assert!((y as f64 - exact).abs() <= 4e-6);
                assert!(hit.normal.y > 0.0 && (hit.normal.norm() - 1.0).abs() < 1e-6);
            }
            (None, None) => through_holes += 1,
            (hit, y) => panic!("ray {i}: {hit:?} over surface {y:?}"),
        }
    }
    assert!(
        through_holes > 0 && through_holes < 100,
        "{through_holes} rays over holes"
    );
    // The parallel batch answers the same.
    let mut parallel = geom::HitBatch::new();
    geom::par_ray_cast_batch(
        &field,
        &Isometry3::identity(),
        &rays,
        f32::MAX,
        true,
        &mut parallel,
    );
    assert!(same_bits(&parallel, &hits));
}

/// The surface height at `(x, z)` from the samples, in f64: the cell's
/// triangle on its side of the diagonal `(i, j)–(i+1, j+1)`.
fn interpolated_height(field: &HeightField<f32>, x: f64, z: f64) -> f64 {
    let (origin, [dx, dz]) = (field.origin(), field.cell_size());
    let u = (x - origin.x as f64) / dx as f64;
    let v = (z - origin.z as f64) / dz as f64;
    let (i, j) = (u.floor() as usize, v.floor() as usize);
    let (fu, fv) = (u - i as f64, v - j as f64);
    let h = |i: usize, j: usize| field.heights()[i * field.cols() + j] as f64;
    assert!(!field.is_flipped(field.cell_index(i, j)));
    let (h00, h10, h01, h11) = (h(i, j), h(i + 1, j), h(i, j + 1), h(i + 1, j + 1));
    origin.y as f64
        + if fu >= fv {
            h00 + fu * (h10 - h00) + fv * (h11 - h10)
        } else {
            h00 + fv * (h01 - h00) + fu * (h11 - h01)
        }
}

#[test]
fn the_scene_reads_back_bit_for_bit_and_answers_alike() {
    let scene = scene();
    let json = to_json(&scene);
    let read = from_json(&json).unwrap();
    assert!(same_bits(&read, &scene));
    assert_eq!(read.terrain.to_desc(), scene.terrain.to_desc());
    // The rebuilt terrain (block ranges, active edges) answers the same
    // rays and contacts.
    let rays = grid_rays(10_000);
    assert!(same_bits(
        &cast(&read.terrain, &rays),
        &cast(&scene.terrain, &rays)
    ));
    let table = default_dispatcher::<f32>();
    for (before, after) in scene.bodies.iter().zip(&read.bodies) {
        assert!(same_bits(
            &contacts(&table, &scene.terrain, before),
            &contacts(&table, &read.terrain, after)
        ));
    }
    // The bodies were dropped to 1 mm above the ground; their contacts
    // within a 1 cm margin read back bit for bit too.
    for body in &scene.bodies {
        let gap = table
            .distance(
                &scene.terrain,
                &Isometry3::identity(),
                body.shape.as_shape(),
                &body.pose,
            )
            .unwrap();
        assert!((gap - 1e-3).abs() < 1e-5, "{}: {gap} above the ground", body.name);
        round_trip_manifolds(&contacts(&table, &scene.terrain, body));
    }
}

fn contacts(
    table: &DispatchTable<f32>,
    field: &HeightField<f32>,
    body: &geom_interop_example::Body,
) -> ContactManifolds<f32> {
    let shape = body.shape.as_shape();
    let mut out = ContactManifolds::new();
    table
        .contact(field, &Isometry3::identity(), shape, &body.pose, 0.01, &mut out)
        .unwrap();
    out
}

#[test]
fn every_serialisable_type_reads_back_bit_for_bit() {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    round_trip(&Sphere::new(0.1f64));
    round_trip(&Capsule::from_points(
        p(1e-300, -0.0, 3.0),
        p(-1.0, 2.0, 1e300),
        0.25,
    ));
    round_trip(&Cylinder::from_points(
        p(0.1, 0.2, 0.3),
        p(0.4, 0.5, 0.6),
        1.0 / 3.0,
    ));
    round_trip(&Cone::from_points(p(0.0, 1.0, 0.0), p(0.0, -1.0, 0.0), 0.7));
    round_trip(&Ellipsoid::new(Vector3::new(0.5f32, 1.0 / 3.0, 2.0)));
    round_trip(&Cuboid::new(Vector3::new(1.0f32 / 7.0, 2.0, 3.0)));
    let half_space = round_trip(&HalfSpace::new(Vector3::new(0.0f32, 3.0, 4.0), -1.5));
    assert_eq!(half_space.unit_normal(), Vector3::new(0.0, 0.6, 0.8));
    round_trip(&Triangle::new(
        p(0.0, 0.0, 0.0),
        p(1.0, 0.0, 0.0),
        p(0.0, 1.0, 1.0 / 3.0),
    ));
    round_trip(&Segment::new(p(0.0, 0.0, 0.0), p(0.1, 0.2, 0.3)));
    round_trip(&Ray::new(
        Point3::new(0.1f32, -0.0, 1e-40),
        Vector3::new(f32::MAX, 1.0, -1.0),
    ));
    let hit = Sphere::new(1.0f32)
        .ray_cast(
            &Isometry3::identity(),
            &Ray::new(Point3::new(0.3, 0.2, -5.0), Vector3::z()),
            f32::MAX,
            true,
        )
        .unwrap();
    round_trip(&Some(hit));
    round_trip(&Aabb::new(p(-1.0, -2.0, -3.0), p(1.0, 2.0, 3.0)));
    round_trip(&Cuboid::new(Vector3::new(1.0, 2.0, 3.0)).closest_point(
        &Isometry3::identity(),
        &p(0.1, 5.0, 0.2),
        true,
    ));
    round_trip(&geom::ClosestPoints::WithinMargin {
        point_a: p(0.0, 1.0, 2.0),
        point_b: p(0.1, 1.1, 2.1),
    });
    round_trip(&geom::CharacterConfig::new(0.01f32).with_max_slope_degrees(40.0));
    round_trip(&terrain().to_desc());
    round_trip(&Isometry3::from_parts(
        Translation3::new(1e5f32, -2.0, 0.1),
        UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3),
    ));
    let mut manifolds = ContactManifolds::new();
    default_dispatcher::<f64>()
        .contact(
            &Cuboid::new(Vector3::new(1.0, 1.0, 1.0)),
            &Isometry3::identity(),
            &Cuboid::new(Vector3::new(0.5, 0.5, 0.5)),
            &Isometry3::translation(0.2, 1.4, 0.1),
            0.0,
            &mut manifolds,
        )
        .unwrap();
    assert_eq!(manifolds.points().count(), 4);
    round_trip(&manifolds);
}

#[test]
fn json_floats_read_back_exactly_in_f32_and_f64() {
    // Shortest decimals through serde_json's exact parser: every bit
    // pattern class (subnormal, normal, near the limits), xorshift-spread.
    let mut rng = geom_random::Rng::from_state(0x9E37_79B9_7F4A_7C15);
    let mut next = move || rng.next_u64();
    let mut singles = vec![f32::MAX, f32::MIN_POSITIVE, f32::from_bits(1), -0.0, f32::EPSILON];
    let mut doubles = vec![f64::MAX, f64::MIN_POSITIVE, f64::from_bits(1), -0.0, f64::EPSILON];
    for _ in 0..200_000 {
        let bits = next();
        singles.push(f32::from_bits(bits as u32));
        doubles.push(f64::from_bits(bits));
    }
    singles.retain(|x| x.is_finite());
    doubles.retain(|x| x.is_finite());
    let read: Vec<f32> = serde_json::from_str(&serde_json::to_string(&singles).unwrap()).unwrap();
    assert!(read.iter().zip(&singles).all(|(a, b)| a.to_bits() == b.to_bits()));
    let read: Vec<f64> = serde_json::from_str(&serde_json::to_string(&doubles).unwrap()).unwrap();
    assert!(read.iter().zip(&doubles).all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn invalid_documents_are_refused_with_the_value_named() {
    let error = |json: &str, message: &str| {
        let result = serde_json::from_str::<geom_interop_example::BodyShape>(json);
        let text = result.expect_err(json).to_string();
        assert!(text.contains(message), "{json}: {text}");
    };
    error(r#"{"kind": "sphere", "radius": -1.0}"#, "radius");
    error(r#"{"kind": "sphere", "radius": -1.0}"#, "-1");
    error(
        r#"{"kind": "capsule", "a": [0, 0, 0], "b": [0, 1, 0], "radius": 1e39}"#,
        "radius",
    );
    error(
        r#"{"kind": "cuboid", "half_extents": [1, -2, 3]}"#,
        "half_extents",
    );
    error(r#"{"kind": "sphere", "radius": 1.0, "radus": 2.0}"#, "radus");
    error(
        r#"{"kind": "cylinder", "p0": [0, 0, 0], "p1": [0, 0, 0], "radius": 1}"#,
        "p1",
    );
    error(r#"{"kind": "sphere"}"#, "radius");
    let mut desc = terrain().to_desc();
    desc.heights.pop();
    let json = serde_json::to_string(&desc).unwrap();
    let text = serde_json::from_str::<HeightField<f32>>(&json)
        .unwrap_err()
        .to_string();
    assert!(text.contains("heights"), "{text}");
    // A triangle edge beyond 2·max_size (in f32, 2·4.6e18), whose cross
    // products would overflow, names the vertex.
    let json = r#"{"a": [0, 0, 0], "b": [1, 0, 0], "c": [1e19, 0, 0]}"#;
    let text = serde_json::from_str::<Triangle<f32>>(json)
        .unwrap_err()
        .to_string();
    assert!(text.contains("\"c\"") || text.contains(" c "), "{text}");
}

#[test]
fn glam_and_mint_convert_both_ways_exactly() {
    let v = Vec3::new(0.1, -2.5e-39, 3.0e38);
    let vector: Vector3<f32> = v.into();
    assert_eq!((vector.x, vector.y, vector.z), (v.x, v.y, v.z));
    assert_eq!(Vec3::from(vector), v);
    let point: Point3<f32> = v.into();
    assert_eq!(Vec3::from(point), v);
    let q = Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.2);
    let rotation: UnitQuaternion<f32> = q.into();
    let [x, y, z, w] = q.to_array();
    assert_eq!((rotation.i, rotation.j, rotation.k, rotation.w), (x, y, z, w));
    assert_eq!(Quat::from(rotation), q);
    let pose: Isometry3<f32> = (v, q).into();
    assert_eq!(<(Vec3, Quat)>::from(pose), (v, q));
    // f64 alike.
    let d = DVec3::new(1.0 / 3.0, -0.0, 1e300);
    let dv: Vector3<f64> = d.into();
    assert_eq!(DVec3::from(dv), d);
    let dq = DQuat::from_rotation_z(1.1);
    assert_eq!(DQuat::from(UnitQuaternion::<f64>::from(dq)), dq);
    // A glam-placed body moves as glam says: the sphere's centre lands at
    // the glam translation.
    let placed: Isometry3<f32> = (Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.3)).into();
    let aabb = Sphere::new(0.5f32).aabb(&placed);
    assert_eq!(Vec3::from(aabb.center()), Vec3::new(1.0, 2.0, 3.0));
    // mint.
    let m = geom::mint::Vector3 {
        x: 1.0f32,
        y: 2.0,
        z: 3.0,
    };
    let vector: Vector3<f32> = m.into();
    let back: geom::mint::Vector3<f32> = vector.into();
    assert_eq!(back, m);
    let mq: geom::mint::Quaternion<f32> = rotation.into_inner().into();
    assert_eq!((mq.v.x, mq.v.y, mq.v.z, mq.s), (x, y, z, w));
}
