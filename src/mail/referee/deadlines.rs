//! Deadlines: reminders to players who keep a game waiting, and the referee's choice
//! (wait, skip, forfeit) past a longer limit.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::archive::{Archive, Waiting};
use super::mailer::{roster, seats_to_move, Origin, Referee};
use crate::basics::store;
use crate::engine::Deadline;
use crate::mail::outbound::capability::NoticeId;
use crate::mail::outbound::outbox::Outbox;
use crate::mail::MailError;
use crate::ops;

impl Referee {
    /// Mails a reminder to each player who has kept a game in `games` waiting longer
    /// than `after` seconds, at most once per `after`; past `deadline` (seconds since
    /// the turn notice, with the referee's choice), skips the player's turn where the
    /// rules allow it, or submits their forfeit, and mails everyone as after any move.
    ///
    /// # Errors
    /// Trouble with the referee's own files.
    pub fn remind(
        &self,
        games: &Path,
        after: u64,
        deadline: Option<(u64, Deadline)>,
    ) -> Result<Vec<(PathBuf, String)>, MailError> {
        let mut reminded = Vec::new();
        for path in super::games::game_files(games)? {
            let done = {
                let _lock = store::lock(&path)?;
                self.remind_locked(&path, after, deadline)?
            };
            if !done.is_empty() {
                // Sent after the game's lock is released, like every notice.
                self.try_flush(&Outbox::beside(&path));
            }
            reminded.extend(done.into_iter().map(|what| (path.clone(), what)));
        }
        // The day's digests go with the reminders' pass.
        reminded.extend(self.send_digests(games)?);
        // A run from cron is also when the referee hears of the mail only they should
        // read, should none have come since the day began.
        self.tell_referee(games)?;
        Ok(reminded)
    }

    /// [`Referee::remind`] for one game, under its lock: what was done, for people.
    fn remind_locked(
        &self,
        path: &Path,
        after: u64,
        deadline: Option<(u64, Deadline)>,
    ) -> Result<Vec<String>, MailError> {
        let now = crate::mail::clock::now();
        let mut reminded = Vec::new();
        let Ok(bytes) = crate::basics::store::read(path) else {
            return Ok(reminded);
        };
        let Ok(mut game) = ops::open_bytes(&bytes, Some(&self.keyring), true) else {
            return Ok(reminded);
        };
        let roster = roster(game.as_ref())?;
        if roster.seed.is_some() {
            // Over, or revealed and closed: nobody is waited for.
            return Ok(reminded);
        }
        self.repair(path, roster.records.len() as u64)?;
        let archive = Archive::beside(path);
        let mut waiting = Waiting::load(&archive)?;
        let view = game.view(None, None)?;
        // Only seats still to move now: a move made without mail (`pbem apply`) leaves
        // the waits as they were.
        let to_move = seats_to_move(&view, &roster);
        if let Some((limit, choice)) = deadline {
            // An absence pauses the clock: it runs from the notice or the absence's
            // end, whichever is later.
            let overdue = waiting.seats.keys().copied().find(|&seat| {
                to_move.contains(&seat)
                    && waiting
                        .clock_start(seat)
                        .is_some_and(|start| now.saturating_sub(start) >= limit)
            });
            if let Some(seat) = overdue {
                let name = roster
                    .players
                    .get(seat)
                    .map(|p| p.name.clone())
                    .unwrap_or_default();
                if let Some(text) = game.deadline_move(&name, choice)? {
                    // The referee's move for the player: recorded as theirs, mailed
                    // to everyone like any move.
                    let origin = Origin::Deadline(choice);
                    let outcome =
                        self.apply_opened(path, game.as_mut(), &name, &text, &[], origin)?;
                    reminded.push(format!(
                        "{name}: past the deadline, played `{}`",
                        outcome.understood
                    ));
                    return Ok(reminded);
                }
                let what = match choice {
                    Deadline::Skip => "skip",
                    Deadline::Forfeit => "forfeit",
                };
                reminded.push(format!(
                    "{name}: past the deadline, but the rules allow no {what} now; reminded instead"
                ));
            }
        }
        let mut mail = Vec::new();
        let base = self.context(&view, &roster);
        let away = waiting.away.clone();
        for (&seat, wait) in waiting.seats.iter_mut() {
            let back = away.get(&seat).copied().unwrap_or(0);
            let last = wait.reminded.unwrap_or(wait.since).max(back);
            if now < back || now.saturating_sub(last) < after || !to_move.contains(&seat) {
                continue;
            }
            let Some(player) = roster.players.get(seat) else {
                continue;
            };
            let (board, example) = self.personal(game.as_ref(), &player.name)?;
            let mut context = base.clone();
            context["player"] = json!(player.name);
            context["board"] = json!(board.trim_end());
            context["example"] = json!(example);
            context["code"] = json!(self.secret.reply_code(&roster.id, seat, wait.turn));
            context["waiting_for"] = json!(how_long(now.saturating_sub(wait.since)));
            // The deadline and what the referee does past it, so a reminder is never
            // a threat without a date: the clock runs from the notice or the end of an
            // absence, as the deadline pass above reckons it.
            if let Some((limit, choice)) = deadline {
                let start = wait.since.max(back);
                context["deadline"] =
                    json!(crate::mail::clock::utc_text(start.saturating_add(limit)));
                let allowed = game.deadline_move(&player.name, choice)?.is_some();
                context["after_deadline"] = json!(match (choice, allowed) {
                    (Deadline::Skip, true) => "skip",
                    (Deadline::Forfeit, true) => "forfeit",
                    (_, false) => "remind",
                });
            }
            let id = NoticeId {
                game_id: roster.id.clone(),
                turn: wait.turn,
                seat,
                kind: format!("remind{now}"),
                code: self.secret.reply_code(&roster.id, seat, wait.turn),
            };
            if let Some(message) = self.draft("reminder.txt", &context, player, id, None, None)? {
                mail.push(message);
                reminded.push(format!("reminded {}", player.name));
            }
            wait.reminded = Some(now);
        }
        if !mail.is_empty() {
            // Queued with the waits that record them, as one change: sent once.
            let records = roster.records.len() as u64;
            waiting.save_with_mail(&archive, &Outbox::beside(path), records, &mail)?;
        }
        Ok(reminded)
    }
}

/// A wait in words: "3 days", "1 day", "5 hours", "less than an hour".
pub(crate) fn how_long(seconds: u64) -> String {
    let plural = |n: u64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    match seconds {
        0..3_600 => "less than an hour".to_string(),
        3_600..86_400 => plural(seconds / 3_600, "hour"),
        _ => plural(seconds / 86_400, "day"),
    }
}

#[cfg(test)]
mod tests {
    use super::how_long;

    #[test]
    fn a_wait_is_told_in_the_largest_whole_unit() {
        assert_eq!(how_long(59), "less than an hour");
        assert_eq!(how_long(3_600), "1 hour");
        assert_eq!(how_long(7 * 3_600 + 5), "7 hours");
        assert_eq!(how_long(86_400), "1 day");
        assert_eq!(how_long(3 * 86_400 + 100), "3 days");
    }
}
