//! Small pieces of English the game's text is built from: counts with their noun and
//! tiles as a sentence names them. Play's refusals, the report, the board and the
//! list of moves all use them.

use super::state::Kind;

pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A tile as a sentence names it: "an oasis", "a mine", "grass".
pub(crate) fn a(kind: Kind) -> String {
    match kind {
        Kind::Oasis => "an oasis".to_string(),
        Kind::Grass | Kind::Desert => kind.name().to_string(),
        other => format!("a {}", other.name()),
    }
}

pub(crate) fn kinds_text(kinds: &[Kind]) -> String {
    kinds
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}
