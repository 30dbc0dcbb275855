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
    pub fn new(problem: impl Into<String>, accepted: impl Into<String>) -> Self {
        RuleError {
            problem: problem.into(),
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

    /// The winning seats once the game is over; empty before.
    fn winners(&self, state: &Self::State) -> Vec<Seat>;

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

    /// Where the game stands in a few words for mail subjects and views ("round 3,
    /// bidding"), for games whose turns fall into rounds and phases; `None` for games
    /// where the turn number says it all.
    fn status(&self, _state: &Self::State) -> Option<String> {
        None
    }

    /// The game-specific part of the JSON view.
    fn view(&self, state: &Self::State, viewer: Viewer, names: &[String]) -> GameView;

    /// The ASCII board with its legend and player panels, at most 78 columns wide.
    fn board(&self, state: &Self::State, viewer: Viewer, names: &[String]) -> String;
}
