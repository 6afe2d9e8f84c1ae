//! Sweeps against convex primitives that have no exact sweep (boxes,
//! cylinders, cones): conservative advancement over the default
//! dispatcher's GJK distances, checked against bisection on each target's
//! own point distance (`Shape::distance`, independent of GJK).

use geom::prelude::*;
use geom::terrain::sweep_shape;

/// A small xorshift generator.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn direction(&mut self) -> Vector3<f64> {
        loop {
            let v = Vector3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if v.norm() > 0.1 && v.norm() < 1.0 {
                return v.normalize();
            }
        }
    }
}

/// The first time in [0, 1] at which the sphere centre moving along
/// `motion` comes within `radius` of `target`, by scanning then bisecting
/// on the target's signed point distance.
fn reference_toi(
    target: &dyn Shape<f64>,
    pose: &Isometry3<f64>,
    start: &Point3<f64>,
    motion: &Vector3<f64>,
    radius: f64,
) -> Option<f64> {
    let gap = |t: f64| target.distance(pose, &(start + motion * t)).unwrap() - radius;
    let steps = 4000;
    let mut previous = 0.0;
    for k in 1..=steps {
        let t = k as f64 / steps as f64;
        if gap(t) <= 0.0 {
            let (mut lo, mut hi) = (previous, t);
            for _ in 0..80 {
                let mid = 0.5 * (lo + hi);
                if gap(mid) <= 0.0 { hi = mid } else { lo = mid }
            }
            return Some(hi);
        }
        previous = t;
    }
    None
}

#[test]
fn sphere_sweeps_against_boxes_cylinders_and_cones_match_bisection() {
    let table = geom::default_dispatcher::<f64>();
    let targets: Vec<Box<dyn Shape<f64>>> = vec![
        Box::new(Cuboid::new(Vector3::new(1.0, 0.5, 0.75))),
        Box::new(Cylinder::from_points(
            Point3::new(0.0, -0.8, 0.0),
            Point3::new(0.0, 0.8, 0.0),
            0.6,
        )),
        Box::new(Cone::from_points(
            Point3::new(0.0, 0.9, 0.0),
            Point3::new(0.0, -0.7, 0.0),
            0.8,
        )),
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut compared, mut worst) = (0, 0.0f64);
    for target in &targets {
        for _ in 0..150 {
            let rotation = UnitQuaternion::from_scaled_axis(rng.direction() * rng.range(0.0, 3.0));
            let pose = Isometry3::from_parts(Translation3::new(1.0, -2.0, 0.5), rotation);
            let radius = rng.range(0.1, 0.5);
            let start = pose * Point3::from(rng.direction() * 4.0);
            // Aim near the target's centre, sometimes past it.
            let aim = pose * Point3::from(rng.direction() * rng.range(0.0, 1.5));
            let motion = (aim - start) * 1.3;
            let sphere = Sphere::new(radius);
            let sphere_pose = Isometry3::translation(start.x, start.y, start.z);
            let hit = sweep_shape(&sphere, &sphere_pose, &motion, target.as_ref(), &pose, &table).unwrap();
            let expected = reference_toi(target.as_ref(), &pose, &start, &motion, radius);
            match (hit, expected) {
                (Some(hit), Some(toi)) => {
                    // Conservative: never past the contact, and within the
                    // advancement's stated tolerance (√ε of the scene) before it.
                    let error = (hit.toi - toi) * motion.norm();
                    assert!(
                        error <= 1e-9,
                        "{:?}: stopped {error} past the contact",
                        target.kind()
                    );
                    assert!(error >= -1e-6, "{:?}: stopped {error} early", target.kind());
                    worst = worst.max(error.abs());
                    compared += 1;
                }
                (None, None) => {}
                (Some(hit), None) => {
                    // Only a graze the scan could miss: the path passes within rounding.
                    let closest = (0..=4000)
                        .map(|k| {
                            target
                                .distance(&pose, &(start + motion * (k as f64 / 4000.0)))
                                .unwrap()
                        })
                        .fold(f64::INFINITY, f64::min);
                    assert!(
                        closest - radius < 1e-3,
                        "{:?}: hit at {} but never within reach",
                        target.kind(),
                        hit.toi
                    );
                }
                (None, Some(toi)) => panic!("{:?}: missed a contact at {toi}", target.kind()),
            }
        }
    }
    assert!(compared > 200, "only {compared} hits compared");
    eprintln!("worst |toi error|·|motion| = {worst:e} over {compared} hits");
}
