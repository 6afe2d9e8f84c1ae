//! Closest point of the triangle.

use geom_core::distance::closest_point_on_triangle;
use geom_core::{Lane, LaneProjection};
use nalgebra::Point3;

/// The point of the triangle closest to `point` (Ericson RTCD §5.1.5, see
/// [`closest_point_on_triangle`]), and whether `point` lies on the triangle
/// (the closest point is the point itself).
#[inline]
pub fn project_point_triangle<T: Lane>(
    point: &Point3<T>,
    a: &Point3<T>,
    b: &Point3<T>,
    c: &Point3<T>,
) -> LaneProjection<T> {
    let (closest, _) = closest_point_on_triangle(point, a, b, c);
    let on = closest.x.simd_eq(point.x) & closest.y.simd_eq(point.y) & closest.z.simd_eq(point.z);
    LaneProjection {
        point: closest,
        inside: on,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::right;
    use geom_core::{Aabb, Shape};
    use nalgebra::{Point3, Vector3};

    #[test]
    fn closest_points_and_support() {
        let t = right();
        // Above the interior: straight down; beyond the hypotenuse: (2, 2, 0).
        let above = t.closest_point_local(&Point3::new(1.0, 2.0, 7.0), true).unwrap();
        assert_eq!(
            (above.point, above.is_inside),
            (Point3::new(1.0, 2.0, 0.0), false)
        );
        assert_eq!(
            t.closest_point_local(&Point3::new(3.0, 3.0, -1.0), true)
                .unwrap()
                .point,
            Point3::new(2.0, 2.0, 0.0)
        );
        // On the triangle: inside, distance 0 (never negative).
        let on = t.closest_point_local(&Point3::new(1.0, 2.0, 0.0), false).unwrap();
        assert!(on.is_inside);
        assert_eq!(t.distance_local(&Point3::new(1.0, 2.0, 0.0)), Some(0.0));
        assert_eq!(t.distance_local(&Point3::new(1.0, 2.0, -3.0)), Some(3.0));
        assert_eq!(
            t.support_local(&Vector3::new(1.0, 0.5, 0.0)),
            Some(Point3::new(4.0, 0.0, 0.0))
        );
        assert_eq!(t.support_local(&Vector3::zeros()), None);
        assert_eq!(
            t.local_aabb(),
            Aabb::new(Point3::origin(), Point3::new(4.0, 4.0, 0.0))
        );
    }
}
