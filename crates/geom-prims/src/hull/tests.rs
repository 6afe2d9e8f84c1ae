//! The hull against its definition and against brute force.

use geom_core::{Ray, Shape};
use nalgebra::{Point3, Vector3};

use super::ConvexHull;
use crate::test_support::TestRng;

fn exact_orientation(a: &Point3<f64>, b: &Point3<f64>, c: &Point3<f64>, p: &Point3<f64>) -> f64 {
    let coord = |q: &Point3<f64>| robust::Coord3D {
        x: q.x,
        y: q.y,
        z: q.z,
    };
    robust::orient3d(coord(a), coord(b), coord(c), coord(p))
}

/// The definition, checked exactly: every input point on or below every
/// face (as a fan of triangles), every face convex and planar, every
/// vertex an input point, and Euler's `V − E + F = 2`.
fn check_hull(points: &[Point3<f64>], hull: &ConvexHull<f64>) {
    let mut edges = 0;
    for f in 0..hull.face_count() {
        let (corners, normal) = hull.face(f).unwrap();
        assert!(corners.len() >= 3);
        edges += corners.len();
        for k in 1..corners.len() - 1 {
            let (a, b, c) = (corners[0], corners[k], corners[k + 1]);
            // Counter-clockwise seen from outside, along the normal.
            assert!((b - a).cross(&(c - a)).dot(&normal) > 0.0, "face {f} folds");
            for p in points {
                assert!(
                    exact_orientation(&a, &b, &c, p) >= 0.0,
                    "point {p:?} above face {f}"
                );
            }
        }
        // Planar: every corner in the first triangle's plane, exactly.
        for p in &corners[3..] {
            assert_eq!(exact_orientation(&corners[0], &corners[1], &corners[2], p), 0.0);
        }
    }
    for v in hull.vertices() {
        assert!(points.contains(v));
    }
    let (v, e, f) = (hull.vertices().len(), edges / 2, hull.face_count());
    assert_eq!(v + f, e + 2, "V {v} E {e} F {f}");
}

fn random_points(rng: &mut TestRng, count: usize) -> Vec<Point3<f64>> {
    (0..count).map(|_| Point3::from(rng.vector(3.0))).collect()
}

#[test]
fn random_clouds_give_exact_hulls() {
    let mut rng = TestRng::new(1);
    for count in [4, 5, 10, 100, 2000] {
        for _ in 0..5 {
            let points = random_points(&mut rng, count);
            let hull = ConvexHull::new(&points).unwrap();
            check_hull(&points, &hull);
        }
    }
}

#[test]
fn grids_cubes_and_duplicates_keep_their_flat_faces() {
    // A 5 × 5 × 5 grid: every point on a face is coplanar with many
    // others, and edge points are collinear. The hull is the cube: six
    // square faces whatever order the points come in.
    let mut points = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            for k in 0..5 {
                points.push(Point3::new(i as f64 * 0.25, j as f64 * 0.25, k as f64 * 0.25));
            }
        }
    }
    let mut rng = TestRng::new(2);
    for round in 0..4 {
        for i in (1..points.len()).rev() {
            let j = rng.next_u64() as usize % (i + 1);
            points.swap(i, j);
        }
        // Duplicates too.
        let mut input = points.clone();
        input.extend_from_slice(&points[..20]);
        let hull = ConvexHull::new(&input).unwrap();
        check_hull(&input, &hull);
        assert_eq!(hull.face_count(), 6, "round {round}");
        for f in 0..6 {
            let (_, normal) = hull.face(f).unwrap();
            assert_eq!(normal.iter().filter(|c| c.abs() == 1.0).count(), 1, "{normal:?}");
        }
    }
    // Points on a sphere, some repeated: every point is a vertex.
    let sphere: Vec<Point3<f64>> = (0..300)
        .map(|_| Point3::from(rng.vector(1.0).normalize() * 2.0))
        .collect();
    let hull = ConvexHull::new(&sphere).unwrap();
    check_hull(&sphere, &hull);
}

#[test]
fn flat_and_bad_inputs_are_refused_by_name() {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    let message = |points: &[Point3<f64>]| ConvexHull::new(points).unwrap_err().to_string();
    assert!(message(&[p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)]).contains("fewer than four"));
    assert!(message(&[p(0.0, 0.0, 0.0); 10]).contains("fewer than four"));
    let line: Vec<_> = (0..10).map(|i| p(i as f64, 2.0 * i as f64, 0.5)).collect();
    assert!(message(&line).contains("one line"));
    let plane: Vec<_> = (0..30).map(|i| p((i % 7) as f64, (i / 7) as f64, 1.0)).collect();
    assert!(message(&plane).contains("one plane"));
    let mut nan = vec![
        p(0.0, 0.0, 0.0),
        p(1.0, 0.0, 0.0),
        p(0.0, 1.0, 0.0),
        p(0.0, 0.0, 1.0),
    ];
    nan.push(p(f64::NAN, 0.0, 0.0));
    assert!(message(&nan).contains("point 4"));
    nan[4] = p(1e300, 0.0, 0.0);
    assert!(message(&nan).contains("point 4"));
}

/// The hull's implicit function: the largest signed plane distance.
fn implicit(hull: &ConvexHull<f64>, p: &Point3<f64>) -> f64 {
    (0..hull.face_count())
        .map(|f| {
            let (corners, normal) = hull.face(f).unwrap();
            normal.dot(&(p - corners[0]))
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn ray_casts_agree_with_marching_the_implicit_function() {
    let mut rng = TestRng::new(3);
    for _ in 0..10 {
        let points = random_points(&mut rng, 40);
        let hull = ConvexHull::new(&points).unwrap();
        // A hundred rays a hull with GEOM_FULL_SWEEPS, a quarter without.
        for _ in 0..geom_random::sweep_cases(100) {
            let origin = Point3::from(rng.vector(6.0));
            let dir = rng.vector(1.0) * 3.0;
            let start_inside = implicit(&hull, &origin) <= 0.0;
            for solid in [true, false] {
                let hit = hull.ray_cast_local(&Ray::new(origin, dir), 10.0, solid);
                // March in 4000 steps and bisect the first sign change.
                let f = |t: f64| implicit(&hull, &(origin + dir * t));
                let inside_at_0 = f(0.0) <= 0.0;
                let mut expected = None;
                if solid && inside_at_0 {
                    expected = Some(0.0);
                } else {
                    let steps = 1000;
                    for i in 1..=steps {
                        let (t0, t1) = (
                            10.0 * (i - 1) as f64 / steps as f64,
                            10.0 * i as f64 / steps as f64,
                        );
                        if (f(t0) <= 0.0) != (f(t1) <= 0.0) {
                            let (mut lo, mut hi) = (t0, t1);
                            for _ in 0..60 {
                                let mid = 0.5 * (lo + hi);
                                if (f(mid) <= 0.0) == (f(lo) <= 0.0) {
                                    lo = mid;
                                } else {
                                    hi = mid;
                                }
                            }
                            expected = Some(0.5 * (lo + hi));
                            break;
                        }
                    }
                }
                match (hit, expected) {
                    (Some(h), Some(t)) => {
                        assert!(
                            (h.t - t).abs() < 1e-9,
                            "{origin:?} {dir:?} solid {solid}: {} vs {t}",
                            h.t
                        );
                        if h.t > 0.0 {
                            // The normal is the plane's the hit lies on.
                            let p = origin + dir * h.t;
                            assert!(implicit(&hull, &p).abs() < 1e-9);
                            let outward = if start_inside { 1.0 } else { -1.0 };
                            assert!(h.normal.dot(&dir) * outward >= 0.0);
                        }
                    }
                    (None, None) => {}
                    (h, t) => {
                        // Only a ray grazing an edge or vertex may differ.
                        let t = h.map(|h| h.t).or(t).unwrap();
                        let p = origin + dir * t;
                        assert!(
                            implicit(&hull, &p).abs() < 1e-6,
                            "{origin:?} {dir:?} solid {solid}: {h:?} vs {t}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn closest_points_and_supports_equal_brute_force() {
    let mut rng = TestRng::new(4);
    for _ in 0..20 {
        let points = random_points(&mut rng, 60);
        let hull = ConvexHull::new(&points).unwrap();
        for _ in 0..200 {
            let dir = rng.vector(1.0);
            let support = hull.support_local(&dir).unwrap();
            let best = points
                .iter()
                .map(|p| p.coords.dot(&dir))
                .fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(support.coords.dot(&dir), best);
            let q = Point3::from(rng.vector(5.0));
            let projection = hull.closest_point_local(&q, false).unwrap();
            let inside = implicit(&hull, &q) <= 0.0;
            assert_eq!(projection.is_inside, inside);
            // On the surface, and no surface sample nearer: the distance
            // to the hull is the largest plane distance outside only for
            // some points, so compare with dense samples of the faces.
            assert!(implicit(&hull, &projection.point).abs() < 1e-12);
            let d = (q - projection.point).norm();
            for f in 0..hull.face_count() {
                let (corners, _) = hull.face(f).unwrap();
                for k in 1..corners.len() - 1 {
                    for s in 0..=8 {
                        for t in 0..=(8 - s) {
                            let (s, t) = (s as f64 / 8.0, t as f64 / 8.0);
                            let sample = corners[0]
                                + (corners[k] - corners[0]) * s
                                + (corners[k + 1] - corners[0]) * t;
                            assert!((q - sample).norm() >= d - 1e-12);
                        }
                    }
                }
            }
            let solid = hull.closest_point_local(&q, true).unwrap();
            assert_eq!(solid.point == q, inside);
        }
    }
}

#[test]
fn support_features_are_faces_edges_and_vertices_of_the_hull() {
    let corners: Vec<Point3<f64>> = (0..8)
        .map(|k| Point3::new((k & 1) as f64, ((k >> 1) & 1) as f64, ((k >> 2) & 1) as f64))
        .collect();
    let cube = ConvexHull::new(&corners).unwrap();
    let face = cube
        .support_feature_local(&Vector3::new(0.01, 0.0, 1.0), 0.05)
        .unwrap();
    assert_eq!(face.shape(), geom_core::FeatureShape::Face);
    assert_eq!(face.points().len(), 4);
    assert!(face.points().iter().all(|p| p.z == 1.0));
    let edge = cube
        .support_feature_local(&Vector3::new(1.0, 0.0, 1.0), 0.05)
        .unwrap();
    assert_eq!(edge.shape(), geom_core::FeatureShape::Edge);
    assert!(edge.points().iter().all(|p| p.x == 1.0 && p.z == 1.0));
    let vertex = cube
        .support_feature_local(&Vector3::new(1.0, 1.0, 1.0), 0.05)
        .unwrap();
    assert_eq!(vertex.shape(), geom_core::FeatureShape::Vertex);
    assert_eq!(vertex.points(), &[Point3::new(1.0, 1.0, 1.0)]);
}
