//! What each of pbem's commands that may mail does, whole: the command line reads its
//! flags, calls one of these and prints what it returns. A change to a game is made
//! once, by `ops` ([`ops::apply_move_with`] and the like); with mail, the referee's
//! notices of it are written beside the game file ([`ops::WrittenWith`]) and the outbox
//! is sent once the game's lock is released.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::games::game_files;
use super::mailer::Referee;
use crate::engine::driver::{MoveOutcome, UndoOutcome};
use crate::engine::error::EngineError;
use crate::engine::file::UndoStep;
use crate::engine::invitation::Invitation;
use crate::engine::keyring::{Keyring, KeyringError};
use crate::engine::session::NewGame;
use crate::engine::Deadline;
use crate::mail::inbound::imap::ImapMailbox;
use crate::mail::inbound::in_order::{Handled, Receiver};
use crate::mail::inbound::maildir;
use crate::mail::outbound::outbox::{Flushed, Listed, Outbox};
use crate::mail::outbound::transport::MailSettings;
use crate::mail::MailError;
use crate::ops::{self, JoinDone};

/// How a command mails: the mail settings its command line gives over those of
/// PBEM_SMTP and PBEM_HOME/config.toml.
#[derive(Debug, Clone, Default)]
pub struct Mailing {
    /// The transport (`--smtp`), over PBEM_SMTP and config.toml.
    pub smtp: Option<String>,
    /// A folder of templates that replace the built-in ones, file by file.
    pub templates: Option<PathBuf>,
    /// Attach the signed game file to turn notices.
    pub attach_game: bool,
}

impl Mailing {
    /// The referee that mails so, with `keyring`.
    ///
    /// # Errors
    /// The settings cannot be read, or the keyring has no usable signing key.
    pub fn referee(&self, keyring: Keyring) -> Result<Referee, MailError> {
        let mut settings = MailSettings::load(keyring.home(), self.smtp.as_deref())?;
        if let Some(dir) = &self.templates {
            settings.templates = Some(dir.clone());
        }
        settings.attach_game |= self.attach_game;
        Referee::new(keyring, settings)
    }
}

/// What a command did, and, when it mailed, what sending its game's outbox did (a
/// failure to send is no failure of the command: the mail waits in the outbox).
#[derive(Debug)]
pub struct Mailed<T> {
    pub done: T,
    /// `None` without mail.
    pub sent: Option<Result<Flushed, MailError>>,
}

/// `pbem apply`: the move made and the game file written, once ([`ops::apply_move`]);
/// with `mailing`, its notices staged with it and the game's outbox sent after.
///
/// # Errors
/// A refused move (nothing changes), a file that cannot be written, or mail settings
/// that cannot be used (checked before the move is made).
pub fn apply(
    keyring: Keyring,
    path: &Path,
    player: &str,
    move_text: &str,
    mailing: Option<&Mailing>,
) -> Result<Mailed<MoveOutcome>, MailError> {
    let Some(mailing) = mailing else {
        let done = ops::apply_move(path, &keyring, player, move_text)?;
        return Ok(Mailed { done, sent: None });
    };
    let referee = mailing.referee(keyring)?;
    let done = referee.apply(path, player, move_text)?;
    Ok(Mailed {
        done,
        sent: Some(referee.flush(path)),
    })
}

/// `pbem undo`: `player`'s word about taking back moves, written once
/// ([`ops::take_back`]); with `mailing`, its mail staged with it and sent after.
///
/// # Errors
/// As for [`apply`].
pub fn take_back(
    keyring: Keyring,
    path: &Path,
    player: &str,
    word: UndoStep,
    mailing: Option<&Mailing>,
) -> Result<Mailed<UndoOutcome>, MailError> {
    let Some(mailing) = mailing else {
        let done = ops::take_back(path, &keyring, player, word)?;
        return Ok(Mailed { done, sent: None });
    };
    let referee = mailing.referee(keyring)?;
    let done = referee.take_back(path, player, word)?;
    Ok(Mailed {
        done,
        sent: Some(referee.flush(path)),
    })
}

/// `pbem reveal`: the seed revealed and the file written, once ([`ops::reveal`]); with
/// `mailing`, every player told the game is closed, with what was held for them
/// ([`Referee::close`]), and the outbox sent after. `None` for what was done without
/// mail.
///
/// # Errors
/// A file that cannot be read, verified or written, or mail settings that cannot be
/// used.
pub fn close(
    keyring: Keyring,
    path: &Path,
    mailing: Option<&Mailing>,
) -> Result<Mailed<Option<super::closing::Closed>>, MailError> {
    let Some(mailing) = mailing else {
        ops::reveal(path, &keyring)?;
        return Ok(Mailed {
            done: None,
            sent: None,
        });
    };
    let referee = mailing.referee(keyring)?;
    let done = referee.close(path)?;
    Ok(Mailed {
        done: Some(done),
        sent: Some(referee.flush(path)),
    })
}

/// A game that has begun, as the command line tells it.
#[derive(Debug, Clone)]
pub struct Begun {
    /// The game's name (`right-of-way`).
    pub game: String,
    pub id: String,
    /// The view's list of players to move.
    pub to_move: serde_json::Value,
}

/// The game at `path`, as it begins.
fn begun(path: &Path) -> Result<Begun, MailError> {
    let game = ops::open(path, None)?;
    let view = game.view(None, None)?;
    Ok(Begun {
        game: game.name().to_string(),
        id: view["id"].as_str().unwrap_or("?").to_string(),
        to_move: view["to_move"].clone(),
    })
}

/// What a join did, and the game when it was the last join.
pub struct Joining {
    pub join: JoinDone,
    /// The game this join began, read back from its file.
    pub begun: Option<Begun>,
}

/// `pbem join`: `player` joins the invitation at `path` with their words
/// ([`ops::join_bytes`]); with `mailing`, the last join's welcome and first turn notice
/// are staged with the game and sent after.
///
/// # Errors
/// As for [`ops::join`], and unusable mail settings.
pub fn join(
    keyring: Keyring,
    path: &Path,
    player: &str,
    words: &str,
    mailing: Option<&Mailing>,
) -> Result<Mailed<Joining>, MailError> {
    let (join, sent) = match mailing {
        Some(mailing) => {
            let referee = mailing.referee(keyring)?;
            let join = referee.join(path, player, words)?;
            (join, Some(referee.flush(path)))
        }
        None => (ops::join(path, &keyring, player, words)?, None),
    };
    let begun = match join.joined {
        crate::engine::invitation::Joined::Complete => Some(begun(path)?),
        _ => None,
    };
    Ok(Mailed {
        done: Joining { join, begun },
        sent,
    })
}

/// What `pbem new` made.
#[derive(Debug)]
pub enum Started {
    /// An invitation, waiting for the players to join.
    Invited(Box<Invitation>),
    /// The game, begun.
    Created(Begun),
}

/// What `pbem new` made, and with mail how many messages it staged.
#[derive(Debug)]
pub struct NewDone {
    pub started: Started,
    /// The messages staged in the outbox (with mail).
    pub staged: Option<usize>,
}

/// `pbem new`: checks the seats (before the keyring is read) (a bot's only in a game started at once by mail, and
/// never every seat), then writes the game or, with `join`, the invitation to it; with
/// `mailing`, creates the referee's key if there is none, checks the mail settings
/// before anything is written, stages the welcome (or invitation) mail with the file
/// and sends it after.
///
/// # Errors
/// Unknown game, bad request, a bot where none may sit, keyring trouble, unusable mail
/// settings, or `out` exists.
pub fn new_game(
    keyring: impl FnOnce() -> Result<Keyring, KeyringError>,
    game: &str,
    request: NewGame,
    out: &Path,
    join: bool,
    mailing: Option<&Mailing>,
) -> Result<Mailed<NewDone>, MailError> {
    // Before anything is written, and before a key is made for a new keyring: a bot's
    // seat must name one of the game's built-in players (the game records it with the
    // version this pbem plays).
    let played = ops::driver(game)?.bots();
    crate::engine::roster::check_players(&request.players, &played)?;
    for value in &request.entropy {
        crate::engine::move_text::plain("an --entropy value", value)?;
    }
    let bots = request.players.iter().filter(|p| p.bot().is_some()).count();
    if bots > 0 {
        // A bot moves when the referee's mail loop sees it is to move; an invitation
        // waits for every player's own words, which a bot has none of.
        if mailing.is_none() || join {
            return Err(MailError::Config("a bot takes a seat only in a game started at once by mail: pbem new GAME --mail --player \"Ann <ann@example.org>\" --player \"Bot <bot:search>\" ... (without --join)".into()));
        }
        if bots >= request.players.len() {
            return Err(MailError::Config("every seat is a bot's: `pbem simulate` plays such games; a game by mail needs at least one person".into()));
        }
    }
    let keyring = keyring().map_err(EngineError::from)?;
    let Some(mailing) = mailing else {
        if join {
            ops::new_invitation(game, request, &keyring, out)?;
        } else {
            ops::new_game(game, request, &keyring, out)?;
        }
        return Ok(Mailed {
            done: NewDone {
                started: started(out, join)?,
                staged: None,
            },
            sent: None,
        });
    };
    // The one command that may create the referee's key; then the mail settings are
    // checked before anything is written, and the welcome mail is staged with the
    // game, so a failure to send leaves a game whose mail waits in its outbox.
    keyring.create_signing_key().map_err(EngineError::from)?;
    let referee = mailing.referee(keyring)?;
    let count = if join {
        referee.invite(game, request, out)?
    } else {
        referee.create(game, request, out)?
    };
    let started = started(out, join)?;
    Ok(Mailed {
        done: NewDone {
            started,
            staged: Some(count),
        },
        sent: Some(referee.flush(out)),
    })
}

/// What `pbem new` wrote at `out`, read back.
fn started(out: &Path, join: bool) -> Result<Started, MailError> {
    if join {
        let invitation = Invitation::parse(&crate::basics::store::read(out)?)?;
        Ok(Started::Invited(Box::new(invitation)))
    } else {
        Ok(Started::Created(begun(out)?))
    }
}

/// Where `pbem inbox` takes its messages from.
#[derive(Debug, Clone, Copy)]
pub enum Inbox<'a> {
    /// One raw message (read from standard input).
    Message(&'a [u8]),
    /// Every new message of a Maildir.
    Maildir(&'a Path),
    /// Every new message of the IMAP mailbox of the mail settings.
    Imap,
}

/// What `pbem inbox` did.
#[derive(Debug)]
pub struct Received {
    /// How many messages were handled.
    pub count: usize,
    /// The games they were for.
    pub games: BTreeSet<PathBuf>,
    /// Messages the mail server refused for good as they were sent (each set aside, and
    /// the referee told by mail), with their game files.
    pub refused: Vec<(PathBuf, Listed)>,
    /// The moves made after the players' unasked (a built-in player's, a forced one),
    /// as lines of a log, with their game files.
    pub unasked: Vec<(PathBuf, String)>,
    /// How many messages still wait in those games' outboxes.
    pub waiting: Result<usize, MailError>,
}

/// `pbem inbox`: every message of `inbox` handled for the games in `games`, `report`
/// called with each one's name (empty for a single message) and outcome as it is
/// handled, and `note` with what a pass has to say besides (an IMAP progress file it
/// could not trust, and read the mailbox again instead).
///
/// # Errors
/// A fault on the referee's side (see [`Referee::receive`]); what was not handled
/// waits for the next run.
pub fn inbox(
    keyring: Keyring,
    games: &Path,
    inbox: Inbox<'_>,
    mailing: &Mailing,
    report: &mut dyn FnMut(&str, &Handled),
    note: &mut dyn FnMut(&str),
) -> Result<Received, MailError> {
    let referee = mailing.referee(keyring)?;
    let mut touched = BTreeSet::new();
    let count = match inbox {
        Inbox::Message(raw) => {
            // The mail server keeps the message and tries again; the referee hears of
            // the fault once, as from a mailbox.
            let handled = referee
                .receive(games, raw)
                .inspect_err(|fault| Receiver::held(&referee, games, &[raw.to_vec()], fault))?;
            report("", &handled);
            touched.extend(handled.game);
            1
        }
        Inbox::Maildir(dir) => {
            let mut each = |name: &str, handled: &Handled| {
                report(name, handled);
                touched.extend(handled.game.clone());
            };
            maildir::process(&referee, games, dir, &mut each)?
        }
        Inbox::Imap => {
            let mut each = |name: &str, handled: &Handled| {
                report(name, handled);
                touched.extend(handled.game.clone());
            };
            ImapMailbox::from_settings(referee.settings())?
                .process(&referee, games, &mut each, note)?
        }
    };
    let refused = referee.take_refused();
    let unasked = referee.take_unasked();
    let waiting = touched
        .iter()
        .map(|game| Outbox::beside(game).waiting().map(|waiting| waiting.len()))
        .sum();
    Ok(Received {
        count,
        games: touched,
        refused,
        unasked,
        waiting,
    })
}

/// What `pbem remind` did: each game's reminders and choices made, and the messages the
/// mail server refused for good meanwhile.
#[derive(Debug)]
pub struct Reminded {
    pub games: Vec<(PathBuf, String)>,
    pub refused: Vec<(PathBuf, Listed)>,
}

/// `pbem remind`: reminds the players who keep the games of `games` waiting longer
/// than `after` seconds, and past `deadline` makes the referee's choice.
///
/// # Errors
/// Unusable mail settings, or a game or its archive that cannot be read or written.
pub fn remind(
    keyring: Keyring,
    games: &Path,
    after: u64,
    deadline: Option<(u64, Deadline)>,
    mailing: &Mailing,
) -> Result<Reminded, MailError> {
    let referee = mailing.referee(keyring)?;
    let games = referee.remind(games, after, deadline)?;
    Ok(Reminded {
        games,
        refused: referee.take_refused(),
    })
}

/// One outbox's label (its game file, or `FOLDER/referee.outbox`) and what its flush
/// did, or why it could not.
pub type FlushedOutbox = (PathBuf, Result<Flushed, MailError>);

/// `pbem outbox flush`: sends the outboxes of the game files `files` and of every game
/// of the folder `games`, and then that folder's referee's outbox (see
/// [`Referee::flush_each`]).
///
/// # Errors
/// No game named, a folder that cannot be listed, or unusable mail settings.
pub fn flush_outboxes(
    keyring: Keyring,
    files: Vec<PathBuf>,
    games: Option<&Path>,
    mailing: &Mailing,
) -> Result<Vec<FlushedOutbox>, MailError> {
    let files = games_named(files, games)?;
    Ok(mailing.referee(keyring)?.flush_each(&files, games))
}

/// `pbem outbox list`: the messages of the outboxes of the game files `files` and of
/// every game of the folder `games`, waiting or set aside, with their game files.
///
/// # Errors
/// No game named, a folder that cannot be listed, or an outbox that cannot be read.
pub fn list_outboxes(
    files: Vec<PathBuf>,
    games: Option<&Path>,
) -> Result<Vec<(PathBuf, Listed)>, MailError> {
    let mut all = Vec::new();
    for file in games_named(files, games)? {
        let listed = Outbox::beside(&file).list()?;
        all.extend(listed.into_iter().map(|m| (file.clone(), m)));
    }
    Ok(all)
}

/// The game files named one by one, and every one of the folder `games`, sorted.
fn games_named(mut files: Vec<PathBuf>, games: Option<&Path>) -> Result<Vec<PathBuf>, MailError> {
    if files.is_empty() && games.is_none() {
        return Err(MailError::Config(
            "name the game files, or --games DIR".into(),
        ));
    }
    if let Some(dir) = games {
        files.extend(game_files(dir)?);
    }
    files.sort();
    Ok(files)
}
