//! Every raw message received, accepted or refused, kept beside its game with its
//! outcome (`game.json.mail/`), and what the reminders need to know: since when each
//! player has been waited for.

use std::collections::{BTreeMap, BTreeSet};

pub use crate::mail::inbound::commands::Delivery;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::basics::digest::{sha256, to_hex};
use crate::basics::store::{self, Access};
use crate::mail::outbound::outbox::{CommitPoint, Outbox};
use crate::mail::outbound::outgoing::Outgoing;
use crate::mail::MailError;

/// One archived message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The archive file name of the raw message.
    pub file: String,
    pub message_id: Option<String>,
    pub from: Option<String>,
    pub subject: String,
    /// applied, refused, stale, duplicate, forged, not-a-player, no-game, other-folder
    /// (a reply to a notice of a game kept in another folder), unreadable, and the
    /// answers to requests (moves, previewed, question, status, ...).
    pub outcome: String,
    /// What the outcome means, as told to the sender.
    pub detail: String,
    /// Unix seconds.
    pub at: u64,
    /// The move as read from the message (the player's own lines), when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_text: Option<String>,
    /// The record an applied message's move became.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    /// The message's fingerprint ([`crate::mail::outbound::capability::MailSecret::message_fingerprint`]),
    /// by which a copy delivered again under another Message-ID is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// In place of `move_text` for a sealed move: a keyed digest of its words
    /// (`MailSecret::sealed_move_tag`), so the index never holds it in clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_move: Option<String>,
}

/// The most of an archive's index pbem reads: 1 GiB. Every message a game receives
/// adds a line (a stranger's too), so the bound is far above any game's, and only
/// stops a planted device or an endless file.
const MAX_INDEX_BYTES: u64 = 1024 * 1024 * 1024;

/// A folder of raw messages and their index.
#[derive(Debug, Clone)]
pub struct Archive {
    dir: PathBuf,
}

impl Archive {
    /// The archive of a game file.
    pub fn beside(game_file: &Path) -> Archive {
        let mut name = game_file.file_name().unwrap_or_default().to_os_string();
        name.push(".mail");
        Archive {
            dir: game_file.with_file_name(name),
        }
    }

    /// An archive in a folder of its own (messages that match no game).
    pub fn at(dir: PathBuf) -> Archive {
        Archive { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn index(&self) -> PathBuf {
        self.dir.join("index.jsonl")
    }

    /// Every entry, oldest first.
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn entries(&self) -> Result<Vec<Entry>, MailError> {
        Ok(self
            .index_text()?
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect())
    }

    /// The index's text; empty when there is none yet.
    fn index_text(&self) -> Result<String, MailError> {
        let path = self.index();
        match store::read_text_limited(&path, MAX_INDEX_BYTES) {
            Ok(text) => Ok(text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(error) => Err(MailError::io(path)(error)),
        }
    }

    /// The entry of an earlier message with this Message-ID.
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn find(&self, message_id: &str) -> Result<Option<Entry>, MailError> {
        Ok(self.entries()?.into_iter().find(|e| {
            e.message_id
                .as_deref()
                .is_some_and(|id| id.eq_ignore_ascii_case(message_id))
        }))
    }

    /// Keeps a raw message and appends its entry (the `file` field is filled in).
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn keep(&self, raw: &[u8], mut entry: Entry) -> Result<Entry, MailError> {
        store::create_private_dir(&self.dir).map_err(MailError::io(&self.dir))?;
        // Numbered on from the newest, which [`Archive::keep_newest`] leaves in place.
        // Only the last line is read as JSON: a stranger's flood makes a long index.
        let text = self.index_text()?;
        let newest = text
            .lines()
            .rev()
            .find_map(|line| serde_json::from_str::<Entry>(line).ok())
            .and_then(|last| file_number(&last.file))
            .unwrap_or(0);
        let number = newest.max(text.lines().count() as u64);
        entry.file = format!("{:06}-{}.eml", number + 1, entry.outcome);
        let path = self.dir.join(&entry.file);
        store::write_atomic(&path, raw, Access::Private)?;
        let mut line = serde_json::to_string(&entry)
            .map_err(|error| MailError::Config(format!("cannot index a message: {error}")))?;
        line.push('\n');
        let index = self.index();
        store::append_private(&index, line.as_bytes()).map_err(MailError::io(&index))?;
        Ok(entry)
    }

    /// Keeps only the newest `most` messages: the older ones' files are removed and
    /// the index is rewritten without them. Returns how many messages were ever
    /// removed: the number of the oldest one kept, less one.
    ///
    /// # Errors
    /// The folder cannot be read or changed.
    pub fn keep_newest(&self, most: usize) -> Result<u64, MailError> {
        let text = self.index_text()?;
        let lines: Vec<&str> = text.lines().collect();
        let removed_before = |kept: &[&str]| {
            kept.iter()
                .find_map(|line| serde_json::from_str::<Entry>(line).ok())
                .and_then(|first| file_number(&first.file))
                .map_or(0, |number| number.saturating_sub(1))
        };
        if lines.len() <= most {
            return Ok(removed_before(&lines));
        }
        let (old, kept) = lines.split_at(lines.len() - most);
        let mut index = kept.join("\n");
        index.push('\n');
        // The index first: a run killed after it leaves files no index names, never
        // an index that names files gone.
        store::write_atomic(&self.index(), index.as_bytes(), Access::Private)?;
        for entry in old
            .iter()
            .filter_map(|line| serde_json::from_str::<Entry>(line).ok())
        {
            let path = self.dir.join(&entry.file);
            match fs::remove_file(&path) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    return Err(MailError::io(path)(error))
                }
                _ => crate::basics::crash::step(),
            }
        }
        Ok(removed_before(kept))
    }

    /// Keeps the newest `most` entries whose outcome `picked` chooses, and every entry
    /// it does not: the older picked ones' files are removed and the index rewritten
    /// without them, as [`Archive::keep_newest`] does. What strangers send a game is
    /// bounded so, while the entries that tell a copy from a new move stay.
    ///
    /// # Errors
    /// The folder cannot be read or changed.
    pub fn keep_newest_of(
        &self,
        picked: impl Fn(&str) -> bool,
        most: usize,
    ) -> Result<(), MailError> {
        let text = self.index_text()?;
        let is_picked = |line: &str| {
            serde_json::from_str::<Entry>(line).is_ok_and(|entry| picked(&entry.outcome))
        };
        let count = text.lines().filter(|line| is_picked(line)).count();
        if count <= most {
            return Ok(());
        }
        let mut excess = count - most;
        let mut index = String::with_capacity(text.len());
        let mut removed = Vec::new();
        for line in text.lines() {
            if excess > 0 && is_picked(line) {
                excess -= 1;
                removed.extend(serde_json::from_str::<Entry>(line).ok().map(|e| e.file));
                continue;
            }
            index.push_str(line);
            index.push('\n');
        }
        // The index first: a run killed after it leaves files no index names, never
        // an index that names files gone.
        store::write_atomic(&self.index(), index.as_bytes(), Access::Private)?;
        for file in removed {
            let path = self.dir.join(file);
            match fs::remove_file(&path) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    return Err(MailError::io(path)(error))
                }
                _ => crate::basics::crash::step(),
            }
        }
        Ok(())
    }

    fn pending_path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("pending-{key}"))
    }

    /// Notes, durably, that handling of the message `key` ([`message_key`]) has begun
    /// while the game had `records` records; [`Archive::keep`] followed by
    /// [`Archive::finish_pending`] ends it. A run killed in between leaves the note, so
    /// the retry knows the message's move may already be in the game file. The note
    /// keeps the message's fingerprint, so that a copy delivered under another
    /// Message-ID is known for the same message ([`Archive::pending_fingerprint`]).
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn begin_pending(
        &self,
        key: &str,
        records: u64,
        fingerprint: Option<&str>,
    ) -> Result<(), MailError> {
        store::create_private_dir(&self.dir).map_err(MailError::io(&self.dir))?;
        let path = self.pending_path(key);
        let note = format!("{records}\n{}", fingerprint.unwrap_or_default());
        store::write_atomic(&path, note.as_bytes(), Access::Private)?;
        Ok(())
    }

    /// The record count noted when an earlier run began handling the message `key` and
    /// did not finish; `None` when none did.
    pub fn pending(&self, key: &str) -> Option<u64> {
        let path = self.pending_path(key);
        if !store::is_regular_file(&path) {
            return None;
        }
        store::read_text_limited(&path, store::MAX_SMALL_FILE_BYTES)
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
    }

    /// The key of an unfinished message with this fingerprint, if a run began
    /// handling one and did not finish.
    pub fn pending_fingerprint(&self, fingerprint: &str) -> Option<String> {
        fs::read_dir(&self.dir)
            .ok()?
            .filter_map(|entry| entry.ok())
            .find_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let key = name.strip_prefix("pending-")?.to_string();
                let note =
                    store::read_text_limited(&entry.path(), store::MAX_SMALL_FILE_BYTES).ok()?;
                (note.lines().nth(1) == Some(fingerprint)).then_some(key)
            })
    }

    /// Ends what [`Archive::begin_pending`] began.
    ///
    /// # Errors
    /// The note cannot be removed.
    pub fn finish_pending(&self, key: &str) -> Result<(), MailError> {
        let path = self.pending_path(key);
        match fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(MailError::io(path)(error))
            }
            _ => {
                crate::basics::crash::step();
                Ok(())
            }
        }
    }
}

/// The most of a message's header a game's archive keeps of a message that changed
/// nothing: every client's and server's header fits (Gmail's, with its DKIM and ARC
/// lines, is under 10 KiB).
pub const HEADER_KEPT: usize = 32 * 1024;

/// How many entries of strangers' mail (not a player, or a player's turn without
/// their proof) a game's archive keeps: the newest.
pub const STRANGERS_KEPT: usize = 1000;

/// Whether an outcome is of a stranger's message to a game: from no player, or
/// claiming a player's turn without their proof. (A machine's message is kept with
/// the mail for no game, `unmatched.mail/`, bounded there.)
pub fn is_strangers(outcome: &str) -> bool {
    matches!(outcome, "not-a-player" | "forged")
}

/// Whether a message with this outcome changed the game or what its referee keeps for
/// a player (a move, an undo, a join, a note, an absence, a setting): such a message
/// is kept whole. Of any other only the header is kept ([`header_only`]): it tells a
/// copy from a new move, and a stranger's mail must not fill the referee's disk.
pub fn changed_something(outcome: &str) -> bool {
    matches!(
        outcome,
        "applied" | "undo" | "joined" | "noted" | "away" | "back" | "pictures" | "digest"
    )
}

/// The header of a raw message (up to and with the blank line that ends it), at most
/// [`HEADER_KEPT`] bytes of it.
pub fn header_only(raw: &[u8]) -> &[u8] {
    let end =
        crate::mail::intake::header_end(raw, HEADER_KEPT).unwrap_or(raw.len().min(HEADER_KEPT));
    &raw[..end]
}

/// The number an archive file name starts with (`000042-applied.eml`).
pub(crate) fn file_number(file: &str) -> Option<u64> {
    file.split('-').next()?.parse().ok()
}

/// A short name for one incoming message: from its Message-ID, or its bytes when it
/// has none.
pub fn message_key(message_id: Option<&str>, raw: &[u8]) -> String {
    let digest = match message_id {
        Some(id) => sha256(id.to_ascii_lowercase().as_bytes()),
        None => sha256(raw),
    };
    to_hex(&digest[..12])
}

/// When mail of a kind last went to an address, so notices a stranger can cause (someone
/// tried to move for you, you are not a player) are sent at most once per interval.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttle {
    /// `kind address` to Unix seconds.
    pub last: BTreeMap<String, u64>,
}

impl Throttle {
    fn path(archive: &Archive) -> PathBuf {
        archive.dir.join("throttle.json")
    }

    /// # Errors
    /// The file exists but cannot be read.
    pub fn load(archive: &Archive) -> Result<Throttle, MailError> {
        read_json(&Throttle::path(archive))
    }

    /// Whether mail of `kind` may go to `address` now; if so, notes it as sent now.
    pub fn allow(&mut self, kind: &str, address: &str, now: u64, interval: u64) -> bool {
        let key = format!("{kind} {}", address.to_ascii_lowercase());
        match self.last.get(&key) {
            Some(&last) if now.saturating_sub(last) < interval => false,
            _ => {
                self.last.insert(key, now);
                true
            }
        }
    }

    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, archive: &Archive) -> Result<(), MailError> {
        write_json(archive, &Throttle::path(archive), self)
    }
}

fn read_json<T: Default + serde::de::DeserializeOwned>(path: &Path) -> Result<T, MailError> {
    match store::read_limited(path, store::MAX_GAME_FILE_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| {
            MailError::Config(format!("{} is not valid: {error}", path.display()))
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(error) => Err(MailError::io(path)(error)),
    }
}

fn write_json(archive: &Archive, path: &Path, value: &impl Serialize) -> Result<(), MailError> {
    store::create_private_dir(&archive.dir).map_err(MailError::io(&archive.dir))?;
    let bytes = serde_json::to_vec_pretty(value)
        .map_err(|error| MailError::Config(format!("cannot store {}: {error}", path.display())))?;
    store::write_atomic(path, &bytes, Access::Private)?;
    Ok(())
}

/// Who in a game gets the board's picture in their mail: everyone, unless the
/// referee turned pictures off for the game (`pbem pictures FILE off`) or a player by
/// reply (`pictures off`). `[mail] pictures = false` in config.toml turns them off for
/// every game, above this.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pictures {
    /// The referee turned pictures off for the whole game.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub game_off: bool,
    /// Seats that turned them off for themselves.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub seats_off: BTreeSet<usize>,
}

impl Pictures {
    fn path(archive: &Archive) -> PathBuf {
        archive.dir.join("pictures.json")
    }

    /// Whether `seat` gets pictures.
    pub fn wanted_by(&self, seat: usize) -> bool {
        !self.game_off && !self.seats_off.contains(&seat)
    }

    /// # Errors
    /// The file exists but cannot be read.
    pub fn load(archive: &Archive) -> Result<Pictures, MailError> {
        read_json(&Pictures::path(archive))
    }

    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, archive: &Archive) -> Result<(), MailError> {
        write_json(archive, &Pictures::path(archive), self)
    }
}

/// How each seat of a game gets its mail ([`Delivery`]): `digest daily`, `digest
/// off` and `digest turn` (the default) by reply.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Digests {
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub daily: BTreeSet<usize>,
    /// Seats that asked for every move's mail as it happens.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub every: BTreeSet<usize>,
}

impl Digests {
    fn path(archive: &Archive) -> PathBuf {
        archive.dir.join("digest.json")
    }

    /// How `seat` gets its mail.
    pub fn delivery(&self, seat: usize) -> Delivery {
        if self.daily.contains(&seat) {
            Delivery::Daily
        } else if self.every.contains(&seat) {
            Delivery::EveryMove
        } else {
            Delivery::WithMyTurn
        }
    }

    /// Sets how `seat` gets its mail.
    pub fn set(&mut self, seat: usize, delivery: Delivery) {
        self.daily.remove(&seat);
        self.every.remove(&seat);
        match delivery {
            Delivery::Daily => {
                self.daily.insert(seat);
            }
            Delivery::EveryMove => {
                self.every.insert(seat);
            }
            Delivery::WithMyTurn => {}
        }
    }

    /// # Errors
    /// The file exists but cannot be read.
    pub fn load(archive: &Archive) -> Result<Digests, MailError> {
        read_json(&Digests::path(archive))
    }

    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, archive: &Archive) -> Result<(), MailError> {
        write_json(archive, &Digests::path(archive), self)
    }
}

/// One notice held for a seat's digest: another player's move as that seat may read
/// it, and the notes from the table that came with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// Unix seconds of the move.
    pub at: u64,
    /// The move's number, as the notice would have said it.
    pub turn: u64,
    pub mover: String,
    /// How the move was entered (`mail`, `referee`, `skip`, `forfeit`, `forced`...).
    pub entered: String,
    /// The move as understood; empty for a sealed move, which this seat may not read.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub understood: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sealed: bool,
    /// The report's lines this seat may read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub report: Vec<String>,
    /// The notes from the table, inert lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The reader's own move: its confirmation, held for their next mail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<OwnMove>,
}

/// What the confirmation of a player's own move says besides the move as understood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnMove {
    /// The hash of their record, their receipt.
    pub receipt: String,
    /// The lines of their message left out of the move, inert, joined by " / ".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ignored: String,
    /// The Message-ID of the mail the move came in: the mail that carries this
    /// confirmation answers it, so it stays in the thread of the player's reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<String>,
}

/// Since when each seat has been waited for, and when it was last reminded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiting {
    pub seats: BTreeMap<usize, Wait>,
    /// Seats away (`away until DATE`), to the Unix second their absence ends: no
    /// reminder before it, and their deadline counts from it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub away: BTreeMap<usize, u64>,
    /// The notices held for each seat's digest, oldest first. Kept with the waits so
    /// that they are staged and committed with the move that made them: a notice is
    /// never both held and sent, nor lost.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub held: BTreeMap<usize, Vec<Held>>,
    /// For each seat, the board picture it was last sent: a mail whose picture would
    /// show the reader nothing new goes without it. Kept with the waits for the same
    /// reason as `held`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pictured: BTreeMap<usize, Pictured>,
    /// How many times these waits were written with mail that changes no game (a
    /// digest, a reminder, the word that the game is closed): the commit point of that
    /// mail, see [`Waiting::save_with_mail`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u64,
    /// Whether the players were told that the referee closed the game (its seed
    /// revealed before its end).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The board picture a seat was last sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pictured {
    /// A hash of its drawing (the SVG it was drawn from).
    pub drawing: String,
    /// The records of the game when it was sent.
    pub records: u64,
}

/// One player's wait.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wait {
    /// The turn the notice asked for.
    pub turn: u64,
    /// Unix seconds of the notice.
    pub since: u64,
    /// Unix seconds of the last reminder.
    pub reminded: Option<u64>,
}

impl Waiting {
    /// The waits once `to_move` are to move after `mover`'s move (none at the start):
    /// a seat that still owes a move since an earlier notice keeps that notice and its
    /// clock; a seat newly to move, or the mover to move again, gets a notice for
    /// `notice_turn` now. Returns the seats that need that notice.
    pub fn advance(
        &mut self,
        to_move: &[usize],
        mover: Option<usize>,
        notice_turn: u64,
        now: u64,
    ) -> Vec<usize> {
        self.seats.retain(|seat, _| to_move.contains(seat));
        let mut notify = Vec::new();
        for &seat in to_move {
            if Some(seat) == mover || !self.seats.contains_key(&seat) {
                self.seats.insert(
                    seat,
                    Wait {
                        turn: notice_turn,
                        since: now,
                        reminded: None,
                    },
                );
                notify.push(seat);
            }
        }
        notify
    }

    /// When the clock of `seat`'s wait started, for the deadline: the notice, or the
    /// end of an absence after it.
    pub fn clock_start(&self, seat: usize) -> Option<u64> {
        let since = self.seats.get(&seat)?.since;
        Some(self.away.get(&seat).map_or(since, |&back| since.max(back)))
    }

    /// Whether `seat` is away at `now`.
    pub fn is_away(&self, seat: usize, now: u64) -> bool {
        self.away.get(&seat).is_some_and(|&back| now < back)
    }

    fn path(archive: &Archive) -> PathBuf {
        archive.dir.join("waiting.json")
    }

    /// # Errors
    /// The file exists but cannot be read.
    pub fn load(archive: &Archive) -> Result<Waiting, MailError> {
        read_json(&Waiting::path(archive))
    }

    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, archive: &Archive) -> Result<(), MailError> {
        write_json(archive, &Waiting::path(archive), self)
    }

    /// Writes these waits with `mail` that changes no game, as one change: the mail is
    /// staged in `outbox`, then the waits are written with the next generation (the
    /// commit point), then the mail is made ready. A run killed before the waits are
    /// written has its mail dropped on recovery, and the waits still hold what it
    /// would have told; one killed after has it made ready. Such mail is sent once:
    /// never twice, never lost. `records` is the game's record count now.
    ///
    /// # Errors
    /// A file cannot be written.
    pub fn save_with_mail(
        &mut self,
        archive: &Archive,
        outbox: &Outbox,
        records: u64,
        mail: &[Outgoing],
    ) -> Result<(), MailError> {
        if mail.is_empty() {
            return self.save(archive);
        }
        self.generation += 1;
        let point = CommitPoint::MailState {
            records,
            generation: self.generation,
        };
        let staged = outbox.stage_at(point, mail)?;
        self.save(archive)?;
        outbox.commit(&staged)
    }

    /// Writes these waits, durably, as the waits of the game once it has `records`
    /// records, without making them the waits yet: a change of the game stages its
    /// waits with its mail, before the game file is replaced, and
    /// [`Waiting::commit_staged`] makes them the waits after. A run killed in between
    /// leaves them staged for [`Waiting::recover`], so the waits never lag behind the
    /// game (a stale wait would deny the next player their notice and run their
    /// deadline from an older one).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn stage(&self, archive: &Archive, records: u64) -> Result<PathBuf, MailError> {
        let path = archive.dir.join(format!("waiting-{records:08}.staged"));
        write_json(archive, &path, self)?;
        Ok(path)
    }

    /// Makes staged waits the waits. The notes the move's notices carried are
    /// forgotten first, so a run killed between the two forgets them on recovery.
    ///
    /// # Errors
    /// A file cannot be removed or renamed.
    pub fn commit_staged(archive: &Archive, staged: &Path) -> Result<(), MailError> {
        Notes::clear(archive)?;
        let path = Waiting::path(archive);
        fs::rename(staged, &path).map_err(MailError::io(&path))?;
        store::sync_dir(&archive.dir).map_err(MailError::io(&archive.dir))?;
        crate::basics::crash::step();
        Ok(())
    }

    /// Repairs an interrupted change of the game: staged waits of a change that
    /// reached the game file (their record count at most `records`) are committed,
    /// the others dropped.
    ///
    /// # Errors
    /// The folder cannot be read or changed.
    pub fn recover(archive: &Archive, records: u64) -> Result<(), MailError> {
        let listing = match fs::read_dir(&archive.dir) {
            Ok(listing) => listing,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(error) => return Err(MailError::io(&archive.dir)(error)),
        };
        let mut staged: Vec<(u64, PathBuf)> = listing
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let count = name.strip_prefix("waiting-")?.strip_suffix(".staged")?;
                Some((count.parse().ok()?, entry.path()))
            })
            .collect();
        staged.sort();
        for (count, path) in staged {
            if count <= records {
                Waiting::commit_staged(archive, &path)?;
            } else {
                fs::remove_file(&path).map_err(MailError::io(&path))?;
                crate::basics::crash::step();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(archive: &Archive, n: usize) -> Entry {
        let entry = Entry {
            file: String::new(),
            message_id: Some(format!("m{n}@example.net")),
            from: None,
            subject: format!("message {n}"),
            outcome: "no-game".into(),
            detail: String::new(),
            at: n as u64,
            move_text: None,
            turn: None,
            fingerprint: None,
            sealed_move: None,
        };
        archive
            .keep(format!("raw {n}").as_bytes(), entry)
            .expect("kept")
    }

    #[test]
    fn an_archive_kept_to_its_newest_messages_numbers_on_and_removes_the_oldest() {
        let dir = tempfile::tempdir().expect("dir");
        let archive = Archive::at(dir.path().join("unmatched.mail"));
        for n in 1..=5 {
            kept(&archive, n);
            assert_eq!(
                archive.keep_newest(3).expect("kept"),
                n.saturating_sub(3) as u64
            );
        }
        let files: Vec<String> = archive
            .entries()
            .expect("index")
            .into_iter()
            .map(|e| e.file)
            .collect();
        assert_eq!(
            files,
            [
                "000003-no-game.eml",
                "000004-no-game.eml",
                "000005-no-game.eml"
            ]
        );
        // New messages number on from the newest, never over a file kept.
        assert_eq!(kept(&archive, 6).file, "000006-no-game.eml");
        assert_eq!(archive.keep_newest(3).expect("kept"), 3);
        let mut on_disk: Vec<String> = fs::read_dir(archive.dir())
            .expect("dir")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|name| name.ends_with(".eml"))
            .collect();
        on_disk.sort();
        assert_eq!(
            on_disk,
            [
                "000004-no-game.eml",
                "000005-no-game.eml",
                "000006-no-game.eml"
            ]
        );
        assert_eq!(
            fs::read(archive.dir().join("000006-no-game.eml")).expect("raw"),
            b"raw 6"
        );
        assert!(archive.find("m2@example.net").expect("index").is_none());
        assert!(archive.find("m5@example.net").expect("index").is_some());
    }

    #[test]
    fn each_seat_keeps_its_own_clock_until_it_moves() {
        let mut waiting = Waiting::default();
        // Three seats owe a sealed choice from the notice of turn 1.
        assert_eq!(waiting.advance(&[0, 1, 2], None, 1, 100), vec![0, 1, 2]);
        // Seat 1 chooses (record 1): the others keep their notice and clock, nobody is
        // sent "your move" again.
        assert!(waiting.advance(&[0, 2], Some(1), 2, 500).is_empty());
        assert_eq!(waiting.seats[&0].since, 100);
        assert_eq!(waiting.seats[&2].turn, 1);
        assert!(!waiting.seats.contains_key(&1));
        // All chose; seat 2 is to move alone, then again after its own move.
        assert!(waiting.advance(&[2], Some(0), 3, 900).is_empty());
        assert_eq!(waiting.seats[&2].since, 100);
        assert_eq!(waiting.advance(&[2], Some(2), 4, 1000), vec![2]);
        assert_eq!(waiting.seats[&2].since, 1000);
        assert_eq!(waiting.seats[&2].turn, 4);
        // The next seat in a sequential game: a new notice, a new clock.
        assert_eq!(waiting.advance(&[0], Some(2), 5, 1200), vec![0]);
        assert_eq!(waiting.seats.len(), 1);
    }
}

/// Notes players wrote (`note: ...`), kept until the next notices carry them to the
/// other players. Not part of the signed record: table talk, not moves.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notes {
    pub notes: Vec<Note>,
}

/// One player's note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// The message it came in (its archive key), so a retried message adds it once.
    pub message: String,
    pub player: String,
    pub text: String,
}

impl Notes {
    fn path(archive: &Archive) -> PathBuf {
        archive.dir.join("notes.json")
    }

    /// # Errors
    /// The file exists but cannot be read.
    pub fn load(archive: &Archive) -> Result<Notes, MailError> {
        read_json(&Notes::path(archive))
    }

    /// Keeps `texts` of `player` from message `message`, once.
    ///
    /// # Errors
    /// The file cannot be read or written.
    pub fn add(
        archive: &Archive,
        message: &str,
        player: &str,
        texts: &[String],
    ) -> Result<(), MailError> {
        let mut notes = Notes::load(archive)?;
        if notes.notes.iter().any(|note| note.message == message) {
            return Ok(());
        }
        notes.notes.extend(texts.iter().map(|text| Note {
            message: message.to_string(),
            player: player.to_string(),
            text: text.clone(),
        }));
        write_json(archive, &Notes::path(archive), &notes)
    }

    /// The notes for `reader`: everyone else's, as "Name: text".
    pub fn for_reader(&self, reader: &str) -> Vec<String> {
        self.notes
            .iter()
            .filter(|note| note.player != reader)
            .map(|note| format!("{}: {}", note.player, note.text))
            .collect()
    }

    /// Forgets the notes once the notices that carry them are staged.
    ///
    /// # Errors
    /// The file cannot be removed.
    pub fn clear(archive: &Archive) -> Result<(), MailError> {
        let path = Notes::path(archive);
        match fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(MailError::io(path)(error))
            }
            _ => {
                crate::basics::crash::step();
                Ok(())
            }
        }
    }
}
