//! A downstream crate's view: shapes defined outside geom, given a kind at
//! run time, colliding through the default dispatcher with nothing but
//! geom's public API.

use std::sync::OnceLock;

use geom::prelude::*;

/// A ball known only through its support function, of a custom kind: the
/// dispatcher has no routine for it and must fall back to GJK/EPA.
#[derive(Debug)]
struct SupportBall {
    radius: f64,
}

fn support_ball_kind() -> ShapeKind {
    static KIND: OnceLock<ShapeKind> = OnceLock::new();
    *KIND.get_or_init(|| ShapeKind::new_custom().unwrap())
}

impl Shape<f64> for SupportBall {
    fn kind(&self) -> ShapeKind {
        support_ball_kind()
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

/// An infinite horizontal water surface at local y = 0: not convex, so it
/// only collides through routines registered for its kind.
#[derive(Debug)]
struct Water;

fn water_kind() -> ShapeKind {
    static KIND: OnceLock<ShapeKind> = OnceLock::new();
    *KIND.get_or_init(|| ShapeKind::new_custom().unwrap())
}

impl Shape<f64> for Water {
    fn kind(&self) -> ShapeKind {
        water_kind()
    }
    fn is_convex(&self) -> bool {
        false
    }
    fn local_aabb(&self) -> Aabb<f64> {
        Aabb::new(Point3::new(-1e30, -1e30, -1e30), Point3::new(1e30, 0.0, 1e30))
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

/// Water (a) against any convex shape (b) at an identity-rotation water
/// pose: the shape's lowest point below the surface.
fn water_contact(
    _water: &dyn Shape<f64>,
    water_pose: &Isometry3<f64>,
    shape: &dyn Shape<f64>,
    shape_pose: &Isometry3<f64>,
    margin: f64,
    out: &mut ContactManifolds<f64>,
) -> Result<(), GeomError> {
    let level = water_pose.translation.vector.y;
    let lowest = shape
        .support(shape_pose, &-Vector3::y())
        .ok_or(GeomError::Unsupported {
            a: water_kind(),
            b: shape.kind(),
        })?;
    let depth = level - lowest.y;
    if depth >= -margin {
        out.push_manifold(Vector3::y()).points.push(ContactPoint {
            point_a: Point3::new(lowest.x, level, lowest.z),
            point_b: lowest,
            depth,
            feature_a: FeatureId::Face(0),
            feature_b: FeatureId::Unknown,
        });
    }
    Ok(())
}

fn dispatcher() -> DispatchTable<f64> {
    let mut table = geom::default_dispatcher();
    table.register_contact_with_any_convex(water_kind(), water_contact);
    table
}

#[test]
fn a_custom_convex_shape_collides_with_every_builtin_convex_shape_through_gjk() {
    let table = dispatcher();
    let ball = SupportBall { radius: 0.5 };
    let sphere = Sphere::new(0.5);
    let others: Vec<(Box<dyn Shape<f64>>, Isometry3<f64>)> = vec![
        (
            Box::new(Cuboid::new(Vector3::new(1.0, 0.5, 0.75))),
            Isometry3::translation(0.3, -0.9, 0.1),
        ),
        (
            Box::new(Capsule::from_points(
                Point3::new(-1.0, 0.0, 0.0),
                Point3::new(1.0, 0.0, 0.0),
                0.3,
            )),
            Isometry3::translation(0.2, 0.9, 0.0),
        ),
        (Box::new(Sphere::new(0.7)), Isometry3::translation(1.0, 0.3, -0.2)),
        (
            Box::new(Triangle::new(
                Point3::new(-2.0, -0.4, -2.0),
                Point3::new(2.0, -0.4, -2.0),
                Point3::new(0.0, -0.4, 3.0),
            )),
            Isometry3::identity(),
        ),
    ];
    let ball_pose = Isometry3::translation(0.0, 0.05, 0.0);
    let mut custom = ContactManifolds::new();
    let mut builtin = ContactManifolds::new();
    for (other, pose) in &others {
        // The built-in sphere's analytic answer is the independent reference.
        table
            .contact(&sphere, &ball_pose, other.as_ref(), pose, 0.1, &mut builtin)
            .unwrap();
        table
            .contact(&ball, &ball_pose, other.as_ref(), pose, 0.1, &mut custom)
            .unwrap();
        let expected = builtin
            .points()
            .map(|(_, p)| p.depth)
            .fold(f64::NEG_INFINITY, f64::max);
        let got = custom
            .points()
            .map(|(_, p)| p.depth)
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(
            expected.is_finite(),
            "{:?}: the reference found no contact",
            other.kind()
        );
        assert!(
            (got - expected).abs() < 1e-6,
            "{:?}: depth {got} vs {expected}",
            other.kind()
        );
        let (n_custom, _) = custom.points().next().unwrap();
        let (n_builtin, _) = builtin.points().next().unwrap();
        assert!(
            (n_custom - n_builtin).norm() < 1e-4,
            "{:?}: normal {n_custom} vs {n_builtin}",
            other.kind()
        );
        let distance = table.distance(&ball, &ball_pose, other.as_ref(), pose).unwrap();
        let reference = table.distance(&sphere, &ball_pose, other.as_ref(), pose).unwrap();
        assert!(
            (distance - reference).abs() < 1e-6,
            "{:?}: distance {distance} vs {reference}",
            other.kind()
        );
    }
}

#[test]
fn a_custom_non_convex_shape_answers_through_its_registered_routine_in_both_orders() {
    let table = dispatcher();
    let water = Water;
    let water_pose = Isometry3::translation(0.0, 2.0, 0.0);
    let boat = Cuboid::new(Vector3::new(2.0, 0.5, 1.0));
    let boat_pose = Isometry3::translation(3.0, 2.2, -1.0);
    let mut out = ContactManifolds::new();
    table
        .contact(&water, &water_pose, &boat, &boat_pose, 0.0, &mut out)
        .unwrap();
    let (normal, point) = out.points().map(|(n, p)| (*n, *p)).next().unwrap();
    assert_eq!(normal, Vector3::y());
    assert!((point.depth - 0.3).abs() < 1e-12, "{point:?}");
    table
        .contact(&boat, &boat_pose, &water, &water_pose, 0.0, &mut out)
        .unwrap();
    let (normal, swapped) = out.points().next().unwrap();
    assert_eq!(*normal, -Vector3::y());
    assert_eq!(swapped.point_a, point.point_b);
    // Through the contact routine, the distance queries work too.
    let above = Isometry3::translation(0.0, 3.5, 0.0);
    assert!(
        (table
            .distance(&water, &water_pose, &Sphere::new(1.0), &above)
            .unwrap()
            - 0.5)
            .abs()
            < 1e-12
    );
    assert_eq!(table.intersects(&water, &water_pose, &boat, &boat_pose), Ok(true));
    // Two custom shapes nobody registered: a clear error, not a panic.
    let answer = table.contact(&water, &water_pose, &water, &water_pose, 0.0, &mut out);
    assert_eq!(
        answer,
        Err(GeomError::Unsupported {
            a: water_kind(),
            b: water_kind()
        })
    );
    // A heightfield and the water: neither convex, nothing registered.
    let ground = HeightField::new(Point3::origin(), [1.0, 1.0], 2, 2, vec![0.0; 4]);
    assert!(
        table
            .contact(
                &ground,
                &Isometry3::identity(),
                &water,
                &water_pose,
                0.0,
                &mut out
            )
            .is_err()
    );
    // The custom convex ball against the heightfield (triangles via GJK).
    let ball_pose = Isometry3::translation(0.5, 0.4, 0.5);
    table
        .contact(
            &ground,
            &Isometry3::identity(),
            &SupportBall { radius: 0.5 },
            &ball_pose,
            0.0,
            &mut out,
        )
        .unwrap();
    let deepest = out
        .points()
        .map(|(_, p)| p.depth)
        .fold(f64::NEG_INFINITY, f64::max);
    assert!((deepest - 0.1).abs() < 1e-6, "{deepest}");
    for (normal, _) in out.points() {
        assert!((normal - Vector3::y()).norm() < 1e-9, "{normal}");
    }
}
