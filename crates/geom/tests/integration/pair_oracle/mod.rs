//! Every pair query of the default dispatcher against an independent
//! answer, for every pair of convex kinds, in both orders, in `f64` and
//! `f32`: contact (with and without a margin), closest points, distance
//! and intersection, on random shapes and poses (overlapping, touching,
//! apart within and beyond the margin, far from the origin, small and
//! large shapes).
//!
//! The independent answer (`oracle.rs`) is the maximum over directions of
//! the support-plane separation of the two shapes, from support functions
//! written here from each shape's definition. Each reported answer is
//! checked both ways: it must be achievable (witness points on the
//! shapes, depth equal to the support overlap along its own normal) and
//! no worse than the oracle's best direction.

mod cases;
mod checks;
mod oracle;

use cases::{KINDS, Rng};
use checks::{Answers, Report, Tolerance};

/// How many random cases each unordered pair of kinds gets (a quarter
/// unless `GEOM_FULL_SWEEPS` is set, as `.ci/run` does).
const CASES_PER_PAIR: usize = 60;

/// Every pair and query in `f64`, within 1e-9 of the scale.
#[test]
fn every_convex_pair_query_matches_the_oracle_in_f64() {
    run_oracle("f64");
}

/// Every pair and query in `f32`, within 16 ε of the scale.
#[test]
fn every_convex_pair_query_matches_the_oracle_in_f32() {
    run_oracle("f32");
}

/// The oracle run for one precision (`"f64"` or `"f32"`).
#[allow(clippy::needless_range_loop)] // kind indices seed the random streams
fn run_oracle(precision: &str) {
    let samples = oracle::sphere_directions(600);
    let table64 = geom::default_dispatcher::<f64>();
    let table32 = geom::default_dispatcher::<f32>();
    let mut report = Report::default();
    // GEOM_ORACLE_SEED=7 GEOM_ORACLE_CASES=1000 draws other and more cases
    // than CI's (a longer search for mismatches).
    let from_env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let seed = from_env("GEOM_ORACLE_SEED").unwrap_or(0);
    let cases_per_pair = from_env("GEOM_ORACLE_CASES")
        .map_or_else(|| geom_random::sweep_cases(CASES_PER_PAIR), |n| n as usize);
    for kind_a in 0..KINDS.len() {
        for kind_b in kind_a..KINDS.len() {
            if KINDS[kind_a] == "halfspace" && KINDS[kind_b] == "halfspace" {
                continue;
            }
            // GEOM_ORACLE_PAIR=cone-cone runs one pair (each pair has its
            // own random stream, so its cases are those of the full run).
            if let Ok(only) = std::env::var("GEOM_ORACLE_PAIR")
                && only != format!("{}-{}", KINDS[kind_a], KINDS[kind_b])
            {
                continue;
            }
            let mut rng = Rng::from_state(
                0x5DEE_CE66_D1CE_5EED
                    ^ seed.wrapping_mul(0xD6E8_FEB8_6659_FD93)
                    ^ ((kind_a as u64) << 32 | kind_b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            for case_index in 0..cases_per_pair {
                let case = checks::random_case(&mut rng, kind_a, kind_b, case_index, &samples);
                // GEOM_ORACLE_CASE=17 runs one case of the pair(s) selected.
                if let Ok(only) = std::env::var("GEOM_ORACLE_CASE")
                    && only != case_index.to_string()
                {
                    continue;
                }
                let bodies = (case.a.body(), case.b.body());
                for swap in [false, true] {
                    let (spec_a, spec_b) = if swap {
                        (&case.b, &case.a)
                    } else {
                        (&case.a, &case.b)
                    };
                    let (body_a, body_b) = if swap {
                        (&bodies.1, &bodies.0)
                    } else {
                        (&bodies.0, &bodies.1)
                    };
                    let sigma = case.sigma;
                    let mut label = format!(
                        "{}-{} [{} #{case_index}{}]",
                        spec_a.local.name(),
                        spec_b.local.name(),
                        case.category,
                        if swap { ", swapped" } else { "" }
                    );
                    if std::env::var_os("GEOM_ORACLE_SPECS").is_some() {
                        label = format!(
                            "{label} {{a: {spec_a:?}, b: {spec_b:?}, margin: {:?}}}",
                            case.margin
                        );
                    }
                    let scale = body_a.scale().max(body_b.scale());
                    {
                        let answers = if precision == "f64" {
                            Answers::run::<f64>(&table64, spec_a, spec_b, case.margin)
                        } else {
                            Answers::run::<f32>(&table32, spec_a, spec_b, case.margin)
                        };
                        let tolerance = Tolerance::new(precision, scale);
                        let shapes = checks::CheckShapes::new(spec_a, spec_b);
                        checks::check_answers(
                            &mut report,
                            &format!("{label} {precision}"),
                            &answers,
                            &shapes,
                            body_a,
                            body_b,
                            sigma,
                            case.margin,
                            &tolerance,
                            &samples,
                        );
                    }
                }
            }
        }
    }
    report.finish();
}
