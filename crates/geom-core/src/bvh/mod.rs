//! A bounding-volume hierarchy over any set of boxes: four-wide nodes built
//! by binned SAH, refit after motion, and the queries a mesh, a compound or
//! a world asks of it (first and all ray hits, box overlap, closest
//! primitive, and the candidate pairs of one tree or of two).
//!
//! The tree knows only boxes and primitive indices (`0..n`, the positions of
//! the boxes it was built from); what a primitive is, and its exact test,
//! are the caller's, given as a closure. Every query is conservative: a
//! primitive whose box the query touches is offered to the closure (the
//! slab test widens its exit by a few ulps, so rounding never culls a box a
//! ray grazes).
//!
//! Build: binary splits by binned SAH (Wald 2007, "On fast construction of
//! SAH-based bounding volume hierarchies"; 16 bins along the longest
//! centroid axis, leaves of at most [`BvhOptions::max_leaf_size`]
//! primitives), gathered into nodes of four children by splitting the
//! part of largest area until four are held (the collapse of a binary tree
//! that Embree's and Jolt's four-wide trees do, made top-down, without
//! storing the binary tree). A node stores its children's boxes as four-wide
//! arrays per axis, so one ray or box is tested against the four at once.
//! The binary depth is capped (median splits below 32 levels), which bounds
//! the queries' fixed-size stacks: no ray, box or point query allocates.
//!
//! ```
//! use geom_core::bvh::Bvh;
//! use geom_core::{Aabb, Ray};
//! use nalgebra::{Point3, Vector3};
//!
//! // Ten unit boxes along x, at x = 0, 2, 4, ...
//! let boxes: Vec<Aabb<f64>> = (0..10)
//!     .map(|i| {
//!         let x = 2.0 * i as f64;
//!         Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x + 1.0, 1.0, 1.0))
//!     })
//!     .collect();
//! let bvh = Bvh::build(&boxes);
//! // A ray down from above x = 4.5 meets box 2 only: the closure gets each
//! // candidate and the best time so far, and answers its own exact time.
//! let ray = Ray::new(Point3::new(4.5, 5.0, 0.5), Vector3::new(0.0, -1.0, 0.0));
//! let hit = bvh.ray_cast(&ray, f64::INFINITY, |i, _best| boxes[i as usize].ray_interval(&ray, f64::INFINITY).map(|(t, _)| t));
//! assert_eq!(hit, Some((2, 4.0)));
//! // Boxes overlapping x ∈ [3, 7]: 2 and 3 (box 1 ends at x = 3, touching).
//! let mut found = Vec::new();
//! bvh.visit_aabb(&Aabb::new(Point3::new(3.0, 0.0, 0.0), Point3::new(7.0, 1.0, 1.0)), |i| {
//!     found.push(i);
//!     true
//! });
//! found.sort();
//! assert_eq!(found, vec![1, 2, 3]);
//! ```

mod build;
mod query;
mod ray_order;
#[cfg(test)]
mod tests;

use nalgebra::Point3;

use crate::aabb::Aabb;
use crate::scalar::Real;

pub use query::PairTask;
pub use ray_order::{MISS_KEY, RayOrder};

/// How a [`Bvh`] is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BvhOptions {
    /// The most primitives a leaf holds (1 to 16; default 4). Small leaves
    /// cost tree memory and box tests, large ones exact primitive tests.
    pub max_leaf_size: usize,
}

impl Default for BvhOptions {
    fn default() -> Self {
        BvhOptions { max_leaf_size: 4 }
    }
}

/// A reference to a node's child: an inner node's index, a leaf with
/// [`LEAF`] set, or [`EMPTY`]. A leaf is its run of primitives in the tree
/// order, packed as `start << 4 | (count − 1)` (see [`Bvh::leaf_range`]):
/// reaching a leaf reads no record besides its parent node.
type ChildRef = u32;
/// Children per node. The queries and the build are written for any width
/// up to 32; eight was measured (docs/benchmarks.md) and gained nothing
/// clear on mesh rays, capsule contacts or the broad phase over four.
const WIDTH: usize = 4;
/// The flag of a leaf reference.
const LEAF: u32 = 1 << 31;
/// An unused child slot (its box is empty: mins `+∞`, maxs `−∞`).
const EMPTY: u32 = u32::MAX;
/// Bits of a leaf reference holding `count − 1` (leaves hold 1 to 16).
const LEAF_COUNT_BITS: u32 = 4;
/// The most primitives a tree holds: a leaf's start fits in the 27 bits
/// left beside the count and the flag.
const MAX_PRIMITIVES: usize = 1 << (31 - LEAF_COUNT_BITS);
/// The binary levels split by SAH; below them splits are medians, so the
/// binary depth is at most `SAH_DEPTH + 27` for at most
/// [`MAX_PRIMITIVES`] (2²⁷) primitives.
const SAH_DEPTH: usize = 32;
/// Entries of a query's stack: a node pushes at most three more than it
/// pops, and the four-wide depth is at most the binary one (≤ 63).
const STACK_SIZE: usize = (WIDTH - 1) * 64 + WIDTH;

/// Four children: their boxes as four-wide arrays per axis, and what each
/// child is.
#[derive(Clone, Debug, PartialEq)]
struct Node<N: Real> {
    mins: [[N; WIDTH]; 3],
    maxs: [[N; WIDTH]; 3],
    children: [ChildRef; WIDTH],
}

impl<N: Real> Node<N> {
    fn empty() -> Self {
        let inf = nalgebra::convert::<f64, N>(f64::INFINITY);
        Node {
            mins: [[inf; WIDTH]; 3],
            maxs: [[-inf; WIDTH]; 3],
            children: [EMPTY; WIDTH],
        }
    }

    fn set_box(&mut self, slot: usize, aabb: &Aabb<N>) {
        for axis in 0..3 {
            self.mins[axis][slot] = aabb.mins[axis];
            self.maxs[axis][slot] = aabb.maxs[axis];
        }
    }

    fn child_box(&self, slot: usize) -> Aabb<N> {
        Aabb {
            mins: Point3::new(self.mins[0][slot], self.mins[1][slot], self.mins[2][slot]),
            maxs: Point3::new(self.maxs[0][slot], self.maxs[1][slot], self.maxs[2][slot]),
        }
    }
}

/// Half the surface area (`xy + yz + zx`): the SAH's weight, and the size
/// by which a pair descent picks the side to open. Infinite for unbounded
/// boxes, zero for empty ones.
fn half_area<N: Real>(aabb: &Aabb<N>) -> N {
    let e = (aabb.maxs - aabb.mins).map(|c| c.max(N::zero()));
    e.x * e.y + e.y * e.z + e.z * e.x
}

/// A bounding-volume hierarchy over boxes numbered `0..len()`; see the
/// [module documentation](self).
#[derive(Clone, Debug)]
pub struct Bvh<N: Real> {
    /// Node 0 is the root; a node's children have larger indices.
    nodes: Vec<Node<N>>,
    /// Primitive indices, grouped by leaf (a primitive's position in the
    /// tree order).
    indices: Vec<u32>,
    /// The primitives' boxes in the tree order (`boxes[p]` is primitive
    /// `indices[p]`'s), so that a leaf's boxes are adjacent in memory.
    boxes: Vec<Aabb<N>>,
    /// Each primitive's position in the tree order.
    positions: Vec<u32>,
    /// Where each node and each position hangs in its parent, made by the
    /// first [`Bvh::refit_in_tree_order`] (a tree never refit in part
    /// does not pay for it).
    links: Option<Box<Links>>,
}

/// Two trees are equal when their nodes, primitives and boxes are: the
/// links a partial refit made are derived from them.
impl<N: Real> PartialEq for Bvh<N> {
    fn eq(&self, other: &Self) -> bool {
        self.nodes == other.nodes
            && self.indices == other.indices
            && self.boxes == other.boxes
            && self.positions == other.positions
    }
}

/// A node's or a leaf's place: its parent node's index and the slot it
/// fills there, as `parent * WIDTH + slot` ([`NO_PARENT`] for the root).
type Link = u32;
/// The root's link.
const NO_PARENT: Link = u32::MAX;

/// The places a partial refit walks up from: each node's, and each
/// position's (the place of the leaf holding it).
#[derive(Clone, Debug)]
struct Links {
    node: Vec<Link>,
    position: Vec<Link>,
}

impl Links {
    fn of<N: Real>(bvh: &Bvh<N>) -> Self {
        let mut links = Links {
            node: vec![NO_PARENT; bvh.nodes.len()],
            position: vec![NO_PARENT; bvh.boxes.len()],
        };
        for (index, node) in bvh.nodes.iter().enumerate() {
            for (slot, &child) in node.children.iter().enumerate() {
                let link = (index * WIDTH + slot) as Link;
                match child {
                    EMPTY => {}
                    c if c & LEAF != 0 => {
                        for p in bvh.leaf_range(c & !LEAF) {
                            links.position[p] = link;
                        }
                    }
                    c => links.node[c as usize] = link,
                }
            }
        }
        links
    }
}

impl<N: Real> Bvh<N> {
    /// The tree over `boxes` (primitive `i` is `boxes[i]`), with the
    /// default options. Boxes may be infinite (a half-space's); a NaN bound
    /// is read as unbounded on that side.
    ///
    /// # Panics
    ///
    /// When there are more than 2²⁷ (134 217 728) boxes.
    pub fn build(boxes: &[Aabb<N>]) -> Self {
        Self::build_with(boxes, BvhOptions::default())
    }

    /// [`Bvh::build`] with `options` (a leaf size outside 1..=16 is
    /// clamped into it).
    ///
    /// # Panics
    ///
    /// When there are more than 2²⁷ (134 217 728) boxes.
    pub fn build_with(boxes: &[Aabb<N>], options: BvhOptions) -> Self {
        build::build(boxes, options)
    }

    /// [`Bvh::build`] with the subtrees of nodes holding 8192 primitives
    /// or more built as parallel tasks on rayon's thread pool (feature
    /// `parallel`). The tree is the same as [`Bvh::build`]'s, node for
    /// node.
    ///
    /// # Panics
    ///
    /// When there are more than 2²⁷ (134 217 728) boxes.
    #[cfg(feature = "parallel")]
    pub fn par_build(boxes: &[Aabb<N>]) -> Self {
        Self::par_build_with(boxes, BvhOptions::default())
    }

    /// [`Bvh::par_build`] with `options`.
    ///
    /// # Panics
    ///
    /// When there are more than 2²⁷ (134 217 728) boxes.
    #[cfg(feature = "parallel")]
    pub fn par_build_with(boxes: &[Aabb<N>], options: BvhOptions) -> Self {
        build::par_build(boxes, options)
    }

    /// How many primitives the tree holds.
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// Whether the tree holds no primitive.
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// The box of primitive `index` as last built or refit.
    ///
    /// # Panics
    ///
    /// When `index >= len()`.
    pub fn primitive_aabb(&self, index: u32) -> &Aabb<N> {
        &self.boxes[self.positions[index as usize] as usize]
    }

    /// The box of the primitive at `position` in the
    /// [tree order](Bvh::tree_order), as last built or refit.
    ///
    /// # Panics
    ///
    /// When `position >= len()`.
    pub fn aabb_in_tree_order(&self, position: u32) -> &Aabb<N> {
        &self.boxes[position as usize]
    }

    /// The primitives in the tree order: a leaf's are adjacent, and
    /// `tree_order()[p]` is the primitive at position `p`. Data a caller
    /// keeps in this order is read from adjacent memory by the
    /// `*_in_tree_order` queries, which name primitives by position.
    pub fn tree_order(&self) -> &[u32] {
        &self.indices
    }

    /// The box around every primitive (`None` for an empty tree).
    pub fn root_aabb(&self) -> Option<Aabb<N>> {
        let root = self.nodes.first()?;
        (0..WIDTH)
            .filter(|&slot| root.children[slot] != EMPTY)
            .map(|slot| root.child_box(slot))
            .reduce(|a, b| a.merged(&b))
    }

    /// How many four-wide nodes the tree has (its memory is about
    /// `nodes × (24 × size_of::<N>() + 16)` bytes plus the primitives').
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The tree's surface-area cost: the half areas of every node's
    /// children's boxes, summed (the SAH's estimate of a query's box tests,
    /// up to the root's area; infinite with an unbounded box). A refit
    /// keeps the tree's shape while its primitives move away from the
    /// neighbours it was built for, and this sum grows with the queries'
    /// cost: compared with its value at the build, it says when to build
    /// again.
    pub fn surface_cost(&self) -> N {
        self.nodes
            .iter()
            .flat_map(|node| (0..WIDTH).map(move |slot| half_area(&node.child_box(slot))))
            .fold(N::zero(), |sum, area| sum + area)
    }

    /// Replaces every primitive's box and updates the nodes' boxes to hold
    /// them, keeping the tree's shape: after small motions queries stay
    /// exact (every box is refit) and about as fast; after large ones,
    /// build again.
    ///
    /// # Panics
    ///
    /// When `boxes.len()` differs from [`Bvh::len`].
    pub fn refit(&mut self, boxes: &[Aabb<N>]) {
        assert_eq!(
            boxes.len(),
            self.boxes.len(),
            "Bvh::refit: {} boxes for a tree of {}",
            boxes.len(),
            self.boxes.len()
        );
        self.refit_with(|i| boxes[i as usize]);
    }

    /// [`Bvh::refit`] with primitive `i`'s new box from `box_of(i)` (called
    /// once per primitive, in the tree's order): no gathered copy of the
    /// boxes is needed.
    pub fn refit_with(&mut self, box_of: impl Fn(u32) -> Aabb<N>) {
        for (slot, &i) in self.boxes.iter_mut().zip(&self.indices) {
            let b = box_of(i);
            *slot = Aabb::new(b.mins, b.maxs);
        }
        // Children have larger indices than their parent: a reverse sweep
        // sees every child refit before its parent reads it.
        for index in (0..self.nodes.len()).rev() {
            for slot in 0..WIDTH {
                let child = self.nodes[index].children[slot];
                let aabb = match child {
                    EMPTY => continue,
                    c if c & LEAF != 0 => self.leaf_box(c & !LEAF),
                    c => self.node_box(c as usize),
                };
                self.nodes[index].set_box(slot, &aabb);
            }
        }
    }

    /// [`Bvh::refit_with`] for the primitives at `positions` in the
    /// [tree order](Bvh::tree_order) alone: each one's box becomes
    /// `box_at(position)`, and the nodes above it are refit as far up as
    /// their boxes change. The tree is the one a full refit with the same
    /// boxes makes, node for node; the cost is about the few levels above
    /// each moved primitive rather than the whole tree.
    ///
    /// # Panics
    ///
    /// When a position is `len()` or more.
    pub fn refit_in_tree_order(&mut self, positions: &[u32], box_at: impl Fn(u32) -> Aabb<N>) {
        let links = self.links.take().unwrap_or_else(|| Box::new(Links::of(self)));
        for &position in positions {
            let b = box_at(position);
            self.boxes[position as usize] = Aabb::new(b.mins, b.maxs);
            let mut link = links.position[position as usize];
            let leaf = self.nodes[link as usize / WIDTH].children[link as usize % WIDTH];
            let mut aabb = self.leaf_box(leaf & !LEAF);
            // Each node's box is the union of its children's: when a slot
            // already holds the new box, nothing above it changes.
            while link != NO_PARENT {
                let (index, slot) = (link as usize / WIDTH, link as usize % WIDTH);
                if self.nodes[index].child_box(slot) == aabb {
                    break;
                }
                self.nodes[index].set_box(slot, &aabb);
                aabb = self.node_box(index);
                link = links.node[index];
            }
        }
        self.links = Some(links);
    }

    fn leaf_box(&self, leaf: u32) -> Aabb<N> {
        let boxes = &self.boxes[self.leaf_range(leaf)];
        boxes[1..].iter().fold(boxes[0], |b, x| b.merged(x))
    }

    fn node_box(&self, index: usize) -> Aabb<N> {
        let node = &self.nodes[index];
        (0..WIDTH)
            .filter(|&slot| node.children[slot] != EMPTY)
            .map(|slot| node.child_box(slot))
            .reduce(|a, b| a.merged(&b))
            .expect("an inner node has a child")
    }

    fn leaf_indices(&self, leaf: u32) -> &[u32] {
        &self.indices[self.leaf_range(leaf)]
    }

    /// A leaf's positions in the tree order, from its packed reference
    /// (the [`LEAF`] flag cleared).
    fn leaf_range(&self, leaf: u32) -> std::ops::Range<usize> {
        let start = (leaf >> LEAF_COUNT_BITS) as usize;
        let count = (leaf & ((1 << LEAF_COUNT_BITS) - 1)) as usize + 1;
        start..start + count
    }
}
