//! `random`: any legal move, as the rules draw one.

use super::SeatView;
use crate::engine::chance::DrawStream;
use crate::engine::rules::Rules;

/// The rules' own random move ([`Rules::sample_move`], fast where legal lists run
/// long), drawn on the state the seat knows; failing that, a move drawn uniformly from
/// the seat's list. `None` when it has no move.
pub fn choose<R: Rules>(view: &SeatView<'_, R>, rng: &mut DrawStream) -> Option<String> {
    let rules = view.rules();
    if let Some(mv) = rules.sample_move(view.known(), view.seat(), rng) {
        return Some(rules.canonical_text(&mv));
    }
    let legal = view.legal();
    let count = u32::try_from(legal.len()).ok().filter(|&n| n > 0)?;
    legal
        .get(rng.index(count) as usize)
        .map(|entry| entry.text.clone())
}
