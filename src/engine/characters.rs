//! The characters a player's own text may not hold where it becomes part of a game (a
//! name, a move, the words a player joins with): those that show nothing themselves
//! and change how the text around them is shown or read. A right-to-left override in
//! a name reverses pbem's own words after it in every mail and on the replay page; a
//! zero-width space makes two names that look the same; a line separator breaks a
//! line where none is seen.

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Whether a text may run over several lines (a move, a player's words), or is one
/// line (a name, an address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// Tab, line feed and carriage return are taken: a move's actions may stand one
    /// a line, and a move piped in ends with a new line.
    Several,
    /// One line: every control character is refused.
    One,
}

/// Whether `c` is refused in a player's text: a control character (Unicode category
/// Cc: C0, DEL, C1; but tab, line feed and carriage return in a text of
/// [`Lines::Several`]), a format character (Cf: the bidirectional marks, embeddings,
/// overrides and isolates, zero-width space, joiners and non-joiner, the word joiner,
/// the byte order mark, the soft hyphen, the tags...), or the line or paragraph
/// separator (Zl, Zp).
pub fn is_refused(c: char, lines: Lines) -> bool {
    match c.general_category() {
        GeneralCategory::Control => !(lines == Lines::Several && matches!(c, '\t' | '\n' | '\r')),
        GeneralCategory::Format
        | GeneralCategory::LineSeparator
        | GeneralCategory::ParagraphSeparator => true,
        _ => false,
    }
}

/// The first character of `text` that [`is_refused`], with its place (the first
/// character is 1).
pub fn first_refused(text: &str, lines: Lines) -> Option<(usize, char)> {
    text.chars()
        .enumerate()
        .find(|&(_, c)| is_refused(c, lines))
        .map(|(index, c)| (index + 1, c))
}

/// A character as an error names it: its code point and, where Unicode gives it one,
/// its name (`U+202E RIGHT-TO-LEFT OVERRIDE`); a control character has none, and is
/// said to be one (`U+001B, a control character`).
pub fn described(c: char) -> String {
    let code = format!("U+{:04X}", u32::from(c));
    match unicode_names2::name(c) {
        Some(name) => format!("{code} {name}"),
        None if c.is_control() => format!("{code}, a control character"),
        None => code,
    }
}

/// What [`is_refused`] refuses, in a player's words, for an error to end with.
pub const REFUSED_KINDS: &str =
    "format characters (such as bidirectional overrides and isolates, zero-width spaces and joiners), line and paragraph separators and control characters are refused";

/// A character of each kind refused in any text, on one line or several: the
/// bidirectional overrides, embeddings, marks and isolates, the zero-width characters,
/// the byte order mark, the soft hyphen, a tag, the line and paragraph separators and
/// control characters (C0, DEL, C1). For the tests here and of what uses these rules.
#[cfg(test)]
pub(crate) const REFUSED_SAMPLES: [char; 27] = [
    '\u{202E}',
    '\u{202A}',
    '\u{200E}',
    '\u{200F}',
    '\u{061C}',
    '\u{2066}',
    '\u{2067}',
    '\u{2068}',
    '\u{2069}',
    '\u{200B}',
    '\u{200C}',
    '\u{200D}',
    '\u{2060}',
    '\u{FEFF}',
    '\u{00AD}',
    '\u{E0041}',
    '\u{2028}',
    '\u{2029}',
    '\u{0}',
    '\u{7}',
    '\u{1B}',
    '\u{7F}',
    '\u{85}',
    '\u{9B}',
    '\u{202B}',
    '\u{202C}',
    '\u{202D}',
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_are_the_invisible_ones_that_rearrange_text() {
        for c in REFUSED_SAMPLES {
            assert!(is_refused(c, Lines::Several), "{}", described(c));
            assert!(is_refused(c, Lines::One), "{}", described(c));
        }
        for c in ['\t', '\n', '\r'] {
            assert!(!is_refused(c, Lines::Several), "{}", described(c));
            assert!(is_refused(c, Lines::One), "{}", described(c));
        }
        for c in [
            'a', 'Z', '0', ' ', '\u{A0}', 'é', '\u{301}', 'а', 'Д', '李', 'ß', '-', '\'',
        ] {
            assert!(!is_refused(c, Lines::One), "{}", described(c));
        }
    }

    #[test]
    fn a_character_is_named_by_code_point_and_name() {
        assert_eq!(described('\u{202E}'), "U+202E RIGHT-TO-LEFT OVERRIDE");
        assert_eq!(described('\u{200B}'), "U+200B ZERO WIDTH SPACE");
        assert_eq!(described('\u{1B}'), "U+001B, a control character");
        assert_eq!(
            first_refused("ab\u{2066}c", Lines::One),
            Some((3, '\u{2066}'))
        );
        assert_eq!(first_refused("ab\nc", Lines::Several), None);
    }
}
