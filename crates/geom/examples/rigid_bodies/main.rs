//! Spheres, capsules, boxes and a cylinder dropped on a heightfield and
//! left to settle, and on a flat terrace a stack of three boxes, a
//! standing cylinder and a cone on its base, with contacts from
//! `geom::default_dispatcher()` and a small sequential-impulse solver
//! (`sim.rs`).
//!
//! ```sh
//! cargo run --release -p geom --example rigid_bodies [-- out/rigid_bodies.png]
//! ```
//!
//! Prints each body's resting place and writes a PNG: on the left the
//! centres' paths seen from above over the ground's height map, a ring
//! where each comes to rest, on the right each body's height over time
//! (they fall, bounce off each other and the bumps, and come to rest).

mod sim;

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use geom::prelude::*;

const STEP: f64 = 1.0 / 240.0;
const SECONDS: f64 = 8.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "out/rigid_bodies.png".into()),
    );
    let mut world = sim::demo_world();
    let steps = (SECONDS / STEP) as usize;
    let mut paths: Vec<Vec<Point3<f64>>> = vec![Vec::with_capacity(steps); world.bodies.len()];
    let started = std::time::Instant::now();
    for _ in 0..steps {
        world.step(STEP);
        for (path, body) in paths.iter_mut().zip(&world.bodies) {
            path.push(body.center());
        }
    }
    let elapsed = started.elapsed();
    println!(
        "{steps} steps of {:.2} ms simulated in {:.2} s ({:.1} µs per step)",
        STEP * 1e3,
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / steps as f64
    );
    println!(
        "{:<10} {:>22} {:>10} {:>12}",
        "body", "rests at", "speed", "above ground"
    );
    for body in &world.bodies {
        let c = body.center();
        let ground = world.ground.surface_y_at(c.x, c.z).unwrap_or(f64::NAN);
        println!(
            "{:<10} ({:6.2}, {:5.2}, {:6.2}) {:10.2e} {:12.3}",
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

const WIDTH: usize = 1200;
const HEIGHT: usize = 450;
const COLORS: [[u8; 3]; 16] = [
    [230, 25, 75],
    [60, 180, 75],
    [0, 130, 200],
    [245, 130, 48],
    [145, 30, 180],
    [70, 240, 240],
    [240, 50, 230],
    [128, 128, 0],
    [0, 0, 128],
    [170, 110, 40],
    [0, 0, 0],
    [128, 0, 0],
    [0, 128, 128],
    [255, 225, 25],
    [100, 100, 255],
    [250, 190, 212],
];

/// Two panels: the centres' paths seen from above over the ground's
/// height map (grey, light = high; a ring where each body rests), and each
/// body's height over time.
fn write_plot(
    path: &std::path::Path,
    world: &sim::World,
    paths: &[Vec<Point3<f64>>],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut pixels = vec![[255u8; 3]; WIDTH * HEIGHT];
    let panel = WIDTH / 2;
    // Left panel: x right, z down, 10 m each side of the origin (the
    // terrace included).
    let (half, size) = (10.0, HEIGHT as f64 - 40.0);
    let to_top = |x: f64, z: f64| {
        (
            (panel as f64 - size) / 2.0 + (x + half) / (2.0 * half) * size,
            20.0 + (z + half) / (2.0 * half) * size,
        )
    };
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut samples = Vec::new();
    for v in 0..HEIGHT {
        for u in 0..panel {
            let x = ((u as f64 - (panel as f64 - size) / 2.0) / size) * 2.0 * half - half;
            let z = ((v as f64 - 20.0) / size) * 2.0 * half - half;
            if (-half..=half).contains(&x) && (-half..=half).contains(&z) {
                let y = world.ground.surface_y_at(x, z).unwrap_or(0.0);
                (low, high) = (low.min(y), high.max(y));
                samples.push((u, v, y));
            }
        }
    }
    for (u, v, y) in samples {
        let shade = (90.0 + 140.0 * (y - low) / (high - low)) as u8;
        pixels[v * WIDTH + u] = [shade; 3];
    }
    let mut dot = |px: f64, py: f64, color: [u8; 3]| {
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (u, v) = (px as usize + dx, py as usize + dy);
            if px >= 0.0 && py >= 0.0 && u < WIDTH && v < HEIGHT {
                pixels[v * WIDTH + u] = color;
            }
        }
    };
    let time_plot = |t: f64, y: f64| {
        (
            panel as f64 + 20.0 + t / SECONDS * (panel as f64 - 40.0),
            HEIGHT as f64 - 20.0 - (y + 0.5) / 7.0 * (HEIGHT as f64 - 40.0),
        )
    };
    for (b, body_path) in paths.iter().enumerate() {
        let color = COLORS[b % COLORS.len()];
        for (k, p) in body_path.iter().enumerate() {
            let (u, v) = to_top(p.x, p.z);
            dot(u, v, color);
            let (u, v) = time_plot(k as f64 * STEP, p.y);
            dot(u, v, color);
        }
        let rest = world.bodies[b].center();
        let radius = world.bodies[b].shape.local_aabb().origin_reach() / (2.0 * half) * size;
        for k in 0..360 {
            let angle = k as f64 * std::f64::consts::PI / 180.0;
            let (u, v) = to_top(rest.x, rest.z);
            dot(u + radius * angle.cos(), v + radius * angle.sin(), color);
        }
    }
    for y in 0..HEIGHT {
        pixels[y * WIDTH + panel] = [0, 0, 0];
    }
    let mut encoder = png::Encoder::new(BufWriter::new(File::create(path)?), WIDTH as u32, HEIGHT as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(pixels.as_flattened())?;
    Ok(())
}
