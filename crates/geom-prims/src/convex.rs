//! Ray casts and closest points of any convex shape from its support
//! function: what a custom convex shape answers with one line each,
//! instead of being invisible to rays.
//!
//! ```
//! use geom_core::{Aabb, PointProjection, Ray, RayHit, Shape, ShapeKind};
//! use geom_prims::convex::{closest_point_by_support, ray_cast_by_support};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! /// A tetrahedron known only by its corners.
//! #[derive(Debug)]
//! struct Tetrahedron([Point3<f64>; 4]);
//!
//! impl Shape<f64> for Tetrahedron {
//!     fn kind(&self) -> ShapeKind {
//!         ShapeKind::Custom(7)
//!     }
//!     fn is_convex(&self) -> bool {
//!         true
//!     }
//!     fn local_aabb(&self) -> Aabb<f64> {
//!         Aabb::from_points(&self.0).expect("four corners")
//!     }
//!     fn support_local(&self, dir: &Vector3<f64>) -> Option<Point3<f64>> {
//!         self.0.iter().copied().max_by(|a, b| a.coords.dot(dir).total_cmp(&b.coords.dot(dir)))
//!     }
//!     fn ray_cast_local(&self, ray: &Ray<f64>, max_t: f64, solid: bool) -> Option<RayHit<f64>> {
//!         ray_cast_by_support(self, ray, max_t, solid)
//!     }
//!     fn closest_point_local(&self, point: &Point3<f64>, solid: bool) -> Option<PointProjection<f64>> {
//!         closest_point_by_support(self, point, solid)
//!     }
//! }
//!
//! let corners = [Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0), Point3::new(0.0, 0.0, 1.0)];
//! let tetrahedron = Tetrahedron(corners);
//! let ray = Ray::new(Point3::new(0.2, 0.2, 5.0), -Vector3::z());
//! let hit = tetrahedron.ray_cast(&Isometry3::identity(), &ray, f64::MAX, true).unwrap();
//! assert!((hit.t - 4.4).abs() < 1e-9); // enters the slanted face x + y + z = 1 at z = 0.6
//! let below = tetrahedron.closest_point(&Isometry3::identity(), &Point3::new(0.2, -3.0, 0.2), true).unwrap();
//! assert!((below.point - Point3::new(0.2, 0.0, 0.2)).norm() < 1e-9);
//! ```

use geom_core::{FeatureId, PointProjection, Ray, RayHit, Real, Shape};
use nalgebra::{Point3, Vector3};

use crate::contact::try_unit;
use crate::gjk::ray_cast_support;

/// [`Shape::ray_cast_local`] for a convex shape from its
/// [`Shape::support_local`], by the GJK ray cast
/// ([`ray_cast_support`], van den Bergen 2004): the first hit for
/// `0 <= t <= max_t` with the unit outward normal there. An origin inside
/// hits at `t = 0` with normal `−dir/|dir|` when `solid`, else where the
/// ray leaves the shape (cast back from beyond the shape's box). Accurate
/// to GJK's tolerance (`√ε / 256` of the size), not to the ulp as the
/// primitives' own casts are; `None` for NaN or infinite input and for a
/// shape without a support function.
pub fn ray_cast_by_support<N: Real, S: Shape<N> + ?Sized>(
    shape: &S,
    ray: &Ray<N>,
    max_t: N,
    solid: bool,
) -> Option<RayHit<N>> {
    // (`max_t >= 0` is false for NaN.)
    if !ray.is_finite()
        || matches!(
            max_t.partial_cmp(&N::zero()),
            None | Some(std::cmp::Ordering::Less)
        )
    {
        return None;
    }
    let support = |d: &Vector3<N>| Some([shape.support_local(d)?, Point3::origin()]);
    let hit = ray_cast_support(support, &ray.origin, &ray.dir, max_t)?;
    let inside = hit.t == N::zero() && hit.normal == Vector3::zeros();
    if !inside {
        return Some(RayHit {
            t: hit.t,
            normal: try_unit(&hit.normal)?,
            feature: FeatureId::Unknown,
        });
    }
    let backwards = try_unit(&ray.dir).map(|d| -d);
    if solid {
        return Some(RayHit {
            t: N::zero(),
            normal: backwards.unwrap_or_else(Vector3::zeros),
            feature: FeatureId::Unknown,
        });
    }
    // Leaving: from beyond the shape's box along the ray, cast back.
    backwards?;
    let (_, beyond, back) = crate::gjk::cast_back_from_beyond(shape, &ray.origin, &ray.dir)?;
    let t = beyond - back.t;
    (t <= max_t && t.is_finite()).then_some(RayHit {
        t,
        normal: try_unit(&back.normal)?,
        feature: FeatureId::Unknown,
    })
}

/// [`Shape::closest_point_local`] for a convex shape from its
/// [`Shape::support_local`]: GJK's distance from the point to the shape
/// outside; inside, the point itself when `solid`, else the boundary point
/// along the shortest way out (EPA's normal, refined by where rays along
/// the surface normal leave the shape). Support points only (safe to call
/// from the shape's own `closest_point_local`). Accuracy (tested against
/// the primitives with the same geometry, `f64`): outside, the distance to
/// 10⁻⁹ and, on curved surfaces, the point to about 10⁻⁴ of the size
/// (the distance is flat in the point's error); inside, exact on
/// polytopes, the distance to 10⁻⁴ on curved surfaces (slowest near the
/// centre of a ball, where every way out is nearly as short). `None` for
/// a non-finite point and for a shape without a support function.
pub fn closest_point_by_support<N: Real, S: Shape<N>>(
    shape: &S,
    point: &Point3<N>,
    solid: bool,
) -> Option<PointProjection<N>> {
    if !point.iter().all(|c| c.is_finite()) {
        return None;
    }
    let (closest, is_inside) = crate::gjk::project_point_by_support(shape, point)?;
    Some(PointProjection {
        point: if is_inside && solid { *point } else { closest },
        is_inside,
    })
}
