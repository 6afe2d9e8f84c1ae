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
