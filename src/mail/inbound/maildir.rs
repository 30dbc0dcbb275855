//! Taking players' messages from a Maildir (what fetchmail, mbsync or the local mail
//! server delivers into), as `pbem inbox --maildir` does from cron.
//!
//! One run at a time per Maildir (`.pbem-inbox.lock` in its folder; a run that finds it
//! taken waits for it). A run first claims every message in `new/` by renaming it to
//! `cur/NAME.processing`, then handles the claimed ones in the order they arrived,
//! filing each once handled: as `cur/NAME:2,S` (seen) when it was for a game, as
//! `cur/NAME:2,` (unread) when it was for no game, so that the referee, when this is
//! also their own mailbox, still sees it as new in their mail client. A run that was killed leaves its
//! claims in `cur/`; the next run handles them first, since they arrived first.
//! Handling is exactly once even then: [`Receiver::receive`] knows by the archive what
//! was already done with a message.
//!
//! Arrival order is the order of the files' modification times: a delivery agent
//! writes a message in `tmp/` and renames it into `new/`, and renaming (into `new/`,
//! then `cur/`) keeps the time. Names are no order: Maildir names start with the
//! delivery second, but then vary by program (`M<microseconds>`, `R<random>`, a
//! sequence number, the host), and second numbers of different lengths do not sort.
//! The name breaks ties, so two runs agree.
//!
//! A fault on the referee's side with one message leaves it claimed for the next run,
//! with every later message for the same game ([`super::in_order`]).

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::in_order::Handled;
use super::in_order::Receiver;
use super::in_order::{handle_in_order, Mailbox};
use crate::basics::store;
use crate::mail::intake::MAX_MESSAGE_BYTES;
use crate::mail::MailError;

const CLAIMED: &str = ".processing";

/// Handles every message of the Maildir at `maildir` for the games in `games`, calling
/// `report` with each message's name and outcome as it is filed; returns how many were
/// handled.
///
/// # Errors
/// The Maildir cannot be read or changed, or a fault on the referee's side (see
/// [`Receiver::receive`]); the messages not yet handled stay claimed for the next run.
pub fn process(
    referee: &dyn Receiver,
    games: &Path,
    maildir: &Path,
    report: &mut dyn FnMut(&str, &Handled),
) -> Result<usize, MailError> {
    process_until(referee, games, maildir, report, &|| false)
}

/// [`process`], stopping between two messages once `stop` says so (the messages left
/// stay claimed, and the next run handles them first).
///
/// # Errors
/// As [`process`].
pub fn process_until(
    referee: &dyn Receiver,
    games: &Path,
    maildir: &Path,
    report: &mut dyn FnMut(&str, &Handled),
    stop: &dyn Fn() -> bool,
) -> Result<usize, MailError> {
    let new = maildir.join("new");
    let cur = maildir.join("cur");
    if !new.is_dir() {
        return Err(MailError::Config(format!(
            "{} is not a Maildir (it has no new/ folder)",
            maildir.display()
        )));
    }
    std::fs::create_dir_all(&cur).map_err(MailError::io(&cur))?;
    let _lock = store::lock(&maildir.join(".pbem-inbox"))?;
    let mut claimed = names_in(&cur, |name| name.ends_with(CLAIMED))?;
    for name in names_in(&new, |name| !name.starts_with('.'))? {
        let mut working = name.clone();
        working.push(CLAIMED);
        // Another program may have taken it meanwhile (a mail client marking it read).
        if std::fs::rename(new.join(&name), cur.join(&working)).is_ok() {
            crate::basics::crash::step();
            claimed.push(working);
        }
    }
    let messages = in_arrival_order(&cur, claimed);
    handle_in_order(referee, games, &mut Claimed { cur }, messages, report, stop)
}

/// The messages a run claimed in `cur/`.
struct Claimed {
    cur: PathBuf,
}

impl Mailbox for Claimed {
    type Message = OsString;

    fn read(&mut self, working: &OsString) -> Result<Vec<u8>, MailError> {
        read_bounded(&self.cur.join(working))
    }

    fn file(&mut self, working: &OsString, handled: &Handled) -> Result<String, MailError> {
        let name = working.to_string_lossy();
        let name = name.strip_suffix(CLAIMED).unwrap_or(&name).to_string();
        // Mail for a game is done with: seen. Mail for no game is the referee's to
        // read, so their mail client shows it unread.
        let flags = if handled.game.is_some() { "S" } else { "" };
        let filed = self.cur.join(format!("{name}:2,{flags}"));
        std::fs::rename(self.cur.join(working), &filed).map_err(MailError::io(&filed))?;
        crate::basics::crash::step();
        Ok(name)
    }
}

/// Claimed messages in the order they arrived: by modification time, then by name.
fn in_arrival_order(cur: &Path, claimed: Vec<OsString>) -> Vec<OsString> {
    let mut timed: Vec<(Option<std::time::SystemTime>, OsString)> = claimed
        .into_iter()
        .map(|name| {
            let modified = std::fs::symlink_metadata(cur.join(&name))
                .and_then(|meta| meta.modified())
                .ok();
            (modified, name)
        })
        .collect();
    timed.sort();
    timed.into_iter().map(|(_, name)| name).collect()
}

/// The names of the regular files in `dir` that `wanted` accepts, sorted.
fn names_in(dir: &Path, wanted: impl Fn(&str) -> bool) -> Result<Vec<OsString>, MailError> {
    let listing = std::fs::read_dir(dir).map_err(MailError::io(dir))?;
    let mut names: Vec<OsString> = listing
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .map(|entry| entry.file_name())
        .filter(|name| wanted(&name.to_string_lossy()))
        .collect();
    names.sort();
    Ok(names)
}

/// A message's bytes, at most one more than any message pbem reads (so a larger one is
/// recognised as too large without reading it all).
fn read_bounded(path: &Path) -> Result<Vec<u8>, MailError> {
    let file = std::fs::File::open(path).map_err(MailError::io(path))?;
    let mut raw = Vec::new();
    file.take(MAX_MESSAGE_BYTES as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(MailError::io(path))?;
    Ok(raw)
}
