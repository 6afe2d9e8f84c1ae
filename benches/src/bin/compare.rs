//! `compare`: the benchmark pairs of `geom-benches` with a plain timing loop
//! (warm-up, then the median of several repetitions, geom's and parry3d's
//! taken in turn), printed as one JSON object on stdout and as a table on
//! stderr.
//!
//! ```text
//! cargo run --release -p geom-benches --bin compare -- [--quick] [--threads N] [--plot FILE.svg]
//!     [--plot-pairs FILE.svg] [--plot-speedups FILE.svg] [--filter TEXT[,TEXT...]]
//! ```
//!
//! `--quick` (under a minute) takes 5 repetitions of at least 10 ms each;
//! without it, 15 of at least 50 ms. `--plot` writes an SVG bar chart of
//! ns/ray per shape, geom against parry3d; `--plot-pairs` one of ns per
//! pair contact; `--plot-speedups` one of parry3d's time over geom's for
//! every mesh, tree and world measure, against the 2× goal. `--filter`
//! times only the measures whose name contains one of the texts (comma
//! separated); `--hits` prints the fraction of the rays that hit each
//! shape and exits.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use geom_benches::{Measure, Pass, measures};

struct Options {
    quick: bool,
    threads: usize,
    plot: Option<String>,
    plot_pairs: Option<String>,
    plot_speedups: Option<String>,
    filter: Option<String>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        quick: false,
        threads: 2,
        plot: None,
        plot_pairs: None,
        plot_speedups: None,
        filter: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--threads" => {
                options.threads = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--threads needs a number")?
            }
            "--plot" => options.plot = Some(args.next().ok_or("--plot needs a file name")?),
            "--plot-pairs" => options.plot_pairs = Some(args.next().ok_or("--plot-pairs needs a file name")?),
            "--plot-speedups" => {
                options.plot_speedups = Some(args.next().ok_or("--plot-speedups needs a file name")?)
            }
            "--hits" => {
                print_hit_fractions();
                std::process::exit(0);
            }
            "--filter" => options.filter = Some(args.next().ok_or("--filter needs a text")?),
            "--help" | "-h" => {
                return Err(
                    "usage: compare [--quick] [--threads N] [--plot FILE.svg] [--plot-pairs FILE.svg] [--plot-speedups FILE.svg] [--filter TEXT[,TEXT...]] [--hits]"
                        .into(),
                );
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// The fraction of the 10⁶ benchmark rays that hit each shape.
fn print_hit_fractions() {
    use geom_benches::{LARGE_RAYS, hit_fraction, random_rays, shapes};
    let rays = random_rays(LARGE_RAYS, 1);
    println!("sphere    {:.3}", hit_fraction(&shapes::sphere().0, &rays));
    println!("capsule   {:.3}", hit_fraction(&shapes::capsule().0, &rays));
    println!("cylinder  {:.3}", hit_fraction(&shapes::cylinder().0, &rays));
    println!("cone      {:.3}", hit_fraction(&shapes::cone().0, &rays));
    println!("box       {:.3}", hit_fraction(&shapes::cuboid().0, &rays));
    println!("ellipsoid {:.3}", hit_fraction(&shapes::ellipsoid(), &rays));
}

/// Median ns per item of each pass: one warm-up of each that also sizes
/// its repetition (enough passes to last `min_rep`), then `reps` timed
/// repetitions of each, taken in turn (geom, parry3d, geom, …) so that a
/// change in the machine's speed during the measure (a shared host) falls
/// on both sides of the ratio alike.
fn time_passes(passes: &mut [&mut Pass], items: usize, reps: usize, min_rep: Duration) -> Vec<f64> {
    let counts: Vec<usize> = passes
        .iter_mut()
        .map(|pass| {
            let start = Instant::now();
            black_box(pass());
            let once = start.elapsed().max(Duration::from_nanos(1));
            (min_rep.as_secs_f64() / once.as_secs_f64()).ceil().max(1.0) as usize
        })
        .collect();
    let mut samples = vec![Vec::with_capacity(reps); passes.len()];
    for _ in 0..reps {
        for ((pass, &count), samples) in passes.iter_mut().zip(&counts).zip(&mut samples) {
            let start = Instant::now();
            for _ in 0..count {
                black_box(pass());
            }
            samples.push(start.elapsed().as_secs_f64() * 1e9 / (count * items) as f64);
        }
    }
    samples
        .into_iter()
        .map(|mut samples| {
            samples.sort_by(f64::total_cmp);
            samples[samples.len() / 2]
        })
        .collect()
}

/// One measured pair.
struct Row {
    name: String,
    baseline: Option<String>,
    geom_ns: f64,
    parry_ns: Option<f64>,
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {cores} cores, {}", std::env::consts::OS)
}

fn rustflags() -> String {
    let flags = option_env!("RUSTFLAGS").unwrap_or("");
    let features = if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
        "avx2+fma"
    } else {
        "baseline x86-64 (sse2)"
    };
    format!("{flags} [{features}]").trim().to_string()
}

/// A JSON string literal.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn number(value: Option<f64>) -> String {
    value.map_or("null".to_string(), |v| format!("{v:.3}"))
}

fn to_json(rows: &[Row]) -> String {
    let mut out = format!(
        "{{\"machine\": {}, \"rustflags\": {}, \"measures\": [",
        quoted(&machine()),
        quoted(&rustflags())
    );
    for (i, row) in rows.iter().enumerate() {
        let baseline_ns = row
            .baseline
            .as_ref()
            .and_then(|b| rows.iter().find(|r| &r.name == b))
            .map(|b| b.geom_ns);
        let _ = write!(
            out,
            "{}\n  {{\"name\": {}, \"geom_ns\": {}, \"parry_ns\": {}, \"speedup\": {}, \"baseline\": {}, \"baseline_speedup\": {}}}",
            if i == 0 { "" } else { "," },
            quoted(&row.name),
            number(Some(row.geom_ns)),
            number(row.parry_ns),
            number(row.parry_ns.map(|p| p / row.geom_ns)),
            row.baseline.as_deref().map_or("null".to_string(), quoted),
            number(baseline_ns.map(|b| b / row.geom_ns)),
        );
    }
    out.push_str("\n]}");
    out
}

/// One bar series of a chart: its legend and colour.
type Series = (&'static str, &'static str);

/// The ray-cast chart: ns/ray (log scale) per shape for geom's trait call,
/// parry3d's trait call and geom's 8-lane batch.
fn plot_rays_svg(rows: &[Row]) -> String {
    let shapes = ["sphere", "capsule", "cylinder", "cone", "box", "ellipsoid"];
    let series: [Series; 3] = [
        ("geom, trait call", "#1f77b4"),
        ("parry3d, trait call", "#d62728"),
        ("geom, 8-lane batch", "#2ca02c"),
    ];
    let value = |shape: &str, series: usize| -> Option<f64> {
        let find = |name: String| rows.iter().find(|r| r.name == name);
        match series {
            0 => find(format!("rays_1e6/{shape}/trait")).map(|r| r.geom_ns),
            1 => find(format!("rays_1e6/{shape}/trait")).and_then(|r| r.parry_ns),
            _ => find(format!("rays_1e6/{shape}/batch_x8")).map(|r| r.geom_ns),
        }
    };
    bar_chart(
        "Ray casts: ns per ray, log scale (10⁶ random rays, f32)",
        &shapes,
        &series,
        value,
    )
}

/// The pair-contact chart: ns per query (log scale) per pair for geom's
/// dispatcher, parry3d's one-shot `contact` and its cold manifold.
fn plot_pairs_svg(rows: &[Row]) -> String {
    let pairs: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.name.strip_prefix("pairs/")?.strip_suffix("/contact"))
        .collect();
    let series: [Series; 3] = [
        ("geom, dispatcher", "#1f77b4"),
        ("parry3d, contact", "#d62728"),
        ("parry3d, manifold (cold)", "#ff9896"),
    ];
    let value = |pair: &str, series: usize| -> Option<f64> {
        let find = |name: String| rows.iter().find(|r| r.name == name);
        match series {
            0 => find(format!("pairs/{pair}/contact")).map(|r| r.geom_ns),
            1 => find(format!("pairs/{pair}/contact")).and_then(|r| r.parry_ns),
            _ => find(format!("pairs/{pair}/manifold")).and_then(|r| r.parry_ns),
        }
    };
    bar_chart(
        "Pair contacts: ns per query, log scale (1000 poses per pair, f32)",
        &pairs,
        &series,
        value,
    )
}

/// The speed-up chart: parry3d's time over geom's (linear scale) for every
/// mesh, tree and world measure timed with both, one horizontal bar each,
/// with lines at parity and at the 2× goal.
fn plot_speedups_svg(rows: &[Row]) -> String {
    let bars: Vec<(&str, f64)> = rows
        .iter()
        .filter(|r| ["mesh/", "bvh/", "world/"].iter().any(|p| r.name.starts_with(p)))
        .filter_map(|r| Some((r.name.as_str(), r.parry_ns? / r.geom_ns)))
        .collect();
    let (left, right, top, row_height) = (260.0, 60.0, 60.0, 28.0);
    let width = 820.0;
    let height = top + row_height * bars.len() as f64 + 50.0;
    let largest = bars.iter().map(|&(_, ratio)| ratio).fold(3.0f64, f64::max).ceil();
    let x_of = |ratio: f64| left + (width - left - right) * ratio.clamp(0.0, largest) / largest;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">Meshes, trees, a world: parry3d's time over geom's (> 1: geom faster)</text>\n\
         <text x=\"{}\" y=\"38\" text-anchor=\"middle\" font-size=\"11\" fill=\"#555\">{}</text>\n",
        width / 2.0,
        width / 2.0,
        format!("{} · {}", machine(), rustflags()).replace('&', "&amp;")
    );
    let bottom = top + row_height * bars.len() as f64;
    let mut tick = 0.0;
    while tick <= largest {
        let x = x_of(tick);
        let (stroke, dash) = match tick {
            1.0 => ("#333", ""),
            2.0 => ("#2ca02c", " stroke-dasharray=\"6 4\""),
            _ => ("#ddd", ""),
        };
        let _ = writeln!(
            svg,
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{top}\" y2=\"{bottom}\" stroke=\"{stroke}\"{dash}/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{tick}×</text>",
            bottom + 16.0
        );
        tick += 1.0;
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#2ca02c\">goal</text>",
        x_of(2.0) + 4.0,
        top - 6.0
    );
    for (i, &(name, ratio)) in bars.iter().enumerate() {
        let y = top + row_height * i as f64 + 4.0;
        let colour = if ratio >= 2.0 { "#2ca02c" } else { "#1f77b4" };
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{name}</text>\
             <rect x=\"{left}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{colour}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{ratio:.2}×</text>",
            left - 8.0,
            y + row_height / 2.0,
            x_of(ratio) - left,
            row_height - 8.0,
            x_of(ratio) + 4.0,
            y + row_height / 2.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// A grouped bar chart on a log scale: one group per entry of `groups`,
/// one bar per series, `value(group, series)` in ns (`None`: "n/a").
fn bar_chart(
    title: &str,
    groups: &[&str],
    series: &[Series],
    value: impl Fn(&str, usize) -> Option<f64>,
) -> String {
    let (width, height) = (120.0 + 95.0 * groups.len().max(6) as f64, 420.0);
    let (left, right, top, bottom) = (70.0, 20.0, 50.0, 60.0);
    let plot_height = height - top - bottom;
    // Decades from 0.1 ns to the first power of ten above the largest value.
    let largest = groups
        .iter()
        .flat_map(|g| (0..series.len()).filter_map(|k| value(g, k)))
        .fold(1.0f64, f64::max);
    let (low, high) = (-1.0f64, largest.log10().ceil().max(1.0));
    let y_of = |ns: f64| top + plot_height * (1.0 - (ns.log10().clamp(low, high) - low) / (high - low));
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">{title}</text>\n\
         <text x=\"{}\" y=\"38\" text-anchor=\"middle\" font-size=\"11\" fill=\"#555\">{}</text>\n",
        width / 2.0,
        width / 2.0,
        format!("{} · {}", machine(), rustflags())
            .replace('&', "&amp;")
            .replace('<', "&lt;")
    );
    let mut decade = low;
    while decade <= high {
        let y = y_of(10f64.powf(decade));
        let _ = writeln!(
            svg,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            width - right,
            left - 6.0,
            y + 4.0,
            10f64.powf(decade)
        );
        decade += 1.0;
    }
    let group_width = (width - left - right) / groups.len().max(1) as f64;
    let bar_width = group_width / (series.len() as f64 + 1.0);
    for (i, group) in groups.iter().enumerate() {
        let x0 = left + group_width * i as f64 + bar_width / 2.0;
        for (k, (_, colour)) in series.iter().enumerate() {
            let x = x0 + bar_width * k as f64;
            match value(group, k) {
                Some(ns) => {
                    let y = y_of(ns);
                    let _ = writeln!(
                        svg,
                        "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{colour}\"/>\
                         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{}</text>",
                        bar_width - 2.0,
                        top + plot_height - y,
                        x + bar_width / 2.0 - 1.0,
                        y - 3.0,
                        if ns < 10.0 {
                            format!("{ns:.1}")
                        } else {
                            format!("{ns:.0}")
                        }
                    );
                }
                None => {
                    let _ = writeln!(
                        svg,
                        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">n/a</text>",
                        x + bar_width / 2.0 - 1.0,
                        top + plot_height - 3.0
                    );
                }
            }
        }
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\">{group}</text>",
            x0 + bar_width * (series.len() as f64 - 1.0) / 2.0,
            top + plot_height + 18.0
        );
    }
    for (k, (label, colour)) in series.iter().enumerate() {
        let x = left + 10.0 + 200.0 * k as f64;
        let y = height - 18.0;
        let _ = writeln!(
            svg,
            "<rect x=\"{x}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{colour}\"/><text x=\"{}\" y=\"{y}\">{label}</text>",
            y - 10.0,
            x + 16.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let (reps, min_rep) = if options.quick {
        (5, Duration::from_millis(10))
    } else {
        (15, Duration::from_millis(50))
    };
    let started = Instant::now();
    let mut rows = Vec::new();
    for Measure {
        name,
        baseline,
        items,
        mut geom,
        parry,
    } in measures(options.threads)
    {
        if options
            .filter
            .as_ref()
            .is_some_and(|f| !f.split(',').any(|text| name.contains(text)))
        {
            continue;
        }
        let (geom_ns, parry_ns) = match parry {
            Some(mut parry) => {
                let medians = time_passes(&mut [&mut geom, &mut parry], items, reps, min_rep);
                (medians[0], Some(medians[1]))
            }
            None => (time_passes(&mut [&mut geom], items, reps, min_rep)[0], None),
        };
        eprintln!(
            "{name:<44} geom {geom_ns:>9.2} ns  parry {:>9}  {}",
            parry_ns.map_or("-".to_string(), |p| format!("{p:.2} ns")),
            parry_ns.map_or(String::new(), |p| format!("x{:.2}", p / geom_ns)),
        );
        rows.push(Row {
            name,
            baseline,
            geom_ns,
            parry_ns,
        });
    }
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
    let charts = [
        (&options.plot, plot_rays_svg(&rows)),
        (&options.plot_pairs, plot_pairs_svg(&rows)),
        (&options.plot_speedups, plot_speedups_svg(&rows)),
    ];
    for (path, svg) in charts {
        if let Some(path) = path
            && let Err(error) = std::fs::write(path, svg)
        {
            eprintln!("cannot write {path}: {error}");
            std::process::exit(1);
        }
    }
    println!("{}", to_json(&rows));
}
