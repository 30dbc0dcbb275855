use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::mail::referee::Referee;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder of game files the messages are for
    #[arg(long, value_name = "DIR")]
    games: PathBuf,
    /// Process every new message of this Maildir in order (marking each one seen);
    /// without it, one raw message is read from standard input
    #[arg(long, value_name = "PATH")]
    maildir: Option<PathBuf>,
    #[command(flatten)]
    mail: super::mail::MailArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let referee = args.mail.referee()?;
    match &args.maildir {
        Some(maildir) => {
            let count = process_maildir(&referee, &args.games, maildir)?;
            println!("{count} message(s) processed");
        }
        None => {
            let mut raw = Vec::new();
            std::io::stdin()
                .read_to_end(&mut raw)
                .context("cannot read the message from standard input")?;
            let handled = referee.receive(&args.games, &raw)?;
            println!("{}: {}", handled.outcome, handled.detail);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Every message in `new/`, oldest name first, each moved to `cur/` and flagged seen
/// once handled, so a second run (or one running at the same time) skips it.
fn process_maildir(referee: &Referee, games: &Path, maildir: &Path) -> anyhow::Result<usize> {
    let new = maildir.join("new");
    let cur = maildir.join("cur");
    std::fs::create_dir_all(&cur).with_context(|| format!("cannot create {}", cur.display()))?;
    let mut names: Vec<_> = std::fs::read_dir(&new)
        .with_context(|| format!("{} is not a Maildir (no new/ folder)", maildir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.file_name()))
        .filter(|name| !name.to_string_lossy().starts_with('.'))
        .collect();
    names.sort();
    let mut count = 0;
    for name in names {
        let claimed = new.join(&name);
        let mut done = name.clone();
        done.push(":2,S");
        let target = cur.join(done);
        // Claim the message by moving it first: of two runs, only one rename succeeds.
        let working = cur.join({
            let mut n = name.clone();
            n.push(".processing");
            n
        });
        if std::fs::rename(&claimed, &working).is_err() {
            continue;
        }
        let raw = std::fs::read(&working)
            .with_context(|| format!("cannot read {}", working.display()))?;
        let handled = referee.receive(games, &raw)?;
        std::fs::rename(&working, &target)
            .with_context(|| format!("cannot file {}", target.display()))?;
        println!(
            "{}: {}: {}",
            name.to_string_lossy(),
            handled.outcome,
            handled.detail
        );
        count += 1;
    }
    Ok(count)
}
