//! `pbem simulate`: many complete games between built-in players ([`crate::bots`]),
//! played in process on every core, and what came of them: each seat's win rate with
//! its 95% interval, shared wins, games nobody won, scores and length.
//!
//! No file, signature or keyring is involved: the rules are driven directly, the
//! simulator holding the full state as the referee would and showing each bot only
//! its seat's view. Every game's draws and every bot's choices come from streams keyed
//! on the run's seed and the game's number, so a run repeats exactly for a given seed
//! whatever the number of threads.

mod measures;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::bots::{Bot, SeatView};
use crate::engine::chance::DrawStream;
use crate::engine::rules::{Options, Rules, Seat};
use crate::games::desert_kingdom::DesertKingdom;
use crate::games::right_of_way::RightOfWay;
use crate::games::triangle_auction::TriangleAuction;

use measures::Sorted;
pub use measures::{Group, Measure, Measured, ScorePart};

/// The built-in players' names, in seat order: the players of a simulated game, and
/// of `pbem demo`.
pub const PLAYER_NAMES: [&str; 6] = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"];

/// A game longer than this many moves is taken for a loop between bots and stopped
/// with an error rather than left running.
const MOST_MOVES: u64 = 100_000;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct Simulation {
    pub game: String,
    /// One bot per seat, in seat order.
    pub bots: Vec<Bot>,
    pub games: usize,
    pub options: Options,
    /// The run's seed: the same seed plays the same games.
    pub seed: [u8; 32],
    /// How many threads (0: one per core).
    pub threads: usize,
}

/// One seat's results.
#[derive(Debug, Clone, Serialize)]
pub struct SeatReport {
    pub seat: Seat,
    pub bot: String,
    /// Games won, a win shared by k players counting 1/k.
    pub wins: f64,
    pub win_rate: f64,
    /// The Wilson score interval of `win_rate` at 95%, as [low, high].
    pub ci95: [f64; 2],
    pub mean_score: f64,
    /// Moves this seat made, over all games.
    pub moves: u64,
    /// Games in which this seat took the first turn of the game's turn order (the
    /// group `first` of the measure `turn order`).
    pub moved_first: usize,
    /// The mean time its bot took to choose a move, in milliseconds (on a thread
    /// sharing the cores with the run's other games).
    pub ms_per_move: f64,
}

/// What a run came to; serialised as `pbem simulate --format json`, whose field names
/// are a public contract.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub game: String,
    pub players: usize,
    pub games: usize,
    pub seats: Vec<SeatReport>,
    /// Games won jointly by more than one seat.
    pub shared: usize,
    /// Games nobody won.
    pub nobody_wins: usize,
    /// The Wilson 95% interval of the rate of games nobody won.
    pub nobody_wins_ci95: [f64; 2],
    /// The rule options the games were played with (the game's defaults for any not
    /// given).
    pub options: Options,
    /// The game's own balance questions: each measure sorts every seat of every game
    /// into one group, with the group's win rate ([`measures`]).
    pub measures: Vec<Measure>,
    /// Where the points came from: the final scores of every seat of every game, in
    /// the parts the game breaks them into ([`Measured::score_parts`]); empty for a
    /// game that does not.
    pub score_parts: Vec<ScorePart>,
    /// Mean moves per game.
    pub mean_moves: f64,
    pub seconds: f64,
    pub games_per_second: f64,
}

/// One finished game.
#[derive(Debug, Clone)]
struct Outcome {
    winners: Vec<Seat>,
    scores: Vec<i64>,
    moves: u64,
    /// Moves made and seconds spent choosing them, by seat.
    seat_moves: Vec<u64>,
    seat_seconds: Vec<f64>,
    /// The seat that took the game's first turn ([`Measured::takes_turn`]).
    first: Option<Seat>,
    sortings: Vec<measures::Sorting>,
    score_parts: Vec<Vec<(&'static str, i64)>>,
}

/// The names of the games [`run`] can play.
pub const GAMES: [&str; 3] = [RightOfWay::NAME, TriangleAuction::NAME, DesertKingdom::NAME];

/// Plays the simulation's games and reports; `progress` hears of each game finished
/// (from any thread).
///
/// # Errors
/// An unknown game, options or a player count the game refuses, or a game that breaks
/// down (a bot without a move while the game goes on: a fault of the rules or bots).
pub fn run(sim: &Simulation, progress: &(dyn Fn() + Sync)) -> anyhow::Result<Report> {
    match sim.game.as_str() {
        RightOfWay::NAME => run_game::<RightOfWay>(sim, progress),
        TriangleAuction::NAME => run_game::<TriangleAuction>(sim, progress),
        DesertKingdom::NAME => run_game::<DesertKingdom>(sim, progress),
        other => anyhow::bail!("pbem simulate plays {}, not {other:?}", GAMES.join(", ")),
    }
}

fn run_game<R: Measured + Sync>(
    sim: &Simulation,
    progress: &(dyn Fn() + Sync),
) -> anyhow::Result<Report> {
    let players = sim.bots.len();
    if !(1..=PLAYER_NAMES.len()).contains(&players) {
        anyhow::bail!(
            "a simulation has 1 to {} players, not {players}",
            PLAYER_NAMES.len()
        );
    }
    let rules = R::from_data(R::DEFAULT_DATA, &sim.options)?;
    let names: Vec<String> = PLAYER_NAMES[..players]
        .iter()
        .map(|n| (*n).to_string())
        .collect();
    // The player count is checked once, up front, so the refusal is the rules' own.
    rules.setup(&names, &mut DrawStream::for_testing(0))?;
    let threads = match sim.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
    .min(sim.games.max(1));
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; sim.games]);
    let started = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= sim.games {
                            return Ok(());
                        }
                        let outcome = play_one(&rules, &names, sim, index)?;
                        if let Ok(mut all) = outcomes.lock() {
                            all[index] = Some(outcome);
                        }
                        progress();
                    }
                })
            })
            .collect();
        for worker in workers {
            worker
                .join()
                .map_err(|_| anyhow::anyhow!("a simulation thread panicked"))??;
        }
        Ok(())
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let outcomes: Vec<Outcome> = outcomes
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a simulation thread panicked"))?
        .into_iter()
        .flatten()
        .collect();
    let mut report = summarise(sim, &outcomes, seconds);
    report.options = rules.options();
    Ok(report)
}

/// A stream keyed on the run's seed, a purpose and the game's number.
fn stream(seed: &[u8; 32], purpose: &str, game: usize, seat: usize) -> DrawStream {
    let mut hash = Sha256::new();
    hash.update(b"pbem simulate\0");
    hash.update(purpose.as_bytes());
    hash.update(b"\0");
    hash.update(seed);
    hash.update((game as u64).to_le_bytes());
    hash.update((seat as u64).to_le_bytes());
    DrawStream::new(hash.finalize().into())
}

/// Plays game number `index` to its end.
fn play_one<R: Measured>(
    rules: &R,
    names: &[String],
    sim: &Simulation,
    index: usize,
) -> anyhow::Result<Outcome> {
    let mut chance = stream(&sim.seed, "draws", index, 0);
    let mut referee = stream(&sim.seed, "order", index, 0);
    let mut minds: Vec<DrawStream> = (0..names.len())
        .map(|seat| stream(&sim.seed, "bot", index, seat))
        .collect();
    let mut state = rules.setup(names, &mut chance)?;
    let mut notes = R::Notes::default();
    let mut moves = 0u64;
    let mut seat_moves = vec![0u64; names.len()];
    let mut seat_seconds = vec![0.0f64; names.len()];
    // The seats in the order of their first turn: who moved first is what the game
    // did, not seat 0 (the desert kingdom and the triangle auction draw it).
    let mut turns: Vec<Seat> = Vec::new();
    while !rules.is_over(&state) {
        let to_move = rules.to_move(&state);
        // Of several seats owing a move (sealed choices), any may answer first.
        let seat = match u32::try_from(to_move.len()) {
            Ok(0) | Err(_) => {
                anyhow::bail!("{}: the game is not over but nobody is to move", R::NAME)
            }
            Ok(1) => to_move[0],
            Ok(count) => to_move[referee.index(count) as usize],
        };
        let bot = sim.bots.get(seat).copied().unwrap_or(Bot::Random);
        let view = SeatView::new(rules, &state, seat);
        let Some(mind) = minds.get_mut(seat) else {
            anyhow::bail!(
                "{}: seat {seat} is to move in a game of {}",
                R::NAME,
                names.len()
            );
        };
        let thinking = Instant::now();
        let chosen = bot.choose(&view, mind);
        seat_seconds[seat] += thinking.elapsed().as_secs_f64();
        seat_moves[seat] += 1;
        let text = chosen.ok_or_else(|| {
            anyhow::anyhow!(
                "{}: {} ({bot}) is to move but has no move",
                R::NAME,
                names[seat]
            )
        })?;
        drop(view);
        let mv = rules
            .parse_move(&state, seat, &text)
            .map_err(|e| anyhow::anyhow!("{}: {bot} chose {text:?}, refused: {e}", R::NAME))?;
        let mv = rules.as_recorded(&state, seat, mv)?;
        let after = rules
            .apply(&state, seat, &mv, &mut chance)
            .map_err(|e| anyhow::anyhow!("{}: {bot} chose {text:?}, refused: {e}", R::NAME))?;
        if rules.takes_turn(&state) && !turns.contains(&seat) {
            turns.push(seat);
        }
        rules.note(&mut notes, &state, seat, &after);
        state = after;
        moves += 1;
        if moves > MOST_MOVES {
            anyhow::bail!("{}: game {index} ran past {MOST_MOVES} moves", R::NAME);
        }
    }
    Ok(Outcome {
        winners: rules.winners(&state),
        scores: rules.scores(&state),
        moves,
        seat_moves,
        seat_seconds,
        first: turns.first().copied(),
        sortings: rules.sort_seats(&notes, &turns, &state),
        score_parts: rules.score_parts(&state),
    })
}

/// The Wilson score interval at 95% of `successes` out of `trials` (fractional
/// successes allowed, for shared wins): unlike the normal approximation it stays
/// within [0, 1] and is honest near 0 and 1 and for few games.
pub fn wilson95(successes: f64, trials: usize) -> [f64; 2] {
    if trials == 0 {
        return [0.0, 1.0];
    }
    const Z: f64 = 1.959_963_984_540_054;
    let n = trials as f64;
    let p = (successes / n).clamp(0.0, 1.0);
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    // Rounding can leave the bound a hair past the rate at 0 or 1 wins in n: the
    // interval always holds the rate it is about.
    [(centre - half).clamp(0.0, p), (centre + half).clamp(p, 1.0)]
}

fn summarise(sim: &Simulation, outcomes: &[Outcome], seconds: f64) -> Report {
    let players = sim.bots.len();
    let games = outcomes.len();
    let n = games.max(1) as f64;
    let mut wins = vec![0.0f64; players];
    let mut totals = vec![0i64; players];
    let mut seat_moves = vec![0u64; players];
    let mut seat_seconds = vec![0.0f64; players];
    let mut moved_first = vec![0usize; players];
    let mut shared = 0;
    let mut nobody_wins = 0;
    let mut moves = 0u64;
    let mut sorted = Vec::with_capacity(games);
    for outcome in outcomes {
        let winners: Vec<Seat> = outcome
            .winners
            .iter()
            .copied()
            .filter(|&s| s < players)
            .collect();
        match winners.len() {
            0 => nobody_wins += 1,
            1 => {}
            _ => shared += 1,
        }
        let mut win_shares = vec![0.0f64; players];
        for &seat in &winners {
            wins[seat] += 1.0 / winners.len() as f64;
            win_shares[seat] = 1.0 / winners.len() as f64;
        }
        sorted.push(Sorted {
            sortings: outcome.sortings.clone(),
            win_shares,
            scores: outcome.scores.clone(),
        });
        for (total, score) in totals.iter_mut().zip(&outcome.scores) {
            *total += score;
        }
        moves += outcome.moves;
        if let Some(count) = outcome.first.and_then(|seat| moved_first.get_mut(seat)) {
            *count += 1;
        }
        for (seat, (made, spent)) in outcome
            .seat_moves
            .iter()
            .zip(&outcome.seat_seconds)
            .enumerate()
        {
            if seat < players {
                seat_moves[seat] += made;
                seat_seconds[seat] += spent;
            }
        }
    }
    let seats = (0..players)
        .map(|seat| SeatReport {
            seat,
            bot: sim.bots[seat].name().to_string(),
            wins: wins[seat],
            win_rate: wins[seat] / n,
            ci95: wilson95(wins[seat], games),
            mean_score: totals[seat] as f64 / n,
            moves: seat_moves[seat],
            moved_first: moved_first[seat],
            ms_per_move: if seat_moves[seat] == 0 {
                0.0
            } else {
                1000.0 * seat_seconds[seat] / seat_moves[seat] as f64
            },
        })
        .collect();
    Report {
        game: sim.game.clone(),
        players,
        games,
        seats,
        shared,
        nobody_wins,
        nobody_wins_ci95: wilson95(nobody_wins as f64, games),
        options: Options::new(),
        measures: measures::summarise(&sorted),
        score_parts: measures::sum_parts(
            &outcomes
                .iter()
                .map(|outcome| outcome.score_parts.clone())
                .collect::<Vec<_>>(),
        ),
        mean_moves: moves as f64 / n,
        seconds,
        games_per_second: if seconds > 0.0 {
            games as f64 / seconds
        } else {
            0.0
        },
    }
}

impl Report {
    /// The report as a person reads it.
    pub fn render(&self) -> String {
        let n = self.games.max(1) as f64;
        let mut out = format!(
            "{} games of {} with {} players\n\n",
            self.games, self.game, self.players
        );
        out.push_str(&format!(
            "{:<6} {:<8} {:>8} {:>8}  {:<17} {:>10} {:>9}\n",
            "seat", "bot", "wins", "win rate", "95% interval", "mean score", "ms/move"
        ));
        for seat in &self.seats {
            out.push_str(&format!(
                "{:<6} {:<8} {:>8.1} {:>7.1}%  {:>6.1}% - {:>6.1}%  {:>10.1} {:>9.3}\n",
                seat.seat,
                seat.bot,
                seat.wins,
                100.0 * seat.win_rate,
                100.0 * seat.ci95[0],
                100.0 * seat.ci95[1],
                seat.mean_score,
                seat.ms_per_move
            ));
        }
        let firsts: Vec<String> = self
            .seats
            .iter()
            .map(|seat| format!("seat {} {}", seat.seat, seat.moved_first))
            .collect();
        out.push_str(&format!("moved first (games): {}\n", firsts.join(", ")));
        out.push_str(&format!(
            "\nshared wins: {} ({:.1}%); nobody won: {} ({:.1}%)\n",
            self.shared,
            100.0 * self.shared as f64 / n,
            self.nobody_wins,
            100.0 * self.nobody_wins as f64 / n
        ));
        out.push_str(&format!(
            "mean game length: {:.1} moves; {:.1} games per second ({:.2} s)\n",
            self.mean_moves, self.games_per_second, self.seconds
        ));
        if !self.options.is_empty() {
            let options: Vec<String> = self
                .options
                .iter()
                .map(|(key, value)| format!("{key}={value}"))
                .collect();
            out.push_str(&format!("options: {}\n", options.join(" ")));
        }
        let [low, high] = self.nobody_wins_ci95;
        out.push_str(&format!(
            "nobody won: {:.1}% (95% interval {:.1}% - {:.1}%)\n",
            100.0 * self.nobody_wins as f64 / n,
            100.0 * low,
            100.0 * high
        ));
        if !self.score_parts.is_empty() {
            out.push_str("\nwhere the points came from (all seats; share of the points gained)\n");
            for part in &self.score_parts {
                out.push_str(&format!(
                    "  {:<28} {:>9} {:>7.1}%  mean {:>7.1} a seat\n",
                    part.part,
                    part.points,
                    100.0 * part.share,
                    part.mean
                ));
            }
        }
        for measure in &self.measures {
            out.push_str(&format!(
                "\n{} (seats in each group, their win rate)\n",
                measure.measure
            ));
            for group in &measure.groups {
                out.push_str(&format!(
                    "  {:<28} {:>7} {:>7.1}%  {:>6.1}% - {:>6.1}%  mean score {:>7.1}\n",
                    group.group,
                    group.seats,
                    100.0 * group.win_rate,
                    100.0 * group.ci95[0],
                    100.0 * group.ci95[1],
                    group.mean_score
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{play_one, stream, wilson95, Simulation};
    use crate::bots::Bot;
    use crate::engine::rules::{Options, Rules};
    use crate::games::desert_kingdom::DesertKingdom;
    use crate::games::right_of_way::RightOfWay;
    use crate::games::triangle_auction::TriangleAuction;

    fn simulation(game: &str, players: usize) -> Simulation {
        Simulation {
            game: game.to_string(),
            bots: vec![Bot::Random; players],
            games: 4,
            options: Options::new(),
            seed: [7; 32],
            threads: 1,
        }
    }

    fn names(players: usize) -> Vec<String> {
        super::PLAYER_NAMES[..players]
            .iter()
            .map(|n| (*n).to_string())
            .collect()
    }

    /// Every game's first turn, as a simulated game records it, is the one its setup
    /// gave (a desert kingdom's drawn first player, D1; a triangle auction's drawn
    /// starting player, the first to bid; a right of way's player chosen by the
    /// hands), and the measure `turn order` puts that seat alone in `first`.
    #[test]
    fn the_first_turn_is_the_one_the_setup_gave() {
        fn check<R: super::Measured>(
            rules: &R,
            sim: &Simulation,
            first_of: impl Fn(&R::State) -> usize,
        ) -> Vec<usize> {
            let names = names(sim.bots.len());
            (0..sim.games)
                .map(|index| {
                    let outcome = play_one(rules, &names, sim, index).expect("a game");
                    let start = rules
                        .setup(&names, &mut stream(&sim.seed, "draws", index, 0))
                        .expect("the setup");
                    let first = first_of(&start);
                    assert_eq!(outcome.first, Some(first), "{} game {index}", R::NAME);
                    let order = outcome
                        .sortings
                        .iter()
                        .find(|s| s.measure == "turn order")
                        .expect("the measure turn order");
                    let groups: Vec<usize> = (0..names.len())
                        .map(|seat| usize::from(seat != first))
                        .collect();
                    assert_eq!(order.seat_group, groups, "{} game {index}", R::NAME);
                    first
                })
                .collect()
        }
        let dk = DesertKingdom::standard().expect("the rules");
        let firsts = check(&dk, &simulation("desert-kingdom", 3), |start| {
            dk.to_move(start)[0]
        });
        assert!(firsts.iter().any(|&f| f != 0), "drawn: {firsts:?}");
        let ta = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Options::new())
            .expect("the rules");
        let mut short = simulation("triangle-auction", 3);
        short.games = 2;
        check(&ta, &short, |start| usize::from(start.starting));
        let row =
            RightOfWay::from_data(RightOfWay::DEFAULT_DATA, &Options::new()).expect("the rules");
        check(&row, &simulation("right-of-way", 2), |start| {
            usize::from(start.first)
        });
    }

    #[test]
    fn wilson_intervals_hold_their_rate_and_match_known_values() {
        // 50 of 100: 0.4038 to 0.5962 (the textbook value).
        let [low, high] = wilson95(50.0, 100);
        assert!((low - 0.4038).abs() < 1e-4 && (high - 0.5962).abs() < 1e-4);
        assert_eq!(wilson95(0.0, 3)[0], 0.0);
        assert_eq!(wilson95(3.0, 3)[1], 1.0);
        for wins in [0.0, 0.5, 1.0, 2.5, 3.0] {
            let [low, high] = wilson95(wins, 3);
            assert!(low <= wins / 3.0 && wins / 3.0 <= high);
        }
    }
}
