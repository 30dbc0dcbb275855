use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::mail::intake::MAX_MESSAGE_BYTES;
use crate::mail::referee::{Inbox, Received};
use crate::mail::Handled;

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
    let then = match (&args.maildir, args.imap) {
        (Some(_), _) => "the messages not handled stay in the Maildir for the next run",
        (None, true) => {
            "the messages not handled stay in the IMAP mailbox, unflagged, for the next run"
        }
        (None, false) => "a mail server keeps the message and delivers it again",
    };
    receive(&args).map_err(|cause| anyhow::Error::new(super::TemporaryFailure { cause, then }))?;
    Ok(ExitCode::SUCCESS)
}

fn receive(args: &Args) -> anyhow::Result<()> {
    let mailing = args.mail.mailing();
    if args.maildir.is_some() || args.imap {
        let inbox = match &args.maildir {
            Some(dir) => Inbox::Maildir(dir),
            None => Inbox::Imap,
        };
        // Mail for no game is kept without a word: cron mails what a run prints to the
        // very mailbox it reads, and a line about its own report would make the next
        // run's report, for ever.
        let mut report = |name: &str, handled: &Handled| {
            if handled.game.is_some() {
                outln!("{name}: {}: {}", handled.outcome, shown(&handled.detail));
            }
        };
        // On standard error, as the faults are: the report on standard output is only
        // of messages.
        let mut note = |line: &str| errln!("imap: {line}");
        let received = crate::mail::referee::inbox(
            super::keyring()?,
            &args.games,
            inbox,
            &mailing,
            &mut report,
            &mut note,
        )?;
        if !received.games.is_empty() {
            outln!("{} message(s) processed", received.count);
        }
        return say_refused_and_waiting(received);
    }
    // The message is read before anything else, so a mail server piping it in never
    // meets a closed pipe, whatever goes wrong after.
    let raw = read_message()?;
    let mut report = |_: &str, handled: &Handled| {
        outln!("{}: {}", handled.outcome, shown(&handled.detail));
    };
    let received = crate::mail::referee::inbox(
        super::keyring()?,
        &args.games,
        Inbox::Message(&raw),
        &mailing,
        &mut report,
        &mut |_| {},
    )?;
    say_refused_and_waiting(received)
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
/// aside, and the referee told by mail), then, once, how many answers and notices still
/// wait in the outboxes of the games a run touched (the mail server could not be
/// reached, or asked to try later); mail it refused for good is set aside, not waiting.
fn say_refused_and_waiting(received: Received) -> anyhow::Result<()> {
    for (game, line) in &received.unasked {
        outln!("{}: {}", game.display(), shown(line));
    }
    for (game, message) in &received.refused {
        super::mail::report_refused(game, message);
    }
    let waiting = received.waiting?;
    if waiting > 0 {
        outln!(
            "{waiting} message(s) wait in the outbox, not sent yet; `pbem outbox flush --games DIR` retries"
        );
    }
    Ok(())
}
