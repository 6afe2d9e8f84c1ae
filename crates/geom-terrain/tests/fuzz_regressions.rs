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
    let origin = Point3::new(0.0, 0.0, -7.875);
    let wide = HeightField::try_new(origin, [2.125, f64::MAX], 3, 4, vec![0.0; 12]);
    assert_eq!(parameter(wide), "cell_size");
    let tall = HeightField::try_new(Point3::origin(), [1.0, 1.0], 2, 2, vec![0.0, 1e300, 0.0, 0.0]);
    assert_eq!(parameter(tall), "heights");
    let raised = HeightField::try_new(Point3::new(0.0, 2e153, 0.0), [1.0, 1.0], 2, 2, vec![2e153; 4]);
    assert_eq!(parameter(raised), "heights");
    let f32_wide = HeightField::<f32>::try_new(Point3::origin(), [1e20, 1e20], 5, 3, vec![0.0; 15]);
    assert!(f32_wide.is_err());
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
/// one helper that scales first.
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
                [6.375f32, 2.5745995e-23],
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
