//! Mail: reading players' messages, proving who sent them, composing notices from
//! templates, keeping outgoing mail in an outbox until it is sent, and the referee's
//! loop that ties them to the engine.

pub mod archive;
pub mod capability;
pub mod commands;
pub mod compose;
mod deadlines;
mod digest;
mod for_referee;
pub mod imap;
mod in_order;
pub mod intake;
pub mod maildir;
pub mod outbox;
mod receive;
pub mod referee;
pub mod sent;
mod server_url;
pub mod transport;
pub mod watch;

use std::path::{Path, PathBuf};

pub use digest::DIGEST_AFTER;
pub use for_referee::{REFEREE_INTERVAL, STATUS_INTERVAL};
pub use receive::{Handled, STRANGER_INTERVAL, TRIED_INTERVAL};

use crate::ops::OpsError;

/// What can go wrong with mail. Messages never carry a password, a capability of
/// another player, or a secret.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("{0}")]
    Config(String),
    #[error("could not send through {transport}: {error}; the message stays in the outbox (`pbem outbox flush` retries)")]
    Send { transport: String, error: String },
    /// Refused for good (an SMTP 5xx) for `recipients`; any other recipient got it.
    #[error("{transport} refused the message to {} for good: {answer}", recipients.join(", "))]
    Refused {
        transport: String,
        recipients: Vec<String>,
        /// The server's answer, as it said it.
        answer: String,
    },
    /// A mailbox to read from (IMAP) could not be reached or used; its messages wait.
    #[error("{0}")]
    Receive(String),
    #[error("cannot read or write {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("template {name}: {error}")]
    Template { name: String, error: String },
    #[error(transparent)]
    Ops(#[from] OpsError),
}

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

impl MailError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> MailError {
        let path = path.into();
        move |source| MailError::Io { path, source }
    }
}

impl From<crate::engine::session::EngineError> for MailError {
    fn from(error: crate::engine::session::EngineError) -> Self {
        MailError::Ops(OpsError::Engine(error))
    }
}

/// A template's trouble, as mail has always said it.
impl From<crate::words::WordsError> for MailError {
    fn from(error: crate::words::WordsError) -> Self {
        match error {
            crate::words::WordsError::Template { name, error } => {
                MailError::Template { name, error }
            }
            crate::words::WordsError::Io { path, source } => MailError::Io { path, source },
        }
    }
}

impl From<crate::basics::store::StoreError> for MailError {
    fn from(error: crate::basics::store::StoreError) -> Self {
        MailError::Ops(OpsError::Store(error))
    }
}
