//! [`ray_cast_batch`](crate::batch::ray_cast_batch) on every core (rayon).

use geom_core::{LaneShape, Shape};
use nalgebra::Isometry3;

use crate::batch::{BatchQuery, BatchReal, HitBatch, HitColumns, Pack, RayBatch, RayColumns};

/// Rays per task: big enough that a task runs for tens of microseconds
/// (rayon's split and steal cost about a microsecond), small enough that
/// 10⁶ rays make about sixty tasks for the threads to balance.
const RAYS_PER_TASK: usize = 16 * 1024;

/// [`ray_cast_batch`](crate::batch::ray_cast_batch) split into chunks of
/// about 16 k rays cast on rayon's thread pool. The answers are those of
/// the single-threaded call, bit for bit, whatever the number of threads.
pub fn par_ray_cast_batch<N, S>(
    shape: &S,
    pose: &Isometry3<N>,
    rays: &RayBatch<N>,
    max_t: N,
    solid: bool,
    out: &mut HitBatch<N>,
) where
    N: BatchReal,
    S: LaneShape<N> + Shape<N>,
{
    out.resize(rays.len());
    let query = BatchQuery::new(shape, pose, max_t, solid);
    cast_split::<N::Wide, S>(&query, rays.columns(), out.columns_mut());
}

/// Halves the range until it fits in one task (rayon's join: no
/// allocation, and idle threads steal the other half).
fn cast_split<T, S>(
    query: &BatchQuery<'_, T::Element, S>,
    rays: RayColumns<'_, T::Element>,
    out: HitColumns<'_, T::Element>,
) where
    T: Pack,
    S: LaneShape<T::Element> + Shape<T::Element>,
{
    let len = rays.len();
    if len <= RAYS_PER_TASK {
        query.cast_columns::<T>(rays, out);
        return;
    }
    // Whole packs on the left, so only the last task has a tail.
    let mid = (len / 2).next_multiple_of(T::LANES);
    let (rays_low, rays_high) = rays.split_at(mid);
    let (out_low, out_high) = out.split_at(mid);
    rayon::join(
        || cast_split::<T, S>(query, rays_low, out_low),
        || cast_split::<T, S>(query, rays_high, out_high),
    );
}
