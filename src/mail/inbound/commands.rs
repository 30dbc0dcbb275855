//! What a player's message asks for: a move, or one of the words the referee answers
//! without touching the game (`preview`, `moves`), the words of an undo (`undo`,
//! `agree`, `decline`), an absence (`away until DATE`, `back`), the board's picture
//! in one's mail (`pictures on`, `pictures off`), how the mail of moves comes
//! (`digest turn`, `digest daily`, `digest off`), and the notes to relay
//! (`note: ...` lines). Pure: the text in, the request out.

use crate::engine::MoveFilter;
use crate::mail::clock::{date_text, day_of};

/// The longest note relayed, in characters: a note is a line to the table, not a
/// letter, and a stranger's flood must not reach every player.
pub const MAX_NOTE_CHARS: usize = 500;
/// How far ahead an absence may run, in days: a longer one is a game abandoned, which
/// is the referee's call, not a reply's.
pub const MAX_AWAY_DAYS: u64 = 92;

/// What a message asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// A whole turn, as written (perhaps starting with `confirm`).
    Move(String),
    /// What this move would do, with nothing recorded.
    Preview(String),
    /// The moves the player may make now, narrowed.
    Moves(MoveFilter),
    /// Take back the player's last move.
    Undo,
    /// Agree to another player's undo.
    Agree,
    /// Decline another player's undo.
    Decline,
    /// No reminders and no deadline until the end of this day (days since 1970-01-01).
    Away { until_day: u64 },
    /// Back before the day an absence named.
    Back,
    /// The board's picture in this player's mail (`pictures on`) or not (`pictures off`).
    Pictures { on: bool },
    /// How the mail of moves that do not ask the player to move comes (`digest turn`,
    /// `digest daily`, `digest off`).
    Digest(Delivery),
    /// Only notes: nothing else to do.
    Nothing,
}

/// How a player in a game gets the mail of moves that do not ask them to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// The default: nothing between one's own turns. The others' moves, and the
    /// confirmation of one's own, are held and come with the next mail the player gets
    /// at once: their next turn notice, the end, news of a move the referee made for
    /// them.
    WithMyTurn,
    /// The others' moves held as with [`Delivery::WithMyTurn`], and sent together once
    /// a day when no other mail carried them sooner (`digest daily`); the confirmation
    /// of one's own move comes at once.
    Daily,
    /// Every move's mail as it happens, the confirmation of one's own included
    /// (`digest off`).
    EveryMove,
}

/// A message read: the request and the notes for the other players.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub request: Request,
    pub notes: Vec<String>,
    /// The lines that are not part of the request, to name back to the player: what
    /// follows `undo`, `agree` or `decline` written on a line of its own.
    pub left_out: Vec<String>,
}

/// What was wrong with a message that names one of the referee's words but does not
/// use it as it must be used, and what would be accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misused {
    pub problem: String,
    pub accepted: String,
}

/// Reads a player's text (the intake's `move_text`): `note:` lines are taken out, then
/// the first word says what the rest is. `undo`, `agree` and `decline` take nothing
/// after them: written on a line of their own, they are the request, and the lines
/// below ("Sorry, I clicked too fast.") are left out, not read as a move. `today` is
/// the day number of now (UTC).
///
/// # Errors
/// A referee's word used wrongly (`away` without a date, a date past or too far).
pub fn read(text: &str, today: u64) -> Result<Message, Misused> {
    let mut notes = Vec::new();
    let mut kept = Vec::new();
    for line in text.lines() {
        match note_of(line) {
            Some(note) if !note.is_empty() => notes.push(note),
            Some(_) => {}
            None => kept.push(line),
        }
    }
    let rest = kept.join("\n");
    let rest = rest.trim();
    if let Some((first, below)) = rest.split_once('\n') {
        let alone = match first.trim().to_ascii_lowercase().as_str() {
            "undo" => Some(Request::Undo),
            "agree" => Some(Request::Agree),
            "decline" => Some(Request::Decline),
            _ => None,
        };
        if let Some(request) = alone {
            // Nothing is applied for these words but the word: what follows them is
            // named back rather than refused with them.
            let left_out = below
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .map(str::to_string)
                .collect();
            return Ok(Message {
                request,
                notes,
                left_out,
            });
        }
    }
    let (word, after) = first_word(rest);
    let request = match word.to_ascii_lowercase().as_str() {
        "" => Request::Nothing,
        "preview" => {
            if after.is_empty() {
                return Err(Misused {
                    problem: "`preview` needs the move to preview after it".into(),
                    accepted: "Write `preview` and then your whole turn, as you would send it."
                        .into(),
                });
            }
            Request::Preview(after.to_string())
        }
        "moves" => Request::Moves(filter_of(after)),
        "undo" if after.is_empty() => Request::Undo,
        "agree" if after.is_empty() => Request::Agree,
        "decline" if after.is_empty() => Request::Decline,
        "back" if after.is_empty() => Request::Back,
        "away" => Request::Away {
            until_day: away_until(after, today)?,
        },
        "pictures" | "picture" => match after.to_ascii_lowercase().as_str() {
            "on" | "yes" => Request::Pictures { on: true },
            "off" | "no" | "none" => Request::Pictures { on: false },
            _ => {
                return Err(Misused {
                    problem: "`pictures` needs `on` or `off` after it".into(),
                    accepted: "Write `pictures off` for the board as text only, or `pictures on` to have its picture again.".into(),
                })
            }
        },
        "digest" => match after.to_ascii_lowercase().as_str() {
            "daily" | "on" | "yes" => Request::Digest(Delivery::Daily),
            "turn" | "turns" | "my turn" | "with my turn" => Request::Digest(Delivery::WithMyTurn),
            "off" | "no" | "none" | "never" | "every move" => Request::Digest(Delivery::EveryMove),
            _ => {
                return Err(Misused {
                    problem: "`digest` needs `turn`, `daily` or `off` after it".into(),
                    accepted: "Write `digest turn` to have what happened with your next turn notice (the default), `digest daily` to have the others' moves together once a day, or `digest off` to have every move's mail as it happens.".into(),
                })
            }
        },
        _ => Request::Move(rest.to_string()),
    };
    Ok(Message {
        request,
        notes,
        left_out: Vec::new(),
    })
}

/// The note of a `note: ...` line, squeezed and cut to [`MAX_NOTE_CHARS`]; `None` for
/// any other line.
fn note_of(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    let head = trimmed.get(..5)?;
    if !head.eq_ignore_ascii_case("note:") {
        return None;
    }
    let words: Vec<&str> = trimmed[5..].split_whitespace().collect();
    Some(
        words
            .join(" ")
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_NOTE_CHARS)
            .collect(),
    )
}

fn first_word(text: &str) -> (&str, &str) {
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    (&text[..end], text[end..].trim())
}

/// `moves`, `moves C5`, `moves at C5`, `moves tile C`, `moves C5 tile C`.
fn filter_of(words: &str) -> MoveFilter {
    let mut filter = MoveFilter::default();
    let mut words = words.split(|c: char| c.is_whitespace() || c == ',');
    while let Some(word) = words.next() {
        match word.to_ascii_lowercase().as_str() {
            "" => {}
            "at" | "on" => filter.at = words.next().map(str::to_string),
            "tile" | "card" | "piece" => filter.tile = words.next().map(str::to_string),
            _ if filter.at.is_none() => filter.at = Some(word.to_string()),
            _ => filter.tile = Some(word.to_string()),
        }
    }
    filter
}

/// The day of `away until 2026-12-01` (also `away till`, `away to`, or the date
/// alone), checked to lie from today to [`MAX_AWAY_DAYS`] ahead.
fn away_until(words: &str, today: u64) -> Result<u64, Misused> {
    let accepted = format!(
        "Write `away until YYYY-MM-DD`, a date from today to {MAX_AWAY_DAYS} days ahead, e.g. `away until {}`.",
        date_text(today + 14)
    );
    let date = words
        .split_whitespace()
        .find(|word| !["until", "till", "to"].contains(&word.to_ascii_lowercase().as_str()));
    let Some(day) = date.and_then(day_of) else {
        return Err(Misused {
            problem: "`away` needs the date you will be back".into(),
            accepted,
        });
    };
    if day < today {
        return Err(Misused {
            problem: format!("{} has passed", date_text(day)),
            accepted,
        });
    }
    if day > today + MAX_AWAY_DAYS {
        return Err(Misused {
            problem: format!("{} is more than {MAX_AWAY_DAYS} days ahead", date_text(day)),
            accepted,
        });
    }
    Ok(day)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: u64 = 20_415; // 2025-11-23

    #[test]
    fn the_first_word_says_what_a_message_asks() {
        let read = |text: &str| read(text, TODAY).expect(text).request;
        assert_eq!(
            read("place E,W at A7"),
            Request::Move("place E,W at A7".into())
        );
        assert_eq!(
            read("Preview place E,W at A7"),
            Request::Preview("place E,W at A7".into())
        );
        assert_eq!(read("moves"), Request::Moves(MoveFilter::default()));
        assert_eq!(
            read("moves c5 tile C"),
            Request::Moves(MoveFilter {
                at: Some("c5".into()),
                tile: Some("C".into())
            })
        );
        assert_eq!(
            read("moves tile V"),
            Request::Moves(MoveFilter {
                at: None,
                tile: Some("V".into())
            })
        );
        assert_eq!(read("UNDO"), Request::Undo);
        assert_eq!(read("agree"), Request::Agree);
        assert_eq!(read(" decline "), Request::Decline);
        assert_eq!(read("back"), Request::Back);
        assert_eq!(
            read("away until 2025-12-01"),
            Request::Away {
                until_day: TODAY + 8
            }
        );
        // A move that happens to start with one of the words is still a move.
        assert_eq!(read("undo me; pass"), Request::Move("undo me; pass".into()));
    }

    #[test]
    fn a_word_that_stands_alone_leaves_the_lines_below_it_out() {
        for (text, request) in [
            ("undo\nSorry, I clicked too fast.", Request::Undo),
            ("Agree\nGood game so far!\n\nBob", Request::Agree),
            ("decline\nplace E,W at A7", Request::Decline),
        ] {
            let message = read(text, TODAY).expect(text);
            assert_eq!(message.request, request, "{text}");
            let below: Vec<&str> = text.lines().skip(1).filter(|l| !l.is_empty()).collect();
            assert_eq!(message.left_out, below, "{text}");
        }
        // Notes are still notes; the word alone leaves nothing out.
        let message = read("note: sorry!\nundo", TODAY).expect("reads");
        assert_eq!(message.request, Request::Undo);
        assert_eq!(message.notes, ["sorry!"]);
        assert!(message.left_out.is_empty());
        // Words that take what follows them are unchanged.
        assert_eq!(
            read("preview\nplace E,W at A7", TODAY)
                .expect("reads")
                .request,
            Request::Preview("place E,W at A7".into())
        );
        assert_eq!(
            read("back\nplace E,W at A7", TODAY).expect("reads").request,
            Request::Move("back\nplace E,W at A7".into())
        );
    }

    #[test]
    fn notes_are_taken_out_of_the_move_and_cut_to_size() {
        let message = read(
            "place E,W at A7\nnote: nice try, Bob!\nNOTE:   second   line ",
            TODAY,
        )
        .expect("reads");
        assert_eq!(message.request, Request::Move("place E,W at A7".into()));
        assert_eq!(message.notes, ["nice try, Bob!", "second line"]);
        let long = format!("note: {}", "x".repeat(2 * MAX_NOTE_CHARS));
        let message = read(&long, TODAY).expect("reads");
        assert_eq!(message.request, Request::Nothing);
        assert_eq!(message.notes[0].chars().count(), MAX_NOTE_CHARS);
    }

    #[test]
    fn a_digest_is_asked_for_and_given_up_by_one_word() {
        for (text, delivery) in [
            ("digest daily", Delivery::Daily),
            ("Digest Daily", Delivery::Daily),
            ("digest on", Delivery::Daily),
            ("digest turn", Delivery::WithMyTurn),
            ("Digest with my turn", Delivery::WithMyTurn),
            ("digest off", Delivery::EveryMove),
            ("digest never", Delivery::EveryMove),
            ("digest every move", Delivery::EveryMove),
        ] {
            assert_eq!(
                read(text, 0).expect("read").request,
                Request::Digest(delivery),
                "{text}"
            );
        }
        let error = read("digest weekly", 0).expect_err("a word without turn, daily or off");
        for word in ["digest turn", "digest daily", "digest off"] {
            assert!(error.accepted.contains(word), "{error:?}");
        }
    }

    #[test]
    fn pictures_are_turned_on_and_off_by_one_word() {
        for (text, on) in [
            ("pictures off", false),
            ("Pictures OFF", false),
            ("picture no", false),
            ("pictures on", true),
        ] {
            assert_eq!(
                read(text, 0).expect(text).request,
                Request::Pictures { on },
                "{text}"
            );
        }
        let error = read("pictures please", 0).expect_err("a word without on or off");
        assert!(error.problem.contains("`on` or `off`"), "{error:?}");
        assert!(error.accepted.contains("pictures off"), "{error:?}");
    }

    #[test]
    fn an_absence_needs_a_date_from_today_to_the_limit() {
        for (text, problem) in [
            ("away", "needs the date"),
            ("away until soon", "needs the date"),
            ("away until 2025-11-01", "has passed"),
            ("away until 2027-01-01", "days ahead"),
        ] {
            let error = read(text, TODAY).expect_err(text);
            assert!(error.problem.contains(problem), "{text}: {error:?}");
            assert!(error.accepted.contains("away until 20"), "{error:?}");
        }
        assert!(read("preview", TODAY).is_err());
    }
}
