//! Ray against the solid capped cone.

use geom_core::LaneOrd;
use geom_core::exact::{far_start, restarted_offset};
use geom_core::{Lane, LaneHit, Ray, lit};
use nalgebra::{Point3, SimdValue};

use super::{cone_axis, inside_cone};

/// Ray (any `dir` length, `t` in units of `dir`) against the solid cone from
/// `apex` to the base disk of `radius` centred at `base`, on lanes.
///
/// After Quilez's capped-cone intersector, made stable: positions are taken
/// relative to the apex and base first; the lateral quadric
/// `|p × û|² − k²(p·û)² = 0` (`k = r/h`) gives `A t² + 2B t + C` whose
/// discriminant `B² − AC` is evaluated as `k²|(g p₀ − e d) × û|² − (û·(d × p₀))²`
/// (`e = p₀·û`, `g = d·û`), which has no `|p₀|²`-sized cancellation for far
/// origins; the roots are `C/q` and `q/A` with `q = −(B + sign(B)√disc)`.
/// Lateral roots count only between the apex and base planes (the right
/// nappe); the base disk is a plane hit checked against the radius.
///
/// Faces: lateral `0`, base `1` (`-1` for a solid hit from inside).
#[inline]
pub fn ray_cast_cone<T: Lane>(
    ray: &Ray<T>,
    apex: &Point3<T>,
    base: &Point3<T>,
    radius: T,
    max_t: T,
    solid: bool,
) -> LaneHit<T> {
    let zero = T::zero();
    let infinity = lit::<T>(f64::INFINITY);
    let dir = ray.dir;
    // Restart the ray next to the cone (bounding sphere about the axis
    // midpoint), with the offsets to the apex and base computed exactly
    // enough that a small cone far away keeps its bits; `t_start` is added
    // back at the end. Zero (and the offsets plain differences) for origins
    // within `RESTART_DISTANCE` bounding radii (`far_start`).
    let axis = base - apex;
    let from_middle = (ray.origin - apex) - axis * lit::<T>(0.5);
    let bounding_radius = (axis.norm_squared() * lit::<T>(0.25) + radius * radius).simd_sqrt();
    let restart = far_start(&from_middle, &dir, bounding_radius);
    let t_start = restart.unwrap_or_else(T::zero);
    let from_apex = restarted_offset(&ray.origin, apex, &dir, restart);
    let from_base = restarted_offset(&ray.origin, base, &dir, restart);
    let (height, axis_unit, slope_squared) = cone_axis(apex, base, radius);

    // Lateral quadric along p(t) = from_apex + t dir.
    let across_origin = from_apex.cross(&axis_unit);
    let across_dir = dir.cross(&axis_unit);
    let axial_origin = from_apex.dot(&axis_unit);
    let axial_speed = dir.dot(&axis_unit);
    let quad_a = across_dir.norm_squared() - slope_squared * axial_speed * axial_speed;
    let quad_b = across_origin.dot(&across_dir) - slope_squared * axial_origin * axial_speed;
    let quad_c = across_origin.norm_squared() - slope_squared * axial_origin * axial_origin;
    // B² − AC expanded: the |C|²|D|² and (C·D)² terms meet in |C × D|² and the
    // k² terms in k²|gC − eD|², both computed from vectors whose large
    // (along-the-ray) parts cancel exactly in the vector difference.
    let mixed = (from_apex * axial_speed - dir * axial_origin).cross(&axis_unit);
    let volume = axis_unit.dot(&dir.cross(&from_apex));
    let disc = slope_squared * mixed.norm_squared() - volume * volume;
    let root = disc.lane_max(zero).simd_sqrt();
    let q = -(quad_b + root.select(quad_b.simd_ge(zero), -root));
    let t_root_near = quad_c / q;
    let t_root_far = q / quad_a;
    let axial_from_base = from_base.dot(&axis_unit);
    // NaN and infinite roots fail these comparisons.
    let between_caps = |t: T| {
        disc.simd_ge(zero)
            & (axial_origin + t * axial_speed).simd_ge(zero)
            & (axial_from_base + t * axial_speed).simd_le(zero)
    };
    let near_valid = between_caps(t_root_near);
    let far_valid = between_caps(t_root_far);

    // Base disk: the plane through `base` across the axis, then the radius.
    let t_base = -axial_from_base / axial_speed;
    let base_point = from_base + dir * t_base;
    // Within the radius up to rounding: a ray through the rim meets the
    // lateral surface and the base at the rim itself, where rounding can
    // fail both containment tests (an inside origin then had no exit).
    let rim_slack = T::one() + lit::<T>(8.0) * T::simd_default_epsilon();
    let base_valid = base_point
        .cross(&axis_unit)
        .norm_squared()
        .simd_le(radius * radius * rim_slack);

    // The apex. A ray through the tip meets the lateral quadric in a double
    // root there, and rounding can lose it (a discriminant a hair below
    // zero, or a root a hair above the apex plane): an inside origin then
    // had no exit. The tip itself counts as a crossing when the ray passes
    // within rounding of it.
    let t_apex = -from_apex.dot(&dir) / dir.norm_squared();
    let apex_miss = from_apex + dir * t_apex;
    let apex_tolerance = T::simd_default_epsilon() * lit::<T>(16.0) * (from_apex.amax() + height);
    // Only a ray that goes on into the solid (its direction within the
    // cone's half-angle, `A <= 0`), or that must leave it (an inside
    // origin), takes the tip: from outside, a ray passing the tip at a
    // wider angle only grazes it, and the tolerance would have turned a
    // clear miss into a hit at the apex.
    let inside = inside_cone(&from_apex, &from_base, &axis_unit, slope_squared);
    let through_apex =
        apex_miss.norm_squared().simd_le(apex_tolerance * apex_tolerance) & (quad_a.simd_le(zero) | inside);

    // A convex solid: the entry is the first boundary crossing, the exit the last.
    let lateral_first = t_root_near
        .select(near_valid, infinity)
        .lane_min(t_root_far.select(far_valid, infinity))
        .lane_min(t_apex.select(through_apex, infinity));
    let lateral_last = t_root_near
        .select(near_valid, -infinity)
        .lane_max(t_root_far.select(far_valid, -infinity))
        .lane_max(t_apex.select(through_apex, -infinity));
    let base_first = t_base.select(base_valid, infinity);
    let base_last = t_base.select(base_valid, -infinity);
    let first_is_base = base_first.simd_lt(lateral_first);
    let last_is_base = base_last.simd_gt(lateral_last);
    let t_first = base_first.select(first_is_base, lateral_first);
    let t_last = base_last.select(last_is_base, lateral_last);

    // Outside: the entry, clamped to 0 when rounding puts it just behind an
    // origin on the surface. Inside (hollow): the exit.
    let t = t_first.lane_max(zero).select(!inside, t_last.lane_max(zero));
    let ahead = t_last.simd_ge(zero) | (inside & t_last.simd_gt(-infinity));
    let is_base = (first_is_base & !inside) | (last_is_base & inside);

    // Lateral normal: the gradient of ρ − (r/h)·y, (h ρ̂ − r û)/√(h² + r²).
    let hit_from_apex = from_apex + dir * t;
    let axial = hit_from_apex.dot(&axis_unit);
    let radial = hit_from_apex - axis_unit * axial;
    // The distance to the axis (infinite where `|radial|²` overflows, where
    // the scaled pair below serves the normal).
    let rho = radial.norm();
    // Scaled first where `|radial|²` leaves the normal range.
    let (radial, radial_length) = geom_core::ray::with_length(&radial);
    // With `h` and `r` divided by the larger of the two, so that no term
    // overflows (`h² + r²` does for a radius ≥ √max), then normalised.
    let larger = height.lane_max(radius);
    let (gradient, gradient_length) = geom_core::ray::with_length(
        &((radial / radial_length) * (height / larger) - axis_unit * (radius / larger)),
    );
    let lateral_normal = gradient / gradient_length;
    // One Newton step on the lateral surface's signed distance
    // `(h ρ − r z)/√(h² + r²)` (ρ from the axis, z along it from the apex),
    // whose gradient is the normal above. The quadric's root carries the
    // rounding of its `|p|²`-sized coefficients (up to 20 f32 ulp of `t` on
    // entries at any angle, about 1 random ray in 20 000); the step leaves
    // the rounding of `p` itself over `|cos|`. The distance is evaluated
    // from ρ and z rather than as `p·n`, which would carry `z²ε/ρ` from a
    // rounded `|û| ≠ 1` (large on thin cones). Skipped on the base and at
    // the apex (no tangent plane), where the step would be more than a
    // rounding correction, and for rays within 3° of the surface
    // (`|cos| < 0.05`), where the quadric's root is the better answer: a
    // short chord from an origin on the surface is a root of a `C` that is
    // zero to rounding, while the step's `ε|p|/|cos|` is not small.
    let (scaled_dir, dir_length) = geom_core::ray::with_length(&dir);
    let off_surface = rho * (height / larger) - axial * (radius / larger);
    // `|dir|·|gradient|·cos`, from the direction as scaled for its length.
    let scaled_speed_across = scaled_dir.dot(&gradient).simd_abs();
    let correction_bound = T::simd_default_epsilon().simd_sqrt() * (height + radius);
    let refine = !is_base
        & radial_length.simd_gt(apex_tolerance)
        & (off_surface.simd_abs() * dir_length).simd_le(correction_bound * scaled_speed_across)
        & scaled_speed_across.simd_ge(lit::<T>(0.05) * dir_length * gradient_length);
    let refined = (t - off_surface / dir.dot(&gradient)).lane_max(zero);
    let t = refined.select(refine, t);
    let t_total = t_start + t;
    let mask = ahead & t_total.simd_le(max_t);
    // At the apex (within rounding of it) the gradient is undefined: report −û. A zero-radius cone is
    // a segment with no surface direction: face the ray.
    let facing_ray = -scaled_dir / dir_length;
    let lateral_normal = lateral_normal.select(radial_length.simd_gt(apex_tolerance), -axis_unit);
    let lateral_normal = lateral_normal.select(radius.simd_gt(zero), facing_ray);
    let normal = axis_unit.select(is_base, lateral_normal);
    let hit = LaneHit {
        mask,
        t: t_total,
        normal,
        face: T::one().select(is_base, zero),
    };
    if solid {
        hit.with_solid_inside(inside, &dir, max_t)
    } else {
        hit
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::Cone;
    use crate::test_support::TestRng;
    use geom_core::{FeatureId, Ray, RayHit, Shape};
    use nalgebra::{Isometry3, Point3, Vector3};

    /// Apex (0, 0, 2), base disk at z = 0 of radius 1: the lateral surface is
    /// ρ = (2 − z)/2 and its outward normal (2 ρ̂ + ẑ)/√5.
    fn unit_cone() -> Cone<f64> {
        Cone::from_points(Point3::new(0.0, 0.0, 2.0), Point3::origin(), 1.0)
    }

    fn cast(
        cone: &Cone<f64>,
        origin: [f64; 3],
        dir: [f64; 3],
        max_t: f64,
        solid: bool,
    ) -> Option<RayHit<f64>> {
        cone.ray_cast_local(&Ray::new(origin.into(), dir.into()), max_t, solid)
    }

    fn close(a: Vector3<f64>, b: Vector3<f64>) -> bool {
        (a - b).norm() < 1e-15
    }

    /// Rays passing a cone's tip outside its half-angle, close enough for
    /// the f32 tip tolerance but a clear miss (moving the inputs by 4 f32
    /// ulps does not make them hit; found by `geom precision`, grazing):
    /// they used to hit the apex in f32. f32 and f64 agree they miss, on
    /// the same f32-exact inputs.
    #[test]
    fn rays_passing_the_tip_outside_the_half_angle_miss() {
        // Apex, base centre, origin, direction (f32 values written as the
        // f64 they are exactly), solid; the radius is 0.6f32.
        type Case = ([f64; 3], [f64; 3], [f64; 3], [f64; 3], bool);
        let cases: [Case; 3] = [
            (
                [-1.0238476991653442, -0.8917661309242249, -0.819688081741333],
                [-0.21932435035705566, -2.203097105026245, -1.1634148359298706],
                [0.6457700729370117, 0.09512805938720703, 0.8879719972610474],
                [-0.7542468905448914, -0.44582685828208923, -0.7714315056800842],
                true,
            ),
            (
                [0.2832275331020355, 1.257489800453186, -1.0605944395065308],
                [-0.24596832692623138, 1.2782602310180664, -0.21238982677459717],
                [-3.5755138397216797, 2.669081926345825, -1.7211264371871948],
                [1.21892249584198, -0.44590312242507935, 0.20865300297737122],
                false,
            ),
            (
                [0.7320875525474548, -1.9625476598739624, 1.2439329624176025],
                [-0.6535331606864929, -2.0508549213409424, 1.3484162092208862],
                [0.4673404097557068, -0.7477107644081116, 6.519458293914795],
                [0.02967674285173416, -0.13617509603500366, -0.5913518071174622],
                false,
            ),
        ];
        for (apex, base, origin, dir, solid) in cases {
            let [apex, base, origin, dir] = [apex, base, origin, dir].map(|v| v.map(|c| c as f32));
            let cone32 = Cone::from_points(Point3::from(apex), Point3::from(base), 0.6f32);
            let ray32 = Ray::new(Point3::from(origin), Vector3::from(dir));
            let cone64 = Cone::from_points(
                Point3::from(apex).cast::<f64>(),
                Point3::from(base).cast::<f64>(),
                0.6f32 as f64,
            );
            let ray64 = Ray::new(ray32.origin.cast::<f64>(), ray32.dir.cast::<f64>());
            assert!(cone64.ray_cast_local(&ray64, f64::INFINITY, solid).is_none());
            let hit = cone32.ray_cast_local(&ray32, f32::INFINITY, solid);
            assert!(hit.is_none(), "{apex:?} {base:?} {origin:?} {dir:?}: {hit:?}");
        }
    }

    #[test]
    fn lateral_base_and_apex_hits_by_hand() {
        let cone = unit_cone();
        let s5 = 5f64.sqrt();
        // From x = −5 at height 0.5: the surface is at ρ = 0.75, t = 4.25.
        let hit = cast(&cone, [-5.0, 0.0, 0.5], [1.0, 0.0, 0.0], f64::INFINITY, true).unwrap();
        assert_eq!(hit.t, 4.25);
        assert!(close(hit.normal, Vector3::new(-2.0, 0.0, 1.0) / s5));
        assert_eq!(hit.feature, FeatureId::Face(0));
        // From below through the base disk at z = 0: t = 5, normal −ẑ.
        let hit = cast(&cone, [0.3, 0.0, -5.0], [0.0, 0.0, 1.0], f64::INFINITY, true).unwrap();
        assert_eq!(
            (hit.t, hit.normal, hit.feature),
            (5.0, -Vector3::z(), FeatureId::Face(1))
        );
        // Down the axis onto the apex at z = 2: t = 3, normal +ẑ (−û).
        let hit = cast(&cone, [0.0, 0.0, 5.0], [0.0, 0.0, -1.0], f64::INFINITY, true).unwrap();
        assert_eq!((hit.t, hit.normal), (3.0, Vector3::z()));
        // Parallel to the axis at ρ = 0.5 with |dir| = 2: the surface is at
        // z = 1, so t = (5 − 1)/2 = 2.
        let hit = cast(&cone, [0.5, 0.0, 5.0], [0.0, 0.0, -2.0], f64::INFINITY, true).unwrap();
        assert_eq!(hit.t, 2.0);
        assert!(close(hit.normal, Vector3::new(2.0, 0.0, 1.0) / s5));
        // Up the axis from below meets the base first: t = 5 − 0 = 5.
        let hit = cast(&cone, [0.0, 0.0, -5.0], [0.0, 0.0, 1.0], f64::INFINITY, true).unwrap();
        assert_eq!((hit.t, hit.feature), (5.0, FeatureId::Face(1)));
    }

    #[test]
    fn inside_origins_solid_and_hollow() {
        let cone = unit_cone();
        let hit = cast(&cone, [0.0, 0.0, 0.5], [3.0, 0.0, 0.0], 10.0, true).unwrap();
        assert_eq!(
            (hit.t, hit.normal, hit.feature),
            (0.0, -Vector3::x(), FeatureId::Unknown)
        );
        // Hollow: leaves the side at x = 0.75 (t = 0.75) or the base (t = 0.5).
        let hit = cast(&cone, [0.0, 0.0, 0.5], [1.0, 0.0, 0.0], 10.0, false).unwrap();
        assert_eq!(hit.t, 0.75);
        assert!(close(hit.normal, Vector3::new(2.0, 0.0, 1.0) / 5f64.sqrt()));
        let hit = cast(&cone, [0.0, 0.0, 0.5], [0.0, 0.0, -1.0], 10.0, false).unwrap();
        assert_eq!(
            (hit.t, hit.normal, hit.feature),
            (0.5, -Vector3::z(), FeatureId::Face(1))
        );
        // On the lateral surface at (0.5, 0, 1): solid hits at 0; hollow
        // moving inward along −x leaves at x = −0.5, t = 1.
        assert_eq!(
            cast(&cone, [0.5, 0.0, 1.0], [-1.0, 0.0, 0.0], 10.0, true)
                .unwrap()
                .t,
            0.0
        );
        assert_eq!(
            cast(&cone, [0.5, 0.0, 1.0], [-1.0, 0.0, 0.0], 10.0, false)
                .unwrap()
                .t,
            1.0
        );
    }

    #[test]
    fn misses_and_max_t() {
        let cone = unit_cone();
        // Above the apex, behind, beside the rim.
        assert!(cast(&cone, [-5.0, 0.0, 3.0], [1.0, 0.0, 0.0], f64::INFINITY, true).is_none());
        assert!(cast(&cone, [5.0, 0.0, 0.5], [1.0, 0.0, 0.0], f64::INFINITY, true).is_none());
        assert!(cast(&cone, [-5.0, 1.01, 0.0], [1.0, 0.0, 0.0], f64::INFINITY, true).is_none());
        // The lower nappe (z < 2 mirrored above the apex) is not part of the cone.
        assert!(cast(&cone, [-5.0, 0.0, 3.5], [1.0, 0.0, 0.0], f64::INFINITY, false).is_none());
        assert!(cast(&cone, [-5.0, 0.0, 0.5], [1.0, 0.0, 0.0], 4.25, true).is_some());
        assert!(cast(&cone, [-5.0, 0.0, 0.5], [1.0, 0.0, 0.0], 4.2, true).is_none());
        assert!(cast(&cone, [-5.0, 0.0, 0.5], [1.0, 0.0, 0.0], 0.0, true).is_none());
    }

    #[test]
    fn bad_input_never_panics_or_returns_nan() {
        let cone = unit_cone();
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        for (o, d) in [
            ([nan, 0.0, 0.5], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.5], [nan, 0.0, 0.0]),
            ([-5.0, 0.0, 0.5], [inf, 0.0, 0.0]),
            ([-inf, 0.0, 0.5], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.5], [0.0, 0.0, 0.0]),
        ] {
            for solid in [true, false] {
                assert!(cast(&cone, o, d, 10.0, solid).is_none(), "{o:?} {d:?}");
            }
        }
        // A zero dir hits only from inside a solid cone.
        let hit = cast(&cone, [0.0, 0.0, 0.5], [0.0, 0.0, 0.0], 1.0, true).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vector3::zeros()));
        assert!(cast(&cone, [0.0, 0.0, 0.5], [0.0, 0.0, 0.0], 1.0, false).is_none());
        assert!(cast(&cone, [0.0, 0.0, 0.5], [1.0, 0.0, 0.0], nan, false).is_none());
    }

    #[test]
    fn zero_radius_is_a_segment() {
        let segment = Cone::from_points(Point3::new(0.0, 0.0, 2.0), Point3::origin(), 0.0);
        // Across the segment at z = 1: t = 5, facing the ray.
        let hit = cast(&segment, [-5.0, 0.0, 1.0], [1.0, 0.0, 0.0], 10.0, true).unwrap();
        assert_eq!(
            (hit.t, hit.normal, hit.feature),
            (5.0, -Vector3::x(), FeatureId::Face(0))
        );
        assert!(cast(&segment, [-5.0, 1e-9, 1.0], [1.0, 0.0, 0.0], 10.0, true).is_none());
        // Along the axis from below: the (zero) base disk at t = 5, normal −ẑ.
        let hit = cast(&segment, [0.0, 0.0, -5.0], [0.0, 0.0, 1.0], 10.0, true).unwrap();
        assert_eq!((hit.t, hit.normal), (5.0, -Vector3::z()));
        // Inside (on the segment): solid hits at 0.
        assert_eq!(
            cast(&segment, [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], 10.0, true)
                .unwrap()
                .t,
            0.0
        );
    }

    // ---- f32 against f64 -------------------------------------------------

    /// The cone used by the f32 cases: tilted, f32-exact parameters.
    fn tilted() -> (Point3<f64>, Point3<f64>, f64) {
        let r = |x: f64| x as f32 as f64;
        (
            Point3::new(r(0.3), r(-0.7), r(1.9)),
            Point3::new(r(-0.4), r(0.6), r(-1.1)),
            r(0.8),
        )
    }

    /// `t` errors (f32 vs f64) in f32 ulps of `max(t, |origin − apex| / |dir|)`
    /// over `rays`: `(p99, max, hits)`. Hit/miss must agree unless the f64
    /// hit is within `1e-4 · size` of the rim or apex (grazing).
    fn ulp_errors(
        (apex, base, radius): (Point3<f64>, Point3<f64>, f64),
        offset: f64,
        rays: &[(Point3<f64>, Vector3<f64>)],
        solid: bool,
    ) -> (f64, f64, usize) {
        let cone64 = Cone::from_points(apex, base, radius);
        let cone32 = Cone::from_points(apex.cast::<f32>(), base.cast::<f32>(), radius as f32);
        let pose64 = Isometry3::translation(offset, -offset, offset);
        let pose32 = Isometry3::translation(offset as f32, -offset as f32, offset as f32);
        let size = (base - apex).norm().max(radius);
        let mut errors = Vec::new();
        for (origin, dir) in rays {
            let world = pose64 * origin.map(|c| c as f32 as f64);
            let world = world.map(|c| c as f32 as f64);
            let dir = dir.map(|c| c as f32 as f64);
            let h64 = cone64.ray_cast(&pose64, &Ray::new(world, dir), f64::INFINITY, solid);
            let h32 = cone32.ray_cast(
                &pose32,
                &Ray::new(world.cast::<f32>(), dir.cast::<f32>()),
                f32::INFINITY,
                solid,
            );
            match (h32, h64) {
                (Some(a), Some(b)) => {
                    let local = pose64.inverse_transform_point(&world);
                    let floor = (b.t).max((local - apex).norm() / dir.norm());
                    errors.push(ulps_at(a.t, b.t, floor));
                }
                (None, None) => {}
                (a, b) => {
                    let t = a.map(|h| h.t as f64).or(b.map(|h| h.t)).unwrap();
                    let p = pose64.inverse_transform_point(&(world + dir * t));
                    let axis = (base - apex).normalize();
                    let axial = (p - apex).dot(&axis);
                    let radial = ((p - apex) - axis * axial).norm();
                    let h = (base - apex).norm();
                    let near_rim = ((axial - h).powi(2) + (radial - radius).powi(2)).sqrt() < 1e-4 * size;
                    let near_apex = (p - apex).norm() < 1e-4 * size;
                    assert!(
                        near_rim || near_apex,
                        "f32 {a:?} vs f64 {b:?} for {origin:?} {dir:?}"
                    );
                }
            }
        }
        percentile_and_max(errors)
    }

    pub(crate) fn ulps_at(value: f32, reference: f64, floor: f64) -> f64 {
        let spacing = reference.abs().max(floor) as f32;
        let ulp = (f32::from_bits(spacing.to_bits() + 1) - spacing) as f64;
        (value as f64 - reference).abs() / ulp
    }

    /// `(p99, max, count)` of a list of errors.
    pub(crate) fn percentile_and_max(mut errors: Vec<f64>) -> (f64, f64, usize) {
        errors.sort_by(f64::total_cmp);
        let count = errors.len();
        let p99 = errors.get(count * 99 / 100).copied().unwrap_or(0.0);
        (p99, errors.last().copied().unwrap_or(0.0), count)
    }

    fn axis_frame(apex: Point3<f64>, base: Point3<f64>) -> (Vector3<f64>, Vector3<f64>, Vector3<f64>) {
        let u = (base - apex).normalize();
        let (b1, b2) = crate::orthonormal_basis(&u);
        (u, b1, b2)
    }

    /// Prints and checks one case: p99 within 4 ulp (the precision target),
    /// the maximum within `max_bound`.
    fn report(case: &str, errors: (f64, f64, usize), min_hits: usize, max_bound: f64) {
        report_p99(case, errors, min_hits, 4.0, max_bound);
    }

    fn report_p99(
        case: &str,
        (p99, max, hits): (f64, f64, usize),
        min_hits: usize,
        p99_bound: f64,
        max_bound: f64,
    ) {
        println!("cone f32 {case}: p99 {p99:.2} ulp, max {max:.2} ulp over {hits} hits");
        assert!(hits >= min_hits, "{case}: only {hits} hits");
        assert!(
            p99 <= p99_bound && max <= max_bound,
            "{case}: p99 {p99} max {max} ulp"
        );
    }

    // The maxima above 4 ulp come from rays meeting a face at a few degrees:
    // there the hit moves by (rounding of û, r/h, origin − apex) / sin(angle),
    // which no f32 evaluation avoids without extra precision. Measured maxima
    // (p99 all ≤ 3.6 ulp): inside hollow 13, on the surface hollow 32, 1e6
    // offset 26 ulp; the bounds below leave 1.5× room.

    #[test]
    fn f32_axis_parallel_rays_within_4_ulp() {
        let (apex, base, radius) = tilted();
        let (u, b1, b2) = axis_frame(apex, base);
        let axis = base - apex;
        let mut rays = Vec::new();
        for k in 0..=400 {
            let s = (k as f64 / 400.0 - 0.5) * 2.4 * radius;
            let across = b1 * s + b2 * (0.37 * s);
            // Down the axis onto the lateral surface, and up onto the base.
            rays.push((apex - axis * 1.5 + across, axis * 0.5));
            rays.push((base + axis * 0.75 + across, -u));
        }
        report(
            "axis-parallel",
            ulp_errors((apex, base, radius), 0.0, &rays, true),
            500,
            4.0,
        );
        // Exactly on an axis-aligned cone's axis: the apex, and the base.
        let aligned = (Point3::new(0.0, 0.0, 2.0), Point3::new(0.0, 0.0, -1.0), 1.5);
        let on_axis = [
            (Point3::new(0.0, 0.0, 7.0), Vector3::new(0.0, 0.0, -0.3)),
            (Point3::new(0.0, 0.0, -7.0), Vector3::new(0.0, 0.0, 0.3)),
        ];
        report("on the axis", ulp_errors(aligned, 0.0, &on_axis, true), 2, 1.0);
    }

    #[test]
    fn f32_origins_on_the_surface_within_4_ulp() {
        // Apex (0, 0, 2), base at z = 0, radius 1: ρ = (2 − z)/2, and these
        // points are on it exactly in both precisions.
        let cone = (Point3::new(0.0, 0.0, 2.0), Point3::origin(), 1.0);
        let on_surface = [
            Point3::new(0.5, 0.0, 1.0),
            Point3::new(0.375, 0.5, 0.75),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, -0.375, 1.25),
            Point3::new(0.25, -0.5, 0.0),
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(0.0, 0.0, 2.0),
        ];
        let mut rng = TestRng::new(11);
        let mut rays = Vec::new();
        for p in on_surface {
            for _ in 0..300 {
                rays.push((p, rng.vector(1.0)));
            }
        }
        report(
            "on the surface, solid",
            ulp_errors(cone, 0.0, &rays, true),
            700,
            0.0,
        );
        report(
            "on the surface, hollow",
            ulp_errors(cone, 0.0, &rays, false),
            700,
            48.0,
        );
    }

    #[test]
    fn f32_inside_origins_within_4_ulp() {
        let (apex, base, radius) = tilted();
        let (_, b1, b2) = axis_frame(apex, base);
        let mut rng = TestRng::new(12);
        let mut rays = Vec::new();
        for _ in 0..3000 {
            let s = rng.uniform(0.01, 1.0);
            let angle = rng.uniform(0.0, std::f64::consts::TAU);
            let rho = rng.uniform(0.0, 0.999) * s * radius;
            let p = apex + (base - apex) * s + (b1 * angle.cos() + b2 * angle.sin()) * rho;
            rays.push((p, rng.vector(1.0)));
        }
        report(
            "inside, hollow",
            ulp_errors((apex, base, radius), 0.0, &rays, false),
            2900,
            24.0,
        );
        report(
            "inside, solid",
            ulp_errors((apex, base, radius), 0.0, &rays, true),
            2900,
            0.0,
        );
    }

    #[test]
    fn f32_far_offset_1e6_within_4_ulp() {
        let (apex, base, radius) = tilted();
        let mut rng = TestRng::new(13);
        let rays: Vec<_> = (0..4000)
            .map(|_| {
                let origin = Point3::from(rng.vector(6.0));
                let aim = Point3::from(rng.vector(1.2));
                (origin, aim - origin)
            })
            .collect();
        let shift = Vector3::new(1e6, -1e6, 1e6);
        let far = (
            (apex + shift).map(|c| c as f32 as f64),
            (base + shift).map(|c| c as f32 as f64),
            radius,
        );
        let far_rays: Vec<_> = rays.iter().map(|(o, d)| (o + shift, *d)).collect();
        for solid in [true, false] {
            // The shape's pose far away, and the shape's own points far away.
            let pose = ulp_errors((apex, base, radius), 1e6, &rays, solid);
            report(&format!("pose at 1e6, solid {solid}"), pose, 1000, 48.0);
            let points = ulp_errors(far, 0.0, &far_rays, solid);
            report(&format!("points at 1e6, solid {solid}"), points, 1000, 48.0);
        }
    }

    /// Entries and exits of random cones (thin to flat, anywhere within 100
    /// of the origin) from outside origins, at every angle: within 4 f32
    /// ulp of `max(t, |origin − apex| / |dir|)`, or `2/|cos|` where the ray
    /// grazes. The quadric's root alone missed this on about 1 ray in
    /// 20 000 (up to 21 ulp at |cos| 0.88, thin cones most), found by the
    /// property suite; the Newton step on the lateral distance fixed it.
    /// The first case is that suite's (apex, base, radius, origin, dir).
    #[test]
    fn f32_entries_at_any_angle_within_4_ulp() {
        let found = (
            Point3::new(-11.246960639953613, -66.736572265625, -55.479087829589844),
            Point3::new(-14.255163192749023, -63.26510238647461, -56.35844039916992),
            6.529770851135254,
            Point3::new(-15.728058815002441, -78.61705780029297, -58.586360931396484),
            Vector3::new(2.008371591567993, 8.40005111694336, -0.5667930841445923),
        );
        let mut cases = vec![found];
        let mut rng = TestRng::new(15);
        for _ in 0..100_000 {
            let apex = Point3::from(rng.vector(100.0));
            let height = rng.uniform(0.05, 10.0);
            let axis = rng.vector(1.0);
            if axis.norm() < 0.05 {
                continue;
            }
            let base = (apex + axis.normalize() * height).map(|c| c as f32 as f64);
            let radius = rng.uniform(0.01, 10.0);
            let size = (base - apex).norm().max(2.0 * radius);
            let centre = nalgebra::center(&apex, &base);
            let origin = (centre + rng.vector(3.0 * size)).map(|c| c as f32 as f64);
            let target = centre + rng.vector(0.8 * size);
            let dir = ((target - origin).normalize() * rng.uniform(0.01, 10.0)).map(|c| c as f32 as f64);
            cases.push((apex, base, radius, origin, dir));
        }
        let mut worst = 0.0f64;
        for (apex, base, radius, origin, dir) in cases {
            let cone64 = Cone::from_points(apex, base, radius);
            let cone32 = Cone::from_points(apex.cast::<f32>(), base.cast::<f32>(), radius as f32);
            let solid = true;
            for solid in [solid, !solid] {
                let h64 = cone64.ray_cast_local(&Ray::new(origin, dir), f64::INFINITY, solid);
                let h32 = cone32.ray_cast_local(
                    &Ray::new(origin.cast::<f32>(), dir.cast::<f32>()),
                    f32::INFINITY,
                    solid,
                );
                let (Some(a), Some(b)) = (h32, h64) else { continue };
                let floor = b.t.max((origin - apex).norm() / dir.norm());
                let cos = b.normal.dot(&dir.normalize()).abs();
                let error = ulps_at(a.t, b.t, floor) / (2.0 / cos).max(4.0);
                worst = worst.max(error);
                assert!(
                    error <= 1.0,
                    "{apex:?} {base:?} {radius} {origin:?} {dir:?} solid {solid}: t32 {} t64 {} (cos {cos})",
                    a.t,
                    b.t
                );
            }
        }
        println!("cone f32 entries at any angle: worst {worst:.2} of the bound");
    }

    #[test]
    fn f32_rim_grazing_within_4_ulp() {
        let (apex, base, radius) = tilted();
        let (u, b1, b2) = axis_frame(apex, base);
        let mut rng = TestRng::new(14);
        let mut rays = Vec::new();
        for _ in 0..4000 {
            let angle = rng.uniform(0.0, std::f64::consts::TAU);
            let out = b1 * angle.cos() + b2 * angle.sin();
            let tangent = u.cross(&out);
            let rim = base + out * radius;
            // Lines touching the cone only at a rim point (perpendicular to
            // the outward radial, at any inclination across the base plane),
            // nudged in or out by up to 1e-3.
            let inclination = rng.uniform(0.2, 1.3) * if rng.uniform(-1.0, 1.0) < 0.0 { -1.0 } else { 1.0 };
            let dir = tangent * inclination.cos() + u * inclination.sin();
            let nudge = out * rng.uniform(-1e-3, 1e-3) + u * rng.uniform(-1e-3, 1e-3);
            rays.push((rim + nudge - dir * 3.0, dir));
        }
        // These lines meet the lateral surface near the rim at 3°–13° (the
        // surface normal there has only an r/√(h² + r²) component along û),
        // so the lateral hits carry the grazing amplification at p99 too:
        // measured p99 10 ulp, max 20 ulp. Base hits alone stay within 4.
        report_p99(
            "rim grazing",
            ulp_errors((apex, base, radius), 0.0, &rays, true),
            1000,
            16.0,
            32.0,
        );
    }
}
