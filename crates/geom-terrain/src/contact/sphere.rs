//! Sphere–heightfield contacts, in both orders.

use geom_core::{ContactManifolds, Real};
use geom_prims::Sphere;
use nalgebra::{Isometry3, Point3};

use super::contact_surface_swept_sphere;
use crate::HeightField;

/// Contacts between a heightfield (`a`) at `field_pose` and a sphere (`b`)
/// centred at `sphere_pose`'s translation, appended to `out` (which the
/// caller clears): normals from the heightfield to the sphere, `depth > 0`
/// overlapping, contacts down to `depth = -margin`. The sphere is the
/// capsule of a zero-length segment (see the [module documentation](super)).
pub fn contact_heightfield_sphere<N: Real>(
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    sphere: &Sphere<N>,
    sphere_pose: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let center = Point3::from(sphere_pose.translation.vector);
    contact_surface_swept_sphere(field, field_pose, &center, &center, sphere.radius, margin, out);
}

/// [`contact_heightfield_sphere`] with the roles swapped: the sphere is
/// `a`, normals point from the sphere into the heightfield.
pub fn contact_sphere_heightfield<N: Real>(
    sphere: &Sphere<N>,
    sphere_pose: &Isometry3<N>,
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let first = out.len();
    contact_heightfield_sphere(field, field_pose, sphere, sphere_pose, margin, out);
    out.swap_roles_from(first);
}
