//! The segment: the straight line piece between two points, no thickness.
//!
//! ```
//! use geom_core::{Ray, Shape};
//! use geom_prims::Segment;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! let segment = Segment::new(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0));
//! let pose = Isometry3::identity();
//! // Straight down from (0.5, 3, 0): crosses the segment after 3, the normal facing back up the ray.
//! let down = Ray::new(Point3::new(0.5, 3.0, 0.0), -Vector3::y());
//! let hit = segment.ray_cast(&pose, &down, f64::INFINITY, true).unwrap();
//! assert!((hit.t - 3.0).abs() < 1e-12 && (hit.normal - Vector3::y()).norm() < 1e-12);
//! // (4, 4, 0) is closest to the end (1, 0, 0), √(3² + 4²) = 5 away.
//! let closest = segment.closest_point(&pose, &Point3::new(4.0, 4.0, 0.0), true).unwrap();
//! assert!((closest.point - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-12 && !closest.is_inside);
//! assert!((segment.distance(&pose, &Point3::new(4.0, 4.0, 0.0)).unwrap() - 5.0).abs() < 1e-12);
//! ```

use geom_core::LaneOrd;
use geom_core::distance::closest_point_on_segment;
use geom_core::{
    Aabb, FeatureId, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit, Real,
    Shape, ShapeKind, SupportFeature, lit,
};
use nalgebra::{Point3, Vector3};

use geom_core::all_finite;

/// The segment `a b` in the local frame. It has no thickness and no
/// interior: `solid` makes no difference to its queries, and a point is
/// "inside" only when it lies exactly on the segment.
///
/// Features: ray hits report [`FeatureId::Edge(0)`](geom_core::FeatureId).
///
/// A ray hits where it passes through the segment, up to a tolerance of
/// `4·ε·max(|a − o|, |b − o|)` (`ε` the precision's machine epsilon, `o`
/// the ray's origin): the rounding error of the closest approach itself,
/// so a ray aimed at a point of the segment hits it. Rays parallel to the
/// segment miss (they could only touch it along its length, where no
/// normal across the segment is defined), and so does every ray against a
/// zero-length segment; its closest point is still well-defined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment<N: Real> {
    /// The first end.
    pub a: Point3<N>,
    /// The second end.
    pub b: Point3<N>,
}

impl<N: Real> Segment<N> {
    /// The segment `a b`; `Err` names an end with a NaN or infinite
    /// coordinate.
    pub fn try_new(a: Point3<N>, b: Point3<N>) -> Result<Self, GeomError> {
        Ok(Segment {
            a: Point3::from(crate::check_finite("segment", "a", <[N; 3]>::from(a.coords))?),
            b: Point3::from(crate::check_finite("segment", "b", <[N; 3]>::from(b.coords))?),
        })
    }

    /// The segment `a b`.
    ///
    /// # Panics
    /// With [`Segment::try_new`]'s message when an end is not finite.
    pub fn new(a: Point3<N>, b: Point3<N>) -> Self {
        Self::try_new(a, b).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Ray (any `dir` length, `t` in units of `dir`) against the segment `a b`,
/// on lanes.
///
/// The ends are taken relative to the ray's origin first. `t` is the ray's
/// parameter at the closest approach of the two lines (Ericson RTCD §5.1.8),
/// `((a − o) × e) · (d × e) / |d × e|²` with `e = b − a`, clamped to
/// `t >= 0`; the ray hits when the point it reaches there is within the
/// tolerance documented on [`Segment`] of the segment. The normal is the
/// part of `−d` across the segment, `(d × e) × e` normalised.
#[inline]
pub fn ray_cast_segment<T: Lane>(ray: &Ray<T>, a: &Point3<T>, b: &Point3<T>, max_t: T) -> LaneHit<T> {
    let zero = T::zero();
    let dir = ray.dir;
    let ao = a - ray.origin;
    let bo = b - ray.origin;
    let axis = b - a;
    let across = dir.cross(&axis);
    let across_squared = across.norm_squared();
    let t = (ao.cross(&axis).dot(&across) / across_squared).lane_max(zero);
    let ray_point = Point3::from(dir * t);
    let (on_segment, _) = closest_point_on_segment(&ray_point, &Point3::from(ao), &Point3::from(bo));
    let gap = (on_segment - ray_point).norm();
    let tolerance = lit::<T>(4.0) * T::simd_default_epsilon() * ao.norm().lane_max(bo.norm());
    let finite = all_finite(&ray.origin.coords) & all_finite(&dir);
    // An infinite tolerance (an origin whose distance to the segment
    // overflows) would accept any gap: no hit there.
    let finite_tolerance = (tolerance * zero).simd_eq(zero);
    let mask =
        finite & finite_tolerance & across_squared.simd_gt(zero) & gap.simd_le(tolerance) & t.simd_le(max_t);
    // Rescaled where |facing|² overflows (a long segment, a long `dir`).
    let (facing, facing_length) = geom_core::ray::with_length(&across.cross(&axis));
    LaneHit {
        mask,
        t,
        normal: facing / facing_length,
        face: zero,
    }
}

/// The point of the segment closest to `point` (Ericson RTCD §5.1.2, see
/// [`closest_point_on_segment`]), and whether `point` lies on the segment.
#[inline]
pub fn project_point_segment<T: Lane>(point: &Point3<T>, a: &Point3<T>, b: &Point3<T>) -> LaneProjection<T> {
    let (closest, _) = closest_point_on_segment(point, a, b);
    let on = closest.x.simd_eq(point.x) & closest.y.simd_eq(point.y) & closest.z.simd_eq(point.z);
    LaneProjection {
        point: closest,
        inside: on,
    }
}

impl<N: Real> LaneShape<N> for Segment<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, _solid: bool) -> LaneHit<T> {
        ray_cast_segment(ray, &self.a.map(T::splat), &self.b.map(T::splat), max_t)
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        project_point_segment(point, &self.a.map(T::splat), &self.b.map(T::splat))
    }
}

impl<N: Real> Shape<N> for Segment<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Segment
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        Aabb::new(self.a, self.a).including(&self.b)
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid)
            .into_hit()
            .map(|hit| RayHit {
                feature: FeatureId::Edge(0),
                ..hit
            })
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// The whole segment when `dir` is within `tolerance` of perpendicular
    /// to it, else the farther end.
    fn support_feature_local(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        Some(crate::feature::segment_feature(self.a, self.b, &u, tolerance))
    }

    /// The end farthest along `dir` (`a` when both are equally far).
    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        let usable = dir.iter().all(|c| c.is_finite()) && dir.iter().any(|c| *c != N::zero());
        usable.then(|| {
            if self.b.coords.dot(dir) > self.a.coords.dot(dir) {
                self.b
            } else {
                self.a
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{TestRng, assert_lanes_match_scalar};
    use nalgebra::SimdValue;
    use simba::simd::WideF32x8;

    fn unit_x() -> Segment<f64> {
        Segment::new(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0))
    }

    fn cast(segment: &Segment<f64>, origin: [f64; 3], dir: [f64; 3]) -> Option<RayHit<f64>> {
        segment.ray_cast_local(&Ray::new(origin.into(), dir.into()), f64::INFINITY, true)
    }

    #[test]
    fn hand_checked_hits() {
        // Straight across: from (0.25, −3, 0) at speed 1.5 along y, t = 2.
        assert_eq!(
            cast(&unit_x(), [0.25, -3.0, 0.0], [0.0, 1.5, 0.0]),
            Some(RayHit {
                t: 2.0,
                normal: Vector3::new(0.0, -1.0, 0.0),
                feature: FeatureId::Edge(0)
            })
        );
        // Slanted through (0.5, 0, 0) from (−2, −3, 1): d = (2.5, 3, −1),
        // t = 1; d × e = (0, −2, −6) = (a − o) × e, so t = 40 / 40 exactly.
        // The normal is −d without its x part, normalised: (0, −3, 1)/√10.
        let hit = cast(&unit_x(), [-2.0, -3.0, 1.0], [2.5, 3.0, -1.0]).unwrap();
        assert_eq!(hit.t, 1.0);
        assert!((hit.normal - Vector3::new(0.0, -3.0, 1.0) / 10f64.sqrt()).norm() < 1e-15);
        // Through the end b = (1, 0, 0) exactly: inclusive.
        assert_eq!(cast(&unit_x(), [1.0, 0.0, -4.0], [0.0, 0.0, 2.0]).unwrap().t, 2.0);
        // Solid makes no difference.
        let ray = Ray::new(Point3::new(0.25, -3.0, 0.0), Vector3::new(0.0, 1.5, 0.0));
        assert_eq!(
            unit_x().ray_cast_local(&ray, 5.0, false),
            unit_x().ray_cast_local(&ray, 5.0, true)
        );
    }

    #[test]
    fn misses() {
        // Past the end, beside it, behind the origin, parallel, past max_t.
        assert!(cast(&unit_x(), [1.001, -3.0, 0.0], [0.0, 1.0, 0.0]).is_none());
        assert!(cast(&unit_x(), [0.0, -3.0, 1e-9], [0.0, 1.0, 0.0]).is_none());
        assert!(cast(&unit_x(), [0.0, -3.0, 0.0], [0.0, -1.0, 0.0]).is_none());
        assert!(cast(&unit_x(), [-5.0, 0.0, 0.0], [1.0, 0.0, 0.0]).is_none());
        let ray = Ray::new(Point3::new(0.25, -3.0, 0.0), Vector3::new(0.0, 1.5, 0.0));
        assert!(unit_x().ray_cast_local(&ray, 2.0, true).is_some());
        assert!(unit_x().ray_cast_local(&ray, 1.999, true).is_none());
    }

    #[test]
    fn origin_on_the_segment_hits_at_zero() {
        let hit = cast(&unit_x(), [0.5, 0.0, 0.0], [0.0, 0.0, 1.0]).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vector3::new(0.0, 0.0, -1.0)));
    }

    /// Far from the origin and slanted, in f32 and f64: rays through
    /// points `a + (k/16)(b − a)` of the segment from origins on a 1/64 grid
    /// (so origin, dir and target are exact in f32) all hit, at `t = 1`
    /// within the rounding of the closest approach.
    #[test]
    fn rays_aimed_at_points_of_the_segment_hit_them() {
        let a = Point3::new(1.0e3, -2.0e3, 500.0);
        let b = Point3::new(1.0e3 + 3.0, -2.0e3 + 1.0, 498.0);
        let (segment64, segment32) = (Segment::new(a, b), Segment::new(a.cast::<f32>(), b.cast::<f32>()));
        let mut rng = TestRng::new(41);
        for _ in 0..2000 {
            let k = (rng.next_u64() % 17) as f64;
            let target = a + (b - a) * (k / 16.0);
            let origin = target + rng.vector(10.0).map(|c| (c * 64.0).round() / 64.0);
            let dir = target - origin;
            let hit64 = segment64.ray_cast_local(&Ray::new(origin, dir), 2.0, true);
            assert!((hit64.unwrap().t - 1.0).abs() < 1e-12, "{hit64:?}");
            let ray32 = Ray::new(origin.cast::<f32>(), dir.cast::<f32>());
            let hit32 = segment32.ray_cast_local(&ray32, 2.0, true);
            assert!((hit32.unwrap().t - 1.0).abs() < 1e-5, "{hit32:?}");
        }
    }

    #[test]
    fn bad_input_and_degenerate_segments() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        for (o, d) in [
            ([nan, -3.0, 0.0], [0.0, 1.0, 0.0]),
            ([0.0, -3.0, 0.0], [0.0, inf, 0.0]),
            ([0.0, -3.0, 0.0], [nan, 1.0, 0.0]),
            ([0.0, -inf, 0.0], [0.0, 1.0, 0.0]),
            ([0.0, -3.0, 0.0], [0.0, 0.0, 0.0]),
            ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ] {
            assert!(cast(&unit_x(), o, d).is_none(), "{o:?} {d:?}");
        }
        assert!(
            unit_x()
                .closest_point_local(&Point3::new(nan, 0.0, 0.0), true)
                .is_none()
        );
        assert_eq!(
            Segment::try_new(Point3::new(0.0f32, inf as f32, 0.0), Point3::origin())
                .unwrap_err()
                .to_string(),
            "segment: a = [0.0, inf, 0.0] is invalid (must be finite)"
        );
        assert!(Segment::try_new(Point3::origin(), Point3::new(nan, 0.0, 0.0)).is_err());
        // Zero length: rays miss, the closest point is the point.
        let point = Segment::new(Point3::new(1.0, 2.0, 3.0), Point3::new(1.0, 2.0, 3.0));
        assert!(cast(&point, [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]).is_none());
        assert_eq!(point.distance_local(&Point3::new(1.0, 2.0, 7.0)), Some(4.0));
        assert_eq!(
            point.support_local(&Vector3::new(0.0, 1.0, 0.0)),
            Some(Point3::new(1.0, 2.0, 3.0))
        );
    }

    #[test]
    fn closest_points_and_support() {
        let s = unit_x();
        let beside = s.closest_point_local(&Point3::new(0.5, 3.0, 4.0), true).unwrap();
        assert_eq!(
            (beside.point, beside.is_inside),
            (Point3::new(0.5, 0.0, 0.0), false)
        );
        assert_eq!(s.distance_local(&Point3::new(0.5, 3.0, 4.0)), Some(5.0));
        assert_eq!(
            s.closest_point_local(&Point3::new(7.0, 1.0, 0.0), true)
                .unwrap()
                .point,
            Point3::new(1.0, 0.0, 0.0)
        );
        let on = s
            .closest_point_local(&Point3::new(-0.5, 0.0, 0.0), false)
            .unwrap();
        assert_eq!((on.point, on.is_inside), (Point3::new(-0.5, 0.0, 0.0), true));
        assert_eq!(s.distance_local(&Point3::new(-0.5, 0.0, 0.0)), Some(0.0));
        assert_eq!(
            s.support_local(&Vector3::new(-1.0, 5.0, 0.0)),
            Some(Point3::new(-1.0, 0.0, 0.0))
        );
        assert_eq!(s.support_local(&Vector3::zeros()), None);
        assert_eq!(
            s.local_aabb(),
            Aabb::new(Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0))
        );
    }

    #[test]
    fn lanes_equal_scalar() {
        let a = Point3::new(-1.0, 0.5, 0.25);
        let b = Point3::new(1.5, -0.25, -0.5);
        assert_lanes_match_scalar(
            &Segment::new(a.cast::<f32>(), b.cast::<f32>()),
            &Segment::new(a, b),
            1.5,
        );
        // Random rays almost never hit a segment: compare rays through it
        // (as in the test above) lane by lane as well.
        let segment = Segment::new(Point3::new(-1.0f32, 0.5, 0.25), Point3::new(1.0, -0.25, 0.75));
        let mut rng = TestRng::new(42);
        let mut hits = 0;
        for _ in 0..500 {
            let rays: [Ray<f32>; 8] = std::array::from_fn(|_| {
                let k = (rng.next_u64() % 17) as f32;
                let target = segment.a + (segment.b - segment.a) * (k / 16.0);
                let origin = target + rng.vector(4.0).map(|c| ((c * 64.0).round() / 64.0) as f32);
                Ray::new(origin, target - origin)
            });
            let lane = |f: &dyn Fn(&Ray<f32>) -> f32| {
                WideF32x8::from(std::array::from_fn::<f32, 8, _>(|i| f(&rays[i])))
            };
            let packed = Ray::new(
                Point3::new(
                    lane(&|r| r.origin.x),
                    lane(&|r| r.origin.y),
                    lane(&|r| r.origin.z),
                ),
                Vector3::new(lane(&|r| r.dir.x), lane(&|r| r.dir.y), lane(&|r| r.dir.z)),
            );
            let lane_hits = segment.ray_cast_lanes(&packed, WideF32x8::splat(2.0), true);
            for (i, ray) in rays.iter().enumerate() {
                let scalar = segment.ray_cast_lanes(ray, 2.0, true).into_hit();
                hits += scalar.is_some() as usize;
                assert_eq!(lane_hits.extract(i), scalar);
            }
        }
        assert_eq!(hits, 4000);
    }
}
