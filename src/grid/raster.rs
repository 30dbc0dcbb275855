//! A board picture as PNG: the SVG of [`super::svg`] rasterised in process by resvg
//! (no browser, no external program), with the machine's fonts.

use std::sync::{Arc, OnceLock};

use resvg::usvg::fontdb::Database;

/// How many pixels a PNG has for each unit of its SVG: one, the size a mail client
/// shows it at; the picture goes in every player's mail, so it is kept small.
pub const PNG_SCALE: f32 = 1.0;

/// How many pixels the colour quantiser learns from: one in this many (1 to 30; NeuQuant's
/// own advice is 10 for a good palette quickly).
const QUANTISER_SAMPLING: i32 = 10;

/// The most pixels a picture may have (a board drawn in error must not eat memory).
const MAX_PIXELS: u64 = 40_000_000;

/// The machine's fonts (DejaVu on Debian, which every picture names first), found
/// once per process: a mail run draws a picture for every player.
fn fonts() -> Arc<Database> {
    static FONTS: OnceLock<Arc<Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut fonts = Database::new();
            fonts.load_system_fonts();
            fonts.set_sans_serif_family("DejaVu Sans");
            fonts.set_monospace_family("DejaVu Sans Mono");
            Arc::new(fonts)
        })
        .clone()
}

/// The PNG of `svg`, drawn at [`PNG_SCALE`].
///
/// # Errors
/// The SVG cannot be read or is too large to draw.
pub fn png_of_svg(svg: &str) -> Result<Vec<u8>, String> {
    let options = resvg::usvg::Options {
        fontdb: fonts(),
        ..resvg::usvg::Options::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &options)
        .map_err(|e| format!("the board's picture cannot be read: {e}"))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(PNG_SCALE)
        .ok_or_else(|| "the board's picture has no size".to_string())?;
    if u64::from(size.width()) * u64::from(size.height()) > MAX_PIXELS {
        return Err(format!(
            "the board's picture is too large to draw ({}x{} pixels)",
            size.width(),
            size.height()
        ));
    }
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| "the board's picture has no size".to_string())?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(PNG_SCALE, PNG_SCALE),
        &mut pixmap.as_mut(),
    );
    encode_opaque(&pixmap).map_err(|e| format!("the board's picture cannot be encoded as PNG: {e}"))
}

/// `pixmap` as a PNG of at most 256 colours, compressed hard. A picture goes in every
/// player's mail, and a board is a few flat colours with their anti-aliased edges:
/// indexed, it is a fraction of the size of full colour, and looks the same.
fn encode_opaque(pixmap: &resvg::tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    // Every picture is opaque (drawn on paper): the colours are the pixels' own.
    let mut rgba = Vec::with_capacity(pixmap.pixels().len() * 4);
    for pixel in pixmap.pixels() {
        let colour = pixel.demultiply();
        rgba.extend_from_slice(&[colour.red(), colour.green(), colour.blue(), 255]);
    }
    let quantised = color_quant::NeuQuant::new(QUANTISER_SAMPLING, 256, &rgba);
    let indices: Vec<u8> = rgba
        .chunks_exact(4)
        .map(|pixel| quantised.index_of(pixel) as u8)
        .collect();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(quantised.color_map_rgb());
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&indices)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_becomes_a_png_of_its_size() {
        let mut svg = super::super::svg::Svg::new(40.0, 20.0, "test");
        svg.rect(
            (0.0, 0.0),
            20.0,
            20.0,
            super::super::svg::Style::filled("#ff0000"),
        );
        let png = png_of_svg(&svg.finish()).expect("png");
        assert_eq!(&png[1..4], b"PNG");
        // IHDR: width and height, big-endian, after the signature and chunk header.
        let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
        assert_eq!((width, height), (40, 20));
    }

    #[test]
    fn what_is_not_an_svg_is_refused() {
        assert!(png_of_svg("<html>").is_err());
    }
}
