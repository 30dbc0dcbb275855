//! A board picture as PNG: the SVG of [`super::svg`] rasterised in process by resvg
//! (no browser, no external program), with the machine's fonts.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use resvg::usvg::fontdb::{Database, FaceInfo, Source, Stretch, Style, Weight};

/// How many pixels a PNG has for each unit of its SVG: one, the size a mail client
/// shows it at; the picture goes in every player's mail, so it is kept small.
pub const PNG_SCALE: f32 = 1.0;

/// How many pixels the colour quantiser learns from: one in this many (1 to 30; NeuQuant's
/// own advice is 10 for a good palette quickly).
const QUANTISER_SAMPLING: i32 = 10;

/// The most pixels a picture may have (a board drawn in error must not eat memory).
const MAX_PIXELS: u64 = 40_000_000;

/// The family every picture names first for its text ([`super::svg::FONT_FAMILY`]).
const SANS_FAMILY: &str = "DejaVu Sans";

/// The family every picture names first for its monospace text
/// ([`super::svg::MONO_FAMILY`]).
const MONO_FAMILY: &str = "DejaVu Sans Mono";

/// The families every picture draws with.
const PICTURE_FAMILIES: [&str; 2] = [SANS_FAMILY, MONO_FAMILY];

/// The most of a font file read into memory (DejaVu's are under 1 MB each).
const MAX_FONT_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// The machine's fonts (DejaVu on Debian, which every picture names first), found
/// once per process: a mail run draws a picture for every player.
fn fonts() -> Arc<Database> {
    static FONTS: OnceLock<Arc<Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut fonts = system_fonts();
            keep_in_memory(&mut fonts, &PICTURE_FAMILIES);
            Arc::new(fonts)
        })
        .clone()
}

/// The machine's fonts as fontdb finds them, each face read from its file when used.
fn system_fonts() -> Database {
    let mut fonts = Database::new();
    fonts.load_system_fonts();
    fonts.set_sans_serif_family(SANS_FAMILY);
    fonts.set_monospace_family(MONO_FAMILY);
    fonts
}

/// Reads the files of the faces a picture draws with (of `families`, upright, regular
/// or bold) into memory, once. resvg asks for a face's data for every run of text it
/// lays out and every glyph it draws, and for a face kept as a file fontdb opens and
/// maps the file each time: 610 to 654 times for one board measured, and a sixth to a
/// fifth of the time its picture took. A file that cannot be read (or is larger than
/// [`MAX_FONT_FILE_BYTES`]) stays a file.
fn keep_in_memory(fonts: &mut Database, families: &[&str]) {
    let mut paths: Vec<PathBuf> = fonts
        .faces()
        .filter(|face| drawn_with(face, families))
        .filter_map(|face| match &face.source {
            Source::File(path) => Some(path.clone()),
            _ => None,
        })
        .collect();
    paths.sort();
    paths.dedup();
    for path in paths {
        let Ok(bytes) = crate::basics::store::read_limited(&path, MAX_FONT_FILE_BYTES) else {
            continue;
        };
        let from_file: Vec<_> = fonts
            .faces()
            .filter(|face| matches!(&face.source, Source::File(file) if *file == path))
            .map(|face| face.id)
            .collect();
        for id in from_file {
            fonts.remove_face(id);
        }
        fonts.load_font_data(bytes);
    }
}

/// Whether a picture draws with `face`: one of `families`, upright, regular or bold
/// (the pictures' text is never slanted, and only bold is ever asked for).
fn drawn_with(face: &FaceInfo, families: &[&str]) -> bool {
    face.families
        .iter()
        .any(|(family, _)| families.contains(&family.as_str()))
        && face.style == Style::Normal
        && face.stretch == Stretch::Normal
        && (face.weight == Weight::NORMAL || face.weight == Weight::BOLD)
}

/// The PNG of `svg`, drawn at [`PNG_SCALE`].
///
/// # Errors
/// The SVG cannot be read or is too large to draw.
pub fn png_of_svg(svg: &str) -> Result<Vec<u8>, String> {
    png_with_fonts(svg, fonts())
}

fn png_with_fonts(svg: &str, fonts: Arc<Database>) -> Result<Vec<u8>, String> {
    let options = resvg::usvg::Options {
        fontdb: fonts,
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
    // No filter: a filter predicts a pixel from its neighbours' values, which for
    // palette indices are arbitrary numbers; unfiltered rows of a few flat colours
    // compress a fifth smaller (the PNG specification advises the same for palettes).
    encoder.set_filter(png::Filter::NoFilter);
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
    fn the_faces_a_picture_draws_with_are_read_into_memory() {
        // Debian's fonts-dejavu-core (which .ci/run installs) has DejaVu Sans and DejaVu
        // Sans Mono, each regular and bold.
        let fonts = fonts();
        let drawn: Vec<&FaceInfo> = fonts
            .faces()
            .filter(|face| drawn_with(face, &PICTURE_FAMILIES))
            .collect();
        assert!(drawn.len() >= 4, "{drawn:?}");
        for face in drawn {
            assert!(matches!(face.source, Source::Binary(_)), "{face:?}");
        }
        // What no picture draws with stays where it was.
        assert!(fonts
            .faces()
            .any(|face| matches!(face.source, Source::File(_))));
    }

    #[test]
    fn text_is_drawn_alike_from_the_files_and_from_memory() {
        use super::super::svg::{Font, Svg};
        let mut svg = Svg::new(300.0, 60.0, "test");
        svg.text(
            (150.0, 20.0),
            "Ann: 12 points",
            Font::centred(14.0, "#202020"),
        );
        let mut bold = Font::centred(12.0, "#802020");
        bold.bold = true;
        svg.text((150.0, 40.0), "turn 7, Bob to move", bold);
        let mut mono = Font::centred(12.0, "#202080");
        mono.mono = true;
        svg.text((150.0, 55.0), "A1 B2 C3", mono);
        let svg = svg.finish();
        let blank = png_of_svg(&Svg::new(300.0, 60.0, "test").finish()).expect("png");
        let drawn = png_of_svg(&svg).expect("png");
        assert_ne!(drawn, blank, "the text is drawn");
        assert_eq!(
            drawn,
            png_with_fonts(&svg, Arc::new(system_fonts())).expect("png")
        );
    }

    #[test]
    fn what_is_not_an_svg_is_refused() {
        assert!(png_of_svg("<html>").is_err());
    }
}
