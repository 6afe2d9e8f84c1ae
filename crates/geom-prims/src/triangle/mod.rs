//! The triangle: a flat, two-sided piece of a plane with no thickness.
//!
//! ```
//! use geom_core::{FeatureId, Ray, Shape};
//! use geom_prims::Triangle;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // In the plane z = 0, counter-clockwise seen from +z: n = (b − a) × (c − a) = +z.
//! let triangle = Triangle::new(Point3::origin(), Point3::new(4.0, 0.0, 0.0), Point3::new(0.0, 4.0, 0.0));
//! let pose = Isometry3::identity();
//! // Hit from above on Face(0), from below on Face(1); the normal faces the ray each time.
//! let from_above = triangle.ray_cast(&pose, &Ray::new(Point3::new(1.0, 1.0, 5.0), -Vector3::z()), f64::INFINITY, true).unwrap();
//! assert!((from_above.t - 5.0).abs() < 1e-12 && (from_above.normal - Vector3::z()).norm() < 1e-12);
//! assert_eq!(from_above.feature, FeatureId::Face(0));
//! let from_below = triangle.ray_cast(&pose, &Ray::new(Point3::new(1.0, 1.0, -5.0), Vector3::z()), f64::INFINITY, true).unwrap();
//! assert!((from_below.normal + Vector3::z()).norm() < 1e-12 && from_below.feature == FeatureId::Face(1));
//! // (-3, 1, 4) is closest to the edge x = 0 at (0, 1, 0): √(3² + 4²) = 5 away.
//! let closest = triangle.closest_point(&pose, &Point3::new(-3.0, 1.0, 4.0), true).unwrap();
//! assert!((closest.point - Point3::new(0.0, 1.0, 0.0)).norm() < 1e-12);
//! assert!((triangle.distance(&pose, &Point3::new(-3.0, 1.0, 4.0)).unwrap() - 5.0).abs() < 1e-12);
//! ```

mod closest;
mod ray;

pub use closest::project_point_triangle;
pub use ray::{TriangleRay, ray_cast_triangle, ray_cast_triangle_filtered};

use geom_core::{
    Aabb, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit, Real, Shape,
    ShapeKind, SupportFeature,
};
use nalgebra::{Point3, Vector3};

/// A triangle `a b c` in the local frame (usually with an identity pose,
/// the vertices being world points). It has no thickness and no interior:
/// `solid` makes no difference to its queries, and a point is "inside"
/// only when it lies exactly on the triangle.
///
/// Features: [`FeatureId::Face(0)`](geom_core::FeatureId) is the side the
/// normal `n = (b − a) × (c − a)` points to (counter-clockwise seen from
/// there), `Face(1)` the back. Both sides are hit; the returned normal
/// faces the incoming ray.
///
/// Degenerate triangles (collinear or coincident vertices) are allowed:
/// rays miss them (they have no area to cross) and closest points fall on
/// the segment or point they collapse to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle<N: Real> {
    /// The first vertex.
    pub a: Point3<N>,
    /// The second vertex.
    pub b: Point3<N>,
    /// The third vertex.
    pub c: Point3<N>,
}

impl<N: Real> Triangle<N> {
    /// The triangle `a b c`; `Err` names a vertex with a NaN or infinite
    /// coordinate, or one that makes an edge longer than `2 · max_size`
    /// ([`geom_core::max_size`]) in a coordinate, where the cross product
    /// of two edges (the face normal) would overflow.
    pub fn try_new(a: Point3<N>, b: Point3<N>, c: Point3<N>) -> Result<Self, GeomError> {
        let triangle = Triangle {
            a: Point3::from(crate::check_finite("triangle", "a", <[N; 3]>::from(a.coords))?),
            b: Point3::from(crate::check_finite("triangle", "b", <[N; 3]>::from(b.coords))?),
            c: Point3::from(crate::check_finite("triangle", "c", <[N; 3]>::from(c.coords))?),
        };
        // Edges up to 2·max_size keep the cross product of two of them, and
        // so the face normal, finite.
        let longest = geom_core::max_size::<N>() * nalgebra::convert::<f64, N>(2.0);
        for (name, vertex, from) in [("b", &b, &a), ("c", &c, &a), ("c", &c, &b)] {
            let edge = vertex - from;
            if edge.amax() > longest {
                return Err(GeomError::invalid(
                    "triangle",
                    name,
                    <[N; 3]>::from(vertex.coords),
                    "is too far from the other vertices (an edge longer than 2·max_size, whose cross products overflow)",
                ));
            }
        }
        Ok(triangle)
    }

    /// The triangle `a b c`.
    ///
    /// # Panics
    /// With [`Triangle::try_new`]'s message when a vertex is not finite.
    pub fn new(a: Point3<N>, b: Point3<N>, c: Point3<N>) -> Self {
        Self::try_new(a, b, c).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<N: Real> LaneShape<N> for Triangle<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, _solid: bool) -> LaneHit<T> {
        let splat = |p: &Point3<N>| p.map(T::splat);
        ray_cast_triangle(ray, &splat(&self.a), &splat(&self.b), &splat(&self.c), max_t)
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        let splat = |p: &Point3<N>| p.map(T::splat);
        project_point_triangle(point, &splat(&self.a), &splat(&self.b), &splat(&self.c))
    }
}

impl<N: Real> Shape<N> for Triangle<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Triangle
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        Aabb::new(self.a, self.a).including(&self.b).including(&self.c)
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid).into_hit()
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// The triangle itself when `dir` is within `tolerance` of its normal
    /// (either side; corners counter-clockwise about the side facing `dir`),
    /// else the edge whose ends are both extreme to within `tolerance`, else
    /// the farthest vertex.
    fn support_feature_local(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        if let Some(normal) = crate::contact::try_unit(&(self.b - self.a).cross(&(self.c - self.a))) {
            let along = u.dot(&normal);
            if (u - normal * along).norm() <= tolerance {
                return Some(if along >= N::zero() {
                    SupportFeature::face([self.a, self.b, self.c], normal)
                } else {
                    SupportFeature::face([self.a, self.c, self.b], -normal)
                });
            }
        }
        let mut vertices = [self.a, self.b, self.c];
        vertices.sort_by(|p, q| {
            u.dot(&q.coords)
                .partial_cmp(&u.dot(&p.coords))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        Some(crate::feature::segment_feature(
            vertices[1],
            vertices[0],
            &u,
            tolerance,
        ))
    }

    /// The vertex farthest along `dir` (the first of equals).
    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        let usable = dir.iter().all(|c| c.is_finite()) && dir.iter().any(|c| *c != N::zero());
        usable.then(|| {
            let mut best = self.a;
            for vertex in [self.b, self.c] {
                if vertex.coords.dot(dir) > best.coords.dot(dir) {
                    best = vertex;
                }
            }
            best
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::assert_lanes_match_scalar;

    /// The right triangle (0,0,0), (4,0,0), (0,4,0): n = +z.
    pub(super) fn right() -> Triangle<f64> {
        Triangle::new(
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(4.0, 0.0, 0.0),
            Point3::new(0.0, 4.0, 0.0),
        )
    }

    pub(super) fn cast(triangle: &Triangle<f64>, origin: [f64; 3], dir: [f64; 3]) -> Option<RayHit<f64>> {
        triangle.ray_cast_local(&Ray::new(origin.into(), dir.into()), f64::INFINITY, true)
    }

    #[test]
    fn bad_input_and_degenerate_triangles() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        for (o, d) in [
            ([nan, 1.0, 6.0], [0.0, 0.0, -1.0]),
            ([1.0, 1.0, 6.0], [0.0, 0.0, -inf]),
            ([1.0, 1.0, 6.0], [nan, 0.0, -1.0]),
            ([1.0, 1.0, inf], [0.0, 0.0, -1.0]),
            ([1.0, 1.0, 6.0], [0.0, 0.0, 0.0]),
            ([1.0, 1.0, 0.0], [0.0, 0.0, 0.0]),
        ] {
            assert!(cast(&right(), o, d).is_none(), "{o:?} {d:?}");
        }
        assert!(
            right()
                .closest_point_local(&Point3::new(nan, 0.0, 0.0), true)
                .is_none()
        );
        assert_eq!(
            Triangle::try_new(
                Point3::origin(),
                Point3::new(1.0f32, nan as f32, 0.0),
                Point3::origin()
            )
            .unwrap_err()
            .to_string(),
            "triangle: b = [1.0, NaN, 0.0] is invalid (must be finite)"
        );
        assert!(Triangle::try_new(Point3::new(inf, 0.0, 0.0), Point3::origin(), Point3::origin()).is_err());
        // Collinear: rays miss, closest points fall on the segment −1..2 on x.
        let line = Triangle::new(
            Point3::new(-1.0, 0.0, 0.0),
            Point3::new(2.0, 0.0, 0.0),
            Point3::new(0.5, 0.0, 0.0),
        );
        assert!(cast(&line, [0.0, 0.0, 5.0], [0.0, 0.0, -1.0]).is_none());
        let projection = line
            .closest_point_local(&Point3::new(5.0, 3.0, 4.0), true)
            .unwrap();
        assert_eq!(
            (projection.point, projection.is_inside),
            (Point3::new(2.0, 0.0, 0.0), false)
        );
        let on = line
            .closest_point_local(&Point3::new(0.25, 0.0, 0.0), false)
            .unwrap();
        assert_eq!((on.point, on.is_inside), (Point3::new(0.25, 0.0, 0.0), true));
        let point = Triangle::new(
            Point3::new(1.0, 2.0, 3.0),
            Point3::new(1.0, 2.0, 3.0),
            Point3::new(1.0, 2.0, 3.0),
        );
        assert_eq!(point.distance_local(&Point3::new(1.0, 2.0, 7.0)), Some(4.0));
        assert!(cast(&point, [1.0, 2.0, 7.0], [0.0, 0.0, -1.0]).is_none());
    }

    #[test]
    fn lanes_equal_scalar() {
        let a = Point3::new(-1.0, -0.5, 0.25);
        let b = Point3::new(1.5, -0.25, -0.5);
        let c = Point3::new(0.0, 1.25, 0.5);
        assert_lanes_match_scalar(
            &Triangle::new(a.cast::<f32>(), b.cast::<f32>(), c.cast::<f32>()),
            &Triangle::new(a, b, c),
            1.5,
        );
        let collinear = Point3::new(0.25, -0.375, -0.125);
        assert_lanes_match_scalar(
            &Triangle::new(a.cast::<f32>(), b.cast::<f32>(), collinear.cast::<f32>()),
            &Triangle::new(a, b, collinear),
            1.5,
        );
    }
}
