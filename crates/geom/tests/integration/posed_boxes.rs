//! Every convex shape's box at a pose, as `Shape::aabb` gives it, against
//! the shape's own support points: the box holds the farthest point of the
//! shape along each axis, and a cuboid's box is exactly its corners'.

use geom::prelude::*;
use geom_random::Rng;

fn shapes() -> Vec<(&'static str, Box<dyn Shape<f64>>, bool)> {
    let p = Point3::new;
    vec![
        ("cuboid", Box::new(Cuboid::new(Vector3::new(0.5, 2.0, 0.0))), true),
        (
            "ellipsoid",
            Box::new(Ellipsoid::new(Vector3::new(3.0, 0.5, 1.0))),
            false,
        ),
        ("sphere", Box::new(Sphere::new(0.75)), false),
        (
            "capsule",
            Box::new(Capsule::from_points(p(0.0, -1.0, 0.5), p(1.0, 1.0, 0.0), 0.25)),
            false,
        ),
        (
            "cylinder",
            Box::new(Cylinder::from_points(p(0.5, 0.0, 0.0), p(0.5, 2.0, 1.0), 0.5)),
            false,
        ),
        (
            "cone",
            Box::new(Cone::from_points(p(0.0, 1.0, 0.0), p(0.0, -1.0, 0.5), 0.75)),
            false,
        ),
    ]
}

#[test]
fn posed_boxes_hold_the_support_points_and_a_cuboids_is_tight() {
    let mut rng = Rng::new(21);
    for (name, shape, tight) in shapes() {
        for case in 0..500 {
            // Identity and quarter turns (rotations with exact zeros) too.
            let rotation = match case % 5 {
                0 => UnitQuaternion::identity(),
                1 => UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2),
                _ => rng.rotation(),
            };
            let pose = Isometry3::from_parts(rng.vector(1e3).into(), rotation);
            let aabb = shape.aabb(&pose);
            let scale = 1.0 + pose.translation.vector.amax();
            for axis in 0..3 {
                let along = Vector3::ith(axis, 1.0);
                let high = shape.support(&pose, &along).unwrap()[axis];
                let low = shape.support(&pose, &-along).unwrap()[axis];
                let slack = 1e-14 * scale;
                assert!(
                    aabb.maxs[axis] >= high - slack && aabb.mins[axis] <= low + slack,
                    "{name} {pose:?}: {aabb:?}"
                );
                if tight {
                    assert!(
                        aabb.maxs[axis] <= high + slack && aabb.mins[axis] >= low - slack,
                        "{name} {pose:?}: {aabb:?}"
                    );
                }
            }
        }
    }
}
