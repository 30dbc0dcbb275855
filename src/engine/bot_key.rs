//! The key a bot's seat chooses its move with (docs/FAIRNESS.md, "Bots' seats"):
//! derived from the seed and the game, never from the system, so the referee cannot
//! run a bot again until its move leads to draws they like, and the audit plays every
//! such move again once it has the seed.

use super::digest::{hash_from_hex, Hash};
use super::fairness::Seed;
use super::file::Version;
use super::players::BotId;
use super::rules::{Rules, Seat};
use super::session::{EngineError, Game, Result};

impl<R: Rules> Game<R> {
    /// Whether the seat `bot` takes chooses its moves with the stream of
    /// [`Game::bot_key`], which the audit checks: in the newest format, for a bot
    /// genesis names with its version. Older formats, and files naming a bot without
    /// a version, had its moves chosen with randomness from the system, which nobody
    /// can play again.
    pub(crate) fn bot_keyed(&self, bot: &BotId) -> bool {
        self.version == Version::V3 && bot.version.is_some()
    }

    /// The key of the stream the bot `bot_id` (named as genesis names it after
    /// `bot:`, `search/1`) chooses the move of `seat` with, that move being record
    /// `turn` (made now, or replayed by the audit): `history` is the standing history
    /// before the round the move belongs to, and `n` the number of the seat's moves
    /// already standing in that round, both read from the records before `turn`.
    ///
    /// # Errors
    /// A genesis whose body or hash does not read.
    pub(crate) fn bot_key(&self, seed: &Seed, turn: u64, seat: Seat, bot_id: &str) -> Result<Hash> {
        let body = self.genesis_body()?;
        // history: see format 4. Until its hash chain of the standing rounds lands, the
        // genesis hash stands for it and n is 0, so every move of a seat is keyed
        // alike; `turn` is what the history will be read up to.
        let _ = turn;
        let history = hash_from_hex(&self.file.genesis.hash).ok_or_else(|| {
            EngineError::Malformed("the genesis hash is not 64 lowercase hexadecimal digits".into())
        })?;
        let n = 0;
        let seat = u32::try_from(seat)
            .map_err(|_| EngineError::Malformed(format!("seat {seat} is out of range")))?;
        Ok(seed.bot_key(&body, &history, seat, n, bot_id))
    }
}
