//! Many rays against one shape, eight (f32) or four (f64) at a time in SIMD
//! lanes.
//!
//! Rays and hits are stored as struct-of-arrays ([`RayBatch`], [`HitBatch`])
//! so a pack of lanes loads with one vector read per coordinate. The pose is
//! applied per ray by the same code as [`Shape::ray_cast`]
//! ([`PoseMatrix::ray_to_local`] and [`PoseMatrix::hit_to_world`]) and the
//! shape's lane kernel is the one behind its scalar methods, so every batch
//! answer equals the scalar trait call of the same precision bit for bit.
//! Meshes and compounds cast one ray at a time, in the order of their
//! tree ([`RayOrder`]: rays crossing the same part of the tree one after
//! another), and write each answer to its ray's row.
//!
//! ```
//! use geom::prelude::*;
//! use geom::{HitBatch, RayBatch};
//!
//! // 10⁴ rays down at a box, in columns; the answers reuse `hits`' memory.
//! let cuboid = Cuboid::new(Vector3::new(1.0f32, 0.5, 1.0));
//! let pose = Isometry3::translation(0.0, -2.0, 0.0);
//! let rays: RayBatch<f32> = (0..10_000)
//!     .map(|k| Ray::new(Point3::new((k % 100) as f32 * 0.03 - 1.5, 5.0, (k / 100) as f32 * 0.03 - 1.5), -Vector3::y()))
//!     .collect();
//! let mut hits = HitBatch::new();
//! geom::ray_cast_batch(&cuboid, &pose, &rays, f32::MAX, true, &mut hits);
//! let on_top = hits.iter().flatten().filter(|hit| hit.t == 6.5).count();
//! assert_eq!(on_top, hits.hits().iter().filter(|&&hit| hit).count());
//! assert!(on_top > 4000); // the rays over the box's top face (|x|, |z| <= 1)
//! ```

use geom_core::bvh::RayOrder;
use geom_core::compound::Compound;
use geom_core::pose::RestartSphere;
use geom_core::{FeatureId, Lane, LaneShape, PoseMatrix, Ray, RayHit, Real, Shape};
use geom_prims::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, HalfSpace, Segment, Sphere, Triangle};
use geom_terrain::{HeightField, TriMesh};
use nalgebra::{Isometry3, Point3, SimdBool, Vector3};
use simba::simd::{WideF32x4, WideF32x8, WideF64x4};

/// The widest lane pack any [`Pack`] has (bounds the tail buffer).
const MAX_LANES: usize = 8;

/// A SIMD lane type that loads from and stores to plain slices: `WideF32x4`,
/// `WideF32x8` and `WideF64x4`.
pub trait Pack: Lane + Send + Sync {
    /// The pack whose lanes are `values` (exactly `Self::LANES` of them).
    fn load(values: &[Self::Element]) -> Self;
    /// Writes the lanes to `out` (exactly `Self::LANES` long).
    fn store(self, out: &mut [Self::Element]);
}

macro_rules! impl_pack {
    ($wide:ty, $element:ty, $lanes:literal) => {
        impl Pack for $wide {
            #[inline(always)]
            fn load(values: &[$element]) -> Self {
                let array: [$element; $lanes] = values.try_into().expect("one pack of values");
                <$wide>::from(array)
            }

            #[inline(always)]
            fn store(self, out: &mut [$element]) {
                out.copy_from_slice(&<[$element; $lanes]>::from(self));
            }
        }
    };
}

impl_pack!(WideF32x4, f32, 4);
impl_pack!(WideF32x8, f32, 8);
impl_pack!(WideF64x4, f64, 4);

/// A scalar with a default lane pack for batches: `WideF32x8` for `f32`,
/// `WideF64x4` for `f64` (the widest AVX2 packs).
pub trait BatchReal: Real {
    /// The lane pack [`ray_cast_batch`] runs on.
    type Wide: Pack<Element = Self>;
}

impl BatchReal for f32 {
    type Wide = WideF32x8;
}

impl BatchReal for f64 {
    type Wide = WideF64x4;
}

/// Rays as struct-of-arrays: one column per coordinate of origin and
/// direction. Reuse one batch across calls ([`RayBatch::clear`] keeps the
/// memory).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RayBatch<N: Real> {
    origin: [Vec<N>; 3],
    dir: [Vec<N>; 3],
}

impl<N: Real> RayBatch<N> {
    /// An empty batch.
    pub fn new() -> Self {
        RayBatch {
            origin: Default::default(),
            dir: Default::default(),
        }
    }

    /// An empty batch with room for `capacity` rays.
    pub fn with_capacity(capacity: usize) -> Self {
        let column = || Vec::with_capacity(capacity);
        RayBatch {
            origin: [column(), column(), column()],
            dir: [column(), column(), column()],
        }
    }

    /// The batch holding `rays`, in order.
    pub fn from_rays(rays: &[Ray<N>]) -> Self {
        let mut batch = Self::with_capacity(rays.len());
        batch.extend(rays.iter().copied());
        batch
    }

    /// Number of rays.
    pub fn len(&self) -> usize {
        self.origin[0].len()
    }

    /// Whether the batch holds no ray.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every ray, keeping the memory.
    pub fn clear(&mut self) {
        self.origin.iter_mut().chain(&mut self.dir).for_each(Vec::clear);
    }

    /// Appends `ray`.
    pub fn push(&mut self, ray: &Ray<N>) {
        for k in 0..3 {
            self.origin[k].push(ray.origin[k]);
            self.dir[k].push(ray.dir[k]);
        }
    }

    /// Ray `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    pub fn get(&self, i: usize) -> Ray<N> {
        Ray::new(
            Point3::new(self.origin[0][i], self.origin[1][i], self.origin[2][i]),
            Vector3::new(self.dir[0][i], self.dir[1][i], self.dir[2][i]),
        )
    }

    /// The origin columns `[x, y, z]`.
    pub fn origins(&self) -> &[Vec<N>; 3] {
        &self.origin
    }

    /// The direction columns `[x, y, z]`.
    pub fn dirs(&self) -> &[Vec<N>; 3] {
        &self.dir
    }

    /// Every ray, as borrowed columns (what [`BatchShape::ray_cast_rows`]
    /// takes).
    pub fn rows(&self) -> RayRows<'_, N> {
        RayRows {
            origin: [&self.origin[0], &self.origin[1], &self.origin[2]],
            dir: [&self.dir[0], &self.dir[1], &self.dir[2]],
        }
    }
}

impl<N: Real> Extend<Ray<N>> for RayBatch<N> {
    fn extend<I: IntoIterator<Item = Ray<N>>>(&mut self, rays: I) {
        for ray in rays {
            self.push(&ray);
        }
    }
}

impl<N: Real> FromIterator<Ray<N>> for RayBatch<N> {
    fn from_iter<I: IntoIterator<Item = Ray<N>>>(rays: I) -> Self {
        let mut batch = Self::new();
        batch.extend(rays);
        batch
    }
}

/// Ray-cast answers as struct-of-arrays, one row per ray of a [`RayBatch`].
/// Where `hit` is false the other columns of that row hold unspecified
/// values; [`HitBatch::get`] reads a row as the scalar trait would answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HitBatch<N: Real> {
    hit: Vec<bool>,
    t: Vec<N>,
    normal: [Vec<N>; 3],
    feature: Vec<FeatureId>,
}

impl<N: Real> HitBatch<N> {
    /// An empty batch.
    pub fn new() -> Self {
        HitBatch {
            hit: Vec::new(),
            t: Vec::new(),
            normal: Default::default(),
            feature: Vec::new(),
        }
    }

    /// An empty batch with room for `capacity` answers.
    pub fn with_capacity(capacity: usize) -> Self {
        let column = || Vec::with_capacity(capacity);
        HitBatch {
            hit: Vec::with_capacity(capacity),
            t: column(),
            normal: [column(), column(), column()],
            feature: Vec::with_capacity(capacity),
        }
    }

    /// Number of answers.
    pub fn len(&self) -> usize {
        self.hit.len()
    }

    /// Whether the batch holds no answer.
    pub fn is_empty(&self) -> bool {
        self.hit.is_empty()
    }

    /// Removes every answer, keeping the memory.
    pub fn clear(&mut self) {
        self.hit.clear();
        self.t.clear();
        self.normal.iter_mut().for_each(Vec::clear);
        self.feature.clear();
    }

    /// Appends one answer (`None` for a miss).
    pub fn push(&mut self, hit: Option<RayHit<N>>) {
        let row = stored_row(hit);
        self.hit.push(hit.is_some());
        self.t.push(row.t);
        for k in 0..3 {
            self.normal[k].push(row.normal[k]);
        }
        self.feature.push(row.feature);
    }

    /// Answer `i`, as [`Shape::ray_cast`] gives it.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    pub fn get(&self, i: usize) -> Option<RayHit<N>> {
        self.hit[i].then(|| RayHit {
            t: self.t[i],
            normal: Vector3::new(self.normal[0][i], self.normal[1][i], self.normal[2][i]),
            feature: self.feature[i],
        })
    }

    /// Every answer in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<RayHit<N>>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Which rays hit.
    pub fn hits(&self) -> &[bool] {
        &self.hit
    }

    /// Times of impact (meaningful where [`HitBatch::hits`] is true).
    pub fn times(&self) -> &[N] {
        &self.t
    }

    /// Normal columns `[x, y, z]` (meaningful where [`HitBatch::hits`] is true).
    pub fn normals(&self) -> &[Vec<N>; 3] {
        &self.normal
    }

    /// The features hit (meaningful where [`HitBatch::hits`] is true).
    pub fn features(&self) -> &[FeatureId] {
        &self.feature
    }

    /// Sizes every column to `len` rows, reusing the memory (new rows are
    /// misses).
    pub fn resize(&mut self, len: usize) {
        self.hit.resize(len, false);
        self.t.resize(len, N::zero());
        self.normal.iter_mut().for_each(|c| c.resize(len, N::zero()));
        self.feature.resize(len, FeatureId::Unknown);
    }

    /// Every answer, as mutable borrowed columns (what
    /// [`BatchShape::ray_cast_rows`] fills).
    pub fn rows_mut(&mut self) -> HitRows<'_, N> {
        let [nx, ny, nz] = &mut self.normal;
        HitRows {
            hit: &mut self.hit,
            t: &mut self.t,
            normal: [nx, ny, nz],
            feature: &mut self.feature,
        }
    }
}

/// The columns' values for an answer: a miss is stored as zeros.
fn stored_row<N: Real>(hit: Option<RayHit<N>>) -> RayHit<N> {
    hit.unwrap_or(RayHit {
        t: N::zero(),
        normal: Vector3::zeros(),
        feature: FeatureId::Unknown,
    })
}

/// Rows of a [`RayBatch`] (all of them, or a chunk a thread casts):
/// borrowed origin and direction columns of equal length.
#[derive(Clone, Copy, Debug)]
pub struct RayRows<'a, N> {
    origin: [&'a [N]; 3],
    dir: [&'a [N]; 3],
}

impl<'a, N: Real> RayRows<'a, N> {
    /// Number of rays.
    pub fn len(&self) -> usize {
        self.origin[0].len()
    }

    /// Whether there is no ray.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ray `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    pub fn get(&self, i: usize) -> Ray<N> {
        Ray::new(
            Point3::new(self.origin[0][i], self.origin[1][i], self.origin[2][i]),
            Vector3::new(self.dir[0][i], self.dir[1][i], self.dir[2][i]),
        )
    }

    #[cfg(feature = "parallel")]
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        let split = |columns: [&'a [N]; 3]| {
            let [x, y, z] = columns.map(|c| c.split_at(mid));
            ([x.0, y.0, z.0], [x.1, y.1, z.1])
        };
        let (origin_low, origin_high) = split(self.origin);
        let (dir_low, dir_high) = split(self.dir);
        (
            RayRows {
                origin: origin_low,
                dir: dir_low,
            },
            RayRows {
                origin: origin_high,
                dir: dir_high,
            },
        )
    }
}

/// Rows of a [`HitBatch`] being filled: mutable borrowed columns of equal
/// length, one row per ray of the matching [`RayRows`].
#[derive(Debug)]
pub struct HitRows<'a, N> {
    hit: &'a mut [bool],
    t: &'a mut [N],
    normal: [&'a mut [N]; 3],
    feature: &'a mut [FeatureId],
}

impl<'a, N: Real> HitRows<'a, N> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.hit.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.hit.is_empty()
    }

    /// Writes answer `i` (`None` for a miss).
    ///
    /// # Panics
    /// When `i >= self.len()`.
    pub fn set(&mut self, i: usize, hit: Option<RayHit<N>>) {
        self.hit[i] = hit.is_some();
        let row = stored_row(hit);
        self.t[i] = row.t;
        for k in 0..3 {
            self.normal[k][i] = row.normal[k];
        }
        self.feature[i] = row.feature;
    }

    #[cfg(feature = "parallel")]
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        let (hit_low, hit_high) = self.hit.split_at_mut(mid);
        let (t_low, t_high) = self.t.split_at_mut(mid);
        let [nx, ny, nz] = self.normal.map(|c| c.split_at_mut(mid));
        let (feature_low, feature_high) = self.feature.split_at_mut(mid);
        (
            HitRows {
                hit: hit_low,
                t: t_low,
                normal: [nx.0, ny.0, nz.0],
                feature: feature_low,
            },
            HitRows {
                hit: hit_high,
                t: t_high,
                normal: [nx.1, ny.1, nz.1],
                feature: feature_high,
            },
        )
    }
}

/// What stays fixed over one batch call: the shape, its pose as a matrix,
/// the shape's reach from its local origin and the query parameters.
pub(crate) struct BatchQuery<'a, N: Real, S> {
    pub(crate) shape: &'a S,
    pub(crate) matrix: PoseMatrix<N>,
    pub(crate) sphere: RestartSphere<N>,
    pub(crate) max_t: N,
    pub(crate) solid: bool,
}

impl<'a, N: Real, S: LaneShape<N> + Shape<N>> BatchQuery<'a, N, S> {
    pub(crate) fn new(shape: &'a S, pose: &Isometry3<N>, max_t: N, solid: bool) -> Self {
        let matrix = PoseMatrix::new(pose);
        BatchQuery {
            shape,
            sphere: matrix.restart_sphere(&shape.local_aabb()),
            matrix,
            max_t,
            solid,
        }
    }

    /// Casts one pack of rays (`T::LANES` rows of `rays`, from `start`) and
    /// writes the first `count` answers to `out`.
    #[inline(always)]
    fn cast_pack<T: Pack<Element = N>>(
        &self,
        origin: [&[N]; 3],
        dir: [&[N]; 3],
        out: &mut HitRows<'_, N>,
        start: usize,
        count: usize,
    ) {
        let ray = Ray::new(
            Point3::new(T::load(origin[0]), T::load(origin[1]), T::load(origin[2])),
            Vector3::new(T::load(dir[0]), T::load(dir[1]), T::load(dir[2])),
        );
        let max_t = T::splat(self.max_t);
        let local = self.matrix.ray_to_local(&ray, max_t, &self.sphere);
        let hit = self.shape.ray_cast_lanes(&local.ray, local.max_t, self.solid);
        let world = self.matrix.hit_to_world(&local, &hit, max_t);
        let end = start + count;
        let mut face = [N::zero(); MAX_LANES];
        world.face.store(&mut face[..T::LANES]);
        let bits = world.mask.bitmask();
        if count == T::LANES {
            world.t.store(&mut out.t[start..end]);
            for k in 0..3 {
                world.normal[k].store(&mut out.normal[k][start..end]);
            }
        } else {
            let mut column = [N::zero(); MAX_LANES];
            world.t.store(&mut column[..T::LANES]);
            out.t[start..end].copy_from_slice(&column[..count]);
            for k in 0..3 {
                world.normal[k].store(&mut column[..T::LANES]);
                out.normal[k][start..end].copy_from_slice(&column[..count]);
            }
        }
        for (i, code) in face[..count].iter().enumerate() {
            out.hit[start + i] = (bits >> i) & 1 == 1;
            out.feature[start + i] = FeatureId::from_face_code(*code);
        }
    }

    /// Casts every ray of `rays` into `out` (same length), whole packs first
    /// and then the tail, padded with zero rays whose answers are dropped.
    pub(crate) fn cast_columns<T: Pack<Element = N>>(&self, rays: RayRows<'_, N>, mut out: HitRows<'_, N>) {
        assert!(T::LANES <= MAX_LANES);
        let lanes = T::LANES;
        let len = rays.len();
        let whole = len - len % lanes;
        for start in (0..whole).step_by(lanes) {
            let origin = rays.origin.map(|c| &c[start..start + lanes]);
            let dir = rays.dir.map(|c| &c[start..start + lanes]);
            self.cast_pack::<T>(origin, dir, &mut out, start, lanes);
        }
        let tail = len - whole;
        if tail > 0 {
            let mut padded = [[N::zero(); MAX_LANES]; 6];
            for k in 0..3 {
                padded[k][..tail].copy_from_slice(&rays.origin[k][whole..]);
                padded[k + 3][..tail].copy_from_slice(&rays.dir[k][whole..]);
            }
            let [ox, oy, oz, dx, dy, dz] = &padded;
            let origin = [&ox[..lanes], &oy[..lanes], &oz[..lanes]];
            let dir = [&dx[..lanes], &dy[..lanes], &dz[..lanes]];
            self.cast_pack::<T>(origin, dir, &mut out, whole, tail);
        }
    }
}

/// A shape the batch functions accept ([`ray_cast_batch`],
/// [`par_ray_cast_batch`](crate::par_ray_cast_batch), [`ray_cast_slice`]):
/// every primitive, cast eight (`f32`) or four (`f64`) rays at a time on
/// its lane kernel ([`ray_cast_rows_on_lanes`]), and [`HeightField`], one
/// ray at a time (a grid walk takes a different path per ray; the batch
/// gives it the columns and the threads, not SIMD).
///
/// A custom shape with a [`LaneShape`] kernel joins in one line:
///
/// ```
/// # use geom::prelude::*;
/// # use geom::{LaneHit, LaneProjection, Lane};
/// use geom::batch::{BatchReal, BatchShape, HitRows, RayRows, ray_cast_rows_on_lanes};
/// # #[derive(Debug)]
/// # struct Ball(Sphere<f32>);
/// # impl Shape<f32> for Ball {
/// #     fn kind(&self) -> ShapeKind { ShapeKind::Custom(1) }
/// #     fn is_convex(&self) -> bool { true }
/// #     fn support_local(&self, d: &Vector3<f32>) -> Option<Point3<f32>> { self.0.support_local(d) }
/// #     fn local_aabb(&self) -> Aabb<f32> { self.0.local_aabb() }
/// #     fn ray_cast_local(&self, ray: &Ray<f32>, max_t: f32, solid: bool) -> Option<RayHit<f32>> { self.0.ray_cast_local(ray, max_t, solid) }
/// #     fn closest_point_local(&self, p: &Point3<f32>, solid: bool) -> Option<PointProjection<f32>> { self.0.closest_point_local(p, solid) }
/// # }
/// # impl LaneShape<f32> for Ball {
/// #     fn ray_cast_lanes<T: Lane<Element = f32>>(&self, ray: &Ray<T>, max_t: T, solid: bool) -> LaneHit<T> { self.0.ray_cast_lanes(ray, max_t, solid) }
/// #     fn project_point_lanes<T: Lane<Element = f32>>(&self, p: &Point3<T>) -> LaneProjection<T> { self.0.project_point_lanes(p) }
/// # }
/// impl BatchShape<f32> for Ball {
///     fn ray_cast_rows(&self, pose: &Isometry3<f32>, rays: RayRows<'_, f32>, max_t: f32, solid: bool, out: HitRows<'_, f32>) {
///         ray_cast_rows_on_lanes::<<f32 as BatchReal>::Wide, _>(self, pose, rays, max_t, solid, out)
///     }
/// }
/// ```
pub trait BatchShape<N: BatchReal>: Shape<N> {
    /// Casts every ray of `rays` against the shape at `pose` into the same
    /// row of `out` (as long as `rays`): row `i` is
    /// `self.ray_cast(pose, &rays.get(i), max_t, solid)`, bit for bit.
    fn ray_cast_rows(
        &self,
        pose: &Isometry3<N>,
        rays: RayRows<'_, N>,
        max_t: N,
        solid: bool,
        out: HitRows<'_, N>,
    );
}

/// [`BatchShape::ray_cast_rows`] for a shape with a lane kernel, on the
/// lane pack `T`: the rays go through the pose and the kernel a pack at a
/// time (whole packs first, then the tail padded with zero rays whose
/// answers are dropped).
///
/// # Panics
/// When `out` is not as long as `rays`.
pub fn ray_cast_rows_on_lanes<T, S>(
    shape: &S,
    pose: &Isometry3<T::Element>,
    rays: RayRows<'_, T::Element>,
    max_t: T::Element,
    solid: bool,
    out: HitRows<'_, T::Element>,
) where
    T: Pack,
    S: LaneShape<T::Element> + Shape<T::Element>,
{
    assert_eq!(rays.len(), out.len(), "one answer row per ray");
    BatchQuery::new(shape, pose, max_t, solid).cast_columns::<T>(rays, out);
}

/// Implements [`BatchShape`] for each shape listed, with `cast`
/// answering `(shape, pose, rays, max_t, solid, out)`.
macro_rules! batch_shape {
    ($($shape:ident),+ => $cast:expr) => {
        $(
            impl<N: BatchReal> BatchShape<N> for $shape<N> {
                fn ray_cast_rows(
                    &self,
                    pose: &Isometry3<N>,
                    rays: RayRows<'_, N>,
                    max_t: N,
                    solid: bool,
                    out: HitRows<'_, N>,
                ) {
                    ($cast)(self, pose, rays, max_t, solid, out)
                }
            }
        )+
    };
}

// The primitives: on their lane kernels.
batch_shape!(
    Sphere, Capsule, Cylinder, Cone, Ellipsoid, Cuboid, HalfSpace, Triangle, Segment
    => ray_cast_rows_on_lanes::<N::Wide, _>
);

impl<N: BatchReal> BatchShape<N> for HeightField<N> {
    /// One [`Shape::ray_cast`] per row (the terrain's grid walk).
    fn ray_cast_rows(
        &self,
        pose: &Isometry3<N>,
        rays: RayRows<'_, N>,
        max_t: N,
        solid: bool,
        mut out: HitRows<'_, N>,
    ) {
        assert_eq!(rays.len(), out.len(), "one answer row per ray");
        for i in 0..rays.len() {
            out.set(i, self.ray_cast(pose, &rays.get(i), max_t, solid));
        }
    }
}

// Shapes behind a tree: one [`Shape::ray_cast`] per row, the rows taken
// in the tree's [`RayOrder`] (rays crossing the same part of the shape one
// after another, so they find its nodes and primitives in cache).
batch_shape!(
    TriMesh, Compound => |shape: &Self, pose: &Isometry3<N>, rays, max_t: N, solid, out| {
        ray_cast_rows_in_order(shape.bvh().ray_order(), pose, rays, max_t, out, |ray| {
            shape.ray_cast(pose, ray, max_t, solid)
        })
    }
);

/// Fewer rows than this are cast in their given order: sorting them would
/// cost more than the cache it saves.
const ORDER_AT_LEAST: usize = 256;
/// Rows gathered, cast and scattered together: the gathers of a block are
/// independent loads the processor overlaps, where one ray at a time would
/// wait for each.
const ORDER_BLOCK: usize = 32;

thread_local! {
    /// The sort keys of [`ray_cast_rows_in_order`] (`key << 32 | row`),
    /// kept between calls so that a batch does not allocate once warm.
    static ORDER_KEYS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Row `i` of `out` is `cast(&rays.get(i))`, the rows taken in `order`
/// (in their given order without one, or for a short batch). The answers
/// are the same in any order; only the time differs.
fn ray_cast_rows_in_order<N: Real>(
    order: Option<RayOrder<N>>,
    pose: &Isometry3<N>,
    rays: RayRows<'_, N>,
    max_t: N,
    mut out: HitRows<'_, N>,
    cast: impl Fn(&Ray<N>) -> Option<RayHit<N>>,
) {
    assert_eq!(rays.len(), out.len(), "one answer row per ray");
    let order = order.filter(|_| rays.len() >= ORDER_AT_LEAST && rays.len() <= u32::MAX as usize);
    let Some(order) = order else {
        for i in 0..rays.len() {
            out.set(i, cast(&rays.get(i)));
        }
        return;
    };
    // Taken out of the thread's slot and put back after, rather than
    // borrowed: a shape whose ray cast runs a batch of its own (a custom
    // child of a compound) then gets an empty buffer, not a panic.
    let mut keys = ORDER_KEYS.take();
    keys.clear();
    keys.extend((0..rays.len()).map(|i| u64::from(order.key_at(pose, &rays.get(i), max_t)) << 32 | i as u64));
    keys.sort_unstable();
    let unused = Ray::new(Point3::origin(), Vector3::zeros());
    let mut block = [unused; ORDER_BLOCK];
    let mut hits = [None; ORDER_BLOCK];
    for rows in keys.chunks(ORDER_BLOCK) {
        for (ray, &row) in block.iter_mut().zip(rows) {
            *ray = rays.get(row as u32 as usize);
        }
        for (hit, ray) in hits.iter_mut().zip(&block[..rows.len()]) {
            *hit = cast(ray);
        }
        for (&row, &hit) in rows.iter().zip(&hits) {
            out.set(row as u32 as usize, hit);
        }
    }
    ORDER_KEYS.set(keys);
}

/// Casts every ray of `rays` against `shape` at `pose` into `out` (resized
/// to `rays.len()`, its memory reused): primitives on the lane pack
/// `N::Wide` (`WideF32x8` for `f32`, `WideF64x4` for `f64`), heightfields
/// one ray at a time, meshes and compounds one ray at a time in their
/// tree's [`RayOrder`] (see [`BatchShape`]).
///
/// Row `i` of `out` equals `shape.ray_cast(pose, &rays.get(i), max_t,
/// solid)` bit for bit, misses, inside origins and the tail included, for
/// every shape whose `ray_cast_local` is its lane kernel's answer (every
/// primitive; a [`Segment`]'s trait call relabels the
/// kernel's `Face(0)` as `Edge(0)`, the batch keeps the kernel's label).
///
/// ```
/// use geom::prelude::*;
/// use geom::batch::{HitBatch, RayBatch, ray_cast_batch};
///
/// let field = HeightField::new(Point3::new(-2.0, 0.0, -2.0), [1.0, 1.0], 5, 5, vec![0.0f32; 25]);
/// let rays: RayBatch<f32> = (0..100)
///     .map(|k| Ray::new(Point3::new(-1.5 + 0.03 * k as f32, 3.0, 0.25), -Vector3::y()))
///     .collect();
/// let mut hits = HitBatch::new();
/// ray_cast_batch(&field, &Isometry3::identity(), &rays, f32::MAX, true, &mut hits);
/// assert!(hits.iter().all(|hit| hit.is_some_and(|h| h.t == 3.0)));
/// ```
pub fn ray_cast_batch<N, S>(
    shape: &S,
    pose: &Isometry3<N>,
    rays: &RayBatch<N>,
    max_t: N,
    solid: bool,
    out: &mut HitBatch<N>,
) where
    N: BatchReal,
    S: BatchShape<N> + ?Sized,
{
    out.resize(rays.len());
    shape.ray_cast_rows(pose, rays.rows(), max_t, solid, out.rows_mut());
}

/// [`ray_cast_batch`] on a chosen lane pack `T` (for example `WideF32x4`
/// on a machine without AVX), for shapes with a lane kernel.
pub fn ray_cast_batch_lanes<T, S>(
    shape: &S,
    pose: &Isometry3<T::Element>,
    rays: &RayBatch<T::Element>,
    max_t: T::Element,
    solid: bool,
    out: &mut HitBatch<T::Element>,
) where
    T: Pack,
    S: LaneShape<T::Element> + Shape<T::Element>,
{
    out.resize(rays.len());
    ray_cast_rows_on_lanes::<T, S>(shape, pose, rays.rows(), max_t, solid, out.rows_mut());
}

/// [`ray_cast_batch`] for a slice of rays, one answer per ray (allocates
/// the batch and the answers; reuse a [`RayBatch`] and [`HitBatch`] in a
/// loop).
pub fn ray_cast_slice<N, S>(
    shape: &S,
    pose: &Isometry3<N>,
    rays: &[Ray<N>],
    max_t: N,
    solid: bool,
) -> Vec<Option<RayHit<N>>>
where
    N: BatchReal,
    S: BatchShape<N> + ?Sized,
{
    let mut out = HitBatch::with_capacity(rays.len());
    ray_cast_batch(shape, pose, &RayBatch::from_rays(rays), max_t, solid, &mut out);
    out.iter().collect()
}
