//! The [`Shape`] implementation: ray casts, closest points and the box.

use geom_core::distance::closest_point_on_triangle;
use geom_core::shape::ray_cast_posed;
use geom_core::{Aabb, PointProjection, Ray, RayHit, Real, Shape, ShapeKind, all_finite};
use nalgebra::{Isometry3, Point3, Vector3};

use crate::heightfield::HeightField;

impl<N: Real> HeightField<N> {
    /// The local box: the x–z extent and the height range of the non-hole
    /// cells.
    pub fn local_extent(&self) -> Aabb<N> {
        let [low, high] = self.blocks.total;
        Aabb::new(
            Point3::new(self.sample_x(0), self.origin.y + low, self.sample_z(0)),
            Point3::new(
                self.sample_x(self.rows - 1),
                self.origin.y + high,
                self.sample_z(self.cols - 1),
            ),
        )
    }

    /// Whether a local point is in the solid: inside the x–z extent, not
    /// over a hole, and on or below the surface.
    ///
    /// A point above the highest sample by more than the rounding of
    /// [`HeightField::surface_y_at`] is outside without a cell lookup.
    pub fn contains_local_point(&self, point: &Point3<N>) -> bool {
        if point.y > self.surface_y_ceiling() {
            return false;
        }
        self.surface_y_at(point.x, point.z).is_some_and(|y| point.y <= y)
    }

    /// An upper bound on every value [`HeightField::surface_y_at`] returns:
    /// the highest sample plus a bound on the interpolation's rounding
    /// (weights within a cell are in `[0, 1]`, and every term is at most
    /// the origin's or a height's magnitude, so the error is a few ulps of
    /// their sum; 64 ε of it is far more).
    #[inline]
    pub(crate) fn surface_y_ceiling(&self) -> N {
        let [low, high] = self.blocks.total;
        let rounding = N::default_epsilon()
            * nalgebra::convert::<f64, N>(64.0)
            * (self.origin.y.abs() + low.abs() + high.abs());
        self.origin.y + high + rounding
    }

    /// The closest point of the surface to a local `point` (`None` for NaN
    /// or when every cell is a hole).
    ///
    /// The triangle under the point gives an upper bound `d` on the
    /// distance; then only the triangles in the box `point ± d` are
    /// examined (point–triangle by Voronoi regions,
    /// [`closest_point_on_triangle`]). Without a triangle under the point
    /// every triangle is a candidate.
    pub fn closest_surface_point(&self, point: &Point3<N>) -> Option<Point3<N>> {
        if !point.iter().all(|c| c.is_finite()) {
            return None;
        }
        let huge = N::max_value()?;
        let mut best: Option<(N, Point3<N>)> = None;
        if let Some((_, t)) = self.triangle_at(point.x, point.z) {
            let (q, _) = closest_point_on_triangle(point, &t.a, &t.b, &t.c);
            best = Some(((point - q).norm_squared(), q));
        }
        let reach = best.map_or(huge, |(d2, _)| d2.sqrt());
        let search = Aabb::new(point - Vector3::repeat(reach), point + Vector3::repeat(reach));
        for (_, t) in self.triangles_in_aabb(&search) {
            let (q, _) = closest_point_on_triangle(point, &t.a, &t.b, &t.c);
            let d2 = (point - q).norm_squared();
            if best.is_none_or(|(b, _)| d2 < b) {
                best = Some((d2, q));
            }
        }
        best.map(|(_, q)| q)
    }
}

/// The solid rule's answer for an origin on or below the surface: `t = 0`
/// with normal `−dir/|dir|` (scaled first where `|dir|²` overflows or
/// underflows; zero for a zero `dir`).
fn solid_hit_at_origin<N: Real>(dir: &Vector3<N>) -> RayHit<N> {
    let (dir, length) = geom_core::ray::with_length(dir);
    let normal = if length > N::zero() {
        -dir / length
    } else {
        Vector3::zeros()
    };
    RayHit {
        t: N::zero(),
        normal,
        feature: geom_core::FeatureId::Unknown,
    }
}

impl<N: Real> Shape<N> for HeightField<N> {
    fn kind(&self) -> ShapeKind {
        ShapeKind::HeightField
    }

    fn is_convex(&self) -> bool {
        false
    }

    fn local_aabb(&self) -> Aabb<N> {
        self.local_extent()
    }

    /// The first surface hit (see [`HeightField::ray_cast_surface`]); with
    /// `solid = true` an origin on or below the surface, inside the x–z
    /// extent and not over a hole, hits at `t = 0`. The terrain has no side
    /// walls or floor: only its surface is ever hit.
    fn ray_cast_local(&self, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        if !ray.is_finite() || crate::heightfield::is_nan(max_t) || max_t < N::zero() {
            return None;
        }
        if solid && self.contains_local_point(&ray.origin) {
            return Some(solid_hit_at_origin(&ray.dir));
        }
        self.ray_cast_surface(ray, max_t)
    }

    /// [`Shape::ray_cast`], with a shortcut for the identity pose (a
    /// terrain is most often placed in the world as it is): the ray is cast
    /// as given, and the default method's answer for that pose (`t_start`
    /// zero, the same cut at `max_t`, the normal unrotated) is reproduced
    /// bit for bit without building the pose matrix or restarting the ray.
    fn ray_cast(&self, pose: &Isometry3<N>, ray: &Ray<N>, max_t: N, solid: bool) -> Option<RayHit<N>> {
        let identity = pose.translation.vector == Vector3::zeros()
            && pose.rotation.quaternion().imag() == Vector3::zeros();
        if !identity {
            // The solid rule on the world origin itself: the posed cast may
            // restart a far ray next to the terrain's box, and the solid
            // region (everything below the surface) reaches outside that
            // box, so a restarted origin could be inside where the true
            // origin is not.
            if solid && ray.is_finite() && max_t >= N::zero() {
                let local_origin = geom_core::PoseMatrix::new(pose).point_to_local(&ray.origin);
                if self.contains_local_point(&local_origin) {
                    return Some(solid_hit_at_origin(&ray.dir));
                }
            }
            return ray_cast_posed(self, pose, ray, max_t, false);
        }
        let hit = self.ray_cast_local(ray, max_t, solid)?;
        // As `translated_hit_to_world` does with `t_start = 0`.
        let t = N::zero() + hit.t;
        let finite = t.is_finite() && all_finite(&hit.normal);
        (finite && t <= max_t).then_some(RayHit { t, ..hit })
    }

    fn closest_point_local(&self, point: &Point3<N>, solid: bool) -> Option<PointProjection<N>> {
        if !point.iter().all(|c| c.is_finite()) {
            return None;
        }
        let is_inside = self.contains_local_point(point);
        if solid && is_inside {
            return Some(PointProjection {
                point: *point,
                is_inside,
            });
        }
        Some(PointProjection {
            point: self.closest_surface_point(point)?,
            is_inside,
        })
    }

    /// Heightfields are not convex: no support function.
    fn support_local(&self, _dir: &Vector3<N>) -> Option<Point3<N>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::TriangleId;
    use crate::test_support::{TestRng, random_field};
    use geom_core::distance::closest_point_on_triangle;
    use geom_core::{Shape, ShapeKind};
    use nalgebra::{Point3, Vector3};

    #[test]
    fn closest_points_match_brute_force() {
        let mut rng = TestRng::new(21);
        for round in 0..40 {
            let field = random_field(&mut rng, 2 + round % 13, 2 + round % 11);
            let around = field.local_extent().loosened(2.0);
            for _ in 0..40 {
                let p = rng.point_in(&around);
                let mut best = f64::INFINITY;
                for id in 0..2 * field.cell_count() as u32 {
                    if let Some(t) = field.triangle(TriangleId(id)) {
                        best = best.min((p - closest_point_on_triangle(&p, &t.a, &t.b, &t.c).0).norm());
                    }
                }
                let projection = field.closest_point_local(&p, false);
                if best.is_infinite() {
                    assert!(projection.is_none());
                    continue;
                }
                let projection = projection.unwrap();
                let d = (p - projection.point).norm();
                assert!((d - best).abs() <= 1e-12 * (1.0 + best), "{d} vs {best}");
                assert_eq!(projection.is_inside, field.contains_local_point(&p));
                let signed = field.distance_local(&p).unwrap();
                assert!((signed.abs() - best).abs() <= 1e-12 * (1.0 + best));
                let solid = field.closest_point_local(&p, true).unwrap();
                if solid.is_inside {
                    assert_eq!(solid.point, p);
                }
            }
        }
    }

    #[test]
    fn shape_basics() {
        let field = crate::HeightField::new(
            Point3::new(1.0, 2.0, 3.0),
            [0.5, 2.0],
            3,
            4,
            (0..12).map(f64::from).collect(),
        );
        assert_eq!(field.kind(), ShapeKind::HeightField);
        assert!(!field.is_convex());
        assert!(field.support_local(&Vector3::y()).is_none());
        let aabb = field.local_aabb();
        assert_eq!(aabb.mins, Point3::new(1.0, 2.0, 3.0));
        assert_eq!(aabb.maxs, Point3::new(2.0, 13.0, 9.0));
        assert!(
            field
                .closest_point_local(&Point3::new(f64::NAN, 0.0, 0.0), true)
                .is_none()
        );
    }
}
