//! An order for many rays through one tree, so that rays passing through
//! the same part of the tree are cast one after another and find its nodes
//! and primitives still in cache.
//!
//! A ray's key is the Morton (Z-order) code of the middle of its segment
//! inside the tree's root box, on a 2¹⁰-cell grid per axis over the cube
//! around that box: rays whose middles are near each other get near keys.
//! Sorting rays by a spatial hash before tracing them is the ray-sorting
//! idea of Garanzha and Loop (2010, "Fast ray sorting and breadth-first
//! packet traversal for GPU ray tracing"); the middle of the segment rather
//! than the origin keys rays that start far apart but cross the same
//! region (rays from a camera or from a sky down onto a terrain) together.
//! On a 10⁶-triangle terrain and 10⁶ random rays from above it, casting in
//! this order rather than the given one was twice as fast, the sorting
//! included (docs/benchmarks.md, `mesh/rays_1e6/batch`).

use nalgebra::Isometry3;

use super::Bvh;
use crate::ray::Ray;
use crate::scalar::Real;

/// Bits of a key per axis.
const BITS: u32 = 10;

/// The key of every ray missing the root box (after every other key).
pub const MISS_KEY: u32 = u32::MAX;

/// The order in which to cast many rays through a tree: a ray's key is the
/// Morton (Z-order) code of the middle of its segment inside the tree's
/// root box, on a 2¹⁰-cell grid per axis over the cube around the box, so
/// rays crossing the same region get near keys (the ray sorting of
/// Garanzha and Loop, 2010). Made by [`Bvh::ray_order`].
#[derive(Clone, Copy, Debug)]
pub struct RayOrder<N: Real> {
    /// The root box's corners.
    mins: [N; 3],
    maxs: [N; 3],
    /// The cube's corner (the lowest) and its cells per unit length.
    corner: [N; 3],
    cells_per_unit: N,
}

impl<N: Real> RayOrder<N> {
    /// The key of `ray` (in the tree's frame) over `[0, max_t]`: the
    /// Morton code of the middle of its part inside the root box, or
    /// [`MISS_KEY`] for a ray missing the box, a non-finite ray or a
    /// negative or NaN `max_t`. Any key is a valid order: keys only decide
    /// which rays go together, never an answer.
    pub fn key(&self, ray: &Ray<N>, max_t: N) -> u32 {
        let valid_max_t = max_t >= N::zero();
        if !ray.is_finite() || !valid_max_t {
            return MISS_KEY;
        }
        let (mut enter, mut exit) = (N::zero(), max_t);
        for axis in 0..3 {
            let (o, d) = (ray.origin[axis], ray.dir[axis]);
            if d == N::zero() {
                if o < self.mins[axis] || o > self.maxs[axis] {
                    return MISS_KEY;
                }
                continue;
            }
            let (a, b) = ((self.mins[axis] - o) / d, (self.maxs[axis] - o) / d);
            let (near, far) = if a < b { (a, b) } else { (b, a) };
            enter = if near > enter { near } else { enter };
            exit = if far < exit { far } else { exit };
        }
        // Also false for a NaN time.
        let meets = enter <= exit;
        if !meets {
            return MISS_KEY;
        }
        let middle = if exit.is_finite() {
            (enter + exit) * nalgebra::convert::<f64, N>(0.5)
        } else {
            enter
        };
        let top = nalgebra::convert::<f64, N>(((1u32 << BITS) - 1) as f64);
        let mut key = 0;
        for axis in 0..3 {
            let cell = (ray.origin[axis] + ray.dir[axis] * middle - self.corner[axis]) * self.cells_per_unit;
            let cell = if cell > N::zero() { cell } else { N::zero() };
            let cell = if cell < top { cell } else { top };
            let cell: f64 = cell.to_subset().unwrap_or(0.0);
            key |= spread_bits(cell as u32) << axis;
        }
        key
    }

    /// [`RayOrder::key`] of a ray given in the world frame, for the tree at
    /// `pose`.
    pub fn key_at(&self, pose: &Isometry3<N>, ray: &Ray<N>, max_t: N) -> u32 {
        self.key(&ray.inverse_transformed(pose), max_t)
    }
}

/// The low [`BITS`] bits of `x` moved to every third bit (bit `i` to bit
/// `3i`), to interleave three coordinates.
fn spread_bits(x: u32) -> u32 {
    let mut x = x & ((1 << BITS) - 1);
    x = (x | x << 16) & 0x0300_00ff;
    x = (x | x << 8) & 0x0300_f00f;
    x = (x | x << 4) & 0x030c_30c3;
    x = (x | x << 2) & 0x0924_9249;
    x
}

impl<N: Real> Bvh<N> {
    /// The order in which to cast many rays through this tree (see
    /// [`RayOrder`]); `None` for an empty tree or an unbounded root box.
    pub fn ray_order(&self) -> Option<RayOrder<N>> {
        let root = self.root_aabb()?;
        if !root.is_bounded() {
            return None;
        }
        let extents = root.maxs - root.mins;
        let side = extents.x.max(extents.y).max(extents.z);
        let centre = root.center();
        let half = side * nalgebra::convert::<f64, N>(0.5);
        let cells = nalgebra::convert::<f64, N>((1u32 << BITS) as f64);
        Some(RayOrder {
            mins: [root.mins.x, root.mins.y, root.mins.z],
            maxs: [root.maxs.x, root.maxs.y, root.maxs.z],
            corner: [centre.x - half, centre.y - half, centre.z - half],
            cells_per_unit: if side > N::zero() { cells / side } else { N::zero() },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aabb::Aabb;
    use nalgebra::{Point3, Vector3};

    #[test]
    fn spread_bits_moves_bit_i_to_bit_3i() {
        for i in 0..BITS {
            assert_eq!(spread_bits(1 << i), 1 << (3 * i));
        }
        assert_eq!(spread_bits(u32::MAX), 0x0924_9249 & ((1 << 30) - 1));
    }

    fn unit_cells() -> Bvh<f64> {
        // The cube [0, 1024]³ holds one box per corner: cells of size 1.
        let boxes = [
            Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0)),
            Aabb::new(
                Point3::new(1023.0, 1023.0, 1023.0),
                Point3::new(1024.0, 1024.0, 1024.0),
            ),
        ];
        Bvh::build(&boxes)
    }

    #[test]
    fn the_key_interleaves_the_cells_of_the_segments_middle() {
        let order = unit_cells().ray_order().unwrap();
        // Along x at y = 2.5, z = 6.5 through the whole box: the middle is
        // x = 512 (cell 512), y cell 2, z cell 6.
        let ray = Ray::new(Point3::new(-10.0, 2.5, 6.5), Vector3::new(1.0, 0.0, 0.0));
        let expected = spread_bits(512) | spread_bits(2) << 1 | spread_bits(6) << 2;
        assert_eq!(order.key(&ray, f64::INFINITY), expected);
        // Stopped at x = 100: the middle of [0, 100] is cell 50.
        let expected = spread_bits(50) | spread_bits(2) << 1 | spread_bits(6) << 2;
        assert_eq!(order.key(&ray, 110.0), expected);
    }

    #[test]
    fn missing_or_bad_rays_go_last() {
        let order = unit_cells().ray_order().unwrap();
        let away = Ray::new(Point3::new(-10.0, 2.5, 6.5), Vector3::new(-1.0, 0.0, 0.0));
        let beside = Ray::new(Point3::new(-10.0, 2000.0, 6.5), Vector3::new(1.0, 0.0, 0.0));
        let nan = Ray::new(Point3::new(f64::NAN, 2.5, 6.5), Vector3::new(1.0, 0.0, 0.0));
        let ahead = Ray::new(Point3::new(-10.0, 2.5, 6.5), Vector3::new(1.0, 0.0, 0.0));
        assert_eq!(order.key(&away, f64::INFINITY), MISS_KEY);
        assert_eq!(order.key(&beside, f64::INFINITY), MISS_KEY);
        assert_eq!(order.key(&nan, f64::INFINITY), MISS_KEY);
        assert_eq!(order.key(&ahead, 5.0), MISS_KEY);
        assert_eq!(order.key(&ahead, -1.0), MISS_KEY);
        assert_eq!(order.key(&ahead, f64::NAN), MISS_KEY);
        assert_ne!(order.key(&ahead, 10.0), MISS_KEY);
    }

    #[test]
    fn the_key_of_a_posed_ray_is_that_of_the_ray_in_the_trees_frame() {
        let order = unit_cells().ray_order().unwrap();
        let pose = Isometry3::new(Vector3::new(5.0, -3.0, 2.0), Vector3::new(0.3, -0.2, 0.9));
        // Middle at x = 250.5, the centre of a cell (far from rounding).
        let local = Ray::new(Point3::new(-10.0, 200.5, 600.5), Vector3::new(1.0, 0.0, 0.0));
        let world = local.transformed(&pose);
        let expected = spread_bits(250) | spread_bits(200) << 1 | spread_bits(600) << 2;
        assert_eq!(order.key(&local, 511.0), expected);
        assert_eq!(order.key_at(&pose, &world, 511.0), expected);
    }
}
