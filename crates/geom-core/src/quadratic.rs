//! The stable ray–sphere quadratic, the root of every quadric ray cast.
//!
//! ```
//! use geom_core::Ray;
//! use geom_core::quadratic::ray_cast_sphere;
//! use nalgebra::{Point3, Vector3};
//!
//! // From 5 below the centre of a unit sphere, straight up: enters at z = -1, t = 4.
//! let ray = Ray::new(Point3::new(0.0, 0.0, -5.0), Vector3::z());
//! let hit = ray_cast_sphere(&ray, 1.0, f64::INFINITY, true).into_hit().unwrap();
//! assert!((hit.t - 4.0).abs() < 1e-12 && (hit.normal + Vector3::z()).norm() < 1e-12);
//! assert!(ray_cast_sphere(&ray, 1.0, 3.5, true).into_hit().is_none()); // stops short at t = 3.5
//! // From the centre: a hollow sphere is left at t = 1, a solid one is hit at once.
//! let inside = Ray::new(Point3::origin(), Vector3::z());
//! let exit = ray_cast_sphere(&inside, 1.0, f64::INFINITY, false).into_hit().unwrap();
//! assert!((exit.t - 1.0).abs() < 1e-12 && (exit.normal - Vector3::z()).norm() < 1e-12);
//! assert_eq!(ray_cast_sphere(&inside, 1.0, f64::INFINITY, true).into_hit().unwrap().t, 0.0);
//! ```

use crate::LaneOrd;
use nalgebra::{Point3, SimdBool, SimdValue, Vector3};

use crate::exact::{far_start, restarted_offset};

use crate::ray::{LaneHit, Ray};
use crate::scalar::Lane;

/// Ray (any `dir` length, `t` in units of `dir`) against a sphere of `radius`
/// centred at the origin, on lanes.
///
/// Stable form after Haines et al., *Ray Tracing Gems* ch. 7: the discriminant
/// is `r² − |l|²` with `l` the closest approach to the centre (no cancellation
/// against `|f|²`), the near root is `c / q` and the far root `q / a` with
/// `q = b + sign(b)·√(a·disc)`, so neither subtracts nearly equal numbers.
/// An origin farther than a few radii first moves along the ray to just
/// outside the sphere ([`far_start`], [`restarted_offset`]), so the
/// quadratic's rounding is charged to a radius-sized distance rather than
/// the whole ray. The rare cases (a zero radius, a hit point whose squared
/// length leaves the normal range, a solid origin inside) are computed only
/// when a lane needs them.
#[inline]
pub fn ray_cast_sphere<T: Lane>(ray: &Ray<T>, radius: T, max_t: T, solid: bool) -> LaneHit<T> {
    // Restart next to the sphere when the origin is far (`t_start` is added
    // back at the end): the quadratic is then solved from a point a radius
    // or so away, its rounding charged to a short distance, not the whole ray.
    let restart = far_start(&ray.origin.coords, &ray.dir, radius);
    let t_start = restart.unwrap_or_else(T::zero);
    let f = restarted_offset(&ray.origin, &Point3::origin(), &ray.dir, restart);
    ray_cast_sphere_from(&f, &ray.dir, t_start, radius, max_t, solid)
}

/// [`ray_cast_sphere`] without the restart, for a caller whose ray already
/// starts within a few radii of the sphere (a capsule's cap after the
/// capsule's own restart): the same answer where [`far_start`] would not
/// restart, one compensated restart fewer where the caller has made it.
#[inline]
pub fn ray_cast_sphere_near<T: Lane>(ray: &Ray<T>, radius: T, max_t: T, solid: bool) -> LaneHit<T> {
    ray_cast_sphere_from(&ray.origin.coords, &ray.dir, T::zero(), radius, max_t, solid)
}

/// The sphere's quadratic from the offset `f` of the (restarted) origin to
/// the centre; `t_start` is added to the answer.
#[inline]
fn ray_cast_sphere_from<T: Lane>(
    f: &Vector3<T>,
    dir: &Vector3<T>,
    t_start: T,
    radius: T,
    max_t: T,
    solid: bool,
) -> LaneHit<T> {
    let zero = T::zero();
    let (f, dir) = (*f, *dir);
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
    let has_length = hit_length.simd_gt(zero);
    let normal = if has_length.all() {
        normal
    } else {
        normal.select(has_length, -dir / a.simd_sqrt())
    };
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
