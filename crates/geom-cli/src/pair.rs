//! Lines about a pair of shapes: `contact`, `distance` and
//! `closest_points`, for any pair through the default dispatch table
//! (DESIGN.md: normals from `a` to `b`, every pair in either order, two
//! heightfields excepted).

use geom::GeomError;
use geom::prelude::{ClosestPoints, ContactManifolds};

use crate::fields::Fields;
use crate::precision::{Precision, format_number, format_vector};
use crate::scene::{PlacedShape, build_shape};

/// The shapes `a` and `b` of a pair line.
fn pair<N: Precision>(fields: &Fields) -> Result<(PlacedShape<N>, PlacedShape<N>), String> {
    let a = build_shape::<N>(fields.required("a")?).map_err(|e| format!("a: {e}"))?;
    let b = build_shape::<N>(fields.required("b")?).map_err(|e| format!("b: {e}"))?;
    Ok((a, b))
}

/// The message of a dispatch-table error on a pair line.
fn table_error(error: GeomError, op: &str, fields: &Fields) -> String {
    let kind = |field: &str| {
        fields
            .required(field)
            .ok()
            .and_then(|v| v["type"].as_str())
            .unwrap_or("?")
            .to_string()
    };
    match error {
        GeomError::Unsupported { .. } => {
            format!("op '{op}' is not supported for {} and {}", kind("a"), kind("b"))
        }
        other => other.to_string(),
    }
}

fn not_finite<N: Precision>(op: &str) -> String {
    format!(
        "{op} has no finite answer in {} (inputs too large for this precision?)",
        N::NAME
    )
}

/// `"contacts":[{"point_a":[…],"point_b":[…],"normal":[…],"depth":…},…]`
/// (without braces): every point of every manifold, with its manifold's
/// normal (from `a` to `b`); `depth > 0` means overlap.
pub fn contact<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(&["id", "op", "precision", "a", "b", "margin"], "op 'contact'")?;
    let (a, b) = pair::<N>(fields)?;
    let margin = fields.number_or("margin", N::zero())?;
    if !(margin.is_finite() && margin >= N::zero()) {
        return Err(format!("margin: {margin} must be finite and >= 0"));
    }
    let mut out = ContactManifolds::new();
    N::dispatcher()
        .contact(
            a.shape.as_ref(),
            &a.pose,
            b.shape.as_ref(),
            &b.pose,
            margin,
            &mut out,
        )
        .map_err(|e| table_error(e, "contact", fields))?;
    let printed: Option<Vec<String>> = out
        .points()
        .map(|(normal, point)| {
            Some(format!(
                "{{\"point_a\":{},\"point_b\":{},\"normal\":{},\"depth\":{}}}",
                format_vector(point.point_a.coords.iter().copied())?,
                format_vector(point.point_b.coords.iter().copied())?,
                format_vector(normal.iter().copied())?,
                format_number(point.depth)?
            ))
        })
        .collect();
    let printed = printed.ok_or_else(|| not_finite::<N>("contact"))?;
    Ok(format!("\"contacts\":[{}]", printed.join(",")))
}

/// `"distance":…` (without braces): `0` when the shapes touch or overlap.
pub fn distance<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(&["id", "op", "precision", "a", "b"], "op 'distance'")?;
    let (a, b) = pair::<N>(fields)?;
    let distance = N::dispatcher()
        .distance(a.shape.as_ref(), &a.pose, b.shape.as_ref(), &b.pose)
        .map_err(|e| table_error(e, "distance", fields))?;
    format_number(distance)
        .map(|distance| format!("\"distance\":{distance}"))
        .ok_or_else(|| not_finite::<N>("distance"))
}

/// `"status":"within","distance":…,"point_a":[…],"point_b":[…]`, or
/// `"status":"intersecting"`, or `"status":"beyond"` (farther apart than
/// `max_distance`), without braces.
pub fn closest_points<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(
        &["id", "op", "precision", "a", "b", "max_distance"],
        "op 'closest_points'",
    )?;
    let (a, b) = pair::<N>(fields)?;
    let max_distance = fields.number_or("max_distance", N::rounded_from_f64(f64::INFINITY))?;
    if matches!(
        max_distance.partial_cmp(&N::zero()),
        None | Some(std::cmp::Ordering::Less)
    ) {
        return Err(format!("max_distance: {max_distance} must be >= 0"));
    }
    let answer = N::dispatcher()
        .closest_points(a.shape.as_ref(), &a.pose, b.shape.as_ref(), &b.pose, max_distance)
        .map_err(|e| table_error(e, "closest_points", fields))?;
    match answer {
        ClosestPoints::Intersecting => Ok("\"status\":\"intersecting\"".to_string()),
        ClosestPoints::Disjoint => Ok("\"status\":\"beyond\"".to_string()),
        ClosestPoints::WithinMargin { point_a, point_b } => {
            let printed = (|| {
                Some(format!(
                    "\"status\":\"within\",\"distance\":{},\"point_a\":{},\"point_b\":{}",
                    format_number((point_b - point_a).norm())?,
                    format_vector(point_a.coords.iter().copied())?,
                    format_vector(point_b.coords.iter().copied())?
                ))
            })();
            printed.ok_or_else(|| not_finite::<N>("closest_points"))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::query::answer_line;
    use serde_json::{Value, json};

    fn answer(line: Value) -> Value {
        serde_json::from_str(&answer_line(&line.to_string(), 1).json).unwrap()
    }

    /// Flat ground at y = 1 over [0, 4] × [0, 4], cell (1, 1) a hole.
    fn ground() -> Value {
        json!({"type": "heightfield", "origin": [0, 1, 0], "cell": [1, 1], "rows": 5, "cols": 5,
               "heights": vec![0; 25], "holes": [5]})
    }

    #[test]
    fn sphere_on_flat_ground_both_orders() {
        // Centre 0.4 above the ground, radius 0.5: depth 0.1, normal +y from
        // the ground, the ground point straight below, the sphere's lowest
        // point at y = 0.9.
        let sphere = json!({"type": "sphere", "center": [2.5, 1.4, 0.5], "radius": 0.5});
        let forward = answer(json!({"id": 1, "op": "contact", "a": ground(), "b": sphere}));
        assert_eq!(forward["id"], 1);
        let contacts = forward["contacts"].as_array().unwrap();
        assert_eq!(contacts.len(), 1, "{forward}");
        assert_eq!(contacts[0]["normal"], json!([0, 1, 0]));
        assert_eq!(contacts[0]["point_a"], json!([2.5, 1, 0.5]));
        assert_eq!(contacts[0]["point_b"], json!([2.5, 0.8999999999999999, 0.5]));
        assert!((contacts[0]["depth"].as_f64().unwrap() - 0.1).abs() < 1e-15);
        let reverse = answer(json!({"id": 2, "op": "contact", "a": sphere, "b": ground()}));
        let contacts = reverse["contacts"].as_array().unwrap();
        assert_eq!(contacts[0]["normal"], json!([-0.0, -1, -0.0]));
        assert_eq!(contacts[0]["point_b"], json!([2.5, 1, 0.5]));
        // Over the hole: nothing.
        let over_hole = json!({"type": "sphere", "center": [1.5, 1.4, 1.5], "radius": 0.3});
        assert_eq!(
            answer(json!({"id": 3, "op": "contact", "a": ground(), "b": over_hole})),
            json!({"id": 3, "contacts": []})
        );
    }

    #[test]
    fn capsule_margin_and_errors() {
        // A capsule lying along x, 0.2 above the ground: only within margin.
        let capsule = json!({"type": "capsule", "a": [0.5, 1.7, 3.5], "b": [3.5, 1.7, 3.5], "radius": 0.5});
        let touching = answer(json!({"op": "contact", "a": capsule, "b": ground(), "margin": 0.25}));
        let contacts = touching["contacts"].as_array().unwrap();
        assert!(!contacts.is_empty() && contacts.len() <= 4, "{touching}");
        for contact in contacts {
            assert_eq!(contact["normal"], json!([-0.0, -1, -0.0]));
            assert!((contact["depth"].as_f64().unwrap() + 0.2).abs() < 1e-15);
        }
        let apart = answer(json!({"op": "contact", "a": capsule, "b": ground()}));
        assert_eq!(apart["contacts"], json!([]));
        let f32_line =
            answer(json!({"op": "contact", "precision": "f32", "a": capsule, "b": ground(), "margin": 0.25}));
        assert_eq!(f32_line["contacts"].as_array().unwrap().len(), contacts.len());

        let sphere = json!({"type": "sphere", "center": [0, 0, 0], "radius": 1});
        let cases = [
            (
                json!({"op": "contact", "a": ground(), "b": ground()}),
                "op 'contact' is not supported for heightfield and heightfield",
            ),
            (
                json!({"op": "contact", "a": ground(), "b": {"type": "blob"}}),
                "b: unknown shape type 'blob'",
            ),
            (
                json!({"op": "contact", "a": ground(), "b": sphere, "margin": -1}),
                "margin: -1 must be finite and >= 0",
            ),
            (json!({"op": "contact", "a": ground()}), "missing field 'b'"),
            (
                json!({"op": "contact", "a": ground(), "b": {"type": "sphere", "center": [0, 0, 0], "radius": -1}}),
                "b: sphere: radius = -1.0 is invalid",
            ),
        ];
        for (line, expected) in cases {
            let error = answer(line);
            let message = error["error"].as_str().unwrap();
            assert!(message.starts_with(expected), "{message}");
        }
    }

    fn depths_and_normals(line: Value) -> Vec<(f64, [f64; 3])> {
        let answer = answer(line);
        answer["contacts"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|c| {
                let n = c["normal"].as_array().unwrap();
                (
                    c["depth"].as_f64().unwrap(),
                    [0, 1, 2].map(|k| n[k].as_f64().unwrap()),
                )
            })
            .collect()
    }

    #[test]
    fn every_primitive_pair_answers_through_the_dispatcher() {
        // Two spheres 1.5 apart along (3, 4, 0)/5, radii 1 and 0.8: depth 0.3.
        let a = json!({"type": "sphere", "center": [1, 2, 3], "radius": 1});
        let b = json!({"type": "sphere", "center": [1.9, 3.2, 3], "radius": 0.8});
        let contacts = depths_and_normals(json!({"op": "contact", "a": a, "b": b}));
        assert_eq!(contacts.len(), 1);
        assert!((contacts[0].0 - 0.3).abs() < 1e-12, "{contacts:?}");
        let n = contacts[0].1;
        assert!((n[0] - 0.6).abs() < 1e-12 && (n[1] - 0.8).abs() < 1e-12 && n[2].abs() < 1e-12);
        // A unit box resting 0.05 deep on the half-space y <= 0, turned about
        // y: four corners at depth 0.05, normal from the ground up.
        let ground = json!({"type": "halfspace", "normal": [0, 1, 0], "offset": 0});
        let crate_box = json!({"type": "box", "center": [3, 0.45, -2], "half_extents": [0.5, 0.5, 0.5],
                               "rotation": [0, 0.38268343236508984, 0, 0.9238795325112867]});
        let contacts = depths_and_normals(json!({"op": "contact", "a": ground, "b": crate_box}));
        assert_eq!(contacts.len(), 4, "{contacts:?}");
        for (depth, normal) in &contacts {
            assert!(
                (depth - 0.05).abs() < 1e-12 && normal == &[0.0, 1.0, 0.0],
                "{contacts:?}"
            );
        }
        // Shapes with no analytic routine (cylinder against cone) go through
        // GJK/EPA: a cylinder standing 0.1 into a cone's base from above.
        let cylinder = json!({"type": "cylinder", "a": [0, 0.9, 0], "b": [0, 2, 0], "radius": 0.3});
        let cone = json!({"type": "cone", "apex": [0, -1, 0], "base": [0, 1, 0], "radius": 1});
        let contacts = depths_and_normals(json!({"op": "contact", "a": cone, "b": cylinder, "margin": 0.01}));
        assert!(!contacts.is_empty());
        let (depth, normal) = contacts[0];
        assert!(
            (depth - 0.1).abs() < 1e-6 && (normal[1] - 1.0).abs() < 1e-6,
            "{contacts:?}"
        );
        // Apart beyond the margin: no contacts, not an error.
        let far = json!({"type": "sphere", "center": [10, 0, 0], "radius": 1});
        assert!(depths_and_normals(json!({"op": "contact", "a": far, "b": cylinder})).is_empty());
    }

    #[test]
    fn distance_and_closest_points_lines() {
        // A capsule along x at height 3 (radius 0.5) over a unit box resting
        // at the origin: 3 − 0.5 − 1 = 1.5 apart, points straight above the
        // box's top face.
        let capsule = json!({"type": "capsule", "a": [-0.25, 3, 0.25], "b": [0.25, 3, 0.25], "radius": 0.5});
        let crate_box = json!({"type": "box", "center": [0, 0, 0], "half_extents": [1, 1, 1]});
        for precision in ["f64", "f32"] {
            let forward = answer(
                json!({"id": 1, "op": "distance", "precision": precision, "a": capsule, "b": crate_box}),
            );
            assert_eq!(forward, json!({"id": 1, "distance": 1.5}));
            let points =
                answer(json!({"op": "closest_points", "precision": precision, "a": crate_box, "b": capsule}));
            assert_eq!(points["status"], json!("within"), "{points}");
            assert_eq!(points["distance"], json!(1.5));
            let (a, b) = (&points["point_a"], &points["point_b"]);
            assert_eq!((a[1].clone(), b[1].clone()), (json!(1), json!(2.5)), "{points}");
            assert_eq!(
                (a[2].clone(), b[2].clone()),
                (json!(0.25), json!(0.25)),
                "{points}"
            );
            assert_eq!(a[0], b[0]);
            assert!(a[0].as_f64().unwrap().abs() <= 0.25);
        }
        let near = json!({"op": "closest_points", "a": crate_box, "b": capsule, "max_distance": 1.0});
        assert_eq!(answer(near)["status"], json!("beyond"));
        let sunk = json!({"type": "sphere", "center": [0, 1.2, 0], "radius": 0.5});
        assert_eq!(
            answer(json!({"op": "closest_points", "a": sunk, "b": crate_box}))["status"],
            json!("intersecting")
        );
        assert_eq!(
            answer(json!({"op": "distance", "a": sunk, "b": crate_box}))["distance"],
            json!(0)
        );
        let bad = answer(json!({"op": "closest_points", "a": sunk, "b": crate_box, "max_distance": -1}));
        assert!(
            bad["error"].as_str().unwrap().starts_with("max_distance: -1"),
            "{bad}"
        );
        let extra = answer(json!({"op": "distance", "a": sunk, "b": crate_box, "margin": 1}));
        assert!(
            extra["error"]
                .as_str()
                .unwrap()
                .contains("unknown field 'margin'"),
            "{extra}"
        );
    }
}
