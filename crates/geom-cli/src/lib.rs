//! The `geom` command as a library: JSON-lines queries, renders of a
//! default scene, and the demo that shows how much `f32` loses against
//! `f64`. The binary (`src/main.rs`) only hands its arguments to [`run`];
//! the fuzz targets call [`query::answer_line`] and [`query::run_query`].
//!
//! Arguments are parsed by hand (see `args`); each subcommand lives in its
//! own module.
#![deny(missing_docs)]

mod args;
mod contact;
mod demo;
mod fields;
mod image;
mod precision;
pub mod query;
mod render;
mod scene;
mod survey;
mod sweep;
mod walk;

use std::io;
use std::process::ExitCode;

use args::{Arguments, UsageError};

/// Exit status for a run whose input had failing lines (or an I/O error).
const EXIT_FAILED: u8 = 1;
/// Exit status for a command line that could not be understood.
const EXIT_USAGE: u8 = 2;

const MAIN_HELP: &str = "\
geom: collision queries written once for f32 and f64

Usage: geom <COMMAND> [OPTIONS]

Commands:
  query [FILE]   answer JSON-lines queries (ray_cast, closest_point, contact) from FILE or stdin
  render         ray-cast the default scene into PNGs, with an f32-vs-f64 error heatmap
  demo           render the default scene in both precisions and print an error table
  precision      f32 and f64 against a double-double reference, per shape, query and category
  help [COMMAND] show this help, or a command's help

Options:
  -h, --help     show help (also after a command: `geom query --help`)
  -V, --version  show the version

Start with: cargo run --release -p geom-cli -- demo
";

const QUERY_HELP: &str = "\
geom query: answer JSON-lines geometric queries

Usage: geom query [FILE]        (reads stdin when FILE is absent or `-`)

Each non-blank input line is one JSON object; each gets one output line, in
order. Blank lines are skipped. Answers echo the input's \"id\" (null when it
has none or the line is not valid JSON).

  {\"id\": ANY, \"op\": \"ray_cast\", \"precision\": \"f32\"|\"f64\", \"shape\": SHAPE,
   \"ray\": {\"origin\": [x,y,z], \"dir\": [x,y,z]}, \"max_t\": NUM, \"solid\": BOOL}
    -> {\"id\":…,\"hit\":true,\"t\":…,\"point\":[…],\"normal\":[…]}  or {\"id\":…,\"hit\":false}
  {\"id\": ANY, \"op\": \"closest_point\", \"precision\": P, \"shape\": SHAPE,
   \"point\": [x,y,z], \"solid\": BOOL}
    -> {\"id\":…,\"point\":[…],\"inside\":BOOL,\"distance\":signed (negative inside)}
  {\"id\": ANY, \"op\": \"contact\", \"precision\": P, \"a\": SHAPE, \"b\": SHAPE, \"margin\": NUM}
    -> {\"id\":…,\"contacts\":[{\"point_a\":[…],\"point_b\":[…],\"normal\":[…],\"depth\":…},…]}
       normal from a to b, depth > 0 overlapping (down to -margin); a heightfield
       with a sphere or a capsule, either order (other pairs: not yet)
  {\"id\": ANY, \"op\": \"sweep\", \"precision\": P, \"shape\": SHAPE, \"motion\": [dx,dy,dz], \"target\": SHAPE}
    -> {\"id\":…,\"hit\":true,\"toi\":in [0,1],\"point\":[…],\"normal\":[…]}  or {\"id\":…,\"hit\":false}
       shape: sphere, capsule or ellipsoid; exact against a triangle or a heightfield,
       conservative advancement through the dispatch table otherwise; normal from
       the target towards the shape; starting in contact answers toi 0
  {\"id\": ANY, \"op\": \"slide\", \"precision\": P, \"shape\": SHAPE, \"motion\": [dx,dy,dz],
   \"world\": [SHAPE, ...], \"max_iterations\": N}
    -> {\"id\":…,\"position\":[…],\"collisions\":N}
       collide-and-slide (no gravity), position = where the shape's centre ends;
       skin width 1e-3 of the shape's smallest half-extent; max_iterations default 5

Defaults: precision \"f64\", max_t infinity, solid true. t is in units of dir;
point = origin + t*dir. Numbers print as the shortest decimal that reads back
to the same value in the line's precision.

SHAPE (world coordinates; rotation is a quaternion [x,y,z,w], normalised, default identity):
  {\"type\":\"sphere\",    \"center\":[..], \"radius\":r}
  {\"type\":\"capsule\",   \"a\":[..], \"b\":[..], \"radius\":r}
  {\"type\":\"cylinder\",  \"a\":[..], \"b\":[..], \"radius\":r}
  {\"type\":\"cone\",      \"apex\":[..], \"base\":[..], \"radius\":r}
  {\"type\":\"ellipsoid\", \"center\":[..], \"radii\":[..], \"rotation\":[..]}
  {\"type\":\"box\",       \"center\":[..], \"half_extents\":[..], \"rotation\":[..]}
  {\"type\":\"halfspace\", \"normal\":[..], \"offset\":d}     (solid where n.x <= d)
  {\"type\":\"triangle\",  \"a\":[..], \"b\":[..], \"c\":[..]}
  {\"type\":\"segment\",   \"a\":[..], \"b\":[..]}
  {\"type\":\"heightfield\", \"origin\":[..], \"cell\":[dx,dz], \"rows\":R, \"cols\":C,
   \"heights\":[R*C numbers, row-major], \"holes\":[cells], \"flip\":[cells]}
     sample (i,j) at origin + (i*dx, heights[i*C+j], j*dz); cell (i,j) = i*(C-1)+j,
     split along (i,j)-(i+1,j+1), or (i+1,j)-(i,j+1) when flipped; Y-up, solid below

A line that cannot be answered (bad JSON, wrong or missing or unknown fields,
an invalid shape, contact pairs without a heightfield, which are not
supported yet) gets {\"id\":…,\"line\":N,\"error\":\"…\"} and the run goes on;
N counts every physical line from 1. Exit status: 0 when every line was
answered, 1 when any line failed, 2 for a bad command line.
";

const RENDER_HELP: &str = "\
geom render: ray-cast the default scene into PNG images

Usage: geom render [--precision f32|f64] [--out DIR] [--width W] [--height H]

The default scene holds one of each primitive (rotated where that means
something) near the origin, and the same scene shifted by (1e4, 1e4, 1e4).
Two views are rendered: `near` looks at the first copy, `far` at the shifted
copy from a camera shifted the same way. For each view it writes:
  <view>_<precision>.png  nearest hit per pixel, shaded by its normal
                          (rgb = normal*0.5+0.5, with a little lambert light)
  <view>_error.png        log-scale heatmap of |t_f32 - t_f64| / t_f64 for the
                          same rays; the colour bar at the bottom is printed
                          on stdout; magenta pixels hit in one precision only

Options:
  --precision P   precision of the shaded image (default f64)
  --out DIR       output folder, created if needed (default out/render)
  --width W       image width in pixels (default 640)
  --height H      image height in pixels (default 480)
";

const DEMO_HELP: &str = "\
geom demo: render the default scene in both precisions and report the error

Usage: geom demo [--out DIR] [--width W] [--height H]

Writes near_f32.png, near_f64.png, near_error.png and the same for the far
view into DIR (default out/demo), and prints a table: per view and shape, the
rays cast, the hits in each precision, the rays where only one precision hit,
the max and median f32-vs-f64 t error in f32 ulps (of t_f64), and the time
spent casting in each precision. See `geom render --help` for the scene.
";

const PRECISION_HELP: &str = "\
geom precision: how much precision f32 and f64 lose, per shape, query and category

Usage: geom precision [--seed S] [--cases N] [--json] [--plots DIR]

Runs every shape's ray cast (t, hit point, normal) and closest point at f32,
f64 and a double-double reference (about 106 bits) through the same generic
kernels, on inputs exactly representable in f32, over categories: generic,
far_small (small shape 1e3-1e5 away), offset (scene 1e4-1e6 from the origin),
grazing (within 1e-4 of the surface), axis_parallel, inside (origin inside or
on the surface), max_t (cut-off within 1e-3 of the hit), high_aspect
(ellipsoids up to 1000:1); for closest points also near_surface.

Per row it prints hit/miss (or inside-flag) disagreements with the reference,
split into wrong ones and marginal ones (the exact answer flips within 4 f32
ulps of the inputs), and the error in ulps of the line's own precision (p50,
p99, max) and in units of the shape's size, for f32 and f64, beside a naive
f32 baseline (the textbook ray-sphere quadratic, the seed code's cylinder).

Options:
  --seed S      seed of the case generator (default 1)
  --cases N     cases per shape and category (default 5000)
  --json        print one JSON object instead of the table
  --plots DIR   also write hist_<query>.png and error_vs_distance.png to DIR

A progress bar is drawn on stderr when it is a terminal.
";

/// Runs the command line `arguments` (without the program name): prints
/// answers on stdout and problems on stderr, and returns the exit status
/// (0 done, 1 some query line or I/O failed, 2 the command line was not
/// understood).
pub fn run(arguments: &[String]) -> ExitCode {
    match run_command(arguments) {
        Ok(status) => ExitCode::from(status),
        Err(Failure::Usage(error)) => {
            eprintln!("geom: {error}");
            if let Some(help) = error.help {
                eprintln!("\n{help}");
            }
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::Io(error)) => {
            eprintln!("geom: {error}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// Why a run stopped before it could finish its work.
#[derive(Debug)]
enum Failure {
    Usage(UsageError),
    Io(io::Error),
}

impl From<UsageError> for Failure {
    fn from(error: UsageError) -> Self {
        Failure::Usage(error)
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Io(error)
    }
}

/// Runs the command line (without the program name) and returns the exit status.
fn run_command(arguments: &[String]) -> Result<u8, Failure> {
    let Some((command, rest)) = arguments.split_first() else {
        return Err(UsageError::with_help("no command given", MAIN_HELP).into());
    };
    let help_for = |command: &str| match command {
        "query" => Some(QUERY_HELP),
        "render" => Some(RENDER_HELP),
        "demo" => Some(DEMO_HELP),
        "precision" => Some(PRECISION_HELP),
        _ => None,
    };
    if rest.iter().any(|a| a == "-h" || a == "--help") && help_for(command).is_some() {
        print!("{}", help_for(command).unwrap_or(MAIN_HELP));
        return Ok(0);
    }
    match command.as_str() {
        "-h" | "--help" => {
            print!("{MAIN_HELP}");
            Ok(0)
        }
        "help" => match rest {
            [] => {
                print!("{MAIN_HELP}");
                Ok(0)
            }
            [topic] => match help_for(topic) {
                Some(help) => {
                    print!("{help}");
                    Ok(0)
                }
                None => Err(UsageError::with_help(
                    format!("no help for unknown command '{topic}'"),
                    MAIN_HELP,
                )
                .into()),
            },
            _ => Err(UsageError::with_help("help takes at most one command", MAIN_HELP).into()),
        },
        "-V" | "--version" => {
            println!("geom {}", env!("CARGO_PKG_VERSION"));
            Ok(0)
        }
        "query" => run_query_command(rest),
        "render" => {
            let options =
                render::RenderOptions::parse(Arguments::new(rest, RENDER_HELP), "out/render", true)?;
            render::run_render(&options)?;
            Ok(0)
        }
        "demo" => {
            let options = render::RenderOptions::parse(Arguments::new(rest, DEMO_HELP), "out/demo", false)?;
            demo::run_demo(&options)?;
            Ok(0)
        }
        "precision" => {
            let options = survey::SurveyOptions::parse(Arguments::new(rest, PRECISION_HELP))?;
            survey::run_precision(&options)?;
            Ok(0)
        }
        other => Err(UsageError::with_help(format!("unknown command '{other}'"), MAIN_HELP).into()),
    }
}

/// `geom query [FILE]`: exit status 1 when any line failed.
fn run_query_command(rest: &[String]) -> Result<u8, Failure> {
    let mut arguments = Arguments::new(rest, QUERY_HELP);
    let file = arguments.positional()?;
    arguments.finish()?;
    let stdout = io::stdout().lock();
    let summary = match file {
        None | Some("-") => query::run_query(io::stdin().lock(), stdout)?,
        Some(path) => {
            let opened = std::fs::File::open(path)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot open {path}: {e}")))?;
            query::run_query(io::BufReader::new(opened), stdout)?
        }
    };
    Ok(if summary.failed > 0 { EXIT_FAILED } else { 0 })
}
