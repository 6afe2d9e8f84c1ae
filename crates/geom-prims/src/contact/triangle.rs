//! Sphere, capsule, segment and box against a (two-sided, thin) triangle.
//!
//! Round shapes use the exact closest points of their core and the
//! triangle ([`closest_point_on_triangle`], Ericson, *Real-Time Collision
//! Detection* §5.1.5; [`closest_points_segment_triangle_with_weights`],
//! §5.1.10); a core that meets the triangle leaves along the separating
//! axis of least penetration. The box uses the polytope separating-axis
//! test (triangle normal, 3 box faces, 9 edge crosses) and face clipping.
//!
//! ```
//! use geom_core::ContactManifolds;
//! use geom_prims::contact::{contact_capsule_triangle, contact_sphere_triangle};
//! use geom_prims::{Capsule, Sphere, Triangle};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A floor triangle in z = 0 and a unit ball centred 0.75 above (1, 1, 0): 0.25 deep, straight down.
//! let floor = Triangle::new(Point3::origin(), Point3::new(4.0, 0.0, 0.0), Point3::new(0.0, 4.0, 0.0));
//! let mut out = ContactManifolds::<f64>::new();
//! contact_sphere_triangle(&Sphere::new(1.0), &Isometry3::translation(1.0, 1.0, 0.75), &floor, &Isometry3::identity(), 0.0, &mut out);
//! let (normal, point) = out.points().next().unwrap();
//! assert!((normal + Vector3::z()).norm() < 1e-12 && (point.depth - 0.25).abs() < 1e-12);
//! assert!((point.point_b - Point3::new(1.0, 1.0, 0.0)).norm() < 1e-12);
//! // A capsule of radius 0.5 lying flat over the face, its axis 0.25 up: 0.25 deep at both ends.
//! let capsule = Capsule::from_points(Point3::new(0.5, 1.0, 0.0), Point3::new(2.5, 1.0, 0.0), 0.5);
//! out.clear();
//! contact_capsule_triangle(&capsule, &Isometry3::translation(0.0, 0.0, 0.25), &floor, &Isometry3::identity(), 0.0, &mut out);
//! assert_eq!(out.points().count(), 2);
//! for (normal, point) in out.points() {
//!     assert!((normal + Vector3::z()).norm() < 1e-12 && (point.depth - 0.25).abs() < 1e-12);
//!     assert!((point.point_a.x - 0.5).abs() < 1e-12 || (point.point_a.x - 2.5).abs() < 1e-12); // under an end
//! }
//! ```

use geom_core::distance::{
    self, closest_point_on_triangle, closest_points_segment_segment,
    closest_points_segment_triangle_with_weights,
};
use geom_core::{ClosestPoints, ContactManifolds, ContactPoint, FeatureId, Real, lit};
use nalgebra::{Isometry3, Point3, Vector3};

use super::cuboid::{capsule_exit, capsule_feature, to_world};
use super::polytope::{
    Polytope, PolytopeGap, closest_features, contact_polytopes, exact_polytopes_apart, polytope_gap,
};
use super::{
    about_first_vertex, capsule_about_first_end, perpendicular, relative_pose, try_unit, within_distance,
    within_margin,
};
use crate::{Capsule, Cuboid, Segment, Sphere, Triangle};

/// The triangle feature holding the point with barycentric `weights`
/// (exact zeros outside the face region): `Face(0)`/`Face(1)` for the
/// front/back of the face (`front` says which side the other shape is on),
/// `Edge(k)` from vertex `k` to `k + 1`, `Vertex(k)`.
fn triangle_feature<N: Real>(weights: &Vector3<N>, front: bool) -> FeatureId {
    let zero = N::zero();
    match (weights.x == zero, weights.y == zero, weights.z == zero) {
        (false, false, false) => FeatureId::Face(u32::from(!front)),
        (false, false, true) => FeatureId::Edge(0),
        (true, false, false) => FeatureId::Edge(1),
        (false, true, false) => FeatureId::Edge(2),
        (false, true, true) => FeatureId::Vertex(0),
        (true, false, true) => FeatureId::Vertex(1),
        _ => FeatureId::Vertex(2),
    }
}

/// The normal from a round core touching the triangle (distance zero) when
/// nothing better is known: towards the back (`−n̂`, the core leaves by the
/// front), or for a degenerate triangle a fixed perpendicular of its
/// longest edge, else `fallback`.
fn touching_normal<N: Real>(triangle: &Triangle<N>, fallback: Vector3<N>) -> Vector3<N> {
    let (a, b, c) = (triangle.a, triangle.b, triangle.c);
    if let Some(normal) = try_unit(&(b - a).cross(&(c - a))) {
        return -normal;
    }
    let edges = [b - a, c - b, a - c];
    let longest = edges
        .into_iter()
        .reduce(|x, y| if y.norm_squared() > x.norm_squared() { y } else { x })
        .unwrap_or_else(Vector3::zeros);
    perpendicular(&longest, fallback)
}

/// Contact between a sphere (`a`) and a triangle (`b`), in the triangle's
/// frame: the closest point of the triangle to the centre (Ericson RTCD
/// §5.1.5), normal from the centre to it, depth `r − distance`; over the
/// face the normal is the face's and the depth `r − |height|` (exact
/// where the direction to the projection would carry its rounding). A
/// centre exactly on the triangle leaves by the front: normal `−n̂` with
/// `n = (b − a) × (c − a)`, depth `r` (for a degenerate triangle, a fixed
/// perpendicular of its longest edge, or `+y` of the sphere's frame).
/// Features: the sphere's `Face(0)`; the triangle's face side, edge or
/// vertex.
pub fn contact_sphere_triangle<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let (b, pose_b) = &about_first_vertex(b, pose_b);
    let center = Point3::from(relative_pose(pose_b, pose_a).translation.vector);
    let (on_triangle, weights) = closest_point_on_triangle(&center, &b.a, &b.b, &b.c);
    let delta = on_triangle - center;
    let face_normal = (b.b - b.a).cross(&(b.c - b.a));
    let face_unit = try_unit(&face_normal);
    let in_face = weights.iter().all(|w| *w > N::zero());
    // Over the face the normal is the face's and the depth comes from
    // the centre's height: the direction to the projected point is only
    // as good as the projection's rounding over the height (noise for a
    // centre a hair from the plane).
    let over_face = face_unit.filter(|_| in_face).map(|n| {
        let height = n.dot(&(center - b.a));
        let normal = if height < N::zero() { n } else { -n };
        (normal, a.radius - height.abs())
    });
    let (normal, depth) =
        match over_face.or_else(|| try_unit(&delta).map(|unit| (unit, a.radius - delta.norm()))) {
            Some(answer) => answer,
            None => {
                let fallback = pose_b
                    .rotation
                    .inverse_transform_vector(&(pose_a.rotation * Vector3::y()));
                (touching_normal(b, fallback), a.radius)
            }
        };
    if !within_margin(depth, margin) {
        return;
    }
    let front = face_normal.dot(&normal) <= N::zero();
    let first = out.len();
    out.push_manifold(normal).points.push(ContactPoint {
        point_a: center + normal * a.radius,
        point_b: on_triangle,
        depth,
        feature_a: FeatureId::Face(0),
        feature_b: triangle_feature(&weights, front),
    });
    to_world(pose_b, out, first);
}

/// Below this sine between a capsule's axis and a triangle's plane, a
/// capsule lying on the face reports both ends of its axis clipped to the
/// triangle.
const FLAT_SINE: f64 = 1e-2;

/// The part `[t_low, t_high]` of `p0 + t·d`, `t ∈ [0, 1]`, inside the
/// prism over the triangle (the three planes through its edges
/// perpendicular to it), or `None`.
fn clip_segment_to_prism<N: Real>(
    p0: &Point3<N>,
    d: &Vector3<N>,
    triangle: &Triangle<N>,
    face_normal: &Vector3<N>,
) -> Option<(N, N)> {
    let vertices = [triangle.a, triangle.b, triangle.c];
    let (mut low, mut high) = (N::zero(), N::one());
    for k in 0..3 {
        let (from, to) = (vertices[k], vertices[(k + 1) % 3]);
        let mut inward = face_normal.cross(&(to - from));
        if inward.dot(&(vertices[(k + 2) % 3] - from)) < N::zero() {
            inward = -inward;
        }
        // Inside where inward · (p − from) >= 0.
        let start = inward.dot(&(p0 - from));
        let rate = inward.dot(d);
        if rate == N::zero() {
            if start < N::zero() {
                return None;
            }
            continue;
        }
        let t = -start / rate;
        if rate > N::zero() {
            low = low.max(t);
        } else {
            high = high.min(t);
        }
        if low > high {
            return None;
        }
    }
    Some((low, high))
}

/// Pushes the ends of the capsule core clipped to the triangle's prism,
/// each with depth `reach − height`, its height over the face on the
/// capsule's side and its reach ([`capsule_exit`]), when `>= -margin`
/// (both ends only when the core lies within a sine of `1e-2` of the
/// plane, else the deeper one). Returns whether any was pushed.
#[allow(clippy::too_many_arguments)]
fn push_prism_clip<N: Real>(
    p0: &Point3<N>,
    d: &Vector3<N>,
    triangle: &Triangle<N>,
    face_unit: &Vector3<N>,
    normal: &Vector3<N>,
    r: N,
    margin: N,
    manifold: &mut geom_core::ContactManifold<N>,
) -> bool {
    let Some((low, high)) = clip_segment_to_prism(p0, d, triangle, face_unit) else {
        return false;
    };
    let side = if normal.dot(face_unit) <= N::zero() {
        *face_unit
    } else {
        -face_unit
    };
    let feature_b = FeatureId::Face(u32::from(side != *face_unit));
    let has_length = *d != Vector3::zeros();
    let height_at = |t: N| side.dot(&(p0 + d * t - triangle.a));
    // Both ends only for a core lying flat on the face; otherwise the
    // deeper one (the other's point would sit inside the capsule).
    let sine = lit::<N>(FLAT_SINE);
    let along = d.dot(face_unit);
    let flat = along * along <= sine * sine * d.norm_squared();
    let ends = if high > low && flat {
        [Some(low), Some(high)]
    } else if height_at(high) < height_at(low) {
        [Some(high), None]
    } else {
        [Some(low), None]
    };
    let mut pushed = false;
    for t in ends.into_iter().flatten() {
        let end = p0 + d * t;
        let height = height_at(t);
        let reach = capsule_exit(p0, &(p0 + d), r, &end, &-side);
        let depth = reach - height;
        if depth >= -margin {
            manifold.points.push(ContactPoint {
                point_a: end - side * reach,
                point_b: end - side * height,
                depth,
                feature_a: capsule_feature(t, has_length),
                feature_b,
            });
            pushed = true;
        }
    }
    pushed
}

/// The distance below which a core and a triangle with these points (the
/// triangle's frame) count as touching: 64 ε of their largest coordinate
/// (at least 1). A core through the triangle may come out that far apart,
/// in a direction of rounding only.
fn touching_rounding<N: Real>(points: &[Point3<N>]) -> N {
    let scale = points.iter().fold(N::one(), |size, p| size.max(p.coords.amax()));
    N::default_epsilon() * lit(64.0) * scale
}

/// Contact between a capsule (`a`) and a triangle (`b`), in the triangle's
/// frame.
///
/// - Core apart from the triangle: closest points of segment and triangle
///   ([`closest_points_segment_triangle_with_weights`]), normal along them,
///   depth `r − distance`; when the closest triangle point is inside the
///   face and the axis is within a sine of `1e-2` of the plane, the axis
///   clipped to the triangle's prism gives two points.
/// - Core meeting the triangle: the axis of least penetration among the
///   face normal, `d × e_k`, `e_k × n` and `d × n` (the least depth is
///   exact; the face wins ties within rounding). The face axis clips the core
///   to the prism (both ends with their own depths when lying within a
///   sine of `1e-2` of the plane, else the deeper end); an edge axis reports the
///   closest points of the core and that edge; an in-plane axis the
///   capsule's and the triangle's support points.
///
/// Degenerate triangles fall out of the same closest points; a core
/// touching one with no usable axis leaves along a fixed perpendicular of
/// its longest edge. Features: capsule side/caps; triangle face side,
/// edge or vertex.
pub fn contact_capsule_triangle<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let (b, pose_b) = &about_first_vertex(b, pose_b);
    let (a, pose_a) = &capsule_about_first_end(a, pose_a);
    let relative = relative_pose(pose_b, pose_a);
    let (p0, p1) = (relative * a.a, relative * a.b);
    let d = p1 - p0;
    let r = a.radius;
    let has_length = d != Vector3::zeros();
    let face_unit = try_unit(&(b.b - b.a).cross(&(b.c - b.a)));
    let (closest, known_weights) = closest_points_segment_triangle_with_weights(&p0, &p1, &b.a, &b.b, &b.c);
    let first = out.len();
    let delta = closest.point_on_triangle - closest.point_on_segment;
    // A core through the triangle may come out a rounding-sized distance
    // apart, whose direction is noise: that is the separating-axis case.
    let rounding = touching_rounding(&[p0, p1, b.a, b.b, b.c]);
    let distance = delta.norm();
    match try_unit(&delta).filter(|_| distance > rounding) {
        Some(direction) => {
            let depth = r - distance;
            if !within_margin(depth, margin) {
                return;
            }
            let weights = known_weights
                .unwrap_or_else(|| closest_point_on_triangle(&closest.point_on_segment, &b.a, &b.b, &b.c).1);
            let interior = has_length && closest.s > N::zero() && closest.s < N::one();
            let normal = features_normal(&direction, &d, interior, &weights, b, face_unit);
            let front = face_unit.is_none_or(|n| n.dot(&normal) <= N::zero());
            let deepest = ContactPoint {
                point_a: closest.point_on_segment + normal * r,
                point_b: closest.point_on_triangle,
                depth,
                feature_a: capsule_feature(closest.s, has_length),
                feature_b: triangle_feature(&weights, front),
            };
            let in_face = weights.iter().all(|w| *w != N::zero());
            let sine = lit::<N>(FLAT_SINE);
            let manifold = out.push_manifold(normal);
            let flat = match face_unit {
                Some(n) if in_face && has_length => {
                    let along = d.dot(&n);
                    along * along <= sine * sine * d.norm_squared()
                        && push_prism_clip(&p0, &d, b, &n, &normal, r, margin, manifold)
                }
                _ => false,
            };
            if !flat {
                manifold.points.push(deepest);
            }
        }
        None => {
            let fallback = pose_b
                .rotation
                .inverse_transform_vector(&(pose_a.rotation * Vector3::y()));
            let (normal, depth, axis) = least_penetration_capsule_triangle(&p0, &p1, r, b)
                .unwrap_or_else(|| (touching_normal(b, fallback), r, TriangleAxis::Other));
            // Rounding can make a barely separated core look touching.
            if !within_margin(depth, margin) {
                return;
            }
            let manifold = out.push_manifold(normal);
            let clipped = match (axis, face_unit) {
                (TriangleAxis::Face, Some(n)) => {
                    push_prism_clip(&p0, &d, b, &n, &normal, r, margin, manifold)
                }
                _ => false,
            };
            if !clipped {
                let vertices = [b.a, b.b, b.c];
                let (on_core, s, on_triangle) = match axis {
                    // Touching to rounding: the core's exact closest pair
                    // (a hair apart, its direction noise) is the contact;
                    // the axes' support points need not face each other.
                    _ if depth <= r + rounding => {
                        (closest.point_on_segment, closest.s, closest.point_on_triangle)
                    }
                    TriangleAxis::Edge(k) => {
                        let edge =
                            closest_points_segment_segment(&p0, &p1, &vertices[k], &vertices[(k + 1) % 3]);
                        (edge.point_on_p, edge.s, edge.point_on_q)
                    }
                    _ => {
                        let (s, end) = if d.dot(&normal) > N::zero() {
                            (N::one(), p1)
                        } else {
                            (N::zero(), p0)
                        };
                        let lowest = vertices
                            .into_iter()
                            .reduce(|x, y| {
                                if y.coords.dot(&normal) < x.coords.dot(&normal) {
                                    y
                                } else {
                                    x
                                }
                            })
                            .unwrap_or(b.a);
                        (end, s, lowest)
                    }
                };
                manifold.points.push(ContactPoint {
                    point_a: on_core + normal * r,
                    point_b: on_triangle,
                    depth,
                    feature_a: capsule_feature(s, has_length),
                    feature_b: match axis {
                        TriangleAxis::Edge(k) => FeatureId::Edge(k as u32),
                        _ => FeatureId::Unknown,
                    },
                });
            }
        }
    }
    to_world(pose_b, out, first);
}

/// The exact normal of a core apart from a triangle, from the features its
/// closest pair lies on, turned to the side of `direction` (the pair's own
/// direction, whose rounding is `ε·size/distance` radians: a core a hair
/// from an edge would tilt the normal enough for the edge's far end to
/// stick out): perpendicular to both the core and the edge when both
/// points are interior, to the edge alone from a core end, to the core
/// alone to a vertex, the face's normal over the face; the pair's
/// direction from an end to a vertex.
fn features_normal<N: Real>(
    direction: &Vector3<N>,
    d: &Vector3<N>,
    core_interior: bool,
    weights: &Vector3<N>,
    triangle: &Triangle<N>,
    face_unit: Option<Vector3<N>>,
) -> Vector3<N> {
    let zero = N::zero();
    let vertices = [triangle.a, triangle.b, triangle.c];
    let across = |v: &Vector3<N>, axis: &Vector3<N>| v - axis * (v.dot(axis) / axis.norm_squared());
    let exact = match (weights.x == zero, weights.y == zero, weights.z == zero) {
        (false, false, false) => face_unit,
        (zero_x, zero_y, zero_z) if [zero_x, zero_y, zero_z].iter().filter(|z| **z).count() == 1 => {
            // On the edge opposite the vertex with weight zero: from
            // vertex k to k + 1 where the zero weight is vertex k + 2.
            let k = if zero_z {
                0
            } else if zero_x {
                1
            } else {
                2
            };
            let edge = vertices[(k + 1) % 3] - vertices[k];
            if core_interior {
                try_unit(&d.cross(&edge))
            } else {
                try_unit(&across(direction, &edge))
            }
        }
        _ if core_interior => try_unit(&across(direction, d)),
        _ => None,
    };
    match exact {
        Some(n) if n.dot(direction) < N::zero() => -n,
        Some(n) => n,
        None => *direction,
    }
}

/// Which separating axis won for a capsule core meeting a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TriangleAxis {
    Face,
    Edge(usize),
    Other,
}

/// The axis of least penetration of the capsule (core `p0 p1`, radius `r`)
/// into the triangle: `(normal from capsule to triangle, depth, axis)`.
fn least_penetration_capsule_triangle<N: Real>(
    p0: &Point3<N>,
    p1: &Point3<N>,
    r: N,
    triangle: &Triangle<N>,
) -> Option<(Vector3<N>, N, TriangleAxis)> {
    let vertices = [triangle.a, triangle.b, triangle.c];
    let d = p1 - p0;
    let depth_along = |axis: &Vector3<N>| {
        // Relative to vertex a, so far-away triangles keep their bits.
        let (proj_0, proj_1) = ((p0 - vertices[0]).dot(axis), (p1 - vertices[0]).dot(axis));
        let (tri_low, tri_high) = vertices.iter().fold((N::zero(), N::zero()), |(lo, hi), v| {
            let x = (v - vertices[0]).dot(axis);
            (lo.min(x), hi.max(x))
        });
        let plus = proj_0.max(proj_1) + r - tri_low;
        let minus = tri_high - (proj_0.min(proj_1) - r);
        if plus <= minus {
            (*axis, plus)
        } else {
            (-axis, minus)
        }
    };
    let face = try_unit(&(vertices[1] - vertices[0]).cross(&(vertices[2] - vertices[0])));
    let mut best_face = face.map(|n| {
        let (normal, depth) = depth_along(&n);
        (normal, depth, TriangleAxis::Face)
    });
    let mut best_other: Option<(Vector3<N>, N, TriangleAxis)> = None;
    let mut consider = |axis: Vector3<N>, kind: TriangleAxis| {
        if let Some(unit) = try_unit(&axis)
            && axis.norm_squared() > lit::<N>(1e-12) * d.norm_squared().max(N::one()) * unit.norm_squared()
        {
            let (normal, depth) = depth_along(&unit);
            if best_other.is_none_or(|(_, best, _)| depth < best) {
                best_other = Some((normal, depth, kind));
            }
        }
    };
    for k in 0..3 {
        let edge = vertices[(k + 1) % 3] - vertices[k];
        consider(d.cross(&edge), TriangleAxis::Edge(k));
    }
    let scale = N::one()
        + r
        + vertices
            .iter()
            .map(|v| (v - vertices[0]).amax())
            .fold(N::zero(), N::max);
    // A tie is within the rounding of the two depths themselves, a few ε
    // of the coordinates (64 ε handed a large triangle's face the answer
    // over an edge axis 8·10⁻⁵ shallower, in f32).
    let tie = N::default_epsilon() * lit(8.0) * scale;
    match (best_face.take(), best_other) {
        (Some(face), Some(other)) => Some(if other.1 < face.1 - tie { other } else { face }),
        (face, other) => face.or(other),
    }
}

/// Contact between a box (`a`) and a triangle (`b`), in the box's frame:
/// the separating-axis test over the triangle normal, the 3 box face
/// normals and the 9 edge × edge directions (the least depth is exact;
/// ties within rounding prefer the box's faces, then the triangle's), then the
/// incident face clipped against the reference face (up to four points),
/// or the closest points of two edges. A degenerate triangle has no face
/// axis. Features: box faces/edges; triangle `Face(0)`/`Face(1)` (front,
/// back) or `Edge(k)`.
pub fn contact_cuboid_triangle<N: Real>(
    a: &Cuboid<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let (b, pose_b) = &about_first_vertex(b, pose_b);
    let relative = relative_pose(pose_a, pose_b);
    let box_a = Polytope::cuboid(&a.half_extents, &Isometry3::identity());
    let triangle = Polytope::triangle(&(relative * b.a), &(relative * b.b), &(relative * b.c));
    let first = out.len();
    let manifold = out.push_manifold(Vector3::zeros());
    match contact_polytopes(&box_a, &triangle, margin, manifold) {
        Some(exact) => {
            if !exact {
                exact_polytopes_apart(&box_a, &triangle, margin, out, first);
            }
            to_world(pose_a, out, first);
        }
        None => out.truncate(first),
    }
}

/// Closest points of a box (`a`) and a triangle (`b`) within
/// `max_distance`, computed as [`contact_cuboid_triangle`] is (and in its
/// frame): `Intersecting` when no axis separates them, `Disjoint` when one
/// separates them by more than `max_distance`; apart, the pair certified
/// by the separating axis (a corner over the other's face and its foot,
/// or two edges' interior closest points), else the closest features'
/// pair.
pub fn closest_points_cuboid_triangle<N: Real>(
    a: &Cuboid<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let (b, pose_b) = &about_first_vertex(b, pose_b);
    let relative = relative_pose(pose_a, pose_b);
    let box_a = Polytope::cuboid(&a.half_extents, &Isometry3::identity());
    let triangle = Polytope::triangle(&(relative * b.a), &(relative * b.b), &(relative * b.c));
    match polytope_gap(&box_a, &triangle, max_distance) {
        PolytopeGap::Beyond => ClosestPoints::Disjoint,
        PolytopeGap::Touching => ClosestPoints::Intersecting,
        PolytopeGap::Apart(Some((on_a, on_b))) => ClosestPoints::WithinMargin {
            point_a: pose_a * on_a,
            point_b: pose_a * on_b,
        },
        // The axis gap is only a lower bound: the distance by features.
        PolytopeGap::Apart(None) => match closest_features(&box_a, &triangle) {
            Some(closest) if within_distance(closest.gap, max_distance) => ClosestPoints::WithinMargin {
                point_a: pose_a * closest.point_a,
                point_b: pose_a * closest.point_b,
            },
            Some(_) => ClosestPoints::Disjoint,
            // Touching to rounding.
            None => ClosestPoints::Intersecting,
        },
    }
}

/// Closest points of a round core (segment `p0 p1` of `pose_core`'s frame,
/// dilated by `radius`) and a triangle within `max_distance`: the exact
/// segment–triangle kernel ([`distance::closest_points_segment_triangle`], Ericson
/// RTCD §5.1.10) in the triangle's frame, the core's point pushed out by
/// the radius towards the triangle's. `Intersecting` when the gap is not
/// positive or the core touches the triangle to rounding
/// ([`touching_rounding`], as the contact routines decide it).
fn closest_points_core_triangle<N: Real>(
    (p0, p1, radius): (Point3<N>, Point3<N>, N),
    pose_core: &Isometry3<N>,
    triangle: &Triangle<N>,
    pose_triangle: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let (triangle, pose_triangle) = &about_first_vertex(triangle, pose_triangle);
    // The core about its first point too, when given far from its origin
    // (see `capsule_about_first_end`).
    let core = Capsule { a: p0, b: p1, radius };
    let (core, pose_core) = &capsule_about_first_end(&core, pose_core);
    let (p0, p1) = (core.a, core.b);
    let to_triangle = relative_pose(pose_triangle, pose_core);
    let (q0, q1) = (to_triangle * p0, to_triangle * p1);
    let closest = distance::closest_points_segment_triangle(&q0, &q1, &triangle.a, &triangle.b, &triangle.c);
    let delta = closest.point_on_triangle - closest.point_on_segment;
    let distance = geom_core::ray::length_without_overflow(&delta);
    let gap = distance - radius;
    if gap <= N::zero() || distance <= touching_rounding(&[q0, q1, triangle.a, triangle.b, triangle.c]) {
        return ClosestPoints::Intersecting;
    }
    if !within_distance(gap, max_distance) {
        return ClosestPoints::Disjoint;
    }
    ClosestPoints::WithinMargin {
        point_a: pose_triangle * (closest.point_on_segment + delta * (radius / distance)),
        point_b: pose_triangle * closest.point_on_triangle,
    }
}

/// Closest points of a sphere and a triangle within `max_distance`: the
/// centre's closest point on the triangle (Ericson RTCD §5.1.5), exact;
/// `Intersecting` when the centre is within the radius.
pub fn closest_points_sphere_triangle<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let centre = Point3::origin();
    closest_points_core_triangle((centre, centre, a.radius), pose_a, b, pose_b, max_distance)
}

/// Closest points of a capsule and a triangle within `max_distance`: the
/// exact closest points of its core segment and the triangle (Ericson
/// RTCD §5.1.10); `Intersecting` when the core comes within the radius.
pub fn closest_points_capsule_triangle<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    closest_points_core_triangle((a.a, a.b, a.radius), pose_a, b, pose_b, max_distance)
}

/// Closest points of a segment and a triangle within `max_distance` (the
/// exact kernel, Ericson RTCD §5.1.10); `Intersecting` when they touch.
pub fn closest_points_segment_triangle<N: Real>(
    a: &Segment<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    closest_points_core_triangle((a.a, a.b, N::zero()), pose_a, b, pose_b, max_distance)
}

/// Contact between a segment and a triangle: as a capsule of radius zero
/// ([`contact_capsule_triangle`]: the exact closest points apart, the
/// least-penetration axis through the triangle). Features: the segment's
/// ends `Vertex(0)`/`Vertex(1)` and its interior `Edge(0)`; the
/// triangle's as for the capsule.
pub fn contact_segment_triangle<N: Real>(
    a: &Segment<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let core = Capsule {
        a: a.a,
        b: a.b,
        radius: N::zero(),
    };
    let first = out.len();
    contact_capsule_triangle(&core, pose_a, b, pose_b, margin, out);
    for manifold in &mut out.as_mut_slice()[first..] {
        for point in &mut manifold.points {
            point.feature_a = match point.feature_a {
                _ if a.a == a.b => FeatureId::Vertex(0),
                FeatureId::Face(1) => FeatureId::Vertex(0),
                FeatureId::Face(2) => FeatureId::Vertex(1),
                _ => FeatureId::Edge(0),
            };
        }
    }
}
