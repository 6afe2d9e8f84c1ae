//! A mesh against a mesh or a heightfield, as a user calls it through the
//! default dispatcher in both orders: distances against brute force over
//! every pair of triangles, a closed mesh inside another, and contacts
//! (not computed for two triangle surfaces) refused by name.

use geom::prelude::*;
use geom_random::Rng;

/// A closed cube mesh of half side `half` (12 triangles, outward winding).
fn cube(half: f64) -> TriMesh<f64> {
    let vertices = (0..8)
        .map(|k| {
            let s = |bit: usize| if k >> bit & 1 == 1 { half } else { -half };
            Point3::new(s(0), s(1), s(2))
        })
        .collect();
    // Faces as corner quads (x bit 1, y bit 2, z bit 4), counter-clockwise
    // seen from outside.
    let quads = [
        [0, 4, 6, 2],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 2, 3, 1],
        [4, 5, 7, 6],
    ];
    let indices = quads
        .iter()
        .flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]])
        .collect();
    TriMesh::new(vertices, indices).unwrap()
}

/// A UV sphere mesh (closed) of `radius` about the origin.
fn ball(radius: f64, rings: usize, sectors: usize) -> TriMesh<f64> {
    let mut vertices = vec![Point3::new(0.0, radius, 0.0)];
    for i in 1..rings {
        let polar = std::f64::consts::PI * i as f64 / rings as f64;
        for j in 0..sectors {
            let azimuth = std::f64::consts::TAU * j as f64 / sectors as f64;
            vertices.push(Point3::new(
                radius * polar.sin() * azimuth.cos(),
                radius * polar.cos(),
                radius * polar.sin() * azimuth.sin(),
            ));
        }
    }
    vertices.push(Point3::new(0.0, -radius, 0.0));
    let v = |i: usize, j: usize| (1 + (i - 1) * sectors + j % sectors) as u32;
    let south = (vertices.len() - 1) as u32;
    let mut indices = Vec::new();
    for j in 0..sectors {
        indices.push([0, v(1, j + 1), v(1, j)]);
        for i in 1..rings - 1 {
            indices.push([v(i, j), v(i, j + 1), v(i + 1, j)]);
            indices.push([v(i + 1, j), v(i, j + 1), v(i + 1, j + 1)]);
        }
        indices.push([south, v(rings - 1, j), v(rings - 1, j + 1)]);
    }
    TriMesh::new(vertices, indices).unwrap()
}

/// A random open sheet: an `n × n` grid of bumps around y = 0 with each
/// cell's diagonal drawn at random.
fn sheet(rng: &mut Rng, n: usize, bump: f64) -> TriMesh<f64> {
    let vertices = (0..n * n)
        .map(|k| Point3::new((k / n) as f64, rng.range(-bump, bump), (k % n) as f64))
        .collect();
    let at = |i: usize, j: usize| (i * n + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            if rng.range(0.0, 1.0) < 0.5 {
                indices.extend([[a, b, c], [a, c, d]]);
            } else {
                indices.extend([[a, b, d], [b, c, d]]);
            }
        }
    }
    TriMesh::new(vertices, indices).unwrap()
}

/// The world triangles of a posed mesh.
fn world_triangles(mesh: &TriMesh<f64>, pose: &Isometry3<f64>) -> Vec<[Point3<f64>; 3]> {
    (0..mesh.triangle_count() as u32)
        .map(|i| {
            let t = mesh.triangle(i).unwrap();
            [pose * t.a, pose * t.b, pose * t.c]
        })
        .collect()
}

/// The distance between two disjoint triangles: the nearest of their six
/// edges against the other triangle (two disjoint triangles' nearest
/// points include a point on an edge of one of them).
fn triangle_distance(s: &[Point3<f64>; 3], t: &[Point3<f64>; 3]) -> f64 {
    let mut best = f64::INFINITY;
    for (one, other) in [(s, t), (t, s)] {
        for k in 0..3 {
            let closest = geom::base::distance::closest_points_segment_triangle(
                &one[k],
                &one[(k + 1) % 3],
                &other[0],
                &other[1],
                &other[2],
            );
            best = best.min(closest.distance());
        }
    }
    best
}

fn brute_distance(a: &[[Point3<f64>; 3]], b: &[[Point3<f64>; 3]]) -> f64 {
    a.iter()
        .flat_map(|s| b.iter().map(move |t| triangle_distance(s, t)))
        .fold(f64::INFINITY, f64::min)
}

/// The distance `closest_points` reports in both orders (`None` when
/// intersecting or beyond `max_distance`), checking the points lie on
/// the right shapes' sides of each other.
fn distance_both_orders(
    table: &DispatchTable<f64>,
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
    max_distance: f64,
) -> [Option<f64>; 2] {
    let one = |x: &dyn Shape<f64>, px: &Isometry3<f64>, y: &dyn Shape<f64>, py: &Isometry3<f64>| match table
        .closest_points(x, px, y, py, max_distance)
        .unwrap()
    {
        ClosestPoints::WithinMargin { point_a, point_b } => Some((point_b - point_a).norm()),
        ClosestPoints::Intersecting => Some(-1.0),
        ClosestPoints::Disjoint => None,
    };
    [one(a, pose_a, b, pose_b), one(b, pose_b, a, pose_a)]
}

/// Both orders' distances against the brute-force `truth` (none beyond
/// `max_distance`); how many were compared.
fn check_distances(case: usize, got: [Option<f64>; 2], truth: f64, max_distance: f64) -> usize {
    let mut compared = 0;
    for (order, got) in got.into_iter().enumerate() {
        if truth > max_distance + 1e-9 {
            assert_eq!(got, None, "case {case}, order {order}: truth {truth}");
            continue;
        }
        let got = got.unwrap_or_else(|| panic!("case {case}, order {order}: nothing, truth {truth}"));
        assert!(
            (got - truth).abs() < 1e-6,
            "case {case}, order {order}: {got} vs brute force {truth}"
        );
        compared += 1;
    }
    compared
}

#[test]
fn mesh_to_mesh_distances_are_the_nearest_pair_of_triangles() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(7);
    let torus_like = ball(0.8, 6, 9);
    let ground = sheet(&mut rng, 8, 0.3);
    let ground_pose = Isometry3::translation(-3.5, 0.0, -3.5);
    let ground_triangles = world_triangles(&ground, &ground_pose);
    let mut compared = 0;
    for case in 0..150 {
        let pose = Isometry3::new(
            Vector3::new(rng.range(-2.0, 2.0), rng.range(0.9, 2.5), rng.range(-2.0, 2.0)),
            rng.direction() * rng.range(0.0, 3.0),
        );
        let truth = brute_distance(&world_triangles(&torus_like, &pose), &ground_triangles);
        let max_distance = 1.0;
        if truth > 0.0 {
            let got = distance_both_orders(&table, &torus_like, &pose, &ground, &ground_pose, max_distance);
            compared += check_distances(case, got, truth, max_distance);
        }
    }
    assert!(compared > 150, "{compared} compared");
}

#[test]
fn mesh_to_heightfield_distances_are_the_nearest_pair_of_triangles() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(11);
    let (rows, cols) = (8, 8);
    let heights: Vec<f64> = (0..rows * cols).map(|_| rng.range(-0.3, 0.3)).collect();
    let field = HeightField::new(Point3::new(-3.5, 0.0, -3.5), [1.0, 1.0], rows, cols, heights);
    let everywhere = field.local_extent();
    let field_triangles: Vec<[Point3<f64>; 3]> = field
        .triangles_in_aabb(&everywhere)
        .map(|(_, t)| [t.a, t.b, t.c])
        .collect();
    let rock = ball(0.7, 5, 7);
    let id = Isometry3::identity();
    let mut compared = 0;
    for case in 0..150 {
        let pose = Isometry3::new(
            Vector3::new(rng.range(-2.0, 2.0), rng.range(0.8, 2.0), rng.range(-2.0, 2.0)),
            rng.direction() * rng.range(0.0, 3.0),
        );
        let truth = brute_distance(&world_triangles(&rock, &pose), &field_triangles);
        let got = distance_both_orders(&table, &field, &id, &rock, &pose, 1.0);
        compared += check_distances(case, got, truth, 1.0);
    }
    assert!(compared > 150, "{compared} compared");
}

#[test]
fn contacts_between_two_triangle_surfaces_are_refused_by_name() {
    let table = geom::default_dispatcher::<f64>();
    let field = HeightField::new(Point3::new(-2.0, 0.0, -2.0), [1.0, 1.0], 5, 5, vec![0.0; 25]);
    let (a, b) = (cube(0.5), cube(0.5));
    let id = Isometry3::identity();
    let mut out = ContactManifolds::new();
    for (x, y) in [
        (&a as &dyn Shape<f64>, &b as &dyn Shape<f64>),
        (&a, &field),
        (&field, &a),
    ] {
        assert_eq!(
            table.contact(x, &id, y, &Isometry3::translation(0.0, 0.4, 0.0), 0.1, &mut out),
            Err(GeomError::Unsupported {
                a: x.kind(),
                b: y.kind()
            })
        );
    }
}

#[test]
fn a_closed_mesh_inside_another_intersects_it() {
    let table = geom::default_dispatcher::<f64>();
    let outer = cube(3.0);
    let inner = ball(0.5, 8, 12);
    let id = Isometry3::identity();
    // The ball near the +x face, 0.8 from it: no triangle of one meets
    // the other, yet the solids overlap; 2 to the right, they are apart by
    // the gap between the ball's triangles and the face.
    let pose = Isometry3::translation(1.7, 0.2, -0.3);
    for (a, pa, b, pb) in [
        (&outer as &dyn Shape<f64>, &id, &inner as &dyn Shape<f64>, &pose),
        (&inner, &pose, &outer, &id),
    ] {
        assert_eq!(
            table.closest_points(a, pa, b, pb, 1.0).unwrap(),
            ClosestPoints::Intersecting
        );
    }
    // Moved right to x = 4: its vertex at (3.5, 0.2, -0.3) is 0.5 from the face.
    let outside = Isometry3::translation(4.0, 0.2, -0.3);
    for got in distance_both_orders(&table, &outer, &id, &inner, &outside, 1.0) {
        assert!((got.unwrap() - 0.5).abs() < 1e-12, "{got:?}");
    }
}
