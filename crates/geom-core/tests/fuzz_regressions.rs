//! Inputs the fuzz targets (`fuzz/`, see docs/reliability.md) found to
//! break a geom-core routine, each fixed at its root and kept here.

use geom_core::distance::{closest_point_on_segment, closest_point_on_triangle};
use geom_core::ray::with_length;
use geom_core::{Aabb, LaneHit};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};

fn no_nan<N: geom_core::Real>(aabb: &Aabb<N>) -> bool {
    aabb.mins
        .iter()
        .chain(aabb.maxs.iter())
        .all(|c| c.partial_cmp(&N::zero()).is_some())
}

/// Found by `ray_cast`: an ellipsoid with radii `[0, f32::MAX, 5]` had the
/// box `NaN` at the identity pose (`maxs − mins` overflowed, then `0 · ∞`).
#[test]
fn box_as_wide_as_the_largest_float_transforms_without_nan() {
    let local = Aabb::from_half_extents(Point3::origin(), Vector3::new(0.0, f32::MAX, 5.0));
    for pose in [
        Isometry3::identity(),
        Isometry3::from_parts(
            Translation3::new(1.0, 2.0, 3.0),
            UnitQuaternion::from_euler_angles(0.3, -1.1, 2.0),
        ),
    ] {
        let world = local.transformed(&pose);
        assert!(no_nan(&world), "{world:?}");
        assert!(world.mins.y < -1e38 && world.maxs.y > 1e38, "{world:?}");
    }
    let identity = local.transformed(&Isometry3::identity());
    assert_eq!((identity.mins.x, identity.maxs.z), (0.0, 5.0));
}

/// Found by `ray_cast`: a capsule of radius 1e308 reaches past the largest
/// `f64`, so its local box is infinite; `pose * center` gave `0 · ∞ = NaN`.
#[test]
fn infinite_box_transforms_without_nan() {
    let local = Aabb::new(
        Point3::new(-1e308, f64::NEG_INFINITY, -1e308),
        Point3::new(1e308, 0.0, 1e308),
    );
    let identity = local.transformed(&Isometry3::identity());
    assert_eq!(identity, local);
    let turned = local.transformed(&Isometry3::from_parts(
        Translation3::new(1.0, 0.0, 0.0),
        UnitQuaternion::from_euler_angles(0.0, 0.0, 0.5),
    ));
    assert!(no_nan(&turned), "{turned:?}");
    // x gains −sin·y over y ∈ [−∞, 0], y gains sin·y: both unbounded one way.
    assert_eq!((turned.maxs.x, turned.mins.y), (f64::INFINITY, f64::NEG_INFINITY));
}

/// Found by `contact`: a triangle with a vertex at −1e308 and a point
/// sphere at its other (coincident) vertices gave a NaN contact point: the
/// edge's squared length and the dot product overflowed, `∞/∞`.
#[test]
fn closest_point_on_a_segment_longer_than_the_square_root_of_the_largest_float() {
    let a = Point3::new(-1e308, 0.0, 0.0);
    let b = Point3::origin();
    let (point, s) = closest_point_on_segment(&Point3::origin(), &a, &b);
    assert_eq!((point, s), (b, 1.0));
    let (point, s) = closest_point_on_segment(&Point3::new(-5e307, 3.0, 0.0), &a, &b);
    assert_eq!((point, s), (Point3::new(-5e307, 0.0, 0.0), 0.5));
    let (point, weights) = closest_point_on_triangle(&Point3::origin(), &a, &b, &b);
    assert_eq!(point, Point3::origin());
    assert!(weights.iter().all(|w: &f64| w.is_finite()), "{weights:?}");
}

/// Found by `batch`: a zero-size box hit from inside by a ray whose `dir`
/// has a component of −2.8e38 (f32) got the normal `(−0, 0, 0)`: `|dir|`
/// overflowed and `−dir / ∞` is zero.
#[test]
fn solid_inside_normal_is_unit_for_overflowing_and_underflowing_dirs() {
    for dir in [
        Vector3::new(11.375f32, -0.125, -2.8179631e38),
        Vector3::new(1e-30, -2e-30, 0.0),
        Vector3::new(1e-45, 0.0, 0.0),
    ] {
        let miss = LaneHit {
            mask: false,
            t: 0.0f32,
            normal: Vector3::zeros(),
            face: 0.0,
        };
        let hit = miss.with_solid_inside(true, &dir, f32::INFINITY);
        assert!(hit.mask && hit.t == 0.0);
        assert!(
            (hit.normal.norm() - 1.0).abs() < 1e-6,
            "{dir:?}: {:?}",
            hit.normal
        );
        assert!(hit.normal.dot(&dir) < 0.0);
    }
}

/// `with_length` keeps ordinary vectors bit for bit and rescales the rest.
#[test]
fn with_length_rescales_only_where_the_squares_leave_the_normal_range() {
    let plain = Vector3::new(3.0f64, -4.0, 12.0);
    assert_eq!(with_length(&plain), (plain, 13.0));
    let (scaled, length) = with_length(&Vector3::new(3e300f64, -4e300, 0.0));
    assert!(((scaled / length) - Vector3::new(0.6, -0.8, 0.0)).norm() < 1e-15);
    let (scaled, length) = with_length(&Vector3::new(3e-30f32, 4e-30, 0.0));
    assert!(((scaled / length) - Vector3::new(0.6, 0.8, 0.0)).norm() < 1e-6);
    assert_eq!(with_length(&Vector3::<f32>::zeros()).1, 0.0);
}

/// Found by `ray_cast` (`f32`, 2 saved inputs): a point of a sliver triangle
/// (vertices nearly collinear, computed normal `(0, −7.6e-6, 0)`: rounding
/// noise) projected 1.39 away from itself, onto the "plane" of the noise.
/// The face region now needs a normal above its rounding bound; the edges
/// answer otherwise. Checked against the same projection in `f64`.
#[test]
fn point_on_a_sliver_triangle_projects_onto_itself() {
    let cases: [[[f32; 3]; 4]; 2] = [
        [
            [5.5, 7.625, -10.625],
            [0.04620098, 5.5, 7.625],
            [-1.3172493, 4.96875, 12.1875],
            [1.9350462, 6.2359633, 1.3043728],
        ],
        [
            [5.5, 7.625, -0.0],
            [0.0, 10.625, 7.625],
            [5.007897, 7.8934197, 0.68223363],
            [5.0835066, 7.852178, 0.5774115],
        ],
    ];
    for [a, b, c, p] in cases {
        let [a, b, c, p] = [a, b, c, p].map(Point3::from);
        let (q, _) = closest_point_on_triangle(&p, &a, &b, &c);
        let (q64, _) = closest_point_on_triangle(&p.cast::<f64>(), &a.cast(), &b.cast(), &c.cast());
        // `p` lies on the triangle within f32 rounding (its f64 distance),
        // so its projection moves it by about that much at most.
        let on_triangle = (p.cast::<f64>() - q64).norm();
        assert!(on_triangle < 1e-6, "{on_triangle}");
        assert!((q - p).norm() <= 4.0 * f32::EPSILON * 16.0, "{p:?} → {q:?}");
        // And from the origin both precisions agree.
        let (from_origin, _) = closest_point_on_triangle(&Point3::origin(), &a, &b, &c);
        let (from_origin64, _) =
            closest_point_on_triangle(&Point3::origin(), &a.cast::<f64>(), &b.cast(), &c.cast());
        assert!(
            (from_origin.cast::<f64>() - from_origin64).norm() < 1e-5,
            "{from_origin:?} {from_origin64:?}"
        );
    }
}

/// Found by `ray_cast` (`f32`): the projection of a point 1e38 above a
/// small triangle was `[NaN, −inf, NaN]` (the plane height `n·ap / |n|²`
/// overflowed). The unit normal is formed first.
#[test]
fn point_near_the_largest_f32_projects_onto_a_small_triangle() {
    let (a, b, c) = (
        Point3::new(0.0f32, 0.375, 0.0),
        Point3::new(0.5, 0.375, 0.0),
        Point3::new(0.0, 0.375, 0.5),
    );
    for p in [Point3::new(0.1f32, 1e38, 0.1), Point3::new(0.1, -3e38, 0.2)] {
        let (q, weights) = closest_point_on_triangle(&p, &a, &b, &c);
        assert_eq!(q, Point3::new(p.x, 0.375, p.z), "{p:?}");
        assert!(weights.iter().all(|w| w.is_finite()));
    }
}

/// Found by `ray_cast` (`f64`): a ray tangent to a sphere at its origin, a
/// surface point, under a general rotation hit 7.5 units further on (t =
/// 0.67). Rounding left the local origin a hair outside and the ray a hair
/// approaching, so the near root `c / q` was the ratio of two rounding
/// errors. Each root is now capped by the bound it must respect.
#[test]
fn ray_tangent_to_a_sphere_at_its_origin_hits_there() {
    use geom_core::Ray;
    use geom_core::quadratic::ray_cast_sphere;
    let rotation = UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(
        -0.7109326428742325,
        0.5496940055596503,
        -0.2683126445322879,
        0.3470152767987832,
    ));
    let radius = 11.25;
    let (origin, dir) = (Point3::new(0.0, radius, 0.0), Vector3::new(radius, 0.0, 0.125));
    // In the rotated frame (nalgebra's rotation, rounded as any pose is).
    let local = Ray::new(rotation.inverse() * origin, rotation.inverse() * dir);
    let hit = ray_cast_sphere(&local, radius, f64::INFINITY, false);
    if hit.mask {
        // Along the tangent the ray leaves the sphere's rounding band
        // (an origin up to 8ε r inside) within a chord of 2√(2 r · 8ε r).
        let band = 2.0 * (2.0 * radius * 8.0 * f64::EPSILON * radius).sqrt();
        assert!(hit.t * dir.norm() <= band, "{hit:?}");
    }
    // Sweep the rotation: every tangent ray from a surface point.
    for k in 0..2000 {
        let angle = k as f64 * 0.0031;
        let rotation = UnitQuaternion::from_euler_angles(angle, 2.0 * angle, -angle);
        let local = Ray::new(rotation * origin, rotation * dir);
        let hit = ray_cast_sphere(&local, radius, f64::INFINITY, false);
        if hit.mask {
            let band = 2.0 * (2.0 * radius * 8.0 * f64::EPSILON * radius).sqrt();
            assert!(hit.t * dir.norm() <= band, "{k}: {hit:?}");
        }
    }
}
