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

/// Found by `ray_cast` (`f64`), still open: a heightfield whose cells are
/// `f64::MAX` wide answers a NaN distance (its extent overflows). The
/// planned fix is to refuse a `cell_size` whose extent `(rows − 1)·dx`
/// overflows in `HeightField::try_from_desc`.
#[test]
#[ignore = "open: heightfields whose extent overflows are accepted"]
fn heightfield_with_overflowing_extent_has_no_nan_distance() {
    use geom_core::Shape;
    let field = geom_terrain::HeightField::<f64>::new(
        Point3::new(0.0, 0.0, -7.875),
        [2.125, f64::MAX],
        3,
        4,
        vec![0.0; 12],
    );
    for point in [Point3::origin(), Point3::new(1.0, -1.0, 1e300)] {
        if let Some(d) = field.distance(&Isometry3::identity(), &point) {
            assert!(!d.is_nan(), "{point:?}");
        }
    }
}
