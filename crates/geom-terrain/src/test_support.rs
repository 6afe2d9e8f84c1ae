//! Random terrains and numbers for the tests.

use geom_core::Aabb;
use nalgebra::Point3;

use crate::{HeightField, HeightFieldDesc};

/// A small xorshift generator: reproducible, no dependency.
pub(crate) struct TestRng(u64);

impl TestRng {
    pub(crate) fn new(seed: u64) -> Self {
        TestRng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub(crate) fn point_in(&mut self, aabb: &Aabb<f64>) -> Point3<f64> {
        Point3::new(
            self.range(aabb.mins.x, aabb.maxs.x),
            self.range(aabb.mins.y, aabb.maxs.y),
            self.range(aabb.mins.z, aabb.maxs.z),
        )
    }
}

/// A random terrain: random origin and cell sizes, rough heights, about a
/// third of the cells flipped and a tenth holes.
pub(crate) fn random_field(rng: &mut TestRng, rows: usize, cols: usize) -> HeightField<f64> {
    let heights = (0..rows * cols).map(|_| rng.range(-1.5, 1.5)).collect();
    let origin = Point3::new(rng.range(-5.0, 5.0), rng.range(-2.0, 2.0), rng.range(-5.0, 5.0));
    let mut desc = HeightFieldDesc::new(
        origin,
        [rng.range(0.3, 1.7), rng.range(0.3, 1.7)],
        rows,
        cols,
        heights,
    );
    let cells = (rows - 1) * (cols - 1);
    desc.flipped_cells = (0..cells).filter(|_| rng.below(3) == 0).collect();
    desc.hole_cells = (0..cells).filter(|_| rng.below(10) == 0).collect();
    HeightField::try_from_desc(desc).unwrap()
}
