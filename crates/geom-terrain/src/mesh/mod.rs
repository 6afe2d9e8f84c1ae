//! Triangle meshes: vertices and indices, validated, behind a [`Bvh`].
//!
//! A [`TriMesh`] is a surface of triangles. Where it is closed (every edge
//! shared by exactly two triangles that run it in opposite directions) it
//! also bounds a solid: `solid` queries then treat its inside as filled,
//! whichever way its triangles wind (an inward-wound closed mesh is read
//! with its normals turned out). An open mesh is a surface only, two-sided
//! like a [`Triangle`]: `solid` changes nothing.
//!
//! Inside a closed mesh is decided by the angle-weighted pseudo-normal of
//! the nearest feature (Bærentzen & Aanæs, "Signed distance computation
//! using the angle weighted pseudonormal", IEEE TVCG 2005): the nearest
//! triangle's face normal, the sum of the two face normals at an edge, or
//! the incident face normals weighted by their angles at a vertex; a point
//! is inside when its offset from the nearest surface point points against
//! that normal. Ray casts go through the tree to the watertight triangle
//! test ([`ray_cast_triangle_filtered`](geom_prims::triangle::ray_cast_triangle_filtered)),
//! so a ray never slips between two triangles sharing an edge.
//!
//! Contacts: spheres and capsules go through the routine the heightfield
//! uses (a swept-sphere segment against the triangles near it, one
//! candidate per triangle with the normal fixed by the active edges, then
//! grouped by normal and reduced to four points per manifold). Other
//! convex shapes take each nearby triangle's contact from a
//! [`DispatchTable`](geom_core::DispatchTable) (the analytic box–triangle
//! routine, GJK/EPA for the rest) and fix its normal as Jolt's
//! `ActiveEdges::FixNormal` does: a contact on the face, or on an inactive
//! (flat or concave) edge or vertex, takes the face's normal, the shape's
//! support feature clipped to the triangle giving each point's depth; on
//! an active edge or vertex the routine's normal stands. An open mesh is
//! two-sided (a shape behind it, by the pseudo-normal of the surface's
//! nearest feature to it, is pushed out behind); a shape sunk in a closed
//! mesh is pushed out of it. [`register_pairs`] installs these in a
//! dispatch table in both orders; `geom::default_dispatcher` does.
//!
//! ```
//! use geom_core::{Ray, Shape};
//! use geom_terrain::TriMesh;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A unit tetrahedron: closed, so it is a solid.
//! let vertices = vec![
//!     Point3::new(0.0, 0.0, 0.0),
//!     Point3::new(1.0, 0.0, 0.0),
//!     Point3::new(0.0, 1.0, 0.0),
//!     Point3::new(0.0, 0.0, 1.0),
//! ];
//! let indices = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
//! let tetra = TriMesh::new(vertices, indices).unwrap();
//! assert!(tetra.is_closed());
//! // Down onto the face x + y + z = 1 from above (0.2, 0.2, 5): z = 0.6, t = 4.4.
//! let ray = Ray::new(Point3::new(0.2, 0.2, 5.0), -Vector3::z());
//! let hit = tetra.ray_cast(&Isometry3::identity(), &ray, f64::INFINITY, true).unwrap();
//! assert!((hit.t - 4.4).abs() < 1e-12);
//! assert!((hit.normal - Vector3::new(1.0, 1.0, 1.0) / 3f64.sqrt()).norm() < 1e-12);
//! // A point inside is inside; its nearest boundary point is on the face z = 0.
//! let p = tetra.closest_point_local(&Point3::new(0.2, 0.3, 0.1), false).unwrap();
//! assert!(p.is_inside);
//! assert!((p.point - Point3::new(0.2, 0.3, 0.0)).norm() < 1e-12);
//! // A bad index is refused by name.
//! let bad = TriMesh::<f64>::new(vec![Point3::origin(); 3], vec![[0, 1, 7]]);
//! assert!(bad.unwrap_err().to_string().contains("index 7"));
//! ```

mod contact;
mod shape;
mod surface;
#[cfg(test)]
mod tests;

pub use contact::{
    closest_points_trimesh_convex, contact_capsule_trimesh, contact_sphere_trimesh, contact_trimesh_capsule,
    contact_trimesh_convex, contact_trimesh_convex_cached, contact_trimesh_sphere, register_pairs,
};

use geom_core::bvh::Bvh;
use geom_core::{Aabb, GeomError, Real};
use geom_prims::Triangle;
use nalgebra::{Point3, Vector3};

/// No neighbour across an edge (a boundary or non-manifold edge).
const NO_NEIGHBOR: u32 = u32::MAX;

/// A triangle mesh; see the [module documentation](self).
#[derive(Clone, Debug)]
pub struct TriMesh<N: Real> {
    vertices: Vec<Point3<N>>,
    indices: Vec<[u32; 3]>,
    /// Unit face normals, `(b − a) × (c − a)` normalised.
    normals: Vec<Vector3<N>>,
    /// The triangle across edge `k` (vertex `k` to `k + 1`), or
    /// [`NO_NEIGHBOR`].
    neighbors: Vec<[u32; 3]>,
    bvh: Bvh<N>,
    /// The box around every triangle (every ray cast asks for it).
    aabb: Aabb<N>,
    /// The triangles' vertices and indices in the tree's order
    /// ([`Bvh::tree_order`]): a leaf's triangles are adjacent in memory, so
    /// a query reaching a leaf reads them without going through the
    /// indices to scattered vertices, nor through the tree order to their
    /// indices.
    tree_triangles: Vec<TreeTriangle<N>>,
    /// Whether the mesh is closed, and so bounds a solid.
    closed: bool,
    /// The pseudo-normals deciding which side of the surface a point is on.
    pseudo: PseudoNormals<N>,
    /// The angle between face normals under which an edge is flat.
    active_edge_angle: N,
    /// Bit `k` set when edge `k` of the triangle is active.
    active_edges: Vec<u8>,
    /// Whether each vertex touches an active edge.
    active_vertices: Vec<bool>,
    /// The triangles around each vertex: `vertex_triangles[vertex_start[v]
    /// .. vertex_start[v + 1]]`.
    vertex_start: Vec<u32>,
    vertex_triangles: Vec<u32>,
}

/// The most triangles a mesh holds (2²⁷, the limit of its tree).
pub const MAX_TRIANGLES: usize = 1 << 27;

/// A triangle's vertices and its index, as the tree's order stores them.
#[derive(Clone, Debug)]
struct TreeTriangle<N: Real> {
    triangle: Triangle<N>,
    index: u32,
}

/// A triangle's unit normal, `(b − a) × (c − a)` normalised: the mesh's
/// stored normals, and the same bits again from a triangle a query has
/// already loaded (rather than a scattered read of the stored one).
fn unit_normal<N: Real>(triangle: &Triangle<N>) -> Vector3<N> {
    face_cross(triangle).normalize()
}

/// `(b − a) × (c − a)`.
fn face_cross<N: Real>(triangle: &Triangle<N>) -> Vector3<N> {
    (triangle.b - triangle.a).cross(&(triangle.c - triangle.a))
}

/// Angle-weighted pseudo-normals, oriented to the front (out of a closed
/// mesh).
#[derive(Clone, Debug)]
struct PseudoNormals<N: Real> {
    /// `−1` for a closed mesh whose triangles wind inwards, else `+1`.
    orientation: N,
    /// Per triangle and edge: the sum of the two face normals (twice the
    /// face's own on a boundary edge).
    edge_normals: Vec<[Vector3<N>; 3]>,
    /// Per vertex: the incident face normals weighted by their angles.
    vertex_normals: Vec<Vector3<N>>,
}

impl<N: Real> TriMesh<N> {
    /// The mesh of `indices` (three vertex indices per triangle,
    /// counter-clockwise about its front) over `vertices`.
    ///
    /// `Err` names the first bad input: no triangle or more than
    /// [`MAX_TRIANGLES`], a vertex with a non-finite coordinate or beyond
    /// [`max_coordinate`](crate::max_coordinate), an index out of range, or a
    /// degenerate triangle (a repeated index, or vertices collinear to
    /// within rounding: no normal to speak of).
    pub fn new(vertices: Vec<Point3<N>>, indices: Vec<[u32; 3]>) -> Result<Self, GeomError> {
        if indices.is_empty() {
            return Err(GeomError::invalid(
                "trimesh",
                "indices",
                "[]",
                "must hold at least one triangle",
            ));
        }
        if indices.len() > MAX_TRIANGLES {
            return Err(GeomError::invalid(
                "trimesh",
                "indices",
                format_args!("{} triangles", indices.len()),
                "must hold at most 2^27 (134217728) triangles, the tree's limit",
            ));
        }
        let limit = crate::max_coordinate::<N>();
        for (i, v) in vertices.iter().enumerate() {
            if !v.iter().all(|c| c.is_finite() && c.abs() <= limit) {
                return Err(GeomError::invalid(
                    "trimesh",
                    "vertices",
                    format_args!("vertex {i} = {:?}", <[N; 3]>::from(v.coords)),
                    "must be finite and within max_coordinate",
                ));
            }
        }
        let mut normals = Vec::with_capacity(indices.len());
        for (t, triangle) in indices.iter().enumerate() {
            if let Some(&bad) = triangle.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(GeomError::invalid(
                    "trimesh",
                    "indices",
                    format_args!(
                        "triangle {t} = {triangle:?} (index {bad}, {} vertices)",
                        vertices.len()
                    ),
                    "must index the vertices",
                ));
            }
            let [a, b, c] = triangle.map(|i| vertices[i as usize]);
            let (ab, ac) = (b - a, c - a);
            let normal = face_cross(&Triangle { a, b, c });
            // Collinear to within rounding: the cross product is no larger
            // than its own error (a few ε·|ab|·|ac|).
            let bound = N::default_epsilon() * nalgebra::convert::<f64, N>(8.0);
            let degenerate = triangle[0] == triangle[1]
                || triangle[1] == triangle[2]
                || triangle[0] == triangle[2]
                || normal.norm_squared() <= bound * bound * ab.norm_squared() * ac.norm_squared();
            if degenerate {
                return Err(GeomError::invalid(
                    "trimesh",
                    "indices",
                    format_args!("triangle {t} = {triangle:?}"),
                    "must not be degenerate (repeated or collinear vertices)",
                ));
            }
            // `unit_normal`'s expression, so that queries recomputing it
            // get these bits.
            normals.push(normal.normalize());
        }
        let boxes: Vec<Aabb<N>> = indices
            .iter()
            .map(|tri| {
                let [a, b, c] = tri.map(|i| vertices[i as usize]);
                Aabb::new(a, a).including(&b).including(&c)
            })
            .collect();
        let bvh = Bvh::build(&boxes);
        let tree_triangles = bvh
            .tree_order()
            .iter()
            .map(|&t| {
                let [a, b, c] = indices[t as usize].map(|i| vertices[i as usize]);
                TreeTriangle {
                    triangle: Triangle { a, b, c },
                    index: t,
                }
            })
            .collect();
        let (vertex_start, vertex_triangles) = vertex_triangles(vertices.len(), &indices);
        let (neighbors, closed) = neighbors(&indices, &vertex_start, &vertex_triangles);
        let aabb = bvh.root_aabb().expect("a mesh has a triangle");
        let mut mesh = TriMesh {
            vertices,
            indices,
            normals,
            neighbors,
            bvh,
            aabb,
            tree_triangles,
            closed,
            pseudo: PseudoNormals {
                orientation: N::one(),
                edge_normals: Vec::new(),
                vertex_normals: Vec::new(),
            },
            active_edge_angle: nalgebra::convert(crate::DEFAULT_ACTIVE_EDGE_ANGLE_DEGREES.to_radians()),
            active_edges: Vec::new(),
            active_vertices: Vec::new(),
            vertex_start,
            vertex_triangles,
        };
        mesh.pseudo = mesh.pseudo_normals();
        mesh.find_active_edges();
        Ok(mesh)
    }

    /// This mesh with edges between faces less than `radians` apart
    /// treated as flat (inactive; 5° by default, as for heightfields).
    /// `Err` names an angle that is not finite or outside `0..=π`.
    pub fn with_active_edge_angle(mut self, radians: N) -> Result<Self, GeomError> {
        if !(radians.is_finite() && radians >= N::zero() && radians <= N::pi()) {
            return Err(GeomError::invalid(
                "trimesh",
                "active_edge_angle",
                radians,
                "must be finite and within 0..=π radians",
            ));
        }
        self.active_edge_angle = radians;
        self.find_active_edges();
        Ok(self)
    }

    /// The angle between face normals under which an edge is flat.
    pub fn active_edge_angle(&self) -> N {
        self.active_edge_angle
    }

    /// Whether edge `edge` (vertex `edge` to `edge + 1`) of triangle
    /// `index` is active: its closest-point direction may serve as a
    /// contact normal. An edge is active on the boundary, where more than
    /// two triangles meet, and where the surface bends convexly (away from
    /// the front) by more than [`TriMesh::active_edge_angle`]; flat and
    /// concave edges are not, which keeps shapes sliding over them from
    /// catching (no ghost collisions). `false` past the last triangle.
    pub fn is_edge_active(&self, index: u32, edge: usize) -> bool {
        self.active_edges
            .get(index as usize)
            .is_some_and(|bits| edge < 3 && bits >> edge & 1 == 1)
    }

    /// Whether `vertex` touches an active edge.
    pub fn is_vertex_active(&self, vertex: u32) -> bool {
        self.active_vertices
            .get(vertex as usize)
            .copied()
            .unwrap_or(false)
    }

    /// The triangles around `vertex`.
    fn triangles_around(&self, vertex: u32) -> &[u32] {
        &self.vertex_triangles
            [self.vertex_start[vertex as usize] as usize..self.vertex_start[vertex as usize + 1] as usize]
    }

    /// Whether `direction` has no component along any edge leaving
    /// `vertex` (beyond `tolerance` of the edge's length): inside the
    /// vertex's normal cone.
    fn in_vertex_cone(&self, vertex: u32, direction: &Vector3<N>, tolerance: N) -> bool {
        let at = self.vertices[vertex as usize];
        self.triangles_around(vertex).iter().all(|&t| {
            self.indices[t as usize]
                .into_iter()
                .filter(|&v| v != vertex)
                .all(|v| {
                    let edge = self.vertices[v as usize] - at;
                    direction.dot(&edge) <= tolerance * edge.norm()
                })
        })
    }

    /// The front normal of triangle `index`: out of a closed mesh, along
    /// `(b − a) × (c − a)` on an open one.
    fn front_normal(&self, index: usize) -> Vector3<N> {
        self.normals[index] * self.pseudo.orientation
    }

    /// [`TriMesh::front_normal`] of a triangle a query has already loaded
    /// from the tree's order, recomputed from it (the stored bits) rather
    /// than read from the scattered stored normals.
    fn front_normal_of(&self, triangle: &Triangle<N>) -> Vector3<N> {
        unit_normal(triangle) * self.pseudo.orientation
    }

    fn find_active_edges(&mut self) {
        let cos_threshold = self.active_edge_angle.cos();
        self.active_edges = vec![0; self.indices.len()];
        self.active_vertices = vec![false; self.vertices.len()];
        for t in 0..self.indices.len() {
            let normal = self.front_normal(t);
            for k in 0..3 {
                let active = match self.neighbors[t][k] {
                    NO_NEIGHBOR => true,
                    n => {
                        let tri = self.indices[t];
                        let (a, b) = (tri[k], tri[(k + 1) % 3]);
                        let far = self.indices[n as usize]
                            .into_iter()
                            .find(|&v| v != a && v != b)
                            .unwrap_or(a);
                        let bend = normal.dot(&(self.vertices[far as usize] - self.vertices[a as usize]));
                        bend < N::zero() && normal.dot(&self.front_normal(n as usize)) < cos_threshold
                    }
                };
                if active {
                    self.active_edges[t] |= 1 << k;
                    self.active_vertices[self.indices[t][k] as usize] = true;
                    self.active_vertices[self.indices[t][(k + 1) % 3] as usize] = true;
                }
            }
        }
    }

    /// The heightfield's surface as a mesh: every sample a vertex, every
    /// triangle that is not in a hole a triangle (in the order of their
    /// [`TriangleId`](crate::TriangleId)s, facing up). `Err` when every
    /// cell is a hole.
    pub fn from_heightfield(field: &crate::HeightField<N>) -> Result<Self, GeomError> {
        let (rows, cols) = (field.rows(), field.cols());
        let mut vertices = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                vertices.push(field.sample_point(i, j));
            }
        }
        let mut indices = Vec::with_capacity(2 * field.cell_count());
        for cell in 0..field.cell_count() {
            if field.is_hole(cell) {
                continue;
            }
            let (i, j) = field.cell_coords(cell);
            for half in 0..2 {
                indices.push(
                    field
                        .triangle_samples(i, j, half)
                        .map(|(si, sj)| (si * cols + sj) as u32),
                );
            }
        }
        Self::new(vertices, indices)
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Point3<N>] {
        &self.vertices
    }

    /// The triangles' vertex indices.
    pub fn indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// How many triangles the mesh has.
    pub fn triangle_count(&self) -> usize {
        self.indices.len()
    }

    /// Triangle `index`'s vertices (`None` past the last).
    pub fn triangle(&self, index: u32) -> Option<Triangle<N>> {
        let [a, b, c] = self
            .indices
            .get(index as usize)?
            .map(|i| self.vertices[i as usize]);
        Some(Triangle { a, b, c })
    }

    /// The triangle at position `p` of the tree's order, and its index.
    fn at_tree_position(&self, p: u32) -> (u32, &Triangle<N>) {
        let stored = &self.tree_triangles[p as usize];
        (stored.index, &stored.triangle)
    }

    /// Triangle `index`'s unit normal, `(b − a) × (c − a)` normalised
    /// (`None` past the last).
    pub fn triangle_normal(&self, index: u32) -> Option<Vector3<N>> {
        self.normals.get(index as usize).copied()
    }

    /// The triangle sharing edge `edge` (0: vertex 0 to 1, 1: 1 to 2, 2: 2
    /// to 0) of triangle `index`, run the other way; `None` on a boundary,
    /// where more than two triangles share the edge, or where its only
    /// neighbour runs it the same way (inconsistent winding).
    pub fn neighbor(&self, index: u32, edge: usize) -> Option<u32> {
        let n = *self.neighbors.get(index as usize)?.get(edge)?;
        (n != NO_NEIGHBOR).then_some(n)
    }

    /// Whether the mesh is closed (every edge shared by exactly two
    /// triangles running it in opposite directions), and so bounds a solid.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The bounding-volume hierarchy over the triangles (primitive `i` is
    /// triangle `i`).
    pub fn bvh(&self) -> &Bvh<N> {
        &self.bvh
    }

    /// Angle-weighted pseudo-normals, and the winding of a closed mesh.
    fn pseudo_normals(&self) -> PseudoNormals<N> {
        // Signed volume of a closed mesh, relative to the first vertex:
        // positive when the triangles wind counter-clockwise seen from
        // outside.
        let origin = self.vertices[self.indices[0][0] as usize];
        let six_volume = self
            .indices
            .iter()
            .map(|tri| {
                let [a, b, c] = tri.map(|i| self.vertices[i as usize] - origin);
                a.dot(&b.cross(&c))
            })
            .fold(N::zero(), |s, v| s + v);
        let orientation = if six_volume < N::zero() {
            -N::one()
        } else {
            N::one()
        };
        let mut vertex_normals = vec![Vector3::zeros(); self.vertices.len()];
        let mut edge_normals = Vec::with_capacity(self.indices.len());
        for (t, tri) in self.indices.iter().enumerate() {
            let normal = self.normals[t] * orientation;
            let corners = tri.map(|i| self.vertices[i as usize]);
            for k in 0..3 {
                let to_next = corners[(k + 1) % 3] - corners[k];
                let to_previous = corners[(k + 2) % 3] - corners[k];
                let angle = to_next.angle(&to_previous);
                vertex_normals[tri[k] as usize] += normal * angle;
            }
            edge_normals.push([0, 1, 2].map(|k| match self.neighbors[t][k] {
                NO_NEIGHBOR => normal + normal,
                neighbor => normal + self.normals[neighbor as usize] * orientation,
            }));
        }
        PseudoNormals {
            orientation,
            edge_normals,
            vertex_normals,
        }
    }
}

/// The triangles around each vertex, as offsets and a flat list.
fn vertex_triangles(vertex_count: usize, indices: &[[u32; 3]]) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; vertex_count + 1];
    for tri in indices {
        for &v in tri {
            start[v as usize + 1] += 1;
        }
    }
    for v in 0..vertex_count {
        start[v + 1] += start[v];
    }
    let mut next = start.clone();
    let mut list = vec![0u32; 3 * indices.len()];
    for (t, tri) in indices.iter().enumerate() {
        for &v in tri {
            list[next[v as usize] as usize] = t as u32;
            next[v as usize] += 1;
        }
    }
    (start, list)
}

/// The neighbour across each edge, and whether every edge has one (the
/// mesh is closed and consistently wound). An edge has a neighbour when
/// exactly two triangles use it, running it in opposite directions: the
/// triangles using edge `{a, b}` are found among those around its lower
/// vertex (`vertex_start`, `vertex_triangles`: [`vertex_triangles`]), a
/// handful each, rather than by sorting every edge.
fn neighbors(indices: &[[u32; 3]], vertex_start: &[u32], vertex_triangles: &[u32]) -> (Vec<[u32; 3]>, bool) {
    let mut result = vec![[NO_NEIGHBOR; 3]; indices.len()];
    let mut closed = true;
    for (t, tri) in indices.iter().enumerate() {
        for k in 0..3 {
            let (from, to) = (tri[k], tri[(k + 1) % 3]);
            let (low, high) = (from.min(to) as usize, from.max(to));
            let ring = &vertex_triangles[vertex_start[low] as usize..vertex_start[low + 1] as usize];
            // The other triangles using the edge (those around its lower
            // vertex that also hold its higher one), and whether the last
            // runs it the other way: from `to` to `from`.
            let mut uses = 0;
            let mut other = NO_NEIGHBOR;
            let mut opposite = false;
            for &u in ring {
                let them = indices[u as usize];
                if u as usize == t || !them.contains(&high) {
                    continue;
                }
                uses += 1;
                other = u;
                let at_to = if them[0] == to {
                    0
                } else if them[1] == to {
                    1
                } else {
                    2
                };
                opposite = them[(at_to + 1) % 3] == from;
            }
            if uses == 1 && opposite {
                result[t][k] = other;
            } else {
                closed = false;
            }
        }
    }
    (result, closed)
}
