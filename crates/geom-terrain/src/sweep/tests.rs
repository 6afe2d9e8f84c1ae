//! Heightfield sweeps against every triangle, the table's advancement
//! against the exact sweep.

use geom_core::dispatch::DispatchTable;
use geom_prims::sweep::{MovingShape, SweepHit};
use geom_prims::{Sphere, Triangle};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};

use super::*;
use crate::TriangleId;
use crate::test_support::{TestRng, random_field};

fn random_mover(rng: &mut TestRng, centre: Point3<f64>) -> MovingShape<f64> {
    match rng.below(3) {
        0 => MovingShape::Sphere {
            center: centre,
            radius: rng.range(0.1, 0.8),
        },
        1 => {
            let half = Vector3::new(rng.range(-0.6, 0.6), rng.range(-0.6, 0.6), rng.range(-0.6, 0.6));
            MovingShape::Capsule {
                a: centre - half,
                b: centre + half,
                radius: rng.range(0.1, 0.5),
            }
        }
        _ => MovingShape::Ellipsoid {
            center: centre,
            radii: Vector3::new(rng.range(0.2, 0.9), rng.range(0.2, 0.9), rng.range(0.2, 0.9)),
            rotation: UnitQuaternion::from_scaled_axis(Vector3::new(
                rng.range(-3.0, 3.0),
                rng.range(-3.0, 3.0),
                rng.range(-3.0, 3.0),
            )),
        },
    }
}

#[test]
fn heightfield_sweep_equals_the_earliest_over_every_triangle() {
    let mut rng = TestRng::new(21);
    let mut hits = 0;
    for round in 0..30 {
        let field = random_field(&mut rng, 6 + round % 5, 5 + round % 7);
        let pose = if round % 2 == 0 {
            Isometry3::identity()
        } else {
            Isometry3::from_parts(
                Translation3::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), rng.range(-3.0, 3.0)),
                UnitQuaternion::from_scaled_axis(Vector3::new(0.3, rng.range(-2.0, 2.0), -0.2)),
            )
        };
        let extent = field.local_extent().loosened(1.0);
        for _ in 0..40 {
            let start = pose * rng.point_in(&extent);
            let end = pose * rng.point_in(&extent);
            let mover = random_mover(&mut rng, start);
            let motion = end - start;
            let hit = sweep_heightfield(&mover, &motion, &field, &pose);
            let brute = (0..2 * field.cell_count() as u32)
                .filter_map(|id| field.triangle(TriangleId(id)))
                .map(|t| Triangle::new(pose * t.a, pose * t.b, pose * t.c))
                .map(|t| mover.sweep_triangle(&motion, &t))
                .fold(None, SweepHit::earliest);
            match (hit, brute) {
                (Some(hit), Some(brute)) => {
                    assert!((hit.toi - brute.toi).abs() <= 1e-12, "{hit:?} vs {brute:?}");
                    hits += 1;
                }
                (None, None) => {}
                other => panic!("round {round}: {other:?}"),
            }
        }
    }
    assert!(hits > 300, "{hits}");
}

#[test]
fn advancement_through_the_table_stops_at_or_before_the_exact_contact() {
    let mut table = DispatchTable::new();
    geom_prims::contact::register_pairs(&mut table);
    geom_prims::gjk::install_convex_fallback(&mut table);
    crate::contact::register_pairs(&mut table);
    let mut rng = TestRng::new(8);
    let field = random_field(&mut rng, 12, 12);
    let extent = field.local_extent();
    let sphere = Sphere::new(0.4);
    let mut compared = 0;
    for _ in 0..60 {
        // Falling onto the terrain from above, slightly slanted.
        let start = Point3::new(
            rng.range(extent.mins.x + 2.0, extent.maxs.x - 2.0),
            extent.maxs.y + 1.0,
            rng.range(extent.mins.z + 2.0, extent.maxs.z - 2.0),
        );
        let motion = Vector3::new(
            rng.range(-0.5, 0.5),
            -(extent.maxs.y - extent.mins.y) - 2.0,
            rng.range(-0.5, 0.5),
        );
        let pose = Isometry3::translation(start.x, start.y, start.z);
        let identity = Isometry3::identity();
        let exact = sweep_shape(&sphere, &pose, &motion, &field, &identity, &table).unwrap();
        let tolerance = 1e-7;
        let advanced =
            sweep_shape_by_advancement(&sphere, &pose, &motion, &field, &identity, &table, tolerance)
                .unwrap();
        let (Some(exact), Some(advanced)) = (exact, advanced) else {
            // Over a hole the sphere may fall through: both must agree.
            assert_eq!(exact.is_some(), advanced.is_some());
            continue;
        };
        assert!(advanced.toi <= exact.toi + 1e-12, "{advanced:?} after {exact:?}");
        let shortfall = (exact.toi - advanced.toi) * motion.norm();
        // Conservative advancement on a non-convex target may stop early
        // when it runs out of steps; mostly it converges to the tolerance.
        if shortfall <= 10.0 * tolerance {
            compared += 1;
        }
    }
    assert!(compared > 40, "{compared}");
}

#[test]
fn obstacles_report_the_earliest_and_bad_input_nothing() {
    let table = DispatchTable::<f64>::new();
    let near = [Triangle::new(
        Point3::new(2.0, -5.0, -5.0),
        Point3::new(2.0, 5.0, -5.0),
        Point3::new(2.0, 0.0, 5.0),
    )];
    let far = Triangle::new(
        Point3::new(4.0, -5.0, -5.0),
        Point3::new(4.0, 5.0, -5.0),
        Point3::new(4.0, 0.0, 5.0),
    );
    let mover = MovingShape::Sphere {
        center: Point3::origin(),
        radius: 1.0,
    };
    let world = [
        Obstacle::Shape {
            shape: &far,
            pose: Isometry3::identity(),
        },
        Obstacle::Triangles(&near),
    ];
    let motion = Vector3::new(10.0, 0.0, 0.0);
    let (index, hit) = sweep_obstacles(&mover, &motion, &world, &table).unwrap().unwrap();
    assert_eq!(index, 1);
    assert!((hit.toi - 0.1).abs() < 1e-15);
    let nan = Vector3::new(f64::NAN, 0.0, 0.0);
    assert_eq!(sweep_obstacles(&mover, &nan, &world, &table).unwrap(), None);
    let sphere = Sphere::new(1.0);
    let bad_pose = Isometry3::translation(f64::INFINITY, 0.0, 0.0);
    assert!(sweep_shape(&sphere, &bad_pose, &motion, &far, &Isometry3::identity(), &table).is_err());
    assert_eq!(
        sweep_shape(
            &sphere,
            &Isometry3::identity(),
            &nan,
            &far,
            &Isometry3::identity(),
            &table
        ),
        Ok(None)
    );
    // Two spheres have no routine in an empty table: the error says so.
    assert!(
        sweep_shape(
            &sphere,
            &Isometry3::identity(),
            &motion,
            &sphere,
            &Isometry3::translation(5.0, 0.0, 0.0),
            &table
        )
        .is_err()
    );
}
