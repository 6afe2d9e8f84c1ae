//! Sweeps against the world: triangles, heightfields and any shape the
//! dispatch table knows, returning the earliest hit.
//!
//! ```
//! use geom_prims::sweep::MovingShape;
//! use geom_terrain::{HeightField, sweep_heightfield};
//! use nalgebra::{Isometry3, Point3, Vector3};
//!
//! // A standing capsule whose bottom is 1 above flat ground, moved 2 down
//! // and 2 sideways: it lands halfway, on the ground under its new place.
//! let ground = HeightField::new(Point3::new(-8.0, 0.0, -8.0), [1.0, 1.0], 17, 17, vec![0.0f64; 289]);
//! let capsule = MovingShape::Capsule { a: Point3::new(0.0, 1.5, 0.0), b: Point3::new(0.0, 2.5, 0.0), radius: 0.5 };
//! let hit = sweep_heightfield(&capsule, &Vector3::new(2.0, -2.0, 0.0), &ground, &Isometry3::identity()).unwrap();
//! assert!((hit.toi - 0.5).abs() < 1e-12);
//! assert!((hit.point - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-12);
//! assert!((hit.normal - Vector3::y()).norm() < 1e-12);
//! ```

use std::any::Any;

use geom_core::dispatch::{ClosestPoints, DispatchTable};
use geom_core::pose::PoseMatrix;
use geom_core::{ContactManifolds, GeomError, Real, Shape, lit};
use geom_prims::Triangle;
use geom_prims::sweep::{MovingShape, Proximity, SweepHit, conservative_advancement};
use nalgebra::{Isometry3, Translation3, Vector3};

use crate::surface::TriangleSurface;
use crate::{HeightField, TriMesh};

/// How many conservative-advancement steps a sweep against a general
/// shape may take before it stops (still short of any contact).
pub const ADVANCEMENT_MAX_ITERATIONS: usize = 64;

/// Something a moving shape can run into.
#[derive(Clone, Copy, Debug)]
pub enum Obstacle<'a, N: Real> {
    /// Triangles in world coordinates (two-sided, no thickness).
    Triangles(&'a [Triangle<N>]),
    /// A heightfield at a pose.
    HeightField {
        /// The terrain.
        field: &'a HeightField<N>,
        /// Its pose.
        pose: Isometry3<N>,
    },
    /// Any shape at a pose: triangles and heightfields are swept exactly,
    /// other shapes by conservative advancement through the dispatch table.
    Shape {
        /// The shape.
        shape: &'a dyn Shape<N>,
        /// Its pose.
        pose: Isometry3<N>,
    },
}

/// The shape moved by `motion` against the heightfield at `field_pose`: the
/// earliest hit over the triangles in the box of the whole motion
/// ([`HeightField::triangles_in_aabb`]), each swept exactly
/// ([`MovingShape::sweep_triangle`]). Allocates nothing.
///
/// The terrain is swept as its surface: a shape that starts entirely below
/// the surface is not pushed out. Flat ground never catches a shape on its
/// internal edges: an edge in the plane is never nearer than the plane.
pub fn sweep_heightfield<N: Real>(
    mover: &MovingShape<N>,
    motion: &Vector3<N>,
    field: &HeightField<N>,
    field_pose: &Isometry3<N>,
) -> Option<SweepHit<N>> {
    sweep_surface(mover, motion, field, field_pose)
}

/// The shape moved by `motion` against the mesh at `mesh_pose`: the
/// earliest hit over the triangles whose boxes meet the box of the whole
/// motion (through the mesh's tree), each swept exactly
/// ([`MovingShape::sweep_triangle`]), the normal fixed by the active edges
/// as for heightfields. Allocates nothing. The mesh is swept as its
/// surface (both sides of an open one).
pub fn sweep_trimesh<N: Real>(
    mover: &MovingShape<N>,
    motion: &Vector3<N>,
    mesh: &TriMesh<N>,
    mesh_pose: &Isometry3<N>,
) -> Option<SweepHit<N>> {
    sweep_surface(mover, motion, mesh, mesh_pose)
}

/// [`sweep_heightfield`] and [`sweep_trimesh`]: any triangle surface.
fn sweep_surface<N: Real, S: TriangleSurface<N>>(
    mover: &MovingShape<N>,
    motion: &Vector3<N>,
    surface: &S,
    surface_pose: &Isometry3<N>,
) -> Option<SweepHit<N>> {
    if !motion.iter().all(|c| c.is_finite()) {
        return None;
    }
    let matrix = PoseMatrix::new(surface_pose);
    let local_mover = to_local(mover, surface_pose, &matrix);
    let local_motion = matrix.vector_to_local(motion);
    let swept = local_mover.swept_aabb(&local_motion);
    let mut best: Option<SweepHit<N>> = None;
    surface.visit_triangles(&swept, |id, triangle, _| {
        let hit = local_mover.sweep_triangle(&local_motion, triangle).map(|hit| {
            // A hit on a flat or concave edge or vertex takes the face's
            // normal: such a feature is reached with the face (a sphere
            // landing beside a flat diagonal touches the plane first, by
            // less than the rounding of the time, and the edge's normal
            // would tilt by the offset over the radius).
            if surface.keeps_own_normal(id, triangle, &hit.point) {
                return hit;
            }
            let face = crate::heightfield::face_normal(triangle);
            let normal = if face.dot(&hit.normal) < N::zero() {
                -face
            } else {
                face
            };
            SweepHit { normal, ..hit }
        });
        best = SweepHit::earliest(best, hit);
    });
    best.map(|hit| SweepHit {
        toi: hit.toi,
        point: matrix.point_to_world(&hit.point),
        normal: matrix.vector_to_world(&hit.normal),
    })
    .filter(SweepHit::is_finite)
}

/// The shape in the frame of `pose` (translation subtracted first).
fn to_local<N: Real>(mover: &MovingShape<N>, pose: &Isometry3<N>, matrix: &PoseMatrix<N>) -> MovingShape<N> {
    match *mover {
        MovingShape::Sphere { center, radius } => MovingShape::Sphere {
            center: matrix.point_to_local(&center),
            radius,
        },
        MovingShape::Capsule { a, b, radius } => MovingShape::Capsule {
            a: matrix.point_to_local(&a),
            b: matrix.point_to_local(&b),
            radius,
        },
        MovingShape::Ellipsoid {
            center,
            radii,
            rotation,
        } => MovingShape::Ellipsoid {
            center: matrix.point_to_local(&center),
            radii,
            rotation: pose.rotation.inverse() * rotation,
        },
    }
}

/// The tolerance [`sweep_shape`] gives conservative advancement: `16 ε`
/// times the moving shape's size plus the motion's length, the size of
/// the numbers the distance query sees near the contact (it works in the
/// moving shape's frame). The target's size does not enter: a sphere
/// swept at a box of half extent 5000 stops as close as at a unit box.
pub fn default_sweep_tolerance<N: Real>(shape: &dyn Shape<N>, pose: &Isometry3<N>, motion: &Vector3<N>) -> N {
    let aabb = shape.aabb(pose);
    let size = geom_core::ray::length_without_overflow(&(aabb.maxs - aabb.mins));
    let local = size + geom_core::ray::length_without_overflow(motion);
    lit::<N>(16.0) * N::default_epsilon() * local.min(lit(1e30))
}

/// `shape` at `pose` moved by `motion` against `target` at `target_pose`:
/// the first contact (`toi ∈ [0, 1]`, point on the target, normal from the
/// target towards the shape), or `Ok(None)`.
///
/// A sphere, capsule or ellipsoid against a triangle, a heightfield or a
/// mesh is swept exactly ([`MovingShape::sweep_triangle`],
/// [`sweep_heightfield`], [`sweep_trimesh`]).
/// Any other pair goes through [`sweep_shape_by_advancement`] with
/// [`default_sweep_tolerance`]. A NaN or infinite motion gives `Ok(None)`;
/// errors are the table's (`NonFinite` pose, `Unsupported` pair).
pub fn sweep_shape<N: Real>(
    shape: &dyn Shape<N>,
    pose: &Isometry3<N>,
    motion: &Vector3<N>,
    target: &dyn Shape<N>,
    target_pose: &Isometry3<N>,
    table: &DispatchTable<N>,
) -> Result<Option<SweepHit<N>>, GeomError> {
    if !motion.iter().all(|c| c.is_finite()) {
        return Ok(None);
    }
    for (pose, input) in [(pose, "pose"), (target_pose, "target_pose")] {
        let finite = pose.translation.vector.iter().all(|c| c.is_finite())
            && pose.rotation.coords.iter().all(|c| c.is_finite());
        if !finite {
            return Err(GeomError::NonFinite { input });
        }
    }
    if let Some(mover) = MovingShape::from_shape(shape, pose) {
        let target_any: &dyn Any = target;
        if let Some(triangle) = target_any.downcast_ref::<Triangle<N>>() {
            let world = Triangle {
                a: target_pose * triangle.a,
                b: target_pose * triangle.b,
                c: target_pose * triangle.c,
            };
            return Ok(mover.sweep_triangle(motion, &world));
        }
        if let Some(field) = target_any.downcast_ref::<HeightField<N>>() {
            return Ok(sweep_heightfield(&mover, motion, field, target_pose));
        }
        if let Some(mesh) = target_any.downcast_ref::<TriMesh<N>>() {
            return Ok(sweep_trimesh(&mover, motion, mesh, target_pose));
        }
    }
    let tolerance = default_sweep_tolerance(shape, pose, motion);
    sweep_shape_by_advancement(shape, pose, motion, target, target_pose, table, tolerance)
}

/// [`sweep_shape`] by conservative advancement over the table's
/// [`DispatchTable::closest_points`], for any pair the table answers (GJK
/// once the convex fallback is installed, a heightfield's contacts, custom
/// kinds). See [`conservative_advancement`] (Mirtich 1996; van den Bergen
/// 2004): the step uses the closest-point normal when both shapes are
/// convex, the motion's length otherwise; the returned `toi` is never past
/// the first contact, and the shapes are at most `tolerance` apart there
/// (as far as the table's distances are exact). The hit's normal and point
/// are the deepest contact's, from one contact query with `4 · tolerance`
/// as margin where the advancement stopped (the direction between closest
/// points a hair apart is rounding noise); touching at the start is
/// reported at `toi = 0` the same way. That query may allocate (the
/// manifold's points); at most [`ADVANCEMENT_MAX_ITERATIONS`] steps.
pub fn sweep_shape_by_advancement<N: Real>(
    shape: &dyn Shape<N>,
    pose: &Isometry3<N>,
    motion: &Vector3<N>,
    target: &dyn Shape<N>,
    target_pose: &Isometry3<N>,
    table: &DispatchTable<N>,
    tolerance: N,
) -> Result<Option<SweepHit<N>>, GeomError> {
    let motion_length = motion.norm();
    if !motion_length.is_finite() {
        return Ok(None);
    }
    let convex = shape.is_convex() && target.is_convex();
    // Farther than the motion plus the tolerance cannot be reached: the
    // table may stop looking there (and must, for a heightfield).
    let reach = motion_length + tolerance;
    let mut failure: Option<GeomError> = None;
    // Whether the hit already came from the contact query (touching), and
    // that query's margin: `Intersecting` may be shapes a rounding-sized
    // gap apart, and the advancement stops within the tolerance.
    let mut from_contact = false;
    let contact_margin = tolerance * lit(4.0);
    let moved_by = |offset: &Vector3<N>| {
        Isometry3::from_parts(
            Translation3::from(pose.translation.vector + offset),
            pose.rotation,
        )
    };
    // The deepest point of the contact query with `contact_margin` at
    // `moved`, with its manifold's normal (may allocate).
    let deepest_at = |moved: &Isometry3<N>| {
        let mut contacts = ContactManifolds::new();
        table
            .contact(shape, moved, target, target_pose, contact_margin, &mut contacts)
            .ok()
            .and_then(|()| deepest_contact(&contacts))
    };
    let hit = conservative_advancement(motion, convex, tolerance, ADVANCEMENT_MAX_ITERATIONS, |offset| {
        let moved = moved_by(offset);
        let answer = table.closest_points(shape, &moved, target, target_pose, reach);
        match answer {
            Err(error) => {
                failure = Some(error);
                None
            }
            Ok(ClosestPoints::Disjoint) => None,
            Ok(ClosestPoints::WithinMargin { point_a, point_b }) if point_a != point_b => {
                Some(Proximity::Apart {
                    point_on_mover: point_a,
                    point_on_target: point_b,
                })
            }
            Ok(_) => {
                from_contact = true;
                let deepest = deepest_at(&moved);
                // Scaled first: `|motion|²` underflows for a motion of 1e-22
                // (`f32`) or 1e-161 (`f64`), and the plain quotient is not
                // unit.
                let (scaled_motion, scaled_length) = geom_core::ray::with_length(motion);
                let fallback = -scaled_motion / scaled_length;
                Some(match deepest {
                    Some((normal, point)) => Proximity::Touching {
                        point: point.point_b,
                        normal: -normal,
                    },
                    None => Proximity::Touching {
                        point: pose.translation.vector.into(),
                        normal: if fallback.iter().all(|c| c.is_finite()) {
                            fallback
                        } else {
                            Vector3::y()
                        },
                    },
                })
            }
        }
    });
    if let Some(error) = failure {
        return Err(error);
    }
    // Stopped apart within the tolerance: the direction between closest
    // points a hair apart carries their rounding (`ε·size/gap` radians), so
    // the normal and point are the touching features' from the contact
    // query with `contact_margin` (a face's own normal).
    Ok(hit.map(|hit| {
        if from_contact {
            return hit;
        }
        let deepest = deepest_at(&moved_by(&(motion * hit.toi)));
        // The contact's normal (from the mover to the target) faces the
        // motion at a first contact; the closest points' direction, noise
        // for points a hair apart, is no reference for it.
        match deepest {
            Some((normal, point))
                if normal.dot(motion) > N::zero() || normal.dot(&hit.normal) < N::zero() =>
            {
                SweepHit {
                    toi: hit.toi,
                    point: point.point_b,
                    normal: -normal,
                }
            }
            _ => hit,
        }
    }))
}

/// The deepest point of `contacts` with its manifold's normal.
fn deepest_contact<N: Real>(
    contacts: &ContactManifolds<N>,
) -> Option<(Vector3<N>, geom_core::ContactPoint<N>)> {
    contacts
        .points()
        .map(|(normal, point)| (*normal, *point))
        .reduce(|best, next| if next.1.depth > best.1.depth { next } else { best })
}

/// The earliest hit of `mover` moved by `motion` against every obstacle,
/// and the index of the obstacle hit. Triangle slices are culled by the
/// box of the whole motion; heightfields as in [`sweep_heightfield`];
/// other shapes through [`sweep_shape`] (errors are the table's).
pub fn sweep_obstacles<N: Real>(
    mover: &MovingShape<N>,
    motion: &Vector3<N>,
    obstacles: &[Obstacle<'_, N>],
    table: &DispatchTable<N>,
) -> Result<Option<(usize, SweepHit<N>)>, GeomError> {
    if !motion.iter().all(|c| c.is_finite()) {
        return Ok(None);
    }
    let swept = mover.swept_aabb(motion);
    let mut best: Option<(usize, SweepHit<N>)> = None;
    let mut keep = |index: usize, hit: Option<SweepHit<N>>| {
        if let Some(hit) = hit
            && best.is_none_or(|(_, current)| hit.toi < current.toi)
        {
            best = Some((index, hit));
        }
    };
    for (index, obstacle) in obstacles.iter().enumerate() {
        match obstacle {
            Obstacle::Triangles(triangles) => {
                for triangle in triangles.iter() {
                    let own = geom_core::Aabb::new(triangle.a, triangle.a)
                        .including(&triangle.b)
                        .including(&triangle.c);
                    if own.intersects(&swept) {
                        keep(index, mover.sweep_triangle(motion, triangle));
                    }
                }
            }
            Obstacle::HeightField { field, pose } => {
                keep(index, sweep_heightfield(mover, motion, field, pose))
            }
            Obstacle::Shape { shape, pose } => {
                if shape.aabb(pose).intersects(&swept) {
                    let (placed, mover_pose) = mover.to_shape();
                    keep(
                        index,
                        sweep_shape(placed.as_shape(), &mover_pose, motion, *shape, pose, table)?,
                    );
                }
            }
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests;
