//! JSON shape descriptions (world coordinates, as in DESIGN.md) turned into
//! geom shapes and their poses, in either precision.
//!
//! Centre-defined shapes (sphere, ellipsoid, box) become a shape in its local
//! frame placed by a pose whose translation is the centre and whose rotation
//! is the normalised `"rotation"` quaternion `[x, y, z, w]`. Shapes defined
//! by points (capsule, cylinder, cone, triangle, segment) and the half-space
//! keep their world coordinates under the identity pose, so they work with
//! their defining points directly.

use geom::nalgebra::Quaternion;
use geom::prelude::{
    HeightField, HeightFieldDesc, Isometry3, Point3, Shape, Sphere, Translation3, UnitQuaternion,
};
use serde_json::Value;

use crate::fields::Fields;
use crate::precision::Precision;

/// A shape and where it sits in the world.
#[derive(Debug)]
pub struct PlacedShape<N: Precision> {
    /// The shape in its local frame.
    pub shape: Box<dyn Shape<N>>,
    /// Local-to-world placement.
    pub pose: Isometry3<N>,
}

/// The `"type"` names a description may use, in the order DESIGN.md lists them.
pub const SHAPE_TYPES: [&str; 13] = [
    "sphere",
    "capsule",
    "cylinder",
    "cone",
    "ellipsoid",
    "box",
    "halfspace",
    "triangle",
    "segment",
    "heightfield",
    "trimesh",
    "hull",
    "compound",
];

/// Builds the shape described by the JSON object `description` in precision
/// `N`. Errors say which field is missing or wrong, or carry the shape's own
/// [`GeomError`](geom::GeomError) message for invalid parameters.
pub fn build_shape<N: Precision>(description: &Value) -> Result<PlacedShape<N>, String> {
    let fields = Fields::of(description, "shape")?;
    let kind = fields.string("type")?;
    match kind {
        "sphere" => build_sphere(&fields),
        "capsule" => build_capsule(&fields),
        "cylinder" => build_cylinder(&fields),
        "cone" => build_cone(&fields),
        "ellipsoid" => build_ellipsoid(&fields),
        "box" => build_box(&fields),
        "halfspace" => build_halfspace(&fields),
        "triangle" => build_triangle(&fields),
        "segment" => build_segment(&fields),
        "heightfield" => Ok(at_identity(build_heightfield::<N>(&fields)?)),
        "trimesh" => build_trimesh(&fields),
        "hull" => build_hull(&fields),
        "compound" => build_compound(&fields),
        other => Err(format!(
            "unknown shape type '{other}' (expected one of {})",
            SHAPE_TYPES.join(", ")
        )),
    }
}

/// A heightfield from its JSON description (DESIGN.md's layout: `origin`,
/// `cell` `[dx, dz]`, `rows`, `cols`, `heights` row-major, optional
/// `holes` and `flip` cell indices), in world coordinates under the
/// identity pose. Invalid values carry the heightfield's own message.
pub fn build_heightfield<N: Precision>(fields: &Fields) -> Result<HeightField<N>, String> {
    fields.reject_unknown(
        &[
            "type", "origin", "cell", "rows", "cols", "heights", "holes", "flip",
        ],
        "a heightfield",
    )?;
    let mut desc = HeightFieldDesc::new(
        fields.point::<N>("origin")?,
        fields.numbers::<N, 2>("cell")?,
        fields.count("rows")?,
        fields.count("cols")?,
        fields.number_list::<N>("heights")?,
    );
    desc.hole_cells = fields.count_list_or_empty("holes")?;
    desc.flipped_cells = fields.count_list_or_empty("flip")?;
    HeightField::try_from_desc(desc).map_err(|e| e.to_string())
}

/// A shape in world coordinates under the identity pose.
fn at_identity<N: Precision>(shape: impl Shape<N> + 'static) -> PlacedShape<N> {
    PlacedShape {
        shape: Box::new(shape),
        pose: Isometry3::identity(),
    }
}

/// A shape placed at `center`, turned by the unit quaternion `rotation`.
fn centred<N: Precision>(
    shape: impl Shape<N> + 'static,
    center: Point3<N>,
    rotation: UnitQuaternion<N>,
) -> PlacedShape<N> {
    PlacedShape {
        shape: Box::new(shape),
        pose: Isometry3::from_parts(Translation3::from(center.coords), rotation),
    }
}

fn build_sphere<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "center", "radius"], "a sphere")?;
    let center = fields.point::<N>("center")?;
    let sphere = Sphere::try_new(fields.number::<N>("radius")?).map_err(|e| e.to_string())?;
    Ok(centred(sphere, center, UnitQuaternion::identity()))
}

fn build_capsule<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "a", "b", "radius"], "a capsule")?;
    let (a, b) = (fields.point::<N>("a")?, fields.point::<N>("b")?);
    let capsule =
        geom::Capsule::try_from_points(a, b, fields.number::<N>("radius")?).map_err(|e| e.to_string())?;
    Ok(at_identity(capsule))
}

fn build_cylinder<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "a", "b", "radius"], "a cylinder")?;
    let (a, b) = (fields.point::<N>("a")?, fields.point::<N>("b")?);
    let cylinder =
        geom::Cylinder::try_from_points(a, b, fields.number::<N>("radius")?).map_err(|e| e.to_string())?;
    Ok(at_identity(cylinder))
}

fn build_cone<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "apex", "base", "radius"], "a cone")?;
    let (apex, base) = (fields.point::<N>("apex")?, fields.point::<N>("base")?);
    let cone =
        geom::Cone::try_from_points(apex, base, fields.number::<N>("radius")?).map_err(|e| e.to_string())?;
    Ok(at_identity(cone))
}

fn build_ellipsoid<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "center", "radii", "rotation"], "an ellipsoid")?;
    let center = fields.point::<N>("center")?;
    let rotation = rotation(fields)?;
    let ellipsoid = geom::Ellipsoid::try_new(fields.vector::<N>("radii")?).map_err(|e| e.to_string())?;
    Ok(centred(ellipsoid, center, rotation))
}

fn build_box<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "center", "half_extents", "rotation"], "a box")?;
    let center = fields.point::<N>("center")?;
    let rotation = rotation(fields)?;
    let cuboid = geom::Cuboid::try_new(fields.vector::<N>("half_extents")?).map_err(|e| e.to_string())?;
    Ok(centred(cuboid, center, rotation))
}

fn build_halfspace<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "normal", "offset"], "a halfspace")?;
    let normal = fields.vector::<N>("normal")?;
    let offset = fields.number::<N>("offset")?;
    // The line means `normal · x <= offset` for the normal as given, as
    // geom's half-space does.
    let halfspace = geom::HalfSpace::try_new(normal, offset).map_err(|e| e.to_string())?;
    Ok(at_identity(halfspace))
}

fn build_triangle<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "a", "b", "c"], "a triangle")?;
    let (a, b, c) = (
        fields.point::<N>("a")?,
        fields.point::<N>("b")?,
        fields.point::<N>("c")?,
    );
    let triangle = geom::Triangle::try_new(a, b, c).map_err(|e| e.to_string())?;
    Ok(at_identity(triangle))
}

fn build_segment<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "a", "b"], "a segment")?;
    let (a, b) = (fields.point::<N>("a")?, fields.point::<N>("b")?);
    let segment = geom::Segment::try_new(a, b).map_err(|e| e.to_string())?;
    Ok(at_identity(segment))
}

/// A triangle mesh: `vertices` `[[x, y, z], …]` and `indices` `[[i, j,
/// k], …]` (counter-clockwise about the front), world coordinates.
fn build_trimesh<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "vertices", "indices"], "a trimesh")?;
    let mesh = geom::TriMesh::new(
        fields.point_list::<N>("vertices")?,
        fields.triangle_list("indices")?,
    )
    .map_err(|e| e.to_string())?;
    Ok(at_identity(mesh))
}

/// The convex hull of `points` `[[x, y, z], …]`, world coordinates.
fn build_hull<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "points"], "a hull")?;
    let hull = geom::ConvexHull::new(&fields.point_list::<N>("points")?).map_err(|e| e.to_string())?;
    Ok(at_identity(hull))
}

/// A compound of `children`: shape descriptions, each in world
/// coordinates (a compound child included).
fn build_compound<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    fields.reject_unknown(&["type", "children"], "a compound")?;
    let list = fields.required("children")?;
    let path = fields.path_of("children");
    let items = list.as_array().ok_or_else(|| {
        format!(
            "{path}: expected an array of shapes, got {}",
            crate::fields::shown(list)
        )
    })?;
    let mut children = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let child = build_shape::<N>(item).map_err(|e| format!("{path}[{index}]: {e}"))?;
        children.push((child.pose, std::sync::Arc::from(child.shape)));
    }
    let compound = geom::Compound::new(children).map_err(|e| e.to_string())?;
    Ok(at_identity(compound))
}

/// The optional `"rotation"` quaternion `[x, y, z, w]`, normalised in
/// precision `N` (identity when absent). A zero quaternion has no direction
/// and is refused.
fn rotation<N: Precision>(fields: &Fields) -> Result<UnitQuaternion<N>, String> {
    if fields.get("rotation").is_none() {
        return Ok(UnitQuaternion::identity());
    }
    let [x, y, z, w] = fields.numbers::<N, 4>("rotation")?;
    let quaternion = Quaternion::new(w, x, y, z);
    // Divide by the largest component first so that the squared norm can
    // neither overflow (components near f32::MAX) nor underflow to zero.
    let largest = quaternion.coords.amax();
    if largest == N::zero() {
        return Err(format!(
            "{}: the quaternion [{x}, {y}, {z}, {w}] has zero length and names no rotation",
            fields.path_of("rotation")
        ));
    }
    Ok(UnitQuaternion::new_normalize(quaternion / largest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::prelude::{Ray, Vector3};
    use serde_json::json;

    fn build(description: Value) -> Result<PlacedShape<f64>, String> {
        build_shape::<f64>(&description)
    }

    #[test]
    fn sphere_sits_at_its_centre() {
        let placed = build(json!({"type": "sphere", "center": [1, 2, 3], "radius": 0.5})).unwrap();
        assert_eq!(placed.pose.translation.vector, Vector3::new(1.0, 2.0, 3.0));
        let ray = Ray::new(Point3::new(1.0, 2.0, 0.0), Vector3::new(0.0, 0.0, 1.0));
        let hit = placed
            .shape
            .ray_cast(&placed.pose, &ray, f64::INFINITY, true)
            .unwrap();
        assert_eq!(hit.t, 2.5);
    }

    #[test]
    fn invalid_parameters_carry_the_shape_message() {
        let error = build(json!({"type": "sphere", "center": [0, 0, 0], "radius": -1})).unwrap_err();
        assert_eq!(
            error,
            "sphere: radius = -1.0 is invalid (must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size))"
        );
    }

    #[test]
    fn f32_overflow_is_refused_with_the_field_named() {
        let description = json!({"type": "sphere", "center": [0, 1e39, 0], "radius": 1});
        let error = build_shape::<f32>(&description).unwrap_err();
        assert_eq!(error, "shape.center[1]: 1e39 is not finite in f32");
        assert!(build_shape::<f64>(&description).is_ok());
    }

    #[test]
    fn bad_descriptions_are_explained() {
        let cases = [
            (json!(3), "shape: expected a JSON object, got 3"),
            (json!({"radius": 1}), "missing field 'shape.type'"),
            (json!({"type": "blob"}), "unknown shape type 'blob'"),
            (
                json!({"type": "sphere", "radius": 1}),
                "missing field 'shape.center'",
            ),
            (
                json!({"type": "sphere", "center": [0, 0, 0], "radius": 1, "rotation": [0, 0, 0, 1]}),
                "unknown field 'shape.rotation' for a sphere",
            ),
            (json!({"type": "heightfield"}), "missing field 'shape.origin'"),
            (
                json!({"type": "heightfield", "origin": [0, 0, 0], "cell": [1, 1], "rows": 2, "cols": 2,
                       "heights": [0, 0, 0]}),
                "heightfield: heights = 3 numbers is invalid (must hold rows·cols numbers)",
            ),
            (
                json!({"type": "heightfield", "origin": [0, 0, 0], "cell": [1, 1], "rows": 2, "cols": 2,
                       "heights": [0, 0, 0, 0], "holes": [1]}),
                "heightfield: holes = 1 is invalid",
            ),
            (
                json!({"type": "heightfield", "origin": [0, 0, 0], "cell": [1, 1], "rows": -2, "cols": 2,
                       "heights": []}),
                "shape.rows: expected a non-negative integer, got -2",
            ),
            (
                json!({"type": "heightfield", "origin": [0, 0, 0], "cell": [1, 1], "rows": 2, "cols": 2,
                       "heights": [0, 1, "x", 0]}),
                "shape.heights[2]: expected a number",
            ),
        ];
        for (description, expected) in cases {
            let error = build(description).unwrap_err();
            assert!(error.starts_with(expected), "{error}");
        }
    }

    #[test]
    fn heightfield_follows_the_design_layout() {
        // 2 × 3 samples; sample (i, j) at origin + (i·2, h, j·0.5).
        let placed = build(
            json!({"type": "heightfield", "origin": [10, 1, -3], "cell": [2, 0.5],
            "rows": 2, "cols": 3, "heights": [0, 1, 2, 3, 4, 5], "flip": [1], "holes": [0]}),
        )
        .unwrap();
        // Straight down onto the middle of cell (0, 1) (flipped, not a
        // hole) at x = 11, z = −2.25: the middle lies on the flipped
        // diagonal from sample (1, 1) to (0, 2), heights 4 and 2, so
        // y = 1 + 3 = 4 and t = 6.
        let ray = Ray::new(Point3::new(11.0, 10.0, -2.25), Vector3::new(0.0, -1.0, 0.0));
        let hit = placed
            .shape
            .ray_cast(&placed.pose, &ray, f64::INFINITY, true)
            .unwrap();
        assert!((hit.t - 6.0).abs() < 1e-15, "{}", hit.t);
        // Cell 0 is a hole.
        let ray = Ray::new(Point3::new(11.0, 10.0, -2.75), Vector3::new(0.0, -1.0, 0.0));
        assert!(
            placed
                .shape
                .ray_cast(&placed.pose, &ray, f64::INFINITY, true)
                .is_none()
        );
    }

    #[test]
    fn quaternions_are_normalised_and_zero_is_refused() {
        let description = json!({"rotation": [0, 0, 3, 4]});
        let fields = Fields::of(&description, "shape").unwrap();
        let unit = rotation::<f64>(&fields).unwrap();
        let expected = UnitQuaternion::from_quaternion(Quaternion::new(0.8, 0.0, 0.0, 0.6));
        assert!(unit.angle_to(&expected) < 1e-15);

        let huge = json!({"rotation": [0, 0, 3e38, 3e38]});
        let unit = rotation::<f32>(&Fields::of(&huge, "shape").unwrap()).unwrap();
        assert!((unit.angle() - std::f32::consts::FRAC_PI_2).abs() < 1e-6);

        let zero = json!({"rotation": [0, 0, 0, 0]});
        let error = rotation::<f64>(&Fields::of(&zero, "shape").unwrap()).unwrap_err();
        assert!(error.contains("zero length"), "{error}");

        let absent = json!({});
        assert_eq!(
            rotation::<f64>(&Fields::of(&absent, "shape").unwrap()),
            Ok(UnitQuaternion::identity())
        );
    }
}
