//! The heightfield: a grid of heights, Y-up, with per-cell diagonals and
//! holes, validated at construction.
//!
//! Layout (DESIGN.md, "The geom command line"): sample `(i, j)` sits at
//! `origin + (i·dx, heights[i·C + j], j·dz)`; cell `(i, j)` spans samples
//! `i..=i+1, j..=j+1` and has index `i·(C−1) + j`; its two triangles share
//! the diagonal from `(i, j)` to `(i+1, j+1)`, or from `(i+1, j)` to
//! `(i, j+1)` when the cell is flipped; a hole has no triangles.

use geom_core::{GeomError, Real};
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

use crate::active_edges::{ActiveEdges, DEFAULT_ACTIVE_EDGE_ANGLE_DEGREES};
use crate::bits::Bits;
use crate::cells::{BlockRanges, locate_cell};

/// Names one triangle of a heightfield: `2 · cell + k`, where `k = 0` is the
/// triangle holding sample `(i+1, j)` (default diagonal) or `(i, j)`
/// (flipped), and `k = 1` the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TriangleId(pub u32);

impl TriangleId {
    /// The index of the cell holding the triangle.
    pub fn cell(self) -> usize {
        (self.0 / 2) as usize
    }

    /// Which of the cell's two triangles (0 or 1).
    pub fn half(self) -> usize {
        (self.0 % 2) as usize
    }
}

/// Everything that defines a heightfield, for [`HeightField::try_from_desc`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct HeightFieldDesc<N: Real> {
    /// Where sample `(0, 0)` sits when its height is zero.
    pub origin: Point3<N>,
    /// Cell sizes `[dx, dz]` along x (rows, index `i`) and z (columns, `j`).
    pub cell_size: [N; 2],
    /// Number of samples along x (`R >= 2`).
    pub rows: usize,
    /// Number of samples along z (`C >= 2`).
    pub cols: usize,
    /// `R·C` heights, row-major: sample `(i, j)` is `heights[i·C + j]`.
    pub heights: Vec<N>,
    /// Cells split along the other diagonal, from `(i+1, j)` to `(i, j+1)`.
    pub flipped_cells: Vec<usize>,
    /// Cells without triangles.
    pub hole_cells: Vec<usize>,
    /// Dihedral angle in radians above which a convex internal edge is
    /// active (default 5°).
    pub active_edge_angle: N,
}

impl<N: Real> HeightFieldDesc<N> {
    /// A description with no flipped cells, no holes and the default
    /// active-edge angle.
    pub fn new(origin: Point3<N>, cell_size: [N; 2], rows: usize, cols: usize, heights: Vec<N>) -> Self {
        HeightFieldDesc {
            origin,
            cell_size,
            rows,
            cols,
            heights,
            flipped_cells: Vec::new(),
            hole_cells: Vec::new(),
            active_edge_angle: nalgebra::convert(DEFAULT_ACTIVE_EDGE_ANGLE_DEGREES.to_radians()),
        }
    }
}

/// A Y-up heightfield terrain (see the module documentation for the
/// layout). Its solid is the region below the surface inside its x–z extent,
/// holes excluded.
///
/// Features: triangles are [`FeatureId::Face`](geom_core::FeatureId)`(id)`
/// with `id` a [`TriangleId`]; contacts name edges `Edge(3·id + k)` (edge
/// `k` runs from the triangle's vertex `k` to vertex `k+1`) and vertices
/// `Vertex(i·C + j)`.
#[derive(Clone, Debug)]
pub struct HeightField<N: Real> {
    pub(crate) origin: Point3<N>,
    pub(crate) cell_size: [N; 2],
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) heights: Vec<N>,
    pub(crate) flipped: Bits,
    pub(crate) holes: Bits,
    pub(crate) blocks: BlockRanges<N>,
    pub(crate) active: ActiveEdges,
    pub(crate) active_edge_angle: N,
}

/// The largest magnitude of a coordinate of a heightfield's local box:
/// `√max / 4` of the precision (about 4.6e18 in `f32`, 3.4e153 in `f64`).
/// Beyond it, squared edge lengths and distances across the terrain
/// overflow.
/// The same bound as [`geom_core::max_size`].
pub fn max_coordinate<N: Real>() -> N {
    geom_core::max_size()
}

/// The unit upward normal of a heightfield triangle: `(b − a) × (c − a)`
/// through [`geom_prims::contact::try_unit`], which scales it first where
/// its square leaves the normal range (cells near the float limits); `+y`
/// when even the cross product underflows to zero.
pub(crate) fn face_normal<N: Real>(triangle: &Triangle<N>) -> Vector3<N> {
    let cross = (triangle.b - triangle.a).cross(&(triangle.c - triangle.a));
    geom_prims::contact::try_unit(&cross).unwrap_or_else(Vector3::y)
}

/// The largest number of cells: triangle ids (`2·cell + 1`) and edge ids
/// (`3·triangle + 2`) must fit a `u32` feature id.
const MAX_CELLS: usize = (u32::MAX as usize) / 6;

impl<N: Real> HeightField<N> {
    /// A heightfield with no flipped cells or holes (see
    /// [`HeightField::try_from_desc`] for the rules).
    pub fn try_new(
        origin: Point3<N>,
        cell_size: [N; 2],
        rows: usize,
        cols: usize,
        heights: Vec<N>,
    ) -> Result<Self, GeomError> {
        Self::try_from_desc(HeightFieldDesc::new(origin, cell_size, rows, cols, heights))
    }

    /// [`HeightField::try_new`], panicking with its message.
    ///
    /// # Panics
    /// When [`HeightField::try_new`] refuses the input.
    pub fn new(origin: Point3<N>, cell_size: [N; 2], rows: usize, cols: usize, heights: Vec<N>) -> Self {
        Self::try_new(origin, cell_size, rows, cols, heights).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Builds the heightfield, its min/max block hierarchy and its active
    /// edges. `Err` names the first bad value: fewer than 2 rows or
    /// columns (or more than 2³²/6 cells), `heights.len() != rows·cols`, a
    /// NaN or infinite height or origin coordinate, a cell size that is not
    /// positive and finite or is below `1 / max_coordinate()` (2.2e-19 in
    /// `f32`, 3e-154 in `f64`), a terrain reaching beyond
    /// ±[`max_coordinate`] (origin plus extent, or origin height plus a
    /// height), a flipped or hole cell index out of range, an
    /// active-edge angle outside `[0, π]`.
    pub fn try_from_desc(desc: HeightFieldDesc<N>) -> Result<Self, GeomError> {
        const SHAPE: &str = "heightfield";
        let HeightFieldDesc {
            origin,
            cell_size,
            rows,
            cols,
            heights,
            flipped_cells,
            hole_cells,
            active_edge_angle,
        } = desc;
        if rows < 2 {
            return Err(GeomError::invalid(SHAPE, "rows", rows, "must be >= 2"));
        }
        if cols < 2 {
            return Err(GeomError::invalid(SHAPE, "cols", cols, "must be >= 2"));
        }
        let cells = (rows - 1).checked_mul(cols - 1).filter(|&c| c <= MAX_CELLS);
        let Some(cell_count) = cells else {
            return Err(GeomError::invalid(
                SHAPE,
                "rows",
                format_args!("{rows} (cols = {cols})"),
                "(rows − 1)·(cols − 1) must be at most 2³²/6 cells",
            ));
        };
        if heights.len() != rows * cols {
            return Err(GeomError::invalid(
                SHAPE,
                "heights",
                format_args!("{} numbers", heights.len()),
                "must hold rows·cols numbers",
            ));
        }
        if let Some((index, h)) = heights.iter().enumerate().find(|(_, h)| !h.is_finite()) {
            return Err(GeomError::invalid(
                SHAPE,
                "heights",
                format_args!("{h:?} at index {index}"),
                "must be finite",
            ));
        }
        if !origin.iter().all(|c| c.is_finite()) {
            return Err(GeomError::invalid(
                SHAPE,
                "origin",
                origin.coords.as_slice(),
                "must be finite",
            ));
        }
        if !cell_size.iter().all(|s| s.is_finite() && *s > N::zero()) {
            return Err(GeomError::invalid(
                SHAPE,
                "cell_size",
                cell_size,
                "must be finite and > 0",
            ));
        }
        // Cells whose squared sizes are normal floats: below that, edge
        // products underflow and the triangles' normals are noise.
        if cell_size.iter().any(|s| *s < max_coordinate::<N>().recip()) {
            return Err(GeomError::invalid(
                SHAPE,
                "cell_size",
                cell_size,
                "must be at least 4/√max of the precision (1 / `max_coordinate`), so that squared cell sizes are normal floats",
            ));
        }
        // Every coordinate of the local box within ±√max/4, so that squared
        // distances and edge lengths across the terrain stay finite.
        let limit = max_coordinate::<N>();
        let far_x = origin.x.abs() + cell_size[0] * index_to_real::<N>(rows - 1);
        let far_z = origin.z.abs() + cell_size[1] * index_to_real::<N>(cols - 1);
        if far_x > limit || far_z > limit {
            return Err(GeomError::invalid(
                SHAPE,
                "cell_size",
                cell_size,
                "must keep the terrain's far edge, |origin| + (samples − 1)·cell_size, \
                 within √max/4 of the precision (`max_coordinate`)",
            ));
        }
        if let Some((index, h)) = heights
            .iter()
            .enumerate()
            .find(|(_, h)| origin.y.abs() + h.abs() > limit)
        {
            return Err(GeomError::invalid(
                SHAPE,
                "heights",
                format_args!("{h:?} at index {index}"),
                "must keep |origin.y| + |height| within √max/4 of the precision (`max_coordinate`)",
            ));
        }
        if !(active_edge_angle >= N::zero() && active_edge_angle <= N::pi()) {
            return Err(GeomError::invalid(
                SHAPE,
                "active_edge_angle",
                active_edge_angle,
                "must be in [0, π] radians",
            ));
        }
        let mut flipped = Bits::new(cell_count);
        for &cell in &flipped_cells {
            if cell >= cell_count {
                return Err(GeomError::invalid(
                    SHAPE,
                    "flip",
                    cell,
                    "cell index must be < (rows − 1)·(cols − 1)",
                ));
            }
            flipped.set(cell);
        }
        let mut holes = Bits::new(cell_count);
        for &cell in &hole_cells {
            if cell >= cell_count {
                return Err(GeomError::invalid(
                    SHAPE,
                    "holes",
                    cell,
                    "cell index must be < (rows − 1)·(cols − 1)",
                ));
            }
            holes.set(cell);
        }
        let mut field = HeightField {
            origin,
            cell_size,
            rows,
            cols,
            heights,
            flipped,
            holes,
            blocks: BlockRanges::empty(),
            active: ActiveEdges::empty(),
            active_edge_angle,
        };
        field.blocks = BlockRanges::build(&field);
        field.active = ActiveEdges::build(&field);
        Ok(field)
    }

    /// Samples along x.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Samples along z.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Where sample `(0, 0)` would sit at height zero.
    pub fn origin(&self) -> Point3<N> {
        self.origin
    }

    /// `[dx, dz]`.
    pub fn cell_size(&self) -> [N; 2] {
        self.cell_size
    }

    /// The heights, row-major.
    pub fn heights(&self) -> &[N] {
        &self.heights
    }

    /// The active-edge angle in radians.
    pub fn active_edge_angle(&self) -> N {
        self.active_edge_angle
    }

    /// The cells split along the other diagonal, in increasing order.
    pub fn flipped_cells(&self) -> Vec<usize> {
        (0..self.cell_count())
            .filter(|&cell| self.is_flipped(cell))
            .collect()
    }

    /// The hole cells, in increasing order.
    pub fn hole_cells(&self) -> Vec<usize> {
        (0..self.cell_count())
            .filter(|&cell| self.is_hole(cell))
            .collect()
    }

    /// The description this heightfield was built from (flipped and hole
    /// cells listed in increasing order): edit it and build again with
    /// [`HeightField::try_from_desc`].
    ///
    /// ```
    /// use geom_terrain::HeightField;
    /// use nalgebra::Point3;
    ///
    /// let field = HeightField::new(Point3::origin(), [1.0, 1.0], 2, 3, vec![0.0f64; 6]);
    /// let mut desc = field.to_desc();
    /// desc.hole_cells.push(1);
    /// let holed = HeightField::try_from_desc(desc).unwrap();
    /// assert!(holed.is_hole(1) && !field.is_hole(1));
    /// ```
    pub fn to_desc(&self) -> HeightFieldDesc<N> {
        HeightFieldDesc {
            origin: self.origin,
            cell_size: self.cell_size,
            rows: self.rows,
            cols: self.cols,
            heights: self.heights.clone(),
            flipped_cells: self.flipped_cells(),
            hole_cells: self.hole_cells(),
            active_edge_angle: self.active_edge_angle,
        }
    }

    /// Number of cells, `(R−1)·(C−1)`.
    pub fn cell_count(&self) -> usize {
        (self.rows - 1) * (self.cols - 1)
    }

    /// The index of cell `(i, j)`.
    #[inline]
    pub fn cell_index(&self, i: usize, j: usize) -> usize {
        i * (self.cols - 1) + j
    }

    /// The `(i, j)` of a cell index.
    #[inline]
    pub fn cell_coords(&self, cell: usize) -> (usize, usize) {
        (cell / (self.cols - 1), cell % (self.cols - 1))
    }

    /// Whether a cell is a hole (`false` for an index out of range).
    #[inline]
    pub fn is_hole(&self, cell: usize) -> bool {
        self.holes.get(cell)
    }

    /// Whether a cell uses the diagonal `(i+1, j)`–`(i, j+1)`.
    #[inline]
    pub fn is_flipped(&self, cell: usize) -> bool {
        self.flipped.get(cell)
    }

    /// The x of sample row `i`: `origin.x + i·dx`, rounded once each way.
    /// Every vertex and every cell lookup uses this same value.
    #[inline]
    pub fn sample_x(&self, i: usize) -> N {
        self.origin.x + index_to_real::<N>(i) * self.cell_size[0]
    }

    /// The z of sample column `j`: `origin.z + j·dz`.
    #[inline]
    pub fn sample_z(&self, j: usize) -> N {
        self.origin.z + index_to_real::<N>(j) * self.cell_size[1]
    }

    /// The height of sample `(i, j)` relative to `origin.y`.
    #[inline]
    pub fn height(&self, i: usize, j: usize) -> N {
        self.heights[i * self.cols + j]
    }

    /// The position of sample `(i, j)`.
    #[inline]
    pub fn sample_point(&self, i: usize, j: usize) -> Point3<N> {
        Point3::new(
            self.sample_x(i),
            self.origin.y + self.height(i, j),
            self.sample_z(j),
        )
    }

    /// The samples `(i, j)` at the three vertices of triangle `half` of cell
    /// `(i, j)`, ordered so that the face normal points up (+y).
    #[inline]
    pub fn triangle_samples(&self, i: usize, j: usize, half: usize) -> [(usize, usize); 3] {
        let (s00, s10, s01, s11) = ((i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1));
        match (self.is_flipped(self.cell_index(i, j)), half) {
            (false, 0) => [s00, s11, s10],
            (false, _) => [s00, s01, s11],
            (true, 0) => [s00, s01, s10],
            (true, _) => [s10, s01, s11],
        }
    }

    /// The triangle `id` (`None` for a hole or an id out of range). Its
    /// normal `(b − a) × (c − a)` points up.
    pub fn triangle(&self, id: TriangleId) -> Option<Triangle<N>> {
        let cell = id.cell();
        if cell >= self.cell_count() || self.is_hole(cell) {
            return None;
        }
        let (i, j) = self.cell_coords(cell);
        Some(self.cell_triangle(i, j, id.half()))
    }

    /// Triangle `half` of cell `(i, j)`, holes not checked.
    #[inline]
    pub(crate) fn cell_triangle(&self, i: usize, j: usize, half: usize) -> Triangle<N> {
        let [a, b, c] = self.triangle_samples(i, j, half);
        Triangle {
            a: self.sample_point(a.0, a.1),
            b: self.sample_point(b.0, b.1),
            c: self.sample_point(c.0, c.1),
        }
    }

    /// Both triangles of cell `(i, j)` (halves 0 and 1), holes not checked:
    /// [`HeightField::cell_triangle`] for each, from the four corners
    /// built once.
    #[inline]
    pub(crate) fn cell_triangles(&self, i: usize, j: usize) -> [Triangle<N>; 2] {
        let (x0, x1, z0, z1) = (
            self.sample_x(i),
            self.sample_x(i + 1),
            self.sample_z(j),
            self.sample_z(j + 1),
        );
        let [h00, h10, h01, h11] = self.corner_heights(i, j);
        let y = |h: N| self.origin.y + h;
        let (s00, s10, s01, s11) = (
            Point3::new(x0, y(h00), z0),
            Point3::new(x1, y(h10), z0),
            Point3::new(x0, y(h01), z1),
            Point3::new(x1, y(h11), z1),
        );
        let triangle = |a, b, c| Triangle { a, b, c };
        if self.is_flipped(self.cell_index(i, j)) {
            [triangle(s00, s01, s10), triangle(s10, s01, s11)]
        } else {
            [triangle(s00, s11, s10), triangle(s00, s01, s11)]
        }
    }

    /// The id of triangle `half` of cell `(i, j)`.
    #[inline]
    pub fn triangle_id(&self, i: usize, j: usize, half: usize) -> TriangleId {
        TriangleId((2 * self.cell_index(i, j) + half) as u32)
    }

    /// The cell `(i, j)` whose x–z rectangle holds `(x, z)`, or `None`
    /// outside the terrain or for NaN. Cells own their lower edges
    /// (`sample_x(i) <= x < sample_x(i+1)`), the last row and column their
    /// upper edges too.
    ///
    /// The index comes from `(x − origin.x) / dx` (the subtraction first, so
    /// a terrain far from the origin keeps the bits that matter) and is then
    /// corrected against [`HeightField::sample_x`], the very values the
    /// vertices use, so that the rounding of the division can never put a
    /// point in the neighbouring cell (the fault of PhysX issue #52).
    pub fn cell_at(&self, x: N, z: N) -> Option<(usize, usize)> {
        let inside_x = x >= self.sample_x(0) && x <= self.sample_x(self.rows - 1);
        let inside_z = z >= self.sample_z(0) && z <= self.sample_z(self.cols - 1);
        (inside_x && inside_z).then(|| self.clamped_cell_at(x, z))?
    }

    /// The cell holding `(x, z)` after clamping it into the terrain's x–z
    /// extent; `None` only for NaN.
    pub fn clamped_cell_at(&self, x: N, z: N) -> Option<(usize, usize)> {
        if is_nan(x) || is_nan(z) {
            return None;
        }
        let i = locate_cell(x, self.origin.x, self.cell_size[0], self.rows - 1, |i| {
            self.sample_x(i)
        });
        let j = locate_cell(z, self.origin.z, self.cell_size[1], self.cols - 1, |j| {
            self.sample_z(j)
        });
        Some((i, j))
    }

    /// Which half of cell `(i, j)` holds `(x, z)` (the point taken inside
    /// the cell).
    pub(crate) fn half_at(&self, i: usize, j: usize, x: N, z: N) -> usize {
        // Fractions within the cell; the diagonal test only needs their sign.
        let u = (x - self.sample_x(i)) / self.cell_size[0];
        let v = (z - self.sample_z(j)) / self.cell_size[1];
        if self.is_flipped(self.cell_index(i, j)) {
            usize::from(u + v > N::one())
        } else {
            usize::from(v > u)
        }
    }

    /// The triangle below or above `(x, z)` (`None` outside the terrain, in
    /// a hole, or for NaN).
    pub fn triangle_at(&self, x: N, z: N) -> Option<(TriangleId, Triangle<N>)> {
        let (i, j) = self.cell_at(x, z)?;
        if self.is_hole(self.cell_index(i, j)) {
            return None;
        }
        let half = self.half_at(i, j, x, z);
        Some((self.triangle_id(i, j, half), self.cell_triangle(i, j, half)))
    }

    /// The surface height (absolute y) at `(x, z)`: the plane of the
    /// triangle there, evaluated relative to its first vertex. `None`
    /// outside the terrain, in a hole, or for NaN.
    pub fn surface_y_at(&self, x: N, z: N) -> Option<N> {
        let (i, j) = self.cell_at(x, z)?;
        self.surface_y_in_cell(i, j, x, z)
    }

    /// [`HeightField::surface_y_at`], bit for bit, with the cell found by
    /// stepping from cell `near` (a point a cell or two away costs a few
    /// comparisons, not the division and its correction).
    pub(crate) fn surface_y_near(&self, near: (usize, usize), x: N, z: N) -> Option<N> {
        let (i, j) = self.cell_near(near, x, z)?;
        self.surface_y_in_cell(i, j, x, z)
    }

    /// [`HeightField::cell_at`], found by stepping from cell `near` when it
    /// is at most a few cells away: the same cell, since both end at the
    /// one index `i` with `sample_x(i) <= x < sample_x(i + 1)` (or the last).
    pub(crate) fn cell_near(&self, near: (usize, usize), x: N, z: N) -> Option<(usize, usize)> {
        let inside_x = x >= self.sample_x(0) && x <= self.sample_x(self.rows - 1);
        let inside_z = z >= self.sample_z(0) && z <= self.sample_z(self.cols - 1);
        if !(inside_x && inside_z) {
            return None;
        }
        let i = step_to_cell(x, near.0, self.rows - 2, |i| self.sample_x(i));
        let j = step_to_cell(z, near.1, self.cols - 2, |j| self.sample_z(j));
        match (i, j) {
            (Some(i), Some(j)) => Some((i, j)),
            _ => self.clamped_cell_at(x, z),
        }
    }

    /// The surface height at `(x, z)` in cell `(i, j)`, which holds it.
    #[inline]
    fn surface_y_in_cell(&self, i: usize, j: usize, x: N, z: N) -> Option<N> {
        if self.is_hole(self.cell_index(i, j)) {
            return None;
        }
        let triangle = self.cell_triangle(i, j, self.half_at(i, j, x, z));
        let normal = (triangle.b - triangle.a).cross(&(triangle.c - triangle.a));
        // n · (p − a) = 0 solved for y; n.y > 0 for a non-degenerate cell.
        let dx = x - triangle.a.x;
        let dz = z - triangle.a.z;
        let y = triangle.a.y - (normal.x * dx + normal.z * dz) / normal.y;
        y.is_finite().then_some(y)
    }
}

/// The cell index `i <= last` with `sample(i) <= coordinate < sample(i + 1)`
/// (the last cell also owning its upper side), stepping from `start`: the
/// answer of [`locate_cell`]'s correction, which ends at that same index
/// from any start. `None` when more than a few steps would be needed.
#[inline]
fn step_to_cell<N: Real>(
    coordinate: N,
    start: usize,
    last: usize,
    sample: impl Fn(usize) -> N,
) -> Option<usize> {
    const STEPS: usize = 3;
    let mut index = start.min(last);
    for _ in 0..STEPS {
        if index > 0 && coordinate < sample(index) {
            index -= 1;
        } else if index < last && coordinate >= sample(index + 1) {
            index += 1;
        } else {
            return Some(index);
        }
    }
    let settled =
        (index == 0 || coordinate >= sample(index)) && (index == last || coordinate < sample(index + 1));
    settled.then_some(index)
}

/// Whether `x` is NaN (it alone is unordered with itself).
#[inline]
pub(crate) fn is_nan<N: Real>(x: N) -> bool {
    x.partial_cmp(&x).is_none()
}

/// An index as a scalar (exact below 2²⁴ in `f32`, 2⁵³ in `f64`). Through
/// `i64`, which converts in one instruction where `u64` takes several:
/// indices are below 2³² (the cell limit).
#[inline]
pub(crate) fn index_to_real<N: Real>(index: usize) -> N {
    nalgebra::convert::<f64, N>(index as i64 as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(rows: usize, cols: usize) -> HeightField<f64> {
        HeightField::new(Point3::origin(), [1.0, 1.0], rows, cols, vec![0.0; rows * cols])
    }

    #[test]
    fn construction_names_the_bad_value() {
        let origin = Point3::<f64>::origin();
        let cases: Vec<(Result<HeightField<f64>, GeomError>, &str)> = vec![
            (
                HeightField::try_new(origin, [1.0, 1.0], 1, 3, vec![0.0; 3]),
                "heightfield: rows = 1 is invalid (must be >= 2)",
            ),
            (
                HeightField::try_new(origin, [1.0, 1.0], 2, 0, vec![]),
                "heightfield: cols = 0 is invalid (must be >= 2)",
            ),
            (
                HeightField::try_new(origin, [1.0, 1.0], 2, 2, vec![0.0; 3]),
                "heightfield: heights = 3 numbers is invalid (must hold rows·cols numbers)",
            ),
            (
                HeightField::try_new(origin, [1.0, 1.0], 2, 2, vec![0.0, 0.0, f64::NAN, 0.0]),
                "heightfield: heights = NaN at index 2 is invalid (must be finite)",
            ),
            (
                HeightField::try_new(origin, [1.0, -2.0], 2, 2, vec![0.0; 4]),
                "heightfield: cell_size = [1.0, -2.0] is invalid (must be finite and > 0)",
            ),
            (
                HeightField::try_new(origin, [f64::INFINITY, 1.0], 2, 2, vec![0.0; 4]),
                "heightfield: cell_size = [inf, 1.0] is invalid (must be finite and > 0)",
            ),
            (
                HeightField::try_new(Point3::new(0.0, f64::NAN, 0.0), [1.0, 1.0], 2, 2, vec![0.0; 4]),
                "heightfield: origin = [0.0, NaN, 0.0] is invalid (must be finite)",
            ),
        ];
        for (result, message) in cases {
            assert_eq!(result.unwrap_err().to_string(), message);
        }
        let mut desc = HeightFieldDesc::new(origin, [1.0, 1.0], 3, 3, vec![0.0; 9]);
        desc.hole_cells = vec![4];
        assert_eq!(
            HeightField::try_from_desc(desc.clone()).unwrap_err().to_string(),
            "heightfield: holes = 4 is invalid (cell index must be < (rows − 1)·(cols − 1))"
        );
        desc.hole_cells = vec![3];
        desc.flipped_cells = vec![7];
        assert!(
            HeightField::try_from_desc(desc.clone())
                .unwrap_err()
                .to_string()
                .starts_with("heightfield: flip = 7")
        );
        desc.flipped_cells = vec![];
        desc.active_edge_angle = f64::NAN;
        assert!(HeightField::try_from_desc(desc).is_err());
    }

    #[test]
    fn layout_matches_design() {
        // 3 rows × 4 cols, heights = 10 i + j.
        let heights: Vec<f64> = (0..3)
            .flat_map(|i| (0..4).map(move |j| 10.0 * i as f64 + j as f64))
            .collect();
        let mut desc = HeightFieldDesc::new(Point3::new(100.0, -5.0, 7.0), [2.0, 0.5], 3, 4, heights);
        desc.flipped_cells = vec![4];
        let field = HeightField::try_from_desc(desc).unwrap();
        assert_eq!(field.cell_count(), 6);
        assert_eq!(field.sample_point(2, 3), Point3::new(104.0, 18.0, 8.5));
        assert_eq!(field.cell_index(1, 1), 4);
        assert_eq!(field.cell_coords(4), (1, 1));
        // Default diagonal (i, j)–(i+1, j+1); triangles face up.
        let t = field.triangle(TriangleId(0)).unwrap();
        assert_eq!((t.a, t.b), (field.sample_point(0, 0), field.sample_point(1, 1)));
        for id in 0..12 {
            let t = field.triangle(TriangleId(id)).unwrap();
            assert!((t.b - t.a).cross(&(t.c - t.a)).y > 0.0, "{id}");
        }
        // Cell 4 is flipped: its diagonal is (2, 1)–(1, 2).
        let flipped = field.triangle(TriangleId(8)).unwrap();
        assert_eq!(flipped.b, field.sample_point(1, 2));
        assert_eq!(flipped.c, field.sample_point(2, 1));
        assert!(field.triangle(TriangleId(12)).is_none());
    }

    #[test]
    fn cells_own_lower_edges_and_points_outside_have_none() {
        let field = flat(4, 5);
        assert_eq!(field.cell_at(0.0, 0.0), Some((0, 0)));
        assert_eq!(field.cell_at(1.0, 2.0), Some((1, 2)));
        assert_eq!(field.cell_at(2.999, 3.5), Some((2, 3)));
        assert_eq!(field.cell_at(3.0, 4.0), Some((2, 3)));
        assert_eq!(field.cell_at(3.0001, 1.0), None);
        assert_eq!(field.cell_at(-1e-9, 1.0), None);
        assert_eq!(field.cell_at(f64::NAN, 1.0), None);
        assert_eq!(field.clamped_cell_at(-7.0, 99.0), Some((0, 3)));
        assert_eq!(field.clamped_cell_at(1.0, f64::NAN), None);
    }

    #[test]
    fn surface_height_interpolates_the_triangle() {
        // One cell, heights (0,0)=0, (1,0)=1, (0,1)=2, (1,1)=4; default
        // diagonal: below the diagonal (x > z) the plane through (0,0,0),
        // (1,4,1), (1,1,0): y = x + 3z.
        let field = HeightField::new(Point3::origin(), [1.0, 1.0], 2, 2, vec![0.0, 2.0, 1.0, 4.0]);
        assert_eq!(field.surface_y_at(0.5, 0.25), Some(0.5 + 0.75));
        // Above the diagonal, plane through (0,0,0), (0,2,1), (1,4,1): y = 2x + 2z.
        assert_eq!(field.surface_y_at(0.25, 0.5), Some(1.5));
        assert_eq!(field.surface_y_at(1.5, 0.5), None);
    }

    /// The shortcuts give what the plain lookups give, bit for bit: both
    /// triangles of a cell built together, and the surface looked up from
    /// a nearby or distant cell, on random terrains (flips, holes, far
    /// origins), at random points, on grid lines and outside.
    #[test]
    fn shortcuts_match_the_plain_lookups() {
        use crate::test_support::{TestRng, random_field};
        let mut rng = TestRng::new(19);
        for round in 0..60 {
            let field = random_field(&mut rng, 2 + round % 9, 2 + round % 7);
            for i in 0..field.rows - 1 {
                for j in 0..field.cols - 1 {
                    let both = field.cell_triangles(i, j);
                    assert_eq!(both, [field.cell_triangle(i, j, 0), field.cell_triangle(i, j, 1)]);
                }
            }
            let extent = field.local_extent().loosened(0.5);
            for _ in 0..200 {
                let mut point = rng.point_in(&extent);
                if rng.below(3) == 0 {
                    point.x = field.sample_x(rng.below(field.rows));
                }
                if rng.below(3) == 0 {
                    point.z = field.sample_z(rng.below(field.cols));
                }
                let near = (rng.below(field.rows - 1), rng.below(field.cols - 1));
                let expected = field.surface_y_at(point.x, point.z);
                assert_eq!(field.surface_y_near(near, point.x, point.z), expected);
                assert_eq!(
                    field.cell_near(near, point.x, point.z),
                    field.cell_at(point.x, point.z)
                );
                // The contact routines' inside test, looked up from `near`.
                let located = crate::surface::TriangleSurface::locate(&field, &point, near, f64::INFINITY);
                assert_eq!(
                    matches!(located, crate::surface::Location::Inside(_)),
                    field.contains_local_point(&point)
                );
            }
        }
        let field = flat(4, 4);
        assert_eq!(field.surface_y_near((1, 1), f64::NAN, 0.5), None);
    }
}
