//! The double-double reference path: every shape's kernels run at
//! `N = DoubleDouble`, agree with `f64` to `f64` accuracy, and their ray
//! casts agree to double-double accuracy with a brute-force evaluation
//! (bisection in double-double on the shape's implicit inside test, which
//! shares no code with the kernels).

use geom::prelude::*;
use geom::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, HalfSpace, Segment, Triangle};
use geom_core::DoubleDouble;
use geom_random::Rng;
use nalgebra::{Quaternion, RealField, Unit};

type Dd = DoubleDouble;

/// A random point within `scale` of the origin, on the f32 grid.
fn point(rng: &mut Rng, scale: f64) -> Point3<f64> {
    Point3::from(rng.direction() * scale).map(|c| c as f32 as f64)
}

fn dd(x: f64) -> Dd {
    Dd::from_f64(x)
}

fn dd_point(p: &Point3<f64>) -> Point3<Dd> {
    p.map(dd)
}

/// A shape in its local frame (identity pose), every number exact in f32.
#[derive(Clone, Debug)]
enum Local {
    Sphere(f64),
    Capsule(Point3<f64>, Point3<f64>, f64),
    Cylinder(Point3<f64>, Point3<f64>, f64),
    Cone(Point3<f64>, Point3<f64>, f64),
    Ellipsoid(Vector3<f64>),
    Cuboid(Vector3<f64>),
    HalfSpace(Vector3<f64>, f64),
}

impl Local {
    fn random(kind: usize, rng: &mut Rng) -> Local {
        let r = |rng: &mut Rng| rng.range(0.2, 1.0) as f32 as f64;
        match kind {
            0 => Local::Sphere(r(rng)),
            1 => Local::Capsule(point(rng, 0.8), point(rng, 0.8), r(rng) * 0.5),
            2 => Local::Cylinder(point(rng, 0.8), point(rng, 0.8), r(rng) * 0.5),
            3 => Local::Cone(point(rng, 0.8), point(rng, 0.8), r(rng)),
            4 => Local::Ellipsoid(Vector3::new(r(rng), r(rng), r(rng))),
            5 => Local::Cuboid(Vector3::new(r(rng), r(rng), r(rng))),
            _ => Local::HalfSpace(point(rng, 1.0).coords, rng.range(-0.5, 0.5) as f32 as f64),
        }
    }

    fn build<N: Real>(&self) -> Box<dyn Shape<N>> {
        let s = nalgebra::convert::<f64, N>;
        let p = |p: &Point3<f64>| p.map(s);
        let v = |v: &Vector3<f64>| v.map(s);
        match self {
            Local::Sphere(r) => Box::new(Sphere::new(s(*r))),
            Local::Capsule(a, b, r) => Box::new(Capsule::from_points(p(a), p(b), s(*r))),
            Local::Cylinder(a, b, r) => Box::new(Cylinder::from_points(p(a), p(b), s(*r))),
            Local::Cone(a, b, r) => Box::new(Cone::from_points(p(a), p(b), s(*r))),
            Local::Ellipsoid(radii) => Box::new(Ellipsoid::new(v(radii))),
            Local::Cuboid(half) => Box::new(Cuboid::new(v(half))),
            Local::HalfSpace(n, d) => Box::new(HalfSpace::new(v(n), s(*d))),
        }
    }

    /// Positive outside, `<= 0` inside: the textbook inside tests, written
    /// independently of the kernels (a sign, not a distance).
    fn inside_test(&self, q: &Point3<Dd>) -> Dd {
        let zero = dd(0.0);
        let max3 = |a: Dd, b: Dd, c: Dd| RealField::max(RealField::max(a, b), c);
        match self {
            Local::Sphere(r) => q.coords.norm_squared() - dd(*r) * dd(*r),
            Local::Capsule(a, b, r) => {
                let (a, b) = (dd_point(a), dd_point(b));
                let axis = b - a;
                let s = RealField::clamp((q - a).dot(&axis) / axis.norm_squared(), zero, dd(1.0));
                (q - (a + axis * s)).norm_squared() - dd(*r) * dd(*r)
            }
            Local::Cylinder(a, b, r) => {
                let (a, b) = (dd_point(a), dd_point(b));
                let axis = b - a;
                let s = (q - a).dot(&axis) / axis.norm_squared();
                let radial = (q - a - axis * s).norm_squared() - dd(*r) * dd(*r);
                max3(radial, -s, s - dd(1.0))
            }
            Local::Cone(apex, base, r) => {
                let (apex, base) = (dd_point(apex), dd_point(base));
                let axis = base - apex;
                let s = (q - apex).dot(&axis) / axis.norm_squared();
                let radial = (q - apex - axis * s).norm() - dd(*r) * s;
                max3(radial, -s, s - dd(1.0))
            }
            Local::Ellipsoid(radii) => {
                let scaled = q.coords.component_div(&radii.map(dd));
                scaled.norm_squared() - dd(1.0)
            }
            Local::Cuboid(half) => {
                let excess = q.coords.abs() - half.map(dd);
                max3(excess.x, excess.y, excess.z)
            }
            Local::HalfSpace(n, d) => n.map(dd).dot(&q.coords) - dd(*d),
        }
    }
}

/// One shape at f64 and at double-double, and where it is placed.
type ShapePair = (Box<dyn Shape<f64>>, Box<dyn Shape<Dd>>, Point3<f64>);

fn to_f64(x: Dd) -> f64 {
    x.to_f64()
}

#[test]
fn every_shape_runs_at_double_double_and_agrees_with_f64() {
    let mut rng = Rng::from_state(0xDD_0001);
    let shapes = |rng: &mut Rng| -> Vec<ShapePair> {
        let a = point(rng, 1.0);
        let b = point(rng, 1.0);
        let c = point(rng, 1.0);
        let center = Point3::new(3.0, -2.0, 1.0);
        let mut all: Vec<ShapePair> = (0..7)
            .map(|kind| {
                let shape = Local::random(kind, rng);
                (shape.build::<f64>(), shape.build::<Dd>(), Point3::origin())
            })
            .collect();
        all.push((
            Box::new(Triangle::new(a, b, c)),
            Box::new(Triangle::new(dd_point(&a), dd_point(&b), dd_point(&c))),
            Point3::origin(),
        ));
        all.push((
            Box::new(Segment::new(a, b)),
            Box::new(Segment::new(dd_point(&a), dd_point(&b))),
            Point3::origin(),
        ));
        // A translated, rotated pose goes through the pose code too.
        all.push((
            Box::new(Ellipsoid::new(Vector3::new(1.0, 0.5, 0.25))),
            Box::new(Ellipsoid::new(Vector3::new(dd(1.0), dd(0.5), dd(0.25)))),
            center,
        ));
        all
    };
    let rotation = Unit::new_normalize(Quaternion::new(0.8, 0.1, -0.3, 0.5));
    let mut hits = 0;
    for _ in 0..60 {
        for (s64, sdd, center) in shapes(&mut rng) {
            let pose64 = Isometry3::from_parts(Translation3::from(center.coords), rotation);
            let pose_dd = Isometry3::from_parts(
                Translation3::from(center.coords.map(dd)),
                Unit::new_normalize(Quaternion::from(rotation.quaternion().coords.map(dd))),
            );
            let origin = center + rng.direction() * 4.0;
            let dir = (center + rng.direction() * 0.6) - origin;
            let h64 = s64.ray_cast(&pose64, &Ray::new(origin, dir), f64::INFINITY, true);
            let hdd = sdd.ray_cast(
                &pose_dd,
                &Ray::new(dd_point(&origin), dir.map(dd)),
                dd(f64::INFINITY),
                true,
            );
            match (h64, hdd) {
                (Some(a), Some(b)) => {
                    hits += 1;
                    assert!(
                        (a.t - to_f64(b.t)).abs() <= 1e-12 * a.t,
                        "{s64:?}: {a:?} vs {b:?}"
                    );
                    assert!(
                        (a.normal - b.normal.map(to_f64)).norm() <= 1e-9,
                        "{s64:?}: {a:?} vs {b:?}"
                    );
                }
                (None, None) => {}
                (a, b) => panic!("{s64:?}: f64 {a:?}, double-double {b:?}"),
            }
            let query = center + rng.direction() * rng.range(0.0, 3.0);
            let c64 = s64.closest_point(&pose64, &query, false).unwrap();
            let cdd = sdd.closest_point(&pose_dd, &dd_point(&query), false).unwrap();
            assert_eq!(c64.is_inside, cdd.is_inside, "{s64:?} at {query:?}");
            assert!(
                (c64.point - cdd.point.map(to_f64)).norm() <= 1e-12,
                "{s64:?}: {c64:?} vs {cdd:?}"
            );
        }
    }
    assert!(hits > 200, "only {hits} hits");
}

#[test]
fn double_double_ray_casts_agree_with_bisection() {
    let mut rng = Rng::from_state(0xB15EC7);
    let mut checked = 0;
    for case in 0..700 {
        let kind = case % 7;
        let shape = Local::random(kind, &mut rng);
        let sdd = shape.build::<Dd>();
        // Origins far away as well as near, so the restarts are exercised.
        let distance = if case % 2 == 0 {
            rng.range(2.0, 6.0)
        } else {
            10f64.powf(rng.range(3.0, 6.0))
        };
        let origin = point(&mut rng, distance);
        let target = point(&mut rng, 0.6);
        let dir = (target - origin).map(|c| c as f32 as f64);
        let (origin_dd, dir_dd) = (dd_point(&origin), dir.map(dd));
        let at = |t: Dd| origin_dd + dir_dd * t;
        if shape.inside_test(&origin_dd) <= dd(0.0) {
            continue;
        }
        let hit = sdd.ray_cast_local(&Ray::new(origin_dd, dir_dd), dd(f64::INFINITY), true);
        let Some(hit) = hit else {
            // A miss: no sample along the ray near the shape is inside.
            for i in 0..=2000 {
                let t = dd(0.9 + 0.2 * i as f64 / 2000.0);
                assert!(
                    shape.inside_test(&at(t)) > dd(0.0),
                    "{shape:?}: missed an inside point at t = {t}"
                );
            }
            continue;
        };
        // Bracket the kernel's answer by a relative 1e-12 and bisect to the
        // crossing; a grazing hit whose bracket does not close is skipped.
        let delta = hit.t * dd(1e-12);
        let (mut lo, mut hi) = (hit.t - delta, hit.t + delta);
        if shape.inside_test(&at(lo)) <= dd(0.0) {
            panic!("{shape:?}: inside before the reported hit t = {}", hit.t);
        }
        if shape.inside_test(&at(hi)) > dd(0.0) {
            let grazing = hit.normal.dot(&dir_dd).abs() / dir_dd.norm();
            assert!(
                grazing < dd(1e-3),
                "{shape:?}: not inside just after t = {}",
                hit.t
            );
            continue;
        }
        for _ in 0..130 {
            let mid = (lo + hi) * dd(0.5);
            if shape.inside_test(&at(mid)) > dd(0.0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // Agreement to ~1e-27 of the distance travelled: 50 bits past f64.
        let error = ((hi - hit.t) / hit.t).abs().to_f64();
        assert!(
            error < 1e-27,
            "{shape:?}: t = {} vs bisection {hi}, relative {error:e}",
            hit.t
        );
        // Nothing inside on the way in (the shapes are convex).
        for i in 0..64 {
            let t = lo * dd(i as f64 / 64.0);
            assert!(
                shape.inside_test(&at(t)) > dd(0.0),
                "{shape:?}: inside at t = {t} before {}",
                hit.t
            );
        }
        checked += 1;
    }
    assert!(checked > 250, "only {checked} hits checked");
}
