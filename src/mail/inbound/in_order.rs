//! Handling a mailbox's messages in the order they arrived, whatever the mailbox (a
//! Maildir, an IMAP folder): the one loop both share, so that they agree on order and
//! on faults.
//!
//! A fault on the referee's side with one message (its game file cannot be read, its
//! lock stays taken, the mailbox cannot be changed) does not hold up the others: that
//! message stays for the next run, and so does every later message for the same game
//! or from the same sender, so no game sees its messages out of order. The first fault
//! is returned once every other message has been handled, so that cron or the caller
//! sees it (and `inbox` exits 75).

use std::path::{Path, PathBuf};

use crate::mail::intake::{self, Incoming};
use crate::mail::outbound::capability::NoticeId;
use crate::mail::MailError;

/// What happened to an incoming message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handled {
    /// applied, refused, stale, duplicate, forged, not-a-player, no-game, unreadable.
    pub outcome: String,
    pub detail: String,
    pub game: Option<PathBuf>,
}

/// What handles one message for the games of a folder (the referee's loop, which
/// answers it): [`handle_in_order`] hands it each message in turn.
pub trait Receiver {
    /// Handles one raw incoming message for the games in `games`.
    ///
    /// # Errors
    /// Only for trouble on the referee's side: the message then stays for the next
    /// run.
    fn receive(&self, games: &Path, raw: &[u8]) -> Result<Handled, MailError>;
}

/// The game id a message names: its subject tag, else the first of our notices it
/// cites.
pub(crate) fn wanted_game(incoming: &Incoming) -> Option<String> {
    let cited = incoming
        .in_reply_to
        .iter()
        .chain(&incoming.references)
        .find_map(|id| NoticeId::parse(id))
        .map(|id| id.game_id);
    incoming.game_tag.clone().or(cited)
}

/// What binds a message to others whose order matters: the game it names and its
/// sender (`game:ID`, `from:ADDRESS`). A run that must leave one message for later
/// leaves every later message that shares one of these too.
fn belongs_to(raw: &[u8]) -> Vec<String> {
    let Ok(incoming) = intake::read_message(raw) else {
        return Vec::new();
    };
    let game = wanted_game(&incoming).map(|id| format!("game:{}", id.to_ascii_lowercase()));
    let sender = incoming
        .from_address
        .map(|address| format!("from:{address}"));
    game.into_iter().chain(sender).collect()
}

/// A mailbox whose messages [`handle_in_order`] handles.
pub(crate) trait Mailbox {
    /// One message, as the mailbox names it.
    type Message;

    /// The message's bytes: at most one more than any message pbem reads, so a larger
    /// one is recognised as too large without reading it all.
    fn read(&mut self, message: &Self::Message) -> Result<Vec<u8>, MailError>;

    /// Marks the message handled, so that no later run handles it again; returns the
    /// name a report shows.
    fn file(&mut self, message: &Self::Message, handled: &Handled) -> Result<String, MailError>;
}

/// Handles `messages` (in the order they arrived) for the games in `games`, filing
/// each in `mailbox` once handled and calling `report` with its name and outcome, until
/// `stop` says to stop (between two messages); returns how many were handled.
///
/// # Errors
/// The first fault on the referee's side, once the messages it did not hold back
/// have been handled; the messages not handled stay for the next run.
pub(crate) fn handle_in_order<M: Mailbox>(
    referee: &dyn Receiver,
    games: &Path,
    mailbox: &mut M,
    messages: impl IntoIterator<Item = M::Message>,
    report: &mut dyn FnMut(&str, &Handled),
    stop: &dyn Fn() -> bool,
) -> Result<usize, MailError> {
    let mut count = 0;
    let mut fault = None;
    let mut held_back: Vec<String> = Vec::new();
    for message in messages {
        if stop() {
            break;
        }
        let raw = match mailbox.read(&message) {
            Ok(raw) => raw,
            Err(error) => {
                // Unread, it cannot say what it belongs to: the ones after it wait too.
                fault.get_or_insert(error);
                break;
            }
        };
        // Read for its game and sender only once a fault holds some back.
        let held =
            !held_back.is_empty() && belongs_to(&raw).iter().any(|key| held_back.contains(key));
        if held {
            continue;
        }
        let handled = match referee.receive(games, &raw) {
            Ok(handled) => handled,
            Err(error) => {
                held_back.extend(belongs_to(&raw));
                fault.get_or_insert(error);
                continue;
            }
        };
        let name = mailbox.file(&message, &handled)?;
        report(&name, &handled);
        count += 1;
    }
    match fault {
        Some(error) => Err(error),
        None => Ok(count),
    }
}
