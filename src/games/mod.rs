//! The games pbem plays. Adding a game: a folder here and one line in [`GAMES`].

pub mod right_of_way;

use crate::engine::driver::{Driver, GameDriver};

/// Every game, by name.
pub static GAMES: &[&dyn GameDriver] = &[&Driver::<right_of_way::RightOfWay>::new()];

/// The game called `name`.
pub fn find(name: &str) -> Option<&'static dyn GameDriver> {
    GAMES.iter().copied().find(|game| game.name() == name)
}

/// The names of all games, for messages.
pub fn names() -> Vec<&'static str> {
    GAMES.iter().map(|game| game.name()).collect()
}
