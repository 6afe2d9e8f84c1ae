//! Error-free transformations and a compensated dot product, over lanes.
//!
//! Used where a plain dot product would cancel: a plane far from the origin
//! (`n·p − d` with `|n·p| ≈ |d|`), a ray nearly parallel to a plane. Results
//! are as accurate as if computed in twice the working precision and then
//! rounded (Ogita, Rump and Oishi, "Accurate Sum and Dot Product", SIAM J.
//! Sci. Comput. 26(6), 2005). Written without fused multiply-add, so the
//! scalar and SIMD lanes agree bit for bit.
//!
//! ```
//! use geom_core::exact::{dot_plus_compensated, two_sum};
//! use nalgebra::Vector3;
//!
//! // 1 + 2⁻⁶⁰ rounds to 1 in f64; two_sum also returns the part lost, exactly.
//! let tiny = 2f64.powi(-60);
//! assert_eq!(two_sum(1.0, tiny), (1.0, tiny));
//! // (1e17, 1, -1e17)·(1, 1, 1) = 1, but plainly 1e17 + 1 rounds to 1e17 (its ulp is 16).
//! assert_eq!(1e17 + 1.0 - 1e17, 0.0);
//! let (a, ones) = (Vector3::new(1e17, 1.0, -1e17), Vector3::repeat(1.0));
//! assert_eq!(dot_plus_compensated(&a, &ones, 0.0), 1.0);
//! ```

use nalgebra::{Point3, SimdBool, SimdValue, Vector3};
use num_traits::One;

use crate::scalar::{Lane, lit};

/// `(s, e)` with `s = fl(a + b)` and `s + e = a + b` exactly (Knuth's
/// TwoSum; no ordering of `|a|`, `|b|` needed).
#[inline]
pub fn two_sum<T: Lane>(a: T, b: T) -> (T, T) {
    let s = a + b;
    let b_virtual = s - a;
    let a_virtual = s - b_virtual;
    (s, (a - a_virtual) + (b - b_virtual))
}

/// Veltkamp's splitting constant `2^⌈p/2⌉ + 1` for the element precision
/// (`p = 24` for f32, `53` for f64; `2⁵³ + 1` for a wider element such as
/// the double-double reference, whose ≈106-bit significand is not a fixed
/// binary format: there the split and [`two_product`]'s error term are
/// approximate, but the product alone is already accurate to that precision).
#[inline]
fn split_constant<T: Lane>() -> T {
    // 1 + 2⁻³⁰ rounds to 1 in f32 (24 bits), not in f64 (53 bits);
    // 1 + 2⁻⁶⁰ rounds to 1 in f64, not in a double-double.
    let one = T::Element::one();
    let keeps = |exponent: i32| one + nalgebra::convert::<f64, T::Element>(2f64.powi(exponent)) != one;
    if !keeps(-30) {
        lit::<T>(4097.0)
    } else if !keeps(-60) {
        lit::<T>(134_217_729.0)
    } else {
        // 2⁵³ + 1 is not an f64: build it in the element type.
        lit::<T>(2f64.powi(53)) + T::one()
    }
}

/// Whether the element type is IEEE `f32` or `f64` (whose fused
/// multiply–add is exact), not a wider reference type.
#[cfg(target_feature = "fma")]
#[inline]
fn is_single_or_double<T: Lane>() -> bool {
    let one = T::Element::one();
    one + nalgebra::convert::<f64, T::Element>(2f64.powi(-60)) == one
}

/// `(p, e)` with `p = fl(a·b)` and `p + e = a·b` exactly (Dekker's
/// TwoProduct with Veltkamp's split), barring overflow of the split for
/// magnitudes near the largest finite number.
///
/// Built for a target with fused multiply–add (`x86-64-v3`, AArch64), an
/// `f32` or `f64` error term is one `fma(a, b, −p)` instead (Ogita, Rump
/// and Oishi 2005, TwoProductFMA): exact as Dekker's is, so the same bits
/// wherever the split does not overflow, in 2 operations instead of 17.
#[inline]
pub fn two_product<T: Lane>(a: T, b: T) -> (T, T) {
    #[cfg(target_feature = "fma")]
    if is_single_or_double::<T>() {
        let p = a * b;
        return (p, a.simd_mul_add(b, -p));
    }
    let factor = split_constant::<T>();
    let split = |x: T| {
        let scaled = factor * x;
        let high = scaled - (scaled - x);
        (high, x - high)
    };
    let p = a * b;
    let (a_high, a_low) = split(a);
    let (b_high, b_low) = split(b);
    let error = ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low;
    (p, error)
}

/// `a · b + c`, computed as if in twice the working precision then rounded
/// (Dot2 of Ogita, Rump and Oishi). Falls back to the plain expression
/// where the error terms overflow.
#[inline]
pub fn dot_plus_compensated<T: Lane>(a: &Vector3<T>, b: &Vector3<T>, c: T) -> T {
    DotParts::new(a, b).plus(c)
}

/// `a · b` kept as Dot2's unevaluated parts, for several
/// [`dot_plus_compensated`]`(a, b, c)` with one `a · b` and different `c`
/// (a point's height over both faces of a slab) at the cost of one dot
/// product: [`DotParts::plus`] gives each bit for bit.
#[derive(Clone, Copy, Debug)]
pub struct DotParts<T: Lane> {
    sum: T,
    errors: T,
    last_error: T,
    plain: T,
}

impl<T: Lane> DotParts<T> {
    /// The parts of `a · b`.
    #[inline]
    pub fn new(a: &Vector3<T>, b: &Vector3<T>) -> Self {
        let (p0, e0) = two_product(a.x, b.x);
        let (p1, e1) = two_product(a.y, b.y);
        let (p2, e2) = two_product(a.z, b.z);
        let (s1, f1) = two_sum(p0, p1);
        let (s2, f2) = two_sum(s1, p2);
        DotParts {
            sum: s2,
            errors: (e0 + e1) + (e2 + f1),
            last_error: f2,
            plain: a.dot(b),
        }
    }

    /// `a · b + c` as [`dot_plus_compensated`] computes it.
    #[inline]
    pub fn plus(&self, c: T) -> T {
        let (s3, f3) = two_sum(self.sum, c);
        let compensated = s3 + (self.errors + (self.last_error + f3));
        let finite = (compensated * T::zero()).simd_eq(T::zero());
        compensated.select(finite, self.plain + c)
    }
}

/// `d × (point − origin)`, computed as if in twice the working precision
/// then rounded: the difference is kept exactly (TwoSum per component),
/// each component's two products exactly (TwoProduct), and the error terms
/// are added back (Ogita, Rump and Oishi's Sum2). A far point nearly
/// straight ahead of `d` cancels in a plain cross product; here the result
/// keeps the bits of the small lateral offset, and swapping the roles of
/// two points never changes a bit of either result (it depends on one point
/// and the ray only). Falls back to the plain expression where the error
/// terms overflow.
#[inline]
pub fn cross_difference_compensated<T: Lane>(
    d: &Vector3<T>,
    point: &Point3<T>,
    origin: &Point3<T>,
) -> Vector3<T> {
    let zero = T::zero();
    let pairs = Vector3::from_fn(|i, _| two_sum(point[i], -origin[i]));
    let high = pairs.map(|(h, _)| h);
    let low = pairs.map(|(_, l)| l);
    let component = |j: usize, k: usize| {
        let (p1, e1) = two_product(d[j], high[k]);
        let (p2, e2) = two_product(d[k], high[j]);
        let (sum, sum_error) = two_sum(p1, -p2);
        let correction = ((e1 - e2) + sum_error) + (d[j] * low[k] - d[k] * low[j]);
        let compensated = sum + correction;
        let finite = (compensated * zero).simd_eq(zero);
        compensated.select(finite, d[j] * high[k] - d[k] * high[j])
    };
    Vector3::new(component(1, 2), component(2, 0), component(0, 1))
}

/// `origin − point + t·dir` per component as an unevaluated sum
/// `(sum, correction)`, exact to about the square of the working precision:
/// the difference `origin − point` (TwoSum) and the product `t·dir`
/// (TwoProduct) are kept exactly and their leading parts added with TwoSum,
/// the three error terms gathered in `correction` (Ogita, Rump and Oishi's
/// Sum2 without the final addition). So when `origin` is far from `point`
/// and `t` carries the ray close to it, the result keeps the bits of the
/// short offset that a plain `(origin − point) + t·dir` would lose to the
/// rounding of the long one. Where the error terms overflow, `correction`
/// is zero and `sum` the plain expression.
#[inline]
pub fn offset_along_split<T: Lane>(
    origin: &Point3<T>,
    point: &Point3<T>,
    dir: &Vector3<T>,
    t: T,
) -> (Vector3<T>, Vector3<T>) {
    let zero = T::zero();
    let pairs = Vector3::from_fn(|i, _| {
        let (difference, difference_error) = two_sum(origin[i], -point[i]);
        let (step, step_error) = two_product(t, dir[i]);
        let (sum, sum_error) = two_sum(difference, step);
        let correction = (difference_error + step_error) + sum_error;
        let finite = (correction * zero).simd_eq(zero);
        (sum, correction.select(finite, zero))
    });
    (pairs.map(|(sum, _)| sum), pairs.map(|(_, correction)| correction))
}

/// [`offset_along_split`] rounded once: `origin − point + t·dir` to about
/// an ulp of the result. With `t = 0` it equals the plain difference
/// `origin − point` exactly.
#[inline]
pub fn offset_along<T: Lane>(origin: &Point3<T>, point: &Point3<T>, dir: &Vector3<T>, t: T) -> Vector3<T> {
    let (sum, correction) = offset_along_split(origin, point, dir, t);
    sum + correction
}

/// `a · (origin − point)`, computed as if in twice the working precision
/// then rounded: the difference is kept exactly (TwoSum per component) and
/// its error terms enter [`dot_plus_compensated`] through the addend. A
/// plane through `point` far from `origin` keeps the bits of the offset.
#[inline]
pub fn dot_difference_compensated<T: Lane>(a: &Vector3<T>, origin: &Point3<T>, point: &Point3<T>) -> T {
    let pairs = Vector3::from_fn(|i, _| two_sum(origin[i], -point[i]));
    let difference = pairs.map(|(d, _)| d);
    let error = pairs.map(|(_, e)| e);
    dot_plus_compensated(a, &difference, a.dot(&error))
}

/// Where a ray may start, `t₀ ≥ 0` in units of `dir`, without passing any
/// point within `bounding_radius` of a centre (`from_center` is the ray
/// origin minus that centre): `t₀ = t_closest − R/|dir|`, the closest
/// approach to the centre minus the radius `R` of a slightly larger sphere
/// (an eighth more, plus 16 f32 ulps of `|from_center|` for the rounding of
/// `t₀` itself), or `0` where that is negative or not finite.
///
/// A kernel that restarts its ray at `t₀` (with [`offset_along`]) solves a
/// short, well-conditioned problem next to the shape instead of a long one,
/// and adds `t₀` back to its answer (one rounding of `t`).
#[inline]
pub fn start_near_sphere<T: Lane>(from_center: &Vector3<T>, dir: &Vector3<T>, bounding_radius: T) -> T {
    start_near_sphere_with_margin(from_center, dir, bounding_radius).0
}

/// [`start_near_sphere`] and the radius `R` of the larger sphere it keeps
/// out of: a ray restarted at `t₀ > 0` starts `R` before its closest
/// approach to the centre, so the start point's squared distance from the
/// centre is the closest approach's squared plus `R²`.
#[inline]
pub fn start_near_sphere_with_margin<T: Lane>(
    from_center: &Vector3<T>,
    dir: &Vector3<T>,
    bounding_radius: T,
) -> (T, T) {
    let zero = T::zero();
    let dir_squared = dir.norm_squared();
    let margin = bounding_radius * lit::<T>(1.125) + from_center.norm() * lit::<T>(2f64.powi(-20));
    let t_start = -from_center.dot(dir) / dir_squared - margin / dir_squared.simd_sqrt();
    let usable = t_start.simd_gt(zero) & t_start.simd_lt(lit::<T>(f64::INFINITY));
    (t_start.select(usable, zero), margin)
}

/// How far, in bounding radii, a ray's origin may lie from a shape before
/// a kernel restarts it next to the shape ([`far_start`]). Within that
/// distance the plain offset `origin − centre` rounds by at most
/// `RESTART_DISTANCE · ε · R`, a few ulps of the shape's size, which is what
/// the restart would have bought; beyond it the rounding grows with the
/// distance and the restart pays for itself.
pub const RESTART_DISTANCE: f64 = 2.5;

/// [`start_near_sphere`] where conditioning asks for it: `Some(t₀)` with
/// `t₀` zero on the lanes whose origin lies within [`RESTART_DISTANCE`]
/// bounding radii of the centre (`from_center = origin − centre`), or `None`
/// when every lane's does, so that a query near its shape skips the
/// compensated restart altogether. Per lane, the same decision a scalar
/// query makes (lanes equal scalars bit for bit). An origin whose distance
/// overflows or is NaN counts as far (the restart handles both).
#[inline]
pub fn far_start<T: Lane>(from_center: &Vector3<T>, dir: &Vector3<T>, bounding_radius: T) -> Option<T> {
    let limit = bounding_radius * lit::<T>(RESTART_DISTANCE);
    let near = from_center.norm_squared().simd_le(limit * limit);
    if near.all() {
        return None;
    }
    Some(T::zero().select(near, start_near_sphere(from_center, dir, bounding_radius)))
}

/// `origin − point + t₀·dir` for a restart from [`far_start`]: nearly exact
/// ([`offset_along`]) on the lanes that restart, the plain difference on
/// the others (bit for bit what a scalar query without a restart computes).
#[inline]
pub fn restarted_offset<T: Lane>(
    origin: &Point3<T>,
    point: &Point3<T>,
    dir: &Vector3<T>,
    t_start: Option<T>,
) -> Vector3<T> {
    let plain = origin - point;
    match t_start {
        None => plain,
        Some(t) => offset_along(origin, point, dir, t).select(t.simd_ne(T::zero()), plain),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sum_and_two_product_are_exact() {
        // Checked in f64 against f32 inputs, where every f32 sum and product
        // is exact.
        let values = [1.0f32, 3.0e-8, -1.0000001, 12345.678, 1.0e-10, -7.5e7, 0.1];
        for &a in &values {
            for &b in &values {
                let (s, e) = two_sum(a, b);
                assert_eq!(s as f64 + e as f64, a as f64 + b as f64);
                let (p, e) = two_product(a, b);
                assert_eq!(p as f64 + e as f64, a as f64 * b as f64);
            }
        }
    }

    #[test]
    fn compensated_dot_survives_cancellation() {
        // A plane 1e6 from the origin and a point 1e-3 above it: the plain
        // f32 expression loses every digit of the 1e-3.
        let n = Vector3::new(0.6f32, 0.8, 0.0);
        let p = Vector3::new(600_000.0f32, 800_000.0, 3.0);
        let d = -1_000_000.0f32;
        let exact = 0.6f32 as f64 * 600_000.0 + 0.8f32 as f64 * 800_000.0 + d as f64;
        let value = dot_plus_compensated(&n, &p, d) as f64;
        assert!(
            (value - exact).abs() <= f32::EPSILON as f64 * exact.abs(),
            "{value} vs {exact}"
        );
    }

    #[test]
    fn offset_along_keeps_the_short_offset() {
        // A ray from near the origin to a point 1e4 away, restarted next to
        // it: the f32 result is within an ulp of the f64 one, and t = 0
        // gives the plain difference.
        let origin = nalgebra::Point3::new(0.3f32, -0.7, 0.1);
        let point = nalgebra::Point3::new(12345.678f32, -9876.543, 4321.5);
        let dir = point - origin + Vector3::new(0.01, -0.02, 0.03);
        let t = 0.999_9f32;
        let value = offset_along(&origin, &point, &dir, t);
        let exact = origin.cast::<f64>() - point.cast::<f64>() + dir.cast::<f64>() * t as f64;
        for i in 0..3 {
            let ulp = (exact[i].abs() as f32).max(f32::MIN_POSITIVE) * f32::EPSILON;
            assert!(
                (value[i] as f64 - exact[i]).abs() <= ulp as f64,
                "{value:?} vs {exact:?}"
            );
        }
        assert_eq!(offset_along(&origin, &point, &dir, 0.0), origin - point);
        // And a compensated height over the same long difference.
        let a = Vector3::new(0.6f32, 0.8, 0.0);
        let height = dot_difference_compensated(&a, &origin, &point) as f64;
        let exact = a.cast::<f64>().dot(&(origin.cast::<f64>() - point.cast::<f64>()));
        assert!((height - exact).abs() <= f32::EPSILON as f64 * exact.abs());
    }

    /// The restart decision per lane: a pack mixing near, far, receding,
    /// NaN and infinite origins gives each lane the scalar's start and
    /// offset bit for bit; near origins keep the plain difference (no
    /// restart), far approaching ones start just outside the bounding
    /// sphere, within an ulp of the f64 offset.
    #[test]
    fn far_start_lanes_equal_scalars_and_restart_only_far_origins() {
        use simba::simd::WideF32x8;
        let centre = Point3::new(1000.5f32, -20.25, 3.0);
        let radius = 0.75f32;
        let origins = [
            [1001.0, -20.0, 3.5],  // inside
            [1002.0, -20.25, 3.0], // 2 radii: near
            [1010.0, -20.25, 3.0], // 12.7 radii: far, approaching
            [990.0, -20.25, 3.0],  // far, receding
            [0.0, 0.0, 0.0],       // very far, approaching
            [f32::NAN, 0.0, 0.0],  // NaN
            [f32::INFINITY, 0.0, 0.0],
            [1000.5, -18.5, 3.0], // 2.33 radii: near
        ];
        let dir = Vector3::new(-1.0f32, 0.0, 0.0);
        let towards = |o: &[f32; 3]| {
            if o[0] == 0.0 {
                (centre - Point3::from(*o)) * 0.001
            } else {
                dir
            }
        };
        let scalar: Vec<(f32, Vector3<f32>)> = origins
            .iter()
            .map(|o| {
                let origin = Point3::from(*o);
                let d = towards(o);
                let start = far_start(&(origin - centre), &d, radius);
                (
                    start.unwrap_or(0.0),
                    restarted_offset(&origin, &centre, &d, start),
                )
            })
            .collect();
        let lane = |f: &dyn Fn(usize) -> f32| WideF32x8::from(std::array::from_fn::<f32, 8, _>(f));
        let origin = Point3::new(
            lane(&|k| origins[k][0]),
            lane(&|k| origins[k][1]),
            lane(&|k| origins[k][2]),
        );
        let d = Vector3::new(
            lane(&|k| towards(&origins[k]).x),
            lane(&|k| towards(&origins[k]).y),
            lane(&|k| towards(&origins[k]).z),
        );
        let centre_lanes = centre.map(WideF32x8::splat);
        let start = far_start(&(origin - centre_lanes), &d, WideF32x8::splat(radius));
        let offset = restarted_offset(&origin, &centre_lanes, &d, start);
        let t = start.unwrap_or_else(|| WideF32x8::splat(0.0));
        for (k, (t_scalar, offset_scalar)) in scalar.iter().enumerate() {
            assert_eq!(t.extract(k).to_bits(), t_scalar.to_bits(), "lane {k}");
            for i in 0..3 {
                assert_eq!(
                    offset[i].extract(k).to_bits(),
                    offset_scalar[i].to_bits(),
                    "lane {k} [{i}]"
                );
            }
        }
        // Near and receding origins: no restart, the plain difference.
        for k in [0, 1, 3, 7] {
            assert_eq!(scalar[k].0, 0.0, "lane {k}");
            assert_eq!(scalar[k].1, Point3::from(origins[k]) - centre, "lane {k}");
        }
        // Far approaching origins: started just outside the bounding sphere
        // (1.125 radii plus the distance's 2⁻²⁰), nearly exactly.
        for k in [2, 4] {
            let (t0, offset) = scalar[k];
            assert!(t0 > 0.0, "lane {k}");
            let d = towards(&origins[k]).cast::<f64>();
            let exact = Point3::from(origins[k]).cast::<f64>() - centre.cast::<f64>() + d * t0 as f64;
            assert!(
                (offset.cast::<f64>() - exact).amax() <= 1e-6 * exact.norm(),
                "lane {k}"
            );
            assert!(
                exact.norm() > 1.125 * radius as f64 && exact.norm() < 1.2 * radius as f64 + 1e-3,
                "lane {k}: {exact}"
            );
        }
    }
}
