//! Convex shapes (boxes, cylinders, cones, ellipsoids) against heightfields
//! through the default routines: no ghost normals on flat or planar
//! tessellated ground, depths equal to the shape's deepest point below the
//! plane (its support point, computed independently of the contact code),
//! nothing under holes, both orders.

use geom_core::dispatch::DispatchTable;
use geom_core::{ContactManifolds, Shape};
use geom_prims::{Cone, Cuboid, Cylinder, Ellipsoid, Sphere};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};

use crate::test_support::TestRng;
use crate::{HeightField, HeightFieldDesc};

/// Every built-in pair, as `geom::default_dispatcher` registers them.
fn table() -> DispatchTable<f64> {
    let mut table = DispatchTable::new();
    geom_prims::contact::register_pairs(&mut table);
    geom_prims::gjk::install_convex_fallback(&mut table);
    super::register_pairs(&mut table);
    table
}

/// A plane `y = sx·x + sz·z` sampled on a 16 × 16 grid of unit cells,
/// every third cell flipped, holes at `holes`.
fn planar_field(slope: [f64; 2], holes: Vec<usize>) -> HeightField<f64> {
    let rows = 16;
    let heights = (0..rows * rows)
        .map(|k| slope[0] * (k / rows) as f64 + slope[1] * (k % rows) as f64)
        .collect();
    let mut desc = HeightFieldDesc::new(Point3::origin(), [1.0, 1.0], rows, rows, heights);
    desc.flipped_cells = (0..(rows - 1) * (rows - 1)).filter(|c| c % 3 == 1).collect();
    desc.hole_cells = holes;
    HeightField::try_from_desc(desc).unwrap()
}

fn shapes() -> Vec<Box<dyn Shape<f64>>> {
    vec![
        Box::new(Cuboid::new(Vector3::new(0.7, 0.3, 0.45))),
        Box::new(Cylinder::from_points(
            Point3::new(0.0, -0.4, 0.0),
            Point3::new(0.0, 0.4, 0.0),
            0.35,
        )),
        Box::new(Cone::from_points(
            Point3::new(0.0, 0.5, 0.0),
            Point3::new(0.0, -0.3, 0.0),
            0.4,
        )),
        Box::new(Ellipsoid::new(Vector3::new(0.6, 0.25, 0.4))),
    ]
}

/// Places `shape` (rotated by `rotation`) with its deepest point along
/// `-up` at `sink` below the plane point `surface`.
fn resting_pose(
    shape: &dyn Shape<f64>,
    rotation: UnitQuaternion<f64>,
    surface: Point3<f64>,
    up: &Vector3<f64>,
    sink: f64,
) -> Isometry3<f64> {
    let rotated = Isometry3::from_parts(Translation3::identity(), rotation);
    let lowest = shape.support(&rotated, &-up).unwrap();
    let reach = -up.dot(&lowest.coords);
    Isometry3::from_parts(
        Translation3::from((surface + up * (reach - sink)).coords),
        rotation,
    )
}

/// Slides every shape in every test rotation across a planar tessellated
/// field in small steps; returns the worst normal angle from the plane's
/// normal and the worst |deepest depth − sink|.
fn slide_over_plane(slope: [f64; 2]) -> (f64, f64) {
    let field = planar_field(slope, Vec::new());
    let table = table();
    let up = Vector3::new(-slope[0], 1.0, -slope[1]).normalize();
    let sink = 0.02;
    let mut rng = TestRng::new(7);
    let mut rotations = vec![
        UnitQuaternion::identity(),
        UnitQuaternion::from_euler_angles(0.0, 0.4, 0.0),
        UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.3),
    ];
    for _ in 0..3 {
        rotations.push(UnitQuaternion::from_euler_angles(
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
        ));
    }
    let mut out = ContactManifolds::new();
    let (mut worst_angle, mut worst_depth) = (0.0f64, 0.0f64);
    for shape in shapes() {
        for rotation in &rotations {
            for step in 0..48 {
                let x = 5.0 + step as f64 * 0.0625;
                let z = 5.3 + step as f64 * 0.041;
                let surface = Point3::new(x, slope[0] * x + slope[1] * z, z);
                let pose = resting_pose(shape.as_ref(), *rotation, surface, &up, sink);
                table
                    .contact(
                        &field,
                        &Isometry3::identity(),
                        shape.as_ref(),
                        &pose,
                        0.0,
                        &mut out,
                    )
                    .unwrap();
                assert_eq!(
                    out.len(),
                    1,
                    "{:?} at {x} {z}: {:?}",
                    shape.kind(),
                    out.as_slice()
                );
                let manifold = &out.as_slice()[0];
                assert!(!manifold.points.is_empty() && manifold.points.len() <= 4);
                worst_angle = worst_angle.max((manifold.normal - up).norm());
                worst_depth = worst_depth.max((manifold.max_depth().unwrap() - sink).abs());
                for point in &manifold.points {
                    assert!(point.depth <= sink + 1e-9, "{:?}: {point:?}", shape.kind());
                }
            }
        }
    }
    (worst_angle, worst_depth)
}

#[test]
fn convex_shapes_on_flat_tessellated_ground_get_the_face_normal_and_the_support_depth() {
    let (angle, depth) = slide_over_plane([0.0, 0.0]);
    assert!(angle < 1e-9, "worst normal angle {angle}");
    assert!(depth < 1e-9, "worst depth error {depth}");
}

#[test]
fn convex_shapes_on_a_planar_slope_get_the_plane_normal() {
    let (angle, depth) = slide_over_plane([0.3, -0.2]);
    assert!(angle < 1e-8, "worst normal angle {angle}");
    assert!(depth < 1e-8, "worst depth error {depth}");
}

#[test]
fn nothing_under_a_hole_and_both_orders_agree() {
    // Cells (7, 7), (7, 8), (8, 7), (8, 8) are holes: a small box over
    // their middle touches nothing.
    let holes = [(7, 7), (7, 8), (8, 7), (8, 8)].map(|(i, j)| i * 15 + j).to_vec();
    let field = planar_field([0.0, 0.0], holes);
    let table = table();
    let cube = Cuboid::new(Vector3::repeat(0.3));
    let mut out = ContactManifolds::new();
    let over_hole = Isometry3::translation(8.0, 0.2, 8.0);
    table
        .contact(&field, &Isometry3::identity(), &cube, &over_hole, 0.0, &mut out)
        .unwrap();
    assert!(out.is_empty(), "{:?}", out.as_slice());
    let beside = Isometry3::translation(3.5, 0.2, 3.5);
    table
        .contact(&field, &Isometry3::identity(), &cube, &beside, 0.0, &mut out)
        .unwrap();
    let forward = out.as_slice().to_vec();
    assert_eq!(forward.len(), 1);
    assert!((forward[0].max_depth().unwrap() - 0.1).abs() < 1e-12);
    table
        .contact(&cube, &beside, &field, &Isometry3::identity(), 0.0, &mut out)
        .unwrap();
    assert_eq!(out.as_slice()[0].normal, -forward[0].normal);
    for (p, q) in out.as_slice()[0].points.iter().zip(&forward[0].points) {
        assert_eq!(*p, q.swapped());
    }
}

#[test]
fn a_box_over_a_convex_ridge_gets_the_ridge_normal_and_a_sphere_routine_is_kept() {
    // A roof: y = 2 - |x - 4|·0.8, ridge along z at x = 4 (an active edge).
    let rows = 9;
    let heights = (0..rows * rows)
        .map(|k| 2.0 - ((k / rows) as f64 - 4.0).abs() * 0.8)
        .collect();
    let field = HeightField::try_from_desc(HeightFieldDesc::new(
        Point3::origin(),
        [1.0, 1.0],
        rows,
        rows,
        heights,
    ))
    .unwrap();
    let table = table();
    // A cube whose flat bottom meets the ridge line: pushed straight up.
    let cube = Cuboid::new(Vector3::repeat(0.25));
    let pose = Isometry3::translation(4.0, 2.0 + 0.25 - 0.01, 4.3);
    let mut out = ContactManifolds::new();
    table
        .contact(&field, &Isometry3::identity(), &cube, &pose, 0.0, &mut out)
        .unwrap();
    let deepest = out
        .points()
        .max_by(|a, b| a.1.depth.total_cmp(&b.1.depth))
        .unwrap();
    assert!((deepest.1.depth - 0.01).abs() < 1e-9, "{:?}", out.as_slice());
    assert!(deepest.0.angle(&Vector3::y()) < 1e-6, "{:?}", deepest.0);
    // Spheres keep their own routine (exact edge direction).
    let ball = Sphere::new(0.5);
    let ball_pose = Isometry3::translation(4.0, 2.4, 4.3);
    table
        .contact(&field, &Isometry3::identity(), &ball, &ball_pose, 0.0, &mut out)
        .unwrap();
    let (normal, point) = out.points().next().unwrap();
    assert!(normal.angle(&Vector3::y()) < 1e-12);
    assert!((point.depth - 0.1).abs() < 1e-12);
}

/// Directions spread over the unit sphere (a Fibonacci lattice).
/// A rotation about a random axis (from the cube, normalised) by up to π.
fn random_rotation(rng: &mut TestRng) -> UnitQuaternion<f64> {
    UnitQuaternion::from_axis_angle(
        &nalgebra::Unit::new_normalize(Vector3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        )),
        rng.range(0.0, std::f64::consts::PI),
    )
}

fn sphere_directions(count: usize) -> Vec<Vector3<f64>> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..count)
        .map(|k| {
            let y = 1.0 - 2.0 * (k as f64 + 0.5) / count as f64;
            let ring = (1.0 - y * y).sqrt();
            let angle = golden * k as f64;
            Vector3::new(ring * angle.cos(), y, ring * angle.sin())
        })
        .collect()
}

/// Found by placing a tilted barrel on rolling ground: a convex shape
/// whose lowest point along a triangle's normal lies beyond that triangle
/// (over lower ground) while its other end dips into the triangle got no
/// contact from that triangle — a shape sunk into the terrain was reported
/// apart. Oracle, independent of the contact code: the shape's boundary
/// sampled by support points in 600 directions; a sample below the
/// surface (`surface_y_at`) by more than 10⁻³ means the shape meets the
/// solid, and the contact must then be deeper than zero. (Not deeper than
/// the sample's depth below its triangle's plane: next to a ridge the push
/// out over the ridge may be the shorter one.)
#[test]
fn shapes_sunk_into_rolling_ground_always_get_a_contact() {
    let rows = 25;
    let height =
        |x: f64, z: f64| 0.6 * (0.9 * x).sin() * (0.7 * z + 0.3).cos() + 0.25 * (1.7 * x + 1.1 * z).sin();
    let heights = (0..rows * rows)
        .map(|k| height(0.5 * (k / rows) as f64, 0.5 * (k % rows) as f64))
        .collect();
    let mut desc = HeightFieldDesc::new(Point3::origin(), [0.5, 0.5], rows, rows, heights);
    desc.flipped_cells = (0..(rows - 1) * (rows - 1)).filter(|c| c % 5 == 2).collect();
    let field = HeightField::try_from_desc(desc).unwrap();
    let table = table();
    let directions = sphere_directions(600);
    let mut shapes = shapes();
    shapes.push(Box::new(Cylinder::from_points(
        Point3::new(0.0, 0.0, -0.9),
        Point3::new(0.0, 0.0, 0.9),
        0.35,
    )));
    shapes.push(Box::new(Cuboid::new(Vector3::new(1.2, 0.2, 0.3))));
    let mut rng = TestRng::new(41);
    let (mut sunk, mut checked) = (0, 0);
    for round in 0..400 {
        let shape = &shapes[round % shapes.len()];
        let rotation = random_rotation(&mut rng);
        let (x, z) = (rng.range(2.5, 9.5), rng.range(2.5, 9.5));
        let y = field.surface_y_at(x, z).unwrap() + rng.range(-0.3, 0.6);
        let pose = Isometry3::from_parts(Translation3::new(x, y, z), rotation);
        let below = directions
            .iter()
            .filter_map(|d| shape.support(&pose, d))
            .filter_map(|p| field.surface_y_at(p.x, p.z).map(|s| s - p.y))
            .fold(f64::NEG_INFINITY, f64::max);
        let mut out = ContactManifolds::new();
        table
            .contact(
                &field,
                &Isometry3::identity(),
                shape.as_ref(),
                &pose,
                0.0,
                &mut out,
            )
            .unwrap();
        let deepest = out
            .points()
            .map(|(_, p)| p.depth)
            .fold(f64::NEG_INFINITY, f64::max);
        // The other order answers the same depths.
        let mut reversed = ContactManifolds::new();
        table
            .contact(
                shape.as_ref(),
                &pose,
                &field,
                &Isometry3::identity(),
                0.0,
                &mut reversed,
            )
            .unwrap();
        let deepest_reversed = reversed
            .points()
            .map(|(_, p)| p.depth)
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(deepest.to_bits(), deepest_reversed.to_bits(), "round {round}");
        checked += 1;
        if below > 1e-3 {
            sunk += 1;
            assert!(
                deepest > 0.0,
                "round {round} ({:?}): a point {below} below the surface, deepest contact {deepest}",
                shape.kind()
            );
        }
    }
    assert!(sunk > checked / 4, "{sunk} of {checked} sunk");
}

/// The converse of the test above, on rough random terrain with steep
/// triangles (no holes): a shape clear of the ground gets no contact deeper
/// than zero, in either order (the convex shapes, and a sphere and a
/// capsule through their own terrain routines). Oracle, independent of the face clipping:
/// the shape's centre above the surface and its distance to every triangle
/// (GJK through the table, triangle by triangle) above 0.05, so that it
/// lies wholly above the solid (the columns below the triangles).
#[test]
fn shapes_hovering_over_rough_ground_get_no_contact() {
    let table = table();
    let mut shapes = shapes();
    // The round shapes' own terrain routines, through the same table.
    shapes.push(Box::new(Sphere::new(0.45)));
    shapes.push(Box::new(geom_prims::Capsule::from_points(
        Point3::new(-0.5, 0.0, 0.0),
        Point3::new(0.5, 0.0, 0.0),
        0.3,
    )));
    let mut rng = TestRng::new(43);
    let identity = Isometry3::identity();
    let (mut hovering, mut false_contacts) = (0, Vec::new());
    for round in 0..600 {
        let mut desc = crate::test_support::random_field(&mut rng, 10, 10).to_desc();
        desc.hole_cells.clear();
        let field = HeightField::try_from_desc(desc).unwrap();
        let extent = field.local_extent();
        let shape = &shapes[round % shapes.len()];
        let rotation = random_rotation(&mut rng);
        let x = rng.range(extent.mins.x + 2.0, extent.maxs.x - 2.0);
        let z = rng.range(extent.mins.z + 2.0, extent.maxs.z - 2.0);
        let ground = field.surface_y_at(x, z).unwrap();
        let pose = Isometry3::from_parts(Translation3::new(x, ground + rng.range(0.3, 1.2), z), rotation);
        let clearance = (0..2 * field.cell_count() as u32)
            .filter_map(|id| field.triangle(crate::TriangleId(id)))
            .map(|triangle| {
                table
                    .distance(&triangle, &identity, shape.as_ref(), &pose)
                    .unwrap()
            })
            .fold(f64::INFINITY, f64::min);
        if clearance < 0.05 {
            continue;
        }
        hovering += 1;
        for reversed in [false, true] {
            let mut out = ContactManifolds::new();
            if reversed {
                table.contact(shape.as_ref(), &pose, &field, &identity, 0.0, &mut out)
            } else {
                table.contact(&field, &identity, shape.as_ref(), &pose, 0.0, &mut out)
            }
            .unwrap();
            let deepest = out
                .points()
                .map(|(_, p)| p.depth)
                .fold(f64::NEG_INFINITY, f64::max);
            if deepest > 0.0 {
                false_contacts.push((round, shape.kind(), clearance, deepest));
            }
        }
    }
    assert!(hovering > 150, "{hovering}");
    assert!(
        false_contacts.is_empty(),
        "{} of {hovering}: {false_contacts:?}",
        false_contacts.len()
    );
}

#[test]
fn the_deepest_point_over_a_triangles_column_equals_brute_force_over_its_boundary() {
    // A shape whose lowest point along the face normal lies beside a
    // triangle: its deepest point over the triangle's column, from the
    // column's walls and corners, against the lowest point of the shape
    // on 3 × 4000 vertical lines along the triangle's edges (ray casts
    // up each line; the optimum lies on the column's boundary). The
    // answer is at least as deep as every sample and no deeper than the
    // samples' spacing allows on the shape's slopes.
    use crate::contact::convex::{PlacedShape, deepest_over_triangle};
    use geom_core::Ray;
    let mut rng = TestRng::new(31);
    let mut compared = 0;
    for case in 0..600 {
        let corners = [
            Point3::new(0.0, rng.range(-0.2, 0.2), 0.0),
            Point3::new(1.0, rng.range(-0.2, 0.2), 0.0),
            Point3::new(rng.range(-0.3, 1.3), rng.range(-0.2, 0.2), rng.range(0.5, 1.2)),
        ];
        let triangle = geom_prims::Triangle::new(corners[0], corners[1], corners[2]);
        let mut n = (corners[1] - corners[0])
            .cross(&(corners[2] - corners[0]))
            .normalize();
        if n.y < 0.0 {
            n = -n;
        }
        let shape = &shapes()[case % 3];
        let pose = Isometry3::from_parts(
            Translation3::new(rng.range(-0.8, 1.8), rng.range(-0.1, 0.6), rng.range(-0.8, 1.8)),
            random_rotation(&mut rng),
        );
        let placed = PlacedShape::new(shape.as_ref(), &pose);
        let margin = 0.05;
        let answer = deepest_over_triangle(&triangle, &n, &placed, margin, 1e-8);
        // Brute force over the boundary's vertical lines.
        let depth = |p: &Point3<f64>| n.dot(&(corners[0] - p));
        let mut brute = f64::NEG_INFINITY;
        for k in 0..3 {
            let (from, to) = (corners[k], corners[(k + 1) % 3]);
            for s in 0..=4000 {
                let at = from + (to - from) * (s as f64 / 4000.0);
                let ray = Ray::new(Point3::new(at.x, -10.0, at.z), Vector3::y());
                if let Some(hit) = shape.ray_cast(&pose, &ray, f64::INFINITY, true) {
                    brute = brute.max(depth(&ray.point_at(hit.t)));
                }
            }
        }
        let lowest = shape.support(&pose, &-n).unwrap();
        let inside = (0..3).all(|k| {
            let (from, to, other) = (corners[k], corners[(k + 1) % 3], corners[(k + 2) % 3]);
            let e = to - from;
            let out = Vector3::new(e.z, 0.0, -e.x);
            (out.dot(&(other - from)) > 0.0) == (out.dot(&(lowest - from)) > 0.0)
        });
        if inside {
            continue; // The support over the column: not this routine's case.
        }
        match answer {
            Some(point) => {
                compared += 1;
                assert!(
                    point.depth >= brute - 1e-9,
                    "case {case}: {point:?} shallower than {brute}"
                );
                assert!(
                    point.depth <= brute + 2e-3,
                    "case {case}: {point:?} deeper than {brute}"
                );
                assert!((point.point_a - point.point_b - n * point.depth).norm() < 1e-12);
            }
            None => assert!(brute < -margin + 2e-3, "case {case}: missed {brute}"),
        }
    }
    assert!(compared > 100, "{compared}");
}
