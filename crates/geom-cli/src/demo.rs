//! `geom demo`: both views of the default scene in both precisions, their
//! error heatmaps, a table of what `f32` loses against `f64` per shape, and
//! a character walking a route over terrain into a wall and a corner.

use std::fmt::Write as _;
use std::io;
use std::time::Duration;

use crate::render::{
    RenderOptions, ShapeReport, VIEWS, View, error_heatmap, heatmap_scale_note, image_path, render_view,
    titled_shading,
};

/// Renders, writes the images, and prints the table.
pub fn run_demo(options: &RenderOptions, out: &mut dyn io::Write) -> io::Result<()> {
    std::fs::create_dir_all(&options.out)?;
    writeln!(
        out,
        "geom demo: {}x{} rays per view and shape, f64 and f32 (the f32 ray is the f64 ray rounded)",
        options.width, options.height
    )?;
    let mut table = Vec::new();
    for view in &VIEWS {
        let render = render_view(view, options.width, options.height);
        let written = [
            (
                image_path(&options.out, view, "f64"),
                titled_shading(&render, &render.nearest_f64, view),
            ),
            (
                image_path(&options.out, view, "f32"),
                titled_shading(&render, &render.nearest_f32, view),
            ),
            (
                image_path(&options.out, view, "error"),
                error_heatmap(&render, view),
            ),
        ];
        for (path, image) in &written {
            image.write_png(path)?;
        }
        // Both views hold the same shapes: report what is missing once.
        if view.name == VIEWS[0].name {
            for (name, reason) in &render.skipped {
                writeln!(out, "skipped {name}: {reason}")?;
            }
        }
        table.extend(render.shapes.iter().map(|shape| (*view, shape.clone())));
    }
    writeln!(out)?;
    write!(out, "{}", format_table(&table))?;
    writeln!(out)?;
    writeln!(
        out,
        "images in {}: <view>_f64.png, <view>_f32.png, <view>_error.png",
        options.out.display()
    )?;
    writeln!(
        out,
        "views: near = scene at the origin; far = the same scene and camera shifted by (1e4, 1e4, 1e4)"
    )?;
    writeln!(out, "{}", heatmap_scale_note())?;
    let scene = crate::walk::WalkScene::new()?;
    let walk = crate::walk::run_walk(&scene, &options.out)?;
    writeln!(
        out,
        "character walk: {} steps, {} contacts, ends at ({:.3}, {:.3}, {:.3}) {}, largest move over the last 50 steps {:.1e}; path in {}",
        walk.steps,
        walk.collisions,
        walk.end.x,
        walk.end.y,
        walk.end.z,
        if walk.grounded {
            "on the ground"
        } else {
            "in the air"
        },
        walk.last_moves,
        options.out.join("walk.png").display()
    )?;
    let terrain_file = options.out.join("terrain.png");
    let resting = crate::terrain_view::write_terrain_view(
        &scene,
        &walk.path,
        &terrain_file,
        options.width,
        options.height,
    )?;
    for body in &resting {
        let at = body.pose.translation.vector;
        writeln!(
            out,
            "{} dropped onto the terrain rests at ({:.3}, {:.3}, {:.3}), {:.1e} above the ground",
            body.name, at.x, at.y, at.z, body.gap
        )?;
    }
    writeln!(
        out,
        "terrain with the walk and the resting bodies in {}",
        terrain_file.display()
    )?;
    Ok(())
}

/// The demo table: one row per view and shape.
pub fn format_table(rows: &[(View, ShapeReport)]) -> String {
    let mut table = format!(
        "{:<5} {:<10} {:>8} {:>9} {:>9} {:>8} {:>10} {:>10} {:>8} {:>8}\n",
        "view",
        "shape",
        "rays",
        "hits f64",
        "hits f32",
        "one only",
        "max ulps",
        "med ulps",
        "f64 ms",
        "f32 ms"
    );
    for (view, shape) in rows {
        let (max, median) = match shape.max_and_median_ulps() {
            Some((max, median)) => (format!("{max:.1}"), format!("{median:.1}")),
            None => ("-".to_string(), "-".to_string()),
        };
        // Writing into a String cannot fail.
        let _ = writeln!(
            table,
            "{:<5} {:<10} {:>8} {:>9} {:>9} {:>8} {:>10} {:>10} {:>8} {:>8}",
            view.name,
            shape.name,
            shape.rays,
            shape.hits_f64,
            shape.hits_f32,
            shape.one_precision_only,
            max,
            median,
            milliseconds(shape.time_f64),
            milliseconds(shape.time_f32)
        );
    }
    table
}

fn milliseconds(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_a_row_per_shape_and_dashes_without_hits() {
        let report = ShapeReport {
            name: "sphere",
            rays: 10,
            hits_f64: 0,
            hits_f32: 0,
            one_precision_only: 0,
            t_error_ulps: Vec::new(),
            time_f64: Duration::from_micros(1500),
            time_f32: Duration::from_micros(500),
        };
        let mut hitting = report.clone();
        hitting.t_error_ulps = vec![0.0, 3.0, 0.5];
        let table = format_table(&[(VIEWS[0], report), (VIEWS[1], hitting)]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[1].contains(" - ") && lines[1].contains("1.5"),
            "{}",
            lines[1]
        );
        assert!(lines[2].starts_with("far") && lines[2].contains("3.0") && lines[2].contains("0.5"));
    }
}
