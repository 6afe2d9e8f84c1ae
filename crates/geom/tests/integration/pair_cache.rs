//! A pair's cache never changes an answer: 200-frame trajectories of
//! boxes, cylinders, cones, ellipsoids and hulls resting, sliding and
//! rolling over a rolling heightfield and the same surface as a mesh, in
//! both argument orders, in `f64` and `f32`, each frame's cached contacts
//! against the table's own, bit for bit; and the cache is used (most
//! frames warm).

use geom::prelude::*;
use geom::{PairCache, contact_cached};

fn height(x: f64, z: f64) -> f64 {
    0.8 * (0.35 * x).sin() * (0.3 * z).cos() + 0.3 * (0.9 * x + 0.7 * z).sin()
}

/// The ground as a heightfield and as a mesh of the same triangles.
fn grounds<N: Real>() -> (HeightField<N>, TriMesh<N>) {
    let n = 33;
    let half = (n - 1) as f64 * 0.25;
    let at = |k: usize| -half + k as f64 * 0.5;
    let heights: Vec<N> = (0..n * n)
        .map(|k| nalgebra::convert(height(at(k / n), at(k % n))))
        .collect();
    let field = HeightField::try_from_desc(HeightFieldDesc::new(
        Point3::new(nalgebra::convert(-half), N::zero(), nalgebra::convert(-half)),
        [nalgebra::convert(0.5); 2],
        n,
        n,
        heights,
    ))
    .unwrap();
    let vertices: Vec<Point3<N>> = (0..n * n).map(|k| field.sample_point(k / n, k % n)).collect();
    let v = |i: usize, j: usize| (i * n + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            indices.push([v(i, j), v(i + 1, j + 1), v(i + 1, j)]);
            indices.push([v(i, j), v(i, j + 1), v(i + 1, j + 1)]);
        }
    }
    (field, TriMesh::new(vertices, indices).unwrap())
}

fn shapes<N: Real>() -> Vec<(&'static str, Box<dyn Shape<N>>)> {
    let p = |x: f64, y: f64, z: f64| {
        Point3::new(nalgebra::convert(x), nalgebra::convert(y), nalgebra::convert(z))
    };
    let corners: Vec<Point3<N>> = [
        (0.4, 0.2, 0.1),
        (-0.3, 0.25, 0.2),
        (0.1, -0.3, 0.3),
        (-0.2, -0.2, -0.35),
        (0.3, 0.1, -0.3),
        (0.0, 0.35, -0.1),
    ]
    .iter()
    .map(|&(x, y, z)| p(x, y, z))
    .collect();
    vec![
        ("box", Box::new(Cuboid::new(p(0.4, 0.25, 0.3).coords))),
        (
            "cylinder",
            Box::new(Cylinder::from_points(
                p(0.0, -0.4, 0.0),
                p(0.0, 0.4, 0.0),
                nalgebra::convert(0.3),
            )),
        ),
        (
            "cone",
            Box::new(Cone::from_points(
                p(0.0, 0.6, 0.0),
                p(0.0, -0.2, 0.0),
                nalgebra::convert(0.35),
            )),
        ),
        ("ellipsoid", Box::new(Ellipsoid::new(p(0.45, 0.25, 0.3).coords))),
        ("hull", Box::new(ConvexHull::new(&corners).unwrap())),
    ]
}

/// The pose of frame `k` of trajectory `motion` for a shape whose lowest
/// point sits near the ground: resting (a hair of jitter), sliding along x,
/// or rolling about z while moving.
fn pose<N: Real>(motion: usize, k: usize, lowest: f64) -> Isometry3<N> {
    let k = k as f64;
    let (x, z, angle) = match motion {
        0 => (0.7 + 1e-6 * (k * 1.7).sin(), -0.4 + 1e-6 * (k * 2.3).cos(), 0.3),
        1 => (-3.0 + 0.012 * k, 0.9, 0.2),
        _ => (-2.0 + 0.004 * k, -1.1 + 0.002 * k, 0.6 + 0.008 * k),
    };
    let y = height(x, z) - lowest - 0.01;
    Isometry3::from_parts(
        Translation3::new(nalgebra::convert(x), nalgebra::convert(y), nalgebra::convert(z)),
        UnitQuaternion::from_scaled_axis(Vector3::new(
            N::zero(),
            nalgebra::convert(0.3),
            nalgebra::convert(angle),
        )),
    )
}

fn warm_equals_cold<N: Real>() {
    let table = geom::default_dispatcher::<N>();
    let (field, mesh) = grounds::<N>();
    let surfaces: [(&str, &dyn Shape<N>); 2] = [("heightfield", &field), ("mesh", &mesh)];
    let (mut warm, mut cold) = (ContactManifolds::new(), ContactManifolds::new());
    let margin = nalgebra::convert(0.05);
    let identity = Isometry3::identity();
    for (surface_name, surface) in surfaces {
        for (shape_name, shape) in shapes::<N>() {
            // How far below the origin the shape reaches at the trajectory's rotation.
            for motion in 0..3 {
                let probe: Isometry3<N> = pose(motion, 0, 0.0);
                let lowest = shape
                    .support(
                        &Isometry3::from_parts(Translation3::identity(), probe.rotation),
                        &-Vector3::y(),
                    )
                    .unwrap()
                    .y;
                let lowest: f64 = nalgebra::try_convert(lowest).unwrap();
                for swapped in [false, true] {
                    let mut cache = PairCache::new();
                    let mut points = 0;
                    for k in 0..200 {
                        let at = pose::<N>(motion, k, lowest);
                        let context = format!(
                            "{surface_name}-{shape_name} motion {motion} frame {k} swapped {swapped}"
                        );
                        if swapped {
                            contact_cached(
                                &table,
                                shape.as_ref(),
                                &at,
                                surface,
                                &identity,
                                margin,
                                &mut cache,
                                &mut warm,
                            )
                            .unwrap();
                            table
                                .contact(shape.as_ref(), &at, surface, &identity, margin, &mut cold)
                                .unwrap();
                        } else {
                            contact_cached(
                                &table,
                                surface,
                                &identity,
                                shape.as_ref(),
                                &at,
                                margin,
                                &mut cache,
                                &mut warm,
                            )
                            .unwrap();
                            table
                                .contact(surface, &identity, shape.as_ref(), &at, margin, &mut cold)
                                .unwrap();
                        }
                        assert_eq!(warm.as_slice(), cold.as_slice(), "{context}");
                        points += cold.points().count();
                    }
                    assert!(
                        points > 100,
                        "{surface_name}-{shape_name} motion {motion}: {points} points"
                    );
                    let (warm_frames, cold_frames) = cache.near_triangles().warm_and_cold();
                    assert!(
                        warm_frames >= 100,
                        "{surface_name}-{shape_name} motion {motion}: {warm_frames} warm, {cold_frames} cold"
                    );
                }
            }
        }
    }
}

#[test]
fn cached_contacts_equal_the_tables_over_trajectories_in_f64() {
    warm_equals_cold::<f64>();
}

#[test]
fn cached_contacts_equal_the_tables_over_trajectories_in_f32() {
    warm_equals_cold::<f32>();
}

#[test]
fn a_table_without_the_surface_routines_refuses_the_pair_cached_too() {
    // The primitives' table alone has no heightfield or mesh routine: the
    // cached query refuses what the table refuses.
    let mut table = geom::base::dispatch::DispatchTable::<f64>::new();
    geom::prims::contact::register_pairs(&mut table);
    let (field, mesh) = grounds::<f64>();
    let crate_ = Cuboid::new(Vector3::new(0.5, 0.5, 0.5));
    let pose = Isometry3::translation(0.3, 0.49, 0.2);
    let id = Isometry3::identity();
    for surface in [&field as &dyn Shape<f64>, &mesh] {
        let mut out = ContactManifolds::new();
        let expected = table.contact(surface, &id, &crate_, &pose, 0.05, &mut out);
        assert!(
            matches!(expected, Err(GeomError::Unsupported { .. })),
            "{expected:?}"
        );
        let mut cache = PairCache::new();
        let cached = contact_cached(&table, surface, &id, &crate_, &pose, 0.05, &mut cache, &mut out);
        assert_eq!(cached, expected);
        let swapped = contact_cached(&table, &crate_, &pose, surface, &id, 0.05, &mut cache, &mut out);
        assert!(
            matches!(swapped, Err(GeomError::Unsupported { .. })),
            "{swapped:?}"
        );
    }
}

/// Repeated inputs are answered from the cache, and only repeated inputs:
/// every pose issued twice in a row over the trajectories, then the same
/// poses with another shape of the same kind, another margin, a `-0.0`
/// for a `0.0` and a NaN pose; each answer against the table's own.
fn repeats_answer_as_the_table<N: Real>() {
    let table = geom::default_dispatcher::<N>();
    let (field, mesh) = grounds::<N>();
    let ball = Sphere::new(nalgebra::convert(0.3));
    let mut pool: Vec<(&str, Box<dyn Shape<N>>)> = shapes::<N>();
    pool.push(("ball", Box::new(ball)));
    let identity = Isometry3::identity();
    let margin: N = nalgebra::convert(0.05);
    let (mut warm, mut cold) = (ContactManifolds::new(), ContactManifolds::new());
    let mut check = |a: &dyn Shape<N>,
                     pose_a: &Isometry3<N>,
                     b: &dyn Shape<N>,
                     pose_b: &Isometry3<N>,
                     margin: N,
                     cache: &mut PairCache<N>,
                     context: &str| {
        let cached = contact_cached(&table, a, pose_a, b, pose_b, margin, cache, &mut warm);
        let expected = table.contact(a, pose_a, b, pose_b, margin, &mut cold);
        assert_eq!(cached, expected, "{context}");
        if expected.is_ok() {
            assert_eq!(warm.as_slice(), cold.as_slice(), "{context}");
            assert_eq!(warm.is_approximate(), cold.is_approximate(), "{context}");
        }
        cold.points().count()
    };
    let surfaces: [&dyn Shape<N>; 2] = [&field, &mesh];
    for (name, shape) in &pool {
        // Against each surface and against every shape of the pool, held
        // at a pose touching it.
        let mut others: Vec<(&dyn Shape<N>, Isometry3<N>)> =
            surfaces.iter().map(|&s| (s, identity)).collect();
        for (_, other) in &pool {
            others.push((other.as_ref(), pose(1, 100, 0.6)));
        }
        for (o, (other, other_pose)) in others.iter().enumerate() {
            let context = format!("{name} against other {o}");
            let mut cache = PairCache::new();
            // `other` first, then `moved` at `at`, or (`swapped`) the
            // other way round.
            let mut query =
                |moved: &dyn Shape<N>, at: &Isometry3<N>, margin: N, cache: &mut PairCache<N>, swapped| {
                    if swapped {
                        check(moved, at, *other, other_pose, margin, cache, &context)
                    } else {
                        check(*other, other_pose, moved, at, margin, cache, &context)
                    }
                };
            let mut points = 0;
            for k in 0..40 {
                let at = pose::<N>(1, 100 + k / 2, 0.3);
                points += query(shape.as_ref(), &at, margin, &mut cache, false);
            }
            assert!(points > 0, "{context}: never in contact");
            assert_eq!(cache.repeats(), 20, "{context}");
            let at = pose::<N>(1, 119, 0.3);
            // Another shape of the same kind, at the same poses.
            let bigger = Sphere::new(nalgebra::convert(0.31));
            let replacement: Box<dyn Shape<N>> = if shape.kind() == ShapeKind::Sphere {
                Box::new(bigger)
            } else {
                shapes::<N>().into_iter().find(|(n, _)| n == name).unwrap().1
            };
            query(replacement.as_ref(), &at, margin, &mut cache, false);
            query(
                shape.as_ref(),
                &at,
                margin * nalgebra::convert(2.0),
                &mut cache,
                false,
            );
            // The other order is another query.
            query(shape.as_ref(), &at, margin, &mut cache, true);
            assert_eq!(cache.repeats(), 20, "{context}");
            // A negative zero differs from a zero bit for bit.
            let mut signed = at;
            signed.translation.vector.z = N::zero();
            query(shape.as_ref(), &signed, margin, &mut cache, false);
            signed.translation.vector.z = -N::zero();
            query(shape.as_ref(), &signed, margin, &mut cache, false);
            assert_eq!(cache.repeats(), 20, "{context}");
            // A NaN pose is refused every time, and an error is not kept.
            let mut bad = at;
            bad.translation.vector.x = N::from_f64(f64::NAN).unwrap();
            for _ in 0..2 {
                query(shape.as_ref(), &bad, margin, &mut cache, false);
            }
            query(shape.as_ref(), &at, margin, &mut cache, false);
            query(shape.as_ref(), &at, margin, &mut cache, false);
            assert_eq!(cache.repeats(), 21, "{context}");
            cache.clear();
            query(shape.as_ref(), &at, margin, &mut cache, false);
            assert_eq!(cache.repeats(), 21, "{context}");
        }
    }
}

#[test]
fn repeated_queries_answer_as_the_table_in_f64() {
    repeats_answer_as_the_table::<f64>();
}

#[test]
fn repeated_queries_answer_as_the_table_in_f32() {
    repeats_answer_as_the_table::<f32>();
}
