//! A world to query: shapes at poses with user data, behind one [`Bvh`],
//! answering the first hit of a ray, what overlaps a shape, the first
//! thing a moving shape runs into, and the candidate pairs of a broad
//! phase.
//!
//! Objects are inserted, moved and removed freely; the tree catches up at
//! the next query. The tree holds each object's box with room to move (a
//! quarter of its longest side on every side, and on each axis by four
//! times its last move along that axis, both ways, at most its longest
//! side: the "fat" boxes of Box2D's dynamic tree, grown with speed), so an
//! object that moves a little, or back and forth, stays inside the box the
//! tree has and touches neither the tree nor the candidate pairs; an
//! object that left its room still moving the way it moved when the room
//! was made gets its next room ahead of it, 32 moves long. When a box
//! leaves its room, it gets a new one and the tree is refit (every box
//! recomputed, the tree's shape kept); inserts and removals rebuild it, as
//! does a refit tree's root box grown to twice the area it had when built,
//! or its surface cost ([`Bvh::surface_cost`]) to one and a half times
//! (objects drifting from the neighbours the tree was built with make a
//! refit tree slow, never wrong).
//!
//! Candidate pairs are kept between calls: the pairs of the tree's boxes,
//! renewed for the objects whose box got new room since the last call
//! (one box query each), and reported where the objects' own boxes
//! overlap. Every answer is exact for the objects' boxes; the room only
//! saves work.
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

struct Object<N: Real, T> {
    shape: Arc<dyn Shape<N>>,
    pose: Isometry3<N>,
    data: T,
}

/// What the tree needs before the next query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stale {
    Fresh,
    /// The rooms (boxes in the tree) of the objects in `World::refit`
    /// changed.
    Refit,
    /// Many objects' rooms changed: every box is refit.
    RefitAll,
    Rebuild,
}

/// The room an object gets beyond its box on every side, as a fraction
/// of the box's longest finite side. More room means fewer objects
/// leaving theirs (each a box query and a refit) and more kept pairs to
/// test at every call: of a sixteenth, an eighth, a quarter, three eighths
/// and a half, a quarter was fastest on 10⁴ moving boxes
/// (docs/benchmarks.md).
const ROOM: f64 = 0.25;
/// The growth of the tree's surface cost since its build at which a refit
/// tree is built again.
const WORN: f64 = 1.5;
/// How far the room reaches along each axis, both ways, in multiples of
/// an object's last move along it.
const ROOM_PER_MOVE: f64 = 4.0;
/// A travelling object's room (see [`with_room`]) on every side, as a
/// fraction of its box's longest finite side.
const TRAVEL_ROOM: f64 = 1.0 / 16.0;
/// How far a travelling object's room reaches ahead along each axis, in
/// multiples of its last move along it (one move behind).
const TRAVEL_AHEAD: f64 = 32.0;
/// The longest reach ahead of a travelling object's room, as a multiple
/// of its box's longest finite side.
const TRAVEL_REACH: f64 = 2.0;
/// An object travels when its move and the move its room was made with
/// are at most about 37° apart (this cosine).
const SAME_WAY: f64 = 0.8;

/// Shapes at poses with user data of type `T`; see the
/// [module documentation](self).
pub struct World<N: Real, T> {
    /// Each slot's object (`None` for a free slot).
    objects: Vec<Option<Object<N, T>>>,
    /// Each slot's generation: bumped when its object is removed.
    generations: Vec<u32>,
    free: Vec<u32>,
    /// Each slot's box: its object's bounding box, widened by half the
    /// margin (unused for a free slot).
    tight: Vec<Aabb<N>>,
    /// Each slot's box as the tree holds it: `tight` with room to move.
    roomy: Vec<Aabb<N>>,
    /// Whether a slot's room was made for a box with an unbounded or NaN
    /// side (a NaN pose, a half-space): renewed at every move, so that a
    /// box back to finite gets a finite room.
    unbounded_room: Vec<bool>,
    /// Each slot's move (the change of its box's centre) when its room
    /// was made: zero for a room made at insertion.
    room_move: Vec<Vector3<N>>,
    /// Primitive `i` of the tree is slot `order[i]`.
    order: Vec<u32>,
    /// The slot at each position of the tree order, and each live slot's
    /// position: the moved objects are queried in this order, so that
    /// consecutive queries walk the same nodes.
    slot_at: Vec<u32>,
    position_of: Vec<u32>,
    bvh: Bvh<N>,
    boxes: Vec<Aabb<N>>,
    stale: Stale,
    /// The slots whose room changed since the tree was last brought up to
    /// date (some maybe twice), while `stale` is `Refit`.
    refit: Vec<u32>,
    /// The root box's half area and the tree's surface cost
    /// ([`Bvh::surface_cost`]) when the tree was built.
    built_area: N,
    built_cost: N,
    /// Rooms renewed since the tree's surface cost was last compared with
    /// its build's.
    renewed: usize,
    /// Every two slots whose roomy boxes overlap, as sorted keys (the
    /// smaller slot in the high half), when `pairs_valid`; pairs of the
    /// slots in `moved` may be out of date.
    roomy_pairs: Vec<u64>,
    pairs_valid: bool,
    /// The slots whose room changed since the pairs were last brought up
    /// to date (tracked while `pairs_valid`), and a flag per slot.
    moved: Vec<u32>,
    is_moved: Vec<bool>,
    /// Scratch for finding and sorting candidate pairs.
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
            objects: Vec::new(),
            generations: Vec::new(),
            free: Vec::new(),
            tight: Vec::new(),
            roomy: Vec::new(),
            unbounded_room: Vec::new(),
            room_move: Vec::new(),
            order: Vec::new(),
            slot_at: Vec::new(),
            position_of: Vec::new(),
            bvh: Bvh::build(&[]),
            boxes: Vec::new(),
            stale: Stale::Fresh,
            refit: Vec::new(),
            built_area: N::zero(),
            built_cost: N::zero(),
            renewed: 0,
            roomy_pairs: Vec::new(),
            pairs_valid: false,
            moved: Vec::new(),
            is_moved: Vec::new(),
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

    /// Adds `shape` at `pose` with `data`.
    pub fn insert(&mut self, shape: Arc<dyn Shape<N>>, pose: Isometry3<N>, data: T) -> Handle {
        let aabb = box_of(shape.as_ref(), &pose, self.half_margin);
        let object = Some(Object { shape, pose, data });
        self.stale = Stale::Rebuild;
        self.forget_pairs();
        match self.free.pop() {
            Some(index) => {
                self.objects[index as usize] = object;
                self.tight[index as usize] = aabb;
                self.roomy[index as usize] = with_room(&aabb, &aabb, &mut Vector3::zeros());
                self.unbounded_room[index as usize] = !aabb.is_bounded();
                self.room_move[index as usize] = Vector3::zeros();
                self.handle_at(index)
            }
            None => {
                self.objects.push(object);
                self.generations.push(0);
                self.tight.push(aabb);
                self.roomy.push(with_room(&aabb, &aabb, &mut Vector3::zeros()));
                self.unbounded_room.push(!aabb.is_bounded());
                self.room_move.push(Vector3::zeros());
                self.is_moved.push(false);
                self.handle_at(self.objects.len() as u32 - 1)
            }
        }
    }

    /// Drops the kept candidate pairs (the next call finds them all).
    fn forget_pairs(&mut self) {
        self.pairs_valid = false;
        self.forget_moved();
    }

    /// Removes the object, returning its data (`None` for a stale handle).
    pub fn remove(&mut self, handle: Handle) -> Option<T> {
        let index = handle.index as usize;
        if self.generations.get(index) != Some(&handle.generation) {
            return None;
        }
        let object = self.objects[index].take()?;
        self.generations[index] = handle.generation.wrapping_add(1);
        self.free.push(handle.index);
        self.stale = Stale::Rebuild;
        self.forget_pairs();
        Some(object.data)
    }

    fn object(&self, handle: Handle) -> Option<&Object<N, T>> {
        let index = handle.index as usize;
        (self.generations.get(index)? == &handle.generation).then_some(self.objects[index].as_ref()?)
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
        let index = handle.index as usize;
        (self.generations.get(index)? == &handle.generation)
            .then_some(&mut self.objects[index].as_mut()?.data)
    }

    /// Moves the object to `pose`; `false` for a stale handle.
    pub fn set_pose(&mut self, handle: Handle, pose: Isometry3<N>) -> bool {
        let index = handle.index as usize;
        if self.generations.get(index) != Some(&handle.generation) {
            return false;
        }
        let Some(object) = self.objects[index].as_mut() else {
            return false;
        };
        let aabb = box_of(object.shape.as_ref(), &pose, self.half_margin);
        object.pose = pose;
        let previous = std::mem::replace(&mut self.tight[index], aabb);
        if self.unbounded_room[index] || !self.roomy[index].contains_aabb(&aabb) {
            self.renew_room(handle.index, &previous);
        }
        true
    }

    /// Gives slot `slot`, out of its room (or in one made for an unbounded
    /// box), a new one, which the tree and the pairs catch up with at the
    /// next query; its box was `previous` before this move.
    #[inline(never)]
    fn renew_room(&mut self, slot: u32, previous: &Aabb<N>) {
        let index = slot as usize;
        let aabb = self.tight[index];
        self.roomy[index] = with_room(&aabb, previous, &mut self.room_move[index]);
        self.unbounded_room[index] = !aabb.is_bounded();
        self.renewed += 1;
        self.refit_later(slot);
        if self.pairs_valid && !self.is_moved[index] {
            self.is_moved[index] = true;
            self.moved.push(slot);
        }
    }

    /// Notes that `slot`'s room changed: its box in the tree, and the
    /// nodes above it, are refit at the next query (the whole tree when
    /// more than an eighth of the objects moved out of their rooms: on 10⁴
    /// boxes a partial refit cost five to eight times a full refit's share
    /// per object moved).
    fn refit_later(&mut self, slot: u32) {
        match self.stale {
            Stale::Fresh | Stale::Refit if self.refit.len() < self.objects.len() / 8 => {
                self.refit.push(slot);
                self.stale = Stale::Refit;
            }
            Stale::Fresh | Stale::Refit => {
                self.refit.clear();
                self.stale = Stale::RefitAll;
            }
            Stale::RefitAll | Stale::Rebuild => {}
        }
    }

    /// How many objects the world holds.
    pub fn len(&self) -> usize {
        self.objects.len() - self.free.len()
    }

    /// Whether the world is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every live object's handle, in slot order.
    pub fn handles(&self) -> impl Iterator<Item = Handle> + '_ {
        (0..self.objects.len() as u32)
            .filter(|&index| self.objects[index as usize].is_some())
            .map(|index| self.handle_at(index))
    }

    fn handle_of(&self, primitive: u32) -> Handle {
        self.handle_at(self.order[primitive as usize])
    }

    fn object_of(&self, primitive: u32) -> &Object<N, T> {
        self.objects[self.order[primitive as usize] as usize]
            .as_ref()
            .expect("the tree holds live objects")
    }

    /// Brings the tree up to date with the objects (queries call it).
    pub fn update(&mut self) {
        if matches!(self.stale, Stale::Refit | Stale::RefitAll) {
            if self.stale == Stale::Refit {
                for slot in &mut self.refit {
                    *slot = self.position_of[*slot as usize];
                }
                // In the tree's order, the refit walks up through nodes
                // its neighbours just brought into cache.
                self.refit.sort_unstable();
                let (roomy, slot_at) = (&self.roomy, &self.slot_at);
                self.bvh
                    .refit_in_tree_order(&self.refit, |p| roomy[slot_at[p as usize] as usize]);
            } else {
                let (roomy, order) = (&self.roomy, &self.order);
                self.bvh.refit_with(|i| roomy[order[i as usize] as usize]);
            }
            self.refit.clear();
            let area = self.bvh.root_aabb().map_or(N::zero(), |b| half_area(&b));
            let grown = area > self.built_area * nalgebra::convert::<f64, N>(2.0);
            self.stale = if grown || self.worn() {
                Stale::Rebuild
            } else {
                Stale::Fresh
            };
        }
        if self.stale == Stale::Rebuild {
            self.refit.clear();
            self.order.clear();
            self.boxes.clear();
            for (index, object) in self.objects.iter().enumerate() {
                if object.is_some() {
                    self.order.push(index as u32);
                    self.boxes.push(self.roomy[index]);
                }
            }
            // One object per leaf: the nodes hold every object's box in
            // their four-wide arrays, so the pair traversal pairs objects
            // four at a time without a leaf step.
            self.bvh = Bvh::build_with(&self.boxes, BvhOptions { max_leaf_size: 1 });
            self.slot_at.clear();
            self.slot_at
                .extend(self.bvh.tree_order().iter().map(|&i| self.order[i as usize]));
            self.position_of.resize(self.objects.len(), 0);
            for (position, &slot) in self.slot_at.iter().enumerate() {
                self.position_of[slot as usize] = position as u32;
            }
            self.built_area = self.bvh.root_aabb().map_or(N::zero(), |b| half_area(&b));
            self.built_cost = self.bvh.surface_cost();
            self.renewed = 0;
            self.stale = Stale::Fresh;
        }
    }

    /// Whether the refit tree has worn out: once a quarter as many rooms
    /// as objects were renewed since the last look, its surface cost is
    /// compared with its build's, and a half more asks for a new build
    /// (objects drifting away from the neighbours the tree was built for
    /// slow every query; parry3d's broad phase rebuilds subtrees a little
    /// at every step for the same reason).
    fn worn(&mut self) -> bool {
        if self.renewed * 4 < self.len() {
            return false;
        }
        self.renewed = 0;
        self.bvh.surface_cost() > self.built_cost * nalgebra::convert::<f64, N>(WORN)
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

    /// Calls `visit` with every object whose box (widened by half the
    /// margin) overlaps `aabb`, until it returns `false`.
    pub fn visit_aabb(&mut self, aabb: &Aabb<N>, mut visit: impl FnMut(Handle) -> bool) {
        self.update();
        self.bvh.visit_aabb(aabb, |i| {
            !self.tight[self.order[i as usize] as usize].intersects(aabb) || visit(self.handle_of(i))
        });
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
    ///
    /// A shape that starts touching or overlapping an object hits it at
    /// `toi = 0` when the motion goes further in, and does not hit it at
    /// all when the motion leads out (along a translation the distance
    /// between convex shapes only grows once it does): a body resting on
    /// the ground and lifted off it sweeps free.
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
    /// `out` (cleared first). Pairs are kept between calls and renewed
    /// only for objects that left their room in the tree (see the
    /// [module documentation](self)).
    pub fn candidate_pairs(&mut self, out: &mut Vec<(Handle, Handle)>) {
        self.update();
        if self.pairs_need_traversal() {
            let mut keys = std::mem::take(&mut self.keys);
            keys.clear();
            self.bvh.for_each_self_pair(|i, j| {
                keys.push(slot_pair_key(self.order[i as usize], self.order[j as usize]));
            });
            sort_pair_keys(&keys, self.objects.len(), &mut self.counts, &mut self.roomy_pairs);
            self.keys = keys;
            self.pairs_valid = true;
            self.forget_moved();
        }
        self.renew_and_report_pairs(out);
    }

    /// The kept pairs brought up to date for the objects that left their
    /// room since the last call, then reported into `out`.
    fn renew_and_report_pairs(&mut self, out: &mut Vec<(Handle, Handle)>) {
        if !self.moved.is_empty() {
            self.renew_pairs_of_moved();
        }
        self.forget_moved();
        self.report_pairs(out);
    }

    /// Whether the candidate pairs are best found by one traversal of the
    /// whole tree: none are kept, or more than half the objects moved (a
    /// box query costs about twice an object's share of a traversal, as
    /// measured on 10⁴ boxes).
    fn pairs_need_traversal(&self) -> bool {
        !self.pairs_valid || self.moved.len() > self.len() / 2
    }

    /// Brings the kept pairs up to date for the objects in `moved`: their
    /// old pairs are dropped and their new ones found by one box query
    /// each in the (refit) tree.
    fn renew_pairs_of_moved(&mut self) {
        let is_moved = &self.is_moved;
        // Whether a kept pair has a moved object is a coin toss on a busy
        // step: every pair is written back and the count advanced by
        // whether it stays, without a branch.
        let mut kept = 0;
        for k in 0..self.roomy_pairs.len() {
            let key = self.roomy_pairs[k];
            self.roomy_pairs[kept] = key;
            kept += usize::from(!(is_moved[(key >> 32) as usize] | is_moved[key as u32 as usize]));
        }
        self.roomy_pairs.truncate(kept);
        // Queried in the tree's order: neighbours in it share most of
        // their paths from the root, which stay in cache.
        for moved in &mut self.moved {
            *moved = self.position_of[*moved as usize];
        }
        self.moved.sort_unstable();
        for moved in &mut self.moved {
            *moved = self.slot_at[*moved as usize];
        }
        let mut fresh = std::mem::take(&mut self.keys);
        fresh.clear();
        for &moved in &self.moved {
            self.bvh
                .visit_aabb_in_tree_order(&self.roomy[moved as usize], |position| {
                    let other = self.slot_at[position as usize];
                    // Two moved objects meet in both their queries: kept
                    // once. Pushed, then dropped unless kept (no branch).
                    let keep = (other != moved) & (!is_moved[other as usize] | (moved < other));
                    fresh.push(slot_pair_key(moved, other));
                    fresh.truncate(fresh.len() - usize::from(!keep));
                    true
                });
        }
        // Sorted by counting when the slots are few beside the keys (the
        // count costs a pass over every slot), otherwise in place.
        if fresh.len() * 4 >= self.objects.len() {
            sort_pair_keys(&fresh, self.objects.len(), &mut self.counts, &mut self.sorted);
            std::mem::swap(&mut fresh, &mut self.sorted);
        } else {
            fresh.sort_unstable();
        }
        merge_sorted(&self.roomy_pairs, &fresh, &mut self.sorted);
        std::mem::swap(&mut self.roomy_pairs, &mut self.sorted);
        self.keys = fresh;
    }

    /// Clears the moved flags (the pairs are up to date).
    fn forget_moved(&mut self) {
        for &slot in &self.moved {
            self.is_moved[slot as usize] = false;
        }
        self.moved.clear();
    }

    /// The kept pairs whose objects' own boxes overlap, as handles, into
    /// `out` (cleared first).
    fn report_pairs(&self, out: &mut Vec<(Handle, Handle)>) {
        // Every kept pair is written and the count advanced by whether it
        // holds (a branch no predictor guesses: a third to a half fail),
        // into a chunk that stays in the first-level cache; the held ones
        // are then named by their handles (the generations read for them
        // only) and appended: `out` grows to the pairs that hold, not to
        // every kept one.
        const CHUNK: usize = 256;
        let mut chunk = [0u64; CHUNK];
        out.clear();
        for keys in self.roomy_pairs.chunks(CHUNK) {
            let mut count = 0;
            for &key in keys {
                let (a, b) = ((key >> 32) as usize, key as u32 as usize);
                chunk[count] = key;
                count += usize::from(self.tight[a].intersects(&self.tight[b]));
            }
            out.extend(
                chunk[..count]
                    .iter()
                    .map(|&key| (self.handle_at((key >> 32) as u32), self.handle_at(key as u32))),
            );
        }
    }

    /// The live handle of slot `index`.
    fn handle_at(&self, index: u32) -> Handle {
        Handle {
            index,
            generation: self.generations[index as usize],
        }
    }

    /// [`World::candidate_pairs`] on rayon's threads: the same pairs in
    /// the same order. A traversal of the whole tree is split into tasks;
    /// renewing the pairs of a few moved objects stays on this thread.
    #[cfg(feature = "parallel")]
    pub fn par_candidate_pairs(&mut self, out: &mut Vec<(Handle, Handle)>)
    where
        T: Sync,
    {
        use rayon::prelude::*;
        self.update();
        if self.pairs_need_traversal() {
            let tasks = self.bvh.self_pair_tasks(8 * rayon::current_num_threads());
            let this = &*self;
            let parts: Vec<Vec<u64>> = tasks
                .par_iter()
                .map(|task| {
                    let mut part = Vec::new();
                    this.bvh.for_each_self_pair_in(task, |i, j| {
                        part.push(slot_pair_key(this.order[i as usize], this.order[j as usize]));
                    });
                    part
                })
                .collect();
            let mut keys: Vec<u64> = parts.concat();
            keys.par_sort_unstable();
            self.roomy_pairs = keys;
            self.pairs_valid = true;
            self.forget_moved();
        }
        self.renew_and_report_pairs(out);
    }
}

/// `shape`'s box at `pose`, widened by `half_margin` on every side.
fn box_of<N: Real>(shape: &dyn Shape<N>, pose: &Isometry3<N>, half_margin: N) -> Aabb<N> {
    let aabb = shape.aabb(pose);
    if half_margin > N::zero() {
        aabb.loosened(half_margin)
    } else {
        aabb
    }
}

/// Two slots' pair as one sortable integer: the smaller slot in the high
/// half (a slot holds one generation at a time, so the order is the
/// handles').
fn slot_pair_key(a: u32, b: u32) -> u64 {
    u64::from(a.min(b)) << 32 | u64::from(a.max(b))
}

/// The sorted `a` and `b` merged into `out` (cleared first).
fn merge_sorted(a: &[u64], b: &[u64], out: &mut Vec<u64>) {
    out.clear();
    out.reserve(a.len() + b.len());
    if b.len() * SPARSE_MERGE < a.len() {
        // Few keys of `b` among many of `a` (the new pairs of a few
        // moved objects among the kept ones): each is placed by a
        // galloping search of `a`, and the runs of `a` between them are
        // copied whole.
        let mut rest = a;
        for &key in b {
            let run = count_at_most(rest, key);
            out.extend_from_slice(&rest[..run]);
            out.push(key);
            rest = &rest[run..];
        }
        out.extend_from_slice(rest);
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        // Which list goes next is unpredictable: chosen without a branch.
        let (x, y) = (a[i], b[j]);
        let from_a = x <= y;
        out.push(if from_a { x } else { y });
        i += usize::from(from_a);
        j += usize::from(!from_a);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// A merge places each key of the shorter list by a search when the
/// longer one is this many times longer or more: one key per element
/// compared is a chain of loads and comparisons, a search per key a few
/// comparisons and a copy.
const SPARSE_MERGE: usize = 8;

/// How many keys at the start of the sorted `keys` are at most `key`: an
/// exponential (galloping) search from the start, then a binary one
/// (Bentley and Yao 1976), in about `2 log₂` of the answer comparisons.
fn count_at_most(keys: &[u64], key: u64) -> usize {
    // Every key before `low` is at most `key`.
    let mut low = 0;
    let mut step = 1;
    while low + step <= keys.len() && keys[low + step - 1] <= key {
        low += step;
        step *= 2;
    }
    let high = (low + step).min(keys.len());
    low + keys[low..high].partition_point(|&k| k <= key)
}

/// The longest finite side of a box (zero when none is finite).
fn longest_finite_side<N: Real>(aabb: &Aabb<N>) -> N {
    (aabb.maxs - aabb.mins)
        .iter()
        .filter(|e| e.is_finite())
        .fold(N::zero(), |m, &e| if e > m { e } else { m })
}

/// The box the tree holds for an object whose box is `aabb` and was
/// `previous` before its last move, when its room was last made with the
/// move `last_move` (updated to this one, or to zero when this one is not
/// finite).
///
/// Most objects get `aabb` grown by [`ROOM`] of its longest finite side on
/// every side (an unbounded box gets none), and on each axis by
/// [`ROOM_PER_MOVE`] times the move along it, both ways, at most that side
/// (Box2D's fat boxes, grown with speed; the cap keeps a jump across the
/// world from leaving a room as long as the jump). Both ways, not only
/// ahead as Box2D's motion prediction (Catto) does: a room stretched ahead
/// is left by the first move back, and bodies turn back all the time
/// (bounces, contacts settling, anything swinging). On 10⁴ boxes moving
/// back and forth, rooms stretched ahead were left by 7273 of the boxes at
/// once once per cycle, and by up to 1110 a step in waves between, and
/// those stretched both ways almost never (docs/benchmarks.md).
///
/// An object that left its room moving the way it moved when the room was
/// made is travelling (falling, thrown, sliding): it has most likely not
/// turned back while crossing its room, so its new room lies ahead,
/// [`TRAVEL_AHEAD`] moves along each axis (at most [`TRAVEL_REACH`] times
/// its longest side) and one behind, with [`TRAVEL_ROOM`] of that side all
/// round for jitter across its path. On 10⁴ boxes drifting one way this
/// halved the rooms left per step (549 to 290) and held fewer pairs
/// (29 400 to 25 400) than rooms stretched both ways; an object that does
/// turn back leaves its travelling room by its back side within a move or
/// two, with a move the other way, and gets a two-way room.
fn with_room<N: Real>(aabb: &Aabb<N>, previous: &Aabb<N>, last_move: &mut Vector3<N>) -> Aabb<N> {
    let moved = aabb.center() - previous.center();
    // A NaN or infinite move (a pose gone bad) stretches nothing and
    // starts no travel.
    let moved = if moved.iter().all(|m| m.is_finite()) {
        moved
    } else {
        Vector3::zeros()
    };
    let travelling = same_way(&moved, last_move);
    *last_move = moved;
    let (room, ahead, behind, reach) = if travelling {
        (TRAVEL_ROOM, TRAVEL_AHEAD, 1.0, TRAVEL_REACH)
    } else {
        (ROOM, ROOM_PER_MOVE, ROOM_PER_MOVE, 1.0)
    };
    let longest = longest_finite_side(aabb);
    let cap = longest * nalgebra::convert::<f64, N>(reach);
    let stretch = |length: N, moves: f64| {
        let length = length.abs() * nalgebra::convert::<f64, N>(moves);
        if length < cap { length } else { cap }
    };
    let mut roomy = aabb.loosened(longest * nalgebra::convert::<f64, N>(room));
    for axis in 0..3 {
        let (forward, backward) = (stretch(moved[axis], ahead), stretch(moved[axis], behind));
        let (below, above) = if moved[axis] >= N::zero() {
            (backward, forward)
        } else {
            (forward, backward)
        };
        roomy.mins[axis] -= below;
        roomy.maxs[axis] += above;
    }
    roomy
}

/// Whether the moves `a` and `b` (finite) are at most about 37° apart
/// ([`SAME_WAY`]); never for a zero move.
fn same_way<N: Real>(a: &Vector3<N>, b: &Vector3<N>) -> bool {
    let along = a.dot(b);
    let bound = nalgebra::convert::<f64, N>(SAME_WAY * SAME_WAY) * a.norm_squared() * b.norm_squared();
    along > N::zero() && along * along > bound
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

#[cfg(test)]
mod tests {
    use super::*;
    use geom_prims::Cuboid;
    use geom_random::Rng;
    use nalgebra::Point3;

    /// `aabb` moved by `shift`.
    fn shifted(aabb: &Aabb<f64>, shift: &Vector3<f64>) -> Aabb<f64> {
        Aabb::new(aabb.mins + shift, aabb.maxs + shift)
    }

    #[test]
    fn merges_equal_a_sort_of_both_lists_dense_or_sparse() {
        // Both merges (a search per key of a list many times shorter, a
        // comparison per element otherwise), against sorting the two lists
        // together: lists empty, of one key, sparse in the other, dense,
        // with repeated keys and keys at the ends of the range.
        let mut rng = Rng::new(9);
        let mut out = Vec::new();
        for case in 0..3000 {
            let sizes = [0, 1, 2, 7, 40, 300, 2000];
            let (n, m) = (sizes[rng.below(sizes.len())], sizes[rng.below(sizes.len())]);
            let spread = [4, 1000, u64::MAX][case % 3];
            let mut list = |len: usize| {
                let mut keys: Vec<u64> = (0..len)
                    .map(|_| match rng.below(20) {
                        0 => 0,
                        1 => spread,
                        _ => rng.below(1 << 31) as u64 % spread.max(1),
                    })
                    .collect();
                keys.sort_unstable();
                keys
            };
            let (a, b) = (list(n), list(m));
            let mut expected = [a.clone(), b.clone()].concat();
            expected.sort_unstable();
            merge_sorted(&a, &b, &mut out);
            assert_eq!(out, expected, "case {case}: {n} and {m} keys");
            merge_sorted(&b, &a, &mut out);
            assert_eq!(out, expected, "case {case}: {m} and {n} keys");
        }
    }

    #[test]
    fn counts_at_most_a_key_as_a_linear_scan() {
        let mut rng = Rng::new(10);
        for _ in 0..2000 {
            let mut keys: Vec<u64> = (0..rng.below(70)).map(|_| rng.below(50) as u64).collect();
            keys.sort_unstable();
            let key = rng.below(55) as u64;
            assert_eq!(
                count_at_most(&keys, key),
                keys.iter().filter(|&&k| k <= key).count()
            );
        }
    }

    #[test]
    fn rooms_hold_the_moves_they_are_made_for_and_no_more() {
        // A two-way room holds the box a quarter of its side out and up to
        // four moves either way; a travelling one a sixteenth out, 32 moves
        // ahead and one behind; each reaches exactly that far (the moves
        // are kept under the caps here; the caps are checked below).
        let mut rng = Rng::new(5);
        for case in 0..2000 {
            let centre = Point3::from(rng.vector(50.0));
            let half = Vector3::new(rng.range(0.1, 2.0), rng.range(0.1, 2.0), rng.range(0.1, 2.0));
            let aabb = Aabb::from_half_extents(centre, half);
            let longest = 2.0 * half.max();
            let step = rng.vector(longest / 40.0);
            let previous = shifted(&aabb, &-step);
            // The move the old room was made with: none (an insert), the
            // same way, a turn back or across.
            let mut last = match case % 4 {
                0 => Vector3::zeros(),
                1 => step * rng.range(0.5, 2.0) + rng.vector(0.1 * step.norm()),
                2 => -step,
                _ => step.cross(&Vector3::new(1.0, 2.0, 3.0)),
            };
            let travelling = case % 4 == 1;
            let room = with_room(&aabb, &previous, &mut last);
            assert_eq!(last, aabb.center() - previous.center(), "the move is kept");
            let (out, ahead, behind) = if travelling {
                (longest / 16.0, 32.0, 1.0)
            } else {
                (longest / 4.0, 4.0, 4.0)
            };
            let grown = aabb.loosened(out);
            // (Just inside the ends: the room's bounds are rounded sums.)
            for t in [-0.99 * behind, -behind / 2.0, 0.0, ahead / 2.0, 0.99 * ahead] {
                assert!(
                    room.contains_aabb(&shifted(&grown, &(step * t))),
                    "case {case}, t {t}"
                );
            }
            let reach = |moves: f64| step.map(|s| s.abs() * moves);
            let (forward, backward) = (reach(ahead), reach(behind));
            for axis in 0..3 {
                let (below, above) = if step[axis] >= 0.0 {
                    (backward[axis], forward[axis])
                } else {
                    (forward[axis], backward[axis])
                };
                let slack = 1e-9 * (1.0 + centre[axis].abs());
                assert!(
                    (room.mins[axis] - (grown.mins[axis] - below)).abs() < slack,
                    "case {case}"
                );
                assert!(
                    (room.maxs[axis] - (grown.maxs[axis] + above)).abs() < slack,
                    "case {case}"
                );
            }
        }
    }

    #[test]
    fn a_room_reaches_no_farther_than_its_cap_and_a_bad_move_stretches_nothing() {
        let aabb = Aabb::from_half_extents(Point3::new(1.0, 2.0, 3.0), Vector3::new(0.5, 1.0, 0.25));
        // A jump of 100 along x, the same way as the last: travelling, its
        // reach ahead capped at twice the longest side (2), one move behind
        // capped alike.
        let jump = Vector3::new(100.0, 0.0, 0.0);
        let mut last = jump;
        let room = with_room(&aabb, &shifted(&aabb, &-jump), &mut last);
        let out = 2.0 / 16.0;
        assert_eq!(room.maxs.x, aabb.maxs.x + out + 4.0);
        assert_eq!(room.mins.x, aabb.mins.x - out - 4.0);
        assert_eq!(room.maxs.y, aabb.maxs.y + out);
        // Back again: a two-way room, capped at the side.
        let room = with_room(&aabb, &shifted(&aabb, &jump), &mut last);
        assert_eq!(room.maxs.x, aabb.maxs.x + 0.5 + 2.0);
        assert_eq!(room.mins.x, aabb.mins.x - 0.5 - 2.0);
        // From a NaN box: no stretch, no travel, and the kept move is zero
        // (so the next move does not count as travelling either).
        let nan = Aabb {
            mins: Point3::new(f64::NAN, 0.0, 0.0),
            maxs: Point3::new(f64::NAN, 1.0, 1.0),
        };
        let room = with_room(&aabb, &nan, &mut last);
        assert_eq!(room, aabb.loosened(0.5));
        assert_eq!(last, Vector3::zeros());
    }

    #[test]
    fn an_object_travelling_one_way_renews_its_room_every_32_moves_or_so() {
        // One box (side 1) among resting ones moves 0.05 a step along a
        // diagonal for 640 steps: once it travels, its rooms reach 32 moves
        // ahead (1.6 along x, a sixteenth of its side more), so it leaves
        // one about every 33 steps, about 20 in all, where two-way rooms (a
        // quarter of its side and four moves either way, 0.45 along x)
        // would be left every 9 steps, about 70 times; then it swings back
        // and forth within four moves and keeps its room.
        let mut world: World<f64, ()> = World::new();
        let cuboid: Arc<dyn Shape<f64>> = Arc::new(Cuboid::new(Vector3::new(0.5, 0.5, 0.5)));
        let mover = world.insert(cuboid.clone(), Isometry3::identity(), ());
        for k in 1..20 {
            world.insert(
                cuboid.clone(),
                Isometry3::translation(3.0 * k as f64, 10.0, 0.0),
                (),
            );
        }
        let mut pairs = Vec::new();
        world.candidate_pairs(&mut pairs);
        let step = Vector3::new(0.05, 0.03, -0.04);
        let mut at = Vector3::zeros();
        let mut renewals = 0;
        for pass in 0..700 {
            let before = world.roomy[mover.index as usize];
            at += if pass < 640 || pass % 4 < 2 { step } else { -step };
            world.set_pose(mover, Isometry3::translation(at.x, at.y, at.z));
            world.candidate_pairs(&mut pairs);
            if world.roomy[mover.index as usize] != before {
                renewals += 1;
                assert!(pass < 642, "renewed while swinging, pass {pass}");
            }
        }
        assert!((18..=24).contains(&renewals), "{renewals} renewals");
    }
}
