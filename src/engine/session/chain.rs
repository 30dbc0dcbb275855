//! The hash chain and its signatures, checked before any command but the audit reads
//! a file.

use super::Game;
use crate::basics::digest::{hash_from_hex, to_hex, Hash};
use crate::engine::derive::{hex_field, state_hash};
use crate::engine::error::{EngineError, Result};
use crate::engine::file::{hashes, Record};
use crate::engine::rules::Rules;
use crate::engine::signature::signatures_hold;

impl<R: Rules> Game<R> {
    /// The check made before any command but the audit answers from a file (and so
    /// before every move on the full path, and before a reveal): a joined game's
    /// genesis holds its players' words and names its invitation, every record's hash
    /// matches its contents and links to the one before, every signature holds
    /// (genesis and each record; checked in one batch, as the audit does), and the
    /// cached state is the one the head names.
    ///
    /// # Errors
    /// The first thing that does not hold, naming the record.
    pub fn check_chain(&self) -> Result<()> {
        let key = self.referee_key()?;
        let body = self.genesis_body()?;
        let genesis = &self.file.genesis;
        // What the audit checks of a joined game's genesis, so that no command reads
        // or extends a file the audit refuses.
        crate::engine::invitation::check_joined(genesis)?;
        let genesis_state = hex_field("genesis state_hash", &genesis.state_hash)?;
        let genesis_hash = hashes::genesis(&body, &genesis.draws, &genesis_state)
            .ok_or_else(|| EngineError::Malformed("a genesis draw is malformed".into()))?;
        if to_hex(&genesis_hash) != genesis.hash {
            return Err(EngineError::Tampered(
                "genesis does not match its hash".into(),
            ));
        }
        let mut signed = Vec::with_capacity(self.file.records.len() + 1);
        signed.push((genesis_hash, genesis.signature.as_str()));
        let mut prev = genesis_hash;
        for (expected_turn, record) in (1..).zip(&self.file.records) {
            let computed = self.record_hash(record, expected_turn, &prev)?;
            if to_hex(&computed) != record.hash {
                return Err(EngineError::Tampered(format!(
                    "record {} ({}) does not match its hash",
                    record.turn, record.player
                )));
            }
            signed.push((computed, record.signature.as_str()));
            prev = computed;
        }
        let failed: Vec<String> = signatures_hold(&key, &signed)
            .iter()
            .enumerate()
            .filter(|(_, holds)| !**holds)
            .map(|(index, _)| match index {
                0 => "genesis".to_string(),
                turn => format!("record {turn}"),
            })
            .collect();
        match failed.as_slice() {
            [] => {}
            [one] => {
                return Err(EngineError::Tampered(format!(
                    "the signature of {one} does not verify"
                )))
            }
            many => {
                return Err(EngineError::Tampered(format!(
                    "the signatures of {} do not verify",
                    many.join(", ")
                )))
            }
        }
        let head_state = match self.file.records.last() {
            Some(record) => &record.state_hash,
            None => &genesis.state_hash,
        };
        if to_hex(&state_hash(&self.file.state)?) != *head_state {
            return Err(EngineError::Tampered(
                "the stored state is not the state the last record names".into(),
            ));
        }
        Ok(())
    }

    /// A record's hash from its contents, checking its place in the chain.
    pub(crate) fn record_hash(
        &self,
        record: &Record,
        expected_turn: u64,
        prev: &Hash,
    ) -> Result<Hash> {
        if record.turn != expected_turn {
            return Err(EngineError::Tampered(format!(
                "record {expected_turn} says it is turn {}",
                record.turn
            )));
        }
        if hash_from_hex(&record.prev) != Some(*prev) {
            return Err(EngineError::Tampered(format!(
                "record {} ({}) does not link to the record before it",
                record.turn, record.player
            )));
        }
        let after = hex_field("a record's state_hash", &record.state_hash)?;
        hashes::record(self.version, &self.file.genesis.id, record, prev, &after).ok_or_else(|| {
            EngineError::Tampered(format!(
                "record {} has a malformed draw, sealed move or opening",
                record.turn
            ))
        })
    }
}
