//! The two precisions a query line can ask for, and how their numbers are
//! read from JSON and printed back.

use std::fmt;
use std::sync::OnceLock;

use geom::{DispatchTable, Real};

/// A scalar type a query line can run in: `f32` or `f64`.
///
/// Input numbers arrive as `f64` (what `serde_json` parses) and are rounded
/// once to the line's precision. Output numbers are printed as the shortest
/// decimal that reads back to the same value in that precision.
pub trait Precision: Real + fmt::Display + fmt::LowerExp {
    /// The name used in the `"precision"` field: `"f32"` or `"f64"`.
    const NAME: &'static str;

    /// `value` rounded to this precision (may overflow to infinity).
    fn rounded_from_f64(value: f64) -> Self;

    /// This value widened (exactly) to `f64`.
    fn widened_to_f64(self) -> f64;

    /// The process-wide [`geom::default_dispatcher`] of this precision,
    /// built on first use.
    fn dispatcher() -> &'static DispatchTable<Self>;
}

impl Precision for f32 {
    const NAME: &'static str = "f32";

    fn rounded_from_f64(value: f64) -> Self {
        value as f32
    }

    fn widened_to_f64(self) -> f64 {
        f64::from(self)
    }

    fn dispatcher() -> &'static DispatchTable<Self> {
        static TABLE: OnceLock<DispatchTable<f32>> = OnceLock::new();
        TABLE.get_or_init(geom::default_dispatcher)
    }
}

impl Precision for f64 {
    const NAME: &'static str = "f64";

    fn rounded_from_f64(value: f64) -> Self {
        value
    }

    fn widened_to_f64(self) -> f64 {
        self
    }

    fn dispatcher() -> &'static DispatchTable<Self> {
        static TABLE: OnceLock<DispatchTable<f64>> = OnceLock::new();
        TABLE.get_or_init(geom::default_dispatcher)
    }
}

/// Magnitudes at or above this are printed in exponent form.
const EXPONENT_FROM: f64 = 1e16;
/// Non-zero magnitudes below this are printed in exponent form.
const EXPONENT_BELOW: f64 = 1e-5;

/// `value` as the shortest JSON number that reads back to the same value in
/// its own precision, or `None` for NaN and infinities (JSON has no such
/// numbers; callers treat them as "no answer").
///
/// Rust's `Display` and `{:e}` both print the shortest round-tripping digits;
/// the exponent form is used for very large and very small magnitudes so a
/// line never carries hundreds of zeros.
pub fn format_number<N: Precision>(value: N) -> Option<String> {
    if !value.is_finite() {
        return None;
    }
    let magnitude = value.widened_to_f64().abs();
    if magnitude != 0.0 && !(EXPONENT_BELOW..EXPONENT_FROM).contains(&magnitude) {
        Some(format!("{value:e}"))
    } else {
        Some(format!("{value}"))
    }
}

/// Three coordinates as a JSON array, or `None` if any is not finite.
pub fn format_vector<N: Precision>(coordinates: impl IntoIterator<Item = N>) -> Option<String> {
    let printed = coordinates
        .into_iter()
        .map(format_number)
        .collect::<Option<Vec<_>>>()?;
    Some(format!("[{}]", printed.join(",")))
}

/// The size of one unit in the last place of `value` rounded to `f32`: the
/// gap between its magnitude and the next larger `f32`.
pub fn f32_ulp_at(value: f64) -> f64 {
    let magnitude = (value as f32).abs();
    if !magnitude.is_finite() {
        return f64::INFINITY;
    }
    let next = f32::from_bits(magnitude.to_bits() + 1);
    f64::from(next) - f64::from(magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_numbers_print_plainly() {
        assert_eq!(format_number(1.0f64).as_deref(), Some("1"));
        assert_eq!(format_number(-2.5f64).as_deref(), Some("-2.5"));
        assert_eq!(format_number(0.0f64).as_deref(), Some("0"));
        assert_eq!(format_number(0.1f32).as_deref(), Some("0.1"));
        assert_eq!(format_number(12345.678f64).as_deref(), Some("12345.678"));
    }

    #[test]
    fn f32_numbers_print_their_own_shortest_digits() {
        // 0.1f32 widened to f64 is 0.10000000149011612; the f32 line must say 0.1.
        assert_eq!(format_number(0.1f32).as_deref(), Some("0.1"));
        assert_eq!(format_number(1.0f32 / 3.0).as_deref(), Some("0.33333334"));
    }

    #[test]
    fn extreme_magnitudes_use_exponents() {
        assert_eq!(format_number(1e300f64).as_deref(), Some("1e300"));
        assert_eq!(format_number(-1.5e-7f64).as_deref(), Some("-1.5e-7"));
        assert_eq!(format_number(3e38f32).as_deref(), Some("3e38"));
        assert_eq!(format_number(1e-5f64).as_deref(), Some("0.00001"));
    }

    #[test]
    fn printed_numbers_round_trip() {
        let f64_samples = [
            0.1,
            1.0 / 3.0,
            2.0f64.sqrt() * 1e-9,
            6.02214076e23,
            -123456.789e-300,
        ];
        for value in f64_samples {
            let printed = format_number(value).unwrap();
            assert_eq!(printed.parse::<f64>().unwrap(), value, "{printed}");
            let json: serde_json::Value = serde_json::from_str(&printed).unwrap();
            assert_eq!(json.as_f64(), Some(value));
        }
        let f32_samples = [0.1f32, 1.0 / 3.0, 1e-30, 3.4e38, -7.5e-6, f32::MIN_POSITIVE];
        for value in f32_samples {
            let printed = format_number(value).unwrap();
            assert_eq!(printed.parse::<f32>().unwrap(), value, "{printed}");
        }
    }

    #[test]
    fn non_finite_numbers_are_no_answer() {
        assert_eq!(format_number(f64::NAN), None);
        assert_eq!(format_number(f32::INFINITY), None);
        assert_eq!(format_vector([1.0, f64::NEG_INFINITY, 0.0]), None);
        assert_eq!(format_vector([1.0, -0.5, 2.0f32]).as_deref(), Some("[1,-0.5,2]"));
    }

    #[test]
    fn f32_ulp_is_the_gap_to_the_next_float() {
        assert_eq!(f32_ulp_at(1.0), f64::from(f32::EPSILON));
        assert_eq!(f32_ulp_at(-1.0), f64::from(f32::EPSILON));
        assert_eq!(f32_ulp_at(1e4), 1.0 / 1024.0);
    }
}
