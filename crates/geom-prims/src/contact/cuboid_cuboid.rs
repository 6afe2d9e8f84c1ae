//! Box–box contact: the separating-axis test over the 15 axes of two
//! oriented boxes, then reference/incident face clipping (Ericson,
//! *Real-Time Collision Detection* §4.4.1 and §5.2.1; Gregorius, "The
//! Separating Axis Test between Convex Polyhedra", GDC 2013).
//!
//! ```
//! use geom_core::{ClosestPoints, ContactManifolds};
//! use geom_prims::Cuboid;
//! use geom_prims::contact::{closest_points_cuboid_cuboid, contact_cuboid_cuboid};
//! use nalgebra::{Isometry3, Vector3};
//!
//! // Two cubes of half size 1, the second 1.75 up and 0.5 along x: face on face, 0.25 deep.
//! let cube = Cuboid::new(Vector3::repeat(1.0));
//! let mut out = ContactManifolds::<f64>::new();
//! contact_cuboid_cuboid(&cube, &Isometry3::identity(), &cube, &Isometry3::translation(0.5, 1.75, 0.0), 0.0, &mut out);
//! // The four corners of the faces' overlap, x ∈ [-0.5, 1] by z ∈ [-1, 1].
//! assert_eq!(out.points().count(), 4);
//! for (normal, point) in out.points() {
//!     assert!((normal - Vector3::y()).norm() < 1e-12 && (point.depth - 0.25).abs() < 1e-12);
//!     let (x, z) = (point.point_a.x, point.point_a.z);
//!     assert!(((x + 0.5).abs() < 1e-12 || (x - 1.0).abs() < 1e-12) && (z.abs() - 1.0).abs() < 1e-12);
//! }
//! // Side by side 3 apart: the faces x = 1 and x = 2 are 1 apart.
//! let apart = closest_points_cuboid_cuboid(&cube, &Isometry3::identity(), &cube, &Isometry3::translation(3.0, 0.0, 0.0), 10.0);
//! let ClosestPoints::WithinMargin { point_a, point_b } = apart else { panic!("{apart:?}") };
//! assert!(((point_b - point_a).norm() - 1.0).abs() < 1e-12 && (point_a.x - 1.0).abs() < 1e-12);
//! ```

use geom_core::{ClosestPoints, ContactManifolds, Real, lit};
use nalgebra::{Isometry3, Vector3};

use super::cuboid::to_world;
use super::polytope::{
    Axis, LeastAxes, Polytope, PolytopeGap, closest_features, contact_along, exact_polytopes_apart,
    polytope_gap,
};
use super::{Placement, WorkingFrame, in_canonical_order, try_unit, within_distance};
use crate::Cuboid;

/// The two boxes as polytopes in their [`WorkingFrame`] (the larger one's
/// axes at the smaller one's centre for boxes of very different sizes),
/// each placement's low part added last.
fn placed_boxes<N: Real>(
    a: &Cuboid<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
) -> (WorkingFrame<N>, Polytope<N>, Polytope<N>) {
    let frame = WorkingFrame::new(pose_a, a.half_extents.amax(), pose_b, b.half_extents.amax());
    let (box_a, box_b) = placed_polytopes(a, b, &frame);
    (frame, box_a, box_b)
}

/// The two boxes as polytopes in `frame` (see [`placed_boxes`]).
fn placed_polytopes<N: Real>(
    a: &Cuboid<N>,
    b: &Cuboid<N>,
    frame: &WorkingFrame<N>,
) -> (Polytope<N>, Polytope<N>) {
    let placed = |half: &Vector3<N>, placement: &Placement<N>| {
        Polytope::cuboid(half, &placement.pose()).shifted(&placement.offset_low)
    };
    (
        placed(&a.half_extents, &frame.a),
        placed(&b.half_extents, &frame.b),
    )
}

/// A box placed in a [`WorkingFrame`]: its centre (in two parts, the
/// placement's offset and its rounding) and its half axes.
struct PlacedBox<N: Real> {
    centre: Vector3<N>,
    centre_low: Vector3<N>,
    axes: [Vector3<N>; 3],
    half_extents: Vector3<N>,
}

impl<N: Real> PlacedBox<N> {
    fn new(half_extents: &Vector3<N>, placement: &Placement<N>) -> Self {
        let axis = |k: usize| match placement.rotation {
            Some(rotation) => rotation * Vector3::ith(k, N::one()),
            None => Vector3::ith(k, N::one()),
        };
        // (Written out: `array::map` is not inlined here.)
        let axes = [axis(0), axis(1), axis(2)];
        PlacedBox {
            centre: placement.offset,
            centre_low: placement.offset_low,
            axes,
            half_extents: *half_extents,
        }
    }

    /// The largest projection of the box's points on `d` less its centre's
    /// (its radius along `d`).
    fn radius(&self, d: &Vector3<N>) -> N {
        (0..3).fold(N::zero(), |sum, k| {
            sum + self.half_extents[k] * self.axes[k].dot(d).abs()
        })
    }

    /// The centre's projection on `d` (its rounding part added last).
    fn middle(&self, d: &Vector3<N>) -> N {
        self.centre.dot(d) + self.centre_low.dot(d)
    }

    /// The largest coordinate of the box's points (for tolerances).
    fn scale(&self) -> N {
        let reach = (0..3).fold(Vector3::zeros(), |sum: Vector3<N>, k| {
            sum + (self.axes[k] * self.half_extents[k]).abs()
        });
        (self.centre.abs() + reach).amax()
    }
}

/// The separating-axis test of two boxes (Ericson, *Real-Time Collision
/// Detection* §4.4.1): for each of the 15 axes, the boxes' intervals from
/// their centres and radii (three products a box, not eight corners),
/// with [`least_penetration`](super::polytope::least_penetration)'s
/// answer, axes and ties (the box polytopes' faces and edge directions
/// are numbered by the boxes' axes). `None` when an axis separates the
/// boxes by more than `margin`.
fn least_penetration_boxes<N: Real>(
    a: &PlacedBox<N>,
    b: &PlacedBox<N>,
    margin: N,
) -> Option<(Axis, Vector3<N>, N, bool)> {
    let mut least = LeastAxes::new(N::one() + a.scale().max(b.scale()), margin);
    // Along `d` from `a` to `b`: `a`'s reach past its centre plus `b`'s,
    // less the centres' offset.
    let depth_along = |d: &Vector3<N>| a.radius(d) + b.radius(d) - (b.middle(d) - a.middle(d));
    // Each box's faces in the polytope's order: `−axis` (face 2k), then
    // `+axis` (face 2k + 1); for `b`'s, the normal from `a` to `b` is the
    // face's reversed.
    for k in 0..3 {
        for side in 0..2 {
            let outward = if side == 1 { a.axes[k] } else { -a.axes[k] };
            least.take(Axis::FaceOfA(2 * k + side), outward, depth_along(&outward))?;
        }
    }
    for k in 0..3 {
        for side in 0..2 {
            let normal = if side == 1 { -b.axes[k] } else { b.axes[k] };
            least.take(Axis::FaceOfB(2 * k + side), normal, depth_along(&normal))?;
        }
    }
    for i in 0..3 {
        for j in 0..3 {
            let (da, db) = (a.axes[i], b.axes[j]);
            let cross = da.cross(&db);
            // Nearly parallel edges give no usable axis (the face axes
            // cover that case).
            if cross.norm_squared() <= lit::<N>(1e-12) * da.norm_squared() * db.norm_squared() {
                continue;
            }
            let Some(axis) = try_unit(&cross) else { continue };
            let (plus, minus) = (depth_along(&axis), depth_along(&-axis));
            let (normal, depth) = if plus <= minus {
                (axis, plus)
            } else {
                (-axis, minus)
            };
            // (Every edge pair of two boxes supports its axis.)
            least.take(Axis::Edges(i, j), normal, depth)?;
        }
    }
    least.answer()
}

/// Contact between two boxes, computed in `a`'s frame (or, for boxes of
/// very different sizes, in the larger one's axes at the smaller one's
/// centre, the centres' offset taken exactly: a large box's face beside a
/// small one keeps its bits).
///
/// The axis of least penetration among the 6 face normals and the 9 edge
/// × edge directions (nearly parallel edge pairs skipped) wins: its depth
/// is the exact penetration depth (ties within rounding prefer faces). A
/// face axis clips the most opposed face of the other box against the
/// reference face's side planes (Sutherland–Hodgman) and keeps the points
/// at most `margin` above the reference face, each with its own depth,
/// reduced to four (the deepest first, then spread by area); an edge axis
/// reports the closest points of the two supporting edges with the axis'
/// depth, and, when a face axis is within 2% of it (boxes resting a hair
/// off flat), the clipped points of the faces most aligned with its
/// normal beside them (depths along that normal).
///
/// Apart (within `margin`), the depth is minus the distance: the clipped
/// face points when a face normal separates, else the closest points
/// (the largest axis separation is only a lower bound on the distance;
/// found by features, `closest_features`). Boxes of zero size work (their degenerate side planes are
/// skipped); coincident boxes leave through the lowest axis of least
/// penetration. Features: box faces, edges (see the [module docs](super)).
pub fn contact_cuboid_cuboid<N: Real>(
    a: &Cuboid<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let key = |c: &Cuboid<N>| <[N; 3]>::from(c.half_extents);
    in_canonical_order(
        a,
        pose_a,
        &key(a),
        b,
        pose_b,
        &key(b),
        margin,
        out,
        |a, pose_a, b, pose_b, margin, out| {
            let frame = WorkingFrame::new(pose_a, a.half_extents.amax(), pose_b, b.half_extents.amax());
            let found = least_penetration_boxes(
                &PlacedBox::new(&a.half_extents, &frame.a),
                &PlacedBox::new(&b.half_extents, &frame.b),
                margin,
            );
            // The polytopes only for boxes within the margin.
            let Some(found) = found else {
                return;
            };
            let (box_a, box_b) = placed_polytopes(a, b, &frame);
            let first = out.len();
            let manifold = out.push_manifold(Vector3::zeros());
            match contact_along(&box_a, &box_b, found, margin, manifold) {
                Some(exact) => {
                    if !exact {
                        exact_polytopes_apart(&box_a, &box_b, margin, out, first);
                    }
                    to_world(&frame.to_world, out, first);
                }
                None => out.truncate(first),
            }
        },
    );
}

/// Closest points of two boxes within `max_distance`, computed as
/// [`contact_cuboid_cuboid`] is (and in its frame): `Intersecting` when no
/// axis separates them, `Disjoint` when one separates them by more than
/// `max_distance`; apart, the pair certified by the separating axis (a
/// corner over the other's face and its foot, or two edges' interior
/// closest points), else the closest features' pair.
pub fn closest_points_cuboid_cuboid<N: Real>(
    a: &Cuboid<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let (frame, box_a, box_b) = placed_boxes(a, pose_a, b, pose_b);
    match polytope_gap(&box_a, &box_b, max_distance) {
        PolytopeGap::Beyond => ClosestPoints::Disjoint,
        PolytopeGap::Touching => ClosestPoints::Intersecting,
        PolytopeGap::Apart(Some((on_a, on_b))) => ClosestPoints::WithinMargin {
            point_a: frame.to_world * on_a,
            point_b: frame.to_world * on_b,
        },
        // The axis gap is only a lower bound: the distance by features.
        PolytopeGap::Apart(None) => match closest_features(&box_a, &box_b) {
            Some(closest) if within_distance(closest.gap, max_distance) => ClosestPoints::WithinMargin {
                point_a: frame.to_world * closest.point_a,
                point_b: frame.to_world * closest.point_b,
            },
            Some(_) => ClosestPoints::Disjoint,
            // Touching to rounding.
            None => ClosestPoints::Intersecting,
        },
    }
}
