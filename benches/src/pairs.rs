//! Pair contacts through geom's `default_dispatcher()` and through
//! parry3d's query functions, on the same shapes and poses.
//!
//! Shapes are the ray-cast scenes' (`shapes`): sphere r = 1, capsule
//! r = 0.5 around y ∈ [−1, 1], box (1, 0.6, 0.8), cylinder r = 0.8 and cone
//! r = 0.8 over y ∈ [−1, 1], plus the half-space y ≤ 0. For each pair,
//! 1000 poses: `a` at the origin with a random rotation, `b` with a random
//! rotation at a random direction and a distance uniform in 0.4–1.1 times
//! the sum of the bounding radii (mostly overlapping, some apart), margin
//! (parry: prediction) 0.1.
//!
//! - `pairs/<a>_<b>/contact`: geom `DispatchTable::contact` on
//!   `&dyn Shape` into a reused buffer against parry's one-shot
//!   `query::contact` (its deepest point only).
//! - `pairs/<a>_<b>/manifold`: the same geom call against parry's
//!   `DefaultQueryDispatcher::contact_manifolds` with a fresh workspace
//!   and an emptied manifold list (cold, no frame-to-frame persistence).
//!
//! Before timing, both libraries' deepest depths are compared on every
//! pose: a pair whose answers differ by more than 2·10⁻³ + 2.5% (or where
//! one finds a contact and the other does not, away from the margin's edge)
//! on more than 1% of the poses panics the binary. The slack covers two
//! known differences: geom's box–box and capsule–box prefer a face axis
//! unless an edge axis is 2% shallower (stable resting manifolds), and
//! parry3d's capsule–capsule depths are off by up to 2·10⁻³ (checked against
//! a brute-force segment distance in f64, where geom's agree to 10⁻⁷).

use super::*;
use parry3d::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d::shape::Shape as ParryShape;

/// Poses per pair.
pub const POSES: usize = 1000;

/// Contact margin (parry: prediction distance).
pub const MARGIN: f32 = 0.1;

struct PairInputs {
    name: &'static str,
    geom_a: Arc<dyn Shape<f32>>,
    geom_b: Arc<dyn Shape<f32>>,
    parry_a: Arc<dyn ParryShape>,
    parry_b: Arc<dyn ParryShape>,
    /// Whether parry has a manifold routine worth timing for the pair.
    manifold: bool,
}

fn random_rotation(rng: &mut Rng) -> UnitQuaternion<f32> {
    let axis = geom::nalgebra::Unit::new_normalize(rng.direction_f32());
    UnitQuaternion::from_axis_angle(&axis, rng.range_f32(0.0, std::f32::consts::PI))
}

/// `(pose_a, pose_b)` pairs; a half-space `a` stays unrotated at the origin
/// and `b` is placed across its plane.
fn pair_poses(inputs: &PairInputs, seed: u64) -> Vec<(Isometry3<f32>, Isometry3<f32>)> {
    let mut rng = Rng::new(seed);
    let reach = |s: &dyn Shape<f32>| s.local_aabb().origin_reach();
    let half_space = inputs.geom_a.kind() == ShapeKind::HalfSpace;
    (0..POSES)
        .map(|_| {
            let rotation_b = random_rotation(&mut rng);
            if half_space {
                let height = rng.range_f32(-0.6, 1.1) * reach(&*inputs.geom_b);
                let b = Isometry3::from_parts(
                    Translation3::new(rng.range_f32(-5.0, 5.0), height, rng.range_f32(-5.0, 5.0)),
                    rotation_b,
                );
                return (Isometry3::identity(), b);
            }
            let rotation_a = random_rotation(&mut rng);
            let distance = rng.range_f32(0.4, 1.1) * (reach(&*inputs.geom_a) + reach(&*inputs.geom_b));
            let offset = rng.direction_f32() * distance;
            (
                Isometry3::from_parts(Translation3::identity(), rotation_a),
                Isometry3::from_parts(Translation3::from(offset), rotation_b),
            )
        })
        .collect()
}

fn geom_deepest(
    table: &DispatchTable<f32>,
    inputs: &PairInputs,
    poses: &(Isometry3<f32>, Isometry3<f32>),
    out: &mut ContactManifolds<f32>,
) -> Option<f32> {
    table
        .contact(&*inputs.geom_a, &poses.0, &*inputs.geom_b, &poses.1, MARGIN, out)
        .expect("a built-in pair");
    out.points().map(|(_, p)| p.depth).reduce(f32::max)
}

fn parry_deepest(inputs: &PairInputs, poses: &(Pose, Pose)) -> Option<f32> {
    parry3d::query::contact(&poses.0, &*inputs.parry_a, &poses.1, &*inputs.parry_b, MARGIN)
        .expect("parry has the pair")
        .map(|c| -c.dist)
}

/// Panics when geom and parry disagree on more than 1% of the poses.
fn check_same_answers(
    table: &DispatchTable<f32>,
    inputs: &PairInputs,
    poses: &[(Isometry3<f32>, Isometry3<f32>)],
    parry_poses: &[(Pose, Pose)],
) {
    let mut out = ContactManifolds::new();
    let mut disagreements = 0;
    for (ours, theirs) in poses.iter().zip(parry_poses) {
        let a = geom_deepest(table, inputs, ours, &mut out);
        let b = parry_deepest(inputs, theirs);
        let same = match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 2e-3 + 0.025 * a.abs().max(b.abs()),
            (None, None) => true,
            (Some(d), None) | (None, Some(d)) => (d + MARGIN).abs() < 2e-3,
        };
        if !same {
            disagreements += 1;
            if std::env::var_os("GEOM_BENCH_VERBOSE").is_some() {
                eprintln!("pairs/{}: geom {a:?} parry3d {b:?} at {ours:?}", inputs.name);
            }
        }
    }
    assert!(
        disagreements * 100 <= poses.len(),
        "pairs/{}: geom and parry3d disagree on {disagreements} of {} poses",
        inputs.name,
        poses.len()
    );
}

fn all_pairs() -> Vec<PairInputs> {
    let (sphere, ball) = shapes::sphere();
    let (capsule, parry_capsule) = shapes::capsule();
    let (cuboid, parry_cuboid) = shapes::cuboid();
    let (cylinder, parry_cylinder) = shapes::cylinder();
    let (cone, parry_cone) = shapes::cone();
    let half_space = HalfSpace::new(Vector3::y(), 0.0);
    let parry_half_space = parry3d::shape::HalfSpace::new(Vector::Y);
    type Both = (Arc<dyn Shape<f32>>, Arc<dyn ParryShape>);
    let sphere: Both = (Arc::new(sphere), Arc::new(ball));
    let capsule: Both = (Arc::new(capsule), Arc::new(parry_capsule));
    let cuboid: Both = (Arc::new(cuboid), Arc::new(parry_cuboid));
    let cylinder: Both = (Arc::new(cylinder), Arc::new(parry_cylinder));
    let cone: Both = (Arc::new(cone), Arc::new(parry_cone));
    let half_space: Both = (Arc::new(half_space), Arc::new(parry_half_space));
    let pair = |name, a: &Both, b: &Both, manifold| PairInputs {
        name,
        geom_a: a.0.clone(),
        geom_b: b.0.clone(),
        parry_a: a.1.clone(),
        parry_b: b.1.clone(),
        manifold,
    };
    vec![
        pair("sphere_sphere", &sphere, &sphere, false),
        pair("sphere_capsule", &sphere, &capsule, false),
        pair("capsule_capsule", &capsule, &capsule, true),
        pair("sphere_box", &sphere, &cuboid, false),
        pair("capsule_box", &capsule, &cuboid, true),
        pair("box_box", &cuboid, &cuboid, true),
        pair("halfspace_box", &half_space, &cuboid, true),
        pair("cylinder_box", &cylinder, &cuboid, false),
        pair("cylinder_cylinder", &cylinder, &cylinder, false),
        pair("cone_sphere", &cone, &sphere, false),
    ]
}

/// The `pairs/…` measures (see the module documentation).
pub fn measures(measures: &mut Vec<Measure>) {
    let table = Arc::new(geom::default_dispatcher::<f32>());
    for (k, inputs) in all_pairs().into_iter().enumerate() {
        let poses = Arc::new(pair_poses(&inputs, 40 + k as u64));
        let parry_poses: Arc<Vec<(Pose, Pose)>> = Arc::new(
            poses
                .iter()
                .map(|(a, b)| (pose_to_parry(a), pose_to_parry(b)))
                .collect(),
        );
        check_same_answers(&table, &inputs, &poses, &parry_poses);
        let inputs = Arc::new(inputs);
        let geom_pass =
            |table: Arc<DispatchTable<f32>>, inputs: Arc<PairInputs>, poses: Arc<Vec<_>>| -> Pass {
                let mut out = ContactManifolds::new();
                Box::new(move || {
                    let mut sum = 0.0;
                    for pose in poses.iter() {
                        sum += geom_deepest(black_box(&table), &inputs, pose, &mut out).unwrap_or(0.0);
                    }
                    black_box(sum)
                })
            };
        let (i, p) = (inputs.clone(), parry_poses.clone());
        measures.push(Measure {
            name: format!("pairs/{}/contact", inputs.name),
            baseline: None,
            items: POSES,
            geom: geom_pass(table.clone(), inputs.clone(), poses.clone()),
            parry: Some(Box::new(move || {
                let mut sum = 0.0;
                for pose in p.iter() {
                    sum += parry_deepest(black_box(&i), pose).unwrap_or(0.0);
                }
                black_box(sum)
            })),
        });
        if inputs.manifold {
            let (i, p) = (inputs.clone(), parry_poses.clone());
            let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
            measures.push(Measure {
                name: format!("pairs/{}/manifold", inputs.name),
                baseline: None,
                items: POSES,
                geom: geom_pass(table.clone(), inputs.clone(), poses.clone()),
                parry: Some(Box::new(move || {
                    let mut sum = 0.0;
                    for (a, b) in p.iter() {
                        manifolds.clear();
                        let mut workspace = None;
                        let _ = DefaultQueryDispatcher.contact_manifolds(
                            &a.inv_mul(b),
                            &*i.parry_a,
                            &*i.parry_b,
                            MARGIN,
                            &mut manifolds,
                            &mut workspace,
                        );
                        sum += manifolds
                            .iter()
                            .flat_map(|m| m.points.iter())
                            .map(|p| -p.dist)
                            .fold(0.0, f32::max);
                    }
                    black_box(sum)
                })),
            });
        }
    }
}
