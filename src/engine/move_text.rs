//! What a move's text may be before the rules read it: the word that confirms it and
//! the most it may hold, as sent and as recorded.

use super::error::Result;
use super::rules::RuleError;

/// The word that, before a move, confirms it (`Rules::needs_confirmation`).
pub const CONFIRM: &str = "confirm";

/// A move text without a leading `confirm`, and whether it had one.
pub fn strip_confirm(move_text: &str) -> (bool, &str) {
    let trimmed = move_text.trim_start();
    let word_end = trimmed
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(trimmed.len());
    if trimmed[..word_end].eq_ignore_ascii_case(CONFIRM) {
        let rest = trimmed[word_end..].trim_start_matches([':', ' ', '\t', '\n', '\r']);
        (true, rest)
    } else {
        (false, move_text)
    }
}

/// Refuses `text` (what `what` names) longer than `most` bytes, saying what would do.
pub(crate) fn within(what: &str, text: &str, most: usize, accepted: &str) -> Result<()> {
    if text.len() <= most {
        return Ok(());
    }
    Err(RuleError::new(
        format!(
            "{what} is {} bytes long; at most {most} are taken",
            text.len()
        ),
        accepted,
    )
    .into())
}

/// The most a player's move may hold as sent: a turn is a few lines of text.
pub const MAX_MOVE_BYTES: usize = 16 * 1024;

/// The most a move's canonical text may hold in a record (docs/FAIRNESS.md): every
/// game's longest turn is far shorter, so a longer one can only be padding.
pub const MAX_RECORDED_MOVE_BYTES: usize = 4096;
