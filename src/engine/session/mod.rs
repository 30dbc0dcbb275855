//! Operations on one game file, generic over the game: create, check, apply, replay,
//! take back, reveal; one file per concern, each adding to [`Game`]. No I/O here
//! except through the [`Keyring`] passed in; reading and writing the file itself is
//! [`crate::basics::store`]'s job.

mod apply;
mod chain;
mod create;
mod history;
mod replay;
mod reveal;
mod take_back;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::VerifyingKey;

use crate::basics::digest::{sha256, to_hex, Hash};
use crate::engine::derive::{hex_field, scope_of};
use crate::engine::error::{EngineError, Result, UndoRefused};
use crate::engine::fairness::{open_box, sealed_commitment, Scope, Seed};
use crate::engine::file::{hashes, version_of, GameFile, Opening, PlayerEntry, Record, Version};
use crate::engine::keyring::Keyring;
use crate::engine::roster::check_distinct_names;
use crate::engine::rounds::RoundContext;
use crate::engine::rules::{Options, ReportLine, Rules, Seat};
use crate::engine::undo::Ledger;

/// What a move would do, worked out without recording it or drawing anything real.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// The move as it would be understood, every default filled in.
    pub understood: String,
    /// Whether the move would be sealed: only its maker may be shown `understood`.
    pub sealed: bool,
    /// The report lines its maker may read, less those that tell what a draw gave.
    pub report: Vec<String>,
    /// How many draws the move would make (their outcome is not known until it is made).
    pub draws: u32,
    /// Why the move would be sent back for confirmation, if it would.
    pub confirm: Option<String>,
    /// The board as its maker would see it after the move; `None` when the move
    /// draws, since the preview's stand-in draws are no outcome to show.
    pub board_after: Option<String>,
}

/// What `pbem new` needs.
#[derive(Debug, Clone, Default)]
pub struct NewGame {
    pub players: Vec<PlayerEntry>,
    pub options: Options,
    /// A fixed seed (tests, reproducible demos); otherwise one from the operating system.
    pub seed: Option<Seed>,
    /// Entropy contributed by players, mixed into every draw.
    pub entropy: Vec<String>,
    /// The file format; `None`: the current one. Only a replay of a game recorded in
    /// an earlier format (format 2) asks for another; the command line never does.
    pub format: Option<Version>,
    /// Rules data other than this pbem's own (`None`: the game's built-in data). Only a
    /// replay of a game recorded under an earlier revision of a game's rules asks for
    /// it; the command line never does.
    pub rules_data: Option<String>,
}

/// A game file in memory with its rules.
pub struct Game<R: Rules> {
    pub rules: R,
    pub file: GameFile<R::State>,
    pub names: Vec<String>,
    /// The file's format version, which decides its hashes and draw keys.
    pub version: Version,
}

impl<R: Rules> Game<R> {
    /// Takes a parsed file, builds its rules from the data it carries.
    ///
    /// # Errors
    /// A format this version does not read, rules data that does not match its hash,
    /// or options the rules refuse.
    pub fn from_file(file: GameFile<R::State>) -> Result<Game<R>> {
        let version = version_of(&file.format, &file.genesis)?;
        if version == Version::V1 && !file.genesis.invitation.is_empty() {
            return Err(EngineError::Malformed(
                "genesis names an invitation, which format 1 has not".into(),
            ));
        }
        let genesis = &file.genesis;
        check_distinct_names(&genesis.players)?;
        for record in &file.records {
            record.check_shape(version)?;
            // A record names its seat by the name exactly as genesis spells it, which
            // its hash and its draw key bind; pbem has only ever written it so.
            if !genesis.players.iter().any(|p| p.name == record.player) {
                return Err(EngineError::Malformed(format!(
                    "record {} names its player {:?}, which is not a player's name as genesis spells it ({})",
                    record.turn,
                    crate::basics::echo::shortened(&record.player, crate::basics::echo::QUOTE_CHARS),
                    genesis
                        .players
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        if genesis.game != R::NAME {
            return Err(EngineError::Malformed(format!(
                "the game is {:?}, not {:?}",
                genesis.game,
                R::NAME
            )));
        }
        if to_hex(&sha256(genesis.rules_data.as_bytes())) != genesis.rules_hash {
            return Err(EngineError::Tampered(
                "the rules data does not match its hash in genesis".into(),
            ));
        }
        let rules = R::from_data(&genesis.rules_data, &genesis.options)?;
        let names = genesis.players.iter().map(|p| p.name.clone()).collect();
        Ok(Game {
            rules,
            file,
            names,
            version,
        })
    }

    /// The referee's public key as bytes, without the cost of decompressing the point.
    fn referee_key_bytes(&self) -> Result<[u8; 32]> {
        BASE64
            .decode(&self.file.genesis.referee_key)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(|| {
                EngineError::Malformed("referee_key is not a base64 Ed25519 public key".into())
            })
    }

    pub(crate) fn referee_key(&self) -> Result<VerifyingKey> {
        VerifyingKey::from_bytes(&self.referee_key_bytes()?).map_err(|_| {
            EngineError::Malformed("referee_key is not a valid Ed25519 public key".into())
        })
    }

    pub(crate) fn genesis_body(&self) -> Result<Hash> {
        let genesis = &self.file.genesis;
        let key = self.referee_key_bytes()?;
        let commitment = hex_field("seed_commitment", &genesis.seed_commitment)?;
        let rules_hash = hex_field("rules_hash", &genesis.rules_hash)?;
        Ok(hashes::genesis_body(
            self.version,
            genesis,
            &key,
            &commitment,
            &rules_hash,
        ))
    }

    /// What the game's keyed derivations bind besides the seed: its id, or in format 3
    /// its genesis body.
    ///
    /// # Errors
    /// A malformed genesis.
    pub(crate) fn scope(&self) -> Result<Scope> {
        let body = match self.version {
            Version::V3 | Version::V4 => self.genesis_body()?,
            Version::V1 | Version::V2 => [0; 32],
        };
        Ok(scope_of(self.version, &self.file.genesis.id, &body))
    }

    /// The seat of a player, by name, ignoring case; `Name <email>` is accepted too.
    ///
    /// # Errors
    /// No such player.
    pub fn seat_of(&self, name: &str) -> Result<Seat> {
        let wanted = name.split('<').next().unwrap_or(name).trim();
        self.names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(wanted))
            .ok_or_else(|| EngineError::UnknownPlayer {
                name: crate::basics::echo::shortened(wanted, crate::basics::echo::QUOTE_CHARS),
                players: self.names.join(", "),
            })
    }

    /// The hash of the head: the last record, or genesis.
    fn head_hash(&self) -> Result<Hash> {
        match self.file.records.last() {
            Some(record) => hex_field("a record's hash", &record.hash),
            None => hex_field("genesis hash", &self.file.genesis.hash),
        }
    }

    /// The text of a record's move: in clear, or sealed and opened by the seed or by a
    /// later record of the file (each checked against the commitment). `None` for a
    /// sealed move nobody can open yet without the seed.
    ///
    /// # Errors
    /// A sealed move that does not open to its commitment.
    pub fn move_of(&self, seed: Option<&Seed>, record: &Record) -> Result<Option<String>> {
        let Some(sealed) = &record.sealed else {
            return Ok(Some(record.move_text.clone()));
        };
        let scope = self.scope()?;
        let commit = hex_field("a sealed move's commitment", &sealed.commit)?;
        let broken = |how: &str| {
            EngineError::Tampered(format!("the sealed move of record {} {how}", record.turn))
        };
        if let Some(seed) = seed {
            let sealed_box = BASE64
                .decode(&sealed.sealed_box)
                .map_err(|_| broken("is not base64"))?;
            let text = open_box(&seed.seal_key_in(&scope, record.turn), &sealed_box)
                .ok_or_else(|| broken("does not decrypt"))?;
            if sealed_commitment(&seed.seal_salt_in(&scope, record.turn), &text) != commit {
                return Err(broken("does not match its commitment"));
            }
            return Ok(Some(text));
        }
        match self.opening_of(record.turn) {
            Some(opening) => {
                let salt = hex_field("an opening's salt", &opening.salt)?;
                if sealed_commitment(&salt, &opening.move_text) != commit {
                    return Err(broken("is opened to a move it did not commit to"));
                }
                Ok(Some(opening.move_text.clone()))
            }
            None => Ok(None),
        }
    }

    /// The opening of record `turn`'s sealed move, if a record of the file holds one.
    pub fn opening_of(&self, turn: u64) -> Option<&Opening> {
        self.file
            .records
            .iter()
            .filter(|record| record.turn > turn)
            .flat_map(|record| &record.opens)
            .find(|opening| opening.turn == turn)
    }

    /// The sealed records of `seat` that no record has opened yet, oldest first.
    fn unopened_of(&self, seat: Seat) -> Vec<&Record> {
        self.file
            .records
            .iter()
            .filter(|record| record.is_sealed() && self.seat_of(&record.player).ok() == Some(seat))
            .filter(|record| self.opening_of(record.turn).is_none())
            .collect()
    }

    /// The seed, from the file if revealed, else from the keyring, checked against the
    /// commitment.
    ///
    /// # Errors
    /// Neither has it, or it does not match the commitment.
    pub fn seed(&self, keyring: Option<&Keyring>) -> Result<Option<Seed>> {
        let seed = match (&self.file.seed, keyring) {
            (Some(text), _) => Some(Seed::from_file_hex(text).ok_or_else(|| {
                EngineError::Malformed(
                    "the revealed seed is not 64 lowercase hexadecimal digits".into(),
                )
            })?),
            (None, Some(keyring)) => keyring.seed_if_present(&self.file.genesis.id)?,
            (None, None) => None,
        };
        if let Some(seed) = &seed {
            if to_hex(&seed.commitment(&self.file.genesis.id)) != self.file.genesis.seed_commitment
            {
                return Err(EngineError::WrongSeed);
            }
        }
        Ok(seed)
    }

    /// The full current state: the cache when the game hides nothing, else a replay.
    pub fn current_state(&self, seed: Option<&Seed>) -> Result<R::State> {
        if R::HAS_HIDDEN_STATE {
            let replay = self.replay(seed, None)?;
            Ok(replay.state)
        } else {
            Ok(self.file.state.clone())
        }
    }

    /// Whether the game, in its current `state`, was revealed before its end (an
    /// abandoned game, `pbem reveal --force`): every later draw is public knowledge, so
    /// no later move could be fair, and none is taken or offered.
    pub fn is_closed(&self, state: &R::State) -> bool {
        self.file.seed.is_some() && !self.rules.is_over(state)
    }

    /// Names joined for messages.
    pub fn names_of(&self, seats: &[Seat]) -> String {
        let names: Vec<&str> = seats.iter().map(|&s| self.names[s].as_str()).collect();
        if names.is_empty() {
            "nobody".to_string()
        } else {
            names.join(", ")
        }
    }
}

/// The result of a move that was applied.
pub struct Applied<S> {
    pub turn: u64,
    /// The seat that moved.
    pub seat: Seat,
    pub over: bool,
    /// The full state after the move.
    pub state: S,
    /// The move as the rules understood it, defaults filled in.
    pub understood: String,
    /// Whether the move was sealed: only its maker may be told what it was.
    pub sealed: bool,
    /// The new record's hash: the mover's receipt.
    pub hash: String,
    /// What the move did, every line with its audience.
    pub report: Vec<ReportLine>,
    /// What decided the round of the move: kept so that the next move need not replay
    /// the game to learn it ([`Known::before_head`]).
    pub before: RoundContext,
}

/// What the caller of a move knows of the position already, so the move need not
/// replay the game to learn it.
pub struct Known<S> {
    /// The full state after the last record.
    pub state: Option<S>,
    /// The round context of the position before the last record, a move.
    pub before_head: Option<RoundContext>,
}

impl<S> Default for Known<S> {
    fn default() -> Self {
        Known {
            state: None,
            before_head: None,
        }
    }
}

/// A state rebuilt by replay, and the turn it stands after.
pub struct Replayed<S> {
    pub state: S,
    pub turn: u64,
}

/// What a step of taking back wrote.
pub struct TakenBack<S> {
    /// The records written: turn, the seat each was written for, the step.
    pub added: Vec<(u64, Seat, crate::engine::file::UndoRecord)>,
    /// The ledger before them (what a request asked for) and after them.
    pub before: Ledger,
    pub after: Ledger,
    /// The full state after them.
    pub state: S,
}

fn unallowed_step(record: &Record, refused: &UndoRefused) -> EngineError {
    EngineError::Tampered(format!(
        "record {} ({}) takes back moves as the game did not allow: {}",
        record.turn, record.player, refused.problem
    ))
}
