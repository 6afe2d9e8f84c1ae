//! The mesh as a [`Shape`]: ray casts and closest points through its tree.

use geom_core::distance::closest_point_on_triangle_branching;
use std::any::Any;

use geom_core::{Aabb, FeatureId, Lane, PointProjection, Ray, RayHit, Real, Shape, ShapeKind};
use geom_prims::triangle::TriangleRay;
use nalgebra::{Point3, Vector3};
use simba::simd::{WideF32x4, WideF64x4};

use super::TriMesh;
use crate::contact::segment::{Region, region_of};

/// The nearest surface point to a query: its triangle, point and
/// barycentric weights.
pub(super) struct Nearest<N: Real> {
    pub(super) triangle: u32,
    /// The triangle's position in the tree's order.
    pub(super) position: u32,
    pub(super) point: Point3<N>,
    pub(super) weights: Vector3<N>,
}

/// The bound a nearest-point search takes for a point known to be within
/// `bound` of the surface: widened by the rounding of that distance.
pub(super) fn widened_bound<N: Real>(bound: N) -> N {
    bound * (N::one() + nalgebra::convert::<f64, N>(16.0) * N::default_epsilon())
}

impl<N: Real> TriMesh<N> {
    /// The nearest point of the surface to `point` (local frame), by the
    /// tree and the point–triangle routine; `None` for a non-finite point.
    pub(super) fn nearest(&self, point: &Point3<N>) -> Option<Nearest<N>> {
        self.nearest_within(point, nalgebra::convert::<f64, N>(f64::INFINITY))
    }

    /// [`TriMesh::nearest`] for a point known to be within `bound` of the
    /// surface (its distance to some triangle, or infinity): the tree is
    /// searched no farther, which prunes all but the point's surroundings.
    /// Should rounding leave the nearest triangle just beyond `bound`, the
    /// whole tree is searched.
    pub(super) fn nearest_within(&self, point: &Point3<N>, bound: N) -> Option<Nearest<N>> {
        let project = |p: u32| {
            let (_, t) = self.at_tree_position(p);
            closest_point_on_triangle_branching(point, &t.a, &t.b, &t.c)
        };
        let search = |limit: N| {
            self.bvh.closest_in_tree_order(point, limit, |p, _| {
                let (on_triangle, _) = project(p);
                Some((point - on_triangle).norm())
            })
        };
        let unlimited = nalgebra::convert::<f64, N>(f64::INFINITY);
        let widened = widened_bound(bound);
        let bounded = if widened < unlimited {
            search(widened)
        } else {
            None
        };
        let (position, _) = bounded.or_else(|| search(unlimited))?;
        let (point, weights) = project(position);
        Some(Nearest {
            triangle: self.at_tree_position(position).0,
            position,
            point,
            weights,
        })
    }

    /// Whether `point` (local frame) is inside or on a closed mesh (always
    /// `false` for an open one), from the pseudo-normal of the nearest
    /// feature.
    pub fn contains_local_point(&self, point: &Point3<N>) -> bool {
        self.closed && self.nearest(point).is_some_and(|n| self.is_inside(point, &n))
    }

    /// Whether `point`, whose nearest surface point is `nearest`, is inside
    /// (or on) a closed mesh.
    pub(super) fn is_inside(&self, point: &Point3<N>, nearest: &Nearest<N>) -> bool {
        self.closed && self.is_behind(point, nearest)
    }

    /// Whether `point` is behind (or on) the surface at `nearest`: its
    /// offset from there points against the pseudo-normal of the feature
    /// holding `nearest`.
    pub(super) fn is_behind(&self, point: &Point3<N>, nearest: &Nearest<N>) -> bool {
        (point - nearest.point).dot(&self.pseudo_normal(nearest)) <= N::zero()
    }

    /// The front pseudo-normal (not unit) of the feature holding the
    /// nearest point: on the face, the face normal recomputed from the
    /// triangle the search just read in the tree's order (the stored
    /// bits), rather than read from the scattered stored normals.
    pub(super) fn pseudo_normal(&self, nearest: &Nearest<N>) -> Vector3<N> {
        let t = nearest.triangle as usize;
        match region_of(&nearest.weights, N::zero()) {
            Region::Face => self.front_normal_of(self.at_tree_position(nearest.position).1),
            Region::Edge(k) => self.pseudo.edge_normals[t][k],
            Region::Vertex(k) => self.pseudo.vertex_normals[self.indices[t][k] as usize],
        }
    }
}

impl<N: Real> TriMesh<N> {
    /// The first triangle along `ray` within `[0, max_t]` (local frame):
    /// its position in the tree's order and the time, the answer of
    /// [`TriangleRay::hit_time`] on every triangle. A leaf's triangles (at
    /// most four) are tested together on four lanes,
    /// [`TriangleRay::first_hit_among`]: `WideF32x4` for an `f32` mesh,
    /// `WideF64x4` for an `f64` one, one at a time for other scalars.
    fn first_hit(&self, ray: &Ray<N>, max_t: N) -> Option<(u32, N)> {
        self.first_hit_if::<f32, WideF32x4>(ray, max_t)
            .or_else(|| self.first_hit_if::<f64, WideF64x4>(ray, max_t))
            .unwrap_or_else(|| self.first_hit_on::<N>(ray, max_t))
    }

    /// [`TriMesh::first_hit_on`] on lanes `T` when the mesh's scalar `N` is
    /// `M` (`None` otherwise). `N` is known at compile time: the type tests
    /// fold away, and the time converts back exactly (it is an `M`, that is
    /// an `N`, already).
    #[inline(always)]
    fn first_hit_if<M: Real + Into<f64>, T: Lane<Element = M>>(
        &self,
        ray: &Ray<N>,
        max_t: N,
    ) -> Option<Option<(u32, N)>> {
        let (mesh, ray, max_t): (&dyn Any, &dyn Any, &dyn Any) = (self, ray, &max_t);
        let mesh = mesh.downcast_ref::<TriMesh<M>>()?;
        let (ray, &max_t) = (ray.downcast_ref::<Ray<M>>()?, max_t.downcast_ref::<M>()?);
        Some(
            mesh.first_hit_on::<T>(ray, max_t)
                .map(|(p, t)| (p, nalgebra::convert(t.into()))),
        )
    }

    /// [`TriMesh::first_hit`] with a leaf's triangles on `T`'s lanes.
    #[inline]
    fn first_hit_on<T: Lane<Element = N>>(&self, ray: &Ray<N>, max_t: N) -> Option<(u32, N)> {
        let prepared = TriangleRay::new(ray);
        let lanes = prepared.on_lanes::<T>();
        self.bvh
            .ray_cast_leaves_in_tree_order(ray, max_t, |positions, reach| {
                let leaf = &self.tree_triangles[positions.start as usize..positions.end as usize];
                prepared
                    .first_hit_among(&lanes, leaf.len(), |i| &leaf[i].triangle, reach)
                    .map(|(i, t)| (positions.start + i as u32, t))
            })
    }
}

impl<N: Real> Shape<N> for TriMesh<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::TriMesh
    }

    fn is_convex(&self) -> bool {
        false
    }

    fn local_aabb(&self) -> Aabb<N> {
        self.aabb
    }

    /// The first triangle hit. The normal faces the ray on an open mesh
    /// (both sides are surface); on a closed one it points out of the
    /// solid, and with `solid = true` an origin inside or on it hits at
    /// `t = 0`. The feature is `Face(triangle index)`.
    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        if !ray.is_finite() || crate::heightfield::is_nan(max_t) || max_t < N::zero() {
            return None;
        }
        if solid && self.contains_local_point(&ray.origin) {
            let (dir, length) = geom_core::ray::with_length(&ray.dir);
            let normal = if length > N::zero() {
                -dir / length
            } else {
                Vector3::zeros()
            };
            return Some(RayHit {
                t: N::zero(),
                normal,
                feature: FeatureId::Unknown,
            });
        }
        let (position, t) = self.first_hit(ray, max_t)?;
        // The hit triangle is in cache: its normal is recomputed (the
        // stored one, bit for bit) rather than read from the scattered
        // normals.
        let (triangle, vertices) = self.at_tree_position(position);
        let face = super::unit_normal(vertices);
        let normal = if self.closed {
            face * self.pseudo.orientation
        } else if face.dot(&ray.dir) > N::zero() {
            -face
        } else {
            face
        };
        Some(RayHit {
            t,
            normal,
            feature: FeatureId::Face(triangle),
        })
    }

    /// The nearest surface point; on a closed mesh `is_inside` says whether
    /// the point is inside the solid (and with `solid = true` such a point
    /// projects onto itself); on an open mesh it is always `false`.
    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        let nearest = self.nearest(point)?;
        let is_inside = self.is_inside(point, &nearest);
        Some(PointProjection {
            point: if solid && is_inside { *point } else { nearest.point },
            is_inside,
        })
    }

    fn support_local(&self, _dir: &Vector3<N>) -> Option<Point3<N>> {
        None
    }
}
