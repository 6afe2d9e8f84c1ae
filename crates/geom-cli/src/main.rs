//! The `geom` binary: everything lives in the `geom_cli` library.

use std::process::ExitCode;

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    geom_cli::run(&arguments)
}
