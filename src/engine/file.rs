//! The game file schema: the only module that knows its layout. Version in `format`.
//!
//! The file is public and self-contained: genesis, an append-only log of signed records,
//! the seed once revealed, and a cache of the public state after the last record.
//! It never holds a secret: the seed appears only as a commitment until the reveal.

use serde::{Deserialize, Serialize};

use super::digest::{Fields, Hash};
use super::rules::Options;

/// The value of `format` this version reads and writes.
pub const FORMAT: &str = "pbem.game/1";
/// The value of `draw_algorithm`: the derivation in docs/FAIRNESS.md.
pub const DRAW_ALGORITHM: &str = "pbem-draw/1";

/// A whole game file, generic over the game's state type.
///
/// Unknown fields are refused everywhere in the schema: a renamed key (`"seed"` spelt
/// otherwise, say) would otherwise read as an absent one and pass unnoticed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameFile<S> {
    pub format: String,
    pub genesis: Genesis,
    pub records: Vec<Record>,
    /// The game's seed in hex, once revealed (at the end of the game or by `pbem reveal`).
    pub seed: Option<String>,
    /// The public state after the last record: a cache that replay must reproduce.
    pub state: S,
}

/// A player as listed at the start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// Everything fixed before the first move, signed by the referee.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Genesis {
    pub game: String,
    pub id: String,
    pub engine: String,
    pub players: Vec<PlayerEntry>,
    pub options: Options,
    /// SHA-256 of `rules_data`, hex.
    pub rules_hash: String,
    /// The rules data (components, option defaults) the game is played with.
    pub rules_data: String,
    /// The referee's Ed25519 public key, base64.
    pub referee_key: String,
    /// Commitment to the 32-byte seed, hex (docs/FAIRNESS.md).
    pub seed_commitment: String,
    pub draw_algorithm: String,
    /// Entropy contributed by players at the start, mixed into every draw.
    #[serde(default)]
    pub entropy: Vec<String>,
    /// Draws made by the setup (city layout, opening hands).
    pub draws: Vec<Draw>,
    /// Hash of the public state after setup, hex.
    pub state_hash: String,
    /// The genesis hash, hex: what record 1 names as `prev`.
    pub hash: String,
    /// The referee's signature over the genesis hash, base64.
    pub signature: String,
}

/// One move: who, what, when, what it drew, and the chain that binds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// 1-based: the record number, which is also the turn the move was made for.
    pub turn: u64,
    pub player: String,
    /// The move text exactly as submitted.
    #[serde(rename = "move")]
    pub move_text: String,
    pub draws: Vec<Draw>,
    /// Hash of the previous record (the genesis hash for turn 1), hex.
    pub prev: String,
    /// Hash of the public state after this move, hex.
    pub state_hash: String,
    /// This record's hash, hex.
    pub hash: String,
    /// The referee's signature over `hash`, base64.
    pub signature: String,
}

/// One outcome of the chance source, as the file shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Draw {
    /// An index `pick` in `0..of`, in clear.
    Public { of: u32, pick: u32 },
    /// An index in `0..of`, known only through a salted commitment until the reveal.
    Hidden { of: u32, commit: String },
}

impl std::fmt::Display for Draw {
    /// `pick/of`, or `?/of` for a hidden draw.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Draw::Public { of, pick } => write!(f, "{pick}/{of}"),
            Draw::Hidden { of, .. } => write!(f, "?/{of}"),
        }
    }
}

/// Draws as `pick/of` separated by spaces; "none" for none.
pub fn draws_text(draws: &[Draw]) -> String {
    if draws.is_empty() {
        return "none".to_string();
    }
    draws
        .iter()
        .map(Draw::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

impl Draw {
    pub fn range(&self) -> u32 {
        match self {
            Draw::Public { of, .. } | Draw::Hidden { of, .. } => *of,
        }
    }
}

/// The hashes of docs/FAIRNESS.md, in one place.
pub mod hashes {
    use super::*;
    use crate::engine::digest::hash_from_hex;

    /// Feeds a list of draws: a count, then per draw a kind byte, the range and the pick
    /// (public) or the 32-byte commitment (hidden).
    fn draws<D: crate::engine::digest::Sink>(
        mut fields: Fields<D>,
        draws: &[Draw],
    ) -> Option<Fields<D>> {
        let count = u32::try_from(draws.len()).ok()?;
        fields = fields.u32(count);
        for draw in draws {
            fields = match draw {
                Draw::Public { of, pick } => fields.u8(0).u32(*of).u32(*pick),
                Draw::Hidden { of, commit } => fields.u8(1).u32(*of).fixed(&hash_from_hex(commit)?),
            };
        }
        Some(fields)
    }

    /// The genesis body: everything in genesis but draws, state, hash and signature.
    /// Setup draws are keyed by it, so it cannot depend on them.
    pub fn genesis_body(
        genesis: &Genesis,
        referee_key: &[u8; 32],
        commitment: &Hash,
        rules_hash: &Hash,
    ) -> Hash {
        let mut fields = Fields::hash("pbem/v1/genesis-body")
            .text(FORMAT)
            .text(&genesis.game)
            .text(&genesis.id)
            .text(&genesis.engine)
            .u32(genesis.players.len() as u32);
        for player in &genesis.players {
            fields = fields
                .text(&player.name)
                .text(player.email.as_deref().unwrap_or(""));
        }
        fields = fields.u32(genesis.options.len() as u32);
        for (key, value) in &genesis.options {
            fields = fields.text(key).text(value);
        }
        fields = fields
            .fixed(rules_hash)
            .fixed(referee_key)
            .fixed(commitment)
            .text(&genesis.draw_algorithm)
            .u32(genesis.entropy.len() as u32);
        for contribution in &genesis.entropy {
            fields = fields.text(contribution);
        }
        fields.finish()
    }

    /// The genesis hash: the body, the setup draws and the state after setup.
    pub fn genesis(body: &Hash, setup_draws: &[Draw], state_hash: &Hash) -> Option<Hash> {
        let fields = Fields::hash("pbem/v1/genesis").fixed(body);
        Some(draws(fields, setup_draws)?.fixed(state_hash).finish())
    }

    /// A record's hash.
    pub fn record(
        game_id: &str,
        turn: u64,
        prev: &Hash,
        player: &str,
        move_text: &str,
        record_draws: &[Draw],
        state_hash: &Hash,
    ) -> Option<Hash> {
        let fields = Fields::hash("pbem/v1/record")
            .text(game_id)
            .u64(turn)
            .fixed(prev)
            .text(player)
            .text(move_text);
        Some(draws(fields, record_draws)?.fixed(state_hash).finish())
    }

    /// The hash of a state: its compact JSON as pbem writes it.
    pub fn state(json: &[u8]) -> Hash {
        Fields::hash("pbem/v1/state").bytes(json).finish()
    }
}
