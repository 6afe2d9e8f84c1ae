//! Closest points between a segment and a triangle.

use nalgebra::{Point3, Vector3};

use super::{closest_point_on_triangle_branching, closest_points_segment_segment};
use crate::scalar::Real;

/// The closest points of a segment and a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentTriangleClosest<N: Real> {
    /// Parameter on the segment: the point is `p0 + s (p1 − p0)`.
    pub s: N,
    /// The closest point on the segment.
    pub point_on_segment: Point3<N>,
    /// The closest point on the triangle.
    pub point_on_triangle: Point3<N>,
    /// The squared distance between the two points.
    pub distance_squared: N,
}

impl<N: Real> SegmentTriangleClosest<N> {
    /// The distance between the two points.
    pub fn distance(&self) -> N {
        self.distance_squared.sqrt()
    }
}

/// The closest points of segment `p0 p1` and triangle `a b c`.
///
/// The minimum is attained at a segment end against the triangle
/// (point–triangle, [`closest_point_on_triangle`](super::closest_point_on_triangle)), at the segment against
/// one of the three edges ([`closest_points_segment_segment`]), or where
/// the segment crosses the triangle (distance zero); every candidate is a
/// real pair of points, so the smallest is the answer (Ericson, *Real-Time
/// Collision Detection* §5.1.10). Degenerate triangles and segments fall
/// out of the same candidates.
pub fn closest_points_segment_triangle<N: Real>(
    p0: &Point3<N>,
    p1: &Point3<N>,
    a: &Point3<N>,
    b: &Point3<N>,
    c: &Point3<N>,
) -> SegmentTriangleClosest<N> {
    closest_points_segment_triangle_with_weights(p0, p1, a, b, c).0
}

/// [`closest_points_segment_triangle`], with the barycentric weights that
/// [`closest_point_on_triangle`](super::closest_point_on_triangle) gives for the segment point when the
/// answer came from that routine (a segment end, or where the segment
/// crosses the plane), so a caller need not project the point again;
/// `None` when the answer came from an edge.
pub fn closest_points_segment_triangle_with_weights<N: Real>(
    p0: &Point3<N>,
    p1: &Point3<N>,
    a: &Point3<N>,
    b: &Point3<N>,
    c: &Point3<N>,
) -> (SegmentTriangleClosest<N>, Option<Vector3<N>>) {
    let zero = N::zero();
    let candidate = |s: N, on_segment: Point3<N>, on_triangle: Point3<N>| SegmentTriangleClosest {
        s,
        point_on_segment: on_segment,
        point_on_triangle: on_triangle,
        distance_squared: (on_segment - on_triangle).norm_squared(),
    };
    let in_face = |weights: &Vector3<N>| weights.x != zero && weights.y != zero && weights.z != zero;
    // Where the segment crosses the triangle's plane, if it does.
    let normal: Vector3<N> = (b - a).cross(&(c - a));
    let height_0 = normal.dot(&(p0 - a));
    let height_1 = normal.dot(&(p1 - a));
    let crosses = (height_0 <= zero && height_1 >= zero) || (height_0 >= zero && height_1 <= zero);
    let crossing = (crosses && height_0 != height_1).then(|| {
        let s = height_0 / (height_0 - height_1);
        let on_segment = p0 + (p1 - p0) * s;
        let (on_triangle, weights) = closest_point_on_triangle_branching(&on_segment, a, b, c);
        (candidate(s, on_segment, on_triangle), weights)
    });
    // Through the face's interior: the crossing point (distance zero up to
    // rounding) is the answer; the edges cannot be closer.
    if let Some((through, weights)) = crossing
        && in_face(&weights)
    {
        return (through, Some(weights));
    }
    // The squared distance to the triangle is convex along the segment,
    // with slope 2 (p − q)·(p1 − p0) at a segment point p nearest to q: an
    // end where the distance grows into the segment (or one where it still
    // falls at the far end) is the nearest point, and no edge or crossing
    // can be nearer. Slopes within rounding of zero (16 ε |p − q| |p1 − p0|,
    // compared squared) decide nothing; an overflowing square decides
    // nothing either.
    let along = p1 - p0;
    let along_squared = along.norm_squared();
    let rounding = nalgebra::convert::<f64, N>(16.0) * N::default_epsilon();
    let beyond_rounding = |slope: N, away: &Vector3<N>| {
        slope * slope > rounding * rounding * away.norm_squared() * along_squared
    };
    let (on_triangle_0, weights_0) = closest_point_on_triangle_branching(p0, a, b, c);
    let away_0 = p0 - on_triangle_0;
    let slope_0 = away_0.dot(&along);
    let first_end_nearest = slope_0 > zero && beyond_rounding(slope_0, &away_0);
    // The first end is the answer, unless both ends may lie over the face
    // (below), which compares the two: the far end's projection is left
    // out (most triangles beside a segment lie nearest one of its ends).
    if first_end_nearest && !(crossing.is_none() && in_face(&weights_0)) {
        return (candidate(zero, *p0, on_triangle_0), Some(weights_0));
    }
    let (on_triangle_1, weights_1) = closest_point_on_triangle_branching(p1, a, b, c);
    let mut best = (candidate(zero, *p0, on_triangle_0), Some(weights_0));
    let mut consider = |next: SegmentTriangleClosest<N>, weights: Option<Vector3<N>>| {
        if next.distance_squared < best.0.distance_squared {
            best = (next, weights);
        }
    };
    consider(candidate(N::one(), *p1, on_triangle_1), Some(weights_1));
    // Both ends over the face's interior on one side of the plane: the
    // whole segment is over the face, its distance to the triangle is its
    // height, linear along it, least at an end; no edge point is closer.
    if crossing.is_none() && in_face(&weights_0) && in_face(&weights_1) {
        return best;
    }
    if first_end_nearest {
        return (candidate(zero, *p0, on_triangle_0), Some(weights_0));
    }
    let away_1 = p1 - on_triangle_1;
    let slope_1 = away_1.dot(&along);
    if slope_1 < zero && beyond_rounding(slope_1, &away_1) {
        return (candidate(N::one(), *p1, on_triangle_1), Some(weights_1));
    }
    for (edge_start, edge_end) in [(a, b), (b, c), (c, a)] {
        let edge = closest_points_segment_segment(p0, p1, edge_start, edge_end);
        consider(candidate(edge.s, edge.point_on_p, edge.point_on_q), None);
    }
    if let Some((through, weights)) = crossing {
        consider(through, Some(weights));
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::closest_point_on_triangle;

    fn brute_force(p0: Point3<f64>, p1: Point3<f64>, a: Point3<f64>, b: Point3<f64>, c: Point3<f64>) -> f64 {
        // Dense samples of the segment against dense barycentric samples of
        // the triangle, then the best segment sample refined by point–
        // triangle sampling alone would still be coarse; the grid is fine
        // enough for the 1e-3 tolerance used below.
        let n = 120;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            let on_segment = p0 + (p1 - p0) * (i as f64 / n as f64);
            for j in 0..=n {
                for k in 0..=(n - j) {
                    let (u, v) = (j as f64 / n as f64, k as f64 / n as f64);
                    let on_triangle = a + (b - a) * u + (c - a) * v;
                    best = best.min((on_segment - on_triangle).norm());
                }
            }
        }
        best
    }

    #[test]
    fn hand_checked_cases() {
        let (a, b, c) = (
            Point3::new(0.0f64, 0.0, 0.0),
            Point3::new(2.0, 0.0, 0.0),
            Point3::new(0.0, 2.0, 0.0),
        );
        // Through the face: distance 0 at z = 0.
        let r = closest_points_segment_triangle(
            &Point3::new(0.5, 0.5, -1.0),
            &Point3::new(0.5, 0.5, 3.0),
            &a,
            &b,
            &c,
        );
        assert_eq!((r.s, r.distance_squared), (0.25, 0.0));
        // Above the face, parallel to it at height 2.
        let r = closest_points_segment_triangle(
            &Point3::new(0.2, 0.2, 2.0),
            &Point3::new(0.8, 0.2, 2.0),
            &a,
            &b,
            &c,
        );
        assert_eq!(r.distance_squared, 4.0);
        // Beside the hypotenuse, parallel to it, 1 away in the plane's normal
        // direction... and sqrt(2)/2 beyond it: the edge x + y = 2.
        let r = closest_points_segment_triangle(
            &Point3::new(2.0, 1.0, 1.0),
            &Point3::new(1.0, 2.0, 1.0),
            &a,
            &b,
            &c,
        );
        assert!((r.distance_squared - 1.5).abs() < 1e-15, "{}", r.distance_squared);
        // Crossing an edge's extension outside the triangle: not zero.
        let r = closest_points_segment_triangle(
            &Point3::new(3.0, 3.0, -1.0),
            &Point3::new(3.0, 3.0, 1.0),
            &a,
            &b,
            &c,
        );
        assert!((r.distance_squared - 8.0).abs() < 1e-15);
    }

    #[test]
    fn random_cases_against_brute_force() {
        let mut rng = geom_random::Rng::from_state(0xFEED_BEEF_u64);
        let mut next = move || rng.range(-1.0, 1.0);
        for case in 0..40 {
            let mut point = || Point3::new(next(), next(), next());
            let (p0, p1, a, b, c) = (point(), point(), point(), point(), point());
            let r = closest_points_segment_triangle(&p0, &p1, &a, &b, &c);
            let reference = brute_force(p0, p1, a, b, c);
            assert!(
                r.distance() <= reference + 1e-12,
                "case {case}: {} > {reference}",
                r.distance()
            );
            assert!(
                r.distance() >= reference - 2e-2,
                "case {case}: {} << {reference}",
                r.distance()
            );
            // The reported points are on their shapes.
            let on_segment = p0 + (p1 - p0) * r.s;
            assert!((on_segment - r.point_on_segment).norm() < 1e-12);
            let (projected, _) = closest_point_on_triangle(&r.point_on_triangle, &a, &b, &c);
            assert!((projected - r.point_on_triangle).norm() < 1e-12);
        }
    }
}
