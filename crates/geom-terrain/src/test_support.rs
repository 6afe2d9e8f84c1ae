//! Random terrains and numbers for the tests.

use geom_core::Aabb;
use nalgebra::Point3;

use crate::{HeightField, HeightFieldDesc};

/// The workspace's test generator ([`geom_random::Rng`]) with the draws
/// these tests use.
pub(crate) struct TestRng(geom_random::Rng);

impl TestRng {
    pub(crate) fn new(seed: u64) -> Self {
        TestRng(geom_random::Rng::new(seed))
    }

    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        self.0.range(lo, hi)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0.below(n)
    }

    pub(crate) fn point_in(&mut self, aabb: &Aabb<f64>) -> Point3<f64> {
        self.0.point_in(&aabb.mins, &aabb.maxs)
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
