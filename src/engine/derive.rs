//! What a game derives from its fixed parts, the same for the referee and the audit:
//! the hash of a state, the game id, the key of the setup's draws and the scope of its
//! keyed derivations; and hashes read from genesis and records.

use super::error::{EngineError, Result};
use super::fairness::{Scope, Seed};
use super::file::{hashes, PlayerEntry, Version};
use crate::basics::digest::{hash_from_hex, to_hex, Hash};

pub(crate) fn state_hash<S: serde::Serialize>(state: &S) -> Result<Hash> {
    let json = serde_json::to_vec(state).map_err(|error| {
        EngineError::Malformed(format!("the state does not serialize: {error}"))
    })?;
    Ok(hashes::state(&json))
}

pub(crate) fn state_hash_of<S: serde::Serialize>(state: &S) -> Result<Hash> {
    state_hash(state)
}

pub(crate) fn hex_field(what: &str, text: &str) -> Result<Hash> {
    hash_from_hex(text).ok_or_else(|| {
        EngineError::Malformed(format!("{what} is not 64 lowercase hexadecimal digits"))
    })
}

/// The short prefix of game ids: the initials of the game's name ("row" for
/// right-of-way).
pub fn id_prefix(game: &str) -> String {
    game.split('-')
        .filter_map(|word| word.chars().next())
        .collect()
}

/// The game id of a new game in format 3: the game's initials and eight hex digits of
/// a hash of the seed and everything fixed with it when the game is made (docs/
/// FAIRNESS.md, "The game id"), so two keyrings given the same seed make two ids.
pub fn game_id_v3(
    seed: &Seed,
    game: &str,
    referee_key: &[u8; 32],
    players: &[PlayerEntry],
    options: &crate::engine::rules::Options,
    rules_hash: &Hash,
    entropy: &[String],
) -> String {
    let mut fields = crate::basics::digest::Fields::hash("pbem/v3/game-id")
        .fixed(&seed.0)
        .text(game)
        .fixed(referee_key)
        .u32(players.len() as u32);
    for player in players {
        fields = fields
            .text(&player.name)
            .text(player.email.as_deref().unwrap_or(""));
    }
    fields = fields.u32(options.len() as u32);
    for (key, value) in options {
        fields = fields.text(key).text(value);
    }
    fields = fields.fixed(rules_hash).u32(entropy.len() as u32);
    for entry in entropy {
        fields = fields.text(entry);
    }
    format!("{}-{}", id_prefix(game), &to_hex(&fields.finish())[..8])
}

/// The key of the setup's draws (turn 0), anchored on the genesis body.
pub(crate) fn setup_key(version: Version, seed: &Seed, game_id: &str, body: &Hash) -> Hash {
    match version {
        Version::V1 => seed.draw_key(game_id, 0, body, "", ""),
        Version::V2 => seed.draw_key_v2(game_id, 0, body, &[]),
        // Format 4 changes only what keys a record's draws: the setup's key is format
        // 3's, bound to a genesis body that names format 4.
        Version::V3 | Version::V4 => seed.setup_key_v3(body),
    }
}

/// What a game's keyed derivations bind besides the seed, in its format.
pub(crate) fn scope_of(version: Version, game_id: &str, body: &Hash) -> Scope {
    match version {
        Version::V3 | Version::V4 => Scope::Body(*body),
        Version::V1 | Version::V2 => Scope::Id(game_id.to_string()),
    }
}
