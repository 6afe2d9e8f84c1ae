//! The `pair_oracle` target's case: the pair of kinds, the category and
//! the random stream of the pair oracle's case generator, chosen by the
//! fuzzer's bytes, checked in `f64` and `f32` against the oracle in both
//! orders (`crates/geom/tests/integration/pair_oracle`).

use std::sync::OnceLock;

use nalgebra::Vector3;

use crate::cases::{KINDS, Rng};
use crate::checks::{self, Answers, Report, Tolerance};
use crate::oracle;
use crate::{FuzzReal, Input};

/// The oracle's sampled directions, built once.
fn samples() -> &'static [Vector3<f64>] {
    static SAMPLES: OnceLock<Vec<Vector3<f64>>> = OnceLock::new();
    SAMPLES.get_or_init(|| oracle::sphere_directions(600))
}

/// Draws one case from `input` and checks every pair query on it; panics
/// (the fuzzer's finding) when an answer fails a check.
pub fn pair_oracle(input: &mut Input) {
    let kind_a = input.below(KINDS.len());
    let kind_b = input.below(KINDS.len());
    if KINDS[kind_a] == "halfspace" && KINDS[kind_b] == "halfspace" {
        return;
    }
    let category = input.below(7);
    let mut seed = 0u64;
    for _ in 0..8 {
        seed = seed << 8 | u64::from(input.byte());
    }
    let mut rng = Rng::from_state(seed ^ 0x9E37_79B9_7F4A_7C15);
    let samples = samples();
    let case = checks::random_case(&mut rng, kind_a, kind_b, category, samples);
    let bodies = (case.a.body(), case.b.body());
    let mut report = Report::default();
    for swap in [false, true] {
        let (spec_a, spec_b, body_a, body_b) = if swap {
            (&case.b, &case.a, &bodies.1, &bodies.0)
        } else {
            (&case.a, &case.b, &bodies.0, &bodies.1)
        };
        let scale = body_a.scale().max(body_b.scale());
        let shapes = checks::CheckShapes::new(spec_a, spec_b);
        for precision in ["f64", "f32"] {
            let answers = if precision == "f64" {
                Answers::run::<f64>(f64::table(), spec_a, spec_b, case.margin)
            } else {
                Answers::run::<f32>(f32::table(), spec_a, spec_b, case.margin)
            };
            let label = format!(
                "{}-{} [{}{}] {{a: {spec_a:?}, b: {spec_b:?}, margin: {:?}}} {precision}",
                spec_a.local.name(),
                spec_b.local.name(),
                case.category,
                if swap { ", swapped" } else { "" },
                case.margin
            );
            checks::check_answers(
                &mut report,
                &label,
                &answers,
                &shapes,
                body_a,
                body_b,
                case.sigma,
                case.margin,
                &Tolerance::new(precision, scale),
                samples,
            );
        }
    }
    report.finish();
}
