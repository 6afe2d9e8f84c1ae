//! Fuzz target `query_line`: see `docs/reliability.md`.
#![no_main]

use geom_fuzz::{Input, targets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    targets::query_line(&mut input, data);
});
