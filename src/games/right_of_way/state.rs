//! The game state: compact so that `apply` is cheap (cells indexed by number, tiles as
//! kind indices, edges as 6-bit masks). Geometry lives in `RightOfWay`, not here.
//!
//! Every struct refuses unknown keys and `City` unknown names: a game file's cached
//! state with anything extra is not this game's state.

use serde::{Deserialize, Serialize};

/// What lies on a cell of the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum City {
    /// No city tile (yet): outside the city, nothing may be built here.
    Empty,
    /// An unmarked city tile.
    Plain,
    /// A city tile with a dollar sign.
    Dollar,
}

/// A face-up highway tile on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Highway {
    pub owner: u8,
    /// Index into the rules' tile kinds.
    pub kind: u8,
    /// The board edges the road occupies (the kind's mask, rotated).
    pub edges: u8,
}

/// A face-down highway tile: one level of a right-of-way stack. Hands are face-up, so
/// which tile went face-down is public.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaceDown {
    pub owner: u8,
    pub kind: u8,
}

/// One cell of the frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    pub city: City,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub highway: Option<Highway>,
    /// The right-of-way stack, bottom first; the top tile's owner holds the right-of-way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row: Vec<FaceDown>,
}

impl Cell {
    pub fn empty() -> Self {
        Cell {
            city: City::Empty,
            highway: None,
            row: Vec::new(),
        }
    }

    pub fn is_city(&self) -> bool {
        self.city != City::Empty
    }

    pub fn is_dollar(&self) -> bool {
        self.city == City::Dollar
    }

    /// The holder of the right-of-way, if any.
    pub fn row_holder(&self) -> Option<u8> {
        self.row.last().map(|t| t.owner)
    }
}

/// One player's tiles that are not on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerState {
    /// The face-down drawing stack in canonical order (kind indices); draws pick an index.
    pub stack: Vec<u8>,
    /// The face-up hand, kept sorted by kind so equal positions compare equal.
    pub hand: Vec<u8>,
    /// Tiles on the discard stack (only their number matters).
    pub discards: u32,
}

impl PlayerState {
    /// Adds a tile to the hand, keeping it sorted.
    pub fn add_to_hand(&mut self, kind: u8) {
        let at = self.hand.partition_point(|&k| k <= kind);
        self.hand.insert(at, kind);
    }

    /// Removes one tile of `kind` from the hand; false when there is none.
    pub fn take_from_hand(&mut self, kind: u8) -> bool {
        match self.hand.iter().position(|&k| k == kind) {
            Some(i) => {
                self.hand.remove(i);
                true
            }
            None => false,
        }
    }
}

/// Where the game stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// One entry per cell of the frame, in the rules' cell order.
    pub cells: Vec<Cell>,
    pub players: Vec<PlayerState>,
    /// Draft setup only: city tiles not yet drawn (true = dollar), canonical order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub city_stack: Vec<bool>,
    /// Draft setup only: the city tile drawn and waiting to be placed (true = dollar).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawn_city: Option<bool>,
    /// True while the city is being drafted.
    pub setup: bool,
    /// The seat to move.
    pub to_move: u8,
    /// The seat that had the first highway turn (chosen by the hands).
    pub first: u8,
    /// The seat that used up stack and hand, once that has happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<u8>,
    /// Final turns still to be played after `ended_by` was set.
    pub final_turns: u8,
    pub over: bool,
    /// The seat that resigned, which ended the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resigned: Option<u8>,
    /// Highway turns played so far.
    pub turn: u32,
}

impl State {
    /// Tiles of `seat` on the board: highways plus face-down tiles.
    pub fn on_board(&self, seat: u8) -> usize {
        self.cells
            .iter()
            .map(|c| {
                usize::from(c.highway.is_some_and(|h| h.owner == seat))
                    + c.row.iter().filter(|t| t.owner == seat).count()
            })
            .sum()
    }

    /// Stack + hand + placed + face-down + discards: 54 at every moment (with the
    /// default tile set).
    pub fn tiles_of(&self, seat: u8) -> usize {
        let p = &self.players[seat as usize];
        p.stack.len() + p.hand.len() + p.discards as usize + self.on_board(seat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Rules;
    use crate::engine::DrawStream;
    use crate::games::right_of_way::RightOfWay;
    use serde_json::{json, Value};

    /// A state after setup with a highway and a right-of-way on the board, as JSON.
    fn state_json() -> Value {
        let rules = RightOfWay::standard().expect("built-in data");
        let names = ["red".to_string(), "blue".to_string()];
        let mut state = rules
            .setup(&names, &mut DrawStream::for_testing(1))
            .expect("setup");
        state.cells[0].highway = Some(Highway {
            owner: 0,
            kind: 0,
            edges: 0b1001,
        });
        state.cells[1].row.push(FaceDown { owner: 1, kind: 2 });
        state.ended_by = Some(1);
        serde_json::to_value(&state).expect("json")
    }

    #[test]
    fn an_unknown_key_anywhere_in_the_state_is_refused() {
        let good = state_json();
        assert!(serde_json::from_value::<State>(good.clone()).is_ok());
        let places: [fn(&mut Value) -> &mut Value; 5] = [
            |v| v,
            |v| &mut v["players"][0],
            |v| &mut v["cells"][0],
            |v| &mut v["cells"][0]["highway"],
            |v| &mut v["cells"][1]["row"][0],
        ];
        for (i, place) in places.iter().enumerate() {
            let mut bad = good.clone();
            let object = place(&mut bad).as_object_mut().expect("an object");
            object.insert("colour".into(), json!("red"));
            let error = serde_json::from_value::<State>(bad)
                .expect_err(&format!("an extra key at place {i} must be refused"));
            assert!(error.to_string().contains("colour"), "{error}");
        }
        // An unknown city kind is refused too.
        let mut bad = good;
        bad["cells"][0]["city"] = json!("harbour");
        assert!(serde_json::from_value::<State>(bad).is_err());
    }
}
