//! GJK: the distance between two convex cores through their support
//! functions (Gilbert, Johnson and Keerthi 1988, in the form of van den
//! Bergen, *Collision Detection in Interactive 3D Environments* §4.3, and
//! Ericson, *Real-Time Collision Detection* §9.5), with Montanari's signed
//! volumes as the simplex solver ([`super::simplex`]).

use geom_core::distance::closest_points_segment_segment;
use geom_core::{GeomError, Real, lit};
use nalgebra::{Point3, Vector3};

use super::simplex::closest_point_on_simplex;
use super::support::{MinkowskiPair, SupportPoint};

/// The most support points GJK asks for before it gives up and returns its
/// best answer with `converged = false`.
pub const GJK_MAX_ITERATIONS: u32 = 128;

/// GJK stops when an iteration can lower `|v|²` by at most this fraction
/// (`|v|² − v·w <= tolerance · |v|²`): the distance is then within about
/// half of it, relatively. `√ε / 256`: 5.8·10⁻¹¹ in `f64`, 1.3·10⁻⁶ in
/// `f32`. Polytope cores stop earlier, exactly, on a repeated vertex;
/// smooth ones (ellipsoids, cylinder and cone rims) often stop first on a
/// stalled descent (the decrease of `|v|²` is quadratic in the remaining
/// gap and falls below rounding), which the tests measure at under
/// 2·10⁻⁸ of the distance in `f64`.
pub fn gjk_relative_tolerance<N: Real>() -> N {
    N::default_epsilon().sqrt() / lit(256.0)
}

/// Cores closer than this many `ε` times the size of the Minkowski
/// difference's points count as touching: their separation direction is
/// rounding noise, so EPA (whose normals come from polytope faces) answers
/// instead, with a depth of about zero, possibly slightly negative.
pub const TOUCHING_EPSILONS: f64 = 16.0;

/// A GJK descent that stalls within this many `ε` times the size of the
/// Minkowski difference's points of the origin, with no separating plane
/// to show, counts as touching (the cores meet to rounding).
const STALL_TOUCHING_EPSILONS: f64 = 256.0;

/// How GJK ended on the cores.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CoreOutcome<N: Real> {
    /// The cores are apart by `distance` (`> 0`); the witness points are in
    /// `a`'s frame.
    Separated {
        distance: N,
        point_a: Point3<N>,
        point_b: Point3<N>,
        /// `−v`: from `a`'s core towards `b`'s (not normalised), the
        /// direction when the witness points round to one point.
        direction: Vector3<N>,
    },
    /// The cores overlap or touch; `simplex[..len]` holds (or comes within
    /// the touching tolerance of) the origin, at the given witness points.
    Intersecting {
        simplex: [SupportPoint<N>; 4],
        len: usize,
        point_a: Point3<N>,
        point_b: Point3<N>,
        /// For a descent taken as touching without reaching the origin
        /// (`v` within the touching tolerance, or stalled within 256
        /// ε·scale without a separating plane): `−v`, from which the
        /// refinement may still prove the cores apart.
        stalled: Option<Vector3<N>>,
    },
    /// The cores are farther apart than the limit: `lower_bound` exceeds it.
    Beyond { lower_bound: N },
}

/// GJK's answer on the cores, with its bookkeeping.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CoreGjk<N: Real> {
    pub outcome: CoreOutcome<N>,
    pub converged: bool,
    pub iterations: u32,
}

fn witness_points<N: Real>(simplex: &[SupportPoint<N>], weights: &[N; 4]) -> (Point3<N>, Point3<N>) {
    let mut point_a = simplex[0].a.coords * weights[0];
    let mut point_b = simplex[0].b.coords * weights[0];
    for (vertex, &weight) in simplex.iter().zip(weights).skip(1) {
        point_a += vertex.a.coords * weight;
        point_b += vertex.b.coords * weight;
    }
    (Point3::from(point_a), Point3::from(point_b))
}

/// GJK on the cores of `pair`, stopping early once the cores are proven
/// farther apart than `max_distance` (`+inf` for no limit).
///
/// Termination, whichever comes first: `v` within the touching tolerance
/// of the origin (intersecting), the origin inside a tetrahedron
/// (intersecting), relative progress below [`gjk_relative_tolerance`], a
/// support point already in the simplex, no decrease of `|v|` (rounding
/// has taken over), or [`GJK_MAX_ITERATIONS`] (not converged). The first
/// four are exact convergence criteria of the algorithm; the fifth means
/// the answer is as good as the precision allows.
pub(crate) fn gjk_cores<N: Real>(pair: &MinkowskiPair<N>, max_distance: N) -> Result<CoreGjk<N>, GeomError> {
    // Points and segments (spheres, capsules, segments): their closest
    // points directly (Eberly's segment–segment distance), exact where
    // GJK's simplex of a nearly flat parallelogram loses digits.
    if let Some([a0, a1, b0, b1]) = pair.segment_cores() {
        let closest = closest_points_segment_segment(&a0, &a1, &b0, &b1);
        let distance = geom_core::ray::length_without_overflow(&(closest.point_on_q - closest.point_on_p));
        let scale = [a0, a1, b0, b1]
            .iter()
            .fold(N::zero(), |m, p| m.max(p.coords.norm()));
        let touching = lit::<N>(TOUCHING_EPSILONS) * N::default_epsilon() * scale;
        // Lengths whose squares overflow (segments reaching 1e20 in
        // `f32`) leave the parameters NaN: GJK below works on differences.
        if !distance.is_finite() {
            // Fall through to GJK.
        } else if distance > max_distance {
            return Ok(CoreGjk {
                outcome: CoreOutcome::Beyond {
                    lower_bound: distance,
                },
                converged: true,
                iterations: 0,
            });
        } else if distance > touching {
            return Ok(CoreGjk {
                outcome: CoreOutcome::Separated {
                    distance,
                    point_a: closest.point_on_p,
                    point_b: closest.point_on_q,
                    direction: closest.point_on_q - closest.point_on_p,
                },
                converged: true,
                iterations: 0,
            });
        }
    }
    let toward_b = pair.b_origin();
    let initial = if toward_b.norm_squared() > N::zero() {
        toward_b
    } else {
        Vector3::x()
    };
    let first = pair.support(&initial)?;
    let mut simplex = [first; 4];
    let mut len = 1;
    let mut weights = [N::one(), N::zero(), N::zero(), N::zero()];
    let mut v = first.w;
    let mut iterations = 0;
    let relative = gjk_relative_tolerance::<N>();
    let touching = lit::<N>(TOUCHING_EPSILONS) * N::default_epsilon();
    let stall_touching = lit::<N>(STALL_TOUCHING_EPSILONS) * N::default_epsilon();
    let limit_squared = max_distance * max_distance;
    let separated = |simplex: &[SupportPoint<N>], weights: &[N; 4], v: &Vector3<N>| {
        let (point_a, point_b) = witness_points(simplex, weights);
        CoreOutcome::Separated {
            distance: v.norm(),
            point_a,
            point_b,
            direction: -*v,
        }
    };
    loop {
        let v_squared = v.norm_squared();
        if !v_squared.is_finite() {
            return Err(GeomError::NonFinite {
                input: "support point",
            });
        }
        let scale_squared = simplex[..len]
            .iter()
            .map(|s| s.w.norm_squared())
            .fold(N::zero(), |m, x| m.max(x));
        if v_squared <= touching * touching * scale_squared {
            let (point_a, point_b) = witness_points(&simplex[..len], &weights);
            return Ok(CoreGjk {
                outcome: CoreOutcome::Intersecting {
                    simplex,
                    len,
                    point_a,
                    point_b,
                    // Within the touching tolerance but not at the origin:
                    // the refinement's exact witnesses may still show the
                    // cores apart (a small cone 5.6e-4 from a box of size
                    // 300 in `f32`, where the tolerance is 5.7e-4).
                    stalled: (v_squared > N::zero()).then_some(-v),
                },
                converged: true,
                iterations,
            });
        }
        if iterations >= GJK_MAX_ITERATIONS {
            return Ok(CoreGjk {
                outcome: separated(&simplex[..len], &weights, &v),
                converged: false,
                iterations,
            });
        }
        iterations += 1;
        let w = pair.support(&-v)?;
        let v_dot_w = v.dot(&w.w);
        // `v·w / |v|` bounds the distance from below (the plane through w
        // normal to v separates the difference from the origin).
        if v_dot_w > N::zero() && v_dot_w * v_dot_w > limit_squared * v_squared {
            return Ok(CoreGjk {
                outcome: CoreOutcome::Beyond {
                    lower_bound: v_dot_w / v_squared.sqrt(),
                },
                converged: true,
                iterations,
            });
        }
        let no_progress = v_squared - v_dot_w <= relative * v_squared;
        let repeated = simplex[..len].iter().any(|s| s.w == w.w);
        // A repeated support point (or, below, a stalled descent) without a
        // plane through it separating the difference from the origin
        // (`v·w <= 0`) proves nothing: within rounding-sized reach of the
        // origin the cores touch to rounding (EPA answers), farther the
        // best answer stands but is not certified.
        let uncertified_touch =
            v_dot_w <= N::zero() && v_squared <= stall_touching * stall_touching * scale_squared;
        let stalled = || CoreGjk {
            outcome: if uncertified_touch {
                let (point_a, point_b) = witness_points(&simplex[..len], &weights);
                CoreOutcome::Intersecting {
                    simplex,
                    len,
                    point_a,
                    point_b,
                    stalled: Some(-v),
                }
            } else {
                separated(&simplex[..len], &weights, &v)
            },
            converged: uncertified_touch || v_dot_w > N::zero(),
            iterations,
        };
        if no_progress || repeated {
            return Ok(stalled());
        }
        let mut candidate = simplex;
        candidate[len] = w;
        let points: [Vector3<N>; 4] = std::array::from_fn(|i| candidate[i].w);
        let projection = closest_point_on_simplex(&points[..len + 1]);
        if projection.used == 0b1111 {
            let (point_a, point_b) = witness_points(&candidate, &projection.weights);
            return Ok(CoreGjk {
                outcome: CoreOutcome::Intersecting {
                    simplex: candidate,
                    len: 4,
                    point_a,
                    point_b,
                    stalled: None,
                },
                converged: true,
                iterations,
            });
        }
        let new_squared = projection.point.norm_squared();
        if new_squared >= v_squared || !new_squared.is_finite() {
            // Rounding stalled the descent: the previous answer is the best.
            return Ok(stalled());
        }
        len = 0;
        for (i, vertex) in candidate.iter().enumerate() {
            if projection.used & (1 << i) != 0 {
                simplex[len] = *vertex;
                weights[len] = projection.weights[i];
                len += 1;
            }
        }
        for weight in &mut weights[len..] {
            *weight = N::zero();
        }
        v = projection.point;
    }
}
