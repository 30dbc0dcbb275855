//! Mail: reading players' messages, proving who sent them, composing notices from
//! templates, keeping outgoing mail in an outbox until it is sent, and the referee's
//! loop that ties them to the game files.
//!
//! From the bottom up: [`clock`] and [`intake`] (a message parsed) import nothing of
//! mail; [`outbound`] (mail out) imports them; [`inbound`] (mail in: a player's words
//! read as commands, the mailboxes) imports mail out; [`referee`] (the loop, and the
//! operations the command line calls) imports all of them and `ops`; [`setup`] (the
//! settings written and checked end to end) imports mail out and mail in.

pub mod clock;
pub mod inbound;
pub mod intake;
pub mod outbound;
pub mod referee;
pub mod setup;

use std::path::PathBuf;

pub use inbound::in_order::Handled;
pub use referee::TRIED_INTERVAL;
pub use referee::{DIGEST_AFTER, REFEREE_INTERVAL, STATUS_INTERVAL};

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
    /// A pass over a mailbox handled every message it could, and `held` messages (the
    /// ones a fault struck and the later ones for the same games) wait for the next
    /// pass; `fault` is the first fault. The referee has been told by mail.
    #[error(
        "{fault}; {held} message(s) held back wait for the next pass, {handled} other(s) handled"
    )]
    HeldBack {
        fault: Box<MailError>,
        held: usize,
        handled: usize,
    },
}

impl MailError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> MailError {
        let path = path.into();
        move |source| MailError::Io { path, source }
    }
}

impl From<crate::engine::error::EngineError> for MailError {
    fn from(error: crate::engine::error::EngineError) -> Self {
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
