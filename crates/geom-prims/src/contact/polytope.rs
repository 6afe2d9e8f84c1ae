//! Contacts between two small convex polytopes (a box, a triangle) given in
//! one frame: the separating-axis test over face normals and edge × edge
//! directions, then reference/incident face clipping or the closest points
//! of two edges.
//!
//! Ericson, *Real-Time Collision Detection* §4.4 (OBB separating axes) and
//! §5.2.1; Gregorius, "The Separating Axis Test between Convex Polyhedra"
//! (GDC 2013) for the face bias and the clipping; Sutherland–Hodgman
//! polygon clipping.

use geom_core::contact::pick_four;
use geom_core::distance::closest_points_segment_segment;
use geom_core::{ContactManifold, ContactManifolds, ContactPoint, FeatureId, Real, SupportFeature, lit};
use nalgebra::{Isometry3, Point3, Vector3};

use super::manifold::{Polygon, clip_features};
use super::{try_unit, within_margin};

/// A face: unit outward normal, vertex indices in cyclic order, feature id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PolytopeFace<N: Real> {
    normal: Vector3<N>,
    vertices: [usize; 4],
    count: usize,
    id: FeatureId,
}

/// A convex polytope with at most 8 vertices, 6 faces and 12 edges,
/// stored without allocation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Polytope<N: Real> {
    vertices: [Point3<N>; 8],
    vertex_count: usize,
    faces: [PolytopeFace<N>; 6],
    face_count: usize,
    /// Edge end vertices, the index of its direction in `edge_directions`,
    /// and its id.
    edges: [(usize, usize, usize, FeatureId); 12],
    edge_count: usize,
    edge_directions: [Vector3<N>; 3],
    edge_direction_count: usize,
}

impl<N: Real> Polytope<N> {
    /// The face whose outward normal is closest to `direction`, as a
    /// support feature (all the vertices when there is no face).
    fn most_aligned_face(&self, direction: &Vector3<N>) -> SupportFeature<N> {
        match self.faces().iter().reduce(|best, face| {
            if face.normal.dot(direction) > best.normal.dot(direction) {
                face
            } else {
                best
            }
        }) {
            Some(face) => SupportFeature::face(
                face.vertices[..face.count].iter().map(|&k| self.vertices[k]),
                face.normal,
            ),
            None => SupportFeature::new(),
        }
    }

    fn empty() -> Self {
        let face = PolytopeFace {
            normal: Vector3::zeros(),
            vertices: [0; 4],
            count: 0,
            id: FeatureId::Unknown,
        };
        Polytope {
            vertices: [Point3::origin(); 8],
            vertex_count: 0,
            faces: [face; 6],
            face_count: 0,
            edges: [(0, 0, 0, FeatureId::Unknown); 12],
            edge_count: 0,
            edge_directions: [Vector3::zeros(); 3],
            edge_direction_count: 0,
        }
    }

    /// The box `|x_k| <= h_k` placed by `pose`, with the feature numbering
    /// of the [module docs](super).
    pub(crate) fn cuboid(h: &Vector3<N>, pose: &Isometry3<N>) -> Self {
        let mut polytope = Self::empty();
        polytope.vertex_count = 8;
        // Each corner rotated on its own: the half axes' sum rounds
        // differently, and the fixed-seed precision survey measured its
        // contact normals a few ulps worse at the tail (far from the
        // origin). The axes rotated once.
        for index in 0..8 {
            let local = Point3::from(Vector3::from_fn(
                |k, _| {
                    if index >> k & 1 == 1 { h[k] } else { -h[k] }
                },
            ));
            polytope.vertices[index] = pose * local;
        }
        // (Written out: `array::map` is not inlined here.)
        let axis = |k: usize| pose.rotation * Vector3::ith(k, N::one());
        let axes = [axis(0), axis(1), axis(2)];
        polytope.face_count = 6;
        polytope.edge_count = 12;
        polytope.edge_direction_count = 3;
        for (k, &axis) in axes.iter().enumerate() {
            polytope.edge_directions[k] = axis;
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            for side in 0..2usize {
                let corner = |bi: usize, bj: usize| side << k | bi << i | bj << j;
                let ring = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
                polytope.faces[2 * k + side] = PolytopeFace {
                    normal: if side == 1 { axis } else { -axis },
                    vertices: ring,
                    count: 4,
                    id: FeatureId::Face((2 * k + side) as u32),
                };
            }
            for (bi, bj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let start = bi << i | bj << j;
                polytope.edges[4 * k + bi + 2 * bj] = (
                    start,
                    start | 1 << k,
                    k,
                    FeatureId::Edge((4 * k + bi + 2 * bj) as u32),
                );
            }
        }
        polytope
    }

    /// The segment `a b`: two vertices, one edge (`Edge(0)`), no face (a
    /// capsule's core).
    pub(crate) fn segment(a: &Point3<N>, b: &Point3<N>) -> Self {
        let mut polytope = Self::empty();
        polytope.vertices[..2].copy_from_slice(&[*a, *b]);
        polytope.vertex_count = 2;
        polytope.edges[0] = (0, 1, 0, FeatureId::Edge(0));
        polytope.edge_count = 1;
        polytope.edge_directions[0] = b - a;
        polytope.edge_direction_count = 1;
        polytope
    }

    /// The two-sided triangle `a b c`: faces `Face(0)` (normal
    /// `(b − a) × (c − a)`) and `Face(1)` (the back); edges `Edge(k)` from
    /// vertex `k` to `k + 1`. A degenerate triangle has no face.
    pub(crate) fn triangle(a: &Point3<N>, b: &Point3<N>, c: &Point3<N>) -> Self {
        let mut polytope = Self::empty();
        polytope.vertices[..3].copy_from_slice(&[*a, *b, *c]);
        polytope.vertex_count = 3;
        if let Some(normal) = try_unit(&(b - a).cross(&(c - a))) {
            polytope.faces[0] = PolytopeFace {
                normal,
                vertices: [0, 1, 2, 0],
                count: 3,
                id: FeatureId::Face(0),
            };
            polytope.faces[1] = PolytopeFace {
                normal: -normal,
                vertices: [0, 2, 1, 0],
                count: 3,
                id: FeatureId::Face(1),
            };
            polytope.face_count = 2;
        }
        polytope.edge_count = 3;
        polytope.edge_direction_count = 3;
        for k in 0..3 {
            let next = (k + 1) % 3;
            polytope.edges[k] = (k, next, k, FeatureId::Edge(k as u32));
            polytope.edge_directions[k] = polytope.vertices[next] - polytope.vertices[k];
        }
        polytope
    }

    pub(crate) fn vertices(&self) -> &[Point3<N>] {
        &self.vertices[..self.vertex_count]
    }

    fn faces(&self) -> &[PolytopeFace<N>] {
        &self.faces[..self.face_count]
    }

    /// The faces' unit outward normals.
    pub(crate) fn face_normals(&self) -> impl Iterator<Item = Vector3<N>> + '_ {
        self.faces().iter().map(|face| face.normal)
    }

    /// Whether `point` (in the plane of face `index`) lies on the face:
    /// within `tolerance` of every side plane through its edges.
    pub(crate) fn face_holds(&self, index: usize, point: &Point3<N>, tolerance: N) -> bool {
        let face = &self.faces[index];
        let corners = face.vertices.map(|k| self.vertices[k]);
        let count = face.count;
        let centroid = corners[..count]
            .iter()
            .fold(Vector3::zeros(), |sum, v| sum + v.coords)
            / nalgebra::convert::<f64, N>(count as f64);
        (0..count).all(|k| {
            let (from, to) = (corners[k], corners[(k + 1) % count]);
            let side = outward_side(&from, &to, &face.normal, &centroid);
            let length = side.norm();
            length == N::zero() || side.dot(&(point - from)) <= tolerance * length
        })
    }

    /// The edges' end points.
    pub(crate) fn edge_segments(&self) -> impl Iterator<Item = (Point3<N>, Point3<N>)> + '_ {
        self.edges[..self.edge_count]
            .iter()
            .map(|&(from, to, _, _)| (self.vertices[from], self.vertices[to]))
    }

    /// The edges' directions, one for each set of parallel edges.
    pub(crate) fn edge_directions(&self) -> &[Vector3<N>] {
        &self.edge_directions[..self.edge_direction_count]
    }

    /// The range of `d·axis` over the directions `d` along which edge
    /// `edge` is extreme (its Gauss arc: the unit normals across it between
    /// its two faces' normals), or `None` when the edge has no two faces
    /// bounding it to less than a half turn (a triangle's edge, a
    /// segment): every direction across it may then hold it.
    pub(crate) fn edge_normal_range(&self, edge: usize, axis: &Vector3<N>) -> Option<(N, N)> {
        let (from, to, _, _) = self.edges[..self.edge_count].get(edge).copied()?;
        let mut adjacent = self.faces().iter().filter(|face| {
            let ring = &face.vertices[..face.count];
            ring.contains(&from) && ring.contains(&to)
        });
        let (first, second) = (adjacent.next()?.normal, adjacent.next()?.normal);
        // The arc's middle and half-width (faces at a half turn: none).
        let middle = try_unit(&(first + second))?;
        let half_width = first.dot(&middle);
        let along = try_unit(&(self.vertices[to] - self.vertices[from]))?;
        let ends = (first.dot(axis), second.dot(axis));
        let (mut low, mut high) = (ends.0.min(ends.1), ends.0.max(ends.1));
        // Inside the arc, `d·axis` peaks at the axis's part across the edge.
        let across = axis - along * along.dot(axis);
        if let Some(peak) = try_unit(&across) {
            let length = across.norm();
            if peak.dot(&middle) >= half_width {
                high = length;
            }
            if -peak.dot(&middle) >= half_width {
                low = -length;
            }
        }
        Some((low, high))
    }

    /// The largest of the vertices' projections on `axis`.
    pub(crate) fn reach(&self, axis: &Vector3<N>) -> N {
        self.interval(axis).1
    }

    /// `(min, max)` of the vertices' projections on `axis`.
    #[inline]
    pub(crate) fn interval(&self, axis: &Vector3<N>) -> (N, N) {
        let first = self.vertices[0].coords.dot(axis);
        self.vertices()
            .iter()
            .map(|v| v.coords.dot(axis))
            .fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x)))
    }

    /// The edge with direction index `direction` farthest along `axis`.
    pub(crate) fn supporting_edge(
        &self,
        direction: usize,
        axis: &Vector3<N>,
    ) -> (Point3<N>, Point3<N>, FeatureId) {
        let mut best: Option<(N, usize)> = None;
        for (index, edge) in self.edges[..self.edge_count].iter().enumerate() {
            if edge.2 != direction {
                continue;
            }
            let reach = (self.vertices[edge.0].coords + self.vertices[edge.1].coords).dot(axis);
            if best.is_none_or(|(best_reach, _)| reach > best_reach) {
                best = Some((reach, index));
            }
        }
        let (_, index) = best.unwrap_or((N::zero(), 0));
        let edge = self.edges[index];
        (self.vertices[edge.0], self.vertices[edge.1], edge.3)
    }

    /// Whether an edge of direction `direction` is extreme along `axis` (to
    /// `tolerance`): always for a polytope with parallel edges (a box's
    /// extreme one is picked), but a triangle's only edge of a direction
    /// may lie behind its opposite vertex.
    fn edge_supports(&self, direction: usize, axis: &Vector3<N>, tolerance: N) -> bool {
        if self.edge_count > self.edge_direction_count {
            return true;
        }
        let (e0, e1, _) = self.supporting_edge(direction, axis);
        let reach = e0.coords.dot(axis).max(e1.coords.dot(axis));
        let (_, high) = self.interval(axis);
        reach >= high - tolerance
    }

    /// The polytope moved by `by` (a placement's low part, added after the
    /// vertices' high parts).
    pub(crate) fn shifted(mut self, by: &Vector3<N>) -> Self {
        for vertex in &mut self.vertices[..self.vertex_count] {
            *vertex += by;
        }
        self
    }

    /// A size for tolerances: the largest vertex coordinate magnitude.
    fn scale(&self) -> N {
        self.vertices()
            .iter()
            .map(|v| v.coords.amax())
            .fold(N::zero(), |x, y| x.max(y))
    }
}

/// Overlap of `a` and `b` along `axis` with the normal chosen from `a` to
/// `b`: `(normal, depth)`, the smaller of the two orientations; negative
/// depth is separation.
fn depth_along<N: Real>(a: &Polytope<N>, b: &Polytope<N>, axis: &Vector3<N>) -> (Vector3<N>, N) {
    let (a_low, a_high) = a.interval(axis);
    let (b_low, b_high) = b.interval(axis);
    let plus = a_high - b_low;
    let minus = b_high - a_low;
    if plus <= minus {
        (*axis, plus)
    } else {
        (-axis, minus)
    }
}

/// How near (relative) a face axis's depth must be to an edge axis's least
/// one for the face's clipped points to join the edge contact (boxes
/// resting a hair off flat), after Gregorius, "The Separating Axis Test
/// between Convex Polyhedra" (GDC 2013) and Box2D's `k_relTol`. The depth
/// itself is always the least.
pub(crate) const FACE_BIAS: f64 = 0.02;

/// The axis a contact comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Axis {
    FaceOfA(usize),
    FaceOfB(usize),
    Edges(usize, usize),
}

/// The separating axis of least penetration between `a` and `b`, or `None`
/// when some axis separates them by more than `margin`, and whether a
/// face axis is within [`FACE_BIAS`] of it. The least depth wins (it is
/// the exact penetration depth of two polytopes); ties within rounding
/// prefer `a`'s faces, then `b`'s, then edges.
pub(crate) fn least_penetration<N: Real>(
    a: &Polytope<N>,
    b: &Polytope<N>,
    margin: N,
) -> Option<(Axis, Vector3<N>, N, bool)> {
    let mut least = LeastAxes::new(N::one() + a.scale().max(b.scale()), margin);
    for (index, face) in a.faces().iter().enumerate() {
        let (_, a_high) = a.interval(&face.normal);
        let (b_low, _) = b.interval(&face.normal);
        least.take(Axis::FaceOfA(index), face.normal, a_high - b_low)?;
    }
    for (index, face) in b.faces().iter().enumerate() {
        let normal = -face.normal;
        let (_, a_high) = a.interval(&normal);
        let (b_low, _) = b.interval(&normal);
        least.take(Axis::FaceOfB(index), normal, a_high - b_low)?;
    }
    for i in 0..a.edge_direction_count {
        for j in 0..b.edge_direction_count {
            let (da, db) = (a.edge_directions[i], b.edge_directions[j]);
            let cross = da.cross(&db);
            // Nearly parallel edges give no usable axis (the face axes
            // cover that case).
            if cross.norm_squared() <= lit::<N>(1e-12) * da.norm_squared() * db.norm_squared() {
                continue;
            }
            let Some(axis) = try_unit(&cross) else { continue };
            let (normal, depth) = depth_along(a, b, &axis);
            if !within_margin(depth, margin) {
                return None;
            }
            // Only edge pairs whose edges both support the axis stand for
            // a face of the Minkowski difference (Gregorius's Gauss-map
            // test): another axis cannot be the least depth, and its
            // edges' closest points are not a contact (a triangle's edge
            // behind its vertex gave a pair 1.07 across the normal). It
            // still separates when it does.
            if a.edge_supports(i, &normal, least.rounding) && b.edge_supports(j, &-normal, least.rounding) {
                least.take(Axis::Edges(i, j), normal, depth)?;
            }
        }
    }
    least.answer()
}

/// The separating-axis test's bookkeeping: the least depth over `a`'s
/// faces, over `b`'s and over edge pairs, and the choice among them. The
/// least depth wins (it is the exact penetration depth of two polytopes);
/// ties within rounding prefer `a`'s faces, then `b`'s, then edges; and
/// whether a face axis is within [`FACE_BIAS`] of an edge axis that wins.
pub(crate) struct LeastAxes<N: Real> {
    margin: N,
    rounding: N,
    tie: N,
    face_a: Option<(Axis, Vector3<N>, N)>,
    face_b: Option<(Axis, Vector3<N>, N)>,
    edges: Option<(Axis, Vector3<N>, N)>,
}

impl<N: Real> LeastAxes<N> {
    /// For polytopes of coordinates up to `scale` (at least one).
    pub(crate) fn new(scale: N, margin: N) -> Self {
        LeastAxes {
            margin,
            rounding: N::default_epsilon() * lit(64.0) * scale,
            // A tie is within the rounding of the two depths themselves (a
            // few ε of the coordinates each): a wider one would hand the
            // answer to a face whose depth is measurably larger than an
            // edge pair's.
            tie: N::default_epsilon() * lit(8.0) * scale,
            face_a: None,
            face_b: None,
            edges: None,
        }
    }

    /// Takes the axis with its unit `normal` (from `a` to `b`) and
    /// `depth`: `None` when it separates the polytopes by more than the
    /// margin. The first of equal depths of one kind stays.
    pub(crate) fn take(&mut self, axis: Axis, normal: Vector3<N>, depth: N) -> Option<()> {
        if !within_margin(depth, self.margin) {
            return None;
        }
        let best = match axis {
            Axis::FaceOfA(_) => &mut self.face_a,
            Axis::FaceOfB(_) => &mut self.face_b,
            Axis::Edges(..) => &mut self.edges,
        };
        if best.is_none_or(|(_, _, least)| depth < least) {
            *best = Some((axis, normal, depth));
        }
        Some(())
    }

    /// The axis of least penetration, its normal and depth, and whether a
    /// face axis is within [`FACE_BIAS`] of it (`None` without any axis).
    pub(crate) fn answer(&self) -> Option<(Axis, Vector3<N>, N, bool)> {
        let better = |depth: N, than: N| depth < than - self.tie;
        let within_bias = |depth: N, than: N| depth >= than - (than.abs() * lit(FACE_BIAS) + self.rounding);
        let best_face = match (self.face_a, self.face_b) {
            (Some(face_a), Some(face_b)) => Some(if better(face_b.2, face_a.2) {
                face_b
            } else {
                face_a
            }),
            (face_a, face_b) => face_a.or(face_b),
        };
        match (best_face, self.edges) {
            (Some(face), Some(edge)) => Some(if better(edge.2, face.2) {
                (edge.0, edge.1, edge.2, within_bias(edge.2, face.2))
            } else {
                (face.0, face.1, face.2, true)
            }),
            (face, edge) => face
                .or(edge)
                .map(|(axis, normal, depth)| (axis, normal, depth, face.is_some())),
        }
    }
}

/// The outward normal (not unit) of a face's side plane through its edge
/// `from → to`, for the face normal `n` and the face's `centroid`: pointing
/// away from the centroid.
fn outward_side<N: Real>(
    from: &Point3<N>,
    to: &Point3<N>,
    n: &Vector3<N>,
    centroid: &Vector3<N>,
) -> Vector3<N> {
    let side = (to - from).cross(n);
    if side.dot(&(centroid - from.coords)) > N::zero() {
        -side
    } else {
        side
    }
}

/// The polytopes' answer short of contact points: apart by more than the
/// limit, overlapping or touching (SAT is exact for polytopes), or apart
/// with the exact closest pair when the separating axis certifies it.
pub(crate) enum PolytopeGap<N: Real> {
    Beyond,
    Touching,
    /// Apart: the closest pair (on `a`, on `b`) when certified, else
    /// `None` (the largest axis gap is then only a lower bound on the
    /// distance).
    Apart(Option<(Point3<N>, Point3<N>)>),
}

/// The closest pair of two polytopes apart (same frame), from their
/// features: on `a`, on `b`, the unit normal from `a` to `b`, the gap and
/// the features holding the pair.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClosestFeatures<N: Real> {
    pub point_a: Point3<N>,
    pub point_b: Point3<N>,
    pub normal: Vector3<N>,
    pub gap: N,
    pub feature_a: FeatureId,
    pub feature_b: FeatureId,
}

/// The distance of two polytopes apart, exactly, by their features: the
/// closest pair of convex polytopes can always be taken with a vertex of
/// one over a face of the other, or on an edge of each (Ericson, *Real-Time
/// Collision Detection* §5.1.9 for two edges; a face–face or edge–face
/// pair at the least distance has such a pair at its boundary). So the
/// least of every vertex's foot on every face it lies over and every pair
/// of edges' closest points is the distance.
///
/// The normal is exact where the features give it: a face's normal for a
/// vertex over it, the edges' cross product for two edges meeting inside
/// both. Otherwise (a vertex nearest an edge or a vertex) it is the pair's
/// direction. Among pairs within rounding of the least gap, one with an
/// exact normal wins: for shapes a hair apart the pair's direction is
/// rounding only.
///
/// `None` when the polytopes touch or overlap to rounding (no positive
/// gap) or a value is not finite.
pub(crate) fn closest_features<N: Real>(a: &Polytope<N>, b: &Polytope<N>) -> Option<ClosestFeatures<N>> {
    let scale = N::one()
        + a.vertices()
            .iter()
            .chain(b.vertices())
            .fold(N::zero(), |m, v| m.max(v.coords.amax()));
    let tie = N::default_epsilon() * lit(8.0) * scale;
    // The best pair with an exact normal and the best without.
    let mut exact: Option<ClosestFeatures<N>> = None;
    let mut plain: Option<ClosestFeatures<N>> = None;
    let keep = |best: &mut Option<ClosestFeatures<N>>, found: ClosestFeatures<N>| {
        if found.gap.is_finite() && best.is_none_or(|b| found.gap < b.gap) {
            *best = Some(found);
        }
    };
    // A vertex of `over` over a face of `under` (the face's outer side,
    // its foot inside the face).
    let mut vertex_over_face = |under: &Polytope<N>, over: &Polytope<N>, under_is_a: bool| {
        for (face_index, face) in under.faces().iter().enumerate() {
            let corner = under.vertices[face.vertices[0]];
            for (index, vertex) in over.vertices().iter().enumerate() {
                let height = (vertex - corner).dot(&face.normal);
                if height <= N::zero() {
                    continue;
                }
                let foot = vertex - face.normal * height;
                let index = FeatureId::Vertex(index as u32);
                if face.count < 3
                    || exact.is_some_and(|best| height >= best.gap)
                    || !under.face_holds(face_index, &foot, N::zero())
                {
                    continue;
                }
                let found = if under_is_a {
                    ClosestFeatures {
                        point_a: foot,
                        point_b: *vertex,
                        normal: face.normal,
                        gap: height,
                        feature_a: face.id,
                        feature_b: index,
                    }
                } else {
                    ClosestFeatures {
                        point_a: *vertex,
                        point_b: foot,
                        normal: -face.normal,
                        gap: height,
                        feature_a: index,
                        feature_b: face.id,
                    }
                };
                keep(&mut exact, found);
            }
        }
    };
    vertex_over_face(a, b, true);
    vertex_over_face(b, a, false);
    for &(from_a, to_a, _, id_a) in &a.edges[..a.edge_count] {
        let (a0, a1) = (a.vertices[from_a], a.vertices[to_a]);
        for &(from_b, to_b, _, id_b) in &b.edges[..b.edge_count] {
            let (b0, b1) = (b.vertices[from_b], b.vertices[to_b]);
            let closest = closest_points_segment_segment(&a0, &a1, &b0, &b1);
            let (p, q) = (closest.point_on_p, closest.point_on_q);
            let between = q - p;
            let interior = |x: N| x > N::zero() && x < N::one();
            let cross = (a1 - a0).cross(&(b1 - b0));
            let crossing = (interior(closest.s) && interior(closest.t))
                .then(|| try_unit(&cross))
                .flatten()
                .map(|n| if n.dot(&between) < N::zero() { -n } else { n });
            match crossing {
                Some(normal) => keep(
                    &mut exact,
                    ClosestFeatures {
                        point_a: p,
                        point_b: q,
                        normal,
                        gap: between.dot(&normal),
                        feature_a: id_a,
                        feature_b: id_b,
                    },
                ),
                None => {
                    let gap = geom_core::ray::length_without_overflow(&between);
                    if let Some(normal) = try_unit(&between) {
                        keep(
                            &mut plain,
                            ClosestFeatures {
                                point_a: p,
                                point_b: q,
                                normal,
                                gap,
                                feature_a: segment_feature(closest.s, id_a, from_a, to_a),
                                feature_b: segment_feature(closest.t, id_b, from_b, to_b),
                            },
                        );
                    }
                }
            }
        }
    }
    // The distance is also the largest separation over all normals, so of
    // the two the normal separating the polytopes more is the better one
    // (a pair's direction is rounding for polytopes a hair apart; an edge
    // crossing beside a vertex's nearest point on an edge separates less
    // than that point's direction). Within rounding, the exact normal.
    let separation = |n: &Vector3<N>| b.interval(n).0 - a.interval(n).1;
    let best = match (exact, plain) {
        (Some(e), Some(p)) => Some(
            if p.gap < e.gap - tie || separation(&p.normal) > separation(&e.normal) + tie {
                p
            } else {
                e
            },
        ),
        (e, p) => e.or(p),
    }?;
    (best.gap > N::zero()).then_some(best)
}

/// The feature of an edge (from vertex `from` to vertex `to`) holding
/// its point at parameter `t`: the edge, or the vertex at an end.
fn segment_feature<N: Real>(t: N, edge: FeatureId, from: usize, to: usize) -> FeatureId {
    if t <= N::zero() {
        FeatureId::Vertex(from as u32)
    } else if t >= N::one() {
        FeatureId::Vertex(to as u32)
    } else {
        edge
    }
}

/// For the manifolds from index `first` on that [`contact_polytopes`]
/// gave for `a` and `b` (same frame) apart without a certificate: the
/// largest axis gap is only a lower bound on the distance, so the exact
/// one comes from [`closest_features`]. The SAT manifold is kept when it
/// agrees (its normal and deepest point the exact ones: a face axis whose
/// clipped points carry their own exact gaps), else replaced by the single
/// exact contact; nothing remains when the polytopes are farther apart
/// than `margin`. Touching to rounding, the SAT answer stands.
pub(crate) fn exact_polytopes_apart<N: Real>(
    a: &Polytope<N>,
    b: &Polytope<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
    first: usize,
) {
    let deepest = out.as_slice()[first..]
        .iter()
        .filter_map(|m| m.max_depth())
        .reduce(|x, y| x.max(y));
    let Some(deepest) = deepest.filter(|d| *d < N::zero()) else {
        return;
    };
    let Some(closest) = closest_features(a, b) else {
        return;
    };
    let depth = -closest.gap;
    if !within_margin(depth, margin) {
        out.truncate(first);
        return;
    }
    let scale = N::one() + closest.point_a.coords.amax().max(closest.point_b.coords.amax());
    let rounding = N::default_epsilon() * lit(1024.0) * scale;
    let manifolds = &out.as_slice()[first..];
    let agrees = manifolds.len() == 1
        && (manifolds[0].normal - closest.normal).norm() <= lit::<N>(1e-9)
        && (deepest - depth).abs() <= rounding;
    if !agrees {
        out.truncate(first);
        out.push_manifold(closest.normal).points.push(ContactPoint {
            point_a: closest.point_a,
            point_b: closest.point_b,
            depth,
            feature_a: closest.feature_a,
            feature_b: closest.feature_b,
        });
    }
}

/// How far apart `a` and `b` are (same frame), up to `limit`: see
/// [`PolytopeGap`] and [`certified_pair`].
pub(crate) fn polytope_gap<N: Real>(a: &Polytope<N>, b: &Polytope<N>, limit: N) -> PolytopeGap<N> {
    let Some((axis, normal, depth, _)) = least_penetration(a, b, limit) else {
        return PolytopeGap::Beyond;
    };
    if depth >= N::zero() {
        return PolytopeGap::Touching;
    }
    PolytopeGap::Apart(certified_pair(a, b, axis, &normal, -depth))
}

/// For polytopes apart along their separating `axis` (`normal` from `a`
/// to `b`): the closest pair (on `a`, on `b`) when the axis certifies its
/// gap as the distance, else `None` (the gap is then only a lower bound).
/// A face axis certifies it when a deepest point of the other polytope
/// along it lies over the face (the pair is that point and its foot: no
/// pair can be nearer than an axis's gap); an edge axis, when the two
/// supporting edges' closest points are inside both (their difference is
/// then along the axis) and `gap` apart along it (a triangle's only edge
/// of a direction need not be the one extreme along the axis: its closest
/// points to the other edge can then be farther apart than the gap).
fn certified_pair<N: Real>(
    a: &Polytope<N>,
    b: &Polytope<N>,
    axis: Axis,
    normal: &Vector3<N>,
    gap: N,
) -> Option<(Point3<N>, Point3<N>)> {
    let over_face = |reference: &Polytope<N>, index: usize, incident: &Polytope<N>| {
        let face = &reference.faces[index];
        let n = face.normal;
        let corner = reference.vertices[face.vertices[0]];
        let deepest = incident
            .vertices()
            .iter()
            .copied()
            .reduce(|x, y| if y.coords.dot(&n) < x.coords.dot(&n) { y } else { x })?;
        let foot = deepest - n * (deepest - corner).dot(&n);
        (face.count >= 3 && reference.face_holds(index, &deepest, N::zero())).then_some((foot, deepest))
    };
    match axis {
        Axis::FaceOfA(index) => over_face(a, index, b),
        Axis::FaceOfB(index) => over_face(b, index, a).map(|(foot, deepest)| (deepest, foot)),
        Axis::Edges(i, j) => {
            let (a0, a1, _) = a.supporting_edge(i, normal);
            let (b0, b1, _) = b.supporting_edge(j, &-normal);
            let closest = closest_points_segment_segment(&a0, &a1, &b0, &b1);
            let interior = |x: N| x > N::zero() && x < N::one();
            let (p, q) = (closest.point_on_p, closest.point_on_q);
            let scale = N::one()
                + [a0, a1, b0, b1]
                    .iter()
                    .fold(N::zero(), |m, v| m.max(v.coords.amax()));
            let at_gap = ((q - p).dot(normal) - gap).abs() <= N::default_epsilon() * lit(64.0) * scale;
            (interior(closest.s) && interior(closest.t) && at_gap).then_some((p, q))
        }
    }
}

/// Contacts of polytopes `a` and `b` (same frame) within `margin`, into
/// `manifold` (whose normal is set here, from `a` to `b`). `None` when
/// they are farther apart than `margin`; else whether the answer is exact:
/// overlapping or touching (SAT's least depth is the penetration depth),
/// or apart along an axis that certifies its gap as the distance
/// ([`certified_pair`]). Apart without a certificate, the largest axis gap
/// is only a lower bound on the distance, and the caller must find it.
pub(crate) fn contact_polytopes<N: Real>(
    a: &Polytope<N>,
    b: &Polytope<N>,
    margin: N,
    manifold: &mut ContactManifold<N>,
) -> Option<bool> {
    contact_along(a, b, least_penetration(a, b, margin)?, margin, manifold)
}

/// [`contact_polytopes`] past its separating-axis test, from the axis of
/// least penetration that test gave ([`least_penetration`]'s answer).
pub(crate) fn contact_along<N: Real>(
    a: &Polytope<N>,
    b: &Polytope<N>,
    (axis, normal, depth, face_nearby): (Axis, Vector3<N>, N, bool),
    margin: N,
    manifold: &mut ContactManifold<N>,
) -> Option<bool> {
    let exact = depth >= N::zero() || certified_pair(a, b, axis, &normal, -depth).is_some();
    manifold.normal = normal;
    match axis {
        Axis::Edges(i, j) => {
            let (a0, a1, id_a) = a.supporting_edge(i, &normal);
            let (b0, b1, id_b) = b.supporting_edge(j, &-normal);
            let closest = closest_points_segment_segment(&a0, &a1, &b0, &b1);
            let edges = ContactPoint {
                point_a: closest.point_on_p,
                point_b: closest.point_on_q,
                depth,
                feature_a: id_a,
                feature_b: id_b,
            };
            if face_nearby {
                // A resting pair a hair off flat: the edge axis gives the
                // exact depth and normal, the faces most aligned with it
                // the rest of the manifold (depths along the normal).
                let face_a = a.most_aligned_face(&normal);
                let face_b = b.most_aligned_face(&-normal);
                let pairs = clip_features(&face_a, &face_b, &normal, depth, margin);
                manifold.points.extend(pairs.with_deepest(edges).reduced(&normal));
            } else {
                manifold.points.push(edges);
            }
        }
        Axis::FaceOfA(index) => clip_faces(a, &a.faces[index], b, false, depth, margin, manifold),
        Axis::FaceOfB(index) => clip_faces(b, &b.faces[index], a, true, depth, margin, manifold),
    }
    (!manifold.points.is_empty()).then_some(exact)
}

/// Clips the face of `incident` most opposed to `reference_face` against
/// the side planes of `reference_face`, keeping the points at most
/// `margin` above it, reduced to four. `reference_is_b` says which shape
/// the reference face belongs to.
#[allow(clippy::too_many_arguments)]
fn clip_faces<N: Real>(
    reference: &Polytope<N>,
    reference_face: &PolytopeFace<N>,
    incident: &Polytope<N>,
    reference_is_b: bool,
    axis_depth: N,
    margin: N,
    manifold: &mut ContactManifold<N>,
) {
    let n_ref = reference_face.normal;
    let ref_vertices = reference_face.vertices.map(|k| reference.vertices[k]);
    let ref_count = reference_face.count;
    // The incident polygon: the most opposed face, or all the vertices of
    // a polytope without faces (a degenerate triangle).
    let mut polygon = Polygon::new();
    let incident_face = incident.faces().iter().reduce(|best, face| {
        if face.normal.dot(&n_ref) < best.normal.dot(&n_ref) {
            face
        } else {
            best
        }
    });
    match incident_face {
        Some(face) => (0..face.count).for_each(|k| polygon.push(incident.vertices[face.vertices[k]])),
        None => incident.vertices().iter().for_each(|v| polygon.push(*v)),
    }
    let incident_id = incident_face.map_or(FeatureId::Unknown, |face| face.id);
    let centroid = ref_vertices[..ref_count]
        .iter()
        .fold(Vector3::zeros(), |sum, v| sum + v.coords)
        / nalgebra::convert::<f64, N>(ref_count as f64);
    for k in 0..ref_count {
        let (from, to) = (ref_vertices[k], ref_vertices[(k + 1) % ref_count]);
        let side = outward_side(&from, &to, &n_ref, &centroid);
        if side != Vector3::zeros() {
            polygon = polygon.clip(&from, &side);
        }
    }
    let plane = n_ref.dot(&ref_vertices[0].coords);
    let mut kept = Polygon::new();
    let mut depths = [N::zero(); 16];
    for p in &polygon.points[..polygon.len] {
        let depth = plane - n_ref.dot(&p.coords);
        if depth >= -margin {
            depths[kept.len] = depth;
            kept.push(*p);
        }
    }
    let contact = |p: &Point3<N>, depth: N| {
        let on_reference = p + n_ref * depth;
        if reference_is_b {
            ContactPoint {
                point_a: *p,
                point_b: on_reference,
                depth,
                feature_a: incident_id,
                feature_b: reference_face.id,
            }
        } else {
            ContactPoint {
                point_a: on_reference,
                point_b: *p,
                depth,
                feature_a: reference_face.id,
                feature_b: incident_id,
            }
        }
    };
    if kept.len == 0 {
        // Nothing of the incident face over the reference face (shapes
        // within the margin beside each other): the support point of the
        // incident shape, with the axis' depth.
        let toward = -n_ref;
        let deepest = incident.vertices().iter().copied().reduce(|best, v| {
            if v.coords.dot(&toward) > best.coords.dot(&toward) {
                v
            } else {
                best
            }
        });
        if let Some(p) = deepest {
            manifold.points.push(contact(&p, axis_depth));
        }
        return;
    }
    // The deepest to the front, then at most four spread points.
    let deepest = (0..kept.len).fold(0, |best, k| if depths[k] > depths[best] { k } else { best });
    kept.points.swap(0, deepest);
    depths.swap(0, deepest);
    let picked = pick_four(kept.len, |k| kept.points[k], &n_ref);
    for k in picked.into_iter().flatten() {
        manifold.points.push(contact(&kept.points[k], depths[k]));
    }
}
