//! The table's bookkeeping, on two toy shapes whose answers are known in
//! closed form: balls (centre distance minus radii) and a non-convex
//! "marker" shape that only answers through registered routines.

use nalgebra::{Isometry3, Point3, Vector3};

use super::*;
use crate::aabb::Aabb;
use crate::contact::ContactPoint;
use crate::projection::PointProjection;
use crate::ray::{FeatureId, Ray, RayHit};

/// A ball around the local origin; claims `kind` (so a test can make it
/// lie about its type).
#[derive(Debug)]
struct Ball {
    radius: f64,
    kind: ShapeKind,
}

impl Ball {
    fn new(radius: f64) -> Self {
        Ball {
            radius,
            kind: ShapeKind::Sphere,
        }
    }
}

impl Shape<f64> for Ball {
    fn kind(&self) -> ShapeKind {
        self.kind
    }
    fn is_convex(&self) -> bool {
        true
    }
    fn local_aabb(&self) -> Aabb<f64> {
        let r = Vector3::repeat(self.radius);
        Aabb::new(Point3::from(-r), Point3::from(r))
    }
    fn ray_cast_local(&self, _: &Ray<f64>, _: f64, _: bool) -> Option<RayHit<f64>> {
        None
    }
    fn closest_point_local(&self, _: &Point3<f64>, _: bool) -> Option<PointProjection<f64>> {
        None
    }
    fn support_local(&self, dir: &Vector3<f64>) -> Option<Point3<f64>> {
        dir.try_normalize(0.0).map(|d| Point3::from(d * self.radius))
    }
}

/// A non-convex shape of a custom kind, with a height at which it is "cut".
#[derive(Debug)]
struct Marker {
    kind: ShapeKind,
    height: f64,
}

impl Shape<f64> for Marker {
    fn kind(&self) -> ShapeKind {
        self.kind
    }
    fn is_convex(&self) -> bool {
        false
    }
    fn local_aabb(&self) -> Aabb<f64> {
        Aabb::new(Point3::origin(), Point3::origin())
    }
    fn ray_cast_local(&self, _: &Ray<f64>, _: f64, _: bool) -> Option<RayHit<f64>> {
        None
    }
    fn closest_point_local(&self, _: &Point3<f64>, _: bool) -> Option<PointProjection<f64>> {
        None
    }
    fn support_local(&self, _: &Vector3<f64>) -> Option<Point3<f64>> {
        None
    }
}

/// Ball–ball contact in closed form (normal from a to b).
fn ball_ball(
    a: &Ball,
    pa: &Isometry3<f64>,
    b: &Ball,
    pb: &Isometry3<f64>,
    margin: f64,
    out: &mut ContactManifolds<f64>,
) {
    let ca = Point3::from(pa.translation.vector);
    let cb = Point3::from(pb.translation.vector);
    let d = cb - ca;
    let distance = d.norm();
    let normal = d.try_normalize(0.0).unwrap_or_else(Vector3::y);
    let depth = a.radius + b.radius - distance;
    if depth >= -margin {
        out.push_manifold(normal).points.push(ContactPoint {
            point_a: ca + normal * a.radius,
            point_b: cb - normal * b.radius,
            depth,
            feature_a: FeatureId::Face(0),
            feature_b: FeatureId::Vertex(7),
        });
    }
}

/// Marker–ball contact: the ball against the plane `y = height`, the
/// marker's feature being the ball's centre x rounded (to see swaps).
fn marker_ball(
    a: &Marker,
    _: &Isometry3<f64>,
    b: &Ball,
    pb: &Isometry3<f64>,
    margin: f64,
    out: &mut ContactManifolds<f64>,
) {
    let centre = Point3::from(pb.translation.vector);
    let depth = a.height - (centre.y - b.radius);
    if depth >= -margin {
        out.push_manifold(Vector3::y()).points.push(ContactPoint {
            point_a: Point3::new(centre.x, a.height, centre.z),
            point_b: centre - Vector3::y() * b.radius,
            depth,
            feature_a: FeatureId::Edge(centre.x as u32),
            feature_b: FeatureId::Unknown,
        });
    }
}

fn at(x: f64, y: f64, z: f64) -> Isometry3<f64> {
    Isometry3::translation(x, y, z)
}

#[test]
fn a_routine_registered_once_serves_both_orders() {
    let kind = ShapeKind::new_custom().unwrap();
    let mut table = DispatchTable::new();
    table.register_contact(kind, ShapeKind::Sphere, marker_ball);
    let marker = Marker { kind, height: 1.0 };
    let ball = Ball::new(0.5);
    let (pm, pb) = (at(0.0, 0.0, 0.0), at(3.0, 1.25, -2.0));
    let mut forward = ContactManifolds::new();
    let mut backward = ContactManifolds::new();
    table
        .contact(&marker, &pm, &ball, &pb, 0.0, &mut forward)
        .unwrap();
    table
        .contact(&ball, &pb, &marker, &pm, 0.0, &mut backward)
        .unwrap();
    assert_eq!(forward.len(), 1);
    assert_eq!(backward.len(), 1);
    let (f, b) = (&forward.as_slice()[0], &backward.as_slice()[0]);
    assert_eq!(b.normal, -f.normal);
    assert_eq!(b.points[0], f.points[0].swapped());
    assert_eq!(f.points[0].depth, 0.25);
    assert_eq!(f.points[0].feature_a, FeatureId::Edge(3));
    assert_eq!(b.points[0].feature_b, FeatureId::Edge(3));
}

#[test]
fn the_convex_fallback_answers_unregistered_convex_pairs_only() {
    let mut table = DispatchTable::new();
    let dyn_ball_ball = |a: &dyn Shape<f64>,
                         pa: &Isometry3<f64>,
                         b: &dyn Shape<f64>,
                         pb: &Isometry3<f64>,
                         margin: f64,
                         out: &mut ContactManifolds<f64>| {
        // Stands in for GJK/EPA: reads the radii back through supports.
        let ra = a.support_local(&Vector3::x()).unwrap().x;
        let rb = b.support_local(&Vector3::x()).unwrap().x;
        ball_ball(&Ball::new(ra), pa, &Ball::new(rb), pb, margin, out);
        Ok(())
    };
    table.set_convex_fallback(dyn_ball_ball, |_, _, _, _, _| Ok(ClosestPoints::Disjoint));
    let mut out = ContactManifolds::new();
    let (a, b) = (Ball::new(1.0), Ball::new(2.0));
    table
        .contact(&a, &at(0.0, 0.0, 0.0), &b, &at(0.0, 0.0, 2.5), 0.0, &mut out)
        .unwrap();
    assert_eq!(out.as_slice()[0].points[0].depth, 0.5);
    assert_eq!(out.as_slice()[0].normal, Vector3::z());

    let marker = Marker {
        kind: ShapeKind::HeightField,
        height: 0.0,
    };
    let answer = table.contact(&marker, &at(0.0, 0.0, 0.0), &b, &at(0.0, 0.0, 0.0), 0.0, &mut out);
    assert_eq!(
        answer,
        Err(GeomError::Unsupported {
            a: ShapeKind::HeightField,
            b: ShapeKind::Sphere
        })
    );
    assert!(out.is_empty());
    assert!(table.supports_contact(&a, &b));
    assert!(!table.supports_contact(&marker, &b));
}

#[test]
fn bad_poses_and_margins_are_errors_before_any_routine_runs() {
    let mut table = DispatchTable::new();
    table.register_contact(ShapeKind::Sphere, ShapeKind::Sphere, ball_ball);
    let ball = Ball::new(1.0);
    let good = at(0.0, 0.0, 0.0);
    let mut out = ContactManifolds::new();
    let nan_translation = at(f64::NAN, 0.0, 0.0);
    let mut nan_rotation = good;
    nan_rotation.rotation = nalgebra::Unit::new_unchecked(nalgebra::Quaternion::new(f64::NAN, 0.0, 0.0, 0.0));
    let infinite = at(0.0, f64::INFINITY, 0.0);
    for (pose, which) in [
        (nan_translation, "pose_a"),
        (nan_rotation, "pose_a"),
        (infinite, "pose_a"),
    ] {
        let e = table.contact(&ball, &pose, &ball, &good, 0.0, &mut out);
        assert_eq!(e, Err(GeomError::NonFinite { input: which }));
        let e = table.contact(&ball, &good, &ball, &pose, 0.0, &mut out);
        assert_eq!(e, Err(GeomError::NonFinite { input: "pose_b" }));
        assert!(table.distance(&ball, &good, &ball, &pose).is_err());
        assert!(table.intersects(&ball, &pose, &ball, &good).is_err());
    }
    for margin in [-1e-300, -1.0, f64::NAN, f64::NEG_INFINITY] {
        let e = table.contact(&ball, &good, &ball, &good, margin, &mut out);
        assert!(
            matches!(
                e,
                Err(GeomError::InvalidParameter {
                    parameter: "margin",
                    ..
                })
            ),
            "{margin}: {e:?}"
        );
    }
    // An infinite margin is allowed: every pair is reported (1e100 apart:
    // this test's plain `|d|` would overflow to an infinite depth at 1e300,
    // which the table refuses).
    table
        .contact(&ball, &good, &ball, &at(1e100, 0.0, 0.0), f64::INFINITY, &mut out)
        .unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(
        table.contact(&ball, &good, &ball, &at(1e300, 0.0, 0.0), f64::INFINITY, &mut out),
        Err(GeomError::NonFinite {
            input: "the contact answer (inputs too large for this precision)"
        })
    );
    assert!(out.is_empty());
}

#[test]
fn a_shape_lying_about_its_kind_is_unsupported_not_a_panic() {
    let mut table = DispatchTable::new();
    table.register_contact(ShapeKind::Sphere, ShapeKind::Sphere, ball_ball);
    let liar = Marker {
        kind: ShapeKind::Sphere,
        height: 0.0,
    };
    let ball = Ball::new(1.0);
    let pose = at(0.0, 0.0, 0.0);
    let mut out = ContactManifolds::new();
    assert_eq!(
        table.contact(&liar, &pose, &ball, &pose, 0.0, &mut out),
        Err(GeomError::Unsupported {
            a: ShapeKind::Sphere,
            b: ShapeKind::Sphere
        })
    );
}

#[test]
fn closest_points_distance_and_intersects_fall_back_to_the_contact_routine() {
    let kind = ShapeKind::new_custom().unwrap();
    let mut table = DispatchTable::new();
    table.register_contact(kind, ShapeKind::Sphere, marker_ball);
    let marker = Marker { kind, height: 0.0 };
    let ball = Ball::new(1.0);
    let origin = at(0.0, 0.0, 0.0);
    // Ball bottom at y = 2.5: 2.5 above the cut.
    let above = at(0.0, 3.5, 0.0);
    assert_eq!(table.distance(&marker, &origin, &ball, &above), Ok(2.5));
    assert_eq!(table.distance(&ball, &above, &marker, &origin), Ok(2.5));
    assert_eq!(table.intersects(&marker, &origin, &ball, &above), Ok(false));
    assert_eq!(
        table.closest_points(&marker, &origin, &ball, &above, 1.0),
        Ok(ClosestPoints::Disjoint)
    );
    assert_eq!(
        table.closest_points(&ball, &above, &marker, &origin, 3.0),
        Ok(ClosestPoints::WithinMargin {
            point_a: Point3::new(0.0, 2.5, 0.0),
            point_b: Point3::new(0.0, 0.0, 0.0),
        })
    );
    let touching = at(0.0, 1.0, 0.0);
    assert_eq!(table.intersects(&marker, &origin, &ball, &touching), Ok(true));
    assert_eq!(table.distance(&marker, &origin, &ball, &touching), Ok(0.0));
    let sunk = at(0.0, 0.5, 0.0);
    assert_eq!(
        table.closest_points(&marker, &origin, &ball, &sunk, 0.0),
        Ok(ClosestPoints::Intersecting)
    );
}

#[test]
fn registered_closest_points_routines_are_swapped_too() {
    let mut table = DispatchTable::new();
    let kind = ShapeKind::new_custom().unwrap();
    table.register_closest_points(kind, ShapeKind::Sphere, |_: &Marker, _, b: &Ball, pb, _| {
        ClosestPoints::WithinMargin {
            point_a: Point3::origin(),
            point_b: Point3::from(pb.translation.vector) - Vector3::y() * b.radius,
        }
    });
    let marker = Marker { kind, height: 0.0 };
    let ball = Ball::new(1.0);
    let (pm, pb) = (at(0.0, 0.0, 0.0), at(0.0, 4.0, 0.0));
    let forward = table.closest_points(&marker, &pm, &ball, &pb, 10.0).unwrap();
    let backward = table.closest_points(&ball, &pb, &marker, &pm, 10.0).unwrap();
    assert_eq!(backward, forward.swapped());
    assert_eq!(table.distance(&ball, &pb, &marker, &pm), Ok(3.0));
}

#[test]
fn custom_kinds_grow_the_table_and_keep_every_entry() {
    let mut table = DispatchTable::new();
    table.register_contact(ShapeKind::Sphere, ShapeKind::Sphere, ball_ball);
    let mut last = ShapeKind::Sphere;
    for _ in 0..40 {
        last = ShapeKind::new_custom().unwrap();
    }
    table.register_contact(last, ShapeKind::Sphere, marker_ball);
    let ball = Ball::new(1.0);
    let mut out = ContactManifolds::new();
    table
        .contact(
            &ball,
            &at(0.0, 0.0, 0.0),
            &ball,
            &at(0.0, 1.5, 0.0),
            0.0,
            &mut out,
        )
        .unwrap();
    assert_eq!(out.as_slice()[0].points[0].depth, 0.5);
    let marker = Marker {
        kind: last,
        height: 0.0,
    };
    table
        .contact(
            &ball,
            &at(0.0, 0.5, 0.0),
            &marker,
            &at(0.0, 0.0, 0.0),
            0.0,
            &mut out,
        )
        .unwrap();
    assert_eq!(out.as_slice()[0].normal, -Vector3::y());
    // A custom kind newer than anything registered is simply unsupported.
    let newer = Marker {
        kind: ShapeKind::new_custom().unwrap(),
        height: 0.0,
    };
    assert!(matches!(
        table.contact(
            &newer,
            &at(0.0, 0.0, 0.0),
            &ball,
            &at(0.0, 0.0, 0.0),
            0.0,
            &mut out
        ),
        Err(GeomError::Unsupported { .. })
    ));
}

#[test]
fn kind_indices_are_dense_and_distinct() {
    let builtins = [
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
    let indices: Vec<usize> = builtins.iter().map(|k| k.index()).collect();
    assert_eq!(indices, (0..BUILTIN_KINDS).collect::<Vec<_>>());
    assert_eq!(ShapeKind::Custom(0).index(), BUILTIN_KINDS);
    let a = ShapeKind::new_custom().unwrap();
    let b = ShapeKind::new_custom().unwrap();
    assert_ne!(a, b);
}

#[test]
fn a_routine_against_any_convex_shape_serves_every_convex_kind_both_ways() {
    let kind = ShapeKind::new_custom().unwrap();
    let mut table = DispatchTable::new();
    table.register_contact_with_any_convex(kind, |a, pa, b, pb, margin, out| {
        // The marker as a cut plane against a ball read back by support.
        let marker = (a as &dyn Any).downcast_ref::<Marker>().unwrap();
        let radius = b.support_local(&Vector3::x()).unwrap().x;
        marker_ball(marker, pa, &Ball::new(radius), pb, margin, out);
        Ok(())
    });
    let marker = Marker { kind, height: 0.0 };
    let origin = at(0.0, 0.0, 0.0);
    let mut out = ContactManifolds::new();
    for claimed in [
        ShapeKind::Sphere,
        ShapeKind::Cuboid,
        ShapeKind::new_custom().unwrap(),
    ] {
        let ball = Ball {
            radius: 1.0,
            kind: claimed,
        };
        table
            .contact(&marker, &origin, &ball, &at(0.0, 0.75, 0.0), 0.0, &mut out)
            .unwrap();
        assert_eq!(out.as_slice()[0].normal, Vector3::y(), "{claimed:?}");
        assert_eq!(out.as_slice()[0].points[0].depth, 0.25);
        table
            .contact(&ball, &at(0.0, 0.75, 0.0), &marker, &origin, 0.0, &mut out)
            .unwrap();
        assert_eq!(out.as_slice()[0].normal, -Vector3::y());
        assert_eq!(
            table.distance(&ball, &at(0.0, 3.0, 0.0), &marker, &origin),
            Ok(2.0)
        );
    }
    // Two markers: neither is convex.
    assert!(matches!(
        table.contact(&marker, &origin, &marker, &origin, 0.0, &mut out),
        Err(GeomError::Unsupported { .. })
    ));
    // Appending keeps what was there; an error appends nothing.
    let ball = Ball::new(1.0);
    out.clear();
    table
        .append_contacts(&marker, &origin, &ball, &at(0.0, 0.5, 0.0), 0.0, &mut out)
        .unwrap();
    table
        .append_contacts(&ball, &at(5.0, 0.5, 0.0), &marker, &origin, 0.0, &mut out)
        .unwrap();
    assert!(
        table
            .append_contacts(&marker, &origin, &marker, &origin, 0.0, &mut out)
            .is_err()
    );
    assert_eq!(out.len(), 2);
    assert_eq!(out.as_slice()[0].normal, Vector3::y());
    assert_eq!(out.as_slice()[1].normal, -Vector3::y());
    assert_eq!(out.as_slice()[1].points[0].point_b, Point3::new(5.0, 0.0, 0.0));
}
