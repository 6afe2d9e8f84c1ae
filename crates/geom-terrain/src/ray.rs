//! Ray casts against a heightfield: the ray is clipped to the terrain's
//! box, then walked through the min/max blocks and, inside the blocks its
//! height range can touch, through the cells, in order along the ray; each
//! cell's two triangles are tested with the watertight triangle kernel
//! ([`ray_cast_triangle`]), and the walk stops once the next cell starts
//! beyond the best hit.

use geom_core::{FeatureId, Ray, RayHit, Real};
use geom_prims::triangle::ray_cast_triangle;
use nalgebra::Vector3;

use crate::cells::BLOCK;
use crate::heightfield::{HeightField, index_to_real};

/// Grid-walk slack in cell units, relative to the coordinate: cells this
/// close to the ray's path are visited too, so rounding in the slab
/// arithmetic can never skip a cell the ray crosses (an extra cell costs a
/// triangle test, a skipped one a wrong miss).
fn slack<N: Real>() -> N {
    N::default_epsilon() * nalgebra::convert::<f64, N>(64.0)
}

/// `floor(x)` as an index clamped to `lo..=hi` (NaN gives `lo`).
fn floor_clamped<N: Real>(x: N, lo: usize, hi: usize) -> usize {
    let floor = x.floor().to_subset().unwrap_or(f64::NAN);
    if floor.is_nan() || floor <= lo as f64 {
        lo
    } else if floor >= hi as f64 {
        hi
    } else {
        floor as usize
    }
}

/// The cells of a 2D grid (cell sizes `size`, cell `(0, 0)` starting at the
/// grid corner, indices limited to `range_a × range_b`, inclusive) that the
/// ray `origin + t·dir` (relative to the corner) crosses for `t ∈ [t0, t1]`,
/// visited strip by strip along the first axis and, within a strip, along
/// the second, in increasing `t`. `visit(a, b, t_enter, t_exit)` returns
/// `false` to stop; the walk then returns `false`.
///
/// Each strip's `t` interval comes from its slab; the second-axis cells of
/// the strip are those the ray's coordinate spans over that interval,
/// widened by [`slack`], so the walk is conservative (Amanatides & Woo's
/// DDA visits the same cells, but its incremental `t` can drift past one).
#[allow(clippy::too_many_arguments)]
fn walk_grid<N: Real>(
    origin: [N; 2],
    dir: [N; 2],
    size: [N; 2],
    range_a: (usize, usize),
    range_b: (usize, usize),
    t0: N,
    t1: N,
    mut visit: impl FnMut(usize, usize, N, N) -> bool,
) -> bool {
    let eps = slack::<N>();
    let one = N::one();
    let at = |axis: usize, t: N| (origin[axis] + dir[axis] * t) / size[axis];
    let span = |axis: usize, ta: N, tb: N, range: (usize, usize)| {
        let (u, v) = (at(axis, ta), at(axis, tb));
        let (lo, hi) = (u.min(v), u.max(v));
        (
            floor_clamped(lo - eps * (lo.abs() + one), range.0, range.1),
            floor_clamped(hi + eps * (hi.abs() + one), range.0, range.1),
        )
    };
    // The part of [ta, tb] where `axis` is inside cell `k`'s slab; when
    // rounding leaves it empty the two ends are swapped (a cell the slack
    // added, met at one end of the interval).
    let slab = |axis: usize, k: usize, ta: N, tb: N| {
        if dir[axis] == N::zero() {
            return (ta, tb);
        }
        let enter = (index_to_real::<N>(k) * size[axis] - origin[axis]) / dir[axis];
        let leave = (index_to_real::<N>(k + 1) * size[axis] - origin[axis]) / dir[axis];
        let (lo, hi) = (enter.min(leave).max(ta), enter.max(leave).min(tb));
        if lo <= hi { (lo, hi) } else { (hi, lo) }
    };
    let (a_lo, a_hi) = span(0, t0, t1, range_a);
    // `span` is monotone, so `a_lo <= a_hi`; saturating keeps a NaN-born
    // inversion from panicking.
    for step in 0..=a_hi.saturating_sub(a_lo) {
        let a = if dir[0] >= N::zero() {
            a_lo + step
        } else {
            a_hi - step
        };
        let (ta, tb) = slab(0, a, t0, t1);
        let (b_lo, b_hi) = span(1, ta, tb, range_b);
        for step_b in 0..=b_hi.saturating_sub(b_lo) {
            let b = if dir[1] >= N::zero() {
                b_lo + step_b
            } else {
                b_hi - step_b
            };
            let (te, tx) = slab(1, b, ta, tb);
            if !visit(a, b, te, tx) {
                return false;
            }
        }
    }
    true
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
        let (t0, t1) = self.local_extent().ray_interval(ray, max_t)?;
        let eps = slack::<N>();
        let one = N::one();
        let rel = Vector3::new(
            ray.origin.x - self.origin.x,
            ray.origin.y - self.origin.y,
            ray.origin.z - self.origin.z,
        );
        let origin_xz = [rel.x, rel.z];
        let dir_xz = [ray.dir.x, ray.dir.z];
        let last_cell = (self.rows - 2, self.cols - 2);
        let block_size = [
            self.cell_size[0] * index_to_real::<N>(BLOCK),
            self.cell_size[1] * index_to_real::<N>(BLOCK),
        ];
        // Whether the ray's height over [te, tx] (relative to origin.y) can
        // meet the range [low, high]; widened for the rounding of t.
        let may_meet = |te: N, tx: N, low: N, high: N| {
            let (ya, yb) = (rel.y + ray.dir.y * te, rel.y + ray.dir.y * tx);
            let widen = eps * ((te.abs() + tx.abs() + one) * ray.dir.y.abs() + ya.abs() + yb.abs() + one);
            ya.min(yb) - widen <= high && ya.max(yb) + widen >= low
        };
        let mut best: Option<RayHit<N>> = None;
        let mut best_t = max_t;
        let blocks = (self.blocks.blocks_i - 1, self.blocks.blocks_j - 1);
        walk_grid(
            origin_xz,
            dir_xz,
            block_size,
            (0, blocks.0),
            (0, blocks.1),
            t0,
            t1,
            |bi, bj, te, tx| {
                if te > best_t {
                    return false;
                }
                let [low, high] = self.blocks.range(bi, bj);
                if !may_meet(te, tx, low, high) {
                    return true;
                }
                let cells_a = (bi * BLOCK, (bi * BLOCK + BLOCK - 1).min(last_cell.0));
                let cells_b = (bj * BLOCK, (bj * BLOCK + BLOCK - 1).min(last_cell.1));
                let widen = eps * (te.abs() + tx.abs() + one);
                walk_grid(
                    origin_xz,
                    dir_xz,
                    self.cell_size,
                    cells_a,
                    cells_b,
                    (te - widen).max(t0),
                    (tx + widen).min(t1),
                    |i, j, cell_te, cell_tx| {
                        if cell_te > best_t {
                            return false;
                        }
                        if self.is_hole(self.cell_index(i, j)) {
                            return true;
                        }
                        let (low, high) = self.cell_height_range(i, j);
                        if !may_meet(cell_te, cell_tx, low, high) {
                            return true;
                        }
                        for half in 0..2 {
                            let t = self.cell_triangle(i, j, half);
                            if let Some(hit) = ray_cast_triangle(ray, &t.a, &t.b, &t.c, best_t).into_hit() {
                                let from_below = hit.feature == FeatureId::Face(1);
                                let closer = best.is_none_or(|b| hit.t < b.t);
                                if closer {
                                    best_t = hit.t;
                                    best = Some(RayHit {
                                        t: hit.t,
                                        normal: if from_below { -hit.normal } else { hit.normal },
                                        feature: FeatureId::Face(self.triangle_id(i, j, half).0),
                                    });
                                }
                            }
                        }
                        true
                    },
                )
            },
        );
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TriangleId;
    use crate::test_support::{TestRng, random_field};
    use geom_core::Shape;
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
