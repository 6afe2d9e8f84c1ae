//! Point projections.
//!
//! ```
//! use geom_core::{LaneProjection, PointProjection};
//! use nalgebra::{Isometry3, Point3};
//!
//! // A unit sphere's kernel answer for (0, 0, 0.5): boundary point (0, 0, 1), inside.
//! let query = Point3::new(0.0, 0.0, 0.5);
//! let kernel = LaneProjection { point: Point3::new(0.0, 0.0, 1.0), inside: true };
//! // Solid, the inside point is its own closest point; hollow, the boundary point is.
//! assert_eq!(kernel.into_projection(&query, true), Some(PointProjection { point: query, is_inside: true }));
//! let hollow = kernel.into_projection(&query, false).unwrap();
//! assert_eq!(hollow.point, Point3::new(0.0, 0.0, 1.0));
//! assert_eq!(kernel.signed_distance(&query), Some(-0.5)); // 0.5 below the surface
//! // Moved with the sphere to (0, 0, 5).
//! assert_eq!(hollow.transformed(&Isometry3::translation(0.0, 0.0, 5.0)).point, Point3::new(0.0, 0.0, 6.0));
//! ```

use nalgebra::{Isometry3, Point3, Scalar, SimdBool, SimdRealField};

use crate::pose::PoseMatrix;
use crate::scalar::{Lane, Real};

/// The closest point of a shape to a query point.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection<N: Scalar> {
    /// The closest point: on the boundary, or the query point itself when it
    /// is inside a solid shape.
    pub point: Point3<N>,
    /// Whether the query point is inside the shape (or on its boundary).
    pub is_inside: bool,
}

impl<N: Real> PointProjection<N> {
    /// This local-space projection mapped to world space by `pose`.
    #[inline]
    pub fn transformed(self, pose: &Isometry3<N>) -> Self {
        PointProjection {
            point: PoseMatrix::new(pose).point_to_world(&self.point),
            ..self
        }
    }
}

/// What a generic closest-point kernel returns for a scalar or lanes.
#[derive(Clone, Copy, Debug)]
pub struct LaneProjection<T: SimdRealField> {
    /// The closest boundary point (kernels always return the boundary
    /// point; the solid rule is applied by the caller).
    pub point: Point3<T>,
    /// Which lanes' query points are inside or on the shape.
    pub inside: T::SimdBool,
}

impl<T: Lane> LaneProjection<T> {
    /// Lane `i` as a scalar projection (see [`LaneProjection::into_projection`]).
    pub fn extract(&self, i: usize, query: &Point3<T>, solid: bool) -> Option<PointProjection<T::Element>> {
        LaneProjection::<T::Element> {
            point: self.point.map(|c| c.extract(i)),
            inside: (self.inside.bitmask() >> i) & 1 == 1,
        }
        .into_projection(&query.map(|c| c.extract(i)), solid)
    }
}

impl<N: Real> LaneProjection<N> {
    /// The scalar answer, applying the solid rule (a point inside a solid
    /// shape projects onto itself). `None` if anything is not finite.
    #[inline]
    pub fn into_projection(self, query: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        let point = if solid && self.inside { *query } else { self.point };
        if !point.iter().chain(query.iter()).all(|c| c.is_finite()) {
            return None;
        }
        Some(PointProjection {
            point,
            is_inside: self.inside,
        })
    }

    /// Signed distance from `query` to the boundary: negative inside.
    #[inline]
    pub fn signed_distance(&self, query: &Point3<N>) -> Option<N> {
        let d = (query - self.point).norm();
        let d = if self.inside { -d } else { d };
        d.is_finite().then_some(d)
    }
}
