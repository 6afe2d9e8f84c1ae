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

/// Two posed convex shapes as the Minkowski difference of their cores, in
/// one working frame: its origin at `a`'s, its axes `a`'s, or `b`'s when
/// `b` is much the larger (see [`MinkowskiPair::new`]). "`a`'s frame" in
/// the GJK modules means this frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MinkowskiPair<'a, N: Real> {
    a: RoundedShape<'a, N>,
    b: RoundedShape<'a, N>,
    kinds: (ShapeKind, ShapeKind),
    /// `a`'s local frame to the working frame when their axes differ (a
    /// rotation only; `None` when the frame is `a`'s).
    a_to_frame: Option<PoseMatrix<N>>,
    /// `b`'s local frame to the working frame, its translation the high
    /// part of `b`'s origin there.
    b_to_a: PoseMatrix<N>,
    /// The low part of `b`'s origin in the working frame: the rounding
    /// of `p_b − p_a`, which two far-apart origins of a large shape and a
    /// small one would otherwise lose from every gap.
    b_origin_low: Vector3<N>,
    /// The working frame to the world.
    a_to_world: PoseMatrix<N>,
    /// `b`'s origin in the working frame (the direction from `a` to `b`
    /// when the geometry gives none).
    b_origin: Vector3<N>,
}

/// How far a shape reaches from its origin: the largest coordinate of its
/// local box.
fn reach<N: Real>(shape: &dyn Shape<N>) -> N {
    let aabb = shape.local_aabb();
    aabb.mins.coords.amax().max(aabb.maxs.coords.amax())
}

/// `b` counts as much the larger above this ratio of reaches: the
/// working frame is then `b`'s axes, so that its support points, the
/// large numbers, enter unrotated.
const LARGER_FRAME_RATIO: f64 = 8.0;

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
        // `b` much the larger (a box of half extent 5000 under a small
        // shape): its axes, so that its support points are not rotated and
        // its faces keep their bits near the small shape.
        let larger_b = reach(b) > reach(a) * nalgebra::convert::<f64, N>(LARGER_FRAME_RATIO);
        let axes = if larger_b {
            pose_b.rotation
        } else {
            pose_a.rotation
        };
        let a_to_world = PoseMatrix::new(&Isometry3::from_parts(pose_a.translation, axes));
        // Subtract the translations before rotating, exactly (high and low
        // parts): a pair far from the origin keeps the bits of its relative
        // placement.
        let (mut high, mut low) = (Vector3::zeros(), Vector3::zeros());
        for k in 0..3 {
            (high[k], low[k]) =
                geom_core::exact::two_sum(pose_b.translation.vector[k], -pose_a.translation.vector[k]);
        }
        let b_origin = a_to_world.vector_to_local(&high);
        let b_origin_low = a_to_world.vector_to_local(&low);
        let b_to_a = PoseMatrix::new(&Isometry3::from_parts(
            b_origin.into(),
            axes.inverse() * pose_b.rotation,
        ));
        let a_to_frame = larger_b.then(|| {
            PoseMatrix::new(&Isometry3::from_parts(
                nalgebra::Translation3::identity(),
                axes.inverse() * pose_a.rotation,
            ))
        });
        Ok(MinkowskiPair {
            a: RoundedShape::new(a),
            b: RoundedShape::new(b),
            kinds,
            a_to_frame,
            b_to_a,
            b_origin_low,
            a_to_world,
            b_origin,
        })
    }

    /// `a`'s local point in the working frame.
    fn a_point(&self, p: &Point3<N>) -> Point3<N> {
        self.a_to_frame.as_ref().map_or(*p, |m| m.point_to_world(p))
    }

    /// A working-frame direction in `a`'s local frame.
    fn a_direction(&self, v: &Vector3<N>) -> Vector3<N> {
        self.a_to_frame.as_ref().map_or(*v, |m| m.vector_to_local(v))
    }

    /// `b`'s local point in the working frame, the origin's low part
    /// added last.
    fn b_point(&self, p: &Point3<N>) -> Point3<N> {
        self.b_to_a.point_to_world(p) + self.b_origin_low
    }

    /// A working-frame point in `b`'s local frame.
    fn b_local_point(&self, p: &Point3<N>) -> Point3<N> {
        self.b_to_a.point_to_local(&(p - self.b_origin_low))
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
        let (a0, a1) = ends(&self.a.core)?;
        let (b0, b1) = ends(&self.b.core)?;
        Some([
            self.a_point(&a0),
            self.a_point(&a1),
            self.b_point(&b0),
            self.b_point(&b1),
        ])
    }

    /// `a`'s round margin.
    pub fn radius_a(&self) -> N {
        self.a.radius
    }

    /// `b`'s round margin.
    pub fn radius_b(&self) -> N {
        self.b.radius
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
        let feature = self.a.feature(&self.a_direction(dir), tolerance);
        match &self.a_to_frame {
            None => feature,
            Some(m) => feature.map(|f| f.mapped(|p| m.point_to_world(p), |v| m.vector_to_world(v))),
        }
        .filter(SupportFeature::is_finite)
    }

    /// `b`'s core feature extreme along `dir` (given and answered in `a`'s
    /// frame).
    pub fn feature_b(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        self.b
            .feature(&self.b_to_a.vector_to_local(dir), tolerance)
            .map(|f| f.mapped(|p| self.b_point(p), |v| self.b_to_a.vector_to_world(v)))
            .filter(SupportFeature::is_finite)
    }

    /// The point of `a`'s core closest to `point` (`a`'s frame), and
    /// whether `point` is inside it.
    pub fn closest_on_a(&self, point: &Point3<N>) -> Option<(Point3<N>, bool)> {
        match &self.a_to_frame {
            None => self.a.closest(point),
            Some(m) => self
                .a
                .closest(&m.point_to_local(point))
                .map(|(p, inside)| (m.point_to_world(&p), inside)),
        }
    }

    /// The point of `b`'s core closest to `point` (both in `a`'s frame),
    /// and whether `point` is inside it.
    pub fn closest_on_b(&self, point: &Point3<N>) -> Option<(Point3<N>, bool)> {
        self.b
            .closest(&self.b_local_point(point))
            .map(|(p, inside)| (self.b_point(&p), inside))
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
            .support(&self.a_direction(dir))
            .ok_or(unsupported.clone())?;
        let a = self.a_point(&a_local);
        let b_local = self
            .b
            .support(&self.b_to_a.vector_to_local(&-dir))
            .ok_or(unsupported)?;
        // `b`'s point high part first (a large shape's face and its
        // origin's offset cancel exactly), the origin's low part last.
        let b_high = self.b_to_a.point_to_world(&b_local);
        let b = b_high + self.b_origin_low;
        let w = (a - b_high) - self.b_origin_low;
        if w.iter().all(|c| c.is_finite()) {
            Ok(SupportPoint { w, a, b })
        } else {
            Err(GeomError::NonFinite {
                input: "support point",
            })
        }
    }
}
