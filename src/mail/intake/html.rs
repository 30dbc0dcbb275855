//! HTML to text lines: block elements and `<br>` end lines, `<p>` starts a paragraph,
//! `<pre>` keeps its lines, a `<blockquote>` becomes `> ` lines (see "The rules" in
//! the intake's documentation).
//!
//! The text is `mail-parser`'s `html_to_text`, with the blocks marked for it first.
//! The `html2text` crate does not read mail the same way: it puts a blank line
//! around every blockquote and between Outlook's `MsoNormal` lines, adds one before
//! and after `<pre>`, and brackets links (`Get [Outlook for iOS]`, `<[r@x.org]>`),
//! so a client's tagline is no longer recognised and Outlook's signature lines stay
//! in the move.

use mail_parser::decoders::html::html_to_text;

/// Private-use characters marking HTML structure through mail-parser's
/// `html_to_text`, which only breaks lines at `<br>` and `</p>` and drops
/// blockquotes' meaning. Without them `<div>place …</div><div>buy …</div>` (how
/// Gmail, Apple Mail and Outlook on the web write lines) would run together.
const BLOCK_MARK: char = '\u{E000}';
const QUOTE_OPEN_MARK: char = '\u{E001}';
const QUOTE_CLOSE_MARK: char = '\u{E002}';
/// Marks a `<p>` that starts a paragraph (a blank line before it): every `<p>` but
/// Outlook's `<p class="MsoNormal">`, which Word writes for each line.
const PARAGRAPH_MARK: char = '\u{E003}';

/// Converts an HTML body to plain text lines, with blockquotes as `> ` lines. Runs
/// of blank lines are written as one.
pub(super) fn html_body_to_text(html: &str) -> String {
    let marked = mark_html_blocks(html);
    let text = html_to_text(&marked);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut line_quoted = false;
    let mut depth = 0usize;
    // A soft break ends the current line only if something is on it, so nested
    // blocks do not produce runs of blank lines; a real <br> ends a line, except
    // the one right after a soft break already ended it (`x</p>` is one line, but
    // `x</div><div><br></div>` is a line and a blank line).
    let mut absorb_newline = false;
    let finish = |lines: &mut Vec<String>, line: &mut String, quoted: bool| {
        let content = line.trim();
        let blank = content.is_empty();
        if !(blank && lines.last().is_some_and(String::is_empty)) {
            lines.push(if quoted && !blank {
                format!("> {content}")
            } else {
                content.to_string()
            });
        }
        line.clear();
    };
    for c in text.chars() {
        match c {
            '\n' => {
                if absorb_newline && line.trim().is_empty() {
                    line.clear();
                } else {
                    finish(&mut lines, &mut line, line_quoted);
                }
                absorb_newline = false;
                line_quoted = depth > 0;
            }
            BLOCK_MARK | QUOTE_OPEN_MARK | QUOTE_CLOSE_MARK | PARAGRAPH_MARK => {
                // A block of only `&nbsp;` (`<div>&nbsp;</div>`) is a blank line.
                if !line.trim().is_empty() || line.contains('\u{a0}') {
                    finish(&mut lines, &mut line, line_quoted);
                    absorb_newline = true;
                } else {
                    line.clear();
                    absorb_newline = false;
                }
                if c == QUOTE_OPEN_MARK {
                    depth += 1;
                } else if c == QUOTE_CLOSE_MARK {
                    depth = depth.saturating_sub(1);
                } else if c == PARAGRAPH_MARK && lines.last().is_some_and(|l| !l.is_empty()) {
                    lines.push(String::new());
                    // The `</p>` before this paragraph has already been absorbed.
                    absorb_newline = true;
                }
                line_quoted = depth > 0;
            }
            _ => line.push(c),
        }
    }
    if !line.trim().is_empty() {
        finish(&mut lines, &mut line, line_quoted);
    }
    lines.join("\n")
}

/// Inserts the structure markers before block-level tags (see [`BLOCK_MARK`]), and
/// keeps the line breaks of `<pre>` text (Thunderbird's signature is
/// `<pre class="moz-signature">-- \nAnn</pre>`) as `<br>`, in one pass: each tag is
/// read up to its name, and a `<p>` tag up to its end or the next `<`.
fn mark_html_blocks(html: &str) -> String {
    const BLOCKS: [&str; 16] = [
        "div", "p", "li", "ul", "ol", "tr", "table", "hr", "pre", "h1", "h2", "h3", "h4", "h5",
        "h6", "center",
    ];
    let mut out = String::with_capacity(html.len() + html.len() / 16);
    let mut rest = html;
    let mut pre_depth = 0usize;
    let mut after_tag = false;
    let mut copy = |out: &mut String, segment: &str, pre_depth: usize| {
        // A segment after a tag starts with the rest of that tag, up to its `>`.
        let text_from = if after_tag {
            segment.find('>').map_or(segment.len(), |k| k + 1)
        } else {
            0
        };
        after_tag = true;
        out.push_str(&segment[..text_from]);
        if pre_depth > 0 {
            out.push_str(&segment[text_from..].replace('\n', "<br>"));
        } else {
            out.push_str(&segment[text_from..]);
        }
    };
    while let Some(pos) = rest.find('<') {
        copy(&mut out, &rest[..pos], pre_depth);
        let tag = &rest[pos + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            // Tag names are short; a long run of letters is not one worth reading.
            .take(16)
            .collect::<String>()
            .to_ascii_lowercase();
        // The markers are written as HTML numeric references, which html_to_text
        // decodes back to the characters; written raw, they could be glued to
        // the neighbouring word's token and lose the surrounding space.
        let mark = match name.as_str() {
            "blockquote" if closing => Some(QUOTE_CLOSE_MARK),
            "blockquote" => Some(QUOTE_OPEN_MARK),
            "p" if !closing => {
                let end = tag.find(['>', '<']).unwrap_or(tag.len());
                let word = tag[..end].to_ascii_lowercase().contains("msonormal");
                Some(if word { BLOCK_MARK } else { PARAGRAPH_MARK })
            }
            name if BLOCKS.contains(&name) => Some(BLOCK_MARK),
            _ => None,
        };
        if name == "pre" {
            pre_depth = if closing {
                pre_depth.saturating_sub(1)
            } else {
                pre_depth + 1
            };
        }
        if let Some(mark) = mark {
            out.push_str(&format!(" &#{}; ", u32::from(mark)));
        }
        out.push('<');
        rest = tag;
    }
    copy(&mut out, rest, pre_depth);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::intake::reply::extract;
    use crate::mail::intake::sign_off::Names;
    use crate::mail::intake::testing::MOVE;

    #[test]
    fn html_blocks_become_lines_and_blockquotes_become_quotes() {
        let html = "<div dir=\"ltr\"><div>place E,NW at C5</div><div>buy D4 with I</div></div>\
                    <div class=\"gmail_quote\"><blockquote>Your move<br>Ann</blockquote></div>after";
        assert_eq!(
            html_body_to_text(html),
            "place E,NW at C5\nbuy D4 with I\n> Your move\n> Ann\nafter"
        );
        assert_eq!(
            extract(&html_body_to_text(html), true, false, &Names::default()).move_text,
            "place E,NW at C5\nbuy D4 with I\nafter"
        );
        assert_eq!(
            html_body_to_text("<p>a&nbsp;b</p><p>&nbsp;</p><p>c</p>"),
            "a\u{a0}b\n\nc"
        );
        assert_eq!(html_body_to_text("a<br><br>b"), "a\n\nb");
        // Lines of preformatted text stay lines; a tag's own newlines do not count.
        assert_eq!(
            html_body_to_text("<p>x</p><pre\nclass=\"moz-signature\">-- \nAnn\n</pre>\ny\nz"),
            "x\n--\nAnn\ny z"
        );
        // Paragraphs are separated by a blank line, Outlook's lines are not.
        assert_eq!(
            html_body_to_text("<p>a</p><p>b</p><p class=MsoNormal>c</p><p class=MsoNormal>d</p>"),
            "a\n\nb\nc\nd"
        );
        assert_eq!(
            html_body_to_text("<div>a</div><div><br></div><div>b</div>"),
            "a\n\nb"
        );
        assert_eq!(
            html_body_to_text("<div>a</div>\n<div>&nbsp;</div>\n<div>b</div>"),
            "a\n\nb"
        );
    }

    /// Mail.ru and Yandex write a bare attribution right above an HTML blockquote.
    #[test]
    fn bare_attribution_above_an_html_blockquote() {
        for html in [
            "<p>place E,NW at C5</p><p>Thanks,<br>Ann</p><br><br>Mon, 23 Nov 2026 10:02:00 +0100 от Referee &lt;r@x.org&gt;:<br>\n<blockquote style=\"border-left:1px solid #0857A6\"><div>Your move</div></blockquote>",
            "<p>place E,NW at C5<br /><br />Thanks,<br />Ann<br /><br />23.11.2026, 10:02, \"Referee\" &lt;<a href=\"mailto:r@x.org\">r@x.org</a>&gt;:</p><blockquote> Your move<br /> Example: pass</blockquote>",
        ] {
            let names = Names::of(Some("Ann Archer"), Some("ann@x.org"));
            let extracted = extract(&html_body_to_text(html), true, false, &names);
            assert_eq!(extracted.move_text, "place E,NW at C5", "{html}");
            assert_eq!(extracted.dropped, ["Thanks,", "Ann"], "{html}");
        }
    }

    #[test]
    fn html_with_many_tags_is_converted_whole() {
        let html = format!(
            "<div>{MOVE}</div>{}<blockquote>{}</blockquote>",
            "<div></div>".repeat(100_000),
            "<p>old</p>".repeat(100_000)
        );
        let text = html_body_to_text(&html);
        let extracted = extract(&text, true, false, &Names::default());
        assert_eq!(extracted.move_text, MOVE);
        assert!(!extracted.truncated);
    }
}
