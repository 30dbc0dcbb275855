//! Each game's own balance questions, asked of every game a simulation plays.
//!
//! A measure sorts the seats of each finished game into groups (a desert kingdom's
//! seats by how many oases they held, every game's by turn order) and reports each
//! group's win rate with its 95% interval: the groups of one measure take every seat
//! of every game once, so their seat-games add up to games times players. What a
//! measure needs from the game's course rather than its end (where a turn-1 city went)
//! is noted move by move in the game's [`Measured::Notes`]; the order in which the
//! seats took their first turns is noted for every game by the simulation itself
//! ([`Measured::takes_turn`]).
//!
//! A game may also break each final score into parts ([`Measured::score_parts`]), which
//! a run adds up into where the points came from ([`ScorePart`]).

use serde::Serialize;

use crate::engine::rules::{Rules, Seat};
use crate::games::desert_kingdom::{DesertKingdom, Kind, ScoreParts, State as DkState};
use crate::games::right_of_way::{RightOfWay, State as RowState};
use crate::games::triangle_auction::{Phase as TaPhase, State as TaState, TriangleAuction};

/// One measure of one finished game: its groups, in the order reports list them, and
/// the group of each seat.
#[derive(Debug, Clone)]
pub struct Sorting {
    pub measure: &'static str,
    pub groups: Vec<String>,
    /// For each seat, its index in `groups`.
    pub seat_group: Vec<usize>,
}

/// A game whose balance questions a simulation answers.
pub trait Measured: Rules {
    /// What is noted along one game for its measures.
    type Notes: Default;

    /// Whether a move from `before` is a turn of the game's turn order, the kind of
    /// move whose order the measure `turn order` asks about. True by default; false
    /// for moves every player makes at once (a sealed choice, whose arrival order the
    /// simulation draws) and for setup moves before the turn order starts.
    fn takes_turn(&self, _before: &Self::State) -> bool {
        true
    }

    /// Notes the move `seat` just made, from `before` to `after`.
    fn note(
        &self,
        _notes: &mut Self::Notes,
        _before: &Self::State,
        _seat: Seat,
        _after: &Self::State,
    ) {
    }

    /// How the seats of the finished game `end` fall into each measure's groups;
    /// `turns` holds the seats in the order they took their first turn
    /// ([`Measured::takes_turn`]), the player who moved first first.
    fn sort_seats(&self, notes: &Self::Notes, turns: &[Seat], end: &Self::State) -> Vec<Sorting>;

    /// Each seat's final score in parts, by where its points came from: the same
    /// parts, in the same order, for every seat, adding up to the seat's score (a part
    /// that takes points away is negative). None (the default) for a game that does
    /// not break its scores down.
    fn score_parts(&self, _end: &Self::State) -> Vec<Vec<(&'static str, i64)>> {
        Vec::new()
    }
}

/// The measure `turn order`: the seat that took the first turn, `first`; every other
/// seat, `others` (a right of way's `second`, a larger game's `later`). A seat that
/// never took a turn is not the first.
fn turn_order(turns: &[Seat], players: usize, others: &str) -> Sorting {
    let first = turns.first().copied();
    Sorting {
        measure: "turn order",
        groups: vec!["first".to_string(), others.to_string()],
        seat_group: (0..players)
            .map(|seat| usize::from(Some(seat) != first))
            .collect(),
    }
}

/// One part of the scores over the whole run: where the points came from.
#[derive(Debug, Clone, Serialize)]
pub struct ScorePart {
    pub part: String,
    /// Its points over every seat of every game (negative for a part that takes
    /// points away).
    pub points: i64,
    /// Its points per seat-game.
    pub mean: f64,
    /// Its share of the points gained: `points` over the sum of the parts that add
    /// points, so the shares of those add up to 1 and a part that takes points away
    /// has a negative share.
    pub share: f64,
}

/// Adds up the games' score parts, in the order the first game that has any lists them.
pub fn sum_parts(games: &[Vec<Vec<(&'static str, i64)>>]) -> Vec<ScorePart> {
    let Some(names) = games
        .iter()
        .flat_map(|game| game.first())
        .next()
        .map(|parts| parts.iter().map(|(name, _)| *name).collect::<Vec<_>>())
    else {
        return Vec::new();
    };
    let mut totals = vec![0i64; names.len()];
    let mut seat_games = 0usize;
    for seat in games.iter().flatten() {
        seat_games += 1;
        for (name, points) in seat {
            if let Some(at) = names.iter().position(|n| n == name) {
                totals[at] += points;
            }
        }
    }
    let gained: i64 = totals.iter().filter(|&&p| p > 0).sum();
    names
        .iter()
        .zip(&totals)
        .map(|(name, &points)| ScorePart {
            part: (*name).to_string(),
            points,
            mean: points as f64 / seat_games.max(1) as f64,
            share: if gained == 0 {
                0.0
            } else {
                points as f64 / gained as f64
            },
        })
        .collect()
}

/// One group of a measure over the whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub group: String,
    /// Seat-games in the group.
    pub seats: usize,
    /// Their wins, a win shared by k counting 1/k.
    pub wins: f64,
    pub win_rate: f64,
    pub ci95: [f64; 2],
    pub mean_score: f64,
}

/// One measure over the whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Measure {
    pub measure: String,
    pub groups: Vec<Group>,
}

/// A finished game as the measures see it.
#[derive(Debug, Clone)]
pub struct Sorted {
    pub sortings: Vec<Sorting>,
    /// Each seat's share of the win (1/k for a win shared by k, else 0).
    pub win_shares: Vec<f64>,
    pub scores: Vec<i64>,
}

/// Adds up the games' sortings, measure by measure, in the order the first game
/// lists them.
pub fn summarise(games: &[Sorted]) -> Vec<Measure> {
    let Some(first) = games.first() else {
        return Vec::new();
    };
    first
        .sortings
        .iter()
        .map(|template| {
            let groups = template.groups.len();
            let mut seats = vec![0usize; groups];
            let mut wins = vec![0.0f64; groups];
            let mut scores = vec![0i64; groups];
            for game in games {
                let Some(sorting) = game.sortings.iter().find(|s| s.measure == template.measure)
                else {
                    continue;
                };
                for (seat, &group) in sorting.seat_group.iter().enumerate() {
                    if group >= groups {
                        continue;
                    }
                    seats[group] += 1;
                    wins[group] += game.win_shares.get(seat).copied().unwrap_or(0.0);
                    scores[group] += game.scores.get(seat).copied().unwrap_or(0);
                }
            }
            Measure {
                measure: template.measure.to_string(),
                groups: (0..groups)
                    .map(|g| {
                        let n = seats[g].max(1) as f64;
                        Group {
                            group: template.groups[g].clone(),
                            seats: seats[g],
                            wins: wins[g],
                            win_rate: if seats[g] == 0 { 0.0 } else { wins[g] / n },
                            ci95: super::wilson95(wins[g], seats[g]),
                            mean_score: if seats[g] == 0 {
                                0.0
                            } else {
                                scores[g] as f64 / n
                            },
                        }
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Groups `0`, `1`, ... `top-1` and `top+` for a count, and the group of `count`.
fn counted(top: usize) -> Vec<String> {
    let mut groups: Vec<String> = (0..top).map(|n| n.to_string()).collect();
    groups.push(format!("{top}+"));
    groups
}

fn count_group(count: usize, top: usize) -> usize {
    count.min(top)
}

/// The tile kinds a desert kingdom's player holds on the board, one measure each.
const DK_BOARD_KINDS: [Kind; 6] = [
    Kind::Oasis,
    Kind::City,
    Kind::Mine,
    Kind::Grass,
    Kind::Desert,
    Kind::Mountain,
];

/// The regions of the board a turn-1 city is sorted by; the board's 8 x 8 squares in
/// quarters (row 1 at the top, the default barbarians' entry A1 in the top-left).
const QUARTERS: [&str; 4] = [
    "top-left (A1-D4)",
    "top-right (E1-H4)",
    "bottom-left (A5-D8)",
    "bottom-right (E5-H8)",
];

/// What a desert kingdom's measures note along the game.
#[derive(Debug, Default)]
pub struct DkNotes {
    /// Seats that have made their first move.
    moved: Vec<bool>,
    /// Where each seat put its city with its first move, by square index.
    turn_one_city: Vec<Option<usize>>,
    /// Where each seat played its city tile from hand, on any turn.
    hand_city: Vec<Option<usize>>,
}

/// The square of a city of `seat` on the board `after` that was not on it `before`.
fn new_city(before: &DkState, seat: Seat, after: &DkState) -> Option<usize> {
    let owner = u8::try_from(seat).ok();
    after.squares.iter().enumerate().find_map(|(at, tile)| {
        let tile = tile.as_ref()?;
        let new = before.squares.get(at).is_none_or(Option::is_none);
        (new && !tile.face_down && tile.kind == Some(Kind::City) && tile.owner == owner)
            .then_some(at)
    })
}

/// The quarter of the board a square index lies in, as [`QUARTERS`] lists them.
fn quarter(at: usize) -> usize {
    let (col, row) = (at % 8, at / 8);
    usize::from(col >= 4) + 2 * usize::from(row >= 4)
}

impl Measured for DesertKingdom {
    type Notes = DkNotes;

    fn note(&self, notes: &mut DkNotes, before: &DkState, seat: Seat, after: &DkState) {
        let players = before.players.len();
        notes.moved.resize(players, false);
        notes.turn_one_city.resize(players, None);
        notes.hand_city.resize(players, None);
        let played_from_hand = before.players.get(seat).is_some_and(|p| p.city_tile)
            && after.players.get(seat).is_some_and(|p| !p.city_tile);
        if played_from_hand {
            notes.hand_city[seat] = new_city(before, seat, after);
        }
        if notes.moved.get(seat).copied().unwrap_or(true) {
            return;
        }
        notes.moved[seat] = true;
        // A city new on the board, the seat's: played from hand or discovered.
        notes.turn_one_city[seat] = new_city(before, seat, after);
    }

    fn sort_seats(&self, notes: &DkNotes, turns: &[Seat], end: &DkState) -> Vec<Sorting> {
        let players = end.players.len();
        let held = |seat: usize, kind: Kind| {
            let owner = u8::try_from(seat).ok();
            end.squares
                .iter()
                .flatten()
                .filter(|tile| !tile.face_down && tile.kind == Some(kind) && tile.owner == owner)
                .count()
        };
        // The player the setup drew moves first (D1), not seat 0.
        let mut sortings = vec![turn_order(turns, players, "later")];
        for kind in DK_BOARD_KINDS {
            let top = if matches!(kind, Kind::Oasis | Kind::City | Kind::Mine) {
                2
            } else {
                6
            };
            sortings.push(Sorting {
                measure: match kind {
                    Kind::Oasis => "oases held",
                    Kind::City => "cities held (ruined or not)",
                    Kind::Mine => "mines held",
                    Kind::Grass => "grass held",
                    Kind::Desert => "desert held",
                    _ => "mountains held",
                },
                groups: counted(top),
                seat_group: (0..players)
                    .map(|seat| count_group(held(seat, kind), top))
                    .collect(),
            });
        }
        sortings.push(Sorting {
            measure: "treasures kept to the end",
            groups: counted(2),
            seat_group: end
                .players
                .iter()
                .map(|p| count_group(usize::from(p.treasures), 2))
                .collect(),
        });
        sortings.push(Sorting {
            measure: "barbarian tiles held (one from the start)",
            groups: counted(3),
            seat_group: end
                .players
                .iter()
                .map(|p| count_group(usize::from(p.barbarians), 3))
                .collect(),
        });
        let by_quarter = |measure: &'static str, none: &str, squares: &[Option<usize>]| {
            let mut groups: Vec<String> = QUARTERS.iter().map(|q| (*q).to_string()).collect();
            groups.push(none.to_string());
            Sorting {
                measure,
                groups,
                seat_group: (0..players)
                    .map(|seat| {
                        squares
                            .get(seat)
                            .copied()
                            .flatten()
                            .map_or(QUARTERS.len(), quarter)
                    })
                    .collect(),
            }
        };
        sortings.push(by_quarter(
            "city on turn 1, by quarter",
            "no city on turn 1",
            &notes.turn_one_city,
        ));
        sortings.push(by_quarter(
            "city tile played from hand, by quarter",
            "never played",
            &notes.hand_city,
        ));
        sortings.push(Sorting {
            measure: "roads' share of the seat's points gained",
            groups: ROAD_SHARES.iter().map(|g| (*g).to_string()).collect(),
            seat_group: (0..players)
                .map(|seat| road_share_group(&self.score_parts_of(end, seat)))
                .collect(),
        });
        sortings
    }

    fn score_parts(&self, end: &DkState) -> Vec<Vec<(&'static str, i64)>> {
        (0..end.players.len())
            .map(|seat| {
                let parts = self.score_parts_of(end, seat);
                vec![
                    ("tiles placed", parts.placed + parts.unplaced),
                    ("roads' networks", parts.networks),
                    ("barbarians drawn", parts.barbarians),
                    ("treasures", parts.treasures),
                    ("paid to placate barbarians", -parts.paid),
                    ("lost with every city (D14)", -parts.lost),
                ]
            })
            .collect()
    }
}

/// The groups of the measure of roads' share of a seat's points.
const ROAD_SHARES: [&str; 4] = ["none", "under 25%", "25-49%", "50% or more"];

/// The group of a seat whose score breaks down into `parts`: what share of the points
/// it gained (tiles, roads, barbarians, treasures, before any was lost) roads gave.
fn road_share_group(parts: &ScoreParts) -> usize {
    let gained =
        parts.placed + parts.unplaced + parts.networks + parts.barbarians + parts.treasures;
    if parts.networks <= 0 || gained <= 0 {
        return 0;
    }
    match parts.networks * 100 / gained {
        0..=24 => 1,
        25..=49 => 2,
        _ => 3,
    }
}

/// Face-down tiles of `seat` on the board: its right-of-way standing.
fn right_of_way_held(state: &RowState, seat: Seat) -> usize {
    state
        .cells
        .iter()
        .flat_map(|cell| &cell.row)
        .filter(|level| usize::from(level.owner) == seat)
        .count()
}

impl Measured for RightOfWay {
    /// Right-of-way each seat bought, move by move: a tile it turned face down.
    type Notes = Vec<usize>;

    fn note(&self, bought: &mut Vec<usize>, before: &RowState, seat: Seat, after: &RowState) {
        bought.resize(before.players.len(), 0);
        // What the turn added to the seat's face-down tiles. A turn that also uses a
        // right-of-way (its tiles go to the discards) may hide a purchase, so this
        // counts at least what was bought.
        let added = right_of_way_held(after, seat).saturating_sub(right_of_way_held(before, seat));
        if let Some(count) = bought.get_mut(seat) {
            *count += added;
        }
    }

    /// The highway turns: the draft of a city (`setup=draft`) comes before the turn
    /// order, which starts with the player the hands chose (`first`).
    fn takes_turn(&self, before: &RowState) -> bool {
        !before.setup
    }

    fn sort_seats(&self, bought: &Vec<usize>, turns: &[Seat], end: &RowState) -> Vec<Sorting> {
        let players = end.players.len();
        let counts: Vec<usize> = (0..players)
            .map(|seat| bought.get(seat).copied().unwrap_or(0))
            .collect();
        let most_other = |seat: usize| {
            counts
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != seat)
                .map(|(_, &n)| n)
                .max()
                .unwrap_or(0)
        };
        vec![
            turn_order(turns, players, "second"),
            Sorting {
                measure: "right-of-way bought (tiles turned face down in the game)",
                groups: counted(6),
                seat_group: counts.iter().map(|&n| count_group(n, 6)).collect(),
            },
            Sorting {
                measure: "right-of-way bought against the other player",
                groups: vec![
                    "fewer".to_string(),
                    "as many".to_string(),
                    "more".to_string(),
                ],
                seat_group: (0..players)
                    .map(|seat| match counts[seat].cmp(&most_other(seat)) {
                        std::cmp::Ordering::Less => 0,
                        std::cmp::Ordering::Equal => 1,
                        std::cmp::Ordering::Greater => 2,
                    })
                    .collect(),
            },
            Sorting {
                measure: "right-of-way standing at the end",
                groups: counted(3),
                seat_group: (0..players)
                    .map(|seat| count_group(right_of_way_held(end, seat), 3))
                    .collect(),
            },
        ]
    }
}

/// The improvement track's rungs: which colour a player scores, by rank.
const TA_SCORED: [&str; 5] = [
    "best colour (track 28)",
    "2nd colour (21-27)",
    "3rd colour (14-20)",
    "4th colour (7-13)",
    "least colour (0-6)",
];

impl Measured for TriangleAuction {
    type Notes = ();

    /// The bids: every player chooses a card at once, then bids in turn from the
    /// round's starting player, and places at once.
    fn takes_turn(&self, before: &TaState) -> bool {
        matches!(before.phase, TaPhase::Bidding { .. })
    }

    fn sort_seats(&self, _notes: &(), turns: &[Seat], end: &TaState) -> Vec<Sorting> {
        let players = end.players.len();
        let scores: Vec<_> = (0..players).map(|seat| self.score(end, seat)).collect();
        vec![
            Sorting {
                measure: "final improvement (the colour scored)",
                groups: TA_SCORED.iter().map(|s| (*s).to_string()).collect(),
                seat_group: scores.iter().map(|s| s.rank.min(4)).collect(),
            },
            Sorting {
                measure: "areas enclosed",
                groups: counted(4),
                seat_group: scores.iter().map(|s| count_group(s.enclosed, 4)).collect(),
            },
            Sorting {
                measure: "most symbols of one colour (before any cap)",
                groups: vec![
                    "up to 10".to_string(),
                    "11-15".to_string(),
                    "16+".to_string(),
                ],
                seat_group: scores
                    .iter()
                    .map(|s| match s.raw.iter().copied().max().unwrap_or(0) {
                        0..=10 => 0,
                        11..=15 => 1,
                        _ => 2,
                    })
                    .collect(),
            },
            // Last, after the measures the report listed before it had this one.
            turn_order(turns, players, "later"),
        ]
    }

    fn score_parts(&self, end: &TaState) -> Vec<Vec<(&'static str, i64)>> {
        (0..end.players.len())
            .map(|seat| {
                let score = self.score(end, seat);
                vec![
                    ("colour scored", score.colour_points),
                    (
                        "areas enclosed",
                        i64::try_from(score.enclosed).unwrap_or(i64::MAX),
                    ),
                ]
            })
            .collect()
    }
}
