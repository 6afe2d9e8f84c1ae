//! `sweep` and `slide` lines: any shape moved against one target
//! (`sweep`, as `geom::sweep_shape`), or a sphere, capsule or ellipsoid
//! moved through a world of shapes (`slide`, the character controller's
//! collide-and-slide step).

use geom::nalgebra::Vector3;
use geom::prims::sweep::MovingShape;
use geom::{CharacterConfig, CharacterController, GeomError, Obstacle, sweep_shape};

use crate::fields::Fields;
use crate::precision::{Precision, format_number, format_vector};
use crate::scene::{PlacedShape, build_shape};

/// How many sweeps a `slide` line may make when it gives no `max_iterations`.
pub const DEFAULT_MAX_ITERATIONS: usize = 5;

/// The shape a line moves.
fn placed_shape<N: Precision>(fields: &Fields) -> Result<PlacedShape<N>, String> {
    build_shape::<N>(fields.required("shape")?).map_err(|e| format!("shape: {e}"))
}

/// The moving shape of a `slide` line, which must be a sphere, capsule or
/// ellipsoid (the character controller's shapes).
fn moving_shape<N: Precision>(fields: &Fields) -> Result<MovingShape<N>, String> {
    let placed = placed_shape::<N>(fields)?;
    MovingShape::from_shape(placed.shape.as_ref(), &placed.pose).ok_or_else(|| {
        format!(
            "op 'slide' moves a sphere, capsule or ellipsoid, not a {}",
            fields
                .required("shape")
                .ok()
                .and_then(|description| description["type"].as_str())
                .unwrap_or("?")
        )
    })
}

fn table_error(error: GeomError, op: &str) -> String {
    match error {
        GeomError::Unsupported { a, b } => format!("op '{op}' is not supported for {a:?} against {b:?}"),
        other => other.to_string(),
    }
}

/// `"hit":true,"toi":…,"point":[…],"normal":[…]` or `"hit":false`: the
/// first contact of `shape` moved by `motion` with `target`; the normal
/// points from the target towards the shape. Any pair the dispatch table
/// answers: spheres, capsules and ellipsoids exactly against triangles and
/// heightfields, the rest by conservative advancement.
pub fn sweep<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(
        &["id", "op", "precision", "shape", "motion", "target"],
        "op 'sweep'",
    )?;
    let placed = placed_shape::<N>(fields)?;
    let motion = fields.vector::<N>("motion")?;
    let target = build_shape::<N>(fields.required("target")?).map_err(|e| format!("target: {e}"))?;
    let hit = sweep_shape(
        placed.shape.as_ref(),
        &placed.pose,
        &motion,
        target.shape.as_ref(),
        &target.pose,
        N::dispatcher(),
    )
    .map_err(|e| table_error(e, "sweep"))?;
    let Some(hit) = hit else {
        return Ok("\"hit\":false".to_string());
    };
    let printed = (|| {
        Some(format!(
            "\"hit\":true,\"toi\":{},\"point\":{},\"normal\":{}",
            format_number(hit.toi)?,
            format_vector(hit.point.coords.iter().copied())?,
            format_vector(hit.normal.iter().copied())?
        ))
    })();
    printed.ok_or_else(|| not_finite::<N>("sweep"))
}

/// `"position":[…],"collisions":N`: where the shape's centre ends after
/// collide-and-slide by `motion` through `world` (no gravity step), and how
/// many contacts the move made. The skin width is a thousandth of the
/// shape's smallest half-extent.
pub fn slide<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(
        &[
            "id",
            "op",
            "precision",
            "shape",
            "motion",
            "world",
            "max_iterations",
        ],
        "op 'slide'",
    )?;
    let moving = moving_shape::<N>(fields)?;
    let motion = fields.vector::<N>("motion")?;
    let max_iterations = match fields.get("max_iterations") {
        Some(_) => fields.count("max_iterations")?,
        None => DEFAULT_MAX_ITERATIONS,
    };
    let world_value = fields.required("world")?;
    let items = world_value
        .as_array()
        .ok_or_else(|| format!("world: expected an array of shapes, got {world_value}"))?;
    let world_shapes = items
        .iter()
        .enumerate()
        .map(|(index, item)| build_shape::<N>(item).map_err(|e| format!("world[{index}]: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let world: Vec<Obstacle<'_, N>> = world_shapes
        .iter()
        .map(|placed| Obstacle::Shape {
            shape: placed.shape.as_ref(),
            pose: placed.pose,
        })
        .collect();
    let smallest_extent = (0..3)
        .map(|axis| moving.extent(&Vector3::ith(axis, N::one())))
        .fold(N::max_value().unwrap_or_else(N::one), |a, b| a.min(b));
    let mut config = CharacterConfig::new(smallest_extent * N::rounded_from_f64(1e-3));
    config.max_iterations = max_iterations;
    let mut character = CharacterController::new(moving, config);
    let collisions = character
        .slide(&motion, &world, N::dispatcher())
        .map_err(|e| table_error(e, "slide"))?;
    let printed = format_vector(character.position().coords.iter().copied())
        .map(|position| format!("\"position\":{position},\"collisions\":{collisions}"));
    printed.ok_or_else(|| not_finite::<N>("slide"))
}

fn not_finite<N: Precision>(op: &str) -> String {
    format!(
        "{op} has no finite answer in {} (inputs too large for this precision?)",
        N::NAME
    )
}

#[cfg(test)]
mod tests {
    use crate::query::answer_line;
    use serde_json::{Value, json};

    fn answer(line: Value) -> Value {
        serde_json::from_str(&answer_line(&line.to_string(), 1).json).unwrap()
    }

    fn numbers(value: &Value) -> Vec<f64> {
        serde_json::from_value(value.clone()).unwrap()
    }

    fn wall() -> Value {
        json!({"type": "triangle", "a": [2, -10, -10], "b": [2, 10, -10], "c": [2, 0, 10]})
    }

    #[test]
    fn sweep_lines_hit_and_miss() {
        let hit = answer(json!({"id": 1, "op": "sweep",
            "shape": {"type": "sphere", "center": [0, 0, 0], "radius": 1},
            "motion": [10, 0, 0], "target": wall()}));
        assert_eq!(
            (&hit["id"], &hit["hit"], &hit["toi"]),
            (&json!(1), &json!(true), &json!(0.1))
        );
        assert_eq!(numbers(&hit["point"]), [2.0, 0.0, 0.0]);
        assert_eq!(numbers(&hit["normal"]), [-1.0, 0.0, 0.0]);
        let miss = answer(json!({"id": "m", "op": "sweep",
            "shape": {"type": "capsule", "a": [0, 0, 0], "b": [0, 1, 0], "radius": 0.5},
            "motion": [-10, 0, 0], "target": wall()}));
        assert_eq!(miss, json!({"id": "m", "hit": false}));
        // An ellipsoid against a heightfield, in f32.
        let ground = json!({"type": "heightfield", "origin": [-5, 0, -5], "cell": [1, 1], "rows": 11, "cols": 11,
            "heights": vec![0.0; 121]});
        let hit = answer(json!({"id": 2, "op": "sweep", "precision": "f32",
            "shape": {"type": "ellipsoid", "center": [0, 5, 0], "radii": [1, 2, 1]},
            "motion": [0, -6, 0], "target": ground}));
        assert_eq!(hit["hit"], json!(true));
        assert_eq!(hit["toi"], json!(0.5));
        assert_eq!(numbers(&hit["normal"]), [0.0, 1.0, 0.0]);
    }

    #[test]
    fn any_shape_sweeps_against_any_shape() {
        // A unit box turned 45° about z falls from centre height 2 onto the
        // ground y <= 0: its lowest edge (0.5·√2 below the centre) lands
        // after (2 − 0.5·√2) / 3 of the motion.
        let turn = std::f64::consts::FRAC_PI_8.sin();
        let ground = json!({"type": "halfspace", "normal": [0, 1, 0], "offset": 0});
        for precision in ["f64", "f32"] {
            let tolerance = if precision == "f32" { 1e-6 } else { 1e-13 };
            let hit = answer(json!({"id": 1, "op": "sweep", "precision": precision,
                "shape": {"type": "box", "center": [0, 2, 0], "half_extents": [0.5, 0.5, 0.5],
                          "rotation": [0, 0, turn, std::f64::consts::FRAC_PI_8.cos()]},
                "motion": [0, -3, 0], "target": ground}));
            let expected = (2.0 - 0.5 * 2f64.sqrt()) / 3.0;
            let toi = hit["toi"].as_f64().unwrap_or_else(|| panic!("{hit}"));
            assert!(
                toi <= expected + tolerance && expected - toi < tolerance,
                "{precision}: {hit}"
            );
            let normal = numbers(&hit["normal"]);
            assert!((normal[1] - 1.0).abs() < tolerance, "{hit}");
            assert!(numbers(&hit["point"])[1].abs() < tolerance * 4.0, "{hit}");
        }
        // A cylinder lying along z moved sideways into the wall x = 2: its
        // side (radius 0.5) touches after (2 − 0.5) / 3 of the motion; moved
        // away, it misses.
        let cylinder = json!({"type": "cylinder", "a": [0, 0, -1], "b": [0, 0, 1], "radius": 0.5});
        let hit = answer(json!({"op": "sweep", "shape": cylinder, "motion": [3, 0, 0], "target": wall()}));
        let toi = hit["toi"].as_f64().unwrap_or_else(|| panic!("{hit}"));
        assert!(toi <= 0.5 && 0.5 - toi < 1e-13, "{hit}");
        assert!((numbers(&hit["normal"])[0] + 1.0).abs() < 1e-9, "{hit}");
        let away = answer(json!({"op": "sweep", "shape": cylinder, "motion": [-3, 0, 0], "target": wall()}));
        assert_eq!(away["hit"], json!(false));
    }

    #[test]
    fn slide_lines_slide_along_walls() {
        let ground = json!({"type": "triangle", "a": [-20, 0, -20], "b": [-20, 0, 20], "c": [20, 0, 0]});
        let line = answer(json!({"id": 7, "op": "slide",
            "shape": {"type": "sphere", "center": [0, 1.5, 0], "radius": 1},
            "motion": [4, 0, 3], "world": [wall(), ground], "max_iterations": 4}));
        assert_eq!(line["collisions"], json!(1));
        let position = numbers(&line["position"]);
        // Stopped a skin width (10⁻³) short of the wall, kept all of z.
        assert!((position[0] - (1.0 - 1e-3)).abs() < 1e-12, "{position:?}");
        assert!((position[1] - 1.5).abs() < 1e-12 && (position[2] - 3.0).abs() < 1e-12);
        let free = answer(json!({"id": 8, "op": "slide",
            "shape": {"type": "capsule", "a": [0, 1, 0], "b": [0, 2, 0], "radius": 0.5},
            "motion": [-1, 0, 0], "world": []}));
        assert_eq!((&free["id"], &free["collisions"]), (&json!(8), &json!(0)));
        assert_eq!(numbers(&free["position"]), [-1.0, 1.5, 0.0]);
    }

    #[test]
    fn malformed_sweep_and_slide_lines_are_errors() {
        let sphere = json!({"type": "sphere", "center": [0, 0, 0], "radius": 1});
        let cases = [
            (
                json!({"id": 1, "op": "sweep", "shape": sphere, "target": wall()}),
                "missing field 'motion'",
            ),
            (
                json!({"id": 1, "op": "sweep", "shape": sphere, "motion": [1, 0], "target": wall()}),
                "motion",
            ),
            (
                json!({"id": 1, "op": "sweep", "shape": sphere, "motion": [1, 0, 0]}),
                "missing field 'target'",
            ),
            (
                json!({"id": 1, "op": "slide", "shape": {"type": "box", "center": [0, 0, 0], "half_extents": [1, 1, 1]},
                    "motion": [1, 0, 0], "world": [wall()]}),
                "moves a sphere, capsule or ellipsoid",
            ),
            (
                json!({"id": 1, "op": "sweep", "shape": sphere, "motion": [1, 0, 0], "target": wall(), "speed": 2}),
                "speed",
            ),
            (
                json!({"id": 1, "op": "slide", "shape": sphere, "motion": [1, 0, 0]}),
                "missing field 'world'",
            ),
            (
                json!({"id": 1, "op": "slide", "shape": sphere, "motion": [1, 0, 0], "world": 3}),
                "world",
            ),
            (
                json!({"id": 1, "op": "slide", "shape": sphere, "motion": [1, 0, 0], "world": [{"type": "blob"}]}),
                "world[0]",
            ),
            (
                json!({"id": 1, "op": "slide", "shape": sphere, "motion": [1, 0, 0], "world": [], "max_iterations": -1}),
                "max_iterations",
            ),
        ];
        for (line, expected) in cases {
            let got = answer(line.clone());
            let message = got["error"].as_str().unwrap_or_else(|| panic!("{line}: {got}"));
            assert!(message.contains(expected), "{line}: {message}");
            assert_eq!(got["line"], json!(1));
            assert_eq!(got["id"], json!(1));
        }
    }
}
