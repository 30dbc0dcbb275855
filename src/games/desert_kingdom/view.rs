//! What players see: the JSON view's game part and the ASCII board.

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use super::board::{Square, SIDE};
use super::state::{Phase, State};
use super::DesertKingdom;
use crate::engine::rules::{GameView, Viewer};

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

    pub(crate) fn ascii(&self, state: &State, viewer: Viewer, names: &[String]) -> String {
        let name = |seat: usize| names.get(seat).map_or("?", String::as_str);
        let mut out = String::new();
        let _ = writeln!(out, "     A     B     C     D     E     F     G     H");
        for row in 0..SIDE {
            let mut line = format!("{:>2} ", row + 1);
            for col in 0..SIDE {
                let at = Square::new(col, row);
                let cell = match state.squares.get(at.index()).and_then(Option::as_ref) {
                    None if state.last_face_down.is_none() && at == self.entry => {
                        "  >  ".to_string()
                    }
                    None => "  .  ".to_string(),
                    Some(tile) if tile.face_down => {
                        match tile
                            .kind
                            .filter(|_| viewer == Viewer::Referee || state.phase == Phase::Over)
                        {
                            Some(kind) => format!(" [{}] ", kind.letter()),
                            None => " [?] ".to_string(),
                        }
                    }
                    Some(tile) if tile.ruined => "  x  ".to_string(),
                    Some(tile) => {
                        let letter = tile.kind.map_or('?', |k| k.letter());
                        let owner = tile.owner.map_or(' ', |o| char::from(b'1' + o));
                        let road = if tile.road { '=' } else { ' ' };
                        format!(" {letter}{owner}{road} ")
                    }
                };
                line.push_str(&format!(" {cell}"));
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        let _ = writeln!(
            out,
            "O oasis 8, C city 5 (2 on roads), M mine 3, G grass 2, D desert 1, ^ mountain;"
        );
        let _ = writeln!(
            out,
            "1-{} owner, = road, [?] face down, x a city destroyed, > the entry ({}).",
            state.players.len(),
            self.entry.name()
        );
        let next = self
            .spiral
            .iter()
            .find(|s| state.squares.get(s.index()).is_some_and(Option::is_none));
        let _ = writeln!(
            out,
            "Bag: {} tiles. Next face-down square: {}.",
            state.bag_count,
            next.map_or("none".to_string(), |s| s.name())
        );
        for (seat, player) in state.players.iter().enumerate() {
            let mut line = format!(
                "{} {}: {} points, {} treasure, {} barbarian, {} cities{}",
                seat + 1,
                name(seat),
                player.points,
                player.treasures,
                player.barbarians,
                self.cities_held(state, seat),
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
            let _ = writeln!(out, "{line}");
        }
        match &state.phase {
            Phase::Turn { seat } => {
                let _ = writeln!(out, "{} to move.", name(usize::from(*seat)));
            }
            Phase::Choosing { seat, square } => {
                let _ = write!(
                    out,
                    "{} chooses a tile for {} from {} drawn",
                    name(usize::from(*seat)),
                    square.name(),
                    state.drawn_count
                );
                if Self::sees_drawn(state, viewer) {
                    let drawn: Vec<&str> = state.drawn.iter().map(|k| k.name()).collect();
                    let _ = write!(out, ": {}", drawn.join(", "));
                }
                let _ = writeln!(out, ".");
            }
            Phase::Over if state.nobody_wins => {
                let _ = writeln!(out, "The barbarians destroyed every city: nobody wins.");
            }
            Phase::Over => {
                let _ = writeln!(out, "The barbarians have attacked; the game is over.");
            }
        }
        // Long names could push a line past the width every board keeps to.
        out.lines()
            .map(|line| {
                let cut: String = line.chars().take(78).collect();
                format!("{}\n", cut.trim_end())
            })
            .collect()
    }
}
