//! What players see: the JSON view's game part and the ASCII board.

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use super::board::{Square, SIDE};
use super::moves;
use super::state::{Event, Kind, Phase, State};
use super::text::plural;
use super::DesertKingdom;
use crate::engine::rules::{BoardContext, GameView, Viewer};

/// What one square of the board shows its viewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cell {
    Empty,
    /// Empty, where the barbarians enter (until a tile lies face down).
    Entry,
    /// A face-down tile: its kind only where the viewer may see it.
    FaceDown(Option<Kind>),
    /// A city the barbarians destroyed.
    Ruined,
    Tile {
        kind: Option<Kind>,
        owner: Option<u8>,
        road: bool,
    },
}

/// The width every board keeps to.
pub(crate) const BOARD_WIDTH: usize = 78;

/// `line` broken at spaces into lines of at most `width` characters, each line after
/// the first starting with `indent`; a word longer than a line is broken where it
/// must be. Every line ends with a newline and no trailing space.
pub(crate) fn wrap(line: &str, width: usize, indent: &str) -> String {
    let line = line.trim_end();
    if line.chars().count() <= width {
        return format!("{line}\n");
    }
    let indent_width = indent.chars().count();
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in line.split(' ').filter(|w| !w.is_empty()) {
        let mut rest: Vec<char> = word.chars().collect();
        while !rest.is_empty() {
            let room = if lines.is_empty() {
                width
            } else {
                width.saturating_sub(indent_width).max(1)
            };
            let used = current.chars().count();
            if used + usize::from(used > 0) + rest.len() <= room {
                if used > 0 {
                    current.push(' ');
                }
                current.extend(rest.drain(..));
            } else if used > 0 {
                lines.push(std::mem::take(&mut current));
            } else {
                // A word longer than a whole line.
                current.extend(rest.drain(..room));
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
        .iter()
        .enumerate()
        .map(|(index, text)| {
            if index == 0 {
                format!("{text}\n")
            } else {
                format!("{indent}{text}\n")
            }
        })
        .collect()
}

impl DesertKingdom {
    /// Whether `viewer` sees the tiles drawn by the player choosing.
    fn sees_drawn(state: &State, viewer: Viewer) -> bool {
        match (viewer, &state.phase) {
            (Viewer::Referee, _) => true,
            (Viewer::Player(seat), Phase::Choosing { seat: chooser, .. }) => {
                usize::from(*chooser) == seat
            }
            _ => false,
        }
    }

    pub(crate) fn game_view(&self, state: &State, viewer: Viewer, names: &[String]) -> GameView {
        let name = |seat: u8| names.get(usize::from(seat)).cloned().unwrap_or_default();
        let mut fields = Map::new();
        let phase = match &state.phase {
            Phase::Turn { .. } => json!("turn"),
            Phase::Choosing { square, .. } => json!({"choosing": square.name()}),
            Phase::Defending { city, .. } => json!({"defending": city.name()}),
            Phase::Over => json!("over"),
        };
        fields.insert("phase".into(), phase);
        let squares: Vec<Value> = Square::all()
            .filter_map(|at| {
                let tile = state.squares.get(at.index())?.as_ref()?;
                // A face-down tile shows no identity, except to the referee and at the
                // end (when the public state itself holds it).
                let terrain = match (tile.face_down, tile.kind) {
                    (true, Some(kind))
                        if viewer == Viewer::Referee || state.phase == Phase::Over =>
                    {
                        json!(kind.name())
                    }
                    (true, _) => json!("face-down"),
                    (false, Some(kind)) => json!(kind.name()),
                    (false, None) => Value::Null,
                };
                Some(json!({
                    "square": at.name(),
                    "terrain": terrain,
                    "face_down": tile.face_down,
                    "owner": tile.owner.map(name),
                    "road": tile.road,
                    "ruined": tile.ruined,
                }))
            })
            .collect();
        fields.insert("squares".into(), Value::Array(squares));
        fields.insert("bag".into(), json!(state.bag_count));
        fields.insert(
            "spiral_next".into(),
            json!(self
                .spiral
                .iter()
                .find(|s| state.squares.get(s.index()).is_some_and(Option::is_none))
                .map(|s| s.name())),
        );
        fields.insert("entry".into(), json!(self.entry.name()));
        fields.insert(
            "last_face_down".into(),
            json!(state.last_face_down.map(Square::name)),
        );
        fields.insert("drawn_count".into(), json!(state.drawn_count));
        if Self::sees_drawn(state, viewer) {
            fields.insert(
                "drawn".into(),
                json!(state.drawn.iter().map(|k| k.name()).collect::<Vec<_>>()),
            );
        }
        fields.insert("nobody_wins".into(), json!(state.nobody_wins));
        let players = state
            .players
            .iter()
            .enumerate()
            .map(|(seat, player)| {
                let mut entry = Map::new();
                entry.insert("points".into(), json!(player.points));
                entry.insert("treasures".into(), json!(player.treasures));
                entry.insert("barbarians".into(), json!(player.barbarians));
                entry.insert("city_tile".into(), json!(player.city_tile));
                entry.insert("cities".into(), json!(self.cities_held(state, seat)));
                entry.insert("out".into(), json!(player.out));
                entry.insert("final_score".into(), json!(player.final_score));
                entry
            })
            .collect();
        GameView { players, fields }
    }

    /// `Rules::legend`: what the board's marks mean, wrapped to the board's width.
    pub(crate) fn board_legend(&self) -> String {
        // The options in effect always name the spiral's direction.
        let turn = self
            .options
            .get("spiral")
            .map_or("clockwise", String::as_str);
        let text = format!(
            "Squares: column A-H and row 1-8, named on every edge. A tile shows its \
             letter and its owner's number (the list under the board): O oasis 8, \
             C city 5 (2 on a scored network), M mine 3, G grass 2, D desert 1, \
             ^ mountain 0; = a road. [?] a tile face down (the barbarians' spiral, \
             from {} {turn}, ring by ring inwards); at the end, and to the referee, \
             it shows its letter: [C] a city, [T] a treasure, [B] a barbarian, \
             [G] grass and so on. x a city the barbarians destroyed, > where they \
             enter (until a tile lies face down). *G1=* the squares of the last move.",
            self.entry.name()
        );
        wrap(&text, BOARD_WIDTH, "").trim_end().to_string()
    }

    /// The squares the last move acted on, to be marked. Its text is canonical, so
    /// every square in it is one the move acted on (`activate C3 to C4` both). A
    /// `take` names none: the square it was for is in the last move's events, which
    /// only the full state holds (a player's board; the public one goes without the
    /// mark).
    pub(crate) fn marked_squares(&self, state: &State, context: &BoardContext<'_>) -> Vec<Square> {
        let mut marked: Vec<Square> = context
            .last_move
            .as_ref()
            .and_then(|last| last.text.as_deref())
            .map(moves::squares_named)
            .unwrap_or_default();
        if context.last_move.is_some() {
            marked.extend(state.events.iter().filter_map(|event| match event {
                Event::Chose { at } => Some(*at),
                _ => None,
            }));
        }
        marked
    }

    /// What square `at` shows `viewer`: the one decision the ASCII board and the
    /// picture both draw from, so neither tells what the other hides.
    pub(crate) fn cell(&self, state: &State, viewer: Viewer, at: Square) -> Cell {
        match state.squares.get(at.index()).and_then(Option::as_ref) {
            None if state.last_face_down.is_none() && at == self.entry => Cell::Entry,
            None => Cell::Empty,
            // A face-down tile shows its kind only to the referee and at the end (when
            // the public state itself holds it).
            Some(tile) if tile.face_down => Cell::FaceDown(
                tile.kind
                    .filter(|_| viewer == Viewer::Referee || state.phase == Phase::Over),
            ),
            Some(tile) if tile.ruined => Cell::Ruined,
            Some(tile) => Cell::Tile {
                kind: tile.kind,
                owner: tile.owner,
                road: tile.road,
            },
        }
    }

    /// The first empty square of the barbarians' spiral: where the next face-down
    /// tile goes.
    pub(crate) fn next_face_down(&self, state: &State) -> Option<Square> {
        self.spiral
            .iter()
            .copied()
            .find(|s| state.squares.get(s.index()).is_some_and(Option::is_none))
    }

    /// The lines under the board's grid, unwrapped: the bag, each player (with their
    /// seat, so a picture can key the line to the seat's colour), the last move and
    /// who is to do what.
    pub(crate) fn panel(
        &self,
        state: &State,
        context: &BoardContext<'_>,
        marked: &[Square],
    ) -> Vec<(Option<usize>, String)> {
        let viewer = context.viewer;
        let names = context.names;
        let name = |seat: usize| names.get(seat).map_or("?", String::as_str);
        let mut lines: Vec<(Option<usize>, String)> = Vec::new();
        let start = state.last_face_down.unwrap_or(self.entry);
        lines.push((
            None,
            format!(
                "Bag: {} tiles. Next face-down square: {}. Barbarians start at {}.",
                state.bag_count,
                self.next_face_down(state)
                    .map_or("none".to_string(), Square::name),
                start.name()
            ),
        ));
        for (seat, player) in state.players.iter().enumerate() {
            let you = if viewer == Viewer::Player(seat) {
                " (you)"
            } else {
                ""
            };
            let mut line = format!(
                "{} {}{you}: {} points, {}, {}, {}{}",
                seat + 1,
                name(seat),
                player.points,
                plural(usize::from(player.treasures), "treasure", "treasures"),
                plural(usize::from(player.barbarians), "barbarian", "barbarians"),
                plural(self.cities_held(state, seat), "city", "cities"),
                if player.city_tile {
                    ", city tile held"
                } else {
                    ""
                }
            );
            if player.out {
                line.push_str(", out");
            }
            if let Some(score) = player.final_score {
                let _ = write!(line, "; final score {score}");
            }
            lines.push((Some(seat), line));
        }
        if let Some(last) = &context.last_move {
            let text = last.text.as_deref().unwrap_or("(sealed)");
            let star = if marked.is_empty() { "" } else { " (*)" };
            lines.push((
                None,
                format!("Last move{star}: {}: {text}", name(last.seat)),
            ));
        }
        let turn = context.turn;
        let status = match &state.phase {
            Phase::Turn { seat } => {
                format!("After turn {turn}: {} to move.", name(usize::from(*seat)))
            }
            Phase::Choosing { seat, square } => {
                let target = if state
                    .squares
                    .get(square.index())
                    .is_some_and(Option::is_some)
                {
                    // The face-down tile took the last square (D12).
                    "to score without a square".to_string()
                } else {
                    format!("for {}", square.name())
                };
                // No colon before the tiles: only the chooser's board lists them.
                let mut line = format!(
                    "After turn {turn}, {} chooses a tile {target} from {} drawn",
                    name(usize::from(*seat)),
                    state.drawn_count
                );
                if Self::sees_drawn(state, viewer) {
                    let drawn: Vec<&str> = state.drawn.iter().map(|k| k.name()).collect();
                    let _ = write!(line, ": {}", drawn.join(", "));
                }
                line.push('.');
                line
            }
            Phase::Defending { seat, city } => {
                let band = state.attack.as_ref().map_or(1, |a| a.bands.len() + 1);
                let who = name(usize::from(*seat));
                format!(
                    "After turn {turn}, the barbarians attack: band {band} is at {who}'s city on {}. {who} turns in a treasure (`pay`, the city stays) or keeps it (`keep`, the city falls).",
                    city.name()
                )
            }
            Phase::Over if state.nobody_wins => {
                format!("After turn {turn}, the barbarians destroyed every city: nobody wins.")
            }
            Phase::Over => {
                format!("After turn {turn}, the barbarians have attacked; the game is over.")
            }
        };
        lines.push((None, status));
        lines
    }

    pub(crate) fn ascii(&self, state: &State, context: &BoardContext<'_>) -> String {
        let marked = self.marked_squares(state, context);
        let mut out = String::new();
        let columns = "     A     B     C     D     E     F     G     H";
        let _ = writeln!(out, "{columns}");
        for row in 0..SIDE {
            let mut line = format!("{:>2} ", row + 1);
            for col in 0..SIDE {
                let at = Square::new(col, row);
                let cell = match self.cell(state, context.viewer, at) {
                    Cell::Entry => "  >  ".to_string(),
                    Cell::Empty => "  .  ".to_string(),
                    Cell::FaceDown(Some(kind)) => format!(" [{}] ", kind.letter()),
                    Cell::FaceDown(None) => " [?] ".to_string(),
                    Cell::Ruined => "  x  ".to_string(),
                    Cell::Tile { kind, owner, road } => {
                        let letter = kind.map_or('?', Kind::letter);
                        let owner = owner.map_or(' ', |o| char::from(b'1' + o));
                        let road = if road { '=' } else { ' ' };
                        format!(" {letter}{owner}{road} ")
                    }
                };
                let cell = if marked.contains(&at) {
                    // Stars close round what the cell shows (`*D3*`, `*.*`), never
                    // round its blanks, so two marked squares side by side read as two.
                    format!("{:^5}", format!("*{}*", cell.trim()))
                } else {
                    cell
                };
                line.push_str(&format!(" {cell}"));
            }
            let _ = writeln!(out, "{line}  {}", row + 1);
        }
        let _ = writeln!(out, "{columns}");
        for (_, line) in self.panel(state, context, &marked) {
            let _ = writeln!(out, "{line}");
        }
        // Long names and long lists of tiles could push a line past the width every
        // board keeps to: wrapped, never cut, so nothing is lost.
        out.lines()
            .map(|line| wrap(line, BOARD_WIDTH, "    "))
            .collect()
    }
}
