//! The half-space: every point on or below a plane.
//!
//! ```
//! use geom_core::{Ray, Shape};
//! use geom_prims::HalfSpace;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // 2y ≤ 4, i.e. everything at or below y = 2 (the normal need not be unit length).
//! let below = HalfSpace::new(Vector3::new(0.0, 2.0, 0.0), 4.0);
//! assert_eq!(below.unit_normal(), Vector3::y());
//! let pose = Isometry3::identity();
//! // Straight down from (1, 5, 1): the plane after 3, normal +y.
//! let hit = below.ray_cast(&pose, &Ray::new(Point3::new(1.0, 5.0, 1.0), -Vector3::y()), f64::INFINITY, true).unwrap();
//! assert!((hit.t - 3.0).abs() < 1e-12 && (hit.normal - Vector3::y()).norm() < 1e-12);
//! // Signed distances: 5 above the plane, 3 below it.
//! assert!((below.distance(&pose, &Point3::new(0.0, 7.0, 0.0)).unwrap() - 5.0).abs() < 1e-12);
//! assert!((below.distance(&pose, &Point3::new(0.0, -1.0, 0.0)).unwrap() + 3.0).abs() < 1e-12);
//! ```

mod closest;
mod ray;

pub use closest::project_point_half_space;
pub use ray::ray_cast_half_space;

use geom_core::{
    Aabb, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit, Real, Shape,
    ShapeKind,
};
use nalgebra::{Isometry3, Point3, Vector3};

/// The solid half-space `normal · x <= offset` in the local frame, with
/// `normal` and `offset` exactly as given (the normal need not be unit
/// length); its boundary is the plane `normal · x = offset` and `normal`
/// points out of it.
///
/// Features: the plane is [`FeatureId::Face(0)`](geom_core::FeatureId).
///
/// Precision: the plane is kept as given, not normalised (rounding a unit
/// normal would tilt a plane far from the origin by `eps · |offset|`), and
/// the signed height `normal · p − offset` and the approach speed
/// `normal · dir` are computed with a compensated dot product, as if in
/// twice the working precision: a plane 10⁶ from the origin answers `t` to
/// an ulp or two in f32.
///
/// The half-space is unbounded: its bounding box uses `±N::max_value()`
/// (finite) on every unbounded side, and [`Shape::support_local`] answers
/// `None` (no direction has a finite farthest point except the normal
/// itself, where a whole plane ties). [`Shape::is_convex`] still reports
/// `true`; support-based algorithms (GJK) must treat it specially.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfSpace<N: Real> {
    normal: Vector3<N>,
    offset: N,
    unit_normal: Vector3<N>,
}

impl<N: Real> HalfSpace<N> {
    /// The half-space `normal · x <= offset` (any non-zero `normal` length).
    /// `Err` names a zero or non-finite `normal` or a non-finite `offset`.
    pub fn try_new(normal: Vector3<N>, offset: N) -> Result<Self, GeomError> {
        let invalid_normal = || {
            GeomError::invalid(
                "half_space",
                "normal",
                normal.as_slice(),
                "must be finite and non-zero",
            )
        };
        if !normal.iter().all(|c| c.is_finite()) {
            return Err(invalid_normal());
        }
        // Scale by the largest component first so neither squaring
        // overflows (1e30 in f32) nor underflows (1e-30).
        let largest = normal.amax();
        if largest <= N::zero() {
            return Err(invalid_normal());
        }
        let scaled = normal / largest;
        let unit_normal = scaled / scaled.norm();
        if !offset.is_finite() {
            return Err(GeomError::invalid(
                "half_space",
                "offset",
                offset,
                "must be finite",
            ));
        }
        Ok(HalfSpace {
            normal,
            offset,
            unit_normal,
        })
    }

    /// The half-space `normal · x <= offset`.
    ///
    /// # Panics
    /// With [`HalfSpace::try_new`]'s message when a parameter is invalid.
    pub fn new(normal: Vector3<N>, offset: N) -> Self {
        Self::try_new(normal, offset).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The normal as given.
    pub fn normal(&self) -> Vector3<N> {
        self.normal
    }

    /// The offset as given: the half-space is `normal · x <= offset`.
    pub fn offset(&self) -> N {
        self.offset
    }

    /// The unit outward normal (the normal rounded to unit length).
    pub fn unit_normal(&self) -> Vector3<N> {
        self.unit_normal
    }
}

/// The box of `normal · x <= offset`: `±N::max_value()` on every side,
/// except the bounded side when the normal is along an axis.
fn half_space_aabb<N: Real>(normal: &Vector3<N>, offset: N) -> Aabb<N> {
    let unbounded = N::max_value().unwrap_or_else(N::one);
    let mut mins = Point3::from(Vector3::repeat(-unbounded));
    let mut maxs = Point3::from(Vector3::repeat(unbounded));
    let zero = N::zero();
    let mut nonzero = (0..3).filter(|&k| normal[k] != zero);
    if let (Some(axis), None) = (nonzero.next(), nonzero.next()) {
        let bound = offset / normal[axis];
        if normal[axis] > zero {
            maxs[axis] = bound;
        } else {
            mins[axis] = bound;
        }
    }
    Aabb::new(mins, maxs)
}

impl<N: Real> LaneShape<N> for HalfSpace<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T> {
        ray_cast_half_space(
            ray,
            &self.normal.map(T::splat),
            T::splat(self.offset),
            &self.unit_normal.map(T::splat),
            max_t,
            solid,
        )
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        project_point_half_space(point, &self.normal.map(T::splat), T::splat(self.offset))
    }
}

impl<N: Real> Shape<N> for HalfSpace<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::HalfSpace
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        half_space_aabb(&self.normal, self.offset)
    }

    /// The box of the half-space moved by `pose` (tight only where the
    /// rotated normal is exactly along an axis). The default would overflow
    /// mapping `±max_value` through the rotation.
    fn aabb(&self, pose: &Isometry3<N>) -> Aabb<N> {
        let world_normal = pose.rotation * self.normal;
        let world_offset = self.offset + world_normal.dot(&pose.translation.vector);
        half_space_aabb(&world_normal, world_offset)
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid).into_hit()
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// Always `None`: the half-space is unbounded (see the type's doc).
    fn support_local(&self, _dir: &Vector3<N>) -> Option<Point3<N>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::assert_lanes_match_scalar;

    pub(super) fn cast(
        space: &HalfSpace<f64>,
        origin: [f64; 3],
        dir: [f64; 3],
        solid: bool,
    ) -> Option<RayHit<f64>> {
        space.ray_cast_local(&Ray::new(origin.into(), dir.into()), f64::INFINITY, solid)
    }

    #[test]
    fn bad_input_never_panics_or_returns_nan() {
        let floor = HalfSpace::new(Vector3::new(0.0, 0.0, 1.0), 2.0);
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        for (o, d) in [
            ([nan, 0.0, 5.0], [0.0, 0.0, -1.0]),
            ([0.0, 0.0, 5.0], [0.0, 0.0, -inf]),
            ([0.0, 0.0, 5.0], [nan, 0.0, -1.0]),
            ([0.0, 0.0, inf], [0.0, 0.0, -1.0]),
            ([0.0, 0.0, 5.0], [0.0, 0.0, 0.0]),
        ] {
            for solid in [true, false] {
                assert!(cast(&floor, o, d, solid).is_none(), "{o:?} {d:?}");
            }
        }
        let zero_dir = cast(&floor, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], true).unwrap();
        assert_eq!((zero_dir.t, zero_dir.normal), (0.0, Vector3::zeros()));
        assert!(cast(&floor, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], false).is_none());
        assert!(
            floor
                .closest_point_local(&Point3::new(nan, 0.0, 0.0), true)
                .is_none()
        );
        assert_eq!(
            HalfSpace::try_new(Vector3::new(0.0f32, 0.0, 0.0), 1.0)
                .unwrap_err()
                .to_string(),
            "half_space: normal = [0.0, 0.0, 0.0] is invalid (must be finite and non-zero)"
        );
        assert_eq!(
            HalfSpace::try_new(Vector3::new(1.0f32, 0.0, 0.0), f32::INFINITY)
                .unwrap_err()
                .to_string(),
            "half_space: offset = inf is invalid (must be finite)"
        );
        assert!(HalfSpace::try_new(Vector3::new(nan, 0.0, 1.0), 0.0).is_err());
        assert!(HalfSpace::try_new(Vector3::new(inf, 0.0, 1.0), 0.0).is_err());
        assert!(HalfSpace::try_new(Vector3::new(0.0, 0.0, 1.0), nan).is_err());
        // Huge and tiny normals normalise without overflow or underflow.
        let huge = HalfSpace::new(Vector3::new(3.0e30f32, 4.0e30, 0.0), 1.0);
        assert!((huge.unit_normal() - Vector3::new(0.6, 0.8, 0.0)).norm() < 1e-7);
        let tiny = HalfSpace::new(Vector3::new(0.0f32, -1.0e-40, 0.0), 1.0);
        assert_eq!(tiny.unit_normal(), Vector3::new(0.0, -1.0, 0.0));
        assert_eq!(floor.support_local(&Vector3::new(0.0, 0.0, 1.0)), None);
    }

    #[test]
    fn bounding_boxes() {
        let big = f64::MAX;
        // z <= 2: tight above only.
        let floor = HalfSpace::new(Vector3::new(0.0, 0.0, 1.0), 2.0);
        assert_eq!(
            floor.local_aabb(),
            Aabb::new(Point3::new(-big, -big, -big), Point3::new(big, big, 2.0))
        );
        // −2y <= 6 ⇔ y >= −3: tight below only.
        let wall = HalfSpace::new(Vector3::new(0.0, -2.0, 0.0), 6.0);
        assert_eq!(
            wall.local_aabb(),
            Aabb::new(Point3::new(-big, -3.0, -big), Point3::new(big, big, big))
        );
        let tilted = HalfSpace::new(Vector3::new(1.0, 1.0, 0.0), 3.0);
        assert_eq!(
            tilted.local_aabb(),
            Aabb::new(Point3::new(-big, -big, -big), Point3::new(big, big, big))
        );
        // Moved up by 5: z <= 7; every bound finite.
        let moved = floor.aabb(&Isometry3::translation(1.0, 2.0, 5.0));
        assert_eq!(moved.maxs.z, 7.0);
        assert!(moved.mins.iter().chain(moved.maxs.iter()).all(|c| c.is_finite()));
    }

    #[test]
    fn lanes_equal_scalar() {
        let normal = Vector3::new(0.3, -1.0, 0.5);
        assert_lanes_match_scalar(
            &HalfSpace::new(normal.cast::<f32>(), 0.5),
            &HalfSpace::new(normal, 0.5),
            2.0,
        );
        let axis = Vector3::new(0.0, 0.0, 1.0);
        assert_lanes_match_scalar(
            &HalfSpace::new(axis.cast::<f32>(), -1.0),
            &HalfSpace::new(axis, -1.0),
            2.0,
        );
    }
}
