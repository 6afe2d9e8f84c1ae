//! The primitive shapes of geom, each with exact ray casts and closest
//! points written once over [`SimdRealField`](nalgebra::SimdRealField) and
//! instantiated for `f32`, `f64`, `WideF32x4`, `WideF32x8` and `WideF64x4`.
//!
//! Each shape is one module holding its data, validating constructors
//! (`try_new` returns a [`GeomError`](geom_core::GeomError) naming the bad
//! value, `new` panics with the same message) and its kernels.
//!
//! Every shape answers through the [`Shape`](geom_core::Shape) trait, in its
//! local frame or at a pose:
//!
//! ```
//! use geom_core::{GeomError, Ray, Shape};
//! use geom_prims::{Cuboid, Sphere};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // From the origin along +z, a unit sphere centred at (0, 0, 5) is hit at z = 4, facing -z.
//! let sphere = Sphere::new(1.0);
//! let ray = Ray::new(Point3::origin(), Vector3::z());
//! let hit = sphere.ray_cast(&Isometry3::translation(0.0, 0.0, 5.0), &ray, f64::INFINITY, true).unwrap();
//! assert!((hit.t - 4.0).abs() < 1e-12 && (hit.normal + Vector3::z()).norm() < 1e-12);
//! // (4, 1, 0) projects onto the box of half extents (1, 2, 3) at (1, 1, 0), 3 away (x clamped to 1).
//! let cuboid = Cuboid::new(Vector3::new(1.0f64, 2.0, 3.0));
//! let point = Point3::new(4.0, 1.0, 0.0);
//! let projection = cuboid.closest_point(&Isometry3::identity(), &point, true).unwrap();
//! assert!((projection.point - Point3::new(1.0, 1.0, 0.0)).norm() < 1e-12);
//! assert!((cuboid.distance(&Isometry3::identity(), &point).unwrap() - 3.0).abs() < 1e-12);
//! // `try_new` names a bad value; `new` would panic with the same message.
//! assert!(matches!(Sphere::try_new(-1.0), Err(GeomError::InvalidParameter { parameter: "radius", .. })));
//! ```
#![deny(missing_docs)]
// A library never writes to the terminal (its tests may).
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

pub mod basis;
pub mod capsule;
pub mod cone;
pub mod contact;
pub mod convex;
pub mod cuboid;
pub mod cylinder;
pub mod ellipsoid;
mod feature;
pub mod gjk;
pub mod half_space;
pub mod hull;
pub mod segment;
#[cfg(feature = "serde")]
mod serde_shapes;
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
pub use hull::ConvexHull;
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

/// The unit direction of `dir`'s part across `axis` (the direction of a
/// disk's farthest rim point, for a disk perpendicular to `axis`), or `None`
/// when `dir` is along the axis to rounding: every point of the disk is then
/// farthest, and the caller takes its centre.
///
/// The projection `dir − axis·(axis·dir)/|axis|²` leaves a rounding residue
/// of a few `ε·|dir|` even for `dir` exactly along the axis, and for an
/// axis-aligned `axis` that residue lies exactly *along* the axis: a second
/// projection shrinks it but leaves it axial, and normalising it would move
/// the "rim point" off the disk by the radius (a support point outside the
/// shape, which GJK/EPA then trust). So a part across shorter than
/// `32·ε·|dir|` counts as none (the centre then misses the true support by
/// at most `32·ε·radius`); a longer one is projected a second time, which
/// leaves an axial part of at most a few `ε` of its length.
///
/// `dir_length` is `|dir|` ([`support_direction_length`], which the
/// support functions have computed already).
pub(crate) fn direction_across_axis<N: geom_core::Real>(
    dir: &nalgebra::Vector3<N>,
    dir_length: N,
    axis: &nalgebra::Vector3<N>,
) -> Option<nalgebra::Vector3<N>> {
    let axis_length_squared = axis.norm_squared();
    let across = dir - axis * (axis.dot(dir) / axis_length_squared);
    let across = across - axis * (axis.dot(&across) / axis_length_squared);
    let across_length = across.norm();
    let noise = geom_core::lit::<N>(32.0) * N::default_epsilon() * dir_length;
    (across_length > noise && across_length.is_finite()).then(|| across / across_length)
}

/// Checks that a size (a radius) follows [`SIZE_RULE`] (see
/// [`is_size`]).
pub(crate) fn check_size<N: geom_core::Real>(
    shape: &'static str,
    parameter: &'static str,
    value: N,
) -> Result<N, geom_core::GeomError> {
    if is_size(value) {
        Ok(value)
    } else {
        Err(geom_core::GeomError::invalid(shape, parameter, value, SIZE_RULE))
    }
}

/// The rule every size of a shape follows.
pub(crate) const SIZE_RULE: &str =
    "must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size)";

/// Whether `value` is a valid size: zero, or between `1 / max_size` and
/// [`geom_core::max_size`] (about 2.2e-19 to 4.6e18 in `f32`, 3e-154 to
/// 3.4e153 in `f64`), so that its square and the squares of sums of a few
/// sizes are normal floats.
pub(crate) fn is_size<N: geom_core::Real>(value: N) -> bool {
    let largest = geom_core::max_size::<N>();
    value == N::zero() || (value >= largest.recip() && value <= largest)
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
