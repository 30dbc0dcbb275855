//! `pbem join`: a player accepts the invitation `pbem new --join` made.

use std::process::ExitCode;

use crate::engine::invitation::Joined;

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
    let mailing = args.mail.then(|| args.mail_args.mailing());
    let joined = crate::mail::referee::join(
        super::keyring()?,
        path,
        &args.player,
        &args.entropy,
        mailing.as_ref(),
    )?;
    super::mail::report_sent(path, joined.sent);
    let done = joined.done;
    match &done.join.joined {
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
            if let Some(begun) = &done.begun {
                outln!(
                    "{} joined, the last to: game {} has begun; to move: {}",
                    args.player,
                    begun.id,
                    super::new::names(&begun.to_move)
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
