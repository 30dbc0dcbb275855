use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;

use crate::engine::move_text::MAX_MOVE_BYTES;
use crate::engine::Viewer;
use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// The player making the move
    #[arg(long, value_name = "NAME")]
    player: String,
    /// The whole turn: actions separated by ';' or new lines; '-' reads standard input
    #[arg(long = "move", value_name = "TEXT")]
    move_text: String,
    /// Mail the notices this move causes (through the outbox)
    #[arg(long, conflicts_with = "preview")]
    mail: bool,
    /// Only say what the move would do: nothing is written and no draw is made
    #[arg(long)]
    preview: bool,
    #[command(flatten)]
    mail_args: super::mail::MailArgs,
}

/// The move on standard input, read only up to the most a move may be: a file or a
/// stream of any size piped in by mistake is refused, not read into memory.
fn read_move() -> anyhow::Result<String> {
    let most = MAX_MOVE_BYTES as u64;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(most + 1)
        .read_to_end(&mut bytes)
        .context("cannot read the move from standard input")?;
    if bytes.len() as u64 > most {
        anyhow::bail!(
            "the move on standard input is longer than the {most} bytes a move may be; send the move alone"
        );
    }
    String::from_utf8(bytes).context("the move on standard input is not UTF-8 text")
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let move_text = if args.move_text == "-" {
        read_move()?
    } else {
        args.move_text
    };
    if args.preview {
        let keyring = super::keyring_if_any();
        let preview = ops::preview(&args.file.file, &args.player, &move_text, keyring.as_ref())?;
        outln!("{}", ops::preview_text(&preview).trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    let mailing = args.mail.then(|| args.mail_args.mailing());
    let applied = crate::mail::referee::apply(
        super::keyring()?,
        &args.file.file,
        &args.player,
        &move_text,
        mailing.as_ref(),
    )?;
    super::mail::report_sent(&args.file.file, applied.sent);
    let outcome = applied.done;
    if outcome.understood != move_text.trim() {
        outln!("understood as: {}", outcome.understood);
    }
    let mover = Viewer::Player(outcome.seat);
    for line in outcome.report.iter().filter(|line| line.seen_by(mover)) {
        outln!("  {}", line.text);
    }
    if outcome.over {
        outln!(
            "turn {}: {} moved; the game is over; winners: {}",
            outcome.turn,
            outcome.player,
            if outcome.winners.is_empty() {
                "nobody".to_string()
            } else {
                outcome.winners.join(", ")
            }
        );
    } else {
        outln!(
            "turn {}: {} moved; to move: {}",
            outcome.turn,
            outcome.player,
            outcome.to_move.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
