//! Every shape, through the public world API, against NaN, infinities,
//! huge and tiny numbers, zero directions and degenerate shapes: no panic,
//! and every answer it does give is finite and within its contract.

use geom::prelude::*;

fn shapes<N: Real>() -> Vec<(&'static str, Box<dyn Shape<N>>)> {
    let c = |x: f64| nalgebra::convert::<f64, N>(x);
    let p = |x: f64, y: f64, z: f64| Point3::new(c(x), c(y), c(z));
    let v = |x: f64, y: f64, z: f64| Vector3::new(c(x), c(y), c(z));
    vec![
        ("sphere", Box::new(Sphere::new(c(1.0)))),
        ("point sphere", Box::new(Sphere::new(c(0.0)))),
        (
            "capsule",
            Box::new(Capsule::from_points(p(0.0, -1.0, 0.0), p(0.0, 1.0, 0.0), c(0.5))),
        ),
        (
            "zero-length capsule",
            Box::new(Capsule::from_points(p(1.0, 1.0, 1.0), p(1.0, 1.0, 1.0), c(0.5))),
        ),
        (
            "cylinder",
            Box::new(Cylinder::from_points(p(0.0, 0.0, -1.0), p(0.0, 0.0, 1.0), c(0.5))),
        ),
        (
            "needle cylinder",
            Box::new(Cylinder::from_points(p(0.0, 0.0, -1.0), p(0.0, 0.0, 1.0), c(0.0))),
        ),
        (
            "cone",
            Box::new(Cone::from_points(p(0.0, 2.0, 0.0), p(0.0, 0.0, 0.0), c(1.0))),
        ),
        ("ellipsoid", Box::new(Ellipsoid::new(v(2.0, 1.0, 0.5)))),
        ("flat ellipsoid", Box::new(Ellipsoid::new(v(2.0, 0.0, 0.5)))),
        ("box", Box::new(Cuboid::new(v(1.0, 2.0, 3.0)))),
        ("flat box", Box::new(Cuboid::new(v(1.0, 0.0, 3.0)))),
        ("halfspace", Box::new(HalfSpace::new(v(0.0, 1.0, 0.0), c(0.0)))),
        (
            "triangle",
            Box::new(Triangle::new(
                p(0.0, 0.0, 0.0),
                p(1.0, 0.0, 0.0),
                p(0.0, 1.0, 0.0),
            )),
        ),
        (
            "collinear triangle",
            Box::new(Triangle::new(
                p(0.0, 0.0, 0.0),
                p(1.0, 0.0, 0.0),
                p(2.0, 0.0, 0.0),
            )),
        ),
        (
            "segment",
            Box::new(Segment::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0))),
        ),
    ]
}

/// Values a bad integration step or a runaway body produces.
fn nasty(huge: f64, tiny: f64) -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -0.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        huge,
        -huge,
        tiny,
        -tiny,
        1e6,
    ]
}

fn check<N: Real>(huge: f64, tiny: f64) {
    let c = |x: f64| nalgebra::convert::<f64, N>(x);
    let values = nasty(huge, tiny);
    let poses = [
        Isometry3::identity(),
        Isometry3::from_parts(
            Translation3::new(c(3.0), c(-1.0), c(1e4)),
            UnitQuaternion::from_euler_angles(c(0.3), c(-1.1), c(2.0)),
        ),
    ];
    let mut answered = 0usize;
    for (name, shape) in shapes::<N>() {
        for pose in &poses {
            for (i, &a) in values.iter().enumerate() {
                for &b in values.iter().skip(i % 3).step_by(3) {
                    let origin = Point3::new(c(a), c(0.25), c(b));
                    let dir = Vector3::new(c(b), c(-1.0), c(a));
                    for max_t in [c(f64::INFINITY), c(1.0), c(0.0), c(f64::NAN)] {
                        for solid in [true, false] {
                            if let Some(hit) = shape.ray_cast(pose, &Ray::new(origin, dir), max_t, solid) {
                                answered += 1;
                                assert!(
                                    hit.t.is_finite() && hit.t >= N::zero() && hit.t <= max_t,
                                    "{name}: {hit:?}"
                                );
                                assert!(hit.normal.iter().all(|x| x.is_finite()), "{name}: {hit:?}");
                                let length = hit.normal.norm();
                                assert!(
                                    length == N::zero() || (length - N::one()).abs() < c(1e-5),
                                    "{name}: normal {length:?}"
                                );
                            }
                        }
                    }
                    for solid in [true, false] {
                        if let Some(projection) = shape.closest_point(pose, &origin, solid) {
                            assert!(
                                projection.point.iter().all(|x| x.is_finite()),
                                "{name}: {projection:?}"
                            );
                        }
                    }
                    if let Some(d) = shape.distance(pose, &origin) {
                        assert!(
                            d.partial_cmp(&N::zero()).is_some(),
                            "{name}: distance NaN at {origin:?}"
                        );
                    }
                    if let Some(s) = shape.support(pose, &dir) {
                        assert!(s.iter().all(|x| x.is_finite()), "{name}: support {s:?}");
                    }
                    let aabb = shape.aabb(pose);
                    assert!(
                        aabb.mins
                            .iter()
                            .chain(aabb.maxs.iter())
                            .all(|x| x.partial_cmp(&N::zero()).is_some()),
                        "{name}: {aabb:?}"
                    );
                }
            }
        }
    }
    assert!(
        answered > 100,
        "the sweep should produce real answers too ({answered})"
    );
}

#[test]
fn f64_queries_survive_bad_input() {
    check::<f64>(1e300, 1e-300);
}

#[test]
fn f32_queries_survive_bad_input() {
    check::<f32>(1e38, 1e-38);
}

#[test]
fn constructors_name_the_bad_parameter_and_value() {
    let origin = Point3::origin();
    let cases: Vec<(Result<(), GeomError>, &str)> = vec![
        (Sphere::try_new(-1.0).map(drop), "sphere: radius = -1.0"),
        (Sphere::try_new(f64::NAN).map(drop), "sphere: radius = NaN"),
        (
            Capsule::try_from_points(origin, origin, -0.5).map(drop),
            "capsule: radius = -0.5",
        ),
        (
            Capsule::try_from_points(Point3::new(f64::INFINITY, 0.0, 0.0), origin, 1.0).map(drop),
            "capsule: a = ",
        ),
        (
            Cylinder::try_from_points(origin, origin, 1.0).map(drop),
            "cylinder: p1 = ",
        ),
        (
            Cone::try_from_points(origin, origin, 1.0).map(drop),
            "cone: base = ",
        ),
        (
            Ellipsoid::try_new(Vector3::new(1.0, -2.0, 1.0)).map(drop),
            "ellipsoid: radii = ",
        ),
        (
            Cuboid::try_new(Vector3::new(1.0, f64::NAN, 1.0)).map(drop),
            "cuboid: half_extents = ",
        ),
        (
            HalfSpace::try_new(Vector3::zeros(), 1.0).map(drop),
            "half_space: normal = ",
        ),
        (
            Triangle::try_new(origin, Point3::new(f64::NAN, 0.0, 0.0), origin).map(drop),
            "triangle: b = ",
        ),
        (
            Segment::try_new(origin, Point3::new(0.0, f64::NEG_INFINITY, 0.0)).map(drop),
            "segment: b = ",
        ),
    ];
    for (result, expected) in cases {
        let message = result.expect_err(expected).to_string();
        assert!(
            message.starts_with(expected),
            "{message:?} should start with {expected:?}"
        );
    }
}
