//! The error type of shape constructors and queries.
//!
//! ```
//! use geom_core::GeomError;
//!
//! let error = GeomError::invalid("sphere", "radius", -1.0, "must be finite and >= 0");
//! assert!(matches!(error, GeomError::InvalidParameter { parameter: "radius", .. }));
//! // The message names the shape, the parameter, the value and the rule.
//! assert_eq!(error.to_string(), "sphere: radius = -1.0 is invalid (must be finite and >= 0)");
//! assert_eq!(GeomError::NonFinite { input: "pose_a" }.to_string(), "pose_a is not finite");
//! ```

use std::fmt;

use crate::shape::ShapeKind;

/// Why a constructor or a query refused its input.
#[derive(Clone, Debug, PartialEq)]
pub enum GeomError {
    /// A shape parameter was out of its domain. The message names the shape,
    /// the parameter, its value and the rule it broke.
    InvalidParameter {
        /// The shape being built, e.g. `"sphere"`.
        shape: &'static str,
        /// The parameter name as the constructor spells it, e.g. `"radius"`.
        parameter: &'static str,
        /// The rejected value, printed.
        value: String,
        /// The rule the value broke, e.g. `"must be finite and >= 0"`.
        rule: &'static str,
    },
    /// A pair query has no routine for these two kinds of shape (neither a
    /// registered one nor the convex fallback).
    Unsupported {
        /// The kind of the first shape.
        a: ShapeKind,
        /// The kind of the second shape.
        b: ShapeKind,
    },
    /// A query input (a pose, a margin, a point) was NaN or infinite where
    /// a finite value is required; the message names it.
    NonFinite {
        /// The input, e.g. `"pose_a"`.
        input: &'static str,
    },
}

impl GeomError {
    /// Builds an [`GeomError::InvalidParameter`], printing `value` with `Debug`.
    pub fn invalid(
        shape: &'static str,
        parameter: &'static str,
        value: impl fmt::Debug,
        rule: &'static str,
    ) -> Self {
        GeomError::InvalidParameter {
            shape,
            parameter,
            value: format!("{value:?}"),
            rule,
        }
    }
}

impl fmt::Display for GeomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeomError::InvalidParameter {
                shape,
                parameter,
                value,
                rule,
            } => write!(f, "{shape}: {parameter} = {value} is invalid ({rule})"),
            GeomError::Unsupported { a, b } => {
                write!(f, "no routine for the pair {a:?}-{b:?} (and not both convex)")
            }
            GeomError::NonFinite { input } => write!(f, "{input} is not finite"),
        }
    }
}

impl std::error::Error for GeomError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_shape_parameter_value_and_rule() {
        let e = GeomError::invalid("sphere", "radius", -1.0f32, "must be finite and >= 0");
        assert_eq!(
            e.to_string(),
            "sphere: radius = -1.0 is invalid (must be finite and >= 0)"
        );
    }
}
