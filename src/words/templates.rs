//! The templates of templates/ (or a referee's own folder) rendered with minijinja,
//! lines tidied and wrapped to [`WIDTH`], subjects fitted to [`SUBJECT_CHARS`].

use std::path::{Path, PathBuf};

use super::text::{fit_subject, tidy, wrap, SUBJECT_CHARS, WIDTH};
use super::WordsError;

const BUILT_IN: &[(&str, &str)] = &[
    ("welcome.txt", include_str!("../../templates/welcome.txt")),
    (
        "your-turn.txt",
        include_str!("../../templates/your-turn.txt"),
    ),
    (
        "move-made.txt",
        include_str!("../../templates/move-made.txt"),
    ),
    (
        "move-refused.txt",
        include_str!("../../templates/move-refused.txt"),
    ),
    (
        "someone-tried.txt",
        include_str!("../../templates/someone-tried.txt"),
    ),
    (
        "game-over.txt",
        include_str!("../../templates/game-over.txt"),
    ),
    (
        "game-closed.txt",
        include_str!("../../templates/game-closed.txt"),
    ),
    ("reminder.txt", include_str!("../../templates/reminder.txt")),
    (
        "invitation.txt",
        include_str!("../../templates/invitation.txt"),
    ),
    ("joined.txt", include_str!("../../templates/joined.txt")),
    ("preview.txt", include_str!("../../templates/preview.txt")),
    ("moves.txt", include_str!("../../templates/moves.txt")),
    ("away.txt", include_str!("../../templates/away.txt")),
    ("pictures.txt", include_str!("../../templates/pictures.txt")),
    (
        "digest-set.txt",
        include_str!("../../templates/digest-set.txt"),
    ),
    ("digest.txt", include_str!("../../templates/digest.txt")),
    ("earlier.part", include_str!("../../templates/earlier.part")),
    (
        "note-kept.txt",
        include_str!("../../templates/note-kept.txt"),
    ),
    ("undo.txt", include_str!("../../templates/undo.txt")),
    ("question.txt", include_str!("../../templates/question.txt")),
    (
        "questions.txt",
        include_str!("../../templates/questions.txt"),
    ),
    (
        "for-referee.txt",
        include_str!("../../templates/for-referee.txt"),
    ),
    (
        "referee-bounced.txt",
        include_str!("../../templates/referee-bounced.txt"),
    ),
    (
        "referee-held.txt",
        include_str!("../../templates/referee-held.txt"),
    ),
    ("forum.bbcode", include_str!("../../templates/forum.bbcode")),
    ("forum.md", include_str!("../../templates/forum.md")),
];

/// The templates in use: a referee's folder over the built-in ones, file by file.
#[derive(Debug, Clone, Default)]
pub struct Templates {
    dir: Option<PathBuf>,
}

impl Templates {
    pub fn new(dir: Option<&Path>) -> Templates {
        Templates {
            dir: dir.map(Path::to_path_buf),
        }
    }

    fn source(&self, name: &str) -> Result<String, WordsError> {
        if let Some(dir) = &self.dir {
            let path = dir.join(name);
            if path.exists() {
                return crate::basics::store::read_text_limited(
                    &path,
                    crate::basics::store::MAX_SMALL_FILE_BYTES,
                )
                .map_err(WordsError::io(path));
            }
        }
        BUILT_IN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| (*text).to_string())
            .ok_or_else(|| WordsError::Template {
                name: name.to_string(),
                error: "no such template".into(),
            })
    }

    /// Renders a template to text, lines wrapped to [`WIDTH`].
    ///
    /// # Errors
    /// The template is missing or does not render with this context.
    pub fn render(&self, name: &str, context: &serde_json::Value) -> Result<String, WordsError> {
        Ok(wrap(&self.render_unwrapped(name, context)?, WIDTH))
    }

    /// A template rendered and tidied, lines as the template made them.
    fn render_unwrapped(
        &self,
        name: &str,
        context: &serde_json::Value,
    ) -> Result<String, WordsError> {
        let failed = |error: minijinja::Error| WordsError::Template {
            name: name.to_string(),
            error: error.to_string(),
        };
        let mut env = minijinja::Environment::new();
        env.set_keep_trailing_newline(true);
        env.set_trim_blocks(true);
        env.add_template_owned(name.to_string(), self.source(name)?)
            .map_err(failed)?;
        // Pieces shared by several mails (`{% include "earlier.part" %}`), from the
        // referee's folder or built in, as the mails themselves.
        let pieces = self.clone();
        env.set_loader(move |piece| match pieces.source(piece) {
            Ok(text) => Ok(Some(text)),
            Err(WordsError::Template { .. }) => Ok(None),
            Err(error) => Err(minijinja::Error::new(
                minijinja::ErrorKind::TemplateNotFound,
                error.to_string(),
            )),
        });
        let text = env
            .get_template(name)
            .map_err(failed)?
            .render(context)
            .map_err(failed)?;
        Ok(tidy(&text))
    }

    /// Renders a mail template: its first line `Subject: ...`, then the body.
    ///
    /// # Errors
    /// As for [`Templates::render`], or no subject line.
    pub fn render_mail(
        &self,
        name: &str,
        context: &serde_json::Value,
    ) -> Result<(String, String), WordsError> {
        // The subject is a header: never wrapped, but fitted to SUBJECT_CHARS by
        // cutting its end, which is why templates put the reply code early.
        let text = self.render_unwrapped(name, context)?;
        let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
        let subject = first
            .strip_prefix("Subject:")
            .ok_or_else(|| WordsError::Template {
                name: name.to_string(),
                error: "the first line must be `Subject: ...`".into(),
            })?;
        Ok((
            fit_subject(subject.trim(), SUBJECT_CHARS),
            wrap(body.trim_start_matches('\n'), WIDTH),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_subject_fits_with_its_reply_code_early() {
        let templates = Templates::default();
        let context = serde_json::json!({
            "tag": "[pbem dk-4abe350c]", "turn": 14, "player": "Bartholomew",
            "status": "61 squares free, choosing a tile", "code": "aaj3fbyd82",
            "board": "B", "example": "take grass", "head": "ab", "head_turn": 13
        });
        let (subject, body) = templates
            .render_mail("your-turn.txt", &context)
            .expect("renders");
        assert!(subject.chars().count() <= SUBJECT_CHARS, "{subject}");
        assert!(
            subject.starts_with("[pbem dk-4abe350c] (ref aaj3fbyd82) Turn 14: your move"),
            "{subject}"
        );
        assert!(subject.ends_with("..."), "the status cut: {subject}");
        assert!(body.lines().all(|l| l.chars().count() <= WIDTH));
    }

    #[test]
    fn the_welcome_flows_its_first_paragraph_whatever_the_names() {
        let templates = Templates::default();
        for others in ["Bob", "Bartholomew, Constantine, Maximilian and Wilhelmina"] {
            let context = serde_json::json!({
                "tag": "[pbem row-1]", "game": "right-of-way", "player": "Ann",
                "others": others, "token": "T", "example": "pass", "board": "B",
                "head": "ab", "head_turn": 0, "invitation": "cd"
            });
            let (_, body) = templates
                .render_mail("welcome.txt", &context)
                .expect("renders");
            let first = body.split("\n\n").nth(1).expect("a paragraph");
            assert!(
                first
                    .lines()
                    .all(|line| line.split_whitespace().count() > 1),
                "a word alone on a line: {first}"
            );
            let flowed = first.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flowed.ends_with(
                    "The referee runs pbem; you only read and write mail. One message is one turn."
                ),
                "{flowed}"
            );
        }
    }

    #[test]
    fn the_game_over_mail_says_who_won_shared_or_that_nobody_did() {
        let templates = Templates::default();
        let render = |winners: &str, count: usize| {
            let context = serde_json::json!({
                "tag": "[pbem dk-1]", "turn": 60, "players": [], "winners": winners,
                "winner_count": count, "seed": "00", "board": "B", "head": "ab", "head_turn": 60
            });
            templates
                .render_mail("game-over.txt", &context)
                .expect("renders")
        };
        let (subject, body) = render("", 0);
        assert_eq!(subject, "[pbem dk-1] The game is over: nobody won");
        assert!(body.contains("Nobody won."), "{body}");
        let (subject, body) = render("Ann, Eve", 2);
        assert_eq!(
            subject,
            "[pbem dk-1] The game is over: Ann, Eve share the win"
        );
        assert!(
            body.contains("Winners, sharing the win: Ann, Eve"),
            "{body}"
        );
        let (_, body) = render("Ann", 1);
        assert!(body.contains("Winner: Ann"), "{body}");
    }

    #[test]
    fn every_built_in_mail_template_has_a_subject() {
        let templates = Templates::default();
        let context = serde_json::json!({
            "tag": "[pbem row-1]", "game": "right-of-way", "id": "row-1", "player": "Ann",
            "others": "Bob", "turn": 3, "to_move": "Bob", "board": "B O A R D", "example": "pass",
            "code": "abc", "token": "T", "mover": "Ann", "move": "pass", "understood": "pass",
            "problem": "p", "accepted": "a", "headline": "h", "players": [{"name": "Ann", "score": 1}],
            "winners": "Ann", "winner_count": 1, "seed": "00", "waiting_days": 3,
            "sender": "x@y", "subject": "s", "over": false,
            "head": "ab".repeat(32), "head_turn": 3, "commitment": "cd".repeat(32),
            "invitation": "ef".repeat(32), "waiting": "Bob", "words": "blue heron",
            // A joined game's welcome, with words long enough to be wrapped.
            "joined": [
                {"name": "Ann", "words": "blue heron"},
                {"name": "Bob", "words": "w ".repeat(90)}
            ],
            "referee_entropy": ["dice"]
        });
        // Moves held for a player on the daily digest (earlier.part), with lines long
        // enough to be wrapped, and the digest's own words.
        let digest = serde_json::json!({
            "earlier": [{"turn": 2, "when": "2026-11-26 15:08 UTC", "mover": "Bob",
                "entered": "mail", "understood": "pass", "sealed": false,
                "report": ["Bob passed ".repeat(12)], "notes": ["Bob: hi ".repeat(12)]}],
            "count": 1, "since": "2026-11-26 15:08 UTC", "daily": true, "held": 1
        });
        // The words of taking back a move (undo.txt).
        let undo = serde_json::json!({
            "step": "asked", "asked_by": "Ann", "by": "Ann", "takes_back": 2, "asked": true,
            "moves": [{"turn": 2, "player": "Ann", "text": "pass"}], "waiting_for": "Bob"
        });
        let mut context = context;
        for more in [undo, digest] {
            if let (Some(all), Some(more)) = (context.as_object_mut(), more.as_object()) {
                all.extend(more.clone());
            }
        }
        for (name, _) in BUILT_IN {
            let text = templates.render(name, &context).expect(name);
            assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{name}");
            if ["referee-bounced.txt", "referee-held.txt"].contains(name) {
                // To the referee, whose mailbox pbem may read: without the tag it is
                // filed as mail for no game, never answered as a stranger's move.
                let (subject, _) = templates.render_mail(name, &context).expect(name);
                assert!(!subject.contains("[pbem"), "{subject}");
            } else if name.ends_with(".txt") {
                let (subject, body) = templates.render_mail(name, &context).expect(name);
                // Mail about one game is tagged with it; these are about several.
                let about_one_game = !["questions.txt", "for-referee.txt"].contains(name);
                assert!(
                    subject.starts_with("[pbem row-1]") || !about_one_game && !subject.is_empty(),
                    "{name}: {subject}"
                );
                assert!(!body.is_empty());
            }
        }
    }
}
