//! Inputs the fuzz targets (`fuzz/`, see docs/reliability.md) found to
//! break a sweep or a slide, each fixed at its root and kept here.

use geom_core::dispatch::DispatchTable;
use geom_prims::{HalfSpace, Segment};
use geom_terrain::sweep_shape;
use nalgebra::{Isometry3, Point3, Vector3};

fn table() -> DispatchTable<f32> {
    let mut table = DispatchTable::new();
    geom_prims::contact::register_pairs(&mut table);
    geom_prims::gjk::install_convex_fallback(&mut table);
    geom_terrain::contact::register_pairs(&mut table);
    table
}

/// Found by `sweep` (`f32`): a half-space 3e-21 from a point segment,
/// swept by nothing, reported a normal of length 0.9966 (the gap between
/// the closest points was normalised by a length whose square underflowed).
#[test]
fn half_space_a_hair_from_a_point_segment_sweeps_with_a_unit_normal() {
    let plane = HalfSpace::new(Vector3::new(7.0f32, 6.5, 7.375), -3.0205936e-21);
    let point = Segment::new(Point3::origin(), Point3::origin());
    let pose = Isometry3::identity();
    let hit = sweep_shape(&plane, &pose, &Vector3::zeros(), &point, &pose, &table()).unwrap();
    if let Some(hit) = hit {
        assert!((hit.normal.norm() - 1.0).abs() < 1e-6, "{hit:?}");
        assert_eq!(hit.toi, 0.0);
    }
}

/// Found by `ray_cast`, `contact` and `sweep` (most of their saved inputs):
/// heightfields with cells or heights of 1e18–1e308 answered NaN
/// distances and zero normals (squared edges and distances overflow). Such
/// terrains are now refused, naming the parameter; the limit is
/// `max_coordinate` (√max/4) and a terrain just inside it still answers.
#[test]
fn heightfield_beyond_the_square_root_limit_is_refused_by_name() {
    use geom_core::GeomError;
    use geom_terrain::{HeightField, max_coordinate};
    let parameter = |result: Result<HeightField<f64>, GeomError>| match result {
        Err(GeomError::InvalidParameter { parameter, .. }) => parameter,
        other => panic!("accepted: {other:?}"),
    };
    let parameter_f32 = |result: Result<HeightField<f32>, GeomError>| match result {
        Err(GeomError::InvalidParameter { parameter, .. }) => parameter,
        other => panic!("accepted: {other:?}"),
    };
    let origin = Point3::new(0.0, 0.0, -7.875);
    let wide = HeightField::try_new(origin, [2.125, f64::MAX], 3, 4, vec![0.0; 12]);
    assert_eq!(parameter(wide), "cell_size");
    let tall = HeightField::try_new(Point3::origin(), [1.0, 1.0], 2, 2, vec![0.0, 1e300, 0.0, 0.0]);
    assert_eq!(parameter(tall), "heights");
    let raised = HeightField::try_new(Point3::new(0.0, 2e153, 0.0), [1.0, 1.0], 2, 2, vec![2e153; 4]);
    assert_eq!(parameter(raised), "heights");
    let f32_wide = HeightField::<f32>::try_new(Point3::origin(), [1e20, 1e20], 5, 3, vec![0.0; 15]);
    assert!(f32_wide.is_err());
    let f32_narrow =
        HeightField::<f32>::try_new(Point3::origin(), [6.375, 2.5745995e-23], 5, 5, vec![0.0; 25]);
    assert_eq!(parameter_f32(f32_narrow), "cell_size");
    // (rows − 1)·dx exactly at the limit is accepted.
    let limit = max_coordinate::<f64>();
    assert!(limit > 3.3e153 && limit < 3.4e153);
    assert!(HeightField::try_new(Point3::origin(), [limit / 2.0, 1.0], 3, 2, vec![0.0; 6]).is_ok());
    assert!(HeightField::try_new(Point3::origin(), [limit / 1.5, 1.0], 3, 2, vec![0.0; 6]).is_err());
}

/// Found by `contact` (`f32`): a flat heightfield of 1e12 × 1e12 cells (a
/// cross product of 1e24, whose square overflows `f32`) and one of
/// 6.4 × 2.6e-23 cells (a square that underflows) gave zero or 1.006-long
/// contact normals: the face normal was `n / |n|` unscaled. Now through
/// one helper that scales first; cells below `1 / max_coordinate` (the
/// 2.6e-23 one) are refused since, and the narrowest accepted ones work.
#[test]
fn heightfields_with_huge_or_tiny_cells_give_unit_contact_normals() {
    use geom_core::ContactManifolds;
    use geom_prims::Sphere;
    use geom_terrain::HeightField;
    let table = table();
    let identity = Isometry3::identity();
    let cases = [
        (
            HeightField::new(Point3::origin(), [1e12f32, 1e12], 4, 3, vec![0.0; 12]),
            Point3::new(1.5e12, 0.5, 1.2e12),
            2.0,
        ),
        (
            HeightField::new(
                Point3::new(0.0, 0.5, 0.0),
                [6.375f32, 2.5e-19],
                5,
                5,
                vec![0.0; 25],
            ),
            Point3::new(7.0, 2.0, 0.0),
            2.375,
        ),
    ];
    for (field, centre, radius) in cases {
        let sphere = Sphere::new(radius);
        let mut out = ContactManifolds::new();
        table
            .contact(
                &field,
                &identity,
                &sphere,
                &Isometry3::translation(centre.x, centre.y, centre.z),
                0.0,
                &mut out,
            )
            .unwrap();
        assert!(out.points().count() > 0, "{field:?}");
        for (normal, point) in out.points() {
            assert!((normal.norm() - 1.0).abs() < 1e-6, "{normal:?} {point:?}");
            assert!(normal.y > 0.0, "{normal:?} {point:?}");
        }
        // The deepest contact is the face's: the ground is flat, so its
        // normal is +y (from the terrain to the sphere) and its depth is
        // the sphere's reach below the surface, whatever the cell size.
        let (normal, deepest) = out
            .points()
            .max_by(|a, b| a.1.depth.total_cmp(&b.1.depth))
            .unwrap();
        assert!((normal - Vector3::y()).norm() < 1e-6, "{normal:?}");
        let expected = radius - (centre.y - geom_core::Shape::aabb(&field, &identity).maxs.y);
        assert!(
            (deepest.depth - expected).abs() <= 1e-6 * (1.0 + expected),
            "{deepest:?}"
        );
    }
}

/// Found by `ray_cast`: a solid cast from below an ordinary heightfield
/// with `dir` 1e38 (`f32`) or 1e300 (`f64`) answered a zero normal
/// (`|dir|²` overflowed), and the distance of a point 1e38 above it was NaN
/// (the point–triangle plane height overflowed). Fixed in the
/// heightfield's solid rule and in `closest_point_on_triangle`.
#[test]
fn heightfield_queries_with_values_near_the_float_limit_stay_finite() {
    use geom_core::{Ray, Shape};
    use geom_terrain::HeightField;
    let field = HeightField::<f32>::new(Point3::new(0.0, 0.375, 0.0), [0.5, 0.5], 4, 5, vec![0.0; 20]);
    let identity = Isometry3::identity();
    let hit = field
        .ray_cast(
            &identity,
            &Ray::new(Point3::new(0.5, 0.0, 0.5), Vector3::new(0.0, 0.0, 1e38)),
            f32::INFINITY,
            true,
        )
        .unwrap();
    assert_eq!((hit.t, hit.normal), (0.0, -Vector3::z()));
    assert_eq!(
        field.distance(&identity, &Point3::new(0.0, 1e38, 0.0)),
        Some(1e38)
    );
    let wide = HeightField::<f64>::new(Point3::origin(), [13.625, 0.5], 4, 5, vec![4.625; 20]);
    let hit = wide
        .ray_cast(
            &Isometry3::identity(),
            &Ray::new(Point3::new(1.0, 0.0, 1.0), Vector3::new(0.0, 1e300, -9.625)),
            f64::INFINITY,
            true,
        )
        .unwrap();
    assert_eq!(hit.t, 0.0);
    assert!((hit.normal + Vector3::y()).norm() < 1e-15, "{hit:?}");
}

/// Found by `contact` (`f32`, third round): a sphere-shaped ellipsoid
/// resting on a heightfield with holes got a zero contact normal at a
/// vertex: GJK's witness points rounded to one point while its distance was
/// 2.8e-8, and the normal was their difference. GJK's own direction is
/// used then.
#[test]
fn ellipsoid_touching_a_heightfield_vertex_gets_a_unit_normal() {
    use geom_core::ContactManifolds;
    use geom_prims::Ellipsoid;
    use geom_terrain::{HeightField, HeightFieldDesc};
    use nalgebra::{Quaternion, Translation3, UnitQuaternion};
    let mut desc = HeightFieldDesc::new(Point3::new(0.0f32, 0.0, 0.5), [0.5, 0.5], 5, 5, vec![0.5; 25]);
    desc.flipped_cells = (0..16).filter(|i| (135u32 >> i) & 1 == 1).collect();
    desc.hole_cells = (0..16).filter(|i| (211u32 >> i) & 1 == 1).collect();
    let field = HeightField::try_from_desc(desc).unwrap();
    let ellipsoid = Ellipsoid::new(Vector3::new(0.5f32, 0.5, 0.5));
    let rotation =
        UnitQuaternion::new_unchecked(Quaternion::new(0.9247498, 0.1729548, 0.29156658, 0.1729548));
    let pose = Isometry3::from_parts(Translation3::new(0.5, 0.5, 0.5), rotation);
    let mut out = ContactManifolds::new();
    table()
        .contact(
            &field,
            &Isometry3::translation(1e-12, 0.0, 0.0),
            &ellipsoid,
            &pose,
            0.5,
            &mut out,
        )
        .unwrap();
    assert!(out.points().count() > 0);
    for (normal, point) in out.points() {
        assert!((normal.norm() - 1.0).abs() < 1e-6, "{normal:?} {point:?}");
    }
}

/// Found by `ray_cast` (third round, 5 saved inputs): a solid cast at a
/// posed heightfield from outside its x–z extent, below the surface
/// height, hit at `t > 0` with the "origin inside" normal, off the surface
/// by up to 13.5. The posed cast restarts a far ray next to the terrain's
/// box, and the terrain's solid (everything below the surface) reaches
/// outside that box: the restart point was inside. The solid rule now looks
/// at the true origin only. Checked against the same cast in the local
/// frame, which is never restarted.
#[test]
fn posed_heightfield_solid_casts_apply_the_solid_rule_at_the_true_origin() {
    use geom_core::{Ray, Shape};
    use geom_terrain::HeightField;
    let field = HeightField::<f64>::new(
        Point3::new(0.375, 0.375, 0.375),
        [0.375, 0.375],
        3,
        3,
        vec![0.125, -16.0, 0.0, 0.375, 0.375, 0.375, 0.375, 0.375, 0.375],
    );
    let pose = Isometry3::from_parts(
        nalgebra::Translation3::new(-1.0, 0.375, 4.25),
        nalgebra::UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.0),
    );
    // The found ray, then rays from beside and below the terrain (outside
    // its x–z extent) up through its surface from underneath.
    let mut rays = vec![Ray::new(Point3::origin(), Vector3::new(0.0, 0.0, 0.375))];
    for k in 0..200 {
        // Far below, a hair outside the z extent, climbing steeply into it:
        // the ray is under the surface long before it nears the box.
        let x = 0.4 + 0.7 * (k as f64 / 200.0);
        let origin = Point3::new(x, -200.0 - k as f64, 0.375 - 1e-6);
        let dir = Vector3::new(0.0, 1.0, 1e-5);
        rays.push(Ray::new(pose * origin, pose * dir));
    }
    let mut surface_hits = 0;
    for ray in rays {
        let Some(hit) = field.ray_cast(&pose, &ray, f64::INFINITY, true) else {
            continue;
        };
        let local_origin = pose.inverse_transform_point(&ray.origin);
        if hit.t == 0.0 {
            // Only an origin on or below the surface hits at once.
            assert!(
                field.distance_local(&local_origin).unwrap() <= 1e-12,
                "{ray:?}: {hit:?}"
            );
        } else {
            // Anything later is on the surface.
            let point = ray.origin + ray.dir * hit.t;
            let off = field.distance(&pose, &point).unwrap();
            assert!(off.abs() <= 1e-9, "{ray:?}: {hit:?} off the surface by {off}");
            surface_hits += 1;
        }
    }
    assert!(surface_hits > 10, "{surface_hits}");
}

/// Found by `sweep` (third round, 4 saved inputs): a heightfield touching a
/// box, a cone or a half-space at the start of a tiny motion (1e-22 in
/// `f32`, 1e-161 in `f64`) reported a normal of length 1.006 or 1.0001:
/// without a contact to take it from, the normal is `−motion/|motion|`, and
/// `|motion|²` underflowed. Scaled first now.
#[test]
fn tiny_motion_into_contact_gives_a_unit_normal() {
    use geom_prims::HalfSpace;
    use geom_terrain::{HeightField, sweep_shape};
    let field = HeightField::<f64>::new(Point3::new(0.0, 7.0, 7.0), [7.0, 7.0], 4, 3, vec![0.0; 12]);
    let plane = HalfSpace::<f64>::new(Vector3::new(7.0, 15.0, -0.125), -15.0);
    let mut table = DispatchTable::<f64>::new();
    geom_prims::contact::register_pairs(&mut table);
    geom_prims::gjk::install_convex_fallback(&mut table);
    geom_terrain::contact::register_pairs(&mut table);
    let identity = Isometry3::identity();
    for motion in [
        Vector3::new(0.0, 3.22517936200119e-161, 0.0),
        Vector3::new(-1e-30, 0.0, 0.0),
    ] {
        if let Some(hit) = sweep_shape(&field, &identity, &motion, &plane, &identity, &table).unwrap() {
            assert!((hit.normal.norm() - 1.0).abs() < 1e-12, "{hit:?}");
        }
    }
}

/// Found by `contact` (third round, 5 saved inputs, `f64`): a heightfield
/// posed at 3.4e38 against a sphere of radius 3.4e38 (or a capsule), with a
/// margin of 3.4e38, answered "within the margin" with closest points
/// 6.9e38 apart: near the float limit the heightfield contact's depth and
/// points were rounded apart. The table now reports such an answer as
/// beyond reach instead of breaking the margin.
#[test]
fn contact_derived_closest_points_never_break_the_margin() {
    use geom_core::ClosestPoints;
    use geom_prims::Sphere;
    use geom_terrain::HeightField;
    use nalgebra::{Quaternion, Translation3, UnitQuaternion};
    let mut table = DispatchTable::<f64>::new();
    geom_prims::contact::register_pairs(&mut table);
    geom_prims::gjk::install_convex_fallback(&mut table);
    geom_terrain::contact::register_pairs(&mut table);
    let field = HeightField::new(Point3::new(0.0, 0.0, 0.25), [10.375, 4.125], 5, 5, vec![0.0; 25]);
    let field_pose = Isometry3::from_parts(
        Translation3::new(3.4028235e38, 3.4028235e38, 1e-15),
        UnitQuaternion::new_unchecked(Quaternion::new(
            -0.5541895264924167,
            -0.0,
            0.0,
            0.8323905145579873,
        )),
    );
    let sphere = Sphere::new(3.4028235e38);
    let sphere_pose = Isometry3::from_parts(
        Translation3::new(10000.0, 10000.0, 0.5),
        UnitQuaternion::new_unchecked(Quaternion::new(0.9824733131012553, 0.0, 0.18640329676226988, 0.0)),
    );
    let margin = 3.4028235e38;
    let answer = table
        .closest_points(&field, &field_pose, &sphere, &sphere_pose, margin)
        .unwrap();
    if let ClosestPoints::WithinMargin { point_a, point_b } = answer {
        let gap = (point_b - point_a).norm();
        assert!(gap <= margin * (1.0 + 1e-12), "{gap:e} > {margin:e}");
    }
}
