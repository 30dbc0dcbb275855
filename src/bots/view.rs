//! What a built-in player is given: [`SeatView`], the only door between the full state
//! and a bot.
//!
//! This module is kept apart from the bots on purpose. Rust lets a module and its
//! children read a struct's private fields, so the full state a view is made from
//! lives here, in a private field no bot module can name; a bot reads the view through
//! its methods alone, and those answer from what the seat may know.

use std::cell::OnceCell;

use crate::engine::rules::{LegalMove, Rules, Seat};

/// One seat's view of a game at the moment it is to move: the state as that seat knows
/// it ([`Rules::seat_state`]: the public state and the seat's own hidden material), and
/// the seat's legal moves, which the referee tells every player (`pbem legal`).
pub struct SeatView<'a, R: Rules> {
    rules: &'a R,
    seat: Seat,
    known: R::State,
    /// The full state, private to this module: only [`SeatView::legal`] reads it, to
    /// list the seat's moves as the referee does for a person in that seat. A move list
    /// tells nothing hidden of other seats (`pbem legal` shows it to the player).
    full: &'a R::State,
    legal: OnceCell<Vec<LegalMove>>,
}

impl<'a, R: Rules> SeatView<'a, R> {
    /// The view of `seat` in the position `full`.
    pub fn new(rules: &'a R, full: &'a R::State, seat: Seat) -> Self {
        SeatView {
            rules,
            seat,
            known: rules.seat_state(full, seat),
            full,
            legal: OnceCell::new(),
        }
    }

    pub fn rules(&self) -> &'a R {
        self.rules
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The state as this seat knows it. What a bot plays ahead on: hidden material of
    /// others is missing from it (an empty bag, cards unknown), never guessed right.
    pub fn known(&self) -> &R::State {
        &self.known
    }

    /// Every legal move of this seat now, as `pbem legal` lists them for its player;
    /// worked out once, on first asking, since some lists are long.
    pub fn legal(&self) -> &[LegalMove] {
        self.legal
            .get_or_init(|| self.rules.legal_moves(self.full, self.seat))
    }
}
