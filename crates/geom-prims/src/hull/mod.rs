//! Convex hulls of point sets, built by quickhull with exact orientation
//! tests, answering ray casts, closest points and support features (so
//! GJK/EPA serve every pair with another convex shape).
//!
//! The hull keeps its vertices, its faces as polygons (coplanar triangles
//! merged, counter-clockwise seen from outside, with unit outward normals)
//! and their triangles (for closest points). Which side of a face a point
//! lies on, the one decision the hull's shape depends on, is exact
//! (quickhull with Shewchuk's `orient3d`): every input point is on or inside the hull, and no
//! face is folded, whatever the rounding of the coordinates.
//!
//! ```
//! use geom_core::{Ray, Shape};
//! use geom_prims::ConvexHull;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A unit cube's corners and some points inside: the hull is the cube,
//! // 8 vertices and 6 square faces.
//! let mut points: Vec<Point3<f64>> = (0..8)
//!     .map(|k| Point3::new((k & 1) as f64, ((k >> 1) & 1) as f64, ((k >> 2) & 1) as f64))
//!     .collect();
//! points.push(Point3::new(0.5, 0.5, 0.5));
//! points.push(Point3::new(0.2, 0.9, 0.4));
//! let cube = ConvexHull::new(&points).unwrap();
//! assert_eq!((cube.vertices().len(), cube.face_count()), (8, 6));
//! // Down onto the top face z = 1 from z = 3: t = 2, normal +z.
//! let ray = Ray::new(Point3::new(0.3, 0.6, 3.0), -Vector3::z());
//! let hit = cube.ray_cast(&Isometry3::identity(), &ray, f64::INFINITY, true).unwrap();
//! assert_eq!((hit.t, hit.normal), (2.0, Vector3::z()));
//! // The support point along (1, 1, 1) is the far corner.
//! assert_eq!(cube.support_local(&Vector3::new(1.0, 1.0, 1.0)), Some(Point3::new(1.0, 1.0, 1.0)));
//! // Flat input has no hull: refused by name.
//! let flat = [Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0), Point3::new(1.0, 1.0, 0.0)];
//! assert!(ConvexHull::<f64>::new(&flat).unwrap_err().to_string().contains("one plane"));
//! ```

mod quickhull;
mod shape;
#[cfg(test)]
mod tests;

use geom_core::{Aabb, GeomError, MAX_FEATURE_POINTS, Real};
use nalgebra::{Point3, Vector3};

/// A face of the hull: a convex polygon.
#[derive(Clone, Debug)]
struct Face<N: Real> {
    /// `corners[start..start + len]`, counter-clockwise seen from outside.
    start: u32,
    len: u32,
    /// Unit outward normal.
    normal: Vector3<N>,
}

/// The convex hull of a set of points; see the [module documentation](self).
#[derive(Clone, Debug)]
pub struct ConvexHull<N: Real> {
    vertices: Vec<Point3<N>>,
    faces: Vec<Face<N>>,
    /// The faces' corners (indices into `vertices`).
    corners: Vec<u32>,
    /// The faces' triangles (a fan over each face).
    triangles: Vec<[u32; 3]>,
    /// Each vertex's neighbours along hull edges: `edges[edge_start[v] ..
    /// edge_start[v + 1]]`.
    edge_start: Vec<u32>,
    edges: Vec<u32>,
    aabb: Aabb<N>,
}

impl<N: Real> ConvexHull<N> {
    /// The hull of `points`. `Err` names the problem: a point with a NaN
    /// or infinite coordinate, or beyond [`geom_core::max_size`] (whose
    /// products overflow), or points that span no volume (fewer than
    /// four, all on one line or in one plane).
    pub fn new(points: &[Point3<N>]) -> Result<Self, GeomError> {
        let limit = geom_core::max_size::<N>();
        let mut exact = Vec::with_capacity(points.len());
        for (i, p) in points.iter().enumerate() {
            let converted: Option<[f64; 3]> = [p.x, p.y, p.z]
                .into_iter()
                .map(|c| {
                    (c.is_finite() && c.abs() <= limit)
                        .then(|| nalgebra::try_convert::<N, f64>(c))
                        .flatten()
                })
                .collect::<Option<Vec<f64>>>()
                .map(|v| [v[0], v[1], v[2]]);
            match converted {
                Some(c) => exact.push(c),
                None => {
                    return Err(GeomError::invalid(
                        "convex hull",
                        "points",
                        format_args!("point {i} = {:?}", <[N; 3]>::from(p.coords)),
                        "must be finite and within max_size",
                    ));
                }
            }
        }
        let triangles = quickhull::hull(&exact).map_err(|flat| {
            GeomError::invalid(
                "convex hull",
                "points",
                format_args!("{} points", points.len()),
                match flat {
                    quickhull::Flat::Collinear => {
                        "must span a volume (fewer than four distinct points, or all on one line)"
                    }
                    quickhull::Flat::Coplanar => "must span a volume (all lie in one plane)",
                },
            )
        })?;
        Ok(Self::from_triangles(points, &exact, &triangles))
    }

    /// Renumbers the hull's vertices, merges coplanar neighbouring
    /// triangles into polygons and builds the edge lists.
    fn from_triangles(points: &[Point3<N>], exact: &[[f64; 3]], triangles: &[[u32; 3]]) -> Self {
        let polygons = merge_coplanar(exact, triangles);
        // The vertices are the polygons' corners: a point inside a face or
        // on an edge was a corner of the triangles only.
        let mut index = vec![u32::MAX; points.len()];
        let mut vertices = Vec::new();
        for &v in polygons.iter().flatten() {
            if index[v as usize] == u32::MAX {
                index[v as usize] = vertices.len() as u32;
                vertices.push(points[v as usize]);
            }
        }
        let mut faces = Vec::with_capacity(polygons.len());
        let mut corners = Vec::new();
        let mut fans = Vec::new();
        for polygon in &polygons {
            let start = corners.len() as u32;
            corners.extend(polygon.iter().map(|&v| index[v as usize]));
            let local = &corners[start as usize..];
            // Newell's normal, relative to the first corner.
            let origin = vertices[local[0] as usize];
            let mut normal = Vector3::zeros();
            for k in 1..local.len() - 1 {
                let (b, c) = (vertices[local[k] as usize], vertices[local[k + 1] as usize]);
                normal += (b - origin).cross(&(c - origin));
                fans.push([local[0], local[k], local[k + 1]]);
            }
            faces.push(Face {
                start,
                len: polygon.len() as u32,
                normal: normal.normalize(),
            });
        }
        // Edges from the faces' loops (each edge seen once per face).
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for face in &faces {
            let loop_ = &corners[face.start as usize..(face.start + face.len) as usize];
            for k in 0..loop_.len() {
                let (a, b) = (loop_[k], loop_[(k + 1) % loop_.len()]);
                pairs.push((a, b));
            }
        }
        pairs.sort_unstable();
        let mut edge_start = vec![0u32; vertices.len() + 1];
        for &(a, _) in &pairs {
            edge_start[a as usize + 1] += 1;
        }
        for v in 0..vertices.len() {
            edge_start[v + 1] += edge_start[v];
        }
        let edges = pairs.iter().map(|&(_, b)| b).collect();
        let aabb = Aabb::from_points(&vertices).expect("a hull has vertices");
        ConvexHull {
            vertices,
            faces,
            corners,
            triangles: fans,
            edge_start,
            edges,
            aabb,
        }
    }

    /// The hull's vertices (the input points on its corners).
    pub fn vertices(&self) -> &[Point3<N>] {
        &self.vertices
    }

    /// How many faces (polygons, coplanar triangles merged) the hull has.
    pub fn face_count(&self) -> usize {
        self.faces.len()
    }

    /// Face `index`'s corners (counter-clockwise seen from outside) and
    /// unit outward normal; `None` past the last.
    pub fn face(&self, index: usize) -> Option<(Vec<Point3<N>>, Vector3<N>)> {
        let face = self.faces.get(index)?;
        Some((
            self.face_corners(face)
                .iter()
                .map(|&v| self.vertices[v as usize])
                .collect(),
            face.normal,
        ))
    }

    fn face_corners(&self, face: &Face<N>) -> &[u32] {
        &self.corners[face.start as usize..(face.start + face.len) as usize]
    }

    /// The neighbours of vertex `v` along the hull's edges.
    fn neighbors(&self, v: u32) -> &[u32] {
        &self.edges[self.edge_start[v as usize] as usize..self.edge_start[v as usize + 1] as usize]
    }

    /// At most [`MAX_FEATURE_POINTS`] corners of a face for a support
    /// feature: all of them, or that many spread evenly around the loop.
    fn feature_corners(&self, face: &Face<N>) -> impl Iterator<Item = Point3<N>> + '_ {
        let loop_ = self.face_corners(face);
        let count = loop_.len().min(MAX_FEATURE_POINTS);
        (0..count).map(move |k| self.vertices[loop_[k * loop_.len() / count] as usize])
    }
}

/// `loop_` without its corners that lie on the segment between their
/// neighbours (exactly, by `orient2d` in the plane's best projection):
/// points that were on a hull edge when the hull grew past them.
fn without_straight_corners(points: &[[f64; 3]], loop_: &[u32], plane: [u32; 3]) -> Vec<u32> {
    let [a, b, c] = plane.map(|v| points[v as usize]);
    let normal = [
        (b[1] - a[1]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[1] - a[1]),
        (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]),
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]),
    ];
    // Drop the axis the normal is largest along: the projection keeps
    // the polygon's shape (no edge becomes a point).
    let drop = (0..3)
        .max_by(|&i, &j| normal[i].abs().total_cmp(&normal[j].abs()))
        .unwrap_or(2);
    let (u, v) = ((drop + 1) % 3, (drop + 2) % 3);
    let flat = |p: u32| {
        let q = points[p as usize];
        robust::Coord { x: q[u], y: q[v] }
    };
    let mut kept: Vec<u32> = loop_.to_vec();
    let mut changed = true;
    while changed && kept.len() > 3 {
        changed = false;
        for k in 0..kept.len() {
            let n = kept.len();
            let (prev, here, next) = (kept[(k + n - 1) % n], kept[k], kept[(k + 1) % n]);
            if robust::orient2d(flat(prev), flat(here), flat(next)) == 0.0 {
                kept.remove(k);
                changed = true;
                break;
            }
        }
    }
    kept
}

/// The hull's triangles grouped into polygons: neighbours across an edge
/// whose far vertex lies exactly in the triangle's plane are one face.
/// Each polygon is returned as its boundary loop, counter-clockwise seen
/// from outside.
fn merge_coplanar(points: &[[f64; 3]], triangles: &[[u32; 3]]) -> Vec<Vec<u32>> {
    use std::collections::HashMap;
    let mut by_edge: HashMap<(u32, u32), usize> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            by_edge.insert((tri[k], tri[(k + 1) % 3]), t);
        }
    }
    let coord = |v: u32| {
        let p = points[v as usize];
        robust::Coord3D {
            x: p[0],
            y: p[1],
            z: p[2],
        }
    };
    let mut group = vec![usize::MAX; triangles.len()];
    let mut polygons = Vec::new();
    for seed in 0..triangles.len() {
        if group[seed] != usize::MAX {
            continue;
        }
        let id = polygons.len();
        group[seed] = id;
        let [a, b, c] = triangles[seed];
        let mut members = vec![seed];
        let mut next = 0;
        while next < members.len() {
            let t = members[next];
            next += 1;
            let tri = triangles[t];
            for k in 0..3 {
                let Some(&n) = by_edge.get(&(tri[(k + 1) % 3], tri[k])) else {
                    continue;
                };
                if group[n] != usize::MAX {
                    continue;
                }
                let far = triangles[n]
                    .into_iter()
                    .find(|&v| v != tri[k] && v != tri[(k + 1) % 3])
                    .expect("a triangle has a vertex off the edge");
                if robust::orient3d(coord(a), coord(b), coord(c), coord(far)) == 0.0 {
                    group[n] = id;
                    members.push(n);
                }
            }
        }
        // The boundary: member edges whose reverse is not a member edge,
        // chained from each edge's end.
        let mut next_of: HashMap<u32, u32> = HashMap::new();
        for &t in &members {
            let tri = triangles[t];
            for k in 0..3 {
                let (from, to) = (tri[k], tri[(k + 1) % 3]);
                let inner = by_edge.get(&(to, from)).is_some_and(|&n| group[n] == id);
                if !inner {
                    next_of.insert(from, to);
                }
            }
        }
        let start = *next_of.keys().min().expect("a face has a boundary");
        let mut loop_ = vec![start];
        let mut at = next_of[&start];
        while at != start && loop_.len() <= next_of.len() {
            loop_.push(at);
            at = next_of[&at];
        }
        polygons.push(without_straight_corners(points, &loop_, [a, b, c]));
    }
    polygons
}
