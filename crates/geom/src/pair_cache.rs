//! What a physics engine keeps for one pair of shapes from one frame to
//! the next, and the contact query that uses it.
//!
//! A [`PairCache`] belongs to one pair (the same two shapes each frame,
//! in either order); [`contact_cached`] answers exactly as
//! [`DispatchTable::contact`] does, bit for bit, and skips the work the
//! cache certifies needless:
//! - a query whose shapes, poses and margin are bit for bit those of the
//!   cache's last successful query gets that query's manifolds again
//!   (contact is a function of its inputs, so nothing is recomputed: a
//!   body at rest whose pose the solver left unchanged, a static pair);
//! - for a heightfield or a mesh against a box, a cylinder, a cone, an
//!   ellipsoid, a hull or a custom convex shape, the triangles kept near
//!   the shape ([`NearTriangles`]) serve while the shape has moved by less
//!   than their slack.
//!
//! Other pairs take the table's path. Shapes are recognised by address
//! and kind: a cache kept across a shape's replacement by another at the
//! same address must be [cleared](PairCache::clear). Unlike parry3d's
//! manifold update, which keeps last frame's points while the relative
//! pose turns by less than a degree, nothing is reused that the present
//! poses do not give exactly.
//!
//! ```
//! use geom::prelude::*;
//! use geom::{PairCache, contact_cached};
//!
//! let table = geom::default_dispatcher::<f64>();
//! let ground = HeightField::new(Point3::new(-4.0, 0.0, -4.0), [1.0, 1.0], 9, 9, vec![0.0; 81]);
//! let crate_ = Cuboid::new(Vector3::new(0.5, 0.5, 0.5));
//! let mut cache = PairCache::new();
//! let (mut warm, mut cold) = (ContactManifolds::new(), ContactManifolds::new());
//! for frame in 0..10 {
//!     // Resting 0.01 deep, jittering by a hair.
//!     let pose = Isometry3::translation(0.3 + 1e-5 * frame as f64, 0.49, 0.2);
//!     contact_cached(&table, &ground, &Isometry3::identity(), &crate_, &pose, 0.05, &mut cache, &mut warm).unwrap();
//!     table.contact(&ground, &Isometry3::identity(), &crate_, &pose, 0.05, &mut cold).unwrap();
//!     assert_eq!(warm.as_slice(), cold.as_slice());
//! }
//! assert_eq!(cache.near_triangles().warm_and_cold(), (9, 1));
//!
//! // The same poses again: the last answer, not recomputed.
//! let pose = Isometry3::translation(0.3 + 9e-5, 0.49, 0.2);
//! contact_cached(&table, &ground, &Isometry3::identity(), &crate_, &pose, 0.05, &mut cache, &mut warm).unwrap();
//! assert_eq!(warm.as_slice(), cold.as_slice());
//! assert_eq!(cache.repeats(), 1);
//! ```

use geom_core::{ContactManifolds, DispatchTable, GeomError, Real, Shape, ShapeKind};
use geom_terrain::contact::contact_heightfield_convex_cached;
use geom_terrain::mesh::contact_trimesh_convex_cached;
use geom_terrain::{HeightField, NearTriangles, TriMesh};
use nalgebra::Isometry3;

/// What one pair of shapes keeps from one contact query to the next (see
/// the [module documentation](self)). Start with [`PairCache::new`]; clear
/// it or drop it when the pair ends.
#[derive(Clone, Debug, Default)]
pub struct PairCache<N: Real> {
    near: NearTriangles<N>,
    /// The inputs of the last query that succeeded, and its manifolds.
    last: Option<Query<N>>,
    answer: ContactManifolds<N>,
    repeats: u64,
}

/// One contact query's inputs, shapes by address and kind.
#[derive(Clone, Debug)]
struct Query<N: Real> {
    shapes: [(usize, ShapeKind); 2],
    poses: [Isometry3<N>; 2],
    margin: N,
}

impl<N: Real> Query<N> {
    fn new(
        a: &dyn Shape<N>,
        pose_a: &Isometry3<N>,
        b: &dyn Shape<N>,
        pose_b: &Isometry3<N>,
        margin: N,
    ) -> Self {
        let address = |shape: &dyn Shape<N>| shape as *const dyn Shape<N> as *const () as usize;
        Query {
            shapes: [(address(a), a.kind()), (address(b), b.kind())],
            poses: [*pose_a, *pose_b],
            margin,
        }
    }

    /// The same shapes, and every pose coordinate and the margin bit for
    /// bit the same (equal and of the same sign; a NaN never repeats).
    fn repeats(&self, other: &Query<N>) -> bool {
        let same = |x: N, y: N| x == y && x.is_sign_negative() == y.is_sign_negative();
        let same_pose = |p: &Isometry3<N>, q: &Isometry3<N>| {
            p.rotation
                .coords
                .iter()
                .zip(q.rotation.coords.iter())
                .all(|(&x, &y)| same(x, y))
                && p.translation
                    .vector
                    .iter()
                    .zip(q.translation.vector.iter())
                    .all(|(&x, &y)| same(x, y))
        };
        self.shapes == other.shapes
            && same(self.margin, other.margin)
            && same_pose(&self.poses[0], &other.poses[0])
            && same_pose(&self.poses[1], &other.poses[1])
    }
}

impl<N: Real> PairCache<N> {
    /// An empty cache: the next query takes the cold path.
    pub fn new() -> Self {
        PairCache {
            near: NearTriangles::new(),
            last: None,
            answer: ContactManifolds::new(),
            repeats: 0,
        }
    }

    /// Forgets what is kept (the next query is cold).
    pub fn clear(&mut self) {
        self.near.clear();
        self.last = None;
        self.answer.clear();
    }

    /// How many queries repeated the last one's inputs and got its
    /// manifolds without recomputing them.
    pub fn repeats(&self) -> u64 {
        self.repeats
    }

    /// The triangles kept for a surface–convex pair.
    pub fn near_triangles(&self) -> &NearTriangles<N> {
        &self.near
    }
}

/// [`DispatchTable::contact`] for a pair that keeps `cache` from one frame
/// to the next: the same manifolds, bit for bit, the same errors (see the
/// [module documentation](self)). A surface's triangle queries go to
/// `table`, as the default dispatcher's surface routines do.
#[allow(clippy::too_many_arguments)]
pub fn contact_cached<N: Real>(
    table: &DispatchTable<N>,
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    cache: &mut PairCache<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    let query = Query::new(a, pose_a, b, pose_b, margin);
    if cache.last.as_ref().is_some_and(|last| last.repeats(&query)) {
        cache.repeats += 1;
        out.copy_from(&cache.answer);
        return Ok(());
    }
    let answer = contact_recomputed(table, a, pose_a, b, pose_b, margin, &mut cache.near, out);
    if answer.is_ok() {
        cache.answer.copy_from(out);
        cache.last = Some(query);
    } else {
        cache.last = None;
    }
    answer
}

/// [`contact_cached`] past the repeated-query check: the table's contact,
/// through the kept triangles where the pair is a surface and a convex
/// shape.
#[allow(clippy::too_many_arguments)]
fn contact_recomputed<N: Real>(
    table: &DispatchTable<N>,
    a: &dyn Shape<N>,
    pose_a: &Isometry3<N>,
    b: &dyn Shape<N>,
    pose_b: &Isometry3<N>,
    margin: N,
    near: &mut NearTriangles<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    if surface_with_convex(table, a, b) {
        table.contact_with(
            a,
            pose_a,
            b,
            pose_b,
            margin,
            out,
            |a, pose_a, b, pose_b, margin, out| {
                surface_contact(table, a, pose_a, b, pose_b, margin, near, out)
            },
        )
    } else if surface_with_convex(table, b, a) {
        table.contact_with(
            a,
            pose_a,
            b,
            pose_b,
            margin,
            out,
            |a, pose_a, b, pose_b, margin, out| {
                let first = out.len();
                let answer = surface_contact(table, b, pose_b, a, pose_a, margin, near, out);
                out.swap_roles_from(first);
                answer
            },
        )
    } else {
        table.contact(a, pose_a, b, pose_b, margin, out)
    }
}

/// Whether the table answers `surface` against `shape` through its
/// routine for a heightfield or a mesh against any convex shape: `surface`
/// one of them, `shape` convex, no routine of their own registered (a
/// sphere's and a capsule's are), and the table answering the pair at all
/// (else it refuses it, and so does [`contact_cached`]).
fn surface_with_convex<N: Real>(
    table: &DispatchTable<N>,
    surface: &dyn Shape<N>,
    shape: &dyn Shape<N>,
) -> bool {
    let any = surface as &dyn std::any::Any;
    (any.is::<HeightField<N>>() || any.is::<TriMesh<N>>())
        && shape.is_convex()
        && !table.has_contact_routine(surface.kind(), shape.kind())
        && table.supports_contact(surface, shape)
}

/// The surface's contact with the convex shape, keeping its triangles.
#[allow(clippy::too_many_arguments)]
fn surface_contact<N: Real>(
    table: &DispatchTable<N>,
    surface: &dyn Shape<N>,
    surface_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    margin: N,
    near: &mut NearTriangles<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    let any = surface as &dyn std::any::Any;
    if let Some(field) = any.downcast_ref::<HeightField<N>>() {
        contact_heightfield_convex_cached(field, surface_pose, shape, shape_pose, margin, table, near, out)
    } else if let Some(mesh) = any.downcast_ref::<TriMesh<N>>() {
        contact_trimesh_convex_cached(mesh, surface_pose, shape, shape_pose, margin, table, near, out)
    } else {
        // (Not reached: `surface_with_convex` admits only these two.)
        table.append_contacts(surface, surface_pose, shape, shape_pose, margin, out)
    }
}
