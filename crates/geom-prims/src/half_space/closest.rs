//! Closest point of the half-space's plane.

use geom_core::exact::dot_plus_compensated;
use geom_core::{Lane, LaneProjection};
use nalgebra::{Point3, Vector3};

/// The point of the plane closest to `point`, `p − ((n·p − offset)/|n|²) n`
/// (the height compensated), and whether `point` is inside or on the
/// half-space.
#[inline]
pub fn project_point_half_space<T: Lane>(
    point: &Point3<T>,
    normal: &Vector3<T>,
    offset: T,
) -> LaneProjection<T> {
    let height = dot_plus_compensated(normal, &point.coords, -offset);
    LaneProjection {
        point: point - normal * (height / normal.norm_squared()),
        inside: height.simd_le(T::zero()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::HalfSpace;
    use geom_core::Shape;
    use nalgebra::{Point3, Vector3};

    #[test]
    fn closest_points_hand_checked() {
        let floor = HalfSpace::new(Vector3::new(0.0, 0.0, 1.0), 2.0);
        let above = floor
            .closest_point_local(&Point3::new(3.0, 4.0, 7.0), true)
            .unwrap();
        assert_eq!(
            (above.point, above.is_inside),
            (Point3::new(3.0, 4.0, 2.0), false)
        );
        let below = floor
            .closest_point_local(&Point3::new(1.0, 1.0, -5.0), false)
            .unwrap();
        assert_eq!((below.point, below.is_inside), (Point3::new(1.0, 1.0, 2.0), true));
        let solid = floor
            .closest_point_local(&Point3::new(1.0, 1.0, -5.0), true)
            .unwrap();
        assert_eq!(solid.point, Point3::new(1.0, 1.0, -5.0));
        assert_eq!(floor.distance_local(&Point3::new(1.0, 1.0, -5.0)), Some(-7.0));
        assert_eq!(floor.distance_local(&Point3::new(1.0, 1.0, 5.0)), Some(3.0));
    }
}
