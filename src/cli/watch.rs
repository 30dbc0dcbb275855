use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder of game files
    #[arg(long, value_name = "DIR")]
    games: PathBuf,
    /// Read players' mail from this Maildir; without it, from the IMAP mailbox named
    /// by `imap` under [mail] in PBEM_HOME/config.toml
    #[arg(long, value_name = "PATH")]
    maildir: Option<PathBuf>,
    /// One round (inbox, outboxes, reminders), then exit: for cron
    #[arg(long)]
    once: bool,
    /// How long to wait between rounds when no mail arrives (a Maildir or an IMAP
    /// server without IDLE is looked at only then; with IDLE, new mail ends the wait at
    /// once): 30s, 5m
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = poll_interval)]
    poll: Duration,
    /// With IMAP IDLE, the longest wait in one IDLE: it is then ended, and a server that
    /// does not answer within `timeout` is taken for gone (logged, and connected to
    /// again); at most 25m
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = idle_check)]
    idle_check: Duration,
    #[command(flatten)]
    mail: super::mail::MailArgs,
}

fn poll_interval(text: &str) -> Result<Duration, String> {
    let duration = crate::basics::duration::parse(text, Duration::from_secs(1))?;
    if duration < Duration::from_secs(1) {
        return Err("the poll interval is at least 1s".into());
    }
    Ok(duration)
}

fn idle_check(text: &str) -> Result<Duration, String> {
    let duration = crate::basics::duration::parse(text, Duration::from_secs(1))?;
    let most = crate::mail::referee::watch::IDLE_AT_MOST;
    if duration < Duration::from_secs(1) {
        return Err("the IDLE check is at least 1s".into());
    }
    if duration > most {
        // RFC 2177: a server may end an IDLE of 30 minutes without a word.
        return Err(format!(
            "the IDLE check is at most {}m (a server may drop an IDLE of 30m)",
            most.as_secs() / 60
        ));
    }
    Ok(duration)
}

/// Every event is one line on standard error, with the time in UTC; nothing is
/// printed by a round that did nothing (cron mails whatever a run prints).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let round = crate::mail::referee::watch::watch(
        super::keyring()?,
        args.games,
        args.maildir,
        args.once,
        crate::mail::referee::watch::Waits {
            poll: args.poll,
            idle_check: args.idle_check,
        },
        &args.mail.mailing(),
        &mut |line| {
            let now = crate::mail::clock::utc_rfc3339(crate::mail::clock::now());
            errln!("{now} {line}");
        },
    )?;
    // One round for cron: a fault exits 75, as `inbox` does, so it is tried again.
    if round.fault || !round.held.is_empty() {
        return Err(anyhow::Error::new(super::TemporaryFailure {
            cause: anyhow::anyhow!("a round of pbem watch met a fault"),
            then: "what it could not do waits for the next round",
        }));
    }
    Ok(ExitCode::SUCCESS)
}
