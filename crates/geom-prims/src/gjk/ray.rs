//! Ray casts against a convex set given by its support function: the GJK
//! ray cast of van den Bergen, "Ray Casting against General Convex Objects
//! with Application to Continuous Collision Detection" (2004), with
//! Montanari's signed-volume distance subalgorithm
//! ([`closest_point_on_simplex`]).
//!
//! The set is a Minkowski difference `A − B` given by the supports of both
//! (a single shape is `A − {0}`), so that a hit also gives the pair of
//! points, one of each set, whose difference is the hit point.

use geom_core::{Real, Shape};
use nalgebra::{Point3, Vector3};

use super::simplex::closest_point_on_simplex;

/// Iterations before the cast answers its best estimate. The descent ends
/// sooner: exactly on polytopes, at `√ε / 256` of the simplex's size on
/// smooth surfaces, or when it stalls at rounding (no shorter `v`, no
/// step). Rays reaching a cylinder's or a cone's rim stall early, off
/// the surface by up to 2.6·10⁻⁸ (cylinder) and 2.7·10⁻⁷ (cone) of a
/// unit size in `f64` (measured by the tests; 10⁻¹⁵ on spheres and
/// ellipsoids, 6·10⁻¹² on boxes).
pub const SUPPORT_RAY_MAX_ITERATIONS: usize = 256;

/// A support point of `A − B`: `a − b`, with its two parts.
#[derive(Clone, Copy, Debug)]
struct Parts<N: Real> {
    a: Point3<N>,
    b: Point3<N>,
}

impl<N: Real> Parts<N> {
    fn difference(&self) -> Vector3<N> {
        self.a - self.b
    }
}

/// Where a ray first meets `A − B`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SupportRayHit<N: Real> {
    /// The ray parameter of the hit (`origin + t·dir`).
    pub t: N,
    /// The outward normal of `A − B` at the hit (not normalised; zero
    /// when the origin is already in the set).
    pub normal: Vector3<N>,
    /// The point of `A` and the point of `B` whose difference is the hit
    /// point.
    pub points: [Point3<N>; 2],
}

/// The first point `origin + t·dir`, `0 <= t <= max_t`, of the convex set
/// `A − B` whose support in direction `d` is `support(d) = [a, b]`, `a`
/// the support of `A` along `d` and `b` that of `B` along `−d` (`None`
/// when a support is undefined). An origin inside the set hits at `t = 0`
/// with a zero normal.
///
/// Stops when the ray point is within `√ε / 256` (relative to the
/// simplex's size) of the set, as GJK's distance does, or when the descent
/// stalls at rounding; after [`SUPPORT_RAY_MAX_ITERATIONS`] it answers the last
/// estimate.
pub fn ray_cast_support<N: Real>(
    support: impl Fn(&Vector3<N>) -> Option<[Point3<N>; 2]>,
    origin: &Point3<N>,
    dir: &Vector3<N>,
    max_t: N,
) -> Option<SupportRayHit<N>> {
    let get = |d: &Vector3<N>| support(d).map(|[a, b]| Parts { a, b });
    let tolerance = super::gjk_relative_tolerance::<N>();
    let (mut t, mut x, mut normal) = (N::zero(), origin.coords, Vector3::zeros());
    // Any point of the set starts the descent (a zero `dir` has no
    // support of its own).
    let first = get(&-dir).or_else(|| get(&Vector3::x()))?;
    let mut v = x - first.difference();
    let mut simplex = [first; 4];
    let mut weights = [N::zero(); 4];
    let mut count = 0;
    let mut previous = N::max_value().unwrap_or_else(|| nalgebra::convert(f64::MAX));
    for _ in 0..SUPPORT_RAY_MAX_ITERATIONS {
        let p = get(&v)?;
        let w = x - p.difference();
        let vw = v.dot(&w);
        let advances = vw > N::zero();
        if advances {
            // The plane through `p` normal to `v` separates `x` from the
            // set: move `x` along the ray up to it, or miss when the ray
            // runs parallel to it or away.
            let vr = v.dot(dir);
            if vr >= N::zero() {
                return None;
            }
            t -= vw / vr;
            // (A NaN or infinite step misses too.)
            if t > max_t || !t.is_finite() {
                return None;
            }
            x = origin.coords + dir * t;
            normal = v;
        }
        let repeated = simplex[..count].iter().any(|q| q.difference() == p.difference());
        if repeated && vw <= N::zero() {
            // No new point and no step: the descent has stalled at the
            // rounding of the set's points.
            break;
        }
        if !repeated {
            simplex[count] = p;
            count += 1;
        }
        let vertices: [Vector3<N>; 4] = std::array::from_fn(|i| x - simplex[i].difference());
        let projection = closest_point_on_simplex(&vertices[..count]);
        let size = vertices[..count]
            .iter()
            .map(|w| w.norm_squared())
            .fold(N::zero(), N::max);
        // Keep the vertices that carry weight, with their weights.
        let mut kept = 0;
        for i in 0..count {
            if projection.used & (1 << i) != 0 {
                simplex[kept] = simplex[i];
                weights[kept] = projection.weights[i];
                kept += 1;
            }
        }
        count = kept;
        v = projection.point;
        // A descent that no longer shortens `v` without moving the ray
        // point has stalled at the rounding of the set's points.
        let stalled = !advances && v.norm_squared() >= previous;
        previous = v.norm_squared();
        if count == 4 {
            // The ray point is inside the tetrahedron: on the set's
            // boundary up to rounding (the ray came from outside). Its
            // weights there are ill-conditioned (a flat tetrahedron), so
            // the witnesses come from the face it lies on.
            let faces = [[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]];
            let (face, projection) = faces
                .iter()
                .map(|f| (f, closest_point_on_simplex(&f.map(|i| vertices[i]))))
                .reduce(|best, next| {
                    if next.1.point.norm_squared() < best.1.point.norm_squared() {
                        next
                    } else {
                        best
                    }
                })
                .expect("four faces");
            let corners = face.map(|i| simplex[i]);
            simplex[..3].copy_from_slice(&corners);
            weights[..3].copy_from_slice(&projection.weights[..3]);
            count = 3;
            break;
        }
        if stalled || v.norm_squared() <= tolerance * tolerance * size {
            break;
        }
    }
    let witness = |part: fn(&Parts<N>) -> Point3<N>| {
        Point3::from(
            simplex[..count]
                .iter()
                .zip(&weights)
                .fold(Vector3::zeros(), |sum, (p, w)| sum + part(p).coords * *w),
        )
    };
    Some(SupportRayHit {
        t,
        normal,
        points: [witness(|p| p.a), witness(|p| p.b)],
    })
}

/// The ray from `origin` along `dir` cast back at a convex `shape` (at the
/// identity) from beyond its local box: where the ray last leaves the
/// shape, for an origin inside it. Answers `(far, beyond, hit)`: the far
/// start `origin + beyond·dir`, `beyond` itself, and the hit of the cast
/// from there along `−dir` (the exit is at `t = beyond − hit.t`, the
/// outward normal `hit.normal`).
pub(crate) fn cast_back_from_beyond<N: Real, S: Shape<N> + ?Sized>(
    shape: &S,
    origin: &Point3<N>,
    dir: &Vector3<N>,
) -> Option<(Point3<N>, N, SupportRayHit<N>)> {
    let support = |d: &Vector3<N>| Some([shape.support_local(d)?, Point3::origin()]);
    let reach = shape.local_aabb().origin_reach() + origin.coords.norm();
    let beyond = (reach + reach + N::one()) / dir.norm();
    let far = origin + dir * beyond;
    let hit = ray_cast_support(support, &far, &-dir, beyond)?;
    Some((far, beyond, hit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestRng;
    use crate::{Cone, Cuboid, Cylinder, Ellipsoid, Sphere};
    use geom_core::{Ray, Shape, ShapeKind};

    /// Against each primitive's exact ray cast: hit or miss alike, the hit
    /// never past the exact one, within 10⁻⁶ of the surface and the
    /// witness within 10⁻⁶ of the hit point (the stalls on rims, see
    /// [`SUPPORT_RAY_MAX_ITERATIONS`]).
    #[test]
    fn support_ray_casts_match_the_exact_ray_casts() {
        let shapes: Vec<Box<dyn Shape<f64>>> = vec![
            Box::new(Sphere::new(0.8)),
            Box::new(Cuboid::new(Vector3::new(0.9, 0.4, 0.6))),
            Box::new(Cylinder::from_points(
                Point3::new(0.1, -0.7, 0.0),
                Point3::new(-0.2, 0.6, 0.3),
                0.5,
            )),
            Box::new(Cone::from_points(
                Point3::new(0.0, 0.9, 0.1),
                Point3::new(0.1, -0.6, 0.0),
                0.6,
            )),
            Box::new(Ellipsoid::new(Vector3::new(1.1, 0.5, 0.7))),
        ];
        let mut rng = TestRng::new(3);
        let (mut hits, mut compared) = (0, 0);
        for shape in &shapes {
            for _ in 0..2000 {
                let origin = Point3::from(rng.vector(1.0).normalize() * rng.uniform(2.0, 4.0));
                let target = Point3::new(
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                );
                let dir = (target - origin) * rng.uniform(0.5, 2.0);
                let exact = shape.ray_cast_local(&Ray::new(origin, dir), f64::MAX, true);
                let cast = ray_cast_support(
                    |d| Some([shape.support_local(d)?, Point3::origin()]),
                    &origin,
                    &dir,
                    f64::MAX,
                );
                let reach = 4.0 / dir.norm();
                match (exact, cast) {
                    (Some(exact), Some(cast)) => {
                        // The cast stops outside the set, within
                        // `√ε / 256` of the simplex's size of it: never
                        // past the exact hit, and its point that close to
                        // the surface (along the ray a grazing hit may be
                        // farther off).
                        let at = origin + dir * cast.t;
                        let gap = (shape.closest_point_local(&at, false).unwrap().point - at).norm();
                        assert!(
                            cast.t <= exact.t + 1e-12 * reach,
                            "{:?}: {} past {}",
                            shape.kind(),
                            cast.t,
                            exact.t
                        );
                        assert!(
                            gap <= 1e-6,
                            "{:?}: {gap} off the surface ({} vs {})",
                            shape.kind(),
                            cast.t,
                            exact.t
                        );
                        assert!(
                            (cast.points[0] - at).norm() <= 1e-6,
                            "{:?}: witness {:?} vs {at:?}",
                            shape.kind(),
                            cast.points[0]
                        );
                        // Smooth surfaces: the normal too (edges and rims
                        // have a cone of normals).
                        if matches!(shape.kind(), ShapeKind::Sphere | ShapeKind::Ellipsoid) {
                            assert!(cast.normal.normalize().dot(&exact.normal) > 1.0 - 1e-6);
                        }
                        hits += 1;
                    }
                    (None, None) => {}
                    (exact, cast) => panic!("{:?}: exact {exact:?}, support cast {cast:?}", shape.kind()),
                }
                compared += 1;
            }
        }
        assert!(hits > compared / 4, "{hits} hits of {compared}");
    }

    /// An origin inside the set hits at once, with a zero normal.
    #[test]
    fn an_origin_inside_hits_at_zero() {
        let sphere = Sphere::new(1.0);
        let cast = ray_cast_support(
            |d| Some([sphere.support_local(d)?, Point3::origin()]),
            &Point3::new(0.2, 0.1, -0.3),
            &Vector3::x(),
            10.0,
        )
        .unwrap();
        assert_eq!(cast.t, 0.0);
        assert_eq!(cast.normal, Vector3::zeros());
        // Beyond `max_t` it misses.
        let far = ray_cast_support(
            |d| Some([sphere.support_local(d)?, Point3::origin()]),
            &Point3::new(-5.0, 0.0, 0.0),
            &Vector3::x(),
            3.0,
        );
        assert!(far.is_none());
    }
}
