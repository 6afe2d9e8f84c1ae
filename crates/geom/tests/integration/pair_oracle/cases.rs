//! Random shapes and poses for the oracle, built once in `f64` with every
//! value exact in `f32`, and the same shapes as geom values in either
//! precision.

use geom::prelude::*;
use nalgebra::{Quaternion, RealField};

use super::oracle::Body;
pub use geom_random::Rng;

/// `x` rounded to `f32` (so that the `f32` and `f64` runs see one geometry).
pub fn f32_exact(x: f64) -> f64 {
    x as f32 as f64
}

pub fn exact_vector(v: Vector3<f64>) -> Vector3<f64> {
    v.map(f32_exact)
}

/// A shape in its local frame, with f32-exact parameters.
#[derive(Clone, Debug)]
pub enum Local {
    Sphere(f64),
    Capsule(Point3<f64>, Point3<f64>, f64),
    Cylinder(Point3<f64>, Point3<f64>, f64),
    Cone(Point3<f64>, Point3<f64>, f64),
    Ellipsoid(Vector3<f64>),
    Cuboid(Vector3<f64>),
    Triangle(Point3<f64>, Point3<f64>, Point3<f64>),
    Segment(Point3<f64>, Point3<f64>),
    /// Normal (not unit) and offset.
    HalfSpace(Vector3<f64>, f64),
}

impl Local {
    pub fn name(&self) -> &'static str {
        match self {
            Local::Sphere(..) => "sphere",
            Local::Capsule(..) => "capsule",
            Local::Cylinder(..) => "cylinder",
            Local::Cone(..) => "cone",
            Local::Ellipsoid(..) => "ellipsoid",
            Local::Cuboid(..) => "box",
            Local::Triangle(..) => "triangle",
            Local::Segment(..) => "segment",
            Local::HalfSpace(..) => "halfspace",
        }
    }
}

/// The kinds the oracle draws, by index.
pub const KINDS: [&str; 9] = [
    "sphere",
    "capsule",
    "cylinder",
    "cone",
    "ellipsoid",
    "box",
    "triangle",
    "segment",
    "halfspace",
];

/// A random local shape of kind `KINDS[kind]` about `size`.
pub fn local_shape(rng: &mut Rng, kind: usize, size: f64) -> Local {
    let length = |rng: &mut Rng| f32_exact(size * rng.range(0.3, 1.5));
    let axis = |rng: &mut Rng, half: f64| exact_vector(rng.direction() * half);
    match kind {
        0 => Local::Sphere(length(rng)),
        1 => {
            let half = length(rng);
            let half = axis(rng, half);
            Local::Capsule(Point3::from(-half), Point3::from(half), length(rng))
        }
        2 => {
            let half = length(rng);
            let half = axis(rng, half);
            Local::Cylinder(Point3::from(-half), Point3::from(half), length(rng))
        }
        3 => {
            let half = length(rng);
            let half = axis(rng, half);
            Local::Cone(Point3::from(half), Point3::from(-half), length(rng))
        }
        4 => Local::Ellipsoid(Vector3::new(length(rng), length(rng), length(rng))),
        5 => Local::Cuboid(Vector3::new(length(rng), length(rng), length(rng))),
        6 => {
            let vertex = |rng: &mut Rng| {
                let length = length(rng);
                Point3::from(axis(rng, length))
            };
            Local::Triangle(vertex(rng), vertex(rng), vertex(rng))
        }
        7 => {
            let half = length(rng);
            let half = axis(rng, half);
            let shift = length(rng) * 0.3;
            let shift = axis(rng, shift);
            Local::Segment(Point3::from(shift - half), Point3::from(shift + half))
        }
        _ => Local::HalfSpace(exact_vector(rng.direction() * rng.range(0.5, 2.0)), 0.0),
    }
}

/// A shape and its pose. The rotation is a unit quaternion in `f64`; the
/// `f32` run rounds its components (within the `f32` tolerance).
#[derive(Clone, Debug)]
pub struct Spec {
    pub local: Local,
    pub rotation: UnitQuaternion<f64>,
    pub translation: Vector3<f64>,
}

/// A random rotation.
pub fn random_rotation(rng: &mut Rng) -> UnitQuaternion<f64> {
    UnitQuaternion::from_scaled_axis(rng.direction() * rng.range(0.0, std::f64::consts::PI))
}

impl Spec {
    fn world_point(&self, p: &Point3<f64>) -> Point3<f64> {
        self.rotation * p + self.translation
    }

    /// The shape in world space, for the oracle.
    pub fn body(&self) -> Body {
        let rotation = self.rotation.to_rotation_matrix().into_inner();
        let center = Point3::from(self.translation);
        match &self.local {
            Local::Sphere(radius) => Body::Sphere {
                center,
                radius: *radius,
            },
            Local::Capsule(a, b, radius) => Body::Capsule {
                a: self.world_point(a),
                b: self.world_point(b),
                radius: *radius,
            },
            Local::Cylinder(p0, p1, radius) => Body::Cylinder {
                p0: self.world_point(p0),
                p1: self.world_point(p1),
                radius: *radius,
            },
            Local::Cone(apex, base, radius) => Body::Cone {
                apex: self.world_point(apex),
                base: self.world_point(base),
                radius: *radius,
            },
            Local::Ellipsoid(radii) => Body::Ellipsoid {
                center,
                radii: *radii,
                rotation,
            },
            Local::Cuboid(half) => Body::Cuboid {
                center,
                half: *half,
                rotation,
            },
            Local::Triangle(a, b, c) => Body::Triangle {
                vertices: [self.world_point(a), self.world_point(b), self.world_point(c)],
            },
            Local::Segment(a, b) => Body::Segment {
                a: self.world_point(a),
                b: self.world_point(b),
            },
            Local::HalfSpace(normal, offset) => {
                let unit = normal.normalize();
                let world = rotation * unit;
                Body::HalfSpace {
                    normal: world,
                    offset: offset / normal.norm() + world.dot(&self.translation),
                }
            }
        }
    }

    /// The shape and pose as geom values in precision `N`.
    pub fn build<N: RealField + Copy + geom::Real>(&self) -> (Held<N>, Isometry3<N>) {
        let c = |x: f64| nalgebra::convert::<f64, N>(x);
        let p = |p: &Point3<f64>| p.map(c);
        let v = |v: &Vector3<f64>| v.map(c);
        let held = match &self.local {
            Local::Sphere(r) => Held::Sphere(Sphere::new(c(*r))),
            Local::Capsule(a, b, r) => Held::Capsule(Capsule::from_points(p(a), p(b), c(*r))),
            Local::Cylinder(a, b, r) => Held::Cylinder(Cylinder::from_points(p(a), p(b), c(*r))),
            Local::Cone(a, b, r) => Held::Cone(Cone::from_points(p(a), p(b), c(*r))),
            Local::Ellipsoid(radii) => Held::Ellipsoid(Ellipsoid::new(v(radii))),
            Local::Cuboid(half) => Held::Cuboid(Cuboid::new(v(half))),
            Local::Triangle(a, b, cc) => Held::Triangle(Triangle::new(p(a), p(b), p(cc))),
            Local::Segment(a, b) => Held::Segment(Segment::new(p(a), p(b))),
            Local::HalfSpace(n, d) => Held::HalfSpace(HalfSpace::new(v(n), c(*d))),
        };
        let rotation = UnitQuaternion::new_unchecked(Quaternion::from(self.rotation.coords.map(c)));
        let pose = Isometry3::from_parts(Translation3::from(v(&self.translation)), rotation);
        (held, pose)
    }
}

/// A geom shape of any built-in convex kind.
#[derive(Clone, Debug)]
pub enum Held<N: geom::Real> {
    Sphere(Sphere<N>),
    Capsule(Capsule<N>),
    Cylinder(Cylinder<N>),
    Cone(Cone<N>),
    Ellipsoid(Ellipsoid<N>),
    Cuboid(Cuboid<N>),
    Triangle(Triangle<N>),
    Segment(Segment<N>),
    HalfSpace(HalfSpace<N>),
}

impl<N: geom::Real> Held<N> {
    pub fn as_dyn(&self) -> &dyn Shape<N> {
        match self {
            Held::Sphere(s) => s,
            Held::Capsule(s) => s,
            Held::Cylinder(s) => s,
            Held::Cone(s) => s,
            Held::Ellipsoid(s) => s,
            Held::Cuboid(s) => s,
            Held::Triangle(s) => s,
            Held::Segment(s) => s,
            Held::HalfSpace(s) => s,
        }
    }
}
