//! Reading and writing the referee's files: a lock beside each game file, and atomic,
//! durable writes (write a temporary file, sync it, rename it over the old one, sync the
//! folder), so a crash leaves either the old file or the new one, never a mix.
//!
//! Hostile folders are assumed: temporary files are created exclusively (`O_CREAT |
//! O_EXCL`, which never follows a planted link), under one known name beside the file
//! (an unpredictable one when that is taken), a lock file that is a link, a fifo or
//! anything but a regular file is refused (and said to be one, never waited on), and
//! what a killed run left under the known name is removed by the next run that holds
//! the lock, without listing the folder. Private files (outbox mail, archived messages: they hold players'
//! tokens) are 0600 in 0700 folders whatever the umask.
//!
//! Every file pbem reads is read through [`read_limited`]: opened without blocking, so a
//! fifo planted in its place cannot hang a command; refused unless the open handle is a
//! regular file (a link to one is followed); and read only up to a bound, so a link to
//! `/dev/zero` or a huge file cannot exhaust memory.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::digest::to_hex;

/// Problems with the file system, naming the path.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path} (the game file is unchanged)")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot lock {path}")]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A fifo, device, socket or link where pbem keeps a regular file (or its lock).
    #[error("{path} is {kind}, not a regular file; {remedy}")]
    NotRegular {
        path: PathBuf,
        kind: &'static str,
        remedy: &'static str,
    },
    #[error("{path} is still locked by another pbem after {seconds} s; try again later (PBEM_LOCK_TIMEOUT sets the wait)")]
    LockTimeout { path: PathBuf, seconds: u64 },
    #[error("{path} already exists; choose another --out or remove it first")]
    Exists { path: PathBuf },
}

impl StoreError {
    /// Whether the error is the referee's machine's fault rather than the input's: a
    /// retry later may succeed.
    pub fn is_transient(&self) -> bool {
        !matches!(self, StoreError::Exists { .. })
    }
}

/// Who may read a file pbem writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Readable as the umask allows (game files are public).
    Public,
    /// 0600, in a folder made 0700: mail, archives, anything holding a capability.
    Private,
}

/// An exclusive lock on a game file (or another resource named by a path), held until
/// dropped.
///
/// The lock is taken on `FILE.lock`, not on the file itself, because the file is
/// replaced by rename and a lock on the old inode would not exclude a writer of the new.
pub struct FileLock {
    _file: File,
}

/// How long [`lock`] waits by default: a game's lock is only ever held for local work
/// (never while talking to a mail server), so a longer wait means something is stuck.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

fn lock_wait() -> Duration {
    std::env::var("PBEM_LOCK_TIMEOUT")
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok())
        .map_or(LOCK_WAIT, Duration::from_secs)
}

fn open_lock_file(path: &Path) -> Result<(PathBuf, File), StoreError> {
    let lock_path = sibling(path, ".lock");
    let error = |source| StoreError::Lock {
        path: lock_path.clone(),
        source,
    };
    // Nothing is created beside a device, fifo or socket (a link to `/dev/zero`, say):
    // no game file is one, and its read would be refused anyway. (A folder is locked
    // too: the archive of unmatched mail.)
    if let Ok(metadata) = fs::metadata(path) {
        if !metadata.is_file() && !metadata.is_dir() {
            return Err(StoreError::NotRegular {
                path: path.to_path_buf(),
                kind: kind_name(&metadata.file_type()),
                remedy: "pbem keeps only regular files (or links to them) there",
            });
        }
    }
    // Said of a lock file that is anything but a regular file: the lock is all it is.
    let not_regular = |kind| StoreError::NotRegular {
        path: lock_path.clone(),
        kind,
        remedy: "it is only a lock: remove it, and pbem makes it again",
    };
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A lock file planted as a link must not make pbem create or open its target;
        // one planted as a fifo must not make the open wait for a reader for ever.
        options
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .mode(0o600);
    }
    let file = match options.open(&lock_path) {
        Ok(file) => file,
        Err(source) => {
            // A link (ELOOP), a fifo without a reader (ENXIO), a folder (EISDIR): named
            // as what it is, not as the system's word for the failed open.
            return Err(match fs::symlink_metadata(&lock_path) {
                Ok(metadata) if !metadata.is_file() => {
                    not_regular(kind_name(&metadata.file_type()))
                }
                _ => error(source),
            });
        }
    };
    // What was opened is checked, not the path: a fifo with a reader, or a device such
    // as /dev/null, opens.
    let metadata = file.metadata().map_err(error)?;
    if !metadata.is_file() {
        return Err(not_regular(kind_name(&metadata.file_type())));
    }
    Ok((lock_path, file))
}

/// Waits (up to PBEM_LOCK_TIMEOUT seconds, default [`LOCK_WAIT`]) for the lock of the
/// file at `path` and takes it, then removes temporary files a killed run left beside it.
///
/// # Errors
/// The lock file cannot be created or locked, or stays locked too long.
pub fn lock(path: &Path) -> Result<FileLock, StoreError> {
    let (lock_path, file) = open_lock_file(path)?;
    let wait = lock_wait();
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_millis(2);
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            Err(fs::TryLockError::WouldBlock) => {
                return Err(StoreError::LockTimeout {
                    path: lock_path,
                    seconds: wait.as_secs(),
                })
            }
            Err(fs::TryLockError::Error(source)) => {
                return Err(StoreError::Lock {
                    path: lock_path,
                    source,
                })
            }
        }
    }
    // Every write of `path` happens under this lock, so any temporary file of it that
    // exists now was left by a run that died.
    remove_temporary_files(path);
    Ok(FileLock { _file: file })
}

/// Takes the lock of `path` if nobody holds it, without waiting: `None` when another
/// process holds it (a second `pbem watch` on one games folder).
///
/// # Errors
/// The lock file cannot be created or locked.
pub fn try_lock(path: &Path) -> Result<Option<FileLock>, StoreError> {
    let (lock_path, file) = open_lock_file(path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(FileLock { _file: file })),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(source)) => Err(StoreError::Lock {
            path: lock_path,
            source,
        }),
    }
}

/// The prefix of the names of `path`'s temporary files.
fn temporary_prefix(path: &Path) -> String {
    format!(
        ".{}.tmp-",
        path.file_name().unwrap_or_default().to_string_lossy()
    )
}

/// The temporary file of `path` a write tries first: one known name, so that the run
/// holding the lock finds what a killed run left without listing the folder (which
/// would make every move cost more in a folder of thousands of games).
fn temporary_path(path: &Path) -> PathBuf {
    folder_of(path).join(format!("{}new", temporary_prefix(path)))
}

/// Removes the temporary file a killed run left beside `path` (a link there is
/// removed, never followed). Best effort: a leftover costs only disk space.
fn remove_temporary_files(path: &Path) {
    let _ = fs::remove_file(temporary_path(path));
}

/// The most of a game file (or an invitation) pbem reads: 64 MiB. The longest games
/// measured (a five-player triangle auction played to its end) write about 80 KB, and
/// every record is bounded (a move's recorded text at 4 KiB), so a game of thousands
/// of turns stays far below; a larger file is not one pbem wrote.
pub const MAX_GAME_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The most of a mail file of the outbox pbem reads: a message may carry the game file
/// attached (base64, a third larger), so twice the game file's bound.
pub const MAX_MAIL_FILE_BYTES: u64 = 2 * MAX_GAME_FILE_BYTES;

/// The most of a small file of the referee's own (a key, a seed, a config, a template,
/// a password file) pbem reads: 1 MiB.
pub const MAX_SMALL_FILE_BYTES: u64 = 1024 * 1024;

/// The bytes of a game file (or an invitation): at most [`MAX_GAME_FILE_BYTES`], from a
/// regular file only (see [`read_limited`]).
///
/// # Errors
/// It cannot be read, is not a regular file, or is larger than the bound.
pub fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    read_limited(path, MAX_GAME_FILE_BYTES).map_err(|source| StoreError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// The bytes of the file at `path` (a link to a regular file is followed), at most
/// `limit` of them.
///
/// The file is opened with `O_NONBLOCK` (and `O_NOCTTY`): opening a fifo for reading
/// would otherwise wait for a writer, forever if none comes. The open handle is then
/// checked, not the path, so what is read is what was checked; anything but a regular
/// file (a fifo, a device such as `/dev/zero`, a folder) is refused before a byte is
/// read. A regular file is read through `take(limit + 1)`, so one that grows while it
/// is read is still refused rather than read without bound.
///
/// # Errors
/// It cannot be opened (a missing file is `NotFound`, as from `std::fs::read`), is not
/// a regular file (`InvalidInput`), or holds more than `limit` bytes (`FileTooLarge`);
/// the message says which, for the caller to put after the path.
pub fn read_limited(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        // A socket cannot be opened at all (ENXIO): say what it is rather than "no such
        // device or address".
        Err(error) if error.raw_os_error() == Some(libc::ENXIO) => {
            return Err(match fs::metadata(path) {
                Ok(metadata) if !metadata.is_file() => not_regular(&metadata.file_type()),
                _ => error,
            })
        }
        Err(error) => return Err(error),
    };
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(not_regular(&metadata.file_type()));
    }
    if metadata.len() > limit {
        return Err(too_large(limit));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

/// [`read_limited`] for a text file: its bytes must be UTF-8.
///
/// # Errors
/// As for [`read_limited`], or the bytes are not UTF-8 (`InvalidData`).
pub fn read_text_limited(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_limited(path, limit)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

fn not_regular(kind: &fs::FileType) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "it is {}, not a regular file; pbem reads only regular files (or links to them)",
            kind_name(kind)
        ),
    )
}

fn too_large(limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!(
            "it is larger than the {} pbem reads of such a file",
            size_text(limit)
        ),
    )
}

/// What a file that is not a regular file is, for people.
fn kind_name(kind: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a fifo (named pipe)";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else if kind.is_symlink() {
        "a link"
    } else {
        "something else"
    }
}

/// A size in bytes as people read it: `64 MiB`, `1 MiB`, `4096 bytes`.
pub fn size_text(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    const KIB: u64 = 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Replaces `path` with `bytes` atomically and durably.
///
/// # Errors
/// Any step fails; the old file is then untouched.
pub fn write_atomic(path: &Path, bytes: &[u8], access: Access) -> Result<(), StoreError> {
    write_atomic_parts(path, &[bytes], access)
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The mode of a new public file (a game file, an invitation): anyone may read it
/// (players audit it), only the referee write it.
pub const PUBLIC_MODE: u32 = 0o644;

/// The mode the file written at `path` gets: a private file exactly 0600; a public file
/// keeps the mode of the file it replaces (the referee may have narrowed it), or
/// [`PUBLIC_MODE`] when new. Never the umask's say: under umask 000 a game file
/// would otherwise be written 0666, for anyone to alter.
fn mode_for(path: &Path, access: Access) -> u32 {
    match access {
        Access::Private => 0o600,
        Access::Public => existing_mode(path).unwrap_or(PUBLIC_MODE),
    }
}

/// The permission bits of the regular file at `path`, if there is one.
#[cfg(unix)]
fn existing_mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = fs::metadata(path).ok().filter(fs::Metadata::is_file)?;
    Some(metadata.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn existing_mode(_path: &Path) -> Option<u32> {
    None
}

/// Creates a file that did not exist (never through a link), with exactly `mode`.
#[cfg_attr(not(unix), allow(unused_variables))]
fn create_exclusive(path: &Path, mode: u32) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        // The umask may have taken away some of the bits; set exactly these.
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(mode))?;
    }
    Ok(file)
}

/// Replaces `path` with `parts`, one after the other, atomically and durably.
///
/// # Errors
/// Any step fails; the old file is then untouched.
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]], access: Access) -> Result<(), StoreError> {
    write_whole(path, parts, access, true)
}

/// Replaces `path` with `bytes` atomically but not durably: a reader sees the old file
/// or the new one, never a mix, but a crash of the machine may lose the new one. For
/// files pbem can do without (the text of a notice sent, kept to read replies by),
/// where two syncs per file would cost every move for nothing.
///
/// # Errors
/// Any step fails; the old file is then untouched.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8], access: Access) -> Result<(), StoreError> {
    write_whole(path, &[bytes], access, false)
}

fn write_whole(
    path: &Path,
    parts: &[&[u8]],
    access: Access,
    durable: bool,
) -> Result<(), StoreError> {
    let error = |source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = folder_of(path);
    let mode = mode_for(path, access);
    // The known name first (under the lock it is free: taking the lock removed any
    // leftover). Taken (a writer without the lock, or something planted since), an
    // unpredictable name: either way created exclusively, never through a link.
    let (temp, file) = match create_exclusive(&temporary_path(path), mode) {
        Err(taken) if taken.kind() == std::io::ErrorKind::AlreadyExists => {
            let mut random = [0u8; 8];
            getrandom::fill(&mut random)
                .map_err(|cause| error(std::io::Error::other(cause.to_string())))?;
            let temp = dir.join(format!("{}{}", temporary_prefix(path), to_hex(&random)));
            let file = create_exclusive(&temp, mode);
            (temp, file)
        }
        file => (temporary_path(path), file),
    };
    let result = (|| {
        let mut file = file?;
        for part in parts {
            file.write_all(part)?;
        }
        if !durable {
            return fs::rename(&temp, path);
        }
        file.sync_all()?;
        fs::rename(&temp, path)?;
        sync_dir(&dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    } else {
        super::crash::step();
    }
    result.map_err(error)
}

/// Creates `path` with `bytes`, refusing to replace an existing file.
///
/// # Errors
/// It exists, or cannot be written.
pub fn create_new(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    if fs::symlink_metadata(path).is_ok() {
        return Err(StoreError::Exists {
            path: path.to_path_buf(),
        });
    }
    write_atomic(path, bytes, Access::Public)
}

/// Creates a folder (and its parents) for private files; an existing one is made 0700.
///
/// # Errors
/// It cannot be created, or is not a folder.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let metadata = fs::symlink_metadata(dir)?;
        if !metadata.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a folder",
                dir.display()
            )));
        }
        if metadata.permissions().mode() & 0o777 != 0o700 {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
        }
    }
    Ok(())
}

/// Appends a line to a private file (created 0600 if missing) and syncs it.
///
/// # Errors
/// It cannot be opened or written.
pub fn append_private(path: &Path, line: &[u8]) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = options.open(path)?;
    file.write_all(line)?;
    file.sync_all()?;
    super::crash::step();
    Ok(())
}

/// The path to lock, read and replace for the game file named `path`: a link is
/// resolved once, to its final target, so that an atomic write replaces the target
/// (leaving the link a link, and no stale target behind it) and every file kept beside
/// the game (its lock, outbox and archive) is the target's, whatever name the game is
/// reached by: one game, one lock. Any other path is kept as given (so messages name it
/// as the referee typed it), and so is a link that cannot be resolved (reading it then
/// fails, naming it).
pub fn resolve(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Whether `path` is a regular file, not following links: game folders are listed with
/// this, so a link, a fifo or a device planted there is never opened.
pub fn is_regular_file(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_file())
}

/// Makes a rename in `dir` durable: the folder's entry is on disk only once the folder
/// is synced.
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
pub fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_never_written_through() {
        let dir = tempfile::tempdir().expect("dir");
        let victim = dir.path().join("victim");
        fs::write(&victim, b"precious").expect("write");
        let game = dir.path().join("game.json");
        // Links where the lock file and every plausible temporary name would be.
        std::os::unix::fs::symlink(&victim, sibling(&game, ".lock")).expect("link");
        let error = lock(&game).err().expect("a linked lock file is refused");
        assert!(error.to_string().contains("game.json.lock"), "{error}");
        fs::remove_file(sibling(&game, ".lock")).expect("unlink");
        let temporaries = || -> Vec<String> {
            fs::read_dir(dir.path())
                .expect("list")
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.contains(".tmp-"))
                .collect()
        };
        // A link where a write's temporary file goes first, as a killed run would leave
        // a file there.
        std::os::unix::fs::symlink(&victim, temporary_path(&game)).expect("link");
        let held = lock(&game).expect("locks");
        // Taking the lock removed it (the link itself, not its target).
        assert!(temporaries().is_empty(), "{:?}", temporaries());
        write_atomic(&game, b"new", Access::Public).expect("writes");
        assert_eq!(fs::read(&game).expect("read"), b"new");
        assert!(temporaries().is_empty(), "{:?}", temporaries());
        // Planted again while the lock is held: the write goes elsewhere, never
        // through the link.
        std::os::unix::fs::symlink(&victim, temporary_path(&game)).expect("link");
        write_atomic(&game, b"newer", Access::Public).expect("writes");
        assert_eq!(fs::read(&game).expect("read"), b"newer");
        assert_eq!(fs::read(&victim).expect("read"), b"precious");
        drop(held);
        let _lock = lock(&game).expect("locks again");
        assert!(temporaries().is_empty(), "{:?}", temporaries());
        assert_eq!(fs::read(&victim).expect("read"), b"precious");
    }

    #[cfg(unix)]
    #[test]
    fn private_files_and_folders_are_owner_only_whatever_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let folder = dir.path().join("box");
        fs::create_dir(&folder).expect("mkdir");
        fs::set_permissions(&folder, fs::Permissions::from_mode(0o777)).expect("chmod");
        create_private_dir(&folder).expect("made private");
        let mode = |path: &Path| fs::metadata(path).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&folder), 0o700);
        let file = folder.join("mail");
        write_atomic(&file, b"token", Access::Private).expect("writes");
        assert_eq!(mode(&file), 0o600);
        let index = folder.join("index");
        append_private(&index, b"line\n").expect("appends");
        assert_eq!(mode(&index), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_read_and_only_up_to_the_bound() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("game.json");
        fs::write(&file, b"12345").expect("write");
        assert_eq!(read_limited(&file, 5).expect("reads"), b"12345");
        let error = read_limited(&file, 4).expect_err("over the bound");
        assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(error.to_string().contains("4 bytes"), "{error}");
        // A link to a regular file is read; to a device or a folder, refused unread.
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&file, &link).expect("link");
        assert_eq!(read_limited(&link, 5).expect("reads"), b"12345");
        for (target, kind) in [("/dev/zero", "a character device"), ("/", "a folder")] {
            let error = read_limited(Path::new(target), MAX_GAME_FILE_BYTES).expect_err(target);
            assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
            assert!(error.to_string().contains(kind), "{error}");
        }
        assert_eq!(
            read_limited(&dir.path().join("missing"), 5)
                .expect_err("missing")
                .kind(),
            std::io::ErrorKind::NotFound
        );
        assert_eq!(size_text(MAX_GAME_FILE_BYTES), "64 MiB");
    }

    #[cfg(unix)]
    #[test]
    fn a_public_file_is_0644_when_new_and_keeps_its_mode_when_rewritten() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let mode = |path: &Path| fs::metadata(path).expect("stat").permissions().mode() & 0o777;
        let game = dir.path().join("game.json");
        write_atomic(&game, b"one", Access::Public).expect("writes");
        assert_eq!(mode(&game), PUBLIC_MODE);
        fs::set_permissions(&game, fs::Permissions::from_mode(0o600)).expect("chmod");
        write_atomic(&game, b"two", Access::Public).expect("writes");
        assert_eq!(mode(&game), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_resolves_to_its_target_and_anything_else_stays_as_given() {
        let dir = tempfile::tempdir().expect("dir");
        let game = dir.path().join("game.json");
        fs::write(&game, b"{}").expect("write");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("game.json", &link).expect("link");
        assert_eq!(resolve(&link), fs::canonicalize(&game).expect("real"));
        assert_eq!(resolve(&game), game);
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink("nowhere.json", &dangling).expect("link");
        assert_eq!(resolve(&dangling), dangling);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_place_of_a_file_or_its_lock_is_named_and_never_waited_on() {
        use std::os::unix::ffi::OsStrExt;
        let mkfifo = |path: &Path| {
            let name = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("no NUL");
            // SAFETY: a NUL-terminated path; mkfifo only creates a file.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        };
        let dir = tempfile::tempdir().expect("dir");
        let state = dir.path().join("state");
        // Opened for writing with no reader, a fifo would wait for one for ever.
        mkfifo(&sibling(&state, ".lock"));
        let error = lock(&state)
            .err()
            .expect("a fifo lock is refused")
            .to_string();
        assert!(
            error.ends_with("state.lock is a fifo (named pipe), not a regular file; it is only a lock: remove it, and pbem makes it again"),
            "{error}"
        );
        fs::remove_file(sibling(&state, ".lock")).expect("unlink");
        mkfifo(&state);
        let error = lock(&state)
            .err()
            .expect("a fifo is not locked")
            .to_string();
        assert!(
            error.ends_with("state is a fifo (named pipe), not a regular file; pbem keeps only regular files (or links to them) there"),
            "{error}"
        );
    }

    #[test]
    fn a_held_lock_is_not_taken_twice() {
        let dir = tempfile::tempdir().expect("dir");
        let game = dir.path().join("game.json");
        let _held = lock(&game).expect("locks");
        let (_, file) = open_lock_file(&game).expect("opens");
        assert!(matches!(file.try_lock(), Err(fs::TryLockError::WouldBlock)));
    }
}
