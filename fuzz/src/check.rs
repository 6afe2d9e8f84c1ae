//! The properties every answer must keep. Each check panics (a fuzzer
//! finding) with the inputs in its message.

use geom::prelude::*;
use geom::prims::sweep::SweepHit;

use crate::FuzzReal;

/// Whether every coordinate is finite.
pub fn finite<'a, N: FuzzReal>(values: impl IntoIterator<Item = &'a N>) -> bool {
    values.into_iter().all(|v| v.is_finite())
}

/// Whether `normal` has unit length to the precision's tolerance.
pub fn is_unit<N: FuzzReal>(normal: &Vector3<N>) -> bool {
    finite(normal.iter()) && (normal.norm() - N::one()).abs() <= N::tolerance()
}

/// `|v|` without overflow or underflow of the squares (scaled by the
/// largest component first when needed).
pub fn length<N: FuzzReal>(v: &Vector3<N>) -> N {
    let plain = v.norm();
    let largest = v.amax();
    if plain.is_finite() && plain > N::zero() || !(largest > N::zero() && largest.is_finite()) {
        return plain;
    }
    largest * (v / largest).norm()
}

/// The largest finite coordinate magnitude among `points`, plus one: the
/// scale of the absolute tolerances.
pub fn scale<'a, N: FuzzReal>(points: impl IntoIterator<Item = &'a Point3<N>>) -> N {
    let mut largest = N::zero();
    for point in points {
        for c in point.iter() {
            if c.is_finite() {
                largest = largest.max(c.abs());
            }
        }
    }
    largest + N::one()
}

/// A constructor's refusal names the parameter and the value.
pub fn constructor_error(error: &GeomError) {
    match error {
        GeomError::InvalidParameter {
            shape,
            parameter,
            value,
            ..
        } => {
            let message = error.to_string();
            assert!(
                !value.is_empty() && message.starts_with(&format!("{shape}: {parameter} = {value}")),
                "{message}"
            );
        }
        other => panic!("a constructor answered {other:?}, not InvalidParameter"),
    }
}

/// A pair query's error: one of those it documents.
pub fn pair_error(error: &GeomError) {
    match error {
        GeomError::NonFinite { .. } | GeomError::Unsupported { .. } => {}
        GeomError::InvalidParameter { .. } => constructor_error(error),
    }
}

/// A ray cast's answer: `t` in `[0, max_t]`, a unit normal (zero only for
/// a solid hit at the origin with a zero-length direction), and on tame
/// inputs a hit point on the surface.
pub fn ray_hit<N: FuzzReal>(
    shape: &dyn Shape<N>,
    pose: &Isometry3<N>,
    ray: &Ray<N>,
    max_t: N,
    solid: bool,
    hit: Option<RayHit<N>>,
    tame: bool,
) {
    let Some(hit) = hit else { return };
    let context = || format!("{shape:?} at {pose:?}, {ray:?}, max_t {max_t:?}, solid {solid}: {hit:?}");
    assert!(
        hit.t.is_finite() && hit.t >= N::zero() && hit.t <= max_t,
        "t out of [0, max_t]: {}",
        context()
    );
    let zero_normal_allowed = solid && hit.t == N::zero() && ray.dir == Vector3::zeros();
    assert!(
        is_unit(&hit.normal) || (zero_normal_allowed && hit.normal == Vector3::zeros()),
        "normal not unit: {}",
        context()
    );
    if !tame || (solid && hit.t == N::zero()) {
        return;
    }
    // A grazing hit (the ray within 1e-3 rad of the surface) is
    // ill-conditioned: an error of ε in the surface's position moves the
    // hit along the ray by ε / sin θ. Its position is not checked.
    let cos = hit.normal.dot(&ray.dir).abs() / length(&ray.dir);
    if !(cos >= nalgebra::convert(1e-3)) {
        return;
    }
    let point = ray.point_at(hit.t);
    let tolerance = N::tolerance() * scale([&ray.origin, &point, &pose.translation.vector.into()]);
    let distance = shape.distance(pose, &point);
    assert!(
        distance.is_some_and(|d| d.abs() <= tolerance),
        "hit point {point:?} off the surface by {distance:?}: {}",
        context()
    );
    let aabb = shape.aabb(pose).loosened(tolerance);
    assert!(
        aabb.contains_point(&point),
        "hit point {point:?} outside {aabb:?}: {}",
        context()
    );
}

/// A point projection and distance: finite answers; a solid projection of
/// an inside point is the point itself; on tame inputs the projection lies
/// on the surface and the distance agrees with it.
pub fn projection<N: FuzzReal>(shape: &dyn Shape<N>, pose: &Isometry3<N>, point: &Point3<N>, tame: bool) {
    let context = || format!("{shape:?} at {pose:?}, point {point:?}");
    let distance = shape.distance(pose, point);
    if let Some(d) = distance {
        assert!(d.partial_cmp(&N::zero()).is_some(), "distance NaN: {}", context());
    }
    for solid in [true, false] {
        let Some(projection) = shape.closest_point(pose, point, solid) else {
            continue;
        };
        assert!(
            finite(projection.point.iter()),
            "projection not finite (solid {solid}): {projection:?}, {}",
            context()
        );
        if solid && projection.is_inside {
            assert_eq!(projection.point, *point, "{}", context());
        }
        if !tame || (solid && projection.is_inside) {
            continue;
        }
        let tolerance = N::tolerance() * scale([point, &projection.point, &pose.translation.vector.into()]);
        let on_surface = shape.distance(pose, &projection.point);
        assert!(
            on_surface.is_some_and(|d| d.abs() <= tolerance),
            "projection {projection:?} off the surface by {on_surface:?}: {}",
            context()
        );
        let gap = (point - projection.point).norm();
        assert!(
            distance.is_some_and(|d| (d.abs() - gap).abs() <= tolerance),
            "distance {distance:?} but the projection {projection:?} is {gap:?} away: {}",
            context()
        );
    }
}

/// A support point: finite, and the farthest of the shape's box corners
/// along `dir` cannot be farther.
pub fn support<N: FuzzReal>(shape: &dyn Shape<N>, pose: &Isometry3<N>, dir: &Vector3<N>) {
    if let Some(point) = shape.support(pose, dir) {
        assert!(
            finite(point.iter()),
            "{shape:?} at {pose:?}: support along {dir:?} is {point:?}"
        );
    }
    let pose_finite = finite(pose.translation.vector.iter()) && finite(pose.rotation.coords.iter());
    let aabb = shape.aabb(pose);
    assert!(
        !pose_finite
            || aabb
                .mins
                .iter()
                .chain(aabb.maxs.iter())
                .all(|c| c.partial_cmp(&N::zero()).is_some()),
        "{shape:?} at {pose:?}: aabb {aabb:?}"
    );
}

/// A contact answer: unit normals, finite points, finite depths of at
/// least `-margin`, and on tame inputs no deeper than the shapes are big.
pub fn contacts<N: FuzzReal>(
    manifolds: &ContactManifolds<N>,
    margin: N,
    size: N,
    tame: bool,
    context: &dyn Fn() -> String,
) {
    for (normal, point) in manifolds.points() {
        assert!(is_unit(normal), "contact normal {normal:?}: {}", context());
        assert!(
            finite(point.point_a.iter()) && finite(point.point_b.iter()),
            "contact points {point:?}: {}",
            context()
        );
        let slack = N::tolerance() * size.min(nalgebra::convert(1e30));
        assert!(
            point.depth.is_finite() && point.depth >= -margin - slack,
            "contact depth {:?} with margin {margin:?}: {}",
            point.depth,
            context()
        );
        if tame && size.is_finite() {
            assert!(
                point.depth <= size,
                "contact depth {:?} beyond the shapes' size {size:?}: {}",
                point.depth,
                context()
            );
        }
    }
}

/// A sweep's hit: `toi` in `[0, 1]`, a finite point, a unit normal.
pub fn sweep_hit<N: FuzzReal>(hit: &Option<SweepHit<N>>, context: &dyn Fn() -> String) {
    let Some(hit) = hit else { return };
    assert!(
        hit.toi >= N::zero() && hit.toi <= N::one(),
        "toi out of [0, 1]: {hit:?}, {}",
        context()
    );
    assert!(finite(hit.point.iter()), "sweep point: {hit:?}, {}", context());
    assert!(is_unit(&hit.normal), "sweep normal: {hit:?}, {}", context());
}
