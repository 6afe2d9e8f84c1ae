//! Ray against the half-space.

use geom_core::exact::dot_plus_compensated;
use geom_core::{Lane, LaneHit, Ray, all_finite};
use nalgebra::Vector3;

/// Ray (any `dir` length, `t` in units of `dir`) against the half-space
/// `normal · x <= offset` (any normal length), on lanes; `unit_normal` is the
/// normal reported at hits.
///
/// `t = (offset − n·o) / (n·d)` (Ericson RTCD §5.3.1) with both dot
/// products compensated ([`dot_plus_compensated`]), so neither a far plane
/// nor a grazing ray cancels digits. From outside the ray must move against
/// the normal; from inside a hollow half-space it exits only when moving
/// outward (`n·d > 0`): moving inward or along the plane it never leaves,
/// and misses. An origin on the plane counts as inside.
#[inline]
pub fn ray_cast_half_space<T: Lane>(
    ray: &Ray<T>,
    normal: &Vector3<T>,
    offset: T,
    unit_normal: &Vector3<T>,
    max_t: T,
    solid: bool,
) -> LaneHit<T> {
    let zero = T::zero();
    let height = dot_plus_compensated(normal, &ray.origin.coords, -offset); // <= 0 ⇔ inside or on
    let speed = dot_plus_compensated(normal, &ray.dir, zero); // along the outward normal
    let t = -height / speed;
    let inside = height.simd_le(zero);
    let outside = height.simd_gt(zero);
    let crosses = (outside & speed.simd_lt(zero)) | (inside & speed.simd_gt(zero));
    let finite = all_finite(&ray.origin.coords) & all_finite(&ray.dir);
    let mask = finite & crosses & t.simd_le(max_t);
    let hit = LaneHit {
        mask,
        t,
        normal: *unit_normal,
        face: zero,
    };
    if solid {
        hit.with_solid_inside(inside & finite, &ray.dir, max_t)
    } else {
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::super::HalfSpace;
    use super::super::tests::cast;
    use crate::test_support::{TestRng, ulp_distance_f32};
    use geom_core::{FeatureId, Ray, RayHit, Shape};
    use nalgebra::{Isometry3, Point3, Vector3};

    #[test]
    fn hand_checked_hits() {
        // 7z <= 14, i.e. z <= 2, from z = 5 at speed 3 down:
        // t = (14 − 35) / −21 = 1.
        let floor = HalfSpace::new(Vector3::new(0.0, 0.0, 7.0), 14.0);
        assert_eq!(floor.unit_normal(), Vector3::new(0.0, 0.0, 1.0));
        let hit = cast(&floor, [1.0, -4.0, 5.0], [0.5, 0.0, -3.0], true).unwrap();
        assert_eq!(
            hit,
            RayHit {
                t: 1.0,
                normal: Vector3::new(0.0, 0.0, 1.0),
                feature: FeatureId::Face(0)
            }
        );
        // n = (0, 3, 4), offset 5 (the unit plane at distance 1); from
        // (0, 0, 5) straight down: n·o = 20, n·d = −4, t = (5 − 20) / −4 = 3.75.
        let tilted = HalfSpace::new(Vector3::new(0.0, 3.0, 4.0), 5.0);
        let hit = cast(&tilted, [0.0, 0.0, 5.0], [0.0, 0.0, -1.0], true).unwrap();
        assert!((hit.t - 3.75).abs() < 1e-15);
        assert!((hit.normal - Vector3::new(0.0, 0.6, 0.8)).norm() < 1e-15);
    }

    #[test]
    fn inside_on_plane_parallel_and_away() {
        let floor = HalfSpace::new(Vector3::new(0.0, 0.0, 1.0), 2.0);
        // Inside: solid at 0 facing back; hollow exits moving up at
        // t = (2 − 0) / 2 = 1, never when moving down or sideways.
        let solid = cast(&floor, [0.0, 0.0, 0.0], [0.0, 0.0, 2.0], true).unwrap();
        assert_eq!((solid.t, solid.normal), (0.0, Vector3::new(0.0, 0.0, -1.0)));
        let exit = cast(&floor, [0.0, 0.0, 0.0], [0.0, 0.0, 2.0], false).unwrap();
        assert_eq!((exit.t, exit.normal), (1.0, Vector3::new(0.0, 0.0, 1.0)));
        assert!(cast(&floor, [0.0, 0.0, 0.0], [0.0, 0.0, -2.0], false).is_none());
        assert!(cast(&floor, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], false).is_none());
        // On the plane: inside; hollow moving out exits at once.
        let on = cast(&floor, [3.0, 1.0, 2.0], [0.0, 1.0, 1.0], false).unwrap();
        assert_eq!((on.t, on.normal), (0.0, Vector3::new(0.0, 0.0, 1.0)));
        assert_eq!(
            cast(&floor, [3.0, 1.0, 2.0], [0.0, 1.0, -1.0], true).unwrap().t,
            0.0
        );
        // Outside moving away or parallel: miss.
        assert!(cast(&floor, [0.0, 0.0, 3.0], [0.0, 0.0, 1.0], true).is_none());
        assert!(cast(&floor, [0.0, 0.0, 3.0], [1.0, 1.0, 0.0], true).is_none());
        // max_t: the hit at t = 1 from z = 3.
        let ray = Ray::new(Point3::new(0.0, 0.0, 3.0), Vector3::new(0.0, 0.0, -1.0));
        assert!(floor.ray_cast_local(&ray, 1.0, true).is_some());
        assert!(floor.ray_cast_local(&ray, 0.999, true).is_none());
    }

    /// Worst f32 error of `t` against the f64 answer, in f32 ulps of
    /// `max(t, |origin − plane_point| / |dir|)` (the property suite's floor:
    /// the f32 normal is rounded, which tilts the plane by ~eps about
    /// `plane_point`, so that much error is in the input itself). Rays are
    /// rounded to f32 first.
    fn worst_ulps(
        normal: Vector3<f64>,
        offset: f64,
        translation: Vector3<f64>,
        rays: &[(Vector3<f64>, Vector3<f64>)],
    ) -> f64 {
        let pose64 = Isometry3::translation(translation.x, translation.y, translation.z);
        let pose32 = pose64.cast::<f32>();
        let space64 = HalfSpace::new(normal, offset);
        let space32 = HalfSpace::new(normal.cast::<f32>(), offset as f32);
        let plane_point = translation + space64.normal * offset;
        let mut worst: f64 = 0.0;
        for (origin, dir) in rays {
            let ray32 = Ray::new(Point3::from(origin.cast::<f32>()), dir.cast::<f32>());
            let ray64 = Ray::new(ray32.origin.cast::<f64>(), ray32.dir.cast::<f64>());
            for solid in [true, false] {
                let h64 = space64.ray_cast(&pose64, &ray64, f64::INFINITY, solid);
                let h32 = space32.ray_cast(&pose32, &ray32, f32::INFINITY, solid);
                assert_eq!(h32.is_some(), h64.is_some(), "{ray64:?}");
                if let (Some(h32), Some(h64)) = (h32, h64) {
                    let floor = (ray64.origin.coords - plane_point).norm() / ray64.dir.norm();
                    let scale = h64.t.max(floor) as f32;
                    let spacing = (f32::from_bits(scale.to_bits() + 1) - scale) as f64;
                    worst = worst.max((h32.t as f64 - h64.t).abs() / spacing);
                }
            }
        }
        worst
    }

    /// Rays from 0.5..10 above and below `plane_point`, up to 10 sideways,
    /// meeting the plane at `|cos| >= min_cos`.
    fn rays_near(
        plane_point: Vector3<f64>,
        normal: Vector3<f64>,
        min_cos: f64,
        seed: u64,
    ) -> Vec<(Vector3<f64>, Vector3<f64>)> {
        let unit = normal.normalize();
        let mut rng = TestRng::new(seed);
        let mut rays = Vec::new();
        while rays.len() < 2000 {
            let height = rng.uniform(0.5, 10.0) * if rays.len().is_multiple_of(2) { 1.0 } else { -1.0 };
            let sideways = rng.vector(10.0);
            let sideways = sideways - unit * unit.dot(&sideways);
            let origin = plane_point + sideways + unit * height;
            let dir = rng.vector(2.0);
            if (dir.normalize().dot(&unit)).abs() >= min_cos {
                rays.push((origin, dir));
            }
        }
        rays
    }

    /// The plane y = −1e6 (offset 1e6 along −y): the numerator
    /// `offset − n·o` is exact, every ray within 1 ulp of t itself
    /// (measured: 0.5).
    #[test]
    fn axis_aligned_plane_with_far_offset_in_f32_within_4_ulp() {
        let normal = Vector3::new(0.0, -1.0, 0.0);
        let rays = rays_near(Vector3::new(3.0, -1.0e6, 7.0), normal, 0.05, 21);
        let pose64 = Isometry3::identity();
        let (space64, space32) = (
            HalfSpace::new(normal, 1.0e6),
            HalfSpace::new(normal.cast::<f32>(), 1.0e6),
        );
        let mut worst: f64 = 0.0;
        for (origin, dir) in &rays {
            let ray32 = Ray::new(Point3::from(origin.cast::<f32>()), dir.cast::<f32>());
            let ray64 = Ray::new(ray32.origin.cast::<f64>(), ray32.dir.cast::<f64>());
            for solid in [true, false] {
                let h64 = space64.ray_cast(&pose64, &ray64, f64::INFINITY, solid);
                let h32 = space32.ray_cast(&pose64.cast(), &ray32, f32::INFINITY, solid);
                assert_eq!(h32.is_some(), h64.is_some());
                if let (Some(h32), Some(h64)) = (h32, h64) {
                    worst = worst.max(ulp_distance_f32(h32.t, h64.t));
                }
            }
        }
        assert!(worst <= 1.0, "worst {worst} ulp");
    }

    /// A tilted plane 1e6 away, placed with a pose (its local offset small),
    /// rays at `|cos| >= 0.5`: within 4 ulp of the floor (measured: 2.7;
    /// the error grows as `1 / |cos|`, 8.1 ulp over rays at `|cos| >= 0.05`,
    /// as the rounded normal tilts the plane by ~eps).
    /// The same plane given as a local offset of 1e6 would only be good to
    /// `eps · 1e6` absolute (see the type's doc).
    #[test]
    fn tilted_plane_far_away_by_pose_in_f32_within_4_ulp() {
        let normal = Vector3::new(0.25, 0.5, -1.0);
        let translation = Vector3::new(1.0e6, -5.0e5, 2.5e5);
        let plane_point = translation + normal.normalize() * 0.5;
        let worst = worst_ulps(normal, 0.5, translation, &rays_near(plane_point, normal, 0.5, 22));
        assert!(worst <= 4.0, "worst {worst} ulp");
    }
}
