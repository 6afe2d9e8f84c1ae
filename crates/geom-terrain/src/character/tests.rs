//! The character on flat tessellated ground, against walls, in corners and
//! creases, starting inside, far from the origin.

use geom_core::Real;
use geom_core::dispatch::DispatchTable;
use geom_prims::Triangle;
use geom_prims::sweep::MovingShape;
use nalgebra::{Isometry3, Point3, UnitQuaternion, Vector3};

use super::*;
use crate::test_support::TestRng;
use crate::{HeightField, HeightFieldDesc};

const RADIUS: f64 = 0.5;
const SKIN: f64 = 1e-3;
const GROUND_Y: f64 = 0.3;

/// A flat 41 × 41 field at y = `GROUND_Y` centred on `centre` (x, z), unit
/// cells, every third cell flipped: internal edges in both diagonals.
fn flat_field<N: Real>(centre: [f64; 2], ground_y: f64) -> HeightField<N> {
    let rows = 41;
    let c = |v: f64| nalgebra::convert::<f64, N>(v);
    let mut desc = HeightFieldDesc::new(
        Point3::new(c(centre[0] - 20.0), c(ground_y), c(centre[1] - 20.0)),
        [N::one(), N::one()],
        rows,
        rows,
        vec![N::zero(); rows * rows],
    );
    desc.flipped_cells = (0..(rows - 1) * (rows - 1)).filter(|k| k % 3 == 1).collect();
    HeightField::try_from_desc(desc).unwrap()
}

/// A vertical wall: the quad from `start` to `end` (on the ground) up to
/// height 5, as two triangles.
fn wall(start: Point3<f64>, end: Point3<f64>) -> [Triangle<f64>; 2] {
    let up = Vector3::new(0.0, 5.0, 0.0);
    [
        Triangle::new(start, end, end + up),
        Triangle::new(start, end + up, start + up),
    ]
}

fn bodies(centre: Point3<f64>) -> Vec<MovingShape<f64>> {
    vec![
        MovingShape::Sphere {
            center: centre,
            radius: RADIUS,
        },
        MovingShape::Capsule {
            a: centre - Vector3::new(0.0, 0.6, 0.0),
            b: centre + Vector3::new(0.0, 0.6, 0.0),
            radius: RADIUS,
        },
        MovingShape::Ellipsoid {
            center: centre,
            radii: Vector3::new(RADIUS, 3.0 * RADIUS, RADIUS),
            rotation: UnitQuaternion::identity(),
        },
    ]
}

fn controller(body: MovingShape<f64>) -> CharacterController<f64> {
    CharacterController::new(body, CharacterConfig::new(SKIN))
}

/// Places a body standing on the ground at (x, z) and lets it settle.
fn standing(body: MovingShape<f64>, x: f64, z: f64, world: &[Obstacle<'_, f64>]) -> CharacterController<f64> {
    let table = DispatchTable::new();
    let mut character = controller(body);
    let down = -Vector3::y();
    let bottom = character.position().y - character.shape().extent(&down);
    let offset = Vector3::new(x, GROUND_Y + 0.2 - bottom, z)
        - Vector3::new(character.position().x, 0.0, character.position().z);
    character.translate(&offset);
    character
        .fall(&Vector3::new(0.0, -0.5, 0.0), world, &table)
        .unwrap();
    assert!(character.is_grounded());
    character
}

fn standing_height(character: &CharacterController<f64>) -> f64 {
    GROUND_Y + character.shape().extent(&Vector3::y()) + SKIN
}

#[test]
fn walking_on_flat_tessellated_ground_neither_bobs_nor_catches() {
    let field = flat_field::<f64>([0.0, 0.0], GROUND_Y);
    let world = [Obstacle::HeightField {
        field: &field,
        pose: Isometry3::identity(),
    }];
    let table = DispatchTable::new();
    for body in bodies(Point3::origin()) {
        let mut character = standing(body, 0.1, 0.2, &world);
        let height = standing_height(&character);
        assert!((character.position().y - height).abs() <= 1e-5 * RADIUS);
        let mut rng = TestRng::new(4);
        let gravity = Vector3::new(0.0, -0.02, 0.0);
        let speed = 0.05;
        let (mut worst_height, mut worst_speed) = (0.0f64, 0.0f64);
        for step in 0..1000 {
            let angle = rng.range(0.0, std::f64::consts::TAU);
            let walk = Vector3::new(angle.cos(), 0.0, angle.sin()) * speed;
            let before = character.position();
            character.step(&walk, &gravity, &world, &table).unwrap();
            let moved = character.position() - before;
            let ground_speed = (moved.x * moved.x + moved.z * moved.z).sqrt();
            worst_height = worst_height.max((character.position().y - height).abs());
            worst_speed = worst_speed.max((ground_speed - speed).abs());
            assert!(character.is_grounded(), "step {step}");
            assert!(
                (character.position().y - height).abs() <= 1e-5 * RADIUS,
                "step {step}: bobbing"
            );
            assert!(
                (ground_speed - speed).abs() <= 1e-6 * speed,
                "step {step}: caught, {ground_speed}"
            );
        }
        eprintln!("{body:?}: height within {worst_height:e}, speed within {worst_speed:e}");
    }
}

#[test]
fn sliding_along_a_wall_keeps_the_tangential_component() {
    let field = flat_field::<f64>([0.0, 0.0], GROUND_Y);
    let walls = wall(
        Point3::new(2.0, GROUND_Y, -15.0),
        Point3::new(2.0, GROUND_Y, 15.0),
    );
    let world = [
        Obstacle::HeightField {
            field: &field,
            pose: Isometry3::identity(),
        },
        Obstacle::Triangles(&walls),
    ];
    let table = DispatchTable::new();
    for body in bodies(Point3::origin()) {
        let mut character = standing(body, 0.0, 0.0, &world);
        let reach = character.shape().extent(&Vector3::x());
        let walk = Vector3::new(0.08, 0.0, 0.06); // into the wall at ~53°
        let gravity = Vector3::new(0.0, -0.02, 0.0);
        let mut touching_steps = 0;
        for _ in 0..60 {
            let before = character.position();
            character.step(&walk, &gravity, &world, &table).unwrap();
            let moved = character.position() - before;
            let gap = 2.0 - (character.position().x + reach);
            assert!(gap >= 0.0, "through the wall: {gap}");
            if (gap - SKIN).abs() < 1e-12 && (before.x + reach - (2.0 - SKIN)).abs() < 1e-12 {
                // Against the wall: all of the tangential component, none of the normal one.
                assert!(moved.x.abs() < 1e-12, "{moved:?}");
                assert!((moved.z - walk.z).abs() < 1e-12, "{moved:?}");
                touching_steps += 1;
            }
        }
        assert!(touching_steps > 30, "{touching_steps}");
    }
}

/// Walks into the corner of two walls for 300 steps; after it has stopped
/// the position changes by less than 1e-6·r per step and no wall is crossed.
fn check_stops_in_corner(
    walls: &[Triangle<f64>],
    walk: Vector3<f64>,
    planes: &[(Point3<f64>, Vector3<f64>)],
) {
    let field = flat_field::<f64>([0.0, 0.0], GROUND_Y);
    let world = [
        Obstacle::HeightField {
            field: &field,
            pose: Isometry3::identity(),
        },
        Obstacle::Triangles(walls),
    ];
    let table = DispatchTable::new();
    for body in bodies(Point3::origin()) {
        let mut character = standing(body, 0.0, 0.0, &world);
        let gravity = Vector3::new(0.0, -0.02, 0.0);
        let mut largest_late_change = 0.0f64;
        for step in 0..300 {
            let before = character.position();
            character.step(&walk, &gravity, &world, &table).unwrap();
            for (point, normal) in planes {
                let gap = (character.position() - point).dot(normal) - character.shape().extent(normal);
                assert!(gap >= 0.0, "step {step}: crossed a wall by {gap}");
            }
            if step >= 200 {
                largest_late_change = largest_late_change.max((character.position() - before).norm());
            }
        }
        assert!(
            largest_late_change < 1e-6 * RADIUS,
            "{body:?}: jitter {largest_late_change:e}"
        );
        eprintln!("{body:?}: stopped, last change {largest_late_change:e}");
    }
}

#[test]
fn walking_into_a_right_angle_corner_stops_without_jitter() {
    let corner = Point3::new(2.0, GROUND_Y, 2.0);
    let mut walls = Vec::new();
    walls.extend(wall(
        Point3::new(2.0, GROUND_Y, -15.0),
        corner + Vector3::new(0.0, 0.0, 1.0),
    ));
    walls.extend(wall(
        Point3::new(-15.0, GROUND_Y, 2.0),
        corner + Vector3::new(1.0, 0.0, 0.0),
    ));
    let planes = [(corner, -Vector3::x()), (corner, -Vector3::z())];
    check_stops_in_corner(&walls, Vector3::new(0.05, 0.0, 0.03), &planes);
}

#[test]
fn walking_into_a_thirty_degree_crease_stops_without_jitter() {
    // Two walls meeting at the apex (3, ·, 0) at 30°, opening towards −x.
    let apex = Point3::new(3.0, GROUND_Y, 0.0);
    let half = 15f64.to_radians();
    let arm1 = Vector3::new(-half.cos(), 0.0, half.sin());
    let arm2 = Vector3::new(-half.cos(), 0.0, -half.sin());
    let mut walls = Vec::new();
    walls.extend(wall(apex + arm1 * 12.0, apex - arm1 * 0.5));
    walls.extend(wall(apex + arm2 * 12.0, apex - arm2 * 0.5));
    // Normals into the opening.
    let normal1 = Vector3::new(half.sin(), 0.0, half.cos());
    let normal2 = Vector3::new(half.sin(), 0.0, -half.cos());
    let planes = [(apex, -normal1), (apex, -normal2)];
    let planes = planes.map(|(p, n)| {
        if n.dot(&(Point3::origin() - p)) > 0.0 {
            (p, n)
        } else {
            (p, -n)
        }
    });
    check_stops_in_corner(&walls, Vector3::new(0.05, 0.0, 0.012), &planes);
}

#[test]
fn starting_in_contact_or_inside_pushes_out_along_the_normal() {
    let field = flat_field::<f64>([0.0, 0.0], GROUND_Y);
    let thin_wall = wall(
        Point3::new(2.0, GROUND_Y, -15.0),
        Point3::new(2.0, GROUND_Y, 15.0),
    );
    let world = [
        Obstacle::HeightField {
            field: &field,
            pose: Isometry3::identity(),
        },
        Obstacle::Triangles(&thin_wall),
    ];
    let table = DispatchTable::new();
    for sunk in [0.0, 0.05 * RADIUS, 0.3 * RADIUS] {
        // Sunk into the ground, walking: pushed up to the skin width, then walks on.
        let mut character = controller(MovingShape::Sphere {
            center: Point3::new(0.0, GROUND_Y + RADIUS - sunk, 0.0),
            radius: RADIUS,
        });
        // (Exactly touching, a level walk may or may not count as contact
        // within rounding; a walk that also presses down always does.)
        let walk = Vector3::new(0.05, -0.01, 0.0);
        character.slide(&walk, &world, &table).unwrap();
        let expected_y = GROUND_Y + RADIUS + SKIN;
        assert!(
            (character.position().y - expected_y).abs() < 1e-12,
            "{:?}",
            character.position()
        );
        assert!((character.position().x - 0.05).abs() < 1e-12);
        // Inside the thin wall, running at it at 100 r: pushed back out to
        // the skin width on the side it started, never through.
        for angle in [0.0f64, 30.0, 60.0, 85.0] {
            let angle = angle.to_radians();
            let mut character = controller(MovingShape::Sphere {
                center: Point3::new(2.0 - RADIUS + sunk, 2.0, 0.0),
                radius: RADIUS,
            });
            let motion = Vector3::new(angle.cos(), 0.0, angle.sin()) * (100.0 * RADIUS);
            character.slide(&motion, &world, &table).unwrap();
            let x = character.position().x;
            assert!(
                (x - (2.0 - RADIUS - SKIN)).abs() < 1e-12,
                "sunk {sunk}, angle {angle}: x = {x}"
            );
        }
    }
}

#[test]
fn no_tunnelling_at_a_hundred_radii_per_step() {
    let (low, high) = (Point3::new(2.0, -100.0, -100.0), Point3::new(2.0, 100.0, 100.0));
    let thin_wall = [
        Triangle::new(low, Point3::new(2.0, 100.0, -100.0), high),
        Triangle::new(low, high, Point3::new(2.0, -100.0, 100.0)),
    ];
    let world = [Obstacle::Triangles(&thin_wall)];
    let table = DispatchTable::new();
    let mut rng = TestRng::new(12);
    for tilt in 0..60 {
        for body in bodies(Point3::new(0.0, 0.0, 0.0)) {
            let mut character = controller(body);
            let tilt = (tilt as f64 * 1.5).to_radians();
            let azimuth = rng.range(0.0, std::f64::consts::TAU);
            let direction = Vector3::new(tilt.cos(), tilt.sin() * azimuth.cos(), tilt.sin() * azimuth.sin());
            for _ in 0..3 {
                character
                    .slide(&(direction * 100.0 * RADIUS), &world, &table)
                    .unwrap();
                let reach = character.shape().extent(&Vector3::x());
                assert!(character.position().x + reach <= 2.0, "{body:?} through the wall");
            }
        }
    }
}

#[test]
fn f32_far_from_the_origin_within_looser_bounds() {
    // At 10⁴ from the origin an f32 coordinate is only good to
    // ulp(10⁴) ≈ 9.8e-4: the skin is 1e-2, heights stay within 2 ulp of
    // the standing height, and each step's ground travel within 2 ulp of
    // the commanded length (positions cannot be stored any closer).
    let offset = 1.0e4f32;
    let field = flat_field::<f32>([1.0e4, 1.0e4], 1.0e4);
    let world = [Obstacle::HeightField {
        field: &field,
        pose: Isometry3::identity(),
    }];
    let table = DispatchTable::new();
    let skin = 1e-2f32;
    let radius = 0.5f32;
    let mut character = CharacterController::new(
        MovingShape::Sphere {
            center: Point3::new(offset + 0.1, offset + radius + 0.2, offset + 0.2),
            radius,
        },
        CharacterConfig::new(skin),
    );
    character
        .fall(&Vector3::new(0.0, -0.5, 0.0), &world, &table)
        .unwrap();
    let height = offset + radius + skin;
    let ulp = 1.0e4f32.next_up() - 1.0e4f32;
    let mut rng = TestRng::new(9);
    let speed = 0.05f32;
    let (mut worst_height, mut worst_speed) = (0.0f32, 0.0f32);
    for step in 0..1000 {
        let angle = rng.range(0.0, std::f64::consts::TAU) as f32;
        let walk = Vector3::new(angle.cos(), 0.0, angle.sin()) * speed;
        let before = character.position();
        character
            .step(&walk, &Vector3::new(0.0, -0.02, 0.0), &world, &table)
            .unwrap();
        let moved = character.position() - before;
        let ground_speed = (moved.x * moved.x + moved.z * moved.z).sqrt();
        worst_height = worst_height.max((character.position().y - height).abs());
        worst_speed = worst_speed.max((ground_speed - speed).abs());
        assert!(character.is_grounded(), "step {step}");
        assert!(
            (character.position().y - height).abs() <= 2.0 * ulp,
            "step {step}: {:?}",
            character.position()
        );
        assert!(
            (ground_speed - speed).abs() <= 2.0 * ulp,
            "step {step}: {ground_speed}"
        );
    }
    eprintln!("f32 at 1e4: height within {worst_height:e}, speed within {worst_speed:e} (ulp {ulp:e})");
}

#[test]
fn steep_slopes_are_walls_and_bad_input_does_nothing() {
    // A 60° ramp rising towards +x from x = 2: too steep to walk up.
    let ramp_top = 2.0 + 5.0 / 60f64.to_radians().tan();
    let ramp = [
        Triangle::new(
            Point3::new(2.0, GROUND_Y, -10.0),
            Point3::new(ramp_top, GROUND_Y + 5.0, 10.0),
            Point3::new(ramp_top, GROUND_Y + 5.0, -10.0),
        ),
        Triangle::new(
            Point3::new(2.0, GROUND_Y, -10.0),
            Point3::new(2.0, GROUND_Y, 10.0),
            Point3::new(ramp_top, GROUND_Y + 5.0, 10.0),
        ),
    ];
    let field = flat_field::<f64>([0.0, 0.0], GROUND_Y);
    let world = [
        Obstacle::HeightField {
            field: &field,
            pose: Isometry3::identity(),
        },
        Obstacle::Triangles(&ramp),
    ];
    let table = DispatchTable::new();
    let body = MovingShape::Sphere {
        center: Point3::origin(),
        radius: RADIUS,
    };
    let mut character = standing(body, 0.0, 0.0, &world);
    for _ in 0..200 {
        character
            .step(
                &Vector3::new(0.05, 0.0, 0.0),
                &Vector3::new(0.0, -0.02, 0.0),
                &world,
                &table,
            )
            .unwrap();
    }
    assert!(
        character.position().y < GROUND_Y + RADIUS + 0.05,
        "climbed: {:?}",
        character.position()
    );
    let before = character.position();
    let nan = Vector3::new(f64::NAN, 0.0, 0.0);
    assert_eq!(character.slide(&nan, &world, &table), Ok(0));
    assert_eq!(character.fall(&nan, &world, &table), Ok(0));
    assert_eq!(character.position(), before);
}

/// Settings that cannot move a character are refused by name, on every
/// move, and the character stays where it was; good settings move it.
#[test]
fn bad_settings_are_refused_by_name_and_do_not_move_the_character() {
    let field = flat_field::<f64>([0.0, 0.0], GROUND_Y);
    let world = [Obstacle::HeightField {
        field: &field,
        pose: Isometry3::identity(),
    }];
    let table = DispatchTable::new();
    let good = CharacterConfig::new(SKIN);
    let bad: [(&str, CharacterConfig<f64>); 8] = [
        ("skin_width", CharacterConfig::new(f64::NAN)),
        ("skin_width", CharacterConfig::new(0.0)),
        ("skin_width", CharacterConfig::new(-1e-3)),
        ("skin_width", CharacterConfig::new(f64::INFINITY)),
        (
            "up",
            CharacterConfig {
                up: Vector3::new(0.0, f64::NAN, 0.0),
                ..good
            },
        ),
        (
            "up",
            CharacterConfig {
                up: Vector3::new(0.0, 2.0, 0.0),
                ..good
            },
        ),
        (
            "max_iterations",
            CharacterConfig {
                max_iterations: 0,
                ..good
            },
        ),
        (
            "min_walkable_cos",
            CharacterConfig {
                min_walkable_cos: f64::NAN,
                ..good
            },
        ),
    ];
    for (parameter, config) in bad {
        let body = bodies(Point3::new(0.0, 2.0, 0.0))[0];
        let mut character = CharacterController::new(body, config);
        let start = character.position();
        for answer in [
            character.slide(&Vector3::new(0.3, 0.0, 0.0), &world, &table),
            character.fall(&Vector3::new(0.0, -5.0, 0.0), &world, &table),
            character.step(
                &Vector3::new(0.3, 0.0, 0.0),
                &Vector3::new(0.0, -5.0, 0.0),
                &world,
                &table,
            ),
        ] {
            assert!(
                matches!(answer, Err(GeomError::InvalidParameter { parameter: p, .. }) if p == parameter),
                "{parameter}: {answer:?}"
            );
        }
        assert_eq!(character.position(), start, "{parameter}");
        assert!(config.validate().is_err(), "{parameter}");
    }
    assert!(CharacterConfig::try_new(f64::NAN).is_err());
    assert_eq!(CharacterConfig::try_new(SKIN), Ok(good));
    let body = bodies(Point3::new(0.0, 2.0, 0.0))[0];
    let mut character = CharacterController::new(body, good);
    assert_eq!(
        character.fall(&Vector3::new(0.0, -5.0, 0.0), &world, &table),
        Ok(1)
    );
    assert!(character.is_grounded());
}
