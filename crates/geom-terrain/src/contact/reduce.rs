//! Grouping candidate contacts into manifolds and reducing each to at most
//! four points.

use geom_core::contact::pick_four;
use geom_core::{ContactCandidate, ContactManifolds, Real, lit};

/// Groups `candidates` by normal and appends one manifold per group to
/// `out`: the deepest remaining candidate seeds a group holding every
/// remaining candidate whose normal is within `cos_angle` of its own
/// (`n · seed >= cos_angle`); the group's manifold takes the seed's normal
/// and at most four of its points ([`pick_four`]). Reorders `candidates`;
/// allocates nothing once `out` is warm.
pub(crate) fn group_and_reduce<N: Real>(
    candidates: &mut [ContactCandidate<N>],
    cos_angle: N,
    out: &mut ContactManifolds<N>,
) {
    let mut start = 0;
    while start < candidates.len() {
        // The deepest remaining candidate to the front.
        let deepest = (start..candidates.len())
            .reduce(|best, k| {
                if candidates[k].point.depth > candidates[best].point.depth {
                    k
                } else {
                    best
                }
            })
            .unwrap_or(start);
        candidates.swap(start, deepest);
        let seed = candidates[start].normal;
        // Partition: the members of the group to candidates[start..end].
        let mut end = start + 1;
        for k in start + 1..candidates.len() {
            if candidates[k].normal.dot(&seed) >= cos_angle {
                candidates.swap(k, end);
                end += 1;
            }
        }
        // Among the points as deep as the seed to rounding (a box resting
        // flat: its corners and where its edges cross the triangles'),
        // the one farthest out from the group's centre leads, so that the
        // reduction keeps the extreme points.
        let group = &mut candidates[start..end];
        let count = nalgebra::convert::<f64, N>(group.len() as f64);
        let centre = group
            .iter()
            .fold(nalgebra::Vector3::zeros(), |sum, c| sum + c.point.point_a.coords)
            / count;
        let top = group[0].point.depth;
        let tie = N::default_epsilon() * lit(8.0) * (N::one() + top.abs() + centre.amax());
        let out_from_centre = |c: &ContactCandidate<N>| {
            let d = c.point.point_a.coords - centre;
            (d - seed * seed.dot(&d)).norm_squared()
        };
        let lead = (0..group.len())
            .filter(|&k| group[k].point.depth >= top - tie)
            .reduce(|best, k| {
                if out_from_centre(&group[k]) > out_from_centre(&group[best]) {
                    k
                } else {
                    best
                }
            })
            .unwrap_or(0);
        group.swap(0, lead);
        let group = &candidates[start..end];
        let manifold = out.push_manifold(seed);
        for index in pick_four(group.len(), |k| group[k].point.point_a, &seed)
            .into_iter()
            .flatten()
        {
            manifold.points.push(group[index].point);
        }
        start = end;
    }
}

/// [`group_and_reduce`] with the grouping angle of a surface whose active
/// edges start at `active_edge_angle` (at least 10⁻³ rad), the manifolds it
/// appends then mapped from the surface's frame to the world by `matrix`.
pub(crate) fn reduce_to_world<N: Real>(
    candidates: &mut [ContactCandidate<N>],
    active_edge_angle: N,
    matrix: &geom_core::pose::PoseMatrix<N>,
    out: &mut ContactManifolds<N>,
) {
    let first = out.len();
    let group_angle = active_edge_angle.max(nalgebra::convert(1e-3));
    group_and_reduce(candidates, group_angle.cos(), out);
    for manifold in &mut out.as_mut_slice()[first..] {
        manifold.normal = matrix.vector_to_world(&manifold.normal);
        for point in &mut manifold.points {
            point.point_a = matrix.point_to_world(&point.point_a);
            point.point_b = matrix.point_to_world(&point.point_b);
        }
    }
}
