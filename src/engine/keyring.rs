//! The referee's keyring: the signing key and each game's seed, in PBEM_HOME.
//!
//! Layout: `PBEM_HOME/referee.key` (the Ed25519 secret key, hex) and
//! `PBEM_HOME/seeds/<game-id>.seed` (hex). Files are created readable by their owner
//! only; nothing from here is ever written into a game file, a log or an error.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use ed25519_dalek::SigningKey;

pub use super::error::KeyringError;
use super::fairness::Seed;
use crate::basics::digest::{hash_from_any_hex, sha256, to_hex};
use crate::basics::store::{create_private_dir, read_limited, read_text_limited};

/// The referee's secrets, in one folder.
#[derive(Debug, Clone)]
pub struct Keyring {
    home: PathBuf,
}

impl Keyring {
    /// The keyring named by PBEM_HOME, or the platform's data folder.
    ///
    /// # Errors
    /// Neither is known.
    pub fn from_env() -> Result<Keyring, KeyringError> {
        match std::env::var_os("PBEM_HOME") {
            Some(home) if !home.is_empty() => Ok(Keyring::at(home)),
            _ => dirs::data_dir()
                .map(|dir| Keyring::at(dir.join("pbem")))
                .ok_or(KeyringError::NoHome),
        }
    }

    pub fn at(home: impl Into<PathBuf>) -> Keyring {
        Keyring { home: home.into() }
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    fn key_path(&self) -> PathBuf {
        self.home.join("referee.key")
    }

    fn seed_path(&self, game_id: &str) -> Result<PathBuf, KeyringError> {
        Ok(self
            .home
            .join("seeds")
            .join(format!("{}.seed", checked_id(game_id)?)))
    }

    /// The referee's signing key.
    ///
    /// # Errors
    /// There is none (only [`Keyring::create_signing_key`], which `pbem new` calls,
    /// makes one: a command pointed at the wrong keyring must fail, not sign with a new
    /// key), or it cannot be read, or is malformed.
    pub fn signing_key(&self) -> Result<SigningKey, KeyringError> {
        match read_secret(&self.key_path())? {
            Some(bytes) => Ok(SigningKey::from_bytes(&bytes)),
            None => Err(KeyringError::NoKey {
                home: self.home.clone(),
            }),
        }
    }

    /// The referee's signing key, created if this keyring has none yet.
    ///
    /// # Errors
    /// The file cannot be read or created, or is malformed.
    pub fn create_signing_key(&self) -> Result<SigningKey, KeyringError> {
        let path = self.key_path();
        match read_secret(&path)? {
            Some(bytes) => Ok(SigningKey::from_bytes(&bytes)),
            None => {
                let bytes = random_bytes()?;
                write_secret(&path, &bytes)?;
                Ok(SigningKey::from_bytes(&bytes))
            }
        }
    }

    fn verified_path(&self, game_id: &str) -> Result<PathBuf, KeyringError> {
        Ok(self.home.join("verified").join(checked_id(game_id)?))
    }

    /// Remembers the digest of a game file this keyring's referee just verified and
    /// wrote, so the next move on exactly those bytes may skip re-checking the chain.
    /// Not durable on purpose: a lost or torn note only means the full check next time.
    pub fn remember_verified(&self, game_id: &str, digest: &[u8; 32]) {
        if let Ok(path) = self.verified_path(game_id) {
            overwrite_note(&path, to_hex(digest).as_bytes());
        }
    }

    /// Whether `digest` is that of the file last written for this game.
    pub fn is_verified(&self, game_id: &str, digest: &[u8; 32]) -> bool {
        self.verified_path(game_id)
            .ok()
            .and_then(|path| read_text_limited(&path, MAX_NOTE_BYTES).ok())
            .and_then(|text| hash_from_any_hex(text.trim()))
            .is_some_and(|known| known == *digest)
    }

    fn state_path(&self, game_id: &str) -> Result<PathBuf, KeyringError> {
        Ok(self.home.join("states").join(checked_id(game_id)?))
    }

    /// Keeps `state` (the full state after the last record, serialised) for the game
    /// file whose bytes hash to `digest`, which this keyring's referee just verified
    /// and wrote: the next move on exactly those bytes starts from it instead of
    /// replaying the game. A cache, so not durable: the note carries the file's digest
    /// and its own, and one that is lost, torn, stale or from another file is simply
    /// not used (see [`Keyring::remembered_state`]).
    pub fn remember_state(&self, game_id: &str, digest: &[u8; 32], state: &[u8]) {
        let Ok(path) = self.state_path(game_id) else {
            return;
        };
        let mut note = format!(
            "{STATE_NOTE_FORMAT} {} {} {}\n",
            to_hex(digest),
            state.len(),
            to_hex(&sha256(state))
        )
        .into_bytes();
        note.extend_from_slice(state);
        overwrite_note(&path, &note);
    }

    /// The state [`Keyring::remember_state`] kept for the game file whose bytes hash to
    /// `digest`; `None` when there is none, or it was kept for other bytes, or it is of
    /// another format, torn or altered (its own digest does not match).
    pub fn remembered_state(&self, game_id: &str, digest: &[u8; 32]) -> Option<Vec<u8>> {
        let path = self.state_path(game_id).ok()?;
        let note = read_limited(&path, MAX_STATE_NOTE_BYTES).ok()?;
        let end = note.iter().position(|&byte| byte == b'\n')?;
        let header = std::str::from_utf8(&note[..end]).ok()?;
        let mut fields = header.split(' ');
        let (Some(STATE_NOTE_FORMAT), Some(file), Some(length), Some(own), None) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return None;
        };
        if hash_from_any_hex(file)? != *digest {
            return None;
        }
        let state = note.get(end + 1..)?.get(..length.parse::<usize>().ok()?)?;
        (hash_from_any_hex(own)? == sha256(state)).then(|| state.to_vec())
    }

    /// Stores a new game's seed; refuses to replace one.
    ///
    /// # Errors
    /// A seed for this game exists, or the file cannot be written.
    pub fn store_seed(&self, game_id: &str, seed: &Seed) -> Result<(), KeyringError> {
        let path = self.seed_path(game_id)?;
        if path.exists() {
            return Err(KeyringError::SeedExists {
                game_id: game_id.to_string(),
            });
        }
        write_secret(&path, &seed.0)
    }

    /// A game's seed.
    ///
    /// # Errors
    /// No seed for this game here, or it cannot be read.
    pub fn seed(&self, game_id: &str) -> Result<Seed, KeyringError> {
        match read_secret(&self.seed_path(game_id)?)? {
            Some(bytes) => Ok(Seed(bytes)),
            None => Err(KeyringError::NoSeed {
                game_id: game_id.to_string(),
                home: self.home.clone(),
            }),
        }
    }

    /// A game's seed if this keyring has it.
    ///
    /// # Errors
    /// It exists but cannot be read.
    pub fn seed_if_present(&self, game_id: &str) -> Result<Option<Seed>, KeyringError> {
        Ok(read_secret(&self.seed_path(game_id)?)?.map(Seed))
    }
}

/// A game id as it may become part of a keyring path: what `pbem new` makes (the
/// game's initials, '-', hex), never `..`, a separator or anything else a hostile game
/// file could use to reach another file.
fn checked_id(game_id: &str) -> Result<&str, KeyringError> {
    let fine = !game_id.is_empty()
        && game_id.len() <= 64
        && !game_id.starts_with('-')
        && game_id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if fine {
        Ok(game_id)
    } else {
        Err(KeyringError::BadGameId {
            game_id: game_id.chars().take(80).collect(),
        })
    }
}

/// Writes `note` over the file at `path` (owner-only, its folder created private),
/// best effort. Overwritten in place, then cut to its length, rather than truncated to
/// nothing or renamed over: on ext4 a file truncated to nothing is flushed to disk when
/// closed, and one renamed over another when renamed, which would cost a move more than
/// anything else it does outside its own durable write. A note torn by a crash is
/// refused by its reader (a verified note is 64 hex digits; a state note carries its
/// length and its own digest) and costs only speed.
fn overwrite_note(path: &Path, note: &[u8]) {
    let open = || {
        let mut options = fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            // Owner-only whatever the umask, as everything in the keyring.
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        options.open(path)
    };
    let file = match open() {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => path
            .parent()
            .map_or(Err(error), create_private_dir)
            .and_then(|()| open()),
        result => result,
    };
    let _ = file.and_then(|mut file| {
        file.write_all(note)?;
        if file.metadata()?.len() > note.len() as u64 {
            file.set_len(note.len() as u64)?;
        }
        Ok(())
    });
}

/// 32 bytes from the operating system.
///
/// # Errors
/// The operating system has none to give.
pub fn random_bytes() -> Result<[u8; 32], KeyringError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| KeyringError::Entropy(error.to_string()))?;
    Ok(bytes)
}

/// The most of a key, seed or verified note pbem reads: each is 64 hex digits.
const MAX_NOTE_BYTES: u64 = 4096;

/// The first word of a state note: a note of another format is not read.
const STATE_NOTE_FORMAT: &str = "pbem.state-cache/2";

/// The most of a state note pbem reads; a game's full state is a few kilobytes.
const MAX_STATE_NOTE_BYTES: u64 = 16 * 1024 * 1024;

fn read_secret(path: &Path) -> Result<Option<[u8; 32]>, KeyringError> {
    match read_text_limited(path, MAX_NOTE_BYTES) {
        Ok(text) => {
            hash_from_any_hex(text.trim())
                .map(Some)
                .ok_or_else(|| KeyringError::Malformed {
                    path: path.to_path_buf(),
                })
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(KeyringError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Creates a new owner-only file and writes the secret durably.
fn write_secret(path: &Path, bytes: &[u8; 32]) -> Result<(), KeyringError> {
    let io = |source| KeyringError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        create_private_dir(dir).map_err(io)?;
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(io)?;
    file.write_all(format!("{}\n", to_hex(bytes)).as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_replaces_whatever_was_noted_before_whatever_its_length() {
        let dir = tempfile::tempdir().expect("dir");
        let keyring = Keyring::at(dir.path().join("home"));
        // The first note creates the folder.
        keyring.remember_verified("row-1", &[1; 32]);
        assert!(keyring.is_verified("row-1", &[1; 32]));
        keyring.remember_verified("row-1", &[2; 32]);
        assert!(keyring.is_verified("row-1", &[2; 32]));
        assert!(!keyring.is_verified("row-1", &[1; 32]));
        // A longer file (written by hand, or torn) is cut to the note.
        let note = dir.path().join("home/verified/row-1");
        fs::write(&note, format!("{}\nleft over", to_hex(&[9; 32]))).expect("write");
        keyring.remember_verified("row-1", &[3; 32]);
        assert_eq!(fs::read_to_string(&note).expect("read"), to_hex(&[3; 32]));
        assert!(!keyring.is_verified("row-2", &[3; 32]));
    }

    #[test]
    fn a_state_note_is_read_only_whole_and_only_for_the_bytes_it_names() {
        let dir = tempfile::tempdir().expect("dir");
        let keyring = Keyring::at(dir.path().join("home"));
        let state = br#"{"round":3,"stack":[4,1,5]}"#;
        keyring.remember_state("ta-1", &[1; 32], state);
        let note = dir.path().join("home/states/ta-1");
        let written = fs::read(&note).expect("read");
        assert_eq!(
            keyring.remembered_state("ta-1", &[1; 32]).as_deref(),
            Some(&state[..])
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&note).expect("stat").permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        // Other bytes, another game.
        assert_eq!(keyring.remembered_state("ta-1", &[2; 32]), None);
        assert_eq!(keyring.remembered_state("ta-2", &[1; 32]), None);
        // Torn at any point, one byte changed anywhere, another format: not read.
        for cut in [0, 10, 80, written.len() - 1] {
            fs::write(&note, &written[..cut]).expect("write");
            assert_eq!(keyring.remembered_state("ta-1", &[1; 32]), None, "{cut}");
        }
        for at in [0, 19, 30, 100, written.len() - 3] {
            let mut changed = written.clone();
            changed[at] ^= 0x04;
            fs::write(&note, &changed).expect("write");
            assert_eq!(keyring.remembered_state("ta-1", &[1; 32]), None, "{at}");
        }
        // A shorter note replaces a longer one whole.
        keyring.remember_state("ta-1", &[1; 32], b"{}");
        assert_eq!(
            keyring.remembered_state("ta-1", &[1; 32]).as_deref(),
            Some(&b"{}"[..])
        );
        assert!(fs::read(&note).expect("read").len() < written.len());
    }

    #[test]
    fn a_hostile_game_id_never_becomes_a_path() {
        let dir = tempfile::tempdir().expect("dir");
        let keyring = Keyring::at(dir.path().join("home"));
        keyring.create_signing_key().expect("a key");
        let key_file = dir.path().join("home/referee.key");
        let key = fs::read(&key_file).expect("read");
        for id in [
            "../referee.key",
            "../../x",
            "/etc/passwd",
            "",
            "a/b",
            "-x",
            "ROW-1",
        ] {
            keyring.remember_verified(id, &[7; 32]);
            assert!(!keyring.is_verified(id, &[7; 32]), "{id:?}");
            let error = keyring.seed(id).expect_err("refused");
            assert!(matches!(error, KeyringError::BadGameId { .. }), "{id:?}");
            assert!(keyring.store_seed(id, &Seed([1; 32])).is_err(), "{id:?}");
        }
        assert_eq!(
            fs::read(&key_file).expect("read"),
            key,
            "the key is untouched"
        );
    }

    #[test]
    fn only_create_signing_key_makes_a_key() {
        let dir = tempfile::tempdir().expect("dir");
        let keyring = Keyring::at(dir.path().join("home"));
        let error = keyring.signing_key().expect_err("no key yet");
        assert!(error.to_string().contains("PBEM_HOME"), "{error}");
        assert!(!dir.path().join("home").exists(), "nothing was created");
        let made = keyring.create_signing_key().expect("created");
        assert_eq!(
            keyring.signing_key().expect("found").to_bytes(),
            made.to_bytes()
        );
    }
}
