//! `greedy`: the best move one move ahead, by the game's own scores.
//!
//! Each legal move is played on states the seat's knowledge allows, never on the full
//! state: in a game with hidden material, [`DETERMINISED`] states drawn by
//! [`Rules::determinise`] from the state the seat knows ([`SeatView::known`]), with
//! the bot's own stream; in a game without, the known state itself. The position after
//! the move is scored by the rules ([`Rules::scores`], [`Rules::winners`]) and the
//! margins averaged. Ties are broken by the net the legal-move entries report (profit
//! less cost and price, as the demo's player weighs them), then at random.

use super::SeatView;
use crate::engine::chance::DrawStream;
use crate::engine::rules::{LegalMove, Rules};

/// Above this many legal moves, a sample of this many is weighed: some games' lists
/// run to thousands of moves, and playing each ahead every turn would make a game slow.
pub const WEIGHED_AT_MOST: usize = 100;

/// How many states a game with hidden material is played ahead on, each move.
pub const DETERMINISED: usize = 4;

/// How much winning outright counts above any margin of points.
const WIN: i64 = 1 << 40;

/// The move with the best value one move ahead; `None` when the seat has none.
pub fn choose<R: Rules>(view: &SeatView<'_, R>, rng: &mut DrawStream) -> Option<String> {
    let ranked = ranked(view, rng);
    let best = ranked.first()?.0;
    let top: Vec<&LegalMove> = ranked
        .iter()
        .take_while(|(value, _)| *value == best)
        .map(|(_, entry)| *entry)
        .collect();
    let count = u32::try_from(top.len()).ok().filter(|&n| n > 0)?;
    top.get(rng.index(count) as usize)
        .map(|entry| entry.text.clone())
}

/// The moves weighed, best first, each with its value (mean margin one move ahead,
/// then net).
pub(super) fn ranked<'a, R: Rules>(
    view: &'a SeatView<'_, R>,
    rng: &mut DrawStream,
) -> Vec<((i64, i64), &'a LegalMove)> {
    let weighed = sample(view.legal(), rng);
    // The same few imagined positions for every move, so moves are compared on equal
    // terms rather than on their luck.
    let worlds = worlds(view, DETERMINISED, rng);
    let mut ranked: Vec<((i64, i64), &LegalMove)> = weighed
        .into_iter()
        .map(|entry| ((value_ahead(view, &worlds, entry, rng), net(entry)), entry))
        .collect();
    // Stable: equals stay in the list's order, for the caller's random pick.
    ranked.sort_by_key(|(value, _)| std::cmp::Reverse(*value));
    ranked
}

/// `count` states the seat's knowledge allows ([`Rules::determinise`]), or the known
/// state alone in a game with nothing hidden.
pub(super) fn worlds<R: Rules>(
    view: &SeatView<'_, R>,
    count: usize,
    rng: &mut DrawStream,
) -> Vec<R::State> {
    if R::HAS_HIDDEN_STATE {
        (0..count)
            .map(|_| view.rules().determinise(view.known(), view.seat(), rng))
            .collect()
    } else {
        vec![view.known().clone()]
    }
}

/// The moves weighed: all of them, or a random sample of [`WEIGHED_AT_MOST`].
fn sample<'a>(legal: &'a [LegalMove], rng: &mut DrawStream) -> Vec<&'a LegalMove> {
    if legal.len() <= WEIGHED_AT_MOST {
        return legal.iter().collect();
    }
    let mut all: Vec<&LegalMove> = legal.iter().collect();
    // A partial Fisher-Yates shuffle: the first WEIGHED_AT_MOST places, uniformly.
    for i in 0..WEIGHED_AT_MOST {
        let rest = u32::try_from(all.len() - i).unwrap_or(u32::MAX);
        let j = i + rng.index(rest) as usize;
        all.swap(i, j);
    }
    all.truncate(WEIGHED_AT_MOST);
    all
}

/// The seat's mean margin after `entry`, played on each of `worlds`: its score less
/// the best other score, with [`WIN`] added for a game it then wins (shared or not).
/// A world where the rules refuse the move counts as the worst margin.
pub(super) fn value_ahead<R: Rules>(
    view: &SeatView<'_, R>,
    worlds: &[R::State],
    entry: &LegalMove,
    rng: &mut DrawStream,
) -> i64 {
    let rules = view.rules();
    let seat = view.seat();
    let Ok(mv) = rules.parse_move(view.known(), seat, &entry.text) else {
        return i64::MIN;
    };
    let mut total: i128 = 0;
    for world in worlds {
        total += match rules.apply(world, seat, &mv, rng) {
            Ok(after) => i128::from(margin(rules, &after, seat)),
            Err(_) => i128::from(i64::MIN),
        };
    }
    let count = i128::try_from(worlds.len()).unwrap_or(1).max(1);
    i64::try_from(total / count).unwrap_or(i64::MIN)
}

/// `seat`'s standing ([`Rules::standing`], the score in most games) less the best
/// other in `state`, with [`WIN`] for a win.
pub(super) fn margin<R: Rules>(rules: &R, state: &R::State, seat: usize) -> i64 {
    let scores = rules.standing(state);
    let mine = scores.get(seat).copied().unwrap_or(0);
    let others = scores
        .iter()
        .enumerate()
        .filter(|(other, _)| *other != seat)
        .map(|(_, &score)| score)
        .max()
        .unwrap_or(0);
    let won = rules.is_over(state) && rules.winners(state).contains(&seat);
    mine.saturating_sub(others)
        .saturating_add(if won { WIN } else { 0 })
}

/// Profit less cost and price, where the game's legal-move entries list them.
fn net(entry: &LegalMove) -> i64 {
    let detail = |key: &str| {
        entry
            .details
            .get(key)
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(0)
    };
    detail("profit") - detail("cost") - detail("price")
}
