//! Deadlines: reminders to players who keep a game waiting, and the referee's choice
//! (wait, skip, forfeit) past a longer limit.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::archive::{self, Archive, Waiting};
use super::capability::NoticeId;
use super::outbox::Outbox;
use super::referee::{roster, seats_to_move, Referee};
use super::MailError;
use crate::engine::store;
use crate::engine::Deadline;
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
        for path in super::game_files(games)? {
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
        Ok(reminded)
    }

    /// [`Referee::remind`] for one game, under its lock: what was done, for people.
    fn remind_locked(
        &self,
        path: &Path,
        after: u64,
        deadline: Option<(u64, Deadline)>,
    ) -> Result<Vec<String>, MailError> {
        let now = archive::now();
        let mut reminded = Vec::new();
        let Ok(bytes) = crate::engine::store::read(path) else {
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
        let archive = Archive::beside(path);
        let mut waiting = Waiting::load(&archive)?;
        let view = game.view(None, None)?;
        // Only seats still to move now: a move made without mail (`pbem apply`) leaves
        // the waits as they were.
        let to_move = seats_to_move(&view, &roster);
        if let Some((limit, choice)) = deadline {
            let overdue = waiting.seats.iter().find(|(seat, wait)| {
                now.saturating_sub(wait.since) >= limit && to_move.contains(seat)
            });
            if let Some((&seat, _)) = overdue {
                let name = roster
                    .players
                    .get(seat)
                    .map(|p| p.name.clone())
                    .unwrap_or_default();
                if let Some(text) = game.deadline_move(&name, choice)? {
                    // The referee's move for the player: recorded as theirs, mailed
                    // to everyone like any move.
                    let outcome = self.apply_opened(path, game.as_mut(), &name, &text, &[])?;
                    reminded.push(format!(
                        "{name}: past the deadline, played `{}`",
                        outcome.understood
                    ));
                    return Ok(reminded);
                }
            }
        }
        let mut mail = Vec::new();
        let base = self.context(&view, &roster);
        for (&seat, wait) in waiting.seats.iter_mut() {
            let last = wait.reminded.unwrap_or(wait.since);
            if now.saturating_sub(last) < after || !to_move.contains(&seat) {
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
            context["waiting_days"] = json!(now.saturating_sub(wait.since) / 86_400);
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
            let outbox = Outbox::beside(path);
            let staged = outbox.stage(roster.records.len() as u64, &mail)?;
            outbox.commit(&staged)?;
            waiting.save(&archive)?;
        }
        Ok(reminded)
    }
}
