//! Mesh contacts and distances as a user calls them, through the default
//! dispatcher in both orders, against answers computed another way: the
//! heightfield's own routines on the terrain exported as a mesh, brute
//! force over every triangle, and the geometry of flat ground and of a
//! closed torus.

use geom::prelude::*;
use geom_random::Rng;

/// A contact point as `(normal, point_on_mesh, point_on_shape, depth)`.
type Point = (Vector3<f64>, Point3<f64>, Point3<f64>, f64);

/// Both orders of a contact query, the second turned back to `mesh → shape`
/// (normals negated, points swapped): `(normal, point_on_mesh,
/// point_on_shape, depth)` per point.
fn contacts_both_orders(
    table: &DispatchTable<f64>,
    mesh: &dyn Shape<f64>,
    mesh_pose: &Isometry3<f64>,
    shape: &dyn Shape<f64>,
    pose: &Isometry3<f64>,
    margin: f64,
) -> [Vec<Point>; 2] {
    let mut out = ContactManifolds::new();
    table
        .contact(mesh, mesh_pose, shape, pose, margin, &mut out)
        .unwrap();
    let forward = out
        .points()
        .map(|(n, p)| (*n, p.point_a, p.point_b, p.depth))
        .collect();
    table
        .contact(shape, pose, mesh, mesh_pose, margin, &mut out)
        .unwrap();
    let backward = out
        .points()
        .map(|(n, p)| (-*n, p.point_b, p.point_a, p.depth))
        .collect();
    [forward, backward]
}

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

/// Distance from `p` to the mesh's surface, over every triangle.
fn brute_distance(mesh: &TriMesh<f64>, p: &Point3<f64>) -> f64 {
    (0..mesh.triangle_count() as u32)
        .map(|i| {
            let t = mesh.triangle(i).unwrap();
            (p - geom::base::distance::closest_point_on_triangle_branching(p, &t.a, &t.b, &t.c).0).norm()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Where a round shape (a sphere or a capsule: a core dilated by
/// `radius`) was against the surface.
enum Placement {
    Sunk,
    Touching,
    Apart,
    /// Within rounding of the margin's edge: not checked.
    AtMargin,
}

/// Asserts one order's contact points of a round shape whose core is `d`
/// from the surface (brute force), sunk in the solid or not: sunk, pushed
/// out by at least `radius + d`; touching or within the margin, exactly
/// `radius - d` deep; beyond the margin, nothing. Normals are unit.
fn check_round_depths(
    points: &[Point],
    sunk: bool,
    d: f64,
    radius: f64,
    margin: f64,
    pose: usize,
) -> Placement {
    for (n, ..) in points {
        assert!((n.norm() - 1.0).abs() < 1e-12, "pose {pose}: {n:?}");
    }
    let deepest = points.iter().map(|p| p.3).fold(f64::NEG_INFINITY, f64::max);
    if sunk {
        assert!(
            deepest >= radius + d - 1e-9,
            "pose {pose}: {points:?} vs {}",
            radius + d
        );
        Placement::Sunk
    } else if d <= radius + margin - 1e-9 {
        assert!(
            (deepest - (radius - d)).abs() < 1e-9,
            "pose {pose}: {deepest} vs {}",
            radius - d
        );
        Placement::Touching
    } else if d > radius + margin + 1e-9 {
        assert!(points.is_empty(), "pose {pose}: {points:?}");
        Placement::Apart
    } else {
        Placement::AtMargin
    }
}

#[test]
fn terrain_as_a_mesh_gives_the_heightfields_sphere_and_capsule_contacts() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(1);
    let (rows, cols) = (10, 10);
    let heights: Vec<f64> = (0..rows * cols).map(|_| rng.range(-0.6, 0.6)).collect();
    let field = HeightField::new(Point3::new(0.0, 0.0, 0.0), [1.0, 1.0], rows, cols, heights);
    let mesh = TriMesh::from_heightfield(&field).unwrap();
    let id = Isometry3::identity();
    let mut compared = 0;
    for k in 0..600 {
        let radius = rng.range(0.1, 0.8);
        let x = rng.range(1.0, 8.0);
        let z = rng.range(1.0, 8.0);
        let ground = field.surface_y_at(x, z).unwrap();
        // From sunk by most of the radius to hovering within the margin;
        // the segment's points stay above the ground (where the
        // heightfield's solid and the mesh's surface agree).
        let center = Point3::new(x, ground + rng.range(0.05, 1.0) * radius + 0.02, z);
        let shape: Box<dyn Shape<f64>> = if k % 2 == 0 {
            Box::new(Sphere::new(radius))
        } else {
            let half = rng.range(0.1, 0.6);
            Box::new(Capsule::from_points(
                Point3::new(0.0, -half, 0.0),
                Point3::new(0.0, half, 0.0),
                radius,
            ))
        };
        let pose = Isometry3::new(center.coords, rng.direction() * rng.range(0.0, 3.0));
        // Every point of a capsule's segment above the ground too (there
        // the heightfield's solid and the mesh's open surface differ).
        if k % 2 == 1 {
            let capsule = (shape.as_ref() as &dyn std::any::Any)
                .downcast_ref::<Capsule<f64>>()
                .unwrap();
            let (a, b) = (pose * capsule.a, pose * capsule.b);
            let above = (0..=20).all(|s| {
                let p = a + (b - a) * (s as f64 / 20.0);
                field.surface_y_at(p.x, p.z).is_some_and(|y| p.y > y + 0.02)
            });
            if !above {
                continue;
            }
        }
        let margin = 0.05;
        let [from_field, _] = contacts_both_orders(&table, &field, &id, shape.as_ref(), &pose, margin);
        for from_mesh in contacts_both_orders(&table, &mesh, &id, shape.as_ref(), &pose, margin) {
            let deepest = |points: &[Point]| points.iter().map(|p| p.3).fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(
                from_field.is_empty(),
                from_mesh.is_empty(),
                "pose {k}: {from_field:?} vs {from_mesh:?}"
            );
            if from_field.is_empty() {
                continue;
            }
            compared += 1;
            assert!(
                (deepest(&from_field) - deepest(&from_mesh)).abs() < 1e-9,
                "pose {k}: {from_field:?} vs {from_mesh:?}"
            );
            // Every mesh normal is one the heightfield reports.
            for (n, ..) in &from_mesh {
                assert!(
                    from_field.iter().any(|(m, ..)| (n - m).norm() < 1e-9),
                    "pose {k}: normal {n:?}"
                );
            }
        }
    }
    assert!(compared > 300, "{compared} compared");
}

#[test]
fn sphere_contact_depth_is_radius_minus_the_brute_force_distance() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(2);
    let ring = torus(3.0, 1.0, 24, 12);
    let pose_mesh = Isometry3::new(Vector3::new(1.0, -2.0, 0.5), Vector3::new(0.3, 0.2, -0.4));
    let mut touching = 0;
    let mut sunk = 0;
    for k in 0..800 {
        let local = Point3::from(rng.vector(5.0));
        let radius = rng.range(0.05, 0.8);
        let margin = 0.02;
        let d = brute_distance(&ring, &local);
        let inside = ring.contains_local_point(&local);
        let ball = Sphere::new(radius);
        let pose = Isometry3::from_parts(
            Translation3::from((pose_mesh * local).coords),
            UnitQuaternion::identity(),
        );
        for points in contacts_both_orders(&table, &ring, &pose_mesh, &ball, &pose, margin) {
            match check_round_depths(&points, inside, d, radius, margin, k) {
                Placement::Sunk => {
                    // Sunk in the solid: the nearest triangle's point is
                    // exactly `radius + d` deep; others in reach report
                    // their own, deeper, pushes.
                    sunk += 1;
                    assert!(
                        points.iter().any(|p| (p.3 - (radius + d)).abs() < 1e-9),
                        "pose {k}: {points:?} vs {}",
                        radius + d
                    );
                }
                Placement::Touching => touching += 1,
                Placement::Apart | Placement::AtMargin => {}
            }
            // Outside, normals from the surface towards the sphere's
            // centre. (Sunk in the solid, every triangle in reach pushes
            // its own way, by its own depth.)
            let centre = Point3::from(pose.translation.vector);
            for (n, on_mesh, ..) in &points {
                assert!(inside || n.dot(&(centre - on_mesh)) >= -1e-9, "pose {k}: {n:?}");
            }
        }
    }
    assert!(touching > 50 && sunk > 50, "{touching} touching, {sunk} sunk");
}

/// Distance from segment `p0 p1` to the mesh's surface, over every
/// triangle.
fn brute_segment_distance(mesh: &TriMesh<f64>, p0: &Point3<f64>, p1: &Point3<f64>) -> f64 {
    (0..mesh.triangle_count() as u32)
        .map(|i| {
            let t = mesh.triangle(i).unwrap();
            geom::base::distance::closest_points_segment_triangle(p0, p1, &t.a, &t.b, &t.c)
                .distance_squared
                .sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn capsule_contact_depth_on_a_closed_mesh_is_radius_minus_the_brute_force_distance() {
    // Capsules about a closed torus, through the dispatcher in both
    // orders. A segment wholly outside the solid: the deepest point is
    // `radius - d` (d, the segment's distance to the surface over every
    // triangle), and nothing beyond the margin. A segment wholly inside
    // is pushed out by at least `radius + d` (the nearest triangle's push;
    // every triangle in reach pushes its own way, and the points kept per
    // normal are the deepest, so that push may be merged into a deeper
    // one beside it; in a concave part a slope met from its air side
    // makes a shallower contact of its own).
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(41);
    let ring = torus(3.0, 1.0, 24, 12);
    let pose_mesh = Isometry3::new(Vector3::new(-0.5, 1.0, 2.0), Vector3::new(-0.2, 0.4, 0.1));
    let (mut touching, mut sunk, mut apart) = (0, 0, 0);
    for k in 0..1500 {
        // Segment centres near the tube's surface, inside and out.
        let angle = rng.range(0.0, std::f64::consts::TAU);
        let around = rng.range(0.0, std::f64::consts::TAU);
        let out = rng.range(0.3, 1.8);
        let centre = Vector3::new(
            (3.0 + out * around.cos()) * angle.cos(),
            out * around.sin(),
            (3.0 + out * around.cos()) * angle.sin(),
        );
        let half = rng.range(0.05, 0.6);
        let radius = rng.range(0.05, 0.5);
        let axis = rng.direction();
        let (p0, p1) = (
            Point3::from(centre - axis * half),
            Point3::from(centre + axis * half),
        );
        let d = brute_segment_distance(&ring, &p0, &p1);
        let (in0, in1) = (ring.contains_local_point(&p0), ring.contains_local_point(&p1));
        if d <= 1e-9 || in0 != in1 {
            // Crossing the surface: no brute-force depth to compare with.
            continue;
        }
        let capsule = Capsule::from_points(Point3::new(0.0, -half, 0.0), Point3::new(0.0, half, 0.0), radius);
        let along =
            UnitQuaternion::rotation_between(&Vector3::y(), &axis).unwrap_or_else(UnitQuaternion::identity);
        let pose = pose_mesh * Isometry3::from_parts(Translation3::from(centre), along);
        let margin = 0.02;
        for points in contacts_both_orders(&table, &ring, &pose_mesh, &capsule, &pose, margin) {
            match check_round_depths(&points, in0, d, radius, margin, k) {
                Placement::Sunk => sunk += 1,
                Placement::Touching => touching += 1,
                Placement::Apart => apart += 1,
                Placement::AtMargin => {}
            }
        }
    }
    assert!(
        touching > 200 && sunk > 100 && apart > 100,
        "{touching} touching, {sunk} sunk, {apart} apart"
    );
}

#[test]
fn shapes_on_flat_mesh_ground_get_the_face_normal_everywhere() {
    // A flat 12 × 12 grid of random-diagonal quads at y = 0.5: every
    // internal edge is flat (inactive), so no contact leans.
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(3);
    let n = 13;
    let vertices: Vec<Point3<f64>> = (0..n * n)
        .map(|k| Point3::new((k / n) as f64, 0.5, (k % n) as f64))
        .collect();
    let mut indices = Vec::new();
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            let v = |a: usize, b: usize| (a * n + b) as u32;
            if rng.chance(0.5) {
                indices.push([v(i, j), v(i + 1, j + 1), v(i + 1, j)]);
                indices.push([v(i, j), v(i, j + 1), v(i + 1, j + 1)]);
            } else {
                indices.push([v(i, j), v(i, j + 1), v(i + 1, j)]);
                indices.push([v(i + 1, j), v(i, j + 1), v(i + 1, j + 1)]);
            }
        }
    }
    let mesh = TriMesh::new(vertices, indices).unwrap();
    let id = Isometry3::identity();
    for k in 0..400 {
        let sink = rng.range(0.001, 0.1);
        let spin = Vector3::y() * rng.range(0.0, std::f64::consts::TAU);
        let (x, z) = (rng.range(3.0, 9.0), rng.range(3.0, 9.0));
        let shapes: [(Box<dyn Shape<f64>>, f64); 4] = [
            (Box::new(Sphere::new(0.4)), 0.4),
            // Lying on its side: the axis along x turned about y.
            (
                Box::new(Capsule::from_points(
                    Point3::new(0.0, -0.75, 0.0),
                    Point3::new(0.0, 0.75, 0.0),
                    0.3,
                )),
                0.3,
            ),
            (Box::new(Cuboid::new(Vector3::new(0.9, 0.25, 0.6))), 0.25),
            (
                Box::new(Cylinder::from_points(
                    Point3::new(0.0, -0.35, 0.0),
                    Point3::new(0.0, 0.35, 0.0),
                    0.3,
                )),
                0.3,
            ),
        ];
        for (s, (shape, rest)) in shapes.iter().enumerate() {
            let lie = if s == 1 || s == 3 {
                UnitQuaternion::from_scaled_axis(spin)
                    * UnitQuaternion::from_scaled_axis(Vector3::z() * std::f64::consts::FRAC_PI_2)
            } else {
                UnitQuaternion::from_scaled_axis(spin)
            };
            let pose = Isometry3::from_parts(Translation3::new(x, 0.5 + rest - sink, z), lie);
            for points in contacts_both_orders(&table, &mesh, &id, shape.as_ref(), &pose, 0.0) {
                assert!(!points.is_empty(), "shape {s} pose {k}");
                // Every point at most the sink deep (a lying cylinder's
                // curved side dips less deep beside its lowest line), the
                // deepest exactly the sink.
                let mut deepest = f64::NEG_INFINITY;
                for (normal, on_mesh, _, depth) in &points {
                    assert!(
                        (normal - Vector3::y()).norm() < 1e-9,
                        "shape {s} pose {k}: {normal:?}"
                    );
                    assert!(
                        *depth <= sink + 1e-9,
                        "shape {s} pose {k}: depth {depth} vs {sink}"
                    );
                    assert!((on_mesh.y - 0.5).abs() < 1e-9);
                    deepest = deepest.max(*depth);
                }
                assert!(
                    (deepest - sink).abs() < 1e-9,
                    "shape {s} pose {k}: deepest {deepest} vs {sink}"
                );
                if s < 3 {
                    assert!(
                        points.iter().all(|p| (p.3 - sink).abs() < 1e-9),
                        "shape {s} pose {k}: {points:?}"
                    );
                }
                if s == 2 {
                    assert_eq!(points.len(), 4, "a resting box reports its four corners");
                }
            }
        }
    }
}

#[test]
fn a_tilted_box_on_a_pyramids_apex_is_pushed_along_its_own_face() {
    // A closed square pyramid (apex up, a convex vertex) under a box
    // turned about z and x, its bottom face 0.05 below the apex: the only
    // contact is the apex in the box's face, pushed out along that face's
    // normal (the apex is an active vertex: no triangle's face normal
    // applies), 0.05 deep along it.
    let table = geom::default_dispatcher::<f64>();
    let vertices = vec![
        Point3::new(-1.0, 0.0, -1.0),
        Point3::new(1.0, 0.0, -1.0),
        Point3::new(1.0, 0.0, 1.0),
        Point3::new(-1.0, 0.0, 1.0),
        Point3::new(0.0, 1.0, 0.0),
    ];
    let indices = vec![[0, 1, 2], [0, 2, 3], [0, 4, 1], [1, 4, 2], [2, 4, 3], [3, 4, 0]];
    let pyramid = TriMesh::new(vertices, indices).unwrap();
    assert!(pyramid.is_closed());
    let apex = Point3::new(0.0, 1.0, 0.0);
    let cube = Cuboid::new(Vector3::new(0.6, 0.3, 0.6));
    for (tilt_z, tilt_x) in [(0.5, 0.2), (-0.3, 0.4), (0.25, -0.35)] {
        let rotation = UnitQuaternion::from_euler_angles(tilt_x, 0.0, tilt_z);
        let up = rotation * Vector3::y();
        // The bottom face's centre 0.05 below the apex along `up`, offset
        // within the face so that the apex meets the face, not an edge.
        let across = rotation * Vector3::new(0.1, 0.0, -0.15);
        let centre = apex + up * (0.3 - 0.05) + across;
        let pose = Isometry3::from_parts(Translation3::from(centre.coords), rotation);
        for points in contacts_both_orders(&table, &pyramid, &Isometry3::identity(), &cube, &pose, 0.0) {
            let (normal, on_mesh, _, depth) = points
                .iter()
                .copied()
                .reduce(|a, b| if b.3 > a.3 { b } else { a })
                .unwrap();
            assert!((normal - up).norm() < 1e-9, "{normal:?} vs {up:?}: {points:?}");
            assert!((depth - 0.05).abs() < 1e-9, "{depth}");
            assert!((on_mesh - apex).norm() < 1e-9, "{on_mesh:?}");
        }
    }
}

#[test]
fn a_box_sunk_in_a_closed_mesh_is_pushed_out_of_the_nearest_face() {
    let table = geom::default_dispatcher::<f64>();
    // A closed cube mesh [−5, 5]³ (12 triangles, wound outwards).
    let c = [-5.0, 5.0];
    let vertices: Vec<Point3<f64>> = (0..8)
        .map(|k| Point3::new(c[k & 1], c[(k >> 1) & 1], c[(k >> 2) & 1]))
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let indices: Vec<[u32; 3]> = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    let cube = TriMesh::new(vertices, indices).unwrap();
    assert!(cube.is_closed());
    let id = Isometry3::identity();
    let small = Cuboid::new(Vector3::new(0.5, 0.5, 0.5));
    // Wholly inside, its top 2.5 below the top face (the nearest): pushed
    // up until its bottom clears it, 3.5.
    let pose = Isometry3::translation(0.2, 2.0, -0.3);
    for points in contacts_both_orders(&table, &cube, &id, &small, &pose, 0.0) {
        assert_eq!(points.len(), 1, "{points:?}");
        let (normal, _, _, depth) = points[0];
        assert!((normal - Vector3::y()).norm() < 1e-12, "{normal:?}");
        assert!((depth - 3.5).abs() < 1e-12, "{depth}");
    }
    // Poking 0.25 out of the top face: still 0.75 in the solid, pushed up
    // by that (its four bottom corners).
    let pose = Isometry3::translation(0.2, 5.25 - 0.5, -0.3);
    for points in contacts_both_orders(&table, &cube, &id, &small, &pose, 0.0) {
        assert_eq!(points.len(), 4, "{points:?}");
        for (normal, _, _, depth) in &points {
            assert!((normal - Vector3::y()).norm() < 1e-9, "{normal:?}");
            assert!((depth - 0.75).abs() < 1e-9, "{depth}");
        }
    }
}

/// A closed convex block with a sharp rim: a round wall from y = −1 to
/// y = 0 (radius 2, `sectors` sides) under a low cone rising to y = 0.8,
/// so that the rim's interior angle is 68° and its normals turn through
/// 112°. Its vertices, for the hull of the same solid.
fn sharp_rimmed_block(sectors: usize) -> (TriMesh<f64>, Vec<Point3<f64>>) {
    let ring = |y: f64| {
        (0..sectors).map(move |j| {
            let angle = std::f64::consts::TAU * j as f64 / sectors as f64;
            Point3::new(2.0 * angle.cos(), y, 2.0 * angle.sin())
        })
    };
    let mut vertices: Vec<Point3<f64>> = ring(0.0).chain(ring(-1.0)).collect();
    vertices.push(Point3::new(0.0, 0.8, 0.0));
    vertices.push(Point3::new(0.0, -1.0, 0.0));
    let (apex, foot) = (2 * sectors as u32, 2 * sectors as u32 + 1);
    let rim = |j: usize| (j % sectors) as u32;
    let bottom = |j: usize| (sectors + j % sectors) as u32;
    let mut indices = Vec::new();
    for j in 0..sectors {
        indices.push([apex, rim(j + 1), rim(j)]);
        indices.push([rim(j), rim(j + 1), bottom(j + 1)]);
        indices.push([rim(j), bottom(j + 1), bottom(j)]);
        indices.push([foot, bottom(j), bottom(j + 1)]);
    }
    (TriMesh::new(vertices.clone(), indices).unwrap(), vertices)
}

#[test]
fn shapes_tipping_over_a_sharp_rim_meet_it_inside_the_solid() {
    // Every contact of a closed convex mesh with a shape names a point of
    // the shape inside the solid (measured by the face planes). A box,
    // cylinder or cone tipping over the rim from above once got the
    // wall's normal at the depth of its far side behind the wall's plane,
    // over the top, out of the solid (a routine normal just past the
    // top's face, turned to the wall's): a body launched off the rim. The
    // hull of the same solid says whether they overlap at all. (A point
    // of a contact turned to a neighbour's normal may lie a rounding's
    // worth beyond the edge: 10⁻⁴ of the block's size is allowed.)
    let table = geom::default_dispatcher::<f64>();
    let (block, vertices) = sharp_rimmed_block(16);
    assert!(block.is_closed());
    let hull = ConvexHull::new(&vertices).unwrap();
    let centre = Point3::new(0.0, -0.2, 0.0);
    let planes: Vec<(Vector3<f64>, Point3<f64>)> = (0..block.triangle_count() as u32)
        .map(|t| {
            let triangle = block.triangle(t).unwrap();
            let normal = block.triangle_normal(t).unwrap();
            let outward = if normal.dot(&(triangle.a - centre)) > 0.0 {
                normal
            } else {
                -normal
            };
            (outward, triangle.a)
        })
        .collect();
    // The largest signed distance past a face plane: <= 0 inside.
    let outside = |p: &Point3<f64>| {
        planes
            .iter()
            .map(|(n, on)| n.dot(&(p - on)))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let id = Isometry3::identity();
    let mut rng = Rng::new(12);
    let mut out = ContactManifolds::new();
    let mut compared = 0;
    for k in 0..600 {
        let size = |rng: &mut Rng| rng.range(0.2, 0.6);
        let shape: Box<dyn Shape<f64>> = match k % 3 {
            0 => Box::new(Cuboid::new(Vector3::new(
                size(&mut rng),
                size(&mut rng),
                size(&mut rng),
            ))),
            1 => {
                let half = size(&mut rng);
                Box::new(Cylinder::from_points(
                    Point3::new(0.0, -half, 0.0),
                    Point3::new(0.0, half, 0.0),
                    size(&mut rng),
                ))
            }
            _ => {
                let half = size(&mut rng);
                Box::new(Cone::from_points(
                    Point3::new(0.0, half, 0.0),
                    Point3::new(0.0, -half, 0.0),
                    size(&mut rng),
                ))
            }
        };
        let angle = rng.range(0.0, std::f64::consts::TAU);
        let on_rim = Point3::new(2.0 * angle.cos(), 0.0, 2.0 * angle.sin());
        let pose = Isometry3::new(
            on_rim.coords + rng.vector(0.6),
            rng.direction() * rng.range(0.0, 3.0),
        );
        table
            .contact(&hull, &id, shape.as_ref(), &pose, 0.0, &mut out)
            .unwrap();
        let solid_depth = out
            .points()
            .map(|(_, p)| p.depth)
            .fold(f64::NEG_INFINITY, f64::max);
        // Shallow overlaps: a deep one may reach through the block, where
        // a face's clipped feature leaves the solid on the far side.
        if solid_depth > 0.2 {
            continue;
        }
        compared += usize::from(solid_depth > 1e-3);
        for points in contacts_both_orders(&table, &block, &id, shape.as_ref(), &pose, 0.0) {
            for &(_, _, on_shape, depth) in &points {
                assert!(
                    outside(&on_shape) < 1e-4,
                    "case {k}: {on_shape:?} at depth {depth} out of the solid: {points:?}"
                );
            }
            let deepest = points.iter().map(|p| p.3).fold(f64::NEG_INFINITY, f64::max);
            if solid_depth > 1e-3 {
                assert!(
                    deepest > 0.0,
                    "case {k}: overlap {solid_depth} missed: {points:?}"
                );
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

/// A round block of radius 3 with a paraboloid dish 0.7 deep hollowed in
/// its top (the rim at y = 0, the walls down to y = −2): a closed mesh
/// whose rim is sharp and whose top falls away inside it.
fn dish_block() -> TriMesh<f64> {
    const RINGS: usize = 6;
    const SECTORS: usize = 24;
    let at = |r: f64, turn: f64, y: f64| {
        let angle = std::f64::consts::TAU * turn / SECTORS as f64;
        Point3::new(r * angle.cos(), y, r * angle.sin())
    };
    let turned = |ring: usize| 0.5 * (ring % 2) as f64;
    let mut vertices = vec![Point3::new(0.0, -0.7, 0.0)];
    for ring in 1..=RINGS {
        let r = 3.0 * ring as f64 / RINGS as f64;
        let y = -0.7 * (1.0 - (r / 3.0).powi(2));
        vertices.extend((0..SECTORS).map(|j| at(r, j as f64 + turned(ring), y)));
    }
    vertices.extend((0..SECTORS).map(|j| at(3.0, j as f64 + turned(RINGS), -2.0)));
    vertices.push(Point3::new(0.0, -2.0, 0.0));
    let v = |ring: usize, j: usize| (1 + (ring - 1) * SECTORS + j % SECTORS) as u32;
    let bottom = (vertices.len() - 1) as u32;
    let mut indices = Vec::new();
    for j in 0..SECTORS {
        indices.push([0, v(1, j + 1), v(1, j)]);
        for ring in 1..RINGS {
            if turned(ring) == 0.0 {
                indices.push([v(ring, j), v(ring, j + 1), v(ring + 1, j)]);
                indices.push([v(ring + 1, j), v(ring, j + 1), v(ring + 1, j + 1)]);
            } else {
                indices.push([v(ring, j), v(ring, j + 1), v(ring + 1, j + 1)]);
                indices.push([v(ring + 1, j), v(ring, j), v(ring + 1, j + 1)]);
            }
        }
        indices.push([v(RINGS, j), v(RINGS, j + 1), v(RINGS + 1, j)]);
        indices.push([v(RINGS + 1, j), v(RINGS, j + 1), v(RINGS + 1, j + 1)]);
        indices.push([bottom, v(RINGS + 1, j), v(RINGS + 1, j + 1)]);
    }
    TriMesh::new(vertices, indices).unwrap()
}

#[test]
fn shapes_tipping_over_a_dishs_rim_meet_it_inside_the_solid() {
    // As over the convex block's rim, every contact's point on the shape
    // lies in the solid (the mesh's own inside test, or within 10⁻⁴ of
    // its surface by brute force), for shapes whose centre is outside it
    // and near the rim. Here the top falls away inside the rim, so a
    // point behind the wall's plane at the rim's height is in the air
    // over the dish: the contacts that once launched a box off such a rim
    // (the wall's normal, 0.6 to 1.2 deep) fail this.
    let table = geom::default_dispatcher::<f64>();
    let dish = dish_block();
    assert!(dish.is_closed());
    let id = Isometry3::identity();
    let mut rng = Rng::new(13);
    let mut touching = 0;
    for k in 0..900 {
        let size = |rng: &mut Rng| rng.range(0.15, 0.45);
        let shape: Box<dyn Shape<f64>> = match k % 3 {
            0 => Box::new(Cuboid::new(Vector3::new(
                size(&mut rng),
                size(&mut rng),
                size(&mut rng),
            ))),
            1 => {
                let half = size(&mut rng);
                Box::new(Cylinder::from_points(
                    Point3::new(0.0, -half, 0.0),
                    Point3::new(0.0, half, 0.0),
                    size(&mut rng),
                ))
            }
            _ => {
                let half = size(&mut rng);
                Box::new(Cone::from_points(
                    Point3::new(0.0, half, 0.0),
                    Point3::new(0.0, -half, 0.0),
                    size(&mut rng),
                ))
            }
        };
        let angle = rng.range(0.0, std::f64::consts::TAU);
        let on_rim = Point3::new(3.0 * angle.cos(), 0.0, 3.0 * angle.sin());
        let centre = on_rim + rng.vector(0.5);
        if dish.contains_local_point(&centre) || brute_distance(&dish, &centre) > 0.3 {
            continue;
        }
        let pose = Isometry3::new(centre.coords, rng.direction() * rng.range(0.0, 3.0));
        for points in contacts_both_orders(&table, &dish, &id, shape.as_ref(), &pose, 0.0) {
            touching += usize::from(points.iter().any(|p| p.3 > 1e-3));
            for &(_, on_mesh, on_shape, depth) in &points {
                if depth <= 0.0 || dish.contains_local_point(&on_shape) {
                    continue;
                }
                let off = brute_distance(&dish, &on_shape);
                // At a rim sharper than a right angle an edge's normal,
                // or a face's across it, may put the shape's point just
                // beside the solid while the mesh's point is on the rim:
                // that contact stands. A mesh point off the mesh (a face's
                // plane beyond its triangle, over the dish) does not.
                let on_surface = brute_distance(&dish, &on_mesh) < 1e-4;
                assert!(
                    off < 1e-4 || on_surface,
                    "case {k}: {on_shape:?} at depth {depth} is {off} out of the solid: {points:?}"
                );
            }
        }
    }
    assert!(touching > 100, "{touching}");
}

#[test]
fn distances_to_a_mesh_equal_brute_force_in_both_orders() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(4);
    let ring = torus(3.0, 1.0, 20, 10);
    let id = Isometry3::identity();
    let identity = Isometry3::identity();
    let mut measured = 0;
    for k in 0..200 {
        let shape: Box<dyn Shape<f64>> = match k % 3 {
            0 => Box::new(Sphere::new(rng.range(0.1, 0.5))),
            1 => Box::new(Cuboid::new(Vector3::new(0.3, 0.2, 0.4))),
            _ => Box::new(Capsule::from_points(
                Point3::new(0.0, -0.25, 0.0),
                Point3::new(0.0, 0.25, 0.0),
                0.2,
            )),
        };
        let pose = Isometry3::new(rng.vector(6.0), rng.direction() * rng.range(0.0, 3.0));
        // Brute force: the least distance over every triangle.
        let mut expected = f64::INFINITY;
        let mut intersecting = false;
        for i in 0..ring.triangle_count() as u32 {
            match table
                .closest_points(
                    &ring.triangle(i).unwrap(),
                    &identity,
                    shape.as_ref(),
                    &pose,
                    f64::INFINITY,
                )
                .unwrap()
            {
                ClosestPoints::WithinMargin { point_a, point_b } => {
                    expected = expected.min((point_b - point_a).norm())
                }
                ClosestPoints::Intersecting => intersecting = true,
                ClosestPoints::Disjoint => {}
            }
        }
        let centre_inside = ring.contains_local_point(&Point3::from(pose.translation.vector));
        for swap in [false, true] {
            let answer = if swap {
                table.closest_points(shape.as_ref(), &pose, &ring, &id, f64::INFINITY)
            } else {
                table.closest_points(&ring, &id, shape.as_ref(), &pose, f64::INFINITY)
            }
            .unwrap();
            match answer {
                ClosestPoints::Intersecting => assert!(intersecting || centre_inside, "pose {k}"),
                ClosestPoints::WithinMargin { point_a, point_b } => {
                    assert!(!intersecting && !centre_inside, "pose {k}");
                    measured += 1;
                    assert!(((point_b - point_a).norm() - expected).abs() < 1e-9, "pose {k}");
                }
                ClosestPoints::Disjoint => panic!("pose {k}: no limit, yet disjoint"),
            }
        }
    }
    assert!(measured > 100, "{measured} measured");
}

/// The deepest contact point as `(normal, depth)`, if any.
fn deepest<N: geom::base::Real>(out: &ContactManifolds<N>) -> Option<(Vector3<N>, N)> {
    out.points()
        .map(|(n, p)| (*n, p.depth))
        .reduce(|best, x| if x.1 > best.1 { x } else { best })
}

#[test]
fn far_from_the_origin_f32_contacts_and_distances_agree_with_f64() {
    // A torus 10⁴ from the origin, its vertices rounded to f32 and given
    // to both precisions; spheres, capsules and boxes near it (centres
    // outside the tube, within reach of it) at f32 poses, also given to
    // both. Distances in f32 stay within 8 ulps of 10⁴ of the f64 answer
    // to the same inputs, sphere contact depths within 16: the surface
    // counts a foot past a flat edge as on it within 8 ε |x| (about 10
    // ulps at 10⁴; it was 1024 ε, 1.2 in f32, and sphere depths were off
    // by up to 0.12), capsule depths within 32 (they were 324 apart where
    // a capsule end inside the tube measured to a nearly flat edge in one
    // precision and along the face in the other), box depths within 16
    // (they were 77 apart where the deepest point's rounding put it on an
    // edge in one precision and on the face in the other).
    let mut rng = Rng::new(29);
    let shift = Vector3::new(1e4, -1e4, 1e4);
    let ring = torus(3.0, 1.0, 24, 12);
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
    let (table32, table64) = (
        geom::default_dispatcher::<f32>(),
        geom::default_dispatcher::<f64>(),
    );
    let ulp = f64::from(1e4f32.next_up() - 1e4f32);
    let (id32, id64) = (Isometry3::<f32>::identity(), Isometry3::<f64>::identity());
    let (mut sphere_contacts, mut capsule_contacts, mut box_contacts, mut distances) = (0, 0, 0, 0);
    let mut worst = [0.0f64; 4];
    for k in 0..600 {
        let angle = rng.range(0.0, std::f64::consts::TAU);
        let around = rng.range(0.0, std::f64::consts::TAU);
        let out = rng.range(1.05, 1.6);
        let centre = Vector3::new(
            (3.0 + out * around.cos()) * angle.cos(),
            out * around.sin(),
            (3.0 + out * around.cos()) * angle.sin(),
        );
        let pose32: Isometry3<f32> =
            Isometry3::new(centre + shift, rng.direction() * rng.range(0.0, 3.0)).cast();
        let pose64: Isometry3<f64> = pose32.cast();
        let size = f64::from(rng.range(0.2, 0.5) as f32);
        let (shape32, shape64): (Box<dyn Shape<f32>>, Box<dyn Shape<f64>>) = match k % 3 {
            0 => (Box::new(Sphere::new(size as f32)), Box::new(Sphere::new(size))),
            1 => {
                let (a, b) = (Point3::new(0.0, -0.3, 0.0), Point3::new(0.0, 0.3, 0.0));
                (
                    Box::new(Capsule::from_points(a.cast(), b.cast(), size as f32)),
                    Box::new(Capsule::from_points(a, b, size)),
                )
            }
            _ => {
                let half = Vector3::new(size, 0.7 * size, 1.2 * size).cast::<f32>();
                (Box::new(Cuboid::new(half)), Box::new(Cuboid::new(half.cast())))
            }
        };
        let margin = 0.1;
        let mut out32 = ContactManifolds::new();
        let mut out64 = ContactManifolds::new();
        table32
            .contact(
                &mesh32,
                &id32,
                shape32.as_ref(),
                &pose32,
                margin as f32,
                &mut out32,
            )
            .unwrap();
        table64
            .contact(&mesh64, &id64, shape64.as_ref(), &pose64, margin, &mut out64)
            .unwrap();
        match (deepest(&out32), deepest(&out64)) {
            (Some((_, d32)), Some((_, d64))) => {
                let error = (f64::from(d32) - d64).abs() / ulp;
                worst[k % 3] = worst[k % 3].max(error);
                if k % 3 == 0 {
                    assert!(error <= 16.0, "case {k}: sphere depth f32 {d32} vs f64 {d64}");
                    sphere_contacts += 1;
                } else if k % 3 == 1 {
                    assert!(error <= 32.0, "case {k}: capsule depth f32 {d32} vs f64 {d64}");
                    capsule_contacts += 1;
                } else {
                    assert!(error <= 16.0, "case {k}: box depth f32 {d32} vs f64 {d64}");
                    box_contacts += 1;
                }
            }
            (None, None) => {}
            // One finds a contact the other does not only at the margin's
            // edge (within rounding of it).
            (Some((_, d)), None) => assert!(
                (f64::from(d) + margin).abs() <= 16.0 * ulp,
                "case {k}: f32 only, {d}"
            ),
            (None, Some((_, d))) => assert!((d + margin).abs() <= 16.0 * ulp, "case {k}: f64 only, {d}"),
        }
        let d32 = table32
            .distance(&mesh32, &id32, shape32.as_ref(), &pose32)
            .unwrap();
        let d64 = table64
            .distance(&mesh64, &id64, shape64.as_ref(), &pose64)
            .unwrap();
        if d64 > 0.0 {
            let error = (f64::from(d32) - d64).abs() / ulp;
            worst[3] = worst[3].max(error);
            assert!(error <= 8.0, "case {k}: distance f32 {d32} vs f64 {d64}");
            distances += 1;
        }
    }
    println!(
        "largest f32 - f64 difference, in ulps of 1e4: sphere depth {:.1}, capsule depth {:.1}, box depth {:.1}, distance {:.1}",
        worst[0], worst[1], worst[2], worst[3]
    );
    assert!(
        sphere_contacts > 100 && capsule_contacts > 100 && box_contacts > 100 && distances > 100,
        "{sphere_contacts} sphere, {capsule_contacts} capsule, {box_contacts} box contacts, {distances} distances"
    );
}
