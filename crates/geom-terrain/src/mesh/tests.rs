//! The mesh against brute force over every triangle, closed meshes against
//! crossing parity, the terrain as a mesh against the heightfield.

use geom_core::distance::closest_point_on_triangle_branching;
use geom_core::{DoubleDouble, Ray, Real, Shape};
use geom_prims::triangle::ray_cast_triangle_filtered;
use geom_random::Rng;
use nalgebra::{Isometry3, Point3, Vector3};

use super::TriMesh;
use crate::HeightField;

/// A soup of `count` random triangles of sizes 0.1 to 5 in a cube of half
/// width 20, sharing some vertices.
fn random_soup(rng: &mut Rng, count: usize) -> TriMesh<f64> {
    let mut vertices: Vec<Point3<f64>> = Vec::new();
    let mut indices = Vec::new();
    while indices.len() < count {
        let centre = Point3::from(rng.vector(20.0));
        let size = rng.log_range(-1.0, 0.7);
        let corner = |rng: &mut Rng| centre + rng.vector(size);
        let start = vertices.len() as u32;
        // Sometimes reuse an earlier vertex (shared edges and vertices).
        let first = if start > 3 && rng.chance(0.3) {
            rng.below(start as usize) as u32
        } else {
            vertices.push(corner(rng));
            vertices.len() as u32 - 1
        };
        vertices.push(corner(rng));
        vertices.push(corner(rng));
        indices.push([first, vertices.len() as u32 - 2, vertices.len() as u32 - 1]);
    }
    TriMesh::new(vertices, indices).unwrap()
}

/// The first hit over every triangle: (t, triangle).
fn brute_ray<N: Real>(mesh: &TriMesh<N>, ray: &Ray<N>, max_t: N) -> Option<(N, u32)> {
    let mut best: Option<(N, u32)> = None;
    for i in 0..mesh.triangle_count() as u32 {
        let tri = mesh.triangle(i).unwrap();
        if let Some(hit) = ray_cast_triangle_filtered(ray, &tri.a, &tri.b, &tri.c, max_t).into_hit()
            && best.is_none_or(|(t, _)| hit.t < t)
        {
            best = Some((hit.t, i));
        }
    }
    best
}

/// The nearest surface distance over every triangle.
fn brute_distance(mesh: &TriMesh<f64>, p: &Point3<f64>) -> f64 {
    (0..mesh.triangle_count() as u32)
        .map(|i| {
            let tri = mesh.triangle(i).unwrap();
            (p - closest_point_on_triangle_branching(p, &tri.a, &tri.b, &tri.c).0).norm()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Crossings of the ray from `p` along `dir` with every triangle, counted
/// by brute force: odd means inside a closed mesh (a random direction
/// passes through no edge).
fn inside_by_parity(mesh: &TriMesh<f64>, p: &Point3<f64>, dir: &Vector3<f64>) -> bool {
    let ray = Ray::new(*p, *dir);
    let crossings = (0..mesh.triangle_count() as u32)
        .filter(|&i| {
            let tri = mesh.triangle(i).unwrap();
            ray_cast_triangle_filtered(&ray, &tri.a, &tri.b, &tri.c, f64::INFINITY)
                .into_hit()
                .is_some()
        })
        .count();
    crossings % 2 == 1
}

/// A closed torus about y (major radius `big`, minor `small`), `around × across`
/// quads, wound outwards; non-convex.
fn torus(big: f64, small: f64, around: usize, across: usize) -> TriMesh<f64> {
    let mut vertices = Vec::new();
    for i in 0..around {
        let u = i as f64 * std::f64::consts::TAU / around as f64;
        for j in 0..across {
            let v = j as f64 * std::f64::consts::TAU / across as f64;
            let r = big + small * v.cos();
            vertices.push(Point3::new(r * u.cos(), small * v.sin(), r * u.sin()));
        }
    }
    let index = |i: usize, j: usize| ((i % around) * across + j % across) as u32;
    let mut indices = Vec::new();
    for i in 0..around {
        for j in 0..across {
            let (a, b, c, d) = (index(i, j), index(i + 1, j), index(i + 1, j + 1), index(i, j + 1));
            indices.push([a, c, b]);
            indices.push([a, d, c]);
        }
    }
    TriMesh::new(vertices, indices).unwrap()
}

/// `mesh` with its vertices rounded to `N`.
fn mesh_in<N: Real>(mesh: &TriMesh<f64>) -> TriMesh<N> {
    let vertices = mesh.vertices().iter().map(|v| v.cast::<N>()).collect();
    TriMesh::new(vertices, mesh.indices().to_vec()).unwrap()
}

/// `mesh`'s first hit along `ray` (both rounded to `N`) is brute force's
/// over every triangle in `N`, and names a triangle hit at that time.
fn first_hit_equals_brute_force_in<N: Real>(mesh: &TriMesh<N>, ray: &Ray<f64>, max_t: f64) {
    let ray = Ray::new(ray.origin.cast::<N>(), ray.dir.cast::<N>());
    let max_t = nalgebra::convert::<f64, N>(max_t);
    let hit = mesh.ray_cast_local(&ray, max_t, false);
    let expected = brute_ray(mesh, &ray, max_t);
    assert_eq!(hit.map(|h| h.t), expected.map(|(t, _)| t), "{ray:?} {max_t:?}");
    if let Some(hit) = hit {
        let geom_core::FeatureId::Face(i) = hit.feature else {
            panic!("{hit:?}")
        };
        let tri = mesh.triangle(i).unwrap();
        let own = ray_cast_triangle_filtered(&ray, &tri.a, &tri.b, &tri.c, max_t).into_hit();
        assert_eq!(own.map(|h| h.t), Some(hit.t));
    }
}

#[test]
fn ray_casts_equal_brute_force_on_random_soups() {
    let mut rng = Rng::new(1);
    for count in [1, 3, 50, 700] {
        let mesh = random_soup(&mut rng, count);
        let mesh32 = mesh_in::<f32>(&mesh);
        let mesh_dd = mesh_in::<DoubleDouble>(&mesh);
        // The mesh posed as a user places it, against brute force over its
        // triangles moved into the world.
        let pose = Isometry3::from_parts(rng.vector(50.0).into(), rng.rotation());
        let world_triangles: Vec<_> = (0..count as u32)
            .map(|i| {
                let tri = mesh.triangle(i).unwrap();
                [tri.a, tri.b, tri.c].map(|v| pose * v)
            })
            .collect();
        let mut posed_disagreements = 0;
        let mut hits = 0;
        for _ in 0..300 {
            // Aimed near a random triangle, so that most rays hit.
            let origin = Point3::from(rng.vector(30.0));
            let target = mesh.triangle(rng.below(count) as u32).unwrap().a + rng.vector(1.0);
            let ray = Ray::new(origin, (target - origin) * rng.log_range(-1.0, 0.5));
            let max_t = if rng.chance(0.3) {
                rng.range(0.0, 10.0)
            } else {
                f64::INFINITY
            };
            let expected = brute_ray(&mesh, &ray, max_t);
            let hit = mesh.ray_cast_local(&ray, max_t, false);
            // The same mesh and ray in f32 (a leaf on `WideF32x4` lanes)
            // and in double-double (one triangle at a time) against brute
            // force in that precision.
            first_hit_equals_brute_force_in::<f32>(&mesh32, &ray, max_t);
            first_hit_equals_brute_force_in::<DoubleDouble>(&mesh_dd, &ray, max_t);
            let world_ray = Ray::new(pose * ray.origin, pose * ray.dir);
            let posed = mesh.ray_cast(&pose, &world_ray, max_t, false);
            let world_expected = world_triangles
                .iter()
                .filter_map(|[a, b, c]| ray_cast_triangle_filtered(&world_ray, a, b, c, max_t).into_hit())
                .map(|hit| hit.t)
                .fold(None, |best: Option<f64>, t| Some(best.map_or(t, |b| b.min(t))));
            match (posed, world_expected) {
                (Some(hit), Some(t)) => {
                    assert!((hit.t - t).abs() <= 1e-9 * (1.0 + t), "posed {hit:?}, world {t}");
                    assert!(hit.normal.dot(&world_ray.dir) <= 0.0, "{hit:?}");
                }
                (None, None) => {}
                // Rounding the moved ray or triangles can move a hit within
                // rounding of an edge or of `max_t` across it.
                _ => posed_disagreements += 1,
            }
            assert_eq!(
                hit.map(|h| h.t),
                expected.map(|(t, _)| t),
                "{count} triangles, {ray:?}"
            );
            if let Some(hit) = hit {
                hits += 1;
                let geom_core::FeatureId::Face(i) = hit.feature else {
                    panic!("{hit:?}")
                };
                let tri = mesh.triangle(i).unwrap();
                let own = ray_cast_triangle_filtered(&ray, &tri.a, &tri.b, &tri.c, max_t)
                    .into_hit()
                    .unwrap();
                assert_eq!(own.t, hit.t);
                // Two-sided: the normal faces the ray.
                assert!(hit.normal.dot(&ray.dir) <= 0.0);
                assert!((hit.normal.norm() - 1.0).abs() < 1e-12);
                // Recomputed from the hit triangle: the stored normal of
                // the triangle named, bit for bit.
                let stored = mesh.triangle_normal(i).unwrap();
                assert!(
                    hit.normal == stored || hit.normal == -stored,
                    "{hit:?}, stored {stored:?}"
                );
            }
        }
        assert!(count < 50 || hits > 30, "{hits} hits of 300");
        assert!(
            posed_disagreements <= 1,
            "{posed_disagreements} posed casts of 300 disagree"
        );
    }
}

#[test]
fn closest_points_equal_brute_force_on_random_soups() {
    let mut rng = Rng::new(2);
    let mesh = random_soup(&mut rng, 500);
    for _ in 0..400 {
        let p = Point3::from(rng.vector(40.0));
        let projection = mesh.closest_point_local(&p, true).unwrap();
        assert!(!projection.is_inside, "an open mesh has no inside");
        let d = brute_distance(&mesh, &p);
        assert!(
            ((p - projection.point).norm() - d).abs() <= 1e-14 * d.max(1.0),
            "{p:?}"
        );
    }
}

/// The nearest point searched within a bound (a triangle's distance, as
/// the contact routines pass) is the nearest of all; a bound below the true
/// distance (rounding's worst case) or not a number falls back to the whole
/// tree.
#[test]
fn nearest_within_a_bound_is_the_nearest_of_all() {
    let mut rng = Rng::new(21);
    let mesh = random_soup(&mut rng, 500);
    for _ in 0..300 {
        let p = Point3::from(rng.vector(40.0));
        let d = brute_distance(&mesh, &p);
        let some_triangle = mesh.triangle(rng.below(500) as u32).unwrap();
        let to_it = (p - closest_point_on_triangle_branching(
            &p,
            &some_triangle.a,
            &some_triangle.b,
            &some_triangle.c,
        )
        .0)
            .norm();
        for bound in [to_it, d, 0.5 * d, 0.0, f64::NAN, f64::INFINITY] {
            let nearest = mesh.nearest_within(&p, bound).unwrap();
            assert!(
                ((p - nearest.point).norm() - d).abs() <= 1e-14 * d.max(1.0),
                "{p:?} within {bound}"
            );
        }
    }
}

#[test]
fn closed_meshes_know_their_inside() {
    let mut rng = Rng::new(3);
    let ring = torus(3.0, 1.0, 24, 12);
    assert!(ring.is_closed());
    // The same torus wound inwards: the same solid.
    let inward = TriMesh::new(
        ring.vertices().to_vec(),
        ring.indices().iter().map(|&[a, b, c]| [a, c, b]).collect(),
    )
    .unwrap();
    assert!(inward.is_closed());
    let mut inside_count = 0;
    for _ in 0..2000 {
        let p = Point3::from(rng.vector(5.0));
        if brute_distance(&ring, &p) < 1e-6 {
            continue;
        }
        let expected = inside_by_parity(&ring, &p, &rng.direction());
        inside_count += usize::from(expected);
        for mesh in [&ring, &inward] {
            assert_eq!(mesh.contains_local_point(&p), expected, "{p:?}");
            let projection = mesh.closest_point_local(&p, false).unwrap();
            assert_eq!(projection.is_inside, expected);
            // Triangles sharing the nearest edge or vertex round its
            // distance differently by an ulp or so.
            assert!(((p - projection.point).norm() - brute_distance(&ring, &p)).abs() < 1e-14);
            let solid = mesh.closest_point_local(&p, true).unwrap();
            assert_eq!(solid.point == p, expected);
            // Solid rays from inside hit at 0; hollow ones leave through
            // the first crossing, normal pointing out (along the ray).
            let ray = Ray::new(p, rng.direction());
            let hit = mesh.ray_cast_local(&ray, f64::INFINITY, true);
            if expected {
                assert_eq!(hit.unwrap().t, 0.0);
                let exit = mesh.ray_cast_local(&ray, f64::INFINITY, false).unwrap();
                assert_eq!(
                    Some(exit.t),
                    brute_ray(&ring, &ray, f64::INFINITY).map(|(t, _)| t)
                );
                assert!(exit.normal.dot(&ray.dir) > 0.0, "exit normal points out");
            } else if let Some(hit) = hit {
                assert_eq!(Some(hit.t), brute_ray(&ring, &ray, f64::INFINITY).map(|(t, _)| t));
                assert!(hit.normal.dot(&ray.dir) < 0.0, "entry normal points out");
            }
        }
    }
    assert!(inside_count > 100, "{inside_count} inside");
}

#[test]
fn points_near_edges_and_vertices_of_a_closed_mesh() {
    // Just off the torus, next to its vertices and edge midpoints (where
    // the nearest feature is an edge or a vertex, not a face): outside and
    // inside along the pseudo-normal.
    let ring = torus(3.0, 1.0, 16, 8);
    for (t, tri) in ring.indices().iter().enumerate() {
        let [a, b, c] = tri.map(|i| ring.vertices()[i as usize]);
        for spot in [a, nalgebra::center(&a, &b), nalgebra::center(&b, &c)] {
            // The torus's own outward direction at that spot (from its
            // core circle).
            let core = Vector3::new(spot.x, 0.0, spot.z).normalize() * 3.0;
            let out = (spot.coords - core).normalize();
            assert!(
                !ring.contains_local_point(&(spot + out * 1e-3)),
                "triangle {t} outside"
            );
            assert!(
                ring.contains_local_point(&(spot - out * 1e-3)),
                "triangle {t} inside"
            );
        }
    }
}

#[test]
fn terrain_as_a_mesh_answers_as_the_heightfield() {
    let mut rng = Rng::new(4);
    let (rows, cols) = (12, 9);
    let heights: Vec<f64> = (0..rows * cols).map(|_| rng.range(-2.0, 2.0)).collect();
    let field = HeightField::new(Point3::new(-5.0, 0.3, -4.0), [0.9, 1.1], rows, cols, heights);
    let mesh = TriMesh::from_heightfield(&field).unwrap();
    assert_eq!(mesh.triangle_count(), 2 * field.cell_count());
    assert!(!mesh.is_closed());
    let mut hits = 0;
    for _ in 0..1000 {
        // Over the terrain (from outside its x–z extent a ray can meet the
        // surface from below, where the heightfield, solid beneath, reports
        // the upward normal and the two-sided mesh the one facing the ray).
        let origin = Point3::new(rng.range(-5.0, 4.9), rng.range(3.0, 6.0), rng.range(-4.0, 4.8));
        let ray = Ray::new(origin, rng.direction() - Vector3::new(0.0, 0.8, 0.0));
        // The surface only (the heightfield is solid below it, the mesh
        // only a surface).
        let from_field = field.ray_cast_local(&ray, f64::INFINITY, false);
        let from_mesh = mesh.ray_cast_local(&ray, f64::INFINITY, false);
        match (from_field, from_mesh) {
            (Some(f), Some(m)) => {
                hits += 1;
                assert!(
                    (f.t - m.t).abs() <= 1e-12 * f.t.max(1.0),
                    "{ray:?}: {} vs {}",
                    f.t,
                    m.t
                );
                assert!((f.normal - m.normal).norm() < 1e-9, "{ray:?}");
            }
            (None, None) => {}
            (f, m) => panic!("{ray:?}: field {f:?}, mesh {m:?}"),
        }
        // Above the surface, the nearest point is the same.
        if !field.contains_local_point(&origin) {
            let f = field.closest_point_local(&origin, false).unwrap();
            let m = mesh.closest_point_local(&origin, false).unwrap();
            assert!(((origin - f.point).norm() - (origin - m.point).norm()).abs() < 1e-12);
        }
    }
    assert!(hits > 300, "{hits} hits");
}

#[test]
fn far_from_the_origin_f32_agrees_with_f64() {
    // The torus 1e4 away, vertices rounded to f32 in both precisions: f32
    // ray casts land within a few ulps of 1e4 of the f64 answer (the
    // triangle test's own bound; the tree adds nothing).
    let mut rng = Rng::new(5);
    let shift = Vector3::new(1e4, -1e4, 1e4);
    let ring = torus(3.0, 1.0, 20, 10);
    let vertices32: Vec<Point3<f32>> = ring
        .vertices()
        .iter()
        .map(|v| (v + shift).cast::<f32>())
        .collect();
    let mesh32 = TriMesh::new(vertices32.clone(), ring.indices().to_vec()).unwrap();
    let mesh64 = TriMesh::new(
        vertices32.iter().map(|v| v.cast::<f64>()).collect(),
        ring.indices().to_vec(),
    )
    .unwrap();
    let ulp = 1e4f32.next_up() - 1e4f32;
    let mut hits = 0;
    for _ in 0..500 {
        // Aimed near the torus's core circle.
        let start = Point3::from(rng.vector(8.0));
        let angle = rng.range(0.0, std::f64::consts::TAU);
        let target = Point3::new(3.0 * angle.cos(), 0.0, 3.0 * angle.sin()) + rng.vector(1.2);
        let origin = (start + shift).map(|c| c as f32);
        let dir = ((target - start).normalize() * 2.0).map(|c| c as f32);
        let ray32 = Ray::new(origin, dir);
        let ray64 = Ray::new(origin.cast::<f64>(), dir.cast::<f64>());
        let h32 = mesh32.ray_cast(&Isometry3::identity(), &ray32, f32::INFINITY, false);
        let h64 = mesh64.ray_cast(&Isometry3::identity(), &ray64, f64::INFINITY, false);
        match (h32, h64) {
            (Some(a), Some(b)) => {
                hits += 1;
                let error = (a.t as f64 - b.t) * dir.cast::<f64>().norm();
                assert!(error.abs() <= 4.0 * ulp as f64, "{ray32:?}: {} vs {}", a.t, b.t);
            }
            (None, None) => {}
            // Only rays through an edge may disagree.
            (a, b) => panic!("{ray32:?}: f32 {a:?}, f64 {b:?}"),
        }
    }
    assert!(hits > 100, "{hits} hits");
}

#[test]
fn bad_meshes_are_refused_by_name() {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    let three = vec![p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)];
    let message = |v: Vec<Point3<f64>>, i: Vec<[u32; 3]>| TriMesh::new(v, i).unwrap_err().to_string();
    assert!(message(three.clone(), vec![]).contains("at least one triangle"));
    assert!(message(three.clone(), vec![[0, 1, 3]]).contains("triangle 0 = [0, 1, 3] (index 3, 3 vertices)"));
    assert!(message(three.clone(), vec![[0, 1, 2], [1, 1, 2]]).contains("triangle 1 = [1, 1, 2]"));
    let collinear = vec![p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0), p(2.0, 2.0, 2.0)];
    assert!(message(collinear, vec![[0, 1, 2]]).contains("degenerate"));
    let nan = vec![p(0.0, 0.0, 0.0), p(f64::NAN, 0.0, 0.0), p(0.0, 1.0, 0.0)];
    assert!(message(nan, vec![[0, 1, 2]]).contains("vertex 1"));
    let huge = vec![p(0.0, 0.0, 0.0), p(1e200, 0.0, 0.0), p(0.0, 1.0, 0.0)];
    assert!(message(huge, vec![[0, 1, 2]]).contains("vertex 1"));
}

#[test]
fn open_non_manifold_and_inconsistent_meshes_are_not_closed() {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    let tetra = vec![
        p(0.0, 0.0, 0.0),
        p(1.0, 0.0, 0.0),
        p(0.0, 1.0, 0.0),
        p(0.0, 0.0, 1.0),
    ];
    let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    assert!(TriMesh::new(tetra.clone(), faces.clone()).unwrap().is_closed());
    // A face missing.
    let open = TriMesh::new(tetra.clone(), faces[..3].to_vec()).unwrap();
    assert!(!open.is_closed());
    // Edge 0 of triangle 0 runs 0 → 2, triangle 2 runs it 2 → 0.
    assert_eq!(open.neighbor(0, 0), Some(2));
    assert_eq!(open.neighbor(0, 1), None);
    assert!(!open.contains_local_point(&p(0.1, 0.1, 0.1)));
    // One face flipped: every edge has two uses, but one runs the same way.
    let mut flipped = faces.clone();
    flipped[3] = [1, 3, 2];
    assert!(!TriMesh::new(tetra.clone(), flipped).unwrap().is_closed());
    // Three triangles on one edge.
    let mut vertices = tetra.clone();
    vertices.push(p(-1.0, -1.0, 0.5));
    let mut fan = faces.clone();
    fan.push([0, 1, 4]);
    assert!(!TriMesh::new(vertices, fan).unwrap().is_closed());
    // Bad queries answer nothing.
    let closed = TriMesh::new(tetra, faces).unwrap();
    assert!(closed.closest_point_local(&p(f64::NAN, 0.0, 0.0), true).is_none());
    assert!(
        closed
            .ray_cast_local(
                &Ray::new(p(0.1, 0.1, 5.0), Vector3::new(0.0, 0.0, f64::NAN)),
                10.0,
                true
            )
            .is_none()
    );
    assert!(
        closed
            .ray_cast_local(&Ray::new(p(0.1, 0.1, 5.0), -Vector3::z()), -1.0, true)
            .is_none()
    );
}

/// The neighbours found through the vertex rings equal brute force over
/// every pair of triangles, on grids with holes, flipped triangles and
/// extra triangles on an edge (non-manifold), and `is_closed` agrees.
#[test]
fn neighbors_equal_brute_force_over_every_pair_of_triangles() {
    let mut rng = Rng::new(29);
    for _ in 0..20 {
        let side = 7u32;
        let mut vertices: Vec<Point3<f64>> = (0..side * side)
            .map(|v| Point3::new((v % side) as f64, rng.range(-0.3, 0.3), (v / side) as f64))
            .collect();
        let mut indices: Vec<[u32; 3]> = Vec::new();
        for i in 0..side - 1 {
            for j in 0..side - 1 {
                let v = |a: u32, b: u32| a * side + b;
                for tri in [
                    [v(i, j), v(i + 1, j + 1), v(i + 1, j)],
                    [v(i, j), v(i, j + 1), v(i + 1, j + 1)],
                ] {
                    if rng.chance(0.1) {
                        continue; // a hole
                    }
                    indices.push(if rng.chance(0.1) {
                        [tri[0], tri[2], tri[1]]
                    } else {
                        tri
                    });
                }
            }
        }
        // Extra triangles on existing edges, to new apexes above them.
        for _ in 0..5 {
            let tri = indices[rng.below(indices.len())];
            let k = rng.below(3);
            vertices.push(Point3::new(rng.range(0.0, 6.0), 2.0, rng.range(0.0, 6.0)));
            indices.push([tri[k], tri[(k + 1) % 3], vertices.len() as u32 - 1]);
        }
        let mesh = TriMesh::new(vertices, indices.clone()).unwrap();
        let mut closed = true;
        for (t, tri) in indices.iter().enumerate() {
            for k in 0..3 {
                let (from, to) = (tri[k], tri[(k + 1) % 3]);
                let others: Vec<(usize, bool)> = indices
                    .iter()
                    .enumerate()
                    .filter(|&(u, _)| u != t)
                    .filter_map(|(u, them)| {
                        (0..3).find_map(|j| {
                            let (a, b) = (them[j], them[(j + 1) % 3]);
                            ((a == from && b == to) || (a == to && b == from)).then_some((u, a == to))
                        })
                    })
                    .collect();
                let expected = match others[..] {
                    [(u, true)] => Some(u as u32),
                    _ => None,
                };
                closed &= expected.is_some();
                assert_eq!(mesh.neighbor(t as u32, k), expected, "triangle {t} edge {k}");
            }
        }
        assert_eq!(mesh.is_closed(), closed);
    }
}

/// A terrain mesh with flat stretches (flat inactive edges, where contacts
/// are measured along the face to the ground beyond), valleys and ridges:
/// heights on a coarse grid of levels, some cells raised at random.
fn stepped_terrain(rng: &mut Rng, rows: usize, cols: usize, spacing: f64) -> TriMesh<f64> {
    let heights: Vec<f64> = (0..rows * cols)
        .map(|_| {
            if rng.chance(0.7) {
                0.0
            } else {
                rng.below(3) as f64 * 0.4
            }
        })
        .collect();
    let field = HeightField::new(
        Point3::new(-0.5 * spacing * rows as f64, 0.0, -0.5 * spacing * cols as f64),
        [spacing, spacing],
        rows,
        cols,
        heights,
    );
    TriMesh::from_heightfield(&field).unwrap()
}

/// The swept-sphere contact's lookups among the triangles it kept near
/// its segment (where a segment point is, whether the ground runs through
/// a foot) answer as the tree's searches over the whole mesh: the same
/// candidates, bit for bit, for capsules and spheres above and below an
/// open stepped terrain, around and inside a closed torus and across a
/// random soup, small ones and ones meeting more triangles than are kept.
#[test]
fn lookups_among_the_kept_triangles_answer_as_the_tree() {
    use crate::contact::segment::collect_candidates;
    let mut rng = Rng::new(31);
    let meshes = [
        stepped_terrain(&mut rng, 40, 40, 0.25),
        torus(3.0, 1.0, 24, 12),
        random_soup(&mut rng, 3000),
    ];
    let (mut kept, mut searched) = (Vec::new(), Vec::new());
    let mut compared = [0usize; 3];
    for (m, mesh) in meshes.iter().enumerate() {
        for case in 0..400 {
            // About a random vertex, mostly within reach of the surface.
            let vertex = mesh.triangle(rng.below(mesh.triangle_count()) as u32).unwrap().a;
            let centre = vertex + rng.vector(0.6);
            let half = if case % 5 == 0 { 0.0 } else { rng.range(0.0, 1.5) };
            let axis = rng.direction() * half;
            // Every tenth meets hundreds of triangles (past the kept list).
            let radius = if case % 10 == 0 {
                rng.range(2.0, 3.0)
            } else {
                rng.log_range(-2.0, -0.3)
            };
            let margin = if case % 3 == 0 { 0.0 } else { rng.range(0.0, 0.1) };
            let (p0, p1) = (centre - axis, centre + axis);
            kept.clear();
            searched.clear();
            collect_candidates(mesh, &p0, &p1, radius, margin, true, &mut kept);
            collect_candidates(mesh, &p0, &p1, radius, margin, false, &mut searched);
            assert_eq!(
                format!("{kept:?}"),
                format!("{searched:?}"),
                "mesh {m}, case {case}"
            );
            compared[m] += kept.len();
        }
    }
    assert!(
        compared.iter().all(|&n| n > 500),
        "{compared:?} candidates compared"
    );
}
