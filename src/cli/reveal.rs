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
    let keyring = super::keyring()?;
    ops::reveal(path, &keyring)?;
    outln!(
        "seed revealed in {}; anyone can now re-derive every draw with `pbem audit`",
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
