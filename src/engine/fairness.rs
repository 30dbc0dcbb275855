//! Seeds, commitments and the draw derivations (`pbem-draw/1` to `pbem-draw/3`,
//! docs/FAIRNESS.md).
//!
//! The seed is committed in genesis before any player input exists. The draws of each
//! record come from a stream keyed by the seed *and* what the turn resolves: in
//! `pbem-draw/3` the whole genesis, the last move standing before the turn's round and
//! the round's moves in seat order, so the referee cannot steer a draw once the seed is
//! committed (not by spelling, arrival order or taking moves back), and no player can
//! predict one without the seed.

use super::chance::DrawStream;
use super::file::Draw;
use super::rules::{Chance, Visibility};
use crate::basics::digest::{hash_from_any_hex, hash_from_hex, to_hex};
use crate::basics::digest::{Fields, Hash};

/// What every keyed derivation of a game binds besides the seed: its id in formats 1
/// and 2, the hash of its whole genesis body in format 3, so that two games that
/// happen to share a seed (a reused `--seed`) share no keystream, salt or draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Formats 1 and 2: `str(game_id)`.
    Id(String),
    /// Format 3: `h32(genesis body hash)`.
    Body(Hash),
}

/// A game's secret seed. Lives in the referee's keyring until revealed.
#[derive(Clone, PartialEq, Eq)]
pub struct Seed(pub [u8; 32]);

impl std::fmt::Debug for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a seed by accident (logs, error messages).
        f.write_str("Seed(..)")
    }
}

impl Seed {
    /// The public commitment written into genesis.
    pub fn commitment(&self, game_id: &str) -> Hash {
        Fields::hash("pbem/v1/seed-commitment")
            .text(game_id)
            .fixed(&self.0)
            .finish()
    }

    /// The key of the draw stream for one turn. Turn 0 is the setup, anchored on the
    /// genesis body hash with an empty player and move.
    pub fn draw_key(
        &self,
        game_id: &str,
        turn: u64,
        anchor: &Hash,
        player: &str,
        move_text: &str,
    ) -> Hash {
        Fields::keyed(&self.0, "pbem/v1/draw")
            .text(game_id)
            .u64(turn)
            .fixed(anchor)
            .text(player)
            .text(move_text)
            .finish()
    }

    /// The key of the draw stream of one turn, `pbem-draw/2`: keyed on the public state
    /// the turn starts from (`anchor`) and the moves it resolves, in seat order, so the
    /// order in which simultaneous sealed moves arrived cannot change a draw.
    pub fn draw_key_v2(
        &self,
        game_id: &str,
        turn: u64,
        anchor: &Hash,
        moves: &[(&str, &str)],
    ) -> Hash {
        let mut fields = Fields::keyed(&self.0, "pbem/v2/draw")
            .text(game_id)
            .u64(turn)
            .fixed(anchor)
            .u32(u32::try_from(moves.len()).unwrap_or(u32::MAX));
        for (player, move_text) in moves {
            fields = fields.text(player).text(move_text);
        }
        fields.finish()
    }

    /// The key of the setup's draws, `pbem-draw/3`: the whole genesis body.
    pub fn setup_key_v3(&self, body: &Hash) -> Hash {
        Fields::keyed(&self.0, "pbem/v3/setup").fixed(body).finish()
    }

    /// The key of one record's draws, `pbem-draw/3`: the genesis body, the hash of the
    /// last move standing before the record's round (`anchor`, the genesis hash when
    /// there is none) and the round's moves in seat order. A move taken back is no
    /// longer standing, so the same move from the same position draws the same however
    /// many moves were taken back on the way; the order simultaneous moves arrived in
    /// changes nothing.
    pub fn draw_key_v3(&self, body: &Hash, anchor: &Hash, moves: &[(&str, &str)]) -> Hash {
        let mut fields = Fields::keyed(&self.0, "pbem/v3/draw")
            .fixed(body)
            .fixed(anchor)
            .u32(u32::try_from(moves.len()).unwrap_or(u32::MAX));
        for (player, move_text) in moves {
            fields = fields.text(player).text(move_text);
        }
        fields.finish()
    }

    /// The standing history up to a move, `pbem-draw/4`: keyed, since it covers the
    /// text of sealed moves not yet opened, which a plain hash over a few possible
    /// choices would give away. `before` is the history of the last move standing
    /// before the move's round (the genesis body for the first round), `entries` the
    /// round's moves so far, one per seat in seat order, each (player, text) with a
    /// seat's several moves of the round combined into one.
    pub fn history_v4(&self, body: &Hash, before: &Hash, entries: &[(&str, &str)]) -> Hash {
        let mut fields = Fields::keyed(&self.0, "pbem/v4/history")
            .fixed(body)
            .fixed(before)
            .u32(u32::try_from(entries.len()).unwrap_or(u32::MAX));
        for (player, text) in entries {
            fields = fields.text(player).text(text);
        }
        fields.finish()
    }

    /// The key of one record's draws, `pbem-draw/4`: the genesis body and the standing
    /// history up to and including the record's move ([`Seed::history_v4`]), so that
    /// the draws follow from the standing moves alone.
    pub fn draw_key_v4(&self, body: &Hash, history: &Hash) -> Hash {
        Fields::keyed(&self.0, "pbem/v4/draw")
            .fixed(body)
            .fixed(history)
            .finish()
    }

    /// The key of the stream a bot's seat chooses its move with (docs/FAIRNESS.md,
    /// "Bots' seats"): the genesis body, the standing history before the round the
    /// move belongs to, the seat, how many of the seat's moves already stand in that
    /// round (`n`), and the bot's name and version as genesis names it (`search/1`).
    /// Nothing in it comes from the system, so the referee cannot run the bot again
    /// for another choice, and anyone holding the seed can play it again.
    pub fn bot_key(&self, body: &Hash, history: &Hash, seat: u32, n: u32, bot_id: &str) -> Hash {
        Fields::keyed(&self.0, "pbem/v4/bot")
            .fixed(body)
            .fixed(history)
            .u32(seat)
            .u32(n)
            .text(bot_id)
            .finish()
    }

    /// A keyed derivation of `domain` bound to the game by `scope`: `pbem/v2/NAME` with
    /// the game id, or `pbem/v3/NAME` with the genesis body.
    fn scoped(&self, scope: &Scope, name: &str) -> Fields<hmac::Hmac<sha2::Sha256>> {
        match scope {
            Scope::Id(id) => Fields::keyed(&self.0, &format!("pbem/v2/{name}")).text(id),
            Scope::Body(body) => Fields::keyed(&self.0, &format!("pbem/v3/{name}")).fixed(body),
        }
    }

    /// [`Seed::seal_salt`] in any format.
    pub fn seal_salt_in(&self, scope: &Scope, turn: u64) -> Hash {
        self.scoped(scope, "seal-salt").u64(turn).finish()
    }

    /// [`Seed::seal_key`] in any format.
    pub fn seal_key_in(&self, scope: &Scope, turn: u64) -> Hash {
        self.scoped(scope, "seal-key").u64(turn).finish()
    }

    /// [`Seed::salt`] in any format: `pbem/v1/salt` with the game id in formats 1 and
    /// 2, `pbem/v3/salt` with the genesis body in format 3.
    pub fn salt_in(&self, scope: &Scope, turn: u64, index: u32) -> Hash {
        match scope {
            Scope::Id(id) => self.salt(id, turn, index),
            Scope::Body(body) => Fields::keyed(&self.0, "pbem/v3/salt")
                .fixed(body)
                .u64(turn)
                .u32(index)
                .finish(),
        }
    }

    /// The salt of record `turn`'s sealed move: opened with the move, it proves the move
    /// is the one committed to.
    pub fn seal_salt(&self, game_id: &str, turn: u64) -> Hash {
        Fields::keyed(&self.0, "pbem/v2/seal-salt")
            .text(game_id)
            .u64(turn)
            .finish()
    }

    /// The key that encrypts record `turn`'s sealed move: derived from the seed, so the
    /// referee needs nothing but the seed to read it back, and everyone can after the
    /// reveal.
    pub fn seal_key(&self, game_id: &str, turn: u64) -> Hash {
        Fields::keyed(&self.0, "pbem/v2/seal-key")
            .text(game_id)
            .u64(turn)
            .finish()
    }

    /// The salt of the `index`-th draw of a turn, for hidden draws' commitments.
    pub fn salt(&self, game_id: &str, turn: u64, index: u32) -> Hash {
        Fields::keyed(&self.0, "pbem/v1/salt")
            .text(game_id)
            .u64(turn)
            .u32(index)
            .finish()
    }

    pub fn to_hex(&self) -> String {
        to_hex(&self.0)
    }

    /// A seed as a person or the keyring writes it: 64 hex digits in either case,
    /// surrounding white space ignored.
    pub fn from_hex(text: &str) -> Option<Seed> {
        hash_from_any_hex(text.trim()).map(Seed)
    }

    /// A revealed seed as the game file must hold it: exactly 64 lowercase hex digits.
    pub fn from_file_hex(text: &str) -> Option<Seed> {
        hash_from_hex(text).map(Seed)
    }
}

/// The commitment to a hidden draw's outcome.
pub fn hidden_commitment(salt: &Hash, of: u32, pick: u32) -> Hash {
    Fields::hash("pbem/v1/hidden-draw")
        .fixed(salt)
        .u32(of)
        .u32(pick)
        .finish()
}

/// The commitment to a sealed move's text.
pub fn sealed_commitment(salt: &Hash, move_text: &str) -> Hash {
    Fields::hash("pbem/v2/sealed-move")
        .fixed(salt)
        .text(move_text)
        .finish()
}

/// Sealed moves are padded to a multiple of this many bytes, so the length of the
/// encrypted text does not tell one choice from another.
pub const SEAL_BLOCK: usize = 64;

/// A sealed move's text encrypted: its bytes, zero bytes up to the next multiple of
/// [`SEAL_BLOCK`] (at least one), XORed with the ChaCha20 keystream of `key`.
pub fn seal_box(key: &Hash, move_text: &str) -> Vec<u8> {
    let padded = (move_text.len() / SEAL_BLOCK + 1) * SEAL_BLOCK;
    let mut bytes = move_text.as_bytes().to_vec();
    bytes.resize(padded, 0);
    DrawStream::new(*key).apply_keystream(&mut bytes);
    bytes
}

/// The text of a box [`seal_box`] made with `key`; `None` when it is not one.
pub fn open_box(key: &Hash, sealed: &[u8]) -> Option<String> {
    if sealed.is_empty() || !sealed.len().is_multiple_of(SEAL_BLOCK) {
        return None;
    }
    let mut bytes = sealed.to_vec();
    DrawStream::new(*key).apply_keystream(&mut bytes);
    let end = bytes.iter().position(|&b| b == 0)?;
    if bytes[end..].iter().any(|&b| b != 0) {
        return None;
    }
    bytes.truncate(end);
    String::from_utf8(bytes).ok()
}

/// Where one turn's draws are coming from and going to.
pub struct TurnDraws<'a> {
    pub seed: &'a Seed,
    pub scope: &'a Scope,
    pub turn: u64,
}

/// The chance source of a live turn: derives draws from the seed and writes them down.
pub struct RecordingChance<'a> {
    turn: TurnDraws<'a>,
    stream: DrawStream,
    pub draws: Vec<Draw>,
}

impl<'a> RecordingChance<'a> {
    /// `key` is the turn's draw key (`Game::draw_key`, docs/FAIRNESS.md).
    pub fn new(turn: TurnDraws<'a>, key: Hash) -> Self {
        RecordingChance {
            turn,
            stream: DrawStream::new(key),
            draws: Vec::new(),
        }
    }
}

impl Chance for RecordingChance<'_> {
    fn draw(&mut self, n: u32, visibility: Visibility) -> u32 {
        let pick = self.stream.index(n);
        let draw = match visibility {
            Visibility::Public => Draw::Public { of: n, pick },
            Visibility::Hidden => {
                let index = self.draws.len() as u32;
                let salt = self
                    .turn
                    .seed
                    .salt_in(self.turn.scope, self.turn.turn, index);
                Draw::Hidden {
                    of: n,
                    commit: to_hex(&hidden_commitment(&salt, n, pick)),
                }
            }
        };
        self.draws.push(draw);
        pick
    }
}

/// What went wrong when replaying recorded draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayMismatch {
    /// The rules asked for more draws than the record holds.
    Missing { index: usize },
    /// The rules asked for a range other than the one recorded.
    Range {
        index: usize,
        recorded: u32,
        asked: u32,
    },
    /// A hidden draw, and no seed to open it.
    Sealed { index: usize },
    /// A recorded pick outside its range.
    OutOfRange { index: usize },
}

/// The chance source of a replay without the seed: hands back the recorded picks.
///
/// A chance source cannot fail, so a mismatch is remembered, a harmless 0 returned, and
/// the caller checks [`ReplayChance::finish`].
pub struct ReplayChance<'a> {
    draws: &'a [Draw],
    seed: Option<(&'a Seed, &'a Scope, u64)>,
    next: usize,
    pub mismatch: Option<ReplayMismatch>,
}

impl<'a> ReplayChance<'a> {
    /// `seed` (with the game's scope and turn) opens hidden draws; without it a hidden
    /// draw fails.
    pub fn new(draws: &'a [Draw], seed: Option<(&'a Seed, &'a Scope, u64)>) -> Self {
        ReplayChance {
            draws,
            seed,
            next: 0,
            mismatch: None,
        }
    }

    /// `Ok` when every recorded draw was used exactly as recorded.
    pub fn finish(self) -> Result<(), ReplayMismatch> {
        match self.mismatch {
            Some(mismatch) => Err(mismatch),
            None if self.next < self.draws.len() => {
                Err(ReplayMismatch::Missing { index: self.next })
            }
            None => Ok(()),
        }
    }

    fn fail(&mut self, mismatch: ReplayMismatch) -> u32 {
        self.mismatch.get_or_insert(mismatch);
        0
    }
}

impl Chance for ReplayChance<'_> {
    fn draw(&mut self, n: u32, _visibility: Visibility) -> u32 {
        let index = self.next;
        self.next += 1;
        let Some(draw) = self.draws.get(index) else {
            return self.fail(ReplayMismatch::Missing { index });
        };
        if draw.range() != n {
            let recorded = draw.range();
            return self.fail(ReplayMismatch::Range {
                index,
                recorded,
                asked: n,
            });
        }
        match draw {
            Draw::Public { pick, .. } if *pick < n => *pick,
            Draw::Public { .. } => self.fail(ReplayMismatch::OutOfRange { index }),
            Draw::Hidden { commit, .. } => {
                let Some((seed, scope, turn)) = self.seed else {
                    return self.fail(ReplayMismatch::Sealed { index });
                };
                let salt = seed.salt_in(scope, turn, index as u32);
                // Open the commitment by trying each possible pick: ranges are small.
                let found =
                    (0..n).find(|&pick| to_hex(&hidden_commitment(&salt, n, pick)) == *commit);
                match found {
                    Some(pick) => pick,
                    None => self.fail(ReplayMismatch::OutOfRange { index }),
                }
            }
        }
    }
}

/// Why recorded draws did not replay, in words (shared with the audit).
pub(crate) fn mismatch_text(mismatch: &ReplayMismatch) -> String {
    match mismatch {
        ReplayMismatch::Missing { index } => {
            format!("the rules ask for draw {index}, which is not recorded")
        }
        ReplayMismatch::Range {
            index,
            recorded,
            asked,
        } => {
            format!("draw {index} is recorded out of {recorded}, the rules draw out of {asked}")
        }
        ReplayMismatch::Sealed { index } => {
            format!("draw {index} is hidden and the seed is not revealed")
        }
        ReplayMismatch::OutOfRange { index } => format!("draw {index} is not a possible outcome"),
    }
}

#[cfg(test)]
mod tests {
    use hmac::{Hmac, Mac};
    use sha2::Sha256;

    use super::Seed;

    /// The bot key is the HMAC docs/FAIRNESS.md spells out field by field.
    #[test]
    fn the_bot_key_is_the_documented_hmac() {
        let seed = Seed(std::array::from_fn(|i| i as u8));
        let body = [0xb0; 32];
        let history = [0x4b; 32];
        let mut mac = Hmac::<Sha256>::new_from_slice(&seed.0).expect("any key length");
        let domain = b"pbem/v4/bot";
        mac.update(&(domain.len() as u32).to_be_bytes());
        mac.update(domain);
        mac.update(&body);
        mac.update(&history);
        mac.update(&2u32.to_be_bytes());
        mac.update(&1u32.to_be_bytes());
        mac.update(&8u32.to_be_bytes());
        mac.update(b"search/1");
        let expected: [u8; 32] = mac.finalize().into_bytes().into();
        assert_eq!(seed.bot_key(&body, &history, 2, 1, "search/1"), expected);
        assert_ne!(seed.bot_key(&body, &history, 2, 1, "search/2"), expected);
        assert_ne!(seed.bot_key(&body, &history, 2, 0, "search/1"), expected);
    }
}
