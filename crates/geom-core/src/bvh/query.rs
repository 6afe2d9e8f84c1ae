//! Queries through the tree: rays, boxes, the closest primitive to a point,
//! and candidate pairs. Each node's four child boxes are tested at once
//! (four-wide arrays, which the compiler turns into SIMD lanes).

// The four-lane loops index several arrays in lockstep.
#![allow(clippy::needless_range_loop)]

use nalgebra::Point3;

use super::{Bvh, ChildRef, EMPTY, LEAF, Node, STACK_SIZE, WIDTH};
use crate::aabb::Aabb;
use crate::ray::Ray;
use crate::scalar::Real;

/// `1 + 4ε`: the slab test's entry and exit times each carry at most three
/// roundings, so comparing the entry with the exit (and the best time so
/// far) widened by this never culls a box the exact ray meets.
fn widening<N: Real>() -> N {
    N::one() + nalgebra::convert::<f64, N>(4.0) * N::default_epsilon()
}

/// `x >= 0`, false for NaN.
fn non_negative<N: Real>(x: N) -> bool {
    x >= N::zero()
}

/// A ray prepared for slab tests: its origin, the inverse of its
/// direction (infinite for zero components) and which slab plane it meets
/// first on each axis.
struct Slabs<N: Real> {
    origin: [N; 3],
    inverse: [N; 3],
    negative: [bool; 3],
}

impl<N: Real> Slabs<N> {
    fn new(ray: &Ray<N>) -> Self {
        let inverse = [0, 1, 2].map(|i| N::one() / ray.dir[i]);
        Slabs {
            origin: [0, 1, 2].map(|i| ray.origin[i]),
            inverse,
            negative: inverse.map(|v| v < N::zero()),
        }
    }

    /// The entry times of the four children and which of them the ray
    /// meets within `[0, max_t]`, bit `k` for child `k` (Williams et al.
    /// 2005, with the exit widened by [`widening`]). A ray lying in a
    /// slab's plane (`0 · ∞`, NaN) is inside that slab: the comparisons
    /// below ignore a NaN time. An empty slot's box (mins `+∞`, maxs `−∞`)
    /// is entered at `+∞` and left at `−∞` by every finite ray: never met.
    #[inline(always)]
    fn enter(&self, node: &Node<N>, max_t: N) -> ([N; WIDTH], u32) {
        let widen = widening::<N>();
        let mut enter = [N::zero(); WIDTH];
        let mut exit = [max_t * widen; WIDTH];
        for axis in 0..3 {
            let (near, far) = if self.negative[axis] {
                (&node.maxs[axis], &node.mins[axis])
            } else {
                (&node.mins[axis], &node.maxs[axis])
            };
            let (o, inv) = (self.origin[axis], self.inverse[axis]);
            for k in 0..WIDTH {
                let t_near = (near[k] - o) * inv;
                let t_far = (far[k] - o) * inv * widen;
                enter[k] = if t_near > enter[k] { t_near } else { enter[k] };
                exit[k] = if t_far < exit[k] { t_far } else { exit[k] };
            }
        }
        let mut hits = 0;
        for k in 0..WIDTH {
            hits |= u32::from(enter[k] <= exit[k]) << k;
        }
        (enter, hits)
    }
}

/// Squared distances from `point` to the four children's boxes (zero
/// inside).
#[inline]
fn box_distances_squared<N: Real>(node: &Node<N>, point: &[N; 3]) -> [N; WIDTH] {
    let mut total = [N::zero(); WIDTH];
    for axis in 0..3 {
        let p = point[axis];
        for k in 0..WIDTH {
            let below = node.mins[axis][k] - p;
            let above = p - node.maxs[axis][k];
            let d = if below > above { below } else { above };
            let d = if d > N::zero() { d } else { N::zero() };
            total[k] += d * d;
        }
    }
    total
}

/// The children of `node` (bit `k` for child `k`) whose boxes overlap
/// `aabb` (touching counts) and that are not empty slots: computed without
/// branches, so that the pair traversals iterate over set bits rather than
/// test four outcomes the branch predictor cannot guess.
#[inline(always)]
fn overlap_mask<N: Real>(node: &Node<N>, aabb: &Aabb<N>) -> u32 {
    let hit = overlaps(node, aabb);
    let mut mask = 0;
    for k in 0..WIDTH {
        mask |= u32::from(hit[k] & (node.children[k] != EMPTY)) << k;
    }
    mask
}

/// The set bits of `mask`, lowest first.
#[inline(always)]
fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            k
        })
    })
}

/// Which of the four children's boxes overlap `aabb` (touching counts):
/// all six of a child's bound comparisons hold. They are counted rather
/// than chained with `&`, a sum the compiler keeps in SIMD lanes (one
/// compare per axis and side for all four children).
#[inline(always)]
fn overlaps<N: Real>(node: &Node<N>, aabb: &Aabb<N>) -> [bool; WIDTH] {
    let mut holding = [0u32; WIDTH];
    for axis in 0..3 {
        for (k, count) in holding.iter_mut().enumerate() {
            *count += u32::from(node.mins[axis][k] <= aabb.maxs[axis])
                + u32::from(node.maxs[axis][k] >= aabb.mins[axis]);
        }
    }
    holding.map(|count| count == 6)
}

/// Pushes the children flagged in `mask` (bit `k` for child `k`) onto
/// `stack`, farthest first (so the nearest is popped first), with their
/// keys; children of equal keys keep their order. Every child is written
/// and the length advances by whether it is pushed (no branch on the
/// outcome of each child's test), then the few pushed are sorted in place.
#[inline(always)]
fn push_sorted<N: Real>(
    node: &Node<N>,
    keys: &[N; WIDTH],
    mask: u32,
    stack: &mut [(ChildRef, N); STACK_SIZE],
    len: &mut usize,
) {
    let base = *len;
    for k in 0..WIDTH {
        stack[*len] = (node.children[k], keys[k]);
        *len += (mask >> k & 1) as usize;
    }
    // Insertion by decreasing key.
    for i in base + 1..*len {
        let mut at = i;
        while at > base && stack[at - 1].1 < stack[at].1 {
            stack.swap(at - 1, at);
            at -= 1;
        }
    }
}

/// The best answer of a nearest-first query so far, and the reach it
/// leaves: `max_t` or `max_distance` until one is found.
struct Best<N> {
    found: Option<(u32, N)>,
    reach: N,
}

impl<N: Real> Best<N> {
    fn new(reach: N) -> Self {
        Best { found: None, reach }
    }

    /// Keeps `answer` for primitive `p` if it is nearer than the best so
    /// far (on equal values the first answered wins); an answer beyond the
    /// reach is ignored.
    #[inline(always)]
    fn offer(&mut self, p: u32, answer: Option<N>) {
        if let Some(value) = answer
            && (value < self.reach || (self.found.is_none() && value <= self.reach))
        {
            self.reach = value;
            self.found = Some((p, value));
        }
    }
}

/// A query that visits the tree nearest first and shrinks its reach as it
/// finds better answers: the first ray hit and the closest primitive. See
/// [`Bvh::visit_nearest_first`].
trait NearestFirst<N: Real> {
    /// The keys of `node`'s children (their distances along the query)
    /// and which of them are within reach, bit `k` for child `k` (never
    /// an empty slot).
    fn keys(&self, node: &Node<N>) -> ([N; WIDTH], u32);
    /// Whether a child that waited with `key` is still within reach.
    fn within_reach(&self, key: N) -> bool;
    /// Tests the primitives at `positions` in the tree order.
    fn leaf(&mut self, positions: std::ops::Range<usize>);
}

/// A part of a pair traversal: two subtrees (or one, for the pairs within
/// it) whose boxes overlap. See [`Bvh::self_pair_tasks`].
#[derive(Clone, Copy, Debug)]
pub struct PairTask<N: Real> {
    x: ChildRef,
    y: ChildRef,
    scalar: std::marker::PhantomData<N>,
}

impl<N: Real> PairTask<N> {
    fn new(x: ChildRef, y: ChildRef) -> Self {
        PairTask {
            x,
            y,
            scalar: std::marker::PhantomData,
        }
    }
}

impl<N: Real> Bvh<N> {
    /// The first primitive along `ray` within `[0, max_t]`: `test(i, best)`
    /// gets each primitive whose box the ray meets, nearest boxes first,
    /// with the best time so far (`max_t` at first), and answers the time
    /// at which the ray meets primitive `i` (`None` for a miss; a time
    /// above `best` is ignored). Returns the primitive and its time; on
    /// equal times the first answered wins.
    ///
    /// `None` for an empty tree, a non-finite ray or a negative or NaN
    /// `max_t`.
    pub fn ray_cast<F>(&self, ray: &Ray<N>, max_t: N, mut test: F) -> Option<(u32, N)>
    where
        F: FnMut(u32, N) -> Option<N>,
    {
        self.ray_cast_in_tree_order(ray, max_t, |p, best| test(self.indices[p as usize], best))
            .map(|(p, t)| (self.indices[p as usize], t))
    }

    /// [`Bvh::ray_cast`] with primitives named by their positions in the
    /// [tree order](Bvh::tree_order) rather than their indices: `test(p,
    /// best)` and the answer name position `p`. A caller keeping its
    /// primitives' data in that order reads a leaf's from adjacent memory.
    pub fn ray_cast_in_tree_order<F>(&self, ray: &Ray<N>, max_t: N, mut test: F) -> Option<(u32, N)>
    where
        F: FnMut(u32, N) -> Option<N>,
    {
        self.ray_cast_leaves_in_tree_order(ray, max_t, |positions, reach| {
            let mut best = Best::new(reach);
            for p in positions {
                best.offer(p, test(p, best.reach));
            }
            best.found
        })
    }

    /// [`Bvh::ray_cast_in_tree_order`] a leaf at a time: `test_leaf(positions,
    /// best)` gets the positions of each leaf whose box the ray meets
    /// (nearest first) with the best time so far, and answers the first of
    /// its primitives hit at the least time not above `best` (`None` if
    /// none is), as testing them in turn would. A caller can so test a
    /// leaf's primitives together, on SIMD lanes.
    pub fn ray_cast_leaves_in_tree_order<F>(&self, ray: &Ray<N>, max_t: N, test_leaf: F) -> Option<(u32, N)>
    where
        F: FnMut(std::ops::Range<u32>, N) -> Option<(u32, N)>,
    {
        if self.nodes.is_empty() || !ray.is_finite() || !non_negative(max_t) {
            return None;
        }
        let mut query = FirstHit {
            slabs: Slabs::new(ray),
            widen: widening::<N>(),
            best: Best::new(max_t),
            test_leaf,
        };
        self.visit_nearest_first(&mut query);
        query.best.found
    }

    /// Visits the tree from the root for `query`: at each node the children
    /// within reach are taken nearest first. The nearest goes on at once (no
    /// trip through the stack when it is the only one); the others wait on
    /// the stack, farthest at the bottom, and are dropped when popped if the
    /// answers found meanwhile put them out of reach.
    #[inline(always)]
    fn visit_nearest_first<Q: NearestFirst<N>>(&self, query: &mut Q) {
        let mut stack = [(0 as ChildRef, N::zero()); STACK_SIZE];
        let mut len = 0;
        let mut child: ChildRef = 0;
        loop {
            if child & LEAF != 0 {
                query.leaf(self.leaf_range(child & !LEAF));
            } else {
                let node = &self.nodes[child as usize];
                let (keys, mask) = query.keys(node);
                if mask != 0 {
                    if mask & (mask - 1) == 0 {
                        child = node.children[mask.trailing_zeros() as usize];
                    } else {
                        push_sorted(node, &keys, mask, &mut stack, &mut len);
                        len -= 1;
                        child = stack[len].0;
                    }
                    continue;
                }
            }
            loop {
                if len == 0 {
                    return;
                }
                len -= 1;
                let (waiting, key) = stack[len];
                if query.within_reach(key) {
                    child = waiting;
                    break;
                }
            }
        }
    }

    /// Calls `visit(i)` for every primitive whose box `ray` meets within
    /// `[0, max_t]`, in no particular order, until `visit` returns `false`.
    /// Nothing is visited for an empty tree, a non-finite ray or a negative
    /// or NaN `max_t`.
    pub fn visit_ray<F>(&self, ray: &Ray<N>, max_t: N, mut visit: F)
    where
        F: FnMut(u32) -> bool,
    {
        if self.nodes.is_empty() || !ray.is_finite() || !non_negative(max_t) {
            return;
        }
        let slabs = Slabs::new(ray);
        let mut stack = [(0 as ChildRef, N::zero()); STACK_SIZE];
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let (child, _) = stack[len];
            if child & LEAF != 0 {
                for &i in self.leaf_indices(child & !LEAF) {
                    if !visit(i) {
                        return;
                    }
                }
                continue;
            }
            let node = &self.nodes[child as usize];
            let (enter, hits) = slabs.enter(node, max_t);
            push_sorted(node, &enter, hits, &mut stack, &mut len);
        }
    }

    /// Calls `visit(i)` for every primitive whose box overlaps `aabb`
    /// (touching counts), until `visit` returns `false`. A box with a NaN
    /// bound meets nothing.
    pub fn visit_aabb<F>(&self, aabb: &Aabb<N>, mut visit: F)
    where
        F: FnMut(u32) -> bool,
    {
        self.visit_aabb_in_tree_order(aabb, |p| visit(self.indices[p as usize]));
    }

    /// [`Bvh::visit_aabb`] with primitives named by their positions in the
    /// [tree order](Bvh::tree_order).
    pub fn visit_aabb_in_tree_order<F>(&self, aabb: &Aabb<N>, mut visit: F)
    where
        F: FnMut(u32) -> bool,
    {
        // A NaN bound fails every comparison below.
        if self.nodes.is_empty() {
            return;
        }
        let mut stack: [ChildRef; STACK_SIZE] = [0; STACK_SIZE];
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let child = stack[len];
            if child & LEAF != 0 {
                let range = self.leaf_range(child & !LEAF);
                if range.len() == 1 {
                    // The leaf's box in its parent, just tested, is its
                    // one primitive's.
                    if !visit(range.start as u32) {
                        return;
                    }
                    continue;
                }
                for p in range {
                    if self.boxes[p].intersects(aabb) && !visit(p as u32) {
                        return;
                    }
                }
                continue;
            }
            let node = &self.nodes[child as usize];
            for k in bits(overlap_mask(node, aabb)) {
                stack[len] = node.children[k];
                len += 1;
            }
        }
    }

    /// The primitive nearest to `point` within `max_distance`:
    /// `test(i, best)` gets each primitive whose box is within the best
    /// distance so far (`max_distance` at first), nearest boxes first, and
    /// answers its distance to `point` (`None` to skip it; a distance above
    /// `best` is ignored). Returns the primitive and its distance.
    ///
    /// `None` for an empty tree, a non-finite point or a negative or NaN
    /// `max_distance` (infinity searches everything).
    pub fn closest<F>(&self, point: &Point3<N>, max_distance: N, mut test: F) -> Option<(u32, N)>
    where
        F: FnMut(u32, N) -> Option<N>,
    {
        self.closest_in_tree_order(point, max_distance, |p, best| {
            test(self.indices[p as usize], best)
        })
        .map(|(p, d)| (self.indices[p as usize], d))
    }

    /// [`Bvh::closest`] with primitives named by their positions in the
    /// [tree order](Bvh::tree_order).
    pub fn closest_in_tree_order<F>(&self, point: &Point3<N>, max_distance: N, test: F) -> Option<(u32, N)>
    where
        F: FnMut(u32, N) -> Option<N>,
    {
        if self.nodes.is_empty() || !point.iter().all(|c| c.is_finite()) || !non_negative(max_distance) {
            return None;
        }
        let mut query = Closest {
            bvh: self,
            point: *point,
            widen: widening::<N>(),
            best: Best::new(max_distance),
            test,
        };
        self.visit_nearest_first(&mut query);
        query.best.found
    }

    /// Calls `pair(i, j)` once for every primitive `i` of this tree and `j`
    /// of `other` whose boxes overlap (touching counts). Both trees are in
    /// the same frame. Allocates its traversal stack (once per call).
    pub fn for_each_pair<F>(&self, other: &Bvh<N>, mut pair: F)
    where
        F: FnMut(u32, u32),
    {
        let (Some(a), Some(b)) = (self.root_aabb(), other.root_aabb()) else {
            return;
        };
        if !a.intersects(&b) {
            return;
        }
        let mut stack = vec![PairTask::new(0, 0)];
        while let Some(task) = stack.pop() {
            self.descend_pair(other, task.x, task.y, &mut stack, &mut pair, true);
        }
    }

    /// Calls `pair(i, j)` with `i < j` once for every two primitives of
    /// this tree whose boxes overlap (touching counts): the candidate pairs
    /// of a broad phase. Allocates its traversal stack (once per call).
    pub fn for_each_self_pair<F>(&self, mut pair: F)
    where
        F: FnMut(u32, u32),
    {
        if self.nodes.is_empty() {
            return;
        }
        // `(x, x)` stands for the pairs within subtree x.
        let mut stack = vec![PairTask::new(0, 0)];
        while let Some(task) = stack.pop() {
            self.self_pair_step(&task, &mut stack, &mut pair, true);
        }
    }

    /// The self-pair traversal ([`Bvh::for_each_self_pair`]) cut into at
    /// least `at_least` independent parts where the tree allows, for
    /// threads to share: every candidate pair is found by exactly one
    /// task through [`Bvh::for_each_self_pair_in`].
    pub fn self_pair_tasks(&self, at_least: usize) -> Vec<PairTask<N>> {
        if self.nodes.is_empty() {
            return Vec::new();
        }
        let mut queue = std::collections::VecDeque::from([PairTask::new(0, 0)]);
        let mut done = Vec::new();
        let mut expanded = Vec::new();
        while queue.len() + done.len() < at_least {
            let Some(task) = queue.pop_front() else {
                break;
            };
            if task.x & LEAF != 0 && task.y & LEAF != 0 {
                // Reports pairs: left whole.
                done.push(task);
                continue;
            }
            expanded.clear();
            // Not eager: every pair stays in a task.
            self.self_pair_step(
                &task,
                &mut expanded,
                &mut |_, _| unreachable!("a step with an inner side reports no pair"),
                false,
            );
            queue.extend(expanded.drain(..));
        }
        done.extend(queue);
        done
    }

    /// The candidate pairs of one task of [`Bvh::self_pair_tasks`], as
    /// [`Bvh::for_each_self_pair`] reports them.
    pub fn for_each_self_pair_in<F>(&self, task: &PairTask<N>, mut pair: F)
    where
        F: FnMut(u32, u32),
    {
        let mut stack = vec![*task];
        while let Some(task) = stack.pop() {
            self.self_pair_step(&task, &mut stack, &mut pair, true);
        }
    }

    /// One step of the self-pair traversal: `(x, x)` expands into its
    /// children's pairs (or reports a leaf's own pairs); `(x, y)` is a
    /// two-subtree descent step.
    fn self_pair_step<F>(&self, task: &PairTask<N>, stack: &mut Vec<PairTask<N>>, pair: &mut F, eager: bool)
    where
        F: FnMut(u32, u32),
    {
        let (x, y) = (task.x, task.y);
        if x != y {
            self.descend_pair(self, x, y, stack, &mut |i, j| pair(i.min(j), i.max(j)), eager);
        } else if x & LEAF != 0 {
            self.pairs_within_leaf(x & !LEAF, pair);
        } else {
            let node = &self.nodes[x as usize];
            for k in 0..WIDTH {
                let child = node.children[k];
                if child == EMPTY {
                    continue;
                }
                if eager && child & LEAF != 0 {
                    // A leaf's own pairs at once (none in a one-primitive leaf).
                    self.pairs_within_leaf(child & !LEAF, pair);
                } else {
                    stack.push(PairTask::new(child, child));
                }
                // Siblings after `k` that overlap it.
                let later = overlap_mask(node, &node.child_box(k)) & (u32::MAX << (k + 1));
                for m in bits(later) {
                    let other = node.children[m];
                    if eager && child & LEAF != 0 && other & LEAF != 0 {
                        self.leaf_pairs(self, child & !LEAF, other & !LEAF, &mut |i, j| {
                            pair(i.min(j), i.max(j))
                        });
                    } else {
                        stack.push(PairTask::new(child, other));
                    }
                }
            }
        }
    }

    /// The overlapping pairs among one leaf's primitives, `i < j`.
    #[inline]
    fn pairs_within_leaf<F>(&self, leaf: u32, pair: &mut F)
    where
        F: FnMut(u32, u32),
    {
        let range = self.leaf_range(leaf);
        for p in range.clone() {
            for q in p + 1..range.end {
                if self.boxes[p].intersects(&self.boxes[q]) {
                    let (i, j) = (self.indices[p], self.indices[q]);
                    pair(i.min(j), i.max(j));
                }
            }
        }
    }

    /// The overlapping pairs of leaf `x` of this tree and leaf `y` of
    /// `other`, whose boxes are known to overlap: two single primitives
    /// pair at once (their boxes are the leaves').
    #[inline]
    fn leaf_pairs<F>(&self, other: &Bvh<N>, x: u32, y: u32, pair: &mut F)
    where
        F: FnMut(u32, u32),
    {
        let (range_x, range_y) = (self.leaf_range(x), other.leaf_range(y));
        if range_x.len() == 1 && range_y.len() == 1 {
            pair(self.indices[range_x.start], other.indices[range_y.start]);
            return;
        }
        for p in range_x {
            let box_p = &self.boxes[p];
            for q in range_y.clone() {
                if box_p.intersects(&other.boxes[q]) {
                    pair(self.indices[p], other.indices[q]);
                }
            }
        }
    }

    /// The box of child reference `c` (a leaf's from its primitives).
    fn reference_box(&self, c: ChildRef) -> Aabb<N> {
        if c & LEAF != 0 {
            self.leaf_box(c & !LEAF)
        } else {
            self.node_box(c as usize)
        }
    }

    /// One step of a two-tree descent over the overlapping subtrees `x`
    /// (of `self`) and `y` (of `other`): two leaves report their
    /// overlapping primitives; two inner nodes pair their children, each
    /// against each; a leaf and a node pair the leaf with the node's
    /// children. When `eager`, two leaves met this way pair at once rather
    /// than as a task.
    fn descend_pair<F>(
        &self,
        other: &Bvh<N>,
        x: ChildRef,
        y: ChildRef,
        stack: &mut Vec<PairTask<N>>,
        pair: &mut F,
        eager: bool,
    ) where
        F: FnMut(u32, u32),
    {
        match (x & LEAF != 0, y & LEAF != 0) {
            // A task of two leaves is pushed only when their boxes overlap.
            (true, true) => self.leaf_pairs(other, x & !LEAF, y & !LEAF, pair),
            (false, false) => {
                let (node_x, node_y) = (&self.nodes[x as usize], &other.nodes[y as usize]);
                // Only the children of `x` that meet `y`'s box can meet
                // one of its children.
                for k in bits(overlap_mask(node_x, &other.node_box(y as usize))) {
                    for m in bits(overlap_mask(node_y, &node_x.child_box(k))) {
                        self.meet(other, node_x.children[k], node_y.children[m], stack, pair, eager);
                    }
                }
            }
            (false, true) => {
                let node = &self.nodes[x as usize];
                for k in bits(overlap_mask(node, &other.reference_box(y))) {
                    self.meet(other, node.children[k], y, stack, pair, eager);
                }
            }
            (true, false) => {
                let node = &other.nodes[y as usize];
                for m in bits(overlap_mask(node, &self.reference_box(x))) {
                    self.meet(other, x, node.children[m], stack, pair, eager);
                }
            }
        }
    }

    /// Subtrees `x` (of `self`) and `y` (of `other`) whose boxes overlap:
    /// a task, or when `eager` and both are leaves, their pairs at once.
    #[inline(always)]
    fn meet<F>(
        &self,
        other: &Bvh<N>,
        x: ChildRef,
        y: ChildRef,
        stack: &mut Vec<PairTask<N>>,
        pair: &mut F,
        eager: bool,
    ) where
        F: FnMut(u32, u32),
    {
        if eager && x & LEAF != 0 && y & LEAF != 0 {
            self.leaf_pairs(other, x & !LEAF, y & !LEAF, pair);
        } else {
            stack.push(PairTask::new(x, y));
        }
    }
}

/// [`Bvh::ray_cast_leaves_in_tree_order`]'s traversal state; the reach is the
/// best time so far.
struct FirstHit<N: Real, F> {
    slabs: Slabs<N>,
    widen: N,
    best: Best<N>,
    test_leaf: F,
}

impl<N: Real, F: FnMut(std::ops::Range<u32>, N) -> Option<(u32, N)>> NearestFirst<N> for FirstHit<N, F> {
    #[inline(always)]
    fn keys(&self, node: &Node<N>) -> ([N; WIDTH], u32) {
        self.slabs.enter(node, self.best.reach)
    }

    #[inline(always)]
    fn within_reach(&self, enter: N) -> bool {
        enter <= self.best.reach * self.widen
    }

    #[inline(always)]
    fn leaf(&mut self, positions: std::ops::Range<usize>) {
        let positions = positions.start as u32..positions.end as u32;
        if let Some((p, t)) = (self.test_leaf)(positions, self.best.reach) {
            self.best.offer(p, Some(t));
        }
    }
}

/// [`Bvh::closest_in_tree_order`]'s traversal state; the reach is the best
/// distance so far, the keys squared box distances.
struct Closest<'a, N: Real, F> {
    bvh: &'a Bvh<N>,
    point: Point3<N>,
    widen: N,
    best: Best<N>,
    test: F,
}

impl<N: Real, F> Closest<'_, N, F> {
    /// The squared reach, widened by rounding.
    #[inline(always)]
    fn reach_squared(&self) -> N {
        self.best.reach * self.best.reach * self.widen
    }
}

impl<N: Real, F: FnMut(u32, N) -> Option<N>> NearestFirst<N> for Closest<'_, N, F> {
    #[inline(always)]
    fn keys(&self, node: &Node<N>) -> ([N; WIDTH], u32) {
        let keys = box_distances_squared(node, &[self.point.x, self.point.y, self.point.z]);
        let limit = self.reach_squared();
        // An empty slot's box is infinitely far, within an infinite reach.
        let (mut near, mut filled) = (0, 0);
        for k in 0..WIDTH {
            near |= u32::from(keys[k] <= limit) << k;
            filled |= u32::from(node.children[k] != EMPTY) << k;
        }
        (keys, near & filled)
    }

    #[inline(always)]
    fn within_reach(&self, key: N) -> bool {
        key <= self.reach_squared()
    }

    #[inline(always)]
    fn leaf(&mut self, positions: std::ops::Range<usize>) {
        // A leaf of several primitives: each one's own box is tested first
        // (that of a lone primitive is the leaf's).
        let several = positions.len() > 1;
        for p in positions {
            if several && self.bvh.boxes[p].distance_squared_to_point(&self.point) > self.reach_squared() {
                continue;
            }
            let answer = (self.test)(p as u32, self.best.reach);
            self.best.offer(p as u32, answer);
        }
    }
}
