//! The game files of a folder, as the referee's loop reads them, and a game's own
//! mail settings kept in its archive (pictures on or off).

use std::path::{Path, PathBuf};

use super::archive;
use crate::mail::MailError;

/// The game files in a folder (`*.json`, regular files only: a link, fifo or device
/// planted there is never opened), sorted by name.
///
/// # Errors
/// The folder cannot be listed.
pub fn game_files(games: &Path) -> Result<Vec<PathBuf>, MailError> {
    let listing = std::fs::read_dir(games).map_err(MailError::io(games))?;
    let mut paths: Vec<PathBuf> = listing
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter(|path| crate::basics::store::is_regular_file(path))
        .collect();
    paths.sort();
    Ok(paths)
}

/// `pbem pictures FILE on|off [--player NAME]`: the board's picture in the game's
/// mail, for the whole game or one player (as that player's `pictures on|off` reply
/// does); what now holds, for the referee.
///
/// # Errors
/// Not a game file, an unknown player, or the archive cannot be written.
pub fn set_pictures(path: &Path, player: Option<&str>, on: bool) -> Result<String, MailError> {
    let _lock = crate::basics::store::lock(path)?;
    let game = crate::ops::open(path, None)?;
    let names: Vec<String> = game
        .genesis()
        .players
        .iter()
        .map(|p| p.name.clone())
        .collect();
    let archive = archive::Archive::beside(path);
    let mut pictures = archive::Pictures::load(&archive)?;
    let said = match player {
        None => {
            pictures.game_off = !on;
            format!(
                "pictures {} for every player of {}",
                if on { "on" } else { "off" },
                path.display()
            )
        }
        Some(name) => {
            let seat = names
                .iter()
                .position(|known| known.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    MailError::Config(format!(
                        "{} has no player `{}`; its players are {}",
                        path.display(),
                        crate::basics::echo::shortened(name, crate::basics::echo::QUOTE_CHARS),
                        names.join(", ")
                    ))
                })?;
            if on {
                pictures.seats_off.remove(&seat);
            } else {
                pictures.seats_off.insert(seat);
            }
            let game_note = if on && pictures.game_off {
                " (pictures are off for the whole game: `pbem pictures FILE on` turns them on)"
            } else {
                ""
            };
            format!(
                "pictures {} for {}{game_note}",
                if on { "on" } else { "off" },
                names[seat]
            )
        }
    };
    pictures.save(&archive)?;
    Ok(said)
}
