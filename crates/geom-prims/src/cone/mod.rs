//! The cone: a solid right circular cone from an apex to a base disk.
//!
//! The kernels keep the defining points (apex, base centre) and work with
//! positions relative to them, as Quilez's capped-cone intersector does,
//! instead of building a rotation into a canonical frame.
//!
//! ```
//! use geom_core::{FeatureId, Ray, Shape};
//! use geom_prims::Cone;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // Apex (0, 2, 0), base disk of radius 1 at the origin: halfway up, the radius is 0.5.
//! let cone = Cone::from_points(Point3::new(0.0, 2.0, 0.0), Point3::origin(), 1.0);
//! let pose = Isometry3::identity();
//! // From (5, 1, 0) along -x: the side at x = 0.5 after 4.5. The side line runs (1, -2)
//! // in (x, y), so its outward normal is (2, 1, 0) / √5.
//! let side = cone.ray_cast(&pose, &Ray::new(Point3::new(5.0, 1.0, 0.0), -Vector3::x()), f64::INFINITY, true).unwrap();
//! assert!((side.t - 4.5).abs() < 1e-12 && side.feature == FeatureId::Face(0));
//! assert!((side.normal - Vector3::new(2.0, 1.0, 0.0) / 5f64.sqrt()).norm() < 1e-12);
//! // Straight up from (0, -5, 0): the base after 5, its normal pointing away from the apex.
//! let base = cone.ray_cast(&pose, &Ray::new(Point3::new(0.0, -5.0, 0.0), Vector3::y()), f64::INFINITY, true).unwrap();
//! assert!((base.t - 5.0).abs() < 1e-12 && (base.normal + Vector3::y()).norm() < 1e-12);
//! assert_eq!(base.feature, FeatureId::Face(1));
//! ```

mod closest;
mod ray;

pub use closest::project_point_cone;
pub use ray::ray_cast_cone;

use geom_core::{
    Aabb, FeatureShape, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit,
    Real, Shape, ShapeKind, SupportFeature,
};
use nalgebra::{Point3, Vector3};

/// A solid right circular cone, capped by its base disk.
///
/// The points `p` with axial coordinate `y = (p − apex)·û ∈ [0, h]` and
/// distance to the axis `≤ radius · y / h`, where `h = |base − apex|` and
/// `û = (base − apex) / h`.
///
/// A zero `radius` is allowed: the cone is then the segment `apex`–`base`.
/// Rays that meet it exactly report it (normal `−dir/|dir|`), any other ray
/// misses; points project onto the segment.
///
/// Features: the lateral surface is [`FeatureId::Face(0)`](geom_core::FeatureId),
/// the base disk `Face(1)`. The lateral normal at the apex (where it is not
/// defined) is `−û`; the base normal is `û` (pointing away from the apex).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cone<N: Real> {
    /// The tip.
    pub apex: Point3<N>,
    /// The centre of the base disk.
    pub base: Point3<N>,
    /// The radius of the base disk (`0` or within `[1/max_size, max_size]`, see [`geom_core::max_size`]).
    pub radius: N,
}

impl<N: Real> Cone<N> {
    /// The cone from `apex` to the base disk centred at `base` with `radius`.
    ///
    /// `Err` names `apex` or `base` when a coordinate is not finite, `base`
    /// when it equals `apex` (a zero-length axis has no direction) or when
    /// the squared axis length underflows or overflows, and `radius` when it
    /// is not `0` or within `[1/max_size, max_size]` or when the squared slope
    /// `(radius / height)²` overflows (a cone flatter than the precision
    /// can describe).
    pub fn try_from_points(apex: Point3<N>, base: Point3<N>, radius: N) -> Result<Self, GeomError> {
        let apex_coords: [N; 3] = crate::check_finite("cone", "apex", apex.coords.into())?;
        let base_coords: [N; 3] = crate::check_finite("cone", "base", base.coords.into())?;
        let radius = crate::check_size("cone", "radius", radius)?;
        if apex == base {
            return Err(GeomError::invalid(
                "cone",
                "base",
                base_coords,
                "must differ from apex (zero-length axis)",
            ));
        }
        let _ = apex_coords;
        let axis_squared = (base - apex).norm_squared();
        let shortest = geom_core::max_size::<N>().recip();
        if axis_squared < shortest * shortest || !axis_squared.is_finite() {
            return Err(GeomError::invalid(
                "cone",
                "base",
                base_coords,
                "must be apart from apex by at least 1/max_size, and by a length whose square is finite",
            ));
        }
        // The kernels square the slope r/h.
        let slope = radius / axis_squared.sqrt();
        if !(slope * slope).is_finite() {
            return Err(GeomError::invalid(
                "cone",
                "radius",
                radius,
                "is too large for the axis length (the squared slope radius/height overflows)",
            ));
        }
        Ok(Cone { apex, base, radius })
    }

    /// The cone from `apex` to the base disk centred at `base` with `radius`.
    ///
    /// # Panics
    /// With [`Cone::try_from_points`]'s message when a parameter is invalid.
    pub fn from_points(apex: Point3<N>, base: Point3<N>, radius: N) -> Self {
        Self::try_from_points(apex, base, radius).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The unit axis `û`, from the apex towards the base.
    pub fn axis_unit(&self) -> Vector3<N> {
        (self.base - self.apex).normalize()
    }
}

/// The length `h` of the axis `base − apex`, its unit direction `û`, and the
/// squared slope `(r/h)²` of the lateral surface.
///
/// A rounding of `|û|` is harmless: the lateral quadric
/// `|p × û|² − k²(p·û)²` scales as a whole with `|û|²`.
#[inline]
pub(crate) fn cone_axis<T: Lane>(apex: &Point3<T>, base: &Point3<T>, radius: T) -> (T, Vector3<T>, T) {
    let axis = base - apex;
    let height = axis.norm();
    let slope = radius / height;
    (height, axis / height, slope * slope)
}

/// Whether points are inside or on the solid cone, from their offsets to the
/// apex and base: between the apex and base planes and within the lateral
/// surface, `|(p − apex) × û|² ≤ (r/h)² ((p − apex)·û)²` (no division, so a
/// zero radius leaves only the axis itself inside).
#[inline]
pub(crate) fn inside_cone<T: Lane>(
    from_apex: &Vector3<T>,
    from_base: &Vector3<T>,
    axis_unit: &Vector3<T>,
    slope_squared: T,
) -> T::SimdBool {
    let zero = T::zero();
    let axial = from_apex.dot(axis_unit);
    let past_base = from_base.dot(axis_unit);
    let radial_squared = from_apex.cross(axis_unit).norm_squared();
    axial.simd_ge(zero) & past_base.simd_le(zero) & radial_squared.simd_le(slope_squared * axial * axial)
}

impl<N: Real> LaneShape<N> for Cone<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T> {
        ray_cast_cone(
            ray,
            &self.apex.map(T::splat),
            &self.base.map(T::splat),
            T::splat(self.radius),
            max_t,
            solid,
        )
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        project_point_cone(
            point,
            &self.apex.map(T::splat),
            &self.base.map(T::splat),
            T::splat(self.radius),
        )
    }
}

impl<N: Real> Shape<N> for Cone<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Cone
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        // The base disk reaches r·√(1 − û_i²) along axis i; √(û_j² + û_k²)
        // avoids the cancellation in 1 − û_i² for a nearly axis-aligned cone.
        let u = self.axis_unit();
        let reach = Vector3::new(
            (u.y * u.y + u.z * u.z).sqrt(),
            (u.x * u.x + u.z * u.z).sqrt(),
            (u.x * u.x + u.y * u.y).sqrt(),
        ) * self.radius;
        Aabb::from_half_extents(self.base, reach).including(&self.apex)
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid).into_hit()
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// The base (a regular polygon of rim points starting at the rim point
    /// farthest along `dir`) when `dir` is within `tolerance` of the axis
    /// beyond the base, the side line from the apex to a rim point when
    /// within `tolerance` of that side's normal, else the apex (a vertex) or
    /// a rim point ([`FeatureShape::Curved`]); a zero radius answers as the
    /// axis segment.
    fn support_feature_local(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        if self.radius == N::zero() {
            return Some(crate::feature::segment_feature(
                self.apex, self.base, &u, tolerance,
            ));
        }
        let axis = self.axis_unit();
        let height = (self.base - self.apex).norm();
        let along = u.dot(&axis);
        let out = crate::feature::across_or_any(&axis, &u);
        let rim = self.base + out * self.radius;
        let side_normal = crate::contact::try_unit(&(out * height - axis * self.radius))?;
        // The sines of the angles to the base's and to the side's normal
        // (infinite where `u` points away from it); when the tolerance
        // admits both, the better aligned one.
        let base_sine = if along > N::zero() {
            (u - axis * along).norm()
        } else {
            N::max_value().unwrap_or_else(N::one)
        };
        let side_sine = if u.dot(&side_normal) > N::zero() {
            u.cross(&side_normal).norm()
        } else {
            N::max_value().unwrap_or_else(N::one)
        };
        if base_sine <= tolerance && base_sine <= side_sine {
            return Some(crate::feature::disk_face(self.base, axis, out, self.radius));
        }
        if side_sine <= tolerance {
            // The side lines turn about the axis; their normals keep the
            // same angle with it.
            return Some(SupportFeature::edge_about_axis(
                self.apex,
                rim,
                u,
                axis,
                side_normal.dot(&axis),
            ));
        }
        Some(if (self.apex - rim).dot(&u) > N::zero() {
            SupportFeature::point(FeatureShape::Vertex, self.apex, u)
        } else {
            SupportFeature::point(FeatureShape::Curved, rim, u)
        })
    }

    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        let length = crate::support_direction_length(dir)?;
        // The farthest point is the apex or the rim point in the direction of
        // `dir`'s component across the axis (any base point when there is none).
        let rim = match crate::direction_across_axis(dir, length, &self.axis_unit()) {
            Some(across) => self.base + across * self.radius,
            None => self.base,
        };
        Some(if (self.apex - rim).dot(dir) > N::zero() {
            self.apex
        } else {
            rim
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::assert_lanes_match_scalar;

    #[test]
    fn invalid_parameters_are_named() {
        let p = Point3::new(1.0f64, 2.0, 3.0);
        let err = Cone::try_from_points(p, p, 1.0).unwrap_err().to_string();
        assert_eq!(
            err,
            "cone: base = [1.0, 2.0, 3.0] is invalid (must differ from apex (zero-length axis))"
        );
        let err = Cone::try_from_points(Point3::origin(), p, -0.5)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "cone: radius = -0.5 is invalid (must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size))"
        );
        let err = Cone::try_from_points(Point3::new(f64::NAN, 0.0, 0.0), p, 1.0)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("cone: apex = [NaN, 0.0, 0.0] is invalid"),
            "{err}"
        );
        let err = Cone::try_from_points(Point3::origin(), Point3::new(0.0, f64::INFINITY, 0.0), 1.0)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("cone: base = [0.0, inf, 0.0] is invalid"),
            "{err}"
        );
        assert!(Cone::try_from_points(Point3::origin(), p, f64::NAN).is_err());
        assert!(Cone::try_from_points(Point3::origin(), p, 0.0).is_ok());
    }

    #[test]
    #[should_panic(expected = "cone: base")]
    fn from_points_panics_with_the_message() {
        let _ = Cone::from_points(Point3::new(0.0f32, 0.0, 0.0), Point3::origin(), 1.0);
    }

    #[test]
    fn support_and_aabb_by_hand() {
        // Apex (0, 0, 2), base disk at z = 0 of radius 1.
        let cone = Cone::from_points(Point3::new(0.0, 0.0, 2.0), Point3::origin(), 1.0f64);
        assert_eq!(
            cone.support_local(&Vector3::z()),
            Some(Point3::new(0.0, 0.0, 2.0))
        );
        assert_eq!(
            cone.support_local(&Vector3::new(1.0, 0.0, -1.0)),
            Some(Point3::new(1.0, 0.0, 0.0))
        );
        // Along (2, 0, 1.5): the apex scores 3, the rim point (1, 0, 0) 2.
        assert_eq!(
            cone.support_local(&Vector3::new(2.0, 0.0, 1.5)),
            Some(Point3::new(0.0, 0.0, 2.0))
        );
        assert_eq!(cone.support_local(&Vector3::zeros()), None);
        let aabb = cone.local_aabb();
        assert_eq!(aabb.mins, Point3::new(-1.0, -1.0, 0.0));
        assert_eq!(aabb.maxs, Point3::new(1.0, 1.0, 2.0));
        // A tilted cone: every support point lies inside the box.
        let tilted = Cone::from_points(Point3::new(1.0, -2.0, 0.5), Point3::new(-2.0, 1.0, 3.0), 0.75);
        let aabb = tilted.local_aabb();
        for k in 0..200 {
            let angle = k as f64 * 0.37;
            let dir = Vector3::new(angle.cos(), angle.sin(), (1.3 * angle).cos());
            let p = tilted.support_local(&dir).unwrap();
            assert!(aabb.loosened(1e-12).contains_point(&p), "{p:?}");
        }
        for axis in 0..3 {
            let mut dir = Vector3::zeros();
            dir[axis] = 1.0;
            assert!((tilted.support_local(&dir).unwrap()[axis] - aabb.maxs[axis]).abs() < 1e-12);
            assert!((tilted.support_local(&-dir).unwrap()[axis] - aabb.mins[axis]).abs() < 1e-12);
        }
    }

    #[test]
    fn lanes_equal_scalar() {
        let apex = Point3::new(0.5, -1.0, 2.0);
        let base = Point3::new(-0.5, 1.5, -1.0);
        assert_lanes_match_scalar(
            &Cone::from_points(apex.cast::<f32>(), base.cast::<f32>(), 1.25f32),
            &Cone::from_points(apex, base, 1.25f64),
            3.0,
        );
        // The segment cone too.
        assert_lanes_match_scalar(
            &Cone::from_points(apex.cast::<f32>(), base.cast::<f32>(), 0.0f32),
            &Cone::from_points(apex, base, 0.0f64),
            3.0,
        );
    }
}
