//! A move: checked, applied, its draws made and its record signed; or previewed,
//! with nothing recorded and nothing real drawn.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;

use super::{Applied, Game, Known, Preview};
use crate::basics::digest::to_hex;
use crate::engine::derive::state_hash;
use crate::engine::error::{EngineError, KeyringError, Result};
use crate::engine::fairness::{seal_box, sealed_commitment, RecordingChance, TurnDraws};
use crate::engine::file::{hashes, Opening, Record, SealedMove, Version};
use crate::engine::keyring::Keyring;
use crate::engine::move_text::{
    plain, strip_confirm, within, MAX_MOVE_BYTES, MAX_RECORDED_MOVE_BYTES,
};
use crate::engine::rules::{Chance, Rules, Visibility};
use crate::engine::signature::sign;

/// The chance of a preview: every draw gives the first item, and is counted. Nothing of
/// the seed is used, so a preview tells nothing of the real draws.
#[derive(Default)]
struct PreviewChance {
    draws: u32,
}

impl Chance for PreviewChance {
    fn draw(&mut self, _n: u32, _visibility: Visibility) -> u32 {
        self.draws += 1;
        0
    }
}

impl<R: Rules> Game<R> {
    /// Applies one player's move and appends the signed record. On any error nothing in
    /// `self` has changed.
    ///
    /// # Errors
    /// A tampered file, an unknown player, not their turn, a refused move, or a
    /// keyring that is not the game's.
    pub fn apply(
        &mut self,
        keyring: &Keyring,
        player: &str,
        move_text: &str,
    ) -> Result<Applied<R::State>> {
        self.check_chain()?;
        self.apply_to_checked(keyring, player, move_text, 0, Known::default())
    }

    /// [`Game::apply`] on a game whose chain is known to hold: `earlier` records come
    /// before those loaded in `self.file.records` (the driver's fast path loads only
    /// the latest), and `known` is what the caller knows of the position already.
    ///
    /// # Errors
    /// As for [`Game::apply`], but for the chain check.
    pub(crate) fn apply_to_checked(
        &mut self,
        keyring: &Keyring,
        player: &str,
        move_text: &str,
        earlier: u64,
        known: Known<R::State>,
    ) -> Result<Applied<R::State>> {
        let seat = self.seat_of(player)?;
        let key_pair = keyring.signing_key()?;
        if key_pair.verifying_key().to_bytes() != self.referee_key_bytes()? {
            return Err(EngineError::WrongKey);
        }
        let seed = self.seed(Some(keyring))?.ok_or_else(|| {
            EngineError::Keyring(KeyringError::NoSeed {
                game_id: self.file.genesis.id.clone(),
                home: keyring.home().to_path_buf(),
            })
        })?;
        let state = match known.state {
            Some(state) => state,
            None => self.current_state(Some(&seed))?,
        };
        if self.rules.is_over(&state) {
            return Err(EngineError::GameOver);
        }
        if self.is_closed(&state) {
            return Err(EngineError::Closed);
        }
        let waiting = self.rules.to_move(&state);
        if !waiting.contains(&seat) {
            return Err(EngineError::NotYourTurn {
                name: self.names[seat].clone(),
                waiting: self.names_of(&waiting),
            });
        }
        let (confirmed, move_text) = strip_confirm(move_text);
        within("the move", move_text, MAX_MOVE_BYTES, "send the move alone")?;
        // Before the rules read it: what they would echo of it, refusing it or not,
        // must not rearrange the words around it.
        plain("the move", move_text)?;
        let parsed = self.rules.parse_move(&state, seat, move_text)?;
        let mv = self.rules.as_recorded(&state, seat, parsed)?;
        // The record holds the move as the rules understood it, never its spelling: so
        // the draws it keys cannot be steered by writing the same move another way, and
        // nothing the player's mail client left around the move reaches the log.
        let understood = self.rules.canonical_text(&mv);
        within(
            "the move as understood",
            &understood,
            MAX_RECORDED_MOVE_BYTES,
            "a shorter move, each thing said once",
        )?;
        let canonical = self.rules.parse_move(&state, seat, &understood)?;
        if self.rules.canonical_text(&canonical) != understood {
            return Err(EngineError::Malformed(format!(
                "the rules do not read their own text of this move back ({understood:?})"
            )));
        }
        if !confirmed {
            if let Some(reason) = self.rules.needs_confirmation(&state, seat, &mv) {
                return Err(EngineError::NeedsConfirmation { reason, understood });
            }
        }
        let turn = earlier + self.file.records.len() as u64 + 1;
        let prev = self.head_hash()?;
        let name = self.names[seat].clone();
        let id = self.file.genesis.id.clone();
        let scope = self.scope()?;
        let sealed = self.rules.is_sealed(&state, seat);
        let opens = self.rules.opens(&state, seat, &mv);
        if (sealed || !opens.is_empty()) && (self.version == Version::V1 || !R::HAS_HIDDEN_STATE) {
            return Err(EngineError::Malformed(if self.version == Version::V1 {
                "this game's file is format 1, which has no sealed moves".to_string()
            } else {
                format!("{} seals moves but declares no hidden state", R::NAME)
            }));
        }
        if sealed && understood.contains('\0') {
            return Err(EngineError::Malformed(
                "a sealed move's text may not hold a NUL character".into(),
            ));
        }
        let mut openings = Vec::new();
        for &owner in &opens {
            for record in self.unopened_of(owner) {
                let text = self.move_of(Some(&seed), record)?.unwrap_or_default();
                openings.push(Opening {
                    turn: record.turn,
                    move_text: text,
                    salt: to_hex(&seed.seal_salt_in(&scope, record.turn)),
                });
            }
        }
        // In turn order, as docs/FAIRNESS.md lists them, whatever order the rules
        // named the seats in.
        openings.sort_by_key(|opening| opening.turn);
        let (key, round, combined, history) = if self.version.marks_rounds() {
            let (ledger, round) = self.ledger_with(
                Some(&seed),
                earlier,
                &state,
                (turn, seat),
                known.before_head.as_ref(),
            )?;
            if self.version == Version::V3 {
                let key = self.draw_key_v3(&seed, &ledger, (turn, &name, &understood))?;
                (key, round, None, None)
            } else {
                // A seat's second move in a round stands for its moves of the round as
                // one, however many messages they took.
                let combined = match self.earlier_in_round(&ledger, turn, seat) {
                    Some(_) if sealed => {
                        return Err(EngineError::Malformed(format!(
                            "{} seals a second move of one seat in a round, which format 4 cannot combine",
                            R::NAME
                        )))
                    }
                    Some(earlier_turn) => {
                        let earlier = self.loaded_record(earlier_turn, turn)?;
                        let earlier = self.entry_text(Some(&seed), earlier)?.unwrap_or_default();
                        let together = self.rules.combine(&state, seat, &earlier, &mv)?;
                        Some(self.rules.canonical_text(&together))
                    }
                    None => None,
                };
                let entry = combined.as_deref().unwrap_or(&understood);
                let history = self.history_v4(&seed, &ledger, (turn, &name, entry))?;
                let key = seed.draw_key_v4(&self.genesis_body()?, &history);
                (key, round, combined, Some(to_hex(&history)))
            }
        } else {
            let key = self.draw_key(&seed, turn, &prev, &name, &understood, sealed)?;
            (key, None, None, None)
        };
        let draws = TurnDraws {
            seed: &seed,
            scope: &scope,
            turn,
        };
        let mut chance = RecordingChance::new(draws, key);
        // The move the record's text reads as, so that a replay applies exactly what
        // was applied now.
        let next = self.rules.apply(&state, seat, &canonical, &mut chance)?;
        let public = self.rules.public_state(&next);
        if R::HAS_HIDDEN_STATE && !self.answers_alike(&next, &public) {
            return Err(EngineError::Malformed(format!(
                "{}'s public state does not say who is to move, whether the game is over and the scores as its full state does, so views and mail without the keyring would be wrong",
                R::NAME
            )));
        }
        let after = state_hash(&public)?;
        let report = self.rules.report(&state, seat, &mv, &next, &self.names);
        let before = self.round_context(&state);
        let draws = chance.draws;
        let mut record = Record {
            turn,
            player: name,
            move_text: understood.clone(),
            sealed: None,
            undo: None,
            round,
            combined,
            history,
            opens: openings,
            draws,
            prev: to_hex(&prev),
            state_hash: to_hex(&after),
            hash: String::new(),
            signature: String::new(),
        };
        if sealed {
            record.move_text = String::new();
            record.sealed = Some(SealedMove {
                commit: to_hex(&sealed_commitment(
                    &seed.seal_salt_in(&scope, turn),
                    &understood,
                )),
                sealed_box: BASE64.encode(seal_box(&seed.seal_key_in(&scope, turn), &understood)),
            });
        }
        let hash = hashes::record(self.version, &id, &record, &prev, &after)
            .ok_or_else(|| EngineError::Malformed("a draw is malformed".into()))?;
        record.hash = to_hex(&hash);
        record.signature = sign(&key_pair, &hash);
        let over = self.rules.is_over(&next);
        self.file.records.push(record);
        self.file.state = public;
        if over {
            // The promise of docs/FAIRNESS.md: at the end everyone can re-derive every draw.
            self.file.seed = Some(seed.to_hex());
        }
        Ok(Applied {
            turn,
            seat,
            over,
            state: next,
            understood,
            sealed,
            hash: to_hex(&hash),
            report,
            before,
        })
    }

    /// What `player`'s move would do in `state` (the full current state): the move as
    /// understood and its report, with nothing recorded and no real draw made.
    ///
    /// # Errors
    /// As for [`Game::apply`]: not their turn, a move the rules refuse.
    /// `turn` is the number players would read for the move (the moves standing so
    /// far, plus one), for the board drawn after it.
    pub fn preview(
        &self,
        state: &R::State,
        player: &str,
        move_text: &str,
        turn: u64,
    ) -> Result<Preview> {
        let seat = self.seat_of(player)?;
        if self.rules.is_over(state) {
            return Err(EngineError::GameOver);
        }
        if self.is_closed(state) {
            return Err(EngineError::Closed);
        }
        let waiting = self.rules.to_move(state);
        if !waiting.contains(&seat) {
            return Err(EngineError::NotYourTurn {
                name: self.names[seat].clone(),
                waiting: self.names_of(&waiting),
            });
        }
        let (confirmed, move_text) = strip_confirm(move_text);
        within("the move", move_text, MAX_MOVE_BYTES, "send the move alone")?;
        plain("the move", move_text)?;
        let parsed = self.rules.parse_move(state, seat, move_text)?;
        // Echoed as the record would hold it.
        let mv = self.rules.as_recorded(state, seat, parsed)?;
        let understood = self.rules.canonical_text(&mv);
        let confirm = if confirmed {
            None
        } else {
            self.rules.needs_confirmation(state, seat, &mv)
        };
        let mut chance = PreviewChance::default();
        let next = self.rules.apply(state, seat, &mv, &mut chance)?;
        let viewer = crate::engine::rules::Viewer::Player(seat);
        let report = self
            .rules
            .report(state, seat, &mv, &next, &self.names)
            .into_iter()
            .filter(|line| line.seen_by(viewer) && !line.tells_draw)
            .map(|line| line.text)
            .collect();
        let board_after = (chance.draws == 0).then(|| {
            let context = crate::engine::rules::BoardContext {
                viewer,
                names: &self.names,
                turn,
                last_move: Some(crate::engine::rules::LastMove {
                    seat,
                    text: Some(understood.clone()),
                }),
            };
            self.rules.board(&next, &context)
        });
        Ok(Preview {
            understood,
            sealed: self.rules.is_sealed(state, seat),
            report,
            draws: chance.draws,
            confirm,
            board_after,
        })
    }

    /// Whether the public state answers what anyone may ask as the full state does:
    /// who is to move, whether it is over, the scores and the winners (the public view
    /// and the mail loop read them from the stored public state).
    fn answers_alike(&self, full: &R::State, public: &R::State) -> bool {
        let rules = &self.rules;
        rules.to_move(full) == rules.to_move(public)
            && rules.is_over(full) == rules.is_over(public)
            && rules.scores(full) == rules.scores(public)
            && rules.winners(full) == rules.winners(public)
    }
}
