//! Closest point of the capped solid cylinder.

use geom_core::LaneOrd;
use geom_core::{Lane, LaneProjection};
use nalgebra::{Point3, SimdValue};

use crate::basis::orthonormal_basis;

/// The point of the cylinder's boundary closest to `point`, and whether
/// `point` is inside or on it.
///
/// A 2D problem in (axial, radial) coordinates against the rectangle
/// `[0, |p1 − p0|] × [0, r]`: outside, clamp into it; inside, move to the
/// nearest of the three faces (ties prefer the side, then cap `p0`). The
/// answer is mapped back along the axis unit and the radial unit (for a
/// point on the axis, the first tangent of [`orthonormal_basis`]).
#[inline]
pub fn project_point_cylinder<T: Lane>(
    point: &Point3<T>,
    p0: &Point3<T>,
    p1: &Point3<T>,
    radius: T,
) -> LaneProjection<T> {
    let zero = T::zero();
    let from_p0 = point - p0;
    let from_p1 = point - p1;
    let axis = p1 - p0;
    let axis_squared = axis.norm_squared();
    let axis_length = axis_squared.simd_sqrt();
    let axis_unit = axis / axis_length;
    let moment = axis.cross(&from_p0);
    let moment_squared = moment.norm_squared();
    let height_above_p0 = axis.dot(&from_p0);
    let height_above_p1 = axis.dot(&from_p1);
    // The same inside test as the ray cast, so both agree on the boundary.
    let inside = moment_squared.simd_le(radius * radius * axis_squared)
        & height_above_p0.simd_ge(zero)
        & height_above_p1.simd_le(zero);

    let axial = height_above_p0 / axis_length;
    let below_p1 = -height_above_p1 / axis_length;
    let radial_distance = moment_squared.simd_sqrt() / axis_length;
    // (ca × oc) × ca is the part of oc perpendicular to the axis, times |ca|².
    let radial_direction = moment.cross(&axis);
    let radial_direction_length = radial_direction.norm();
    let (perpendicular, _) = orthonormal_basis(&axis_unit);
    let radial_unit = (radial_direction / radial_direction_length)
        .select(radial_direction_length.simd_gt(zero), perpendicular);

    // Outside: clamp into the rectangle.
    let clamped_axial = axial.lane_max(zero).lane_min(axis_length);
    let clamped_radial = radial_distance.lane_min(radius);
    // Inside: the nearest face.
    let to_side = radius - radial_distance;
    let side_nearest = to_side.simd_le(axial) & to_side.simd_le(below_p1);
    let cap0_nearest = axial.simd_le(below_p1);
    let face_axial = axial.select(side_nearest, zero.select(cap0_nearest, axis_length));
    let face_radial = radius.select(side_nearest, radial_distance);

    let axial = face_axial.select(inside, clamped_axial);
    let radial = face_radial.select(inside, clamped_radial);
    LaneProjection {
        point: p0 + (axis_unit * axial + radial_unit * radial),
        inside,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Cylinder;
    use super::super::tests::upright;
    use crate::test_support::worst_closest_point_ulps;
    use geom_core::Shape;
    use nalgebra::{Point3, Vector3};

    #[test]
    fn closest_points_by_hand() {
        let cylinder = upright();
        let project = |p: [f64; 3], solid| cylinder.closest_point_local(&p.into(), solid).unwrap();
        let close = |a: Point3<f64>, b: [f64; 3]| (a - Point3::from(b)).norm() < 1e-15;
        // Beside the side, above a cap, beyond the rim.
        let p = project([3.0, 4.0, 0.25], true);
        assert!(close(p.point, [0.3, 0.4, 0.25]) && !p.is_inside);
        let p = project([0.1, 0.2, 3.0], true);
        assert!(close(p.point, [0.1, 0.2, 1.0]) && !p.is_inside);
        let p = project([0.0, -3.0, -4.0], true);
        assert!(close(p.point, [0.0, -0.5, -1.0]));
        // Inside: solid keeps the point; hollow goes to the nearest face.
        let p = project([0.1, 0.0, 0.2], true);
        assert_eq!((p.point, p.is_inside), (Point3::new(0.1, 0.0, 0.2), true));
        let p = project([0.1, 0.0, 0.2], false);
        assert!(close(p.point, [0.5, 0.0, 0.2]) && p.is_inside);
        let p = project([0.1, 0.0, 0.9], false);
        assert!(close(p.point, [0.1, 0.0, 1.0]));
        let p = project([0.0, 0.1, -0.95], false);
        assert!(close(p.point, [0.0, 0.1, -1.0]));
        // The centre: the side is nearest (0.5 < 1), some radial direction.
        let p = project([0.0, 0.0, 0.0], false);
        assert!((p.point.coords.xy().norm() - 0.5).abs() < 1e-15 && p.point.z == 0.0);
        // 0.2 below cap p1 (nearer than the side at 0.5): -0.2.
        let d = cylinder.distance_local(&Point3::new(0.0, 0.0, 0.8)).unwrap();
        assert!((d + 0.2).abs() < 1e-15, "{d}");
        assert_eq!(cylinder.distance_local(&Point3::new(0.0, 0.0, 3.0)), Some(2.0));
    }

    /// f32 closest points against f64 on the same inputs: within 4 ulp of
    /// the largest coordinate involved, near the origin and at 1e6.
    #[test]
    fn f32_closest_points_within_4_ulp_of_the_largest_coordinate() {
        for offset in [Vector3::zeros(), Vector3::new(1.0e6f32, -1.0e6, 1.0e6)] {
            let p0 = Point3::new(0.25f32, -1.0, 0.5) + offset;
            let p1 = Point3::new(1.25f32, 0.75, -0.5) + offset;
            let shape32 = Cylinder::from_points(p0, p1, 0.75f32);
            let shape64 = Cylinder::from_points(p0.cast::<f64>(), p1.cast::<f64>(), 0.75);
            let worst =
                worst_closest_point_ulps(&shape32, &shape64, nalgebra::center(&p0, &p1), &[p0, p1], 23);
            println!(
                "cylinder closest point, offset {:e}: worst {worst:.2} ulp",
                offset.x
            );
            assert!(worst <= 4.0, "{worst} ulp");
        }
    }
}
