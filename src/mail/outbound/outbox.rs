//! The outbox: every outgoing message is written here, durably, before it is sent, so
//! a move and the mail it causes never part ways and no notice is lost when the mail
//! server is down.
//!
//! Beside `game.json` lives `game.json.outbox/`. A move's mail is first written as
//! `<records>-<n>.staged` files, then the game file is replaced, then the staged files
//! are renamed to `.mail`. A crash in between is repaired by [`Outbox::recover`]: staged
//! mail of a move that reached the game file is kept, of one that did not is dropped.
//! Mail that changes no game (a digest, a reminder) has the game's mail state as its
//! commit point instead: it is staged as `<records>-<n>.state-<generation>.staged`,
//! then the state is written with that generation, then the mail is made ready; on
//! recovery it is kept when the state reached its generation, dropped when not (see
//! [`CommitPoint`]).
//! `.mail` files leave the outbox only once sent, or once set aside.
//!
//! A message the mail server refuses for good (an SMTP 5xx for its recipient, say an
//! address that does not exist) is set aside as `<name>.refused`, with the server's
//! answer and when, and sending goes on with the next message: one dead address never
//! holds up a game's mail. The referee is told of each such message once, by a notice
//! queued here as `<name>.referee.mail` (composed by the caller, see
//! [`Outbox::flush`]), never about mail to the referee's own address. A set-aside
//! message stays until the referee drops it or puts it back in the queue
//! ([`Outbox::drop_messages`], [`Outbox::retry`]). Anything else that stops a message
//! (the server down, a 4xx, a timeout) stops the sending, order kept, to be retried.
//!
//! Sending takes the outbox's own lock (`game.json.outbox.lock`), never the game's: a
//! slow or hung mail server must not hold up moves. So do setting aside, dropping and
//! putting back. Staging and recovery happen under the game's lock, by the code that
//! changes the game.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::capability::NoticeId;
use super::outgoing::Outgoing;
use super::sent::SentNotices;
use super::transport::Transport;
use crate::basics::store::{self, Access};
use crate::mail::MailError;

/// The extension of a message waiting to be sent.
const WAITING: &str = "mail";
/// The extension of a message set aside: refused for good.
const REFUSED: &str = "refused";
/// What the name of a staged message's temporary file holds (see `store`).
const STAGED_TEMPORARY: &str = ".staged.tmp-";

/// A message set aside, as its `.refused` file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetAside {
    /// The message, addressed to the recipients that did not get it.
    #[serde(flatten)]
    pub outgoing: Outgoing,
    /// When the server refused it (seconds since 1970).
    #[serde(default)]
    pub refused_at: u64,
    /// The server's answer.
    #[serde(default)]
    pub reason: String,
    /// Whether the referee's notice of it is queued (or none is due).
    #[serde(default)]
    pub referee_told: bool,
}

/// Composes the referee's notice of a message set aside (its id in the outbox and
/// what it holds), or `None` when none is due (mail to the referee's own address).
pub type RefereeNotice<'a> = &'a dyn Fn(&str, &SetAside) -> Result<Option<Outgoing>, MailError>;

/// Where a listed message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// In the queue, to be sent by the next flush.
    Waiting,
    /// Set aside: the server refused it for good.
    Refused,
}

/// One message of an outbox, as `pbem outbox list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The file name in the outbox: what `drop` and `retry` take.
    pub id: String,
    pub to: Vec<String>,
    /// As [`Outgoing::shown_subject`] gives it.
    pub subject: String,
    pub state: State,
    /// Waiting since (seconds since 1970), or refused at.
    pub since: u64,
    /// The server's answer, for a message set aside.
    pub reason: Option<String>,
}

/// What makes staged mail ready to send when a run was killed before it did: the
/// durable write it was staged ahead of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitPoint {
    /// The game file holding this many records: the mail of a change of the game,
    /// written before the file (or mail that needs no change, at the records now).
    Records(u64),
    /// The game's mail state reaching this generation: mail that changes no game
    /// (a digest, a reminder), written before the state that forgets what it tells.
    /// `records` is the game's record count now, for the mail's name and order.
    MailState { records: u64, generation: u64 },
}

/// The outbox of one game file.
#[derive(Debug, Clone)]
pub struct Outbox {
    dir: PathBuf,
}

/// What a flush did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flushed {
    pub sent: usize,
    /// Messages still in the queue (sending stopped before them); never the ones set
    /// aside.
    pub waiting: usize,
    /// Turn notices and reminders dropped unsent because a later notice to the same
    /// player replaced them (the turn they asked for was over before they could go).
    pub superseded: usize,
    /// The messages set aside by this flush: refused for good.
    pub refused: Vec<Listed>,
    /// Why sending stopped, when it did.
    pub error: Option<String>,
    /// Why a notice to the referee could not be queued (it is tried again next time).
    pub unqueued_notices: Vec<String>,
}

impl Outbox {
    /// The outbox beside a game file.
    pub fn beside(game_file: &Path) -> Outbox {
        let mut name = game_file.file_name().unwrap_or_default().to_os_string();
        name.push(".outbox");
        Outbox {
            dir: game_file.with_file_name(name),
        }
    }

    /// An outbox in a folder of its own (answers to messages that match no game).
    pub fn at(dir: PathBuf) -> Outbox {
        Outbox { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The game file this outbox is beside (the folder itself for one of its own).
    pub fn game_file(&self) -> PathBuf {
        let name = self.dir.file_name().unwrap_or_default().to_string_lossy();
        match name.strip_suffix(".outbox") {
            Some(game) if !game.is_empty() => self.dir.with_file_name(game),
            _ => self.dir.clone(),
        }
    }

    fn entries(&self, extension: &str) -> Result<Vec<PathBuf>, MailError> {
        let mut found = Vec::new();
        let listing = match fs::read_dir(&self.dir) {
            Ok(listing) => listing,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(found),
            Err(error) => return Err(MailError::io(&self.dir)(error)),
        };
        for entry in listing {
            let path = entry.map_err(MailError::io(&self.dir))?.path();
            if path.extension().is_some_and(|e| e == extension) {
                found.push(path);
            }
        }
        // Names start with the zero-padded record count and sequence: sorting by name
        // sends in the order the mail was written.
        found.sort();
        Ok(found)
    }

    /// Writes messages as staged, durably. `records` is the game's record count once
    /// the move they belong to is written (or now, for mail that needs no move).
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn stage(&self, records: u64, messages: &[Outgoing]) -> Result<Vec<PathBuf>, MailError> {
        self.stage_at(CommitPoint::Records(records), messages)
    }

    /// [`Outbox::stage`], made ready by `point` should the run be killed before it
    /// makes them ready itself.
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn stage_at(
        &self,
        point: CommitPoint,
        messages: &[Outgoing],
    ) -> Result<Vec<PathBuf>, MailError> {
        if messages.is_empty() {
            return Ok(Vec::new());
        }
        store::create_private_dir(&self.dir).map_err(MailError::io(&self.dir))?;
        // Numbered after every message still here, so a new one never takes the name
        // of one waiting or set aside (the count would repeat a name once earlier ones
        // were sent).
        let next = self
            .entries(WAITING)?
            .iter()
            .chain(&self.entries("staged")?)
            .chain(&self.entries(REFUSED)?)
            .filter_map(|path| sequence(path))
            .max()
            .map_or(0, |last| last + 1);
        let (records, state) = match point {
            CommitPoint::Records(records) => (records, String::new()),
            CommitPoint::MailState {
                records,
                generation,
            } => (records, format!(".state-{generation:08}")),
        };
        let mut staged = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            let path = self
                .dir
                .join(format!("{records:08}-{:06}{state}.staged", next + i as u64));
            write_json(&path, message)?;
            staged.push(path);
        }
        // A reply is read against the notice it answers: keep what each one says.
        if let Some(sent) = SentNotices::of_outbox(&self.dir) {
            sent.keep(messages)?;
        }
        Ok(staged)
    }

    /// Makes staged messages ready to send (after the game file holds their move).
    ///
    /// # Errors
    /// A rename fails.
    pub fn commit(&self, staged: &[PathBuf]) -> Result<(), MailError> {
        for path in staged {
            // `<records>-<n>[.state-<generation>].staged` waits as `<records>-<n>.mail`.
            let name = file_name(path);
            let stem = name.split('.').next().unwrap_or_default();
            let ready = path.with_file_name(format!("{stem}.{WAITING}"));
            fs::rename(path, ready).map_err(MailError::io(path))?;
            crate::basics::crash::step();
        }
        Ok(())
    }

    /// Repairs an interrupted move: staged mail whose move is in the game file (its
    /// record count at most `records`) is kept, the rest dropped; so is mail for no
    /// game (staged at record 0, for the referee).
    ///
    /// # Errors
    /// The folder cannot be read or changed.
    pub fn recover(&self, records: u64) -> Result<(), MailError> {
        self.recover_to(records, 0)
    }

    /// [`Outbox::recover`] for a game whose mail state is at `generation`: staged mail
    /// whose commit point was reached is kept, the rest dropped (see [`CommitPoint`]).
    ///
    /// # Errors
    /// The folder cannot be read or changed.
    pub fn recover_to(&self, records: u64, generation: u64) -> Result<(), MailError> {
        // Only staged mail is written under the game's lock; the rest is written under
        // the outbox's, by a flush that may be writing now.
        self.remove_leftovers(|name| name.contains(STAGED_TEMPORARY));
        for path in self.entries("staged")? {
            let reached = match commit_point(&path) {
                Some(CommitPoint::Records(count)) => count <= records,
                Some(CommitPoint::MailState { generation: at, .. }) => at <= generation,
                None => false,
            };
            if reached {
                self.commit(std::slice::from_ref(&path))?;
            } else {
                fs::remove_file(&path).map_err(MailError::io(&path))?;
                crate::basics::crash::step();
            }
        }
        Ok(())
    }

    /// Removes temporary files a killed write left (hidden names, see `store`) whose
    /// names `written_by_us` picks: those written under the lock the caller holds.
    fn remove_leftovers(&self, written_by_us: impl Fn(&str) -> bool) {
        let Ok(listing) = fs::read_dir(&self.dir) else {
            return;
        };
        for entry in listing.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') && name.contains(".tmp-") && written_by_us(&name) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Takes the outbox's lock, and removes what a killed run left under it.
    fn lock(&self) -> Result<store::FileLock, MailError> {
        let lock = store::lock(&self.dir)?;
        self.remove_leftovers(|name| !name.contains(STAGED_TEMPORARY));
        Ok(lock)
    }

    /// Drops every staged message (before a new game is written at this outbox's game
    /// path: nothing staged can belong to it).
    ///
    /// # Errors
    /// The folder cannot be read or changed.
    pub fn drop_staged(&self) -> Result<(), MailError> {
        for path in self.entries("staged")? {
            fs::remove_file(&path).map_err(MailError::io(&path))?;
        }
        Ok(())
    }

    /// Messages waiting to be sent.
    ///
    /// # Errors
    /// The folder cannot be read.
    pub fn waiting(&self) -> Result<Vec<(PathBuf, Outgoing)>, MailError> {
        self.read_all(WAITING)
    }

    /// Messages set aside, oldest name first.
    ///
    /// # Errors
    /// The folder cannot be read.
    pub fn set_aside(&self) -> Result<Vec<(PathBuf, SetAside)>, MailError> {
        self.read_all(REFUSED)
    }

    /// The messages with this extension, read. One that is gone by the time it is read
    /// was sent or set aside meanwhile by a flush (readers take no lock): passed over.
    fn read_all<T: serde::de::DeserializeOwned>(
        &self,
        extension: &str,
    ) -> Result<Vec<(PathBuf, T)>, MailError> {
        let mut out = Vec::new();
        for path in self.entries(extension)? {
            match store::read_limited(&path, store::MAX_MAIL_FILE_BYTES) {
                Ok(bytes) => {
                    let message = parse_json(&path, &bytes)?;
                    out.push((path, message));
                }
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(MailError::io(&path)(error)),
            }
        }
        Ok(out)
    }

    /// Every message waiting and every one set aside, waiting ones first, each in the
    /// order it was written.
    ///
    /// # Errors
    /// The folder cannot be read.
    pub fn list(&self) -> Result<Vec<Listed>, MailError> {
        let mut listed = Vec::new();
        for (path, message) in self.waiting()? {
            // A message's file is written when it is queued, and never changed after.
            let since = fs::metadata(&path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            listed.push(Listed {
                id: file_name(&path),
                subject: message.shown_subject(),
                to: message.to,
                state: State::Waiting,
                since,
                reason: None,
            });
        }
        for (path, aside) in self.set_aside()? {
            listed.push(listed_aside(&path, &aside));
        }
        Ok(listed)
    }

    /// Removes the messages named by `ids` (file names as [`Outbox::list`] gives them),
    /// waiting or set aside, under the outbox's lock: all of them, or none when one
    /// names no message here.
    ///
    /// # Errors
    /// An id names no message here (the error lists those there are), or the folder
    /// cannot be changed.
    pub fn drop_messages(&self, ids: &[String]) -> Result<(), MailError> {
        let _lock = self.lock()?;
        let paths = self.named(ids, &[WAITING, REFUSED])?;
        for path in paths {
            fs::remove_file(&path).map_err(MailError::io(&path))?;
        }
        Ok(())
    }

    /// Puts messages set aside back in the queue (the address works again, say), under
    /// the outbox's lock; returns their new ids. The next flush sends them in name
    /// order among the others.
    ///
    /// # Errors
    /// An id names no message set aside here, or the folder cannot be changed.
    pub fn retry(&self, ids: &[String]) -> Result<Vec<String>, MailError> {
        let _lock = self.lock()?;
        let mut queued = Vec::new();
        for path in self.named(ids, &[REFUSED])? {
            let aside: SetAside = read_json(&path)?;
            let waiting = path.with_extension(WAITING);
            if waiting.exists() {
                return Err(MailError::Config(format!(
                    "{} is in the way; drop it first",
                    waiting.display()
                )));
            }
            // Renamed first, so a crash leaves the message in one place or the other;
            // then written plain, which also makes it wait from now.
            fs::rename(&path, &waiting).map_err(MailError::io(&path))?;
            crate::basics::crash::step();
            write_json(&waiting, &aside.outgoing)?;
            queued.push(file_name(&waiting));
        }
        Ok(queued)
    }

    /// The paths of the messages named by `ids` whose extension is one of
    /// `extensions`; an error naming those there are when one is not here.
    fn named(&self, ids: &[String], extensions: &[&str]) -> Result<Vec<PathBuf>, MailError> {
        let mut present = Vec::new();
        for extension in extensions {
            present.extend(self.entries(extension)?);
        }
        let names: Vec<String> = present.iter().map(|path| file_name(path)).collect();
        let unknown: Vec<&String> = ids.iter().filter(|id| !names.contains(id)).collect();
        if !unknown.is_empty() {
            let there = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            return Err(MailError::Config(format!(
                "no message {} in {}; there are: {there}",
                unknown
                    .iter()
                    .map(|id| id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                self.dir.display()
            )));
        }
        let mut paths: Vec<PathBuf> = Vec::new();
        for path in ids.iter().map(|id| self.dir.join(id)) {
            // Named twice, dropped or put back once.
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        Ok(paths)
    }

    /// Sends waiting messages in order; each leaves the outbox once sent. A message the
    /// server refuses for good is set aside and sending goes on; the referee is told
    /// of it once, by the notice `referee_notice` composes, queued here and sent in the
    /// same run. Any other failure stops the sending, so order is kept and nothing is
    /// skipped. Holds the outbox's lock while sending (waiting for it as
    /// [`store::lock`] does), so two runs never send one message twice, and a run never
    /// leaves its new mail to another that has already listed what it will send.
    ///
    /// # Errors
    /// The folder cannot be read, a sent message cannot be removed or one refused set
    /// aside, or the lock stays taken too long.
    pub fn flush(
        &self,
        transport: &Transport,
        referee_notice: RefereeNotice<'_>,
    ) -> Result<Flushed, MailError> {
        let _lock = self.lock()?;
        let mut flushed = Flushed::default();
        // A pass sends what waits; the notices of what it set aside go in the next.
        // Notices go to the referee, of whose mail none is ever noticed, so there are
        // at most three passes.
        loop {
            self.queue_referee_notices(referee_notice, &mut flushed)?;
            let waiting = self.waiting()?;
            let notices: Vec<Option<NoticeId>> = waiting
                .iter()
                .map(|(_, message)| message.notice())
                .collect();
            let mut set_aside = false;
            let mut stopped = false;
            for (index, (path, message)) in waiting.into_iter().enumerate() {
                // A notice reporting a move is never dropped: the later notice does
                // not report it again.
                if !message.carries_news() && is_superseded(&notices, index) {
                    fs::remove_file(&path).map_err(MailError::io(&path))?;
                    crate::basics::crash::step();
                    flushed.superseded += 1;
                    continue;
                }
                match transport.send_raw(&message.from, &message.to, message.message.as_bytes()) {
                    Ok(()) => {
                        fs::remove_file(&path).map_err(MailError::io(&path))?;
                        crate::basics::crash::step();
                        flushed.sent += 1;
                    }
                    Err(MailError::Refused {
                        recipients, answer, ..
                    }) => {
                        let reached_others = recipients.len() < message.to.len();
                        let aside = SetAside {
                            outgoing: Outgoing {
                                to: recipients,
                                ..message
                            },
                            refused_at: crate::mail::clock::now(),
                            reason: answer,
                            referee_told: false,
                        };
                        let refused = self.put_aside(&path, &aside)?;
                        flushed.sent += usize::from(reached_others);
                        flushed.refused.push(listed_aside(&refused, &aside));
                        set_aside = true;
                    }
                    Err(error) => {
                        flushed.error = Some(error.to_string());
                        stopped = true;
                        break;
                    }
                }
            }
            if stopped || !set_aside {
                break;
            }
        }
        flushed.waiting = self.entries(WAITING)?.len();
        Ok(flushed)
    }

    /// Sets a waiting message aside, under the outbox's lock: its file is rewritten
    /// with why (still waiting), then renamed, so a crash never leaves it in both
    /// places. Returns the new path.
    fn put_aside(&self, waiting: &Path, aside: &SetAside) -> Result<PathBuf, MailError> {
        write_json(waiting, aside)?;
        let refused = waiting.with_extension(REFUSED);
        fs::rename(waiting, &refused).map_err(MailError::io(waiting))?;
        crate::basics::crash::step();
        Ok(refused)
    }

    /// Queues the referee's notice of every message set aside whose referee has not
    /// been told yet. The notice's name follows from the message's, and the message is
    /// marked told before anything is sent, so a run killed in between writes the same
    /// notice again rather than a second one.
    fn queue_referee_notices(
        &self,
        referee_notice: RefereeNotice<'_>,
        flushed: &mut Flushed,
    ) -> Result<(), MailError> {
        for (path, mut aside) in self.set_aside()? {
            if aside.referee_told {
                continue;
            }
            let id = file_name(&path);
            let notice = match referee_notice(&id, &aside) {
                Ok(notice) => notice,
                Err(error) => {
                    flushed.unqueued_notices.push(format!("{id}: {error}"));
                    continue;
                }
            };
            let notice_path = match notice {
                Some(notice) => {
                    let path = path.with_extension(format!("referee.{WAITING}"));
                    write_json(&path, &notice)?;
                    Some(path)
                }
                None => None,
            };
            aside.referee_told = true;
            if let Err(error) = write_json(&path, &aside) {
                // Not sent unmarked: it would be sent again by the next run.
                if let Some(notice_path) = notice_path {
                    let _ = fs::remove_file(notice_path);
                }
                return Err(error);
            }
        }
        Ok(())
    }
}

/// A message set aside as listed.
fn listed_aside(path: &Path, aside: &SetAside) -> Listed {
    Listed {
        id: file_name(path),
        to: aside.outgoing.to.clone(),
        subject: aside.outgoing.shown_subject(),
        state: State::Refused,
        since: aside.refused_at,
        reason: Some(aside.reason.clone()),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, MailError> {
    let bytes = fs::read(path).map_err(MailError::io(path))?;
    parse_json(path, &bytes)
}

fn parse_json<T: serde::de::DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<T, MailError> {
    serde_json::from_slice(bytes).map_err(|error| {
        MailError::Config(format!(
            "{} is not an outbox message: {error}",
            path.display()
        ))
    })
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<(), MailError> {
    let bytes = serde_json::to_vec_pretty(value)
        .map_err(|error| MailError::Config(format!("cannot store a message: {error}")))?;
    store::write_atomic(path, &bytes, Access::Private)?;
    Ok(())
}

/// Whether the message at `index` asks a player to move (a turn notice or a reminder)
/// for a turn a later message to the same player in the same outbox has moved past:
/// a later turn notice or reminder, the confirmation of their own move, or the end.
/// Never a notice of another player's move: the player may still be to move then (a
/// move the rules forced on a third player, say), and their turn notice is the one
/// mail that says so.
fn is_superseded(notices: &[Option<NoticeId>], index: usize) -> bool {
    let Some(Some(notice)) = notices.get(index) else {
        return false;
    };
    let asks_to_move = |kind: &str| kind == "turn" || kind.starts_with("remind");
    if !asks_to_move(&notice.kind) {
        return false;
    }
    notices[index + 1..].iter().flatten().any(|later| {
        let moves_past = asks_to_move(&later.kind)
            || [OWN_MOVE, "over", "closed"].contains(&later.kind.as_str());
        moves_past
            && later.game_id == notice.game_id
            && later.seat == notice.seat
            && later.turn > notice.turn
    })
}

/// The notice kind of the confirmation of a player's own move (others are told of a
/// move by a `made` notice).
pub const OWN_MOVE: &str = "own";

/// The sequence number in an outbox file's name (`00000003-000012.mail` has 12).
fn sequence(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    let stem = name.split('.').next()?;
    stem.split_once('-')?.1.parse().ok()
}

/// What a staged file's name says makes it ready (see [`Outbox::stage_at`]).
fn commit_point(path: &Path) -> Option<CommitPoint> {
    let name = path.file_name()?.to_str()?;
    let mut parts = name.split('.');
    let records = parts.next()?.split_once('-')?.0.parse().ok()?;
    match parts.next()?.strip_prefix("state-") {
        None => Some(CommitPoint::Records(records)),
        Some(generation) => Some(CommitPoint::MailState {
            records,
            generation: generation.parse().ok()?,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::outbound::outgoing::notice_of;

    fn message(n: usize) -> Outgoing {
        Outgoing {
            from: "referee@example.org".into(),
            to: vec!["ann@example.org".into()],
            message: format!("Subject: {n}\r\n\r\nbody {n}\r\n"),
        }
    }

    fn no_notice(_: &str, _: &SetAside) -> Result<Option<Outgoing>, MailError> {
        Ok(None)
    }

    fn to(address: &str, n: usize) -> Outgoing {
        Outgoing {
            to: vec![address.into()],
            ..message(n)
        }
    }

    /// Every file of a folder with its bytes.
    fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
            .expect("dir")
            .map(|e| {
                let path = e.expect("entry").path();
                (file_name(&path), fs::read(&path).expect("read"))
            })
            .collect();
        files.sort();
        files
    }

    fn notice(kind: &str, seat: usize, turn: u64) -> Outgoing {
        let id = NoticeId {
            game_id: "row-1".into(),
            turn,
            seat,
            kind: kind.into(),
            code: "abc123".into(),
        };
        Outgoing {
            from: "referee@example.org".into(),
            to: vec!["ann@example.org".into()],
            message: format!(
                "Subject: x\r\nMessage-ID: <{}>\r\n\r\nbody\r\n",
                id.render("example.org")
            ),
        }
    }

    #[test]
    fn a_turn_notice_a_later_notice_replaced_is_not_sent() {
        let list = [
            notice("turn", 0, 3),
            notice("made", 1, 3),
            notice("remind99", 1, 2),
            notice("made", 0, 4),
            notice("turn", 1, 5),
            notice("turn", 0, 5),
        ];
        let notices: Vec<Option<NoticeId>> = list.iter().map(|m| notice_of(&m.message)).collect();
        assert!(notices.iter().all(Option::is_some));
        let dropped: Vec<usize> = (0..list.len())
            .filter(|&i| is_superseded(&notices, i))
            .collect();
        // Ann's turn-3 notice (a later notice to Ann follows) and Bob's reminder for
        // turn 2; never a move-made notice, never the latest turn notices.
        assert_eq!(dropped, [0, 2]);
    }

    #[test]
    fn a_turn_notice_carrying_news_is_sent_though_a_later_one_replaced_it() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::at(dir.path().join("outbox"));
        let queued = [
            notice("turn", 0, 3).carrying_news(),
            notice("turn", 0, 4),
            notice(OWN_MOVE, 0, 5),
        ];
        let staged = outbox.stage(5, &queued).expect("staged");
        outbox.commit(&staged).expect("ready");
        let sent = dir.path().join("sent");
        let transport = Transport::parse(&format!("folder:{}", sent.display())).expect("a folder");
        let flushed = outbox.flush(&transport, &no_notice).expect("flushed");
        // The news-carrying turn-3 notice goes; the plain turn-4 one is moot.
        assert_eq!((flushed.sent, flushed.superseded), (2, 1), "{flushed:?}");
    }

    #[test]
    fn a_turn_notice_stands_until_its_reader_moves_or_is_asked_again() {
        let superseded = |later: &str| {
            let list = [notice("turn", 0, 3), notice(later, 0, 4)];
            let notices: Vec<Option<NoticeId>> =
                list.iter().map(|m| notice_of(&m.message)).collect();
            is_superseded(&notices, 0)
        };
        // Another's move (Ann may still be to move): her notice stands.
        assert!(!superseded("made"));
        // Her own move made, a newer notice or reminder, the end: it is moot.
        for later in [OWN_MOVE, "turn", "remind7", "over"] {
            assert!(superseded(later), "{later}");
        }
    }

    #[test]
    fn staged_mail_follows_its_move() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::beside(&dir.path().join("game.json"));
        // A move to record 3 staged, then the process died before the game file was
        // written (it still has 2 records): the mail is dropped.
        outbox.stage(3, &[message(1)]).expect("stage");
        outbox.recover(2).expect("recover");
        assert!(outbox.waiting().expect("list").is_empty());
        // Staged again, the game file reached 3 records, then the process died: kept.
        outbox.stage(3, &[message(1), message(2)]).expect("stage");
        outbox.recover(3).expect("recover");
        let waiting = outbox.waiting().expect("list");
        assert_eq!(waiting.len(), 2);
        assert_eq!(waiting[0].1, message(1));
    }

    #[test]
    fn new_mail_never_takes_the_name_of_mail_still_waiting() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::beside(&dir.path().join("game.json"));
        let first = outbox
            .stage(1, &[message(1), message(2), message(3)])
            .expect("stage");
        outbox.commit(&first).expect("commit");
        // The first two were sent; a reminder is staged for the same record count.
        fs::remove_file(first[0].with_extension("mail")).expect("sent");
        fs::remove_file(first[1].with_extension("mail")).expect("sent");
        let second = outbox.stage(1, &[message(4)]).expect("stage");
        outbox.commit(&second).expect("commit");
        let waiting: Vec<Outgoing> = outbox
            .waiting()
            .expect("list")
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        assert_eq!(waiting, vec![message(3), message(4)]);
    }

    #[test]
    fn flush_sends_in_order_and_empties() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::beside(&dir.path().join("game.json"));
        let staged = outbox.stage(1, &[message(1), message(2)]).expect("stage");
        outbox.commit(&staged).expect("commit");
        let sent = dir.path().join("sent");
        let flushed = outbox
            .flush(&Transport::Folder(sent.clone()), &no_notice)
            .expect("flush");
        assert_eq!((flushed.sent, flushed.waiting, flushed.error), (2, 0, None));
        assert_eq!(fs::read_dir(sent).expect("sent").count(), 2);
        assert!(outbox.waiting().expect("list").is_empty());
    }

    #[test]
    fn a_failed_send_keeps_the_message() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::beside(&dir.path().join("game.json"));
        let staged = outbox.stage(1, &[message(1)]).expect("stage");
        outbox.commit(&staged).expect("commit");
        // Nothing listens on port 9 of loopback.
        let transport = Transport::parse("smtp://127.0.0.1:9").expect("valid");
        let flushed = outbox.flush(&transport, &no_notice).expect("flush");
        assert_eq!((flushed.sent, flushed.waiting), (0, 1));
        assert!(flushed.error.is_some());
        assert_eq!(outbox.waiting().expect("list").len(), 1);
    }

    #[test]
    fn a_message_refused_for_good_is_set_aside_and_the_referee_told_once() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::beside(&dir.path().join("game.json"));
        // No server takes mail to a recipient that is no address: refused for good.
        let staged = outbox
            .stage(1, &[to("no address", 1), to("ann@example.org", 2)])
            .expect("stage");
        outbox.commit(&staged).expect("commit");
        let sent = dir.path().join("sent");
        let transport = Transport::Folder(sent.clone());
        let told = std::cell::Cell::new(0);
        let tell = |id: &str, aside: &SetAside| {
            told.set(told.get() + 1);
            assert_eq!(id, "00000001-000000.refused");
            assert_eq!(aside.outgoing.to, ["no address"]);
            Ok(Some(to("referee@example.org", 9)))
        };
        let flushed = outbox.flush(&transport, &tell).expect("flush");
        // Ann's message, then the referee's notice, in the same run.
        assert_eq!((flushed.sent, flushed.waiting, flushed.error), (2, 0, None));
        assert_eq!(told.get(), 1);
        assert_eq!(flushed.refused.len(), 1);
        assert_eq!(flushed.refused[0].id, "00000001-000000.refused");
        assert!(
            flushed.refused[0]
                .reason
                .as_deref()
                .is_some_and(|r| r.contains("not a mail address")),
            "{:?}",
            flushed.refused
        );
        assert_eq!(fs::read_dir(&sent).expect("sent").count(), 2);
        let listed = outbox.list().expect("list");
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (
                listed[0].state,
                listed[0].to.clone(),
                listed[0].subject.clone()
            ),
            (State::Refused, vec!["no address".to_string()], "1".into())
        );
        // Told once: the next flush has nothing to do.
        let again = outbox.flush(&transport, &tell).expect("flush");
        assert_eq!((again.sent, again.waiting, again.refused.len()), (0, 0, 0));
        assert_eq!(told.get(), 1);
        // A new message never takes the set-aside one's name.
        let next = outbox.stage(1, &[message(3)]).expect("stage");
        assert_eq!(file_name(&next[0]), "00000001-000001.staged");
    }

    #[test]
    fn a_refused_notice_to_the_referee_is_set_aside_without_another() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::beside(&dir.path().join("game.json"));
        let staged = outbox.stage(1, &[to("no address", 1)]).expect("stage");
        outbox.commit(&staged).expect("commit");
        let transport = Transport::Folder(dir.path().join("sent"));
        // The referee's notice is itself refused (the referee's address is no address
        // here); the caller composes none for mail to the referee.
        let tell = |_: &str, aside: &SetAside| {
            Ok((aside.outgoing.to != ["referee is no address"])
                .then(|| to("referee is no address", 9)))
        };
        let flushed = outbox.flush(&transport, &tell).expect("flush");
        assert_eq!((flushed.sent, flushed.waiting), (0, 0));
        let ids: Vec<String> = flushed.refused.iter().map(|m| m.id.clone()).collect();
        assert_eq!(
            ids,
            ["00000001-000000.refused", "00000001-000000.referee.refused"]
        );
        let aside = outbox.set_aside().expect("list");
        assert!(aside.iter().all(|(_, a)| a.referee_told));
    }

    #[test]
    fn messages_are_dropped_by_name_or_put_back_in_the_queue() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::beside(&dir.path().join("game.json"));
        let staged = outbox
            .stage(1, &[to("no address", 1), message(2), message(3)])
            .expect("stage");
        outbox.commit(&staged).expect("commit");
        // Nothing listens on port 9 of loopback: the first is set aside before any
        // connection, the others wait.
        let transport = Transport::parse("smtp://127.0.0.1:9").expect("valid");
        let flushed = outbox.flush(&transport, &no_notice).expect("flush");
        assert_eq!((flushed.refused.len(), flushed.waiting), (1, 2));
        let before = snapshot(outbox.dir());
        let unknown = outbox
            .drop_messages(&["00000001-000001.mail".into(), "00000009-000000.mail".into()])
            .expect_err("unknown");
        let text = unknown.to_string();
        assert!(text.contains("00000009-000000.mail"), "{text}");
        assert!(
            text.contains(
                "there are: 00000001-000001.mail, 00000001-000002.mail, 00000001-000000.refused"
            ),
            "{text}"
        );
        assert_eq!(snapshot(outbox.dir()), before, "nothing dropped");
        assert!(outbox.retry(&["00000001-000001.mail".into()]).is_err());
        outbox
            .drop_messages(&["00000001-000001.mail".into()])
            .expect("dropped");
        let ids: Vec<String> = outbox
            .list()
            .expect("list")
            .into_iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(ids, ["00000001-000002.mail", "00000001-000000.refused"]);
        let queued = outbox
            .retry(&["00000001-000000.refused".into()])
            .expect("retried");
        assert_eq!(queued, ["00000001-000000.mail"]);
        let waiting: Vec<Outgoing> = outbox
            .waiting()
            .expect("list")
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        assert_eq!(waiting, [to("no address", 1), message(3)]);
    }

    #[test]
    fn leftovers_are_removed_by_the_holder_of_the_lock_they_were_written_under() {
        let dir = tempfile::tempdir().expect("dir");
        let outbox = Outbox::beside(&dir.path().join("game.json"));
        let staged = outbox.stage(1, &[message(1)]).expect("stage");
        outbox.commit(&staged).expect("commit");
        let of_staged = outbox.dir().join(".00000001-000001.staged.tmp-0011");
        let of_flush = outbox.dir().join(".00000001-000000.mail.tmp-0022");
        fs::write(&of_staged, "x").expect("write");
        fs::write(&of_flush, "x").expect("write");
        // Under the game's lock: a flush may be writing its own right now.
        outbox.recover(1).expect("recover");
        assert!(!of_staged.exists() && of_flush.exists());
        outbox
            .drop_messages(&["00000001-000000.mail".into(), "00000001-000000.mail".into()])
            .expect("named twice, dropped once");
        assert!(!of_flush.exists());
        assert!(outbox.list().expect("list").is_empty());
    }
}
