//! The world's queries against brute force over every object, through
//! inserts, moves (small and large) and removals.

use std::sync::Arc;

use geom::World;
use geom::prelude::*;
use geom::world::Handle;
use geom_random::Rng;

/// An object of the reference list.
type Placed = (Handle, Arc<dyn Shape<f64>>, Isometry3<f64>);

fn random_shape(rng: &mut Rng) -> Arc<dyn Shape<f64>> {
    match rng.below(5) {
        0 => Arc::new(Sphere::new(rng.range(0.2, 1.0))),
        1 => Arc::new(Cuboid::new(Vector3::new(
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
        ))),
        2 => Arc::new(Capsule::from_points(
            Point3::new(0.0, -0.5, 0.0),
            Point3::new(0.0, 0.5, 0.0),
            rng.range(0.1, 0.5),
        )),
        3 => Arc::new(Cylinder::from_points(
            Point3::new(0.0, -0.4, 0.0),
            Point3::new(0.0, 0.4, 0.0),
            rng.range(0.1, 0.6),
        )),
        _ => Arc::new(Cone::from_points(
            Point3::new(0.0, 0.5, 0.0),
            Point3::new(0.0, -0.5, 0.0),
            rng.range(0.2, 0.7),
        )),
    }
}

fn random_pose(rng: &mut Rng, spread: f64) -> Isometry3<f64> {
    Isometry3::new(rng.vector(spread), rng.direction() * rng.range(0.0, 3.0))
}

/// A world of `count` objects and, beside it, the same objects in a list
/// (the brute-force reference), with some churn: removals, re-inserts,
/// small and large moves.
fn churned_world(rng: &mut Rng, count: usize) -> (World<f64, usize>, Vec<(Handle, usize)>) {
    let mut world = World::new();
    let mut live: Vec<(Handle, usize)> = Vec::new();
    for id in 0..count {
        let handle = world.insert(random_shape(rng), random_pose(rng, 15.0), id);
        live.push((handle, id));
    }
    for round in 0..3 {
        // Remove a few, insert a few, move everything.
        for _ in 0..count / 10 {
            let k = rng.below(live.len());
            let (handle, id) = live.swap_remove(k);
            assert_eq!(world.remove(handle), Some(id));
            assert_eq!(world.remove(handle), None, "a removed handle is stale");
            assert!(world.get(handle).is_none());
        }
        for id in 0..count / 10 {
            let id = count * (round + 1) + id;
            live.push((world.insert(random_shape(rng), random_pose(rng, 15.0), id), id));
        }
        // Queries in between, so that the moves below refit a built tree.
        let mut pairs = Vec::new();
        world.candidate_pairs(&mut pairs);
        for &(handle, _) in &live {
            nudge(&mut world, handle, rng, 0.05, 0.5);
        }
    }
    // Then a few objects move, some far: fewer than an eighth, so the
    // next query refits their boxes and the nodes above them only.
    let mut pairs = Vec::new();
    world.candidate_pairs(&mut pairs);
    for _ in 0..count / 10 {
        let (handle, _) = live[rng.below(live.len())];
        nudge(&mut world, handle, rng, 0.3, 2.0);
    }
    (world, live)
}

/// Moves the object by up to `near` per axis, or with chance `far_chance`
/// by up to 20 (across much of the world).
fn nudge(world: &mut World<f64, usize>, handle: Handle, rng: &mut Rng, far_chance: f64, near: f64) {
    let (_, pose, _) = world.get(handle).unwrap();
    let step = if rng.chance(far_chance) {
        rng.vector(20.0)
    } else {
        rng.vector(near)
    };
    let moved = Isometry3::from_parts((pose.translation.vector + step).into(), pose.rotation);
    assert!(world.set_pose(handle, moved));
}

#[test]
fn queries_equal_brute_force_through_churn() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(1);
    let (mut world, live) = churned_world(&mut rng, 300);
    assert_eq!(world.len(), live.len());
    let objects: Vec<Placed> = live
        .iter()
        .map(|&(h, _)| {
            let (shape, pose, _) = world.get(h).unwrap();
            (h, Arc::clone(shape), *pose)
        })
        .collect();
    // Candidate pairs: every two objects whose boxes overlap.
    let mut expected = Vec::new();
    for (i, (ha, sa, pa)) in objects.iter().enumerate() {
        for (hb, sb, pb) in &objects[i + 1..] {
            if sa.aabb(pa).intersects(&sb.aabb(pb)) {
                expected.push(((*ha).min(*hb), (*ha).max(*hb)));
            }
        }
    }
    expected.sort_unstable();
    let mut pairs = Vec::new();
    world.candidate_pairs(&mut pairs);
    assert_eq!(pairs, expected);
    assert!(pairs.len() > 20, "{} pairs", pairs.len());
    #[cfg(feature = "parallel")]
    {
        let mut parallel = Vec::new();
        world.par_candidate_pairs(&mut parallel);
        assert_eq!(parallel, expected);
    }
    // Every object's own box finds the object (the tree holds every box
    // where it is now, refit or not).
    for (handle, shape, pose) in &objects {
        let mut found = false;
        world.visit_aabb(&shape.aabb(pose), |h| {
            found |= h == *handle;
            !found
        });
        assert!(found, "{handle:?}");
    }
    // Ray casts: the nearest object's hit.
    for _ in 0..300 {
        let ray = Ray::new(Point3::from(rng.vector(25.0)), rng.direction());
        let brute = objects
            .iter()
            .filter_map(|(h, s, p)| s.ray_cast(p, &ray, 60.0, true).map(|hit| (hit.t, *h)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let hit = world.ray_cast(&ray, 60.0, true).map(|(h, hit)| (hit.t, h));
        assert_eq!(hit.map(|x| x.0), brute.map(|x| x.0), "{ray:?}");
    }
    // Overlaps of a probe: every object at distance zero.
    for _ in 0..100 {
        let probe = Sphere::new(rng.range(0.5, 3.0));
        let pose = Isometry3::translation(
            rng.range(-20.0, 20.0),
            rng.range(-20.0, 20.0),
            rng.range(-20.0, 20.0),
        );
        let mut brute: Vec<Handle> = objects
            .iter()
            .filter(|(_, s, p)| {
                !matches!(
                    table.closest_points(&probe, &pose, s.as_ref(), p, 0.0).unwrap(),
                    ClosestPoints::Disjoint
                )
            })
            .map(|(h, ..)| *h)
            .collect();
        brute.sort_unstable();
        let mut found = Vec::new();
        world.overlaps(&probe, &pose, &table, &mut found).unwrap();
        assert_eq!(found, brute);
    }
    // Sweeps: the earliest object hit.
    for _ in 0..60 {
        let mover = Sphere::new(rng.range(0.2, 1.0));
        let pose = Isometry3::translation(
            rng.range(-20.0, 20.0),
            rng.range(-20.0, 20.0),
            rng.range(-20.0, 20.0),
        );
        let motion = rng.direction() * rng.range(1.0, 15.0);
        let brute = objects
            .iter()
            .filter_map(|(h, s, p)| {
                geom::sweep_shape(&mover, &pose, &motion, s.as_ref(), p, &table)
                    .unwrap()
                    .map(|hit| (hit.toi, *h))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let hit = world
            .sweep(&mover, &pose, &motion, &table, None)
            .unwrap()
            .map(|(h, hit)| (hit.toi, h));
        assert_eq!(hit, brute);
    }
}

#[test]
fn handles_stay_valid_and_stale_ones_are_refused() {
    let mut world: World<f64, &str> = World::new();
    let a = world.insert(Arc::new(Sphere::new(1.0)), Isometry3::identity(), "a");
    let b = world.insert(
        Arc::new(Sphere::new(1.0)),
        Isometry3::translation(1.5, 0.0, 0.0),
        "b",
    );
    assert_eq!(world.remove(a), Some("a"));
    // The freed slot is reused, under a new generation.
    let c = world.insert(
        Arc::new(Sphere::new(1.0)),
        Isometry3::translation(-1.5, 0.0, 0.0),
        "c",
    );
    assert_ne!(a, c);
    assert!(world.data(a).is_none() && !world.set_pose(a, Isometry3::identity()));
    assert_eq!((world.data(b), world.data(c)), (Some(&"b"), Some(&"c")));
    *world.data_mut(c).unwrap() = "c2";
    assert_eq!(world.data(c), Some(&"c2"));
    let mut pairs = Vec::new();
    world.candidate_pairs(&mut pairs);
    assert!(pairs.is_empty(), "{pairs:?}");
    world.set_pose(c, Isometry3::translation(0.0, 0.0, 0.0));
    world.candidate_pairs(&mut pairs);
    assert_eq!(pairs, vec![(b.min(c), b.max(c))]);
    assert_eq!(world.handles().count(), 2);
    // NaN rays and empty worlds answer nothing.
    assert!(
        world
            .ray_cast(
                &Ray::new(Point3::new(f64::NAN, 0.0, 0.0), Vector3::x()),
                10.0,
                true
            )
            .is_none()
    );
    let mut empty: World<f64, ()> = World::new();
    assert!(
        empty
            .ray_cast(&Ray::new(Point3::origin(), Vector3::x()), 10.0, true)
            .is_none()
    );
    empty.candidate_pairs(&mut pairs);
    assert!(pairs.is_empty());
}

#[test]
fn a_margin_pairs_objects_whose_boxes_come_that_close() {
    let mut rng = Rng::new(17);
    let margin = 0.3;
    let mut world: World<f64, usize> = World::with_margin(margin).unwrap();
    let mut placed = Vec::new();
    for i in 0..300 {
        let shape = random_shape(&mut rng);
        let pose = Isometry3::new(
            Vector3::new(rng.range(-8.0, 8.0), rng.range(-8.0, 8.0), rng.range(-8.0, 8.0)),
            rng.direction() * rng.range(0.0, 3.0),
        );
        placed.push((world.insert(shape.clone(), pose, i), shape.aabb(&pose)));
    }
    // Brute force: the tight boxes' gap along every axis at most the margin.
    let mut expected = Vec::new();
    for (i, (h, a)) in placed.iter().enumerate() {
        for (k, b) in &placed[i + 1..] {
            if a.loosened(margin).intersects(b) {
                expected.push((*h.min(k), *h.max(k)));
            }
        }
    }
    expected.sort();
    let mut pairs = Vec::new();
    world.candidate_pairs(&mut pairs);
    assert!(expected.len() > 20, "{} pairs", expected.len());
    assert_eq!(pairs, expected);
    // Ray casts answer as without a margin: a ray just past a sphere misses.
    let ball = world.insert(
        Arc::new(Sphere::new(1.0)),
        Isometry3::translation(0.0, 50.0, 0.0),
        300,
    );
    let past = Ray::new(Point3::new(1.1, 60.0, 0.0), -Vector3::y());
    assert!(world.ray_cast(&past, 20.0, true).is_none());
    let through = Ray::new(Point3::new(0.9, 60.0, 0.0), -Vector3::y());
    assert_eq!(world.ray_cast(&through, 20.0, true).map(|(h, _)| h), Some(ball));
    for bad in [-0.1, f64::NAN, f64::INFINITY] {
        let refused = World::<f64, ()>::with_margin(bad).unwrap_err();
        assert!(refused.to_string().contains("margin"), "{refused}");
    }
}

#[test]
fn an_object_meeting_every_other_pairs_with_each_in_order() {
    // A half-space inserted first pairs with everything: one long run of
    // pairs sharing the first slot, found in traversal order and sorted.
    let mut rng = Rng::new(23);
    let mut world: World<f64, usize> = World::new();
    let plane: Arc<dyn Shape<f64>> = Arc::new(HalfSpace::new(Vector3::y(), 0.0));
    let ground = world.insert(plane.clone(), Isometry3::identity(), 0);
    let mut placed = vec![(ground, plane.aabb(&Isometry3::identity()))];
    for i in 1..400 {
        let shape = random_shape(&mut rng);
        let pose = Isometry3::new(
            Vector3::new(
                rng.range(-20.0, 20.0),
                rng.range(-3.0, 0.5),
                rng.range(-20.0, 20.0),
            ),
            rng.direction() * rng.range(0.0, 3.0),
        );
        placed.push((world.insert(shape.clone(), pose, i), shape.aabb(&pose)));
    }
    let mut expected = Vec::new();
    for (i, (h, a)) in placed.iter().enumerate() {
        for (k, b) in &placed[i + 1..] {
            if a.intersects(b) {
                expected.push((*h.min(k), *h.max(k)));
            }
        }
    }
    expected.sort();
    let mut pairs = Vec::new();
    world.candidate_pairs(&mut pairs);
    assert!(pairs.iter().filter(|(a, _)| *a == ground).count() >= 390);
    assert_eq!(pairs, expected);
}

/// Every two objects whose boxes (each widened by `margin / 2`) overlap,
/// sorted: the brute-force candidate pairs.
fn brute_force_pairs(objects: &[Placed], margin: f64) -> Vec<(Handle, Handle)> {
    let boxes: Vec<_> = objects
        .iter()
        .map(|(h, s, p)| (*h, s.aabb(p).loosened(margin / 2.0)))
        .collect();
    let mut expected = Vec::new();
    for (i, (ha, a)) in boxes.iter().enumerate() {
        for (hb, b) in &boxes[i + 1..] {
            if a.intersects(b) {
                expected.push(((*ha).min(*hb), (*ha).max(*hb)));
            }
        }
    }
    expected.sort_unstable();
    expected
}

/// A world with `margin` of `count` random objects within `spread` of the
/// origin, beside the same objects in a list, and a velocity for each of
/// up to `speed` per axis.
fn moving_world(
    rng: &mut Rng,
    margin: f64,
    count: usize,
    spread: f64,
    speed: f64,
) -> (World<f64, usize>, Vec<Placed>, Vec<Vector3<f64>>) {
    let mut world = World::with_margin(margin).unwrap();
    let mut objects = Vec::new();
    let mut velocities = Vec::new();
    for id in 0..count {
        let shape = random_shape(rng);
        let pose = random_pose(rng, spread);
        objects.push((world.insert(shape.clone(), pose, id), shape, pose));
        velocities.push(rng.vector(speed));
    }
    (world, objects, velocities)
}

#[test]
fn pairs_kept_between_steps_equal_brute_force_at_every_step() {
    // Objects drift at their own velocities, turning back every five steps
    // (most stay inside the room the tree gives them, stretched both ways
    // along their motion; some leave it), and the steps vary what moves: a
    // few, most (a traversal of the whole tree), none, a jump across the
    // world; now and then objects are removed and inserted. The pairs must
    // equal brute force after every step, with and without a margin.
    let table = geom::default_dispatcher::<f64>();
    for margin in [0.0, 0.2] {
        let mut rng = Rng::new(31);
        let (mut world, mut objects, mut velocities) = moving_world(&mut rng, margin, 250, 6.0, 0.15);
        let mut pairs = Vec::new();
        let (mut traversal_steps, mut query_steps) = (0, 0);
        for step in 0..80 {
            // A few (fewer than an eighth: a partial refit), a fifth, most
            // (a traversal of the whole tree) or none.
            let share = match step % 10 {
                9 => 0.0,
                5 => 0.8,
                2 | 3 => 0.04,
                _ => 0.2,
            };
            let moving = (objects.len() as f64 * share) as usize;
            if share > 0.5 {
                traversal_steps += 1;
            } else if moving > 0 {
                query_steps += 1;
            }
            let heading = if (step / 5) % 2 == 0 { 1.0 } else { -1.0 };
            for _ in 0..moving {
                let k = rng.below(objects.len());
                let (handle, _, pose) = &mut objects[k];
                let turn = UnitQuaternion::from_scaled_axis(rng.vector(0.05));
                *pose = Isometry3::from_parts(
                    (pose.translation.vector + velocities[k] * heading).into(),
                    turn * pose.rotation,
                );
                assert!(world.set_pose(*handle, *pose));
            }
            if step % 10 == 7 {
                for _ in 0..3 {
                    let k = rng.below(objects.len());
                    objects[k].2 = random_pose(&mut rng, 6.0);
                    assert!(world.set_pose(objects[k].0, objects[k].2));
                }
            }
            if step % 15 == 14 {
                for _ in 0..2 {
                    let (handle, ..) = objects.swap_remove(rng.below(objects.len()));
                    world.remove(handle).unwrap();
                }
                for id in 0..2 {
                    let shape = random_shape(&mut rng);
                    let pose = random_pose(&mut rng, 6.0);
                    objects.push((
                        world.insert(shape.clone(), pose, 1000 + step * 2 + id),
                        shape,
                        pose,
                    ));
                }
                velocities.truncate(objects.len());
                while velocities.len() < objects.len() {
                    velocities.push(rng.vector(0.15));
                }
            }
            let expected = brute_force_pairs(&objects, margin);
            world.candidate_pairs(&mut pairs);
            assert_eq!(pairs, expected, "step {step}, margin {margin}");
            #[cfg(feature = "parallel")]
            if step % 4 == 0 {
                let mut parallel = Vec::new();
                world.par_candidate_pairs(&mut parallel);
                assert_eq!(parallel, expected, "step {step}, margin {margin}");
            }
            // Box visits report the objects' own boxes, not the room the
            // tree keeps around them.
            let probe = Aabb::from_half_extents(Point3::from(rng.vector(6.0)), Vector3::repeat(1.5));
            let mut visited = Vec::new();
            world.visit_aabb(&probe, |h| {
                visited.push(h);
                true
            });
            visited.sort_unstable();
            let mut inside: Vec<Handle> = objects
                .iter()
                .filter(|(_, s, p)| s.aabb(p).loosened(margin / 2.0).intersects(&probe))
                .map(|(h, ..)| *h)
                .collect();
            inside.sort_unstable();
            assert_eq!(visited, inside, "step {step}");
            // A ray and an overlap query through the roomy tree: exact.
            let ray = Ray::new(Point3::from(rng.vector(8.0)), rng.direction());
            let brute = objects
                .iter()
                .filter_map(|(_, s, p)| s.ray_cast(p, &ray, 30.0, true).map(|hit| hit.t))
                .min_by(f64::total_cmp);
            assert_eq!(world.ray_cast(&ray, 30.0, true).map(|(_, hit)| hit.t), brute);
            let mut found = Vec::new();
            let ball = Sphere::new(1.0);
            let at = Isometry3::translation(probe.mins.x, probe.mins.y, probe.mins.z);
            world.overlaps(&ball, &at, &table, &mut found).unwrap();
            let mut touching: Vec<Handle> = objects
                .iter()
                .filter(|(_, s, p)| {
                    !matches!(
                        table.closest_points(&ball, &at, s.as_ref(), p, 0.0).unwrap(),
                        ClosestPoints::Disjoint
                    )
                })
                .map(|(h, ..)| *h)
                .collect();
            touching.sort_unstable();
            assert_eq!(found, touching, "step {step}");
        }
        assert!(traversal_steps >= 8 && query_steps >= 50);
        assert!(pairs.len() > 50, "{} pairs", pairs.len());
    }
}

#[test]
fn pairs_of_travelling_objects_equal_brute_force_at_every_step() {
    // Objects that keep moving one way get their rooms ahead of them; the
    // pairs must stay exact through a steady drift, everything turning
    // back at once (leaving those rooms by their back sides), speeding up
    // (a fall), swerving and stopping, with and without a margin.
    for margin in [0.0, 0.3] {
        let mut rng = Rng::new(47);
        let (mut world, mut objects, mut velocities) = moving_world(&mut rng, margin, 300, 8.0, 0.1);
        let mut pairs = Vec::new();
        let mut most_pairs = 0;
        for step in 0..160 {
            for (k, velocity) in velocities.iter_mut().enumerate() {
                match step {
                    60 => *velocity = -*velocity,
                    80..=109 if k % 2 == 0 => velocity.y -= 0.01,
                    110 if k % 3 == 0 => *velocity = velocity.cross(&Vector3::new(0.3, 1.0, -0.5)),
                    130 if k % 4 == 0 => *velocity = Vector3::zeros(),
                    _ => {}
                }
                let (handle, _, pose) = &mut objects[k];
                *pose = Isometry3::from_parts((pose.translation.vector + *velocity).into(), pose.rotation);
                assert!(world.set_pose(*handle, *pose));
            }
            // Every fourth step's moves renewed on rayon's threads when
            // built with them: the same pairs.
            #[cfg(feature = "parallel")]
            if step % 4 == 1 {
                world.par_candidate_pairs(&mut pairs);
            } else {
                world.candidate_pairs(&mut pairs);
            }
            #[cfg(not(feature = "parallel"))]
            world.candidate_pairs(&mut pairs);
            assert_eq!(
                pairs,
                brute_force_pairs(&objects, margin),
                "step {step}, margin {margin}"
            );
            most_pairs = most_pairs.max(pairs.len());
        }
        assert!(most_pairs > 100, "{most_pairs} pairs");
    }
}

#[test]
fn a_nan_pose_neither_panics_nor_answers_nan_and_is_undone_by_a_finite_one() {
    let mut rng = Rng::new(43);
    let mut world: World<f64, usize> = World::new();
    let mut objects: Vec<Placed> = Vec::new();
    for id in 0..60 {
        let shape = random_shape(&mut rng);
        let pose = random_pose(&mut rng, 5.0);
        objects.push((world.insert(shape.clone(), pose, id), shape, pose));
    }
    let mut pairs = Vec::new();
    world.candidate_pairs(&mut pairs);
    assert_eq!(pairs, brute_force_pairs(&objects, 0.0));
    // NaN poses: each object's box is NaN (it meets nothing) or unbounded
    // (it may be anywhere), as its shape bounds it, so it pairs with no
    // object or with all; the other pairs are unchanged, and no query
    // answers a NaN.
    for k in 0..5 {
        let lost = objects[k].0;
        assert!(world.set_pose(lost, Isometry3::translation(f64::NAN, 0.0, 0.0)));
        world.candidate_pairs(&mut pairs);
        assert!(pairs.windows(2).all(|w| w[0] < w[1]), "sorted, once each");
        let with_lost = pairs.iter().filter(|(a, b)| *a == lost || *b == lost).count();
        assert!(with_lost == 0 || with_lost == objects.len() - 1, "{with_lost}");
        let others: Vec<_> = pairs
            .iter()
            .copied()
            .filter(|(a, b)| *a != lost && *b != lost)
            .collect();
        let mut rest = objects.clone();
        rest.remove(k);
        assert_eq!(others, brute_force_pairs(&rest, 0.0));
        // Back to its finite pose: the same answers as before.
        assert!(world.set_pose(lost, objects[k].2));
    }
    let lost = objects[7].0;
    assert!(world.set_pose(lost, Isometry3::translation(f64::NAN, 0.0, 0.0)));
    world.candidate_pairs(&mut pairs);
    for _ in 0..50 {
        let ray = Ray::new(Point3::from(rng.vector(8.0)), rng.direction());
        if let Some((_, hit)) = world.ray_cast(&ray, 30.0, true) {
            assert!(
                hit.t.is_finite() && hit.normal.iter().all(|c| c.is_finite()),
                "{hit:?}"
            );
        }
    }
    // Back to a finite pose: the answers are brute force's again.
    objects[7].2 = random_pose(&mut rng, 5.0);
    assert!(world.set_pose(lost, objects[7].2));
    world.candidate_pairs(&mut pairs);
    assert_eq!(pairs, brute_force_pairs(&objects, 0.0));
}

/// A shape starting in contact (touching, or sunk a little) hits the
/// object at `toi = 0` moving further in, and sweeps free moving out, as
/// `World::sweep` documents; from above it lands where the object is.
#[test]
fn a_sweep_starting_in_contact_hits_only_moving_further_in() {
    let mut world: World<f64, &str> = World::new();
    let ground = world.insert(
        Arc::new(Cuboid::new(Vector3::new(5.0, 0.5, 5.0))),
        Isometry3::identity(),
        "ground",
    );
    let table = geom::default_dispatcher::<f64>();
    let ball = Sphere::new(0.5);
    for (height, label) in [(1.0, "touching"), (0.95, "sunk")] {
        let pose = Isometry3::translation(0.3, height, -0.2);
        let down = world
            .sweep(&ball, &pose, &Vector3::new(0.2, -1.0, 0.0), &table, None)
            .unwrap();
        let (handle, hit) = down.expect(label);
        assert_eq!(handle, ground, "{label}");
        assert_eq!(hit.toi, 0.0, "{label}");
        assert!((hit.normal - Vector3::y()).norm() < 1e-9, "{label}: {hit:?}");
        for away in [Vector3::new(0.0, 1.0, 0.0), Vector3::new(1.0, 0.5, 0.0)] {
            let up = world.sweep(&ball, &pose, &away, &table, None).unwrap();
            assert!(up.is_none(), "{label} {away:?}: {up:?}");
        }
    }
    let above = Isometry3::translation(0.3, 3.0, -0.2);
    let (_, hit) = world
        .sweep(&ball, &above, &Vector3::new(0.0, -4.0, 0.0), &table, None)
        .unwrap()
        .expect("lands");
    // The centre comes down from 3 to the ground's top plus the radius.
    let expected = (3.0 - (0.5 + 0.5)) / 4.0;
    assert!((hit.toi - expected).abs() < 1e-9, "{hit:?}");
}
