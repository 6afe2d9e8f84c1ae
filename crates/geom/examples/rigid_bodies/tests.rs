//! The rigid-body example's world settles: no body tunnels under the
//! ground or through the dish (a closed mesh), none explodes, at rest none
//! jitters, the bodies dropped into the dish rest in its hollow, and a
//! stack of three boxes, a standing cylinder and a cone on its base stay
//! as set down.

use geom::prelude::*;

use super::{STEP, sim};

#[test]
fn bodies_dropped_on_a_heightfield_and_a_mesh_come_to_rest_above_them() {
    let mut world = sim::demo_world();
    let start: Vec<_> = world.bodies.iter().map(|b| b.pose).collect();
    let mut lowest_clearance = f64::INFINITY;
    let mut fastest = 0.0f64;
    for step in 0..(8.0 / STEP) as usize {
        world.step(STEP);
        fastest = fastest.max(world.max_point_speed());
        for body in &world.bodies {
            // The body's lowest point against the scenery under it.
            let lowest = body
                .shape
                .support(&body.pose, &-geom::prelude::Vector3::y())
                .unwrap();
            if let Some(ground) = world.scenery_y_at(lowest.x, lowest.z) {
                lowest_clearance = lowest_clearance.min(lowest.y - ground);
            }
            let c = body.center();
            let under = world.scenery_y_at(c.x, c.z).unwrap();
            assert!(
                c.y > under,
                "step {step}: {} fell through ({c:?}, ground {under})",
                body.name
            );
        }
    }
    // Nothing exploded: no point ever faster than the fall from 6 m allows
    // (√(2·9.81·6) ≈ 10.9 m/s), with room for spin.
    assert!(fastest < 20.0, "fastest point speed {fastest}");
    // Resting contacts overlap by about the solver's slop, never much more.
    assert!(lowest_clearance > -0.05, "deepest sinking {lowest_clearance}");
    // At rest: the last second barely moves anything.
    let before: Vec<_> = world.bodies.iter().map(|b| b.pose).collect();
    for _ in 0..240 {
        world.step(STEP);
    }
    for (body, pose) in world.bodies.iter().zip(before) {
        let moved = (body.pose.translation.vector - pose.translation.vector).norm();
        let turned = body.pose.rotation.angle_to(&pose.rotation);
        assert!(
            moved < 0.01 && turned < 0.02,
            "{} still moving: {moved} m, {turned} rad",
            body.name
        );
        let speed = body.linear_velocity.norm();
        assert!(speed < 0.02, "{} jitters at {speed} m/s", body.name);
    }
    // The dish's bodies lie in its hollow: inside the rim, above the
    // hollow's floor (y = 1.6) and below the rim (y = 2.3) plus their size.
    let (cx, cz, radius) = sim::DISH;
    let mut in_dish = 0;
    for body in world.bodies.iter().filter(|b| b.name.starts_with("dish")) {
        let c = body.center();
        let off_axis = (c.x - cx).hypot(c.z - cz);
        assert!(
            off_axis < radius && c.y > 1.6 && c.y < 2.3 + 0.5,
            "{} left the dish: {c:?}",
            body.name
        );
        in_dish += 1;
    }
    assert_eq!(in_dish, 4);
    // The terrace's stack stands where it was set down, one box on the
    // next, and the cylinder and the cone still stand upright.
    let up = geom::prelude::Vector3::y();
    for (body, pose) in world.bodies.iter().zip(&start) {
        if !(body.name.starts_with("stack") || body.name.starts_with("standing")) {
            continue;
        }
        let drift = body.pose.translation.vector - pose.translation.vector;
        assert!(
            drift.xz().norm() < 0.02 && drift.y.abs() < 0.02,
            "{} left its place by {drift:?}",
            body.name
        );
        let axis = body.pose.rotation * up;
        assert!(axis.dot(&up) > 0.9999, "{} tipped: its axis {axis:?}", body.name);
    }
}

/// The frame file's poses read back to the poses written (the benchmarks'
/// physics frame is read this way), and the crowded scene holds the bodies
/// asked for, none overlapping another or the scenery as dropped.
#[test]
fn crowded_scene_poses_read_back_as_written() {
    let world = sim::crowded_world(100);
    assert_eq!(world.bodies.len(), 100);
    let read = sim::parse_poses(&format!("# a comment\n\n{}", world.poses_text())).unwrap();
    assert_eq!(read.len(), 100);
    for (body, pose) in world.bodies.iter().zip(&read) {
        assert_eq!(body.pose.translation, pose.translation, "{}", body.name);
        assert!(
            body.pose.rotation.angle_to(&pose.rotation) <= 1e-15,
            "{}",
            body.name
        );
    }
    assert!(sim::parse_poses("1 2 3").is_err());
    let table = geom::default_dispatcher::<f64>();
    for (k, body) in world.bodies.iter().enumerate() {
        let scenery: [(&dyn Shape<f64>, &str); 2] = [(&*world.ground, "ground"), (&*world.dish, "dish")];
        for (other, what) in scenery {
            let apart = table
                .distance(other, &Isometry3::identity(), &*body.shape, &body.pose)
                .unwrap();
            assert!(apart > 0.0, "{} starts in the {what}", body.name);
        }
        for other in &world.bodies[..k] {
            let apart = table
                .distance(&*other.shape, &other.pose, &*body.shape, &body.pose)
                .unwrap();
            assert!(apart > 0.0, "{} starts in {}", body.name, other.name);
        }
    }
}
