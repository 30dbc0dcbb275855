//! The game-erased face of the engine: what the CLI and mail code call. A
//! [`GameDriver`] per game creates and opens files of that game; an opened file is an
//! [`OpenGame`], read once (with the referee's keyring where there is one) and asked
//! everything after: views, boards, examples, legal moves, the log, the audit, and
//! moves, so callers never name a game's types and never parse a file twice. Here are
//! the two traits, what their moves answer, and the opening of a file of any game; the
//! driver of one game, which implements them, is in the driver module, which
//! re-exports all of this.

use serde_json::Value;

use super::audit::AuditReport;
use super::chance::DrawStream;
use super::error::{EngineError, Result};
use super::file::{FileText, Genesis, UndoRecord, UndoStep};
use super::invitation::{is_invitation, Invitation};
use super::keyring::Keyring;
use super::players::BotId;
use super::rules::{
    Chance, Deadline, GameEnd, LegalMove, MoveFilter, ReportLine, Seat, Visibility,
};
use super::session::{NewGame, Preview};

/// What an applied move did, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveOutcome {
    pub turn: u64,
    pub player: String,
    /// The game's id.
    pub game_id: String,
    /// The move as understood, every default filled in (echoed back to the player).
    pub understood: String,
    /// Whether the move was sealed: only its maker may be shown `understood`.
    pub sealed: bool,
    /// The new record's hash: the mover's receipt.
    pub receipt: String,
    pub over: bool,
    pub to_move: Vec<String>,
    pub winners: Vec<String>,
    /// The seat that moved.
    pub seat: Seat,
    /// What the move did, every line with its audience: show each reader only the
    /// lines [`ReportLine::seen_by`] them.
    pub report: Vec<ReportLine>,
}

/// One record as anyone may see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicRecord {
    pub turn: u64,
    pub player: String,
    /// The move's text; `None` for a sealed move not yet opened, or a step of taking
    /// back moves.
    pub move_text: Option<String>,
    /// A step of taking back moves, in place of a move.
    pub undo: Option<UndoRecord>,
    /// Whether a later record took this move back.
    pub taken_back: bool,
}

/// What a player's word about taking back moves did, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoOutcome {
    /// The records written: turn, the player each was written for, the step.
    pub added: Vec<(u64, String, UndoStep)>,
    /// Who asked, and the first turn the request takes back.
    pub asked_by: String,
    pub from: u64,
    /// The moves it takes back (or took back): turn, player, text.
    pub moves: Vec<(u64, String, String)>,
    /// Who agreed so far, and whose answer is still awaited.
    pub agreed: Vec<String>,
    pub waiting_for: Vec<String>,
    /// Whether the moves were taken back.
    pub done: bool,
    pub to_move: Vec<String>,
}

/// Every operation on a game, for any game.
pub trait GameDriver: Sync {
    /// The game's name, as in `pbem new NAME`.
    fn name(&self) -> &'static str;
    /// The built-in rules data.
    fn default_data(&self) -> &'static str;
    /// The built-in players a seat of this game may be given to (`--player "Bot
    /// <bot:search>"`), each at the version this pbem plays: none for a game whose
    /// driver was given none.
    fn bots(&self) -> Vec<BotId>;
    /// A new game file's bytes.
    ///
    /// # Errors
    /// Bad players or options, or a keyring problem.
    fn create(&self, request: NewGame, keyring: &Keyring) -> Result<Vec<u8>>;
    /// An invitation file's bytes (`pbem new --join`): the seed committed, the setup
    /// waiting for every player to join.
    ///
    /// # Errors
    /// As for [`GameDriver::create`].
    fn invite(&self, request: NewGame, keyring: &Keyring) -> Result<Vec<u8>>;
    /// The game file an invitation every player joined becomes.
    ///
    /// # Errors
    /// A tampered invitation, a player still to join, a keyring without the seed.
    fn accept(&self, invitation: &Invitation, keyring: &Keyring) -> Result<Vec<u8>>;
    /// Opens a game file read as `text` from `bytes`, whole: every record read, and the
    /// chain checked (every hash, link and signature, and the stored state against the
    /// head), so that nothing is shown or played from a file that does not hold. With
    /// `to_move`, when the bytes are exactly those `keyring` last verified and wrote,
    /// only the head and the state are read (the fast path of a move); the rest is
    /// read if a question needs it.
    ///
    /// # Errors
    /// A malformed file, one of another game, or a chain that does not hold.
    fn open(
        &self,
        text: FileText<'_>,
        bytes: &[u8],
        keyring: Option<&Keyring>,
        to_move: bool,
    ) -> Result<Box<dyn OpenGame>>;

    /// Opens a game file for [`OpenGame::audit`] alone: read whole and checked against
    /// the schema, the chain left for the audit to check and report record by record.
    ///
    /// # Errors
    /// A file too malformed to audit at all.
    fn open_to_audit(
        &self,
        text: FileText<'_>,
        bytes: &[u8],
        keyring: Option<&Keyring>,
    ) -> Result<Box<dyn OpenGame>>;
}

/// A game file opened once: the questions every command and the mail loop ask, and the
/// moves they make. After [`OpenGame::apply`] or [`OpenGame::reveal`] it answers for
/// the new file, whose bytes [`OpenGame::bytes`] gives.
pub trait OpenGame {
    /// The game's name, as in `pbem new NAME`.
    fn name(&self) -> &'static str;
    /// The game's genesis (players, options, id, keys).
    fn genesis(&self) -> &Genesis;
    /// The number of records.
    fn turns(&self) -> u64;
    /// The seed, once revealed in the file.
    fn seed_revealed(&self) -> Option<&str>;
    /// Every record as anyone may see it.
    ///
    /// # Errors
    /// A record that does not read.
    fn public_records(&self) -> Result<Vec<PublicRecord>>;
    /// The JSON view for `viewer` (a player's name, [`REFEREE`], or `None` for the
    /// public) after `turn` records (the last when `None`).
    ///
    /// # Errors
    /// An unknown viewer or turn, or a position that needs the referee's keyring.
    fn view(&self, viewer: Option<&str>, turn: Option<u64>) -> Result<Value>;
    /// The ASCII board, as for [`OpenGame::view`], with the move of that turn marked;
    /// without the legend ([`OpenGame::legend`]).
    ///
    /// # Errors
    /// As for [`OpenGame::view`].
    fn board(&self, viewer: Option<&str>, turn: Option<u64>) -> Result<String>;
    /// The board of [`OpenGame::board`] as an SVG picture.
    ///
    /// # Errors
    /// As for [`OpenGame::view`].
    fn board_svg(&self, viewer: Option<&str>, turn: Option<u64>) -> Result<String>;
    /// What the board's marks mean.
    fn legend(&self) -> String;
    /// The report of turn `turn` (the last when `None`) as `viewer` may read it: the
    /// lines that turn's move made that the viewer may see, in order. Empty at turn 0.
    ///
    /// # Errors
    /// As for [`OpenGame::view`]; a replay that fails.
    fn report(&self, viewer: Option<&str>, turn: Option<u64>) -> Result<Vec<String>>;
    /// What `player`'s move would do now, with nothing recorded and no real draw.
    ///
    /// # Errors
    /// Not their turn, a move the rules refuse, or a game with hidden state opened
    /// without the keyring.
    fn preview(&self, player: &str, move_text: &str) -> Result<Preview>;
    /// The moves `player` may make now as a person reads them, narrowed by `filter`
    /// (see [`Rules::moves_text`]); `None` when it is not their turn.
    ///
    /// # Errors
    /// As for [`OpenGame::legal`].
    fn moves_text(&self, player: &str, filter: &MoveFilter) -> Result<Option<String>>;
    /// Why the game ended and each player's score broken down; `None` before the end.
    ///
    /// # Errors
    /// A position that needs the referee's keyring.
    fn game_end(&self) -> Result<Option<GameEnd>>;
    /// The game's rules page (docs/rules/<game>.md).
    fn rules_page(&self) -> &'static str;
    /// Every legal move of a player now; empty when it is not their turn.
    ///
    /// # Errors
    /// An unknown player, or a game with hidden state opened without the keyring.
    fn legal(&self, player: &str) -> Result<Vec<LegalMove>>;
    /// One move `player` may make now, for examples in mail; `None` when none.
    ///
    /// # Errors
    /// As for [`OpenGame::legal`].
    fn example(&self, player: &str) -> Result<Option<String>>;
    /// One move `player` could make were it their turn now (the welcome's example for
    /// a player who does not move first); `None` once the game is over.
    ///
    /// # Errors
    /// As for [`OpenGame::legal`].
    fn example_any(&self, player: &str) -> Result<Option<String>>;
    /// The move text the referee submits for `player` when a deadline passes, if the
    /// rules allow that choice now.
    ///
    /// # Errors
    /// As for [`OpenGame::legal`].
    fn deadline_move(&self, player: &str, choice: Deadline) -> Result<Option<String>>;
    /// The first player (in seat order) among those to move whose move the rules force
    /// now ([`Rules::forced_move`]), with its text: the referee makes it at once.
    ///
    /// # Errors
    /// As for [`OpenGame::legal`].
    fn forced_move(&self) -> Result<Option<(String, String)>>;
    /// A random legal move text for `player` from the rules' own sampler (the built-in
    /// players of the demo and the tests); `None` when it is not their turn.
    ///
    /// # Errors
    /// As for [`OpenGame::legal`].
    fn sample_move(&self, player: &str, rng: &mut DrawStream) -> Result<Option<String>>;
    /// The move of `player`'s seat, which a built-in player takes (`bot:search/1` in
    /// genesis), chosen now by the bot from what the seat may see; `None` when it is
    /// not their turn, or the seat is a person's. In format 4 the bot chooses
    /// with a stream keyed from the seed and the game (docs/FAIRNESS.md, "Bots'
    /// seats"), which the audit plays again; a bot genesis names without a version, or
    /// an older format, chooses with randomness from the system, as it always did.
    ///
    /// # Errors
    /// As for [`OpenGame::legal`]; [`EngineError::BotNotPlayed`] when the game's
    /// drivers have no such bot (another version of it, say), saying which they have.
    fn bot_move(&self, player: &str) -> Result<Option<String>>;
    /// The move log as text; sealed moves show only that they were made.
    ///
    /// # Errors
    /// A record that does not read.
    fn log(&self) -> Result<String>;
    /// The full audit (with the keyring's seed, when opened with it).
    fn audit(&self) -> AuditReport;
    /// Applies one move of `player`.
    ///
    /// # Errors
    /// Anything that refuses the move; the game is then as it was.
    fn apply(&mut self, keyring: &Keyring, player: &str, move_text: &str) -> Result<MoveOutcome>;
    /// Writes the seed into the file.
    ///
    /// # Errors
    /// A tampered file, or no matching seed in the keyring.
    /// `player`'s word about taking back moves (`Undo`: their last move, at once or by
    /// asking; `Agree` or `Decline`: an answer to a request), written as signed records.
    fn take_back(&mut self, keyring: &Keyring, player: &str, word: UndoStep)
        -> Result<UndoOutcome>;
    /// Whether `player` may now take back their last move (at once, or by asking):
    /// they have one standing, it drew nothing and was not sealed, and no request
    /// waits. What a turn notice offers.
    ///
    /// # Errors
    /// An unknown player, or a tampered file.
    fn may_take_back(&self, player: &str) -> Result<bool>;
    fn reveal(&mut self, keyring: &Keyring) -> Result<()>;
    /// The file's bytes as they stand: as read, or as a move or reveal left them.
    fn bytes(&self) -> &[u8];
    /// The SHA-256 of [`OpenGame::bytes`].
    fn digest(&self) -> [u8; 32];
    /// Whether every record was read when the file was opened (false on the fast path
    /// of a move, which reads only the latest).
    fn read_whole(&self) -> bool;
    /// How many records are read now: every one, or on the fast path of a move the
    /// head, or the window of a game with hidden state (see [`Resume`]).
    fn records_read(&self) -> u64;
    /// The full state after the last record of [`OpenGame::bytes`], serialised for the
    /// keyring's state note ([`Keyring::remember_state`]), when the game hides some and
    /// this opened game knows it (after a move, say); `None` otherwise.
    fn state_note(&self) -> Option<Vec<u8>>;
}

/// Opens a game file of any game `find` knows by name: one parse of the file, then the
/// game's driver reads as much of it as the purpose needs (see [`GameDriver::open`]).
///
/// # Errors
/// Not a game file, a game `find` does not know (the error `unknown` makes), or a file
/// the game's driver refuses.
pub fn open_with<E: From<EngineError>>(
    bytes: &[u8],
    keyring: Option<&Keyring>,
    to_move: bool,
    find: impl FnOnce(&str) -> std::result::Result<&'static dyn GameDriver, E>,
) -> std::result::Result<Box<dyn OpenGame>, E> {
    let (text, driver) = parsed(bytes, find)?;
    Ok(driver.open(text, bytes, keyring, to_move)?)
}

/// The file read, and the driver of the game it names.
fn parsed<'a, E: From<EngineError>>(
    bytes: &'a [u8],
    find: impl FnOnce(&str) -> std::result::Result<&'static dyn GameDriver, E>,
) -> std::result::Result<(FileText<'a>, &'static dyn GameDriver), E> {
    let text = match FileText::parse(bytes) {
        Ok(text) => text,
        // Only a file that is no game file is looked at again, so a game's file is
        // read once.
        Err(error) if !is_invitation(bytes) => return Err(error.into()),
        Err(_) => return Err(waiting_error(bytes).into()),
    };
    let driver = find(&text.genesis.game)?;
    Ok((text, driver))
}

/// Opens a game file of any game `find` knows for an audit, which checks the chain
/// itself and names every record that fails (see [`GameDriver::open_to_audit`]).
///
/// # Errors
/// As for [`open_with`], but for the chain.
pub fn open_to_audit_with<E: From<EngineError>>(
    bytes: &[u8],
    keyring: Option<&Keyring>,
    find: impl FnOnce(&str) -> std::result::Result<&'static dyn GameDriver, E>,
) -> std::result::Result<Box<dyn OpenGame>, E> {
    let (text, driver) = parsed(bytes, find)?;
    Ok(driver.open_to_audit(text, bytes, keyring)?)
}

/// What a command on an invitation's file is told: the game has not begun.
fn waiting_error(bytes: &[u8]) -> EngineError {
    let invitation = match Invitation::parse(bytes) {
        Ok(invitation) => invitation,
        Err(error) => return error,
    };
    let genesis = &invitation.genesis;
    EngineError::Usage(format!(
        "this file is the invitation to {} game {}, which becomes the game when every player has joined; waiting for {} (`pbem join FILE --player NAME --entropy WORDS`, or their reply to the invitation by mail)",
        genesis.game,
        genesis.id,
        invitation.waiting().join(", ")
    ))
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

/// A pick from a list of moves, for built-in players: uniform, from `rng`.
pub fn pick(legal: &[LegalMove], rng: &mut DrawStream) -> Option<String> {
    let count = u32::try_from(legal.len()).ok().filter(|&n| n > 0)?;
    legal
        .get(rng.draw(count, Visibility::Public) as usize)
        .map(|entry| entry.text.clone())
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
