//! Heightfield terrain for geom: a Y-up grid of heights with per-cell
//! diagonals and holes ([`HeightField`]), the triangles in a box
//! ([`HeightField::triangles_in_aabb`]), ray casts and closest points
//! through the [`Shape`](geom_core::Shape) trait, active edges, and sphere
//! and capsule contacts that do not catch on the internal edges of flat
//! ground ([`contact`]), sweeps of spheres, capsules and ellipsoids against
//! the world ([`sweep`]) and a collide-and-slide character ([`character`]).
//!
//! ```
//! use geom_core::{Ray, Shape};
//! use geom_terrain::HeightField;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // 3 × 3 samples one apart, heights rising by 1 per row along x: the plane y = x.
//! let heights = vec![0.0f64, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0];
//! let ramp = HeightField::new(Point3::origin(), [1.0, 1.0], 3, 3, heights);
//! assert!((ramp.surface_y_at(1.5, 0.5).unwrap() - 1.5).abs() < 1e-12);
//! // Straight down from (1.5, 10, 0.5): lands at y = 1.5 after 8.5, normal to y = x: (-1, 1, 0)/√2.
//! let down = Ray::new(Point3::new(1.5, 10.0, 0.5), -Vector3::y());
//! let hit = ramp.ray_cast(&Isometry3::identity(), &down, f64::INFINITY, true).unwrap();
//! assert!((hit.t - 8.5).abs() < 1e-12);
//! assert!((hit.normal - Vector3::new(-1.0, 1.0, 0.0) / 2f64.sqrt()).norm() < 1e-12);
//! ```
#![deny(missing_docs)]
// A library never writes to the terminal (its tests may).
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

mod active_edges;
mod bits;
mod cells;
pub mod character;
pub mod contact;
mod heightfield;
mod iter;
pub mod mesh;
pub mod near;
mod ray;
#[cfg(feature = "serde")]
mod serde_field;
mod shape;
mod surface;
pub mod surface_pairs;
pub mod sweep;
#[cfg(test)]
pub(crate) mod test_support;

pub use active_edges::DEFAULT_ACTIVE_EDGE_ANGLE_DEGREES;
pub use character::{CharacterConfig, CharacterController};
pub use heightfield::{HeightField, HeightFieldDesc, TriangleId, max_coordinate};
pub use iter::TrianglesInAabb;
pub use mesh::TriMesh;
pub use near::NearTriangles;
pub use sweep::{Obstacle, sweep_heightfield, sweep_obstacles, sweep_shape, sweep_trimesh};
