//! What a turn did (`Rules::report`) and how the game ended (`Rules::game_end`).
//!
//! A report is worked out from the full states before and after the move: the board
//! shows what was placed, and the events of the state after (D18) tell what the board
//! cannot: the tiles an activation drew, where tiles went face down and what the
//! barbarians did. Nothing here ever names a face-down tile; the tiles a player drew
//! are told to that player only.

use super::board::Square;
use super::moves::Move;
use super::play::{chosen_at_once, sift, Gain};
use super::state::{Event, Fate, Kind, Phase, State};
use super::text::{a, kinds_text, plural};
use super::{draw_number, forced, value, DesertKingdom};
use crate::engine::rules::{score_changes, GameEnd, ReportLine, Seat};

pub(crate) fn name_of(names: &[String], seat: usize) -> String {
    names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| format!("seat {}", seat + 1))
}

/// Names joined as a sentence says them: "Ann", "Ann and Bob", "Ann, Bob and Cid".
fn joined(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Where a player's points came from, as the end of the game breaks the score down
/// (the breakdown's lines, and `pbem simulate`'s score parts): the parts that add and
/// the two that take away (`paid`, `lost`) come to the player's total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScoreParts {
    /// The player's tiles on the board, each its points when placed (a city its 5,
    /// fallen or not).
    pub placed: i64,
    /// A tile chosen with no square left at the end (D12).
    pub unplaced: i64,
    /// Roads' scoring of networks (D10).
    pub networks: i64,
    /// Barbarians drawn, 15 each.
    pub barbarians: i64,
    /// Points paid to placate barbarians (D15), taken away.
    pub paid: i64,
    /// Treasures held, 20 each (they count at the end).
    pub treasures: i64,
    /// At the end, what a player without a city does not score (D14), taken away.
    pub lost: i64,
}

/// The lines of one report, with the lines after a draw marked as telling it: a
/// preview makes no real draw, so it leaves them out.
struct Lines {
    lines: Vec<ReportLine>,
    after_draw: bool,
}

impl Lines {
    fn push(&mut self, line: ReportLine) {
        self.lines
            .push(if self.after_draw { line.drawn() } else { line });
    }

    fn everyone(&mut self, text: impl Into<String>) {
        self.push(ReportLine::everyone(text));
    }
}

impl DesertKingdom {
    /// The owner and tile on a face-up square, "Bob's grass"; a face-down square
    /// only as such.
    fn square_text(state: &State, at: Square, names: &[String]) -> String {
        match Self::tile(state, at) {
            Some(tile) if tile.face_down => "a face-down tile".to_string(),
            Some(tile) => {
                let kind = tile.kind.map_or("tile", Kind::name);
                match tile.owner {
                    Some(owner) => format!("{}'s {kind}", name_of(names, usize::from(owner))),
                    None => kind.to_string(),
                }
            }
            None => "nothing".to_string(),
        }
    }

    /// `lead` ("It was grass", "Ann took a treasure") and what keeping `kind` for
    /// `at` did: a tile placed as `who`'s, or a special kept aside (the square then
    /// stays empty, D5, unless the barbarians' face-down tile went there, D4); a tile
    /// with no square left, when a face-down tile took the last one (D12), scores all
    /// the same. `after` is the state after the move.
    fn kept_text(lead: &str, who: &str, kind: Kind, at: Square, after: &State) -> String {
        let face_down_there = Self::tile(after, at).is_some_and(|t| t.face_down);
        let square = if face_down_there {
            format!("the barbarians' spiral filled {}", at.name())
        } else {
            format!("{} stays empty", at.name())
        };
        let points = plural(usize::try_from(value(kind)).unwrap_or(0), "point", "points");
        match kind {
            Kind::Treasure => format!("{lead}, kept aside: 20 points at the end; {square}"),
            Kind::Barbarian => {
                format!("{lead}, kept aside: 15 points now, one more band at the end; {square}")
            }
            _ if face_down_there => {
                format!("{lead}: no square is left for it ({square}), {points} all the same (D12)")
            }
            _ => format!("{lead}: {} is now {who}'s, {points}", at.name()),
        }
    }

    /// The lines of `Rules::report`.
    pub(crate) fn turn_report(
        &self,
        before: &State,
        seat: Seat,
        mv: &Move,
        after: &State,
        names: &[String],
    ) -> Vec<ReportLine> {
        let who = name_of(names, seat);
        let mut out = Lines {
            lines: Vec::new(),
            after_draw: false,
        };
        // Tiles placed face down on the spiral, as they come.
        let face_down = |out: &mut Lines, at: Square| {
            out.everyone(format!(
                "A tile from the bag went face down on {} (the barbarians' spiral)",
                at.name()
            ));
        };
        match mv {
            Move::Discover(at) => {
                out.everyone(format!(
                    "{who} discovered {}: a tile from the bag",
                    at.name()
                ));
                for event in &after.events {
                    match event {
                        Event::Drew { tiles } => {
                            out.after_draw = true;
                            let Some(&kind) = tiles.first() else { continue };
                            let lead = format!("It was {}", a(kind));
                            let mut text = Self::kept_text(&lead, &who, kind, *at, after);
                            // "If it's a special tile, keep it and take another turn."
                            let again = after.phase
                                == (Phase::Turn {
                                    seat: seat_u8(seat),
                                });
                            if kind.is_special() && again {
                                text.push_str(&format!("; {who} plays again"));
                            }
                            out.everyone(text);
                        }
                        Event::FaceDown { at } => face_down(&mut out, *at),
                        Event::Band { .. } | Event::Withdrew | Event::Chose { .. } => {}
                    }
                }
                if !after.events.iter().any(|e| matches!(e, Event::Drew { .. })) {
                    out.everyone("The bag is empty: nothing was drawn");
                }
            }
            Move::City(at) => {
                out.everyone(format!(
                    "{who} played the city tile on {}: 5 points",
                    at.name()
                ));
            }
            Move::Road(at) => {
                out.everyone(format!(
                    "{who} built a road on {} ({})",
                    at.name(),
                    Self::square_text(before, *at, names)
                ));
                for event in &after.events {
                    if let Event::FaceDown { at } = event {
                        face_down(&mut out, *at);
                    }
                }
                self.road_lines(before, seat, *at, after, names, &mut out);
            }
            Move::Activate { from, to, prefer } => {
                let kind = Self::tile(before, *from)
                    .and_then(|t| t.kind)
                    .unwrap_or(Kind::Desert);
                out.everyone(format!(
                    "{who} activated {} on {} towards {} (it draws {})",
                    Self::square_text(before, *from, names),
                    from.name(),
                    to.name(),
                    draw_number(kind)
                ));
                for event in &after.events {
                    match event {
                        Event::FaceDown { at } => face_down(&mut out, *at),
                        Event::Drew { tiles } => {
                            self.activation_lines(
                                seat, kind, tiles, prefer, *to, after, names, &mut out,
                            );
                        }
                        Event::Band { .. } | Event::Withdrew | Event::Chose { .. } => {}
                    }
                }
            }
            Move::Take { kind, at } => {
                let mut rest = before.drawn.clone();
                if let Some(position) = rest.iter().position(|k| k == kind) {
                    rest.remove(position);
                }
                let lead = format!("{who} took {}", a(*kind));
                out.everyone(Self::kept_text(&lead, &who, *kind, *at, after));
                if !rest.is_empty() {
                    out.everyone(format!(
                        "{who} put {} back in the bag",
                        plural(rest.len(), "tile", "tiles")
                    ));
                    out.push(ReportLine::only(
                        seat,
                        format!(
                            "{who} put back, unseen by the others: {}",
                            kinds_text(&rest)
                        ),
                    ));
                }
                for event in &after.events {
                    if let Event::FaceDown { at } = event {
                        face_down(&mut out, *at);
                    }
                }
            }
            Move::Placate { pay } => {
                let city = match before.phase {
                    Phase::Defending { city, .. } => city.name(),
                    _ => String::new(),
                };
                out.everyone(if *pay {
                    format!("{who} turns in a treasure to the band at {city}")
                } else {
                    format!("{who} keeps the treasure: the band at {city} destroys the city")
                });
            }
            Move::Resign => {
                out.everyone(format!(
                    "{who} left the game (resigned or forfeited): {who} cannot win, the others play on"
                ));
                if !before.drawn.is_empty() {
                    out.everyone(format!(
                        "The {} {who} was choosing from went back to the bag",
                        plural(before.drawn.len(), "tile", "tiles")
                    ));
                }
            }
        }
        // The attack: begun by this move, or gone on after an owner's answer.
        let attacking =
            |state: &State| matches!(state.phase, Phase::Over | Phase::Defending { .. });
        if attacking(after)
            && (!attacking(before) || matches!(before.phase, Phase::Defending { .. }))
        {
            self.attack_lines(before, after, names, &mut out);
        }
        if let Some(line) = score_changes(&self.scores_of(before), &self.scores_of(after), names) {
            out.push(line);
        }
        if after.phase == Phase::Over && before.phase != Phase::Over {
            let winners = self.winners_of(after);
            let names_won: Vec<String> = winners.iter().map(|&s| name_of(names, s)).collect();
            out.everyone(match names_won.len() {
                0 if after.nobody_wins => "Every city fell: nobody wins".to_string(),
                0 => "No player is left to win".to_string(),
                1 => format!("{} wins", names_won[0]),
                _ => format!("{} share the win", joined(&names_won)),
            });
        }
        out.lines
    }

    fn scores_of(&self, state: &State) -> Vec<i64> {
        state
            .players
            .iter()
            .map(|p| p.final_score.unwrap_or(p.points))
            .collect()
    }

    /// What a road linked or joined, and who scored what for it.
    fn road_lines(
        &self,
        before: &State,
        seat: Seat,
        at: Square,
        after: &State,
        names: &[String],
        out: &mut Lines,
    ) {
        let outcome = self.road_outcome(before, seat, at);
        if !outcome.scores {
            out.everyone("It links no new city and joins no networks: nothing scores (D10)");
            return;
        }
        let mut why = Vec::new();
        if !outcome.new_cities.is_empty() {
            let cities: Vec<String> = outcome.new_cities.iter().map(|s| s.name()).collect();
            why.push(format!(
                "links the {} on {}",
                if cities.len() == 1 { "city" } else { "cities" },
                joined(&cities)
            ));
        }
        if outcome.joined >= 2 {
            why.push(format!("joins {} networks", outcome.joined));
        }
        out.everyone(format!(
            "It {}: the network of {} scores",
            why.join(" and "),
            plural(Self::network(after, at).len(), "square", "squares")
        ));
        let mut seats: Vec<Seat> = outcome.gains.iter().map(|g| g.seat).collect();
        seats.sort_unstable();
        seats.dedup();
        // The builder first: theirs are the cities, the reason the road was built.
        seats.sort_by_key(|&s| s != seat);
        for scorer in seats {
            let parts: Vec<&Gain> = outcome.gains.iter().filter(|g| g.seat == scorer).collect();
            let total: i64 = parts.iter().map(|g| g.points).sum();
            let list: Vec<String> = parts
                .iter()
                .map(|g| format!("{} {} {}", g.at.name(), g.kind.name(), g.points))
                .collect();
            out.everyone(format!(
                "{} scores {total}: {}",
                name_of(names, scorer),
                list.join(", ")
            ));
        }
        if outcome.gains.is_empty() {
            out.everyone("Nothing on it scores anyone");
        }
    }

    /// An activation's draw: the count for everyone, the tiles for the drawer only,
    /// and what became of them.
    #[allow(clippy::too_many_arguments)]
    fn activation_lines(
        &self,
        seat: Seat,
        kind: Kind,
        tiles: &[Kind],
        prefer: &[Kind],
        to: Square,
        after: &State,
        names: &[String],
        out: &mut Lines,
    ) {
        let who = name_of(names, seat);
        // How many were drawn is known before the draw (the tile's draw number).
        out.everyone(format!(
            "{who} drew {}",
            plural(tiles.len(), "tile", "tiles")
        ));
        out.after_draw = true;
        if tiles.is_empty() {
            return;
        }
        out.push(ReportLine::only(
            seat,
            format!("{who}'s tiles drawn: {}", kinds_text(tiles)),
        ));
        let sifted = sift(kind, tiles);
        if !sifted.forbidden.is_empty() {
            out.push(ReportLine::only(
                seat,
                format!(
                    "Back to the bag, forbidden by the {}: {}",
                    kind.name(),
                    kinds_text(&sifted.forbidden)
                ),
            ));
        }
        if !sifted.unforced.is_empty() {
            let came: Vec<Kind> = forced(kind)
                .iter()
                .copied()
                .filter(|k| sifted.kept.contains(k))
                .collect();
            out.push(ReportLine::only(
                seat,
                format!(
                    "Back to the bag, as the {} forces {}: {}",
                    kind.name(),
                    kinds_text(&came),
                    kinds_text(&sifted.unforced)
                ),
            ));
        }
        let kept = &sifted.kept;
        let choosing = matches!(after.phase, Phase::Choosing { .. });
        let chosen = if choosing {
            None
        } else {
            chosen_at_once(prefer, kept)
        };
        let mut left_over = kept.clone();
        if let Some(position) = chosen.and_then(|c| left_over.iter().position(|k| *k == c)) {
            left_over.remove(position);
        }
        let back =
            tiles.len() - if choosing { kept.len() } else { 0 } - usize::from(chosen.is_some());
        if !left_over.is_empty() && chosen.is_some() {
            out.push(ReportLine::only(
                seat,
                format!("Back to the bag, not chosen: {}", kinds_text(&left_over)),
            ));
        }
        if back > 0 {
            out.everyone(format!("{back} of them went back to the bag"));
        }
        match chosen {
            _ if kept.is_empty() => out.everyone("None was left to keep: bad luck"),
            Some(chosen) => {
                let how = if kept.len() == 1 {
                    "the only tile left"
                } else if kept.iter().all(|k| *k == chosen) {
                    "all alike"
                } else {
                    "the first of the preference list drawn"
                };
                let lead = format!("{who} took {} ({how})", a(chosen));
                out.everyone(Self::kept_text(&lead, &who, chosen, to, after));
            }
            None => {
                let square = if Self::tile(after, to).is_some() {
                    // The face-down tile took the last square (D12).
                    "to score without a square (D12)".to_string()
                } else {
                    format!("for {}", to.name())
                };
                out.everyone(format!(
                    "{who} chooses one of {} {square} next (`take ...`)",
                    plural(kept.len(), "tile", "tiles"),
                ));
                out.push(ReportLine::only(
                    seat,
                    format!("{who} chooses from: {}", kinds_text(kept)),
                ));
            }
        }
    }

    /// What each band did in the move (all of them, unless an owner is asked, D13):
    /// why the attack began if it did, each band's fate, the band waiting for an
    /// answer, and at the end what the players without a city and the treasures score.
    fn attack_lines(&self, before: &State, after: &State, names: &[String], out: &mut Lines) {
        let bands: usize = after
            .players
            .iter()
            .map(|p| usize::from(p.barbarians))
            .sum();
        let began = !matches!(before.phase, Phase::Defending { .. });
        if began {
            out.everyone(format!("{}: the barbarians attack", Self::why_over(after)));
            let start = match after.last_face_down {
                Some(at) => format!("{}, the last face-down tile", at.name()),
                None => format!("{}, the entry", self.entry.name()),
            };
            if bands == 0 {
                out.everyone("Nobody holds a barbarian tile: no band attacks");
            } else {
                out.everyone(format!(
                    "{} of barbarians (one per barbarian tile held) set out from {start}",
                    plural(bands, "band", "bands")
                ));
            }
        }
        let in_move = after
            .events
            .iter()
            .filter(|e| matches!(e, Event::Band { .. }))
            .count();
        let so_far = after.attack.as_ref().map_or(in_move, |a| a.bands.len());
        let mut band = so_far - in_move.min(so_far);
        for event in &after.events {
            match event {
                Event::Band { at, fate } => {
                    band += 1;
                    let city = Self::square_text(after, *at, names);
                    let owner = Self::tile(after, *at)
                        .and_then(|t| t.owner)
                        .map_or_else(|| "nobody".to_string(), |o| name_of(names, usize::from(o)));
                    out.everyone(match fate {
                        Fate::Treasure => format!(
                            "Band {band} reached {} ({city}): {owner} turned in a treasure, the band occupies it",
                            at.name()
                        ),
                        Fate::Points(points) => format!(
                            "Band {band} reached {} ({city}): {owner} paid {points} points, the band occupies it",
                            at.name()
                        ),
                        Fate::Ruined => {
                            format!("Band {band} destroyed {} ({city})", at.name())
                        }
                    });
                }
                Event::Withdrew => {
                    out.everyone(
                        "Every city left was occupied: the occupiers left, the attack goes on",
                    );
                }
                Event::Drew { .. } | Event::FaceDown { .. } | Event::Chose { .. } => {}
            }
        }
        if let Phase::Defending { seat, city } = after.phase {
            let owner = name_of(names, usize::from(seat));
            out.everyone(format!(
                "Band {} reached {} ({}): {owner} holds a treasure and decides: `pay` (turn it in, the band occupies the city) or `keep` (the city falls)",
                band + 1,
                city.name(),
                Self::square_text(after, city, names)
            ));
            return;
        }
        if band < bands {
            out.everyone(format!(
                "No city was left for the other {}",
                plural(bands - band, "band", "bands")
            ));
        }
        for (seat, player) in after.players.iter().enumerate() {
            let who = name_of(names, seat);
            if self.cities_held(after, seat) == 0 {
                if self.cityless_treasures_score && player.treasures > 0 {
                    out.everyone(format!(
                        "{who} holds no city: {who}'s score is 0, then {who}'s {} score {} (D14)",
                        plural(usize::from(player.treasures), "treasure", "treasures"),
                        20 * i64::from(player.treasures)
                    ));
                } else {
                    out.everyone(format!("{who} holds no city: {who}'s score is 0 (D14)"));
                }
            } else if player.treasures > 0 {
                out.everyone(format!(
                    "{who}'s {} score {}",
                    plural(usize::from(player.treasures), "treasure", "treasures"),
                    20 * i64::from(player.treasures)
                ));
            }
        }
    }

    /// What each band of the attack did: the attack kept in the state where owners
    /// decide, else the events of the move that ended the game (the whole attack).
    fn band_fates(state: &State) -> Vec<(Square, Fate)> {
        match &state.attack {
            Some(attack) => attack.bands.clone(),
            None => state
                .events
                .iter()
                .filter_map(|e| match e {
                    Event::Band { at, fate } => Some((*at, *fate)),
                    _ => None,
                })
                .collect(),
        }
    }

    /// Why a game is over, a phrase.
    fn why_over(state: &State) -> &'static str {
        if state.squares.iter().all(Option::is_some) {
            "The board is full"
        } else if state.players.iter().all(|p| p.out) {
            "Every player is out of the game"
        } else {
            "The bag is empty"
        }
    }

    /// `Rules::game_end`: why, and each score as the sum of its parts.
    pub(crate) fn end_of_game(&self, state: &State) -> GameEnd {
        let bands: usize = state
            .players
            .iter()
            .map(|p| usize::from(p.barbarians))
            .sum();
        let ruined = state.squares.iter().flatten().filter(|t| t.ruined).count();
        let saved = Self::band_fates(state)
            .iter()
            .filter(|(_, fate)| *fate != Fate::Ruined)
            .count();
        let mut reason = format!(
            "{}, and {} of barbarians attacked: {} fell",
            Self::why_over(state).to_lowercase(),
            plural(bands, "band", "bands"),
            plural(ruined, "city", "cities")
        );
        if saved > 0 {
            reason.push_str(&format!(
                ", {} placated",
                plural(saved, "band was", "bands were")
            ));
        }
        if state.nobody_wins {
            reason.push_str("; no city stands, so nobody wins (D13)");
        }
        let breakdown = (0..state.players.len())
            .map(|seat| self.breakdown(state, seat))
            .collect();
        GameEnd { reason, breakdown }
    }

    /// Where `seat`'s points came from, as the end of the game breaks its score down.
    pub(crate) fn score_parts_of(&self, state: &State, seat: Seat) -> ScoreParts {
        let Some(player) = state.players.get(seat) else {
            return ScoreParts::default();
        };
        // A city scored its 5 when placed, whatever the barbarians did later.
        let placed: i64 = state
            .squares
            .iter()
            .flatten()
            .filter(|tile| !tile.face_down && tile.owner == u8::try_from(seat).ok())
            .filter_map(|tile| tile.kind.map(value))
            .sum();
        let unplaced = state
            .scored_unplaced
            .filter(|u| usize::from(u.seat) == seat)
            .map_or(0, |u| value(u.kind));
        let barbarians = value(Kind::Barbarian) * i64::from(player.barbarians.saturating_sub(1));
        let paid: i64 = Self::band_fates(state)
            .iter()
            .filter_map(|(at, fate)| match fate {
                Fate::Points(points)
                    if Self::tile(state, *at).and_then(|t| t.owner) == u8::try_from(seat).ok() =>
                {
                    Some(*points)
                }
                _ => None,
            })
            .sum();
        // Every point not from a tile placed or a barbarian drawn came from a road's
        // scoring (D10): the rules give points no other way.
        let networks = player.points + paid - placed - barbarians - unplaced;
        let treasures = 20 * i64::from(player.treasures);
        let lost = if player.final_score.is_some() && self.cities_held(state, seat) == 0 {
            player.points
                + if self.cityless_treasures_score {
                    0
                } else {
                    treasures
                }
        } else {
            0
        };
        ScoreParts {
            placed,
            unplaced,
            networks,
            barbarians,
            paid,
            treasures,
            lost,
        }
    }

    /// One player's score, part by part: each line ends in its points after `: `, and
    /// the parts add up to the total.
    fn breakdown(&self, state: &State, seat: Seat) -> Vec<String> {
        let Some(player) = state.players.get(seat) else {
            return Vec::new();
        };
        let mut placed: Vec<(Kind, usize)> = Vec::new();
        for tile in state.squares.iter().flatten() {
            let (Some(kind), false) = (tile.kind, tile.face_down) else {
                continue;
            };
            if tile.owner != u8::try_from(seat).ok() {
                continue;
            }
            match placed.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, count)) => *count += 1,
                None => placed.push((kind, 1)),
            }
        }
        placed.sort();
        let drawn_barbarians = usize::from(player.barbarians.saturating_sub(1));
        let parts = self.score_parts_of(state, seat);
        let (placed_points, barbarian_points, paid, networks) =
            (parts.placed, parts.barbarians, parts.paid, parts.networks);
        let unplaced = state
            .scored_unplaced
            .filter(|u| usize::from(u.seat) == seat)
            .map(|u| u.kind);
        let unplaced_points = parts.unplaced;
        let mut lines = Vec::new();
        let placed_list: Vec<String> = placed
            .iter()
            .map(|(kind, count)| {
                let name = match (kind, count) {
                    (Kind::Oasis, 1) => "oasis".to_string(),
                    (Kind::Oasis, _) => "oases".to_string(),
                    (Kind::City, 1) => "city".to_string(),
                    (Kind::City, _) => "cities".to_string(),
                    (Kind::Mine, 1) => "mine".to_string(),
                    (Kind::Mine, _) => "mines".to_string(),
                    (Kind::Mountain, 1) => "mountain".to_string(),
                    (Kind::Mountain, _) => "mountains".to_string(),
                    (other, _) => other.name().to_string(),
                };
                format!("{count} {name}")
            })
            .collect();
        if placed_list.is_empty() {
            lines.push("Tiles placed (none): 0".to_string());
        } else {
            lines.push(format!(
                "Tiles placed ({}): {placed_points}",
                placed_list.join(", ")
            ));
        }
        if let Some(kind) = unplaced {
            lines.push(format!(
                "Tile chosen with no square left ({}, D12): {unplaced_points}",
                kind.name()
            ));
        }
        lines.push(format!("Roads' networks scored: {networks}"));
        if drawn_barbarians > 0 {
            lines.push(format!(
                "Barbarians drawn ({drawn_barbarians} at 15): {barbarian_points}"
            ));
        }
        if paid > 0 {
            lines.push(format!("Points paid to placate barbarians: -{paid}"));
        }
        let treasure_points = parts.treasures;
        if player.treasures > 0 {
            lines.push(format!(
                "Treasures ({} at 20): {treasure_points}",
                player.treasures
            ));
        }
        let total = match player.final_score {
            Some(score) => score,
            None => player.points,
        };
        let cities = self.cities_held(state, seat);
        if player.final_score.is_some() && cities == 0 {
            if parts.lost > 0 {
                lines.push(format!("No city left, so no score (D14): -{}", parts.lost));
            }
        } else if player.final_score.is_none() && player.treasures > 0 {
            // Before the end treasures do not count yet.
            lines.push(format!("Treasures count at the end: -{treasure_points}"));
        }
        lines.push(format!(
            "Total: {total} ({} held)",
            plural(cities, "city", "cities")
        ));
        if player.out {
            lines.push("Out of the game: cannot win".to_string());
        }
        lines
    }
}

/// The seat as the phase stores it.
fn seat_u8(seat: Seat) -> u8 {
    u8::try_from(seat).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::{Chance, Rules, Visibility};
    use crate::engine::DrawStream;

    /// The chance of a preview: every draw the first tile.
    struct First;

    impl Chance for First {
        fn draw(&mut self, _n: u32, _visibility: Visibility) -> u32 {
            0
        }
    }

    fn names(count: usize) -> Vec<String> {
        ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][..count]
            .iter()
            .map(|n| (*n).to_string())
            .collect()
    }

    /// The numbers of a breakdown's parts (each line ends in `: N`), the total apart.
    fn parts(lines: &[String]) -> (i64, i64, usize) {
        let mut sum = 0;
        let mut count = 0;
        let mut total = None;
        for line in lines {
            let Some((_, value)) = line.rsplit_once(": ") else {
                continue;
            };
            let Some(number) = value.split(' ').next().and_then(|n| n.parse::<i64>().ok()) else {
                continue;
            };
            if line.starts_with("Total") {
                total = Some(number);
            } else {
                sum += number;
                count += 1;
            }
        }
        (sum, total.expect("a total line"), count)
    }

    /// Over whole random games, every turn's report: lines that only the mover may
    /// read are theirs; a line not marked as telling a draw reads the same whatever
    /// the draws gave (a preview shows exactly those); the tiles drawn appear only in
    /// the mover's lines; the scores line appears exactly when a score changed; and at
    /// the end each player's breakdown adds up to their score.
    #[test]
    fn every_turn_of_random_games_reports_what_it_did_to_whom_it_may() {
        let rules = DesertKingdom::standard().expect("built-in data");
        let mut activations = 0;
        for (players, seed) in [(2, 1), (3, 2), (4, 3), (6, 4), (2, 5), (3, 6)] {
            let names = names(players);
            let mut chance = DrawStream::for_testing(seed);
            let mut picker = DrawStream::for_testing(seed + 100);
            let mut state = rules.setup(&names, &mut chance).expect("setup");
            while !rules.is_over(&state) {
                let seat = rules.to_move(&state)[0];
                let mv = rules
                    .sample_move(&state, seat, &mut picker)
                    .expect("a move");
                let next = rules
                    .apply(&state, seat, &mv, &mut chance)
                    .expect("applies");
                let lines = rules.report(&state, seat, &mv, &next, &names);
                assert!(!lines.is_empty());
                let previewed = rules.apply(&state, seat, &mv, &mut First).expect("applies");
                let known = |lines: &[ReportLine]| -> Vec<String> {
                    lines
                        .iter()
                        .filter(|l| !l.tells_draw)
                        .map(|l| l.text.clone())
                        .collect()
                };
                assert_eq!(
                    known(&lines),
                    known(&rules.report(&state, seat, &mv, &previewed, &names)),
                    "{mv:?}"
                );
                for line in &lines {
                    if let crate::engine::rules::Audience::Seat(reader) = line.audience {
                        assert_eq!(reader, seat, "{}", line.text);
                    }
                }
                if let Move::Activate { .. } = mv {
                    activations += 1;
                    // The tiles drawn, named, only in the mover's lines.
                    let private: Vec<&ReportLine> = lines
                        .iter()
                        .filter(|l| l.audience != crate::engine::rules::Audience::Everyone)
                        .collect();
                    for line in &lines {
                        let names_tiles = line.text.contains("tiles drawn:")
                            || line.text.starts_with("Back to the bag")
                            || line.text.contains("chooses from:");
                        assert_eq!(
                            names_tiles,
                            private.iter().any(|p| p.text == line.text),
                            "{}",
                            line.text
                        );
                    }
                }
                if matches!(mv, Move::Road(_) | Move::City(_) | Move::Take { .. }) {
                    // Nothing these report depends on a draw (a tile face down is
                    // never named).
                    assert!(lines.iter().all(|l| !l.tells_draw), "{lines:?}");
                }
                let changed = rules.scores(&state) != rules.scores(&next);
                let told = lines.iter().any(|l| l.text.starts_with("Scores: "));
                assert_eq!(changed, told, "{lines:?}");
                for line in &lines {
                    assert!(!line.text.contains("[?]"));
                    if line.text.contains("face down") {
                        assert!(
                            line.text
                                .starts_with("A tile from the bag went face down on "),
                            "{}",
                            line.text
                        );
                    }
                }
                state = next;
            }
            let end = rules.game_end(&state, &names);
            assert!(
                end.reason.starts_with("the board is full"),
                "{}",
                end.reason
            );
            assert_eq!(end.reason.contains("nobody wins"), state.nobody_wins);
            for (seat, lines) in end.breakdown.iter().enumerate() {
                let (sum, total, count) = parts(lines);
                assert!(count >= 2, "{lines:?}");
                assert_eq!(total, rules.scores(&state)[seat], "{lines:?}");
                assert_eq!(sum, total, "{lines:?}");
            }
        }
        assert!(activations > 0);
    }

    /// With `placate_points`, the points paid at the end are a part of the breakdown.
    #[test]
    fn points_paid_to_placate_are_part_of_the_breakdown() {
        let options: crate::engine::rules::Options =
            [("placate_points".to_string(), "10".to_string())].into();
        let rules =
            DesertKingdom::from_data(DesertKingdom::DEFAULT_DATA, &options).expect("options");
        let names = names(3);
        let mut paid = 0;
        for seed in 0..8 {
            let mut chance = DrawStream::for_testing(seed);
            let mut picker = DrawStream::for_testing(seed + 7);
            let mut state = rules.setup(&names, &mut chance).expect("setup");
            while !rules.is_over(&state) {
                let seat = rules.to_move(&state)[0];
                let mv = rules
                    .sample_move(&state, seat, &mut picker)
                    .expect("a move");
                state = rules
                    .apply(&state, seat, &mv, &mut chance)
                    .expect("applies");
            }
            let end = rules.game_end(&state, &names);
            for (seat, lines) in end.breakdown.iter().enumerate() {
                let (sum, total, _) = parts(lines);
                assert_eq!(total, rules.scores(&state)[seat], "{lines:?}");
                assert_eq!(sum, total, "{lines:?}");
                if lines.iter().any(|l| l.starts_with("Points paid")) {
                    paid += 1;
                }
            }
        }
        assert!(paid > 0, "some game had a band placated with points");
    }
}
