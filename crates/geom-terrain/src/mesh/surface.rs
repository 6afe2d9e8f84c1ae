//! The mesh as a [`TriangleSurface`], for the contact routines it shares
//! with the heightfield.

use geom_core::{Aabb, FeatureId, Real, Shape};
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

use super::shape::Nearest;
use super::{NO_NEIGHBOR, TriMesh};
use crate::contact::segment::{Region, region_of};
use crate::surface::{Around, Located, Location, TriangleSurface};
use geom_core::distance::closest_point_on_triangle_branching;

impl<N: Real> TriangleSurface<N> for TriMesh<N> {
    /// The triangle's position in the tree's order.
    type Near = u32;

    const LOOKS_AROUND: bool = true;

    fn local_extent(&self) -> Aabb<N> {
        self.local_aabb()
    }

    fn active_edge_angle(&self) -> N {
        self.active_edge_angle
    }

    fn visit_triangles(&self, aabb: &Aabb<N>, mut visit: impl FnMut(u32, &Triangle<N>, Self::Near)) {
        self.bvh.visit_aabb_in_tree_order(aabb, |p| {
            let (id, triangle) = self.at_tree_position(p);
            visit(id, triangle, p);
            true
        });
    }

    fn triangle_at(&self, _id: u32, position: u32) -> Triangle<N> {
        *self.at_tree_position(position).1
    }

    fn face_normal(&self, _id: u32, triangle: &Triangle<N>) -> Vector3<N> {
        // The triangle is the mesh's own (from `visit_triangles`), in
        // cache: its stored normal, bit for bit, without reading it.
        self.front_normal_of(triangle)
    }

    fn two_sided(&self) -> bool {
        !self.closed
    }

    fn is_edge_active(&self, id: u32, k: usize) -> bool {
        TriMesh::is_edge_active(self, id, k)
    }

    fn keeps_own_normal(&self, id: u32, triangle: &Triangle<N>, point: &Point3<N>) -> bool {
        let (_, weights) =
            geom_core::distance::closest_point_on_triangle(point, &triangle.a, &triangle.b, &triangle.c);
        match region_of(&weights, N::default_epsilon().sqrt()) {
            Region::Face => false,
            Region::Edge(k) => self.is_edge_active(id, k),
            Region::Vertex(k) => self.is_vertex_active(self.indices[id as usize][k]),
        }
    }

    fn neighbor_far_vertex(&self, id: u32, k: usize, _near: u32) -> Option<Point3<N>> {
        let neighbor = self.neighbors[id as usize][k];
        if neighbor == NO_NEIGHBOR {
            return None;
        }
        let tri = self.indices[id as usize];
        let (a, b) = (tri[k], tri[(k + 1) % 3]);
        self.indices[neighbor as usize]
            .into_iter()
            .find(|&v| v != a && v != b)
            .map(|v| self.vertices[v as usize])
    }

    fn vertex_feature(&self, id: u32, k: usize, _near: u32) -> (FeatureId, bool) {
        let vertex = self.indices[id as usize][k];
        (FeatureId::Vertex(vertex), self.is_vertex_active(vertex))
    }

    fn in_vertex_normal_cone(&self, id: u32, k: usize, _near: u32, direction: &Vector3<N>) -> bool {
        let vertex = self.indices[id as usize][k];
        let tolerance = N::default_epsilon() * nalgebra::convert::<f64, N>(64.0);
        self.in_vertex_cone(vertex, direction, tolerance)
    }

    fn locate(&self, point: &Point3<N>, near: u32, within: N) -> Location<N> {
        self.locate_measured(point, near, within).0
    }

    fn locate_measured(&self, point: &Point3<N>, _near: u32, within: N) -> Located<N> {
        let Some(nearest) = self.nearest_within(point, within) else {
            return (Location::Front, None);
        };
        self.located(point, &nearest)
    }

    fn locate_around(
        &self,
        point: &Point3<N>,
        near: u32,
        within: N,
        around: &Around<'_, N, u32>,
    ) -> Located<N> {
        // The bound the tree's search would take (`nearest_within`).
        let widened = super::shape::widened_bound(within);
        // False for NaN, and for an infinite `within` (a search of all).
        let covered = widened <= around.radius;
        if !covered {
            return self.locate_measured(point, near, within);
        }
        match self.nearest_among(point, widened, around.triangles) {
            Some(nearest) => self.located(point, &nearest),
            // Rounding left the nearest triangle just beyond the bound.
            None => self.locate_measured(point, near, within),
        }
    }

    fn escape(&self, point: &Point3<N>, _near: u32) -> Option<(Point3<N>, Vector3<N>)> {
        let nearest = self.nearest(point)?;
        let pseudo_normal = self.pseudo_normal(&nearest);
        let out = geom_prims::contact::try_unit(&(nearest.point - point))
            .or_else(|| geom_prims::contact::try_unit(&pseudo_normal))?;
        Some((nearest.point, out))
    }

    /// Any position: a mesh's lookups from a point do not use it.
    fn near_point(&self, _point: &Point3<N>) -> u32 {
        0
    }

    fn surface_through(&self, foot: &Point3<N>, _near: u32, scale: N) -> bool {
        let tolerance = crate::surface::surface_tolerance(scale, foot.coords.amax());
        // Any triangle within the tolerance will do: the triangles whose
        // boxes meet the foot's box loosened by it, until one is that near
        // (no ordering, no distances to boxes).
        let mut through = false;
        self.bvh
            .visit_aabb_in_tree_order(&foot_box(foot, tolerance), |p| {
                through = foot_on_triangle(self.at_tree_position(p).1, foot, tolerance);
                !through
            });
        through
    }

    fn surface_through_around(
        &self,
        foot: &Point3<N>,
        near: u32,
        scale: N,
        from_segment: N,
        around: &Around<'_, N, u32>,
    ) -> bool {
        let tolerance = crate::surface::surface_tolerance(scale, foot.coords.amax());
        // A triangle within the tolerance of the foot is within
        // `from_segment` and the tolerance of the segment (twice it here,
        // for the rounding of the foot and of its distances).
        let covered = from_segment + tolerance + tolerance <= around.radius;
        if !covered {
            return self.surface_through(foot, near, scale);
        }
        let cull = foot_box(foot, tolerance);
        around.triangles.iter().any(|&(_, position)| {
            self.bvh.aabb_in_tree_order(position).intersects(&cull)
                && foot_on_triangle(self.at_tree_position(position).1, foot, tolerance)
        })
    }
}

impl<N: Real> TriMesh<N> {
    /// Where `point` is, given its nearest surface point `nearest`.
    fn located(&self, point: &Point3<N>, nearest: &Nearest<N>) -> Located<N> {
        let distance = (point - nearest.point).norm();
        let location = match (self.closed, self.is_behind(point, nearest)) {
            (true, true) => Location::Inside(distance),
            (false, true) if point != &nearest.point => Location::Behind,
            _ => Location::Front,
        };
        (location, Some(distance))
    }

    /// [`TriMesh::nearest_within`] among `triangles` (ids and tree
    /// positions) alone, in their order: the nearest within `bound`, the
    /// first of equally near ones, as the tree's search keeps it.
    fn nearest_among(&self, point: &Point3<N>, bound: N, triangles: &[(u32, u32)]) -> Option<Nearest<N>> {
        // The tree's widening of the squared reach for its box culls.
        let widen = N::one() + nalgebra::convert::<f64, N>(4.0) * N::default_epsilon();
        let mut reach = bound;
        let mut best = None;
        for &(id, position) in triangles {
            if self
                .bvh
                .aabb_in_tree_order(position)
                .distance_squared_to_point(point)
                > reach * reach * widen
            {
                continue;
            }
            let triangle = self.at_tree_position(position).1;
            let (on_triangle, weights) =
                closest_point_on_triangle_branching(point, &triangle.a, &triangle.b, &triangle.c);
            let distance = (point - on_triangle).norm();
            if distance < reach || (best.is_none() && distance <= reach) {
                reach = distance;
                best = Some(Nearest {
                    triangle: id,
                    position,
                    point: on_triangle,
                    weights,
                });
            }
        }
        best
    }
}

/// The box around `foot` in which a triangle within `tolerance` of it
/// lies: loosened by twice the tolerance, so that its own rounding never
/// culls a triangle exactly that far (the distance decides).
fn foot_box<N: Real>(foot: &Point3<N>, tolerance: N) -> Aabb<N> {
    Aabb::new(*foot, *foot).loosened(tolerance + tolerance)
}

/// Whether `triangle` passes within `tolerance` of `foot`
/// ([`TriangleSurface::surface_through`]).
fn foot_on_triangle<N: Real>(triangle: &Triangle<N>, foot: &Point3<N>, tolerance: N) -> bool {
    // About the triangle's first vertex: exact differences, so only the
    // foot's own rounding counts against the tolerance.
    let Triangle { a, b, c } = *triangle;
    let origin = a.coords;
    let local_foot = foot - origin;
    // The triangle is no nearer than its plane: a plane farther than twice
    // the tolerance, beyond the rounding of this height (a few ε of
    // `local_foot`), rules it out without its closest point. Most feet are
    // asked about off flat ground, beside triangles whose planes they are
    // not on.
    let normal = super::unit_normal(triangle);
    let eight = nalgebra::convert::<f64, N>(8.0);
    let rounding = eight * N::default_epsilon() * local_foot.coords.lp_norm(1);
    if normal.dot(&local_foot.coords).abs() > tolerance + tolerance + rounding {
        return false;
    }
    let (on_triangle, _) = geom_core::distance::closest_point_on_triangle_branching(
        &local_foot,
        &Point3::origin(),
        &(b - origin),
        &(c - origin),
    );
    (local_foot - on_triangle).norm() <= tolerance
}
