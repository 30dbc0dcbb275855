//! The command line: clap definitions and one module per subcommand. Each subcommand
//! parses its flags, calls one operation of the library (of `ops`, or of
//! `mail::referee` for a command that may mail) and prints what it returns.

#[macro_use]
mod output;

mod apply;
mod audit;
mod demo;
mod export;
mod generate;
mod inbox;
mod join;
mod legal;
mod log;
mod mail;
mod new;
mod outbox;
mod pictures;
mod remind;
mod reveal;
mod setup;
mod show;
mod simulate;
mod undo;
mod watch;

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
    /// A player joins a game started with `new --join`; the last to join starts it
    Join(join::Args),
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
    /// Take back a player's last move (at once, or once every other player agrees),
    /// or answer such a request
    Undo(undo::Args),
    /// Reveal the game's seed in the file (the end of a game does this by itself)
    Reveal(reveal::Args),
    /// Write a replay page: the whole game, turn by turn, in one HTML file
    Export(export::Args),
    /// Turn the board's picture in a game's mail on or off, for the game or a player
    Pictures(pictures::Args),
    /// Play a complete demo game between two built-in players, then audit it
    Demo(demo::Args),
    /// Play many games between built-in players on every core and report win rates
    Simulate(simulate::Args),
    /// Take players' moves from mail: one raw message on standard input, or a Maildir
    Inbox(inbox::Args),
    /// Send, list, drop or retry the mail in games' outboxes
    Outbox(outbox::Args),
    /// Remind players who keep a game waiting
    Remind(remind::Args),
    /// Write the mail settings to PBEM_HOME/config.toml and check them end to end:
    /// SMTP and IMAP logins, and a test mail to the referee
    Setup(setup::Args),
    /// Referee games unattended: take mail as it arrives (IMAP or a Maildir), send the
    /// outboxes, remind and apply deadlines, until stopped
    Watch(watch::Args),
    /// Print the completion script of a shell (bash, zsh, fish...)
    Completions(generate::CompletionsArgs),
    /// Write the man pages of pbem and each of its commands into a folder
    Manpages(generate::ManpagesArgs),
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
    /// The board as an SVG picture
    Svg,
    /// The board as a PNG picture (to a file or a pipe, never a terminal)
    Png,
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
    // A link is resolved here, once, so that every command (and every file it keeps
    // beside the game: lock, outbox, archive) works on the link's target.
    #[arg(value_parser = resolved_path())]
    file: PathBuf,
}

/// A path argument naming a game file, a link resolved ([`crate::basics::store::resolve`]).
fn resolved_path() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::PathBufValueParser::new()
        .map(|path: PathBuf| crate::basics::store::resolve(&path))
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
/// `inbox`, or a mail server `setup` did not reach.
fn status<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let parsed = match parse_named(&args) {
        Some(cli) => Ok(cli),
        None => Cli::try_parse_from(args),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        Command::New(args) => new::run(args),
        Command::Join(args) => join::run(args),
        Command::Apply(args) => apply::run(args),
        Command::Show(args) => show::run(args),
        Command::Legal(args) => legal::run(args),
        Command::Log(args) => log::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Reveal(args) => reveal::run(args),
        Command::Export(args) => export::run(args),
        Command::Pictures(args) => pictures::run(args),
        Command::Undo(args) => undo::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Simulate(args) => simulate::run(args),
        Command::Inbox(args) => inbox::run(args),
        Command::Outbox(args) => outbox::run(args),
        Command::Remind(args) => remind::run(args),
        Command::Setup(args) => setup::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Completions(args) => generate::completions(args),
        Command::Manpages(args) => generate::manpages(args),
    };
    match result {
        // Subcommands end in SUCCESS or FAILURE (an audit that found a fault, say).
        Ok(code) if code == ExitCode::SUCCESS => 0,
        Ok(_) => 1,
        Err(error) => match error.downcast_ref::<TemporaryFailure>() {
            Some(TemporaryFailure { cause, then }) => {
                errln!("error: {cause:#}");
                errln!("pbem: exit status {EX_TEMPFAIL}: try again later ({then})");
                EX_TEMPFAIL
            }
            None => {
                // Capped: an error may quote what was given (a move, a name), and a
                // mistake of a megabyte must not come back whole on the terminal.
                let text = crate::basics::echo::shortened(
                    &format!("{error:#}"),
                    crate::basics::echo::MESSAGE_CHARS,
                );
                errln!("error: {text}");
                1
            }
        },
    }
}

/// The command line read with only the subcommand it names: building every
/// subcommand, with all their arguments and help, costs more than a move's own work
/// here. `None` when it names none, or does not parse so (help, a mistake): the whole
/// command line then reads it again, so that what pbem says is the same.
fn parse_named(args: &[OsString]) -> Option<Cli> {
    use clap::FromArgMatches as _;
    let subcommand = subcommand_alone(args.get(1)?.to_str()?)?;
    let matches = clap::Command::new("pbem")
        .subcommand_required(true)
        .subcommand(subcommand)
        .try_get_matches_from(args)
        .ok()?;
    Cli::from_arg_matches(&matches).ok()
}

/// The subcommand called `name` with its arguments and nothing else.
fn subcommand_alone(name: &str) -> Option<clap::Command> {
    use clap::Args as _;
    let alone = clap::Command::new;
    Some(match name {
        "new" => new::Args::augment_args(alone("new")),
        "join" => join::Args::augment_args(alone("join")),
        "apply" => apply::Args::augment_args(alone("apply")),
        "show" => show::Args::augment_args(alone("show")),
        "legal" => legal::Args::augment_args(alone("legal")),
        "log" => log::Args::augment_args(alone("log")),
        "audit" => audit::Args::augment_args(alone("audit")),
        "undo" => undo::Args::augment_args(alone("undo")),
        "reveal" => reveal::Args::augment_args(alone("reveal")),
        "export" => export::Args::augment_args(alone("export")),
        "pictures" => pictures::Args::augment_args(alone("pictures")),
        "demo" => demo::Args::augment_args(alone("demo")),
        "simulate" => simulate::Args::augment_args(alone("simulate")),
        "inbox" => inbox::Args::augment_args(alone("inbox")),
        "outbox" => outbox::Args::augment_args(alone("outbox")),
        "remind" => remind::Args::augment_args(alone("remind")),
        "setup" => setup::Args::augment_args(alone("setup")),
        "watch" => watch::Args::augment_args(alone("watch")),
        "completions" => generate::CompletionsArgs::augment_args(alone("completions")),
        "manpages" => generate::ManpagesArgs::augment_args(alone("manpages")),
        _ => return None,
    })
}

/// sysexits' EX_TEMPFAIL: what a mail server's pipe delivery takes as "keep the message
/// and try again later", where any other failure bounces it back to its sender.
pub const EX_TEMPFAIL: u8 = 75;

/// A fault on the referee's side in a command a mail server or cron runs (`inbox`,
/// `watch --once`), or work left waiting (`new --mail` whose mail did not go): the
/// command exits with [`EX_TEMPFAIL`].
#[derive(Debug)]
struct TemporaryFailure {
    cause: anyhow::Error,
    /// What waits for the retry, and where, as the caller's case has it: only a
    /// message piped in by a mail server is kept by the mail server.
    then: &'static str,
}

impl std::fmt::Display for TemporaryFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.cause)
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
    emit_bytes(text.as_bytes())
}

/// [`emit`] for bytes that need not be text (a PNG).
fn emit_bytes(bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
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
        // A clash in any subcommand (two flags named alike, a bad default) fails here
        // rather than in use.
        Cli::command().debug_assert();
    }

    #[test]
    fn every_subcommand_alone_has_the_arguments_it_has_in_the_whole_command_line() {
        let cli = Cli::command();
        for sub in cli.get_subcommands() {
            let name = sub.get_name();
            let alone =
                subcommand_alone(name).unwrap_or_else(|| panic!("{name} is not built alone"));
            let ids = |command: &clap::Command| -> Vec<String> {
                command
                    .get_arguments()
                    .map(|arg| arg.get_id().to_string())
                    .collect()
            };
            assert_eq!(ids(&alone), ids(sub), "{name}");
        }
        assert!(subcommand_alone("help").is_none());
    }

    #[test]
    fn a_command_line_reads_alike_with_its_subcommand_alone_and_with_every_one() {
        let line = |words: &[&str]| -> Vec<OsString> { words.iter().map(OsString::from).collect() };
        let apply = line(&[
            "pbem", "apply", "g.json", "--player", "Ann", "--move", "place x", "--mail",
        ]);
        let alone = parse_named(&apply).expect("reads with apply alone");
        let whole = Cli::try_parse_from(&apply).expect("reads whole");
        assert_eq!(format!("{alone:?}"), format!("{whole:?}"));
        // Help, a version, a mistake and no subcommand are left to the whole command
        // line, which says what it always says.
        for words in [
            &["pbem", "apply", "--help"][..],
            &["pbem", "--version"],
            &["pbem", "apply", "g.json", "--player", "Ann"],
            &[
                "pbem", "apply", "g.json", "--player", "Ann", "--move", "m", "--nosuch",
            ],
            &["pbem", "nosuch"],
            &["pbem"],
        ] {
            assert!(parse_named(&line(words)).is_none(), "{words:?}");
        }
    }

    #[test]
    fn every_subcommand_help_starts_with_its_one_line_description() {
        let mut cli = Cli::command();
        cli.build();
        let mut described = 0;
        for sub in cli.get_subcommands_mut() {
            let name = sub.get_name().to_string();
            let about = sub.get_about().map(ToString::to_string).expect(&name);
            assert!(sub.get_long_about().is_none(), "{name}");
            let help = sub.render_long_help().to_string();
            assert!(help.starts_with(&format!("{about}\n")), "{name}: {help}");
            described += 1;
        }
        assert!(described >= 11);
    }

    #[test]
    fn every_subcommand_declares_its_arguments_without_being_built() {
        // Tools that read the command (help, completions, man pages) see each
        // subcommand's arguments as declared, not only once it has been built.
        let cli = Cli::command();
        let apply = cli.find_subcommand("apply").expect("apply");
        let ids: Vec<&str> = apply.get_arguments().map(|a| a.get_id().as_str()).collect();
        assert!(
            ["file", "player", "move_text"]
                .iter()
                .all(|id| ids.contains(id)),
            "{ids:?}"
        );
        for sub in cli.get_subcommands() {
            let declared = sub.get_arguments().next().is_some() || sub.has_subcommands();
            assert!(declared, "{}", sub.get_name());
        }
    }

    #[test]
    fn a_subcommand_parses_its_arguments() {
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
        let Command::Apply(args) = cli.command else {
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
