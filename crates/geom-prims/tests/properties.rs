//! The cross-shape property suite: every shape's ray casts and closest points
//! against independent references (march-and-bisect on an implicit function,
//! its gradient, dense surface sampling) and f32 against f64.

mod support;

shape_property_suite!(sphere, support::sphere::strategy(), f32_ulps = 4.0);
// Cone: 24 ulp, not 4. Measured over 20 000 random suite rays (f32 vs f64):
// p99 4.7 ulp, p99.9 12 ulp, max 16–18 ulp. The tail is rays nearly parallel
// to a generator (the lateral quadric's leading coefficient |d × û|² − k²(d·û)²
// cancels, and its f32 rounding moves the root) and grazing hits; the
// per-case check takes the maximum, where DESIGN.md's target is the p99.
shape_property_suite!(cone, support::cone::strategy(), f32_ulps = 24.0);
// Ellipsoid: 128 ulp, not 4. Measured over 20 000 random suite rays: p99
// 7.0 ulp, p99.9 21 ulp, max 93 ulp, every case above ~20 ulp at an
// incidence |n·d̂| below 0.15. The f32 pose rotation and the 1/radii scaling
// each round the local origin by about an ulp of |origin − centre|, and a
// hit at incidence θ moves by that over sin θ; the per-case check takes the
// maximum where DESIGN.md's target is the p99.
shape_property_suite!(ellipsoid, support::ellipsoid::strategy(), f32_ulps = 128.0);
