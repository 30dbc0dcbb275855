use std::process::ExitCode;

use crate::engine::file::UndoStep;
use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// The player who takes back their last move, or answers another's request
    #[arg(long, value_name = "NAME")]
    player: String,
    /// Agree to the request that waits: the last agreement takes the moves back
    #[arg(long, conflicts_with = "decline")]
    agree: bool,
    /// Decline the request that waits: the moves stand
    #[arg(long)]
    decline: bool,
    /// Mail the players what happened (through the outbox)
    #[arg(long)]
    mail: bool,
    #[command(flatten)]
    mail_args: super::mail::MailArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let word = if args.agree {
        UndoStep::Agree
    } else if args.decline {
        UndoStep::Decline
    } else {
        UndoStep::Undo
    };
    let mailing = args.mail.then(|| args.mail_args.mailing());
    let taken = crate::mail::referee::take_back(
        super::keyring()?,
        &args.file.file,
        &args.player,
        word,
        mailing.as_ref(),
    )?;
    super::mail::report_sent(&args.file.file, taken.sent);
    outln!("{}", ops::undo_text(&taken.done).trim_end());
    Ok(ExitCode::SUCCESS)
}
