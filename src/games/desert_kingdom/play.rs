//! The rules in motion: the four actions, the choice after an activation, road
//! networks and their scoring, and the barbarian attack.

use std::collections::BTreeSet;

use serde_json::json;

use super::board::Square;
use super::moves::{canonical, Move};
use super::state::{Attack, Event, Fate, Kind, Phase, Player, State, Tile, Unplaced};
use super::{draw_number, forbidden, forced, value, worth, DesertKingdom};
use crate::engine::rules::{Chance, LegalMove, RuleError, Seat, Visibility};

fn seat_u8(seat: Seat) -> u8 {
    u8::try_from(seat).unwrap_or(u8::MAX)
}

/// Points a network's scoring gave: `seat` scored `points` for the `kind` on `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gain {
    pub seat: Seat,
    pub at: Square,
    pub kind: Kind,
    pub points: i64,
}

/// What a road does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoadOutcome {
    /// How many networks (with a road) it touches: two or more are joined.
    pub joined: usize,
    /// The cities next to it on no network before, now linked.
    pub new_cities: Vec<Square>,
    /// Whether the network scores (a city linked, or networks joined: D10).
    pub scores: bool,
    /// What each square scored, in square order; empty when nothing scores.
    pub gains: Vec<Gain>,
}

impl RoadOutcome {
    /// The points `seat` gains.
    pub fn points_of(&self, seat: Seat) -> i64 {
        self.gains
            .iter()
            .filter(|g| g.seat == seat)
            .map(|g| g.points)
            .sum()
    }
}

/// An activation's draw sorted by the marks of the tile activated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sifted {
    /// Tossed back: the tile forbids them.
    pub forbidden: Vec<Kind>,
    /// Tossed back: the tile forces others, and some of those came up.
    pub unforced: Vec<Kind>,
    /// What is left to keep, in the order drawn.
    pub kept: Vec<Kind>,
}

/// "Not this" marks go back; "must take" marks, if any matched, keep only those.
pub(crate) fn sift(kind: Kind, drawn: &[Kind]) -> Sifted {
    let (forbidden_back, kept): (Vec<Kind>, Vec<Kind>) = drawn
        .iter()
        .copied()
        .partition(|k| forbidden(kind).contains(k));
    if kept.iter().any(|k| forced(kind).contains(k)) {
        let (must, other): (Vec<Kind>, Vec<Kind>) =
            kept.into_iter().partition(|k| forced(kind).contains(k));
        return Sifted {
            forbidden: forbidden_back,
            unforced: other,
            kept: must,
        };
    }
    Sifted {
        forbidden: forbidden_back,
        unforced: Vec::new(),
        kept,
    }
}

/// The tile an activation keeps without a second message: the first of the
/// preference list among those left, else the only one left, or the only kind (D6).
pub(crate) fn chosen_at_once(prefer: &[Kind], kept: &[Kind]) -> Option<Kind> {
    prefer
        .iter()
        .find(|p| kept.contains(p))
        .copied()
        .or_else(|| {
            // One tile, or all the same tile: nothing to choose.
            kept.first()
                .copied()
                .filter(|first| kept.iter().all(|k| k == first))
        })
}

/// The preference list of an activation of a `activated` tile as the record keeps it
/// (D19): only the entries that can decide which tile is kept, so that every list that
/// chooses alike has one text (the draws are keyed on it). `in_bag` says which kinds
/// the game's bag holds at all.
///
/// [`sift`] leaves either forced tiles only (when one came up) or unforced ones only,
/// never both, and [`chosen_at_once`] takes the first entry among those left, else the
/// one kind left. So an entry can decide nothing when it repeats an earlier one, when
/// it can never be left (forbidden, or not in the bag), or when every other kind that
/// can be left with it is listed before it (reached, it is the only kind left, taken
/// anyway); and entries of the forced and of the unforced kinds never compete, so the
/// forced ones are written first, each part in the player's order.
pub(crate) fn deciding_preferences(
    activated: Kind,
    in_bag: impl Fn(Kind) -> bool,
    listed: &[Kind],
) -> Vec<Kind> {
    let is_forced = |k: Kind| forced(activated).contains(&k);
    // The kinds that can be left together with `k`: its own side of the sift.
    let side = |k: Kind| -> Vec<Kind> {
        Kind::ALL
            .into_iter()
            .filter(|&other| {
                in_bag(other)
                    && !forbidden(activated).contains(&other)
                    && is_forced(other) == is_forced(k)
            })
            .collect()
    };
    let mut deciding: Vec<Kind> = Vec::new();
    for &kind in listed {
        let can_be_left = in_bag(kind) && !forbidden(activated).contains(&kind);
        if deciding.contains(&kind) || !can_be_left {
            continue;
        }
        let alone = side(kind)
            .into_iter()
            .all(|other| other == kind || deciding.contains(&other));
        if !alone {
            deciding.push(kind);
        }
    }
    // A stable sort: the forced kinds first, each part in the order listed.
    deciding.sort_by_key(|&k| !is_forced(k));
    deciding
}

fn refused(problem: impl Into<String>, accepted: impl Into<String>) -> RuleError {
    RuleError::new(problem, accepted)
}

impl DesertKingdom {
    pub(crate) fn start(&self, players: usize, chance: &mut dyn Chance) -> State {
        let count = u32::try_from(players).unwrap_or(1).max(1);
        let first = u8::try_from(chance.draw(count, Visibility::Public)).unwrap_or(0);
        State {
            phase: Phase::Turn { seat: first },
            squares: vec![None; 64],
            bag: self.bag.clone(),
            bag_count: u16::try_from(self.bag.len()).unwrap_or(u16::MAX),
            drawn: Vec::new(),
            drawn_count: 0,
            last_face_down: None,
            nobody_wins: false,
            scored_unplaced: None,
            attack: None,
            events: Vec::new(),
            players: vec![
                Player {
                    points: 0,
                    treasures: 0,
                    barbarians: 1,
                    city_tile: true,
                    out: false,
                    final_score: None,
                };
                players
            ],
        }
    }

    /// A move as the record keeps it: an activation's preference list cut to the
    /// entries that can decide (D19, [`deciding_preferences`]) for the tile on its
    /// square. Where no face-up tile lies there (`apply` refuses that), each kind is
    /// kept at its first mention.
    pub(crate) fn as_recorded(&self, state: &State, mv: Move) -> Move {
        let Move::Activate { from, to, prefer } = mv else {
            return mv;
        };
        let activated = Self::tile(state, from)
            .filter(|t| !t.face_down)
            .and_then(|t| t.kind);
        let prefer = match activated {
            Some(kind) => deciding_preferences(kind, |k| self.bag.contains(&k), &prefer),
            None => {
                let mut once = Vec::new();
                for kind in prefer {
                    if !once.contains(&kind) {
                        once.push(kind);
                    }
                }
                once
            }
        };
        Move::Activate { from, to, prefer }
    }

    pub(crate) fn tile(state: &State, at: Square) -> Option<&Tile> {
        state.squares.get(at.index()).and_then(Option::as_ref)
    }

    /// A tile drawn from the bag, face down to everyone but the rules (every bag draw
    /// is hidden: mixing public and hidden draws from one bag would tell what the
    /// hidden ones took). None when the bag is empty.
    fn draw(state: &mut State, chance: &mut dyn Chance) -> Option<Kind> {
        let count = u32::try_from(state.bag.len()).ok().filter(|&n| n > 0)?;
        let kind = state
            .bag
            .remove(chance.draw(count, Visibility::Hidden) as usize);
        state.bag_count = state.bag_count.saturating_sub(1);
        Some(kind)
    }

    fn return_to_bag(state: &mut State, kinds: &[Kind]) {
        state.bag.extend_from_slice(kinds);
        state.bag.sort_unstable();
        state.bag_count = state
            .bag_count
            .saturating_add(u16::try_from(kinds.len()).unwrap_or(0));
    }

    /// The barbarians' next square: the first empty one on the spiral, `reserved` left
    /// for the explorers of an activation.
    fn spiral_next(&self, state: &State, reserved: Option<Square>) -> Option<Square> {
        self.spiral
            .iter()
            .copied()
            .find(|&s| Some(s) != reserved && Self::tile(state, s).is_none())
    }

    /// A tile from the bag face down on the spiral (nothing when the board or the bag
    /// has no room).
    fn face_down(&self, state: &mut State, reserved: Option<Square>, chance: &mut dyn Chance) {
        let Some(at) = self.spiral_next(state, reserved) else {
            return;
        };
        let Some(kind) = Self::draw(state, chance) else {
            return;
        };
        state.squares[at.index()] = Some(Tile {
            kind: Some(kind),
            face_down: true,
            owner: None,
            road: false,
            occupied: false,
            ruined: false,
        });
        state.last_face_down = Some(at);
        state.events.push(Event::FaceDown { at });
    }

    /// A tile the player keeps or places: specials are kept (a barbarian scores 15 and
    /// sends another tile face down, on the first empty square of the spiral: D4); the
    /// others go on `at`, theirs, and score. When an activation's face-down tile took
    /// `at`, the last square (D12), the tile scores without a square.
    fn take(&self, state: &mut State, seat: Seat, kind: Kind, at: Square, chance: &mut dyn Chance) {
        let square_taken = Self::tile(state, at).is_some();
        let player = &mut state.players[seat];
        match kind {
            Kind::Treasure => player.treasures += 1,
            Kind::Barbarian => {
                player.barbarians += 1;
                player.points += value(Kind::Barbarian);
                // Revision 1 kept the chosen square from this tile too, although
                // nothing goes there now: its games replay with that.
                let reserved = self.barbarian_tile_skips_chosen_square.then_some(at);
                self.face_down(state, reserved, chance);
            }
            _ if square_taken => {
                player.points += value(kind);
                state.scored_unplaced = Some(Unplaced {
                    seat: seat_u8(seat),
                    kind,
                });
            }
            _ => {
                player.points += value(kind);
                state.squares[at.index()] = Some(Tile {
                    kind: Some(kind),
                    face_down: false,
                    owner: Some(seat_u8(seat)),
                    road: false,
                    occupied: false,
                    ruined: false,
                });
            }
        }
    }

    /// Whether a square is part of road networks: a road, or a face-up city, oasis or
    /// mine ("considered to be roads").
    pub(crate) fn is_node(state: &State, at: Square) -> bool {
        Self::tile(state, at).is_some_and(|t| {
            !t.face_down
                && (t.road || matches!(t.kind, Some(Kind::City | Kind::Oasis | Kind::Mine)))
        })
    }

    /// The network (connected nodes) that holds `from`.
    pub(crate) fn network(state: &State, from: Square) -> BTreeSet<Square> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(at) = stack.pop() {
            if !Self::is_node(state, at) || !seen.insert(at) {
                continue;
            }
            stack.extend(at.neighbours());
        }
        seen
    }

    /// What a road on `at` built by `seat` would do: the networks it joins, the
    /// cities it links, and, when that scores the network, each square's points.
    pub(crate) fn road_outcome(&self, state: &State, seat: Seat, at: Square) -> RoadOutcome {
        // The networks next to the square before the road: a network is a set of
        // nodes with at least one road in it.
        let mut before: Vec<BTreeSet<Square>> = Vec::new();
        for next in at.neighbours() {
            if Self::is_node(state, next) && !before.iter().any(|n| n.contains(&next)) {
                before.push(Self::network(state, next));
            }
        }
        let has_road = |net: &BTreeSet<Square>| {
            net.iter()
                .any(|&s| Self::tile(state, s).is_some_and(|t| t.road))
        };
        let joined = before.iter().filter(|n| has_road(n)).count();
        let connected: BTreeSet<Square> = before
            .iter()
            .filter(|n| has_road(n))
            .flatten()
            .copied()
            .collect();
        let is_city =
            |s: &Square| Self::tile(state, *s).is_some_and(|t| t.kind == Some(Kind::City));
        let new_cities: Vec<Square> = before
            .iter()
            .flatten()
            .copied()
            .filter(|s| is_city(s) && !connected.contains(s))
            .collect::<BTreeSet<Square>>()
            .into_iter()
            .collect();
        let scores = joined >= 2 || !new_cities.is_empty();
        let mut gains = Vec::new();
        if scores {
            let mut built = state.clone();
            if let Some(tile) = built.squares.get_mut(at.index()).and_then(Option::as_mut) {
                tile.road = true;
            }
            gains = self.network_gains(&built, seat, at);
        }
        RoadOutcome {
            joined,
            new_cities,
            scores,
            gains,
        }
    }

    /// "Everything now connected to this network ... is scored again": the builder
    /// scores its cities, every other player their own terrain on it (a player out
    /// of the game scores nothing), square by square.
    fn network_gains(&self, state: &State, builder: Seat, at: Square) -> Vec<Gain> {
        let mut gains = Vec::new();
        for &square in &Self::network(state, at) {
            let Some(tile) = Self::tile(state, square) else {
                continue;
            };
            let Some(kind) = tile.kind else {
                continue;
            };
            if kind == Kind::City {
                gains.push(Gain {
                    seat: builder,
                    at: square,
                    kind,
                    points: self.network_city,
                });
                continue;
            }
            let Some(owner) = tile.owner.map(usize::from) else {
                continue;
            };
            if owner == builder && !self.builder_terrain {
                continue;
            }
            if state.players.get(owner).is_none_or(|p| p.out) {
                continue;
            }
            // Oases and mines score while connected; grass and desert while the road
            // passes over them (only then are they part of the network); mountains
            // never.
            if matches!(kind, Kind::Oasis | Kind::Mine | Kind::Grass | Kind::Desert) {
                gains.push(Gain {
                    seat: owner,
                    at: square,
                    kind,
                    points: value(kind),
                });
            }
        }
        gains
    }

    /// Builds the road on `at` and scores its network if the road linked a city not
    /// connected before or joined two networks.
    fn build_road(&self, state: &mut State, seat: Seat, at: Square) {
        let outcome = self.road_outcome(state, seat, at);
        if let Some(tile) = state.squares[at.index()].as_mut() {
            tile.road = true;
        }
        for gain in &outcome.gains {
            if let Some(player) = state.players.get_mut(gain.seat) {
                player.points += gain.points;
            }
        }
    }

    /// Passes the turn on (to `seat` again after a discovered special), or ends the
    /// game when the board is full or the bag empty.
    fn next_turn(&self, state: &mut State, seat: Seat, again: bool) {
        if state.squares.iter().all(Option::is_some) || state.bag.is_empty() && state.bag_count == 0
        {
            self.barbarian_attack(state);
            return;
        }
        let players = state.players.len();
        if state.players.iter().all(|p| p.out) {
            self.barbarian_attack(state);
            return;
        }
        let next = if again && !state.players[seat].out {
            seat
        } else {
            (1..=players)
                .map(|k| (seat + k) % players)
                .find(|&s| !state.players[s].out)
                .unwrap_or(seat)
        };
        state.phase = Phase::Turn {
            seat: seat_u8(next),
        };
    }

    /// Applies a move (all or nothing).
    pub(crate) fn play(
        &self,
        state: &State,
        seat: Seat,
        mv: &Move,
        chance: &mut dyn Chance,
    ) -> Result<State, RuleError> {
        let mut next = state.clone();
        next.events.clear();
        match (&state.phase, mv) {
            (Phase::Over, _) => return Err(refused("the game is over", "no more moves")),
            (Phase::Defending { city, .. }, Move::Placate { pay }) => {
                self.placate(&mut next, seat, *city, *pay);
            }
            (Phase::Defending { .. }, Move::Resign) => {
                // Out of the game, the treasure is turned in for them (D20), and the
                // attack goes on.
                next.players[seat].out = true;
                if let Some(attack) = next.attack.take() {
                    self.continue_attack(&mut next, attack);
                }
            }
            (_, Move::Resign) => {
                let drawn = std::mem::take(&mut next.drawn);
                Self::return_to_bag(&mut next, &drawn);
                next.drawn_count = 0;
                next.players[seat].out = true;
                self.next_turn(&mut next, seat, false);
            }
            (Phase::Choosing { square, .. }, Move::Take { kind, at: named }) => {
                if named != square {
                    return Err(refused(
                        format!(
                            "the tiles you drew are for {}, not {}",
                            square.name(),
                            named.name()
                        ),
                        format!("`take {}`", kind.name()),
                    ));
                }
                let Some(position) = next.drawn.iter().position(|k| k == kind) else {
                    let drawn: Vec<&str> = next.drawn.iter().map(|k| k.name()).collect();
                    return Err(refused(
                        format!("you drew no {}", kind.name()),
                        format!("one of the tiles you drew: {}", drawn.join(", ")),
                    ));
                };
                let at = *square;
                next.events.push(Event::Chose { at });
                next.drawn.remove(position);
                let rest = std::mem::take(&mut next.drawn);
                Self::return_to_bag(&mut next, &rest);
                next.drawn_count = 0;
                self.take(&mut next, seat, *kind, at, chance);
                self.next_turn(&mut next, seat, false);
            }
            (Phase::Turn { .. }, Move::Discover(at)) => {
                self.check_empty(state, *at)?;
                let Some(kind) = Self::draw(&mut next, chance) else {
                    self.barbarian_attack(&mut next);
                    return Ok(next);
                };
                next.events.push(Event::Drew { tiles: vec![kind] });
                self.take(&mut next, seat, kind, *at, chance);
                // "If it's a special tile, keep it and take another turn."
                self.next_turn(&mut next, seat, kind.is_special());
            }
            (Phase::Turn { .. }, Move::City(at)) => {
                if !state.players[seat].city_tile {
                    return Err(refused(
                        "you have played your city tile",
                        "`discover`, `road` or `activate`",
                    ));
                }
                self.check_empty(state, *at)?;
                next.players[seat].city_tile = false;
                self.take(&mut next, seat, Kind::City, *at, chance);
                self.next_turn(&mut next, seat, false);
            }
            (Phase::Turn { .. }, Move::Road(at)) => {
                if !Self::roadable(state, *at) {
                    let accepted = match Square::all().find(|&s| Self::roadable(state, s)) {
                        Some(example) => format!(
                            "a face-up desert or grass square without a road, such as `road {}`",
                            example.name()
                        ),
                        None => {
                            "a face-up desert or grass square without a road (there is none now)"
                                .to_string()
                        }
                    };
                    return Err(refused(
                        format!(
                            "no road can be built on {}: {}",
                            at.name(),
                            Self::why_no_road(state, *at)
                        ),
                        accepted,
                    ));
                }
                self.face_down(&mut next, None, chance);
                self.build_road(&mut next, seat, *at);
                self.next_turn(&mut next, seat, false);
            }
            (Phase::Turn { .. }, Move::Activate { from, to, prefer }) => {
                let Some(kind) = Self::tile(state, *from)
                    .filter(|t| !t.face_down)
                    .and_then(|t| t.kind)
                else {
                    return Err(refused(
                        format!("{} holds no face-up tile to activate", from.name()),
                        "a face-up tile and an empty square next to it",
                    ));
                };
                self.check_empty(state, *to)?;
                if from.distance(*to) != 1 {
                    return Err(refused(
                        format!("{} is not next to {}", to.name(), from.name()),
                        "an empty square beside the tile activated (not diagonally)",
                    ));
                }
                // The explorers' square is kept from the face-down tile (D6), unless it
                // is the last empty one and the option lets the tile take it (D12).
                let only_empty = next
                    .squares
                    .iter()
                    .enumerate()
                    .all(|(index, square)| square.is_some() || index == to.index());
                let reserved = if only_empty && self.face_down_takes_last_square {
                    None
                } else {
                    Some(*to)
                };
                self.face_down(&mut next, reserved, chance);
                let mut drawn = Vec::new();
                for _ in 0..draw_number(kind) {
                    match Self::draw(&mut next, chance) {
                        Some(tile) => drawn.push(tile),
                        None => break,
                    }
                }
                next.events.push(Event::Drew {
                    tiles: drawn.clone(),
                });
                let Sifted {
                    forbidden: back,
                    unforced,
                    mut kept,
                } = sift(kind, &drawn);
                Self::return_to_bag(&mut next, &unforced);
                Self::return_to_bag(&mut next, &back);
                let chosen = chosen_at_once(prefer, &kept);
                match chosen {
                    _ if kept.is_empty() => self.next_turn(&mut next, seat, false),
                    Some(chosen) => {
                        if let Some(position) = kept.iter().position(|k| *k == chosen) {
                            kept.remove(position);
                        }
                        Self::return_to_bag(&mut next, &kept);
                        self.take(&mut next, seat, chosen, *to, chance);
                        self.next_turn(&mut next, seat, false);
                    }
                    None => {
                        next.drawn_count = u8::try_from(kept.len()).unwrap_or(u8::MAX);
                        next.drawn = kept;
                        next.phase = Phase::Choosing {
                            seat: seat_u8(seat),
                            square: *to,
                        };
                    }
                }
            }
            _ => {
                return Err(refused(
                    "that is not a move now",
                    match self.example(state, seat) {
                        Some(example) => format!("for example `{}`", canonical(&example)),
                        None => "wait for your turn".to_string(),
                    },
                ))
            }
        }
        Ok(next)
    }

    fn check_empty(&self, state: &State, at: Square) -> Result<(), RuleError> {
        if Self::tile(state, at).is_some() {
            let free = Square::all().find(|&s| Self::tile(state, s).is_none());
            return Err(refused(
                format!("{} is not empty", at.name()),
                match free {
                    Some(free) => format!("an empty square, such as {}", free.name()),
                    None => "an empty square".to_string(),
                },
            ));
        }
        Ok(())
    }

    /// The game's end: "There is one band of barbarians for each 'barbarian' tile any
    /// player holds", starting at the last face-down tile placed, each going to the
    /// nearest city not destroyed and not occupied (ties: nearest the square the
    /// barbarians entered from, then the entry space, then the top, then the left); a
    /// treasure of the city's owner placates a band, else the city is removed. With
    /// `treasures=ask` the attack stops at the city of an owner holding a treasure, who
    /// decides (`Phase::Defending`); [`Self::continue_attack`] goes on from there.
    pub(crate) fn barbarian_attack(&self, state: &mut State) {
        let bands: u32 = state.players.iter().map(|p| u32::from(p.barbarians)).sum();
        let start = state.last_face_down.unwrap_or(self.entry);
        let attack = Attack {
            start,
            at: start,
            bands_left: bands,
            bands: Vec::new(),
        };
        self.continue_attack(state, attack);
    }

    fn city_standing(state: &State, at: Square) -> bool {
        Self::tile(state, at)
            .is_some_and(|t| !t.face_down && !t.ruined && t.kind == Some(Kind::City))
    }

    /// The city the next band goes to, from where the barbarians stand; the occupiers
    /// leave first when every city left is occupied ("If you run out of cities to
    /// attack, remove the occupying barbarians and continue"). None: no city stands.
    fn next_target(&self, state: &mut State, attack: &Attack) -> Option<Square> {
        let mut targets: Vec<Square> = Square::all()
            .filter(|&s| {
                Self::city_standing(state, s) && !Self::tile(state, s).is_some_and(|t| t.occupied)
            })
            .collect();
        if targets.is_empty() {
            for tile in state.squares.iter_mut().flatten() {
                tile.occupied = false;
            }
            targets = Square::all()
                .filter(|&s| Self::city_standing(state, s))
                .collect();
            if !targets.is_empty() {
                state.events.push(Event::Withdrew);
            }
        }
        targets.into_iter().min_by_key(|&s| {
            (
                s.distance(attack.at),
                s.distance(attack.start),
                s.distance(self.entry),
                s.row,
                s.col,
            )
        })
    }

    /// What a band did at `target`: the city occupied (a treasure or points paid) or
    /// destroyed; the barbarians now stand there.
    fn settle(state: &mut State, attack: &mut Attack, target: Square, fate: Fate) {
        state.events.push(Event::Band { at: target, fate });
        if let Some(tile) = state.squares[target.index()].as_mut() {
            if fate == Fate::Ruined {
                // "Otherwise, remove that city from the board": it stays as a ruin, so
                // everyone can see what the barbarians did.
                tile.ruined = true;
            } else {
                tile.occupied = true;
            }
        }
        attack.bands.push((target, fate));
        attack.at = target;
        attack.bands_left = attack.bands_left.saturating_sub(1);
    }

    /// The attack from where `attack` stands, band after band, until an owner must
    /// decide (`treasures=ask`) or the bands or the cities run out: then the end.
    fn continue_attack(&self, state: &mut State, mut attack: Attack) {
        while attack.bands_left > 0 {
            let Some(target) = self.next_target(state, &attack) else {
                break;
            };
            let owner = Self::tile(state, target)
                .and_then(|t| t.owner)
                .map(usize::from);
            let fate = match owner.and_then(|o| state.players.get_mut(o)) {
                // "If that player holds a treasure card, they can turn it in": asked,
                // unless they left the game (D20) or the option does it for them.
                Some(player) if player.treasures > 0 && self.ask_treasures && !player.out => {
                    state.phase = Phase::Defending {
                        seat: owner.map_or(u8::MAX, seat_u8),
                        city: target,
                    };
                    state.attack = Some(attack);
                    return;
                }
                Some(player) if player.treasures > 0 => {
                    player.treasures -= 1;
                    Fate::Treasure
                }
                Some(player) => match self.placate_points {
                    Some(cost) if player.points >= cost => {
                        player.points -= cost;
                        Fate::Points(cost)
                    }
                    _ => Fate::Ruined,
                },
                None => Fate::Ruined,
            };
            Self::settle(state, &mut attack, target, fate);
        }
        state.phase = Phase::Over;
        // Only where owners decide is the attack kept (the files of other games stay
        // as they always were).
        state.attack = self.ask_treasures.then_some(attack);
        for tile in state.squares.iter_mut().flatten() {
            tile.occupied = false;
        }
        let cities_left = Square::all().any(|s| Self::city_standing(state, s));
        state.nobody_wins = !cities_left;
        for seat in 0..state.players.len() {
            let held = self.cities_held(state, seat);
            let player = &mut state.players[seat];
            // "If you don't hold any cities, your score is zero. ... Now score any
            // remaining treasures, at twenty points each." (D14: those treasures
            // score, unless the option `cityless_treasures=lost` says they do not.)
            let treasures = 20 * i64::from(player.treasures);
            player.final_score = Some(match held {
                0 if self.cityless_treasures_score => treasures,
                0 => 0,
                _ => player.points + treasures,
            });
        }
    }

    /// The answer of the owner of the city a band reached: a treasure turned in (the
    /// band occupies the city) or kept (the city falls); then the attack goes on.
    fn placate(&self, state: &mut State, seat: Seat, city: Square, pay: bool) {
        let Some(mut attack) = state.attack.take() else {
            return;
        };
        let fate = if pay {
            if let Some(player) = state.players.get_mut(seat) {
                player.treasures = player.treasures.saturating_sub(1);
            }
            Fate::Treasure
        } else {
            Fate::Ruined
        };
        Self::settle(state, &mut attack, city, fate);
        self.continue_attack(state, attack);
    }

    pub(crate) fn cities_held(&self, state: &State, seat: Seat) -> usize {
        state
            .squares
            .iter()
            .flatten()
            .filter(|t| {
                !t.face_down
                    && !t.ruined
                    && t.kind == Some(Kind::City)
                    && t.owner == Some(seat_u8(seat))
            })
            .count()
    }

    fn roads_on_own_terrain(state: &State, seat: Seat) -> usize {
        state
            .squares
            .iter()
            .flatten()
            .filter(|t| t.road && t.owner == Some(seat_u8(seat)))
            .count()
    }

    /// The winners: nobody when every city fell; else the highest final score, ties
    /// broken by cities held, then roads on one's terrain; still tied, shared.
    pub(crate) fn winners_of(&self, state: &State) -> Vec<Seat> {
        if state.phase != Phase::Over || state.nobody_wins {
            return Vec::new();
        }
        let key = |seat: usize| {
            (
                state.players[seat].final_score.unwrap_or(0),
                self.cities_held(state, seat),
                Self::roads_on_own_terrain(state, seat),
            )
        };
        let contenders: Vec<usize> = (0..state.players.len())
            .filter(|&s| !state.players[s].out)
            .collect();
        let best = contenders.iter().map(|&s| key(s)).max();
        contenders
            .into_iter()
            .filter(|&s| Some(key(s)) == best)
            .collect()
    }

    /// Every legal move of `seat` now, each a whole turn.
    fn moves(&self, state: &State, seat: Seat) -> Vec<Move> {
        if !matches!(state.phase, Phase::Turn { seat: s } | Phase::Choosing { seat: s, .. } | Phase::Defending { seat: s, .. } if usize::from(s) == seat)
        {
            return Vec::new();
        }
        if let Phase::Defending { .. } = state.phase {
            return vec![Move::Placate { pay: true }, Move::Placate { pay: false }];
        }
        if let Phase::Choosing { square, .. } = state.phase {
            let mut kinds = state.drawn.clone();
            kinds.sort_unstable();
            kinds.dedup();
            return kinds
                .into_iter()
                .map(|kind| Move::Take { kind, at: square })
                .collect();
        }
        let empty: Vec<Square> = Square::all()
            .filter(|&s| Self::tile(state, s).is_none())
            .collect();
        let mut list: Vec<Move> = empty.iter().map(|&s| Move::Discover(s)).collect();
        if state.players[seat].city_tile {
            list.extend(empty.iter().map(|&s| Move::City(s)));
        }
        for at in Square::all() {
            let Some(tile) = Self::tile(state, at) else {
                continue;
            };
            if tile.face_down {
                continue;
            }
            if Self::roadable(state, at) {
                list.push(Move::Road(at));
            }
            for to in at.neighbours().filter(|&t| Self::tile(state, t).is_none()) {
                list.push(Move::Activate {
                    from: at,
                    to,
                    prefer: Vec::new(),
                });
            }
        }
        list
    }

    pub(crate) fn legal(&self, state: &State, seat: Seat) -> Vec<LegalMove> {
        self.moves(state, seat)
            .into_iter()
            .map(|mv| {
                let (kind, details) = match &mv {
                    Move::Discover(at) => ("discover", json!({"square": at.name()})),
                    Move::City(at) => ("city", json!({"square": at.name()})),
                    Move::Road(at) => ("road", json!({"square": at.name()})),
                    Move::Activate { from, to, .. } => (
                        "activate",
                        json!({"from": from.name(), "square": to.name()}),
                    ),
                    Move::Take { kind, at } => {
                        ("take", json!({"tile": kind.name(), "square": at.name()}))
                    }
                    Move::Placate { pay } => {
                        let city = match state.phase {
                            Phase::Defending { city, .. } => city.name(),
                            _ => String::new(),
                        };
                        (if *pay { "pay" } else { "keep" }, json!({"square": city}))
                    }
                    Move::Resign => ("resign", json!({})),
                };
                LegalMove {
                    text: canonical(&mv),
                    kind: kind.to_string(),
                    details: details.as_object().cloned().unwrap_or_default(),
                }
            })
            .collect()
    }

    /// The best tile of those drawn, by what it is worth to the one keeping it.
    fn best_drawn(state: &State) -> Option<Move> {
        let Phase::Choosing { square, .. } = state.phase else {
            return None;
        };
        state
            .drawn
            .iter()
            .copied()
            .max_by_key(|&kind| (worth(kind), std::cmp::Reverse(kind)))
            .map(|kind| Move::Take { kind, at: square })
    }

    /// The move the referee makes past a deadline (D17): discover the first empty
    /// square in reading order, or keep the best tile drawn.
    pub(crate) fn skip(&self, state: &State, seat: Seat) -> Option<Move> {
        match state.phase {
            Phase::Choosing { seat: s, .. } if usize::from(s) == seat => Self::best_drawn(state),
            // As `treasures=automatic` would: the treasure turned in, the city kept.
            Phase::Defending { seat: s, .. } if usize::from(s) == seat => {
                Some(Move::Placate { pay: true })
            }
            Phase::Turn { seat: s } if usize::from(s) == seat => Square::all()
                .find(|&at| Self::tile(state, at).is_none())
                .map(Move::Discover),
            _ => None,
        }
    }

    /// The empty square the barbarians' spiral reaches last: the heart of the board,
    /// as far from their face-down tiles as can be.
    pub(crate) fn last_on_spiral(&self, state: &State) -> Option<Square> {
        self.spiral
            .iter()
            .rev()
            .copied()
            .find(|&at| Self::tile(state, at).is_none())
    }

    /// The road that scores `seat` the most now, with its points; `None` when no road
    /// scores them anything.
    pub(crate) fn best_road(&self, state: &State, seat: Seat) -> Option<(Square, i64)> {
        Square::all()
            .filter(|&at| Self::roadable(state, at))
            .map(|at| (at, self.road_outcome(state, seat, at).points_of(seat)))
            .filter(|&(_, points)| points > 0)
            .max_by_key(|&(at, points)| (points, std::cmp::Reverse(at.index())))
    }

    /// The rules' best guess, for the examples in notices and refusals: keep the best
    /// tile drawn; without a city on the board, play the city tile (a player without
    /// a city scores nothing); else the road that scores the most, if one scores; else
    /// discover the square the spiral reaches last.
    pub(crate) fn example(&self, state: &State, seat: Seat) -> Option<Move> {
        match state.phase {
            Phase::Choosing { seat: s, .. } if usize::from(s) == seat => Self::best_drawn(state),
            Phase::Defending { seat: s, .. } if usize::from(s) == seat => {
                Some(Move::Placate { pay: true })
            }
            Phase::Over | Phase::Defending { .. } => None,
            // Also for a seat not to move: what a turn of theirs could be now (the
            // welcome of a player who does not move first shows one).
            Phase::Choosing { .. } | Phase::Turn { .. } => {
                let heart = self.last_on_spiral(state);
                if state.players[seat].city_tile && self.cities_held(state, seat) == 0 {
                    if let Some(at) = heart {
                        return Some(Move::City(at));
                    }
                }
                if let Some((at, _)) = self.best_road(state, seat) {
                    return Some(Move::Road(at));
                }
                heart.map(Move::Discover)
            }
        }
    }

    /// Why a road cannot be built on `at` (D8: "You can only select 'desert' and
    /// 'grass' to be built on ... Nor can it already have a road.").
    fn why_no_road(state: &State, at: Square) -> String {
        match Self::tile(state, at) {
            None => "it is empty".to_string(),
            Some(tile) if tile.face_down => "it holds a tile face down".to_string(),
            Some(tile) if tile.road => "it already has a road".to_string(),
            Some(tile) => match tile.kind {
                Some(kind @ (Kind::City | Kind::Oasis | Kind::Mine)) => format!(
                    "it is {}, which counts as a road already (roads go on desert or grass)",
                    super::text::a(kind)
                ),
                Some(Kind::Mountain) => {
                    "it is a mountain (roads go on desert or grass)".to_string()
                }
                _ => "roads go on desert or grass".to_string(),
            },
        }
    }

    /// Whether a road can be built on `at`: face-up desert or grass without one.
    pub(crate) fn roadable(state: &State, at: Square) -> bool {
        Self::tile(state, at).is_some_and(|t| {
            !t.face_down && !t.road && matches!(t.kind, Some(Kind::Desert | Kind::Grass))
        })
    }

    pub(crate) fn sample(&self, state: &State, seat: Seat, rng: &mut dyn Chance) -> Option<Move> {
        let moves = self.moves(state, seat);
        let count = u32::try_from(moves.len()).ok().filter(|&n| n > 0)?;
        moves
            .into_iter()
            .nth(rng.draw(count, Visibility::Public) as usize)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::engine::rules::Rules;

    /// What a preference list does for the activation of `activated`: the tile kept at
    /// once (or none, a choice by a second message) for every set of kinds the sift
    /// can leave: some forced kinds, or (none of those drawn) some unforced ones.
    fn meaning(activated: Kind, prefer: &[Kind]) -> Vec<Option<Kind>> {
        let allowed: Vec<Kind> = Kind::ALL
            .into_iter()
            .filter(|k| !forbidden(activated).contains(k))
            .collect();
        let (must, other): (Vec<Kind>, Vec<Kind>) = allowed
            .into_iter()
            .partition(|k| forced(activated).contains(k));
        let mut outcomes = Vec::new();
        for side in [must, other] {
            for subset in 1..(1u32 << side.len()) {
                let left: Vec<Kind> = (0..side.len())
                    .filter(|i| subset & (1 << i) != 0)
                    .map(|i| side[i])
                    .collect();
                outcomes.push(chosen_at_once(prefer, &left));
            }
        }
        outcomes
    }

    /// Every list of up to four kinds (repeats included), for each tile that can be
    /// activated: two lists that keep the same tile whatever the draw have one text,
    /// and two that do not have two; and the list kept chooses as the one written.
    #[test]
    fn preference_lists_that_choose_alike_are_recorded_alike() {
        let mut lists: Vec<Vec<Kind>> = vec![Vec::new()];
        let mut last = lists.clone();
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|list| {
                    Kind::ALL.into_iter().map(move |kind| {
                        let mut longer = list.clone();
                        longer.push(kind);
                        longer
                    })
                })
                .collect();
            lists.extend(last.iter().cloned());
        }
        for activated in Kind::ALL.into_iter().filter(|k| !k.is_special()) {
            let mut by_meaning: BTreeMap<Vec<Option<Kind>>, Vec<Kind>> = BTreeMap::new();
            let mut by_text: BTreeMap<Vec<Kind>, Vec<Option<Kind>>> = BTreeMap::new();
            for list in &lists {
                let kept = deciding_preferences(activated, |_| true, list);
                let means = meaning(activated, list);
                assert_eq!(meaning(activated, &kept), means, "{activated:?} {list:?}");
                assert_eq!(
                    deciding_preferences(activated, |_| true, &kept),
                    kept,
                    "kept as it is"
                );
                let text = by_meaning.entry(means.clone()).or_insert(kept.clone());
                assert_eq!(*text, kept, "{activated:?} {list:?}: one meaning, one text");
                let choice = by_text.entry(kept).or_insert(means.clone());
                assert_eq!(
                    *choice, means,
                    "{activated:?} {list:?}: one text, one meaning"
                );
            }
        }
    }

    #[test]
    fn a_preference_list_keeps_the_entries_that_decide() {
        use Kind::*;
        let all = |_| true;
        // Repeats go, the first mention stays.
        assert_eq!(
            deciding_preferences(Desert, all, &[Oasis, Grass, Oasis, Grass]),
            [Oasis, Grass]
        );
        // A city forbids cities: `prefer city` decides nothing.
        assert_eq!(deciding_preferences(City, all, &[City, Oasis]), [Oasis]);
        assert_eq!(deciding_preferences(City, all, &[City]), []);
        // Every unforced kind a desert can leave listed: the last, when reached, is the
        // only kind left.
        assert_eq!(
            deciding_preferences(Desert, all, &[Barbarian, Oasis, Grass, Desert, Mountain]),
            [Barbarian, Oasis, Grass, Desert]
        );
        // An oasis forces treasures and barbarians: they are never left with other
        // kinds, so they come first; after a treasure, a barbarian is alone.
        assert_eq!(
            deciding_preferences(Oasis, all, &[Grass, Treasure, Barbarian, City]),
            [Treasure, Grass, City]
        );
        // A kind the game's bag does not hold decides nothing.
        assert_eq!(
            deciding_preferences(Desert, |k| k != Oasis, &[Oasis, Grass]),
            [Grass]
        );
    }

    /// Through the rules: the spellings of one preference give one canonical text,
    /// which reads back to itself; a list longer than the kinds of tile is refused.
    #[test]
    fn activations_are_recorded_with_the_deciding_preferences() {
        let rules = DesertKingdom::standard().expect("built-in data");
        let mut state = rules.start(2, &mut crate::engine::DrawStream::for_testing(1));
        state.phase = Phase::Turn { seat: 0 };
        let from = Square::parse("C3").expect("a square");
        state.squares[from.index()] = Some(Tile {
            kind: Some(Kind::Desert),
            face_down: false,
            owner: Some(0),
            road: false,
            occupied: false,
            ruined: false,
        });
        let text = |move_text: &str| {
            rules
                .parse_move(&state, 0, move_text)
                .map(|mv| rules.canonical_text(&mv))
        };
        for spelling in [
            "activate C3 to C4 prefer oasis",
            "activate C3 to C4 prefer oasis, oasis",
            "activate c3 c4 prefer oasis oasis oasis city",
            "activate C3 to C4 prefer oasis, mine, treasure, oasis",
        ] {
            assert_eq!(
                text(spelling).as_deref(),
                Ok("activate C3 to C4 prefer oasis"),
                "{spelling}"
            );
        }
        assert_eq!(
            text("activate C3 to C4 prefer city").as_deref(),
            Ok("activate C3 to C4")
        );
        let canonical = text("activate C3 to C4 prefer grass, oasis, grass").expect("a move");
        assert_eq!(canonical, "activate C3 to C4 prefer grass, oasis");
        assert_eq!(text(&canonical).as_deref(), Ok(canonical.as_str()));
        // Eight entries are accepted (each kind once), nine are not.
        let eight = "activate C3 to C4 prefer oasis, city, mine, grass, desert, mountain, treasure, barbarian";
        assert_eq!(
            text(eight).as_deref(),
            Ok("activate C3 to C4 prefer oasis, grass, desert, mountain")
        );
        let error = text(&format!("{eight}, oasis")).expect_err("nine entries");
        assert!(
            error.problem.contains("names 9 tiles") && error.accepted.contains("at most 8 tiles"),
            "{error}"
        );
        let long = format!(
            "activate C3 to C4 prefer {}",
            vec!["oasis"; 100_000].join(", ")
        );
        assert!(text(&long).is_err());
    }
}
