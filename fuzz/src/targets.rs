//! The body of each fuzz target, generic over the precision; the files in
//! `fuzz_targets/` pick the precision from the first byte and call these.

use geom::prelude::*;
use geom::prims::sweep::MovingShape;
use geom::terrain::sweep::sweep_shape;
use geom::{CharacterConfig, CharacterController, HitBatch, Obstacle, RayBatch, sweep_obstacles};
use simba::simd::{WideF32x4, WideF32x8, WideF64x4};

use crate::{FuzzReal, FuzzShape, Input, LaneShapeVisitor, check};

/// Ray casts, closest points, distances, support points and boxes on one
/// shape at one pose, for up to four queries.
pub fn ray_cast<N: FuzzReal>(input: &mut Input) {
    let Some(shape) = input.shape::<N>() else { return };
    let pose = input.pose::<N>();
    let shape = shape.as_shape();
    for _ in 0..4 {
        let ray = input.ray::<N>();
        let max_t = input.max_t::<N>();
        let solid = input.flag();
        let tame = !input.is_wild();
        let hit = shape.ray_cast(&pose, &ray, max_t, solid);
        check::ray_hit(shape, &pose, &ray, max_t, solid, hit, tame);
        check::projection(shape, &pose, &ray.origin, tame);
        check::support(shape, &pose, &ray.dir);
        if input.is_empty() {
            break;
        }
    }
}

/// The sum of the shapes' box diagonals: how deep a contact between them
/// can be (infinite for a half-space, and for a heightfield, whose solid
/// reaches down without bound below its surface).
fn size_of<N: FuzzReal>(shapes: &[(&dyn Shape<N>, &Isometry3<N>)]) -> N {
    let mut size = N::zero();
    for (shape, pose) in shapes {
        if shape.kind() == ShapeKind::HeightField {
            return N::max_value().unwrap() * nalgebra::convert(2.0);
        }
        let aabb = shape.aabb(pose);
        let diagonal = (aabb.maxs - aabb.mins).norm();
        // Unbounded shapes (half-spaces) make the bound infinite: no check.
        size += diagonal;
    }
    size
}

/// Contacts, closest points, distance and intersection of two shapes
/// through the default dispatch table.
pub fn contact<N: FuzzReal>(input: &mut Input) {
    let Some(a) = input.shape::<N>() else { return };
    let Some(b) = input.shape::<N>() else { return };
    let (pose_a, pose_b) = (input.pose::<N>(), input.pose::<N>());
    let margin = match input.below(3) {
        0 => N::zero(),
        1 => input.length(),
        _ => input.scalar(),
    };
    let tame = !input.is_wild();
    let (a, b) = (a.as_shape(), b.as_shape());
    let table = N::table();
    let context = || format!("{a:?} at {pose_a:?} and {b:?} at {pose_b:?}, margin {margin:?}");
    let size = size_of(&[(a, &pose_a), (b, &pose_b)]);
    let mut manifolds = ContactManifolds::new();
    match table.contact(a, &pose_a, b, &pose_b, margin, &mut manifolds) {
        Ok(()) => check::contacts(&manifolds, margin, size, tame, &context),
        Err(error) => check::pair_error(&error),
    }
    match table.closest_points(a, &pose_a, b, &pose_b, margin) {
        Ok(ClosestPoints::WithinMargin { point_a, point_b }) => {
            assert!(
                check::finite(point_a.iter()) && check::finite(point_b.iter()),
                "closest points {point_a:?} {point_b:?}: {}",
                context()
            );
            let gap = check::length(&(point_b - point_a));
            let slack =
                N::tolerance() * (size.min(nalgebra::convert(1e30)) + check::scale([&point_a, &point_b]));
            assert!(
                !(gap > margin + slack),
                "closest points {gap:?} apart beyond the margin: {}",
                context()
            );
        }
        Ok(_) => {}
        Err(error) => check::pair_error(&error),
    }
    match table.distance(a, &pose_a, b, &pose_b) {
        Ok(distance) => assert!(distance >= N::zero(), "distance {distance:?}: {}", context()),
        Err(error) => check::pair_error(&error),
    }
    if let Err(error) = table.intersects(a, &pose_a, b, &pose_b) {
        check::pair_error(&error);
    }
}

/// The world as obstacles: a few triangles, maybe a heightfield, maybe a
/// shape at a pose.
struct World<N: FuzzReal> {
    triangles: Vec<Triangle<N>>,
    field: Option<(HeightField<N>, Isometry3<N>)>,
    shape: Option<(FuzzShape<N>, Isometry3<N>)>,
}

impl<N: FuzzReal> World<N> {
    fn decode(input: &mut Input) -> Self {
        let triangles = (0..input.below(4))
            .filter_map(|_| match input.shape_of_kind::<N>(7) {
                Some(FuzzShape::Triangle(t)) => Some(t),
                _ => None,
            })
            .collect();
        let field = match input.flag().then(|| input.shape_of_kind::<N>(9)).flatten() {
            Some(FuzzShape::HeightField(field)) => Some((field, input.pose())),
            _ => None,
        };
        let shape = input
            .flag()
            .then(|| input.shape::<N>())
            .flatten()
            .map(|shape| (shape, input.pose()));
        World {
            triangles,
            field,
            shape,
        }
    }

    fn obstacles(&self) -> Vec<Obstacle<'_, N>> {
        let mut obstacles = vec![Obstacle::Triangles(&self.triangles)];
        if let Some((field, pose)) = &self.field {
            obstacles.push(Obstacle::HeightField { field, pose: *pose });
        }
        if let Some((shape, pose)) = &self.shape {
            obstacles.push(Obstacle::Shape {
                shape: shape.as_shape(),
                pose: *pose,
            });
        }
        obstacles
    }
}

/// Sweeps (`sweep_shape`, `sweep_obstacles`) and collide-and-slide
/// (`CharacterController::slide`, `fall`, `step`).
pub fn sweep<N: FuzzReal>(input: &mut Input) {
    let table = N::table();
    match input.below(3) {
        0 => {
            let Some(shape) = input.shape::<N>() else { return };
            let Some(target) = input.shape::<N>() else { return };
            let (pose, target_pose) = (input.pose::<N>(), input.pose::<N>());
            let motion = input.vector::<N>();
            let (shape, target) = (shape.as_shape(), target.as_shape());
            let context =
                || format!("{shape:?} at {pose:?} by {motion:?} against {target:?} at {target_pose:?}");
            match sweep_shape(shape, &pose, &motion, target, &target_pose, table) {
                Ok(hit) => check::sweep_hit(&hit, &context),
                Err(error) => check::pair_error(&error),
            }
        }
        1 => {
            let Some(mover) = moving_shape::<N>(input) else {
                return;
            };
            let world = World::<N>::decode(input);
            let motion = input.vector::<N>();
            let obstacles = world.obstacles();
            let context = || format!("{mover:?} by {motion:?} against {obstacles:?}");
            match sweep_obstacles(&mover, &motion, &obstacles, table) {
                Ok(hit) => {
                    if let Some((index, _)) = hit {
                        assert!(index < obstacles.len(), "{}", context());
                    }
                    check::sweep_hit(&hit.map(|(_, hit)| hit), &context)
                }
                Err(error) => check::pair_error(&error),
            }
        }
        _ => character(input, table),
    }
}

/// A sphere, capsule or ellipsoid placed in the world.
fn moving_shape<N: FuzzReal>(input: &mut Input) -> Option<MovingShape<N>> {
    let shape = input.moving_shape::<N>()?;
    let pose = input.pose::<N>();
    MovingShape::from_shape(shape.as_shape(), &pose)
}

/// A character that slides, falls and steps through a decoded world.
fn character<N: FuzzReal>(input: &mut Input, table: &geom::DispatchTable<N>) {
    let Some(body) = moving_shape::<N>(input) else {
        return;
    };
    let mut config = CharacterConfig::new(input.length::<N>());
    config.max_iterations = input.below(8);
    if input.flag() {
        config = config.with_max_slope_degrees(input.scalar());
    }
    if input.flag() {
        let up = input.vector::<N>();
        let length = up.norm();
        if length > N::zero() && length.is_finite() {
            config.up = up / length;
        }
    }
    let world = World::<N>::decode(input);
    let obstacles = world.obstacles();
    let mut controller = CharacterController::new(body, config);
    for _ in 0..3 {
        let before = controller.position();
        let walk = input.vector::<N>();
        let gravity = input.vector::<N>();
        let action = input.below(3);
        let start = controller;
        let context = || format!("{start:?} {action} by {walk:?} {gravity:?} through {obstacles:?}");
        let answer = match action {
            0 => controller.slide(&walk, &obstacles, table),
            1 => controller.fall(&gravity, &obstacles, table),
            _ => controller.step(&walk, &gravity, &obstacles, table),
        };
        match answer {
            Ok(collisions) => assert!(
                collisions <= 2 * config.max_iterations + 2,
                "{collisions} collisions: {}",
                context()
            ),
            Err(error) => check::pair_error(&error),
        }
        let after = controller.position();
        if !input.is_wild() {
            assert!(
                check::finite(after.iter()),
                "from {before:?} to {after:?}: {}",
                context()
            );
        }
        if input.is_empty() {
            break;
        }
    }
}

/// Whether two optional hits are the same bits (the features too, unless
/// `skip_feature`).
fn same_bits<N: FuzzReal>(a: &Option<RayHit<N>>, b: &Option<RayHit<N>>, skip_feature: bool) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.t.bits() == b.t.bits()
                && a.normal
                    .iter()
                    .zip(b.normal.iter())
                    .all(|(x, y)| x.bits() == y.bits())
                && (skip_feature || a.feature == b.feature)
        }
        _ => false,
    }
}

/// The batch entry points against the scalar trait call, ray by ray.
#[derive(Debug)]
pub struct BatchAgainstScalar<'a, N: FuzzReal> {
    pose: Isometry3<N>,
    rays: &'a [Ray<N>],
    max_t: N,
    solid: bool,
    tame: bool,
}

impl<N: FuzzReal> BatchAgainstScalar<'_, N> {
    fn compare<S: LaneShape<N> + Shape<N>>(&self, shape: &S, batch: &HitBatch<N>, entry: &str) {
        // A segment's trait call relabels the kernel's Face(0) as Edge(0).
        let skip_feature = shape.kind() == ShapeKind::Segment;
        assert_eq!(batch.len(), self.rays.len(), "{entry}");
        for (i, ray) in self.rays.iter().enumerate() {
            let scalar = shape.ray_cast(&self.pose, ray, self.max_t, self.solid);
            let lane = batch.get(i);
            assert!(
                same_bits(&scalar, &lane, skip_feature),
                "{entry} row {i} of {}: {lane:?} but the trait call gives {scalar:?}; {shape:?} at {:?}, {ray:?}, \
                 max_t {:?}, solid {}",
                self.rays.len(),
                self.pose,
                self.max_t,
                self.solid
            );
            check::ray_hit(shape, &self.pose, ray, self.max_t, self.solid, lane, self.tame);
        }
    }
}

/// Lane packs of the precision: `WideF32x8` and `WideF32x4` for `f32`,
/// `WideF64x4` for `f64`.
pub trait BatchLanes: FuzzReal {
    /// Casts `rays` on every lane pack of the precision and compares each
    /// with the scalar trait call.
    fn every_pack<S: LaneShape<Self> + Shape<Self>>(shape: &S, check: &BatchAgainstScalar<'_, Self>);
}

fn one_pack<T: geom::Pack, S: LaneShape<T::Element> + Shape<T::Element>>(
    shape: &S,
    check: &BatchAgainstScalar<'_, T::Element>,
    entry: &str,
) where
    T::Element: FuzzReal,
{
    let rays = RayBatch::from_rays(check.rays);
    let mut out = HitBatch::new();
    geom::ray_cast_batch_lanes::<T, S>(shape, &check.pose, &rays, check.max_t, check.solid, &mut out);
    check.compare(shape, &out, entry);
}

impl BatchLanes for f32 {
    fn every_pack<S: LaneShape<f32> + Shape<f32>>(shape: &S, check: &BatchAgainstScalar<'_, f32>) {
        one_pack::<WideF32x8, S>(shape, check, "WideF32x8");
        one_pack::<WideF32x4, S>(shape, check, "WideF32x4");
    }
}

impl BatchLanes for f64 {
    fn every_pack<S: LaneShape<f64> + Shape<f64>>(shape: &S, check: &BatchAgainstScalar<'_, f64>) {
        one_pack::<WideF64x4, S>(shape, check, "WideF64x4");
    }
}

impl<N: FuzzReal + BatchLanes> LaneShapeVisitor<N> for &BatchAgainstScalar<'_, N> {
    type Output = ();

    fn visit<S: LaneShape<N> + Shape<N> + geom::BatchShape<N> + Sync>(self, shape: &S) {
        let rays = RayBatch::from_rays(self.rays);
        let mut out = HitBatch::new();
        geom::ray_cast_batch(shape, &self.pose, &rays, self.max_t, self.solid, &mut out);
        self.compare(shape, &out, "ray_cast_batch");
        let mut parallel = HitBatch::new();
        geom::par_ray_cast_batch(shape, &self.pose, &rays, self.max_t, self.solid, &mut parallel);
        self.compare(shape, &parallel, "par_ray_cast_batch");
        let slice = geom::ray_cast_slice(shape, &self.pose, self.rays, self.max_t, self.solid);
        let mut from_slice = HitBatch::new();
        slice.into_iter().for_each(|hit| from_slice.push(hit));
        self.compare(shape, &from_slice, "ray_cast_slice");
        N::every_pack(shape, self);
    }
}

/// `ray_cast_batch`, `par_ray_cast_batch`, `ray_cast_slice` and every lane
/// pack of the precision on 1–20 rays: each row equals the scalar trait
/// call bit for bit (tails included) and keeps the ray-cast properties.
pub fn batch<N: FuzzReal + BatchLanes>(input: &mut Input) {
    let Some(shape) = input.shape::<N>() else { return };
    let pose = input.pose::<N>();
    let count = 1 + input.below(20);
    // Rays share an origin half of the time (a camera).
    let shared_origin = input.flag().then(|| input.point::<N>());
    let rays: Vec<Ray<N>> = (0..count)
        .map(|_| {
            let origin = shared_origin.unwrap_or_else(|| input.point());
            Ray::new(origin, input.vector())
        })
        .collect();
    let max_t = input.max_t::<N>();
    let solid = input.flag();
    let check = BatchAgainstScalar {
        pose,
        rays: &rays,
        max_t,
        solid,
        tame: !input.is_wild(),
    };
    shape.visit_lanes(&check);
}

/// A JSON number for `value`, or a stand-in that is not a number (JSON has
/// no NaN or infinity): a string, `null`, or an out-of-range literal.
fn json_number(value: f64, input: &mut Input) -> String {
    if value.is_finite() {
        return format!("{value:?}");
    }
    match input.below(3) {
        0 => "null".to_string(),
        1 => format!("\"{value}\""),
        _ => if value < 0.0 { "-1e999" } else { "1e999" }.to_string(),
    }
}

fn json_point(input: &mut Input) -> String {
    let coordinates: Vec<String> = (0..3)
        .map(|_| {
            let value = input.scalar::<f64>();
            json_number(value, input)
        })
        .collect();
    format!("[{}]", coordinates.join(","))
}

fn json_scalar(input: &mut Input) -> String {
    let value = input.scalar::<f64>();
    json_number(value, input)
}

/// A `geom query` SHAPE object of any type, with any numbers.
fn json_shape(input: &mut Input) -> String {
    match input.below(10) {
        0 => format!(
            r#"{{"type":"sphere","center":{},"radius":{}}}"#,
            json_point(input),
            json_scalar(input)
        ),
        1 => format!(
            r#"{{"type":"capsule","a":{},"b":{},"radius":{}}}"#,
            json_point(input),
            json_point(input),
            json_scalar(input)
        ),
        2 => format!(
            r#"{{"type":"cylinder","a":{},"b":{},"radius":{}}}"#,
            json_point(input),
            json_point(input),
            json_scalar(input)
        ),
        3 => format!(
            r#"{{"type":"cone","apex":{},"base":{},"radius":{}}}"#,
            json_point(input),
            json_point(input),
            json_scalar(input)
        ),
        4 => format!(
            r#"{{"type":"ellipsoid","center":{},"radii":{},"rotation":[{},{},{},{}]}}"#,
            json_point(input),
            json_point(input),
            json_scalar(input),
            json_scalar(input),
            json_scalar(input),
            json_scalar(input)
        ),
        5 => format!(
            r#"{{"type":"box","center":{},"half_extents":{},"rotation":[{},{},{},{}]}}"#,
            json_point(input),
            json_point(input),
            json_scalar(input),
            json_scalar(input),
            json_scalar(input),
            json_scalar(input)
        ),
        6 => format!(
            r#"{{"type":"halfspace","normal":{},"offset":{}}}"#,
            json_point(input),
            json_scalar(input)
        ),
        7 => format!(
            r#"{{"type":"triangle","a":{},"b":{},"c":{}}}"#,
            json_point(input),
            json_point(input),
            json_point(input)
        ),
        8 => format!(
            r#"{{"type":"segment","a":{},"b":{}}}"#,
            json_point(input),
            json_point(input)
        ),
        _ => {
            let rows = input.below(5);
            let cols = input.below(5);
            let count = rows * cols + input.below(2);
            let heights: Vec<String> = (0..count).map(|_| json_scalar(input)).collect();
            let cells: Vec<String> = (0..input.below(3)).map(|_| input.below(20).to_string()).collect();
            format!(
                r#"{{"type":"heightfield","origin":{},"cell":[{},{}],"rows":{rows},"cols":{cols},"heights":[{}],"holes":[{}],"flip":[{}]}}"#,
                json_point(input),
                json_scalar(input),
                json_scalar(input),
                heights.join(","),
                cells.join(","),
                cells.iter().rev().cloned().collect::<Vec<_>>().join(",")
            )
        }
    }
}

/// A well-formed `geom query` line of any op, with any shapes and numbers.
fn json_query(input: &mut Input) -> String {
    let precision = ["\"f32\"", "\"f64\""][input.below(2)];
    let body = match input.below(5) {
        0 => format!(
            r#""op":"ray_cast","shape":{},"ray":{{"origin":{},"dir":{}}},"max_t":{},"solid":{}"#,
            json_shape(input),
            json_point(input),
            json_point(input),
            json_scalar(input),
            input.flag()
        ),
        1 => format!(
            r#""op":"closest_point","shape":{},"point":{},"solid":{}"#,
            json_shape(input),
            json_point(input),
            input.flag()
        ),
        2 => format!(
            r#""op":"contact","a":{},"b":{},"margin":{}"#,
            json_shape(input),
            json_shape(input),
            json_scalar(input)
        ),
        3 => format!(
            r#""op":"sweep","shape":{},"motion":{},"target":{}"#,
            json_shape(input),
            json_point(input),
            json_shape(input)
        ),
        _ => {
            let world: Vec<String> = (0..input.below(3)).map(|_| json_shape(input)).collect();
            format!(
                r#""op":"slide","shape":{},"motion":{},"world":[{}],"max_iterations":{}"#,
                json_shape(input),
                json_point(input),
                world.join(","),
                input.below(12)
            )
        }
    };
    format!(r#"{{"id":{},"precision":{precision},{body}}}"#, input.below(1000))
}

/// `geom query` on raw bytes (any content, any number of lines) or on a
/// generated well-formed line: one answer line per non-blank input line,
/// each a JSON object with an `id`, errors counted, no NaN or infinity
/// printed (the output must parse as JSON).
pub fn query_line(input: &mut Input, raw: &[u8]) {
    let text = if input.flag() {
        raw.to_vec()
    } else {
        json_query(input).into_bytes()
    };
    let mut output = Vec::new();
    let summary =
        geom_cli::query::run_query(text.as_slice(), &mut output).expect("writing to a Vec cannot fail");
    let non_blank = text
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| std::str::from_utf8(line).map_or(true, |s| !s.trim().is_empty()))
        .count();
    let output = String::from_utf8(output).expect("answers are UTF-8");
    let lines: Vec<&str> = output.lines().collect();
    let context = || format!("{:?} -> {output}", String::from_utf8_lossy(&text));
    assert_eq!(lines.len(), non_blank, "{}", context());
    assert_eq!(summary.answered, non_blank, "{}", context());
    let mut failed = 0;
    for line in &lines {
        let answer: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("answer {line:?} is not JSON ({e}): {}", context()));
        assert!(answer.get("id").is_some(), "{line}: {}", context());
        if answer.get("error").is_some() {
            failed += 1;
        }
        if let Some(t) = answer.get("toi").and_then(serde_json::Value::as_f64) {
            assert!((0.0..=1.0).contains(&t), "{line}: {}", context());
        }
        if let Some(t) = answer.get("t").and_then(serde_json::Value::as_f64) {
            assert!(t >= 0.0, "{line}: {}", context());
        }
    }
    assert_eq!(summary.failed, failed, "{}", context());
}
