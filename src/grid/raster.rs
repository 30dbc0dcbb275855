//! A board picture as PNG: the SVG of [`super::svg`] rasterised in process by resvg
//! (no browser, no external program), with the machine's fonts.

/// How much larger than its SVG units a PNG is drawn: sharp on a phone's screen.
pub const PNG_SCALE: f32 = 1.5;

/// The most pixels a picture may have (a board drawn in error must not eat memory).
const MAX_PIXELS: u64 = 40_000_000;

/// The PNG of `svg`, drawn at [`PNG_SCALE`].
///
/// # Errors
/// The SVG cannot be read or is too large to draw.
pub fn png_of_svg(svg: &str) -> Result<Vec<u8>, String> {
    let mut options = resvg::usvg::Options::default();
    // Text needs fonts: the machine's own (DejaVu on Debian, which every picture
    // names first), read once per picture.
    let fonts = options.fontdb_mut();
    fonts.load_system_fonts();
    fonts.set_sans_serif_family("DejaVu Sans");
    fonts.set_monospace_family("DejaVu Sans Mono");
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
    pixmap
        .encode_png()
        .map_err(|e| format!("the board's picture cannot be encoded as PNG: {e}"))
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
        assert_eq!((width, height), (60, 30));
    }

    #[test]
    fn what_is_not_an_svg_is_refused() {
        assert!(png_of_svg("<html>").is_err());
    }
}
