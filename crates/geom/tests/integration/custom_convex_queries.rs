//! A custom convex shape known by its support function answers ray casts
//! and closest points through `geom::prims::convex`, as a user writes it:
//! checked against the primitive with the same geometry (its exact
//! kernels), posed and unposed, from outside and inside, solid or not.

use geom::prelude::*;
use geom::prims::convex::{closest_point_by_support, ray_cast_by_support};
use geom_random::Rng;

/// A convex shape given only by its support function.
#[derive(Debug)]
struct SupportOnly<S: Shape<f64>>(S);

impl<S: Shape<f64>> Shape<f64> for SupportOnly<S> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Custom(40)
    }
    fn is_convex(&self) -> bool {
        true
    }
    fn local_aabb(&self) -> Aabb<f64> {
        self.0.local_aabb()
    }
    fn support_local(&self, dir: &Vector3<f64>) -> Option<Point3<f64>> {
        self.0.support_local(dir)
    }
    fn ray_cast_local(&self, ray: &Ray<f64>, max_t: f64, solid: bool) -> Option<RayHit<f64>> {
        ray_cast_by_support(self, ray, max_t, solid)
    }
    fn closest_point_local(&self, point: &Point3<f64>, solid: bool) -> Option<PointProjection<f64>> {
        closest_point_by_support(self, point, solid)
    }
}

/// The same answers as `exact`'s, to GJK's tolerance, over random rays
/// (from outside at the shape, from inside, solid and not) and points.
fn check_against<S: Shape<f64> + Clone>(exact: S, smooth: bool, seed: u64) {
    let custom = SupportOnly(exact.clone());
    let mut rng = Rng::from_state(seed);
    let poses = [
        Isometry3::identity(),
        Isometry3::from_parts(
            Translation3::new(3.0, -1.0, 2.0),
            UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1),
        ),
    ];
    let (mut hits, mut insides) = (0, 0);
    for pose in &poses {
        let center = pose.translation.vector;
        for k in 0..1500 {
            let origin = Point3::from(center + rng.vector(if k % 3 == 0 { 0.5 } else { 4.0 }));
            let target = Point3::from(center + rng.vector(1.0));
            let dir = (target - origin) * rng.range(0.5, 2.0);
            let ray = Ray::new(origin, dir);
            for solid in [true, false] {
                let want = exact.ray_cast(pose, &ray, f64::MAX, solid);
                let got = custom.ray_cast(pose, &ray, f64::MAX, solid);
                match (want, got) {
                    (Some(want), Some(got)) => {
                        let scale = 1.0 / dir.norm();
                        assert!(
                            (want.t - got.t).abs() <= 1e-6 * scale,
                            "{ray:?} solid {solid}: {want:?} vs {got:?}"
                        );
                        if smooth || want.t == 0.0 {
                            assert!(
                                want.normal.dot(&got.normal) > 1.0 - 1e-6,
                                "{ray:?}: {want:?} vs {got:?}"
                            );
                        }
                        hits += 1;
                    }
                    (None, None) => {}
                    // Only a ray grazing the surface may differ.
                    (want, got) => {
                        let t = want.or(got).unwrap().t;
                        let at = ray.point_at(t);
                        let gap = exact.distance(pose, &at).unwrap().abs();
                        let graze = exact.closest_point(pose, &at, false).map(|p| p.point).unwrap();
                        assert!(
                            gap <= 1e-6,
                            "{ray:?} solid {solid}: {want:?} vs {got:?} ({graze:?})"
                        );
                    }
                }
            }
            let point = origin;
            let want = exact.closest_point(pose, &point, false).unwrap();
            let got = custom.closest_point(pose, &point, false).unwrap();
            assert_eq!(want.is_inside, got.is_inside, "{point:?}");
            // Outside, GJK's distance to its tolerance and the point, on a
            // curved surface, to about the square root of it (the distance
            // is flat in the point's error). Inside, EPA's way out: exact
            // on a polytope; on a curved surface refined from EPA's coarse
            // polytope by a few exits along the surface normal, which
            // converge slowly near a ball's centre (where every way out is
            // nearly as short: 1.3e-5 seen at 0.15 of the radius).
            let (want_distance, got_distance) = ((point - want.point).norm(), (point - got.point).norm());
            let (distance_tolerance, point_tolerance) = match (want.is_inside, smooth) {
                (false, _) => (1e-9, 1e-4),
                (true, false) => (1e-9, 1e-6),
                (true, true) => (1e-4, f64::INFINITY),
            };
            assert!(
                (want_distance - got_distance).abs() <= distance_tolerance,
                "{point:?}: {want:?} vs {got:?}"
            );
            assert!(
                (want.point - got.point).norm() <= point_tolerance,
                "{point:?}: {want:?} vs {got:?}"
            );
            let solid = custom.closest_point(pose, &point, true).unwrap();
            if solid.is_inside {
                assert_eq!(solid.point, point);
                insides += 1;
            }
        }
    }
    assert!(
        hits > 1000 && insides > 100,
        "{hits} hits, {insides} points inside"
    );
}

#[test]
fn a_support_only_ball_answers_as_the_sphere() {
    check_against(Sphere::new(0.9), true, 11);
}

#[test]
fn a_support_only_box_answers_as_the_cuboid() {
    check_against(Cuboid::new(Vector3::new(0.8, 0.5, 1.1)), false, 12);
}

#[test]
fn a_support_only_ellipsoid_answers_as_the_ellipsoid() {
    check_against(Ellipsoid::new(Vector3::new(1.2, 0.6, 0.8)), true, 13);
}

#[test]
fn bad_input_gives_nothing() {
    let custom = SupportOnly(Sphere::new(1.0));
    let id = Isometry3::identity();
    let nan = Ray::new(Point3::new(f64::NAN, 0.0, 0.0), Vector3::x());
    assert!(custom.ray_cast(&id, &nan, 10.0, true).is_none());
    let ray = Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::x());
    assert!(custom.ray_cast(&id, &ray, -1.0, true).is_none());
    assert!(custom.ray_cast_local(&ray, f64::NAN, true).is_none());
    assert!(custom.ray_cast(&id, &ray, 3.0, true).is_none());
    assert!((custom.ray_cast(&id, &ray, 4.5, true).unwrap().t - 4.0).abs() < 1e-9);
    assert!(
        custom
            .closest_point(&id, &Point3::new(f64::INFINITY, 0.0, 0.0), true)
            .is_none()
    );
    // A zero direction from outside misses; from inside, solid, hits at 0.
    assert!(
        custom
            .ray_cast(
                &id,
                &Ray::new(Point3::new(3.0, 0.0, 0.0), Vector3::zeros()),
                1.0,
                true
            )
            .is_none()
    );
    let still = custom
        .ray_cast(&id, &Ray::new(Point3::origin(), Vector3::zeros()), 1.0, true)
        .unwrap();
    assert_eq!((still.t, still.normal), (0.0, Vector3::zeros()));
}
