//! Composing mail: the templates of templates/ (or a referee's own folder) rendered with
//! minijinja, wrapped to 78 columns, and built into a threaded message with lettre.

use std::path::{Path, PathBuf};

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart};
use lettre::Message;

use super::outbox::Outgoing;
use super::transport::MailSettings;
use super::MailError;

/// The widest line a mail or forum post may have.
pub const WIDTH: usize = 78;
/// The longest subject: its header line, `Subject: ` and all, fits [`WIDTH`], so a
/// mail client's list on a narrow screen still shows it whole.
pub const SUBJECT_CHARS: usize = WIDTH - "Subject: ".len();

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

    fn source(&self, name: &str) -> Result<String, MailError> {
        if let Some(dir) = &self.dir {
            let path = dir.join(name);
            if path.exists() {
                return crate::basics::store::read_text_limited(
                    &path,
                    crate::basics::store::MAX_SMALL_FILE_BYTES,
                )
                .map_err(MailError::io(path));
            }
        }
        BUILT_IN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| (*text).to_string())
            .ok_or_else(|| MailError::Template {
                name: name.to_string(),
                error: "no such template".into(),
            })
    }

    /// Renders a template to text, lines wrapped to [`WIDTH`].
    ///
    /// # Errors
    /// The template is missing or does not render with this context.
    pub fn render(&self, name: &str, context: &serde_json::Value) -> Result<String, MailError> {
        Ok(wrap(&self.render_unwrapped(name, context)?, WIDTH))
    }

    /// A template rendered and tidied, lines as the template made them.
    fn render_unwrapped(
        &self,
        name: &str,
        context: &serde_json::Value,
    ) -> Result<String, MailError> {
        let failed = |error: minijinja::Error| MailError::Template {
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
            Err(MailError::Template { .. }) => Ok(None),
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
    ) -> Result<(String, String), MailError> {
        // The subject is a header: never wrapped, but fitted to SUBJECT_CHARS by
        // cutting its end, which is why templates put the reply code early.
        let text = self.render_unwrapped(name, context)?;
        let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
        let subject = first
            .strip_prefix("Subject:")
            .ok_or_else(|| MailError::Template {
                name: name.to_string(),
                error: "the first line must be `Subject: ...`".into(),
            })?;
        Ok((
            fit_subject(subject.trim(), SUBJECT_CHARS),
            wrap(body.trim_start_matches('\n'), WIDTH),
        ))
    }
}

/// A subject cut to at most `max` characters, at a space where one is near, with an
/// ellipsis; never inside its reply code (`(ref CODE)`), which proves a reply and must
/// reach the player whole even when a long game id pushes it past `max`.
pub fn fit_subject(subject: &str, max: usize) -> String {
    if subject.chars().count() <= max {
        return subject.to_string();
    }
    // Characters that must stay: up to the end of the reply code.
    let keep = subject
        .find("(ref ")
        .and_then(|start| subject[start..].find(')').map(|end| start + end + 1))
        .map_or(0, |end| subject[..end].chars().count());
    let limit = max.saturating_sub(1).max(keep);
    let cut: String = subject.chars().take(limit).collect();
    // Back to the last space past what must stay, if it is not far back.
    let at_space = cut
        .char_indices()
        .filter(|(i, c)| *c == ' ' && cut[..*i].chars().count() >= keep)
        .map(|(i, _)| i)
        .next_back()
        .filter(|&i| cut[..i].chars().count() + 12 >= limit);
    let cut = match at_space {
        Some(i) => &cut[..i],
        None => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

/// The most characters of a stranger's line (a subject, an address) a mail shows.
pub const FOREIGN_LINE_CHARS: usize = 200;

/// Text from outside (an incoming message's subject, sender, move, note or words; a
/// player's name) made inert for our mail: one line, every control character (CR, LF,
/// tab, the rest of C0 and C1, DEL), line and paragraph separator (U+2028, U+2029) and
/// bidirectional override or isolate (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F,
/// U+061C) made a space, runs of spaces made one, and at most `max` characters (then an
/// ellipsis and the length). So nothing a stranger writes becomes lines, headers or
/// reordered words of the referee's own mail; templates still show it quoted.
pub fn inert(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max * 4));
    let mut space = false;
    for c in text.chars() {
        let blank = c.is_whitespace() || c.is_control() || is_format_control(c);
        if blank {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    crate::basics::echo::shortened(&out, max)
}

/// Invisible characters that change how text around them is laid out: the line and
/// paragraph separators, and the bidirectional marks, embeddings, overrides and
/// isolates (with which a stranger's text could show the referee's words reversed).
fn is_format_control(c: char) -> bool {
    matches!(
        c,
        '\u{2028}'
            | '\u{2029}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{061C}'
    )
}

/// Several lines of text from outside (a player's move, quoted back to them), each
/// made [`inert`] (at most `max` characters) and indented by four spaces, so no line
/// of it is wrapped or read as the mail's own words; at most `lines` lines.
pub fn quoted_lines(text: &str, max: usize, lines: usize) -> String {
    let all: Vec<&str> = text.trim().lines().collect();
    let mut out: Vec<String> = all
        .iter()
        .take(lines)
        .map(|line| format!("    {}", inert(line, max)))
        .collect();
    if all.len() > lines {
        out.push(format!("    … ({} lines in all)", all.len()));
    }
    out.join("\n")
}

/// Trailing spaces off, at most one blank line in a row, one final newline.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    let trimmed = out.trim_end_matches('\n').len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// Wraps lines longer than `width` at spaces, keeping their indentation; a word longer
/// than the width stays whole (a URL, say) rather than being cut.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.lines() {
        // A line indented by four spaces is a move, a code or a board line: cut, it
        // would no longer be what the player must send back.
        if line.chars().count() <= width || line.starts_with("    ") {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let first: String = line.chars().take_while(|c| *c == ' ').collect();
        // A list item's continuation lines hang under its text, not its dash.
        let rest = if line[first.len()..].starts_with("- ") {
            format!("{first}  ")
        } else {
            first.clone()
        };
        let mut current = first;
        // Whether `current` holds a word yet (beyond its indentation).
        let mut started = false;
        for word in line.split_whitespace() {
            let len = current.chars().count();
            if started && len + 1 + word.chars().count() > width {
                out.push_str(&current);
                out.push('\n');
                current = rest.clone();
                started = false;
            }
            if started {
                current.push(' ');
            }
            current.push_str(word);
            started = true;
        }
        out.push_str(&current);
        out.push('\n');
    }
    out
}

/// One message to compose.
pub struct Draft<'a> {
    pub to_name: &'a str,
    pub to_address: &'a str,
    pub subject: String,
    pub body: String,
    /// Our Message-ID, without brackets.
    pub message_id: String,
    /// The message this one's thread hangs from, one the recipient has (their
    /// welcome to the game); `None` for a message that is itself a root.
    pub thread_root: Option<String>,
    /// The incoming message this answers, if any.
    pub answers: Option<&'a str>,
    /// A file to attach (name, bytes): the signed game file, for audits.
    pub attachment: Option<(String, Vec<u8>)>,
    /// The board as this reader may see it, a PNG shown inline (the text names it as
    /// [`PICTURE_NAME`]).
    pub picture: Option<Vec<u8>>,
}

/// The file name of a mail's board picture, as the text part names it.
pub const PICTURE_NAME: &str = "board.png";

/// Builds the message: plain text for every client, the same in an HTML `<pre>` so
/// that clients which show plain text in a proportional font still line the board up,
/// the board's picture (when given) shown above that text and kept beside both as an
/// inline part, and the game file attached when asked.
///
/// # Errors
/// An address that does not parse.
pub fn build(settings: &MailSettings, draft: Draft<'_>) -> Result<Outgoing, MailError> {
    let bad = |what: &str| MailError::Config(format!("{what} is not a usable mail address"));
    let from: Mailbox = settings
        .from_line()
        .parse()
        .map_err(|_| bad(&settings.from_line()))?;
    let to_address = draft
        .to_address
        .parse()
        .map_err(|_| bad(draft.to_address))?;
    let to = Mailbox::new(Some(draft.to_name.to_string()), to_address);
    let root = draft.thread_root.map(|root| format!("<{root}>"));
    let answers = draft.answers.map(|incoming| format!("<{incoming}>"));
    // An answer replies to the message it answers, anything else to the root.
    let in_reply_to = answers.clone().or_else(|| root.clone());
    let references: Vec<String> = root.into_iter().chain(answers).collect();
    // The picture's Content-ID is the message's own, so no two mails share one.
    let picture_id = format!("board.{}", draft.message_id);
    let image = match &draft.picture {
        Some(_) => format!(
            "<p><img src=\"cid:{}\" alt=\"The board\" style=\"max-width: 100%; height: auto\"></p>",
            escape_html(&picture_id)
        ),
        None => String::new(),
    };
    let html = format!(
        "<html><body>{image}<pre style=\"font-family: monospace\">{}</pre></body></html>\n",
        escape_html(&draft.body)
    );
    let alternative = MultiPart::alternative_plain_html(draft.body.clone(), html);
    // text/plain and text/html as alternatives, and the picture beside them in one
    // multipart/related: the HTML shows it by its Content-ID, a text-only client lists
    // it as the board.png the text names.
    let content = match draft.picture {
        Some(png) => {
            let kind =
                ContentType::parse("image/png").map_err(|e| MailError::Config(e.to_string()))?;
            MultiPart::related().multipart(alternative).singlepart(
                Attachment::new_inline_with_name(picture_id, PICTURE_NAME.to_string())
                    .body(png, kind),
            )
        }
        None => alternative,
    };
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(draft.subject)
        .message_id(Some(format!("<{}>", draft.message_id)))
        .date_now();
    if let Some(in_reply_to) = in_reply_to {
        builder = builder
            .in_reply_to(in_reply_to)
            .references(references.join(" "));
    }
    let message = match draft.attachment {
        Some((name, bytes)) => {
            let json = ContentType::parse("application/json")
                .map_err(|e| MailError::Config(e.to_string()))?;
            builder.multipart(
                MultiPart::mixed()
                    .multipart(content)
                    .singlepart(Attachment::new(name).body(bytes, json)),
            )
        }
        None => builder.multipart(content),
    }
    .map_err(|error| MailError::Config(format!("cannot build the message: {error}")))?;
    Ok(Outgoing {
        from: settings.from_address(),
        to: vec![draft.to_address.to_string()],
        message: String::from_utf8_lossy(&message.formatted()).into_owned(),
    })
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_text_is_one_line_without_controls_and_capped() {
        let subject = "hello\r\n\r\nYour move WAS applied;\treply\u{2028}resign\u{202E}\u{1b}[31m";
        assert_eq!(
            inert(subject, 200),
            "hello Your move WAS applied; reply resign [31m"
        );
        assert_eq!(inert("  a \u{85} b  ", 200), "a b");
        let long = inert(&"x".repeat(1000), 200);
        assert!(long.starts_with(&"x".repeat(200)) && long.ends_with("(1000 characters in all)"));
        let quoted = quoted_lines("place E,W at A7\r\n\u{2029}discard C\nthird", 200, 2);
        assert_eq!(
            quoted,
            "    place E,W at A7\n    discard C\n    … (3 lines in all)"
        );
    }

    #[test]
    fn long_lines_wrap_at_spaces_and_keep_indentation() {
        let line = format!("  {}", "word ".repeat(30));
        let wrapped = wrap(&line, 40);
        assert!(wrapped
            .lines()
            .all(|l| l.chars().count() <= 40 && l.starts_with("  ")));
        assert_eq!(wrapped.split_whitespace().count(), 30);
        assert_eq!(wrap("short\n", 40), "short\n");
    }

    #[test]
    fn a_list_items_continuation_hangs_under_its_text() {
        let line = format!("  - {}", "word ".repeat(20));
        let wrapped = wrap(&line, 40);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines[0].starts_with("  - word"));
        assert!(
            lines[1..].iter().all(|l| l.starts_with("    word")),
            "{wrapped}"
        );
    }

    #[test]
    fn a_line_indented_four_spaces_is_never_wrapped() {
        // A move to send back, a reply code or a board line: cut in two, it would no
        // longer be what the player must copy.
        let line = format!("    place {}", "E,W at A7; ".repeat(8));
        assert_eq!(wrap(&line, 40), format!("{line}\n"));
    }

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
        assert!(subject.ends_with('…'), "the status cut: {subject}");
        assert!(body.lines().all(|l| l.chars().count() <= WIDTH));
    }

    #[test]
    fn a_subject_is_cut_at_a_space_and_never_inside_its_reply_code() {
        assert_eq!(fit_subject("short", 10), "short");
        assert_eq!(fit_subject("one two three four", 12), "one two…");
        let long_id = format!("[pbem {}] (ref abcdefghjk) Turn 3", "x".repeat(70));
        let fitted = fit_subject(&long_id, 69);
        assert!(fitted.contains("(ref abcdefghjk)"), "{fitted}");
        assert!(fitted.ends_with('…'), "{fitted}");
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
            if *name == "referee-bounced.txt" {
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
