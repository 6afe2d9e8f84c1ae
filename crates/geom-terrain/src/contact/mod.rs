//! Contacts between a heightfield and spheres or capsules.
//!
//! Both reduce to one routine, a swept-sphere segment (a sphere is a
//! zero-length segment) against the triangles in its box, after PhysX 4.1's
//! capsule–heightfield contact (seed 004) and Jolt's active edges:
//!
//! - per triangle, the closest points of segment and triangle
//!   ([`closest_points_segment_triangle`](geom_core::distance::closest_points_segment_triangle));
//!   a triangle farther than `radius + margin` gives nothing;
//! - apart (distance > 0): the normal is the face normal when the closest
//!   feature of the triangle is its face, an inactive edge or an inactive
//!   vertex (so flat internal edges never tilt a normal: no ghost
//!   collisions), otherwise the direction between the closest points; an
//!   active-edge direction that points into the neighbour's face region is
//!   left to the neighbour. The depth is `radius − distance`, except past an
//!   inactive edge or vertex where the face's plane continues as the
//!   terrain's surface (flat ground): there it is measured along the face
//!   normal to that surface point, so a capsule lying on flat ground has the
//!   same depth at both ends whichever triangle reports them (never more
//!   than the true depth: the foot is a surface point);
//! - a segment point below the surface (sunk deeper than the radius without
//!   crossing the triangle) is inside the solid: the normal turns to point
//!   out of it (the face normal, or the direction from that point to the
//!   triangle) and the depth is `radius + distance`;
//! - crossing (distance 0): a separating-axis test over the face normal and
//!   the segment × active-edge axes picks the shallowest way out;
//! - every triangle's candidate is then grouped by normal (within the
//!   heightfield's active-edge angle of the group's deepest) and each group
//!   reduced to at most four points: the deepest, the farthest from it, the
//!   one spanning the largest triangle, the one adding the most area.
//!
//! The routines append manifolds to a [`ContactManifolds`] (the caller
//! clears it), with normals from the first-named shape to the second and
//! world-space points. Once the buffer is warm they allocate nothing.
//!
//! ```
//! use geom_core::ContactManifolds;
//! use geom_prims::Capsule;
//! use geom_terrain::HeightField;
//! use geom_terrain::contact::contact_heightfield_capsule;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // Flat ground at y = 0 (8 × 8 cells, every internal edge flat) and a
//! // capsule lying along x, sunk 0.05: every point 0.05 deep, straight up.
//! let ground = HeightField::new(Point3::new(-4.0, 0.0, -4.0), [1.0, 1.0], 9, 9, vec![0.0f64; 81]);
//! let capsule = Capsule::from_points(Point3::new(-1.5, 0.0, 0.0), Point3::new(1.5, 0.0, 0.0), 0.25);
//! let mut out = ContactManifolds::new();
//! contact_heightfield_capsule(&ground, &Isometry3::identity(), &capsule, &Isometry3::translation(0.3, 0.2, 0.1), 0.0, &mut out);
//! assert!(out.points().count() >= 2);
//! for (normal, point) in out.points() {
//!     assert!((normal - Vector3::y()).norm() < 1e-12);
//!     assert!((point.depth - 0.05).abs() < 1e-12);
//! }
//! ```

mod capsule;
mod convex;
mod reach;
pub(crate) mod reduce;
pub(crate) mod segment;
mod sphere;

pub use capsule::{contact_capsule_heightfield, contact_heightfield_capsule};
pub(crate) use convex::{PlacedShape, beyond_triangle};
pub use convex::{
    closest_points_heightfield_convex, contact_heightfield_convex, contact_heightfield_convex_cached,
};
pub use sphere::{contact_heightfield_sphere, contact_sphere_heightfield};

use geom_core::dispatch::DispatchTable;
use geom_core::pose::PoseMatrix;
use geom_core::{ContactManifolds, Real, ShapeKind};
use nalgebra::{Isometry3, Point3};

use crate::HeightField;
use crate::surface::TriangleSurface;

/// Registers the heightfield's routines in `table` (each serves both
/// orders): contacts heightfield–sphere and heightfield–capsule, and the
/// heightfield against any other convex shape
/// ([`contact_heightfield_convex`]); closest points (and so distance and
/// intersection) against any convex shape
/// ([`closest_points_heightfield_convex`]). Their triangle queries go to a
/// copy of `table` as it is now: call this after the primitive pairs and
/// the convex fallback are registered.
pub fn register_pairs<N: Real>(table: &mut DispatchTable<N>) {
    let triangle_table = table.clone();
    let closest_table = table.clone();
    table.register_contact_with_any_convex(
        ShapeKind::HeightField,
        move |a, pose_a, b, pose_b, margin, out| {
            let field = (a as &dyn std::any::Any).downcast_ref::<HeightField<N>>().ok_or(
                geom_core::GeomError::Unsupported {
                    a: a.kind(),
                    b: b.kind(),
                },
            )?;
            contact_heightfield_convex(field, pose_a, b, pose_b, margin, &triangle_table, out)
        },
    );
    table.register_closest_points_with_any_convex(
        ShapeKind::HeightField,
        move |a, pose_a, b, pose_b, max_distance| {
            let field = (a as &dyn std::any::Any).downcast_ref::<HeightField<N>>().ok_or(
                geom_core::GeomError::Unsupported {
                    a: a.kind(),
                    b: b.kind(),
                },
            )?;
            closest_points_heightfield_convex(field, pose_a, b, pose_b, max_distance, &closest_table)
        },
    );
    table.register_contact(
        ShapeKind::HeightField,
        ShapeKind::Sphere,
        contact_heightfield_sphere::<N>,
    );
    table.register_contact(
        ShapeKind::HeightField,
        ShapeKind::Capsule,
        contact_heightfield_capsule::<N>,
    );
}

/// Contacts of a triangle surface (a heightfield or a mesh) at
/// `field_pose` with the swept sphere of `radius` around the world segment
/// `world_p0 world_p1`, appended to `out` with normals pointing from the
/// surface to the swept sphere.
pub(crate) fn contact_surface_swept_sphere<N: Real, S: TriangleSurface<N>>(
    field: &S,
    field_pose: &Isometry3<N>,
    world_p0: &Point3<N>,
    world_p1: &Point3<N>,
    radius: N,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let inputs_finite = world_p0.iter().chain(world_p1.iter()).all(|c| c.is_finite())
        && radius.is_finite()
        && margin.is_finite()
        && field_pose.translation.vector.iter().all(|c| c.is_finite())
        && field_pose.rotation.coords.iter().all(|c| c.is_finite());
    if !inputs_finite || radius + margin < N::zero() {
        return;
    }
    let matrix = PoseMatrix::new(field_pose);
    let p0 = matrix.point_to_local(world_p0);
    let p1 = matrix.point_to_local(world_p1);
    let mut candidates = std::mem::take(out.candidates_mut());
    candidates.clear();
    segment::collect_candidates(field, &p0, &p1, radius, margin, S::LOOKS_AROUND, &mut candidates);
    if candidates.is_empty() {
        segment::push_sunk_ends(field, &p0, &p1, radius, &mut candidates);
    }
    reduce::reduce_to_world(&mut candidates, field.active_edge_angle(), &matrix, out);
    candidates.clear();
    *out.candidates_mut() = candidates;
}

#[cfg(test)]
mod convex_tests;
#[cfg(test)]
mod tests;
