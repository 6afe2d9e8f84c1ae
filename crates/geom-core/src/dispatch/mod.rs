//! The double-dispatch table: one entry point for any pair of shapes.
//!
//! A [`DispatchTable`] stores, per ordered pair of [`ShapeKind`]s, the
//! routine that answers a pair query, in a dense square table indexed by
//! [`ShapeKind::index`]. Registering a routine for `(A, B)` also serves
//! `(B, A)`: the table calls the same routine with the shapes exchanged and
//! flips the answer (normals negated, points and features swapped), so a
//! pair is written once and the two orders agree bit for bit.
//!
//! Lookup order for a query on `(a, b)`:
//!
//! 1. the routine registered for the pair (either order);
//! 2. when both shapes are convex, the convex fallback (GJK/EPA through the
//!    support functions, installed by `geom-prims`);
//! 3. when one shape is convex and the other's kind has a routine against
//!    any convex shape ([`DispatchTable::register_contact_with_any_convex`],
//!    [`DispatchTable::register_closest_points_with_any_convex`]: how a
//!    heightfield meets boxes, cylinders and custom convex shapes);
//! 4. for `closest_points`/`distance`/`intersects` only: the pair's contact
//!    routine run with the query's distance as margin;
//! 5. otherwise [`GeomError::Unsupported`].
//!
//! Shapes defined outside geom take a fresh kind from
//! [`ShapeKind::new_custom`] and register their own pairs at run time; a
//! convex custom shape (`is_convex()` with a `support_local`) needs nothing
//! registered to collide with the built-in convex shapes.
//!
//! Inputs are checked before any routine runs: a NaN or infinite pose is
//! [`GeomError::NonFinite`], a negative or NaN margin is
//! [`GeomError::InvalidParameter`], and a rotation whose quaternion has
//! drifted from unit length is renormalised. Routines themselves never
//! fail on valid input; an answer that overflowed (shapes near the largest float) is
//! refused with [`GeomError::NonFinite`] rather than returned with inf or
//! NaN in it.
//!
//! ```
//! use geom_core::{ClosestPoints, ContactManifolds, DispatchTable, GeomError, Shape, ShapeKind};
//! use nalgebra::{Isometry3, Point3};
//! # #[derive(Debug)]
//! # struct Dot(ShapeKind);
//! # impl Shape<f64> for Dot {
//! #     fn kind(&self) -> ShapeKind { self.0 }
//! #     fn is_convex(&self) -> bool { false }
//! #     fn local_aabb(&self) -> geom_core::Aabb<f64> { geom_core::Aabb::new(Point3::origin(), Point3::origin()) }
//! #     fn ray_cast_local(&self, _: &geom_core::Ray<f64>, _: f64, _: bool) -> Option<geom_core::RayHit<f64>> { None }
//! #     fn closest_point_local(&self, _: &Point3<f64>, _: bool) -> Option<geom_core::PointProjection<f64>> { None }
//! #     fn support_local(&self, _: &nalgebra::Vector3<f64>) -> Option<Point3<f64>> { None }
//! # }
//!
//! // `Dot(kind)`: a custom, non-convex shape, a single point at its pose's origin.
//! let kind = ShapeKind::new_custom().unwrap();
//! let mut table = DispatchTable::<f64>::new();
//! table.register_closest_points::<Dot, Dot, _>(kind, kind, |_, pose_a, _, pose_b, max_distance| {
//!     let (a, b) = (Point3::from(pose_a.translation.vector), Point3::from(pose_b.translation.vector));
//!     if (b - a).norm() <= max_distance { ClosestPoints::WithinMargin { point_a: a, point_b: b } } else { ClosestPoints::Disjoint }
//! });
//! let (dot, here, there) = (Dot(kind), Isometry3::identity(), Isometry3::translation(3.0, 4.0, 0.0));
//! assert_eq!(table.distance(&dot, &here, &dot, &there), Ok(5.0)); // a 3-4-5 triangle
//! assert_eq!(table.intersects(&dot, &here, &dot, &there), Ok(false));
//! // No contact routine and not convex: contact queries are refused.
//! let refused = table.contact(&dot, &here, &dot, &there, 0.0, &mut ContactManifolds::new());
//! assert_eq!(refused, Err(GeomError::Unsupported { a: kind, b: kind }));
//! ```

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use nalgebra::{Isometry3, Point3, Vector3};

use crate::contact::ContactManifolds;
use crate::error::GeomError;
use crate::scalar::{Real, lit};
use crate::shape::{BUILTIN_KINDS, Shape, ShapeKind};

/// The answer of a closest-points query with a distance limit.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClosestPoints<N: Real> {
    /// The shapes overlap or touch.
    Intersecting,
    /// The shapes are apart by at most the query's `max_distance`; the
    /// closest points of each, in world space.
    WithinMargin {
        /// The point of `a` closest to `b`.
        point_a: Point3<N>,
        /// The point of `b` closest to `a`.
        point_b: Point3<N>,
    },
    /// The shapes are farther apart than `max_distance`.
    Disjoint,
}

impl<N: Real> ClosestPoints<N> {
    /// The same answer with the roles of `a` and `b` exchanged.
    pub fn swapped(self) -> Self {
        match self {
            ClosestPoints::WithinMargin { point_a, point_b } => ClosestPoints::WithinMargin {
                point_a: point_b,
                point_b: point_a,
            },
            other => other,
        }
    }
}

/// A contact routine on untyped shapes: fills `out` (already cleared) with
/// the manifolds of `a` at `pose_a` against `b` at `pose_b` within
/// `margin`. Implemented by every closure of that signature.
pub trait ContactFn<N: Real>:
    Fn(
        &dyn Shape<N>,
        &Isometry3<N>,
        &dyn Shape<N>,
        &Isometry3<N>,
        N,
        &mut ContactManifolds<N>,
    ) -> Result<(), GeomError>
    + Send
    + Sync
    + 'static
{
}

impl<N: Real, F> ContactFn<N> for F where
    F: Fn(
            &dyn Shape<N>,
            &Isometry3<N>,
            &dyn Shape<N>,
            &Isometry3<N>,
            N,
            &mut ContactManifolds<N>,
        ) -> Result<(), GeomError>
        + Send
        + Sync
        + 'static
{
}

/// A closest-points routine on untyped shapes, with a distance limit.
/// Implemented by every closure of that signature.
pub trait ClosestPointsFn<N: Real>:
    Fn(&dyn Shape<N>, &Isometry3<N>, &dyn Shape<N>, &Isometry3<N>, N) -> Result<ClosestPoints<N>, GeomError>
    + Send
    + Sync
    + 'static
{
}

impl<N: Real, F> ClosestPointsFn<N> for F where
    F: Fn(
            &dyn Shape<N>,
            &Isometry3<N>,
            &dyn Shape<N>,
            &Isometry3<N>,
            N,
        ) -> Result<ClosestPoints<N>, GeomError>
        + Send
        + Sync
        + 'static
{
}

/// A stored contact routine.
pub type ContactRoutine<N> = Arc<dyn ContactFn<N>>;

/// A stored closest-points routine.
pub type ClosestPointsRoutine<N> = Arc<dyn ClosestPointsFn<N>>;

/// A routine stored for one ordered pair, and whether the table must
/// exchange the shapes to call it (it was registered for the other order).
#[derive(Clone)]
struct Entry<R> {
    routine: R,
    swap: bool,
}

/// A dense square table of optional entries indexed by kind indices.
#[derive(Clone)]
struct PairTable<R> {
    side: usize,
    entries: Vec<Option<Entry<R>>>,
}

impl<R: Clone> PairTable<R> {
    fn new() -> Self {
        PairTable {
            side: BUILTIN_KINDS,
            entries: vec![None; BUILTIN_KINDS * BUILTIN_KINDS],
        }
    }

    fn get(&self, a: ShapeKind, b: ShapeKind) -> Option<&Entry<R>> {
        let (i, j) = (a.index(), b.index());
        if i >= self.side || j >= self.side {
            return None;
        }
        self.entries[i * self.side + j].as_ref()
    }

    /// Makes room for kind indices up to `index`, keeping every entry.
    fn grow_to(&mut self, index: usize) {
        if index < self.side {
            return;
        }
        let side = index + 1;
        let mut entries = vec![None; side * side];
        for i in 0..self.side {
            for j in 0..self.side {
                entries[i * side + j] = self.entries[i * self.side + j].take();
            }
        }
        self.side = side;
        self.entries = entries;
    }

    /// Stores `routine` for `(a, b)` and, swapped, for `(b, a)`.
    fn insert(&mut self, a: ShapeKind, b: ShapeKind, routine: R) {
        let (i, j) = (a.index(), b.index());
        self.grow_to(i.max(j));
        let side = self.side;
        self.entries[j * side + i] = Some(Entry {
            routine: routine.clone(),
            swap: true,
        });
        // Written second, so that `a == b` keeps the unswapped entry.
        self.entries[i * side + j] = Some(Entry { routine, swap: false });
    }

    fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.entries.len())
            .filter(|&k| matches!(&self.entries[k], Some(entry) if !entry.swap))
            .map(|k| (k / self.side, k % self.side))
    }
}

/// Routines per pair of shape kinds, with a convex fallback; see the
/// [module documentation](self) for the lookup order.
///
/// `geom::default_dispatcher()` returns a table with every built-in pair;
/// [`DispatchTable::new`] starts empty for a caller who wants to choose.
///
/// ```
/// use geom_core::dispatch::DispatchTable;
/// use geom_core::{ContactManifolds, GeomError, ShapeKind};
///
/// let table = DispatchTable::<f64>::new();
/// # #[derive(Debug)] struct Dot;
/// # impl geom_core::Shape<f64> for Dot {
/// #     fn kind(&self) -> ShapeKind { ShapeKind::Segment }
/// #     fn is_convex(&self) -> bool { false }
/// #     fn local_aabb(&self) -> geom_core::Aabb<f64> { geom_core::Aabb::new(Default::default(), Default::default()) }
/// #     fn ray_cast_local(&self, _: &geom_core::Ray<f64>, _: f64, _: bool) -> Option<geom_core::RayHit<f64>> { None }
/// #     fn closest_point_local(&self, p: &nalgebra::Point3<f64>, _: bool) -> Option<geom_core::PointProjection<f64>> { None }
/// #     fn support_local(&self, _: &nalgebra::Vector3<f64>) -> Option<nalgebra::Point3<f64>> { None }
/// # }
/// let pose = nalgebra::Isometry3::identity();
/// let mut out = ContactManifolds::new();
/// // Nothing registered and not convex: the pair is unsupported.
/// let answer = table.contact(&Dot, &pose, &Dot, &pose, 0.0, &mut out);
/// assert_eq!(answer, Err(GeomError::Unsupported { a: ShapeKind::Segment, b: ShapeKind::Segment }));
/// ```
#[derive(Clone)]
pub struct DispatchTable<N: Real> {
    contact: PairTable<ContactRoutine<N>>,
    closest: PairTable<ClosestPointsRoutine<N>>,
    convex_contact: Option<ContactRoutine<N>>,
    convex_closest: Option<ClosestPointsRoutine<N>>,
    /// Per kind index: a contact routine of that kind (as `a`) against any
    /// convex shape (as `b`).
    with_any_convex: Vec<Option<ContactRoutine<N>>>,
    /// Per kind index: a closest-points routine of that kind (as `a`)
    /// against any convex shape (as `b`).
    closest_with_any_convex: Vec<Option<ClosestPointsRoutine<N>>>,
}

impl<N: Real> Default for DispatchTable<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<N: Real> fmt::Debug for DispatchTable<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DispatchTable")
            .field("contact_pairs", &self.contact.pairs().collect::<Vec<_>>())
            .field("closest_points_pairs", &self.closest.pairs().collect::<Vec<_>>())
            .field("convex_fallback", &self.convex_contact.is_some())
            .field(
                "with_any_convex",
                &(0..self.with_any_convex.len())
                    .filter(|&k| self.with_any_convex[k].is_some())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// The concrete shapes behind `a` and `b`, or `Unsupported` when a shape
/// reports a kind that is not its own type's.
fn downcast_pair<'s, N: Real, A: Shape<N>, B: Shape<N>>(
    a: &'s dyn Shape<N>,
    b: &'s dyn Shape<N>,
) -> Result<(&'s A, &'s B), GeomError> {
    let (any_a, any_b): (&dyn Any, &dyn Any) = (a, b);
    match (any_a.downcast_ref::<A>(), any_b.downcast_ref::<B>()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(GeomError::Unsupported {
            a: a.kind(),
            b: b.kind(),
        }),
    }
}

/// Whether every value is finite.
fn all_finite<'a, N: Real>(values: impl IntoIterator<Item = &'a N>) -> bool {
    values.into_iter().all(|v| v.is_finite())
}

/// `pose` checked for the routines: every number finite (else
/// [`GeomError::NonFinite`] naming `input`), and the rotation's quaternion
/// renormalised when its squared length is off 1 by more than 16ε (an
/// orientation that drifted under integration, or one normalised from
/// subnormal components): the routines rotate with it as if it were a unit
/// quaternion. A unit quaternion passes unchanged, bit for bit.
// Inlined: returned by value through memory, the checked pose was read
// back at another width (a store-forwarding stall), a third of a
// sphere–sphere contact's time (`docs/benchmarks.md`).
#[inline(always)]
fn checked_pose<N: Real>(pose: &Isometry3<N>, input: &'static str) -> Result<Isometry3<N>, GeomError> {
    let finite = pose.translation.vector.iter().all(|v| v.is_finite())
        && pose.rotation.coords.iter().all(|v| v.is_finite());
    if !finite {
        return Err(GeomError::NonFinite { input });
    }
    let squared = pose.rotation.coords.norm_squared();
    let drift = N::default_epsilon() * nalgebra::convert::<f64, N>(16.0);
    if (squared - N::one()).abs() <= drift {
        return Ok(*pose);
    }
    // Scaled by the largest component first, so that neither tiny nor huge
    // components lose the direction to underflow or overflow.
    let largest = pose.rotation.coords.amax();
    let scaled = pose.rotation.coords / largest;
    let unit = scaled / scaled.norm();
    if largest > N::zero() && unit.iter().all(|v| v.is_finite()) {
        let rotation = nalgebra::UnitQuaternion::new_unchecked(nalgebra::Quaternion::from(unit));
        Ok(Isometry3::from_parts(pose.translation, rotation))
    } else {
        Err(GeomError::NonFinite { input })
    }
}

#[inline(always)]
fn check_margin<N: Real>(value: N, parameter: &'static str) -> Result<(), GeomError> {
    // `!(value >= 0)` also rejects NaN; +inf is allowed (no limit).
    if value >= N::zero() {
        Ok(())
    } else {
        Err(GeomError::invalid(
            "pair query",
            parameter,
            value,
            "must be >= 0 (inf allowed)",
        ))
    }
}

/// The origin a pair's routines work about, when the pair lies far from
/// the world's origin compared with the distance between the two poses:
/// the midpoint of the two translations. Routines then see translations of
/// the size of the pair's spread (the differences are exact while the two
/// lie within a factor of two of the midpoint, Sterbenz), so normals and
/// depths keep the precision of the shapes' size rather than of their
/// coordinates; the points are moved back by it, one rounding each. The
/// midpoint does not depend on the order of the shapes, so the two orders
/// still agree bit for bit. `None` near the origin: the poses pass as given.
#[inline(always)]
fn pair_origin<N: Real>(pose_a: &Isometry3<N>, pose_b: &Isometry3<N>) -> Option<Vector3<N>> {
    let (ta, tb) = (&pose_a.translation.vector, &pose_b.translation.vector);
    let half = lit::<N>(0.5);
    // Halves first: the sum of two translations near the float limit
    // would overflow.
    let origin = ta * half + tb * half;
    let spread = (ta - tb).amax();
    (origin.amax() > spread * lit(4.0)).then_some(origin)
}

/// `pose` with `origin` taken off its translation.
#[inline(always)]
fn moved_to<N: Real>(pose: &Isometry3<N>, origin: &Vector3<N>) -> Isometry3<N> {
    Isometry3::from_parts((pose.translation.vector - origin).into(), pose.rotation)
}

impl<N: Real> DispatchTable<N> {
    /// An empty table: no pair routines and no convex fallback.
    pub fn new() -> Self {
        DispatchTable {
            contact: PairTable::new(),
            closest: PairTable::new(),
            convex_contact: None,
            convex_closest: None,
            with_any_convex: Vec::new(),
            closest_with_any_convex: Vec::new(),
        }
    }

    /// Registers a typed contact routine for shapes of kinds `kind_a` (type
    /// `A`) and `kind_b` (type `B`); it also serves `(kind_b, kind_a)`.
    /// Replaces any routine registered for the pair before.
    ///
    /// The routine appends manifolds to `out` (which the table has cleared)
    /// with normals from `a` to `b`, keeping points whose depth is at least
    /// `-margin`.
    pub fn register_contact<A, B, F>(&mut self, kind_a: ShapeKind, kind_b: ShapeKind, routine: F)
    where
        A: Shape<N>,
        B: Shape<N>,
        F: Fn(&A, &Isometry3<N>, &B, &Isometry3<N>, N, &mut ContactManifolds<N>) + Send + Sync + 'static,
    {
        self.register_contact_dyn(kind_a, kind_b, move |a, pose_a, b, pose_b, margin, out| {
            let (a, b) = downcast_pair::<N, A, B>(a, b)?;
            routine(a, pose_a, b, pose_b, margin, out);
            Ok(())
        });
    }

    /// [`DispatchTable::register_contact`] for a routine that takes the
    /// shapes untyped (for routines that serve several kinds, such as
    /// "any convex shape against a heightfield").
    pub fn register_contact_dyn<F>(&mut self, kind_a: ShapeKind, kind_b: ShapeKind, routine: F)
    where
        F: ContactFn<N>,
    {
        self.contact.insert(kind_a, kind_b, Arc::new(routine));
    }

    /// Registers a typed closest-points routine (see
    /// [`DispatchTable::closest_points`] for the contract); it also serves
    /// `(kind_b, kind_a)`.
    pub fn register_closest_points<A, B, F>(&mut self, kind_a: ShapeKind, kind_b: ShapeKind, routine: F)
    where
        A: Shape<N>,
        B: Shape<N>,
        F: Fn(&A, &Isometry3<N>, &B, &Isometry3<N>, N) -> ClosestPoints<N> + Send + Sync + 'static,
    {
        self.register_closest_points_dyn(kind_a, kind_b, move |a, pose_a, b, pose_b, max_distance| {
            let (a, b) = downcast_pair::<N, A, B>(a, b)?;
            Ok(routine(a, pose_a, b, pose_b, max_distance))
        });
    }

    /// [`DispatchTable::register_closest_points`] for an untyped routine.
    pub fn register_closest_points_dyn<F>(&mut self, kind_a: ShapeKind, kind_b: ShapeKind, routine: F)
    where
        F: ClosestPointsFn<N>,
    {
        self.closest.insert(kind_a, kind_b, Arc::new(routine));
    }

    /// Installs the routines used for a pair of convex shapes that has no
    /// registered routine (GJK/EPA in `geom-prims`). They may still answer
    /// `Unsupported`, for a convex shape without a support function.
    pub fn set_convex_fallback<C, D>(&mut self, contact: C, closest_points: D)
    where
        C: ContactFn<N>,
        D: ClosestPointsFn<N>,
    {
        self.convex_contact = Some(Arc::new(contact));
        self.convex_closest = Some(Arc::new(closest_points));
    }

    /// Registers a contact routine of shapes of `kind` (as `a`) against
    /// any convex shape (as `b`), used when the pair has no routine of its
    /// own; it also serves the reversed order. A routine for the exact pair
    /// takes precedence.
    pub fn register_contact_with_any_convex<F>(&mut self, kind: ShapeKind, routine: F)
    where
        F: ContactFn<N>,
    {
        let index = kind.index();
        if self.with_any_convex.len() <= index {
            self.with_any_convex.resize(index + 1, None);
        }
        self.with_any_convex[index] = Some(Arc::new(routine));
    }

    /// Registers a closest-points routine of shapes of `kind` (as `a`)
    /// against any convex shape (as `b`), used when the pair has no
    /// routine of its own; it also serves the reversed order. Without one,
    /// such a pair is answered through its contact routine.
    pub fn register_closest_points_with_any_convex<F>(&mut self, kind: ShapeKind, routine: F)
    where
        F: ClosestPointsFn<N>,
    {
        let index = kind.index();
        if self.closest_with_any_convex.len() <= index {
            self.closest_with_any_convex.resize(index + 1, None);
        }
        self.closest_with_any_convex[index] = Some(Arc::new(routine));
    }

    /// The closest-points routine of `kind` against any convex shape, if
    /// registered.
    fn closest_with_any_convex(&self, kind: ShapeKind) -> Option<&ClosestPointsRoutine<N>> {
        self.closest_with_any_convex
            .get(kind.index())
            .and_then(Option::as_ref)
    }

    /// The routine of `kind` against any convex shape, if registered.
    fn with_any_convex(&self, kind: ShapeKind) -> Option<&ContactRoutine<N>> {
        self.with_any_convex.get(kind.index()).and_then(Option::as_ref)
    }

    /// Whether a routine would answer a contact query on these two shapes.
    pub fn supports_contact(&self, a: &dyn Shape<N>, b: &dyn Shape<N>) -> bool {
        self.contact.get(a.kind(), b.kind()).is_some()
            || (self.convex_contact.is_some() && a.is_convex() && b.is_convex())
            || (b.is_convex() && self.with_any_convex(a.kind()).is_some())
            || (a.is_convex() && self.with_any_convex(b.kind()).is_some())
    }

    /// Contact manifolds between `a` at `pose_a` and `b` at `pose_b`:
    /// clears `out`, then fills it with manifolds whose normals point from
    /// `a` to `b` and whose points have depth `>= -margin` (positive depth
    /// is overlap). Once `out` is warm, built-in routines allocate nothing.
    ///
    /// A pose whose quaternion has drifted from unit length (|q|² off 1 by
    /// more than 16ε) is renormalised before any routine sees it; a unit
    /// one is used as given.
    ///
    /// Errors: [`GeomError::NonFinite`] for a NaN or infinite pose (or a
    /// zero quaternion), or when the answer would not be finite (shapes
    /// near the overflow limit of the precision); [`GeomError::InvalidParameter`] for a negative
    /// or NaN margin; [`GeomError::Unsupported`] when no routine applies.
    pub fn contact(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        margin: N,
        out: &mut ContactManifolds<N>,
    ) -> Result<(), GeomError> {
        out.clear();
        self.append_contacts(a, pose_a, b, pose_b, margin, out)
    }

    /// [`DispatchTable::contact`] without clearing `out`: the manifolds are
    /// appended after those already held (for routines that collect the
    /// contacts of many parts, such as a heightfield's triangles). On an
    /// error nothing is appended.
    pub fn append_contacts(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        margin: N,
        out: &mut ContactManifolds<N>,
    ) -> Result<(), GeomError> {
        self.append_contacts_with(
            a,
            pose_a,
            b,
            pose_b,
            margin,
            out,
            |a, pose_a, b, pose_b, margin, out| self.contact_routine(a, pose_a, b, pose_b, margin, out),
        )
    }

    /// Whether a contact routine is registered for the pair of kinds
    /// (either order): the table answers such a pair with it before any
    /// fallback.
    pub fn has_contact_routine(&self, kind_a: ShapeKind, kind_b: ShapeKind) -> bool {
        self.contact.get(kind_a, kind_b).is_some()
    }

    /// [`DispatchTable::contact`] through `routine` in place of the
    /// table's choice: the same checks of the inputs (a pose's rotation
    /// renormalised), the same shift of a pair far from the origin to its
    /// midpoint and back, the same refusal of an answer that overflowed.
    /// How a caller runs a routine of its own choosing, such as one that
    /// keeps data between frames, exactly as the table runs a registered
    /// one.
    #[allow(clippy::too_many_arguments)]
    pub fn contact_with(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        margin: N,
        out: &mut ContactManifolds<N>,
        routine: impl FnOnce(
            &dyn Shape<N>,
            &Isometry3<N>,
            &dyn Shape<N>,
            &Isometry3<N>,
            N,
            &mut ContactManifolds<N>,
        ) -> Result<(), GeomError>,
    ) -> Result<(), GeomError> {
        out.clear();
        self.append_contacts_with(a, pose_a, b, pose_b, margin, out, routine)
    }

    /// The table's routine for the pair (see the lookup order in the
    /// [module documentation](self)), run on checked inputs.
    fn contact_routine(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        margin: N,
        out: &mut ContactManifolds<N>,
    ) -> Result<(), GeomError> {
        let first = out.len();
        let swapped = |routine: &ContactRoutine<N>, out: &mut ContactManifolds<N>| {
            let answer = routine(b, pose_b, a, pose_a, margin, out);
            out.swap_roles_from(first);
            answer
        };
        if let Some(entry) = self.contact.get(a.kind(), b.kind()) {
            if entry.swap {
                swapped(&entry.routine, out)
            } else {
                (entry.routine)(a, pose_a, b, pose_b, margin, out)
            }
        } else if let Some(fallback) = self
            .convex_contact
            .as_ref()
            .filter(|_| a.is_convex() && b.is_convex())
        {
            fallback(a, pose_a, b, pose_b, margin, out)
        } else if let Some(routine) = self.with_any_convex(a.kind()).filter(|_| b.is_convex()) {
            routine(a, pose_a, b, pose_b, margin, out)
        } else if let Some(routine) = self.with_any_convex(b.kind()).filter(|_| a.is_convex()) {
            swapped(routine, out)
        } else {
            Err(GeomError::Unsupported {
                a: a.kind(),
                b: b.kind(),
            })
        }
    }

    /// [`DispatchTable::append_contacts`] through `routine`.
    #[allow(clippy::too_many_arguments)]
    fn append_contacts_with(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        margin: N,
        out: &mut ContactManifolds<N>,
        routine: impl FnOnce(
            &dyn Shape<N>,
            &Isometry3<N>,
            &dyn Shape<N>,
            &Isometry3<N>,
            N,
            &mut ContactManifolds<N>,
        ) -> Result<(), GeomError>,
    ) -> Result<(), GeomError> {
        let pose_a = checked_pose(pose_a, "pose_a")?;
        let pose_b = checked_pose(pose_b, "pose_b")?;
        check_margin(margin, "margin")?;
        let origin = pair_origin(&pose_a, &pose_b);
        let (pose_a, pose_b) = match &origin {
            Some(origin) => (&moved_to(&pose_a, origin), &moved_to(&pose_b, origin)),
            None => (&pose_a, &pose_b),
        };
        let first = out.len();
        let answer = routine(a, pose_a, b, pose_b, margin, out);
        // Inputs near the overflow limit (radii of 1e308) can round an
        // answer to infinity: refuse it rather than hand out inf or NaN.
        let answer = answer.and_then(|()| {
            let finite = out.as_slice()[first..].iter().all(|manifold| {
                all_finite(manifold.normal.iter())
                    && manifold.points.iter().all(|point| {
                        point.depth.is_finite()
                            && all_finite(point.point_a.iter())
                            && all_finite(point.point_b.iter())
                    })
            });
            if finite {
                Ok(())
            } else {
                Err(GeomError::NonFinite {
                    input: "the contact answer (inputs too large for this precision)",
                })
            }
        });
        match (&answer, origin) {
            (Err(_), _) => out.truncate(first),
            (Ok(()), Some(origin)) => {
                for manifold in &mut out.as_mut_slice()[first..] {
                    for point in &mut manifold.points {
                        point.point_a += origin;
                        point.point_b += origin;
                    }
                }
            }
            (Ok(()), None) => {}
        }
        answer
    }

    /// The closest points of `a` and `b` when they are apart by at most
    /// `max_distance` (`+inf` for no limit); `Intersecting` when they
    /// overlap or touch.
    ///
    /// Shapes with only a contact routine are answered through it, with
    /// `max_distance` as margin and a scratch buffer allocated per call;
    /// when that routine finds convex shapes apart within the margin, the
    /// points come from the convex fallback (GJK), since a contact
    /// routine's separation can be a bound rather than the distance.
    /// Errors as for [`DispatchTable::contact`].
    pub fn closest_points(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        max_distance: N,
    ) -> Result<ClosestPoints<N>, GeomError> {
        let (answer, origin) = self.closest_points_about_origin(a, pose_a, b, pose_b, max_distance)?;
        let answer = match (answer, origin) {
            (ClosestPoints::WithinMargin { point_a, point_b }, Some(origin)) => ClosestPoints::WithinMargin {
                point_a: point_a + origin,
                point_b: point_b + origin,
            },
            (answer, _) => answer,
        };
        match answer {
            ClosestPoints::WithinMargin { point_a, point_b }
                if !(all_finite(point_a.iter()) && all_finite(point_b.iter())) =>
            {
                Err(GeomError::NonFinite {
                    input: "the closest points (inputs too large for this precision)",
                })
            }
            _ => Ok(answer),
        }
    }

    /// [`DispatchTable::closest_points`] about the pair's origin (see
    /// `pair_origin`), before the points are moved back by it and checked
    /// to be finite: the answer and the origin, if any.
    fn closest_points_about_origin(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        max_distance: N,
    ) -> Result<(ClosestPoints<N>, Option<Vector3<N>>), GeomError> {
        // The same checks and move as `append_contacts`, written out: a
        // helper returning the moved poses by value measured 4 ns slower
        // on a sphere–sphere contact (46 → 49 ns, x86-64-v3).
        let pose_a = checked_pose(pose_a, "pose_a")?;
        let pose_b = checked_pose(pose_b, "pose_b")?;
        check_margin(max_distance, "max_distance")?;
        let origin = pair_origin(&pose_a, &pose_b);
        let (pose_a, pose_b) = match &origin {
            Some(origin) => (&moved_to(&pose_a, origin), &moved_to(&pose_b, origin)),
            None => (&pose_a, &pose_b),
        };
        self.closest_points_unchecked(a, pose_a, b, pose_b, max_distance)
            .map(|answer| (answer, origin))
    }

    /// The closest-points routine for checked poses.
    fn closest_points_unchecked(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        max_distance: N,
    ) -> Result<ClosestPoints<N>, GeomError> {
        if let Some(entry) = self.closest.get(a.kind(), b.kind()) {
            return if entry.swap {
                (entry.routine)(b, pose_b, a, pose_a, max_distance).map(ClosestPoints::swapped)
            } else {
                (entry.routine)(a, pose_a, b, pose_b, max_distance)
            };
        }
        if let Some(fallback) = &self.convex_closest
            && a.is_convex()
            && b.is_convex()
            && self.contact.get(a.kind(), b.kind()).is_none()
        {
            return fallback(a, pose_a, b, pose_b, max_distance);
        }
        if let Some(routine) = self.closest_with_any_convex(a.kind()).filter(|_| b.is_convex()) {
            return routine(a, pose_a, b, pose_b, max_distance);
        }
        if let Some(routine) = self.closest_with_any_convex(b.kind()).filter(|_| a.is_convex()) {
            return routine(b, pose_b, a, pose_a, max_distance).map(ClosestPoints::swapped);
        }
        let mut scratch = ContactManifolds::new();
        self.contact(a, pose_a, b, pose_b, max_distance, &mut scratch)?;
        let deepest = scratch
            .points()
            .map(|(_, point)| point)
            .reduce(|best, p| if p.depth > best.depth { p } else { best });
        Ok(match deepest {
            Some(point) if point.depth >= N::zero() => ClosestPoints::Intersecting,
            // Apart: a contact routine's separation may be a bound rather
            // than the distance (the SAT routines report the largest axis
            // separation), so convex pairs take the exact answer of the
            // convex fallback where it applies (not to half-spaces, which
            // have no support point).
            Some(_)
                if a.is_convex()
                    && b.is_convex()
                    && let Some(Ok(answer)) = self
                        .convex_closest
                        .as_ref()
                        .map(|fallback| fallback(a, pose_a, b, pose_b, max_distance)) =>
            {
                answer
            }
            // A contact routine's points must honour the margin too: near
            // the float limit (poses at 1e38) the depth and the points of a
            // heightfield contact were rounded apart, the points farther
            // than `max_distance`. Such an answer is not within reach.
            Some(point)
                if crate::ray::length_without_overflow(&(point.point_b - point.point_a))
                    > max_distance * (N::one() + N::default_epsilon() * nalgebra::convert::<f64, N>(8.0)) =>
            {
                ClosestPoints::Disjoint
            }
            Some(point) => ClosestPoints::WithinMargin {
                point_a: point.point_a,
                point_b: point.point_b,
            },
            None => ClosestPoints::Disjoint,
        })
    }

    /// The distance between `a` and `b`: `0` when they overlap or touch.
    /// Errors as for [`DispatchTable::contact`].
    pub fn distance(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
    ) -> Result<N, GeomError> {
        // The points about the pair's origin: their difference keeps the
        // precision of the pair's size.
        let (answer, _) = self.closest_points_about_origin(a, pose_a, b, pose_b, lit(f64::INFINITY))?;
        match answer {
            ClosestPoints::Intersecting => Ok(N::zero()),
            ClosestPoints::WithinMargin { point_a, point_b } => {
                let distance = (point_b - point_a).norm();
                if distance.is_finite() {
                    Ok(distance)
                } else {
                    Err(GeomError::NonFinite {
                        input: "the closest points (inputs too large for this precision)",
                    })
                }
            }
            ClosestPoints::Disjoint => Ok(lit(f64::INFINITY)),
        }
    }

    /// Whether `a` and `b` overlap or touch. Errors as for
    /// [`DispatchTable::contact`].
    pub fn intersects(
        &self,
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
    ) -> Result<bool, GeomError> {
        Ok(match self.closest_points(a, pose_a, b, pose_b, N::zero())? {
            ClosestPoints::Intersecting => true,
            ClosestPoints::WithinMargin { point_a, point_b } => point_a == point_b,
            ClosestPoints::Disjoint => false,
        })
    }
}

#[cfg(test)]
mod tests;
