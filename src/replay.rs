//! `pbem export FILE --html OUT`: one self-contained HTML page that replays a game
//! turn by turn for one viewer: the board as each game draws it in SVG, who moved
//! what, each turn's report as that viewer may read it, each record's draws and hash
//! as `pbem log` prints them, and the audit.
//!
//! It also verifies, in the browser, the game file it carries (its bytes exactly as
//! pbem read them, packed) and any game file a reader drops on it, with
//! templates/verify.js: a verifier written from docs/FAIRNESS.md alone, which checks
//! what an auditor without the rules can check and says what it leaves to `pbem audit`.
//!
//! The page needs nothing outside itself (no network, no script or font from
//! elsewhere; its Content-Security-Policy forbids them). To stay small for long games
//! it carries the first board whole and each later one as the lines that changed, and
//! its two payloads (the replay's data and the game file) as raw DEFLATE in base64,
//! which the browser's own `DecompressionStream` unpacks.

use base64::Engine as _;
use serde_json::{json, Value};
use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::engine::driver::{OpenGame, REFEREE};
use crate::engine::error::EngineError;

/// The page, with `__TITLE__`, `__VERIFY__`, `__GAME_FILE__` and `__DATA__` to fill.
const PAGE: &str = include_str!("../templates/replay.html");

/// The browser's verifier of a game file, written from docs/FAIRNESS.md.
pub const VERIFY_JS: &str = include_str!("../templates/verify.js");

/// The replay page of `game` for `viewer` (a player's name, [`REFEREE`] once the game
/// is over, or `None` for the public).
///
/// # Errors
/// An unknown viewer, the referee's view of a game still being played (it shows what
/// players may not see yet), or a position that needs the referee's keyring.
pub fn page(game: &dyn OpenGame, viewer: Option<&str>) -> Result<String, EngineError> {
    page_with(game, viewer, &Shared::of(game)?)
}

/// The replay pages of `game` for each of `viewers`, as [`page`] makes them, with what
/// every viewer's page shares (the records, the log, the audit) made once.
///
/// # Errors
/// As [`page`], for the first viewer it fails for.
pub fn pages(game: &dyn OpenGame, viewers: &[Option<&str>]) -> Result<Vec<String>, EngineError> {
    let shared = Shared::of(game)?;
    viewers
        .iter()
        .map(|viewer| page_with(game, *viewer, &shared))
        .collect()
}

/// What every viewer's page of a game shows alike.
struct Shared {
    over: bool,
    records: Vec<crate::engine::driver::PublicRecord>,
    /// `pbem log`'s lines before the first record, of each record, and after the last.
    log: (Vec<String>, Vec<Vec<String>>, Vec<String>),
    audit: crate::engine::audit::AuditReport,
}

impl Shared {
    fn of(game: &dyn OpenGame) -> Result<Shared, EngineError> {
        Ok(Shared {
            over: game.view(None, None)?["over"].as_bool().unwrap_or(false),
            records: game.public_records()?,
            log: log_by_record(&game.log()?),
            audit: game.audit(),
        })
    }
}

fn page_with(
    game: &dyn OpenGame,
    viewer: Option<&str>,
    shared: &Shared,
) -> Result<String, EngineError> {
    if viewer == Some(REFEREE) && !shared.over {
        return Err(EngineError::Usage(
            "the referee's view shows what players may not see yet: export it once the game is over, or export the public view (no --as) or a player's (--as NAME)".into(),
        ));
    }
    let Shared {
        records,
        log: (setup_lines, record_lines, closing_lines),
        audit,
        ..
    } = shared;
    let mut record_lines = record_lines.clone();
    let mut turns = Vec::with_capacity(records.len() + 1);
    let mut previous: Vec<String> = Vec::new();
    for turn in 0..=game.turns() {
        let svg = game.board_svg(viewer, Some(turn))?;
        let lines: Vec<String> = svg.lines().map(str::to_string).collect();
        let report = if turn == 0 {
            Vec::new()
        } else {
            game.report(viewer, Some(turn))?
        };
        let mut entry = json!({ "turn": turn, "report": report });
        if turn == 0 {
            entry["svg"] = Value::from(svg);
            entry["record"] = json!(setup_lines);
        } else {
            entry["diff"] = Value::from(diff(&previous, &lines));
            entry["record"] = json!(record_lines.get_mut(turn as usize - 1).map(std::mem::take));
            if let Some(record) = records.get(turn as usize - 1) {
                let what = match (&record.undo, &record.move_text) {
                    (Some(_), _) => "a step of taking back moves (see the record)".to_string(),
                    (None, Some(text)) => text.replace('\n', "; "),
                    (None, None) => "(sealed: chosen, not yet opened)".to_string(),
                };
                let taken = if record.taken_back {
                    " (taken back later)"
                } else {
                    ""
                };
                entry["who"] = Value::from(record.player.clone());
                entry["move"] = Value::from(format!("{what}{taken}"));
            }
        }
        turns.push(entry);
        previous = lines;
    }
    let genesis = game.genesis();
    let shown_to = match viewer {
        None => "the public view".to_string(),
        Some(REFEREE) => "the referee's view (the game is over)".to_string(),
        Some(name) => format!("{name}'s view"),
    };
    let title = format!("{} {}", game.name(), genesis.id);
    let mut audit_lines = audit.lines.clone();
    audit_lines.extend(closing_lines.iter().cloned());
    let data = json!({
        "title": title,
        "subtitle": format!(
            "{} turns, {}; players {}",
            game.turns(),
            shown_to,
            genesis.players.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
        "audit": { "passed": audit.problems.is_empty(), "lines": audit_lines },
        "turns": turns,
    });
    // Both payloads packed (raw DEFLATE, then base64, which holds no `<` to end their
    // <script> element): boards drawn turn after turn and a game file are mostly
    // repetition, and the page goes in every player's end-of-game mail. The browser
    // unpacks them with its own DecompressionStream; the file's bytes come out exactly
    // as read, for the page to verify.
    let data = packed(data.to_string().as_bytes())?;
    let file = packed(game.bytes())?;
    // The fixed parts first, the game's own text last, so that no placeholder's text in
    // a move or a name is ever taken for the page's own.
    Ok(PAGE
        .replacen("__VERIFY__", VERIFY_JS, 1)
        .replacen("__GAME_FILE__", &file, 1)
        .replacen("__TITLE__", &html_escape(&title), 1)
        .replacen("__DATA__", &data, 1))
}

/// `bytes` compressed as raw DEFLATE (RFC 1951, what the browser's
/// `DecompressionStream("deflate-raw")` reads), in base64.
fn packed(bytes: &[u8]) -> Result<String, EngineError> {
    use std::io::Write as _;
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .map(|deflated| base64::engine::general_purpose::STANDARD.encode(deflated))
        .map_err(|error| EngineError::Usage(format!("cannot pack the page's data: {error}")))
}

/// `next` as steps from `previous`: a positive number keeps that many lines, a
/// negative one drops that many, a string is a new line.
fn diff(previous: &[String], next: &[String]) -> Vec<Value> {
    let mut steps = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, previous, next) {
        match op {
            DiffOp::Equal { len, .. } => steps.push(Value::from(len)),
            DiffOp::Delete { old_len, .. } => steps.push(Value::from(-(old_len as i64))),
            DiffOp::Insert {
                new_index, new_len, ..
            } => steps.extend(
                next[new_index..new_index + new_len]
                    .iter()
                    .cloned()
                    .map(Value::from),
            ),
            DiffOp::Replace {
                old_len,
                new_index,
                new_len,
                ..
            } => {
                steps.push(Value::from(-(old_len as i64)));
                steps.extend(
                    next[new_index..new_index + new_len]
                        .iter()
                        .cloned()
                        .map(Value::from),
                );
            }
        }
    }
    steps
}

/// `pbem log`'s text cut by record: the lines before the first record (the setup's
/// draws), each record's lines, and the lines after the last (the seed).
fn log_by_record(log: &str) -> (Vec<String>, Vec<Vec<String>>, Vec<String>) {
    let mut setup = Vec::new();
    let mut records: Vec<Vec<String>> = Vec::new();
    let mut closing = Vec::new();
    for line in log.lines() {
        if line.starts_with("turn ") {
            records.push(vec![line.to_string()]);
        } else if line.starts_with(' ') && !records.is_empty() {
            if let Some(record) = records.last_mut() {
                record.push(line.trim_start().to_string());
            }
        } else if records.is_empty() {
            setup.push(line.to_string());
        } else {
            closing.push(line.to_string());
        }
    }
    (setup, records, closing)
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(previous: &[String], steps: &[Value]) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = 0usize;
        for step in steps {
            match step {
                Value::String(line) => out.push(line.clone()),
                Value::Number(n) => {
                    let n = n.as_i64().expect("a whole number");
                    if n > 0 {
                        out.extend_from_slice(&previous[at..at + n as usize]);
                        at += n as usize;
                    } else {
                        at += (-n) as usize;
                    }
                }
                other => panic!("{other}"),
            }
        }
        out
    }

    #[test]
    fn a_diff_applied_to_the_lines_before_gives_the_lines_after() {
        let lines = |text: &str| text.split(' ').map(str::to_string).collect::<Vec<_>>();
        for (before, after) in [
            ("a b c d", "a x c d"),
            ("a b c d", "a b c d e"),
            ("a b c d", "b d"),
            ("a", "x y z"),
            ("a b", "a b"),
        ] {
            let (before, after) = (lines(before), lines(after));
            assert_eq!(apply(&before, &diff(&before, &after)), after);
        }
    }

    #[test]
    fn the_log_is_cut_at_each_record() {
        let log = "game g (x), players A, B, setup draws 1/2\nturn   1  A  m  draws   hash 00\n          A did\nturn   2  B  n  draws   hash 11\nseed revealed: ff\n";
        let (setup, records, closing) = log_by_record(log);
        assert_eq!(setup.len(), 1);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0][1], "A did");
        assert_eq!(closing, vec!["seed revealed: ff".to_string()]);
    }

    #[test]
    fn the_page_has_one_place_for_each_value() {
        assert_eq!(PAGE.matches("__TITLE__").count(), 1);
        assert_eq!(PAGE.matches("__DATA__").count(), 1);
        assert_eq!(PAGE.matches("__VERIFY__").count(), 1);
        assert_eq!(PAGE.matches("__GAME_FILE__").count(), 1);
        // The verifier is put in a <script> element whole: nothing in it may end it, or
        // be taken for a placeholder filled after it.
        assert!(!VERIFY_JS.contains("</"));
        for placeholder in ["__TITLE__", "__GAME_FILE__", "__DATA__"] {
            assert!(!VERIFY_JS.contains(placeholder), "{placeholder}");
        }
    }
}
