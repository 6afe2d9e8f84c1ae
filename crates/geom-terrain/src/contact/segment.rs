//! One candidate contact per triangle near a swept-sphere segment.

use geom_core::distance::{
    closest_point_on_triangle_branching, closest_points_segment_triangle_with_weights,
};
use geom_core::{ContactCandidate, ContactPoint, FeatureId, Real};
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

use super::reach::SegmentReach;
use crate::{HeightField, TriangleId};

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

/// Pushes one candidate per triangle within `radius + margin` of segment
/// `p0 p1` (heightfield-local), normals from the heightfield outwards.
pub(crate) fn collect_candidates<N: Real>(
    field: &HeightField<N>,
    p0: &Point3<N>,
    p1: &Point3<N>,
    radius: N,
    margin: N,
    out: &mut Vec<ContactCandidate<N>>,
) {
    let reach = radius + margin;
    let search = geom_core::Aabb::new(p0.inf(p1), p0.sup(p1)).loosened(reach);
    let extent = field.local_extent();
    let reach_test = SegmentReach::new(
        p0,
        p1,
        reach,
        extent.mins.coords.amax().max(extent.maxs.coords.amax()),
    );
    let mut inside = InsideCache::new();
    let mut triangles = field.triangles_in_aabb(&search);
    while let Some((id, triangle)) = triangles.next() {
        if reach_test.beyond(&triangle) {
            continue;
        }
        let cell = triangles.last_cell();
        debug_assert_eq!(cell, field.cell_coords(id.cell()));
        if let Some(candidate) =
            triangle_candidate(field, id, cell, &triangle, p0, p1, radius, reach, &mut inside)
        {
            out.push(candidate);
        }
    }
}

/// The last two answers of [`HeightField::contains_local_point`]: most
/// triangles' closest segment point is one of the segment's ends, so the
/// same point is asked again and again.
struct InsideCache<N: Real> {
    entries: [Option<(Point3<N>, bool)>; 2],
    next: usize,
}

impl<N: Real> InsideCache<N> {
    fn new() -> Self {
        InsideCache {
            entries: [None, None],
            next: 0,
        }
    }

    /// Whether `point` is in the solid, looked up from cell `near`.
    fn contains(&mut self, field: &HeightField<N>, point: &Point3<N>, near: (usize, usize)) -> bool {
        if let Some(&(_, inside)) = self.entries.iter().flatten().find(|(p, _)| p == point) {
            return inside;
        }
        let inside = field.contains_local_point_near(point, near);
        self.entries[self.next] = Some((*point, inside));
        self.next = 1 - self.next;
        inside
    }
}

#[allow(clippy::too_many_arguments)]
fn triangle_candidate<N: Real>(
    field: &HeightField<N>,
    id: TriangleId,
    (i, j): (usize, usize),
    triangle: &Triangle<N>,
    p0: &Point3<N>,
    p1: &Point3<N>,
    radius: N,
    reach: N,
    inside_cache: &mut InsideCache<N>,
) -> Option<ContactCandidate<N>> {
    let (a, b, c) = (&triangle.a, &triangle.b, &triangle.c);
    let (closest, known_weights) = closest_points_segment_triangle_with_weights(p0, p1, a, b, c);
    if closest.distance_squared > reach * reach {
        return None;
    }
    let face_normal = crate::heightfield::face_normal(triangle);
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
    let samples = field.triangle_samples(i, j, id.half());
    if touching {
        return Some(crossing_candidate(
            field,
            id,
            triangle,
            &face_normal,
            p0,
            p1,
            radius,
        ));
    }
    let region = region_of(&weights, N::zero());
    // The heightfield is solid below its surface: a segment point there
    // (a capsule sunk deeper than its radius, not crossing this triangle)
    // is pushed out the other way, and deeper.
    // A point on the surface to rounding (a capsule sunk by exactly its
    // radius) is not inside: its contact is the face's.
    let inside = inside_cache.contains(field, &on_segment, (i, j))
        && field
            .surface_y_near((i, j), on_segment.x, on_segment.z)
            .is_none_or(|surface| {
                surface - on_segment.y > N::default_epsilon() * nalgebra::convert::<f64, N>(64.0) * scale
            });
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
    let along_face = |feature: FeatureId| {
        let height = face_normal.dot(&(on_segment - a));
        let foot = on_segment - face_normal * height;
        let surface_y = field.surface_y_near((i, j), foot.x, foot.z)?;
        let tolerance = N::default_epsilon() * nalgebra::convert::<f64, N>(1024.0) * (scale + foot.y.abs());
        let same_side = if inside {
            height <= N::zero()
        } else {
            height >= N::zero()
        };
        if !same_side || (surface_y - foot.y).abs() > tolerance {
            return None;
        }
        Some(ContactCandidate {
            normal: face_normal,
            point: ContactPoint {
                point_a: foot,
                point_b: on_segment - face_normal * radius,
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
                    feature_a: FeatureId::Face(id.0),
                    feature_b: FeatureId::Face(0),
                },
            });
        }
        Region::Edge(k) => {
            let feature = FeatureId::Edge(3 * id.0 + k as u32);
            if !field.is_edge_active(id, k) {
                if let Some(candidate) = along_face(feature) {
                    return Some(candidate);
                }
                (face_normal, feature)
            } else {
                if !inside && let Some((ni, nj, nhalf)) = field.edge_neighbor(i, j, id.half(), k) {
                    // The direction points into the neighbour's face region:
                    // the neighbour reports this contact, with its own face.
                    let (ea, eb) = (triangle_vertex(triangle, k), triangle_vertex(triangle, k + 1));
                    let neighbor = field.triangle_samples(ni, nj, nhalf);
                    let far = neighbor
                        .iter()
                        .find(|s| **s != samples[k] && **s != samples[(k + 1) % 3])
                        .map(|s| field.sample_point(s.0, s.1))?;
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
            let (si, sj) = samples[k];
            let feature = FeatureId::Vertex((si * field.cols() + sj) as u32);
            if field.is_vertex_active(si, sj) {
                if !inside && !in_vertex_normal_cone(field, si, sj, &direction) {
                    // Not this vertex's: a neighbouring face or edge is
                    // nearer along `direction` and reports the contact.
                    return None;
                }
                (direction, feature)
            } else if let Some(candidate) = along_face(feature) {
                return Some(candidate);
            } else {
                (face_normal, feature)
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

/// Whether the unit `direction` from sample `(si, sj)` lies in the
/// terrain's normal cone there: no surface edge from the sample rises
/// along it, so that the sample
/// is the terrain's nearest point to points out along `direction`
/// (Ericson, *Real-Time Collision Detection* §5.1.5, Voronoi regions).
fn in_vertex_normal_cone<N: Real>(
    field: &HeightField<N>,
    si: usize,
    sj: usize,
    direction: &Vector3<N>,
) -> bool {
    let vertex = field.sample_point(si, sj);
    let tolerance = N::default_epsilon() * nalgebra::convert::<f64, N>(64.0);
    for ci in si.saturating_sub(1)..=si.min(field.rows() - 2) {
        for cj in sj.saturating_sub(1)..=sj.min(field.cols() - 2) {
            if field.is_hole(field.cell_index(ci, cj)) {
                continue;
            }
            for half in 0..2 {
                let samples = field.triangle_samples(ci, cj, half);
                if !samples.contains(&(si, sj)) {
                    continue;
                }
                for &(ni, nj) in samples.iter().filter(|s| **s != (si, sj)) {
                    let edge = field.sample_point(ni, nj) - vertex;
                    if direction.dot(&edge) > tolerance * edge.norm() {
                        return false;
                    }
                }
            }
        }
    }
    true
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
fn crossing_candidate<N: Real>(
    field: &HeightField<N>,
    id: TriangleId,
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
    let mut feature = FeatureId::Face(id.0);
    let segment = p1 - p0;
    for k in 0..3 {
        if !field.is_edge_active(id, k) {
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
            feature = FeatureId::Edge(3 * id.0 + k as u32);
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
