//! Taking back moves with consent: which steps a game file may hold, worked out from
//! its records alone (no rules, no seed), so that the audit, the referee and a
//! reimplementation in another language decide alike (docs/FAIRNESS.md, "Taking back
//! moves").
//!
//! A player takes back their last move standing and every move after it. At once, when
//! nobody has moved since; otherwise they ask, every other player agrees, and the undo
//! follows. A move that drew anything, a sealed move, or one that opened sealed moves
//! is never taken back: its draws were seen (or, hidden, would be drawn again from
//! other words), so taking it back would let its maker fish for a better draw, and a
//! sealed choice was made knowing what others had chosen. The records of asking,
//! answering and taking back stay in the chain; a taken-back move stays there too,
//! marked as such by the undo that follows it.

pub use super::error::UndoRefused;
use super::file::{Record, UndoRecord, UndoStep};
use super::rules::Seat;

fn refused(problem: impl Into<String>, accepted: impl Into<String>) -> UndoRefused {
    UndoRefused {
        problem: problem.into(),
        accepted: accepted.into(),
    }
}

/// A request to take back moves, waiting for the other players' answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// Who asked.
    pub asker: Seat,
    /// The first record it takes back.
    pub from: u64,
    /// Who agreed so far, in the order they did.
    pub agreed: Vec<Seat>,
}

/// What a move standing would block of taking it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fixed {
    Drew,
    Sealed,
    Opened,
}

/// A move not taken back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Standing {
    turn: u64,
    seat: Seat,
    fixed: Option<Fixed>,
    /// Format 3: the first record of the round of simultaneous moves it belongs to.
    round: Option<u64>,
}

/// What keys the draws of a move in format 3 (docs/FAIRNESS.md, "The draw stream of a
/// turn"): the last move standing before its round, and the round's moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundInputs {
    /// The turn of the last move standing before the round; `None`: the setup.
    pub anchor: Option<u64>,
    /// The round's moves standing, (turn, seat), in the order they were made; a move
    /// outside any round is a round of one.
    pub moves: Vec<(u64, Seat)>,
}

/// What a record does to the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// A move: the rules say what it does.
    Move,
    /// A step that leaves the position as it is (asking, agreeing, declining).
    Unchanged,
    /// Moves taken back: the position is the one after record `after` (0: the setup).
    Restore { after: u64 },
}

/// The moves standing and the request waiting, after the records read so far.
#[derive(Debug, Clone)]
pub struct Ledger {
    players: usize,
    /// Records before the first one read: 0 for a ledger of the whole file; more for
    /// one read from a window of the latest records (see [`Ledger::after`]).
    earlier: u64,
    standing: Vec<Standing>,
    pending: Option<Pending>,
    taken_back: Vec<u64>,
}

impl Ledger {
    /// The ledger of a game with `players` seats before its first record.
    pub fn new(players: usize) -> Ledger {
        Ledger::after(players, 0)
    }

    /// The ledger of a window of the latest records, after the first `earlier`: it
    /// knows only the moves in the window, so it may read no step of taking back (which
    /// may reach before it), and it can say what keys a move's draws only while the
    /// round's anchor is in the window ([`Ledger::anchor_known`]).
    pub fn after(players: usize, earlier: u64) -> Ledger {
        Ledger {
            players,
            earlier,
            standing: Vec::new(),
            pending: None,
            taken_back: Vec::new(),
        }
    }

    /// Whether [`Ledger::round_inputs`] is this game's: always for a ledger of the
    /// whole file; for a window, when the move before the round is in it.
    pub fn anchor_known(&self) -> bool {
        self.earlier == 0 || self.round_start() > 0
    }

    /// The request waiting for answers, if any.
    pub fn pending(&self) -> Option<&Pending> {
        self.pending.as_ref()
    }

    /// The turns of every move taken back so far, in the order they were taken back.
    pub fn taken_back(&self) -> &[u64] {
        &self.taken_back
    }

    /// The moves standing from turn `from` on: (turn, seat), oldest first.
    pub fn standing_from(&self, from: u64) -> Vec<(u64, Seat)> {
        self.standing
            .iter()
            .filter(|m| m.turn >= from)
            .map(|m| (m.turn, m.seat))
            .collect()
    }

    /// The seats whose agreement the waiting request still needs.
    pub fn waiting_for(&self) -> Vec<Seat> {
        match &self.pending {
            Some(p) => (0..self.players)
                .filter(|&s| s != p.asker && !p.agreed.contains(&s))
                .collect(),
            None => Vec::new(),
        }
    }

    /// Reads record `turn` of `seat`, checking a step of taking back against what came
    /// before. On a refusal nothing changes.
    ///
    /// # Errors
    /// A step the records before it do not allow.
    pub fn step(&mut self, turn: u64, seat: Seat, record: &Record) -> Result<Effect, UndoRefused> {
        let Some(undo) = record.undo else {
            if let Some(round) = record.round {
                self.check_round(turn, round)?;
            }
            let fixed = if record.is_sealed() {
                Some(Fixed::Sealed)
            } else if !record.opens.is_empty() {
                Some(Fixed::Opened)
            } else if !record.draws.is_empty() {
                Some(Fixed::Drew)
            } else {
                None
            };
            self.standing.push(Standing {
                turn,
                seat,
                fixed,
                round: record.round,
            });
            // A move made while a request waits changes what it would take back: the
            // request lapses, and must be asked again if still wanted.
            self.pending = None;
            return Ok(Effect::Move);
        };
        if self.earlier > 0 {
            return Err(refused(
                format!(
                    "record {turn} takes back moves, and only the records after turn {} were read",
                    self.earlier
                ),
                "the whole file read",
            ));
        }
        self.check(seat, undo)?;
        Ok(self.record(seat, undo))
    }

    /// Whether a move of `seat` at `turn` may say it belongs to the round begun by record
    /// `round`: its own turn begins one; an earlier one must be the round of the last
    /// move standing. Whether the rules had the seats move together (and a seat more
    /// than once) is the audit's replay to check.
    fn check_round(&self, turn: u64, round: u64) -> Result<(), UndoRefused> {
        if round == turn {
            return Ok(());
        }
        // A window may begin inside a round begun before it: its moves are read, but
        // what keys the round's draws is not known from it (see `anchor_known`).
        if round <= self.earlier && self.standing.iter().all(|m| m.round == Some(round)) {
            return Ok(());
        }
        let accepted = "a move continues only the round of the last move standing";
        if self.standing.last().and_then(|m| m.round) != Some(round) {
            return Err(refused(
                format!("turn {turn} continues round {round}, which the last move standing is not part of"),
                accepted,
            ));
        }
        Ok(())
    }

    /// Where the round of the last move standing begins in the list (the moves of a
    /// round are its tail); the last move itself when it belongs to no round.
    fn round_start(&self) -> usize {
        match self.standing.last() {
            Some(Standing {
                round: Some(round), ..
            }) => self
                .standing
                .iter()
                .rposition(|m| m.round != Some(*round))
                .map_or(0, |at| at + 1),
            _ => self.standing.len().saturating_sub(1),
        }
    }

    /// The last move standing: (turn, seat, the round it belongs to).
    pub fn last_standing(&self) -> Option<(u64, Seat, Option<u64>)> {
        self.standing.last().map(|m| (m.turn, m.seat, m.round))
    }

    /// The seats that have moved in the round of the last move standing (none when it
    /// belongs to no round).
    pub fn round_seats(&self) -> Vec<Seat> {
        match self.standing.last().and_then(|m| m.round) {
            Some(_) => self.standing[self.round_start()..]
                .iter()
                .map(|m| m.seat)
                .collect(),
            None => Vec::new(),
        }
    }

    /// What keys the draws of the last move standing, format 3: the move before its
    /// round, and the round's moves (itself alone when it belongs to no round).
    pub fn round_inputs(&self) -> RoundInputs {
        let first = self.round_start();
        RoundInputs {
            anchor: first.checked_sub(1).map(|at| self.standing[at].turn),
            moves: self.standing[first..]
                .iter()
                .map(|m| (m.turn, m.seat))
                .collect(),
        }
    }

    /// What `seat`'s word `word` (`undo`, `agree` or `decline`) becomes as records,
    /// each with the seat it is written for: `undo` is an undo at once when nobody
    /// moved since, else a request; the last agreement is followed by the undo
    /// (written for the player who asked).
    ///
    /// # Errors
    /// A word the game does not allow now, saying why and what would be.
    pub fn plan(&self, seat: Seat, word: UndoStep) -> Result<Vec<(Seat, UndoRecord)>, UndoRefused> {
        let mut ledger = self.clone();
        let first = match word {
            UndoStep::Ask | UndoStep::Undo => {
                let from = self.last_of(seat)?;
                let nobody_since = self.standing.last().map(|m| m.turn) == Some(from);
                UndoRecord {
                    step: if nobody_since {
                        UndoStep::Undo
                    } else {
                        UndoStep::Ask
                    },
                    turn: from,
                }
            }
            UndoStep::Agree | UndoStep::Decline => {
                let Some(pending) = &self.pending else {
                    return Err(refused(
                        "nobody has asked to take back a move",
                        "send your move, or `undo` to ask to take back your own last move",
                    ));
                };
                UndoRecord {
                    step: word,
                    turn: pending.from,
                }
            }
        };
        ledger.check(seat, first)?;
        ledger.record(seat, first);
        let mut plan = vec![(seat, first)];
        if first.step == UndoStep::Agree && ledger.waiting_for().is_empty() {
            if let Some(pending) = ledger.pending.clone() {
                let undo = UndoRecord {
                    step: UndoStep::Undo,
                    turn: pending.from,
                };
                ledger.check(pending.asker, undo)?;
                plan.push((pending.asker, undo));
            }
        }
        Ok(plan)
    }

    /// The turn of `seat`'s last move standing, when it and every move after it can be
    /// taken back.
    fn last_of(&self, seat: Seat) -> Result<u64, UndoRefused> {
        let Some(at) = self.standing.iter().rposition(|m| m.seat == seat) else {
            return Err(refused(
                "you have no move standing to take back",
                "send your move",
            ));
        };
        let from = self.standing[at].turn;
        for later in &self.standing[at..] {
            let why = match later.fixed {
                None => continue,
                Some(Fixed::Drew) => "drew from the game's chance: taking it back would let its maker choose again knowing what that move drew",
                Some(Fixed::Sealed) => "is a sealed choice, made face down beside the others' choices",
                Some(Fixed::Opened) => "opened sealed choices, which everyone has now seen",
            };
            let whose = if later.turn == from {
                String::new()
            } else {
                format!(" (made after your turn {from})")
            };
            return Err(refused(
                format!("turn {}{whose} {why}, so it cannot be taken back", later.turn),
                "only moves that drew nothing and opened nothing can be taken back; send your next move instead",
            ));
        }
        Ok(from)
    }

    /// Whether `seat` may write the step `undo` now.
    fn check(&self, seat: Seat, undo: UndoRecord) -> Result<(), UndoRefused> {
        let pending = self.pending.as_ref();
        match undo.step {
            UndoStep::Ask => {
                if let Some(p) = pending.filter(|p| p.asker == seat) {
                    return Err(refused(
                        format!("you have already asked to take back turn {}", p.from),
                        "wait for the other players' answers",
                    ));
                }
                if let Some(p) = pending {
                    return Err(refused(
                        format!(
                            "a request to take back turn {} is waiting for answers",
                            p.from
                        ),
                        "agree or decline it first, or wait for the answers",
                    ));
                }
                let from = self.last_of(seat)?;
                if from != undo.turn {
                    return Err(refused(
                        format!(
                            "turn {} is not your last move standing (turn {from} is)",
                            undo.turn
                        ),
                        format!("ask to take back turn {from}"),
                    ));
                }
                if self.standing.last().map(|m| m.turn) == Some(from) {
                    return Err(refused(
                        "nobody has moved since your last move, so it is taken back at once without asking",
                        "take it back at once",
                    ));
                }
                Ok(())
            }
            UndoStep::Agree | UndoStep::Decline => {
                let Some(p) = pending.filter(|p| p.from == undo.turn) else {
                    return Err(refused(
                        format!("nobody is asking to take back turn {}", undo.turn),
                        "answer only a request that is waiting",
                    ));
                };
                if p.asker == seat {
                    return Err(refused(
                        "you asked to take back the move yourself",
                        "the other players answer your request",
                    ));
                }
                if p.agreed.contains(&seat) {
                    return Err(refused(
                        "you have already agreed",
                        "wait for the other players' answers",
                    ));
                }
                Ok(())
            }
            UndoStep::Undo => {
                let from = self.last_of(seat)?;
                if from != undo.turn {
                    return Err(refused(
                        format!(
                            "turn {} is not the last move standing of its player (turn {from} is)",
                            undo.turn
                        ),
                        format!("take back turn {from}"),
                    ));
                }
                let nobody_since = self.standing.last().map(|m| m.turn) == Some(from);
                let consented = pending.is_some_and(|p| p.asker == seat && p.from == from)
                    && self.waiting_for().is_empty();
                match pending {
                    Some(p) if !consented => Err(refused(
                        format!(
                            "the request to take back turn {} is still waiting for answers",
                            p.from
                        ),
                        "wait until every other player has agreed",
                    )),
                    None if !nobody_since => Err(refused(
                        format!("other players have moved since turn {from}"),
                        "ask them first: every other player must agree",
                    )),
                    _ => Ok(()),
                }
            }
        }
    }

    /// Records a step that [`Ledger::check`] allowed.
    fn record(&mut self, seat: Seat, undo: UndoRecord) -> Effect {
        match undo.step {
            UndoStep::Ask => {
                self.pending = Some(Pending {
                    asker: seat,
                    from: undo.turn,
                    agreed: Vec::new(),
                });
                Effect::Unchanged
            }
            UndoStep::Agree => {
                if let Some(p) = self.pending.as_mut() {
                    p.agreed.push(seat);
                }
                Effect::Unchanged
            }
            UndoStep::Decline => {
                self.pending = None;
                Effect::Unchanged
            }
            UndoStep::Undo => {
                self.pending = None;
                let taken: Vec<u64> = self
                    .standing
                    .iter()
                    .filter(|m| m.turn >= undo.turn)
                    .map(|m| m.turn)
                    .collect();
                self.taken_back.extend(taken);
                self.standing.retain(|m| m.turn < undo.turn);
                Effect::Restore {
                    after: undo.turn - 1,
                }
            }
        }
    }
}

/// A step of taking back in a sentence, as the log and the reports say it.
pub fn undo_line(player: &str, undo: crate::engine::file::UndoRecord) -> String {
    use crate::engine::file::UndoStep;
    let turn = undo.turn;
    match undo.step {
        UndoStep::Ask => format!("{player} asks to take back turn {turn} and the moves after it"),
        UndoStep::Agree => format!("{player} agrees to take back turn {turn}"),
        UndoStep::Decline => format!("{player} declines to take back turn {turn}"),
        // A record's turn is the file's word until checked: the audit says this line of
        // a record it refuses too, so a turn 0 must not underflow.
        UndoStep::Undo => format!(
            "turn {turn} and any moves after it taken back at {player}'s request: the game stands as after turn {}",
            turn.saturating_sub(1)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::file::Draw;

    #[test]
    fn an_undo_of_turn_0_in_a_file_is_said_without_underflow() {
        use crate::engine::file::{UndoRecord, UndoStep};
        let line = undo_line(
            "Ann",
            UndoRecord {
                step: UndoStep::Undo,
                turn: 0,
            },
        );
        assert!(line.ends_with("as after turn 0"), "{line}");
    }

    #[test]
    fn a_window_of_the_latest_records_keys_a_draw_only_with_the_move_before_its_round() {
        let moved = |turn: u64, round: Option<u64>| Record {
            round,
            ..record(turn, None, false)
        };
        // Records 5 to 7 of a game: 5 and 6 continue round 4, begun before the window.
        let mut window = Ledger::after(3, 4);
        window.step(5, 1, &moved(5, Some(4))).expect("continues it");
        window.step(6, 2, &moved(6, Some(4))).expect("continues it");
        // What keys round 4's draws (the move before it) is not in the window.
        assert!(!window.anchor_known());
        // A round it did not begin with is refused, as in the whole file.
        assert!(window.clone().step(7, 0, &moved(7, Some(3))).is_err());
        // A move alone after it keys on the move before it, in the window.
        let mut alone = window.clone();
        alone.step(7, 0, &moved(7, None)).expect("alone");
        assert!(alone.anchor_known());
        assert_eq!(alone.round_inputs().anchor, Some(6));
        // So does a move that begins a round.
        window.step(7, 0, &moved(7, Some(7))).expect("begins one");
        assert!(window.anchor_known());
        assert_eq!(window.round_inputs().anchor, Some(6));
        // A step of taking back may reach before the window: never read there.
        assert!(step(&mut window, 8, 1, Some((UndoStep::Ask, 7))).is_err());
        assert!(Ledger::new(3).anchor_known());
    }

    #[test]
    fn a_round_continues_only_the_round_of_the_last_move_standing_and_keys_on_it() {
        let moved = |turn: u64, round: Option<u64>| Record {
            round,
            ..record(turn, None, false)
        };
        let mut ledger = Ledger::new(3);
        ledger.step(1, 0, &moved(1, None)).expect("alone");
        ledger
            .step(2, 1, &moved(2, Some(2)))
            .expect("begins a round");
        ledger.step(3, 2, &moved(3, Some(2))).expect("continues it");
        assert_eq!(
            ledger.round_inputs(),
            RoundInputs {
                anchor: Some(1),
                moves: vec![(2, 1), (3, 2)],
            }
        );
        assert_eq!(ledger.round_seats(), [1, 2]);
        // A round the last move standing is not part of is refused.
        let mut other = ledger.clone();
        assert!(other.step(4, 0, &moved(4, Some(1))).is_err());
        // Taken back, the round's last move leaves the round as it stood before it.
        ledger
            .step(
                4,
                2,
                &record(
                    4,
                    Some(UndoRecord {
                        step: UndoStep::Undo,
                        turn: 3,
                    }),
                    false,
                ),
            )
            .expect("taken back at once");
        assert_eq!(
            ledger.round_inputs(),
            RoundInputs {
                anchor: Some(1),
                moves: vec![(2, 1)],
            }
        );
        ledger
            .step(5, 2, &moved(5, Some(2)))
            .expect("made again in the round");
        assert_eq!(ledger.round_inputs().moves, [(2, 1), (5, 2)]);
    }

    fn record(turn: u64, undo: Option<UndoRecord>, drew: bool) -> Record {
        Record {
            turn,
            player: String::new(),
            move_text: if undo.is_some() {
                String::new()
            } else {
                "m".into()
            },
            sealed: None,
            undo,
            round: None,
            combined: None,
            history: None,
            opens: Vec::new(),
            draws: if drew {
                vec![Draw::Public { of: 2, pick: 0 }]
            } else {
                Vec::new()
            },
            prev: String::new(),
            state_hash: String::new(),
            hash: String::new(),
            signature: String::new(),
        }
    }

    fn step(
        ledger: &mut Ledger,
        turn: u64,
        seat: Seat,
        undo: Option<(UndoStep, u64)>,
    ) -> Result<Effect, UndoRefused> {
        let undo = undo.map(|(step, turn)| UndoRecord { step, turn });
        ledger.step(turn, seat, &record(turn, undo, false))
    }

    #[test]
    fn the_last_move_is_taken_back_at_once_when_nobody_moved_since() {
        let mut ledger = Ledger::new(2);
        step(&mut ledger, 1, 0, None).expect("move");
        step(&mut ledger, 2, 1, None).expect("move");
        let plan = ledger.plan(1, UndoStep::Undo).expect("allowed");
        assert_eq!(
            plan,
            vec![(
                1,
                UndoRecord {
                    step: UndoStep::Undo,
                    turn: 2
                }
            )]
        );
        assert_eq!(
            step(&mut ledger, 3, 1, Some((UndoStep::Undo, 2))),
            Ok(Effect::Restore { after: 1 })
        );
        assert_eq!(ledger.taken_back(), &[2]);
        // Ann's move is now the last standing; Bob has none left.
        assert!(ledger.plan(1, UndoStep::Undo).is_err());
        assert_eq!(
            ledger.plan(0, UndoStep::Undo).expect("allowed")[0].1.turn,
            1
        );
    }

    #[test]
    fn after_others_moved_every_other_player_must_agree() {
        let mut ledger = Ledger::new(3);
        for (turn, seat) in [(1, 0), (2, 1), (3, 2)] {
            step(&mut ledger, turn, seat, None).expect("move");
        }
        // Ann cannot take back turn 1 without asking.
        assert!(step(&mut ledger, 4, 0, Some((UndoStep::Undo, 1))).is_err());
        assert_eq!(
            ledger.plan(0, UndoStep::Undo).expect("ask")[0].1.step,
            UndoStep::Ask
        );
        step(&mut ledger, 4, 0, Some((UndoStep::Ask, 1))).expect("ask");
        assert_eq!(ledger.waiting_for(), vec![1, 2]);
        // The asker cannot agree, nor anyone twice.
        assert!(ledger.plan(0, UndoStep::Agree).is_err());
        step(&mut ledger, 5, 1, Some((UndoStep::Agree, 1))).expect("agree");
        assert!(ledger.plan(1, UndoStep::Agree).is_err());
        // Not yet: Carl has not agreed.
        assert!(step(&mut ledger, 6, 0, Some((UndoStep::Undo, 1))).is_err());
        let plan = ledger.plan(2, UndoStep::Agree).expect("agree");
        assert_eq!(
            plan,
            vec![
                (
                    2,
                    UndoRecord {
                        step: UndoStep::Agree,
                        turn: 1
                    }
                ),
                (
                    0,
                    UndoRecord {
                        step: UndoStep::Undo,
                        turn: 1
                    }
                ),
            ]
        );
        step(&mut ledger, 6, 2, Some((UndoStep::Agree, 1))).expect("agree");
        assert_eq!(
            step(&mut ledger, 7, 0, Some((UndoStep::Undo, 1))),
            Ok(Effect::Restore { after: 0 })
        );
        assert_eq!(ledger.taken_back(), &[1, 2, 3]);
    }

    #[test]
    fn a_decline_or_a_move_ends_the_request() {
        let mut ledger = Ledger::new(2);
        step(&mut ledger, 1, 0, None).expect("move");
        step(&mut ledger, 2, 1, None).expect("move");
        step(&mut ledger, 3, 0, Some((UndoStep::Ask, 1))).expect("ask");
        step(&mut ledger, 4, 1, Some((UndoStep::Decline, 1))).expect("decline");
        assert!(ledger.pending().is_none());
        assert!(step(&mut ledger, 5, 1, Some((UndoStep::Agree, 1))).is_err());
        step(&mut ledger, 5, 0, Some((UndoStep::Ask, 1))).expect("asked again");
        step(&mut ledger, 6, 0, None).expect("a move");
        assert!(
            ledger.pending().is_none(),
            "the move made the request lapse"
        );
        assert!(ledger.plan(1, UndoStep::Agree).is_err());
    }

    #[test]
    fn a_move_that_drew_is_never_taken_back() {
        let mut ledger = Ledger::new(2);
        ledger.step(1, 0, &record(1, None, true)).expect("move");
        let refusal = ledger.plan(0, UndoStep::Undo).expect_err("drew");
        assert!(refusal.problem.contains("turn 1"), "{refusal}");
        // Nor one that a later move which drew would take back with it.
        let mut ledger = Ledger::new(2);
        step(&mut ledger, 1, 0, None).expect("move");
        ledger.step(2, 1, &record(2, None, true)).expect("move");
        let refusal = ledger.plan(0, UndoStep::Undo).expect_err("drew");
        assert!(refusal.problem.contains("turn 2"), "{refusal}");
        // And the audit refuses one written all the same.
        assert!(ledger
            .step(
                3,
                0,
                &record(
                    3,
                    Some(UndoRecord {
                        step: UndoStep::Ask,
                        turn: 1
                    }),
                    false
                )
            )
            .is_err());
    }
}
