//! The driver of one game: [`Driver`], the [`GameDriver`] that creates and opens files of
//! that game, and the file it opens, which answers as an [`OpenGame`]: read once (with
//! the referee's keyring where there is one), on the fast path only its head, and asked
//! everything after. The traits and the opening of a file of any game are in the
//! erased module, re-exported here as the engine's face.

use std::cell::OnceCell;
use std::fmt::Write as _;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::audit::AuditReport;
use super::chance::DrawStream;
use super::error::{EngineError, Result};
use super::fairness::Seed;
use super::file::{draws_text, FileText, GameFile, Genesis, UndoStep};
use super::invitation::Invitation;
use super::keyring::Keyring;
use super::players::{find as find_bot, listed, BotId, BotPlayers, NotPlayed};
use super::rounds::RoundContext;
use super::rules::{
    Audience, BoardContext, Deadline, GameEnd, LastMove, LegalMove, MoveFilter, ReportLine, Rules,
    Seat, Viewer,
};
use super::session::{Applied, Game, Known, NewGame, Preview};
use crate::basics::digest::sha256;

/// The schema name of `pbem show --format json`.
pub const VIEW_SCHEMA: &str = "pbem.view/1";

pub use super::erased::{
    game_id, game_name, open_to_audit_with, open_with, pick, GameDriver, MoveOutcome, OpenGame,
    PublicRecord, UndoOutcome,
};
pub use super::roster::REFEREE;

/// The [`GameDriver`] of one game, with the built-in players its bots' seats are
/// played by, when it was given some.
pub struct Driver<R: Rules + 'static> {
    bots: Option<&'static dyn BotPlayers<R>>,
}

impl<R: Rules + 'static> Driver<R> {
    /// The driver of a game no bot plays: a seat given to one is refused.
    pub const fn new() -> Self {
        Driver { bots: None }
    }

    /// The driver of a game whose bots' seats `bots` play (pbem's own, in the list of
    /// games): they make a bot's move by mail, and the audit plays it again.
    pub const fn played_by(bots: &'static dyn BotPlayers<R>) -> Self {
        Driver { bots: Some(bots) }
    }
}

impl<R: Rules + 'static> Default for Driver<R> {
    fn default() -> Self {
        Driver::new()
    }
}

/// Where a move goes in bytes laid out as pbem writes them (the fast path): the length
/// of the bytes that stay, and the SHA-256 state after them.
struct Append {
    kept: usize,
    first: bool,
    hasher: Sha256,
}

/// A game file opened: the game as read, its bytes, and what is derived from them once.
struct Opened<R: Rules + 'static> {
    /// The game as read: every record, or on the fast path only the head.
    game: Game<R>,
    /// Records before those in `game` (the fast path reads only the head).
    earlier: u64,
    /// Whether `game` holds a chain known to hold (the fast path's bytes, or a game
    /// this opened game has moved on); else a move checks it first.
    checked: bool,
    /// Whether the file was opened on the fast path (only the head read).
    fast: bool,
    /// The whole game read on demand, when `game` holds only the head.
    whole: OnceCell<Game<R>>,
    bytes: Vec<u8>,
    digest: OnceCell<[u8; 32]>,
    append: Option<Append>,
    keyring: Option<Keyring>,
    seed: OnceCell<Option<Seed>>,
    /// The full current state, derived once.
    full: OnceCell<R::State>,
    /// Every record's report, derived once by a replay.
    reports: OnceCell<Vec<Vec<ReportLine>>>,
    /// The report of the move this opened game made, so the mail after it needs no
    /// replay.
    last_report: Option<(u64, Vec<ReportLine>)>,
    /// What decided the round of the head, a move: from the keyring's note, or from
    /// the move this opened game made.
    before_head: Option<RoundContext>,
    /// Whether `game` holds a window of the latest records that the keyring's note
    /// says is all a move needs (a game with hidden state, on the fast path).
    window: bool,
    /// The built-in players of the game's driver.
    bots: Option<&'static dyn BotPlayers<R>>,
}

/// What the keyring keeps of a file of a game with hidden state that this referee
/// wrote (its state note), so that the next move on exactly those bytes neither
/// replays the game nor reads every record.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Resume<S> {
    /// The full state after the last record.
    state: S,
    /// The first record the next move may need (1: the whole file): the move before
    /// the round the head belongs to, and every sealed move not yet opened; no record
    /// from it on takes back moves.
    from: u64,
    /// What decided the round of the head, a move.
    before_head: Option<RoundContext>,
}

impl<R: Rules + 'static> Opened<R> {
    fn whole(&self) -> Result<&Game<R>> {
        if self.earlier == 0 {
            return Ok(&self.game);
        }
        if let Some(game) = self.whole.get() {
            return Ok(game);
        }
        let game = Game::<R>::from_file(FileText::parse(&self.bytes)?.game_file()?)?;
        Ok(self.whole.get_or_init(|| game))
    }

    /// The seed: revealed in the file, or the keyring's, checked against the commitment.
    fn seed(&self) -> Result<Option<&Seed>> {
        if let Some(seed) = self.seed.get() {
            return Ok(seed.as_ref());
        }
        let seed = self.game.seed(self.keyring.as_ref())?;
        Ok(self.seed.get_or_init(|| seed).as_ref())
    }

    /// The full current state: the stored state when the game hides nothing, else a
    /// replay with the seed. `what` names the question, for the error without a seed.
    fn full(&self, what: &str) -> Result<&R::State> {
        if let Some(state) = self.full.get() {
            return Ok(state);
        }
        let state = if R::HAS_HIDDEN_STATE {
            let Some(seed) = self.seed()? else {
                return Err(EngineError::NeedsKeyring(what.to_string()));
            };
            self.whole()?.replay(Some(seed), None)?.state
        } else {
            self.game.file.state.clone()
        };
        Ok(self.full.get_or_init(|| state))
    }

    /// Every record's report, by one replay (with the seed for a game with hidden
    /// state; `what` names the question for the error without one).
    fn replayed_reports(&self, what: &str) -> Result<&Vec<Vec<ReportLine>>> {
        if let Some(reports) = self.reports.get() {
            return Ok(reports);
        }
        let seed = if R::HAS_HIDDEN_STATE {
            match self.seed()? {
                Some(seed) => Some(seed),
                None => return Err(EngineError::NeedsKeyring(what.to_string())),
            }
        } else {
            None
        };
        let reports = self.whole()?.reports(seed)?;
        Ok(self.reports.get_or_init(|| reports))
    }

    /// The move of record `turn` as a board marks it: its text, unless sealed and
    /// not yet opened.
    fn last_move(&self, turn: u64) -> Result<Option<LastMove>> {
        if turn == 0 {
            return Ok(None);
        }
        let record = if turn == self.turns() {
            self.game.file.records.last()
        } else {
            self.whole()?.file.records.get(turn as usize - 1)
        };
        let Some(record) = record else {
            return Ok(None);
        };
        if record.undo.is_some() {
            // Asking, answering or taking back moves changes nothing on the board.
            return Ok(None);
        }
        let seat = self.game.seat_of(&record.player)?;
        let text = match &record.sealed {
            None => Some(record.move_text.clone()),
            Some(_) => self.whole()?.opening_of(turn).map(|o| o.move_text.clone()),
        };
        Ok(Some(LastMove { seat, text }))
    }

    /// The number players read for the position after record `turn`: the moves
    /// standing up to it, that is the records less the steps of taking back and the
    /// moves they took back; the number the mail gives every turn. Without a step of
    /// taking back it is `turn`; format 1 has none.
    fn move_number(&self, turn: u64) -> Result<u64> {
        if self.game.version == super::file::Version::V1 {
            return Ok(turn);
        }
        let whole = self.whole()?;
        let ledger = whole.ledger()?;
        let taken_back = ledger.taken_back();
        Ok(whole
            .file
            .records
            .iter()
            .filter(|r| r.turn <= turn && r.undo.is_none() && !taken_back.contains(&r.turn))
            .count() as u64)
    }

    fn viewer(&self, name: Option<&str>) -> Result<Viewer> {
        match name {
            None => Ok(Viewer::Public),
            Some(name) if name.trim().eq_ignore_ascii_case(REFEREE) => Ok(Viewer::Referee),
            Some(name) => Ok(Viewer::Player(self.game.seat_of(name)?)),
        }
    }

    /// The state after `turn` records as `viewer` may see it, and that turn.
    fn position(&self, viewer: Viewer, turn: Option<u64>) -> Result<(R::State, u64)> {
        let last = self.turns();
        let turn = turn.unwrap_or(last);
        if turn > last {
            return Err(EngineError::Usage(format!(
                "turn {turn} has not been played; this game has turns 0 to {last}"
            )));
        }
        let rules = &self.game.rules;
        let what = || match viewer {
            Viewer::Player(seat) => format!(
                "{}'s view of a game with hidden information",
                self.game.names[seat]
            ),
            _ if turn < last => format!("the position after turn {turn}"),
            _ => "the referee's view".to_string(),
        };
        let state = match viewer {
            // The stored state is the public state after the last record.
            Viewer::Public if turn == last => return Ok((self.game.file.state.clone(), turn)),
            _ if turn == last => self.full(&what())?.clone(),
            _ => {
                let seed = if R::HAS_HIDDEN_STATE {
                    self.seed()?
                } else {
                    None
                };
                match self.whole()?.replay(seed, Some(turn)) {
                    Err(EngineError::NeedsKeyring(_)) => {
                        return Err(EngineError::NeedsKeyring(what()))
                    }
                    other => other?.state,
                }
            }
        };
        // The public never sees more than the public state, whatever a view shows.
        let state = match viewer {
            Viewer::Public => rules.public_state(&state),
            _ => state,
        };
        Ok((state, turn))
    }

    /// The seat of `player` and the full state when they are to move now; `None` when
    /// they are not (or the game is closed).
    fn on_turn(&self, player: &str) -> Result<Option<(Seat, &R::State)>> {
        let seat = self.game.seat_of(player)?;
        let what = format!(
            "{}'s moves in a game with hidden information",
            self.game.names[seat]
        );
        let state = self.full(&what)?;
        let rules = &self.game.rules;
        Ok(
            (!self.game.is_closed(state) && rules.to_move(state).contains(&seat))
                .then_some((seat, state)),
        )
    }

    fn outcome(&self, applied: &Applied<R::State>) -> MoveOutcome {
        let game = &self.game;
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
            sealed: applied.sealed,
            receipt: applied.hash.clone(),
            over: applied.over,
            to_move: names(&game.names, &game.rules.to_move(&applied.state)),
            winners: names(&game.names, &game.rules.winners(&applied.state)),
            seat: applied.seat,
            report: applied.report.clone(),
        }
    }

    /// Reads the whole file where only its head was read (the fast path): revealing
    /// and taking back moves rewrite it whole.
    fn read_all(&mut self) -> Result<()> {
        if self.earlier > 0 {
            self.game = Game::<R>::from_file(FileText::parse(&self.bytes)?.game_file()?)?;
            self.earlier = 0;
            self.append = None;
        }
        self.window = false;
        Ok(())
    }

    /// The move on the records read, with what is known of the position.
    fn apply_read(
        &mut self,
        keyring: &Keyring,
        player: &str,
        move_text: &str,
    ) -> Result<Applied<R::State>> {
        let known_state = if R::HAS_HIDDEN_STATE {
            match (self.full.get(), self.seed.get()) {
                // Derived already, or kept by the keyring for exactly these bytes.
                (Some(state), _) => Some(state.clone()),
                (None, Some(_)) => Some(self.full("a move")?.clone()),
                // The seed is read (and checked) by the move itself.
                (None, None) => None,
            }
        } else {
            Some(self.game.file.state.clone())
        };
        let known = Known {
            state: known_state,
            before_head: self.before_head.clone(),
        };
        self.game
            .apply_to_checked(keyring, player, move_text, self.earlier, known)
    }

    /// The first record the next move may need (see [`Resume::from`]), worked out from
    /// the records read, which reach back far enough by the same rule.
    fn resume_from(&self) -> u64 {
        let game = &self.game;
        let Some(head) = game.file.records.last() else {
            return 1;
        };
        // Formats 1 and 2 key a sealed move's draws on the run of sealed moves before
        // it: their files are read whole, as they always were.
        if !game.version.marks_rounds() {
            return 1;
        }
        let Ok(ledger) = game.ledger_before(self.earlier) else {
            return 1;
        };
        if !ledger.anchor_known() {
            return 1;
        }
        let anchor = ledger.round_inputs().anchor.unwrap_or(1);
        let unopened = game
            .file
            .records
            .iter()
            .filter(|record| record.is_sealed() && game.opening_of(record.turn).is_none())
            .map(|record| record.turn);
        let from = unopened.chain([anchor, head.turn]).min().unwrap_or(1);
        let takes_back = game
            .file
            .records
            .iter()
            .any(|record| record.turn >= from && record.undo.is_some());
        if takes_back {
            1
        } else {
            from
        }
    }

    /// After a move or a reveal: the new bytes, and everything derived from the old
    /// ones forgotten.
    fn replace_bytes(&mut self, bytes: Vec<u8>, digest: [u8; 32]) {
        self.bytes = bytes;
        self.digest = OnceCell::from(digest);
        self.whole = OnceCell::new();
        self.append = None;
        self.reports = OnceCell::new();
        self.before_head = None;
    }
}

/// A file read on the fast path: the game with only its latest records (the head, or
/// for a game with hidden state the window its state note names), the records before
/// them, where a new record goes, and, for a game with hidden state, what the
/// keyring's note kept for these bytes.
struct Verified<R: Rules> {
    game: Game<R>,
    earlier: u64,
    append: Append,
    resume: Option<Resume<R::State>>,
}

/// Reads the file's head and state when the bytes are exactly those this keyring's
/// referee last verified and wrote: the chain was checked before they were written,
/// and they are the same bytes. A game with hidden state takes its full state from the
/// keyring's state note for the same bytes (so it need not replay every record), with
/// the records from the first one its next move may need, and takes this path only
/// with one. `None` for any other file.
fn open_verified<'a, R: Rules>(
    text: FileText<'a>,
    bytes: &'a [u8],
    keyring: &Keyring,
) -> Result<std::result::Result<Verified<R>, FileText<'a>>> {
    let Some(appendable) = text.appendable(bytes) else {
        return Ok(Err(text));
    };
    // The records are the start of both the file read and the file written: hashed once.
    let hasher = Sha256::new().chain_update(appendable.kept);
    let digest: [u8; 32] = hasher
        .clone()
        .chain_update(&bytes[appendable.kept.len()..])
        .finalize()
        .into();
    if !keyring.is_verified(&text.genesis.id, &digest) {
        return Ok(Err(text));
    }
    // A note that is missing, stale, torn or does not read as a state costs only the
    // replay: the full path below.
    let resume = if R::HAS_HIDDEN_STATE {
        let cached = keyring
            .remembered_state(&text.genesis.id, &digest)
            .and_then(|note| serde_json::from_slice::<Resume<R::State>>(&note).ok());
        match cached {
            Some(resume) => Some(resume),
            None => return Ok(Err(text)),
        }
    } else {
        None
    };
    let turns = text.records.len();
    // The head alone, or the window the note names (the whole file at most).
    let from = match &resume {
        Some(resume) => usize::try_from(resume.from)
            .unwrap_or(1)
            .clamp(1, turns.max(1)),
        None => turns.max(1),
    };
    let earlier = from as u64 - 1;
    let records = (from..=turns)
        .map(|turn| text.record(turn))
        .collect::<Result<Vec<_>>>()?;
    let state = text.state_as_read()?;
    let version = text.version()?;
    let append = Append {
        kept: appendable.kept.len(),
        first: appendable.first,
        hasher,
    };
    let game = Game::<R>::from_file(GameFile {
        format: version.format().to_string(),
        genesis: text.genesis,
        records,
        seed: text.seed,
        state,
    })?;
    // The file's state is the public state of the full one: a note that disagrees is
    // not this file's, whatever digest it names.
    if let Some(resume) = &resume {
        if game.rules.public_state(&resume.state) != game.file.state {
            return Ok(Err(FileText::parse(bytes)?));
        }
    }
    Ok(Ok(Verified {
        game,
        earlier,
        append,
        resume,
    }))
}

impl<R: Rules + 'static> Opened<R> {
    fn new(
        game: Game<R>,
        bytes: Vec<u8>,
        keyring: Option<&Keyring>,
        bots: Option<&'static dyn BotPlayers<R>>,
    ) -> Opened<R> {
        Opened {
            bots,
            game,
            earlier: 0,
            checked: false,
            fast: false,
            whole: OnceCell::new(),
            bytes,
            digest: OnceCell::new(),
            append: None,
            keyring: keyring.cloned(),
            seed: OnceCell::new(),
            full: OnceCell::new(),
            reports: OnceCell::new(),
            last_report: None,
            before_head: None,
            window: false,
        }
    }
}

impl<R: Rules + 'static> Opened<R> {
    /// Draws the board of `turn` (the last when `None`) for `viewer` with `draw`: the
    /// one place that decides what a board of either kind may show.
    fn with_board_context<T>(
        &self,
        viewer: Option<&str>,
        turn: Option<u64>,
        draw: impl FnOnce(&R::State, &BoardContext<'_>) -> T,
    ) -> Result<T> {
        let viewer = self.viewer(viewer)?;
        let (state, turn) = self.position(viewer, turn)?;
        let mut last_move = self.last_move(turn)?;
        if let Some(last) = last_move.as_mut().filter(|last| last.text.is_none()) {
            // A sealed move not yet opened is its maker's to see (and the referee's).
            let may_see = matches!(viewer, Viewer::Referee)
                || matches!(viewer, Viewer::Player(seat) if seat == last.seat);
            if let (true, Some(seed)) = (may_see, self.seed()?) {
                let whole = self.whole()?;
                if let Some(record) = whole.file.records.get(turn as usize - 1) {
                    last.text = whole.move_of(Some(seed), record)?;
                }
            }
        }
        let context = BoardContext {
            viewer,
            names: &self.game.names,
            turn: self.move_number(turn)?,
            last_move,
        };
        Ok(draw(&state, &context))
    }
}

impl<R: Rules + 'static> GameDriver for Driver<R> {
    fn name(&self) -> &'static str {
        R::NAME
    }

    fn default_data(&self) -> &'static str {
        R::DEFAULT_DATA
    }

    fn bots(&self) -> Vec<BotId> {
        self.bots.map(|bots| bots.known()).unwrap_or_default()
    }

    fn create(&self, request: NewGame, keyring: &Keyring) -> Result<Vec<u8>> {
        let game = Game::<R>::create_played(request, keyring, &self.bots())?;
        game.file.to_bytes()
    }

    fn invite(&self, request: NewGame, keyring: &Keyring) -> Result<Vec<u8>> {
        Game::<R>::invite(request, keyring)?.to_bytes()
    }

    fn accept(&self, invitation: &Invitation, keyring: &Keyring) -> Result<Vec<u8>> {
        Game::<R>::accept(invitation, keyring)?.file.to_bytes()
    }

    fn open(
        &self,
        text: FileText<'_>,
        bytes: &[u8],
        keyring: Option<&Keyring>,
        to_move: bool,
    ) -> Result<Box<dyn OpenGame>> {
        let text = match keyring.filter(|_| to_move) {
            Some(keyring) => match open_verified::<R>(text, bytes, keyring)? {
                Ok(verified) => {
                    let mut opened =
                        Opened::new(verified.game, bytes.to_vec(), Some(keyring), self.bots);
                    opened.earlier = verified.earlier;
                    opened.checked = true;
                    opened.fast = true;
                    opened.append = Some(verified.append);
                    if let Some(resume) = verified.resume {
                        opened.full = OnceCell::from(resume.state);
                        opened.before_head = resume.before_head;
                        opened.window = true;
                    }
                    return Ok(Box::new(opened));
                }
                Err(text) => text,
            },
            None => text,
        };
        let game = Game::<R>::from_file(text.game_file()?)?;
        game.check_chain()?;
        let mut opened = Opened::new(game, bytes.to_vec(), keyring, self.bots);
        opened.checked = true;
        Ok(Box::new(opened))
    }

    fn open_to_audit(
        &self,
        text: FileText<'_>,
        bytes: &[u8],
        keyring: Option<&Keyring>,
    ) -> Result<Box<dyn OpenGame>> {
        let game = Game::<R>::from_file(text.game_file()?)?;
        Ok(Box::new(Opened::new(
            game,
            bytes.to_vec(),
            keyring,
            self.bots,
        )))
    }
}

impl<R: Rules + 'static> OpenGame for Opened<R> {
    fn name(&self) -> &'static str {
        R::NAME
    }

    fn genesis(&self) -> &Genesis {
        &self.game.file.genesis
    }

    fn turns(&self) -> u64 {
        self.earlier + self.game.file.records.len() as u64
    }

    fn seed_revealed(&self) -> Option<&str> {
        self.game.file.seed.as_deref()
    }

    fn public_records(&self) -> Result<Vec<PublicRecord>> {
        let game = self.whole()?;
        // After the reveal anyone can open every sealed move.
        let revealed = match &game.file.seed {
            Some(_) => game.seed(None)?,
            None => None,
        };
        let taken_back = game.ledger()?;
        let taken_back = taken_back.taken_back();
        game.file
            .records
            .iter()
            .map(|record| {
                Ok(PublicRecord {
                    turn: record.turn,
                    player: record.player.clone(),
                    move_text: match record.undo {
                        Some(_) => None,
                        None => game.move_of(revealed.as_ref(), record)?,
                    },
                    undo: record.undo,
                    taken_back: taken_back.contains(&record.turn),
                })
            })
            .collect()
    }

    fn view(&self, viewer: Option<&str>, turn: Option<u64>) -> Result<Value> {
        let viewer = self.viewer(viewer)?;
        let (state, turn) = self.position(viewer, turn)?;
        let game = &self.game;
        let rules = &game.rules;
        let custom = rules.view(&state, viewer, &game.names);
        let scores = rules.scores(&state);
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
        let last = self.turns();
        let mut view = Map::new();
        view.insert("schema".into(), json!(VIEW_SCHEMA));
        view.insert("game".into(), json!(R::NAME));
        view.insert("id".into(), json!(game.file.genesis.id));
        view.insert("turn".into(), json!(turn));
        let over = rules.is_over(&state);
        // Closed is a fact of the file as it is now, not of a past position shown.
        let closed = turn == last && game.is_closed(&state);
        // The signed head of the position shown: a player holding it can later prove
        // a rolled-back file (`pbem audit FILE --head HASH`).
        let head = if turn == 0 {
            Some(game.file.genesis.hash.clone())
        } else if turn == last {
            game.file.records.last().map(|r| r.hash.clone())
        } else {
            self.whole()?
                .file
                .records
                .get(turn as usize - 1)
                .map(|r| r.hash.clone())
        };
        view.insert("head".into(), json!({"turn": turn, "hash": head}));
        view.insert("status".into(), json!(rules.status(&state)));
        view.insert("over".into(), json!(over));
        view.insert("closed".into(), json!(closed));
        let to_move = if closed {
            Vec::new()
        } else {
            rules.to_move(&state)
        };
        view.insert("to_move".into(), json!(names(&game.names, &to_move)));
        view.insert(
            "winners".into(),
            json!(names(&game.names, &rules.winners(&state))),
        );
        view.insert("players".into(), Value::Array(players));
        // A request to take back moves waiting for answers, in the current position.
        let request = match turn == last && !over {
            true => self.whole()?.ledger()?.pending().cloned(),
            false => None,
        };
        let ledger_names = |seats: &[Seat]| json!(names(&game.names, seats));
        view.insert(
            "undo".into(),
            match request {
                Some(p) => json!({
                    "asked_by": game.names[p.asker],
                    "takes_back": p.from,
                    "agreed": ledger_names(&p.agreed),
                    "waiting_for": ledger_names(
                        &(0..game.names.len())
                            .filter(|&s| s != p.asker && !p.agreed.contains(&s))
                            .collect::<Vec<_>>()
                    ),
                }),
                None => Value::Null,
            },
        );
        for (key, value) in custom.fields {
            view.entry(key).or_insert(value);
        }
        Ok(Value::Object(view))
    }

    fn board(&self, viewer: Option<&str>, turn: Option<u64>) -> Result<String> {
        self.with_board_context(viewer, turn, |state, context| {
            self.game.rules.board(state, context)
        })
    }

    fn board_svg(&self, viewer: Option<&str>, turn: Option<u64>) -> Result<String> {
        self.with_board_context(viewer, turn, |state, context| {
            self.game.rules.board_svg(state, context)
        })
    }

    fn legend(&self) -> String {
        self.game.rules.legend()
    }

    fn report(&self, viewer: Option<&str>, turn: Option<u64>) -> Result<Vec<String>> {
        let viewer = self.viewer(viewer)?;
        let last = self.turns();
        let turn = turn.unwrap_or(last);
        if turn > last {
            return Err(EngineError::Usage(format!(
                "turn {turn} has not been played; this game has turns 0 to {last}"
            )));
        }
        if turn == 0 {
            return Ok(Vec::new());
        }
        let lines = match (&self.last_report, self.reports.get()) {
            (Some((made, lines)), _) if *made == turn => lines.clone(),
            (_, Some(reports)) => reports.get(turn as usize - 1).cloned().unwrap_or_default(),
            _ => self
                .replayed_reports(&format!("the report of turn {turn}"))?
                .get(turn as usize - 1)
                .cloned()
                .unwrap_or_default(),
        };
        Ok(lines
            .into_iter()
            .filter(|line| line.seen_by(viewer))
            .map(|line| line.text)
            .collect())
    }

    fn preview(&self, player: &str, move_text: &str) -> Result<Preview> {
        let seat = self.game.seat_of(player)?;
        let what = format!(
            "a preview of {}'s move in a game with hidden information",
            self.game.names[seat]
        );
        let next = self.move_number(self.turns())? + 1;
        self.game
            .preview(self.full(&what)?, player, move_text, next)
    }

    fn moves_text(&self, player: &str, filter: &MoveFilter) -> Result<Option<String>> {
        // No place or tile name is near this long: a longer one matches nothing, and
        // what the list says of it (quoting it) says so of its start alone.
        const FILTER_CHARS: usize = 40;
        let cut = |value: &Option<String>| {
            value
                .as_ref()
                .map(|text| match text.char_indices().nth(FILTER_CHARS) {
                    Some((end, _)) => format!("{}…", &text[..end]),
                    None => text.clone(),
                })
        };
        let filter = MoveFilter {
            at: cut(&filter.at),
            tile: cut(&filter.tile),
        };
        Ok(self.on_turn(player)?.map(|(seat, state)| {
            self.game
                .rules
                .moves_text(state, seat, &filter, &self.game.names)
        }))
    }

    fn game_end(&self) -> Result<Option<GameEnd>> {
        let rules = &self.game.rules;
        if !rules.is_over(&self.game.file.state) {
            return Ok(None);
        }
        let state = self.full("the end of a game with hidden information")?;
        Ok(Some(rules.game_end(state, &self.game.names)))
    }

    fn rules_page(&self) -> &'static str {
        R::RULES_PAGE
    }

    fn legal(&self, player: &str) -> Result<Vec<LegalMove>> {
        Ok(self
            .on_turn(player)?
            .map(|(seat, state)| self.game.rules.legal_moves(state, seat))
            .unwrap_or_default())
    }

    fn example(&self, player: &str) -> Result<Option<String>> {
        Ok(self
            .on_turn(player)?
            .and_then(|(seat, state)| self.game.rules.example_move(state, seat)))
    }

    fn example_any(&self, player: &str) -> Result<Option<String>> {
        let seat = self.game.seat_of(player)?;
        let what = format!(
            "an example for {} in a game with hidden information",
            self.game.names[seat]
        );
        let state = self.full(&what)?;
        if self.game.is_closed(state) || self.game.rules.is_over(state) {
            return Ok(None);
        }
        Ok(self.game.rules.example_move(state, seat))
    }

    fn deadline_move(&self, player: &str, choice: Deadline) -> Result<Option<String>> {
        let rules = &self.game.rules;
        Ok(self.on_turn(player)?.and_then(|(seat, state)| {
            let mv = rules.deadline_move(state, seat, choice)?;
            Some(rules.canonical_text(&mv))
        }))
    }

    fn forced_move(&self) -> Result<Option<(String, String)>> {
        let rules = &self.game.rules;
        for name in &self.game.names {
            if let Some((seat, state)) = self.on_turn(name)? {
                if let Some(mv) = rules.forced_move(state, seat) {
                    return Ok(Some((name.clone(), rules.canonical_text(&mv))));
                }
            }
        }
        Ok(None)
    }

    fn sample_move(&self, player: &str, rng: &mut DrawStream) -> Result<Option<String>> {
        let rules = &self.game.rules;
        Ok(self.on_turn(player)?.and_then(|(seat, state)| {
            let mv = rules.sample_move(state, seat, rng)?;
            Some(rules.canonical_text(&mv))
        }))
    }

    fn bot_move(&self, player: &str) -> Result<Option<String>> {
        let seat = self.game.seat_of(player)?;
        let Some(named) = self.game.file.genesis.players[seat].bot() else {
            return Ok(None);
        };
        let Some((seat, state)) = self.on_turn(player)? else {
            return Ok(None);
        };
        let name = &self.game.names[seat];
        let known = self.bots.map(|bots| bots.known()).unwrap_or_default();
        let not_played = |why: String| {
            EngineError::BotNotPlayed(format!(
                "{name}'s seat is played by bot:{named}, and {why}: the referee's machine cannot make its moves (it plays {}); finish the game with a pbem that plays that bot",
                listed(&known)
            ))
        };
        let bot = BotId::parse(named).map_err(not_played)?;
        let bots = match self.bots.filter(|_| find_bot(&bot, &known).is_ok()) {
            Some(bots) => bots,
            None => return Err(not_played(format!("this pbem does not play {bot}"))),
        };
        let key = if self.game.bot_keyed(&bot) {
            let seed = self.seed()?.ok_or_else(|| {
                EngineError::NeedsKeyring(format!("the move of {name}'s seat, a bot's,"))
            })?;
            // The round the move would belong to decides its key: read from the whole
            // file, as a bot's move is rare and the window is a person's move's.
            let whole = self.whole()?;
            let turn = self.turns() + 1;
            let (ledger, _) = whole.ledger_with(Some(seed), 0, state, (turn, seat), None)?;
            whole.bot_key(seed, &ledger, (turn, seat), named)?
        } else {
            // A file without the bot's version, or of an older format: the bot's own
            // stream from the system, as such games always had it.
            super::keyring::random_bytes()?
        };
        bots.play(
            &bot,
            &self.game.rules,
            state,
            seat,
            &mut DrawStream::new(key),
        )
        .map_err(|NotPlayed| not_played(format!("this pbem does not play {bot}")))
    }

    fn log(&self) -> Result<String> {
        let game = self.whole()?;
        let genesis = &game.file.genesis;
        // Once the seed is in the file nothing is hidden any more: every hidden draw is
        // shown opened, and the lines a report kept for one player are shown too.
        let revealed = match &game.file.seed {
            Some(_) => self.seed()?.map(|seed| (seed, game.scope())),
            None => None,
        };
        let opened = |draws: &[super::file::Draw], turn: u64| match &revealed {
            Some((seed, Ok(scope))) => opened_draws_text(draws, seed, scope, turn),
            _ => draws_text(draws),
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "game {} ({}), players {}, setup draws {}",
            genesis.id,
            genesis.game,
            game.names.join(", "),
            opened(&genesis.draws, 0)
        );
        // The public lines of every record's report, where they can be worked out: a
        // game with hidden state needs the seed to replay.
        let reports = match self.replayed_reports("the reports in the log") {
            Ok(reports) => Some(reports),
            Err(EngineError::NeedsKeyring(_)) => None,
            Err(error) => return Err(error),
        };
        for (index, (record, public)) in game
            .file
            .records
            .iter()
            .zip(self.public_records()?)
            .enumerate()
        {
            let shown = match (&record.sealed, public.move_text) {
                _ if record.undo.is_some() => String::new(),
                (None, _) => record.move_text.replace('\n', "; "),
                (Some(_), None) => format!("(sealed: {} has chosen)", record.player),
                (Some(_), Some(text)) => format!("(sealed, opened: {})", text.replace('\n', "; ")),
            };
            let opens = if record.opens.is_empty() {
                String::new()
            } else {
                let turns: Vec<String> = record.opens.iter().map(|o| o.turn.to_string()).collect();
                format!("  opens turn {}", turns.join(", "))
            };
            let hash = &record.hash[..16.min(record.hash.len())];
            if let Some(undo) = record.undo {
                let _ = writeln!(
                    out,
                    "turn {:>3}  {:<12} ({})  hash {hash}",
                    record.turn,
                    record.player,
                    super::undo::undo_line(&record.player, undo)
                );
                continue;
            }
            let taken = if public.taken_back {
                "  (taken back)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "turn {:>3}  {:<12} {shown}{opens}{taken}  draws {}  hash {hash}",
                record.turn,
                record.player,
                opened(&record.draws, record.turn),
            );
            let lines = reports.and_then(|all| all.get(index)).into_iter().flatten();
            for line in lines {
                if line.seen_by(Viewer::Public) {
                    let _ = writeln!(out, "          {}", line.text);
                } else if let (Some(_), Audience::Seat(seat)) = (&revealed, line.audience) {
                    let reader = game.names.get(seat).map_or("?", String::as_str);
                    let _ = writeln!(out, "          (to {reader}) {}", line.text);
                }
            }
        }
        match &game.file.seed {
            Some(seed) => {
                let _ = writeln!(out, "seed revealed: {seed}");
            }
            None => {
                let _ = writeln!(out, "seed committed: {}", genesis.seed_commitment);
            }
        }
        if reports.is_none() && !game.file.records.is_empty() {
            let _ = writeln!(
                out,
                "(what each turn did is worked out by replay, which in a game with hidden information needs the referee's keyring or the revealed seed)"
            );
        }
        Ok(out)
    }

    fn audit(&self) -> AuditReport {
        match self.whole() {
            Ok(game) => game.audit_played(self.keyring.as_ref(), self.bots),
            Err(error) => {
                let mut report = AuditReport::default();
                report.lines.push(format!("FAILED audit stopped: {error}"));
                report.problems.push(error.to_string());
                report
            }
        }
    }

    fn apply(&mut self, keyring: &Keyring, player: &str, move_text: &str) -> Result<MoveOutcome> {
        // Formats 3 and 4 key a move's draws on the last move standing before its
        // round (its hash, or in format 4 its standing history) and the round's moves:
        // the head alone tells that only when it is a move made alone. A game with hidden
        // state may open sealed moves of any earlier record: it reads the window its
        // note names, or else every record (parsed only: the state is known, the chain
        // held).
        let head_alone = self
            .game
            .file
            .records
            .last()
            .is_none_or(|head| head.undo.is_none() && head.round.is_none());
        if !self.window
            && ((self.game.version.marks_rounds() && !head_alone) || R::HAS_HIDDEN_STATE)
        {
            self.read_all()?;
        }
        if !self.checked {
            self.game.check_chain()?;
            self.checked = true;
        }
        self.keyring = Some(keyring.clone());
        let applied = match self.apply_read(keyring, player, move_text) {
            // The note's window fell short (it never should): the move again, on every
            // record.
            Err(EngineError::BeyondWindow(_)) => {
                self.read_all()?;
                self.apply_read(keyring, player, move_text)?
            }
            other => other?,
        };
        let outcome = self.outcome(&applied);
        // Where the new record went is where the next one goes: a move that follows in
        // this run (a forced or a bot's move, by mail) appends too, and never writes
        // only the records it read.
        let (bytes, digest, next) = match self.append.take() {
            Some(append) => {
                let file = &self.game.file;
                let record = file
                    .records
                    .last()
                    .ok_or_else(|| EngineError::Malformed("the new record is missing".into()))?;
                let line = super::file::record_line(append.first, record)?;
                let hasher = append.hasher.chain_update(&line);
                let mut bytes = std::mem::take(&mut self.bytes);
                bytes.truncate(append.kept);
                bytes.extend_from_slice(&line);
                let kept = bytes.len();
                super::file::append_tail(&mut bytes, &file.seed, &file.state)?;
                let digest = hasher
                    .clone()
                    .chain_update(&bytes[kept..])
                    .finalize()
                    .into();
                let next = Append {
                    kept,
                    first: false,
                    hasher,
                };
                (bytes, digest, Some(next))
            }
            None => {
                let bytes = self.game.file.to_bytes()?;
                let digest = sha256(&bytes);
                (bytes, digest, None)
            }
        };
        self.replace_bytes(bytes, digest);
        self.append = next;
        self.full = OnceCell::from(applied.state);
        self.before_head = Some(applied.before);
        self.last_report = Some((applied.turn, applied.report));
        Ok(outcome)
    }

    fn may_take_back(&self, player: &str) -> Result<bool> {
        let seat = self.game.seat_of(player)?;
        if self.game.version == super::file::Version::V1 {
            return Ok(false);
        }
        Ok(self.whole()?.ledger()?.plan(seat, UndoStep::Undo).is_ok())
    }

    fn take_back(
        &mut self,
        keyring: &Keyring,
        player: &str,
        word: UndoStep,
    ) -> Result<UndoOutcome> {
        self.read_all()?;
        if !self.checked {
            self.game.check_chain()?;
            self.checked = true;
        }
        self.keyring = Some(keyring.clone());
        let taken = self.game.take_back(keyring, player, word)?;
        let game = &self.game;
        let names = &game.names;
        // The request the words concern: the one waiting before them, or the one they
        // made.
        let request = taken.before.pending().or(taken.after.pending()).cloned();
        let added: Vec<(u64, String, UndoStep)> = taken
            .added
            .iter()
            .map(|(turn, seat, undo)| (*turn, names[*seat].clone(), undo.step))
            .collect();
        let done = taken.added.iter().any(|(_, _, u)| u.step == UndoStep::Undo);
        let from = taken.added.first().map_or(0, |(_, _, u)| u.turn);
        let asked_by = match &request {
            Some(p) => names[p.asker].clone(),
            None => added.first().map(|a| a.1.clone()).unwrap_or_default(),
        };
        let moves = game.moves_from(&taken.before, from);
        // Who agreed: those of the request still waiting, or, once it is done, every
        // agreement including the one just written.
        let agreed: Vec<String> = match (taken.after.pending(), &request) {
            (Some(pending), _) => pending.agreed.iter().map(|&s| names[s].clone()).collect(),
            (None, Some(pending)) if done => pending
                .agreed
                .iter()
                .map(|&s| names[s].clone())
                .chain(
                    added
                        .iter()
                        .filter(|(_, _, step)| *step == UndoStep::Agree)
                        .map(|(_, name, _)| name.clone()),
                )
                .collect(),
            _ => Vec::new(),
        };
        let outcome = UndoOutcome {
            added,
            asked_by,
            from,
            moves,
            agreed,
            waiting_for: super::driver::names(names, &taken.after.waiting_for()),
            done,
            to_move: super::driver::names(names, &game.rules.to_move(&taken.state)),
        };
        let bytes = self.game.file.to_bytes()?;
        let digest = sha256(&bytes);
        self.replace_bytes(bytes, digest);
        self.full = OnceCell::from(taken.state);
        Ok(outcome)
    }

    fn reveal(&mut self, keyring: &Keyring) -> Result<()> {
        self.read_all()?;
        self.game.reveal(keyring)?;
        let bytes = self.game.file.to_bytes()?;
        let digest = sha256(&bytes);
        self.replace_bytes(bytes, digest);
        self.seed = OnceCell::new();
        self.keyring = Some(keyring.clone());
        Ok(())
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn digest(&self) -> [u8; 32] {
        *self.digest.get_or_init(|| sha256(&self.bytes))
    }

    fn read_whole(&self) -> bool {
        !self.fast
    }

    fn records_read(&self) -> u64 {
        self.game.file.records.len() as u64
    }

    fn state_note(&self) -> Option<Vec<u8>> {
        if !R::HAS_HIDDEN_STATE {
            // The file's own state is the full state: nothing to keep.
            return None;
        }
        serde_json::to_vec(&Resume {
            state: self.full.get()?,
            from: self.resume_from(),
            before_head: self.before_head.clone(),
        })
        .ok()
    }
}

fn names(all: &[String], seats: &[usize]) -> Vec<String> {
    seats
        .iter()
        .filter_map(|&seat| all.get(seat).cloned())
        .collect()
}

/// Draws as [`draws_text`] writes them, each hidden one opened with the revealed seed
/// (`pick/of`; `?/of` if its commitment opens to no pick, which the audit reports).
fn opened_draws_text(
    draws: &[super::file::Draw],
    seed: &Seed,
    scope: &super::fairness::Scope,
    turn: u64,
) -> String {
    use super::file::Draw;
    if draws.is_empty() {
        return draws_text(draws);
    }
    draws
        .iter()
        .enumerate()
        .map(|(index, draw)| match draw {
            Draw::Hidden { of, commit } => {
                let salt = seed.salt_in(scope, turn, u32::try_from(index).unwrap_or(u32::MAX));
                let pick = (0..*of).find(|&pick| {
                    crate::basics::digest::to_hex(&super::fairness::hidden_commitment(
                        &salt, *of, pick,
                    )) == *commit
                });
                match pick {
                    Some(pick) => format!("{pick}/{of}"),
                    None => draw.to_string(),
                }
            }
            Draw::Public { .. } => draw.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
