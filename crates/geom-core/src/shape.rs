//! The [`Shape`] trait every geometry implements.
//!
//! A shape defined outside geom implements the local-frame methods; the world
//! queries (`ray_cast`, `closest_point`, `distance`, `aabb`, ...) come with
//! the trait.
//!
//! ```
//! use geom_core::quadratic::ray_cast_sphere;
//! use geom_core::{Aabb, LaneProjection, PointProjection, Ray, RayHit, Shape, ShapeKind};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! /// A ball of radius 1 centred on its local origin.
//! #[derive(Debug)]
//! struct Ball(ShapeKind);
//!
//! impl Shape<f64> for Ball {
//!     fn kind(&self) -> ShapeKind {
//!         self.0
//!     }
//!     fn is_convex(&self) -> bool {
//!         true
//!     }
//!     fn local_aabb(&self) -> Aabb<f64> {
//!         Aabb::from_half_extents(Point3::origin(), Vector3::repeat(1.0))
//!     }
//!     fn ray_cast_local(&self, ray: &Ray<f64>, max_t: f64, solid: bool) -> Option<RayHit<f64>> {
//!         ray_cast_sphere(ray, 1.0, max_t, solid).into_hit()
//!     }
//!     fn closest_point_local(&self, p: &Point3<f64>, solid: bool) -> Option<PointProjection<f64>> {
//!         let on_surface = Point3::from(p.coords.normalize());
//!         LaneProjection { point: on_surface, inside: p.coords.norm() <= 1.0 }.into_projection(p, solid)
//!     }
//!     fn support_local(&self, dir: &Vector3<f64>) -> Option<Point3<f64>> {
//!         Some(Point3::from(dir.normalize()))
//!     }
//! }
//!
//! let ball = Ball(ShapeKind::new_custom().unwrap());
//! let pose = Isometry3::translation(0.0, 0.0, 5.0);
//! // From the origin along +z: the ball centred at (0, 0, 5) is entered at z = 4, facing -z.
//! let hit = ball.ray_cast(&pose, &Ray::new(Point3::origin(), Vector3::z()), f64::INFINITY, true).unwrap();
//! assert!((hit.t - 4.0).abs() < 1e-12 && (hit.normal + Vector3::z()).norm() < 1e-12);
//! // (0, 0, 8) is 3 from the centre, so 2 from the surface.
//! assert!((ball.distance(&pose, &Point3::new(0.0, 0.0, 8.0)).unwrap() - 2.0).abs() < 1e-12);
//! assert_eq!(ball.aabb(&pose), Aabb::new(Point3::new(-1.0, -1.0, 4.0), Point3::new(1.0, 1.0, 6.0)));
//! ```

use std::any::Any;
use std::fmt::Debug;

use nalgebra::{Isometry3, Point3, Vector3};

use crate::aabb::Aabb;
use crate::feature::{FeatureShape, SupportFeature};
use crate::pose::PoseMatrix;
use crate::projection::LaneProjection;
use crate::projection::PointProjection;
use crate::ray::LaneHit;
use crate::ray::{Ray, RayHit};
use crate::scalar::{Lane, Real};

/// What kind of shape an object is: the key of pair dispatch.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShapeKind {
    /// [`Sphere`](../geom_prims/struct.Sphere.html).
    Sphere,
    /// A capsule: the points within a radius of a segment.
    Capsule,
    /// A capped solid cylinder.
    Cylinder,
    /// A capped solid cone.
    Cone,
    /// An ellipsoid with arbitrary radii.
    Ellipsoid,
    /// A box.
    Cuboid,
    /// The half-space below a plane.
    HalfSpace,
    /// A triangle (no thickness).
    Triangle,
    /// A segment (no thickness).
    Segment,
    /// A heightfield terrain.
    HeightField,
    /// A triangle mesh.
    TriMesh,
    /// The convex hull of a point set.
    ConvexHull,
    /// Posed child shapes ([`Compound`](crate::compound::Compound)).
    Compound,
    /// A shape defined outside geom, numbered by [`ShapeKind::new_custom`].
    Custom(u16),
}

/// How many built-in kinds precede the custom ones in [`ShapeKind::index`].
pub(crate) const BUILTIN_KINDS: usize = 13;

impl ShapeKind {
    /// A fresh kind for a shape defined outside geom. Numbers are unique in
    /// the process (a global counter), so every dispatch table agrees on
    /// them; a downstream crate creates its kind once (for example in a
    /// `OnceLock`) and returns it from [`Shape::kind`].
    ///
    /// Returns `None` once 65536 custom kinds exist.
    pub fn new_custom() -> Option<ShapeKind> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        u16::try_from(id).ok().map(ShapeKind::Custom)
    }

    /// A dense index: the built-in kinds are `0..13` in declaration order,
    /// `Custom(id)` is `13 + id`.
    pub fn index(self) -> usize {
        match self {
            ShapeKind::Sphere => 0,
            ShapeKind::Capsule => 1,
            ShapeKind::Cylinder => 2,
            ShapeKind::Cone => 3,
            ShapeKind::Ellipsoid => 4,
            ShapeKind::Cuboid => 5,
            ShapeKind::HalfSpace => 6,
            ShapeKind::Triangle => 7,
            ShapeKind::Segment => 8,
            ShapeKind::HeightField => 9,
            ShapeKind::TriMesh => 10,
            ShapeKind::ConvexHull => 11,
            ShapeKind::Compound => 12,
            ShapeKind::Custom(id) => BUILTIN_KINDS + usize::from(id),
        }
    }
}

/// A geometry that answers ray casts and closest-point queries.
///
/// The trait is dyn-compatible: `&dyn Shape<f32>` works. Methods ending in
/// `_local` take inputs in the shape's own frame; the others take a world
/// `pose` and return world answers. A pose's translation is subtracted before
/// its rotation is undone, so queries near a shape far from the origin keep
/// their precision.
///
/// Queries never panic: NaN or infinite inputs give `None`.
///
/// `Shape` extends [`Any`], so pair routines can recover the concrete type
/// of a `&dyn Shape<N>` (`(shape as &dyn Any).downcast_ref::<Sphere<N>>()`),
/// which is how the [dispatch table](crate::dispatch::DispatchTable) calls
/// typed routines.
pub trait Shape<N: Real>: Any + Debug + Send + Sync {
    /// The kind of shape, for pair dispatch.
    fn kind(&self) -> ShapeKind;

    /// Whether the shape is convex (then [`Shape::support_local`] answers).
    fn is_convex(&self) -> bool;

    /// The bounding box in the local frame.
    fn local_aabb(&self) -> Aabb<N>;

    /// The bounding box in world space under `pose`.
    fn aabb(&self, pose: &Isometry3<N>) -> Aabb<N> {
        self.local_aabb().transformed(pose)
    }

    /// The first hit of a local-frame ray with `0 <= t <= max_t`.
    ///
    /// With `solid = true` an origin inside or on the shape hits at `t = 0`
    /// with normal `-dir / |dir|`; with `solid = false` it reports where the
    /// ray leaves the shape, with the outward normal there.
    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>>;

    /// [`Shape::ray_cast_local`] for a world-space ray against the shape at
    /// `pose`; the normal is returned in world space and `t` is unchanged.
    ///
    /// Unless the pose is the identity, the local ray starts next to the
    /// shape, outside a sphere just larger than its bounding radius, with
    /// its start computed nearly exactly from the world origin and the pose
    /// ([`PoseMatrix::ray_to_local`], shared with the batch casts): a ray
    /// from far away then loses no more to the translation or the rotation
    /// than one starting next to the shape.
    fn ray_cast(&self, pose: &Isometry3<N>, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        ray_cast_posed(self, pose, ray, max_t, solid)
    }

    /// The closest point of the shape to a local-frame `point`. With
    /// `solid = true` a point inside projects onto itself; with
    /// `solid = false` it projects onto the boundary.
    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>>;

    /// [`Shape::closest_point_local`] in world space.
    ///
    /// A point inside a solid shape comes back exactly, not through the
    /// pose's rotation and back (which would cost ulps). `None` when the
    /// projection is not finite (inputs near the overflow limit).
    fn closest_point(
        &self,
        pose: &Isometry3<N>,
        point: &Point3<N>,
        solid: bool,
    ) -> Option<PointProjection<N>> {
        let matrix = PoseMatrix::new(pose);
        let projection = self.closest_point_local(&matrix.point_to_local(point), solid)?;
        Some(if solid && projection.is_inside {
            PointProjection {
                point: *point,
                is_inside: true,
            }
        } else {
            let world_point = matrix.point_to_world(&projection.point);
            if !world_point.iter().all(|c| c.is_finite()) {
                return None;
            }
            PointProjection {
                point: world_point,
                is_inside: projection.is_inside,
            }
        })
    }

    /// Signed distance from a local-frame point to the boundary (negative
    /// inside); `None` when it is not a finite number (a point near the
    /// float limit on the far side of the shape).
    fn distance_local(&self, point: &Point3<N>) -> Option<N> {
        let projection = self.closest_point_local(point, false)?;
        let d = crate::ray::length_without_overflow(&(point - projection.point));
        d.is_finite().then_some(if projection.is_inside { -d } else { d })
    }

    /// Signed distance from a world point to the boundary (negative inside).
    fn distance(&self, pose: &Isometry3<N>, point: &Point3<N>) -> Option<N> {
        self.distance_local(&PoseMatrix::new(pose).point_to_local(point))
    }

    /// The point of the shape farthest along `dir` in the local frame
    /// (`None` for non-convex shapes, a zero or non-finite `dir`).
    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>>;

    /// The extreme feature of the shape along `dir` in the local frame: a
    /// face when `dir` is within `tolerance` of its normal (`tolerance` is
    /// the sine of the largest angle allowed; `1` gives the most aligned
    /// face whatever the angle, as contact manifolds want), an edge when
    /// `dir` is that close to perpendicular to it, else a vertex or a
    /// point of a curved surface. `None` where [`Shape::support_local`] is.
    ///
    /// The default answers the support point as a
    /// [`FeatureShape::Curved`] point: pair routines then give a custom
    /// shape one contact point per manifold and refine its normal as for
    /// a smooth surface.
    fn support_feature_local(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let _ = tolerance;
        let point = self.support_local(dir)?;
        let (scaled, length) = crate::ray::with_length(dir);
        Some(SupportFeature::point(
            FeatureShape::Curved,
            point,
            scaled / length,
        ))
    }

    /// [`Shape::support_feature_local`] for a world direction, answered in
    /// world space.
    fn support_feature(
        &self,
        pose: &Isometry3<N>,
        dir: &Vector3<N>,
        tolerance: N,
    ) -> Option<SupportFeature<N>> {
        let matrix = PoseMatrix::new(pose);
        self.support_feature_local(&matrix.vector_to_local(dir), tolerance)
            .map(|f| f.mapped(|p| matrix.point_to_world(p), |v| matrix.vector_to_world(v)))
            .filter(SupportFeature::is_finite)
    }

    /// [`Shape::support_local`] for a world direction, answered in world space.
    /// `None` as well when the answer is not finite (inputs near the
    /// overflow limit).
    fn support(&self, pose: &Isometry3<N>, dir: &Vector3<N>) -> Option<Point3<N>> {
        let matrix = PoseMatrix::new(pose);
        self.support_local(&matrix.vector_to_local(dir))
            .map(|p| matrix.point_to_world(&p))
            .filter(|p| p.iter().all(|c| c.is_finite()))
    }
}

/// The body of the default [`Shape::ray_cast`], for a shape that overrides
/// the method (to take a shortcut for some poses) and falls back on it.
pub fn ray_cast_posed<N: Real, S: Shape<N> + ?Sized>(
    shape: &S,
    pose: &Isometry3<N>,
    ray: &Ray<N>,
    max_t: N,
    solid: bool,
) -> Option<RayHit<N>> {
    if !ray.is_finite() {
        return None;
    }
    // The identity pose passes the ray through untouched: no matrix, no
    // restart sphere (the same bits as the general path, which selects
    // that answer for it).
    let translation = pose.translation.vector;
    let identity = pose.rotation.quaternion().imag() == Vector3::zeros() && translation == Vector3::zeros();
    let (local, matrix) = if identity {
        (crate::pose::unmoved_ray(ray, &translation, max_t), None)
    } else {
        let matrix = PoseMatrix::new(pose);
        let sphere = matrix.restart_sphere(&shape.local_aabb());
        (matrix.ray_to_local(ray, max_t, &sphere), Some(matrix))
    };
    if !local.usable {
        return None;
    }
    let hit = shape.ray_cast_local(&local.ray, local.max_t, solid)?;
    let lane_hit = LaneHit {
        mask: true,
        t: hit.t,
        normal: hit.normal,
        face: N::zero(),
    };
    let world = match matrix {
        Some(matrix) => matrix.hit_to_world(&local, &lane_hit, max_t),
        // A pure translation's: the normal is not rotated.
        None => crate::pose::translated_hit_to_world(&local, &lane_hit, max_t),
    };
    world.mask.then_some(RayHit {
        t: world.t,
        normal: world.normal,
        feature: hit.feature,
    })
}

/// The generic kernels behind a primitive's [`Shape`] methods, callable on
/// scalars and on SIMD lanes alike (one query per lane).
///
/// `T` is `N` itself for the scalar path, or `WideF32x4`/`WideF32x8` (for
/// `N = f32`) and `WideF64x4` (for `N = f64`). The scalar [`Shape`] methods
/// call these with `T = N`, so the lane results equal the scalar results of
/// the same precision bit for bit.
pub trait LaneShape<N: Real> {
    /// Ray cast in the local frame, one ray per lane. See
    /// [`Shape::ray_cast_local`] for the semantics.
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T>;

    /// The closest boundary point in the local frame, one point per lane,
    /// and whether the point is inside (or on) the shape.
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T>;
}
