//! Fuzz target `pair_oracle`: every pair query against the pair oracle;
//! see `docs/reliability.md`.
#![no_main]

use geom_fuzz::Input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    geom_fuzz::pair_case::pair_oracle(&mut Input::new(data));
});
