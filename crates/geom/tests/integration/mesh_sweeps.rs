//! Sweeps and the character controller on meshes, as a user calls them,
//! against brute force over every triangle and against the heightfield the
//! mesh was exported from.

use geom::prelude::*;
use geom::prims::sweep::MovingShape;
use geom::terrain::{
    CharacterConfig, CharacterController, Obstacle, sweep_heightfield, sweep_shape, sweep_trimesh,
};
use geom_random::Rng;

/// Random heights within `±amplitude` on unit cells.
fn terrain(rng: &mut Rng, amplitude: f64) -> HeightField<f64> {
    let (rows, cols) = (14, 12);
    let heights: Vec<f64> = (0..rows * cols)
        .map(|_| rng.range(-amplitude, amplitude))
        .collect();
    HeightField::new(Point3::new(-6.0, 0.2, -5.0), [1.0, 1.0], rows, cols, heights)
}

fn random_mover(rng: &mut Rng, centre: Point3<f64>) -> MovingShape<f64> {
    match rng.below(3) {
        0 => MovingShape::Sphere {
            center: centre,
            radius: rng.range(0.1, 0.7),
        },
        1 => {
            let half = rng.direction() * rng.range(0.1, 0.8);
            MovingShape::Capsule {
                a: centre - half,
                b: centre + half,
                radius: rng.range(0.1, 0.5),
            }
        }
        _ => MovingShape::Ellipsoid {
            center: centre,
            radii: Vector3::new(rng.range(0.1, 0.6), rng.range(0.1, 0.6), rng.range(0.1, 0.6)),
            rotation: UnitQuaternion::from_scaled_axis(rng.direction() * rng.range(0.0, 3.0)),
        },
    }
}

#[test]
fn mesh_sweeps_equal_brute_force_over_every_triangle() {
    let mut rng = Rng::new(1);
    let field = terrain(&mut rng, 0.8);
    let mesh = TriMesh::from_heightfield(&field).unwrap();
    let pose = Isometry3::new(Vector3::new(3.0, -1.0, 2.0), Vector3::new(0.2, -0.3, 0.1));
    let world_triangles: Vec<Triangle<f64>> = (0..mesh.triangle_count() as u32)
        .map(|i| {
            let t = mesh.triangle(i).unwrap();
            Triangle {
                a: pose * t.a,
                b: pose * t.b,
                c: pose * t.c,
            }
        })
        .collect();
    let mut hits = 0;
    for k in 0..400 {
        let local = Point3::new(rng.range(-6.0, 7.0), rng.range(1.5, 3.0), rng.range(-5.0, 6.0));
        let mover = random_mover(&mut rng, pose * local);
        let motion = pose.rotation * (rng.direction() * rng.range(0.5, 4.0) - Vector3::new(0.0, 2.0, 0.0));
        let expected = world_triangles
            .iter()
            .filter_map(|t| mover.sweep_triangle(&motion, t))
            .map(|h| h.toi)
            .fold(None, |best: Option<f64>, toi| {
                Some(best.map_or(toi, |b| b.min(toi)))
            });
        let hit = sweep_trimesh(&mover, &motion, &mesh, &pose);
        match (hit, expected) {
            (Some(hit), Some(toi)) => {
                hits += 1;
                // The tree changes the frame (the mesh's), not the routine:
                // within rounding of the world-space answer.
                assert!((hit.toi - toi).abs() < 1e-12, "sweep {k}: {} vs {toi}", hit.toi);
                assert!((hit.normal.norm() - 1.0).abs() < 1e-12);
                assert!(
                    hit.normal.dot(&motion) <= 1e-12,
                    "sweep {k}: the normal faces the motion"
                );
            }
            (None, None) => {}
            (hit, expected) => panic!("sweep {k}: {hit:?} vs {expected:?}"),
        }
    }
    assert!(hits > 200, "{hits} hits");
}

#[test]
fn terrain_as_a_mesh_sweeps_as_the_heightfield() {
    let mut rng = Rng::new(2);
    let field = terrain(&mut rng, 0.8);
    let mesh = TriMesh::from_heightfield(&field).unwrap();
    let table = geom::default_dispatcher::<f64>();
    let id = Isometry3::identity();
    let mut hits = 0;
    for k in 0..400 {
        let centre = Point3::new(rng.range(-5.0, 6.0), rng.range(1.5, 3.0), rng.range(-4.0, 5.0));
        let mover = random_mover(&mut rng, centre);
        let motion = rng.direction() * rng.range(0.5, 3.0) - Vector3::new(0.0, 2.5, 0.0);
        let from_field = sweep_heightfield(&mover, &motion, &field, &id);
        let from_mesh = sweep_trimesh(&mover, &motion, &mesh, &id);
        // Through sweep_shape and the table too, as a user would.
        let (placed, mover_pose) = mover.to_shape();
        let through_table = sweep_shape(placed.as_shape(), &mover_pose, &motion, &mesh, &id, &table).unwrap();
        assert_eq!(through_table, from_mesh, "sweep {k}");
        match (from_field, from_mesh) {
            (Some(f), Some(m)) => {
                hits += 1;
                assert!((f.toi - m.toi).abs() < 1e-12, "sweep {k}: {} vs {}", f.toi, m.toi);
                assert!(
                    (f.normal - m.normal).norm() < 1e-9,
                    "sweep {k}: {:?} vs {:?}",
                    f.normal,
                    m.normal
                );
                assert!((f.point - m.point).norm() < 1e-9, "sweep {k}");
            }
            (None, None) => {}
            (f, m) => panic!("sweep {k}: field {f:?}, mesh {m:?}"),
        }
    }
    assert!(hits > 250, "{hits} hits");
}

#[test]
fn a_character_walks_on_the_mesh_as_on_the_heightfield() {
    // Slopes below 31°, walkable at the 50° limit.
    let mut rng = Rng::new(3);
    let field = terrain(&mut rng, 0.3);
    let mesh = TriMesh::from_heightfield(&field).unwrap();
    let table = geom::default_dispatcher::<f64>();
    let on_field = [Obstacle::HeightField {
        field: &field,
        pose: Isometry3::identity(),
    }];
    let on_mesh = [Obstacle::Shape {
        shape: &mesh,
        pose: Isometry3::identity(),
    }];
    for walk_index in 0..6 {
        let start = Point3::new(rng.range(-2.0, 2.0), 2.5, rng.range(-2.0, 2.0));
        let capsule = MovingShape::Capsule {
            a: start,
            b: start + Vector3::new(0.0, 0.8, 0.0),
            radius: 0.3,
        };
        let config = CharacterConfig::new(0.01).with_max_slope_degrees(50.0);
        let mut a = CharacterController::new(capsule, config);
        let mut b = CharacterController::new(capsule, config);
        let heading = rng.direction();
        let walk = Vector3::new(heading.x, 0.0, heading.z).normalize() * 0.05;
        let gravity = Vector3::new(0.0, -0.1, 0.0);
        // 60 frames of 0.05: 3 units, still over the terrain.
        for frame in 0..60 {
            a.step(&walk, &gravity, &on_field, &table).unwrap();
            b.step(&walk, &gravity, &on_mesh, &table).unwrap();
            assert!(
                (a.position() - b.position()).norm() < 1e-9,
                "walk {walk_index} frame {frame}: {:?} vs {:?}",
                a.position(),
                b.position()
            );
            assert_eq!(
                a.is_grounded(),
                b.is_grounded(),
                "walk {walk_index} frame {frame}"
            );
        }
        assert!(a.is_grounded(), "walk {walk_index} ends on the ground");
    }
}
