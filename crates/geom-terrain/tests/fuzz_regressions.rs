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
