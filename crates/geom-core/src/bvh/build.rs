//! Binned-SAH construction of four-wide nodes: each node is made by
//! binary splits of its primitives, the widest part opened until four are
//! held, and then each part that is not a leaf becomes a node in turn.

use nalgebra::Point3;

use super::{
    Bvh, BvhOptions, ChildRef, LEAF, LEAF_COUNT_BITS, MAX_PRIMITIVES, Node, SAH_DEPTH, WIDTH, half_area,
};
use crate::aabb::Aabb;
use crate::scalar::Real;

/// Bins along the split axis.
const BINS: usize = 16;

/// The box's centre in `f32` (binning needs an order, not exactness, and
/// the primitives stay small for the passes over them), with non-finite
/// coordinates (unbounded boxes, beyond `f32`) read as zero, so that
/// binning sees finite numbers.
fn centroid<N: Real>(aabb: &Aabb<N>) -> Point3<f32> {
    let half: N = nalgebra::convert(0.5);
    Point3::from(aabb.mins.coords.zip_map(&aabb.maxs.coords, |a, b| {
        let c: f64 = (a * half + b * half).to_subset().unwrap_or(0.0);
        let c = c as f32;
        if c.is_finite() { c } else { 0.0 }
    }))
}

/// A primitive during the build: its box, its centre and its index,
/// stored together and reordered as the tree splits them, so that every
/// pass over a node's primitives reads memory in order.
///
/// In this field order the lower corner and the centre are adjacent, and
/// so are the centre and the upper corner: growing a bin's [`Bounds`]
/// (laid out alike) is one run of minima and one of maxima over adjacent
/// numbers, which the compiler does a vector at a time.
#[derive(Clone, Copy)]
#[repr(C)]
struct Primitive<N: Real> {
    mins: Point3<N>,
    centroid: Point3<f32>,
    maxs: Point3<N>,
    /// The index in the low [`BIN_SHIFT`] bits, and above them the bin
    /// the binning under way put the primitive in, which the partition
    /// reads back rather than recomputing it.
    index_and_bin: u32,
}

/// Where a primitive's bin starts in [`Primitive::index_and_bin`]: every
/// index (below [`MAX_PRIMITIVES`]) fits under it, and every bin above.
const BIN_SHIFT: u32 = 27;
const _: () = assert!(MAX_PRIMITIVES <= 1 << BIN_SHIFT && BINS <= 1 << (32 - BIN_SHIFT));

impl<N: Real> Primitive<N> {
    fn new(aabb: Aabb<N>, index: u32) -> Self {
        Primitive {
            mins: aabb.mins,
            centroid: centroid(&aabb),
            maxs: aabb.maxs,
            index_and_bin: index,
        }
    }

    fn aabb(&self) -> Aabb<N> {
        Aabb {
            mins: self.mins,
            maxs: self.maxs,
        }
    }

    fn index(&self) -> u32 {
        self.index_and_bin & ((1 << BIN_SHIFT) - 1)
    }

    fn bin(&self) -> usize {
        (self.index_and_bin >> BIN_SHIFT) as usize
    }

    fn set_bin(&mut self, bin: usize) {
        self.index_and_bin = self.index() | (bin as u32) << BIN_SHIFT;
    }
}

/// A node's primitives' boxes and centres, bounded: the box's lower
/// corner, the centres' lower and upper corners, the box's upper corner
/// (the order of [`Primitive`]'s fields, see there).
#[derive(Clone, Copy)]
#[repr(C)]
struct Bounds<N: Real> {
    mins: Point3<N>,
    centroid_mins: Point3<f32>,
    centroid_maxs: Point3<f32>,
    maxs: Point3<N>,
}

/// The smaller of two numbers by one comparison (`b` when they are
/// unordered): a single `minss` on x86, where `min` adds a NaN fix-up.
#[inline(always)]
fn lower<T: Real>(a: T, b: T) -> T {
    if a < b { a } else { b }
}

/// The larger of two numbers by one comparison (`b` when unordered).
#[inline(always)]
fn upper<T: Real>(a: T, b: T) -> T {
    if a > b { a } else { b }
}

impl<N: Real> Bounds<N> {
    /// Bounds of nothing: merging with them changes nothing.
    fn empty() -> Self {
        let inf = nalgebra::convert::<f64, N>(f64::INFINITY);
        Bounds {
            mins: Point3::new(inf, inf, inf),
            centroid_mins: Point3::new(f32::INFINITY, f32::INFINITY, f32::INFINITY),
            centroid_maxs: Point3::new(-f32::INFINITY, -f32::INFINITY, -f32::INFINITY),
            maxs: Point3::new(-inf, -inf, -inf),
        }
    }

    fn of(primitive: &Primitive<N>) -> Self {
        Bounds {
            mins: primitive.mins,
            centroid_mins: primitive.centroid,
            centroid_maxs: primitive.centroid,
            maxs: primitive.maxs,
        }
    }

    fn aabb(&self) -> Aabb<N> {
        Aabb {
            mins: self.mins,
            maxs: self.maxs,
        }
    }

    fn merged(&self, other: &Self) -> Self {
        let mut merged = *self;
        merged.grow(
            &other.mins,
            &other.centroid_mins,
            &other.centroid_maxs,
            &other.maxs,
        );
        merged
    }

    /// Grows these bounds, in place, to hold `primitive`.
    #[inline]
    fn include(&mut self, primitive: &Primitive<N>) {
        let c = &primitive.centroid;
        self.grow(&primitive.mins, c, c, &primitive.maxs);
    }

    /// Lowers the lower bounds to `mins` and `centroid_mins` and raises
    /// the upper ones to `centroid_maxs` and `maxs`. The build's boxes and
    /// centres hold no NaN (`Aabb::new` makes a NaN bound unbounded, and
    /// centres are made finite), so the one-comparison minimum is exact.
    #[inline(always)]
    fn grow(
        &mut self,
        mins: &Point3<N>,
        centroid_mins: &Point3<f32>,
        centroid_maxs: &Point3<f32>,
        maxs: &Point3<N>,
    ) {
        // The old bound is read as `old + 0`, which the compiler may not
        // fold (it turns −0 into +0): otherwise it sees "store the new
        // value or the old one back" and makes a masked store of it,
        // which AMD processors run slowly (the whole build about 20 %
        // slower). The sum changes no bound's order.
        let (zero, zero_f32) = (N::zero(), 0.0f32);
        for k in 0..3 {
            self.mins[k] = lower(mins[k], self.mins[k] + zero);
            self.centroid_mins[k] = lower(centroid_mins[k], self.centroid_mins[k] + zero_f32);
            self.centroid_maxs[k] = upper(centroid_maxs[k], self.centroid_maxs[k] + zero_f32);
            self.maxs[k] = upper(maxs[k], self.maxs[k] + zero);
        }
    }

    fn including(&self, primitive: &Primitive<N>) -> Self {
        let mut grown = *self;
        grown.include(primitive);
        grown
    }

    fn over(primitives: &[Primitive<N>]) -> Self {
        primitives[1..]
            .iter()
            .fold(Bounds::of(&primitives[0]), |b, p| b.including(p))
    }
}

/// How a tree is built: the leaf size, and the fewest primitives a node
/// must hold for the subtrees of its children to be built in parallel.
#[derive(Clone, Copy)]
struct Builder {
    max_leaf: usize,
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    parallel_from: usize,
}

/// Primitives a node must hold for [`Bvh::par_build`] to build its
/// children's subtrees as parallel tasks: below this a task's work (about
/// 30 µs) is not worth rayon's split.
#[cfg(feature = "parallel")]
const PARALLEL_FROM: usize = 1 << 13;

pub(super) fn build<N: Real>(boxes: &[Aabb<N>], options: BvhOptions) -> Bvh<N> {
    build_from(boxes, options, usize::MAX)
}

#[cfg(feature = "parallel")]
pub(super) fn par_build<N: Real>(boxes: &[Aabb<N>], options: BvhOptions) -> Bvh<N> {
    build_from(boxes, options, PARALLEL_FROM)
}

fn build_from<N: Real>(boxes: &[Aabb<N>], options: BvhOptions, parallel_from: usize) -> Bvh<N> {
    assert!(
        boxes.len() <= MAX_PRIMITIVES,
        "Bvh::build: {} boxes (at most 2^27)",
        boxes.len()
    );
    if boxes.is_empty() {
        return Bvh {
            nodes: Vec::new(),
            indices: Vec::new(),
            boxes: Vec::new(),
            positions: Vec::new(),
            links: None,
        };
    }
    // A parallel build runs the passes over every primitive before and
    // after the tree's on the thread pool as well.
    let parallel = boxes.len() >= parallel_from;
    let builder = Builder {
        max_leaf: options.max_leaf_size.clamp(1, 16),
        parallel_from,
    };
    let mut primitives: Vec<Primitive<N>> = collect_indexed(boxes.len(), parallel, |i| {
        Primitive::new(Aabb::new(boxes[i].mins, boxes[i].maxs), i as u32)
    });
    let bounds = bounds_of(&primitives, parallel);
    // About one node per three splits, a split per `max_leaf / 2`
    // primitives.
    let mut nodes = Vec::with_capacity(2 * primitives.len() / (3 * builder.max_leaf) + 1);
    builder.node(&mut primitives, 0, 0, bounds, &mut nodes);
    let order = || {
        let indices: Vec<u32> = primitives.iter().map(Primitive::index).collect();
        let mut positions = vec![0; indices.len()];
        for (position, &index) in indices.iter().enumerate() {
            positions[index as usize] = position as u32;
        }
        (indices, positions)
    };
    let boxes = || primitives.iter().map(Primitive::aabb).collect();
    let ((indices, positions), boxes) = join(parallel, order, boxes);
    Bvh {
        nodes,
        indices,
        boxes,
        positions,
        links: None,
    }
}

/// `f(0), f(1), …, f(count − 1)`, on the thread pool when `parallel`.
fn collect_indexed<T: Send>(count: usize, parallel: bool, f: impl Fn(usize) -> T + Send + Sync) -> Vec<T> {
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        return (0..count).into_par_iter().map(f).collect();
    }
    let _ = parallel;
    (0..count).map(f).collect()
}

/// The bounds of every primitive, on the thread pool when `parallel`
/// (bounds merge exactly, in any order).
fn bounds_of<N: Real>(primitives: &[Primitive<N>], parallel: bool) -> Bounds<N> {
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        return primitives
            .par_chunks(1 << 14)
            .map(Bounds::over)
            .reduce(Bounds::empty, |a, b| a.merged(&b));
    }
    let _ = parallel;
    Bounds::over(primitives)
}

/// `(a(), b())`, the two run as parallel tasks when `parallel`.
fn join<A, B, RA, RB>(parallel: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    #[cfg(feature = "parallel")]
    if parallel {
        return rayon::join(a, b);
    }
    let _ = parallel;
    (a(), b())
}

/// A run of primitives on its way to becoming a node's child: their
/// positions `start..start + count` in the slice being split, the number
/// of binary splits above them, and their bounds.
#[derive(Clone, Copy)]
struct Part<N: Real> {
    start: usize,
    count: usize,
    depth: usize,
    bounds: Bounds<N>,
}

impl Builder {
    /// Whether `part` becomes a leaf (otherwise a node of its own).
    fn is_leaf<N: Real>(self, part: &Part<N>) -> bool {
        part.count <= self.max_leaf
    }

    /// Appends the node over `primitives` (the tree order's positions
    /// `offset..offset + primitives.len()`, `depth` binary splits below
    /// the root, bounded by `bounds`) and every node below it, parents
    /// before children and each child's subtree after the previous one's.
    fn node<N: Real>(
        self,
        primitives: &mut [Primitive<N>],
        offset: usize,
        depth: usize,
        bounds: Bounds<N>,
        nodes: &mut Vec<Node<N>>,
    ) {
        let index = nodes.len();
        nodes.push(Node::empty());
        let (parts, held) = self.open(primitives, depth, bounds);
        #[cfg(feature = "parallel")]
        if primitives.len() >= self.parallel_from {
            self.children_in_parallel(primitives, offset, &parts[..held], index, nodes);
            return;
        }
        for (slot, part) in parts[..held].iter().enumerate() {
            let reference = if self.is_leaf(part) {
                leaf_reference(offset + part.start, part.count)
            } else {
                let child = nodes.len() as u32;
                let range = part.start..part.start + part.count;
                self.node(
                    &mut primitives[range],
                    offset + part.start,
                    part.depth,
                    part.bounds,
                    nodes,
                );
                child
            };
            let node = &mut nodes[index];
            node.children[slot] = reference;
            node.set_box(slot, &part.bounds.aabb());
        }
    }

    /// Splits `primitives` (`depth` binary splits below the root, bounded
    /// by `bounds`) into at most four parts: in two by the SAH (see
    /// [`binned_split`]), then the widest part that is not a leaf in two,
    /// until four are held or every part is a leaf (the collapse of a
    /// binary tree into a four-wide one by opening the child of largest
    /// area, as Embree's and Jolt's trees are made, without storing the
    /// binary tree).
    fn open<N: Real>(
        self,
        primitives: &mut [Primitive<N>],
        depth: usize,
        bounds: Bounds<N>,
    ) -> ([Part<N>; WIDTH], usize) {
        let whole = Part {
            start: 0,
            count: primitives.len(),
            depth,
            bounds,
        };
        let mut parts = [whole; WIDTH];
        let mut held = 1;
        while held < WIDTH {
            let widest = (0..held).filter(|&k| !self.is_leaf(&parts[k])).max_by(|&a, &b| {
                half_area(&parts[a].bounds.aabb())
                    .partial_cmp(&half_area(&parts[b].bounds.aabb()))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let Some(k) = widest else { break };
            let part = parts[k];
            let run = &mut primitives[part.start..part.start + part.count];
            let (mid, left, right) = split_in_two(run, part.depth, &part.bounds);
            let depth = part.depth + 1;
            parts[k] = Part {
                start: part.start,
                count: mid,
                depth,
                bounds: left,
            };
            parts[held] = Part {
                start: part.start + mid,
                count: part.count - mid,
                depth,
                bounds: right,
            };
            held += 1;
        }
        (parts, held)
    }

    /// The children of the node at `index` (the `parts` of `primitives`),
    /// their subtrees built as parallel tasks, each into a list of its
    /// own, then appended in order (their references moved by where they
    /// land): the sequential build's nodes, in the same places.
    #[cfg(feature = "parallel")]
    fn children_in_parallel<N: Real>(
        self,
        primitives: &mut [Primitive<N>],
        offset: usize,
        parts: &[Part<N>],
        index: usize,
        nodes: &mut Vec<Node<N>>,
    ) {
        use rayon::prelude::*;
        // The parts are disjoint runs: cut the slice at their starts.
        let mut by_start: Vec<usize> = (0..parts.len()).collect();
        by_start.sort_unstable_by_key(|&k| parts[k].start);
        let mut runs: Vec<(usize, &mut [Primitive<N>])> = Vec::with_capacity(parts.len());
        let mut rest = primitives;
        for &k in &by_start {
            let (run, tail) = std::mem::take(&mut rest).split_at_mut(parts[k].count);
            runs.push((k, run));
            rest = tail;
        }
        runs.sort_unstable_by_key(|&(k, _)| k);
        let subtrees: Vec<Vec<Node<N>>> = runs
            .into_par_iter()
            .map(|(k, run)| {
                let part = &parts[k];
                let mut own = Vec::new();
                if !self.is_leaf(part) {
                    own.reserve(2 * part.count / (3 * self.max_leaf) + 1);
                    self.node(run, offset + part.start, part.depth, part.bounds, &mut own);
                }
                own
            })
            .collect();
        for (slot, (part, subtree)) in parts.iter().zip(subtrees).enumerate() {
            let reference = if self.is_leaf(part) {
                leaf_reference(offset + part.start, part.count)
            } else {
                let base = nodes.len() as u32;
                nodes.extend(subtree.into_iter().map(|mut node| {
                    for child in &mut node.children {
                        if *child != super::EMPTY && *child & LEAF == 0 {
                            *child += base;
                        }
                    }
                    node
                }));
                base
            };
            let node = &mut nodes[index];
            node.children[slot] = reference;
            node.set_box(slot, &part.bounds.aabb());
        }
    }
}

/// The reference to a leaf of `count` primitives from tree position
/// `start`.
fn leaf_reference(start: usize, count: usize) -> ChildRef {
    debug_assert!((1..=1 << LEAF_COUNT_BITS).contains(&count));
    (start as u32) << LEAF_COUNT_BITS | (count as u32 - 1) | LEAF
}

/// Splits `primitives` (at least two, `depth` binary splits below the
/// root, bounded by `bounds`) in two, by the SAH along the longest axis
/// of their centres, or at the median along it when every centre is at
/// one point, the tree is already deep, or no split has a finite cost
/// (unbounded boxes). Returns the first position of the upper part and
/// each part's bounds.
fn split_in_two<N: Real>(
    primitives: &mut [Primitive<N>],
    depth: usize,
    bounds: &Bounds<N>,
) -> (usize, Bounds<N>, Bounds<N>) {
    let extent = bounds.centroid_maxs - bounds.centroid_mins;
    let axis = extent.imax();
    let (low, high) = (bounds.centroid_mins[axis], bounds.centroid_maxs[axis]);
    let split = if high > low && depth < SAH_DEPTH {
        binned_split(primitives, axis, low, high)
    } else {
        None
    };
    split.unwrap_or_else(|| {
        let mid = median_split(primitives, axis);
        (
            mid,
            Bounds::over(&primitives[..mid]),
            Bounds::over(&primitives[mid..]),
        )
    })
}

/// The SAH's best split among the bins' boundaries (least
/// `area(left)·count(left) + area(right)·count(right)`), the primitives
/// partitioned around it, with each side's bounds; `None` when no cost
/// is finite (unbounded boxes on both sides).
fn binned_split<N: Real>(
    primitives: &mut [Primitive<N>],
    axis: usize,
    low: f32,
    high: f32,
) -> Option<(usize, Bounds<N>, Bounds<N>)> {
    let scale = BINS as f32 / (high - low);
    if !scale.is_finite() {
        return None;
    }
    let bin_of = |c: f32| bin_index(c, low, scale);
    let (counts, bins) = if primitives.len() >= 64 {
        bin_in_two_sets(primitives, |p| bin_of(p.centroid[axis]))
    } else {
        let mut counts = [0usize; BINS];
        let mut bins = [Bounds::empty(); BINS];
        for primitive in primitives.iter_mut() {
            let b = bin_of(primitive.centroid[axis]);
            primitive.set_bin(b);
            counts[b] += 1;
            bins[b].include(primitive);
        }
        (counts, bins)
    };
    // Only the bins holding primitives: the boundaries between two of them
    // split the primitives alike, so each pair of neighbours is one
    // candidate, at the higher one's lower edge (the boundary a sweep over
    // every bin from the top keeps among equal costs). A node of a few
    // primitives sweeps a few bins, not sixteen.
    let mut occupied = [0usize; BINS];
    let mut m = 0;
    for (b, &count) in counts.iter().enumerate() {
        occupied[m] = b;
        m += usize::from(count > 0);
    }
    let occupied = &occupied[..m];
    // The bounds and counts left of each candidate, then the right side
    // swept back.
    let mut left = [Bounds::empty(); BINS];
    let mut left_count = [0usize; BINS];
    let mut running = Bounds::empty();
    let mut n = 0;
    for (k, &b) in occupied.iter().enumerate() {
        running = running.merged(&bins[b]);
        n += counts[b];
        left[k] = running;
        left_count[k] = n;
    }
    let mut best: Option<(N, usize, Bounds<N>)> = None;
    let mut running = Bounds::empty();
    let mut n = 0;
    for k in (1..occupied.len()).rev() {
        let b = occupied[k];
        running = running.merged(&bins[b]);
        n += counts[b];
        let cost = half_area(&left[k - 1].aabb()) * nalgebra::convert::<f64, N>(left_count[k - 1] as f64)
            + half_area(&running.aabb()) * nalgebra::convert::<f64, N>(n as f64);
        if cost.is_finite() && best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
            best = Some((cost, k, running));
        }
    }
    let (_, chosen, right_bounds) = best?;
    let (boundary, left_bounds) = (occupied[chosen], left[chosen - 1]);
    // Partition in place: bins below `boundary` first, by the bin each
    // primitive was given above.
    let (mut i, mut j) = (0, primitives.len());
    while i < j {
        if primitives[i].bin() < boundary {
            i += 1;
        } else {
            j -= 1;
            primitives.swap(i, j);
        }
    }
    (i > 0 && i < primitives.len()).then_some((i, left_bounds, right_bounds))
}

/// The bin of centre coordinate `c` on an axis whose bins start at `low`
/// and are `1 / scale` wide: `⌊(c − low)·scale⌋` clamped to the bins (the
/// top edge and anything past it in the last, NaN in the first), up to
/// ties at a bin's edge, which may go to either neighbour (any map of
/// centres to bins that keeps their order is a valid binning).
///
/// Rounded by adding 2²³ (the sum's low mantissa bits are then the nearest
/// integer), not by a cast: a float-to-integer `as` saturates, which costs
/// two comparisons and two selects per primitive on x86.
#[inline(always)]
fn bin_index(c: f32, low: f32, scale: f32) -> usize {
    const ROUNDING: f32 = 8_388_608.0;
    let x = (c - low) * scale - 0.5;
    // NaN fails the first comparison and lands in bin 0.
    let x = if x > 0.0 { x } else { 0.0 };
    let x = if x < (BINS - 1) as f32 {
        x
    } else {
        (BINS - 1) as f32
    };
    ((x + ROUNDING).to_bits() - ROUNDING.to_bits()) as usize
}

/// The count and bounds of the primitives in each bin (`bin_of`), each
/// primitive's bin set in it, from two sets of bins for the even and the
/// odd primitives, merged after:
/// neighbouring primitives mostly fall in the same bin, and with one set
/// each would wait for the previous one's update of it (the bounds go
/// through memory). Merging bounds is exact: the bins are those of one
/// set.
fn bin_in_two_sets<N: Real>(
    primitives: &mut [Primitive<N>],
    bin_of: impl Fn(&Primitive<N>) -> usize,
) -> ([usize; BINS], [Bounds<N>; BINS]) {
    let mut counts = [[0usize; BINS]; 2];
    let mut bins = [[Bounds::empty(); BINS]; 2];
    let mut pairs = primitives.chunks_exact_mut(2);
    for pair in &mut pairs {
        let (b_even, b_odd) = (bin_of(&pair[0]), bin_of(&pair[1]));
        pair[0].set_bin(b_even);
        pair[1].set_bin(b_odd);
        counts[0][b_even] += 1;
        bins[0][b_even].include(&pair[0]);
        counts[1][b_odd] += 1;
        bins[1][b_odd].include(&pair[1]);
    }
    for primitive in pairs.into_remainder() {
        let b = bin_of(primitive);
        primitive.set_bin(b);
        counts[0][b] += 1;
        bins[0][b].include(primitive);
    }
    let [mut counts, odd_counts] = counts;
    let [mut bins, odd_bins] = bins;
    for b in 0..BINS {
        counts[b] += odd_counts[b];
        bins[b] = bins[b].merged(&odd_bins[b]);
    }
    (counts, bins)
}

/// Splits `primitives` at the median of their centres along `axis`, and
/// returns the first position of the upper half.
fn median_split<N: Real>(primitives: &mut [Primitive<N>], axis: usize) -> usize {
    let mid = primitives.len() / 2;
    primitives.select_nth_unstable_by(mid, |a, b| {
        let (ca, cb) = (a.centroid[axis], b.centroid[axis]);
        ca.partial_cmp(&cb).unwrap_or(std::cmp::Ordering::Equal)
    });
    mid
}
