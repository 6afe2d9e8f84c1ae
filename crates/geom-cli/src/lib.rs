//! The `geom` command as a library: JSON-lines queries, renders of the
//! demo scenes, and the survey of how much `f32` loses against `f64`. The
//! binary (`src/main.rs`) only hands its arguments to [`run`]; the fuzz
//! targets call [`query::answer_line`] and [`query::run_query`].
//!
//! The command line is parsed by clap (`cli`); each subcommand lives in its
//! own module.
#![deny(missing_docs)]

mod canvas;
mod cli;
mod demo;
mod fields;
mod image;
mod pair;
mod precision;
pub mod query;
mod render;
mod scene;
mod survey;
mod sweep;
mod terrain_view;
mod walk;
mod world_op;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

/// Exit status for a run whose input had failing lines (or an I/O error).
const EXIT_FAILED: u8 = 1;
/// Exit status for a command line that could not be understood.
const EXIT_USAGE: u8 = 2;

/// Runs the command line `arguments` (without the program name): prints
/// answers on stdout and problems on stderr, and returns the exit status
/// (0 done, 1 some query line or I/O failed, 2 the command line was not
/// understood). Help and the version print on stdout with status 0; a
/// closed stdout (`geom query … | head`) ends the run quietly with status 0.
pub fn run(arguments: &[String]) -> ExitCode {
    let command_line = std::iter::once("geom".to_string()).chain(arguments.iter().cloned());
    let cli = match Cli::try_parse_from(command_line) {
        Ok(cli) => cli,
        Err(error) => {
            // Printing help into a closed pipe is not worth reporting.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(EXIT_USAGE));
        }
    };
    let mut stdout = io::stdout().lock();
    match run_command(cli.command, &mut stdout).and_then(|status| stdout.flush().map(|()| status)) {
        Ok(status) => ExitCode::from(status),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr(), "geom: {error}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// Runs a parsed command, writing its report on `out`; the exit status.
fn run_command(command: Command, out: &mut dyn Write) -> io::Result<u8> {
    match command {
        Command::Query(arguments) => run_query_command(arguments.file.as_deref(), out),
        Command::Render(arguments) => {
            let options =
                render::RenderOptions::new(arguments.precision.name(), &arguments.image, arguments.out);
            render::run_render(&options, out)?;
            Ok(0)
        }
        Command::Demo(arguments) => {
            let options = render::RenderOptions::new("f64", &arguments.image, arguments.out);
            demo::run_demo(&options, out)?;
            Ok(0)
        }
        Command::Precision(arguments) => {
            let options = survey::SurveyOptions {
                seed: arguments.seed,
                cases: arguments.cases as usize,
                json: arguments.json,
                plots: arguments.plots,
            };
            survey::run_precision(&options, out)?;
            Ok(0)
        }
    }
}

/// `geom query [FILE]`: exit status 1 when any line failed.
fn run_query_command(file: Option<&std::path::Path>, out: &mut dyn Write) -> io::Result<u8> {
    let summary = match file {
        Some(path) if path.as_os_str() != "-" => {
            let opened = std::fs::File::open(path)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display())))?;
            query::run_query(io::BufReader::new(opened), out)?
        }
        _ => query::run_query(io::stdin().lock(), out)?,
    };
    Ok(if summary.failed > 0 { EXIT_FAILED } else { 0 })
}
