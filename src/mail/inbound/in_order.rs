//! Handling a mailbox's messages in the order they arrived, whatever the mailbox (a
//! Maildir, an IMAP folder): the one loop both share, so that they agree on order and
//! on faults.
//!
//! A fault on the referee's side with one message (its game file cannot be read, its
//! lock stays taken, its archive cannot be written) holds back only that game: the
//! message stays for the next run, and so does every later message that names the same
//! game, so no game sees its messages out of order. Nothing else waits for it: not the
//! sender's moves in their other games, and, for a message that names no game (whose
//! sender nobody has proven), nothing at all, so a stranger's mail `From:` a player
//! cannot hold that player's moves. The referee is told of each held message by mail
//! ([`Receiver::held`], once per fault and pass, with every message it held). The
//! first fault is returned once every other message has been handled, as [`MailError::HeldBack`], so that cron or the caller sees it (and
//! `inbox` exits 75) and `pbem watch` knows the rest of the mailbox is not waiting.

use std::path::{Path, PathBuf};

use crate::mail::intake::{self, Incoming};
use crate::mail::outbound::capability::NoticeId;
use crate::mail::MailError;

/// What happened to an incoming message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handled {
    /// applied, refused, stale, duplicate, forged, not-a-player, no-game, other-folder
    /// (a reply to a notice of a game kept in another folder), unreadable, and the
    /// answers to requests (moves, previewed, question, status, ...).
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

    /// Tells whoever must mend it that the messages `held` (their headers, in the
    /// order they came) are held back by `fault` and will be tried again on every
    /// pass: called once per fault at the end of a pass, with every message it held.
    /// What fails here is not a fault of its own: the messages are held back either
    /// way.
    fn held(&self, games: &Path, held: &[Vec<u8>], fault: &MailError);
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

/// What binds a message to others whose order matters: the game it names, in lower
/// case. A run that must leave one message for later leaves every later message for
/// the same game too. A message that names no game binds nothing: its game is not
/// known, and holding its sender's other mail would let anyone who writes `From:` a
/// player hold that player's moves.
fn belongs_to(raw: &[u8]) -> Option<String> {
    let incoming = intake::read_message(raw).ok()?;
    wanted_game(&incoming).map(|id| id.to_ascii_lowercase())
}

/// What the referee is told of a held message is read from its header alone: that
/// is what is kept of it ([`intake::MAX_BODY_BYTES`] at most).
fn header_of(raw: &[u8]) -> Vec<u8> {
    let end = intake::header_end(raw, intake::MAX_BODY_BYTES)
        .unwrap_or(raw.len().min(intake::MAX_BODY_BYTES));
    raw[..end].to_vec()
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
/// have been handled, as [`MailError::HeldBack`]; the messages not handled stay for
/// the next run. A fault of the mailbox itself (a message that cannot be read or
/// filed) stops the run and is returned as it is.
pub(crate) fn handle_in_order<M: Mailbox>(
    referee: &dyn Receiver,
    games: &Path,
    mailbox: &mut M,
    messages: impl IntoIterator<Item = M::Message>,
    report: &mut dyn FnMut(&str, &Handled),
    stop: &dyn Fn() -> bool,
) -> Result<usize, MailError> {
    let mut count = 0;
    // Each fault with the game it holds (none for a message naming no game) and the
    // headers of the messages it holds, in the order they came.
    let mut faults: Vec<(MailError, Option<String>, Vec<Vec<u8>>)> = Vec::new();
    let mut held = 0;
    for message in messages {
        if stop() {
            break;
        }
        // Unread, it cannot say what it belongs to: the ones after it wait too.
        let raw = mailbox.read(&message)?;
        // Read for its game only once a fault holds some back.
        let game = faults
            .iter()
            .any(|(_, game, _)| game.is_some())
            .then(|| belongs_to(&raw))
            .flatten();
        if let Some((_, _, messages)) = game.and_then(|game| {
            faults
                .iter_mut()
                .find(|(_, held_game, _)| held_game.as_ref() == Some(&game))
        }) {
            messages.push(header_of(&raw));
            held += 1;
            continue;
        }
        let handled = match referee.receive(games, &raw) {
            Ok(handled) => handled,
            Err(error) => {
                faults.push((error, belongs_to(&raw), vec![header_of(&raw)]));
                held += 1;
                continue;
            }
        };
        let name = mailbox.file(&message, &handled)?;
        report(&name, &handled);
        count += 1;
    }
    for (error, _, messages) in &faults {
        referee.held(games, messages, error);
    }
    let fault = faults.into_iter().next().map(|(error, _, _)| error);
    match fault {
        Some(fault) => Err(MailError::HeldBack {
            fault: Box::new(fault),
            held,
            handled: count,
        }),
        None => Ok(count),
    }
}
