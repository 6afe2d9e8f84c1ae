//! Heightfield terrain for geom: a Y-up grid of heights with per-cell
//! diagonals and holes ([`HeightField`]), the triangles in a box
//! ([`HeightField::triangles_in_aabb`]), ray casts and closest points
//! through the [`Shape`](geom_core::Shape) trait, active edges, and sphere
//! and capsule contacts that do not catch on the internal edges of flat
//! ground ([`contact`]), sweeps of spheres, capsules and ellipsoids against
//! the world ([`sweep`]) and a collide-and-slide character ([`character`]).
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
mod ray;
#[cfg(feature = "serde")]
mod serde_field;
mod shape;
pub mod sweep;
#[cfg(test)]
pub(crate) mod test_support;

pub use active_edges::DEFAULT_ACTIVE_EDGE_ANGLE_DEGREES;
pub use character::{CharacterConfig, CharacterController};
pub use heightfield::{HeightField, HeightFieldDesc, TriangleId, max_coordinate};
pub use iter::TrianglesInAabb;
pub use sweep::{Obstacle, sweep_heightfield, sweep_obstacles, sweep_shape};
