//! `geom precision`: every shape and query at `f32`, `f64` and the
//! double-double reference, from the same generic kernels, per category of
//! hard input; errors in ulps of each precision and in units of the shape's
//! size, hit/miss disagreements, and a naive `f32` baseline.

mod baseline;
mod cases;
mod contacts;
mod plot;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use geom::DoubleDouble;
use geom::nalgebra::{self, Point3, RealField, Vector3};
use geom::prelude::*;
use geom::simba::scalar::SubsetOf;

use cases::{ClosestCase, RayCase, World};

/// Options of `geom precision`.
#[derive(Debug, Clone)]
pub struct SurveyOptions {
    /// Seed of the case generator.
    pub seed: u64,
    /// Cases per shape and category.
    pub cases: usize,
    /// Print JSON instead of the table.
    pub json: bool,
    /// Folder for the PNG plots, if any.
    pub plots: Option<PathBuf>,
}

/// The quantities compared, in report order: a ray's `t`, hit point and
/// normal, the closest point, and a pair contact's deepest depth, normal
/// and point.
pub const QUERIES: [&str; 7] = [
    "ray_t",
    "hit_point",
    "normal",
    "closest",
    "depth",
    "c_normal",
    "c_point",
];

/// Errors of one precision on one row.
#[derive(Debug, Default, Clone)]
pub struct Errors {
    /// Error per answered case, in ulps of this precision.
    pub ulps: Vec<f64>,
    /// Error per answered case, in units of the shape's size.
    pub sizes: Vec<f64>,
    /// Hit/miss (or inside) answers differing from the reference where the
    /// exact answer does not flip within 4 f32 ulps of the inputs.
    pub wrong: usize,
    /// Differing answers where it does (the exact margin is below f32
    /// resolution).
    pub marginal: usize,
}

impl Errors {
    /// The `p` quantile (0..=1) of the ulp errors, 0 when there are none.
    pub fn ulp_quantile(&self, p: f64) -> f64 {
        quantile(&self.ulps, p)
    }
}

fn quantile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// One row of the report: a query on a shape over one category.
#[derive(Debug, Clone)]
pub struct Row {
    /// One of [`QUERIES`].
    pub query: &'static str,
    /// The shape.
    pub shape: &'static str,
    /// The category.
    pub category: &'static str,
    /// Cases run.
    pub cases: usize,
    /// Cases the reference answered (hit, or a closest point).
    pub answered: usize,
    /// `f32` against the reference.
    pub f32: Errors,
    /// `f64` against the reference.
    pub f64: Errors,
    /// The naive `f32` baseline (sphere and cylinder ray casts).
    pub naive: Option<Errors>,
}

impl Row {
    /// An empty row of `cases` cases (no naive baseline).
    fn new(query: &'static str, shape: &'static str, category: &'static str, cases: usize) -> Self {
        Row {
            query,
            shape,
            category,
            cases,
            answered: 0,
            f32: Errors::default(),
            f64: Errors::default(),
            naive: None,
        }
    }
}

/// A point of the error-vs-distance plot.
#[derive(Debug, Clone, Copy)]
pub struct DistanceSample {
    /// Distance of the shape from the world origin.
    pub distance: f64,
    /// `f32` error of `t`, ulps.
    pub f32: Option<f64>,
    /// `f64` error of `t`, ulps of f64.
    pub f64: Option<f64>,
    /// Naive `f32` error of `t`, ulps.
    pub naive: Option<f64>,
}

/// Everything a run measured.
#[derive(Debug, Default)]
pub struct Survey {
    /// The rows, in report order.
    pub rows: Vec<Row>,
    /// Ray-cast `t` errors against the shape's distance from the origin.
    pub distance_samples: Vec<DistanceSample>,
    /// Cases where a precision disagreed with the reference within f32
    /// resolution of the exact margin, described for the report.
    pub marginal_cases: Vec<String>,
}

type Dd = DoubleDouble;

fn dd<N: Real + SubsetOf<Dd>>(x: N) -> Dd {
    nalgebra::convert::<N, Dd>(x)
}

/// The size of an ulp of `N` (f32 or f64) at the magnitude of `reference`.
fn ulp_of<N: Real>(reference: Dd) -> f64 {
    let magnitude = reference.hi().abs();
    if nalgebra::convert::<f64, N>(1.0 + 2f64.powi(-30)) == N::one() {
        crate::precision::f32_ulp_at(magnitude)
    } else if magnitude.is_finite() {
        magnitude.next_up() - magnitude
    } else {
        f64::INFINITY
    }
}

/// `(t, hit point, normal)` of a world ray cast at precision `N`, in double-double.
type RayAnswer = (Dd, Point3<Dd>, Vector3<Dd>);

fn cast<N: Real + SubsetOf<Dd>>(case: &RayCase) -> Option<RayAnswer> {
    let (shape, pose) = case.world.build::<N>();
    let to_n = nalgebra::convert::<f64, N>;
    let ray = Ray::new(case.origin.map(to_n), case.dir.map(to_n));
    let hit = shape.ray_cast(&pose, &ray, to_n(case.max_t), case.solid)?;
    let point = ray.point_at(hit.t);
    Some((dd(hit.t), point.map(dd), hit.normal.map(dd)))
}

fn closest<N: Real + SubsetOf<Dd>>(case: &ClosestCase) -> Option<(Point3<Dd>, bool)> {
    let (shape, pose) = case.world.build::<N>();
    let query = case.point.map(nalgebra::convert::<f64, N>);
    let projection = shape.closest_point(&pose, &query, false)?;
    Some((projection.point.map(dd), projection.is_inside))
}

fn largest(v: &Vector3<Dd>) -> Dd {
    v.iter()
        .fold(Dd::from_f64(0.0), |m, c| RealField::max(m, c.abs()))
}

/// `|a − b|∞` in ulps of `N` at `|b|∞`.
fn vector_ulps<N: Real>(a: &Vector3<Dd>, b: &Vector3<Dd>) -> f64 {
    largest(&(a - b)).to_f64() / ulp_of::<N>(largest(b))
}

/// Whether the exact answer is decided below f32 resolution: the origin
/// lies within 16 f32 ulps of the surface (its inside/outside state, and so
/// which surface a ray reports, is then a coin toss at f32), or the
/// reference answer flips (hit/miss, or a jump of the hit by 1e-3 of the
/// size) when an input moves by 4 f32 ulps (the origin or direction along
/// an axis, or `max_t`).
fn ray_is_marginal(case: &RayCase) -> bool {
    let (shape, pose) = case.world.build::<Dd>();
    let origin = case.origin.map(Dd::from_f64);
    let resolution = 16.0 * crate::precision::f32_ulp_at(case.origin.coords.amax());
    if shape
        .distance(&pose, &origin)
        .is_some_and(|d| d.abs().to_f64() <= resolution)
    {
        return true;
    }
    let reference = cast::<Dd>(case).map(|(t, _, _)| t);
    // A jump of the hit by 1e-3 of the size: the first surface hit changes
    // (a graze at a rim).
    let jump = Dd::from_f64(1e-3 * case.size / case.dir.norm());
    let flips = |variant: &RayCase| match (cast::<Dd>(variant).map(|(t, _, _)| t), reference) {
        (Some(t), Some(t_ref)) => (t - t_ref).abs() > jump,
        (a, b) => a.is_some() != b.is_some(),
    };
    let step = |x: f64| 4.0 * crate::precision::f32_ulp_at(x);
    let mut variants = Vec::with_capacity(14);
    for axis in 0..3 {
        for sign in [-1.0, 1.0] {
            let mut moved = case.clone();
            moved.origin[axis] += sign * step(case.origin.coords.amax());
            variants.push(moved);
            let mut turned = case.clone();
            turned.dir[axis] += sign * step(case.dir.amax());
            variants.push(turned);
        }
    }
    for factor in [
        1.0 - 4.0 * f64::from(f32::EPSILON),
        1.0 + 4.0 * f64::from(f32::EPSILON),
    ] {
        let mut cut = case.clone();
        cut.max_t *= factor;
        variants.push(cut);
    }
    variants.iter().any(flips)
}

/// Whether the reference inside flag flips when the point moves by 4 f32 ulps.
fn closest_is_marginal(case: &ClosestCase) -> bool {
    let reference = closest::<Dd>(case).map(|(_, inside)| inside);
    let step = 4.0 * crate::precision::f32_ulp_at(case.point.coords.amax());
    (0..3).any(|axis| {
        [-step, step].iter().any(|delta| {
            let mut moved = case.clone();
            moved.point[axis] += delta;
            closest::<Dd>(&moved).map(|(_, inside)| inside) != reference
        })
    })
}

/// Tallies one precision's ray answer against the reference into the t,
/// point and normal rows.
fn tally_ray<N: Real>(
    case: &RayCase,
    answer: Option<RayAnswer>,
    reference: Option<&RayAnswer>,
    rows: [&mut Errors; 3],
    marginal: &mut Option<bool>,
) -> Option<f64> {
    let [t_row, point_row, normal_row] = rows;
    match (answer, reference) {
        (Some((t, point, normal)), Some((t_ref, point_ref, normal_ref))) => {
            let t_error = (t - *t_ref).abs().to_f64();
            let t_ulps = t_error / ulp_of::<N>(*t_ref);
            // A large error where the answer is decided below f32 resolution
            // (an origin on the surface: entry or exit) is a marginal case,
            // not an error of the formulas.
            if t_ulps > 64.0 && *marginal.get_or_insert_with(|| ray_is_marginal(case)) {
                t_row.marginal += 1;
                return None;
            }
            t_row.ulps.push(t_ulps);
            t_row.sizes.push(t_error * case.dir.norm() / case.size);
            point_row
                .ulps
                .push(vector_ulps::<N>(&point.coords, &point_ref.coords));
            point_row
                .sizes
                .push(largest(&(point - point_ref)).to_f64() / case.size);
            normal_row.ulps.push(vector_ulps::<N>(&normal, normal_ref));
            normal_row.sizes.push(largest(&(normal - normal_ref)).to_f64());
            Some(t_ulps)
        }
        (None, None) => None,
        _ => {
            if *marginal.get_or_insert_with(|| ray_is_marginal(case)) {
                t_row.marginal += 1;
            } else {
                t_row.wrong += 1;
            }
            None
        }
    }
}

fn describe_ray(case: &RayCase, precision: &str) -> String {
    format!(
        "{precision} ray: {:?} origin {:?} dir {:?} max_t {} solid {}",
        case.world,
        case.origin.coords.as_slice(),
        case.dir.as_slice(),
        case.max_t,
        case.solid
    )
}

/// The naive baseline's `t`, for sphere and cylinder solid casts from outside.
fn naive_cast(case: &RayCase) -> Option<Option<f32>> {
    let p = |p: &Point3<f64>| p.cast::<f32>();
    let origin = p(&case.origin);
    let dir = case.dir.cast::<f32>();
    let max_t = case.max_t as f32;
    let (shape, pose) = case.world.build::<Dd>();
    let outside = !shape
        .closest_point(&pose, &case.origin.map(Dd::from_f64), true)?
        .is_inside;
    if !case.solid || !outside {
        return None;
    }
    match &case.world {
        World::Sphere(c, r) => Some(baseline::ray_sphere(origin, dir, p(c), *r as f32, max_t)),
        World::Cylinder(a, b, r) => Some(baseline::ray_cylinder(origin, dir, p(a), p(b), *r as f32, max_t)),
        _ => None,
    }
}

fn run_ray_rows(
    kind: &'static str,
    category: &'static str,
    options: &SurveyOptions,
    survey: &mut Survey,
    rng: &mut cases::Rng,
) {
    let new_row = |query| Row {
        naive: matches!(kind, "sphere" | "cylinder").then(Errors::default),
        ..Row::new(query, kind, category, options.cases)
    };
    let mut rows = [new_row("ray_t"), new_row("hit_point"), new_row("normal")];
    for _ in 0..options.cases {
        let case = cases::ray_case(kind, category, rng);
        let reference = cast::<Dd>(&case);
        let mut marginal = None;
        let [t_row, point_row, normal_row] = &mut rows;
        t_row.answered += usize::from(reference.is_some());
        let (wrong_before, marginal_before) = (
            t_row.f32.wrong + t_row.f64.wrong,
            t_row.f32.marginal + t_row.f64.marginal,
        );
        let f32_ulps = tally_ray::<f32>(
            &case,
            cast::<f32>(&case),
            reference.as_ref(),
            [&mut t_row.f32, &mut point_row.f32, &mut normal_row.f32],
            &mut marginal,
        );
        let f64_ulps = tally_ray::<f64>(
            &case,
            cast::<f64>(&case),
            reference.as_ref(),
            [&mut t_row.f64, &mut point_row.f64, &mut normal_row.f64],
            &mut marginal,
        );
        if t_row.f32.wrong + t_row.f64.wrong > wrong_before
            || t_row.f32.marginal + t_row.f64.marginal > marginal_before
        {
            let kind = if marginal == Some(true) {
                "marginal"
            } else {
                "WRONG"
            };
            survey
                .marginal_cases
                .push(format!("{kind} {}", describe_ray(&case, category)));
        }
        let mut naive_ulps = None;
        if let (Some(naive_row), Some(naive)) = (t_row.naive.as_mut(), naive_cast(&case)) {
            match (naive, &reference) {
                (Some(t), Some((t_ref, _, _))) => {
                    let error = (Dd::from(t) - *t_ref).abs().to_f64();
                    let ulps = error / ulp_of::<f32>(*t_ref);
                    naive_row.ulps.push(ulps);
                    naive_row.sizes.push(error * case.dir.norm() / case.size);
                    naive_ulps = Some(ulps);
                }
                (None, None) => {}
                _ => {
                    if *marginal.get_or_insert_with(|| ray_is_marginal(&case)) {
                        naive_row.marginal += 1;
                    } else {
                        naive_row.wrong += 1;
                    }
                }
            }
        }
        if category != "inside" && category != "max_t" {
            survey.distance_samples.push(DistanceSample {
                distance: case.world.center().coords.norm(),
                f32: f32_ulps,
                f64: f64_ulps,
                naive: naive_ulps,
            });
        }
    }
    let answered = rows[0].answered;
    for row in &mut rows[1..] {
        row.answered = answered;
    }
    survey.rows.extend(rows);
}

fn run_closest_row(
    kind: &'static str,
    category: &'static str,
    options: &SurveyOptions,
    survey: &mut Survey,
    rng: &mut cases::Rng,
) {
    let mut row = Row::new("closest", kind, category, options.cases);
    for _ in 0..options.cases {
        let case = cases::closest_case(kind, category, rng);
        let Some((point_ref, inside_ref)) = closest::<Dd>(&case) else {
            continue;
        };
        row.answered += 1;
        let mut marginal = None;
        let thin = matches!(kind, "triangle" | "segment");
        for (errors, answer, name) in [
            (&mut row.f32, closest::<f32>(&case), "f32"),
            (&mut row.f64, closest::<f64>(&case), "f64"),
        ] {
            let Some((point, inside)) = answer else {
                errors.wrong += 1;
                continue;
            };
            let ulps = if name == "f32" {
                vector_ulps::<f32>(&point.coords, &point_ref.coords)
            } else {
                vector_ulps::<f64>(&point.coords, &point_ref.coords)
            };
            errors.ulps.push(ulps);
            errors
                .sizes
                .push(largest(&(point - point_ref)).to_f64() / case.size);
            // A thin shape is "inside" only exactly on itself: not counted.
            if inside != inside_ref && !thin {
                if *marginal.get_or_insert_with(|| closest_is_marginal(&case)) {
                    errors.marginal += 1;
                    survey.marginal_cases.push(format!(
                        "marginal {name} inside flag, {category}: {:?} point {:?}",
                        case.world,
                        case.point.coords.as_slice()
                    ));
                } else {
                    errors.wrong += 1;
                    survey.marginal_cases.push(format!(
                        "WRONG {name} inside flag, {category}: {:?} point {:?}",
                        case.world,
                        case.point.coords.as_slice()
                    ));
                }
            }
        }
    }
    survey.rows.push(row);
}

/// Runs the whole survey; `progress` is called with (done, total) rows.
pub fn run_survey(options: &SurveyOptions, mut progress: impl FnMut(usize, usize, &str)) -> Survey {
    let mut survey = Survey::default();
    enum Job {
        Ray(&'static str, &'static str),
        Closest(&'static str, &'static str),
        Contact((&'static str, &'static str, &'static str), &'static str),
    }
    let mut jobs = Vec::new();
    for kind in cases::KINDS {
        for category in cases::RAY_CATEGORIES {
            if cases::applies(kind, category, true) {
                jobs.push(Job::Ray(kind, category));
            }
        }
    }
    for kind in cases::KINDS {
        for category in cases::CLOSEST_CATEGORIES {
            if cases::applies(kind, category, false) {
                jobs.push(Job::Closest(kind, category));
            }
        }
    }
    for pair in contacts::PAIRS {
        for category in contacts::CONTACT_CATEGORIES {
            jobs.push(Job::Contact(pair, category));
        }
    }
    let tables = contacts::Tables::new();
    for (done, job) in jobs.iter().enumerate() {
        let label = match job {
            Job::Ray(kind, category) => format!("ray {kind}/{category}"),
            Job::Closest(kind, category) => format!("closest {kind}/{category}"),
            Job::Contact((name, _, _), category) => format!("contact {name}/{category}"),
        };
        progress(done, jobs.len(), &label);
        // Each row its own stream, so rows do not depend on each other.
        let mut rng = cases::Rng::new(options.seed ^ (done as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407));
        match *job {
            Job::Ray(kind, category) => run_ray_rows(kind, category, options, &mut survey, &mut rng),
            Job::Closest(kind, category) => run_closest_row(kind, category, options, &mut survey, &mut rng),
            Job::Contact(pair, category) => {
                contacts::run_contact_rows(&tables, pair, category, options, &mut survey, &mut rng)
            }
        }
    }
    progress(jobs.len(), jobs.len(), "done");
    // The wrong answers first, then the marginal ones, each in run order.
    survey
        .marginal_cases
        .sort_by_key(|line| !line.starts_with("WRONG"));
    survey
}

fn format_errors(errors: &Errors) -> String {
    if errors.ulps.is_empty() {
        return format!(
            "{:>5} {:>5} {:>7} {:>7} {:>8} {:>8}",
            errors.wrong, errors.marginal, "-", "-", "-", "-"
        );
    }
    format!(
        "{:>5} {:>5} {:>7.2} {:>7.2} {:>8.3} {:>8.1e}",
        errors.wrong,
        errors.marginal,
        errors.ulp_quantile(0.5),
        errors.ulp_quantile(0.99),
        errors.ulp_quantile(1.0),
        quantile(&errors.sizes, 1.0)
    )
}

/// The report as a fixed-width text table.
pub fn format_table(survey: &Survey, options: &SurveyOptions) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "geom precision: seed {}, {} cases per row; errors against the double-double reference\n",
        options.seed, options.cases
    ));
    out.push_str("wrong = hit/miss (closest: inside flag) differs from the reference; marg = differs where the exact\n");
    out.push_str("answer flips within 4 f32 ulps of the inputs; ulps in the line's own precision; max/size = largest\n");
    out.push_str("error in units of the shape's size (normal: absolute)\n\n");
    out.push_str(&format!(
        "{:<9} {:<18} {:<13} {:>5} {:>5} | {:^45} | {:^45} | {:^45}\n",
        "query", "shape", "category", "cases", "ans", "f32", "f64", "naive f32 (textbook/seed formulas)"
    ));
    let sub = format!(
        "{:>5} {:>5} {:>7} {:>7} {:>8} {:>8}",
        "wrong", "marg", "p50", "p99", "max", "max/size"
    );
    out.push_str(&format!("{:<54} | {sub} | {sub} | {sub}\n", ""));
    for row in &survey.rows {
        let naive = row
            .naive
            .as_ref()
            .filter(|_| row.query == "ray_t")
            .map_or(String::new(), format_errors);
        out.push_str(&format!(
            "{:<9} {:<18} {:<13} {:>5} {:>5} | {} | {} | {}\n",
            row.query,
            row.shape,
            row.category,
            row.cases,
            row.answered,
            format_errors(&row.f32),
            format_errors(&row.f64),
            naive
        ));
    }
    out.push_str("\nSummary, f32 (all shapes and categories):\n");
    for query in QUERIES {
        let rows: Vec<&Row> = survey.rows.iter().filter(|r| r.query == query).collect();
        let all: Vec<f64> = rows.iter().flat_map(|r| r.f32.ulps.iter().copied()).collect();
        let wrong: usize = rows.iter().map(|r| r.f32.wrong).sum();
        let marginal: usize = rows.iter().map(|r| r.f32.marginal).sum();
        out.push_str(&format!(
            "  {query:<9} p50 {:.2} p99 {:.2} max {:.2} ulp over {} answers; {wrong} wrong, {marginal} marginal\n",
            quantile(&all, 0.5),
            quantile(&all, 0.99),
            quantile(&all, 1.0),
            all.len()
        ));
    }
    if !survey.marginal_cases.is_empty() {
        out.push_str(&format!("\nDisagreements ({}):\n", survey.marginal_cases.len()));
        for line in survey.marginal_cases.iter().take(40) {
            out.push_str(&format!("  {line}\n"));
        }
        if survey.marginal_cases.len() > 40 {
            out.push_str(&format!("  ... and {} more\n", survey.marginal_cases.len() - 40));
        }
    }
    out
}

fn errors_json(errors: &Errors) -> serde_json::Value {
    let number = |x: f64| {
        if errors.ulps.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::json!(x)
        }
    };
    serde_json::json!({
        "wrong": errors.wrong,
        "marginal": errors.marginal,
        "answers": errors.ulps.len(),
        "ulps_p50": number(errors.ulp_quantile(0.5)),
        "ulps_p99": number(errors.ulp_quantile(0.99)),
        "ulps_max": number(errors.ulp_quantile(1.0)),
        "size_p99": number(quantile(&errors.sizes, 0.99)),
        "size_max": number(quantile(&errors.sizes, 1.0)),
    })
}

/// The report as one JSON object.
pub fn format_json(survey: &Survey, options: &SurveyOptions) -> String {
    let rows: Vec<serde_json::Value> = survey
        .rows
        .iter()
        .map(|row| {
            serde_json::json!({
                "query": row.query,
                "shape": row.shape,
                "category": row.category,
                "cases": row.cases,
                "answered": row.answered,
                "f32": errors_json(&row.f32),
                "f64": errors_json(&row.f64),
                "naive_f32": row.naive.as_ref().filter(|_| row.query == "ray_t").map(errors_json),
            })
        })
        .collect();
    serde_json::json!({
        "seed": options.seed,
        "cases": options.cases,
        "rows": rows,
        "disagreements": survey.marginal_cases,
    })
    .to_string()
}

/// `geom precision`: runs the survey, prints the report, writes the plots.
pub fn run_precision(options: &SurveyOptions, stdout: &mut dyn Write) -> io::Result<()> {
    let started = Instant::now();
    let show_progress = io::stderr().is_terminal();
    let survey = run_survey(options, |done, total, label| {
        if show_progress {
            let width = 30;
            let filled = done * width / total.max(1);
            eprint!(
                "\r[{}{}] {done}/{total} rows, {:.1} s  {label:<28}",
                "#".repeat(filled),
                " ".repeat(width - filled),
                started.elapsed().as_secs_f64()
            );
            let _ = io::stderr().flush();
        }
    });
    if show_progress {
        eprintln!();
    }
    if options.json {
        writeln!(stdout, "{}", format_json(&survey, options))?;
    } else {
        write!(stdout, "{}", format_table(&survey, options))?;
    }
    if let Some(folder) = &options.plots {
        std::fs::create_dir_all(folder)?;
        for written in plot::write_plots(&survey, folder)? {
            if !options.json {
                writeln!(stdout, "wrote {}", written.display())?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
