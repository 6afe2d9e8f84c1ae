//! `world` lines: a list of shapes put in a `geom::World` (indices are
//! their positions in the list) and one query on it: candidate pairs, the
//! first hit of a ray, what a shape overlaps, or what a moving shape runs
//! into first.

use std::sync::Arc;

use geom::World;
use geom::prelude::Ray;

use crate::fields::Fields;
use crate::precision::{Precision, format_number, format_vector};
use crate::scene::build_shape;

/// The answer's fields (without braces) to a `world` line.
pub fn world<N: Precision>(fields: &Fields) -> Result<String, String> {
    fields.reject_unknown(
        &[
            "id",
            "op",
            "precision",
            "world",
            "query",
            "ray",
            "max_t",
            "solid",
            "shape",
            "motion",
        ],
        "op 'world'",
    )?;
    let list = fields.required("world")?;
    let path = fields.path_of("world");
    let items = list.as_array().ok_or_else(|| {
        format!(
            "{path}: expected an array of shapes, got {}",
            crate::fields::shown(list)
        )
    })?;
    let mut world: World<N, usize> = World::new();
    for (index, item) in items.iter().enumerate() {
        let placed = build_shape::<N>(item).map_err(|e| format!("{path}[{index}]: {e}"))?;
        world.insert(Arc::from(placed.shape), placed.pose, index);
    }
    let index_of = |world: &World<N, usize>, handle| *world.data(handle).expect("a live handle");
    match fields.string("query")? {
        "pairs" => {
            fields.reject_unknown(&["id", "op", "precision", "world", "query"], "query 'pairs'")?;
            let mut pairs = Vec::new();
            world.candidate_pairs(&mut pairs);
            let mut indices: Vec<(usize, usize)> = pairs
                .iter()
                .map(|&(a, b)| {
                    let (a, b) = (index_of(&world, a), index_of(&world, b));
                    (a.min(b), a.max(b))
                })
                .collect();
            indices.sort_unstable();
            let listed: Vec<String> = indices.iter().map(|(a, b)| format!("[{a},{b}]")).collect();
            Ok(format!("\"pairs\":[{}]", listed.join(",")))
        }
        "ray_cast" => {
            let ray_fields = fields.object("ray", "ray")?;
            ray_fields.reject_unknown(&["origin", "dir"], "a ray")?;
            let ray = Ray::new(ray_fields.point::<N>("origin")?, ray_fields.vector::<N>("dir")?);
            let max_t = fields.number_or("max_t", N::rounded_from_f64(f64::INFINITY))?;
            let solid = fields.bool_or("solid", true)?;
            let Some((handle, hit)) = world.ray_cast(&ray, max_t, solid) else {
                return Ok("\"hit\":false".to_string());
            };
            let point = ray.origin + ray.dir * hit.t;
            Ok(format!(
                "\"hit\":true,\"index\":{},\"t\":{},\"point\":{},\"normal\":{}",
                index_of(&world, handle),
                format_number(hit.t).ok_or("ray_cast: no finite answer")?,
                format_vector(point.coords.iter().copied()).ok_or("ray_cast: no finite answer")?,
                format_vector(hit.normal.iter().copied()).ok_or("ray_cast: no finite answer")?
            ))
        }
        "overlaps" => {
            let probe = build_shape::<N>(fields.required("shape")?).map_err(|e| format!("shape: {e}"))?;
            let mut found = Vec::new();
            world
                .overlaps(probe.shape.as_ref(), &probe.pose, N::dispatcher(), &mut found)
                .map_err(|e| e.to_string())?;
            let mut indices: Vec<usize> = found.iter().map(|&h| index_of(&world, h)).collect();
            indices.sort_unstable();
            let listed: Vec<String> = indices.iter().map(usize::to_string).collect();
            Ok(format!("\"indices\":[{}]", listed.join(",")))
        }
        "sweep" => {
            let mover = build_shape::<N>(fields.required("shape")?).map_err(|e| format!("shape: {e}"))?;
            let motion = fields.vector::<N>("motion")?;
            let hit = world
                .sweep(mover.shape.as_ref(), &mover.pose, &motion, N::dispatcher(), None)
                .map_err(|e| e.to_string())?;
            let Some((handle, hit)) = hit else {
                return Ok("\"hit\":false".to_string());
            };
            Ok(format!(
                "\"hit\":true,\"index\":{},\"toi\":{},\"point\":{},\"normal\":{}",
                index_of(&world, handle),
                format_number(hit.toi).ok_or("sweep: no finite answer")?,
                format_vector(hit.point.coords.iter().copied()).ok_or("sweep: no finite answer")?,
                format_vector(hit.normal.iter().copied()).ok_or("sweep: no finite answer")?
            ))
        }
        other => Err(format!(
            "unknown world query '{other}' (expected pairs, ray_cast, overlaps or sweep)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::query::answer_line;

    fn answer(line: &str) -> String {
        answer_line(line, 1).json
    }

    const WORLD: &str = r#""world":[{"type":"halfspace","normal":[0,1,0],"offset":0},{"type":"sphere","center":[0,0.4,0],"radius":0.5},{"type":"box","center":[5,3,0],"half_extents":[1,1,1]},{"type":"trimesh","vertices":[[10,1,-1],[12,1,-1],[10,1,1]],"indices":[[0,2,1]]},{"type":"hull","points":[[20,0,0],[21,0,0],[20,1,0],[20,0,1]]},{"type":"compound","children":[{"type":"sphere","center":[30,1,0],"radius":1},{"type":"sphere","center":[33,1,0],"radius":1}]}]"#;

    #[test]
    fn every_query_answers_by_index() {
        // Candidate pairs are boxes that overlap: the half-space's box
        // (y <= 0, everything across) meets the sphere sunk 0.1 into it and
        // the hull and compound resting on y = 0; the box at y 2–4 and the
        // mesh at y = 1 meet nothing.
        assert_eq!(
            answer(&format!(r#"{{"id":1,"op":"world",{WORLD},"query":"pairs"}}"#)),
            r#"{"id":1,"pairs":[[0,1],[0,4],[0,5]]}"#
        );
        // Down onto the box's top at y = 4 from y = 10: t = 6.
        assert_eq!(
            answer(&format!(
                r#"{{"id":2,"op":"world",{WORLD},"query":"ray_cast","ray":{{"origin":[5,10,0],"dir":[0,-1,0]}}}}"#
            )),
            r#"{"id":2,"hit":true,"index":2,"t":6,"point":[5,4,0],"normal":[0,1,0]}"#
        );
        // A probe around the compound's second ball and the hull: 4 and 5.
        assert_eq!(
            answer(&format!(
                r#"{{"id":3,"op":"world",{WORLD},"query":"overlaps","shape":{{"type":"box","center":[26,1,0],"half_extents":[6,0.5,0.5]}}}}"#
            )),
            r#"{"id":3,"indices":[4,5]}"#
        );
        // A unit sphere at y = 5 over the mesh, dropped by 10: lands on it
        // (y = 1) after 3, toi 0.3.
        assert_eq!(
            answer(&format!(
                r#"{{"id":4,"op":"world",{WORLD},"query":"sweep","shape":{{"type":"sphere","center":[10.5,5,-0.5],"radius":1}},"motion":[0,-10,0]}}"#
            )),
            r#"{"id":4,"hit":true,"index":3,"toi":0.3,"point":[10.5,1,-0.5],"normal":[0,1,0]}"#
        );
    }

    #[test]
    fn bad_lines_are_refused_by_name() {
        let error = answer(
            r#"{"id":5,"op":"world","world":[{"type":"trimesh","vertices":[[0,0,0]],"indices":[[0,1,2]]}],"query":"pairs"}"#,
        );
        assert!(error.contains("world[0]") && error.contains("index 1"), "{error}");
        let error = answer(r#"{"id":6,"op":"world","world":[],"query":"dance"}"#);
        assert!(error.contains("unknown world query 'dance'"), "{error}");
    }
}
