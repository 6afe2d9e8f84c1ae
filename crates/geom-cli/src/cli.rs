//! The command line: subcommands, options and their help (clap).
//!
//! Every help text ends with examples; `tests/integration/help_examples.rs` runs each
//! of them and checks the answers the query help prints.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Pixels on the longest side an image may have.
pub const MAX_SIDE: u32 = 8192;

const MAIN_ABOUT: &str = "collision queries written once for f32 and f64";

const MAIN_LONG_ABOUT: &str = "\
geom answers collision queries between shapes: ray casts, closest points,
distances, contacts and sweeps, for spheres, capsules, cylinders, cones,
ellipsoids, boxes, half-spaces, triangles, segments and heightfield terrain,
in f32 or f64. Every pair of shapes is answered, in either order (except
two heightfields, and two half-spaces). It also shows, in pictures and tables, how much precision
f32 loses against f64.";

const MAIN_EXAMPLES: &str = "\
Examples:
  geom demo                          render the demo scenes into out/demo and print what f32 loses
  geom query --help                  the query format: every op and every shape
  geom query queries.jsonl           answer a file of JSON-lines queries, one answer line each
  geom precision --cases 200         a short survey of f32 and f64 errors against a 106-bit reference";

/// `geom`: the parsed command line.
#[derive(Debug, Parser)]
#[command(
    name = "geom",
    version,
    about = MAIN_ABOUT,
    long_about = MAIN_LONG_ABOUT,
    after_help = MAIN_EXAMPLES,
    arg_required_else_help = true,
    max_term_width = 100
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Answer JSON-lines queries (ray_cast, closest_point, distance, closest_points, contact, sweep, slide)
    #[command(long_about = QUERY_LONG_ABOUT, after_help = QUERY_SHORT_EXAMPLES, after_long_help = QUERY_DETAILS)]
    Query(QueryArgs),
    /// Ray-cast the default scene into PNGs, with an f32-vs-f64 error map
    #[command(long_about = RENDER_LONG_ABOUT, after_help = RENDER_EXAMPLES)]
    Render(RenderArgs),
    /// Render the demo scenes in both precisions and print what f32 loses
    #[command(long_about = DEMO_LONG_ABOUT, after_help = DEMO_EXAMPLES)]
    Demo(DemoArgs),
    /// Measure f32 and f64 against a double-double reference, per shape, query and category
    #[command(long_about = PRECISION_LONG_ABOUT, after_help = PRECISION_EXAMPLES)]
    Precision(PrecisionArgs),
}

/// Options of `geom query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// A file of JSON lines; standard input when absent or `-`
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// A precision a user may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrecisionChoice {
    /// 32-bit floats
    F32,
    /// 64-bit floats
    F64,
}

impl PrecisionChoice {
    /// `"f32"` or `"f64"`.
    pub fn name(self) -> &'static str {
        match self {
            PrecisionChoice::F32 => "f32",
            PrecisionChoice::F64 => "f64",
        }
    }
}

/// Image size, shared by `render` and `demo`.
#[derive(Debug, Args)]
pub struct ImageArgs {
    /// Image width in pixels
    #[arg(short = 'W', long, value_name = "PIXELS", default_value_t = 640,
          value_parser = clap::value_parser!(u32).range(1..=MAX_SIDE as i64))]
    pub width: u32,
    /// Image height in pixels
    #[arg(short = 'H', long, value_name = "PIXELS", default_value_t = 480,
          value_parser = clap::value_parser!(u32).range(1..=MAX_SIDE as i64))]
    pub height: u32,
}

/// Options of `geom render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Precision of the shaded image
    #[arg(short, long, value_enum, default_value_t = PrecisionChoice::F64)]
    pub precision: PrecisionChoice,
    /// Output folder, created if needed
    #[arg(short, long, value_name = "DIR", default_value = "out/render")]
    pub out: PathBuf,
    /// Image size.
    #[command(flatten)]
    pub image: ImageArgs,
}

/// Options of `geom demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Output folder, created if needed
    #[arg(short, long, value_name = "DIR", default_value = "out/demo")]
    pub out: PathBuf,
    /// Image size.
    #[command(flatten)]
    pub image: ImageArgs,
}

/// Options of `geom precision`.
#[derive(Debug, Args)]
pub struct PrecisionArgs {
    /// Seed of the case generator
    #[arg(short, long, default_value_t = 1)]
    pub seed: u64,
    /// Cases per shape and category
    #[arg(short = 'n', long, value_name = "N", default_value_t = 5000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub cases: u32,
    /// Print one JSON object instead of the table
    #[arg(short, long)]
    pub json: bool,
    /// Also write histograms and the error-vs-distance plot into DIR
    #[arg(short = 'p', long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

const QUERY_LONG_ABOUT: &str = "\
Answer JSON-lines geometric queries, read from FILE or standard input.

Each non-blank input line is one JSON object and gets one output line, in
order; blank lines are skipped. Every answer echoes the input's \"id\" (null
when it has none or the line is not JSON). contact, distance and
closest_points answer every pair of shapes, in either order, except two
heightfields and two half-spaces (unbounded: they overlap without a depth
unless parallel); contact also refuses a trimesh against a trimesh or a
heightfield (a lone triangle has no solid side to measure a depth from);
sweep moves any shape against any other shape.";

const QUERY_SHORT_EXAMPLES: &str = "\
Example:
  echo '{\"op\":\"ray_cast\",\"shape\":{\"type\":\"sphere\",\"center\":[0,0,5],\"radius\":1},\"ray\":{\"origin\":[0,0,0],\"dir\":[0,0,1]}}' | geom query

`geom query --help` lists every op, every shape and more examples.";

/// The query format, with examples: each `  {` line is an input line and
/// the `  => ` line after it is its answer (tested).
pub const QUERY_DETAILS: &str = "\
Ops (precision \"f32\" or \"f64\", default \"f64\"; the answer's fields follow \"id\"):
  {\"op\": \"ray_cast\", \"shape\": SHAPE, \"ray\": {\"origin\": [x,y,z], \"dir\": [x,y,z]},
   \"max_t\": NUM, \"solid\": BOOL}
      -> \"hit\":true,\"t\":…,\"point\":[…],\"normal\":[…]   or   \"hit\":false
         t in units of dir (point = origin + t*dir), 0 <= t <= max_t (default
         infinity); solid (default true): a ray starting inside hits at t = 0,
         hollow: it reports where it leaves; the normal points out of the shape
  {\"op\": \"closest_point\", \"shape\": SHAPE, \"point\": [x,y,z], \"solid\": BOOL}
      -> \"point\":[…],\"inside\":BOOL,\"distance\":signed, negative inside
  {\"op\": \"distance\", \"a\": SHAPE, \"b\": SHAPE}
      -> \"distance\":…   0 when the shapes touch or overlap
  {\"op\": \"closest_points\", \"a\": SHAPE, \"b\": SHAPE, \"max_distance\": NUM}
      -> \"status\":\"within\",\"distance\":…,\"point_a\":[…],\"point_b\":[…]
         or \"status\":\"intersecting\" (touching or overlapping)
         or \"status\":\"beyond\" (farther apart than max_distance, default infinity)
  {\"op\": \"contact\", \"a\": SHAPE, \"b\": SHAPE, \"margin\": NUM}
      -> \"contacts\":[{\"point_a\":[…],\"point_b\":[…],\"normal\":[…],\"depth\":…},…]
         normal from a to b; depth > 0 overlapping, down to -margin (default 0)
         for shapes apart by at most margin; at most 4 points per manifold
  {\"op\": \"sweep\", \"shape\": SHAPE, \"motion\": [dx,dy,dz], \"target\": SHAPE}
      -> \"hit\":true,\"toi\":…,\"point\":[…],\"normal\":[…]   or   \"hit\":false
         shape moved by toi*motion (toi in [0,1]) first touches target at point;
         normal from the target towards the shape; toi 0 when starting in contact
         and moving further in. Spheres, capsules and ellipsoids are swept exactly
         against triangles and heightfields; other pairs by conservative
         advancement (toi never past the contact, within 16 ulps of the size)
  {\"op\": \"slide\", \"shape\": SHAPE, \"motion\": [dx,dy,dz], \"world\": [SHAPE,…],
   \"max_iterations\": N}
      -> \"position\":[…],\"collisions\":N
         one collide-and-slide move of a sphere, capsule or ellipsoid (no gravity):
         where its centre ends; skin width 1e-3 of its smallest half-extent;
         max_iterations default 5
  {\"op\": \"world\", \"world\": [SHAPE,…], \"query\": Q, …}
      the shapes in one world (geom::World, indices = positions in the list), then:
      \"query\":\"pairs\"                      -> \"pairs\":[[i,j],…] boxes overlapping, i < j
      \"query\":\"ray_cast\", \"ray\", \"max_t\", \"solid\"
                                         -> \"hit\":true,\"index\":i,\"t\",\"point\",\"normal\"
      \"query\":\"overlaps\", \"shape\": SHAPE  -> \"indices\":[…] touching or overlapping it
      \"query\":\"sweep\", \"shape\": SHAPE, \"motion\": [..]
                                         -> \"hit\":true,\"index\":i,\"toi\",\"point\",\"normal\"

Shapes (world coordinates; rotation is a quaternion [x,y,z,w], normalised,
default identity):
  {\"type\":\"sphere\",    \"center\":[..], \"radius\":r}
  {\"type\":\"capsule\",   \"a\":[..], \"b\":[..], \"radius\":r}
  {\"type\":\"cylinder\",  \"a\":[..], \"b\":[..], \"radius\":r}        capped
  {\"type\":\"cone\",      \"apex\":[..], \"base\":[..], \"radius\":r}  base disk at base
  {\"type\":\"ellipsoid\", \"center\":[..], \"radii\":[..], \"rotation\":[..]}
  {\"type\":\"box\",       \"center\":[..], \"half_extents\":[..], \"rotation\":[..]}
  {\"type\":\"halfspace\", \"normal\":[..], \"offset\":d}           solid where n.x <= d
  {\"type\":\"triangle\",  \"a\":[..], \"b\":[..], \"c\":[..]}
  {\"type\":\"segment\",   \"a\":[..], \"b\":[..]}
  {\"type\":\"heightfield\", \"origin\":[..], \"cell\":[dx,dz], \"rows\":R, \"cols\":C,
   \"heights\":[R*C numbers, row-major], \"holes\":[cells], \"flip\":[cells]}
     sample (i,j) at origin + (i*dx, heights[i*C+j], j*dz); cell (i,j) = i*(C-1)+j,
     split along (i,j)-(i+1,j+1), or (i+1,j)-(i,j+1) when flipped; Y-up, solid below
  {\"type\":\"trimesh\",   \"vertices\":[[x,y,z],…], \"indices\":[[i,j,k],…]}
     triangles counter-clockwise about their front; a closed mesh is a solid,
     an open one a two-sided surface
  {\"type\":\"hull\",      \"points\":[[x,y,z],…]}   their convex hull
  {\"type\":\"compound\",  \"children\":[SHAPE,…]}  the union of the children

Numbers print as the shortest decimal that reads back to the same value in
the line's precision. A line that cannot be answered (bad JSON, a missing,
misspelt or unknown field, an invalid shape) gets
{\"id\":…,\"line\":N,\"error\":\"…\"} and the run goes on; N counts every
physical line from 1. Exit status: 0 when every line was answered, 1 when
any line failed, 2 for a bad command line. Output to a closed pipe
(`geom query … | head`) ends the run quietly with status 0.

Examples (each input line, then its answer; in a file or through `echo '…' | geom query`):
  {\"id\":1,\"op\":\"ray_cast\",\"shape\":{\"type\":\"sphere\",\"center\":[0,0,5],\"radius\":1},\"ray\":{\"origin\":[0,0,0],\"dir\":[0,0,1]}}
  => {\"id\":1,\"hit\":true,\"t\":4,\"point\":[0,0,4],\"normal\":[0,0,-1]}
  {\"id\":2,\"op\":\"ray_cast\",\"shape\":{\"type\":\"sphere\",\"center\":[0,0,5],\"radius\":1},\"ray\":{\"origin\":[0,0,0],\"dir\":[0,0,1]},\"max_t\":3}
  => {\"id\":2,\"hit\":false}
  {\"id\":3,\"op\":\"closest_point\",\"shape\":{\"type\":\"box\",\"center\":[0,0,0],\"half_extents\":[1,2,3]},\"point\":[4,1,0]}
  => {\"id\":3,\"point\":[1,1,0],\"inside\":false,\"distance\":3}
  {\"id\":4,\"op\":\"distance\",\"a\":{\"type\":\"box\",\"center\":[0,0,0],\"half_extents\":[1,1,1]},\"b\":{\"type\":\"sphere\",\"center\":[3,0,0],\"radius\":0.5}}
  => {\"id\":4,\"distance\":1.5}
  {\"id\":5,\"op\":\"closest_points\",\"a\":{\"type\":\"box\",\"center\":[0,0,0],\"half_extents\":[1,1,1]},\"b\":{\"type\":\"sphere\",\"center\":[3,0,0],\"radius\":0.5}}
  => {\"id\":5,\"status\":\"within\",\"distance\":1.5,\"point_a\":[1,0,0],\"point_b\":[2.5,0,0]}
  {\"id\":6,\"op\":\"contact\",\"a\":{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1},\"b\":{\"type\":\"sphere\",\"center\":[1.5,0,0],\"radius\":1}}
  => {\"id\":6,\"contacts\":[{\"point_a\":[1,0,0],\"point_b\":[0.5,0,0],\"normal\":[1,0,0],\"depth\":0.5}]}
  {\"id\":7,\"op\":\"sweep\",\"shape\":{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1},\"motion\":[10,0,0],\"target\":{\"type\":\"triangle\",\"a\":[2,-9,-9],\"b\":[2,0,9],\"c\":[2,9,-9]}}
  => {\"id\":7,\"hit\":true,\"toi\":0.1,\"point\":[2,0,0],\"normal\":[-1,0,0]}
  {\"id\":8,\"op\":\"sweep\",\"shape\":{\"type\":\"box\",\"center\":[0,2,0],\"half_extents\":[0.5,0.5,0.5]},\"motion\":[0,-3,0],\"target\":{\"type\":\"halfspace\",\"normal\":[0,1,0],\"offset\":0}}
  => {\"id\":8,\"hit\":true,\"toi\":0.5,\"point\":[-0.5,0,-0.5],\"normal\":[0,1,0]}
  {\"id\":9,\"op\":\"slide\",\"shape\":{\"type\":\"sphere\",\"center\":[0,1,0],\"radius\":1},\"motion\":[0,-2,0],\"world\":[{\"type\":\"halfspace\",\"normal\":[0,1,0],\"offset\":-0.5}]}
  => {\"id\":9,\"position\":[0,0.501,0],\"collisions\":1}
  {\"id\":10,\"op\":\"ray_cast\",\"shape\":{\"type\":\"sphere\",\"center\":[0,0,5],\"radius\":1}}
  => {\"id\":10,\"line\":10,\"error\":\"missing field 'ray'\"}";

const RENDER_LONG_ABOUT: &str = "\
Ray-cast the default scene into PNG images.

The default scene holds one of each primitive (rotated where that means
something) near the origin, and the same scene shifted by (1e4, 1e4, 1e4).
Two views are rendered: `near` looks at the first copy, `far` at the shifted
copy from a camera shifted the same way. For each view it writes into DIR:
  <view>_<precision>.png  the nearest hit per pixel, coloured by its normal
                          (rgb = normal*0.5+0.5, with a little light)
  <view>_error.png        |t_f32 - t_f64| of the same rays in f32 ulps of t_f64,
                          on a log scale with a numbered colour bar; magenta
                          pixels hit in one precision only";

const RENDER_EXAMPLES: &str = "\
Examples:
  geom render                                  f64 images at 640x480 into out/render
  geom render -p f32 -W 320 -H 240 -o out/small  f32 images at 320x240 into out/small";

const DEMO_LONG_ABOUT: &str = "\
Render the demo scenes in both precisions and print what f32 loses.

Writes into DIR:
  near_f64.png, near_f32.png, near_error.png   the default scene (see `geom render --help`)
  far_f64.png, far_f32.png, far_error.png      the same scene 1e4 from the origin
  terrain.png   a heightfield with a box and a cylinder resting on it (dropped
                by a sweep) and a capsule walking across it (the character
                controller), in perspective with shadows
  walk.png      the capsule's path seen from above, over the terrain's heights
Each image has a title band above it; error maps and the walk also a
colour bar with numbered ticks and a legend below. It prints a table: per view and shape, the rays cast, the hits in each
precision, the rays where only one precision hit, the max and median
f32-vs-f64 error of t in f32 ulps (of t_f64), and the time spent casting.";

const DEMO_EXAMPLES: &str = "\
Examples:
  geom demo                                    640x480 images into out/demo
  geom demo -W 320 -H 240 -o out/demo-small    smaller images elsewhere";

const PRECISION_LONG_ABOUT: &str = "\
Measure how much precision f32 and f64 lose, per shape, query and category.

Runs every shape's ray cast (t, hit point, normal) and closest point, and
pair contacts through the dispatch table, at f32, f64 and a double-double
reference (about 106 bits) through the same generic code, on inputs exactly
representable in f32, over categories: generic, far_small (a small shape
1e3-1e5 away), offset (the scene 1e4-1e6 from the origin), grazing (within
1e-4 of the surface), axis_parallel, inside, max_t (cut-off within 1e-3 of
the hit), high_aspect (ellipsoids up to 1000:1), near_surface (closest
points) and resting (contacts).

Per row it prints hit/miss disagreements with the reference, split into
wrong ones and marginal ones (the exact answer flips within 4 f32 ulps of
the inputs), and the error in ulps of the row's own precision (p50, p99,
max) and in units of the shape's size, beside a naive f32 baseline. A
progress bar is drawn on stderr when it is a terminal.";

const PRECISION_EXAMPLES: &str = "\
Examples:
  geom precision                               5000 cases a row (a few seconds in a release build)
  geom precision -n 200 -s 3 --json            a quick run with another seed, as JSON
  geom precision -n 200 -p out/plots           also write the plots into out/plots";

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    fn parse(arguments: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("geom").chain(arguments.iter().copied()))
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn render_options_long_short_and_defaults() {
        let Command::Render(render) = parse(&["render", "-p", "f32", "--width=32", "-H", "24", "-o", "x"])
            .unwrap()
            .command
        else {
            panic!("not a render");
        };
        assert_eq!(render.precision, PrecisionChoice::F32);
        assert_eq!((render.image.width, render.image.height), (32, 24));
        assert_eq!(render.out, PathBuf::from("x"));
        let Command::Demo(demo) = parse(&["demo"]).unwrap().command else {
            panic!("not a demo");
        };
        assert_eq!((demo.image.width, demo.image.height), (640, 480));
        assert_eq!(demo.out, PathBuf::from("out/demo"));
        let Command::Precision(survey) = parse(&["precision", "-n", "7", "-j"]).unwrap().command else {
            panic!("not a survey");
        };
        assert_eq!(
            (survey.seed, survey.cases, survey.json, survey.plots),
            (1, 7, true, None)
        );
        let Command::Precision(survey) = parse(&["precision"]).unwrap().command else {
            panic!("not a survey");
        };
        assert_eq!((survey.seed, survey.cases, survey.json), (1, 5000, false));
    }

    #[test]
    fn nonsense_is_refused_with_suggestions() {
        for bad in [
            &["render", "--precision", "f16"][..],
            &["render", "--width", "0"],
            &["render", "--width", "-3"],
            &["render", "--width", "8193"],
            &["render", "--fast"],
            &["demo", "--precision", "f32"],
            &["precision", "--cases", "0"],
            &["query", "a", "b"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let typo = parse(&["qurey"]).unwrap_err();
        assert_eq!(typo.kind(), ErrorKind::InvalidSubcommand);
        assert!(typo.to_string().contains("'query'"), "{typo}");
        let typo = parse(&["render", "--widht", "3"]).unwrap_err();
        assert!(typo.to_string().contains("'--width'"), "{typo}");
    }
}
