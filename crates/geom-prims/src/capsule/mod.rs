//! The capsule: all points within `radius` of the segment `a b`.
//!
//! ```
//! use geom_core::{FeatureId, Ray, Shape};
//! use geom_prims::Capsule;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // Radius 0.5 around the segment (0, -1, 0)–(0, 1, 0).
//! let capsule = Capsule::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5);
//! let pose = Isometry3::identity();
//! // From (3, 0.5, 0) along -x: the side x = 0.5 after 2.5, normal +x.
//! let side = capsule.ray_cast(&pose, &Ray::new(Point3::new(3.0, 0.5, 0.0), -Vector3::x()), f64::INFINITY, true).unwrap();
//! assert!((side.t - 2.5).abs() < 1e-12 && (side.normal - Vector3::x()).norm() < 1e-12);
//! assert_eq!(side.feature, FeatureId::Face(0));
//! // Straight down from (0, 5, 0): the cap around b, top at y = 1.5, after 3.5.
//! let cap = capsule.ray_cast(&pose, &Ray::new(Point3::new(0.0, 5.0, 0.0), -Vector3::y()), f64::INFINITY, true).unwrap();
//! assert!((cap.t - 3.5).abs() < 1e-12 && cap.feature == FeatureId::Face(2));
//! // (0, 4, 0) is 3 past b: 2.5 from the surface.
//! assert!((capsule.distance(&pose, &Point3::new(0.0, 4.0, 0.0)).unwrap() - 2.5).abs() < 1e-12);
//! ```

mod closest;
mod ray;

pub use closest::project_point_capsule;
pub use ray::ray_cast_capsule;

use geom_core::{
    Aabb, FeatureShape, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit,
    Real, Shape, ShapeKind, SupportFeature,
};
use nalgebra::{Point3, Vector3};

/// A solid capsule: the points within `radius` of the segment from `a` to
/// `b`, both given in the local frame (users think in endpoints; the
/// kernels work with them directly rather than through a rotation).
///
/// A zero-length segment (`a == b`) is a sphere of `radius` at `a` and
/// answers exactly as [`Sphere`](crate::Sphere) does, except that its hits
/// report `Face(1)`. A zero radius is the segment itself.
///
/// Features: the cylindrical side is [`FeatureId::Face(0)`](geom_core::FeatureId),
/// the hemisphere around `a` is `Face(1)`, the one around `b` is `Face(2)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule<N: Real> {
    /// One end of the axis segment (local frame).
    pub a: Point3<N>,
    /// The other end of the axis segment (local frame).
    pub b: Point3<N>,
    /// The radius (`0` or within `[1/max_size, max_size]`, see [`geom_core::max_size`]).
    pub radius: N,
}

impl<N: Real> Capsule<N> {
    /// The capsule around segment `a b`; `Err` names a non-finite `a` or `b`
    /// or a `radius` that is not `0` or within `[1/max_size, max_size]`
    /// ([`geom_core::max_size`]).
    pub fn try_from_points(a: Point3<N>, b: Point3<N>, radius: N) -> Result<Self, GeomError> {
        crate::check_finite("capsule", "a", <[N; 3]>::from(a.coords))?;
        crate::check_finite("capsule", "b", <[N; 3]>::from(b.coords))?;
        Ok(Capsule {
            a,
            b,
            radius: crate::check_size("capsule", "radius", radius)?,
        })
    }

    /// The capsule around segment `a b`.
    ///
    /// # Panics
    /// With [`Capsule::try_from_points`]'s message when a parameter is invalid.
    pub fn from_points(a: Point3<N>, b: Point3<N>, radius: N) -> Self {
        Self::try_from_points(a, b, radius).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<N: Real> LaneShape<N> for Capsule<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T> {
        ray_cast_capsule(
            ray,
            &self.a.map(T::splat),
            &self.b.map(T::splat),
            T::splat(self.radius),
            max_t,
            solid,
        )
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        project_point_capsule(
            point,
            &self.a.map(T::splat),
            &self.b.map(T::splat),
            T::splat(self.radius),
        )
    }
}

impl<N: Real> Shape<N> for Capsule<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Capsule
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        Aabb::new(self.a.inf(&self.b), self.a.sup(&self.b)).loosened(self.radius)
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid).into_hit()
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// The side line (the axis moved by the radius along `dir`) when `dir`
    /// is within `tolerance` of perpendicular to the axis, else the support
    /// point of an end cap ([`FeatureShape::Curved`]).
    fn support_feature_local(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        let core = crate::feature::segment_feature(self.a, self.b, &u, tolerance);
        Some(match core.shape() {
            FeatureShape::Edge => core.offset(&u, self.radius),
            _ if self.radius > N::zero() => {
                SupportFeature::point(FeatureShape::Curved, core.points()[0] + u * self.radius, u)
            }
            _ => core,
        })
    }

    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        let length = crate::support_direction_length(dir)?;
        let end = if (self.b - self.a).dot(dir) > N::zero() {
            self.b
        } else {
            self.a
        };
        Some(end + dir * (self.radius / length))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sphere;
    use crate::test_support::{TestRng, assert_lanes_match_scalar};
    use nalgebra::Isometry3;

    /// Axis along z from (0,0,-1) to (0,0,1), radius 0.5.
    pub(super) fn upright() -> Capsule<f64> {
        Capsule::from_points(Point3::new(0.0, 0.0, -1.0), Point3::new(0.0, 0.0, 1.0), 0.5)
    }

    pub(super) fn cast(
        shape: &Capsule<f64>,
        origin: [f64; 3],
        dir: [f64; 3],
        solid: bool,
    ) -> Option<RayHit<f64>> {
        shape.ray_cast_local(&Ray::new(origin.into(), dir.into()), f64::INFINITY, solid)
    }

    #[test]
    fn support_and_aabb() {
        let capsule = Capsule::from_points(Point3::new(1.0, 2.0, 3.0), Point3::new(-1.0, 0.0, 5.0), 0.5);
        let aabb = capsule.local_aabb();
        assert_eq!(aabb.mins, Point3::new(-1.5, -0.5, 2.5));
        assert_eq!(aabb.maxs, Point3::new(1.5, 2.5, 5.5));
        assert_eq!(
            capsule.support_local(&Vector3::new(0.0, 0.0, 2.0)),
            Some(Point3::new(-1.0, 0.0, 5.5))
        );
        assert_eq!(
            capsule.support_local(&Vector3::new(4.0, 0.0, 0.0)),
            Some(Point3::new(1.5, 2.0, 3.0))
        );
        assert_eq!(capsule.support_local(&Vector3::zeros()), None);
        assert_eq!(capsule.support_local(&Vector3::new(f64::NAN, 0.0, 0.0)), None);
    }

    #[test]
    fn zero_length_segment_is_a_sphere() {
        let centre = Point3::new(0.25, -3.0, 7.0);
        let capsule = Capsule::from_points(centre, centre, 1.5);
        let sphere = Sphere::new(1.5);
        let pose = Isometry3::translation(centre.x, centre.y, centre.z);
        let mut rng = TestRng::new(11);
        let mut hits = 0;
        for i in 0..4000 {
            let origin = centre + rng.vector(4.0);
            let dir = if i % 2 == 0 {
                centre - origin + rng.vector(1.5)
            } else {
                rng.vector(1.0)
            };
            let ray = Ray::new(origin, dir);
            for solid in [true, false] {
                let from_capsule = capsule.ray_cast(&Isometry3::identity(), &ray, 5.0, solid);
                let from_sphere = sphere.ray_cast(&pose, &ray, 5.0, solid);
                // Same answer up to rounding: the capsule subtracts its
                // defining point exactly, the sphere's pose rounds
                // `origin − centre` once.
                assert_eq!(from_capsule.is_some(), from_sphere.is_some(), "{ray:?}");
                if let (Some(c), Some(s)) = (from_capsule, from_sphere) {
                    let scale = s.t + (origin - centre).norm() / dir.norm();
                    assert!((c.t - s.t).abs() <= 4.0 * f64::EPSILON * scale, "{c:?} vs {s:?}");
                    assert!((c.normal - s.normal).norm() <= 1e-14, "{c:?} vs {s:?}");
                }
                hits += from_capsule.is_some() as usize;
            }
            let projected = capsule.closest_point_local(&origin, false).unwrap();
            let expected = sphere.closest_point(&pose, &origin, false).unwrap();
            assert_eq!(projected.is_inside, expected.is_inside);
            assert!((projected.point - expected.point).norm() < 1e-14);
        }
        assert!(hits > 1000, "{hits}");
        // The centre itself projects onto (r, 0, 0) from the centre, as for
        // the sphere.
        let p = capsule.closest_point_local(&centre, false).unwrap();
        assert_eq!(p.point, centre + Vector3::new(1.5, 0.0, 0.0));
    }

    #[test]
    fn zero_radius_is_the_segment() {
        let segment = Capsule::from_points(Point3::new(0.0, 0.0, -1.0), Point3::new(0.0, 0.0, 1.0), 0.0);
        // A ray through the segment hits it, facing the ray.
        let hit = cast(&segment, [-2.0, 0.0, 0.5], [1.0, 0.0, 0.0], true).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, Vector3::new(-1.0, 0.0, 0.0)));
        assert!(cast(&segment, [-2.0, 1e-9, 0.5], [1.0, 0.0, 0.0], true).is_none());
        // Down the axis: the end b at t = 2.
        let hit = cast(&segment, [0.0, 0.0, 3.0], [0.0, 0.0, -1.0], true).unwrap();
        assert_eq!(hit.t, 2.0);
        let p = segment
            .closest_point_local(&Point3::new(1.0, 0.0, 0.5), true)
            .unwrap();
        assert_eq!((p.point, p.is_inside), (Point3::new(0.0, 0.0, 0.5), false));
    }

    #[test]
    fn bad_input_never_panics_or_returns_nan() {
        let capsule = upright();
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        for (o, d) in [
            ([nan, 0.0, 0.0], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [inf, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [nan, 0.0, 0.0]),
            ([-inf, 0.0, 0.0], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ] {
            for solid in [true, false] {
                assert!(cast(&capsule, o, d, solid).is_none(), "{o:?} {d:?}");
            }
        }
        // A zero dir hits only from inside a solid capsule.
        let hit = cast(&capsule, [0.0, 0.2, 1.1], [0.0, 0.0, 0.0], true).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vector3::zeros()));
        assert!(cast(&capsule, [0.0, 0.2, 1.1], [0.0, 0.0, 0.0], false).is_none());
        assert!(
            capsule
                .closest_point_local(&Point3::new(nan, 0.0, 0.0), true)
                .is_none()
        );
        assert!(
            capsule
                .closest_point_local(&Point3::new(inf, 0.0, 0.0), false)
                .is_none()
        );
        let origin = Point3::origin();
        assert_eq!(
            Capsule::try_from_points(Point3::<f32>::origin(), Point3::origin(), -0.5f32)
                .unwrap_err()
                .to_string(),
            "capsule: radius = -0.5 is invalid (must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size))"
        );
        assert_eq!(
            Capsule::try_from_points(origin, Point3::new(1.0, nan, 0.0), 1.0)
                .unwrap_err()
                .to_string(),
            "capsule: b = [1.0, NaN, 0.0] is invalid (must be finite)"
        );
        assert!(Capsule::try_from_points(Point3::new(inf, 0.0, 0.0), origin, 1.0).is_err());
        assert!(Capsule::try_from_points(origin, origin, f64::NAN).is_err());
    }

    #[test]
    fn lanes_equal_scalar() {
        let a = Point3::new(0.5, -1.0, 0.25);
        let b = Point3::new(-0.75, 1.5, 1.0);
        assert_lanes_match_scalar(
            &Capsule::from_points(a, b, 0.75f32),
            &Capsule::from_points(a.cast::<f64>(), b.cast::<f64>(), 0.75),
            3.0,
        );
        // Degenerate: zero length and zero radius.
        assert_lanes_match_scalar(
            &Capsule::from_points(a, a, 1.0f32),
            &Capsule::from_points(a.cast::<f64>(), a.cast::<f64>(), 1.0),
            3.0,
        );
        assert_lanes_match_scalar(
            &Capsule::from_points(a, b, 0.0f32),
            &Capsule::from_points(a.cast::<f64>(), b.cast::<f64>(), 0.0),
            3.0,
        );
    }
}
