//! Closest points between two triangle surfaces: a mesh against a mesh
//! or against a heightfield.
//!
//! One surface is walked: each of its triangles near the other surface
//! asks the other's own convex routine (the table's) for its closest
//! points, and the nearest pair wins; a triangle meeting the other
//! surface, or sunk in a closed mesh or under the ground, makes the pair
//! `Intersecting`. Against a heightfield the mesh is walked; of two meshes
//! the one with fewer triangles (the second one on a tie). A closed mesh
//! wholly inside another meets none of its triangles: one vertex located
//! inside the other closed mesh answers that case.
//!
//! Contacts between two triangle surfaces are not computed: a lone
//! triangle of one surface has no solid side, so the depth a triangle
//! routine measures against the other surface (a thin triangle pushed
//! out of a thin triangle) is not the overlap of the two bodies. The
//! table refuses those pairs (`GeomError::Unsupported`); a moving body
//! collides as a convex hull or a compound of hulls.

use geom_core::dispatch::DispatchTable;
use geom_core::{ClosestPoints, GeomError, Real, Shape, ShapeKind};
use nalgebra::{Isometry3, Point3};

use crate::surface::{Location, TriangleSurface};
use crate::{HeightField, TriMesh};

/// The closest points of two meshes within `max_distance`:
/// `Intersecting` when a triangle of one meets the other or one closed
/// mesh holds the other, else the nearest pair of points over the walked
/// mesh's triangles near the other one.
pub fn closest_points_trimesh_trimesh<N: Real>(
    a: &TriMesh<N>,
    pose_a: &Isometry3<N>,
    b: &TriMesh<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
    triangle_table: &DispatchTable<N>,
) -> Result<ClosestPoints<N>, GeomError> {
    let walk_a = a.triangle_count() < b.triangle_count();
    let (solid, solid_pose, walked, walked_pose) = if walk_a {
        (b, pose_b, a, pose_a)
    } else {
        (a, pose_a, b, pose_b)
    };
    // A solid inside the walked mesh meets none of its triangles (one
    // inside the solid meets it through the solid's own routine).
    if solid_holds(solid, solid_pose, walked, walked_pose) {
        return Ok(ClosestPoints::Intersecting);
    }
    let answer = nearest_over_walk(
        solid,
        solid_pose,
        walked,
        walked_pose,
        max_distance,
        triangle_table,
    )?;
    Ok(match answer {
        ClosestPoints::WithinMargin { point_a, point_b } if walk_a => ClosestPoints::WithinMargin {
            point_a: point_b,
            point_b: point_a,
        },
        other => other,
    })
}

/// The closest points of a heightfield (`a`) and a mesh (`b`) within
/// `max_distance`: the mesh's triangles near the ground against the
/// heightfield's convex routine.
pub fn closest_points_heightfield_trimesh<N: Real>(
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    max_distance: N,
    triangle_table: &DispatchTable<N>,
) -> Result<ClosestPoints<N>, GeomError> {
    nearest_over_walk(field, field_pose, mesh, mesh_pose, max_distance, triangle_table)
}

/// Whether the closed mesh `outer` holds `inner`, judged by `inner`'s
/// first vertex: right when no triangle of one crosses the other (the
/// callers ask when walking found nothing, or answer `Intersecting`
/// either way).
fn solid_holds<N: Real>(
    inner: &TriMesh<N>,
    inner_pose: &Isometry3<N>,
    outer: &TriMesh<N>,
    outer_pose: &Isometry3<N>,
) -> bool {
    if !outer.is_closed() {
        return false;
    }
    let Some(vertex) = inner.vertices().first() else {
        return false;
    };
    let local: Point3<N> = outer_pose.inverse_transform_point(&(inner_pose * vertex));
    let unlimited = nalgebra::convert::<f64, N>(f64::INFINITY);
    matches!(outer.locate(&local, 0, unlimited), Location::Inside(_))
}

/// The nearest points of `solid` and the triangles of `walked` near it,
/// within `max_distance`.
fn nearest_over_walk<N: Real, S: TriangleSurface<N>>(
    solid: &dyn Shape<N>,
    solid_pose: &Isometry3<N>,
    walked: &S,
    walked_pose: &Isometry3<N>,
    max_distance: N,
    triangle_table: &DispatchTable<N>,
) -> Result<ClosestPoints<N>, GeomError> {
    let search = solid
        .aabb(&walked_pose.inv_mul(solid_pose))
        .loosened(max_distance);
    let mut best: Option<(N, Point3<N>, Point3<N>)> = None;
    let mut answer: Result<bool, GeomError> = Ok(false);
    walked.visit_triangles(&search, |_, triangle, _| {
        if !matches!(answer, Ok(false)) {
            return;
        }
        let limit = best.map_or(max_distance, |(d, _, _)| d.min(max_distance));
        answer = match triangle_table.closest_points(solid, solid_pose, triangle, walked_pose, limit) {
            Ok(ClosestPoints::Intersecting) => Ok(true),
            Ok(ClosestPoints::WithinMargin { point_a, point_b }) => {
                let distance = geom_core::ray::length_without_overflow(&(point_b - point_a));
                if best.is_none_or(|(d, _, _)| distance < d) {
                    best = Some((distance, point_a, point_b));
                }
                Ok(false)
            }
            Ok(ClosestPoints::Disjoint) => Ok(false),
            Err(e) => Err(e),
        };
    });
    Ok(if answer? {
        ClosestPoints::Intersecting
    } else {
        match best {
            Some((_, point_a, point_b)) => ClosestPoints::WithinMargin { point_a, point_b },
            None => ClosestPoints::Disjoint,
        }
    })
}

/// Registers mesh–mesh and heightfield–mesh closest points in `table`
/// (each serves both orders). Their triangle queries go to a copy of
/// `table` as it is now: call this after the heightfield's and the mesh's
/// convex routines are registered.
pub fn register_pairs<N: Real>(table: &mut DispatchTable<N>) {
    fn downcast<'a, T: 'static, N: Real>(
        shape: &'a dyn Shape<N>,
        other: &dyn Shape<N>,
    ) -> Result<&'a T, GeomError> {
        (shape as &dyn std::any::Any)
            .downcast_ref::<T>()
            .ok_or(GeomError::Unsupported {
                a: shape.kind(),
                b: other.kind(),
            })
    }
    let triangles = table.clone();
    table.register_closest_points_dyn(ShapeKind::TriMesh, ShapeKind::TriMesh, {
        let triangles = triangles.clone();
        move |a, pose_a, b, pose_b, max_distance| {
            let (a, b) = (downcast(a, b)?, downcast(b, a)?);
            closest_points_trimesh_trimesh(a, pose_a, b, pose_b, max_distance, &triangles)
        }
    });
    table.register_closest_points_dyn(
        ShapeKind::HeightField,
        ShapeKind::TriMesh,
        move |a, pose_a, b, pose_b, max_distance| {
            let (a, b) = (downcast(a, b)?, downcast(b, a)?);
            closest_points_heightfield_trimesh(a, pose_a, b, pose_b, max_distance, &triangles)
        },
    );
}
