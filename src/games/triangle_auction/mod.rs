//! The triangle auction (seed 003, untitled): every round a row of triangular tiles is
//! auctioned with chits, after each player has chosen face down how many chits go to
//! the improvement track instead; each player builds one road network of their tiles
//! in their own triangular area, and scores their least colour (or a better one, the
//! further they improved) plus the areas their roads enclose.
//!
//! docs/rules/triangle-auction.md is the rules summary with every ruling; the data
//! (colours, counts, option defaults) is games/triangle-auction.toml.

mod legal;
mod listing;
mod moves;
mod picture;
mod placing;
mod play;
mod report;
mod state;
mod text;
mod tiles;
mod view;

use serde::Deserialize;

use crate::grid::triangle::Cell;

use crate::engine::rules::{
    BoardContext, Chance, Deadline, GameEnd, GameView, LegalMove, MoveFilter, Options, ReportLine,
    RoundLabel, RuleError, Rules, Seat, Viewer,
};

pub use moves::{Move, Step};
pub use state::{Bid, Offer, Phase, Placed, Player, State};
pub use tiles::{tile_set, Tile};

/// The revision of the rules this pbem starts new games under
/// (games/triangle-auction.toml `revision`). Revision 2 follows the seed where
/// revision 1 ruled otherwise (docs/rules/triangle-auction.md, issue 18): no cap on a
/// colour's count, roads may end at a tile's edge, a tile may be discarded only when
/// no order of the player's other tiles lets it fit. Games of revision 1 still replay
/// and play on under revision 1's rules: each reading is an option, and an option
/// missing from a revision-1 genesis takes revision 1's meaning.
const RULES_REVISION: u32 = 2;

/// The oldest revision this pbem still plays.
const FIRST_REVISION: u32 = 1;

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Data {
    revision: u32,
    colours: Vec<String>,
    colour_names: Vec<String>,
    copies: u8,
    rounds: u8,
    chits_in_hand: u8,
    highest_card: u8,
    improvement_track: u8,
    improvement_steps: Vec<u8>,
    options: Options,
}

const KNOWN_OPTIONS: [&str; 6] = [
    "area",
    "passing",
    "unclaimed",
    "dead_ends",
    "track_cap",
    "discards",
];

/// What an option that revision 1's data did not have means in a game of revision 1:
/// what revision 1 did.
const REVISION_1_MEANINGS: [(&str, &str); 1] = [("discards", "now")];

/// The rules of one game: the data and the options chosen.
#[derive(Debug, Clone)]
pub struct TriangleAuction {
    pub(crate) tiles: Vec<Tile>,
    pub(crate) letters: Vec<char>,
    pub(crate) colour_names: Vec<String>,
    pub(crate) rounds: u8,
    pub(crate) chits_in_hand: u8,
    pub(crate) highest_card: u8,
    pub(crate) improvement_track: u8,
    /// The spaces from which a player scores their 4th, 3rd, 2nd and best colour.
    pub(crate) improvement_steps: Vec<u8>,
    pub(crate) side: u8,
    /// With `area=open`, the space every first tile goes on, the middle of an area
    /// whose border no placement can reach (T3); None where a first tile goes on any
    /// space (`area=N`).
    pub(crate) start: Option<Cell>,
    pub(crate) passing: bool,
    pub(crate) return_unclaimed: bool,
    pub(crate) dead_ends: bool,
    pub(crate) track_cap: Option<u8>,
    /// Whether a tile may be discarded only when no order of the player's other tiles
    /// still to place lets it fit (the seed's reading, T12); otherwise when it fits
    /// nowhere at that point of the turn (revision 1).
    pub(crate) discards_in_any_order: bool,
    options: Options,
}

fn data_error(problem: impl Into<String>) -> RuleError {
    RuleError::new(
        problem,
        "rules data as games/triangle-auction.toml writes it",
    )
}

/// The most steps from a first tile that an open area must hold: the most tiles a
/// player can place, one per chit in hand each round, are a chain of that many.
/// Spaces up to 99 in a row keep every number drawn within two columns.
const OPEN_REACH_LIMIT: u16 = 48;

/// The side of an open area and its first tile's space (T3): an up space with every
/// space within `reach` steps (tiles won at most: a chain of them from the first,
/// and the neighbours each is checked against) inside the area, `reach` rows above
/// it (two steps a row), and half as many below (one step a row) and to each side.
fn open_area(rounds: u8, chits_in_hand: u8) -> Result<(u8, Cell), RuleError> {
    let reach = u16::from(rounds) * u16::from(chits_in_hand);
    if reach > OPEN_REACH_LIMIT {
        return Err(data_error(format!(
            "an open area for {reach} tiles is too large to name and draw (at most {OPEN_REACH_LIMIT})"
        )));
    }
    // An up space sits on an even index; its row holds it in the middle.
    let row = reach + reach % 2;
    let side = row + reach.div_ceil(2) + 1;
    let (Ok(row), Ok(side)) = (u8::try_from(row), u8::try_from(side)) else {
        return Err(data_error("an open area too large"));
    };
    Ok((side, Cell::new(row, row)))
}

fn choice<'a>(options: &'a Options, key: &str, allowed: &[&str]) -> Result<&'a str, RuleError> {
    let value = options.get(key).map_or("", String::as_str);
    if allowed.contains(&value) {
        Ok(value)
    } else {
        Err(RuleError::new(
            format!("{key} `{value}` is not a choice"),
            allowed
                .iter()
                .map(|a| format!("{key}={a}"))
                .collect::<Vec<_>>()
                .join(" or "),
        ))
    }
}

impl TriangleAuction {
    /// The number of tiles on offer each round for `players` players: 2n + 1.
    pub fn offer_size(players: usize) -> usize {
        2 * players + 1
    }

    /// What the tiles of the offer may be called in a move: their letters, and their
    /// colours for the tiles of `only` (every tile of the offer when None).
    pub(crate) fn tile_words(&self, state: &State, only: Option<&[u8]>) -> moves::TileWords {
        let codes = state
            .offer
            .iter()
            .enumerate()
            .map(|(index, offer)| {
                let named = only.is_none_or(|only| {
                    u8::try_from(index).is_ok_and(|index| only.contains(&index))
                });
                let Some(design) = self.tiles.get(usize::from(offer.tile)).filter(|_| named) else {
                    return Vec::new();
                };
                (0..3)
                    .map(|turn| {
                        Tile {
                            outlets: crate::grid::triangle::rotated(design.outlets, turn),
                        }
                        .code(&self.letters)
                    })
                    .collect()
            })
            .collect();
        let colours = self
            .colour_names
            .iter()
            .map(|name| name.to_ascii_lowercase())
            .zip(self.letters.iter().copied())
            .collect();
        moves::TileWords { codes, colours }
    }
}

impl Rules for TriangleAuction {
    type State = State;
    type Move = Move;

    const NAME: &'static str = "triangle-auction";
    const DEFAULT_DATA: &'static str = include_str!("../../../games/triangle-auction.toml");
    const HAS_HIDDEN_STATE: bool = true;

    fn from_data(data: &str, options: &Options) -> Result<Self, RuleError> {
        let data: Data =
            toml::from_str(data).map_err(|e| data_error(format!("bad rules data: {e}")))?;
        if !(FIRST_REVISION..=RULES_REVISION).contains(&data.revision) {
            crate::engine::rules::check_revision(Self::NAME, data.revision, RULES_REVISION)?;
        }
        if let Some(unknown) = options
            .keys()
            .find(|k| !KNOWN_OPTIONS.contains(&k.as_str()))
        {
            return Err(RuleError::new(
                format!("triangle-auction has no option `{unknown}`"),
                "the options area (open, or 4 to 12), passing (no or yes), unclaimed (discard or return), dead_ends (allowed or forbidden), track_cap (none or 10) and discards (any_order or now), e.g. `--option passing=yes`",
            ));
        }
        let mut effective = data.options.clone();
        for (key, value) in options {
            effective.insert(key.clone(), value.trim().to_ascii_lowercase());
        }
        let letters: Vec<char> = data
            .colours
            .iter()
            .filter_map(|c| c.chars().next())
            .collect();
        if letters.len() != 5 || data.colour_names.len() != 5 {
            return Err(data_error("the game has five colours"));
        }
        let area = effective.get("area").map_or("", String::as_str);
        let (side, start) = match area.parse::<u8>() {
            Ok(side @ 4..=12) => (side, None),
            _ if area == "open" => {
                let (side, start) = open_area(data.rounds, data.chits_in_hand)?;
                (side, Some(start))
            }
            _ => return Err(RuleError::new(
                format!("area `{area}` is not a size"),
                "`open` (no border ever in the way) or the side of each player's triangular area, 4 to 12 tiles, e.g. `--option area=9`",
            )),
        };
        let passing = choice(&effective, "passing", &["no", "yes"])? == "yes";
        let return_unclaimed = choice(&effective, "unclaimed", &["discard", "return"])? == "return";
        let dead_ends = choice(&effective, "dead_ends", &["forbidden", "allowed"])? == "allowed";
        let track_cap = match choice(&effective, "track_cap", &["10", "none"])? {
            "10" => Some(10),
            _ => None,
        };
        // An option revision 1's data lacks means what revision 1 did; it stays out of
        // the options recorded (genesis, whose hash keys a format-2 game's setup draws).
        let mut reading = effective.clone();
        if data.revision == 1 {
            for (key, meaning) in REVISION_1_MEANINGS {
                reading
                    .entry(key.to_string())
                    .or_insert_with(|| meaning.to_string());
            }
        }
        let discards_in_any_order =
            choice(&reading, "discards", &["any_order", "now"])? == "any_order";
        if data.improvement_steps.len() != 4 {
            return Err(data_error("improvement_steps lists four spaces"));
        }
        let tiles = tile_set(5, data.copies);
        if tiles.len() > usize::from(u8::MAX) {
            return Err(data_error("too many tiles"));
        }
        Ok(TriangleAuction {
            tiles,
            letters,
            colour_names: data.colour_names,
            rounds: data.rounds,
            chits_in_hand: data.chits_in_hand,
            highest_card: data.highest_card,
            improvement_track: data.improvement_track,
            improvement_steps: data.improvement_steps,
            side,
            start,
            passing,
            return_unclaimed,
            dead_ends,
            track_cap,
            discards_in_any_order,
            options: effective,
        })
    }

    fn options(&self) -> Options {
        self.options.clone()
    }

    fn setup(&self, players: &[String], chance: &mut dyn Chance) -> Result<State, RuleError> {
        if !(3..=5).contains(&players.len()) {
            return Err(RuleError::new(
                format!(
                    "the triangle auction is for 3 to 5 players, not {}",
                    players.len()
                ),
                "three, four or five --player",
            ));
        }
        Ok(self.start(players.len(), chance))
    }

    fn to_move(&self, state: &State) -> Vec<Seat> {
        match state.phase {
            Phase::Cards => (0..state.players.len())
                .filter(|&s| !state.players[s].chosen)
                .collect(),
            Phase::Bidding { seat } => vec![usize::from(seat)],
            Phase::Placing => (0..state.players.len())
                .filter(|&s| !state.players[s].won.is_empty())
                .collect(),
            Phase::Over => Vec::new(),
        }
    }

    fn is_over(&self, state: &State) -> bool {
        state.phase == Phase::Over
    }

    fn parse_move(&self, state: &State, seat: Seat, text: &str) -> Result<Move, RuleError> {
        let with_example = |mut error: RuleError| {
            if let Some(example) = self.example_move(state, seat) {
                error.accepted = format!("{}; for example `{example}`", error.accepted);
            }
            error
        };
        match state.phase {
            Phase::Cards => moves::parse_card(text, self.highest_card)
                .map(Move::Card)
                .map_err(with_example),
            Phase::Bidding { .. } => {
                moves::parse_bid(text, &self.tile_words(state, None)).map_err(with_example)
            }
            Phase::Placing => {
                let won = state.players.get(seat).map_or(&[][..], |p| &p.won[..]);
                moves::parse_place(text, &self.tile_words(state, Some(won)), self.side)
                    .map_err(with_example)
            }
            Phase::Over => Err(RuleError::new("the game is over", "no more moves")),
        }
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
        (0..state.players.len())
            .map(|seat| self.score(state, seat).total)
            .collect()
    }

    fn standing(&self, state: &State) -> Vec<i64> {
        (0..state.players.len())
            .map(|seat| self.worth(state, seat))
            .collect()
    }

    fn determinise(&self, known: &State, seat: Seat, chance: &mut dyn Chance) -> State {
        // The only hidden material: the cards others chose face down and have not yet
        // revealed, any of 0 to the highest as far as this seat can tell. (The pile is
        // drawn from at random by position when a round starts, so its order tells
        // nothing.)
        let mut state = known.clone();
        for (who, player) in state.players.iter_mut().enumerate() {
            if who != seat && player.chosen && player.revealed.is_none() && player.card.is_none() {
                let card = chance.draw(
                    u32::from(self.highest_card) + 1,
                    crate::engine::rules::Visibility::Hidden,
                );
                player.card = u8::try_from(card).ok();
            }
        }
        state
    }

    fn winners(&self, state: &State) -> Vec<Seat> {
        if state.phase != Phase::Over {
            return Vec::new();
        }
        // Ties: the most enclosed areas, then the furthest on the improvement track;
        // what is still tied is shared.
        let keys: Vec<_> = (0..state.players.len())
            .map(|seat| {
                let score = self.score(state, seat);
                (score.total, score.enclosed, state.players[seat].improvement)
            })
            .collect();
        let best = keys.iter().max();
        (0..keys.len())
            .filter(|&seat| Some(&keys[seat]) == best)
            .collect()
    }

    fn deadline_move(&self, state: &State, seat: Seat, choice: Deadline) -> Option<Move> {
        match choice {
            Deadline::Skip => self.fallback(state, seat),
            Deadline::Forfeit => None,
        }
    }

    fn forced_move(&self, state: &State, seat: Seat) -> Option<Move> {
        self.forced(state, seat)
    }

    fn sample_move(&self, state: &State, seat: Seat, rng: &mut dyn Chance) -> Option<Move> {
        self.sample(state, seat, rng)
    }

    fn status(&self, state: &State) -> Option<String> {
        let phase = match state.phase {
            Phase::Cards => "choosing cards",
            Phase::Bidding { .. } => "bidding",
            Phase::Placing => "placing",
            Phase::Over => return Some("over".into()),
        };
        Some(format!("round {} of {}, {phase}", state.round, self.rounds))
    }

    fn is_sealed(&self, state: &State, _seat: Seat) -> bool {
        state.phase == Phase::Cards
    }

    fn as_recorded(&self, state: &State, seat: Seat, mv: Move) -> Result<Move, RuleError> {
        // A placing turn in one order (T18): the order is the area's, which the state
        // keeps, so a record written before T18 replays in the order it was written.
        match (&state.phase, mv) {
            (Phase::Placing, mv @ Move::Place(_)) => self.placing_as_recorded(state, seat, mv),
            (_, mv) => Ok(mv),
        }
    }

    fn combine(
        &self,
        state: &State,
        seat: Seat,
        earlier: &str,
        latest: &Move,
    ) -> Result<Move, RuleError> {
        self.placing_combined(state, seat, earlier, latest)
    }

    fn round_label(&self, state: &State) -> RoundLabel {
        // The cards of a round are chosen all at once, and its placements made by every
        // winner at once, in as many messages as each likes: each is one round of
        // simultaneous moves, whose draws (the next offer) key on all of them.
        let round = u64::from(state.round) * 2;
        match state.phase {
            Phase::Cards => RoundLabel::Phase(round),
            Phase::Placing => RoundLabel::Phase(round + 1),
            Phase::Bidding { .. } | Phase::Over => RoundLabel::Alone,
        }
    }

    fn opens(&self, state: &State, seat: Seat, _mv: &Move) -> Vec<Seat> {
        // "On a player's turn, he reveals his card": the first bidding turn.
        match state.phase {
            Phase::Bidding { .. } if state.players[seat].revealed.is_none() => vec![seat],
            _ => Vec::new(),
        }
    }

    fn public_state(&self, state: &State) -> State {
        let mut public = state.clone();
        for player in &mut public.players {
            player.card = None;
        }
        public
    }

    fn seat_state(&self, state: &State, seat: Seat) -> State {
        let mut known = self.public_state(state);
        // A player knows their own face-down card, and only theirs.
        if let (Some(mine), Some(full)) = (known.players.get_mut(seat), state.players.get(seat)) {
            mine.card = full.card;
        }
        known
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

    fn game_end(&self, state: &State, names: &[String]) -> GameEnd {
        self.end_of_game(state, names)
    }

    const RULES_PAGE: &'static str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/rules/triangle-auction.md"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::{page_section, MOVES_HEADING, SUMMARY_HEADING};

    /// A game started under revision 1 keeps revision 1's rules (capped colours, no
    /// dead ends, a discard whenever the tile fits nowhere at that point), and the
    /// options its genesis records stay exactly those it recorded then (their hash keys
    /// a format-2 game's setup draws); a new game gets the seed's readings.
    #[test]
    fn each_revision_plays_its_own_rules() {
        let old = TriangleAuction::from_data(
            include_str!("../../../tests/fixtures/triangle-auction/revision-1.toml"),
            &Options::new(),
        )
        .expect("revision 1 data");
        assert_eq!(old.track_cap, Some(10));
        assert!(!old.dead_ends);
        assert!(!old.discards_in_any_order);
        assert_eq!(old.start, None, "revision 1 areas are bounded, side 9");
        assert_eq!(old.side, 9);
        assert!(!old.options().contains_key("discards"));
        let new = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Options::new())
            .expect("built-in data");
        assert_eq!(new.track_cap, None);
        assert!(new.dead_ends);
        assert!(new.discards_in_any_order);
        assert!(new.start.is_some());
        assert_eq!(
            new.options().get("discards").map(String::as_str),
            Some("any_order")
        );
        let future = TriangleAuction::DEFAULT_DATA.replace("revision = 2", "revision = 3");
        assert!(TriangleAuction::from_data(&future, &Options::new()).is_err());
    }

    /// The open area (T3, the default): every space a chain of the most tiles a
    /// player can win reaches from its first, on the middle space, has all three
    /// neighbours, so its border never decides a placement; and a first tile goes
    /// there only, while `area=9` still takes one anywhere.
    #[test]
    fn an_open_area_has_no_border_within_reach() {
        let rules = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Options::new())
            .expect("built-in data");
        let start = rules.start.expect("the default area is open");
        assert_eq!(start.name(), "AO41");
        let reach = usize::from(rules.rounds) * usize::from(rules.chits_in_hand);
        assert_eq!(reach, 40);
        // Tiles 1 to 40 lie at most 39 steps from the first: each is checked against
        // its three neighbours.
        let mut frontier = vec![start];
        let mut seen = std::collections::BTreeSet::from([start]);
        for _ in 0..reach {
            let mut next = Vec::new();
            for cell in &frontier {
                for edge in 0..3 {
                    let (other, _) = cell
                        .neighbour(edge, rules.side)
                        .unwrap_or_else(|| panic!("{} meets the border", cell.name()));
                    if seen.insert(other) {
                        next.push(other);
                    }
                }
            }
            frontier = next;
        }
        // Every name drawn within reach fits two columns.
        assert!(seen.iter().all(|cell| cell.index < 99));
        let area = std::collections::BTreeMap::new();
        for tile in [0, 40, 89] {
            let placements = rules.placements(&area, tile);
            assert_eq!(placements.len(), 3);
            assert!(placements.iter().all(|&(cell, _)| cell == start));
        }
        let bounded = TriangleAuction::from_data(
            TriangleAuction::DEFAULT_DATA,
            &Options::from([("area".to_string(), "9".to_string())]),
        )
        .expect("area=9");
        assert_eq!(bounded.start, None);
        assert_eq!(bounded.placements(&area, 0).len(), 81 * 3);
        let unknown = TriangleAuction::from_data(
            TriangleAuction::DEFAULT_DATA,
            &Options::from([("area".to_string(), "huge".to_string())]),
        );
        assert!(unknown.is_err());
    }

    /// The two sections every welcome quotes read as mail: present, plain (no bold,
    /// no tables), within 78 columns, and the move language gives every action.
    #[test]
    fn the_rules_page_quoted_in_welcomes_reads_as_mail() {
        let page = TriangleAuction::RULES_PAGE;
        let summary = page_section(page, SUMMARY_HEADING);
        let syntax = page_section(page, MOVES_HEADING);
        for section in [&summary, &syntax] {
            assert!(section.lines().count() > 8, "{section}");
            for line in section.lines() {
                assert!(line.chars().count() <= 78, "too wide: {line:?}");
                assert!(!line.contains("**") && !line.starts_with('|'), "{line}");
            }
        }
        for action in [
            "card 3",
            "bid 2 on A, 1 on C",
            "pass",
            "place A at C5 r1",
            "discard F",
        ] {
            assert!(syntax.contains(action), "{action}");
        }
        // Every example in the move language is a move the rules read.
        let rules = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Options::new())
            .expect("built-in data");
        let examples = syntax
            .lines()
            .filter(|line| line.starts_with("    "))
            .map(str::trim);
        for example in examples {
            let read = match example.split(' ').next() {
                Some("card") => moves::parse_card(example, rules.highest_card).map(Move::Card),
                Some("bid") => moves::parse_bid(example, &moves::TileWords::letters(7)),
                _ => moves::parse_place(example, &moves::TileWords::letters(7), rules.side),
            };
            assert!(read.is_ok(), "{example}: {read:?}");
        }
    }
}
