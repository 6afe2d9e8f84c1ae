//! The hull as a [`Shape`]: ray casts by clipping against the face planes,
//! closest points over the faces, support points and features.

use geom_core::distance::closest_point_on_triangle_branching;
use geom_core::{
    Aabb, FeatureId, FeatureShape, PointProjection, Ray, RayHit, Real, Shape, ShapeKind, SupportFeature,
};
use nalgebra::{Point3, Vector3};

use super::ConvexHull;

impl<N: Real> ConvexHull<N> {
    /// The signed distance of `point` from face `f`'s plane (positive
    /// outside), the difference to a corner taken first.
    fn plane_distance(&self, f: usize, point: &Point3<N>) -> N {
        let face = &self.faces[f];
        let corner = self.vertices[self.corners[face.start as usize] as usize];
        face.normal.dot(&(point - corner))
    }

    /// The vertex farthest along `dir` (the first of equals).
    fn support_vertex(&self, dir: &Vector3<N>) -> u32 {
        let mut best = 0;
        let mut best_dot = self.vertices[0].coords.dot(dir);
        for (v, p) in self.vertices.iter().enumerate().skip(1) {
            let d = p.coords.dot(dir);
            if d > best_dot {
                best = v;
                best_dot = d;
            }
        }
        best as u32
    }
}

impl<N: Real> Shape<N> for ConvexHull<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::ConvexHull
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        self.aabb
    }

    /// Clips the ray against every face's plane (Cyrus & Beck 1978): it
    /// enters through the last plane it crosses inwards and leaves
    /// through the first it crosses outwards. A ray parallel to a plane
    /// and outside it misses. The feature is `Face(face index)`.
    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        if !ray.is_finite() || max_t.partial_cmp(&N::zero()).is_none_or(|o| o.is_lt()) {
            return None;
        }
        let infinity = nalgebra::convert::<f64, N>(f64::INFINITY);
        let (mut enter, mut enter_face) = (-infinity, usize::MAX);
        let (mut exit, mut exit_face) = (infinity, usize::MAX);
        let mut inside = true;
        for f in 0..self.faces.len() {
            let distance = self.plane_distance(f, &ray.origin);
            let speed = self.faces[f].normal.dot(&ray.dir);
            inside &= distance <= N::zero();
            if speed == N::zero() {
                if distance > N::zero() {
                    return None;
                }
                continue;
            }
            let t = -distance / speed;
            if speed < N::zero() {
                if t > enter {
                    (enter, enter_face) = (t, f);
                }
            } else if t < exit {
                (exit, exit_face) = (t, f);
            }
        }
        if inside {
            if solid {
                let (dir, length) = geom_core::ray::with_length(&ray.dir);
                let normal = if length > N::zero() {
                    -dir / length
                } else {
                    Vector3::zeros()
                };
                return Some(RayHit {
                    t: N::zero(),
                    normal,
                    feature: FeatureId::Unknown,
                });
            }
            // Hollow: where the ray leaves.
            return (exit_face != usize::MAX && exit <= max_t).then(|| RayHit {
                t: exit.max(N::zero()),
                normal: self.faces[exit_face].normal,
                feature: FeatureId::Face(exit_face as u32),
            });
        }
        let hits = enter_face != usize::MAX && enter <= exit && enter >= N::zero() && enter <= max_t;
        hits.then(|| RayHit {
            t: enter,
            normal: self.faces[enter_face].normal,
            feature: FeatureId::Face(enter_face as u32),
        })
    }

    /// Inside, the nearest face plane's projection (on that face, the hull
    /// being convex); outside, the nearest point over the faces'
    /// triangles.
    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        if !point.iter().all(|c| c.is_finite()) {
            return None;
        }
        let (nearest_face, distance) = (0..self.faces.len())
            .map(|f| (f, self.plane_distance(f, point)))
            .reduce(|a, b| if b.1 > a.1 { b } else { a })?;
        if distance <= N::zero() {
            let projected = if solid {
                *point
            } else {
                point - self.faces[nearest_face].normal * distance
            };
            return Some(PointProjection {
                point: projected,
                is_inside: true,
            });
        }
        let mut best: Option<(N, Point3<N>)> = None;
        for tri in &self.triangles {
            let [a, b, c] = tri.map(|v| self.vertices[v as usize]);
            let (on_triangle, _) = closest_point_on_triangle_branching(point, &a, &b, &c);
            let d = (point - on_triangle).norm_squared();
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, on_triangle));
            }
        }
        best.map(|(_, p)| PointProjection {
            point: p,
            is_inside: false,
        })
    }

    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        if !dir.iter().all(|c| c.is_finite()) || dir.iter().all(|c| *c == N::zero()) {
            return None;
        }
        Some(self.vertices[self.support_vertex(dir) as usize])
    }

    /// The face whose normal is within `tolerance` (a sine) of `dir`, its
    /// corners (at most [`MAX_FEATURE_POINTS`](geom_core::MAX_FEATURE_POINTS),
    /// spread around larger faces); else the edge from the support vertex
    /// most nearly across `dir`, if within `tolerance` of it; else the
    /// support vertex.
    fn support_feature_local(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        let (best_face, along) = self
            .faces
            .iter()
            .enumerate()
            .map(|(f, face)| (f, face.normal.dot(&u)))
            .reduce(|a, b| if b.1 > a.1 { b } else { a })?;
        let face = &self.faces[best_face];
        if (u - face.normal * along).norm() <= tolerance && along > N::zero() {
            return Some(SupportFeature::face(self.feature_corners(face), face.normal));
        }
        let v = self.support_vertex(&u);
        let at = self.vertices[v as usize];
        let across = self
            .neighbors(v)
            .iter()
            .map(|&w| {
                let edge = self.vertices[w as usize] - at;
                (w, (edge.dot(&u) / edge.norm()).abs())
            })
            .reduce(|a, b| if b.1 < a.1 { b } else { a });
        if let Some((w, sine)) = across
            && sine <= tolerance
        {
            return Some(SupportFeature::edge(at, self.vertices[w as usize], u));
        }
        Some(SupportFeature::point(FeatureShape::Vertex, at, u))
    }
}
