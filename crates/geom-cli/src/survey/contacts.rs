//! The contact rows of `geom precision`: pairs of shapes through the
//! dispatch table a user calls (`DispatchTable::contact`), at `f32`, `f64`
//! and the double-double reference, each answer's deepest contact against
//! the reference's.
//!
//! A case places `a` (world coordinates or posed, as the ray rows' shapes)
//! and `b` (always posed: a random rotation) along a random direction from
//! `a`'s centre, at the separation where the `f64` answer's deepest depth
//! meets a target (bisection), then rounds `b`'s translation to `f32`, so
//! every precision sees the same geometry:
//!
//! - `generic`: target depth uniform in `[-1.2 margin, 0.3 size]` (some
//!   pairs apart beyond the margin: both precisions must then answer none);
//! - `resting`: target within `1e-4` of the size of touching;
//! - `offset`: `generic` with both shapes `1e4`–`1e6` from the origin.
//!
//! Compared, per precision: the deepest depth (in ulps of the contact
//! point's coordinates: a depth is a difference of positions), the normal
//! of the manifold holding the deepest point (ulps of its largest
//! component) and that point's `point_a`/`point_b` against the nearest
//! reference point (ulps of their coordinates; the worse of the two). A
//! contact found by one side only is wrong unless the exact answer flips
//! within f32 resolution (marginal): the reference depth within 16 f32
//! ulps of `-margin`, or the reference's presence or normal changing when
//! `b` moves by 4 f32 ulps along an axis.

use geom::DispatchTable;
use geom::nalgebra::{Point3, Vector3};
use geom::prelude::*;

use super::cases::{Rng, World, f32x, quaternion};
use super::{Dd, Row, Survey, SurveyOptions, dd, largest, ulp_of, vector_ulps};

/// The pairs surveyed, `(row name, kind of a, kind of b)`: every pair with
/// a routine of its own among the primitives, and one through GJK/EPA.
pub const PAIRS: [(&str, &str, &str); 15] = [
    ("sphere-sphere", "sphere", "sphere"),
    ("sphere-capsule", "sphere", "capsule"),
    ("capsule-capsule", "capsule", "capsule"),
    ("sphere-cuboid", "sphere", "cuboid"),
    ("capsule-cuboid", "capsule", "cuboid"),
    ("cuboid-cuboid", "cuboid", "cuboid"),
    ("sphere-cylinder", "sphere", "cylinder"),
    ("sphere-cone", "sphere", "cone"),
    ("sphere-ellipsoid", "sphere", "ellipsoid"),
    ("halfspace-cuboid", "halfspace", "cuboid"),
    ("halfspace-cylinder", "halfspace", "cylinder"),
    ("triangle-sphere", "triangle", "sphere"),
    ("triangle-capsule", "triangle", "capsule"),
    ("triangle-cuboid", "triangle", "cuboid"),
    ("cylinder-cuboid", "cylinder", "cuboid"),
];

/// Contact categories, in report order.
pub const CONTACT_CATEGORIES: [&str; 3] = ["generic", "resting", "offset"];

/// The rows' names, in report order.
pub const CONTACT_QUERIES: [&str; 3] = ["depth", "c_normal", "c_point"];

/// One contact query: `a` and `b` with the margin, every number exact in
/// `f32`.
#[derive(Clone, Debug)]
pub struct ContactCase {
    /// The first shape.
    pub a: World,
    /// The second shape, posed.
    pub b: World,
    /// The shapes' size.
    pub size: f64,
    /// The contact margin.
    pub margin: f64,
}

/// The dispatch tables of the three precisions, built once per run.
pub struct Tables {
    f32: DispatchTable<f32>,
    f64: DispatchTable<f64>,
    dd: DispatchTable<Dd>,
}

impl Tables {
    /// `geom::default_dispatcher` at each precision.
    pub fn new() -> Self {
        Tables {
            f32: geom::default_dispatcher(),
            f64: geom::default_dispatcher(),
            dd: geom::default_dispatcher(),
        }
    }
}

/// A contact point: its manifold's normal, `point_a`, `point_b`, depth.
type AnswerPoint = (Vector3<Dd>, Point3<Dd>, Point3<Dd>, Dd);

/// A precision's contact answer, in double-double: every point with the
/// normal of its manifold.
#[derive(Clone, Debug)]
struct Answer {
    points: Vec<AnswerPoint>,
    /// An iteration stopped at its cap (GJK/EPA).
    approximate: bool,
}

impl Answer {
    /// The index of the deepest point.
    fn deepest(&self) -> usize {
        (0..self.points.len())
            .reduce(|best, i| {
                if self.points[i].3 > self.points[best].3 {
                    i
                } else {
                    best
                }
            })
            .unwrap_or(0)
    }

    /// The index of the point whose `point_a` is nearest `point`.
    fn nearest(&self, point: &Point3<Dd>) -> usize {
        let distance = |i: usize| largest(&(self.points[i].1 - point)).to_f64();
        (0..self.points.len())
            .reduce(|best, i| if distance(i) < distance(best) { i } else { best })
            .unwrap_or(0)
    }
}

/// The contact of `case` at precision `N`; `None` when there is none (or
/// the table refused the query, which no built-in pair does on these
/// inputs).
fn contact<N: Real + geom::simba::scalar::SubsetOf<Dd>>(
    table: &DispatchTable<N>,
    case: &ContactCase,
    margin: f64,
) -> Option<Answer> {
    let (a, pose_a) = case.a.build::<N>();
    let (b, pose_b) = case.b.build::<N>();
    let mut out = ContactManifolds::new();
    let margin = geom::nalgebra::convert::<f64, N>(margin);
    table.contact(&*a, &pose_a, &*b, &pose_b, margin, &mut out).ok()?;
    let points: Vec<_> = out
        .points()
        .map(|(normal, p)| (normal.map(dd), p.point_a.map(dd), p.point_b.map(dd), dd(p.depth)))
        .collect();
    (!points.is_empty()).then_some(Answer {
        points,
        approximate: out.is_approximate(),
    })
}

/// `b`'s pose centre, moved to `translation`.
fn placed(b: &World, translation: Point3<f64>) -> World {
    match b {
        World::Posed(local, _, q) => World::Posed(local.clone(), translation, *q),
        other => other.clone(),
    }
}

/// A random contact case of `category` for the pair `(kind_a, kind_b)`.
pub fn contact_case(
    kind_a: &str,
    kind_b: &str,
    category: &str,
    rng: &mut Rng,
    table: &DispatchTable<f64>,
) -> ContactCase {
    let size = 1.0;
    let margin = 0.1 * size;
    let center = if category == "offset" {
        Point3::from(rng.direction() * 10f64.powf(rng.range(4.0, 6.0)))
    } else {
        Point3::from(rng.direction() * 2.0)
    };
    let center = center.map(f32x);
    let a = World::random(kind_a, rng, center, size, 1.0);
    // `b` around its own origin (itself posed or not), then placed by a
    // rotation and a translation.
    let local_b = World::random(kind_b, rng, Point3::origin(), size, 1.0);
    let mut direction = rng.direction();
    if let World::HalfSpace(n, _) = &a {
        // Out of the half-space, so that separating the shapes ends the contact.
        if direction.dot(n) < 0.0 {
            direction = -direction;
        }
    }
    let target = if category == "resting" {
        rng.range(-1e-4, 1e-4) * size
    } else {
        rng.range(-1.2 * margin, 0.3 * size)
    };
    let rotation = quaternion(rng);
    let b_at = |s: f64| {
        World::Posed(
            Box::new(local_b.clone()),
            (center + direction * s).map(f32x),
            rotation,
        )
    };
    // The deepest depth at separation `s`, through a margin wide enough
    // to see every separation tried.
    let depth_at = |s: f64| {
        let case = ContactCase {
            a: a.clone(),
            b: b_at(s),
            size,
            margin,
        };
        contact(table, &case, 16.0 * size).map_or(f64::NEG_INFINITY, |answer| {
            answer.points[answer.deepest()].3.to_f64()
        })
    };
    let (mut near, mut far) = (0.0, 8.0 * size);
    let separation = if depth_at(near) <= target || depth_at(far) >= target {
        // Not bracketed (a thin shape whose centres meet shallower than the
        // target): the shapes as they are at the start.
        near
    } else {
        for _ in 0..40 {
            let middle = 0.5 * (near + far);
            if depth_at(middle) > target {
                near = middle;
            } else {
                far = middle;
            }
        }
        0.5 * (near + far)
    };
    ContactCase {
        a,
        b: b_at(separation),
        size,
        margin,
    }
}

/// Whether the exact contact is decided below f32 resolution: the
/// reference deepest depth within 16 f32 ulps of `-margin` (a contact
/// kept or dropped by rounding), or the reference's presence or normal
/// (by more than 1e-3) changing when `b` moves by 4 f32 ulps along an axis.
fn contact_is_marginal(tables: &Tables, case: &ContactCase, reference: Option<&Answer>) -> bool {
    let World::Posed(_, translation, _) = &case.b else {
        return false;
    };
    // The inputs' own resolution: the largest coordinate of either shape
    // (a half-space's offset included).
    let plane_offset = match &case.a {
        World::HalfSpace(n, d) => d.abs() / n.norm(),
        _ => 0.0,
    };
    let scale = translation
        .coords
        .amax()
        .max(case.a.center().coords.amax())
        .max(plane_offset)
        .max(case.size);
    let resolution = 16.0 * crate::precision::f32_ulp_at(scale);
    // The exact deepest depth, through a margin wide enough to see it.
    let wide = contact(&tables.dd, case, 16.0 * case.size);
    if let Some(answer) = &wide {
        let depth = answer.points[answer.deepest()].3.to_f64();
        if (depth + case.margin).abs() <= resolution {
            return true;
        }
    }
    let normal = |answer: &Answer| answer.points[answer.deepest()].0;
    // Steps of the size's resolution, not of the coordinates': far from
    // the origin a step of 4 ulps of the coordinates turns a smooth normal
    // by more than the threshold, and the error that rounding at those
    // coordinates costs f32 is what the offset rows measure.
    let step = 4.0 * crate::precision::f32_ulp_at(case.size);
    (0..3).any(|axis| {
        [-step, step].into_iter().any(|delta| {
            let mut moved_translation = *translation;
            moved_translation[axis] += delta;
            let moved = ContactCase {
                b: placed(&case.b, moved_translation),
                ..case.clone()
            };
            match (contact(&tables.dd, &moved, case.margin), reference) {
                (Some(a), Some(b)) => largest(&(normal(&a) - normal(b))).to_f64() > 1e-3,
                (a, b) => a.is_some() != b.is_some(),
            }
        })
    })
}

/// Errors of one precision's answer against the reference, each as
/// `[depth, normal, point]`: in ulps of `N`, and per unit of `size` (the
/// normal's absolute) for the `max/size` column. The answer's deepest
/// point is compared with the reference point nearest it.
fn errors<N: Real>(answer: &Answer, reference: &Answer, size: f64) -> ([f64; 3], [f64; 3]) {
    let (normal, point_a, point_b, depth) = &answer.points[answer.deepest()];
    let deepest_ref = reference.points[reference.deepest()].3;
    let (normal_ref, point_a_ref, point_b_ref, _) = &reference.points[reference.nearest(point_a)];
    let depth_error = (*depth - deepest_ref).abs().to_f64();
    let ulps = [
        depth_error / ulp_of::<N>(largest(&point_a_ref.coords)),
        vector_ulps::<N>(normal, normal_ref),
        vector_ulps::<N>(&point_a.coords, &point_a_ref.coords)
            .max(vector_ulps::<N>(&point_b.coords, &point_b_ref.coords)),
    ];
    let sizes = [
        depth_error / size,
        largest(&(normal - normal_ref)).to_f64(),
        largest(&(point_a - point_a_ref))
            .to_f64()
            .max(largest(&(point_b - point_b_ref)).to_f64())
            / size,
    ];
    (ulps, sizes)
}

/// Runs the three rows of one pair and category.
pub fn run_contact_rows(
    tables: &Tables,
    pair: (&'static str, &'static str, &'static str),
    category: &'static str,
    options: &SurveyOptions,
    survey: &mut Survey,
    rng: &mut Rng,
) {
    let (name, kind_a, kind_b) = pair;
    let mut rows = CONTACT_QUERIES.map(|query| Row::new(query, name, category, options.cases));
    for _ in 0..options.cases {
        let case = contact_case(kind_a, kind_b, category, rng, &tables.f64);
        let reference = contact(&tables.dd, &case, case.margin);
        if reference.as_ref().is_some_and(|answer| answer.approximate) {
            // GJK/EPA stopped at its iteration cap in double-double: no
            // reference to measure against (none in the published runs).
            survey
                .marginal_cases
                .push(format!("unconverged reference, {category}: {case:?}"));
            continue;
        }
        rows.iter_mut()
            .for_each(|row| row.answered += usize::from(reference.is_some()));
        let mut marginal = None;
        let answers = [
            ("f32", contact(&tables.f32, &case, case.margin)),
            ("f64", contact(&tables.f64, &case, case.margin)),
        ];
        for (precision, answer) in answers {
            let [depth_row, normal_row, point_row] = &mut rows;
            let row_errors = if precision == "f32" {
                [&mut depth_row.f32, &mut normal_row.f32, &mut point_row.f32]
            } else {
                [&mut depth_row.f64, &mut normal_row.f64, &mut point_row.f64]
            };
            match (&answer, &reference) {
                (Some(answer), Some(reference)) => {
                    let (ulps, sizes) = if precision == "f32" {
                        errors::<f32>(answer, reference, case.size)
                    } else {
                        errors::<f64>(answer, reference, case.size)
                    };
                    if ulps.iter().any(|u| *u > 64.0)
                        && *marginal
                            .get_or_insert_with(|| contact_is_marginal(tables, &case, Some(reference)))
                    {
                        row_errors[0].marginal += 1;
                        survey
                            .marginal_cases
                            .push(format!("marginal {precision} contact, {category}: {case:?}"));
                        continue;
                    }
                    for ((errors, ulp), size) in row_errors.into_iter().zip(ulps).zip(sizes) {
                        errors.ulps.push(ulp);
                        errors.sizes.push(size);
                    }
                }
                (None, None) => {}
                _ => {
                    let kind = if *marginal
                        .get_or_insert_with(|| contact_is_marginal(tables, &case, reference.as_ref()))
                    {
                        row_errors[0].marginal += 1;
                        "marginal"
                    } else {
                        row_errors[0].wrong += 1;
                        "WRONG"
                    };
                    survey.marginal_cases.push(format!(
                        "{kind} {precision} contact found by one side only, {category}: {case:?}"
                    ));
                }
            }
        }
    }
    survey.rows.extend(rows);
}
