//! One candidate contact per triangle near a swept-sphere segment.

use geom_core::distance::{
    closest_point_on_triangle_branching, closest_points_segment_triangle_with_weights,
};
use geom_core::{ContactCandidate, ContactPoint, FeatureId, Real};
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

use super::reach::SegmentReach;
use crate::surface::{Around, Located, Location, TriangleSurface};

/// Which part of a triangle holds a closest point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    Face,
    /// Edge `k`, from vertex `k` to vertex `k+1`.
    Edge(usize),
    Vertex(usize),
}

/// The region from barycentric weights of the closest point, weights with
/// `|w| <= tolerance` counting as zero. The point–triangle routine returns
/// exact zeros outside the face region (tolerance 0); contacts from GJK/EPA
/// land on an edge only up to rounding (a small tolerance).
pub(crate) fn region_of<N: Real>(weights: &Vector3<N>, tolerance: N) -> Region {
    let zero = [weights.x, weights.y, weights.z].map(|w| w.abs() <= tolerance);
    match zero {
        [false, false, false] => Region::Face,
        [false, false, true] => Region::Edge(0),
        [true, false, false] => Region::Edge(1),
        [false, true, false] => Region::Edge(2),
        [false, true, true] => Region::Vertex(0),
        [true, false, true] => Region::Vertex(1),
        _ => Region::Vertex(2),
    }
}

/// How many triangles a contact keeps near its segment for its lookups
/// ([`Around`]); with more, every lookup searches the surface.
const AROUND_CAPACITY: usize = 256;

/// Pushes one candidate per triangle within `radius + margin` of segment
/// `p0 p1` (surface-local), normals from the surface outwards, in the
/// order the surface visits them.
///
/// With `keep_around` (a surface that
/// [looks around](TriangleSurface::LOOKS_AROUND), a mesh), the triangles
/// near the segment are kept first, then each one's candidate made: the
/// lookups of every candidate (where a segment point is, whether the
/// surface passes through a foot) then search those few triangles rather
/// than the whole surface. The candidates are the same either way.
pub(crate) fn collect_candidates<N: Real, S: TriangleSurface<N>>(
    surface: &S,
    p0: &Point3<N>,
    p1: &Point3<N>,
    radius: N,
    margin: N,
    keep_around: bool,
    out: &mut Vec<ContactCandidate<N>>,
) {
    let reach = radius + margin;
    let search = geom_core::Aabb::new(p0.inf(p1), p0.sup(p1)).loosened(reach);
    let extent = surface.local_extent();
    let reach_test = SegmentReach::new(
        p0,
        p1,
        reach,
        extent.mins.coords.amax().max(extent.maxs.coords.amax()),
    );
    let mut locations = LocationCache::new();
    let nowhere = Around::nowhere();
    let mut push_candidate =
        |id: u32, near: S::Near, triangle: &Triangle<N>, around: &Around<'_, N, S::Near>| {
            if let Some(candidate) = triangle_candidate(
                surface,
                id,
                near,
                triangle,
                p0,
                p1,
                radius,
                reach,
                &mut locations,
                around,
            ) {
                out.push(candidate);
            }
        };
    if !keep_around {
        surface.visit_triangles(&search, |id, triangle, near| {
            if !reach_test.beyond(triangle) {
                push_candidate(id, near, triangle, &nowhere);
            }
        });
        return;
    }
    let mut kept = [(0, S::Near::default()); AROUND_CAPACITY];
    let mut len = 0;
    let mut overflowed = false;
    surface.visit_triangles(&search, |id, triangle, near| {
        if reach_test.beyond(triangle) {
            return;
        }
        if len < AROUND_CAPACITY {
            kept[len] = (id, near);
            len += 1;
            return;
        }
        if !overflowed {
            // Too many to keep: the kept ones' candidates now, their
            // lookups searching the surface, in the order visited.
            overflowed = true;
            for &(id, near) in &kept[..len] {
                push_candidate(id, near, &surface.triangle_at(id, near), &nowhere);
            }
        }
        push_candidate(id, near, triangle, &nowhere);
    });
    if !overflowed {
        let around = Around {
            triangles: &kept[..len],
            radius: reach_test.keeps_within(),
        };
        for &(id, near) in around.triangles {
            push_candidate(id, near, &surface.triangle_at(id, near), &around);
        }
    }
}

/// A swept sphere whose segment ends are in the solid beyond the reach of
/// every triangle (sunk deeper than its radius and the margin): each end
/// inside is pushed out the way [`TriangleSurface::escape`] names, by its
/// depth plus the radius.
pub(crate) fn push_sunk_ends<N: Real, S: TriangleSurface<N>>(
    surface: &S,
    p0: &Point3<N>,
    p1: &Point3<N>,
    radius: N,
    out: &mut Vec<ContactCandidate<N>>,
) {
    let ends: &[Point3<N>] = if p0 == p1 { &[*p0] } else { &[*p0, *p1] };
    for end in ends {
        let near = surface.near_point(end);
        let unlimited = nalgebra::convert::<f64, N>(f64::INFINITY);
        if !matches!(surface.locate(end, near, unlimited), Location::Inside(_)) {
            continue;
        }
        let Some((exit, normal)) = surface.escape(end, near) else {
            continue;
        };
        let depth = normal.dot(&(exit - end)) + radius;
        out.push(ContactCandidate {
            normal,
            point: ContactPoint {
                point_a: end - normal * radius + normal * depth,
                point_b: end - normal * radius,
                depth,
                feature_a: FeatureId::Unknown,
                feature_b: FeatureId::Face(0),
            },
        });
    }
}

/// The last answers of [`TriangleSurface::locate`] ([`LOCATIONS_KEPT`]):
/// most triangles' closest segment point is one of the segment's ends, so
/// the same point is asked again and again, between others.
struct LocationCache<N: Real> {
    entries: [Option<(Point3<N>, Located<N>)>; LOCATIONS_KEPT],
    next: usize,
}

/// The answers a [`LocationCache`] keeps.
const LOCATIONS_KEPT: usize = 8;

impl<N: Real> LocationCache<N> {
    fn new() -> Self {
        LocationCache {
            entries: [None; LOCATIONS_KEPT],
            next: 0,
        }
    }

    /// Where `point` is, looked up from `near`; `within` bounds its
    /// distance to the surface ([`TriangleSurface::locate`]).
    /// Also the point's distance to the surface, when the lookup measured
    /// it ([`TriangleSurface::locate_measured`]).
    fn locate<S: TriangleSurface<N>>(
        &mut self,
        surface: &S,
        point: &Point3<N>,
        near: S::Near,
        within: N,
        around: &Around<'_, N, S::Near>,
    ) -> Located<N> {
        if let Some(&(_, located)) = self.entries.iter().flatten().find(|(p, _)| p == point) {
            return located;
        }
        let located = surface.locate_around(point, near, within, around);
        self.entries[self.next] = Some((*point, located));
        self.next = (self.next + 1) % LOCATIONS_KEPT;
        located
    }
}

#[allow(clippy::too_many_arguments)]
fn triangle_candidate<N: Real, S: TriangleSurface<N>>(
    surface: &S,
    id: u32,
    near: S::Near,
    triangle: &Triangle<N>,
    p0: &Point3<N>,
    p1: &Point3<N>,
    radius: N,
    reach: N,
    locations: &mut LocationCache<N>,
    around: &Around<'_, N, S::Near>,
) -> Option<ContactCandidate<N>> {
    let (a, b, c) = (&triangle.a, &triangle.b, &triangle.c);
    let (closest, known_weights) = closest_points_segment_triangle_with_weights(p0, p1, a, b, c);
    if closest.distance_squared > reach * reach {
        return None;
    }
    let face_normal = surface.face_normal(id, triangle);
    let on_segment = closest.point_on_segment;
    // The projection of `on_segment`, reused when the segment–triangle
    // routine made it (the same call on the same point).
    let (on_triangle, weights) = match known_weights {
        Some(weights) => (closest.point_on_triangle, weights),
        None => closest_point_on_triangle_branching(&on_segment, a, b, c),
    };
    let offset = on_segment - on_triangle;
    let distance = offset.norm();
    let scale = N::one() + (on_segment - a).amax() + (b - a).amax() + (c - a).amax();
    let touching = distance <= N::default_epsilon() * nalgebra::convert::<f64, N>(64.0) * scale;
    if touching {
        return Some(crossing_candidate(
            surface,
            id,
            triangle,
            &face_normal,
            p0,
            p1,
            radius,
        ));
    }
    let region = region_of(&weights, N::zero());
    // Below a heightfield's surface, inside a closed mesh, is solid: a
    // segment point there (a capsule sunk deeper than its radius, not
    // crossing this triangle) is pushed out the other way, and deeper.
    // A point on the surface to rounding (a capsule sunk by exactly its
    // radius) is not inside: its contact is the face's.
    let (location, surface_distance) = locations.locate(surface, &on_segment, near, distance, around);
    let slack = N::default_epsilon() * nalgebra::convert::<f64, N>(64.0) * scale;
    let inside = matches!(location, Location::Inside(depth) if depth > slack);
    // Inside, a surface strictly nearer than this triangle (the depth is
    // the distance to the nearest surface point; a heightfield's vertical
    // depth only overstates it): that surface is the nearer way out and
    // its triangle, within reach too, reports it. Measuring to an
    // inactive edge or vertex here instead would make a deeper contact
    // than the true one, and across a nearly flat edge (coplanar up to
    // the vertices' rounding) a jump between nearby inputs. Under a
    // valley edge the edge is the nearest surface: kept.
    let nearer_surface_elsewhere = matches!(location, Location::Inside(depth) if depth < distance - slack);
    // Scaled first where `|offset|²` overflows or underflows.
    let unit_offset = geom_prims::contact::try_unit(&offset).unwrap_or(face_normal);
    let direction = if inside { -unit_offset } else { unit_offset };
    let signed_distance = if inside { -distance } else { distance };
    // Past an inactive edge or vertex, the contact is measured along the
    // face normal to the face's plane when the foot of that perpendicular
    // lies on the terrain's surface (flat ground on the other side, up to
    // rounding): the same depth on both sides of a flat internal edge. The
    // foot is a surface point, so the depth never exceeds the true one.
    // Elsewhere (a bend, a drop, a hole) the true distance is kept.
    // On a two-sided surface (an open mesh) the side the segment point is
    // on (by the pseudo-normal of the surface's nearest feature to it) is
    // the front.
    let behind = location == Location::Behind;
    let front_normal = if behind { -face_normal } else { face_normal };
    // Past an inactive edge or vertex where the plane does not continue
    // as the surface: the face's normal, unless the segment point lies
    // behind the face's plane outside the solid (in a crease beyond a
    // convex bend), where only the true direction points away from the
    // triangle.
    let face_or_direction = if !inside && front_normal.dot(&offset) < N::zero() {
        direction
    } else {
        front_normal
    };
    let along_face = |feature: FeatureId| {
        let height = front_normal.dot(&(on_segment - a));
        let foot = on_segment - front_normal * height;
        let same_side = if inside {
            height <= N::zero()
        } else {
            height >= N::zero()
        };
        // Ground through the foot is within `|height|` and the tolerance
        // of the segment point: a surface measured farther (beyond the
        // rounding of both) has none there, without the search. Above a
        // convex bend, where the plane runs over the surface, most feet
        // are ruled out so.
        let tolerance = crate::surface::surface_tolerance(scale, foot.coords.amax());
        let margin = nalgebra::convert::<f64, N>(8.0) * N::default_epsilon() * height.abs();
        let ground_too_far =
            surface_distance.is_some_and(|d| d > height.abs() + tolerance + tolerance + margin);
        if !same_side
            || ground_too_far
            || !surface.surface_through_around(&foot, near, scale, height.abs(), around)
        {
            return None;
        }
        Some(ContactCandidate {
            normal: front_normal,
            point: ContactPoint {
                point_a: foot,
                point_b: on_segment - front_normal * radius,
                depth: radius - height,
                feature_a: feature,
                feature_b: FeatureId::Face(0),
            },
        })
    };
    let (normal, feature) = match region {
        Region::Face => {
            // Inside, the signed height over the plane (negative) makes the
            // depth exceed the radius. Outside but under the plane (below
            // the rim, past a boundary or over a hole) the segment is pushed
            // down, away from the face.
            let height = face_normal.dot(&offset);
            let (normal, depth) = if inside {
                (face_normal, radius - height)
            } else if height >= N::zero() {
                (face_normal, radius - distance)
            } else {
                (-face_normal, radius - distance)
            };
            return Some(ContactCandidate {
                normal,
                point: ContactPoint {
                    point_a: on_triangle,
                    point_b: on_segment - normal * radius,
                    depth,
                    feature_a: FeatureId::Face(id),
                    feature_b: FeatureId::Face(0),
                },
            });
        }
        Region::Edge(k) => {
            let feature = FeatureId::Edge(3 * id + k as u32);
            if !surface.is_edge_active(id, k) {
                if let Some(candidate) = along_face(feature) {
                    return Some(candidate);
                }
                if nearer_surface_elsewhere {
                    return None;
                }
                (face_or_direction, feature)
            } else {
                if !inside && let Some(far) = surface.neighbor_far_vertex(id, k, near) {
                    // The direction points into the neighbour's face region:
                    // the neighbour reports this contact, with its own face.
                    let (ea, eb) = (triangle_vertex(triangle, k), triangle_vertex(triangle, k + 1));
                    let edge = eb - ea;
                    let into_neighbor = (far - ea) - edge * ((far - ea).dot(&edge) / edge.norm_squared());
                    if direction.dot(&into_neighbor) > N::default_epsilon() * into_neighbor.norm() {
                        return None;
                    }
                }
                (direction, feature)
            }
        }
        Region::Vertex(k) => {
            let (feature, active) = surface.vertex_feature(id, k, near);
            if active {
                if !inside && !surface.in_vertex_normal_cone(id, k, near, &direction) {
                    // Not this vertex's: a neighbouring face or edge is
                    // nearer along `direction` and reports the contact.
                    return None;
                }
                (direction, feature)
            } else if let Some(candidate) = along_face(feature) {
                return Some(candidate);
            } else if nearer_surface_elsewhere {
                return None;
            } else {
                (face_or_direction, feature)
            }
        }
    };
    Some(ContactCandidate {
        normal,
        point: ContactPoint {
            point_a: on_triangle,
            point_b: on_segment - normal * radius,
            depth: radius - signed_distance,
            feature_a: feature,
            feature_b: FeatureId::Face(0),
        },
    })
}

fn triangle_vertex<N: Real>(triangle: &Triangle<N>, k: usize) -> Point3<N> {
    match k % 3 {
        0 => triangle.a,
        1 => triangle.b,
        _ => triangle.c,
    }
}

/// The segment touches or crosses the triangle: the separating axis with
/// the least overlap among the face normal and `segment × edge` for the
/// active edges (axes oriented up and out of the triangle), as PhysX does.
/// Along an axis `L` the capsule must move `max_triangle(L·v) −
/// min_segment(L·p) + radius`.
fn crossing_candidate<N: Real, S: TriangleSurface<N>>(
    surface: &S,
    id: u32,
    triangle: &Triangle<N>,
    face_normal: &Vector3<N>,
    p0: &Point3<N>,
    p1: &Point3<N>,
    radius: N,
) -> ContactCandidate<N> {
    let vertices = [triangle.a, triangle.b, triangle.c];
    let depth_along = |axis: &Vector3<N>| {
        let top = vertices
            .iter()
            .map(|v| axis.dot(&(v - triangle.a)))
            .fold(N::min_value().unwrap_or(-N::one()), |x, y| x.max(y));
        let (h0, h1) = (axis.dot(&(p0 - triangle.a)), axis.dot(&(p1 - triangle.a)));
        let deepest = if h0 <= h1 { *p0 } else { *p1 };
        (top - h0.min(h1) + radius, deepest)
    };
    let (mut depth, mut deepest) = depth_along(face_normal);
    let mut normal = *face_normal;
    let mut feature = FeatureId::Face(id);
    // A two-sided surface may also push the segment out behind it.
    if surface.two_sided() {
        let (back_depth, back_deepest) = depth_along(&-face_normal);
        if back_depth < depth {
            (depth, deepest, normal) = (back_depth, back_deepest, -face_normal);
        }
    }
    let segment = p1 - p0;
    for k in 0..3 {
        if !surface.is_edge_active(id, k) {
            continue;
        }
        let (ea, eb) = (vertices[k], vertices[(k + 1) % 3]);
        let edge = eb - ea;
        let axis = segment.cross(&edge);
        let length = axis.norm();
        if length <= N::default_epsilon() * segment.norm() * edge.norm() {
            continue;
        }
        let Some(mut axis) = geom_prims::contact::try_unit(&axis) else {
            continue;
        };
        if axis.dot(face_normal) < N::zero() {
            axis = -axis;
        }
        // Out of the triangle across this edge: away from the opposite vertex.
        let opposite = vertices[(k + 2) % 3];
        if axis.dot(&(opposite - ea)) > N::zero() {
            continue;
        }
        let (edge_depth, edge_deepest) = depth_along(&axis);
        if edge_depth < depth {
            depth = edge_depth;
            deepest = edge_deepest;
            normal = axis;
            feature = FeatureId::Edge(3 * id + k as u32);
        }
    }
    let point_b = deepest - normal * radius;
    ContactCandidate {
        normal,
        point: ContactPoint {
            point_a: point_b + normal * depth,
            point_b,
            depth,
            feature_a: feature,
            feature_b: FeatureId::Face(0),
        },
    }
}
