//! Distance primitives shared by every shape: point–segment and
//! point–triangle (here, over lanes), segment–segment and segment–triangle.
//!
//! ```
//! use geom_core::distance::{closest_point_on_segment, closest_point_on_triangle, closest_points_segment_segment};
//! use nalgebra::{Point3, Vector3};
//!
//! // (2, 0, 1) is 2 from the z axis: its foot on (0, 0, 0)–(0, 0, 4) is (0, 0, 1), a quarter along.
//! let (foot, s) = closest_point_on_segment(&Point3::new(2.0, 0.0, 1.0), &Point3::origin(), &Point3::new(0.0, 0.0, 4.0));
//! assert_eq!((foot, s), (Point3::new(0.0, 0.0, 1.0), 0.25));
//! // Above the triangle's face, straight down; (0.25, 0.25) = 0.5·a + 0.25·b + 0.25·c.
//! let (a, b, c) = (Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0));
//! let (on_face, weights) = closest_point_on_triangle(&Point3::new(0.25, 0.25, 2.0), &a, &b, &c);
//! assert!((on_face - Point3::new(0.25, 0.25, 0.0)).norm() < 1e-12);
//! assert!((weights - Vector3::new(0.5, 0.25, 0.25)).norm() < 1e-12);
//! // Crossed segments, along x at z = 0 and along y at z = 3, both through (1, 0): 3 apart at their middles.
//! let (p0, p1) = (Point3::<f64>::origin(), Point3::new(2.0, 0.0, 0.0));
//! let (q0, q1) = (Point3::new(1.0, -1.0, 3.0), Point3::new(1.0, 1.0, 3.0));
//! let closest = closest_points_segment_segment(&p0, &p1, &q0, &q1);
//! assert!((closest.distance() - 3.0).abs() < 1e-12 && (closest.s - 0.5).abs() < 1e-12 && (closest.t - 0.5).abs() < 1e-12);
//! ```

mod segment_segment;
mod segment_triangle;

pub use segment_segment::{SegmentSegmentClosest, closest_points_segment_segment};
pub use segment_triangle::{
    SegmentTriangleClosest, closest_points_segment_triangle, closest_points_segment_triangle_with_weights,
};

use crate::LaneOrd;
use nalgebra::{Point3, SimdBool, SimdValue, Vector3};

use crate::scalar::{Lane, Real, lit};

/// The point of segment `a b` closest to `point`, and its parameter
/// `s ∈ [0, 1]` (the point is `a + s (b - a)`).
///
/// Ericson, *Real-Time Collision Detection* §5.1.2. A zero-length segment
/// answers `a` with `s = 0`. Written over lanes: works for scalars and SIMD.
#[inline]
pub fn closest_point_on_segment<T: Lane>(point: &Point3<T>, a: &Point3<T>, b: &Point3<T>) -> (Point3<T>, T) {
    let zero = T::zero();
    let ab = b - a;
    let ap = point - a;
    let length_squared = ab.norm_squared();
    let along = ap.dot(&ab);
    let plain = along / length_squared;
    // Where |ab|² or the dot product overflows (coordinates near 1e154 in
    // f64, 1e19 in f32), `∞/∞` would be NaN: divide both vectors by the
    // largest component of `ab` first.
    // Only computed where some lane overflowed (rarely, and so a branch
    // that predicts well): a tenth of the scalar point–triangle
    // projection's instructions otherwise.
    let overflowed = !(plain * zero).simd_eq(zero);
    let s = if overflowed.any() {
        let largest =
            ab.x.simd_abs()
                .lane_max(ab.y.simd_abs())
                .lane_max(ab.z.simd_abs());
        let scale = T::one() / largest.select(largest.simd_gt(zero), T::one());
        let ab_scaled = ab * scale;
        let rescaled = (ap * scale).dot(&ab_scaled) / ab_scaled.norm_squared();
        rescaled.select(overflowed, plain)
    } else {
        plain
    };
    // `lane_max`/`lane_min`, not `simd_clamp`: one NaN rule on scalars and
    // lanes (a NaN parameter, from a point near the float limit, clamps to
    // `a` on both).
    let s = s.lane_max(zero).lane_min(T::one());
    let s = s.select(length_squared.simd_gt(zero), zero);
    (a + ab * s, s)
}

/// The point of triangle `a b c` closest to `point`, and its barycentric
/// weights `(u, v, w)` (the point is `u a + v b + w c`, `u + v + w = 1`).
///
/// Voronoi regions after Ericson, *Real-Time Collision Detection* §5.1.5,
/// evaluated without branches: the face candidate is the projection onto the
/// plane, used where the signed sub-areas of all three edges are positive
/// (the face region); elsewhere the closest point lies on the boundary, and
/// the nearest of the three edge candidates (each clamped to its segment,
/// which covers the vertex regions) is selected. Everything is computed
/// relative to `a`, so a small triangle far from the origin keeps its bits.
///
/// A degenerate triangle (collinear or coincident vertices) has no face
/// region (its normal is zero); the edge candidates then give the closest
/// point of the segment or point it collapses to, without NaN.
#[inline]
pub fn closest_point_on_triangle<T: Lane>(
    point: &Point3<T>,
    a: &Point3<T>,
    b: &Point3<T>,
    c: &Point3<T>,
) -> (Point3<T>, Vector3<T>) {
    let zero = T::zero();
    let one = T::one();
    let ab = b - a;
    let ac = c - a;
    let ap = point - a;
    let bp = point - b;
    let cp = point - c;
    let normal = ab.cross(&ac);
    let normal_squared = normal.norm_squared();
    let has_plane = normal_squared.simd_gt(degenerate_normal_squared(&ab, &ac));
    // Signed sub-areas (times |n|): the barycentric numerators of the
    // plane projection. Each is formed from one edge and the point relative to
    // that edge's start, so no large coordinate enters.
    let area_a = normal.dot(&(c - b).cross(&bp));
    let area_b = normal.dot(&(a - c).cross(&cp));
    let area_c = normal.dot(&ab.cross(&ap));
    let in_face = area_a.simd_ge(zero) & area_b.simd_ge(zero) & area_c.simd_ge(zero) & has_plane;
    let face_point = onto_plane(&ap, &normal);
    let inverse_area = one / (area_a + area_b + area_c);
    let face_weights = Vector3::new(
        area_a * inverse_area,
        area_b * inverse_area,
        area_c * inverse_area,
    );

    // Edge candidates, all relative to `a`.
    let origin = Point3::origin();
    let ap_point = Point3::from(ap);
    let ab_point = Point3::from(ab);
    let ac_point = Point3::from(ac);
    let (on_ab, s_ab) = closest_point_on_segment(&ap_point, &origin, &ab_point);
    let (on_bc, s_bc) = closest_point_on_segment(&ap_point, &ab_point, &ac_point);
    let (on_ca, s_ca) = closest_point_on_segment(&ap_point, &ac_point, &origin);
    let d_ab = (ap_point - on_ab).norm_squared();
    let d_bc = (ap_point - on_bc).norm_squared();
    let d_ca = (ap_point - on_ca).norm_squared();
    let weights_ab = Vector3::new(one - s_ab, s_ab, zero);
    let weights_bc = Vector3::new(zero, one - s_bc, s_bc);
    let weights_ca = Vector3::new(s_ca, zero, one - s_ca);
    // Ties keep the earlier edge, so the answer is deterministic.
    let bc_wins = d_bc.simd_lt(d_ab);
    let best_distance = d_bc.select(bc_wins, d_ab);
    let edge_point = on_bc.coords.select(bc_wins, on_ab.coords);
    let edge_weights = weights_bc.select(bc_wins, weights_ab);
    let ca_wins = d_ca.simd_lt(best_distance);
    let edge_point = on_ca.coords.select(ca_wins, edge_point);
    let edge_weights = weights_ca.select(ca_wins, edge_weights);

    let relative = face_point.select(in_face, edge_point);
    let weights = face_weights.select(in_face, edge_weights);
    (a + relative, weights)
}

/// `ap` with its component along `normal` removed: the projection onto the
/// plane through the origin (the height is one dot product, accurate
/// however far the plane is). The unit normal is formed first, scaled
/// where `|n|²` leaves the normal range, so no intermediate exceeds `|ap|`
/// (a point near the float limit over a small triangle kept its digits but
/// `n·ap / |n|²` overflowed). Shared by both point–triangle routines, so
/// their answers stay identical.
#[inline]
fn onto_plane<T: Lane>(ap: &Vector3<T>, normal: &Vector3<T>) -> Vector3<T> {
    let (scaled_normal, normal_length) = crate::ray::with_length(normal);
    let unit_normal = scaled_normal / normal_length;
    ap - unit_normal * unit_normal.dot(ap)
}

/// The largest `|ab × ac|²` that rounding alone can produce for edges
/// `ab`, `ac`: `(8ε |ab| |ac|)²` (each component of the cross product is a
/// difference of two products, each rounded). Below it the computed normal
/// is noise (a sliver triangle whose vertices are nearly collinear) and
/// projecting onto its "plane" can move a point of the triangle by the
/// triangle's size; the point–triangle routines then answer from the
/// edges. It overflows (and so refuses the face) only for edges beyond
/// about `√max / (8ε)`.
#[inline]
fn degenerate_normal_squared<T: Lane>(ab: &Vector3<T>, ac: &Vector3<T>) -> T {
    let bound = T::simd_default_epsilon() * lit::<T>(8.0);
    bound * bound * ab.norm_squared() * ac.norm_squared()
}

/// [`closest_point_on_triangle`] for one scalar, bit for bit, with a branch
/// on the region: the face region computes only the projection, the rest
/// only the three edge candidates (the kernel computes both and selects).
/// The expressions are the kernel's, in the same order, so the answers are
/// identical (no fused or reordered arithmetic in Rust).
#[inline]
pub fn closest_point_on_triangle_branching<N: Real>(
    point: &Point3<N>,
    a: &Point3<N>,
    b: &Point3<N>,
    c: &Point3<N>,
) -> (Point3<N>, Vector3<N>) {
    let zero = N::zero();
    let one = N::one();
    let ab = b - a;
    let ac = c - a;
    let ap = point - a;
    let bp = point - b;
    let cp = point - c;
    let normal = ab.cross(&ac);
    let normal_squared = normal.norm_squared();
    let has_plane = normal_squared > degenerate_normal_squared(&ab, &ac);
    let area_a = normal.dot(&(c - b).cross(&bp));
    let area_b = normal.dot(&(a - c).cross(&cp));
    let area_c = normal.dot(&ab.cross(&ap));
    if area_a >= zero && area_b >= zero && area_c >= zero && has_plane {
        let face_point = onto_plane(&ap, &normal);
        let inverse_area = one / (area_a + area_b + area_c);
        let face_weights = Vector3::new(
            area_a * inverse_area,
            area_b * inverse_area,
            area_c * inverse_area,
        );
        return (a + face_point, face_weights);
    }
    let origin = Point3::origin();
    let ap_point = Point3::from(ap);
    let ab_point = Point3::from(ab);
    let ac_point = Point3::from(ac);
    let (on_ab, s_ab) = closest_point_on_segment(&ap_point, &origin, &ab_point);
    let (on_bc, s_bc) = closest_point_on_segment(&ap_point, &ab_point, &ac_point);
    let (on_ca, s_ca) = closest_point_on_segment(&ap_point, &ac_point, &origin);
    let d_ab = (ap_point - on_ab).norm_squared();
    let d_bc = (ap_point - on_bc).norm_squared();
    let d_ca = (ap_point - on_ca).norm_squared();
    // Ties keep the earlier edge, as in the kernel.
    let (best_distance, edge_point, edge_weights) = if d_bc < d_ab {
        (d_bc, on_bc.coords, Vector3::new(zero, one - s_bc, s_bc))
    } else {
        (d_ab, on_ab.coords, Vector3::new(one - s_ab, s_ab, zero))
    };
    let (edge_point, edge_weights) = if d_ca < best_distance {
        (on_ca.coords, Vector3::new(s_ca, zero, one - s_ca))
    } else {
        (edge_point, edge_weights)
    };
    (a + edge_point, edge_weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    use nalgebra::SimdValue;
    use simba::simd::WideF32x8;

    /// Unsigned distance to a triangle by dense barycentric sampling (f64).
    fn sampled_triangle_distance(p: &Point3<f64>, a: &Point3<f64>, b: &Point3<f64>, c: &Point3<f64>) -> f64 {
        let n = 600;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (v, w) = (i as f64 / n as f64, j as f64 / n as f64);
                let q = a + (b - a) * v + (c - a) * w;
                best = best.min((p - q).norm());
            }
        }
        best
    }

    fn check_triangle_against_sampling(
        a: Point3<f64>,
        b: Point3<f64>,
        c: Point3<f64>,
        queries: &[Point3<f64>],
    ) {
        let size = (b - a).norm().max((c - a).norm()).max((c - b).norm());
        for p in queries {
            let (q, weights) = closest_point_on_triangle(p, &a, &b, &c);
            assert!(q.iter().all(|x| x.is_finite()), "{q:?}");
            assert!(
                weights.iter().all(|&x| (-1e-12..=1.0 + 1e-12).contains(&x)),
                "{weights:?}"
            );
            assert!((weights.sum() - 1.0).abs() < 1e-12);
            let from_weights = a.coords * weights.x + b.coords * weights.y + c.coords * weights.z;
            assert!(
                (q.coords - from_weights).norm() < 1e-12 * (1.0 + size),
                "{q:?} vs {from_weights:?}"
            );
            let best = sampled_triangle_distance(p, &a, &b, &c);
            let d = (p - q).norm();
            // The grid spacing is size / 600: sampling may be that much worse.
            assert!(d <= best + 1e-12, "{p:?}: {d} vs sampled {best}");
            assert!(d >= best - 2.0 * size / 600.0, "{p:?}: {d} vs sampled {best}");
        }
    }

    fn queries() -> Vec<Point3<f64>> {
        let mut queries = Vec::new();
        for i in 0..7 {
            for j in 0..7 {
                for k in [-1.5, 0.0, 0.25, 2.0] {
                    queries.push(Point3::new(-3.0 + i as f64, -3.0 + j as f64, k));
                }
            }
        }
        queries
    }

    #[test]
    fn closest_point_on_triangle_against_dense_sampling() {
        // Every Voronoi region is visited: the 7×7 grid of queries spans
        // well past each vertex and edge, on both sides of the plane.
        check_triangle_against_sampling(
            Point3::new(-1.0, -1.0, 0.2),
            Point3::new(2.0, -0.5, -0.3),
            Point3::new(0.0, 1.5, 0.5),
            &queries(),
        );
        // An obtuse, sliver-ish one.
        check_triangle_against_sampling(
            Point3::new(-2.0, 0.0, 0.0),
            Point3::new(2.0, 0.0, 0.0),
            Point3::new(1.5, 0.3, 0.1),
            &queries(),
        );
    }

    #[test]
    fn closest_point_on_degenerate_triangles() {
        // Collinear (c between a and b), and with a repeated vertex: the
        // closest point of the segment -1..=2 along x.
        let a = Point3::new(-1.0, 0.0, 0.0);
        let b = Point3::new(2.0, 0.0, 0.0);
        let c = Point3::new(0.5, 0.0, 0.0);
        check_triangle_against_sampling(a, b, c, &queries());
        check_triangle_against_sampling(a, b, b, &queries());
        check_triangle_against_sampling(a, a, b, &queries());
        // Hand-checked: (5, 3, 4) projects to the end b = (2, 0, 0); (0, 3, 4)
        // to (0, 0, 0), a third of the way from a to b: weights (2/3, 1/3, 0)
        // when c = b.
        let (q, _) = closest_point_on_triangle(&Point3::new(5.0, 3.0, 4.0), &a, &b, &c);
        assert_eq!(q, b);
        let (q, w) = closest_point_on_triangle(&Point3::new(0.0, 3.0, 4.0), &a, &b, &b);
        assert_eq!(q, Point3::new(0.0, 0.0, 0.0));
        assert!((w - Vector3::new(2.0 / 3.0, 1.0 / 3.0, 0.0)).norm() < 1e-15);
        // All three vertices coincide: the point itself.
        let (q, w) = closest_point_on_triangle(&Point3::new(5.0, 3.0, 4.0), &a, &a, &a);
        assert_eq!((q, w), (a, Vector3::new(1.0, 0.0, 0.0)));
    }

    #[test]
    fn closest_point_on_triangle_hand_checked() {
        // Right triangle in z = 0: (0,0,0), (4,0,0), (0,4,0).
        let (a, b, c) = (
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(4.0, 0.0, 0.0),
            Point3::new(0.0, 4.0, 0.0),
        );
        // Above the interior: drop z. Weights (1 - 1/4 - 2/4, 1/4, 2/4).
        let (q, w) = closest_point_on_triangle(&Point3::new(1.0, 2.0, 7.0), &a, &b, &c);
        assert_eq!(q, Point3::new(1.0, 2.0, 0.0));
        assert!((w - Vector3::new(0.25, 0.25, 0.5)).norm() < 1e-15);
        // Beyond the hypotenuse x + y = 4: (3, 3, -1) → (2, 2, 0).
        let (q, _) = closest_point_on_triangle(&Point3::new(3.0, 3.0, -1.0), &a, &b, &c);
        assert_eq!(q, Point3::new(2.0, 2.0, 0.0));
        // Past vertex b along x: b itself.
        let (q, w) = closest_point_on_triangle(&Point3::new(6.0, -1.0, 2.0), &a, &b, &c);
        assert_eq!((q, w), (b, Vector3::new(0.0, 1.0, 0.0)));
        // NaN in: no panic, and no meaningful answer (the edge parameters
        // clamp a NaN to 0, so a vertex comes out); callers reject
        // non-finite points before asking.
        let (q, _) = closest_point_on_triangle(&Point3::new(f64::NAN, 0.0, 0.0), &a, &b, &c);
        assert!(q == a || q == b || q == c || q.x.is_nan(), "{q:?}");
    }

    #[test]
    fn closest_point_on_triangle_lanes_equal_scalar() {
        let a = Point3::new(1.0e4f32, -2.0, 0.5);
        let b = Point3::new(1.0e4 + 3.0, 1.0, -0.25);
        let c = Point3::new(1.0e4 - 1.0, 2.5, 1.0);
        let degenerate_c = Point3::new(1.0e4 + 1.5, -0.5, 0.125);
        let mut rng = geom_random::Rng::new(12345);
        let mut next = move || rng.range_f32(-5.0, 5.0);
        for corner in [c, degenerate_c, b] {
            for _ in 0..500 {
                let queries: [Point3<f32>; 8] =
                    std::array::from_fn(|_| Point3::new(1.0e4 + next(), next(), next()));
                let lane = |k: usize| WideF32x8::from(std::array::from_fn::<f32, 8, _>(|i| queries[i][k]));
                let splat = |p: Point3<f32>| p.map(WideF32x8::splat);
                let (q, w) = closest_point_on_triangle(
                    &Point3::new(lane(0), lane(1), lane(2)),
                    &splat(a),
                    &splat(b),
                    &splat(corner),
                );
                for (i, query) in queries.iter().enumerate() {
                    let (sq, sw) = closest_point_on_triangle(query, &a, &b, &corner);
                    assert_eq!(q.map(|x| x.extract(i)), sq);
                    assert_eq!(w.map(|x| x.extract(i)), sw);
                }
            }
        }
    }

    #[test]
    fn closest_point_on_segment_against_dense_sampling() {
        let a = Point3::new(1.0, -2.0, 0.5);
        let b = Point3::new(-3.0, 4.0, 2.0);
        for p in [
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(10.0, -10.0, 3.0),
            Point3::new(-8.0, 9.0, 1.0),
            Point3::new(-1.0, 1.0, 1.25),
        ] {
            let (q, s) = closest_point_on_segment(&p, &a, &b);
            assert!((q - (a + (b - a) * s)).norm() < 1e-12);
            let best = (0..=100_000)
                .map(|i| (p - (a + (b - a) * (i as f64 / 100_000.0))).norm())
                .fold(f64::INFINITY, f64::min);
            let d = (p - q).norm();
            assert!(d <= best + 1e-12 && d >= best - 1e-4, "{d} vs {best}");
        }
    }

    /// A segment of lanes, only some of which overflow `|ab|²` (the rescaled
    /// parameter is computed for the batch then): every lane answers as
    /// the same segment does alone, and that answer is the `f64` one.
    #[test]
    fn segment_lanes_some_overflowing_equal_scalars() {
        let segments = [
            (
                Point3::new(1.0f32, 2.0, 3.0),
                Point3::new(4.0, -2.0, 3.0),
                Point3::new(2.0, 1.0, 0.0),
            ),
            (
                Point3::new(-3e19, 1e19, 0.0),
                Point3::new(3e19, 2e19, 1e18),
                Point3::new(1e19, 0.0, 5e18),
            ),
            (
                Point3::new(0.5, 0.5, 0.5),
                Point3::new(0.5, 0.5, 0.5),
                Point3::new(9.0, 9.0, 9.0),
            ),
            (
                Point3::new(0.0, -2e20, 0.0),
                Point3::new(0.0, 2e20, 0.0),
                Point3::new(1.0, 3e19, 0.0),
            ),
        ];
        let mut lanes = [[0.0f32; 8]; 9];
        for (i, (a, b, p)) in segments.iter().cycle().take(8).enumerate() {
            for k in 0..3 {
                (lanes[k][i], lanes[3 + k][i], lanes[6 + k][i]) = (a[k], b[k], p[k]);
            }
            // The parameter in f64, where nothing overflows.
            let (a64, b64, p64) = (a.cast::<f64>(), b.cast::<f64>(), p.cast::<f64>());
            let ab = b64 - a64;
            let expected = if ab.norm_squared() > 0.0 {
                ((p64 - a64).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (on, s) = closest_point_on_segment(p, a, b);
            assert!(
                (f64::from(s) - expected).abs() < 1e-6,
                "segment {i}: {s} vs {expected}"
            );
            let size = a64.coords.amax().max(b64.coords.amax());
            let error = (on.cast::<f64>() - (a64 + ab * expected)).amax();
            assert!(error <= 1e-6 * size, "segment {i}: {on:?}");
        }
        let wide = |k: usize| {
            Point3::new(
                WideF32x8::from(lanes[k]),
                WideF32x8::from(lanes[k + 1]),
                WideF32x8::from(lanes[k + 2]),
            )
        };
        let (on, s) = closest_point_on_segment(&wide(6), &wide(0), &wide(3));
        for (i, (a, b, p)) in segments.iter().cycle().take(8).enumerate() {
            let (scalar_on, scalar_s) = closest_point_on_segment(p, a, b);
            assert_eq!(s.extract(i), scalar_s, "lane {i}");
            assert_eq!(on.map(|c| c.extract(i)), scalar_on, "lane {i}");
        }
    }

    #[test]
    fn zero_length_segment_answers_its_point() {
        let a = Point3::new(1.0f32, 2.0, 3.0);
        let (q, s) = closest_point_on_segment(&Point3::origin(), &a, &a);
        assert_eq!((q, s), (a, 0.0));
        let _ = Vector3::<f32>::zeros();
    }

    /// The branching scalar projection gives the kernel's answer bit for
    /// bit: random points and triangles (slivers and degenerate ones
    /// included), points on the planes, edges and vertices, near and far
    /// from the origin, in `f64` and `f32`.
    #[test]
    fn branching_projection_matches_the_kernel_bit_for_bit() {
        let mut rng = geom_random::Rng::from_state(0x1234_5678_9ABC_DEF1_u64);
        let mut next = move || rng.range(-1.0, 1.0);
        for case in 0..20_000 {
            let offset = [0.0, 1e3, 1e5][case % 3];
            let mut values = [0.0; 14];
            values.iter_mut().for_each(|v| *v = next());
            let point = |k: usize| Point3::new(values[k] + offset, values[k + 1], values[k + 2] - offset);
            let (a, mut b, mut c) = (point(0), point(3), point(6));
            match case % 7 {
                0 => c = a + (b - a) * 0.5,
                1 => b = a,
                2 => c = b,
                _ => {}
            }
            let weights = (values[12].abs(), values[13].abs());
            let on_plane = a + (b - a) * weights.0 + (c - a) * weights.1 * (1.0 - weights.0);
            let queries = [
                point(9),
                on_plane,
                a + (b - a) * weights.0,
                b,
                c + (on_plane - a) * 1e-9,
            ];
            // Debug text, so that NaN weights (a sliver whose sub-areas sum
            // to zero in f32) compare equal too.
            let text = |answer: &dyn std::fmt::Debug| format!("{answer:?}");
            for p in &queries {
                assert_eq!(
                    text(&closest_point_on_triangle_branching(p, &a, &b, &c)),
                    text(&closest_point_on_triangle(p, &a, &b, &c)),
                    "case {case}"
                );
                let cast = |q: &Point3<f64>| q.cast::<f32>();
                let (p32, a32, b32, c32) = (cast(p), cast(&a), cast(&b), cast(&c));
                assert_eq!(
                    text(&closest_point_on_triangle_branching(&p32, &a32, &b32, &c32)),
                    text(&closest_point_on_triangle(&p32, &a32, &b32, &c32)),
                    "case {case} (f32)"
                );
            }
        }
    }
}
