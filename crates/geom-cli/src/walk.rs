//! The demo's character walk: a capsule walks a route over hilly terrain,
//! slides along a wall and stops in a corner; its path is drawn over a
//! height map.

use std::io;
use std::path::Path;

use geom::prelude::{HeightField, HeightFieldDesc, Isometry3, Point3, Triangle, Vector3};
use geom::prims::sweep::MovingShape;
use geom::{CharacterConfig, CharacterController, Obstacle};

use crate::image::{RgbImage, heat_colour};

/// Samples per side of the demo terrain (unit cells).
const SIDE: usize = 65;
/// Pixels per terrain cell in the picture.
const PIXELS_PER_CELL: usize = 8;

/// What the walk did, for the demo's printout.
#[derive(Clone, Debug, PartialEq)]
pub struct WalkSummary {
    /// Steps taken.
    pub steps: usize,
    /// Contacts made over the whole walk.
    pub collisions: usize,
    /// Where the capsule's centre ended.
    pub end: Point3<f64>,
    /// Whether it ended standing on the ground.
    pub grounded: bool,
    /// The largest move of the last 50 steps (it is pressing into the corner).
    pub last_moves: f64,
}

/// Gentle hills: height at `(x, z)`.
fn hill(x: f64, z: f64) -> f64 {
    1.2 * (x * 0.15).sin() * (z * 0.11).cos() + 0.6 * ((x + z) * 0.07).sin()
}

/// A vertical wall quad from `start` to `end` at ground level, 6 high.
fn wall(start: Point3<f64>, end: Point3<f64>) -> [Triangle<f64>; 2] {
    let up = Vector3::new(0.0, 6.0, 0.0);
    [
        Triangle::new(start, end, end + up),
        Triangle::new(start, end + up, start + up),
    ]
}

/// Walks the route and writes `walk.png` in `out`.
pub fn run_walk(out: &Path) -> io::Result<WalkSummary> {
    let heights = (0..SIDE * SIDE)
        .map(|k| hill((k / SIDE) as f64, (k % SIDE) as f64))
        .collect();
    let field = HeightField::try_from_desc(HeightFieldDesc::new(
        Point3::origin(),
        [1.0, 1.0],
        SIDE,
        SIDE,
        heights,
    ))
    .map_err(|e| io::Error::other(e.to_string()))?;
    // A long wall along z = 40 (x from 10 to 50) and a corner at (50, 40) closing it.
    let mut walls = Vec::new();
    walls.extend(wall(Point3::new(10.0, -3.0, 40.0), Point3::new(50.0, -3.0, 40.0)));
    walls.extend(wall(Point3::new(50.0, -3.0, 20.0), Point3::new(50.0, -3.0, 40.0)));
    let world = [
        Obstacle::HeightField {
            field: &field,
            pose: Isometry3::identity(),
        },
        Obstacle::Triangles(&walls),
    ];
    let table = geom::default_dispatcher::<f64>();
    let start = Point3::new(8.0, hill(8.0, 8.0) + 3.0, 8.0);
    let body = MovingShape::Capsule {
        a: start - Vector3::new(0.0, 0.5, 0.0),
        b: start + Vector3::new(0.0, 0.5, 0.0),
        radius: 0.4,
    };
    let mut character = CharacterController::new(body, CharacterConfig::new(1e-3));
    // Over the hills, then into the wall at an angle (slides along it),
    // then on into the corner (stops).
    let route = [
        Point3::new(30.0, 0.0, 12.0),
        Point3::new(20.0, 0.0, 30.0),
        Point3::new(34.0, 0.0, 60.0),
        Point3::new(70.0, 0.0, 60.0),
    ];
    let speed = 0.15;
    let gravity = Vector3::new(0.0, -0.05, 0.0);
    let mut path = vec![character.position()];
    let mut collisions = 0;
    let mut waypoint = 0;
    let steps = 900;
    let mut last_moves = 0.0f64;
    let mut stalled = false;
    for step in 0..steps {
        let here = character.position();
        let target = route[waypoint.min(route.len() - 1)];
        let mut to_target = Vector3::new(target.x - here.x, 0.0, target.z - here.z);
        // Reached, or blocked (a waypoint behind the wall): on to the next.
        if (to_target.norm() < 0.5 || stalled) && waypoint + 1 < route.len() {
            waypoint += 1;
            to_target = Vector3::new(route[waypoint].x - here.x, 0.0, route[waypoint].z - here.z);
        }
        let walk = to_target.try_normalize(1e-12).unwrap_or_else(Vector3::zeros) * speed;
        collisions += character
            .step(&walk, &gravity, &world, &table)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let moved = character.position() - here;
        stalled = Vector3::new(moved.x, 0.0, moved.z).norm() < 0.1 * speed;
        if step + 50 >= steps {
            last_moves = last_moves.max(moved.norm());
        }
        path.push(character.position());
    }
    write_picture(&field, &walls, &path, &out.join("walk.png"))?;
    Ok(WalkSummary {
        steps,
        collisions,
        end: character.position(),
        grounded: character.is_grounded(),
        last_moves,
    })
}

/// The height map (heat colours, low dark), the walls in white and the
/// path in cyan, seen from above (x to the right, z down).
fn write_picture(
    field: &HeightField<f64>,
    walls: &[Triangle<f64>],
    path: &[Point3<f64>],
    file: &Path,
) -> io::Result<()> {
    let size = (SIDE - 1) * PIXELS_PER_CELL;
    let mut image = RgbImage::new(size, size, [0, 0, 0]);
    let (low, high) = field
        .heights()
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        });
    let scale = PIXELS_PER_CELL as f64;
    for row in 0..size {
        for column in 0..size {
            let (x, z) = (column as f64 / scale, row as f64 / scale);
            let height = field.surface_y_at(x, z).unwrap_or(low);
            image.set(
                column,
                row,
                heat_colour(0.15 + 0.7 * (height - low) / (high - low)),
            );
        }
    }
    let mut plot = |x: f64, z: f64, colour: [u8; 3]| {
        let (column, row) = ((x * scale).round(), (z * scale).round());
        if column >= 0.0 && row >= 0.0 && (column as usize) < size && (row as usize) < size {
            image.set(column as usize, row as usize, colour);
        }
    };
    for triangle in walls {
        for (a, b) in [(triangle.a, triangle.b), (triangle.b, triangle.c)] {
            for k in 0..=400 {
                let p = a + (b - a) * (k as f64 / 400.0);
                plot(p.x, p.z, [255, 255, 255]);
            }
        }
    }
    for pair in path.windows(2) {
        for k in 0..=4 {
            let p = pair[0] + (pair[1] - pair[0]) * (k as f64 / 4.0);
            plot(p.x, p.z, [0, 255, 255]);
            plot(p.x + 1.0 / scale, p.z, [0, 255, 255]);
        }
    }
    image.write_png(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_slides_along_the_wall_and_stops_in_the_corner() {
        let out = std::env::temp_dir().join(format!("geom-walk-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        let summary = run_walk(&out).unwrap();
        assert!(out.join("walk.png").exists());
        // Pressed into the corner at (50, 40): a radius plus the skin from both walls.
        assert!((summary.end.x - (50.0 - 0.4 - 1e-3)).abs() < 1e-6, "{summary:?}");
        assert!((summary.end.z - (40.0 - 0.4 - 1e-3)).abs() < 1e-6, "{summary:?}");
        assert!(summary.last_moves < 1e-6, "{summary:?}");
        assert!(summary.grounded);
        std::fs::remove_dir_all(&out).unwrap();
    }
}
