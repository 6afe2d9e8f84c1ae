//! Compounds as a user calls them, through the default dispatcher in both
//! orders, against brute force over their children: ray casts, deepest
//! contacts, distances, compounds against compounds, heightfields and
//! meshes, and nested compounds against their flattened selves.

use std::sync::Arc;

use geom::prelude::*;
use geom_random::Rng;

fn random_child(rng: &mut Rng) -> geom::base::compound::Child<f64> {
    let pose = Isometry3::new(rng.vector(3.0), rng.direction() * rng.range(0.0, 3.0));
    let shape: Arc<dyn Shape<f64>> = match rng.below(4) {
        0 => Arc::new(Sphere::new(rng.range(0.2, 0.8))),
        1 => Arc::new(Cuboid::new(Vector3::new(
            rng.range(0.1, 0.7),
            rng.range(0.1, 0.7),
            rng.range(0.1, 0.7),
        ))),
        2 => Arc::new(Capsule::from_points(
            Point3::new(0.0, -0.4, 0.0),
            Point3::new(0.0, 0.4, 0.0),
            rng.range(0.1, 0.4),
        )),
        _ => Arc::new(Cylinder::from_points(
            Point3::new(0.0, -0.3, 0.0),
            Point3::new(0.0, 0.3, 0.0),
            rng.range(0.1, 0.5),
        )),
    };
    (pose, shape)
}

fn random_compound(rng: &mut Rng, count: usize) -> Compound<f64> {
    Compound::new((0..count).map(|_| random_child(rng)).collect()).unwrap()
}

/// The deepest contact depth over `a`'s children (each through the table).
fn brute_deepest(
    table: &DispatchTable<f64>,
    children: &[geom::base::compound::Child<f64>],
    pose: &Isometry3<f64>,
    other: &dyn Shape<f64>,
    other_pose: &Isometry3<f64>,
) -> Option<f64> {
    let mut out = ContactManifolds::new();
    let mut best: Option<f64> = None;
    for (child_pose, child) in children {
        table
            .contact(
                child.as_ref(),
                &(pose * child_pose),
                other,
                other_pose,
                0.0,
                &mut out,
            )
            .unwrap();
        for (_, p) in out.points() {
            best = Some(best.map_or(p.depth, |b: f64| b.max(p.depth)));
        }
    }
    best
}

fn deepest(
    table: &DispatchTable<f64>,
    a: &dyn Shape<f64>,
    pa: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pb: &Isometry3<f64>,
) -> Option<f64> {
    let mut out = ContactManifolds::new();
    table.contact(a, pa, b, pb, 0.0, &mut out).unwrap();
    out.points().map(|(_, p)| p.depth).reduce(f64::max)
}

fn distance(
    table: &DispatchTable<f64>,
    a: &dyn Shape<f64>,
    pa: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pb: &Isometry3<f64>,
) -> f64 {
    match table.closest_points(a, pa, b, pb, f64::INFINITY).unwrap() {
        ClosestPoints::WithinMargin { point_a, point_b } => (point_b - point_a).norm(),
        ClosestPoints::Intersecting => 0.0,
        ClosestPoints::Disjoint => f64::INFINITY,
    }
}

#[test]
fn ray_casts_equal_the_nearest_child() {
    let mut rng = Rng::new(1);
    for _ in 0..20 {
        let compound = random_compound(&mut rng, 12);
        let pose = Isometry3::new(rng.vector(2.0), rng.direction());
        for _ in 0..100 {
            let ray = Ray::new(
                Point3::from(rng.vector(8.0)),
                rng.direction() * rng.range(0.5, 2.0),
            );
            for solid in [true, false] {
                let expected = compound
                    .children()
                    .iter()
                    .filter_map(|(p, s)| s.ray_cast(&(pose * p), &ray, 20.0, solid).map(|h| h.t))
                    .reduce(f64::min);
                let hit = compound.ray_cast(&pose, &ray, 20.0, solid).map(|h| h.t);
                match (hit, expected) {
                    (Some(h), Some(e)) => assert!((h - e).abs() < 1e-9, "{h} vs {e}"),
                    (h, e) => assert_eq!(h, e),
                }
            }
        }
    }
}

#[test]
fn contacts_and_distances_equal_brute_force_over_children() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(2);
    let mut touching = 0;
    for k in 0..150 {
        let compound = random_compound(&mut rng, 16);
        let pose = Isometry3::new(rng.vector(1.0), rng.direction() * rng.range(0.0, 3.0));
        let (other_pose, other) = random_child(&mut rng);
        let other_pose =
            Isometry3::from_parts((other_pose.translation.vector * 0.3).into(), other_pose.rotation);
        let expected = brute_deepest(&table, compound.children(), &pose, other.as_ref(), &other_pose);
        let forward = deepest(&table, &compound, &pose, other.as_ref(), &other_pose);
        let backward = deepest(&table, other.as_ref(), &other_pose, &compound, &pose);
        for got in [forward, backward] {
            match (got, expected) {
                (Some(g), Some(e)) => assert!((g - e).abs() < 1e-9, "pose {k}: {g} vs {e}"),
                (g, e) => assert_eq!(g, e, "pose {k}"),
            }
        }
        touching += usize::from(expected.is_some());
        let brute = compound
            .children()
            .iter()
            .map(|(p, s)| distance(&table, s.as_ref(), &(pose * p), other.as_ref(), &other_pose))
            .fold(f64::INFINITY, f64::min);
        for d in [
            distance(&table, &compound, &pose, other.as_ref(), &other_pose),
            distance(&table, other.as_ref(), &other_pose, &compound, &pose),
        ] {
            assert!((d - brute).abs() < 1e-9, "pose {k}: distance {d} vs {brute}");
        }
    }
    assert!(touching > 30, "{touching} touching");
}

#[test]
fn compounds_against_compounds_terrain_meshes_and_half_spaces() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(3);
    let heights: Vec<f64> = (0..100).map(|_| rng.range(-0.5, 0.5)).collect();
    let field = HeightField::new(Point3::new(-5.0, 0.0, -5.0), [1.0, 1.0], 10, 10, heights);
    let mesh = TriMesh::from_heightfield(&field).unwrap();
    let ground = HalfSpace::new(Vector3::y(), -0.2);
    let id = Isometry3::identity();
    for k in 0..60 {
        let a = random_compound(&mut rng, 5);
        let b = random_compound(&mut rng, 5);
        let pose_a = Isometry3::new(rng.vector(1.5) + Vector3::new(0.0, 1.0, 0.0), rng.direction());
        let pose_b = Isometry3::new(rng.vector(1.5) + Vector3::new(0.0, 1.0, 0.0), rng.direction());
        // Compound–compound: over every pair of children.
        let mut expected: Option<f64> = None;
        let mut brute_distance = f64::INFINITY;
        for (pa, sa) in a.children() {
            if let Some(d) = brute_deepest(&table, b.children(), &pose_b, sa.as_ref(), &(pose_a * pa)) {
                expected = Some(expected.map_or(d, |e| e.max(d)));
            }
            for (pb, sb) in b.children() {
                brute_distance = brute_distance.min(distance(
                    &table,
                    sa.as_ref(),
                    &(pose_a * pa),
                    sb.as_ref(),
                    &(pose_b * pb),
                ));
            }
        }
        for got in [
            deepest(&table, &a, &pose_a, &b, &pose_b),
            deepest(&table, &b, &pose_b, &a, &pose_a),
        ] {
            match (got, expected) {
                (Some(g), Some(e)) => assert!((g - e).abs() < 1e-9, "pose {k}: {g} vs {e}"),
                (g, e) => assert_eq!(g, e, "pose {k}"),
            }
        }
        let d = distance(&table, &a, &pose_a, &b, &pose_b);
        assert!(
            (d - brute_distance).abs() < 1e-9,
            "pose {k}: {d} vs {brute_distance}"
        );
        // Against the terrain, the mesh and the half-space.
        for target in [&field as &dyn Shape<f64>, &mesh, &ground] {
            let expected = brute_deepest(&table, a.children(), &pose_a, target, &id);
            for got in [
                deepest(&table, &a, &pose_a, target, &id),
                deepest(&table, target, &id, &a, &pose_a),
            ] {
                match (got, expected) {
                    (Some(g), Some(e)) => {
                        assert!((g - e).abs() < 1e-9, "pose {k} {:?}: {g} vs {e}", target.kind())
                    }
                    (g, e) => assert_eq!(g, e, "pose {k} {:?}", target.kind()),
                }
            }
        }
        let brute_ground = a
            .children()
            .iter()
            .map(|(p, s)| distance(&table, s.as_ref(), &(pose_a * p), &ground, &id))
            .fold(f64::INFINITY, f64::min);
        assert!((distance(&table, &a, &pose_a, &ground, &id) - brute_ground).abs() < 1e-9);
    }
}

#[test]
fn a_nested_compound_answers_as_its_flattened_self() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(4);
    for k in 0..50 {
        let inner = random_compound(&mut rng, 4);
        let inner_pose = Isometry3::new(rng.vector(1.0), rng.direction());
        let mut children: Vec<(Isometry3<f64>, Arc<dyn Shape<f64>>)> =
            (0..3).map(|_| random_child(&mut rng)).collect();
        let mut flat = children.clone();
        flat.extend(inner.children().iter().map(|(p, s)| (inner_pose * p, s.clone())));
        children.push((inner_pose, Arc::new(inner)));
        let nested = Compound::new(children).unwrap();
        let flat = Compound::new(flat).unwrap();
        let pose = Isometry3::new(rng.vector(1.0), rng.direction());
        let (other_pose, other) = random_child(&mut rng);
        let a = deepest(&table, &nested, &pose, other.as_ref(), &other_pose);
        let b = deepest(&table, &flat, &pose, other.as_ref(), &other_pose);
        match (a, b) {
            (Some(x), Some(y)) => assert!((x - y).abs() < 1e-9, "pose {k}"),
            (x, y) => assert_eq!(x, y, "pose {k}"),
        }
        let (x, y) = (
            distance(&table, &nested, &pose, other.as_ref(), &other_pose),
            distance(&table, &flat, &pose, other.as_ref(), &other_pose),
        );
        assert!((x - y).abs() < 1e-9, "pose {k}: {x} vs {y}");
        let ray = Ray::new(Point3::from(rng.vector(6.0)), rng.direction());
        let (x, y) = (
            nested.ray_cast(&pose, &ray, 20.0, true),
            flat.ray_cast(&pose, &ray, 20.0, true),
        );
        assert_eq!(
            x.map(|h| (h.t * 1e9).round()),
            y.map(|h| (h.t * 1e9).round()),
            "pose {k}"
        );
    }
}
