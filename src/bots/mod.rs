//! Built-in players (`random`, `greedy`, `search`): each chooses a move for one seat from what that seat may see, so
//! the same player serves `pbem simulate`, tests and a bot's seat in a mail game.
//!
//! How a bot is kept from seeing hidden state: it is handed a [`SeatView`] and nothing
//! else. A view holds the state as its seat knows it ([`Rules::seat_state`]: the public
//! state plus the seat's own hidden material) and lists the seat's legal moves; the
//! full state it was made from sits in a private field of the `view` module, which no
//! bot module can read. Whatever a bot plays ahead on is that known state, with its own
//! random stream standing in for draws, so two positions that differ only in what the
//! seat cannot see give a bot the same view and the same choice (tested below).

mod greedy;
mod random;
mod search;
mod view;

pub use view::SeatView;

use crate::engine::chance::DrawStream;
use crate::engine::players::{BotId, BotPlayers, NotPlayed};
use crate::engine::rules::{Rules, Seat};

/// The kinds of built-in player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bot {
    /// A legal move as the rules draw one at random ([`Rules::sample_move`]): in the
    /// desert kingdom any entry of the legal list with equal chance; the right of way
    /// and the triangle auction draw their own way (docs/balance.md, "The players").
    Random,
    /// The best move one move ahead by the game's scores.
    Greedy,
    /// Flat Monte Carlo over states determinised from what the seat knows.
    Search,
}

impl Bot {
    /// Every bot, in the order help and refusals list them.
    pub const ALL: [Bot; 3] = [Bot::Random, Bot::Greedy, Bot::Search];

    /// The name `--bot` takes.
    pub fn name(self) -> &'static str {
        match self {
            Bot::Random => "random",
            Bot::Greedy => "greedy",
            Bot::Search => "search",
        }
    }

    /// The version of this bot's choices, which a game's genesis names with it
    /// (`bot:search/1`) so the audit can play its moves again. Raise it with any change
    /// that could make the bot choose otherwise from the same position and stream: its
    /// algorithm, its budget ([`search::BUDGET`]), the order it reads moves or draws
    /// from its stream in. A game naming a version this pbem does not have is not
    /// played, nor its bot's moves checked, by it.
    pub const fn version(self) -> u32 {
        match self {
            Bot::Random => 1,
            Bot::Greedy => 1,
            Bot::Search => 1,
        }
    }

    /// This bot as genesis names it: its name and version.
    pub fn id(self) -> BotId {
        BotId {
            name: self.name().to_string(),
            version: Some(self.version()),
        }
    }

    /// The bot called `name` (any case).
    ///
    /// # Errors
    /// An unknown name, with the known ones.
    pub fn parse(name: &str) -> Result<Bot, String> {
        Bot::ALL
            .into_iter()
            .find(|bot| bot.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                format!(
                    "there is no bot {name:?}; the bots are {}",
                    Bot::ALL.map(Bot::name).join(", ")
                )
            })
    }

    /// The move text this bot sends for the view's seat; `None` when it has no move.
    /// `rng` is the bot's own stream: its choices, and the draws it imagines when it
    /// plays ahead, never the game's.
    pub fn choose<R: Rules>(self, view: &SeatView<'_, R>, rng: &mut DrawStream) -> Option<String> {
        match self {
            Bot::Random => random::choose(view, rng),
            Bot::Greedy => greedy::choose(view, rng),
            Bot::Search => search::choose(view, rng),
        }
    }
}

/// pbem's built-in players as the engine asks for them ([`BotPlayers`]): every game's
/// driver is given them in the games' registry, to play a bot's seat by mail and to
/// play its moves again in the audit.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltIn;

impl<R: Rules> BotPlayers<R> for BuiltIn {
    fn known(&self) -> Vec<BotId> {
        Bot::ALL.map(Bot::id).to_vec()
    }

    fn play(
        &self,
        bot: &BotId,
        rules: &R,
        state: &R::State,
        seat: Seat,
        rng: &mut DrawStream,
    ) -> Result<Option<String>, NotPlayed> {
        let played = Bot::ALL
            .into_iter()
            .find(|played| bot.is(&played.id()))
            .ok_or(NotPlayed)?;
        // The bot is handed its seat's view alone, never the full state.
        Ok(played.choose(&SeatView::new(rules, state, seat), rng))
    }
}

impl std::fmt::Display for Bot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
