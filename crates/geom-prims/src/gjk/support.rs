//! The Minkowski difference of two posed convex shapes, seen through their
//! support functions in the local frame of the first.
//!
//! Spheres and capsules are split into a core (a point, a segment) and a
//! round margin: GJK and EPA run on the cores, whose Minkowski difference
//! is a polytope (exact termination), and the radii are added at the end.
//! This is exact, not an approximation: the support function of a core
//! dilated by a ball is the core's plus the radius, so distances shrink and
//! penetration depths grow by exactly the radius (van den Bergen,
//! *Collision Detection in Interactive 3D Environments*, §4.3.4; Jolt's
//! "convex radius").

use std::any::Any;

use geom_core::distance::closest_point_on_segment;
use geom_core::{FeatureShape, GeomError, PoseMatrix, Real, Shape, ShapeKind, SupportFeature};
use nalgebra::{Isometry3, Point3, Vector3};

use crate::contact::{Placement, WorkingFrame};
use crate::{Capsule, Segment, Sphere};

/// A point of the Minkowski difference `A − B` with the two support points
/// it came from, all in `a`'s local frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SupportPoint<N: Real> {
    /// `a − b`.
    pub w: Vector3<N>,
    /// The support point of `a`'s core.
    pub a: Point3<N>,
    /// The support point of `b`'s core.
    pub b: Point3<N>,
}

/// The part of a shape GJK works on once its round margin is removed.
#[derive(Clone, Copy, Debug)]
enum Core<'a, N: Real> {
    /// A sphere's centre.
    Point,
    /// A capsule's axis.
    Segment(Point3<N>, Point3<N>),
    /// Any other convex shape, through its own support function.
    Whole(&'a dyn Shape<N>),
}

/// A convex shape as a core and a round margin (`radius`).
#[derive(Clone, Copy, Debug)]
struct RoundedShape<'a, N: Real> {
    core: Core<'a, N>,
    radius: N,
}

impl<'a, N: Real> RoundedShape<'a, N> {
    fn new(shape: &'a dyn Shape<N>) -> Self {
        let any: &dyn Any = shape;
        if let Some(sphere) = any.downcast_ref::<Sphere<N>>() {
            RoundedShape {
                core: Core::Point,
                radius: sphere.radius,
            }
        } else if let Some(capsule) = any.downcast_ref::<Capsule<N>>() {
            RoundedShape {
                core: Core::Segment(capsule.a, capsule.b),
                radius: capsule.radius,
            }
        } else if let Some(segment) = any.downcast_ref::<Segment<N>>() {
            RoundedShape {
                core: Core::Segment(segment.a, segment.b),
                radius: N::zero(),
            }
        } else {
            RoundedShape {
                core: Core::Whole(shape),
                radius: N::zero(),
            }
        }
    }

    fn support(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        match self.core {
            Core::Point => Some(Point3::origin()),
            Core::Segment(a, b) => Some(if (b - a).dot(dir) > N::zero() { b } else { a }),
            Core::Whole(shape) => shape.support_local(dir),
        }
    }

    /// The core's extreme feature along `dir` (local frame), see
    /// [`Shape::support_feature_local`].
    fn feature(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        match self.core {
            Core::Point => Some(SupportFeature::point(FeatureShape::Vertex, Point3::origin(), u)),
            Core::Segment(a, b) => Some(crate::feature::segment_feature(a, b, &u, tolerance)),
            Core::Whole(shape) => shape.support_feature_local(dir, tolerance),
        }
    }

    /// The core's point closest to `point` (local frame) and whether
    /// `point` is inside the core (cores of zero volume never hold one).
    fn closest(&self, point: &Point3<N>) -> Option<(Point3<N>, bool)> {
        match self.core {
            Core::Point => Some((Point3::origin(), false)),
            Core::Segment(a, b) => Some((closest_point_on_segment(point, &a, &b).0, false)),
            Core::Whole(shape) => shape
                .closest_point_local(point, false)
                .map(|projection| (projection.point, projection.is_inside)),
        }
    }
}

/// One shape of a [`MinkowskiPair`] placed in the working frame: its
/// local frame turned by `turn` (`None`: same axes) and moved by
/// `offset + offset_low` (zero for the shape the frame's origin is at).
#[derive(Clone, Copy, Debug)]
struct Placed<'a, N: Real> {
    shape: RoundedShape<'a, N>,
    turn: Option<PoseMatrix<N>>,
    offset: Vector3<N>,
    /// The rounding of `offset` (two origins far apart: the exact
    /// difference is `offset + offset_low`).
    offset_low: Vector3<N>,
}

impl<'a, N: Real> Placed<'a, N> {
    /// A local point turned, without the offset.
    fn turned(&self, p: &Point3<N>) -> Point3<N> {
        self.turn.as_ref().map_or(*p, |m| m.point_to_world(p))
    }

    /// A local point in the working frame: turned, the offset's high part
    /// added (where a large shape's face and its far origin cancel
    /// exactly), then the low part.
    fn point(&self, p: &Point3<N>) -> Point3<N> {
        (self.turned(p) + self.offset) + self.offset_low
    }

    /// A working-frame point in the local frame.
    fn local_point(&self, q: &Point3<N>) -> Point3<N> {
        let moved = (q - self.offset_low) - self.offset;
        self.turn.as_ref().map_or(moved, |m| m.point_to_local(&moved))
    }

    /// A working-frame direction in the local frame.
    fn local_direction(&self, v: &Vector3<N>) -> Vector3<N> {
        self.turn.as_ref().map_or(*v, |m| m.vector_to_local(v))
    }

    /// A local direction in the working frame.
    fn direction(&self, v: &Vector3<N>) -> Vector3<N> {
        self.turn.as_ref().map_or(*v, |m| m.vector_to_world(v))
    }

    /// The extreme feature along the working-frame `dir`, in that frame.
    fn feature(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        self.shape
            .feature(&self.local_direction(dir), tolerance)
            .map(|f| f.mapped(|p| self.point(p), |v| self.direction(v)))
            .filter(SupportFeature::is_finite)
    }

    /// The core point closest to the working-frame `point`, and whether
    /// `point` is inside the core.
    fn closest(&self, point: &Point3<N>) -> Option<(Point3<N>, bool)> {
        self.shape
            .closest(&self.local_point(point))
            .map(|(p, inside)| (self.point(&p), inside))
    }
}

/// Two posed convex shapes as the Minkowski difference of their cores, in
/// one working frame ([`WorkingFrame`]: `a`'s when the two are of a size,
/// else the larger one's axes at the smaller one's origin). "`a`'s frame"
/// in the GJK modules means this frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MinkowskiPair<'a, N: Real> {
    a: Placed<'a, N>,
    b: Placed<'a, N>,
    kinds: (ShapeKind, ShapeKind),
    /// The working frame to the world.
    a_to_world: PoseMatrix<N>,
    /// `b`'s origin relative to `a`'s in the working frame (the direction
    /// from `a` to `b` when the geometry gives none).
    b_origin: Vector3<N>,
}

/// How far a shape reaches from its origin: the largest coordinate of its
/// local box.
fn reach<N: Real>(shape: &dyn Shape<N>) -> N {
    let aabb = shape.local_aabb();
    aabb.mins.coords.amax().max(aabb.maxs.coords.amax())
}

fn check_pose<N: Real>(pose: &Isometry3<N>, input: &'static str) -> Result<(), GeomError> {
    let finite = pose.translation.vector.iter().all(|v| v.is_finite())
        && pose.rotation.coords.iter().all(|v| v.is_finite());
    finite.then_some(()).ok_or(GeomError::NonFinite { input })
}

impl<'a, N: Real> MinkowskiPair<'a, N> {
    /// The pair, or `NonFinite` for a NaN or infinite pose and
    /// `Unsupported` when either shape is not convex.
    pub fn new(
        a: &'a dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &'a dyn Shape<N>,
        pose_b: &Isometry3<N>,
    ) -> Result<Self, GeomError> {
        check_pose(pose_a, "pose_a")?;
        check_pose(pose_b, "pose_b")?;
        let kinds = (a.kind(), b.kind());
        if !(a.is_convex() && b.is_convex()) {
            return Err(GeomError::Unsupported {
                a: kinds.0,
                b: kinds.1,
            });
        }
        let frame = WorkingFrame::new(pose_a, reach(a), pose_b, reach(b));
        let a_to_world = PoseMatrix::new(&frame.to_world);
        let place = |shape: &'a dyn Shape<N>, placement: &Placement<N>| Placed {
            shape: RoundedShape::new(shape),
            turn: placement.rotation.map(|rotation| {
                PoseMatrix::new(&Isometry3::from_parts(
                    nalgebra::Translation3::identity(),
                    rotation,
                ))
            }),
            offset: placement.offset,
            offset_low: placement.offset_low,
        };
        let (placed_a, placed_b) = (place(a, &frame.a), place(b, &frame.b));
        let b_origin = placed_b.offset - placed_a.offset;
        Ok(MinkowskiPair {
            a: placed_a,
            b: placed_b,
            kinds,
            a_to_world,
            b_origin,
        })
    }

    /// Both cores as segments (`a`'s frame; a point as a zero-length
    /// segment) when both are points or segments: spheres, capsules and
    /// segments, whose closest points need no iteration.
    pub fn segment_cores(&self) -> Option<[Point3<N>; 4]> {
        let ends = |core: &Core<'a, N>| match *core {
            Core::Point => Some((Point3::origin(), Point3::origin())),
            Core::Segment(a, b) => Some((a, b)),
            Core::Whole(_) => None,
        };
        let (a0, a1) = ends(&self.a.shape.core)?;
        let (b0, b1) = ends(&self.b.shape.core)?;
        Some([
            self.a.point(&a0),
            self.a.point(&a1),
            self.b.point(&b0),
            self.b.point(&b1),
        ])
    }

    /// `a`'s round margin.
    pub fn radius_a(&self) -> N {
        self.a.shape.radius
    }

    /// `b`'s round margin.
    pub fn radius_b(&self) -> N {
        self.b.shape.radius
    }

    /// `b`'s origin in `a`'s frame.
    pub fn b_origin(&self) -> Vector3<N> {
        self.b_origin
    }

    /// `a`'s frame to the world.
    pub fn a_to_world(&self) -> &PoseMatrix<N> {
        &self.a_to_world
    }

    /// `a`'s core feature extreme along `dir` (`a`'s frame).
    pub fn feature_a(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        self.a.feature(dir, tolerance)
    }

    /// `b`'s core feature extreme along `dir` (given and answered in `a`'s
    /// frame).
    pub fn feature_b(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        self.b.feature(dir, tolerance)
    }

    /// The point of `a`'s core closest to `point` (`a`'s frame), and
    /// whether `point` is inside it.
    pub fn closest_on_a(&self, point: &Point3<N>) -> Option<(Point3<N>, bool)> {
        self.a.closest(point)
    }

    /// The point of `b`'s core closest to `point` (both in `a`'s frame),
    /// and whether `point` is inside it.
    pub fn closest_on_b(&self, point: &Point3<N>) -> Option<(Point3<N>, bool)> {
        self.b.closest(point)
    }

    /// The support point of the cores' difference along `dir` (`a`'s
    /// frame): `a`'s farthest point along `dir` minus `b`'s along `-dir`.
    ///
    /// Errors: `Unsupported` when a shape has no support function (a
    /// half-space), `NonFinite` when a support point is NaN or infinite.
    pub fn support(&self, dir: &Vector3<N>) -> Result<SupportPoint<N>, GeomError> {
        let unsupported = GeomError::Unsupported {
            a: self.kinds.0,
            b: self.kinds.1,
        };
        let a_local = self
            .a
            .shape
            .support(&self.a.local_direction(dir))
            .ok_or(unsupported.clone())?;
        let b_local = self
            .b
            .shape
            .support(&self.b.local_direction(&-dir))
            .ok_or(unsupported)?;
        // High parts first: one side's offset is zero, the other's cancels
        // exactly against a large shape's face beside the frame's origin;
        // the low parts last.
        let (a_high, b_high) = (
            self.a.turned(&a_local) + self.a.offset,
            self.b.turned(&b_local) + self.b.offset,
        );
        let w = (a_high - b_high) + (self.a.offset_low - self.b.offset_low);
        let (a, b) = (a_high + self.a.offset_low, b_high + self.b.offset_low);
        if w.iter().all(|c| c.is_finite()) {
            Ok(SupportPoint { w, a, b })
        } else {
            Err(GeomError::NonFinite {
                input: "support point",
            })
        }
    }
}
