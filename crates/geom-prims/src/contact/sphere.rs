//! A sphere against a convex shape that projects points exactly: the
//! cylinder, the cone and the ellipsoid (the pairs registered here; a
//! user's shape goes through GJK).
//!
//! A sphere is its centre dilated by its radius (van den Bergen,
//! *Collision Detection in Interactive 3D Environments*, §4.3.4), so the
//! centre's projection onto the other shape's boundary answers every pair
//! query: outside, it is the closest point (distance minus the radius is
//! the gap, or minus the depth); inside, it is the nearest way out (depth
//! the radius plus the distance to it). No GJK iteration and no normal
//! refinement: one point projection, which the shapes compute in closed
//! form (the ellipsoid by Eberly's root finding).
//!
//! The centre exactly on the boundary has no direction of its own; that
//! case, and a shape without a projection, goes to the GJK routines.
//!
//! ```
//! use geom_core::{ClosestPoints, ContactManifolds};
//! use geom_prims::contact::{closest_points_sphere_convex, contact_sphere_convex};
//! use geom_prims::{Cylinder, Ellipsoid, Sphere};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A ball of radius 0.5 centred 1.25 from the axis of a cylinder of radius 1: 0.25 into its side.
//! let ball = Sphere::new(0.5);
//! let cylinder = Cylinder::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 1.0);
//! let mut out = ContactManifolds::<f64>::new();
//! contact_sphere_convex(&ball, &Isometry3::translation(1.25, 0.0, 0.0), &cylinder, &Isometry3::identity(), 0.0, &mut out).unwrap();
//! let (normal, point) = out.points().next().unwrap();
//! assert!((normal + Vector3::x()).norm() < 1e-12 && (point.depth - 0.25).abs() < 1e-12); // from the ball to the axis
//! assert!((point.point_b - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-12); // the centre's projection on the side
//! // Centred 3 above an ellipsoid of radii (2, 1, 1): its top (0, 1, 0), the ball's bottom (0, 2.5, 0).
//! let ellipsoid = Ellipsoid::new(Vector3::new(2.0, 1.0, 1.0));
//! let above = Isometry3::translation(0.0, 3.0, 0.0);
//! let apart = closest_points_sphere_convex(&ball, &above, &ellipsoid, &Isometry3::identity(), 10.0).unwrap();
//! let ClosestPoints::WithinMargin { point_a, point_b } = apart else { panic!("{apart:?}") };
//! assert!((point_a - Point3::new(0.0, 2.5, 0.0)).norm() < 1e-12 && (point_b - Point3::new(0.0, 1.0, 0.0)).norm() < 1e-12);
//! ```

use geom_core::dispatch::ClosestPoints;
use geom_core::{ContactManifolds, ContactPoint, FeatureId, GeomError, Real, Shape, lit};
use nalgebra::{Isometry3, Point3, Vector3};

use super::{relative_pose, try_unit, within_distance, within_margin};
use crate::Sphere;
use crate::feature::nearest_normal;
use crate::gjk::{convex_closest_points, convex_contact};

/// The sphere's centre against `b`, in `b`'s frame: the centre, its
/// projection onto `b`'s boundary, `b`'s outward unit normal there, and the
/// centre's signed distance along it (positive outside). `None` when `b`
/// does not project points, the projection is not finite, or the centre is
/// on the boundary.
struct CentreProjection<N: Real> {
    centre: Point3<N>,
    on_b: Point3<N>,
    outward: Vector3<N>,
    signed: N,
}

/// The centre's projection ([`CentreProjection`]). The offset's direction
/// carries the rounding of the centre's coordinates over its length
/// (`ε·|c|/d` radians), which for a centre near the boundary is far more
/// than the normal of a face or a straight side may be off: the overlap
/// along a tilted normal grows with the side's length (a cone's side
/// reached 8 ε·size off in `f32` with the centre 7·10⁻⁴ inside). Within
/// that angle the normal snaps onto the set of the face or side the
/// offset points through ([`nearest_normal`]); curved points keep it.
/// `None` as well when `a` is not a sphere (the caller then falls back to
/// GJK).
fn project_centre<'s, N: Real>(
    a: &'s dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
) -> Option<(&'s Sphere<N>, CentreProjection<N>)> {
    let any: &dyn std::any::Any = a;
    let sphere = any.downcast_ref::<Sphere<N>>()?;
    let centre = Point3::from(relative_pose(pose_b, pose_a).translation.vector);
    let projection = b.closest_point_local(&centre, false)?;
    let offset = projection.point - centre;
    let distance = geom_core::ray::length_without_overflow(&offset);
    if !(distance.is_finite() && distance > N::zero()) {
        return None;
    }
    // Not `offset / distance`: an offset of subnormal components (a point
    // ellipsoid a hair inside a huge sphere) divides to a non-unit vector;
    // `try_unit` rescales first.
    let towards = try_unit(&offset)?;
    let raw = if projection.is_inside { towards } else { -towards };
    let scale = centre.coords.amax().max(projection.point.coords.amax());
    let noise = (N::default_epsilon() * lit(64.0) * scale / distance).min(lit(1e-3));
    let outward = b
        .support_feature_local(&raw, noise)
        .and_then(|feature| nearest_normal(&feature, &raw))
        .unwrap_or(raw);
    let found = CentreProjection {
        centre,
        on_b: projection.point,
        outward,
        signed: (centre - projection.point).dot(&outward),
    };
    Some((sphere, found))
}

/// Contact of a sphere (`a`) with any convex shape (`b`) from the centre's
/// projection (see the [module documentation](self)): one point, normal
/// from `a` to `b` (against `b`'s outward normal at the projection); depth
/// `r − distance` outside, `r + distance` inside.
/// Registered for the sphere against the cylinder, the cone and the
/// ellipsoid (both orders).
///
/// Errors: as [`convex_contact`], which answers the cases the projection
/// cannot (the centre on the boundary, a shape without a projection).
pub fn contact_sphere_convex<N: Real>(
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    let Some((sphere, found)) = project_centre(a, pose_a, b, pose_b) else {
        return convex_contact(a, pose_a, b, pose_b, margin, out);
    };
    // Outside, the sphere moves against the outward normal to touch;
    // inside, along it to leave.
    let (normal, depth) = (-found.outward, sphere.radius - found.signed);
    if !within_margin(depth, margin) {
        return Ok(());
    }
    let world_normal = pose_b.rotation * normal;
    let manifold = out.push_manifold(world_normal);
    manifold.points.push(ContactPoint {
        point_a: pose_b * (found.centre + normal * sphere.radius),
        point_b: pose_b * found.on_b,
        depth,
        feature_a: FeatureId::Face(0),
        feature_b: FeatureId::Unknown,
    });
    Ok(())
}

/// Closest points of a sphere (`a`) and any convex shape (`b`) within
/// `max_distance`, from the centre's projection: `Intersecting` when the
/// centre is inside `b` or within `r` of it. Registered with
/// [`contact_sphere_convex`].
///
/// Errors: as [`convex_closest_points`], which answers the cases the
/// projection cannot.
pub fn closest_points_sphere_convex<N: Real>(
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> Result<ClosestPoints<N>, GeomError> {
    let Some((sphere, found)) = project_centre(a, pose_a, b, pose_b) else {
        return convex_closest_points(a, pose_a, b, pose_b, max_distance);
    };
    let gap = found.signed - sphere.radius;
    if gap <= N::zero() {
        return Ok(ClosestPoints::Intersecting);
    }
    if !within_distance(gap, max_distance) {
        return Ok(ClosestPoints::Disjoint);
    }
    Ok(ClosestPoints::WithinMargin {
        point_a: pose_b * (found.centre - found.outward * sphere.radius),
        point_b: pose_b * found.on_b,
    })
}
