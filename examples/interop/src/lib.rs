//! geom as a crate that depends on it sees it, with the features `glam`,
//! `mint`, `serde` and `parallel`: a scene whose bodies are placed with
//! glam's vectors and quaternions (as a glam-based engine holds them), a
//! heightfield hit by a batch of rays, and the whole scene written to JSON
//! and read back.
//!
//! `cargo run -p geom-interop-example` prints what it did; the tests in
//! `tests/interop.rs` check each step against an independent answer.

use geom::batch::{HitBatch, RayBatch};
use geom::glam::{Quat, Vec3};
use geom::prelude::*;
use serde::{Deserialize, Serialize};

/// A shape of the scene, tagged by its kind in JSON
/// (`{"kind": "sphere", "radius": 0.5}`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BodyShape {
    /// A ball.
    Sphere(Sphere<f32>),
    /// A capsule between two points.
    Capsule(Capsule<f32>),
    /// A box.
    Cuboid(Cuboid<f32>),
    /// A capped cylinder between two points.
    Cylinder(Cylinder<f32>),
}

impl BodyShape {
    /// The shape as a trait object, for the dispatch table.
    pub fn as_shape(&self) -> &dyn Shape<f32> {
        match self {
            BodyShape::Sphere(s) => s,
            BodyShape::Capsule(s) => s,
            BodyShape::Cuboid(s) => s,
            BodyShape::Cylinder(s) => s,
        }
    }
}

/// A body: a named shape and its pose.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Body {
    /// What the body is called.
    pub name: String,
    /// Its shape, in its local frame.
    pub shape: BodyShape,
    /// Where it is: local to world.
    pub pose: Isometry3<f32>,
}

/// A terrain and the bodies resting on it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scene {
    /// The ground.
    pub terrain: HeightField<f32>,
    /// Everything else.
    pub bodies: Vec<Body>,
}

/// Samples per side of the terrain.
pub const SAMPLES: usize = 129;

/// The terrain's height at `(x, z)` (metres), the samples' formula.
pub fn height(x: f32, z: f32) -> f32 {
    1.5 * (0.21 * x).sin() * (0.17 * z).cos() + 0.4 * (0.53 * x + 0.31 * z).sin()
}

/// A 129 × 129 terrain with 0.5 m cells, centred on the origin, with a
/// few holes.
pub fn terrain() -> HeightField<f32> {
    let half = (SAMPLES - 1) as f32 * 0.5 * 0.5;
    let origin = Point3::new(-half, 0.0, -half);
    let heights = (0..SAMPLES * SAMPLES)
        .map(|k| {
            height(
                origin.x + 0.5 * (k / SAMPLES) as f32,
                origin.z + 0.5 * (k % SAMPLES) as f32,
            )
        })
        .collect();
    let mut desc = HeightFieldDesc::new(origin, [0.5, 0.5], SAMPLES, SAMPLES, heights);
    desc.hole_cells = vec![1000, 1001, 1128, 1129];
    HeightField::try_from_desc(desc).expect("a valid terrain")
}

/// The scene: the terrain and four bodies, each placed by a glam position
/// and rotation (`Isometry3::from((Vec3, Quat))`, nalgebra's conversion)
/// and then dropped straight down onto the terrain until 1 mm above it
/// (the dispatch table's distance).
pub fn scene() -> Scene {
    let terrain = terrain();
    let table = geom::default_dispatcher::<f32>();
    let place = |x: f32, z: f32, lift: f32, rotation: Quat| -> Isometry3<f32> {
        (Vec3::new(x, height(x, z) + lift, z), rotation).into()
    };
    // From 2 m higher (the distance is zero once shapes overlap), lowered
    // by the gap less 1 mm until it stays.
    let dropped = |shape: &dyn Shape<f32>, mut pose: Isometry3<f32>| {
        pose.translation.vector.y += 2.0;
        for _ in 0..8 {
            let gap = table
                .distance(&terrain, &Isometry3::identity(), shape, &pose)
                .expect("every shape has a routine against a heightfield");
            pose.translation.vector.y -= gap - 1e-3;
        }
        pose
    };
    let mut bodies = vec![
        Body {
            name: "ball".into(),
            shape: BodyShape::Sphere(Sphere::new(0.5)),
            pose: place(3.0, -4.0, 0.5, Quat::IDENTITY),
        },
        Body {
            name: "walker".into(),
            shape: BodyShape::Capsule(Capsule::from_points(
                Point3::new(0.0, -0.6, 0.0),
                Point3::new(0.0, 0.6, 0.0),
                0.3,
            )),
            pose: place(-2.5, 1.0, 0.9, Quat::IDENTITY),
        },
        Body {
            name: "crate".into(),
            shape: BodyShape::Cuboid(Cuboid::new(Vector3::new(0.5, 0.4, 0.3))),
            pose: place(6.0, 6.0, 0.6, Quat::from_rotation_y(0.7)),
        },
        Body {
            name: "barrel".into(),
            shape: BodyShape::Cylinder(Cylinder::from_points(
                Point3::new(0.0, 0.0, -0.45),
                Point3::new(0.0, 0.0, 0.45),
                0.35,
            )),
            pose: place(
                -7.0,
                -3.0,
                0.4,
                Quat::from_rotation_x(0.2) * Quat::from_rotation_z(0.4),
            ),
        },
    ];
    for body in &mut bodies {
        body.pose = dropped(body.shape.as_shape(), body.pose);
    }
    Scene { terrain, bodies }
}

/// `count` rays straight down from 10 m above the terrain, on a square
/// grid over its inner part (never over its edge).
pub fn grid_rays(count: usize) -> RayBatch<f32> {
    let side = (count as f64).sqrt().ceil() as usize;
    let span = 60.0;
    (0..count)
        .map(|k| {
            let (u, v) = ((k / side) as f32, (k % side) as f32);
            let step = span / side as f32;
            let (x, z) = (-0.5 * span + (u + 0.5) * step, -0.5 * span + (v + 0.5) * step);
            Ray::new(Point3::new(x, 10.0, z), -Vector3::y())
        })
        .collect()
}

/// The batch's answers for `rays` against the terrain at the identity pose.
pub fn cast(terrain: &HeightField<f32>, rays: &RayBatch<f32>) -> HitBatch<f32> {
    let mut hits = HitBatch::new();
    geom::ray_cast_batch(terrain, &Isometry3::identity(), rays, f32::MAX, true, &mut hits);
    hits
}

/// The scene as JSON. Every float is written as the shortest decimal that
/// reads back to the same `f32` (serde_json's `float_roundtrip` reads it).
pub fn to_json(scene: &Scene) -> String {
    serde_json::to_string(scene).expect("a scene of finite numbers serialises")
}

/// The scene read back; shapes and the terrain are validated on the way
/// (a negative radius or a wrong number of heights is an error naming it).
pub fn from_json(json: &str) -> Result<Scene, serde_json::Error> {
    serde_json::from_str(json)
}

/// The hit points of a batch as glam vectors (`Vec3::from(Point3)`).
pub fn hit_points(rays: &RayBatch<f32>, hits: &HitBatch<f32>) -> Vec<Vec3> {
    hits.iter()
        .enumerate()
        .filter_map(|(i, hit)| hit.map(|h| Vec3::from(rays.get(i).point_at(h.t))))
        .collect()
}
