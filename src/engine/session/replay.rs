//! Replaying the log from genesis with its recorded draws: states, reports, and the
//! ledger of taking back moves.

use super::{unallowed_step, Game, Replayed};
use crate::engine::error::{EngineError, Result, UndoRefused};
use crate::engine::fairness::{mismatch_text, ReplayChance, ReplayMismatch, Seed};
use crate::engine::file::Record;
use crate::engine::rules::{ReportLine, Rules, Seat};
use crate::engine::undo::{undo_line, Effect, Ledger};

impl<R: Rules> Game<R> {
    /// Replays the log from genesis, with recorded draws (and the seed, when given, to
    /// open hidden ones), stopping after `upto` records if given.
    ///
    /// # Errors
    /// A record whose move or draws no longer replay.
    pub fn replay(&self, seed: Option<&Seed>, upto: Option<u64>) -> Result<Replayed<R::State>> {
        self.replay_visiting(seed, upto, |_, _, _, _, _| {})
    }

    /// The report of every record, in order, by a replay from genesis (with the seed,
    /// when given, for a game with hidden state).
    ///
    /// # Errors
    /// As for [`Game::replay`].
    pub fn reports(&self, seed: Option<&Seed>) -> Result<Vec<Vec<ReportLine>>> {
        let mut reports: Vec<Vec<ReportLine>> = self
            .file
            .records
            .iter()
            .map(|record| match record.undo {
                Some(undo) => vec![ReportLine::everyone(undo_line(&record.player, undo))],
                None => Vec::new(),
            })
            .collect();
        self.replay_visiting(seed, None, |record, seat, before, mv, after| {
            if let Some(lines) = reports.get_mut(record.turn as usize - 1) {
                *lines = self.rules.report(before, seat, mv, after, &self.names);
            }
        })?;
        Ok(reports)
    }

    /// [`Game::replay`], calling `visit` with each record, its seat, the state before
    /// it, its move and the state after it.
    ///
    /// # Errors
    /// As for [`Game::replay`].
    pub fn replay_visiting(
        &self,
        seed: Option<&Seed>,
        upto: Option<u64>,
        mut visit: impl FnMut(&Record, Seat, &R::State, &R::Move, &R::State),
    ) -> Result<Replayed<R::State>> {
        let names = &self.names;
        let scope = self.scope()?;
        let mut chance = ReplayChance::new(&self.file.genesis.draws, seed.map(|s| (s, &scope, 0)));
        let mut state = self.rules.setup(names, &mut chance)?;
        chance.finish().map_err(|m| replay_error(0, &m))?;
        let limit = upto.unwrap_or(u64::MAX);
        let mut turn = 0;
        let mut ledger = Ledger::new(names.len());
        // The position after every record, kept only where an undo may return to one.
        let restores = self.file.records.iter().any(|r| {
            r.undo
                .is_some_and(|u| u.step == crate::engine::file::UndoStep::Undo)
        });
        let mut positions = Vec::new();
        if restores {
            positions.push(state.clone());
        }
        for record in self.file.records.iter().take_while(|r| r.turn <= limit) {
            let seat = self.seat_of(&record.player)?;
            let effect = ledger
                .step(record.turn, seat, record)
                .map_err(|refused| unallowed_step(record, &refused))?;
            if let Effect::Restore { after } = effect {
                state = positions.get(after as usize).cloned().ok_or_else(|| {
                    unallowed_step(
                        record,
                        &UndoRefused {
                            problem: format!("there is no position after turn {after}"),
                            accepted: String::new(),
                        },
                    )
                })?;
            }
            if effect != Effect::Move {
                if restores {
                    positions.push(state.clone());
                }
                turn = record.turn;
                continue;
            }
            let text = self.move_of(seed, record)?.ok_or_else(|| {
                EngineError::NeedsKeyring(format!(
                    "the position after turn {}, which follows {}'s sealed move of turn {},",
                    limit.min(self.file.records.len() as u64),
                    record.player,
                    record.turn
                ))
            })?;
            let mv = self.rules.parse_move(&state, seat, &text)?;
            let mut chance =
                ReplayChance::new(&record.draws, seed.map(|s| (s, &scope, record.turn)));
            let next = self.rules.apply(&state, seat, &mv, &mut chance)?;
            chance.finish().map_err(|m| replay_error(record.turn, &m))?;
            visit(record, seat, &state, &mv, &next);
            state = next;
            if restores {
                positions.push(state.clone());
            }
            turn = record.turn;
        }
        Ok(Replayed { state, turn })
    }

    /// The ledger after the records loaded, `earlier` records coming before them: the
    /// whole file's, or on the fast path that of the window of latest records read
    /// ([`Ledger::after`]), which holds no step of taking back.
    ///
    /// # Errors
    /// A step the records do not allow, or one of taking back in a window.
    pub(crate) fn ledger_before(&self, earlier: u64) -> Result<Ledger> {
        if earlier == 0 {
            return self.ledger();
        }
        let mut ledger = Ledger::after(self.names.len(), earlier);
        for record in &self.file.records {
            if record.undo.is_some() {
                return Err(EngineError::BeyondWindow(format!(
                    "the moves record {} takes back",
                    record.turn
                )));
            }
            let seat = self.seat_of(&record.player)?;
            ledger
                .step(record.turn, seat, record)
                .map_err(|refused| unallowed_step(record, &refused))?;
        }
        Ok(ledger)
    }

    /// The ledger of taking back moves after every record of the file (which must be
    /// read whole).
    ///
    /// # Errors
    /// A step of taking back the records before it do not allow.
    pub fn ledger(&self) -> Result<Ledger> {
        let mut ledger = Ledger::new(self.names.len());
        for record in &self.file.records {
            let seat = self.seat_of(&record.player)?;
            ledger
                .step(record.turn, seat, record)
                .map_err(|refused| unallowed_step(record, &refused))?;
        }
        Ok(ledger)
    }

    /// The state after `turn` records (all when `None`), as `viewer` may need it.
    ///
    /// # Errors
    /// A turn beyond the log, or a replay that fails.
    pub fn state_at(&self, seed: Option<&Seed>, turn: Option<u64>) -> Result<Replayed<R::State>> {
        let last = self.file.records.len() as u64;
        match turn {
            Some(turn) if turn > last => Err(EngineError::Usage(format!(
                "turn {turn} has not been played; this game has turns 0 to {last}"
            ))),
            Some(turn) if turn < last || R::HAS_HIDDEN_STATE => self.replay(seed, Some(turn)),
            None if R::HAS_HIDDEN_STATE => self.replay(seed, None),
            _ => Ok(Replayed {
                state: self.file.state.clone(),
                turn: last,
            }),
        }
    }
}

fn replay_error(turn: u64, mismatch: &ReplayMismatch) -> EngineError {
    let what = mismatch_text(mismatch);
    if let ReplayMismatch::Sealed { .. } = mismatch {
        // Not a fault of the file: a hidden draw opens only with the seed.
        return EngineError::NeedsKeyring(if turn == 0 {
            "the position after the setup, whose hidden draws open only with the seed,".into()
        } else {
            format!("the position after turn {turn}, whose hidden draws open only with the seed,")
        });
    }
    if turn == 0 {
        EngineError::Tampered(format!("the setup does not replay: {what}"))
    } else {
        EngineError::Tampered(format!("record {turn} does not replay: {what}"))
    }
}
