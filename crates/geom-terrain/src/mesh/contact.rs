//! Contacts and closest points between a mesh and convex shapes.
//!
//! Spheres and capsules go through the routine the heightfield uses (a
//! swept-sphere segment against the triangles near it, one candidate per
//! triangle with the normal fixed by the active edges, then grouped by
//! normal and reduced to four points per manifold). Other convex shapes
//! take each nearby triangle's contact from a [`DispatchTable`] (the
//! analytic box–triangle routine, GJK/EPA for the rest) and fix its
//! normal as Jolt's `ActiveEdges::FixNormal` does: a contact on the face,
//! or on an inactive (flat or concave) edge or vertex, takes the face's
//! normal, its points re-measured along it; on an active edge or vertex
//! the routine's normal stands. Grouping and reduction follow.
//!
//! An open mesh is two-sided: a shape behind a triangle is pushed out
//! behind it. A closed mesh is a solid: a shape sunk in it is pushed out.

use geom_core::dispatch::DispatchTable;
use geom_core::pose::PoseMatrix;
use geom_core::{
    ClosestPoints, ContactCandidate, ContactManifolds, ContactPoint, FeatureId, GeomError, Real, Shape,
    ShapeKind, SupportFeature,
};
use geom_prims::{Capsule, Sphere, Triangle};

use crate::contact::PlacedShape;
use nalgebra::{Isometry3, Point3, Vector3};

use super::TriMesh;
use crate::contact::contact_surface_swept_sphere;
use crate::contact::segment::{Region, region_of};
use crate::near::NearTriangles;

/// Contacts between a mesh (`a`) at `mesh_pose` and a sphere (`b`)
/// centred at `sphere_pose`'s translation, appended to `out`: normals from
/// the mesh to the sphere, points down to `depth = -margin`.
pub fn contact_trimesh_sphere<N: Real>(
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    sphere: &Sphere<N>,
    sphere_pose: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let center = Point3::from(sphere_pose.translation.vector);
    contact_surface_swept_sphere(mesh, mesh_pose, &center, &center, sphere.radius, margin, out);
}

/// [`contact_trimesh_sphere`] with the roles swapped: normals from the
/// sphere into the mesh.
pub fn contact_sphere_trimesh<N: Real>(
    sphere: &Sphere<N>,
    sphere_pose: &Isometry3<N>,
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let first = out.len();
    contact_trimesh_sphere(mesh, mesh_pose, sphere, sphere_pose, margin, out);
    out.swap_roles_from(first);
}

/// Contacts between a mesh (`a`) at `mesh_pose` and a capsule (`b`):
/// normals from the mesh to the capsule, points down to `depth = -margin`.
pub fn contact_trimesh_capsule<N: Real>(
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    capsule: &Capsule<N>,
    capsule_pose: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let world_a = capsule_pose * capsule.a;
    let world_b = capsule_pose * capsule.b;
    contact_surface_swept_sphere(mesh, mesh_pose, &world_a, &world_b, capsule.radius, margin, out);
}

/// [`contact_trimesh_capsule`] with the roles swapped.
pub fn contact_capsule_trimesh<N: Real>(
    capsule: &Capsule<N>,
    capsule_pose: &Isometry3<N>,
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    margin: N,
    out: &mut ContactManifolds<N>,
) {
    let first = out.len();
    contact_trimesh_capsule(mesh, mesh_pose, capsule, capsule_pose, margin, out);
    out.swap_roles_from(first);
}

/// Contacts between a mesh (`a`) and any convex `shape` (`b`), appended
/// to `out`: see the [module documentation](super). `triangle_table`
/// answers triangle–shape contacts; its errors are passed on (nothing
/// appended then).
pub fn contact_trimesh_convex<N: Real>(
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    margin: N,
    triangle_table: &DispatchTable<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    contact_trimesh_convex_near(
        mesh,
        mesh_pose,
        shape,
        shape_pose,
        margin,
        triangle_table,
        None,
        out,
    )
}

/// [`contact_trimesh_convex`], keeping the triangles near the shape in
/// `near` from one call to the next (see [`NearTriangles`]): the same
/// answer, bit for bit, with the triangles `near` certifies as out of
/// reach skipped.
#[allow(clippy::too_many_arguments)]
pub fn contact_trimesh_convex_cached<N: Real>(
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    margin: N,
    triangle_table: &DispatchTable<N>,
    near: &mut NearTriangles<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    contact_trimesh_convex_near(
        mesh,
        mesh_pose,
        shape,
        shape_pose,
        margin,
        triangle_table,
        Some(near),
        out,
    )
}

/// [`contact_trimesh_convex`] with or without kept triangles (their
/// positions in the tree's order).
#[allow(clippy::too_many_arguments)]
fn contact_trimesh_convex_near<N: Real>(
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    margin: N,
    triangle_table: &DispatchTable<N>,
    mut near: Option<&mut NearTriangles<N>>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    if !shape.is_convex() {
        return Err(GeomError::Unsupported {
            a: ShapeKind::TriMesh,
            b: shape.kind(),
        });
    }
    let local_pose = mesh_pose.inv_mul(shape_pose);
    let first_manifold = out.len();
    let mut candidates = std::mem::take(out.candidates_mut());
    candidates.clear();
    let identity = Isometry3::identity();
    let shape_box = shape.aabb(&local_pose);
    let search = shape_box.loosened(margin);
    // The side of an open mesh the shape is on: its centre's, by the
    // pseudo-normal of the surface's nearest feature to it.
    let unlimited = nalgebra::convert::<f64, N>(f64::INFINITY);
    let behind = !mesh.closed
        && crate::surface::TriangleSurface::locate(mesh, &shape_box.center(), 0, unlimited)
            == crate::surface::Location::Behind;
    let mut answer = Ok(());
    let placed = crate::contact::PlacedShape::new(shape, &local_pose);
    let tester = &placed.tester;
    // Kept triangles: those the list certifies are the only ones within
    // reach (any other is farther than the margin from the shape, so the
    // triangle routine gives it nothing), or a new list.
    let only_kept = near.as_deref_mut().is_some_and(|near| {
        let reach = shape.local_aabb().origin_reach();
        near.prepare(&local_pose, margin, reach, |slack, keep| {
            mesh.bvh
                .visit_aabb_in_tree_order(&shape_box.loosened(margin + slack), |p| {
                    let (_, triangle) = mesh.at_tree_position(p);
                    if !crate::contact::beyond_triangle(triangle, &placed, margin + slack) {
                        keep(p);
                    }
                    true
                });
        })
    });
    let kept = near.as_deref();
    mesh.bvh.visit_aabb_in_tree_order(&search, |p| {
        if only_kept && !kept.is_some_and(|near| near.holds(p)) {
            return true;
        }
        let (id, triangle) = mesh.at_tree_position(p);
        // Apart by more than the margin: no contact (for the shapes the
        // tester knows, without building one).
        if tester.quickly_separated_beyond(triangle, margin) {
            return true;
        }
        // A triangle without an active edge or vertex: every contact of it
        // takes the face's normal, clipped from the shape's feature along
        // it; the triangle routine's own contact is needed only where that
        // feature lies beside the triangle. (For the shapes the tester
        // knows. A triangle apart past the quick test above clips nothing
        // within the margin: every clipped point lies over the triangle,
        // as far from it as from its plane; unless it lies deep behind
        // the face, in a solid.)
        // Whether the face's contacts were clipped (once a triangle).
        let mut face_clipped = None;
        if !has_ridge(mesh, id) && tester.knows_shape() {
            let feature = FeatureId::Face(id);
            let clipped = face_contacts(
                mesh,
                id,
                triangle,
                &placed,
                behind,
                feature,
                margin,
                &mut candidates,
            );
            if clipped {
                return true;
            }
            face_clipped = Some(false);
        }
        let first = out.len();
        answer = triangle_table.append_contacts(triangle, &identity, shape, &local_pose, margin, out);
        if answer.is_err() {
            return false;
        }
        for manifold in &out.as_slice()[first..] {
            fix_normal(
                mesh,
                id,
                triangle,
                &placed,
                behind,
                manifold,
                margin,
                &mut face_clipped,
                &mut candidates,
            );
        }
        out.truncate(first);
        true
    });
    if answer.is_ok() {
        if mesh.closed {
            push_sunk_shape(mesh, shape, &local_pose, &mut candidates);
        }
        crate::contact::reduce::reduce_to_world(
            &mut candidates,
            mesh.active_edge_angle,
            &PoseMatrix::new(mesh_pose),
            out,
        );
    } else {
        out.truncate(first_manifold);
    }
    candidates.clear();
    *out.candidates_mut() = candidates;
    answer
}

/// One triangle manifold's points as candidates, with the normal fixed
/// by the active edges (see the [module documentation](super)).
/// `face_clipped` is whether the triangle's face contacts were clipped
/// (`None` until they are tried).
#[allow(clippy::too_many_arguments)]
fn fix_normal<N: Real>(
    mesh: &TriMesh<N>,
    id: u32,
    triangle: &Triangle<N>,
    placed: &PlacedShape<'_, N>,
    behind: bool,
    manifold: &geom_core::ContactManifold<N>,
    margin: N,
    face_clipped: &mut Option<bool>,
    candidates: &mut Vec<ContactCandidate<N>>,
) {
    let Some(deepest) = manifold
        .points
        .iter()
        .copied()
        .reduce(|best, p| if p.depth > best.depth { p } else { best })
    else {
        return;
    };
    let (_, weights) = geom_core::distance::closest_point_on_triangle(
        &deepest.point_a,
        &triangle.a,
        &triangle.b,
        &triangle.c,
    );
    // The routine's own name for the triangle's feature when it gives one
    // (the box–triangle routine: the edge of an edge–edge contact, or its
    // face when that face is the reference, the manifold's normal along
    // the face's; a face named as the incident one holds points on its
    // edges and vertices), found combinatorially about the triangle's
    // first vertex; else the region of the deepest point's weights, which
    // far from the origin carry that point's rounding (half an ulp of 10⁴
    // in f32 is more than √ε of a small triangle's size).
    let front = mesh.front_normal(id as usize);
    let tolerance = N::default_epsilon().sqrt();
    let region = match deepest.feature_a {
        FeatureId::Face(_) if manifold.normal.dot(&front).abs() >= N::one() - tolerance => Region::Face,
        FeatureId::Edge(k) if k < 3 => Region::Edge(k as usize),
        _ => region_of(&weights, tolerance),
    };
    let (keeps_own, feature) = match region {
        Region::Face => (false, FeatureId::Face(id)),
        Region::Edge(k) => (mesh.is_edge_active(id, k), FeatureId::Edge(3 * id + k as u32)),
        Region::Vertex(k) => {
            let vertex = mesh.indices[id as usize][k];
            (mesh.is_vertex_active(vertex), FeatureId::Vertex(vertex))
        }
    };
    // A closed mesh's routine normal must leave the solid: one pointing
    // into it past this face (the shape's deepest point behind the face)
    // is replaced as a flat edge's is; one past the neighbour's face across
    // an edge turns to that face's normal, its points re-measured along it.
    if keeps_own {
        let exit = if mesh.closed {
            solid_exit(mesh, id, region, &manifold.normal)
        } else {
            Exit::Own
        };
        match exit {
            Exit::Own => {
                candidates.extend(manifold.points.iter().map(|point| ContactCandidate {
                    normal: manifold.normal,
                    point: ContactPoint {
                        feature_a: feature,
                        ..*point
                    },
                }));
                return;
            }
            Exit::Across(beyond, on_edge) => {
                // A point of the shape in front of this face, or of a face
                // about either triangle, is not in the solid: overlapping
                // only the neighbour's plane, it is left to the
                // neighbour's own contact.
                let normal = mesh.front_normal(beyond as usize);
                let (own_solid, beyond_solid) = (SolidNear::of(mesh, id), SolidNear::of(mesh, beyond));
                let in_solid = |point: &&ContactPoint<N>| {
                    normal.dot(&(on_edge - point.point_b)) <= N::zero()
                        || (front.dot(&(point.point_b - on_edge)) <= N::zero()
                            && own_solid.holds(&point.point_b)
                            && beyond_solid.holds(&point.point_b))
                };
                remeasure(
                    manifold.points.iter().filter(in_solid),
                    &normal,
                    &on_edge,
                    feature,
                    margin,
                    candidates,
                );
                return;
            }
            Exit::Face => {}
        }
    }
    // The face's normal on the shape's side (an open mesh, `behind` from
    // the shape's centre) or out of the solid (a closed one). The shape's feature most aligned with −normal
    // (a box's face, a cylinder's cap or rim, a point) is clipped to the
    // triangle seen along it, each point with its own depth, as the
    // heightfield's face contacts are: a box resting across a flat edge
    // reports its corners at their depth from whichever triangle holds
    // them.
    // (Clipped once a triangle: the loop may have tried already, and a
    // second manifold of the triangle would repeat the same points.)
    let clipped = *face_clipped.get_or_insert_with(|| {
        face_contacts(mesh, id, triangle, placed, behind, feature, margin, candidates)
    });
    if clipped {
        return;
    }
    let normal = if behind { -front } else { front };
    // The shape's lowest feature lies beside the triangle while the shape
    // still meets it: the routine's points, re-measured along the normal
    // (shallower than the lowest feature, which a neighbour reports). On a
    // closed mesh a point beyond an edge and in front of the face across
    // it is not in the solid: overlapping only this face's plane, it is
    // left to the neighbour's own contact.
    let solid = SolidNear::of(mesh, id);
    let in_solid = |point: &&ContactPoint<N>| {
        normal.dot(&(triangle.a - point.point_b)) <= N::zero() || solid.holds(&point.point_b)
    };
    remeasure(
        manifold.points.iter().filter(in_solid),
        &normal,
        &triangle.a,
        feature,
        margin,
        candidates,
    );
}

/// The solid of a closed mesh about one triangle, as far as a contact
/// needs it: behind the planes of the faces about the triangle's corners
/// that are convex with it (each behind the other's plane, as across a
/// rim). A point of the shape in front of one of them is not in the
/// solid, though it may lie behind the triangle's own plane (under a
/// sharp rim's top, past the wall; behind a wall, over a dish that falls
/// away inside the rim): a contact there would push the shape along the
/// wrong face by the far side's depth. An open mesh has no solid, and
/// holds every point.
struct SolidNear<'a, N: Real> {
    mesh: &'a TriMesh<N>,
    id: u32,
    /// The planes (a face's normal, the corner it is taken through),
    /// found at the first point asked about; `None` inside when more than
    /// [`SOLID_PLANES`] (then each point walks the corners' triangles).
    planes: std::cell::OnceCell<Option<SolidPlanes<N>>>,
}

/// The most planes [`SolidNear`] keeps (three corners of a handful of
/// triangles each).
const SOLID_PLANES: usize = 32;

/// [`SolidNear`]'s planes (a face's normal, the corner it is taken
/// through) and how many there are.
type SolidPlanes<N> = ([(Vector3<N>, Point3<N>); SOLID_PLANES], usize);

impl<'a, N: Real> SolidNear<'a, N> {
    fn of(mesh: &'a TriMesh<N>, id: u32) -> Self {
        SolidNear {
            mesh,
            id,
            planes: std::cell::OnceCell::new(),
        }
    }

    /// Each face about the triangle's corners that is convex with it, with
    /// the corner it is taken through.
    fn visit_planes(&self, mut visit: impl FnMut(Vector3<N>, Point3<N>) -> bool) -> bool {
        let mesh = self.mesh;
        let tolerance = N::default_epsilon().sqrt();
        let corners = mesh.indices[self.id as usize];
        let front = mesh.front_normal(self.id as usize);
        let on = mesh.vertices[corners[0] as usize];
        // `normal` through `at` has every vertex of `of` behind it.
        let behind = |of: [u32; 3], normal: &Vector3<N>, at: &Point3<N>| {
            of.into_iter().all(|v| {
                let offset = mesh.vertices[v as usize] - at;
                normal.dot(&offset) <= tolerance * offset.norm()
            })
        };
        corners.into_iter().all(|corner| {
            let at = mesh.vertices[corner as usize];
            mesh.triangles_around(corner).iter().all(|&other| {
                if other == self.id {
                    return true;
                }
                let normal = mesh.front_normal(other as usize);
                let convex = normal.dot(&front) < N::one() - tolerance
                    && behind(corners, &normal, &at)
                    && behind(mesh.indices[other as usize], &front, &on);
                !convex || visit(normal, at)
            })
        })
    }

    /// Whether `point` is behind every such plane (up to √ε of its
    /// distance from the plane's corner).
    fn holds(&self, point: &Point3<N>) -> bool {
        if !self.mesh.closed {
            return true;
        }
        let tolerance = N::default_epsilon().sqrt();
        let behind = |normal: &Vector3<N>, at: &Point3<N>| {
            let offset = point - at;
            normal.dot(&offset) <= tolerance * offset.norm()
        };
        let planes = self.planes.get_or_init(|| {
            let mut planes = [(Vector3::zeros(), Point3::origin()); SOLID_PLANES];
            let mut count = 0;
            let fits = self.visit_planes(|normal, at| {
                if count == SOLID_PLANES {
                    return false;
                }
                planes[count] = (normal, at);
                count += 1;
                true
            });
            fits.then_some((planes, count))
        });
        match planes {
            Some((planes, count)) => planes[..*count].iter().all(|(normal, at)| behind(normal, at)),
            None => self.visit_planes(|normal, at| behind(&normal, &at)),
        }
    }
}

/// `points` of a triangle's contact as candidates along `normal`, each at
/// the depth of its point on the shape below the plane through `on_plane`
/// (those within the margin).
fn remeasure<'a, N: Real>(
    points: impl IntoIterator<Item = &'a ContactPoint<N>>,
    normal: &Vector3<N>,
    on_plane: &Point3<N>,
    feature: FeatureId,
    margin: N,
    candidates: &mut Vec<ContactCandidate<N>>,
) {
    for point in points {
        let depth = normal.dot(&(on_plane - point.point_b));
        if depth >= -margin {
            candidates.push(ContactCandidate {
                normal: *normal,
                point: ContactPoint {
                    point_a: point.point_b + normal * depth,
                    point_b: point.point_b,
                    depth,
                    feature_a: feature,
                    feature_b: point.feature_b,
                },
            });
        }
    }
}

/// How a contact's normal at `region` of triangle `id` of a closed mesh
/// leaves the solid.
enum Exit<N: Real> {
    /// Out of the solid as it is.
    Own,
    /// Into the solid past the triangle's face: the face's contacts
    /// replace it.
    Face,
    /// Past the face across the edge (that triangle): its normal replaces
    /// it, the depths measured from the edge's first vertex.
    Across(u32, Point3<N>),
}

/// Whether `normal` points out of a closed mesh's solid where a contact
/// touches `region` of triangle `id`: for an edge, inside its normal cone
/// (no component into the face on either side of it); for a vertex, no
/// component along any edge leaving it. A sharp rim's normals turn
/// through more than a right angle, so an edge or a vertex contact may
/// point away from one of its faces and still out of the solid (a box
/// tipping over a block's rim from above), while a routine that knows only
/// this triangle may pick an edge's direction just past its neighbour's
/// face.
fn solid_exit<N: Real>(mesh: &TriMesh<N>, id: u32, region: Region, normal: &Vector3<N>) -> Exit<N> {
    use crate::surface::TriangleSurface;
    let tolerance = N::default_epsilon().sqrt();
    let corners = mesh.indices[id as usize];
    match region {
        // (A face contact never keeps its own normal.)
        Region::Face => Exit::Face,
        Region::Edge(k) => {
            let start = mesh.vertices[corners[k] as usize];
            let along = |to: &Point3<N>| {
                let edge = to - start;
                normal.dot(&edge) > tolerance * edge.norm()
            };
            if along(&mesh.vertices[corners[(k + 2) % 3] as usize]) {
                return Exit::Face;
            }
            // (Every edge of a closed mesh has a neighbour.)
            let (Some(beyond), Some(far)) = (mesh.neighbor(id, k), mesh.neighbor_far_vertex(id, k, 0)) else {
                return Exit::Own;
            };
            if !along(&far) {
                return Exit::Own;
            }
            // Past the neighbour's face but still leaving the solid (on
            // the outer side of the cone's bisector): turned to that
            // face's normal; farther round, into the solid.
            let front = mesh.front_normal(id as usize);
            if normal.dot(&(front + mesh.front_normal(beyond as usize))) > N::zero() {
                Exit::Across(beyond, start)
            } else {
                Exit::Face
            }
        }
        Region::Vertex(k) => {
            if mesh.in_vertex_cone(corners[k], normal, tolerance) {
                Exit::Own
            } else {
                Exit::Face
            }
        }
    }
}

/// Whether triangle `id` has an active edge or vertex, where a contact may
/// keep a normal of its own.
fn has_ridge<N: Real>(mesh: &TriMesh<N>, id: u32) -> bool {
    (0..3).any(|k| mesh.is_edge_active(id, k) || mesh.is_vertex_active(mesh.indices[id as usize][k]))
}

/// The face contacts of triangle `id` (see [`fix_normal`]): the shape's
/// feature most aligned with −normal clipped to the triangle seen along
/// the face's normal (on the shape's side of an open mesh, out of a
/// closed one), each point at its own depth, named `feature` on the mesh.
/// Whether any was added.
#[allow(clippy::too_many_arguments)]
fn face_contacts<N: Real>(
    mesh: &TriMesh<N>,
    id: u32,
    triangle: &Triangle<N>,
    placed: &PlacedShape<'_, N>,
    behind: bool,
    feature: FeatureId,
    margin: N,
    candidates: &mut Vec<ContactCandidate<N>>,
) -> bool {
    let front = mesh.front_normal(id as usize);
    let (normal, corners) = if behind {
        (-front, [triangle.a, triangle.c, triangle.b])
    } else {
        (front, [triangle.a, triangle.b, triangle.c])
    };
    let before = candidates.len();
    if let (Some(on_shape), Some(lowest)) = (
        placed.most_aligned_feature(&-normal),
        placed.shape.support(placed.pose, &-normal),
    ) {
        let face = SupportFeature::face(corners, normal);
        let face_depth = normal.dot(&(triangle.a - lowest));
        let solid = SolidNear::of(mesh, id);
        geom_prims::contact::feature_contacts(&face, &on_shape, &normal, face_depth, margin, |point| {
            if point.depth > N::zero() && !solid.holds(&point.point_b) {
                return;
            }
            candidates.push(ContactCandidate {
                normal,
                point: ContactPoint {
                    feature_a: feature,
                    ..point
                },
            })
        });
    }
    candidates.len() > before
}

/// A convex shape wholly inside a closed mesh meets no triangle: it is
/// pushed out of the nearest face, by the depth of its deepest point
/// along that face's normal.
fn push_sunk_shape<N: Real>(
    mesh: &TriMesh<N>,
    shape: &dyn Shape<N>,
    local_pose: &Isometry3<N>,
    candidates: &mut Vec<ContactCandidate<N>>,
) {
    if !candidates.is_empty() {
        return;
    }
    let centre = shape.aabb(local_pose).center();
    let Some(nearest) = mesh.nearest(&centre) else {
        return;
    };
    if !mesh.is_inside(&centre, &nearest) {
        return;
    }
    let normal = mesh.front_normal(nearest.triangle as usize);
    let Some(deepest) = shape.support(local_pose, &-normal) else {
        return;
    };
    let depth = normal.dot(&(nearest.point - deepest));
    candidates.push(ContactCandidate {
        normal,
        point: ContactPoint {
            point_a: deepest + normal * depth,
            point_b: deepest,
            depth,
            feature_a: FeatureId::Face(nearest.triangle),
            feature_b: FeatureId::Unknown,
        },
    });
}

/// The closest points of a mesh (`a`) and a convex `shape` (`b`) within
/// `max_distance`: `Intersecting` when they overlap (a contact at depth
/// `>= 0`, or the shape inside a closed mesh), else the nearest
/// triangle's closest points from `triangle_table`, the triangles
/// visited nearest first through the mesh's tree.
pub fn closest_points_trimesh_convex<N: Real>(
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    max_distance: N,
    triangle_table: &DispatchTable<N>,
) -> Result<ClosestPoints<N>, GeomError> {
    let mut contacts = ContactManifolds::new();
    contact_trimesh_convex(
        mesh,
        mesh_pose,
        shape,
        shape_pose,
        N::zero(),
        triangle_table,
        &mut contacts,
    )?;
    if contacts.points().any(|(_, point)| point.depth >= N::zero()) {
        return Ok(ClosestPoints::Intersecting);
    }
    let local_pose = mesh_pose.inv_mul(shape_pose);
    // Every point of the shape is within `reach` of `centre`, so a triangle
    // whose box is `D` from the centre is at least `D − reach` from the
    // shape: searching by "distance + reach" prunes no nearer triangle.
    let own = shape.aabb(&local_pose);
    let centre = own.center();
    let reach = (own.maxs - own.mins).norm() * nalgebra::convert::<f64, N>(0.5);
    let identity = Isometry3::identity();
    let mut best: Option<(Point3<N>, Point3<N>)> = None;
    let mut failure = None;
    if !(centre.iter().all(|c| c.is_finite()) && reach.is_finite()) {
        // An unbounded shape (a half-space): every triangle, in turn.
        for id in 0..mesh.indices.len() {
            let [a, b, c] = mesh.indices[id].map(|v| mesh.vertices[v as usize]);
            let limit = best.map_or(max_distance, |(a, b): (Point3<N>, Point3<N>)| {
                (b - a).norm().min(max_distance)
            });
            match triangle_table.closest_points(
                &Triangle { a, b, c },
                &identity,
                shape,
                &local_pose,
                limit,
            )? {
                ClosestPoints::Intersecting => return Ok(ClosestPoints::Intersecting),
                ClosestPoints::WithinMargin { point_a, point_b } => {
                    if best.is_none_or(|(a, b)| (point_b - point_a).norm() < (b - a).norm()) {
                        best = Some((point_a, point_b));
                    }
                }
                ClosestPoints::Disjoint => {}
            }
        }
    }
    let limit = max_distance + reach;
    mesh.bvh.closest_in_tree_order(&centre, limit, |p, bound| {
        if failure.is_some() {
            return None;
        }
        let (_, triangle) = mesh.at_tree_position(p);
        let within = (bound - reach).max(N::zero()).min(max_distance);
        match triangle_table.closest_points(triangle, &identity, shape, &local_pose, within) {
            Ok(ClosestPoints::WithinMargin { point_a, point_b }) => {
                let distance = geom_core::ray::length_without_overflow(&(point_b - point_a));
                if best.is_none_or(|(a, b): (Point3<N>, Point3<N>)| distance < (b - a).norm()) {
                    best = Some((point_a, point_b));
                }
                Some(distance + reach)
            }
            Ok(ClosestPoints::Intersecting) => {
                failure = Some(Ok(ClosestPoints::Intersecting));
                Some(N::zero())
            }
            Ok(ClosestPoints::Disjoint) => None,
            Err(e) => {
                failure = Some(Err(e));
                Some(N::zero())
            }
        }
    });
    if let Some(answer) = failure {
        return answer;
    }
    Ok(match best {
        Some((point_a, point_b)) => {
            let matrix = PoseMatrix::new(mesh_pose);
            ClosestPoints::WithinMargin {
                point_a: matrix.point_to_world(&point_a),
                point_b: matrix.point_to_world(&point_b),
            }
        }
        None => ClosestPoints::Disjoint,
    })
}

/// Registers the mesh's routines in `table` (each serves both orders):
/// contacts mesh–sphere and mesh–capsule, mesh against any other convex
/// shape ([`contact_trimesh_convex`]) and closest points against any
/// convex shape ([`closest_points_trimesh_convex`]). Their triangle
/// queries go to a copy of `table` as it is now: call this after the
/// primitive pairs and the convex fallback are registered.
pub fn register_pairs<N: Real>(table: &mut DispatchTable<N>) {
    fn as_mesh<'a, N: Real>(a: &'a dyn Shape<N>, b: &dyn Shape<N>) -> Result<&'a TriMesh<N>, GeomError> {
        (a as &dyn std::any::Any)
            .downcast_ref::<TriMesh<N>>()
            .ok_or(GeomError::Unsupported {
                a: a.kind(),
                b: b.kind(),
            })
    }
    let triangle_table = table.clone();
    let closest_table = table.clone();
    table.register_contact_with_any_convex(ShapeKind::TriMesh, move |a, pose_a, b, pose_b, margin, out| {
        contact_trimesh_convex(as_mesh(a, b)?, pose_a, b, pose_b, margin, &triangle_table, out)
    });
    table.register_closest_points_with_any_convex(
        ShapeKind::TriMesh,
        move |a, pose_a, b, pose_b, max_distance| {
            closest_points_trimesh_convex(as_mesh(a, b)?, pose_a, b, pose_b, max_distance, &closest_table)
        },
    );
    table.register_contact(ShapeKind::TriMesh, ShapeKind::Sphere, contact_trimesh_sphere::<N>);
    table.register_contact(
        ShapeKind::TriMesh,
        ShapeKind::Capsule,
        contact_trimesh_capsule::<N>,
    );
}
