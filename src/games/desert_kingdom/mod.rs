//! The desert kingdom (seed 004, "Another BoardGame"): tribes discover tiles of an
//! 8 x 8 desert, build roads that score other players' land, activate tiles to draw
//! and choose from the bag, and at the end face the barbarians they drew.
//!
//! docs/rules/desert-kingdom.md is the rules summary with every ruling (D1, D2, ...);
//! the data (the bag, option defaults) is games/desert-kingdom.toml.

mod board;
mod listing;
mod moves;
mod picture;
mod play;
mod report;
mod state;
mod text;
mod view;

use serde::Deserialize;

use crate::engine::rules::{
    BoardContext, Chance, Deadline, GameEnd, GameView, LegalMove, MoveFilter, Options, ReportLine,
    RuleError, Rules, Seat, Viewer, Visibility,
};

pub use board::{spiral, Square, SIDE};
pub use moves::Move;
pub use report::ScoreParts;
pub use state::{Attack, Event, Fate, Kind, Phase, Player, State, Tile, Unplaced};

/// The revision of the rules this pbem plays (games/desert-kingdom.toml `revision`).
/// Revision 2 put a barbarian's extra face-down tile on the first empty square of the
/// spiral (D4; revision 1 skipped the square the move had chosen) and added the options
/// `last_square` and `cityless_treasures`. A game keeps the revision of its genesis:
/// games of revision 1 replay and play on as they were played.
const RULES_REVISION: u32 = 2;

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct BagData {
    oasis: u16,
    city: u16,
    mine: u16,
    grass: u16,
    desert: u16,
    mountain: u16,
    treasure: u16,
    barbarian: u16,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Data {
    revision: u32,
    bags: std::collections::BTreeMap<String, BagData>,
    options: Options,
}

const KNOWN_OPTIONS: [&str; 9] = [
    "bag",
    "entry",
    "spiral",
    "network_city",
    "builder_terrain",
    "placate_points",
    "last_square",
    "cityless_treasures",
    "treasures",
];

/// The rules of one game.
#[derive(Debug, Clone)]
pub struct DesertKingdom {
    /// The bag at the start, sorted by kind.
    pub(crate) bag: Vec<Kind>,
    pub(crate) entry: Square,
    /// Every square in the barbarians' order, the entry first.
    pub(crate) spiral: Vec<Square>,
    pub(crate) network_city: i64,
    pub(crate) builder_terrain: bool,
    pub(crate) placate_points: Option<i64>,
    /// Revision 1's bug, kept for its games: a barbarian's extra face-down tile skips
    /// the square the move chose (D4).
    pub(crate) barbarian_tile_skips_chosen_square: bool,
    /// When an activation's face-down tile may take the last empty square, the
    /// explorers' own (option `last_square=face_down`, D12): the tile chosen then
    /// scores without a square. Otherwise the square is kept for the explorers.
    pub(crate) face_down_takes_last_square: bool,
    /// Whether a player without a city still scores their treasures (option
    /// `cityless_treasures=score`, D14).
    pub(crate) cityless_treasures_score: bool,
    /// Whether a city's owner decides to turn in a treasure (option `treasures=ask`,
    /// D13), or it is done for them (`treasures=automatic`).
    pub(crate) ask_treasures: bool,
    pub(crate) options: Options,
}

/// A tile's points each time it is scored (a city: when placed), its activation's draw
/// number, and its forced and forbidden marks: the seed's table.
pub fn value(kind: Kind) -> i64 {
    match kind {
        Kind::Oasis => 8,
        Kind::City => 5,
        Kind::Mine => 3,
        Kind::Grass => 2,
        Kind::Desert => 1,
        Kind::Mountain | Kind::Treasure => 0,
        Kind::Barbarian => 15,
    }
}

/// What a tile is worth to the player who keeps it: its points, and a treasure the 20
/// it scores at the end.
pub fn worth(kind: Kind) -> i64 {
    match kind {
        Kind::Treasure => 20,
        other => value(other),
    }
}

pub fn draw_number(kind: Kind) -> usize {
    match kind {
        Kind::Oasis => 3,
        Kind::City | Kind::Mountain => 4,
        Kind::Mine => 8,
        Kind::Grass | Kind::Desert => 2,
        Kind::Treasure | Kind::Barbarian => 0,
    }
}

pub fn forced(kind: Kind) -> &'static [Kind] {
    match kind {
        Kind::Oasis => &[Kind::Treasure, Kind::Barbarian],
        // "Forced: Grass. Special.": treasures and barbarians are the specials.
        Kind::City => &[Kind::Grass, Kind::Treasure, Kind::Barbarian],
        Kind::Mine => &[Kind::Treasure, Kind::Mountain],
        Kind::Grass => &[Kind::Grass, Kind::City],
        Kind::Mountain => &[Kind::Mine],
        Kind::Desert | Kind::Treasure | Kind::Barbarian => &[],
    }
}

pub fn forbidden(kind: Kind) -> &'static [Kind] {
    match kind {
        Kind::City => &[Kind::City],
        Kind::Mine => &[Kind::Oasis, Kind::City, Kind::Grass],
        Kind::Grass => &[Kind::Mine, Kind::Treasure],
        Kind::Desert => &[Kind::Mine, Kind::City, Kind::Treasure],
        Kind::Mountain => &[Kind::City, Kind::Oasis, Kind::Treasure],
        Kind::Oasis | Kind::Treasure | Kind::Barbarian => &[],
    }
}

fn data_error(problem: impl Into<String>) -> RuleError {
    RuleError::new(problem, "rules data as games/desert-kingdom.toml writes it")
}

impl DesertKingdom {
    /// The standard rules, from the built-in data.
    ///
    /// # Errors
    /// Never for the built-in data.
    pub fn standard() -> Result<DesertKingdom, RuleError> {
        Self::from_data(Self::DEFAULT_DATA, &Options::new())
    }
}

impl Rules for DesertKingdom {
    type State = State;
    type Move = Move;

    const NAME: &'static str = "desert-kingdom";
    const DEFAULT_DATA: &'static str = include_str!("../../../games/desert-kingdom.toml");
    const HAS_HIDDEN_STATE: bool = true;

    fn from_data(data: &str, options: &Options) -> Result<Self, RuleError> {
        let data: Data =
            toml::from_str(data).map_err(|e| data_error(format!("bad rules data: {e}")))?;
        if !(1..=RULES_REVISION).contains(&data.revision) {
            // A later revision than this pbem knows: refused with the way forward.
            crate::engine::rules::check_revision(Self::NAME, data.revision, RULES_REVISION)?;
        }
        if let Some(unknown) = options
            .keys()
            .find(|k| !KNOWN_OPTIONS.contains(&k.as_str()))
        {
            return Err(RuleError::new(
                format!("desert-kingdom has no option `{unknown}`"),
                "the options bag (standard or gentle), entry (a1, h1, h8 or a8), spiral (clockwise or anticlockwise), network_city (2 or 5), builder_terrain (no or yes), placate_points (none or a number), last_square (face_down or explorers), cityless_treasures (score or lost) and treasures (ask or automatic), e.g. `--option entry=h8`",
            ));
        }
        let mut effective = data.options.clone();
        for (key, value) in options {
            effective.insert(key.clone(), value.trim().to_ascii_lowercase());
        }
        let get = |key: &str| effective.get(key).map_or("", String::as_str);
        let entry = match get("entry") {
            corner @ ("a1" | "h1" | "h8" | "a8") => Square::parse(corner),
            _ => None,
        }
        .ok_or_else(|| {
            RuleError::new(
                format!("entry `{}` is not a corner", get("entry")),
                "entry=a1, entry=h1, entry=h8 or entry=a8",
            )
        })?;
        let clockwise = match get("spiral") {
            "clockwise" => true,
            "anticlockwise" => false,
            other => {
                return Err(RuleError::new(
                    format!("spiral `{other}` is not a direction"),
                    "spiral=clockwise or spiral=anticlockwise",
                ))
            }
        };
        let network_city = match get("network_city") {
            "2" => 2,
            "5" => 5,
            other => {
                return Err(RuleError::new(
                    format!("network_city `{other}` is not a choice"),
                    "network_city=2 or network_city=5",
                ))
            }
        };
        let builder_terrain = match get("builder_terrain") {
            "no" => false,
            "yes" => true,
            other => {
                return Err(RuleError::new(
                    format!("builder_terrain `{other}` is not a choice"),
                    "builder_terrain=no or builder_terrain=yes",
                ))
            }
        };
        let placate_points = match get("placate_points") {
            "none" => None,
            number => match number.parse::<i64>() {
                Ok(points @ 1..=1000) => Some(points),
                _ => {
                    return Err(RuleError::new(
                        format!("placate_points `{number}` is not a choice"),
                        "placate_points=none or a number of points, e.g. placate_points=25",
                    ))
                }
            },
        };
        // An option a game's genesis lacks was added by a later revision: it takes the
        // value that means what the game was played under.
        let old = data.revision < 2;
        let face_down_takes_last_square = match get("last_square") {
            "" if old => false,
            "face_down" => true,
            "explorers" => false,
            other => {
                return Err(RuleError::new(
                    format!("last_square `{other}` is not a choice"),
                    "last_square=face_down or last_square=explorers",
                ))
            }
        };
        let cityless_treasures_score = match get("cityless_treasures") {
            "" if old => false,
            "score" => true,
            "lost" => false,
            other => {
                return Err(RuleError::new(
                    format!("cityless_treasures `{other}` is not a choice"),
                    "cityless_treasures=score or cityless_treasures=lost",
                ))
            }
        };
        let ask_treasures = match get("treasures") {
            "" if old => false,
            "ask" => true,
            "automatic" => false,
            other => {
                return Err(RuleError::new(
                    format!("treasures `{other}` is not a choice"),
                    "treasures=ask or treasures=automatic",
                ))
            }
        };
        let mix = data.bags.get(get("bag")).ok_or_else(|| {
            RuleError::new(
                format!("bag `{}` is not a mix of the rules data", get("bag")),
                format!(
                    "{} (games/desert-kingdom.toml)",
                    data.bags
                        .keys()
                        .map(|name| format!("bag={name}"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            )
        })?;
        let counts = [
            (Kind::Oasis, mix.oasis),
            (Kind::City, mix.city),
            (Kind::Mine, mix.mine),
            (Kind::Grass, mix.grass),
            (Kind::Desert, mix.desert),
            (Kind::Mountain, mix.mountain),
            (Kind::Treasure, mix.treasure),
            (Kind::Barbarian, mix.barbarian),
        ];
        let bag: Vec<Kind> = counts
            .into_iter()
            .flat_map(|(kind, count)| std::iter::repeat_n(kind, usize::from(count)))
            .collect();
        if bag.len() < 100 || bag.len() > usize::from(u16::MAX) {
            return Err(data_error(
                "the bag holds 100 tiles or more, so the board always fills",
            ));
        }
        Ok(DesertKingdom {
            bag,
            entry,
            spiral: spiral(entry, clockwise),
            network_city,
            builder_terrain,
            placate_points,
            barbarian_tile_skips_chosen_square: old,
            face_down_takes_last_square,
            cityless_treasures_score,
            ask_treasures,
            options: effective,
        })
    }

    fn options(&self) -> Options {
        self.options.clone()
    }

    fn setup(&self, players: &[String], chance: &mut dyn Chance) -> Result<State, RuleError> {
        if !(2..=6).contains(&players.len()) {
            return Err(RuleError::new(
                format!(
                    "the desert kingdom is for 2 to 6 players, not {}",
                    players.len()
                ),
                "two to six --player",
            ));
        }
        Ok(self.start(players.len(), chance))
    }

    fn to_move(&self, state: &State) -> Vec<Seat> {
        match state.phase {
            Phase::Turn { seat } | Phase::Choosing { seat, .. } | Phase::Defending { seat, .. } => {
                vec![usize::from(seat)]
            }
            Phase::Over => Vec::new(),
        }
    }

    fn is_over(&self, state: &State) -> bool {
        state.phase == Phase::Over
    }

    fn parse_move(&self, state: &State, seat: Seat, text: &str) -> Result<Move, RuleError> {
        moves::parse(state, text)
            .map(|mv| self.as_recorded(state, mv))
            .map_err(|mut error| {
                if let Some(example) = self.example(state, seat) {
                    error.accepted = format!(
                        "{}; for example `{}`",
                        error.accepted,
                        moves::canonical(&example)
                    );
                }
                error
            })
    }

    fn canonical_text(&self, mv: &Move) -> String {
        moves::canonical(mv)
    }

    fn apply(
        &self,
        state: &State,
        seat: Seat,
        mv: &Move,
        chance: &mut dyn Chance,
    ) -> Result<State, RuleError> {
        self.play(state, seat, mv, chance)
    }

    fn legal_moves(&self, state: &State, seat: Seat) -> Vec<LegalMove> {
        self.legal(state, seat)
    }

    fn example_move(&self, state: &State, seat: Seat) -> Option<String> {
        self.example(state, seat).map(|mv| moves::canonical(&mv))
    }

    fn scores(&self, state: &State) -> Vec<i64> {
        state
            .players
            .iter()
            .map(|p| p.final_score.unwrap_or(p.points))
            .collect()
    }

    fn winners(&self, state: &State) -> Vec<Seat> {
        self.winners_of(state)
    }

    fn deadline_move(&self, state: &State, seat: Seat, choice: Deadline) -> Option<Move> {
        if !self.to_move(state).contains(&seat) {
            return None;
        }
        match choice {
            Deadline::Skip => self.skip(state, seat),
            // A forfeit takes one player out; the others play on.
            Deadline::Forfeit => Some(Move::Resign),
        }
    }

    fn sample_move(&self, state: &State, seat: Seat, rng: &mut dyn Chance) -> Option<Move> {
        self.sample(state, seat, rng)
    }

    fn status(&self, state: &State) -> Option<String> {
        let empty = state.squares.iter().filter(|s| s.is_none()).count();
        let free = format!("{} free", text::plural(empty, "square", "squares"));
        Some(match state.phase {
            Phase::Over => "the barbarians have attacked".to_string(),
            Phase::Choosing { .. } => format!("{free}, choosing a tile"),
            Phase::Defending { .. } => "the barbarians attack: a treasure or a city".to_string(),
            Phase::Turn { .. } => free,
        })
    }

    fn public_state(&self, state: &State) -> State {
        let mut public = state.clone();
        // The last move's events are for its report, which the engine works out from
        // the full states; kept out of every file, so files hash as they always did.
        public.events.clear();
        if state.phase == Phase::Over {
            // The seed is revealed at the end: nothing is hidden any more.
            return public;
        }
        public.bag.clear();
        public.drawn.clear();
        for tile in public.squares.iter_mut().flatten() {
            if tile.face_down {
                tile.kind = None;
            }
        }
        public
    }

    fn seat_state(&self, state: &State, seat: Seat) -> State {
        let mut known = self.public_state(state);
        // The player choosing sees the tiles they drew (as `view` shows them); the bag
        // and the face-down tiles stay unknown to everyone.
        if matches!(state.phase, Phase::Choosing { seat: chooser, .. } if usize::from(chooser) == seat)
        {
            known.drawn = state.drawn.clone();
        }
        known
    }

    fn determinise(&self, known: &State, _seat: Seat, chance: &mut dyn Chance) -> State {
        let mut state = known.clone();
        if state.phase == Phase::Over {
            return state;
        }
        // What may still be unseen: the bag at the start less every tile in sight (face
        // up on the board, kept aside by players, drawn where the seat saw them). The
        // players' own city tiles never were in the bag, so those placed are given back.
        let mut pool = self.bag.clone();
        let mut seen: Vec<Kind> = state
            .squares
            .iter()
            .flatten()
            .filter(|tile| !tile.face_down)
            .filter_map(|tile| tile.kind)
            .collect();
        for player in &state.players {
            seen.extend(std::iter::repeat_n(
                Kind::Treasure,
                usize::from(player.treasures),
            ));
            seen.extend(std::iter::repeat_n(
                Kind::Barbarian,
                usize::from(player.barbarians.saturating_sub(1)),
            ));
        }
        let own_cities = state.players.iter().filter(|p| !p.city_tile).count();
        seen.extend(state.drawn.iter().copied());
        let mut cities_given_back = 0;
        for kind in seen {
            if kind == Kind::City && cities_given_back < own_cities {
                cities_given_back += 1;
                continue;
            }
            if let Some(at) = pool.iter().position(|&k| k == kind) {
                pool.swap_remove(at);
            }
        }
        // Draw each unknown tile from what is left (from the whole mix, should the
        // reckoning run short).
        let mut take = |pool: &mut Vec<Kind>| -> Kind {
            let from: &mut Vec<Kind> = pool;
            match u32::try_from(from.len()).ok().filter(|&n| n > 0) {
                Some(n) => from.swap_remove(chance.draw(n, Visibility::Hidden) as usize),
                None => {
                    let n = u32::try_from(self.bag.len()).unwrap_or(1).max(1);
                    self.bag
                        .get(chance.draw(n, Visibility::Hidden) as usize)
                        .copied()
                        .unwrap_or(Kind::Desert)
                }
            }
        };
        for tile in state.squares.iter_mut().flatten() {
            if tile.face_down && tile.kind.is_none() {
                tile.kind = Some(take(&mut pool));
            }
        }
        if state.drawn.len() < usize::from(state.drawn_count) {
            state.drawn = (0..state.drawn_count).map(|_| take(&mut pool)).collect();
        }
        state.bag = (0..state.bag_count).map(|_| take(&mut pool)).collect();
        state.bag.sort_unstable();
        state
    }

    fn view(&self, state: &State, viewer: Viewer, names: &[String]) -> GameView {
        self.game_view(state, viewer, names)
    }

    fn board(&self, state: &State, context: &BoardContext<'_>) -> String {
        self.ascii(state, context)
    }

    fn legend(&self) -> String {
        self.board_legend()
    }

    fn board_svg(&self, state: &State, context: &BoardContext<'_>) -> String {
        self.picture(state, context)
    }

    fn report(
        &self,
        before: &State,
        seat: Seat,
        mv: &Move,
        after: &State,
        names: &[String],
    ) -> Vec<ReportLine> {
        self.turn_report(before, seat, mv, after, names)
    }

    fn moves_text(
        &self,
        state: &State,
        seat: Seat,
        filter: &MoveFilter,
        names: &[String],
    ) -> String {
        self.moves_listing(state, seat, filter, names)
    }

    fn game_end(&self, state: &State, _names: &[String]) -> GameEnd {
        // Each seat's lines go under that player's name: the parts need no names.
        self.end_of_game(state)
    }

    const RULES_PAGE: &'static str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/rules/desert-kingdom.md"
    ));
}
