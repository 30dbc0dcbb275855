//! Shared drawing pieces for the board pictures (`pbem show --format svg`, the mail's
//! inline picture, the replay page), as the canvas is for the ASCII boards.
//!
//! A game draws its board on an [`Svg`] in its own units and the document scales to
//! fit. Every text that reaches the document goes through [`escape`], so a player's
//! name cannot become markup. The pictures use one font family and a fixed palette,
//! so the same position always gives the same bytes (the pictures are snapshot-tested
//! and rasterised in process by [`super::raster`]).

use std::fmt::Write as _;

/// A point in the picture's own units.
pub type Point = (f64, f64);

/// The font every picture names: DejaVu Sans where it is installed (Debian's
/// fonts-dejavu-core), else the viewer's sans-serif.
pub const FONT_FAMILY: &str = "DejaVu Sans, Verdana, sans-serif";

/// The monospace font of the text panels copied from the ASCII board.
pub const MONO_FAMILY: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";

/// Seat colours, told apart with the common colour blindnesses (Okabe and Ito's
/// palette); the seat's letter is drawn as well, so colour is never the only cue.
const SEAT_COLOURS: [&str; 7] = [
    "#e69f00", "#56b4e9", "#009e73", "#cc79a7", "#0072b2", "#d55e00", "#f0e442",
];

/// The colour of seat `seat` (0-based).
pub fn seat_colour(seat: u8) -> &'static str {
    SEAT_COLOURS[usize::from(seat) % SEAT_COLOURS.len()]
}

/// The colour of text drawn on [`seat_colour`]: dark on the light colours.
pub fn ink_on_seat(seat: u8) -> &'static str {
    match usize::from(seat) % SEAT_COLOURS.len() {
        4 | 5 => "#ffffff",
        _ => "#1a1a1a",
    }
}

/// Paper, ink and the marks every game shares.
pub const PAPER: &str = "#fbf8f1";
pub const INK: &str = "#1a1a1a";
pub const FAINT: &str = "#8a8578";
pub const GRID: &str = "#c9c2b1";
/// The outline of what the last move changed.
pub const LAST_MOVE: &str = "#e4002b";

/// How a shape is filled and outlined.
#[derive(Debug, Clone, Copy)]
pub struct Style<'a> {
    pub fill: &'a str,
    pub stroke: &'a str,
    pub stroke_width: f64,
}

impl<'a> Style<'a> {
    pub const fn filled(fill: &'a str) -> Self {
        Style {
            fill,
            stroke: "none",
            stroke_width: 0.0,
        }
    }

    pub const fn outlined(fill: &'a str, stroke: &'a str, stroke_width: f64) -> Self {
        Style {
            fill,
            stroke,
            stroke_width,
        }
    }
}

/// Where a text stands against its point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// How a text is set.
#[derive(Debug, Clone, Copy)]
pub struct Font<'a> {
    pub size: f64,
    pub anchor: Anchor,
    pub fill: &'a str,
    pub bold: bool,
    pub mono: bool,
}

impl<'a> Font<'a> {
    /// Text of `size` centred on its point (horizontally and vertically).
    pub const fn centred(size: f64, fill: &'a str) -> Self {
        Font {
            size,
            anchor: Anchor::Middle,
            fill,
            bold: false,
            mono: false,
        }
    }

    pub const fn bold(self) -> Self {
        Font { bold: true, ..self }
    }

    pub const fn anchored(self, anchor: Anchor) -> Self {
        Font { anchor, ..self }
    }
}

/// An SVG document being drawn: shapes in the order they are added (later on top).
#[derive(Debug, Clone)]
pub struct Svg {
    width: f64,
    height: f64,
    title: String,
    body: String,
}

/// Numbers with at most two decimals and no trailing zeros: short and repeatable.
fn num(value: f64) -> String {
    let rounded = (value * 100.0).round() / 100.0;
    let text = format!("{rounded:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

fn points_text(points: &[Point]) -> String {
    points
        .iter()
        .map(|(x, y)| format!("{},{}", num(*x), num(*y)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn style_text(style: &Style<'_>) -> String {
    if style.stroke == "none" || style.stroke_width <= 0.0 {
        format!(r#"fill="{}""#, style.fill)
    } else {
        format!(
            r#"fill="{}" stroke="{}" stroke-width="{}" stroke-linejoin="round""#,
            style.fill,
            style.stroke,
            num(style.stroke_width)
        )
    }
}

/// `text` safe inside an SVG (XML) element or attribute: the five markup characters
/// escaped and control characters left out.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

impl Svg {
    /// A picture `width` by `height` units, titled `title` (what a screen reader says).
    pub fn new(width: f64, height: f64, title: &str) -> Self {
        Svg {
            width,
            height,
            title: escape(title),
            body: String::new(),
        }
    }

    pub fn width(&self) -> f64 {
        self.width
    }

    pub fn height(&self) -> f64 {
        self.height
    }

    /// Makes the picture taller (to fit panels drawn below the board).
    pub fn grow_to(&mut self, height: f64) {
        self.height = self.height.max(height);
    }

    pub fn polygon(&mut self, points: &[Point], style: Style<'_>) {
        let _ = writeln!(
            self.body,
            r#"<polygon points="{}" {}/>"#,
            points_text(points),
            style_text(&style)
        );
    }

    pub fn rect(&mut self, at: Point, width: f64, height: f64, style: Style<'_>) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" {}/>"#,
            num(at.0),
            num(at.1),
            num(width),
            num(height),
            style_text(&style)
        );
    }

    pub fn circle(&mut self, centre: Point, radius: f64, style: Style<'_>) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{}" cy="{}" r="{}" {}/>"#,
            num(centre.0),
            num(centre.1),
            num(radius),
            style_text(&style)
        );
    }

    /// A line with round ends (roads meet without gaps).
    pub fn line(&mut self, from: Point, to: Point, stroke: &str, width: f64) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}" stroke-width="{}" stroke-linecap="round"/>"#,
            num(from.0),
            num(from.1),
            num(to.0),
            num(to.1),
            num(width)
        );
    }

    /// Several lines of one stroke as one path with round ends: a tile's roads.
    pub fn lines(&mut self, segments: &[(Point, Point)], stroke: &str, width: f64) {
        if segments.is_empty() {
            return;
        }
        let path: Vec<String> = segments
            .iter()
            .map(|(from, to)| {
                format!(
                    "M{} {}L{} {}",
                    num(from.0),
                    num(from.1),
                    num(to.0),
                    num(to.1)
                )
            })
            .collect();
        let _ = writeln!(
            self.body,
            r#"<path d="{}" stroke="{stroke}" stroke-width="{}" stroke-linecap="round" fill="none"/>"#,
            path.concat(),
            num(width)
        );
    }

    /// A dashed outline around `points`: what the last move changed.
    pub fn marked(&mut self, points: &[Point], width: f64) {
        let _ = writeln!(
            self.body,
            r#"<polygon points="{}" fill="none" stroke="{LAST_MOVE}" stroke-width="{}" stroke-dasharray="{} {}" stroke-linejoin="round"/>"#,
            points_text(points),
            num(width),
            num(width * 2.0),
            num(width)
        );
    }

    /// One line of text at `at` (its baseline, or its middle for centred text).
    pub fn text(&mut self, at: Point, text: &str, font: Font<'_>) {
        if text.trim().is_empty() {
            return;
        }
        // The document's defaults (see `finish`) are the sans family and middle.
        let anchor = match font.anchor {
            Anchor::Start => r#" text-anchor="start""#,
            Anchor::Middle => "",
            Anchor::End => r#" text-anchor="end""#,
        };
        // Centred text sits on its point's middle; others on their baseline.
        let y = if font.anchor == Anchor::Middle {
            at.1 + font.size * 0.36
        } else {
            at.1
        };
        let family = if font.mono {
            format!(r#" font-family="{MONO_FAMILY}""#)
        } else {
            String::new()
        };
        let weight = if font.bold {
            r#" font-weight="bold""#
        } else {
            ""
        };
        // Runs of spaces matter in text copied from the ASCII panels.
        let space = if font.mono {
            r#" xml:space="preserve""#
        } else {
            ""
        };
        let _ = writeln!(
            self.body,
            r#"<text x="{}" y="{}" font-size="{}" fill="{}"{family}{anchor}{weight}{space}>{}</text>"#,
            num(at.0),
            num(y),
            num(font.size),
            font.fill,
            escape(text)
        );
    }

    /// Lines of monospace text from `top`, one per line: the ASCII board's panels
    /// (scores, hands, what is drawn) told in the picture as they are in the text.
    /// Returns the height they took.
    pub fn text_block(&mut self, left: f64, top: f64, lines: &[String], size: f64) -> f64 {
        let step = size * 1.3;
        let mut y = top;
        for line in lines {
            y += step;
            let font = Font {
                size,
                anchor: Anchor::Start,
                fill: INK,
                bold: false,
                mono: true,
            };
            self.text((left, y), line.trim_end(), font);
        }
        y - top + size * 0.5
    }

    /// The finished document.
    pub fn finish(self) -> String {
        format!(
            concat!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" font-family="{family}" text-anchor="middle">"#,
                "\n<title>{title}</title>\n",
                r#"<rect width="{w}" height="{h}" fill="{paper}"/>"#,
                "\n{body}</svg>\n"
            ),
            w = num(self.width),
            h = num(self.height),
            title = self.title,
            paper = PAPER,
            family = FONT_FAMILY,
            body = self.body
        )
    }
}

/// The corners of a pointy-top hexagon of circumradius `size` around `centre`, from
/// the top, clockwise.
pub fn pointy_hex(centre: Point, size: f64) -> [Point; 6] {
    let mut corners = [(0.0, 0.0); 6];
    for (i, corner) in corners.iter_mut().enumerate() {
        let angle = (-90.0 + 60.0 * i as f64).to_radians();
        *corner = (centre.0 + size * angle.cos(), centre.1 + size * angle.sin());
    }
    corners
}

/// The middle of edge `edge` of a pointy-top hexagon (edges numbered as in
/// [`super::hex::DIRS`]: E, NE, NW, W, SW, SE), `size` its circumradius.
pub fn pointy_hex_edge(centre: Point, size: f64, edge: usize) -> Point {
    // E is at 0 degrees, then every 60 degrees counter-clockwise (y grows down).
    let angle = (-60.0 * (edge % 6) as f64).to_radians();
    let apothem = size * 3f64.sqrt() / 2.0;
    (
        centre.0 + apothem * angle.cos(),
        centre.1 + apothem * angle.sin(),
    )
}

/// How wide `lines` of monospace text of `size` are (DejaVu Sans Mono's advance is
/// 0.602 em; a little more covers the fonts a viewer may use instead).
pub fn mono_width(lines: &[String], size: f64) -> f64 {
    let columns = lines
        .iter()
        .map(|line| line.trim_end().chars().count())
        .max()
        .unwrap_or(0);
    columns as f64 * size * 0.61
}

/// A picture that only shows `text` (a board without a drawing of its own): every
/// line in monospace, so a game always has a picture that tells all its board does.
pub fn text_picture(title: &str, text: &str) -> String {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let size = 13.0;
    let width = 24.0 + mono_width(&lines, size);
    let mut svg = Svg::new(width.max(120.0), 24.0, title);
    let height = svg.text_block(12.0, 6.0, &lines, size);
    svg.grow_to(height + 18.0);
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_become_markup() {
        let mut svg = Svg::new(10.0, 10.0, "a <b>");
        svg.text(
            (1.0, 1.0),
            "</text><script>x</script>&",
            Font::centred(5.0, INK),
        );
        let doc = svg.finish();
        assert!(!doc.contains("<script>"), "{doc}");
        assert!(doc.contains("&lt;/text&gt;&lt;script&gt;x&lt;/script&gt;&amp;"));
        assert!(doc.contains("<title>a &lt;b&gt;</title>"));
    }

    #[test]
    fn numbers_are_short_and_repeatable() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.006), "1.01");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(12.5), "12.5");
    }

    #[test]
    fn hex_edges_face_their_neighbours() {
        let c = (0.0, 0.0);
        let east = pointy_hex_edge(c, 10.0, 0);
        assert!(east.0 > 8.0 && east.1.abs() < 1e-9);
        let north_east = pointy_hex_edge(c, 10.0, 1);
        assert!(north_east.0 > 0.0 && north_east.1 < 0.0);
        let south_west = pointy_hex_edge(c, 10.0, 4);
        assert!(south_west.0 < 0.0 && south_west.1 > 0.0);
        let top = pointy_hex(c, 10.0)[0];
        assert!((top.1 + 10.0).abs() < 1e-9);
    }
}
