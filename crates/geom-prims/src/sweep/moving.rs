//! The shapes that sweep exactly: sphere, capsule and ellipsoid, placed in
//! the world.

use geom_core::pose::rotation_matrix;
use geom_core::{Aabb, Real, Shape};
use nalgebra::{Isometry3, Point3, UnitQuaternion, Vector3};
use std::any::Any;

use super::ellipsoid::ellipsoid_extent;
use super::{SweepHit, sweep_capsule_triangle, sweep_ellipsoid_triangle, sweep_sphere_triangle};
use crate::{Capsule, Ellipsoid, Sphere, Triangle};

/// A sphere, capsule or ellipsoid in world coordinates: the shapes with an
/// exact sweep against a triangle (a character's body).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MovingShape<N: Real> {
    /// A sphere of `radius` about `center`.
    Sphere {
        /// The centre.
        center: Point3<N>,
        /// The radius (`>= 0`).
        radius: N,
    },
    /// A capsule of `radius` about the segment `a b`.
    Capsule {
        /// One end of the axis.
        a: Point3<N>,
        /// The other end of the axis.
        b: Point3<N>,
        /// The radius (`>= 0`).
        radius: N,
    },
    /// An ellipsoid with semi-axes `radii` along the axes of `rotation`.
    Ellipsoid {
        /// The centre.
        center: Point3<N>,
        /// The semi-axes (`> 0` for a sweep to answer).
        radii: Vector3<N>,
        /// The orientation of the semi-axes.
        rotation: UnitQuaternion<N>,
    },
}

impl<N: Real> MovingShape<N> {
    /// The world placement of a [`Sphere`], [`Capsule`] or [`Ellipsoid`]
    /// at `pose`; `None` for any other shape.
    pub fn from_shape(shape: &dyn Shape<N>, pose: &Isometry3<N>) -> Option<Self> {
        let any: &dyn Any = shape;
        if let Some(sphere) = any.downcast_ref::<Sphere<N>>() {
            Some(MovingShape::Sphere {
                center: Point3::from(pose.translation.vector),
                radius: sphere.radius,
            })
        } else if let Some(capsule) = any.downcast_ref::<Capsule<N>>() {
            Some(MovingShape::Capsule {
                a: pose * capsule.a,
                b: pose * capsule.b,
                radius: capsule.radius,
            })
        } else {
            any.downcast_ref::<Ellipsoid<N>>()
                .map(|ellipsoid| MovingShape::Ellipsoid {
                    center: Point3::from(pose.translation.vector),
                    radii: ellipsoid.radii,
                    rotation: pose.rotation,
                })
        }
    }

    /// The centre: of the sphere or ellipsoid, the middle of the capsule's axis.
    pub fn center(&self) -> Point3<N> {
        match self {
            MovingShape::Sphere { center, .. } | MovingShape::Ellipsoid { center, .. } => *center,
            MovingShape::Capsule { a, b, .. } => a + (b - a) * nalgebra::convert::<f64, N>(0.5),
        }
    }

    /// The same shape moved by `offset`.
    pub fn translated(&self, offset: &Vector3<N>) -> Self {
        match *self {
            MovingShape::Sphere { center, radius } => MovingShape::Sphere {
                center: center + offset,
                radius,
            },
            MovingShape::Capsule { a, b, radius } => MovingShape::Capsule {
                a: a + offset,
                b: b + offset,
                radius,
            },
            MovingShape::Ellipsoid {
                center,
                radii,
                rotation,
            } => MovingShape::Ellipsoid {
                center: center + offset,
                radii,
                rotation,
            },
        }
    }

    /// How far the shape reaches from [`MovingShape::center`] along the unit
    /// `direction` (its support function `h(n)`; the same both ways, the
    /// shapes being symmetric about their centre).
    pub fn extent(&self, direction: &Vector3<N>) -> N {
        match self {
            MovingShape::Sphere { radius, .. } => *radius,
            MovingShape::Capsule { a, b, radius } => {
                (b - a).dot(direction).abs() * nalgebra::convert::<f64, N>(0.5) + *radius
            }
            MovingShape::Ellipsoid { radii, rotation, .. } => {
                ellipsoid_extent(radii, &rotation_matrix(rotation), direction)
            }
        }
    }

    /// The bounding box of the shape at its place.
    pub fn aabb(&self) -> Aabb<N> {
        let center = self.center();
        let half_extents = Vector3::from_fn(|i, _| self.extent(&Vector3::ith(i, N::one())));
        Aabb::from_half_extents(center, half_extents)
    }

    /// The bounding box of the whole sweep by `motion`.
    pub fn swept_aabb(&self, motion: &Vector3<N>) -> Aabb<N> {
        let start = self.aabb();
        let end = Aabb::new(start.mins + motion, start.maxs + motion);
        start.merged(&end)
    }

    /// The first contact of the shape moved by `motion` with `triangle`
    /// ([`sweep_sphere_triangle`], [`sweep_capsule_triangle`] or
    /// [`sweep_ellipsoid_triangle`]).
    pub fn sweep_triangle(&self, motion: &Vector3<N>, triangle: &Triangle<N>) -> Option<SweepHit<N>> {
        match self {
            MovingShape::Sphere { center, radius } => {
                sweep_sphere_triangle(center, *radius, motion, triangle)
            }
            MovingShape::Capsule { a, b, radius } => sweep_capsule_triangle(a, b, *radius, motion, triangle),
            MovingShape::Ellipsoid {
                center,
                radii,
                rotation,
            } => sweep_ellipsoid_triangle(center, radii, rotation, motion, triangle),
        }
    }

    /// The shape as a [`Shape`] and its pose, for the dispatch table
    /// (nothing is allocated: the shape is returned by value).
    pub fn to_shape(&self) -> (PlacedShape<N>, Isometry3<N>) {
        match *self {
            MovingShape::Sphere { center, radius } => (
                PlacedShape::Sphere(Sphere { radius }),
                Isometry3::translation(center.x, center.y, center.z),
            ),
            MovingShape::Capsule { a, b, radius } => {
                let middle = self.center();
                (
                    PlacedShape::Capsule(Capsule {
                        a: Point3::from(a - middle),
                        b: Point3::from(b - middle),
                        radius,
                    }),
                    Isometry3::translation(middle.x, middle.y, middle.z),
                )
            }
            MovingShape::Ellipsoid {
                center,
                radii,
                rotation,
            } => (
                PlacedShape::Ellipsoid(Ellipsoid { radii }),
                Isometry3::from_parts(center.coords.into(), rotation),
            ),
        }
    }
}

/// A [`MovingShape`] as a concrete [`Shape`] value (see
/// [`MovingShape::to_shape`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlacedShape<N: Real> {
    /// A sphere.
    Sphere(Sphere<N>),
    /// A capsule.
    Capsule(Capsule<N>),
    /// An ellipsoid.
    Ellipsoid(Ellipsoid<N>),
}

impl<N: Real> PlacedShape<N> {
    /// The shape behind the value, as a trait object.
    pub fn as_shape(&self) -> &dyn Shape<N> {
        match self {
            PlacedShape::Sphere(shape) => shape,
            PlacedShape::Capsule(shape) => shape,
            PlacedShape::Ellipsoid(shape) => shape,
        }
    }
}
