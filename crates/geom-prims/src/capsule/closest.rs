//! Closest point of the solid capsule.

use geom_core::distance::closest_point_on_segment;
use geom_core::{Lane, LaneProjection, lit};
use nalgebra::{Point3, SimdValue, Vector3};

use crate::basis::orthonormal_basis;

/// The point of the capsule's boundary closest to `point`, and whether
/// `point` is inside or on it.
///
/// The closest point of the segment (Ericson RTCD §5.1.2) pushed out by the
/// radius. A point on the axis is pushed along a direction perpendicular to
/// it (the first tangent of [`orthonormal_basis`]); for a zero-length axis
/// and a point at its centre, along `+x`.
#[inline]
pub fn project_point_capsule<T: Lane>(
    point: &Point3<T>,
    a: &Point3<T>,
    b: &Point3<T>,
    radius: T,
) -> LaneProjection<T> {
    let zero = T::zero();
    let from_a = point - a;
    let axis = b - a;
    let (nearest_on_axis, s) =
        closest_point_on_segment(&Point3::from(from_a), &Point3::origin(), &Point3::from(axis));
    let offset = from_a - nearest_on_axis.coords;
    // Beside the axis the offset is perpendicular to it; remove the axial
    // rounding left by the projection, or a point on the axis would be
    // pushed out along it, through a cap that is farther than the side.
    let axis_squared = axis.norm_squared();
    let beside = s.simd_gt(zero) & s.simd_lt(T::one()) & axis_squared.simd_gt(zero);
    let radial = offset - axis * (offset.dot(&axis) / axis_squared);
    // A point within rounding of the axis (its offset from the axis is
    // then noise of about ε |point − a|, pointing anywhere, even along the
    // axis or into the capsule past an end) has no direction of its own.
    let noise_scale = T::simd_default_epsilon() * lit::<T>(4.0);
    let offset = radial.select(beside, offset);
    let distance_squared = offset.norm_squared();
    let distance = distance_squared.simd_sqrt();
    let has_direction = distance_squared.simd_gt(from_a.norm_squared() * noise_scale * noise_scale);
    let axis_length = axis.norm();
    let (perpendicular, _) = orthonormal_basis(&(axis / axis_length));
    let fallback = perpendicular.select(axis_length.simd_gt(zero), Vector3::new(T::one(), zero, zero));
    let outward = (offset / distance).select(distance.simd_gt(zero) & has_direction, fallback);
    LaneProjection {
        point: a + (nearest_on_axis.coords + outward * radius),
        inside: distance_squared.simd_le(radius * radius),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Capsule;
    use super::super::tests::upright;
    use crate::test_support::worst_closest_point_ulps;
    use geom_core::Shape;
    use nalgebra::{Point3, Vector3};

    #[test]
    fn closest_points_by_hand() {
        let capsule = upright();
        let project = |p: [f64; 3], solid| capsule.closest_point_local(&p.into(), solid).unwrap();
        // Beside the side: straight in to radius 0.5.
        let p = project([3.0, 4.0, 0.25], true);
        assert!((p.point - Point3::new(0.3, 0.4, 0.25)).norm() < 1e-15 && !p.is_inside);
        // Beyond b: onto the hemisphere, towards b.
        let p = project([0.0, 3.0, 5.0], true);
        assert!((p.point - Point3::new(0.0, 0.3, 1.4)).norm() < 1e-15);
        // Inside: solid keeps the point, hollow goes out radially.
        let p = project([0.1, 0.0, 0.2], true);
        assert_eq!((p.point, p.is_inside), (Point3::new(0.1, 0.0, 0.2), true));
        let p = project([0.1, 0.0, 0.2], false);
        assert!((p.point - Point3::new(0.5, 0.0, 0.2)).norm() < 1e-15 && p.is_inside);
        // On the axis: some point at radius 0.5 perpendicular to it.
        let p = project([0.0, 0.0, 0.5], false);
        assert!((p.point.coords.xy().norm() - 0.5).abs() < 1e-15 && p.point.z == 0.5);
        assert_eq!(capsule.distance_local(&Point3::new(0.0, 0.0, 0.5)), Some(-0.5));
        assert_eq!(capsule.distance_local(&Point3::new(2.0, 0.0, 0.0)), Some(1.5));
    }

    /// f32 closest points against f64 on the same inputs: within 4 ulp of
    /// the largest coordinate involved, near the origin and at 1e6.
    #[test]
    fn f32_closest_points_within_4_ulp_of_the_largest_coordinate() {
        for offset in [Vector3::zeros(), Vector3::new(1.0e6f32, -1.0e6, 1.0e6)] {
            let a = Point3::new(0.25f32, -1.0, 0.5) + offset;
            let b = Point3::new(1.25f32, 0.75, -0.5) + offset;
            let shape32 = Capsule::from_points(a, b, 0.75f32);
            let shape64 = Capsule::from_points(a.cast::<f64>(), b.cast::<f64>(), 0.75);
            let worst = worst_closest_point_ulps(&shape32, &shape64, nalgebra::center(&a, &b), &[a, b], 23);
            println!(
                "capsule closest point, offset {:e}: worst {worst:.2} ulp",
                offset.x
            );
            assert!(worst <= 4.0, "{worst} ulp");
        }
    }
}
