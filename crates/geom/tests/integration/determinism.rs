//! The same inputs give bitwise-identical outputs: run twice in one
//! process, ray casts, closest points, contacts, sweeps and slides agree
//! bit for bit (no hidden state, no order-dependent caches), and the
//! parallel batch is independent of the thread count.
//!
//! Scalar against lane paths of the same precision are checked per shape
//! in geom-prims (`lanes_equal_scalar` in each shape's tests, through
//! `test_support::assert_lanes_match_scalar`) and for the batch entry
//! points in `batch.rs` (`batch_equals_scalar_*`,
//! `tails_of_every_length`, `packets_equal_the_trait_calls`); the fuzz
//! target `batch` checks the same on arbitrary inputs.

use geom::prelude::*;
use geom::prims::sweep::MovingShape;
use geom::{CharacterConfig, CharacterController, Obstacle, sweep_obstacles, sweep_shape};
#[cfg(feature = "parallel")]
use geom::{HitBatch, RayBatch};
use geom_random::Rng;

/// Each coordinate uniform in `[-1, 1)`, times `scale`.
fn symmetric(rng: &mut Rng, scale: f64) -> Vector3<f64> {
    Vector3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * scale
}

fn scene() -> Vec<(Box<dyn Shape<f64>>, Isometry3<f64>)> {
    let p = Point3::new;
    let field = HeightField::new(
        p(-4.0, -1.0, -4.0),
        [2.0, 2.0],
        5,
        5,
        (0..25).map(|k| ((k * 7) % 5) as f64 * 0.3).collect(),
    );
    let turned = |x: f64| Isometry3::new(Vector3::new(x, 0.5, -x), Vector3::new(0.3, -0.7, 1.1));
    vec![
        (Box::new(Sphere::new(1.0)), turned(0.0)),
        (
            Box::new(Capsule::from_points(p(0.0, -1.0, 0.0), p(0.0, 1.0, 0.0), 0.5)),
            turned(1.0),
        ),
        (
            Box::new(Cylinder::from_points(p(0.0, -1.0, 0.0), p(0.0, 1.0, 0.0), 0.7)),
            turned(-1.0),
        ),
        (
            Box::new(Cone::from_points(p(0.0, 1.0, 0.0), p(0.0, -1.0, 0.0), 0.8)),
            turned(2.0),
        ),
        (
            Box::new(Ellipsoid::new(Vector3::new(1.5, 0.5, 0.8))),
            turned(-2.0),
        ),
        (Box::new(Cuboid::new(Vector3::new(0.5, 1.0, 1.5))), turned(0.5)),
        (
            Box::new(HalfSpace::new(Vector3::new(0.1, 1.0, 0.2), -2.0)),
            Isometry3::identity(),
        ),
        (
            Box::new(Triangle::new(
                p(-1.0, 0.0, -1.0),
                p(1.0, 0.2, -1.0),
                p(0.0, 0.1, 1.5),
            )),
            turned(-0.5),
        ),
        (
            Box::new(Segment::new(p(-1.0, 0.0, 0.0), p(1.0, 0.5, 0.0))),
            turned(1.5),
        ),
        (Box::new(field), Isometry3::identity()),
    ]
}

/// Every answer of every query on the scene, as bits.
fn all_answers() -> Vec<u64> {
    let mut bits = Vec::new();
    let mut push = |values: &[f64]| bits.extend(values.iter().map(|v| v.to_bits()));
    let scene = scene();
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::from_state(0x5eed);
    for (shape, pose) in &scene {
        for _ in 0..200 {
            let ray = Ray::new(Point3::from(symmetric(&mut rng, 4.0)), symmetric(&mut rng, 1.0));
            for solid in [true, false] {
                match shape.ray_cast(pose, &ray, 10.0, solid) {
                    Some(hit) => push(&[hit.t, hit.normal.x, hit.normal.y, hit.normal.z]),
                    None => push(&[f64::NAN]),
                }
                match shape.closest_point(pose, &ray.origin, solid) {
                    Some(p) => push(&[p.point.x, p.point.y, p.point.z, f64::from(u8::from(p.is_inside))]),
                    None => push(&[f64::NAN]),
                }
            }
        }
    }
    let mut contacts = ContactManifolds::new();
    for (a, pose_a) in &scene {
        for (b, pose_b) in &scene {
            match table.contact(a.as_ref(), pose_a, b.as_ref(), pose_b, 0.25, &mut contacts) {
                Ok(()) => {
                    for (normal, point) in contacts.points() {
                        push(&[
                            normal.x,
                            normal.y,
                            normal.z,
                            point.depth,
                            point.point_a.x,
                            point.point_b.z,
                        ]);
                    }
                }
                Err(_) => push(&[f64::NAN]),
            }
            if let Ok(distance) = table.distance(a.as_ref(), pose_a, b.as_ref(), pose_b) {
                push(&[distance]);
            }
            let motion = Vector3::new(0.7, -1.3, 0.4);
            if let Ok(Some(hit)) = sweep_shape(a.as_ref(), pose_a, &motion, b.as_ref(), pose_b, &table) {
                push(&[hit.toi, hit.normal.x, hit.point.y]);
            }
        }
    }
    let obstacles: Vec<Obstacle<'_, f64>> = scene
        .iter()
        .skip(1)
        .map(|(shape, pose)| Obstacle::Shape {
            shape: shape.as_ref(),
            pose: *pose,
        })
        .collect();
    let body = MovingShape::Capsule {
        a: Point3::new(-3.0, 2.0, 3.0),
        b: Point3::new(-3.0, 3.0, 3.0),
        radius: 0.4,
    };
    if let Ok(Some((index, hit))) = sweep_obstacles(&body, &Vector3::new(5.0, -4.0, -5.0), &obstacles, &table)
    {
        push(&[index as f64, hit.toi, hit.normal.y]);
    }
    let mut character = CharacterController::new(body, CharacterConfig::new(1e-3));
    for step in 0..20 {
        let walk = Vector3::new(0.3, 0.0, -0.3 + 0.02 * step as f64);
        let contacts = character
            .step(&walk, &Vector3::new(0.0, -0.2, 0.0), &obstacles, &table)
            .unwrap_or(usize::MAX);
        let position = character.position();
        push(&[contacts as f64, position.x, position.y, position.z]);
    }
    bits
}

#[test]
fn repeated_runs_give_the_same_bits() {
    let first = all_answers();
    assert!(first.len() > 10_000, "{}", first.len());
    for _ in 0..2 {
        assert!(
            all_answers() == first,
            "a query answered differently on a repeated run"
        );
    }
}

/// The same scene answered from two threads at once equals the answers of
/// one thread (no shared mutable state in the table or the shapes).
#[test]
fn concurrent_runs_give_the_same_bits() {
    let alone = all_answers();
    let (left, right) = std::thread::scope(|scope| {
        let left = scope.spawn(all_answers);
        let right = scope.spawn(all_answers);
        (left.join().unwrap(), right.join().unwrap())
    });
    assert!(left == alone && right == alone);
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_batch_in_f64_is_independent_of_the_thread_count_and_the_run() {
    let shape = Ellipsoid::new(Vector3::new(1.5, 0.5, 0.8));
    let pose = Isometry3::new(Vector3::new(1.0, -2.0, 0.5), Vector3::new(0.3, -0.7, 1.1));
    let mut rng = Rng::from_state(7);
    // Not a multiple of the task size (16 k) or of the lanes (4).
    let rays: Vec<Ray<f64>> = (0..50_001)
        .map(|_| Ray::new(Point3::from(symmetric(&mut rng, 3.0)), symmetric(&mut rng, 1.0)))
        .collect();
    let rays = RayBatch::from_rays(&rays);
    let cast = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut out = HitBatch::new();
        pool.install(|| geom::par_ray_cast_batch(&shape, &pose, &rays, 8.0, true, &mut out));
        out
    };
    let bits = |batch: &HitBatch<f64>| -> Vec<u64> {
        batch
            .iter()
            .flat_map(|hit| match hit {
                Some(hit) => vec![
                    hit.t.to_bits(),
                    hit.normal.x.to_bits(),
                    hit.normal.y.to_bits(),
                    hit.normal.z.to_bits(),
                ],
                None => vec![u64::MAX],
            })
            .collect()
    };
    let one = bits(&cast(1));
    for threads in [2, 1, 2] {
        assert!(bits(&cast(threads)) == one, "{threads} threads");
    }
    let mut single = HitBatch::new();
    geom::ray_cast_batch(&shape, &pose, &rays, 8.0, true, &mut single);
    assert!(bits(&single) == one);
}
