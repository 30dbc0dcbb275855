//! Digests: the notices of moves held for a player, sent together. A player on the
//! daily digest (`digest daily`) gets what is held in one message a day after the
//! oldest of it; one who asks for every move's mail (`digest off`) gets what was held
//! at once. Held notices go with any mail the player gets sooner (see
//! `Referee::notices`), and for a player on the default (`digest turn`) that next mail
//! is the only way they go: nothing is sent here for them.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::archive::{self, Archive, Delivery, Digests, Waiting};
use super::mailer::{earlier, roster, Referee};
use crate::basics::store;
use crate::mail::outbound::capability::NoticeId;
use crate::mail::outbound::compose::Enclosed;
use crate::mail::outbound::outbox::Outbox;
use crate::mail::MailError;
use crate::ops;

/// How long the oldest held notice waits before its digest goes: a day.
pub const DIGEST_AFTER: u64 = 86_400;

impl Referee {
    /// Sends every digest due in the games of `games`: what is held for a seat whose
    /// oldest held notice is [`DIGEST_AFTER`] old, or who gave the digest up. Returns
    /// what was sent, for people.
    ///
    /// # Errors
    /// Trouble with the referee's own files.
    pub fn send_digests(&self, games: &Path) -> Result<Vec<(PathBuf, String)>, MailError> {
        let mut sent = Vec::new();
        for path in super::games::game_files(games)? {
            // Most games hold nothing: known from the waits alone, without opening
            // the game or taking its lock.
            if Waiting::load(&Archive::beside(&path))?.held.is_empty() {
                continue;
            }
            let done = {
                let _lock = store::lock(&path)?;
                self.digests_locked(&path)?
            };
            if !done.is_empty() {
                // Sent after the game's lock is released, like every notice.
                self.try_flush(&Outbox::beside(&path));
            }
            sent.extend(done.into_iter().map(|what| (path.clone(), what)));
        }
        Ok(sent)
    }

    /// [`Referee::send_digests`] for one game, under its lock.
    fn digests_locked(&self, path: &Path) -> Result<Vec<String>, MailError> {
        let now = crate::mail::clock::now();
        let Ok(bytes) = store::read(path) else {
            return Ok(Vec::new());
        };
        let Ok(game) = ops::open_bytes(&bytes, Some(&self.keyring), true) else {
            return Ok(Vec::new());
        };
        let roster = roster(game.as_ref())?;
        let records = roster.records.len() as u64;
        self.repair(path, records)?;
        let archive = Archive::beside(path);
        let mut waiting = Waiting::load(&archive)?;
        let digests = Digests::load(&archive)?;
        // A game that takes no more moves (closed by the referee without mail) has
        // no next mail to carry what was held: it all goes now.
        let closed = game.seed_revealed().is_some();
        let due: Vec<usize> = waiting
            .held
            .iter()
            .filter(|(seat, held)| {
                closed
                    || match digests.delivery(**seat) {
                        // Given up: what was held goes now.
                        Delivery::EveryMove => true,
                        Delivery::Daily => held
                            .first()
                            .is_some_and(|oldest| now.saturating_sub(oldest.at) >= DIGEST_AFTER),
                        // Held for the player's next mail, however long.
                        Delivery::WithMyTurn => false,
                    }
            })
            .map(|(&seat, _)| seat)
            .collect();
        if due.is_empty() {
            return Ok(Vec::new());
        }
        let view = game.view(None, None)?;
        let base = self.context(&view, &roster);
        let pictures = archive::Pictures::load(&archive)?;
        let mut mail = Vec::new();
        let mut done = Vec::new();
        for seat in due {
            let (Some(held), Some(player)) = (waiting.held.remove(&seat), roster.players.get(seat))
            else {
                continue;
            };
            let (board, _) = self.personal(game.as_ref(), &player.name)?;
            let mut context = base.clone();
            context["player"] = json!(player.name);
            context["board"] = json!(board.trim_end());
            context["earlier"] = earlier(&held);
            context["count"] = json!(held.len());
            context["since"] = json!(held
                .first()
                .map(|oldest| crate::mail::clock::utc_text(oldest.at)));
            let sent = (&mut waiting.pictured, &roster, true);
            let picture = self.picture(game.as_ref(), (player, seat), &pictures, sent);
            if picture.is_some() {
                context["picture"] = json!(crate::mail::outbound::compose::PICTURE_NAME);
            }
            let id = NoticeId {
                game_id: roster.id.clone(),
                turn: records + 1,
                seat,
                kind: format!("digest{now}"),
                code: self.secret.reply_code(&roster.id, seat, records + 1),
            };
            let enclosed = Enclosed {
                picture,
                ..Enclosed::default()
            };
            if let Some(message) =
                self.draft_enclosing("digest.txt", &context, player, id, None, enclosed)?
            {
                mail.push(message);
                let moves = if held.len() == 1 { "move" } else { "moves" };
                done.push(format!(
                    "digest of {} {moves} to {}",
                    held.len(),
                    player.name
                ));
            }
        }
        // Queued with the waits that forget what they held, as one change: sent once.
        waiting.save_with_mail(&archive, &Outbox::beside(path), records, &mail)?;
        Ok(done)
    }
}
