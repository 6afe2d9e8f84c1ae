//! The cross-shape property suite: every shape's ray casts and closest points
//! against independent references (march-and-bisect on an implicit function,
//! its gradient, dense surface sampling) and f32 against f64.
//!
//! Every shape is held to DESIGN.md's 4 ulp on `t`, measured at the scale
//! the inputs carry (see `check_f32_against_f64`: grazing hits get the
//! `2/|cos|` their conditioning costs whatever the algorithm). Kernels that
//! restart a far ray next to the shape with compensated offsets
//! (`geom_core::exact`) and poses applied through the homogeneous rotation
//! matrix (`geom_core::pose`) are what keep every shape inside it; 30 runs of
//! this suite with fresh seeds (7 680 cases per shape) passed at these bounds.

use crate::shape_property_suite;
use crate::support;

shape_property_suite!(sphere, support::sphere::strategy(), f32_ulps = 4.0);
shape_property_suite!(capsule, support::capsule::strategy(), f32_ulps = 4.0);
shape_property_suite!(cone, support::cone::strategy(), f32_ulps = 4.0);
shape_property_suite!(cuboid, support::cuboid::strategy(), f32_ulps = 4.0);
shape_property_suite!(half_space, support::half_space::strategy(), f32_ulps = 4.0);
shape_property_suite!(cylinder, support::cylinder::strategy(), f32_ulps = 4.0);
shape_property_suite!(ellipsoid, support::ellipsoid::strategy(), f32_ulps = 4.0);
shape_property_suite!(triangle, support::triangle::strategy(), f32_ulps = 4.0);
shape_property_suite!(segment, support::segment::strategy(), f32_ulps = 4.0);
