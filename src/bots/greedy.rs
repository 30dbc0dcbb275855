//! `greedy`: the best move one move ahead, by the game's own scores.
//!
//! Each legal move is played on a copy of the state as the seat knows it
//! ([`SeatView::known`]), never on the full state, and the position after it is scored
//! by the rules ([`Rules::scores`], [`Rules::winners`]). Where a move draws hidden
//! material the seat cannot see (a tile from the bag), the known state holds none of
//! it, so the rules play the move without it: what is scored is the part of the move's
//! result that does not hang on the draw. Ties are broken by the net the legal-move
//! entries report (profit less cost and price, as the demo's player weighs them), then
//! at random.

use super::SeatView;
use crate::engine::chance::DrawStream;
use crate::engine::rules::{LegalMove, Rules};

/// Above this many legal moves, a sample of this many is weighed: some games' lists
/// run to thousands of moves, and playing each ahead every turn would make a game slow.
pub const WEIGHED_AT_MOST: usize = 100;

/// How much winning outright counts above any margin of points.
const WIN: i64 = 1 << 40;

/// The move with the best value one move ahead; `None` when the seat has none.
pub fn choose<R: Rules>(view: &SeatView<'_, R>, rng: &mut DrawStream) -> Option<String> {
    let legal = view.legal();
    let weighed = sample(legal, rng);
    let mut best: Option<((i64, i64), Vec<&LegalMove>)> = None;
    for entry in weighed {
        let value = (
            value_ahead(view, entry, rng).unwrap_or(i64::MIN),
            net(entry),
        );
        match &mut best {
            Some((top, list)) if *top == value => list.push(entry),
            Some((top, _)) if *top > value => {}
            _ => best = Some((value, vec![entry])),
        }
    }
    let (_, top) = best?;
    let count = u32::try_from(top.len()).ok().filter(|&n| n > 0)?;
    top.get(rng.index(count) as usize)
        .map(|entry| entry.text.clone())
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

/// The seat's margin after `entry`, played on the state it knows: its score less the
/// best other score, with [`WIN`] added for a game it then wins (shared or not).
/// `None` when the rules refuse the move on the known state.
pub(super) fn value_ahead<R: Rules>(
    view: &SeatView<'_, R>,
    entry: &LegalMove,
    rng: &mut DrawStream,
) -> Option<i64> {
    let rules = view.rules();
    let seat = view.seat();
    let known = view.known();
    let mv = rules.parse_move(known, seat, &entry.text).ok()?;
    let after = rules.apply(known, seat, &mv, rng).ok()?;
    Some(margin(rules, &after, seat))
}

/// `seat`'s score less the best other score in `state`, with [`WIN`] for a win.
pub(super) fn margin<R: Rules>(rules: &R, state: &R::State, seat: usize) -> i64 {
    let scores = rules.scores(state);
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
