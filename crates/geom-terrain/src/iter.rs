//! The triangles of a heightfield that may touch a box, without allocating.

use geom_core::{Aabb, Real};
use geom_prims::Triangle;
use nalgebra::Point3;

use crate::cells::BLOCK;
use crate::heightfield::{HeightField, TriangleId};

/// Iterator over `(TriangleId, Triangle)` for the cells whose x–z rectangle
/// meets a box and whose corner heights are not all above or all below it;
/// blocks of cells whose height range misses the box are skipped whole.
/// Holes give nothing. Made by [`HeightField::triangles_in_aabb`].
#[derive(Clone, Debug)]
pub struct TrianglesInAabb<'a, N: Real> {
    field: &'a HeightField<N>,
    /// The box's y range relative to `origin.y`.
    y_low: N,
    y_high: N,
    /// Cell range `[i0, i1] × [j0, j1]` (inclusive).
    cells_i: (usize, usize),
    cells_j: (usize, usize),
    /// Current block, and whether its cells are being walked.
    block: (usize, usize),
    in_block: bool,
    /// Current cell and half inside the block.
    cell: (usize, usize),
    half: usize,
    /// The current cell's second triangle, built with the first.
    second: Triangle<N>,
    done: bool,
}

impl<'a, N: Real> TrianglesInAabb<'a, N> {
    fn new(field: &'a HeightField<N>, aabb: &Aabb<N>) -> Self {
        let mut iter = TrianglesInAabb {
            field,
            y_low: aabb.mins.y - field.origin.y,
            y_high: aabb.maxs.y - field.origin.y,
            cells_i: (0, 0),
            cells_j: (0, 0),
            block: (0, 0),
            in_block: false,
            cell: (0, 0),
            half: 0,
            second: Triangle {
                a: Point3::origin(),
                b: Point3::origin(),
                c: Point3::origin(),
            },
            done: true,
        };
        let finite = aabb
            .mins
            .iter()
            .chain(aabb.maxs.iter())
            .all(|c| !crate::heightfield::is_nan(*c));
        let misses = !finite
            || aabb.maxs.x < field.sample_x(0)
            || aabb.mins.x > field.sample_x(field.rows - 1)
            || aabb.maxs.z < field.sample_z(0)
            || aabb.mins.z > field.sample_z(field.cols - 1)
            || aabb.mins.y > aabb.maxs.y;
        if misses {
            return iter;
        }
        let (Some((mut i0, mut j0)), Some((i1, j1))) = (
            field.clamped_cell_at(aabb.mins.x, aabb.mins.z),
            field.clamped_cell_at(aabb.maxs.x, aabb.maxs.z),
        ) else {
            return iter;
        };
        // A box whose lower side lies on a cell boundary touches the cell
        // below it too.
        if i0 > 0 && aabb.mins.x <= field.sample_x(i0) {
            i0 -= 1;
        }
        if j0 > 0 && aabb.mins.z <= field.sample_z(j0) {
            j0 -= 1;
        }
        iter.cells_i = (i0, i1);
        iter.cells_j = (j0, j1);
        iter.block = (i0 / BLOCK, j0 / BLOCK);
        iter.done = false;
        iter
    }

    /// Moves to the next block of the range (row-major), or ends.
    fn next_block(&mut self) {
        self.in_block = false;
        let (bi, bj) = self.block;
        if bj < self.cells_j.1 / BLOCK {
            self.block = (bi, bj + 1);
        } else if bi < self.cells_i.1 / BLOCK {
            self.block = (bi + 1, self.cells_j.0 / BLOCK);
        } else {
            self.done = true;
        }
    }

    /// The cell range of the current block, clipped to the query.
    fn block_cells(&self) -> ((usize, usize), (usize, usize)) {
        let (bi, bj) = self.block;
        (
            (
                (bi * BLOCK).max(self.cells_i.0),
                (bi * BLOCK + BLOCK - 1).min(self.cells_i.1),
            ),
            (
                (bj * BLOCK).max(self.cells_j.0),
                (bj * BLOCK + BLOCK - 1).min(self.cells_j.1),
            ),
        )
    }
}

impl<N: Real> Iterator for TrianglesInAabb<'_, N> {
    type Item = (TriangleId, Triangle<N>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            if !self.in_block {
                let [low, high] = self.field.blocks.range(self.block.0, self.block.1);
                if high < self.y_low || low > self.y_high {
                    self.next_block();
                    continue;
                }
                let ((i0, _), (j0, _)) = self.block_cells();
                self.cell = (i0, j0);
                self.half = 0;
                self.in_block = true;
            }
            let ((_, i1), (j0, j1)) = self.block_cells();
            let (i, j) = self.cell;
            if i > i1 {
                self.next_block();
                continue;
            }
            if j > j1 {
                self.cell = (i + 1, j0);
                continue;
            }
            let field = self.field;
            if self.half == 0 {
                let (low, high) = field.cell_height_range(i, j);
                if field.is_hole(field.cell_index(i, j)) || high < self.y_low || low > self.y_high {
                    self.cell = (i, j + 1);
                    continue;
                }
                self.half = 1;
                let [first, second] = field.cell_triangles(i, j);
                self.second = second;
                return Some((field.triangle_id(i, j, 0), first));
            }
            self.half = 0;
            self.cell = (i, j + 1);
            return Some((field.triangle_id(i, j, 1), self.second));
        }
        None
    }
}

impl<N: Real> TrianglesInAabb<'_, N> {
    /// The cell `(i, j)` of the triangle returned last (after its second
    /// triangle the walk has already moved on by one column).
    #[inline]
    pub(crate) fn last_cell(&self) -> (usize, usize) {
        let (i, j) = self.cell;
        if self.half == 1 { (i, j) } else { (i, j - 1) }
    }
}

impl<N: Real> HeightField<N> {
    /// The triangles that may meet `aabb` (local frame): every triangle of
    /// a non-hole cell whose x–z rectangle touches the box and whose corner
    /// heights are not all above or all below it. Allocates nothing.
    pub fn triangles_in_aabb(&self, aabb: &Aabb<N>) -> TrianglesInAabb<'_, N> {
        TrianglesInAabb::new(self, aabb)
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{TestRng, random_field};
    use geom_core::Aabb;
    use nalgebra::Point3;

    #[test]
    fn matches_a_scan_of_every_triangle() {
        let mut rng = TestRng::new(7);
        for round in 0..40 {
            let field = random_field(&mut rng, 3 + round % 23, 2 + round % 19);
            let extent = field.local_extent();
            for _ in 0..30 {
                let a = rng.point_in(&extent.loosened(2.0));
                let b = rng.point_in(&extent.loosened(2.0));
                let aabb = Aabb::new(a.inf(&b), a.sup(&b));
                let found: Vec<u32> = field.triangles_in_aabb(&aabb).map(|(id, _)| id.0).collect();
                // Reference: every triangle whose own box meets the query box.
                let mut expected = Vec::new();
                for id in 0..2 * field.cell_count() as u32 {
                    if let Some(t) = field.triangle(crate::TriangleId(id)) {
                        let own = Aabb::new(t.a, t.a).including(&t.b).including(&t.c);
                        if own.intersects(&aabb) {
                            expected.push(id);
                        }
                    }
                }
                let mut sorted = found.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), found.len(), "duplicates");
                // Every triangle touching the box is found; extras only come
                // from a cell whose other triangle touches it.
                for id in &expected {
                    assert!(sorted.binary_search(id).is_ok(), "round {round}: missing {id}");
                }
                for id in &sorted {
                    let sibling = id ^ 1;
                    assert!(
                        expected.contains(id) || expected.contains(&sibling) || {
                            let t = field.triangle(crate::TriangleId(*id)).unwrap();
                            let cell = Aabb::new(t.a, t.a).including(&t.b).including(&t.c);
                            cell.loosened(1e-9).intersects(&aabb) || cell_touches(&field, *id, &aabb)
                        },
                        "round {round}: extra {id}"
                    );
                }
            }
        }
        // A box with a NaN bound (built field by field: `Aabb::new` would
        // widen the NaN to an infinite bound) meets nothing.
        let field = random_field(&mut rng, 5, 5);
        let nan = Aabb {
            mins: Point3::new(f64::NAN, -10.0, -10.0),
            maxs: Point3::new(10.0, 10.0, 10.0),
        };
        assert_eq!(field.triangles_in_aabb(&nan).count(), 0);
    }

    /// Whether the x–z rectangle and the corner-height range of the
    /// triangle's cell meet the box (the iterator's own, coarser, test).
    fn cell_touches(field: &crate::HeightField<f64>, id: u32, aabb: &Aabb<f64>) -> bool {
        let (i, j) = field.cell_coords(crate::TriangleId(id).cell());
        let (low, high) = field.cell_height_range(i, j);
        field.sample_x(i) <= aabb.maxs.x
            && field.sample_x(i + 1) >= aabb.mins.x
            && field.sample_z(j) <= aabb.maxs.z
            && field.sample_z(j + 1) >= aabb.mins.z
            && low + field.origin().y <= aabb.maxs.y
            && high + field.origin().y >= aabb.mins.y
    }
}
