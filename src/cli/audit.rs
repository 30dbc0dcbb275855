use std::process::ExitCode;

use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// Do not use the referee's keyring even if present (audit as an outsider would)
    #[arg(long)]
    public: bool,
    /// Fail unless the file's chain holds this head hash (from any notice or receipt a
    /// player kept): proves the file was not rolled back past it
    #[arg(long, value_name = "HASH")]
    head: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let keyring = if args.public {
        None
    } else {
        super::keyring_if_any()
    };
    let mut report = ops::audit(&args.file.file, keyring.as_ref())?;
    if let Some(head) = &args.head {
        report.require_head(head);
    }
    super::emit(&report.render())?;
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
