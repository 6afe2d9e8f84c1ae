//! Running the dispatcher's pair queries and checking each answer against
//! the oracle.

use std::collections::BTreeMap;

use geom::prelude::*;
use nalgebra::RealField;

use super::cases::{Held, Local, Rng, Spec, exact_vector, f32_exact, local_shape, random_rotation};
use super::oracle::{Body, forced_normal, separation_bodies as separation, signed_distance_bodies};

/// One random pair: `a`, `b`, the margin, and the oracle's signed distance.
pub struct Case {
    pub a: Spec,
    pub b: Spec,
    pub margin: f64,
    pub category: &'static str,
    pub sigma: f64,
}

/// `b`'s local shape and rotation placed so that the oracle's signed
/// distance to `a` is about `gap`: start apart along a random direction,
/// then move along the oracle's best direction by what is missing (each
/// step moves every separation by at most the step, the best one by
/// exactly it).
fn place(
    rng: &mut Rng,
    a: &Spec,
    local: Local,
    rotation: UnitQuaternion<f64>,
    gap: f64,
    samples: &[Vector3<f64>],
) -> (Spec, f64) {
    let body_a = a.body();
    let mut b = Spec {
        local,
        rotation,
        translation: Vector3::zeros(),
    };
    let reach_b = b.body().bounding_radius();
    let reach_a = body_a.bounding_radius();
    let start = if reach_a.is_finite() {
        body_a.center().coords + rng.direction() * (reach_a + if reach_b.is_finite() { reach_b } else { 0.0 })
    } else {
        body_a.center().coords + rng.direction() * reach_b.min(1.0)
    };
    b.translation = exact_vector(start);
    let scale = body_a.scale().max(b.body().scale());
    for step in 0..6 {
        let (s, direction) = signed_distance_bodies(&body_a, &b.body(), &[], samples);
        if (s - gap).abs() <= 1e-7 * scale || step == 5 {
            return (b, s);
        }
        b.translation = exact_vector(b.translation + direction * (gap - s));
    }
    unreachable!("the loop returns at its last step")
}

/// A random case for kinds `kind_a`, `kind_b`; the category cycles with
/// `index`.
pub fn random_case(
    rng: &mut Rng,
    kind_a: usize,
    kind_b: usize,
    index: usize,
    samples: &[Vector3<f64>],
) -> Case {
    let categories = ["overlap", "touching", "grazing", "near", "beyond", "far", "sizes"];
    let category = categories[index % categories.len()];
    let size = rng.log_range(-1.0, 1.0);
    let (size_a, size_b) = if category == "sizes" {
        let ratio = rng.log_range(1.0, 2.0);
        if rng.unit() < 0.5 {
            (size * ratio, size / ratio)
        } else {
            (size / ratio, size * ratio)
        }
    } else {
        (size, size)
    };
    let far = if category == "far" {
        exact_vector(rng.direction() * size * rng.log_range(3.0, 5.0))
    } else {
        exact_vector(rng.direction() * size * rng.range(0.0, 2.0))
    };
    let a = Spec {
        local: local_shape(rng, kind_a, size_a),
        rotation: random_rotation(rng),
        translation: far,
    };
    let small = size_a.min(size_b);
    let (gap, margin) = match category {
        "overlap" => (-small * rng.range(0.05, 0.6), [0.0, 0.3 * small][rng.below(2)]),
        "touching" => (0.0, [0.0, 0.3 * small][rng.below(2)]),
        "grazing" => (
            small * 1e-6 * [1.0, -1.0][rng.below(2)],
            [0.0, 0.3 * small][rng.below(2)],
        ),
        "near" => (small * rng.range(0.01, 0.5), 0.6 * small),
        "beyond" => (small * rng.range(0.7, 2.0), 0.6 * small),
        _ => (small * rng.range(-0.5, 0.5), 0.3 * small),
    };
    let local_b = local_shape(rng, kind_b, size_b);
    let rotation_b = random_rotation(rng);
    let (b, sigma) = place(rng, &a, local_b, rotation_b, gap, samples);
    Case {
        a,
        b,
        margin: f32_exact(margin),
        category,
        sigma,
    }
}

/// What the dispatcher answered, in `f64`.
/// A manifold's normal and points, in `f64`.
pub type Manifold = (Vector3<f64>, Vec<ContactPoint<f64>>);

pub struct Answers {
    pub contact: Result<Vec<Manifold>, GeomError>,
    pub closest_within_margin: Result<ClosestPoints<f64>, GeomError>,
    pub closest_unlimited: Result<ClosestPoints<f64>, GeomError>,
    pub distance: Result<f64, GeomError>,
    pub intersects: Result<bool, GeomError>,
}

fn point64<N: geom::Real + Into<f64>>(p: &Point3<N>) -> Point3<f64> {
    p.map(|c| c.into())
}

fn closest64<N: geom::Real + Into<f64>>(answer: ClosestPoints<N>) -> ClosestPoints<f64> {
    match answer {
        ClosestPoints::Intersecting => ClosestPoints::Intersecting,
        ClosestPoints::Disjoint => ClosestPoints::Disjoint,
        ClosestPoints::WithinMargin { point_a, point_b } => ClosestPoints::WithinMargin {
            point_a: point64(&point_a),
            point_b: point64(&point_b),
        },
    }
}

impl Answers {
    pub fn run<N: RealField + Copy + geom::Real + Into<f64>>(
        table: &DispatchTable<N>,
        a: &Spec,
        b: &Spec,
        margin: f64,
    ) -> Answers {
        let (shape_a, pose_a) = a.build::<N>();
        let (shape_b, pose_b) = b.build::<N>();
        let (sa, sb) = (shape_a.as_dyn(), shape_b.as_dyn());
        let margin_n = nalgebra::convert::<f64, N>(margin);
        let mut out = ContactManifolds::new();
        let contact = table
            .contact(sa, &pose_a, sb, &pose_b, margin_n, &mut out)
            .map(|()| {
                out.as_slice()
                    .iter()
                    .map(|m| {
                        (
                            m.normal.map(|c| c.into()),
                            m.points
                                .iter()
                                .map(|p| ContactPoint {
                                    point_a: point64(&p.point_a),
                                    point_b: point64(&p.point_b),
                                    depth: p.depth.into(),
                                    feature_a: p.feature_a,
                                    feature_b: p.feature_b,
                                })
                                .collect(),
                        )
                    })
                    .collect()
            });
        Answers {
            contact,
            closest_within_margin: table
                .closest_points(sa, &pose_a, sb, &pose_b, margin_n)
                .map(closest64),
            closest_unlimited: table
                .closest_points(sa, &pose_a, sb, &pose_b, nalgebra::convert(f64::INFINITY))
                .map(closest64),
            distance: table.distance(sa, &pose_a, sb, &pose_b).map(|d| d.into()),
            intersects: table.intersects(sa, &pose_a, sb, &pose_b),
        }
    }
}

/// The tolerances of one precision at one scale.
pub struct Tolerance {
    /// Lengths: depths, distances, points on surfaces.
    pub length: f64,
    /// `| |n| − 1 |`.
    pub unit: f64,
    /// The precision's ε.
    pub epsilon: f64,
    /// The scale of the case.
    pub scale: f64,
}

impl Tolerance {
    /// `f64`: 1e-9 of the scale; `f32`: 16 ε of it.
    pub fn new(precision: &str, scale: f64) -> Tolerance {
        if precision == "f64" {
            Tolerance {
                length: 1e-9 * scale,
                unit: 16.0 * f64::EPSILON,
                epsilon: f64::EPSILON,
                scale,
            }
        } else {
            Tolerance {
                length: 16.0 * f32::EPSILON as f64 * scale,
                unit: 16.0 * f32::EPSILON as f64,
                epsilon: f32::EPSILON as f64,
                scale,
            }
        }
    }
}

/// The two shapes in `f64` at their exact poses, to measure how far a
/// reported point lies from each (geom's point queries).
pub struct CheckShapes {
    a: (Held<f64>, Isometry3<f64>),
    b: (Held<f64>, Isometry3<f64>),
}

impl CheckShapes {
    pub fn new(a: &Spec, b: &Spec) -> CheckShapes {
        CheckShapes {
            a: a.build::<f64>(),
            b: b.build::<f64>(),
        }
    }

    fn off(shape: &(Held<f64>, Isometry3<f64>), p: &Point3<f64>) -> f64 {
        shape
            .0
            .as_dyn()
            .distance(&shape.1, p)
            .map_or(f64::INFINITY, f64::abs)
    }

    pub fn off_a(&self, p: &Point3<f64>) -> f64 {
        Self::off(&self.a, p)
    }

    pub fn off_b(&self, p: &Point3<f64>) -> f64 {
        Self::off(&self.b, p)
    }
}

/// Failures by pair and query, with the first few messages of each.
#[derive(Default)]
pub struct Report {
    checked: BTreeMap<String, usize>,
    failed: BTreeMap<String, (usize, Vec<String>)>,
}

impl Report {
    pub fn check(&mut self, key: &str, result: Result<(), String>) {
        *self.checked.entry(key.to_string()).or_default() += 1;
        if let Err(message) = result {
            let entry = self.failed.entry(key.to_string()).or_default();
            entry.0 += 1;
            if entry.1.len() < 2 || std::env::var_os("GEOM_ORACLE_ALL").is_some() {
                entry.1.push(message);
            }
        }
    }

    pub fn finish(self) {
        let total: usize = self.checked.values().sum();
        let failed: usize = self.failed.values().map(|f| f.0).sum();
        for (key, (count, messages)) in &self.failed {
            println!("{key}: {count} of {} failed", self.checked[key]);
            for message in messages {
                println!("    {message}");
            }
        }
        println!("{failed} of {total} checks failed");
        assert_eq!(failed, 0, "{failed} of {total} checks failed (listed above)");
    }
}

/// The key a failure is counted under: the pair without the case details.
fn key(label: &str, query: &str) -> String {
    let pair = label.split(' ').next().unwrap_or(label);
    let precision = if label.ends_with("f32") { "f32" } else { "f64" };
    format!("{pair} {query} {precision}")
}

#[allow(clippy::too_many_arguments)]
pub fn check_answers(
    report: &mut Report,
    label: &str,
    answers: &Answers,
    shapes: &CheckShapes,
    a: &Body,
    b: &Body,
    sigma: f64,
    margin: f64,
    tol: &Tolerance,
    samples: &[Vector3<f64>],
) {
    let _ = samples;
    let t = tol.length;
    let fail = |what: String| Err(format!("{label}: {what}"));

    // Contact.
    let result = match &answers.contact {
        Err(error) => fail(format!("contact error {error:?}")),
        Ok(manifolds) if manifolds.iter().all(|m| m.1.is_empty()) => {
            if sigma <= margin - t {
                fail(format!(
                    "no contact, but apart by only {sigma:e} (margin {margin:e})"
                ))
            } else {
                Ok(())
            }
        }
        Ok(manifolds) => (|| {
            let mut deepest = f64::NEG_INFINITY;
            for (normal, points) in manifolds {
                if (normal.norm() - 1.0).abs() > tol.unit {
                    return fail(format!("normal {normal:?} not unit"));
                }
                if let Some(forced) = forced_normal(a, b)
                    && (normal - forced).norm() > 4.0 * tol.unit
                {
                    return fail(format!("normal {normal:?} is not the half-space's {forced:?}"));
                }
                let overlap = -separation(a, b, normal);
                let mut manifold_deepest = f64::NEG_INFINITY;
                for p in points {
                    if p.depth < -margin - t {
                        return fail(format!("depth {:e} beyond the margin {margin:e}", p.depth));
                    }
                    let (off_a, off_b) = (shapes.off_a(&p.point_a), shapes.off_b(&p.point_b));
                    if off_a > t || off_b > t {
                        return fail(format!(
                            "points off their shapes by {off_a:e} (a) and {off_b:e} (b): {p:?}"
                        ));
                    }
                    let mismatch = ((p.point_a - p.point_b) - normal * p.depth).norm();
                    if mismatch > t {
                        return fail(format!(
                            "point_a − point_b is not depth·normal (off by {mismatch:e}): {p:?}, normal {normal:?}"
                        ));
                    }
                    manifold_deepest = manifold_deepest.max(p.depth);
                }
                // A normal taken from two points `|depth|` apart is only
                // known to `ε·scale/|depth|` of an angle (the points' own
                // rounding), and the overlap along it moves by that times
                // the shapes' reach: grazing contacts are ill-conditioned.
                let reach = a.bounding_radius().min(1e300) + b.bounding_radius().min(1e300);
                let normal_noise = (tol.epsilon * 64.0 * tol.scale / manifold_deepest.abs()).min(1.0);
                if (manifold_deepest - overlap).abs() > t + normal_noise * reach {
                    return fail(format!(
                        "deepest point {manifold_deepest:e} but the shapes overlap by {overlap:e} along the normal {normal:?}"
                    ));
                }
                deepest = deepest.max(manifold_deepest);
            }
            if deepest > -sigma + t {
                return fail(format!(
                    "depth {deepest:e} where a shallower way out exists (oracle depth {:e})",
                    -sigma
                ));
            }
            if sigma > margin + t {
                return fail(format!(
                    "contact reported, but apart by {sigma:e} > margin {margin:e}"
                ));
            }
            Ok(())
        })(),
    };
    report.check(&key(label, "contact"), result);

    // Closest points, within the margin and unlimited.
    let check_closest = |answer: &Result<ClosestPoints<f64>, GeomError>, max_distance: f64| match answer {
        Err(error) => fail(format!("closest_points error {error:?}")),
        Ok(ClosestPoints::Intersecting) => {
            if sigma > t {
                fail(format!("Intersecting, but apart by {sigma:e}"))
            } else {
                Ok(())
            }
        }
        Ok(ClosestPoints::Disjoint) => {
            if sigma < max_distance - t {
                fail(format!(
                    "Disjoint, but apart by only {sigma:e} (limit {max_distance:e})"
                ))
            } else {
                Ok(())
            }
        }
        Ok(ClosestPoints::WithinMargin { point_a, point_b }) => {
            let (off_a, off_b) = (shapes.off_a(point_a), shapes.off_b(point_b));
            let between = point_b - point_a;
            let distance = between.norm();
            let proven = if distance > 0.0 {
                sigma.max(separation(a, b, &between))
            } else {
                sigma
            };
            if off_a > t || off_b > t {
                fail(format!(
                    "closest points off their shapes by {off_a:e} and {off_b:e}"
                ))
            } else if distance > max_distance + t {
                fail(format!(
                    "closest points {distance:e} apart, beyond the limit {max_distance:e}"
                ))
            } else if distance > proven + t {
                fail(format!(
                    "closest points {distance:e} apart, but the shapes are {proven:e} apart"
                ))
            } else if sigma < -t {
                fail(format!("WithinMargin, but overlapping by {:e}", -sigma))
            } else {
                Ok(())
            }
        }
    };
    report.check(
        &key(label, "closest_points"),
        check_closest(&answers.closest_within_margin, margin),
    );
    report.check(
        &key(label, "closest_points_unlimited"),
        check_closest(&answers.closest_unlimited, f64::INFINITY),
    );

    // Distance, with the unlimited closest points' direction as a proof.
    let proven = match &answers.closest_unlimited {
        Ok(ClosestPoints::WithinMargin { point_a, point_b }) if point_a != point_b => {
            sigma.max(separation(a, b, &(point_b - point_a)))
        }
        _ => sigma,
    };
    let result = match &answers.distance {
        Err(error) => fail(format!("distance error {error:?}")),
        Ok(d) => {
            let d = *d;
            let expected = proven.max(0.0);
            if (d - expected).abs() > t {
                fail(format!("distance {d:e}, oracle {expected:e}"))
            } else {
                Ok(())
            }
        }
    };
    report.check(&key(label, "distance"), result);

    let result = match &answers.intersects {
        Err(error) => fail(format!("intersects error {error:?}")),
        Ok(true) if sigma > t => fail(format!("intersects, but apart by {sigma:e}")),
        Ok(false) if sigma < -t => fail(format!("no intersection, but overlapping by {:e}", -sigma)),
        Ok(_) => Ok(()),
    };
    report.check(&key(label, "intersects"), result);
}
