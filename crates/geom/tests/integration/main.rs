//! The `geom` crate's tests through its public API, one module per query
//! family or scene, in one test binary (one link instead of one per file).
//! `cargo test -p geom --test integration world::` runs one module.

mod bad_input;
mod batch;
mod compound_pairs;
mod custom_convex_queries;
mod custom_shape;
mod determinism;
mod gjk_vs_analytic;
mod hull_pairs;
mod mesh_contacts;
mod mesh_sweeps;
mod pair_cache;
mod pair_oracle;
mod pair_regressions;
mod posed_boxes;
mod reference;
mod surface_pairs;
mod sweep_convex;
mod terrain_scenes;
mod world;
