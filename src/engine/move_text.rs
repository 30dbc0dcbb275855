//! What a move's text may be before the rules read it: the word that confirms it, the
//! most it may hold, as sent and as recorded, and the characters it may not hold.

use super::characters::{described, first_refused, Lines, REFUSED_KINDS};
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

/// Refuses `text` (what `what` names, a move or a player's words) holding a character
/// that [`super::characters::is_refused`] refuses, naming the first and where it is.
/// Checked on what a player sends, never on a recorded move: a file's reading does not
/// change.
pub(crate) fn plain(what: &str, text: &str) -> Result<()> {
    let Some((place, c)) = first_refused(text, Lines::Several) else {
        return Ok(());
    };
    Err(RuleError::new(
        format!(
            "there is {} in {what} (character {place}), which shows nothing itself but can change how the text around it is shown: {REFUSED_KINDS}",
            described(c)
        ),
        format!("{what} typed again without it, in letters, digits, punctuation, spaces and new lines"),
    )
    .into())
}

/// The most a player's move may hold as sent: a turn is a few lines of text.
pub const MAX_MOVE_BYTES: usize = 16 * 1024;

/// The most a move's canonical text may hold in a record (docs/FAIRNESS.md): every
/// game's longest turn is far shorter, so a longer one can only be padding.
pub const MAX_RECORDED_MOVE_BYTES: usize = 4096;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// One character of each kind a move may not hold (see `characters`).
    const REFUSED: [char; 14] = [
        '\u{202E}', '\u{202D}', '\u{200F}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        '\u{200B}', '\u{200D}', '\u{FEFF}', '\u{2028}', '\u{2029}', '\u{1B}', '\u{7F}',
    ];

    proptest! {
        /// A move of printable text, spaces, tabs and new lines is plain.
        #[test]
        fn a_move_of_visible_text_and_new_lines_is_plain(
            text in "[ -~\t\r\nàéö]{0,80}",
        ) {
            prop_assert!(plain("the move", &text).is_ok());
        }

        /// The same with a refused character anywhere is refused, naming it by code
        /// point and place, without quoting the character itself.
        #[test]
        fn a_move_with_an_invisible_character_is_refused(
            text in "[ -~\n]{0,80}",
            c in prop::sample::select(REFUSED.to_vec()),
            at in any::<prop::sample::Index>(),
        ) {
            let mut chars: Vec<char> = text.chars().collect();
            let place = at.index(chars.len() + 1);
            chars.insert(place, c);
            let sent: String = chars.into_iter().collect();
            let Err(error) = plain("the move", &sent) else {
                return Err(TestCaseError::fail(format!("{sent:?} was taken")));
            };
            let error = error.to_string();
            let named = format!("U+{:04X}", u32::from(c));
            let place = format!("(character {})", place + 1);
            prop_assert!(error.contains(&named) && error.contains(&place), "{}", error);
            prop_assert!(!error.contains(c), "{:?}", error);
        }
    }

    #[test]
    fn a_refusal_names_the_character_and_what_would_do() {
        let error = plain("the move", "place E,W at E9\u{202E}").expect_err("refused");
        assert_eq!(
            error.to_string(),
            "there is U+202E RIGHT-TO-LEFT OVERRIDE in the move (character 16), which shows nothing itself but can change how the text around it is shown: format characters (such as bidirectional overrides and isolates, zero-width spaces and joiners), line and paragraph separators and control characters are refused; the move typed again without it, in letters, digits, punctuation, spaces and new lines"
        );
    }
}
