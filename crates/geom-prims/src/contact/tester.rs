//! A box, cylinder or cone placed once in the frame of many triangles (a
//! heightfield's, a mesh's), asked of each whether some separating axis
//! keeps them farther apart than a margin: the cheap question a surface
//! routine asks of every triangle near a shape before any contact.
//!
//! The box takes the triangle into its own frame and runs the thirteen
//! axes of Akenine-Möller, "Fast 3D Triangle-Box Overlap Testing" (JGT
//! 2001): its three face normals (the triangle's extent against the box's
//! half extents), the triangle's normal, and the nine crosses of the box's
//! axes with the triangle's edges, each with the box's projected radius
//! `Σ hᵢ|aᵢ·d|`; a cylinder or a cone takes the candidate normals of
//! [`frustum`](super::frustum)'s separating-axis test.

use geom_core::{Real, Shape};
use nalgebra::{Isometry3, Matrix3, Point3, Vector3};

use super::frustum::{Frustum, least_overlap};
use super::polytope::Polytope;
use crate::{Cone, Cuboid, Cylinder, Triangle};

/// A box, cylinder or cone placed once in the frame of a set of
/// triangles, for separating-axis tests against many of them without a
/// dispatch or a change of frame per triangle. A box runs the thirteen
/// axes of Akenine-Möller, "Fast 3D Triangle-Box Overlap Testing" (JGT
/// 2001) in its own frame; a cylinder or a cone the candidate normals of
/// the frustum separating-axis test.
#[derive(Clone, Copy, Debug)]
pub struct TriangleTester<N: Real> {
    placed: Placed<N>,
}

/// What a [`TriangleTester`] holds.
#[derive(Clone, Copy, Debug)]
enum Placed<N: Real> {
    /// The box's centre, axes (the columns) and half extents.
    Cuboid {
        centre: Point3<N>,
        axes: Matrix3<N>,
        half_extents: Vector3<N>,
    },
    Frustum(Frustum<N>),
    Other,
}

impl<N: Real> TriangleTester<N> {
    /// `shape` at `pose` (in the triangles' frame); a shape other than a
    /// box, a cylinder or a cone (or a degenerate one) answers nothing.
    pub fn new(shape: &dyn Shape<N>, pose: &Isometry3<N>) -> Self {
        let any = shape as &dyn std::any::Any;
        let place = |frustum: Option<Frustum<N>>| {
            frustum
                .and_then(|f| f.moved(pose))
                .map_or(Placed::Other, Placed::Frustum)
        };
        let placed = if let Some(cuboid) = any.downcast_ref::<Cuboid<N>>() {
            Placed::Cuboid {
                centre: Point3::from(pose.translation.vector),
                axes: *pose.rotation.to_rotation_matrix().matrix(),
                half_extents: cuboid.half_extents,
            }
        } else if let Some(cylinder) = any.downcast_ref::<Cylinder<N>>() {
            place(Frustum::of_cylinder(cylinder))
        } else if let Some(cone) = any.downcast_ref::<Cone<N>>() {
            place(Frustum::of_cone(cone))
        } else {
            Placed::Other
        };
        TriangleTester { placed }
    }

    /// The placed shape's point extreme along `direction` (`None` for a
    /// shape the tester does not know, or a zero or non-finite direction).
    pub fn support(&self, direction: &Vector3<N>) -> Option<Point3<N>> {
        if !usable(direction) {
            return None;
        }
        match &self.placed {
            Placed::Cuboid {
                centre,
                axes,
                half_extents,
            } => {
                let local = axes.tr_mul(direction);
                let corner = Vector3::from_fn(|k, _| {
                    if local[k] >= N::zero() {
                        half_extents[k]
                    } else {
                        -half_extents[k]
                    }
                });
                Some(centre + axes * corner)
            }
            Placed::Frustum(frustum) => Some(frustum.support(direction)),
            Placed::Other => None,
        }
    }

    /// The largest projection of the placed shape's points on `direction`
    /// (its support value: the support point's projection, without the
    /// point), or `None` for a shape the tester does not know or a zero
    /// or non-finite direction.
    pub fn reach(&self, direction: &Vector3<N>) -> Option<N> {
        if !usable(direction) {
            return None;
        }
        match &self.placed {
            Placed::Cuboid {
                centre,
                axes,
                half_extents,
            } => {
                let local = axes.tr_mul(direction);
                Some(centre.coords.dot(direction) + half_extents.dot(&local.abs()))
            }
            Placed::Frustum(frustum) => Some(frustum.reach(direction)),
            Placed::Other => None,
        }
    }

    /// Whether one of a few cheap axes separates the shape from `triangle`
    /// by more than `margin`: for a box, all of its axes (as
    /// [`TriangleTester::separated_beyond`]); for a cylinder or a cone, the
    /// triangle's normal and edge normals (in its plane), the frustum's
    /// axis and the side normals at the triangle's corners. `false` when
    /// none does, or for a shape the tester does not know.
    pub fn quickly_separated_beyond(&self, triangle: &Triangle<N>, margin: N) -> bool {
        match &self.placed {
            Placed::Frustum(frustum) => {
                let corners = [triangle.a, triangle.b, triangle.c];
                let normal = (corners[1] - corners[0]).cross(&(corners[2] - corners[0]));
                let apart = |d: Vector3<N>| frustum_apart(frustum, &corners, &d, margin, false);
                let both = |d: Vector3<N>| frustum_apart(frustum, &corners, &d, margin, true);
                both(normal)
                    || both(frustum.axis())
                    || (0..3).any(|k| apart((corners[(k + 1) % 3] - corners[k]).cross(&normal)))
                    || corners
                        .iter()
                        .any(|c| frustum.radial_from_axis(c).is_some_and(&both))
            }
            _ => self.separated_beyond(triangle, margin) == Some(true),
        }
    }

    /// [`TriangleTester::quickly_separated_beyond`] for a caller that has
    /// found the triangle's own axes (its normal, the shape on its front
    /// within `margin` or below it, and the normals across its edges in
    /// its plane) not to separate the shape by `margin`: for a cylinder or
    /// a cone only the axes that turn with it are left (its axis and the
    /// side normals at the triangle's corners), for a box all of its axes.
    pub fn quickly_separated_beyond_past_own_axes(&self, triangle: &Triangle<N>, margin: N) -> bool {
        match &self.placed {
            Placed::Frustum(frustum) => {
                let corners = [triangle.a, triangle.b, triangle.c];
                let apart_both_ways = |d: Vector3<N>| frustum_apart(frustum, &corners, &d, margin, true);
                apart_both_ways(frustum.axis())
                    || corners
                        .iter()
                        .any(|c| frustum.radial_from_axis(c).is_some_and(apart_both_ways))
            }
            _ => self.separated_beyond(triangle, margin) == Some(true),
        }
    }

    /// Whether the tester knows the shape (a box, a cylinder or a cone):
    /// its tests answer, and its supports are the placed shape's.
    pub fn knows_shape(&self) -> bool {
        !matches!(self.placed, Placed::Other)
    }

    /// Whether some axis separates the shape from `triangle` by more than
    /// `margin` (then they are farther apart than that); `Some(false)`
    /// when none does (the largest separation is a lower bound on the
    /// distance: the shape is within `margin` of the triangle or a hair
    /// beyond). `None` for a shape the tester does not know.
    pub fn separated_beyond(&self, triangle: &Triangle<N>, margin: N) -> Option<bool> {
        match &self.placed {
            Placed::Cuboid {
                centre,
                axes,
                half_extents,
            } => {
                let local_of = |p: &Point3<N>| axes.tr_mul(&(p - centre));
                let local = [
                    local_of(&triangle.a),
                    local_of(&triangle.b),
                    local_of(&triangle.c),
                ];
                Some(box_triangle_separated(half_extents, &local, margin))
            }
            Placed::Frustum(frustum) => {
                let polytope = Polytope::triangle(&triangle.a, &triangle.b, &triangle.c);
                Some(least_overlap(&polytope, frustum, margin).is_none())
            }
            Placed::Other => None,
        }
    }
}

/// Whether an axis separates the box `|x| <= h` from the triangle `v`
/// (in the box's frame) by more than `margin` (see the [module
/// documentation](self)). Each axis `d` compares the triangle's interval
/// `[min, max]` of `d·vᵢ` with the box's `±r`, `r = Σ hₖ|dₖ|`, widened by
/// `margin·|d|` (the axes are not unit: `|d|` is taken only when the
/// interval is beyond `r`).
fn box_triangle_separated<N: Real>(h: &Vector3<N>, v: &[Vector3<N>; 3], margin: N) -> bool {
    let beyond = |d: &Vector3<N>, radius: N| {
        let (p0, p1, p2) = (d.dot(&v[0]), d.dot(&v[1]), d.dot(&v[2]));
        let (low, high) = (p0.min(p1).min(p2), p0.max(p1).max(p2));
        let gap = (low - radius).max(-high - radius);
        gap > N::zero() && gap * gap > margin * margin * d.norm_squared()
    };
    // The box's faces.
    for k in 0..3 {
        let (low, high) = (
            v[0][k].min(v[1][k]).min(v[2][k]),
            v[0][k].max(v[1][k]).max(v[2][k]),
        );
        if low > h[k] + margin || high < -h[k] - margin {
            return true;
        }
    }
    let edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    // The triangle's normal (either side).
    let normal = edges[0].cross(&edges[1]);
    if beyond(&normal, h.dot(&normal.abs())) {
        return true;
    }
    // The box's axes across the triangle's edges: `x × e = (0, −e_z, e_y)`
    // and its turns.
    for e in &edges {
        let crosses = [
            (
                Vector3::new(N::zero(), -e.z, e.y),
                h.y * e.z.abs() + h.z * e.y.abs(),
            ),
            (
                Vector3::new(e.z, N::zero(), -e.x),
                h.x * e.z.abs() + h.z * e.x.abs(),
            ),
            (
                Vector3::new(-e.y, e.x, N::zero()),
                h.x * e.y.abs() + h.y * e.x.abs(),
            ),
        ];
        for (d, radius) in crosses {
            if beyond(&d, radius) {
                return true;
            }
        }
    }
    false
}

/// Whether a direction can be asked of the tester: finite and not zero.
fn usable<N: Real>(direction: &Vector3<N>) -> bool {
    direction.iter().all(|c| c.is_finite()) && direction != &Vector3::zeros()
}

/// Whether the axis `d` (any length) puts the triangle `corners` more than
/// `margin` from the frustum: the frustum beyond the triangle along `d`,
/// or (`both_ways`) along `−d` too, each side's reaches both ways from one
/// projection. A zero or NaN axis separates nothing.
fn frustum_apart<N: Real>(
    frustum: &Frustum<N>,
    corners: &[Point3<N>; 3],
    d: &Vector3<N>,
    margin: N,
    both_ways: bool,
) -> bool {
    let length = d.norm();
    if length.partial_cmp(&N::zero()) != Some(std::cmp::Ordering::Greater) {
        return false;
    }
    let projections = [
        d.dot(&corners[0].coords),
        d.dot(&corners[1].coords),
        d.dot(&corners[2].coords),
    ];
    let high = projections[0].max(projections[1]).max(projections[2]);
    let low = projections[0].min(projections[1]).min(projections[2]);
    let (reach, reach_back) = frustum.reaches(d);
    high + reach_back < -margin * length || (both_ways && -low + reach < -margin * length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestRng;
    use nalgebra::UnitQuaternion;

    /// The box test answers as the general polytope test does (both are
    /// the same thirteen axes), and the frustum's as its own search.
    /// A placed box's, cylinder's and cone's reach is its own support
    /// point's projection (the shape's support through its pose, another
    /// computation) along random directions of any length.
    #[test]
    fn reach_is_the_support_points_projection() {
        let mut rng = TestRng::new(29);
        let shapes: [Box<dyn Shape<f64>>; 3] = [
            Box::new(Cuboid::new(Vector3::new(0.4, 0.7, 0.2))),
            Box::new(Cylinder::from_points(
                Point3::new(0.1, -0.5, 0.0),
                Point3::new(0.0, 0.6, 0.2),
                0.3,
            )),
            Box::new(Cone::from_points(
                Point3::new(0.0, 0.8, 0.0),
                Point3::new(0.0, -0.2, 0.1),
                0.45,
            )),
        ];
        for shape in &shapes {
            for _ in 0..500 {
                let pose = Isometry3::from_parts(
                    rng.vector(3.0).into(),
                    UnitQuaternion::from_scaled_axis(rng.vector(3.0)),
                );
                let tester = TriangleTester::new(shape.as_ref(), &pose);
                let direction = rng.vector(1.0) * rng.uniform(0.01, 100.0);
                let reach = tester.reach(&direction).unwrap();
                let support = shape.support(&pose, &direction).unwrap().coords.dot(&direction);
                assert!(
                    (reach - support).abs() <= 1e-12 * (1.0 + support.abs()),
                    "{shape:?} {direction:?}: {reach} vs {support}"
                );
            }
            assert_eq!(
                TriangleTester::new(shape.as_ref(), &Isometry3::identity()).reach(&Vector3::zeros()),
                None
            );
        }
    }

    #[test]
    fn separated_beyond_agrees_with_the_polytope_test() {
        let mut rng = TestRng::new(23);
        let (mut apart, mut near) = (0, 0);
        for case in 0..3000 {
            let half = Vector3::new(
                rng.uniform(0.1, 1.0),
                rng.uniform(0.1, 1.0),
                rng.uniform(0.1, 1.0),
            );
            let pose = Isometry3::from_parts(
                rng.vector(1.0).into(),
                UnitQuaternion::from_scaled_axis(rng.vector(3.0)),
            );
            let centre = Point3::from(rng.vector(1.5));
            let triangle = Triangle::new(
                centre + rng.vector(1.0),
                centre + rng.vector(1.0),
                centre + rng.vector(1.0),
            );
            let margin = [0.0, 0.05, 0.3][case % 3];
            let tester = TriangleTester::new(&Cuboid::new(half), &pose);
            let fast = tester.separated_beyond(&triangle, margin).unwrap();
            let general = crate::contact::polytope::least_penetration(
                &Polytope::cuboid(&half, &pose),
                &Polytope::triangle(&triangle.a, &triangle.b, &triangle.c),
                margin,
            )
            .is_none();
            assert_eq!(
                fast, general,
                "case {case}: {half:?} {pose:?} {triangle:?} margin {margin}"
            );
            if fast {
                apart += 1;
            } else {
                near += 1;
            }
        }
        assert!(apart > 300 && near > 300, "{apart} {near}");
    }
}
