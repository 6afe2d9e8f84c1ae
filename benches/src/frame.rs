//! The unit a physics engine feels: a whole frame's narrow phase, and
//! shapes resting on ground, through geom and parry3d on identical inputs
//! (f32; parry3d's shapes built from geom's, its poses the same numbers).
//!
//! - `frame/narrow_phase/cold` and `frame/narrow_phase/warm`: every
//!   candidate pair of a settled frame of the `rigid_bodies` example's
//!   scene at 100 bodies (`sim::crowded_world(100)` with the poses of
//!   `benches/data/frame_100.txt`, written by the example's
//!   `--bodies 100 --frame`): the pairs a `geom::World` with the example's
//!   margin (0.05) gives, the scenery against itself skipped; each pair's
//!   contact within that margin (parry3d: prediction). A pass is the whole
//!   frame, so its time is per frame. Cold: geom's dispatcher into one
//!   reused buffer, parry3d's `contact_manifolds` with a fresh workspace
//!   and emptied manifolds for every pair. Warm: the file's two last steps
//!   in turn, so that each pass starts from the other step's state, with
//!   parry3d keeping each pair's manifolds and workspace (as rapier does)
//!   and geom each pair's output buffer and [`PairCache`]
//!   ([`contact_cached`]).
//! - `terrain/<shape>_contact` and `mesh/<shape>_contact` for the sphere,
//!   capsule, box, cylinder and cone of the ray scenes (`shapes`), and the
//!   ellipsoid (geom alone): 1000 poses each, random orientations over a
//!   256 × 256 rolling heightfield (one unit per cell), the shape's lowest
//!   point sunk `0` to `5 %` of its size below the ground under it; margin
//!   0.05. The mesh rows use the same surface as a triangle mesh (the same
//!   triangles). Cold: a fresh parry3d workspace for every pose.
//!
//! The scenery is built with parry3d's internal-edge correction
//! (`HeightFieldFlags::FIX_INTERNAL_EDGES`, `TriMeshFlags::ORIENTED |
//! FIX_INTERNAL_EDGES`): the contact-ready ground a user who cares about
//! ghost collisions builds, as geom's always is. Before timing, the two
//! libraries' deepest depths are compared pair by pair and the number
//! that differ is printed on stderr, with the points each gives.

use super::*;
use geom::{PairCache, World, contact_cached};
use parry3d::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};
use parry3d::shape::{HeightFieldFlags, Shape as ParryShape, TriMesh as ParryTriMesh, TriMeshFlags};

#[path = "../../crates/geom/examples/rigid_bodies/sim.rs"]
#[allow(dead_code, missing_docs)]
mod sim;

/// The settled frame: the example's `--bodies 100 --frame` output.
const FRAME_100: &str = include_str!("../data/frame_100.txt");

/// Contact margin of the frame and the resting rows (the example's
/// `Settings::default().margin`; parry3d: prediction).
pub const MARGIN: f32 = 0.05;

/// Poses per resting row.
pub const POSES: usize = 1000;

/// Samples per side of the resting rows' ground.
const GROUND_SAMPLES: usize = 256;

/// One object of a scene in both libraries.
struct Object {
    geom: Arc<dyn Shape<f32>>,
    /// `None` where parry3d has no such shape (the ellipsoid).
    parry: Option<Arc<dyn ParryShape>>,
    /// parry3d's shape sits at the object's pose times this (a cone's
    /// centre is its half height from geom's origin).
    parry_offset: Pose,
}

impl Object {
    /// An object whose parry3d twin sits at the same pose.
    fn new(geom: Arc<dyn Shape<f32>>, parry: Option<Arc<dyn ParryShape>>) -> Self {
        Object {
            geom,
            parry,
            parry_offset: Pose::IDENTITY,
        }
    }

    /// The parry3d twin.
    fn parry(&self) -> &dyn ParryShape {
        self.parry.as_deref().expect("parry3d has the shape")
    }

    /// geom's heightfield, if the object is one.
    fn heightfield(&self) -> Option<&HeightField<f32>> {
        (&*self.geom as &dyn std::any::Any).downcast_ref()
    }
}

/// A geom body shape (f64, as the example builds them) in f32 for both
/// libraries.
fn body_object(shape: &dyn Shape<f64>) -> Object {
    let any = shape as &dyn std::any::Any;
    let point = |p: &Point3<f64>| p.cast::<f32>();
    let along_y = |a: &Point3<f64>, b: &Point3<f64>| {
        assert!(
            a.x == 0.0 && a.z == 0.0 && b.x == 0.0 && b.z == 0.0,
            "an axis along local y"
        );
        (a.y as f32, b.y as f32)
    };
    let plain = |geom: Arc<dyn Shape<f32>>, parry: Arc<dyn ParryShape>| Object::new(geom, Some(parry));
    if let Some(s) = any.downcast_ref::<Sphere<f64>>() {
        let r = s.radius as f32;
        plain(Arc::new(Sphere::new(r)), Arc::new(parry3d::shape::Ball::new(r)))
    } else if let Some(c) = any.downcast_ref::<Capsule<f64>>() {
        let (r, (y0, y1)) = (c.radius as f32, along_y(&c.a, &c.b));
        let parry = parry3d::shape::Capsule::new(Vector::new(0.0, y0, 0.0), Vector::new(0.0, y1, 0.0), r);
        plain(
            Arc::new(Capsule::from_points(point(&c.a), point(&c.b), r)),
            Arc::new(parry),
        )
    } else if let Some(b) = any.downcast_ref::<Cuboid<f64>>() {
        let h = b.half_extents.cast::<f32>();
        let parry = parry3d::shape::Cuboid::new(Vector::new(h.x, h.y, h.z));
        plain(Arc::new(Cuboid::new(h)), Arc::new(parry))
    } else if let Some(c) = any.downcast_ref::<Cylinder<f64>>() {
        let (r, (y0, y1)) = (c.radius as f32, along_y(&c.p0, &c.p1));
        assert_eq!(y0, -y1, "a cylinder centred on its origin");
        let parry = parry3d::shape::Cylinder::new(y1.abs(), r);
        plain(
            Arc::new(Cylinder::from_points(point(&c.p0), point(&c.p1), r)),
            Arc::new(parry),
        )
    } else if let Some(c) = any.downcast_ref::<Cone<f64>>() {
        let (r, (apex, base)) = (c.radius as f32, along_y(&c.apex, &c.base));
        assert!(apex > base, "apex up");
        Object {
            geom: Arc::new(Cone::from_points(point(&c.apex), point(&c.base), r)),
            parry: Some(Arc::new(parry3d::shape::Cone::new(0.5 * (apex - base), r))),
            parry_offset: Pose::from_translation(Vector::new(0.0, 0.5 * (apex + base), 0.0)),
        }
    } else {
        panic!("no f32 twin for {shape:?}")
    }
}

/// A geom heightfield in f32 for both libraries; its origin must be minus
/// half its extent (parry3d's are centred on the origin) and every cell
/// flipped (parry3d's diagonal).
fn field_object(field: &HeightField<f64>) -> Object {
    let desc = field.to_desc();
    let (rows, cols) = (desc.rows, desc.cols);
    assert_eq!(
        desc.flipped_cells.len(),
        (rows - 1) * (cols - 1),
        "parry3d's diagonals"
    );
    let extent = [
        (rows - 1) as f32 * desc.cell_size[0] as f32,
        (cols - 1) as f32 * desc.cell_size[1] as f32,
    ];
    let origin = desc.origin.cast::<f32>();
    assert!(origin.x == -0.5 * extent[0] && origin.z == -0.5 * extent[1] && origin.y == 0.0);
    let heights: Vec<f32> = desc.heights.iter().map(|&h| h as f32).collect();
    let mut ours = HeightFieldDesc::new(
        origin,
        desc.cell_size.map(|c| c as f32),
        rows,
        cols,
        heights.clone(),
    );
    ours.flipped_cells = desc.flipped_cells.clone();
    ours.hole_cells = desc.hole_cells.clone();
    ours.active_edge_angle = desc.active_edge_angle as f32;
    // parry3d's `Array2` is column-major with rows along z and columns
    // along x: `heights_zx[(j, i)]` sits at `j + i·cols`, geom's index of
    // sample (i, j).
    let parry = parry3d::shape::HeightField::with_flags(
        parry3d::utils::Array2::new(cols, rows, heights),
        Vector::new(extent[0], 1.0, extent[1]),
        HeightFieldFlags::FIX_INTERNAL_EDGES,
    );
    Object::new(
        Arc::new(HeightField::try_from_desc(ours).expect("a valid heightfield")),
        Some(Arc::new(parry)),
    )
}

/// A triangle mesh in f32 for both libraries.
fn mesh_object(vertices: &[Point3<f32>], indices: &[[u32; 3]]) -> Object {
    let parry = ParryTriMesh::with_flags(
        vertices.iter().map(|p| Vector::new(p.x, p.y, p.z)).collect(),
        indices.to_vec(),
        TriMeshFlags::ORIENTED | TriMeshFlags::FIX_INTERNAL_EDGES,
    )
    .expect("a valid mesh");
    Object::new(
        Arc::new(TriMesh::new(vertices.to_vec(), indices.to_vec()).expect("a valid mesh")),
        Some(Arc::new(parry)),
    )
}

/// A geom pose in parry3d's terms, with the object's offset.
fn parry_pose_of(object: &Object, pose: &Isometry3<f32>) -> Pose {
    pose_to_parry(pose) * object.parry_offset
}

/// The settled frame: objects (the ground, the dish, then the bodies),
/// their poses at the file's two steps, and the candidate pairs.
struct Frame {
    objects: Vec<Object>,
    steps: [Vec<Isometry3<f32>>; 2],
    pairs: Vec<(usize, usize)>,
}

/// The frame of `FRAME_100` (see the module documentation).
fn frame_100() -> Frame {
    let chunks: Vec<&str> = FRAME_100.split("# step").skip(1).collect();
    assert_eq!(chunks.len(), 2, "two steps in the frame file");
    let step_poses = |chunk: &str| {
        let (_, lines) = chunk.split_once('\n').expect("a step's poses");
        sim::parse_poses(lines).expect("a valid frame file")
    };
    let world = sim::crowded_world(100);
    let mut objects = vec![field_object(&world.ground), {
        let vertices: Vec<Point3<f32>> = world.dish.vertices().iter().map(|p| p.cast()).collect();
        mesh_object(&vertices, world.dish.indices())
    }];
    objects.extend(world.bodies.iter().map(|body| body_object(&*body.shape)));
    let steps = [0, 1].map(|k| {
        let bodies = step_poses(chunks[k]);
        assert_eq!(bodies.len(), world.bodies.len(), "a pose per body");
        let scenery = [Isometry3::identity(), Isometry3::identity()];
        scenery
            .into_iter()
            .chain(bodies.iter().map(|p| p.cast()))
            .collect::<Vec<_>>()
    });
    let mut broad_phase = World::with_margin(MARGIN).expect("a finite margin");
    for (k, (object, pose)) in objects.iter().zip(&steps[1]).enumerate() {
        broad_phase.insert(object.geom.clone(), *pose, k);
    }
    let mut handles = Vec::new();
    broad_phase.candidate_pairs(&mut handles);
    let pairs = handles
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (*broad_phase.data(a).unwrap(), *broad_phase.data(b).unwrap());
            (a.min(b), a.max(b))
        })
        .filter(|&(_, b)| b >= 2)
        .collect();
    Frame {
        objects,
        steps,
        pairs,
    }
}

/// The deepest point's depth (or `None`) and the number of points and
/// manifolds, of geom's contact.
fn geom_contact(
    table: &DispatchTable<f32>,
    (a, pose_a): (&Object, &Isometry3<f32>),
    (b, pose_b): (&Object, &Isometry3<f32>),
    out: &mut ContactManifolds<f32>,
) -> (Option<f32>, usize, usize) {
    table
        .contact(&*a.geom, pose_a, &*b.geom, pose_b, MARGIN, out)
        .expect("a built-in pair");
    let deepest = out.points().map(|(_, p)| p.depth).reduce(f32::max);
    (deepest, out.points().count(), out.len())
}

/// The same for parry3d's cold `contact_manifolds`.
fn parry_contact(
    (a, pose_a): (&Object, &Isometry3<f32>),
    (b, pose_b): (&Object, &Isometry3<f32>),
    manifolds: &mut Vec<ContactManifold<(), ()>>,
) -> (Option<f32>, usize, usize) {
    manifolds.clear();
    let mut workspace = None;
    let relative = parry_pose_of(a, pose_a).inv_mul(&parry_pose_of(b, pose_b));
    DefaultQueryDispatcher
        .contact_manifolds(&relative, a.parry(), b.parry(), MARGIN, manifolds, &mut workspace)
        .expect("parry3d has the pair");
    let points = manifolds.iter().flat_map(|m| m.points.iter());
    let deepest = points.clone().map(|p| -p.dist).reduce(f32::max);
    let manifold_count = manifolds.iter().filter(|m| !m.points.is_empty()).count();
    (deepest, points.count(), manifold_count)
}

/// Whether two deepest depths agree (within 2·10⁻³ + 2.5 %, or both absent,
/// or the one present at the margin's edge).
fn same_depth(ours: Option<f32>, theirs: Option<f32>) -> bool {
    match (ours, theirs) {
        (Some(a), Some(b)) => (a - b).abs() <= 2e-3 + 0.025 * a.abs().max(b.abs()),
        (None, None) => true,
        (Some(d), None) | (None, Some(d)) => (d + MARGIN).abs() < 2e-3,
    }
}

/// Prints how many pairs (or poses) the two libraries' deepest depths
/// differ on, and the points and manifolds each gives.
fn report_answers<'a>(
    name: &str,
    answers: impl Iterator<Item = ((Option<f32>, usize, usize), (Option<f32>, usize, usize))> + 'a,
) {
    let (mut count, mut differ, mut ours, mut theirs) = (0, 0, (0, 0), (0, 0));
    for (a, b) in answers {
        count += 1;
        differ += usize::from(!same_depth(a.0, b.0));
        ours = (ours.0 + a.1, ours.1 + a.2);
        theirs = (theirs.0 + b.1, theirs.1 + b.2);
    }
    eprintln!(
        "{name}: {count} pairs; geom {} points in {} manifolds, parry3d {} points in {} manifolds; deepest depths differ on {differ}",
        ours.0, ours.1, theirs.0, theirs.1
    );
}

/// The `frame/narrow_phase/…` measures.
fn frame_measures(measures: &mut Vec<Measure>, table: &Arc<DispatchTable<f32>>) {
    let frame = Arc::new(frame_100());
    let mut out = ContactManifolds::new();
    let mut manifolds = Vec::new();
    let poses = &frame.steps[1];
    report_answers(
        "frame/narrow_phase",
        frame.pairs.iter().map(|&(a, b)| {
            let (a, b) = ((&frame.objects[a], &poses[a]), (&frame.objects[b], &poses[b]));
            (
                geom_contact(table, a, b, &mut out),
                parry_contact(a, b, &mut manifolds),
            )
        }),
    );
    report_pair_kinds(&frame, table);
    let (f, t) = (frame.clone(), table.clone());
    let geom_cold: Pass = Box::new(move || {
        let poses = &f.steps[1];
        let mut sum = 0.0;
        for &(a, b) in &f.pairs {
            let (a, b) = ((&f.objects[a], &poses[a]), (&f.objects[b], &poses[b]));
            sum += geom_contact(black_box(&t), a, b, &mut out).0.unwrap_or(0.0);
        }
        black_box(sum)
    });
    let f = frame.clone();
    let parry_cold: Pass = Box::new(move || {
        let poses = &f.steps[1];
        let mut sum = 0.0;
        for &(a, b) in &f.pairs {
            let (a, b) = ((&f.objects[a], &poses[a]), (&f.objects[b], &poses[b]));
            sum += parry_contact(a, b, &mut manifolds).0.unwrap_or(0.0);
        }
        black_box(sum)
    });
    measures.push(Measure {
        name: "frame/narrow_phase/cold".to_string(),
        baseline: None,
        items: 1,
        geom: geom_cold,
        parry: Some(parry_cold),
    });
    let (f, t) = (frame.clone(), table.clone());
    let mut kept: Vec<(ContactManifolds<f32>, PairCache<f32>)> = (0..frame.pairs.len())
        .map(|_| (ContactManifolds::new(), PairCache::new()))
        .collect();
    let mut step = 0;
    let geom_warm: Pass = Box::new(move || {
        step = 1 - step;
        let poses = &f.steps[step];
        let mut sum = 0.0;
        for (&(a, b), (out, cache)) in f.pairs.iter().zip(&mut kept) {
            let (a, b) = ((&f.objects[a], &poses[a]), (&f.objects[b], &poses[b]));
            contact_cached(
                black_box(&t),
                &*a.0.geom,
                a.1,
                &*b.0.geom,
                b.1,
                MARGIN,
                cache,
                out,
            )
            .expect("a built-in pair");
            sum += out.points().map(|(_, p)| p.depth).fold(0.0, f32::max);
        }
        black_box(sum)
    });
    let f = frame.clone();
    type Kept = (Vec<ContactManifold<(), ()>>, Option<ContactManifoldsWorkspace>);
    let mut kept: Vec<Kept> = (0..frame.pairs.len()).map(|_| (Vec::new(), None)).collect();
    let mut step = 0;
    let parry_warm: Pass = Box::new(move || {
        step = 1 - step;
        let poses = &f.steps[step];
        let mut sum = 0.0;
        for (&(a, b), (manifolds, workspace)) in f.pairs.iter().zip(&mut kept) {
            let (a, b) = ((&f.objects[a], &poses[a]), (&f.objects[b], &poses[b]));
            let relative = parry_pose_of(a.0, a.1).inv_mul(&parry_pose_of(b.0, b.1));
            DefaultQueryDispatcher
                .contact_manifolds(&relative, a.0.parry(), b.0.parry(), MARGIN, manifolds, workspace)
                .expect("parry3d has the pair");
            sum += manifolds
                .iter()
                .flat_map(|m| m.points.iter())
                .map(|p| -p.dist)
                .fold(0.0, f32::max);
        }
        black_box(sum)
    });
    measures.push(Measure {
        name: "frame/narrow_phase/warm".to_string(),
        baseline: None,
        items: 1,
        geom: geom_warm,
        parry: Some(parry_warm),
    });
}

/// Prints where the cold frame's time goes: per pair of shape kinds, the
/// pairs, and each library's total time over them (the fastest of five
/// runs of each pair).
fn report_pair_kinds(frame: &Frame, table: &DispatchTable<f32>) {
    use std::collections::BTreeMap;
    let (mut out, mut manifolds) = (ContactManifolds::new(), Vec::new());
    let mut kinds: BTreeMap<String, (usize, f64, f64)> = BTreeMap::new();
    let poses = &frame.steps[1];
    let fastest = |run: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let start = std::time::Instant::now();
                run();
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    for &(a, b) in &frame.pairs {
        let (a, b) = ((&frame.objects[a], &poses[a]), (&frame.objects[b], &poses[b]));
        let name = format!("{:?}-{:?}", a.0.geom.kind(), b.0.geom.kind());
        let ours = fastest(&mut || {
            black_box(geom_contact(table, a, b, &mut out));
        });
        let theirs = fastest(&mut || {
            black_box(parry_contact(a, b, &mut manifolds));
        });
        let entry = kinds.entry(name).or_default();
        *entry = (entry.0 + 1, entry.1 + ours, entry.2 + theirs);
    }
    for (name, (count, ours, theirs)) in kinds {
        eprintln!(
            "  {name:<24} {count:>4} pairs  geom {:>9.1} µs  parry3d {:>8.1} µs  x{:.2}",
            ours * 1e6,
            theirs * 1e6,
            theirs / ours
        );
    }
}

/// The resting rows' ground height at world `(x, z)`: gentle rolling
/// hills (slopes up to about 1 in 3).
fn ground_height(x: f64, z: f64) -> f64 {
    1.5 * (0.11 * x).sin() * (0.09 * z).cos() + 0.6 * (0.23 * x + 0.17 * z + 0.5).sin()
}

/// The resting rows' ground as a heightfield and as a mesh of the same
/// triangles (sample `(i, j)` at `x = −127.5 + i`, `z = −127.5 + j`; each
/// cell split from `(i + 1, j)` to `(i, j + 1)`, as parry3d splits them).
fn grounds() -> (Object, Object) {
    let n = GROUND_SAMPLES;
    let half = (n - 1) as f64 / 2.0;
    let heights: Vec<f64> = (0..n * n)
        .map(|k| ground_height((k / n) as f64 - half, (k % n) as f64 - half))
        .collect();
    let mut desc = HeightFieldDesc::new(Point3::new(-half, 0.0, -half), [1.0, 1.0], n, n, heights);
    desc.flipped_cells = (0..(n - 1) * (n - 1)).collect();
    let field = field_object(&HeightField::try_from_desc(desc).expect("a valid heightfield"));
    let field_geom = field.heightfield().expect("a heightfield");
    let vertices: Vec<Point3<f32>> = (0..n * n)
        .map(|k| field_geom.sample_point(k / n, k % n))
        .collect();
    let v = |i: usize, j: usize| (i * n + j) as u32;
    let mut indices = Vec::with_capacity(2 * (n - 1) * (n - 1));
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            indices.push([v(i, j), v(i, j + 1), v(i + 1, j)]);
            indices.push([v(i + 1, j), v(i, j + 1), v(i + 1, j + 1)]);
        }
    }
    let mesh = mesh_object(&vertices, &indices);
    (field, mesh)
}

/// `POSES` poses of `shape` over the ground (see the module
/// documentation), from `seed`.
fn resting_poses(shape: &dyn Shape<f32>, field: &HeightField<f32>, seed: u64) -> Vec<Isometry3<f32>> {
    let mut rng = Rng::new(seed);
    let local = shape.local_aabb();
    let size = (local.maxs - local.mins).amax();
    (0..POSES)
        .map(|_| {
            let (x, z) = (rng.range_f32(-110.0, 110.0), rng.range_f32(-110.0, 110.0));
            let axis = geom::nalgebra::Unit::new_normalize(rng.direction_f32());
            let rotation = UnitQuaternion::from_axis_angle(&axis, rng.range_f32(0.0, std::f32::consts::PI));
            let probe = Isometry3::from_parts(Translation3::new(x, 0.0, z), rotation);
            let lowest = shape.support(&probe, &-Vector3::y()).expect("a convex shape");
            let ground = field.surface_y_at(lowest.x, lowest.z).expect("over the ground");
            let sink = rng.range_f32(0.0, 0.05) * size;
            Isometry3::from_parts(Translation3::new(x, ground - lowest.y - sink, z), rotation)
        })
        .collect()
}

/// The `terrain/<shape>_contact` and `mesh/<shape>_contact` measures.
fn resting_measures(measures: &mut Vec<Measure>, table: &Arc<DispatchTable<f32>>) {
    let (field, mesh) = grounds();
    let (field, mesh) = (Arc::new(field), Arc::new(mesh));
    let movers: Vec<(&str, Object)> = {
        let both = |geom: Arc<dyn Shape<f32>>, parry: Arc<dyn ParryShape>| Object::new(geom, Some(parry));
        let (sphere, ball) = shapes::sphere();
        let (capsule, parry_capsule) = shapes::capsule();
        let (cuboid, parry_cuboid) = shapes::cuboid();
        let (cylinder, parry_cylinder) = shapes::cylinder();
        let (cone, parry_cone) = shapes::cone();
        vec![
            ("sphere", both(Arc::new(sphere), Arc::new(ball))),
            ("capsule", both(Arc::new(capsule), Arc::new(parry_capsule))),
            ("box", both(Arc::new(cuboid), Arc::new(parry_cuboid))),
            ("cylinder", both(Arc::new(cylinder), Arc::new(parry_cylinder))),
            ("cone", both(Arc::new(cone), Arc::new(parry_cone))),
            ("ellipsoid", Object::new(Arc::new(shapes::ellipsoid()), None)),
        ]
    };
    for (k, (name, mover)) in movers.into_iter().enumerate() {
        let geom_only = mover.parry.is_none();
        let field_geom = field.heightfield().expect("a heightfield");
        let poses = Arc::new(resting_poses(&*mover.geom, field_geom, 60 + k as u64));
        let mover = Arc::new(mover);
        for (surface_name, surface) in [("terrain", &field), ("mesh", &mesh)] {
            let row = format!("{surface_name}/{name}_contact");
            let identity = Isometry3::identity();
            if !geom_only {
                let (mut out, mut manifolds) = (ContactManifolds::new(), Vec::new());
                report_answers(
                    &row,
                    poses.iter().map(|pose| {
                        let (a, b) = ((&**surface, &identity), (&*mover, pose));
                        (
                            geom_contact(table, a, b, &mut out),
                            parry_contact(a, b, &mut manifolds),
                        )
                    }),
                );
            }
            let (s, m, p, t) = (surface.clone(), mover.clone(), poses.clone(), table.clone());
            let mut out = ContactManifolds::new();
            let geom: Pass = Box::new(move || {
                let identity = Isometry3::identity();
                let mut sum = 0.0;
                for pose in p.iter() {
                    sum += geom_contact(black_box(&t), (&s, &identity), (&m, pose), &mut out)
                        .0
                        .unwrap_or(0.0);
                }
                black_box(sum)
            });
            let (s, m, p) = (surface.clone(), mover.clone(), poses.clone());
            let mut manifolds = Vec::new();
            let parry: Option<Pass> = (!geom_only).then(|| -> Pass {
                Box::new(move || {
                    let identity = Isometry3::identity();
                    let mut sum = 0.0;
                    for pose in p.iter() {
                        sum += parry_contact((&s, &identity), (&m, pose), &mut manifolds)
                            .0
                            .unwrap_or(0.0);
                    }
                    black_box(sum)
                })
            });
            measures.push(Measure {
                name: row,
                baseline: None,
                items: POSES,
                geom,
                parry,
            });
        }
    }
}

/// The `frame/…`, `terrain/<shape>_contact` and `mesh/<shape>_contact`
/// measures (see the module documentation).
pub fn measures(measures: &mut Vec<Measure>) {
    let table = Arc::new(geom::default_dispatcher::<f32>());
    frame_measures(measures, &table);
    resting_measures(measures, &table);
}
