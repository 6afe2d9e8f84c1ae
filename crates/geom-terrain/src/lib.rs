//! Heightfield terrain for geom.
//!
//! The heightfield shape, its ray casts, active edges and contacts arrive in a
//! later release; this crate is part of the workspace already so that the
//! dependency order (core ← prims ← terrain ← geom) is fixed from the start.
#![deny(missing_docs)]
