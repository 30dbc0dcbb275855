use std::process::ExitCode;

use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    super::emit(&ops::log(&args.file.file)?)?;
    Ok(ExitCode::SUCCESS)
}
