//! The stable ray–sphere quadratic, the root of every quadric ray cast.

use crate::LaneOrd;
use nalgebra::{Point3, SimdValue};

use crate::exact::{offset_along, start_near_sphere};

use crate::ray::{LaneHit, Ray};
use crate::scalar::Lane;

/// Ray (any `dir` length, `t` in units of `dir`) against a sphere of `radius`
/// centred at the origin, on lanes.
///
/// Stable form after Haines et al., *Ray Tracing Gems* ch. 7: the discriminant
/// is `r² − |l|²` with `l` the closest approach to the centre (no cancellation
/// against `|f|²`), the near root is `c / q` and the far root `q / a` with
/// `q = b + sign(b)·√(a·disc)`, so neither subtracts nearly equal numbers.
/// A far origin first moves along the ray to just outside the sphere
/// ([`start_near_sphere`], [`offset_along`]), so the quadratic's rounding
/// is charged to a radius-sized distance rather than the whole ray.
#[inline]
pub fn ray_cast_sphere<T: Lane>(ray: &Ray<T>, radius: T, max_t: T, solid: bool) -> LaneHit<T> {
    let zero = T::zero();
    let dir = ray.dir;
    // Restart next to the sphere when the origin is far (`t_start` is added
    // back at the end): the quadratic is then solved from a point a radius
    // or so away, its rounding charged to a short distance, not the whole ray.
    let t_start = start_near_sphere(&ray.origin.coords, &dir, radius);
    let f = offset_along(&ray.origin, &Point3::origin(), &dir, t_start);
    let a = dir.norm_squared();
    let b = -f.dot(&dir);
    let closest_approach = f + dir * (b / a);
    let r2 = radius * radius;
    let disc = r2 - closest_approach.norm_squared();
    let c = f.norm_squared() - r2; // > 0 ⇔ origin outside
    let root = (a * disc.lane_max(zero)).simd_sqrt();
    let q = b + root.select(b.simd_ge(zero), -root);
    // `c / q` carries the absolute rounding of `c` (about ε r²) divided by
    // `q`, which is tiny for a ray grazing the sphere near its origin: there
    // it can land far past the other root (a tangent ray from a surface
    // point gave t = 0.67 for 1e-16). The roots satisfy near ≤ far, and for
    // b < 0 the positive root is at most √disc/√a = root/a, so each is
    // capped by the bound it must respect; well-conditioned answers are
    // unchanged.
    let t_entry = (c / q).lane_min(q / a);
    let t_exit = (q / a).select(b.simd_ge(zero), (c / q).lane_min(root / a));
    let outside = c.simd_gt(zero);
    let crosses = disc.simd_ge(zero);
    // Outside: the entry, moving towards the centre. Inside (hollow): the exit.
    let t = t_entry.select(outside, t_exit);
    let t_total = t_start + t;
    let in_range = t.simd_ge(zero) & t_total.simd_le(max_t);
    let approaching = b.simd_gt(zero) | !outside;
    let mask = crosses & approaching & in_range & a.simd_gt(zero);
    let hit_point = f + dir * t;
    // Scaled first where `|hit_point|²` leaves the normal range (radii near
    // `1 / max_size` or `max_size`).
    let (hit_point, hit_length) = crate::ray::with_length(&hit_point);
    let normal = hit_point / hit_length;
    // A zero radius has no surface direction: face the ray.
    let normal = normal.select(hit_length.simd_gt(zero), -dir / a.simd_sqrt());
    let hit = LaneHit {
        mask,
        t: t_total,
        normal,
        face: zero,
    };
    if solid {
        hit.with_solid_inside(c.simd_le(zero), &dir, max_t)
    } else {
        hit
    }
}
