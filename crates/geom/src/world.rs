//! A world to query: shapes at poses with user data, behind one [`Bvh`],
//! answering the first hit of a ray, what overlaps a shape, the first
//! thing a moving shape runs into, and the candidate pairs of a broad
//! phase.
//!
//! Objects are inserted, moved and removed freely; the tree catches up at
//! the next query: it is refit (every box recomputed, the tree's shape
//! kept) after moves, and rebuilt after inserts and removals or once the
//! refit tree's root box has grown to twice the area it had when built
//! (large motions make a refit tree slow, never wrong).
//!
//! ```
//! use std::sync::Arc;
//! use geom::prelude::*;
//! use geom::World;
//!
//! let table = geom::default_dispatcher::<f64>();
//! let mut world: World<f64, &str> = World::new();
//! let ground = world.insert(Arc::new(HalfSpace::new(Vector3::y(), 0.0)), Isometry3::identity(), "ground");
//! let ball = world.insert(Arc::new(Sphere::new(0.5)), Isometry3::translation(0.0, 3.0, 0.0), "ball");
//! // Straight down from y = 10: the ball's top at y = 3.5.
//! let (hit, at) = world.ray_cast(&Ray::new(Point3::new(0.0, 10.0, 0.0), -Vector3::y()), f64::INFINITY, true).unwrap();
//! assert_eq!((hit, at.t, *world.data(hit).unwrap()), (ball, 6.5, "ball"));
//! // The ball dropped by 5 lands on the ground after 2.5 of it.
//! let (what, sweep) = world.sweep(&Sphere::new(0.5), &Isometry3::translation(0.0, 3.0, 0.0), &Vector3::new(0.0, -5.0, 0.0), &table, Some(ball)).unwrap().unwrap();
//! assert_eq!(what, ground);
//! assert!((sweep.toi - 0.5).abs() < 1e-12);
//! // Nothing overlaps yet; once the ball rests on the ground, they pair up.
//! let mut pairs = Vec::new();
//! world.candidate_pairs(&mut pairs);
//! assert!(pairs.is_empty());
//! world.set_pose(ball, Isometry3::translation(0.0, 0.4, 0.0));
//! world.candidate_pairs(&mut pairs);
//! assert_eq!(pairs, vec![(ground, ball)]);
//! ```

use std::sync::Arc;

use geom_core::bvh::{Bvh, BvhOptions};
use geom_core::{Aabb, DispatchTable, GeomError, Ray, RayHit, Real, Shape};
use geom_prims::sweep::SweepHit;
use nalgebra::{Isometry3, Vector3};

/// An object of a [`World`]: stable while the object lives (a removed
/// object's handle never names a later one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle {
    index: u32,
    generation: u32,
}

/// An object's shape, pose and data, as [`World::get`] returns them.
pub type Entry<'a, N, T> = (&'a Arc<dyn Shape<N>>, &'a Isometry3<N>, &'a T);

struct Slot<N: Real, T> {
    generation: u32,
    object: Option<Object<N, T>>,
}

struct Object<N: Real, T> {
    shape: Arc<dyn Shape<N>>,
    pose: Isometry3<N>,
    data: T,
    aabb: Aabb<N>,
}

/// What the tree needs before the next query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stale {
    Fresh,
    Refit,
    Rebuild,
}

/// Shapes at poses with user data of type `T`; see the
/// [module documentation](self).
pub struct World<N: Real, T> {
    slots: Vec<Slot<N, T>>,
    free: Vec<u32>,
    /// Primitive `i` of the tree is slot `order[i]`.
    order: Vec<u32>,
    bvh: Bvh<N>,
    boxes: Vec<Aabb<N>>,
    stale: Stale,
    /// The root box's half area when the tree was built.
    built_area: N,
    /// Scratch for sorting candidate pairs.
    keys: Vec<u64>,
    sorted: Vec<u64>,
    counts: Vec<u32>,
    /// Each object's box is widened by this much on every side.
    half_margin: N,
}

impl<N: Real, T> std::fmt::Debug for World<N, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("objects", &self.len())
            .field("tree_nodes", &self.bvh.node_count())
            .field("stale", &self.stale)
            .finish()
    }
}

impl<N: Real, T> Default for World<N, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<N: Real, T> World<N, T> {
    /// An empty world.
    pub fn new() -> Self {
        World {
            slots: Vec::new(),
            free: Vec::new(),
            order: Vec::new(),
            bvh: Bvh::build(&[]),
            boxes: Vec::new(),
            stale: Stale::Fresh,
            built_area: N::zero(),
            keys: Vec::new(),
            sorted: Vec::new(),
            counts: Vec::new(),
            half_margin: N::zero(),
        }
    }

    /// An empty world whose candidate pairs include objects up to
    /// `margin` apart (per axis, box to box): each object's box is widened
    /// by `margin / 2` on every side. A physics step gathering speculative
    /// contacts within a margin wants its pairs from here; ray casts,
    /// overlaps and sweeps answer exactly as without a margin (the exact
    /// shape tests follow the boxes). Refuses a negative or non-finite
    /// margin.
    pub fn with_margin(margin: N) -> Result<Self, GeomError> {
        if !(margin >= N::zero() && margin.is_finite()) {
            return Err(GeomError::invalid(
                "world",
                "margin",
                margin,
                "must be finite and >= 0",
            ));
        }
        Ok(World {
            half_margin: margin * nalgebra::convert::<f64, N>(0.5),
            ..Self::new()
        })
    }

    /// The object's box as the tree holds it (widened by the margin).
    fn box_of(&self, shape: &dyn Shape<N>, pose: &Isometry3<N>) -> Aabb<N> {
        let aabb = shape.aabb(pose);
        if self.half_margin > N::zero() {
            aabb.loosened(self.half_margin)
        } else {
            aabb
        }
    }

    /// Adds `shape` at `pose` with `data`.
    pub fn insert(&mut self, shape: Arc<dyn Shape<N>>, pose: Isometry3<N>, data: T) -> Handle {
        let aabb = self.box_of(shape.as_ref(), &pose);
        let object = Some(Object {
            shape,
            pose,
            data,
            aabb,
        });
        self.stale = Stale::Rebuild;
        match self.free.pop() {
            Some(index) => {
                let slot = &mut self.slots[index as usize];
                slot.object = object;
                Handle {
                    index,
                    generation: slot.generation,
                }
            }
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    object,
                });
                Handle {
                    index: self.slots.len() as u32 - 1,
                    generation: 0,
                }
            }
        }
    }

    /// Removes the object, returning its data (`None` for a stale handle).
    pub fn remove(&mut self, handle: Handle) -> Option<T> {
        let slot = self.slots.get_mut(handle.index as usize)?;
        if slot.generation != handle.generation {
            return None;
        }
        let object = slot.object.take()?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(handle.index);
        self.stale = Stale::Rebuild;
        Some(object.data)
    }

    fn object(&self, handle: Handle) -> Option<&Object<N, T>> {
        let slot = self.slots.get(handle.index as usize)?;
        (slot.generation == handle.generation).then_some(slot.object.as_ref()?)
    }

    /// The object's shape, pose and data (`None` for a stale handle).
    pub fn get(&self, handle: Handle) -> Option<Entry<'_, N, T>> {
        self.object(handle).map(|o| (&o.shape, &o.pose, &o.data))
    }

    /// The object's data.
    pub fn data(&self, handle: Handle) -> Option<&T> {
        self.object(handle).map(|o| &o.data)
    }

    /// The object's data, mutably.
    pub fn data_mut(&mut self, handle: Handle) -> Option<&mut T> {
        let slot = self.slots.get_mut(handle.index as usize)?;
        (slot.generation == handle.generation).then_some(&mut slot.object.as_mut()?.data)
    }

    /// Moves the object to `pose`; `false` for a stale handle.
    pub fn set_pose(&mut self, handle: Handle, pose: Isometry3<N>) -> bool {
        let Some(object) = self.object(handle) else {
            return false;
        };
        let aabb = self.box_of(object.shape.as_ref(), &pose);
        let object = self.slots[handle.index as usize]
            .object
            .as_mut()
            .expect("checked live above");
        object.pose = pose;
        object.aabb = aabb;
        if self.stale == Stale::Fresh {
            self.stale = Stale::Refit;
        }
        true
    }

    /// How many objects the world holds.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Whether the world is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every live object's handle, in slot order.
    pub fn handles(&self) -> impl Iterator<Item = Handle> + '_ {
        self.slots.iter().enumerate().filter_map(|(index, slot)| {
            slot.object.as_ref().map(|_| Handle {
                index: index as u32,
                generation: slot.generation,
            })
        })
    }

    fn handle_of(&self, primitive: u32) -> Handle {
        let index = self.order[primitive as usize];
        Handle {
            index,
            generation: self.slots[index as usize].generation,
        }
    }

    fn object_of(&self, primitive: u32) -> &Object<N, T> {
        self.slots[self.order[primitive as usize] as usize]
            .object
            .as_ref()
            .expect("the tree holds live objects")
    }

    /// Brings the tree up to date with the objects (queries call it).
    pub fn update(&mut self) {
        if self.stale == Stale::Refit {
            let (slots, order) = (&self.slots, &self.order);
            self.bvh.refit_with(|i| {
                slots[order[i as usize] as usize]
                    .object
                    .as_ref()
                    .expect("live")
                    .aabb
            });
            let area = self.bvh.root_aabb().map_or(N::zero(), |b| half_area(&b));
            self.stale = if area > self.built_area * nalgebra::convert::<f64, N>(2.0) {
                Stale::Rebuild
            } else {
                Stale::Fresh
            };
        }
        if self.stale == Stale::Rebuild {
            self.order.clear();
            self.boxes.clear();
            for (index, slot) in self.slots.iter().enumerate() {
                if let Some(object) = &slot.object {
                    self.order.push(index as u32);
                    self.boxes.push(object.aabb);
                }
            }
            // One object per leaf: the nodes hold every object's box in
            // their four-wide arrays, so the pair traversal pairs objects
            // four at a time without a leaf step.
            self.bvh = Bvh::build_with(&self.boxes, BvhOptions { max_leaf_size: 1 });
            self.built_area = self.bvh.root_aabb().map_or(N::zero(), |b| half_area(&b));
            self.stale = Stale::Fresh;
        }
    }

    /// The first object `ray` hits within `[0, max_t]` and the hit (see
    /// [`Shape::ray_cast`] for `solid`).
    pub fn ray_cast(&mut self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<(Handle, RayHit<N>)> {
        self.update();
        let (primitive, t) = self.bvh.ray_cast(ray, max_t, |i, limit| {
            let object = self.object_of(i);
            object
                .shape
                .ray_cast(&object.pose, ray, limit, solid)
                .map(|hit| hit.t)
        })?;
        let object = self.object_of(primitive);
        let hit = object.shape.ray_cast(&object.pose, ray, t, solid)?;
        Some((self.handle_of(primitive), hit))
    }

    /// Calls `visit` with every object whose box overlaps `aabb`, until it
    /// returns `false`.
    pub fn visit_aabb(&mut self, aabb: &Aabb<N>, mut visit: impl FnMut(Handle) -> bool) {
        self.update();
        self.bvh.visit_aabb(aabb, |i| visit(self.handle_of(i)));
    }

    /// The objects that `shape` at `pose` overlaps or touches (distance
    /// zero by the table), in slot order, into `out` (cleared first).
    /// Errors are the table's.
    pub fn overlaps(
        &mut self,
        shape: &dyn Shape<N>,
        pose: &Isometry3<N>,
        table: &DispatchTable<N>,
        out: &mut Vec<Handle>,
    ) -> Result<(), GeomError> {
        out.clear();
        self.update();
        let mut failure = None;
        self.bvh.visit_aabb(&shape.aabb(pose), |i| {
            let object = self.object_of(i);
            match table.closest_points(shape, pose, object.shape.as_ref(), &object.pose, N::zero()) {
                Ok(geom_core::ClosestPoints::Disjoint) => {}
                Ok(_) => out.push(self.handle_of(i)),
                Err(e) => failure = Some(e),
            }
            failure.is_none()
        });
        out.sort_unstable();
        failure.map_or(Ok(()), Err)
    }

    /// `shape` at `pose` moved by `motion`: the first object it runs into
    /// and the hit ([`geom_terrain::sweep_shape`]: exact for spheres,
    /// capsules and ellipsoids against triangles, heightfields and meshes,
    /// conservative advancement otherwise), skipping `ignore` (the moving
    /// object itself, when it is in the world). Errors are the table's.
    pub fn sweep(
        &mut self,
        shape: &dyn Shape<N>,
        pose: &Isometry3<N>,
        motion: &Vector3<N>,
        table: &DispatchTable<N>,
        ignore: Option<Handle>,
    ) -> Result<Option<(Handle, SweepHit<N>)>, GeomError> {
        self.update();
        let start = shape.aabb(pose);
        let moved = Aabb::new(start.mins + motion, start.maxs + motion);
        let swept = start.merged(&moved);
        let mut best: Option<(Handle, SweepHit<N>)> = None;
        let mut failure = None;
        self.bvh.visit_aabb(&swept, |i| {
            let handle = self.handle_of(i);
            if Some(handle) == ignore {
                return true;
            }
            let object = self.object_of(i);
            match geom_terrain::sweep_shape(shape, pose, motion, object.shape.as_ref(), &object.pose, table) {
                Ok(Some(hit)) => {
                    if best.is_none_or(|(h, b)| hit.toi < b.toi || (hit.toi == b.toi && handle < h)) {
                        best = Some((handle, hit));
                    }
                }
                Ok(None) => {}
                Err(e) => failure = Some(e),
            }
            failure.is_none()
        });
        failure.map_or(Ok(best), Err)
    }

    /// The candidate pairs of a broad phase: every two objects whose boxes
    /// overlap (each widened by half the margin of a world made by
    /// [`World::with_margin`]), as `(a, b)` with `a < b`, sorted, into
    /// `out` (cleared first).
    pub fn candidate_pairs(&mut self, out: &mut Vec<(Handle, Handle)>) {
        out.clear();
        self.update();
        // Sorted as slot-index pairs packed in one integer (a slot holds
        // one generation at a time, so the order is the handles').
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        self.bvh.for_each_self_pair(|i, j| {
            let (a, b) = (self.order[i as usize], self.order[j as usize]);
            keys.push(u64::from(a.min(b)) << 32 | u64::from(a.max(b)));
        });
        let mut sorted = std::mem::take(&mut self.sorted);
        sort_pair_keys(&keys, self.slots.len(), &mut self.counts, &mut sorted);
        out.extend(
            sorted
                .iter()
                .map(|&key| (self.handle_at((key >> 32) as u32), self.handle_at(key as u32))),
        );
        self.keys = keys;
        self.sorted = sorted;
    }

    /// The live handle of slot `index`.
    fn handle_at(&self, index: u32) -> Handle {
        Handle {
            index,
            generation: self.slots[index as usize].generation,
        }
    }

    /// [`World::candidate_pairs`] on rayon's threads: the same pairs in
    /// the same order, the tree's traversal split into tasks.
    #[cfg(feature = "parallel")]
    pub fn par_candidate_pairs(&mut self, out: &mut Vec<(Handle, Handle)>)
    where
        T: Sync,
    {
        use rayon::prelude::*;
        out.clear();
        self.update();
        let tasks = self.bvh.self_pair_tasks(8 * rayon::current_num_threads());
        let this = &*self;
        let parts: Vec<Vec<u64>> = tasks
            .par_iter()
            .map(|task| {
                let mut part = Vec::new();
                this.bvh.for_each_self_pair_in(task, |i, j| {
                    let (a, b) = (this.order[i as usize], this.order[j as usize]);
                    part.push(u64::from(a.min(b)) << 32 | u64::from(a.max(b)));
                });
                part
            })
            .collect();
        let mut keys: Vec<u64> = parts.concat();
        keys.par_sort_unstable();
        out.extend(
            keys.iter()
                .map(|&key| (self.handle_at((key >> 32) as u32), self.handle_at(key as u32))),
        );
    }
}

/// `keys` (pairs of slot indices below `slots`, the smaller one in the
/// high half) sorted into `sorted`: a counting sort by the first index
/// (one pass to count, one to place), then each first index's run sorted
/// on its own (most runs hold a pair or two; one object meeting many, a
/// ground under every body, is a run of its own and sorts in `n log n`).
/// Allocation-free once warm.
fn sort_pair_keys(keys: &[u64], slots: usize, counts: &mut Vec<u32>, sorted: &mut Vec<u64>) {
    counts.clear();
    counts.resize(slots + 1, 0);
    for &key in keys {
        counts[(key >> 32) as usize + 1] += 1;
    }
    for k in 1..counts.len() {
        counts[k] += counts[k - 1];
    }
    sorted.clear();
    sorted.resize(keys.len(), 0);
    for &key in keys {
        let first = &mut counts[(key >> 32) as usize];
        sorted[*first as usize] = key;
        *first += 1;
    }
    // `counts[a]` is now the end of first index `a`'s run, which starts
    // where the run before it ends.
    let mut start = 0;
    for &end in &counts[..slots] {
        let end = end as usize;
        if end - start > 1 {
            sorted[start..end].sort_unstable();
        }
        start = end;
    }
}

/// The half area (`xy + yz + zx`) of a box.
fn half_area<N: Real>(aabb: &Aabb<N>) -> N {
    let e = aabb.maxs - aabb.mins;
    e.x * e.y + e.y * e.z + e.z * e.x
}
