//! `terrain.png`: the walk's terrain in perspective, one `f64` ray cast per
//! pixel (and one towards the light for shadows), with the walking capsule
//! drawn at its poses along the path, the path of its feet, the walls, and
//! a box and a cylinder dropped onto the ground by `sweep_shape`.

use std::io;
use std::path::Path;

use geom::prelude::{
    Capsule, Cuboid, Cylinder, HeightField, Isometry3, Point3, Ray, Shape, Translation3, UnitQuaternion,
    Vector3,
};
use geom::{DispatchTable, sweep_shape};

use crate::canvas::{legend_entry, line, outlined_text, titled};
use crate::image::{Rgb, RgbImage, sky_colour};
use crate::render::Camera;
use crate::walk::{
    CAPSULE_HALF_CORE, CAPSULE_RADIUS, PATH_COLOUR, SIDE, WalkScene, ground_colour, height_range,
};

/// How many poses of the capsule are drawn along its path.
const CAPSULE_POSES: usize = 6;
const CAPSULE_COLOUR: Rgb = [240, 240, 250];
const BOX_COLOUR: Rgb = [70, 130, 230];
const CYLINDER_COLOUR: Rgb = [60, 200, 120];
const WALL_COLOUR: Rgb = [170, 170, 170];
/// Towards the light (unit).
const LIGHT: [f64; 3] = [0.36, 0.8, 0.48];

/// How a body rests on the ground after being dropped.
#[derive(Clone, Debug)]
pub struct Resting {
    /// The body's name.
    pub name: &'static str,
    /// Its pose after the drop.
    pub pose: Isometry3<f64>,
    /// Its distance from the ground there (by the dispatch table).
    pub gap: f64,
}

/// Something in the picture: a shape at a pose, in a colour (`None`: the
/// ground, coloured by height).
struct Object {
    shape: Box<dyn Shape<f64>>,
    pose: Isometry3<f64>,
    colour: Option<Rgb>,
}

/// A body to drop: its name, shape, pose before the drop and colour.
type Body = (&'static str, Box<dyn Shape<f64>>, Isometry3<f64>, Rgb);

/// The bodies that rest on the terrain: a box turned about y and a
/// cylinder lying on its side.
fn bodies() -> [Body; 2] {
    let turn = |angle: f64| UnitQuaternion::from_axis_angle(&Vector3::y_axis(), angle);
    let lying = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2) * turn(0.4);
    [
        (
            "box",
            Box::new(Cuboid::new(Vector3::new(2.0, 1.25, 1.5))),
            Isometry3::from_parts(Translation3::new(40.0, 12.0, 18.0), turn(0.5)),
            BOX_COLOUR,
        ),
        (
            "cylinder",
            Box::new(Cylinder::from_points(
                Point3::new(0.0, -1.75, 0.0),
                Point3::new(0.0, 1.75, 0.0),
                1.0,
            )),
            Isometry3::from_parts(Translation3::new(12.0, 12.0, 27.0), lying),
            CYLINDER_COLOUR,
        ),
    ]
}

/// Drops `shape` straight down from `pose` onto `field` (a sweep through
/// the dispatch table): the pose where it first touches.
fn dropped(
    shape: &dyn Shape<f64>,
    pose: &Isometry3<f64>,
    field: &HeightField<f64>,
    table: &DispatchTable<f64>,
) -> io::Result<Isometry3<f64>> {
    let motion = Vector3::new(0.0, -40.0, 0.0);
    let hit = sweep_shape(shape, pose, &motion, field, &Isometry3::identity(), table)
        .map_err(|e| io::Error::other(e.to_string()))?
        .ok_or_else(|| io::Error::other("a dropped body missed the terrain"))?;
    Ok(Isometry3::from_parts(
        Translation3::from(pose.translation.vector + motion * hit.toi),
        pose.rotation,
    ))
}

/// Renders `terrain.png` (`width` × `height` rays, plus a title band and a
/// legend) into `file`; returns how the bodies came to rest.
pub fn write_terrain_view(
    scene: &WalkScene,
    path: &[Point3<f64>],
    file: &Path,
    width: usize,
    height: usize,
) -> io::Result<Vec<Resting>> {
    let field = &scene.field;
    let identity = Isometry3::identity();
    let table = geom::default_dispatcher::<f64>();
    let mut objects: Vec<Object> = Vec::new();
    let mut resting = Vec::new();
    for (name, shape, pose, colour) in bodies() {
        let pose = dropped(shape.as_ref(), &pose, field, &table)?;
        let gap = table
            .distance(shape.as_ref(), &pose, field, &identity)
            .map_err(|e| io::Error::other(e.to_string()))?;
        resting.push(Resting { name, pose, gap });
        objects.push(Object {
            shape,
            pose,
            colour: Some(colour),
        });
    }
    let poses =
        (0..CAPSULE_POSES).filter_map(|k| path.get(k * (path.len().max(1) - 1) / (CAPSULE_POSES - 1)));
    for centre in poses {
        let core = Vector3::new(0.0, CAPSULE_HALF_CORE, 0.0);
        let capsule = Capsule::from_points(centre - core, centre + core, CAPSULE_RADIUS);
        objects.push(Object {
            shape: Box::new(capsule),
            pose: identity,
            colour: Some(CAPSULE_COLOUR),
        });
    }
    for wall in &scene.walls {
        objects.push(Object {
            shape: Box::new(*wall),
            pose: identity,
            colour: Some(WALL_COLOUR),
        });
    }
    // The ground last: `None` colours by height.
    objects.push(Object {
        shape: Box::new(field.clone()),
        pose: identity,
        colour: None,
    });

    let side = (SIDE - 1) as f64;
    let camera = Camera::looking_at(
        Point3::new(-0.04 * side, 0.42 * side, -0.2 * side),
        Point3::new(0.48 * side, -4.0, 0.42 * side),
        42.0,
        width as f64 / height as f64,
    );
    let range = height_range(field);
    let light = Vector3::from(LIGHT);
    let nearest = |ray: &Ray<f64>| {
        objects
            .iter()
            .filter_map(|object| {
                object
                    .shape
                    .ray_cast(&object.pose, ray, f64::INFINITY, true)
                    .map(|hit| (hit, object.colour))
            })
            .min_by(|a, b| a.0.t.total_cmp(&b.0.t))
    };
    let mut picture = RgbImage::new(width, height, [0, 0, 0]);
    for y in 0..height {
        for x in 0..width {
            let ray = camera.pixel_ray(x, y, width, height);
            let colour = match nearest(&ray) {
                None => sky_colour(y as f64 / height as f64),
                Some((hit, colour)) => {
                    let point = ray.origin + ray.dir * hit.t;
                    let base = colour.unwrap_or_else(|| ground_colour(point.y, range));
                    let lambert = hit.normal.dot(&light).max(0.0);
                    // A point a hair off the surface, towards the light.
                    let shadow_ray = Ray::new(point + hit.normal * 1e-6, light);
                    let lit = if lambert > 0.0 && nearest(&shadow_ray).is_none() {
                        lambert
                    } else {
                        0.0
                    };
                    let brightness = 0.35 + 0.65 * lit;
                    base.map(|c| (f64::from(c) * brightness).round() as u8)
                }
            };
            picture.set(x, y, colour);
        }
    }
    // The path of the capsule's feet, just above the ground.
    let feet = Vector3::new(0.0, CAPSULE_HALF_CORE + CAPSULE_RADIUS - 0.05, 0.0);
    let projected: Vec<Option<(f64, f64)>> = path
        .iter()
        .map(|centre| camera.project(&(centre - feet), width, height))
        .collect();
    for pair in projected.windows(2) {
        if let (Some(from), Some(to)) = (pair[0], pair[1]) {
            line(&mut picture, from, to, 2, PATH_COLOUR);
        }
    }
    for (end, label) in [(projected.first(), "START"), (projected.last(), "END")] {
        if let Some(Some((x, y))) = end {
            let left = (x + 12.0).min((width as f64 - 8.0 * label.len() as f64).max(0.0));
            outlined_text(
                &mut picture,
                left.max(0.0) as usize,
                (y - 4.0).max(0.0) as usize,
                label,
                [255, 255, 255],
            );
        }
    }
    let (mut figure, footer) = titled(
        &picture,
        "TERRAIN: A CAPSULE WALKING, A BOX AND A CYLINDER RESTING",
        "ONE F64 RAY PER PIXEL AND ONE FOR ITS SHADOW; BODIES DROPPED BY SWEEP_SHAPE",
        28,
    );
    let mut x = 16;
    for (colour, label) in [
        (CAPSULE_COLOUR, "CAPSULE, 6 POSES ALONG ITS WALK"),
        (PATH_COLOUR, "ITS FEET"),
        (BOX_COLOUR, "BOX"),
        (CYLINDER_COLOUR, "CYLINDER"),
        (WALL_COLOUR, "WALLS"),
    ] {
        x = legend_entry(&mut figure, x, footer + 9, colour, label);
    }
    figure.write_png(file)?;
    Ok(resting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::WalkScene;

    /// The dropped bodies touch the ground: their distance from it is
    /// within the sweep's tolerance, and a millimetre lower they overlap it.
    #[test]
    fn bodies_rest_on_the_ground() {
        let scene = WalkScene::new().unwrap();
        let out = std::env::temp_dir().join(format!("geom-terrain-view-{}.png", std::process::id()));
        let path = vec![Point3::new(8.0, 3.0, 8.0), Point3::new(30.0, 1.0, 12.0)];
        let resting = write_terrain_view(&scene, &path, &out, 48, 32).unwrap();
        assert!(out.exists());
        std::fs::remove_file(&out).unwrap();
        let table = geom::default_dispatcher::<f64>();
        for ((name, shape, _, _), rest) in bodies().iter().zip(&resting) {
            assert_eq!(*name, rest.name);
            assert!(rest.gap >= 0.0 && rest.gap < 1e-6, "{name}: {}", rest.gap);
            let lower = Isometry3::from_parts(
                Translation3::from(rest.pose.translation.vector - Vector3::new(0.0, 1e-3, 0.0)),
                rest.pose.rotation,
            );
            let sunk = table
                .intersects(shape.as_ref(), &lower, &scene.field, &Isometry3::identity())
                .unwrap();
            assert!(sunk, "{name}");
        }
    }
}
