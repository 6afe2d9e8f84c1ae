//! The ellipsoid: `Σ (p_i / r_i)² <= 1` in its local frame.
//!
//! Centre and orientation come from the pose, so the shape itself is
//! axis-aligned and centred on the local origin.
//!
//! ```
//! use geom_core::{Ray, Shape};
//! use geom_prims::Ellipsoid;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // Semi-axes 3, 2 and 1 along x, y and z.
//! let ellipsoid = Ellipsoid::new(Vector3::new(3.0, 2.0, 1.0));
//! let pose = Isometry3::identity();
//! // From (-5, 0, 0) along +x: the tip x = -3 after 2; from (0, 0, 5) down: z = 1 after 4.
//! let hit = ellipsoid.ray_cast(&pose, &Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::x()), f64::INFINITY, true).unwrap();
//! assert!((hit.t - 2.0).abs() < 1e-12 && (hit.normal + Vector3::x()).norm() < 1e-12);
//! let hit = ellipsoid.ray_cast(&pose, &Ray::new(Point3::new(0.0, 0.0, 5.0), -Vector3::z()), f64::INFINITY, true).unwrap();
//! assert!((hit.t - 4.0).abs() < 1e-12 && (hit.normal - Vector3::z()).norm() < 1e-12);
//! // (0, 5, 0) is closest to the tip (0, 2, 0), 3 away; the farthest point along +x is (3, 0, 0).
//! assert!((ellipsoid.distance(&pose, &Point3::new(0.0, 5.0, 0.0)).unwrap() - 3.0).abs() < 1e-12);
//! assert!((ellipsoid.support_local(&Vector3::x()).unwrap() - Point3::new(3.0, 0.0, 0.0)).norm() < 1e-12);
//! ```

mod closest;
mod ray;

pub use closest::project_point_ellipsoid;
pub use ray::ray_cast_ellipsoid;

use geom_core::{
    Aabb, FeatureShape, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit,
    Real, Shape, ShapeKind, SupportFeature,
};
use nalgebra::{Point3, Vector3};

/// A solid ellipsoid centred on the local origin with semi-axes `radii`
/// along the local x, y and z axes. Place and orient it with a pose.
///
/// A zero radius is allowed: the ellipsoid is then flat (an elliptic disk,
/// a segment, or a point). Queries stay well defined: a ray crossing a disk's
/// plane inside the ellipse hits it with normal `±axis` facing the ray, a ray
/// lying in that plane sees the 2D ellipse; rays hit a segment or a point
/// only when they pass exactly through it, with normal `−dir/|dir|`. Closest
/// points follow Eberly's degenerate cases (the projection onto the disk, the
/// clamp onto the segment).
///
/// Features: the surface is [`FeatureId::Face(0)`](geom_core::FeatureId).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ellipsoid<N: Real> {
    /// The semi-axes along local x, y, z (`0` or within `[1/max_size, max_size]`, see [`geom_core::max_size`]).
    pub radii: Vector3<N>,
}

impl<N: Real> Ellipsoid<N> {
    /// An ellipsoid with semi-axes `radii`; `Err` names `radii` when one is
    /// negative, NaN, infinite or above [`geom_core::max_size`].
    pub fn try_new(radii: Vector3<N>) -> Result<Self, GeomError> {
        if radii.iter().all(|r| crate::is_size(*r)) {
            Ok(Ellipsoid { radii })
        } else {
            let values: [N; 3] = radii.into();
            Err(GeomError::invalid("ellipsoid", "radii", values, crate::SIZE_RULE))
        }
    }

    /// An ellipsoid with semi-axes `radii`.
    ///
    /// # Panics
    /// With [`Ellipsoid::try_new`]'s message when a radius is invalid.
    pub fn new(radii: Vector3<N>) -> Self {
        Self::try_new(radii).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Per-axis "has a radius" masks and the radii with zeros replaced by one
/// (so dividing by them is always defined; callers mask the flat axes).
#[inline]
pub(crate) fn positive_axes<T: Lane>(radii: &Vector3<T>) -> ([T::SimdBool; 3], Vector3<T>) {
    let zero = T::zero();
    let positive = [0, 1, 2].map(|i| radii[i].simd_gt(zero));
    let safe = Vector3::from_fn(|i, _| radii[i].select(positive[i], T::one()));
    (positive, safe)
}

/// `p / r` on the axes with a radius, `0` on flat axes, and whether `p` is
/// inside or on the ellipsoid: `Σ (p_i/r_i)² <= 1` over the axes with a
/// radius, and `p_i = 0` exactly on the flat ones (no division by zero).
#[inline]
pub(crate) fn unit_sphere_point<T: Lane>(
    point: &Vector3<T>,
    radii: &Vector3<T>,
) -> (Vector3<T>, T::SimdBool) {
    let zero = T::zero();
    let (positive, safe) = positive_axes(radii);
    let scaled = Vector3::from_fn(|i, _| (point[i] / safe[i]).select(positive[i], zero));
    let off_flat_axis = (0..3).fold(zero.simd_ne(zero), |off, i| {
        off | (!positive[i] & point[i].simd_ne(zero))
    });
    (scaled, scaled.norm_squared().simd_le(T::one()) & !off_flat_axis)
}

impl<N: Real> LaneShape<N> for Ellipsoid<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T> {
        ray_cast_ellipsoid(ray, &self.radii.map(T::splat), max_t, solid)
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        project_point_ellipsoid(point, &self.radii.map(T::splat))
    }
}

impl<N: Real> Shape<N> for Ellipsoid<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Ellipsoid
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        Aabb::from_half_extents(Point3::origin(), self.radii)
    }

    fn aabb(&self, pose: &nalgebra::Isometry3<N>) -> Aabb<N> {
        Aabb::centred_transformed(&self.radii, pose)
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid).into_hit()
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// The support point, a [`FeatureShape::Curved`] point.
    fn support_feature_local(&self, dir: &Vector3<N>, _tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        Some(SupportFeature::point(
            FeatureShape::Curved,
            self.support_local(&u)?,
            u,
        ))
    }

    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        crate::support_direction_length(dir)?;
        // The support of R·(unit ball) along v is R²v / |Rv|, R = diag(radii).
        let stretched = self.radii.component_mul(dir);
        let stretched_length = stretched.norm();
        Some(if stretched_length > N::zero() {
            Point3::from(self.radii.component_mul(&stretched) / stretched_length)
        } else {
            // `dir` only along flat axes: the whole flat ellipsoid ties.
            Point3::origin()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::assert_lanes_match_scalar;

    #[test]
    fn invalid_radii_are_named() {
        let err = Ellipsoid::try_new(Vector3::new(1.0f64, -2.0, 3.0))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "ellipsoid: radii = [1.0, -2.0, 3.0] is invalid (must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size))"
        );
        assert!(Ellipsoid::try_new(Vector3::new(f32::NAN, 1.0, 1.0)).is_err());
        assert!(Ellipsoid::try_new(Vector3::new(1.0, f32::INFINITY, 1.0)).is_err());
        assert!(Ellipsoid::try_new(Vector3::new(0.0, 0.0, 0.0f64)).is_ok());
    }

    #[test]
    #[should_panic(expected = "ellipsoid: radii")]
    fn new_panics_with_the_message() {
        let _ = Ellipsoid::new(Vector3::new(1.0f32, -1.0, 1.0));
    }

    #[test]
    fn support_and_aabb_by_hand() {
        let e = Ellipsoid::new(Vector3::new(3.0, 2.0, 1.0f64));
        assert_eq!(e.support_local(&Vector3::x()), Some(Point3::new(3.0, 0.0, 0.0)));
        assert_eq!(e.support_local(&-Vector3::z()), Some(Point3::new(0.0, 0.0, -1.0)));
        // Along (1, 1, 0): R²v/|Rv| = (9, 4, 0)/√13.
        let p = e.support_local(&Vector3::new(1.0, 1.0, 0.0)).unwrap();
        assert!((p - Point3::new(9.0, 4.0, 0.0) / 13f64.sqrt()).norm() < 1e-15);
        assert_eq!(e.support_local(&Vector3::zeros()), None);
        let aabb = e.local_aabb();
        assert_eq!(
            (aabb.mins, aabb.maxs),
            (Point3::new(-3.0, -2.0, -1.0), Point3::new(3.0, 2.0, 1.0))
        );
        let flat = Ellipsoid::new(Vector3::new(2.0, 1.0, 0.0f64));
        assert_eq!(flat.support_local(&Vector3::z()), Some(Point3::origin()));
    }

    #[test]
    fn lanes_equal_scalar() {
        for radii in [
            Vector3::new(3.0, 1.5, 0.75),
            Vector3::new(2.0, 1.0, 0.0),
            Vector3::new(0.0, 2.0, 0.0),
            Vector3::new(10.0, 0.01, 1.0),
            Vector3::new(1.0, 1.0, 1.0),
        ] {
            assert_lanes_match_scalar(&Ellipsoid::new(radii.cast::<f32>()), &Ellipsoid::new(radii), 3.0);
        }
    }
}
