//! Heightfield against any convex shape: the shape's contacts with each
//! triangle in its box, made free of ghost collisions by the active edges,
//! then grouped and reduced like the sphere and capsule contacts.
//!
//! The triangle contacts come from a [`DispatchTable`] (the analytic
//! box–triangle routine, GJK/EPA for the other shapes). A triangle has no
//! thickness, so such a contact may push the shape sideways off an edge or
//! down through the face; the heightfield is a surface with solid below, so
//! each triangle contact is rewritten along the face normal unless it lies
//! on an active (convex, bent) edge or vertex and points out of the
//! ground (Jolt's active edges; PhysX's heightfield contact, seed 004):
//!
//! - depth along the face normal: `n · (a − p_b)` for each reported point
//!   `p_b` on the shape, its foot on the plane as the terrain point;
//! - plus the shape's deepest point along `−n` (its support point) when it
//!   is deeper still and its foot lies on the triangle, so a shape sunk
//!   through a face is pushed out by the full depth.

use geom_core::dispatch::DispatchTable;
use geom_core::distance::closest_point_on_triangle;
use geom_core::pose::PoseMatrix;
use geom_core::{ContactCandidate, ContactManifolds, ContactPoint, FeatureId, GeomError, Real, Shape};
use geom_prims::Triangle;
use nalgebra::{Isometry3, Point3, Vector3};

use super::reduce;
use super::segment::{Region, region_of};
use crate::{HeightField, TriangleId};

/// Contacts between a heightfield (`a`) at `field_pose` and a convex
/// `shape` (`b`) at `shape_pose`, appended to `out`: normals from the
/// heightfield to the shape, points down to `depth = -margin`, at most
/// four points per manifold, one manifold per distinct normal.
/// `triangle_table` answers triangle–shape contacts (the default
/// dispatcher does); its errors are passed on (nothing appended then).
pub fn contact_heightfield_convex<N: Real>(
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    margin: N,
    triangle_table: &DispatchTable<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    if !shape.is_convex() {
        return Err(GeomError::Unsupported {
            a: geom_core::ShapeKind::HeightField,
            b: shape.kind(),
        });
    }
    let local_pose = field_pose.inv_mul(shape_pose);
    let search = shape.aabb(&local_pose).loosened(margin);
    let identity = Isometry3::identity();
    let first_manifold = out.len();
    let mut candidates = std::mem::take(out.candidates_mut());
    candidates.clear();
    let mut answer = Ok(());
    for (id, triangle) in field.triangles_in_aabb(&search) {
        let first = out.len();
        answer = triangle_table.append_contacts(&triangle, &identity, shape, &local_pose, margin, out);
        if answer.is_err() {
            break;
        }
        let face_normal = crate::heightfield::face_normal(&triangle);
        // The deepest rewritten contact of this triangle, if any.
        let mut rewritten_depth: Option<N> = None;
        for manifold in &out.as_slice()[first..] {
            for point in &manifold.points {
                let rewritten = push_terrain_candidate(
                    field,
                    id,
                    &triangle,
                    &face_normal,
                    margin,
                    &manifold.normal,
                    point,
                    &mut candidates,
                );
                if let Some(depth) = rewritten {
                    rewritten_depth = Some(rewritten_depth.map_or(depth, |d: N| d.max(depth)));
                }
            }
        }
        if let Some(depth) = rewritten_depth {
            push_deepest_point(
                id,
                &triangle,
                &face_normal,
                shape,
                &local_pose,
                margin,
                depth,
                &mut candidates,
            );
        }
        out.truncate(first);
    }
    if answer.is_ok() {
        let group_angle = field.active_edge_angle.max(nalgebra::convert(1e-3));
        reduce::group_and_reduce(&mut candidates, group_angle.cos(), out);
        let matrix = PoseMatrix::new(field_pose);
        for manifold in &mut out.as_mut_slice()[first_manifold..] {
            manifold.normal = matrix.vector_to_world(&manifold.normal);
            for point in &mut manifold.points {
                point.point_a = matrix.point_to_world(&point.point_a);
                point.point_b = matrix.point_to_world(&point.point_b);
            }
        }
    } else {
        out.truncate(first_manifold);
    }
    candidates.clear();
    *out.candidates_mut() = candidates;
    answer
}

/// The terrain contact with `on_shape` along the face normal: the depth of
/// `on_shape` below the face's plane and its foot on the plane.
fn along_face<N: Real>(
    triangle: &Triangle<N>,
    face_normal: &Vector3<N>,
    on_shape: Point3<N>,
    feature_a: FeatureId,
    feature_b: FeatureId,
) -> ContactCandidate<N> {
    let depth = face_normal.dot(&(triangle.a - on_shape));
    ContactCandidate {
        normal: *face_normal,
        point: ContactPoint {
            point_a: on_shape + face_normal * depth,
            point_b: on_shape,
            depth,
            feature_a,
            feature_b,
        },
    }
}

/// One triangle contact turned into a terrain candidate: kept as reported
/// on an active edge or vertex when it points out of the ground, else
/// rewritten along the face normal (see the module documentation). Returns
/// the rewritten depth when it rewrote.
#[allow(clippy::too_many_arguments)]
fn push_terrain_candidate<N: Real>(
    field: &HeightField<N>,
    id: TriangleId,
    triangle: &Triangle<N>,
    face_normal: &Vector3<N>,
    margin: N,
    normal: &Vector3<N>,
    point: &ContactPoint<N>,
    candidates: &mut Vec<ContactCandidate<N>>,
) -> Option<N> {
    let (_, weights) = closest_point_on_triangle(&point.point_a, &triangle.a, &triangle.b, &triangle.c);
    let region = region_of(&weights, N::default_epsilon().sqrt());
    let (i, j) = field.cell_coords(id.cell());
    let (active, feature) = match region {
        Region::Face => (false, FeatureId::Face(id.0)),
        Region::Edge(k) => (field.is_edge_active(id, k), FeatureId::Edge(3 * id.0 + k as u32)),
        Region::Vertex(k) => {
            let (si, sj) = field.triangle_samples(i, j, id.half())[k];
            (
                field.is_vertex_active(si, sj),
                FeatureId::Vertex((si * field.cols() + sj) as u32),
            )
        }
    };
    if active && normal.dot(face_normal) >= N::zero() {
        candidates.push(ContactCandidate {
            normal: *normal,
            point: ContactPoint {
                feature_a: feature,
                ..*point
            },
        });
        return None;
    }
    let rewritten = along_face(triangle, face_normal, point.point_b, feature, point.feature_b);
    if rewritten.point.depth >= -margin {
        candidates.push(rewritten);
    }
    Some(rewritten.point.depth)
}

/// Adds the shape's deepest point along the face normal of `triangle` when
/// it is deeper than `rewritten_depth` (by more than rounding) and its foot
/// lies on the triangle: a shape sunk through the face is pushed out by its
/// full depth, not by where the triangle routine happened to meet it.
#[allow(clippy::too_many_arguments)]
fn push_deepest_point<N: Real>(
    id: TriangleId,
    triangle: &Triangle<N>,
    face_normal: &Vector3<N>,
    shape: &dyn Shape<N>,
    local_pose: &Isometry3<N>,
    margin: N,
    rewritten_depth: N,
    candidates: &mut Vec<ContactCandidate<N>>,
) {
    let Some(deepest) = shape.support(local_pose, &-face_normal) else {
        return;
    };
    let candidate = along_face(
        triangle,
        face_normal,
        deepest,
        FeatureId::Face(id.0),
        FeatureId::Unknown,
    );
    let tolerance = N::default_epsilon().sqrt();
    let (foot, _) =
        closest_point_on_triangle(&candidate.point.point_a, &triangle.a, &triangle.b, &triangle.c);
    let over_triangle =
        (foot - candidate.point.point_a).norm() <= tolerance * (N::one() + deepest.coords.amax());
    let deeper = candidate.point.depth > rewritten_depth + tolerance * (N::one() + rewritten_depth.abs());
    if over_triangle && deeper && candidate.point.depth >= -margin {
        candidates.push(candidate);
    }
}
