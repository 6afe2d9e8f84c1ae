//! Grouping candidate contacts into manifolds and reducing each to at most
//! four points.

use geom_core::contact::pick_four;
use geom_core::{ContactCandidate, ContactManifolds, Real};

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
