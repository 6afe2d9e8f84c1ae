//! Helpers for the shapes' support features
//! ([`Shape::support_feature_local`](geom_core::Shape::support_feature_local)):
//! each shape file classifies its own extreme set; the pieces they share
//! are here.

use geom_core::{FeatureShape, MAX_FEATURE_POINTS, Real, SupportFeature, lit};
use nalgebra::{Point3, Vector3};

/// `dir / |dir|`, or `None` for a zero or non-finite direction.
pub(crate) fn unit_direction<N: Real>(dir: &Vector3<N>) -> Option<Vector3<N>> {
    crate::contact::try_unit(dir)
}

/// The disk of `radius` about `center`, perpendicular to the unit outward
/// `normal`, as a regular polygon of [`MAX_FEATURE_POINTS`] rim points,
/// counter-clockwise about `normal`, the first at `center + radius·start`
/// (`start` unit and across `normal`: the rim point farthest along the
/// direction asked, so the deepest point of a tilted disk is a corner).
pub(crate) fn disk_face<N: Real>(
    center: Point3<N>,
    normal: Vector3<N>,
    start: Vector3<N>,
    radius: N,
) -> SupportFeature<N> {
    // The corners' cosines and sines, eighths of a turn (no trigonometry
    // per call).
    const HALF_ROOT: f64 = std::f64::consts::FRAC_1_SQRT_2;
    const UNIT_CIRCLE: [(f64, f64); MAX_FEATURE_POINTS] = [
        (1.0, 0.0),
        (HALF_ROOT, HALF_ROOT),
        (0.0, 1.0),
        (-HALF_ROOT, HALF_ROOT),
        (-1.0, 0.0),
        (-HALF_ROOT, -HALF_ROOT),
        (0.0, -1.0),
        (HALF_ROOT, -HALF_ROOT),
    ];
    let (along, quarter) = (start * radius, normal.cross(&start) * radius);
    SupportFeature::face(
        UNIT_CIRCLE.map(|(cosine, sine)| center + along * lit::<N>(cosine) + quarter * lit::<N>(sine)),
        normal,
    )
}

/// A unit vector across the unit `normal`, as close to `hint` as the
/// geometry allows (`hint`'s part across `normal`), else a fixed one.
pub(crate) fn across_or_any<N: Real>(normal: &Vector3<N>, hint: &Vector3<N>) -> Vector3<N> {
    crate::support_direction_length(hint)
        .and_then(|length| crate::direction_across_axis(hint, length, normal))
        .unwrap_or_else(|| crate::orthonormal_basis(normal).0)
}

/// The extreme feature of a segment `a b` along the unit `u`: the edge when
/// both ends are extreme to within `tolerance` (the sine of the angle
/// between `u` and the plane perpendicular to the segment), else the
/// farther end.
pub(crate) fn segment_feature<N: Real>(
    a: Point3<N>,
    b: Point3<N>,
    u: &Vector3<N>,
    tolerance: N,
) -> SupportFeature<N> {
    let along = b - a;
    let rise = u.dot(&along);
    let length = along.norm();
    if length > N::zero() && rise.abs() <= tolerance * length {
        SupportFeature::edge(a, b, *u)
    } else {
        SupportFeature::point(FeatureShape::Vertex, if rise > N::zero() { b } else { a }, *u)
    }
}

/// The direction of `feature`'s normal set nearest the unit `raw`: a
/// face's normal, or the direction of an edge's circle
/// ([`SupportFeature::edge_directions`]) on `raw`'s side of its axis;
/// `None` for a point (whose normal set is a cone, `raw` within it) or when
/// `raw` is along an edge's axis. How a direction with rounding of its own
/// (the offset between two points a hair apart) becomes the exact normal of
/// the face or side it points through.
pub(crate) fn nearest_normal<N: Real>(feature: &SupportFeature<N>, raw: &Vector3<N>) -> Option<Vector3<N>> {
    match feature.shape() {
        FeatureShape::Face => Some(feature.normal()),
        FeatureShape::Edge => {
            let (axis, cos) = feature.edge_directions();
            let across = crate::contact::try_unit(&(raw - axis * axis.dot(raw)))?;
            let sin = (N::one() - cos * cos).max(N::zero()).sqrt();
            Some(axis * cos + across * sin)
        }
        _ => None,
    }
}
