//! The outbox: every outgoing message is written here, durably, before it is sent, so
//! a move and the mail it causes never part ways and no notice is lost when the mail
//! server is down.
//!
//! Beside `game.json` lives `game.json.outbox/`. A move's mail is first written as
//! `<records>-<n>.staged` files, then the game file is replaced, then the staged files
//! are renamed to `.mail`. A crash in between is repaired by [`Outbox::recover`]: staged
//! mail of a move that reached the game file is kept, of one that did not is dropped.
//! `.mail` files leave the outbox only once sent.
//!
//! Sending takes the outbox's own lock (`game.json.outbox.lock`), never the game's: a
//! slow or hung mail server must not hold up moves. Staging and recovery happen under
//! the game's lock, by the code that changes the game.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::capability::NoticeId;
use super::sent::SentNotices;
use super::transport::Transport;
use super::MailError;
use crate::engine::store::{self, Access};

/// One message ready to send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outgoing {
    /// Envelope sender.
    pub from: String,
    /// Envelope recipients.
    pub to: Vec<String>,
    /// The whole formatted message (RFC 5322, 7-bit clean as lettre writes it).
    pub message: String,
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
    pub waiting: usize,
    /// Turn notices and reminders dropped unsent because a later notice to the same
    /// player replaced them (the turn they asked for was over before they could go).
    pub superseded: usize,
    /// Why sending stopped, when it did.
    pub error: Option<String>,
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
        if messages.is_empty() {
            return Ok(Vec::new());
        }
        store::create_private_dir(&self.dir).map_err(MailError::io(&self.dir))?;
        // Numbered after every message still here, so a new one never takes the name
        // of one waiting (the count would repeat a name once earlier ones were sent).
        let next = self
            .entries("mail")?
            .iter()
            .chain(&self.entries("staged")?)
            .filter_map(|path| sequence(path))
            .max()
            .map_or(0, |last| last + 1);
        let mut staged = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            let path = self
                .dir
                .join(format!("{records:08}-{:06}.staged", next + i as u64));
            let bytes = serde_json::to_vec_pretty(message)
                .map_err(|error| MailError::Config(format!("cannot store a message: {error}")))?;
            store::write_atomic(&path, &bytes, Access::Private)?;
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
            fs::rename(path, path.with_extension("mail")).map_err(MailError::io(path))?;
        }
        Ok(())
    }

    /// Repairs an interrupted move: staged mail whose move is in the game file (its
    /// record count at most `records`) is kept, the rest dropped.
    ///
    /// # Errors
    /// The folder cannot be read or changed.
    pub fn recover(&self, records: u64) -> Result<(), MailError> {
        // Temporary files a killed write left (hidden names, see `store`).
        if let Ok(listing) = fs::read_dir(&self.dir) {
            for entry in listing.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with('.') && name.contains(".tmp-") {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        for path in self.entries("staged")? {
            let belongs_to = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.split('-').next())
                .and_then(|n| n.parse::<u64>().ok());
            match belongs_to {
                Some(count) if count <= records => self.commit(std::slice::from_ref(&path))?,
                _ => fs::remove_file(&path).map_err(MailError::io(&path))?,
            }
        }
        Ok(())
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
        let mut out = Vec::new();
        for path in self.entries("mail")? {
            let bytes = fs::read(&path).map_err(MailError::io(&path))?;
            let message = serde_json::from_slice(&bytes).map_err(|error| {
                MailError::Config(format!(
                    "{} is not an outbox message: {error}",
                    path.display()
                ))
            })?;
            out.push((path, message));
        }
        Ok(out)
    }

    /// Sends waiting messages in order; each leaves the outbox once sent. Stops at the
    /// first failure, so order is kept and nothing is skipped. Holds the outbox's lock
    /// while sending (waiting for it as [`store::lock`] does), so two runs never send
    /// one message twice, and a run never leaves its new mail to another that has
    /// already listed what it will send.
    ///
    /// # Errors
    /// The folder cannot be read, a sent message cannot be removed, or the lock stays
    /// taken too long.
    pub fn flush(&self, transport: &Transport) -> Result<Flushed, MailError> {
        let _lock = store::lock(&self.dir)?;
        let waiting = self.waiting()?;
        let mut flushed = Flushed {
            waiting: waiting.len(),
            ..Flushed::default()
        };
        let notices: Vec<Option<NoticeId>> = waiting
            .iter()
            .map(|(_, message)| notice_of(&message.message))
            .collect();
        for (index, (path, message)) in waiting.into_iter().enumerate() {
            if is_superseded(&notices, index) {
                fs::remove_file(&path).map_err(MailError::io(&path))?;
                flushed.superseded += 1;
                flushed.waiting -= 1;
                continue;
            }
            if let Err(error) =
                transport.send_raw(&message.from, &message.to, message.message.as_bytes())
            {
                flushed.error = Some(error.to_string());
                break;
            }
            fs::remove_file(&path).map_err(MailError::io(&path))?;
            flushed.sent += 1;
            flushed.waiting -= 1;
        }
        Ok(flushed)
    }
}

/// Our notice id of a composed message, read from its Message-ID header.
fn notice_of(message: &str) -> Option<NoticeId> {
    let headers = message.split("\r\n\r\n").next()?;
    headers.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("message-id")
            .then(|| NoticeId::parse(value.trim().trim_matches(['<', '>'])))
            .flatten()
    })
}

/// Whether the message at `index` asks a player to move (a turn notice or a reminder)
/// for a turn a later message to the same player in the same outbox has moved past.
fn is_superseded(notices: &[Option<NoticeId>], index: usize) -> bool {
    let Some(Some(notice)) = notices.get(index) else {
        return false;
    };
    if notice.kind != "turn" && !notice.kind.starts_with("remind") {
        return false;
    }
    notices[index + 1..].iter().flatten().any(|later| {
        later.game_id == notice.game_id && later.seat == notice.seat && later.turn > notice.turn
    })
}

/// The sequence number in an outbox file's name (`00000003-000012.mail` has 12).
fn sequence(path: &Path) -> Option<u64> {
    let stem = path.file_stem()?.to_str()?;
    stem.split_once('-')?.1.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(n: usize) -> Outgoing {
        Outgoing {
            from: "referee@example.org".into(),
            to: vec!["ann@example.org".into()],
            message: format!("Subject: {n}\r\n\r\nbody {n}\r\n"),
        }
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
            .flush(&Transport::Folder(sent.clone()))
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
        let flushed = outbox.flush(&transport).expect("flush");
        assert_eq!((flushed.sent, flushed.waiting), (0, 1));
        assert!(flushed.error.is_some());
        assert_eq!(outbox.waiting().expect("list").len(), 1);
    }
}
