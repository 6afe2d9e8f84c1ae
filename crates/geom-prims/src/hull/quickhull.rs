//! Quickhull in 3D (Barber, Dobkin & Huhdanpaa, "The Quickhull Algorithm
//! for Convex Hulls", ACM TOMS 1996) with exact orientation tests: which
//! side of a face a point lies on, the only decision the hull's topology
//! depends on, is Shewchuk's adaptive `orient3d` (the `robust` crate) on
//! the input coordinates converted to `f64` (exactly, for `f32` and `f64`
//! input). Which outside point is taken next is chosen in plain
//! arithmetic: any outside point keeps the hull correct.

use std::collections::HashMap;

/// A triangle of the growing hull, counter-clockwise seen from outside.
struct Face {
    vertices: [u32; 3],
    /// The face across edge `k` (vertex `k` to `k + 1`).
    neighbors: [u32; 3],
    alive: bool,
    /// Input points strictly outside this face (assigned to it alone).
    outside: Vec<u32>,
}

/// Why the input has no three-dimensional hull.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Flat {
    /// Fewer than four distinct points, or all on one line.
    Collinear,
    /// All points in one plane.
    Coplanar,
}

fn coord(p: &[f64; 3]) -> robust::Coord3D<f64> {
    robust::Coord3D {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

/// Whether `p` is strictly above the plane of `a b c` (on the side the
/// counter-clockwise order faces), exactly.
fn above(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], p: &[f64; 3]) -> bool {
    robust::orient3d(coord(a), coord(b), coord(c), coord(p)) < 0.0
}

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The hull's triangles (indices into `points`, counter-clockwise seen
/// from outside), exactly convex: every point is on or below every
/// triangle's plane. Coplanar neighbours are left as separate triangles.
pub(super) fn hull(points: &[[f64; 3]]) -> Result<Vec<[u32; 3]>, Flat> {
    let [i0, i1, i2, i3] = initial_simplex(points)?;
    let mut faces: Vec<Face> = Vec::new();
    // The base faces away from the fourth point.
    let (a, b, c) = if above(
        &points[i0 as usize],
        &points[i1 as usize],
        &points[i2 as usize],
        &points[i3 as usize],
    ) {
        (i0, i2, i1)
    } else {
        (i0, i1, i2)
    };
    let d = i3;
    for vertices in [[a, b, c], [a, d, b], [b, d, c], [c, d, a]] {
        faces.push(Face {
            vertices,
            neighbors: [u32::MAX; 3],
            alive: true,
            outside: Vec::new(),
        });
    }
    link_neighbors(&mut faces, &[0, 1, 2, 3]);
    // Every other point goes to the first face it is above.
    for p in 0..points.len() as u32 {
        if [a, b, c, d].contains(&p) {
            continue;
        }
        if let Some(f) = (0..4).find(|&f| is_above(points, &faces[f], p)) {
            faces[f].outside.push(p);
        }
    }
    let mut stack: Vec<u32> = (0..4).collect();
    let mut visible: Vec<u32> = Vec::new();
    let mut horizon: Vec<(u32, usize)> = Vec::new();
    let mut orphans: Vec<u32> = Vec::new();
    while let Some(f) = stack.pop() {
        let face = &faces[f as usize];
        if !face.alive || face.outside.is_empty() {
            continue;
        }
        let eye = farthest(points, face);
        // The faces the eye sees, by a walk over neighbours, and the
        // horizon: edges from a visible face to one it does not see.
        visible.clear();
        horizon.clear();
        visible.push(f);
        faces[f as usize].alive = false;
        let mut next = 0;
        while next < visible.len() {
            let v = visible[next];
            next += 1;
            for k in 0..3 {
                let n = faces[v as usize].neighbors[k];
                if !faces[n as usize].alive {
                    continue;
                }
                if is_above(points, &faces[n as usize], eye) {
                    faces[n as usize].alive = false;
                    visible.push(n);
                } else {
                    horizon.push((v, k));
                }
            }
        }
        // Visited faces were marked dead to walk each once; all of them are
        // visible, so they stay dead.
        orphans.clear();
        for &v in &visible {
            orphans.append(&mut faces[v as usize].outside);
        }
        // A fan of new faces from the horizon to the eye.
        let first_new = faces.len() as u32;
        for &(v, k) in &horizon {
            let old = &faces[v as usize];
            let (from, to) = (old.vertices[k], old.vertices[(k + 1) % 3]);
            let beyond = old.neighbors[k];
            let new = faces.len() as u32;
            faces.push(Face {
                vertices: [from, to, eye],
                neighbors: [beyond, u32::MAX, u32::MAX],
                alive: true,
                outside: Vec::new(),
            });
            // The face beyond the horizon now borders the new one.
            let back = &mut faces[beyond as usize];
            let slot = (0..3)
                .find(|&j| back.vertices[j] == to && back.vertices[(j + 1) % 3] == from)
                .expect("a horizon edge is shared");
            back.neighbors[slot] = new;
        }
        let new_faces: Vec<u32> = (first_new..faces.len() as u32).collect();
        link_neighbors(&mut faces, &new_faces);
        for &p in &orphans {
            if p == eye {
                continue;
            }
            if let Some(&n) = new_faces
                .iter()
                .find(|&&n| is_above(points, &faces[n as usize], p))
            {
                faces[n as usize].outside.push(p);
            }
        }
        stack.extend(new_faces.iter().copied());
    }
    Ok(faces.iter().filter(|f| f.alive).map(|f| f.vertices).collect())
}

fn is_above(points: &[[f64; 3]], face: &Face, p: u32) -> bool {
    let [a, b, c] = face.vertices.map(|v| &points[v as usize]);
    above(a, b, c, &points[p as usize])
}

/// The outside point farthest from the face's plane (plain arithmetic).
fn farthest(points: &[[f64; 3]], face: &Face) -> u32 {
    let [a, b, c] = face.vertices.map(|v| points[v as usize]);
    let normal = cross(&sub(&b, &a), &sub(&c, &a));
    *face
        .outside
        .iter()
        .max_by(|&&p, &&q| {
            let dp = dot(&normal, &sub(&points[p as usize], &a));
            let dq = dot(&normal, &sub(&points[q as usize], &a));
            dp.total_cmp(&dq)
        })
        .expect("a face with outside points")
}

/// Links the listed faces' edges to each other where one runs an edge the
/// other runs backwards (edges already linked are kept).
fn link_neighbors(faces: &mut [Face], list: &[u32]) {
    let mut open: HashMap<(u32, u32), (u32, usize)> = HashMap::new();
    for &f in list {
        for k in 0..3 {
            if faces[f as usize].neighbors[k] != u32::MAX {
                continue;
            }
            let (from, to) = (
                faces[f as usize].vertices[k],
                faces[f as usize].vertices[(k + 1) % 3],
            );
            if let Some((g, j)) = open.remove(&(to, from)) {
                faces[f as usize].neighbors[k] = g;
                faces[g as usize].neighbors[j] = f;
            } else {
                open.insert((from, to), (f, k));
            }
        }
    }
    debug_assert!(open.is_empty(), "every new edge is paired");
}

/// Four points spanning a tetrahedron: two far apart, the one farthest
/// from their line, the one farthest from their plane (the last two
/// checked exactly).
fn initial_simplex(points: &[[f64; 3]]) -> Result<[u32; 4], Flat> {
    if points.len() < 4 {
        return Err(Flat::Collinear);
    }
    // The extreme points along each axis; the farthest pair among them.
    let mut extremes = [0u32; 6];
    for (p, point) in points.iter().enumerate() {
        for axis in 0..3 {
            if point[axis] < points[extremes[2 * axis] as usize][axis] {
                extremes[2 * axis] = p as u32;
            }
            if point[axis] > points[extremes[2 * axis + 1] as usize][axis] {
                extremes[2 * axis + 1] = p as u32;
            }
        }
    }
    let mut best = (0.0, 0u32, 0u32);
    for &i in &extremes {
        for &j in &extremes {
            let d = sub(&points[i as usize], &points[j as usize]);
            let length = dot(&d, &d);
            if length > best.0 {
                best = (length, i, j);
            }
        }
    }
    let (_, i0, i1) = best;
    if i0 == i1 {
        return Err(Flat::Collinear);
    }
    let (p0, p1) = (points[i0 as usize], points[i1 as usize]);
    let line = sub(&p1, &p0);
    let (i2, area) = (0..points.len() as u32)
        .map(|p| {
            let across = cross(&line, &sub(&points[p as usize], &p0));
            (p, dot(&across, &across))
        })
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .expect("at least four points");
    if area == 0.0 {
        // The farthest point from the line is on it in plain arithmetic;
        // every point is, or within rounding of it.
        return Err(Flat::Collinear);
    }
    let p2 = points[i2 as usize];
    let i3 = (0..points.len() as u32)
        .map(|p| {
            let volume = robust::orient3d(coord(&p0), coord(&p1), coord(&p2), coord(&points[p as usize]));
            (p, volume.abs())
        })
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .expect("at least four points");
    if i3.1 == 0.0 {
        return Err(Flat::Coplanar);
    }
    Ok([i0, i1, i2, i3.0])
}
