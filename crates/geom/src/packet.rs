//! One ray against a packet of shapes of one kind, one shape per lane: the
//! leaf test of a broadphase (eight f32 shapes in `WideF32x8`, four f64
//! shapes in `WideF64x4`).
//!
//! Each lane runs the shape's own kernel on exactly the local ray the scalar
//! trait call builds, so the nearest hit equals the best of the separate
//! [`Shape::ray_cast`] calls bit for bit.
//!
//! ```
//! use geom::prelude::*;
//! use geom::SpherePacket;
//! use geom::simba::simd::WideF32x8;
//!
//! // Eight balls along x; a ray down the x axis meets the nearest first.
//! let balls: Vec<_> = (0..8).map(|k| (Point3::new(3.0 + 2.0 * k as f32, 0.0, 0.0), Sphere::new(0.5))).collect();
//! let packet = SpherePacket::<WideF32x8>::new(&balls);
//! let ray = Ray::new(Point3::origin(), Vector3::x());
//! let (index, hit) = packet.ray_cast(&ray, f32::MAX, true).unwrap();
//! assert_eq!((index, hit.t), (0, 2.5));
//! ```

use geom_core::pose::{translated_hit_to_world, translated_ray_to_local};
use geom_core::{Lane, LaneHit, Ray, RayHit, Shape};
use geom_prims::capsule::ray_cast_capsule;
use geom_prims::cuboid::ray_cast_cuboid;
use geom_prims::sphere::ray_cast_sphere;
use geom_prims::{Capsule, Cuboid, Sphere};
use nalgebra::{Point3, SimdBool, Vector3};

use crate::batch::Pack;

/// A shape placed at a world centre (a pure translation).
pub type Centered<N, S> = (Point3<N>, S);

/// Lane `k` of a pack built from `values` (padded with the first value,
/// or zero for an empty list).
fn pack_of<T: Pack>(values: impl Iterator<Item = T::Element>) -> T {
    let mut lanes = [nalgebra::zero::<T::Element>(); 8];
    let mut count = 0;
    for (slot, value) in lanes.iter_mut().zip(values) {
        *slot = value;
        count += 1;
    }
    for k in count.max(1)..T::LANES {
        lanes[k] = lanes[0];
    }
    T::load(&lanes[..T::LANES])
}

/// The nearest lane among the first `len` whose answer is a hit (finite, as
/// the scalar trait returns it), the lowest index on ties.
fn nearest<T: Lane>(hit: &LaneHit<T>, len: usize) -> Option<(usize, RayHit<T::Element>)> {
    let mut bits = hit.mask.bitmask() & ((1u64 << len) - 1);
    let mut best: Option<(usize, RayHit<T::Element>)> = None;
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        if let Some(candidate) = hit.extract(i)
            && best.as_ref().is_none_or(|(_, b)| candidate.t < b.t)
        {
            best = Some((i, candidate));
        }
    }
    best
}

/// The ray's lanes relative to per-lane centres, or `None` for a ray with
/// a NaN or infinity (which the trait call rejects).
fn relative_ray<T: Pack>(ray: &Ray<T::Element>, centers: &Point3<T>) -> Option<Ray<T>> {
    ray.is_finite().then(|| {
        let origin = ray.origin.map(T::splat);
        Ray::new(Point3::from(origin - centers), ray.dir.map(T::splat))
    })
}

/// Casts `ray` at shapes translated to per-lane `centers` exactly as the
/// trait call with the pose `Isometry3::translation(centre)` does
/// ([`translated_ray_to_local`], [`translated_hit_to_world`]): `cast` runs
/// the kernel on the local ray with the local `max_t`.
fn cast_translated<T: Pack>(
    ray: &Ray<T::Element>,
    centers: &Point3<T>,
    reach: T,
    max_t: T::Element,
    cast: impl FnOnce(&Ray<T>, T) -> LaneHit<T>,
) -> Option<LaneHit<T>> {
    if !ray.is_finite() {
        return None;
    }
    let world = Ray::new(ray.origin.map(T::splat), ray.dir.map(T::splat));
    let max_t = T::splat(max_t);
    // Sphere and box packets are centred on their local origins: the
    // restart sphere's centre is the translation itself.
    let local = translated_ray_to_local(&world, &centers.coords, &Vector3::zeros(), max_t, reach, true);
    let hit = cast(&local.ray, local.max_t);
    Some(translated_hit_to_world(&local, &hit, max_t))
}

/// Up to `T::LANES` spheres, each at its own centre.
#[derive(Clone, Copy, Debug)]
pub struct SpherePacket<T: Pack> {
    centers: Point3<T>,
    radii: T,
    reach: T,
    len: usize,
}

impl<T: Pack> SpherePacket<T> {
    /// The packet of `(centre, sphere)` pairs, in order.
    ///
    /// # Panics
    /// With more than `T::LANES` spheres.
    pub fn new(spheres: &[Centered<T::Element, Sphere<T::Element>>]) -> Self {
        assert!(
            spheres.len() <= T::LANES,
            "at most {} spheres per packet",
            T::LANES
        );
        SpherePacket {
            centers: Point3::from(Vector3::from_fn(|k, _| {
                pack_of(spheres.iter().map(|(c, _)| c[k]))
            })),
            radii: pack_of(spheres.iter().map(|(_, s)| s.radius)),
            reach: pack_of(spheres.iter().map(|(_, s)| s.local_aabb().half_extents().norm())),
            len: spheres.len(),
        }
    }

    /// Number of spheres.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the packet holds no sphere.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The nearest hit and the index of the sphere hit; each lane answers
    /// as `Sphere::ray_cast` with the pose `Isometry3::translation(centre)`.
    pub fn ray_cast(
        &self,
        ray: &Ray<T::Element>,
        max_t: T::Element,
        solid: bool,
    ) -> Option<(usize, RayHit<T::Element>)> {
        let hit = cast_translated(ray, &self.centers, self.reach, max_t, |local, local_max_t| {
            ray_cast_sphere(local, self.radii, local_max_t, solid)
        })?;
        nearest(&hit, self.len)
    }
}

/// Up to `T::LANES` capsules, each given by its world endpoints.
#[derive(Clone, Copy, Debug)]
pub struct CapsulePacket<T: Pack> {
    a: Point3<T>,
    b: Point3<T>,
    radii: T,
    len: usize,
}

impl<T: Pack> CapsulePacket<T> {
    /// The packet of `capsules` (endpoints in world space), in order.
    ///
    /// # Panics
    /// With more than `T::LANES` capsules.
    pub fn new(capsules: &[Capsule<T::Element>]) -> Self {
        assert!(
            capsules.len() <= T::LANES,
            "at most {} capsules per packet",
            T::LANES
        );
        CapsulePacket {
            a: Point3::from(Vector3::from_fn(|k, _| pack_of(capsules.iter().map(|c| c.a[k])))),
            b: Point3::from(Vector3::from_fn(|k, _| pack_of(capsules.iter().map(|c| c.b[k])))),
            radii: pack_of(capsules.iter().map(|c| c.radius)),
            len: capsules.len(),
        }
    }

    /// Number of capsules.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the packet holds no capsule.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The nearest hit and the index of the capsule hit; each lane answers
    /// as `Capsule::ray_cast` with the identity pose.
    pub fn ray_cast(
        &self,
        ray: &Ray<T::Element>,
        max_t: T::Element,
        solid: bool,
    ) -> Option<(usize, RayHit<T::Element>)> {
        let local = relative_ray(ray, &Point3::origin())?;
        let hit = ray_cast_capsule(&local, &self.a, &self.b, self.radii, T::splat(max_t), solid);
        nearest(&hit, self.len)
    }
}

/// Up to `T::LANES` axis-aligned boxes, each at its own centre (the leaves
/// of a bounding-volume tree; rotated boxes go through the trait).
#[derive(Clone, Copy, Debug)]
pub struct CuboidPacket<T: Pack> {
    centers: Point3<T>,
    half_extents: Vector3<T>,
    reach: T,
    len: usize,
}

impl<T: Pack> CuboidPacket<T> {
    /// The packet of `(centre, cuboid)` pairs, in order.
    ///
    /// # Panics
    /// With more than `T::LANES` boxes.
    pub fn new(cuboids: &[Centered<T::Element, Cuboid<T::Element>>]) -> Self {
        assert!(cuboids.len() <= T::LANES, "at most {} boxes per packet", T::LANES);
        CuboidPacket {
            centers: Point3::from(Vector3::from_fn(|k, _| {
                pack_of(cuboids.iter().map(|(c, _)| c[k]))
            })),
            half_extents: Vector3::from_fn(|k, _| pack_of(cuboids.iter().map(|(_, b)| b.half_extents[k]))),
            reach: pack_of(cuboids.iter().map(|(_, b)| b.local_aabb().half_extents().norm())),
            len: cuboids.len(),
        }
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the packet holds no box.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The nearest hit and the index of the box hit; each lane answers as
    /// `Cuboid::ray_cast` with the pose `Isometry3::translation(centre)`.
    pub fn ray_cast(
        &self,
        ray: &Ray<T::Element>,
        max_t: T::Element,
        solid: bool,
    ) -> Option<(usize, RayHit<T::Element>)> {
        let hit = cast_translated(ray, &self.centers, self.reach, max_t, |local, local_max_t| {
            ray_cast_cuboid(local, &self.half_extents, local_max_t, solid)
        })?;
        nearest(&hit, self.len)
    }
}
