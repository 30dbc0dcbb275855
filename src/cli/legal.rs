use std::process::ExitCode;

use crate::engine::MoveFilter;
use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// The player whose moves to list
    #[arg(long, value_name = "NAME")]
    player: String,
    /// text: the moves grouped for people, with what each costs and earns; json: every
    /// legal move, a list of {"move", "kind", ...}
    #[arg(long, value_enum, default_value = "text")]
    format: super::ListFormat,
    /// Only moves at this place (a cell or square, as the board names it)
    #[arg(long, value_name = "CELL")]
    at: Option<String>,
    /// Only moves with this tile (or card, or piece), as the game names it
    #[arg(long, value_name = "T")]
    tile: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let keyring = super::keyring_if_any();
    let path = &args.file.file;
    match args.format {
        super::ListFormat::Json => {
            if args.at.is_some() || args.tile.is_some() {
                anyhow::bail!(
                    "--at and --tile narrow the text list; the JSON list is always every legal move (leave them out, or use --format text)"
                );
            }
            let moves = ops::legal(path, &args.player, keyring.as_ref())?;
            super::print_json(&moves)?;
        }
        super::ListFormat::Text => {
            let filter = MoveFilter {
                at: args.at,
                tile: args.tile,
            };
            let text = match ops::moves_text(path, &args.player, &filter, keyring.as_ref())? {
                Some(text) => text,
                None => format!("{} has no move to make now\n", args.player),
            };
            let newline = if text.ends_with('\n') { "" } else { "\n" };
            super::emit(&format!("{text}{newline}"))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
