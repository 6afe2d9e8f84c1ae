//! Swept shapes: a sphere, an ellipsoid or a capsule translated by a motion
//! vector, against a triangle, with the time of first contact.
//!
//! Conventions shared by every routine here:
//!
//! - `toi ∈ [0, 1]` is the fraction of the motion travelled at first
//!   contact: the shape touches the target after moving by `toi · motion`.
//! - `point` is the contact point on the target (world space), `normal` the
//!   unit contact normal pointing from the target towards the moving shape
//!   (the direction that separates them).
//! - A shape that starts touching or overlapping the target is reported at
//!   `toi = 0` with the separating normal of the closest points (Fauerby's
//!   code misses this case), unless the motion moves it away
//!   (`motion · normal > 0`): the distance between two convex sets along a
//!   translation is a convex function of `t`, so it then only grows, and the
//!   answer is `None`.
//! - NaN or infinite inputs give `None`, never a panic or a NaN.
//!
//! The triangle is two-sided and has no thickness, so a sweep never passes
//! through it, however long the motion (no tunnelling).
//!
//! ```
//! use geom_prims::Triangle;
//! use geom_prims::sweep::MovingShape;
//! use nalgebra::{Point3, Vector3};
//!
//! // A ball of radius 0.5 falls 4 onto a floor triangle at y = 0 from y = 2.
//! let floor = Triangle::new(Point3::new(-5.0, 0.0, -5.0), Point3::new(5.0, 0.0, -5.0), Point3::new(0.0, 0.0, 5.0));
//! let ball = MovingShape::Sphere { center: Point3::new(0.0, 2.0, 0.0), radius: 0.5 };
//! let hit = ball.sweep_triangle(&Vector3::new(0.0, -4.0, 0.0), &floor).unwrap();
//! assert_eq!(hit.toi, 0.375); // after 1.5 of the 4
//! assert_eq!(hit.point, Point3::new(0.0, 0.0, 0.0));
//! assert_eq!(hit.normal, Vector3::y());
//! ```

mod advancement;
mod capsule_triangle;
mod ellipsoid;
mod moving;
mod sphere_triangle;

pub use advancement::{Proximity, conservative_advancement};
pub use capsule_triangle::sweep_capsule_triangle;
pub use ellipsoid::sweep_ellipsoid_triangle;
pub use moving::{MovingShape, PlacedShape};
pub use sphere_triangle::sweep_sphere_triangle;

use geom_core::Real;
use nalgebra::{Point3, Vector3};

/// The first contact of a swept shape: when, where, and which way apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepHit<N: Real> {
    /// Fraction of the motion travelled at first contact, in `[0, 1]`.
    pub toi: N,
    /// The contact point on the target, in world space.
    pub point: Point3<N>,
    /// Unit normal from the target towards the moving shape.
    pub normal: Vector3<N>,
}

impl<N: Real> SweepHit<N> {
    /// Whether every field is finite (the sweeps only return such hits).
    pub fn is_finite(&self) -> bool {
        self.toi.is_finite()
            && self.point.iter().all(|c| c.is_finite())
            && self.normal.iter().all(|c| c.is_finite())
    }

    /// Keeps the earlier of two optional hits (the first on a tie).
    pub fn earliest(first: Option<Self>, second: Option<Self>) -> Option<Self> {
        match (first, second) {
            (Some(a), Some(b)) => Some(if b.toi < a.toi { b } else { a }),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

/// Whether every coordinate of the points and vectors is finite.
pub(crate) fn all_finite<N: Real>(points: &[&Point3<N>], vectors: &[&Vector3<N>]) -> bool {
    points.iter().all(|p| p.iter().all(|c| c.is_finite()))
        && vectors.iter().all(|v| v.iter().all(|c| c.is_finite()))
}

/// `v / |v|`, or `None` for a zero or non-finite `v`.
pub(crate) fn unit<N: Real>(v: &Vector3<N>) -> Option<Vector3<N>> {
    // Rescaled where |v|² underflows or overflows (two shapes 1e-21 apart
    // in f32), so the answer is unit whenever it is given.
    let (v, length) = geom_core::ray::with_length(v);
    (length > N::zero() && length.is_finite()).then(|| v / length)
}

#[cfg(test)]
mod tests;
