//! Closest points between two segments.

use nalgebra::{Point3, Vector3};

use crate::scalar::Real;

/// The closest points of two segments and their parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentSegmentClosest<N: Real> {
    /// Parameter on the first segment: the point is `p0 + s (p1 − p0)`.
    pub s: N,
    /// Parameter on the second segment: the point is `q0 + t (q1 − q0)`.
    pub t: N,
    /// The closest point on the first segment.
    pub point_on_p: Point3<N>,
    /// The closest point on the second segment.
    pub point_on_q: Point3<N>,
    /// The squared distance between the two points.
    pub distance_squared: N,
}

impl<N: Real> SegmentSegmentClosest<N> {
    /// The distance between the two points.
    pub fn distance(&self) -> N {
        self.distance_squared.sqrt()
    }
}

/// The root of `h(z) = h0 + slope·z` clamped to `[0, 1]`, where `h1 = h(1)`.
///
/// `h` is increasing (`slope > 0`), so the root is inside exactly when
/// `h0 < 0 < h1`; the division can then only leave `[0, 1]` through
/// rounding when `slope` is tiny, and the midpoint is as good an answer as
/// any (Eberly's `GetClampedRoot`).
fn clamped_root<N: Real>(slope: N, h0: N, h1: N) -> N {
    let zero = N::zero();
    if h0 >= zero {
        return zero;
    }
    if h1 <= zero {
        return N::one();
    }
    let root = -h0 / slope;
    if root > N::one() {
        nalgebra::convert(0.5)
    } else {
        root
    }
}

/// Which side of `[0, 1]` a clamped root fell on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Below,
    Inside,
    Above,
}

fn side<N: Real>(value: N) -> Side {
    if value <= N::zero() {
        Side::Below
    } else if value >= N::one() {
        Side::Above
    } else {
        Side::Inside
    }
}

/// The closest points of segments `p0 p1` and `q0 q1`.
///
/// Eberly, "Robust Computation of Distance Between Line Segments" (Geometric
/// Tools, 2015/2020). The squared distance is the convex quadratic
/// `R(s, t) = a s² − 2b st + c t² + 2d s − 2e t + f` on the unit square.
/// Instead of solving the 2×2 system, whose determinant `ac − b²` vanishes
/// for nearly parallel segments, the method follows the line where
/// `∂R/∂s = 0` across the square and minimises `R` along it: every step
/// divides by `a`, `c` or a difference of two values of opposite sign, none
/// of which cancels, so nearly parallel segments are as accurate as any.
/// Degenerate segments (a point) reduce to point–segment. The distance is
/// measured between the two points returned, not from the quadratic.
pub fn closest_points_segment_segment<N: Real>(
    p0: &Point3<N>,
    p1: &Point3<N>,
    q0: &Point3<N>,
    q1: &Point3<N>,
) -> SegmentSegmentClosest<N> {
    let zero = N::zero();
    let one = N::one();
    let p_dir: Vector3<N> = p1 - p0;
    let q_dir: Vector3<N> = q1 - q0;
    let between: Vector3<N> = p0 - q0;
    let a = p_dir.dot(&p_dir);
    let b = p_dir.dot(&q_dir);
    let c = q_dir.dot(&q_dir);
    let d = p_dir.dot(&between);
    let e = q_dir.dot(&between);

    // F(s, t) = a s − b t + d is half of ∂R/∂s; G(s, t) = −b s + c t − e half
    // of ∂R/∂t.
    let (s, t) = if a > zero && c > zero {
        let f_00 = d;
        let f_10 = a + d;
        let f_01 = d - b;
        let f_11 = a - b + d;
        let s_at_t0 = clamped_root(a, f_00, f_10);
        let s_at_t1 = clamped_root(a, f_01, f_11);
        match (side(s_at_t0), side(s_at_t1)) {
            (Side::Below, Side::Below) => (zero, clamped_root(c, -e, c - e)),
            (Side::Above, Side::Above) => (one, clamped_root(c, -b - e, c - b - e)),
            (side_t0, side_t1) => {
                // The minimiser over s for each t is s*(t) = clamp((b t − d)/a):
                // the line F = 0 inside the square, continued along the edge
                // s = 0 or s = 1 where the line leaves through it. The
                // minimum over t of R(s*(t), t) is where G changes sign.
                let on_edge = |side: Side| match side {
                    Side::Below => (zero, clamped_root(c, -e, c - e)),
                    _ => (one, clamped_root(c, -b - e, c - b - e)),
                };
                // Where F = 0 enters and leaves the square, in order of t.
                let crossing = |side: Side, s_on_edge: N, t_edge: N| match side {
                    Side::Inside => (s_on_edge, t_edge),
                    // F(0, t) = d − b t = 0 and F(1, t) = a + d − b t = 0;
                    // b ≠ 0 here, since the two ends lie on different sides.
                    Side::Below => (zero, clamp_unit(d / b)),
                    Side::Above => (one, clamp_unit((a + d) / b)),
                };
                let start = crossing(side_t0, s_at_t0, zero);
                let end = crossing(side_t1, s_at_t1, one);
                let g = |(s, t): (N, N)| -b * s + c * t - e;
                let (g_start, g_end) = (g(start), g(end));
                if g_start >= zero {
                    // R rises along the line from its start: the minimum is
                    // at the start, or further back along its edge.
                    if side_t0 == Side::Inside {
                        start
                    } else {
                        on_edge(side_t0)
                    }
                } else if g_end <= zero {
                    if side_t1 == Side::Inside {
                        end
                    } else {
                        on_edge(side_t1)
                    }
                } else {
                    // G rises from < 0 to > 0 along the line.
                    let z = clamped_root(g_end - g_start, g_start, g_end);
                    (start.0 + z * (end.0 - start.0), start.1 + z * (end.1 - start.1))
                }
            }
        }
    } else if a > zero {
        (clamped_root(a, d, a + d), zero)
    } else if c > zero {
        (zero, clamped_root(c, -e, c - e))
    } else {
        (zero, zero)
    };
    let (s, t) = interior_by_cross_products(p0, &p_dir, q0, &q_dir, s, t);
    let point_on_p = p0 + p_dir * s;
    let point_on_q = q0 + q_dir * t;
    SegmentSegmentClosest {
        s,
        t,
        point_on_p,
        point_on_q,
        distance_squared: (point_on_p - point_on_q).norm_squared(),
    }
}

/// The parameters of the lines' common perpendicular from cross products,
/// taken when they lie inside both segments and their points are no
/// farther apart than those of `(s, t)`: for nearly parallel segments the
/// quadratic's coefficients lose `ε/sin²θ` of the parameters, which puts
/// crossing segments `1e-9` apart at `θ = 1e-6` (or, below `θ ≈ 1e-8`,
/// takes them for parallel and answers an end), while
/// `s = ((q0 − p0) × dq) · m / |m|²` with `m = dp × dq` loses only
/// `ε/sin θ` of them, which moves the points along the lines but keeps
/// them within rounding of the perpendicular (Goldman, "Intersection of
/// Two Lines in Three-Space", Graphics Gems I).
fn interior_by_cross_products<N: Real>(
    p0: &Point3<N>,
    p_dir: &Vector3<N>,
    q0: &Point3<N>,
    q_dir: &Vector3<N>,
    s: N,
    t: N,
) -> (N, N) {
    let zero = N::zero();
    let one = N::one();
    let m = p_dir.cross(q_dir);
    let m_squared = m.norm_squared();
    if !(m_squared > zero && m_squared.is_finite()) {
        return (s, t);
    }
    let between = q0 - p0;
    let s_cross = between.cross(q_dir).dot(&m) / m_squared;
    let t_cross = between.cross(p_dir).dot(&m) / m_squared;
    if !(s_cross >= zero && s_cross <= one && t_cross >= zero && t_cross <= one) {
        return (s, t);
    }
    let gap = |s: N, t: N| ((p0 + p_dir * s) - (q0 + q_dir * t)).norm_squared();
    if gap(s_cross, t_cross) <= gap(s, t) {
        (s_cross, t_cross)
    } else {
        (s, t)
    }
}

fn clamp_unit<N: Real>(value: N) -> N {
    value.max(N::zero()).min(N::one())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: a dense grid over (s, t), then a finer grid around the
    /// best cell, in f64.
    fn brute_force(p0: Point3<f64>, p1: Point3<f64>, q0: Point3<f64>, q1: Point3<f64>) -> f64 {
        let at = |s: f64, t: f64| ((p0 + (p1 - p0) * s) - (q0 + (q1 - q0) * t)).norm();
        let n = 400;
        let (mut best, mut best_s, mut best_t) = (f64::INFINITY, 0.0, 0.0);
        for i in 0..=n {
            for j in 0..=n {
                let (s, t) = (i as f64 / n as f64, j as f64 / n as f64);
                let d = at(s, t);
                if d < best {
                    (best, best_s, best_t) = (d, s, t);
                }
            }
        }
        let step = 1.0 / n as f64;
        for i in 0..=400 {
            for j in 0..=400 {
                let s = (best_s + step * (i as f64 / 200.0 - 1.0)).clamp(0.0, 1.0);
                let t = (best_t + step * (j as f64 / 200.0 - 1.0)).clamp(0.0, 1.0);
                best = best.min(at(s, t));
            }
        }
        best
    }

    #[test]
    fn nearly_parallel_regression_case() {
        // Nearly parallel short segments where the 2×2 solve loses every
        // digit; the distance is 8.968157e-5 (brute force below agrees).
        let p0 = Point3::new(0.012711f64, -0.000688, -0.001097);
        let p1 = Point3::new(0.012895, -0.000686, -0.001133);
        let q0 = Point3::new(0.012676, -0.000689, -0.000999);
        let q1 = Point3::new(0.012859, -0.000687, -0.001034);
        let closest = closest_points_segment_segment(&p0, &p1, &q0, &q1);
        assert!(
            (closest.distance() - 8.968157e-5).abs() < 1e-11,
            "{}",
            closest.distance()
        );
        assert!((closest.distance() - brute_force(p0, p1, q0, q1)).abs() < 1e-10);
        let f32_closest =
            closest_points_segment_segment(&p0.cast::<f32>(), &p1.cast(), &q0.cast(), &q1.cast());
        // The inputs themselves round by ~1e-10 in f32; the answer keeps
        // about five digits.
        assert!(
            (f32_closest.distance() as f64 - 8.968157e-5).abs() < 2e-9,
            "{}",
            f32_closest.distance()
        );
    }

    #[test]
    fn hand_checked_cases() {
        // Crossing at right angles, 2 apart in z.
        let c = closest_points_segment_segment(
            &Point3::new(-1.0, 0.0, 0.0),
            &Point3::new(1.0, 0.0, 0.0),
            &Point3::new(0.0, -1.0, 2.0),
            &Point3::new(0.0, 1.0, 2.0),
        );
        assert_eq!((c.s, c.t, c.distance_squared), (0.5, 0.5, 4.0));
        // Parallel and overlapping, 1 apart: any pair across the overlap.
        let c = closest_points_segment_segment(
            &Point3::new(0.0f64, 0.0, 0.0),
            &Point3::new(4.0, 0.0, 0.0),
            &Point3::new(2.0, 1.0, 0.0),
            &Point3::new(6.0, 1.0, 0.0),
        );
        assert_eq!(c.distance_squared, 1.0);
        assert!((c.point_on_p.x - c.point_on_q.x).abs() < 1e-15 && (2.0..=4.0).contains(&c.point_on_p.x));
        // Collinear, disjoint: end to end, 1 apart.
        let c = closest_points_segment_segment(
            &Point3::new(0.0, 0.0, 0.0),
            &Point3::new(1.0, 0.0, 0.0),
            &Point3::new(2.0, 0.0, 0.0),
            &Point3::new(3.0, 0.0, 0.0),
        );
        assert_eq!((c.s, c.t, c.distance_squared), (1.0, 0.0, 1.0));
        // A point against a segment, and two points.
        let point = Point3::new(0.5, 3.0, 0.0);
        let c = closest_points_segment_segment(
            &point,
            &point,
            &Point3::new(0.0, 0.0, 0.0),
            &Point3::new(1.0, 0.0, 0.0),
        );
        assert_eq!((c.t, c.distance_squared), (0.5, 9.0));
        let c = closest_points_segment_segment(&point, &point, &Point3::origin(), &Point3::origin());
        assert_eq!(c.distance_squared, 9.25);
    }

    #[test]
    fn random_segments_against_brute_force() {
        let mut rng = geom_random::Rng::from_state(0x1234_5678_9ABCu64);
        let mut next = move || rng.range(-1.0, 1.0);
        for case in 0..300 {
            let mut point = || Point3::new(next(), next(), next());
            let (p0, p1, q0) = (point(), point(), point());
            // A third of the cases nearly parallel.
            let q1 = if case % 3 == 0 {
                q0 + (p1 - p0) * 0.9 + (point() - Point3::origin()) * 1e-6
            } else {
                point()
            };
            let closest = closest_points_segment_segment(&p0, &p1, &q0, &q1);
            let reference = brute_force(p0, p1, q0, q1);
            // The grid's minimum can only be larger, by at most its spacing.
            assert!(
                closest.distance() <= reference + 1e-12,
                "case {case}: {} > {reference}",
                closest.distance()
            );
            assert!(
                closest.distance() >= reference - 1e-5,
                "case {case}: {} << {reference}",
                closest.distance()
            );
            assert!((0.0..=1.0).contains(&closest.s) && (0.0..=1.0).contains(&closest.t));
        }
    }
}
