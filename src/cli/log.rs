use std::process::ExitCode;

use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let keyring = super::keyring_if_any();
    super::emit(&ops::log(&args.file.file, keyring.as_ref())?)?;
    Ok(ExitCode::SUCCESS)
}
