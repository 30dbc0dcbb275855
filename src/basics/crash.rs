//! Crash points for the tests of recovery. In a debug build:
//!
//! * `PBEM_CRASH_AT=NAME` makes the process abort at the point named NAME, as a kill
//!   there would;
//! * `PBEM_CRASH_AFTER=N` makes it abort right after its Nth durable step: a file
//!   replaced, renamed, appended to or removed (every such step calls [`step`]). A test
//!   that runs one pass with N = 1, 2, 3, ... until it finishes has killed it at every
//!   write point it has, not only where random kills happen to land.
//!
//! A release build has none: [`point`] and [`step`] do nothing there.
//!
//! The named points:
//! * `after-game-write`: a change of a game is in its file; its mail and waits are
//!   still staged;
//! * `after-mail-commit`: its mail is ready to send; its waits are still staged.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Aborts the process when `PBEM_CRASH_AT` names this point (debug builds only).
#[inline]
pub fn point(name: &str) {
    if cfg!(debug_assertions) && std::env::var("PBEM_CRASH_AT").is_ok_and(|at| at == name) {
        std::process::abort();
    }
}

/// Counts one durable step, and aborts the process once it has made as many as
/// `PBEM_CRASH_AFTER` says (debug builds only).
#[inline]
pub fn step() {
    if !cfg!(debug_assertions) {
        return;
    }
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    static MADE: AtomicU64 = AtomicU64::new(0);
    let limit = LIMIT.get_or_init(|| {
        std::env::var("PBEM_CRASH_AFTER")
            .ok()
            .and_then(|n| n.parse().ok())
    });
    if let Some(limit) = *limit {
        if MADE.fetch_add(1, Ordering::SeqCst) + 1 >= limit {
            std::process::abort();
        }
    }
}
