//! One function per thing a referee does to a game file on disk. The CLI and the mail
//! layer build their inputs and call these; the engine does the work.

use std::path::Path;

use crate::basics::store::{self, StoreError};
use crate::engine::audit::AuditReport;
use crate::engine::driver::{open_with, GameDriver, MoveOutcome, OpenGame};
use crate::engine::error::EngineError;
use crate::engine::file::Genesis;
use crate::engine::invitation::{is_invitation, Invitation, Joined};
use crate::engine::keyring::Keyring;
use crate::engine::session::{NewGame, Preview};
use crate::engine::{LegalMove, MoveFilter};
use crate::games;
use crate::words::{Templates, WordsError};

/// Anything a referee's command can run into.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("there is no game called {name:?}; pbem plays {known}")]
    UnknownGame { name: String, known: String },
    #[error("{0}")]
    Picture(String),
    #[error(transparent)]
    Words(#[from] WordsError),
}

pub type Result<T, E = OpsError> = std::result::Result<T, E>;

/// The driver of a game by name.
///
/// # Errors
/// No such game.
pub fn driver(name: &str) -> Result<&'static dyn GameDriver> {
    let wanted = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    games::find(&wanted).ok_or_else(|| OpsError::UnknownGame {
        name: name.to_string(),
        known: games::names().join(", "),
    })
}

/// Opens a game file's bytes once, for every question (see [`GameDriver::open`]);
/// `to_move` when a move follows, so the fast path may read only the head.
///
/// # Errors
/// Not a game file, or one of an unknown game.
pub fn open_bytes(
    bytes: &[u8],
    keyring: Option<&Keyring>,
    to_move: bool,
) -> Result<Box<dyn OpenGame>> {
    open_with(bytes, keyring, to_move, driver)
}

/// Reads and opens a game file, with the referee's keyring where there is one (a game
/// with hidden state needs it for anything but the public view).
///
/// # Errors
/// The file cannot be read, is not a game file, or names an unknown game.
pub fn open(path: &Path, keyring: Option<&Keyring>) -> Result<Box<dyn OpenGame>> {
    open_bytes(&store::read(path)?, keyring, false)
}

/// Writes a game file pbem has just produced from a verified one (a move or a
/// reveal), atomically, and notes its digest in the keyring so the next move may take
/// the fast path; for a game with hidden state, with the full state after it, so the
/// next move need not replay the game.
///
/// # Errors
/// The file cannot be written; it is then unchanged.
pub fn write_game(path: &Path, game: &dyn OpenGame, keyring: &Keyring) -> Result<()> {
    store::write_atomic(path, game.bytes(), store::Access::Public)?;
    let digest = game.digest();
    keyring.remember_verified(&game.genesis().id, &digest);
    if let Some(state) = game.state_note() {
        keyring.remember_state(&game.genesis().id, &digest, &state);
    }
    Ok(())
}

/// Writes a new game file (refusing to replace one) and notes its digest, as
/// [`write_game`] does for a move.
///
/// # Errors
/// The file exists or cannot be written.
pub fn write_new_game(path: &Path, bytes: &[u8], keyring: &Keyring) -> Result<()> {
    store::create_new(path, bytes)?;
    let id = crate::engine::driver::game_id(bytes)?;
    keyring.remember_verified(&id, &crate::basics::digest::sha256(bytes));
    Ok(())
}

/// The lock of a file about to be created at `out`, which must not exist (a game, or
/// the invitation to one).
///
/// # Errors
/// The lock cannot be taken, or `out` exists.
pub fn lock_new(out: &Path) -> Result<store::FileLock> {
    let lock = store::lock(out)?;
    if std::fs::symlink_metadata(out).is_ok() {
        return Err(StoreError::Exists {
            path: out.to_path_buf(),
        }
        .into());
    }
    Ok(lock)
}

/// `pbem new`: creates the game file at `out` (which must not exist).
///
/// # Errors
/// Unknown game, bad request, keyring trouble, or `out` exists.
pub fn new_game(game: &str, request: NewGame, keyring: &Keyring, out: &Path) -> Result<()> {
    let driver = driver(game)?;
    let _lock = lock_new(out)?;
    let bytes = driver.create(request, keyring)?;
    write_new_game(out, &bytes, keyring)
}

/// `pbem new --join`: writes the invitation at `out` (which must not exist); the game
/// starts when every player has joined ([`join`]).
///
/// # Errors
/// Unknown game, bad request, keyring trouble, or `out` exists.
pub fn new_invitation(game: &str, request: NewGame, keyring: &Keyring, out: &Path) -> Result<()> {
    let driver = driver(game)?;
    let _lock = lock_new(out)?;
    let bytes = driver.invite(request, keyring)?;
    store::create_new(out, &bytes)?;
    Ok(())
}

/// What a join did, and the file it leaves.
pub struct JoinDone {
    pub joined: Joined,
    /// The invitation, with this join.
    pub invitation: Invitation,
    /// What the file becomes: the invitation with this join, or, when everyone has
    /// joined, the game; `None` when the player had joined already.
    pub file: Option<Vec<u8>>,
    /// Whether `file` is the game.
    pub started: bool,
}

/// `pbem join`: `player` accepts the invitation at `path` with their words; the last to
/// join turns it into the game (setup drawn, file replaced, atomically, under the lock).
///
/// # Errors
/// Not an invitation, not a player, unusable words, or a file that cannot be written;
/// the file is then unchanged.
pub fn join(path: &Path, keyring: &Keyring, player: &str, entropy: &str) -> Result<JoinDone> {
    let path = &store::resolve(path);
    let _lock = store::lock(path)?;
    let done = join_bytes(path, &store::read(path)?, keyring, player, entropy)?;
    write_joined(path, &done, keyring)?;
    Ok(done)
}

/// A join on an invitation file's bytes (read from `path`), written nowhere yet.
///
/// # Errors
/// As for [`join`].
pub fn join_bytes(
    path: &Path,
    bytes: &[u8],
    keyring: &Keyring,
    player: &str,
    entropy: &str,
) -> Result<JoinDone> {
    if !is_invitation(bytes) {
        return Err(EngineError::Usage(format!(
            "{} is not an invitation (`pbem new --join` makes one); its game has begun",
            path.display()
        ))
        .into());
    }
    let mut invitation = Invitation::parse(bytes)?;
    let joined = invitation.join(player, entropy)?;
    let (file, started) = match &joined {
        Joined::Already(_) => (None, false),
        Joined::Waiting(_) => (Some(invitation.to_bytes()?), false),
        Joined::Complete => (
            Some(driver(&invitation.genesis.game)?.accept(&invitation, keyring)?),
            true,
        ),
    };
    Ok(JoinDone {
        joined,
        invitation,
        file,
        started,
    })
}

/// The words a joined game's genesis records (`pbem new --join`): what every player is
/// shown at the start, so each can see that the words the setup was drawn with are
/// the ones they sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinedWords {
    /// The invitation's hash, which genesis names and every invitation mail showed.
    pub invitation: String,
    /// The referee's own `--entropy` values, before the players'.
    pub referee: Vec<String>,
    /// Each player's name and words, in seat order.
    pub players: Vec<(String, String)>,
}

/// The words in `genesis` of a game the players joined; `None` for a game started at
/// once. Read from genesis as recorded, not from the invitation: the point is to show
/// what the draws were keyed on. An entry without its player's `NAME: ` (a file the
/// audit refuses) is shown whole, and a missing one as nothing, so the player sees that
/// it is not what they sent.
pub fn joined_words(genesis: &Genesis) -> Option<JoinedWords> {
    if genesis.invitation.is_empty() {
        return None;
    }
    let own = genesis.entropy.len().saturating_sub(genesis.players.len());
    let players = genesis
        .players
        .iter()
        .enumerate()
        .map(|(seat, player)| {
            let entry = genesis.entropy.get(own + seat).map_or("", String::as_str);
            let words = entry
                .strip_prefix(&format!("{}: ", player.name))
                .unwrap_or(entry);
            (player.name.clone(), words.to_string())
        })
        .collect();
    Some(JoinedWords {
        invitation: genesis.invitation.clone(),
        referee: genesis.entropy[..own].to_vec(),
        players,
    })
}

/// Writes what a join left, atomically; a game that started is noted in the keyring
/// as verified, as a new game is.
///
/// # Errors
/// The file cannot be written; it is then unchanged.
pub fn write_joined(path: &Path, done: &JoinDone, keyring: &Keyring) -> Result<()> {
    if let Some(bytes) = &done.file {
        store::write_atomic(path, bytes, store::Access::Public)?;
        if done.started {
            keyring.remember_verified(
                &done.invitation.genesis.id,
                &crate::basics::digest::sha256(bytes),
            );
        }
    }
    Ok(())
}

/// What is written with a change to a game file, all or nothing: the mail layer's
/// notices of it. Made ready once the change is made in memory, before the file is
/// replaced, and completed after, so that a change and what goes with it never part
/// ways (a run killed in between is repaired by the next, in [`WrittenWith::before`]).
/// [`Alone`]: a change with nothing beside it.
pub trait WrittenWith<O> {
    /// Its errors, of which the operation's own are one kind.
    type Error: From<OpsError>;

    /// Under the game's lock, before the change: the game as it stands.
    ///
    /// # Errors
    /// What was left by an interrupted change cannot be repaired; nothing is changed.
    fn before(&mut self, _path: &Path, _game: &dyn OpenGame) -> Result<(), Self::Error> {
        Ok(())
    }

    /// The change made in memory, before the file is written: what goes with it, made
    /// ready.
    ///
    /// # Errors
    /// It cannot be made ready; the file is then not written.
    fn stage(
        &mut self,
        _path: &Path,
        _game: &dyn OpenGame,
        _outcome: &O,
    ) -> Result<(), Self::Error> {
        Ok(())
    }

    /// The file written, still under its lock: what goes with it, completed (and
    /// whatever follows from the change at once).
    ///
    /// # Errors
    /// It cannot be completed; the file stays written.
    fn commit(
        &mut self,
        _path: &Path,
        _game: &mut dyn OpenGame,
        _outcome: &O,
    ) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A change with nothing written beside it.
pub struct Alone;

impl<O> WrittenWith<O> for Alone {
    type Error = OpsError;
}

/// `pbem apply`: one move, under the file's lock; the file is replaced atomically or
/// not at all.
///
/// # Errors
/// Anything that refuses the move; the file is then byte-for-byte unchanged.
pub fn apply_move(
    path: &Path,
    keyring: &Keyring,
    player: &str,
    move_text: &str,
) -> Result<MoveOutcome> {
    apply_move_with(path, keyring, player, move_text, &mut Alone)
}

/// [`apply_move`], with what is written beside the game file (see [`WrittenWith`]).
///
/// # Errors
/// As for [`apply_move`], and whatever `with` meets.
pub fn apply_move_with<W: WrittenWith<MoveOutcome>>(
    path: &Path,
    keyring: &Keyring,
    player: &str,
    move_text: &str,
    with: &mut W,
) -> Result<MoveOutcome, W::Error> {
    let path = &store::resolve(path);
    let _lock = store::lock(path).map_err(OpsError::from)?;
    let mut game = open_bytes(
        &store::read(path).map_err(OpsError::from)?,
        Some(keyring),
        true,
    )?;
    apply_opened(path, game.as_mut(), keyring, player, move_text, with)
}

/// A move to the game file at `path` as the caller opened it (with `keyring`, under the
/// lock it holds): made, and the file written, with what goes beside it. Every move
/// pbem makes, typed or mailed, forced or a bot's, is made here.
///
/// # Errors
/// As for [`apply_move_with`].
pub fn apply_opened<W: WrittenWith<MoveOutcome>>(
    path: &Path,
    game: &mut dyn OpenGame,
    keyring: &Keyring,
    player: &str,
    move_text: &str,
    with: &mut W,
) -> Result<MoveOutcome, W::Error> {
    with.before(path, game)?;
    let outcome = game
        .apply(keyring, player, move_text)
        .map_err(OpsError::from)?;
    with.stage(path, game, &outcome)?;
    write_game(path, game, keyring)?;
    with.commit(path, game, &outcome)?;
    Ok(outcome)
}

/// `pbem undo`: `player`'s word about taking back moves, written to the file.
///
/// # Errors
/// A word the game does not allow now, or anything that refuses a move; the file is
/// then byte-for-byte unchanged.
pub fn take_back(
    path: &Path,
    keyring: &Keyring,
    player: &str,
    word: crate::engine::file::UndoStep,
) -> Result<crate::engine::driver::UndoOutcome> {
    take_back_with(path, keyring, player, word, &mut Alone)
}

/// [`take_back`], with what is written beside the game file (see [`WrittenWith`]).
///
/// # Errors
/// As for [`take_back`], and whatever `with` meets.
pub fn take_back_with<W: WrittenWith<crate::engine::driver::UndoOutcome>>(
    path: &Path,
    keyring: &Keyring,
    player: &str,
    word: crate::engine::file::UndoStep,
    with: &mut W,
) -> Result<crate::engine::driver::UndoOutcome, W::Error> {
    let path = &store::resolve(path);
    let _lock = store::lock(path).map_err(OpsError::from)?;
    let mut game = open_bytes(
        &store::read(path).map_err(OpsError::from)?,
        Some(keyring),
        true,
    )?;
    take_back_opened(path, game.as_mut(), keyring, player, word, with)
}

/// `player`'s word about taking back moves, on the game file at `path` as the caller
/// opened it (under the lock it holds), written with what goes beside it. Every such
/// word pbem records, typed or mailed, is recorded here.
///
/// # Errors
/// As for [`take_back_with`].
pub fn take_back_opened<W: WrittenWith<crate::engine::driver::UndoOutcome>>(
    path: &Path,
    game: &mut dyn OpenGame,
    keyring: &Keyring,
    player: &str,
    word: crate::engine::file::UndoStep,
    with: &mut W,
) -> Result<crate::engine::driver::UndoOutcome, W::Error> {
    with.before(path, game)?;
    let outcome = game
        .take_back(keyring, player, word)
        .map_err(OpsError::from)?;
    with.stage(path, game, &outcome)?;
    write_game(path, game, keyring)?;
    with.commit(path, game, &outcome)?;
    Ok(outcome)
}

/// What a step of taking back did, in a few lines for the command line and mail.
pub fn undo_text(outcome: &crate::engine::driver::UndoOutcome) -> String {
    use crate::engine::file::UndoStep;
    let mut out = String::new();
    for (turn, player, step) in &outcome.added {
        let line = crate::engine::undo::undo_line(
            player,
            crate::engine::file::UndoRecord {
                step: *step,
                turn: outcome.from,
            },
        );
        out.push_str(&format!("turn {turn}: {line}\n"));
    }
    let asking = outcome
        .added
        .iter()
        .all(|(_, _, step)| *step != UndoStep::Undo && *step != UndoStep::Decline);
    if asking {
        for (turn, player, text) in &outcome.moves {
            out.push_str(&format!(
                "  would take back turn {turn}, {player}: {text}\n"
            ));
        }
        if !outcome.waiting_for.is_empty() {
            out.push_str(&format!(
                "waiting for {} to agree\n",
                outcome.waiting_for.join(", ")
            ));
        }
    } else if outcome.done {
        for (turn, player, text) in &outcome.moves {
            out.push_str(&format!("  took back turn {turn}, {player}: {text}\n"));
        }
        out.push_str(&format!("to move: {}\n", outcome.to_move.join(", ")));
    }
    out
}

/// `pbem reveal`: writes the seed into the file.
///
/// # Errors
/// As for [`apply_move`].
pub fn reveal(path: &Path, keyring: &Keyring) -> Result<()> {
    let path = &store::resolve(path);
    let _lock = store::lock(path)?;
    let mut game = open(path, Some(keyring))?;
    game.reveal(keyring)?;
    write_game(path, game.as_ref(), keyring)?;
    Ok(())
}

/// `pbem show --format json`.
///
/// # Errors
/// Unreadable file, unknown viewer or turn.
pub fn view(
    path: &Path,
    viewer: Option<&str>,
    turn: Option<u64>,
    keyring: Option<&Keyring>,
) -> Result<serde_json::Value> {
    let game = open(path, keyring)?;
    let mut view = game.view(viewer, turn)?;
    // A joined game's words, for tools to check as the welcome asks each player to:
    // added keys only, and only for such a game, so every other view is as it was.
    if let Some(words) = joined_words(game.genesis()) {
        view["joined"] = words
            .players
            .iter()
            .map(|(name, words)| serde_json::json!({"name": name, "words": words}))
            .collect();
        view["invitation"] = serde_json::json!(words.invitation);
    }
    // What the turn shown did, as this viewer may read it; null where it cannot be
    // worked out (a game with hidden information, without the keyring).
    view["report"] = match game.report(viewer, turn) {
        Ok(lines) => serde_json::json!(lines),
        Err(EngineError::NeedsKeyring(_)) => serde_json::Value::Null,
        Err(error) => return Err(error.into()),
    };
    Ok(view)
}

/// `pbem show --format ascii`.
///
/// # Errors
/// As for [`view`].
pub fn board(
    path: &Path,
    viewer: Option<&str>,
    turn: Option<u64>,
    keyring: Option<&Keyring>,
) -> Result<String> {
    let game = open(path, keyring)?;
    let mut text = game.board(viewer, turn)?;
    let legend = game.legend();
    if !legend.trim().is_empty() {
        text = format!("{}\n\n{}", text.trim_end(), legend.trim_end());
    }
    let report = match game.report(viewer, turn) {
        Ok(lines) => lines,
        Err(EngineError::NeedsKeyring(_)) => Vec::new(),
        Err(error) => return Err(error.into()),
    };
    if !report.is_empty() {
        let turn = turn.unwrap_or(game.turns());
        text = format!("{}\n\nTurn {turn}:\n", text.trim_end());
        for line in report {
            // Within 78 columns, as the board is: a line can name long player names.
            text.push_str(&crate::words::wrap(&format!("  {line}"), 78));
        }
    }
    Ok(text)
}

/// The kinds of board picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PictureFormat {
    Svg,
    Png,
}

/// `pbem show --format svg` or `png`: the board `viewer` may see at `turn`, as a
/// picture.
///
/// # Errors
/// As for [`view`], and a picture that cannot be drawn.
pub fn picture(
    path: &Path,
    viewer: Option<&str>,
    turn: Option<u64>,
    keyring: Option<&Keyring>,
    format: PictureFormat,
) -> Result<Vec<u8>> {
    let svg = open(path, keyring)?.board_svg(viewer, turn)?;
    match format {
        PictureFormat::Svg => Ok(svg.into_bytes()),
        PictureFormat::Png => crate::grid::raster::png_of_svg(&svg).map_err(OpsError::Picture),
    }
}

/// `pbem export FILE --html OUT`: the replay page of the game for `viewer`, written
/// to `out` (replaced whole, never left half written).
///
/// # Errors
/// As for [`view`]; the referee's view of a game not over; `out` cannot be written.
pub fn export_html(
    path: &Path,
    viewer: Option<&str>,
    keyring: Option<&Keyring>,
    out: &Path,
) -> Result<usize> {
    let game = open(path, keyring)?;
    let page = crate::replay::page(game.as_ref(), viewer)?;
    // A player's page shows what only they may see: theirs alone on this machine.
    let access = match viewer {
        Some(name) if name != crate::engine::driver::REFEREE => store::Access::Private,
        _ => store::Access::Public,
    };
    store::write_atomic(out, page.as_bytes(), access)?;
    Ok(page.len())
}

/// `pbem legal`.
///
/// # Errors
/// Unreadable file or unknown player, or a game with hidden state without the
/// referee's keyring.
pub fn legal(path: &Path, player: &str, keyring: Option<&Keyring>) -> Result<Vec<LegalMove>> {
    Ok(open(path, keyring)?.legal(player)?)
}

/// `pbem legal` as text: the moves `player` may make now as a person reads them,
/// narrowed by `filter`; `None` when it is not their turn.
///
/// # Errors
/// As for [`legal`].
pub fn moves_text(
    path: &Path,
    player: &str,
    filter: &MoveFilter,
    keyring: Option<&Keyring>,
) -> Result<Option<String>> {
    Ok(open(path, keyring)?.moves_text(player, filter)?)
}

/// `pbem apply --preview`: what a move would do, with nothing written and no draw made.
///
/// # Errors
/// As for [`legal`], and a move the rules refuse.
pub fn preview(
    path: &Path,
    player: &str,
    move_text: &str,
    keyring: Option<&Keyring>,
) -> Result<Preview> {
    Ok(open(path, keyring)?.preview(player, move_text)?)
}

/// What a preview says, in the same words by command line and by mail.
pub fn preview_text(preview: &Preview) -> String {
    let mut text = format!("Understood as:\n\n    {}\n\n", preview.understood);
    if preview.report.is_empty() {
        text.push_str("It would change nothing anyone scores.\n");
    } else {
        // The report's lines are the rules' own, in the past tense of a move made:
        // said as what the report will read, never as what happened.
        text.push_str("Made, it would give this report:\n");
        for line in &preview.report {
            text.push_str(&format!("  - {line}\n"));
        }
    }
    if preview.draws > 0 {
        text.push_str(&format!(
            "It would then make {} draw(s), whose outcome nobody knows until the move is made.\n",
            preview.draws
        ));
    }
    if let Some(reason) = &preview.confirm {
        text.push_str(&format!(
            "\nIt would be sent back for your confirmation: {reason}. To make it as it stands, start it with `confirm`:\n\n    confirm {}\n",
            preview.understood
        ));
    }
    text.push_str("\nNothing was recorded and no draw was made.\n");
    text
}

/// `pbem log`: what anyone may read, whoever runs it.
///
/// # Errors
/// Unreadable file.
pub fn log(path: &Path, keyring: Option<&Keyring>) -> Result<String> {
    // With the referee's keyring, a game with hidden information replays to tell what
    // each turn did before the reveal; the log still prints only the public lines.
    Ok(open(path, keyring)?.log()?)
}

/// `pbem audit`.
///
/// # Errors
/// A file too broken to audit at all (a failed audit is a report, not an error).
pub fn audit(path: &Path, keyring: Option<&Keyring>) -> Result<AuditReport> {
    let bytes = store::read(path)?;
    Ok(crate::engine::driver::open_to_audit_with(&bytes, keyring, driver)?.audit())
}

/// The names in a JSON list of a view (`to_move`, `winners`), joined for people; empty
/// for an empty list.
pub fn joined_names(list: &serde_json::Value) -> String {
    list.as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// The markup a forum post is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForumMarkup {
    /// phpBB and other BBCode forums: the board in `[code]`.
    Bbcode,
    /// CommonMark as Discourse and GitHub read it: the board in a fenced block.
    Markdown,
}

impl ForumMarkup {
    /// The built-in template of the post.
    pub fn template(self) -> &'static str {
        match self {
            ForumMarkup::Bbcode => "forum.bbcode",
            ForumMarkup::Markdown => "forum.md",
        }
    }

    /// `text` written so that the forum shows it as it is outside a code block: a
    /// player's name must not turn the post bold, start a list or close a tag.
    pub fn escape(self, text: &str) -> String {
        match self {
            ForumMarkup::Bbcode => escape_bbcode(text),
            ForumMarkup::Markdown => escape_markdown(text),
        }
    }
}

/// BBCode shown as text: a `[` that could open or close a tag (`[b]`, `[/code]`,
/// `[*]`) is followed by an empty `[b][/b]`, so the parser meets `[[b][/b]code]` and
/// sees no tag there. HTML entities are no way out: phpBB escapes `&` and would show
/// `&#91;` as typed.
fn escape_bbcode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '[' {
            let mut rest = chars.clone();
            let next = match rest.next() {
                Some('/') => rest.next(),
                other => other,
            };
            if next.is_some_and(|n| n.is_ascii_alphabetic() || n == '*') {
                out.push_str("[b][/b]");
            }
        }
    }
    out
}

/// CommonMark shown as text, with backslash escapes (which Discourse and GitHub read
/// too). Characters that are markup anywhere in a line are always escaped; the rest
/// only in a word that would be markup at the start of a line (`-`, `+`, `=`, `1.`),
/// because a post's long lines are wrapped and any word may start one.
fn escape_markdown(text: &str) -> String {
    const ALWAYS: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '~', '&'];
    let mut out = String::with_capacity(text.len() + 8);
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let digits = word.chars().take_while(char::is_ascii_digit).count();
        let numbered = digits > 0 && word.len() == digits + 1 && word.ends_with(['.', ')']);
        let rule = !word.is_empty() && word.chars().all(|c| matches!(c, '-' | '+' | '='));
        for (at, c) in word.chars().enumerate() {
            if ALWAYS.contains(&c) || rule || (numbered && at == digits) {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

/// What `pbem show --format bbcode|markdown` prints besides the position.
#[derive(Debug, Clone, Copy, Default)]
pub struct ForumOptions {
    /// The legend in full: for the first post of a thread (BBCode has no folding, so
    /// a BBCode post carries it only then; a Markdown post always has it, folded).
    pub legend: bool,
}

/// `pbem show --format bbcode|markdown`: the state of play as text above the board,
/// and only the board in the code block, from the template forum.bbcode or forum.md.
/// Every value a player controls is escaped for the markup; the board and legend go
/// inside code blocks as they are (names that could close one are refused at `pbem
/// new`).
///
/// # Errors
/// As for [`view`], or a template that does not render.
pub fn forum_post(
    path: &Path,
    markup: ForumMarkup,
    viewer: Option<&str>,
    turn: Option<u64>,
    keyring: Option<&Keyring>,
    options: ForumOptions,
) -> Result<String> {
    let game = open(path, keyring)?;
    let view = game.view(viewer, turn).map_err(OpsError::from)?;
    let board = game.board(viewer, turn).map_err(OpsError::from)?;
    let shown = view["turn"].as_u64().unwrap_or(0);
    let esc = |text: &str| markup.escape(text);
    let names = |list: &serde_json::Value| -> Vec<String> {
        list.as_array()
            .map(|items| items.iter().filter_map(|v| v.as_str()).map(esc).collect())
            .unwrap_or_default()
    };
    let over = view["over"].as_bool().unwrap_or(false);
    // Why it ended and each score's parts belong to the end, not to a past position.
    let end = if over && shown == game.turns() {
        game.game_end().map_err(OpsError::from)?
    } else {
        None
    };
    let mut players: Vec<serde_json::Value> = Vec::new();
    for (seat, entry) in view["players"].as_array().into_iter().flatten().enumerate() {
        let breakdown: Vec<String> = end
            .as_ref()
            .and_then(|end| end.breakdown.get(seat))
            .map(|lines| lines.iter().map(|line| esc(line)).collect())
            .unwrap_or_default();
        players.push(serde_json::json!({
            "name": esc(entry["name"].as_str().unwrap_or_default()),
            "score": entry["score"],
            "breakdown": breakdown,
        }));
    }
    // The move of the turn shown, as anyone may read it: a sealed move not yet
    // opened says only who chose.
    let (mover, move_text) = if shown == 0 {
        (String::new(), String::new())
    } else {
        let records = game.public_records().map_err(OpsError::from)?;
        match records.iter().find(|record| record.turn == shown) {
            Some(record) => (
                esc(&record.player),
                record.move_text.as_deref().map(esc).unwrap_or_default(),
            ),
            None => (String::new(), String::new()),
        }
    };
    // A game with hidden state replays its reports only with the seed: without the
    // referee's keyring the post leaves them out rather than fail.
    let report = match game.report(viewer, turn) {
        Ok(lines) => lines.iter().map(|line| esc(line)).collect(),
        Err(EngineError::NeedsKeyring(_)) => Vec::new(),
        Err(error) => return Err(OpsError::from(error)),
    };
    let winners = names(&view["winners"]);
    let context = serde_json::json!({
        "game": esc(view["game"].as_str().unwrap_or_default()),
        "id": esc(view["id"].as_str().unwrap_or_default()),
        "turn": shown,
        "status": esc(view["status"].as_str().unwrap_or_default()),
        "over": over,
        "reason": end.as_ref().map(|end| esc(&end.reason)).unwrap_or_default(),
        "to_move": names(&view["to_move"]).join(", "),
        "winners": winners.join(", "),
        "winner_count": winners.len(),
        "players": players,
        "mover": mover,
        "move": move_text,
        "report": report,
        "board": board.trim_end(),
        "legend": game.legend().trim_end(),
        "legend_asked": options.legend,
    });
    Ok(Templates::default().render(markup.template(), &context)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn genesis(entropy: &[&str], invitation: &str) -> Genesis {
        serde_json::from_value(serde_json::json!({
            "game": "right-of-way", "id": "row-1", "engine": "pbem",
            "players": [{"name": "Ann"}, {"name": "Bob"}], "options": {},
            "rules_hash": "", "rules_data": "", "referee_key": "", "seed_commitment": "",
            "draw_algorithm": "", "entropy": entropy, "invitation": invitation,
            "draws": [], "state_hash": "", "hash": "", "signature": ""
        }))
        .expect("a genesis")
    }

    #[test]
    fn joined_words_are_read_from_genesis_as_recorded() {
        assert_eq!(joined_words(&genesis(&["referee dice"], "")), None);
        let words = joined_words(&genesis(
            &["referee dice", "Ann: blue heron", "Bob: seven swans"],
            "ab",
        ))
        .expect("joined");
        assert_eq!(words.invitation, "ab");
        assert_eq!(words.referee, ["referee dice"]);
        assert_eq!(
            words.players,
            [
                ("Ann".to_string(), "blue heron".to_string()),
                ("Bob".to_string(), "seven swans".to_string())
            ]
        );
        // Entries that are not the players' (a file the audit refuses) are shown as
        // they are, so nobody takes them for what they sent.
        let words = joined_words(&genesis(&["Bob: x"], "ab")).expect("joined");
        assert!(words.referee.is_empty());
        assert_eq!(
            words.players,
            [
                ("Ann".to_string(), "Bob: x".to_string()),
                ("Bob".to_string(), String::new())
            ]
        );
    }
}
