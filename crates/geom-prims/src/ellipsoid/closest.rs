//! Closest point of the ellipsoid: Eberly's robust bisection.

use geom_core::LaneOrd;
use geom_core::{Lane, LaneProjection, lit};
use nalgebra::{Point3, SimdBool, SimdValue, Vector3};

use super::unit_sphere_point;

/// The cap on bisection steps. Each step halves the bracket, and the loop
/// also stops once the midpoint rounds to an endpoint, which in `f32` and
/// `f64` happens long before this for every root that moves the answer.
const MAX_BISECTIONS: usize = 200;

/// The point of the ellipsoid's boundary closest to `point`, and whether
/// `point` is inside or on it, on lanes (radii may differ per lane).
///
/// Eberly, "Distance from a Point to an Ellipse, an Ellipsoid, or a
/// Hyperellipsoid" (Geometric Tools, 2013): reflect into the first octant,
/// sort the axes by decreasing radius, and find the root `s` of
/// `F(s) = Σ (rᵢ zᵢ / (s + rᵢ))² − 1` (`zᵢ = yᵢ/eᵢ`, `rᵢ = (eᵢ/e₂)²`) by
/// bisection on his bracket; a point in the plane of the two largest axes
/// takes his closed form when it lies under the evolute, else the 2D
/// ellipse problem; a point on the largest axis (or a segment ellipsoid) his
/// 1D closed form. Flat ellipsoids (zero radii) follow the same cases: the
/// projection onto the disk, or the ellipse's rim.
///
/// Branch-free: every case is computed for every lane and selected; the
/// bisection runs while any lane is still moving, each lane freezing when
/// its own scalar loop would stop, so lanes equal scalars bit for bit.
#[inline]
pub fn project_point_ellipsoid<T: Lane>(point: &Point3<T>, radii: &Vector3<T>) -> LaneProjection<T> {
    let zero = T::zero();
    // First octant, axes sorted by decreasing radius (a 3-input sorting
    // network whose swaps are undone in reverse at the end).
    let mut sorted_radii = *radii;
    let mut y = point.coords.map(|c| c.simd_abs());
    let swaps = [(0, 1), (1, 2), (0, 1)].map(|(i, j)| {
        let swap = sorted_radii[i].simd_lt(sorted_radii[j]);
        swap_where(&mut sorted_radii, i, j, swap);
        swap_where(&mut y, i, j, swap);
        (i, j, swap)
    });
    let mut closest = closest_in_sorted_octant(&sorted_radii, &y);
    for &(i, j, swap) in swaps.iter().rev() {
        swap_where(&mut closest, i, j, swap);
    }
    let closest = Vector3::from_fn(|i, _| closest[i].select(point[i].simd_ge(zero), -closest[i]));
    let (_, inside) = unit_sphere_point(&point.coords, radii);
    LaneProjection {
        point: Point3::from(closest),
        inside,
    }
}

#[inline]
fn swap_where<T: Lane>(v: &mut Vector3<T>, i: usize, j: usize, swap: T::SimdBool) {
    let (a, b) = (v[i], v[j]);
    v[i] = b.select(swap, a);
    v[j] = a.select(swap, b);
}

/// `|v|` without overflow or underflow of the squares.
#[inline]
fn robust_length<T: Lane>(v: &Vector3<T>) -> T {
    let largest = v.x.simd_abs().lane_max(v.y.simd_abs()).lane_max(v.z.simd_abs());
    let scale = largest.select(largest.simd_gt(T::zero()), T::one());
    scale * (v / scale).norm()
}

/// Eberly's cases for `e₀ >= e₁ >= e₂ >= 0` and `y >= 0`.
#[inline]
fn closest_in_sorted_octant<T: Lane>(e: &Vector3<T>, y: &Vector3<T>) -> Vector3<T> {
    let zero = T::zero();
    let one = T::one();
    // In the plane of the two largest axes (or a disk, whose points all
    // project along its flat axis): under the evolute the closest point
    // leaves the plane, x = (e₀ e₀y₀/(e₀² − e₂²), e₁ e₁y₁/(e₁² − e₂²), e₂√(…)).
    let planar = y.z.simd_eq(zero) | e.z.simd_eq(zero);
    let denominator0 = e.x * e.x - e.z * e.z;
    let denominator1 = e.y * e.y - e.z * e.z;
    let numerator0 = e.x * y.x;
    let numerator1 = e.y * y.y;
    let ratio0 = numerator0 / denominator0;
    let ratio1 = numerator1 / denominator1;
    let remainder = one - ratio0 * ratio0 - ratio1 * ratio1;
    let under_evolute = planar
        & numerator0.simd_lt(denominator0)
        & numerator1.simd_lt(denominator1)
        & remainder.simd_gt(zero);
    let off_plane = Vector3::new(
        e.x * ratio0,
        e.y * ratio1,
        e.z * remainder.lane_max(zero).simd_sqrt(),
    );

    // The 1D case (on the largest axis of the ellipse e₀, e₁, or a segment).
    let on_axis = planar & !under_evolute & (y.y.simd_eq(zero) | e.y.simd_eq(zero));
    let numerator = e.x * y.x;
    let denominator = e.x * e.x - e.y * e.y;
    let ratio = numerator / denominator;
    let axis_point = Vector3::new(
        e.x * ratio,
        e.y * (one - ratio * ratio).lane_max(zero).simd_sqrt(),
        zero,
    )
    .select(numerator.simd_lt(denominator), Vector3::new(e.x, zero, zero));

    // Everything else bisects: the ellipsoid (y₂ > 0, e₂ > 0), or the ellipse
    // (e₀, e₁) in the plane, set up as an ellipsoid whose middle term is zero.
    let ellipse = planar & !under_evolute & !on_axis;
    let bisect_radii = Vector3::new(e.x, e.y, e.y.select(ellipse, e.z));
    let bisect_point = Vector3::new(y.x, zero.select(ellipse, y.y), y.y.select(ellipse, y.z));
    let active = !planar | ellipse;
    let found = bisect_root(&bisect_radii, &bisect_point, active);
    let bisected = Vector3::new(
        found.x,
        found.z.select(ellipse, found.y),
        zero.select(ellipse, found.z),
    );

    let closest = off_plane.select(under_evolute, bisected);
    axis_point.select(on_axis, closest)
}

/// Eberly's `GetRoot` and the point it gives, for `a₀ >= a₁ >= a₂ > 0`,
/// `w >= 0` with `w₂ > 0`, on the lanes in `active`.
///
/// The unknown is Eberly's `s` shifted by one, `σ = s + 1 = (t + a₂²)/a₂²`:
/// the smallest-axis coordinate is `x₂ = w₂/σ`, and points near the centre
/// plane have their root at `s ≈ −1`, where `s + 1` would cancel. Bisecting
/// on `σ` keeps it to full relative precision; the bracket becomes
/// `[z₂, |r z|]` (or `[z₂, 1]` inside), whose lower end is exact.
#[inline]
fn bisect_root<T: Lane>(a: &Vector3<T>, w: &Vector3<T>, active: T::SimdBool) -> Vector3<T> {
    let zero = T::zero();
    let one = T::one();
    let half = lit::<T>(0.5);
    let z = w.component_div(a);
    let g = z.norm_squared() - one;
    // rᵢ = (aᵢ/a₂)² >= 1, and rᵢ − 1 = (aᵢ − a₂)(aᵢ + a₂)/a₂² without cancellation.
    let weights = Vector3::from_fn(|i, _| (a[i] / a.z) * (a[i] / a.z));
    let offsets = Vector3::from_fn(|i, _| ((a[i] - a.z) * (a[i] + a.z)) / (a.z * a.z));
    let numerators = weights.component_mul(&z);
    let mut low = z.z;
    let mut high = one.select(g.simd_lt(zero), robust_length(&numerators));
    let mut sigma = one;
    // On the surface (g = 0) the point is its own answer.
    let mut done = !active | g.simd_eq(zero);
    for _ in 0..MAX_BISECTIONS {
        if done.all() {
            break;
        }
        let moving = !done;
        let mid = (low + high) * half;
        sigma = mid.select(moving, sigma);
        let converged = mid.simd_eq(low) | mid.simd_eq(high);
        let ratios = Vector3::from_fn(|i, _| numerators[i] / (mid + offsets[i]));
        let g_mid = ratios.norm_squared() - one;
        let step = moving & !converged;
        low = mid.select(step & g_mid.simd_gt(zero), low);
        high = mid.select(step & g_mid.simd_lt(zero), high);
        // Stop on an exact root, or on NaN (neither above nor below).
        done = done | (moving & (converged | !(g_mid.simd_gt(zero) | g_mid.simd_lt(zero))));
    }
    let bisected = Vector3::from_fn(|i, _| weights[i] * w[i] / (sigma + offsets[i]));
    w.select(g.simd_eq(zero), bisected)
}

#[cfg(test)]
mod tests {
    use super::super::Ellipsoid;
    use super::super::ray::tests::percentile_and_max;
    use crate::test_support::TestRng;
    use geom_core::{LaneShape, Shape};
    use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
    use simba::simd::WideF32x8;

    fn project(radii: [f64; 3], p: [f64; 3], solid: bool) -> (Point3<f64>, bool) {
        let projection = Ellipsoid::new(radii.into())
            .closest_point_local(&p.into(), solid)
            .unwrap();
        (projection.point, projection.is_inside)
    }

    #[test]
    fn closest_points_by_hand() {
        let radii = [3.0, 2.0, 1.0];
        assert_eq!(
            project(radii, [5.0, 0.0, 0.0], true),
            (Point3::new(3.0, 0.0, 0.0), false)
        );
        assert_eq!(
            project(radii, [0.0, -10.0, 0.0], true),
            (Point3::new(0.0, -2.0, 0.0), false)
        );
        assert_eq!(
            project(radii, [0.0, 0.0, -0.5], false),
            (Point3::new(0.0, 0.0, -1.0), true)
        );
        // The centre projects onto the end of the smallest axis.
        assert_eq!(
            project(radii, [0.0, 0.0, 0.0], false),
            (Point3::new(0.0, 0.0, 1.0), true)
        );
        assert_eq!(project(radii, [0.0, 0.0, 0.0], true), (Point3::origin(), true));
        // (1, 0, 0) is under the evolute: xᵢ = eᵢ² yᵢ / (t + eᵢ²) at t = −e₂² = −1
        // gives x₀ = 9/8, and x₂ = √(1 − (9/8)²/9) = √55/8.
        let (p, inside) = project(radii, [1.0, 0.0, 0.0], false);
        assert!(inside);
        assert!(
            (p - Point3::new(1.125, 0.0, 55f64.sqrt() / 8.0)).norm() < 1e-15,
            "{p:?}"
        );
        // Beyond the evolute (x₀ = 2.8 >= (e₀² − e₂²)/e₀ = 8/3): the 1D case
        // x₀ = e₀² y₀/(e₀² − e₁²) = 9·2.8/5 > e₀, so the vertex (3, 0, 0).
        assert_eq!(
            project(radii, [2.8, 0.0, 0.0], false).0,
            Point3::new(3.0, 0.0, 0.0)
        );
        // A sphere: radial projection.
        let (p, _) = project([2.0, 2.0, 2.0], [3.0, 4.0, 0.0], true);
        assert!((p - Point3::new(1.2, 1.6, 0.0)).norm() < 1e-15);
        // Signs of the octant come back.
        let (p, _) = project(radii, [-5.0, 0.0, 0.0], true);
        assert_eq!(p, Point3::new(-3.0, 0.0, 0.0));
    }

    #[test]
    fn flat_ellipsoids_project_as_eberly_does() {
        let disk = [2.0, 1.0, 0.0];
        assert_eq!(
            project(disk, [0.5, 0.5, 3.0], true),
            (Point3::new(0.5, 0.5, 0.0), false)
        );
        assert_eq!(
            project(disk, [3.0, 0.0, -1.0], true),
            (Point3::new(2.0, 0.0, 0.0), false)
        );
        assert_eq!(
            project(disk, [0.5, 0.5, 0.0], false),
            (Point3::new(0.5, 0.5, 0.0), true)
        );
        assert!(!project(disk, [0.5, 0.5, 1e-30], false).1);
        // Outside the ellipse in its plane: the 2D problem.
        let (p, inside) = project(disk, [0.0, 3.0, 0.0], true);
        assert_eq!((p, inside), (Point3::new(0.0, 1.0, 0.0), false));
        let segment = [0.0, 2.0, 0.0];
        assert_eq!(
            project(segment, [1.0, 1.5, -1.0], true),
            (Point3::new(0.0, 1.5, 0.0), false)
        );
        assert_eq!(
            project(segment, [1.0, -3.0, 0.0], true),
            (Point3::new(0.0, -2.0, 0.0), false)
        );
        assert_eq!(
            project([0.0; 3], [1.0, -3.0, 0.0], true),
            (Point3::origin(), false)
        );
        assert_eq!(project([0.0; 3], [0.0, 0.0, 0.0], true), (Point3::origin(), true));
        assert!(
            Ellipsoid::new(Vector3::new(1.0, 1.0, 1.0))
                .closest_point_local(&Point3::new(f64::NAN, 0.0, 0.0), false)
                .is_none()
        );
        assert!(
            Ellipsoid::new(Vector3::new(1.0, 1.0, 1.0))
                .closest_point_local(&Point3::new(f64::INFINITY, 0.0, 0.0), false)
                .is_none()
        );
    }

    /// f64 closest points are on the surface, the gradient there points at
    /// the query (the normal condition), and no dense sample is closer.
    #[test]
    fn f64_against_dense_sampling_and_the_normal_condition() {
        let radii = Vector3::new(3.0, 1.5, 0.5);
        let e = Ellipsoid::new(radii);
        let samples: Vec<Point3<f64>> = (0..200_000)
            .map(|i| {
                let n = 200_000.0;
                let y = 1.0 - 2.0 * (i as f64 + 0.5) / n;
                let r = (1.0 - y * y).sqrt();
                let phi = i as f64 * std::f64::consts::PI * (3.0 - 5f64.sqrt());
                Point3::from(Vector3::new(r * phi.cos(), y, r * phi.sin()).component_mul(&radii))
            })
            .collect();
        let mut rng = TestRng::new(41);
        for _ in 0..200 {
            let q = Point3::from(rng.vector(5.0));
            let p = e.closest_point_local(&q, false).unwrap().point;
            assert!((p.coords.component_div(&radii).norm() - 1.0).abs() < 1e-14);
            let gradient = p.coords.component_div(&radii.component_mul(&radii)).normalize();
            let to_query = q - p;
            assert!(gradient.cross(&to_query).norm() <= 1e-12 * (1.0 + to_query.norm()));
            let d = to_query.norm();
            let best = samples
                .iter()
                .map(|s| (q - s).norm())
                .fold(f64::INFINITY, f64::min);
            assert!(d <= best + 1e-12, "{d} vs {best} at {q:?}");
        }
    }

    /// Error of the f32 answer against f64 in f32 ulps of the largest
    /// coordinate of the query and the answer: `(p99, max, count)`.
    fn ulp_errors(radii: Vector3<f64>, pose: &Isometry3<f64>, points: &[Point3<f64>]) -> (f64, f64, usize) {
        let e64 = Ellipsoid::new(radii);
        let e32 = Ellipsoid::new(radii.cast::<f32>());
        let pose32: Isometry3<f32> = pose.cast();
        let mut errors = Vec::new();
        for p in points {
            let world = (pose * p).map(|c| c as f32 as f64);
            let a = e32.closest_point(&pose32, &world.cast(), false).unwrap();
            let b = e64.closest_point(pose, &world, false).unwrap();
            let largest = world.coords.amax().max(b.point.coords.amax()) as f32;
            let ulp = (f32::from_bits(largest.to_bits() + 1) - largest) as f64;
            errors.push((a.point.cast::<f64>() - b.point).amax() / ulp);
        }
        percentile_and_max(errors)
    }

    fn hard_points(radii: Vector3<f64>, seed: u64) -> Vec<Point3<f64>> {
        let mut rng = TestRng::new(seed);
        let r = |x: f64| x as f32 as f64;
        let mut points = vec![Point3::origin()];
        for axis in 0..3 {
            for scale in [0.25, 0.5, 0.999, 1.0, 1.001, 2.0, 100.0] {
                let mut p = Point3::origin();
                p[axis] = r(radii[axis] * scale);
                points.push(p);
                points.push(-p);
            }
        }
        for _ in 0..3000 {
            let unit = rng.vector(1.0).normalize();
            let on = unit.component_mul(&radii);
            // Near the surface, inside, far away, and in the coordinate planes.
            points.push(Point3::from((on * (1.0 + rng.uniform(-1e-3, 1e-3))).map(r)));
            points.push(Point3::from((on * rng.uniform(0.0, 1.0)).map(r)));
            points.push(Point3::from((on * rng.uniform(2.0, 1000.0)).map(r)));
            let mut planar = on * rng.uniform(0.0, 2.0);
            planar[(rng.next_u64() % 3) as usize] = 0.0;
            points.push(Point3::from(planar.map(r)));
        }
        points
    }

    fn report(case: &str, (p99, max, count): (f64, f64, usize), bound: f64) {
        println!("ellipsoid f32 closest {case}: p99 {p99:.2} ulp, max {max:.2} ulp over {count} points");
        assert!(max <= bound, "{case}: p99 {p99} max {max} ulp");
    }

    #[test]
    fn f32_closest_points_within_8_ulp() {
        for radii in [Vector3::new(3.0, 1.5, 0.75), Vector3::new(10.0, 0.01, 1.0)] {
            let errors = ulp_errors(radii, &Isometry3::identity(), &hard_points(radii, 42));
            report(&format!("radii {:?}", radii.as_slice()), errors, 8.0);
        }
        // The centre: exactly the end of the smallest axis in both.
        let e = Ellipsoid::new(Vector3::new(10.0f32, 0.01, 1.0));
        let p = e.closest_point_local(&Point3::origin(), false).unwrap().point;
        assert_eq!(p, Point3::new(0.0, 0.01, 0.0));
    }

    #[test]
    fn f32_rotated_offset_1e6_closest_points() {
        let radii = Vector3::new(3.0, 1.5, 0.75);
        let q = [0.3f32, -0.5, 0.1, 0.806_225_8];
        let rotation = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[3], q[0], q[1], q[2]));
        let pose32 = Isometry3::from_parts(Translation3::new(1e6, -1e6, 1e6), rotation);
        let pose: Isometry3<f64> = pose32.cast();
        let errors = ulp_errors(radii, &pose, &hard_points(radii, 43));
        report("rotated at 1e6", errors, 8.0);
    }

    #[test]
    fn bisection_lanes_equal_scalars_with_mixed_cases() {
        // Lanes at the centre, on axes, in planes and generic in one pack.
        let e = Ellipsoid::new(Vector3::new(10.0f32, 0.01, 1.0));
        let points = hard_points(Vector3::new(10.0, 0.01, 1.0), 44);
        for chunk in points.chunks_exact(8) {
            let lane = |k: usize| WideF32x8::from(std::array::from_fn::<f32, 8, _>(|i| chunk[i][k] as f32));
            let packed = Point3::new(lane(0), lane(1), lane(2));
            let projection = e.project_point_lanes(&packed);
            for (i, p) in chunk.iter().enumerate() {
                let p = p.cast::<f32>();
                assert_eq!(
                    projection.extract(i, &packed, false),
                    e.project_point_lanes(&p).into_projection(&p, false)
                );
            }
        }
    }
}
