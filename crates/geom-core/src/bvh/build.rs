//! Binned-SAH construction of a binary tree, collapsed into four-wide nodes.

use nalgebra::Point3;

use super::{Bvh, BvhOptions, ChildRef, EMPTY, LEAF, Leaf, Node, SAH_DEPTH, half_area};
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

/// The box's centre with non-finite coordinates (unbounded boxes) read as
/// zero, so that binning sees finite numbers.
fn centroid<N: Real>(aabb: &Aabb<N>) -> Point3<N> {
    let half: N = nalgebra::convert(0.5);
    aabb.mins
        .coords
        .zip_map(&aabb.maxs.coords, |a, b| {
            let c = a * half + b * half;
            if c.is_finite() { c } else { N::zero() }
        })
        .into()
}

struct Builder<'a, N: Real> {
    boxes: &'a [Aabb<N>],
    centroids: Vec<Point3<N>>,
    indices: Vec<u32>,
    nodes: Vec<Binary<N>>,
    max_leaf: usize,
}

pub(super) fn build<N: Real>(boxes: &[Aabb<N>], options: BvhOptions) -> Bvh<N> {
    assert!(
        boxes.len() < LEAF as usize,
        "Bvh::build: {} boxes (at most 2^31 − 1)",
        boxes.len()
    );
    let boxes: Vec<Aabb<N>> = boxes.iter().map(|b| Aabb::new(b.mins, b.maxs)).collect();
    if boxes.is_empty() {
        return Bvh {
            nodes: Vec::new(),
            leaves: Vec::new(),
            indices: Vec::new(),
            boxes,
        };
    }
    let mut builder = Builder {
        boxes: &boxes,
        centroids: boxes.iter().map(centroid).collect(),
        indices: (0..boxes.len() as u32).collect(),
        nodes: Vec::with_capacity(2 * boxes.len() / options.max_leaf_size.clamp(1, 16) + 1),
        max_leaf: options.max_leaf_size.clamp(1, 16),
    };
    let root = builder.split(0, boxes.len(), 0);
    let mut tree = Bvh {
        nodes: Vec::with_capacity(builder.nodes.len() / 3 + 1),
        leaves: Vec::new(),
        indices: Vec::new(),
        boxes: Vec::new(),
    };
    collapse(&builder.nodes, root, &mut tree);
    tree.indices = builder.indices;
    tree.boxes = boxes;
    tree
}

impl<N: Real> Builder<'_, N> {
    /// Builds the binary subtree over `indices[start..end]` and returns its
    /// node's index.
    fn split(&mut self, start: usize, end: usize, depth: usize) -> usize {
        let aabb = self.indices[start..end]
            .iter()
            .map(|&i| self.boxes[i as usize])
            .reduce(|a, b| a.merged(&b))
            .expect("a non-empty range");
        let count = end - start;
        if count <= self.max_leaf {
            return self.push_leaf(aabb, start, count);
        }
        let (axis, low, high) = self.centroid_extent(start, end);
        let mid = if high > low && depth < SAH_DEPTH {
            self.binned_split(start, end, axis, low, high)
        } else {
            None
        };
        // Every centroid at one point, deep in the tree, or unbounded
        // boxes: split at the median along the axis.
        let mid = mid.unwrap_or_else(|| self.median_split(start, end, axis));
        let left = self.split(start, mid, depth + 1);
        let right = self.split(mid, end, depth + 1);
        self.nodes.push(Binary::Inner { aabb, left, right });
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

    /// The axis along which the centroids spread most, and their range on it.
    fn centroid_extent(&self, start: usize, end: usize) -> (usize, N, N) {
        let first = self.centroids[self.indices[start] as usize];
        let (lo, hi) = self.indices[start + 1..end]
            .iter()
            .fold((first, first), |(lo, hi), &i| {
                let c = &self.centroids[i as usize];
                (lo.inf(c), hi.sup(c))
            });
        let extent = hi - lo;
        let axis = extent.imax();
        (axis, lo[axis], hi[axis])
    }

    /// The SAH's best split among the bins' boundaries (least
    /// `area(left)·count(left) + area(right)·count(right)`), the primitives
    /// partitioned around it; `None` when no cost is finite (unbounded
    /// boxes on both sides).
    fn binned_split(&mut self, start: usize, end: usize, axis: usize, low: N, high: N) -> Option<usize> {
        let bins_n: N = nalgebra::convert(BINS as f64);
        let scale = bins_n / (high - low);
        if !scale.is_finite() {
            return None;
        }
        let bin_of = |c: N| -> usize {
            let b = ((c - low) * scale).floor();
            // NaN and negatives go to bin 0, the top edge to the last bin.
            if b >= bins_n - N::one() {
                BINS - 1
            } else if b > N::zero() {
                nalgebra::try_convert::<N, f64>(b).unwrap_or(0.0) as usize
            } else {
                0
            }
        };
        let mut counts = [0usize; BINS];
        let mut bounds: [Option<Aabb<N>>; BINS] = [None; BINS];
        for &i in &self.indices[start..end] {
            let b = bin_of(self.centroids[i as usize][axis]);
            counts[b] += 1;
            let primitive = &self.boxes[i as usize];
            bounds[b] = Some(bounds[b].map_or(*primitive, |x| x.merged(primitive)));
        }
        // Areas and counts of the left side after each boundary, then the
        // right side swept back.
        let mut left_area = [N::zero(); BINS];
        let mut left_count = [0usize; BINS];
        let mut running: Option<Aabb<N>> = None;
        let mut n = 0;
        for b in 0..BINS - 1 {
            if let Some(x) = bounds[b] {
                running = Some(running.map_or(x, |r| r.merged(&x)));
            }
            n += counts[b];
            left_area[b] = running.as_ref().map_or(N::zero(), half_area);
            left_count[b] = n;
        }
        let mut best: Option<(N, usize)> = None;
        let mut running: Option<Aabb<N>> = None;
        let mut n = 0;
        for b in (1..BINS).rev() {
            if let Some(x) = bounds[b] {
                running = Some(running.map_or(x, |r| r.merged(&x)));
            }
            n += counts[b];
            let left = left_count[b - 1];
            if left == 0 || n == 0 {
                continue;
            }
            let right_area = running.as_ref().map_or(N::zero(), half_area);
            let cost = left_area[b - 1] * nalgebra::convert::<f64, N>(left as f64)
                + right_area * nalgebra::convert::<f64, N>(n as f64);
            if cost.is_finite() && best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, b));
            }
        }
        let (_, boundary) = best?;
        // Partition in place: bins below `boundary` first.
        let (mut i, mut j) = (start, end);
        while i < j {
            if bin_of(self.centroids[self.indices[i] as usize][axis]) < boundary {
                i += 1;
            } else {
                j -= 1;
                self.indices.swap(i, j);
            }
        }
        (i > start && i < end).then_some(i)
    }

    fn median_split(&mut self, start: usize, end: usize, axis: usize) -> usize {
        let mid = start + (end - start) / 2;
        let centroids = &self.centroids;
        self.indices[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            let (ca, cb) = (centroids[a as usize][axis], centroids[b as usize][axis]);
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
    let mut children: [usize; 4] = [root; 4];
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
        if held == 4 {
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
                tree.leaves.push(Leaf {
                    start: *start,
                    count: *count,
                });
                (tree.leaves.len() - 1) as u32 | LEAF
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
