//! Distance primitives shared by every shape.

use nalgebra::Point3;

use crate::scalar::Lane;

/// The point of segment `a b` closest to `point`, and its parameter
/// `s ∈ [0, 1]` (the point is `a + s (b - a)`).
///
/// Ericson, *Real-Time Collision Detection* §5.1.2. A zero-length segment
/// answers `a` with `s = 0`. Written over lanes: works for scalars and SIMD.
#[inline]
pub fn closest_point_on_segment<T: Lane>(point: &Point3<T>, a: &Point3<T>, b: &Point3<T>) -> (Point3<T>, T) {
    let zero = T::zero();
    let ab = b - a;
    let length_squared = ab.norm_squared();
    let along = (point - a).dot(&ab);
    let s = (along / length_squared).simd_clamp(zero, T::one());
    let s = s.select(length_squared.simd_gt(zero), zero);
    (a + ab * s, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    #[test]
    fn closest_point_on_segment_against_dense_sampling() {
        let a = Point3::new(1.0, -2.0, 0.5);
        let b = Point3::new(-3.0, 4.0, 2.0);
        for p in [
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(10.0, -10.0, 3.0),
            Point3::new(-8.0, 9.0, 1.0),
            Point3::new(-1.0, 1.0, 1.25),
        ] {
            let (q, s) = closest_point_on_segment(&p, &a, &b);
            assert!((q - (a + (b - a) * s)).norm() < 1e-12);
            let best = (0..=100_000)
                .map(|i| (p - (a + (b - a) * (i as f64 / 100_000.0))).norm())
                .fold(f64::INFINITY, f64::min);
            let d = (p - q).norm();
            assert!(d <= best + 1e-12 && d >= best - 1e-4, "{d} vs {best}");
        }
    }

    #[test]
    fn zero_length_segment_answers_its_point() {
        let a = Point3::new(1.0f32, 2.0, 3.0);
        let (q, s) = closest_point_on_segment(&Point3::origin(), &a, &a);
        assert_eq!((q, s), (a, 0.0));
        let _ = Vector3::<f32>::zeros();
    }
}
