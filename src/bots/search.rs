//! `search`: flat Monte Carlo over determinised hidden information.
//!
//! The few best moves by [`greedy`]'s ranking are each tried in [`Budget::playouts`] imagined
//! games: a state drawn by [`Rules::determinise`] from what the seat knows (never the
//! full state), the move, then up to [`Budget::horizon`] moves in which every seat plays as a
//! hasty greedy player would (the best of [`Budget::replies_weighed`] moves the rules draw
//! for it, [`Rules::sample_move`], by its standing one move ahead). The move whose
//! playouts end with the best mean margin (standing less the best other, a win
//! counting above any margin) is played.
//!
//! Every candidate is tried in the same imagined games (the same determinised states,
//! the same streams for their draws and replies), so candidates are compared on equal
//! luck rather than on their playouts' noise. Where an imagined game breaks down (a
//! move the rules refuse in a state the seat could only guess), the playout is scored
//! where it stopped.

use super::greedy;
use super::SeatView;
use crate::engine::chance::DrawStream;
use crate::engine::rules::{Rules, Seat};

/// How much a search may look at for one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// How many of greedy's best moves are tried.
    pub candidates: usize,
    /// How many imagined games each is tried in.
    pub playouts: usize,
    /// How many moves an imagined game runs past the move tried, at most.
    pub horizon: usize,
    /// How many moves the rules draw for a seat at each move of an imagined game; the
    /// best of them one move ahead is played.
    pub replies_weighed: usize,
}

/// The budget of `search` in `pbem simulate` and mail games: a few tens of
/// milliseconds a move in a release build (`pbem simulate` reports the time taken).
pub const BUDGET: Budget = Budget {
    candidates: 6,
    playouts: 8,
    horizon: 24,
    replies_weighed: 3,
};

pub fn choose<R: Rules>(view: &SeatView<'_, R>, rng: &mut DrawStream) -> Option<String> {
    choose_within(view, rng, BUDGET)
}

/// [`choose`] within another budget (the tests' smaller one).
pub fn choose_within<R: Rules>(
    view: &SeatView<'_, R>,
    rng: &mut DrawStream,
    budget: Budget,
) -> Option<String> {
    let ranked = greedy::ranked(view, rng);
    if ranked.len() == 1 {
        return ranked.first().map(|(_, entry)| entry.text.clone());
    }
    let rules = view.rules();
    let seat = view.seat();
    let worlds: Vec<R::State> = greedy::worlds(view, budget.playouts, rng)
        .into_iter()
        .cycle()
        .take(budget.playouts)
        .collect();
    let keys: Vec<[u8; 32]> = (0..budget.playouts).map(|_| key(rng)).collect();
    let mut best: Option<(i128, &str)> = None;
    for (_, entry) in ranked.iter().take(budget.candidates) {
        let Ok(mv) = rules.parse_move(view.known(), seat, &entry.text) else {
            continue;
        };
        let mut total: i128 = 0;
        for (world, key) in worlds.iter().zip(&keys) {
            let mut luck = DrawStream::new(*key);
            total += match rules.apply(world, seat, &mv, &mut luck) {
                Ok(after) => i128::from(playout(rules, after, seat, &mut luck, budget)),
                Err(_) => i128::from(i64::MIN),
            };
        }
        // Strictly better only: among equals, greedy's order decides.
        if best.is_none_or(|(top, _)| total > top) {
            best = Some((total, entry.text.as_str()));
        }
    }
    best.map(|(_, text)| text.to_string())
}

/// A fresh stream key drawn from `rng`.
fn key(rng: &mut DrawStream) -> [u8; 32] {
    let mut key = [0u8; 32];
    for chunk in key.chunks_mut(4) {
        chunk.copy_from_slice(&rng.next_word().to_le_bytes());
    }
    key
}

/// Plays the imagined game on from `state` and returns `seat`'s margin where it ends.
fn playout<R: Rules>(
    rules: &R,
    mut state: R::State,
    seat: Seat,
    luck: &mut DrawStream,
    budget: Budget,
) -> i64 {
    for _ in 0..budget.horizon {
        if rules.is_over(&state) {
            break;
        }
        let Some(&next) = rules.to_move(&state).first() else {
            break;
        };
        match hasty_reply(rules, &state, next, luck, budget.replies_weighed) {
            Some(after) => state = after,
            None => break,
        }
    }
    greedy::margin(rules, &state, seat)
}

/// The position after the best, for `seat` one move ahead, of a few moves the rules
/// draw for it; `None` when it has none the rules accept.
fn hasty_reply<R: Rules>(
    rules: &R,
    state: &R::State,
    seat: Seat,
    luck: &mut DrawStream,
    weighed: usize,
) -> Option<R::State> {
    let mut best: Option<(i64, R::State)> = None;
    for _ in 0..weighed {
        let Some(reply) = rules.sample_move(state, seat, luck) else {
            continue;
        };
        let Ok(after) = rules.apply(state, seat, &reply, luck) else {
            continue;
        };
        let value = greedy::margin(rules, &after, seat);
        if best.as_ref().is_none_or(|(top, _)| value > *top) {
            best = Some((value, after));
        }
    }
    best.map(|(_, after)| after)
}
