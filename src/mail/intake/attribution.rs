//! Attributions ("On … Referee wrote:") and reply headers (`-----Original
//! Message-----`, a `From:`/`Sent:`/`Subject:` block, "Begin forwarded message:"),
//! in the languages mail clients write them (see "The rules" in the intake's
//! documentation).

use super::lines::{has_cell_word, is_quoted, next_non_blank, quote_follows};
use super::phrases::PHRASES;

/// The longest attribution, in characters (Gmail's with a long name and address).
pub(super) const MAX_ATTRIBUTION_CHARS: usize = 300;
/// How many lines one attribution may be wrapped over.
const MAX_ATTRIBUTION_LINES: usize = 3;
/// How many lines a reply header block spans at most.
const HEADER_WINDOW: usize = 8;
/// How many lines after a separator line are looked at for a reply header.
pub(super) const SEPARATOR_LOOKAHEAD: usize = 3;

/// The kind of a reply header line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Header {
    From,
    Date,
    To,
    Subject,
}

/// The header label a line starts with (`From:`, `*Sent:*`, `Objet :`, `Envoyé le :`,
/// `件名：`), lowercased: at most 3 words and 24 characters before the colon.
fn label(trimmed: &str) -> Option<String> {
    let line = trimmed.trim_start_matches('*');
    let colon = line.find([':', '：'])?;
    let name = line[..colon].trim_end().trim_end_matches('*').trim();
    if name.is_empty() || name.chars().count() > 24 || name.split_whitespace().count() > 3 {
        return None;
    }
    Some(name.to_lowercase())
}

pub(super) fn header_kind(trimmed: &str) -> Option<Header> {
    let label = label(trimmed)?;
    let label = label.as_str();
    if PHRASES.from_labels.contains(&label) {
        Some(Header::From)
    } else if PHRASES.date_labels.contains(&label) {
        Some(Header::Date)
    } else if PHRASES.to_labels.contains(&label) {
        Some(Header::To)
    } else if PHRASES.subject_labels.contains(&label) {
        Some(Header::Subject)
    } else {
        None
    }
}

/// True when line `i` starts a reply block: a titled rule ("Original Message"), a
/// forward introduction, a header block, or a separator line right above one of
/// these.
pub(super) fn starts_reply_block(lines: &[String], i: usize) -> bool {
    let trimmed = lines[i].trim();
    if is_original_message_rule(trimmed) || is_forward_intro(trimmed) {
        return true;
    }
    if is_separator_rule(trimmed) {
        return next_non_blank(lines, i + 1, SEPARATOR_LOOKAHEAD).is_some_and(|next| {
            is_header_block(lines, next) || is_original_message_rule(lines[next].trim())
        });
    }
    is_header_block(lines, i)
}

/// A `From:`, `Date:` or `Subject:` line with, within [`HEADER_WINDOW`] lines (no
/// quoted line between), a From, a Subject, and a Date or To line.
fn is_header_block(lines: &[String], i: usize) -> bool {
    if !matches!(
        header_kind(lines[i].trim()),
        Some(Header::From | Header::Date | Header::Subject)
    ) {
        return false;
    }
    let (mut from, mut date, mut to, mut subject) = (false, false, false, false);
    for line in lines.iter().skip(i).take(HEADER_WINDOW) {
        if is_quoted(line) {
            break;
        }
        match header_kind(line.trim()) {
            Some(Header::From) => from = true,
            Some(Header::Date) => date = true,
            Some(Header::To) => to = true,
            Some(Header::Subject) => subject = true,
            None => {}
        }
    }
    from && subject && (date || to)
}

/// Five or more of the same `_`, `-`, `=` (or a box-drawing or em dash): a line
/// clients draw above a reply header.
pub(super) fn is_separator_rule(trimmed: &str) -> bool {
    let mut chars = trimmed.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    matches!(first, '_' | '-' | '=' | '—' | '─')
        && trimmed.chars().count() >= 5
        && chars.all(|c| c == first)
}

/// A rule with a title: "-----Original Message-----", "---------- Forwarded message
/// ---------", and the same in other languages.
fn is_original_message_rule(trimmed: &str) -> bool {
    let is_rule_char = |c: char| matches!(c, '-' | '=' | '_' | '—' | '–' | '─' | '*');
    let lead = trimmed
        .chars()
        .take_while(|&c| is_rule_char(c) || c.is_whitespace())
        .filter(|&c| is_rule_char(c))
        .count();
    if lead < 2 || trimmed.chars().count() > 80 {
        return false;
    }
    let inner = trimmed
        .trim_matches(|c: char| is_rule_char(c) || c.is_whitespace())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    PHRASES.titles.contains(&inner.as_str())
}

/// Apple Mail's and others' introduction of a forwarded message.
fn is_forward_intro(trimmed: &str) -> bool {
    if trimmed.chars().count() > 50 {
        return false;
    }
    let lower = trimmed.to_lowercase().replace(" :", ":");
    PHRASES.forward_intros.contains(&lower.as_str())
}

/// How many lines (1 to [`MAX_ATTRIBUTION_LINES`]) the attribution starting at line
/// `i` takes, if one does.
///
/// Clients wrap long attributions (Gmail at about 78 columns), so the address, the
/// verb and the colon may be on the next lines. A line is joined with the next ones
/// only when it starts like an attribution (an opening word, a date, an e-mail
/// address, or a `<` at its end where the address was wrapped), never with a line
/// that starts one of its own or has a board cell in it (`C5`), and the joined text
/// must be an attribution by its own words (a verb, or an address and a date), not
/// merely by a quote below it.
pub(super) fn attribution_at(lines: &[String], i: usize) -> Option<usize> {
    let first = lines[i].trim();
    if first.len() > MAX_ATTRIBUTION_CHARS * 4 {
        return None;
    }
    if is_attribution(first, quote_follows(lines, i + 1)) {
        return Some(1);
    }
    let wrapped_start =
        starts_like_attribution(first) || has_address(first) || first.ends_with('<');
    if ends_with_colon(first) || !wrapped_start {
        return None;
    }
    let mut joined = first.to_string();
    for k in 1..MAX_ATTRIBUTION_LINES {
        let next = lines.get(i + k)?.trim();
        if next.is_empty()
            || is_quoted(next)
            || starts_own_attribution(next)
            || has_cell_word(next)
            || joined.len() + next.len() > MAX_ATTRIBUTION_CHARS * 4
        {
            return None;
        }
        joined.push(' ');
        joined.push_str(next);
        let by_its_words = if ends_with_colon(next) {
            is_attribution(&joined, false)
        } else {
            is_attribution(&joined, quote_follows(lines, i + k + 1))
        };
        if by_its_words {
            return Some(k + 1);
        }
        if ends_with_colon(next) {
            return None;
        }
    }
    None
}

pub(super) fn ends_with_colon(text: &str) -> bool {
    text.ends_with(':') || text.ends_with('：')
}

/// An opening word or a date, as an attribution starts.
pub(super) fn starts_like_attribution(text: &str) -> bool {
    PHRASES
        .openings
        .iter()
        .any(|opening| text.starts_with(opening))
        || starts_with_date(text)
}

/// A line that starts an attribution of its own: an opening word, or a date and
/// an attribution by its own words ("10:02):", the end of a wrapped one, is not).
fn starts_own_attribution(text: &str) -> bool {
    PHRASES
        .openings
        .iter()
        .any(|opening| text.starts_with(opening))
        || (starts_with_date(text) && is_attribution(text, false))
}

/// True for an attribution (see the intake's documentation); `quote_follows` tells
/// whether quoted lines follow it.
pub(super) fn is_attribution(text: &str, quote_follows: bool) -> bool {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_ATTRIBUTION_CHARS {
        return false;
    }
    let opening = PHRASES
        .openings
        .iter()
        .any(|opening| text.starts_with(opening));
    let Some(body) = text
        .strip_suffix(':')
        .or_else(|| text.strip_suffix('：'))
        .map(str::trim_end)
    else {
        // English clients also write "On … wrote" with no colon.
        return opening && quote_follows && text.to_lowercase().ends_with(" wrote");
    };
    // The verb may be followed by the name ("Am … schrieb Referee:"), so look for it
    // in the tail of the line rather than right before the colon.
    let tail: String = {
        let chars: Vec<char> = body.chars().collect();
        chars[chars.len().saturating_sub(60)..]
            .iter()
            .collect::<String>()
            .to_lowercase()
    };
    let verb = PHRASES.verbs.iter().any(|verb| tail.contains(verb));
    let address = has_address(body);
    let dated = starts_with_date(body);
    (verb && (opening || address || dated || quote_follows))
        || (address && (dated || quote_follows))
}

/// An e-mail address somewhere in the text: `@` between a name and a domain.
pub(super) fn has_address(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(3).any(|w| {
        w[1] == '@'
            && (w[0].is_alphanumeric() || matches!(w[0], '.' | '_' | '-' | '+'))
            && w[2].is_alphanumeric()
    })
}

/// True when the text starts with a date: a digit, or a word of at most 5 letters
/// (a weekday such as "Mon,", "pon.,", "пн,", "ma") and then a digit; and has a year
/// (1900 to 2099) or a time (`10:00`, `10.00`) somewhere.
fn starts_with_date(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    let starts = match chars.peek() {
        Some(c) if c.is_ascii_digit() => true,
        Some(c) if c.is_alphabetic() => {
            let mut letters = 0;
            while chars.peek().is_some_and(|c| c.is_alphabetic()) {
                letters += 1;
                chars.next();
            }
            while chars.peek().is_some_and(|&c| c == '.' || c == ',') {
                chars.next();
            }
            let mut spaces = 0;
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                spaces += 1;
                chars.next();
            }
            letters <= 5 && spaces > 0 && chars.peek().is_some_and(char::is_ascii_digit)
        }
        _ => false,
    };
    starts && (has_year(text) || has_time(text))
}

/// A run of exactly four digits from 1900 to 2099.
pub(super) fn has_year(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit = |k: usize| bytes.get(k).is_some_and(u8::is_ascii_digit);
    (0..bytes.len().saturating_sub(3)).any(|k| {
        (k == 0 || !digit(k - 1))
            && (0..4).all(|d| digit(k + d))
            && !digit(k + 4)
            && (bytes[k..k + 2] == *b"19" || bytes[k..k + 2] == *b"20")
    })
}

/// One or two digits, `:` or `.`, two digits: `10:02`, `9.30`.
pub(super) fn has_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit = |k: usize| bytes.get(k).is_some_and(u8::is_ascii_digit);
    (1..bytes.len()).any(|k| {
        matches!(bytes[k], b':' | b'.')
            && digit(k - 1)
            && digit(k + 1)
            && digit(k + 2)
            && !digit(k + 3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::intake::sign_off::{is_client_tagline, is_closing_line};
    use crate::mail::intake::testing::{read, read_from_ann, strip, MOVE};

    #[test]
    fn attribution_without_a_quote_below_ends_the_move() {
        let body = "place E,NW at C5\n\nOn Mon, 23 Nov 2026 at 10:02, Referee <r@example.org> wrote:\n\nnot quoted but after\n";
        assert_eq!(strip(body), "place E,NW at C5");
    }

    #[test]
    fn attribution_with_a_quote_below_is_dropped_with_it_and_reading_goes_on() {
        let body = "On Mon, 23 Nov 2026, Referee wrote:\n> Your move\n> Reply above\nplace E,NW at C5\n> Example: pass\nbuy D4 with I\n";
        let extracted = read(body);
        assert_eq!(extracted.move_text, "place E,NW at C5\nbuy D4 with I");
        assert!(extracted.dropped.is_empty());
    }

    #[test]
    fn wrapped_attribution_is_dropped() {
        let body = "place E,NW at C5\nOn Mon, 23 Nov 2026 at 10:02, Referee of the Right of Way Club <\nreferee@example.org> wrote:\nleftover";
        assert_eq!(strip(body), "place E,NW at C5");
        // Over three lines, then a quote.
        let body = "place E,NW at C5\n\nOn Mon, 23 Nov 2026 at 10:02, The Referee of the\nRight of Way Club <\nreferee@example.org> wrote:\n\n> Your move\n";
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

    /// Every attribution form: on top of a quote, after the move (top-posting), and
    /// before it (bottom-posting).
    #[test]
    fn attributions_in_many_languages_and_shapes() {
        let forms = [
            "On Mon, 23 Nov 2026 at 10:02, Referee <r@x.org> wrote:",
            "On Mon, Nov 23, 2026 at 10:00 AM Referee <r@x.org> wrote",
            "On 23/11/2026 10:02, Referee wrote:",
            "Referee <r@x.org> wrote:",
            "Referee wrote:",
            "Am Mo., 23. Nov. 2026 um 10:02 Uhr schrieb Referee <r@x.org>:",
            "Am 23.11.2026 um 10:02 schrieb Referee:",
            "Referee <r@x.org> schrieb:",
            "Le lun. 23 nov. 2026 à 10:02, Referee <r@x.org> a écrit :",
            "El lun, 23 nov 2026 a las 10:02, Referee (<r@x.org>) escribió:",
            "Il giorno lun 23 nov 2026 alle ore 10:02 Referee <r@x.org> ha scritto:",
            "In data 23/11/2026 10:02, Referee ha scritto:",
            "Em seg., 23 de nov. de 2026 às 10:02, Referee <r@x.org> escreveu:",
            "Op ma 23 nov 2026 om 10:02 schreef Referee <r@x.org>:",
            "Den mån 23 nov. 2026 kl 10:02 skrev Referee <r@x.org>:",
            "Den 23.11.2026 10:02, skrev Referee:",
            "man. 23. nov. 2026 kl. 10.02 skrev Referee <r@x.org>:",
            "23 nov. 2026 kl. 10:02 skrev Referee <r@x.org>:",
            "ma 23.11.2026 klo 10.02 Referee <r@x.org> kirjoitti:",
            "Referee <r@x.org> kirjoitti:",
            "pon., 23 lis 2026 o 10:02 Referee <r@x.org> napisał(a):",
            "W dniu 23.11.2026 o 10:02, Referee napisał(a):",
            "W dniu 23 listopada 2026 10:02 użytkownik Referee <r@x.org> napisał:",
            "W dniu 23.11.2026 o 10:02, Referee pisze:",
            "po 23. 11. 2026 v 10:02 odesílatel Referee <r@x.org> napsal:",
            "Dne 23.11.2026 v 10:02 Referee napsal(a):",
            "пн, 23 нояб. 2026 г. в 10:02, Referee <r@x.org>:",
            "23.11.2026 10:02, Referee пишет:",
            "Referee написал(а):",
            "2026年11月23日(月) 10:02 Referee <r@x.org>:",
            "2026/11/23 10:02、Referee <r@x.org>のメール:",
            "Referee さんは書きました:",
            "Referee <r@x.org> 于2026年11月23日周一 10:02写道：",
            "在 2026年11月23日，10:02，Referee <r@x.org> 写道：",
            "2026년 11월 23일 (월) 오전 10:02, Referee <r@x.org>님이 작성:",
            "2017-11-24 16:32 GMT+01:00 Name <a@b.org>:",
            "Referee <referee@example.org>:",
            "Mon, 23 Nov 2026 10:02:00 +0100 от Referee <r@x.org>:",
            "23.11.2026, 10:02, \"Referee\" <r@x.org>:",
            "Referee <r@x.org> ezt írta (időpont: 2026. nov. 23., H, 10:02):",
            "Referee <r@x.org>, 23 Kas 2026 Pzt, 10:02 tarihinde şunu yazdı:",
            "Στις Δευ 23 Νοε 2026 στις 10:02, ο/η Referee <r@x.org> έγραψε:",
        ];
        for form in forms {
            let top = format!("{MOVE}\n\n{form}\n\n> Your move, Ann.\n> Example: pass\n");
            assert_eq!(strip(&top), MOVE, "top-posted under {form:?}");
            let bottom = format!("{form}\n> Your move, Ann.\n>\n\n{MOVE}\n");
            assert_eq!(strip(&bottom), MOVE, "bottom-posted under {form:?}");
        }
    }

    /// Forms certain enough to cut a top-posted reply even with the earlier message
    /// unquoted below them.
    #[test]
    fn attributions_that_cut_without_a_quote() {
        for form in [
            "On Mon, 23 Nov 2026 at 10:02, Referee <r@x.org> wrote:",
            "Am 23.11.2026 um 10:02 schrieb Referee:",
            "In data 23/11/2026 10:02, Referee ha scritto:",
            "ma 23.11.2026 klo 10.02 Referee <r@x.org> kirjoitti:",
            "пн, 23 нояб. 2026 г. в 10:02, Referee <r@x.org>:",
            "23.11.2026 10:02, Referee пишет:",
            "2026年11月23日(月) 10:02 Referee <r@x.org>:",
            "2017-11-24 16:32 GMT+01:00 Name <a@b.org>:",
            "man. 23. nov. 2026 kl. 10.02 skrev Referee <r@x.org>:",
        ] {
            let body = format!("{MOVE}\n\n{form}\n\nYour move, Ann.\nExample: pass\n");
            assert_eq!(strip(&body), MOVE, "{form:?}");
        }
        // Wrapped over two lines without an opening word, as Gmail writes in Finnish.
        let finnish = format!(
            "{MOVE}\n\nma 23.11.2026 klo 10.02 Referee of the Right of Way Club\n<referee@example.org> kirjoitti:\n\nYour move"
        );
        assert_eq!(strip(&finnish), MOVE);
        let date_first = format!(
            "{MOVE}\n\n2026-11-23 10:02 GMT+01:00 Referee of the Right of Way Club <\nreferee@example.org>:\n\nYour move"
        );
        assert_eq!(strip(&date_first), MOVE);
    }

    /// What a player writes as a move is never taken for anything else.
    #[test]
    fn move_lines_are_never_attributions_taglines_or_headers() {
        let lines = [
            "place E,NW at C5",
            "buy D4 with I",
            "buy D4 with I paying C",
            "discard Y,I",
            "discard C,V extra-garbage",
            "place NE,SW at E9; discard Y",
            "pass",
            "resign",
            "city C5",
            "On",
            "On C5:",
            "Le C5",
            "Den 5",
            "23 C5",
            "A7:",
            "place E,W at A7",
            "from: C5",
            "Sent",
            "x",
        ];
        for line in lines {
            assert!(!is_attribution(line, true), "{line:?}");
            assert!(!is_client_tagline(line), "{line:?}");
            assert!(!is_original_message_rule(line), "{line:?}");
            assert!(!is_closing_line(line), "{line:?}");
            let body = format!("{line}\n> quoted\n{line}\n\n{line}\n");
            assert_eq!(
                read_from_ann(&body).move_text,
                format!("{line}\n{line}\n{line}"),
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_line_starting_with_on_is_kept_when_not_an_attribution() {
        assert_eq!(
            strip("On second thought:\nplace E,NW at C5"),
            "On second thought:\nplace E,NW at C5"
        );
        // Joined with the next line it would read as one; a line ending in a colon
        // is complete, and a line starting its own attribution is not joined.
        assert_eq!(
            strip("On second thought:\nBo wrote:\nplace E,NW at C5"),
            "On second thought:\nBo wrote:\nplace E,NW at C5"
        );
        assert_eq!(
            strip("On Monday I am away\nOn Mon, 23 Nov 2026, Referee <r@x.org> wrote:\n> x"),
            "On Monday I am away"
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
    fn header_blocks_in_many_languages_and_orders() {
        let blocks = [
            "De : Referee <r@x.org>\nEnvoyé : lundi 23 novembre 2026 10:02\nÀ : Élodie\nObjet : Tour 16",
            "De : Referee <r@x.org>\nEnvoyé le : lundi 23 novembre 2026 10:02\nÀ : Élodie\nObjet : Tour 16",
            "Fra: Referee <r@x.org>\nSendt: 23. november 2026 10:02\nTil: Mette\nEmne: Tur 16",
            "Fra: Referee <r@x.org>\nDato: 23. november 2026 kl. 10.02\nTil: Mette\nEmne: Tur 16",
            "Från: Referee <r@x.org>\nSkickat: den 23 november 2026 10:02\nTill: Björn\nÄmne: Drag 13",
            "От: Referee <r@x.org>\nОтправлено: 23 ноября 2026 г. 10:02\nКому: Иван\nТема: Ход 12",
            "От: Referee <r@x.org>\nДата: 23 ноября 2026 г., 10:02\nКому: Иван\nТема: Ход 12",
            "De: Referee <r@x.org>\nEnviado: lunes, 23 de noviembre de 2026 10:02\nPara: Lucía\nAsunto: Turno 12",
            "Da: Referee <r@x.org>\nInviato: lunedì 23 novembre 2026 10:02\nA: Giulia\nOggetto: Turno 12",
            "De: Referee <r@x.org>\nEnviado: segunda-feira, 23 de novembro de 2026 10:02\nPara: João\nAssunto: Turno 12",
            "Van: Referee <r@x.org>\nVerzonden: maandag 23 november 2026 10:02\nAan: Sanne\nOnderwerp: Beurt 12",
            "Od: Referee <r@x.org>\nWysłano: poniedziałek, 23 listopada 2026 10:02\nDo: Kasia\nTemat: Tura 12",
            "Od: Referee <r@x.org>\nOdesláno: pondělí 23. listopadu 2026 10:02\nKomu: Petr\nPředmět: Tah 12",
            "Lähettäjä: Referee <r@x.org>\nLähetetty: maanantai 23. marraskuuta 2026 10.02\nVastaanottaja: Mikko\nAihe: Vuoro 12",
            "差出人: Referee <r@x.org>\n送信日時: 2026年11月23日 10:02\n宛先: Yuki\n件名: Turn 12",
            "发件人: Referee <r@x.org>\n发送时间: 2026年11月23日 10:02\n收件人: Wei\n主题: Turn 12",
            // Hotmail and GMX put the date first.
            "Date: Mon, 23 Nov 2026 10:02:00 +0100\nSubject: Turn 12\nFrom: referee@x.org\nTo: ann@hotmail.com",
            "Gesendet: Montag, 23. November 2026 um 10:02 Uhr\nVon: \"Referee\" <r@x.org>\nAn: dieter@gmx.de\nBetreff: Zug 12",
        ];
        for block in blocks {
            let body = format!("{MOVE}\n\n{block}\n\nYour move, Ann.\n");
            assert_eq!(strip(&body), MOVE, "{block:?}");
            for rule in ["________________________________", "=====", "-----"] {
                let body = format!("{MOVE}\n\n{rule}\n{block}\n\nYour move, Ann.\n");
                assert_eq!(strip(&body), MOVE, "{rule} {block:?}");
            }
        }
    }

    #[test]
    fn a_from_line_alone_is_not_a_header_block() {
        assert_eq!(
            strip("from: C5\nplace E,NW at C5"),
            "from: C5\nplace E,NW at C5"
        );
        assert_eq!(
            strip("From: Ann\nSubject: my move\nplace E,NW at C5"),
            "From: Ann\nSubject: my move\nplace E,NW at C5"
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
    fn titled_rules_in_many_languages_end_the_move() {
        for rule in [
            "-----Original Message-----",
            "-------- Original Message --------",
            "----- Forwarded Message -----",
            "---------- Forwarded message ---------",
            "-----Ursprüngliche Nachricht-----",
            "-------- Original-Nachricht --------",
            "-------- Message d'origine --------",
            "-----Oprindelig besked-----",
            "-------- Oprindelig besked --------",
            "-----Opprinnelig melding-----",
            "-----Ursprungligt meddelande-----",
            "-----Alkuperäinen viesti-----",
            "-----Mensaje original-----",
            "-----Messaggio originale-----",
            "-----Mensagem original-----",
            "-----Oorspronkelijk bericht-----",
            "-----Wiadomość oryginalna-----",
            "-----Původní zpráva-----",
            "-----Исходное сообщение-----",
            "-------- Пересылаемое сообщение --------",
            "------------------\u{a0}原始邮件\u{a0}------------------",
            "------- Original Message -------",
            "Begin forwarded message:",
        ] {
            let body = format!("{MOVE}\n\n{rule}\nold text\n");
            assert_eq!(strip(&body), MOVE, "{rule:?}");
        }
    }
}
