//! The cross-shape property suite: every shape's ray casts and closest points
//! against independent references (march-and-bisect on an implicit function,
//! its gradient, dense surface sampling) and f32 against f64.

mod support;

shape_property_suite!(sphere, support::sphere::strategy(), f32_ulps = 4.0);
shape_property_suite!(cuboid, support::cuboid::strategy(), f32_ulps = 4.0);
shape_property_suite!(half_space, support::half_space::strategy(), f32_ulps = 4.0);
shape_property_suite!(triangle, support::triangle::strategy(), f32_ulps = 4.0);
shape_property_suite!(segment, support::segment::strategy(), f32_ulps = 4.0);
