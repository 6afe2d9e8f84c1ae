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
use super::{Placement, WorkingFrame, in_canonical_order, within_distance};
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
/// placement's offset and its rounding), its unit axes and half extents.
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

    /// The largest coordinate of the box's points (for tolerances).
    fn scale(&self) -> N {
        let reach = (0..3).fold(Vector3::zeros(), |sum: Vector3<N>, k| {
            sum + (self.axes[k] * self.half_extents[k]).abs()
        });
        (self.centre.abs() + reach).amax()
    }
}

/// The separating-axis test of two boxes (Ericson, *Real-Time Collision
/// Detection* §4.4.1): with `R = [a_i·b_j]` and the centres' offset `t`
/// in each box's axes, a face axis's radii are a row or column of `|R|`
/// against the half extents, and an edge pair's (`a_i × b_j`, not unit)
/// two entries of `|R|` each, since `a_m·(a_i × b_j) = ±R_nj` for the
/// third axis `n` of `a`. Only the winning axis is made unit. The
/// answer, axes and ties are
/// [`least_penetration`](super::polytope::least_penetration)'s (the box
/// polytopes' faces and edge directions are numbered by the boxes' axes).
/// `None` when an axis separates the boxes by more than `margin`.
fn least_penetration_boxes<N: Real>(
    a: &PlacedBox<N>,
    b: &PlacedBox<N>,
    margin: N,
) -> Option<(Axis, Vector3<N>, N, bool)> {
    let mut least = LeastAxes::new(N::one() + a.scale().max(b.scale()), margin);
    let (ha, hb) = (a.half_extents, b.half_extents);
    let r = nalgebra::Matrix3::from_fn(|i, j| a.axes[i].dot(&b.axes[j]));
    let r_abs = r.abs();
    // The centres' offset from `a` to `b` along `d`, in its two parts:
    // the rounding part comes in last, after the large terms cancel.
    let (t, t_low) = (b.centre - a.centre, b.centre_low - a.centre_low);
    let offset_along = |d: &Vector3<N>| (t.dot(d), t_low.dot(d));
    // Each box's faces in the polytope's order: `−axis` (face 2k), then
    // `+axis` (face 2k + 1); for `b`'s, the normal from `a` to `b` is the
    // face's reversed. Along `±d` the depth is the radii's sum `∓` the
    // offset, the face's own half extent and the offset taken together
    // first: for a large box under a small one both are large, and their
    // difference, the small gap, comes out exact (see `WorkingFrame`).
    for k in 0..3 {
        let other = hb[0] * r_abs[(k, 0)] + hb[1] * r_abs[(k, 1)] + hb[2] * r_abs[(k, 2)];
        let (offset, low) = offset_along(&a.axes[k]);
        least.take(Axis::FaceOfA(2 * k), -a.axes[k], ((ha[k] + offset) + low) + other)?;
        least.take(
            Axis::FaceOfA(2 * k + 1),
            a.axes[k],
            ((ha[k] - offset) - low) + other,
        )?;
    }
    for k in 0..3 {
        let other = ha[0] * r_abs[(0, k)] + ha[1] * r_abs[(1, k)] + ha[2] * r_abs[(2, k)];
        let (offset, low) = offset_along(&b.axes[k]);
        least.take(Axis::FaceOfB(2 * k), b.axes[k], ((hb[k] - offset) - low) + other)?;
        least.take(
            Axis::FaceOfB(2 * k + 1),
            -b.axes[k],
            ((hb[k] + offset) + low) + other,
        )?;
    }
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let cross = a.axes[i].cross(&b.axes[j]);
            let length_squared = cross.norm_squared();
            // Nearly parallel edges give no usable axis (the face axes
            // cover that case).
            if length_squared <= lit::<N>(1e-12) {
                continue;
            }
            let length = length_squared.sqrt();
            let radius_a = ha[i1] * r_abs[(i2, j)] + ha[i2] * r_abs[(i1, j)];
            let radius_b = hb[j1] * r_abs[(i, j2)] + hb[j2] * r_abs[(i, j1)];
            let (offset, low) = offset_along(&cross);
            // Along the axis or against it, whichever overlaps less (the
            // axis itself on a tie), the larger radius and the offset
            // taken together first. Every edge pair of two boxes supports
            // its axis.
            let (larger, smaller) = if radius_a >= radius_b {
                (radius_a, radius_b)
            } else {
                (radius_b, radius_a)
            };
            let along = offset >= -low;
            let (offset, low) = if along { (offset, low) } else { (-offset, -low) };
            let depth = (((larger - offset) - low) + smaller) / length;
            let unit = cross / length;
            let normal = if along { unit } else { -unit };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestRng;
    use nalgebra::{Point3, Translation3, UnitQuaternion};

    /// The boxes' separating-axis test from centres and radii gives the
    /// generic polytope test's answer (from the corners, another
    /// computation): the same axis normal and depth to rounding, or both
    /// `None`. Boxes of a size, and a small box near a face of a box of
    /// half extent 5000 (the working frame at the small one's centre).
    #[test]
    fn box_axes_give_the_polytope_tests_answer() {
        let mut rng = TestRng::new(3);
        let mut compared = 0;
        for case in 0..4000 {
            let big = case % 2 == 0;
            let size = |rng: &mut TestRng| {
                Vector3::new(
                    rng.uniform(0.1, 1.0),
                    rng.uniform(0.1, 1.0),
                    rng.uniform(0.1, 1.0),
                )
            };
            let ha = if big {
                Vector3::repeat(5000.0)
            } else {
                size(&mut rng)
            };
            let hb = size(&mut rng);
            let pose = |rng: &mut TestRng| {
                Isometry3::from_parts(
                    Translation3::from(rng.vector(1.5)),
                    UnitQuaternion::from_scaled_axis(rng.vector(3.0)),
                )
            };
            let pose_a = pose(&mut rng);
            let mut pose_b = pose(&mut rng);
            if big {
                let above = Point3::new(
                    rng.uniform(-2.0, 2.0),
                    5000.0 + rng.uniform(0.0, 1.2),
                    rng.uniform(-2.0, 2.0),
                );
                pose_b.translation.vector = (pose_a * above).coords;
            }
            let (a, b) = (Cuboid::new(ha), Cuboid::new(hb));
            let (frame, box_a, box_b) = placed_boxes(&a, &pose_a, &b, &pose_b);
            let margin = 0.3;
            let generic = super::super::polytope::least_penetration(&box_a, &box_b, margin);
            let ours = least_penetration_boxes(
                &PlacedBox::new(&ha, &frame.a),
                &PlacedBox::new(&hb, &frame.b),
                margin,
            );
            match (generic, ours) {
                (Some(g), Some(o)) => {
                    compared += 1;
                    assert!((g.2 - o.2).abs() <= 1e-9, "case {case}: {g:?} vs {o:?}");
                    assert!((g.1 - o.1).norm() <= 1e-9, "case {case}: {g:?} vs {o:?}");
                }
                (None, None) => {}
                (g, o) => panic!("case {case}: {g:?} vs {o:?}"),
            }
        }
        assert!(compared > 1000, "{compared}");
    }
}
