//! The command line: clap definitions and one module per subcommand. Each subcommand
//! builds its inputs and calls one function of [`crate::ops`].

mod apply;
mod audit;
mod demo;
mod inbox;
mod legal;
mod log;
mod mail;
mod new;
mod outbox;
mod remind;
mod reveal;
mod show;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::engine::keyring::Keyring;

#[derive(Debug, Parser)]
#[command(
    name = "pbem",
    version,
    about = "Referee board games played by email: apply moves, draw fairly, audit everything",
    after_help = "The referee's signing key and the games' seeds live in PBEM_HOME (default: the platform's data folder)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start a game: commit a seed, set up, write a signed game file
    New(new::Args),
    /// Apply one player's move (a whole turn) to a game file, in place
    Apply(apply::Args),
    /// Show the board (ascii) or the exact record of the position (json)
    Show(show::Args),
    /// List the moves a player may make now
    Legal(legal::Args),
    /// List every record: player, move, draws, hash
    Log(log::Args),
    /// Check signatures, the hash chain, the seed and every draw, and replay every move
    Audit(audit::Args),
    /// Reveal the game's seed in the file (the end of a game does this by itself)
    Reveal(reveal::Args),
    /// Play a complete demo game between two built-in players, then audit it
    Demo(demo::Args),
    /// Take players' moves from mail: one raw message on standard input, or a Maildir
    Inbox(inbox::Args),
    /// Send the mail waiting in games' outboxes
    Outbox(outbox::Args),
    /// Remind players who keep a game waiting
    Remind(remind::Args),
}

/// Output formats of `show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ShowFormat {
    Ascii,
    Json,
    /// The board in a [code] block, for forums that take BBCode
    Bbcode,
    /// The board in a fenced block, for forums that take Markdown
    Markdown,
}

/// Output formats of `legal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ListFormat {
    Text,
    Json,
}

/// The file argument every command on an existing game takes.
#[derive(Debug, clap::Args)]
struct FileArg {
    /// The game file
    file: PathBuf,
}

/// Runs pbem with these arguments (the first is the program name).
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::New(args) => new::run(args),
        Command::Apply(args) => apply::run(args),
        Command::Show(args) => show::run(args),
        Command::Legal(args) => legal::run(args),
        Command::Log(args) => log::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Reveal(args) => reveal::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Inbox(args) => inbox::run(args),
        Command::Outbox(args) => outbox::run(args),
        Command::Remind(args) => remind::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn keyring() -> anyhow::Result<Keyring> {
    Ok(Keyring::from_env()?)
}

/// The keyring if PBEM_HOME (or the default folder) can be named; for read-only
/// commands that only use it when it is there.
fn keyring_if_any() -> Option<Keyring> {
    Keyring::from_env().ok()
}

fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    emit(&format!("{}\n", serde_json::to_string_pretty(value)?))
}

/// Writes to standard output. A reader that stopped listening (`pbem legal | head`) is
/// not an error: the output was only ever for it.
fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        result => Ok(result?),
    }
}
