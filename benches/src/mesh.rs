//! Meshes, trees and a world of moving boxes, through geom and parry3d on
//! the same inputs.
//!
//! The mesh is a 708 × 708-sample rolling terrain exported as triangles
//! (999 698 triangles, shared vertices), about 100 units across.
//!
//! - `mesh/build_1e6`: geom's `TriMesh::new` (tree, neighbours, active
//!   edges, pseudo-normals) against parry3d's `TriMesh::with_flags` with
//!   `ORIENTED | FIX_INTERNAL_EDGES` (tree, merged vertices, topology,
//!   pseudo-normals): the mesh a contact-ready user builds.
//! - `bvh/build_1e6`: geom's `Bvh::build` against parry3d's
//!   `Bvh::from_leaves` (binned), on the triangles' boxes; `/par`: geom's
//!   `Bvh::par_build` on the thread pool (the same tree) against the same
//!   single-threaded parry3d build (it has no parallel one).
//! - `mesh/rays_1e6/trait`: 10⁶ rays from above the terrain, down at
//!   random slants, through the `Shape` trait against parry's
//!   `cast_ray_and_get_normal`; `mesh/rays_1e6/par`: the same rays split
//!   over the thread pool, both libraries alike; `mesh/rays_1e6/batch`:
//!   geom's `ray_cast_batch` (which casts in the tree's ray order) against
//!   parry's per-ray loop (parry3d has no batch); and
//!   `mesh/rays_1e6/trait_presorted`: both per-ray loops over the rays
//!   sorted in that order beforehand (what the order alone gives each).
//! - `mesh/capsule_contact/cold`: a capsule resting on the mesh at 1000
//!   poses, geom's dispatcher into a reused buffer against parry's
//!   `contact_manifolds` with a fresh workspace (the first contact of a
//!   pair).
//! - `world/pairs_1e4_boxes/step`: 10⁴ boxes in a 60-unit cube, each
//!   moved by its own small step (up to 0.05 per axis) every pass, the
//!   same way for 16 passes, then back for 16; geom's `World` (`set_pose` for each,
//!   then `candidate_pairs`, sorted) against parry3d's `Bvh` used as a
//!   broad phase (`insert_or_update_partially` for each, `refit`, then
//!   `traverse_bvtt_single_tree` into a list). `world/pairs_1e4_boxes/drift`:
//!   the same, turning back every 512 passes rather than 16, so that over
//!   a measurement the boxes mostly drift one way (the case in which an
//!   object's room in the world runs out at a steady rate), parry3d's tree
//!   optimized incrementally at every step (`optimize_incremental`, as
//!   rapier's broad phase does by default) so that it does not decay.

use super::*;
use geom::batch::ray_cast_batch;
use geom::nalgebra::Unit;
use geom::{Bvh, World};
use parry3d::bounding_volume::Aabb as ParryAabb;
use parry3d::partitioning::{Bvh as ParryBvh, BvhBuildStrategy, BvhWorkspace};
use parry3d::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d::shape::{Shape as _, TriMesh as ParryTriMesh, TriMeshFlags};
use rayon::prelude::*;

/// Samples per side of the benchmark terrain mesh.
const SIDE: usize = 708;

/// The terrain mesh's vertices and triangles: heights from a few sines.
fn terrain_mesh() -> (Vec<Point3<f32>>, Vec<[u32; 3]>) {
    let spacing = 100.0 / SIDE as f32;
    let mut vertices = Vec::with_capacity(SIDE * SIDE);
    for i in 0..SIDE {
        for j in 0..SIDE {
            let (x, z) = (i as f32 * spacing - 50.0, j as f32 * spacing - 50.0);
            let y = 2.0 * (0.13 * x).sin() * (0.11 * z).cos() + 0.5 * (0.7 * x + 0.3 * z).sin();
            vertices.push(Point3::new(x, y, z));
        }
    }
    let mut indices = Vec::with_capacity(2 * (SIDE - 1) * (SIDE - 1));
    for i in 0..SIDE - 1 {
        for j in 0..SIDE - 1 {
            let v = |a: usize, b: usize| (a * SIDE + b) as u32;
            indices.push([v(i, j), v(i + 1, j + 1), v(i + 1, j)]);
            indices.push([v(i, j), v(i, j + 1), v(i + 1, j + 1)]);
        }
    }
    (vertices, indices)
}

fn parry_vertices(vertices: &[Point3<f32>]) -> Vec<Vector> {
    vertices.iter().map(|p| Vector::new(p.x, p.y, p.z)).collect()
}

fn parry_mesh(vertices: &[Point3<f32>], indices: &[[u32; 3]]) -> ParryTriMesh {
    ParryTriMesh::with_flags(
        parry_vertices(vertices),
        indices.to_vec(),
        TriMeshFlags::ORIENTED | TriMeshFlags::FIX_INTERNAL_EDGES,
    )
    .expect("a valid mesh")
}

/// 10⁶ rays from 5–15 above the terrain, down at up to 60° from vertical.
fn mesh_rays(count: usize) -> Rays {
    let mut rng = geom_random::Rng::new(7);
    let geom: Vec<Ray<f32>> = (0..count)
        .map(|_| {
            let origin = Point3::new(
                rng.range_f32(-45.0, 45.0),
                rng.range_f32(5.0, 15.0),
                rng.range_f32(-45.0, 45.0),
            );
            let slant = rng.range_f32(0.0, 1.7);
            let angle = rng.range_f32(0.0, std::f32::consts::TAU);
            let dir = Vector3::new(slant * angle.cos(), -1.0, slant * angle.sin());
            Ray::new(origin, dir)
        })
        .collect();
    Rays {
        batch: RayBatch::from_rays(&geom),
        parry: geom.iter().map(to_parry).collect(),
        geom,
    }
}

/// The per-ray loop through geom's `Shape::ray_cast`: the sum of the hit
/// times.
fn geom_mesh_rays(mesh: &TriMesh<f32>, rays: &[Ray<f32>]) -> f32 {
    let pose = Isometry3::identity();
    rays.iter()
        .map(|ray| sum_t(black_box(mesh).ray_cast(&pose, ray, f32::MAX, true).map(|h| h.t)))
        .sum()
}

/// The per-ray loop through parry3d's `cast_ray_and_get_normal`: the sum
/// of the hit times.
fn parry_mesh_rays(mesh: &ParryTriMesh, rays: &[parry3d::query::Ray]) -> f32 {
    rays.iter()
        .map(|ray| {
            let hit = black_box(mesh).cast_ray_and_get_normal(&Pose::IDENTITY, ray, f32::MAX, true);
            sum_t(hit.map(|h| h.time_of_impact))
        })
        .sum()
}

/// Panics unless both meshes answer the first rays alike (hit or miss,
/// times within 10⁻³ relative).
fn check_same_mesh(ours: &TriMesh<f32>, theirs: &ParryTriMesh, rays: &Rays) {
    let pose = Isometry3::identity();
    for (k, (ray, parry_ray)) in rays.geom.iter().zip(&rays.parry).take(2000).enumerate() {
        let a = ours.ray_cast(&pose, ray, f32::MAX, true).map(|h| h.t);
        let b = theirs
            .cast_ray_and_get_normal(&Pose::IDENTITY, parry_ray, f32::MAX, true)
            .map(|h| h.time_of_impact);
        let same = match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-3 * (1.0 + a.abs()),
            (None, None) => true,
            _ => false,
        };
        assert!(same, "mesh ray {k}: geom {a:?}, parry3d {b:?}");
    }
}

/// Adds the mesh, tree and world measures.
pub fn measures(measures: &mut Vec<Measure>, pool: &Arc<rayon::ThreadPool>) {
    let (vertices, indices) = terrain_mesh();
    let (vertices, indices) = (Arc::new(vertices), Arc::new(indices));
    let (gv, gi, pv, pi) = (
        vertices.clone(),
        indices.clone(),
        vertices.clone(),
        indices.clone(),
    );
    measures.push(Measure {
        name: "mesh/build_1e6/trimesh".to_string(),
        baseline: None,
        items: 1,
        geom: Box::new(move || {
            let mesh = TriMesh::new(gv.to_vec(), gi.to_vec()).expect("a valid mesh");
            black_box(mesh.triangle_count() as f32)
        }),
        parry: Some(Box::new(move || {
            let mesh = parry_mesh(&pv, &pi);
            black_box(mesh.num_triangles() as f32)
        })),
    });
    let boxes: Vec<Aabb<f32>> = indices
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|v| vertices[v as usize]);
            Aabb::new(a, a).including(&b).including(&c)
        })
        .collect();
    let parry_boxes: Vec<ParryAabb> = boxes
        .iter()
        .map(|b| {
            ParryAabb::new(
                Vector::new(b.mins.x, b.mins.y, b.mins.z),
                Vector::new(b.maxs.x, b.maxs.y, b.maxs.z),
            )
        })
        .collect();
    let (boxes, parry_boxes) = (Arc::new(boxes), Arc::new(parry_boxes));
    let (gb, pb) = (boxes.clone(), parry_boxes.clone());
    measures.push(Measure {
        name: "bvh/build_1e6/boxes".to_string(),
        baseline: None,
        items: 1,
        geom: Box::new(move || black_box(Bvh::build(&gb).node_count() as f32)),
        parry: Some(Box::new(move || {
            black_box(ParryBvh::from_leaves(BvhBuildStrategy::Binned, &pb).leaf_count() as f32)
        })),
    });
    let gp = pool.clone();
    measures.push(Measure {
        name: "bvh/build_1e6/par".to_string(),
        baseline: Some("bvh/build_1e6/boxes".to_string()),
        items: 1,
        geom: Box::new(move || black_box(gp.install(|| Bvh::par_build(&boxes)).node_count() as f32)),
        parry: Some(Box::new(move || {
            black_box(ParryBvh::from_leaves(BvhBuildStrategy::Binned, &parry_boxes).leaf_count() as f32)
        })),
    });

    let ours = Arc::new(TriMesh::new(vertices.to_vec(), indices.to_vec()).expect("a valid mesh"));
    let theirs = Arc::new(parry_mesh(&vertices, &indices));
    let rays = Arc::new(mesh_rays(LARGE_RAYS));
    check_same_mesh(&ours, &theirs, &rays);
    let (om, tm, gr, pr) = (ours.clone(), theirs.clone(), rays.clone(), rays.clone());
    measures.push(Measure {
        name: "mesh/rays_1e6/trait".to_string(),
        baseline: None,
        items: rays.geom.len(),
        geom: Box::new(move || black_box(geom_mesh_rays(&om, &gr.geom))),
        parry: Some(Box::new(move || black_box(parry_mesh_rays(&tm, &pr.parry)))),
    });
    let (om, tm, gr, pr) = (ours.clone(), theirs.clone(), rays.clone(), rays.clone());
    let mut hits = HitBatch::new();
    measures.push(Measure {
        name: "mesh/rays_1e6/batch".to_string(),
        baseline: Some("mesh/rays_1e6/trait".to_string()),
        items: rays.geom.len(),
        geom: Box::new(move || {
            ray_cast_batch(&*om, &Isometry3::identity(), &gr.batch, f32::MAX, true, &mut hits);
            black_box(hits.iter().map(|h| sum_t(h.map(|h| h.t))).sum::<f32>())
        }),
        parry: Some(Box::new(move || black_box(parry_mesh_rays(&tm, &pr.parry)))),
    });
    // What the order alone gives either library: the same rays sorted by
    // geom's ray order before the timing, cast one by one by both.
    let order = ours.bvh().ray_order().expect("a bounded mesh");
    let mut keyed: Vec<(u32, usize)> = rays
        .geom
        .iter()
        .enumerate()
        .map(|(i, ray)| (order.key(ray, f32::MAX), i))
        .collect();
    keyed.sort_unstable();
    let sorted = Arc::new(Rays {
        geom: keyed.iter().map(|&(_, i)| rays.geom[i]).collect(),
        batch: RayBatch::new(),
        parry: keyed.iter().map(|&(_, i)| rays.parry[i]).collect(),
    });
    let (om, tm, gr, pr) = (ours.clone(), theirs.clone(), sorted.clone(), sorted);
    measures.push(Measure {
        name: "mesh/rays_1e6/trait_presorted".to_string(),
        baseline: Some("mesh/rays_1e6/trait".to_string()),
        items: gr.geom.len(),
        geom: Box::new(move || black_box(geom_mesh_rays(&om, &gr.geom))),
        parry: Some(Box::new(move || black_box(parry_mesh_rays(&tm, &pr.parry)))),
    });
    let (om, tm, gr, pr) = (ours.clone(), theirs.clone(), rays.clone(), rays.clone());
    let (gp, pp) = (pool.clone(), pool.clone());
    measures.push(Measure {
        name: "mesh/rays_1e6/par".to_string(),
        baseline: Some("mesh/rays_1e6/trait".to_string()),
        items: rays.geom.len(),
        geom: Box::new(move || {
            let sum: f32 = gp.install(|| {
                gr.geom
                    .par_chunks(16 * 1024)
                    .map(|chunk| geom_mesh_rays(&om, chunk))
                    .sum()
            });
            black_box(sum)
        }),
        parry: Some(Box::new(move || {
            let sum: f32 = pp.install(|| {
                pr.parry
                    .par_chunks(16 * 1024)
                    .map(|chunk| parry_mesh_rays(&tm, chunk))
                    .sum()
            });
            black_box(sum)
        })),
    });

    // A capsule resting on the mesh: placed just into the surface under
    // random points, lying at random angles.
    let table = Arc::new(geom::default_dispatcher::<f32>());
    let mut rng = geom_random::Rng::new(11);
    let capsule = Capsule::from_points(Point3::new(0.0, -0.4, 0.0), Point3::new(0.0, 0.4, 0.0), 0.3f32);
    let parry_capsule =
        parry3d::shape::Capsule::new(Vector::new(0.0, -0.4, 0.0), Vector::new(0.0, 0.4, 0.0), 0.3);
    let poses: Vec<Isometry3<f32>> = (0..1000)
        .map(|_| {
            let (x, z) = (rng.range_f32(-40.0, 40.0), rng.range_f32(-40.0, 40.0));
            let down = Ray::new(Point3::new(x, 50.0, z), -Vector3::y());
            let ground = 50.0
                - ours
                    .ray_cast(&Isometry3::identity(), &down, f32::MAX, true)
                    .expect("over the mesh")
                    .t;
            let tilt = rng.range_f32(0.0, 1.5);
            let rotation = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), tilt);
            Isometry3::from_parts(
                Translation3::new(x, ground + 0.3 + 0.35 * tilt.cos() - 0.05, z),
                rotation,
            )
        })
        .collect();
    let parry_poses: Vec<Pose> = poses.iter().map(pose_to_parry).collect();
    let (om, tm) = (ours.clone(), theirs.clone());
    let mut out = ContactManifolds::new();
    let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
    measures.push(Measure {
        name: "mesh/capsule_contact/cold".to_string(),
        baseline: None,
        items: poses.len(),
        geom: Box::new(move || {
            let mut sum = 0.0;
            for pose in &poses {
                table
                    .contact(&*om, &Isometry3::identity(), &capsule, pose, 0.0, &mut out)
                    .expect("a supported pair");
                sum += out.points().map(|(_, p)| p.depth).sum::<f32>();
            }
            black_box(sum)
        }),
        parry: Some(Box::new(move || {
            let mut sum = 0.0;
            for pose in &parry_poses {
                manifolds.clear();
                let mut workspace = None;
                let _ = DefaultQueryDispatcher.contact_manifolds(
                    pose,
                    &*tm,
                    &parry_capsule,
                    0.0,
                    &mut manifolds,
                    &mut workspace,
                );
                sum += manifolds
                    .iter()
                    .flat_map(|m| m.points.iter())
                    .map(|p| -p.dist)
                    .sum::<f32>();
            }
            black_box(sum)
        })),
    });
    world_measures(measures, "world/pairs_1e4_boxes/step", 16, false);
    world_measures(measures, "world/pairs_1e4_boxes/drift", 512, true);
}

/// `world/pairs_1e4_boxes/step` and `/drift`: see the module
/// documentation. Every box turns back every `reverse_every` passes;
/// parry3d's tree is optimized at every step when `parry_optimizes`.
fn world_measures(measures: &mut Vec<Measure>, name: &str, reverse_every: usize, parry_optimizes: bool) {
    const COUNT: usize = 10_000;
    let mut rng = geom_random::Rng::new(13);
    let halves: Vec<Vector3<f32>> = (0..COUNT)
        .map(|_| {
            Vector3::new(
                rng.range_f32(0.2, 1.0),
                rng.range_f32(0.2, 1.0),
                rng.range_f32(0.2, 1.0),
            )
        })
        .collect();
    let starts: Vec<Isometry3<f32>> = (0..COUNT)
        .map(|_| {
            let axis = Unit::new_normalize(Vector3::new(
                rng.range_f32(-1.0, 1.0),
                rng.range_f32(-1.0, 1.0),
                rng.range_f32(-1.0, 1.0) + 2.0,
            ));
            Isometry3::from_parts(
                Translation3::new(
                    rng.range_f32(-30.0, 30.0),
                    rng.range_f32(-30.0, 30.0),
                    rng.range_f32(-30.0, 30.0),
                ),
                UnitQuaternion::from_axis_angle(&axis, rng.range_f32(0.0, 3.0)),
            )
        })
        .collect();
    // A step per box, applied forwards for `reverse_every` passes, then
    // backwards as long, so the boxes keep moving but stay in the cube.
    let steps: Vec<Vector3<f32>> = (0..COUNT)
        .map(|_| {
            Vector3::new(
                rng.range_f32(-0.05, 0.05),
                rng.range_f32(-0.05, 0.05),
                rng.range_f32(-0.05, 0.05),
            )
        })
        .collect();
    let steps = Arc::new(steps);
    let mut world: World<f32, usize> = World::new();
    let handles: Vec<_> = (0..COUNT)
        .map(|i| world.insert(Arc::new(Cuboid::new(halves[i])), starts[i], i))
        .collect();
    let mut geom_poses = starts.clone();
    let mut pairs = Vec::new();
    let mut geom_pass = 0usize;
    let geom_steps = steps.clone();
    let parry_cuboids: Vec<parry3d::shape::Cuboid> = halves
        .iter()
        .map(|h| parry3d::shape::Cuboid::new(Vector::new(h.x, h.y, h.z)))
        .collect();
    let mut parry_poses = starts.clone();
    let mut bvh = ParryBvh::new();
    let mut workspace = BvhWorkspace::default();
    for (i, pose) in starts.iter().enumerate() {
        bvh.insert(parry_aabb(&parry_cuboids[i], pose), i as u32);
    }
    let mut parry_pairs: Vec<(u32, u32)> = Vec::new();
    let mut parry_pass = 0usize;
    measures.push(Measure {
        name: name.to_string(),
        baseline: None,
        items: COUNT,
        geom: Box::new(move || {
            let sign = if (geom_pass / reverse_every).is_multiple_of(2) {
                1.0
            } else {
                -1.0
            };
            geom_pass += 1;
            for (i, pose) in geom_poses.iter_mut().enumerate() {
                pose.translation.vector += geom_steps[i] * sign;
                world.set_pose(handles[i], *pose);
            }
            world.candidate_pairs(&mut pairs);
            black_box(pairs.len() as f32)
        }),
        parry: Some(Box::new(move || {
            let sign = if (parry_pass / reverse_every).is_multiple_of(2) {
                1.0
            } else {
                -1.0
            };
            parry_pass += 1;
            for (i, pose) in parry_poses.iter_mut().enumerate() {
                pose.translation.vector += steps[i] * sign;
                bvh.insert_or_update_partially(parry_aabb(&parry_cuboids[i], pose), i as u32, 0.0);
            }
            // Rapier's broad phase, by default, optimizes the tree a
            // little at every step (rebuilding some subtrees) before the
            // refit; without it a drifting tree decays.
            if parry_optimizes {
                bvh.optimize_incremental(&mut workspace);
            }
            bvh.refit(&mut workspace);
            parry_pairs.clear();
            bvh.traverse_bvtt_single_tree::<false>(&mut workspace, &mut |a, b| parry_pairs.push((a, b)));
            black_box(parry_pairs.len() as f32)
        })),
    });
}

/// A cuboid's box at a geom pose, in parry3d's terms.
fn parry_aabb(cuboid: &parry3d::shape::Cuboid, pose: &Isometry3<f32>) -> ParryAabb {
    let (t, q) = (pose.translation.vector, pose.rotation);
    let pose = Pose::from_parts(Vector::new(t.x, t.y, t.z), Rot3::from_xyzw(q.i, q.j, q.k, q.w));
    cuboid.compute_aabb(&pose)
}
