//! The player's own words in a reply: the body read line by line (see "The rules" in
//! the intake's documentation), quotes, attributions and reply headers passed over,
//! a signature or tagline cut off, then the greeting and sign-offs taken away.

use super::attribution::{
    attribution_at, is_separator_rule, starts_reply_block, SEPARATOR_LOOKAHEAD,
};
use super::lines::{
    clean_line, is_end_marker, is_quoted, next_non_blank, quote_follows, token_line, OwnLine,
};
use super::mime::{cap_text, normalize_newlines, MAX_BODY_BYTES};
use super::notice::{find_quote, Notice};
use super::sign_off::{greeting, is_client_tagline, sign_offs, Names};

/// How many of the player's own lines (not blank, not quoted, counting signature
/// lines) are read: 100. A turn is a few lines.
pub const MAX_OWN_LINES: usize = 100;

/// How many non-blank lines of a signature (below `-- ` or a tagline) are listed.
const MAX_SIGNATURE_LINES: usize = 10;

/// The result of reading a decoded body.
pub(super) struct Extracted {
    pub(super) move_text: String,
    pub(super) dropped: Vec<String>,
    pub(super) token: Option<String>,
    pub(super) truncated: bool,
}

/// Reads a decoded body by the rules of the intake's documentation, with no notice
/// known.
pub(super) fn extract(body: &str, from_html: bool, already_cut: bool, names: &Names) -> Extracted {
    extract_answering(body, from_html, already_cut, names, None)
}

/// Reads a decoded body by the rules of the intake's documentation, in one pass over
/// its lines with a bounded look-ahead at each; with the notice the reply answers,
/// its quote (found first, in one bounded pass) and the attribution above it are
/// passed over as quoted lines are.
pub(super) fn extract_answering(
    body: &str,
    from_html: bool,
    already_cut: bool,
    names: &Names,
    notice: Option<&Notice>,
) -> Extracted {
    let (body, cut_here) = cap_text(body, MAX_BODY_BYTES);
    let body_cut = already_cut || cut_here;
    let lines: Vec<String> = normalize_newlines(body)
        .split('\n')
        .map(|line| clean_line(line, from_html))
        .collect();

    let mut own: Vec<OwnLine> = Vec::new();
    let mut signature: Vec<String> = Vec::new();
    let mut token = None;
    let mut new_paragraph = false;
    // Whether something ended the player's text before the end of what was read.
    let mut ended = false;
    let mut truncated = false;
    let mut last_was_quote = false;
    let quote = notice.and_then(|notice| find_quote(&lines, notice));
    // How many of the player's lines stand above the notice's quote, once reached.
    let mut own_above_quote = None;
    let mut i = 0;
    while i < lines.len() {
        if let Some(quote) = quote.as_ref().filter(|q| (q.top..=q.end).contains(&i)) {
            own_above_quote.get_or_insert(own.len());
            if !quote.quoted && !own.is_empty() {
                // Nothing marks this quote but its text: as below a reply header, what
                // follows it is the earlier mail.
                ended = true;
                break;
            }
            new_paragraph = true;
            last_was_quote = true;
            i = quote.end + 1;
            continue;
        }
        let line = lines[i].as_str();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            new_paragraph = true;
            i += 1;
            continue;
        }
        if is_quoted(line) {
            new_paragraph = true;
            last_was_quote = true;
            i += 1;
            continue;
        }
        last_was_quote = false;
        if let Some(code) = token_line(trimmed) {
            token = token.or(code);
            i += 1;
            continue;
        }
        if is_end_marker(trimmed) || starts_reply_block(&lines, i) {
            ended = true;
            break;
        }
        if trimmed == "--" || is_client_tagline(trimmed) {
            let from = if trimmed == "--" { i + 1 } else { i };
            signature = signature_block(&lines, from);
            ended = true;
            break;
        }
        if let Some(len) = attribution_at(&lines, i) {
            if !own.is_empty() && !quote_follows(&lines, i + len) {
                ended = true;
                break;
            }
            new_paragraph = true;
            i += len;
            continue;
        }
        if is_separator_rule(trimmed)
            && next_non_blank(&lines, i + 1, SEPARATOR_LOOKAHEAD)
                .is_some_and(|next| attribution_at(&lines, next).is_some())
        {
            i += 1;
            continue;
        }
        if own.len() == MAX_OWN_LINES {
            truncated = true;
            ended = true;
            break;
        }
        own.push(OwnLine {
            text: line.to_string(),
            new_paragraph: new_paragraph && !own.is_empty(),
        });
        new_paragraph = false;
        i += 1;
    }
    // A body cut inside the quote below the player's text lost only more quote.
    let cut_in_trailing_quote = last_was_quote && !own.is_empty();
    if body_cut && !ended && !cut_in_trailing_quote {
        truncated = true;
    }

    // A paragraph right above the notice's quote may be a tagline of the player's own.
    let ends_at_quote = own_above_quote.is_some_and(|above| above == own.len());
    let mut dropped = greeting(&mut own);
    dropped.append(&mut sign_offs(&mut own, names, ends_at_quote));
    dropped.append(&mut signature);

    // A token quoted from the notice, or below a cut, still identifies the reply.
    let token = token.or_else(|| {
        lines
            .iter()
            .find_map(|line| token_line(line.trim_start_matches([' ', '>']).trim()))
            .flatten()
    });

    let move_text = own
        .iter()
        .map(|line| line.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Extracted {
        move_text,
        dropped,
        token,
        truncated,
    }
}

/// The signature lines from `start`: non-blank lines up to a quote, an attribution
/// or a reply header, at most [`MAX_SIGNATURE_LINES`], each trimmed.
fn signature_block(lines: &[String], start: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(start) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if is_quoted(line)
            || out.len() == MAX_SIGNATURE_LINES
            || starts_reply_block(lines, i)
            || attribution_at(lines, i).is_some()
        {
            break;
        }
        if token_line(trimmed).is_none() {
            out.push(trimmed.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::intake::testing::{read, read_from_ann, strip, MOVE};

    #[test]
    fn quoted_lines_are_dropped() {
        assert_eq!(
            strip("place E,NW at C5\n> quoted\n  >> deeper\nbuy D4"),
            "place E,NW at C5\nbuy D4"
        );
    }

    #[test]
    fn signature_and_everything_after_it_is_dropped_and_listed() {
        let extracted = read("place E,NW at C5\n-- \nAnn\nbuy D4");
        assert_eq!(extracted.move_text, "place E,NW at C5");
        assert_eq!(extracted.dropped, ["Ann", "buy D4"]);
        assert_eq!(strip("place E,NW at C5\n--\nAnn"), "place E,NW at C5");
        // Only the exact separator counts.
        assert_eq!(
            strip("place E,NW at C5\n--- \nbuy D4"),
            "place E,NW at C5\n---\nbuy D4"
        );
        // The signature ends at the quote, and is at most 10 lines long.
        let long: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let extracted = read(&format!("{MOVE}\n-- \n{long}> quoted\n"));
        assert_eq!(extracted.move_text, MOVE);
        assert_eq!(extracted.dropped.len(), 10);
        let extracted = read(&format!(
            "{MOVE}\n-- \nAnn\n\nOn Mon, 23 Nov 2026, Referee wrote:\nold\n"
        ));
        assert_eq!(extracted.dropped, ["Ann"]);
    }

    #[test]
    fn end_markers_end_the_move() {
        for marker in [
            "end", "END", "End", "--end--", "--END--", "#end", "#END", ".", "  end  ",
        ] {
            let body = format!("place E,NW at C5\n{marker}\nthanks, bye");
            let extracted = read(&body);
            assert_eq!(extracted.move_text, "place E,NW at C5", "marker {marker:?}");
            assert!(extracted.dropped.is_empty(), "marker {marker:?}");
        }
        assert_eq!(
            strip("place E,NW at C5\nthe end\n"),
            "place E,NW at C5\nthe end"
        );
    }

    #[test]
    fn token_line_is_dropped_and_read() {
        for line in [
            "pbem-token: 7QX2M4P9KD",
            "PBEM-TOKEN:7QX2M4P9KD",
            "  Pbem-Token :   7QX2M4P9KD  ",
            "pbem token: 7QX2M4P9KD",
        ] {
            let extracted = read(&format!("{line}\nplace E,NW at C5"));
            assert_eq!(extracted.move_text, "place E,NW at C5", "{line:?}");
            assert_eq!(extracted.token.as_deref(), Some("7QX2M4P9KD"), "{line:?}");
        }
        let malformed = read("pbem-token: no!\nplace E,NW at C5");
        assert_eq!(malformed.move_text, "place E,NW at C5");
        assert_eq!(malformed.token, None);
    }

    #[test]
    fn quoted_token_is_found_when_the_player_wrote_none() {
        let extracted = read("place E,NW at C5\n\n> pbem-token: AbC123xyz\n");
        assert_eq!(extracted.move_text, "place E,NW at C5");
        assert_eq!(extracted.token.as_deref(), Some("AbC123xyz"));
    }

    #[test]
    fn blank_lines_and_trailing_whitespace_are_removed() {
        assert_eq!(
            strip("\n\n  \nplace E,NW at C5   \n\n  buy D4\t\n\n"),
            "place E,NW at C5\n  buy D4"
        );
    }

    #[test]
    fn invisible_characters_are_cleaned() {
        assert_eq!(
            strip("\u{feff}place\u{a0}E,NW at\u{200b} C5\n\u{a0}\n"),
            "place E,NW at C5"
        );
        assert_eq!(strip("place E,NW at C5\n\u{a0}end"), "place E,NW at C5");
    }

    #[test]
    fn several_actions_keep_their_separators() {
        assert_eq!(
            strip("place NE,SW at E9; discard Y\r\nbuy D4 with I\r\n"),
            "place NE,SW at E9; discard Y\nbuy D4 with I"
        );
    }

    // Large inputs. Their speed is measured by hand, not here (no test asserts time):
    // these check what is kept when every line is the worst kind for some rule.

    #[test]
    fn ten_thousand_junk_lines_stop_at_the_line_limit() {
        let junk: String = (0..10_000).map(|n| format!("junk line {n}\n")).collect();
        let extracted = read(&format!("{MOVE}\n{junk}"));
        assert!(extracted.truncated);
        let lines: Vec<&str> = extracted.move_text.lines().collect();
        assert_eq!(lines.len(), MAX_OWN_LINES);
        assert_eq!(lines[0], MOVE);
        assert_eq!(lines[1], "junk line 0");
    }

    #[test]
    fn a_hundred_thousand_rule_lines_are_read_to_the_limits() {
        let rules = "__________\n".repeat(100_000);
        let extracted = read(&format!("{MOVE}\n{rules}"));
        assert!(extracted.truncated);
        assert_eq!(extracted.move_text.lines().count(), MAX_OWN_LINES);
        // Long rules, each looking ahead for a header block, all quoted but one.
        let rules = "> ____________________\n".repeat(100_000);
        let extracted = read(&format!("{MOVE}\n____________________\n{rules}"));
        assert_eq!(extracted.move_text, format!("{MOVE}\n____________________"));
        // Cut inside the quote below the player's text: not truncated.
        assert!(!extracted.truncated);
    }

    #[test]
    fn ten_thousand_quoted_lines_above_a_bottom_posted_move() {
        let quote = "> x\n".repeat(10_000);
        let extracted = read_from_ann(&format!(
            "On Mon, 23 Nov 2026, Referee wrote:\n{quote}\n{MOVE}\n\nThanks!\n"
        ));
        assert_eq!(extracted.move_text, MOVE);
        assert_eq!(extracted.dropped, ["Thanks!"]);
        assert!(!extracted.truncated);
        // A quote longer than what is read hides the move: truncated, not applied.
        let quote = "> a longer quoted line\n".repeat(10_000);
        let extracted = read(&format!("{quote}\n{MOVE}\n"));
        assert_eq!(extracted.move_text, "");
        assert!(extracted.truncated);
    }

    #[test]
    fn lines_that_each_start_a_look_ahead_are_read_to_the_limits() {
        // Attributions and blank lines, alternating: each is dropped on its own.
        let body = "Referee <r@x.org>:\n\n> q\n".repeat(2_000);
        let extracted = read(&format!("{body}{MOVE}"));
        assert_eq!(extracted.move_text, MOVE);
        // Lines that could start a wrapped attribution, each joined with the next.
        let body = "On a\n".repeat(20_000);
        let extracted = read(&body);
        assert!(extracted.truncated);
        assert_eq!(extracted.move_text.lines().count(), MAX_OWN_LINES);
        // Header labels, never three kinds together.
        let body = "From: a\nTo: b\n".repeat(10_000);
        let extracted = read(&body);
        assert!(extracted.truncated);
        assert_eq!(extracted.move_text.lines().count(), MAX_OWN_LINES);
        // Sign-off candidates: only the last few lines are looked at.
        let body = format!("{MOVE}\n{}", "\nThanks\n".repeat(10_000));
        let extracted = read(&body);
        assert!(extracted.truncated);
        // One very long line.
        let extracted = read(&"x".repeat(1_000_000));
        assert_eq!(extracted.move_text, "");
        assert!(extracted.truncated);
    }
}
