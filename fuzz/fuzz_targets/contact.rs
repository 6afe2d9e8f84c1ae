//! Fuzz target `contact`: see `docs/reliability.md`.
#![no_main]

use geom_fuzz::{Input, targets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    if input.flag() {
        targets::contact::<f32>(&mut input);
    } else {
        targets::contact::<f64>(&mut input);
    }
});
