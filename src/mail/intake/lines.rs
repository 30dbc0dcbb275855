//! What every reader of a body asks of one line: cleaned of the invisible characters
//! HTML mail leaves, quoted or not, a `pbem-token:` line, an end marker, a board cell.

/// How many blank lines may separate an attribution from the quote below it.
pub(super) const QUOTE_LOOKAHEAD: usize = 5;

/// Cleans one line: invisible characters HTML mail introduces are removed or made
/// plain spaces, and trailing whitespace is trimmed. HTML lines also lose their
/// leading whitespace, which HTML rendering ignores anyway.
pub(super) fn clean_line(line: &str, from_html: bool) -> String {
    let cleaned: String = line
        .chars()
        .filter_map(|c| match c {
            // Non-breaking spaces separate words like spaces do; dropping them would
            // glue words together.
            '\u{00A0}' | '\u{202F}' | '\u{2007}' => Some(' '),
            // Zero-width characters and the soft hyphen are invisible.
            '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}' => None,
            _ => Some(c),
        })
        .collect();
    let trimmed = cleaned.trim_end();
    if from_html {
        trimmed.trim_start().to_string()
    } else {
        trimmed.to_string()
    }
}

/// One of the player's own lines, and whether a paragraph break (a blank line or a
/// quote) separates it from the own line before it.
pub(super) struct OwnLine {
    pub(super) text: String,
    pub(super) new_paragraph: bool,
}

/// True for a reply or token code: 6 to 32 ASCII letters and digits.
pub(super) fn is_code(code: &str) -> bool {
    (6..=32).contains(&code.len()) && code.chars().all(|c| c.is_ascii_alphanumeric())
}

/// True when a letter and a digit touch (`C5`, `e9`, `4D`): how board cells look.
pub(super) fn has_cell_word(line: &str) -> bool {
    let mut previous: Option<char> = None;
    line.chars().any(|c| {
        let touch = previous.is_some_and(|p| {
            (p.is_ascii_alphabetic() && c.is_ascii_digit())
                || (p.is_ascii_digit() && c.is_ascii_alphabetic())
        });
        previous = Some(c);
        touch
    })
}

pub(super) fn is_end_marker(trimmed: &str) -> bool {
    ["end", "--end--", "#end", "."]
        .iter()
        .any(|marker| trimmed.eq_ignore_ascii_case(marker))
}

pub(super) fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

/// The index of the first non-blank line among `lines[from..from + within]`.
pub(super) fn next_non_blank(lines: &[String], from: usize, within: usize) -> Option<usize> {
    (from..lines.len().min(from + within)).find(|&j| !lines[j].trim().is_empty())
}

/// True when the first non-blank line from `from` (within a few) is quoted.
pub(super) fn quote_follows(lines: &[String], from: usize) -> bool {
    next_non_blank(lines, from, QUOTE_LOOKAHEAD).is_some_and(|j| is_quoted(&lines[j]))
}

/// `Some(code)` for a `pbem-token:` line (`Some(None)` when its code is missing or
/// malformed: the line is still not part of the move), `None` for other lines.
pub(super) fn token_line(trimmed: &str) -> Option<Option<String>> {
    let head: String = trimmed.chars().take(32).collect::<String>().to_lowercase();
    let rest = head.strip_prefix("pbem")?.trim_start();
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let rest = rest.strip_prefix("token")?.trim_start();
    rest.strip_prefix(':')?;
    // Take the code from the original line, to keep its case.
    let colon = trimmed.find(':')?;
    let code = trimmed[colon + 1..].trim();
    Some(is_code(code).then(|| code.to_string()))
}
