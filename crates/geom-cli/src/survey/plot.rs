//! The PNG plots of `geom precision`: error histograms per query (f32 and
//! f64, log-scale ulps) and ray-cast error against the shape's distance
//! from the origin. Drawn pixel by pixel on [`RgbImage`], labelled with a
//! built-in 3×5 bitmap font, so no plotting dependency is needed.

use std::io;
use std::path::{Path, PathBuf};

use super::{QUERIES, Survey};
use crate::canvas::{fill, text, text_width};
use crate::image::{Rgb, RgbImage};

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [20, 20, 20];
const GRID: Rgb = [225, 225, 225];
const BLUE: Rgb = [40, 90, 200];
const GREEN: Rgb = [30, 150, 70];
const RED: Rgb = [210, 50, 40];

/// A plot area: pixel rectangle and the data ranges it maps (log10 units).
struct Frame {
    left: usize,
    top: usize,
    width: usize,
    height: usize,
    x_range: (f64, f64),
    y_range: (f64, f64),
}

impl Frame {
    fn x(&self, value: f64) -> usize {
        let (lo, hi) = self.x_range;
        let f = ((value - lo) / (hi - lo)).clamp(0.0, 1.0);
        self.left + (f * (self.width - 1) as f64).round() as usize
    }

    fn y(&self, value: f64) -> usize {
        let (lo, hi) = self.y_range;
        let f = ((value - lo) / (hi - lo)).clamp(0.0, 1.0);
        self.top + self.height - 1 - (f * (self.height - 1) as f64).round() as usize
    }

    /// Axes, grid lines at whole decades, tick labels `1E<k>`.
    fn draw_axes(&self, image: &mut RgbImage, x_label: &str, log_y: bool) {
        for decade in self.x_range.0.ceil() as i32..=self.x_range.1.floor() as i32 {
            let x = self.x(f64::from(decade));
            fill(image, x, self.top, 1, self.height, GRID);
            let label = format!("1E{decade}");
            text(
                image,
                x.saturating_sub(text_width(&label) / 2),
                self.top + self.height + 6,
                &label,
                BLACK,
            );
        }
        if log_y {
            for decade in self.y_range.0.ceil() as i32..=self.y_range.1.floor() as i32 {
                let y = self.y(f64::from(decade));
                fill(image, self.left, y, self.width, 1, GRID);
                let label = format!("1E{decade}");
                text(
                    image,
                    self.left.saturating_sub(text_width(&label) + 6),
                    y.saturating_sub(5),
                    &label,
                    BLACK,
                );
            }
        }
        fill(image, self.left, self.top + self.height, self.width, 1, BLACK);
        fill(image, self.left, self.top, 1, self.height, BLACK);
        let x_label_left = self.left + self.width.saturating_sub(text_width(x_label)) / 2;
        text(image, x_label_left, self.top + self.height + 22, x_label, BLACK);
    }
}

/// Bins of the histograms: an "exact" bar (error 0), then tenth-decade
/// bins of log10(ulps) from −4 to 4 (values outside clamp to the ends).
const LOG_RANGE: (f64, f64) = (-4.0, 4.0);
const BINS_PER_DECADE: f64 = 10.0;

fn histogram(values: &[f64]) -> (usize, Vec<usize>) {
    let bins = ((LOG_RANGE.1 - LOG_RANGE.0) * BINS_PER_DECADE) as usize;
    let mut counts = vec![0; bins];
    let mut exact = 0;
    for &v in values {
        if v == 0.0 {
            exact += 1;
            continue;
        }
        let i = ((v.log10() - LOG_RANGE.0) * BINS_PER_DECADE).floor();
        counts[(i.max(0.0) as usize).min(bins - 1)] += 1;
    }
    (exact, counts)
}

/// A step for percentage ticks so that about five of them cover `peak`.
fn percent_step(peak: f64) -> f64 {
    [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 50.0]
        .into_iter()
        .find(|step| peak / step <= 5.0)
        .unwrap_or(100.0)
}

/// One histogram panel of `values` (ulps) at vertical offset `top`: bars
/// as a share of the cases (left axis, in percent), the exact answers in
/// their own bar, the median and 99th percentile marked.
fn histogram_panel(image: &mut RgbImage, top: usize, title: &str, values: &[f64], colour: Rgb) {
    let frame = Frame {
        left: 150,
        top: top + 34,
        width: 640,
        height: 150,
        x_range: LOG_RANGE,
        y_range: (0.0, 1.0),
    };
    let (exact, counts) = histogram(values);
    let total = values.len().max(1) as f64;
    let peak = counts.iter().copied().chain([exact]).max().unwrap_or(0).max(1) as f64;
    frame.draw_axes(image, "ERROR (ULPS OF ITS OWN PRECISION, LOG SCALE)", false);
    // Percent ticks on the left axis, shared by the exact bar.
    let peak_percent = peak / total * 100.0;
    let step = percent_step(peak_percent);
    let bar_height = |count: f64| (count / peak * frame.height as f64) as usize;
    let mut tick = 0.0;
    while tick <= peak_percent {
        let y = frame.top + frame.height - bar_height(tick / 100.0 * total);
        fill(image, frame.left, y, frame.width, 1, GRID);
        fill(image, frame.left - 4, y, 4, 1, BLACK);
        let label = if step < 1.0 {
            format!("{tick:.1}%")
        } else {
            format!("{tick:.0}%")
        };
        text(
            image,
            92usize.saturating_sub(text_width(&label)),
            y.saturating_sub(5),
            &label,
            BLACK,
        );
        tick += step;
    }
    text(image, 10, top + 18, "SHARE OF CASES", BLACK);
    // The exact bar sits between the tick labels and the axis.
    let exact_height = bar_height(exact as f64);
    fill(
        image,
        104,
        frame.top + frame.height - exact_height,
        30,
        exact_height,
        colour,
    );
    fill(image, 100, frame.top + frame.height, 38, 1, BLACK);
    text(image, 104, frame.top + frame.height + 6, "=0", BLACK);
    let bin_width = frame.width as f64 / counts.len() as f64;
    for (i, &count) in counts.iter().enumerate() {
        let height = bar_height(count as f64);
        let x = frame.left + 1 + (i as f64 * bin_width) as usize;
        fill(
            image,
            x,
            frame.top + frame.height - height,
            (bin_width as usize).max(1),
            height,
            colour,
        );
    }
    let quantile = |p| super::quantile(values, p);
    for (name, p, mark) in [("P50", 0.5, BLACK), ("P99", 0.99, RED)] {
        let q = quantile(p);
        if q > 0.0 {
            let x = frame.x(q.log10());
            fill(image, x, frame.top, 1, frame.height, mark);
            // Right of the line, or left of it where the frame ends.
            let label = format!("{name} {q:.2}");
            let right_end = frame.left + frame.width;
            let left = if x + 3 + text_width(&label) <= right_end {
                x + 3
            } else {
                x.saturating_sub(3 + text_width(&label))
            };
            text(
                image,
                left,
                frame.top + 2 + if p > 0.9 { 12 } else { 0 },
                &label,
                mark,
            );
        }
    }
    let header = format!(
        "{title}: N = {}, EXACT {:.1}%, MAX {:.3} ULPS",
        values.len(),
        exact as f64 / total * 100.0,
        quantile(1.0)
    );
    text(image, 10, top + 2, &header, BLACK);
}

fn write_histogram(survey: &Survey, query: &str, path: &Path) -> io::Result<()> {
    let mut image = RgbImage::new(820, 500, WHITE);
    let rows = survey.rows.iter().filter(|r| r.query == query);
    let f32_values: Vec<f64> = rows.clone().flat_map(|r| r.f32.ulps.iter().copied()).collect();
    let f64_values: Vec<f64> = rows.flat_map(|r| r.f64.ulps.iter().copied()).collect();
    let name = query.to_ascii_uppercase();
    histogram_panel(&mut image, 5, &format!("{name} ERROR IN F32"), &f32_values, BLUE);
    histogram_panel(
        &mut image,
        255,
        &format!("{name} ERROR IN F64"),
        &f64_values,
        GREEN,
    );
    image.write_png(path)
}

/// A scatter series: its name, colour and the value it plots.
type Series = (&'static str, Rgb, fn(&super::DistanceSample) -> Option<f64>);

fn write_distance_plot(survey: &Survey, path: &Path) -> io::Result<()> {
    let mut image = RgbImage::new(760, 520, WHITE);
    let frame = Frame {
        left: 90,
        top: 40,
        width: 640,
        height: 400,
        x_range: (-1.0, 6.5),
        y_range: (-3.0, 7.0),
    };
    frame.draw_axes(&mut image, "DISTANCE OF THE SHAPE FROM THE ORIGIN", true);
    text(&mut image, 10, 30, "ULPS", BLACK);
    text(
        &mut image,
        10,
        8,
        "RAY T ERROR (ULPS OF ITS OWN PRECISION) VS DISTANCE; ERROR 0 DRAWN AT 1E-3",
        BLACK,
    );
    // Draw the baseline first so geom's points stay visible on top.
    let series: [Series; 3] = [
        ("NAIVE F32", RED, |s| s.naive),
        ("F64", GREEN, |s| s.f64),
        ("F32", BLUE, |s| s.f32),
    ];
    for (_, colour, get) in &series {
        for sample in &survey.distance_samples {
            let Some(error) = get(sample) else { continue };
            let x = frame.x(sample.distance.max(1e-9).log10());
            let y = frame.y(if error > 0.0 { error.log10() } else { -3.0 });
            fill(
                &mut image,
                x.saturating_sub(1),
                y.saturating_sub(1),
                3,
                3,
                *colour,
            );
        }
    }
    for (i, (name, colour, _)) in series.iter().enumerate() {
        let x = frame.left + 10 + i * 130;
        fill(&mut image, x, 24, 10, 10, *colour);
        text(&mut image, x + 14, 24, name, BLACK);
    }
    image.write_png(path)
}

/// Writes `hist_<query>.png` for each query and `error_vs_distance.png`
/// into `folder`; returns the paths written.
pub fn write_plots(survey: &Survey, folder: &Path) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for query in QUERIES {
        let path = folder.join(format!("hist_{query}.png"));
        write_histogram(survey, query, &path)?;
        written.push(path);
    }
    let path = folder.join("error_vs_distance.png");
    write_distance_plot(survey, &path)?;
    written.push(path);
    Ok(written)
}
