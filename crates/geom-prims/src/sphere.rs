//! The sphere: all points within `radius` of the local origin.
//!
//! ```
//! use geom_core::{Ray, Shape};
//! use geom_prims::Sphere;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A sphere of radius 2 centred at (0, 0, 5).
//! let sphere = Sphere::new(2.0);
//! let pose = Isometry3::translation(0.0, 0.0, 5.0);
//! // From the origin along +z: entered at z = 3, facing -z.
//! let hit = sphere.ray_cast(&pose, &Ray::new(Point3::origin(), Vector3::z()), f64::INFINITY, true).unwrap();
//! assert!((hit.t - 3.0).abs() < 1e-12 && (hit.normal + Vector3::z()).norm() < 1e-12);
//! // From the centre: a hollow sphere is left at z = 7 (t = 2), a solid one is hit at once.
//! let from_centre = Ray::new(Point3::new(0.0, 0.0, 5.0), Vector3::z());
//! assert!((sphere.ray_cast(&pose, &from_centre, f64::INFINITY, false).unwrap().t - 2.0).abs() < 1e-12);
//! assert_eq!(sphere.ray_cast(&pose, &from_centre, f64::INFINITY, true).unwrap().t, 0.0);
//! // (3, 0, 5) is 3 from the centre: closest point (2, 0, 5), 1 away.
//! let projection = sphere.closest_point(&pose, &Point3::new(3.0, 0.0, 5.0), true).unwrap();
//! assert!((projection.point - Point3::new(2.0, 0.0, 5.0)).norm() < 1e-12);
//! assert!((sphere.distance(&pose, &Point3::new(3.0, 0.0, 5.0)).unwrap() - 1.0).abs() < 1e-12);
//! ```

use geom_core::{
    Aabb, FeatureShape, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit,
    Real, Shape, ShapeKind, SupportFeature,
};
use nalgebra::{Point3, SimdValue, Vector3};

/// A solid sphere centred on the local origin. Place it with a pose whose
/// translation is the centre.
///
/// Features: the surface is [`FeatureId::Face(0)`](geom_core::FeatureId).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere<N: Real> {
    /// The radius (finite, `>= 0`; zero is a point).
    pub radius: N,
}

impl<N: Real> Sphere<N> {
    /// A sphere of `radius`; `Err` names a radius that is not `0` or within
    /// `[1/max_size, max_size]` ([`geom_core::max_size`]).
    pub fn try_new(radius: N) -> Result<Self, GeomError> {
        Ok(Sphere {
            radius: crate::check_size("sphere", "radius", radius)?,
        })
    }

    /// A sphere of `radius`.
    ///
    /// # Panics
    /// With [`Sphere::try_new`]'s message when the radius is invalid.
    pub fn new(radius: N) -> Self {
        Self::try_new(radius).unwrap_or_else(|e| panic!("{e}"))
    }
}

pub use geom_core::quadratic::ray_cast_sphere;

/// The point of the sphere's boundary closest to `point` (the centre itself
/// projects onto `(radius, 0, 0)`), and whether `point` is inside or on it.
#[inline]
pub fn project_point_sphere<T: Lane>(point: &Point3<T>, radius: T) -> LaneProjection<T> {
    let zero = T::zero();
    let length = point.coords.norm();
    let on_ray = point.coords * (radius / length);
    let at_centre = Vector3::new(radius, zero, zero);
    LaneProjection {
        point: Point3::from(on_ray.select(length.simd_gt(zero), at_centre)),
        inside: length.simd_le(radius),
    }
}

impl<N: Real> LaneShape<N> for Sphere<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T> {
        ray_cast_sphere(ray, T::splat(self.radius), max_t, solid)
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        project_point_sphere(point, T::splat(self.radius))
    }
}

impl<N: Real> Shape<N> for Sphere<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Sphere
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        Aabb::from_half_extents(Point3::origin(), Vector3::repeat(self.radius))
    }

    fn aabb(&self, pose: &nalgebra::Isometry3<N>) -> Aabb<N> {
        Aabb::from_half_extents(pose.translation.vector.into(), Vector3::repeat(self.radius))
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid).into_hit()
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// The support point, a [`FeatureShape::Curved`] point (the centre, a
    /// vertex, for a zero radius).
    fn support_feature_local(&self, dir: &Vector3<N>, _tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        let kind = if self.radius > N::zero() {
            FeatureShape::Curved
        } else {
            FeatureShape::Vertex
        };
        Some(SupportFeature::point(kind, Point3::from(u * self.radius), u))
    }

    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        let length = crate::support_direction_length(dir)?;
        Some(Point3::from(dir * (self.radius / length)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{assert_lanes_match_scalar, ulp_distance_f32};
    use nalgebra::Isometry3;

    fn cast(origin: [f64; 3], dir: [f64; 3], radius: f64, solid: bool) -> Option<RayHit<f64>> {
        Sphere::new(radius).ray_cast_local(&Ray::new(origin.into(), dir.into()), f64::INFINITY, solid)
    }

    #[test]
    fn head_on_hit_from_outside() {
        let hit = cast([-5.0, 0.0, 0.0], [2.0, 0.0, 0.0], 1.0, true).unwrap();
        assert_eq!(hit.t, 2.0);
        assert_eq!(hit.normal, Vector3::new(-1.0, 0.0, 0.0));
    }

    #[test]
    fn inside_solid_hits_at_zero_facing_back_and_hollow_exits() {
        let solid = cast([0.2, 0.0, 0.0], [0.0, 3.0, 0.0], 1.0, true).unwrap();
        assert_eq!((solid.t, solid.normal), (0.0, Vector3::new(0.0, -1.0, 0.0)));
        let hollow = cast([0.6, 0.0, 0.0], [0.0, 2.0, 0.0], 1.0, false).unwrap();
        assert!((hollow.t - 0.4).abs() < 1e-15);
        assert!((hollow.normal - Vector3::new(0.6, 0.8, 0.0)).norm() < 1e-15);
    }

    #[test]
    fn behind_missing_and_max_t() {
        assert!(cast([5.0, 0.0, 0.0], [1.0, 0.0, 0.0], 1.0, true).is_none());
        assert!(cast([-5.0, 1.5, 0.0], [1.0, 0.0, 0.0], 1.0, true).is_none());
        let s = Sphere::new(1.0);
        let ray = Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0));
        assert!(s.ray_cast_local(&ray, 4.0, true).is_some());
        assert!(s.ray_cast_local(&ray, 3.999, true).is_none());
    }

    #[test]
    fn bad_input_never_panics_or_returns_nan() {
        let s = Sphere::new(1.0f64);
        let nan = f64::NAN;
        for (o, d) in [
            ([nan, 0.0, 0.0], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [f64::INFINITY, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ] {
            assert!(
                s.ray_cast_local(&Ray::new(o.into(), d.into()), 10.0, true)
                    .is_none()
            );
        }
        // A zero dir hits only from inside a solid shape.
        let hit = s
            .ray_cast_local(&Ray::new(Point3::origin(), Vector3::zeros()), 1.0, true)
            .unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vector3::zeros()));
        assert!(s.closest_point_local(&Point3::new(nan, 0.0, 0.0), true).is_none());
        assert!(Sphere::try_new(-1.0).is_err());
        assert!(Sphere::try_new(f64::NAN).is_err());
        assert_eq!(
            Sphere::try_new(-2.5f32).unwrap_err().to_string(),
            "sphere: radius = -2.5 is invalid (must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size))"
        );
    }

    #[test]
    fn zero_radius_is_a_point() {
        let hit = cast([-5.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.0, true).unwrap();
        assert_eq!((hit.t, hit.normal), (5.0, Vector3::new(-1.0, 0.0, 0.0)));
        assert!(cast([-5.0, 1e-9, 0.0], [1.0, 0.0, 0.0], 0.0, true).is_none());
    }

    /// Haines et al. RTG ch. 7: a unit sphere 4100 away and a 0.01 sphere at
    /// 1e4, in f32, against the f64 answer.
    #[test]
    fn far_small_spheres_in_f32_are_within_4_ulp() {
        for &(distance, radius) in &[(4100.0f32, 1.0f32), (1.0e4, 0.01)] {
            let pose32 = Isometry3::translation(distance, 0.0, 0.0);
            let pose64 = Isometry3::translation(distance as f64, 0.0, 0.0);
            let mut hits = 0;
            for k in 0..=200 {
                // Aim across the whole disk and just past its rim
                // (|offset| * 1.118 runs up to 1.1 radius).
                let offset = radius * (k as f32 / 200.0 - 0.5) * 1.968;
                let dir32 = Vector3::new(distance, offset, 0.5 * offset);
                let ray32 = Ray::new(Point3::origin(), dir32);
                let ray64 = Ray::new(Point3::origin(), dir32.cast::<f64>());
                let h32 = Sphere::new(radius).ray_cast(&pose32, &ray32, f32::INFINITY, true);
                let h64 = Sphere::new(radius as f64).ray_cast(&pose64, &ray64, f64::INFINITY, true);
                assert_eq!(h32.is_some(), h64.is_some(), "hit/miss differs at k = {k}");
                if let (Some(h32), Some(h64)) = (h32, h64) {
                    hits += 1;
                    let ulps = ulp_distance_f32(h32.t, h64.t);
                    assert!(
                        ulps <= 4.0,
                        "distance {distance} radius {radius} k {k}: {ulps} ulp"
                    );
                }
            }
            assert!(hits > 150, "only {hits} hits");
        }
    }

    #[test]
    fn lanes_equal_scalar() {
        assert_lanes_match_scalar(&Sphere::new(1.5f32), &Sphere::new(1.5f64), 3.0);
    }
}
