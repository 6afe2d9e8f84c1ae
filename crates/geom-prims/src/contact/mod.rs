//! Analytic contact routines for pairs of primitive shapes, one file per
//! pair family, all with the signature that
//! [`DispatchTable::register_contact`] expects:
//!
//! ```text
//! contact_<a>_<b>(a, pose_a, b, pose_b, margin, out)
//! ```
//!
//! Each appends manifolds to `out` following
//! [`geom_core::contact`]'s conventions: the normal is a unit vector from
//! `a` to `b`, `depth > 0` is overlap, points with `depth >= -margin` are
//! kept, `point_a` lies on `a`'s surface and `point_b` on `b`'s, in world
//! space. At most four points per manifold. Once `out` is warm nothing is
//! allocated.
//!
//! - [`round`]: sphere–sphere, sphere–capsule, capsule–capsule and the
//!   segment against each of them and itself (closest points of the core
//!   segments);
//! - [`cuboid`]: sphere–box, capsule–box;
//! - [`cuboid_cuboid`]: box–box (separating axes, then face clipping);
//! - [`half_space`]: every bounded convex shape against a half-space;
//! - [`triangle`]: sphere, capsule, segment and box against a triangle;
//! - [`frustum`]: cylinder and cone against a triangle or a box (separating
//!   axes over the faces of their Minkowski difference, closed-form
//!   candidate normals for the rims and sides).
//!
//! Feature ids of a box ([`Cuboid`]): faces `Face(0..6)` are
//! `-x, +x, -y, +y, -z, +z` (`2·axis + 1` for the positive side); the
//! vertex with signs `(sx, sy, sz)` is `Vertex(bx + 2·by + 4·bz)` with
//! `b = 1` on the positive side; the edge along axis `k` whose other two
//! coordinates, taken in the order `k+1, k+2 (mod 3)`, have signs
//! `(s1, s2)` is `Edge(4·k + b1 + 2·b2)`.
//!
//! Pairs of the same kind (sphere–sphere, capsule–capsule, box–box) are
//! computed in a canonical order of the two inputs (by pose, then shape
//! parameters), so that `contact(a, b)` mirrors `contact(b, a)` exactly,
//! including every tie-break and fixed fallback normal.

pub mod cuboid;
pub mod cuboid_cuboid;
pub mod frustum;
pub mod half_space;
pub(crate) mod manifold;
mod polytope;
pub mod round;
pub mod sphere;
mod tester;
pub mod triangle;

#[cfg(test)]
mod tests;

pub use cuboid::{
    closest_points_capsule_cuboid, closest_points_sphere_cuboid, contact_capsule_cuboid,
    contact_sphere_cuboid,
};
pub use cuboid_cuboid::{closest_points_cuboid_cuboid, contact_cuboid_cuboid};
pub use frustum::{
    closest_points_cone_capsule, closest_points_cone_cuboid, closest_points_cone_triangle,
    closest_points_cylinder_capsule, closest_points_cylinder_cuboid, closest_points_cylinder_triangle,
    contact_cone_capsule, contact_cone_cuboid, contact_cone_triangle, contact_cylinder_capsule,
    contact_cylinder_cuboid, contact_cylinder_triangle,
};
pub use half_space::{
    contact_capsule_half_space, contact_cone_half_space, contact_cuboid_half_space,
    contact_cylinder_half_space, contact_ellipsoid_half_space, contact_hull_half_space,
    contact_segment_half_space, contact_sphere_half_space, contact_triangle_half_space,
};
pub use round::{
    closest_points_capsule_capsule, closest_points_capsule_segment, closest_points_segment_segment,
    closest_points_sphere_capsule, closest_points_sphere_segment, closest_points_sphere_sphere,
    contact_capsule_capsule, contact_capsule_segment, contact_segment_segment, contact_sphere_capsule,
    contact_sphere_segment, contact_sphere_sphere,
};
pub use sphere::{closest_points_sphere_convex, contact_sphere_convex};
pub use tester::TriangleTester;
pub use triangle::{
    closest_points_capsule_triangle, closest_points_cuboid_triangle, closest_points_segment_triangle,
    closest_points_sphere_triangle, contact_capsule_triangle, contact_cuboid_triangle,
    contact_segment_triangle, contact_sphere_triangle,
};

/// The contact points of two touching features (see
/// [`SupportFeature`](geom_core::SupportFeature)), in one frame:
/// `feature_a` extreme along the unit `normal` (from `a` to `b`),
/// `feature_b` along `−normal`, overlapping by `depth` along it (from the
/// shapes' support functions). A face is the reference and the other
/// feature is clipped to it (Sutherland–Hodgman); two edges give their
/// crossing or the ends of their overlap; a point is lifted straight along
/// `normal` onto the other feature. Each pair's depth is its own, measured
/// along `normal`; pairs deeper than `-margin` are handed to `each` (at
/// most 16, unreduced, `FeatureId::Unknown`). Nothing when the features do
/// not overlap seen along `normal`. Allocates nothing.
pub fn feature_contacts<N: geom_core::Real>(
    feature_a: &geom_core::SupportFeature<N>,
    feature_b: &geom_core::SupportFeature<N>,
    normal: &nalgebra::Vector3<N>,
    depth: N,
    margin: N,
    mut each: impl FnMut(geom_core::ContactPoint<N>),
) {
    manifold::clip_features(feature_a, feature_b, normal, depth, margin)
        .as_slice()
        .iter()
        .for_each(|p| each(*p));
}

use geom_core::{ContactManifolds, ContactPoint, DispatchTable, FeatureId, Real, ShapeKind, lit};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};

use crate::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, HalfSpace, Segment, Sphere, Triangle};

/// Registers every routine of this module with `table`, for the kinds of
/// its two shapes (the table answers the reversed order itself): contact
/// routines for all pairs above, and closest-points routines for the round
/// pairs and sphere/capsule–box.
pub fn register_pairs<N: Real>(table: &mut DispatchTable<N>) {
    use ShapeKind as K;
    table.register_contact::<Sphere<N>, Sphere<N>, _>(K::Sphere, K::Sphere, contact_sphere_sphere);
    table.register_contact::<Sphere<N>, Capsule<N>, _>(K::Sphere, K::Capsule, contact_sphere_capsule);
    table.register_contact::<Capsule<N>, Capsule<N>, _>(K::Capsule, K::Capsule, contact_capsule_capsule);
    table.register_contact::<Sphere<N>, Cuboid<N>, _>(K::Sphere, K::Cuboid, contact_sphere_cuboid);
    table.register_contact::<Capsule<N>, Cuboid<N>, _>(K::Capsule, K::Cuboid, contact_capsule_cuboid);
    table.register_contact::<Cuboid<N>, Cuboid<N>, _>(K::Cuboid, K::Cuboid, contact_cuboid_cuboid);

    table.register_contact::<Sphere<N>, Segment<N>, _>(K::Sphere, K::Segment, contact_sphere_segment);
    table.register_contact::<Capsule<N>, Segment<N>, _>(K::Capsule, K::Segment, contact_capsule_segment);
    table.register_contact::<Segment<N>, Segment<N>, _>(K::Segment, K::Segment, contact_segment_segment);

    table.register_contact::<Sphere<N>, HalfSpace<N>, _>(K::Sphere, K::HalfSpace, contact_sphere_half_space);
    table.register_contact::<Capsule<N>, HalfSpace<N>, _>(
        K::Capsule,
        K::HalfSpace,
        contact_capsule_half_space,
    );
    table.register_contact::<Cuboid<N>, HalfSpace<N>, _>(K::Cuboid, K::HalfSpace, contact_cuboid_half_space);
    table.register_contact::<Cylinder<N>, HalfSpace<N>, _>(
        K::Cylinder,
        K::HalfSpace,
        contact_cylinder_half_space,
    );
    table.register_contact::<Cone<N>, HalfSpace<N>, _>(K::Cone, K::HalfSpace, contact_cone_half_space);
    table.register_contact::<Ellipsoid<N>, HalfSpace<N>, _>(
        K::Ellipsoid,
        K::HalfSpace,
        contact_ellipsoid_half_space,
    );
    table.register_contact::<Triangle<N>, HalfSpace<N>, _>(
        K::Triangle,
        K::HalfSpace,
        contact_triangle_half_space,
    );
    table.register_contact::<Segment<N>, HalfSpace<N>, _>(
        K::Segment,
        K::HalfSpace,
        contact_segment_half_space,
    );
    table.register_contact::<crate::ConvexHull<N>, HalfSpace<N>, _>(
        K::ConvexHull,
        K::HalfSpace,
        contact_hull_half_space,
    );

    table.register_contact::<Sphere<N>, Triangle<N>, _>(K::Sphere, K::Triangle, contact_sphere_triangle);
    table.register_contact::<Capsule<N>, Triangle<N>, _>(K::Capsule, K::Triangle, contact_capsule_triangle);
    table.register_contact::<Cuboid<N>, Triangle<N>, _>(K::Cuboid, K::Triangle, contact_cuboid_triangle);
    table.register_contact::<Cylinder<N>, Triangle<N>, _>(
        K::Cylinder,
        K::Triangle,
        contact_cylinder_triangle,
    );
    table.register_contact::<Cone<N>, Triangle<N>, _>(K::Cone, K::Triangle, contact_cone_triangle);
    table.register_contact::<Cylinder<N>, Cuboid<N>, _>(K::Cylinder, K::Cuboid, contact_cylinder_cuboid);
    table.register_contact::<Cone<N>, Cuboid<N>, _>(K::Cone, K::Cuboid, contact_cone_cuboid);
    table.register_contact::<Cylinder<N>, Capsule<N>, _>(K::Cylinder, K::Capsule, contact_cylinder_capsule);
    table.register_contact::<Cone<N>, Capsule<N>, _>(K::Cone, K::Capsule, contact_cone_capsule);
    table.register_contact::<Segment<N>, Triangle<N>, _>(K::Segment, K::Triangle, contact_segment_triangle);

    // A sphere against the curved shapes: the centre's exact projection.
    for kind in [K::Cylinder, K::Cone, K::Ellipsoid] {
        table.register_contact_dyn(K::Sphere, kind, sphere::contact_sphere_convex::<N>);
        table.register_closest_points_dyn(K::Sphere, kind, sphere::closest_points_sphere_convex::<N>);
    }
    table.register_closest_points::<Sphere<N>, Sphere<N>, _>(
        K::Sphere,
        K::Sphere,
        closest_points_sphere_sphere,
    );
    table.register_closest_points::<Sphere<N>, Capsule<N>, _>(
        K::Sphere,
        K::Capsule,
        closest_points_sphere_capsule,
    );
    table.register_closest_points::<Capsule<N>, Capsule<N>, _>(
        K::Capsule,
        K::Capsule,
        closest_points_capsule_capsule,
    );
    table.register_closest_points::<Sphere<N>, Segment<N>, _>(
        K::Sphere,
        K::Segment,
        closest_points_sphere_segment,
    );
    table.register_closest_points::<Capsule<N>, Segment<N>, _>(
        K::Capsule,
        K::Segment,
        closest_points_capsule_segment,
    );
    table.register_closest_points::<Segment<N>, Segment<N>, _>(
        K::Segment,
        K::Segment,
        closest_points_segment_segment,
    );
    table.register_closest_points::<Sphere<N>, Triangle<N>, _>(
        K::Sphere,
        K::Triangle,
        closest_points_sphere_triangle,
    );
    table.register_closest_points::<Capsule<N>, Triangle<N>, _>(
        K::Capsule,
        K::Triangle,
        closest_points_capsule_triangle,
    );
    table.register_closest_points::<Segment<N>, Triangle<N>, _>(
        K::Segment,
        K::Triangle,
        closest_points_segment_triangle,
    );
    table.register_closest_points::<Cuboid<N>, Cuboid<N>, _>(
        K::Cuboid,
        K::Cuboid,
        closest_points_cuboid_cuboid,
    );
    table.register_closest_points::<Cuboid<N>, Triangle<N>, _>(
        K::Cuboid,
        K::Triangle,
        closest_points_cuboid_triangle,
    );
    table.register_closest_points::<Cylinder<N>, Triangle<N>, _>(
        K::Cylinder,
        K::Triangle,
        closest_points_cylinder_triangle,
    );
    table.register_closest_points::<Cone<N>, Triangle<N>, _>(
        K::Cone,
        K::Triangle,
        closest_points_cone_triangle,
    );
    table.register_closest_points::<Cylinder<N>, Cuboid<N>, _>(
        K::Cylinder,
        K::Cuboid,
        closest_points_cylinder_cuboid,
    );
    table.register_closest_points::<Cone<N>, Cuboid<N>, _>(K::Cone, K::Cuboid, closest_points_cone_cuboid);
    table.register_closest_points::<Cylinder<N>, Capsule<N>, _>(
        K::Cylinder,
        K::Capsule,
        closest_points_cylinder_capsule,
    );
    table.register_closest_points::<Cone<N>, Capsule<N>, _>(K::Cone, K::Capsule, closest_points_cone_capsule);
    table.register_closest_points::<Sphere<N>, Cuboid<N>, _>(
        K::Sphere,
        K::Cuboid,
        closest_points_sphere_cuboid,
    );
    table.register_closest_points::<Capsule<N>, Cuboid<N>, _>(
        K::Capsule,
        K::Cuboid,
        closest_points_capsule_cuboid,
    );
}

/// Where a shape sits in a [`WorkingFrame`]: turned by `rotation` (`None`:
/// the frame's axes are its own) and moved by `offset + offset_low` (zero
/// for the shape the frame's origin is at).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placement<N: Real> {
    pub rotation: Option<UnitQuaternion<N>>,
    pub offset: Vector3<N>,
    /// The rounding of `offset`: the origins' difference is exactly
    /// `offset + offset_low` (before turning into the frame's axes).
    pub offset_low: Vector3<N>,
}

impl<N: Real> Placement<N> {
    /// The placement as a pose (without the low part).
    pub fn pose(&self) -> Isometry3<N> {
        Isometry3::from_parts(
            Translation3::from(self.offset),
            self.rotation.unwrap_or_else(UnitQuaternion::identity),
        )
    }
}

/// The frame a pair routine computes in: `a`'s own when the two shapes are
/// of a size; when one reaches more than [`LARGER_FRAME_RATIO`] times the
/// other, the larger one's axes at the smaller one's origin. The large
/// shape's points then enter unrotated, and its faces beside the small
/// shape come out small and exact (its far origin's offset, taken exactly
/// in two parts, cancels against them): a box of half extent 5000 under a
/// small shape keeps the gap's bits, which in its own frame or the small
/// shape's would carry `ε·5000`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WorkingFrame<N: Real> {
    /// The frame to the world.
    pub to_world: Isometry3<N>,
    pub a: Placement<N>,
    pub b: Placement<N>,
}

/// See [`WorkingFrame`].
pub(crate) const LARGER_FRAME_RATIO: f64 = 8.0;

impl<N: Real> WorkingFrame<N> {
    /// The frame for `a` and `b`, of reaches (largest local coordinate)
    /// `reach_a` and `reach_b`.
    pub fn new(pose_a: &Isometry3<N>, reach_a: N, pose_b: &Isometry3<N>, reach_b: N) -> Self {
        let ratio = lit::<N>(LARGER_FRAME_RATIO);
        let (larger_a, larger_b) = (reach_a > reach_b * ratio, reach_b > reach_a * ratio);
        let axes = if larger_b {
            pose_b.rotation
        } else {
            pose_a.rotation
        };
        let origin = if larger_a {
            pose_b.translation
        } else {
            pose_a.translation
        };
        let frame = geom_core::PoseMatrix::new(&Isometry3::from_parts(origin, axes));
        let to_local = |v: Vector3<N>| frame.vector_to_local(&v);
        // Subtracted exactly before turning: a pair far from the origin
        // keeps the bits of its relative placement.
        let offset = |to: &Isometry3<N>, from: &Isometry3<N>| {
            let (mut high, mut low) = (Vector3::zeros(), Vector3::zeros());
            for k in 0..3 {
                (high[k], low[k]) =
                    geom_core::exact::two_sum(to.translation.vector[k], -from.translation.vector[k]);
            }
            (to_local(high), to_local(low))
        };
        let place = |pose: &Isometry3<N>, same_axes: bool, moved: bool, from: &Isometry3<N>| {
            let (offset, offset_low) = if moved {
                offset(pose, from)
            } else {
                (Vector3::zeros(), Vector3::zeros())
            };
            Placement {
                rotation: (!same_axes).then(|| axes.inverse() * pose.rotation),
                offset,
                offset_low,
            }
        };
        WorkingFrame {
            to_world: Isometry3::from_parts(origin, axes),
            a: place(pose_a, !larger_b, larger_a, pose_b),
            b: place(pose_b, larger_b, !larger_a, pose_a),
        }
    }
}

/// `triangle` about its first vertex, with `pose` moved to keep it where
/// it was. The routines then compute at the size of the pair rather than at
/// the triangle's coordinates: a triangle given in world coordinates far
/// from the origin has exact edges (differences of nearby floats,
/// Sterbenz), the other shape comes into its frame by one exact-ish
/// difference of translations, and the rounding tolerances
/// (`touching_rounding`) scale with the pair, not with the distance from
/// the origin. Under an identity rotation the moved pose is exact.
pub(crate) fn about_first_vertex<N: Real>(
    triangle: &Triangle<N>,
    pose: &Isometry3<N>,
) -> (Triangle<N>, Isometry3<N>) {
    let origin = triangle.a.coords;
    let extent = (triangle.b - triangle.a)
        .amax()
        .max((triangle.c - triangle.a).amax());
    if !moves_the_origin(&origin, extent, pose) {
        return (*triangle, *pose);
    }
    let moved = Triangle {
        a: Point3::origin(),
        b: triangle.b - origin,
        c: triangle.c - origin,
    };
    (moved, pose * Translation3::from(origin))
}

/// Whether a shape's geometry (`origin`, a point of it, and `extent`, its
/// size) lies far from its own origin: farther than its pose's translation
/// and than four times its size (a shape given in world coordinates far
/// out). Only then does moving it about a point of its own help. A shape
/// posed far out with geometry about its origin keeps its pose, whose
/// translation enters the other shape's frame by an exact difference
/// (adding a rotated point of it would round at the translation's size);
/// a shape about its origin keeps its coordinates (moving it to a vertex
/// would double them, and the rounding tolerances with them).
fn moves_the_origin<N: Real>(origin: &Vector3<N>, extent: N, pose: &Isometry3<N>) -> bool {
    origin.amax() > pose.translation.vector.amax().max(extent * lit(4.0))
}

/// `capsule` about its first end, with `pose` moved to keep it where it
/// was (as [`about_first_vertex`] does for a triangle): a capsule given in
/// world coordinates far from the origin then enters another shape's frame
/// by one difference of nearby translations instead of carrying the
/// rounding of its coordinates. Under an identity rotation the moved pose
/// is exact.
pub(crate) fn capsule_about_first_end<N: Real>(
    capsule: &Capsule<N>,
    pose: &Isometry3<N>,
) -> (Capsule<N>, Isometry3<N>) {
    let origin = capsule.a.coords;
    let extent = (capsule.b - capsule.a).amax() + capsule.radius;
    if !moves_the_origin(&origin, extent, pose) {
        return (*capsule, *pose);
    }
    let moved = Capsule {
        a: Point3::origin(),
        b: capsule.b - origin,
        radius: capsule.radius,
    };
    (moved, pose * Translation3::from(origin))
}

/// The pose of `b` in `a`'s frame, with the translations subtracted before
/// rotating (so two shapes far from the origin keep their relative bits).
pub(crate) fn relative_pose<N: Real>(pose_a: &Isometry3<N>, pose_b: &Isometry3<N>) -> Isometry3<N> {
    let offset = pose_b.translation.vector - pose_a.translation.vector;
    Isometry3::from_parts(
        Translation3::from(pose_a.rotation.inverse_transform_vector(&offset)),
        pose_a.rotation.inverse() * pose_b.rotation,
    )
}

/// A fixed unit vector perpendicular to `axis` (the first vector of
/// [`orthonormal_basis`](crate::orthonormal_basis)); `fallback` when `axis`
/// is zero.
pub(crate) fn perpendicular<N: Real>(axis: &Vector3<N>, fallback: Vector3<N>) -> Vector3<N> {
    // `try_unit` scales first: `axis / |axis|` is not unit when the squares
    // underflow (a 1e-22 edge in f32).
    match try_unit(axis) {
        Some(unit) => crate::orthonormal_basis(&unit).0,
        None => fallback,
    }
}

/// `v / |v|` when that is a finite unit vector. When `|v|²` neither
/// overflows nor comes near the subnormal range (the usual case) it is one
/// square root and a multiplication; otherwise `v` is first scaled by its
/// largest component, so tiny (even subnormal) and huge vectors still have
/// a direction.
// Inlined: called on vectors just stored, a non-inlined call read them
// back at another width (a store-forwarding stall on every call; a fifth of
// a sphere–sphere contact).
#[inline(always)]
pub fn try_unit<N: Real>(v: &Vector3<N>) -> Option<Vector3<N>> {
    let squared = v.norm_squared();
    // Far above the subnormal range of `f32` (and so of `f64`): a component
    // whose square underflows is then below 10⁻¹⁰ of the length.
    if squared > lit::<N>(1e-18) && squared.is_finite() {
        return Some(v * (N::one() / squared.sqrt()));
    }
    let largest = v.amax();
    if !(largest > N::zero() && largest.is_finite()) {
        return None;
    }
    let scaled = v / largest;
    let unit = scaled / scaled.norm();
    unit.iter().all(|c| c.is_finite()).then_some(unit)
}

/// Whether `(pose_a, key_a)` comes first in the canonical order of two
/// inputs of the same kind: lexicographic over the translation, the
/// rotation's quaternion and then the shape parameters `key_*`. Equal
/// inputs count as ordered.
pub(crate) fn is_canonical_order<N: Real>(
    pose_a: &Isometry3<N>,
    key_a: &[N],
    pose_b: &Isometry3<N>,
    key_b: &[N],
) -> bool {
    let values = |pose: &Isometry3<N>, key: &[N]| {
        let t = pose.translation.vector;
        let q = pose.rotation.coords;
        [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
            .into_iter()
            .chain(key.iter().copied())
            .collect::<ArrayKey<N>>()
    };
    values(pose_a, key_a).not_after(&values(pose_b, key_b))
}

/// Up to 16 values compared lexicographically, without allocating.
struct ArrayKey<N: Real> {
    values: [N; 16],
    len: usize,
}

impl<N: Real> FromIterator<N> for ArrayKey<N> {
    fn from_iter<I: IntoIterator<Item = N>>(iter: I) -> Self {
        let mut key = ArrayKey {
            values: [N::zero(); 16],
            len: 0,
        };
        for value in iter.into_iter().take(16) {
            key.values[key.len] = value;
            key.len += 1;
        }
        key
    }
}

impl<N: Real> ArrayKey<N> {
    fn not_after(&self, other: &Self) -> bool {
        for (x, y) in self.values[..self.len].iter().zip(&other.values[..other.len]) {
            if x < y {
                return true;
            }
            if x > y {
                return false;
            }
        }
        true
    }
}

/// Runs `routine` on `(a, b)` when they are in canonical order, else on
/// `(b, a)` with the roles swapped back in the appended manifolds.
#[allow(clippy::too_many_arguments)]
pub(crate) fn in_canonical_order<N: Real, S>(
    a: &S,
    pose_a: &Isometry3<N>,
    key_a: &[N],
    b: &S,
    pose_b: &Isometry3<N>,
    key_b: &[N],
    margin: N,
    out: &mut ContactManifolds<N>,
    routine: impl Fn(&S, &Isometry3<N>, &S, &Isometry3<N>, N, &mut ContactManifolds<N>),
) {
    if is_canonical_order(pose_a, key_a, pose_b, key_b) {
        routine(a, pose_a, b, pose_b, margin, out);
    } else {
        let first = out.len();
        routine(b, pose_b, a, pose_a, margin, out);
        out.swap_roles_from(first);
    }
}

/// The single contact of an exact [`Penetration`](crate::gjk::Penetration)
/// as a manifold of its own.
fn push_penetration<N: Real>(exact: &crate::gjk::Penetration<N>, out: &mut ContactManifolds<N>) {
    out.push_manifold(exact.normal).points.push(ContactPoint {
        point_a: exact.point_a,
        point_b: exact.point_b,
        depth: exact.depth,
        feature_a: FeatureId::Unknown,
        feature_b: FeatureId::Unknown,
    });
}

/// The exact contact of shapes a SAT routine found apart (but within
/// `margin`) without features facing each other along its axis: the
/// distance from [`penetration`](crate::gjk::penetration), nothing when
/// it exceeds `margin`.
pub(crate) fn exact_apart<N: Real>(
    a: &dyn geom_core::Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn geom_core::Shape<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    if let Ok(Some(exact)) = crate::gjk::penetration(a, pose_a, b, pose_b, margin) {
        push_penetration(&exact, out);
    }
}

/// Whether a contact of `depth` is kept under `margin` (`false` for NaN).
pub(crate) fn within_margin<N: Real>(depth: N, margin: N) -> bool {
    depth >= -margin
}

/// Whether a gap is within `max_distance` (`false` for NaN).
pub(crate) fn within_distance<N: Real>(gap: N, max_distance: N) -> bool {
    gap <= max_distance
}
