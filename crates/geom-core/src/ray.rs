//! Rays and ray hits.
//!
//! ```
//! use geom_core::{FeatureId, Ray, RayHit};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // `dir` need not be unit length: t = 1.5 along (0, 0, 2) is 3 further up.
//! let ray = Ray::new(Point3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 0.0, 2.0));
//! assert_eq!(ray.point_at(1.5), Point3::new(1.0, 0.0, 3.0));
//! // A shape at (1, 0, 10) turned a quarter about x (its y axis along world z,
//! // its z along world -y): the ray starts 10 down its y axis, heading along +y.
//! let pose = Isometry3::new(Vector3::new(1.0, 0.0, 10.0), Vector3::x() * std::f64::consts::FRAC_PI_2);
//! let local = ray.inverse_transformed(&pose);
//! assert!((local.origin - Point3::new(0.0, -10.0, 0.0)).norm() < 1e-12);
//! assert!((local.dir - Vector3::new(0.0, 2.0, 0.0)).norm() < 1e-12);
//! // A local hit on the shape's -y side comes back facing world -z; `t` is unchanged.
//! let hit = RayHit { t: 4.5, normal: -Vector3::y(), feature: FeatureId::Face(0) }.transformed(&pose);
//! assert!(hit.t == 4.5 && (hit.normal + Vector3::z()).norm() < 1e-12);
//! ```

use crate::LaneOrd;
use nalgebra::{Isometry3, Point3, Scalar, SimdBool, SimdRealField, SimdValue, Vector3};

use crate::pose::PoseMatrix;
use crate::scalar::{Lane, Real};

/// A ray `origin + t * dir`, `t >= 0`. `dir` need not be unit length: hit
/// times are in units of `dir`.
///
/// `T` is any scalar: `f32`, `f64`, or a SIMD lane type carrying one ray
/// per lane.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray<T: Scalar> {
    /// Where the ray starts.
    pub origin: Point3<T>,
    /// Direction and speed: the point at time `t` is `origin + t * dir`.
    pub dir: Vector3<T>,
}

impl<T: Scalar> Ray<T> {
    /// A ray from `origin` along `dir`.
    pub fn new(origin: Point3<T>, dir: Vector3<T>) -> Self {
        Ray { origin, dir }
    }
}

impl<T: Lane> Ray<T> {
    /// The point `origin + t * dir`.
    #[inline]
    pub fn point_at(&self, t: T) -> Point3<T> {
        self.origin + self.dir * t
    }
}

impl<N: Real> Ray<N> {
    /// Whether origin and direction are free of NaN and infinities.
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.origin.iter().chain(self.dir.iter()).all(|c| c.is_finite())
    }

    /// This world-space ray expressed in the local frame of `pose`.
    ///
    /// The translation is subtracted before the rotation is undone, so a ray
    /// near a shape far from the origin keeps its bits relative to the shape.
    /// `dir` is only rotated: `t` means the same in both frames.
    #[inline]
    pub fn inverse_transformed(&self, pose: &Isometry3<N>) -> Self {
        let matrix = PoseMatrix::new(pose);
        Ray {
            origin: matrix.point_to_local(&self.origin),
            dir: matrix.vector_to_local(&self.dir),
        }
    }

    /// This local-space ray expressed in world space.
    #[inline]
    pub fn transformed(&self, pose: &Isometry3<N>) -> Self {
        let matrix = PoseMatrix::new(pose);
        Ray {
            origin: matrix.point_to_world(&self.origin),
            dir: matrix.vector_to_world(&self.dir),
        }
    }
}

/// Which part of a shape a query touched.
///
/// Numbering is per shape and documented on each shape (for example a cuboid
/// numbers its faces `0..6` as `-x, +x, -y, +y, -z, +z`).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FeatureId {
    /// A face (or a smooth surface patch such as a capsule's side).
    Face(u32),
    /// An edge.
    Edge(u32),
    /// A vertex.
    Vertex(u32),
    /// Not known or not meaningful.
    #[default]
    Unknown,
}

/// The first intersection of a ray with a shape.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit<N: Scalar> {
    /// Time of impact in units of the ray's `dir`: the hit point is
    /// `origin + t * dir`.
    pub t: N,
    /// Unit outward normal at the hit point. For a solid shape hit from
    /// inside (`t = 0`) it is `-dir / |dir|` (zero when `dir` is zero).
    pub normal: Vector3<N>,
    /// The part of the shape that was hit.
    pub feature: FeatureId,
}

impl<N: Real> RayHit<N> {
    /// This local-space hit with its normal rotated into world space.
    #[inline]
    pub fn transformed(self, pose: &Isometry3<N>) -> Self {
        RayHit {
            normal: PoseMatrix::new(pose).vector_to_world(&self.normal),
            ..self
        }
    }
}

/// What a generic ray-cast kernel returns for one scalar or a pack of lanes:
/// a hit mask and, where it is set, the time, normal and a feature code.
///
/// Kernels compute every lane without branches; where `mask` is false the
/// other fields are unspecified (but never read).
#[derive(Clone, Copy, Debug)]
pub struct LaneHit<T: SimdRealField> {
    /// Which lanes hit.
    pub mask: T::SimdBool,
    /// Time of impact in units of `dir`.
    pub t: T,
    /// Unit outward normal at the hit.
    pub normal: Vector3<T>,
    /// A small integer naming the face that was hit (the shape documents it).
    pub face: T,
}

/// `|v|` for one scalar vector, without overflow of the squares: the plain
/// norm where it is finite, else the largest component times the norm of
/// `v` scaled by it (an answer beyond the largest float stays infinite).
pub fn length_without_overflow<N: Real>(v: &Vector3<N>) -> N {
    let plain = v.norm();
    if plain.is_finite() {
        return plain;
    }
    let largest = v.amax();
    largest * (v / largest).norm()
}

/// `v` and `|v|`, or, where `|v|²` overflows or underflows (components
/// beyond about 1e19 or below 1e-19 in `f32`), `v` divided by its largest
/// component and that vector's length: either way `first / second` is the
/// unit direction of every finite non-zero `v` (a zero `v` gives length 0).
/// Lanes whose length is finite and non-zero keep `v` and `|v|` bit for bit.
#[inline]
pub fn with_length<T: Lane>(v: &Vector3<T>) -> (Vector3<T>, T) {
    let zero = T::zero();
    let length = v.norm();
    // Above ε² the squares are normal numbers and the plain norm is exact
    // to rounding; below it (or overflowed) rescale.
    let epsilon = T::simd_default_epsilon();
    let plain = length.simd_ge(epsilon * epsilon) & (length * zero).simd_eq(zero);
    if plain.all() {
        return (*v, length);
    }
    let largest = v.x.simd_abs().lane_max(v.y.simd_abs()).lane_max(v.z.simd_abs());
    let scaled = v / largest.select(largest.simd_gt(zero), T::one());
    let scaled_length = scaled.norm();
    (v.select(plain, scaled), length.select(plain, scaled_length))
}

impl<T: Lane> LaneHit<T> {
    /// Applies the solid-shape rule: lanes whose origin is inside (or on) the
    /// shape hit at `t = 0` with normal `-dir / |dir|` (zero for a zero
    /// `dir`), provided `0 <= max_t` (a negative or NaN `max_t` admits no hit).
    #[inline]
    pub fn with_solid_inside(self, inside: T::SimdBool, dir: &Vector3<T>, max_t: T) -> Self {
        let zero = T::zero();
        let inside = inside & max_t.simd_ge(zero);
        if inside.none() {
            return self;
        }
        let (dir, length) = with_length(dir);
        let has_length = length.simd_gt(zero);
        let inverse_length = (T::one() / length).select(has_length, zero);
        let back = -dir * inverse_length;
        LaneHit {
            mask: self.mask | inside,
            t: zero.select(inside, self.t),
            normal: back.select(inside, self.normal),
            face: (-T::one()).select(inside, self.face),
        }
    }

    /// Lane `i` as a scalar hit (`None` where the lane missed).
    pub fn extract(&self, i: usize) -> Option<RayHit<T::Element>> {
        if (self.mask.bitmask() >> i) & 1 == 0 {
            return None;
        }
        LaneHit::<T::Element> {
            mask: true,
            t: self.t.extract(i),
            normal: self.normal.map(|c| c.extract(i)),
            face: self.face.extract(i),
        }
        .into_hit()
    }
}

impl<N: Real> LaneHit<N> {
    /// The scalar answer: `Some` when the mask is set and every value is
    /// finite (a non-finite result is treated as no answer, never returned).
    /// A negative face code means "inside, no face".
    #[inline]
    pub fn into_hit(self) -> Option<RayHit<N>> {
        if !self.mask || !self.t.is_finite() || !self.normal.iter().all(|c| c.is_finite()) {
            return None;
        }
        Some(RayHit {
            t: self.t,
            normal: self.normal,
            feature: FeatureId::from_face_code(self.face),
        })
    }
}

impl FeatureId {
    /// The feature named by a lane kernel's face code ([`LaneHit::face`]):
    /// `Face(code)` for a non-negative code, `Unknown` for a negative one
    /// (inside a solid shape, no face).
    #[inline]
    pub fn from_face_code<N: Real>(face: N) -> Self {
        if face >= N::zero() {
            // Face codes are small non-negative integers, exact in every precision.
            FeatureId::Face(face.to_subset().map_or(0, |code: f64| code as u32))
        } else {
            FeatureId::Unknown
        }
    }
}
