//! One random generator for geom's tests, benches, fuzz cases and the
//! `geom precision` survey, so that a failing case reproduces from its seed
//! on every machine: xorshift64* (Vigna, "An experimental exploration of
//! Marsaglia's xorshift generators, scrambled", ACM TOMS 2016), 64 bits of
//! state, no dependency beyond nalgebra's vector types. Not for
//! cryptography, and not for statistics finer than tests need.
//!
//! ```
//! use geom_random::Rng;
//!
//! let mut rng = Rng::new(7);
//! let x = rng.range(-2.0, 3.0);
//! assert!((-2.0..3.0).contains(&x));
//! let d = rng.direction();
//! assert!((d.norm() - 1.0).abs() < 1e-15);
//! // The same seed gives the same stream.
//! assert_eq!(Rng::new(7).range(-2.0, 3.0), x);
//! ```
#![deny(missing_docs)]

use nalgebra::{Point3, UnitQuaternion, Vector3};

/// The environment variable that asks the tests for their full sweeps
/// (`.ci/run` sets it): `GEOM_FULL_SWEEPS=1 cargo test --workspace`.
pub const FULL_SWEEPS: &str = "GEOM_FULL_SWEEPS";

/// How many random cases a long test sweep draws: all `full` of them when
/// the environment variable [`FULL_SWEEPS`] is set to anything but `0`,
/// else a quarter (at least one). A sweep draws its cases from one seeded
/// stream, so the quick run's cases are the first of the full run's: a
/// failure seen in either reproduces in the full run.
///
/// ```
/// let poses = geom_random::sweep_cases(1000);
/// assert!(poses == 1000 || poses == 250);
/// ```
pub fn sweep_cases(full: usize) -> usize {
    let wanted = std::env::var_os(FULL_SWEEPS).is_some_and(|value| value != "0" && !value.is_empty());
    if wanted { full } else { full.div_ceil(4) }
}

/// xorshift64*: a seeded stream of 64-bit numbers and the draws built on
/// them (uniform numbers, vectors, directions, rotations).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for any `seed`: the seed is spread by a multiply with
    /// the golden ratio (so that 0, 1, 2 start unrelated streams) and made
    /// odd (xorshift has no zero state).
    pub fn new(seed: u64) -> Self {
        Rng {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    /// A generator whose state is `state` itself (a zero state becomes 1):
    /// for streams recorded as raw states.
    pub fn from_state(state: u64) -> Self {
        Rng { state: state.max(1) }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`, on the 2⁻⁵³ grid.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[0, 1)` as an `f32`, on the 2⁻²⁴ grid.
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `[lo, hi)`, drawn in `f32`.
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit_f32()
    }

    /// `10^u` for `u` uniform in `[lo, hi)`: magnitudes spread evenly over
    /// the decades.
    pub fn log_range(&mut self, lo: f64, hi: f64) -> f64 {
        10f64.powf(self.range(lo, hi))
    }

    /// A whole number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n.saturating_sub(1))
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Each coordinate uniform in `[-half_width, half_width)`.
    pub fn vector(&mut self, half_width: f64) -> Vector3<f64> {
        Vector3::new(
            self.range(-half_width, half_width),
            self.range(-half_width, half_width),
            self.range(-half_width, half_width),
        )
    }

    /// A point uniform in the box from `mins` to `maxs`.
    pub fn point_in(&mut self, mins: &Point3<f64>, maxs: &Point3<f64>) -> Point3<f64> {
        Point3::new(
            self.range(mins.x, maxs.x),
            self.range(mins.y, maxs.y),
            self.range(mins.z, maxs.z),
        )
    }

    /// A unit vector uniform over directions (rejection from the cube:
    /// kept when its length is in `(0.1, 1]`, then divided by it).
    pub fn direction(&mut self) -> Vector3<f64> {
        loop {
            let v = self.vector(1.0);
            let length = v.norm();
            if length > 0.1 && length <= 1.0 {
                return v / length;
            }
        }
    }

    /// [`Rng::direction`] drawn in `f32`.
    pub fn direction_f32(&mut self) -> Vector3<f32> {
        loop {
            let v = Vector3::new(
                self.range_f32(-1.0, 1.0),
                self.range_f32(-1.0, 1.0),
                self.range_f32(-1.0, 1.0),
            );
            let length = v.norm();
            if length > 0.1 && length <= 1.0 {
                return v / length;
            }
        }
    }

    /// A rotation about a random axis by up to π·√3 (a scaled axis with
    /// coordinates uniform in `[-π, π)`).
    pub fn rotation(&mut self) -> UnitQuaternion<f64> {
        UnitQuaternion::from_scaled_axis(self.vector(std::f64::consts::PI))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outputs of xorshift64* from state 1, worked out by hand
    /// from the definition: 1 → x ^= x >> 12 (1) → x ^= x << 25 (2²⁵ + 1)
    /// → x ^= x >> 27 (unchanged), times the multiplier.
    #[test]
    fn a_quick_sweep_is_a_quarter_of_the_full_one() {
        let full = std::env::var_os(FULL_SWEEPS).is_some_and(|v| v != "0" && !v.is_empty());
        for (cases, quick) in [(1000, 250), (1, 1), (7, 2), (0, 0)] {
            assert_eq!(sweep_cases(cases), if full { cases } else { quick });
        }
    }

    #[test]
    fn the_stream_is_xorshift64_star() {
        let mut rng = Rng::from_state(1);
        let state = (1u64 << 25) | 1;
        assert_eq!(rng.next_u64(), state.wrapping_mul(0x2545_F491_4F6C_DD1D));
        assert_eq!(Rng::from_state(0), Rng::from_state(1));
        assert_eq!(Rng::new(0), Rng::from_state(1));
    }

    #[test]
    fn draws_stay_in_their_ranges() {
        let mut rng = Rng::new(3);
        let mut sum = 0.0;
        for _ in 0..10_000 {
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
            sum += u;
            let f = rng.unit_f32();
            assert!((0.0..1.0).contains(&f));
            assert!(rng.below(7) < 7);
            let x = rng.log_range(-2.0, 3.0);
            assert!((0.01..1000.0).contains(&x));
            assert!((rng.direction().norm() - 1.0).abs() < 1e-15);
            assert!((rng.direction_f32().norm() - 1.0).abs() < 1e-6);
            let p = rng.point_in(&Point3::new(-1.0, 2.0, 3.0), &Point3::new(0.0, 4.0, 3.5));
            assert!((-1.0..0.0).contains(&p.x) && (2.0..4.0).contains(&p.y) && (3.0..3.5).contains(&p.z));
        }
        // The mean of 10⁴ uniform draws is 1/2 within 4 standard deviations (0.0115).
        assert!((sum / 10_000.0 - 0.5).abs() < 0.0115, "{}", sum / 10_000.0);
        // Every value of `below` turns up.
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[rng.below(5)] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
