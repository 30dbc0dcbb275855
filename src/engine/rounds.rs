//! Rounds (docs/FAIRNESS.md, "Rounds"): the round the rules give a move, from the
//! ledger of moves standing and what the rules say of the positions around it.

use super::rules::{RoundLabel, Seat};
use super::undo::Ledger;

/// What decides the round of a move made in a position: the rules' round label there,
/// and the seats awaited (see [`ruled_round`]).
pub type RoundContext = (RoundLabel, Vec<Seat>);

/// The round the rules give a move of `seat` as record `turn` (docs/FAIRNESS.md,
/// "Rounds"): `now` is the round label and the seats awaited in the position before it,
/// `before_last` those before the last move standing when it belongs to a round.
pub(crate) fn ruled_round(
    ledger: &Ledger,
    now: &(RoundLabel, Vec<Seat>),
    before_last: Option<&(RoundLabel, Vec<Seat>)>,
    turn: u64,
    seat: Seat,
) -> Option<u64> {
    let last = ledger.last_standing();
    let open = last.and_then(|(_, last_seat, round)| Some((last_seat, round?)));
    match (now.0, open, before_last) {
        (RoundLabel::Alone, _, _) => None,
        (RoundLabel::Phase(phase), Some((_, round)), Some((RoundLabel::Phase(was), _)))
            if phase == *was =>
        {
            Some(round)
        }
        (RoundLabel::Phase(_), _, _) => Some(turn),
        (RoundLabel::ByWhoMoves, Some((last_seat, round)), Some((RoundLabel::ByWhoMoves, was)))
            if !ledger.round_seats().contains(&seat) && continues_round(was, last_seat, &now.1) =>
        {
            Some(round)
        }
        (RoundLabel::ByWhoMoves, _, _) => (now.1.len() >= 2).then_some(turn),
    }
}

/// Whether a move continues the round of the last move standing: that move (of
/// `last_seat`) was made while `before` were awaited, several of them, and now exactly
/// the others are.
pub(crate) fn continues_round(before: &[Seat], last_seat: Seat, now: &[Seat]) -> bool {
    let mut rest: Vec<Seat> = before.iter().copied().filter(|&s| s != last_seat).collect();
    let mut now = now.to_vec();
    rest.sort_unstable();
    now.sort_unstable();
    before.len() >= 2 && before.contains(&last_seat) && !now.is_empty() && rest == now
}
