//! Binned-SAH construction of a binary tree, collapsed into four-wide nodes.

use std::sync::atomic::AtomicU32;

use nalgebra::Point3;

use super::{
    Bvh, BvhOptions, ChildRef, EMPTY, LEAF, LEAF_COUNT_BITS, MAX_PRIMITIVES, Node, SAH_DEPTH, WIDTH,
    half_area,
};
use crate::aabb::Aabb;
use crate::scalar::Real;

/// Bins along the split axis.
const BINS: usize = 16;

/// A node of the temporary binary tree.
enum Binary<N: Real> {
    Leaf {
        aabb: Aabb<N>,
        start: u32,
        count: u32,
    },
    Inner {
        aabb: Aabb<N>,
        left: BinaryRef,
        right: BinaryRef,
    },
}

/// Where a node of the binary tree is: the segment holding it and its
/// index there.
#[derive(Clone, Copy)]
struct BinaryRef {
    segment: u32,
    index: u32,
}

/// The binary nodes one task of the build pushed (the whole tree for a
/// sequential build). A parallel build's tasks each fill their own, named
/// by an id taken when the task starts, and the collapse reads the nodes
/// where they are: no task's nodes are copied into its parent's.
struct Segment<N: Real> {
    id: u32,
    nodes: Vec<Binary<N>>,
}

impl<N: Real> Segment<N> {
    /// An empty segment with room for `capacity` nodes.
    fn new(id: u32, capacity: usize) -> Self {
        Segment {
            id,
            nodes: Vec::with_capacity(capacity),
        }
    }

    /// Appends `node` and returns where it is.
    fn push(&mut self, node: Binary<N>) -> BinaryRef {
        self.nodes.push(node);
        BinaryRef {
            segment: self.id,
            index: (self.nodes.len() - 1) as u32,
        }
    }
}

impl<N: Real> Binary<N> {
    fn aabb(&self) -> &Aabb<N> {
        match self {
            Binary::Leaf { aabb, .. } | Binary::Inner { aabb, .. } => aabb,
        }
    }
}

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
#[derive(Clone, Copy)]
struct Primitive<N: Real> {
    aabb: Aabb<N>,
    centroid: Point3<f32>,
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

/// A node's primitives' boxes and centres, bounded.
#[derive(Clone, Copy)]
struct Bounds<N: Real> {
    aabb: Aabb<N>,
    centroids: Aabb<f32>,
}

impl<N: Real> Bounds<N> {
    /// Bounds of nothing: merging with them changes nothing.
    fn empty() -> Self {
        fn empty<M: Real>() -> Aabb<M> {
            let inf = nalgebra::convert::<f64, M>(f64::INFINITY);
            Aabb {
                mins: Point3::new(inf, inf, inf),
                maxs: Point3::new(-inf, -inf, -inf),
            }
        }
        Bounds {
            aabb: empty(),
            centroids: empty(),
        }
    }

    fn of(primitive: &Primitive<N>) -> Self {
        Bounds {
            aabb: primitive.aabb,
            centroids: Aabb {
                mins: primitive.centroid,
                maxs: primitive.centroid,
            },
        }
    }

    fn merged(&self, other: &Self) -> Self {
        Bounds {
            aabb: self.aabb.merged(&other.aabb),
            centroids: self.centroids.merged(&other.centroids),
        }
    }

    /// Grows these bounds, in place, to hold `primitive`.
    #[inline]
    fn include(&mut self, primitive: &Primitive<N>) {
        // `min` and `max`, not a comparison and a select: stored back into
        // the bin, `if b < a { b } else { a }` became a masked store
        // (`vmaskmovps`), which AMD processors run slowly (the whole build
        // took about 20% longer with it). The build's boxes and centres
        // hold no NaN, so `min`'s NaN handling changes nothing.
        fn lower<T: Real>(a: Point3<T>, b: Point3<T>) -> Point3<T> {
            Point3::from(a.coords.zip_map(&b.coords, |a, b| a.min(b)))
        }
        fn upper<T: Real>(a: Point3<T>, b: Point3<T>) -> Point3<T> {
            Point3::from(a.coords.zip_map(&b.coords, |a, b| a.max(b)))
        }
        let c = primitive.centroid;
        *self = Bounds {
            aabb: Aabb {
                mins: lower(self.aabb.mins, primitive.aabb.mins),
                maxs: upper(self.aabb.maxs, primitive.aabb.maxs),
            },
            centroids: Aabb {
                mins: lower(self.centroids.mins, c),
                maxs: upper(self.centroids.maxs, c),
            },
        };
    }

    fn including(&self, primitive: &Primitive<N>) -> Self {
        Bounds {
            aabb: self.aabb.merged(&primitive.aabb),
            centroids: self.centroids.including(&primitive.centroid),
        }
    }

    fn over(primitives: &[Primitive<N>]) -> Self {
        primitives[1..]
            .iter()
            .fold(Bounds::of(&primitives[0]), |b, p| b.including(p))
    }
}

/// How a subtree is built: the leaf size, the fewest primitives a node
/// must hold for its two subtrees to be built in parallel, and the next
/// free segment id.
#[derive(Clone, Copy)]
struct Builder<'a> {
    max_leaf: usize,
    parallel_from: usize,
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    next_segment: &'a AtomicU32,
}

/// Primitives a node must hold for [`Bvh::par_build`] to build its two
/// subtrees as parallel tasks: below this a task's work (about 30 µs)
/// is not worth rayon's split.
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
    // after the split on the thread pool as well.
    let parallel = boxes.len() >= parallel_from;
    let max_leaf = options.max_leaf_size.clamp(1, 16);
    let next_segment = AtomicU32::new(1);
    let builder = Builder {
        max_leaf,
        parallel_from,
        next_segment: &next_segment,
    };
    let mut primitives: Vec<Primitive<N>> = collect_indexed(boxes.len(), parallel, |i| {
        let aabb = Aabb::new(boxes[i].mins, boxes[i].maxs);
        Primitive {
            aabb,
            centroid: centroid(&aabb),
            index_and_bin: i as u32,
        }
    });
    let bounds = bounds_of(&primitives, parallel);
    let mut top = Segment::new(0, builder.own_nodes(primitives.len()));
    let mut segments = Vec::new();
    let root = builder.split(&mut primitives, 0, 0, bounds, &mut top, &mut segments);
    segments.push(top);
    // Ids are handed out from 0 up, one per segment.
    segments.sort_unstable_by_key(|segment| segment.id);
    debug_assert!(
        segments
            .iter()
            .enumerate()
            .all(|(k, segment)| segment.id as usize == k)
    );
    let segments: Vec<Vec<Binary<N>>> = segments.into_iter().map(|segment| segment.nodes).collect();
    let binary_nodes: usize = segments.iter().map(Vec::len).sum();
    let collapsed = || {
        let mut nodes = Vec::with_capacity(binary_nodes / 3 + 1);
        collapse(&segments, root, &mut nodes);
        nodes
    };
    let order = || {
        let indices: Vec<u32> = primitives.iter().map(Primitive::index).collect();
        let mut positions = vec![0; indices.len()];
        for (position, &index) in indices.iter().enumerate() {
            positions[index as usize] = position as u32;
        }
        (indices, positions)
    };
    let boxes = || primitives.iter().map(|p| p.aabb).collect();
    let (nodes, ((indices, positions), boxes)) = join(parallel, collapsed, || join(parallel, order, boxes));
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

impl Builder<'_> {
    /// The binary nodes a task over `primitives` pushes into its own
    /// segment: all of its subtree's, or only its root's when its two
    /// subtrees are tasks of their own.
    fn own_nodes(self, primitives: usize) -> usize {
        if primitives >= self.parallel_from {
            1
        } else {
            2 * primitives / self.max_leaf + 1
        }
    }

    /// Builds the binary subtree over `primitives` (the tree order's
    /// positions `offset..offset + primitives.len()`), whose bounds are
    /// `bounds`, into `nodes` (and the segments of its parallel tasks,
    /// added to `finished`), and returns where its node is.
    #[cfg_attr(not(feature = "parallel"), allow(clippy::only_used_in_recursion))]
    fn split<N: Real>(
        self,
        primitives: &mut [Primitive<N>],
        offset: usize,
        depth: usize,
        bounds: Bounds<N>,
        nodes: &mut Segment<N>,
        finished: &mut Vec<Segment<N>>,
    ) -> BinaryRef {
        let count = primitives.len();
        if count <= self.max_leaf {
            return nodes.push(Binary::Leaf {
                aabb: bounds.aabb,
                start: offset as u32,
                count: count as u32,
            });
        }
        let extent = bounds.centroids.maxs - bounds.centroids.mins;
        let axis = extent.imax();
        let (low, high) = (bounds.centroids.mins[axis], bounds.centroids.maxs[axis]);
        let split = if high > low && depth < SAH_DEPTH {
            binned_split(primitives, axis, low, high)
        } else {
            None
        };
        // Every centroid at one point, deep in the tree, or unbounded
        // boxes: split at the median along the axis.
        let (mid, left_bounds, right_bounds) = split.unwrap_or_else(|| {
            let mid = median_split(primitives, axis);
            (
                mid,
                Bounds::over(&primitives[..mid]),
                Bounds::over(&primitives[mid..]),
            )
        });
        let (low_half, high_half) = primitives.split_at_mut(mid);
        #[cfg(feature = "parallel")]
        if count >= self.parallel_from {
            let children = (left_bounds, right_bounds);
            let (left, right) =
                self.split_in_parallel(low_half, high_half, offset, depth, children, finished);
            return nodes.push(Binary::Inner {
                aabb: bounds.aabb,
                left,
                right,
            });
        }
        let left = self.split(low_half, offset, depth + 1, left_bounds, nodes, finished);
        let right = self.split(high_half, offset + mid, depth + 1, right_bounds, nodes, finished);
        nodes.push(Binary::Inner {
            aabb: bounds.aabb,
            left,
            right,
        })
    }

    /// The two subtrees of [`Builder::split`] as parallel tasks, each into
    /// a segment of its own, added to `finished` with its tasks' segments.
    /// The binary tree, and so the collapsed one, is the sequential
    /// build's: only where its nodes are stored differs.
    #[cfg(feature = "parallel")]
    fn split_in_parallel<N: Real>(
        self,
        low_half: &mut [Primitive<N>],
        high_half: &mut [Primitive<N>],
        offset: usize,
        depth: usize,
        (left_bounds, right_bounds): (Bounds<N>, Bounds<N>),
        finished: &mut Vec<Segment<N>>,
    ) -> (BinaryRef, BinaryRef) {
        let mid = low_half.len();
        let task = |primitives: &mut [Primitive<N>], offset: usize, bounds: Bounds<N>| {
            let id = self
                .next_segment
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut own = Segment::new(id, self.own_nodes(primitives.len()));
            let mut done = Vec::new();
            let root = self.split(primitives, offset, depth + 1, bounds, &mut own, &mut done);
            done.push(own);
            (root, done)
        };
        let ((left, left_done), (right, right_done)) = rayon::join(
            || task(low_half, offset, left_bounds),
            || task(high_half, offset + mid, right_bounds),
        );
        finished.extend(left_done);
        finished.extend(right_done);
        (left, right)
    }
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
    // The float-to-integer cast saturates (NaN to 0): the top edge and
    // anything past it go to the last bin. Through `i32`, one
    // instruction and a clamp (to `usize` costs several: x86 has no
    // float-to-unsigned conversion).
    let bin_of = |c: f32| (((c - low) * scale) as i32).clamp(0, BINS as i32 - 1) as usize;
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
        let cost = half_area(&left[k - 1].aabb) * nalgebra::convert::<f64, N>(left_count[k - 1] as f64)
            + half_area(&running.aabb) * nalgebra::convert::<f64, N>(n as f64);
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

/// Appends the four-wide node for the binary subtree at `root` (an inner
/// node, or a lone leaf as the root's only child) and its descendants,
/// parents before children; `segments[s]` holds segment `s`'s nodes.
fn collapse<N: Real>(segments: &[Vec<Binary<N>>], root: BinaryRef, nodes: &mut Vec<Node<N>>) {
    let binary = |at: BinaryRef| &segments[at.segment as usize][at.index as usize];
    let index = nodes.len();
    nodes.push(Node::empty());
    // Open the inner child of largest area until four children are held.
    let mut children: [BinaryRef; WIDTH] = [root; WIDTH];
    let mut held = 1;
    loop {
        let widest = (0..held)
            .filter(|&k| matches!(binary(children[k]), Binary::Inner { .. }))
            .max_by(|&a, &b| {
                half_area(binary(children[a]).aabb())
                    .partial_cmp(&half_area(binary(children[b]).aabb()))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        let Some(k) = widest else { break };
        if held == WIDTH {
            break;
        }
        let Binary::Inner { left, right, .. } = *binary(children[k]) else {
            unreachable!("filtered to inner nodes")
        };
        children[k] = left;
        children[held] = right;
        held += 1;
    }
    for (slot, &child) in children.iter().enumerate().take(held) {
        let reference: ChildRef = match binary(child) {
            Binary::Leaf { start, count, .. } => {
                debug_assert!((1..=1 << LEAF_COUNT_BITS).contains(count));
                start << LEAF_COUNT_BITS | (count - 1) | LEAF
            }
            Binary::Inner { .. } => {
                let child_index = nodes.len();
                collapse(segments, child, nodes);
                child_index as u32
            }
        };
        let node = &mut nodes[index];
        node.children[slot] = reference;
        node.set_box(slot, binary(child).aabb());
    }
    debug_assert!(nodes[index].children[0] != EMPTY);
}
