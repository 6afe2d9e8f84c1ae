//! The point of a simplex (a point, segment, triangle or tetrahedron)
//! closest to the origin: the distance subalgorithm of GJK.
//!
//! Signed volumes after Montanari, Petrinic and Barbieri, "Improving the GJK
//! algorithm for faster and more reliable distance queries between convex
//! objects" (ACM TOG 36(3), 2017). Instead of Johnson's determinants (whose
//! sub-determinants cancel catastrophically on thin simplices), each level
//! projects the origin onto the simplex's affine hull and reads barycentric
//! coordinates off signed lengths, areas or volumes computed in the
//! best-conditioned projection; a sign disagreement sends the search to the
//! facets the origin lies beyond. Degenerate simplices (coincident,
//! collinear or coplanar vertices) fall back to their facets, so the answer
//! is always a finite point of the simplex when the vertices are finite.

use geom_core::Real;
use nalgebra::Vector3;

/// The point of a simplex closest to the origin, as barycentric weights on
/// the simplex's vertices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SimplexProjection<N: Real> {
    /// The closest point.
    pub point: Vector3<N>,
    /// Weight of each vertex (zero for the vertices not in `used`); the
    /// used weights are positive and sum to one up to rounding.
    pub weights: [N; 4],
    /// Bit `i` set when vertex `i` carries weight: the smallest sub-simplex
    /// holding the closest point.
    pub used: u8,
}

impl<N: Real> SimplexProjection<N> {
    fn vertex(vertices: &[Vector3<N>], i: usize) -> Self {
        let mut weights = [N::zero(); 4];
        weights[i] = N::one();
        SimplexProjection {
            point: vertices[i],
            weights,
            used: 1 << i,
        }
    }

    /// The closer of `self` and `other` to the origin (ties keep `self`).
    fn closer(self, other: Self) -> Self {
        if other.point.norm_squared() < self.point.norm_squared() {
            other
        } else {
            self
        }
    }
}

/// `a` and `b` are both strictly positive or both strictly negative
/// (Montanari's `compareSigns`).
fn same_sign<N: Real>(a: N, b: N) -> bool {
    (a > N::zero() && b > N::zero()) || (a < N::zero() && b < N::zero())
}

/// `x > 0` (false for NaN).
fn is_positive<N: Real>(x: N) -> bool {
    x > N::zero()
}

/// Index of the largest absolute component.
fn largest_axis<N: Real>(v: &Vector3<N>) -> usize {
    let mut axis = 0;
    for k in 1..3 {
        if v[k].abs() > v[axis].abs() {
            axis = k;
        }
    }
    axis
}

/// The point of the simplex spanned by `vertices` (1 to 4 of them) closest
/// to the origin. A tetrahedron containing the origin answers the origin
/// with all four vertices used.
pub(crate) fn closest_point_on_simplex<N: Real>(vertices: &[Vector3<N>]) -> SimplexProjection<N> {
    match vertices.len() {
        1 => SimplexProjection::vertex(vertices, 0),
        2 => closest_point_on_segment(vertices, 0, 1),
        3 => closest_point_on_triangle(vertices, [0, 1, 2]),
        _ => closest_point_on_tetrahedron(vertices),
    }
}

/// Montanari's S1D on the segment `vertices[i] vertices[j]`: the origin's
/// projection onto the line, its barycentric coordinates read on the axis
/// along which the segment is longest.
fn closest_point_on_segment<N: Real>(vertices: &[Vector3<N>], i: usize, j: usize) -> SimplexProjection<N> {
    let (a, b) = (vertices[i], vertices[j]);
    let edge = b - a;
    let length_squared = edge.norm_squared();
    if !is_positive(length_squared) {
        return SimplexProjection::vertex(vertices, i);
    }
    let on_line = a - edge * (a.dot(&edge) / length_squared);
    let axis = largest_axis(&edge);
    let extent = edge[axis];
    let weight_a = b[axis] - on_line[axis];
    let weight_b = on_line[axis] - a[axis];
    if same_sign(extent, weight_a) && same_sign(extent, weight_b) {
        let t = weight_b / extent;
        let mut weights = [N::zero(); 4];
        weights[i] = weight_a / extent;
        weights[j] = t;
        SimplexProjection {
            point: a + edge * t,
            weights,
            used: (1 << i) | (1 << j),
        }
    } else if same_sign(extent, weight_b) {
        // The origin projects beyond `b`.
        SimplexProjection::vertex(vertices, j)
    } else {
        SimplexProjection::vertex(vertices, i)
    }
}

/// Montanari's S2D on the triangle `vertices[corners]`: the origin's
/// projection onto the plane, with signed sub-areas measured in the
/// coordinate plane where the triangle's projected area is largest.
fn closest_point_on_triangle<N: Real>(vertices: &[Vector3<N>], corners: [usize; 3]) -> SimplexProjection<N> {
    let [i, j, k] = corners;
    let (a, b, c) = (vertices[i], vertices[j], vertices[k]);
    let normal = (b - a).cross(&(c - a));
    let normal_squared = normal.norm_squared();
    let edges = || {
        closest_point_on_segment(vertices, i, j)
            .closer(closest_point_on_segment(vertices, j, k))
            .closer(closest_point_on_segment(vertices, k, i))
    };
    if !is_positive(normal_squared) {
        return edges();
    }
    let on_plane = normal * (a.dot(&normal) / normal_squared);
    // Drop the axis of the normal's largest component; the remaining two,
    // in cyclic order, keep the orientation so that `area(a, b, c)` equals
    // that normal component exactly.
    let dropped = largest_axis(&normal);
    let (x, y) = ((dropped + 1) % 3, (dropped + 2) % 3);
    let area = |p: &Vector3<N>, q: &Vector3<N>, r: &Vector3<N>| {
        (q[x] - p[x]) * (r[y] - p[y]) - (q[y] - p[y]) * (r[x] - p[x])
    };
    let total = area(&a, &b, &c);
    let sub_areas = [
        area(&on_plane, &b, &c),
        area(&a, &on_plane, &c),
        area(&a, &b, &on_plane),
    ];
    if sub_areas.iter().all(|&s| same_sign(total, s)) {
        let mut weights = [N::zero(); 4];
        weights[i] = sub_areas[0] / total;
        weights[j] = sub_areas[1] / total;
        weights[k] = sub_areas[2] / total;
        return SimplexProjection {
            point: a + (b - a) * weights[j] + (c - a) * weights[k],
            weights,
            used: (1 << i) | (1 << j) | (1 << k),
        };
    }
    // The origin projects outside (or onto the boundary): the answer lies
    // on an edge the origin is beyond.
    let opposite_edges = [(j, k), (k, i), (i, j)];
    let mut best: Option<SimplexProjection<N>> = None;
    for (corner, &(p, q)) in opposite_edges.iter().enumerate() {
        if !same_sign(total, sub_areas[corner]) {
            let candidate = closest_point_on_segment(vertices, p, q);
            best = Some(best.map_or(candidate, |b| b.closer(candidate)));
        }
    }
    best.unwrap_or_else(edges)
}

/// Montanari's S3D: signed volumes of the tetrahedra formed by the origin
/// and each face, as cofactors of the 4×4 barycentric system.
fn closest_point_on_tetrahedron<N: Real>(vertices: &[Vector3<N>]) -> SimplexProjection<N> {
    let (a, b, c, d) = (vertices[0], vertices[1], vertices[2], vertices[3]);
    let (ab, ac, ad) = (b - a, c - a, d - a);
    let total = ab.dot(&ac.cross(&ad));
    // Volume of the tetrahedron with vertex `k` replaced by the origin; each
    // is one vertex (relative to the origin) against a face normal built
    // from edge vectors, so no large coordinate multiplies another.
    let sub_volumes = [
        b.dot(&(c - b).cross(&(d - b))),
        -a.dot(&ac.cross(&ad)),
        -a.dot(&ad.cross(&ab)),
        -a.dot(&ab.cross(&ac)),
    ];
    let faces = [[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]];
    let all_faces = || {
        faces
            .iter()
            .map(|&f| closest_point_on_triangle(vertices, f))
            .reduce(SimplexProjection::closer)
            .unwrap_or_else(|| SimplexProjection::vertex(vertices, 0))
    };
    if !(total != N::zero() && total.is_finite()) {
        return all_faces();
    }
    if sub_volumes.iter().all(|&s| same_sign(total, s)) {
        let weights = sub_volumes.map(|s| s / total);
        return SimplexProjection {
            point: Vector3::zeros(),
            weights,
            used: 0b1111,
        };
    }
    let mut best: Option<SimplexProjection<N>> = None;
    for (corner, face) in faces.iter().enumerate() {
        if !same_sign(total, sub_volumes[corner]) {
            let candidate = closest_point_on_triangle(vertices, *face);
            best = Some(best.map_or(candidate, |b| b.closer(candidate)));
        }
    }
    best.unwrap_or_else(all_faces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestRng;
    use geom_core::distance::closest_point_on_triangle as reference_triangle;
    use nalgebra::Point3;

    fn check_weights(vertices: &[Vector3<f64>], projection: &SimplexProjection<f64>) {
        let mut sum = 0.0;
        let mut combination = Vector3::zeros();
        for (i, v) in vertices.iter().enumerate() {
            let w = projection.weights[i];
            if projection.used & (1 << i) != 0 {
                assert!(w >= -1e-12, "{projection:?}");
            } else {
                assert_eq!(w, 0.0);
            }
            sum += w;
            combination += v * w;
        }
        assert!((sum - 1.0).abs() < 1e-12, "{projection:?}");
        assert!((combination - projection.point).norm() < 1e-12, "{projection:?}");
    }

    #[test]
    fn segment_regions() {
        let vertices = [Vector3::new(1.0, -1.0, 0.0), Vector3::new(1.0, 3.0, 0.0)];
        let projection = closest_point_on_simplex(&vertices);
        assert_eq!(projection.point, Vector3::new(1.0, 0.0, 0.0));
        assert_eq!(projection.used, 0b11);
        assert_eq!(projection.weights[..2], [0.75, 0.25]);
        let beyond = [Vector3::new(1.0, 1.0, 0.0), Vector3::new(1.0, 3.0, 0.0)];
        assert_eq!(closest_point_on_simplex(&beyond).used, 0b01);
        let reversed = [Vector3::new(1.0, 3.0, 0.0), Vector3::new(1.0, 1.0, 0.0)];
        assert_eq!(closest_point_on_simplex(&reversed).used, 0b10);
        let repeated = [Vector3::new(1.0, 3.0, 0.0), Vector3::new(1.0, 3.0, 0.0)];
        assert_eq!(closest_point_on_simplex(&repeated).point, repeated[0]);
    }

    /// Random triangles against the Voronoi-region routine of geom-core.
    #[test]
    fn triangles_against_voronoi_regions() {
        let mut rng = TestRng::new(7);
        for _ in 0..20_000 {
            let vertices = [rng.vector(2.0), rng.vector(2.0), rng.vector(2.0)];
            let projection = closest_point_on_simplex(&vertices);
            check_weights(&vertices, &projection);
            let (expected, _) = reference_triangle(
                &Point3::origin(),
                &Point3::from(vertices[0]),
                &Point3::from(vertices[1]),
                &Point3::from(vertices[2]),
            );
            assert!(
                (projection.point.norm() - expected.coords.norm()).abs() < 1e-12,
                "{vertices:?}: {projection:?} vs {expected:?}"
            );
        }
    }

    /// Random tetrahedra: the answer is no farther than the best face (or
    /// the origin when inside), and inside means positive weights.
    #[test]
    fn tetrahedra_against_faces() {
        let mut rng = TestRng::new(11);
        let mut inside = 0;
        for _ in 0..20_000 {
            let vertices = [rng.vector(2.0), rng.vector(2.0), rng.vector(2.0), rng.vector(2.0)];
            let projection = closest_point_on_simplex(&vertices);
            check_weights(&vertices, &projection);
            let best_face = [[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]]
                .iter()
                .map(|f| {
                    let [p, q, r] = f.map(|k| Point3::from(vertices[k]));
                    reference_triangle(&Point3::origin(), &p, &q, &r).0.coords.norm()
                })
                .fold(f64::INFINITY, f64::min);
            if projection.used == 0b1111 {
                inside += 1;
                assert_eq!(projection.point, Vector3::zeros());
            } else {
                assert!(
                    (projection.point.norm() - best_face).abs() < 1e-12,
                    "{vertices:?}: {projection:?} vs {best_face}"
                );
            }
        }
        assert!(inside > 500, "{inside}");
    }

    #[test]
    fn degenerate_simplices_answer_finite_points() {
        let p = Vector3::new(1.0, 2.0, 3.0);
        let q = Vector3::new(-1.0, 0.5, 2.0);
        let collinear = [p, q, p * 2.0 - q];
        let projection = closest_point_on_simplex(&collinear);
        check_weights(&collinear, &projection);
        let flat = [p, q, Vector3::new(0.0, 1.25, 2.5), Vector3::new(3.0, 3.5, 4.0)];
        let projection = closest_point_on_simplex(&flat);
        assert!(projection.point.iter().all(|x| x.is_finite()));
        let same = [p, p, p, p];
        assert_eq!(closest_point_on_simplex(&same).point, p);
        // Origin on a face: distance zero, without dividing by zero.
        let through_origin = [
            Vector3::new(-1.0, -1.0, 0.0),
            Vector3::new(2.0, -1.0, 0.0),
            Vector3::new(0.0, 2.0, 0.0),
            Vector3::new(0.0, 0.0, 1.0),
        ];
        assert!(closest_point_on_simplex(&through_origin).point.norm() < 1e-15);
        let nan = [Vector3::new(f64::NAN, 0.0, 0.0), q, p];
        let _ = closest_point_on_simplex(&nan);
    }
}
