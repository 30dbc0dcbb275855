//! The words around a move that are not the move: a greeting above it, sign-off
//! paragraphs and the sender's name below it, a client's tagline ("Sent from my
//! iPhone"), a tagline of the player's own (see "Greetings" and "Sign-offs" in the
//! intake's documentation).

use super::attribution::has_address;
use super::lines::{has_cell_word, OwnLine};
use super::phrases::PHRASES;

/// How many trailing sign-off paragraphs may be dropped.
const MAX_SIGN_OFF_PARAGRAPHS: usize = 3;
/// The most lines a sign-off paragraph has.
const MAX_SIGN_OFF_LINES: usize = 4;
/// The longest line of a sign-off paragraph, in characters.
const MAX_SIGN_OFF_CHARS: usize = 60;
/// The longest client tagline, in characters, a trailing link aside.
const MAX_TAGLINE_CHARS: usize = 60;
/// The longest greeting line, in characters.
const MAX_GREETING_CHARS: usize = 60;
/// The most words after a greeting's opening word.
const MAX_GREETING_WORDS: usize = 6;
/// The most lines of a tagline of the player's own.
const MAX_OWN_TAGLINE_LINES: usize = 2;
/// The longest line of a tagline of the player's own, in characters.
const MAX_OWN_TAGLINE_CHARS: usize = 120;

/// Removes the trailing sign-off paragraphs from the player's lines (see the module
/// documentation) and returns them, in message order, each line trimmed. With
/// `ends_at_quote` (the player's text ends right above the quote of the notice the
/// reply answers), the last paragraph may also be a tagline of the player's own.
pub(super) fn sign_offs(own: &mut Vec<OwnLine>, names: &Names, ends_at_quote: bool) -> Vec<String> {
    let mut dropped: Vec<String> = Vec::new();
    for round in 0..MAX_SIGN_OFF_PARAGRAPHS {
        let len = own.len();
        // The last paragraph starts at the last line after a break; only the last
        // few lines are looked at, so this is constant work.
        let Some(start) = (len.saturating_sub(MAX_SIGN_OFF_LINES)..len)
            .rev()
            .find(|&k| own[k].new_paragraph)
        else {
            break;
        };
        let tagline = round == 0 && ends_at_quote && is_own_tagline(&own[start..]);
        if !tagline && !is_sign_off(&own[start..], names) {
            break;
        }
        let mut paragraph: Vec<String> = own
            .drain(start..)
            .map(|line| line.text.trim().to_string())
            .collect();
        paragraph.append(&mut dropped);
        dropped = paragraph;
    }
    dropped
}

fn is_sign_off(paragraph: &[OwnLine], names: &Names) -> bool {
    let Some((first, rest)) = paragraph.split_first() else {
        return false;
    };
    if paragraph.len() > MAX_SIGN_OFF_LINES
        || paragraph
            .iter()
            .any(|line| line.text.trim().chars().count() > MAX_SIGN_OFF_CHARS)
    {
        return false;
    }
    let first = first.text.trim();
    (is_closing_line(first) || names.is_name_line(first))
        && rest.iter().all(|line| {
            let line = line.text.trim();
            names.is_name_line(line)
                || is_closing_line(line)
                || is_contact_line(line)
                || is_plain_words(line)
        })
}

/// Lowercased, with leading dashes and tildes and trailing punctuation, emoji and
/// spaces removed, and inner whitespace collapsed: `— Ann :)` is `ann`.
fn normalize_phrase(line: &str) -> String {
    let line = line.trim_start_matches(['-', '–', '—', '~', '*', ' ']);
    let line = line.trim_end_matches(|c: char| !c.is_alphanumeric());
    line.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A known closing phrase, alone or followed by a few words with no digit and no `;`.
pub(super) fn is_closing_line(line: &str) -> bool {
    if line.chars().count() > MAX_SIGN_OFF_CHARS {
        return false;
    }
    let normalized = normalize_phrase(line);
    PHRASES.closings.iter().any(|phrase| {
        let Some(rest) = normalized.strip_prefix(phrase) else {
            return false;
        };
        if rest.is_empty() {
            return true;
        }
        // "thanksgiving" is not "thanks".
        if rest.starts_with(char::is_alphanumeric) {
            return false;
        }
        !rest.contains(';')
            && !rest.chars().any(|c| c.is_ascii_digit())
            && rest.split_whitespace().count() <= 4
    })
}

/// An e-mail or web address, or a phone number.
fn is_contact_line(line: &str) -> bool {
    if has_address(line) || line.contains("://") || line.to_lowercase().starts_with("www.") {
        return true;
    }
    let digits = line.chars().filter(char::is_ascii_digit).count();
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    digits >= 6 && letters <= 10 && !line.contains(';') && !has_cell_word(line)
}

/// Two or more words with none of the marks of a move (see the intake's documentation).
fn is_plain_words(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(first) = words.first() else {
        return false;
    };
    let lowercase_first = first.chars().all(|c| c.is_ascii_lowercase());
    let short_capitals = words.iter().any(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        !word.is_empty()
            && word.chars().count() <= 5
            && word.chars().all(|c| c.is_ascii_uppercase() || c == ',')
    });
    words.len() >= 2
        && !line.contains(';')
        && !has_cell_word(line)
        && !lowercase_first
        && !short_capitals
}

/// The sender's names, lowercased: the display name, its words, and the local part
/// of the address and its words (each word at least 2 characters).
#[derive(Debug, Default)]
pub(super) struct Names {
    full: Option<String>,
    words: Vec<String>,
}

impl Names {
    pub(super) fn of(display_name: Option<&str>, address: Option<&str>) -> Names {
        let mut names = Names::default();
        let mut add = |word: &str| {
            let word = word
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if word.chars().count() >= 2
                && word.chars().any(char::is_alphabetic)
                && !names.words.contains(&word)
            {
                names.words.push(word);
            }
        };
        if let Some(name) = display_name {
            name.split(|c: char| c.is_whitespace() || matches!(c, ',' | '"' | '(' | ')'))
                .for_each(&mut add);
        }
        if let Some(local) = address.and_then(|a| a.split('@').next()) {
            add(local);
            local.split(['.', '_', '-', '+']).for_each(&mut add);
        }
        names.full = display_name
            .map(normalize_phrase)
            .filter(|full| !full.is_empty());
        names
    }

    /// A line that is only the sender's name (or some of its words), optionally after
    /// a dash or tilde: `Ann`, `Ann Archer`, `- Ann`, `~ann`.
    fn is_name_line(&self, line: &str) -> bool {
        if line.chars().count() > MAX_SIGN_OFF_CHARS {
            return false;
        }
        let normalized = normalize_phrase(line);
        if normalized.is_empty() {
            return false;
        }
        if self.full.as_deref() == Some(normalized.as_str()) {
            return true;
        }
        let words: Vec<&str> = normalized
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .collect();
        !words.is_empty()
            && words.len() <= 4
            && words.iter().all(|w| self.words.iter().any(|n| n == w))
    }
}

/// The words the referee answers without a move, and the move that passes: a line
/// starting with one is never a greeting or a tagline.
const REFEREE_WORDS: &[&str] = &[
    "pass", "undo", "agree", "decline", "preview", "moves", "away", "back", "resign", "confirm",
    "note",
];

fn is_referee_word(word: &str) -> bool {
    let word = word
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    REFEREE_WORDS.contains(&word.as_str())
}

/// Removes a greeting from the start of the player's lines (see the module
/// documentation) and returns it: the first line, when it is one and more of the
/// player's text follows.
pub(super) fn greeting(own: &mut Vec<OwnLine>) -> Vec<String> {
    if own.len() < 2 || !is_greeting(own[0].text.trim()) {
        return Vec::new();
    }
    let line = own.remove(0).text.trim().to_string();
    own[0].new_paragraph = false;
    vec![line]
}

/// A greeting: a known opening ("Hi", "Dear", "Bonjour", "Привет", …) alone or with
/// a few words after it ("Hi Bob... I mean referee,"), ending in `,`, `!`, `.`, `:`
/// or `…` when more than two words follow; no `;`, no board cell, no group of
/// capitals such as `E,NW`, and none of the referee's words (`pass`, `undo`, …).
fn is_greeting(line: &str) -> bool {
    if line.chars().count() > MAX_GREETING_CHARS || line.contains(';') || has_cell_word(line) {
        return false;
    }
    let lower = line.to_lowercase();
    let Some(rest) = PHRASES.greetings.iter().find_map(|greeting| {
        lower
            .strip_prefix(greeting)
            .filter(|rest| !rest.starts_with(char::is_alphanumeric))
    }) else {
        return false;
    };
    let words: Vec<&str> = rest
        .split_whitespace()
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .collect();
    let capitals = line.split_whitespace().any(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        word.contains(',') && word.chars().all(|c| c.is_ascii_uppercase() || c == ',')
    });
    let ending = line
        .trim_end_matches(|c: char| !c.is_alphanumeric() && !",!.:…".contains(c))
        .ends_with([',', '!', '.', ':', '…']);
    words.len() <= MAX_GREETING_WORDS
        && !capitals
        && !words.iter().any(|word| is_referee_word(word))
        && (ending || words.len() <= 2)
}

/// A tagline of the player's own ("Sent from my iPhone 15 Pro Max. Please excuse
/// typos, autocorrect and brevity."), as the paragraph right above the notice's quote
/// may be: at most two lines of at most 120 characters, each three or more words
/// with none of the marks of a move, not starting with one of the referee's words.
fn is_own_tagline(paragraph: &[OwnLine]) -> bool {
    !paragraph.is_empty()
        && paragraph.len() <= MAX_OWN_TAGLINE_LINES
        && paragraph.iter().all(|line| {
            let line = line.text.trim();
            line.chars().count() <= MAX_OWN_TAGLINE_CHARS
                && line.split_whitespace().count() >= 3
                && is_plain_words(line)
                && !line.split_whitespace().next().is_some_and(is_referee_word)
        })
}

/// A client's tagline: "Sent from my iPhone", "Get Outlook for Android<https://…>".
pub(super) fn is_client_tagline(trimmed: &str) -> bool {
    // Outlook's mobile apps append a link: "Get Outlook for iOS<https://aka.ms/o0ukef>".
    let text = match trimmed.find("<http") {
        Some(pos) if trimmed.ends_with('>') => trimmed[..pos].trim_end(),
        _ => trimmed,
    };
    if text.chars().count() > MAX_TAGLINE_CHARS {
        return false;
    }
    let lower = text.to_lowercase();
    PHRASES.tagline_starts.iter().any(|p| lower.starts_with(p))
        || PHRASES.tagline_ends.iter().any(|s| lower.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::intake::testing::{read, read_from_ann, strip, MOVE, TURN};

    #[test]
    fn client_taglines_end_the_move() {
        for tagline in [
            "Sent from my iPhone",
            "Sent from my Samsung Galaxy smartphone.",
            "Get Outlook for Android",
            "Get Outlook for iOS<https://aka.ms/o0ukef>",
            "Sent from Yahoo Mail on Android",
            "Sent from Mail for Windows",
            "Sent with Proton Mail secure email.",
            "Von meinem iPhone gesendet",
            "Gesendet von Outlook für Android",
            "Gesendet von Outlook für Android<https://aka.ms/AAb9ysg>",
            "Envoyé de mon iPad",
            "Envoyé à partir de Outlook pour iOS",
            "Télécharger Outlook pour Android<https://aka.ms/ghei36>",
            "Enviado desde mi iPhone",
            "Enviado do meu iPhone",
            "Inviato da iPhone",
            "Отправлено с iPhone",
            "Отправлено из мобильной Почты Mail.ru",
            "Wysłane z iPhone'a",
            "Lähetetty iPhonesta",
            "Skickat från min iPhone",
            "Sendt fra min iPhone",
            "Verzonden vanaf mijn iPhone",
            "Odesláno z iPhonu",
            "iPhoneから送信",
            "发自我的iPhone",
            "iPhone에서 보냄",
        ] {
            let body = format!("place E,NW at C5\n\n{tagline}\n\n> On Mon, Referee wrote:\n> x");
            let extracted = read(&body);
            assert_eq!(extracted.move_text, "place E,NW at C5", "{tagline:?}");
            assert_eq!(extracted.dropped, [tagline], "{tagline:?}");
        }
        // A longer line that merely starts the same way is the player's.
        let long = "Sent via the referee: place E,NW at C5 because the other cell is blocked by Bo";
        assert_eq!(strip(long), long);
        // Header labels are not taglines.
        assert!(!is_client_tagline("Lähetetty: 23.11.2026"));
        assert!(!is_client_tagline("Gesendet: Montag"));
    }

    #[test]
    fn sign_off_paragraphs_are_dropped_and_listed() {
        let cases: [(&str, &[&str]); 14] = [
            ("Kind regards,\nAnn", &["Kind regards,", "Ann"]),
            ("Thanks!", &["Thanks!"]),
            ("Thanks!\n\nAnn", &["Thanks!", "Ann"]),
            ("Cheers", &["Cheers"]),
            (
                "Thanks for the game!\n- Ann",
                &["Thanks for the game!", "- Ann"],
            ),
            (
                "Mit freundlichen Grüßen\nAnn Archer",
                &["Mit freundlichen Grüßen", "Ann Archer"],
            ),
            (
                "Cordialement,\nAnn Archer\nann.archer@example.org",
                &["Cordialement,", "Ann Archer", "ann.archer@example.org"],
            ),
            ("Saludos", &["Saludos"]),
            ("Pozdrawiam\nAnn", &["Pozdrawiam", "Ann"]),
            ("С уважением,\nAnn Archer", &["С уважением,", "Ann Archer"]),
            ("よろしくお願いします。", &["よろしくお願いします。"]),
            ("Ann", &["Ann"]),
            (
                "Ann Archer\nRight of Way Club, Leeds\n+44 113 496 0000",
                &["Ann Archer", "Right of Way Club, Leeds", "+44 113 496 0000"],
            ),
            (
                "Best,\nAnn\n\nSent from my iPhone",
                &["Best,", "Ann", "Sent from my iPhone"],
            ),
        ];
        for (tail, dropped) in cases {
            let body = format!("{MOVE}\nbuy D4 with I\n\n{tail}\n\n> Your move\n");
            let extracted = read_from_ann(&body);
            assert_eq!(
                extracted.move_text,
                format!("{MOVE}\nbuy D4 with I"),
                "{tail:?}"
            );
            assert_eq!(extracted.dropped, dropped, "{tail:?}");
        }
    }

    #[test]
    fn sign_offs_that_might_hold_a_move_are_kept() {
        for tail in [
            // Not after a blank line.
            "\nThanks!",
            // A move-like line in the paragraph.
            "\n\nThanks\npass",
            "\n\nThanks\ndiscard Y,I",
            "\n\nThanks,\nplace NE,SW at E9",
            "\n\nCheers\nBuy D4",
            "\n\nThanks; pass",
            "\n\nThanks, place NE,SW at E9",
            // Too long a paragraph, or too long a line.
            "\n\nThanks\nAnn\nAnn\nAnn\nAnn",
            "\n\nThanks for the game, I really enjoyed the last turns very much",
            // Not a closing phrase, not the sender's name.
            "\n\nBo",
            "\n\nThanksgiving",
        ] {
            let body = format!("{MOVE}{tail}");
            let extracted = read_from_ann(&body);
            let expected: Vec<&str> = body.lines().filter(|l| !l.is_empty()).collect();
            assert_eq!(extracted.move_text, expected.join("\n"), "{tail:?}");
            assert!(extracted.dropped.is_empty(), "{tail:?}");
        }
        // The only paragraph is never dropped, even if it is a closing phrase.
        let extracted = read_from_ann("Thanks!\n");
        assert_eq!(extracted.move_text, "Thanks!");
        assert!(extracted.dropped.is_empty());
        // With no sender known, a name is not recognised.
        assert_eq!(strip(&format!("{MOVE}\n\nAnn")), format!("{MOVE}\nAnn"));
    }

    /// The example: a turn is read whole; nothing is cut from it.
    #[test]
    fn a_turn_with_a_bad_last_line_is_read_whole() {
        let extracted =
            read_from_ann("place E,W at A7\ndiscard C,V extra-garbage\n\n> Your move\n");
        assert_eq!(
            extracted.move_text,
            "place E,W at A7\ndiscard C,V extra-garbage"
        );
        assert!(extracted.dropped.is_empty());
    }

    #[test]
    fn greetings_are_dropped_and_listed() {
        for greeting in [
            "Hi,",
            "Hi",
            "Hello referee!",
            "Hi Bob... I mean referee,",
            "Dear Referee,",
            "Good morning, referee.",
            "Hallo zusammen,",
            "Bonjour à tous,",
            "Ciao!",
            "Hola árbitro:",
            "Hej hej",
            "Привет!",
            "Cześć,",
            "こんにちは、レフェリー",
        ] {
            for gap in ["\n", "\n\n"] {
                let extracted = read_from_ann(&format!("{greeting}{gap}{TURN}\n\nThanks!\n"));
                assert_eq!(extracted.move_text, TURN, "{greeting:?}");
                assert_eq!(extracted.dropped, [greeting, "Thanks!"], "{greeting:?}");
            }
        }
    }

    #[test]
    fn greetings_that_might_hold_a_move_are_kept() {
        for first in [
            "Hey, pass",
            "Hello, place E,NW at C5",
            "Hi all, discard Y,I,",
            "Hi; pass",
            "Hello there my good friend how are you doing today,",
            "Highway E,NW at C5",
            "Dear me, I forgot what I wanted to play today and why,",
        ] {
            let body = format!("{first}\n{TURN}");
            assert_eq!(read_from_ann(&body).move_text, body, "{first:?}");
        }
        // A greeting alone is the message: it is not dropped.
        assert_eq!(read_from_ann("Hi!\n").move_text, "Hi!");
    }
}
