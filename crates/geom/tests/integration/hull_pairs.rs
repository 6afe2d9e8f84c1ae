//! Convex hulls against other shapes through the default dispatcher, in
//! both orders: a hull of a box's corners must collide exactly as the box
//! does (the analytic box routines are the oracle), and distances from a
//! random hull equal the brute-force distance from its surface.

use geom::prelude::*;
use geom_random::Rng;

fn box_corners(half: &Vector3<f64>) -> Vec<Point3<f64>> {
    (0..8)
        .map(|k| {
            Point3::new(
                if k & 1 == 0 { -half.x } else { half.x },
                if k & 2 == 0 { -half.y } else { half.y },
                if k & 4 == 0 { -half.z } else { half.z },
            )
        })
        .collect()
}

/// `(deepest depth, its manifold's normal)` of a contact query.
fn deepest(
    table: &DispatchTable<f64>,
    a: &dyn Shape<f64>,
    pose_a: &Isometry3<f64>,
    b: &dyn Shape<f64>,
    pose_b: &Isometry3<f64>,
) -> Option<(f64, Vector3<f64>)> {
    let mut out = ContactManifolds::new();
    table.contact(a, pose_a, b, pose_b, 0.0, &mut out).unwrap();
    out.points()
        .map(|(n, p)| (p.depth, *n))
        .reduce(|x, y| if y.0 > x.0 { y } else { x })
}

#[test]
fn a_hull_of_box_corners_collides_as_the_box() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(1);
    let mut compared = 0;
    for k in 0..300 {
        let half = Vector3::new(rng.range(0.2, 1.5), rng.range(0.2, 1.5), rng.range(0.2, 1.5));
        let as_box = Cuboid::new(half);
        let as_hull = ConvexHull::new(&box_corners(&half)).unwrap();
        let pose = Isometry3::new(rng.vector(0.5), rng.direction() * rng.range(0.0, 3.0));
        let other: Box<dyn Shape<f64>> = match k % 3 {
            0 => Box::new(Cuboid::new(Vector3::new(
                rng.range(0.2, 1.0),
                rng.range(0.2, 1.0),
                rng.range(0.2, 1.0),
            ))),
            1 => Box::new(Sphere::new(rng.range(0.2, 1.0))),
            _ => Box::new(Capsule::from_points(
                Point3::new(0.0, -0.4, 0.0),
                Point3::new(0.0, 0.4, 0.0),
                0.3,
            )),
        };
        let other_pose = Isometry3::new(rng.vector(2.0), rng.direction() * rng.range(0.0, 3.0));
        for swap in [false, true] {
            let (expected, got) = if swap {
                (
                    deepest(&table, other.as_ref(), &other_pose, &as_box, &pose),
                    deepest(&table, other.as_ref(), &other_pose, &as_hull, &pose),
                )
            } else {
                (
                    deepest(&table, &as_box, &pose, other.as_ref(), &other_pose),
                    deepest(&table, &as_hull, &pose, other.as_ref(), &other_pose),
                )
            };
            match (expected, got) {
                (Some((d0, n0)), Some((d1, n1))) => {
                    compared += 1;
                    assert!((d0 - d1).abs() < 1e-6, "pose {k} swap {swap}: depth {d1} vs {d0}");
                    assert!(
                        (n0 - n1).norm() < 1e-4 || d0 < 1e-6,
                        "pose {k} swap {swap}: {n1:?} vs {n0:?}"
                    );
                }
                (None, None) => {}
                (e, g) => panic!("pose {k} swap {swap}: box {e:?}, hull {g:?}"),
            }
            // Distances as well.
            let distance = |a: &dyn Shape<f64>,
                            pa: &Isometry3<f64>,
                            b: &dyn Shape<f64>,
                            pb: &Isometry3<f64>| {
                match table.closest_points(a, pa, b, pb, f64::INFINITY).unwrap() {
                    ClosestPoints::WithinMargin { point_a, point_b } => (point_b - point_a).norm(),
                    _ => 0.0,
                }
            };
            let (d_box, d_hull) = if swap {
                (
                    distance(other.as_ref(), &other_pose, &as_box, &pose),
                    distance(other.as_ref(), &other_pose, &as_hull, &pose),
                )
            } else {
                (
                    distance(&as_box, &pose, other.as_ref(), &other_pose),
                    distance(&as_hull, &pose, other.as_ref(), &other_pose),
                )
            };
            assert!(
                (d_box - d_hull).abs() < 1e-9,
                "pose {k} swap {swap}: distance {d_hull} vs {d_box}"
            );
        }
    }
    assert!(compared > 100, "{compared} compared");
}

#[test]
fn sphere_distances_to_a_random_hull_equal_brute_force() {
    let table = geom::default_dispatcher::<f64>();
    let mut rng = Rng::new(2);
    for _ in 0..10 {
        let points: Vec<Point3<f64>> = (0..50).map(|_| Point3::from(rng.vector(2.0))).collect();
        let hull = ConvexHull::new(&points).unwrap();
        let pose = Isometry3::new(rng.vector(1.0), rng.direction() * rng.range(0.0, 3.0));
        for _ in 0..50 {
            let centre = Point3::from(rng.vector(5.0));
            let radius = rng.range(0.05, 0.5);
            let ball = Sphere::new(radius);
            let ball_pose = Isometry3::translation(centre.x, centre.y, centre.z);
            // Brute force: the nearest point over the hull's face
            // triangles, from the faces the hull reports.
            let local = pose.inverse_transform_point(&centre);
            let mut nearest = f64::INFINITY;
            let mut inside = true;
            for f in 0..hull.face_count() {
                let (corners, normal) = hull.face(f).unwrap();
                inside &= normal.dot(&(local - corners[0])) <= 0.0;
                for k in 1..corners.len() - 1 {
                    let (p, _) = geom::base::distance::closest_point_on_triangle_branching(
                        &local,
                        &corners[0],
                        &corners[k],
                        &corners[k + 1],
                    );
                    nearest = nearest.min((local - p).norm());
                }
            }
            for swap in [false, true] {
                let answer = if swap {
                    table.closest_points(&ball, &ball_pose, &hull, &pose, f64::INFINITY)
                } else {
                    table.closest_points(&hull, &pose, &ball, &ball_pose, f64::INFINITY)
                }
                .unwrap();
                match answer {
                    ClosestPoints::WithinMargin { point_a, point_b } => {
                        assert!(!inside && nearest > radius);
                        assert!(((point_b - point_a).norm() - (nearest - radius)).abs() < 1e-9);
                    }
                    ClosestPoints::Intersecting => assert!(inside || nearest <= radius + 1e-9),
                    ClosestPoints::Disjoint => panic!("no limit, yet disjoint"),
                }
            }
        }
    }
}
