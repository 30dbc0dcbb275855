use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

use crate::mail::outbound::outbox::{Outbox, State};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

/// Game files named one by one, or every one of a folder.
#[derive(Debug, clap::Args)]
struct Games {
    /// Game files
    files: Vec<PathBuf>,
    /// Every game file in this folder
    #[arg(long, value_name = "DIR")]
    games: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Send the mail waiting in these games' outboxes; mail refused for good is set
    /// aside, and the referee told
    Flush {
        #[command(flatten)]
        games: Games,
        #[command(flatten)]
        mail: super::mail::MailArgs,
    },
    /// List the messages waiting in the outboxes of these games, and those set aside
    List {
        #[command(flatten)]
        games: Games,
        /// text, or json: an array of {game, id, to, subject, state, since, reason}
        #[arg(long, value_enum, default_value = "text")]
        format: super::ListFormat,
    },
    /// Remove messages from a game's outbox, waiting or set aside
    Drop {
        /// The game file
        file: PathBuf,
        /// The messages, by id as `pbem outbox list` shows it
        #[arg(required = true, value_name = "ID")]
        ids: Vec<String>,
    },
    /// Put messages set aside back in a game's queue, for the next flush to send
    Retry {
        /// The game file
        file: PathBuf,
        /// The messages, by id as `pbem outbox list` shows it
        #[arg(required = true, value_name = "ID")]
        ids: Vec<String>,
    },
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Flush { games, mail } => flush(games, &mail),
        Action::List { games, format } => list(games, format),
        Action::Drop { file, ids } => {
            Outbox::beside(&file).drop_messages(&ids)?;
            for id in &ids {
                outln!("{}: {id} dropped", file.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Retry { file, ids } => {
            let queued = Outbox::beside(&file).retry(&ids)?;
            for (id, new) in ids.iter().zip(&queued) {
                outln!(
                    "{}: {id} waits again as {new}; the next `pbem outbox flush` sends it",
                    file.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Sends every game's outbox. Says nothing of a game with nothing sent and nothing
/// waiting (cron mails whatever a run prints); exits 1 while anything still waits.
fn flush(games: Games, mail: &super::mail::MailArgs) -> anyhow::Result<ExitCode> {
    let mut waiting = 0;
    // With a folder, its mail to the referee and to players writing about no game too.
    let mut failed = None;
    let keyring = super::keyring()?;
    let mailing = mail.mailing();
    let all = crate::mail::referee::flush_outboxes(
        keyring,
        games.files,
        games.games.as_deref(),
        &mailing,
    )?;
    for (file, flushed) in all {
        let file = &file;
        let flushed = match flushed {
            Ok(flushed) => flushed,
            Err(error) => {
                failed.get_or_insert(error);
                continue;
            }
        };
        waiting += flushed.waiting;
        for message in &flushed.refused {
            super::mail::report_refused(file, message);
        }
        for problem in &flushed.unqueued_notices {
            errln!(
                "{}: cannot tell the referee yet of {problem}; the next flush tries again",
                file.display()
            );
        }
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
    if let Some(error) = failed {
        return Err(error.into());
    }
    Ok(if waiting == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn list(games: Games, format: super::ListFormat) -> anyhow::Result<ExitCode> {
    let all = crate::mail::referee::list_outboxes(games.files, games.games.as_deref())?;
    match format {
        super::ListFormat::Json => {
            let entries: Vec<serde_json::Value> = all
                .iter()
                .map(|(file, message)| {
                    json!({
                        "game": file.display().to_string(),
                        "id": message.id,
                        "to": message.to,
                        "subject": message.subject,
                        "state": message.state,
                        "since": crate::mail::clock::utc_rfc3339(message.since),
                        "reason": message.reason,
                    })
                })
                .collect();
            super::print_json(&entries)?;
        }
        super::ListFormat::Text => {
            for (file, message) in &all {
                let state = match message.state {
                    State::Waiting => "waiting",
                    State::Refused => "refused",
                };
                outln!(
                    "{}: {} {state} since {}, to {}: {}",
                    file.display(),
                    message.id,
                    crate::mail::clock::utc_text(message.since),
                    message.to.join(", "),
                    message.subject
                );
                if let Some(reason) = &message.reason {
                    outln!("  the server answered: {reason}");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
