use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::Deadline;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder of game files
    #[arg(long, value_name = "DIR")]
    games: PathBuf,
    /// Remind a player who has kept a game waiting longer than this (3d, 12h, 30m),
    /// at most once per this interval
    #[arg(long, value_name = "DURATION", value_parser = super::mail::parse_duration)]
    after: u64,
    /// After this long without a move (counted from the turn notice), act as --then says
    #[arg(long, value_name = "DURATION", value_parser = super::mail::parse_duration)]
    limit: Option<u64>,
    /// What to do past --limit: keep waiting (and reminding), skip the turn where the
    /// rules allow it (else keep waiting), or forfeit the player
    #[arg(long, value_enum, default_value = "wait", requires = "limit")]
    then: Then,
    #[command(flatten)]
    mail: super::mail::MailArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Then {
    Wait,
    Skip,
    Forfeit,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let deadline = match (args.limit, args.then) {
        (Some(limit), Then::Skip) => Some((limit, Deadline::Skip)),
        (Some(limit), Then::Forfeit) => Some((limit, Deadline::Forfeit)),
        _ => None,
    };
    let reminded = crate::mail::referee::remind(
        super::keyring()?,
        &args.games,
        args.after,
        deadline,
        &args.mail.mailing(),
    )?;
    // Nothing said when nobody was reminded: cron mails whatever a run prints.
    for (file, what) in &reminded.games {
        outln!("{}: {what}", file.display());
    }
    for (file, message) in &reminded.refused {
        super::mail::report_refused(file, message);
    }
    Ok(ExitCode::SUCCESS)
}
