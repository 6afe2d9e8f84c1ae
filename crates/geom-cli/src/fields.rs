//! Typed reads of JSON object fields with error messages that name the
//! field path, the expectation and what was found.

use geom::prelude::{Point3, Vector3};
use serde_json::{Map, Value};

use crate::precision::Precision;

/// Longest rendering of an offending JSON value inside an error message.
const SHOWN_VALUE_CHARS: usize = 40;

/// A JSON object together with its path in the input line (`"shape"`,
/// `"ray"`, or `""` for the line itself), for error messages.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a> {
    object: &'a Map<String, Value>,
    path: &'a str,
}

impl<'a> Fields<'a> {
    /// The object `value` found at `path`, or an error when it is not an object.
    pub fn of(value: &'a Value, path: &'a str) -> Result<Self, String> {
        match value {
            Value::Object(object) => Ok(Fields { object, path }),
            other => Err(format!(
                "{}: expected a JSON object, got {}",
                describe_path(path),
                shown(other)
            )),
        }
    }

    /// The dotted path of `key` inside this object, as printed in messages.
    pub fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// An error unless every key of the object is in `allowed` (catches
    /// misspelt optional fields, which would otherwise be silently ignored).
    pub fn reject_unknown(&self, allowed: &[&str], what: &str) -> Result<(), String> {
        match self.object.keys().find(|key| !allowed.contains(&key.as_str())) {
            None => Ok(()),
            Some(key) => Err(format!(
                "unknown field '{}' for {what} (expected {})",
                self.path_of(key),
                allowed.join(", ")
            )),
        }
    }

    /// The raw value of a field, if present.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.object.get(key)
    }

    /// The value of a required field.
    pub fn required(&self, key: &str) -> Result<&'a Value, String> {
        self.object
            .get(key)
            .ok_or_else(|| format!("missing field '{}'", self.path_of(key)))
    }

    /// A required string field.
    pub fn string(&self, key: &str) -> Result<&'a str, String> {
        let value = self.required(key)?;
        value
            .as_str()
            .ok_or_else(|| format!("{}: expected a string, got {}", self.path_of(key), shown(value)))
    }

    /// An optional string field.
    pub fn optional_string(&self, key: &str) -> Result<Option<&'a str>, String> {
        match self.object.get(key) {
            None => Ok(None),
            Some(_) => self.string(key).map(Some),
        }
    }

    /// An optional boolean field, `default` when absent.
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool, String> {
        match self.object.get(key) {
            None => Ok(default),
            Some(value) => value.as_bool().ok_or_else(|| {
                format!(
                    "{}: expected true or false, got {}",
                    self.path_of(key),
                    shown(value)
                )
            }),
        }
    }

    /// A required number rounded to precision `N`; it must stay finite there.
    pub fn number<N: Precision>(&self, key: &str) -> Result<N, String> {
        let value = self.required(key)?;
        finite_number(value, &self.path_of(key))
    }

    /// An optional number rounded to precision `N`, `default` when absent.
    /// Values beyond the range of `N` become infinities (allowed here: this
    /// is for limits such as `max_t`).
    pub fn number_or<N: Precision>(&self, key: &str, default: N) -> Result<N, String> {
        match self.object.get(key) {
            None => Ok(default),
            Some(value) => value
                .as_f64()
                .map(N::rounded_from_f64)
                .ok_or_else(|| format!("{}: expected a number, got {}", self.path_of(key), shown(value))),
        }
    }

    /// A required array of `LEN` finite numbers in precision `N`.
    pub fn numbers<N: Precision, const LEN: usize>(&self, key: &str) -> Result<[N; LEN], String> {
        let value = self.required(key)?;
        let path = self.path_of(key);
        let expectation = || format!("{path}: expected an array of {LEN} numbers, got {}", shown(value));
        let items = value.as_array().ok_or_else(expectation)?;
        if items.len() != LEN {
            return Err(expectation());
        }
        let mut numbers = [N::zero(); LEN];
        for (index, (slot, item)) in numbers.iter_mut().zip(items).enumerate() {
            *slot = finite_number(item, &format!("{path}[{index}]"))?;
        }
        Ok(numbers)
    }

    /// A required point `[x, y, z]` in precision `N`.
    pub fn point<N: Precision>(&self, key: &str) -> Result<Point3<N>, String> {
        self.numbers::<N, 3>(key).map(Point3::from)
    }

    /// A required vector `[x, y, z]` in precision `N`.
    pub fn vector<N: Precision>(&self, key: &str) -> Result<Vector3<N>, String> {
        self.numbers::<N, 3>(key).map(Vector3::from)
    }

    /// A required array of finite numbers in precision `N`, of any length.
    pub fn number_list<N: Precision>(&self, key: &str) -> Result<Vec<N>, String> {
        let value = self.required(key)?;
        let path = self.path_of(key);
        let items = value
            .as_array()
            .ok_or_else(|| format!("{path}: expected an array of numbers, got {}", shown(value)))?;
        items
            .iter()
            .enumerate()
            .map(|(index, item)| finite_number(item, &format!("{path}[{index}]")))
            .collect()
    }

    /// A required array of points `[[x, y, z], …]` in precision `N`.
    pub fn point_list<N: Precision>(&self, key: &str) -> Result<Vec<Point3<N>>, String> {
        let value = self.required(key)?;
        let path = self.path_of(key);
        let items = value.as_array().ok_or_else(|| {
            format!(
                "{path}: expected an array of [x, y, z] points, got {}",
                shown(value)
            )
        })?;
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let point_path = format!("{path}[{index}]");
                let coordinates = item
                    .as_array()
                    .filter(|c| c.len() == 3)
                    .ok_or_else(|| format!("{point_path}: expected [x, y, z], got {}", shown(item)))?;
                let mut point = Point3::origin();
                for (k, c) in coordinates.iter().enumerate() {
                    point[k] = finite_number(c, &format!("{point_path}[{k}]"))?;
                }
                Ok(point)
            })
            .collect()
    }

    /// A required array of triangles `[[i, j, k], …]` (vertex indices).
    pub fn triangle_list(&self, key: &str) -> Result<Vec<[u32; 3]>, String> {
        let value = self.required(key)?;
        let path = self.path_of(key);
        let items = value.as_array().ok_or_else(|| {
            format!(
                "{path}: expected an array of [i, j, k] triangles, got {}",
                shown(value)
            )
        })?;
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let expectation = || {
                    format!(
                        "{path}[{index}]: expected three vertex indices [i, j, k], got {}",
                        shown(item)
                    )
                };
                let corners = item.as_array().filter(|c| c.len() == 3).ok_or_else(expectation)?;
                let mut triangle = [0u32; 3];
                for (slot, corner) in triangle.iter_mut().zip(corners) {
                    *slot = corner
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(expectation)?;
                }
                Ok(triangle)
            })
            .collect()
    }

    /// A required non-negative integer (a count or an index).
    pub fn count(&self, key: &str) -> Result<usize, String> {
        let value = self.required(key)?;
        as_count(value).ok_or_else(|| {
            format!(
                "{}: expected a non-negative integer, got {}",
                self.path_of(key),
                shown(value)
            )
        })
    }

    /// An optional array of non-negative integers, empty when absent.
    pub fn count_list_or_empty(&self, key: &str) -> Result<Vec<usize>, String> {
        let Some(value) = self.object.get(key) else {
            return Ok(Vec::new());
        };
        let path = self.path_of(key);
        let items = value.as_array().ok_or_else(|| {
            format!(
                "{path}: expected an array of non-negative integers, got {}",
                shown(value)
            )
        })?;
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                as_count(item).ok_or_else(|| {
                    format!(
                        "{path}[{index}]: expected a non-negative integer, got {}",
                        shown(item)
                    )
                })
            })
            .collect()
    }

    /// A required nested object.
    pub fn object(&self, key: &str, path: &'a str) -> Result<Fields<'a>, String> {
        Fields::of(self.required(key)?, path)
    }
}

/// A JSON integer `>= 0` that fits a `usize`.
fn as_count(value: &Value) -> Option<usize> {
    value.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// A JSON number rounded to `N`, refusing non-numbers and values that
/// overflow `N` (a coordinate of 1e39 is infinite in `f32`).
fn finite_number<N: Precision>(value: &Value, path: &str) -> Result<N, String> {
    let wide = value
        .as_f64()
        .ok_or_else(|| format!("{path}: expected a number, got {}", shown(value)))?;
    let rounded = N::rounded_from_f64(wide);
    if rounded.is_finite() {
        Ok(rounded)
    } else {
        Err(format!("{path}: {wide:e} is not finite in {}", N::NAME))
    }
}

fn describe_path(path: &str) -> &str {
    if path.is_empty() { "line" } else { path }
}

/// A JSON value printed for an error message, shortened if long.
pub fn shown(value: &Value) -> String {
    let printed = value.to_string();
    if printed.chars().count() <= SHOWN_VALUE_CHARS {
        printed
    } else {
        let head: String = printed.chars().take(SHOWN_VALUE_CHARS).collect();
        format!("{head}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_typed_fields() {
        let value = json!({"r": 2.5, "p": [1, 2, 3], "s": "x", "b": false});
        let fields = Fields::of(&value, "shape").unwrap();
        assert_eq!(fields.number::<f64>("r"), Ok(2.5));
        assert_eq!(fields.point::<f32>("p"), Ok(Point3::new(1.0, 2.0, 3.0)));
        assert_eq!(fields.string("s"), Ok("x"));
        assert_eq!(fields.bool_or("b", true), Ok(false));
        assert_eq!(fields.bool_or("missing", true), Ok(true));
        assert_eq!(
            fields.number_or::<f64>("missing", f64::INFINITY),
            Ok(f64::INFINITY)
        );
    }

    #[test]
    fn errors_name_the_path_and_the_value() {
        let value = json!({"r": "big", "p": [1, 2], "q": [1, "2", 3], "f": 1e39});
        let fields = Fields::of(&value, "shape").unwrap();
        assert_eq!(
            fields.number::<f64>("r"),
            Err("shape.r: expected a number, got \"big\"".to_string())
        );
        assert_eq!(
            fields.point::<f64>("p"),
            Err("shape.p: expected an array of 3 numbers, got [1,2]".to_string())
        );
        assert_eq!(
            fields.point::<f64>("q"),
            Err("shape.q[1]: expected a number, got \"2\"".to_string())
        );
        assert_eq!(
            fields.number::<f32>("f"),
            Err("shape.f: 1e39 is not finite in f32".to_string())
        );
        assert_eq!(fields.number::<f64>("f"), Ok(1e39));
        assert_eq!(
            fields.number::<f64>("x"),
            Err("missing field 'shape.x'".to_string())
        );
        assert!(
            fields
                .reject_unknown(&["r", "p", "q"], "a sphere")
                .unwrap_err()
                .contains("unknown field 'shape.f'")
        );
        assert_eq!(
            Fields::of(&json!([1]), "").unwrap_err(),
            "line: expected a JSON object, got [1]"
        );
    }

    #[test]
    fn long_values_are_shortened() {
        let value = json!({"p": vec![1.5; 100]});
        let fields = Fields::of(&value, "").unwrap();
        let message = fields.point::<f64>("p").unwrap_err();
        assert!(message.len() < 120, "{message}");
        assert!(message.ends_with('…'));
    }
}
