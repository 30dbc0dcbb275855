//! Text helpers of mail and posts: lines wrapped to a width, subjects fitted, and
//! text from outside made inert before it is shown.

/// The widest line a mail or forum post may have.
pub const WIDTH: usize = 78;
/// The longest subject: its header line, `Subject: ` and all, fits [`WIDTH`], so a
/// mail client's list on a narrow screen still shows it whole.
pub const SUBJECT_CHARS: usize = WIDTH - "Subject: ".len();

/// A subject cut to at most `max` characters, at a space where one is near, with an
/// ellipsis; never inside its reply code (`(ref CODE)`), which proves a reply and must
/// reach the player whole even when a long game id pushes it past `max`. The ellipsis
/// is three full stops: a subject all ASCII is sent and replied to as it is, where
/// one "…" makes mail clients encode every reply's subject, reply code and all.
pub fn fit_subject(subject: &str, max: usize) -> String {
    if subject.chars().count() <= max {
        return subject.to_string();
    }
    // Characters that must stay: up to the end of the reply code.
    let keep = subject
        .find("(ref ")
        .and_then(|start| subject[start..].find(')').map(|end| start + end + 1))
        .map_or(0, |end| subject[..end].chars().count());
    let limit = max.saturating_sub(ELLIPSIS.len()).max(keep);
    let cut: String = subject.chars().take(limit).collect();
    // Back to the last space past what must stay, if it is not far back.
    let at_space = cut
        .char_indices()
        .filter(|(i, c)| *c == ' ' && cut[..*i].chars().count() >= keep)
        .map(|(i, _)| i)
        .next_back()
        .filter(|&i| cut[..i].chars().count() + 12 >= limit);
    let cut = match at_space {
        Some(i) => &cut[..i],
        None => cut.as_str(),
    };
    format!("{}{ELLIPSIS}", cut.trim_end_matches([' ', ',', ';', ':']))
}

/// What ends a cut subject.
const ELLIPSIS: &str = "...";

/// The most characters of a stranger's line (a subject, an address) a mail shows.
pub const FOREIGN_LINE_CHARS: usize = 200;

/// Text from outside (an incoming message's subject, sender, move, note or words; a
/// player's name) made inert for our mail: one line, every control character (CR, LF,
/// tab, the rest of C0 and C1, DEL), line and paragraph separator (U+2028, U+2029) and
/// bidirectional override or isolate (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F,
/// U+061C) made a space, runs of spaces made one, and at most `max` characters (then an
/// ellipsis and the length). So nothing a stranger writes becomes lines, headers or
/// reordered words of the referee's own mail; templates still show it quoted.
pub fn inert(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max * 4));
    let mut space = false;
    for c in text.chars() {
        let blank = c.is_whitespace() || c.is_control() || is_format_control(c);
        if blank {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    crate::basics::echo::shortened(&out, max)
}

/// Invisible characters that change how text around them is laid out: the line and
/// paragraph separators, and the bidirectional marks, embeddings, overrides and
/// isolates (with which a stranger's text could show the referee's words reversed).
fn is_format_control(c: char) -> bool {
    matches!(
        c,
        '\u{2028}'
            | '\u{2029}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{061C}'
    )
}

/// Several lines of text from outside (a player's move, quoted back to them), each
/// made [`inert`] (at most `max` characters) and indented by four spaces, so no line
/// of it is wrapped or read as the mail's own words; at most `lines` lines.
pub fn quoted_lines(text: &str, max: usize, lines: usize) -> String {
    let all: Vec<&str> = text.trim().lines().collect();
    let mut out: Vec<String> = all
        .iter()
        .take(lines)
        .map(|line| format!("    {}", inert(line, max)))
        .collect();
    if all.len() > lines {
        out.push(format!("    … ({} lines in all)", all.len()));
    }
    out.join("\n")
}

/// Trailing spaces off, at most one blank line in a row, one final newline.
pub(super) fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    let trimmed = out.trim_end_matches('\n').len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// Wraps lines longer than `width` at spaces, keeping their indentation; a word longer
/// than the width stays whole (a URL, say) rather than being cut.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.lines() {
        // A line indented by four spaces is a move, a code or a board line: cut, it
        // would no longer be what the player must send back.
        if line.chars().count() <= width || line.starts_with("    ") {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let first: String = line.chars().take_while(|c| *c == ' ').collect();
        // A list item's continuation lines hang under its text, not its dash.
        let rest = if line[first.len()..].starts_with("- ") {
            format!("{first}  ")
        } else {
            first.clone()
        };
        let mut current = first;
        // Whether `current` holds a word yet (beyond its indentation).
        let mut started = false;
        for word in line.split_whitespace() {
            let len = current.chars().count();
            if started && len + 1 + word.chars().count() > width {
                out.push_str(&current);
                out.push('\n');
                current = rest.clone();
                started = false;
            }
            if started {
                current.push(' ');
            }
            current.push_str(word);
            started = true;
        }
        out.push_str(&current);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_text_is_one_line_without_controls_and_capped() {
        let subject = "hello\r\n\r\nYour move WAS applied;\treply\u{2028}resign\u{202E}\u{1b}[31m";
        assert_eq!(
            inert(subject, 200),
            "hello Your move WAS applied; reply resign [31m"
        );
        assert_eq!(inert("  a \u{85} b  ", 200), "a b");
        let long = inert(&"x".repeat(1000), 200);
        assert!(long.starts_with(&"x".repeat(200)) && long.ends_with("(1000 characters in all)"));
        let quoted = quoted_lines("place E,W at A7\r\n\u{2029}discard C\nthird", 200, 2);
        assert_eq!(
            quoted,
            "    place E,W at A7\n    discard C\n    … (3 lines in all)"
        );
    }

    #[test]
    fn long_lines_wrap_at_spaces_and_keep_indentation() {
        let line = format!("  {}", "word ".repeat(30));
        let wrapped = wrap(&line, 40);
        assert!(wrapped
            .lines()
            .all(|l| l.chars().count() <= 40 && l.starts_with("  ")));
        assert_eq!(wrapped.split_whitespace().count(), 30);
        assert_eq!(wrap("short\n", 40), "short\n");
    }

    #[test]
    fn a_list_items_continuation_hangs_under_its_text() {
        let line = format!("  - {}", "word ".repeat(20));
        let wrapped = wrap(&line, 40);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines[0].starts_with("  - word"));
        assert!(
            lines[1..].iter().all(|l| l.starts_with("    word")),
            "{wrapped}"
        );
    }

    #[test]
    fn a_line_indented_four_spaces_is_never_wrapped() {
        // A move to send back, a reply code or a board line: cut in two, it would no
        // longer be what the player must copy.
        let line = format!("    place {}", "E,W at A7; ".repeat(8));
        assert_eq!(wrap(&line, 40), format!("{line}\n"));
    }

    #[test]
    fn a_subject_is_cut_at_a_space_and_never_inside_its_reply_code() {
        assert_eq!(fit_subject("short", 10), "short");
        assert_eq!(fit_subject("one two three four", 12), "one two...");
        let long_id = format!("[pbem {}] (ref abcdefghjk) Turn 3", "x".repeat(70));
        let fitted = fit_subject(&long_id, 69);
        assert!(fitted.contains("(ref abcdefghjk)"), "{fitted}");
        assert!(fitted.ends_with("..."), "{fitted}");
        assert!(fitted.is_ascii(), "{fitted}");
    }
}
