//! The mesh as a [`TriangleSurface`], for the contact routines it shares
//! with the heightfield.

use geom_core::{Aabb, FeatureId, Real, Shape};
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

use super::{NO_NEIGHBOR, TriMesh};
use crate::contact::segment::{Region, region_of};
use crate::surface::{Located, Location, TriangleSurface};

impl<N: Real> TriangleSurface<N> for TriMesh<N> {
    type Near = ();

    fn local_extent(&self) -> Aabb<N> {
        self.local_aabb()
    }

    fn active_edge_angle(&self) -> N {
        self.active_edge_angle
    }

    fn visit_triangles(&self, aabb: &Aabb<N>, mut visit: impl FnMut(u32, &Triangle<N>, Self::Near)) {
        self.bvh.visit_aabb_in_tree_order(aabb, |p| {
            let (id, triangle) = self.at_tree_position(p);
            visit(id, triangle, ());
            true
        });
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

    fn neighbor_far_vertex(&self, id: u32, k: usize, _near: ()) -> Option<Point3<N>> {
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

    fn vertex_feature(&self, id: u32, k: usize, _near: ()) -> (FeatureId, bool) {
        let vertex = self.indices[id as usize][k];
        (FeatureId::Vertex(vertex), self.is_vertex_active(vertex))
    }

    fn in_vertex_normal_cone(&self, id: u32, k: usize, _near: (), direction: &Vector3<N>) -> bool {
        let vertex = self.indices[id as usize][k];
        let at = self.vertices[vertex as usize];
        let tolerance = N::default_epsilon() * nalgebra::convert::<f64, N>(64.0);
        let range =
            self.vertex_start[vertex as usize] as usize..self.vertex_start[vertex as usize + 1] as usize;
        self.vertex_triangles[range].iter().all(|&t| {
            self.indices[t as usize]
                .into_iter()
                .filter(|&v| v != vertex)
                .all(|v| {
                    let edge = self.vertices[v as usize] - at;
                    direction.dot(&edge) <= tolerance * edge.norm()
                })
        })
    }

    fn locate(&self, point: &Point3<N>, near: (), within: N) -> Location<N> {
        self.locate_measured(point, near, within).0
    }

    fn locate_measured(&self, point: &Point3<N>, _near: (), within: N) -> Located<N> {
        let Some(nearest) = self.nearest_within(point, within) else {
            return (Location::Front, None);
        };
        let distance = (point - nearest.point).norm();
        let location = match (self.closed, self.is_behind(point, &nearest)) {
            (true, true) => Location::Inside(distance),
            (false, true) if point != &nearest.point => Location::Behind,
            _ => Location::Front,
        };
        (location, Some(distance))
    }

    fn escape(&self, point: &Point3<N>, _near: ()) -> Option<(Point3<N>, Vector3<N>)> {
        let nearest = self.nearest(point)?;
        let pseudo_normal = self.pseudo_normal(&nearest);
        let out = geom_prims::contact::try_unit(&(nearest.point - point))
            .or_else(|| geom_prims::contact::try_unit(&pseudo_normal))?;
        Some((nearest.point, out))
    }

    fn near_point(&self, _point: &Point3<N>) {}

    fn surface_through(&self, foot: &Point3<N>, _near: (), scale: N) -> bool {
        let tolerance = crate::surface::surface_tolerance(scale, foot.coords.amax());
        // Any triangle within the tolerance will do: the triangles whose
        // boxes meet the foot's box loosened by it, until one is that near
        // (no ordering, no distances to boxes).
        let mut through = false;
        // The box only culls (doubled, so that its own rounding never
        // drops a triangle exactly `tolerance` away); the distance decides.
        let reach = Aabb::new(*foot, *foot).loosened(tolerance + tolerance);
        let eight = nalgebra::convert::<f64, N>(8.0);
        self.bvh.visit_aabb_in_tree_order(&reach, |p| {
            // About the triangle's first vertex: exact differences, so
            // only the foot's own rounding counts against the tolerance.
            let (_, triangle) = self.at_tree_position(p);
            let Triangle { a, b, c } = *triangle;
            let origin = a.coords;
            let local_foot = foot - origin;
            // The triangle is no nearer than its plane: a plane farther
            // than twice the tolerance, beyond the rounding of this height
            // (a few ε of `local_foot`), rules it out without its closest
            // point. Most feet are asked about off flat ground, beside
            // triangles whose planes they are not on.
            let normal = super::unit_normal(triangle);
            let rounding = eight * N::default_epsilon() * local_foot.coords.lp_norm(1);
            if normal.dot(&local_foot.coords).abs() > tolerance + tolerance + rounding {
                return true;
            }
            let (on_triangle, _) = geom_core::distance::closest_point_on_triangle_branching(
                &local_foot,
                &Point3::origin(),
                &(b - origin),
                &(c - origin),
            );
            through = (local_foot - on_triangle).norm() <= tolerance;
            !through
        });
        through
    }
}
