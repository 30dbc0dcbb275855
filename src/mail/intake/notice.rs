//! Reading a reply against the notice it answers: the notice's text found in the
//! reply in whatever quoting style, and the attribution lines right above it (see
//! "Reading against the notice" in the intake's documentation).

use serde::{Deserialize, Serialize};

use super::attribution::{
    ends_with_colon, has_time, has_year, header_kind, is_attribution, starts_like_attribution,
    MAX_ATTRIBUTION_CHARS,
};
use super::lines::{clean_line, has_cell_word, is_quoted, token_line, QUOTE_LOOKAHEAD};
use super::mime::{cap_text, normalize_newlines};
use super::phrases::PHRASES;

/// What pbem sent in the notice a reply answers: the notice's text body and who it
/// came from. The referee keeps it when the notice is sent and hands it to
/// `read_message_answering`, which then knows the quote when it sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentNotice {
    /// The text body as sent (at most [`MAX_NOTICE_BYTES`] of it are used).
    pub text: String,
    /// The sender's display name (`Referee`).
    #[serde(default)]
    pub from_name: Option<String>,
    /// The sender's address (`referee@example.org`).
    #[serde(default)]
    pub from_address: Option<String>,
}

/// How much of a sent notice's text is matched against a reply: the first 16 KiB. A
/// notice (a board, a report, the words of a turn) is a few KiB.
pub const MAX_NOTICE_BYTES: usize = 16 * 1024;
/// The fewest words, in order, that make a quote of the notice (besides spanning two
/// of its lines): fewer could be a move the player copied from it.
const MIN_QUOTE_WORDS: usize = 8;
/// A quote begins with one of the notice's first this many words.
const NOTICE_START_WORDS: usize = 24;
/// How many words in a row begin a quote.
const START_ANCHOR_WORDS: usize = 4;
/// How many words in a row take a quote up again after a word that differs.
const RESYNC_ANCHOR_WORDS: usize = 3;
/// How many of the notice's words a quote may leave out at one place.
const RESYNC_NOTICE_WORDS: usize = 16;
/// How many words of one quoted line may differ from the notice (a client's mark).
const RESYNC_REPLY_WORDS: usize = 2;
/// Comparisons allowed per word of the reply and the notice: finding the quote is
/// bounded whatever the message holds; past it, the message is read without it.
const MATCH_WORK_PER_WORD: usize = 32;
/// How many lines of a quoted block above the notice's first line (a quoted
/// attribution) are looked at.
const QUOTE_BLOCK_LOOKBACK: usize = 8;
/// The most attribution lines above the notice's quote (a wrapped attribution, or a
/// header block and a rule).
const MAX_ATTRIBUTION_BLOCK: usize = 6;

/// A sent notice made ready for matching: its words in order (lowercased, quote marks
/// and spacing aside), the line of each, and who sent it.
#[derive(Debug)]
pub(super) struct Notice {
    words: Vec<String>,
    lines: Vec<usize>,
    /// Per line: how many `>` it starts with (a wrapped line of ours may start with
    /// one), so that a reply's quote marks are counted beyond the notice's own.
    depths: Vec<usize>,
    /// The sender's display name, lowercased, spaces collapsed.
    from_name: Option<String>,
    /// The sender's address, lowercased.
    from_address: Option<String>,
}

impl Notice {
    pub(super) fn of(sent: &SentNotice) -> Notice {
        let (text, _) = cap_text(&sent.text, MAX_NOTICE_BYTES);
        let mut words = Vec::new();
        let mut lines = Vec::new();
        let mut depths = Vec::new();
        for (k, line) in normalize_newlines(text).split('\n').enumerate() {
            let line = clean_line(line, false);
            depths.push(quote_depth(&line));
            for word in words_of(&line) {
                words.push(word);
                lines.push(k);
            }
        }
        let from_name = sent
            .from_name
            .as_deref()
            .map(|name| name.split_whitespace().collect::<Vec<_>>().join(" "))
            .map(|name| name.to_lowercase())
            .filter(|name| name.chars().count() >= 2);
        let from_address = sent
            .from_address
            .as_deref()
            .map(|address| address.trim().to_lowercase())
            .filter(|address| address.contains('@'));
        Notice {
            words,
            lines,
            depths,
            from_name,
            from_address,
        }
    }

    /// Whether a lowercased line holds the notice sender's address, and whether it
    /// holds their display name as whole words.
    fn names_sender(&self, lower: &str) -> (bool, bool) {
        let address = self
            .from_address
            .as_deref()
            .is_some_and(|address| lower.contains(address));
        let name = self.from_name.as_deref().is_some_and(|name| {
            let line = lower.split_whitespace().collect::<Vec<_>>().join(" ");
            line.match_indices(name).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + name.len()..].chars().next();
                !before.is_some_and(char::is_alphanumeric)
                    && !after.is_some_and(char::is_alphanumeric)
            })
        });
        (address, name)
    }
}

/// The words of a line for matching: quote marks (`>`, `|`) and spacing aside,
/// lowercased.
fn words_of(line: &str) -> impl Iterator<Item = String> + '_ {
    line.trim_start_matches(|c: char| c == '>' || c == '|' || c.is_whitespace())
        .split_whitespace()
        .map(str::to_lowercase)
}

/// How many `>` a line starts with (spaces between them aside).
fn quote_depth(line: &str) -> usize {
    line.chars()
        .take_while(|&c| c == '>' || c.is_whitespace())
        .filter(|&c| c == '>')
        .count()
}

/// Where a reply quotes the notice it answers: the lines from `top` (the attribution
/// above the quote, or the quote's first line) to `end`, and whether the quote is
/// marked as one (`>` lines) or only by its text.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct QuoteSpan {
    pub(super) top: usize,
    pub(super) end: usize,
    pub(super) quoted: bool,
}

/// The reply's words in order, with the line of each.
struct ReplyWords {
    words: Vec<String>,
    lines: Vec<usize>,
    /// Per line: whether it is a quoted (`>`) line.
    quoted: Vec<bool>,
    /// Per line: how many `>` it starts with.
    depths: Vec<usize>,
}

impl ReplyWords {
    /// Whether reply word `i` stands quoted beyond notice word `j`: on a line with
    /// more `>` marks than the notice's line has of its own.
    fn quoted_beyond(&self, notice: &Notice, i: usize, j: usize) -> bool {
        self.depths[self.lines[i]] > notice.depths[notice.lines[j]]
    }
}

/// Finds the quote of the notice in a reply's lines (see "Reading against the notice"
/// in the intake's documentation): the first place where the notice's first words
/// begin a run of its text, in order, of at least [`MIN_QUOTE_WORDS`] words over two
/// of its lines; then the attribution lines right above it.
///
/// Linear in the size of the reply and the notice: every comparison is counted
/// against a budget of [`MATCH_WORK_PER_WORD`] per word, and past it no quote is
/// found.
pub(super) fn find_quote(lines: &[String], notice: &Notice) -> Option<QuoteSpan> {
    let n = notice.words.len();
    if n < MIN_QUOTE_WORDS {
        return None;
    }
    let mut reply = ReplyWords {
        words: Vec::new(),
        lines: Vec::new(),
        quoted: lines.iter().map(|line| is_quoted(line)).collect(),
        depths: lines.iter().map(|line| quote_depth(line)).collect(),
    };
    for (k, line) in lines.iter().enumerate() {
        for word in words_of(line) {
            reply.words.push(word);
            reply.lines.push(k);
        }
    }
    let mut budget = MATCH_WORK_PER_WORD * (reply.words.len() + n) + 1024;
    // The notice's first words, each a possible start, by the word.
    let mut starts: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for s in 0..NOTICE_START_WORDS.min(n + 1 - START_ANCHOR_WORDS) {
        starts.entry(notice.words[s].as_str()).or_default().push(s);
    }
    for r in 0..reply.words.len() {
        let Some(candidates) = starts.get(reply.words[r].as_str()) else {
            continue;
        };
        for &s in candidates {
            budget = budget.checked_sub(START_ANCHOR_WORDS)?;
            let anchored = (0..START_ANCHOR_WORDS).all(|k| {
                reply
                    .words
                    .get(r + k)
                    .is_some_and(|w| *w == notice.words[s + k])
            });
            if !anchored {
                continue;
            }
            if let Some((first, end, quoted)) = align(&reply, notice, r, s, &mut budget) {
                let top = attribution_above(lines, &reply.quoted, first, quoted, notice);
                return Some(QuoteSpan { top, end, quoted });
            }
            if budget == 0 {
                return None;
            }
        }
    }
    None
}

/// Follows the notice's text through the reply from reply word `r` and notice word
/// `s`, as long as the reply's lines keep the quoting of the first one. Returns the
/// whole lines it covers (the first and the last), when they make a quote, and
/// whether it is marked as one.
fn align(
    reply: &ReplyWords,
    notice: &Notice,
    r: usize,
    s: usize,
    budget: &mut usize,
) -> Option<(usize, usize, bool)> {
    let quoted = reply.quoted_beyond(notice, r, s);
    let (mut i, mut j) = (r, s);
    let mut matched = 0;
    let mut last = r;
    let mut two_lines = false;
    while i < reply.words.len() && j < notice.words.len() {
        // A quote marked with `>` ends at the player's own line below it, and a quote
        // marked by nothing ends at a `>` line: inline answers are never taken in.
        if reply.quoted_beyond(notice, i, j) != quoted {
            break;
        }
        *budget = budget.checked_sub(1)?;
        if reply.words[i] == notice.words[j] {
            matched += 1;
            last = i;
            two_lines |= notice.lines[j] != notice.lines[s];
            i += 1;
            j += 1;
            continue;
        }
        match resync(reply, notice, i, j, reply.lines[last], budget) {
            Some((skip_reply, skip_notice)) => {
                i += skip_reply;
                j += skip_notice;
            }
            None => break,
        }
    }
    if matched < MIN_QUOTE_WORDS || !two_lines {
        return None;
    }
    // Whole lines only: a line the quote begins or ends inside is left to the other
    // rules (the attribution above, or the player's own text).
    let starts_inside = r > 0 && reply.lines[r - 1] == reply.lines[r];
    let first = reply.lines[r] + usize::from(starts_inside);
    let ends_inside = reply.lines.get(last + 1) == Some(&reply.lines[last]);
    let end = reply.lines[last].checked_sub(usize::from(ends_inside))?;
    (first <= end).then_some((first, end, quoted))
}

/// Where the notice's text is taken up again after reply word `i` differs from
/// notice word `j`: leaving out up to [`RESYNC_NOTICE_WORDS`] of the notice's words,
/// and up to [`RESYNC_REPLY_WORDS`] of the reply's, these only on the line of the
/// last word that matched (a client's mark inside a quoted line, never a line of the
/// player's own).
fn resync(
    reply: &ReplyWords,
    notice: &Notice,
    i: usize,
    j: usize,
    line: usize,
    budget: &mut usize,
) -> Option<(usize, usize)> {
    let reply_skips = (0..RESYNC_REPLY_WORDS)
        .take_while(|&d| reply.lines.get(i + d) == Some(&line))
        .count();
    for skip_reply in 0..=reply_skips {
        for skip_notice in 0..=RESYNC_NOTICE_WORDS {
            if skip_reply == 0 && skip_notice == 0 {
                continue;
            }
            *budget = budget.checked_sub(1)?;
            let (a, b) = (i + skip_reply, j + skip_notice);
            let anchored = (0..RESYNC_ANCHOR_WORDS).all(|k| {
                matches!((reply.words.get(a + k), notice.words.get(b + k)), (Some(x), Some(y)) if x == y)
            });
            if anchored {
                return Some((skip_reply, skip_notice));
            }
        }
    }
    None
}

/// The first line of the attribution above a quote that begins at line `first`: a
/// quoted attribution in the same quoted block, then, after up to a few blank lines,
/// up to [`MAX_ATTRIBUTION_BLOCK`] lines that each read as part of an attribution.
fn attribution_above(
    lines: &[String],
    quoted: &[bool],
    first: usize,
    is_quoted_block: bool,
    notice: &Notice,
) -> usize {
    let mut top = first;
    if is_quoted_block {
        let mut k = first;
        while k > 0
            && first - k < QUOTE_BLOCK_LOOKBACK
            && (quoted[k - 1] || lines[k - 1].trim().is_empty())
        {
            k -= 1;
        }
        top = (k..first).find(|&x| quoted[x]).unwrap_or(first);
    }
    let mut k = top;
    while k > 0 && top - k < QUOTE_LOOKAHEAD - 1 && lines[k - 1].trim().is_empty() {
        k -= 1;
    }
    let mut block = k;
    while block > 0
        && k - block < MAX_ATTRIBUTION_BLOCK
        && is_attribution_line(&lines[block - 1], notice)
    {
        block -= 1;
    }
    if block < k {
        block
    } else {
        top
    }
}

/// A line that is part of an attribution or reply header right above the notice's
/// quote (see the intake's documentation): a rule, a line with the notice sender's
/// address, their name with a date, a time, a colon, a `<` or a "wrote" verb, an
/// attribution, or a reply-header line. Never a quoted line, a note, or a line with
/// a `;` or (but for the sender's address) a board cell.
fn is_attribution_line(line: &str, notice: &Notice) -> bool {
    let trimmed = line.trim();
    if trimmed.is_empty()
        || is_quoted(line)
        || trimmed.chars().count() > MAX_ATTRIBUTION_CHARS
        || trimmed.contains(';')
    {
        return false;
    }
    let lower = trimmed.to_lowercase();
    if lower.starts_with("note:") || token_line(trimmed).is_some() {
        return false;
    }
    if is_rule_line(trimmed) {
        return true;
    }
    let (address, name) = notice.names_sender(&lower);
    if address {
        return true;
    }
    if name
        && (has_year(trimmed)
            || has_time(trimmed)
            || ends_with_colon(trimmed)
            || trimmed.ends_with('<')
            || PHRASES.verbs.iter().any(|verb| lower.contains(verb))
            || starts_like_attribution(trimmed))
    {
        return true;
    }
    !has_cell_word(trimmed) && (is_attribution(trimmed, true) || header_kind(trimmed).is_some())
}

/// A rule (five or more of `=`, `-`, `_`, `*`, `~` or a long dash), or text between
/// rules of three or more (`==== Message du 23/11/2026 10:02 ====`).
fn is_rule_line(trimmed: &str) -> bool {
    let rule = |c: &char| matches!(c, '=' | '-' | '_' | '*' | '~' | '—' | '–' | '─');
    let total = trimmed.chars().count();
    let lead = trimmed.chars().take_while(rule).count();
    if lead == total {
        return total >= 5;
    }
    let trail = trimmed.chars().rev().take_while(rule).count();
    lead >= 3 && trail >= 3 && !has_cell_word(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::intake::reply::{extract_answering, Extracted};
    use crate::mail::intake::sign_off::Names;
    use crate::mail::intake::testing::{read, TURN};

    // Reading against the notice a reply answers.

    /// A turn notice, as the referee sends it.
    const NOTICE: &str = r"Ann, it is your turn (turn 3).

Bo played turn 2:

    place N,S at D5

What it did:
  - Bo placed I (N,S) at D5: cost 1, profit 2, net +1

       __      __
    __/C4\__/D4\__
   /B4\__/C5\__/E4\
   \__/  \__/  \__/

Reply to this mail with your whole turn at the top, for example:

    place E,NW at C5

Other replies: `moves` lists your moves; `undo` asks to take back your last
move; a line `note: ...` goes to the others.
";

    /// A refusal, which quotes what the player sent.
    const REFUSAL: &str = "Ann, there is no cell `Z99` on this board.

You sent:

    place E,W at A7
    discard C,V extra-garbage

A move that is legal for you right now:

    place E,NW at C5

Reply to this mail with your corrected turn at the top: the reference in the
subject proves the reply is yours.
";

    fn sent(text: &str) -> Notice {
        Notice::of(&SentNotice {
            text: text.to_string(),
            from_name: Some("Referee".into()),
            from_address: Some("Referee@Example.org".into()),
        })
    }

    /// Reads Ann's reply to `notice`, the notice known.
    fn answering(body: &str, notice: &str) -> Extracted {
        let names = Names::of(Some("Ann Archer"), Some("ann.archer@example.org"));
        extract_answering(body, false, false, &names, Some(&sent(notice)))
    }

    fn prefixed(prefix: &str, text: &str) -> String {
        text.lines()
            .map(|line| format!("{prefix}{line}").trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The notice as clients quote it: marked (`> `, `> > `, `| `), unmarked,
    /// indented, re-wrapped at 40 columns, or with each paragraph on one line.
    fn quoting_styles(notice: &str) -> Vec<(&'static str, String)> {
        let words: Vec<&str> = notice.split_whitespace().collect();
        let mut rewrapped = vec![String::new()];
        for word in words {
            let last = rewrapped.last_mut().expect("a line");
            if !last.is_empty() && last.len() + word.len() >= 40 {
                rewrapped.push(word.to_string());
            } else {
                if !last.is_empty() {
                    last.push(' ');
                }
                last.push_str(word);
            }
        }
        let joined: Vec<String> = notice
            .split("\n\n")
            .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        vec![
            ("quoted", prefixed("> ", notice)),
            ("quoted twice", prefixed("> > ", notice)),
            ("bar", prefixed("| ", notice)),
            ("unmarked", notice.trim_end().to_string()),
            ("indented", prefixed("    ", notice)),
            ("re-wrapped", prefixed("> ", &rewrapped.join("\n"))),
            ("joined", joined.join("\n\n")),
        ]
    }

    #[test]
    fn the_notice_is_its_quote_in_any_quoting_style() {
        // An attribution no list knows: the sender's name and a date.
        let attribution = "Referee a répondu le 23/11/2026 à 10:02";
        for (style, quote) in quoting_styles(NOTICE) {
            let top = answering(&format!("{TURN}\n\n{attribution}\n\n{quote}\n"), NOTICE);
            assert_eq!(top.move_text, TURN, "top-posted, {style}");
            assert!(top.dropped.is_empty(), "top-posted, {style}");
            let bottom = answering(&format!("{attribution}\n{quote}\n\n{TURN}\n"), NOTICE);
            assert_eq!(bottom.move_text, TURN, "bottom-posted, {style}");
            // Without the notice, the unmarked quote is the player's text.
            if !style.contains("quoted") {
                let blind = read(&format!("{TURN}\n\n{attribution}\n\n{quote}\n"));
                assert_ne!(blind.move_text, TURN, "{style}");
            }
        }
    }

    #[test]
    fn attributions_right_above_the_quote_are_dropped_unlisted() {
        for attribution in [
            "==== Message du 23/11/2026 10:02 ====",
            "-------- Message d'origine --------",
            "________________________________",
            "from: Referee <referee@example.org>",
            "От: Referee\nОтправлено: 23 ноября 2026 г. 10:02\nКому: Ann",
            "On Mon, Nov 23, 2026 at 10:02 AM Referee of the Right of Way Club <\nreferee@example.org> wrote",
            "Op ma 23 nov 2026 om 10:02 schreef Referee van de Right of Way-club uit Utrecht <\nreferee@example.org>:",
            "Il giorno lun 23 nov 2026 alle ore 10:02 Referee of the Right of Way Club <\nreferee@example.org> ha scritto:",
            "Referee a répondu le 23/11/2026 à 10:02",
            "Referee wrote:",
        ] {
            for quote in [prefixed("> ", NOTICE), NOTICE.to_string()] {
                let body = format!("{TURN}\n\nThanks!\n\n{attribution}\n\n{quote}\n");
                let extracted = answering(&body, NOTICE);
                assert_eq!(extracted.move_text, TURN, "{attribution:?}");
                assert_eq!(extracted.dropped, ["Thanks!"], "{attribution:?}");
            }
        }
    }

    /// What the player writes right above the quote is theirs, unless it is plainly an
    /// attribution: a move, a date of their own, a note, a label with a cell.
    #[test]
    fn the_players_lines_right_above_the_quote_are_kept() {
        for line in [
            "pass",
            "buy D4 with I",
            "place E,W at A7; discard C",
            "away until 2026-12-01",
            "from: C5",
            "note: mail me at referee@example.org",
            "To the referee: sorry for the delay",
            "Ann Archer <ann.archer@example.org>",
            "--end",
        ] {
            for quote in [prefixed("> ", NOTICE), NOTICE.to_string()] {
                let body = format!("{TURN}\n{line}\n\n{quote}\n");
                let extracted = answering(&body, NOTICE);
                assert_eq!(extracted.move_text, format!("{TURN}\n{line}"), "{line:?}");
            }
        }
    }

    /// A player who copies the example, or pastes a line of the notice, is not quoting
    /// it: a quote begins where the notice begins and runs over two of its lines.
    #[test]
    fn a_move_copied_from_the_notice_is_not_its_quote() {
        for body in [
            "place E,NW at C5",
            "place E,NW at C5\nplace N,S at D5",
            "Ann, it is your turn (turn 3).\nplace E,NW at C5",
            "Reply to this mail with your whole turn at the top, for example: place E,NW at C5",
        ] {
            let extracted = answering(body, NOTICE);
            assert_eq!(extracted.move_text, body, "{body:?}");
            let quoted = format!("{body}\n\n> {}", NOTICE.replace('\n', "\n> "));
            assert_eq!(answering(&quoted, NOTICE).move_text, body, "{body:?}");
        }
    }

    /// A refusal quotes the refused turn; a corrected turn written with the same lines,
    /// above or below the quote, is read whole, never taken for part of the quote.
    #[test]
    fn a_corrected_turn_that_repeats_the_refused_lines_is_read_whole() {
        let attribution = "On Mon, 23 Nov 2026 at 10:02, Referee <referee@example.org> wrote:";
        for turn in [
            "place E,W at A7\ndiscard C,V",
            "place E,W at A7\ndiscard C,V extra-garbage",
            "place E,NW at C5",
        ] {
            for (style, quote) in quoting_styles(REFUSAL) {
                let top = answering(&format!("{turn}\n\n{attribution}\n\n{quote}\n"), REFUSAL);
                assert_eq!(top.move_text, turn, "top-posted, {style}");
                if style == "unmarked" || style == "indented" || style == "bar" {
                    // Text below an unmarked quote is more of the quote, whatever it is
                    // (as below an Outlook header block); a turn there is refused.
                    continue;
                }
                let bottom = answering(&format!("{attribution}\n{quote}\n\n{turn}\n"), REFUSAL);
                assert_eq!(bottom.move_text, turn, "bottom-posted, {style}");
            }
        }
    }

    /// With the notice known, answers between quoted parts are still read, even one
    /// that repeats the notice's own words.
    #[test]
    fn answers_between_quoted_parts_are_read_with_the_notice_known() {
        let quote: Vec<String> = NOTICE.lines().map(|l| format!("> {l}")).collect();
        let (head, tail) = quote.split_at(17);
        for answer in ["pass", "place E,NW at C5", "    place E,NW at C5"] {
            let body = format!(
                "On Mon, 23 Nov 2026, Referee wrote:\n{}\n{answer}\n{}\n",
                head.join("\n"),
                tail.join("\n")
            );
            assert_eq!(answering(&body, NOTICE).move_text, answer, "{body}");
        }
    }

    /// A notice line of ours may start with `>` where a long line was wrapped (the
    /// desert kingdom's legend): only marks beyond the notice's own count as quoting.
    #[test]
    fn a_notice_line_that_starts_with_a_quote_mark_is_still_the_notice() {
        let notice = "Ann, it is your turn (turn 3).\n\nx a city the barbarians destroyed,\n> where they enter (until a tile lies face down).\n\nReply to this mail with your whole turn at the top.\n";
        for quote in [notice.to_string(), prefixed("> ", notice)] {
            let top = answering(&format!("{TURN}\n\nReferee wrote\n\n{quote}"), notice);
            assert_eq!(top.move_text, TURN, "{quote}");
            let bottom = answering(&format!("Referee wrote:\n{quote}\n{TURN}\n"), notice);
            assert_eq!(bottom.move_text, TURN, "{quote}");
        }
    }

    #[test]
    fn an_unmarked_quote_ends_a_top_posted_turn() {
        let body = format!("{TURN}\n\n{NOTICE}\n\nFrom: Bo\nmore of the thread\n");
        assert_eq!(answering(&body, NOTICE).move_text, TURN);
        // And a bottom-posted one begins below it.
        let body = format!("==== Message du 23/11/2026 ====\n{NOTICE}\n{TURN}\n");
        assert_eq!(answering(&body, NOTICE).move_text, TURN);
    }

    /// A paragraph right above the notice's quote with none of the marks of a move is a
    /// tagline of the player's own: left out and listed.
    #[test]
    fn a_tagline_of_the_players_own_right_above_the_quote() {
        let quote = prefixed("> ", NOTICE);
        let tagline = "Typed on a phone somewhere in Leeds, please forgive the brevity";
        let extracted = answering(&format!("{TURN}\n\n{tagline}\n\n{quote}\n"), NOTICE);
        assert_eq!(extracted.move_text, TURN);
        assert_eq!(extracted.dropped, [tagline]);
        // Not without the notice, and not when the paragraph could be a move, or is
        // all there is, or is not where the player's text ends.
        for (body, notice) in [
            (format!("{TURN}\n\n{tagline}\n\n{quote}\n"), None),
            (
                format!("{TURN}\n\nDiscard I then pass\n\n{quote}\n"),
                Some(NOTICE),
            ),
            (
                format!("{TURN}\n\nPass on the bidding please\n\n{quote}\n"),
                Some(NOTICE),
            ),
            (
                format!("{TURN}\n\nBuy the city tile at D4\n\n{quote}\n"),
                Some(NOTICE),
            ),
            (format!("{tagline}\n\n{quote}\n"), Some(NOTICE)),
            (
                format!("{TURN}\n\n{tagline}\n\n{quote}\n\npass\n"),
                Some(NOTICE),
            ),
        ] {
            let names = Names::of(Some("Ann Archer"), Some("ann.archer@example.org"));
            let notice = notice.map(sent);
            let extracted = extract_answering(&body, false, false, &names, notice.as_ref());
            assert!(extracted.dropped.is_empty(), "{body}");
            let own: Vec<&str> = body
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('>'))
                .collect();
            assert_eq!(extracted.move_text, own.join("\n"), "{body}");
        }
    }

    /// Finding the quote is bounded work whatever the message and the notice hold.
    #[test]
    fn matching_is_bounded_in_hostile_messages() {
        // The notice's first line, again and again: never a quote (one line of it).
        let body = format!(
            "{}{TURN}\n",
            "Ann, it is your turn (turn 3).\n".repeat(8_000)
        );
        let extracted = answering(&body, NOTICE);
        assert!(extracted.truncated);
        // A notice of one repeated word on one line, a reply of nothing else: every
        // start runs far, and the budget stops the search.
        let notice = "a ".repeat(2_000);
        let reply = "a a a a a a a a a a\n".repeat(3_000);
        let lines: Vec<String> = reply.lines().map(str::to_string).collect();
        assert_eq!(find_quote(&lines, &sent(&notice)), None);
        // The notice quoted many times over: the first quote is found.
        let body = format!("{TURN}\n\n{}", prefixed("> ", &NOTICE.repeat(60)));
        let extracted = answering(&body, NOTICE);
        assert_eq!(extracted.move_text, TURN);
    }
}
