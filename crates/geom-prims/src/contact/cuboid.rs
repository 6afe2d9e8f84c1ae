//! Round shapes against a box: sphere–box and capsule–box.
//!
//! Both work in the box's frame. Apart, the answer comes from exact closest
//! points (point–box by clamping, Ericson RTCD §5.1.3; segment–box from its
//! candidate pairs); overlapping, a sphere leaves through the nearest face
//! and a capsule's core segment through the shallowest separating axis
//! (box faces and axis × box edges, Ericson RTCD §4.4 / §5.2.1).
//!
//! ```
//! use geom_core::{ClosestPoints, ContactManifolds};
//! use geom_prims::contact::{closest_points_sphere_cuboid, contact_sphere_cuboid};
//! use geom_prims::{Cuboid, Sphere};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A unit ball centred 2.5 above a box of half extents (1, 2, 3): 0.5 into its top face y = 2.
//! let (ball, block, at_origin) = (Sphere::new(1.0), Cuboid::new(Vector3::new(1.0, 2.0, 3.0)), Isometry3::identity());
//! let mut out = ContactManifolds::<f64>::new();
//! contact_sphere_cuboid(&ball, &Isometry3::translation(0.0, 2.5, 0.0), &block, &at_origin, 0.0, &mut out);
//! let (normal, point) = out.points().next().unwrap();
//! assert!((normal + Vector3::y()).norm() < 1e-12 && (point.depth - 0.5).abs() < 1e-12); // down, from ball to box
//! assert!((point.point_a - Point3::new(0.0, 1.5, 0.0)).norm() < 1e-12); // the ball's lowest point
//! assert!((point.point_b - Point3::new(0.0, 2.0, 0.0)).norm() < 1e-12); // on the top face
//! // Centred 4 above, the ball is 1 clear of the face.
//! let apart = closest_points_sphere_cuboid(&ball, &Isometry3::translation(0.0, 4.0, 0.0), &block, &at_origin, 10.0);
//! let ClosestPoints::WithinMargin { point_a, point_b } = apart else { panic!("{apart:?}") };
//! assert!((point_a - Point3::new(0.0, 3.0, 0.0)).norm() < 1e-12 && (point_b - Point3::new(0.0, 2.0, 0.0)).norm() < 1e-12);
//! ```

use geom_core::distance::closest_points_segment_segment;
use geom_core::{ClosestPoints, ContactManifolds, ContactPoint, FeatureId, Ray, Real, Shape, lit};
use nalgebra::{Isometry3, Point3, Vector3};

use super::{capsule_about_first_end, relative_pose, try_unit, within_distance, within_margin};
use crate::cuboid::project_point_cuboid;
use crate::{Capsule, Cuboid, Sphere};

/// The feature of a box whose surface holds `point` (box frame): a vertex
/// where three coordinates are at `±h`, an edge where two are, else the
/// face of the coordinate at its bound nearest to it (see the
/// [module docs](super) for the numbering).
pub(crate) fn cuboid_feature<N: Real>(point: &Point3<N>, half_extents: &Vector3<N>) -> FeatureId {
    let at_bound: [bool; 3] = std::array::from_fn(|k| point[k].abs() >= half_extents[k]);
    let positive = |k: usize| u32::from(point[k] >= N::zero());
    match at_bound.iter().filter(|&&b| b).count() {
        3 => FeatureId::Vertex(positive(0) + 2 * positive(1) + 4 * positive(2)),
        2 => {
            let k = (0..3).find(|&k| !at_bound[k]).unwrap_or(0);
            cuboid_edge(k, positive((k + 1) % 3) == 1, positive((k + 2) % 3) == 1)
        }
        1 => {
            let k = (0..3).find(|&k| at_bound[k]).unwrap_or(0);
            FeatureId::Face(2 * k as u32 + positive(k))
        }
        _ => FeatureId::Unknown,
    }
}

/// The box edge along axis `k` on the given sides of the other two axes
/// (in the order `k+1`, `k+2`).
pub(crate) fn cuboid_edge(k: usize, first_positive: bool, second_positive: bool) -> FeatureId {
    FeatureId::Edge(4 * k as u32 + u32::from(first_positive) + 2 * u32::from(second_positive))
}

/// A capsule's feature at core parameter `t` (`Face(0)` side, `Face(1)`
/// cap at `a`, `Face(2)` cap at `b`).
pub(crate) fn capsule_feature<N: Real>(t: N, has_length: bool) -> FeatureId {
    if !has_length || (t > N::zero() && t < N::one()) {
        FeatureId::Face(0)
    } else if t <= N::zero() {
        FeatureId::Face(1)
    } else {
        FeatureId::Face(2)
    }
}

/// Contact between a sphere (`a`) and a box (`b`).
///
/// Centre outside: the closest box point by clamping (Ericson RTCD §5.1.3),
/// normal from the centre to it, depth `r − distance`. Centre inside or on
/// the box: it leaves through the face with the smallest gap `h_k − |c_k|`
/// (ties: the lowest axis, the `+` side for `c_k = 0`; so a centre at the
/// box's centre exits along the smallest half extent), normal the opposite
/// of that face's outward normal, depth `r + gap`. Features: the sphere's
/// `Face(0)`; the box feature holding the closest point.
pub fn contact_sphere_cuboid<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let center = Point3::from(relative_pose(pose_b, pose_a).translation.vector);
    let h = b.half_extents;
    let world_center = Point3::from(pose_a.translation.vector);
    let outside = centre_outside_box(&world_center, pose_b, &h)
        .and_then(|delta| try_unit(&delta).map(|normal| (normal, delta)));
    if let Some((normal, delta)) = outside {
        // Apart or overlapping by less than the radius: the offset to the
        // closest point, kept to the gap's bits ([`centre_outside_box`]).
        let depth = a.radius - geom_core::ray::length_without_overflow(&delta);
        if !within_margin(depth, margin) {
            return;
        }
        let world_normal = pose_b.rotation * normal;
        let on_box = project_point_cuboid(&center, &h).point;
        let manifold = out.push_manifold(world_normal);
        manifold.points.push(ContactPoint {
            point_a: world_center + world_normal * a.radius,
            point_b: world_center + pose_b.rotation * delta,
            depth,
            feature_a: FeatureId::Face(0),
            feature_b: cuboid_feature(&on_box, &h),
        });
        return;
    }
    // Centre inside or on the box: out through the nearest face.
    let gaps: [N; 3] = std::array::from_fn(|k| h[k] - center[k].abs());
    let axis = (1..3).fold(0, |best, k| if gaps[k] < gaps[best] { k } else { best });
    let side = if center[axis] >= N::zero() {
        N::one()
    } else {
        -N::one()
    };
    let mut on_box = center;
    on_box[axis] = side * h[axis];
    let mut normal = Vector3::zeros();
    normal[axis] = -side;
    let depth = a.radius + gaps[axis].max(N::zero());
    if !within_margin(depth, margin) {
        return;
    }
    let manifold = out.push_manifold(pose_b.rotation * normal);
    manifold.points.push(ContactPoint {
        point_a: pose_b * (center + normal * a.radius),
        point_b: pose_b * on_box,
        depth,
        feature_a: FeatureId::Face(0),
        feature_b: cuboid_feature(&on_box, &h),
    });
}

/// For a sphere centre outside the box: the offset from the centre to its
/// closest box point, in the box's frame; `None` inside or on the box.
///
/// Each coordinate's excess over its slab, `axis_k · (c − t) ∓ h_k`, is
/// computed as if in twice the working precision (the difference kept
/// exactly, then a compensated dot product; Ogita, Rump and Oishi 2005):
/// a small sphere near the face of a box of half extent 5000 keeps the
/// bits of its gap that the box-frame coordinate `5000.3` would round away
/// (ε·5000 in `f32`: 3·10⁻⁴, where the gap itself is exact to ε·0.3).
fn centre_outside_box<N: Real>(
    center: &Point3<N>,
    pose_b: &Isometry3<N>,
    half_extents: &Vector3<N>,
) -> Option<Vector3<N>> {
    let origin = Point3::from(pose_b.translation.vector);
    let pairs = Vector3::from_fn(|i, _| geom_core::exact::two_sum(center[i], -origin[i]));
    let difference = pairs.map(|(d, _)| d);
    let error = pairs.map(|(_, e)| e);
    let rotation = pose_b.rotation.to_rotation_matrix();
    let delta = Vector3::from_fn(|k, _| {
        let axis = rotation.matrix().column(k).into_owned();
        let small = axis.dot(&error);
        // One compensated dot product for both faces of the slab.
        let height = geom_core::exact::DotParts::new(&axis, &difference);
        let above = height.plus(-half_extents[k]) + small;
        let below = height.plus(half_extents[k]) + small;
        if above > N::zero() {
            -above
        } else if below < N::zero() {
            -below
        } else {
            N::zero()
        }
    });
    let finite = delta.iter().all(|c| c.is_finite());
    (finite && delta != Vector3::zeros()).then_some(delta)
}

/// Closest points of a sphere and a box within `max_distance` (clamping,
/// Ericson RTCD §5.1.3); `Intersecting` when the centre is within `r` of
/// the box.
pub fn closest_points_sphere_cuboid<N: Real>(
    a: &Sphere<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let center = Point3::from(pose_a.translation.vector);
    let Some(delta) = centre_outside_box(&center, pose_b, &b.half_extents) else {
        return ClosestPoints::Intersecting;
    };
    let distance = geom_core::ray::length_without_overflow(&delta);
    let gap = distance - a.radius;
    if gap <= N::zero() {
        return ClosestPoints::Intersecting;
    }
    if !within_distance(gap, max_distance) {
        return ClosestPoints::Disjoint;
    }
    // From the world centre, so the points keep the gap's bits too.
    let world_delta = pose_b.rotation * delta;
    ClosestPoints::WithinMargin {
        point_a: center + world_delta * (a.radius / distance),
        point_b: center + world_delta,
    }
}

/// The part `[t_low, t_high]` of segment `p0 + t·d`, `t ∈ [0, 1]`, inside
/// the slabs `|x_k| <= h_k` for the axes in `axes` (Ericson RTCD §5.3.3),
/// or `None` when it is empty.
pub(crate) fn clip_segment_to_slabs<N: Real>(
    p0: &Point3<N>,
    d: &Vector3<N>,
    h: &Vector3<N>,
    axes: &[usize],
) -> Option<(N, N)> {
    let (mut low, mut high) = (N::zero(), N::one());
    for &k in axes {
        if d[k] == N::zero() {
            if p0[k].abs() > h[k] {
                return None;
            }
            continue;
        }
        let t_0 = (-h[k] - p0[k]) / d[k];
        let t_1 = (h[k] - p0[k]) / d[k];
        low = low.max(t_0.min(t_1));
        high = high.min(t_0.max(t_1));
        if low > high {
            return None;
        }
    }
    Some((low, high))
}

/// The closest points of segment `p0 p1` and the box `|x_k| <= h_k`:
/// `(parameter on the segment, segment point, box point)`; the two points
/// coincide when the segment meets the box.
///
/// Apart, the minimum is at a segment end against the box (clamping) or at
/// the segment against one of the 12 edges
/// ([`closest_points_segment_segment`]): a segment point against a face
/// interior can only be closest when the segment is parallel to the face,
/// and then an end or an edge ties with it.
pub fn closest_points_segment_cuboid<N: Real>(
    p0: &Point3<N>,
    p1: &Point3<N>,
    h: &Vector3<N>,
) -> (N, Point3<N>, Point3<N>) {
    let d = p1 - p0;
    if let Some((low, _)) = clip_segment_to_slabs(p0, &d, h, &[0, 1, 2]) {
        let inside = p0 + d * low;
        return (low, inside, inside);
    }
    let clamp = |p: &Point3<N>| Point3::from(Vector3::from_fn(|k, _| p[k].max(-h[k]).min(h[k])));
    let mut best = (N::zero(), *p0, clamp(p0));
    let mut best_squared = (best.2 - p0).norm_squared();
    let on_p1 = clamp(p1);
    let end_squared = (on_p1 - p1).norm_squared();
    if end_squared < best_squared {
        best = (N::one(), *p1, on_p1);
        best_squared = end_squared;
    }
    for k in 0..3 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        for (si, sj) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
            let mut e0 = Point3::origin();
            e0[i] = h[i] * lit(si);
            e0[j] = h[j] * lit(sj);
            let mut e1 = e0;
            e0[k] = -h[k];
            e1[k] = h[k];
            let closest = closest_points_segment_segment(p0, p1, &e0, &e1);
            if closest.distance_squared < best_squared {
                best_squared = closest.distance_squared;
                best = (closest.s, closest.point_on_p, closest.point_on_q);
            }
        }
    }
    best
}

/// Below this sine between a capsule's axis and a box face, a capsule
/// lying on the face reports both ends of its clipped axis.
const FLAT_SINE: f64 = 1e-2;

/// Contact between a capsule (`a`) and a box (`b`), in the box's frame.
///
/// - Apart (core segment off the box): closest points of segment and box
///   ([`closest_points_segment_cuboid`]), normal along them, depth
///   `r − distance`. When the box point is on a face and the axis is
///   within a sine of `1e-2` of that face's plane, the axis is clipped to
///   the face rectangle and both clipped ends are reported (the capsule
///   lying flat gives two points).
/// - Core meeting the box: the separating axis of least penetration among
///   the 3 face normals and the 3 `axis × edge` directions (the least
///   depth is exact; a face axis wins ties within rounding). A face axis clips the core to that face and
///   reports the clipped ends with their own depths (`r` plus the depth
///   below the face): both when the core lies within a sine of `1e-2` of
///   the face, else the deeper one; an edge axis reports the closest points of the core and
///   that box edge with the axis' depth.
/// - A zero-length capsule is a sphere (one point).
///
/// Features: the capsule's `Face(0..3)` (side, caps); box faces, edges or
/// vertices.
pub fn contact_capsule_cuboid<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let (a, pose_a) = &capsule_about_first_end(a, pose_a);
    let relative = relative_pose(pose_b, pose_a);
    let (p0, p1) = (relative * a.a, relative * a.b);
    let h = b.half_extents;
    let r = a.radius;
    let d = p1 - p0;
    let has_length = d != Vector3::zeros();
    let (t, on_segment, on_box) = closest_points_segment_cuboid(&p0, &p1, &h);
    let first = out.len();
    // A core through the box may come out a rounding-sized distance apart,
    // whose direction is noise: that is the separating-axis case.
    let scale = N::one() + p0.coords.amax().max(p1.coords.amax()).max(h.amax());
    let rounding = N::default_epsilon() * lit(64.0) * scale;
    let between = on_box - on_segment;
    let distance = between.norm();
    match try_unit(&between).filter(|_| distance > rounding) {
        Some(normal) => {
            let depth = r - distance;
            if !within_margin(depth, margin) {
                return;
            }
            let deepest = ContactPoint {
                point_a: on_segment + normal * r,
                point_b: on_box,
                depth,
                feature_a: capsule_feature(t, has_length),
                feature_b: cuboid_feature(&on_box, &h),
            };
            let axis = (1..3).fold(0, |best, k| {
                if normal[k].abs() > normal[best].abs() {
                    k
                } else {
                    best
                }
            });
            let on_face = normal[axis].abs() >= N::one() - N::default_epsilon() * lit(16.0);
            let sine = lit::<N>(FLAT_SINE);
            let lying_flat = has_length && d[axis] * d[axis] <= sine * sine * d.norm_squared();
            let manifold = out.push_manifold(normal);
            if !(on_face && lying_flat && push_face_clip(&p0, &d, &h, axis, &normal, r, margin, manifold)) {
                manifold.points.push(deepest);
            }
        }
        None => {
            let Some((normal, depth, edge_axis)) = least_penetration_axis(&p0, &p1, &h, r) else {
                return;
            };
            // Rounding can make a barely separated core look touching.
            if !within_margin(depth, margin) {
                return;
            }
            let manifold = out.push_manifold(normal);
            match edge_axis {
                None => {
                    let axis = (1..3).fold(0, |best, k| {
                        if normal[k].abs() > normal[best].abs() {
                            k
                        } else {
                            best
                        }
                    });
                    if !push_face_clip(&p0, &d, &h, axis, &normal, r, margin, manifold) {
                        // The core pokes through beside the face: its point
                        // farthest along the normal.
                        let (t, end) = if d.dot(&normal) > N::zero() {
                            (N::one(), p1)
                        } else {
                            (N::zero(), p0)
                        };
                        let point_a = end + normal * r;
                        manifold.points.push(ContactPoint {
                            point_a,
                            point_b: point_a - normal * depth,
                            depth,
                            feature_a: capsule_feature(t, has_length),
                            feature_b: FeatureId::Unknown,
                        });
                    }
                }
                Some(k) => {
                    // The box edge along k farthest towards the capsule.
                    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                    let mut e0 = Point3::origin();
                    e0[i] = if normal[i] > N::zero() { -h[i] } else { h[i] };
                    e0[j] = if normal[j] > N::zero() { -h[j] } else { h[j] };
                    let mut e1 = e0;
                    e0[k] = -h[k];
                    e1[k] = h[k];
                    let closest = closest_points_segment_segment(&p0, &p1, &e0, &e1);
                    manifold.points.push(ContactPoint {
                        point_a: closest.point_on_p + normal * r,
                        point_b: closest.point_on_q,
                        depth,
                        feature_a: capsule_feature(closest.s, has_length),
                        feature_b: cuboid_edge(k, e0[i] > N::zero(), e0[j] > N::zero()),
                    });
                }
            }
        }
    }
    to_world(pose_b, out, first);
}

/// Moves the manifolds from index `first` on from `pose`'s frame to world
/// space.
pub(crate) fn to_world<N: Real>(pose: &Isometry3<N>, out: &mut ContactManifolds<N>, first: usize) {
    for manifold in &mut out.as_mut_slice()[first..] {
        manifold.normal = pose.rotation * manifold.normal;
        for point in &mut manifold.points {
            point.point_a = pose * point.point_a;
            point.point_b = pose * point.point_b;
        }
    }
}

/// How far the ray from the core point `on_core` along the unit `normal`
/// runs inside the capsule (core `p0 p1`, radius `r`) before leaving it:
/// `r` unless more of the core lies ahead (a clipped end in the middle of
/// a tilted core), so that `on_core + normal · reach` is a surface point.
pub(crate) fn capsule_exit<N: Real>(
    p0: &Point3<N>,
    p1: &Point3<N>,
    r: N,
    on_core: &Point3<N>,
    normal: &Vector3<N>,
) -> N {
    let capsule = Capsule {
        a: *p0,
        b: *p1,
        radius: r,
    };
    let far = N::max_value().unwrap_or_else(N::one);
    capsule
        .ray_cast_local(&Ray::new(*on_core, *normal), far, false)
        .map_or(r, |hit| hit.t.max(r))
}

/// Clips the core `p0 + t·d` to the box face across `axis` that faces the
/// capsule (outward normal `−normal`), pushing each clipped end with depth
/// `reach − height` above the face ([`capsule_exit`]) when `>= -margin` (both ends only when the
/// core lies within a sine of `1e-2` of the face, else the deeper one).
/// Returns whether any point was pushed.
#[allow(clippy::too_many_arguments)]
fn push_face_clip<N: Real>(
    p0: &Point3<N>,
    d: &Vector3<N>,
    h: &Vector3<N>,
    axis: usize,
    normal: &Vector3<N>,
    r: N,
    margin: N,
    manifold: &mut geom_core::ContactManifold<N>,
) -> bool {
    let others = [(axis + 1) % 3, (axis + 2) % 3];
    let Some((low, high)) = clip_segment_to_slabs(p0, d, h, &others) else {
        return false;
    };
    let side = if normal[axis] > N::zero() {
        -N::one()
    } else {
        N::one()
    };
    let face = FeatureId::Face(2 * axis as u32 + u32::from(side > N::zero()));
    let height_at = |t: N| side * (p0[axis] + d[axis] * t) - h[axis];
    // Both ends only for a core lying flat on the face; otherwise the
    // deeper one (the other's point would sit inside the capsule).
    let sine = lit::<N>(FLAT_SINE);
    let flat = d[axis] * d[axis] <= sine * sine * d.norm_squared();
    let ends = if high > low && flat {
        [Some(low), Some(high)]
    } else if height_at(high) < height_at(low) {
        [Some(high), None]
    } else {
        [Some(low), None]
    };
    let has_length = *d != Vector3::zeros();
    let mut pushed = false;
    for t in ends.into_iter().flatten() {
        let end = p0 + d * t;
        let height = height_at(t);
        let reach = capsule_exit(p0, &(p0 + d), r, &end, normal);
        let depth = reach - height;
        if depth >= -margin {
            let mut on_face = end;
            on_face[axis] = side * h[axis];
            manifold.points.push(ContactPoint {
                point_a: end + normal * reach,
                point_b: on_face,
                depth,
                feature_a: capsule_feature(t, has_length),
                feature_b: face,
            });
            pushed = true;
        }
    }
    pushed
}

/// The separating axis of least penetration of the capsule core `p0 p1`
/// (radius `r`) into the box, among the face normals and `d × e_k`:
/// `(normal from capsule to box, depth, Some(k) for the edge axis along k)`.
fn least_penetration_axis<N: Real>(
    p0: &Point3<N>,
    p1: &Point3<N>,
    h: &Vector3<N>,
    r: N,
) -> Option<(Vector3<N>, N, Option<usize>)> {
    let d = p1 - p0;
    let depth_along = |axis: &Vector3<N>| {
        let box_reach = h.x * axis.x.abs() + h.y * axis.y.abs() + h.z * axis.z.abs();
        let (proj_0, proj_1) = (p0.coords.dot(axis), p1.coords.dot(axis));
        let plus = proj_0.max(proj_1) + r + box_reach;
        let minus = -proj_0.min(proj_1) + r + box_reach;
        if plus <= minus {
            (*axis, plus)
        } else {
            (-axis, minus)
        }
    };
    let mut best: Option<(Vector3<N>, N, Option<usize>)> = None;
    for k in 0..3 {
        let (normal, depth) = depth_along(&Vector3::ith(k, N::one()));
        if best.is_none_or(|(_, best_depth, _)| depth < best_depth) {
            best = Some((normal, depth, None));
        }
    }
    let face_depth = best.map_or(N::zero(), |(_, depth, _)| depth);
    // The least depth is the exact penetration of the segment's and the
    // box's Minkowski sum (a polytope whose normals are these axes); a
    // face wins ties within rounding only.
    let tolerance = N::default_epsilon() * lit(64.0) * (N::one() + h.amax() + r);
    let mut best_edge: Option<(Vector3<N>, N, Option<usize>)> = None;
    for k in 0..3 {
        let cross = d.cross(&Vector3::ith(k, N::one()));
        if cross.norm_squared() <= N::default_epsilon() * d.norm_squared() {
            continue;
        }
        let Some(axis) = try_unit(&cross) else { continue };
        let (normal, depth) = depth_along(&axis);
        if best_edge.is_none_or(|(_, best_depth, _)| depth < best_depth) {
            best_edge = Some((normal, depth, Some(k)));
        }
    }
    match best_edge {
        Some(edge) if edge.1 < face_depth - tolerance => Some(edge),
        _ => best,
    }
}

/// Closest points of a capsule and a box within `max_distance` (segment–box
/// closest points, see [`contact_capsule_cuboid`]); `Intersecting` when
/// the core is within `r` of the box.
pub fn closest_points_capsule_cuboid<N: Real>(
    a: &Capsule<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let (a, pose_a) = &capsule_about_first_end(a, pose_a);
    let relative = relative_pose(pose_b, pose_a);
    let (_, on_segment, on_box) =
        closest_points_segment_cuboid(&(relative * a.a), &(relative * a.b), &b.half_extents);
    let delta = on_box - on_segment;
    let distance = delta.norm();
    let gap = distance - a.radius;
    if gap <= N::zero() {
        return ClosestPoints::Intersecting;
    }
    if !within_distance(gap, max_distance) {
        return ClosestPoints::Disjoint;
    }
    ClosestPoints::WithinMargin {
        point_a: pose_b * (on_segment + delta * (a.radius / distance)),
        point_b: pose_b * on_box,
    }
}
