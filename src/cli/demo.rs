//! `pbem demo`: a complete game between built-in players ([`crate::demo`]), shown as
//! it goes, ending with the audit. Needs no mail server.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::demo::{Demo, Event};
use crate::engine::fairness::Seed;
use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game to play
    #[arg(long, default_value = "right-of-way", help = super::new::game_help())]
    game: String,
    /// How many built-in players (2 to 6, as the game allows)
    #[arg(long, default_value_t = 2)]
    players: usize,
    /// The game's seed (64 hex digits); a fixed one by default, so the demo repeats
    #[arg(long, value_name = "HEX64")]
    seed: Option<String>,
    /// Which choices the built-in players make (any number)
    #[arg(long, default_value_t = 1)]
    players_seed: u64,
    /// Keep the game file and keyring in this folder (default: a fresh temporary one)
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Show the board every N turns (0: only at the start and the end)
    #[arg(long, default_value_t = 20)]
    every: u64,
}

const DEMO_SEED: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = match args.dir {
        Some(dir) => dir,
        None => std::env::temp_dir().join(format!("pbem-demo-{}", std::process::id())),
    };
    let seed = Seed::from_hex(args.seed.as_deref().unwrap_or(DEMO_SEED))
        .context("--seed takes exactly 64 hexadecimal digits")?;
    let demo = Demo {
        game: args.game.clone(),
        players: args.players,
        seed,
        players_seed: args.players_seed,
        dir,
    };
    let mut file = None;
    let report = crate::demo::play(&demo, |event| match event {
        Event::Started(path) => {
            outln!("A demo game of {} in {}\n", demo.game, path.display());
            if let Ok(board) = ops::board(path, None, None, None) {
                // Every line ends, whether or not a game's board ends in a newline.
                outln!("{}", board.trim_end_matches('\n'));
            }
            file = Some(path.to_path_buf());
        }
        Event::Moved(outcome, _) => {
            let shown = if outcome.sealed {
                "(a sealed choice)".to_string()
            } else {
                outcome.understood.replace('\n', "; ")
            };
            outln!("turn {:>3}: {:<4} {shown}", outcome.turn, outcome.player);
            let every = args.every;
            if every > 0 && outcome.turn % every == 0 && !outcome.over {
                if let Some(board) = file
                    .as_ref()
                    .and_then(|f| ops::board(f, None, None, None).ok())
                {
                    outln!();
                    outln!("{}", board.trim_end_matches('\n'));
                    outln!();
                }
            }
        }
    })?;
    if let Some(file) = &file {
        outln!("\nThe final position:\n");
        outln!(
            "{}",
            ops::board(file, None, None, None)?.trim_end_matches('\n')
        );
        let view = ops::view(file, None, None, None)?;
        outln!("\nwinners: {}\n", super::new::names(&view["winners"]));
    }
    outln!("The audit, as any player could run it from the file alone:\n");
    out!("{}", report.render());
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
