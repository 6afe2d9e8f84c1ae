//! A cheap, conservative test that a triangle lies beyond a segment's reach,
//! run before the full segment–triangle closest points.
//!
//! The squared distance `f(s)` from the segment point `p0 + s (p1 − p0)` to
//! the triangle is convex in `s` (the distance to a convex set is convex,
//! the point is affine in `s`), and its derivative is
//! `2 (p(s) − q(s)) · (p1 − p0)` with `q(s)` the closest triangle point. So
//! every evaluation gives a tangent line below `f`, and the least value of
//! `f` on `[0, 1]` is bounded from below by where the tangents at the ends
//! of a bracket meet (Kelley's cutting planes in one dimension). Each
//! evaluation is one scalar, branching point–triangle projection (Ericson,
//! *Real-Time Collision Detection* §5.1.5): an evaluation within reach ends
//! the test (keep the triangle), a bound beyond it ends it the other way
//! (drop), otherwise the bracket shrinks around the minimum and the test
//! repeats a few times before giving up (keep).

use geom_core::Real;
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

/// Cutting-plane steps after the two ends before the test gives up.
const REFINEMENTS: usize = 3;

/// A triangle relative to its first vertex, with the dot products that the
/// point projection reuses for every point.
struct TriangleFrame<N: Real> {
    ab: Vector3<N>,
    ac: Vector3<N>,
    normal: Vector3<N>,
    normal_squared: N,
    ab_ab: N,
    ab_ac: N,
    ac_ac: N,
}

impl<N: Real> TriangleFrame<N> {
    fn new(triangle: &Triangle<N>) -> Self {
        let ab = triangle.b - triangle.a;
        let ac = triangle.c - triangle.a;
        let normal = ab.cross(&ac);
        TriangleFrame {
            ab,
            ac,
            normal,
            normal_squared: normal.norm_squared(),
            ab_ab: ab.norm_squared(),
            ab_ac: ab.dot(&ac),
            ac_ac: ac.norm_squared(),
        }
    }

    /// `point − q` for `q` the triangle's closest point to `point`, given
    /// `ap = point − a`: Ericson's Voronoi-region walk, with the face case
    /// taken as the component along the normal (no cancellation in the
    /// height, however large the in-plane offset). Needs a triangle of
    /// non-zero area.
    #[inline(always)]
    fn offset(&self, ap: &Vector3<N>) -> Vector3<N> {
        let zero = N::zero();
        let d1 = self.ab.dot(ap);
        let d2 = self.ac.dot(ap);
        if d1 <= zero && d2 <= zero {
            return *ap;
        }
        // The same dot products for the point relative to b and to c.
        let (d3, d4) = (d1 - self.ab_ab, d2 - self.ab_ac);
        if d3 >= zero && d4 <= d3 {
            return ap - self.ab;
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= zero && d1 >= zero && d3 <= zero {
            return ap - self.ab * (d1 / (d1 - d3));
        }
        let (d5, d6) = (d1 - self.ab_ac, d2 - self.ac_ac);
        if d6 >= zero && d5 <= d6 {
            return ap - self.ac;
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= zero && d2 >= zero && d6 <= zero {
            return ap - self.ac * (d2 / (d2 - d6));
        }
        let va = d3 * d6 - d5 * d4;
        if va <= zero && d4 >= d3 && d5 >= d6 {
            let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            return ap - self.ab - (self.ac - self.ab) * w;
        }
        self.normal * (self.normal.dot(ap) / self.normal_squared)
    }

    /// The squared distance `f` from the point `a + ap` to the triangle,
    /// and its derivative `2 (point − q) · direction` along `direction`.
    #[inline(always)]
    fn value_and_slope(&self, ap: &Vector3<N>, direction: &Vector3<N>) -> (N, N) {
        let offset = self.offset(ap);
        let slope = offset.dot(direction);
        (offset.norm_squared(), slope + slope)
    }
}

/// A segment and its reach, with what the test needs once per query.
pub(super) struct SegmentReach<N: Real> {
    p0: Point3<N>,
    p1: Point3<N>,
    direction: Vector3<N>,
    /// The segment's box.
    lo: Point3<N>,
    hi: Point3<N>,
    /// The distance tested for.
    reach: N,
    /// `reach` enlarged by a relative 10⁻³ and by the rounding of the
    /// inputs, and its square.
    safe: N,
    safe_squared: N,
    /// `1 / direction` per axis (unused where the component is zero).
    inverse_direction: Vector3<N>,
}

impl<N: Real> SegmentReach<N> {
    /// The test for segment `p0 p1` and `reach`, against triangles whose
    /// coordinates are at most `coordinate_max` in magnitude.
    pub(super) fn new(p0: &Point3<N>, p1: &Point3<N>, reach: N, coordinate_max: N) -> Self {
        let coordinate_max = coordinate_max.max(p0.coords.amax()).max(p1.coords.amax());
        // The full test subtracts other pairs of points than this one does:
        // a few ulps of the largest coordinate, in distance.
        let safe = reach * nalgebra::convert::<f64, N>(1.001)
            + N::default_epsilon() * nalgebra::convert::<f64, N>(16.0) * coordinate_max;
        // The lower end first: on a Y-up terrain it is the one that most
        // often settles a triangle within reach at the first evaluation.
        let (p0, p1) = if p1.y < p0.y { (p1, p0) } else { (p0, p1) };
        SegmentReach {
            reach,
            p0: *p0,
            p1: *p1,
            direction: p1 - p0,
            lo: p0.inf(p1),
            hi: p0.sup(p1),
            safe,
            safe_squared: safe * safe,
            inverse_direction: (p1 - p0).map(|d| if d == N::zero() { N::zero() } else { N::one() / d }),
        }
    }

    /// How far from the segment every triangle is kept (not
    /// [beyond](SegmentReach::beyond)): the reach and a quarter of the
    /// test's relative margin, the rest of it (and the absolute one) left
    /// for the rounding of the points and distances compared with it.
    pub(super) fn keeps_within(&self) -> N {
        self.reach * (N::one() + nalgebra::convert::<f64, N>(1.0 / 4096.0))
    }

    /// `true` only when the segment is certainly farther than its reach
    /// from `triangle`, so that the full closest-point test would drop it
    /// too.
    ///
    /// First the gap between the two boxes and the segment clipped to the
    /// triangle's grown box, then the cutting-plane bound of
    /// the module documentation, compared with the enlarged reach plus the
    /// rounding of the bound itself (a few ulps of the squared local
    /// extent): every triangle that the full test keeps is kept. An
    /// undecided or degenerate case keeps the triangle.
    #[inline(always)]
    pub(super) fn beyond(&self, triangle: &Triangle<N>) -> bool {
        let zero = N::zero();
        let (a, b, c) = (&triangle.a, &triangle.b, &triangle.c);
        let gap = |lo: N, hi: N, other_lo: N, other_hi: N| (other_lo - hi).max(lo - other_hi).max(zero);
        let (t_lo, t_hi) = (a.inf(&b.inf(c)), a.sup(&b.sup(c)));
        let mut gap_squared = zero;
        for k in 0..3 {
            let g = gap(self.lo[k], self.hi[k], t_lo[k], t_hi[k]);
            gap_squared += g * g;
        }
        if gap_squared > self.safe_squared {
            return true;
        }
        // The part of the segment inside the triangle's box grown by `safe`
        // on every side, which holds every point within `safe` of the
        // triangle (slab clipping): none, and the triangle is beyond reach.
        let (mut enter, mut exit) = (zero, N::one());
        for k in 0..3 {
            let (slab_lo, slab_hi) = (t_lo[k] - self.safe, t_hi[k] + self.safe);
            if self.direction[k] == zero {
                // The box gap has already placed the segment in this slab.
                continue;
            }
            let t0 = (slab_lo - self.p0[k]) * self.inverse_direction[k];
            let t1 = (slab_hi - self.p0[k]) * self.inverse_direction[k];
            enter = enter.max(t0.min(t1));
            exit = exit.min(t0.max(t1));
        }
        if enter > exit {
            return true;
        }
        let frame = TriangleFrame::new(triangle);
        // Zero area, or NaN from an overflow: keep the triangle.
        if frame.normal_squared.partial_cmp(&zero) != Some(std::cmp::Ordering::Greater) {
            return false;
        }
        let (ap0, direction) = (self.p0 - a, self.direction);
        let local_extent = ap0.amax() + direction.amax() + frame.ab.amax() + frame.ac.amax();
        let limit = self.safe_squared
            + N::default_epsilon() * nalgebra::convert::<f64, N>(64.0) * local_extent * local_extent;
        let (f_lo, g_lo) = frame.value_and_slope(&ap0, &direction);
        if f_lo <= limit {
            return false;
        }
        if g_lo >= zero {
            return true;
        }
        let (f_hi, g_hi) = frame.value_and_slope(&(self.p1 - a), &direction);
        if f_hi <= limit {
            return false;
        }
        if g_hi <= zero {
            return true;
        }
        let (mut lo, mut f_lo, mut g_lo) = (zero, f_lo, g_lo);
        let (mut hi, mut f_hi, mut g_hi) = (N::one(), f_hi, g_hi);
        for _ in 0..REFINEMENTS {
            // Where the tangents at lo (falling) and hi (rising) meet.
            let s = ((f_hi - f_lo + g_lo * lo - g_hi * hi) / (g_lo - g_hi))
                .max(lo)
                .min(hi);
            if f_lo + g_lo * (s - lo) > limit {
                return true;
            }
            let (f, g) = frame.value_and_slope(&(ap0 + direction * s), &direction);
            if f <= limit {
                return false;
            }
            if g >= zero {
                (hi, f_hi, g_hi) = (s, f, g);
            } else {
                (lo, f_lo, g_lo) = (s, f, g);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use geom_core::distance::closest_points_segment_triangle;
    use nalgebra::{Point3, Vector3};

    use super::SegmentReach;
    use crate::test_support::{TestRng, random_field};
    use crate::{HeightField, HeightFieldDesc, TriangleId};

    /// A random segment near the terrain: any direction, lengths from 0 to
    /// 3, sometimes vertical, level or along a grid diagonal (parallel to
    /// edges), ends near vertices and edges.
    fn random_segment(rng: &mut TestRng, field: &HeightField<f64>) -> (Point3<f64>, Point3<f64>) {
        let extent = field.local_extent();
        let mut p0 = rng.point_in(&extent.loosened(1.0));
        if rng.below(4) == 0 {
            // Near a sample.
            let (i, j) = (rng.below(field.rows()), rng.below(field.cols()));
            p0 = field.sample_point(i, j) + Vector3::new(rng.range(-0.1, 0.1), rng.range(-1.0, 1.0), 0.0);
        }
        let length = [0.0, 1e-6, rng.range(0.0, 3.0)][rng.below(3)];
        let direction = match rng.below(5) {
            0 => Vector3::y(),
            1 => Vector3::new(rng.range(-1.0, 1.0), 0.0, rng.range(-1.0, 1.0)),
            2 => Vector3::new(field.cell_size()[0], rng.range(-0.5, 0.5), field.cell_size()[1]),
            _ => Vector3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)),
        };
        let direction = direction.try_normalize(1e-12).unwrap_or_else(Vector3::x);
        (p0, p0 + direction * length)
    }

    /// Over random terrains and segments, in `f64` and in `f32`, near the
    /// origin and 10⁴ from it: the test never drops a triangle that the
    /// full closest-point test finds within reach, and it drops most of
    /// those beyond 1.05 × reach.
    #[test]
    fn never_drops_a_triangle_within_reach() {
        let mut rng = TestRng::new(41);
        let (mut beyond, mut dropped) = (0usize, 0usize);
        for round in 0..120 {
            let mut field = random_field(&mut rng, 4 + round % 7, 4 + round % 5);
            if round % 3 == 2 {
                let mut desc = HeightFieldDesc::new(
                    field.origin() + Vector3::new(1e4, 30.0, -1e4),
                    field.cell_size(),
                    field.rows(),
                    field.cols(),
                    field.heights().to_vec(),
                );
                desc.flipped_cells = (0..field.cell_count()).filter(|c| field.is_flipped(*c)).collect();
                field = HeightField::try_from_desc(desc).unwrap();
            }
            let field_f32 = HeightField::<f32>::new(
                field.origin().cast(),
                [field.cell_size()[0] as f32, field.cell_size()[1] as f32],
                field.rows(),
                field.cols(),
                field.heights().iter().map(|h| *h as f32).collect(),
            );
            let extent = field.local_extent();
            let coordinate_max = extent.mins.coords.amax().max(extent.maxs.coords.amax());
            for _ in 0..40 {
                let (p0, p1) = random_segment(&mut rng, &field);
                let reach = [0.0, 1e-3, rng.range(0.0, 1.5)][rng.below(3)];
                let test = SegmentReach::new(&p0, &p1, reach, coordinate_max);
                let (q0, q1) = (p0.cast::<f32>(), p1.cast::<f32>());
                let test_f32 = SegmentReach::new(&q0, &q1, reach as f32, coordinate_max as f32);
                for id in 0..2 * field.cell_count() as u32 {
                    let (Some(t), Some(t32)) =
                        (field.triangle(TriangleId(id)), field_f32.triangle(TriangleId(id)))
                    else {
                        continue;
                    };
                    let distance =
                        closest_points_segment_triangle(&p0, &p1, &t.a, &t.b, &t.c).distance_squared;
                    if distance <= reach * reach {
                        assert!(
                            !test.beyond(&t),
                            "round {round}: {p0} {p1} {reach} drops {id} at {distance}"
                        );
                    } else if distance.sqrt() > 1.05 * reach {
                        beyond += 1;
                        dropped += usize::from(test.beyond(&t));
                    }
                    let distance_f32 =
                        closest_points_segment_triangle(&q0, &q1, &t32.a, &t32.b, &t32.c).distance_squared;
                    if distance_f32 <= (reach * reach) as f32 {
                        assert!(
                            !test_f32.beyond(&t32),
                            "round {round} (f32): {q0} {q1} {reach} drops {id}"
                        );
                    }
                }
            }
        }
        assert!(dropped * 100 >= beyond * 99, "dropped only {dropped} of {beyond}");
    }
}
