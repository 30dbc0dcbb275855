//! What keys a record's draws, by format: format 2's run of sealed moves, format 3's
//! rounds, format 4's standing history; and the round a move belongs to.

use super::{unallowed_step, Game};
use crate::basics::digest::Hash;
use crate::engine::derive::hex_field;
use crate::engine::error::{EngineError, Result};
use crate::engine::fairness::Seed;
use crate::engine::file::{Record, Version};
use crate::engine::rounds::{ruled_round, RoundContext};
use crate::engine::rules::{RoundLabel, Rules, Seat};
use crate::engine::undo::Ledger;

impl<R: Rules> Game<R> {
    /// The key of the draws of record `turn`, by `player` with the move `text` (sealed
    /// or not), following the records loaded before it (docs/FAIRNESS.md, "The draw
    /// stream of a turn"). `prev` is the hash of record `turn - 1`.
    ///
    /// In format 2 a move in clear is keyed on the public state it starts from; a
    /// sealed move on the state before its round of consecutive sealed moves and on all
    /// of the round's moves so far, in seat order, so the order they arrived in does
    /// not matter.
    ///
    /// # Errors
    /// A record before it is missing or malformed, or a sealed one does not open.
    pub(crate) fn draw_key(
        &self,
        seed: &Seed,
        turn: u64,
        prev: &Hash,
        player: &str,
        text: &str,
        sealed: bool,
    ) -> Result<Hash> {
        let id = self.file.genesis.id.as_str();
        match self.version {
            Version::V1 => return Ok(seed.draw_key(id, turn, prev, player, text)),
            Version::V2 => {}
            Version::V3 | Version::V4 => {
                return Err(EngineError::Malformed(
                    "formats 3 and 4 key draws by rounds (Game::draw_key_v3, Game::history_v4)"
                        .into(),
                ))
            }
        }
        let mut moves = vec![(
            self.seat_of(player)?,
            turn,
            player.to_string(),
            text.to_string(),
        )];
        let mut before = self
            .file
            .records
            .iter()
            .rev()
            .skip_while(|record| record.turn >= turn);
        let mut expected = turn - 1;
        let mut anchor = None;
        for record in before.by_ref() {
            if record.turn != expected {
                return Err(EngineError::Malformed(format!(
                    "record {expected} is needed to key the draws of turn {turn}"
                )));
            }
            if sealed && record.is_sealed() {
                let text = self.move_of(Some(seed), record)?.unwrap_or_default();
                moves.push((
                    self.seat_of(&record.player)?,
                    record.turn,
                    record.player.clone(),
                    text,
                ));
                expected -= 1;
                continue;
            }
            anchor = Some(record.state_hash.as_str());
            break;
        }
        let anchor = match anchor {
            Some(hash) => hex_field("a record's state_hash", hash)?,
            None if expected == 0 => {
                hex_field("genesis state_hash", &self.file.genesis.state_hash)?
            }
            None => {
                return Err(EngineError::Malformed(format!(
                    "record {expected} is needed to key the draws of turn {turn}"
                )))
            }
        };
        moves.sort_by_key(|(seat, turn, _, _)| (*seat, *turn));
        let pairs: Vec<(&str, &str)> = moves
            .iter()
            .map(|(_, _, player, text)| (player.as_str(), text.as_str()))
            .collect();
        Ok(seed.draw_key_v2(id, turn, &anchor, &pairs))
    }

    /// The key of the draws of the last move standing in `ledger` (format 3): the
    /// genesis body, the hash of the last move standing before its round (genesis's
    /// before the first) and the round's moves in seat order, records of the same seat
    /// by turn. `current` is that move's (turn, player, text) when it is not yet in the
    /// file; the others are read from it (sealed ones opened with the seed).
    ///
    /// # Errors
    /// A record it needs is missing or malformed, or a sealed one does not open.
    pub(crate) fn draw_key_v3(
        &self,
        seed: &Seed,
        ledger: &Ledger,
        current: (u64, &str, &str),
    ) -> Result<Hash> {
        if !ledger.anchor_known() {
            return Err(EngineError::BeyondWindow(format!(
                "the record that keys the draws of turn {}",
                current.0
            )));
        }
        let inputs = ledger.round_inputs();
        // On the fast path only the latest records are loaded (`loaded_record`).
        let anchor = match inputs.anchor {
            None => hex_field("genesis hash", &self.file.genesis.hash)?,
            Some(turn) => hex_field(
                "a record's hash",
                &self.loaded_record(turn, current.0)?.hash,
            )?,
        };
        let mut moves = Vec::with_capacity(inputs.moves.len());
        for (turn, seat) in inputs.moves {
            let text = if turn == current.0 {
                current.2.to_string()
            } else {
                let record = self.loaded_record(turn, current.0)?;
                self.move_of(Some(seed), record)?.unwrap_or_default()
            };
            let player = if turn == current.0 {
                current.1
            } else {
                self.names[seat].as_str()
            };
            moves.push((seat, turn, player.to_string(), text));
        }
        moves.sort_by_key(|(seat, turn, _, _)| (*seat, *turn));
        let pairs: Vec<(&str, &str)> = moves
            .iter()
            .map(|(_, _, player, text)| (player.as_str(), text.as_str()))
            .collect();
        Ok(seed.draw_key_v3(&self.genesis_body()?, &anchor, &pairs))
    }

    /// Formats 3 and 4: the ledger of the records loaded (after the first `earlier`)
    /// with a move of `seat` made now as record `turn`, in `state`, and the round the
    /// rules give it; `before_head` is what decided the head's round, when known.
    ///
    /// # Errors
    /// A step of taking back the records do not allow, or a position that cannot be
    /// replayed.
    pub(crate) fn ledger_with(
        &self,
        seed: Option<&Seed>,
        earlier: u64,
        state: &R::State,
        (turn, seat): (u64, Seat),
        before_head: Option<&RoundContext>,
    ) -> Result<(Ledger, Option<u64>)> {
        let mut ledger = self.ledger_before(earlier)?;
        let round = self.round_for(seed, &ledger, state, (turn, seat), before_head)?;
        let made = Record {
            turn,
            player: self.names[seat].clone(),
            // What the ledger reads of a move: its round, and that it is a move in
            // clear that has drawn nothing yet.
            move_text: "-".into(),
            sealed: None,
            undo: None,
            round,
            combined: None,
            history: None,
            opens: Vec::new(),
            draws: Vec::new(),
            prev: String::new(),
            state_hash: String::new(),
            hash: String::new(),
            signature: String::new(),
        };
        ledger
            .step(turn, seat, &made)
            .map_err(|refused| unallowed_step(&made, &refused))?;
        Ok((ledger, round))
    }

    /// A record loaded now, by turn, needed for what keys the draws of turn `for_turn`.
    /// Searched from the end: on the fast path only the latest records are loaded.
    pub(super) fn loaded_record(&self, turn: u64, for_turn: u64) -> Result<&Record> {
        // The records loaded are consecutive from the first one's turn.
        let first = self.file.records.first().map_or(1, |record| record.turn);
        turn.checked_sub(first)
            .and_then(|at| self.file.records.get(usize::try_from(at).ok()?))
            .filter(|record| record.turn == turn)
            .ok_or_else(|| {
                EngineError::Malformed(format!(
                    "record {turn} is needed to key the draws of turn {for_turn}"
                ))
            })
    }

    /// Format 4: the turn of `seat`'s latest standing move in the round of the last
    /// move standing in `ledger` (which holds the move of `turn` already), other than
    /// `turn` itself: the move a move of `turn` is combined with.
    pub(crate) fn earlier_in_round(&self, ledger: &Ledger, turn: u64, seat: Seat) -> Option<u64> {
        ledger
            .round_inputs()
            .moves
            .iter()
            .rev()
            .find(|&&(other, of)| of == seat && other != turn)
            .map(|&(other, _)| other)
    }

    /// Format 4: what a seat's standing moves of a round up to `record` come to, as
    /// one text: its `combined` where it has one, else its move (a sealed one opened
    /// with the seed).
    ///
    /// # Errors
    /// A sealed move that does not open.
    pub(crate) fn entry_text(
        &self,
        seed: Option<&Seed>,
        record: &Record,
    ) -> Result<Option<String>> {
        match &record.combined {
            Some(combined) => Ok(Some(combined.clone())),
            None => self.move_of(seed, record),
        }
    }

    /// Format 4: the standing history before the round of the last move standing in
    /// `ledger` (record `turn`): that of the move standing just before the round, or
    /// the genesis body when there is none.
    ///
    /// # Errors
    /// That record is missing (outside a window) or has no history.
    pub(crate) fn history_before_round(&self, ledger: &Ledger, turn: u64) -> Result<Hash> {
        if !ledger.anchor_known() {
            return Err(EngineError::BeyondWindow(format!(
                "the record that keys the draws of turn {turn}"
            )));
        }
        match ledger.round_inputs().anchor {
            None => self.genesis_body(),
            Some(anchor) => {
                let record = self.loaded_record(anchor, turn)?;
                let history = record.history.as_deref().ok_or_else(|| {
                    EngineError::Malformed(format!("record {anchor} has no standing history"))
                })?;
                hex_field("a record's history", history)
            }
        }
    }

    /// Format 4: the standing history up to the last move standing in `ledger`
    /// (docs/FAIRNESS.md, "The standing history"): keyed on the history of the last
    /// move standing before its round (the genesis body before the first round) and
    /// the round's moves so far, one entry per seat in seat order, a seat's several
    /// moves being its latest `combined`. `current` is that last move's (turn, player,
    /// its entry) when it is not yet in the file; the others are read from it.
    ///
    /// # Errors
    /// A record it needs is missing (outside a window) or malformed, or a sealed one
    /// does not open.
    pub(crate) fn history_v4(
        &self,
        seed: &Seed,
        ledger: &Ledger,
        current: (u64, &str, &str),
    ) -> Result<Hash> {
        let body = self.genesis_body()?;
        let inputs = ledger.round_inputs();
        let before = self.history_before_round(ledger, current.0)?;
        // The latest move of each seat in the round: a seat's entry.
        let mut latest: Vec<(Seat, u64)> = Vec::new();
        for &(turn, seat) in &inputs.moves {
            match latest.iter_mut().find(|(of, _)| *of == seat) {
                Some(entry) => entry.1 = entry.1.max(turn),
                None => latest.push((seat, turn)),
            }
        }
        latest.sort_unstable();
        let mut entries = Vec::with_capacity(latest.len());
        for (seat, turn) in latest {
            if turn == current.0 {
                entries.push((current.1.to_string(), current.2.to_string()));
            } else {
                let record = self.loaded_record(turn, current.0)?;
                let text = self.entry_text(Some(seed), record)?.unwrap_or_default();
                entries.push((self.names[seat].clone(), text));
            }
        }
        let pairs: Vec<(&str, &str)> = entries
            .iter()
            .map(|(player, text)| (player.as_str(), text.as_str()))
            .collect();
        Ok(seed.history_v4(&body, &before, &pairs))
    }

    /// Format 3: the round a move of `seat` made now belongs to, in `state` (the
    /// position before it) after the records of `ledger`: it continues the round of
    /// the last move standing when that move was made with others still to move, this
    /// seat has not moved in the round, and exactly the round's other seats are still
    /// awaited; else it begins one when several seats are awaited now; else none.
    ///
    /// # Errors
    /// The position before the last move standing cannot be replayed.
    pub(crate) fn round_for(
        &self,
        seed: Option<&Seed>,
        ledger: &Ledger,
        state: &R::State,
        (turn, seat): (u64, Seat),
        before_head: Option<&RoundContext>,
    ) -> Result<Option<u64>> {
        let now = (self.rules.round_label(state), self.rules.to_move(state));
        let head = self.file.records.last().map(|record| record.turn);
        let before_last = match ledger.last_standing() {
            // The position before the head, when the caller kept it: no replay.
            Some((last, _, Some(_))) if now.0 != RoundLabel::Alone => {
                match before_head.filter(|_| Some(last) == head) {
                    Some(known) => Some(known.clone()),
                    None => Some(self.round_context(&self.replay(seed, Some(last - 1))?.state)),
                }
            }
            _ => None,
        };
        Ok(ruled_round(ledger, &now, before_last.as_ref(), turn, seat))
    }

    /// What decides the round of a move made in `state`: its round label and the seats
    /// awaited.
    pub(crate) fn round_context(&self, state: &R::State) -> RoundContext {
        (self.rules.round_label(state), self.rules.to_move(state))
    }
}
