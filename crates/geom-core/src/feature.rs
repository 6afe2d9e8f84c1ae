//! Support features: the part of a convex shape that is extreme along a
//! direction (a face, an edge, a vertex or a point of a curved surface),
//! from which pair routines build multi-point contact manifolds and
//! recover exact normals.
//!
//! A support *point* ([`Shape::support_local`](crate::Shape::support_local))
//! is one point of the extreme set; a support *feature* is the whole set,
//! or the polygon, segment or point it is near: a box resting on its face
//! answers with its four corners, so the contact between two faces can be
//! clipped to a manifold instead of reduced to one point (Jolt's
//! `GetSupportingFace`; Gregorius, "Robust Contact Creation for Physics
//! Simulations", GDC 2015).
//!
//! ```
//! use geom_core::{FeatureShape, SupportFeature};
//! use nalgebra::{Point3, Vector3};
//!
//! // The top face of the cube [-1, 1]³, counter-clockwise seen from above.
//! let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| Point3::new(x, y, 1.0));
//! let top = SupportFeature::face(corners, Vector3::z());
//! assert_eq!((top.shape(), top.points().len()), (FeatureShape::Face, 4));
//! // Dilated by a margin of 0.5 along its normal, every corner is at z = 1.5.
//! assert!(top.offset(&Vector3::z(), 0.5).points().iter().all(|p| p.z == 1.5));
//! // The top edge along x stays extreme for every direction with no x part.
//! let edge = SupportFeature::edge(corners[3], corners[2], Vector3::new(0.0, 1.0, 1.0).normalize());
//! assert_eq!(edge.edge_directions(), (Vector3::x(), 0.0)); // unit axis (2, 0, 0) / 2, cos 0
//! ```

use nalgebra::{Point3, Vector3};

use crate::scalar::Real;

/// How the extreme set of a shape along a direction looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureShape {
    /// A corner: the same point is extreme for every direction near the
    /// one asked (a box's vertex, a cone's apex, a segment's end).
    Vertex,
    /// A point of a curved surface or rim: the extreme point moves with the
    /// direction (a sphere, an ellipsoid, a cylinder's rim).
    Curved,
    /// A straight edge, two points: a box's or triangle's edge, the side
    /// line of a cylinder or a cone, a segment across the direction.
    Edge,
    /// A flat face, a convex polygon of three or more points,
    /// counter-clockwise about [`SupportFeature::normal`].
    Face,
}

/// The most points a [`SupportFeature`] holds (a cylinder's cap or a
/// cone's base is given as a regular polygon of this many rim points).
pub const MAX_FEATURE_POINTS: usize = 8;

/// The extreme part of a convex shape along a direction, in the frame the
/// shape answered in. Fixed capacity: filling it allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SupportFeature<N: Real> {
    shape: FeatureShape,
    points: [Point3<N>; MAX_FEATURE_POINTS],
    len: usize,
    normal: Vector3<N>,
    /// For an edge: the unit `axis` and `cos` such that the edge stays
    /// extreme along the directions `n` with `n · axis = cos`.
    axis: Vector3<N>,
    cos: N,
}

impl<N: Real> Default for SupportFeature<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<N: Real> SupportFeature<N> {
    /// An empty feature (no point).
    pub fn new() -> Self {
        SupportFeature {
            shape: FeatureShape::Curved,
            points: [Point3::origin(); MAX_FEATURE_POINTS],
            len: 0,
            normal: Vector3::zeros(),
            axis: Vector3::zeros(),
            cos: N::zero(),
        }
    }

    /// A single point of kind `shape` ([`FeatureShape::Vertex`] or
    /// [`FeatureShape::Curved`]) extreme along the unit `direction`.
    pub fn point(shape: FeatureShape, point: Point3<N>, direction: Vector3<N>) -> Self {
        let mut feature = Self::new();
        feature.shape = shape;
        feature.points[0] = point;
        feature.len = 1;
        feature.normal = direction;
        feature
    }

    /// A straight edge from `a` to `b` (not a point), extreme along the
    /// unit `direction`: it stays extreme along every direction across it.
    pub fn edge(a: Point3<N>, b: Point3<N>, direction: Vector3<N>) -> Self {
        let along = b - a;
        let axis = along / along.norm();
        Self::edge_about_axis(a, b, direction, axis, N::zero())
    }

    /// An edge from `a` to `b`, extreme along the unit `direction`, that
    /// turns about the unit `axis` as the direction does: some edge of the
    /// family stays extreme along each direction `n` with
    /// `n · axis = cos` (the side line of a cone of revolution about
    /// `axis`; `cos = 0` and `axis` along the edge for a straight edge or a
    /// cylinder's side).
    pub fn edge_about_axis(
        a: Point3<N>,
        b: Point3<N>,
        direction: Vector3<N>,
        axis: Vector3<N>,
        cos: N,
    ) -> Self {
        let mut feature = Self::new();
        feature.shape = FeatureShape::Edge;
        feature.points[0] = a;
        feature.points[1] = b;
        feature.len = 2;
        feature.normal = direction;
        feature.axis = axis;
        feature.cos = cos;
        feature
    }

    /// For an edge, the circle of directions it (or its family, turning
    /// about `axis`) stays extreme along: the unit `n` with
    /// `n · axis = cos`, returned as `(axis, cos)`.
    pub fn edge_directions(&self) -> (Vector3<N>, N) {
        (self.axis, self.cos)
    }

    /// A face with the given corners (counter-clockwise about `normal`, at
    /// most [`MAX_FEATURE_POINTS`]; extra ones are ignored) and unit
    /// outward `normal`.
    pub fn face(corners: impl IntoIterator<Item = Point3<N>>, normal: Vector3<N>) -> Self {
        let mut feature = Self::new();
        feature.shape = FeatureShape::Face;
        for corner in corners.into_iter().take(MAX_FEATURE_POINTS) {
            feature.points[feature.len] = corner;
            feature.len += 1;
        }
        feature.normal = normal;
        feature
    }

    /// The kind of feature.
    pub fn shape(&self) -> FeatureShape {
        self.shape
    }

    /// Its points: one for a vertex or curved point, two for an edge, the
    /// corners of a face.
    pub fn points(&self) -> &[Point3<N>] {
        &self.points[..self.len]
    }

    /// A face's unit outward normal; for the other kinds, the direction
    /// the feature is extreme along.
    pub fn normal(&self) -> Vector3<N> {
        self.normal
    }

    /// Whether the feature holds no point.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The same feature with every point mapped by `point` and the normal
    /// by `vector` (a change of frame).
    pub fn mapped(
        &self,
        point: impl Fn(&Point3<N>) -> Point3<N>,
        vector: impl Fn(&Vector3<N>) -> Vector3<N>,
    ) -> Self {
        let mut mapped = *self;
        for p in &mut mapped.points[..self.len] {
            *p = point(p);
        }
        mapped.normal = vector(&self.normal);
        mapped.axis = vector(&self.axis);
        mapped
    }

    /// The same feature moved `distance` along `direction` (a core's
    /// feature dilated by a round margin: a capsule's side is its axis
    /// moved by the radius).
    pub fn offset(&self, direction: &Vector3<N>, distance: N) -> Self {
        let shift = direction * distance;
        self.mapped(|p| p + shift, |v| *v)
    }

    /// Whether every coordinate is finite.
    pub fn is_finite(&self) -> bool {
        self.points().iter().all(|p| p.iter().all(|c| c.is_finite()))
            && self.normal.iter().all(|c| c.is_finite())
            && (self.shape != FeatureShape::Edge || self.axis.iter().all(|c| c.is_finite()))
    }
}
