//! `search`: flat Monte Carlo over determinised hidden information.
//!
//! The few best moves by [`greedy`]'s ranking are each tried in [`PLAYOUTS`] imagined
//! games: a state drawn by [`Rules::determinise`] from what the seat knows (never the
//! full state), the move, then [`HORIZON`] moves of every seat as the rules draw them
//! ([`Rules::sample_move`]); the move whose playouts end with the best mean margin
//! (score less the best other score, a win counting above any margin) is played.
//! Where the imagined game breaks down (a move the rules refuse in a state the seat
//! could only guess), the playout is scored where it stopped.

use super::greedy;
use super::SeatView;
use crate::engine::chance::DrawStream;
use crate::engine::rules::Rules;

/// How many of greedy's best moves are tried.
pub const CANDIDATES: usize = 6;
/// How many imagined games each is tried in.
pub const PLAYOUTS: usize = 8;
/// How many moves an imagined game runs past the move tried.
pub const HORIZON: usize = 12;

pub fn choose<R: Rules>(view: &SeatView<'_, R>, rng: &mut DrawStream) -> Option<String> {
    let ranked = greedy::ranked(view, rng);
    let rules = view.rules();
    let seat = view.seat();
    let mut best: Option<(i128, &str)> = None;
    for (_, entry) in ranked.iter().take(CANDIDATES) {
        let Ok(mv) = rules.parse_move(view.known(), seat, &entry.text) else {
            continue;
        };
        let mut total: i128 = 0;
        for world in greedy::worlds(view, PLAYOUTS, rng)
            .into_iter()
            .cycle()
            .take(PLAYOUTS)
        {
            let Ok(mut state) = rules.apply(&world, seat, &mv, rng) else {
                total += i128::from(i64::MIN);
                continue;
            };
            for _ in 0..HORIZON {
                if rules.is_over(&state) {
                    break;
                }
                let Some(&next) = rules.to_move(&state).first() else {
                    break;
                };
                let Some(reply) = rules.sample_move(&state, next, rng) else {
                    break;
                };
                match rules.apply(&state, next, &reply, rng) {
                    Ok(after) => state = after,
                    Err(_) => break,
                }
            }
            total += i128::from(greedy::margin(rules, &state, seat));
        }
        // Strictly better only: among equals, greedy's order decides.
        if best.is_none_or(|(top, _)| total > top) {
            best = Some((total, entry.text.as_str()));
        }
    }
    best.map(|(_, text)| text.to_string())
}
