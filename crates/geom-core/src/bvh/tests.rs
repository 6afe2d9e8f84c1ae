//! Every query against brute force over every box.

use std::collections::BTreeSet;

use geom_random::Rng;
use nalgebra::{Point3, Vector3};

use super::{Bvh, BvhOptions};
use crate::aabb::Aabb;
use crate::ray::Ray;

/// Boxes of half sizes from 1e-3 to 5 (some flat on an axis) in a cube of
/// half width 50, clustered around a few centres so the tree is uneven.
fn random_boxes(rng: &mut Rng, count: usize) -> Vec<Aabb<f64>> {
    random_boxes_up_to(rng, count, 0.7)
}

/// [`random_boxes`] with half sizes up to `10^largest`.
fn random_boxes_up_to(rng: &mut Rng, count: usize, largest: f64) -> Vec<Aabb<f64>> {
    let centres: Vec<Point3<f64>> = (0..5).map(|_| Point3::from(rng.vector(40.0))).collect();
    (0..count)
        .map(|_| {
            let centre = centres[rng.below(centres.len())] + rng.vector(12.0);
            let mut half = Vector3::new(
                rng.log_range(-3.0, largest),
                rng.log_range(-3.0, largest),
                rng.log_range(-3.0, largest),
            );
            if rng.chance(0.2) {
                half[rng.below(3)] = 0.0;
            }
            Aabb::from_half_extents(centre, half)
        })
        .collect()
}

fn random_ray(rng: &mut Rng) -> Ray<f64> {
    let origin = Point3::from(rng.vector(80.0));
    let mut dir = rng.direction() * rng.log_range(-2.0, 1.0);
    // Some rays parallel to an axis plane or to an axis.
    if rng.chance(0.2) {
        dir[rng.below(3)] = 0.0;
    }
    if rng.chance(0.05) {
        let keep = rng.below(3);
        for i in 0..3 {
            if i != keep {
                dir[i] = 0.0;
            }
        }
    }
    Ray::new(origin, dir)
}

fn box_distance(aabb: &Aabb<f64>, p: &Point3<f64>) -> f64 {
    let d = (aabb.mins - p).sup(&(p - aabb.maxs)).sup(&Vector3::zeros());
    d.norm()
}

fn options() -> [BvhOptions; 3] {
    [1, 4, 16].map(|max_leaf_size| BvhOptions { max_leaf_size })
}

#[test]
fn first_hit_equals_the_nearest_box_of_all() {
    let mut rng = Rng::new(1);
    for options in options() {
        for count in [1, 2, 5, 37, 600] {
            let boxes = random_boxes(&mut rng, count);
            let bvh = Bvh::build_with(&boxes, options);
            assert_eq!(bvh.len(), count);
            for _ in 0..200 {
                let ray = random_ray(&mut rng);
                let max_t = if rng.chance(0.3) {
                    rng.range(0.0, 30.0)
                } else {
                    f64::INFINITY
                };
                let expected = boxes
                    .iter()
                    .filter_map(|b| b.ray_interval(&ray, max_t).map(|(t, _)| t))
                    .min_by(f64::total_cmp);
                let mut tested = 0;
                let hit = bvh.ray_cast(&ray, max_t, |i, best| {
                    tested += 1;
                    boxes[i as usize].ray_interval(&ray, best).map(|(t, _)| t)
                });
                assert_eq!(
                    hit.map(|(_, t)| t),
                    expected,
                    "{count} boxes, {ray:?}, max_t {max_t}"
                );
                if let Some((i, t)) = hit {
                    assert_eq!(boxes[i as usize].ray_interval(&ray, max_t).unwrap().0, t);
                }
                assert!(tested <= count);
            }
        }
    }
}

#[test]
fn ray_visits_every_box_it_meets() {
    let mut rng = Rng::new(2);
    let boxes = random_boxes(&mut rng, 800);
    let bvh = Bvh::build(&boxes);
    let mut visited_total = 0;
    let mut met_total = 0;
    for _ in 0..300 {
        let ray = random_ray(&mut rng);
        let max_t = if rng.chance(0.5) {
            rng.range(0.0, 40.0)
        } else {
            f64::INFINITY
        };
        let met: BTreeSet<u32> = (0..boxes.len() as u32)
            .filter(|&i| boxes[i as usize].ray_interval(&ray, max_t).is_some())
            .collect();
        let mut visited = BTreeSet::new();
        bvh.visit_ray(&ray, max_t, |i| {
            assert!(visited.insert(i), "primitive {i} visited twice");
            true
        });
        assert!(
            met.is_subset(&visited),
            "{ray:?}: missed {:?}",
            met.difference(&visited)
        );
        visited_total += visited.len();
        met_total += met.len();
    }
    // The tree culls: far fewer visits than boxes.
    assert!(visited_total < 300 * boxes.len() / 4, "{visited_total} visits");
    assert!(visited_total >= met_total);
    // Stopping early visits one.
    let ray = Ray::new(Point3::new(-100.0, 0.0, 0.0), Vector3::x());
    let wide = [Aabb::new(Point3::new(-1.0, -1.0, -1.0), Point3::new(1.0, 1.0, 1.0)); 10];
    let mut calls = 0;
    Bvh::build(&wide).visit_ray(&ray, f64::INFINITY, |_| {
        calls += 1;
        false
    });
    assert_eq!(calls, 1);
}

#[test]
fn rays_grazing_and_lying_in_box_faces_are_not_culled() {
    // Rays along a box's face plane, through its edges, starting on its
    // faces: the slab test's 0·∞ and rounding must not drop the box.
    let unit = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
    let mut boxes = vec![unit];
    // Padding so the unit box sits in a real tree.
    let mut rng = Rng::new(3);
    boxes.extend(
        random_boxes(&mut rng, 100)
            .into_iter()
            .map(|b| Aabb::new(b.mins + Vector3::repeat(200.0), b.maxs + Vector3::repeat(200.0))),
    );
    let bvh = Bvh::build_with(&boxes, BvhOptions { max_leaf_size: 1 });
    let rays = [
        Ray::new(Point3::new(-5.0, 0.0, 0.5), Vector3::x()),
        Ray::new(Point3::new(-5.0, 1.0, 1.0), Vector3::x()),
        Ray::new(Point3::new(0.5, 0.5, 1.0), -Vector3::z()),
        Ray::new(Point3::new(1.0, 0.5, 0.5), Vector3::x()),
        Ray::new(Point3::new(0.0, 0.0, 0.0), Vector3::new(-0.0, 0.0, 1.0)),
        Ray::new(Point3::new(-1.0, -1.0, -1.0), Vector3::new(1.0, 1.0, 1.0)),
        Ray::new(Point3::new(1.0, 1.0, 2.0), -Vector3::z()),
    ];
    for ray in rays {
        let expected = unit.ray_interval(&ray, f64::INFINITY).map(|(t, _)| t);
        assert!(expected.is_some(), "{ray:?}");
        let hit = bvh.ray_cast(&ray, f64::INFINITY, |i, best| {
            boxes[i as usize].ray_interval(&ray, best).map(|(t, _)| t)
        });
        assert_eq!(hit.map(|(_, t)| t), expected, "{ray:?}");
    }
}

#[test]
fn box_queries_equal_brute_force() {
    let mut rng = Rng::new(4);
    for options in options() {
        let boxes = random_boxes(&mut rng, 700);
        let bvh = Bvh::build_with(&boxes, options);
        for _ in 0..200 {
            let query = Aabb::from_half_extents(
                Point3::from(rng.vector(60.0)),
                Vector3::new(
                    rng.log_range(-2.0, 1.3),
                    rng.log_range(-2.0, 1.3),
                    rng.log_range(-2.0, 1.3),
                ),
            );
            let expected: BTreeSet<u32> = (0..boxes.len() as u32)
                .filter(|&i| boxes[i as usize].intersects(&query))
                .collect();
            let mut found = BTreeSet::new();
            bvh.visit_aabb(&query, |i| {
                assert!(found.insert(i));
                true
            });
            assert_eq!(found, expected);
        }
    }
}

#[test]
fn closest_equals_brute_force() {
    let mut rng = Rng::new(5);
    // Small trees have nodes with empty slots, whose boxes are infinitely
    // far: within an infinite reach, they must still be skipped.
    for (options, count) in options()
        .into_iter()
        .flat_map(|o| [1, 2, 3, 6, 500].map(|n| (o, n)))
    {
        let boxes = random_boxes(&mut rng, count);
        let bvh = Bvh::build_with(&boxes, options);
        for _ in 0..300 {
            let p = Point3::from(rng.vector(90.0));
            let max_distance = if rng.chance(0.3) {
                rng.range(0.0, 10.0)
            } else {
                f64::INFINITY
            };
            let expected = boxes
                .iter()
                .map(|b| box_distance(b, &p))
                .filter(|&d| d <= max_distance)
                .min_by(f64::total_cmp);
            let hit = bvh.closest(&p, max_distance, |i, _| {
                Some(box_distance(&boxes[i as usize], &p))
            });
            assert_eq!(hit.map(|(_, d)| d), expected, "{p:?} within {max_distance}");
            // Every primitive skipped: the reach stays infinite to the end.
            let mut tested = 0;
            assert_eq!(
                bvh.closest(&p, f64::INFINITY, |_, _| {
                    tested += 1;
                    None
                }),
                None
            );
            assert_eq!(tested, count);
        }
    }
}

fn brute_self_pairs(boxes: &[Aabb<f64>]) -> BTreeSet<(u32, u32)> {
    let mut pairs = BTreeSet::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if boxes[i].intersects(&boxes[j]) {
                pairs.insert((i as u32, j as u32));
            }
        }
    }
    pairs
}

fn tree_self_pairs(bvh: &Bvh<f64>) -> BTreeSet<(u32, u32)> {
    let mut pairs = BTreeSet::new();
    bvh.for_each_self_pair(|i, j| {
        assert!(i < j);
        assert!(pairs.insert((i, j)), "pair ({i}, {j}) twice");
    });
    pairs
}

#[test]
fn self_pairs_equal_brute_force_before_and_after_refit() {
    let mut rng = Rng::new(6);
    for options in options() {
        let mut boxes = random_boxes_up_to(&mut rng, 600, 1.0);
        let mut bvh = Bvh::build_with(&boxes, options);
        let expected = brute_self_pairs(&boxes);
        assert!(expected.len() > 100, "{} pairs: too few to test", expected.len());
        assert_eq!(tree_self_pairs(&bvh), expected);
        // Move every box (some far), refit, and ask again.
        for step in 0..3 {
            for b in &mut boxes {
                let shift = if rng.chance(0.05) {
                    rng.vector(60.0)
                } else {
                    rng.vector(2.0)
                };
                *b = Aabb::new(b.mins + shift, b.maxs + shift);
            }
            bvh.refit(&boxes);
            assert_eq!(tree_self_pairs(&bvh), brute_self_pairs(&boxes), "step {step}");
            let p = Point3::from(rng.vector(50.0));
            let expected = boxes.iter().map(|b| box_distance(b, &p)).min_by(f64::total_cmp);
            let hit = bvh.closest(&p, f64::INFINITY, |i, _| {
                Some(box_distance(&boxes[i as usize], &p))
            });
            assert_eq!(hit.map(|(_, d)| d), expected);
        }
        let root = bvh.root_aabb().unwrap();
        for b in &boxes {
            assert!(root.contains_point(&b.mins) && root.contains_point(&b.maxs));
        }
    }
}

/// Every node box as bits: two trees refit alike hold the same bits.
fn node_bits(bvh: &Bvh<f64>) -> Vec<u64> {
    bvh.nodes
        .iter()
        .flat_map(|n| n.mins.iter().chain(&n.maxs).flatten().map(|c| c.to_bits()))
        .collect()
}

#[test]
fn partial_refit_is_the_full_refit() {
    let mut rng = Rng::new(8);
    for options in options() {
        let mut boxes = random_boxes_up_to(&mut rng, 500, 1.0);
        let mut partial = Bvh::build_with(&boxes, options);
        let mut full = partial.clone();
        for step in 0..8 {
            // A few boxes (none, some, or most) moved a little, far, grown,
            // shrunk to a point, or unbounded; some listed twice.
            let share = [0.0, 0.02, 0.3, 0.9][step % 4];
            let mut moved = Vec::new();
            for (i, b) in boxes.iter_mut().enumerate() {
                if !rng.chance(share) {
                    continue;
                }
                *b = match rng.below(5) {
                    0 => Aabb::new(b.mins + rng.vector(0.5), b.maxs + rng.vector(0.5)),
                    1 => Aabb::from_half_extents(
                        Point3::from(rng.vector(70.0)),
                        Vector3::repeat(rng.range(0.0, 3.0)),
                    ),
                    2 => b.loosened(rng.range(0.0, 4.0)),
                    3 => Aabb::new(b.center(), b.center()),
                    _ => Aabb::new(Point3::new(f64::NEG_INFINITY, b.mins.y, b.mins.z), b.maxs),
                };
                moved.push(partial.positions[i]);
                if rng.chance(0.1) {
                    moved.push(partial.positions[i]);
                }
            }
            let order = partial.tree_order().to_vec();
            partial.refit_in_tree_order(&moved, |p| boxes[order[p as usize] as usize]);
            full.refit(&boxes);
            assert_eq!(node_bits(&partial), node_bits(&full), "step {step}");
            assert!(partial == full);
            assert_eq!(tree_self_pairs(&partial), brute_self_pairs(&boxes), "step {step}");
        }
    }
}

#[test]
fn pairs_of_two_trees_equal_brute_force() {
    let mut rng = Rng::new(7);
    // One draw split in two: both sets around the same clusters.
    let mut a = random_boxes_up_to(&mut rng, 700, 1.0);
    let b = a.split_off(400);
    let (tree_a, tree_b) = (
        Bvh::build(&a),
        Bvh::build_with(&b, BvhOptions { max_leaf_size: 2 }),
    );
    let mut expected = BTreeSet::new();
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            if x.intersects(y) {
                expected.insert((i as u32, j as u32));
            }
        }
    }
    assert!(expected.len() > 50);
    let mut found = BTreeSet::new();
    tree_a.for_each_pair(&tree_b, |i, j| assert!(found.insert((i, j))));
    assert_eq!(found, expected);
    let mut swapped = BTreeSet::new();
    tree_b.for_each_pair(&tree_a, |j, i| assert!(swapped.insert((i, j))));
    assert_eq!(swapped, expected);
}

#[test]
fn degenerate_inputs_build_and_answer() {
    // Every box the same: no centroid spread, median splits only.
    let same = vec![Aabb::new(Point3::new(1.0, 1.0, 1.0), Point3::new(2.0, 2.0, 2.0)); 1000];
    let bvh = Bvh::build(&same);
    assert_eq!(tree_self_pairs(&bvh).len(), 1000 * 999 / 2);
    let ray = Ray::new(Point3::new(1.5, 1.5, -3.0), Vector3::z());
    assert_eq!(
        bvh.ray_cast(&ray, f64::INFINITY, |i, best| same[i as usize]
            .ray_interval(&ray, best)
            .map(|(t, _)| t))
            .map(|(_, t)| t),
        Some(4.0)
    );
    // Centres spread exponentially: the SAH splits off one box at a time,
    // the depth cap keeps the stacks bounded.
    let spread: Vec<Aabb<f64>> = (0..3000)
        .map(|i| {
            let x = 1.01f64.powi(i);
            Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x * 1.001, 1.0, 1.0))
        })
        .collect();
    let bvh = Bvh::build_with(&spread, BvhOptions { max_leaf_size: 1 });
    let ray = Ray::new(Point3::new(2e13, 0.5, 0.5), -Vector3::x());
    let hit = bvh.ray_cast(&ray, f64::INFINITY, |i, best| {
        spread[i as usize].ray_interval(&ray, best).map(|(t, _)| t)
    });
    assert_eq!(hit.map(|(i, _)| i), Some(2999));
    assert_eq!(tree_self_pairs(&bvh), brute_self_pairs(&spread));
    // Unbounded and NaN boxes (a half-space's, a NaN read as unbounded).
    let inf = f64::INFINITY;
    let wild = vec![
        Aabb::new(Point3::new(-inf, -inf, -inf), Point3::new(inf, 0.0, inf)),
        Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0)),
        Aabb::new(Point3::new(f64::NAN, 5.0, 5.0), Point3::new(6.0, 6.0, 6.0)),
        Aabb::new(Point3::new(10.0, 10.0, 10.0), Point3::new(11.0, 11.0, 11.0)),
    ];
    let bvh = Bvh::build_with(&wild, BvhOptions { max_leaf_size: 1 });
    assert_eq!(
        tree_self_pairs(&bvh),
        [(0, 1)].into_iter().collect::<BTreeSet<_>>()
    );
    let down = Ray::new(Point3::new(10.5, 20.0, 10.5), -Vector3::y());
    let hit = bvh.ray_cast(&down, f64::INFINITY, |i, best| {
        let b = &bvh.primitive_aabb(i);
        b.ray_interval(&down, best).map(|(t, _)| t)
    });
    assert_eq!(hit, Some((3, 9.0)));
}

#[test]
fn empty_trees_and_bad_inputs_answer_nothing() {
    let empty = Bvh::<f64>::build(&[]);
    assert!(empty.is_empty() && empty.root_aabb().is_none());
    let ray = Ray::new(Point3::origin(), Vector3::x());
    assert!(empty.ray_cast(&ray, 1.0, |_, _| Some(0.0)).is_none());
    assert!(empty.closest(&Point3::origin(), 1.0, |_, _| Some(0.0)).is_none());
    empty.for_each_self_pair(|_, _| panic!("no pairs"));
    let unit = [Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0))];
    let one = Bvh::build(&unit);
    let hits = |ray: &Ray<f64>, max_t: f64| one.ray_cast(ray, max_t, |_, _| Some(0.0)).is_some();
    assert!(hits(&Ray::new(Point3::new(0.5, 0.5, -1.0), Vector3::z()), 5.0));
    assert!(!hits(&Ray::new(Point3::new(0.5, 0.5, -1.0), Vector3::z()), -1.0));
    assert!(!hits(
        &Ray::new(Point3::new(0.5, 0.5, -1.0), Vector3::z()),
        f64::NAN
    ));
    assert!(!hits(
        &Ray::new(Point3::new(f64::NAN, 0.5, -1.0), Vector3::z()),
        5.0
    ));
    assert!(!hits(
        &Ray::new(Point3::new(0.5, 0.5, -1.0), Vector3::new(0.0, f64::INFINITY, 1.0)),
        5.0
    ));
    assert!(
        one.closest(&Point3::new(f64::NAN, 0.0, 0.0), 5.0, |_, _| Some(0.0))
            .is_none()
    );
    let mut called = false;
    one.visit_aabb(
        &Aabb {
            mins: Point3::new(f64::NAN, 0.0, 0.0),
            maxs: Point3::new(1.0, 1.0, 1.0),
        },
        |_| {
            called = true;
            true
        },
    );
    assert!(!called);
}

#[test]
fn f32_tree_answers_like_f64() {
    let mut rng = Rng::new(8);
    let boxes = random_boxes(&mut rng, 400);
    let boxes32: Vec<Aabb<f32>> = boxes
        .iter()
        .map(|b| Aabb::new(b.mins.cast::<f32>(), b.maxs.cast::<f32>()))
        .collect();
    let boxes64: Vec<Aabb<f64>> = boxes32
        .iter()
        .map(|b| Aabb::new(b.mins.cast::<f64>(), b.maxs.cast::<f64>()))
        .collect();
    let bvh = Bvh::build(&boxes32);
    for _ in 0..300 {
        let ray = random_ray(&mut rng);
        let ray32 = Ray::new(ray.origin.cast::<f32>(), ray.dir.cast::<f32>());
        // The f32 tree must offer every box the f32 slab test itself hits.
        let met: BTreeSet<u32> = (0..boxes32.len() as u32)
            .filter(|&i| boxes32[i as usize].ray_interval(&ray32, f32::INFINITY).is_some())
            .collect();
        let mut visited = BTreeSet::new();
        bvh.visit_ray(&ray32, f32::INFINITY, |i| {
            visited.insert(i);
            true
        });
        assert!(met.is_subset(&visited));
    }
    let mut pairs = BTreeSet::new();
    bvh.for_each_self_pair(|i, j| assert!(pairs.insert((i, j))));
    assert_eq!(pairs, brute_self_pairs(&boxes64));
}

#[test]
fn self_pair_tasks_split_the_pairs_without_loss_or_repeat() {
    let mut rng = Rng::new(9);
    let boxes = random_boxes_up_to(&mut rng, 900, 1.0);
    let bvh = Bvh::build(&boxes);
    let expected = brute_self_pairs(&boxes);
    for at_least in [1, 2, 7, 64, 10_000] {
        let tasks = bvh.self_pair_tasks(at_least);
        assert!(
            tasks.len() >= at_least.min(50),
            "{} tasks for {at_least}",
            tasks.len()
        );
        let mut found = BTreeSet::new();
        for task in &tasks {
            bvh.for_each_self_pair_in(task, |i, j| {
                assert!(i < j);
                assert!(found.insert((i, j)), "pair ({i}, {j}) twice");
            });
        }
        assert_eq!(found, expected, "{at_least} tasks");
    }
    assert!(Bvh::<f64>::build(&[]).self_pair_tasks(8).is_empty());
}

/// Data kept in the tree order (`ordered[p]` is primitive
/// `tree_order()[p]`'s), as a mesh keeps its triangles, answers every
/// query like brute force over the primitives in their own order; leaves
/// of 1, 4 and 16 primitives (the packed leaf references' extremes).
#[test]
fn queries_in_tree_order_name_positions_of_the_tree_order() {
    let mut rng = Rng::new(12);
    for options in options() {
        let boxes = random_boxes(&mut rng, 900);
        let bvh = Bvh::build_with(&boxes, options);
        let order = bvh.tree_order();
        let mut seen = order.to_vec();
        seen.sort_unstable();
        assert_eq!(seen, (0..boxes.len() as u32).collect::<Vec<_>>());
        let ordered: Vec<Aabb<f64>> = order.iter().map(|&i| boxes[i as usize]).collect();
        for _ in 0..200 {
            let ray = random_ray(&mut rng);
            let expected = boxes
                .iter()
                .filter_map(|b| b.ray_interval(&ray, f64::INFINITY).map(|(t, _)| t))
                .min_by(f64::total_cmp);
            let hit = bvh.ray_cast_in_tree_order(&ray, f64::INFINITY, |p, best| {
                ordered[p as usize].ray_interval(&ray, best).map(|(t, _)| t)
            });
            assert_eq!(hit.map(|(_, t)| t), expected, "{ray:?}");
            if let Some((p, t)) = hit {
                let i = order[p as usize];
                assert_eq!(boxes[i as usize].ray_interval(&ray, f64::INFINITY).unwrap().0, t);
            }

            let p = Point3::from(rng.vector(90.0));
            let expected = boxes.iter().map(|b| box_distance(b, &p)).min_by(f64::total_cmp);
            let nearest = bvh.closest_in_tree_order(&p, f64::INFINITY, |q, _| {
                Some(box_distance(&ordered[q as usize], &p))
            });
            assert_eq!(nearest.map(|(_, d)| d), expected);

            let query = Aabb::from_half_extents(Point3::from(rng.vector(60.0)), rng.vector(8.0).abs());
            let expected: BTreeSet<u32> = (0..boxes.len() as u32)
                .filter(|&i| boxes[i as usize].intersects(&query))
                .collect();
            let mut found = BTreeSet::new();
            bvh.visit_aabb_in_tree_order(&query, |q| {
                assert!(ordered[q as usize].intersects(&query));
                assert!(found.insert(order[q as usize]));
                true
            });
            assert_eq!(found, expected);
        }
    }
}

/// The parallel build makes the sequential build's tree, node for node:
/// clustered boxes, a run of boxes with one centre (median splits) and
/// unbounded boxes, each large enough for several levels of parallel
/// tasks, with every leaf size.
#[cfg(feature = "parallel")]
#[test]
fn the_parallel_build_makes_the_sequential_tree() {
    let mut rng = Rng::new(41);
    let mut boxes = random_boxes(&mut rng, 60_000);
    let same_centre = Aabb::from_half_extents(Point3::new(1.0, 2.0, 3.0), Vector3::repeat(0.5));
    boxes.extend(std::iter::repeat_n(same_centre, 20_000));
    let inf = f64::INFINITY;
    boxes.push(Aabb::new(
        Point3::new(-inf, -inf, 0.0),
        Point3::new(inf, inf, 1.0),
    ));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    for options in options() {
        let sequential = Bvh::build_with(&boxes, options);
        let parallel = pool.install(|| Bvh::par_build_with(&boxes, options));
        assert!(parallel == sequential, "{options:?}");
        assert_eq!(parallel.len(), boxes.len());
    }
}

/// The surface cost sums the half areas of every node's children: four
/// unit cubes in leaves of one under one node cost 4 × 3, in one leaf the
/// box around them (31 × 1 × 1: 31 + 1 + 31); a tree refit with its boxes
/// shuffled (every primitive far from the neighbours it was built with)
/// costs several times its build, and a build over the shuffled boxes
/// costs as much as the first (the same boxes).
#[test]
fn surface_cost_sums_the_child_boxes_and_grows_as_a_refit_tree_wears() {
    let cubes: Vec<Aabb<f64>> = (0..4)
        .map(|i| Aabb::from_half_extents(Point3::new(10.0 * i as f64, 0.0, 0.0), Vector3::repeat(0.5)))
        .collect();
    let single = BvhOptions { max_leaf_size: 1 };
    assert_eq!(Bvh::build_with(&cubes, single).surface_cost(), 12.0);
    assert_eq!(Bvh::build(&cubes).surface_cost(), 63.0);
    let mut rng = Rng::new(43);
    let boxes = random_boxes(&mut rng, 2000);
    let mut bvh = Bvh::build_with(&boxes, BvhOptions { max_leaf_size: 1 });
    let built = bvh.surface_cost();
    let mut shuffled = boxes.clone();
    for k in (1..shuffled.len()).rev() {
        shuffled.swap(k, rng.below(k + 1));
    }
    bvh.refit(&shuffled);
    assert!(
        bvh.surface_cost() > 3.0 * built,
        "{} against {built}",
        bvh.surface_cost()
    );
    let rebuilt = Bvh::build_with(&shuffled, BvhOptions { max_leaf_size: 1 }).surface_cost();
    assert!(
        (rebuilt - built).abs() < 1e-9 * built,
        "{rebuilt} against {built}"
    );
    // An unbounded box makes the cost infinite (never "worn" by comparison).
    let mut wild = cubes.clone();
    wild.push(Aabb::new(
        Point3::new(-f64::INFINITY, 0.0, 0.0),
        Point3::new(0.0, 1.0, 1.0),
    ));
    assert_eq!(Bvh::build(&wild).surface_cost(), f64::INFINITY);
}
