use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::mail::setup::{self, Change, CheckOptions, Keys, Line};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Without --check, the keys given (none: as --check) are written to PBEM_HOME/config.toml (the folder made 0700 if missing), then everything is checked: the SMTP and IMAP logins, and a test mail to the referee's own address, waited for in the IMAP mailbox. Exit status: 0 when every check passed, 1 when one failed (a setting to fix, said on its line), 75 when a server was not reached or did not answer in time (try again later)."
)]
pub struct Args {
    /// The referee's From line: "Referee <referee@example.org>"
    #[arg(long, value_name = "ADDRESS")]
    from: Option<String>,
    /// How mail goes out: smtps://USER@HOST (TLS, port 465),
    /// smtp://USER@HOST:587?tls=required (STARTTLS), sendmail, or folder:DIR for a dry
    /// run; a user that is an address is written with %40 for its @
    #[arg(long, value_name = "URL")]
    smtp: Option<String>,
    /// The mailbox players' mail is read from: imaps://USER@HOST/INBOX (TLS, port 993)
    /// or imap://USER@HOST/INBOX (STARTTLS)
    #[arg(long, value_name = "URL")]
    imap: Option<String>,
    /// A file whose first line is the password of the SMTP and IMAP logins (an app
    /// password for a hosted mailbox); make it yours alone (chmod 600)
    #[arg(long, value_name = "PATH")]
    password_file: Option<PathBuf>,
    /// A PEM file of the CA that signed the servers' certificates, when it is not in
    /// the system's trust store
    #[arg(long, value_name = "PATH")]
    ca_file: Option<PathBuf>,
    /// How long a server may take to answer: 15s, 2m
    #[arg(long, value_name = "DURATION")]
    timeout: Option<String>,
    /// Change keys config.toml already has (other keys and tables are always kept)
    #[arg(long)]
    force: bool,
    /// Only check the settings already written; nothing is written
    #[arg(long, conflicts_with_all = ["from", "smtp", "imap", "password_file", "ca_file", "timeout", "force"])]
    check: bool,
    /// Send the test mail here instead of the referee's own address (it is then not
    /// waited for)
    #[arg(long, value_name = "ADDRESS")]
    to: Option<String>,
    /// How long to wait for the test mail in the IMAP mailbox: 30s, 5m
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = wait_time)]
    wait: Duration,
}

fn wait_time(text: &str) -> Result<Duration, String> {
    crate::basics::duration::parse(text, Duration::from_secs(1))
}

/// Writes the keys given (or nothing, with --check or none given), then checks: one
/// line per step on standard output.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let home = super::keyring()?.home().to_path_buf();
    let keys = Keys {
        from: args.from,
        smtp: args.smtp,
        imap: args.imap,
        password_file: args.password_file,
        ca_file: args.ca_file,
        timeout: args.timeout,
    };
    if !args.check && keys.any() {
        let wrote = setup::write_config(&home, &keys, args.force)?;
        if wrote.made_home {
            outln!("made {} (mode 700)", home.display());
        }
        let shown = wrote.path.display();
        match wrote.change {
            Change::Created => outln!("wrote {shown}"),
            Change::Unchanged => outln!("{shown} already says so; not written"),
            Change::Added(diff) => outln!("added to {shown}, all else kept:\n{diff}"),
            Change::Replaced(diff) => outln!("changed {shown}, all else kept:\n{diff}"),
            Change::Kept(diff) => {
                outln!("{diff}");
                anyhow::bail!(
                    "{shown} already has other values for these keys (above); nothing written: pass --force to change them (its other keys and tables are kept)"
                );
            }
        }
    }
    let options = CheckOptions {
        to: args.to,
        wait: args.wait,
    };
    let checked = setup::check(&home, &options, &mut |line| match line {
        Line::Ok(text) => outln!("ok: {text}"),
        Line::Failed { what, fix, .. } => outln!("FAILED: {what} — {fix}"),
    });
    if checked.failed {
        errln!("pbem setup: a check failed; fix what its line says, then run `pbem setup --check`");
        return Ok(ExitCode::FAILURE);
    }
    if checked.unreachable {
        return Err(anyhow::Error::new(super::TemporaryFailure {
            cause: anyhow::anyhow!("a mail server was not reached or did not answer in time"),
            then: "`pbem setup --check` checks again",
        }));
    }
    outln!("all checks passed");
    Ok(ExitCode::SUCCESS)
}
