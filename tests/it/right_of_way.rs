//! Right of Way: the rulebook's worked examples, refusals, the move language, random
//! whole games (proptest) and board snapshots.

use pbem::engine::{
    BoardContext, Chance, Deadline, DrawStream, Options, Rules, Viewer, Visibility,
};

use pbem::games::right_of_way::{Cell, City, FaceDown, Highway, Move, RightOfWay, State};

use pbem::grid::hex::{opposite, rotate_mask, Hex, DIRS};

use proptest::prelude::*;

use super::support::picture_texts;

mod moves;
mod random_games;
mod scoring;

fn names() -> Vec<String> {
    vec!["red".to_string(), "blue".to_string()]
}

fn rules() -> RightOfWay {
    RightOfWay::standard().expect("built-in data is valid")
}

fn rules_with(pairs: &[(&str, &str)]) -> RightOfWay {
    let options: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    RightOfWay::from_data(RightOfWay::DEFAULT_DATA, &options).expect("valid options")
}

/// A test position: a hexagon city of unmarked tiles, no highways, red (seat 0) to move;
/// hands are emptied into the stacks so `hand` can deal exactly what a test needs while
/// every tile stays accounted for.
struct Pos {
    rules: RightOfWay,
    s: State,
}

impl Pos {
    fn new() -> Self {
        let rules = rules();
        let mut s = rules
            .setup(&names(), &mut DrawStream::for_testing(7))
            .unwrap();
        for c in &mut s.cells {
            *c = Cell {
                city: City::Plain,
                highway: None,
                row: Vec::new(),
            };
        }
        for p in &mut s.players {
            p.stack = (0..rules.kinds().len() as u8)
                .flat_map(|k| std::iter::repeat_n(k, rules.kinds()[k as usize].count as usize))
                .collect();
            p.hand.clear();
        }
        s.to_move = 0;
        Pos { rules, s }
    }

    fn cell(&self, label: &str) -> u16 {
        self.rules
            .cell_index(label)
            .unwrap_or_else(|| panic!("no cell {label}"))
    }

    fn kind(&self, name: &str) -> u8 {
        self.rules.kind_by_name(name).unwrap()
    }

    fn take(&mut self, seat: usize, kind: u8) {
        let stack = &mut self.s.players[seat].stack;
        let at = stack
            .iter()
            .position(|&k| k == kind)
            .expect("tile left in stack");
        stack.remove(at);
    }

    /// Moves tiles by name from the stack into the hand.
    fn hand(&mut self, seat: usize, tiles: &[&str]) -> &mut Self {
        for t in tiles {
            let k = self.kind(t);
            self.take(seat, k);
            self.s.players[seat].add_to_hand(k);
        }
        self
    }

    fn dollar(&mut self, labels: &[&str]) -> &mut Self {
        for l in labels {
            let c = self.cell(l);
            self.s.cells[c as usize].city = City::Dollar;
        }
        self
    }

    /// A highway of `seat` with these board edges (digits) on a cell.
    fn road(&mut self, seat: usize, label: &str, edges: &[usize]) -> &mut Self {
        let mask = edges.iter().fold(0u8, |m, &e| m | 1 << e);
        let kind = self
            .rules
            .kind_of_edges(mask)
            .expect("a tile has these edges");
        self.take(seat, kind);
        let c = self.cell(label);
        self.s.cells[c as usize].highway = Some(Highway {
            owner: seat as u8,
            kind,
            edges: mask,
        });
        self
    }

    /// Keeps only these cells in the city: every other cell of the frame has no city
    /// tile, so nothing can be built there and nothing there earns profit.
    fn only(&mut self, labels: &[&str]) -> &mut Self {
        let keep: Vec<u16> = labels.iter().map(|l| self.cell(l)).collect();
        for (i, c) in self.s.cells.iter_mut().enumerate() {
            if !keep.contains(&(i as u16)) {
                c.city = City::Empty;
            }
        }
        self
    }

    /// A face-down tile of `seat`, taken from its stack, on top of a cell's stack.
    fn face_down(&mut self, seat: usize, label: &str, tile: &str) -> &mut Self {
        let kind = self.kind(tile);
        self.take(seat, kind);
        let c = self.cell(label);
        self.s.cells[c as usize].row.push(FaceDown {
            owner: seat as u8,
            kind,
        });
        self
    }

    /// Hand tiles go back to the stack.
    fn unhand(&mut self, seat: usize, tiles: &[&str]) -> &mut Self {
        for t in tiles {
            let k = self.kind(t);
            assert!(self.s.players[seat].take_from_hand(k), "{t} in hand");
            self.s.players[seat].stack.push(k);
        }
        self
    }

    /// The label of the neighbour of `label` across `edge`.
    fn next_to(&self, label: &str, edge: usize) -> String {
        let hex = self.rules.hex(self.cell(label)).neighbour(edge);
        let cell = self.rules.hex_index(hex).expect("inside the frame");
        self.rules.label(cell).to_string()
    }

    fn cost_profit(&self, label: &str, edges: &[usize]) -> (i64, i64) {
        let mask = edges.iter().fold(0u8, |m, &e| m | 1 << e);
        self.rules.cost_profit(&self.s, self.cell(label), mask)
    }

    fn apply(&self, seat: usize, text: &str) -> Result<State, pbem::engine::RuleError> {
        let mv = self.rules.parse_move(&self.s, seat, text)?;
        self.rules
            .apply(&self.s, seat, &mv, &mut DrawStream::for_testing(99))
    }

    fn check_conservation(&self, s: &State) {
        for seat in 0..s.players.len() {
            assert_eq!(s.tiles_of(seat as u8), 54, "seat {seat} in {s:?}");
        }
    }
}

const CENTRE: &str = "E9";

// ---- Boards ----

fn assert_fits(board: &str) {
    for line in board.lines() {
        assert!(line.chars().count() <= 78, "too wide: {line:?}");
        assert_eq!(line, line.trim_end(), "trailing spaces");
    }
}

#[test]
fn board_opening() {
    let r = rules();
    let s = r
        .setup(&names(), &mut DrawStream::for_testing(2026))
        .unwrap();
    let board = r.board(
        &s,
        &BoardContext {
            viewer: Viewer::Player(0),
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    assert_fits(&board);
    insta::assert_snapshot!(board);
}

#[test]
fn board_mid_game_with_right_of_way() {
    let r = rules();
    let mut chance = DrawStream::for_testing(8);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    for _ in 0..30 {
        let seat = s.to_move as usize;
        let mv = r.sample_move(&s, seat, &mut chance).unwrap();
        s = r.apply(&s, seat, &mv, &mut chance).unwrap();
    }
    // Make sure stacks of height one and two are on the board.
    let free: Vec<u16> = (0..s.cells.len() as u16)
        .filter(|&i| {
            let c = &s.cells[i as usize];
            c.highway.is_none() && c.row.is_empty()
        })
        .collect();
    let a = free[0];
    let b = free[free.len() - 1];
    for (cell, owner) in [(a, 0u8), (b, 1), (b, 0)] {
        let kind = s.players[owner as usize].stack.pop().unwrap();
        s.cells[cell as usize]
            .row
            .push(pbem::games::right_of_way::FaceDown { owner, kind });
    }
    let board = r.board(
        &s,
        &BoardContext {
            viewer: Viewer::Public,
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    assert_fits(&board);
    assert!(board.contains("[1A]") && board.contains("[2A]"), "{board}");
    insta::assert_snapshot!(board);
    let context = BoardContext {
        viewer: Viewer::Public,
        names: &names(),
        turn: 0,
        last_move: None,
    };
    let picture = r.board_svg(&s, &context);
    let texts = picture_texts(&picture);
    // The stacks' badges: height first, then the top tile's letter, as in the text.
    assert!(
        texts.iter().any(|t| t == "1A") && texts.iter().any(|t| t == "2A"),
        "{texts:?}"
    );
    insta::assert_snapshot!("board_picture_mid_game_with_right_of_way", picture);
    let view = r.view(&s, Viewer::Public, &names());
    let cells = view.fields["board"].as_array().unwrap();
    assert_eq!(cells.len(), 61);
    let stacked = cells.iter().find(|c| c["label"] == r.label(b)).unwrap();
    assert_eq!(stacked["right_of_way"], serde_json::json!(["blue", "red"]));
    assert!(view.players[0]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["edges"].is_array() && t["tile"].is_string()));
}

#[test]
fn board_draft_in_progress() {
    let r = rules_with(&[("setup", "draft")]);
    let mut chance = DrawStream::for_testing(3);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    for _ in 0..20 {
        let seat = s.to_move as usize;
        let mv = r.sample_move(&s, seat, &mut chance).unwrap();
        s = r.apply(&s, seat, &mv, &mut chance).unwrap();
    }
    let board = r.board(
        &s,
        &BoardContext {
            viewer: Viewer::Public,
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    assert_fits(&board);
    insta::assert_snapshot!(board);
    let picture = r.board_svg(
        &s,
        &BoardContext {
            viewer: Viewer::Public,
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    // The cells where a city tile may go are marked, as the text marks them with +.
    let spots: usize = board
        .lines()
        .filter(|line| !line.contains("+ cell"))
        .map(|line| line.matches('+').count())
        .sum();
    assert!(spots > 0);
    assert_eq!(
        picture_texts(&picture).iter().filter(|t| *t == "+").count(),
        spots
    );
    insta::assert_snapshot!("board_picture_draft_in_progress", picture);
}

/// Every position of random games, for every viewer: the picture tells the lines
/// under the ASCII board word for word, draws a highway (its owner's letter) on
/// every cell that has one and a badge on every stack, and marks the last move.
#[test]
fn the_picture_tells_what_the_ascii_board_tells() {
    let r = rules();
    let mut chance = DrawStream::for_testing(41);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    let mut last_move = None;
    for turn in 0..40u64 {
        for viewer in [Viewer::Public, Viewer::Player(0), Viewer::Player(1)] {
            let context = BoardContext {
                viewer,
                names: &names(),
                turn,
                last_move: last_move.clone(),
            };
            let board = r.board(&s, &context);
            let picture = r.board_svg(&s, &context);
            let texts = picture_texts(&picture);
            let footer = board
                .lines()
                .skip_while(|line| !line.trim_start().starts_with("1 "))
                .skip(1)
                .skip_while(|line| !line.trim_start().starts_with("1 "))
                .skip(1)
                .filter(|line| !line.trim().is_empty());
            for line in footer {
                assert!(texts.iter().any(|t| t == line), "{line:?} not in {texts:?}");
            }
            let highways = s.cells.iter().filter(|c| c.highway.is_some()).count();
            let letters = texts.iter().filter(|t| *t == "A" || *t == "B").count();
            // Row letters A and B stand on both sides of the board besides.
            assert_eq!(letters, highways + 4, "turn {turn}");
            let stacks = s.cells.iter().filter(|c| !c.row.is_empty()).count();
            let badges = texts
                .iter()
                .filter(|t| {
                    t.len() >= 2
                        && t.ends_with(['A', 'B'])
                        && t[..t.len() - 1].parse::<u32>().is_ok()
                })
                .count();
            assert_eq!(badges, stacks, "turn {turn}");
            assert_eq!(
                picture.contains("stroke-dasharray"),
                board.contains("(*)"),
                "turn {turn}"
            );
        }
        if s.over {
            break;
        }
        let seat = s.to_move as usize;
        let mv = r.sample_move(&s, seat, &mut chance).unwrap();
        let text = r.move_text(&mv);
        s = r.apply(&s, seat, &mv, &mut chance).unwrap();
        last_move = Some(pbem::engine::LastMove {
            seat,
            text: Some(text),
        });
    }
}
