//! Refining a contact normal to the exact one, from the features that
//! touch.
//!
//! GJK and EPA end with a normal that is exact for polytope cores but, for
//! curved shapes, only as good as their stopping rule: the separation is
//! stationary at the answer, so measuring it to `ε` pins the direction to
//! `√ε` only, and the witness points move with the direction (a
//! cylinder's rim point by `radius · √ε`). This step recovers the exact
//! normal from what is extreme along it on each side (see
//! [`SupportFeature`]), maximising the separation
//!
//! ```text
//! σ(n) = −h_a(n) − h_b(−n)     (positive apart, minus the depth overlapping)
//! ```
//!
//! whose maximum over unit `n` is the signed distance of the cores,
//! among candidate normals each exact for one kind of contact:
//!
//! - a face on either side: the face's normal;
//! - two edges: their cross product (or, parallel, the perpendicular from
//!   one line to the other);
//! - a vertex: the direction to its closest point on the other core (the
//!   other shape's exact point projection);
//! - two curved points: Newton's method on the tangential part of the
//!   support difference `w(n) = s_a(n) − s_b(−n)`, which vanishes at the
//!   optimum (`w ∥ n`), with a finite-difference Jacobian: quadratic
//!   convergence to the exact normal, where the separation alone is flat;
//! - an edge and a curved point: the same in one dimension, `n` turning
//!   about the edge.
//!
//! A candidate replaces the current normal only when its separation is
//! larger, so the step never makes an answer worse; it repeats from the
//! new normal while that helps (at most a few rounds).

use geom_core::{FeatureShape, GeomError, Real, SupportFeature, lit};
use nalgebra::{Point3, Vector3};

use super::support::MinkowskiPair;
use crate::contact::try_unit;
use crate::orthonormal_basis;

/// The sine of the angle within which a face or an edge of a core counts
/// as touching for the candidate normals.
fn feature_tolerance<N: Real>() -> N {
    lit(1e-3)
}

/// The sine of the angle within which a feature counts as near the
/// normal (a second, wider look for the touching feature).
fn near_tolerance<N: Real>() -> N {
    lit(0.05)
}

/// The refined normal (unit, from `a` to `b`, in `a`'s frame) and the cores'
/// separation along it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Refined<N: Real> {
    pub normal: Vector3<N>,
    pub separation: N,
    /// Whether the normal came from an exact rule or a converged Newton
    /// step (not merely the starting normal kept).
    pub certified: bool,
    /// The cores' witness points (`a`'s frame) when the rule that gave the
    /// normal also gave them exactly: a vertex and its projection, and
    /// whether the vertex was outside the other core. For shapes a hair
    /// apart these are exact while the direction between them carries
    /// the rounding of their difference.
    pub witness: Option<Witness<N>>,
}

/// The cores' separation along the unit `n`.
pub(crate) fn separation<N: Real>(pair: &MinkowskiPair<N>, n: &Vector3<N>) -> Result<N, GeomError> {
    Ok(-n.dot(&pair.support(n)?.w))
}

/// `v` made unit and turned to the side of `toward`, if it has a direction.
fn oriented<N: Real>(v: &Vector3<N>, toward: &Vector3<N>) -> Option<Vector3<N>> {
    let unit = try_unit(v)?;
    Some(if unit.dot(toward) < N::zero() { -unit } else { unit })
}

/// The refinement of `start` (unit, from `a` to `b`, `a`'s frame); see the
/// [module documentation](self). `scale` is the size of the Minkowski
/// difference's points (for the Newton steps' stopping rule).
pub(crate) fn refine_normal<N: Real>(
    pair: &MinkowskiPair<N>,
    start: &Vector3<N>,
    scale: N,
) -> Result<Refined<N>, GeomError> {
    let mut best = Refined {
        normal: *start,
        separation: separation(pair, start)?,
        certified: false,
        witness: None,
    };
    let plain = |n: Option<Vector3<N>>| n.map(|n| (n, None));
    for round in 0..4 {
        let mut improved = false;
        let mut consider =
            |candidate: Option<Candidate<N>>, best: &mut Refined<N>| -> Result<(), GeomError> {
                let Some((n, witness)) = candidate.filter(|(n, _)| n.iter().all(|c| c.is_finite())) else {
                    return Ok(());
                };
                let value = separation(pair, &n)?;
                let noise = N::default_epsilon() * lit(8.0) * scale;
                // Witness points count only when their signed gap is the
                // separation along their normal (to rounding): the separation
                // along any normal bounds the distance from below and the gap
                // from above, so together they certify the pair.
                // And only along their own direction, to its rounding (two
                // points' coordinates over their gap): a pair whose gap
                // matches the separation but points elsewhere is a nearby
                // pair, not this normal's (the gap differs from the
                // separation only to second order in the angle), and its
                // direction would disagree with the normal (a box corner's
                // projection beside a cylinder's rim, 7·10⁻³ rad off).
                let witness = witness.filter(|(p, q, apart)| {
                    let between = q - p;
                    let gap = geom_core::ray::length_without_overflow(&between);
                    let signed = if *apart { gap } else { -gap };
                    let direction = if *apart { between } else { -between };
                    let along = try_unit(&direction)
                        .is_none_or(|d| (d - n).norm() * gap <= N::default_epsilon() * lit(16.0) * scale);
                    (signed - value).abs() <= noise && along
                });
                // Within rounding of the best, a candidate with exact witness
                // points wins: for shapes a hair apart the separations of
                // nearby normals differ by rounding only, and the points are
                // what the answer is built from.
                // Both ways: a candidate without them must beat a best
                // with them by more than the rounding.
                let ties_with_witness =
                    witness.is_some() && best.witness.is_none() && value >= best.separation - noise;
                let beats = if witness.is_none() && best.witness.is_some() {
                    value > best.separation + noise
                } else {
                    value > best.separation
                };
                if beats || ties_with_witness {
                    *best = Refined {
                        normal: n,
                        separation: value,
                        certified: true,
                        witness,
                    };
                    improved = true;
                } else if value == best.separation && !best.certified {
                    best.certified = true;
                }
                Ok(())
            };
        let n = best.normal;
        // Each side's feature twice: within the tight tolerance (the
        // feature the normal is at, such as a cone's apex) and the most
        // aligned one (a face or side the normal is turning toward, such
        // as the cone's side when the start is a few degrees off it).
        let (Some(tight_a), Some(tight_b)) = (
            pair.feature_a(&n, feature_tolerance()),
            pair.feature_b(&-n, feature_tolerance()),
        ) else {
            break;
        };
        let (Some(aligned_a), Some(aligned_b)) =
            (pair.feature_a(&n, N::one()), pair.feature_b(&-n, N::one()))
        else {
            break;
        };
        // Between the two, the feature within a few degrees: an edge beside
        // the vertex the normal is at (a start off by more than the tight
        // tolerance, as GJK's direction between points a hair apart is).
        let near_a = pair.feature_a(&n, near_tolerance());
        let near_b = pair.feature_b(&-n, near_tolerance());
        let distinct =
            |near: Option<SupportFeature<N>>, tight: &SupportFeature<N>, aligned: &SupportFeature<N>| {
                near.filter(|f| f != tight && f != aligned)
            };
        let sides_a = [
            Some(tight_a),
            distinct(near_a, &tight_a, &aligned_a),
            (aligned_a != tight_a).then_some(aligned_a),
        ];
        let sides_b = [
            Some(tight_b),
            distinct(near_b, &tight_b, &aligned_b),
            (aligned_b != tight_b).then_some(aligned_b),
        ];
        if round == 0 {
            // A straight edge (a segment) long beside the other shape: the
            // overlap around its circle of normals has a local minimum per
            // side of the other shape's outline, and a start from a long
            // thin difference may be at any of them. The best of a scan
            // around the circle, polished.
            for (edge, on_a) in [(&aligned_a, false), (&aligned_b, true)] {
                if edge.shape() == FeatureShape::Edge && edge.edge_directions().1 == N::zero() {
                    let (axis, _) = edge.edge_directions();
                    let scanned = circle_scan(pair, &n, &axis)?;
                    consider(plain(scanned), &mut best)?;
                    let turned = match scanned {
                        Some(start) => newton_on_circle(pair, &start, &axis, N::zero(), scale)?,
                        None => None,
                    };
                    consider(with_edge_witness(pair, turned, on_a)?, &mut best)?;
                }
            }
        }
        corner_candidates(pair, &sides_a, true, scale, &mut |c| consider(c, &mut best))?;
        corner_candidates(pair, &sides_b, false, scale, &mut |c| consider(c, &mut best))?;
        for feature_a in sides_a.iter().flatten() {
            for feature_b in sides_b.iter().flatten() {
                for candidate in rule_candidates(feature_a, feature_b, &n) {
                    consider(candidate, &mut best)?;
                }
                let curved = |f: &SupportFeature<N>| f.shape() == FeatureShape::Curved;
                let edge = |f: &SupportFeature<N>| f.shape() == FeatureShape::Edge;
                let face = |f: &SupportFeature<N>| f.shape() == FeatureShape::Face;
                // A point of one side: curved, or a vertex (whose exact
                // normal against an edge family, such as a cone's side,
                // is the family's normal facing it).
                let point =
                    |f: &SupportFeature<N>| matches!(f.shape(), FeatureShape::Curved | FeatureShape::Vertex);
                // Two polygons (or a polygon and an edge): every pair of
                // their edges' directions, both ways, the edge–edge axes of
                // the separating-axis test restricted to the features (a
                // start too rough to name the touching edges, as EPA's
                // normal is when the overlap is a few hundred ε of the
                // points' size; a small shape's best way out may even point
                // away from it).
                for direction_a in polygon_edges(feature_a) {
                    for direction_b in polygon_edges(feature_b) {
                        let axis = try_unit(&direction_a.cross(&direction_b));
                        consider(plain(axis), &mut best)?;
                        consider(plain(axis.map(|axis| -axis)), &mut best)?;
                    }
                }
                if (curved(feature_a) && point(feature_b)) || (point(feature_a) && curved(feature_b)) {
                    // Two curved points, or a vertex against a curved
                    // point: the vertex's projection above is the nearest
                    // surface point, but when its normal leaves the
                    // vertex's normal cone the answer is another
                    // stationary point of the overlap, near `n`.
                    consider(newton_on_sphere(pair, &n, scale)?, &mut best)?;
                } else if point(feature_a) && edge(feature_b) {
                    if curved(feature_a) {
                        // The edge may end at a corner touching the
                        // curved point (a cone's apex on an ellipsoid
                        // with the normal at the side's edge), or at a
                        // rim (a cone's base): Newton from `n` and from
                        // `n` tilted over the end nearer the point (at
                        // the side's own normal the support jumps between
                        // the edge's ends, and the residual has no slope
                        // to follow).
                        consider(newton_on_sphere(pair, &n, scale)?, &mut best)?;
                        let point = pair.support(&n)?.a;
                        let start = rim_start(&n, feature_b, &point, -N::one());
                        consider(newton_on_sphere(pair, &start, scale)?, &mut best)?;
                    }
                    let (axis, cos) = feature_b.edge_directions();
                    let turned = newton_on_circle(pair, &n, &axis, -cos, scale)?;
                    consider(with_edge_witness(pair, turned, true)?, &mut best)?;
                } else if edge(feature_a) && point(feature_b) {
                    if curved(feature_b) {
                        consider(newton_on_sphere(pair, &n, scale)?, &mut best)?;
                        let point = pair.support(&n)?.b;
                        let start = rim_start(&n, feature_a, &point, N::one());
                        consider(newton_on_sphere(pair, &start, scale)?, &mut best)?;
                    }
                    let (axis, cos) = feature_a.edge_directions();
                    let turned = newton_on_circle(pair, &n, &axis, cos, scale)?;
                    consider(with_edge_witness(pair, turned, false)?, &mut best)?;
                } else if curved(feature_a) && face(feature_b) {
                    // A curved point beside a face, outside it, with the
                    // normal near the face's: the answer turns about the
                    // face's nearest side (a cylinder's rim grazing past
                    // a box's edge), which the face's normal alone would
                    // lift onto the face's plane outside the face; a
                    // round cap has no sides but a rim.
                    let mut sides = polygon_sides(feature_b).peekable();
                    if sides.peek().is_none() {
                        // A round cap (its rim a curve): Newton on the two
                        // curved points over the rim towards the point
                        // ([`newton_over_rim`]; at the cap's own normal
                        // the support is the whole disc, and the residual
                        // has no slope to follow).
                        let point = pair.support(&n)?.a;
                        let cap = -feature_b.normal();
                        let toward = -across_from(feature_b, &cap, &point);
                        consider(newton_over_rim(pair, &cap, &toward, scale)?, &mut best)?;
                    }
                    for (e0, e1) in sides {
                        consider(side_candidate(pair, &n, true, &e0, &e1, scale)?, &mut best)?;
                    }
                } else if face(feature_a) && curved(feature_b) {
                    let mut sides = polygon_sides(feature_a).peekable();
                    if sides.peek().is_none() {
                        let point = pair.support(&n)?.b;
                        let cap = feature_a.normal();
                        let toward = across_from(feature_a, &cap, &point);
                        consider(newton_over_rim(pair, &cap, &toward, scale)?, &mut best)?;
                    }
                    for (e0, e1) in sides {
                        consider(side_candidate(pair, &n, false, &e0, &e1, scale)?, &mut best)?;
                    }
                } else if edge(feature_a) && edge(feature_b) {
                    // The best normal on each edge's circle: for parallel
                    // edge families (a segment beside a cylinder's side)
                    // the normal turns about the common axis until the
                    // lines face each other, which the perpendicular
                    // between two of the lines does not give when one
                    // family turns with the normal; and an "edge" may be
                    // an end of its family (a cylinder's side within the
                    // tolerance of its rim) touching the other's side.
                    let (axis_a, cos_a) = feature_a.edge_directions();
                    let (axis_b, cos_b) = feature_b.edge_directions();
                    consider(
                        plain(newton_on_circle(pair, &n, &axis_a, cos_a, scale)?),
                        &mut best,
                    )?;
                    consider(
                        plain(newton_on_circle(pair, &n, &axis_b, -cos_b, scale)?),
                        &mut best,
                    )?;
                }
            }
        }
        if best.separation > N::zero() {
            let n = best.normal;
            for candidate in alternating_projections(pair, &n, scale).into_iter().flatten() {
                consider(candidate, &mut best)?;
            }
        }
        if !improved {
            break;
        }
    }
    Ok(best)
}

/// `n` tilted by 10⁻² past the end of the edge `edge` towards `point`
/// ([`across_from`]): `sign` 1 when the edge is `a`'s (its outward normal
/// is `n`), −1 when it is `b`'s (`−n`).
fn rim_start<N: Real>(n: &Vector3<N>, edge: &SupportFeature<N>, point: &Point3<N>, sign: N) -> Vector3<N> {
    let t = across_from(edge, n, point);
    try_unit(&(n + t * (sign * lit(1e-2)))).unwrap_or(*n)
}

/// The unit direction across the unit `n` from the centroid of
/// `feature`'s points to `point` (zero when `point` is straight above the
/// centroid).
fn across_from<N: Real>(feature: &SupportFeature<N>, n: &Vector3<N>, point: &Point3<N>) -> Vector3<N> {
    let points = feature.points();
    let count = nalgebra::convert::<f64, N>(points.len().max(1) as f64);
    let centroid = points.iter().fold(Vector3::zeros(), |sum, p| sum + p.coords) / count;
    let across = point.coords - centroid;
    try_unit(&(across - n * n.dot(&across))).unwrap_or_else(Vector3::zeros)
}

/// The sides of a feature as segments: a face's sides or an edge
/// ([`corners`] taken in order); none for a point.
fn polygon_sides<N: Real>(feature: &SupportFeature<N>) -> impl Iterator<Item = (Point3<N>, Point3<N>)> + '_ {
    let points = corners(feature);
    let count = match points.len() {
        0 | 1 => 0,
        2 => 1,
        n => n,
    };
    (0..count).map(move |i| (points[i], points[(i + 1) % points.len()]))
}

/// The edge directions of a feature ([`polygon_sides`]' directions).
fn polygon_edges<N: Real>(feature: &SupportFeature<N>) -> impl Iterator<Item = Vector3<N>> + '_ {
    polygon_sides(feature).map(|(start, end)| end - start)
}

/// Exact witness points of the cores: on `a`, on `b`, and whether they
/// are apart (the vertex outside the other core).
pub(crate) type Witness<N> = (Point3<N>, Point3<N>, bool);

/// A candidate normal, with the cores' witness points when the rule gives
/// them exactly.
type Candidate<N> = (Vector3<N>, Option<Witness<N>>);

/// The normals exact for faces and edge pairs (see the module
/// documentation); corners are [`corner_candidates`].
fn rule_candidates<N: Real>(
    feature_a: &SupportFeature<N>,
    feature_b: &SupportFeature<N>,
    n: &Vector3<N>,
) -> [Option<Candidate<N>>; 3] {
    let mut candidates = [None; 3];
    if feature_a.shape() == FeatureShape::Face {
        candidates[0] = Some((feature_a.normal(), None));
    }
    if feature_b.shape() == FeatureShape::Face {
        candidates[1] = Some((-feature_b.normal(), None));
    }
    if feature_a.shape() == FeatureShape::Edge && feature_b.shape() == FeatureShape::Edge {
        // `a`'s edge stays extreme along `n·k_a = c_a`, `b`'s (extreme
        // along `−n`) along `n·k_b = −c_b`: where both circles meet.
        let (axis_a, cos_a) = feature_a.edge_directions();
        let (axis_b, cos_b) = feature_b.edge_directions();
        let [first, second] = circles_meet(&axis_a, cos_a, &axis_b, -cos_b);
        let nearest = match (first, second) {
            (Some(p), Some(q)) => Some(if p.dot(n) >= q.dot(n) { p } else { q }),
            (p, q) => p.or(q),
        };
        candidates[2] = nearest
            .or_else(|| {
                // Parallel straight edges: the perpendicular from a's line
                // to b's.
                let (a0, b0) = (feature_a.points()[0], feature_b.points()[0]);
                let between = b0 - a0;
                oriented(&(between - axis_a * axis_a.dot(&between)), n)
            })
            .map(|n| (n, None));
    }
    candidates
}

/// The corners of a feature: a vertex, an edge's ends (a segment's, a
/// box's, a cone side's apex and rim point), a face's corners (a face of
/// at most four; a cap given as a polygon of more has no real corners);
/// none for a curved point.
fn corners<N: Real>(feature: &SupportFeature<N>) -> &[Point3<N>] {
    let points = feature.points();
    match feature.shape() {
        FeatureShape::Vertex => points,
        FeatureShape::Edge => points,
        FeatureShape::Face if points.len() <= 4 => points,
        _ => &[],
    }
}

/// The candidates of every corner of `features` (one side's, `a`'s when
/// `on_a`) and its projection onto the other core ([`witness_candidates`]),
/// each corner once: the exact normal of a corner inside or beside the
/// other shape, which the start may not point at (an end of a long
/// segment in a small cylinder, where the start is the side's normal).
fn corner_candidates<N: Real>(
    pair: &MinkowskiPair<N>,
    features: &[Option<SupportFeature<N>>],
    on_a: bool,
    scale: N,
    offer: &mut dyn FnMut(Option<Candidate<N>>) -> Result<(), GeomError>,
) -> Result<(), GeomError> {
    let mut seen = [Point3::origin(); 2 * geom_core::MAX_FEATURE_POINTS];
    let mut count = 0;
    for corner in features.iter().flatten().flat_map(corners) {
        if seen[..count].contains(corner) {
            continue;
        }
        if count < seen.len() {
            seen[count] = *corner;
            count += 1;
        }
        let projected = if on_a {
            pair.closest_on_b(corner).map(|(q, inside)| (*corner, q, inside))
        } else {
            pair.closest_on_a(corner).map(|(p, inside)| (p, *corner, inside))
        };
        if let Some((p, q, inside)) = projected {
            for candidate in witness_candidates(pair, &p, &q, !inside, scale) {
                offer(candidate)?;
            }
        }
    }
    Ok(())
}

/// The candidates of an exact witness pair, `p` on `a` and `q` on `b`
/// (`apart` when they are outside each other; a vertex and its
/// projection, or the last two alternating projections). The normal is
/// their direction, which for points a hair apart carries the rounding of
/// their coordinates (`ε·scale/gap` radians), so it is also offered
/// snapped onto the normal set of a face or an edge family that lies
/// within that noise of it, and within two wider angles (an edge beside a
/// face the noisy direction is nearer to): leaving that set changes the
/// separation to first order, and the best separation among them wins.
fn witness_candidates<N: Real>(
    pair: &MinkowskiPair<N>,
    p: &Point3<N>,
    q: &Point3<N>,
    apart: bool,
    scale: N,
) -> [Option<Candidate<N>>; 3] {
    let between = q - p;
    let gap = geom_core::ray::length_without_overflow(&between);
    let Some(raw) = try_unit(&if apart { between } else { -between }) else {
        return [None; 3];
    };
    let witness = Some((*p, *q, apart));
    let noise = (N::default_epsilon() * lit(64.0) * scale / gap).min(feature_tolerance());
    let snap = |tolerance: N| snapped(pair, &raw, tolerance);
    // Widest first: a side whose feature within the widest angle is a
    // point (a corner, a rim) has a point within the narrower ones too, and
    // nothing to snap onto.
    let Some(near) = snap(near_tolerance()) else {
        return [Some((raw, witness)), None, None];
    };
    [
        Some((snap(noise).unwrap_or(raw), witness)),
        snap(lit(1e-2)).map(|n| (n, witness)),
        Some((near, witness)),
    ]
}

/// `raw` moved onto the normal set of the first face or edge family of
/// either side within `tolerance` of it: the face's normal, or the
/// nearest direction of the edge's circle.
fn snapped<N: Real>(pair: &MinkowskiPair<N>, raw: &Vector3<N>, tolerance: N) -> Option<Vector3<N>> {
    // `b`'s feature only when `a`'s gives no normal (a feature is a few
    // hundred bytes to build and copy).
    let on_a = pair
        .feature_a(raw, tolerance)
        .and_then(|feature| crate::feature::nearest_normal(&feature, raw));
    on_a.or_else(|| {
        pair.feature_b(&-raw, tolerance)
            .and_then(|feature| crate::feature::nearest_normal(&feature, &-raw))
            .map(|n| -n)
    })
}

/// For cores apart along `n`: `b`'s support point against `n` projected
/// onto `a`, that projection onto `b`, and once more onto `a` (alternating
/// projections between convex sets, von Neumann): each step exact, the
/// pair converging to the closest pair. The last two are exact witness
/// points (exact to rounding even where the normal is only near the
/// answer, so that the answer's points lie on the shapes); the candidate
/// normals are their direction and its snapped versions
/// ([`witness_candidates`]).
fn alternating_projections<N: Real>(
    pair: &MinkowskiPair<N>,
    n: &Vector3<N>,
    scale: N,
) -> Option<[Option<Candidate<N>>; 3]> {
    let start = pair.support(n).ok()?.b;
    let (mut on_a, inside_a) = pair.closest_on_a(&start)?;
    let (mut on_b, inside_b) = pair.closest_on_b(&on_a)?;
    if inside_a || inside_b {
        return None;
    }
    for _ in 0..2 {
        let (next_a, inside_a) = pair.closest_on_a(&on_b)?;
        let (next_b, inside_b) = pair.closest_on_b(&next_a)?;
        if inside_a || inside_b {
            return None;
        }
        (on_a, on_b) = (next_a, next_b);
    }
    Some(witness_candidates(pair, &on_a, &on_b, true, scale))
}

/// The tangential part of the support difference at `n`, in the basis
/// `(e1, e2)`: zero where `n` is the exact normal.
fn residual<N: Real>(
    pair: &MinkowskiPair<N>,
    n: &Vector3<N>,
    e1: &Vector3<N>,
    e2: &Vector3<N>,
) -> Result<[N; 2], GeomError> {
    let w = pair.support(n)?.w;
    let tangential = w - n * n.dot(&w);
    Ok([tangential.dot(e1), tangential.dot(e2)])
}

/// A normal `n` found for a point (curved or a vertex) against an edge,
/// with its witness pair: the point side's support point and the point of
/// the other side's edge (its feature along `n`) straight across from it.
/// At the exact normal the two are along `n` (the filter in
/// [`refine_normal`] keeps the pair only then); the separations of nearby
/// normals differ by rounding only, so without the pair the answer's
/// points would carry the start's error across the edge.
fn with_edge_witness<N: Real>(
    pair: &MinkowskiPair<N>,
    normal: Option<Vector3<N>>,
    point_is_a: bool,
) -> Result<Option<Candidate<N>>, GeomError> {
    let Some(n) = normal else { return Ok(None) };
    let edge = if point_is_a {
        pair.feature_b(&-n, feature_tolerance())
    } else {
        pair.feature_a(&n, feature_tolerance())
    };
    match edge.filter(|f| f.shape() == FeatureShape::Edge) {
        Some(f) => with_segment_witness(pair, n, point_is_a, &f.points()[0], &f.points()[1]),
        None => Ok(Some((n, None))),
    }
}

/// The normal `n` for a point against the segment `e0 e1` of the other
/// side, with the witness pair of [`with_edge_witness`]: the point side's
/// support point and the segment's point nearest it.
fn with_segment_witness<N: Real>(
    pair: &MinkowskiPair<N>,
    n: Vector3<N>,
    point_is_a: bool,
    e0: &Point3<N>,
    e1: &Point3<N>,
) -> Result<Option<Candidate<N>>, GeomError> {
    let s = pair.support(&n)?;
    let point = if point_is_a { s.a } else { s.b };
    let (on_edge, _) = geom_core::distance::closest_point_on_segment(&point, e0, e1);
    let (p, q) = if point_is_a {
        (point, on_edge)
    } else {
        (on_edge, point)
    };
    Ok(Some((n, Some((p, q, n.dot(&(q - p)) > N::zero())))))
}

/// A curved point (on `a` when `point_is_a`) against the side `e0 e1` of
/// the other side's face: the normal turning about the side from `start`
/// ([`newton_on_circle`]), with the point and its nearest point on the
/// side as witnesses.
fn side_candidate<N: Real>(
    pair: &MinkowskiPair<N>,
    start: &Vector3<N>,
    point_is_a: bool,
    e0: &Point3<N>,
    e1: &Point3<N>,
    scale: N,
) -> Result<Option<Candidate<N>>, GeomError> {
    let Some(axis) = try_unit(&(e1 - e0)) else {
        return Ok(None);
    };
    match newton_on_circle(pair, start, &axis, N::zero(), scale)? {
        Some(n) => with_segment_witness(pair, n, point_is_a, e0, e1),
        None => Ok(None),
    }
}

/// Newton's method on [`residual`] over directions near `start`, for two
/// curved points (or a vertex and a curved point), in coordinates across
/// `start` ([`newton_on_directions`]).
fn newton_on_sphere<N: Real>(
    pair: &MinkowskiPair<N>,
    start: &Vector3<N>,
    scale: N,
) -> Result<Option<Candidate<N>>, GeomError> {
    let (e1, e2) = orthonormal_basis(start);
    let at = |x: [N; 2]| try_unit(&(start + e1 * x[0] + e2 * x[1]));
    newton_on_directions(pair, at, [N::zero(); 2], (&e1, &e2), scale)
}

/// Newton's method on [`residual`] for a curved point against the rim of
/// a round cap whose outward normal is `cap` (unit, on the side of `n`),
/// in polar coordinates about `cap`: the tilt `θ` and its direction `φ`
/// from `toward` (unit, across `cap`), starting 10⁻² over the rim towards
/// `toward`. The cap's support is its rim point at `φ` for every `θ > 0`,
/// smooth in these coordinates; across `cap` it turns at the rate
/// `radius / θ`, which a finite difference of `√ε` cannot follow when the
/// answer is within 10⁻³ of the cap's normal (a deep overlap at a rim).
fn newton_over_rim<N: Real>(
    pair: &MinkowskiPair<N>,
    cap: &Vector3<N>,
    toward: &Vector3<N>,
    scale: N,
) -> Result<Option<Candidate<N>>, GeomError> {
    if *toward == Vector3::zeros() {
        return Ok(None);
    }
    let sideways = cap.cross(toward);
    let at = |x: [N; 2]| {
        let (sin_tilt, cos_tilt) = x[0].sin_cos();
        let (sin_turn, cos_turn) = x[1].sin_cos();
        try_unit(&(cap * cos_tilt + (toward * cos_turn + sideways * sin_turn) * sin_tilt))
    };
    newton_on_directions(pair, at, [lit(1e-2), N::zero()], (toward, &sideways), scale)
}

/// Newton's method on [`residual`] (in the basis `basis` across the
/// directions searched) over the unit directions `at(x)`, from `x0`.
/// Converged, the two support points are the witness pair: their
/// difference is along the normal to the residual's tolerance, so the
/// pair is exact even where the separations of nearby normals differ by
/// rounding only (surfaces a hair apart). Not converged, the iterate of
/// least residual, without witnesses (the caller keeps it only if it
/// separates better); `None` when no direction could be evaluated.
///
/// Damped (Dennis & Schnabel, *Numerical Methods for Unconstrained
/// Optimization*, §6.3): a step that does not shrink the residual is
/// halved, up to twice, and taken whole when no half does (near a rim the
/// residual turns sharply, and the way to the answer may pass a larger
/// one). Where one shape is small beside a large one the residual carries
/// the large one's rounding, and the finite-difference Jacobian of the
/// small one's curvature is rough; full steps from a start a tenth of a
/// radian off then circle the answer instead of reaching it.
fn newton_on_directions<N: Real>(
    pair: &MinkowskiPair<N>,
    at: impl Fn([N; 2]) -> Option<Vector3<N>>,
    x0: [N; 2],
    basis: (&Vector3<N>, &Vector3<N>),
    scale: N,
) -> Result<Option<Candidate<N>>, GeomError> {
    let (e1, e2) = basis;
    let size = |r: [N; 2]| r[0].abs().max(r[1].abs());
    let step = N::default_epsilon().sqrt();
    let limit = lit::<N>(0.25);
    let done = N::default_epsilon() * lit(16.0) * scale;
    let mut x = x0;
    let Some(mut n) = at(x) else { return Ok(None) };
    let mut r = residual(pair, &n, e1, e2)?;
    let mut best = (n, r);
    for _ in 0..16 {
        if size(r) <= done {
            let s = pair.support(&n)?;
            let apart = n.dot(&(s.b - s.a)) > N::zero();
            return Ok(Some((n, Some((s.a, s.b, apart)))));
        }
        let (Some(n1), Some(n2)) = (at([x[0] + step, x[1]]), at([x[0], x[1] + step])) else {
            break;
        };
        let (r1, r2) = (residual(pair, &n1, e1, e2)?, residual(pair, &n2, e1, e2)?);
        // Columns: ∂r/∂x₀ and ∂r/∂x₁.
        let j = [
            [(r1[0] - r[0]) / step, (r2[0] - r[0]) / step],
            [(r1[1] - r[1]) / step, (r2[1] - r[1]) / step],
        ];
        let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
        if det == N::zero() || !det.is_finite() {
            break;
        }
        let dx0 = -(j[1][1] * r[0] - j[0][1] * r[1]) / det;
        let dx1 = -(j[0][0] * r[1] - j[1][0] * r[0]) / det;
        if !(dx0.abs() <= limit && dx1.abs() <= limit) {
            break;
        }
        // The full step, or the first of its halves that shrinks the
        // residual.
        let full = [x[0] + dx0, x[1] + dx1];
        let Some(full_n) = at(full) else { break };
        let full_r = residual(pair, &full_n, e1, e2)?;
        let mut next = (full, full_n, full_r);
        let mut length = N::one();
        while size(next.2) >= size(r) && length > lit(0.3) {
            length *= lit(0.5);
            let trial = [x[0] + dx0 * length, x[1] + dx1 * length];
            let Some(trial_n) = at(trial) else { break };
            let trial_r = residual(pair, &trial_n, e1, e2)?;
            if size(trial_r) < size(r) {
                next = (trial, trial_n, trial_r);
            }
        }
        if size(r) < size(best.1) {
            best = (n, r);
        }
        (x, n, r) = next;
    }
    if size(r) < size(best.1) {
        best = (n, r);
    }
    Ok(size(best.1).is_finite().then_some((best.0, None)))
}

/// The frame of the circle of directions about the unit `axis` through
/// `start`'s side: `start`'s unit part across `axis`, and `axis` × it;
/// `None` when `start` is along `axis`.
fn circle_frame<N: Real>(start: &Vector3<N>, axis: &Vector3<N>) -> Option<(Vector3<N>, Vector3<N>)> {
    let across = try_unit(&(start - axis * axis.dot(start)))?;
    Some((across, axis.cross(&across)))
}

/// The best of sixteen normals around the circle perpendicular to the unit
/// `axis` (from the direction of `start` across it): the start of a
/// search for the least overlap around a straight edge.
fn circle_scan<N: Real>(
    pair: &MinkowskiPair<N>,
    start: &Vector3<N>,
    axis: &Vector3<N>,
) -> Result<Option<Vector3<N>>, GeomError> {
    let Some((across, tangent)) = circle_frame(start, axis) else {
        return Ok(None);
    };
    let mut best: Option<(Vector3<N>, N)> = None;
    for k in 0..16 {
        let angle = lit::<N>(std::f64::consts::PI / 8.0 * k as f64);
        let n = across * angle.cos() + tangent * angle.sin();
        let value = separation(pair, &n)?;
        if best.is_none_or(|(_, b)| value > b) {
            best = Some((n, value));
        }
    }
    Ok(best.map(|(n, _)| n))
}

/// The unit directions `n` with `n · k1 = c1` and `n · k2 = c2` (`k1`, `k2`
/// unit): where two circles of the sphere of directions meet, at most two
/// (none for parallel axes).
fn circles_meet<N: Real>(k1: &Vector3<N>, c1: N, k2: &Vector3<N>, c2: N) -> [Option<Vector3<N>>; 2] {
    let d = k1.dot(k2);
    let cross = k1.cross(k2);
    let cross_squared = cross.norm_squared();
    if cross_squared <= lit::<N>(1e-18) {
        return [None, None];
    }
    // n = α k1 + β k2 + γ (k1 × k2), with 1 − d² = |k1 × k2|².
    let alpha = (c1 - c2 * d) / cross_squared;
    let beta = (c2 - c1 * d) / cross_squared;
    let in_plane = k1 * alpha + k2 * beta;
    let rest = N::one() - in_plane.norm_squared();
    if rest < N::zero() {
        return [None, None];
    }
    let gamma = (rest / cross_squared).sqrt();
    [
        try_unit(&(in_plane + cross * gamma)),
        try_unit(&(in_plane - cross * gamma)),
    ]
}

/// Newton's method, then secants, on the residual `w(n) · t` for `n` on
/// the circle `n · axis = cos` (turning about `axis`, tangent `t`), from
/// the point of the circle nearest `start`: an edge (or a cone's or
/// cylinder's side) against a curved point. The last iterate when the
/// residual is small or the steps stop (the caller keeps it only if it
/// separates better); `None` when `start` is along `axis` or the residual
/// is not finite.
fn newton_on_circle<N: Real>(
    pair: &MinkowskiPair<N>,
    start: &Vector3<N>,
    axis: &Vector3<N>,
    cos: N,
    scale: N,
) -> Result<Option<Vector3<N>>, GeomError> {
    let Some((across, tangent0)) = circle_frame(start, axis) else {
        return Ok(None);
    };
    let sin = (N::one() - cos * cos).max(N::zero()).sqrt();
    // n(θ) = cos·axis + sin·(across cos θ + tangent0 sin θ).
    let at = |theta: N| {
        let radial = across * theta.cos() + tangent0 * theta.sin();
        let tangent = tangent0 * theta.cos() - across * theta.sin();
        (axis * cos + radial * sin, tangent)
    };
    let value = |theta: N| -> Result<N, GeomError> {
        let (n, tangent) = at(theta);
        Ok(pair.support(&n)?.w.dot(&tangent))
    };
    let step = N::default_epsilon().sqrt();
    let done = N::default_epsilon() * lit(16.0) * scale;
    let limit = lit::<N>(0.25);
    let mut theta = N::zero();
    let mut r = value(theta)?;
    // The first slope by a difference of √ε; then secants through the
    // last two iterates: the support of an edge exactly across the circle
    // flips between its ends as `n` rounds, which moves the residual by
    // `ε·length`, enough to turn a √ε difference's sign but not a secant's.
    let mut slope = (value(theta + step)? - r) / step;
    for _ in 0..12 {
        if r.abs() <= done {
            break;
        }
        let delta = -r / slope;
        if !delta.is_finite() {
            break;
        }
        // Damped: at most a quarter radian a step (a start far around the
        // circle, as GJK's direction on a long thin difference is, walks
        // there instead of overshooting).
        let next = theta + delta.max(-limit).min(limit);
        let next_r = value(next)?;
        if next == theta {
            break;
        }
        slope = (next_r - r) / (next - theta);
        (theta, r) = (next, next_r);
    }
    Ok(r.is_finite().then(|| at(theta).0))
}

/// The contact point pairs of the two cores' features along the refined
/// `normal`, dilated by the radii: `a`'s feature moved by `radius_a`
/// along `normal`, `b`'s by `radius_b` against it.
pub(crate) fn dilated_features<N: Real>(
    pair: &MinkowskiPair<N>,
    normal: &Vector3<N>,
    tolerance: N,
) -> Option<(SupportFeature<N>, SupportFeature<N>)> {
    // A round core's feature dilated along `normal` is the surface only
    // where `normal` is across it: an edge of a capsule's axis only within
    // 1e-6 of perpendicular (its middle then within 5e-13 of the radius
    // off the surface).
    let capped = |radius: N| {
        if radius > N::zero() {
            tolerance.min(lit(1e-6))
        } else {
            tolerance
        }
    };
    let a = pair
        .feature_a(normal, capped(pair.radius_a()))?
        .offset(normal, pair.radius_a());
    let b = pair
        .feature_b(&-normal, capped(pair.radius_b()))?
        .offset(normal, -pair.radius_b());
    Some((a, b))
}

/// `a`'s support point along `normal` and `b`'s against it, dilated by the
/// radii (the fallback witness pair when features do not overlap).
pub(crate) fn support_pair<N: Real>(
    pair: &MinkowskiPair<N>,
    normal: &Vector3<N>,
) -> Result<(Point3<N>, Point3<N>), GeomError> {
    let s = pair.support(normal)?;
    Ok((s.a + normal * pair.radius_a(), s.b - normal * pair.radius_b()))
}
