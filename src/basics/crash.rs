//! Crash points for the tests of recovery: in a debug build, `PBEM_CRASH_AT=NAME`
//! makes the process abort at the point named NAME, as a kill there would. The
//! tests use them to stop a run at the exact moment between two durable steps that
//! random kills hit only now and then. A release build has none: [`point`] does
//! nothing there.
//!
//! The points:
//! * `after-game-write`: a change of a game is in its file; its mail and waits are
//!   still staged;
//! * `after-mail-commit`: its mail is ready to send; its waits are still staged.

/// Aborts the process when `PBEM_CRASH_AT` names this point (debug builds only).
#[inline]
pub fn point(name: &str) {
    if cfg!(debug_assertions) && std::env::var("PBEM_CRASH_AT").is_ok_and(|at| at == name) {
        std::process::abort();
    }
}
