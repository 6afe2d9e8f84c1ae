//! Thin scalar traits over simba.
//!
//! Kernels are written once against [`SimdRealField`] and instantiated for
//! `f32`, `f64`, `WideF32x4`, `WideF32x8` and `WideF64x4`. [`Real`] names the
//! plain scalars a shape stores; [`Lane`] names any SIMD-or-scalar type whose
//! lanes are a [`Real`].
//!
//! ```
//! use geom_core::{Lane, all_finite, lit, max_size};
//! use nalgebra::Vector3;
//!
//! // One function for f32 and f64 (and SIMD lanes), its constants through `lit`.
//! fn midpoint<T: Lane>(a: T, b: T) -> T {
//!     (a + b) * lit::<T>(0.5)
//! }
//! assert_eq!((midpoint(1.0f32, 2.0), midpoint(1.0f64, 2.0)), (1.5, 1.5));
//! // The largest size is √max / 4: f32's max is just under 2¹²⁸, so about 2⁶².
//! let largest = max_size::<f32>();
//! assert!((largest / 2f32.powi(62) - 1.0).abs() < 1e-6);
//! assert!((largest * largest).is_finite()); // max / 16
//! assert!(!all_finite(&Vector3::new(1.0, f64::NAN, 0.0)));
//! ```

use nalgebra::{RealField, SimdRealField, Vector3};

/// A plain floating-point scalar (`f32` or `f64`, or a higher-precision type
/// implementing [`RealField`]) in which shapes store their parameters.
pub trait Real: RealField + Copy + Send + Sync + 'static {}

impl<N: RealField + Copy + Send + Sync + 'static> Real for N {}

/// A scalar or SIMD lane type whose lanes are a [`Real`]: `f32`, `f64`,
/// `WideF32x4`, `WideF32x8`, `WideF64x4`. Every kernel is written against it.
pub trait Lane: SimdRealField<Element: Real> + Copy {}

impl<T: SimdRealField<Element: Real> + Copy> Lane for T {}

/// `max` and `min` with the same NaN rule on scalars and on lanes:
/// `a.lane_max(b)` is `a` where `a >= b`, otherwise `b` (so a NaN `b`, or a
/// NaN `a`, gives `b`). simba's `simd_max` has that rule for scalars but
/// not for `wide` lanes, which answer `a` when `b` is NaN; a kernel using
/// it would then differ bit for bit between its scalar and lane paths
/// exactly where an intermediate overflowed (a cylinder hit at `t = 0`
/// for a direction whose square overflows `f32`, found by the `batch` fuzz
/// target). Every kernel uses these instead.
pub trait LaneOrd: Lane {
    /// `self` where `self >= other`, otherwise `other`.
    fn lane_max(self, other: Self) -> Self;
    /// `self` where `self <= other`, otherwise `other`.
    fn lane_min(self, other: Self) -> Self;
}

impl<T: Lane> LaneOrd for T {
    #[inline(always)]
    fn lane_max(self, other: Self) -> Self {
        self.select(self.simd_ge(other), other)
    }

    #[inline(always)]
    fn lane_min(self, other: Self) -> Self {
        self.select(self.simd_le(other), other)
    }
}

/// Converts an `f64` constant into any lane type (broadcast to every lane).
///
/// Only use it for constants that are exact in every target precision
/// (`0.5`, `2.0`, ...); it goes through `nalgebra::convert`, which also works
/// for SIMD types where `T::splat(1.5)` would only compile for one of them.
#[inline(always)]
pub fn lit<T: SimdRealField>(value: f64) -> T {
    nalgebra::convert::<f64, T>(value)
}

/// The largest size a shape may have (a radius, a half extent, a
/// heightfield coordinate): `√max / 4` of the precision, about 4.6e18 in
/// `f32` and 3.4e153 in `f64`. Below it, squared sizes and sums of a few
/// of them are finite, which the kernels rely on; constructors refuse
/// larger sizes, naming the parameter, and positive sizes below
/// `1 / max_size` (whose squares are not normal floats; a zero size is
/// allowed).
pub fn max_size<N: Real>() -> N {
    N::max_value().map_or_else(N::one, |max| max.sqrt() * nalgebra::convert::<f64, N>(0.25))
}

/// Lanes where every component of `v` is finite (`x · 0` is NaN for NaN
/// and infinities, zero otherwise). Kernels whose arithmetic alone would
/// turn an infinite `dir` into a finite `t = 0` mask their answer with it.
#[inline]
pub fn all_finite<T: Lane>(v: &Vector3<T>) -> T::SimdBool {
    let zero = T::zero();
    (v.x * zero).simd_eq(zero) & (v.y * zero).simd_eq(zero) & (v.z * zero).simd_eq(zero)
}
