//! Swept ellipsoid against a triangle, in ellipsoid space.

use geom_core::Real;
use geom_core::pose::rotation_matrix;
use nalgebra::{Matrix3, Point3, UnitQuaternion, Vector3};

use super::sphere_triangle::sweep_sphere_triangle_relative;
use super::{SweepHit, all_finite, unit};
use crate::Triangle;

/// The ellipsoid with semi-axes `radii` along the axes of `rotation`,
/// centred at `center` and moved by `motion`, against `triangle`: the first
/// contact with `toi ∈ [0, 1]`, or `None`.
///
/// Fauerby's ellipsoid space (Fauerby 2003, §3), for any orientation: the
/// affine map `x ↦ S⁻¹ Rᵀ (x − center)` (`S = diag(radii)`) turns the
/// ellipsoid into the unit sphere at the origin and the triangle into
/// another triangle; affine maps keep the fraction of the motion, so the
/// unit sphere's [`sweep_sphere_triangle`](super::sweep_sphere_triangle)
/// answers `toi` directly. The contact point maps back by `R S`, the normal
/// by the inverse transpose of that map, `R S⁻¹`, then is normalised.
///
/// A flat ellipsoid (a zero radius) has no ellipsoid space: `None`.
pub fn sweep_ellipsoid_triangle<N: Real>(
    center: &Point3<N>,
    radii: &Vector3<N>,
    rotation: &UnitQuaternion<N>,
    motion: &Vector3<N>,
    triangle: &Triangle<N>,
) -> Option<SweepHit<N>> {
    if !all_finite(&[center, &triangle.a, &triangle.b, &triangle.c], &[radii, motion])
        || !rotation.coords.iter().all(|c| c.is_finite())
        || !radii.iter().all(|&r| r > N::zero())
    {
        return None;
    }
    let rotation = rotation_matrix(rotation);
    let inverse_radii = radii.map(|r| N::one() / r);
    // World vector → ellipsoid space: S⁻¹ Rᵀ v (translation subtracted first).
    let to_unit = |v: &Vector3<N>| rotation.tr_mul(v).component_mul(&inverse_radii);
    let to_unit_point = |p: &Point3<N>| Point3::from(to_unit(&(p - center)));
    let hit = sweep_sphere_triangle_relative(
        &to_unit_point(&triangle.a),
        &to_unit_point(&triangle.b),
        &to_unit_point(&triangle.c),
        N::one(),
        &to_unit(motion),
    )?;
    let point = center + rotation * hit.point.coords.component_mul(radii);
    let normal = unit(&(rotation * hit.normal.component_mul(&inverse_radii)))?;
    let world = SweepHit {
        toi: hit.toi,
        point,
        normal,
    };
    world.is_finite().then_some(world)
}

/// `R S Rᵀ` applied to `normal` has length `h(n)`, the ellipsoid's support
/// extent along the unit `normal` (the distance from the centre to the
/// tangent plane with that normal).
pub(crate) fn ellipsoid_extent<N: Real>(radii: &Vector3<N>, rotation: &Matrix3<N>, normal: &Vector3<N>) -> N {
    rotation.tr_mul(normal).component_mul(radii).norm()
}
