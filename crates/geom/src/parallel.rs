//! [`ray_cast_batch`](crate::batch::ray_cast_batch) on every core (rayon).
//!
//! ```
//! use geom::prelude::*;
//! use geom::{HitBatch, RayBatch};
//!
//! let sphere = Sphere::new(1.0f64);
//! let rays: RayBatch<f64> = (0..50_000)
//!     .map(|k| Ray::new(Point3::new(-3.0, (k % 200) as f64 * 0.01 - 1.0, 0.0), Vector3::x()))
//!     .collect();
//! let (mut single, mut parallel) = (HitBatch::new(), HitBatch::new());
//! geom::ray_cast_batch(&sphere, &Isometry3::identity(), &rays, f64::MAX, true, &mut single);
//! geom::par_ray_cast_batch(&sphere, &Isometry3::identity(), &rays, f64::MAX, true, &mut parallel);
//! assert_eq!(single, parallel); // the same answers, whatever the thread count
//! ```

use nalgebra::Isometry3;

use crate::batch::{BatchReal, BatchShape, HitBatch, HitRows, RayBatch, RayRows};

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
    S: BatchShape<N> + Sync + ?Sized,
{
    out.resize(rays.len());
    let query = Query {
        shape,
        pose,
        max_t,
        solid,
    };
    cast_split(&query, rays.rows(), out.rows_mut());
}

/// What every task casts against.
struct Query<'a, N: BatchReal, S: ?Sized> {
    shape: &'a S,
    pose: &'a Isometry3<N>,
    max_t: N,
    solid: bool,
}

/// Halves the range until it fits in one task (rayon's join: no
/// allocation, and idle threads steal the other half).
fn cast_split<N, S>(query: &Query<'_, N, S>, rays: RayRows<'_, N>, out: HitRows<'_, N>)
where
    N: BatchReal,
    S: BatchShape<N> + Sync + ?Sized,
{
    let len = rays.len();
    if len <= RAYS_PER_TASK {
        let Query {
            shape,
            pose,
            max_t,
            solid,
        } = *query;
        shape.ray_cast_rows(pose, rays, max_t, solid, out);
        return;
    }
    // Whole packs of the widest lanes on the left, so only the last task
    // has a tail.
    let mid = (len / 2).next_multiple_of(8);
    let (rays_low, rays_high) = rays.split_at(mid);
    let (out_low, out_high) = out.split_at(mid);
    rayon::join(
        || cast_split(query, rays_low, out_low),
        || cast_split(query, rays_high, out_high),
    );
}
