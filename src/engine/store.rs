//! Reading and writing game files: a lock beside the file, and atomic, durable writes
//! (write a temporary file, sync it, rename it over the old one, sync the folder), so a
//! crash leaves either the old file or the new one, never a mix.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

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
    #[error("{path} already exists; choose another --out or remove it first")]
    Exists { path: PathBuf },
}

/// An exclusive lock on a game file, held until dropped.
///
/// The lock is taken on `FILE.lock`, not on the file itself, because the file is
/// replaced by rename and a lock on the old inode would not exclude a writer of the new.
pub struct FileLock {
    _file: File,
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// Waits for and takes the lock of the game file at `path`.
///
/// # Errors
/// The lock file cannot be created or locked.
pub fn lock(path: &Path) -> Result<FileLock, StoreError> {
    let lock_path = lock_path(path);
    let error = |source| StoreError::Lock {
        path: lock_path.clone(),
        source,
    };
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(error)?;
    file.lock().map_err(error)?;
    Ok(FileLock { _file: file })
}

/// The bytes of a file.
///
/// # Errors
/// It cannot be read.
pub fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    fs::read(path).map_err(|source| StoreError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Replaces `path` with `bytes` atomically and durably.
///
/// # Errors
/// Any step fails; the old file is then untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_atomic_parts(path, &[bytes])
}

/// Replaces `path` with `parts`, one after the other, atomically and durably.
///
/// # Errors
/// Any step fails; the old file is then untouched.
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> Result<(), StoreError> {
    let error = |source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    let temp = dir.join(name);
    let result = (|| {
        let mut file = File::create(&temp)?;
        for part in parts {
            file.write_all(part)?;
        }
        file.sync_all()?;
        fs::rename(&temp, path)?;
        sync_dir(&dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result.map_err(error)
}

/// Creates `path` with `bytes`, refusing to replace an existing file.
///
/// # Errors
/// It exists, or cannot be written.
pub fn create_new(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    if path.exists() {
        return Err(StoreError::Exists {
            path: path.to_path_buf(),
        });
    }
    write_atomic(path, bytes)
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    // The rename is durable only once the folder's entry is on disk.
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}
