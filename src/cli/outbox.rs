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

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Action::Flush {
        mut files,
        games,
        mail,
    } = args.action;
    if let Some(dir) = games {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    if files.is_empty() {
        anyhow::bail!("name the game files, or --games DIR");
    }
    files.sort();
    let referee = mail.referee()?;
    let mut waiting = 0;
    for file in &files {
        let flushed = referee.flush(file)?;
        waiting += flushed.waiting;
        println!(
            "{}: {} sent, {} waiting{}",
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
