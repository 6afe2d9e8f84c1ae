//! Sweeps against convex primitives that have no exact sweep (boxes,
//! cylinders, cones): conservative advancement over the default
//! dispatcher's GJK distances, checked against bisection on each target's
//! own point distance (`Shape::distance`, independent of GJK).

use geom::prelude::*;
use geom::terrain::sweep_shape;
use geom_random::Rng;

/// The first time in [0, 1] at which the sphere centre moving along
/// `motion` comes within `radius` of `target`, by scanning then bisecting
/// on the target's signed point distance.
fn reference_toi(
    target: &dyn Shape<f64>,
    pose: &Isometry3<f64>,
    start: &Point3<f64>,
    motion: &Vector3<f64>,
    radius: f64,
) -> Option<f64> {
    let gap = |t: f64| target.distance(pose, &(start + motion * t)).unwrap() - radius;
    first_root(gap, 1, 4000, 80)
}

/// The first `t ∈ [0, 1]` where `gap(t) <= 0`: `gap` sampled at `k/steps`
/// from `k = first`, then the first bracket bisected `bisections` times
/// (the upper end returned), or `None`.
fn first_root(gap: impl Fn(f64) -> f64, first: usize, steps: usize, bisections: usize) -> Option<f64> {
    let mut previous = 0.0;
    for k in first..=steps {
        let t = k as f64 / steps as f64;
        if gap(t) <= 0.0 {
            let (mut lo, mut hi) = (previous, t);
            for _ in 0..bisections {
                let mid = 0.5 * (lo + hi);
                if gap(mid) <= 0.0 { hi = mid } else { lo = mid }
            }
            return Some(hi);
        }
        previous = t;
    }
    None
}

#[test]
fn sphere_sweeps_against_boxes_cylinders_and_cones_match_bisection() {
    let table = geom::default_dispatcher::<f64>();
    let targets: Vec<Box<dyn Shape<f64>>> = vec![
        Box::new(Cuboid::new(Vector3::new(1.0, 0.5, 0.75))),
        Box::new(Cylinder::from_points(
            Point3::new(0.0, -0.8, 0.0),
            Point3::new(0.0, 0.8, 0.0),
            0.6,
        )),
        Box::new(Cone::from_points(
            Point3::new(0.0, 0.9, 0.0),
            Point3::new(0.0, -0.7, 0.0),
            0.8,
        )),
    ];
    let mut rng = Rng::from_state(0x2545_F491_4F6C_DD1D);
    let (mut compared, mut worst) = (0, 0.0f64);
    // 150 sweeps a target with GEOM_FULL_SWEEPS, a quarter without.
    let cases = geom_random::sweep_cases(150);
    for target in &targets {
        for _ in 0..cases {
            let rotation = UnitQuaternion::from_scaled_axis(rng.direction() * rng.range(0.0, 3.0));
            let pose = Isometry3::from_parts(Translation3::new(1.0, -2.0, 0.5), rotation);
            let radius = rng.range(0.1, 0.5);
            let start = pose * Point3::from(rng.direction() * 4.0);
            // Aim near the target's centre, sometimes past it.
            let aim = pose * Point3::from(rng.direction() * rng.range(0.0, 1.5));
            let motion = (aim - start) * 1.3;
            let sphere = Sphere::new(radius);
            let sphere_pose = Isometry3::translation(start.x, start.y, start.z);
            let hit = sweep_shape(&sphere, &sphere_pose, &motion, target.as_ref(), &pose, &table).unwrap();
            let expected = reference_toi(target.as_ref(), &pose, &start, &motion, radius);
            match (hit, expected) {
                (Some(hit), Some(toi)) => {
                    // Conservative: never past the contact, and within the
                    // advancement's stated tolerance (√ε of the scene) before it.
                    let error = (hit.toi - toi) * motion.norm();
                    assert!(
                        error <= 1e-9,
                        "{:?}: stopped {error} past the contact",
                        target.kind()
                    );
                    assert!(error >= -1e-6, "{:?}: stopped {error} early", target.kind());
                    worst = worst.max(error.abs());
                    compared += 1;
                }
                (None, None) => {}
                (Some(hit), None) => {
                    // Only a graze the scan could miss: the path passes within rounding.
                    let closest = (0..=4000)
                        .map(|k| {
                            target
                                .distance(&pose, &(start + motion * (k as f64 / 4000.0)))
                                .unwrap()
                        })
                        .fold(f64::INFINITY, f64::min);
                    assert!(
                        closest - radius < 1e-3,
                        "{:?}: hit at {} but never within reach",
                        target.kind(),
                        hit.toi
                    );
                }
                (None, Some(toi)) => panic!("{:?}: missed a contact at {toi}", target.kind()),
            }
        }
    }
    // Most sweeps hit (200 of the full 450, measured).
    let runs = targets.len() * cases;
    assert!(compared * 9 > runs * 4, "only {compared} of {runs} hits compared");
    eprintln!("worst |toi error|·|motion| = {worst:e} over {compared} hits");
}

/// A shape of the sweep scenes, built in either precision from the same
/// parameters.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Sphere(f64),
    Cuboid([f64; 3]),
    Cylinder(f64, f64),
    Cone(f64, f64),
}

impl Kind {
    fn build<N: geom::Real>(self) -> Box<dyn Shape<N>> {
        let n = |x: f64| nalgebra::convert::<f64, N>(x);
        match self {
            Kind::Sphere(r) => Box::new(Sphere::new(n(r))),
            Kind::Cuboid(h) => Box::new(Cuboid::new(Vector3::new(n(h[0]), n(h[1]), n(h[2])))),
            Kind::Cylinder(half, r) => Box::new(Cylinder::from_points(
                Point3::new(n(0.0), n(-half), n(0.0)),
                Point3::new(n(0.0), n(half), n(0.0)),
                n(r),
            )),
            Kind::Cone(half, r) => Box::new(Cone::from_points(
                Point3::new(n(0.0), n(half), n(0.0)),
                Point3::new(n(0.0), n(-half), n(0.0)),
                n(r),
            )),
        }
    }
}

impl Kind {
    /// A bound on the distance from the shape's centre to its points (the
    /// huge box's top face is within this of the scene).
    fn reach(self) -> f64 {
        match self {
            Kind::Sphere(r) => r,
            Kind::Cuboid(h) if h[0] > 100.0 => 2.0,
            Kind::Cuboid(h) => (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]).sqrt(),
            Kind::Cylinder(half, r) | Kind::Cone(half, r) => (half * half + r * r).sqrt(),
        }
    }
}

/// `pose` in precision `N`.
fn pose_in<N: geom::Real>(pose: &Isometry3<f64>) -> Isometry3<N> {
    nalgebra::convert(*pose)
}

/// A value rounded to `f32` (so both precisions see the same number).
fn f32_exact(x: f64) -> f64 {
    x as f32 as f64
}

/// The depth of the deepest contact point (0 when apart).
fn deepest_depth(
    table: &geom::DispatchTable<f64>,
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
) -> f64 {
    let mut contacts = geom::ContactManifolds::new();
    table.contact(a, pose_a, b, pose_b, 0.0, &mut contacts).unwrap();
    contacts.points().map(|(_, p)| p.depth).fold(0.0, f64::max)
}

/// The first time at which `mover` moved by `t · motion` touches `target`,
/// by scanning then bisecting on the f64 dispatcher's distance (itself
/// checked against the pair oracle), or `None`.
fn reference_contact_time(
    table: &geom::DispatchTable<f64>,
    mover: &dyn Shape<f64>,
    pose: &Isometry3<f64>,
    motion: &Vector3<f64>,
    target: &dyn Shape<f64>,
    target_pose: &Isometry3<f64>,
) -> Option<f64> {
    let gap = |t: f64| {
        let moved = Isometry3::from_parts(
            Translation3::from(pose.translation.vector + motion * t),
            pose.rotation,
        );
        table.distance(mover, &moved, target, target_pose).unwrap()
    };
    first_root(gap, 0, 400, 70)
}

/// Spheres, boxes and cylinders swept at every convex target (box,
/// cylinder, cone, and a box of half extent 5000 whose top face is at the
/// origin) in `N`: the sweep never passes the bisected contact, stops with
/// the shapes at most `32 ε` of the mover's size plus the motion apart
/// (the target's size does not enter, except for a cylinder at the big
/// box, served by GJK: see below), and reports the touching features'
/// normal.
fn sweeps_stop_at_the_contact<N: geom::Real + Into<f64>>(normal_tolerance: f64) {
    let table64 = geom::default_dispatcher::<f64>();
    let table = geom::default_dispatcher::<N>();
    let epsilon: f64 = N::default_epsilon().into();
    let movers = [
        Kind::Sphere(0.3),
        Kind::Sphere(0.05),
        Kind::Cuboid([0.3, 0.2, 0.25]),
        Kind::Cylinder(0.3, 0.2),
    ];
    let targets = [
        (Kind::Cuboid([1.0, 0.5, 0.75]), 0.0),
        (Kind::Cylinder(0.8, 0.6), 0.0),
        (Kind::Cone(0.8, 0.8), 0.0),
        (Kind::Cuboid([5000.0, 5000.0, 5000.0]), -5000.0),
    ];
    let mut rng = Rng::from_state(0x9E37_79B9_7F4A_7C15);
    let (mut compared, mut worst_gap, mut worst_normal) = (0, 0.0f64, 0.0f64);
    // 40 sweeps a pair with GEOM_FULL_SWEEPS, a quarter without.
    let cases = geom_random::sweep_cases(40);
    for mover_kind in movers {
        for (target_kind, drop) in targets {
            // A cylinder mover's distance to the box of half extent 5000
            // comes from GJK, whose simplex holds that box's corners 5000
            // to the side even in its own frame at the mover (where its
            // face is exact): the closest point's weights carry ε·5000 in
            // either precision (f64: overlaps up to 4·10⁻¹², against the
            // 3·10⁻¹⁴ of the mover's size). A sphere's distance is the
            // box's compensated slab test and a box's the separating axis's
            // certified pair, within the mover's size. So for that pair
            // the bound takes the target's size too.
            let through_gjk = drop != 0.0 && matches!(mover_kind, Kind::Cylinder(..));
            for _ in 0..cases {
                let big = drop != 0.0;
                let rotation = |rng: &mut Rng, spread: f64| {
                    let q = UnitQuaternion::from_scaled_axis(rng.direction() * rng.range(0.0, spread));
                    // Rounded through f32 and renormalised in f64, the same
                    // rotation in both precisions to rounding.
                    let q32: UnitQuaternion<f32> = nalgebra::convert(q);
                    nalgebra::convert::<UnitQuaternion<f32>, UnitQuaternion<f64>>(q32)
                };
                let target_rotation = if big {
                    // Unturned: a rotation rounded to f32 moves a face 5000
                    // from the centre by ε·5000 in the input itself.
                    UnitQuaternion::identity()
                } else {
                    rotation(&mut rng, 3.0)
                };
                let target_pose = Isometry3::from_parts(
                    Translation3::new(f32_exact(0.5), f32_exact(drop - 0.25), f32_exact(-0.5)),
                    target_rotation,
                );
                let start = Vector3::new(
                    f32_exact(rng.range(-2.0, 2.0)),
                    f32_exact(rng.range(2.0, 4.0)),
                    f32_exact(rng.range(-2.0, 2.0)),
                );
                let aim = Vector3::new(rng.range(-0.8, 0.8), rng.range(-0.8, 0.0), rng.range(-0.8, 0.8));
                let motion = (aim - start).map(|c| f32_exact(c * 1.4));
                let pose = Isometry3::from_parts(Translation3::from(start), rotation(&mut rng, 3.0));
                let (mover64, target64) = (mover_kind.build::<f64>(), target_kind.build::<f64>());
                let (mover, target) = (mover_kind.build::<N>(), target_kind.build::<N>());
                let hit = sweep_shape(
                    mover.as_ref(),
                    &pose_in(&pose),
                    &motion.map(nalgebra::convert::<f64, N>),
                    target.as_ref(),
                    &pose_in(&target_pose),
                    &table,
                )
                .unwrap();
                let expected = reference_contact_time(
                    &table64,
                    mover64.as_ref(),
                    &pose,
                    &motion,
                    target64.as_ref(),
                    &target_pose,
                );
                let aabb = mover64.aabb(&pose);
                let local = (aabb.maxs - aabb.mins).norm() + motion.norm();
                // The big box's own diagonal (its `reach` is the face's, for normals).
                let target_size = match target_kind {
                    Kind::Cuboid(h) if through_gjk => (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]).sqrt(),
                    _ => 0.0,
                };
                let bound = 32.0 * epsilon * (local + target_size);
                let label = format!("{mover_kind:?} at {target_kind:?}");
                match (hit, expected) {
                    (Some(hit), Some(toi)) => {
                        let hit_toi: f64 = hit.toi.into();
                        let moved = Isometry3::from_parts(
                            Translation3::from(pose.translation.vector + motion * hit_toi),
                            pose.rotation,
                        );
                        // Never past the contact by more than rounding: the
                        // overlap there (a grazing motion turns a small
                        // overlap into a long way along the motion).
                        let overlap = deepest_depth(
                            &table64,
                            mover64.as_ref(),
                            &moved,
                            target64.as_ref(),
                            &target_pose,
                        );
                        assert!(
                            overlap <= bound,
                            "{label}: stopped {overlap:e} deep (bound {bound:e}): {hit:?} vs {toi}"
                        );
                        let gap = table64
                            .distance(mover64.as_ref(), &moved, target64.as_ref(), &target_pose)
                            .unwrap();
                        assert!(
                            gap <= bound,
                            "{label}: stopped {gap:e} short (bound {bound:e}), toi {hit_toi} vs {toi}"
                        );
                        // The normal is the touching features' own: the
                        // plane across it separates the shapes at the
                        // bisected contact (to the normal's stated accuracy
                        // times their reach), and it is unit.
                        let touching = Isometry3::from_parts(
                            Translation3::from(pose.translation.vector + motion * toi),
                            pose.rotation,
                        );
                        let normal: Vector3<f64> = hit.normal.map(|c| c.into());
                        let unit_error = (normal.norm() - 1.0).abs();
                        assert!(unit_error <= 8.0 * epsilon, "{label}: normal {normal:?} not unit");
                        let lowest_mover = mover64.support(&touching, &-normal).unwrap().coords.dot(&normal);
                        let highest_target = target64
                            .support(&target_pose, &normal)
                            .unwrap()
                            .coords
                            .dot(&normal);
                        let reach = 2.0 * (mover_kind.reach() + target_kind.reach());
                        let separation = lowest_mover - highest_target;
                        let off = -separation / reach;
                        assert!(
                            separation >= -(bound + normal_tolerance * reach),
                            "{label}: normal {normal:?} does not separate the touching shapes ({separation:e})"
                        );
                        worst_gap = worst_gap.max(gap / (epsilon * local));
                        worst_normal = worst_normal.max(off);
                        compared += 1;
                    }
                    (None, None) => {}
                    (Some(hit), None) => {
                        let hit_toi: f64 = hit.toi.into();
                        let moved = Isometry3::from_parts(
                            Translation3::from(pose.translation.vector + motion * hit_toi),
                            pose.rotation,
                        );
                        let gap = table64
                            .distance(mover64.as_ref(), &moved, target64.as_ref(), &target_pose)
                            .unwrap();
                        assert!(gap <= bound, "{label}: hit at {hit_toi} but {gap:e} apart there");
                    }
                    (None, Some(toi)) => panic!("{label}: missed a contact at {toi}"),
                }
            }
        }
    }
    // 150 of the full 640 sweeps at least.
    let runs = movers.len() * targets.len() * cases;
    assert!(
        compared * 64 > runs * 15,
        "only {compared} of {runs} hits compared"
    );
    eprintln!("worst gap {worst_gap:.1} ε·local, worst normal {worst_normal:e} over {compared} hits");
}

#[test]
fn convex_sweeps_stop_at_the_contact_in_f64() {
    sweeps_stop_at_the_contact::<f64>(1e-6);
}

#[test]
fn convex_sweeps_stop_at_the_contact_in_f32() {
    sweeps_stop_at_the_contact::<f32>(1e-2);
}
