//! Taking back moves with consent: a player's word about it written as signed
//! records.

use super::{Game, TakenBack};
use crate::basics::digest::to_hex;
use crate::engine::derive::state_hash;
use crate::engine::error::{EngineError, KeyringError, Result, UndoRefused};
use crate::engine::file::{hashes, Record, Version};
use crate::engine::keyring::Keyring;
use crate::engine::rules::Rules;
use crate::engine::signature::sign;
use crate::engine::undo::{Effect, Ledger};

impl<R: Rules> Game<R> {
    /// `player`'s word `word` about taking back moves (`Undo` to take back their last
    /// move, at once or by asking; `Agree` or `Decline` to answer a request), written
    /// as signed records: one, or two when the last agreement completes the undo. The
    /// file must be read whole. On any error nothing in `self` has changed.
    ///
    /// # Errors
    /// A tampered file, an unknown player, a game that is over, format 1, a word the
    /// game does not allow now ([`EngineError::Undo`]), or a keyring that is not the
    /// game's.
    pub fn take_back(
        &mut self,
        keyring: &Keyring,
        player: &str,
        word: crate::engine::file::UndoStep,
    ) -> Result<TakenBack<R::State>> {
        let seat = self.seat_of(player)?;
        let key_pair = keyring.signing_key()?;
        if key_pair.verifying_key().to_bytes() != self.referee_key_bytes()? {
            return Err(EngineError::WrongKey);
        }
        if self.version == Version::V1 {
            return Err(EngineError::Undo(UndoRefused {
                problem: "this game's file is format 1, which cannot record taking back moves"
                    .into(),
                accepted: "send your move".into(),
            }));
        }
        let seed = self.seed(Some(keyring))?.ok_or_else(|| {
            EngineError::Keyring(KeyringError::NoSeed {
                game_id: self.file.genesis.id.clone(),
                home: keyring.home().to_path_buf(),
            })
        })?;
        let mut state = self.current_state(Some(&seed))?;
        if self.rules.is_over(&state) {
            return Err(EngineError::GameOver);
        }
        if self.is_closed(&state) {
            return Err(EngineError::Closed);
        }
        let mut ledger = self.ledger()?;
        let plan = ledger.plan(seat, word).map_err(EngineError::Undo)?;
        let before = ledger.clone();
        let id = self.file.genesis.id.clone();
        let mut added = Vec::new();
        for (writer, undo) in plan {
            let turn = self.file.records.len() as u64 + 1;
            let prev = self.head_hash()?;
            let mut record = Record {
                turn,
                player: self.names[writer].clone(),
                move_text: String::new(),
                sealed: None,
                undo: Some(undo),
                round: None,
                combined: None,
                history: None,
                opens: Vec::new(),
                draws: Vec::new(),
                prev: to_hex(&prev),
                state_hash: String::new(),
                hash: String::new(),
                signature: String::new(),
            };
            if let Effect::Restore { after } = ledger
                .step(turn, writer, &record)
                .map_err(EngineError::Undo)?
            {
                state = self.replay(Some(&seed), Some(after))?.state;
            }
            let public = self.rules.public_state(&state);
            let after = state_hash(&public)?;
            record.state_hash = to_hex(&after);
            let hash =
                hashes::record(self.version, &id, &record, &prev, &after).ok_or_else(|| {
                    EngineError::Malformed("a step of taking back is malformed".into())
                })?;
            record.hash = to_hex(&hash);
            record.signature = sign(&key_pair, &hash);
            added.push((turn, writer, undo));
            self.file.records.push(record);
            self.file.state = public;
        }
        Ok(TakenBack {
            added,
            before,
            after: ledger,
            state,
        })
    }

    /// The moves a step of taking back concerns: (turn, player, text) of every move
    /// standing from `from` on, in `ledger`.
    pub fn moves_from(&self, ledger: &Ledger, from: u64) -> Vec<(u64, String, String)> {
        ledger
            .standing_from(from)
            .into_iter()
            .map(|(turn, seat)| {
                let text = self
                    .file
                    .records
                    .get(turn as usize - 1)
                    .map(|r| r.move_text.clone())
                    .unwrap_or_default();
                (turn, self.names[seat].clone(), text)
            })
            .collect()
    }
}
