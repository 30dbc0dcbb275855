//! A complete game between built-in players, through the same operations a referee
//! uses (real files, locks, signatures), ending with the audit: `pbem demo`, and the
//! tests' and benchmarks' players. Needs no mail server.

use std::path::{Path, PathBuf};

use crate::engine::audit::AuditReport;
use crate::engine::chance::DrawStream;
use crate::engine::driver::{MoveOutcome, OpenGame};
use crate::engine::error::EngineError;
use crate::engine::fairness::Seed;
use crate::engine::file::PlayerEntry;
use crate::engine::keyring::Keyring;
use crate::engine::session::NewGame;
use crate::engine::LegalMove;
use crate::ops::{self, OpsError};

/// The built-in players' names, in seat order (those of `pbem simulate` too).
pub use crate::simulate::PLAYER_NAMES;

/// Above this many legal moves a built-in player asks the rules for a random move
/// instead of weighing them all: some games' lists explode.
const WEIGHED_AT_MOST: usize = 5_000;

/// The demo's referee key: public on purpose, it signs nothing but demo games.
const DEMO_KEY: &str = "de30de30de30de30de30de30de30de30de30de30de30de30de30de30de30de30";

/// One demo game to play.
pub struct Demo {
    pub game: String,
    /// How many built-in players (2 to 6; the game may accept fewer).
    pub players: usize,
    pub seed: Seed,
    /// Which choices the built-in players make.
    pub players_seed: u64,
    /// The folder of the game file and its own keyring.
    pub dir: PathBuf,
}

/// What happens in a demo, for whoever shows it.
pub enum Event<'a> {
    /// The game was created; its file.
    Started(&'a Path),
    /// A move was applied: what it did, and the text a built-in player sent.
    Moved(&'a MoveOutcome, &'a str),
}

/// The players of a demo for `count` seats, with addresses.
///
/// # Errors
/// A count outside 2 to 6.
pub fn players(count: usize) -> Result<Vec<PlayerEntry>, OpsError> {
    if !(2..=PLAYER_NAMES.len()).contains(&count) {
        return Err(EngineError::Usage(format!(
            "a demo has 2 to {} players, not {count}; e.g. --players 3",
            PLAYER_NAMES.len()
        ))
        .into());
    }
    Ok(PLAYER_NAMES[..count]
        .iter()
        .map(|name| PlayerEntry {
            name: (*name).to_string(),
            email: Some(format!("{}@example.org", name.to_ascii_lowercase())),
        })
        .collect())
}

/// A built-in player's move: the one with the best net result (profit less cost and
/// price, where the game's legal moves list them; a random one among equals), or the
/// rules' own random move where the list is long. `None` when `player` is not to move.
///
/// # Errors
/// The game cannot answer (a game with hidden state opened without the keyring).
pub fn built_in_move(
    game: &dyn OpenGame,
    player: &str,
    rng: &mut DrawStream,
) -> Result<Option<String>, EngineError> {
    let legal = game.legal(player)?;
    if legal.len() > WEIGHED_AT_MOST {
        return game.sample_move(player, rng);
    }
    Ok(greedy(&legal, rng))
}

fn greedy(legal: &[LegalMove], rng: &mut DrawStream) -> Option<String> {
    let detail =
        |entry: &LegalMove, key: &str| entry.details.get(key).and_then(|v| v.as_i64()).unwrap_or(0);
    let net = |entry: &LegalMove| {
        detail(entry, "profit") - detail(entry, "cost") - detail(entry, "price")
    };
    let best = legal.iter().map(net).max()?;
    let top: Vec<&LegalMove> = legal.iter().filter(|e| net(e) == best).collect();
    let pick = rng.index(u32::try_from(top.len()).ok()?) as usize;
    top.get(pick).map(|e| e.text.clone())
}

/// Plays a demo game to its end and audits it as any player could, from the file
/// alone. `event` hears of the start and of every move.
///
/// # Errors
/// The folder or the game cannot be set up, or a built-in player finds no move.
pub fn play(demo: &Demo, mut event: impl FnMut(Event<'_>)) -> anyhow::Result<AuditReport> {
    use anyhow::Context;
    std::fs::create_dir_all(&demo.dir)
        .with_context(|| format!("cannot create {}", demo.dir.display()))?;
    // The demo has its own keyring, so it never touches the referee's real one.
    let keyring = Keyring::at(demo.dir.join("keyring"));
    // A fixed referee key as well as a fixed seed: genesis names the key and the
    // setup's draws depend on genesis, so only both together make the demo repeat.
    let key_file = demo.dir.join("keyring/referee.key");
    if !key_file.exists() {
        std::fs::create_dir_all(demo.dir.join("keyring"))?;
        std::fs::write(&key_file, format!("{DEMO_KEY}\n"))?;
    }
    let file = demo.dir.join(format!("{}.json", demo.game));
    if file.exists() {
        anyhow::bail!("{} exists; pass an empty --dir", file.display());
    }
    let request = NewGame {
        players: players(demo.players)?,
        seed: Some(demo.seed.clone()),
        ..NewGame::default()
    };
    ops::new_game(&demo.game, request, &keyring, &file)?;
    event(Event::Started(&file));
    let mut rng = DrawStream::for_testing(demo.players_seed);
    loop {
        // The referee's side of the table: the game opened with the keyring, so the
        // built-in players can play games with hidden state.
        let game = ops::open(&file, Some(&keyring))?;
        let view = game.view(None, None)?;
        if view["over"] == true {
            break;
        }
        let to_move: Vec<String> = view["to_move"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect();
        // Of several seats owing a move (sealed choices), any may answer first.
        let seat = match u32::try_from(to_move.len()) {
            Ok(count) if count > 1 => rng.index(count) as usize,
            _ => 0,
        };
        let Some(player) = to_move.get(seat).cloned() else {
            anyhow::bail!("the game is not over but nobody is to move");
        };
        let text = built_in_move(game.as_ref(), &player, &mut rng)?
            .ok_or_else(|| anyhow::anyhow!("{player} is to move but has no legal move"))?;
        drop(game);
        let outcome = ops::apply_move(&file, &keyring, &player, &text)?;
        event(Event::Moved(&outcome, &text));
    }
    Ok(ops::audit(&file, None)?)
}
