//! The cuboid: a box centred on the local origin with its edges along the
//! local axes.
//!
//! ```
//! use geom_core::{FeatureId, Ray, Shape};
//! use geom_prims::Cuboid;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! let cuboid = Cuboid::new(Vector3::new(1.0, 2.0, 3.0));
//! // (4, 1, 0) projects onto the box at (1, 1, 0): only x is clamped.
//! let projection = cuboid.closest_point(&Isometry3::identity(), &Point3::new(4.0, 1.0, 0.0), true).unwrap();
//! assert!((projection.point - Point3::new(1.0, 1.0, 0.0)).norm() < 1e-12);
//! // From (-5, 0, 0) along +x: the -x face at x = -1 after 4.
//! let ray = Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::x());
//! let hit = cuboid.ray_cast(&Isometry3::identity(), &ray, f64::INFINITY, true).unwrap();
//! assert!((hit.t - 4.0).abs() < 1e-12 && hit.feature == FeatureId::Face(0));
//! // Turned a quarter about z, the box's +y face (half extent 2) faces world -x: hit after 3.
//! let turned = Isometry3::rotation(Vector3::z() * std::f64::consts::FRAC_PI_2);
//! let hit = cuboid.ray_cast(&turned, &ray, f64::INFINITY, true).unwrap();
//! assert!((hit.t - 3.0).abs() < 1e-12 && (hit.normal + Vector3::x()).norm() < 1e-12);
//! assert_eq!(hit.feature, FeatureId::Face(3));
//! ```

mod closest;
mod ray;

pub use closest::project_point_cuboid;
pub use ray::ray_cast_cuboid;

use geom_core::{
    Aabb, FeatureShape, GeomError, Lane, LaneHit, LaneProjection, LaneShape, PointProjection, Ray, RayHit,
    Real, Shape, ShapeKind, SupportFeature, lit,
};
use nalgebra::{Point3, Vector3};

/// A solid box `|x| <= hx, |y| <= hy, |z| <= hz` in its local frame; place
/// and orient it with a pose (translation = centre).
///
/// Features: faces [`FeatureId::Face`](geom_core::FeatureId)`(0..6)` are
/// `-x, +x, -y, +y, -z, +z` (code `2·axis + 1` for the positive side).
/// Zero half extents are allowed: a flat box (a rectangle), a segment or a
/// point, with the same well-defined answers (a ray grazing a flat box in
/// its plane hits its rim, reported on the face of the entering axis).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid<N: Real> {
    /// Half the size along each local axis (`0` or within `[1/max_size, max_size]`, see [`geom_core::max_size`]).
    pub half_extents: Vector3<N>,
}

impl<N: Real> Cuboid<N> {
    /// A box with `half_extents`; `Err` names a negative, NaN or infinite
    /// component, or one above [`geom_core::max_size`].
    pub fn try_new(half_extents: Vector3<N>) -> Result<Self, GeomError> {
        if half_extents.iter().all(|h| crate::is_size(*h)) {
            Ok(Cuboid { half_extents })
        } else {
            Err(GeomError::invalid(
                "cuboid",
                "half_extents",
                half_extents.as_slice(),
                crate::SIZE_RULE,
            ))
        }
    }

    /// A box with `half_extents`.
    ///
    /// # Panics
    /// With [`Cuboid::try_new`]'s message when a half extent is invalid.
    pub fn new(half_extents: Vector3<N>) -> Self {
        Self::try_new(half_extents).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The largest (`pick_larger`) or smallest of `values` over the axes where
/// `valid` holds, with its axis index as a lane value; ties keep the lower
/// axis. Lanes where no axis is valid get unspecified values.
#[inline]
fn extreme_over_axes<T: Lane>(values: [T; 3], valid: [T::SimdBool; 3], pick_larger: bool) -> (T, T) {
    let axis_code = [T::zero(), T::one(), lit::<T>(2.0)];
    // Start from the first valid axis, so no infinite sentinel is needed.
    let mut best = values[0].select(valid[0], values[1].select(valid[1], values[2]));
    let mut axis = axis_code[0].select(valid[0], axis_code[1].select(valid[1], axis_code[2]));
    for k in 0..3 {
        let better = if pick_larger {
            values[k].simd_gt(best)
        } else {
            values[k].simd_lt(best)
        };
        let take = valid[k] & better;
        best = values[k].select(take, best);
        axis = axis_code[k].select(take, axis);
    }
    (best, axis)
}

impl<N: Real> LaneShape<N> for Cuboid<N> {
    #[inline]
    fn ray_cast_lanes<T: Lane<Element = N>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T> {
        ray_cast_cuboid(ray, &self.half_extents.map(T::splat), max_t, solid)
    }

    #[inline]
    fn project_point_lanes<T: Lane<Element = N>>(&self, point: &Point3<T>) -> LaneProjection<T> {
        project_point_cuboid(point, &self.half_extents.map(T::splat))
    }
}

impl<N: Real> Shape<N> for Cuboid<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::Cuboid
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn local_aabb(&self) -> Aabb<N> {
        Aabb::from_half_extents(Point3::origin(), self.half_extents)
    }

    fn aabb(&self, pose: &nalgebra::Isometry3<N>) -> Aabb<N> {
        Aabb::centred_transformed(&self.half_extents, pose)
    }

    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        self.ray_cast_lanes(ray, max_t, solid).into_hit()
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        self.project_point_lanes(point).into_projection(point, solid)
    }

    /// The face whose normal is nearest `dir` when within `tolerance` (its
    /// four corners), else the edge nearly perpendicular to `dir`, else the
    /// corner farthest along `dir`.
    fn support_feature_local(&self, dir: &Vector3<N>, tolerance: N) -> Option<SupportFeature<N>> {
        let u = crate::feature::unit_direction(dir)?;
        let h = self.half_extents;
        let sign = |k: usize| if u[k] >= N::zero() { N::one() } else { -N::one() };
        let by_size = axes_by_size(&u);
        let [face_axis, _, edge_axis] = by_size;
        let (i, j) = ((face_axis + 1) % 3, (face_axis + 2) % 3);
        let across = (u[i] * u[i] + u[j] * u[j]).sqrt();
        if across <= tolerance {
            let s = sign(face_axis);
            let corner = |si: N, sj: N| {
                let mut p = Vector3::zeros();
                p[face_axis] = s * h[face_axis];
                p[i] = si * h[i];
                p[j] = sj * h[j];
                Point3::from(p)
            };
            let one = N::one();
            let ring = [
                corner(-one, -one),
                corner(one, -one),
                corner(one, one),
                corner(-one, one),
            ];
            let mut normal = Vector3::zeros();
            normal[face_axis] = s;
            // Counter-clockwise about +axis (e_i × e_j = e_axis); reversed below.
            return Some(if s > N::zero() {
                SupportFeature::face(ring, normal)
            } else {
                SupportFeature::face(ring.into_iter().rev(), normal)
            });
        }
        let corner = Point3::from(Vector3::from_fn(|k, _| sign(k) * h[k]));
        if u[edge_axis].abs() <= tolerance {
            let mut other = corner;
            other[edge_axis] = -other[edge_axis];
            return Some(SupportFeature::edge(other, corner, u));
        }
        Some(SupportFeature::point(FeatureShape::Vertex, corner, u))
    }

    /// The corner farthest along `dir`; a zero component of `dir` picks the
    /// `+` side (any point of that face would do).
    fn support_local(&self, dir: &Vector3<N>) -> Option<Point3<N>> {
        let usable = dir.iter().all(|c| c.is_finite()) && dir.iter().any(|c| *c != N::zero());
        usable.then(|| {
            Point3::from(Vector3::from_fn(|k, _| {
                if dir[k] >= N::zero() {
                    self.half_extents[k]
                } else {
                    -self.half_extents[k]
                }
            }))
        })
    }
}

/// The axes `0, 1, 2` ordered by `|u_k|`, largest first (ties in index
/// order): the first is the face the unit `u` selects.
fn axes_by_size<N: Real>(u: &Vector3<N>) -> [usize; 3] {
    let mut axes = [0, 1, 2];
    axes.sort_by(|&i, &j| {
        u[j].abs()
            .partial_cmp(&u[i].abs())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    axes
}

impl<N: Real> Cuboid<N> {
    /// The face [`Shape::support_feature_local`] gives along `dir` with a
    /// tolerance of one (the most aligned face, always a face): `2k + 1`
    /// for `+e_k`, `2k` for `−e_k`, the box's face numbering. `None` where
    /// that call gives no feature (a zero or non-finite `dir`). The
    /// feature depends on the face alone, so a caller may keep it per
    /// face.
    pub fn most_aligned_face(dir: &Vector3<N>) -> Option<usize> {
        let u = crate::feature::unit_direction(dir)?;
        let face_axis = axes_by_size(&u)[0];
        Some(2 * face_axis + usize::from(u[face_axis] >= N::zero()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::assert_lanes_match_scalar;
    use geom_core::FeatureId;

    pub(super) fn cast(origin: [f64; 3], dir: [f64; 3], solid: bool) -> Option<RayHit<f64>> {
        Cuboid::new(Vector3::new(1.0, 2.0, 3.0)).ray_cast_local(
            &Ray::new(origin.into(), dir.into()),
            f64::INFINITY,
            solid,
        )
    }

    /// The face `most_aligned_face` names is the one the feature with a
    /// tolerance of one has: random directions, near-ties between two or
    /// three axes, axis-aligned ones with signed zeros, in `f32` (where
    /// ties round most) and `f64`.
    #[test]
    fn most_aligned_face_is_the_features_face() {
        fn check<N: Real>(dir: Vector3<N>) {
            let cuboid = Cuboid::new(Vector3::new(
                N::one(),
                nalgebra::convert(2.0),
                nalgebra::convert(0.5),
            ));
            let feature = cuboid.support_feature_local(&dir, N::one());
            match (Cuboid::most_aligned_face(&dir), feature) {
                (Some(face), Some(feature)) => {
                    let axis = face / 2;
                    let sign = if face % 2 == 1 { N::one() } else { -N::one() };
                    assert_eq!(feature.normal(), Vector3::ith(axis, sign), "{dir:?}");
                }
                (None, None) => {}
                (face, feature) => panic!("{dir:?}: {face:?} vs {feature:?}"),
            }
        }
        let mut rng = crate::test_support::TestRng::new(5);
        for _ in 0..20_000 {
            let v = rng.vector(1.0);
            let mut tie = |x: f64| x * (1.0 + rng.uniform(-1e-7, 1e-7));
            for dir in [
                v,
                Vector3::new(v.x, tie(v.x), v.z),
                Vector3::new(v.x, tie(-v.x), tie(v.x)),
            ] {
                check(dir);
                check(dir.cast::<f32>());
            }
        }
        for dir in [
            Vector3::new(0.0, -0.0, 1.0),
            Vector3::new(-0.0, 0.0, 0.0),
            Vector3::new(f64::NAN, 1.0, 0.0),
        ] {
            check(dir);
        }
    }

    pub(super) fn hit(t: f64, normal: [f64; 3], face: u32) -> Option<RayHit<f64>> {
        Some(RayHit {
            t,
            normal: normal.into(),
            feature: FeatureId::Face(face),
        })
    }

    #[test]
    fn bad_input_never_panics_or_returns_nan() {
        let inf = f64::INFINITY;
        let nan = f64::NAN;
        for (o, d) in [
            ([nan, 0.0, 0.0], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [inf, 0.0, 0.0]),
            ([-inf, 0.0, 0.0], [1.0, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [nan, 0.0, 0.0]),
            ([0.0, 0.0, 0.0], [nan, 0.0, 0.0]),
            ([-5.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ] {
            for solid in [true, false] {
                assert!(cast(o, d, solid).is_none(), "{o:?} {d:?} {solid}");
            }
        }
        // A zero dir hits only from inside a solid box.
        let inside = cast([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], true).unwrap();
        assert_eq!((inside.t, inside.normal), (0.0, Vector3::zeros()));
        assert!(cast([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], false).is_none());
        let b = Cuboid::new(Vector3::new(1.0, 2.0, 3.0));
        assert!(b.closest_point_local(&Point3::new(nan, 0.0, 0.0), true).is_none());
        assert!(b.support_local(&Vector3::zeros()).is_none());
        assert!(b.support_local(&Vector3::new(nan, 1.0, 0.0)).is_none());
        assert_eq!(
            Cuboid::try_new(Vector3::new(1.0f32, -2.0, 3.0))
                .unwrap_err()
                .to_string(),
            "cuboid: half_extents = [1.0, -2.0, 3.0] is invalid (must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size))"
        );
        assert!(Cuboid::try_new(Vector3::new(1.0, nan, 3.0)).is_err());
        assert!(Cuboid::try_new(Vector3::new(inf, 1.0, 3.0)).is_err());
    }

    #[test]
    fn flat_and_point_boxes_answer() {
        // The square |x|, |y| <= 1 in z = 0.
        let flat = Cuboid::new(Vector3::new(1.0, 1.0, 0.0));
        let down = Ray::new(Point3::new(0.5, 0.0, 5.0), Vector3::new(0.0, 0.0, -1.0));
        assert_eq!(
            flat.ray_cast_local(&down, 10.0, true),
            hit(5.0, [0.0, 0.0, 1.0], 5)
        );
        // Hollow: the origin is outside, so the same entry.
        assert_eq!(
            flat.ray_cast_local(&down, 10.0, false),
            hit(5.0, [0.0, 0.0, 1.0], 5)
        );
        // In its plane: the rim at x = −1, t = 4.
        let grazing = Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0));
        assert_eq!(
            flat.ray_cast_local(&grazing, 10.0, true),
            hit(4.0, [-1.0, 0.0, 0.0], 0)
        );
        let projection = flat
            .closest_point_local(&Point3::new(0.5, 2.0, 3.0), true)
            .unwrap();
        assert_eq!(projection.point, Point3::new(0.5, 1.0, 0.0));
        assert!(!projection.is_inside);
        // A point of the square is on (inside) it; the boundary point is itself.
        let on = flat
            .closest_point_local(&Point3::new(0.5, 0.25, 0.0), false)
            .unwrap();
        assert_eq!((on.point, on.is_inside), (Point3::new(0.5, 0.25, 0.0), true));
        // A point box is hit head-on, at its position.
        let point = Cuboid::new(Vector3::zeros());
        let through = Ray::new(Point3::new(0.0, -3.0, 0.0), Vector3::new(0.0, 1.5, 0.0));
        assert_eq!(
            point.ray_cast_local(&through, 10.0, true),
            hit(2.0, [0.0, -1.0, 0.0], 2)
        );
        assert_eq!(
            point.support_local(&Vector3::new(1.0, -1.0, 0.0)),
            Some(Point3::origin())
        );
    }

    #[test]
    fn lanes_equal_scalar() {
        let half = Vector3::new(1.5, 0.5, 2.0);
        assert_lanes_match_scalar(&Cuboid::new(half.cast::<f32>()), &Cuboid::new(half), 2.0);
        let flat = Vector3::new(1.0, 0.0, 2.0);
        assert_lanes_match_scalar(&Cuboid::new(flat.cast::<f32>()), &Cuboid::new(flat), 2.0);
    }
}
