//! What the sphere and capsule contacts ask of a set of triangles with
//! active edges. The heightfield and the mesh each answer it, so one
//! routine ([`crate::contact`]'s swept-sphere candidates) serves both.

use geom_core::{Aabb, FeatureId, Real};
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

/// Where a point is relative to a surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Location<N: Real> {
    /// In front of the surface (above a heightfield, outside a closed
    /// mesh, on the front of an open one), or on it.
    Front,
    /// Behind a two-sided surface (an open mesh), by the pseudo-normal of
    /// its nearest feature.
    Behind,
    /// In the solid (below a heightfield's surface, inside a closed mesh),
    /// this far from the surface (a heightfield measures straight down).
    Inside(N),
}

/// Where a point is, and its distance to the surface when the lookup
/// measured it ([`TriangleSurface::locate_measured`]).
pub(crate) type Located<N> = (Location<N>, Option<N>);

/// The triangles a swept-sphere contact kept near its segment, for the
/// lookups it makes there ([`TriangleSurface::locate_around`],
/// [`TriangleSurface::surface_through_around`]): every triangle within
/// `radius` of a point of the segment is among them.
pub(crate) struct Around<'a, N, Near> {
    /// The triangles' ids and where they sit.
    pub(crate) triangles: &'a [(u32, Near)],
    /// How far from the segment the list is complete (`-∞`: nowhere, an
    /// empty list).
    pub(crate) radius: N,
}

impl<N: Real, Near> Around<'_, N, Near> {
    /// No triangles: every lookup searches the surface.
    pub(crate) fn nowhere() -> Self {
        Around {
            triangles: &[],
            radius: nalgebra::convert::<f64, N>(f64::NEG_INFINITY),
        }
    }
}

/// A surface of triangles numbered by `u32` ids, with precomputed active
/// edges and vertices (see [`crate::active_edges`]).
pub(crate) trait TriangleSurface<N: Real> {
    /// Where a triangle sits, for lookups near it: a heightfield's cell; a
    /// mesh's triangle's position in its tree's order (its lookups from a
    /// point take any value).
    type Near: Copy + Default;

    /// Whether the swept-sphere contact keeps the triangles near its
    /// segment for its lookups ([`Around`]): a mesh's lookups otherwise
    /// search its whole tree from the root, each time; a heightfield's
    /// look up its grid, and its contacts keep nothing.
    const LOOKS_AROUND: bool = false;

    /// The box holding every triangle.
    fn local_extent(&self) -> Aabb<N>;

    /// The angle between face normals under which an edge is flat.
    fn active_edge_angle(&self) -> N;

    /// Calls `visit(id, triangle, near)` for every triangle whose box may
    /// meet `aabb`.
    fn visit_triangles(&self, aabb: &Aabb<N>, visit: impl FnMut(u32, &Triangle<N>, Self::Near));

    /// Triangle `id`, sitting at `near`, as
    /// [`TriangleSurface::visit_triangles`] gave it.
    fn triangle_at(&self, id: u32, near: Self::Near) -> Triangle<N>;

    /// The unit normal of triangle `id` on its front (a heightfield's up,
    /// a closed mesh's outside); `triangle` is that triangle as
    /// [`TriangleSurface::visit_triangles`] gave it (a mesh recomputes the
    /// normal from it rather than reading its stored one).
    fn face_normal(&self, id: u32, triangle: &Triangle<N>) -> Vector3<N>;

    /// Whether both sides are surface (an open mesh): a shape behind a
    /// triangle is pushed out behind it. Otherwise the back of every
    /// triangle faces the solid.
    fn two_sided(&self) -> bool;

    /// Whether a contact at `point` (on triangle `id`) may take its own
    /// normal: on an active edge or vertex; on the face or a flat or
    /// concave edge the face's normal is the contact's (Jolt's
    /// `ActiveEdges::FixNormal`).
    fn keeps_own_normal(&self, id: u32, triangle: &Triangle<N>, point: &Point3<N>) -> bool;

    /// Whether edge `k` (vertex `k` to `k + 1`) of triangle `id` is active.
    fn is_edge_active(&self, id: u32, k: usize) -> bool;

    /// The vertex of the triangle across edge `k` that is not on the edge
    /// (`None` on a boundary).
    fn neighbor_far_vertex(&self, id: u32, k: usize, near: Self::Near) -> Option<Point3<N>>;

    /// Vertex `k` of triangle `id`: its feature id and whether it is active.
    fn vertex_feature(&self, id: u32, k: usize, near: Self::Near) -> (FeatureId, bool);

    /// Whether the unit `direction` from vertex `k` of triangle `id` lies in
    /// the surface's normal cone there: no edge from the vertex rises
    /// along it, so the vertex is the surface's nearest point to points
    /// out along `direction` (Ericson, *Real-Time Collision Detection*
    /// §5.1.5, Voronoi regions).
    fn in_vertex_normal_cone(&self, id: u32, k: usize, near: Self::Near, direction: &Vector3<N>) -> bool;

    /// Which side of the surface `point` is on (see [`Location`]).
    /// `within` bounds the distance from `point` to the surface when the
    /// caller knows one (its distance to some triangle), else is infinite:
    /// a mesh searches no farther for the nearest surface point.
    fn locate(&self, point: &Point3<N>, near: Self::Near, within: N) -> Location<N>;

    /// [`TriangleSurface::locate`], with the distance from `point` to the
    /// surface when the lookup measured it (a mesh's nearest-point search;
    /// `None` for a heightfield, which looks straight down).
    fn locate_measured(&self, point: &Point3<N>, near: Self::Near, within: N) -> Located<N> {
        (self.locate(point, near, within), None)
    }

    /// [`TriangleSurface::locate_measured`] for a point of the segment
    /// that `around` was kept for: a mesh answers from `around` when it
    /// holds every triangle the lookup could find.
    fn locate_around(
        &self,
        point: &Point3<N>,
        near: Self::Near,
        within: N,
        around: &Around<'_, N, Self::Near>,
    ) -> Located<N> {
        let _ = around;
        self.locate_measured(point, near, within)
    }

    /// The way out of the solid for a `point` inside it: the surface
    /// point it leaves by and the unit normal there (straight up for a
    /// heightfield, to the nearest surface point of a closed mesh).
    fn escape(&self, point: &Point3<N>, near: Self::Near) -> Option<(Point3<N>, Vector3<N>)>;

    /// A `near` hint for `point` (the cell holding it, clamped into the
    /// grid, for a heightfield).
    fn near_point(&self, point: &Point3<N>) -> Self::Near;

    /// Whether the surface passes through `foot` (a point on a triangle's
    /// plane past one of its inactive edges or vertices, within the
    /// contact's reach of it) to rounding at `scale`: flat ground
    /// continuing on the other side.
    fn surface_through(&self, foot: &Point3<N>, near: Self::Near, scale: N) -> bool;

    /// [`TriangleSurface::surface_through`] for a `foot` at most
    /// `from_segment` from a point of the segment that `around` was kept
    /// for: a mesh answers from `around` when it holds every triangle near
    /// enough to the foot.
    fn surface_through_around(
        &self,
        foot: &Point3<N>,
        near: Self::Near,
        scale: N,
        from_segment: N,
        around: &Around<'_, N, Self::Near>,
    ) -> bool {
        let _ = (from_segment, around);
        self.surface_through(foot, near, scale)
    }
}

/// How far from the surface a foot may lie and still count as on it
/// ([`TriangleSurface::surface_through`]): the rounding of the foot and
/// of its distance to the surface, a few `ε` of the coordinates
/// (`magnitude`) and of the contact's size (`scale`). The depth a contact
/// along the face reports is off by at most this much, so it is kept
/// tight: 1024 `ε` here let an f32 mesh 10⁴ from the origin accept feet
/// 1.2 from its surface (a sphere's depth wrong by 0.12).
pub(crate) fn surface_tolerance<N: Real>(scale: N, magnitude: N) -> N {
    N::default_epsilon() * nalgebra::convert::<f64, N>(8.0) * (scale + magnitude)
}

impl<N: Real> TriangleSurface<N> for crate::HeightField<N> {
    /// The cell `(i, j)` holding the triangle.
    type Near = (usize, usize);

    fn local_extent(&self) -> Aabb<N> {
        crate::HeightField::local_extent(self)
    }

    fn active_edge_angle(&self) -> N {
        self.active_edge_angle
    }

    fn visit_triangles(&self, aabb: &Aabb<N>, mut visit: impl FnMut(u32, &Triangle<N>, Self::Near)) {
        let mut triangles = self.triangles_in_aabb(aabb);
        while let Some((id, triangle)) = triangles.next() {
            let cell = triangles.last_cell();
            debug_assert_eq!(cell, self.cell_coords(id.cell()));
            visit(id.0, &triangle, cell);
        }
    }

    fn triangle_at(&self, id: u32, (i, j): Self::Near) -> Triangle<N> {
        self.cell_triangle(i, j, crate::TriangleId(id).half())
    }

    fn face_normal(&self, _id: u32, triangle: &Triangle<N>) -> Vector3<N> {
        crate::heightfield::face_normal(triangle)
    }

    fn two_sided(&self) -> bool {
        false
    }

    fn is_edge_active(&self, id: u32, k: usize) -> bool {
        crate::HeightField::is_edge_active(self, crate::TriangleId(id), k)
    }

    fn keeps_own_normal(&self, id: u32, triangle: &Triangle<N>, point: &Point3<N>) -> bool {
        crate::HeightField::keeps_own_normal(self, crate::TriangleId(id), triangle, point)
    }

    fn neighbor_far_vertex(&self, id: u32, k: usize, (i, j): Self::Near) -> Option<Point3<N>> {
        let half = crate::TriangleId(id).half();
        let samples = self.triangle_samples(i, j, half);
        let (ni, nj, nhalf) = self.edge_neighbor(i, j, half, k)?;
        self.triangle_samples(ni, nj, nhalf)
            .iter()
            .find(|s| **s != samples[k] && **s != samples[(k + 1) % 3])
            .map(|s| self.sample_point(s.0, s.1))
    }

    fn vertex_feature(&self, id: u32, k: usize, (i, j): Self::Near) -> (FeatureId, bool) {
        let (si, sj) = self.triangle_samples(i, j, crate::TriangleId(id).half())[k];
        (
            FeatureId::Vertex((si * self.cols() + sj) as u32),
            self.is_vertex_active(si, sj),
        )
    }

    fn in_vertex_normal_cone(&self, id: u32, k: usize, (i, j): Self::Near, direction: &Vector3<N>) -> bool {
        let (si, sj) = self.triangle_samples(i, j, crate::TriangleId(id).half())[k];
        let vertex = self.sample_point(si, sj);
        let tolerance = N::default_epsilon() * nalgebra::convert::<f64, N>(64.0);
        for ci in si.saturating_sub(1)..=si.min(self.rows() - 2) {
            for cj in sj.saturating_sub(1)..=sj.min(self.cols() - 2) {
                if self.is_hole(self.cell_index(ci, cj)) {
                    continue;
                }
                for half in 0..2 {
                    let samples = self.triangle_samples(ci, cj, half);
                    if !samples.contains(&(si, sj)) {
                        continue;
                    }
                    for &(ni, nj) in samples.iter().filter(|s| **s != (si, sj)) {
                        let edge = self.sample_point(ni, nj) - vertex;
                        if direction.dot(&edge) > tolerance * edge.norm() {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }

    fn locate(&self, point: &Point3<N>, near: Self::Near, _within: N) -> Location<N> {
        if point.y > self.surface_y_ceiling() {
            return Location::Front;
        }
        match self.surface_y_near(near, point.x, point.z) {
            Some(surface) if point.y <= surface => Location::Inside(surface - point.y),
            _ => Location::Front,
        }
    }

    fn escape(&self, point: &Point3<N>, near: Self::Near) -> Option<(Point3<N>, Vector3<N>)> {
        let surface = self.surface_y_near(near, point.x, point.z)?;
        Some((Point3::new(point.x, surface, point.z), Vector3::y()))
    }

    fn near_point(&self, point: &Point3<N>) -> Self::Near {
        self.cell_at(point.x, point.z).unwrap_or((0, 0))
    }

    fn surface_through(&self, foot: &Point3<N>, near: Self::Near, scale: N) -> bool {
        let tolerance = surface_tolerance(scale, foot.y.abs());
        self.surface_y_near(near, foot.x, foot.z)
            .is_some_and(|surface| (surface - foot.y).abs() <= tolerance)
    }
}
