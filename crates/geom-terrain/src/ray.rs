//! Ray casts against a heightfield: the ray is clipped to the terrain's
//! box (its x–z extent and the band between the lowest and the highest
//! height), then walked through the cells in order along the ray, by a 2D
//! DDA (Amanatides & Woo 1987) or, for rays nearly parallel to a grid
//! axis, strip by strip; both visit every cell the ray passes within
//! rounding of. A cell is skipped when the ray's height over it misses the
//! cell's corner heights, and each of its two triangles when the ray stays
//! on one side of the triangle's plane across the cell (both cheap,
//! conservative tests); the triangles left are tested with the watertight
//! triangle kernel ([`ray_cast_triangle_filtered`], bit for bit the lane
//! kernel's answer), and the walk stops once the next cell starts beyond
//! the best hit.

use geom_core::{FeatureId, Ray, RayHit, Real};
use geom_prims::triangle::ray_cast_triangle_filtered;
use nalgebra::Point3;

use crate::cells::height_range;
use crate::heightfield::{HeightField, index_to_real};

/// Grid-walk slack relative to the magnitudes involved: cells this close to
/// the ray's path are visited too, intervals in `t` are widened by this
/// much, and the plane test keeps triangles this close to the ray, so that
/// rounding can never skip a cell or a triangle the ray crosses (an extra
/// one costs a test, a skipped one a wrong miss).
fn slack<N: Real>() -> N {
    N::default_epsilon() * nalgebra::convert::<f64, N>(64.0)
}

/// `floor(x)` as an index clamped to `0..=hi` (NaN gives 0). Converts
/// through `f64` and truncates (above zero truncation is the floor, and no
/// libm call is needed); `as` saturates, so the clamp is two comparisons.
#[inline]
fn floor_clamped<N: Real>(x: N, hi: usize) -> usize {
    let x: f64 = x.to_subset().unwrap_or(f64::NAN);
    // Indices are below 2³² (the cell limit), so they fit an `i64`.
    (x as i64).clamp(0, hi as i64) as usize
}

/// The ray's x–z projection relative to the terrain's corner, with the
/// inverse components the slab arithmetic multiplies by.
#[derive(Clone, Copy, Debug)]
struct PlanarRay<N: Real> {
    origin: [N; 2],
    dir: [N; 2],
    inverse_dir: [N; 2],
}

impl<N: Real> PlanarRay<N> {
    /// A bound on the rounding of `(c − origin) / dir` along `axis` for any
    /// `|c| <= reach`, where `offset` bounds the absolute coordinates the
    /// relative ones were taken from (their rounding moves the grid lines).
    fn crossing_rounding(&self, axis: usize, reach: N, offset: N) -> N {
        if self.dir[axis] == N::zero() {
            N::zero()
        } else {
            slack::<N>() * (reach + offset + self.origin[axis].abs()) * self.inverse_dir[axis].abs()
        }
    }
}

/// `min(a, b)` for numbers known not to be NaN (one comparison, where
/// `f32::min` also sorts out NaN).
#[inline]
fn min_of<N: Real>(a: N, b: N) -> N {
    if a < b { a } else { b }
}

/// `max(a, b)` for numbers known not to be NaN.
#[inline]
fn max_of<N: Real>(a: N, b: N) -> N {
    if a > b { a } else { b }
}

/// The cells of a 2D grid (cell sizes `size`, cell `(0, 0)` starting at the
/// grid corner, indices limited to `0..=last`) that the ray crosses for
/// `t ∈ [t0, t1]`, visited strip by strip along the first axis and, within
/// a strip, along the second, in increasing `t`: a 2D grid traversal in the
/// manner of Amanatides & Woo, "A Fast Voxel Traversal Algorithm for Ray
/// Tracing" (1987), made conservative. `cells.visit(a, b, t_enter, t_exit)`
/// gets an interval holding the cell's exact one and returns `false` when
/// the cell starts beyond the best hit: the rest of its strip is skipped,
/// and the walk ends at the first strip that starts beyond it.
///
/// Amanatides & Woo step to whichever grid line comes first, advancing the
/// next line's `t` by a per-ray increment: the sum drifts, and at a corner
/// or along a grid line rounding picks one neighbour where the ray may
/// touch both. Here each line's crossing time is computed afresh from the
/// ray (once: a cell's exit line is its successor's entry line) and widened
/// by `rounding` (per axis, a bound on its error), and a strip's cells are
/// those the ray's second coordinate spans over the strip's interval,
/// widened by [`slack`] of it plus `span_slack` (the rounding of the
/// coordinates themselves, in cells). A cell the ray touches within
/// rounding of its boundary, at a corner or along a line, is therefore
/// visited; one the slack adds costs only the caller's height test.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn walk_cells<N: Real>(
    ray: &PlanarRay<N>,
    size: [N; 2],
    inverse_size: [N; 2],
    rounding: [N; 2],
    span_slack: [N; 2],
    last: [usize; 2],
    t0: N,
    t1: N,
    cells: &mut CellTest<'_, N>,
) {
    let eps = slack::<N>();
    let zero = N::zero();
    // The cells `first..=last` of `axis` (in the order of travel) that the
    // ray's coordinate spans over `[ta, tb]`, widened by the slack.
    let span = |axis: usize, ta: N, tb: N| {
        let (o, d) = (ray.origin[axis], ray.dir[axis]);
        let (u, v) = (
            (o + d * ta) * inverse_size[axis],
            (o + d * tb) * inverse_size[axis],
        );
        let (lo, hi) = (min_of(u, v), max_of(u, v));
        let lo = floor_clamped(lo - eps * lo.abs() - span_slack[axis], last[axis]);
        let hi = floor_clamped(hi + eps * hi.abs() + span_slack[axis], last[axis]);
        // `lo <= hi` unless NaN crept in; then the walk is empty.
        if d >= zero {
            (lo, hi, hi >= lo)
        } else {
            (hi, lo, hi >= lo)
        }
    };
    // The time the ray crosses grid line `k` of `axis` (any value when it
    // is parallel to the axis: the caller ignores it then).
    let line_t = |axis: usize, k: usize| {
        (index_to_real::<N>(k) * size[axis] - ray.origin[axis]) * ray.inverse_dir[axis]
    };
    // A cell's interval from the crossings of its entry and exit lines,
    // widened and clipped to `[ta, tb]`; when rounding leaves it empty (a
    // cell the slack added, met at one end) its ends are swapped.
    let clip = |entry: N, exit: N, rounding: N, ta: N, tb: N| {
        let first = max_of(entry - rounding, ta);
        let last = min_of(exit + rounding, tb);
        if first <= last {
            (first, last)
        } else {
            (last, first)
        }
    };
    let moving = [ray.dir[0] != zero, ray.dir[1] != zero];
    // Moving forward, cell `k` is entered at line `k` and left at line
    // `k + 1`; backward, entered at `k + 1` and left at `k`.
    let forward = [ray.dir[0] >= zero, ray.dir[1] >= zero];
    let exit_line = |axis: usize, k: usize| if forward[axis] { k + 1 } else { k };
    let next = |axis: usize, k: usize| if forward[axis] { k + 1 } else { k.wrapping_sub(1) };
    let (a_first, a_last, a_any) = span(0, t0, t1);
    if !a_any {
        return;
    }
    let mut a = a_first;
    let mut a_entry = line_t(0, if forward[0] { a } else { a + 1 });
    loop {
        let a_exit = line_t(0, exit_line(0, a));
        let (ta, tb) = if moving[0] {
            clip(a_entry, a_exit, rounding[0], t0, t1)
        } else {
            (t0, t1)
        };
        // Strips come in order of their start (all start at `t0` when the
        // ray is parallel to them, so one cell beyond the best hit does
        // not end the walk).
        if ta > cells.best_t {
            return;
        }
        let (b_first, b_last, b_any) = span(1, ta, tb);
        if b_any {
            let mut b = b_first;
            let mut b_entry = line_t(1, if forward[1] { b } else { b + 1 });
            loop {
                let b_exit = line_t(1, exit_line(1, b));
                let (te, tx) = if moving[1] {
                    clip(b_entry, b_exit, rounding[1], ta, tb)
                } else {
                    (ta, tb)
                };
                // Within a strip the cells come in order of `t`: once one
                // starts beyond the best hit, so do the rest of the strip.
                if !cells.visit(a, b, te, tx) || b == b_last {
                    break;
                }
                b = next(1, b);
                b_entry = b_exit;
            }
        }
        if a == a_last {
            return;
        }
        a = next(0, a);
        a_entry = a_exit;
    }
}

/// [`walk_cells`] for a ray that is not nearly parallel to either grid
/// axis, as a plain 2D DDA (Amanatides & Woo 1987): from cell `start`, step
/// to whichever grid line the ray crosses next. Each crossing time is
/// computed afresh from the line's index (no accumulated increments) and
/// is known to `rounding` (per axis); the caller guarantees that the
/// rounding windows of two successive lines of an axis cannot overlap
/// (`4 (r_x + r_z)` is less than either axis' time per cell), so at most two
/// columns and two rows are within rounding of the ray at any time. When
/// the x and z windows overlap (the ray passes within rounding of a
/// corner), both neighbours are visited before the diagonal cell, so the
/// cells visited are those of [`walk_cells`]: every cell whose exact
/// interval meets `[t0, t1]`, each with an interval holding that one.
///
/// `start` must be the cell holding the ray at `t0`, moved back (against
/// the direction of travel) across a grid line within rounding, so that a
/// line crossed within rounding of `t0` is crossed by the walk.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn walk_cells_dda<N: Real>(
    ray: &PlanarRay<N>,
    size: [N; 2],
    rounding: [N; 2],
    start: [usize; 2],
    last: [usize; 2],
    t0: N,
    t1: N,
    cells: &mut CellTest<'_, N>,
) {
    let mut visit = |a, b, te, tx| cells.visit(a, b, te, tx);
    let forward = [ray.dir[0] > N::zero(), ray.dir[1] > N::zero()];
    // When the ray crosses the line it leaves cell `k` of `axis` by.
    let exit_crossing = |axis: usize, k: usize| {
        let line = if forward[axis] { k + 1 } else { k };
        (index_to_real::<N>(line) * size[axis] - ray.origin[axis]) * ray.inverse_dir[axis]
    };
    // The next cell along `axis` (`None` past the grid).
    let next = |axis: usize, k: usize| {
        if forward[axis] {
            (k < last[axis]).then_some(k + 1)
        } else {
            k.checked_sub(1)
        }
    };
    // `[te, tx]` clipped to `[t0, t1]`, ends swapped when that empties it
    // (a cell met within rounding at one end of the interval).
    let clip = |te: N, tx: N| {
        let (te, tx) = (max_of(te, t0), min_of(tx, t1));
        if te <= tx { (te, tx) } else { (tx, te) }
    };
    let [round_x, round_z] = rounding;
    let [mut i, mut j] = start;
    let (mut exit_x, mut exit_z) = (exit_crossing(0, i), exit_crossing(1, j));
    let mut t_enter = t0;
    loop {
        let (te, tx) = clip(t_enter, min_of(exit_x + round_x, exit_z + round_z));
        if !visit(i, j, te, tx) {
            return;
        }
        let (enter_x, enter_z) = (exit_x - round_x, exit_z - round_z);
        let gap = exit_x - exit_z;
        if gap.abs() <= round_x + round_z {
            // Within rounding of the corner: the two cells beside it
            // (those that start before `t1`), then the diagonal one.
            if min_of(enter_x, enter_z) > t1 {
                return;
            }
            match (next(0, i), next(1, j)) {
                (Some(next_i), Some(next_j)) => {
                    // The side cell entered first goes first: when it starts
                    // beyond the best hit, so do the other and the diagonal.
                    let side_x = (next_i, j, enter_x, exit_z + round_z);
                    let side_z = (i, next_j, enter_z, exit_x + round_x);
                    let sides = if enter_x <= enter_z {
                        [side_x, side_z]
                    } else {
                        [side_z, side_x]
                    };
                    for (a, b, enter, exit) in sides {
                        if enter <= t1 {
                            let (te, tx) = clip(enter, exit);
                            if !visit(a, b, te, tx) {
                                return;
                            }
                        }
                    }
                    t_enter = max_of(enter_x, enter_z);
                    if t_enter > t1 {
                        return;
                    }
                    (i, j) = (next_i, next_j);
                    (exit_x, exit_z) = (exit_crossing(0, i), exit_crossing(1, j));
                }
                (Some(next_i), None) if enter_x <= t1 => {
                    (i, t_enter) = (next_i, enter_x);
                    exit_x = exit_crossing(0, i);
                }
                (None, Some(next_j)) if enter_z <= t1 => {
                    (j, t_enter) = (next_j, enter_z);
                    exit_z = exit_crossing(1, j);
                }
                _ => return,
            }
        } else if gap < N::zero() {
            match next(0, i) {
                Some(next_i) if enter_x <= t1 => {
                    (i, t_enter) = (next_i, enter_x);
                    exit_x = exit_crossing(0, i);
                }
                _ => return,
            }
        } else {
            match next(1, j) {
                Some(next_j) if enter_z <= t1 => {
                    (j, t_enter) = (next_j, enter_z);
                    exit_z = exit_crossing(1, j);
                }
                _ => return,
            }
        }
    }
}

/// The ray in the terrain's frame relative to its origin, x and z in cell
/// units, with the magnitudes that bound the rounding of the plane test.
#[derive(Clone, Copy, Debug)]
struct CellRay<N: Real> {
    /// Height of the origin and its rate, relative to the terrain's origin.
    y: N,
    dy: N,
    /// x and z in cells from the terrain's corner, and their rates.
    u: N,
    du: N,
    v: N,
    dv: N,
    /// `|ray origin| + |terrain origin|` per axis (x, z in cells): the
    /// absolute coordinates the triangle kernel sees round at this scale.
    offset_y: N,
    offset_u: N,
    offset_v: N,
}

impl<N: Real> CellRay<N> {
    /// Which of the two triangles of cell `(i, j)` (corner heights
    /// `[h(i,j), h(i+1,j), h(i,j+1), h(i+1,j+1)]`, relative to the
    /// terrain's origin) the ray may cross for `t` in `[t_enter, t_exit]`,
    /// an interval holding the cell's exact one.
    ///
    /// The height of the ray above a triangle's plane is linear in `t`, so
    /// across the cell it lies between its values at the two ends; the ray
    /// crosses the triangle only if they are not both above (or both below)
    /// zero by more than a bound on their rounding (and on the kernel's own,
    /// absolute coordinates). Only triangles kept here are worth the exact
    /// test: a cell the ray passes over or under costs no triangle test.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn may_cross_triangles(
        &self,
        i: usize,
        j: usize,
        corners: [N; 4],
        flipped: bool,
        t_enter: N,
        t_exit: N,
    ) -> [bool; 2] {
        let [h00, h10, h01, h11] = corners;
        // Each plane as height(0, 0) + rise along x · u + rise along z · v
        // in the cell's own units.
        let planes = if flipped {
            [
                (h00, h10 - h00, h01 - h00),
                (h10 + h01 - h11, h11 - h01, h11 - h10),
            ]
        } else {
            [(h00, h10 - h00, h11 - h10), (h00, h11 - h01, h01 - h00)]
        };
        let (ci, cj) = (index_to_real::<N>(i), index_to_real::<N>(j));
        let local = |t: N| {
            (
                self.y + self.dy * t,
                self.u + self.du * t - ci,
                self.v + self.dv * t - cj,
            )
        };
        let (enter, exit) = (local(t_enter), local(t_exit));
        let reach = max_of(t_enter.abs(), t_exit.abs());
        let rise_u = max_of(planes[0].1.abs(), planes[1].1.abs());
        let rise_v = max_of(planes[0].2.abs(), planes[1].2.abs());
        let height = max_of(max_of(h00.abs(), h10.abs()), max_of(h01.abs(), h11.abs()));
        let one = N::one();
        let three: N = nalgebra::convert(3.0);
        let four: N = nalgebra::convert(4.0);
        let eps = slack::<N>();
        let scale_u = self.offset_u + self.du.abs() * reach + ci + one;
        let scale_v = self.offset_v + self.dv.abs() * reach + cj + one;
        let margin = eps
            * (self.offset_y + self.dy.abs() * reach + three * height + rise_u * scale_u + rise_v * scale_v);
        let above = |(base, rise_along_u, rise_along_v): (N, N, N), (y, u, v): (N, N, N)| {
            y - base - rise_along_u * u - rise_along_v * v
        };
        // Whether a height above the plane that runs from `a` to `b` may
        // cross zero; NaN keeps the triangle.
        let may_cross = |a: N, b: N, margin: N| !(min_of(a, b) > margin || max_of(a, b) < -margin);
        // The diagonal splits the cell: positive on the side of triangle 1.
        let diagonal = |(_, u, v): (N, N, N)| if flipped { u + v - one } else { v - u };
        let (diagonal_enter, diagonal_exit) = (diagonal(enter), diagonal(exit));
        let diagonal_margin = eps * (scale_u + scale_v);
        let whole = |plane| may_cross(above(plane, enter), above(plane, exit), margin);
        if max_of(diagonal_enter, diagonal_exit) < -diagonal_margin {
            return [whole(planes[0]), false];
        }
        if min_of(diagonal_enter, diagonal_exit) > diagonal_margin {
            return [false, whole(planes[1])];
        }
        let diagonal_change = diagonal_enter - diagonal_exit;
        // (NaN, too, tests both.)
        if diagonal_change.abs() <= four * diagonal_margin || crate::heightfield::is_nan(diagonal_change) {
            return planes.map(whole);
        }
        // The ray crosses the diagonal once, at a fraction of the way that
        // is known to `4 · diagonal_margin / |change|`: each triangle is met
        // on its side of that point, its height allowing for that much of
        // its change across the cell.
        let fraction = diagonal_enter / diagonal_change;
        let fraction = min_of(max_of(fraction, N::zero()), one);
        let fraction_error = four * diagonal_margin / diagonal_change.abs() + four * eps;
        let middle = local(t_enter + (t_exit - t_enter) * fraction);
        // The side the ray moves into (positive: triangle 1's) holds the
        // part after the crossing; clamping the fraction leaves the other
        // side only an end when the crossing falls outside the cell.
        let side_before = usize::from(diagonal_exit < diagonal_enter);
        let mut keep = [false; 2];
        for (half, plane) in planes.into_iter().enumerate() {
            let (a, b) = (above(plane, enter), above(plane, exit));
            let at_diagonal = above(plane, middle);
            let margin = margin + (b - a).abs() * fraction_error;
            keep[half] = if half == side_before {
                may_cross(a, at_diagonal, margin)
            } else {
                may_cross(at_diagonal, b, margin)
            };
        }
        keep
    }
}

impl<N: Real> HeightField<N> {
    /// The first hit of a local-frame ray with the surface for
    /// `0 <= t <= max_t`, from either side, with the upward (outward)
    /// normal of the triangle hit and `FeatureId::Face(triangle id)`.
    /// Holes let rays through. The solid rule (an origin below the surface
    /// hits at `t = 0`) is applied by the [`Shape`](geom_core::Shape)
    /// method, not here.
    pub fn ray_cast_surface(&self, ray: &Ray<N>, max_t: N) -> Option<RayHit<N>> {
        if !ray.is_finite() || crate::heightfield::is_nan(max_t) || max_t < N::zero() {
            return None;
        }
        let eps = slack::<N>();
        let one = N::one();
        // The part of `[0, max_t]` inside the terrain's box (slab test,
        // Williams et al. 2005), each slab widened by a bound on the rounding
        // of its crossing times so that the interval holds the exact one
        // (the height and plane tests need the ray's ends over every cell).
        let extent = self.local_extent();
        let inverse_dir = ray.dir.map(|d| one / d);
        let (mut t0, mut t1) = (N::zero(), max_t);
        for axis in 0..3 {
            let (o, lo, hi) = (ray.origin[axis], extent.mins[axis], extent.maxs[axis]);
            if ray.dir[axis] == N::zero() {
                if o < lo || o > hi {
                    return None;
                }
                continue;
            }
            let inverse = inverse_dir[axis];
            let (a, b) = ((lo - o) * inverse, (hi - o) * inverse);
            let (enter, exit) = if inverse >= N::zero() { (a, b) } else { (b, a) };
            let widen = eps * (max_of(lo.abs(), hi.abs()) + o.abs()) * inverse.abs();
            t0 = max_of(t0, enter - widen);
            t1 = min_of(t1, exit + widen);
        }
        if t0 > t1 || crate::heightfield::is_nan(t0 - t1) {
            return None;
        }
        let rel_y = ray.origin.y - self.origin.y;
        let planar = PlanarRay {
            origin: [ray.origin.x - self.origin.x, ray.origin.z - self.origin.z],
            dir: [ray.dir.x, ray.dir.z],
            inverse_dir: [inverse_dir.x, inverse_dir.z],
        };
        let inverse_cell = [one / self.cell_size[0], one / self.cell_size[1]];
        let cell_ray = CellRay {
            y: rel_y,
            dy: ray.dir.y,
            u: planar.origin[0] * inverse_cell[0],
            du: ray.dir.x * inverse_cell[0],
            v: planar.origin[1] * inverse_cell[1],
            dv: ray.dir.z * inverse_cell[1],
            offset_y: ray.origin.y.abs() + self.origin.y.abs(),
            offset_u: (ray.origin.x.abs() + self.origin.x.abs()) * inverse_cell[0],
            offset_v: (ray.origin.z.abs() + self.origin.z.abs()) * inverse_cell[1],
        };
        let reach = max_of(t0.abs(), t1.abs());
        // Every grid line lies within `grid_reach` of the corner; the
        // relative coordinates carry the rounding of absolute ones as large
        // as `offset`.
        let offset = [
            cell_ray.offset_u * self.cell_size[0],
            cell_ray.offset_v * self.cell_size[1],
        ];
        let last = [self.rows - 2, self.cols - 2];
        let grid_reach = [
            index_to_real::<N>(last[0] + 1) * self.cell_size[0],
            index_to_real::<N>(last[1] + 1) * self.cell_size[1],
        ];
        let rounding = [0, 1].map(|axis| planar.crossing_rounding(axis, grid_reach[axis], offset[axis]));
        let cell_slack = [0, 1].map(|axis| {
            let extent = offset[axis] + planar.origin[axis].abs() + planar.dir[axis].abs() * reach;
            eps * (one + extent / self.cell_size[axis])
        });
        // The ray's height over [t0, t1] is monotone in t, so its ends
        // bound it: the widening of the height test is bounded once.
        let (y0, y1) = (rel_y + ray.dir.y * t0, rel_y + ray.dir.y * t1);
        let widen =
            eps * ((reach + reach + one) * ray.dir.y.abs() + y0.abs() + y1.abs() + cell_ray.offset_y + one);
        let mut cells = CellTest {
            field: self,
            ray,
            cell_ray,
            widen,
            best: None,
            best_t: max_t,
        };
        // The DDA needs each axis' crossing windows shorter than a quarter
        // of a cell's time across either axis; rays nearly parallel to an
        // axis (or far terrains with tiny cells) take the strip walk.
        let four: N = nalgebra::convert(4.0);
        let time_per_cell = [0, 1].map(|axis| self.cell_size[axis] * planar.inverse_dir[axis].abs());
        let windows = four * (rounding[0] + rounding[1]);
        let oblique = planar.dir[0] != N::zero() && planar.dir[1] != N::zero();
        if oblique && windows < time_per_cell[0] && windows < time_per_cell[1] {
            // The cell at `t0`, moved back across a line within the slack.
            let start = [0, 1].map(|axis| {
                let at = (planar.origin[axis] + planar.dir[axis] * t0) * inverse_cell[axis];
                let back = (eps * at.abs() + cell_slack[axis]) * nalgebra::convert::<f64, N>(2.0);
                let back = if planar.dir[axis] > N::zero() { -back } else { back };
                floor_clamped(at + back, last[axis])
            });
            walk_cells_dda(&planar, self.cell_size, rounding, start, last, t0, t1, &mut cells);
        } else {
            walk_cells(
                &planar,
                self.cell_size,
                inverse_cell,
                rounding,
                cell_slack,
                last,
                t0,
                t1,
                &mut cells,
            );
        }
        cells.best
    }
}

/// What the walk does with each cell: the cheap height test inline, the
/// triangle tests (rarely reached) out of line; it holds the best hit.
struct CellTest<'a, N: Real> {
    field: &'a HeightField<N>,
    ray: &'a Ray<N>,
    cell_ray: CellRay<N>,
    /// Widening of the height test: a bound on the rounding of the ray's
    /// height and of `t` over the walk's interval.
    widen: N,
    best: Option<RayHit<N>>,
    best_t: N,
}

impl<N: Real> CellTest<'_, N> {
    /// Tests cell `(i, j)` over `[cell_te, cell_tx]` (an interval holding
    /// the ray's exact one over the cell); `false` once the cell starts
    /// beyond the best hit, which ends the walk.
    #[inline(always)]
    fn visit(&mut self, i: usize, j: usize, cell_te: N, cell_tx: N) -> bool {
        if cell_te > self.best_t {
            return false;
        }
        let cols = self.field.cols;
        let row = i * cols + j;
        let heights = &self.field.heights;
        let (near, far) = (&heights[row..row + 2], &heights[row + cols..row + cols + 2]);
        let corners = [near[0], far[0], near[1], far[1]];
        let (low, high) = height_range(corners);
        // The ray's height over the cell lies between its values at the
        // interval's ends; the cell is skipped when that range misses the
        // corners' (the triangles lie within it).
        let cell_ray = &self.cell_ray;
        let (ya, yb) = (
            cell_ray.y + cell_ray.dy * cell_te,
            cell_ray.y + cell_ray.dy * cell_tx,
        );
        if min_of(ya, yb) - self.widen <= high && max_of(ya, yb) + self.widen >= low {
            self.cast_triangles(i, j, corners, cell_te, cell_tx);
        }
        true
    }

    /// The triangles of cell `(i, j)` (corner heights `corners`, relative to
    /// `origin.y`) that the ray may cross over `[cell_te, cell_tx]`, tested
    /// with the filtered kernel; a closer hit replaces the best. Holes are
    /// skipped here: the height test comes first, and most cells fail it.
    #[inline(never)]
    fn cast_triangles(&mut self, i: usize, j: usize, corners: [N; 4], cell_te: N, cell_tx: N) {
        let field = self.field;
        let cell = field.cell_index(i, j);
        if field.is_hole(cell) {
            return;
        }
        let flipped = field.is_flipped(cell);
        let candidates = self
            .cell_ray
            .may_cross_triangles(i, j, corners, flipped, cell_te, cell_tx);
        // The corners as `HeightField::cell_triangle` builds them (the same
        // expressions, so the same bits), from the heights at hand.
        let (x0, x1) = (field.sample_x(i), field.sample_x(i + 1));
        let (z0, z1) = (field.sample_z(j), field.sample_z(j + 1));
        let y = |h: N| field.origin.y + h;
        let [h00, h10, h01, h11] = corners;
        let (p00, p10, p01, p11) = (
            Point3::new(x0, y(h00), z0),
            Point3::new(x1, y(h10), z0),
            Point3::new(x0, y(h01), z1),
            Point3::new(x1, y(h11), z1),
        );
        for (half, _) in candidates.iter().enumerate().filter(|(_, keep)| **keep) {
            // The vertex order of `HeightField::triangle_samples`.
            let [a, b, c] = match (flipped, half) {
                (false, 0) => [p00, p11, p10],
                (false, _) => [p00, p01, p11],
                (true, 0) => [p00, p01, p10],
                (true, _) => [p10, p01, p11],
            };
            debug_assert!({
                let t = field.cell_triangle(i, j, half);
                (t.a, t.b, t.c) == (a, b, c)
            });
            if let Some(hit) = ray_cast_triangle_filtered(self.ray, &a, &b, &c, self.best_t).into_hit() {
                let from_below = hit.feature == FeatureId::Face(1);
                if self.best.is_none_or(|b| hit.t < b.t) {
                    self.best_t = hit.t;
                    self.best = Some(RayHit {
                        t: hit.t,
                        normal: if from_below { -hit.normal } else { hit.normal },
                        feature: FeatureId::Face(field.triangle_id(i, j, half).0),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TriangleId;
    use crate::test_support::{TestRng, random_field};
    use geom_core::Shape;
    use geom_prims::triangle::ray_cast_triangle;
    use nalgebra::{Point3, Vector3};

    /// Closest hit over every triangle (f64), with the upward normal.
    fn brute_force(field: &HeightField<f64>, ray: &Ray<f64>, max_t: f64) -> Option<(f64, u32)> {
        let mut best: Option<(f64, u32)> = None;
        for id in 0..2 * field.cell_count() as u32 {
            let Some(t) = field.triangle(TriangleId(id)) else {
                continue;
            };
            if let Some(hit) = ray_cast_triangle(ray, &t.a, &t.b, &t.c, max_t).into_hit()
                && best.is_none_or(|(b, _)| hit.t < b)
            {
                best = Some((hit.t, id));
            }
        }
        best
    }

    #[test]
    fn ray_casts_match_brute_force_on_random_terrains() {
        let mut rng = TestRng::new(11);
        let (mut hits, mut total) = (0, 0);
        for round in 0..60 {
            let field = random_field(&mut rng, 2 + round % 31, 2 + (round * 7) % 29);
            let extent = field.local_extent();
            let around = extent.loosened(3.0);
            for _ in 0..80 {
                let origin = rng.point_in(&around);
                let target = rng.point_in(&extent);
                let mut dir = target - origin;
                match rng.below(6) {
                    0 => dir = Vector3::new(0.0, -1.0, 0.0) * rng.range(0.1, 4.0),
                    1 => dir.y *= 0.01,
                    2 => dir.x = 0.0,
                    _ => {}
                }
                let max_t = if rng.below(4) == 0 {
                    rng.range(0.0, 1.5)
                } else {
                    f64::INFINITY
                };
                let ray = Ray::new(origin, dir);
                let expected = brute_force(&field, &ray, max_t);
                let got = field.ray_cast_surface(&ray, max_t);
                total += 1;
                match (expected, got) {
                    (None, None) => {}
                    (Some((t, id)), Some(hit)) => {
                        hits += 1;
                        assert!(
                            (hit.t - t).abs() <= 1e-12 * (1.0 + t),
                            "round {round}: {} vs {t}",
                            hit.t
                        );
                        let tri = field.triangle(TriangleId(id)).unwrap();
                        let up = (tri.b - tri.a).cross(&(tri.c - tri.a)).normalize();
                        if hit.feature == FeatureId::Face(id) {
                            assert!((hit.normal - up).norm() < 1e-12);
                        }
                        assert!(hit.normal.y > 0.0);
                    }
                    (e, g) => panic!("round {round}: {ray:?} max_t {max_t}: brute {e:?} vs {g:?}"),
                }
            }
        }
        assert!(hits > total / 4, "{hits} of {total}");
    }

    /// Closest hit over every triangle with the lane kernel, in any
    /// precision.
    fn brute_force_t<N: Real>(field: &HeightField<N>, ray: &Ray<N>, max_t: N) -> Option<N> {
        (0..2 * field.cell_count() as u32)
            .filter_map(|id| field.triangle(TriangleId(id)))
            .filter_map(|t| ray_cast_triangle(ray, &t.a, &t.b, &t.c, max_t).into_hit())
            .map(|hit| hit.t)
            .reduce(|a, b| if b < a { b } else { a })
    }

    /// Rays that stress the walk's skips: skimming just above (or below)
    /// the surface nearly level, aimed at vertices, at points of cell edges
    /// and diagonals, vertical on grid lines, from below, and along the
    /// axes, on random terrains in `f32` (where the rounding bounds are
    /// widest) and `f64`. The walk must find the brute-force answer: same
    /// hit or miss, same `t` but for a tie between triangles.
    fn hard_rays_match_brute_force<N: Real>(seed: u64, tolerance: f64) {
        let mut rng = TestRng::new(seed);
        let (mut hits, mut total) = (0, 0);
        for round in 0..60 {
            let field64 = random_field(&mut rng, 2 + round % 23, 2 + (round * 5) % 19);
            let convert = |x: f64| nalgebra::convert::<f64, N>(x);
            // Every other terrain far from the origin, where the rounding
            // bounds are wide.
            let offset = if round % 2 == 0 {
                0.0
            } else {
                rng.range(300.0, 3000.0)
            };
            let field64 = {
                let mut desc = crate::HeightFieldDesc::new(
                    field64.origin() + Vector3::new(offset, 0.0, -offset),
                    field64.cell_size(),
                    field64.rows(),
                    field64.cols(),
                    field64.heights().to_vec(),
                );
                let cells = field64.cell_count();
                desc.flipped_cells = (0..cells).filter(|&c| field64.is_flipped(c)).collect();
                desc.hole_cells = (0..cells).filter(|&c| field64.is_hole(c)).collect();
                HeightField::try_from_desc(desc).unwrap()
            };
            let origin = field64.origin().map(convert);
            let mut desc = crate::HeightFieldDesc::new(
                origin,
                field64.cell_size().map(convert),
                field64.rows(),
                field64.cols(),
                field64.heights().iter().map(|&h| convert(h)).collect(),
            );
            let cells = field64.cell_count();
            desc.flipped_cells = (0..cells).filter(|&c| field64.is_flipped(c)).collect();
            desc.hole_cells = (0..cells).filter(|&c| field64.is_hole(c)).collect();
            let field = HeightField::try_from_desc(desc).unwrap();
            let extent = field64.local_extent();
            for _ in 0..150 {
                let (i, j) = (rng.below(field.rows()), rng.below(field.cols()));
                let vertex = field64.sample_point(i, j);
                let inside = rng.point_in(&extent);
                let (target, mut dir) = match rng.below(8) {
                    // Skimming: a point of the surface, a level direction.
                    0 | 1 => {
                        let y = field64.surface_y_at(inside.x, inside.z).unwrap_or(inside.y);
                        let up = [0.0, 1e-12, -1e-12, 1e-6, -1e-6][rng.below(5)];
                        let level = Vector3::new(rng.range(-1.0, 1.0), 0.0, rng.range(-1.0, 1.0));
                        let tilt = [0.0, 1e-9, -1e-9, 1e-4, -1e-4][rng.below(5)];
                        (
                            Point3::new(inside.x, y + up, inside.z),
                            level + Vector3::y() * tilt,
                        )
                    }
                    // At a vertex, or the middle of an edge or a diagonal.
                    2 => (vertex, rng_dir(&mut rng)),
                    3 => {
                        let (k, l) = ((i + 1).min(field.rows() - 1), (j + 1).min(field.cols() - 1));
                        let other = [
                            field64.sample_point(k, j),
                            field64.sample_point(i, l),
                            field64.sample_point(k, l),
                        ][rng.below(3)];
                        (
                            Point3::from((vertex.coords + other.coords) * 0.5),
                            rng_dir(&mut rng),
                        )
                    }
                    // Vertical on a grid line.
                    4 => (
                        Point3::new(vertex.x, inside.y, inside.z),
                        Vector3::new(0.0, -1.0, 0.0),
                    ),
                    // From below, and along an axis.
                    5 => (
                        inside,
                        Vector3::new(rng.range(-1.0, 1.0), rng.range(0.05, 1.0), rng.range(-1.0, 1.0)),
                    ),
                    6 => (
                        inside,
                        [Vector3::x(), -Vector3::z(), Vector3::new(1.0, -0.3, 0.0)][rng.below(3)],
                    ),
                    // From above at up to 70° from straight down, as a
                    // renderer's or a sensor's.
                    _ => (
                        inside,
                        Vector3::new(rng.range(-1.0, 1.0), -rng.range(0.35, 1.0), rng.range(-1.0, 1.0)),
                    ),
                };
                if rng.below(4) == 0 {
                    dir = -dir;
                }
                let back = rng.range(0.0, 12.0);
                let start = target - dir * back;
                let ray = Ray::new(start.map(convert), dir.map(convert));
                let expected = brute_force_t(&field, &ray, N::max_value().unwrap());
                let got = field.ray_cast_surface(&ray, N::max_value().unwrap()).map(|h| h.t);
                total += 1;
                match (expected, got) {
                    (None, None) => {}
                    (Some(e), Some(g)) => {
                        hits += 1;
                        let (e, g): (f64, f64) = (e.to_subset().unwrap(), g.to_subset().unwrap());
                        assert!(
                            (e - g).abs() <= tolerance * (1.0 + e.abs()),
                            "round {round}: {ray:?}: {g} vs {e}"
                        );
                    }
                    (e, g) => panic!("round {round}: {ray:?}: brute {e:?} vs {g:?}"),
                }
            }
        }
        assert!(hits > total / 3, "{hits} of {total}");
    }

    fn rng_dir(rng: &mut TestRng) -> Vector3<f64> {
        Vector3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0))
    }

    #[test]
    fn hard_rays_match_brute_force_in_f32() {
        hard_rays_match_brute_force::<f32>(41, 1e-5);
    }

    #[test]
    fn hard_rays_match_brute_force_in_f64() {
        hard_rays_match_brute_force::<f64>(43, 1e-12);
    }

    /// `field` with its origin moved by `shift` and, when `cell_size` is
    /// given, its cells resized (same heights, holes and flips), in `N`.
    fn moved_field<N: Real>(
        field: &HeightField<f64>,
        shift: Vector3<f64>,
        cell_size: Option<[f64; 2]>,
    ) -> HeightField<N> {
        let convert = |x: f64| nalgebra::convert::<f64, N>(x);
        let size = cell_size.unwrap_or(field.cell_size());
        let mut desc = crate::HeightFieldDesc::new(
            (field.origin() + shift).map(convert),
            size.map(convert),
            field.rows(),
            field.cols(),
            field.heights().iter().map(|&h| convert(h)).collect(),
        );
        let cells = field.cell_count();
        desc.flipped_cells = (0..cells).filter(|&c| field.is_flipped(c)).collect();
        desc.hole_cells = (0..cells).filter(|&c| field.is_hole(c)).collect();
        HeightField::try_from_desc(desc).unwrap()
    }

    /// The walk's answer against the brute force's: same hit or miss, the
    /// same `t` within `tolerance` (relative) but for ties between
    /// triangles. Returns whether it hit.
    fn check_against_brute_force<N: Real>(
        field: &HeightField<N>,
        ray: &Ray<N>,
        tolerance: f64,
        what: &str,
    ) -> bool {
        let expected = brute_force_t(field, ray, N::max_value().unwrap());
        let got = field.ray_cast_surface(ray, N::max_value().unwrap()).map(|h| h.t);
        match (expected, got) {
            (None, None) => false,
            (Some(e), Some(g)) => {
                let (e, g): (f64, f64) = (e.to_subset().unwrap(), g.to_subset().unwrap());
                assert!(
                    (e - g).abs() <= tolerance * (1.0 + e.abs()),
                    "{what}: {ray:?}: {g} vs {e}"
                );
                true
            }
            (e, g) => panic!("{what}: {ray:?}: brute {e:?} vs {g:?}"),
        }
    }

    /// Rays at the grid walk's weak spots, on random terrains (holes and
    /// flips) whose grid lines are exact in every other round (integer
    /// origin, power-of-two cells) and which lie 10⁴–10⁵ from the origin in
    /// every third: exactly along x and z grid lines (and off them by a
    /// hair), through a row of cell corners (one step of the DDA ties at
    /// every corner), vertical on corners from above and below, level
    /// through the height band, and from inside the band below the surface.
    fn grid_rays_match_brute_force<N: Real>(seed: u64, tolerance: f64) {
        let mut rng = TestRng::new(seed);
        let (mut hits, mut total) = (0, 0);
        for round in 0..48 {
            let base = random_field(&mut rng, 3 + round % 17, 3 + (round * 7) % 13);
            let exact = round % 2 == 0;
            let shift = if round % 3 == 2 {
                let far = [1e4, 3e4, 1e5][round % 9 / 3];
                Vector3::new(far, 0.0, -far)
            } else {
                Vector3::zeros()
            };
            let (shift, cell_size) = if exact {
                let origin = base.origin();
                let snap = Vector3::new(origin.x.round() - origin.x, 0.0, origin.z.round() - origin.z);
                (shift + snap, Some([[1.0, 0.5], [0.25, 2.0]][round % 4 / 2]))
            } else {
                (shift, None)
            };
            // The terrain in f64 (for the rays) and in `N` (for the test),
            // with the same vertices.
            let field: HeightField<N> = moved_field(&base, shift, cell_size);
            let convert_back = |x: N| -> f64 { x.to_subset().unwrap() };
            let field64: HeightField<f64> = moved_field(
                &base,
                field.origin().map(convert_back) - base.origin(),
                Some(field.cell_size().map(convert_back)),
            );
            let extent = field64.local_extent();
            let (low, high) = (extent.mins.y, extent.maxs.y);
            let [dx, dz] = field64.cell_size();
            for _ in 0..120 {
                let (i, j) = (rng.below(field.rows()), rng.below(field.cols()));
                let corner = field64.sample_point(i, j);
                let inside = rng.point_in(&extent);
                let in_band = rng.range(low, high);
                let hair = [0.0, 1e-12, -1e-9, 1e-6][rng.below(4)];
                let (origin, dir, what) = match rng.below(7) {
                    0 => (
                        Point3::new(corner.x, in_band, inside.z),
                        Vector3::new(hair, rng.range(-0.3, 0.3), [1.0, -1.0][rng.below(2)]),
                        "along an x grid line",
                    ),
                    1 => (
                        Point3::new(inside.x, in_band, corner.z),
                        Vector3::new([1.0, -1.0][rng.below(2)], rng.range(-0.3, 0.3), hair),
                        "along a z grid line",
                    ),
                    2 => {
                        // Through a row of corners: steps of whole cells.
                        let (a, b) = (
                            [1.0, 2.0, -1.0, -3.0][rng.below(4)],
                            [1.0, -1.0, 2.0][rng.below(3)],
                        );
                        let dir = Vector3::new(a * dx, rng.range(-0.5, 0.2), b * dz);
                        let back = rng.below(4) as f64;
                        (
                            Point3::new(corner.x, in_band, corner.z) - dir * back,
                            dir,
                            "through corners",
                        )
                    }
                    3 => (
                        Point3::new(corner.x + hair, high + 1.0, corner.z),
                        -Vector3::y(),
                        "vertical on a corner",
                    ),
                    4 => (
                        Point3::new(corner.x, low - 1.0, corner.z - hair),
                        Vector3::y(),
                        "vertical on a corner from below",
                    ),
                    5 => {
                        let angle = rng.range(0.0, std::f64::consts::TAU);
                        let dir =
                            Vector3::new(angle.cos(), [0.0, 1e-7, -1e-4, 1e-3][rng.below(4)], angle.sin());
                        (inside - dir * 30.0, dir, "level through the band")
                    }
                    _ => {
                        let below = field64
                            .surface_y_at(inside.x, inside.z)
                            .map_or(inside.y, |y| y - 0.05);
                        (
                            Point3::new(inside.x, below, inside.z),
                            rng_dir(&mut rng),
                            "from below the surface",
                        )
                    }
                };
                let convert = |x: f64| nalgebra::convert::<f64, N>(x);
                let ray = Ray::new(origin.map(convert), dir.map(convert));
                hits += usize::from(check_against_brute_force(&field, &ray, tolerance, what));
                total += 1;
            }
        }
        assert!(hits > total / 4, "{hits} of {total}");
    }

    #[test]
    fn grid_rays_match_brute_force_in_f32() {
        grid_rays_match_brute_force::<f32>(51, 1e-5);
    }

    #[test]
    fn grid_rays_match_brute_force_in_f64() {
        grid_rays_match_brute_force::<f64>(53, 1e-12);
    }

    /// Nearly level rays inside the height band of a large, gently rolling
    /// terrain cross hundreds of cells (the DDA's crossing times computed
    /// afresh must not drift), in both precisions, near and far from the
    /// origin.
    fn long_level_rays_match_brute_force<N: Real>(seed: u64, tolerance: f64) {
        let mut rng = TestRng::new(seed);
        let rows = 181;
        let heights: Vec<f64> = (0..rows * rows)
            .map(|k| {
                let (x, z) = ((k / rows) as f64, (k % rows) as f64);
                0.4 * (0.05 * x).sin() * (0.07 * z).cos() + 0.05 * rng.range(-1.0, 1.0)
            })
            .collect();
        let base = HeightField::new(Point3::new(-90.0, 0.0, -90.0), [1.0, 1.0], rows, rows, heights);
        let mut hits = 0;
        for shift in [Vector3::zeros(), Vector3::new(2.0e4, 10.0, -5.0e4)] {
            let field: HeightField<N> = moved_field(&base, shift, None);
            for _ in 0..20 {
                let angle = rng.range(0.0, std::f64::consts::TAU);
                let slope = [0.0, 1e-4, -1e-3, -3e-3, 2e-3][rng.below(5)];
                let dir = Vector3::new(angle.cos(), slope, angle.sin());
                let start =
                    Point3::new(-95.0 * angle.cos(), rng.range(-0.4, 0.4), -95.0 * angle.sin()) + shift;
                let convert = |x: f64| nalgebra::convert::<f64, N>(x);
                let ray = Ray::new(start.map(convert), dir.map(convert));
                hits += usize::from(check_against_brute_force(&field, &ray, tolerance, "level"));
            }
        }
        assert!(hits > 10, "{hits} of 40");
    }

    #[test]
    fn long_level_rays_match_brute_force_in_f32() {
        long_level_rays_match_brute_force::<f32>(61, 1e-5);
    }

    #[test]
    fn long_level_rays_match_brute_force_in_f64() {
        long_level_rays_match_brute_force::<f64>(63, 1e-12);
    }

    #[test]
    fn solid_origin_below_the_surface_hits_at_zero() {
        let field = HeightField::new(Point3::new(-2.0, 1.0, -2.0), [1.0, 1.0], 5, 5, vec![0.5; 25]);
        let down = Ray::new(Point3::new(0.3, 1.2, 0.1), Vector3::new(0.0, -2.0, 0.0));
        let hit = field.ray_cast_local(&down, f64::INFINITY, true).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vector3::new(0.0, 1.0, 0.0)));
        // Not solid: the exit, upward, with the outward normal.
        let up = Ray::new(Point3::new(0.3, 1.2, 0.1), Vector3::new(0.0, 2.0, 0.0));
        let hit = field.ray_cast_local(&up, f64::INFINITY, false).unwrap();
        assert!((hit.t - 0.15).abs() < 1e-15);
        assert_eq!(hit.normal, Vector3::new(0.0, 1.0, 0.0));
        // From above: the surface at y = 1.5.
        let from_above = Ray::new(Point3::new(0.3, 4.5, 0.1), Vector3::new(0.0, -1.0, 0.0));
        assert_eq!(field.ray_cast_local(&from_above, 10.0, true).unwrap().t, 3.0);
        assert!(field.ray_cast_local(&from_above, 2.9, true).is_none());
        // Outside the extent nothing is solid.
        let outside = Ray::new(Point3::new(5.0, 0.0, 0.0), Vector3::new(0.0, -1.0, 0.0));
        assert!(field.ray_cast_local(&outside, 10.0, true).is_none());
        // Bad input.
        let nan = Ray::new(Point3::new(f64::NAN, 0.0, 0.0), Vector3::new(0.0, -1.0, 0.0));
        assert!(field.ray_cast_local(&nan, 10.0, true).is_none());
        assert!(field.ray_cast_local(&from_above, f64::NAN, true).is_none());
        let zero_dir = Ray::new(Point3::new(0.3, 4.5, 0.1), Vector3::zeros());
        assert!(field.ray_cast_local(&zero_dir, 10.0, true).is_none());
    }

    #[test]
    fn holes_let_rays_through() {
        let mut desc = crate::HeightFieldDesc::new(Point3::origin(), [1.0, 1.0], 4, 4, vec![0.0; 16]);
        desc.hole_cells = vec![4];
        let field = HeightField::try_from_desc(desc).unwrap();
        let through = Ray::new(Point3::new(1.5, 1.0, 1.5), Vector3::new(0.0, -1.0, 0.0));
        assert!(field.ray_cast_local(&through, 10.0, true).is_none());
        let below_hole = Ray::new(Point3::new(1.5, -1.0, 1.5), Vector3::new(0.0, 1.0, 0.0));
        assert!(field.ray_cast_local(&below_hole, 10.0, true).is_none());
        let beside = Ray::new(Point3::new(0.5, 1.0, 1.5), Vector3::new(0.0, -1.0, 0.0));
        assert_eq!(field.ray_cast_local(&beside, 10.0, true).unwrap().t, 1.0);
    }

    #[test]
    fn long_rays_over_a_large_terrain() {
        // 257 × 257 samples of rolling hills; rays from high above at up
        // to 70° from vertical, and grazing ones, against brute force.
        let rows = 257;
        let heights: Vec<f64> = (0..rows * rows)
            .map(|k| {
                let (x, z) = ((k / rows) as f64, (k % rows) as f64);
                3.0 * (0.05 * x).sin() * (0.07 * z).cos() + 0.5 * (0.31 * x + 0.23 * z).sin()
            })
            .collect();
        let field = HeightField::new(Point3::new(-128.0, 0.0, -128.0), [1.0, 1.0], rows, rows, heights);
        let mut rng = TestRng::new(5);
        for _ in 0..40 {
            let origin = Point3::new(
                rng.range(-150.0, 150.0),
                rng.range(4.0, 20.0),
                rng.range(-150.0, 150.0),
            );
            let dir = Vector3::new(rng.range(-1.0, 1.0), rng.range(-0.4, -0.02), rng.range(-1.0, 1.0));
            let ray = Ray::new(origin, dir);
            let expected = brute_force(&field, &ray, f64::INFINITY).map(|(t, _)| t);
            let got = field.ray_cast_surface(&ray, f64::INFINITY).map(|h| h.t);
            match (expected, got) {
                (None, None) => {}
                (Some(e), Some(g)) => assert!((e - g).abs() <= 1e-12 * (1.0 + e)),
                other => panic!("{ray:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn f32_far_from_the_origin_agrees_with_f64() {
        // The same vertices (rounded to f32 once) in both precisions.
        let rows = 65;
        let origin = Point3::new(250_000.0f32, 1000.0, -380_000.0);
        let heights: Vec<f32> = (0..rows * rows)
            .map(|k| (0.3 * (k / rows) as f32).sin() * 2.0 + (0.2 * (k % rows) as f32).cos())
            .collect();
        let field32 = HeightField::new(origin, [0.5, 0.5], rows, rows, heights.clone());
        let field64 = HeightField::new(
            origin.cast::<f64>(),
            [0.5, 0.5],
            rows,
            rows,
            heights.iter().map(|&h| h as f64).collect(),
        );
        let mut rng = TestRng::new(3);
        let mut worst = 0.0f64;
        let mut compared = 0;
        for _ in 0..400 {
            let x = rng.range(6.0, 26.0);
            let z = rng.range(6.0, 26.0);
            let start = Point3::new(x, 10.0, z);
            let dir = Vector3::new(rng.range(-0.5, 0.5), -1.0, rng.range(-0.5, 0.5));
            let ray32 = Ray::new(
                Point3::new(
                    origin.x + start.x as f32,
                    origin.y + 10.0,
                    origin.z + start.z as f32,
                ),
                dir.cast::<f32>(),
            );
            let ray64 = Ray::new(ray32.origin.cast::<f64>(), ray32.dir.cast::<f64>());
            let (Some(h32), Some(h64)) = (
                field32.ray_cast_surface(&ray32, f32::INFINITY),
                field64.ray_cast_surface(&ray64, f64::INFINITY),
            ) else {
                panic!("a ray from above inside the terrain must hit: {ray64:?}");
            };
            // The hit point's error in units of the f32 ulp at 4e5 (0.03).
            let p32 = ray64.origin + ray64.dir * h32.t as f64;
            let p64 = ray64.origin + ray64.dir * h64.t;
            worst = worst.max((p32 - p64).norm() / (f32::EPSILON as f64 * 380_000.0));
            compared += 1;
        }
        assert_eq!(compared, 400);
        // Measured: 0.0017 ulp of the largest coordinate (the kernel works
        // relative to the ray origin, so the offset costs nothing).
        assert!(worst < 0.25, "worst {worst} ulp");
    }
}
