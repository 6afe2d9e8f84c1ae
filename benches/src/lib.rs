//! Benchmark support for geom. The criterion groups and the `compare` binary
//! that run geom beside parry3d live here; see `docs/benchmarks.md`.
#![deny(missing_docs)]
