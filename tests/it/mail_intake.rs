//! Reading incoming player mail: the fixtures in tests/fixtures/mail are shaped like
//! what real clients send (Gmail, Outlook, Apple Mail, Thunderbird, a French webmail),
//! and each must yield exactly the player's move and the headers that bind it.

use std::path::PathBuf;

use base64::Engine as _;
use pbem::mail::intake::{read_message, Incoming, IntakeError};
use proptest::prelude::*;

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mail")
        .join(name)
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    let path = fixture_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn fixture(name: &str) -> Incoming {
    read_message(&fixture_bytes(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn strings(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|id| id.to_string()).collect()
}

#[test]
fn gmail_multipart_reply_on_top() {
    let m = fixture("01_gmail_reply.eml");
    assert_eq!(m.move_text, "place E,NW at C5\nbuy D4 with I");
    assert!(!m.body_was_html, "the text/plain alternative is preferred");
    assert_eq!(
        m.message_id.as_deref(),
        Some("CAHx7Kp2vR9m+QzT4nW8bJ5yLdE3sFgA1cU6oN0iXhZ7tBqVw@mail.gmail.com")
    );
    assert_eq!(m.from_address.as_deref(), Some("ann.archer@gmail.com"));
    assert_eq!(m.from_name.as_deref(), Some("Ann Archer"));
    assert_eq!(
        m.subject,
        "Re: [pbem row-7f3a2b1c] Turn 12: your move, Ann (ref k3j9xq2mfa)"
    );
    assert_eq!(m.game_tag.as_deref(), Some("row-7f3a2b1c"));
    assert_eq!(m.subject_code.as_deref(), Some("k3j9xq2mfa"));
    assert_eq!(
        m.in_reply_to,
        strings(&["row-7f3a2b1c.t12.ann.k3j9xq2mfa@example.org"])
    );
    assert_eq!(
        m.references,
        strings(&[
            "row-7f3a2b1c.t11.ann.a81Kd0qzWm@example.org",
            "row-7f3a2b1c.t12.ann.k3j9xq2mfa@example.org",
        ])
    );
    assert_eq!(m.token, None);
}

#[test]
fn gmail_snapshot() {
    let m = fixture("01_gmail_reply.eml");
    let json = serde_json::to_string_pretty(&m).expect("Incoming serializes");
    insta::with_settings!({
        snapshot_path => "../fixtures/mail/snapshots",
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("gmail_reply", json);
    });
}

/// Gmail's HTML alternative alone (the plain part blanked) gives the same move:
/// `<div>` lines stay separate lines and the blockquote counts as quoted.
#[test]
fn gmail_html_alternative_gives_the_same_move() {
    let raw = String::from_utf8(fixture_bytes("01_gmail_reply.eml")).expect("ASCII fixture");
    let plain_start =
        raw.find("quoted-printable\n\n").expect("plain part header") + "quoted-printable\n\n".len();
    let plain_end = raw
        .find("--000000000000a1b2c3d4e5f60718\nContent-Type: text/html")
        .expect("html part");
    let html_only = format!("{}\n{}", &raw[..plain_start], &raw[plain_end..]);
    let m = read_message(html_only.as_bytes()).expect("a message");
    assert!(m.body_was_html);
    assert_eq!(m.move_text, "place E,NW at C5\nbuy D4 with I");
}

#[test]
fn outlook_html_only_windows_1252() {
    let m = fixture("02_outlook_html.eml");
    assert_eq!(m.move_text, "place NE,SW at E9; discard Y");
    assert!(m.body_was_html);
    assert_eq!(
        m.message_id.as_deref(),
        Some("AM9PR07MB72045C1D2E3F4A5B6C7D8E9FA0B1C2D3@AM9PR07MB7204.eurprd07.prod.outlook.com")
    );
    assert_eq!(m.from_address.as_deref(), Some("bjorn.akesson@outlook.com"));
    assert_eq!(m.from_name.as_deref(), Some("Björn Åkesson"));
    assert_eq!(
        m.subject,
        "RE: [pbem row-7f3a2b1c] Turn 13: your move, Björn (ref Q8wz2LmN4p)"
    );
    assert_eq!(m.game_tag.as_deref(), Some("row-7f3a2b1c"));
    assert_eq!(m.subject_code.as_deref(), Some("Q8wz2LmN4p"));
    assert_eq!(
        m.in_reply_to,
        strings(&["row-7f3a2b1c.t13.bjorn.Q8wz2LmN4p@example.org"])
    );
    assert_eq!(m.references, m.in_reply_to);
    assert_eq!(m.token, None);
}

/// Without the `--` line, the Outlook body decodes (windows-1252, `&nbsp;` blank
/// paragraphs, the en dash 0x96) and is cut at the `From:`/`Sent:` block; an
/// undelimited sign-off stays, since nothing marks it as not part of the move.
#[test]
fn outlook_body_decodes_and_cuts_at_the_header_block() {
    let raw = fixture_bytes("02_outlook_html.eml");
    let marker = b"<p class=3D\"MsoNormal\"><span lang=3D\"EN-US\">--<o:p></o:p></span></p>\r\n";
    let pos = raw
        .windows(marker.len())
        .position(|w| w == marker)
        .expect("signature separator in fixture");
    let mut without = raw[..pos].to_vec();
    without.extend_from_slice(&raw[pos + marker.len()..]);
    let m = read_message(&without).expect("a message");
    assert_eq!(
        m.move_text,
        "place NE,SW at E9; discard Y\n\nBjörn Åkesson\nSpelklubben Tärningen – Göteborg"
    );
}

#[test]
fn apple_mail_flowed_quoted_printable() {
    let m = fixture("03_apple_mail_flowed.eml");
    assert_eq!(m.move_text, "buy D4 with I paying C\nplace NE,SW at E9");
    assert!(!m.body_was_html);
    assert_eq!(
        m.message_id.as_deref(),
        Some("9E1B4C7A-3F2D-4B8E-A5C6-D7E8F9012345@icloud.com")
    );
    assert_eq!(m.from_address.as_deref(), Some("cleo.durand@icloud.com"));
    assert_eq!(m.from_name.as_deref(), Some("Cléo Durand"));
    assert_eq!(m.game_tag.as_deref(), Some("row-7f3a2b1c"));
    assert_eq!(m.subject_code.as_deref(), Some("Zr5tY8uP2w"));
    assert_eq!(
        m.in_reply_to,
        strings(&["row-7f3a2b1c.t14.cleo.Zr5tY8uP2w@example.org"])
    );
    assert_eq!(
        m.references,
        strings(&[
            "row-7f3a2b1c.t12.ann.k3j9xq2mfa@example.org",
            "row-7f3a2b1c.t14.cleo.Zr5tY8uP2w@example.org",
        ])
    );
    assert_eq!(m.token, None);
}

/// A soft line break of format=flowed (a line ending in a space, here written `=20`
/// in quoted-printable) joins the two lines into one.
#[test]
fn apple_mail_flowed_soft_break_joins_lines() {
    let raw = String::from_utf8(fixture_bytes("03_apple_mail_flowed.eml")).expect("ASCII");
    let wrapped = raw.replace(
        "buy D4 with I paying C\nplace NE,SW at E9\n",
        "buy D4 with I paying C; place NE,SW at E9;=20\ndiscard Y\n",
    );
    let m = read_message(wrapped.as_bytes()).expect("a message");
    assert_eq!(
        m.move_text,
        "buy D4 with I paying C; place NE,SW at E9; discard Y"
    );
}

#[test]
fn bare_new_message_with_token() {
    let m = fixture("04_new_message_token.eml");
    assert_eq!(m.move_text, "place NE,SW at E9; discard Y");
    assert_eq!(m.token.as_deref(), Some("7QX2M4P9KD"));
    assert_eq!(
        m.message_id.as_deref(),
        Some("20261123120540.4f1e2d3c@posteo.de")
    );
    assert_eq!(m.from_address.as_deref(), Some("dieter@posteo.de"));
    assert_eq!(m.from_name, None);
    assert_eq!(m.subject, "[PBEM row-7f3a2b1c] move");
    assert_eq!(m.game_tag.as_deref(), Some("row-7f3a2b1c"));
    assert_eq!(m.subject_code, None);
    assert!(m.in_reply_to.is_empty());
    assert!(m.references.is_empty());
    assert!(!m.body_was_html);
}

/// Thunderbird bottom-posts by default: the German attribution and the quote come
/// first, the move below, then an `END` marker and chatter, then a signature.
#[test]
fn thunderbird_german_bottom_post_with_end_marker() {
    let m = fixture("05_thunderbird_de_end.eml");
    assert_eq!(m.move_text, "place E,NW at C5\nbuy D4 with I");
    assert_eq!(
        m.message_id.as_deref(),
        Some("5b8e2f14-9c3a-4d71-b6e0-2a4f8c1d9e37@posteo.de")
    );
    assert_eq!(m.from_address.as_deref(), Some("dieter@posteo.de"));
    assert_eq!(m.from_name.as_deref(), Some("Dieter Krause"));
    assert_eq!(m.game_tag.as_deref(), Some("row-7f3a2b1c"));
    assert_eq!(m.subject_code.as_deref(), Some("Hq7Vn3Rx9s"));
    assert_eq!(
        m.in_reply_to,
        strings(&["row-7f3a2b1c.t15.dieter.Hq7Vn3Rx9s@example.org"])
    );
    assert_eq!(m.references, m.in_reply_to);
    assert_eq!(m.token, None);
}

/// Base64 in ISO-8859-1: the French attribution, wrapped after "a", only matches
/// when "à" and "écrit" were decoded from Latin-1 correctly.
#[test]
fn base64_latin1_with_wrapped_french_attribution() {
    let m = fixture("06_base64_latin1.eml");
    assert_eq!(m.move_text, "place NE,SW at E9; discard Y");
    assert_eq!(
        m.message_id.as_deref(),
        Some("1764187937412.55021.ew@wwinf1f21")
    );
    assert_eq!(m.from_address.as_deref(), Some("elodie.marchand@orange.fr"));
    assert_eq!(m.from_name.as_deref(), Some("Élodie Marchand"));
    assert_eq!(
        m.subject,
        "RE\u{a0}: [pbem row-7f3a2b1c] Turn 16: your move, Élodie (ref Tn4Kp8Wz2c)"
    );
    assert_eq!(m.game_tag.as_deref(), Some("row-7f3a2b1c"));
    assert_eq!(m.subject_code.as_deref(), Some("Tn4Kp8Wz2c"));
    assert_eq!(
        m.in_reply_to,
        strings(&["row-7f3a2b1c.t16.elodie.Tn4Kp8Wz2c@example.org"])
    );
    assert_eq!(m.references, m.in_reply_to);
    assert_eq!(m.token, None);
}

#[test]
fn garbage_bytes_are_not_a_message() {
    let err = read_message(&fixture_bytes("07_not_a_message.bin")).expect_err("garbage");
    assert!(
        matches!(err, IntakeError::NoMailHeaders { .. }),
        "unexpected error {err:?}"
    );
    assert!(err
        .to_string()
        .starts_with("not a mail message: none of From, To, Date, Subject or Message-ID"));
}

#[test]
fn other_non_messages_are_refused_with_what_was_wrong() {
    assert_eq!(read_message(b""), Err(IntakeError::Empty));
    assert_eq!(read_message(b" \r\n\t\n"), Err(IntakeError::Empty));
    assert_eq!(
        read_message(b"place E,NW at C5\n"),
        Err(IntakeError::NoHeaders)
    );
    assert_eq!(
        read_message(b"{\"move\": \"place E,NW at C5\"}\n"),
        Err(IntakeError::NoMailHeaders {
            first_line: "{\"move\": \"place E,NW at C5\"}".to_string()
        })
    );
    let err = read_message(b"place E,NW at C5\n").expect_err("no headers");
    assert!(err.to_string().contains("From: ann@example.org"), "{err}");
}

#[test]
fn a_message_without_text_has_an_empty_move() {
    let raw = b"From: ann@example.org\nSubject: [pbem g1]\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n";
    let m = read_message(raw).expect("still a message");
    assert_eq!(m.move_text, "");
    assert_eq!(m.game_tag.as_deref(), Some("g1"));
    assert_eq!(m.message_id, None);
}

/// Lines a player could write as a move: printable ASCII, not starting with `>` or a
/// space, minus the few lines the documented rules give a meaning to (end markers,
/// signatures and client taglines, token lines, attributions, reply-header labels).
fn move_line() -> impl Strategy<Value = String> {
    "[!-=?-~][ -~]{0,50}".prop_filter("a line the stripping rules give a meaning to", |line| {
        let trimmed = line.trim().to_ascii_lowercase();
        let is_marker = ["end", "--end--", "#end", ".", "--"].contains(&trimmed.as_str());
        let label = trimmed
            .trim_start_matches('*')
            .split(':')
            .next()
            .unwrap_or("");
        let is_label = trimmed.contains(':')
            && ["from", "de", "da", "od", "van", "von", "fra"].contains(&label.trim());
        let is_rule = trimmed.starts_with("---") || trimmed.starts_with("__");
        let is_attribution = trimmed.ends_with(':')
            && [
                "on ", "am ", "le ", "el ", "il ", "op ", "den ", "em ", "w dniu ", "dne ",
            ]
            .iter()
            .any(|p| trimmed.starts_with(p));
        let is_tagline = [
            "sent from",
            "sent via",
            "get outlook",
            "von meinem",
            "envoy",
            "enviado",
            "inviato",
        ]
        .iter()
        .any(|p| trimmed.starts_with(p));
        !(is_marker
            || is_label
            || is_rule
            || is_attribution
            || is_tagline
            || trimmed.starts_with("pbem"))
    })
}

#[derive(Debug, Clone, Copy)]
enum Shape {
    TopPostQuotedPrintableCrlf,
    TopPostBase64,
    BottomPost8bit,
}

proptest! {
    #[test]
    fn a_wrapped_reply_yields_exactly_the_move_lines(
        lines in prop::collection::vec(move_line(), 1..6),
        blank_after_first in any::<bool>(),
        shape in prop_oneof![
            Just(Shape::TopPostQuotedPrintableCrlf),
            Just(Shape::TopPostBase64),
            Just(Shape::BottomPost8bit),
        ],
    ) {
        let mut move_lines: Vec<String> = lines.iter().map(|l| l.trim_end().to_string()).collect();
        if blank_after_first && move_lines.len() > 1 {
            move_lines.insert(1, String::new());
        }
        let expected = move_lines.join("\n");

        let attribution = "On Mon, 23 Nov 2026 at 10:02, Referee <referee@example.org> wrote:";
        let quote = "> Right of Way - game row-7f3a2b1c, turn 12\n>\n>    /B4\\__/C5\\\n> Your move, Ann.";
        let signature = "-- \nAnn Archer\nplace this is not a move";
        let moves = move_lines.join("\n");
        let (body, encoding) = match shape {
            // Top-posting: the attribution cuts (Gmail without a signature).
            Shape::TopPostQuotedPrintableCrlf => (
                format!("{moves}\n\n{attribution}\n\n{quote}\n"),
                "quoted-printable",
            ),
            // Top-posting with a signature above the quote.
            Shape::TopPostBase64 => (
                format!("{moves}\n\n{signature}\n\n{attribution}\n\n{quote}\n"),
                "base64",
            ),
            // Bottom-posting: attribution and quote first, then the move.
            Shape::BottomPost8bit => (
                format!("{attribution}\n{quote}\n\n{moves}\n\n{signature}\n"),
                "8bit",
            ),
        };
        let (body, encoding) = match shape {
            Shape::TopPostQuotedPrintableCrlf => (quoted_printable(&body), encoding),
            Shape::TopPostBase64 => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(body.as_bytes());
                let wrapped: Vec<&str> = b64.as_bytes().chunks(76)
                    .map(|c| std::str::from_utf8(c).expect("base64 is ASCII"))
                    .collect();
                (wrapped.join("\n"), encoding)
            }
            Shape::BottomPost8bit => (body, encoding),
        };
        let mut raw = format!(
            "From: Ann Archer <ann@example.org>\n\
             Subject: Re: [pbem row-7f3a2b1c] Turn 12 (ref k3j9xq2mfa)\n\
             Message-ID: <p1@example.org>\n\
             In-Reply-To: <row-7f3a2b1c.t12@example.org>\n\
             MIME-Version: 1.0\n\
             Content-Type: text/plain; charset=utf-8\n\
             Content-Transfer-Encoding: {encoding}\n\n{body}"
        );
        if matches!(shape, Shape::TopPostQuotedPrintableCrlf) {
            raw = raw.replace('\n', "\r\n");
        }
        let m = read_message(raw.as_bytes()).expect("a message");
        prop_assert_eq!(m.move_text, expected);
        prop_assert_eq!(m.game_tag.as_deref(), Some("row-7f3a2b1c"));
    }
}

/// Quoted-printable for the property test: every `=` encoded, lines kept short with
/// soft breaks, trailing spaces protected. (The test's own encoder; intake decodes
/// with mail-parser.)
fn quoted_printable(text: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut width = 0;
        let chars: Vec<char> = line.chars().collect();
        for (j, c) in chars.iter().enumerate() {
            let last = j + 1 == chars.len();
            let piece = match c {
                '=' => "=3D".to_string(),
                ' ' | '\t' if last => format!("={:02X}", *c as u32),
                c if c.is_ascii() => c.to_string(),
                c => {
                    let mut buf = [0u8; 4];
                    c.encode_utf8(&mut buf)
                        .bytes()
                        .map(|b| format!("={b:02X}"))
                        .collect()
                }
            };
            if width + piece.len() > 72 {
                out.push_str("=\n");
                width = 0;
            }
            width += piece.len();
            out.push_str(&piece);
        }
    }
    out
}
