//! The triangles of a surface near one convex shape, kept from one query
//! to the next: what a physics engine's contact pair remembers of a
//! heightfield or a mesh between frames.
//!
//! A query that keeps them ([`contact_heightfield_convex_cached`],
//! [`contact_trimesh_convex_cached`]) first lists, besides its own
//! answer, every triangle that could come within the margin of the shape
//! while the shape moves by at most a slack (a sixteenth of its reach
//! from its origin): those in its box loosened by the margin and the
//! slack that no separating test along the triangle's own axes (its
//! normal, its edges' normals in its plane) rules out at that wider
//! margin. A later query whose shape has moved (relative to the surface)
//! by at most half the slack, with the same margin, walks the same
//! triangles as a cold query would and skips the others: each of them is
//! still separated from the shape by more than the margin along the same
//! fixed axis (a separation along a fixed axis changes by no more than the
//! motion), so the cold query would have ruled it out by the same test.
//! The answer is the cold query's, bit for bit; a larger motion, another
//! margin or [`NearTriangles::clear`] takes the cold path and lists anew.
//!
//! The motion of a shape point `x` (at most `reach` from the shape's
//! origin) from pose `(R₁, t₁)` to `(R₂, t₂)` is at most
//! `|t₂ − t₁| + θ·reach`, `θ` the angle between the rotations.
//!
//! [`contact_heightfield_convex_cached`]: crate::contact::contact_heightfield_convex_cached
//! [`contact_trimesh_convex_cached`]: crate::mesh::contact_trimesh_convex_cached

use geom_core::{Real, lit};
use nalgebra::Isometry3;

/// The triangles of a surface near one convex shape (see the [module
/// documentation](self)). One per pair of shapes: its triangles are
/// those of the surface and shape it was filled with.
#[derive(Clone, Debug, Default)]
pub struct NearTriangles<N: Real> {
    anchor: Option<Anchor<N>>,
    triangles: Vec<u32>,
    warm: u64,
    cold: u64,
}

/// Where the kept triangles were listed.
#[derive(Clone, Copy, Debug)]
struct Anchor<N: Real> {
    /// The shape's pose in the surface's frame.
    local_pose: Isometry3<N>,
    margin: N,
    reach: N,
    slack: N,
}

impl<N: Real> NearTriangles<N> {
    /// Nothing kept: the next query takes the cold path.
    pub fn new() -> Self {
        NearTriangles {
            anchor: None,
            triangles: Vec::new(),
            warm: 0,
            cold: 0,
        }
    }

    /// Forgets the kept triangles (keeping the storage).
    pub fn clear(&mut self) {
        self.anchor = None;
        self.triangles.clear();
    }

    /// How many triangles are kept.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// How many queries walked the kept triangles, and how many took the
    /// cold path (and listed them anew).
    pub fn warm_and_cold(&self) -> (u64, u64) {
        (self.warm, self.cold)
    }

    /// Whether the kept triangles answer for the shape at `local_pose`
    /// with `margin`: listed at that margin and reach, the shape moved by
    /// at most half the slack since (see the [module
    /// documentation](self)). Counts the query as warm or cold.
    fn certifies(&mut self, local_pose: &Isometry3<N>, margin: N, reach: N) -> bool {
        let certified = self.anchor.is_some_and(|anchor| {
            let moved = (local_pose.translation.vector - anchor.local_pose.translation.vector).norm()
                + anchor.local_pose.rotation.angle_to(&local_pose.rotation) * reach;
            anchor.margin == margin && anchor.reach == reach && moved <= anchor.slack * lit(0.5)
        });
        if certified {
            self.warm += 1;
        } else {
            self.cold += 1;
        }
        certified
    }

    /// Starts a new list for the shape at `local_pose` with `margin` and
    /// `reach`; the slack it allows.
    fn start(&mut self, local_pose: &Isometry3<N>, margin: N, reach: N) -> N {
        let slack = reach * lit(1.0 / 16.0);
        self.triangles.clear();
        let finite = slack.is_finite() && margin.is_finite();
        self.anchor = finite.then_some(Anchor {
            local_pose: *local_pose,
            margin,
            reach,
            slack,
        });
        slack
    }

    /// Whether the kept triangles answer for the shape at `local_pose`
    /// ([`NearTriangles::certifies`]); if not, a new list, which `fill`
    /// gives: it is handed the slack and keeps each triangle that may come
    /// within `margin + slack` of the shape.
    pub(crate) fn prepare(
        &mut self,
        local_pose: &Isometry3<N>,
        margin: N,
        reach: N,
        fill: impl FnOnce(N, &mut dyn FnMut(u32)),
    ) -> bool {
        if self.certifies(local_pose, margin, reach) {
            return true;
        }
        let slack = self.start(local_pose, margin, reach);
        fill(slack, &mut |triangle| self.triangles.push(triangle));
        // Sorted for `holds`.
        self.triangles.sort_unstable();
        false
    }

    /// Whether `triangle` is kept (in a finished list).
    pub(crate) fn holds(&self, triangle: u32) -> bool {
        self.triangles.binary_search(&triangle).is_ok()
    }
}
