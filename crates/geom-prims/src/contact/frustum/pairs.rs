//! The frustum–polytope pairs as routines: the features along the least
//! normal clipped, the exact pair the normal is exact for, certificates
//! for shapes apart, the closest points, and the tester a surface of
//! triangles uses (see the [parent module](super)).

use geom_core::distance::closest_points_segment_segment;
use geom_core::{
    ClosestPoints, ContactManifolds, ContactPoint, FeatureId, FeatureShape, Real, Shape, SupportFeature, lit,
};
use nalgebra::{Isometry3, Point3, Vector3};

use super::{Frustum, Touching, least_overlap};
use crate::contact::manifold::{FeaturePairs, clip_features};
use crate::contact::polytope::Polytope;
use crate::contact::{WorkingFrame, about_first_vertex, exact_apart, try_unit};
use crate::{Capsule, Cone, Cuboid, Cylinder, Segment, Triangle};

/// The feature-clipping tolerance: the sine of the angle within which a
/// face (a cap, a triangle) counts as facing the normal, so that a shape
/// resting a few degrees off flat gets its whole face clipped, each point
/// at its own depth.
fn feature_tolerance<N: Real>() -> N {
    lit(0.05)
}

/// A shape placed in the frame a pair routine computes in: by `pose`,
/// then moved by `low` (the rounding of `pose`'s translation, added last:
/// see [`WorkingFrame`]).
struct Placed<'a, N: Real> {
    shape: &'a dyn Shape<N>,
    pose: Isometry3<N>,
    low: Vector3<N>,
}

impl<N: Real> Placed<'_, N> {
    /// The shape's feature extreme along the unit `direction`, in the frame.
    fn feature(&self, direction: &Vector3<N>) -> Option<geom_core::SupportFeature<N>> {
        let feature = self
            .shape
            .support_feature(&self.pose, direction, feature_tolerance())?;
        Some(if self.low == Vector3::zeros() {
            feature
        } else {
            feature.mapped(|p| p + self.low, |v| *v)
        })
    }

    /// The shape's point extreme along `direction`, in the frame.
    fn support(&self, direction: &Vector3<N>) -> Option<Point3<N>> {
        Some(self.shape.support(&self.pose, direction)? + self.low)
    }
}

/// A frustum-shaped `a` and a polytope-shaped `b` placed in the frame a
/// pair routine computes in.
struct PlacedPair<'a, N: Real> {
    a: Placed<'a, N>,
    frustum: Frustum<N>,
    b: Placed<'a, N>,
    polytope: Polytope<N>,
    to_world: Isometry3<N>,
    /// `b` as a whole when `b.shape` is a capsule's core: the capsule and
    /// its radius (`b`'s points move out by it, its depths grow by it).
    rounded: Option<(&'a dyn Shape<N>, N)>,
}

/// The answer of the separating-axis test with its touching features.
struct Touch<N: Real> {
    /// The unit normal from the frustum (`a`) to the polytope (`b`).
    normal: Vector3<N>,
    /// The least overlap (negative: the largest axis gap).
    depth: N,
    /// The frustum's feature extreme along the normal, the polytope's along
    /// its opposite.
    features: (SupportFeature<N>, SupportFeature<N>),
    /// The pair of points (on `a`, on `b`) the normal is exact for, `depth`
    /// apart along it, when the touching features hold them: it certifies
    /// `depth` as the shapes' gap when they are apart (no pair of points
    /// can be nearer than an axis's gap).
    exact: Option<(Point3<N>, Point3<N>)>,
}

impl<N: Real> PlacedPair<'_, N> {
    /// The radius `b`'s core is dilated by (zero but for a capsule).
    fn radius(&self) -> N {
        self.rounded.map_or(N::zero(), |(_, radius)| radius)
    }

    /// `b` as a whole (a capsule rather than its core).
    fn whole_b(&self) -> &dyn Shape<N> {
        self.rounded.map_or(self.b.shape, |(whole, _)| whole)
    }

    /// The separating-axis test and its touching features, or `None`
    /// when the shapes are farther apart than `margin`.
    fn touch(&self, margin: N) -> Option<Touch<N>> {
        let (d, depth, touching) = least_overlap(&self.polytope, &self.frustum, margin + self.radius())?;
        // Unit to rounding once more: the side and rim normals are built in
        // a few steps, each rounding.
        let d = try_unit(&d)?;
        let normal = -d;
        let features = (self.a.feature(&normal)?, self.b.feature(&d)?);
        let exact = self.exact_pair(&normal, depth, touching, &features.0);
        Some(Touch {
            normal,
            depth,
            features,
            exact,
        })
    }

    /// The pair of points the normal of `touching` is exact for: a point
    /// extreme along the normal on one side and its foot `depth` from it
    /// along the normal, or the closest points of two lines, when the
    /// touching features hold them (the foot within the other feature's
    /// extent, to rounding). `None` for a disc lying flat on a face (its
    /// clipped rim stands for it) and when the features do not hold it.
    fn exact_pair(
        &self,
        normal: &Vector3<N>,
        depth: N,
        touching: Touching,
        feature_a: &SupportFeature<N>,
    ) -> Option<(Point3<N>, Point3<N>)> {
        let (on_a, on_b) = self.touching_pair(normal, depth, touching, feature_a)?;
        // `depth` apart along the normal, and nothing across it, to rounding.
        let between = on_a - on_b;
        let along = between.dot(normal);
        let across = (between - normal * along).norm();
        let rounding =
            N::default_epsilon() * lit(64.0) * (N::one() + on_a.coords.amax().max(on_b.coords.amax()));
        (across <= rounding && (along - depth).abs() <= rounding).then_some((on_a, on_b))
    }

    /// [`PlacedPair::exact_pair`] before its last check.
    fn touching_pair(
        &self,
        normal: &Vector3<N>,
        depth: N,
        touching: Touching,
        feature_a: &SupportFeature<N>,
    ) -> Option<(Point3<N>, Point3<N>)> {
        let frustum = &self.frustum;
        let tolerance = |p: &Point3<N>| N::default_epsilon() * lit(64.0) * (N::one() + p.coords.amax());
        let from_polytope_vertex = |on_b: Point3<N>| (on_b + normal * depth, on_b);
        let (on_a, on_b) = match touching {
            Touching::PolytopeFace(face) => {
                if feature_a.shape() == FeatureShape::Face {
                    return None;
                }
                let on_a = self.a.support(normal)?;
                let on_b = on_a - normal * depth;
                return self
                    .polytope
                    .face_holds(face, &on_b, tolerance(&on_b))
                    .then_some((on_a, on_b));
            }
            Touching::Disc(_) => {
                let d = -normal;
                let vertex = self.polytope.vertices().iter().copied().reduce(|best, v| {
                    if v.coords.dot(&d) > best.coords.dot(&d) {
                        v
                    } else {
                        best
                    }
                })?;
                from_polytope_vertex(vertex)
            }
            Touching::SideVertex(index) => from_polytope_vertex(self.polytope.vertices()[index]),
            Touching::RimVertex(k, index) => {
                let vertex = self.polytope.vertices()[index];
                return Some((frustum.rim_point_nearest(k, &vertex), vertex));
            }
            Touching::ApexEdge(k, edge) => {
                let (from, to) = self.polytope.edge_segments().nth(edge)?;
                let apex = frustum.ends[k];
                let (on_edge, _) = geom_core::distance::closest_point_on_segment(&apex, &from, &to);
                return Some((apex, on_edge));
            }
            Touching::SideEdge(direction) => {
                let points = feature_a.points();
                if points.len() != 2 {
                    return None;
                }
                let (b0, b1, _) = self.polytope.supporting_edge(direction, &-normal);
                let closest = closest_points_segment_segment(&points[0], &points[1], &b0, &b1);
                let inside = |x: N| x > N::zero() && x < N::one();
                return (inside(closest.s) && inside(closest.t))
                    .then_some((closest.point_on_p, closest.point_on_q));
            }
            Touching::RimEdge(_, edge) => {
                // The frustum's extreme point, on a rim (either: a normal
                // taken the other way round is the other rim's), and its
                // nearest point on the edge (their offset along the normal
                // is checked below).
                let on_a = self.a.support(normal)?;
                let (from, to) = self.polytope.edge_segments().nth(edge)?;
                let (on_b, _) = geom_core::distance::closest_point_on_segment(&on_a, &from, &to);
                return frustum
                    .holds_on_rim(&on_a, tolerance(&on_a))
                    .then_some((on_a, on_b));
            }
        };
        // A polytope's vertex and its foot on the frustum's disc or side.
        frustum
            .holds_on_surface(&on_a, tolerance(&on_a))
            .then_some((on_a, on_b))
    }

    /// The contacts within `margin`, appended to `out`: the touching
    /// features clipped against each other, the exact pair first; for
    /// shapes apart whose features do not certify the gap, the exact
    /// distance's single contact ([`exact_apart`]).
    fn contact(
        &self,
        (pose_a, pose_b): (&Isometry3<N>, &Isometry3<N>),
        margin: N,
        out: &mut ContactManifolds<N>,
    ) {
        let Some(touch) = self.touch(margin) else {
            return;
        };
        let (normal, depth) = (touch.normal, touch.depth);
        let (feature_a, feature_b) = &touch.features;
        // A capsule's core: its margin widened by the radius.
        let clipped = clip_features(feature_a, feature_b, &normal, depth, margin + self.radius());
        let rounding = N::default_epsilon() * lit(1024.0) * (N::one() + feature_a.points()[0].coords.amax());
        let clipped_at_depth = clipped.deepest().is_some_and(|p| p.depth >= depth - rounding);
        // Apart, the axis's gap is only a lower bound on the distance: an
        // exact pair, or clipped features meeting at that gap, certify it.
        // A point touching a feature it does not hold (rounding on a long
        // side line) has no pair either way.
        let single = feature_a.points().len() == 1 || feature_b.points().len() == 1;
        let certified = touch.exact.is_some() || (clipped_at_depth && !single);
        // (For a capsule, its core's gap: only the exact distance gives the
        // capsule's depth.)
        if !certified && (depth < N::zero() || single || clipped.as_slice().is_empty()) {
            exact_apart(self.a.shape, pose_a, self.whole_b(), pose_b, margin, out);
            return;
        }
        let pairs = match touch.exact {
            Some((point_a, point_b)) => {
                let exact = ContactPoint {
                    point_a,
                    point_b,
                    depth,
                    feature_a: FeatureId::Unknown,
                    feature_b: FeatureId::Unknown,
                };
                // A point touching the other feature: that one pair. Two
                // extended features: their clipped pairs, the exact one
                // first unless a clipped pair is as deep. (A disc is
                // clipped as a polygon inside its rim, so the deepest point
                // of an edge crossing the rim may lie between its corners;
                // a point lifted onto a cone's long side line carries the
                // line's rounding across the normal.)
                if single {
                    FeaturePairs::new().with_deepest(exact)
                } else if clipped_at_depth {
                    clipped
                } else {
                    clipped.with_deepest(exact)
                }
            }
            None => clipped,
        };
        let first = out.len();
        // A capsule's points leave its core along the normal, out by the
        // radius or more (a clipped end of a tilted core: through more of
        // the capsule).
        let core = self.polytope.vertices();
        let reach = |p: &ContactPoint<N>| match self.rounded {
            Some((_, radius)) => {
                crate::contact::cuboid::capsule_exit(&core[0], &core[1], radius, &p.point_b, &-normal)
            }
            None => N::zero(),
        };
        out.push_manifold(normal)
            .points
            .extend(pairs.reduced(&normal).map(|p| {
                let reach = reach(&p);
                ContactPoint {
                    point_b: p.point_b - normal * reach,
                    depth: p.depth + reach,
                    ..p
                }
            }));
        crate::contact::cuboid::to_world(&self.to_world, out, first);
    }

    /// The closest points within `max_distance`: `Intersecting` when no
    /// axis separates the shapes, `Disjoint` when one separates them by
    /// more than `max_distance`; apart, the pair that certifies the axis's
    /// gap as the distance, else GJK's.
    fn closest_points(
        &self,
        (pose_a, pose_b): (&Isometry3<N>, &Isometry3<N>),
        max_distance: N,
    ) -> ClosestPoints<N> {
        let Some(touch) = self.touch(max_distance) else {
            return ClosestPoints::Disjoint;
        };
        let radius = self.radius();
        if touch.depth >= N::zero() {
            return ClosestPoints::Intersecting;
        }
        let certified = touch.exact.or_else(|| {
            let (feature_a, feature_b) = &touch.features;
            let clipped = clip_features(
                feature_a,
                feature_b,
                &touch.normal,
                touch.depth,
                max_distance + radius,
            );
            let rounding =
                N::default_epsilon() * lit(1024.0) * (N::one() + feature_a.points()[0].coords.amax());
            clipped
                .deepest()
                .filter(|p| p.depth >= touch.depth - rounding)
                .map(|p| (p.point_a, p.point_b))
        });
        match certified {
            // A capsule's core within its radius.
            Some(_) if touch.depth + radius >= N::zero() => ClosestPoints::Intersecting,
            Some((point_a, point_b)) => ClosestPoints::WithinMargin {
                point_a: self.to_world * point_a,
                point_b: self.to_world * (point_b - touch.normal * radius),
            },
            None => {
                crate::gjk::convex_closest_points(self.a.shape, pose_a, self.whole_b(), pose_b, max_distance)
                    .unwrap_or(ClosestPoints::Disjoint)
            }
        }
    }
}

/// A frustum-shaped `a` and a triangle `b` (about its first vertex
/// already, see [`about_first_vertex`]) in their [`WorkingFrame`], or
/// `None` when `a` has no axis.
fn place_triangle<'a, N: Real>(
    a: &'a dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    b: &'a Triangle<N>,
    pose_b: &Isometry3<N>,
) -> Option<PlacedPair<'a, N>> {
    let reach_b = b.local_aabb().origin_reach();
    let frame = WorkingFrame::new(pose_a, a.local_aabb().origin_reach(), pose_b, reach_b);
    let (a_pose, a_low) = (frame.a.pose(), frame.a.offset_low);
    let (b_pose, b_low) = (frame.b.pose(), frame.b.offset_low);
    let place_a = |p: &Point3<N>| a_pose * p + a_low;
    let place_b = |p: &Point3<N>| b_pose * p + b_low;
    let frustum = frustum?;
    let frustum = Frustum::new(
        [place_a(&frustum.ends[0]), place_a(&frustum.ends[1])],
        frustum.radii,
    )?;
    Some(PlacedPair {
        a: Placed {
            shape: a,
            pose: a_pose,
            low: a_low,
        },
        frustum,
        b: Placed {
            shape: b,
            pose: b_pose,
            low: b_low,
        },
        polytope: Polytope::triangle(&place_b(&b.a), &place_b(&b.b), &place_b(&b.c)),
        to_world: frame.to_world,
        rounded: None,
    })
}

/// A frustum-shaped `a` and a box `b` in their [`WorkingFrame`] (a box
/// much larger than the frustum keeps the bits of its faces beside it),
/// or `None` when `a` has no axis.
fn place_cuboid<'a, N: Real>(
    a: &'a dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    b: &'a Cuboid<N>,
    pose_b: &Isometry3<N>,
) -> Option<PlacedPair<'a, N>> {
    let frustum = frustum?;
    let frame = WorkingFrame::new(
        pose_a,
        a.local_aabb().origin_reach(),
        pose_b,
        b.half_extents.amax(),
    );
    let (a_pose, a_low) = (frame.a.pose(), frame.a.offset_low);
    let (b_pose, b_low) = (frame.b.pose(), frame.b.offset_low);
    let place = |p: &Point3<N>| a_pose * p + a_low;
    let frustum = Frustum::new([place(&frustum.ends[0]), place(&frustum.ends[1])], frustum.radii)?;
    Some(PlacedPair {
        a: Placed {
            shape: a,
            pose: a_pose,
            low: a_low,
        },
        frustum,
        b: Placed {
            shape: b,
            pose: b_pose,
            low: b_low,
        },
        polytope: Polytope::cuboid(&b.half_extents, &b_pose).shifted(&b_low),
        to_world: frame.to_world,
        rounded: None,
    })
}

/// A frustum-shaped `a` and a capsule `b` (its core `core`) in their
/// [`WorkingFrame`], or `None` when `a` has no axis.
fn place_capsule<'a, N: Real>(
    a: &'a dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    (b, core): (&'a Capsule<N>, &'a Segment<N>),
    pose_b: &Isometry3<N>,
) -> Option<PlacedPair<'a, N>> {
    let frame = WorkingFrame::new(
        pose_a,
        a.local_aabb().origin_reach(),
        pose_b,
        b.local_aabb().origin_reach(),
    );
    let (a_pose, a_low) = (frame.a.pose(), frame.a.offset_low);
    let (b_pose, b_low) = (frame.b.pose(), frame.b.offset_low);
    let place_a = |p: &Point3<N>| a_pose * p + a_low;
    let place_b = |p: &Point3<N>| b_pose * p + b_low;
    let frustum = frustum?;
    let frustum = Frustum::new(
        [place_a(&frustum.ends[0]), place_a(&frustum.ends[1])],
        frustum.radii,
    )?;
    Some(PlacedPair {
        a: Placed {
            shape: a,
            pose: a_pose,
            low: a_low,
        },
        frustum,
        b: Placed {
            shape: core,
            pose: b_pose,
            low: b_low,
        },
        polytope: Polytope::segment(&place_b(&core.a), &place_b(&core.b)),
        to_world: frame.to_world,
        rounded: Some((b, b.radius)),
    })
}

/// Contacts of a frustum-shaped `a` and a capsule `b`, or the general
/// routine when `a` has no axis.
fn frustum_capsule<N: Real>(
    a: &dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let core = Segment { a: b.a, b: b.b };
    match place_capsule(a, frustum, pose_a, (b, &core), pose_b) {
        Some(pair) => pair.contact((pose_a, pose_b), margin, out),
        None => {
            let _ = crate::gjk::convex_contact(a, pose_a, b, pose_b, margin, out);
        }
    }
}

/// Closest points of a frustum-shaped `a` and a capsule `b`, or the
/// general routine when `a` has no axis.
fn frustum_capsule_closest<N: Real>(
    a: &dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let core = Segment { a: b.a, b: b.b };
    match place_capsule(a, frustum, pose_a, (b, &core), pose_b) {
        Some(pair) => pair.closest_points((pose_a, pose_b), max_distance),
        None => crate::gjk::convex_closest_points(a, pose_a, b, pose_b, max_distance)
            .unwrap_or(ClosestPoints::Disjoint),
    }
}

/// Contacts of a frustum-shaped `a` and a triangle `b`, or the general
/// routine when `a` has no axis.
fn frustum_triangle<N: Real>(
    a: &dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let (b, pose_b) = &about_first_vertex(b, pose_b);
    match place_triangle(a, frustum, pose_a, b, pose_b) {
        Some(pair) => pair.contact((pose_a, pose_b), margin, out),
        None => {
            let _ = crate::gjk::convex_contact(a, pose_a, b, pose_b, margin, out);
        }
    }
}

/// Closest points of a frustum-shaped `a` and a triangle `b`, or the
/// general routine when `a` has no axis.
fn frustum_triangle_closest<N: Real>(
    a: &dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    let (b, pose_b) = &about_first_vertex(b, pose_b);
    match place_triangle(a, frustum, pose_a, b, pose_b) {
        Some(pair) => pair.closest_points((pose_a, pose_b), max_distance),
        None => crate::gjk::convex_closest_points(a, pose_a, b, pose_b, max_distance)
            .unwrap_or(ClosestPoints::Disjoint),
    }
}

/// Contacts of a frustum-shaped `a` and a box `b`, or the general routine
/// when `a` has no axis.
fn frustum_cuboid<N: Real>(
    a: &dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    match place_cuboid(a, frustum, pose_a, b, pose_b) {
        Some(pair) => pair.contact((pose_a, pose_b), margin, out),
        None => {
            let _ = crate::gjk::convex_contact(a, pose_a, b, pose_b, margin, out);
        }
    }
}

/// Closest points of a frustum-shaped `a` and a box `b`, or the general
/// routine when `a` has no axis.
fn frustum_cuboid_closest<N: Real>(
    a: &dyn Shape<N>,
    frustum: Option<Frustum<N>>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    match place_cuboid(a, frustum, pose_a, b, pose_b) {
        Some(pair) => pair.closest_points((pose_a, pose_b), max_distance),
        None => crate::gjk::convex_closest_points(a, pose_a, b, pose_b, max_distance)
            .unwrap_or(ClosestPoints::Disjoint),
    }
}

/// Contacts between a cylinder (`a`) and a triangle (`b`, two-sided):
/// separating axes over the faces of their Minkowski difference, then the
/// touching features clipped (see the [module documentation](super)).
pub fn contact_cylinder_triangle<N: Real>(
    a: &Cylinder<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    frustum_triangle(a, Frustum::of_cylinder(a), pose_a, b, pose_b, margin, out);
}

/// Contacts between a cone (`a`) and a triangle (`b`, two-sided).
pub fn contact_cone_triangle<N: Real>(
    a: &Cone<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    frustum_triangle(a, Frustum::of_cone(a), pose_a, b, pose_b, margin, out);
}

/// Contacts between a cylinder (`a`) and a box (`b`).
pub fn contact_cylinder_cuboid<N: Real>(
    a: &Cylinder<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    frustum_cuboid(a, Frustum::of_cylinder(a), pose_a, b, pose_b, margin, out);
}

/// Contacts between a cone (`a`) and a box (`b`).
pub fn contact_cone_cuboid<N: Real>(
    a: &Cone<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    frustum_cuboid(a, Frustum::of_cone(a), pose_a, b, pose_b, margin, out);
}

/// Contacts between a cylinder (`a`) and a capsule (`b`): the separating
/// axes of the cylinder and the capsule's core segment, the core's points
/// moved out by the radius.
pub fn contact_cylinder_capsule<N: Real>(
    a: &Cylinder<N>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    frustum_capsule(a, Frustum::of_cylinder(a), pose_a, b, pose_b, margin, out);
}

/// Contacts between a cone (`a`) and a capsule (`b`).
pub fn contact_cone_capsule<N: Real>(
    a: &Cone<N>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    frustum_capsule(a, Frustum::of_cone(a), pose_a, b, pose_b, margin, out);
}

/// Closest points of a cylinder (`a`) and a capsule (`b`) within
/// `max_distance`.
pub fn closest_points_cylinder_capsule<N: Real>(
    a: &Cylinder<N>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    frustum_capsule_closest(a, Frustum::of_cylinder(a), pose_a, b, pose_b, max_distance)
}

/// Closest points of a cone (`a`) and a capsule (`b`) within `max_distance`.
pub fn closest_points_cone_capsule<N: Real>(
    a: &Cone<N>,
    pose_a: &Isometry3<N>,
    b: &Capsule<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    frustum_capsule_closest(a, Frustum::of_cone(a), pose_a, b, pose_b, max_distance)
}

/// Closest points of a cylinder (`a`) and a triangle (`b`) within
/// `max_distance`: separating axes first (see the [module
/// documentation](super)), GJK only for shapes apart whose axis does not
/// certify the gap.
pub fn closest_points_cylinder_triangle<N: Real>(
    a: &Cylinder<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    frustum_triangle_closest(a, Frustum::of_cylinder(a), pose_a, b, pose_b, max_distance)
}

/// Closest points of a cone (`a`) and a triangle (`b`) within `max_distance`.
pub fn closest_points_cone_triangle<N: Real>(
    a: &Cone<N>,
    pose_a: &Isometry3<N>,
    b: &Triangle<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    frustum_triangle_closest(a, Frustum::of_cone(a), pose_a, b, pose_b, max_distance)
}

/// Closest points of a cylinder (`a`) and a box (`b`) within `max_distance`.
pub fn closest_points_cylinder_cuboid<N: Real>(
    a: &Cylinder<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    frustum_cuboid_closest(a, Frustum::of_cylinder(a), pose_a, b, pose_b, max_distance)
}

/// Closest points of a cone (`a`) and a box (`b`) within `max_distance`.
pub fn closest_points_cone_cuboid<N: Real>(
    a: &Cone<N>,
    pose_a: &Isometry3<N>,
    b: &Cuboid<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> ClosestPoints<N> {
    frustum_cuboid_closest(a, Frustum::of_cone(a), pose_a, b, pose_b, max_distance)
}
