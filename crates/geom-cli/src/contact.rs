//! `contact` lines: a heightfield against a sphere or a capsule, in either
//! order (DESIGN.md: contacts with a heightfield are answered both ways).
//! Other pairs wait for the dispatch table.

use geom::prelude::{Capsule, ContactManifolds, HeightField, Isometry3, Point3, Sphere, Translation3};
use geom::terrain::contact::{
    contact_capsule_heightfield, contact_heightfield_capsule, contact_heightfield_sphere,
    contact_sphere_heightfield,
};
use serde_json::Value;

use crate::fields::Fields;
use crate::precision::{Precision, format_number, format_vector};
use crate::scene::{SHAPE_TYPES, build_heightfield};

/// A shape a `contact` line can use.
#[derive(Debug)]
enum ContactShape<N: Precision> {
    Sphere {
        center: Point3<N>,
        sphere: Sphere<N>,
    },
    Capsule(Capsule<N>),
    HeightField(Box<HeightField<N>>),
    /// A valid shape type without contact support yet.
    Other(&'static str),
}

/// The shape at `path` (`"a"` or `"b"`), in world coordinates.
fn build_contact_shape<N: Precision>(
    description: &Value,
    path: &'static str,
) -> Result<ContactShape<N>, String> {
    let fields = Fields::of(description, path)?;
    match fields.string("type")? {
        "sphere" => {
            fields.reject_unknown(&["type", "center", "radius"], "a sphere")?;
            Ok(ContactShape::Sphere {
                center: fields.point::<N>("center")?,
                sphere: Sphere::try_new(fields.number::<N>("radius")?).map_err(|e| e.to_string())?,
            })
        }
        "capsule" => {
            fields.reject_unknown(&["type", "a", "b", "radius"], "a capsule")?;
            let capsule = Capsule::try_from_points(
                fields.point::<N>("a")?,
                fields.point::<N>("b")?,
                fields.number::<N>("radius")?,
            )
            .map_err(|e| e.to_string())?;
            Ok(ContactShape::Capsule(capsule))
        }
        "heightfield" => Ok(ContactShape::HeightField(Box::new(build_heightfield::<N>(
            &fields,
        )?))),
        other => match SHAPE_TYPES.iter().find(|known| **known == other) {
            Some(known) => Ok(ContactShape::Other(known)),
            None => Err(format!(
                "unknown shape type '{other}' in '{path}' (expected one of {})",
                SHAPE_TYPES.join(", ")
            )),
        },
    }
}

impl<N: Precision> ContactShape<N> {
    fn type_name(&self) -> &'static str {
        match self {
            ContactShape::Sphere { .. } => "sphere",
            ContactShape::Capsule(_) => "capsule",
            ContactShape::HeightField(_) => "heightfield",
            ContactShape::Other(name) => name,
        }
    }
}

/// `"contacts":[{"point_a":[…],"point_b":[…],"normal":[…],"depth":…},…]`
/// (without braces): every point of every manifold, with its manifold's
/// normal (from `a` to `b`); `depth > 0` means overlap.
pub fn contact<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(&["id", "op", "precision", "a", "b", "margin"], "op 'contact'")?;
    let a = build_contact_shape::<N>(fields.required("a")?, "a")?;
    let b = build_contact_shape::<N>(fields.required("b")?, "b")?;
    let margin = fields.number_or("margin", N::zero())?;
    if !(margin.is_finite() && margin >= N::zero()) {
        return Err(format!("margin: {margin} must be finite and >= 0"));
    }
    let identity = Isometry3::identity();
    let at =
        |center: &Point3<N>| Isometry3::from_parts(Translation3::from(center.coords), Default::default());
    let mut out = ContactManifolds::new();
    match (&a, &b) {
        (ContactShape::HeightField(field), ContactShape::Sphere { center, sphere }) => {
            contact_heightfield_sphere(field, &identity, sphere, &at(center), margin, &mut out);
        }
        (ContactShape::Sphere { center, sphere }, ContactShape::HeightField(field)) => {
            contact_sphere_heightfield(sphere, &at(center), field, &identity, margin, &mut out);
        }
        (ContactShape::HeightField(field), ContactShape::Capsule(capsule)) => {
            contact_heightfield_capsule(field, &identity, capsule, &identity, margin, &mut out);
        }
        (ContactShape::Capsule(capsule), ContactShape::HeightField(field)) => {
            contact_capsule_heightfield(capsule, &identity, field, &identity, margin, &mut out);
        }
        _ => {
            return Err(format!(
                "op 'contact' is not supported yet for {} and {} (only a heightfield with a sphere or a capsule, either order)",
                a.type_name(),
                b.type_name()
            ));
        }
    }
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
    let printed = printed.ok_or_else(|| {
        format!(
            "contact has no finite answer in {} (inputs too large for this precision?)",
            N::NAME
        )
    })?;
    Ok(format!("\"contacts\":[{}]", printed.join(",")))
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
                json!({"op": "contact", "a": sphere, "b": sphere}),
                "op 'contact' is not supported yet for sphere and sphere",
            ),
            (
                json!({"op": "contact", "a": ground(), "b": {"type": "blob"}}),
                "unknown shape type 'blob' in 'b'",
            ),
            (
                json!({"op": "contact", "a": ground(), "b": sphere, "margin": -1}),
                "margin: -1 must be finite and >= 0",
            ),
            (json!({"op": "contact", "a": ground()}), "missing field 'b'"),
            (
                json!({"op": "contact", "a": ground(), "b": {"type": "sphere", "center": [0, 0, 0], "radius": -1}}),
                "sphere: radius = -1.0 is invalid",
            ),
        ];
        for (line, expected) in cases {
            let error = answer(line);
            let message = error["error"].as_str().unwrap();
            assert!(message.starts_with(expected), "{message}");
        }
    }
}
