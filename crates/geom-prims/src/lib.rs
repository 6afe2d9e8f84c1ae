//! The primitive shapes of geom, each with exact ray casts and closest
//! points written once over [`SimdRealField`](nalgebra::SimdRealField) and
//! instantiated for `f32`, `f64`, `WideF32x4`, `WideF32x8` and `WideF64x4`.
//!
//! Each shape is one module holding its data, validating constructors
//! (`try_new` returns a [`GeomError`](geom_core::GeomError) naming the bad
//! value, `new` panics with the same message) and its kernels.
#![deny(missing_docs)]

pub mod basis;
pub mod capsule;
pub mod cone;
pub mod contact;
pub mod cuboid;
pub mod cylinder;
pub mod ellipsoid;
pub mod gjk;
pub mod half_space;
pub mod segment;
pub mod sphere;
pub mod sweep;
pub mod triangle;

pub use basis::{orthonormal_basis, orthonormal_basis_smaller_component};
pub use capsule::Capsule;
pub use cone::Cone;
pub use cuboid::Cuboid;
pub use cylinder::Cylinder;
pub use ellipsoid::Ellipsoid;
pub use half_space::HalfSpace;
pub use segment::Segment;
pub use sphere::Sphere;
pub use triangle::Triangle;

#[cfg(test)]
pub(crate) mod test_support;

/// `|dir|` for a support query, or `None` when the direction is zero or not
/// finite (no farthest point is defined then).
pub(crate) fn support_direction_length<N: geom_core::Real>(dir: &nalgebra::Vector3<N>) -> Option<N> {
    let length = dir.norm();
    (length > N::zero() && length.is_finite()).then_some(length)
}

/// Checks that a constructor parameter is finite and not negative.
pub(crate) fn check_non_negative<N: geom_core::Real>(
    shape: &'static str,
    parameter: &'static str,
    value: N,
) -> Result<N, geom_core::GeomError> {
    if value.is_finite() && value >= N::zero() {
        Ok(value)
    } else {
        Err(geom_core::GeomError::invalid(
            shape,
            parameter,
            value,
            "must be finite and >= 0",
        ))
    }
}

/// Checks that every coordinate of a point or vector is finite.
pub(crate) fn check_finite<N: geom_core::Real, V: std::fmt::Debug + Copy + IntoIterator<Item = N>>(
    shape: &'static str,
    parameter: &'static str,
    value: V,
) -> Result<V, geom_core::GeomError> {
    if value.into_iter().all(|c| c.is_finite()) {
        Ok(value)
    } else {
        Err(geom_core::GeomError::invalid(
            shape,
            parameter,
            value,
            "must be finite",
        ))
    }
}
