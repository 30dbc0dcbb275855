//! `pbem new --join`: a game whose setup waits for its players.
//!
//! The referee commits the seed first, in a signed invitation mailed to every player;
//! each player's acceptance brings words of their own, and only when all have joined is
//! the setup drawn, keyed on a genesis that holds every player's words. A referee who
//! fixed the seed before seeing them cannot choose it to suit them, so the setup cannot
//! be ground as it can when `--entropy` values are known before the seed is chosen.
//!
//! Until then the game's file holds the invitation (format `pbem.invitation/1`),
//! which nothing but `pbem join` and the mail loop's joins change.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};

use super::error::{EngineError, Result};
use super::file::{hashes, Genesis, Version};
use super::roster::check_distinct_names;
use crate::basics::digest::{hash_from_hex, to_hex, Fields, Hash};

/// The `format` of an invitation file.
pub const INVITATION_FORMAT: &str = "pbem.invitation/1";

/// The most a player's words may hold: they go into genesis, and every mail.
pub const MAX_ENTROPY_CHARS: usize = 200;

/// A game waiting for its players.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invitation {
    pub format: String,
    /// Genesis as it will be, without the players' words, the setup's draws and the
    /// state: `hash` is the invitation's hash (docs/FAIRNESS.md) and `signature` the
    /// referee's over it.
    pub genesis: Genesis,
    /// The players who joined so far, in the order they did.
    pub joined: Vec<Join>,
}

/// One player's acceptance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Join {
    pub player: String,
    /// Their words, mixed into every draw of the game.
    pub entropy: String,
}

/// What a join did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Joined {
    /// The player joined; these are still to.
    Waiting(Vec<String>),
    /// The player joined, and everyone has.
    Complete,
    /// The player had joined before, with these words.
    Already(String),
}

/// Only the format, to tell an invitation from a game file before reading either.
#[derive(Deserialize)]
struct FormatOnly {
    format: String,
}

/// Whether `bytes` hold an invitation (rather than a game file).
pub fn is_invitation(bytes: &[u8]) -> bool {
    serde_json::from_slice::<FormatOnly>(bytes).is_ok_and(|f| f.format == INVITATION_FORMAT)
}

fn invitation_hash(genesis: &Genesis) -> Result<Hash> {
    let key = BASE64
        .decode(&genesis.referee_key)
        .ok()
        .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
        .ok_or_else(|| EngineError::Malformed("referee_key is not a base64 key".into()))?;
    let hex = |what: &str, text: &str| {
        hash_from_hex(text).ok_or_else(|| {
            EngineError::Malformed(format!("{what} is not 64 lowercase hexadecimal digits"))
        })
    };
    // The body of the game the invitation becomes, in that game's format: format 2
    // for invitations written before format 3, whose draw algorithm says so.
    let version = Version::of_new_game(&genesis.draw_algorithm)?;
    let body = hashes::genesis_body(
        version,
        genesis,
        &key,
        &hex("seed_commitment", &genesis.seed_commitment)?,
        &hex("rules_hash", &genesis.rules_hash)?,
    );
    Ok(Fields::hash("pbem/v2/invitation").fixed(&body).finish())
}

impl Invitation {
    /// Signs a prepared genesis as an invitation.
    ///
    /// # Errors
    /// A malformed genesis.
    pub fn sign(mut genesis: Genesis, key: &SigningKey) -> Result<Invitation> {
        let hash = invitation_hash(&genesis)?;
        genesis.hash = to_hex(&hash);
        genesis.signature = BASE64.encode(key.sign(&hash).to_bytes());
        Ok(Invitation {
            format: INVITATION_FORMAT.to_string(),
            genesis,
            joined: Vec::new(),
        })
    }

    /// Reads an invitation file.
    ///
    /// # Errors
    /// Not an invitation, or one that does not hold together.
    pub fn parse(bytes: &[u8]) -> Result<Invitation> {
        let invitation: Invitation = serde_json::from_slice(bytes)
            .map_err(|error| EngineError::Malformed(format!("not a pbem invitation: {error}")))?;
        if invitation.format != INVITATION_FORMAT {
            return Err(EngineError::Malformed(format!(
                "format {:?} is not an invitation ({INVITATION_FORMAT:?})",
                invitation.format
            )));
        }
        invitation.check()?;
        Ok(invitation)
    }

    /// The file's bytes: JSON on one line per part.
    ///
    /// # Errors
    /// Something does not serialize.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out =
            serde_json::to_vec(self).map_err(|error| EngineError::Malformed(format!("{error}")))?;
        out.push(b'\n');
        Ok(out)
    }

    /// Checks the hash and the referee's signature, and that every join is a player's,
    /// once.
    ///
    /// # Errors
    /// What does not hold.
    pub fn check(&self) -> Result<()> {
        let genesis = &self.genesis;
        if !genesis.invitation.is_empty() {
            return Err(EngineError::Tampered(
                "the invitation names an invitation of its own".into(),
            ));
        }
        let hash = invitation_hash(genesis)?;
        if to_hex(&hash) != genesis.hash {
            return Err(EngineError::Tampered(
                "the invitation does not match its hash".into(),
            ));
        }
        let key = BASE64
            .decode(&genesis.referee_key)
            .ok()
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .and_then(|bytes| VerifyingKey::from_bytes(&bytes).ok());
        let signature = BASE64
            .decode(&genesis.signature)
            .ok()
            .and_then(|bytes| <[u8; 64]>::try_from(bytes).ok())
            .map(|bytes| Signature::from_bytes(&bytes));
        let holds = match (key, signature) {
            (Some(key), Some(signature)) => key.verify_strict(&hash, &signature).is_ok(),
            _ => false,
        };
        if !holds {
            return Err(EngineError::Tampered(
                "the referee's signature on the invitation does not verify".into(),
            ));
        }
        check_distinct_names(&genesis.players)?;
        for (i, join) in self.joined.iter().enumerate() {
            let seat = self.seat_of(&join.player).ok_or_else(|| {
                EngineError::Tampered(format!("{} joined, but is not a player", join.player))
            })?;
            if self.joined[..i]
                .iter()
                .any(|j| self.seat_of(&j.player) == Some(seat))
            {
                return Err(EngineError::Tampered(format!(
                    "{} joined twice",
                    join.player
                )));
            }
        }
        Ok(())
    }

    fn seat_of(&self, name: &str) -> Option<usize> {
        self.genesis
            .players
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(name.trim()))
    }

    /// The players still to join, in seat order.
    pub fn waiting(&self) -> Vec<String> {
        self.genesis
            .players
            .iter()
            .filter(|p| {
                !self
                    .joined
                    .iter()
                    .any(|j| j.player.eq_ignore_ascii_case(&p.name))
            })
            .map(|p| p.name.clone())
            .collect()
    }

    /// Records `player`'s acceptance with their words.
    ///
    /// # Errors
    /// Not a player, or words that are empty, too long or hold a character a move may
    /// not (`move_text::plain`).
    pub fn join(&mut self, player: &str, entropy: &str) -> Result<Joined> {
        let seat = self
            .seat_of(player)
            .ok_or_else(|| EngineError::UnknownPlayer {
                name: crate::basics::echo::shortened(
                    player.trim(),
                    crate::basics::echo::QUOTE_CHARS,
                ),
                players: self
                    .genesis
                    .players
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let name = self.genesis.players[seat].name.clone();
        if let Some(earlier) = self.joined.iter().find(|j| j.player == name) {
            return Ok(Joined::Already(earlier.entropy.clone()));
        }
        // Before the white space is made one space: a line separator is refused as in
        // a move, not quietly made a space. Genesis and every player's welcome show
        // the words.
        super::move_text::plain("the words", entropy)?;
        let words = entropy.split_whitespace().collect::<Vec<_>>().join(" ");
        if words.is_empty() || words.chars().count() > MAX_ENTROPY_CHARS {
            return Err(EngineError::Usage(format!(
                "to join, give a few words of your own (1 to {MAX_ENTROPY_CHARS} characters), e.g. --entropy \"blue heron 42\"; they are mixed into every draw of the game"
            )));
        }
        self.joined.push(Join {
            player: name,
            entropy: words,
        });
        let waiting = self.waiting();
        Ok(if waiting.is_empty() {
            Joined::Complete
        } else {
            Joined::Waiting(waiting)
        })
    }

    /// The genesis of the game once everyone has joined (without setup, hash or
    /// signature): the players' words after the referee's entropy, in seat order, and
    /// the invitation's hash.
    ///
    /// # Errors
    /// A player has not joined.
    pub fn genesis_of_game(&self) -> Result<Genesis> {
        let mut genesis = self.genesis.clone();
        for player in &self.genesis.players {
            let join = self
                .joined
                .iter()
                .find(|j| j.player == player.name)
                .ok_or_else(|| EngineError::Usage(format!("{} has not joined", player.name)))?;
            genesis
                .entropy
                .push(format!("{}: {}", player.name, join.entropy));
        }
        genesis.invitation = self.genesis.hash.clone();
        genesis.hash = String::new();
        genesis.signature = String::new();
        Ok(genesis)
    }
}

/// For a game the players joined: that its genesis holds the invitation it names
/// (rebuilt from genesis without the players' words) and one entry of words per
/// player, in seat order. `Ok(None)` for a game started at once.
///
/// # Errors
/// What does not hold.
pub fn check_joined(genesis: &Genesis) -> Result<Option<String>> {
    if genesis.invitation.is_empty() {
        return Ok(None);
    }
    let players = genesis.players.len();
    let Some(own) = genesis.entropy.len().checked_sub(players) else {
        return Err(EngineError::Tampered(
            "genesis holds fewer entropy entries than players".into(),
        ));
    };
    for (player, entry) in genesis.players.iter().zip(&genesis.entropy[own..]) {
        if !entry.starts_with(&format!("{}: ", player.name)) {
            return Err(EngineError::Tampered(format!(
                "genesis holds no words of {} where the seat's are due",
                player.name
            )));
        }
    }
    let mut invited = genesis.clone();
    invited.entropy.truncate(own);
    invited.invitation = String::new();
    if to_hex(&invitation_hash(&invited)?) != genesis.invitation {
        return Err(EngineError::Tampered(
            "genesis is not the game of the invitation it names".into(),
        ));
    }
    Ok(Some(genesis.invitation.clone()))
}
