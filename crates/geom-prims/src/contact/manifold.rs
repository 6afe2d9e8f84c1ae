//! Contact points between two support features facing each other along a
//! contact normal: the clipping step of every multi-point manifold.
//!
//! Given the normal `n` from `a` to `b`, `a`'s feature extreme along `n`
//! and `b`'s extreme along `−n` (a face, an edge or a point each), the
//! contact region is where the two features overlap seen along `n`. The
//! face better aligned with `n` is the reference; the other feature (the
//! incident one) is clipped against the reference's side planes, which
//! contain its edges and `n` (Sutherland–Hodgman), and every clipped point
//! is paired with the point of the reference's plane straight along `n`
//! from it. Each pair's depth is measured there, so a box resting on a
//! face gets its four corners at their own depths (Jolt's
//! `ManifoldBetweenTwoFaces`; Gregorius, "Robust Contact Creation for
//! Physics Simulations", GDC 2015). Two edges give the closest points of
//! the segments, or the ends of their overlap when parallel; a point
//! feature gives one pair, along `n` from it.

use geom_core::contact::pick_four;
use geom_core::distance::closest_points_segment_segment;
use geom_core::{ContactPoint, FeatureId, Real, SupportFeature, lit};
use nalgebra::{Point3, Vector3};

use super::within_margin;

/// Up to 16 polygon vertices, without allocation.
#[derive(Clone, Copy)]
pub(crate) struct Polygon<N: Real> {
    pub points: [Point3<N>; 16],
    pub len: usize,
}

impl<N: Real> Polygon<N> {
    pub fn new() -> Self {
        Polygon {
            points: [Point3::origin(); 16],
            len: 0,
        }
    }

    pub fn from_points(points: &[Point3<N>]) -> Self {
        let mut polygon = Polygon::new();
        points.iter().for_each(|p| polygon.push(*p));
        polygon
    }

    pub fn push(&mut self, p: Point3<N>) {
        if self.len < self.points.len() {
            self.points[self.len] = p;
            self.len += 1;
        }
    }

    /// Sutherland–Hodgman: the part of the polygon where
    /// `side · (p − origin) <= 0`.
    pub fn clip(&self, origin: &Point3<N>, side: &Vector3<N>) -> Self {
        let mut clipped = Polygon::new();
        if self.len == 0 {
            return clipped;
        }
        let distance = |p: &Point3<N>| side.dot(&(p - origin));
        for k in 0..self.len {
            let current = self.points[k];
            let next = self.points[(k + 1) % self.len];
            let (d_current, d_next) = (distance(&current), distance(&next));
            if d_current <= N::zero() {
                clipped.push(current);
            }
            if (d_current < N::zero() && d_next > N::zero()) || (d_current > N::zero() && d_next < N::zero())
            {
                let t = d_current / (d_current - d_next);
                clipped.push(current + (next - current) * t);
            }
        }
        clipped
    }
}

/// Contact pairs between two features, before reduction: at most 16.
#[derive(Clone, Copy)]
pub(crate) struct FeaturePairs<N: Real> {
    pairs: [ContactPoint<N>; 16],
    len: usize,
}

impl<N: Real> FeaturePairs<N> {
    pub(crate) fn new() -> Self {
        FeaturePairs {
            pairs: [ContactPoint {
                point_a: Point3::origin(),
                point_b: Point3::origin(),
                depth: N::zero(),
                feature_a: FeatureId::Unknown,
                feature_b: FeatureId::Unknown,
            }; 16],
            len: 0,
        }
    }

    fn push(&mut self, point_a: Point3<N>, point_b: Point3<N>, depth: N) {
        if self.len < self.pairs.len() {
            self.pairs[self.len] = ContactPoint {
                point_a,
                point_b,
                depth,
                feature_a: FeatureId::Unknown,
                feature_b: FeatureId::Unknown,
            };
            self.len += 1;
        }
    }

    /// These pairs with `deepest` first (the exact deepest contact), the
    /// pairs deeper than it beyond rounding or at its place dropped (they
    /// repeat it); as deep to rounding (a face resting flat) they stay.
    pub fn with_deepest(&self, deepest: ContactPoint<N>) -> Self {
        let mut pairs = FeaturePairs::new();
        pairs.pairs[0] = deepest;
        pairs.len = 1;
        let scale = N::one() + deepest.point_a.coords.amax();
        let rounding = N::default_epsilon() * lit(1024.0) * scale;
        let same_place = |p: &ContactPoint<N>| (p.point_a - deepest.point_a).amax() <= rounding;
        for p in self.as_slice() {
            if p.depth <= deepest.depth + rounding && !same_place(p) && pairs.len < pairs.pairs.len() {
                pairs.pairs[pairs.len] = *p;
                pairs.len += 1;
            }
        }
        pairs
    }

    /// The pairs found.
    pub fn as_slice(&self) -> &[ContactPoint<N>] {
        &self.pairs[..self.len]
    }

    /// The deepest pair.
    pub fn deepest(&self) -> Option<ContactPoint<N>> {
        self.as_slice()
            .iter()
            .copied()
            .reduce(|best, p| if p.depth > best.depth { p } else { best })
    }

    /// At most four pairs that keep the deepest and the widest spread
    /// across `normal` ([`pick_four`]).
    pub fn reduced(&self, normal: &Vector3<N>) -> impl Iterator<Item = ContactPoint<N>> + '_ {
        let deepest = (0..self.len).fold(0, |best, k| {
            if self.pairs[k].depth > self.pairs[best].depth {
                k
            } else {
                best
            }
        });
        let order = move |k: usize| match k {
            0 => deepest,
            k if k == deepest => 0,
            k => k,
        };
        let picked = if self.len == 0 {
            [None; 4]
        } else {
            pick_four(self.len, |k| self.pairs[order(k)].point_a, normal)
        };
        picked.into_iter().flatten().map(move |k| self.pairs[order(k)])
    }
}

/// A pair of points `depth` apart along `normal` about their midpoint
/// (`point_a − point_b = depth · normal` exactly as far as rounding goes),
/// splitting between the two what the features disagree across `normal`.
fn aligned_pair<N: Real>(on_a: Point3<N>, on_b: Point3<N>, normal: &Vector3<N>) -> (Point3<N>, Point3<N>, N) {
    let depth = (on_a - on_b).dot(normal);
    let middle = on_b + (on_a - on_b) * lit::<N>(0.5);
    let half = normal * (depth * lit::<N>(0.5));
    (middle + half, middle - half, depth)
}

/// The contact pairs of `feature_a` (extreme along the unit `normal`, from
/// `a` to `b`) and `feature_b` (extreme along `−normal`), keeping depths
/// `>= −margin`. A point feature pairs with the point `depth` along
/// `normal` from it (`depth`: the shapes' overlap along `normal`, from
/// their support functions). Empty when the features do not overlap seen
/// along `normal`.
pub(crate) fn clip_features<N: Real>(
    feature_a: &SupportFeature<N>,
    feature_b: &SupportFeature<N>,
    normal: &Vector3<N>,
    depth: N,
    margin: N,
) -> FeaturePairs<N> {
    let mut pairs = FeaturePairs::new();
    let (points_a, points_b) = (feature_a.points(), feature_b.points());
    if points_a.is_empty() || points_b.is_empty() {
        return pairs;
    }
    let keep = |pairs: &mut FeaturePairs<N>, a: Point3<N>, b: Point3<N>, d: N| {
        if within_margin(d, margin) {
            pairs.push(a, b, d);
        }
    };
    match (points_a.len(), points_b.len()) {
        (1, 1) => {
            // Two points pair only when they face each other along
            // `normal` (to rounding): a capsule's far end and an
            // ellipsoid's point do not make a contact.
            let (a0, b0) = (points_a[0], points_b[0]);
            let between = a0 - b0;
            let across = between - normal * normal.dot(&between);
            let scale = N::one() + a0.coords.amax().max(b0.coords.amax());
            if across.amax() > N::default_epsilon() * lit(64.0) * scale {
                return pairs;
            }
            let (a, b, _) = aligned_pair(a0, b0, normal);
            // The depth from the support functions: the points' own
            // difference along `normal` is the same to rounding.
            let shift = normal * ((depth - (a - b).dot(normal)) * lit::<N>(0.5));
            keep(&mut pairs, a + shift, b - shift, depth);
        }
        (1, _) => {
            if let Some(on_b) = lift(&points_a[0], feature_b, normal) {
                keep(&mut pairs, points_a[0], on_b, (points_a[0] - on_b).dot(normal));
            }
        }
        (_, 1) => {
            if let Some(on_a) = lift(&points_b[0], feature_a, normal) {
                keep(&mut pairs, on_a, points_b[0], (on_a - points_b[0]).dot(normal));
            }
        }
        (2, 2) => clip_edges(points_a, points_b, normal, margin, &mut pairs),
        _ => {
            let a_is_face = points_a.len() >= 3;
            let b_is_face = points_b.len() >= 3;
            let reference_is_a = match (a_is_face, b_is_face) {
                (true, true) => feature_a.normal().dot(normal).abs() >= feature_b.normal().dot(normal).abs(),
                (a_face, _) => a_face,
            };
            if reference_is_a {
                clip_against_face(
                    points_a,
                    &feature_a.normal(),
                    points_b,
                    normal,
                    true,
                    margin,
                    &mut pairs,
                );
            } else {
                clip_against_face(
                    points_b,
                    &feature_b.normal(),
                    points_a,
                    normal,
                    false,
                    margin,
                    &mut pairs,
                );
            }
        }
    }
    pairs
}

/// The point of `feature` (an edge or a face) straight along `normal` from
/// `point`, when `point` seen along `normal` falls on it (to rounding).
fn lift<N: Real>(point: &Point3<N>, feature: &SupportFeature<N>, normal: &Vector3<N>) -> Option<Point3<N>> {
    let points = feature.points();
    let flat = |p: &Point3<N>| p - normal * normal.dot(&p.coords);
    let scale = points
        .iter()
        .fold(point.coords.amax(), |m, p| m.max(p.coords.amax()));
    let tolerance = N::default_epsilon() * lit(64.0) * scale;
    let target = flat(point);
    if points.len() == 2 {
        let (a, b) = (flat(&points[0]), flat(&points[1]));
        let (closest, s) = geom_core::distance::closest_point_on_segment(&target, &a, &b);
        return ((closest - target).norm() <= tolerance).then(|| points[0] + (points[1] - points[0]) * s);
    }
    let face_normal = feature.normal();
    let facing = face_normal.dot(normal);
    if facing.abs() <= lit::<N>(1e-3) {
        return None;
    }
    let centroid = points
        .iter()
        .fold(Vector3::zeros(), |sum, p| sum + flat(p).coords)
        / nalgebra::convert::<f64, N>(points.len() as f64);
    let inside = (0..points.len()).all(|k| {
        let (from, to) = (flat(&points[k]), flat(&points[(k + 1) % points.len()]));
        let mut side = (to - from).cross(normal);
        if side.dot(&(centroid - from.coords)) > N::zero() {
            side = -side;
        }
        let length = side.norm();
        length == N::zero() || side.dot(&(target - from)) <= tolerance * length
    });
    inside.then(|| point + normal * (face_normal.dot(&(points[0] - point)) / facing))
}

/// Two edges seen along `normal`: where their shadows on the plane across
/// `normal` meet (to rounding), each meeting point lifted back onto both
/// edges, so every pair is `depth · normal` apart and lies on its edge.
/// Crossing edges meet once; parallel ones along the overlap of their
/// shadows (its two ends); edges whose shadows miss give nothing.
fn clip_edges<N: Real>(
    edge_a: &[Point3<N>],
    edge_b: &[Point3<N>],
    normal: &Vector3<N>,
    margin: N,
    pairs: &mut FeaturePairs<N>,
) {
    let (a0, a1, b0, b1) = (edge_a[0], edge_a[1], edge_b[0], edge_b[1]);
    let flat = |p: &Point3<N>| p - normal * normal.dot(&p.coords);
    let (fa0, fa1, fb0, fb1) = (flat(&a0), flat(&a1), flat(&b0), flat(&b1));
    let scale = [a0, a1, b0, b1]
        .iter()
        .fold(N::zero(), |m, p| m.max(p.coords.amax()));
    let tolerance = N::default_epsilon() * lit(64.0) * scale;
    let (da, db) = (fa1 - fa0, fb1 - fb0);
    let mut push = |s: N, t: N| {
        let on_a = a0 + (a1 - a0) * s;
        let on_b = b0 + (b1 - b0) * t;
        let depth = (on_a - on_b).dot(normal);
        if within_margin(depth, margin) {
            pairs.push(on_a, on_b, depth);
        }
    };
    let (length_a, length_b) = (da.norm_squared(), db.norm_squared());
    let parallel = da.cross(&db).norm() <= lit::<N>(1e-6) * (length_a * length_b).sqrt();
    if parallel && length_a > N::zero() && length_b > N::zero() {
        // The shadows' lines must coincide; then the overlap's ends.
        let offset = (fb0 - fa0) - da * ((fb0 - fa0).dot(&da) / length_a);
        if offset.norm() > tolerance {
            return;
        }
        let on_a = |p: &Point3<N>| (p - fa0).dot(&da) / length_a;
        let (t0, t1) = (on_a(&fb0), on_a(&fb1));
        let from = t0.min(t1).max(N::zero());
        let to = t0.max(t1).min(N::one());
        if from > to {
            return;
        }
        for s in [from, to] {
            // The point of `b`'s edge over `a`'s parameter `s`.
            let t = ((s - t0) / (t1 - t0)).max(N::zero()).min(N::one());
            push(s, t);
            if from == to {
                break;
            }
        }
    } else {
        let closest = closest_points_segment_segment(&fa0, &fa1, &fb0, &fb1);
        if closest.distance() <= tolerance {
            push(closest.s, closest.t);
        }
    }
}

/// The incident feature (a polygon or an edge) clipped to the prism of the
/// reference face along `normal`; each clipped point paired with the
/// reference plane's point along `normal` from it.
fn clip_against_face<N: Real>(
    reference: &[Point3<N>],
    reference_normal: &Vector3<N>,
    incident: &[Point3<N>],
    normal: &Vector3<N>,
    reference_is_a: bool,
    margin: N,
    pairs: &mut FeaturePairs<N>,
) {
    let facing = reference_normal.dot(normal);
    if facing.abs() <= lit::<N>(1e-3) {
        return;
    }
    let centroid = reference.iter().fold(Vector3::zeros(), |sum, p| sum + p.coords)
        / nalgebra::convert::<f64, N>(reference.len() as f64);
    let mut polygon = Polygon::from_points(incident);
    let is_edge = incident.len() == 2;
    for k in 0..reference.len() {
        let (from, to) = (reference[k], reference[(k + 1) % reference.len()]);
        let mut side = (to - from).cross(normal);
        if side.dot(&(centroid - from.coords)) > N::zero() {
            side = -side;
        }
        if side == Vector3::zeros() {
            continue;
        }
        polygon = if is_edge {
            clip_segment(&polygon, &from, &side)
        } else {
            polygon.clip(&from, &side)
        };
    }
    let plane_point = reference[0];
    for q in &polygon.points[..polygon.len] {
        // Along `normal` from `q` to the reference plane.
        let t = reference_normal.dot(&(plane_point - q)) / facing;
        let on_reference = q + normal * t;
        let (a, b) = if reference_is_a {
            (on_reference, *q)
        } else {
            (*q, on_reference)
        };
        let depth = (a - b).dot(normal);
        if within_margin(depth, margin) {
            pairs.push(a, b, depth);
        }
    }
}

/// The part of the segment `polygon.points[0..2]` where
/// `side · (p − origin) <= 0` (empty if none).
fn clip_segment<N: Real>(polygon: &Polygon<N>, origin: &Point3<N>, side: &Vector3<N>) -> Polygon<N> {
    if polygon.len < 2 {
        return if polygon.len == 1 && side.dot(&(polygon.points[0] - origin)) <= N::zero() {
            *polygon
        } else {
            Polygon::new()
        };
    }
    let (p, q) = (polygon.points[0], polygon.points[1]);
    let (dp, dq) = (side.dot(&(p - origin)), side.dot(&(q - origin)));
    match (dp <= N::zero(), dq <= N::zero()) {
        (true, true) => *polygon,
        (false, false) => Polygon::new(),
        (true, false) => Polygon::from_points(&[p, p + (q - p) * (dp / (dp - dq))]),
        (false, true) => Polygon::from_points(&[p + (q - p) * (dp / (dp - dq)), q]),
    }
}
