//! Compound shapes: posed child shapes behind a [`Bvh`], the union of the
//! children.
//!
//! A ray hits the compound where it first hits a child; a point's closest
//! point is its nearest child's, and it is inside when it is inside any
//! child. Contacts and closest points against any other shape go child by
//! child (those whose boxes meet the other shape's) through a
//! [`DispatchTable`]: [`register_pairs`] installs them, in both orders,
//! against every kind (a compound inside a compound included).
//!
//! ```
//! use std::sync::Arc;
//! use geom_core::compound::Compound;
//! use geom_core::{Ray, Shape};
//! use nalgebra::{Isometry3, Point3, Vector3};
//! # #[derive(Debug)]
//! # struct Ball(f64);
//! # impl Shape<f64> for Ball {
//! #     fn kind(&self) -> geom_core::ShapeKind { geom_core::ShapeKind::Sphere }
//! #     fn is_convex(&self) -> bool { true }
//! #     fn local_aabb(&self) -> geom_core::Aabb<f64> { geom_core::Aabb::from_half_extents(Point3::origin(), Vector3::repeat(self.0)) }
//! #     fn ray_cast_local(&self, ray: &Ray<f64>, max_t: f64, _solid: bool) -> Option<geom_core::RayHit<f64>> {
//! #         let (b, c) = (ray.origin.coords.dot(&ray.dir), ray.origin.coords.norm_squared() - self.0 * self.0);
//! #         let a = ray.dir.norm_squared();
//! #         let t = (-b - (b * b - a * c).max(0.0).sqrt()) / a;
//! #         (b * b >= a * c && t >= 0.0 && t <= max_t).then(|| geom_core::RayHit { t, normal: (ray.origin + ray.dir * t).coords / self.0, feature: geom_core::FeatureId::Face(0) })
//! #     }
//! #     fn closest_point_local(&self, p: &Point3<f64>, _solid: bool) -> Option<geom_core::PointProjection<f64>> {
//! #         Some(geom_core::PointProjection { point: Point3::from(p.coords.normalize() * self.0), is_inside: p.coords.norm() <= self.0 })
//! #     }
//! #     fn support_local(&self, d: &Vector3<f64>) -> Option<Point3<f64>> { Some(Point3::from(d.normalize() * self.0)) }
//! # }
//! // A dumbbell: two unit balls at x = ±3.
//! let dumbbell = Compound::new(vec![
//!     (Isometry3::translation(-3.0, 0.0, 0.0), Arc::new(Ball(1.0)) as Arc<dyn Shape<f64>>),
//!     (Isometry3::translation(3.0, 0.0, 0.0), Arc::new(Ball(1.0))),
//! ])
//! .unwrap();
//! // Along x from x = 10: the right ball's surface at x = 4, t = 6.
//! let ray = Ray::new(Point3::new(10.0, 0.0, 0.0), -Vector3::x());
//! assert_eq!(dumbbell.ray_cast_local(&ray, f64::INFINITY, true).unwrap().t, 6.0);
//! // Between the balls nothing is inside.
//! assert!(!dumbbell.closest_point_local(&Point3::origin(), true).unwrap().is_inside);
//! ```

use std::sync::Arc;

use nalgebra::{Isometry3, Point3, Vector3};

use crate::aabb::Aabb;
use crate::bvh::Bvh;
use crate::contact::ContactManifolds;
use crate::dispatch::{ClosestPoints, DispatchTable};
use crate::error::GeomError;
use crate::projection::PointProjection;
use crate::ray::{Ray, RayHit};
use crate::scalar::Real;
use crate::shape::{Shape, ShapeKind};

/// A child of a compound: its pose in the compound's frame and its shape.
pub type Child<N> = (Isometry3<N>, Arc<dyn Shape<N>>);

/// Posed child shapes; see the [module documentation](self).
#[derive(Clone, Debug)]
pub struct Compound<N: Real> {
    children: Vec<Child<N>>,
    bvh: Bvh<N>,
}

impl<N: Real> Compound<N> {
    /// The compound of `children` (each shape at its pose in the
    /// compound's frame). `Err` names an empty list or a child whose pose
    /// is not finite.
    pub fn new(children: Vec<Child<N>>) -> Result<Self, GeomError> {
        if children.is_empty() {
            return Err(GeomError::invalid(
                "compound",
                "children",
                "[]",
                "must hold at least one shape",
            ));
        }
        for (i, (pose, _)) in children.iter().enumerate() {
            let finite = pose
                .translation
                .vector
                .iter()
                .chain(pose.rotation.coords.iter())
                .all(|c| c.is_finite());
            if !finite {
                return Err(GeomError::invalid(
                    "compound",
                    "children",
                    format_args!("child {i} at {pose:?}"),
                    "poses must be finite",
                ));
            }
        }
        let boxes: Vec<Aabb<N>> = children.iter().map(|(pose, shape)| shape.aabb(pose)).collect();
        let bvh = Bvh::build(&boxes);
        Ok(Compound { children, bvh })
    }

    /// The children, in the order given.
    pub fn children(&self) -> &[Child<N>] {
        &self.children
    }

    /// The tree over the children's boxes (primitive `i` is child `i`).
    pub fn bvh(&self) -> &Bvh<N> {
        &self.bvh
    }
}

impl<N: Real> Shape<N> for Compound<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Compound
    }

    fn is_convex(&self) -> bool {
        false
    }

    fn local_aabb(&self) -> Aabb<N> {
        self.bvh.root_aabb().expect("a compound has a child")
    }

    /// The first child hit (its own `solid` rule: an origin inside a child
    /// hits it at `t = 0`; hollow, a ray from inside reports where it
    /// leaves the first child it leaves). The feature is the child's.
    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        let (child, t) = self.bvh.ray_cast(ray, max_t, |i, limit| {
            let (pose, shape) = &self.children[i as usize];
            shape.ray_cast(pose, ray, limit, solid).map(|hit| hit.t)
        })?;
        let (pose, shape) = &self.children[child as usize];
        shape.ray_cast(pose, ray, t, solid)
    }

    /// The nearest child's closest point; inside when the point is inside
    /// any child (a solid query then returns the point itself; a hollow
    /// one the boundary of the child holding it).
    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        let mut inside: Option<PointProjection<N>> = None;
        let unlimited = nalgebra::convert::<f64, N>(f64::INFINITY);
        let (child, _) = self.bvh.closest(point, unlimited, |i, _| {
            let (pose, shape) = &self.children[i as usize];
            let projection = shape.closest_point(pose, point, solid)?;
            if projection.is_inside {
                inside.get_or_insert(projection);
                return Some(N::zero());
            }
            Some(crate::ray::length_without_overflow(&(point - projection.point)))
        })?;
        if let Some(projection) = inside {
            return Some(projection);
        }
        let (pose, shape) = &self.children[child as usize];
        shape.closest_point(pose, point, solid)
    }

    fn support_local(&self, _dir: &Vector3<N>) -> Option<Point3<N>> {
        None
    }
}

/// Contacts between a compound (`a`) at `pose` and any `other` shape
/// (`b`): each child whose box (in the other's reach) meets the other's
/// box collides with it through `table`; nested compounds recurse.
/// Normals point from the compound to the other shape. Errors are the
/// table's (nothing appended then).
pub fn contact_compound_any<N: Real>(
    compound: &Compound<N>,
    pose: &Isometry3<N>,
    other: &dyn Shape<N>,
    other_pose: &Isometry3<N>,
    margin: N,
    table: &DispatchTable<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    let first = out.len();
    let answer = append_child_contacts(compound, pose, other, other_pose, margin, table, out);
    if answer.is_err() {
        out.truncate(first);
    }
    answer
}

fn append_child_contacts<N: Real>(
    compound: &Compound<N>,
    pose: &Isometry3<N>,
    other: &dyn Shape<N>,
    other_pose: &Isometry3<N>,
    margin: N,
    table: &DispatchTable<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    // The other shape is itself a compound: go through its children,
    // keeping this compound as `a`.
    if let Some(other_compound) = (other as &dyn std::any::Any).downcast_ref::<Compound<N>>() {
        let this_box = compound
            .local_aabb()
            .transformed(&other_pose.inv_mul(pose))
            .loosened(margin);
        let mut answer = Ok(());
        other_compound.bvh.visit_aabb(&this_box, |j| {
            let (child_pose, child) = &other_compound.children[j as usize];
            answer = append_child_contacts(
                compound,
                pose,
                child.as_ref(),
                &(other_pose * child_pose),
                margin,
                table,
                out,
            );
            answer.is_ok()
        });
        return answer;
    }
    let other_box = other.aabb(&pose.inv_mul(other_pose)).loosened(margin);
    let mut answer = Ok(());
    compound.bvh.visit_aabb(&other_box, |i| {
        let (child_pose, child) = &compound.children[i as usize];
        let world_pose = pose * child_pose;
        answer = match (child.as_ref() as &dyn std::any::Any).downcast_ref::<Compound<N>>() {
            Some(inner) => append_child_contacts(inner, &world_pose, other, other_pose, margin, table, out),
            None => table.append_contacts(child.as_ref(), &world_pose, other, other_pose, margin, out),
        };
        answer.is_ok()
    });
    answer
}

/// The closest points of a compound (`a`) and any `other` shape (`b`)
/// within `max_distance`: `Intersecting` when a child meets it, else the
/// nearest child's closest points (children visited nearest first through
/// the tree, by their boxes' distance from the other shape's box centre
/// less its reach). Errors are the table's.
pub fn closest_points_compound_any<N: Real>(
    compound: &Compound<N>,
    pose: &Isometry3<N>,
    other: &dyn Shape<N>,
    other_pose: &Isometry3<N>,
    max_distance: N,
    table: &DispatchTable<N>,
) -> Result<ClosestPoints<N>, GeomError> {
    if let Some(other_compound) = (other as &dyn std::any::Any).downcast_ref::<Compound<N>>() {
        // Through the other's children, keeping the roles.
        let mut best: Option<(N, ClosestPoints<N>)> = None;
        for (child_pose, child) in &other_compound.children {
            let answer = closest_points_compound_any(
                compound,
                pose,
                child.as_ref(),
                &(other_pose * child_pose),
                max_distance,
                table,
            )?;
            match answer {
                ClosestPoints::Intersecting => return Ok(answer),
                ClosestPoints::WithinMargin { point_a, point_b } => {
                    let d = crate::ray::length_without_overflow(&(point_b - point_a));
                    if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                        best = Some((d, answer));
                    }
                }
                ClosestPoints::Disjoint => {}
            }
        }
        return Ok(best.map_or(ClosestPoints::Disjoint, |(_, answer)| answer));
    }
    let local_box = other.aabb(&pose.inv_mul(other_pose));
    let centre = local_box.center();
    let reach = crate::ray::length_without_overflow(&(local_box.maxs - local_box.mins))
        * nalgebra::convert::<f64, N>(0.5);
    let mut best: Option<(N, ClosestPoints<N>)> = None;
    let mut failure: Option<Result<ClosestPoints<N>, GeomError>> = None;
    let child_answer = |i: u32, within: N| {
        let (child_pose, child) = &compound.children[i as usize];
        let world_pose = pose * child_pose;
        match (child.as_ref() as &dyn std::any::Any).downcast_ref::<Compound<N>>() {
            Some(inner) => closest_points_compound_any(inner, &world_pose, other, other_pose, within, table),
            None => table.closest_points(child.as_ref(), &world_pose, other, other_pose, within),
        }
    };
    if !(centre.iter().all(|c| c.is_finite()) && reach.is_finite()) {
        // An unbounded other shape (a half-space): every child, in turn.
        for i in 0..compound.children.len() as u32 {
            let limit = best.as_ref().map_or(max_distance, |(d, _)| d.min(max_distance));
            match child_answer(i, limit)? {
                ClosestPoints::Intersecting => return Ok(ClosestPoints::Intersecting),
                ClosestPoints::WithinMargin { point_a, point_b } => {
                    let d = crate::ray::length_without_overflow(&(point_b - point_a));
                    if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                        best = Some((d, ClosestPoints::WithinMargin { point_a, point_b }));
                    }
                }
                ClosestPoints::Disjoint => {}
            }
        }
        return Ok(best.map_or(ClosestPoints::Disjoint, |(_, answer)| answer));
    }
    compound.bvh.closest(&centre, max_distance + reach, |i, bound| {
        if failure.is_some() {
            return None;
        }
        let within = (bound - reach).max(N::zero()).min(max_distance);
        let answer = child_answer(i, within);
        match answer {
            Ok(ClosestPoints::WithinMargin { point_a, point_b }) => {
                let d = crate::ray::length_without_overflow(&(point_b - point_a));
                if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                    best = Some((d, ClosestPoints::WithinMargin { point_a, point_b }));
                }
                Some(d + reach)
            }
            Ok(ClosestPoints::Disjoint) => None,
            Ok(ClosestPoints::Intersecting) | Err(_) => {
                failure = Some(answer);
                // Stops the search: nothing is nearer than touching.
                Some(N::zero())
            }
        }
    });
    if let Some(answer) = failure {
        return answer;
    }
    Ok(best.map_or(ClosestPoints::Disjoint, |(_, answer)| answer))
}

/// The kinds a compound's routines are registered against by name (any
/// other convex kind is served through the "any convex" slot).
const KINDS: [ShapeKind; 13] = [
    ShapeKind::Sphere,
    ShapeKind::Capsule,
    ShapeKind::Cylinder,
    ShapeKind::Cone,
    ShapeKind::Ellipsoid,
    ShapeKind::Cuboid,
    ShapeKind::HalfSpace,
    ShapeKind::Triangle,
    ShapeKind::Segment,
    ShapeKind::HeightField,
    ShapeKind::TriMesh,
    ShapeKind::ConvexHull,
    ShapeKind::Compound,
];

/// Registers the compound's contact and closest-points routines in
/// `table` against every built-in kind (compounds included) and any
/// convex custom kind, each serving both orders. Children collide through
/// a copy of `table` as it is now: call this after every other routine is
/// registered (`geom::default_dispatcher` does it last).
pub fn register_pairs<N: Real>(table: &mut DispatchTable<N>) {
    let inner = Arc::new(table.clone());
    fn as_compound<'a, N: Real>(a: &'a dyn Shape<N>, b: &dyn Shape<N>) -> Result<&'a Compound<N>, GeomError> {
        (a as &dyn std::any::Any)
            .downcast_ref::<Compound<N>>()
            .ok_or(GeomError::Unsupported {
                a: a.kind(),
                b: b.kind(),
            })
    }
    for kind in KINDS {
        let contact_table = inner.clone();
        table.register_contact_dyn(
            ShapeKind::Compound,
            kind,
            move |a, pose_a, b, pose_b, margin, out| {
                contact_compound_any(as_compound(a, b)?, pose_a, b, pose_b, margin, &contact_table, out)
            },
        );
        let closest_table = inner.clone();
        table.register_closest_points_dyn(
            ShapeKind::Compound,
            kind,
            move |a, pose_a, b, pose_b, max_distance| {
                closest_points_compound_any(
                    as_compound(a, b)?,
                    pose_a,
                    b,
                    pose_b,
                    max_distance,
                    &closest_table,
                )
            },
        );
    }
    let contact_table = inner.clone();
    table.register_contact_with_any_convex(ShapeKind::Compound, move |a, pose_a, b, pose_b, margin, out| {
        contact_compound_any(as_compound(a, b)?, pose_a, b, pose_b, margin, &contact_table, out)
    });
    table.register_closest_points_with_any_convex(
        ShapeKind::Compound,
        move |a, pose_a, b, pose_b, max_distance| {
            closest_points_compound_any(as_compound(a, b)?, pose_a, b, pose_b, max_distance, &inner)
        },
    );
}
