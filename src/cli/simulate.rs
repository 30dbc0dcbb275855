//! `pbem simulate`: many complete games between built-in players, played in process
//! ([`crate::simulate`]), with win rates and their 95% intervals.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{bail, Context};

use crate::bots::Bot;
use crate::simulate::{Simulation, GAMES};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game to play: right-of-way, triangle-auction or desert-kingdom
    game: String,
    /// How many seats
    #[arg(long, default_value_t = 2)]
    players: usize,
    /// How many complete games
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// The bot of each seat, once per seat in seat order: random, greedy or search (default:
    /// random in every seat)
    #[arg(long = "bot", value_name = "NAME")]
    bots: Vec<String>,
    /// A rule option, KEY=VALUE, as `pbem new` takes it; repeat as needed
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// The run's seed, up to 64 hexadecimal digits: the same seed plays the same
    /// games (default: a fresh one, shown in the report)
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// How many threads (default: one per core)
    #[arg(long, default_value_t = 0)]
    threads: usize,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Up to 64 hex digits as 32 bytes, right-aligned (so `--seed 1` is a seed too).
fn parse_seed(text: &str) -> anyhow::Result<[u8; 32]> {
    let text = text.trim().trim_start_matches("0x");
    if text.is_empty() || text.len() > 64 || !text.chars().all(|c| c.is_ascii_hexdigit()) {
        bail!("--seed takes 1 to 64 hexadecimal digits, for example --seed 5eed; not {text:?}");
    }
    let padded = format!("{text:0>64}");
    let mut seed = [0u8; 32];
    for (i, byte) in seed.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&padded[2 * i..2 * i + 2], 16)
            .context("--seed takes hexadecimal digits")?;
    }
    Ok(seed)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !GAMES.contains(&args.game.as_str()) {
        bail!(
            "pbem simulate plays {}, not {:?}",
            GAMES.join(", "),
            args.game
        );
    }
    let bots = match args.bots.len() {
        0 => vec![Bot::Random; args.players],
        n if n == args.players => args
            .bots
            .iter()
            .map(|name| Bot::parse(name).map_err(anyhow::Error::msg))
            .collect::<anyhow::Result<Vec<Bot>>>()?,
        n => bail!(
            "{n} --bot for {} players; give --bot once per seat in seat order, or none for random in every seat",
            args.players
        ),
    };
    let seed = match &args.seed {
        Some(text) => parse_seed(text)?,
        None => {
            let mut seed = [0u8; 32];
            getrandom::fill(&mut seed)
                .map_err(|e| anyhow::anyhow!("no entropy for a seed: {e}"))?;
            seed
        }
    };
    let sim = Simulation {
        game: args.game.clone(),
        bots,
        games: args.games,
        options: super::new::parse_options(&args.options)?,
        seed,
        threads: args.threads,
    };
    // A progress bar only for a person watching: never in a pipe or a log.
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(args.games as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} games, {per_sec}, {eta} left",
        ) {
            bar.set_style(style);
        }
        bar
    });
    let report = crate::simulate::run(&sim, &|| {
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let report = report?;
    match args.format {
        Format::Json => {
            let mut value = serde_json::to_value(&report)?;
            value["seed"] = serde_json::Value::String(hex(&seed));
            outln!("{}", serde_json::to_string_pretty(&value)?);
        }
        Format::Text => {
            out!("{}", report.render());
            outln!("seed: {} (--seed repeats the run)", hex(&seed));
        }
    }
    Ok(ExitCode::SUCCESS)
}
