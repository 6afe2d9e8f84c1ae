//! geom-prims' tests through its public API, in one test binary: the
//! cross-shape property suite, GJK/EPA against analytic answers, and the
//! inputs the fuzz targets once failed on.

mod support;

mod fuzz_regressions;
mod gjk;
mod properties;
