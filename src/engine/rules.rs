//! The contract between the engine and a game.
//!
//! The engine knows no game: it stores moves, derives draws and signs records. A game
//! implements [`Rules`]: pure functions of a state and a move. Rules code never does I/O
//! and never sees the seed; every random choice goes through [`Chance`].

use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A player's place at the table, 0-based, in the order the players were listed.
pub type Seat = usize;

/// Options as given on the command line (`--option KEY=VALUE`) over the defaults of
/// the game's data file. Values stay strings so that the genesis record can hash them
/// without a JSON canonical form.
pub type Options = BTreeMap<String, String>;

/// What the rules say of the round a move belongs to ([`Rules::round_label`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RoundLabel {
    /// Read from who is to move: several seats awaited make a round, each seat moving
    /// once, while exactly the round's other seats are awaited.
    ByWhoMoves,
    /// A move made alone, whoever else is awaited.
    Alone,
    /// The round with this number: every move made in a position of the same number
    /// belongs to one round, whoever makes it and however often.
    Phase(u64),
}

/// Whether other players may learn the outcome of a draw when it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Recorded in clear in the game file (a tile drawn into a face-up hand).
    Public,
    /// Recorded only as a salted commitment until the seed is revealed.
    Hidden,
}

/// The only source of randomness a game may use.
pub trait Chance {
    /// A uniformly chosen index in `0..n`. `n` must be at least 1.
    fn draw(&mut self, n: u32, visibility: Visibility) -> u32;
}

/// Who is looking at a view or a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    /// Anyone: the public view, also what the game file holds.
    Public,
    /// One player, who may see their own hidden material.
    Player(Seat),
    /// The referee, who sees everything.
    Referee,
}

/// What the referee may do for a player who keeps a game waiting past the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadline {
    /// Skip the player's turn, where the rules allow it.
    Skip,
    /// The player forfeits.
    Forfeit,
}

/// A refused move or setup: what was wrong, and what would be accepted.
///
/// Both parts are shown to a player, so they must be sentences that player can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// What was wrong, lowercase, no trailing period.
    pub problem: String,
    /// What would be accepted instead, ideally with an example that is legal right now.
    pub accepted: String,
}

impl RuleError {
    /// A refusal; a long quote of the player's text in `problem` is cut
    /// ([`crate::basics::echo::with_short_quotes`]), so no error echoes a whole huge move.
    pub fn new(problem: impl Into<String>, accepted: impl Into<String>) -> Self {
        RuleError {
            problem: crate::basics::echo::with_short_quotes(&problem.into()),
            accepted: accepted.into(),
        }
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.accepted.is_empty() {
            write!(f, "{}", self.problem)
        } else {
            write!(f, "{}; {}", self.problem, self.accepted)
        }
    }
}

impl std::error::Error for RuleError {}

/// One entry of `pbem legal`: a move text that `apply` accepts as it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegalMove {
    /// The move text, exactly as a player could send it.
    #[serde(rename = "move")]
    pub text: String,
    /// What sort of move it is ("place", "buy", ...), game-specific.
    pub kind: String,
    /// Further facts about the move (cell, cost, profit, ...), game-specific.
    #[serde(flatten)]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// Who may read a line of a turn report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    /// Every player and anyone reading the game file.
    Everyone,
    /// Only the player in this seat (and the referee): their own hidden draw, say.
    Seat(Seat),
}

/// One line of what a turn did: what it cost, earned, drew, discarded, scored or
/// revealed, in words a player reads (no trailing period needed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReportLine {
    pub audience: Audience,
    pub text: String,
    /// Whether the line tells what a draw gave. A preview makes no real draw, so these
    /// lines are left out of it (and replaced by a count of the draws the move makes).
    pub tells_draw: bool,
}

impl ReportLine {
    /// A line every player may read.
    pub fn everyone(text: impl Into<String>) -> Self {
        ReportLine {
            audience: Audience::Everyone,
            text: text.into(),
            tells_draw: false,
        }
    }

    /// A line only the player in `seat` may read.
    pub fn only(seat: Seat, text: impl Into<String>) -> Self {
        ReportLine {
            audience: Audience::Seat(seat),
            text: text.into(),
            tells_draw: false,
        }
    }

    /// The same line, marked as telling what a draw gave.
    #[must_use]
    pub fn drawn(mut self) -> Self {
        self.tells_draw = true;
        self
    }

    /// Whether `viewer` may read this line.
    pub fn seen_by(&self, viewer: Viewer) -> bool {
        match (self.audience, viewer) {
            (Audience::Everyone, _) | (_, Viewer::Referee) => true,
            (Audience::Seat(seat), Viewer::Player(reader)) => seat == reader,
            (Audience::Seat(_), Viewer::Public) => false,
        }
    }
}

/// The report line of every score a turn changed, "Ann 15 (+3), Bob 7 (-1)"; `None`
/// when no score changed. What the default [`Rules::report`] gives.
pub fn score_changes(before: &[i64], after: &[i64], names: &[String]) -> Option<ReportLine> {
    let changed: Vec<String> = after
        .iter()
        .enumerate()
        .filter_map(|(seat, &now)| {
            let was = before.get(seat).copied().unwrap_or(0);
            let name = names.get(seat).map_or("?", String::as_str);
            (now != was).then(|| format!("{name} {now} ({:+})", now - was))
        })
        .collect();
    (!changed.is_empty()).then(|| ReportLine::everyone(format!("Scores: {}", changed.join(", "))))
}

/// What narrows the readable list of moves (`pbem legal --at CELL --tile T`, the mail
/// reply `moves C5`). Each game says what a cell and a tile are in its own terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MoveFilter {
    /// Only moves at this place (a cell, square or space name, any case).
    pub at: Option<String>,
    /// Only moves with this tile, card or piece (its name, any case).
    pub tile: Option<String>,
}

impl MoveFilter {
    pub fn is_empty(&self) -> bool {
        self.at.is_none() && self.tile.is_none()
    }

    /// The generic test: each filter given names a word of the move's text or a value
    /// of its details, any case.
    pub fn matches(&self, entry: &LegalMove) -> bool {
        let names = |wanted: &str| {
            let wanted = wanted.trim();
            entry
                .text
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| word.eq_ignore_ascii_case(wanted))
                || entry.details.values().any(|value| match value {
                    serde_json::Value::String(text) => text.eq_ignore_ascii_case(wanted),
                    other => other.to_string().eq_ignore_ascii_case(wanted),
                })
        };
        self.at.as_deref().is_none_or(names) && self.tile.as_deref().is_none_or(names)
    }
}

/// How a game ended, for the game-over mail and view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GameEnd {
    /// Why it ended, a sentence ("nobody can place a tile any more").
    pub reason: String,
    /// Each seat's score broken down, a line per part ("E9 $: 2 points"); a forfeit
    /// says so here.
    pub breakdown: Vec<Vec<String>>,
}

/// The move that led to the position a board shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastMove {
    pub seat: Seat,
    /// Its canonical text; `None` when it was sealed and not yet opened.
    pub text: Option<String>,
}

/// What a board is drawn for, besides the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardContext<'a> {
    pub viewer: Viewer,
    pub names: &'a [String],
    /// The turn's number as players read it: the moves standing so far (records less
    /// the steps of taking back and the moves they took back), the number the mail
    /// gives; with no move taken back, the records in the file.
    pub turn: u64,
    /// The move of that turn, to be marked on the board; `None` at the setup.
    pub last_move: Option<LastMove>,
}

/// The heading of the player's summary in a game's rules page (`Rules::RULES_PAGE`),
/// quoted in every welcome.
pub const SUMMARY_HEADING: &str = "## The game in brief";
/// The heading of the move language in a game's rules page, quoted in every welcome.
pub const MOVES_HEADING: &str = "## Move language";

/// The text of the section under `heading` (a `## ` line) in a rules page, up to the
/// next `## ` heading, trimmed; empty when the page has no such section.
pub fn page_section(page: &str, heading: &str) -> String {
    let mut lines = page.lines().skip_while(|line| line.trim_end() != heading);
    if lines.next().is_none() {
        return String::new();
    }
    lines
        .take_while(|line| !line.starts_with("## "))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// The game-specific part of `pbem show --format json`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameView {
    /// One object per seat, merged into the engine's `{"name", "score"}` entries.
    pub players: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Top-level fields ("board", "setup", ...).
    pub fields: serde_json::Map<String, serde_json::Value>,
}

/// The options chosen, checked against those a game declares as (name, default) pairs
/// and completed with the defaults: what the default [`Rules::from_data`] passes to
/// [`Rules::from_options`]. Values are trimmed; checking them is the game's part.
///
/// # Errors
/// An option the game does not declare, with the ones it does.
pub fn declared_options(
    game: &str,
    declared: &[(&str, &str)],
    chosen: &Options,
) -> Result<Options, RuleError> {
    if let Some(unknown) = chosen
        .keys()
        .find(|key| !declared.iter().any(|(name, _)| name == key))
    {
        let accepted = match declared.first() {
            None => format!("{game} takes no options; leave out --option"),
            Some((name, default)) => format!(
                "the options of {game} are {}, e.g. `--option {name}={default}`",
                declared
                    .iter()
                    .map(|(name, default)| format!("{name} (default {default})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(RuleError::new(
            format!("{game} has no option `{unknown}`"),
            accepted,
        ));
    }
    Ok(declared
        .iter()
        .map(|(name, default)| {
            let value = chosen.get(*name).map_or(*default, |value| value.trim());
            ((*name).to_string(), value.to_string())
        })
        .collect())
}

/// Refuses rules data written for another revision of a game's rules than the one this
/// pbem plays (`plays`): a game started under other rules would replay as another game,
/// or not at all, so it is refused with the way forward instead of misread.
///
/// # Errors
/// `found` is not `plays`.
pub fn check_revision(game: &str, found: u32, plays: u32) -> Result<(), RuleError> {
    if found == plays {
        return Ok(());
    }
    Err(RuleError::new(
        format!(
            "this game was started under revision {found} of the {game} rules; this pbem plays revision {plays} (docs/rules/{game}.md)"
        ),
        "finish, show and audit it with the pbem that started it (genesis names it under `engine`), or start a new game",
    ))
}

/// A game: its rules as pure functions.
///
/// Implementations must uphold:
/// - `apply` validates completely before changing anything and returns a new state, so a
///   refused move leaves no trace and consumes no draw that matters (the engine discards
///   the chance source of a refused move);
/// - the same state, seat, move and draws always give the same result;
/// - `public_state` removes everything a [`Viewer::Public`] may not see; the game file
///   stores only that.
pub trait Rules: Sized {
    /// The full state, including hidden material where the game has any.
    type State: Clone + PartialEq + fmt::Debug + Serialize + DeserializeOwned;
    /// A parsed move: one player's whole turn.
    type Move: Clone + fmt::Debug;

    /// The name players and files use, such as "right-of-way".
    const NAME: &'static str;
    /// The built-in rules data (components and option defaults), `games/<NAME>.toml`,
    /// for a game that has such a file and overrides [`Rules::from_data`] to read it.
    /// Empty for a game without one: its options are then [`Rules::OPTIONS`].
    const DEFAULT_DATA: &'static str = "";
    /// The options a game without rules data accepts, as (name, default) pairs, for the
    /// default [`Rules::from_data`]. A game that reads its own data ignores this.
    const OPTIONS: &'static [(&'static str, &'static str)] = &[];
    /// Whether the state ever holds material some players may not see. When false, the
    /// stored state is the full state and the engine need not replay to rebuild it.
    const HAS_HIDDEN_STATE: bool = false;

    /// Builds the rules from a data file's text and the options chosen for a game.
    ///
    /// The default is for a game without rules data: it refuses any data, refuses an
    /// option not in [`Rules::OPTIONS`] (saying which are accepted), fills in the
    /// defaults and hands the result to [`Rules::from_options`]. A game with a data file
    /// overrides this and parses its data here.
    ///
    /// # Errors
    /// An unknown option, a value out of range or malformed data.
    fn from_data(data: &str, options: &Options) -> Result<Self, RuleError> {
        if !data.trim().is_empty() {
            return Err(RuleError::new(
                format!(
                    "{} has no rules data, yet the game carries some",
                    Self::NAME
                ),
                "a game of this pbem's rules, whose genesis has empty rules_data",
            ));
        }
        Self::from_options(&declared_options(Self::NAME, Self::OPTIONS, options)?)
    }

    /// Builds the rules of a game without rules data from its options: every name of
    /// [`Rules::OPTIONS`] is present, with the value chosen or its default, and no other.
    /// Only the default [`Rules::from_data`] calls it; a game that overrides that need
    /// not implement this.
    ///
    /// # Errors
    /// A value the game does not accept, with the values it does.
    fn from_options(options: &Options) -> Result<Self, RuleError> {
        let _ = options;
        Err(RuleError::new(
            format!(
                "{} builds its rules neither from data nor from options",
                Self::NAME
            ),
            "implement Rules::from_options, or Rules::from_data for a game with a data file",
        ))
    }

    /// The options in effect, defaults filled in, as recorded in the genesis record.
    fn options(&self) -> Options;

    /// The opening state for these players (names in seat order).
    ///
    /// # Errors
    /// A player count the game does not support.
    fn setup(&self, players: &[String], chance: &mut dyn Chance) -> Result<Self::State, RuleError>;

    /// The seats that may move now; empty when the game is over.
    fn to_move(&self, state: &Self::State) -> Vec<Seat>;

    /// Whether the game has ended.
    fn is_over(&self, state: &Self::State) -> bool;

    /// Reads a move text as submitted by the player in `seat`.
    ///
    /// # Errors
    /// Text that is not a move, with what would be accepted.
    fn parse_move(
        &self,
        state: &Self::State,
        seat: Seat,
        text: &str,
    ) -> Result<Self::Move, RuleError>;

    /// The canonical text of a parsed move, with every default filled in: what the
    /// engine echoes back to the player as understood. `parse_move` must accept it.
    fn canonical_text(&self, mv: &Self::Move) -> String;

    /// Applies a whole turn, all or nothing.
    ///
    /// # Errors
    /// A move the rules do not allow now; nothing is changed.
    fn apply(
        &self,
        state: &Self::State,
        seat: Seat,
        mv: &Self::Move,
        chance: &mut dyn Chance,
    ) -> Result<Self::State, RuleError>;

    /// Every legal complete move for `seat` now (may be long).
    fn legal_moves(&self, state: &Self::State, seat: Seat) -> Vec<LegalMove>;

    /// One move `seat` may make now, as text, for the examples in notices and refusals;
    /// `None` when it has none. The default takes the first of [`Rules::legal_moves`];
    /// games should answer without listing every move.
    fn example_move(&self, state: &Self::State, seat: Seat) -> Option<String> {
        self.legal_moves(state, seat)
            .into_iter()
            .next()
            .map(|entry| entry.text)
    }

    /// Current scores by seat.
    fn scores(&self, state: &Self::State) -> Vec<i64>;

    /// Each seat's standing as the built-in players (`src/bots/`) weigh a position:
    /// the scores, by default. A game whose scores move only late (an auction's tiles
    /// count once placed) says here what a move is worth before then.
    fn standing(&self, state: &Self::State) -> Vec<i64> {
        self.scores(state)
    }

    /// The winning seats once the game is over; empty before.
    fn winners(&self, state: &Self::State) -> Vec<Seat>;

    /// The move the rules leave `seat` no choice about now (in the triangle auction a
    /// pass with nothing left to claim, or discarding tiles that fit nowhere): the
    /// referee makes it at once when mail asks for it, recorded as the player's and
    /// mailed like any move, instead of waiting for the player. `None` (the default)
    /// while the player has a choice.
    fn forced_move(&self, _state: &Self::State, _seat: Seat) -> Option<Self::Move> {
        None
    }

    /// The move the referee submits for `seat` when a deadline passes: a skip where the
    /// rules allow one, or a forfeit. `None` when the rules allow no such move now.
    fn deadline_move(
        &self,
        _state: &Self::State,
        _seat: Seat,
        _choice: Deadline,
    ) -> Option<Self::Move> {
        None
    }

    /// A random legal move for `seat`, or `None` when it has none. Used by property tests
    /// and benchmarks that play whole games, so games should make it fast; the default
    /// picks uniformly from [`Rules::legal_moves`].
    fn sample_move(
        &self,
        state: &Self::State,
        seat: Seat,
        rng: &mut dyn Chance,
    ) -> Option<Self::Move> {
        let legal = self.legal_moves(state, seat);
        let count = u32::try_from(legal.len()).ok().filter(|&n| n > 0)?;
        let entry = &legal[rng.draw(count, Visibility::Public) as usize];
        self.parse_move(state, seat, &entry.text).ok()
    }

    /// Whether the move `seat` makes now is sealed: chosen face down, like the card
    /// every player of seed 003 chooses at once. The engine then records only a salted
    /// commitment to the move and the move encrypted under a key derived from the seed;
    /// views, the log and every other player's mail say only that the player has
    /// chosen, until a later move opens it ([`Rules::opens`]) or the game ends. A game
    /// with sealed moves keeps them in its state: it must have
    /// [`Rules::HAS_HIDDEN_STATE`], and its [`Rules::public_state`] must hide them.
    ///
    /// The sealed moves of consecutive records form a round: its draws are keyed on all
    /// of its moves in seat order (docs/FAIRNESS.md), so the order in which they arrive
    /// cannot steer them, and the rules should make the state after a round the same
    /// whatever that order. Only the last move of a round should draw.
    fn is_sealed(&self, _state: &Self::State, _seat: Seat) -> bool {
        false
    }

    /// The move as its record will hold it, for a move being made now (never for one
    /// read back from a record): one meaning, one text, so that no spelling of a move
    /// draws otherwise (docs/FAIRNESS.md, "Canonical moves"). A game whose texts of
    /// one move differ in what the state keeps (the order tiles were placed in) picks
    /// one here rather than in `parse_move`, so that records written before the pick
    /// replay as they were played. The default: the move as parsed.
    ///
    /// # Errors
    /// A move the record cannot hold, saying what would do.
    fn as_recorded(
        &self,
        _state: &Self::State,
        _seat: Seat,
        mv: Self::Move,
    ) -> Result<Self::Move, RuleError> {
        Ok(mv)
    }

    /// Format 4: `seat`'s moves of one round as one move, for what keys the draws
    /// (docs/FAIRNESS.md, "Combined moves"): `earlier` is the text of the seat's moves
    /// of the round so far as one (as recorded), `latest` the move it makes now in
    /// `state`, the position after them. The result must be the move one message with
    /// all of their steps would have been recorded as, so that how a player split a
    /// round's moves into messages, and in what order, changes no draw. Only a game
    /// whose seats may move more than once in a round needs it.
    ///
    /// # Errors
    /// A game whose seats move once a round; moves that do not combine.
    fn combine(
        &self,
        _state: &Self::State,
        _seat: Seat,
        _earlier: &str,
        _latest: &Self::Move,
    ) -> Result<Self::Move, RuleError> {
        Err(RuleError::new(
            "in this game a player moves once a round",
            "one move for each round",
        ))
    }

    /// Which round of simultaneous moves a move made in `state` belongs to (format 3,
    /// docs/FAIRNESS.md "Rounds"): the moves of one round draw on all of them in seat
    /// order. The default reads it from who is to move, each seat once a round; a game
    /// whose players may move more than once in a round (placing tiles in several
    /// messages) names its rounds instead.
    fn round_label(&self, _state: &Self::State) -> RoundLabel {
        RoundLabel::ByWhoMoves
    }

    /// The seats whose sealed moves not yet opened the move `mv` of `seat` opens (seed
    /// 003: a player's first bid reveals their card). The record of `mv` then carries
    /// each such move in clear with its salt, which anyone can check against the
    /// commitment; the state after `mv` may show them.
    fn opens(&self, _state: &Self::State, _seat: Seat, _mv: &Self::Move) -> Vec<Seat> {
        Vec::new()
    }

    /// The state with everything a [`Viewer::Public`] may not see removed. It must keep
    /// what [`Rules::to_move`], [`Rules::is_over`], [`Rules::scores`] and
    /// [`Rules::winners`] read (counts rather than the cards, say): the public view and
    /// the mail loop ask them of the stored public state, and a move whose public
    /// state answers otherwise than its full state is refused as a fault of the rules.
    fn public_state(&self, state: &Self::State) -> Self::State {
        state.clone()
    }

    /// The state as the player in `seat` knows it: [`Rules::public_state`] and that
    /// seat's own hidden material (its face-down card, the tiles it drew to choose
    /// from), nothing of anyone else's. What the built-in players (`src/bots/`) are
    /// given instead of the full state, so that a bot in a mail game knows no more than
    /// a person in its seat. The default, the public state, is right for a game whose
    /// players hold nothing hidden of their own.
    fn seat_state(&self, state: &Self::State, seat: Seat) -> Self::State {
        let _ = seat;
        self.public_state(state)
    }

    /// A full state the seat's knowledge allows, drawn with `chance`: `known` is a
    /// [`Rules::seat_state`] of `seat`, and what it lacks (the bag's contents, the
    /// kinds of face-down tiles) is filled in at random, consistent with what the seat
    /// has seen, so a built-in player can play ahead on it without having seen the
    /// real one. The default is `known` itself: right for a game with nothing hidden,
    /// and for one whose rules play on without the missing material.
    fn determinise(&self, known: &Self::State, seat: Seat, chance: &mut dyn Chance) -> Self::State {
        let _ = (seat, chance);
        known.clone()
    }

    /// Where the game stands in a few words for mail subjects and views ("round 3,
    /// bidding"), for games whose turns fall into rounds and phases; `None` for games
    /// where the turn number says it all.
    fn status(&self, _state: &Self::State) -> Option<String> {
        None
    }

    /// What the move `mv` of `seat` did, from the state `before` it to the state
    /// `after`: a line per fact (cost, profit, tiles drawn and discarded, points
    /// gained or lost by anyone, what was revealed), each for the audience that may
    /// read it, and lines that tell what a draw gave marked [`ReportLine::drawn`].
    /// Shown in the mover's confirmation, the next notices, `pbem log`, `pbem show
    /// --turn N` and the JSON view. The default reports the scores that changed.
    fn report(
        &self,
        before: &Self::State,
        seat: Seat,
        mv: &Self::Move,
        after: &Self::State,
        names: &[String],
    ) -> Vec<ReportLine> {
        let _ = (seat, mv);
        score_changes(&self.scores(before), &self.scores(after), names)
            .into_iter()
            .collect()
    }

    /// The moves `seat` may make now as a person reads them: short and grouped (by
    /// place and piece, or by phase), with what each costs and earns, narrowed by
    /// `filter`. What `pbem legal` prints as text and the mail reply `moves` answers;
    /// `pbem legal --format json` stays the complete [`Rules::legal_moves`]. The
    /// default groups [`Rules::legal_moves`] by kind and shows a few of each.
    fn moves_text(
        &self,
        state: &Self::State,
        seat: Seat,
        filter: &MoveFilter,
        names: &[String],
    ) -> String {
        let _ = names;
        grouped_moves(&self.legal_moves(state, seat), filter)
    }

    /// Why a move needs the player's confirmation before it is made (Right of Way
    /// under `confirm=losses`: a loss paid with tiles the player did not name), as a
    /// sentence; `None` to make it at once. A move sent again with `confirm` before it
    /// is made without asking.
    fn needs_confirmation(
        &self,
        _state: &Self::State,
        _seat: Seat,
        _mv: &Self::Move,
    ) -> Option<String> {
        None
    }

    /// Why the game ended and each player's score broken down, once it is over.
    fn game_end(&self, state: &Self::State, names: &[String]) -> GameEnd {
        GameEnd {
            reason: "the game is over".to_string(),
            breakdown: self
                .scores(state)
                .iter()
                .zip(names)
                .map(|(score, _)| vec![format!("score {score}")])
                .collect(),
        }
    }

    /// The game's rules page, docs/rules/<NAME>.md (`include_str!`): its sections
    /// [`SUMMARY_HEADING`] and [`MOVES_HEADING`] are every player's welcome.
    const RULES_PAGE: &'static str = "";

    /// The game-specific part of the JSON view.
    fn view(&self, state: &Self::State, viewer: Viewer, names: &[String]) -> GameView;

    /// The ASCII board and player panels, at most 78 columns wide, with the last move
    /// marked (and what it covered still findable); the legend is [`Rules::legend`].
    fn board(&self, state: &Self::State, context: &BoardContext<'_>) -> String;

    /// What the board's marks mean: printed under the board in mail and `pbem show`,
    /// once per thread (or folded) in forum posts.
    fn legend(&self) -> String {
        String::new()
    }

    /// The board as an SVG picture for the same viewer, telling all that
    /// [`Rules::board`] tells and nothing more. A game drawn on `grid::svg`'s pieces
    /// overrides it; by default the picture is the ASCII board itself, set in type.
    fn board_svg(&self, state: &Self::State, context: &BoardContext<'_>) -> String {
        crate::grid::svg::text_picture(
            &format!("The board after turn {}", context.turn),
            &self.board(state, context),
        )
    }
}

/// The default [`Rules::moves_text`]: the legal moves that pass `filter`, grouped by
/// kind, at most [`MOVES_SHOWN`] of each with a count of the rest.
pub fn grouped_moves(legal: &[LegalMove], filter: &MoveFilter) -> String {
    let mut kinds: Vec<(&str, Vec<&LegalMove>)> = Vec::new();
    for entry in legal.iter().filter(|entry| filter.matches(entry)) {
        match kinds.iter_mut().find(|(kind, _)| *kind == entry.kind) {
            Some((_, list)) => list.push(entry),
            None => kinds.push((&entry.kind, vec![entry])),
        }
    }
    if kinds.is_empty() {
        return if legal.is_empty() {
            "No moves now.\n".to_string()
        } else {
            "No move matches that; ask for all your moves without a filter.\n".to_string()
        };
    }
    let mut out = String::new();
    for (kind, list) in kinds {
        out.push_str(&format!("{kind} ({}):\n", list.len()));
        for entry in list.iter().take(MOVES_SHOWN) {
            out.push_str(&format!("    {}\n", entry.text));
        }
        if list.len() > MOVES_SHOWN {
            out.push_str(&format!("    ... and {} more\n", list.len() - MOVES_SHOWN));
        }
    }
    out
}

/// How many moves of a kind the default readable list shows.
pub const MOVES_SHOWN: usize = 8;
