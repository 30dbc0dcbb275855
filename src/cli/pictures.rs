use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// `on` or `off`
    #[arg(value_parser = ["on", "off"])]
    setting: String,
    /// Only for this player (as their `pictures on|off` reply does); the whole game
    /// by default
    #[arg(long, value_name = "NAME")]
    player: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let said = crate::mail::referee::games::set_pictures(
        &args.file.file,
        args.player.as_deref(),
        args.setting == "on",
    )?;
    outln!("{said}");
    Ok(ExitCode::SUCCESS)
}
