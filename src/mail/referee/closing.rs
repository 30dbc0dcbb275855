//! A game the referee closes before its end (`pbem reveal --force --mail`, for an
//! abandoned game): its seed revealed, and every player told so once, with whatever
//! news was held for them (see `digest`), the signed file and their replay page.

use std::path::Path;

use serde_json::json;

use super::archive::{Archive, Pictures, Waiting};
use super::mailer::{earlier, replay_file_name, replay_pages, roster, Referee};
use crate::basics::store;
use crate::engine::erased::OpenGame;
use crate::mail::outbound::capability::NoticeId;
use crate::mail::outbound::compose::Enclosed;
use crate::mail::outbound::outbox::Outbox;
use crate::mail::outbound::outgoing::Outgoing;
use crate::mail::MailError;
use crate::ops;

/// What [`Referee::close`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed {
    /// Whether this run revealed the seed (an earlier run may have, killed before its
    /// mail was queued).
    pub revealed: bool,
    /// The players told, now.
    pub told: usize,
}

impl Referee {
    /// Reveals the seed of the game at `path` and tells every player, under the game's
    /// lock: the file is written first, then the players' word of it is queued with
    /// the waits (which forget everything held and whom they waited for) as one
    /// change. A run killed between the two is finished by the next: the seed stays
    /// revealed and the word goes once. Sent after the lock is released.
    ///
    /// # Errors
    /// The file cannot be read, verified or written, or the mail cannot be queued.
    pub fn close(&self, path: &Path) -> Result<Closed, MailError> {
        let path = &store::resolve(path);
        let closed = {
            let _lock = store::lock(path)?;
            let mut game = ops::open_bytes(&store::read(path)?, Some(self.keyring()), true)?;
            let before = roster(game.as_ref())?;
            self.check_key(path, &before)?;
            self.repair(path, before.records.len() as u64)?;
            let revealed = game.seed_revealed().is_none();
            if revealed {
                game.reveal(self.keyring())?;
                ops::write_game(path, game.as_ref(), self.keyring())?;
            }
            let archive = Archive::beside(path);
            let mut waiting = Waiting::load(&archive)?;
            let mut told = 0;
            // A game over has had its end mail, which says all this.
            let over = game.view(None, None)?["over"] == true;
            if !waiting.closed && !over {
                let mail = self.closing_notices(path, game.as_ref(), &mut waiting)?;
                told = mail.len();
                waiting.closed = true;
                waiting.seats.clear();
                waiting.held.clear();
                let records = game.turns();
                waiting.save_with_mail(&archive, &Outbox::beside(path), records, &mail)?;
            }
            Closed { revealed, told }
        };
        if closed.told > 0 {
            self.try_flush(&Outbox::beside(path));
        }
        Ok(closed)
    }

    /// Each player's word that the game is closed: what was held for them, the board,
    /// the revealed seed, the signed file and their replay page.
    fn closing_notices(
        &self,
        path: &Path,
        game: &dyn OpenGame,
        waiting: &mut Waiting,
    ) -> Result<Vec<Outgoing>, MailError> {
        let roster = roster(game)?;
        let records = roster.records.len() as u64;
        let view = game.view(None, None)?;
        let mut base = self.context(&view, &roster);
        base["turn"] = json!(roster.standing());
        let pictures = Pictures::load(&Archive::beside(path))?;
        let mut pages = replay_pages(game, &roster);
        let mut mail = Vec::new();
        for (seat, player) in roster.players.iter().enumerate() {
            let (board, _) = self.personal(game, &player.name)?;
            let mut context = base.clone();
            context["player"] = json!(player.name);
            context["board"] = json!(board.trim_end());
            if let Some(held) = waiting.held.get(&seat) {
                context["earlier"] = earlier(held);
            }
            let sent = (&mut waiting.pictured, &roster, false);
            let picture = self.picture(game, (player, seat), &pictures, sent);
            if picture.is_some() {
                context["picture"] = json!(crate::mail::outbound::compose::PICTURE_NAME);
            }
            let page = pages
                .remove(player.name.as_str())
                .map(|page| (replay_file_name(path), page));
            if let Some((name, _)) = &page {
                context["replay"] = json!(name);
            }
            let id = NoticeId {
                game_id: roster.id.clone(),
                turn: records + 1,
                seat,
                kind: "closed".to_string(),
                code: self.secret.reply_code(&roster.id, seat, records + 1),
            };
            let enclosed = Enclosed {
                attachment: Some(self.game_file_attachment(path, game.bytes())),
                picture,
                page,
            };
            if let Some(message) =
                self.draft_enclosing("game-closed.txt", &context, player, id, None, enclosed)?
            {
                mail.push(message);
            }
        }
        Ok(mail)
    }
}
