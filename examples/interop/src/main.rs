//! Builds the scene, casts 10⁵ rays at its terrain in one batch, writes the
//! scene to JSON and reads it back, and prints what happened.

use geom_interop_example::{cast, from_json, grid_rays, hit_points, scene, to_json};

fn main() {
    let scene = scene();
    let rays = grid_rays(100_000);
    let hits = cast(&scene.terrain, &rays);
    let points = hit_points(&rays, &hits);
    let lowest = points.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let highest = points.iter().map(|p| p.y).fold(f32::NEG_INFINITY, f32::max);
    println!(
        "{} rays cast down at the terrain in one batch: {} hit, {} fell through its holes; hit heights {lowest:.3} to {highest:.3} m",
        rays.len(),
        points.len(),
        rays.len() - points.len()
    );
    let json = to_json(&scene);
    let read = from_json(&json).expect("the scene reads back");
    let same = format!("{read:?}") == format!("{scene:?}");
    println!(
        "scene ({} bodies, {} × {} terrain) as JSON: {} bytes; read back {}",
        scene.bodies.len(),
        scene.terrain.rows(),
        scene.terrain.cols(),
        json.len(),
        if same { "bit for bit" } else { "DIFFERENT" }
    );
    for body in &read.bodies {
        let (position, rotation): (geom::glam::Vec3, geom::glam::Quat) = body.pose.into();
        println!("  {:<7} at {position:?}, rotation {rotation:?}", body.name);
    }
    if !same {
        std::process::exit(1);
    }
}
