//! `geom query`: JSON lines in, one JSON line out per query, in order.
//!
//! Conventions beyond DESIGN.md:
//! - Every answer carries `"id"`: the input's `id` (any JSON value), or
//!   `null` when the line had none or could not be parsed.
//! - Blank (whitespace-only) lines are skipped without an answer; `"line"`
//!   in error answers still counts every physical line, from 1.
//! - Unknown fields are errors, so a misspelt optional field (`"Solid"`)
//!   is not silently replaced by its default.
//! - Numbers are read as the nearest `f64`; `f32` lines then round that to
//!   `f32` (the same as reading the decimal directly, except for decimals
//!   longer than an `f32` needs that sit almost exactly between two `f32`s).
//! - A query whose answer is not finite in its precision (inputs near the
//!   overflow limit of `f32`) answers an error rather than printing NaN.

use std::io::{self, BufRead, Write};

use geom::prelude::Ray;
use serde_json::Value;

use crate::fields::Fields;
use crate::pair::{closest_points, contact, distance};
use crate::precision::{Precision, format_number, format_vector};
use crate::scene::build_shape;
use crate::sweep::{slide, sweep};

/// How many lines a query run answered and how many of those were errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuerySummary {
    /// Lines that received an answer (blank lines are not counted).
    pub answered: usize,
    /// Answers that were errors.
    pub failed: usize,
}

/// One output line, without its newline, and whether it reports an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The JSON text of the answer.
    pub json: String,
    /// Whether the answer is an error.
    pub is_error: bool,
}

/// Answers every non-blank line of `input` on `output`, in order.
///
/// Only I/O failures are returned as errors; every problem with a line's
/// content is answered on that line and counted in the summary.
pub fn run_query(mut input: impl BufRead, output: impl Write) -> io::Result<QuerySummary> {
    let mut output = io::BufWriter::new(output);
    let mut summary = QuerySummary::default();
    let mut bytes = Vec::new();
    let mut line_number = 0;
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            break;
        }
        line_number += 1;
        let answer = match std::str::from_utf8(&bytes) {
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => answer_line(text, line_number),
            Err(_) => error_answer(&Value::Null, line_number, "the line is not valid UTF-8"),
        };
        summary.answered += 1;
        summary.failed += usize::from(answer.is_error);
        writeln!(output, "{}", answer.json)?;
    }
    output.flush()?;
    Ok(summary)
}

/// The answer to one input line (`line_number` counts from 1).
pub fn answer_line(text: &str, line_number: usize) -> Answer {
    let request: Value = match serde_json::from_str(text) {
        Ok(request) => request,
        Err(e) => return error_answer(&Value::Null, line_number, &format!("invalid JSON: {e}")),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    match answer_request(&request) {
        Ok(body) => Answer {
            json: format!("{{\"id\":{},{body}}}", json_text(&id)),
            is_error: false,
        },
        Err(message) => error_answer(&id, line_number, &message),
    }
}

fn error_answer(id: &Value, line_number: usize, message: &str) -> Answer {
    Answer {
        json: format!(
            "{{\"id\":{},\"line\":{line_number},\"error\":{}}}",
            json_text(id),
            json_text(&Value::from(message))
        ),
        is_error: true,
    }
}

fn json_text(value: &Value) -> String {
    // Serialising a `Value` only fails for non-string map keys, which a
    // parsed `Value` cannot hold.
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// The fields of a successful answer after `"id"`, or an error message.
fn answer_request(request: &Value) -> Result<String, String> {
    let fields = Fields::of(request, "")?;
    let op = fields.string("op")?;
    let precision = fields.optional_string("precision")?.unwrap_or("f64");
    if !matches!(precision, "f32" | "f64") {
        return Err(format!(
            "unknown precision '{precision}' (expected \"f32\" or \"f64\")"
        ));
    }
    match op {
        "ray_cast" | "closest_point" | "distance" | "closest_points" | "contact" | "sweep" | "slide"
        | "world" => {}
        other => {
            return Err(format!(
                "unknown op '{other}' (expected ray_cast, closest_point, distance, closest_points, \
                 contact, sweep, slide or world)"
            ));
        }
    }
    match (op, precision) {
        ("ray_cast", "f32") => ray_cast::<f32>(&fields),
        ("ray_cast", _) => ray_cast::<f64>(&fields),
        ("closest_point", "f32") => closest_point::<f32>(&fields),
        ("closest_point", _) => closest_point::<f64>(&fields),
        ("distance", "f32") => distance::<f32>(&fields),
        ("distance", _) => distance::<f64>(&fields),
        ("closest_points", "f32") => closest_points::<f32>(&fields),
        ("closest_points", _) => closest_points::<f64>(&fields),
        ("contact", "f32") => contact::<f32>(&fields),
        ("contact", _) => contact::<f64>(&fields),
        ("sweep", "f32") => sweep::<f32>(&fields),
        ("sweep", _) => sweep::<f64>(&fields),
        ("slide", "f32") => slide::<f32>(&fields),
        ("slide", _) => slide::<f64>(&fields),
        ("world", "f32") => crate::world_op::world::<f32>(&fields),
        _ => crate::world_op::world::<f64>(&fields),
    }
}

/// `{"hit":true,"t":…,"point":[…],"normal":[…]}` or `{"hit":false}` (without braces).
fn ray_cast<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(
        &["id", "op", "precision", "shape", "ray", "max_t", "solid"],
        "op 'ray_cast'",
    )?;
    let placed = build_shape::<N>(fields.required("shape")?)?;
    let ray_fields = fields.object("ray", "ray")?;
    ray_fields.reject_unknown(&["origin", "dir"], "a ray")?;
    let ray = Ray::new(ray_fields.point::<N>("origin")?, ray_fields.vector::<N>("dir")?);
    let max_t = fields.number_or("max_t", N::rounded_from_f64(f64::INFINITY))?;
    let solid = fields.bool_or("solid", true)?;
    let Some(hit) = placed.shape.ray_cast(&placed.pose, &ray, max_t, solid) else {
        return Ok("\"hit\":false".to_string());
    };
    let world_point = ray.origin + ray.dir * hit.t;
    let printed = (|| {
        Some(format!(
            "\"hit\":true,\"t\":{},\"point\":{},\"normal\":{}",
            format_number(hit.t)?,
            format_vector(world_point.coords.iter().copied())?,
            format_vector(hit.normal.iter().copied())?
        ))
    })();
    printed.ok_or_else(|| not_finite::<N>("ray_cast"))
}

/// `{"point":[…],"inside":…,"distance":…}` (without braces); the distance
/// is signed, negative inside.
fn closest_point<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(
        &["id", "op", "precision", "shape", "point", "solid"],
        "op 'closest_point'",
    )?;
    let placed = build_shape::<N>(fields.required("shape")?)?;
    let query_point = fields.point::<N>("point")?;
    let solid = fields.bool_or("solid", true)?;
    let projection = placed.shape.closest_point(&placed.pose, &query_point, solid);
    let distance = placed.shape.distance(&placed.pose, &query_point);
    let printed = (|| {
        let projection = projection?;
        Some(format!(
            "\"point\":{},\"inside\":{},\"distance\":{}",
            format_vector(projection.point.coords.iter().copied())?,
            projection.is_inside,
            format_number(distance?)?
        ))
    })();
    printed.ok_or_else(|| not_finite::<N>("closest_point"))
}

fn not_finite<N: Precision>(op: &str) -> String {
    format!(
        "{op} has no finite answer in {} (inputs too large for this precision?)",
        N::NAME
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> Answer {
        answer_line(text, 7)
    }

    fn parsed(text: &str) -> Value {
        serde_json::from_str(&answer(text).json).unwrap()
    }

    const SPHERE: &str = r#"{"type":"sphere","center":[0,0,5],"radius":1}"#;

    #[test]
    fn ray_cast_hit_prints_in_order() {
        let line = format!(
            r#"{{"id":"a","op":"ray_cast","shape":{SPHERE},"ray":{{"origin":[0,0,0],"dir":[0,0,2]}}}}"#
        );
        let answer = answer(&line);
        assert!(!answer.is_error);
        assert_eq!(
            answer.json,
            r#"{"id":"a","hit":true,"t":2,"point":[0,0,4],"normal":[0,0,-1]}"#
        );
    }

    #[test]
    fn ray_cast_respects_max_t_and_solid() {
        let miss = format!(
            r#"{{"id":1,"op":"ray_cast","shape":{SPHERE},"ray":{{"origin":[0,0,0],"dir":[0,0,1]}},"max_t":3.5}}"#
        );
        assert_eq!(answer(&miss).json, r#"{"id":1,"hit":false}"#);
        let hollow = format!(
            r#"{{"id":2,"op":"ray_cast","shape":{SPHERE},"ray":{{"origin":[0,0,5],"dir":[1,0,0]}},"solid":false}}"#
        );
        assert_eq!(
            answer(&hollow).json,
            r#"{"id":2,"hit":true,"t":1,"point":[1,0,5],"normal":[1,0,0]}"#
        );
    }

    #[test]
    fn f32_lines_print_f32_digits() {
        let line = r#"{"id":3,"op":"ray_cast","precision":"f32","shape":{"type":"sphere","center":[0,0,0],"radius":1},"ray":{"origin":[-3,0.1,0],"dir":[1,0,0]}}"#;
        let value = parsed(line);
        let t = value["t"].as_f64().unwrap() as f32;
        // The printed digits are the shortest that read back as this f32.
        assert!(
            answer(line).json.contains(&format!("\"t\":{t},")),
            "{}",
            answer(line).json
        );
        let expected = 3.0f32 - (1.0f32 - 0.1f32 * 0.1f32).sqrt();
        assert!((t - expected).abs() <= 2.0 * f32::EPSILON * 3.0, "{t}");
    }

    #[test]
    fn closest_point_reports_signed_distance() {
        let outside = format!(r#"{{"id":4,"op":"closest_point","shape":{SPHERE},"point":[0,3,5]}}"#);
        assert_eq!(
            answer(&outside).json,
            r#"{"id":4,"point":[0,1,5],"inside":false,"distance":2}"#
        );
        let inside = format!(r#"{{"op":"closest_point","shape":{SPHERE},"point":[0,0.5,5]}}"#);
        assert_eq!(
            answer(&inside).json,
            r#"{"id":null,"point":[0,0.5,5],"inside":true,"distance":-0.5}"#
        );
        let boundary =
            format!(r#"{{"id":5,"op":"closest_point","shape":{SPHERE},"point":[0,0.5,5],"solid":false}}"#);
        assert_eq!(
            answer(&boundary).json,
            r#"{"id":5,"point":[0,1,5],"inside":true,"distance":-0.5}"#
        );
    }

    #[test]
    fn errors_echo_id_and_line() {
        let cases = [
            ("{not json", Value::Null, "invalid JSON"),
            ("[1,2]", Value::Null, "line: expected a JSON object"),
            (
                r#"{"id":[1],"shape":{}}"#,
                serde_json::json!([1]),
                "missing field 'op'",
            ),
            (r#"{"id":1,"op":"fly"}"#, Value::from(1), "unknown op 'fly'"),
            (r#"{"id":1,"op":"contact"}"#, Value::from(1), "missing field 'a'"),
            (
                r#"{"id":1,"op":"sweep"}"#,
                Value::from(1),
                "missing field 'shape'",
            ),
            (
                r#"{"id":1,"op":"slide"}"#,
                Value::from(1),
                "missing field 'shape'",
            ),
            (
                r#"{"id":1,"op":"ray_cast","precision":"f16"}"#,
                Value::from(1),
                "unknown precision 'f16'",
            ),
            (
                r#"{"id":1,"op":"ray_cast","precision":32}"#,
                Value::from(1),
                "precision: expected a string",
            ),
            (
                r#"{"id":"x","op":"ray_cast"}"#,
                Value::from("x"),
                "missing field 'shape'",
            ),
            (
                &format!(r#"{{"id":1,"op":"ray_cast","shape":{SPHERE},"ray":{{"origin":[0,0,0]}}}}"#),
                Value::from(1),
                "missing field 'ray.dir'",
            ),
            (
                &format!(r#"{{"id":1,"op":"closest_point","shape":{SPHERE},"point":[0,0,0],"Solid":false}}"#),
                Value::from(1),
                "unknown field 'Solid'",
            ),
            (
                r#"{"id":1,"op":"closest_point","shape":{"type":"sphere","center":[0,0,0],"radius":-2},"point":[0,0,0]}"#,
                Value::from(1),
                "sphere: radius = -2.0 is invalid",
            ),
        ];
        for (line, id, expected) in cases {
            let answer = answer(line);
            assert!(answer.is_error, "{line}");
            let value: Value = serde_json::from_str(&answer.json).unwrap();
            assert_eq!(value["id"], id, "{line}");
            assert_eq!(value["line"], 7, "{line}");
            let message = value["error"].as_str().unwrap();
            assert!(message.starts_with(expected), "{line}: {message}");
        }
    }

    #[test]
    fn overflowing_answers_are_errors_not_nan() {
        let line = r#"{"id":1,"op":"closest_point","precision":"f32","shape":{"type":"sphere","center":[0,0,0],"radius":1},"point":[3e38,3e38,0]}"#;
        let answer = answer(line);
        assert!(answer.is_error, "{}", answer.json);
        assert!(!answer.json.contains("NaN") && !answer.json.contains("inf"));
    }

    #[test]
    fn run_skips_blank_lines_and_counts_failures() {
        let good = format!(r#"{{"id":1,"op":"closest_point","shape":{SPHERE},"point":[0,0,0]}}"#);
        let mut input = b"\n".to_vec();
        input.extend_from_slice(good.as_bytes());
        input.extend_from_slice(b"\r\n  \n\xff\nnope\n");
        let mut output = Vec::new();
        let summary = run_query(input.as_slice(), &mut output).unwrap();
        assert_eq!(
            summary,
            QuerySummary {
                answered: 3,
                failed: 2
            }
        );
        let text = String::from_utf8(output).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with(r#"{"id":1,"point":"#));
        assert_eq!(
            lines[1],
            r#"{"id":null,"line":4,"error":"the line is not valid UTF-8"}"#
        );
        assert!(lines[2].starts_with(r#"{"id":null,"line":5,"error":"invalid JSON"#));
    }
}
