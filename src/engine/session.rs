//! Operations on one game file, generic over the game: create, check, apply, replay,
//! audit, reveal. No I/O here except through the [`Keyring`] passed in; reading and
//! writing the file itself is [`crate::basics::store`]'s job.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};

use super::fairness::{
    open_box, seal_box, sealed_commitment, RecordingChance, ReplayChance, ReplayMismatch, Scope,
    Seed, TurnDraws,
};
use super::file::{
    hashes, version_of, GameFile, Genesis, Opening, PlayerEntry, Record, SealedMove, Version,
};
use super::invitation::Invitation;
use super::keyring::{random_bytes, Keyring, KeyringError};
use super::players::{find as find_bot, BotId, BotPlayers};
use super::rules::{Chance, Options, ReportLine, RoundLabel, RuleError, Rules, Seat, Visibility};
use super::undo::{Effect, Ledger, UndoRefused};
use crate::basics::digest::{hash_from_hex, sha256, to_hex, Hash};

/// Why an operation on a game file failed. Messages say what was wrong and what would
/// be accepted; none carries a secret.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Refused(#[from] RuleError),
    #[error("the game file is not valid: {0}")]
    Malformed(String),
    #[error("the game file has been altered: {0}; restore it from a copy (every player's mail carries the signed head) and run `pbem audit`")]
    Tampered(String),
    #[error("no player is called {name:?}; the players are {players}")]
    UnknownPlayer { name: String, players: String },
    #[error("it is not {name}'s turn; waiting for {waiting}, whose turn notice will come first")]
    NotYourTurn { name: String, waiting: String },
    #[error("the game is over; no more moves are accepted (`pbem show` has the result)")]
    GameOver,
    #[error("the seed of this game has been revealed (`pbem reveal`), so anyone could predict its draws; it is closed to moves (start a new game with `pbem new`)")]
    Closed,
    #[error(transparent)]
    Keyring(#[from] KeyringError),
    #[error("this keyring's signing key is not the one that signed the game; set PBEM_HOME to the referee's keyring")]
    WrongKey,
    #[error("the seed in the keyring does not match the game's commitment; set PBEM_HOME to the keyring that created the game")]
    WrongSeed,
    #[error("{0} needs the referee's keyring, which holds the game's seed; run it where PBEM_HOME is the keyring that created the game (anyone can once the game ends and the seed is revealed)")]
    NeedsKeyring(String),
    #[error("{0}")]
    Usage(String),
    /// The fast path of a move read only the latest records, and the move needs an
    /// earlier one: the caller reads the whole file and makes the move again.
    #[error("the move needs {0}, before the records read; read the whole file")]
    BeyondWindow(String),
    /// A step of taking back moves the game does not allow now.
    #[error(transparent)]
    Undo(UndoRefused),
    /// A bot's seat is to move, and the referee's machine does not play its bot.
    #[error("{0}")]
    BotNotPlayed(String),
    /// The rules ask the player to confirm the move before it is made.
    #[error("{reason}; to make it as it stands, send it again starting with `confirm`: confirm {understood}")]
    NeedsConfirmation { reason: String, understood: String },
}

/// The word that, before a move, confirms it ([`Rules::needs_confirmation`]).
pub const CONFIRM: &str = "confirm";

/// A move text without a leading `confirm`, and whether it had one.
pub fn strip_confirm(move_text: &str) -> (bool, &str) {
    let trimmed = move_text.trim_start();
    let word_end = trimmed
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(trimmed.len());
    if trimmed[..word_end].eq_ignore_ascii_case(CONFIRM) {
        let rest = trimmed[word_end..].trim_start_matches([':', ' ', '\t', '\n', '\r']);
        (true, rest)
    } else {
        (false, move_text)
    }
}

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

pub type Result<T, E = EngineError> = std::result::Result<T, E>;

/// Refuses `text` (what `what` names) longer than `most` bytes, saying what would do.
fn within(what: &str, text: &str, most: usize, accepted: &str) -> Result<()> {
    if text.len() <= most {
        return Ok(());
    }
    Err(RuleError::new(
        format!(
            "{what} is {} bytes long; at most {most} are taken",
            text.len()
        ),
        accepted,
    )
    .into())
}

/// The most a player's move may hold as sent: a turn is a few lines of text.
pub const MAX_MOVE_BYTES: usize = 16 * 1024;

/// The most a move's canonical text may hold in a record (docs/FAIRNESS.md): every
/// game's longest turn is far shorter, so a longer one can only be padding.
pub const MAX_RECORDED_MOVE_BYTES: usize = 4096;

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

fn sign(key: &SigningKey, hash: &Hash) -> String {
    BASE64.encode(key.sign(hash).to_bytes())
}

fn state_hash<S: serde::Serialize>(state: &S) -> Result<Hash> {
    let json = serde_json::to_vec(state).map_err(|error| {
        EngineError::Malformed(format!("the state does not serialize: {error}"))
    })?;
    Ok(hashes::state(&json))
}

fn hex_field(what: &str, text: &str) -> Result<Hash> {
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

impl<R: Rules> Game<R> {
    /// Starts a game: fixes and commits the seed, runs the setup, signs genesis.
    ///
    /// # Errors
    /// Bad options or player count, or a keyring that cannot be written.
    pub fn create(request: NewGame, keyring: &Keyring) -> Result<Game<R>> {
        Self::create_played(request, keyring, &[])
    }

    /// [`Game::create`] with seats that the built-in players `bots` (those the
    /// referee's machine plays, each at its version) may take: a player given as
    /// `bot:NAME` or `bot:NAME/VERSION` names one, and genesis records it as
    /// `bot:NAME/VERSION`.
    ///
    /// # Errors
    /// As for [`Game::create`]; a bot's seat not one of `bots`.
    pub fn create_played(request: NewGame, keyring: &Keyring, bots: &[BotId]) -> Result<Game<R>> {
        let (rules, genesis, seed) = Self::prepare(request, keyring, bots)?;
        let game = Self::found(rules, genesis, &seed, keyring)?;
        keyring.store_seed(&game.file.genesis.id, &seed)?;
        Ok(game)
    }

    /// Invites the players to a game (`pbem new --join`): genesis as it will be but for
    /// the players' entropy and the setup, with the seed committed and stored now,
    /// before any player contributes; the setup waits for every player to join.
    ///
    /// # Errors
    /// As for [`Game::create`].
    pub fn invite(request: NewGame, keyring: &Keyring) -> Result<Invitation> {
        // A bot has no words of its own to join with: no seat of an invitation is one.
        let (rules, genesis, seed) = Self::prepare(request, keyring, &[])?;
        // The player count and options are checked now, not when the last one joins:
        // a setup with stand-in draws, thrown away.
        let names: Vec<String> = genesis.players.iter().map(|p| p.name.clone()).collect();
        rules.setup(&names, &mut super::chance::DrawStream::for_testing(0))?;
        let key = keyring.signing_key()?;
        let invitation = Invitation::sign(genesis, &key)?;
        keyring.store_seed(&invitation.genesis.id, &seed)?;
        Ok(invitation)
    }

    /// The game an invitation becomes once every player has joined: its genesis with
    /// the players' entropy, in seat order, after the referee's, and the invitation's
    /// hash; the setup's draws keyed on that.
    ///
    /// # Errors
    /// A tampered invitation, players still to join, or the keyring without the seed.
    pub fn accept(invitation: &Invitation, keyring: &Keyring) -> Result<Game<R>> {
        invitation.check()?;
        let waiting = invitation.waiting();
        if !waiting.is_empty() {
            return Err(EngineError::Usage(format!(
                "{} still to join; the game starts when every player has",
                waiting.join(", ")
            )));
        }
        let genesis = invitation.genesis_of_game()?;
        let rules = R::from_data(&genesis.rules_data, &genesis.options)?;
        let seed = keyring.seed(&genesis.id)?;
        if to_hex(&seed.commitment(&genesis.id)) != genesis.seed_commitment {
            return Err(EngineError::WrongSeed);
        }
        Self::found(rules, genesis, &seed, keyring)
    }

    /// The rules, a genesis without setup, hash or signature, and the seed of a new
    /// game whose bots' seats `bots` may take.
    fn prepare(
        mut request: NewGame,
        keyring: &Keyring,
        bots: &[BotId],
    ) -> Result<(R, Genesis, Seed)> {
        let rules_data = request
            .rules_data
            .clone()
            .unwrap_or_else(|| R::DEFAULT_DATA.to_string());
        let rules = R::from_data(&rules_data, &request.options)?;
        if request.players.is_empty() {
            return Err(EngineError::Usage(
                "a game needs players; give each with --player NAME".into(),
            ));
        }
        check_players(&request.players, bots)?;
        request.players = with_bot_versions(std::mem::take(&mut request.players), bots);
        let seed = match request.seed {
            Some(seed) => seed,
            None => Seed(random_bytes()?),
        };
        let version = request.format.unwrap_or(Version::V4);
        if !version.seals() {
            return Err(EngineError::Usage(format!(
                "a new game is made in {}, {} or {}",
                Version::V4.format(),
                Version::V3.format(),
                Version::V2.format()
            )));
        }
        let key = keyring.create_signing_key()?;
        let referee_key = key.verifying_key().to_bytes();
        let rules_hash = sha256(rules_data.as_bytes());
        let options = rules.options();
        // The id is derived from the seed and what is fixed with it, so a fixed seed
        // and key give a reproducible game, while the same seed in another keyring or
        // for other players does not give the same id (and so the same commitment);
        // four bytes of a hash reveal nothing usable about the seed.
        let id = match version {
            Version::V3 | Version::V4 => game_id_v3(
                &seed,
                R::NAME,
                &referee_key,
                &request.players,
                &options,
                &rules_hash,
                &request.entropy,
            ),
            _ => {
                let id_hash = crate::basics::digest::Fields::hash("pbem/v1/game-id")
                    .fixed(&seed.0)
                    .finish();
                format!("{}-{}", id_prefix(R::NAME), &to_hex(&id_hash)[..8])
            }
        };
        let commitment = seed.commitment(&id);
        let genesis = Genesis {
            game: R::NAME.to_string(),
            id,
            engine: format!("pbem {}", env!("CARGO_PKG_VERSION")),
            players: request.players,
            options,
            rules_hash: to_hex(&rules_hash),
            rules_data,
            referee_key: BASE64.encode(referee_key),
            seed_commitment: to_hex(&commitment),
            draw_algorithm: version.draw_algorithm().to_string(),
            entropy: request.entropy,
            invitation: String::new(),
            draws: Vec::new(),
            state_hash: String::new(),
            hash: String::new(),
            signature: String::new(),
        };
        Ok((rules, genesis, seed))
    }

    /// Runs the setup of a prepared genesis, keyed on its body, and signs it.
    fn found(rules: R, mut genesis: Genesis, seed: &Seed, keyring: &Keyring) -> Result<Game<R>> {
        // Format 3 for every new game; an invitation made before it becomes the
        // format-2 game its draw algorithm promised.
        let version = Version::of_new_game(&genesis.draw_algorithm)?;
        let key = keyring.signing_key()?;
        let referee_key = key.verifying_key().to_bytes();
        let commitment = hex_field("seed_commitment", &genesis.seed_commitment)?;
        let rules_hash = hex_field("rules_hash", &genesis.rules_hash)?;
        let body = hashes::genesis_body(version, &genesis, &referee_key, &commitment, &rules_hash);
        let names: Vec<String> = genesis.players.iter().map(|p| p.name.clone()).collect();
        let id = genesis.id.clone();
        let scope = scope_of(version, &id, &body);
        let turn = TurnDraws {
            seed,
            scope: &scope,
            turn: 0,
        };
        let setup = setup_key(version, seed, &id, &body);
        let mut chance = RecordingChance::new(turn, setup);
        let state = rules.setup(&names, &mut chance)?;
        let public = rules.public_state(&state);
        let after = state_hash(&public)?;
        let hash = hashes::genesis(&body, &chance.draws, &after)
            .ok_or_else(|| EngineError::Malformed("a setup draw is malformed".into()))?;
        genesis.draws = chance.draws;
        genesis.state_hash = to_hex(&after);
        genesis.hash = to_hex(&hash);
        genesis.signature = sign(&key, &hash);
        Ok(Game {
            rules,
            names,
            version,
            file: GameFile {
                format: version.format().to_string(),
                genesis,
                records: Vec::new(),
                seed: None,
                state: public,
            },
        })
    }

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

    /// The game id format 3 derives from `seed` and genesis (docs/FAIRNESS.md, "The
    /// game id"), for the audit to compare with the one genesis names.
    ///
    /// # Errors
    /// A malformed genesis.
    pub(crate) fn derived_id(&self, seed: &Seed) -> Result<String> {
        let genesis = &self.file.genesis;
        let own = if genesis.invitation.is_empty() {
            genesis.entropy.len()
        } else {
            genesis.entropy.len().saturating_sub(genesis.players.len())
        };
        Ok(game_id_v3(
            seed,
            &genesis.game,
            &self.referee_key_bytes()?,
            &genesis.players,
            &genesis.options,
            &hex_field("rules_hash", &genesis.rules_hash)?,
            &genesis.entropy[..own],
        ))
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
        super::invitation::check_joined(genesis)?;
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
    fn loaded_record(&self, turn: u64, for_turn: u64) -> Result<&Record> {
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
    /// before those loaded in `self.file.records` (the fast path of
    /// [`crate::engine::driver`] loads only the latest), and `known` is what the
    /// caller knows of the position already.
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
    /// `turn` is the number the move would get (records so far, plus one), for the
    /// board drawn after it.
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
        let viewer = super::rules::Viewer::Player(seat);
        let report = self
            .rules
            .report(state, seat, &mv, &next, &self.names)
            .into_iter()
            .filter(|line| line.seen_by(viewer) && !line.tells_draw)
            .map(|line| line.text)
            .collect();
        let board_after = (chance.draws == 0).then(|| {
            let context = super::rules::BoardContext {
                viewer,
                names: &self.names,
                turn,
                last_move: Some(super::rules::LastMove {
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

    /// Reveals the seed into the file (the end of a game does this by itself).
    ///
    /// # Errors
    /// No seed in the keyring, or one that does not match.
    pub fn reveal(&mut self, keyring: &Keyring) -> Result<()> {
        self.check_chain()?;
        let seed = self.seed(Some(keyring))?.ok_or_else(|| {
            EngineError::Keyring(KeyringError::NoSeed {
                game_id: self.file.genesis.id.clone(),
                home: keyring.home().to_path_buf(),
            })
        })?;
        self.file.seed = Some(seed.to_hex());
        Ok(())
    }

    /// Checks everything that can be checked and reports turn by turn. The moves of
    /// bots' seats are not checked against their bots: see [`Game::audit_played`].
    pub fn audit(&self, keyring: Option<&Keyring>) -> AuditReport {
        super::audit::audit(self, keyring, None)
    }

    /// [`Game::audit`], with every move of a bot's seat played again by `bots` (those
    /// the referee's machine plays) where the game keys them on the seed.
    pub fn audit_played(
        &self,
        keyring: Option<&Keyring>,
        bots: Option<&dyn BotPlayers<R>>,
    ) -> AuditReport {
        super::audit::audit(self, keyring, bots)
    }
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

/// A step of taking back in a sentence, as the log and the reports say it.
pub fn undo_line(player: &str, undo: crate::engine::file::UndoRecord) -> String {
    use crate::engine::file::UndoStep;
    let turn = undo.turn;
    match undo.step {
        UndoStep::Ask => format!("{player} asks to take back turn {turn} and the moves after it"),
        UndoStep::Agree => format!("{player} agrees to take back turn {turn}"),
        UndoStep::Decline => format!("{player} declines to take back turn {turn}"),
        UndoStep::Undo => format!(
            "turn {turn} and any moves after it taken back at {player}'s request: the game stands as after turn {}",
            turn - 1
        ),
    }
}

fn unallowed_step(record: &Record, refused: &UndoRefused) -> EngineError {
    EngineError::Tampered(format!(
        "record {} ({}) takes back moves as the game did not allow: {}",
        record.turn, record.player, refused.problem
    ))
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

/// What decides the round of a move made in a position: the rules' round label there,
/// and the seats awaited (see [`ruled_round`]).
pub type RoundContext = (RoundLabel, Vec<Seat>);

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

pub use super::audit::AuditReport;

/// A signature as the game file stores it (base64 of 64 bytes), if it is one.
fn decode_signature(text: &str) -> Option<Signature> {
    let bytes = BASE64.decode(text).ok()?;
    Some(Signature::from_bytes(&<[u8; 64]>::try_from(bytes).ok()?))
}

fn signature_holds(key: &VerifyingKey, hash: &Hash, signature: &str) -> bool {
    decode_signature(signature).is_some_and(|signature| key.verify_strict(hash, &signature).is_ok())
}

/// Whether each signature by `key` holds over its hash, in order.
///
/// They are checked in one batch first (ed25519-dalek's batch verification, with
/// coefficients drawn from a transcript of every input), which takes well under half
/// the time of checking them one by one, and signatures are most of an audit's work.
/// Only when the batch fails is each checked alone, strictly, to name the ones that do
/// not hold. A batch passes exactly when every signature was made with the key over its
/// hash (a forgery or a changed byte gets through with probability about 2^-128); it
/// differs from strict one-by-one checking only for signatures the key's holder built
/// with a small-order component on purpose, which prove nothing more than ordinary ones.
pub(crate) fn signatures_hold(key: &VerifyingKey, signed: &[(Hash, &str)]) -> Vec<bool> {
    let decoded: Option<Vec<Signature>> = signed
        .iter()
        .map(|(_, text)| decode_signature(text))
        .collect();
    if let Some(signatures) = decoded.filter(|_| !key.is_weak()) {
        let messages: Vec<&[u8]> = signed.iter().map(|(hash, _)| hash.as_slice()).collect();
        let keys = vec![*key; signed.len()];
        if ed25519_dalek::verify_batch(&messages, &signatures, &keys).is_ok() {
            return vec![true; signed.len()];
        }
    }
    signed
        .iter()
        .map(|(hash, text)| signature_holds(key, hash, text))
        .collect()
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

/// The round the rules give a move of `seat` as record `turn` (docs/FAIRNESS.md,
/// "Rounds"): `now` is the round label and the seats awaited in the position before it,
/// `before_last` those before the last move standing when it belongs to a round.
pub(crate) fn ruled_round(
    ledger: &Ledger,
    now: &(RoundLabel, Vec<Seat>),
    before_last: Option<&(RoundLabel, Vec<Seat>)>,
    turn: u64,
    seat: Seat,
) -> Option<u64> {
    let last = ledger.last_standing();
    let open = last.and_then(|(_, last_seat, round)| Some((last_seat, round?)));
    match (now.0, open, before_last) {
        (RoundLabel::Alone, _, _) => None,
        (RoundLabel::Phase(phase), Some((_, round)), Some((RoundLabel::Phase(was), _)))
            if phase == *was =>
        {
            Some(round)
        }
        (RoundLabel::Phase(_), _, _) => Some(turn),
        (RoundLabel::ByWhoMoves, Some((last_seat, round)), Some((RoundLabel::ByWhoMoves, was)))
            if !ledger.round_seats().contains(&seat) && continues_round(was, last_seat, &now.1) =>
        {
            Some(round)
        }
        (RoundLabel::ByWhoMoves, _, _) => (now.1.len() >= 2).then_some(turn),
    }
}

/// Whether a move continues the round of the last move standing: that move (of
/// `last_seat`) was made while `before` were awaited, several of them, and now exactly
/// the others are.
pub(crate) fn continues_round(before: &[Seat], last_seat: Seat, now: &[Seat]) -> bool {
    let mut rest: Vec<Seat> = before.iter().copied().filter(|&s| s != last_seat).collect();
    let mut now = now.to_vec();
    rest.sort_unstable();
    now.sort_unstable();
    before.len() >= 2 && before.contains(&last_seat) && !now.is_empty() && rest == now
}

/// What a game's keyed derivations bind besides the seed, in its format.
pub(crate) fn scope_of(version: Version, game_id: &str, body: &Hash) -> Scope {
    match version {
        Version::V3 | Version::V4 => Scope::Body(*body),
        Version::V1 | Version::V2 => Scope::Id(game_id.to_string()),
    }
}

pub(crate) fn state_hash_of<S: serde::Serialize>(state: &S) -> Result<Hash> {
    state_hash(state)
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

/// Characters no player name may hold: `<` `>` `;` would break a mail header, and
/// `[` `]` and the backtick could close the code block a forum post shows the
/// board in (`[/code]`, a ``` fence), letting a name rewrite the post.
pub const NAME_REFUSED: [char; 6] = ['<', '>', ';', '[', ']', '`'];

/// Checks a list of players before a game is made of it: usable, distinct names, for
/// each address one plain address of its own, and for each seat a built-in player
/// takes (`bot:NAME` or `bot:NAME/VERSION`) one of `bots`, those the referee's machine
/// plays.
///
/// # Errors
/// The first problem, with what would be accepted.
pub fn check_players(players: &[PlayerEntry], bots: &[BotId]) -> Result<()> {
    for (i, player) in players.iter().enumerate() {
        let name = player.name.trim();
        if name.is_empty() || name.contains(NAME_REFUSED) || name.chars().any(char::is_control) {
            return Err(EngineError::Usage(format!(
                "{:?} is not a usable player name: it may not be empty or hold [ ] ` < > ; or control characters; use letters, digits, spaces and other punctuation, as in --player \"Ann <ann@example.org>\"",
                crate::basics::echo::shortened(&player.name, crate::basics::echo::QUOTE_CHARS)
            )));
        }
        if name.eq_ignore_ascii_case(super::driver::REFEREE) {
            return Err(EngineError::Usage(format!(
                "{name:?} is the name `pbem show --as` uses for the referee's view; give the player another name"
            )));
        }
        if players[..i].iter().any(|p| named_alike(&p.name, name)) {
            return Err(EngineError::Usage(format!(
                "two players are called {name:?}; names must differ"
            )));
        }
        if let Some(bot) = player.bot() {
            // A seat a built-in player takes: it must be one of `bots`, at the version
            // there is. Several seats may take the same bot.
            BotId::parse(bot)
                .and_then(|asked| find_bot(&asked, bots).map(|_| ()))
                .map_err(|error| {
                    EngineError::Usage(format!(
                        "{error}: give a bot's seat as --player \"{name} <bot:search>\", which the game records with the version this pbem has (bot:search/1)"
                    ))
                })?;
        } else if let Some(email) = &player.email {
            check_address(name, email)?;
            let shared = players[..i].iter().any(|p| {
                p.email
                    .as_deref()
                    .is_some_and(|other| other.eq_ignore_ascii_case(email))
            });
            if shared {
                return Err(EngineError::Usage(format!(
                    "two players have the address {email}; each player needs an address of their own, because replies are matched to players by it"
                )));
            }
        }
    }
    Ok(())
}

/// `players` as a new game records them: each seat a built-in player takes named
/// `bot:NAME/VERSION`, with the version of it `bots` holds (`bot:search` becomes
/// `bot:search/1`), so the game says which bot, as it chooses now, plays it. The
/// players must have passed [`check_players`] with the same `bots`.
fn with_bot_versions(mut players: Vec<PlayerEntry>, bots: &[BotId]) -> Vec<PlayerEntry> {
    for player in &mut players {
        let played = player
            .bot()
            .and_then(|text| BotId::parse(text).ok())
            .and_then(|asked| find_bot(&asked, bots).ok());
        if let Some(bot) = played {
            player.email = Some(format!("{}{bot}", super::file::BOT_ADDRESS));
        }
    }
    players
}

/// Whether two players' names are one as `pbem new` and [`Game::seat_of`] compare
/// them: equal but for ASCII case and white space at either end.
fn named_alike(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// That no two players of a genesis (of a game file or an invitation) are named
/// alike, as [`check_players`] compares names: a record names its seat by its player's
/// name, and a command names a player the same way.
///
/// # Errors
/// Two players named alike.
pub fn check_distinct_names(players: &[PlayerEntry]) -> Result<()> {
    for (i, player) in players.iter().enumerate() {
        if let Some(first) = players[..i]
            .iter()
            .position(|p| named_alike(&p.name, &player.name))
        {
            return Err(EngineError::Malformed(format!(
                "two players are called {:?} (seats {} and {}); a record names its seat by its player's name, so names must differ, ignoring case",
                crate::basics::echo::shortened(&player.name, crate::basics::echo::QUOTE_CHARS),
                first + 1,
                i + 1
            )));
        }
    }
    Ok(())
}

/// One plain address (an RFC 5322 addr-spec such as `ann@example.org`): never a second
/// address, a display name, a comment or a header line smuggled in with it, because
/// the address is signed into genesis and written into mail headers.
fn check_address(name: &str, email: &str) -> Result<()> {
    let plain = !email.is_empty()
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && !email.contains(['<', '>', ',', ';', '"', '(', ')'])
        && email.parse::<lettre::Address>().is_ok();
    if plain {
        Ok(())
    } else {
        Err(EngineError::Usage(format!(
            "{:?} is not one mail address; give each player as --player \"{} <{}@example.org>\", one plain address between the angle brackets",
            crate::basics::echo::shortened(email, crate::basics::echo::QUOTE_CHARS),
            name,
            name.to_ascii_lowercase().replace(' ', ".")
        )))
    }
}

/// Reads `Name` or `Name <email>`.
pub fn parse_player(text: &str) -> PlayerEntry {
    match text.split_once('<') {
        Some((name, rest)) => PlayerEntry {
            name: name.trim().to_string(),
            // Kept even when empty: `Ann <>` is refused as no address, not read as none.
            email: Some(rest.trim_end().trim_end_matches('>').trim().to_string()),
        },
        None => PlayerEntry {
            name: text.trim().to_string(),
            email: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::STANDARD as BASE64;
    use base64::Engine as _;
    use ed25519_dalek::{Signer, SigningKey};

    use super::*;

    fn signed_hashes(key: &SigningKey, count: u8) -> Vec<(Hash, String)> {
        (0..count)
            .map(|n| {
                let hash = [n; 32];
                (hash, BASE64.encode(key.sign(&hash).to_bytes()))
            })
            .collect()
    }

    fn check(key: &SigningKey, signed: &[(Hash, String)]) -> Vec<bool> {
        let borrowed: Vec<(Hash, &str)> = signed.iter().map(|(h, s)| (*h, s.as_str())).collect();
        signatures_hold(&key.verifying_key(), &borrowed)
    }

    #[test]
    fn a_batch_of_good_signatures_holds() {
        let key = SigningKey::from_bytes(&[7; 32]);
        assert_eq!(check(&key, &signed_hashes(&key, 40)), vec![true; 40]);
    }

    #[test]
    fn a_failed_batch_names_exactly_the_signatures_that_do_not_hold() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let mut signed = signed_hashes(&key, 40);
        // A signature over another hash, a changed hash, and text that is no signature.
        let other_signature = signed[4].1.clone();
        signed[3].1 = other_signature;
        signed[17].0[0] ^= 1;
        signed[29].1 = "not base64".into();
        let holds = check(&key, &signed);
        let failed: Vec<usize> = (0..40).filter(|&i| !holds[i]).collect();
        assert_eq!(failed, vec![3, 17, 29]);
        // Signatures by another key do not hold either.
        let other = SigningKey::from_bytes(&[8; 32]);
        assert_eq!(check(&key, &signed_hashes(&other, 5)), vec![false; 5]);
    }
}
