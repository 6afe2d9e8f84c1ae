//! Spheres, capsules, boxes and a cylinder dropped on a heightfield and
//! into a dish-shaped block (a closed triangle mesh) and left to settle,
//! and on a flat terrace a stack of three boxes, a standing cylinder and a
//! cone on its base, with the pairs from a `geom::World`'s broad phase,
//! contacts from `geom::default_dispatcher()` and a small
//! sequential-impulse solver (`sim.rs`).
//!
//! ```sh
//! cargo run --release -p geom --example rigid_bodies [-- [out/rigid_bodies.svg] [--bodies N] [--frame FILE]]
//! ```
//!
//! `--bodies N` runs the scene with `N` bodies (`sim::crowded_world`: the
//! demo's 20 and more dropped around them); `--frame FILE` also writes the
//! poses of the last two steps into `FILE` (the benchmarks' physics frame,
//! `benches/data/frame_100.txt`, is `--bodies 100 --frame` of this).
//!
//! Prints each body's resting place and writes an SVG plot: on the left
//! the centres' paths seen from above over the scenery's height map, a ring
//! where each comes to rest, on the right each body's height over time
//! (they fall, bounce off each other and the bumps, and come to rest),
//! with axes in metres and seconds, a legend and the heights' colour bar.

mod sim;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;
use std::path::PathBuf;

use geom::prelude::*;

const STEP: f64 = 1.0 / 240.0;
const SECONDS: f64 = 8.0;

/// The command line: the plot's path, the body count, the frame's path.
struct Options {
    plot: PathBuf,
    bodies: Option<usize>,
    frame: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        plot: PathBuf::from("out/rigid_bodies.svg"),
        bodies: None,
        frame: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bodies" => {
                let count = args.next().and_then(|n| n.parse().ok());
                options.bodies = Some(count.ok_or("--bodies needs a number")?);
            }
            "--frame" => options.frame = Some(args.next().ok_or("--frame needs a file name")?.into()),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            path => options.plot = path.into(),
        }
    }
    Ok(options)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options()?;
    let path = options.plot;
    let mut world = options.bodies.map_or_else(sim::demo_world, sim::crowded_world);
    let steps = (SECONDS / STEP) as usize;
    let mut paths: Vec<Vec<Point3<f64>>> = vec![Vec::with_capacity(steps); world.bodies.len()];
    let mut before_last = String::new();
    let started = std::time::Instant::now();
    for step in 0..steps {
        if step + 1 == steps {
            before_last = world.poses_text();
        }
        world.step(STEP);
        for (path, body) in paths.iter_mut().zip(&world.bodies) {
            path.push(body.center());
        }
    }
    if let Some(frame) = &options.frame {
        let text = format!(
            "# rigid_bodies --bodies {count}: the body poses (x y z i j k w) after {before} and {steps} steps of {STEP} s\n\
             # step {before}\n{before_last}# step {steps}\n{last}",
            count = world.bodies.len(),
            before = steps - 1,
            last = world.poses_text(),
        );
        std::fs::write(frame, text)?;
        println!("wrote {}", frame.display());
    }
    let elapsed = started.elapsed();
    println!(
        "{steps} steps of {:.2} ms simulated in {:.2} s ({:.1} µs per step)",
        STEP * 1e3,
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / steps as f64
    );
    println!(
        "{:<17} {:>22} {:>10} {:>13}",
        "body", "rests at", "speed", "above scenery"
    );
    for body in &world.bodies {
        let c = body.center();
        let ground = world.scenery_y_at(c.x, c.z).unwrap_or(f64::NAN);
        println!(
            "{:<17} ({:6.2}, {:5.2}, {:6.2}) {:10.2e} {:13.3}",
            body.name,
            c.x,
            c.y,
            c.z,
            body.linear_velocity.norm(),
            c.y - ground
        );
    }
    println!(
        "largest point speed {:.2e} m/s, deepest overlap {:.4} m, {} contacts",
        world.max_point_speed(),
        world.last_max_depth,
        world.last_contact_count
    );
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    write_plot(&path, &world, &paths)?;
    println!("wrote {}", path.display());
    Ok(())
}

const COLORS: [&str; 20] = [
    "#e6194b", "#3cb44b", "#0082c8", "#f58230", "#911eb4", "#46c8c8", "#f032e6", "#808000", "#000080",
    "#aa6e28", "#000000", "#800000", "#008080", "#d2b400", "#6464ff", "#fa8cb4", "#00a86b", "#ff7f50",
    "#708090", "#9a6324",
];

/// The left panel's square: pixels from its top-left corner, and the
/// ground's half width shown (metres each side of the origin).
const MAP: (f64, f64, f64) = (70.0, 60.0, 340.0);
const HALF: f64 = 10.0;
/// The right panel's frame: left, top, width, height in pixels.
const TIMES: (f64, f64, f64, f64) = (560.0, 60.0, 420.0, 340.0);
/// Heights shown on the right panel, metres.
const HEIGHTS: (f64, f64) = (-1.0, 6.0);
/// Samples per side of the height map under the paths.
const MAP_SAMPLES: usize = 170;

/// The plot as an SVG document: the paths from above over the height map
/// (light = high, with its colour bar), a ring where each body rests, and
/// each body's height over time, with axes, ticks, labels and a legend.
fn write_plot(
    path: &std::path::Path,
    world: &sim::World,
    paths: &[Vec<Point3<f64>>],
) -> Result<(), Box<dyn std::error::Error>> {
    let (map_left, map_top, map_size) = MAP;
    let to_map = |x: f64, z: f64| {
        (
            map_left + (x + HALF) / (2.0 * HALF) * map_size,
            map_top + (z + HALF) / (2.0 * HALF) * map_size,
        )
    };
    let (t_left, t_top, t_width, t_height) = TIMES;
    let to_time = |t: f64, y: f64| {
        (
            t_left + t / SECONDS * t_width,
            t_top + (HEIGHTS.1 - y) / (HEIGHTS.1 - HEIGHTS.0) * t_height,
        )
    };
    let mut svg = String::new();
    writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="1180" height="470" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="590" y="22" text-anchor="middle" font-size="15">Rigid bodies dropped on a heightfield and into a mesh dish: pairs from geom's World, contacts from its dispatch table, {:.0} s at {:.0} Hz</text>"##,
        SECONDS,
        1.0 / STEP
    )?;
    // Left: the height map as an embedded greyscale PNG under the paths.
    let (image, low, high) = height_map_png(world)?;
    writeln!(
        svg,
        r#"<image x="{map_left}" y="{map_top}" width="{map_size}" height="{map_size}" preserveAspectRatio="none" href="data:image/png;base64,{}"/>"#,
        base64(&image)
    )?;
    writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">Seen from above: paths of the centres, a ring where each rests</text>"#,
        map_left + map_size / 2.0,
        map_top - 10.0
    )?;
    for tick in [-10.0, -5.0, 0.0, 5.0, 10.0] {
        let (x, _) = to_map(tick, 0.0);
        let (_, y) = to_map(0.0, tick);
        let bottom = map_top + map_size;
        writeln!(
            svg,
            r#"<line x1="{x}" x2="{x}" y1="{bottom}" y2="{}" stroke="black"/><text x="{x}" y="{}" text-anchor="middle">{tick}</text>"#,
            bottom + 5.0,
            bottom + 18.0
        )?;
        writeln!(
            svg,
            r#"<line x1="{}" x2="{map_left}" y1="{y}" y2="{y}" stroke="black"/><text x="{}" y="{}" text-anchor="end">{tick}</text>"#,
            map_left - 5.0,
            map_left - 8.0,
            y + 4.0
        )?;
    }
    writeln!(
        svg,
        r#"<rect x="{map_left}" y="{map_top}" width="{map_size}" height="{map_size}" fill="none" stroke="black"/>
<text x="{}" y="{}" text-anchor="middle">x (m)</text>
<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">z (m)</text>"#,
        map_left + map_size / 2.0,
        map_top + map_size + 34.0,
        map_left - 40.0,
        map_top + map_size / 2.0,
        map_left - 40.0,
        map_top + map_size / 2.0
    )?;
    // The height map's colour bar, right of the map.
    let bar_left = map_left + map_size + 14.0;
    writeln!(
        svg,
        r##"<defs><linearGradient id="ground" x1="0" y1="1" x2="0" y2="0"><stop offset="0" stop-color="#5a5a5a"/><stop offset="1" stop-color="#e6e6e6"/></linearGradient></defs>
<rect x="{bar_left}" y="{map_top}" width="12" height="{map_size}" fill="url(#ground)" stroke="black"/>
<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">scenery y (m)</text>"##,
        bar_left + 62.0,
        map_top + map_size / 2.0,
        bar_left + 62.0,
        map_top + map_size / 2.0
    )?;
    for k in 0..=4 {
        let value = low + (high - low) * f64::from(k) / 4.0;
        let y = map_top + map_size * (1.0 - f64::from(k) / 4.0);
        writeln!(
            svg,
            r#"<line x1="{}" x2="{}" y1="{y}" y2="{y}" stroke="black"/><text x="{}" y="{}">{value:.2}</text>"#,
            bar_left + 12.0,
            bar_left + 16.0,
            bar_left + 19.0,
            y + 4.0
        )?;
    }
    // Right: heights over time.
    writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">Height of each centre over time</text>
<rect x="{t_left}" y="{t_top}" width="{t_width}" height="{t_height}" fill="none" stroke="black"/>
<text x="{}" y="{}" text-anchor="middle">time (s)</text>
<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">y (m)</text>"#,
        t_left + t_width / 2.0,
        t_top - 10.0,
        t_left + t_width / 2.0,
        t_top + t_height + 34.0,
        t_left - 36.0,
        t_top + t_height / 2.0,
        t_left - 36.0,
        t_top + t_height / 2.0
    )?;
    for second in 0..=SECONDS as usize {
        let (x, bottom) = to_time(second as f64, HEIGHTS.0);
        writeln!(
            svg,
            r##"<line x1="{x}" x2="{x}" y1="{t_top}" y2="{bottom}" stroke="#e4e4e4"/><text x="{x}" y="{}" text-anchor="middle">{second}</text>"##,
            bottom + 18.0
        )?;
    }
    for metre in HEIGHTS.0 as i32..=HEIGHTS.1 as i32 {
        let (_, y) = to_time(0.0, f64::from(metre));
        writeln!(
            svg,
            r##"<line x1="{t_left}" x2="{}" y1="{y}" y2="{y}" stroke="#e4e4e4"/><text x="{}" y="{}" text-anchor="end">{metre}</text>"##,
            t_left + t_width,
            t_left - 6.0,
            y + 4.0
        )?;
    }
    for (b, body_path) in paths.iter().enumerate() {
        let color = COLORS[b % COLORS.len()];
        // Every fourth step is plenty at this size.
        let top: Vec<String> = body_path
            .iter()
            .step_by(4)
            .map(|p| to_map(p.x, p.z))
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let side: Vec<String> = body_path
            .iter()
            .enumerate()
            .step_by(4)
            .map(|(k, p)| to_time(k as f64 * STEP, p.y.clamp(HEIGHTS.0, HEIGHTS.1)))
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let rest = world.bodies[b].center();
        let (cx, cy) = to_map(rest.x, rest.z);
        let radius = world.bodies[b].shape.local_aabb().origin_reach() / (2.0 * HALF) * map_size;
        writeln!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.5"/>
<circle cx="{cx:.1}" cy="{cy:.1}" r="{radius:.1}" fill="none" stroke="{color}" stroke-width="1.5"/>
<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.5"/>"#,
            top.join(" "),
            side.join(" ")
        )?;
        // Legend, right of the time plot.
        let y = t_top + 8.0 + b as f64 * 16.5;
        writeln!(
            svg,
            r#"<line x1="1000" x2="1020" y1="{y}" y2="{y}" stroke="{color}" stroke-width="3"/><text x="1026" y="{}">{}</text>"#,
            y + 4.0,
            world.bodies[b].name
        )?;
    }
    svg.push_str("</svg>\n");
    std::fs::write(path, svg)?;
    Ok(())
}

/// The scenery (ground and dish) under the left panel as a greyscale PNG (light = high), with
/// the lowest and highest height shown.
fn height_map_png(world: &sim::World) -> Result<(Vec<u8>, f64, f64), Box<dyn std::error::Error>> {
    let n = MAP_SAMPLES;
    let heights: Vec<f64> = (0..n * n)
        .map(|k| {
            let (column, row) = ((k % n) as f64 + 0.5, (k / n) as f64 + 0.5);
            let (x, z) = (
                column / n as f64 * 2.0 * HALF - HALF,
                row / n as f64 * 2.0 * HALF - HALF,
            );
            world.scenery_y_at(x, z).unwrap_or(0.0)
        })
        .collect();
    let (low, high) = heights
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        });
    // The same ramp as the colour bar: #5a5a5a (90) low to #e6e6e6 (230) high.
    let grey: Vec<u8> = heights
        .iter()
        .map(|h| (90.0 + 140.0 * (h - low) / (high - low)).round() as u8)
        .collect();
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, n as u32, n as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&grey)?;
    writer.finish()?;
    Ok((bytes, low, high))
}

/// Standard base64 (RFC 4648, with padding).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |word, (i, &b)| word | u32::from(b) << (16 - 8 * i));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[(word >> (18 - 6 * k) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
