//! `pbem` with the tests' own games added: the command line the tests run as a process
//! to play games pbem does not ship (examples are built by `cargo test`, never installed).

mod secret;

use pbem::engine::driver::{Driver, GameDriver};

/// The games only the tests play.
static TEST_GAMES: &[&dyn GameDriver] = &[&Driver::<secret::SecretDraft>::new()];

fn main() -> std::process::ExitCode {
    // The first call in a fresh process always succeeds; nothing else adds games here.
    let _ = pbem::games::add(TEST_GAMES);
    pbem::cli::run(std::env::args_os())
}
