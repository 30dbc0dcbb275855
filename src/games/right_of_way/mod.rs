//! Right of Way (Jonas Stallmeister): build highways on a city of hexagonal tiles,
//! buy right-of-way, trade short-term power (the hand) for long-term victory points.
//!
//! docs/rules/right-of-way.md is the rules summary with every ruling; the data
//! (tile set, maps, option defaults) is games/right-of-way.toml.

mod board;
mod legal;
mod listing;
mod moves;
mod picture;
mod play;
mod report;
mod state;
mod tiles;
mod turns;
mod view;

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::engine::rules::{
    BoardContext, Chance, Deadline, GameEnd, GameView, LegalMove, MoveFilter, Options, ReportLine,
    RuleError, Rules, Seat, Viewer,
};
use crate::grid::hex::{hexagon, Hex};

pub use moves::{Action, DiscardItem, Move};
pub use state::{Cell, City, FaceDown, Highway, PlayerState, State};
pub use tiles::{TileKind, NO_KIND};

/// Marks a missing neighbour in the neighbour table.
pub const NO_CELL: u16 = u16::MAX;

/// How many tiles each player draws at setup.
pub const HAND_SIZE: usize = 5;

/// How the city is laid out at setup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupKind {
    /// The ideal hexagon of radius 4; which cells carry $ comes from public draws.
    Hexagon,
    /// Players draw and place city tiles in turn within a frame.
    Draft,
    /// A fixed map: the city of each frame cell.
    Map(Vec<City>),
}

/// The Right of Way rules for one game: options, tile set and the geometry tables
/// computed once (so the state can stay small).
#[derive(Debug, Clone)]
pub struct RightOfWay {
    pub(crate) kinds: Vec<TileKind>,
    pub(crate) kind_of_mask: [u8; 64],
    /// Every player's 54 tiles in canonical order: kinds in data order, each repeated
    /// `count` times. Draws pick indices into what remains of this.
    pub(crate) stack_template: Vec<u8>,
    pub(crate) radius: i32,
    pub(crate) hexes: Vec<Hex>,
    pub(crate) labels: Vec<String>,
    pub(crate) neighbours: Vec<[u16; 6]>,
    pub(crate) centre: u16,
    pub(crate) setup: SetupKind,
    pub(crate) centre_dollar: bool,
    pub(crate) city_tiles: u32,
    pub(crate) dollar_tiles: u32,
    /// `confirm=losses`: a loss paid with tiles the player did not name is sent back
    /// for confirmation before it is made.
    pub(crate) confirm_losses: bool,
    options: Options,
}

/// The revision of the rules this pbem plays. Each game records its rules data, and so
/// its revision, in genesis. Revision 2 corrected R15 (placed tiles pay a loss only when
/// forced), R20 (the game ends once nobody can place) and R22 (no pass while a placing
/// turn exists); the state no longer counts passes. Games of revision 1 do not replay
/// under revision 2, so they are refused with a way forward instead of misread.
const RULES_REVISION: u32 = 2;

fn first_revision() -> u32 {
    1
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Data {
    /// Which revision of these rules the data is for (see [`RULES_REVISION`]); data
    /// without one is revision 1.
    #[serde(default = "first_revision")]
    revision: u32,
    #[serde(default)]
    options: BTreeMap<String, String>,
    city: CityData,
    tile: Vec<TileData>,
    #[serde(default)]
    maps: BTreeMap<String, MapData>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct CityData {
    tiles: u32,
    dollar: u32,
    draft_radius: i32,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct TileData {
    name: String,
    #[serde(default)]
    label: String,
    edges: Vec<usize>,
    count: u8,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct MapData {
    radius: i32,
    rows: Vec<String>,
}

const KNOWN_OPTIONS: [&str; 4] = ["setup", "map", "centre", "confirm"];

const BUILT_IN_DATA: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/games/right-of-way.toml"
));

fn data_error(problem: impl Into<String>) -> RuleError {
    RuleError::new(
        problem,
        "rules data in the form of games/right-of-way.toml (see docs/rules/right-of-way.md)",
    )
}

impl RightOfWay {
    /// The rules with the built-in data and no options changed.
    ///
    /// # Errors
    /// Only if the built-in data were broken, which the tests rule out.
    pub fn standard() -> Result<Self, RuleError> {
        Self::from_data(Self::DEFAULT_DATA, &Options::new())
    }

    /// The cell number of a label such as "E9" (any case), if it is in the frame.
    pub fn cell_index(&self, label: &str) -> Option<u16> {
        let mut chars = label.trim().chars();
        let letter = chars.next()?.to_ascii_uppercase();
        if !letter.is_ascii_uppercase() {
            return None;
        }
        let digits: String = chars.collect();
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let number: i32 = digits.parse().ok()?;
        let r = i32::from(letter as u8 - b'A') - self.radius;
        let col = number - 2 * self.radius - 1;
        if (col - r).rem_euclid(2) != 0 {
            return None;
        }
        let hex = Hex::new((col - r) / 2, r);
        self.hex_index(hex)
    }

    /// The cell number of a hex in the frame.
    pub fn hex_index(&self, hex: Hex) -> Option<u16> {
        if hex.distance(Hex::new(0, 0)) > self.radius {
            return None;
        }
        self.hexes
            .binary_search_by(|h| (h.r, h.q).cmp(&(hex.r, hex.q)))
            .ok()
            .and_then(|i| u16::try_from(i).ok())
    }

    /// The label players type for a cell number.
    pub fn label(&self, cell: u16) -> &str {
        self.labels.get(cell as usize).map_or("?", String::as_str)
    }

    /// The axial coordinates of a cell number.
    pub fn hex(&self, cell: u16) -> Hex {
        self.hexes[cell as usize]
    }

    /// The number of cells in the frame.
    pub fn cell_count(&self) -> usize {
        self.hexes.len()
    }

    /// The tile kinds in data order.
    pub fn kinds(&self) -> &[TileKind] {
        &self.kinds
    }

    /// The kind index with a given name (any case).
    pub fn kind_by_name(&self, name: &str) -> Option<u8> {
        self.kinds
            .iter()
            .position(|k| k.name.eq_ignore_ascii_case(name))
            .and_then(|i| u8::try_from(i).ok())
    }

    /// The kind a set of board edges belongs to, if any tile can take them.
    pub fn kind_of_edges(&self, edges: u8) -> Option<u8> {
        let kind = self.kind_of_mask[(edges & 0x3f) as usize];
        (kind != NO_KIND).then_some(kind)
    }

    /// Tiles each player owns in all.
    pub fn tiles_per_player(&self) -> usize {
        self.stack_template.len()
    }

    fn build_label(radius: i32, hex: Hex) -> String {
        let row = u8::try_from(hex.r + radius).unwrap_or(0);
        let letter = char::from(b'A' + row);
        format!("{letter}{}", hex.doubled_col() + 2 * radius + 1)
    }

    fn parse_map(name: &str, map: &MapData) -> Result<(i32, Vec<City>), RuleError> {
        let radius = map.radius;
        if !(1..=5).contains(&radius) {
            return Err(data_error(format!("map {name}: radius must be 1 to 5")));
        }
        if map.rows.len() != (2 * radius + 1) as usize {
            return Err(data_error(format!(
                "map {name}: {} rows given, a hexagon of radius {radius} has {}",
                map.rows.len(),
                2 * radius + 1
            )));
        }
        let mut cities = Vec::new();
        for (i, row) in map.rows.iter().enumerate() {
            let r = i as i32 - radius;
            let want = (2 * radius + 1 - r.abs()) as usize;
            let cells: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
            if cells.len() != want {
                return Err(data_error(format!(
                    "map {name}: row {} has {} cells, it needs {want}",
                    i + 1,
                    cells.len()
                )));
            }
            for c in cells {
                cities.push(match c {
                    '$' => City::Dollar,
                    '.' => City::Plain,
                    '-' => City::Empty,
                    other => {
                        return Err(data_error(format!(
                            "map {name}: `{other}` is not a cell; use $ . or -"
                        )))
                    }
                });
            }
        }
        Ok((radius, cities))
    }

    /// Whether the city cells of a layout form one connected area.
    fn contiguous(&self, cities: &[City]) -> bool {
        let Some(start) = cities.iter().position(|&c| c != City::Empty) else {
            return false;
        };
        let mut seen = vec![false; cities.len()];
        let mut todo = vec![start];
        seen[start] = true;
        while let Some(i) = todo.pop() {
            for &n in &self.neighbours[i] {
                let n = n as usize;
                if n < cities.len() && !seen[n] && cities[n] != City::Empty {
                    seen[n] = true;
                    todo.push(n);
                }
            }
        }
        cities
            .iter()
            .zip(&seen)
            .all(|(&c, &s)| c == City::Empty || s)
    }
}

impl Rules for RightOfWay {
    type State = State;
    type Move = Move;

    const NAME: &'static str = "right-of-way";
    const DEFAULT_DATA: &'static str = BUILT_IN_DATA;

    fn from_data(data: &str, options: &Options) -> Result<Self, RuleError> {
        let data: Data =
            toml::from_str(data).map_err(|e| data_error(format!("bad rules data: {e}")))?;
        crate::engine::rules::check_revision(Self::NAME, data.revision, RULES_REVISION)?;
        if let Some(unknown) = options
            .keys()
            .find(|k| !KNOWN_OPTIONS.contains(&k.as_str()))
        {
            return Err(RuleError::new(
                format!("right-of-way has no option `{unknown}`"),
                "the options setup (hexagon, draft or map), map (a map name), centre (plain or dollar) and confirm (none or losses), e.g. `--option setup=draft`",
            ));
        }
        let mut effective: Options = data.options.clone();
        for (k, v) in options {
            effective.insert(k.clone(), v.trim().to_ascii_lowercase());
        }
        let get = |k: &str, d: &str| effective.get(k).cloned().unwrap_or_else(|| d.to_string());
        let setup_name = get("setup", "hexagon");
        let map_name = get("map", "");
        let centre = get("centre", "plain");
        // A game whose genesis has no `confirm` was played before the option existed,
        // when every move was made as sent: `none`.
        let confirm = get("confirm", "none");
        let confirm_losses = match confirm.as_str() {
            "none" => false,
            "losses" => true,
            other => {
                return Err(RuleError::new(
                    format!("confirm `{other}` is not a choice"),
                    "confirm=none (every move is made as sent, the default) or confirm=losses (a loss paid with tiles you did not name is sent back to be confirmed)",
                ))
            }
        };
        let centre_dollar = match centre.as_str() {
            "plain" | "unmarked" => false,
            "dollar" | "$" => true,
            other => {
                return Err(RuleError::new(
                    format!("centre `{other}` is not a choice"),
                    "centre=plain or centre=dollar",
                ))
            }
        };

        let mut kinds = Vec::new();
        for t in &data.tile {
            kinds.push(tiles::make_kind(&t.name, &t.label, &t.edges, t.count).map_err(data_error)?);
        }
        if kinds.is_empty() {
            return Err(data_error("no tile kinds"));
        }
        let kind_of_mask = tiles::kind_table(&kinds).map_err(data_error)?;
        let mut stack_template = Vec::new();
        for (i, k) in kinds.iter().enumerate() {
            let i = u8::try_from(i).map_err(|_| data_error("too many tile kinds"))?;
            stack_template.extend(std::iter::repeat_n(i, k.count as usize));
        }
        if stack_template.len() < HAND_SIZE + 1 {
            return Err(data_error("a player needs more tiles than a hand"));
        }

        let (radius, setup, map_cities) = match setup_name.as_str() {
            "hexagon" => (4, SetupKind::Hexagon, None),
            "draft" => {
                if !(4..=5).contains(&data.city.draft_radius) {
                    return Err(data_error(
                        "draft_radius must be 4 or 5 (the board must fit 78 columns)",
                    ));
                }
                (data.city.draft_radius, SetupKind::Draft, None)
            }
            "map" => {
                let Some(map) = data.maps.get(&map_name) else {
                    let names: Vec<&str> = data.maps.keys().map(String::as_str).collect();
                    return Err(RuleError::new(
                        format!("there is no map `{map_name}`"),
                        format!(
                            "one of the maps {}, e.g. `--option map={}`",
                            names.join(", "),
                            names.first().unwrap_or(&"harbour")
                        ),
                    ));
                };
                let (radius, cities) = Self::parse_map(&map_name, map)?;
                (radius, SetupKind::Map(Vec::new()), Some(cities))
            }
            other => {
                return Err(RuleError::new(
                    format!("setup `{other}` is not a choice"),
                    "setup=hexagon, setup=draft or setup=map (with map=harbour)",
                ))
            }
        };

        let hexes = hexagon(radius);
        let labels = hexes
            .iter()
            .map(|&h| Self::build_label(radius, h))
            .collect();
        let mut rules = RightOfWay {
            kinds,
            kind_of_mask,
            stack_template,
            radius,
            hexes,
            labels,
            neighbours: Vec::new(),
            centre: 0,
            setup,
            centre_dollar,
            city_tiles: data.city.tiles,
            dollar_tiles: data.city.dollar,
            confirm_losses,
            options: Options::new(),
        };
        rules.neighbours = rules
            .hexes
            .iter()
            .map(|&h| {
                let mut n = [NO_CELL; 6];
                for (i, slot) in n.iter_mut().enumerate() {
                    *slot = rules.hex_index(h.neighbour(i)).unwrap_or(NO_CELL);
                }
                n
            })
            .collect();
        rules.centre = rules
            .hex_index(Hex::new(0, 0))
            .ok_or_else(|| data_error("the frame has no centre"))?;

        if let Some(cities) = map_cities {
            if !rules.contiguous(&cities) {
                return Err(data_error(format!(
                    "map {map_name}: the city is not one connected area"
                )));
            }
            rules.city_tiles = cities.iter().filter(|&&c| c != City::Empty).count() as u32;
            rules.dollar_tiles = cities.iter().filter(|&&c| c == City::Dollar).count() as u32;
            rules.setup = SetupKind::Map(cities);
        } else {
            let frame = rules.hexes.len() as u32;
            if rules.city_tiles == 0
                || rules.city_tiles > frame
                || rules.dollar_tiles > rules.city_tiles
            {
                return Err(data_error(
                    "city: tiles must be 1 to the frame size, dollar at most tiles",
                ));
            }
            if rules.setup == SetupKind::Hexagon && rules.city_tiles != frame {
                return Err(data_error(
                    "city: the hexagon setup needs exactly 61 city tiles",
                ));
            }
            let plain = rules.city_tiles - rules.dollar_tiles;
            if (centre_dollar && rules.dollar_tiles == 0) || (!centre_dollar && plain == 0) {
                return Err(data_error("city: no tile of the centre's kind"));
            }
        }

        effective.insert("setup".into(), setup_name);
        if matches!(rules.setup, SetupKind::Map(_)) {
            effective.insert("map".into(), map_name);
        } else {
            effective.remove("map");
        }
        effective.insert("centre".into(), centre);
        effective.insert("confirm".into(), confirm);
        rules.options = effective;
        Ok(rules)
    }

    fn options(&self) -> Options {
        self.options.clone()
    }

    fn setup(&self, players: &[String], chance: &mut dyn Chance) -> Result<State, RuleError> {
        self.setup_game(players.len(), chance)
    }

    fn to_move(&self, state: &State) -> Vec<Seat> {
        if state.over {
            Vec::new()
        } else {
            vec![state.to_move as Seat]
        }
    }

    fn is_over(&self, state: &State) -> bool {
        state.over
    }

    fn parse_move(&self, state: &State, seat: Seat, text: &str) -> Result<Move, RuleError> {
        let mv = self.parse_text(state, seat, text)?;
        self.resolve(state, seat, mv)
    }

    fn canonical_text(&self, mv: &Move) -> String {
        self.move_text(mv)
    }

    fn apply(
        &self,
        state: &State,
        seat: Seat,
        mv: &Move,
        chance: &mut dyn Chance,
    ) -> Result<State, RuleError> {
        self.play(state, seat, mv, Some(chance))
            .map(|(next, _)| next)
    }

    fn legal_moves(&self, state: &State, seat: Seat) -> Vec<LegalMove> {
        self.legal(state, seat)
    }

    fn scores(&self, state: &State) -> Vec<i64> {
        self.victory_points(state)
    }

    fn winners(&self, state: &State) -> Vec<Seat> {
        if !state.over {
            return Vec::new();
        }
        let scores = self.victory_points(state);
        let contenders = || (0..scores.len()).filter(|&s| state.resigned != Some(s as u8));
        let best = contenders().map(|s| scores[s]).max().unwrap_or(0);
        contenders().filter(|&s| scores[s] == best).collect()
    }

    fn example_move(&self, state: &State, seat: Seat) -> Option<String> {
        // Also for a seat not to move: the welcome of a player who moves second shows
        // what a turn of theirs could be (the engine asks only the seat to move for
        // the example of a turn notice).
        (!state.over).then(|| self.example(state, seat))
    }

    fn deadline_move(&self, state: &State, seat: Seat, choice: Deadline) -> Option<Move> {
        match choice {
            // The rules allow a skip only where a pass is legal (R22).
            Deadline::Skip => (!state.over && self.must_pass(state, seat)).then_some(Move::Pass),
            Deadline::Forfeit => Some(Move::Resign),
        }
    }

    fn sample_move(&self, state: &State, seat: Seat, rng: &mut dyn Chance) -> Option<Move> {
        self.sample(state, seat, rng)
    }

    fn view(&self, state: &State, viewer: Viewer, names: &[String]) -> GameView {
        self.game_view(state, viewer, names)
    }

    fn board(&self, state: &State, context: &BoardContext<'_>) -> String {
        self.draw_board(state, context)
    }

    fn board_svg(&self, state: &State, context: &BoardContext<'_>) -> String {
        self.board_picture(state, context)
    }

    fn legend(&self) -> String {
        self.board_legend()
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
        _names: &[String],
    ) -> String {
        self.moves_listing(state, seat, filter)
    }

    fn needs_confirmation(&self, state: &State, seat: Seat, mv: &Move) -> Option<String> {
        self.confirmation(state, seat, mv)
    }

    fn game_end(&self, state: &State, names: &[String]) -> GameEnd {
        self.end_of_game(state, names)
    }

    const RULES_PAGE: &'static str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/rules/right-of-way.md"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_data_is_read_from_the_text_given() {
        let changed = BUILT_IN_DATA.replace("draft_radius = 5", "draft_radius = 4");
        let from_changed: Data = toml::from_str(&changed).expect("toml");
        assert_eq!(from_changed.city.draft_radius, 4);
    }

    #[test]
    fn rules_data_with_an_unknown_key_is_refused() {
        for (from, to) in [
            ("draft_radius = 5", "draft_radius = 5\nradius = 4"),
            ("count = 7", "count = 7\ncolour = \"red\""),
            ("radius = 5\n", "radius = 5\nwater = 3\n"),
        ] {
            let changed = BUILT_IN_DATA.replacen(from, to, 1);
            assert_ne!(changed, BUILT_IN_DATA, "{from}");
            let error = RightOfWay::from_data(&changed, &Options::new())
                .expect_err(&format!("an extra key after `{from}`"));
            assert!(error.problem.contains("unknown field"), "{error}");
        }
    }
}
