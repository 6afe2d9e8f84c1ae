//! A double-double scalar: an unevaluated sum `hi + lo` of two `f64`s with
//! `|lo| <= ulp(hi)/2`, about 106 bits of significand, implementing what the
//! generic kernels need from simba ([`RealField`] and through it
//! `SimdRealField`), so the same kernel code runs at `f32`, `f64` and this
//! reference precision. Behind the cargo feature `reference`.
//!
//! The arithmetic follows Dekker ("A floating-point technique for extending
//! the available precision", Numer. Math. 18, 1971) with the algorithms and
//! proved bounds of Joldes, Muller and Popescu ("Tight and rigorous error
//! bounds for basic building blocks of double-word arithmetic", ACM TOMS
//! 44(2), 2017; JMP below). With `u = 2⁻⁵³`, relative errors for finite
//! results away from underflow and overflow:
//!
//! | operation | algorithm                                   | bound          |
//! |-----------|---------------------------------------------|----------------|
//! | `+`, `−`  | AccurateDWPlusDW (JMP Alg. 6)               | `3u²/(1 − 4u)` |
//! | `×`       | DWTimesDW3, with FMA (JMP Alg. 12)          | `5u²` (JMP; `4u²` in Muller–Rideau, ACM TOMS 48(1), 2022) |
//! | `÷`       | DWDivDW2 (JMP Alg. 17)                      | `15u² + 56u³`  |
//! | `sqrt`    | SQRTDWtoDW (Lefèvre, Louvet, Muller, Picot, Rideau, IEEE TC 72(6), 2023) | `25u²/8` |
//!
//! The tests check these bounds against exact rational arithmetic on random
//! inputs. Comparisons, `abs`, `min`/`max`, `floor`/`ceil`/`trunc`/`round`,
//! negation and selection are exact; `powi` and `hypot` are compositions of
//! the operations above. Everything transcendental (`sin`, `exp`, `ln`,
//! `atan2`, `powf`, `cbrt`, ...) is evaluated in `f64` on the rounded value
//! and is only as accurate as `f64`: the kernels never call them.
//!
//! Non-finite results carry `lo = 0`, so an infinite `max_t` compares as in
//! `f64` and NaN stays NaN.
//!
//! ```
//! use geom_core::DoubleDouble;
//! use nalgebra::Vector3;
//!
//! // 2⁻⁶⁰ is lost when added to 1 in f64, kept in the low part of a double-double.
//! let tiny = 2f64.powi(-60);
//! assert_eq!(1.0 + tiny, 1.0);
//! let sum = DoubleDouble::from_f64(1.0) + DoubleDouble::from_f64(tiny);
//! assert_eq!((sum.hi(), sum.lo()), (1.0, tiny));
//! assert_eq!((sum - DoubleDouble::from_f64(1.0)).to_f64(), tiny); // 1 − 1 and tiny − 0 are exact
//! // A nalgebra scalar: generic code runs at about 106 bits. |(3, 4, 0)| = 5.
//! let v = Vector3::new(DoubleDouble::from_f64(3.0), DoubleDouble::from_f64(4.0), DoubleDouble::from_f64(0.0));
//! assert!((v.norm() - DoubleDouble::from_f64(5.0)).abs() < DoubleDouble::from_f64(1e-30));
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign};

use approx::{AbsDiffEq, RelativeEq, UlpsEq};
use num_traits::{FromPrimitive, Num, One, Signed, Zero};
use simba::scalar::{ComplexField, Field, RealField, SubsetOf};
use simba::simd::{PrimitiveSimdValue, SimdValue};

/// A double-double number `hi + lo` (see the [module documentation](self)
/// for its operations and their error bounds).
#[derive(Clone, Copy, Default, PartialEq)]
pub struct DoubleDouble {
    hi: f64,
    lo: f64,
}

/// `(s, e)` with `s = fl(a + b)`, `s + e = a + b` exactly (Knuth's TwoSum).
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let b_virtual = s - a;
    let a_virtual = s - b_virtual;
    (s, (a - a_virtual) + (b - b_virtual))
}

/// TwoSum for `|a| >= |b|` (or `a` zero), Dekker's Fast2Sum.
#[inline]
fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// `(p, e)` with `p = fl(a·b)`, `p + e = a·b` exactly (one fused multiply-add).
#[inline]
fn two_product(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// Unit roundoff of `f64`, `u = 2⁻⁵³`.
const UNIT_ROUNDOFF: f64 = 1.0 / 9_007_199_254_740_992.0;

impl DoubleDouble {
    /// The spacing scale of the format, `2u² = 2⁻¹⁰⁵`: about the relative
    /// gap between neighbouring double-double values (used as `EPSILON`).
    pub const EPSILON: DoubleDouble = DoubleDouble {
        hi: 2.0 * UNIT_ROUNDOFF * UNIT_ROUNDOFF,
        lo: 0.0,
    };

    /// π to double-double precision.
    pub const PI: DoubleDouble = DoubleDouble {
        hi: std::f64::consts::PI,
        lo: 1.224_646_799_147_353_2e-16,
    };

    /// Euler's number to double-double precision.
    pub const E: DoubleDouble = DoubleDouble {
        hi: std::f64::consts::E,
        lo: 1.445_646_891_729_250_2e-16,
    };

    /// ln 2 to double-double precision.
    pub const LN_2: DoubleDouble = DoubleDouble {
        hi: std::f64::consts::LN_2,
        lo: 2.319_046_813_846_299_6e-17,
    };

    /// ln 10 to double-double precision.
    pub const LN_10: DoubleDouble = DoubleDouble {
        hi: std::f64::consts::LN_10,
        lo: -2.170_756_223_382_249_4e-16,
    };

    /// The value of one `f64` (exact).
    pub const fn from_f64(value: f64) -> Self {
        DoubleDouble { hi: value, lo: 0.0 }
    }

    /// `hi + lo` normalised (any two finite `f64`s; the sum is exact).
    pub fn from_sum(hi: f64, lo: f64) -> Self {
        let (hi, lo) = two_sum(hi, lo);
        Self::checked(hi, lo)
    }

    /// The leading part: the value rounded to `f64`.
    pub const fn hi(self) -> f64 {
        self.hi
    }

    /// The trailing part, `value − hi` exactly.
    pub const fn lo(self) -> f64 {
        self.lo
    }

    /// The value rounded to `f64` (the leading part of a normalised pair).
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }

    /// A pair whose leading part is not finite keeps `lo = 0`.
    #[inline]
    fn checked(hi: f64, lo: f64) -> Self {
        if hi.is_finite() {
            DoubleDouble { hi, lo }
        } else {
            DoubleDouble { hi, lo: 0.0 }
        }
    }

    /// JMP Algorithm 6 (AccurateDWPlusDW).
    #[inline]
    fn add_dd(self, other: Self) -> Self {
        let (sum_hi, sum_lo) = two_sum(self.hi, other.hi);
        if !sum_hi.is_finite() {
            return Self::checked(sum_hi, 0.0);
        }
        let (tail_hi, tail_lo) = two_sum(self.lo, other.lo);
        let (v_hi, v_lo) = fast_two_sum(sum_hi, sum_lo + tail_hi);
        let (hi, lo) = fast_two_sum(v_hi, tail_lo + v_lo);
        Self::checked(hi, lo)
    }

    /// JMP Algorithm 12 (DWTimesDW3).
    #[inline]
    fn mul_dd(self, other: Self) -> Self {
        let (product, product_error) = two_product(self.hi, other.hi);
        if !product.is_finite() || product == 0.0 {
            return Self::checked(product, 0.0);
        }
        let low_low = self.lo * other.lo;
        let cross = self.hi.mul_add(other.lo, low_low);
        let cross = self.lo.mul_add(other.hi, cross);
        let (hi, lo) = fast_two_sum(product, product_error + cross);
        Self::checked(hi, lo)
    }

    /// JMP Algorithm 7 (DWTimesFP1): this pair times one `f64`.
    #[inline]
    fn mul_f64(self, factor: f64) -> Self {
        let (product, product_error) = two_product(self.hi, factor);
        let low = self.lo * factor;
        let (t_hi, t_lo) = fast_two_sum(product, low);
        let (hi, lo) = fast_two_sum(t_hi, t_lo + product_error);
        Self::checked(hi, lo)
    }

    /// JMP Algorithm 17 (DWDivDW2).
    #[inline]
    fn div_dd(self, other: Self) -> Self {
        let quotient = self.hi / other.hi;
        if !quotient.is_finite() || quotient == 0.0 {
            return Self::checked(quotient, 0.0);
        }
        let back = other.mul_f64(quotient);
        let remainder = (self.hi - back.hi) + (self.lo - back.lo);
        let (hi, lo) = fast_two_sum(quotient, remainder / other.hi);
        Self::checked(hi, lo)
    }

    /// The square root (SQRTDWtoDW of Lefèvre et al., bound `25u²/8`).
    pub fn sqrt(self) -> Self {
        if self.hi <= 0.0 || !self.hi.is_finite() {
            // ±0, +∞ and NaN as in f64; negatives give NaN.
            return Self::checked(self.hi.sqrt(), 0.0);
        }
        let root = self.hi.sqrt();
        let residual = (-root).mul_add(root, self.hi);
        let correction = (self.lo + residual) / (2.0 * root);
        let (hi, lo) = fast_two_sum(root, correction);
        Self::checked(hi, lo)
    }

    /// The absolute value (exact).
    pub fn abs(self) -> Self {
        if self.hi.is_sign_negative() { -self } else { self }
    }

    /// The largest integer not above the value (exact).
    pub fn floor(self) -> Self {
        let hi = self.hi.floor();
        if hi == self.hi {
            let (hi, lo) = fast_two_sum(hi, self.lo.floor());
            Self::checked(hi, lo)
        } else {
            Self::checked(hi, 0.0)
        }
    }

    /// The smallest integer not below the value (exact).
    pub fn ceil(self) -> Self {
        -(-self).floor()
    }

    /// The integer part, rounding towards zero (exact).
    pub fn trunc(self) -> Self {
        if self.hi.is_sign_negative() {
            self.ceil()
        } else {
            self.floor()
        }
    }

    /// The nearest integer, halves away from zero (exact).
    pub fn round(self) -> Self {
        let half = DoubleDouble::from_f64(0.5);
        if self.hi.is_sign_negative() {
            -(-self + half).floor()
        } else {
            (self + half).floor()
        }
    }

    /// `self` to the integer power `n`, by repeated squaring (each step one
    /// double-double multiplication).
    pub fn powi(self, n: i32) -> Self {
        let mut base = self;
        let mut exponent = n.unsigned_abs();
        let mut result = DoubleDouble::one();
        while exponent > 0 {
            if exponent & 1 == 1 {
                result *= base;
            }
            base *= base;
            exponent >>= 1;
        }
        if n < 0 { result.recip() } else { result }
    }

    /// `1 / self`.
    pub fn recip(self) -> Self {
        DoubleDouble::one() / self
    }

    /// Whether the value is finite (neither infinite nor NaN).
    pub fn is_finite(self) -> bool {
        self.hi.is_finite()
    }

    /// Whether the value is NaN.
    pub fn is_nan(self) -> bool {
        self.hi.is_nan()
    }

    /// A function evaluated in `f64` on the rounded value: `f64` accuracy only.
    fn via_f64(self, function: impl Fn(f64) -> f64) -> Self {
        DoubleDouble::from_f64(function(self.to_f64()))
    }
}

impl fmt::Debug for DoubleDouble {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DoubleDouble({:?}, {:?})", self.hi, self.lo)
    }
}

/// The leading part, followed by the trailing part when it is not zero
/// (`0.1-5.551115123125783e-18`).
impl fmt::Display for DoubleDouble {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lo == 0.0 {
            write!(f, "{}", self.hi)
        } else {
            write!(f, "{}{:+e}", self.hi, self.lo)
        }
    }
}

impl PartialOrd for DoubleDouble {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        match self.hi.partial_cmp(&other.hi)? {
            Ordering::Equal => self.lo.partial_cmp(&other.lo),
            ordering => Some(ordering),
        }
    }
}

impl From<f64> for DoubleDouble {
    fn from(value: f64) -> Self {
        DoubleDouble::from_f64(value)
    }
}

impl From<f32> for DoubleDouble {
    fn from(value: f32) -> Self {
        DoubleDouble::from_f64(f64::from(value))
    }
}

impl Neg for DoubleDouble {
    type Output = Self;
    fn neg(self) -> Self {
        DoubleDouble {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl Add for DoubleDouble {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        self.add_dd(other)
    }
}

impl Sub for DoubleDouble {
    type Output = Self;
    fn sub(self, other: Self) -> Self {
        self.add_dd(-other)
    }
}

impl Mul for DoubleDouble {
    type Output = Self;
    fn mul(self, other: Self) -> Self {
        self.mul_dd(other)
    }
}

impl Div for DoubleDouble {
    type Output = Self;
    fn div(self, other: Self) -> Self {
        self.div_dd(other)
    }
}

/// `self − trunc(self / other)·other`, as accurate as its three operations.
impl Rem for DoubleDouble {
    type Output = Self;
    fn rem(self, other: Self) -> Self {
        self - (self / other).trunc() * other
    }
}

macro_rules! assign_ops {
    ($($trait:ident $method:ident $op:tt),*) => {$(
        impl $trait for DoubleDouble {
            fn $method(&mut self, other: Self) {
                *self = *self $op other;
            }
        }
    )*};
}

assign_ops!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /, RemAssign rem_assign %);

impl Zero for DoubleDouble {
    fn zero() -> Self {
        DoubleDouble::from_f64(0.0)
    }
    fn is_zero(&self) -> bool {
        self.hi == 0.0
    }
}

impl One for DoubleDouble {
    fn one() -> Self {
        DoubleDouble::from_f64(1.0)
    }
}

/// Parses through `f64` (radix 10 only): not exact beyond `f64` precision.
impl Num for DoubleDouble {
    type FromStrRadixErr = std::num::ParseFloatError;
    fn from_str_radix(text: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        if radix != 10 {
            // ParseFloatError has no public constructor; an empty string gives one.
            return "".parse::<f64>().map(DoubleDouble::from_f64);
        }
        text.parse::<f64>().map(DoubleDouble::from_f64)
    }
}

impl Signed for DoubleDouble {
    fn abs(&self) -> Self {
        DoubleDouble::abs(*self)
    }
    fn abs_sub(&self, other: &Self) -> Self {
        if *self <= *other {
            Self::zero()
        } else {
            *self - *other
        }
    }
    fn signum(&self) -> Self {
        if self.hi.is_nan() {
            *self
        } else {
            DoubleDouble::from_f64(self.hi.signum())
        }
    }
    fn is_positive(&self) -> bool {
        self.hi.is_sign_positive()
    }
    fn is_negative(&self) -> bool {
        self.hi.is_sign_negative()
    }
}

/// Integers up to 106 bits are exact; floats are exact.
impl FromPrimitive for DoubleDouble {
    fn from_i64(n: i64) -> Option<Self> {
        Self::from_i128(i128::from(n))
    }
    fn from_u64(n: u64) -> Option<Self> {
        Self::from_i128(i128::from(n))
    }
    fn from_i128(n: i128) -> Option<Self> {
        let hi = n as f64;
        // `n − hi` fits in i128 for |n| < 2¹²⁶ and rounds once more.
        let lo = n.checked_sub(hi as i128).map_or(0.0, |rest| rest as f64);
        Some(DoubleDouble::from_sum(hi, lo))
    }
    fn from_f32(n: f32) -> Option<Self> {
        Some(n.into())
    }
    fn from_f64(n: f64) -> Option<Self> {
        Some(n.into())
    }
}

/// One lane: simba's scalar case, as for `f64`.
impl SimdValue for DoubleDouble {
    const LANES: usize = 1;
    type Element = Self;
    type SimdBool = bool;

    fn splat(value: Self) -> Self {
        value
    }
    fn extract(&self, _: usize) -> Self {
        *self
    }
    // simba declares these `unsafe`; the bodies do nothing unsafe.
    #[allow(unsafe_code)]
    unsafe fn extract_unchecked(&self, _: usize) -> Self {
        *self
    }
    fn replace(&mut self, _: usize, value: Self) {
        *self = value;
    }
    #[allow(unsafe_code)]
    unsafe fn replace_unchecked(&mut self, _: usize, value: Self) {
        *self = value;
    }
    fn select(self, condition: bool, other: Self) -> Self {
        if condition { self } else { other }
    }
}

impl PrimitiveSimdValue for DoubleDouble {}

impl Field for DoubleDouble {}

impl SubsetOf<DoubleDouble> for DoubleDouble {
    fn to_superset(&self) -> DoubleDouble {
        *self
    }
    fn from_superset_unchecked(element: &DoubleDouble) -> Self {
        *element
    }
    fn is_in_subset(_: &DoubleDouble) -> bool {
        true
    }
}

/// `f64 → DoubleDouble` is exact; back is rounding to nearest.
impl SubsetOf<DoubleDouble> for f64 {
    fn to_superset(&self) -> DoubleDouble {
        DoubleDouble::from_f64(*self)
    }
    fn from_superset_unchecked(element: &DoubleDouble) -> Self {
        element.to_f64()
    }
    fn is_in_subset(_: &DoubleDouble) -> bool {
        true
    }
}

/// `f32 → DoubleDouble` is exact; back rounds through `f64` (double
/// rounding, at most one f32 ulp off in rare halfway cases).
impl SubsetOf<DoubleDouble> for f32 {
    fn to_superset(&self) -> DoubleDouble {
        DoubleDouble::from(*self)
    }
    fn from_superset_unchecked(element: &DoubleDouble) -> Self {
        element.to_f64() as f32
    }
    fn is_in_subset(_: &DoubleDouble) -> bool {
        true
    }
}

impl AbsDiffEq for DoubleDouble {
    type Epsilon = Self;
    fn default_epsilon() -> Self {
        Self::EPSILON
    }
    fn abs_diff_eq(&self, other: &Self, epsilon: Self) -> bool {
        (*self - *other).abs() <= epsilon
    }
}

impl RelativeEq for DoubleDouble {
    fn default_max_relative() -> Self {
        Self::EPSILON
    }
    fn relative_eq(&self, other: &Self, epsilon: Self, max_relative: Self) -> bool {
        if self == other {
            return true;
        }
        if !self.is_finite() || !other.is_finite() {
            return false;
        }
        let difference = (*self - *other).abs();
        difference <= epsilon || difference <= RealField::max(self.abs(), other.abs()) * max_relative
    }
}

/// Ulps of the format's `EPSILON`, relative to the larger magnitude.
impl UlpsEq for DoubleDouble {
    fn default_max_ulps() -> u32 {
        4
    }
    fn ulps_eq(&self, other: &Self, epsilon: Self, max_ulps: u32) -> bool {
        let scale = Self::EPSILON * DoubleDouble::from_f64(f64::from(max_ulps));
        self.relative_eq(other, epsilon, scale)
    }
}

macro_rules! via_f64 {
    ($($name:ident),*) => {$(
        fn $name(self) -> Self {
            self.via_f64(f64::$name)
        }
    )*};
}

/// A real number as simba's complex field: `+ − × ÷ sqrt` and the exact
/// operations at double-double precision; transcendental functions in `f64`.
impl ComplexField for DoubleDouble {
    type RealField = DoubleDouble;

    fn from_real(real: Self) -> Self {
        real
    }
    fn real(self) -> Self {
        self
    }
    fn imaginary(self) -> Self {
        Self::zero()
    }
    fn modulus(self) -> Self {
        self.abs()
    }
    fn modulus_squared(self) -> Self {
        self * self
    }
    fn argument(self) -> Self {
        if self.hi.is_sign_negative() {
            Self::PI
        } else {
            Self::zero()
        }
    }
    fn norm1(self) -> Self {
        self.abs()
    }
    fn scale(self, factor: Self) -> Self {
        self * factor
    }
    fn unscale(self, factor: Self) -> Self {
        self / factor
    }
    fn floor(self) -> Self {
        DoubleDouble::floor(self)
    }
    fn ceil(self) -> Self {
        DoubleDouble::ceil(self)
    }
    fn round(self) -> Self {
        DoubleDouble::round(self)
    }
    fn trunc(self) -> Self {
        DoubleDouble::trunc(self)
    }
    fn fract(self) -> Self {
        self - self.trunc()
    }
    /// `self·a + b` with two roundings (not fused).
    fn mul_add(self, a: Self, b: Self) -> Self {
        self * a + b
    }
    fn abs(self) -> Self {
        DoubleDouble::abs(self)
    }
    fn hypot(self, other: Self) -> Self {
        (self * self + other * other).sqrt()
    }
    fn recip(self) -> Self {
        DoubleDouble::recip(self)
    }
    fn conjugate(self) -> Self {
        self
    }
    via_f64!(
        sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, log2, log10, ln, ln_1p, exp,
        exp2, exp_m1, cbrt
    );
    fn sin_cos(self) -> (Self, Self) {
        (self.sin(), self.cos())
    }
    fn log(self, base: Self) -> Self {
        self.via_f64(|x| x.log(base.to_f64()))
    }
    fn sqrt(self) -> Self {
        DoubleDouble::sqrt(self)
    }
    fn powi(self, n: i32) -> Self {
        DoubleDouble::powi(self, n)
    }
    fn powf(self, n: Self) -> Self {
        self.via_f64(|x| x.powf(n.to_f64()))
    }
    fn powc(self, n: Self) -> Self {
        self.powf(n)
    }
    fn is_finite(&self) -> bool {
        DoubleDouble::is_finite(*self)
    }
    fn try_sqrt(self) -> Option<Self> {
        (self >= Self::zero()).then(|| self.sqrt())
    }
}

impl RealField for DoubleDouble {
    fn is_sign_positive(&self) -> bool {
        self.hi.is_sign_positive()
    }
    fn is_sign_negative(&self) -> bool {
        self.hi.is_sign_negative()
    }
    fn copysign(self, sign: Self) -> Self {
        if self.hi.is_sign_negative() == sign.hi.is_sign_negative() {
            self
        } else {
            -self
        }
    }
    /// As `f64::max`: NaN only when both are NaN.
    fn max(self, other: Self) -> Self {
        if self.is_nan() || other > self {
            other
        } else {
            self
        }
    }
    /// As `f64::min`: NaN only when both are NaN.
    fn min(self, other: Self) -> Self {
        if self.is_nan() || other < self {
            other
        } else {
            self
        }
    }
    fn clamp(self, min: Self, max: Self) -> Self {
        RealField::min(RealField::max(self, min), max)
    }
    fn atan2(self, other: Self) -> Self {
        self.via_f64(|y| y.atan2(other.to_f64()))
    }
    /// The most negative finite value, as simba's `f64` implementation.
    fn min_value() -> Option<Self> {
        Some(DoubleDouble::from_f64(f64::MIN))
    }
    fn max_value() -> Option<Self> {
        Some(DoubleDouble::from_f64(f64::MAX))
    }
    fn pi() -> Self {
        Self::PI
    }
    fn two_pi() -> Self {
        Self::PI.mul_f64(2.0)
    }
    fn frac_pi_2() -> Self {
        Self::PI.mul_f64(0.5)
    }
    fn frac_pi_3() -> Self {
        Self::PI / DoubleDouble::from_f64(3.0)
    }
    fn frac_pi_4() -> Self {
        Self::PI.mul_f64(0.25)
    }
    fn frac_pi_6() -> Self {
        Self::PI / DoubleDouble::from_f64(6.0)
    }
    fn frac_pi_8() -> Self {
        Self::PI.mul_f64(0.125)
    }
    fn frac_1_pi() -> Self {
        Self::PI.recip()
    }
    fn frac_2_pi() -> Self {
        DoubleDouble::from_f64(2.0) / Self::PI
    }
    fn frac_2_sqrt_pi() -> Self {
        DoubleDouble::from_f64(2.0) / Self::PI.sqrt()
    }
    fn e() -> Self {
        Self::E
    }
    fn log2_e() -> Self {
        Self::LN_2.recip()
    }
    fn log10_e() -> Self {
        Self::LN_10.recip()
    }
    fn ln_2() -> Self {
        Self::LN_2
    }
    fn ln_10() -> Self {
        Self::LN_10
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;
    use num_rational::BigRational;
    use num_traits::ToPrimitive;

    const U2: f64 = UNIT_ROUNDOFF * UNIT_ROUNDOFF;

    use geom_random::Rng;

    /// A normalised pair with a random sign and a magnitude in
    /// `2^±exponent_range`, its tail a random fraction of an ulp.
    fn pair(rng: &mut Rng, exponent_range: f64) -> DoubleDouble {
        let sign = if rng.unit() < 0.5 { -1.0 } else { 1.0 };
        let hi = sign * (1.0 + rng.unit()) * 2f64.powf(((rng.unit() * 2.0 - 1.0) * exponent_range).round());
        let lo = (rng.unit() - 0.5) * hi.abs() * 2.0 * UNIT_ROUNDOFF;
        DoubleDouble::from_sum(hi, lo)
    }

    fn exact(value: DoubleDouble) -> BigRational {
        BigRational::from_float(value.hi).unwrap() + BigRational::from_float(value.lo).unwrap()
    }

    /// |computed − exact| / |exact| in units of u².
    fn relative_error(computed: DoubleDouble, exact_value: &BigRational) -> f64 {
        if exact_value.numer() == &BigInt::from(0) {
            return if computed.is_zero() { 0.0 } else { f64::INFINITY };
        }
        let error = (exact(computed) - exact_value).abs() / exact_value.abs();
        error.to_f64().unwrap() / U2
    }

    #[test]
    fn arithmetic_meets_the_documented_bounds() {
        let mut rng = Rng::from_state(0xD0B1E);
        let mut worst = [0.0f64; 4];
        for case in 0..4000 {
            // Half the cases with close magnitudes, where + and − cancel.
            let a = pair(&mut rng, if case % 2 == 0 { 30.0 } else { 2.0 });
            let b = if case % 4 == 1 {
                -(a * DoubleDouble::from_f64(1.0 + rng.unit() * 1e-10))
            } else {
                pair(&mut rng, if case % 2 == 0 { 30.0 } else { 2.0 })
            };
            let (ea, eb) = (exact(a), exact(b));
            let errors = [
                relative_error(a + b, &(&ea + &eb)),
                relative_error(a * b, &(&ea * &eb)),
                relative_error(a / b, &(&ea / &eb)),
                {
                    // |r² − x| / x ≈ 2 |r − √x| / √x.
                    let x = a.abs();
                    let root = exact(x.sqrt());
                    let ex = exact(x);
                    let residual = ((&root * &root) - &ex).abs() / &ex;
                    residual.to_f64().unwrap() / U2 / 2.0
                },
            ];
            for (w, e) in worst.iter_mut().zip(errors) {
                *w = w.max(e);
            }
        }
        let u = UNIT_ROUNDOFF;
        let bounds = [
            3.0 / (1.0 - 4.0 * u),
            5.0,
            15.0 + 56.0 * u,
            25.0 / 8.0 * (1.0 + 1e-10),
        ];
        for ((name, w), bound) in ["add", "mul", "div", "sqrt"].iter().zip(worst).zip(bounds) {
            assert!(w <= bound, "{name}: {w} u² over the bound {bound} u²");
        }
    }

    #[test]
    fn constants_are_correct_to_double_double() {
        // The tail of π is sin(fl(π)) to f64 precision.
        assert_eq!(DoubleDouble::PI.lo, std::f64::consts::PI.sin());
        // e = Σ 1/k!, ln 2 = Σ 1/(k·2ᵏ), ln 10 = 3 ln 2 + 2 atanh(1/9), summed
        // in double-double.
        let one = DoubleDouble::one();
        let mut e = DoubleDouble::zero();
        let mut term = one;
        for k in 1..40 {
            e += term;
            term /= DoubleDouble::from_f64(k as f64);
        }
        let mut ln2 = DoubleDouble::zero();
        for k in 1..120 {
            ln2 += one / (DoubleDouble::from_f64(k as f64) * DoubleDouble::from_f64(2f64.powi(k)));
        }
        let ninth = one / DoubleDouble::from_f64(9.0);
        let mut atanh = DoubleDouble::zero();
        for k in 0..40 {
            atanh += ninth.powi(2 * k + 1) / DoubleDouble::from_f64(f64::from(2 * k + 1));
        }
        let ln10 = ln2 * DoubleDouble::from_f64(3.0) + atanh * DoubleDouble::from_f64(2.0);
        for (name, computed, constant) in [
            ("e", e, DoubleDouble::E),
            ("ln 2", ln2, DoubleDouble::LN_2),
            ("ln 10", ln10, DoubleDouble::LN_10),
        ] {
            let error = ((computed - constant) / constant).abs().to_f64();
            assert!(error < 64.0 * U2, "{name}: {computed:?} vs {constant:?}");
        }
    }

    #[test]
    fn special_values_behave_as_in_f64() {
        let inf = DoubleDouble::from_f64(f64::INFINITY);
        let one = DoubleDouble::one();
        assert_eq!(inf + one, inf);
        assert_eq!(one / DoubleDouble::zero(), inf);
        assert!((inf * DoubleDouble::zero()).is_nan());
        assert!(DoubleDouble::from_f64(-1.0).sqrt().is_nan());
        assert_eq!(DoubleDouble::zero().sqrt(), DoubleDouble::zero());
        assert!(one < inf && -inf < one);
        assert_eq!(RealField::max(DoubleDouble::from_f64(f64::NAN), one), one);
        let x = DoubleDouble::from_sum(2.0, -1e-20);
        assert_eq!(x.floor(), one);
        assert_eq!(x.ceil(), DoubleDouble::from_f64(2.0));
        assert_eq!(x.round(), DoubleDouble::from_f64(2.0));
        assert_eq!((-x).trunc(), -one);
        assert_eq!(
            DoubleDouble::from_i64(i64::MAX).map(exact),
            Some(BigRational::from_integer(BigInt::from(i64::MAX)))
        );
    }
}
