//! The body of a message as text: the part read (the first text part, or the HTML
//! one), decoded from its transfer encoding and charset by `mail-parser`, soft line
//! breaks of `format=flowed` joined, and cut at the limits of what is read.

use mail_parser::{MimeHeaders, PartType};

use super::html::html_body_to_text;

/// How much of the decoded body is examined: the first 64 KiB (after an HTML body is
/// converted to text). The move is at the top of a reply, or below a quote.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// How much of an HTML body is converted to text: the first 512 KiB. Mail clients
/// write much more markup than text (Outlook's style sheets alone can take tens of
/// KiB), so this is well above [`MAX_BODY_BYTES`]; converting is linear but not free.
pub const MAX_HTML_BYTES: usize = 512 * 1024;

/// A decoded body: its text, whether it came from HTML, and whether it was cut at
/// [`MAX_BODY_BYTES`].
pub(super) struct Body {
    pub(super) text: String,
    pub(super) html: bool,
    pub(super) cut: bool,
}

/// The body as text.
///
/// The first text part wins; an HTML part is used when there is no text part, or
/// when the text part is blank (some clients send an empty text/plain alternative).
/// Plain text is cut at [`MAX_BODY_BYTES`] before it is unflowed; HTML is cut at
/// [`MAX_HTML_BYTES`], converted, and its text cut at [`MAX_BODY_BYTES`] by
/// [`extract`].
pub(super) fn body_text(message: &mail_parser::Message<'_>) -> Body {
    let plain = message.text_part(0).and_then(|part| match &part.body {
        PartType::Text(text) => {
            let flowed = part.content_type().is_some_and(|ct| {
                attribute(ct, "format").is_some_and(|f| f.eq_ignore_ascii_case("flowed"))
            });
            let delsp = part.content_type().is_some_and(|ct| {
                attribute(ct, "delsp").is_some_and(|d| d.eq_ignore_ascii_case("yes"))
            });
            let (text, cut) = cap_text(text, MAX_BODY_BYTES);
            let text = normalize_newlines(text);
            let text = if flowed { unflow(&text, delsp) } else { text };
            Some((text, cut))
        }
        _ => None,
    });
    if let Some((text, cut)) = plain.filter(|(text, _)| !text.trim().is_empty()) {
        return Body {
            text,
            html: false,
            cut,
        };
    }
    // With no text part, mail-parser lists the HTML part among the text bodies too,
    // so look in both places.
    let html = message
        .text_part(0)
        .into_iter()
        .chain(message.html_part(0))
        .find_map(|part| match &part.body {
            PartType::Html(html) => Some(html.as_ref()),
            _ => None,
        });
    match html {
        Some(html) => {
            let mut end = html.len().min(MAX_HTML_BYTES);
            while !html.is_char_boundary(end) {
                end -= 1;
            }
            Body {
                text: html_body_to_text(&html[..end]),
                html: true,
                cut: end < html.len(),
            }
        }
        None => Body {
            text: String::new(),
            html: false,
            cut: false,
        },
    }
}

/// The first `limit` bytes of a text at most, ending at a line end: a line the limit
/// cuts is left out. True when something was cut.
pub(super) fn cap_text(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let end = head.rfind(['\n', '\r']).unwrap_or(0);
    (&text[..end], true)
}

/// A Content-Type attribute by name, ignoring the case of the name.
fn attribute<'a>(ct: &'a mail_parser::ContentType<'_>, name: &str) -> Option<&'a str> {
    ct.attributes()?
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
        .map(|a| a.value.as_ref())
}

pub(super) fn normalize_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Joins the soft line breaks of RFC 3676 `format=flowed` text.
///
/// A line ending in a space continues on the next line of the same quote depth,
/// except the signature separator `-- `. Space-stuffing is undone. Quote markers
/// are written back as `> ` so the quote rule still sees them.
fn unflow(text: &str, delsp: bool) -> String {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut continues = false;
    for line in text.split('\n') {
        let depth = line.chars().take_while(|&c| c == '>').count();
        let content = &line[depth..];
        let content = content.strip_prefix(' ').unwrap_or(content);
        let soft = content.ends_with(' ') && content != "-- ";
        let content = if soft && delsp {
            &content[..content.len() - 1]
        } else {
            content
        };
        match out.last_mut() {
            Some((last_depth, last)) if continues && *last_depth == depth => {
                last.push_str(content);
            }
            _ => out.push((depth, content.to_string())),
        }
        continues = soft;
    }
    out.into_iter()
        .map(|(depth, content)| {
            if depth == 0 {
                content
            } else {
                format!("{} {content}", ">".repeat(depth))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flowed_soft_breaks_are_joined_but_not_the_signature() {
        assert_eq!(
            unflow("place NE,SW at E9; \ndiscard Y\n-- \nAnn", false),
            "place NE,SW at E9; discard Y\n-- \nAnn"
        );
        assert_eq!(
            unflow("place NE,SW at E9;  \ndiscard Y", true),
            "place NE,SW at E9; discard Y"
        );
        assert_eq!(
            unflow(" From here\n> a \n> b\nc", false),
            "From here\n> a b\nc"
        );
    }

    #[test]
    fn the_body_is_cut_at_a_line_end() {
        assert_eq!(cap_text("abc\ndef", 10), ("abc\ndef", false));
        assert_eq!(cap_text("abc\ndef", 5), ("abc", true));
        assert_eq!(cap_text("abcdef", 3), ("", true));
        // Never inside a character.
        assert_eq!(cap_text("é\néé", 4), ("é", true));
    }
}
