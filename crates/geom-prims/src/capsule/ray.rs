//! Ray against the solid capsule.

use geom_core::LaneOrd;
use geom_core::distance::closest_point_on_segment;
use geom_core::exact::{far_start, restarted_offset};
use geom_core::{Lane, LaneHit, Ray, lit};
use nalgebra::{Point3, SimdBool, SimdValue, Vector3};

use geom_core::quadratic::ray_cast_sphere_near;

/// Keeps `candidate` where `valid` and it is earlier than the current best.
#[inline]
fn keep_earliest<T: Lane>(best: LaneHit<T>, valid: T::SimdBool, candidate: LaneHit<T>) -> LaneHit<T> {
    let take = valid & (!best.mask | candidate.t.simd_lt(best.t));
    LaneHit {
        mask: best.mask | valid,
        t: candidate.t.select(take, best.t),
        normal: candidate.normal.select(take, best.normal),
        face: candidate.face.select(take, best.face),
    }
}

/// Ray (any `dir` length, `t` in units of `dir`) against the capsule around
/// segment `a b`, on lanes.
///
/// After Quilez's capsule intersector, made stable: everything is relative to
/// `a` (`oa = origin − a`, `ba = b − a`). The infinite cylinder is the 2D
/// problem of the ray `ba × oa + t (ba × d)` against a circle of radius
/// `r |ba|`, solved like the sphere (discriminant `r²|ba|² − |l|²` with `l`
/// the closest approach, roots `c / q` and `q / A`), so no coefficient
/// subtracts nearly equal products. Side roots count where the axial
/// parameter lies in `[0, |ba|²]`; the end caps reuse the sphere's quadratic
/// ([`ray_cast_sphere_near`], within the capsule's restart) on
/// `origin − a` and `origin − b`. A valid side entry from outside is the
/// answer (no cap sphere is entered before it); otherwise the earliest
/// valid candidate is selected, without branches, and the caps are
/// computed only when some lane needs them.
///
/// From inside (hollow) the exit is found the same way; a cap whose sphere
/// does not hold the origin is searched from the ray's closest approach to
/// its centre, which is inside that sphere whenever the ray leaves through it.
#[inline]
pub fn ray_cast_capsule<T: Lane>(
    ray: &Ray<T>,
    a: &Point3<T>,
    b: &Point3<T>,
    radius: T,
    max_t: T,
    solid: bool,
) -> LaneHit<T> {
    let zero = T::zero();
    let unbounded = lit::<T>(f64::INFINITY);
    let dir = ray.dir;
    let dir_squared = dir.norm_squared();
    // Subtract first: a small capsule far from the origin keeps its bits.
    // Restart the ray next to the capsule (outside the bounding sphere about
    // the segment's middle), with the offsets to `a` and `b` computed nearly
    // exactly, so a small capsule far away keeps its bits; `t_start` is
    // added back at the end. Zero (and the offsets plain differences) for
    // origins within `RESTART_DISTANCE` bounding radii (`far_start`).
    let half_axis = (b - a) * lit::<T>(0.5);
    let from_middle = (ray.origin - a) - half_axis;
    let restart = far_start(&from_middle, &dir, half_axis.norm() + radius);
    let t_start = restart.unwrap_or_else(T::zero);
    let from_a = restarted_offset(&ray.origin, a, &dir, restart);
    let from_b = restarted_offset(&ray.origin, b, &dir, restart);
    let axis = b - a;
    let axis_squared = axis.norm_squared();
    let radius_squared = radius * radius;

    let (nearest_on_axis, _) =
        closest_point_on_segment(&Point3::from(from_a), &Point3::origin(), &Point3::from(axis));
    // Inside the capsule, or inside either cap sphere by the test the
    // sphere kernel makes (`|from_centre|² <= r²`): at an origin on a cap
    // the two tests round differently, and a cap sphere that holds the
    // origin answers its exit, which only the inside branch checks against
    // the cap's hemisphere.
    let inside = (from_a - nearest_on_axis.coords)
        .norm_squared()
        .simd_le(radius_squared)
        | from_a.norm_squared().simd_le(radius_squared)
        | from_b.norm_squared().simd_le(radius_squared);
    let outside = !inside;

    // Axial coordinate of the point at `t`, scaled by |ba|: 0 at a, |ba|² at b.
    let axial_start = axis.dot(&from_a);
    let axial_rate = axis.dot(&dir);
    let axial_at = |t: T| axial_start + t * axial_rate;

    // The infinite cylinder as a 2D circle problem (see the doc comment).
    let moment = axis.cross(&from_a);
    let sweep = axis.cross(&dir);
    let quad_a = sweep.norm_squared();
    let half_b = -moment.dot(&sweep);
    let closest_approach = moment + sweep * (half_b / quad_a);
    let scaled_radius_squared = radius_squared * axis_squared;
    let disc = scaled_radius_squared - closest_approach.norm_squared();
    let c = moment.norm_squared() - scaled_radius_squared; // > 0 ⇔ outside the infinite cylinder
    let root = (quad_a * disc.lane_max(zero)).simd_sqrt();
    let b_non_negative = half_b.simd_ge(zero);
    let q = half_b + root.select(b_non_negative, -root);
    let t_side_entry = c / q;
    let t_side_exit = (q / quad_a).select(b_non_negative, c / q);
    let crosses_side = quad_a.simd_gt(zero) & disc.simd_ge(zero);
    let entering_side = c.simd_gt(zero) & half_b.simd_gt(zero);
    let t_side = t_side_entry.select(outside, t_side_exit);
    let side_axial = axial_at(t_side);
    let side_valid = crosses_side
        & (entering_side | inside)
        & t_side.simd_ge(zero)
        & side_axial.simd_ge(zero)
        & side_axial.simd_le(axis_squared);
    let side_point = from_a + dir * t_side;
    let radial = side_point - axis * (side_axial / axis_squared);
    // Scaled first where `|radial|²` leaves the normal range (a zero or
    // tiny radius, the hit a rounding-sized offset from the axis).
    let (radial, radial_length) = geom_core::ray::with_length(&radial);
    let facing_back = -dir / dir_squared.simd_sqrt();
    let side = LaneHit {
        mask: side_valid,
        t: t_side,
        normal: (radial / radial_length).select(radial_length.simd_gt(zero), facing_back),
        face: zero,
    };

    // A valid side entry from outside is the first crossing: each cap
    // sphere lies within the infinite cylinder, so no cap is entered before
    // it (at the seam, where both meet to rounding, the side is taken). For
    // the same reason a ray from outside that clearly misses the infinite
    // cylinder (not parallel to the axis; the discriminant below −16 ε of
    // its scale, so that the caps' own tests, a few ε each, miss as
    // clearly) misses the caps. When every lane is settled so, the caps are
    // not computed.
    let side_first = side_valid & outside;
    let clear_miss = -scaled_radius_squared * lit::<T>(16.0) * T::simd_default_epsilon();
    let misses_cylinder = outside & quad_a.simd_gt(zero) & disc.simd_lt(clear_miss);
    let t_side_total = t_start + t_side;
    let side_hit = LaneHit {
        mask: side.mask & t_side_total.simd_le(max_t) & !misses_cylinder,
        t: t_side_total,
        ..side
    };
    if (side_first | misses_cylinder).all() {
        return side_hit;
    }

    // The caps. From outside the capsule the origin is outside both spheres
    // and the sphere kernel answers the entry. From inside, it answers the
    // exit when its sphere holds the start point; for a sphere that does not
    // hold the origin, start at the closest approach to its centre (inside
    // the sphere whenever the ray can leave the capsule through it) and add
    // that shift back.
    let cap = |from_centre: Vector3<T>, face: f64| {
        let outside_sphere = from_centre.norm_squared().simd_gt(radius_squared);
        let approach = (-from_centre.dot(&dir) / dir_squared).lane_max(zero);
        let shift = approach.select(inside & outside_sphere & dir_squared.simd_gt(zero), zero);
        let start = Point3::from(from_centre + dir * shift);
        // The capsule's restart (or its nearness) stands for the caps'.
        let hit = ray_cast_sphere_near(&Ray::new(start, dir), radius, unbounded, false);
        LaneHit {
            t: shift + hit.t,
            face: lit(face),
            ..hit
        }
    };
    let cap_a = cap(from_a, 1.0);
    let cap_b = cap(from_b, 2.0);
    // An exit counts only on the cap's own hemisphere; entries need no such
    // check (the earliest entry into the three convex pieces is the answer).
    let cap_a_valid = cap_a.mask & (outside | axial_at(cap_a.t).simd_le(zero));
    let cap_b_valid = cap_b.mask & (outside | axial_at(cap_b.t).simd_ge(axis_squared));

    let none = LaneHit {
        mask: zero.simd_gt(zero),
        t: unbounded,
        normal: Vector3::zeros(),
        face: zero,
    };
    let best = keep_earliest(none, cap_a_valid, cap_a);
    let best = keep_earliest(best, cap_b_valid, cap_b);
    let best = keep_earliest(best, side_valid, side);
    let t_total = t_start + best.t;
    let hit = LaneHit {
        mask: best.mask & t_total.simd_le(max_t),
        t: t_total,
        ..best
    };
    let settled = side_first | misses_cylinder;
    let hit = LaneHit {
        mask: (settled & side_hit.mask) | (!settled & hit.mask),
        t: side_hit.t.select(side_first, hit.t),
        normal: side_hit.normal.select(side_first, hit.normal),
        face: side_hit.face.select(side_first, hit.face),
    };
    if solid {
        hit.with_solid_inside(inside, &dir, max_t)
    } else {
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::super::Capsule;
    use super::super::tests::{cast, upright};
    use crate::test_support::{TestRng, p99_and_max, ulp_distance_f32, ulps_at_scale};
    use geom_core::{FeatureId, Ray, RayHit, Shape};
    use nalgebra::{Point3, Vector3};

    #[test]
    fn side_hit_by_hand() {
        // From x = -5 towards +x at speed 2, z = 0.3: the side x = -0.5 is
        // 4.5 away, t = 4.5 / 2 = 2.25, normal -x.
        let hit = cast(&upright(), [-5.0, 0.0, 0.3], [2.0, 0.0, 0.0], true).unwrap();
        assert_eq!(hit.t, 2.25);
        assert_eq!(hit.normal, Vector3::new(-1.0, 0.0, 0.0));
        assert_eq!(hit.feature, FeatureId::Face(0));
    }

    #[test]
    fn cap_hits_by_hand() {
        // Straight down the axis from z = 4: the top of cap b is at z = 1.5,
        // 2.5 away; dir length 0.5 gives t = 5.
        let hit = cast(&upright(), [0.0, 0.0, 4.0], [0.0, 0.0, -0.5], true).unwrap();
        assert_eq!((hit.t, hit.normal), (5.0, Vector3::new(0.0, 0.0, 1.0)));
        assert_eq!(hit.feature, FeatureId::Face(2));
        // Along +x at z = -1.3: the hemisphere around a is at x² = 0.25 - 0.09
        // = 0.16, x = -0.4, 4.6 from x = -5; normal (-0.4, 0, -0.3) / 0.5.
        let hit = cast(&upright(), [-5.0, 0.0, -1.3], [1.0, 0.0, 0.0], true).unwrap();
        assert!((hit.t - 4.6).abs() < 1e-14, "{}", hit.t);
        assert!((hit.normal - Vector3::new(-0.8, 0.0, -0.6)).norm() < 1e-14);
        assert_eq!(hit.feature, FeatureId::Face(1));
    }

    #[test]
    fn inside_solid_and_hollow() {
        let capsule = upright();
        // Solid: t = 0, normal -dir/|dir|.
        let hit = cast(&capsule, [0.1, 0.0, 0.0], [0.0, 3.0, 0.0], true).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vector3::new(0.0, -1.0, 0.0)));
        // Hollow, leaving through the side: y² = 0.25 - 0.01, y = √0.24.
        let hit = cast(&capsule, [0.1, 0.0, 0.0], [0.0, 2.0, 0.0], false).unwrap();
        assert!((hit.t - 0.24f64.sqrt() / 2.0).abs() < 1e-15);
        assert!((hit.normal - Vector3::new(0.1, 0.24f64.sqrt(), 0.0) / 0.5).norm() < 1e-15);
        assert_eq!(hit.feature, FeatureId::Face(0));
        // Hollow, from the centre straight up the axis: out at z = 1.5.
        let hit = cast(&capsule, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], false).unwrap();
        assert_eq!(
            (hit.t, hit.normal, hit.feature),
            (1.5, Vector3::z(), FeatureId::Face(2))
        );
        // Hollow, from inside the cylinder part (outside both spheres) out
        // through cap a: from (0.3, 0, -0.5) along -z, out where
        // 0.09 + (z+1)² = 0.25, z = -1.4, t = 0.9.
        let hit = cast(&capsule, [0.3, 0.0, -0.5], [0.0, 0.0, -1.0], false).unwrap();
        assert!((hit.t - 0.9).abs() < 1e-15, "{}", hit.t);
        assert!((hit.normal - Vector3::new(0.6, 0.0, -0.8)).norm() < 1e-15);
        assert_eq!(hit.feature, FeatureId::Face(1));
        // Slanted through cap a from the cylinder part: from (0, 0, -0.8)
        // along (1, 0, -1): relative to a the point is (t, 0, 0.2 - t), so
        // t² + (0.2 - t)² = 0.25, 2t² - 0.4t - 0.21 = 0,
        // t = (0.4 + √(0.16 + 1.68)) / 4 ≈ 0.439 (z ≈ -1.24, below a).
        let hit = cast(&capsule, [0.0, 0.0, -0.8], [1.0, 0.0, -1.0], false).unwrap();
        let expected = (0.4 + 1.84f64.sqrt()) / 4.0;
        assert!((hit.t - expected).abs() < 1e-15, "{} vs {expected}", hit.t);
    }

    #[test]
    fn misses_behind_and_max_t() {
        let capsule = upright();
        assert!(cast(&capsule, [-5.0, 0.0, 0.0], [-1.0, 0.0, 0.0], true).is_none());
        assert!(cast(&capsule, [-5.0, 0.6, 0.0], [1.0, 0.0, 0.0], true).is_none());
        assert!(cast(&capsule, [0.0, 0.0, 1.6], [0.0, 0.0, 1.0], true).is_none());
        let ray = Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0));
        assert_eq!(capsule.ray_cast_local(&ray, 4.5, true).unwrap().t, 4.5);
        assert!(capsule.ray_cast_local(&ray, 4.499, true).is_none());
    }

    /// The f32 answer against the f64 answer on the same f32-exact inputs.
    fn f32_vs_f64(
        a: Point3<f32>,
        b: Point3<f32>,
        radius: f32,
        ray: Ray<f32>,
        solid: bool,
    ) -> Option<(RayHit<f32>, RayHit<f64>, f64)> {
        let h32 = Capsule::from_points(a, b, radius).ray_cast_local(&ray, f32::INFINITY, solid);
        let ray64 = Ray::new(ray.origin.cast::<f64>(), ray.dir.cast::<f64>());
        let h64 = Capsule::from_points(a.cast(), b.cast(), radius as f64).ray_cast_local(
            &ray64,
            f64::INFINITY,
            solid,
        );
        assert_eq!(h32.is_some(), h64.is_some(), "hit/miss differs for {ray:?}");
        let (h32, h64) = (h32?, h64?);
        Some((h32, h64, ulp_distance_f32(h32.t, h64.t)))
    }

    /// Runs the precision cases for a capsule placed at `offset`, returning
    /// the ulp errors of each case.
    fn precision_cases(offset: Vector3<f32>) -> Vec<(&'static str, Vec<f64>)> {
        let a = Point3::new(0.25, -1.0, 0.5) + offset;
        let b = Point3::new(0.25, 1.0, 0.5) + offset; // axis along y, length 2
        let radius = 0.75f32;
        let mut worst = Vec::new();
        let mut rng = TestRng::new(5);
        let mut record = |name, ulps: Vec<f64>| worst.push((name, ulps));

        // Parallel to the axis, inside the radius: hits cap a (from below)
        // at y = -1 - √(r² - ρ²).
        let mut errors = Vec::new();
        for k in 0..200 {
            let rho = 0.74 * k as f32 / 200.0;
            let origin = Point3::new(0.25 + rho, -7.0, 0.5) + offset;
            let speed = 0.5 + rng.uniform(0.0, 2.0) as f32;
            let ray = Ray::new(origin, Vector3::new(0.0, speed, 0.0));
            let (_, h64, ulps) = f32_vs_f64(a, b, radius, ray, true).expect("parallel inside hits");
            // The cap's pole side: y = a.y - √(r² - ρ²), with ρ and the
            // distances taken from the rounded f32 inputs.
            let rho = origin.x as f64 - a.x as f64;
            let gap = a.y as f64 - origin.y as f64;
            let exact = (gap - (0.5625 - rho * rho).sqrt()) / ray.dir.y as f64;
            assert!((h64.t - exact).abs() <= 1e-12 * exact);
            errors.push(ulps);
        }
        record("parallel, inside radius", std::mem::take(&mut errors));
        // Parallel to the axis, outside the radius: always a miss.
        for k in 0..50 {
            let rho = 0.7501 + k as f32 * 0.01;
            let ray = Ray::new(
                Point3::new(0.25, -7.0, 0.5 + rho) + offset,
                Vector3::new(0.0, 1.0, 0.0),
            );
            // At 1e6 the f32 grid is 1/16: skip offsets that round onto the rim.
            if ray.origin.z as f64 - a.z as f64 > 0.75 {
                assert!(f32_vs_f64(a, b, radius, ray, true).is_none());
            }
        }

        // Origin exactly on the surface (side points and cap poles), rays
        // heading in: solid gives t = 0, hollow the exit.
        let mut errors = Vec::new();
        for origin in [
            Point3::new(1.0, 0.0, 0.5),
            Point3::new(0.25, 0.5, -0.25),
            Point3::new(0.25, 1.75, 0.5),
            Point3::new(0.25, -1.75, 0.5),
        ] {
            let origin = origin + offset;
            let inward = a + (b - a) * 0.5 - origin;
            for _ in 0..50 {
                let dir = inward + rng.vector(0.5).cast::<f32>();
                let ray = Ray::new(origin, dir);
                let (h32, _, _) = f32_vs_f64(a, b, radius, ray, true).expect("on-surface solid hits");
                assert_eq!(h32.t, 0.0);
                if let Some((_, _, ulps)) = f32_vs_f64(a, b, radius, ray, false) {
                    errors.push(ulps);
                }
            }
        }
        record("origin on the surface (hollow exit)", std::mem::take(&mut errors));

        // Origin inside: solid t = 0 with normal -dir/|dir|; hollow exit.
        let mut errors = Vec::new();
        for _ in 0..2000 {
            let origin = a + (b - a) * rng.uniform(-0.3, 1.3) as f32 + rng.vector(0.4).cast::<f32>();
            let dir = rng.vector(1.0).cast::<f32>();
            let ray = Ray::new(origin, dir);
            let capsule = Capsule::from_points(a.cast::<f64>(), b.cast::<f64>(), radius as f64);
            if capsule.distance_local(&origin.cast()).unwrap() >= 0.0 {
                continue;
            }
            let (h32, _, _) = f32_vs_f64(a, b, radius, ray, true).unwrap();
            assert_eq!(h32.t, 0.0);
            assert!((h32.normal + dir.normalize()).norm() < 1e-6);
            let (h32, h64, _) = f32_vs_f64(a, b, radius, ray, false).expect("hollow exits");
            // Measured at the scale the inputs carry, max(t, |origin − centre| / |dir|),
            // as the property suite does: a short exit from just inside a cap
            // sphere inherits the rounding of |origin − end|² − r² (about one
            // ulp of the radius) in the sphere kernel, up to ~30 ulp of a tiny
            // t itself.
            let floor = (origin - nalgebra::center(&a, &b)).norm() as f64 / dir.norm() as f64;
            errors.push(ulps_at_scale(h32.t, h64.t, floor));
        }
        record(
            "origin inside (hollow exit, at input scale)",
            std::mem::take(&mut errors),
        );

        // General rays from outside, near and far (including grazing ones).
        let mut errors = Vec::new();
        for i in 0..2000 {
            let origin = a + rng.vector(if i % 2 == 0 { 5.0 } else { 500.0 }).cast::<f32>();
            let target = a + (b - a) * rng.uniform(-0.5, 1.5) as f32 + rng.vector(0.8).cast::<f32>();
            let ray = Ray::new(origin, target - origin);
            for solid in [true, false] {
                if let Some((_, _, ulps)) = f32_vs_f64(a, b, radius, ray, solid) {
                    errors.push(ulps);
                }
            }
        }
        record("rays from outside", std::mem::take(&mut errors));
        worst
    }

    #[test]
    fn f32_matches_f64_within_4_ulp() {
        let mut cases = Vec::new();
        for (label, offset) in [
            ("", Vector3::zeros()),
            (" at 1e6", Vector3::new(1.0e6, -1.0e6, 1.0e6)),
        ] {
            for (name, errors) in precision_cases(offset) {
                cases.push((format!("{name}{label}"), errors));
            }
        }
        // A zero-length segment far away (origin near it, at 1e6).
        let centre = Point3::new(1.0e6f32, 2.0e6, -1.0e6);
        let mut rng = TestRng::new(9);
        let mut errors = Vec::new();
        for _ in 0..1000 {
            let origin = centre + rng.vector(3.0).cast::<f32>();
            let ray = Ray::new(origin, centre - origin + rng.vector(1.0).cast::<f32>());
            for solid in [true, false] {
                if let Some((_, _, ulps)) = f32_vs_f64(centre, centre, 1.0, ray, solid) {
                    errors.push(ulps);
                }
            }
        }
        cases.push(("zero-length segment at 1e6".to_string(), errors));
        for (name, errors) in cases {
            let (p99, max) = p99_and_max(errors);
            println!("{name}: p99 {p99:.2} ulp, max {max:.2} ulp");
            // The target is 4 ulp at p99. The few worse rays from outside are
            // grazing (|cos| < 0.15 against the normal) or start within 0.05
            // of the surface, where the rounding of the quadratic's
            // coefficients (a handful of half-ulp errors) is amplified.
            assert!(p99 <= 4.0 && max <= 10.0, "{name}: p99 {p99} max {max}");
        }
    }
}
