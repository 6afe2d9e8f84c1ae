//! The demo's character walk: a capsule walks a route over hilly terrain,
//! slides along a wall and stops in a corner; its path is drawn over a
//! height map (`walk.png`), and the terrain is rendered in perspective with
//! the capsule along its path and two bodies resting on it
//! ([`crate::terrain_view`]).

use std::io;
use std::path::Path;

use geom::prelude::{HeightField, HeightFieldDesc, Isometry3, Point3, Triangle, Vector3};
use geom::prims::sweep::MovingShape;
use geom::{CharacterConfig, CharacterController, Obstacle};

use crate::canvas::{self, INK, colour_bar, disc, legend_entry, line, outlined_text, titled};
use crate::image::{Rgb, RgbImage, heat_colour};

/// Samples per side of the demo terrain (unit cells).
pub const SIDE: usize = 65;
/// The walls, as ground-level segments `(x, z)` to `(x, z)`.
const WALLS: [[(f64, f64); 2]; 2] = [[(10.0, 40.0), (50.0, 40.0)], [(50.0, 20.0), (50.0, 40.0)]];
/// The walking capsule: half the length of its core, and its radius.
pub const CAPSULE_HALF_CORE: f64 = 0.5;
/// The walking capsule's radius.
pub const CAPSULE_RADIUS: f64 = 0.4;
/// The path's colour in both pictures.
pub const PATH_COLOUR: Rgb = [0, 230, 255];
/// The walls' colour in the map.
const WALL_COLOUR: Rgb = [255, 255, 255];
const START_COLOUR: Rgb = [40, 200, 80];
const END_COLOUR: Rgb = [230, 40, 40];
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
    /// The capsule's centre before the walk and after each step.
    pub path: Vec<Point3<f64>>,
}

/// The terrain and walls the capsule walks in.
#[derive(Debug)]
pub struct WalkScene {
    /// Hills of [`SIDE`] × [`SIDE`] samples, one unit apart, from the origin.
    pub field: HeightField<f64>,
    /// The walls' triangles, 6 high from below the ground.
    pub walls: Vec<Triangle<f64>>,
}

impl WalkScene {
    /// The hills and the two walls.
    pub fn new() -> io::Result<Self> {
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
        let walls = WALLS
            .iter()
            .flat_map(|[(x0, z0), (x1, z1)]| wall(Point3::new(*x0, -3.0, *z0), Point3::new(*x1, -3.0, *z1)))
            .collect();
        Ok(WalkScene { field, walls })
    }
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

/// Walks the route through `scene` and writes `walk.png` in `out`.
pub fn run_walk(scene: &WalkScene, out: &Path) -> io::Result<WalkSummary> {
    let (field, walls) = (&scene.field, &scene.walls);
    let world = [
        Obstacle::HeightField {
            field,
            pose: Isometry3::identity(),
        },
        Obstacle::Triangles(walls),
    ];
    let table = geom::default_dispatcher::<f64>();
    let start = Point3::new(8.0, hill(8.0, 8.0) + 3.0, 8.0);
    let body = MovingShape::Capsule {
        a: start - Vector3::new(0.0, CAPSULE_HALF_CORE, 0.0),
        b: start + Vector3::new(0.0, CAPSULE_HALF_CORE, 0.0),
        radius: CAPSULE_RADIUS,
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
    write_picture(field, &path, &out.join("walk.png"))?;
    Ok(WalkSummary {
        steps,
        collisions,
        end: character.position(),
        grounded: character.is_grounded(),
        last_moves,
        path,
    })
}

/// The lowest and highest sample of `field`.
pub fn height_range(field: &HeightField<f64>) -> (f64, f64) {
    field
        .heights()
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        })
}

/// The colour of ground at `height` in a field spanning `range`.
pub fn ground_colour(height: f64, (low, high): (f64, f64)) -> Rgb {
    heat_colour(0.15 + 0.7 * (height - low) / (high - low))
}

/// Ticks every half unit over `range`, mapped to `0..=1`.
pub fn height_ticks((low, high): (f64, f64)) -> Vec<(f64, String)> {
    let first = (low * 2.0).ceil() as i32;
    let last = (high * 2.0).floor() as i32;
    (first..=last)
        .map(|k| {
            let value = f64::from(k) * 0.5;
            // The bar spans the colours 0.15..0.85 of the ramp, i.e. the range.
            ((value - low) / (high - low), format!("{value:.1}"))
        })
        .collect()
}

/// `walk.png`: the height map seen from above (x to the right, z down),
/// the walls, the path of the capsule's centre from start to end, a scale
/// bar, and under it the heights' colour bar and a legend.
fn write_picture(field: &HeightField<f64>, path: &[Point3<f64>], file: &Path) -> io::Result<()> {
    let size = (SIDE - 1) * PIXELS_PER_CELL;
    let mut map = RgbImage::new(size, size, [0, 0, 0]);
    let range = height_range(field);
    let scale = PIXELS_PER_CELL as f64;
    for row in 0..size {
        for column in 0..size {
            let (x, z) = (column as f64 / scale, row as f64 / scale);
            let height = field.surface_y_at(x, z).unwrap_or(range.0);
            map.set(column, row, ground_colour(height, range));
        }
    }
    let pixel = |point: &Point3<f64>| (point.x * scale, point.z * scale);
    for [(x0, z0), (x1, z1)] in WALLS {
        let (from, to) = ((x0 * scale, z0 * scale), (x1 * scale, z1 * scale));
        line(&mut map, from, to, 5, INK);
        line(&mut map, from, to, 3, WALL_COLOUR);
    }
    for pair in path.windows(2) {
        line(&mut map, pixel(&pair[0]), pixel(&pair[1]), 2, PATH_COLOUR);
    }
    if let (Some(first), Some(last)) = (path.first(), path.last()) {
        for (point, colour, label) in [(first, START_COLOUR, "START"), (last, END_COLOUR, "END")] {
            let (x, y) = pixel(point);
            disc(&mut map, (x, y), 6.0, colour, INK);
            let left = if x + 60.0 < size as f64 {
                x + 10.0
            } else {
                x - 10.0 - canvas::text_width(label) as f64
            };
            outlined_text(
                &mut map,
                left.max(0.0) as usize,
                (y - 5.0).max(0.0) as usize,
                label,
                WALL_COLOUR,
            );
        }
    }
    // Scale bar: 10 units, bottom left.
    let (bar_left, bar_top) = (16usize, size - 24);
    canvas::fill(
        &mut map,
        bar_left - 1,
        bar_top - 1,
        10 * PIXELS_PER_CELL + 2,
        8,
        INK,
    );
    canvas::fill(&mut map, bar_left, bar_top, 10 * PIXELS_PER_CELL, 6, WALL_COLOUR);
    outlined_text(&mut map, bar_left, bar_top - 16, "10 UNITS", WALL_COLOUR);

    let (mut figure, footer) = titled(
        &map,
        "CHARACTER WALK: A CAPSULE SLIDES ALONG A WALL INTO A CORNER",
        "SEEN FROM ABOVE, X TO THE RIGHT, Z DOWN",
        92,
    );
    let width = figure.width().saturating_sub(80).max(2);
    let below = colour_bar(
        &mut figure,
        (40, footer + 8, width),
        |f| heat_colour(0.15 + 0.7 * f),
        &height_ticks(range),
        "GROUND HEIGHT Y",
    );
    let mut x = 16;
    for (colour, label) in [
        (PATH_COLOUR, "CAPSULE CENTRE"),
        (WALL_COLOUR, "WALL"),
        (START_COLOUR, "START"),
        (END_COLOUR, "END"),
    ] {
        x = legend_entry(&mut figure, x, below + 8, colour, label);
    }
    figure.write_png(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_slides_along_the_wall_and_stops_in_the_corner() {
        let out = std::env::temp_dir().join(format!("geom-walk-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        let summary = run_walk(&WalkScene::new().unwrap(), &out).unwrap();
        assert!(out.join("walk.png").exists());
        // Pressed into the corner at (50, 40): a radius plus the skin from both walls.
        assert!((summary.end.x - (50.0 - 0.4 - 1e-3)).abs() < 1e-6, "{summary:?}");
        assert!((summary.end.z - (40.0 - 0.4 - 1e-3)).abs() < 1e-6, "{summary:?}");
        assert!(summary.last_moves < 1e-6, "{summary:?}");
        assert!(summary.grounded);
        std::fs::remove_dir_all(&out).unwrap();
    }
}
