//! `geom render`: the default scene ray-cast in `f32` and `f64`, shaded by
//! normal, plus a heatmap of how far the `f32` hit times stray from `f64`.
//!
//! The scene is described in the same JSON as `geom query` shapes and built
//! by [`scene::build_shape`](crate::scene::build_shape) in each precision, so
//! the render exercises exactly what queries do. Its coordinates are dyadic
//! (exact in `f32`, also after the 1e4 shift), and every `f32` ray is the
//! `f64` ray rounded, so the heatmap shows what the queries lose, not what
//! the inputs lost on the way in.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use geom::prelude::{Point3, Ray, RayHit, Vector3};
use serde_json::{Value, json};

use crate::canvas::{colour_bar, decade_label, legend_entry, titled};
use crate::image::{RgbImage, heat_colour, normal_colour, sky_colour};
use crate::precision::{Precision, f32_ulp_at};
use crate::scene::{PlacedShape, build_shape};

/// A camera position and what it looks at, in the scene's unshifted frame.
const CAMERA_POSITION: [f64; 3] = [0.0, 4.0, 13.0];
const CAMERA_TARGET: [f64; 3] = [0.0, -0.25, -0.25];
const CAMERA_FOV_Y_DEGREES: f64 = 42.0;

/// The error maps colour log10 of `|t_f32 − t_f64|` in `f32` ulps of
/// `t_f64` from this decade (darkest, also used for an error of exactly
/// zero) ...
pub const HEAT_LOG10_MIN: f64 = -2.0;
/// ... to this one (brightest): the demo table's unit, so that the half-ulp
/// rounding of a good answer sits mid-scale and a 100-ulp loss stands out.
pub const HEAT_LOG10_MAX: f64 = 2.0;
/// Pixels that hit in only one precision.
const DISAGREEMENT_COLOUR: [u8; 3] = [255, 0, 255];
/// Pixels where both precisions miss.
const BOTH_MISS_COLOUR: [u8; 3] = [48, 48, 48];

/// A viewpoint: the scene copy shifted by `offset`, seen by the camera
/// shifted the same way.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Used in file names and tables.
    pub name: &'static str,
    /// Shift of the scene copy and the camera.
    pub offset: [f64; 3],
}

/// The two views: the scene at the origin, and its copy 1e4 away on every axis.
pub const VIEWS: [View; 2] = [
    View {
        name: "near",
        offset: [0.0, 0.0, 0.0],
    },
    View {
        name: "far",
        offset: [1e4, 1e4, 1e4],
    },
];

/// The default scene shifted by `offset`: one of each primitive that has an
/// area (a segment has none, so it is left out), as `(name, JSON shape)`.
/// Every coordinate is a multiple of 1/8, so exact in `f32` below 2^20.
pub fn default_scene(offset: [f64; 3]) -> Vec<(&'static str, Value)> {
    let at = |x: f64, y: f64, z: f64| [x + offset[0], y + offset[1], z + offset[2]];
    vec![
        (
            "sphere",
            json!({"type": "sphere", "center": at(-4.5, 0.0, -2.0), "radius": 1.0}),
        ),
        (
            "capsule",
            json!({"type": "capsule", "a": at(-2.25, -0.25, -1.5), "b": at(-0.75, 0.875, -2.5), "radius": 0.5}),
        ),
        (
            "cylinder",
            json!({"type": "cylinder", "a": at(0.75, -0.5, -2.0), "b": at(2.0, 1.0, -2.75), "radius": 0.625}),
        ),
        (
            "cone",
            json!({"type": "cone", "apex": at(4.75, 1.25, -2.0), "base": at(4.25, -0.75, -1.5), "radius": 1.0}),
        ),
        (
            "ellipsoid",
            json!({"type": "ellipsoid", "center": at(-3.0, 0.0, 1.5), "radii": [1.25, 0.625, 0.75],
                   "rotation": [0.25, 0.5, 0.25, 1.0]}),
        ),
        (
            "box",
            json!({"type": "box", "center": at(0.0, 0.0, 1.5), "half_extents": [0.75, 0.5, 0.625],
                   "rotation": [0.125, 0.5, 0.0, 1.0]}),
        ),
        (
            "triangle",
            json!({"type": "triangle", "a": at(2.0, -1.0, 2.5), "b": at(4.25, -0.5, 1.0), "c": at(3.0, 1.5, 1.25)}),
        ),
        (
            "halfspace",
            json!({"type": "halfspace", "normal": [0.0, 1.0, 0.0], "offset": -1.0 + offset[1]}),
        ),
    ]
}

/// A pinhole camera producing one unit-direction `f64` ray per pixel.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    position: Point3<f64>,
    forward: Vector3<f64>,
    /// Image-plane step per unit of normalised x (half the image width).
    right: Vector3<f64>,
    /// Image-plane step per unit of normalised y (half the image height).
    up: Vector3<f64>,
}

impl Camera {
    /// A camera at `position` looking at `target` with world +y up.
    pub fn looking_at(position: Point3<f64>, target: Point3<f64>, fov_y_degrees: f64, aspect: f64) -> Self {
        let forward = (target - position).normalize();
        let right_unit = forward.cross(&Vector3::y()).normalize();
        let up_unit = right_unit.cross(&forward);
        let half_height = (fov_y_degrees.to_radians() * 0.5).tan();
        Camera {
            position,
            forward,
            right: right_unit * (half_height * aspect),
            up: up_unit * half_height,
        }
    }

    /// The camera of `view` for an image of `width` × `height`.
    pub fn for_view(view: &View, width: usize, height: usize) -> Self {
        let shift = Vector3::from(view.offset);
        Camera::looking_at(
            Point3::from(CAMERA_POSITION) + shift,
            Point3::from(CAMERA_TARGET) + shift,
            CAMERA_FOV_Y_DEGREES,
            width as f64 / height as f64,
        )
    }

    /// The ray through the centre of pixel `(x, y)` (row 0 at the top),
    /// with a unit direction so `t` is a distance.
    pub fn pixel_ray(&self, x: usize, y: usize, width: usize, height: usize) -> Ray<f64> {
        let across = (x as f64 + 0.5) / width as f64 * 2.0 - 1.0;
        let down = (y as f64 + 0.5) / height as f64 * 2.0 - 1.0;
        let dir = (self.forward + self.right * across - self.up * down).normalize();
        Ray::new(self.position, dir)
    }

    /// Where `point` appears in a `width` × `height` image, in pixels
    /// (fractional; `(0, 0)` is the top-left corner), or `None` behind the
    /// camera. The inverse of [`Camera::pixel_ray`].
    pub fn project(&self, point: &Point3<f64>, width: usize, height: usize) -> Option<(f64, f64)> {
        let offset = point - self.position;
        let depth = offset.dot(&self.forward);
        if depth <= 0.0 {
            return None;
        }
        let across = offset.dot(&self.right) / (depth * self.right.norm_squared());
        let down = -offset.dot(&self.up) / (depth * self.up.norm_squared());
        Some((
            (across + 1.0) * 0.5 * width as f64,
            (down + 1.0) * 0.5 * height as f64,
        ))
    }
}

/// What casting every pixel ray at one shape gave, in both precisions.
#[derive(Clone, Debug)]
pub struct ShapeReport {
    /// The shape's name in the scene.
    pub name: &'static str,
    /// Rays cast in each precision.
    pub rays: usize,
    /// Rays that hit in `f64`.
    pub hits_f64: usize,
    /// Rays that hit in `f32`.
    pub hits_f32: usize,
    /// Rays that hit in exactly one precision.
    pub one_precision_only: usize,
    /// For rays that hit in both: `|t_f32 − t_f64|` in `f32` ulps of `t_f64`.
    pub t_error_ulps: Vec<f64>,
    /// Time spent casting in `f64`.
    pub time_f64: Duration,
    /// Time spent casting in `f32`.
    pub time_f32: Duration,
}

impl ShapeReport {
    /// The largest and the median error in ulps (`None` without common hits).
    pub fn max_and_median_ulps(&self) -> Option<(f64, f64)> {
        let mut sorted = self.t_error_ulps.clone();
        sorted.sort_by(f64::total_cmp);
        let max = *sorted.last()?;
        Some((max, sorted[sorted.len() / 2]))
    }
}

/// The nearest hit of a pixel ray: time and unit normal.
type NearestHit<N> = Option<(N, Vector3<N>)>;

/// One view rendered in both precisions.
#[derive(Debug)]
pub struct ViewRender {
    /// Image width in pixels.
    pub width: usize,
    /// Image height in pixels.
    pub height: usize,
    /// Nearest hit per pixel in `f64`, row-major.
    pub nearest_f64: Vec<NearestHit<f64>>,
    /// Nearest hit per pixel in `f32`, row-major.
    pub nearest_f32: Vec<NearestHit<f32>>,
    /// Per-shape counts, errors and timings.
    pub shapes: Vec<ShapeReport>,
    /// Shapes of the scene that could not be built, with the reason.
    pub skipped: Vec<(&'static str, String)>,
}

/// Casts every pixel ray of `view` at every shape of its scene copy, in both
/// precisions, keeping the nearest hit per pixel and per-shape statistics.
pub fn render_view(view: &View, width: usize, height: usize) -> ViewRender {
    let camera = Camera::for_view(view, width, height);
    let rays_f64: Vec<Ray<f64>> = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .map(|(x, y)| camera.pixel_ray(x, y, width, height))
        .collect();
    let rays_f32: Vec<Ray<f32>> = rays_f64
        .iter()
        .map(|ray| {
            Ray::new(
                ray.origin.map(f32::rounded_from_f64),
                ray.dir.map(f32::rounded_from_f64),
            )
        })
        .collect();

    let mut render = ViewRender {
        width,
        height,
        nearest_f64: vec![None; rays_f64.len()],
        nearest_f32: vec![None; rays_f32.len()],
        shapes: Vec::new(),
        skipped: Vec::new(),
    };
    let mut hits_f64 = Vec::with_capacity(rays_f64.len());
    let mut hits_f32 = Vec::with_capacity(rays_f32.len());
    for (name, description) in default_scene(view.offset) {
        let built =
            build_shape::<f64>(&description).and_then(|wide| Ok((wide, build_shape::<f32>(&description)?)));
        let (shape_f64, shape_f32) = match built {
            Ok(pair) => pair,
            Err(reason) => {
                render.skipped.push((name, reason));
                continue;
            }
        };
        let time_f64 = cast_all(&shape_f64, &rays_f64, &mut hits_f64);
        let time_f32 = cast_all(&shape_f32, &rays_f32, &mut hits_f32);
        keep_nearest(&mut render.nearest_f64, &hits_f64);
        keep_nearest(&mut render.nearest_f32, &hits_f32);
        render
            .shapes
            .push(compare_hits(name, &hits_f64, &hits_f32, time_f64, time_f32));
    }
    render
}

/// Casts every ray at `placed` (solid, unlimited `max_t`) into `hits`, and
/// returns the time it took.
fn cast_all<N: Precision>(
    placed: &PlacedShape<N>,
    rays: &[Ray<N>],
    hits: &mut Vec<Option<RayHit<N>>>,
) -> Duration {
    hits.clear();
    let max_t = N::rounded_from_f64(f64::INFINITY);
    let start = Instant::now();
    hits.extend(
        rays.iter()
            .map(|ray| placed.shape.ray_cast(&placed.pose, ray, max_t, true)),
    );
    start.elapsed()
}

fn keep_nearest<N: Precision>(nearest: &mut [NearestHit<N>], hits: &[Option<RayHit<N>>]) {
    for (best, hit) in nearest.iter_mut().zip(hits) {
        if let Some(hit) = hit
            && best.is_none_or(|(t, _)| hit.t < t)
        {
            *best = Some((hit.t, hit.normal));
        }
    }
}

fn compare_hits(
    name: &'static str,
    hits_f64: &[Option<RayHit<f64>>],
    hits_f32: &[Option<RayHit<f32>>],
    time_f64: Duration,
    time_f32: Duration,
) -> ShapeReport {
    let mut report = ShapeReport {
        name,
        rays: hits_f64.len(),
        hits_f64: 0,
        hits_f32: 0,
        one_precision_only: 0,
        t_error_ulps: Vec::new(),
        time_f64,
        time_f32,
    };
    for (wide, narrow) in hits_f64.iter().zip(hits_f32) {
        report.hits_f64 += usize::from(wide.is_some());
        report.hits_f32 += usize::from(narrow.is_some());
        match (wide, narrow) {
            (Some(wide), Some(narrow)) => {
                let error = (f64::from(narrow.t) - wide.t).abs();
                report.t_error_ulps.push(error / f32_ulp_at(wide.t));
            }
            (None, None) => {}
            _ => report.one_precision_only += 1,
        }
    }
    report
}

/// Where a view's scene is, for subtitles.
fn scene_place(view: &View) -> String {
    if view.offset == [0.0; 3] {
        "THE SCENE AT THE ORIGIN".to_string()
    } else {
        format!(
            "SCENE AND CAMERA SHIFTED BY ({:.0E}, {:.0E}, {:.0E})",
            view.offset[0], view.offset[1], view.offset[2]
        )
    }
}

/// The shaded image of `view` in `precision` under its title.
pub fn titled_shading<N: Precision>(render: &ViewRender, nearest: &[NearestHit<N>], view: &View) -> RgbImage {
    let shaded = shade_normals(nearest, render.width, render.height);
    let title = format!(
        "{} VIEW, {}: NEAREST HIT COLOURED BY ITS NORMAL",
        view.name.to_ascii_uppercase(),
        N::NAME
    );
    let subtitle = format!("{}; RGB = NORMAL / 2 + 1/2", scene_place(view));
    titled(&shaded, &title, &subtitle, 0).0
}

/// The nearest hits shaded by their normals, over a sky gradient.
pub fn shade_normals<N: Precision>(nearest: &[NearestHit<N>], width: usize, height: usize) -> RgbImage {
    let mut image = RgbImage::new(width, height, [0, 0, 0]);
    for (index, hit) in nearest.iter().enumerate() {
        let (x, y) = (index % width, index / width);
        let colour = match hit {
            Some((_, normal)) => normal_colour([0, 1, 2].map(|i| normal[i].widened_to_f64())),
            None => sky_colour(y as f64 / height as f64),
        };
        image.set(x, y, colour);
    }
    image
}

/// Heatmap of `|t_f32 − t_f64|` in `f32` ulps of `t_f64` per pixel on a log
/// scale from 10^[`HEAT_LOG10_MIN`] to 10^[`HEAT_LOG10_MAX`], titled, over a colour
/// bar numbered per decade and a legend for the pixels without an error.
pub fn error_heatmap(render: &ViewRender, view: &View) -> RgbImage {
    let (width, height) = (render.width, render.height);
    let mut map = RgbImage::new(width, height, BOTH_MISS_COLOUR);
    for (index, (wide, narrow)) in render.nearest_f64.iter().zip(&render.nearest_f32).enumerate() {
        let colour = match (wide, narrow) {
            (Some((t_wide, _)), Some((t_narrow, _))) => {
                let error = (f64::from(*t_narrow) - t_wide).abs();
                heat_colour(heat_fraction(error / f32_ulp_at(*t_wide)))
            }
            (None, None) => BOTH_MISS_COLOUR,
            _ => DISAGREEMENT_COLOUR,
        };
        map.set(index % width, index / width, colour);
    }
    let title = format!(
        "{} VIEW: ERROR OF THE F32 RAY T AGAINST F64, IN ULPS",
        view.name.to_ascii_uppercase()
    );
    let subtitle = format!("{}; F32 RAY = F64 RAY ROUNDED", scene_place(view));
    let (mut figure, footer) = titled(&map, &title, &subtitle, 74);
    let decades = (HEAT_LOG10_MAX - HEAT_LOG10_MIN) as i32;
    let ticks: Vec<(f64, String)> = (0..=decades)
        .map(|k| {
            let label = decade_label(HEAT_LOG10_MIN as i32 + k);
            let label = match k {
                0 => format!("<={label}"),
                k if k == decades => format!(">={label}"),
                _ => label,
            };
            (f64::from(k) / f64::from(decades), label)
        })
        .collect();
    let bar_width = figure.width().saturating_sub(80).max(2);
    let below = colour_bar(
        &mut figure,
        (40, footer + 8, bar_width),
        heat_colour,
        &ticks,
        "|T_F32 - T_F64| IN F32 ULPS OF T_F64 (LOG SCALE)",
    );
    let x = legend_entry(
        &mut figure,
        40,
        below + 6,
        DISAGREEMENT_COLOUR,
        "HIT IN ONE PRECISION ONLY",
    );
    legend_entry(&mut figure, x, below + 6, BOTH_MISS_COLOUR, "BOTH MISS");
    figure
}

/// Where an error in ulps falls on the heatmap's colour scale, `0..=1`.
pub fn heat_fraction(ulps: f64) -> f64 {
    if ulps <= 0.0 {
        return 0.0;
    }
    ((ulps.log10() - HEAT_LOG10_MIN) / (HEAT_LOG10_MAX - HEAT_LOG10_MIN)).clamp(0.0, 1.0)
}

/// A line describing the heatmap's colour scale, for stdout.
pub fn heatmap_scale_note() -> String {
    format!(
        "error maps: |t_f32 - t_f64| in f32 ulps of t_f64 on a log scale from 1e{} or less (dark) to 1e{} or more \
         (bright), numbered on the bar under each map; magenta = hit in one precision only, grey = both miss",
        HEAT_LOG10_MIN, HEAT_LOG10_MAX
    )
}

/// Options shared by `geom render` and `geom demo`.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Precision of the normal-shaded image (`render` only).
    pub precision: &'static str,
    /// Output folder.
    pub out: PathBuf,
    /// Image width in pixels.
    pub width: usize,
    /// Image height in pixels.
    pub height: usize,
}

impl RenderOptions {
    /// The options of a render at `precision` with `image`'s size into `out`.
    pub fn new(precision: &'static str, image: &crate::cli::ImageArgs, out: PathBuf) -> Self {
        RenderOptions {
            precision,
            out,
            width: image.width as usize,
            height: image.height as usize,
        }
    }
}

/// `geom render`: writes `<view>_<precision>.png` and `<view>_error.png`
/// for both views into the output folder.
pub fn run_render(options: &RenderOptions, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    std::fs::create_dir_all(&options.out)?;
    for view in &VIEWS {
        let render = render_view(view, options.width, options.height);
        if view.name == VIEWS[0].name {
            for (name, reason) in &render.skipped {
                writeln!(out, "skipped {name}: {reason}")?;
            }
        }
        let shaded = if options.precision == "f32" {
            titled_shading(&render, &render.nearest_f32, view)
        } else {
            titled_shading(&render, &render.nearest_f64, view)
        };
        let shaded_path = image_path(&options.out, view, options.precision);
        shaded.write_png(&shaded_path)?;
        let heatmap_path = image_path(&options.out, view, "error");
        error_heatmap(&render, view).write_png(&heatmap_path)?;
        writeln!(
            out,
            "wrote {} and {}",
            shaded_path.display(),
            heatmap_path.display()
        )?;
    }
    writeln!(out, "{}", heatmap_scale_note())?;
    Ok(())
}

/// `DIR/<view>_<suffix>.png`.
pub fn image_path(out: &Path, view: &View, suffix: &str) -> PathBuf {
    out.join(format!("{}_{suffix}.png", view.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn central_ray_looks_at_the_target() {
        let camera = Camera::looking_at(Point3::new(0.0, 0.0, 5.0), Point3::origin(), 60.0, 2.0);
        let ray = camera.pixel_ray(1, 1, 3, 3);
        assert!((ray.dir - Vector3::new(0.0, 0.0, -1.0)).norm() < 1e-15);
        let top_left = camera.pixel_ray(0, 0, 2, 2).dir;
        assert!(top_left.x < 0.0 && top_left.y > 0.0);
        assert!((top_left.norm() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn projection_inverts_the_pixel_ray() {
        let camera = Camera::looking_at(
            Point3::new(-3.0, 7.0, 5.0),
            Point3::new(2.0, 0.0, -1.0),
            50.0,
            1.5,
        );
        for (x, y) in [(0, 0), (37, 12), (59, 39)] {
            let ray = camera.pixel_ray(x, y, 60, 40);
            let (px, py) = camera.project(&(ray.origin + ray.dir * 7.5), 60, 40).unwrap();
            assert!((px - (x as f64 + 0.5)).abs() < 1e-9 && (py - (y as f64 + 0.5)).abs() < 1e-9);
        }
        assert_eq!(camera.project(&Point3::new(-8.0, 14.0, 11.0), 60, 40), None);
    }

    #[test]
    fn scene_coordinates_are_exact_in_f32_far_away() {
        fn check(value: &Value) {
            match value {
                Value::Number(number) => {
                    let wide = number.as_f64().unwrap();
                    assert_eq!(f64::from(wide as f32), wide);
                }
                Value::Array(items) => items.iter().for_each(check),
                Value::Object(map) => map.values().for_each(check),
                _ => {}
            }
        }
        for view in &VIEWS {
            for (_, description) in default_scene(view.offset) {
                check(&description);
            }
        }
    }

    #[test]
    fn heat_fraction_is_log_scaled_and_clamped() {
        assert_eq!(heat_fraction(0.0), 0.0);
        assert_eq!(heat_fraction(1e-5), 0.0);
        assert!((heat_fraction(1.0) - 0.5).abs() < 1e-12);
        assert!((heat_fraction(10.0) - 0.75).abs() < 1e-12);
        assert_eq!(heat_fraction(1e3), 1.0);
    }

    #[test]
    fn small_render_hits_the_sphere_in_both_precisions() {
        let render = render_view(&VIEWS[1], 32, 24);
        let sphere = render.shapes.iter().find(|s| s.name == "sphere").unwrap();
        assert_eq!(sphere.rays, 32 * 24);
        assert!(sphere.hits_f64 > 0);
        assert_eq!(sphere.one_precision_only, 0);
        let (max_ulps, _) = sphere.max_and_median_ulps().unwrap();
        assert!(max_ulps < 16.0, "{max_ulps}");
        assert!(render.nearest_f64.iter().any(Option::is_some));
    }
}
