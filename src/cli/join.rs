//! `pbem join`: a player accepts the invitation `pbem new --join` made.

use std::process::ExitCode;

use crate::engine::invitation::Joined;
use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// The player who joins
    #[arg(long, value_name = "NAME")]
    player: String,
    /// Their words, mixed into every draw of the game (a few words of their own choice)
    #[arg(long, value_name = "WORDS")]
    entropy: String,
    /// When this is the last join, mail every player their welcome and the first
    /// player their turn notice
    #[arg(long)]
    mail: bool,
    #[command(flatten)]
    mail_args: super::mail::MailArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = &args.file.file;
    let done = if args.mail {
        let referee = args.mail_args.referee()?;
        let done = referee.join(path, &args.player, &args.entropy)?;
        super::mail::flush_and_report(&referee, path);
        done
    } else {
        ops::join(path, &super::keyring()?, &args.player, &args.entropy)?
    };
    match &done.joined {
        Joined::Already(words) => {
            errln!(
                "{} had joined already, with the words {words:?}",
                args.player
            );
            return Ok(ExitCode::FAILURE);
        }
        Joined::Waiting(waiting) => {
            outln!("{} joined; waiting for {}", args.player, waiting.join(", "));
        }
        Joined::Complete => {
            let game = ops::open(path, None)?;
            let view = game.view(None, None)?;
            outln!(
                "{} joined, the last to: game {} has begun; to move: {}",
                args.player,
                game.genesis().id,
                super::new::names(&view["to_move"])
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
