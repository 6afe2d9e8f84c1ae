//! Binned-SAH construction of a binary tree, collapsed into four-wide nodes.

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
        left: usize,
        right: usize,
    },
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
    index: u32,
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
        // Plain comparisons (one instruction each): the build's boxes and
        // centres hold no NaN, so `min`'s NaN handling is not needed.
        fn lower<T: PartialOrd>(a: T, b: T) -> T {
            if b < a { b } else { a }
        }
        fn upper<T: PartialOrd>(a: T, b: T) -> T {
            if b > a { b } else { a }
        }
        for k in 0..3 {
            self.aabb.mins[k] = lower(self.aabb.mins[k], primitive.aabb.mins[k]);
            self.aabb.maxs[k] = upper(self.aabb.maxs[k], primitive.aabb.maxs[k]);
            let c = primitive.centroid[k];
            self.centroids.mins[k] = lower(self.centroids.mins[k], c);
            self.centroids.maxs[k] = upper(self.centroids.maxs[k], c);
        }
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

struct Builder<N: Real> {
    primitives: Vec<Primitive<N>>,
    nodes: Vec<Binary<N>>,
    max_leaf: usize,
}

pub(super) fn build<N: Real>(boxes: &[Aabb<N>], options: BvhOptions) -> Bvh<N> {
    assert!(
        boxes.len() <= MAX_PRIMITIVES,
        "Bvh::build: {} boxes (at most 2^27)",
        boxes.len()
    );
    let boxes: Vec<Aabb<N>> = boxes.iter().map(|b| Aabb::new(b.mins, b.maxs)).collect();
    if boxes.is_empty() {
        return Bvh {
            nodes: Vec::new(),
            indices: Vec::new(),
            boxes,
            positions: Vec::new(),
        };
    }
    let max_leaf = options.max_leaf_size.clamp(1, 16);
    let mut builder = Builder {
        primitives: boxes
            .iter()
            .enumerate()
            .map(|(i, aabb)| Primitive {
                aabb: *aabb,
                centroid: centroid(aabb),
                index: i as u32,
            })
            .collect(),
        nodes: Vec::with_capacity(2 * boxes.len() / max_leaf + 1),
        max_leaf,
    };
    let bounds = Bounds::over(&builder.primitives);
    let root = builder.split(0, boxes.len(), 0, bounds);
    let mut tree = Bvh {
        nodes: Vec::with_capacity(builder.nodes.len() / 3 + 1),
        indices: Vec::new(),
        boxes: Vec::new(),
        positions: Vec::new(),
    };
    collapse(&builder.nodes, root, &mut tree);
    tree.indices = builder.primitives.iter().map(|p| p.index).collect();
    tree.boxes = builder.primitives.iter().map(|p| p.aabb).collect();
    tree.positions = vec![0; boxes.len()];
    for (position, &index) in tree.indices.iter().enumerate() {
        tree.positions[index as usize] = position as u32;
    }
    tree
}

impl<N: Real> Builder<N> {
    /// Builds the binary subtree over `primitives[start..end]`, whose
    /// bounds are `bounds`, and returns its node's index.
    fn split(&mut self, start: usize, end: usize, depth: usize, bounds: Bounds<N>) -> usize {
        let count = end - start;
        if count <= self.max_leaf {
            return self.push_leaf(bounds.aabb, start, count);
        }
        let extent = bounds.centroids.maxs - bounds.centroids.mins;
        let axis = extent.imax();
        let (low, high) = (bounds.centroids.mins[axis], bounds.centroids.maxs[axis]);
        let split = if high > low && depth < SAH_DEPTH {
            self.binned_split(start, end, axis, low, high)
        } else {
            None
        };
        // Every centroid at one point, deep in the tree, or unbounded
        // boxes: split at the median along the axis.
        let (mid, left, right) = split.unwrap_or_else(|| {
            let mid = self.median_split(start, end, axis);
            (
                mid,
                Bounds::over(&self.primitives[start..mid]),
                Bounds::over(&self.primitives[mid..end]),
            )
        });
        let left = self.split(start, mid, depth + 1, left);
        let right = self.split(mid, end, depth + 1, right);
        self.nodes.push(Binary::Inner {
            aabb: bounds.aabb,
            left,
            right,
        });
        self.nodes.len() - 1
    }

    fn push_leaf(&mut self, aabb: Aabb<N>, start: usize, count: usize) -> usize {
        self.nodes.push(Binary::Leaf {
            aabb,
            start: start as u32,
            count: count as u32,
        });
        self.nodes.len() - 1
    }

    /// The SAH's best split among the bins' boundaries (least
    /// `area(left)·count(left) + area(right)·count(right)`), the primitives
    /// partitioned around it, with each side's bounds; `None` when no cost
    /// is finite (unbounded boxes on both sides).
    fn binned_split(
        &mut self,
        start: usize,
        end: usize,
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
        let mut counts = [0usize; BINS];
        let mut bins = [Bounds::empty(); BINS];
        for primitive in &self.primitives[start..end] {
            let b = bin_of(primitive.centroid[axis]);
            counts[b] += 1;
            bins[b].include(primitive);
        }
        // The bounds and counts left of each boundary, then the right side
        // swept back (empty bins merge as nothing).
        let mut left = [Bounds::empty(); BINS];
        let mut left_count = [0usize; BINS];
        let mut running = Bounds::empty();
        let mut n = 0;
        for b in 0..BINS - 1 {
            running = running.merged(&bins[b]);
            n += counts[b];
            left[b] = running;
            left_count[b] = n;
        }
        let mut best: Option<(N, usize, Bounds<N>)> = None;
        let mut running = Bounds::empty();
        let mut n = 0;
        for b in (1..BINS).rev() {
            running = running.merged(&bins[b]);
            n += counts[b];
            if left_count[b - 1] == 0 || n == 0 {
                continue;
            }
            let cost = half_area(&left[b - 1].aabb) * nalgebra::convert::<f64, N>(left_count[b - 1] as f64)
                + half_area(&running.aabb) * nalgebra::convert::<f64, N>(n as f64);
            if cost.is_finite() && best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
                best = Some((cost, b, running));
            }
        }
        let (_, boundary, right_bounds) = best?;
        let left_bounds = left[boundary - 1];
        // Partition in place: bins below `boundary` first.
        let (mut i, mut j) = (start, end);
        while i < j {
            if bin_of(self.primitives[i].centroid[axis]) < boundary {
                i += 1;
            } else {
                j -= 1;
                self.primitives.swap(i, j);
            }
        }
        (i > start && i < end).then_some((i, left_bounds, right_bounds))
    }

    fn median_split(&mut self, start: usize, end: usize, axis: usize) -> usize {
        let mid = start + (end - start) / 2;
        self.primitives[start..end].select_nth_unstable_by(mid - start, |a, b| {
            let (ca, cb) = (a.centroid[axis], b.centroid[axis]);
            ca.partial_cmp(&cb).unwrap_or(std::cmp::Ordering::Equal)
        });
        mid
    }
}

/// Appends the four-wide node for the binary subtree at `root` (an inner
/// node, or a lone leaf as the root's only child) and its descendants,
/// parents before children.
fn collapse<N: Real>(binary: &[Binary<N>], root: usize, tree: &mut Bvh<N>) {
    let index = tree.nodes.len();
    tree.nodes.push(Node::empty());
    // Open the inner child of largest area until four children are held.
    let mut children: [usize; WIDTH] = [root; WIDTH];
    let mut held = 1;
    loop {
        let widest = (0..held)
            .filter(|&k| matches!(binary[children[k]], Binary::Inner { .. }))
            .max_by(|&a, &b| {
                half_area(binary[children[a]].aabb())
                    .partial_cmp(&half_area(binary[children[b]].aabb()))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        let Some(k) = widest else { break };
        if held == WIDTH {
            break;
        }
        let Binary::Inner { left, right, .. } = binary[children[k]] else {
            unreachable!("filtered to inner nodes")
        };
        children[k] = left;
        children[held] = right;
        held += 1;
    }
    for (slot, &child) in children.iter().enumerate().take(held) {
        let reference: ChildRef = match &binary[child] {
            Binary::Leaf { start, count, .. } => {
                debug_assert!((1..=1 << LEAF_COUNT_BITS).contains(count));
                start << LEAF_COUNT_BITS | (count - 1) | LEAF
            }
            Binary::Inner { .. } => {
                let child_index = tree.nodes.len();
                collapse(binary, child, tree);
                child_index as u32
            }
        };
        let node = &mut tree.nodes[index];
        node.children[slot] = reference;
        node.set_box(slot, binary[child].aabb());
    }
    debug_assert!(tree.nodes[index].children[0] != EMPTY);
}
