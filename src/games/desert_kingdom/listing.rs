//! The moves as a person reads them (`Rules::moves_text`): short, grouped by action
//! (discover, road, activate, city, take), with what each road scores, narrowed to
//! one square or one tile on request. `legal` (the JSON list) stays complete.

use std::fmt::Write as _;

use super::board::Square;
use super::play::RoadOutcome;
use super::state::{Kind, Phase, State};
use super::text::{kinds_text, plural};
use super::{draw_number, forbidden, forced, value, DesertKingdom};
use crate::engine::rules::{MoveFilter, Seat};
use crate::grid::canvas::WIDTH;

/// Where the note after a move text starts, so that the notes line up.
const NOTE_AT: usize = 22;

/// Words joined with `sep` into lines of at most [`WIDTH`] columns, the first line
/// starting with `head`, the others indented by `indent`.
fn wrapped(head: &str, words: &[String], sep: &str, indent: usize) -> String {
    let last = words.len().saturating_sub(1);
    let pieces: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, word)| match i < last {
            true => format!("{word}{}", sep.trim_end()),
            false => word.clone(),
        })
        .collect();
    crate::grid::canvas::wrap_words(head, &pieces, indent)
}

/// A move text and what it does, on one line when both fit.
fn entry(text: &str, note: &str) -> String {
    let text = format!("  {text}");
    if note.is_empty() {
        format!("{text}\n")
    } else if text.len().max(NOTE_AT) + 1 + note.len() <= WIDTH {
        format!("{text:<NOTE_AT$} {note}\n")
    } else {
        format!("{text}\n      {note}\n")
    }
}

/// What a filter word names in this game's terms.
enum Wanted {
    Square(Square),
    Tile(Kind),
}

fn read_word(word: &str) -> Option<Wanted> {
    Square::parse(word)
        .map(Wanted::Square)
        .or_else(|| Kind::parse(word).map(Wanted::Tile))
}

/// A tile's marks for an activation: "draws 4; forced mine; forbidden city, oasis".
pub(crate) fn marks(kind: Kind) -> String {
    let mut parts = vec![format!("draws {}", draw_number(kind))];
    if !forced(kind).is_empty() {
        parts.push(format!("forced {}", kinds_text(forced(kind))));
    }
    if !forbidden(kind).is_empty() {
        parts.push(format!("forbidden {}", kinds_text(forbidden(kind))));
    }
    parts.join("; ")
}

impl DesertKingdom {
    /// What a road scores, in a few words: "you 4, Bob 5 (links the city on B4)".
    /// Who gains what from a road: "you +2, Bob +5".
    fn road_note(outcome: &RoadOutcome, seat: Seat, names: &[String]) -> String {
        if !outcome.scores {
            return "scores nothing".to_string();
        }
        let mut seats: Vec<Seat> = outcome.gains.iter().map(|g| g.seat).collect();
        seats.sort_unstable();
        seats.dedup();
        seats.sort_by_key(|&s| s != seat);
        let mut parts: Vec<String> = seats
            .iter()
            .map(|&s| {
                let who = if s == seat {
                    "you".to_string()
                } else {
                    player_name(names, s)
                };
                format!("{who} +{}", outcome.points_of(s))
            })
            .collect();
        if !seats.contains(&seat) {
            parts.insert(0, "you +0".to_string());
        }
        let mut why = Vec::new();
        if !outcome.new_cities.is_empty() {
            let cities: Vec<String> = outcome.new_cities.iter().map(|s| s.name()).collect();
            why.push(format!("links {}", cities.join(" ")));
        }
        if outcome.joined >= 2 {
            why.push(format!("joins {} networks", outcome.joined));
        }
        format!("{} ({})", parts.join(", "), why.join(", "))
    }

    fn empty_squares(state: &State) -> Vec<Square> {
        Square::all()
            .filter(|&at| Self::tile(state, at).is_none())
            .collect()
    }

    /// The face-up tiles that can be activated, each with the empty squares beside it.
    fn activations(state: &State) -> Vec<(Square, Kind, Vec<Square>)> {
        Square::all()
            .filter_map(|from| {
                let tile = Self::tile(state, from).filter(|t| !t.face_down)?;
                let kind = tile.kind?;
                let into: Vec<Square> = from
                    .neighbours()
                    .filter(|&to| Self::tile(state, to).is_none())
                    .collect();
                (!into.is_empty()).then_some((from, kind, into))
            })
            .collect()
    }

    /// The line that ends a listing: how to narrow it, with a square and a tile of
    /// this position.
    fn narrow_line(&self, state: &State) -> String {
        let at = self
            .last_on_spiral(state)
            .map_or_else(|| "C4".to_string(), Square::name);
        format!("Narrow: `moves {at}` (one square), `moves tile oasis` (one tile).\n")
    }

    /// `Rules::moves_text`.
    pub(crate) fn moves_listing(
        &self,
        state: &State,
        seat: Seat,
        filter: &MoveFilter,
        names: &[String],
    ) -> String {
        let on_turn = match state.phase {
            Phase::Over => return "The game is over: there are no moves.\n".to_string(),
            Phase::Turn { seat: s }
            | Phase::Choosing { seat: s, .. }
            | Phase::Defending { seat: s, .. } => usize::from(s) == seat,
        };
        if let Phase::Defending { city, .. } = state.phase {
            return Self::defence_listing(state, seat, city);
        }
        if !on_turn {
            return "It is not your turn: there are no moves for you now.\n".to_string();
        }
        let mut at = None;
        let mut tile = None;
        for word in [&filter.at, &filter.tile].into_iter().flatten() {
            match read_word(word) {
                Some(Wanted::Square(square)) => at = Some(square),
                Some(Wanted::Tile(kind)) => tile = Some(kind),
                None => {
                    return format!(
                        "`{}` is neither a square nor a tile. A square is a column A-H and a\n\
                         row 1-8, like D5; a tile is one of oasis, city, mine, grass, desert,\n\
                         mountain, treasure, barbarian.\n{}",
                        word.trim(),
                        self.narrow_line(state)
                    );
                }
            }
        }
        match state.phase {
            Phase::Choosing { square, .. } => Self::take_listing(state, square, at, tile),
            _ => match (at, tile) {
                (None, None) => self.overview(state, seat, names),
                (Some(square), tile) => self.at_square(state, seat, square, tile, names),
                (None, Some(kind)) => self.with_tile(state, seat, kind, names),
            },
        }
    }

    /// The answers to a band of barbarians at `seat`'s city (D13).
    fn defence_listing(state: &State, seat: Seat, city: Square) -> String {
        let treasures = state.players.get(seat).map_or(0, |p| p.treasures);
        let mut out = format!(
            "A band of barbarians is at your city on {}; you hold {}:\n",
            city.name(),
            plural(usize::from(treasures), "treasure", "treasures")
        );
        out.push_str(&entry(
            "pay",
            &format!(
                "turn in a treasure: the band occupies {}, which stays yours",
                city.name()
            ),
        ));
        out.push_str(&entry(
            "keep",
            &format!(
                "keep the treasure (20 points at the end): {} falls",
                city.name()
            ),
        ));
        out
    }

    /// The tiles drawn, each with what keeping it does.
    fn take_listing(
        state: &State,
        square: Square,
        at: Option<Square>,
        tile: Option<Kind>,
    ) -> String {
        let mut out = String::new();
        if let Some(other) = at.filter(|&s| s != square) {
            let _ = writeln!(
                out,
                "Your tiles are for {}, not {}: you keep one now.",
                square.name(),
                other.name()
            );
        }
        let mut kinds = state.drawn.clone();
        kinds.sort_unstable();
        kinds.dedup();
        kinds.sort_by_key(|&k| std::cmp::Reverse(super::worth(k)));
        if let Some(kind) = tile.filter(|k| !kinds.contains(k)) {
            let _ = writeln!(
                out,
                "You drew no {}; you drew {}.",
                kind.name(),
                kinds_text(&state.drawn)
            );
        }
        let shown: Vec<Kind> = kinds
            .into_iter()
            .filter(|k| tile.is_none_or(|t| t == *k))
            .collect();
        if shown.is_empty() {
            return out;
        }
        // The face-down tile may have taken the last square (D12).
        let no_square = Self::tile(state, square).is_some();
        if no_square {
            let _ = writeln!(
                out,
                "Take one tile (the others go back to the bag); the barbarians' spiral filled {}, the last square, so it scores without one (D12):",
                square.name()
            );
        } else {
            let _ = writeln!(
                out,
                "Take one tile for {} (the others go back to the bag):",
                square.name()
            );
        }
        for kind in &shown {
            let note = match kind {
                Kind::Treasure => "kept aside: 20 points at the end".to_string(),
                Kind::Barbarian => {
                    "kept aside: 15 points now, one more band at the end".to_string()
                }
                other if no_square => format!(
                    "no square left: {} all the same",
                    plural(
                        usize::try_from(value(*other)).unwrap_or(0),
                        "point",
                        "points"
                    )
                ),
                other => format!(
                    "placed on {}: {}",
                    square.name(),
                    plural(
                        usize::try_from(value(*other)).unwrap_or(0),
                        "point",
                        "points"
                    )
                ),
            };
            out.push_str(&entry(&format!("take {}", kind.name()), &note));
        }
        out
    }

    /// Every action, grouped, the roads with what each scores.
    fn overview(&self, state: &State, seat: Seat, names: &[String]) -> String {
        let mut out = String::new();
        let empty = Self::empty_squares(state);
        let heart = self.last_on_spiral(state);
        let next = self
            .spiral
            .iter()
            .copied()
            .find(|&s| Self::tile(state, s).is_none());
        let example = heart.map_or_else(|| "D5".to_string(), Square::name);
        if !empty.is_empty() {
            let names_of: Vec<String> = empty.iter().map(|s| s.name()).collect();
            out.push_str(&format!(
                "Discover: a tile from the bag for one of {} empty squares,\n\
                 e.g. `discover {example}`:\n",
                empty.len()
            ));
            out.push_str(&wrapped("   ", &names_of, " ", 3));
        }
        let roads: Vec<(Square, RoadOutcome)> = Square::all()
            .filter(|&s| Self::roadable(state, s))
            .map(|s| (s, self.road_outcome(state, seat, s)))
            .collect();
        if !roads.is_empty() {
            let (mut scoring, quiet): (Vec<_>, Vec<_>) =
                roads.iter().partition(|(_, outcome)| outcome.scores);
            scoring.sort_by_key(|(s, outcome)| (-outcome.points_of(seat), s.index()));
            let _ = writeln!(
                out,
                "Road on a face-up desert or grass (a tile goes face down on {}):",
                next.map_or_else(|| "none".to_string(), Square::name)
            );
            for (at, outcome) in &scoring {
                out.push_str(&entry(
                    &format!("road {}", at.name()),
                    &Self::road_note(outcome, seat, names),
                ));
            }
            if !quiet.is_empty() {
                let squares: Vec<String> = quiet.iter().map(|(s, _)| s.name()).collect();
                out.push_str(&wrapped("  scoring nothing:", &squares, " ", 4));
            }
        }
        let activations = Self::activations(state);
        if let Some((from, _, into)) = activations.first() {
            let _ = writeln!(
                out,
                "Activate a face-up tile into an empty square beside it (a tile goes\n\
                 face down first), e.g. `activate {} to {}`; by the tile activated:",
                from.name(),
                into.first().map_or_else(String::new, |s| s.name())
            );
            for kind in Kind::ALL {
                let here: Vec<String> = activations
                    .iter()
                    .filter(|(_, k, _)| *k == kind)
                    .map(|(from, _, into)| {
                        let into: Vec<String> = into.iter().map(|s| s.name()).collect();
                        format!("{} to {}", from.name(), into.join("/"))
                    })
                    .collect();
                if here.is_empty() {
                    continue;
                }
                let _ = writeln!(out, "  {} ({}):", kind.name(), marks(kind));
                out.push_str(&wrapped("    ", &here, ", ", 4));
            }
        }
        if state.players[seat].city_tile && !empty.is_empty() {
            let _ = writeln!(
                out,
                "City: your city tile on any empty square, 5 points, once a game,\n  e.g. `city {example}`"
            );
        }
        out.push_str(&self.narrow_line(state));
        out
    }

    /// Every move at one square (with one tile, if given).
    fn at_square(
        &self,
        state: &State,
        seat: Seat,
        at: Square,
        tile: Option<Kind>,
        names: &[String],
    ) -> String {
        let mut out = String::new();
        let mut lines = String::new();
        match Self::tile(state, at) {
            None => {
                let _ = writeln!(out, "{} is empty.", at.name());
                if tile.is_none() {
                    lines.push_str(&entry(
                        &format!("discover {}", at.name()),
                        "a tile from the bag",
                    ));
                }
                if state.players[seat].city_tile && tile.is_none_or(|k| k == Kind::City) {
                    lines.push_str(&entry(
                        &format!("city {}", at.name()),
                        "your city tile: 5 points",
                    ));
                }
                for from in at.neighbours() {
                    let Some(kind) = Self::tile(state, from)
                        .filter(|t| !t.face_down)
                        .and_then(|t| t.kind)
                    else {
                        continue;
                    };
                    if tile.is_some_and(|k| k != kind) {
                        continue;
                    }
                    lines.push_str(&entry(
                        &format!("activate {} to {}", from.name(), at.name()),
                        &format!("{} ({})", kind.name(), marks(kind)),
                    ));
                }
            }
            Some(square) if square.face_down => {
                let _ = writeln!(
                    out,
                    "{} lies face down: nothing is built on it or activated from it.",
                    at.name()
                );
            }
            Some(square) => {
                let kind = square.kind.unwrap_or(Kind::Desert);
                let owner = square.owner.map_or_else(String::new, |o| {
                    format!("{}'s ", player_name(names, usize::from(o)))
                });
                let _ = writeln!(
                    out,
                    "{} holds {owner}{}{}.",
                    at.name(),
                    kind.name(),
                    if square.road { " with a road" } else { "" },
                );
                let words: Vec<String> = format!("Activating it: {}.", marks(kind))
                    .split(' ')
                    .map(String::from)
                    .collect();
                out.push_str(&wrapped("", &words, " ", 0));
                if tile.is_none_or(|k| k == kind) {
                    if Self::roadable(state, at) {
                        let outcome = self.road_outcome(state, seat, at);
                        lines.push_str(&entry(
                            &format!("road {}", at.name()),
                            &Self::road_note(&outcome, seat, names),
                        ));
                    }
                    for to in at.neighbours().filter(|&s| Self::tile(state, s).is_none()) {
                        lines.push_str(&entry(
                            &format!("activate {} to {}", at.name(), to.name()),
                            "",
                        ));
                    }
                }
            }
        }
        if lines.is_empty() {
            let _ = writeln!(
                out,
                "No move there{}: `moves` lists them all.",
                tile.map_or_else(String::new, |k| format!(" with {}", k.name()))
            );
        } else {
            out.push_str(&lines);
        }
        out
    }

    /// Every move with one tile: activations from it, roads on it, the city tile.
    fn with_tile(&self, state: &State, seat: Seat, kind: Kind, names: &[String]) -> String {
        let mut out = String::new();
        if kind == Kind::City && state.players[seat].city_tile {
            let example = self
                .last_on_spiral(state)
                .map_or_else(|| "D5".to_string(), Square::name);
            out.push_str(&entry(
                &format!("city {example}"),
                "your city tile, on any empty square: 5 points",
            ));
        }
        let roads: Vec<Square> = Square::all()
            .filter(|&s| {
                Self::roadable(state, s) && Self::tile(state, s).and_then(|t| t.kind) == Some(kind)
            })
            .collect();
        if !roads.is_empty() {
            let _ = writeln!(out, "Road on {}:", kind.name());
        }
        for at in roads {
            let outcome = self.road_outcome(state, seat, at);
            out.push_str(&entry(
                &format!("road {}", at.name()),
                &Self::road_note(&outcome, seat, names),
            ));
        }
        let here: Vec<String> = Self::activations(state)
            .into_iter()
            .filter(|(_, k, _)| *k == kind)
            .map(|(from, _, into)| {
                let into: Vec<String> = into.iter().map(|s| s.name()).collect();
                format!("{} to {}", from.name(), into.join("/"))
            })
            .collect();
        if !here.is_empty() {
            let words: Vec<String> = format!("Activate {} ({}):", kind.name(), marks(kind))
                .split(' ')
                .map(String::from)
                .collect();
            out.push_str(&wrapped("", &words, " ", 2));
            out.push_str(&wrapped("    ", &here, ", ", 4));
        }
        if out.is_empty() {
            let why = if kind.is_special() {
                format!(
                    "a {} is never on the board; it comes from the bag",
                    kind.name()
                )
            } else {
                format!(
                    "no face-up {} has an empty square beside it{}",
                    kind.name(),
                    if matches!(kind, Kind::Grass | Kind::Desert) {
                        " or takes a road"
                    } else {
                        ""
                    }
                )
            };
            let words: Vec<String> = format!("No move with {} now: {why}.", kind.name())
                .split(' ')
                .map(String::from)
                .collect();
            out.push_str(&wrapped("", &words, " ", 0));
            out.push_str(&self.narrow_line(state));
        }
        out
    }
}

/// A player's name, or their number on the board when the name is not known.
fn player_name(names: &[String], seat: Seat) -> String {
    names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| format!("player {}", seat + 1))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::engine::rules::Rules;
    use crate::engine::DrawStream;

    /// The moves an overview offers, read back: every square it lists for discover,
    /// road and city, and every activation `A to B/C`.
    fn offered(text: &str) -> BTreeSet<String> {
        let mut moves = BTreeSet::new();
        let mut group = "";
        for line in text.lines() {
            if line.starts_with("Discover") {
                group = "discover";
            } else if line.starts_with("Road") {
                group = "road";
            } else if line.starts_with("Activate") {
                group = "activate";
            } else if line.starts_with("City") {
                group = "city";
            } else if line.starts_with("Narrow") {
                group = "";
            }
            let words: Vec<&str> = line
                .split(|c: char| c.is_whitespace() || c == ',' || c == '`')
                .filter(|w| !w.is_empty())
                .collect();
            match group {
                "discover" if line.starts_with(' ') => {
                    for word in words {
                        moves.insert(format!("discover {word}"));
                    }
                }
                "road" => {
                    if let ["road", at, ..] = words.as_slice() {
                        moves.insert(format!("road {at}"));
                    }
                    if let ["scoring", "nothing:", rest @ ..] = words.as_slice() {
                        for at in rest {
                            moves.insert(format!("road {at}"));
                        }
                    }
                    if line.starts_with("    ") {
                        for at in words {
                            moves.insert(format!("road {at}"));
                        }
                    }
                }
                "activate" if line.starts_with("   ") => {
                    for pair in line.split(", ") {
                        let pair = pair.trim().trim_end_matches(',');
                        if let Some((from, into)) = pair.split_once(" to ") {
                            for to in into.split('/') {
                                moves.insert(format!("activate {from} to {to}"));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        moves
    }

    /// Over random games, the overview offers exactly the legal moves (the city tile
    /// as one line), every listing keeps within 78 columns, and the filters narrow it
    /// to the moves at a square or with a tile.
    #[test]
    fn the_lists_offer_every_legal_move_within_78_columns() {
        let rules = DesertKingdom::standard().expect("built-in data");
        let names: Vec<String> = ["Ann", "Bob", "Cid"]
            .iter()
            .map(|n| (*n).to_string())
            .collect();
        let mut checked = 0;
        for seed in 0..4 {
            let mut chance = DrawStream::for_testing(seed);
            let mut picker = DrawStream::for_testing(seed + 50);
            let mut state = rules.setup(&names, &mut chance).expect("setup");
            let mut turn = 0;
            while !rules.is_over(&state) {
                let seat = rules.to_move(&state)[0];
                turn += 1;
                if turn % 5 == 0 {
                    let legal: BTreeSet<String> = rules
                        .legal_moves(&state, seat)
                        .into_iter()
                        .map(|m| m.text)
                        .filter(|t| !t.starts_with("city ") && !t.starts_with("take "))
                        .collect();
                    let text = rules.moves_text(&state, seat, &MoveFilter::default(), &[]);
                    if matches!(state.phase, Phase::Turn { .. }) {
                        assert_eq!(offered(&text), legal, "{text}");
                        checked += 1;
                    }
                    let squares = ["A1", "D4", "E5", "H8", "c3"];
                    let tiles = ["oasis", "city", "grass", "treasure", "mine"];
                    let filters = squares
                        .iter()
                        .map(|s| (Some(*s), None))
                        .chain(tiles.iter().map(|t| (None, Some(*t))))
                        .chain([(Some("E5"), Some("desert")), (Some("Z9"), None)]);
                    for (at, tile) in filters {
                        let filter = MoveFilter {
                            at: at.map(String::from),
                            tile: tile.map(String::from),
                        };
                        let narrowed = rules.moves_text(&state, seat, &filter, &[]);
                        assert!(!narrowed.trim().is_empty());
                        for line in narrowed.lines().chain(text.lines()) {
                            assert!(line.len() <= WIDTH, "{line:?}");
                            assert_eq!(line, line.trim_end());
                        }
                        // Every move a square's list shows is legal and names it.
                        let square = at.and_then(Square::parse);
                        if let (Some(square), None, Phase::Turn { .. }) =
                            (square, tile, &state.phase)
                        {
                            for line in narrowed
                                .lines()
                                .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
                            {
                                let mv = line.trim().split("  ").next().unwrap_or("").trim();
                                assert!(mv.contains(&square.name()), "{line}");
                                assert!(
                                    rules.parse_move(&state, seat, mv).is_ok()
                                        && legal_or_city(&rules, &state, seat, mv),
                                    "{mv}"
                                );
                            }
                        }
                    }
                }
                let mv = rules
                    .sample_move(&state, seat, &mut picker)
                    .expect("a move");
                state = rules
                    .apply(&state, seat, &mv, &mut chance)
                    .expect("applies");
            }
        }
        assert!(checked > 10);
    }

    fn legal_or_city(rules: &DesertKingdom, state: &State, seat: Seat, text: &str) -> bool {
        rules
            .legal_moves(state, seat)
            .iter()
            .any(|m| m.text == text)
    }

    #[test]
    fn a_filter_that_matches_nothing_says_why_and_how_to_narrow() {
        let rules = DesertKingdom::standard().expect("built-in data");
        let names: Vec<String> = ["Ann", "Bob"].iter().map(|n| (*n).to_string()).collect();
        let mut state = rules
            .setup(&names, &mut DrawStream::for_testing(3))
            .expect("setup");
        state.phase = Phase::Turn { seat: 0 };
        let text = |at: Option<&str>, tile: Option<&str>| {
            rules.moves_text(
                &state,
                0,
                &MoveFilter {
                    at: at.map(String::from),
                    tile: tile.map(String::from),
                },
                &[],
            )
        };
        let none = text(None, Some("oasis"));
        assert!(
            none.starts_with("No move with oasis now: no face-up oasis"),
            "{none}"
        );
        assert!(none.contains("Narrow: `moves "), "{none}");
        let special = text(None, Some("treasure"));
        let squeezed = special.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(squeezed.contains("it comes from the bag."), "{special}");
        let bad = text(Some("Z9"), None);
        assert!(
            bad.starts_with("`Z9` is neither a square nor a tile"),
            "{bad}"
        );
        // An empty board: D5 offers discover and the city tile, nothing else.
        let d5 = text(Some("d5"), None);
        assert!(d5.contains("discover D5") && d5.contains("city D5"), "{d5}");
        assert!(!d5.contains("activate"), "{d5}");
        // Not this player's turn.
        assert!(rules
            .moves_text(&state, 1, &MoveFilter::default(), &[])
            .starts_with("It is not your turn"));
    }
}
