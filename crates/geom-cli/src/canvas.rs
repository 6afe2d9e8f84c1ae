//! Drawing on [`RgbImage`]: a built-in 3×5 bitmap font (so no plotting or
//! font dependency is needed), lines, discs, colour bars with numbered
//! ticks, legends, and figures with a title band above a picture.

use crate::image::{Rgb, RgbImage};

/// Text and axes.
pub const INK: Rgb = [20, 20, 20];
/// Figure background.
pub const PAPER: Rgb = [255, 255, 255];
/// Secondary text.
pub const GREY_INK: Rgb = [90, 90, 90];

/// Glyphs of the 3×5 font, rows top to bottom, `#` set.
const FONT: &[(char, [&str; 5])] = &[
    ('0', ["###", "#.#", "#.#", "#.#", "###"]),
    ('1', [".#.", "##.", ".#.", ".#.", "###"]),
    ('2', ["###", "..#", "###", "#..", "###"]),
    ('3', ["###", "..#", "###", "..#", "###"]),
    ('4', ["#.#", "#.#", "###", "..#", "..#"]),
    ('5', ["###", "#..", "###", "..#", "###"]),
    ('6', ["###", "#..", "###", "#.#", "###"]),
    ('7', ["###", "..#", "..#", ".#.", ".#."]),
    ('8', ["###", "#.#", "###", "#.#", "###"]),
    ('9', ["###", "#.#", "###", "..#", "###"]),
    ('A', [".#.", "#.#", "###", "#.#", "#.#"]),
    ('B', ["##.", "#.#", "##.", "#.#", "##."]),
    ('C', [".##", "#..", "#..", "#..", ".##"]),
    ('D', ["##.", "#.#", "#.#", "#.#", "##."]),
    ('E', ["###", "#..", "##.", "#..", "###"]),
    ('F', ["###", "#..", "##.", "#..", "#.."]),
    ('G', [".##", "#..", "#.#", "#.#", ".##"]),
    ('H', ["#.#", "#.#", "###", "#.#", "#.#"]),
    ('I', ["###", ".#.", ".#.", ".#.", "###"]),
    ('J', ["..#", "..#", "..#", "#.#", ".#."]),
    ('K', ["#.#", "#.#", "##.", "#.#", "#.#"]),
    ('L', ["#..", "#..", "#..", "#..", "###"]),
    ('M', ["#.#", "###", "###", "#.#", "#.#"]),
    ('N', ["##.", "#.#", "#.#", "#.#", "#.#"]),
    ('O', [".#.", "#.#", "#.#", "#.#", ".#."]),
    ('P', ["##.", "#.#", "##.", "#..", "#.."]),
    ('Q', [".#.", "#.#", "#.#", "##.", ".##"]),
    ('R', ["##.", "#.#", "##.", "#.#", "#.#"]),
    ('S', [".##", "#..", ".#.", "..#", "##."]),
    ('T', ["###", ".#.", ".#.", ".#.", ".#."]),
    ('U', ["#.#", "#.#", "#.#", "#.#", "###"]),
    ('V', ["#.#", "#.#", "#.#", "#.#", ".#."]),
    ('W', ["#.#", "#.#", "###", "###", "#.#"]),
    ('X', ["#.#", "#.#", ".#.", "#.#", "#.#"]),
    ('Y', ["#.#", "#.#", ".#.", ".#.", ".#."]),
    ('Z', ["###", "..#", ".#.", "#..", "###"]),
    ('.', ["...", "...", "...", "...", ".#."]),
    ('-', ["...", "...", "###", "...", "..."]),
    ('+', ["...", ".#.", "###", ".#.", "..."]),
    ('/', ["..#", "..#", ".#.", "#..", "#.."]),
    (':', ["...", ".#.", "...", ".#.", "..."]),
    ('%', ["#.#", "..#", ".#.", "#..", "#.#"]),
    ('(', [".#.", "#..", "#..", "#..", ".#."]),
    (')', [".#.", "..#", "..#", "..#", ".#."]),
    ('=', ["...", "###", "...", "###", "..."]),
    ('_', ["...", "...", "...", "...", "###"]),
    ('<', ["..#", ".#.", "#..", ".#.", "..#"]),
    ('>', ["#..", ".#.", "..#", ".#.", "#.."]),
    ('^', [".#.", "#.#", "...", "...", "..."]),
    (',', ["...", "...", "...", ".#.", "#.."]),
    (';', ["...", ".#.", "...", ".#.", "#.."]),
    ('|', [".#.", ".#.", ".#.", ".#.", ".#."]),
    ('*', ["...", "#.#", ".#.", "#.#", "..."]),
];

/// Pixel scale of the font: glyphs are 6×10 pixels, 8 apart.
const SCALE: usize = 2;
/// Horizontal distance between glyphs, in pixels.
pub const ADVANCE: usize = 4 * SCALE;
/// Height of a line of text, in pixels.
pub const LINE_HEIGHT: usize = 5 * SCALE;

/// Fills the rectangle with top-left corner `(x, y)`; pixels outside the
/// image are ignored.
pub fn fill(image: &mut RgbImage, x: usize, y: usize, width: usize, height: usize, colour: Rgb) {
    for row in y..y + height {
        for column in x..x + width {
            image.set(column, row, colour);
        }
    }
}

/// `text` with its top-left corner at `(x, y)`; unknown characters are blank.
pub fn text(image: &mut RgbImage, x: usize, y: usize, text: &str, colour: Rgb) {
    for (i, c) in text.chars().enumerate() {
        let upper = c.to_ascii_uppercase();
        let Some((_, rows)) = FONT.iter().find(|(g, _)| *g == upper) else {
            continue;
        };
        for (r, row) in rows.iter().enumerate() {
            for (k, cell) in row.bytes().enumerate() {
                if cell == b'#' {
                    fill(
                        image,
                        x + i * ADVANCE + k * SCALE,
                        y + r * SCALE,
                        SCALE,
                        SCALE,
                        colour,
                    );
                }
            }
        }
    }
}

/// Width of `text` in pixels.
pub fn text_width(text: &str) -> usize {
    text.chars().count() * ADVANCE
}

/// A straight line from `(x0, y0)` to `(x1, y1)` (pixel centres), `width`
/// pixels thick; parts outside the image are clipped.
pub fn line(image: &mut RgbImage, from: (f64, f64), to: (f64, f64), width: usize, colour: Rgb) {
    let steps = ((to.0 - from.0).abs().max((to.1 - from.1).abs()).ceil() as usize).clamp(1, 1 << 16);
    let half = width as f64 / 2.0;
    for k in 0..=steps {
        let f = k as f64 / steps as f64;
        let (x, y) = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
        let (left, top) = ((x - half + 0.5).floor(), (y - half + 0.5).floor());
        if left > -(width as f64) && top > -(width as f64) {
            let (x, y) = (left.max(0.0) as usize, top.max(0.0) as usize);
            let clipped = |start: f64| (width as f64 + start.min(0.0)).max(0.0) as usize;
            fill(image, x, y, clipped(left), clipped(top), colour);
        }
    }
}

/// A filled disc of `radius` pixels centred at `(x, y)`, with a `ring`
/// outline of one pixel.
pub fn disc(image: &mut RgbImage, centre: (f64, f64), radius: f64, colour: Rgb, ring: Rgb) {
    let reach = radius.ceil() as i64 + 1;
    for dy in -reach..=reach {
        for dx in -reach..=reach {
            let (x, y) = (centre.0.round() as i64 + dx, centre.1.round() as i64 + dy);
            let distance = ((dx * dx + dy * dy) as f64).sqrt();
            if x < 0 || y < 0 || distance > radius {
                continue;
            }
            let shade = if distance > radius - 1.0 { ring } else { colour };
            image.set(x as usize, y as usize, shade);
        }
    }
}

/// `label` in `colour` over a dark outline, readable on any background.
pub fn outlined_text(image: &mut RgbImage, x: usize, y: usize, label: &str, colour: Rgb) {
    for (dx, dy) in [(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)] {
        text(image, x + dx, y + dy, label, INK);
    }
    text(image, x + 1, y + 1, label, colour);
}

/// `text` centred on `x`, top at `y`.
pub fn text_centred(image: &mut RgbImage, x: usize, y: usize, label: &str, colour: Rgb) {
    text(image, x.saturating_sub(text_width(label) / 2), y, label, colour);
}

/// `picture` under a white band holding `title` and, if not empty,
/// `subtitle`, over a white band `footer_height` pixels high (for a colour
/// bar or a legend): the new image and the row where the footer starts.
pub fn titled(picture: &RgbImage, title: &str, subtitle: &str, footer_height: usize) -> (RgbImage, usize) {
    let band = if subtitle.is_empty() { 24 } else { 38 };
    let width = picture
        .width()
        .max(text_width(title).max(text_width(subtitle)) + 16);
    let mut figure = RgbImage::new(width, band + picture.height() + footer_height, PAPER);
    text(&mut figure, 8, 7, title, INK);
    if !subtitle.is_empty() {
        text(&mut figure, 8, 7 + LINE_HEIGHT + 4, subtitle, GREY_INK);
    }
    figure.blit(picture, 0, band);
    (figure, band + picture.height())
}

/// A horizontal colour bar from `left` to `left + width` with its top at
/// `top`, `colour(f)` for `f` in `0..=1`, numbered ticks `(f, label)` under
/// it and `caption` centred below the numbers. Returns the row below the
/// caption.
pub fn colour_bar(
    image: &mut RgbImage,
    (left, top, width): (usize, usize, usize),
    colour: impl Fn(f64) -> Rgb,
    ticks: &[(f64, String)],
    caption: &str,
) -> usize {
    const BAR: usize = 12;
    for x in 0..width {
        let f = x as f64 / (width.max(2) - 1) as f64;
        fill(image, left + x, top, 1, BAR, colour(f));
    }
    fill(image, left, top + BAR, width, 1, INK);
    for (f, label) in ticks {
        let x = left + (f.clamp(0.0, 1.0) * (width.max(2) - 1) as f64).round() as usize;
        fill(image, x, top + BAR, 1, 5, INK);
        text_centred(image, x, top + BAR + 8, label, INK);
    }
    let caption_top = top + BAR + 8 + LINE_HEIGHT + 6;
    text_centred(image, left + width / 2, caption_top, caption, INK);
    caption_top + LINE_HEIGHT
}

/// A legend entry: a swatch of `colour` and its `label` at `(x, y)`;
/// returns the x after it.
pub fn legend_entry(image: &mut RgbImage, x: usize, y: usize, colour: Rgb, label: &str) -> usize {
    fill(image, x, y, 10, 10, colour);
    fill(image, x, y, 10, 1, INK);
    fill(image, x, y + 9, 10, 1, INK);
    fill(image, x, y, 1, 10, INK);
    fill(image, x + 9, y, 1, 10, INK);
    text(image, x + 14, y, label, INK);
    x + 14 + text_width(label) + 18
}

/// `10^exponent` as the font writes it: `1E-3`.
pub fn decade_label(exponent: i32) -> String {
    format!("1E{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inked(image: &RgbImage) -> usize {
        (0..image.height())
            .flat_map(|y| (0..image.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| image.get(x, y) != Some(PAPER))
            .count()
    }

    #[test]
    fn text_and_lines_land_where_asked() {
        let mut image = RgbImage::new(60, 30, PAPER);
        text(&mut image, 2, 2, "1E-3", INK);
        // '1' is ".#." on its first row: the middle column of the glyph.
        assert_eq!(image.get(2 + SCALE, 2), Some(INK));
        assert_eq!(image.get(2, 2), Some(PAPER));
        assert_eq!(text_width("1E-3"), 4 * ADVANCE);
        let mut image = RgbImage::new(20, 20, PAPER);
        line(&mut image, (2.0, 10.0), (17.0, 10.0), 1, INK);
        assert_eq!(inked(&image), 16);
        // Off the image entirely: nothing, no panic.
        line(&mut image, (-50.0, -50.0), (-10.0, -40.0), 3, INK);
        assert_eq!(inked(&image), 16);
        disc(&mut image, (5.0, 5.0), 3.0, [255, 0, 0], INK);
        assert_eq!(image.get(5, 5), Some([255, 0, 0]));
    }

    #[test]
    fn figures_keep_the_picture_and_number_the_bar() {
        let picture = RgbImage::new(100, 40, [1, 2, 3]);
        let (mut figure, footer) = titled(&picture, "TITLE", "", 50);
        assert_eq!((figure.width(), figure.height(), footer), (100, 24 + 40 + 50, 64));
        assert_eq!(figure.get(50, 24 + 20), Some([1, 2, 3]));
        let below = colour_bar(
            &mut figure,
            (10, footer + 4, 80),
            |f| [(f * 255.0) as u8, 0, 0],
            &[(0.0, "0".into()), (1.0, "1".into())],
            "X",
        );
        assert!(below <= figure.height());
        assert_eq!(figure.get(10, footer + 4), Some([0, 0, 0]));
        assert_eq!(figure.get(89, footer + 4), Some([255, 0, 0]));
    }
}
