//! RGB images, their colour maps, and PNG output through the `png` crate.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

/// An 8-bit RGB colour.
pub type Rgb = [u8; 3];

/// A row-major RGB image, top row first.
#[derive(Clone, Debug)]
pub struct RgbImage {
    width: usize,
    height: usize,
    pixels: Vec<Rgb>,
}

impl RgbImage {
    /// A `width` × `height` image filled with `background`.
    pub fn new(width: usize, height: usize, background: Rgb) -> Self {
        RgbImage {
            width,
            height,
            pixels: vec![background; width * height],
        }
    }

    /// Image width in pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Image height in pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Sets pixel `(x, y)` (column, row from the top); outside pixels are ignored.
    pub fn set(&mut self, x: usize, y: usize, colour: Rgb) {
        if x < self.width && y < self.height {
            self.pixels[y * self.width + x] = colour;
        }
    }

    /// Copies `other` with its top-left corner at `(x, y)` (clipped).
    pub fn blit(&mut self, other: &RgbImage, x: usize, y: usize) {
        for row in 0..other.height {
            for column in 0..other.width {
                self.set(x + column, y + row, other.pixels[row * other.width + column]);
            }
        }
    }

    /// The colour at `(x, y)`, if inside.
    #[cfg(test)]
    pub fn get(&self, x: usize, y: usize) -> Option<Rgb> {
        (x < self.width && y < self.height).then(|| self.pixels[y * self.width + x])
    }

    /// Writes the image as an 8-bit RGB PNG at `path`.
    pub fn write_png(&self, path: &Path) -> io::Result<()> {
        let (width, height) = (u32::try_from(self.width), u32::try_from(self.height));
        let (Ok(width), Ok(height)) = (width, height) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "image too large for PNG",
            ));
        };
        let file = File::create(path).map_err(|e| annotate(e, path))?;
        let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let bytes: Vec<u8> = self.pixels.iter().flatten().copied().collect();
        let mut writer = encoder.write_header().map_err(|e| png_error(e, path))?;
        writer.write_image_data(&bytes).map_err(|e| png_error(e, path))?;
        writer.finish().map_err(|e| png_error(e, path))
    }
}

fn annotate(error: io::Error, path: &Path) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

fn png_error(error: png::EncodingError, path: &Path) -> io::Error {
    io::Error::other(format!("{}: {error}", path.display()))
}

/// A colour for a unit normal: `normal * 0.5 + 0.5` as RGB, dimmed by
/// Lambert's cosine law towards a fixed light so shapes read as solid.
pub fn normal_colour(normal: [f64; 3]) -> Rgb {
    let light = [0.36, 0.8, 0.48]; // unit length
    let lambert = (normal[0] * light[0] + normal[1] * light[1] + normal[2] * light[2]).max(0.0);
    let brightness = 0.45 + 0.55 * lambert;
    normal.map(|c| to_byte((c * 0.5 + 0.5) * brightness))
}

/// The background for rays that hit nothing: a soft vertical gradient,
/// `row_fraction` being 0 at the top and 1 at the bottom.
pub fn sky_colour(row_fraction: f64) -> Rgb {
    let top = [0.12, 0.14, 0.2];
    let bottom = [0.3, 0.32, 0.38];
    [0, 1, 2].map(|i| to_byte(top[i] + (bottom[i] - top[i]) * row_fraction))
}

/// A perceptually ordered dark-to-bright ramp (after matplotlib's
/// "inferno"), `fraction` in `0..=1` (clamped).
pub fn heat_colour(fraction: f64) -> Rgb {
    const STOPS: [[f64; 3]; 5] = [
        [0.0, 0.0, 0.016],
        [0.34, 0.063, 0.431],
        [0.737, 0.216, 0.329],
        [0.976, 0.557, 0.035],
        [0.988, 1.0, 0.643],
    ];
    let scaled = fraction.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let lower = (scaled.floor() as usize).min(STOPS.len() - 2);
    let within = scaled - lower as f64;
    [0, 1, 2].map(|i| to_byte(STOPS[lower][i] + (STOPS[lower + 1][i] - STOPS[lower][i]) * within))
}

fn to_byte(channel: f64) -> u8 {
    (channel.clamp(0.0, 1.0) * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_colours_follow_the_normal() {
        let up = normal_colour([0.0, 1.0, 0.0]);
        assert!(up[1] > up[0] && up[1] > up[2]);
        let down = normal_colour([0.0, -1.0, 0.0]);
        assert_eq!(down[1], 0);
    }

    #[test]
    fn heat_ramp_runs_dark_to_bright() {
        let brightness = |c: Rgb| c.iter().map(|&v| u32::from(v)).sum::<u32>();
        let samples: Vec<u32> = (0..=10)
            .map(|i| brightness(heat_colour(i as f64 / 10.0)))
            .collect();
        assert!(samples.windows(2).all(|w| w[0] <= w[1]), "{samples:?}");
        assert_eq!(heat_colour(-1.0), heat_colour(0.0));
        assert_eq!(heat_colour(2.0), heat_colour(1.0));
    }

    #[test]
    fn png_round_trips_size() {
        let mut image = RgbImage::new(3, 2, [1, 2, 3]);
        image.set(2, 1, [200, 100, 50]);
        image.set(5, 5, [0, 0, 0]); // outside: ignored
        assert_eq!(image.get(2, 1), Some([200, 100, 50]));
        assert_eq!(image.get(3, 0), None);
        let path = std::env::temp_dir().join(format!("geom-cli-test-{}.png", std::process::id()));
        image.write_png(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert_eq!(&bytes[16..24], &[0, 0, 0, 3, 0, 0, 0, 2]); // IHDR width, height
    }
}
