//! Reading incoming player mail: the fixtures in tests/fixtures/mail are shaped like
//! what real clients send (Gmail, Outlook, Apple Mail, Thunderbird, a French webmail),
//! and each must yield exactly the player's move and the headers that bind it.

use std::path::PathBuf;

use base64::Engine as _;
use pbem::mail::intake::{
    read_message, read_message_answering, Incoming, IntakeError, SentNotice, MAX_BODY_BYTES,
    MAX_MESSAGE_BYTES,
};
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
    assert_eq!(
        m.dropped,
        strings(&["Björn Åkesson", "Spelklubben Tärningen – Göteborg"])
    );
    assert!(!m.truncated);
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
/// paragraphs, the en dash 0x96) and is cut at the `From:`/`Sent:` block; the
/// undelimited sign-off after a blank line (the sender's name and a line of plain
/// words) is left out of the move and listed.
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
    assert_eq!(m.move_text, "place NE,SW at E9; discard Y");
    assert_eq!(
        m.dropped,
        strings(&["Björn Åkesson", "Spelklubben Tärningen – Göteborg"])
    );
}

#[test]
fn apple_mail_flowed_quoted_printable() {
    let m = fixture("03_apple_mail_flowed.eml");
    assert_eq!(m.move_text, "buy D4 with I paying C\nplace NE,SW at E9");
    assert_eq!(m.dropped, strings(&["Cléo", "Sent from my iPad"]));
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
    // What follows the end marker is the player's choice to leave out: not listed.
    assert!(m.dropped.is_empty());
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

/// The corpus in tests/fixtures/mail/replies: replies shaped as real clients write
/// them (Gmail, Outlook desktop, mobile and web, Apple Mail, Thunderbird, Yahoo,
/// Proton, Mail.ru, Yandex, GMX, Seznam, QQ, Samsung, …) in many languages, top- and
/// bottom-posted. Each NAME.eml has NAME.expected, the exact move text, and, when
/// lines are left out, NAME.dropped, one per line in order.
#[test]
fn corpus_of_client_replies() {
    let dir = fixture_path("replies");
    let mut messages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    messages.sort();
    for sidecar in &messages {
        let ext = sidecar.extension().and_then(|e| e.to_str()).unwrap_or("");
        assert!(
            ext == "eml" || sidecar.with_extension("eml").is_file(),
            "{} has no message beside it",
            sidecar.display()
        );
    }
    messages.retain(|path| path.extension().is_some_and(|e| e == "eml"));
    assert!(
        messages.len() >= 40,
        "the corpus has {} messages, expected at least 40",
        messages.len()
    );

    let mut failures = Vec::new();
    for eml in &messages {
        let name = eml.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        let raw = std::fs::read(eml).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = std::fs::read_to_string(eml.with_extension("expected"))
            .unwrap_or_else(|e| panic!("{name}.expected: {e}"));
        let expected = expected.strip_suffix('\n').unwrap_or(&expected);
        let dropped: Vec<String> = match std::fs::read_to_string(eml.with_extension("dropped")) {
            Ok(text) => text.lines().map(str::to_string).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => panic!("{name}.dropped: {e}"),
        };
        let m = read_message(&raw).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut wrong = Vec::new();
        if m.move_text != expected {
            wrong.push(format!("move {:?}, expected {expected:?}", m.move_text));
        }
        if m.dropped != dropped {
            wrong.push(format!("dropped {:?}, expected {dropped:?}", m.dropped));
        }
        if m.move_text
            .lines()
            .any(|l| l.trim().is_empty() || l.trim_start().starts_with('>'))
        {
            wrong.push(format!(
                "a blank or quoted line in the move {:?}",
                m.move_text
            ));
        }
        if m.dropped
            .iter()
            .any(|l| l.trim().is_empty() || l.contains('\n'))
        {
            wrong.push(format!(
                "a blank or multi-line dropped line {:?}",
                m.dropped
            ));
        }
        if m.truncated {
            wrong.push("truncated".to_string());
        }
        if m.game_tag.as_deref() != Some("row-7f3a2b1c") {
            wrong.push(format!("game tag {:?}", m.game_tag));
        }
        if !wrong.is_empty() {
            failures.push(format!("{name}: {}", wrong.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} replies read wrong:\n{}",
        failures.len(),
        messages.len(),
        failures.join("\n")
    );
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
fn a_message_above_the_limit_is_refused_unparsed() {
    let head = "From: ann@example.org\nSubject: [pbem g1]\n\nplace E,NW at C5\n";
    let mut raw = head.as_bytes().to_vec();
    raw.resize(MAX_MESSAGE_BYTES, b'x');
    assert!(read_message(&raw).is_ok(), "exactly the limit is read");
    raw.push(b'x');
    let err = read_message(&raw).expect_err("above the limit");
    assert_eq!(
        err,
        IntakeError::TooLarge {
            size: MAX_MESSAGE_BYTES + 1,
            limit: MAX_MESSAGE_BYTES
        }
    );
    assert!(err.to_string().contains("4194305 bytes"), "{err}");
}

/// A 4 MiB message whose body is one long quote under the move: only the first
/// 64 KiB of the body are read, and the move is found whole.
#[test]
fn a_large_message_is_read_up_to_the_body_limit() {
    let mut raw = String::from(
        "From: Ann Archer <ann@example.org>\nSubject: Re: [pbem g1] Turn 3\n\n\
         place E,NW at C5\n\nThanks!\n\nOn Mon, 23 Nov 2026, Referee wrote:\n",
    );
    while raw.len() < MAX_MESSAGE_BYTES - 64 {
        raw.push_str("> Right of Way, game g1: an earlier notice, quoted again\n");
    }
    let m = read_message(raw.as_bytes()).expect("a message");
    assert_eq!(m.move_text, "place E,NW at C5");
    assert_eq!(m.dropped, strings(&["Thanks!"]));
    assert!(!m.truncated);

    // The same with the move below the quote: it is past what is read, so the
    // message says so rather than give an empty or partial move.
    let quote_first =
        raw.replacen("place E,NW at C5\n\nThanks!\n\n", "", 1) + "\nplace E,NW at C5\n";
    let m = read_message(quote_first.as_bytes()).expect("a message");
    assert_eq!(m.move_text, "");
    assert!(m.truncated);
    assert!(quote_first.len() > 60 * MAX_BODY_BYTES);
}

/// A 4 MiB HTML message: only its first 512 KiB are converted, and the move above
/// the long blockquote is found whole.
#[test]
fn a_large_html_message_is_converted_up_to_its_limit() {
    let mut html =
        String::from("<div>place E,NW at C5</div><div><br></div><div>Thanks!</div><blockquote>");
    while html.len() < MAX_MESSAGE_BYTES - 200 {
        html.push_str("<div>Right of Way, an earlier notice</div><p>quoted again</p>");
    }
    html.push_str("</blockquote>");
    let raw = format!(
        "From: Ann <ann@example.org>\nSubject: [pbem g1]\nContent-Type: text/html; charset=utf-8\n\n{html}"
    );
    assert!(raw.len() <= MAX_MESSAGE_BYTES);
    let m = read_message(raw.as_bytes()).expect("a message");
    assert!(m.body_was_html);
    assert_eq!(m.move_text, "place E,NW at C5");
    assert_eq!(m.dropped, strings(&["Thanks!"]));
    assert!(!m.truncated);
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
/// signatures and client taglines, token lines, attributions and other lines ending
/// in a colon, reply-header labels and rules, lines starting with a word of a
/// closing phrase or the sender's name, which may start a sign-off paragraph, and
/// lines starting with a greeting's first word, which may be a greeting).
fn move_line() -> impl Strategy<Value = String> {
    // The first words of the closing phrases written in ASCII (a generated line is
    // ASCII), and the sender's names.
    const SIGN_OFF_WORDS: &[&str] = &[
        "thanks",
        "thank",
        "many",
        "thx",
        "cheers",
        "regards",
        "kind",
        "best",
        "warm",
        "warmest",
        "kindest",
        "all",
        "sincerely",
        "yours",
        "take",
        "bye",
        "see",
        "good",
        "have",
        "greetings",
        "talk",
        "danke",
        "vielen",
        "gruss",
        "mfg",
        "lg",
        "vg",
        "bis",
        "ciao",
        "merci",
        "cordialement",
        "bien",
        "amicalement",
        "bises",
        "salutations",
        "gracias",
        "muchas",
        "saludos",
        "un",
        "atentamente",
        "abrazos",
        "hasta",
        "grazie",
        "saluti",
        "cordiali",
        "distinti",
        "a",
        "obrigado",
        "obrigada",
        "atenciosamente",
        "cumprimentos",
        "beijos",
        "bedankt",
        "dank",
        "groeten",
        "groetjes",
        "met",
        "vriendelijke",
        "mvg",
        "tot",
        "tack",
        "mvh",
        "ha",
        "tak",
        "mange",
        "takk",
        "tusen",
        "hilsen",
        "venlig",
        "med",
        "vennlig",
        "kiitos",
        "terveisin",
        "parhain",
        "pozdrawiam",
        "pozdrowienia",
        "serdecznie",
        "s",
        "ann",
        "archer",
    ];
    const TAGLINES: [&str; 15] = [
        "sent ",
        "get outlook",
        "von meinem",
        "gesendet",
        "envoy",
        "enviado",
        "inviato",
        "obtener outlook",
        "scarica outlook",
        "skickat",
        "sendt",
        "verzonden",
        "verstuurd",
        "trimis",
        "odoslan",
    ];
    "[!-=?-~][ -~]{0,50}".prop_filter("a line the stripping rules give a meaning to", |line| {
        let trimmed = line.trim().to_ascii_lowercase();
        let is_marker = ["end", "--end--", "#end", ".", "--"].contains(&trimmed.as_str());
        let is_label = trimmed.split_once(':').is_some_and(|(label, _)| {
            let label = label.trim().trim_matches('*').trim();
            !label.is_empty()
                && label.len() <= 24
                && label.split_whitespace().count() <= 3
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphabetic() || c == ' ' || c == '\'')
        });
        let is_rule = ["--", "__", "==", "**"]
            .iter()
            .any(|p| trimmed.starts_with(p));
        let ends_with_colon = trimmed.ends_with(':');
        let first_word: String = trimmed
            .trim_start_matches(['-', '~', '*', ' '])
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        let is_sign_off = SIGN_OFF_WORDS.contains(&first_word.as_str())
            || pbem::mail::intake::GREETINGS
                .iter()
                .any(|greeting| greeting.split_whitespace().next() == Some(first_word.as_str()));
        let is_tagline = TAGLINES.iter().any(|p| trimmed.starts_with(p));
        !(is_marker
            || is_label
            || is_rule
            || ends_with_colon
            || trimmed.starts_with("on ")
            || is_sign_off
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
        // The move is the player's lines without the blank ones.
        let expected = move_lines.join("\n");
        if blank_after_first && move_lines.len() > 1 {
            move_lines.insert(1, String::new());
        }

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
        let dropped: &[&str] = match shape {
            Shape::TopPostQuotedPrintableCrlf => &[],
            Shape::TopPostBase64 | Shape::BottomPost8bit => &["Ann Archer", "place this is not a move"],
        };
        // The same whether or not the notice the reply answers is known.
        let notice = SentNotice {
            text: quote.lines().map(|l| l.trim_start_matches('>').trim()).collect::<Vec<_>>().join("\n"),
            from_name: Some("Referee".into()),
            from_address: Some("referee@example.org".into()),
        };
        for m in [
            read_message(raw.as_bytes()).expect("a message"),
            read_message_answering(raw.as_bytes(), Some(&notice)).expect("a message"),
        ] {
            prop_assert_eq!(&m.move_text, &expected);
            prop_assert_eq!(m.dropped, strings(dropped));
            prop_assert!(!m.truncated);
            prop_assert_eq!(m.game_tag.as_deref(), Some("row-7f3a2b1c"));
        }
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
