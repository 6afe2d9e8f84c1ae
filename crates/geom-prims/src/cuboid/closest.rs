//! Closest point of the solid box.

use geom_core::{Lane, LaneOrd, LaneProjection, lit};
use nalgebra::{Point3, SimdValue, Vector3};

use super::extreme_over_axes;

/// The point of the box's boundary closest to `point`, and whether `point`
/// is inside or on the box.
///
/// Outside, clamping each coordinate to its slab is exact (Ericson RTCD
/// §5.1.3). Inside, the nearest face is the one with the smallest gap
/// `h_k − |p_k|`, and only that coordinate moves (to `±h_k`, `+` for 0).
#[inline]
pub fn project_point_cuboid<T: Lane>(point: &Point3<T>, half_extents: &Vector3<T>) -> LaneProjection<T> {
    let zero = T::zero();
    let p = point.coords;
    let clamped = Vector3::from_fn(|k, _| p[k].lane_max(-half_extents[k]).lane_min(half_extents[k]));
    let in_slab: [T::SimdBool; 3] = std::array::from_fn(|k| p[k].simd_abs().simd_le(half_extents[k]));
    let inside = in_slab[0] & in_slab[1] & in_slab[2];
    let gaps: [T; 3] = std::array::from_fn(|k| half_extents[k] - p[k].simd_abs());
    let all_axes = [inside; 3];
    let (_, nearest_axis) = extreme_over_axes(gaps, all_axes, false);
    let on_face = Vector3::from_fn(|k, _| {
        let face_value = half_extents[k].select(p[k].simd_ge(zero), -half_extents[k]);
        face_value.select(nearest_axis.simd_eq(lit::<T>(k as f64)), p[k])
    });
    LaneProjection {
        point: Point3::from(on_face.select(inside, clamped)),
        inside,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Cuboid;
    use geom_core::Shape;
    use nalgebra::{Point3, Vector3};

    #[test]
    fn closest_points_hand_checked() {
        let b = Cuboid::new(Vector3::new(1.0, 2.0, 3.0));
        let project = |p: [f64; 3], solid| b.closest_point_local(&p.into(), solid).unwrap();
        // Outside: clamp (3, 0.5, −7) → (1, 0.5, −3).
        let outside = project([3.0, 0.5, -7.0], true);
        assert_eq!(
            (outside.point, outside.is_inside),
            (Point3::new(1.0, 0.5, -3.0), false)
        );
        // Inside: gaps (0.1, 2, 3) → +x face; gaps (1, 2, 0.5) → −z face.
        assert_eq!(project([0.9, 0.0, 0.0], false).point, Point3::new(1.0, 0.0, 0.0));
        assert_eq!(
            project([0.0, 0.0, -2.5], false).point,
            Point3::new(0.0, 0.0, -3.0)
        );
        assert_eq!(project([0.0, 0.0, -2.5], true).point, Point3::new(0.0, 0.0, -2.5));
        assert_eq!(b.distance_local(&Point3::new(0.0, 0.0, -2.5)), Some(-0.5));
        assert_eq!(b.distance_local(&Point3::new(4.0, 6.0, 0.0)), Some(5.0));
        assert_eq!(
            b.support_local(&Vector3::new(1.0, -1.0, 0.0)),
            Some(Point3::new(1.0, -2.0, 3.0))
        );
    }
}
