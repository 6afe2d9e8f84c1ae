//! geom: collision detection written once, run on `f32`, `f64` and SIMD
//! lanes.
//!
//! This facade re-exports the workspace crates; most users want the
//! [`prelude`].
//!
//! ```
//! use geom::prelude::*;
//!
//! let sphere = Sphere::new(1.0f64);
//! let pose = Isometry3::translation(0.0, 0.0, 5.0);
//! let ray = Ray::new(Point3::origin(), Vector3::new(0.0, 0.0, 2.0));
//! let hit = sphere.ray_cast(&pose, &ray, f64::INFINITY, true).unwrap();
//! assert_eq!(hit.t, 2.0); // t is in units of `dir`: the hit is at z = 4
//! assert_eq!(hit.normal, Vector3::new(0.0, 0.0, -1.0));
//! ```
#![deny(missing_docs)]
// A library never writes to the terminal (its tests may).
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

pub mod batch;
mod dispatcher;
pub mod packet;
#[cfg(feature = "parallel")]
pub mod parallel;

pub use batch::{
    BatchReal, BatchShape, HitBatch, HitRows, Pack, RayBatch, RayRows, ray_cast_batch, ray_cast_batch_lanes,
    ray_cast_rows_on_lanes, ray_cast_slice,
};
pub use dispatcher::default_dispatcher;
pub use packet::{CapsulePacket, Centered, CuboidPacket, SpherePacket};
#[cfg(feature = "parallel")]
pub use parallel::par_ray_cast_batch;

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

pub use geom_core::{
    Aabb, FeatureId, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit, Real,
    Shape, ShapeKind,
};
pub use geom_core::{ClosestPoints, DispatchTable};
pub use geom_core::{ContactCandidate, ContactManifold, ContactManifolds, ContactPoint};
pub use geom_prims::*;
pub use geom_terrain::{
    CharacterConfig, CharacterController, DEFAULT_ACTIVE_EDGE_ANGLE_DEGREES, HeightField, HeightFieldDesc,
    Obstacle, TriangleId, TrianglesInAabb, sweep_heightfield, sweep_obstacles, sweep_shape,
};

/// The double-double reference scalar (feature `reference`): the kernels
/// run at `N = DoubleDouble` for answers accurate to about 106 bits.
#[cfg(feature = "reference")]
pub use geom_core::DoubleDouble;

/// Everything a typical user needs: the shapes, the query types and the
/// nalgebra types they are built from.
pub mod prelude {
    pub use geom_core::{
        Aabb, FeatureId, GeomError, LaneShape, PointProjection, Ray, RayHit, Real, Shape, ShapeKind,
    };
    pub use geom_core::{ClosestPoints, ContactManifold, ContactManifolds, ContactPoint, DispatchTable};
    pub use geom_prims::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, HalfSpace, Segment, Sphere, Triangle};
    pub use geom_terrain::{HeightField, HeightFieldDesc};
    pub use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
