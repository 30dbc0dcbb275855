//! The JSON view: the exact record of the position, so nobody has to scrape the picture.

use serde_json::{json, Map, Value};

use super::moves::mask_list;
use super::state::State;
use super::RightOfWay;
use crate::engine::rules::{GameView, Viewer};

fn name_of(names: &[String], seat: u8) -> String {
    names
        .get(seat as usize)
        .cloned()
        .unwrap_or_else(|| format!("seat {seat}"))
}

impl RightOfWay {
    pub(crate) fn game_view(&self, state: &State, viewer: Viewer, names: &[String]) -> GameView {
        let mut view = GameView::default();
        for (seat, p) in state.players.iter().enumerate() {
            let mut m = Map::new();
            let hand: Vec<Value> = p
                .hand
                .iter()
                .map(|&k| {
                    let kind = &self.kinds[k as usize];
                    json!({"tile": kind.name, "edges": mask_list(kind.mask)})
                })
                .collect();
            m.insert("hand".into(), Value::Array(hand));
            m.insert("stack".into(), json!(p.stack.len()));
            m.insert("discards".into(), json!(p.discards));
            m.insert("on_board".into(), json!(state.on_board(seat as u8)));
            m.insert(
                "letter".into(),
                json!(char::from(b'A' + seat as u8).to_string()),
            );
            if viewer == Viewer::Player(seat) {
                m.insert("you".into(), json!(true));
            }
            view.players.push(m);
        }
        let board: Vec<Value> = state
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_city())
            .map(|(i, c)| {
                let hex = self.hexes[i];
                let highway = c.highway.map_or(Value::Null, |h| {
                    json!({
                        "owner": name_of(names, h.owner),
                        "tile": self.kinds[h.kind as usize].name,
                        "edges": mask_list(h.edges),
                    })
                });
                let row: Vec<String> = c.row.iter().map(|t| name_of(names, t.owner)).collect();
                json!({
                    "q": hex.q,
                    "r": hex.r,
                    "label": self.label(i as u16),
                    "dollar": c.is_dollar(),
                    "highway": highway,
                    "right_of_way": row,
                })
            })
            .collect();
        let f = &mut view.fields;
        f.insert("board".into(), Value::Array(board));
        f.insert("setup".into(), json!(state.setup));
        if state.setup {
            f.insert(
                "drawn_city".into(),
                json!(if state.drawn_city == Some(true) {
                    "dollar"
                } else {
                    "plain"
                }),
            );
            f.insert("city_stack".into(), json!(state.city_stack.len()));
            let spots: Vec<&str> = (0..state.cells.len())
                .filter(|&i| self.city_spot(state, i))
                .map(|i| self.label(i as u16))
                .collect();
            f.insert("city_spots".into(), json!(spots));
        } else {
            f.insert("first_player".into(), json!(name_of(names, state.first)));
        }
        f.insert("to_move".into(), json!(name_of(names, state.to_move)));
        f.insert("turn".into(), json!(state.turn));
        f.insert("final_turns".into(), json!(state.ended_by.is_some()));
        if let Some(e) = state.ended_by {
            f.insert("ended_by".into(), json!(name_of(names, e)));
        }
        f.insert("over".into(), json!(state.over));
        if let Some(quitter) = state.resigned {
            f.insert("resigned".into(), json!(name_of(names, quitter)));
        }
        view
    }
}
