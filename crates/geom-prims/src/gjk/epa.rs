//! EPA: the penetration depth of two overlapping convex cores, by growing a
//! polytope inside their Minkowski difference toward its boundary point
//! nearest the origin (van den Bergen, "Proximity Queries and Penetration
//! Depth Computation on 3D Game Objects", GDC 2001, and *Collision
//! Detection in Interactive 3D Environments* §4.3.8).
//!
//! Robustness choices (parry's EPA panicked on such inputs, issues #202,
//! #246, #253): the starting simplex is blown up to a tetrahedron by
//! probing support directions, and when the difference turns out flat (a
//! point, a segment, a polygon: zero-volume shapes in contact) the answer
//! is exact without EPA: depth zero along the flat difference's normal.
//! Faces are oriented away from the polytope's interior rather than from
//! the origin, so an origin on (or, within the touching tolerance, just
//! outside) the boundary is harmless. Iterations, vertices and faces are
//! capped. A face that cannot be expanded (a new face would lose the
//! origin, or its support point repeats a vertex without meeting it: a
//! sliver of nearly collinear support points whose plane is rounding) is
//! set aside and the search goes on from the next closest face; a cap
//! reached ends the search with the best face so far and
//! `converged = false`: `converged` means the support point along the
//! answer's normal met the face within the tolerance, nothing else.
//!
//! EPA trusts the support functions: a vertex outside the Minkowski
//! difference lets a face through it pass that test at a wrong depth (a
//! cylinder's support along its own axis once returned its cap centre
//! moved a radius beyond the cap; see `direction_across_axis`).
//!
//! Storage: `Vec`s of vertices and faces and a map from directed edges to
//! faces (a few tens of kilobytes at the caps), kept per thread and reused
//! from one call to the next (`Scratch`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use geom_core::distance::closest_point_on_triangle;
use geom_core::{GeomError, Real, lit};
use nalgebra::{Point3, Vector3};

use super::support::{MinkowskiPair, SupportPoint};
use crate::contact::try_unit;
use crate::orthonormal_basis;

/// The hash of a directed edge's two vertex indices (below a few hundred):
/// multiplicative (Knuth's Fibonacci hashing), a multiply and a rotate a
/// word. The standard library's SipHash, built to resist collisions an
/// adversary chooses, was a tenth of a cylinder–box contact's time here.
#[derive(Default)]
struct EdgeHasher(u64);

impl Hasher for EdgeHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(26) ^ value).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
}

/// Directed edges `(p, q)` (vertex indices) to the face that owns them.
type EdgeOwners = HashMap<(usize, usize), usize, BuildHasherDefault<EdgeHasher>>;

/// The most support points EPA adds to its polytope.
pub const EPA_MAX_ITERATIONS: u32 = 128;

/// A support point within this many `ε` times the Minkowski difference's
/// size of a face counts as on it: the flatness test of the start, the
/// faces a new point sees and the convergence floor.
pub const EPA_FLAT_EPSILONS: f64 = 32.0;

/// The most faces (live and discarded) the EPA polytope may hold.
pub const EPA_MAX_FACES: usize = 1024;

/// EPA stops when the support point along the closest face's normal lies
/// within this fraction of the face's distance beyond it (`√ε / 256`:
/// 5.8·10⁻¹¹ in `f64`, 1.3·10⁻⁶ in `f32`), or within the touching
/// tolerance (polytope cores: their support point then lies on the face,
/// to rounding).
pub fn epa_relative_tolerance<N: Real>() -> N {
    N::default_epsilon().sqrt() / lit(256.0)
}

/// EPA's answer on the cores, in `a`'s frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CorePenetration<N: Real> {
    /// Unit normal from `a` to `b`.
    pub normal: Vector3<N>,
    /// The deepest point of `a`'s core along `normal`.
    pub point_a: Point3<N>,
    /// The deepest point of `b`'s core against `normal`.
    pub point_b: Point3<N>,
    pub converged: bool,
    pub iterations: u32,
}

#[derive(Clone, Copy, Debug)]
struct Face<N: Real> {
    vertices: [usize; 3],
    /// Unit outward normal.
    normal: Vector3<N>,
    /// Signed distance of the face's plane from the origin.
    distance: N,
    alive: bool,
    /// Its expansion failed (a sliver face whose plane is rounding: three
    /// nearly collinear support points); it stays in the polytope but is
    /// no longer a candidate for the closest face.
    stalled: bool,
}

fn make_face<N: Real>(points: &[SupportPoint<N>], vertices: [usize; 3]) -> Option<Face<N>> {
    let [i, j, k] = vertices;
    let (a, b, c) = (points[i].w, points[j].w, points[k].w);
    // Scaled first (`try_unit`): a cross product whose square underflows or
    // overflows still has a unit direction.
    let normal = try_unit(&(b - a).cross(&(c - a)))?;
    // The three vertex distances agree to rounding; their mean is the least
    // biased by any one of them.
    let distance = (normal.dot(&a) + normal.dot(&b) + normal.dot(&c)) / lit(3.0);
    Some(Face {
        vertices,
        normal,
        distance,
        alive: true,
        stalled: false,
    })
}

/// Appends `face` and records it as the owner of its three directed edges
/// (the face across edge `(p, q)` is the owner of `(q, p)`). A face replaced
/// later leaves its entries behind, but an edge's live owner is always the
/// latest: two live faces never share a directed edge.
fn add_face<N: Real>(faces: &mut Vec<Face<N>>, edge_owner: &mut EdgeOwners, face: Face<N>) {
    let index = faces.len();
    for e in 0..3 {
        edge_owner.insert((face.vertices[e], face.vertices[(e + 1) % 3]), index);
    }
    faces.push(face);
}

/// A unit vector across `direction` (unit), as close to `hint` as possible.
fn across<N: Real>(direction: &Vector3<N>, hint: &Vector3<N>) -> Vector3<N> {
    let rest = hint - direction * direction.dot(hint);
    let length = rest.norm();
    if length > N::default_epsilon() * hint.norm() && length > N::zero() {
        rest / length
    } else {
        orthonormal_basis(direction).0
    }
}

/// The answer for a flat Minkowski difference containing the origin (both
/// cores lie in parallel planes, lines or points and touch): translating
/// along any normal of the flat set separates them, so the depth is zero;
/// of those normals the one closest to the direction from `a` to `b`.
fn flat<N: Real>(
    normal: Vector3<N>,
    point_a: Point3<N>,
    point_b: Point3<N>,
    iterations: u32,
) -> CorePenetration<N> {
    CorePenetration {
        normal,
        point_a,
        point_b,
        converged: true,
        iterations,
    }
}

/// EPA's working storage, kept per thread and per scalar type: a query
/// allocates only on its thread's first call (and when it needs more room
/// than any before it).
struct Scratch<N: Real> {
    points: Vec<SupportPoint<N>>,
    faces: Vec<Face<N>>,
    edge_owner: EdgeOwners,
    horizon: Vec<(usize, usize)>,
    new_faces: Vec<Face<N>>,
    region: Vec<usize>,
    in_region: Vec<bool>,
}

impl<N: Real> Scratch<N> {
    fn new() -> Self {
        Scratch {
            points: Vec::with_capacity(EPA_MAX_ITERATIONS as usize + 4),
            faces: Vec::with_capacity(64),
            edge_owner: EdgeOwners::with_capacity_and_hasher(128, BuildHasherDefault::default()),
            horizon: Vec::with_capacity(32),
            new_faces: Vec::with_capacity(32),
            region: Vec::with_capacity(32),
            in_region: Vec::with_capacity(64),
        }
    }

    fn clear(&mut self) {
        self.points.clear();
        self.faces.clear();
        self.edge_owner.clear();
        self.horizon.clear();
        self.new_faces.clear();
        self.region.clear();
        self.in_region.clear();
    }
}

std::thread_local! {
    /// One [`Scratch`] per scalar type used on the thread.
    static SCRATCH: std::cell::RefCell<Vec<Box<dyn std::any::Any>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `run` with this thread's cleared [`Scratch`] for `N` (a fresh one
/// if it is in use, which EPA itself never causes).
fn with_scratch<N: Real, R>(run: impl FnOnce(&mut Scratch<N>) -> R) -> R {
    SCRATCH.with(|cell| {
        let Ok(mut kept) = cell.try_borrow_mut() else {
            return run(&mut Scratch::new());
        };
        let index = match kept.iter().position(|s| s.is::<Scratch<N>>()) {
            Some(index) => index,
            None => {
                kept.push(Box::new(Scratch::<N>::new()));
                kept.len() - 1
            }
        };
        let scratch = kept[index]
            .downcast_mut::<Scratch<N>>()
            .expect("the slot's type was checked");
        scratch.clear();
        run(scratch)
    })
}

/// The penetration of the cores of `pair`, starting from GJK's final
/// simplex `start` (which holds the origin, or comes within the touching
/// tolerance of it) and GJK's witness points there.
pub(crate) fn epa_cores<N: Real>(
    pair: &MinkowskiPair<N>,
    start: &[SupportPoint<N>],
    gjk_point_a: Point3<N>,
    gjk_point_b: Point3<N>,
) -> Result<CorePenetration<N>, GeomError> {
    with_scratch(|scratch| epa_in(scratch, pair, start, gjk_point_a, gjk_point_b))
}

/// [`epa_cores`] in `scratch` (cleared).
fn epa_in<N: Real>(
    scratch: &mut Scratch<N>,
    pair: &MinkowskiPair<N>,
    start: &[SupportPoint<N>],
    gjk_point_a: Point3<N>,
    gjk_point_b: Point3<N>,
) -> Result<CorePenetration<N>, GeomError> {
    let Scratch {
        points,
        faces,
        edge_owner,
        horizon,
        new_faces,
        region,
        in_region,
    } = scratch;
    let hint = {
        // `try_unit` rather than `normalize` throughout: these vectors can
        // be long enough (1e20 in f32) for their squares to overflow.
        try_unit(&pair.b_origin()).unwrap_or_else(Vector3::y)
    };
    points.extend_from_slice(start);
    let scale = points.iter().map(|p| p.w.norm()).fold(N::zero(), |m, x| m.max(x));
    let mut iterations = 0;

    // Blow the simplex up to a tetrahedron; the probes also measure the
    // difference's size, so the tolerance is set once they are in.
    let mut probe_scale = scale;
    for axis in 0..3 {
        for sign in [N::one(), -N::one()] {
            let mut dir = Vector3::zeros();
            dir[axis] = sign;
            probe_scale = probe_scale.max(pair.support(&dir)?.w.norm());
        }
    }
    let tolerance = lit::<N>(EPA_FLAT_EPSILONS) * N::default_epsilon() * probe_scale;

    // A degenerate start (repeated, collinear or coplanar points) is cut
    // back to the largest well-spread subset: the two farthest points, the
    // point farthest from their line, the point farthest from their plane.
    if points.len() >= 2 {
        let mut pair_ends = (0, 1);
        let mut best_length = N::zero();
        for i in 0..points.len() {
            for j in i + 1..points.len() {
                let length = (points[j].w - points[i].w).norm_squared();
                if length > best_length {
                    (pair_ends, best_length) = ((i, j), length);
                }
            }
        }
        // (GJK's simplex: at most four points.)
        let count = points.len().min(4);
        let mut original = [points[0]; 4];
        original[..count].copy_from_slice(&points[..count]);
        let rest = || {
            (0..count)
                .filter(|&k| k != pair_ends.0 && k != pair_ends.1)
                .map(|k| original[k])
        };
        points.clear();
        points.push(original[pair_ends.0]);
        points.push(original[pair_ends.1]);
        if best_length.sqrt() <= tolerance {
            points.truncate(1);
        } else {
            let origin = points[0].w;
            let edge = try_unit(&(points[1].w - origin)).unwrap_or_else(Vector3::x);
            let off_line = |p: &SupportPoint<N>| (p.w - origin).cross(&edge).norm();
            let third = rest().max_by(|p, q| {
                off_line(p)
                    .partial_cmp(&off_line(q))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            if let Some(third) = third.filter(|p| off_line(p) > tolerance) {
                let normal = try_unit(&edge.cross(&(third.w - origin))).unwrap_or_else(Vector3::y);
                let off_plane = |p: &SupportPoint<N>| normal.dot(&(p.w - origin)).abs();
                let fourth = rest().filter(|p| p.w != third.w).max_by(|p, q| {
                    off_plane(p)
                        .partial_cmp(&off_plane(q))
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
                points.push(third);
                if let Some(fourth) = fourth.filter(|p| off_plane(p) > tolerance) {
                    points.push(fourth);
                }
            }
        }
    }

    if points.len() == 1 {
        for axis in 0..3 {
            for sign in [N::one(), -N::one()] {
                let mut dir = Vector3::zeros();
                dir[axis] = sign;
                let probe = pair.support(&dir)?;
                if points.len() == 1 && (probe.w - points[0].w).norm() > tolerance {
                    points.push(probe);
                }
            }
        }
        if points.len() == 1 {
            return Ok(flat(hint, gjk_point_a, gjk_point_b, iterations));
        }
    }
    if points.len() == 2 {
        let edge = try_unit(&(points[1].w - points[0].w)).unwrap_or_else(Vector3::x);
        let (u, v) = orthonormal_basis(&edge);
        let half: N = lit(0.5);
        let root3_half: N = lit(3.0f64.sqrt() / 2.0);
        let directions = [
            u,
            u * half + v * root3_half,
            -u * half + v * root3_half,
            -u,
            -u * half - v * root3_half,
            u * half - v * root3_half,
        ];
        for dir in directions {
            let probe = pair.support(&dir)?;
            if (probe.w - points[0].w).cross(&edge).norm() > tolerance {
                points.push(probe);
                break;
            }
        }
        if points.len() == 2 {
            return Ok(flat(across(&edge, &hint), gjk_point_a, gjk_point_b, iterations));
        }
    }
    if points.len() == 3 {
        let normal = try_unit(&(points[1].w - points[0].w).cross(&(points[2].w - points[0].w)))
            .unwrap_or_else(Vector3::y);
        let above = pair.support(&normal)?;
        let below = pair.support(&-normal)?;
        let height_above = normal.dot(&(above.w - points[0].w));
        let height_below = -normal.dot(&(below.w - points[0].w));
        if height_above.max(height_below) <= tolerance {
            let facing = if normal.dot(&hint) < N::zero() {
                -normal
            } else {
                normal
            };
            return Ok(flat(facing, gjk_point_a, gjk_point_b, iterations));
        }
        points.push(if height_above >= height_below {
            above
        } else {
            below
        });
    }

    // The tetrahedron's faces, oriented away from its centroid.
    let centroid = points.iter().fold(Vector3::zeros(), |sum, p| sum + p.w) * lit::<N>(0.25);
    for corners in [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]] {
        let Some(face) = make_face(points, corners) else {
            return Ok(flat(hint, gjk_point_a, gjk_point_b, iterations));
        };
        let face = if face.normal.dot(&(centroid - points[corners[0]].w)) > N::zero() {
            let [i, j, k] = corners;
            make_face(points, [i, k, j]).unwrap_or(face)
        } else {
            face
        };
        add_face(faces, edge_owner, face);
    }

    let relative = epa_relative_tolerance::<N>();
    let mut converged = false;
    // The stalled face with the least support overlap along its normal
    // (its distance plus its support point's gap): an achievable push, the
    // answer when no face converges at a smaller one.
    let mut best_stalled: Option<(usize, N)> = None;
    let mut stall = |faces: &mut [Face<N>], index: usize, overlap: N| {
        faces[index].stalled = true;
        if best_stalled.is_none_or(|(_, best)| overlap < best) {
            best_stalled = Some((index, overlap));
        }
    };
    // Every face taken up has an achievable push along its normal, its
    // support overlap: the least of them answers a search that ends at the
    // iteration cap (a large curved difference whose closest face's normal
    // may be far from its best; an ellipsoid against a triangle stopped
    // 2 % deep with the closest face's).
    let mut best_evaluated: Option<(usize, N)> = None;
    let mut closest = 0;
    while let Some(candidate) = faces
        .iter()
        .enumerate()
        .filter(|(_, f)| f.alive && !f.stalled)
        .min_by(|(_, f), (_, g)| {
            f.distance
                .partial_cmp(&g.distance)
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .map(|(index, _)| index)
    {
        closest = candidate;
        let face = faces[closest];
        if iterations >= EPA_MAX_ITERATIONS || points.len() >= EPA_MAX_ITERATIONS as usize + 4 {
            break;
        }
        iterations += 1;
        let w = pair.support(&face.normal)?;
        let gap = face.normal.dot(&w.w) - face.distance;
        if best_evaluated.is_none_or(|(_, overlap)| face.distance + gap < overlap) {
            best_evaluated = Some((closest, face.distance + gap));
        }
        if gap <= relative * face.distance.abs() || gap <= tolerance {
            converged = best_stalled.is_none_or(|(_, overlap)| face.distance + gap <= overlap);
            if !converged {
                closest = best_stalled.map_or(closest, |(index, _)| index);
            }
            break;
        }
        // A support point repeating a vertex while lying `gap` above the
        // closest face's plane means that vertex lies above a face: the
        // polytope is not convex there (or the support function is not
        // consistent), so the face is not certified. In exact arithmetic
        // on a convex polytope this cannot happen; the gap test above is
        // the certificate, and without it the answer is only the best so
        // far.
        if points.iter().any(|p| (p.w - w.w).norm() <= tolerance) {
            stall(faces, closest, face.distance + gap);
            continue;
        }
        // The faces that see the new point form one connected region
        // around the closest face, found by walking across edges from it
        // (van den Bergen's silhouette traversal, *Collision Detection in
        // Interactive 3D Environments* §4.3.8; Bullet's `EPA::expand`
        // recurses the same way). The horizon is the region's boundary:
        // its edges whose neighbour is outside it. A face nearly through
        // the point (within `tolerance`: support points of a flat cap or
        // rim) is not entered, rather than leaving sliver faces behind;
        // that bends the polytope by at most `tolerance`, and walking from
        // the closest face keeps such faces from splitting the region.
        let new_index = points.len();
        points.push(w);
        let sees = |f: &Face<N>| f.alive && f.normal.dot(&(w.w - points[f.vertices[0]].w)) > tolerance;
        in_region.clear();
        in_region.resize(faces.len(), false);
        region.clear();
        region.push(closest);
        in_region[closest] = true;
        let mut next = 0;
        while next < region.len() {
            let f = faces[region[next]];
            next += 1;
            for e in 0..3 {
                let (p, q) = (f.vertices[e], f.vertices[(e + 1) % 3]);
                if let Some(&neighbour) = edge_owner.get(&(q, p))
                    && !in_region[neighbour]
                    && sees(&faces[neighbour])
                {
                    in_region[neighbour] = true;
                    region.push(neighbour);
                }
            }
        }
        horizon.clear();
        for &index in region.iter() {
            let f = faces[index];
            for e in 0..3 {
                let (p, q) = (f.vertices[e], f.vertices[(e + 1) % 3]);
                let inside = edge_owner
                    .get(&(q, p))
                    .is_some_and(|&neighbour| in_region[neighbour]);
                if !inside {
                    horizon.push((p, q));
                }
            }
        }
        new_faces.clear();
        // A zero-area new face (the point on a horizon edge's line) is
        // skipped: its neighbours through the new point cover that edge. A
        // face that would leave the origin outside ends the search.
        let mut usable = !horizon.is_empty();
        for &(p, q) in horizon.iter() {
            match make_face(points, [p, q, new_index]) {
                Some(f) if f.distance >= -tolerance => new_faces.push(f),
                Some(_) => usable = false,
                None => {}
            }
        }
        usable &= !new_faces.is_empty();
        if faces.len() + new_faces.len() > EPA_MAX_FACES {
            points.pop();
            break;
        }
        if !usable {
            // The face cannot be expanded without losing the origin: its
            // plane is rounding (a sliver of nearly collinear support
            // points beside well-shaped neighbours). The search goes on
            // from the next closest face.
            points.pop();
            stall(faces, closest, face.distance + gap);
            continue;
        }
        for &index in region.iter() {
            faces[index].alive = false;
        }
        for f in new_faces.iter() {
            add_face(faces, edge_owner, *f);
        }
    }

    if !converged
        && let Some((index, overlap)) = best_stalled
            .into_iter()
            .chain(best_evaluated)
            .reduce(|x, y| if y.1 < x.1 { y } else { x })
    {
        // Ended without a certified face: the stalled or evaluated face of
        // least overlap when it is no worse than the last closest face's.
        let last = faces[closest];
        let last_overlap = last.normal.dot(&pair.support(&last.normal)?.w);
        if overlap <= last_overlap {
            closest = index;
        }
    }
    let face = faces[closest];
    let [i, j, k] = face.vertices;
    let foot = Point3::from(face.normal * face.distance);
    let (_, weights) = closest_point_on_triangle(
        &foot,
        &Point3::from(points[i].w),
        &Point3::from(points[j].w),
        &Point3::from(points[k].w),
    );
    let combine = |pick: fn(&SupportPoint<N>) -> Vector3<N>| {
        Point3::from(
            pick(&points[i]) * weights.x + pick(&points[j]) * weights.y + pick(&points[k]) * weights.z,
        )
    };
    Ok(CorePenetration {
        normal: face.normal,
        point_a: combine(|p| p.a.coords),
        point_b: combine(|p| p.b.coords),
        converged,
        iterations,
    })
}
