//! Grouping candidate contacts into manifolds and reducing each to at most
//! four points.

use geom_core::{ContactCandidate, ContactManifolds, Real};
use nalgebra::Vector3;

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
        for index in pick_four(group, &seed).into_iter().flatten() {
            manifold.points.push(group[index].point);
        }
        start = end;
    }
}

/// Up to four indices into `group` (whose first element is the deepest):
/// the deepest; the point farthest from it across the normal; the one
/// making the largest triangle with those two; the one farthest outside
/// that triangle (the largest added area). Points that add nothing (a
/// repeat, a collinear third, a fourth inside) are left out.
fn pick_four<N: Real>(group: &[ContactCandidate<N>], normal: &Vector3<N>) -> [Option<usize>; 4] {
    let mut picked = [Some(0), None, None, None];
    if group.len() < 2 {
        return picked;
    }
    // Positions across the normal (the normal component removed), relative
    // to the deepest point.
    let across = |k: usize| {
        let d = group[k].point.point_a - group[0].point.point_a;
        d - normal * d.dot(normal)
    };
    let tiny = {
        let size = (0..group.len())
            .map(|k| across(k).amax())
            .fold(N::zero(), |x, y| x.max(y));
        size * N::default_epsilon() * nalgebra::convert::<f64, N>(1024.0)
    };
    let argmax = |score: &dyn Fn(usize) -> N| {
        (0..group.len())
            .map(|k| (k, score(k)))
            .reduce(|best, next| if next.1 > best.1 { next } else { best })
    };
    let Some((second, spread)) = argmax(&|k| across(k).norm()) else {
        return picked;
    };
    if spread <= tiny {
        return picked;
    }
    picked[1] = Some(second);
    let base = across(second);
    let Some((third, area)) = argmax(&|k| base.cross(&across(k)).dot(normal).abs()) else {
        return picked;
    };
    if area <= tiny * spread {
        return picked;
    }
    picked[2] = Some(third);
    let c = across(third);
    // Orient the triangle (0, second, third) counter-clockwise about the
    // normal, then score each point by how far outside its edges it lies.
    let sign = if base.cross(&c).dot(normal) >= N::zero() {
        N::one()
    } else {
        -N::one()
    };
    let corners = [Vector3::zeros(), base, c];
    let outside = |k: usize| {
        let p = across(k);
        (0..3)
            .map(|e| {
                let (from, to) = (corners[e], corners[(e + 1) % 3]);
                -sign * (to - from).cross(&(p - from)).dot(normal)
            })
            .fold(N::zero(), |x, y| x.max(y))
    };
    if let Some((fourth, added)) = argmax(&outside)
        && added > tiny * spread
    {
        picked[3] = Some(fourth);
    }
    picked
}
