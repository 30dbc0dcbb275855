use std::process::ExitCode;

use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// The player whose moves to list
    #[arg(long, value_name = "NAME")]
    player: String,
    /// text: one move per line; json: a list of {"move", "kind", ...}
    #[arg(long, value_enum, default_value = "text")]
    format: super::ListFormat,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let moves = ops::legal(
        &args.file.file,
        &args.player,
        super::keyring_if_any().as_ref(),
    )?;
    match args.format {
        super::ListFormat::Json => super::print_json(&moves)?,
        super::ListFormat::Text => {
            let mut text = String::new();
            if moves.is_empty() {
                text = format!("{} has no move to make now\n", args.player);
            }
            for entry in &moves {
                text.push_str(&entry.text);
                text.push('\n');
            }
            super::emit(&text)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
