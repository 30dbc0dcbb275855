//! Reading one incoming player message: raw bytes in, what pbem needs out.
//!
//! [`read_message`] is a pure function (no I/O): the referee pipes each raw message
//! into pbem, and this module turns it into an [`Incoming`]: the threading headers
//! that bind a reply to the notice it answers, the capability codes a reply brings
//! back (a subject tag and code, or a `pbem-token:` line), and the move itself.
//!
//! All MIME work (multipart, transfer encodings, charsets, RFC 2047 headers, HTML to
//! text) is done by `mail-parser`. What this module adds is the forgiving part: it
//! finds the player's own words in a reply by dropping what mail clients add around
//! them (quotes, attributions, Outlook header blocks, signatures), honouring an
//! explicit end marker, and cleaning the invisible characters HTML mail leaves behind.
//!
//! The stripping rules, in the order they apply to each line of the body:
//!
//! 1. a signature separator (a line exactly `-- ` or `--`), or a client's tagline
//!    such as "Sent from my iPhone", ends the move;
//! 2. an end marker line (`end`, `--end--`, `#end` or `.`, any case) ends the move;
//! 3. an "Original Message" or "Forwarded message" rule, or an Outlook reply header
//!    block (`From:` followed by `Sent:`/`Date:` and `Subject:` lines, in English,
//!    German, French and a few other languages, optionally after an underscore rule)
//!    ends the move;
//! 4. an attribution line ("On … wrote:", "Am … schrieb …:", "Le … a écrit :", and
//!    similar, also wrapped over two lines) ends the move when the player has
//!    already written something above it (top-posting); when it is the first thing
//!    in the message the player is bottom-posting, so only the attribution line
//!    itself is dropped and the move is read below the quote;
//! 5. quoted lines (starting with `>` after optional spaces) are dropped;
//! 6. the `pbem-token:` line is dropped (its code goes to [`Incoming::token`]).
//!
//! Leading and trailing blank lines are then removed. Nothing is ever added: every
//! line of `move_text` is a line the player sent, with trailing whitespace trimmed.

use mail_parser::decoders::html::html_to_text;
use mail_parser::{HeaderValue, MessageParser, MimeHeaders, PartType};
use serde::{Deserialize, Serialize};

/// What pbem needs from one incoming message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incoming {
    /// The message's own Message-ID, without angle brackets.
    pub message_id: Option<String>,
    /// The sender's address only, lowercased (`ann.archer@gmail.com`).
    pub from_address: Option<String>,
    /// The sender's display name, decoded (`Björn Åkesson`).
    pub from_name: Option<String>,
    /// The subject, decoded from RFC 2047 encoded words; empty when missing.
    pub subject: String,
    /// Message ids from In-Reply-To, without angle brackets, in header order.
    pub in_reply_to: Vec<String>,
    /// Message ids from References, without angle brackets, in header order.
    pub references: Vec<String>,
    /// The game id from a subject tag such as `[pbem row-7f3a2b1c]`, as written.
    ///
    /// The `pbem` keyword matches in any case and the tag may sit anywhere in the
    /// subject, so it survives `Re:`, `AW:`, `Fwd:` and similar prefixes. The id keeps
    /// the case it was written in; compare it case-insensitively if ids allow that.
    pub game_tag: Option<String>,
    /// A reply code written in the subject as `(ref CODE)`, CODE being 6 to 32 ASCII
    /// letters and digits.
    pub subject_code: Option<String>,
    /// The code from a `pbem-token: CODE` line in the body (any case, any spacing).
    ///
    /// The player's own text is searched first, then the quoted and cut-off parts, so
    /// a token the notice carried comes back with a reply that quotes it.
    pub token: Option<String>,
    /// The player's move: their own lines only, joined with `\n` (see the module docs).
    pub move_text: String,
    /// True when the move was read from an HTML part (no usable text/plain part).
    pub body_was_html: bool,
    /// The player's own lines left out as clearly not part of the move.
    #[serde(default)]
    pub dropped: Vec<String>,
}

/// The largest message pbem reads.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// Why raw bytes could not be read as a mail message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntakeError {
    /// Nothing but whitespace was received.
    #[error("the message is empty; expected a mail message starting with header lines such as `From: ann@example.org`")]
    Empty,
    /// The bytes do not start with header lines at all.
    #[error("not a mail message: no header lines were found; a mail message starts with lines such as `From: ann@example.org`, then a blank line, then the body")]
    NoHeaders,
    /// Header-like lines were found, but none of the fields every mail carries.
    #[error("not a mail message: none of From, To, Date, Subject or Message-ID is present (the first line reads {first_line:?})")]
    NoMailHeaders {
        /// The first line of the input, lossily decoded and shortened, to show what
        /// was received instead.
        first_line: String,
    },
}

/// Reads one raw mail message (as piped in by the referee's mail system).
///
/// Takes the first text/plain part, or the HTML body converted to text when there
/// is none (or when the text/plain part is blank), in any transfer encoding and
/// charset `mail-parser` knows, and extracts the move as described in the module
/// documentation.
///
/// # Errors
///
/// Returns [`IntakeError`] when the bytes are empty, have no header lines, or carry
/// none of the header fields every mail message has (From, To, Date, Subject,
/// Message-ID). A real message with no text at all is not an error: its
/// `move_text` is empty.
///
/// # Example
///
/// ```
/// let raw = b"From: Ann <Ann@Example.org>\r\n\
///             Subject: Re: [pbem row-7f3a2b1c] Turn 12 (ref k3j9xq2mfa)\r\n\
///             \r\n\
///             place E,NW at C5\r\n\
///             \r\n\
///             > Your move, Ann.\r\n";
/// let incoming = pbem::mail::intake::read_message(raw).expect("a message");
/// assert_eq!(incoming.from_address.as_deref(), Some("ann@example.org"));
/// assert_eq!(incoming.game_tag.as_deref(), Some("row-7f3a2b1c"));
/// assert_eq!(incoming.subject_code.as_deref(), Some("k3j9xq2mfa"));
/// assert_eq!(incoming.move_text, "place E,NW at C5");
/// ```
pub fn read_message(raw: &[u8]) -> Result<Incoming, IntakeError> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(IntakeError::Empty);
    }
    let message = MessageParser::default()
        .parse(raw)
        .ok_or(IntakeError::NoHeaders)?;
    if message.headers().is_empty() {
        return Err(IntakeError::NoHeaders);
    }
    // mail-parser is deliberately lenient and will read almost any bytes as some
    // header lines; a message must carry at least one of the fields every mail has.
    let has_mail_header = message.from().is_some()
        || message.to().is_some()
        || message.date().is_some()
        || message.subject().is_some()
        || message.message_id().is_some();
    if !has_mail_header {
        return Err(IntakeError::NoMailHeaders {
            first_line: first_line(raw),
        });
    }

    let sender = message.from().and_then(|from| from.first());
    let from_address = sender
        .and_then(|addr| addr.address())
        .map(|address| address.trim().to_lowercase())
        .filter(|address| !address.is_empty());
    let from_name = sender
        .and_then(|addr| addr.name())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty());
    let subject = message.subject().unwrap_or_default().to_string();

    let (body, body_was_html) = body_text(&message);
    let extracted = extract(&body, body_was_html);

    Ok(Incoming {
        message_id: message.message_id().and_then(clean_id),
        from_address,
        from_name,
        game_tag: game_tag(&subject),
        subject_code: subject_code(&subject),
        subject,
        in_reply_to: ids(message.in_reply_to()),
        references: ids(message.references()),
        token: extracted.token,
        move_text: extracted.move_text,
        body_was_html,
        dropped: Vec::new(),
    })
}

/// Extracts the move from an already decoded plain-text body, with the same rules
/// [`read_message`] applies (see the module documentation).
///
/// Useful for text that did not arrive as mail, such as a forum post.
pub fn extract_move_text(body: &str) -> String {
    extract(body, false).move_text
}

/// The first line of some bytes, for an error message: lossy, control characters
/// escaped by the `{:?}` formatting of the error, and shortened.
fn first_line(raw: &[u8]) -> String {
    const MAX_CHARS: usize = 60;
    let text = String::from_utf8_lossy(raw);
    let line = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default();
    let mut short: String = line.chars().take(MAX_CHARS).collect();
    if line.chars().count() > MAX_CHARS {
        short.push('…');
    }
    short
}

/// A message id without angle brackets or surrounding space; `None` when empty.
fn clean_id(id: &str) -> Option<String> {
    let id = id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    (!id.is_empty()).then(|| id.to_string())
}

/// The message ids of an In-Reply-To or References header, in order.
fn ids(value: &HeaderValue<'_>) -> Vec<String> {
    match value {
        HeaderValue::Text(id) => clean_id(id).into_iter().collect(),
        HeaderValue::TextList(list) => list.iter().filter_map(|id| clean_id(id)).collect(),
        _ => Vec::new(),
    }
}

/// The game id from the first `[pbem ID]` tag in a subject.
fn game_tag(subject: &str) -> Option<String> {
    let mut rest = subject;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            break;
        };
        let mut words = after[..close].split_whitespace();
        if let (Some(keyword), Some(id), None) = (words.next(), words.next(), words.next()) {
            let id_chars_ok = id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if keyword.eq_ignore_ascii_case("pbem") && id_chars_ok {
                return Some(id.to_string());
            }
        }
        rest = after;
    }
    None
}

/// True for a reply or token code: 6 to 32 ASCII letters and digits.
fn is_code(code: &str) -> bool {
    (6..=32).contains(&code.len()) && code.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The code from the first well-formed `(ref CODE)` in a subject.
fn subject_code(subject: &str) -> Option<String> {
    let mut rest = subject;
    while let Some(open) = rest.find('(') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(')') else {
            break;
        };
        let mut words = after[..close].split_whitespace();
        if let (Some(keyword), Some(code), None) = (words.next(), words.next(), words.next()) {
            if keyword.eq_ignore_ascii_case("ref") && is_code(code) {
                return Some(code.to_string());
            }
        }
        rest = after;
    }
    None
}

/// The body as text, and whether it came from HTML.
///
/// The first text part wins; an HTML part is used when there is no text part, or
/// when the text part is blank (some clients send an empty text/plain alternative).
fn body_text(message: &mail_parser::Message<'_>) -> (String, bool) {
    let plain = message.text_part(0).and_then(|part| match &part.body {
        PartType::Text(text) => {
            let flowed = part.content_type().is_some_and(|ct| {
                attribute(ct, "format").is_some_and(|f| f.eq_ignore_ascii_case("flowed"))
            });
            let delsp = part.content_type().is_some_and(|ct| {
                attribute(ct, "delsp").is_some_and(|d| d.eq_ignore_ascii_case("yes"))
            });
            let text = normalize_newlines(text);
            Some(if flowed { unflow(&text, delsp) } else { text })
        }
        _ => None,
    });
    if let Some(text) = plain.filter(|text| !text.trim().is_empty()) {
        return (text, false);
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
        Some(html) => (html_body_to_text(html), true),
        None => (String::new(), false),
    }
}

/// A Content-Type attribute by name, ignoring the case of the name.
fn attribute<'a>(ct: &'a mail_parser::ContentType<'_>, name: &str) -> Option<&'a str> {
    ct.attributes()?
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
        .map(|a| a.value.as_ref())
}

fn normalize_newlines(text: &str) -> String {
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

/// Private-use characters marking HTML structure through mail-parser's
/// `html_to_text`, which only breaks lines at `<br>` and `</p>` and drops
/// blockquotes' meaning. Without them `<div>place …</div><div>buy …</div>` (how
/// Gmail, Apple Mail and Outlook on the web write lines) would run together.
const BLOCK_MARK: char = '\u{E000}';
const QUOTE_OPEN_MARK: char = '\u{E001}';
const QUOTE_CLOSE_MARK: char = '\u{E002}';

/// Converts an HTML body to plain text lines, with blockquotes as `> ` lines.
fn html_body_to_text(html: &str) -> String {
    let marked = mark_html_blocks(html);
    let text = html_to_text(&marked);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut line_quoted = false;
    let mut depth = 0usize;
    // A soft break ends the current line only if something is on it, so nested
    // blocks do not produce runs of blank lines; a real <br> ends a line, except
    // the one right after a soft break already ended it (`x</p>` is one line).
    let mut absorb_newline = false;
    let finish = |lines: &mut Vec<String>, line: &mut String, quoted: bool| {
        let content = line.trim();
        lines.push(if quoted && !content.is_empty() {
            format!("> {content}")
        } else {
            content.to_string()
        });
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
            BLOCK_MARK | QUOTE_OPEN_MARK | QUOTE_CLOSE_MARK => {
                if !line.trim().is_empty() {
                    finish(&mut lines, &mut line, line_quoted);
                    absorb_newline = true;
                } else {
                    line.clear();
                }
                if c == QUOTE_OPEN_MARK {
                    depth += 1;
                } else if c == QUOTE_CLOSE_MARK {
                    depth = depth.saturating_sub(1);
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

/// Inserts the structure markers before block-level tags (see [`BLOCK_MARK`]).
fn mark_html_blocks(html: &str) -> String {
    const BLOCKS: [&str; 16] = [
        "div", "p", "li", "ul", "ol", "tr", "table", "hr", "pre", "h1", "h2", "h3", "h4", "h5",
        "h6", "center",
    ];
    let mut out = String::with_capacity(html.len() + html.len() / 16);
    let mut rest = html;
    while let Some(pos) = rest.find('<') {
        out.push_str(&rest[..pos]);
        let tag = &rest[pos + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        // The markers are written as HTML numeric references, which html_to_text
        // decodes back to the characters; written raw, they could be glued to
        // the neighbouring word's token and lose the surrounding space.
        if name == "blockquote" {
            let mark = if closing {
                QUOTE_CLOSE_MARK
            } else {
                QUOTE_OPEN_MARK
            };
            out.push_str(&format!(" &#{}; ", u32::from(mark)));
        } else if BLOCKS.contains(&name.as_str()) {
            out.push_str(&format!(" &#{}; ", u32::from(BLOCK_MARK)));
        }
        out.push('<');
        rest = tag;
    }
    out.push_str(rest);
    out
}

/// The result of reading a decoded body.
struct Extracted {
    move_text: String,
    token: Option<String>,
}

/// Cleans one line: invisible characters HTML mail introduces are removed or made
/// plain spaces, and trailing whitespace is trimmed. HTML lines also lose their
/// leading whitespace, which HTML rendering ignores anyway.
fn clean_line(line: &str, from_html: bool) -> String {
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

fn extract(body: &str, from_html: bool) -> Extracted {
    let lines: Vec<String> = normalize_newlines(body)
        .split('\n')
        .map(|line| clean_line(line, from_html))
        .collect();

    let mut kept: Vec<&str> = Vec::new();
    let mut token = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].as_str();
        let trimmed = line.trim();
        if is_signature(line) || is_end_marker(trimmed) || starts_reply_block(&lines, i) {
            break;
        }
        if let Some(len) = attribution_len(&lines, i) {
            if kept.iter().any(|l| !l.trim().is_empty()) {
                break;
            }
            i += len;
            continue;
        }
        if is_quoted(line) {
            i += 1;
            continue;
        }
        if let Some(code) = token_line(trimmed) {
            token = token.or(code);
            i += 1;
            continue;
        }
        kept.push(line);
        i += 1;
    }
    // A token quoted from the notice, or below a cut, still identifies the reply.
    let token = token.or_else(|| {
        lines
            .iter()
            .find_map(|line| token_line(line.trim_start_matches([' ', '>']).trim()))
            .flatten()
    });

    let start = kept
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(kept.len());
    let end = kept
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(start, |e| e + 1);
    Extracted {
        move_text: kept[start..end].join("\n"),
        token,
    }
}

/// A signature separator: exactly `-- ` or `--` (trailing space already trimmed),
/// or the tagline a mobile or webmail client appends without one ("Sent from my
/// iPhone"), which would otherwise end up in nearly every reply from a phone.
fn is_signature(line: &str) -> bool {
    line == "--" || is_client_tagline(line.trim())
}

fn is_client_tagline(trimmed: &str) -> bool {
    const MAX_LEN: usize = 60;
    const PREFIXES: [&str; 10] = [
        "Sent from my ",
        "Sent from Outlook",
        "Get Outlook for ",
        "Sent from Mail for Windows",
        "Sent from Yahoo Mail",
        "Sent via ",
        "Von meinem ",
        "Envoyé de mon ",
        "Enviado desde mi ",
        "Inviato da ",
    ];
    trimmed.chars().count() <= MAX_LEN && PREFIXES.iter().any(|p| trimmed.starts_with(p))
}

fn is_end_marker(trimmed: &str) -> bool {
    ["end", "--end--", "#end", "."]
        .iter()
        .any(|marker| trimmed.eq_ignore_ascii_case(marker))
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

/// `Some(code)` for a `pbem-token:` line (`Some(None)` when its code is missing or
/// malformed: the line is still not part of the move), `None` for other lines.
fn token_line(trimmed: &str) -> Option<Option<String>> {
    let lower = trimmed.to_ascii_lowercase();
    let rest = lower.strip_prefix("pbem")?.trim_start();
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let rest = rest.strip_prefix("token")?.trim_start();
    rest.strip_prefix(':')?;
    // Take the code from the original line, to keep its case.
    let colon = trimmed.find(':')?;
    let code = trimmed[colon + 1..].trim();
    Some(is_code(code).then(|| code.to_string()))
}

/// Header labels of reply blocks, in the languages Outlook is most used in.
const FROM_LABELS: [&str; 9] = ["from", "von", "de", "från", "fra", "van", "da", "od", "от"];
const SENT_LABELS: [&str; 14] = [
    "sent",
    "date",
    "gesendet",
    "datum",
    "envoyé",
    "skickat",
    "sendt",
    "verzonden",
    "enviado",
    "enviada",
    "inviato",
    "data",
    "fecha",
    "wysłano",
];
const SUBJECT_LABELS: [&str; 10] = [
    "subject",
    "betreff",
    "objet",
    "ämne",
    "emne",
    "onderwerp",
    "asunto",
    "assunto",
    "oggetto",
    "temat",
];

/// The header label a line starts with (`From:`, `*Sent:*`, `Objet :`), lowercased.
fn label(trimmed: &str) -> Option<String> {
    let line = trimmed.trim_start_matches('*');
    let colon = line.find(':')?;
    let name = line[..colon].trim_end().trim_end_matches('*').trim_end();
    if name.is_empty() || name.chars().count() > 12 || name.contains(' ') {
        return None;
    }
    Some(name.to_lowercase())
}

/// True when line `i` starts a reply block: a `From:` line with a `Sent:`/`Date:`
/// and a `Subject:` line among the next few, an "Original Message" or "Forwarded
/// message" rule, or an underscore rule right before such a `From:` line.
fn starts_reply_block(lines: &[String], i: usize) -> bool {
    let trimmed = lines[i].trim();
    if is_original_message_rule(trimmed) {
        return true;
    }
    if trimmed.len() >= 10 && trimmed.chars().all(|c| c == '_') {
        return lines
            .iter()
            .enumerate()
            .skip(i + 1)
            .find(|(_, l)| !l.trim().is_empty())
            .is_some_and(|(next, _)| is_header_block(lines, next));
    }
    is_header_block(lines, i)
}

fn is_header_block(lines: &[String], i: usize) -> bool {
    const WINDOW: usize = 6;
    let is = |line: &str, labels: &[&str]| {
        label(line.trim()).is_some_and(|l| labels.contains(&l.as_str()))
    };
    if !is(&lines[i], &FROM_LABELS) {
        return false;
    }
    let next = &lines[i + 1..lines.len().min(i + 1 + WINDOW)];
    next.iter().any(|l| is(l, &SENT_LABELS)) && next.iter().any(|l| is(l, &SUBJECT_LABELS))
}

/// "-----Original Message-----", "---------- Forwarded message ---------" and the
/// German and French forms.
fn is_original_message_rule(trimmed: &str) -> bool {
    const TITLES: [&str; 6] = [
        "original message",
        "forwarded message",
        "ursprüngliche nachricht",
        "weitergeleitete nachricht",
        "message d'origine",
        "message transféré",
    ];
    let inner = trimmed.trim_matches(|c: char| c == '-' || c.is_whitespace());
    trimmed.starts_with("---")
        && trimmed.ends_with("---")
        && TITLES.contains(&inner.to_lowercase().as_str())
}

/// How many lines (1 or 2) the attribution starting at line `i` takes, if any.
fn attribution_len(lines: &[String], i: usize) -> Option<usize> {
    let first = lines[i].trim();
    if is_attribution(first) {
        return Some(1);
    }
    // Clients wrap long attributions (Gmail at about 78 columns), so the verb and
    // colon may be on the next line.
    let next = lines.get(i + 1)?.trim();
    if next.is_empty() || is_quoted(next) {
        return None;
    }
    is_attribution(&format!("{first} {next}")).then_some(2)
}

/// "On Mon, 23 Nov 2026 at 10:02, Referee <referee@example.org> wrote:" and the
/// forms of other languages: an opening word, then the verb near the end, then `:`.
fn is_attribution(text: &str) -> bool {
    const FORMS: [(&str, &str); 11] = [
        ("On ", "wrote"),
        ("Am ", "schrieb"),
        ("Le ", "écrit"),
        ("El ", "escribió"),
        ("Il ", "scritto"),
        ("Op ", "schreef"),
        ("Den ", "skrev"),
        ("Em ", "escreveu"),
        ("W dniu ", "napisał"),
        ("Dne ", "napsal"),
        ("On ", "writes"),
    ];
    const MAX_LEN: usize = 240;
    let text = text.trim();
    let Some(before_colon) = text.strip_suffix(':') else {
        return false;
    };
    if text.chars().count() > MAX_LEN {
        return false;
    }
    // The verb may be followed by the name ("Am … schrieb Referee:"), so look for
    // it in the tail of the line rather than right before the colon.
    let tail: String = {
        let chars: Vec<char> = before_colon.chars().collect();
        chars[chars.len().saturating_sub(60)..].iter().collect()
    };
    FORMS
        .iter()
        .any(|(opening, verb)| text.starts_with(opening) && tail.contains(verb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(body: &str) -> String {
        extract_move_text(body)
    }

    #[test]
    fn quoted_lines_are_dropped() {
        assert_eq!(
            strip("place E,NW at C5\n> quoted\n  >> deeper\nbuy D4"),
            "place E,NW at C5\nbuy D4"
        );
    }

    #[test]
    fn attribution_and_everything_after_it_is_dropped() {
        let body = "place E,NW at C5\n\nOn Mon, 23 Nov 2026 at 10:02, Referee <r@example.org> wrote:\n\nnot quoted but after\n";
        assert_eq!(strip(body), "place E,NW at C5");
    }

    #[test]
    fn wrapped_attribution_is_dropped() {
        let body = "place E,NW at C5\nOn Mon, 23 Nov 2026 at 10:02, Referee of the Right of Way Club <\nreferee@example.org> wrote:\nleftover";
        assert_eq!(strip(body), "place E,NW at C5");
    }

    #[test]
    fn german_and_french_attributions_are_dropped() {
        assert_eq!(
            strip("buy D4 with I\nAm 23.11.2026 um 10:02 schrieb Referee:\n> x"),
            "buy D4 with I"
        );
        assert_eq!(
            strip(
                "buy D4 with I\nLe lun. 23 nov. 2026 à 10:02, Referee <r@example.org> a écrit :\nx"
            ),
            "buy D4 with I"
        );
        assert_eq!(
            strip("buy D4 with I\nLe lun. 23 nov. 2026 à 10:02, Referee <r@example.org> a\nécrit\u{a0}:\nx"),
            "buy D4 with I"
        );
    }

    #[test]
    fn bottom_posted_reply_keeps_the_move_below_the_quote() {
        let body = "On Mon, 23 Nov 2026, Referee wrote:\n> Your move\n>\n\nplace E,NW at C5\n";
        assert_eq!(strip(body), "place E,NW at C5");
    }

    #[test]
    fn a_line_starting_with_on_is_kept_when_not_an_attribution() {
        assert_eq!(
            strip("On second thought:\nplace E,NW at C5"),
            "On second thought:\nplace E,NW at C5"
        );
    }

    #[test]
    fn outlook_header_block_is_cut() {
        let body = "place NE,SW at E9\n\nFrom: Referee <r@example.org>\nSent: Monday, 23 November 2026 10:02\nTo: Ann\nSubject: Turn 13\n\nold notice";
        assert_eq!(strip(body), "place NE,SW at E9");
        let body =
            "place NE,SW at E9\n-----Original Message-----\nFrom: Referee\nSent: today\nSubject: x";
        assert_eq!(strip(body), "place NE,SW at E9");
        let body = "place NE,SW at E9\n________________________________\nVon: Referee\nGesendet: Montag\nAn: Ann\nBetreff: Zug 13\nalt";
        assert_eq!(strip(body), "place NE,SW at E9");
        let body = "place NE,SW at E9\n\n*From:* Referee\n*Date:* Mon\n*Subject:* x\n";
        assert_eq!(strip(body), "place NE,SW at E9");
    }

    #[test]
    fn a_from_line_alone_is_not_a_header_block() {
        assert_eq!(
            strip("from: C5\nplace E,NW at C5"),
            "from: C5\nplace E,NW at C5"
        );
    }

    #[test]
    fn underscore_rule_alone_is_kept() {
        assert_eq!(
            strip("place E,NW at C5\n__________\nbuy D4"),
            "place E,NW at C5\n__________\nbuy D4"
        );
    }

    #[test]
    fn signature_and_everything_after_it_is_dropped() {
        assert_eq!(
            strip("place E,NW at C5\n-- \nAnn\nbuy D4"),
            "place E,NW at C5"
        );
        assert_eq!(strip("place E,NW at C5\n--\nAnn"), "place E,NW at C5");
        // Only the exact separator counts.
        assert_eq!(
            strip("place E,NW at C5\n--- \nbuy D4"),
            "place E,NW at C5\n---\nbuy D4"
        );
    }

    #[test]
    fn client_taglines_end_the_move() {
        for tagline in [
            "Sent from my iPhone",
            "Get Outlook for Android",
            "Von meinem iPhone gesendet",
            "Envoyé de mon iPad",
        ] {
            let body = format!("place E,NW at C5\n\n{tagline}\n\n> On Mon, Referee wrote:\n> x");
            assert_eq!(strip(&body), "place E,NW at C5", "{tagline:?}");
        }
        // A longer line that merely starts the same way is the player's.
        let long = "Sent via the referee: place E,NW at C5 because the other cell is blocked by Bo";
        assert_eq!(strip(long), long);
    }

    #[test]
    fn end_markers_end_the_move() {
        for marker in [
            "end", "END", "End", "--end--", "--END--", "#end", "#END", ".", "  end  ",
        ] {
            let body = format!("place E,NW at C5\n{marker}\nthanks, bye");
            assert_eq!(strip(&body), "place E,NW at C5", "marker {marker:?}");
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
            let extracted = extract(&format!("{line}\nplace E,NW at C5"), false);
            assert_eq!(extracted.move_text, "place E,NW at C5", "{line:?}");
            assert_eq!(extracted.token.as_deref(), Some("7QX2M4P9KD"), "{line:?}");
        }
        let malformed = extract("pbem-token: no!\nplace E,NW at C5", false);
        assert_eq!(malformed.move_text, "place E,NW at C5");
        assert_eq!(malformed.token, None);
    }

    #[test]
    fn quoted_token_is_found_when_the_player_wrote_none() {
        let extracted = extract("place E,NW at C5\n\n> pbem-token: AbC123xyz\n", false);
        assert_eq!(extracted.move_text, "place E,NW at C5");
        assert_eq!(extracted.token.as_deref(), Some("AbC123xyz"));
    }

    #[test]
    fn blank_edges_and_trailing_whitespace_are_trimmed_inner_lines_kept() {
        assert_eq!(
            strip("\n\n  \nplace E,NW at C5   \n\n  buy D4\t\n\n"),
            "place E,NW at C5\n\n  buy D4"
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
    fn html_blocks_become_lines_and_blockquotes_become_quotes() {
        let html = "<div dir=\"ltr\"><div>place E,NW at C5</div><div>buy D4 with I</div></div>\
                    <div class=\"gmail_quote\"><blockquote>Your move<br>Ann</blockquote></div>after";
        assert_eq!(
            html_body_to_text(html),
            "place E,NW at C5\nbuy D4 with I\n> Your move\n> Ann\nafter"
        );
        assert_eq!(
            extract(&html_body_to_text(html), true).move_text,
            "place E,NW at C5\nbuy D4 with I\nafter"
        );
        assert_eq!(
            html_body_to_text("<p>a&nbsp;b</p><p>&nbsp;</p><p>c</p>"),
            "a\u{a0}b\n\nc"
        );
        assert_eq!(html_body_to_text("a<br><br>b"), "a\n\nb");
    }

    #[test]
    fn subject_tag_and_code() {
        let subject = "AW: Fwd: RE: [PBEM row-7f3a2b1c] Turn 12: your move, Ann (ref k3j9xq2mfa)";
        assert_eq!(game_tag(subject).as_deref(), Some("row-7f3a2b1c"));
        assert_eq!(subject_code(subject).as_deref(), Some("k3j9xq2mfa"));
        assert_eq!(game_tag("[ext] [pbem  g1 ]").as_deref(), Some("g1"));
        assert_eq!(game_tag("[pbem] [pbem a b] [pbemx y]"), None);
        assert_eq!(
            subject_code("(ref short) (REF abcdef) "),
            Some("abcdef".to_string())
        );
        assert_eq!(subject_code("(ref abc-def1)"), None);
        assert_eq!(subject_code(&format!("(ref {})", "a".repeat(33))), None);
    }
}
