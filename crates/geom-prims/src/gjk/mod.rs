//! GJK and EPA for any pair of convex shapes with support functions: the
//! dispatch table's convex fallback, and the building block of routines
//! such as "convex shape against a terrain triangle".
//!
//! - [`gjk_closest_points`]: distance and closest points (GJK after
//!   Gilbert, Johnson and Keerthi 1988 / van den Bergen 2003, with the
//!   signed-volume simplex solver of Montanari et al. 2017).
//! - [`penetration`]: signed depth, normal and witness points, separated or
//!   overlapping (GJK, then EPA after van den Bergen 2001 for overlaps).
//! - [`convex_contact`], [`convex_closest_points`]: the same with the
//!   signatures of [`DispatchTable::set_convex_fallback`];
//!   [`install_convex_fallback`] installs them.
//!
//! Conventions: everything is computed in `a`'s local frame (`b`'s pose
//! relative to `a`'s, translations subtracted first), so a pair far from
//! the world origin keeps its precision; answers come back in world space.
//! Spheres and capsules enter as their centre and axis plus a radius, which
//! is exact and lets sphere and capsule pairs converge in a few iterations
//! (see `support.rs`). Normals point from `a` to `b`; depth is positive for
//! overlap.
//!
//! Failure modes are values, never panics: a NaN or infinite pose is
//! [`GeomError::NonFinite`] (`"pose_a"`/`"pose_b"`), a support point that
//! comes back NaN or infinite is `NonFinite { input: "support point" }`,
//! a shape without a support function (a half-space) or a non-convex one
//! is [`GeomError::Unsupported`]. An iteration cap reached gives the best
//! answer so far with `converged = false` (and
//! [`ContactManifolds::mark_approximate`] in the fallback).
//!
//! ```
//! use geom_prims::gjk::{GjkStatus, gjk_closest_points, penetration};
//! use geom_prims::{Cone, Cylinder};
//! use nalgebra::{Isometry3, Point3};
//!
//! // A cone and a cylinder (no analytic routine for the pair) 0.5 apart.
//! let cone = Cone::from_points(Point3::new(0.0, 1.0, 0.0), Point3::new(0.0, -1.0, 0.0), 1.0);
//! let cylinder = Cylinder::from_points(Point3::new(0.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0), 0.5);
//! let apart = Isometry3::translation(2.0, -1.0, 0.0);
//! let result = gjk_closest_points(&cone, &Isometry3::identity(), &cylinder, &apart, f64::INFINITY).unwrap();
//! assert_eq!(result.status, GjkStatus::Separated);
//! assert!((result.distance - 0.5).abs() < 1e-9); // base rim (1, -1, 0) to the cylinder's side at x = 1.5
//! // Overlapping by 0.25 along x: EPA's depth and normal.
//! let overlap = Isometry3::translation(1.25, -1.0, 0.0);
//! let deep = penetration(&cone, &Isometry3::identity(), &cylinder, &overlap, 0.0).unwrap().unwrap();
//! assert!((deep.depth - 0.25).abs() < 1e-9 && (deep.normal.x - 1.0).abs() < 1e-9);
//! ```

mod closest;
mod epa;
mod ray;
mod refine;
mod simplex;
mod support;

pub use closest::{GJK_MAX_ITERATIONS, TOUCHING_EPSILONS, gjk_relative_tolerance};
pub use epa::{EPA_MAX_FACES, EPA_MAX_ITERATIONS, epa_relative_tolerance};
pub(crate) use ray::cast_back_from_beyond;
pub use ray::{SUPPORT_RAY_MAX_ITERATIONS, SupportRayHit, ray_cast_support};

use geom_core::{
    ClosestPoints, ContactManifolds, ContactPoint, DispatchTable, FeatureId, GeomError, Real, Shape,
};
use nalgebra::{Isometry3, Point3, Vector3};

use closest::{CoreOutcome, gjk_cores};
use epa::epa_cores;
use refine::{dilated_features, refine_normal, support_pair};
use support::MinkowskiPair;

use crate::contact::manifold::{FeaturePairs, clip_features};
use crate::contact::try_unit;

/// How a [`gjk_closest_points`] query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GjkStatus {
    /// The shapes are apart by `distance` (`0 < distance <= max_distance`).
    Separated,
    /// The shapes overlap or touch (`distance` is zero).
    Intersecting,
    /// The shapes are farther apart than `max_distance`.
    BeyondLimit,
}

/// The answer of [`gjk_closest_points`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkResult<N: Real> {
    /// How the query ended.
    pub status: GjkStatus,
    /// The distance between the shapes when `Separated`; zero when
    /// `Intersecting`; a lower bound above `max_distance` when
    /// `BeyondLimit`.
    pub distance: N,
    /// When `Separated`, the point of `a` closest to `b` (world space).
    /// Otherwise finite but unspecified (the last witness points).
    pub point_a: Point3<N>,
    /// When `Separated`, the point of `b` closest to `a` (world space).
    pub point_b: Point3<N>,
    /// `false` when GJK reached [`GJK_MAX_ITERATIONS`]: the answer is the
    /// best found, its distance an upper bound.
    pub converged: bool,
    /// Support points queried.
    pub iterations: u32,
}

/// The answer of [`penetration`]: one contact along a normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration<N: Real> {
    /// Overlap along `normal`: positive when the shapes overlap, negative
    /// (minus the distance) when they are apart, zero when they touch.
    pub depth: N,
    /// Unit normal from `a` to `b` (world space): moving `b` by
    /// `depth · normal` makes the shapes touch.
    pub normal: Vector3<N>,
    /// The point of `a` deepest along `normal` (world space).
    pub point_a: Point3<N>,
    /// The point of `b` deepest against `normal` (world space);
    /// `(point_a − point_b)·normal = depth`.
    pub point_b: Point3<N>,
    /// `false` when GJK or EPA stopped at a cap (or on a degenerate
    /// polytope) before converging: the best answer found.
    pub converged: bool,
    /// Support points queried by GJK and EPA together.
    pub iterations: u32,
}

fn check_limit<N: Real>(value: N, parameter: &'static str) -> Result<(), GeomError> {
    // `!(value >= 0)` also rejects NaN; +inf means no limit.
    if value >= N::zero() {
        Ok(())
    } else {
        Err(GeomError::invalid(
            "gjk",
            parameter,
            value,
            "must be >= 0 (inf allowed)",
        ))
    }
}

/// The unit direction from GJK's witness point `point_a` to `point_b`.
/// Dividing by GJK's `distance` (the length of the closest point of its
/// simplex) is not enough: the witness points are combinations of support
/// points, so their difference carries rounding of a few `ε` times the
/// shapes' size, and for cores a hair apart its length differs from
/// `distance` by far more than rounding (`1e-11` relative was seen).
/// When the two witness points round to one point (cores apart by a few
/// ulps of their coordinates), GJK's own direction `−v` is used.
fn unit_normal<N: Real>(
    pair: &MinkowskiPair<N>,
    point_a: &Point3<N>,
    point_b: &Point3<N>,
    direction: &Vector3<N>,
    distance: N,
) -> Result<Vector3<N>, GeomError> {
    // `try_unit` scales first: a plain `between / |between|` is not unit
    // when the squares underflow (cores 1e-22 apart in `f32`) or overflow.
    // GJK's `v` is the simplex's point nearest the origin, exact to
    // rounding; the witness points are rebuilt from barycentric weights,
    // which a nearly flat simplex (a thin disc on a triangle) leaves
    // wrong in their last `distance`-sized digits. Of the two directions,
    // the one that separates the cores more.
    let between = try_unit(&(point_b - point_a));
    let along_v = try_unit(direction);
    Ok(match (between, along_v) {
        (Some(p), Some(v)) => {
            let separation = |n: &Vector3<N>| pair.support(n).map(|s| -n.dot(&s.w));
            if separation(&v)? > separation(&p)? { v } else { p }
        }
        (p, v) => p.or(v).unwrap_or((point_b - point_a) / distance),
    })
}

/// The distance and closest points of two convex shapes, by GJK on their
/// support functions (spheres and capsules by their centre and axis, the
/// radius subtracted after).
///
/// `max_distance` (`>= 0`, `+inf` for no limit) lets GJK stop as soon as
/// the shapes are proven farther apart. Touching shapes are `Intersecting`.
/// Accuracy: polytope pairs (boxes, triangles, segments, spheres and
/// capsules) terminate exactly, to rounding; smooth ones (ellipsoids,
/// cylinders, cones) to [`gjk_relative_tolerance`] or, when rounding
/// stalls the descent first, to about `√ε` times the distance over the
/// shapes' size (the tests see at most 2·10⁻⁸ relative in `f64`).
///
/// Errors: see the [module documentation](self); a negative or NaN
/// `max_distance` is [`GeomError::InvalidParameter`].
pub fn gjk_closest_points<N: Real>(
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> Result<GjkResult<N>, GeomError> {
    check_limit(max_distance, "max_distance")?;
    let pair = MinkowskiPair::new(a, pose_a, b, pose_b)?;
    let radius = pair.radius_a() + pair.radius_b();
    let gjk = gjk_cores(&pair, max_distance + radius)?;
    let world = pair.a_to_world();
    let result = |status, distance, point_a: Point3<N>, point_b: Point3<N>| GjkResult {
        status,
        distance,
        point_a: world.point_to_world(&point_a),
        point_b: world.point_to_world(&point_b),
        converged: gjk.converged,
        iterations: gjk.iterations,
    };
    Ok(match gjk.outcome {
        CoreOutcome::Separated {
            distance,
            point_a,
            point_b,
            direction,
        } => {
            let start = unit_normal(&pair, &point_a, &point_b, &direction, distance)?;
            let found = settle(&pair, &start, core_scale(&pair, &point_a, &point_b))?;
            let gap = -found.depth;
            let (surface_a, surface_b) = found.points;
            if gap <= N::zero() {
                result(GjkStatus::Intersecting, N::zero(), surface_a, surface_b)
            } else if gap > max_distance {
                result(GjkStatus::BeyondLimit, gap, surface_a, surface_b)
            } else {
                result(GjkStatus::Separated, gap, surface_a, surface_b)
            }
        }
        CoreOutcome::Intersecting {
            point_a,
            point_b,
            stalled,
            ..
        } => match settled_apart(&pair, stalled, &point_a, &point_b)? {
            Some(found) if -found.depth > max_distance => result(
                GjkStatus::BeyondLimit,
                -found.depth,
                found.points.0,
                found.points.1,
            ),
            Some(found) => result(GjkStatus::Separated, -found.depth, found.points.0, found.points.1),
            None => result(GjkStatus::Intersecting, N::zero(), point_a, point_b),
        },
        CoreOutcome::Beyond { lower_bound } => result(
            GjkStatus::BeyondLimit,
            lower_bound - radius,
            Point3::origin(),
            Point3::from(pair.b_origin()),
        ),
    })
}

/// The signed penetration of two convex shapes: depth (positive overlap,
/// negative separation), normal from `a` to `b` and the witness points, or
/// `None` when they are farther apart than `margin` (`>= 0`, `+inf`
/// allowed).
///
/// Separated shapes are answered by GJK (the depth is minus the distance),
/// overlapping ones by EPA on the cores plus the radii. Shapes within
/// [`TOUCHING_EPSILONS`] `ε·scale` of touching go through EPA too, so that
/// their normal comes from a face rather than from a rounding-sized
/// vector: their depth is about zero, and may be a rounding-sized negative.
/// When the Minkowski difference is flat (two zero-volume shapes touching,
/// such as coplanar triangles) the depth is zero (plus the radii) along the
/// flat set's normal nearest the direction from `a`'s origin to `b`'s.
///
/// Accuracy of the depth for overlaps: exact to rounding for polytope
/// cores; for smooth shapes within about [`epa_relative_tolerance`] of it,
/// relatively, when `converged`.
///
/// Errors: see the [module documentation](self); a negative or NaN margin
/// is [`GeomError::InvalidParameter`]. Allocates two small `Vec`s when the
/// cores overlap (EPA's polytope).
pub fn penetration<N: Real>(
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    margin: N,
) -> Result<Option<Penetration<N>>, GeomError> {
    check_limit(margin, "margin")?;
    let pair = MinkowskiPair::new(a, pose_a, b, pose_b)?;
    let Some(found) = refined_penetration(&pair, margin)? else {
        return Ok(None);
    };
    let (point_a, point_b) = found.points;
    let world = pair.a_to_world();
    Ok(Some(Penetration {
        depth: found.depth,
        normal: world.vector_to_world(&found.normal),
        point_a: world.point_to_world(&point_a),
        point_b: world.point_to_world(&point_b),
        converged: found.converged,
        iterations: found.iterations,
    }))
}

/// The penetration found in `a`'s frame: unit normal from `a` to `b`, the
/// depth (of the shapes, radii included) and GJK/EPA's bookkeeping.
struct CorePenetrationFound<N: Real> {
    normal: Vector3<N>,
    depth: N,
    converged: bool,
    iterations: u32,
    points: (Point3<N>, Point3<N>),
}

/// The size of the numbers the refinement's tests see: the cores' points
/// and `b`'s origin in `a`'s frame (a small shape against a large one far
/// from its centre: the large one's support points carry the rounding of
/// its own coordinates).
fn core_scale<N: Real>(pair: &MinkowskiPair<N>, point_a: &Point3<N>, point_b: &Point3<N>) -> N {
    point_a
        .coords
        .amax()
        .max(point_b.coords.amax())
        .max((point_a - point_b).amax())
        .max(pair.b_origin().amax())
}

/// For a GJK descent taken as touching without reaching the origin
/// (`stalled`, its direction `−v`): the refinement from that direction,
/// when it shows the cores apart (exact witnesses or a separating plane
/// that GJK's tolerance could not).
fn settled_apart<N: Real>(
    pair: &MinkowskiPair<N>,
    stalled: Option<Vector3<N>>,
    point_a: &Point3<N>,
    point_b: &Point3<N>,
) -> Result<Option<Settled<N>>, GeomError> {
    let Some(start) = stalled.and_then(|direction| try_unit(&direction)) else {
        return Ok(None);
    };
    let found = settle(pair, &start, core_scale(pair, point_a, point_b))?;
    Ok((found.depth < N::zero()).then_some(found))
}

/// GJK, then EPA when the cores overlap, then the refinement of the normal
/// from the touching features ([`refine`]); `None` when the shapes are
/// farther apart than `margin`. The depth is the support overlap along the
/// final normal, so depth and normal always agree: moving `b` by
/// `depth · normal` makes the shapes touch.
fn refined_penetration<N: Real>(
    pair: &MinkowskiPair<N>,
    margin: N,
) -> Result<Option<CorePenetrationFound<N>>, GeomError> {
    let (radius_a, radius_b) = (pair.radius_a(), pair.radius_b());
    let gjk = gjk_cores(pair, margin + radius_a + radius_b)?;
    let (normal, point_a, point_b, converged, iterations) = match gjk.outcome {
        CoreOutcome::Beyond { .. } => return Ok(None),
        CoreOutcome::Separated {
            distance,
            point_a,
            point_b,
            direction,
        } => (
            unit_normal(pair, &point_a, &point_b, &direction, distance)?,
            point_a,
            point_b,
            gjk.converged,
            gjk.iterations,
        ),
        CoreOutcome::Intersecting {
            simplex,
            len,
            point_a,
            point_b,
            stalled,
        } => {
            // Apart if the refinement from GJK's direction shows it, else
            // EPA.
            if let Some(settled) = settled_apart(pair, stalled, &point_a, &point_b)? {
                if settled.depth < -margin {
                    return Ok(None);
                }
                return Ok(Some(CorePenetrationFound {
                    normal: settled.normal,
                    depth: settled.depth,
                    converged: settled.certified,
                    iterations: gjk.iterations,
                    points: settled.points,
                }));
            }
            let epa = epa_cores(pair, &simplex[..len], point_a, point_b)?;
            (
                epa.normal,
                epa.point_a,
                epa.point_b,
                epa.converged,
                gjk.iterations + epa.iterations,
            )
        }
    };
    let settled = settle(pair, &normal, core_scale(pair, &point_a, &point_b))?;
    if settled.depth < -margin {
        return Ok(None);
    }
    Ok(Some(CorePenetrationFound {
        normal: settled.normal,
        depth: settled.depth,
        converged: converged || settled.certified,
        iterations,
        points: settled.points,
    }))
}

/// The refined contact (`a`'s frame): normal, depth (radii included) and a
/// witness pair on the shapes, `point_a − point_b = depth · normal`.
struct Settled<N: Real> {
    normal: Vector3<N>,
    depth: N,
    points: (Point3<N>, Point3<N>),
    certified: bool,
}

/// Refines `start` ([`refine`]) and settles the answer. Overlapping, the
/// depth is the support overlap along the refined normal (an achievable
/// push, the least found). Apart, it is minus the distance between the
/// witness points, which lie on the shapes (an achievable distance, the
/// least found), and the normal is their direction: for shapes a hair
/// apart that direction carries the rounding of the points' difference,
/// but points, distance and normal agree.
fn settle<N: Real>(pair: &MinkowskiPair<N>, start: &Vector3<N>, scale: N) -> Result<Settled<N>, GeomError> {
    let refined = refine_normal(pair, start, scale)?;
    let radii = pair.radius_a() + pair.radius_b();
    // An exact witness pair decides apart or not (the separation along a
    // normal of rounding-sized accuracy may not, for cores a hair apart).
    let depth = match refined.witness {
        Some((core_a, core_b, apart)) => {
            let gap = geom_core::ray::length_without_overflow(&(core_b - core_a));
            radii - if apart { gap } else { -gap }
        }
        None => -refined.separation + radii,
    };
    let points = witness_pair(
        pair,
        &refined.normal,
        depth,
        refined.witness.map(|(a, b, _)| (a, b)),
    )?;
    if depth < N::zero() {
        // Apart: the normal is the direction of the exact pair, the
        // cores' when the refinement gave them (their difference is the
        // gap plus the radii, far above its rounding for rounded shapes a
        // hair apart), else the witness points'. Points themselves a hair
        // apart (two touching segments, a box's corner on a triangle)
        // have a direction of rounding only: it is kept only where it
        // separates the cores as well as the refined normal does, to
        // rounding.
        let noise = N::default_epsilon() * nalgebra::convert::<f64, N>(8.0) * scale;
        // Points far enough apart for their direction to hold (rounding
        // of 10⁻⁴ rad at most) keep it, so that the points and the normal
        // agree.
        let separating = |gap: N| {
            move |direction: &Vector3<N>| {
                noise <= gap * nalgebra::convert::<f64, N>(1e-4)
                    || refine::separation(pair, direction)
                        .is_ok_and(|value| value >= refined.separation - noise)
            }
        };
        match refined.witness {
            Some((core_a, core_b, true)) => {
                let between = core_b - core_a;
                let gap = geom_core::ray::length_without_overflow(&between);
                if let Some(normal) = try_unit(&between).filter(separating(gap)) {
                    return Ok(Settled {
                        normal,
                        depth,
                        points: (
                            core_a + normal * pair.radius_a(),
                            core_b - normal * pair.radius_b(),
                        ),
                        certified: refined.certified,
                    });
                }
            }
            _ => {
                let between = points.1 - points.0;
                let gap = geom_core::ray::length_without_overflow(&between);
                if let Some(normal) = try_unit(&between).filter(separating(gap)) {
                    return Ok(Settled {
                        normal,
                        depth: -gap,
                        points,
                        certified: refined.certified,
                    });
                }
            }
        }
    }
    Ok(Settled {
        normal: refined.normal,
        depth,
        points,
        certified: refined.certified,
    })
}

/// The sine of the angle within which the features of a single witness
/// pair count as facing each other.
fn witness_tolerance<N: Real>() -> N {
    nalgebra::convert(1e-3)
}

/// The contact pairs of the features touching along `normal` (`a`'s
/// frame), dilated by the radii; none when either feature is a single
/// point (a vertex, a curved point): that contact is the witness pair
/// itself, and the point's lift onto the other feature only repeats it
/// with the other feature's rounding (a cone's side chosen from a normal
/// 10⁻⁵ off lies 10⁻³ beside the witness across a base of radius 86).
fn feature_pairs<N: Real>(
    pair: &MinkowskiPair<N>,
    normal: &Vector3<N>,
    depth: N,
    tolerance: N,
    margin: N,
) -> FeaturePairs<N> {
    match dilated_features(pair, normal, tolerance) {
        Some((feature_a, feature_b)) if feature_a.points().len() > 1 && feature_b.points().len() > 1 => {
            clip_features(&feature_a, &feature_b, normal, depth, margin)
        }
        _ => FeaturePairs::new(),
    }
}

/// One witness pair for the contact along `normal` of overlap `depth`
/// (`a`'s frame): the cores' exact witness points when the refinement
/// found them (dilated by the radii), else the pair from the touching
/// features ([`feature_witness`]), polished by projection when apart.
fn witness_pair<N: Real>(
    pair: &MinkowskiPair<N>,
    normal: &Vector3<N>,
    depth: N,
    exact: Option<(Point3<N>, Point3<N>)>,
) -> Result<(Point3<N>, Point3<N>), GeomError> {
    if let Some((core_a, core_b)) = exact {
        return Ok((
            core_a + normal * pair.radius_a(),
            core_b - normal * pair.radius_b(),
        ));
    }
    let rough = feature_witness(pair, normal, depth)?;
    Ok(if depth < N::zero() {
        projected_apart(pair, normal, rough).unwrap_or(rough)
    } else {
        rough
    })
}

/// The witness pair from the features touching along `normal`: their
/// deepest pair; when they do not overlap seen along `normal` to rounding
/// (a corner over a cap's rim, outside the polygon the cap is given as),
/// the single extreme point of one side and the point `depth` along
/// `normal` from it; else the two support points, each moved half their
/// disagreement across `normal`.
fn feature_witness<N: Real>(
    pair: &MinkowskiPair<N>,
    normal: &Vector3<N>,
    depth: N,
) -> Result<(Point3<N>, Point3<N>), GeomError> {
    if let Some((feature_a, feature_b)) = dilated_features(pair, normal, witness_tolerance()) {
        let infinite = nalgebra::convert(f64::INFINITY);
        if let Some(best) = clip_features(&feature_a, &feature_b, normal, depth, infinite).deepest() {
            return Ok((best.point_a, best.point_b));
        }
        let single = |feature: &geom_core::SupportFeature<N>| feature.points().len() == 1;
        if single(&feature_b) {
            let b = feature_b.points()[0];
            return Ok((b + normal * depth, b));
        }
        if single(&feature_a) {
            let a = feature_a.points()[0];
            return Ok((a, a - normal * depth));
        }
    }
    let (on_a, on_b) = support_pair(pair, normal)?;
    let middle = on_b + (on_a - on_b) * nalgebra::convert::<f64, N>(0.5);
    let half = normal * (depth * nalgebra::convert::<f64, N>(0.5));
    Ok((middle + half, middle - half))
}

/// For shapes apart, the pair `rough` (on or near the shapes, dilated
/// along `normal`) made exact: `b`'s core point projected onto `a`'s core,
/// that projection onto `b`'s core, and so on for a few rounds
/// (alternating projections between convex sets, von Neumann), dilated
/// along their direction. Each projection is exact and never lengthens
/// the pair, so the points lie on the shapes and converge to the closest
/// pair: a rim point moved across the rim by the normal's last bits (which
/// the features' split puts off the rim at first order) comes back onto
/// it, and a corner next to the closest edge point slides to it. `None`
/// when a projection lands inside the other core (the cores touch).
fn projected_apart<N: Real>(
    pair: &MinkowskiPair<N>,
    normal: &Vector3<N>,
    rough: (Point3<N>, Point3<N>),
) -> Option<(Point3<N>, Point3<N>)> {
    let mut core_b = rough.1 + normal * pair.radius_b();
    let mut core_a = core_b;
    let mut length = N::max_value().unwrap_or_else(N::one);
    for _ in 0..8 {
        let (next_a, inside_a) = pair.closest_on_a(&core_b)?;
        let (next_b, inside_b) = pair.closest_on_b(&next_a)?;
        if inside_a || inside_b {
            return None;
        }
        let next_length = (next_b - next_a).norm();
        (core_a, core_b) = (next_a, next_b);
        // NaN stops too.
        if next_length.partial_cmp(&length) != Some(std::cmp::Ordering::Less) {
            break;
        }
        length = next_length;
    }
    let direction = try_unit(&(core_b - core_a))?;
    let points = (
        core_a + direction * pair.radius_a(),
        core_b - direction * pair.radius_b(),
    );
    let finite = points.0.iter().chain(points.1.iter()).all(|c| c.is_finite());
    (finite && direction.dot(normal) > N::zero()).then_some(points)
}

/// The convex fallback's contact routine (signature of
/// [`DispatchTable::set_convex_fallback`]): appends one manifold with one
/// point from [`penetration`] when the shapes are within `margin`, and
/// marks `out` approximate when GJK or EPA did not converge. Features are
/// [`FeatureId::Unknown`].
pub fn convex_contact<N: Real>(
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    check_limit(margin, "margin")?;
    let pair = MinkowskiPair::new(a, pose_a, b, pose_b)?;
    let Some(found) = refined_penetration(&pair, margin)? else {
        return Ok(());
    };
    let world = pair.a_to_world();
    let normal = world.vector_to_world(&found.normal);
    // The manifold: the faces (or edges) most aligned with the normal,
    // clipped; a single pair when they do not overlap.
    let pairs = feature_pairs(&pair, &found.normal, found.depth, N::one(), margin);
    let manifold = out.push_manifold(normal);
    let mut to_world = |p: ContactPoint<N>| {
        manifold.points.push(ContactPoint {
            point_a: world.point_to_world(&p.point_a),
            point_b: world.point_to_world(&p.point_b),
            ..p
        })
    };
    // The deepest pair always comes from the single witness (the exact
    // depth); the faces' clipped points widen the manifold beside it.
    let (point_a, point_b) = found.points;
    let witness = ContactPoint {
        point_a,
        point_b,
        depth: found.depth,
        feature_a: FeatureId::Unknown,
        feature_b: FeatureId::Unknown,
    };
    pairs
        .with_deepest(witness)
        .reduced(&found.normal)
        .for_each(&mut to_world);
    if !found.converged {
        out.mark_approximate();
    }
    Ok(())
}

/// The convex fallback's closest-points routine (signature of
/// [`DispatchTable::set_convex_fallback`]), from [`gjk_closest_points`]:
/// `Intersecting` for overlapping or touching shapes, `WithinMargin` with
/// the closest points when apart by at most `max_distance`, else
/// `Disjoint`.
pub fn convex_closest_points<N: Real>(
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    max_distance: N,
) -> Result<ClosestPoints<N>, GeomError> {
    let result = gjk_closest_points(a, pose_a, b, pose_b, max_distance)?;
    Ok(match result.status {
        GjkStatus::Intersecting => ClosestPoints::Intersecting,
        GjkStatus::Separated => ClosestPoints::WithinMargin {
            point_a: result.point_a,
            point_b: result.point_b,
        },
        GjkStatus::BeyondLimit => ClosestPoints::Disjoint,
    })
}

/// Installs [`convex_contact`] and [`convex_closest_points`] as `table`'s
/// convex fallback.
pub fn install_convex_fallback<N: Real>(table: &mut DispatchTable<N>) {
    table.set_convex_fallback(convex_contact::<N>, convex_closest_points::<N>);
}

/// The point of a convex `shape` (at the identity) closest to `point`,
/// and whether `point` is inside: GJK on the pair shape − point (a sphere
/// of radius zero), EPA's deepest point when the point is inside. Support
/// points only: unlike [`gjk_closest_points`] it never asks the shape for
/// its own closest points, so a shape may answer
/// [`Shape::closest_point_local`] with it
/// ([`closest_point_by_support`](crate::convex::closest_point_by_support)).
pub(crate) fn project_point_by_support<N: Real>(
    shape: &dyn Shape<N>,
    point: &Point3<N>,
) -> Option<(Point3<N>, bool)> {
    let probe = crate::Sphere::new(N::zero());
    let at = Isometry3::translation(point.x, point.y, point.z);
    let pair = MinkowskiPair::new(shape, &Isometry3::identity(), &probe, &at).ok()?;
    let world = pair.a_to_world();
    match gjk_cores(&pair, N::max_value()?).ok()?.outcome {
        CoreOutcome::Separated { point_a, .. } => Some((world.point_to_world(&point_a), false)),
        CoreOutcome::Intersecting {
            simplex,
            len,
            point_a,
            point_b,
            ..
        } => {
            // EPA's normal `n` is the way out; its polytope lies inside a
            // curved shape, so the boundary point is where the ray from
            // the point along `n` leaves the shape (a support ray cast
            // back from beyond it), and the shape's normal there, taken
            // as the new way out, refines it (for a smooth surface the
            // closest point is where that normal points back at the point;
            // each round shrinks the angle by about `1 − depth/radius`, and
            // the distance's error is second order in the angle), up to
            // eight rounds or until the normal stops turning.
            let way_out = epa_cores(&pair, &simplex[..len], point_a, point_b).ok()?;
            let mut normal = world.vector_to_world(&way_out.normal);
            let mut boundary = world.point_to_world(&way_out.point_a);
            for _ in 0..8 {
                let Some((far, _, exit)) = ray::cast_back_from_beyond(shape, point, &normal) else {
                    break;
                };
                boundary = far - normal * exit.t;
                match try_unit(&exit.normal) {
                    Some(next) if (next - normal).norm() > N::default_epsilon().sqrt() => normal = next,
                    _ => break,
                }
            }
            Some((boundary, true))
        }
        CoreOutcome::Beyond { .. } => None,
    }
}
