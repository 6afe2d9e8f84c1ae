//! Bounded convex shapes against a half-space `n · x <= d`.
//!
//! Each shape offers a few candidate points, in the half-space's frame:
//! the support point along `−n` (Ericson, *Real-Time Collision Detection*
//! §5.2.3, plane tests by the support function) and, for shapes that can
//! rest on a flat face or line, the other corners of that face or line. A
//! candidate at signed height `h = (n · p − d)/|n|` (compensated dot
//! product) gives depth `−h`; candidates with `−h >= −margin` are kept, the
//! four deepest at most. The normal is `−n̂` (from the shape into the
//! half-space), `point_a` is the candidate, `point_b` its projection on the
//! plane, and the half-space's feature is `Face(0)`.
//!
//! ```
//! use geom_core::ContactManifolds;
//! use geom_prims::contact::contact_cuboid_half_space;
//! use geom_prims::{Cuboid, HalfSpace};
//! use nalgebra::{Isometry3, Vector3};
//!
//! // The ground y ≤ 0 and a cube of half size 1 centred at y = 0.75: its bottom face 0.25 deep.
//! let ground = HalfSpace::new(Vector3::y(), 0.0);
//! let cube = Cuboid::new(Vector3::repeat(1.0));
//! let mut out = ContactManifolds::<f64>::new();
//! contact_cuboid_half_space(&cube, &Isometry3::translation(0.0, 0.75, 0.0), &ground, &Isometry3::identity(), 0.0, &mut out);
//! assert_eq!(out.points().count(), 4); // the four bottom corners
//! for (normal, point) in out.points() {
//!     assert!((normal + Vector3::y()).norm() < 1e-12); // from the cube into the ground
//!     assert!((point.depth - 0.25).abs() < 1e-12 && (point.point_a.y + 0.25).abs() < 1e-12 && point.point_b.y.abs() < 1e-12);
//! }
//! // Held 0.25 above the ground, the corners are kept within a margin of 0.5, at depth -0.25.
//! out.clear();
//! contact_cuboid_half_space(&cube, &Isometry3::translation(0.0, 1.25, 0.0), &ground, &Isometry3::identity(), 0.5, &mut out);
//! assert!(out.points().count() == 4 && out.points().all(|(_, point)| (point.depth + 0.25).abs() < 1e-12));
//! ```

use geom_core::exact::dot_plus_compensated;
use geom_core::pose::rotation_matrix;
use geom_core::{ContactManifolds, ContactPoint, FeatureId, Real, Shape, lit};
use nalgebra::{Isometry3, Point3, Vector3};

use super::{relative_pose, try_unit};
use crate::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, HalfSpace, Segment, Sphere, Triangle};

/// Up to 8 candidate points (half-space frame) with their features.
struct Candidates<N: Real> {
    points: [(Point3<N>, FeatureId); 8],
    len: usize,
}

impl<N: Real> Candidates<N> {
    fn new() -> Self {
        Candidates {
            points: [(Point3::origin(), FeatureId::Unknown); 8],
            len: 0,
        }
    }

    fn push(&mut self, point: Point3<N>, feature: FeatureId) {
        if self.len < self.points.len() {
            self.points[self.len] = (point, feature);
            self.len += 1;
        }
    }
}

/// The signed height of `point` over the plane, in units of length.
fn height<N: Real>(plane: &HalfSpace<N>, point: &Point3<N>) -> N {
    let normal = plane.normal();
    dot_plus_compensated(&normal, &point.coords, -plane.offset()) / normal.norm()
}

/// Appends one manifold with the (at most four) deepest candidates within
/// `margin`, each candidate pushed `inflate` further along `−n̂` first (a
/// sphere's or capsule's radius).
fn push_candidates<N: Real>(
    candidates: &Candidates<N>,
    inflate: N,
    plane: &HalfSpace<N>,
    pose_plane: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let mut heights = [N::zero(); 8];
    for (k, (point, _)) in candidates.points[..candidates.len].iter().enumerate() {
        heights[k] = height(plane, point);
    }
    push_deepest(
        &heights[..candidates.len],
        |k| candidates.points[k],
        inflate,
        plane,
        pose_plane,
        margin,
        out,
    );
}

/// [`push_candidates`] from the candidates' `heights` over the plane, with
/// `candidate(k)` giving the `k`-th point (half-space frame) and feature
/// only for the points kept.
fn push_deepest<N: Real>(
    heights: &[N],
    candidate: impl Fn(usize) -> (Point3<N>, FeatureId),
    inflate: N,
    plane: &HalfSpace<N>,
    pose_plane: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let unit = plane.unit_normal();
    let mut depths = [N::zero(); 8];
    let mut order = [0usize; 8];
    let mut kept = 0;
    for (k, &height) in heights.iter().enumerate().take(8) {
        let depth = inflate - height;
        if depth >= -margin {
            depths[k] = depth;
            order[kept] = k;
            kept += 1;
        }
    }
    if kept == 0 {
        return;
    }
    // Deepest first (stable: ties keep the candidates' order).
    order[..kept].sort_by(|&i, &j| {
        depths[j]
            .partial_cmp(&depths[i])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let world_up = pose_plane.rotation * unit;
    let manifold = out.push_manifold(-world_up);
    for &k in &order[..kept.min(4)] {
        let (point, feature) = candidate(k);
        let point_a = pose_plane * (point - unit * inflate);
        manifold.points.push(ContactPoint {
            point_a,
            point_b: point_a + world_up * depths[k],
            depth: depths[k],
            feature_a: feature,
            feature_b: FeatureId::Face(0),
        });
    }
}

/// Contact between a sphere and a half-space: the centre's height minus
/// the radius. Features: `Face(0)` on both.
pub fn contact_sphere_half_space<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let mut candidates = Candidates::new();
    candidates.push(
        Point3::from(relative_pose(pose_b, pose_a).translation.vector),
        FeatureId::Face(0),
    );
    push_candidates(&candidates, a.radius, b, pose_b, margin, out);
}

/// Contact between a capsule and a half-space: both ends of the core, each
/// inflated by the radius (a capsule lying flat gives two points).
/// Features: the caps `Face(1)` (at `a`) and `Face(2)` (at `b`).
pub fn contact_capsule_half_space<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let relative = relative_pose(pose_b, pose_a);
    let (end_a, end_b) = (relative * a.a, relative * a.b);
    let down = -b.unit_normal();
    let mut candidates = Candidates::new();
    candidates.push(
        lowest_near_end(&end_a, &end_b, a.radius, &down),
        FeatureId::Face(1),
    );
    if a.b != a.a {
        candidates.push(
            lowest_near_end(&end_b, &end_a, a.radius, &down),
            FeatureId::Face(2),
        );
    }
    push_candidates(&candidates, N::zero(), b, pose_b, margin, out);
}

/// The capsule's surface point lowest along the unit `down` near its end
/// `end` (the other end `other`): the end cap's point straight down when
/// the cap faces down, else the side's bottom line at that end (the cap's
/// point would lie inside the capsule, nearer the other end's part).
fn lowest_near_end<N: Real>(end: &Point3<N>, other: &Point3<N>, radius: N, down: &Vector3<N>) -> Point3<N> {
    let along = end - other;
    if along.dot(down) >= N::zero() {
        return end + down * radius;
    }
    let across = down - along * (along.dot(down) / along.norm_squared());
    match try_unit(&across) {
        Some(side) => end + side * radius,
        // Upright, the upper end: every rim point is as low.
        None => end + crate::contact::perpendicular(&along, Vector3::x()) * radius,
    }
}

/// Contact between a box and a half-space: the vertices below `margin`,
/// the four deepest (a box resting flat gives its four bottom corners).
/// Features: the box's `Vertex(0..8)` (see the [module docs](super)).
pub fn contact_cuboid_half_space<N: Real>(
    a: &Cuboid<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let relative = relative_pose(pose_b, pose_a);
    let h = a.half_extents;
    let centre = Point3::from(relative.translation.vector);
    let rotation = rotation_matrix(&relative.rotation);
    // A corner's height is the centre's (compensated: the one long
    // distance) plus the three half extents' signed reaches along the
    // normal, each box-sized: one height, not eight, meets the plane's
    // offset, and no corner is transformed unless it is kept.
    let unit = b.unit_normal();
    let reach = Vector3::from_fn(|k, _| unit.dot(&rotation.column(k)) * h[k]);
    let centre_height = height(b, &centre);
    let sign = |index: usize, k: usize| if index >> k & 1 == 1 { N::one() } else { -N::one() };
    let heights: [N; 8] = std::array::from_fn(|index| {
        centre_height + (reach.x * sign(index, 0) + reach.y * sign(index, 1) + reach.z * sign(index, 2))
    });
    let corner = |index: usize| {
        let local = Vector3::from_fn(|k, _| h[k] * sign(index, k));
        (centre + rotation * local, FeatureId::Vertex(index as u32))
    };
    push_deepest(&heights, corner, N::zero(), b, pose_b, margin, out);
}

/// Below this sine between a disk's axis and the plane normal, a disk
/// counts as lying flat and offers four rim points.
const FLAT_DISK_SINE: f64 = 0.2;

/// Rim points of the disk of `radius` around `center` with unit `axis`
/// (half-space frame): the lowest rim point, and when the disk is nearly
/// flat on the plane (axis within a sine of 0.2 of the normal) three more
/// at quarter turns.
fn push_rim<N: Real>(
    candidates: &mut Candidates<N>,
    center: &Point3<N>,
    axis: &Vector3<N>,
    radius: N,
    plane_unit: &Vector3<N>,
    feature: FeatureId,
) {
    let down = -plane_unit;
    let radial = down - axis * axis.dot(&down);
    let flat = radial.norm() <= lit::<N>(FLAT_DISK_SINE);
    let first = try_unit(&radial).unwrap_or_else(|| crate::orthonormal_basis(axis).0);
    candidates.push(center + first * radius, feature);
    if flat {
        let second = axis.cross(&first);
        for direction in [second, -first, -second] {
            candidates.push(center + direction * radius, feature);
        }
    }
}

/// Contact between a cylinder and a half-space: on each cap, the rim point
/// lowest towards the plane, plus three more rim points when that cap lies
/// flat (axis within a sine of 0.2 of the normal); the four deepest are
/// kept (standing: four on the bottom rim; lying: one per cap, a line).
/// Features: the caps `Face(1)` (at `p0`) and `Face(2)` (at `p1`).
pub fn contact_cylinder_half_space<N: Real>(
    a: &Cylinder<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let relative = relative_pose(pose_b, pose_a);
    let (p0, p1) = (relative * a.p0, relative * a.p1);
    let axis = try_unit(&(p1 - p0)).unwrap_or_else(Vector3::y);
    let unit = b.unit_normal();
    let mut candidates = Candidates::new();
    push_rim(&mut candidates, &p0, &axis, a.radius, &unit, FeatureId::Face(1));
    push_rim(&mut candidates, &p1, &axis, a.radius, &unit, FeatureId::Face(2));
    push_candidates(&candidates, N::zero(), b, pose_b, margin, out);
}

/// Contact between a cone and a half-space: the apex and the base rim's
/// lowest point, plus three more rim points when the base lies flat
/// (axis within a sine of 0.2 of the normal). Features: the apex on the
/// lateral `Face(0)`, rim points on the base `Face(1)`.
pub fn contact_cone_half_space<N: Real>(
    a: &Cone<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let relative = relative_pose(pose_b, pose_a);
    let (apex, base) = (relative * a.apex, relative * a.base);
    let axis = try_unit(&(base - apex)).unwrap_or_else(Vector3::y);
    let mut candidates = Candidates::new();
    candidates.push(apex, FeatureId::Face(0));
    push_rim(
        &mut candidates,
        &base,
        &axis,
        a.radius,
        &b.unit_normal(),
        FeatureId::Face(1),
    );
    push_candidates(&candidates, N::zero(), b, pose_b, margin, out);
}

/// Contact between an ellipsoid and a half-space: its support point along
/// `−n` (one point). Features: `Face(0)` on both.
pub fn contact_ellipsoid_half_space<N: Real>(
    a: &Ellipsoid<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let relative = relative_pose(pose_b, pose_a);
    let down_local = relative.rotation.inverse_transform_vector(&-b.unit_normal());
    let support = a.support_local(&down_local).unwrap_or_else(Point3::origin);
    let mut candidates = Candidates::new();
    candidates.push(relative * support, FeatureId::Face(0));
    push_candidates(&candidates, N::zero(), b, pose_b, margin, out);
}

/// Contact between a triangle and a half-space: its vertices within
/// `margin`. Features: `Vertex(0..3)` for `a, b, c`.
pub fn contact_triangle_half_space<N: Real>(
    a: &Triangle<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let relative = relative_pose(pose_b, pose_a);
    let mut candidates = Candidates::new();
    for (k, vertex) in [a.a, a.b, a.c].into_iter().enumerate() {
        candidates.push(relative * vertex, FeatureId::Vertex(k as u32));
    }
    push_candidates(&candidates, N::zero(), b, pose_b, margin, out);
}

/// Contact between a convex hull and a half-space: the hull's face most
/// aligned with the plane's inward normal (at most
/// [`MAX_FEATURE_POINTS`](geom_core::MAX_FEATURE_POINTS) corners) and its
/// support vertex below it, those within `margin`. Features: `Vertex(k)`
/// for the `k`-th candidate.
pub fn contact_hull_half_space<N: Real>(
    a: &crate::ConvexHull<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    use geom_core::Shape;
    let relative = relative_pose(pose_b, pose_a);
    let down = relative.rotation.inverse() * -b.unit_normal();
    let mut candidates = Candidates::new();
    let (Some(lowest), Some(face)) = (a.support_local(&down), a.support_feature_local(&down, N::one()))
    else {
        return;
    };
    candidates.push(relative * lowest, FeatureId::Vertex(0));
    for (k, corner) in face.points().iter().enumerate().take(7) {
        if *corner != lowest {
            candidates.push(relative * corner, FeatureId::Vertex(k as u32 + 1));
        }
    }
    push_candidates(&candidates, N::zero(), b, pose_b, margin, out);
}

/// Contact between a segment and a half-space: its ends within `margin`.
/// Features: `Vertex(0)` for `a`, `Vertex(1)` for `b`.
pub fn contact_segment_half_space<N: Real>(
    a: &Segment<N>,
    pose_a: &Isometry3<N>,
    b: &HalfSpace<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let relative = relative_pose(pose_b, pose_a);
    let mut candidates = Candidates::new();
    candidates.push(relative * a.a, FeatureId::Vertex(0));
    candidates.push(relative * a.b, FeatureId::Vertex(1));
    push_candidates(&candidates, N::zero(), b, pose_b, margin, out);
}
