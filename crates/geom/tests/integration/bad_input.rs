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

/// One invalid constructor call: what it returned, and the shape, the
/// parameter and (a part of) the printed value the error must name.
struct Refusal {
    result: Result<(), GeomError>,
    shape: &'static str,
    parameter: &'static str,
    value: &'static str,
}

fn refusal<S>(
    result: Result<S, GeomError>,
    shape: &'static str,
    parameter: &'static str,
    value: &'static str,
) -> Refusal {
    Refusal {
        result: result.map(drop),
        shape,
        parameter,
        value,
    }
}

/// Every invalid parameter of every shape constructor, in f64; each must be
/// refused with `InvalidParameter` naming the shape, the parameter and the
/// value, and `Display` must say all three.
fn every_invalid_parameter() -> Vec<Refusal> {
    let o = Point3::origin();
    let x = Point3::new(1.0, 0.0, 0.0);
    let nan_point = Point3::new(f64::NAN, 0.0, 0.0);
    let inf_point = Point3::new(0.0, f64::INFINITY, 0.0);
    let ninf_point = Point3::new(0.0, 0.0, f64::NEG_INFINITY);
    let field = |rows: usize, cols: usize, heights: Vec<f64>| {
        HeightFieldDesc::new(o, [1.0, 1.0], rows, cols, heights)
    };
    let mut cases = Vec::new();
    // Sizes above √max/4 (`geom_core::max_size`, 3.4e153) too.
    for radius in [
        -1.0,
        -1e-300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
        3.5e153,
        1e-300,
    ] {
        cases.push(refusal(Sphere::try_new(radius), "sphere", "radius", ""));
        cases.push(refusal(
            Capsule::try_from_points(o, x, radius),
            "capsule",
            "radius",
            "",
        ));
        cases.push(refusal(
            Cylinder::try_from_points(o, x, radius),
            "cylinder",
            "radius",
            "",
        ));
        cases.push(refusal(Cone::try_from_points(o, x, radius), "cone", "radius", ""));
    }
    for bad in [nan_point, inf_point, ninf_point] {
        cases.push(refusal(Capsule::try_from_points(bad, x, 1.0), "capsule", "a", ""));
        cases.push(refusal(Capsule::try_from_points(o, bad, 1.0), "capsule", "b", ""));
        cases.push(refusal(
            Cylinder::try_from_points(bad, x, 1.0),
            "cylinder",
            "p0",
            "",
        ));
        cases.push(refusal(
            Cylinder::try_from_points(o, bad, 1.0),
            "cylinder",
            "p1",
            "",
        ));
        cases.push(refusal(Cone::try_from_points(bad, x, 1.0), "cone", "apex", ""));
        cases.push(refusal(Cone::try_from_points(o, bad, 1.0), "cone", "base", ""));
        cases.push(refusal(Triangle::try_new(bad, x, o), "triangle", "a", ""));
        cases.push(refusal(Triangle::try_new(o, bad, x), "triangle", "b", ""));
        cases.push(refusal(Triangle::try_new(o, x, bad), "triangle", "c", ""));
        cases.push(refusal(Segment::try_new(bad, x), "segment", "a", ""));
        cases.push(refusal(Segment::try_new(o, bad), "segment", "b", ""));
        cases.push(refusal(
            HalfSpace::try_new(bad.coords, 0.0),
            "half_space",
            "normal",
            "",
        ));
        cases.push(refusal(
            HeightField::try_from_desc(HeightFieldDesc::new(bad, [1.0, 1.0], 2, 2, vec![0.0; 4])),
            "heightfield",
            "origin",
            "",
        ));
    }
    // Zero-length axes, and one whose squared length overflows.
    cases.push(refusal(
        Cylinder::try_from_points(x, x, 1.0),
        "cylinder",
        "p1",
        "[1.0, 0.0, 0.0]",
    ));
    cases.push(refusal(
        Cylinder::try_from_points(Point3::new(-1e300, 0.0, 0.0), Point3::new(1e300, 0.0, 0.0), 1.0),
        "cylinder",
        "p1",
        "1e300",
    ));
    cases.push(refusal(
        Cone::try_from_points(x, x, 1.0),
        "cone",
        "base",
        "[1.0, 0.0, 0.0]",
    ));
    // Axes whose squared length overflows or underflows, and sizes whose
    // products in the kernels overflow.
    cases.push(refusal(
        Cone::try_from_points(Point3::new(-1e300, 0.0, 0.0), Point3::new(1e300, 0.0, 0.0), 1.0),
        "cone",
        "base",
        "1e300",
    ));
    cases.push(refusal(
        Cone::try_from_points(o, Point3::new(1e-200, 0.0, 0.0), 0.0),
        "cone",
        "base",
        "1e-200",
    ));
    cases.push(refusal(
        Cone::try_from_points(o, x, 1e200),
        "cone",
        "radius",
        "1e200",
    ));
    cases.push(refusal(
        Triangle::try_new(o, Point3::new(1e300, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)),
        "triangle",
        "b",
        "1e300",
    ));
    cases.push(refusal(
        Cylinder::try_from_points(o, Point3::new(0.0, 0.0, 1e-160), 1.0),
        "cylinder",
        "p1",
        "1e-160",
    ));
    cases.push(refusal(
        Cylinder::try_from_points(o, Point3::new(1e100, 0.0, 0.0), 1e100),
        "cylinder",
        "radius",
        "1e100",
    ));
    for bad in [-0.5, f64::NAN, f64::INFINITY, 1e200] {
        for axis in 0..3 {
            let mut v = Vector3::new(1.0, 2.0, 3.0);
            v[axis] = bad;
            cases.push(refusal(Ellipsoid::try_new(v), "ellipsoid", "radii", ""));
            cases.push(refusal(Cuboid::try_new(v), "cuboid", "half_extents", ""));
        }
        if !bad.is_finite() {
            cases.push(refusal(
                HalfSpace::try_new(Vector3::y(), bad),
                "half_space",
                "offset",
                "",
            ));
        }
    }
    cases.push(refusal(
        HalfSpace::try_new(Vector3::zeros(), 0.0),
        "half_space",
        "normal",
        "[0.0, 0.0, 0.0]",
    ));
    // Heightfields: every rule of `try_from_desc`.
    cases.push(refusal(
        HeightField::try_from_desc(field(1, 3, vec![0.0; 3])),
        "heightfield",
        "rows",
        "1",
    ));
    cases.push(refusal(
        HeightField::try_from_desc(field(3, 0, vec![])),
        "heightfield",
        "cols",
        "0",
    ));
    cases.push(refusal(
        HeightField::try_from_desc(field(1 << 20, 1 << 20, vec![])),
        "heightfield",
        "rows",
        "1048576",
    ));
    cases.push(refusal(
        HeightField::try_from_desc(field(2, 2, vec![0.0; 3])),
        "heightfield",
        "heights",
        "3 numbers",
    ));
    for bad in [f64::NAN, f64::INFINITY] {
        cases.push(refusal(
            HeightField::try_from_desc(field(2, 2, vec![0.0, 0.0, bad, 0.0])),
            "heightfield",
            "heights",
            "at index 2",
        ));
    }
    for cell in [[0.0, 1.0], [1.0, -1.0], [f64::NAN, 1.0], [1.0, f64::INFINITY]] {
        cases.push(refusal(
            HeightField::try_from_desc(HeightFieldDesc::new(o, cell, 2, 2, vec![0.0; 4])),
            "heightfield",
            "cell_size",
            "",
        ));
    }
    cases.push(refusal(
        HeightField::try_from_desc(HeightFieldDesc::new(o, [1.0, 1e-200], 2, 2, vec![0.0; 4])),
        "heightfield",
        "cell_size",
        "1e-200",
    ));
    // A terrain reaching beyond √max/4: squared edges would overflow.
    cases.push(refusal(
        HeightField::try_from_desc(HeightFieldDesc::new(o, [1e300, 1.0], 2, 2, vec![0.0; 4])),
        "heightfield",
        "cell_size",
        "1e300",
    ));
    cases.push(refusal(
        HeightField::try_from_desc(field(2, 2, vec![0.0, 0.0, 0.0, -1e200])),
        "heightfield",
        "heights",
        "-1e200 at index 3",
    ));
    for angle in [-0.1, 4.0, f64::NAN] {
        let mut desc = field(2, 2, vec![0.0; 4]);
        desc.active_edge_angle = angle;
        cases.push(refusal(
            HeightField::try_from_desc(desc),
            "heightfield",
            "active_edge_angle",
            "",
        ));
    }
    let mut desc = field(3, 3, vec![0.0; 9]);
    desc.flipped_cells = vec![1, 4];
    cases.push(refusal(
        HeightField::try_from_desc(desc),
        "heightfield",
        "flip",
        "4",
    ));
    let mut desc = field(3, 3, vec![0.0; 9]);
    desc.hole_cells = vec![usize::MAX];
    cases.push(refusal(
        HeightField::try_from_desc(desc),
        "heightfield",
        "holes",
        "18446744073709551615",
    ));
    cases
}

#[test]
fn every_invalid_constructor_parameter_is_named_with_its_value() {
    let cases = every_invalid_parameter();
    assert!(cases.len() >= 97, "{}", cases.len());
    for case in cases {
        let error = case
            .result
            .expect_err(&format!("{} {} should be refused", case.shape, case.parameter));
        let message = error.to_string();
        let GeomError::InvalidParameter {
            shape,
            parameter,
            value,
            ..
        } = &error
        else {
            panic!("{message}: not InvalidParameter");
        };
        assert_eq!((*shape, *parameter), (case.shape, case.parameter), "{message}");
        assert!(
            !value.is_empty() && value.contains(case.value),
            "{message}: {value:?}"
        );
        assert!(
            message.starts_with(&format!("{shape}: {parameter} = {value} is invalid (")),
            "{message}"
        );
    }
}

/// The panicking constructors carry the same message as `try_*`.
#[test]
fn panicking_constructors_repeat_the_message() {
    let message = std::panic::catch_unwind(|| Sphere::new(f64::NAN))
        .expect_err("NaN radius")
        .downcast::<String>()
        .map(|s| *s)
        .unwrap_or_default();
    assert_eq!(message, Sphere::try_new(f64::NAN).unwrap_err().to_string());
    let message =
        std::panic::catch_unwind(|| HeightField::new(Point3::origin(), [1.0, 1.0], 2, 2, vec![0.0; 5]))
            .expect_err("5 heights")
            .downcast::<String>()
            .map(|s| *s)
            .unwrap_or_default();
    assert!(
        message.starts_with("heightfield: heights = 5 numbers"),
        "{message}"
    );
}
