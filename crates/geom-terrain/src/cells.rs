//! Cell lookup and the min/max hierarchy: blocks of `BLOCK × BLOCK` cells
//! with the range of heights their triangles span, so that boxes and rays
//! skip empty regions a block at a time (Jolt's heightfield range blocks,
//! one level).

use geom_core::Real;

use crate::heightfield::{HeightField, index_to_real};

/// Cells per block side.
pub(crate) const BLOCK: usize = 8;

/// The cell along one axis holding `coordinate`, clamped to
/// `0..cell_count`.
///
/// The first guess is `floor((coordinate − origin) / size)`, subtracting
/// first so that a terrain far from the origin does not lose the offset's
/// low bits to its magnitude. Rounding in the division can still land one
/// cell off at a cell boundary, so the guess is then corrected against
/// `sample(i)`, the exact coordinates the vertices use: the answer `i`
/// satisfies `sample(i) <= coordinate < sample(i + 1)` whenever the
/// coordinate is inside.
pub(crate) fn locate_cell<N: Real>(
    coordinate: N,
    origin: N,
    size: N,
    cell_count: usize,
    sample: impl Fn(usize) -> N,
) -> usize {
    let last = cell_count - 1;
    let fraction = ((coordinate - origin) / size).floor();
    let mut index = if fraction <= N::zero() {
        0
    } else if fraction >= index_to_real::<N>(last) {
        last
    } else {
        fraction.to_subset().map_or(0, |f: f64| f as usize).min(last)
    };
    while index > 0 && coordinate < sample(index) {
        index -= 1;
    }
    while index < last && coordinate >= sample(index + 1) {
        index += 1;
    }
    index
}

/// Height range (relative to `origin.y`) of every block's non-hole cells;
/// a block of holes only has the empty range `[+max, −max]`.
#[derive(Clone, Debug)]
pub(crate) struct BlockRanges<N: Real> {
    /// Blocks along x.
    pub(crate) blocks_i: usize,
    /// Blocks along z.
    pub(crate) blocks_j: usize,
    /// `[min, max]` per block, row-major (`bi · blocks_j + bj`).
    pub(crate) ranges: Vec<[N; 2]>,
    /// `[min, max]` over every non-hole cell (`[0, 0]` when all are holes).
    pub(crate) total: [N; 2],
}

impl<N: Real> BlockRanges<N> {
    pub(crate) fn empty() -> Self {
        BlockRanges {
            blocks_i: 0,
            blocks_j: 0,
            ranges: Vec::new(),
            total: [N::zero(), N::zero()],
        }
    }

    pub(crate) fn build(field: &HeightField<N>) -> Self {
        let blocks_i = (field.rows - 1).div_ceil(BLOCK);
        let blocks_j = (field.cols - 1).div_ceil(BLOCK);
        let huge = N::max_value().unwrap_or_else(|| nalgebra::convert(f64::MAX));
        let mut ranges = vec![[huge, -huge]; blocks_i * blocks_j];
        for i in 0..field.rows - 1 {
            for j in 0..field.cols - 1 {
                if field.is_hole(field.cell_index(i, j)) {
                    continue;
                }
                let (low, high) = field.cell_height_range(i, j);
                let range = &mut ranges[(i / BLOCK) * blocks_j + j / BLOCK];
                range[0] = range[0].min(low);
                range[1] = range[1].max(high);
            }
        }
        let low = ranges.iter().map(|r| r[0]).fold(huge, |a, b| a.min(b));
        let high = ranges.iter().map(|r| r[1]).fold(-huge, |a, b| a.max(b));
        let total = if low <= high {
            [low, high]
        } else {
            [N::zero(), N::zero()]
        };
        BlockRanges {
            blocks_i,
            blocks_j,
            ranges,
            total,
        }
    }

    /// `[min, max]` of block `(bi, bj)`.
    #[inline]
    pub(crate) fn range(&self, bi: usize, bj: usize) -> [N; 2] {
        debug_assert!(bi < self.blocks_i && bj < self.blocks_j);
        self.ranges[bi * self.blocks_j + bj]
    }
}

impl<N: Real> HeightField<N> {
    /// The heights of cell `(i, j)`'s corners relative to `origin.y`:
    /// `[h(i, j), h(i+1, j), h(i, j+1), h(i+1, j+1)]`.
    #[inline]
    pub(crate) fn corner_heights(&self, i: usize, j: usize) -> [N; 4] {
        let row = i * self.cols + j;
        let (near, far) = (
            &self.heights[row..row + 2],
            &self.heights[row + self.cols..row + self.cols + 2],
        );
        [near[0], far[0], near[1], far[1]]
    }

    /// The lowest and highest of the four corner heights of cell `(i, j)`,
    /// relative to `origin.y`.
    #[inline]
    pub(crate) fn cell_height_range(&self, i: usize, j: usize) -> (N, N) {
        height_range(self.corner_heights(i, j))
    }
}

/// The lowest and highest of a cell's four corner heights.
#[inline]
pub(crate) fn height_range<N: Real>(h: [N; 4]) -> (N, N) {
    // Heights are finite (checked at construction): plain comparisons, where
    // `min`/`max` would also sort out NaN.
    let low = |a: N, b: N| if a < b { a } else { b };
    let high = |a: N, b: N| if a > b { a } else { b };
    (
        low(low(h[0], h[1]), low(h[2], h[3])),
        high(high(h[0], h[1]), high(h[2], h[3])),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point3;

    #[test]
    fn far_f32_terrain_maps_every_point_to_its_cell() {
        // 4096 × 4096 samples, 0.37 units per cell, origin near 1e5 (an f32
        // ulp there is 0.0078): the naive floor((x − o) / dx) is off by one
        // at many cell boundaries; the corrected lookup never is.
        let rows = 4096;
        let origin = Point3::new(98_765.43f32, -12.0, -123_456.7);
        let size = [0.37f32, 0.29];
        let field = HeightField::new(origin, size, rows, rows, vec![0.0; rows * rows]);
        let mut naive_misses = 0;
        let mut checked = 0;
        for i in (0..rows - 1).step_by(7) {
            let (x0, x1) = (field.sample_x(i), field.sample_x(i + 1));
            // The boundary itself, the floats just either side, the middle.
            for x in [x0, next_up(x0), next_down(x1), 0.5 * (x0 + x1)] {
                let j = (i * 31) % (rows - 1);
                let z = field.sample_z(j);
                let (ci, cj) = field.cell_at(x, z).unwrap();
                assert!(
                    field.sample_x(ci) <= x && (x < field.sample_x(ci + 1)),
                    "x {x}: cell {ci}"
                );
                assert!(
                    field.sample_z(cj) <= z && (z < field.sample_z(cj + 1)),
                    "z {z}: cell {cj}"
                );
                assert_eq!(ci, i, "x {x} between {x0} and {x1}");
                assert_eq!(cj, j);
                naive_misses += usize::from(((x - origin.x) / size[0]).floor() as usize != i);
                checked += 1;
            }
        }
        assert!(checked > 2000);
        // The correction is needed: the naive formula misses some.
        assert!(naive_misses > 0, "naive lookup was right everywhere");
        // The far corner belongs to the last cell.
        let far = (field.sample_x(rows - 1), field.sample_z(rows - 1));
        assert_eq!(field.cell_at(far.0, far.1), Some((rows - 2, rows - 2)));
        assert_eq!(field.cell_at(next_up(far.0), far.1), None);
    }

    fn next_up(x: f32) -> f32 {
        f32::from_bits(if x >= 0.0 {
            x.to_bits() + 1
        } else {
            x.to_bits() - 1
        })
    }

    fn next_down(x: f32) -> f32 {
        -next_up(-x)
    }

    #[test]
    fn blocks_hold_their_cells_heights_and_skip_holes() {
        let rows = 20;
        let heights: Vec<f64> = (0..rows * rows).map(|k| (k % 17) as f64 - 3.0).collect();
        let mut desc = crate::HeightFieldDesc::new(Point3::origin(), [1.0, 1.0], rows, rows, heights);
        // Block (0, 0) is all holes.
        desc.hole_cells = (0..8).flat_map(|i| (0..8).map(move |j| i * 19 + j)).collect();
        let field = HeightField::try_from_desc(desc).unwrap();
        assert_eq!((field.blocks.blocks_i, field.blocks.blocks_j), (3, 3));
        let [low, high] = field.blocks.range(0, 0);
        assert!(low > high);
        for bi in 0..3 {
            for bj in 0..3 {
                let [low, high] = field.blocks.range(bi, bj);
                for i in bi * 8..((bi + 1) * 8).min(19) {
                    for j in bj * 8..((bj + 1) * 8).min(19) {
                        if !field.is_hole(field.cell_index(i, j)) {
                            let (l, h) = field.cell_height_range(i, j);
                            assert!(low <= l && h <= high);
                        }
                    }
                }
            }
        }
    }
}
