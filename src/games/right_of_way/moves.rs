//! The move language: forgiving parsing and the canonical text written back.
//!
//! One turn is one text: actions separated by `;` or new lines, all or nothing. The
//! canonical text is what `move_text` writes, e.g.
//! `buy F7 with I paying C; place E,NW,SW at E5; discard V`.

use super::state::State;
use super::RightOfWay;
use crate::engine::rules::{RuleError, Seat};
use crate::grid::hex::{rotate_mask, EDGE_NAMES};

/// One player's whole turn, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    /// Draft setup: place the drawn city tile on this cell.
    City(u16),
    /// No legal placement exists: the turn passes (a ruling).
    Pass,
    /// The player gives up: the game ends at once and they cannot win (a ruling; also
    /// what the referee submits for a player who forfeits by keeping the game waiting).
    Resign,
    /// A highway turn: exactly one placement, at most one purchase, optional discards,
    /// in the order given (a purchase before the placement can clear the way for it).
    /// Resolved (`RightOfWay::resolve`), a purchase that may go either side of the
    /// placement with the same result comes first, and tiles given up together are in
    /// the defaults' order (R31).
    Turn(Vec<Action>),
}

/// One action of a highway turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Place the hand tile whose pattern rotates onto `edges` at `cell`.
    Place { cell: u16, edges: u8 },
    /// Buy the right-of-way of `cell`: `tile` goes face-down, `paying` are discarded as
    /// the price of an existing stack. `None` means the documented default choice.
    Buy {
        cell: u16,
        tile: Option<u8>,
        paying: Option<Vec<u8>>,
    },
    /// Tiles given up to cover a loss; missing ones are filled in by the default order.
    Discard(Vec<DiscardItem>),
    /// Every tile given up to cover a loss, written out, when the player named fewer
    /// than the loss and the default order chose the rest. Its text is a `discard`
    /// like any other (read back, it is a [`Action::Discard`] naming them all); kept
    /// apart so that `confirm=losses` can ask before tiles nobody named go.
    DefaultDiscard(Vec<DiscardItem>),
}

/// One tile given up to cover a loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscardItem {
    /// A hand tile of this kind.
    Hand(u8),
    /// The player's highway on this cell.
    Placed(u16),
    /// The player's topmost face-down tile on this cell.
    Row(u16),
}

const PLACE_WORDS: [&str; 6] = ["place", "build", "lay", "put", "play", "highway"];
const BUY_WORDS: [&str; 4] = ["buy", "purchase", "acquire", "claim"];
const DISCARD_WORDS: [&str; 3] = ["discard", "drop", "lose"];
const CITY_WORDS: [&str; 2] = ["city", "draft"];
const PASS_WORDS: [&str; 2] = ["pass", "skip"];
const RESIGN_WORDS: [&str; 3] = ["resign", "forfeit", "concede"];
const NOISE: [&str; 13] = [
    "at", "on", "in", "to", "the", "a", "tile", "tiles", "road", "edges", "and", "of", "onto",
];

/// Splits one action into lowercase words; commas, `+`, `/` and `:` separate words.
fn words(action: &str) -> Vec<String> {
    action
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '+' | '/' | ':' | '(' | ')'))
        .map(|w| {
            w.trim_matches(|c: char| c == '.' || c == '!')
                .to_ascii_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Reads a word of edges: digits 0-5 ("03", "0") or names run together ("ew", "enwsw").
pub(crate) fn parse_edges_word(word: &str) -> Option<u8> {
    if word.chars().all(|c| c.is_ascii_digit()) {
        let mut mask = 0u8;
        for c in word.chars() {
            let d = c.to_digit(10)? as usize;
            if d > 5 {
                return None;
            }
            mask |= 1 << d;
        }
        return Some(mask);
    }
    let bytes = word.as_bytes();
    let mut i = 0;
    let mut mask = 0u8;
    while i < bytes.len() {
        let take = if matches!(bytes[i], b'n' | b's') {
            2
        } else {
            1
        };
        let part = word.get(i..i + take)?;
        let edge = EDGE_NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(part))?;
        mask |= 1 << edge;
        i += take;
    }
    Some(mask)
}

impl RightOfWay {
    /// Edges as players write them: `E,NW,SW`.
    pub fn edges_text(mask: u8) -> String {
        (0..6)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| EDGE_NAMES[i])
            .collect::<Vec<_>>()
            .join(",")
    }

    fn kind_name(&self, kind: u8) -> &str {
        self.kinds
            .get(kind as usize)
            .map_or("?", |k| k.name.as_str())
    }

    /// The canonical text of a move: what `parse_move` reads back to the same move.
    pub fn move_text(&self, mv: &Move) -> String {
        match mv {
            Move::City(cell) => format!("city {}", self.label(*cell)),
            Move::Pass => "pass".to_string(),
            Move::Resign => "resign".to_string(),
            Move::Turn(actions) => actions
                .iter()
                .map(|a| self.action_text(a))
                .collect::<Vec<_>>()
                .join("; "),
        }
    }

    fn action_text(&self, action: &Action) -> String {
        match action {
            Action::Place { cell, edges } => {
                format!(
                    "place {} at {}",
                    Self::edges_text(*edges),
                    self.label(*cell)
                )
            }
            Action::Buy { cell, tile, paying } => {
                let mut text = format!("buy {}", self.label(*cell));
                if let Some(t) = tile {
                    text.push_str(" with ");
                    text.push_str(self.kind_name(*t));
                }
                if let Some(p) = paying.as_ref().filter(|p| !p.is_empty()) {
                    text.push_str(" paying ");
                    let names: Vec<&str> = p.iter().map(|&k| self.kind_name(k)).collect();
                    text.push_str(&names.join(","));
                }
                text
            }
            Action::Discard(items) | Action::DefaultDiscard(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|item| match item {
                        DiscardItem::Hand(k) => self.kind_name(*k).to_string(),
                        DiscardItem::Placed(c) => format!("placed {}", self.label(*c)),
                        DiscardItem::Row(c) => format!("row {}", self.label(*c)),
                    })
                    .collect();
                format!("discard {}", parts.join(","))
            }
        }
    }

    fn cell_word(&self, word: &str) -> Option<u16> {
        let first = word.chars().next()?;
        if !first.is_ascii_alphabetic()
            || !word[1..].chars().all(|c| c.is_ascii_digit())
            || word.len() < 2
        {
            return None;
        }
        self.cell_index(word)
    }

    fn looks_like_cell(word: &str) -> bool {
        word.len() >= 2
            && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && word[1..].chars().all(|c| c.is_ascii_digit())
    }

    fn bad_cell(&self, state: &State, seat: Seat, word: &str) -> RuleError {
        let last_row = char::from(b'A' + (2 * self.radius) as u8);
        RuleError::new(
            format!("there is no cell `{}` on this board", word.to_ascii_uppercase()),
            format!(
                "a cell label: row letter A-{last_row} (left and right margins) and column number (top and bottom margins); e.g. `{}`",
                self.example(state, seat)
            ),
        )
    }

    fn tiles_list(&self) -> String {
        self.kinds
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Reads a move text without checking it against the rules beyond the words.
    pub(crate) fn parse_text(
        &self,
        state: &State,
        seat: Seat,
        text: &str,
    ) -> Result<Move, RuleError> {
        let actions: Vec<Vec<String>> = text
            .split([';', '\n'])
            .map(words)
            .filter(|w| !w.is_empty())
            .collect();
        if actions.is_empty() {
            return Err(RuleError::new(
                "the move is empty",
                format!(
                    "a turn such as `{}`; see `pbem legal`",
                    self.example(state, seat)
                ),
            ));
        }
        if state.setup {
            let first = &actions[0];
            let rest: Vec<&String> = first
                .iter()
                .filter(|w| {
                    !CITY_WORDS.contains(&w.as_str())
                        && !PLACE_WORDS.contains(&w.as_str())
                        && !NOISE.contains(&w.as_str())
                })
                .collect();
            if actions.len() == 1 && rest.len() == 1 {
                let word = rest[0];
                return self
                    .cell_word(word)
                    .map(Move::City)
                    .ok_or_else(|| self.bad_cell(state, seat, word));
            }
            return Err(RuleError::new(
                "while the city is being built a turn only places the drawn city tile",
                format!(
                    "`city <CELL>` next to the city, e.g. `{}`",
                    self.example(state, seat)
                ),
            ));
        }
        let mut out = Vec::new();
        for action in &actions {
            let verb = action[0].as_str();
            let args = &action[1..];
            if PASS_WORDS.contains(&verb) && args.is_empty() && actions.len() == 1 {
                return Ok(Move::Pass);
            }
            if RESIGN_WORDS.contains(&verb) && args.is_empty() && actions.len() == 1 {
                return Ok(Move::Resign);
            }
            if PLACE_WORDS.contains(&verb) {
                out.push(self.parse_place(state, seat, args)?);
            } else if BUY_WORDS.contains(&verb) {
                out.push(self.parse_buy(state, seat, args)?);
            } else if DISCARD_WORDS.contains(&verb) {
                out.push(self.parse_discard(state, seat, args)?);
            } else if self.cell_word(verb).is_some()
                || parse_edges_word(verb).is_some()
                || self.kind_by_name(verb).is_some()
            {
                // A bare placement ("E,W E5", "I rot 1 E5"): the verb is optional.
                out.push(self.parse_place(state, seat, action)?);
            } else {
                return Err(RuleError::new(
                    format!("`{verb}` is not an action"),
                    format!(
                        "actions place (build, lay), buy (purchase), discard (drop) or pass, separated by `;`; e.g. `{}`",
                        self.example(state, seat)
                    ),
                ));
            }
        }
        Ok(Move::Turn(out))
    }

    fn parse_place(&self, state: &State, seat: Seat, args: &[String]) -> Result<Action, RuleError> {
        let mut cell = None;
        let mut edges = 0u8;
        let mut edge_words = 0;
        let mut kind = None;
        let mut rot = None;
        let mut i = 0;
        let example = || self.example(state, seat);
        while i < args.len() {
            let w = args[i].as_str();
            i += 1;
            if NOISE.contains(&w) {
                continue;
            }
            if matches!(w, "rot" | "rotation" | "rotated" | "r" | "turn" | "turned") {
                let k = args.get(i).and_then(|n| n.parse::<usize>().ok());
                let Some(k) = k else {
                    return Err(RuleError::new(
                        "`rot` must be followed by a number of steps",
                        format!("a tile name and `rot 0` to `rot 5` (counter-clockwise steps), e.g. `place I rot 1 at E9`, or board edges as in `{}`", example()),
                    ));
                };
                rot = Some(k % 6);
                i += 1;
                continue;
            }
            if let Some(c) = self.cell_word(w) {
                if cell.is_some() {
                    return Err(RuleError::new(
                        "a placement names two cells",
                        format!("one placement with one cell, e.g. `{}`", example()),
                    ));
                }
                cell = Some(c);
                continue;
            }
            if Self::looks_like_cell(w) {
                return Err(self.bad_cell(state, seat, w));
            }
            if let Some(k) = self.kind_by_name(w) {
                kind = Some(k);
                continue;
            }
            if let Some(m) = parse_edges_word(w) {
                edges |= m;
                edge_words += 1;
                continue;
            }
            return Err(RuleError::new(
                format!("`{w}` is neither an edge, a tile nor a cell"),
                format!(
                    "`place <EDGES> at <CELL>` with edges E NE NW W SW SE (or 0-5), or a tile ({}) with `rot <0-5>`; e.g. `{}`",
                    self.tiles_list(),
                    example()
                ),
            ));
        }
        let Some(cell) = cell else {
            return Err(RuleError::new(
                "the placement names no cell",
                format!("`place <EDGES> at <CELL>`, e.g. `{}`", example()),
            ));
        };
        let edges = match (kind, edge_words) {
            (Some(k), 0) => rotate_mask(self.kinds[k as usize].mask, rot.unwrap_or(0)),
            (None, n) if n > 0 && rot.is_none() => edges,
            (Some(_), _) => {
                return Err(RuleError::new(
                    "the placement gives both a tile name and edges",
                    format!("either the edges (`place E,W at E9`) or a tile with a rotation (`place I rot 0 at E9`); e.g. `{}`", example()),
                ))
            }
            _ => {
                return Err(RuleError::new(
                    "the placement gives no edges",
                    format!("the board edges the road takes (E NE NW W SW SE or 0-5), e.g. `{}`", example()),
                ))
            }
        };
        Ok(Action::Place { cell, edges })
    }

    fn parse_tile(&self, state: &State, seat: Seat, w: &str) -> Result<u8, RuleError> {
        self.kind_by_name(w).ok_or_else(|| {
            RuleError::new(
                format!("`{}` is not a tile name", w.to_ascii_uppercase()),
                format!(
                    "one of the tiles {}; e.g. `{}`",
                    self.tiles_list(),
                    self.example(state, seat)
                ),
            )
        })
    }

    fn parse_buy(&self, state: &State, seat: Seat, args: &[String]) -> Result<Action, RuleError> {
        let mut cell = None;
        let mut tile = None;
        let mut paying: Option<Vec<u8>> = None;
        // Which list a bare tile name belongs to: the face-down tile until `paying`.
        let mut in_paying = false;
        for w in args {
            let w = w.as_str();
            if NOISE.contains(&w)
                || matches!(
                    w,
                    "right-of-way" | "row" | "right" | "way" | "rights" | "for" | "stack"
                )
            {
                continue;
            }
            if matches!(w, "with" | "using" | "facedown" | "face-down" | "down") {
                in_paying = false;
                continue;
            }
            if matches!(w, "paying" | "pay" | "discarding" | "price" | "by") {
                in_paying = true;
                paying.get_or_insert_with(Vec::new);
                continue;
            }
            if let Some(c) = self.cell_word(w) {
                if cell.replace(c).is_some() {
                    return Err(RuleError::new(
                        "a purchase names two cells",
                        format!(
                            "one cell per purchase, e.g. {}",
                            self.example_buy(state, seat)
                        ),
                    ));
                }
                continue;
            }
            if Self::looks_like_cell(w) {
                return Err(self.bad_cell(state, seat, w));
            }
            let k = self.parse_tile(state, seat, w).map_err(|mut e| {
                e.accepted = format!(
                    "`buy <CELL> with <TILE> [paying <TILE>,...]` where tiles are {}; e.g. {}",
                    self.tiles_list(),
                    self.example_buy(state, seat)
                );
                e
            })?;
            if in_paying {
                paying.get_or_insert_with(Vec::new).push(k);
            } else if tile.replace(k).is_some() {
                return Err(RuleError::new(
                    "a purchase places only one tile face-down",
                    "`buy <CELL> with <TILE> paying <TILE>,<TILE>` (the price of a stack goes after `paying`)",
                ));
            }
        }
        let Some(cell) = cell else {
            return Err(RuleError::new(
                "the purchase names no cell",
                format!(
                    "`buy <CELL> with <TILE>`, e.g. {}",
                    self.example_buy(state, seat)
                ),
            ));
        };
        Ok(Action::Buy { cell, tile, paying })
    }

    fn parse_discard(
        &self,
        state: &State,
        seat: Seat,
        args: &[String],
    ) -> Result<Action, RuleError> {
        let mut items = Vec::new();
        let mut mode: Option<bool> = None; // Some(true) placed, Some(false) row
        for w in args {
            let w = w.as_str();
            if NOISE.contains(&w) || matches!(w, "hand" | "from") {
                continue;
            }
            if matches!(w, "placed" | "highway" | "built") {
                mode = Some(true);
                continue;
            }
            if matches!(
                w,
                "row" | "right-of-way" | "facedown" | "face-down" | "stack"
            ) {
                mode = Some(false);
                continue;
            }
            if let Some(c) = self.cell_word(w) {
                match mode.take() {
                    Some(true) => items.push(DiscardItem::Placed(c)),
                    Some(false) => items.push(DiscardItem::Row(c)),
                    None => {
                        return Err(RuleError::new(
                            format!(
                            "`discard {}` does not say whether a highway or a face-down tile goes",
                            w.to_ascii_uppercase()
                        ),
                            format!(
                                "`discard placed {0}` or `discard row {0}`",
                                w.to_ascii_uppercase()
                            ),
                        ))
                    }
                }
                continue;
            }
            if Self::looks_like_cell(w) {
                return Err(self.bad_cell(state, seat, w));
            }
            let k = self.parse_tile(state, seat, w).map_err(|mut e| {
                e.accepted = format!(
                    "`discard <TILE>,<TILE>` (tiles {}), `discard placed <CELL>` or `discard row <CELL>`",
                    self.tiles_list()
                );
                e
            })?;
            items.push(DiscardItem::Hand(k));
        }
        Ok(Action::Discard(items))
    }
}

/// Edge numbers of a mask, for the JSON view.
pub(crate) fn mask_list(mask: u8) -> Vec<u8> {
    (0..6u8).filter(|i| mask & (1 << i) != 0).collect()
}
