//! Round pairs: sphere–sphere, sphere–capsule, capsule–capsule, and the
//! segment against each of them and itself.
//!
//! A sphere is a capsule with a zero-length core segment and a segment is
//! a capsule of radius zero, so all six are one computation: the closest points of the two core segments
//! ([`distance::closest_points_segment_segment`], Eberly's robust method), pushed out
//! along the line joining them by each radius (Ericson, *Real-Time
//! Collision Detection* §4.5.1 and §5.1.9).
//!
//! ```
//! use geom_core::ContactManifolds;
//! use geom_prims::contact::{contact_capsule_capsule, contact_sphere_sphere};
//! use geom_prims::{Capsule, Sphere};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // Radii 1 and 0.5, centres 1.25 apart along x: 1 + 0.5 − 1.25 = 0.25 deep.
//! let mut out = ContactManifolds::<f64>::new();
//! contact_sphere_sphere(&Sphere::new(1.0), &Isometry3::identity(), &Sphere::new(0.5), &Isometry3::translation(1.25, 0.0, 0.0), 0.0, &mut out);
//! let (normal, point) = out.points().next().unwrap();
//! assert!((normal - Vector3::x()).norm() < 1e-12 && (point.depth - 0.25).abs() < 1e-12);
//! assert!((point.point_a - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-12 && (point.point_b - Point3::new(0.75, 0.0, 0.0)).norm() < 1e-12);
//! // Crossed capsules of radius 0.5 whose axes (along x and along z) are 0.75 apart in y.
//! let along_x = Capsule::from_points(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), 0.5);
//! let along_z = Capsule::from_points(Point3::new(0.0, 0.0, -1.0), Point3::new(0.0, 0.0, 1.0), 0.5);
//! out.clear();
//! contact_capsule_capsule(&along_x, &Isometry3::identity(), &along_z, &Isometry3::translation(0.0, 0.75, 0.0), 0.0, &mut out);
//! let (normal, point) = out.points().next().unwrap();
//! assert!((normal - Vector3::y()).norm() < 1e-12 && (point.depth - 0.25).abs() < 1e-12);
//! ```

use geom_core::distance::{self, closest_point_on_segment};
use geom_core::{ClosestPoints, ContactManifolds, ContactPoint, FeatureId, Real, lit};
use nalgebra::{Isometry3, Point3, Vector3};

use super::{in_canonical_order, perpendicular, try_unit, within_distance, within_margin};
use crate::{Capsule, Segment, Sphere};

/// Which shape a [`RoundCore`] stands for: it decides the feature ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoundKind {
    Sphere,
    Capsule,
    Segment,
}

/// A rounded shape: the points within `radius` of the segment `p0 p1`
/// (a point for a sphere, radius zero for a segment), kept as the pose's
/// rotation of the local points plus the pose's translation `offset`, so
/// that [`RoundCore::about`] can take an origin off the translation before
/// the two are added (a core far from the world origin keeps the bits of
/// its size).
#[derive(Clone, Copy, Debug)]
struct RoundCore<N: Real> {
    p0: Point3<N>,
    p1: Point3<N>,
    offset: Vector3<N>,
    radius: N,
    kind: RoundKind,
}

impl<N: Real> RoundCore<N> {
    fn sphere(sphere: &Sphere<N>, pose: &Isometry3<N>) -> Self {
        RoundCore {
            p0: Point3::origin(),
            p1: Point3::origin(),
            offset: pose.translation.vector,
            radius: sphere.radius,
            kind: RoundKind::Sphere,
        }
    }

    fn capsule(capsule: &Capsule<N>, pose: &Isometry3<N>) -> Self {
        RoundCore {
            p0: pose.rotation * capsule.a,
            p1: pose.rotation * capsule.b,
            offset: pose.translation.vector,
            radius: capsule.radius,
            kind: RoundKind::Capsule,
        }
    }

    fn segment(segment: &Segment<N>, pose: &Isometry3<N>) -> Self {
        RoundCore {
            p0: pose.rotation * segment.a,
            p1: pose.rotation * segment.b,
            offset: pose.translation.vector,
            radius: N::zero(),
            kind: RoundKind::Segment,
        }
    }

    /// The world position of the core's first point (one rounding).
    fn first_point(&self) -> Vector3<N> {
        self.p0.coords + self.offset
    }

    /// The core in world coordinates less `origin`: the translation less
    /// `origin` first (exact for a core near `origin`, Sterbenz), then the
    /// rotated points.
    fn about(&self, origin: &Vector3<N>) -> Self {
        let offset = self.offset - origin;
        RoundCore {
            p0: self.p0 + offset,
            p1: self.p1 + offset,
            offset: Vector3::zeros(),
            ..*self
        }
    }

    /// The surface feature at core parameter `s`: a sphere's `Face(0)`; a
    /// capsule's side `Face(0)`, or the end caps `Face(1)` (at `a`) and
    /// `Face(2)` (at `b`); a segment's `Edge(0)`, or its ends `Vertex(0)`
    /// (`a`) and `Vertex(1)` (`b`).
    fn feature(&self, s: N) -> FeatureId {
        let at_a = s <= N::zero();
        let at_b = s >= N::one();
        match self.kind {
            RoundKind::Segment if self.p0 == self.p1 || at_a => FeatureId::Vertex(0),
            RoundKind::Segment if at_b => FeatureId::Vertex(1),
            RoundKind::Segment => FeatureId::Edge(0),
            RoundKind::Capsule if self.p0 != self.p1 && at_a => FeatureId::Face(1),
            RoundKind::Capsule if self.p0 != self.p1 && at_b => FeatureId::Face(2),
            _ => FeatureId::Face(0),
        }
    }
}

/// Below this sine of the angle between two capsule axes they count as
/// parallel and report up to three points along their overlap.
const PARALLEL_SINE: f64 = 1e-2;

/// The contact normal from `a` to `b` when the core segments touch
/// (distance zero): the common perpendicular `da × db` oriented from `a`'s
/// core midpoint towards `b`'s, else a fixed perpendicular of whichever
/// segment has a length, else `fallback`.
fn touching_normal<N: Real>(a: &RoundCore<N>, b: &RoundCore<N>, fallback: Vector3<N>) -> Vector3<N> {
    let da = a.p1 - a.p0;
    let db = b.p1 - b.p0;
    if let Some(normal) = try_unit(&da.cross(&db)) {
        let half = lit::<N>(0.5);
        let between = (b.p0 - a.p0) * half + (b.p1 - a.p1) * half;
        return if normal.dot(&between) < N::zero() {
            -normal
        } else {
            normal
        };
    }
    if da != Vector3::zeros() {
        perpendicular(&da, fallback)
    } else {
        perpendicular(&db, fallback)
    }
}

/// The rounding level of a distance between the two cores: 64 ε of their
/// largest coordinate.
fn core_rounding<N: Real>(a: &RoundCore<N>, b: &RoundCore<N>) -> N {
    let largest = [a.p0, a.p1, b.p0, b.p1]
        .iter()
        .fold(N::zero(), |largest, p| largest.max(p.coords.amax()));
    N::default_epsilon() * lit::<N>(64.0) * largest
}

/// How far `a`'s core reaches past `b`'s along `normal` (negative when a
/// gap separates them along it), measured from `a.p0`.
fn core_overlap<N: Real>(a: &RoundCore<N>, b: &RoundCore<N>, normal: &Vector3<N>) -> N {
    let along = |p: &Point3<N>| (p - a.p0).dot(normal);
    along(&a.p1).max(N::zero()) - along(&b.p0).min(along(&b.p1))
}

/// Contacts of two round cores, appended to `out` as one manifold.
///
/// Computed about `a`'s first core point: cores far from the origin (a
/// capsule from world points at 1e5, or posed there) have exact
/// differences there (Sterbenz), so the closest points, the normal and the
/// rounding test see the pair's size rather than its coordinates; the
/// points are moved back at the end, one rounding each.
fn contact_round<N: Real>(
    a: &RoundCore<N>,
    b: &RoundCore<N>,
    fallback: Vector3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let origin = a.first_point();
    contact_round_about_origin(
        &a.about(&origin),
        &b.about(&origin),
        &origin,
        fallback,
        margin,
        out,
    );
}

/// [`contact_round`] on cores about `origin`, whose points are moved back
/// by it as they are made.
fn contact_round_about_origin<N: Real>(
    a: &RoundCore<N>,
    b: &RoundCore<N>,
    origin: &Vector3<N>,
    fallback: Vector3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let closest = distance::closest_points_segment_segment(&a.p0, &a.p1, &b.p0, &b.p1);
    let delta = closest.point_on_q - closest.point_on_p;
    let distance = delta.norm();
    let radii = a.radius + b.radius;
    // `!(x <= y)` also rejects NaN.
    if !within_margin(radii - distance, margin) {
        return;
    }
    let normal = match try_unit(&delta) {
        Some(unit) if distance > core_rounding(a, b) => unit,
        // A distance within the rounding of the coordinates: `delta`'s
        // direction is noise (two crossing segments would get a normal in
        // their common plane). Keep whichever candidate the cores overlap
        // least along.
        Some(unit) => {
            let across = touching_normal(a, b, unit);
            if core_overlap(a, b, &across) < core_overlap(a, b, &unit) {
                across
            } else {
                unit
            }
        }
        None => touching_normal(a, b, fallback),
    };
    let point = |on_a: Point3<N>, s: N, on_b: Point3<N>, t: N| {
        let gap = (on_b - on_a).norm();
        ContactPoint {
            point_a: on_a + normal * a.radius + origin,
            point_b: on_b - normal * b.radius + origin,
            depth: radii - gap,
            feature_a: a.feature(s),
            feature_b: b.feature(t),
        }
    };
    let deepest = point(closest.point_on_p, closest.s, closest.point_on_q, closest.t);
    let manifold = out.push_manifold(normal);

    let da = a.p1 - a.p0;
    let db = b.p1 - b.p0;
    let (length_a, length_b) = (da.norm_squared(), db.norm_squared());
    let sine = lit::<N>(PARALLEL_SINE);
    // Two bare segments have no surface to rest on each other: one pair
    // (the ends of their overlap would not face each other along the
    // normal unless exactly parallel).
    let parallel = radii > N::zero()
        && length_a > N::zero()
        && length_b > N::zero()
        && da.cross(&db).norm_squared() <= sine * sine * length_a * length_b;
    if parallel {
        // b's ends projected on a's core, clipped to it: the overlap.
        let s_0 = (b.p0 - a.p0).dot(&da) / length_a;
        let s_1 = (b.p1 - a.p0).dot(&da) / length_a;
        let low = s_0.min(s_1).max(N::zero());
        let high = s_0.max(s_1).min(N::one());
        if high > low {
            let mut deepest_end = -N::max_value().unwrap_or_else(N::one);
            for s in [low, high] {
                let on_a = a.p0 + da * s;
                let (on_b, t) = closest_point_on_segment(&on_a, &b.p0, &b.p1);
                let end = point(on_a, s, on_b, t);
                deepest_end = deepest_end.max(end.depth);
                if end.depth >= -margin {
                    manifold.points.push(end);
                }
            }
            // Not quite parallel and crossing between the ends: the
            // deepest point is in the middle.
            let tolerance = N::default_epsilon() * lit::<N>(64.0) * (N::one() + radii.abs());
            if deepest.depth > deepest_end + tolerance {
                manifold.points.push(deepest);
            }
            return;
        }
    }
    manifold.points.push(deepest);
}

/// Closest points of two round cores within `max_distance`, computed
/// about `a`'s first core point (as [`contact_round`]).
fn closest_points_round<N: Real>(a: &RoundCore<N>, b: &RoundCore<N>, max_distance: N) -> ClosestPoints<N> {
    let origin = a.first_point();
    match closest_points_round_about_origin(&a.about(&origin), &b.about(&origin), max_distance) {
        ClosestPoints::WithinMargin { point_a, point_b } => ClosestPoints::WithinMargin {
            point_a: point_a + origin,
            point_b: point_b + origin,
        },
        other => other,
    }
}

/// [`closest_points_round`] on cores about the origin.
fn closest_points_round_about_origin<N: Real>(
    a: &RoundCore<N>,
    b: &RoundCore<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let closest = distance::closest_points_segment_segment(&a.p0, &a.p1, &b.p0, &b.p1);
    let delta = closest.point_on_q - closest.point_on_p;
    let distance = delta.norm();
    let gap = distance - a.radius - b.radius;
    if gap <= N::zero() {
        return ClosestPoints::Intersecting;
    }
    if !within_distance(gap, max_distance) {
        return ClosestPoints::Disjoint;
    }
    let normal = delta / distance;
    ClosestPoints::WithinMargin {
        point_a: closest.point_on_p + normal * a.radius,
        point_b: closest.point_on_q - normal * b.radius,
    }
}

/// The `+y` axis of a pose's frame: the documented normal for coincident
/// sphere centres.
fn frame_up<N: Real>(pose: &Isometry3<N>) -> Vector3<N> {
    pose.rotation * Vector3::y()
}

/// Contact between two spheres: normal along the centre line, depth
/// `r_a + r_b − |c_b − c_a|`, points on each surface along the normal
/// (Ericson RTCD §4.3.1). Coincident centres: the normal is `+y` of the
/// canonical first sphere's frame (see the [module docs](super)), so the
/// two orders mirror each other. Features: `Face(0)` on both.
pub fn contact_sphere_sphere<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Sphere<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    // Distinct centres: the centre line gives everything directly, and the
    // two orders mirror each other exactly (`cb − ca = −(ca − cb)` in
    // floating point). Only coincident centres need the canonical order.
    let (center_a, center_b) = (
        Point3::from(pose_a.translation.vector),
        Point3::from(pose_b.translation.vector),
    );
    let delta = center_b - center_a;
    if let Some(normal) = try_unit(&delta) {
        // Not `delta.norm()`: the projection cannot overflow for large offsets.
        let distance = normal.dot(&delta);
        let depth = a.radius + b.radius - distance;
        if within_margin(depth, margin) {
            out.push_manifold(normal).points.push(ContactPoint {
                point_a: center_a + normal * a.radius,
                point_b: center_b - normal * b.radius,
                depth,
                feature_a: FeatureId::Face(0),
                feature_b: FeatureId::Face(0),
            });
        }
        return;
    }
    in_canonical_order(
        a,
        pose_a,
        &[a.radius],
        b,
        pose_b,
        &[b.radius],
        margin,
        out,
        |a, pose_a, b, pose_b, margin, out| {
            let (core_a, core_b) = (RoundCore::sphere(a, pose_a), RoundCore::sphere(b, pose_b));
            contact_round(&core_a, &core_b, frame_up(pose_a), margin, out);
        },
    );
}

/// Contact between a sphere and a capsule: the closest point of the
/// capsule's segment to the centre (Ericson RTCD §5.1.2), then as two
/// spheres. A centre exactly on the segment: the normal is a fixed
/// perpendicular of the capsule's axis (the first vector of
/// [`orthonormal_basis`](crate::orthonormal_basis) of the world axis), or
/// the sphere frame's `+y` for a zero-length capsule. Features: the
/// sphere's `Face(0)`; the capsule's side `Face(0)` or end caps
/// `Face(1)`/`Face(2)`.
pub fn contact_sphere_capsule<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let (core_a, core_b) = (RoundCore::sphere(a, pose_a), RoundCore::capsule(b, pose_b));
    contact_round(&core_a, &core_b, frame_up(pose_a), margin, out);
}

/// Contact between two capsules from the closest points of their segments
/// ([`distance::closest_points_segment_segment`], Eberly's robust method).
///
/// - Axes parallel within a sine of `1e-2` and overlapping along them: up
///   to three points, at both ends of the overlap (b's ends clipped to a's
///   segment, each paired with its closest point on b's segment) and, when
///   deeper than both, the closest pair itself; normal from the closest
///   points.
/// - Segments touching (distance 0): the normal is `da × db` oriented from
///   a's midpoint towards b's; for collinear segments, a fixed
///   perpendicular of a's axis; depth `r_a + r_b`.
/// - Otherwise one point. Zero-length capsules behave as spheres.
pub fn contact_capsule_capsule<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let key = |c: &Capsule<N>| [c.a.x, c.a.y, c.a.z, c.b.x, c.b.y, c.b.z, c.radius];
    in_canonical_order(
        a,
        pose_a,
        &key(a),
        b,
        pose_b,
        &key(b),
        margin,
        out,
        |a, pose_a, b, pose_b, margin, out| {
            let (core_a, core_b) = (RoundCore::capsule(a, pose_a), RoundCore::capsule(b, pose_b));
            contact_round(&core_a, &core_b, frame_up(pose_a), margin, out);
        },
    );
}

/// Closest points of two spheres within `max_distance`: along the centre
/// line; `Intersecting` when they overlap or touch.
pub fn closest_points_sphere_sphere<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Sphere<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    closest_points_round(
        &RoundCore::sphere(a, pose_a),
        &RoundCore::sphere(b, pose_b),
        max_distance,
    )
}

/// Closest points of a sphere and a capsule within `max_distance`
/// (point–segment, Ericson RTCD §5.1.2).
pub fn closest_points_sphere_capsule<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    closest_points_round(
        &RoundCore::sphere(a, pose_a),
        &RoundCore::capsule(b, pose_b),
        max_distance,
    )
}

/// Closest points of two capsules within `max_distance` (segment–segment,
/// Eberly's robust method).
pub fn closest_points_capsule_capsule<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    closest_points_round(
        &RoundCore::capsule(a, pose_a),
        &RoundCore::capsule(b, pose_b),
        max_distance,
    )
}

/// Contact between a sphere and a segment: as a sphere and a capsule of
/// radius zero. Features: the sphere's `Face(0)`; the segment's `Edge(0)`,
/// or `Vertex(0)`/`Vertex(1)` at its ends.
pub fn contact_sphere_segment<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Segment<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let (core_a, core_b) = (RoundCore::sphere(a, pose_a), RoundCore::segment(b, pose_b));
    contact_round(&core_a, &core_b, frame_up(pose_a), margin, out);
}

/// Contact between a capsule and a segment: as two capsules, the second of
/// radius zero (up to three points when nearly parallel). Features as in
/// [`contact_capsule_capsule`] and [`contact_sphere_segment`].
pub fn contact_capsule_segment<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &Segment<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let (core_a, core_b) = (RoundCore::capsule(a, pose_a), RoundCore::segment(b, pose_b));
    contact_round(&core_a, &core_b, frame_up(pose_a), margin, out);
}

/// Contact between two segments from their closest points
/// ([`distance::closest_points_segment_segment`], Eberly's robust method): depth
/// `−distance`, so only within a margin unless they touch; crossing
/// segments touch at depth 0 with the normal `da × db`. One pair, parallel
/// segments included (they have no surface to rest on). Computed in the
/// canonical order of the two inputs, so both orders mirror each other.
pub fn contact_segment_segment<N: Real>(
    a: &Segment<N>,
    pose_a: &Isometry3<N>,
    b: &Segment<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let key = |s: &Segment<N>| [s.a.x, s.a.y, s.a.z, s.b.x, s.b.y, s.b.z];
    in_canonical_order(
        a,
        pose_a,
        &key(a),
        b,
        pose_b,
        &key(b),
        margin,
        out,
        |a, pose_a, b, pose_b, margin, out| {
            let (core_a, core_b) = (RoundCore::segment(a, pose_a), RoundCore::segment(b, pose_b));
            contact_round(&core_a, &core_b, frame_up(pose_a), margin, out);
        },
    );
}

/// Closest points of a sphere and a segment within `max_distance`.
pub fn closest_points_sphere_segment<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Segment<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    closest_points_round(
        &RoundCore::sphere(a, pose_a),
        &RoundCore::segment(b, pose_b),
        max_distance,
    )
}

/// Closest points of a capsule and a segment within `max_distance`.
pub fn closest_points_capsule_segment<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &Segment<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    closest_points_round(
        &RoundCore::capsule(a, pose_a),
        &RoundCore::segment(b, pose_b),
        max_distance,
    )
}

/// Closest points of two posed segments within `max_distance`;
/// `Intersecting` when they touch.
pub fn closest_points_segment_segment<N: Real>(
    a: &Segment<N>,
    pose_a: &Isometry3<N>,
    b: &Segment<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    closest_points_round(
        &RoundCore::segment(a, pose_a),
        &RoundCore::segment(b, pose_b),
        max_distance,
    )
}
