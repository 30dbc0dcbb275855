//! A complete game between two built-in players, through the same operations a referee
//! uses (real files, locks, signatures), ending with the audit. Needs no mail server.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::engine::chance::DrawStream;
use crate::engine::fairness::Seed;
use crate::engine::keyring::Keyring;
use crate::engine::session::{parse_player, NewGame};
use crate::ops;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game to play
    #[arg(long, default_value = "right-of-way", help = super::new::game_help())]
    game: String,
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

/// The demo's referee key: public on purpose, it signs nothing but demo games.
const DEMO_KEY: &str = "de30de30de30de30de30de30de30de30de30de30de30de30de30de30de30de30";
const DEMO_SEED: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = match args.dir {
        Some(dir) => dir,
        None => std::env::temp_dir().join(format!("pbem-demo-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // The demo has its own keyring, so it never touches the referee's real one.
    let keyring = Keyring::at(dir.join("keyring"));
    // A fixed referee key as well as a fixed seed: genesis names the key and the
    // setup's draws depend on genesis, so only both together make the demo repeat.
    let key_file = dir.join("keyring/referee.key");
    if !key_file.exists() {
        std::fs::create_dir_all(dir.join("keyring"))?;
        std::fs::write(&key_file, format!("{DEMO_KEY}\n"))?;
    }
    let file = dir.join(format!("{}.json", args.game));
    if file.exists() {
        anyhow::bail!("{} exists; pass an empty --dir", file.display());
    }
    let seed = Seed::from_hex(args.seed.as_deref().unwrap_or(DEMO_SEED))
        .context("--seed takes exactly 64 hexadecimal digits")?;
    let request = NewGame {
        players: vec![
            parse_player("Ann <ann@example.org>"),
            parse_player("Bob <bob@example.org>"),
        ],
        seed: Some(seed),
        ..NewGame::default()
    };
    ops::new_game(&args.game, request, &keyring, &file)?;
    outln!("A demo game of {} in {}\n", args.game, file.display());
    out!("{}", ops::board(&file, None, None, None)?);

    let mut players = DrawStream::for_testing(args.players_seed);
    loop {
        let view = ops::view(&file, None, None, None)?;
        if view["over"] == serde_json::Value::Bool(true) {
            break;
        }
        let Some(player) = view["to_move"]
            .get(0)
            .and_then(|p| p.as_str())
            .map(str::to_string)
        else {
            anyhow::bail!("the game is not over but nobody is to move");
        };
        let move_text = greedy_move(ops::legal(&file, &player, Some(&keyring))?, &mut players)
            .ok_or_else(|| anyhow::anyhow!("{player} is to move but has no legal move"))?;
        let outcome = ops::apply_move(&file, &keyring, &player, &move_text)?;
        outln!(
            "turn {:>3}: {:<4} {}",
            outcome.turn,
            player,
            move_text.replace('\n', "; ")
        );
        if args.every > 0 && outcome.turn % args.every == 0 && !outcome.over {
            outln!();
            out!("{}", ops::board(&file, None, None, None)?);
            outln!();
        }
    }
    outln!("\nThe final position:\n");
    out!("{}", ops::board(&file, None, None, None)?);
    let view = ops::view(&file, None, None, None)?;
    outln!("\nwinners: {}\n", super::new::names(&view["winners"]));
    outln!("The audit, as any player could run it from the file alone:\n");
    let report = ops::audit(&file, None)?;
    out!("{}", report.render());
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The built-in players' choice: the move with the best net result (profit less cost
/// and price, where the game lists them), a random one among equals.
fn greedy_move(legal: Vec<crate::engine::LegalMove>, rng: &mut DrawStream) -> Option<String> {
    let detail = |entry: &crate::engine::LegalMove, key: &str| {
        entry.details.get(key).and_then(|v| v.as_i64()).unwrap_or(0)
    };
    let net = |entry: &crate::engine::LegalMove| {
        detail(entry, "profit") - detail(entry, "cost") - detail(entry, "price")
    };
    let best = legal.iter().map(net).max()?;
    let top: Vec<&crate::engine::LegalMove> = legal.iter().filter(|e| net(e) == best).collect();
    let pick = rng.index(u32::try_from(top.len()).ok()?) as usize;
    top.get(pick).map(|e| e.text.clone())
}
