//! The core of geom: scalar traits, rays and hits, bounding boxes, the
//! [`Shape`] trait and the distance primitives every shape shares.
//!
//! Conventions used throughout the workspace:
//!
//! - A [`Ray`]'s `dir` need not be unit length; hit times `t` are measured in
//!   units of `dir`, so the hit point is `origin + t * dir`.
//! - Normals are unit length and point out of the shape.
//! - `solid = true` treats a shape as filled: a ray starting inside (or on the
//!   boundary) hits at `t = 0`, a point inside projects onto itself.
//!   `solid = false` treats it as a hollow surface: rays from inside report
//!   the exit, points project onto the boundary.
//! - Shapes live in their local frame; world queries take an
//!   [`Isometry3`](nalgebra::Isometry3) pose whose translation is subtracted
//!   before the rotation is undone, so small shapes far from the origin keep
//!   their precision.
//!
//! A ray against a bounding box, the simplest query here: `t` is measured in
//! units of `dir`.
//!
//! ```
//! use geom_core::{Aabb, Ray};
//! use nalgebra::{Point3, Vector3};
//!
//! let cube = Aabb::new(Point3::new(-1.0, -1.0, -1.0), Point3::new(1.0, 1.0, 1.0));
//! // From x = -5 along (2, 0, 0): x = -1 after 4, i.e. t = 2; x = 1 at t = 3.
//! let ray = Ray::new(Point3::new(-5.0, 0.5, 0.0), Vector3::new(2.0, 0.0, 0.0));
//! assert_eq!(cube.ray_interval(&ray, f64::INFINITY), Some((2.0, 3.0)));
//! assert_eq!(ray.point_at(2.0), Point3::new(-1.0, 0.5, 0.0));
//! ```
#![deny(missing_docs)]
// A library never writes to the terminal (its tests may).
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

pub mod aabb;
pub mod bvh;
pub mod compound;
pub mod contact;
pub mod dispatch;
pub mod distance;
#[cfg(feature = "reference")]
pub mod double_double;
pub mod error;
pub mod exact;
pub mod feature;
pub mod pose;
pub mod projection;
pub mod quadratic;
pub mod ray;
pub mod scalar;
pub mod shape;

pub use aabb::Aabb;
pub use contact::{ContactCandidate, ContactManifold, ContactManifolds, ContactPoint};
pub use dispatch::{ClosestPoints, DispatchTable};
#[cfg(feature = "reference")]
pub use double_double::DoubleDouble;
pub use error::GeomError;
pub use feature::{FeatureShape, MAX_FEATURE_POINTS, SupportFeature};
pub use pose::{LocalRay, PoseMatrix};
pub use projection::{LaneProjection, PointProjection};
pub use ray::{FeatureId, LaneHit, Ray, RayHit};
pub use scalar::{Lane, LaneOrd, Real, all_finite, lit, max_size};
pub use shape::{LaneShape, Shape, ShapeKind};

pub use nalgebra;
pub use simba;
