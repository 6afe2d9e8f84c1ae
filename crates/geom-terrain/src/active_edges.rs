//! Active edges, precomputed at construction: the edges whose
//! closest-point direction may serve as a contact normal.
//!
//! An internal edge is active only when it is convex (the neighbouring
//! triangle bends down, away from this triangle's normal) and the angle
//! between the two face normals exceeds the heightfield's threshold (5° by
//! default). Flat and concave edges are inactive: a shape touching one is
//! pushed along the face normal, which is what removes the "ghost"
//! collisions of a capsule sliding over the internal edges of flat ground
//! (PhysX's active-edge flags, seed 004; Jolt's `ActiveEdges`). Boundary
//! edges and edges next to a hole are always active. A vertex is active
//! when any edge touching it is.

use geom_core::distance::closest_point_on_triangle;
use geom_core::{FeatureId, Real};
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

use crate::bits::Bits;
use crate::contact::segment::{Region, region_of};
use crate::heightfield::{HeightField, TriangleId};

/// The default threshold between a flat and an active convex edge.
pub const DEFAULT_ACTIVE_EDGE_ANGLE_DEGREES: f64 = 5.0;

/// Six bits per cell (bit `3·half + k` for edge `k` of triangle `half`)
/// and one bit per sample.
#[derive(Clone, Debug, Default)]
pub(crate) struct ActiveEdges {
    cell_edges: Vec<u8>,
    vertices: Bits,
}

impl ActiveEdges {
    pub(crate) fn empty() -> Self {
        ActiveEdges::default()
    }

    pub(crate) fn build<N: Real>(field: &HeightField<N>) -> Self {
        let cos_threshold = field.active_edge_angle.cos();
        let mut cell_edges = vec![0u8; field.cell_count()];
        let mut vertices = Bits::new(field.rows * field.cols);
        for i in 0..field.rows - 1 {
            for j in 0..field.cols - 1 {
                let cell = field.cell_index(i, j);
                if field.is_hole(cell) {
                    continue;
                }
                for half in 0..2 {
                    let samples = field.triangle_samples(i, j, half);
                    let normal = field.unit_normal(i, j, half);
                    for k in 0..3 {
                        let (a, b) = (samples[k], samples[(k + 1) % 3]);
                        let active = match field.edge_neighbor(i, j, half, k) {
                            None => true,
                            Some((ni, nj, nhalf)) => {
                                let neighbor = field.triangle_samples(ni, nj, nhalf);
                                let far = neighbor.iter().find(|s| **s != a && **s != b).copied();
                                let far = far.unwrap_or(a);
                                let bend = normal
                                    .dot(&(field.sample_point(far.0, far.1) - field.sample_point(a.0, a.1)));
                                let convex = bend < N::zero();
                                convex && normal.dot(&field.unit_normal(ni, nj, nhalf)) < cos_threshold
                            }
                        };
                        if active {
                            cell_edges[cell] |= 1 << (3 * half + k);
                            vertices.set(a.0 * field.cols + a.1);
                            vertices.set(b.0 * field.cols + b.1);
                        }
                    }
                }
            }
        }
        ActiveEdges { cell_edges, vertices }
    }
}

impl<N: Real> HeightField<N> {
    /// Whether edge `k` of triangle `id` (from its vertex `k` to vertex
    /// `k+1`) is active.
    #[inline]
    pub fn is_edge_active(&self, id: TriangleId, k: usize) -> bool {
        self.active
            .cell_edges
            .get(id.cell())
            .is_some_and(|bits| bits >> (3 * id.half() + k) & 1 == 1)
    }

    /// Whether sample `(i, j)` is an active vertex (an active edge touches it).
    #[inline]
    pub fn is_vertex_active(&self, i: usize, j: usize) -> bool {
        self.active.vertices.get(i * self.cols + j)
    }

    /// The region of triangle `id` (`triangle`) holding `point` (on it,
    /// weights within `√ε` of zero counting as zero) and, for a vertex,
    /// its sample.
    fn region_at(
        &self,
        id: TriangleId,
        triangle: &Triangle<N>,
        point: &Point3<N>,
    ) -> (Region, (usize, usize)) {
        let (_, weights) = closest_point_on_triangle(point, &triangle.a, &triangle.b, &triangle.c);
        let region = region_of(&weights, N::default_epsilon().sqrt());
        let (i, j) = self.cell_coords(id.cell());
        let sample = match region {
            Region::Vertex(k) => self.triangle_samples(i, j, id.half())[k],
            _ => (i, j),
        };
        (region, sample)
    }

    /// The feature id of the active internal edge or vertex (a convex bend
    /// of the terrain) holding `point` (on the triangle), if it is on one.
    pub(crate) fn ridge_feature(
        &self,
        id: TriangleId,
        triangle: &Triangle<N>,
        point: &Point3<N>,
    ) -> Option<FeatureId> {
        let (i, j) = self.cell_coords(id.cell());
        match self.region_at(id, triangle, point) {
            (Region::Face, _) => None,
            (Region::Edge(k), _) => (self.is_edge_active(id, k)
                && self.has_edge_neighbor(i, j, id.half(), k))
            .then_some(FeatureId::Edge(3 * id.0 + k as u32)),
            (Region::Vertex(_), (si, sj)) => {
                let interior = si > 0 && sj > 0 && si + 1 < self.rows() && sj + 1 < self.cols();
                (interior && self.is_vertex_active(si, sj))
                    .then_some(FeatureId::Vertex((si * self.cols() + sj) as u32))
            }
        }
    }

    /// Whether triangle `id` has a ridge of its own: an active internal
    /// edge or an active interior vertex, where
    /// [`ridge_feature`](Self::ridge_feature) may name a feature. Without
    /// one, every contact of the triangle takes its face's normal.
    pub(crate) fn has_ridge(&self, id: TriangleId) -> bool {
        let (i, j) = self.cell_coords(id.cell());
        let samples = self.triangle_samples(i, j, id.half());
        let interior =
            |(si, sj): (usize, usize)| si > 0 && sj > 0 && si + 1 < self.rows() && sj + 1 < self.cols();
        (0..3).any(|k| {
            (interior(samples[k]) && self.is_vertex_active(samples[k].0, samples[k].1))
                || (self.is_edge_active(id, k) && self.has_edge_neighbor(i, j, id.half(), k))
        })
    }

    /// Whether a contact at `point` (on triangle `id`) may take its own
    /// normal: on an active edge or vertex (boundary ones included); on
    /// the face or a flat or concave edge the face's normal is the
    /// contact's (Jolt's `ActiveEdges::FixNormal`).
    pub(crate) fn keeps_own_normal(&self, id: TriangleId, triangle: &Triangle<N>, point: &Point3<N>) -> bool {
        match self.region_at(id, triangle, point) {
            (Region::Face, _) => false,
            (Region::Edge(k), _) => self.is_edge_active(id, k),
            (Region::Vertex(_), (si, sj)) => self.is_vertex_active(si, sj),
        }
    }

    /// The unit upward normal of triangle `half` of cell `(i, j)`.
    pub(crate) fn unit_normal(&self, i: usize, j: usize, half: usize) -> Vector3<N> {
        crate::heightfield::face_normal(&self.cell_triangle(i, j, half))
    }

    /// Whether edge `k` of triangle `half` of cell `(i, j)` has a triangle
    /// across it ([`edge_neighbor`](Self::edge_neighbor) without finding
    /// which).
    pub(crate) fn has_edge_neighbor(&self, i: usize, j: usize, half: usize, k: usize) -> bool {
        let samples = self.triangle_samples(i, j, half);
        let (a, b) = (samples[k], samples[(k + 1) % 3]);
        let neighbour = if a.0 != b.0 && a.1 != b.1 {
            return true;
        } else if a.0 == b.0 {
            if a.0 == i {
                i.checked_sub(1).map(|ni| (ni, j))
            } else {
                Some((i + 1, j))
            }
        } else if a.1 == j {
            j.checked_sub(1).map(|nj| (i, nj))
        } else {
            Some((i, j + 1))
        };
        neighbour.is_some_and(|(ni, nj)| {
            ni < self.rows - 1 && nj < self.cols - 1 && !self.is_hole(self.cell_index(ni, nj))
        })
    }

    /// The triangle across edge `k` of triangle `half` of cell `(i, j)`:
    /// `(i, j, half)` of the neighbour, or `None` at the boundary or when
    /// the neighbour is in a hole.
    pub(crate) fn edge_neighbor(
        &self,
        i: usize,
        j: usize,
        half: usize,
        k: usize,
    ) -> Option<(usize, usize, usize)> {
        let samples = self.triangle_samples(i, j, half);
        let (a, b) = (samples[k], samples[(k + 1) % 3]);
        let (ni, nj) = if a.0 != b.0 && a.1 != b.1 {
            // The diagonal: the other half of the same cell.
            return Some((i, j, 1 - half));
        } else if a.0 == b.0 {
            // Along z at row a.0: the cells on either side in x.
            if a.0 == i {
                (i.checked_sub(1)?, j)
            } else {
                (i + 1, j)
            }
        } else if a.1 == j {
            (i, j.checked_sub(1)?)
        } else {
            (i, j + 1)
        };
        if ni >= self.rows - 1 || nj >= self.cols - 1 || self.is_hole(self.cell_index(ni, nj)) {
            return None;
        }
        (0..2)
            .find(|&h| {
                let s = self.triangle_samples(ni, nj, h);
                s.contains(&a) && s.contains(&b)
            })
            .map(|h| (ni, nj, h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HeightFieldDesc;
    use nalgebra::Point3;

    fn count_active<N: Real>(field: &HeightField<N>) -> usize {
        (0..2 * field.cell_count() as u32)
            .map(|id| {
                (0..3)
                    .filter(|&k| field.is_edge_active(TriangleId(id), k))
                    .count()
            })
            .sum()
    }

    #[test]
    fn flat_and_planar_terrains_have_only_boundary_edges_active() {
        let rows = 6;
        for slope in [0.0, 0.7] {
            let heights: Vec<f64> = (0..rows * rows)
                .map(|k| slope * (k / rows) as f64 - 0.3 * slope * (k % rows) as f64)
                .collect();
            let mut desc =
                HeightFieldDesc::new(Point3::new(3.0, 1.0, -2.0), [0.5, 0.75], rows, rows, heights);
            desc.flipped_cells = vec![1, 7, 8, 20];
            let field = HeightField::try_from_desc(desc).unwrap();
            // 5 cells per side, 4 sides: 20 boundary edges.
            assert_eq!(count_active(&field), 20, "slope {slope}");
            assert!(field.is_vertex_active(0, 3) && !field.is_vertex_active(2, 3));
        }
    }

    #[test]
    fn ridge_is_active_valley_is_not_and_holes_activate_their_rim() {
        // Heights depend on i only: a ridge along z at i = 2 (a tent) and a
        // valley at i = 4.
        let rows = 7;
        let profile = [0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0];
        let heights: Vec<f64> = (0..rows * rows).map(|k| profile[k / rows]).collect();
        let field = HeightField::new(Point3::origin(), [1.0, 1.0], rows, rows, heights.clone());
        for j in 1..rows - 2 {
            // Edge along z at row 2, seen from cell (1, j): triangle
            // half 0 holds (2, j)–(2, j+1) as its edge 1 ((1,j),(2,j+1),(2,j)).
            assert!(
                field.is_edge_active(field.triangle_id(1, j, 0), 1),
                "ridge at j {j}"
            );
            // The valley at row 4, from cell (3, j).
            assert!(
                !field.is_edge_active(field.triangle_id(3, j, 0), 1),
                "valley at j {j}"
            );
            assert!(field.is_vertex_active(2, j) && !field.is_vertex_active(4, j));
        }
        // The tent's normals are 90° apart: an 89° threshold keeps the ridge
        // active, 91° not.
        for (degrees, ridge_active) in [(89.0f64, true), (91.0, false)] {
            let mut desc = HeightFieldDesc::new(Point3::origin(), [1.0, 1.0], rows, rows, heights.clone());
            desc.active_edge_angle = degrees.to_radians();
            let field = HeightField::try_from_desc(desc).unwrap();
            assert_eq!(field.is_edge_active(field.triangle_id(1, 2, 0), 1), ridge_active);
        }
        // A hole at cell (3, 3) of a flat field: its four neighbours' edges
        // facing it become active.
        let mut desc = HeightFieldDesc::new(Point3::origin(), [1.0, 1.0], rows, rows, vec![0.0; rows * rows]);
        desc.hole_cells = vec![3 * 6 + 3];
        let field = HeightField::try_from_desc(desc).unwrap();
        assert_eq!(count_active(&field), 24 + 4);
        assert!(field.is_vertex_active(3, 3) && field.is_vertex_active(4, 4));
    }
}
