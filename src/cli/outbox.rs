use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Send every message waiting in the outboxes of these games
    Flush {
        /// Game files
        files: Vec<PathBuf>,
        /// Every game file in this folder
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
        #[command(flatten)]
        mail: super::mail::MailArgs,
    },
}

/// Sends every game's outbox. Says nothing of a game with nothing sent and nothing
/// waiting (cron mails whatever a run prints); exits 1 while anything still waits.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Action::Flush {
        mut files,
        games,
        mail,
    } = args.action;
    if files.is_empty() && games.is_none() {
        anyhow::bail!("name the game files, or --games DIR");
    }
    let referee = mail.referee()?;
    let mut waiting = 0;
    if let Some(dir) = games {
        files.extend(crate::mail::game_files(&dir)?);
    }
    files.sort();
    for file in &files {
        let flushed = referee.flush(file)?;
        waiting += flushed.waiting;
        if flushed.sent == 0 && flushed.waiting == 0 && flushed.superseded == 0 {
            continue;
        }
        let superseded = match flushed.superseded {
            0 => String::new(),
            n => format!(", {n} turn notice(s) not sent: a later notice replaced them"),
        };
        outln!(
            "{}: {} sent, {} waiting{superseded}{}",
            file.display(),
            flushed.sent,
            flushed.waiting,
            flushed.error.map(|e| format!(" ({e})")).unwrap_or_default()
        );
    }
    Ok(if waiting == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
