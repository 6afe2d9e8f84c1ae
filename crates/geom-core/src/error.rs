//! The error type of shape constructors and queries.

use std::fmt;

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
