//! Heightfield against any convex shape, per triangle, then grouped and
//! reduced like the sphere and capsule contacts.
//!
//! The terrain is a surface with solid below it, so each triangle stands
//! for the prism below it, and the shape leaves a triangle's prism one of
//! three ways:
//!
//! - **over a ridge**: where the triangle contact (from a
//!   [`DispatchTable`]: the analytic box–triangle routine, GJK/EPA for the
//!   other shapes) is deepest on an active internal edge or vertex (a
//!   convex bend, see [`crate::active_edges`]) and its normal points out of
//!   the ground, that contact is kept as it is (Jolt's active edges);
//! - **up through the face** otherwise: the shape's feature most aligned
//!   with `−n` (a box's bottom face, a cylinder's cap, an edge, a point) is
//!   clipped to the triangle seen along the face normal `n`, each point
//!   with its own exact depth below the face's plane, so that a box
//!   resting on flat ground reports its four corners at their depth from
//!   whichever triangles hold them, a cylinder its rim, and a sphere
//!   hovering within the margin the one point below it — never a tilted
//!   normal from a flat internal edge (no ghost collisions);
//! - **sideways through a boundary wall** (an edge on the terrain's border
//!   or next to a hole, where the solid ends in a vertical wall) when that
//!   is the smaller push out: a shape standing through the terrain at its
//!   border leaves by the wall, one lying across the border leaves up.

use geom_core::dispatch::DispatchTable;
use geom_core::pose::PoseMatrix;
use geom_core::{
    ContactCandidate, ContactManifolds, ContactPoint, FeatureId, GeomError, Real, Shape, SupportFeature, lit,
};
use geom_prims::Triangle;
use geom_prims::contact::TriangleTester;
use nalgebra::{Isometry3, Point3, Vector3};

use super::reduce;
use crate::near::NearTriangles;
use crate::{HeightField, TriangleId};

/// Contacts between a heightfield (`a`) at `field_pose` and a convex
/// `shape` (`b`) at `shape_pose`, appended to `out`: normals from the
/// heightfield to the shape, points down to `depth = -margin`, at most
/// four points per manifold, one manifold per distinct normal.
/// `triangle_table` answers triangle–shape contacts (the default
/// dispatcher does); its errors are passed on (nothing appended then).
pub fn contact_heightfield_convex<N: Real>(
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    margin: N,
    triangle_table: &DispatchTable<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    contact_heightfield_convex_near(
        field,
        field_pose,
        shape,
        shape_pose,
        margin,
        triangle_table,
        None,
        out,
    )
}

/// [`contact_heightfield_convex`], keeping the triangles near the shape in
/// `near` from one call to the next (see [`NearTriangles`]): the same
/// answer, bit for bit, with the triangles `near` certifies as out of
/// reach skipped.
#[allow(clippy::too_many_arguments)]
pub fn contact_heightfield_convex_cached<N: Real>(
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    margin: N,
    triangle_table: &DispatchTable<N>,
    near: &mut NearTriangles<N>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    contact_heightfield_convex_near(
        field,
        field_pose,
        shape,
        shape_pose,
        margin,
        triangle_table,
        Some(near),
        out,
    )
}

/// [`contact_heightfield_convex`] with or without kept triangles.
#[allow(clippy::too_many_arguments)]
fn contact_heightfield_convex_near<N: Real>(
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    margin: N,
    triangle_table: &DispatchTable<N>,
    mut near: Option<&mut NearTriangles<N>>,
    out: &mut ContactManifolds<N>,
) -> Result<(), GeomError> {
    if !shape.is_convex() {
        return Err(GeomError::Unsupported {
            a: geom_core::ShapeKind::HeightField,
            b: shape.kind(),
        });
    }
    let local_pose = field_pose.inv_mul(shape_pose);
    let first_manifold = out.len();
    let mut candidates = std::mem::take(out.candidates_mut());
    candidates.clear();
    let mut answer = Ok(());
    let placed = PlacedShape::new(shape, &local_pose);
    // Kept triangles: those the list certifies are the only ones within
    // reach, or a new list.
    let only_kept = near.as_deref_mut().is_some_and(|near| {
        let reach = shape.local_aabb().origin_reach();
        near.prepare(&local_pose, margin, reach, |slack, keep| {
            for (id, triangle) in
                field.triangles_in_aabb(&search_box(field, shape, &local_pose, margin + slack))
            {
                if may_reach(field, id, &triangle, &placed, margin, slack) {
                    keep(id.0);
                }
            }
        })
    });
    let kept = near.as_deref();
    for (id, triangle) in field.triangles_in_aabb(&search_box(field, shape, &local_pose, margin)) {
        if only_kept && !kept.is_some_and(|near| near.holds(id.0)) {
            continue;
        }
        answer = triangle_candidates(
            field,
            id,
            &triangle,
            &placed,
            margin,
            triangle_table,
            out,
            &mut candidates,
        );
        if answer.is_err() {
            break;
        }
    }
    if answer.is_ok() {
        reduce::reduce_to_world(
            &mut candidates,
            field.active_edge_angle,
            &PoseMatrix::new(field_pose),
            out,
        );
    } else {
        out.truncate(first_manifold);
    }
    candidates.clear();
    *out.candidates_mut() = candidates;
    answer
}

/// The convex shape in the heightfield's frame: its supports answered by
/// the placed box or frustum of a [`TriangleTester`] when it holds one
/// (no change of frame per call), else through the shape's pose.
pub(crate) struct PlacedShape<'a, N: Real> {
    pub(crate) shape: &'a dyn Shape<N>,
    pub(crate) pose: &'a Isometry3<N>,
    pub(crate) tester: TriangleTester<N>,
    /// The largest side of the shape's box, found when first needed.
    size: std::cell::OnceCell<N>,
    /// For a box: its pose as a matrix and its faces as support features,
    /// each kept once asked for (every triangle under a resting box asks
    /// for the same one).
    box_faces: Option<(PoseMatrix<N>, BoxFaces<N>)>,
}

/// A box's six faces as support features, each kept once asked for.
type BoxFaces<N> = std::cell::RefCell<[Option<SupportFeature<N>>; 6]>;

impl<'a, N: Real> PlacedShape<'a, N> {
    /// `shape` at `pose` (heightfield-local).
    pub(crate) fn new(shape: &'a dyn Shape<N>, pose: &'a Isometry3<N>) -> Self {
        let is_box = (shape as &dyn std::any::Any).is::<geom_prims::Cuboid<N>>();
        PlacedShape {
            shape,
            pose,
            tester: TriangleTester::new(shape, pose),
            size: std::cell::OnceCell::new(),
            box_faces: is_box.then(|| (PoseMatrix::new(pose), std::cell::RefCell::new([None; 6]))),
        }
    }

    /// The shape's feature most aligned with `direction`:
    /// `shape.support_feature(pose, direction, 1)`, a box's faces kept
    /// (the same answer: a box's most aligned feature is the face
    /// [`Cuboid::most_aligned_face`](geom_prims::Cuboid::most_aligned_face)
    /// selects, found from the same local direction).
    pub(crate) fn most_aligned_feature(&self, direction: &Vector3<N>) -> Option<SupportFeature<N>> {
        let Some((matrix, faces)) = &self.box_faces else {
            return self.shape.support_feature(self.pose, direction, N::one());
        };
        let Some(face) = geom_prims::Cuboid::most_aligned_face(&matrix.vector_to_local(direction)) else {
            return self.shape.support_feature(self.pose, direction, N::one());
        };
        let mut faces = faces.borrow_mut();
        if faces[face].is_none() {
            faces[face] = self.shape.support_feature(self.pose, direction, N::one());
        }
        faces[face]
    }

    /// The largest side of the shape's box (at its pose).
    fn size(&self) -> N {
        *self.size.get_or_init(|| {
            let shape_box = self.shape.aabb(self.pose);
            (shape_box.maxs - shape_box.mins).amax()
        })
    }

    /// The largest projection of the shape's points on `direction`.
    pub(crate) fn reach(&self, direction: &Vector3<N>) -> Option<N> {
        self.tester
            .reach(direction)
            .or_else(|| Some(self.support(direction)?.coords.dot(direction)))
    }

    /// The shape's point extreme along `direction`.
    pub(crate) fn support(&self, direction: &Vector3<N>) -> Option<Point3<N>> {
        self.tester
            .support(direction)
            .or_else(|| self.shape.support(self.pose, direction))
    }
}

/// Whether triangle `id` may come within the margin of the shape while the
/// shape moves by at most `slack` (see [`NearTriangles`]): the triangle's
/// own axes ([`FixedAxes`]), which [`triangle_candidates`] starts with, do
/// not rule it out with the margin widened by the slack. (Its other tests take axes that turn with the
/// shape, along which a separation need not last.)
fn may_reach<N: Real>(
    field: &HeightField<N>,
    id: TriangleId,
    triangle: &Triangle<N>,
    placed: &PlacedShape<'_, N>,
    margin: N,
    slack: N,
) -> bool {
    FixedAxes::of(field, id, triangle, placed)
        .is_none_or(|fixed| !fixed.apart(triangle, placed, margin + slack))
}

/// A triangle's own (fixed) separating axes against the shape: its face
/// normal, with the shape's depth below its plane, and the normals across
/// its edges in its plane (tested only for an interior triangle: a
/// boundary edge's wall may still push a sunk shape).
struct FixedAxes<N: Real> {
    face_normal: Vector3<N>,
    face_depth: N,
    interior: bool,
}

impl<N: Real> FixedAxes<N> {
    /// `None` when the shape has no support point.
    fn of(
        field: &HeightField<N>,
        id: TriangleId,
        triangle: &Triangle<N>,
        placed: &PlacedShape<'_, N>,
    ) -> Option<Self> {
        let face_normal = crate::heightfield::face_normal(triangle);
        let lowest = placed.support(&-face_normal)?;
        let (i, j) = field.cell_coords(id.cell());
        Some(FixedAxes {
            face_normal,
            face_depth: face_normal.dot(&(triangle.a - lowest)),
            interior: (0..3).all(|k| field.has_edge_neighbor(i, j, id.half(), k)),
        })
    }

    /// Whether one of the axes puts the shape more than `margin` from the
    /// triangle: wholly in front of its plane, or wholly beyond one of
    /// its edges (across it, in its plane; then its clipped face contacts
    /// are empty too).
    fn apart(&self, triangle: &Triangle<N>, placed: &PlacedShape<'_, N>, margin: N) -> bool {
        self.face_depth < -margin
            || (self.interior && beyond_an_edge(triangle, &self.face_normal, placed, margin))
    }
}

/// The heightfield-local box whose triangles may touch `shape` within
/// `margin`: the shape's box, loosened, and raised to the top of the
/// terrain (a shape sunk below the surface meets the triangles above it).
pub(crate) fn search_box<N: Real>(
    field: &HeightField<N>,
    shape: &dyn Shape<N>,
    local_pose: &Isometry3<N>,
    margin: N,
) -> geom_core::Aabb<N> {
    let mut search = shape.aabb(local_pose).loosened(margin);
    search.maxs.y = search.maxs.y.max(field.local_extent().maxs.y);
    search
}

/// The candidates of one triangle (heightfield-local): see the module
/// documentation. `scratch` receives the triangle routine's manifolds and
/// is left as it was. The triangle routine runs only where its answer
/// can matter: on a triangle with a ridge of its own (an active internal
/// edge or vertex). Elsewhere a shape whose support feature lies beside
/// the triangle contacts it at its deepest point over the triangle's
/// column, when that point is within the margin of the face's plane.
#[allow(clippy::too_many_arguments)]
fn triangle_candidates<N: Real>(
    field: &HeightField<N>,
    id: TriangleId,
    triangle: &Triangle<N>,
    placed: &PlacedShape<'_, N>,
    margin: N,
    triangle_table: &DispatchTable<N>,
    scratch: &mut ContactManifolds<N>,
    candidates: &mut Vec<ContactCandidate<N>>,
) -> Result<(), GeomError> {
    let (shape, local_pose, tester) = (placed.shape, placed.pose, &placed.tester);
    // The triangle's own axes first (the same tests, with the margin
    // widened, keep a triangle in a warm frame's list: see `may_reach`).
    let Some(fixed) = FixedAxes::of(field, id, triangle, placed) else {
        return Ok(());
    };
    if fixed.apart(triangle, placed, margin) {
        return Ok(());
    }
    let FixedAxes {
        face_normal,
        face_depth,
        interior,
    } = fixed;
    // Farther from the triangle than the margin and than its support's
    // depth below the plane: no face contact either (each clipped point is
    // over the triangle, between the margin above and that depth below).
    // (The triangle's own axes were just tested, with the smaller margin.)
    if interior && tester.quickly_separated_beyond_past_own_axes(triangle, margin.max(face_depth)) {
        return Ok(());
    }
    // Whether the shape reaches the triangle itself (within the margin):
    // only then can it dip into it beside its support feature.
    let mut meets_triangle = None;
    if field.has_ridge(id) {
        let identity = Isometry3::identity();
        let first = scratch.len();
        triangle_table.append_contacts(triangle, &identity, shape, local_pose, margin, scratch)?;
        let mut over_ridge = false;
        for manifold in &scratch.as_slice()[first..] {
            let Some(deepest) = manifold
                .points
                .iter()
                .copied()
                .reduce(|best, p| if p.depth > best.depth { p } else { best })
            else {
                continue;
            };
            let Some(feature) = field.ridge_feature(id, triangle, &deepest.point_a) else {
                continue;
            };
            if manifold.normal.dot(&face_normal) < N::zero() {
                continue;
            }
            over_ridge = true;
            candidates.extend(manifold.points.iter().map(|point| ContactCandidate {
                normal: manifold.normal,
                point: ContactPoint {
                    feature_a: feature,
                    ..*point
                },
            }));
        }
        meets_triangle = Some(scratch.len() > first);
        scratch.truncate(first);
        if over_ridge {
            return Ok(());
        }
    }
    if face_depth > N::zero()
        && let Some(wall) = shallowest_wall(field, id, triangle, placed, face_depth)
    {
        candidates.push(wall);
        return Ok(());
    }
    let clipped = push_face_contacts(
        field,
        id,
        triangle,
        &face_normal,
        placed,
        face_depth,
        margin,
        candidates,
    );
    if clipped {
        return Ok(());
    }
    // Nothing clipped: the support feature lies beside the triangle. When
    // the shape still dips into the triangle less deep than its support
    // (over lower ground beside), that is this triangle's contact; at the
    // support's own depth (a flat cap over a small triangle) the
    // neighbours under the feature report it. A shape wholly beside the
    // triangle's column has no point over it.
    if !reaches_over(triangle, placed) {
        return Ok(());
    }
    // (Whether the shape meets the triangle itself is known only where the
    // triangle routine ran: elsewhere the deepest point over the column
    // decides, a point within the margin of the plane over the triangle.)
    if meets_triangle != Some(false)
        && let beside = beside_tolerance(triangle, placed)
        && let Some(point) = deepest_over_triangle(triangle, &face_normal, placed, margin, beside)
        && point.depth < face_depth - beside
    {
        candidates.push(ContactCandidate {
            normal: face_normal,
            point: ContactPoint {
                feature_a: FeatureId::Face(id.0),
                ..point
            },
        });
    }
    Ok(())
}

/// The contacts up through the face: the shape's feature most aligned with
/// `−face_normal`, clipped to the triangle seen along the face normal,
/// each point with its depth below the face's plane (`face_depth` is the
/// deepest, the shape's support point's). Whether any contact was added.
#[allow(clippy::too_many_arguments)]
fn push_face_contacts<N: Real>(
    field: &HeightField<N>,
    id: TriangleId,
    triangle: &Triangle<N>,
    face_normal: &Vector3<N>,
    placed: &PlacedShape<'_, N>,
    face_depth: N,
    margin: N,
    candidates: &mut Vec<ContactCandidate<N>>,
) -> bool {
    let Some(on_shape) = placed.most_aligned_feature(&-face_normal) else {
        return false;
    };
    let face = SupportFeature::face([triangle.a, triangle.b, triangle.c], *face_normal);
    let before = candidates.len();
    // The clip is seen along the face normal, but the solid is the column
    // below the surface: on a steep triangle a clipped point may lie over a
    // lower neighbour, below this face's plane yet clear of the ground. An
    // overlap counts only where the shape's point is below the surface
    // under it (on a planar slope it is, whichever triangle it is over).
    // The pair's tolerance (a bounding box), computed once if needed.
    let mut tolerance = None;
    let mut pair_tolerance = || *tolerance.get_or_insert_with(|| beside_tolerance(triangle, placed));
    geom_prims::contact::feature_contacts(&face, &on_shape, face_normal, face_depth, margin, |point| {
        let mut in_solid = || {
            field
                .surface_y_at(point.point_b.x, point.point_b.z)
                .is_some_and(|surface| point.point_b.y <= surface + pair_tolerance())
        };
        if point.depth <= N::zero() || in_solid() {
            candidates.push(ContactCandidate {
                normal: *face_normal,
                point: ContactPoint {
                    feature_a: FeatureId::Face(id.0),
                    ..point
                },
            })
        }
    });
    candidates.len() > before
}

/// Whether the `placed` shape lies wholly more than `margin` from
/// `triangle` along the triangle's normal (on either side) or across one
/// of its edges in its plane: separating axes fixed to the triangle, so
/// the shape is farther than `margin` from it.
pub(crate) fn beyond_triangle<N: Real>(
    triangle: &Triangle<N>,
    placed: &PlacedShape<'_, N>,
    margin: N,
) -> bool {
    let Some(normal) =
        geom_prims::contact::try_unit(&(triangle.b - triangle.a).cross(&(triangle.c - triangle.a)))
    else {
        return false;
    };
    let beyond_plane = |side: Vector3<N>| {
        placed
            .support(&-side)
            .is_some_and(|lowest| side.dot(&(lowest - triangle.a)) > margin)
    };
    beyond_plane(normal) || beyond_plane(-normal) || beyond_an_edge(triangle, &normal, placed, margin)
}

/// The horizontal normal of the wall of `corners`' vertical column
/// through edge `k` (from corner `k` to the next), out of the column; not
/// unit (zero for an edge seen end-on from above).
fn column_wall_normal<N: Real>(corners: &[Point3<N>; 3], k: usize) -> Vector3<N> {
    let (from, to, other) = (corners[k], corners[(k + 1) % 3], corners[(k + 2) % 3]);
    let along = to - from;
    let outward = Vector3::new(along.z, N::zero(), -along.x);
    if outward.dot(&(other - from)) > N::zero() {
        -outward
    } else {
        outward
    }
}

/// Whether `shape` lies wholly more than `margin` beyond one of
/// `triangle`'s edges, measured across the edge in the triangle's plane
/// (`face_normal` its unit normal): a separating axis of the triangle.
fn beyond_an_edge<N: Real>(
    triangle: &Triangle<N>,
    face_normal: &Vector3<N>,
    placed: &PlacedShape<'_, N>,
    margin: N,
) -> bool {
    let corners = [triangle.a, triangle.b, triangle.c];
    (0..3).any(|k| {
        let (from, to) = (corners[k], corners[(k + 1) % 3]);
        // Counter-clockwise about the normal: out of the triangle.
        let outward = (to - from).cross(face_normal);
        let length = outward.norm();
        // The shape's nearest point's offset past the edge: its reach
        // along `−outward`, negated, less the edge's.
        length > N::zero()
            && placed
                .reach(&-outward)
                .is_some_and(|reach| -reach - outward.dot(&from.coords) > margin * length)
    })
}

/// Whether some point of `shape` lies straight above or below `triangle`
/// (in its vertical column): the shape's extent seen from above is not
/// beyond any of the column's three walls (separating axes across the
/// triangle's edges, in the horizontal plane).
fn reaches_over<N: Real>(triangle: &Triangle<N>, placed: &PlacedShape<'_, N>) -> bool {
    let corners = [triangle.a, triangle.b, triangle.c];
    (0..3).all(|k| {
        let from = corners[k];
        let outward = column_wall_normal(&corners, k);
        if outward == Vector3::zeros() {
            return true;
        }
        placed
            .support(&-outward)
            .is_none_or(|inner| outward.dot(&(inner - from)) <= N::zero())
    })
}

/// How much shallower than the support's depth the deepest point over a
/// triangle must be to count as beside it: `√ε` of the pair's size, well
/// above the support ray cast's convergence (`√ε / 256` of it).
fn beside_tolerance<N: Real>(triangle: &Triangle<N>, placed: &PlacedShape<'_, N>) -> N {
    let size = placed
        .size()
        .max((triangle.b - triangle.a).amax())
        .max((triangle.c - triangle.a).amax());
    N::default_epsilon().sqrt() * size
}

/// [`deepest_over_triangle`] by the triangle's walls and corners. The
/// shape's support along `−n` lies beside the triangle, so the deepest
/// point over its column (a convex problem) lies on the column's
/// boundary: on the wall of an edge the support lies beyond (the
/// vertical plane through it), or on a corner's vertical line, where it
/// is the shape's lowest point (a ray cast up the line). A wall's point
/// ([`deepest_on_wall`]) over the column is the answer (the deepest
/// inside that wall alone); without one, the deepest corner's. `None` where a wall's search does not
/// settle (then the caller's ray cast decides); `Some(None)` when no
/// point over the column comes within `margin` of the plane.
fn deepest_on_column_boundary<N: Real>(
    corners: &[Point3<N>; 3],
    n: &Vector3<N>,
    placed: &PlacedShape<'_, N>,
    margin: N,
    tolerance: N,
) -> Option<Option<ContactPoint<N>>> {
    let lowest = placed.support(&-n)?;
    let depth = |p: &Point3<N>| n.dot(&(corners[0] - p));
    let mut best: Option<Point3<N>> = None;
    for k in 0..3 {
        let from = corners[k];
        let out = geom_prims::contact::try_unit(&column_wall_normal(corners, k))?;
        if out.dot(&(lowest - from)) > N::zero() {
            // The deepest point inside one wall, when over the column,
            // is the deepest over it (the column lies inside the wall);
            // none inside the wall within the margin, none over it.
            match deepest_on_wall(&lowest, &out, &from, n, corners, placed, margin, tolerance)? {
                WallPoint::Found(p) if over_column(corners, &p) => {
                    best = Some(p);
                    break;
                }
                WallPoint::Found(_) => {}
                WallPoint::None => return Some(None),
            }
        }
    }
    // Else it lies on a corner's line.
    if best.is_none() {
        let bottom = placed.support(&-Vector3::y())?.y;
        let unlimited = nalgebra::convert::<f64, N>(f64::INFINITY);
        for corner in corners {
            let start = Point3::new(corner.x, bottom.min(corner.y) - N::one(), corner.z);
            let ray = geom_core::Ray::new(start, Vector3::y());
            if let Some(hit) = placed.shape.ray_cast(placed.pose, &ray, unlimited, true) {
                let p = ray.point_at(hit.t);
                if best.is_none_or(|b| depth(&p) > depth(&b)) {
                    best = Some(p);
                }
            }
        }
    }
    Some(best.filter(|p| depth(p) >= -margin).map(|p| {
        let d = depth(&p);
        ContactPoint {
            point_a: p + n * d,
            point_b: p,
            depth: d,
            feature_a: FeatureId::Unknown,
            feature_b: FeatureId::Unknown,
        }
    }))
}

/// What [`deepest_on_wall`] found.
enum WallPoint<N: Real> {
    /// The shape's deepest point on the wall's inner side (on the wall).
    Found(Point3<N>),
    /// No point on the inner side within the margin of the plane.
    None,
}

/// The shape's point deepest along `n` (depth `n·(corner − p)`) among
/// those with `g(p) = m·(p − on_wall) <= 0`, given its `lowest` point
/// beyond the wall (`g > 0`): a problem in the plane of `n` and `m`. For
/// `d = α n + β m` (`α > 0`, `β >= 0`) and `p` the shape's point least
/// along `d`, every point of the shape inside the wall has depth at most
///
/// ```text
/// U = depth(p) − (β / α) · g(p)       (Lagrangian duality)
/// ```
///
/// while the point where the chord between a support outside the wall
/// and one inside crosses it is in the shape (convex), its depth a lower
/// bound. Each step takes the support along the chord's normal in that
/// plane (exact in one step at a polytope's edge, quadratic on a curved
/// side) until the bounds meet within `tolerance`. `None` when they do
/// not in 48 steps.
#[allow(clippy::too_many_arguments)]
fn deepest_on_wall<N: Real>(
    lowest: &Point3<N>,
    m: &Vector3<N>,
    on_wall: &Point3<N>,
    n: &Vector3<N>,
    corners: &[Point3<N>; 3],
    placed: &PlacedShape<'_, N>,
    margin: N,
    tolerance: N,
) -> Option<WallPoint<N>> {
    let g = |p: &Point3<N>| m.dot(&(p - on_wall));
    let depth = |p: &Point3<N>| n.dot(&(corners[0] - p));
    // Outside (`g > 0`) and inside supports, bracketing the wall.
    let mut outside = *lowest;
    let mut inside = placed.support(&-m)?;
    if g(&inside) > N::zero() {
        // Wholly beyond the wall.
        return Some(WallPoint::None);
    }
    let mut upper = depth(lowest);
    for _ in 0..48 {
        if upper < -margin {
            return Some(WallPoint::None);
        }
        let (g_out, g_in) = (g(&outside), g(&inside));
        let crossing = outside + (inside - outside) * (g_out / (g_out - g_in));
        if upper - depth(&crossing) <= tolerance {
            return Some(WallPoint::Found(crossing));
        }
        // The chord's normal in the plane of `n` and `m`: `α n + β m`
        // with `α = −m·chord > 0` (the chord runs into the wall) and
        // `β = n·chord >= 0` (the outside support the lower).
        let chord = inside - outside;
        let (alpha, beta) = (-m.dot(&chord), n.dot(&chord));
        if !(alpha > N::zero() && beta >= N::zero()) {
            return None;
        }
        let next = placed.support(&-(n * alpha + m * beta))?;
        upper = upper.min(depth(&next) - beta / alpha * g(&next));
        if next == outside || next == inside {
            // No support beyond the chord: it is the section's edge, and
            // the bound above meets the crossing's depth.
            continue;
        }
        if g(&next) > N::zero() {
            outside = next;
        } else {
            inside = next;
        }
    }
    None
}

/// Whether `point` lies over the triangle `corners` (its vertical
/// projection inside the triangle's, up to √ε of the triangle's size).
fn over_column<N: Real>(corners: &[Point3<N>; 3], point: &Point3<N>) -> bool {
    let cross =
        |o: &Point3<N>, a: &Point3<N>, b: &Point3<N>| (a.x - o.x) * (b.z - o.z) - (a.z - o.z) * (b.x - o.x);
    let area = cross(&corners[0], &corners[1], &corners[2]);
    let size = (corners[1] - corners[0])
        .amax()
        .max((corners[2] - corners[0]).amax());
    let slack = N::default_epsilon().sqrt() * size * size;
    (0..3).all(|k| cross(&corners[k], &corners[(k + 1) % 3], point) * area.signum() >= -slack)
}

/// The shape's point deepest below the triangle's plane among those
/// straight above or below the triangle (in its vertical prism, the
/// column of solid it stands for), when the shape's support feature along
/// `−n` lies beside the triangle (over lower ground) while the shape still
/// dips into it. Depth along the face normal is `n_y` times the depth
/// straight down, so the deepest point is the far end of the vertical
/// line `d·ŷ` through the Minkowski difference triangle − shape: a ray
/// cast against its support function from above it
/// ([`ray_cast_support`](geom_prims::gjk::ray_cast_support)), taken
/// only where the column's walls and corners do not settle it first
/// ([`deepest_on_column_boundary`], within `beside / 256`, the ray cast's
/// own convergence). `None` when the shape is not over the triangle or
/// stays more than `margin` above its plane.
pub(crate) fn deepest_over_triangle<N: Real>(
    triangle: &Triangle<N>,
    n: &Vector3<N>,
    placed: &PlacedShape<'_, N>,
    margin: N,
    beside: N,
) -> Option<ContactPoint<N>> {
    let corners = [triangle.a, triangle.b, triangle.c];
    if let Some(answer) = deepest_on_column_boundary(&corners, n, placed, margin, beside / lit(256.0)) {
        return answer;
    }
    let triangle_support = |d: &Vector3<N>| {
        corners
            .into_iter()
            .reduce(|best, p| {
                if p.coords.dot(d) > best.coords.dot(d) {
                    p
                } else {
                    best
                }
            })
            .expect("three corners")
    };
    let support = |d: &Vector3<N>| Some([triangle_support(d), placed.support(&-d)?]);
    let up = Vector3::y();
    // From above the difference's extent along y, down to where the depth
    // along `n` reaches `−margin`.
    let [top, bottom] = support(&up)?;
    let start = top.y - bottom.y + N::one();
    let reach = start + margin / n.y.max(nalgebra::convert(1e-3));
    let hit = geom_prims::gjk::ray_cast_support(support, &Point3::from(up * start), &-up, reach)?;
    let [on_triangle, on_shape] = hit.points;
    let depth = n.dot(&(on_triangle - on_shape));
    (depth >= -margin).then(|| ContactPoint {
        point_a: on_shape + n * depth,
        point_b: on_shape,
        depth,
        feature_a: FeatureId::Unknown,
        feature_b: FeatureId::Unknown,
    })
}

/// The push out sideways through a boundary wall of the triangle (the
/// vertical plane through an edge without a neighbour), when it is smaller
/// than `face_depth`: normal horizontal and out of the terrain, the
/// shape's point deepest behind the wall and its foot on the wall.
fn shallowest_wall<N: Real>(
    field: &HeightField<N>,
    id: TriangleId,
    triangle: &Triangle<N>,
    placed: &PlacedShape<'_, N>,
    face_depth: N,
) -> Option<ContactCandidate<N>> {
    let (i, j) = field.cell_coords(id.cell());
    let corners = [triangle.a, triangle.b, triangle.c];
    let mut best: Option<ContactCandidate<N>> = None;
    for k in 0..3 {
        if field.has_edge_neighbor(i, j, id.half(), k) {
            continue;
        }
        let from = corners[k];
        let out_of_terrain = geom_prims::contact::try_unit(&column_wall_normal(&corners, k))?;
        let inner = placed.support(&-out_of_terrain)?;
        let depth = out_of_terrain.dot(&(from - inner));
        if depth > N::zero() && depth < face_depth && best.is_none_or(|b| depth < b.point.depth) {
            best = Some(ContactCandidate {
                normal: out_of_terrain,
                point: ContactPoint {
                    point_a: inner + out_of_terrain * depth,
                    point_b: inner,
                    depth,
                    feature_a: FeatureId::Edge(3 * id.0 + k as u32),
                    feature_b: FeatureId::Unknown,
                },
            });
        }
    }
    best
}

/// The closest points of a heightfield (`a`) and a convex `shape` (`b`)
/// within `max_distance` (`+inf` for no limit): `Intersecting` when the
/// shape meets the terrain's solid (a contact at depth `>= 0`, see
/// [`contact_heightfield_convex`]), else the nearest triangle's closest
/// points (from `triangle_table`), searched in a box grown from the
/// shape's own until the nearest triangle found lies within it.
///
/// The terrain's distance is its surface's: a shape beside the terrain's
/// border, below the surface's height, is measured to the nearest
/// triangle, not to the vertical wall of the solid.
pub fn closest_points_heightfield_convex<N: Real>(
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
    shape: &dyn Shape<N>,
    shape_pose: &Isometry3<N>,
    max_distance: N,
    triangle_table: &DispatchTable<N>,
) -> Result<geom_core::ClosestPoints<N>, GeomError> {
    use geom_core::ClosestPoints;
    let mut contacts = ContactManifolds::new();
    contact_heightfield_convex(
        field,
        field_pose,
        shape,
        shape_pose,
        N::zero(),
        triangle_table,
        &mut contacts,
    )?;
    if contacts.points().any(|(_, point)| point.depth >= N::zero()) {
        return Ok(ClosestPoints::Intersecting);
    }
    let local_pose = field_pose.inv_mul(shape_pose);
    let identity = Isometry3::identity();
    let own = shape.aabb(&local_pose);
    let extent = field.local_extent();
    let cell = field.cell_size()[0].max(field.cell_size()[1]);
    let mut reach = max_distance.min((own.maxs - own.mins).amax().max(cell));
    loop {
        let search = own.loosened(reach);
        let mut nearest: Option<(N, Point3<N>, Point3<N>)> = None;
        for (_, triangle) in field.triangles_in_aabb(&search) {
            let limit = nearest.map_or(reach, |(d, _, _)| d);
            match triangle_table.closest_points(&triangle, &identity, shape, &local_pose, limit)? {
                ClosestPoints::Intersecting => return Ok(ClosestPoints::Intersecting),
                ClosestPoints::WithinMargin { point_a, point_b } => {
                    let distance = geom_core::ray::length_without_overflow(&(point_b - point_a));
                    if nearest.is_none_or(|(d, _, _)| distance < d) {
                        nearest = Some((distance, point_a, point_b));
                    }
                }
                ClosestPoints::Disjoint => {}
            }
        }
        let covers_terrain = search.mins.x <= extent.mins.x
            && search.mins.z <= extent.mins.z
            && search.maxs.x >= extent.maxs.x
            && search.maxs.z >= extent.maxs.z
            && search.mins.y <= extent.mins.y
            && search.maxs.y >= extent.maxs.y;
        match nearest {
            Some((distance, point_a, point_b)) if distance <= reach || covers_terrain => {
                let matrix = PoseMatrix::new(field_pose);
                return Ok(ClosestPoints::WithinMargin {
                    point_a: matrix.point_to_world(&point_a),
                    point_b: matrix.point_to_world(&point_b),
                });
            }
            _ if reach >= max_distance || covers_terrain || !reach.is_finite() => {
                return Ok(ClosestPoints::Disjoint);
            }
            _ => reach = (reach * nalgebra::convert::<f64, N>(4.0)).min(max_distance),
        }
    }
}
