//! The key a bot's seat chooses its move with (docs/FAIRNESS.md, "Bots' seats"):
//! derived from the seed and the game, never from the system, so the referee cannot
//! run a bot again until its move leads to draws they like, and the audit plays every
//! such move again once it has the seed.

use super::error::{EngineError, Result};
use super::fairness::Seed;
use super::file::Version;
use super::players::BotId;
use super::rules::{Rules, Seat};
use super::session::Game;
use super::undo::Ledger;
use crate::basics::digest::Hash;

impl<R: Rules> Game<R> {
    /// Whether the seat `bot` takes chooses its moves with the stream of
    /// [`Game::bot_key`], which the audit checks: in format 4, for a bot genesis names
    /// with its version. Older formats, and files naming a bot without a version, had
    /// its moves chosen with randomness from the system, which nobody can play again.
    pub(crate) fn bot_keyed(&self, bot: &BotId) -> bool {
        self.version == Version::V4 && bot.version.is_some()
    }

    /// The key of the stream the bot `bot_id` (named as genesis names it after
    /// `bot:`, `search/1`) chooses the move of `seat` with, that move being record
    /// `turn` (made now, or replayed by the audit), and `ledger` the ledger with that
    /// move read ([`Game::ledger_with`] for one made now): `history` is the standing
    /// history before the round the move belongs to (so the order in which the round's
    /// other moves arrived changes nothing), and `n` the number of the seat's moves
    /// already standing in that round.
    ///
    /// # Errors
    /// A record the history is read from is missing (outside a window) or has none.
    pub(crate) fn bot_key(
        &self,
        seed: &Seed,
        ledger: &Ledger,
        (turn, seat): (u64, Seat),
        bot_id: &str,
    ) -> Result<Hash> {
        let inputs = ledger.round_inputs();
        let before = self.history_before_round(ledger, turn)?;
        let n = inputs
            .moves
            .iter()
            .filter(|&&(made, of)| of == seat && made != turn)
            .count();
        let n = u32::try_from(n)
            .map_err(|_| EngineError::Malformed(format!("{n} moves of one seat in a round")))?;
        let seat = u32::try_from(seat)
            .map_err(|_| EngineError::Malformed(format!("seat {seat} is out of range")))?;
        Ok(seed.bot_key(&self.genesis_body()?, &before, seat, n, bot_id))
    }
}
