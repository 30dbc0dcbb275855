//! The game-erased face of the engine: what the CLI and mail code call. One
//! [`Driver`] per game wraps the typed operations of [`Game`] behind [`GameDriver`],
//! taking and returning file bytes, so callers never name a game's types.

use std::fmt::Write as _;
use std::marker::PhantomData;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::chance::DrawStream;
use super::digest::sha256;
use super::file::{draws_text, FileText, GameFile};
use super::keyring::Keyring;
use super::rules::{Deadline, LegalMove, Rules, Seat, Viewer, Visibility};
use super::session::{Applied, AuditReport, EngineError, Game, NewGame, Replayed, Result};
use crate::engine::rules::Chance;

/// The schema name of `pbem show --format json`.
pub const VIEW_SCHEMA: &str = "pbem.view/1";

/// What an applied move did, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveOutcome {
    pub turn: u64,
    pub player: String,
    /// The game's id.
    pub game_id: String,
    /// The move as understood, every default filled in (echoed back to the player).
    pub understood: String,
    pub over: bool,
    pub to_move: Vec<String>,
    pub winners: Vec<String>,
}

/// A game file pbem has just produced: the first bytes of the file it read (`kept`;
/// none when the file was written anew) followed by `added`, and the SHA-256 of the
/// whole, which the keyring notes. Appending a move to a file pbem wrote itself keeps
/// all its records, so neither they nor their digest are copied or computed again.
#[derive(Debug, Clone)]
pub struct NewFile<'a> {
    pub kept: &'a [u8],
    pub added: Vec<u8>,
    pub digest: [u8; 32],
}

impl NewFile<'_> {
    /// A file written whole.
    pub fn whole(bytes: Vec<u8>) -> NewFile<'static> {
        let digest = sha256(&bytes);
        NewFile {
            kept: &[],
            added: bytes,
            digest,
        }
    }

    /// The file's bytes in one piece.
    pub fn to_vec(&self) -> Vec<u8> {
        [self.kept, &self.added].concat()
    }
}

/// Every operation on a game file, for any game.
pub trait GameDriver: Sync {
    /// The game's name, as in `pbem new NAME`.
    fn name(&self) -> &'static str;
    /// The built-in rules data.
    fn default_data(&self) -> &'static str;
    /// A new game file's bytes.
    ///
    /// # Errors
    /// Bad players or options, or a keyring problem.
    fn create(&self, request: NewGame, keyring: &Keyring) -> Result<Vec<u8>>;
    /// The file after one move, and what happened.
    ///
    /// # Errors
    /// Anything that refuses the move; the input bytes are then all there is.
    fn apply<'a>(
        &self,
        bytes: &'a [u8],
        keyring: &Keyring,
        player: &str,
        move_text: &str,
    ) -> Result<(NewFile<'a>, MoveOutcome)>;
    /// The JSON view.
    ///
    /// # Errors
    /// A malformed file, an unknown viewer or turn.
    fn view(
        &self,
        bytes: &[u8],
        viewer: Option<&str>,
        turn: Option<u64>,
        keyring: Option<&Keyring>,
    ) -> Result<Value>;
    /// The ASCII board.
    ///
    /// # Errors
    /// As for [`GameDriver::view`].
    fn board(
        &self,
        bytes: &[u8],
        viewer: Option<&str>,
        turn: Option<u64>,
        keyring: Option<&Keyring>,
    ) -> Result<String>;
    /// Every legal move of a player now.
    ///
    /// # Errors
    /// A malformed file or an unknown player.
    fn legal(&self, bytes: &[u8], player: &str) -> Result<Vec<LegalMove>>;
    /// The move log as text.
    ///
    /// # Errors
    /// A malformed file.
    fn log(&self, bytes: &[u8]) -> Result<String>;
    /// The full audit.
    ///
    /// # Errors
    /// A file too malformed to audit at all.
    fn audit(&self, bytes: &[u8], keyring: Option<&Keyring>) -> Result<AuditReport>;
    /// The file's bytes with the seed revealed.
    ///
    /// # Errors
    /// A tampered file, or no matching seed in the keyring.
    fn reveal(&self, bytes: &[u8], keyring: &Keyring) -> Result<Vec<u8>>;
    /// One move `player` may make now, for examples in mail; `None` when none.
    ///
    /// # Errors
    /// A malformed file or an unknown player.
    fn example(&self, bytes: &[u8], player: &str) -> Result<Option<String>>;
    /// The move text the referee submits for `player` when a deadline passes, if the
    /// rules allow that choice now.
    ///
    /// # Errors
    /// A malformed file or an unknown player.
    fn deadline_move(&self, bytes: &[u8], player: &str, choice: Deadline)
        -> Result<Option<String>>;
    /// A legal move text for `player`, picked with `rng` (the demo's and tests' players).
    ///
    /// # Errors
    /// A malformed file, unknown player, or no legal move.
    fn pick_move(&self, bytes: &[u8], player: &str, rng: &mut DrawStream) -> Result<String>;
}

/// The [`GameDriver`] of one game.
pub struct Driver<R>(PhantomData<fn() -> R>);

impl<R> Driver<R> {
    pub const fn new() -> Self {
        Driver(PhantomData)
    }
}

impl<R> Default for Driver<R> {
    fn default() -> Self {
        Driver::new()
    }
}

/// Reads a whole game file: every record and the state, each checked against the
/// schema.
fn parse<R: Rules>(bytes: &[u8]) -> Result<Game<R>> {
    Game::from_file(FileText::parse(bytes)?.game_file()?)
}

/// The fast path of `apply`, for a file whose bytes are exactly those this keyring's
/// referee last verified and wrote: of the records only the head is read, the chain is
/// not checked again (it was, before those bytes were written, and they are the same
/// bytes), and the new record is appended to the bytes as they are. `Err` gives the
/// file back when it is not such a file; the caller then takes the full path.
fn apply_verified<'a, R: Rules>(
    text: FileText<'a>,
    bytes: &'a [u8],
    keyring: &Keyring,
    player: &str,
    move_text: &str,
) -> Result<Result<(NewFile<'a>, MoveOutcome), FileText<'a>>> {
    // A game with hidden state rebuilds its state by replaying every record.
    if R::HAS_HIDDEN_STATE {
        return Ok(Err(text));
    }
    let Some(appendable) = text.appendable(bytes) else {
        return Ok(Err(text));
    };
    // The records are the start of both the file read and the file written: hashed once.
    let records = Sha256::new().chain_update(appendable.kept);
    let tail = &bytes[appendable.kept.len()..];
    let digest: [u8; 32] = records.clone().chain_update(tail).finalize().into();
    if !keyring.is_verified(&text.genesis.id, &digest) {
        return Ok(Err(text));
    }
    let earlier = text.records.len().saturating_sub(1);
    let head = match text.records.len() {
        0 => None,
        turn => Some(text.record(turn)?),
    };
    let state = text.state_as_read()?;
    let mut game = Game::<R>::from_file(GameFile {
        format: super::file::FORMAT.to_string(),
        genesis: text.genesis,
        records: head.into_iter().collect(),
        seed: text.seed,
        state,
    })?;
    let applied = game.apply_to_checked(keyring, player, move_text, earlier as u64)?;
    let record = game
        .file
        .records
        .last()
        .ok_or_else(|| EngineError::Malformed("the new record is missing".into()))?;
    let added = appendable.added(record, &game.file.seed, &game.file.state)?;
    let digest = records.chain_update(&added).finalize().into();
    let file = NewFile {
        kept: appendable.kept,
        added,
        digest,
    };
    Ok(Ok((file, outcome_of(&game, &applied))))
}

/// A game, a seat of it and its current state.
type SeatAt<R> = (Game<R>, Seat, <R as Rules>::State);

/// The game, seat and current state when `player` is to move; `None` when not.
fn on_turn<R: Rules>(bytes: &[u8], player: &str) -> Result<Option<SeatAt<R>>> {
    let game = parse::<R>(bytes)?;
    let seat = game.seat_of(player)?;
    let state = game.state_at(None, None)?.state;
    if !game.is_closed(&state) && game.rules.to_move(&state).contains(&seat) {
        Ok(Some((game, seat, state)))
    } else {
        Ok(None)
    }
}

/// A position to show: the game, who looks, and the state after `turn` records.
fn position<R: Rules>(
    bytes: &[u8],
    viewer: Option<&str>,
    turn: Option<u64>,
    keyring: Option<&Keyring>,
) -> Result<(Game<R>, Viewer, Replayed<R::State>)> {
    let game = parse::<R>(bytes)?;
    let viewer = viewer_of(&game, viewer)?;
    let seed = seed_for_view(&game, keyring)?;
    let at = game.state_at(seed.as_ref(), turn)?;
    Ok((game, viewer, at))
}

/// What a move did, for the caller's messages.
fn outcome_of<R: Rules>(game: &Game<R>, applied: &Applied<R::State>) -> MoveOutcome {
    MoveOutcome {
        turn: applied.turn,
        player: game
            .file
            .records
            .last()
            .map(|r| r.player.clone())
            .unwrap_or_default(),
        game_id: game.file.genesis.id.clone(),
        understood: applied.understood.clone(),
        over: applied.over,
        to_move: names(&game.names, &game.rules.to_move(&applied.state)),
        winners: names(&game.names, &game.rules.winners(&applied.state)),
    }
}

fn viewer_of<R: Rules>(game: &Game<R>, name: Option<&str>) -> Result<Viewer> {
    match name {
        Some(name) => Ok(Viewer::Player(game.seat_of(name)?)),
        None => Ok(Viewer::Public),
    }
}

fn seed_for_view<R: Rules>(
    game: &Game<R>,
    keyring: Option<&Keyring>,
) -> Result<Option<super::fairness::Seed>> {
    // Only games with hidden state need the seed to show a position.
    if R::HAS_HIDDEN_STATE {
        game.seed(keyring)
    } else {
        game.seed(None)
    }
}

impl<R: Rules> GameDriver for Driver<R> {
    fn name(&self) -> &'static str {
        R::NAME
    }

    fn default_data(&self) -> &'static str {
        R::DEFAULT_DATA
    }

    fn create(&self, request: NewGame, keyring: &Keyring) -> Result<Vec<u8>> {
        let game = Game::<R>::create(request, keyring)?;
        game.file.to_bytes()
    }

    fn apply<'a>(
        &self,
        bytes: &'a [u8],
        keyring: &Keyring,
        player: &str,
        move_text: &str,
    ) -> Result<(NewFile<'a>, MoveOutcome)> {
        let text = match apply_verified::<R>(
            FileText::parse(bytes)?,
            bytes,
            keyring,
            player,
            move_text,
        )? {
            Ok(done) => return Ok(done),
            Err(text) => text,
        };
        let mut game = Game::<R>::from_file(text.game_file()?)?;
        let applied = game.apply(keyring, player, move_text)?;
        let outcome = outcome_of(&game, &applied);
        Ok((NewFile::whole(game.file.to_bytes()?), outcome))
    }

    fn view(
        &self,
        bytes: &[u8],
        viewer: Option<&str>,
        turn: Option<u64>,
        keyring: Option<&Keyring>,
    ) -> Result<Value> {
        let (game, viewer, at) = position::<R>(bytes, viewer, turn, keyring)?;
        let rules = &game.rules;
        let state = &at.state;
        let custom = rules.view(state, viewer, &game.names);
        let scores = rules.scores(state);
        let players: Vec<Value> = game
            .names
            .iter()
            .enumerate()
            .map(|(seat, name)| {
                let mut entry = Map::new();
                entry.insert("name".into(), json!(name));
                entry.insert(
                    "score".into(),
                    json!(scores.get(seat).copied().unwrap_or(0)),
                );
                if let Some(extra) = custom.players.get(seat) {
                    entry.extend(extra.clone());
                }
                Value::Object(entry)
            })
            .collect();
        let mut view = Map::new();
        view.insert("schema".into(), json!(VIEW_SCHEMA));
        view.insert("game".into(), json!(R::NAME));
        view.insert("id".into(), json!(game.file.genesis.id));
        view.insert("turn".into(), json!(at.turn));
        let over = rules.is_over(state);
        // Closed is a fact of the file as it is now, not of a past position shown.
        let closed = at.turn == game.file.records.len() as u64 && game.is_closed(state);
        // The signed head of the position shown: a player holding it can later prove
        // a rolled-back file (`pbem audit FILE --head HASH`).
        let head = match at.turn.checked_sub(1) {
            Some(index) => game
                .file
                .records
                .get(index as usize)
                .map(|r| r.hash.clone()),
            None => Some(game.file.genesis.hash.clone()),
        };
        view.insert("head".into(), json!({"turn": at.turn, "hash": head}));
        view.insert("over".into(), json!(over));
        view.insert("closed".into(), json!(closed));
        let to_move = if closed {
            Vec::new()
        } else {
            rules.to_move(state)
        };
        view.insert("to_move".into(), json!(names(&game.names, &to_move)));
        view.insert(
            "winners".into(),
            json!(names(&game.names, &rules.winners(state))),
        );
        view.insert("players".into(), Value::Array(players));
        for (key, value) in custom.fields {
            view.entry(key).or_insert(value);
        }
        Ok(Value::Object(view))
    }

    fn board(
        &self,
        bytes: &[u8],
        viewer: Option<&str>,
        turn: Option<u64>,
        keyring: Option<&Keyring>,
    ) -> Result<String> {
        let (game, viewer, at) = position::<R>(bytes, viewer, turn, keyring)?;
        Ok(game.rules.board(&at.state, viewer, &game.names))
    }

    fn legal(&self, bytes: &[u8], player: &str) -> Result<Vec<LegalMove>> {
        Ok(on_turn::<R>(bytes, player)?
            .map(|(game, seat, state)| game.rules.legal_moves(&state, seat))
            .unwrap_or_default())
    }

    fn log(&self, bytes: &[u8]) -> Result<String> {
        let game = parse::<R>(bytes)?;
        let genesis = &game.file.genesis;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "game {} ({}), players {}, setup draws {}",
            genesis.id,
            genesis.game,
            game.names.join(", "),
            draws_text(&genesis.draws)
        );
        for record in &game.file.records {
            let _ = writeln!(
                out,
                "turn {:>3}  {:<12} {}  draws {}  hash {}",
                record.turn,
                record.player,
                record.move_text.replace('\n', "; "),
                draws_text(&record.draws),
                &record.hash[..16.min(record.hash.len())]
            );
        }
        match &game.file.seed {
            Some(seed) => {
                let _ = writeln!(out, "seed revealed: {seed}");
            }
            None => {
                let _ = writeln!(out, "seed committed: {}", genesis.seed_commitment);
            }
        }
        Ok(out)
    }

    fn audit(&self, bytes: &[u8], keyring: Option<&Keyring>) -> Result<AuditReport> {
        let game = parse::<R>(bytes)?;
        Ok(game.audit(keyring))
    }

    fn reveal(&self, bytes: &[u8], keyring: &Keyring) -> Result<Vec<u8>> {
        let mut game = parse::<R>(bytes)?;
        game.reveal(keyring)?;
        game.file.to_bytes()
    }

    fn example(&self, bytes: &[u8], player: &str) -> Result<Option<String>> {
        Ok(on_turn::<R>(bytes, player)?
            .and_then(|(game, seat, state)| game.rules.example_move(&state, seat)))
    }

    fn deadline_move(
        &self,
        bytes: &[u8],
        player: &str,
        choice: Deadline,
    ) -> Result<Option<String>> {
        Ok(
            on_turn::<R>(bytes, player)?.and_then(|(game, seat, state)| {
                let mv = game.rules.deadline_move(&state, seat, choice)?;
                Some(game.rules.canonical_text(&mv))
            }),
        )
    }

    fn pick_move(&self, bytes: &[u8], player: &str, rng: &mut DrawStream) -> Result<String> {
        let legal = self.legal(bytes, player)?;
        let count = u32::try_from(legal.len()).unwrap_or(u32::MAX);
        if count == 0 {
            return Err(EngineError::Usage(format!(
                "{player} has no legal move now"
            )));
        }
        let index = rng.draw(count, Visibility::Public) as usize;
        Ok(legal[index].text.clone())
    }
}

fn names(all: &[String], seats: &[usize]) -> Vec<String> {
    seats
        .iter()
        .filter_map(|&seat| all.get(seat).cloned())
        .collect()
}

/// The game named in a file, read without knowing its state type.
///
/// # Errors
/// Not a pbem game file.
pub fn game_name(bytes: &[u8]) -> Result<String> {
    Ok(FileText::parse(bytes)?.genesis.game)
}

/// The id of the game in a file.
///
/// # Errors
/// Not a pbem game file.
pub fn game_id(bytes: &[u8]) -> Result<String> {
    Ok(FileText::parse(bytes)?.genesis.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_is_named_only_by_a_whole_game_file() {
        let cut = b"{\"format\":\"pbem.game/1\",\n\"genesis\":{\"game\":\"right-of-way\",\"id\":\"row-1\"";
        assert!(game_name(cut).is_err());
        assert!(game_id(cut).is_err());
        assert!(game_name(b"{\"genesis\":{\"game\":\"right-of-way\"}}").is_err());
    }
}
