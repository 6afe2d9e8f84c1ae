//! geom: collision detection written once, run on `f32`, `f64` and SIMD
//! lanes.
//!
//! Every query is generic over the scalar: the same code answers in `f32`
//! and `f64` (and, behind the `reference` feature, in double-double for
//! checking them), and the primitives' kernels also run eight `f32` or
//! four `f64` rays at a time in SIMD lanes with the scalar answers, bit
//! for bit. Most users want the [`prelude`].
//!
//! # Where each query lives
//!
//! | You want | Call | Lives in |
//! |---|---|---|
//! | a ray against one shape | [`Shape::ray_cast`] | every shape ([`prims`], [`HeightField`]) |
//! | the closest point of a shape, inside or not | [`Shape::closest_point`], [`Shape::distance`] | every shape |
//! | contacts, closest points or the distance of a pair | [`DispatchTable::contact`], [`DispatchTable::closest_points`], [`DispatchTable::distance`] on [`default_dispatcher()`] | [`base::dispatch`] |
//! | the same contacts every frame, with what the pair kept from the last | [`contact_cached`] with a [`PairCache`] per pair | [`pair_cache`] |
//! | a moving sphere, ellipsoid or capsule's first hit | [`sweep_shape`], [`sweep_obstacles`] | [`terrain::sweep`], [`prims::sweep`] |
//! | a character walking over terrain and triangles | [`CharacterController::step`], [`CharacterController::slide`] | [`terrain::character`] |
//! | many rays against one shape | [`ray_cast_batch`], [`par_ray_cast_batch`] (feature `parallel`) | [`batch`], [`parallel`] |
//! | one ray against eight shapes | [`SpherePacket`], [`CapsulePacket`], [`CuboidPacket`] | [`packet`] |
//! | your own convex shape | implement [`Shape`] with [`prims::convex`]'s helpers; it collides through GJK/EPA | [`prims::convex`], [`prims::gjk`] |
//! | the names and layouts you know from parry3d | [`from_parry3d`] | this crate |
//! | your own shape kind with its own routines | [`ShapeKind::new_custom`], [`DispatchTable::register_contact`] | [`base::dispatch`] |
//!
//! # Conventions
//!
//! Units are whatever you use (metres, say): nothing assumes a scale.
//! Shapes live in their local frame and are placed by an [`Isometry3`](nalgebra::Isometry3)
//! pose (local to world). A ray's `t` is in units of its `dir`, which
//! need not be unit: the hit is at `origin + t·dir`. Normals are unit and
//! point out of the shape hit (pair normals from `a` to `b`). Contact
//! depths are positive when the shapes overlap and down to `−margin` when
//! they are apart within the query's margin. Bad input (NaN, infinities,
//! invalid shapes) never panics: constructors' `try_` forms return a
//! [`GeomError`] naming the parameter and its value, queries answer `None`
//! or an error.
//!
//! # A ray, a pair, a terrain
//!
//! ```
//! use geom::prelude::*;
//!
//! // One shape, one ray.
//! let sphere = Sphere::new(1.0f64);
//! let pose = Isometry3::translation(0.0, 0.0, 5.0);
//! let ray = Ray::new(Point3::origin(), Vector3::new(0.0, 0.0, 2.0));
//! let hit = sphere.ray_cast(&pose, &ray, f64::INFINITY, true).unwrap();
//! assert_eq!(hit.t, 2.0); // t is in units of `dir`: the hit is at z = 4
//! assert_eq!(hit.normal, Vector3::new(0.0, 0.0, -1.0));
//!
//! // A pair through the dispatch table: a box resting 0.1 deep on another.
//! let table = geom::default_dispatcher::<f64>();
//! let floor = Cuboid::new(Vector3::new(5.0, 0.5, 5.0));
//! let crate_ = Cuboid::new(Vector3::new(0.5, 0.5, 0.5));
//! let mut contacts = ContactManifolds::new();
//! table
//!     .contact(&floor, &Isometry3::identity(), &crate_, &Isometry3::translation(0.0, 0.9, 0.0), 0.0, &mut contacts)
//!     .unwrap();
//! let manifold = &contacts.as_slice()[0];
//! assert_eq!(manifold.points.len(), 4); // the crate's four bottom corners
//! assert!(manifold.points.iter().all(|p| (p.depth - 0.1).abs() < 1e-12));
//! assert!((manifold.normal - Vector3::y()).norm() < 1e-12);
//!
//! // A terrain: flat ground at y = 0 over 4 × 4 cells, a capsule dropped on it.
//! let ground = HeightField::new(Point3::new(-2.0, 0.0, -2.0), [1.0, 1.0], 5, 5, vec![0.0; 25]);
//! let capsule = Capsule::from_points(Point3::new(0.0, -0.5, 0.0), Point3::new(0.0, 0.5, 0.0), 0.25);
//! let gap = table
//!     .distance(&ground, &Isometry3::identity(), &capsule, &Isometry3::translation(0.3, 1.0, 0.2))
//!     .unwrap();
//! assert!((gap - 0.25).abs() < 1e-12);
//! ```
//!
//! # Sweeps and the character controller
//!
//! ```
//! use geom::prelude::*;
//! use geom::prims::sweep::MovingShape;
//! use geom::{CharacterConfig, CharacterController, Obstacle};
//!
//! let table = geom::default_dispatcher::<f64>();
//! let ground = HeightField::new(Point3::new(-10.0, 0.0, -10.0), [1.0, 1.0], 21, 21, vec![0.0; 441]);
//! let world = [Obstacle::HeightField { field: &ground, pose: Isometry3::identity() }];
//! // A ball falling 3 units from 2 above the ground meets it a third of
//! // the way (its bottom is 1 above).
//! let ball = MovingShape::Sphere { center: Point3::new(0.0, 2.0, 0.0), radius: 1.0 };
//! let (obstacle, hit) = geom::sweep_obstacles(&ball, &Vector3::new(0.0, -3.0, 0.0), &world, &table).unwrap().unwrap();
//! assert_eq!(obstacle, 0); // which obstacle: the first
//! assert!((hit.toi - 1.0 / 3.0).abs() < 1e-12);
//!
//! // A capsule character walks 1 along x under gravity and stays on the ground.
//! let body = MovingShape::Capsule { a: Point3::new(0.0, 0.35, 0.0), b: Point3::new(0.0, 1.15, 0.0), radius: 0.3 };
//! let mut walker = CharacterController::new(body, CharacterConfig::new(0.01));
//! for _ in 0..10 {
//!     walker.step(&Vector3::new(0.1, 0.0, 0.0), &Vector3::new(0.0, -0.05, 0.0), &world, &table).unwrap();
//! }
//! assert!(walker.is_grounded());
//! assert!((walker.position().x - 1.0).abs() < 1e-9);
//! ```
//!
//! # Batches
//!
//! ```
//! use geom::prelude::*;
//! use geom::{HitBatch, RayBatch};
//!
//! let capsule = Capsule::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5f32);
//! let rays: RayBatch<f32> = (0..1000)
//!     .map(|k| Ray::new(Point3::new(-5.0, (k as f32 - 500.0) / 200.0, 0.0), Vector3::x()))
//!     .collect();
//! let mut hits = HitBatch::new();
//! geom::ray_cast_batch(&capsule, &Isometry3::identity(), &rays, f32::MAX, true, &mut hits);
//! // Each row is the trait call's answer, bit for bit.
//! for (i, hit) in hits.iter().enumerate() {
//!     assert_eq!(hit, capsule.ray_cast(&Isometry3::identity(), &rays.get(i), f32::MAX, true));
//! }
//! ```
//!
//! # Features
//!
//! `parallel` (rayon batches), `serde` (shapes, rays, hits, boxes,
//! contacts, heightfields, poses; shapes validated when read), `glam`
//! (nalgebra ⇄ glam 0.33 conversions, [`glam`] re-exported), `mint`,
//! `reference` (the double-double scalar [`DoubleDouble`]). [`nalgebra`]
//! and [`simba`] are re-exported so that versions match.
#![deny(missing_docs)]
// A library never writes to the terminal (its tests may).
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

pub mod batch;
mod dispatcher;
pub mod from_parry3d;
pub mod packet;
pub mod pair_cache;
#[cfg(feature = "parallel")]
pub mod parallel;
pub mod world;

pub use batch::{
    BatchReal, BatchShape, HitBatch, HitRows, Pack, RayBatch, RayRows, ray_cast_batch, ray_cast_batch_lanes,
    ray_cast_rows_on_lanes, ray_cast_slice,
};
pub use dispatcher::default_dispatcher;
pub use packet::{CapsulePacket, Centered, CuboidPacket, SpherePacket};
pub use pair_cache::{PairCache, contact_cached};
#[cfg(feature = "parallel")]
pub use parallel::par_ray_cast_batch;
pub use world::World;

/// The foundation crate `geom-core` (scalar traits, rays, boxes, the
/// [`Shape`] trait, distance routines, contact types, the dispatch table).
/// Named `base` rather than `core` so that `use geom::*` leaves the
/// standard library's `core` alone.
pub use geom_core as base;
/// The primitive shapes and their pair routines (`geom-prims`).
pub use geom_prims as prims;
/// Heightfield terrains and the character controller (`geom-terrain`).
pub use geom_terrain as terrain;

/// glam, for the conversions feature `glam` enables: `glam::Vec3` ⇄
/// `Vector3<f32>` / `Point3<f32>`, `glam::Quat` ⇄ `UnitQuaternion<f32>`,
/// the `f64` types alike, with [`From`] both ways.
#[cfg(feature = "glam")]
pub use glam;
/// mint, for the conversions feature `mint` enables (`mint::Vector3`,
/// `mint::Point3`, `mint::Quaternion` ⇄ nalgebra's types, with [`From`]).
#[cfg(feature = "mint")]
pub use mint;
/// The linear-algebra crate every geom type is built on (vectors, points,
/// poses): use this one so that the versions match.
pub use nalgebra;
/// The SIMD lane types (`WideF32x4`, `WideF32x8`, `WideF64x4`) the lane
/// kernels run on.
pub use simba;

pub use geom_core::bvh::{Bvh, BvhOptions};
pub use geom_core::compound::Compound;
pub use geom_core::{
    Aabb, FeatureId, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit, Real,
    Shape, ShapeKind,
};
pub use geom_core::{ClosestPoints, DispatchTable};
pub use geom_core::{ContactCandidate, ContactManifold, ContactManifolds, ContactPoint};
pub use geom_prims::*;
pub use geom_terrain::{
    CharacterConfig, CharacterController, DEFAULT_ACTIVE_EDGE_ANGLE_DEGREES, HeightField, HeightFieldDesc,
    NearTriangles, Obstacle, TriMesh, TriangleId, TrianglesInAabb, sweep_heightfield, sweep_obstacles,
    sweep_shape,
};

/// The double-double reference scalar (feature `reference`): the kernels
/// run at `N = DoubleDouble` for answers accurate to about 106 bits.
#[cfg(feature = "reference")]
pub use geom_core::DoubleDouble;

/// Everything a typical user needs: the shapes, the query types and the
/// nalgebra types they are built from.
///
/// ```
/// use geom::prelude::*;
///
/// // A unit box turned a quarter about y and moved 3 along x: still the
/// // cube [2, 4] × [−1, 1] × [−1, 1], so a ray along x from the origin
/// // enters it at x = 2.
/// let cube = Cuboid::new(Vector3::new(1.0, 1.0, 1.0));
/// let pose = Isometry3::new(Vector3::new(3.0, 0.0, 0.0), Vector3::y() * std::f64::consts::FRAC_PI_2);
/// let hit = cube.ray_cast(&pose, &Ray::new(Point3::origin(), Vector3::x()), f64::INFINITY, true).unwrap();
/// assert!((hit.t - 2.0).abs() < 1e-12 && (hit.normal + Vector3::x()).norm() < 1e-12);
/// assert_eq!(cube.aabb(&Isometry3::identity()), Aabb::new(Point3::new(-1.0, -1.0, -1.0), Point3::new(1.0, 1.0, 1.0)));
/// ```
pub mod prelude {
    pub use geom_core::compound::Compound;
    pub use geom_core::{
        Aabb, FeatureId, GeomError, LaneShape, PointProjection, Ray, RayHit, Real, Shape, ShapeKind,
    };
    pub use geom_core::{ClosestPoints, ContactManifold, ContactManifolds, ContactPoint, DispatchTable};
    pub use geom_prims::{
        Capsule, Cone, ConvexHull, Cuboid, Cylinder, Ellipsoid, HalfSpace, Segment, Sphere, Triangle,
    };
    pub use geom_terrain::{HeightField, HeightFieldDesc, TriMesh};
    pub use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
