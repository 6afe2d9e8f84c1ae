//! Contact points and manifolds: what pair routines report, in buffers that
//! are cleared and refilled so that a warm caller allocates nothing.
//!
//! Conventions (DESIGN.md, "The geom command line"): a manifold's `normal`
//! is a unit vector pointing from shape `a` to shape `b`; a point's `depth`
//! is the overlap along that normal, positive when the shapes overlap and
//! negative (down to `-margin`) when they are apart but within the margin.
//! `point_a` lies on `a`'s surface and `point_b` on `b`'s, in world space.
//!
//! ```
//! use geom_core::{ContactManifolds, ContactPoint, FeatureId};
//! use nalgebra::{Point3, Vector3};
//!
//! // A unit ball (a) centred at y = 0.75 sinks 0.25 into the ground y = 0 (b).
//! let mut out = ContactManifolds::<f64>::new();
//! let manifold = out.push_manifold(-Vector3::y()); // from a down into b
//! let (point_a, point_b) = (Point3::new(0.0, -0.25, 0.0), Point3::origin());
//! let (feature_a, feature_b) = (FeatureId::Face(0), FeatureId::Face(0));
//! manifold.points.push(ContactPoint { point_a, point_b, depth: 0.25, feature_a, feature_b });
//! assert_eq!((out.len(), out.as_slice()[0].max_depth()), (1, Some(0.25)));
//! // Seen from the ground: the normal turns up and the points swap.
//! out.swap_roles_from(0);
//! assert_eq!(out.as_slice()[0].normal, Vector3::y());
//! assert_eq!(out.as_slice()[0].points[0].point_a, Point3::origin());
//! out.clear(); // empty again, its storage kept for the next query
//! assert!(out.is_empty());
//! ```

use nalgebra::{Point3, Vector3};

use crate::ray::FeatureId;
use crate::scalar::Real;

/// One contact between shapes `a` and `b`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint<N: Real> {
    /// The point of `a`'s surface involved, in world space.
    pub point_a: Point3<N>,
    /// The point of `b`'s surface involved, in world space.
    pub point_b: Point3<N>,
    /// Overlap along the manifold normal: `> 0` overlapping, `< 0` apart.
    pub depth: N,
    /// The feature of `a` the contact lies on.
    pub feature_a: FeatureId,
    /// The feature of `b` the contact lies on.
    pub feature_b: FeatureId,
}

impl<N: Real> ContactPoint<N> {
    /// The same contact seen from the other shape: points and features
    /// swapped (the manifold's normal must be negated with it).
    pub fn swapped(self) -> Self {
        ContactPoint {
            point_a: self.point_b,
            point_b: self.point_a,
            depth: self.depth,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
        }
    }
}

/// Contacts sharing one normal (from `a` to `b`, unit length).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq)]
pub struct ContactManifold<N: Real> {
    /// Unit normal from `a` to `b`.
    pub normal: Vector3<N>,
    /// The contact points (routines in geom keep at most four).
    pub points: Vec<ContactPoint<N>>,
}

impl<N: Real> ContactManifold<N> {
    /// The largest depth among the points (`None` when there are none).
    pub fn max_depth(&self) -> Option<N> {
        self.points.iter().map(|p| p.depth).reduce(|a, b| a.max(b))
    }
}

/// A candidate contact with its own normal, before a routine groups
/// candidates into manifolds.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactCandidate<N: Real> {
    /// Unit normal from `a` to `b` for this candidate alone.
    pub normal: Vector3<N>,
    /// The contact.
    pub point: ContactPoint<N>,
}

/// The reusable output of a contact query: a list of manifolds that keeps
/// its storage (and each manifold's point storage) across
/// [`ContactManifolds::clear`], plus working space for routines that
/// collect candidates before reducing them. Once warm, refilling it
/// allocates nothing.
#[derive(Clone, Default)]
pub struct ContactManifolds<N: Real> {
    pool: Vec<ContactManifold<N>>,
    len: usize,
    candidates: Vec<ContactCandidate<N>>,
    approximate: bool,
}

/// The live manifolds and the `approximate` flag: not the storage kept
/// for reuse beyond [`ContactManifolds::len`], nor the working space.
impl<N: Real> std::fmt::Debug for ContactManifolds<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContactManifolds")
            .field("manifolds", &self.as_slice())
            .field("approximate", &self.approximate)
            .finish()
    }
}

impl<N: Real> ContactManifolds<N> {
    /// An empty buffer.
    pub fn new() -> Self {
        ContactManifolds {
            pool: Vec::new(),
            len: 0,
            candidates: Vec::new(),
            approximate: false,
        }
    }

    /// Forgets every manifold, keeping the storage.
    pub fn clear(&mut self) {
        self.len = 0;
        self.candidates.clear();
        self.approximate = false;
    }

    /// Records that a routine stopped at its iteration cap before
    /// converging (GJK/EPA on a badly conditioned pair): the manifolds hold
    /// its best answer, not a converged one.
    pub fn mark_approximate(&mut self) {
        self.approximate = true;
    }

    /// Whether some routine since the last [`ContactManifolds::clear`]
    /// returned an unconverged best answer.
    pub fn is_approximate(&self) -> bool {
        self.approximate
    }

    /// The manifolds currently held.
    pub fn as_slice(&self) -> &[ContactManifold<N>] {
        &self.pool[..self.len]
    }

    /// The manifolds currently held, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [ContactManifold<N>] {
        &mut self.pool[..self.len]
    }

    /// How many manifolds are held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no manifold is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every contact point of every manifold, with its manifold's normal.
    pub fn points(&self) -> impl Iterator<Item = (&Vector3<N>, &ContactPoint<N>)> {
        self.as_slice()
            .iter()
            .flat_map(|m| m.points.iter().map(move |p| (&m.normal, p)))
    }

    /// Starts a new, empty manifold with `normal` (reusing storage) and
    /// returns it for filling.
    pub fn push_manifold(&mut self, normal: Vector3<N>) -> &mut ContactManifold<N> {
        if self.len == self.pool.len() {
            self.pool.push(ContactManifold {
                normal,
                points: Vec::with_capacity(4),
            });
        }
        let manifold = &mut self.pool[self.len];
        manifold.normal = normal;
        manifold.points.clear();
        self.len += 1;
        manifold
    }

    /// Makes `self` hold the manifolds of `other` and its `approximate`
    /// flag, reusing `self`'s storage (no allocation once it is large
    /// enough). The candidate working space is emptied, as by
    /// [`ContactManifolds::clear`].
    pub fn copy_from(&mut self, other: &ContactManifolds<N>) {
        self.clear();
        for manifold in other.as_slice() {
            self.push_manifold(manifold.normal)
                .points
                .extend_from_slice(&manifold.points);
        }
        self.approximate = other.approximate;
    }

    /// Drops the manifolds from index `len` on (keeping their storage).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Working space for candidates: routines push into it, then group and
    /// reduce them into manifolds. [`ContactManifolds::clear`] empties it.
    pub fn candidates_mut(&mut self) -> &mut Vec<ContactCandidate<N>> {
        &mut self.candidates
    }

    /// Swaps the roles of `a` and `b` in the manifolds from index `from` on:
    /// normals negated, points and features swapped (a reversed pair
    /// reuses the forward routine this way).
    pub fn swap_roles_from(&mut self, from: usize) {
        for manifold in &mut self.pool[from.min(self.len)..self.len] {
            manifold.normal = -manifold.normal;
            for point in &mut manifold.points {
                *point = point.swapped();
            }
        }
    }
}

/// A [`ContactManifolds`] is written as the manifolds it holds and whether
/// they are approximate (`{"manifolds": [...], "approximate": false}`); its
/// spare storage and candidate working space are not part of the value.
#[cfg(feature = "serde")]
mod serde_manifolds {
    use super::{ContactManifold, ContactManifolds};
    use crate::scalar::Real;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize)]
    struct Written<'a, N: Real> {
        manifolds: &'a [ContactManifold<N>],
        approximate: bool,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Read<N: Real> {
        manifolds: Vec<ContactManifold<N>>,
        approximate: bool,
    }

    impl<N: Real + Serialize> Serialize for ContactManifolds<N> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Written {
                manifolds: self.as_slice(),
                approximate: self.approximate,
            }
            .serialize(serializer)
        }
    }

    impl<'de, N: Real + Deserialize<'de>> Deserialize<'de> for ContactManifolds<N> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let Read {
                manifolds,
                approximate,
            } = Read::deserialize(deserializer)?;
            Ok(ContactManifolds {
                len: manifolds.len(),
                pool: manifolds,
                candidates: Vec::new(),
                approximate,
            })
        }
    }
}

/// Up to four indices among `count` contact points, given their positions
/// (`position(k)`; point 0 must be the deepest), spread across `normal`:
/// the deepest; the point farthest from it across the normal; the one
/// making the largest triangle with those two; the one farthest outside
/// that triangle (the largest added area). Points that add nothing (a
/// repeat, a collinear third, a fourth inside) are left out.
///
/// Used to reduce a manifold to at most four points (the area heuristic of
/// Gregorius, "Robust Contact Creation for Physics Simulations", GDC 2015).
pub fn pick_four<N: Real>(
    count: usize,
    position: impl Fn(usize) -> Point3<N>,
    normal: &Vector3<N>,
) -> [Option<usize>; 4] {
    let mut picked = [Some(0), None, None, None];
    if count < 2 {
        return picked;
    }
    // Positions across the normal (the normal component removed), relative
    // to the deepest point.
    let across = |k: usize| {
        let d = position(k) - position(0);
        d - normal * d.dot(normal)
    };
    let tiny = {
        let size = (0..count)
            .map(|k| across(k).amax())
            .fold(N::zero(), |x, y| x.max(y));
        size * N::default_epsilon() * nalgebra::convert::<f64, N>(1024.0)
    };
    let Some((second, spread)) = first_greatest(count, |k| across(k).norm()) else {
        return picked;
    };
    if spread <= tiny {
        return picked;
    }
    picked[1] = Some(second);
    let base = across(second);
    let Some((third, area)) = first_greatest(count, |k| base.cross(&across(k)).dot(normal).abs()) else {
        return picked;
    };
    if area <= tiny * spread {
        return picked;
    }
    picked[2] = Some(third);
    let c = across(third);
    // Orient the triangle (0, second, third) counter-clockwise about the
    // normal, then score each point by how far outside its edges it lies.
    let sign = if base.cross(&c).dot(normal) >= N::zero() {
        N::one()
    } else {
        -N::one()
    };
    let corners = [Vector3::zeros(), base, c];
    let outside = |k: usize| {
        let p = across(k);
        (0..3)
            .map(|e| {
                let (from, to) = (corners[e], corners[(e + 1) % 3]);
                -sign * (to - from).cross(&(p - from)).dot(normal)
            })
            .fold(N::zero(), |x, y| x.max(y))
    };
    if let Some((fourth, added)) = first_greatest(count, outside)
        && added > tiny * spread
    {
        picked[3] = Some(fourth);
    }
    picked
}

/// The first of `0..count` with the greatest `score`, and that score
/// (`None` for none).
#[inline(always)]
fn first_greatest<N: Real>(count: usize, score: impl Fn(usize) -> N) -> Option<(usize, N)> {
    (0..count)
        .map(|k| (k, score(k)))
        .reduce(|best, next| if next.1 > best.1 { next } else { best })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(depth: f64) -> ContactPoint<f64> {
        ContactPoint {
            point_a: Point3::new(0.0, 1.0, 0.0),
            point_b: Point3::new(0.0, 2.0, 0.0),
            depth,
            feature_a: FeatureId::Face(3),
            feature_b: FeatureId::Vertex(1),
        }
    }

    /// `{:?}` shows what a user filled, not the storage kept for reuse: two
    /// manifolds, then after `clear` and one new manifold only that one
    /// (the second's normal, −z, no longer appears).
    #[test]
    fn debug_shows_the_live_manifolds_only() {
        let mut manifolds = ContactManifolds::<f64>::new();
        manifolds.push_manifold(Vector3::y()).points.push(point(0.5));
        manifolds.push_manifold(-Vector3::z()).points.push(point(0.25));
        let both = format!("{manifolds:?}");
        assert!(
            both.contains("depth: 0.5") && both.contains("depth: 0.25"),
            "{both}"
        );
        manifolds.clear();
        manifolds.push_manifold(Vector3::x()).points.push(point(0.125));
        manifolds.mark_approximate();
        let one = format!("{manifolds:?}");
        assert!(
            one.contains("depth: 0.125") && !one.contains("depth: 0.25"),
            "{one}"
        );
        assert!(
            !one.contains("-1.0") && one.contains("approximate: true"),
            "{one}"
        );
        assert_eq!(one.matches("normal").count(), 1, "{one}");
    }

    #[test]
    fn buffers_are_reused_and_roles_swap() {
        let mut manifolds = ContactManifolds::<f64>::new();
        for round in 0..3 {
            manifolds.clear();
            assert!(manifolds.is_empty());
            let m = manifolds.push_manifold(Vector3::y());
            m.points.push(point(0.5));
            m.points.push(point(-0.25));
            manifolds.push_manifold(Vector3::x()).points.push(point(1.0));
            assert_eq!(manifolds.len(), 2, "round {round}");
            assert_eq!(manifolds.as_slice()[0].points.len(), 2);
            assert_eq!(manifolds.as_slice()[0].max_depth(), Some(0.5));
            assert_eq!(manifolds.points().count(), 3);
        }
        let capacity = manifolds.as_slice()[0].points.capacity();
        manifolds.swap_roles_from(1);
        assert_eq!(manifolds.as_slice()[0].normal, Vector3::y());
        assert_eq!(manifolds.as_slice()[1].normal, -Vector3::x());
        let swapped = manifolds.as_slice()[1].points[0];
        assert_eq!(swapped.point_a, Point3::new(0.0, 2.0, 0.0));
        assert_eq!(swapped.feature_a, FeatureId::Vertex(1));
        manifolds.clear();
        manifolds.push_manifold(Vector3::z());
        assert_eq!(manifolds.as_slice()[0].points.capacity(), capacity);
        assert!(manifolds.as_slice()[0].points.is_empty());
    }

    /// Each pick against its definition, evaluated by brute force over
    /// every point: the deepest (point 0); the farthest from it across the
    /// normal; the one making the largest triangle with those two; the one
    /// farthest outside that triangle. Random sets of 1 to 80 points on
    /// tilted planes, with repeats and collinear runs.
    #[test]
    fn picks_are_the_extremes_they_are_defined_as() {
        let mut rng = geom_random::Rng::new(17);
        for round in 0..400 {
            let count = 1 + round % 80;
            let normal = rng.vector(1.0).normalize();
            let collinear = round % 7 == 3;
            let mut points: Vec<Point3<f64>> = Vec::with_capacity(count);
            for k in 0..count {
                let point = if k > 1 && rng.chance(0.3) {
                    // A repeat of an earlier point (ties: the first wins).
                    points[1 + rng.below(k - 1)]
                } else if collinear {
                    Point3::new(rng.range(-1.0, 1.0), 0.0, 0.0)
                } else {
                    Point3::from(rng.vector(1.0))
                };
                points.push(point);
            }
            let picked = pick_four(count, |k| points[k], &normal);
            assert_eq!(picked[0], Some(0));
            let across = |k: usize| {
                let d = points[k] - points[0];
                d - normal * d.dot(&normal)
            };
            // The first of the greatest scores, as the routine breaks ties.
            let first_best = |score: &dyn Fn(usize) -> f64| {
                (0..count).fold((0, f64::NEG_INFINITY), |(best, top), k| {
                    if score(k) > top {
                        (k, score(k))
                    } else {
                        (best, top)
                    }
                })
            };
            let (second, spread) = first_best(&|k| across(k).norm());
            if spread < 1e-9 {
                assert_eq!(picked[1..], [None, None, None]);
                continue;
            }
            assert_eq!(picked[1], Some(second), "round {round}");
            let base = across(second);
            let (third, area) = first_best(&|k| base.cross(&across(k)).dot(&normal).abs());
            if collinear || area < 1e-9 {
                assert_eq!(picked[2..], [None, None], "round {round}");
                continue;
            }
            assert_eq!(picked[2], Some(third), "round {round}");
            // Outside the triangle (0, second, third): the largest area a
            // point adds past one of its edges.
            let corners = [Vector3::zeros(), base, across(third)];
            let orientation = base.cross(&corners[2]).dot(&normal).signum();
            let (fourth, added) = first_best(&|k| {
                (0..3)
                    .map(|e| {
                        let (from, to) = (corners[e], corners[(e + 1) % 3]);
                        -orientation * (to - from).cross(&(across(k) - from)).dot(&normal)
                    })
                    .fold(0.0, f64::max)
            });
            if added > 1e-9 {
                assert_eq!(picked[3], Some(fourth), "round {round}");
            } else {
                assert_eq!(picked[3], None, "round {round}");
            }
        }
    }
}
