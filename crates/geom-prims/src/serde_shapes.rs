//! Serialize and Deserialize for the shapes (feature `serde`).
//!
//! Each shape is written as the arguments of its constructor, by the
//! constructor's names (`{"radius": 0.5}`, `{"a": [0, 0, 0], "b": [0, 1, 0],
//! "radius": 0.5}`), and read back through that constructor's validating
//! form (`try_new`, `try_from_points`): a document with a negative radius,
//! a NaN or an unknown field is refused with the constructor's error,
//! which names the parameter and the value. A half-space is written as the
//! normal and offset it was given (its unit normal is derived again).

use geom_core::Real;
use nalgebra::{Point3, Vector3};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, HalfSpace, Segment, Sphere, Triangle};

/// Implements both traits for `$shape<N>` through a private struct of its
/// constructor's arguments: `$read` builds the shape from them (a
/// `Result<_, GeomError>`), `|s| expr` takes each from a shape `s`.
macro_rules! through_constructor {
    ($shape:ident { $($field:ident: $ty:ty = |$shape_ref:ident| $written:expr),+ $(,)? } => $read:expr) => {
        impl<N: Real + Serialize> Serialize for $shape<N> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                #[derive(Serialize)]
                struct Arguments<N: Real> {
                    $($field: $ty),+
                }
                Arguments {
                    $($field: {
                        let $shape_ref = self;
                        $written
                    }),+
                }
                .serialize(serializer)
            }
        }

        impl<'de, N: Real + Deserialize<'de>> Deserialize<'de> for $shape<N> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Arguments<N: Real> {
                    $($field: $ty),+
                }
                let Arguments { $($field),+ } = Arguments::<N>::deserialize(deserializer)?;
                $read.map_err(D::Error::custom)
            }
        }
    };
}

through_constructor!(Sphere { radius: N = |s| s.radius } => Sphere::try_new(radius));
through_constructor!(Capsule {
    a: Point3<N> = |s| s.a,
    b: Point3<N> = |s| s.b,
    radius: N = |s| s.radius,
} => Capsule::try_from_points(a, b, radius));
through_constructor!(Cylinder {
    p0: Point3<N> = |s| s.p0,
    p1: Point3<N> = |s| s.p1,
    radius: N = |s| s.radius,
} => Cylinder::try_from_points(p0, p1, radius));
through_constructor!(Cone {
    apex: Point3<N> = |s| s.apex,
    base: Point3<N> = |s| s.base,
    radius: N = |s| s.radius,
} => Cone::try_from_points(apex, base, radius));
through_constructor!(Ellipsoid { radii: Vector3<N> = |s| s.radii } => Ellipsoid::try_new(radii));
through_constructor!(Cuboid {
    half_extents: Vector3<N> = |s| s.half_extents,
} => Cuboid::try_new(half_extents));
through_constructor!(HalfSpace {
    normal: Vector3<N> = |s| s.normal(),
    offset: N = |s| s.offset(),
} => HalfSpace::try_new(normal, offset));
through_constructor!(Triangle {
    a: Point3<N> = |s| s.a,
    b: Point3<N> = |s| s.b,
    c: Point3<N> = |s| s.c,
} => Triangle::try_new(a, b, c));
through_constructor!(Segment {
    a: Point3<N> = |s| s.a,
    b: Point3<N> = |s| s.b,
} => Segment::try_new(a, b));
