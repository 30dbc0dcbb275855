use std::path::PathBuf;
use std::process::ExitCode;

use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// Write the replay page here: one HTML file that needs nothing else (no network)
    #[arg(long, value_name = "OUT")]
    html: PathBuf,
    /// The page of this player's view (`referee`: everything, once the game is over);
    /// the public view by default
    #[arg(long = "as", value_name = "NAME")]
    viewer: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let keyring = super::keyring_if_any();
    let bytes = ops::export_html(
        &args.file.file,
        args.viewer.as_deref(),
        keyring.as_ref(),
        &args.html,
    )?;
    eprintln!(
        "{}: the replay page, {}",
        args.html.display(),
        crate::basics::store::size_text(bytes as u64)
    );
    Ok(ExitCode::SUCCESS)
}
