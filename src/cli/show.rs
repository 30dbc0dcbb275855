use std::io::IsTerminal;
use std::process::ExitCode;

use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    file: super::FileArg,
    /// ascii: the board for people; json: the exact record of the position; svg or
    /// png: the board as a picture
    #[arg(long, value_enum, default_value = "ascii")]
    format: super::ShowFormat,
    /// Show what this player may see (`referee`: everything, hidden material included;
    /// a player's or the referee's view of a game with hidden information needs the
    /// referee's keyring)
    #[arg(long = "as", value_name = "NAME")]
    viewer: Option<String>,
    /// Show the position after this many records (0: the setup)
    #[arg(long, value_name = "N")]
    turn: Option<u64>,
    /// With --format bbcode or markdown: the legend in full, for the first post of a
    /// thread (a BBCode post has it only then; a Markdown post has it folded anyway,
    /// and this opens it)
    #[arg(long)]
    legend: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let keyring = super::keyring_if_any();
    let path = &args.file.file;
    if args.legend
        && matches!(
            args.format,
            super::ShowFormat::Ascii
                | super::ShowFormat::Json
                | super::ShowFormat::Svg
                | super::ShowFormat::Png
        )
    {
        anyhow::bail!(
            "--legend is for forum posts (--format bbcode or markdown); the ascii board always ends with its legend"
        );
    }
    match args.format {
        super::ShowFormat::Json => {
            let view = ops::view(path, args.viewer.as_deref(), args.turn, keyring.as_ref())?;
            super::print_json(&view)?;
        }
        super::ShowFormat::Bbcode | super::ShowFormat::Markdown => {
            let markup = if args.format == super::ShowFormat::Bbcode {
                ops::ForumMarkup::Bbcode
            } else {
                ops::ForumMarkup::Markdown
            };
            let options = ops::ForumOptions {
                legend: args.legend,
            };
            let post = ops::forum_post(
                path,
                markup,
                args.viewer.as_deref(),
                args.turn,
                keyring.as_ref(),
                options,
            )?;
            super::emit(&post)?;
        }
        super::ShowFormat::Svg | super::ShowFormat::Png => {
            let format = if args.format == super::ShowFormat::Svg {
                ops::PictureFormat::Svg
            } else {
                ops::PictureFormat::Png
            };
            if format == ops::PictureFormat::Png && std::io::stdout().is_terminal() {
                anyhow::bail!(
                    "a PNG is not for a terminal: send it to a file (pbem show FILE --format png > board.png)"
                );
            }
            let picture = ops::picture(
                path,
                args.viewer.as_deref(),
                args.turn,
                keyring.as_ref(),
                format,
            )?;
            super::emit_bytes(&picture)?;
        }
        super::ShowFormat::Ascii => {
            let board = ops::board(path, args.viewer.as_deref(), args.turn, keyring.as_ref())?;
            let newline = if board.ends_with('\n') { "" } else { "\n" };
            super::emit(&format!("{board}{newline}"))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
