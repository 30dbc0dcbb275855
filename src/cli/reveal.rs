use std::process::ExitCode;

use anyhow::bail;

use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// Reveal even though the game is not over (anyone can then predict every draw)
    #[arg(long)]
    force: bool,
    /// Tell every player the game is closed, with the news held for them (through the
    /// outbox); run again after a failure, it finishes what was left
    #[arg(long)]
    mail: bool,
    #[command(flatten)]
    mail_args: super::mail::MailArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = &args.file.file;
    let view = ops::view(path, None, None, None)?;
    if view["over"] != serde_json::Value::Bool(true) && !args.force {
        bail!(
            "the game is not over, and revealing the seed now lets anyone predict every later draw; \
             add --force to reveal it anyway (for an abandoned game)"
        );
    }
    let mailing = args.mail.then(|| args.mail_args.mailing());
    let closed = crate::mail::referee::close(super::keyring()?, path, mailing.as_ref())?;
    match closed.done {
        Some(done) if !done.revealed => outln!(
            "the seed of {} was revealed already; {} player(s) told now",
            path.display(),
            done.told
        ),
        _ => outln!(
            "seed revealed in {}; anyone can now re-derive every draw with `pbem audit`",
            path.display()
        ),
    }
    super::mail::report_sent(path, closed.sent);
    Ok(ExitCode::SUCCESS)
}
