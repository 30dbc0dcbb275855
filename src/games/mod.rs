//! The games pbem plays. Adding a game: a folder here and one line in [`GAMES`].

pub mod desert_kingdom;
pub mod right_of_way;
pub mod triangle_auction;

use std::sync::OnceLock;

use crate::bots::BuiltIn;
use crate::engine::driver::{Driver, GameDriver};

/// Every game, by name, each with pbem's built-in players for the seats bots take.
pub static GAMES: &[&dyn GameDriver] = &[
    &Driver::<right_of_way::RightOfWay>::played_by(&BuiltIn),
    &Driver::<triangle_auction::TriangleAuction>::played_by(&BuiltIn),
    &Driver::<desert_kingdom::DesertKingdom>::played_by(&BuiltIn),
];

/// Games a program built on the library plays besides [`GAMES`] (the tests' own games,
/// which pbem does not ship).
static ADDED: OnceLock<&'static [&'static dyn GameDriver]> = OnceLock::new();

/// Adds games to those [`find`] knows, once, before any is looked up: for a program
/// that runs pbem's command line with games of its own. `false` when games were added
/// already (the first list stays).
pub fn add(games: &'static [&'static dyn GameDriver]) -> bool {
    ADDED.set(games).is_ok()
}

fn all() -> impl Iterator<Item = &'static dyn GameDriver> {
    GAMES
        .iter()
        .chain(ADDED.get().copied().unwrap_or_default())
        .copied()
}

/// The game called `name`.
pub fn find(name: &str) -> Option<&'static dyn GameDriver> {
    all().find(|game| game.name() == name)
}

/// The names of all games, for messages.
pub fn names() -> Vec<&'static str> {
    all().map(|game| game.name()).collect()
}
