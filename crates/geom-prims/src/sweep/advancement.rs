//! Conservative advancement: a sweep from any distance query.

use geom_core::Real;
use nalgebra::{Point3, Vector3};

use super::{SweepHit, unit};

/// What a distance query between the moving shape (translated by some
/// offset) and the target answers, for [`conservative_advancement`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Proximity<N: Real> {
    /// The shapes are apart; their closest points.
    Apart {
        /// The point of the moving shape closest to the target.
        point_on_mover: Point3<N>,
        /// The point of the target closest to the moving shape.
        point_on_target: Point3<N>,
    },
    /// The shapes touch or overlap.
    Touching {
        /// A contact point on the target.
        point: Point3<N>,
        /// A unit normal from the target towards the moving shape.
        normal: Vector3<N>,
    },
}

/// The first time `t ∈ [0, 1]` at which a shape translated by `t · motion`
/// comes within `tolerance` of a target, from a distance query alone:
/// `proximity(offset)` answers for the shape moved by `offset` (`None`, an
/// error, stops the sweep with `None`).
///
/// Conservative advancement (Mirtich 1996; the step of van den Bergen,
/// "Ray Casting against General Convex Objects", 2004): at distance `d`
/// with closest-point normal `n`, the shape cannot touch the target before
/// travelling `d / (−motion · n)` when both shapes are convex (the plane
/// through the target's closest point separates them), nor before
/// `d / |motion|` otherwise (`convex = false`, e.g. terrain). Each step is
/// therefore safe: the returned `toi` is never later than the first
/// contact, and the shapes are apart by at most `tolerance` there
/// (measured in world units). If `max_iterations` steps do not converge,
/// the sweep stops at the time reached, still before any contact.
///
/// A motion that moves the shapes apart (`motion · n >= 0` with convex
/// shapes) misses. Touching at the start is reported at `toi = 0` unless
/// the motion separates, as for the exact sweeps ([module docs](super)).
pub fn conservative_advancement<N, F>(
    motion: &Vector3<N>,
    convex: bool,
    tolerance: N,
    max_iterations: usize,
    mut proximity: F,
) -> Option<SweepHit<N>>
where
    N: Real,
    F: FnMut(&Vector3<N>) -> Option<Proximity<N>>,
{
    let zero = N::zero();
    let one = N::one();
    let motion_length = motion.norm();
    let valid = motion_length.is_finite() && tolerance >= zero && tolerance.is_finite();
    if !valid {
        return None;
    }
    let mut toi = zero;
    let mut last: Option<SweepHit<N>> = None;
    for _ in 0..max_iterations {
        match proximity(&(motion * toi))? {
            Proximity::Touching { point, normal } => {
                if toi == zero && normal.dot(motion) > zero {
                    return None;
                }
                let hit = SweepHit { toi, point, normal };
                return hit.is_finite().then_some(hit);
            }
            Proximity::Apart {
                point_on_mover,
                point_on_target,
            } => {
                let gap = point_on_mover - point_on_target;
                let distance = gap.norm();
                let normal = unit(&gap)?;
                let hit = SweepHit {
                    toi,
                    point: point_on_target,
                    normal,
                };
                if distance <= tolerance {
                    return hit.is_finite().then_some(hit);
                }
                let closing_speed = if convex {
                    -normal.dot(motion)
                } else {
                    motion_length
                };
                let approaching = closing_speed > zero;
                if !approaching {
                    return None;
                }
                let next = toi + distance / closing_speed;
                let within_motion = next <= one;
                if !within_motion {
                    return None;
                }
                last = Some(hit);
                toi = next;
            }
        }
    }
    // Not converged: stop where we are, which is still before any contact.
    last.map(|hit| SweepHit { toi, ..hit })
        .filter(SweepHit::is_finite)
}
