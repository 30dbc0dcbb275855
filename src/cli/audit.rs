use std::process::ExitCode;

use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// Do not use the referee's keyring even if present (audit as an outsider would)
    #[arg(long)]
    public: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let keyring = if args.public {
        None
    } else {
        super::keyring_if_any()
    };
    let report = ops::audit(&args.file.file, keyring.as_ref())?;
    super::emit(&report.render())?;
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
