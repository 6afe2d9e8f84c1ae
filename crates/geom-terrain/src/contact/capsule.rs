//! Capsule–heightfield contacts, in both orders.

use geom_core::{ContactManifolds, Real};
use geom_prims::Capsule;
use nalgebra::Isometry3;

use super::contact_surface_swept_sphere;
use crate::HeightField;

/// Contacts between a heightfield (`a`) at `field_pose` and a capsule
/// (`b`) at `capsule_pose`, appended to `out` (which the caller clears):
/// normals from the heightfield to the capsule, `depth > 0` overlapping,
/// contacts reported down to `depth = -margin`. See the
/// [module documentation](super) for the method. Non-finite input or a
/// negative `margin` larger than the radius appends nothing.
pub fn contact_heightfield_capsule<N: Real>(
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    capsule: &Capsule<N>,
    capsule_pose: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let world_a = capsule_pose * capsule.a;
    let world_b = capsule_pose * capsule.b;
    contact_surface_swept_sphere(field, field_pose, &world_a, &world_b, capsule.radius, margin, out);
}

/// [`contact_heightfield_capsule`] with the roles swapped: the capsule is
/// `a`, normals point from the capsule into the heightfield.
pub fn contact_capsule_heightfield<N: Real>(
    capsule: &Capsule<N>,
    capsule_pose: &Isometry3<N>,
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let first = out.len();
    contact_heightfield_capsule(field, field_pose, capsule, capsule_pose, margin, out);
    out.swap_roles_from(first);
}
