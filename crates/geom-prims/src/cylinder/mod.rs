//! The capped solid cylinder between two points.
//!
//! ```
//! use geom_core::{FeatureId, Ray, Shape};
//! use geom_prims::Cylinder;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // Radius 1, cap centres (0, 0, 0) and (0, 2, 0).
//! let cylinder = Cylinder::from_points(Point3::origin(), Point3::new(0.0, 2.0, 0.0), 1.0);
//! let pose = Isometry3::identity();
//! // From (5, 1, 0) along -x: the side x = 1 after 4, normal +x.
//! let side = cylinder.ray_cast(&pose, &Ray::new(Point3::new(5.0, 1.0, 0.0), -Vector3::x()), f64::INFINITY, true).unwrap();
//! assert!((side.t - 4.0).abs() < 1e-12 && (side.normal - Vector3::x()).norm() < 1e-12);
//! assert_eq!(side.feature, FeatureId::Face(0));
//! // Straight down from (0.5, 5, 0.5): the cap at y = 2 after 3, Face(2) (the cap at p1).
//! let cap = cylinder.ray_cast(&pose, &Ray::new(Point3::new(0.5, 5.0, 0.5), -Vector3::y()), f64::INFINITY, true).unwrap();
//! assert!((cap.t - 3.0).abs() < 1e-12 && (cap.normal - Vector3::y()).norm() < 1e-12);
//! assert_eq!(cap.feature, FeatureId::Face(2));
//! // (3, 1, 0) is 3 from the axis: 2 from the side.
//! assert!((cylinder.distance(&pose, &Point3::new(3.0, 1.0, 0.0)).unwrap() - 2.0).abs() < 1e-12);
//! ```

mod closest;
mod ray;

pub use closest::project_point_cylinder;
pub use ray::ray_cast_cylinder;

use geom_core::{
    Aabb, FeatureShape, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit,
    Real, Shape, ShapeKind, SupportFeature,
};
use nalgebra::{Point3, Vector3};

/// A solid capped cylinder: the points within `radius` of the axis segment
/// from `p0` to `p1` (local frame) and between the planes through `p0` and
/// `p1` perpendicular to it. The kernels work with the end points directly
/// rather than through a rotation.
///
/// The axis must have a non-zero length (`p1 != p0`). A zero radius is
/// allowed and is the segment itself: a ray hits it only where it meets the
/// segment exactly, with normal `-dir / |dir|` on the side (the axis unit
/// `∓(p1 − p0)/|p1 − p0|` at an end, for a ray along the axis); points
/// project onto the segment, and only points of the segment are inside.
///
/// Features: the side is [`FeatureId::Face(0)`](geom_core::FeatureId), the
/// cap disk at `p0` is `Face(1)` (normal along `p0 − p1`), the cap disk at
/// `p1` is `Face(2)` (normal along `p1 − p0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cylinder<N: Real> {
    /// Centre of the first cap (local frame).
    pub p0: Point3<N>,
    /// Centre of the second cap (local frame), different from `p0`.
    pub p1: Point3<N>,
    /// The radius (`0` or within `[1/max_size, max_size]`, see [`geom_core::max_size`]).
    pub radius: N,
}

impl<N: Real> Cylinder<N> {
    /// The cylinder with cap centres `p0`, `p1` and `radius`. `Err` names a
    /// non-finite `p0` or `p1`, a `p1` equal to `p0` or too close to it
    /// (an axis shorter than `1/max_size`) or too far (a squared length
    /// that overflows), a `radius` that is not `0` or within
    /// `[1/max_size, max_size]` (see [`geom_core::max_size`]), or one for
    /// which `radius² · |p1 − p0|²` overflows.
    pub fn try_from_points(p0: Point3<N>, p1: Point3<N>, radius: N) -> Result<Self, GeomError> {
        crate::check_finite("cylinder", "p0", <[N; 3]>::from(p0.coords))?;
        crate::check_finite("cylinder", "p1", <[N; 3]>::from(p1.coords))?;
        let radius = crate::check_size("cylinder", "radius", radius)?;
        let axis_squared = (p1 - p0).norm_squared();
        if axis_squared == N::zero() {
            return Err(GeomError::invalid(
                "cylinder",
                "p1",
                <[N; 3]>::from(p1.coords),
                "must differ from p0 (zero-length axis)",
            ));
        }
        let shortest = geom_core::max_size::<N>().recip();
        if axis_squared < shortest * shortest {
            return Err(GeomError::invalid(
                "cylinder",
                "p1",
                <[N; 3]>::from(p1.coords),
                "is too close to p0 (the axis is shorter than 1/max_size, its square not a normal float)",
            ));
        }
        if !axis_squared.is_finite() {
            return Err(GeomError::invalid(
                "cylinder",
                "p1",
                <[N; 3]>::from(p1.coords),
                "is too far from p0 (the squared axis length overflows)",
            ));
        }
        // The kernels square `radius · |axis|`.
        if !(radius * radius * axis_squared).is_finite() {
            return Err(GeomError::invalid(
                "cylinder",
                "radius",
                radius,
                "is too large for the axis length (radius² · |p1 − p0|² overflows)",
            ));
        }
        Ok(Cylinder { p0, p1, radius })
    }

    /// The cylinder with cap centres `p0`, `p1` and `radius`.
    ///
    /// # Panics
    /// With [`Cylinder::try_from_points`]'s message when a parameter is invalid.
    pub fn from_points(p0: Point3<N>, p1: Point3<N>, radius: N) -> Self {
        Self::try_from_points(p0, p1, radius).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<N: Real> LaneShape<N> for Cylinder<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T> {
        ray_cast_cylinder(
            ray,
            &self.p0.map(T::splat),
            &self.p1.map(T::splat),
            T::splat(self.radius),
            max_t,
            solid,
        )
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        project_point_cylinder(
            point,
            &self.p0.map(T::splat),
            &self.p1.map(T::splat),
            T::splat(self.radius),
        )
    }
}

impl<N: Real> Shape<N> for Cylinder<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Cylinder
    }

    fn is_convex(&self) -> bool {
        true
    }

    /// The exact box of the two cap disks: along coordinate `k` a disk of
    /// radius `r` perpendicular to the unit axis `u` reaches `r √(1 − u_k²)`.
    fn local_aabb(&self) -> Aabb<N> {
        let axis = self.p1 - self.p0;
        let length = axis.norm();
        let reach = Vector3::new(
            axis.yz().norm(),
            Vector3::new(axis.x, axis.z, N::zero()).norm(),
            axis.xy().norm(),
        ) * (self.radius / length);
        Aabb::new(self.p0.inf(&self.p1) - reach, self.p0.sup(&self.p1) + reach)
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid).into_hit()
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// The cap centre on `dir`'s side plus the radius along `dir`'s part
    /// perpendicular to the axis (the cap centre itself when `dir` is along
    /// the axis: every point of that cap is farthest).
    /// The cap (a regular polygon of rim points starting at the rim point
    /// farthest along `dir`) when `dir` is within `tolerance` of the axis,
    /// the side line when within `tolerance` of perpendicular to it, else
    /// the rim point ([`FeatureShape::Curved`]); a zero radius answers as
    /// the axis segment.
    fn support_feature_local(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        if self.radius == N::zero() {
            return Some(crate::feature::segment_feature(self.p0, self.p1, &u, tolerance));
        }
        let axis = crate::contact::try_unit(&(self.p1 - self.p0))?;
        let along = u.dot(&axis);
        let across = u - axis * along;
        let (end, cap_normal) = if along > N::zero() {
            (self.p1, axis)
        } else {
            (self.p0, -axis)
        };
        // The sines of the angles to the cap's and to the side's normal;
        // when the tolerance admits both, the better aligned one.
        let cap_sine = across.norm();
        let side_sine = along.abs();
        let out = crate::feature::across_or_any(&axis, &u);
        if cap_sine <= tolerance && cap_sine <= side_sine {
            return Some(crate::feature::disk_face(end, cap_normal, out, self.radius));
        }
        if side_sine <= tolerance {
            return Some(SupportFeature::edge(
                self.p0 + out * self.radius,
                self.p1 + out * self.radius,
                u,
            ));
        }
        Some(SupportFeature::point(
            FeatureShape::Curved,
            end + out * self.radius,
            u,
        ))
    }

    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        let length = crate::support_direction_length(dir)?;
        let axis = self.p1 - self.p0;
        let end = if axis.dot(dir) > N::zero() {
            self.p1
        } else {
            self.p0
        };
        // `dir` along the axis to rounding: the cap's centre (see
        // `direction_across_axis` for why a rounding residue must not be
        // normalised into a rim direction).
        Some(match crate::direction_across_axis(dir, length, &axis) {
            Some(across) => end + across * self.radius,
            None => end,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::assert_lanes_match_scalar;
    use geom_core::FeatureId;

    /// Axis along z from (0,0,-1) to (0,0,1), radius 0.5.
    pub(super) fn upright() -> Cylinder<f64> {
        Cylinder::from_points(Point3::new(0.0, 0.0, -1.0), Point3::new(0.0, 0.0, 1.0), 0.5)
    }
    pub(super) fn cast(
        shape: &Cylinder<f64>,
        origin: [f64; 3],
        dir: [f64; 3],
        solid: bool,
    ) -> Option<RayHit<f64>> {
        shape.ray_cast_local(&Ray::new(origin.into(), dir.into()), f64::INFINITY, solid)
    }
    #[test]
    fn support_and_aabb() {
        // Axis (3, 0, 4) / 5, radius 1: along x the disks reach
        // √(1 − 0.36) = 0.8, along y 1, along z √(1 − 0.64) = 0.6.
        let cylinder = Cylinder::from_points(Point3::new(1.0, 2.0, 3.0), Point3::new(4.0, 2.0, 7.0), 1.0);
        let aabb = cylinder.local_aabb();
        assert!(
            (aabb.mins - Point3::new(0.2, 1.0, 2.4)).norm() < 1e-15,
            "{aabb:?}"
        );
        assert!(
            (aabb.maxs - Point3::new(4.8, 3.0, 7.6)).norm() < 1e-15,
            "{aabb:?}"
        );
        // Along +y (perpendicular to the axis, so the caps tie): cap p0's rim.
        assert_eq!(
            cylinder.support_local(&Vector3::y()),
            Some(Point3::new(1.0, 3.0, 3.0))
        );
        // Along the axis: the centre of cap p1.
        assert_eq!(
            cylinder.support_local(&Vector3::new(3.0, 0.0, 4.0)),
            Some(Point3::new(4.0, 2.0, 7.0))
        );
        // Along -x: cap p0's rim towards (-0.8, 0, 0.6) (the part of -x
        // perpendicular to the axis is (-0.64, 0, 0.48), unit (-0.8, 0, 0.6)).
        let s = cylinder.support_local(&-Vector3::x()).unwrap();
        assert!((s - Point3::new(0.2, 2.0, 3.6)).norm() < 1e-15, "{s:?}");
        assert_eq!(cylinder.support_local(&Vector3::zeros()), None);
    }

    #[test]
    fn zero_radius_is_the_segment() {
        let segment = Cylinder::from_points(Point3::new(0.0, 0.0, -1.0), Point3::new(0.0, 0.0, 1.0), 0.0);
        // Through the segment: hit facing the ray.
        let hit = cast(&segment, [-2.0, 0.0, 0.5], [1.0, 0.0, 0.0], true).unwrap();
        assert_eq!(
            (hit.t, hit.normal, hit.feature),
            (2.0, -Vector3::x(), FeatureId::Face(0))
        );
        assert!(cast(&segment, [-2.0, 1e-9, 0.5], [1.0, 0.0, 0.0], true).is_none());
        // Down the axis: the end p1 at t = 2, normal +axis.
        let hit = cast(&segment, [0.0, 0.0, 3.0], [0.0, 0.0, -1.0], true).unwrap();
        assert_eq!(
            (hit.t, hit.normal, hit.feature),
            (2.0, Vector3::z(), FeatureId::Face(2))
        );
        let p = segment
            .closest_point_local(&Point3::new(1.0, 0.0, 0.5), true)
            .unwrap();
        assert_eq!((p.point, p.is_inside), (Point3::new(0.0, 0.0, 0.5), false));
        let p = segment
            .closest_point_local(&Point3::new(0.0, 0.0, 0.5), false)
            .unwrap();
        assert_eq!((p.point, p.is_inside), (Point3::new(0.0, 0.0, 0.5), true));
    }

    #[test]
    fn bad_input_never_panics_or_returns_nan() {
        let cylinder = upright();
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        for (o, d) in [
            ([nan, 0.0, 0.0], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [inf, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [nan, 0.0, 0.0]),
            ([0.0, 0.0, -5.0], [0.0, 0.0, inf]),
            ([-inf, 0.0, 0.0], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ] {
            for solid in [true, false] {
                assert!(cast(&cylinder, o, d, solid).is_none(), "{o:?} {d:?}");
            }
        }
        // A zero dir hits only from inside a solid cylinder.
        let hit = cast(&cylinder, [0.0, 0.2, 0.9], [0.0, 0.0, 0.0], true).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vector3::zeros()));
        assert!(cast(&cylinder, [0.0, 0.2, 0.9], [0.0, 0.0, 0.0], false).is_none());
        assert!(
            cylinder
                .closest_point_local(&Point3::new(nan, 0.0, 0.0), true)
                .is_none()
        );
        assert!(
            cylinder
                .closest_point_local(&Point3::new(0.0, inf, 0.0), false)
                .is_none()
        );

        let p = Point3::new(1.0f32, 2.0, 3.0);
        assert_eq!(
            Cylinder::try_from_points(p, p, 1.0).unwrap_err().to_string(),
            "cylinder: p1 = [1.0, 2.0, 3.0] is invalid (must differ from p0 (zero-length axis))"
        );
        assert_eq!(
            Cylinder::try_from_points(p, Point3::new(1.0, 2.0, 4.0), -1.0)
                .unwrap_err()
                .to_string(),
            "cylinder: radius = -1.0 is invalid (must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size))"
        );
        assert_eq!(
            Cylinder::try_from_points(Point3::new(nan, 0.0, 0.0), p.cast::<f64>(), 1.0)
                .unwrap_err()
                .to_string(),
            "cylinder: p0 = [NaN, 0.0, 0.0] is invalid (must be finite)"
        );
        // An axis whose squared length underflows is zero-length too; one
        // that overflows is refused.
        assert!(Cylinder::try_from_points(p, p + Vector3::new(1e-30, 0.0, 0.0), 1.0).is_err());
        let far = Point3::new(3e38f32, 0.0, 0.0);
        assert!(Cylinder::try_from_points(-far, far, 1.0).is_err());
        assert!(Cylinder::try_from_points(p, p + Vector3::x(), f32::INFINITY).is_err());
    }

    #[test]
    fn lanes_equal_scalar() {
        let p0 = Point3::new(0.5, -1.0, 0.25);
        let p1 = Point3::new(-0.75, 1.5, 1.0);
        assert_lanes_match_scalar(
            &Cylinder::from_points(p0, p1, 0.75f32),
            &Cylinder::from_points(p0.cast::<f64>(), p1.cast::<f64>(), 0.75),
            3.0,
        );
        // Axis-aligned (parallel rays in the random set) and zero radius.
        let p1 = Point3::new(0.5, -1.0, 2.0);
        assert_lanes_match_scalar(
            &Cylinder::from_points(p0, p1, 1.0f32),
            &Cylinder::from_points(p0.cast::<f64>(), p1.cast::<f64>(), 1.0),
            3.0,
        );
        assert_lanes_match_scalar(
            &Cylinder::from_points(p0, p1, 0.0f32),
            &Cylinder::from_points(p0.cast::<f64>(), p1.cast::<f64>(), 0.0),
            3.0,
        );
    }
}
