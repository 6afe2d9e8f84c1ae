//! The dispatch table with every built-in pair registered.

use geom_core::Real;
use geom_core::dispatch::DispatchTable;

/// A [`DispatchTable`] answering every built-in pair: the analytic
/// routines, the terrain's and the meshes' contacts, and GJK/EPA for any
/// other pair of convex shapes. Build it once and share it (`&DispatchTable` is `Sync`);
/// downstream crates may register their own kinds and pairs on top.
///
/// ```
/// use geom::prelude::*;
///
/// let table = geom::default_dispatcher::<f64>();
/// let ground = HeightField::try_from_desc(HeightFieldDesc::new(
///     Point3::new(0.0, 0.0, 0.0), [1.0, 1.0], 3, 3, vec![0.0; 9],
/// )).unwrap();
/// let ball = Sphere::new(0.5);
/// let mut contacts = ContactManifolds::new();
/// table.contact(&ground, &Isometry3::identity(), &ball, &Isometry3::translation(1.0, 0.4, 1.0), 0.0, &mut contacts)
///     .unwrap();
/// let (normal, point) = contacts.points().next().unwrap();
/// assert_eq!(*normal, Vector3::y()); // from the ground to the ball
/// assert!((point.depth - 0.1).abs() < 1e-15);
/// ```
pub fn default_dispatcher<N: Real>() -> DispatchTable<N> {
    let mut table = DispatchTable::new();
    geom_prims::contact::register_pairs(&mut table);
    geom_prims::gjk::install_convex_fallback(&mut table);
    // Last: the terrain's and the meshes' routines collide with triangles
    // through the table as registered so far.
    geom_terrain::contact::register_pairs(&mut table);
    geom_terrain::mesh::register_pairs(&mut table);
    // A mesh against a mesh or a heightfield: triangle by triangle
    // through the routines above.
    geom_terrain::surface_pairs::register_pairs(&mut table);
    // Compounds' children collide through everything above.
    geom_core::compound::register_pairs(&mut table);
    table
}
