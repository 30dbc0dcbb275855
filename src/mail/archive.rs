//! Every raw message received, accepted or refused, kept beside its game with its
//! outcome (`game.json.mail/`), and what the reminders need to know: since when each
//! player has been waited for.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::MailError;

/// One archived message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The archive file name of the raw message.
    pub file: String,
    pub message_id: Option<String>,
    pub from: Option<String>,
    pub subject: String,
    /// applied, refused, stale, duplicate, forged, not-a-player, no-game, unreadable.
    pub outcome: String,
    /// What the outcome means, as told to the sender.
    pub detail: String,
    /// Unix seconds.
    pub at: u64,
}

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
        let path = self.index();
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(MailError::io(path)(error)),
        };
        Ok(text
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect())
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
        fs::create_dir_all(&self.dir).map_err(MailError::io(&self.dir))?;
        let count = self.entries()?.len();
        entry.file = format!("{:06}-{}.eml", count + 1, entry.outcome);
        let path = self.dir.join(&entry.file);
        crate::engine::store::write_atomic(&path, raw)?;
        let mut line = serde_json::to_string(&entry)
            .map_err(|error| MailError::Config(format!("cannot index a message: {error}")))?;
        line.push('\n');
        let index = self.index();
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&index)
            .map_err(MailError::io(&index))?;
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(MailError::io(&index))?;
        Ok(entry)
    }
}

/// Since when each seat has been waited for, and when it was last reminded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiting {
    pub seats: BTreeMap<usize, Wait>,
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
    fn path(archive: &Archive) -> PathBuf {
        archive.dir.join("waiting.json")
    }

    /// # Errors
    /// The file exists but cannot be read.
    pub fn load(archive: &Archive) -> Result<Waiting, MailError> {
        let path = Waiting::path(archive);
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| {
                MailError::Config(format!("{} is not valid: {error}", path.display()))
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Waiting::default()),
            Err(error) => Err(MailError::io(path)(error)),
        }
    }

    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, archive: &Archive) -> Result<(), MailError> {
        fs::create_dir_all(&archive.dir).map_err(MailError::io(&archive.dir))?;
        let bytes = serde_json::to_vec_pretty(self)
            .map_err(|error| MailError::Config(format!("cannot store waits: {error}")))?;
        crate::engine::store::write_atomic(&Waiting::path(archive), &bytes)?;
        Ok(())
    }
}

/// Now, in Unix seconds. PBEM_NOW overrides it, so reminders can be tested and a
/// referee can replay a cron run.
pub fn now() -> u64 {
    if let Some(now) = std::env::var("PBEM_NOW").ok().and_then(|v| v.parse().ok()) {
        return now;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
