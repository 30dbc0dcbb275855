use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder of game files
    #[arg(long, value_name = "DIR")]
    games: PathBuf,
    /// Remind a player who has kept a game waiting longer than this (3d, 12h, 30m),
    /// at most once per this interval
    #[arg(long, value_name = "DURATION", value_parser = super::mail::parse_duration)]
    after: u64,
    #[command(flatten)]
    mail: super::mail::MailArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let referee = args.mail.referee()?;
    let reminded = referee.remind(&args.games, args.after)?;
    for (file, player) in &reminded {
        println!("{}: reminded {player}", file.display());
    }
    if reminded.is_empty() {
        println!("nobody to remind");
    }
    Ok(ExitCode::SUCCESS)
}
