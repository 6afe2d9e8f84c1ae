//! Axis-aligned bounding boxes.
//!
//! ```
//! use geom_core::Aabb;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! let points = [Point3::new(1.0, 0.0, 0.0), Point3::new(3.0, 2.0, 1.0), Point3::new(2.0, -1.0, 0.5)];
//! let b = Aabb::from_points(&points).unwrap();
//! // The smallest and largest coordinate on each axis.
//! assert_eq!(b, Aabb::new(Point3::new(1.0, -1.0, 0.0), Point3::new(3.0, 2.0, 1.0)));
//! assert_eq!(b.center(), Point3::new(2.0, 0.5, 0.5));
//! assert!(b.contains_point(&Point3::new(2.0, 0.0, 0.5)));
//! // A quarter turn about z maps (x, y) to (-y, x): x ∈ [-2, 1], y ∈ [1, 3].
//! let turned = b.transformed(&Isometry3::rotation(Vector3::z() * std::f64::consts::FRAC_PI_2));
//! assert!((turned.mins - Point3::new(-2.0, 1.0, 0.0)).norm() < 1e-12);
//! assert!((turned.maxs - Point3::new(1.0, 3.0, 1.0)).norm() < 1e-12);
//! ```

use nalgebra::{Isometry3, Point3, Vector3};

use crate::ray::Ray;
use crate::scalar::Real;

/// An axis-aligned box `mins ..= maxs`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb<N: Real> {
    /// The corner with the smallest coordinates.
    pub mins: Point3<N>,
    /// The corner with the largest coordinates.
    pub maxs: Point3<N>,
}

impl<N: Real> Aabb<N> {
    /// The box spanning `mins ..= maxs` (the caller keeps `mins <= maxs`).
    pub fn new(mins: Point3<N>, maxs: Point3<N>) -> Self {
        Aabb { mins, maxs }.unbounded_where_nan()
    }

    /// The box with every NaN bound replaced by the infinite one: where
    /// rotating a shape near the overflow limit made `∞ − ∞`, the box
    /// still holds the shape (it spans the whole axis).
    fn unbounded_where_nan(self) -> Self {
        // The common case, no NaN, tested without a branch per bound.
        let nan = self
            .bounds()
            .iter()
            .fold(false, |nan, c| nan | c.partial_cmp(c).is_none());
        if !nan {
            return self;
        }
        let widen = |value: N, unbounded: f64| {
            if value.partial_cmp(&value).is_none() {
                nalgebra::convert::<f64, N>(unbounded)
            } else {
                value
            }
        };
        Aabb {
            mins: self.mins.map(|c| widen(c, f64::NEG_INFINITY)),
            maxs: self.maxs.map(|c| widen(c, f64::INFINITY)),
        }
    }

    /// The box `center ± half_extents`.
    pub fn from_half_extents(center: Point3<N>, half_extents: Vector3<N>) -> Self {
        Aabb {
            mins: center - half_extents,
            maxs: center + half_extents,
        }
    }

    /// The smallest box holding every point (`None` for no points).
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Point3<N>>) -> Option<Self> {
        let mut iter = points.into_iter();
        let first = *iter.next()?;
        Some(iter.fold(Aabb::new(first, first), |b, p| b.including(p)))
    }

    /// This box grown to include `point`.
    pub fn including(&self, point: &Point3<N>) -> Self {
        Aabb {
            mins: self.mins.inf(point),
            maxs: self.maxs.sup(point),
        }
    }

    /// The smallest box holding both.
    pub fn merged(&self, other: &Self) -> Self {
        Aabb {
            mins: self.mins.inf(&other.mins),
            maxs: self.maxs.sup(&other.maxs),
        }
    }

    /// The centre.
    pub fn center(&self) -> Point3<N> {
        // Halves first: `mins + maxs` overflows for boxes near the largest float.
        let half = nalgebra::convert::<f64, N>(0.5);
        Point3::from(self.mins.coords * half + self.maxs.coords * half)
    }

    /// Half the size along each axis.
    pub fn half_extents(&self) -> Vector3<N> {
        // Halves first: `maxs − mins` overflows for boxes near the largest float.
        let half = nalgebra::convert::<f64, N>(0.5);
        self.maxs.coords * half - self.mins.coords * half
    }

    /// The radius of the smallest origin-centred sphere holding the box:
    /// how far a local shape reaches from its frame's origin.
    pub fn origin_reach(&self) -> N {
        self.mins.coords.abs().sup(&self.maxs.coords.abs()).norm()
    }

    /// This box grown by `margin` on every side.
    pub fn loosened(&self, margin: N) -> Self {
        let m = Vector3::repeat(margin);
        Aabb {
            mins: self.mins - m,
            maxs: self.maxs + m,
        }
    }

    /// The squared distance from `point` to the box (zero inside or on
    /// it).
    #[inline]
    pub fn distance_squared_to_point(&self, point: &Point3<N>) -> N {
        let mut total = N::zero();
        for axis in 0..3 {
            let below = self.mins[axis] - point[axis];
            let above = point[axis] - self.maxs[axis];
            let d = if below > above { below } else { above };
            let d = if d > N::zero() { d } else { N::zero() };
            total += d * d;
        }
        total
    }

    /// Whether `point` is inside or on the box.
    pub fn contains_point(&self, point: &Point3<N>) -> bool {
        (0..3).all(|i| self.mins[i] <= point[i] && point[i] <= self.maxs[i])
    }

    /// Whether every bound is finite (false for a half-space's box, or a
    /// NaN bound).
    pub fn is_bounded(&self) -> bool {
        // Every bound tested (no early exit): six tests without branches.
        self.bounds()
            .iter()
            .fold(true, |bounded, c| bounded & c.is_finite())
    }

    /// The six bounds, `mins` then `maxs`.
    fn bounds(&self) -> [N; 6] {
        let (a, b) = (&self.mins, &self.maxs);
        [a.x, a.y, a.z, b.x, b.y, b.z]
    }

    /// Whether `other` lies inside or on this box (false when a bound of
    /// either is NaN).
    #[inline]
    pub fn contains_aabb(&self, other: &Self) -> bool {
        // Every comparison made and joined by `&`, as in `intersects` (the
        // compiler may still branch where the answer chooses a path, as
        // in a world's `set_pose`, where it mostly holds).
        let mut inside = true;
        for i in 0..3 {
            inside &= (self.mins[i] <= other.mins[i]) & (other.maxs[i] <= self.maxs[i]);
        }
        inside
    }

    /// Whether the boxes overlap or touch.
    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        // All six comparisons, joined by `&` rather than `&&`: no branch
        // (a broad phase's box tests fail about as often as they pass, at
        // any of the six, which no branch predictor guesses).
        let mut overlap = true;
        for i in 0..3 {
            overlap &= (self.mins[i] <= other.maxs[i]) & (other.mins[i] <= self.maxs[i]);
        }
        overlap
    }

    /// The world box of this local box under `pose`: the centre is moved and
    /// the half extents are mapped through `|R|` (exact bound of the rotated
    /// box, Ericson RTCD §4.2.6).
    #[inline]
    pub fn transformed(&self, pose: &Isometry3<N>) -> Self {
        let half = abs_rotation_times(pose, &self.half_extents());
        // A box centred on the local origin (most shapes') moves with the
        // translation alone: rotating the zero vector is exact, and skipped.
        let local_center = self.center();
        let center = if local_center == Point3::origin() {
            Point3::from(pose.translation.vector)
        } else {
            pose * local_center
        };
        let moved = Aabb::from_half_extents(center, half);
        // A finite result comes from a bounded box at a finite pose (an
        // infinite bound makes an infinite or NaN one): the common case,
        // with one test.
        if moved.is_bounded() {
            return moved;
        }
        if !self.is_bounded() {
            return self.transformed_unbounded(pose);
        }
        moved.unbounded_where_nan()
    }

    /// The world box under `pose` of the local box `±half` around the
    /// origin (a cuboid's, an ellipsoid's): [`Aabb::transformed`] of that
    /// box without forming it, for the shapes whose box is asked at every
    /// move.
    #[inline]
    pub fn centred_transformed(half: &Vector3<N>, pose: &Isometry3<N>) -> Self {
        let center = Point3::from(pose.translation.vector);
        let moved = Aabb::from_half_extents(center, abs_rotation_times(pose, half));
        if moved.is_bounded() {
            return moved;
        }
        Aabb::from_half_extents(Point3::origin(), *half).transformed(pose)
    }

    /// [`Aabb::transformed`] for a box reaching infinity (a shape whose
    /// size overflows): interval arithmetic per rotation entry (Arvo,
    /// "Transforming Axis-Aligned Bounding Boxes", 1990), skipping zero
    /// entries so that `0 · ∞` never makes a NaN.
    fn transformed_unbounded(&self, pose: &Isometry3<N>) -> Self {
        let rotation = pose.rotation.to_rotation_matrix();
        let mut mins = Point3::from(pose.translation.vector);
        let mut maxs = mins;
        for i in 0..3 {
            for j in 0..3 {
                let weight = rotation[(i, j)];
                if weight == N::zero() {
                    continue;
                }
                let (low, high) = (weight * self.mins[j], weight * self.maxs[j]);
                mins[i] += low.min(high);
                maxs[i] += low.max(high);
            }
        }
        // Opposite infinities (terms of both signs beyond the float limit)
        // sum to NaN: that side is unbounded.
        Aabb { mins, maxs }.unbounded_where_nan()
    }

    /// The parameter interval `[t_enter, t_exit]` where the ray is inside the
    /// box, clipped to `[0, max_t]` (slab test, Williams et al. 2005).
    /// `None` when the ray misses.
    pub fn ray_interval(&self, ray: &Ray<N>, max_t: N) -> Option<(N, N)> {
        let mut t_enter = N::zero();
        let mut t_exit = max_t;
        for i in 0..3 {
            let inverse = N::one() / ray.dir[i];
            let mut t0 = (self.mins[i] - ray.origin[i]) * inverse;
            let mut t1 = (self.maxs[i] - ray.origin[i]) * inverse;
            if ray.dir[i] == N::zero() {
                // Parallel to the slab: inside it for all t, or never.
                if ray.origin[i] < self.mins[i] || ray.origin[i] > self.maxs[i] {
                    return None;
                }
                continue;
            }
            if t0 > t1 {
                std::mem::swap(&mut t0, &mut t1);
            }
            t_enter = t_enter.max(t0);
            t_exit = t_exit.min(t1);
        }
        (t_enter <= t_exit).then_some((t_enter, t_exit))
    }
}

/// `|R| v` for the rotation `R` of `pose`: the entries of `R` are
/// nalgebra's `to_rotation_matrix` (the same operations, so the same
/// bits), written out so that no matrix is stored.
#[inline]
fn abs_rotation_times<N: Real>(pose: &Isometry3<N>, v: &Vector3<N>) -> Vector3<N> {
    let q = &pose.rotation.as_ref().coords;
    let (i, j, k, w) = (q[0], q[1], q[2], q[3]);
    let two = nalgebra::convert::<f64, N>(2.0);
    let (ww, ii, jj, kk) = (w * w, i * i, j * j, k * k);
    let (ij, wk, wj) = (i * j * two, w * k * two, w * j * two);
    let (ik, jk, wi) = (i * k * two, j * k * two, w * i * two);
    let row = |a: N, b: N, c: N| a.abs() * v.x + b.abs() * v.y + c.abs() * v.z;
    Vector3::new(
        row(ww + ii - jj - kk, ij - wk, wj + ik),
        row(wk + ij, ww - ii + jj - kk, jk - wi),
        row(ik - wj, wi + jk, ww - ii - jj + kk),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{UnitQuaternion, Vector3};

    /// Against the distance to the nearest of dense samples of the box's
    /// surface and its interior's answer, zero.
    #[test]
    fn distance_to_a_point_is_that_of_the_nearest_box_point() {
        let aabb = Aabb::new(Point3::new(-1.0, 0.0, 2.0), Point3::new(3.0, 0.5, 4.0));
        let mut rng = geom_random::Rng::new(3);
        let n = 40;
        for _ in 0..200 {
            let point = Point3::from(rng.vector(6.0));
            let mut nearest = f64::INFINITY;
            for i in 0..=n {
                for j in 0..=n {
                    for k in 0..=n {
                        let t = Vector3::new(i, j, k).map(|v| v as f64 / n as f64);
                        let q = aabb.mins + (aabb.maxs - aabb.mins).component_mul(&t);
                        nearest = nearest.min((point - q).norm_squared());
                    }
                }
            }
            let d = aabb.distance_squared_to_point(&point);
            if aabb.contains_point(&point) {
                assert_eq!(d, 0.0);
            }
            // The samples are at most half a step (0.1 by 0.0125 by 0.05)
            // from the nearest box point.
            assert!(
                d <= nearest && nearest.sqrt() - d.sqrt() <= 0.06,
                "{point:?}: {d} vs {nearest}"
            );
        }
        assert_eq!(
            aabb.distance_squared_to_point(&Point3::new(4.0, 2.5, 0.0)),
            1.0 + 4.0 + 4.0
        );
    }

    #[test]
    fn transformed_box_holds_every_transformed_corner() {
        let local = Aabb::new(Point3::new(-1.0, -2.0, -0.5), Point3::new(3.0, 1.0, 0.5));
        let pose = Isometry3::from_parts(
            Vector3::new(10.0, -4.0, 2.0).into(),
            UnitQuaternion::from_euler_angles(0.3, -1.1, 2.0),
        );
        let world = local.transformed(&pose);
        let mut tight: Option<Aabb<f64>> = None;
        for corner in 0..8 {
            let p = Point3::new(
                if corner & 1 == 0 {
                    local.mins.x
                } else {
                    local.maxs.x
                },
                if corner & 2 == 0 {
                    local.mins.y
                } else {
                    local.maxs.y
                },
                if corner & 4 == 0 {
                    local.mins.z
                } else {
                    local.maxs.z
                },
            );
            let q = pose * p;
            assert!(world.loosened(1e-12).contains_point(&q));
            tight = Some(tight.map_or(Aabb::new(q, q), |b| b.including(&q)));
        }
        let tight = tight.unwrap();
        assert!((tight.mins - world.mins).norm() < 1e-12);
        assert!((tight.maxs - world.maxs).norm() < 1e-12);
    }

    #[test]
    fn abs_rotation_is_the_rotation_matrix_made_absolute() {
        // The written-out entries against nalgebra's matrix, bit for bit,
        // in both precisions (non-unit quaternions included: a pose read
        // from a file need not be normalised to the last bit).
        let mut rng = geom_random::Rng::new(3);
        for _ in 0..2000 {
            let q = nalgebra::Quaternion::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            let rotation = UnitQuaternion::new_unchecked(q * rng.range(0.999, 1.001));
            let pose = Isometry3::from_parts(Vector3::new(1.0, 2.0, 3.0).into(), rotation);
            let half = Vector3::new(rng.range(0.0, 5.0), rng.range(0.0, 1e-3), rng.range(0.0, 1e3));
            let expected = rotation.to_rotation_matrix().matrix().abs() * half;
            assert_eq!(
                abs_rotation_times(&pose, &half).map(f64::to_bits),
                expected.map(f64::to_bits)
            );
            let pose32: Isometry3<f32> = nalgebra::convert(pose);
            let half32: Vector3<f32> = nalgebra::convert(half);
            let expected32 = pose32.rotation.to_rotation_matrix().matrix().abs() * half32;
            assert_eq!(
                abs_rotation_times(&pose32, &half32).map(f32::to_bits),
                expected32.map(f32::to_bits)
            );
        }
    }

    #[test]
    fn centred_transformed_is_transformed_of_the_centred_box() {
        // Bit for bit, including half extents of zero, near the overflow
        // limit and infinite, and non-finite poses (every bound then
        // finite or infinite, never NaN).
        let mut rng = geom_random::Rng::new(4);
        let sizes = [0.0, 1e-3, 1.0, 7.5, 1e300, f64::MAX, f64::INFINITY];
        for case in 0..3000 {
            let mut half = Vector3::from_fn(|_, _| sizes[rng.below(sizes.len())] * rng.range(0.5, 1.0));
            if case % 3 == 0 {
                half = Vector3::new(rng.range(0.0, 2.0), rng.range(0.0, 2.0), rng.range(0.0, 2.0));
            }
            let rotation = if case % 7 == 0 {
                UnitQuaternion::identity()
            } else {
                UnitQuaternion::from_scaled_axis(Vector3::new(
                    rng.range(-3.0, 3.0),
                    rng.range(-3.0, 3.0),
                    rng.range(-3.0, 3.0),
                ))
            };
            let mut translation =
                Vector3::new(rng.range(-1e3, 1e3), rng.range(-1e3, 1e3), rng.range(-1e3, 1e3));
            if case % 11 == 0 {
                translation[rng.below(3)] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][rng.below(3)];
            }
            let pose = Isometry3::from_parts(translation.into(), rotation);
            let bits = |b: &Aabb<f64>| {
                b.mins
                    .iter()
                    .chain(b.maxs.iter())
                    .map(|c| c.to_bits())
                    .collect::<Vec<_>>()
            };
            let direct = Aabb::centred_transformed(&half, &pose);
            let general = Aabb::from_half_extents(Point3::origin(), half).transformed(&pose);
            assert_eq!(bits(&direct), bits(&general), "{half:?} {pose:?}");
            assert!(direct.mins.iter().chain(direct.maxs.iter()).all(|c| !c.is_nan()));
            let (pose32, half32): (Isometry3<f32>, Vector3<f32>) =
                (nalgebra::convert(pose), nalgebra::convert(half));
            let direct32 = Aabb::centred_transformed(&half32, &pose32);
            let general32 = Aabb::from_half_extents(Point3::origin(), half32).transformed(&pose32);
            assert_eq!(direct32, general32, "{half32:?} {pose32:?}");
        }
    }

    #[test]
    fn ray_interval_matches_marching() {
        let b = Aabb::new(Point3::new(-1.0, -1.0, -1.0), Point3::new(1.0, 2.0, 3.0));
        let ray = Ray::new(Point3::new(-5.0, 0.5, 0.0), Vector3::new(1.0, 0.1, 0.2));
        let (t0, t1) = b.ray_interval(&ray, 100.0).unwrap();
        let inside = |t: f64| b.contains_point(&ray.point_at(t));
        assert!(inside(t0 + 1e-9) && !inside(t0 - 1e-9));
        assert!(inside(t1 - 1e-9) && !inside(t1 + 1e-9));
        let parallel_outside = Ray::new(Point3::new(-5.0, 5.0, 0.0), Vector3::new(1.0, 0.0, 0.0));
        assert!(b.ray_interval(&parallel_outside, 100.0).is_none());
    }
}
