//! Applying poses with as little rounding as the precision allows.
//!
//! ```
//! use geom_core::PoseMatrix;
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A frame at (10, 0, 0) turned a quarter about z: its x axis points along world y.
//! let pose = Isometry3::new(Vector3::new(10.0, 0.0, 0.0), Vector3::z() * std::f64::consts::FRAC_PI_2);
//! let matrix = PoseMatrix::new(&pose);
//! assert!((matrix.point_to_world(&Point3::new(1.0, 0.0, 0.0)) - Point3::new(10.0, 1.0, 0.0)).norm() < 1e-12);
//! assert!((matrix.point_to_local(&Point3::new(10.0, 1.0, 0.0)) - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-12);
//! assert!((matrix.vector_to_local(&Vector3::y()) - Vector3::x()).norm() < 1e-12);
//! assert!(!matrix.is_translation());
//! ```

use nalgebra::{Isometry3, Matrix3, Point3, RealField, SimdBool, SimdValue, UnitQuaternion, Vector3};

use crate::exact::{offset_along, start_near_sphere_with_margin};
use crate::ray::{LaneHit, Ray};
use num_traits::One;

use crate::scalar::{Lane, LaneOrd, Real, all_finite, lit};

/// The rotation matrix of `q` from the homogeneous formula divided by `|q|²`
/// (Shoemake, "Animating Rotation with Quaternion Curves", 1985):
///
/// ```text
/// R = 1/|q|² · [ w²+x²−y²−z²   2(xy − wz)    2(xz + wy)
///                2(xy + wz)    w²−x²+y²−z²   2(yz − wx)
///                2(xz − wy)    2(yz + wx)    w²−x²−y²+z² ]
/// ```
///
/// A unit quaternion rounded to `N` is a little off unit length; dividing by
/// its actual `|q|²` keeps the matrix a rotation to rounding, and a
/// matrix–vector product then rounds about half as much as nalgebra's
/// quaternion sandwich (over 2·10⁵ random f32 rotations: p99 1.3 against
/// 2.5 `eps·|v|`).
#[inline]
pub fn rotation_matrix<N: Real>(q: &UnitQuaternion<N>) -> Matrix3<N> {
    let (w, x, y, z) = (q.w, q.i, q.j, q.k);
    let two = lit::<N>(2.0);
    let (ww, xx, yy, zz) = (w * w, x * x, y * y, z * z);
    let rows = Matrix3::new(
        ww + xx - yy - zz,
        two * (x * y - w * z),
        two * (x * z + w * y),
        two * (x * y + w * z),
        ww - xx + yy - zz,
        two * (y * z - w * x),
        two * (x * z - w * y),
        two * (y * z + w * x),
        ww - xx - yy + zz,
    );
    // One division and nine products rather than nine divisions (each a
    // long-latency instruction on every ray cast's path): the reciprocal
    // rounds once more, half an ulp per entry.
    rows * (N::one() / (ww + xx + yy + zz))
}

/// A pose as a rotation matrix and a translation, for transforming several
/// points and vectors with one matrix (see [`rotation_matrix`]). World to
/// local subtracts the translation before undoing the rotation, so a point
/// near a shape far from the origin keeps its bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoseMatrix<N: Real> {
    rotation: Matrix3<N>,
    translation: Vector3<N>,
    pure_translation: bool,
}

impl<N: Real> PoseMatrix<N> {
    /// The matrix form of `pose`.
    // Always inlined: a call leaves the matrix in memory stored by parts,
    // and the ray cast's first whole-vector reload of it stalled store
    // forwarding.
    #[inline(always)]
    pub fn new(pose: &Isometry3<N>) -> Self {
        let pure_translation = pose.rotation.quaternion().imag() == Vector3::zeros();
        PoseMatrix {
            rotation: rotation_matrix(&pose.rotation),
            translation: pose.translation.vector,
            pure_translation,
        }
    }

    /// Whether the pose only translates (its rotation is exactly the identity).
    pub fn is_translation(&self) -> bool {
        self.pure_translation
    }

    /// Whether the pose is exactly the identity.
    pub fn is_identity(&self) -> bool {
        self.pure_translation && self.translation == Vector3::zeros()
    }

    /// `Rᵀ v`: a world vector in the local frame.
    pub fn vector_to_local(&self, v: &Vector3<N>) -> Vector3<N> {
        self.vector_to_local_lanes(v)
    }

    /// [`PoseMatrix::vector_to_local`] on lanes (one vector per lane); the
    /// same arithmetic, so each lane equals the scalar answer bit for bit.
    #[inline]
    pub fn vector_to_local_lanes<T: Lane<Element = N>>(&self, v: &Vector3<T>) -> Vector3<T> {
        if self.pure_translation {
            *v
        } else {
            self.rotation.map(T::splat).tr_mul(v)
        }
    }

    /// [`PoseMatrix::vector_to_world`] on lanes (one vector per lane).
    #[inline]
    pub fn vector_to_world_lanes<T: Lane<Element = N>>(&self, v: &Vector3<T>) -> Vector3<T> {
        if self.pure_translation {
            *v
        } else {
            self.rotation.map(T::splat) * v
        }
    }

    /// `Rᵀ (p − t)`: a world point in the local frame.
    pub fn point_to_local(&self, p: &Point3<N>) -> Point3<N> {
        Point3::from(self.vector_to_local(&(p.coords - self.translation)))
    }

    /// `R v`: a local vector in world axes.
    pub fn vector_to_world(&self, v: &Vector3<N>) -> Vector3<N> {
        self.vector_to_world_lanes(v)
    }

    /// `R p + t`: a local point in the world.
    pub fn point_to_world(&self, p: &Point3<N>) -> Point3<N> {
        Point3::from(self.vector_to_world(&p.coords) + self.translation)
    }
}

/// A world ray brought into a shape's local frame by
/// [`PoseMatrix::ray_to_local`], one ray per lane: the local ray to cast,
/// the `max_t` to cast it with, and what [`PoseMatrix::hit_to_world`] needs
/// to give the answer back in world terms.
#[derive(Clone, Copy, Debug)]
pub struct LocalRay<T: Lane> {
    /// The ray in the local frame (restarted at `t_start` unless the pose is
    /// the identity).
    pub ray: Ray<T>,
    /// The `max_t` for the local cast.
    pub max_t: T,
    /// World time at which the local ray starts (zero for the identity),
    /// in units of the local `dir`.
    pub t_start: T,
    /// The power of two the world `dir` was multiplied by ([`dir_scale`]):
    /// a local time `t` is the world time `t · t_scale`.
    pub t_scale: T,
    /// Lanes that can hit at all: a finite world ray whose restart point
    /// does not already lie beyond `max_t`.
    pub usable: T::SimdBool,
}

/// Where a posed ray cast restarts its ray: the sphere around a shape's
/// local bounding box, its centre given as the world-axes offset from the
/// pose's translation ([`PoseMatrix::restart_sphere`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestartSphere<N: Real> {
    /// `R c`: the box's centre `c` in world axes, relative to the translation.
    pub offset: Vector3<N>,
    /// The box's half diagonal.
    pub radius: N,
}

impl<N: Real> PoseMatrix<N> {
    /// The [`RestartSphere`] of a shape whose local bounding box is `aabb`.
    #[inline(always)]
    pub fn restart_sphere(&self, aabb: &crate::Aabb<N>) -> RestartSphere<N> {
        RestartSphere {
            offset: self.vector_to_world(&aabb.center().coords),
            radius: aabb.half_extents().norm(),
        }
    }

    /// A world ray in the local frame of a shape whose local bounding box
    /// lies within `sphere` ([`PoseMatrix::restart_sphere`]), one ray per lane: the path
    /// behind [`Shape::ray_cast`](crate::Shape::ray_cast), shared by the
    /// scalar trait and the batch casts so that their lanes agree bit for bit.
    ///
    /// A `dir` with a component above 2¹⁶ is first scaled by a power of two
    /// ([`dir_scale`], exact; `hit_to_world` scales `t` back). The identity
    /// pose then passes the ray through untouched. Otherwise the
    /// local ray starts next to the shape, outside a sphere just larger than
    /// the box's ([`start_near_sphere`](crate::exact::start_near_sphere)),
    /// its start point computed from the world origin and the translation
    /// nearly exactly ([`offset_along`]), and a ray that passes that sphere
    /// by is a miss without a kernel call:
    /// subtracting a far translation in one rounding would move the ray
    /// sideways by an ulp of the distance, a large fraction of a small
    /// shape (a 0.01 sphere 10⁴ away saw its f32 normals off by 0.1), and
    /// undoing a rotation rounds in proportion to the length rotated. The
    /// local ray is cast without a
    /// bound: [`PoseMatrix::hit_to_world`] adds `t_start` back and only then
    /// cuts at `max_t`, so the subtraction `max_t − t_start` cannot round a
    /// hit at `max_t` away.
    // Always inlined: its by-value result, stored in pieces and reloaded
    // whole by the caller, stalled store forwarding (about 35 ns of a scalar
    // sphere cast when the function grew past the inliner's threshold).
    #[inline(always)]
    pub fn ray_to_local<T: Lane<Element = N>>(
        &self,
        ray: &Ray<T>,
        max_t: T,
        sphere: &RestartSphere<N>,
    ) -> LocalRay<T> {
        let translation = self.translation.map(T::splat);
        let moved = translated_ray_to_local(
            ray,
            &translation,
            &sphere.offset.map(T::splat),
            max_t,
            T::splat(sphere.radius),
            self.pure_translation,
        );
        LocalRay {
            ray: Ray::new(
                Point3::from(self.vector_to_local_lanes(&moved.ray.origin.coords)),
                self.vector_to_local_lanes(&moved.ray.dir),
            ),
            ..moved
        }
    }

    /// The local-frame `hit` of `local` (from [`PoseMatrix::ray_to_local`])
    /// as a world hit: `t_start` added back and cut at the world `max_t`,
    /// the normal rotated into world axes. Lanes whose local answer is not
    /// finite miss, as [`LaneHit::into_hit`] would have it.
    #[inline]
    pub fn hit_to_world<T: Lane<Element = N>>(
        &self,
        local: &LocalRay<T>,
        hit: &LaneHit<T>,
        max_t: T,
    ) -> LaneHit<T> {
        let moved = translated_hit_to_world(local, hit, max_t);
        LaneHit {
            normal: self.vector_to_world_lanes(&moved.normal),
            ..moved
        }
    }
}

/// A power of two `s` such that `s · dir` has its largest component within
/// about `[2⁻⁶⁶, 2¹⁶]`, for a `dir` whose largest component is outside
/// `[2⁻¹⁶, 2¹⁶]`; `1` otherwise (and for a zero or non-finite `dir`).
/// The ray kernels square `|dir|`, which overflows beyond the square root
/// of the largest float (1.8e19 in `f32`, 1.3e154 in `f64`) and underflows
/// below that of the smallest normal one; both left zero or non-unit
/// normals and spurious hits at `t = 0`. A power of two rescales exactly,
/// so `t` in units of the scaled `dir` is the world `t` divided by `s` bit
/// for bit (barring subnormal components, which carry no weight beside the
/// largest); and since the scalar trait call and the batch casts share this
/// path, they still agree bit for bit. Per lane, by halving exponents
/// (2⁵¹², 2²⁵⁶, …, 2¹⁶; factors beyond the precision's range are never
/// taken).
///
/// Cheap where it does nothing: when every lane's largest component is in
/// range (or zero), no step would be taken and none is computed; and the
/// steps whose factor is beyond the precision (2¹²⁸ and 2⁻¹²⁸ in `f32`) are
/// skipped on the element type, so that no lane multiplies by a subnormal
/// (a microcode assist per pack on x86, about 8 ns a ray of an 8-lane
/// batch when every pack paid it).
#[inline]
pub fn dir_scale<T: Lane>(dir: &Vector3<T>) -> T {
    let zero = T::zero();
    let largest = dir
        .x
        .simd_abs()
        .lane_max(dir.y.simd_abs())
        .lane_max(dir.z.simd_abs());
    let (low, high) = (lit::<T>(2f64.powi(-16)), lit::<T>(2f64.powi(16)));
    let in_range = (largest.simd_ge(low) & largest.simd_le(high)) | largest.simd_eq(zero);
    if in_range.all() {
        return T::one();
    }
    let largest_element = T::Element::max_value();
    let mut scale = T::one();
    for exponent in [512, 256, 128, 64, 32, 16] {
        // A factor `2^e` and its inverse are normal numbers of the
        // precision when `4 · 2^e` is finite (IEEE formats' exponent
        // ranges are symmetric to within two).
        let factor = lit::<T::Element>(2f64.powi(exponent));
        if largest_element.is_some_and(|max| factor * lit::<T::Element>(4.0) > max) {
            continue;
        }
        let (up, down) = (lit::<T>(2f64.powi(exponent)), lit::<T>(2f64.powi(-exponent)));
        let scaled = largest * scale;
        let above = scaled.simd_gt(up);
        let below = scaled.simd_lt(down) & scaled.simd_gt(zero);
        scale = (scale * down).select(above, (scale * up).select(below, scale));
    }
    scale
}

/// [`PoseMatrix::ray_to_local`] for a pure translation given per lane (one
/// ray and one translation per lane, as in a packet of shapes): the ray
/// restarted next to the shape, outside a sphere just larger than the one of
/// `radius` about `translation + centre_offset`
/// ([`start_near_sphere_with_margin`]), its start computed from the world
/// origin and the translation nearly exactly ([`offset_along`]); lanes that
/// pass that sphere by are not usable. With `allow_identity`, lanes whose
/// translation is zero pass the ray through untouched, as the identity pose
/// does.
#[inline(always)]
pub fn translated_ray_to_local<T: Lane>(
    ray: &Ray<T>,
    translation: &Vector3<T>,
    centre_offset: &Vector3<T>,
    max_t: T,
    radius: T,
    allow_identity: bool,
) -> LocalRay<T> {
    let zero = T::zero();
    let usable = all_finite(&ray.origin.coords) & all_finite(&ray.dir);
    let t_scale = dir_scale(&ray.dir);
    let dir = ray.dir * t_scale;
    let relative = ray.origin.coords - translation;
    // Only where to restart depends on the sphere's centre: any start near
    // the shape will do, so its rounding costs nothing.
    let (t_start, margin) = start_near_sphere_with_margin(&(relative - centre_offset), &dir, radius);
    let start = offset_along(&ray.origin, &Point3::from(*translation), &dir, t_start);
    // A restarted ray starts `margin` before its closest approach to the
    // centre, so `|start − centre|² = closest² + margin²`: where that
    // exceeds `margin² + (1.0625 radius)²` the closest approach lies beyond
    // the shape's sphere (the start is nearly exact, its rounding far below
    // the 6 % slack plus 2⁻¹⁹ of the centre offset's largest component,
    // more than 2⁻²⁰ of its length, without a square root) and the ray
    // misses. Such rays stop here; the others start within about 1.55 radii
    // of the centre, near enough that the kernels seldom restart again
    // (`RESTART_DISTANCE`).
    let offset_largest = centre_offset
        .x
        .simd_abs()
        .lane_max(centre_offset.y.simd_abs())
        .lane_max(centre_offset.z.simd_abs());
    let far_radius = radius * lit::<T>(1.0625) + offset_largest * lit::<T>(2f64.powi(-19));
    let passes_by = t_start.simd_gt(zero)
        & (start - centre_offset)
            .norm_squared()
            .simd_gt(margin * margin + far_radius * far_radius);
    let unbounded = T::splat(T::Element::max_value().unwrap_or_else(T::Element::one));
    let restarted = LocalRay {
        ray: Ray::new(Point3::from(start), dir),
        max_t: unbounded,
        t_start,
        t_scale,
        usable: usable & !passes_by & !(t_start * t_scale).simd_gt(max_t),
    };
    if !allow_identity {
        return restarted;
    }
    let identity = translation.x.simd_eq(zero) & translation.y.simd_eq(zero) & translation.z.simd_eq(zero);
    let unmoved = unmoved_ray(ray, translation, max_t);
    LocalRay {
        ray: Ray::new(unmoved.ray.origin.coords.select(identity, start).into(), dir),
        max_t: unmoved.max_t.select(identity, unbounded),
        t_start: unmoved.t_start.select(identity, t_start),
        t_scale,
        usable: (unmoved.usable & identity) | (restarted.usable & !identity),
    }
}

/// [`translated_ray_to_local`] for a pose whose rotation is the identity
/// and whose translation is zero (`translation` is `±0`): the ray passes
/// through untouched (its `dir` scaled by [`dir_scale`]), with nothing to
/// restart. The same bits as that function's answer for such a pose,
/// without computing the restart it discards (a static mesh or terrain,
/// most often at the identity, casts this way).
#[inline]
pub fn unmoved_ray<T: Lane>(ray: &Ray<T>, translation: &Vector3<T>, max_t: T) -> LocalRay<T> {
    let t_scale = dir_scale(&ray.dir);
    LocalRay {
        // `origin − ±0`, as the general path computes it (−0 − −0 is +0).
        ray: Ray::new(Point3::from(ray.origin.coords - translation), ray.dir * t_scale),
        max_t: max_t / t_scale,
        t_start: T::zero(),
        t_scale,
        usable: all_finite(&ray.origin.coords) & all_finite(&ray.dir),
    }
}

/// [`PoseMatrix::hit_to_world`] for a pure translation: `t_start` added back
/// and cut at the world `max_t`; non-finite answers miss.
#[inline]
pub fn translated_hit_to_world<T: Lane>(local: &LocalRay<T>, hit: &LaneHit<T>, max_t: T) -> LaneHit<T> {
    let zero = T::zero();
    let t = (local.t_start + hit.t) * local.t_scale;
    // Checked after scaling back: a tiny `dir` scaled up can have a finite
    // local `t` whose world value overflows.
    let finite = (t * zero).simd_eq(zero) & all_finite(&hit.normal);
    LaneHit {
        mask: hit.mask & local.usable & finite & t.simd_le(max_t),
        t,
        ..*hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simba::simd::{WideF32x8, WideF64x4};

    /// `dir_scale` per lane of mixed packs (one lane huge, one tiny, one
    /// subnormal, the rest ordinary, zero, infinite or NaN) equals the
    /// scalar answer, is a power of two, and brings finite non-zero
    /// directions' largest component into `[2⁻⁶⁶, 2¹⁶]` (ordinary ones keep
    /// `1`): the early exit and the steps skipped on the element type
    /// change no bit.
    #[test]
    fn dir_scale_lanes_equal_scalars_and_reach_the_range() {
        let values = [
            1.0,
            3e30,
            2e-30,
            1e-40,
            7e4,
            1e-5,
            0.0,
            f64::INFINITY,
            f64::NAN,
            1e300,
            1e-300,
            0.25,
        ];
        fn check<N: Real + Into<f64> + num_traits::Float>(largest: f64, scale: N) {
            let (largest, scale): (f64, f64) = (largest, scale.into());
            assert!(
                scale > 0.0 && scale.log2().fract() == 0.0,
                "{largest:e}: {scale:e}"
            );
            let scaled = largest * scale;
            if (2f64.powi(-16)..=2f64.powi(16)).contains(&largest) || largest == 0.0 || !largest.is_finite() {
                if largest.is_finite() {
                    assert_eq!(scale, 1.0, "{largest:e}");
                }
            } else if largest >= <N as num_traits::Float>::min_positive_value().into() {
                assert!(
                    (2f64.powi(-66)..=2f64.powi(16)).contains(&scaled),
                    "{largest:e}: {scale:e}"
                );
            }
        }
        for start in 0..values.len() {
            let pick = |k: usize| values[(start + k) % values.len()];
            let lanes32 = Vector3::new(
                WideF32x8::from(std::array::from_fn::<f32, 8, _>(|k| pick(k) as f32)),
                WideF32x8::from(std::array::from_fn::<f32, 8, _>(|k| 0.5 * pick(k + 3) as f32)),
                WideF32x8::splat(0.0),
            );
            let scales32 = dir_scale(&lanes32);
            let lanes64 = Vector3::new(
                WideF64x4::from(std::array::from_fn::<f64, 4, _>(pick)),
                WideF64x4::from(std::array::from_fn::<f64, 4, _>(|k| 0.5 * pick(k + 3))),
                WideF64x4::splat(0.0),
            );
            let scales64 = dir_scale(&lanes64);
            for k in 0..8 {
                let dir = Vector3::new(lanes32.x.extract(k), lanes32.y.extract(k), 0.0f32);
                let scalar = dir_scale(&dir);
                assert_eq!(scalar.to_bits(), scales32.extract(k).to_bits(), "{dir:?}");
                check(dir.x.abs().max(dir.y.abs()) as f64, scalar);
            }
            for k in 0..4 {
                let dir = Vector3::new(lanes64.x.extract(k), lanes64.y.extract(k), 0.0f64);
                let scalar = dir_scale(&dir);
                assert_eq!(scalar.to_bits(), scales64.extract(k).to_bits(), "{dir:?}");
                check(dir.x.abs().max(dir.y.abs()), scalar);
            }
        }
    }

    /// The identity pose's shortcut (`unmoved_ray`, taken by
    /// `ray_cast_posed`) gives the general path's local ray bit for bit:
    /// translations `+0` and `−0`, origins with signed zeros, directions
    /// that `dir_scale` rescales, finite and infinite `max_t`, and rays
    /// that are not finite.
    #[test]
    fn the_identity_shortcut_is_the_general_path() {
        fn bits(local: &LocalRay<f32>) -> ([u32; 9], bool) {
            let o = local.ray.origin;
            let d = local.ray.dir;
            let v = [
                o.x,
                o.y,
                o.z,
                d.x,
                d.y,
                d.z,
                local.max_t,
                local.t_start,
                local.t_scale,
            ];
            (v.map(f32::to_bits), local.usable)
        }
        let mut rng = geom_random::Rng::from_state(0x1D_E471);
        let sphere = RestartSphere {
            offset: Vector3::new(0.5, -0.25, 2.0),
            radius: 3.0,
        };
        for k in 0..4000 {
            let mut origin = [0, 1, 2].map(|_| rng.range(-50.0, 50.0) as f32);
            let mut dir = [0, 1, 2].map(|_| rng.range(-1.0, 1.0) as f32);
            match k % 8 {
                0 => origin = [-0.0, 0.0, -0.0],
                1 => dir[k / 8 % 3] *= 1e30,
                2 => dir = dir.map(|c| c * 1e-30),
                3 => dir[1] = 0.0,
                4 => origin[2] = f32::NAN,
                _ => {}
            }
            let ray = Ray::new(Point3::from(origin), Vector3::from(dir));
            let max_t = [f32::INFINITY, 10.0, f32::MAX, 0.0][k % 4];
            let translation = if k % 2 == 0 {
                Vector3::zeros()
            } else {
                Vector3::new(-0.0, -0.0, -0.0)
            };
            let pose = Isometry3::from_parts(translation.into(), nalgebra::UnitQuaternion::identity());
            let matrix = PoseMatrix::new(&pose);
            let general = matrix.ray_to_local(&ray, max_t, &sphere);
            let shortcut = unmoved_ray(&ray, &translation, max_t);
            assert_eq!(bits(&general), bits(&shortcut), "{ray:?} {max_t} {translation:?}");
        }
    }

    #[test]
    fn matrix_matches_nalgebra_and_round_trips() {
        let pose = Isometry3::from_parts(
            Vector3::new(1e6, -2.0, 3.0).into(),
            UnitQuaternion::from_euler_angles(0.3, -1.1, 2.0),
        );
        let matrix = PoseMatrix::new(&pose);
        let p = Point3::new(1e6 + 0.5, -1.0, 2.5);
        let local = matrix.point_to_local(&p);
        let reference = pose.inverse_transform_point(&p);
        assert!((local - reference).norm() < 1e-9);
        assert!((matrix.point_to_world(&local) - p).norm() < 1e-9);
        let r = rotation_matrix(&pose.rotation);
        assert!((r - pose.rotation.to_rotation_matrix().matrix()).amax() < 1e-15);
        assert!((r.transpose() * r - Matrix3::identity()).amax() < 1e-15);
    }

    #[test]
    fn identity_and_translations_are_exact() {
        let pose = Isometry3::translation(1e6f32, 0.25, -3.0);
        let matrix = PoseMatrix::new(&pose);
        assert!(matrix.is_translation());
        let p = Point3::new(1e6f32 + 0.5, 1.0, 2.0);
        assert_eq!(matrix.point_to_local(&p), Point3::new(0.5, 0.75, 5.0));
        assert_eq!(
            rotation_matrix(&UnitQuaternion::<f32>::identity()),
            Matrix3::identity()
        );
    }

    /// The rotation, measured in f64 against the f32 path on the f32
    /// quaternion's own components: within 2.5 eps·|v| at worst.
    #[test]
    fn f32_rotation_rounds_within_a_few_eps() {
        let mut rng = geom_random::Rng::from_state(0x9E37_79B9u64);
        let mut next = move || rng.range(-1.0, 1.0) as f32;
        let mut worst = 0.0f64;
        for _ in 0..20_000 {
            let q = UnitQuaternion::new_normalize(nalgebra::Quaternion::new(next(), next(), next(), next()));
            let v = Vector3::new(next(), next(), next());
            let exact = UnitQuaternion::new_normalize(q.quaternion().cast::<f64>())
                .inverse_transform_vector(&v.cast::<f64>());
            let ours = rotation_matrix(&q).tr_mul(&v).cast::<f64>();
            worst = worst.max((ours - exact).amax() / (v.cast::<f64>().norm() * f32::EPSILON as f64));
        }
        assert!(worst <= 2.5, "worst {worst} eps·|v|");
    }
}
