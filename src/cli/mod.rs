//! The command line: clap definitions and one module per subcommand. Each subcommand
//! builds its inputs and calls one function of [`crate::ops`].

#[macro_use]
mod output;

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
    New(Deferred<new::Args>),
    /// Apply one player's move (a whole turn) to a game file, in place
    Apply(Deferred<apply::Args>),
    /// Show the board (ascii) or the exact record of the position (json)
    Show(Deferred<show::Args>),
    /// List the moves a player may make now
    Legal(Deferred<legal::Args>),
    /// List every record: player, move, draws, hash
    Log(Deferred<log::Args>),
    /// Check signatures, the hash chain, the seed and every draw, and replay every move
    Audit(Deferred<audit::Args>),
    /// Reveal the game's seed in the file (the end of a game does this by itself)
    Reveal(Deferred<reveal::Args>),
    /// Play a complete demo game between two built-in players, then audit it
    Demo(Deferred<demo::Args>),
    /// Take players' moves from mail: one raw message on standard input, or a Maildir
    Inbox(Deferred<inbox::Args>),
    /// Send the mail waiting in games' outboxes
    Outbox(Deferred<outbox::Args>),
    /// Remind players who keep a game waiting
    Remind(Deferred<remind::Args>),
}

/// A subcommand's arguments, built only when that subcommand is the one run (or its help
/// is shown). Building all eleven subcommands' arguments costs more than parsing one of
/// them, and `pbem apply` runs once per move.
#[derive(Debug)]
struct Deferred<T>(T);

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

impl<T: clap::Args> clap::Args for Deferred<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }

    fn augment_args(command: clap::Command) -> clap::Command {
        command.defer(|command| keeping_description(command, T::augment_args))
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        command.defer(|command| keeping_description(command, T::augment_args_for_update))
    }
}

/// `augment` run on a subcommand that already has its description. The arguments'
/// own doc comments would otherwise replace it: when not deferred, the subcommand's
/// description is set after its arguments, and wins.
fn keeping_description(
    command: clap::Command,
    augment: fn(clap::Command) -> clap::Command,
) -> clap::Command {
    let about = command.get_about().cloned();
    let long_about = command.get_long_about().cloned();
    let command = augment(command);
    let command = match about {
        Some(about) => command.about(about),
        None => command,
    };
    match long_about {
        Some(long_about) => command.long_about(long_about),
        None => command.long_about(None),
    }
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
    ExitCode::from(status(args))
}

/// Runs pbem with these arguments and returns its exit status: 0 when the command did
/// what was asked, 1 when it refused or failed (having said why on stderr), 2 when the
/// command line does not parse, [`EX_TEMPFAIL`] for a fault on the referee's side in
/// `inbox`.
pub fn status<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        Command::New(Deferred(args)) => new::run(args),
        Command::Apply(Deferred(args)) => apply::run(args),
        Command::Show(Deferred(args)) => show::run(args),
        Command::Legal(Deferred(args)) => legal::run(args),
        Command::Log(Deferred(args)) => log::run(args),
        Command::Audit(Deferred(args)) => audit::run(args),
        Command::Reveal(Deferred(args)) => reveal::run(args),
        Command::Demo(Deferred(args)) => demo::run(args),
        Command::Inbox(Deferred(args)) => inbox::run(args),
        Command::Outbox(Deferred(args)) => outbox::run(args),
        Command::Remind(Deferred(args)) => remind::run(args),
    };
    match result {
        // Subcommands end in SUCCESS or FAILURE (an audit that found a fault, say).
        Ok(code) if code == ExitCode::SUCCESS => 0,
        Ok(_) => 1,
        Err(error) => match error.downcast_ref::<TemporaryFailure>() {
            Some(TemporaryFailure(cause)) => {
                errln!("error: {cause:#}");
                errln!("pbem: exit status {EX_TEMPFAIL}: try again later (a mail server keeps the message and delivers it again)");
                EX_TEMPFAIL
            }
            None => {
                errln!("error: {error:#}");
                1
            }
        },
    }
}

/// sysexits' EX_TEMPFAIL: what a mail server's pipe delivery takes as "keep the message
/// and try again later", where any other failure bounces it back to its sender.
pub const EX_TEMPFAIL: u8 = 75;

/// A fault on the referee's side in a command a mail server runs (`inbox`): the
/// command exits with [`EX_TEMPFAIL`].
#[derive(Debug)]
struct TemporaryFailure(anyhow::Error);

impl std::fmt::Display for TemporaryFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for TemporaryFailure {}

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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent_with_every_subcommand_built() {
        // debug_assert builds the deferred subcommands too, so a clash in any of them
        // (two flags named alike, a bad default) fails here rather than in use.
        Cli::command().debug_assert();
    }

    #[test]
    fn every_subcommand_keeps_its_description_once_its_arguments_are_built() {
        let listed: Vec<(String, Option<String>)> = Cli::command()
            .get_subcommands()
            .map(|sub| {
                let about = sub.get_about().map(ToString::to_string);
                (sub.get_name().to_string(), about)
            })
            .collect();
        assert!(listed.len() >= 11);
        let mut built = Cli::command();
        built.build();
        for (name, about) in listed {
            let sub = built.find_subcommand(&name).expect("still there");
            assert_eq!(sub.get_about().map(ToString::to_string), about, "{name}");
            assert!(sub.get_long_about().is_none(), "{name}");
        }
    }

    #[test]
    fn a_deferred_subcommand_still_parses_its_arguments() {
        let cli = Cli::try_parse_from([
            "pbem",
            "apply",
            "game.json",
            "--player",
            "Ann",
            "--move",
            "pass",
        ])
        .expect("parses");
        let Command::Apply(Deferred(args)) = cli.command else {
            panic!("not apply: {cli:?}");
        };
        let parsed = format!("{args:?}");
        assert!(
            parsed.contains("\"Ann\"") && parsed.contains("\"pass\""),
            "{parsed}"
        );
        let error = Cli::try_parse_from(["pbem", "apply", "game.json", "--player", "Ann"])
            .expect_err("--move is required");
        assert!(error.to_string().contains("--move"), "{error}");
    }
}
