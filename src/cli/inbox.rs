use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::mail::inbound::imap::ImapMailbox;
use crate::mail::inbound::maildir;
use crate::mail::intake::MAX_MESSAGE_BYTES;
use crate::mail::outbound::outbox::Outbox;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder of game files the messages are for
    #[arg(long, value_name = "DIR")]
    games: PathBuf,
    /// Process every new message of this Maildir in order (marking each one seen);
    /// without it or --imap, one raw message is read from standard input
    #[arg(long, value_name = "PATH", conflicts_with = "imap")]
    maildir: Option<PathBuf>,
    /// Process every new message of the IMAP mailbox named by `imap` under [mail] in
    /// PBEM_HOME/config.toml, in the order they arrived
    #[arg(long)]
    imap: bool,
    #[command(flatten)]
    mail: super::mail::MailArgs,
}

/// Every error here is a fault on the referee's side (problems with a message are
/// outcomes, answered by mail): the command exits with EX_TEMPFAIL, so the mail server
/// keeps the message and delivers it again later.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    receive(&args).map_err(|error| anyhow::Error::new(super::TemporaryFailure(error)))?;
    Ok(ExitCode::SUCCESS)
}

fn receive(args: &Args) -> anyhow::Result<()> {
    if args.maildir.is_some() || args.imap {
        let referee = args.mail.referee()?;
        let mut games = std::collections::BTreeSet::new();
        let mut report = |name: &str, handled: &crate::mail::inbound::in_order::Handled| {
            // Mail for no game is kept without a word: cron mails what a run prints
            // to the very mailbox it reads, and a line about its own report would
            // make the next run's report, for ever.
            if let Some(game) = &handled.game {
                outln!("{name}: {}: {}", handled.outcome, shown(&handled.detail));
                games.insert(game.clone());
            }
        };
        let count = match &args.maildir {
            Some(dir) => maildir::process(&referee, &args.games, dir, &mut report)?,
            None => ImapMailbox::from_settings(referee.settings())?.process(
                &referee,
                &args.games,
                &mut report,
            )?,
        };
        if !games.is_empty() {
            outln!("{count} message(s) processed");
        }
        say_refused(&referee);
        return say_what_waits(games.iter());
    }
    // The message is read before anything else, so a mail server piping it in never
    // meets a closed pipe, whatever goes wrong after.
    let raw = read_message()?;
    let referee = args.mail.referee()?;
    let handled = referee.receive(&args.games, &raw)?;
    outln!("{}: {}", handled.outcome, shown(&handled.detail));
    say_refused(&referee);
    say_what_waits(handled.game.iter())
}

/// A message's outcome as the report shows it: one line, whatever the sender wrote
/// (the detail may quote their address or move), as cron mails the report on.
fn shown(detail: &str) -> String {
    crate::words::inert(detail, crate::basics::echo::MESSAGE_CHARS)
}

/// The message on standard input, as much of it as pbem reads; the rest of one too
/// large to read is drained, so the mail server sees it taken, not a broken pipe.
fn read_message() -> anyhow::Result<Vec<u8>> {
    let mut raw = Vec::new();
    let mut stdin = std::io::stdin().lock();
    (&mut stdin)
        .take(MAX_MESSAGE_BYTES as u64 + 1)
        .read_to_end(&mut raw)
        .context("cannot read the message from standard input")?;
    std::io::copy(&mut stdin, &mut std::io::sink())
        .context("cannot read the message from standard input")?;
    Ok(raw)
}

/// Says which messages the mail server refused for good as they were sent (each is set
/// aside, and the referee told by mail).
fn say_refused(referee: &crate::mail::referee::mailer::Referee) {
    for (game, message) in referee.take_refused() {
        super::mail::report_refused(&game, &message);
    }
}

/// Says, once, how many answers and notices still wait in the outboxes of the games a
/// run touched (the mail server could not be reached, or asked to try later); mail it
/// refused for good is set aside, not waiting.
fn say_what_waits<'a>(games: impl Iterator<Item = &'a PathBuf>) -> anyhow::Result<()> {
    let mut waiting = 0;
    for game in games {
        waiting += Outbox::beside(game).waiting()?.len();
    }
    if waiting > 0 {
        outln!(
            "{waiting} message(s) wait in the outbox, not sent yet; `pbem outbox flush --games DIR` retries"
        );
    }
    Ok(())
}
