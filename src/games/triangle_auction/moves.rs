//! The move language: what players write, read forgivingly, and its canonical text.
//!
//! - `card 3` (also `card3`, `choose 3`, `choose card 3`): the card chosen face down.
//! - `bid 2 on A, 1 on C` (also `2 on A`, `A 2`, `2 on A and 1 on C`, `bid 2 on A 1
//!   on C`; a tile also by its colours, `RG-` or `red-green`, where one tile of the
//!   offer has them): the chits placed on tiles of the offer.
//! - `pass`.
//! - `place A at C5 r1; place D at C4 r0; discard F` (also `place A C5 1`,
//!   `A at C5 rotation 1`; a missing rotation is r0): tiles won, each named once,
//!   placed in order; the record keeps them in one order (T18,
//!   `Rules::as_recorded`).

use crate::engine::rules::RuleError;
use crate::grid::triangle::{parse_row_name, row_name, Cell};

/// One player's whole turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    /// The card chosen face down.
    Card(u8),
    /// Chits on tiles: (offer index, chits), by offer index.
    Bid(Vec<(u8, u8)>),
    Pass,
    /// Tiles won, placed or discarded in this order.
    Place(Vec<Step>),
}

/// One tile of a placing turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Place { tile: u8, cell: Cell, rotation: u8 },
    Discard { tile: u8 },
}

impl Step {
    /// The offer tile the step places or discards.
    pub fn tile(self) -> u8 {
        match self {
            Step::Place { tile, .. } | Step::Discard { tile } => tile,
        }
    }
}

/// An offer tile's letter: A for index 0.
pub fn letter(index: u8) -> char {
    char::from(b'A' + index)
}

fn refused(problem: String, accepted: &str) -> RuleError {
    RuleError::new(problem, accepted)
}

/// What the tiles a move may name are called: the offer's letters, and each tile's
/// colours as a player may write them instead (its code as shown or turned, `RG-`,
/// or its colours' names clockwise, `red-green`).
#[derive(Debug, Clone, Default)]
pub struct TileWords {
    /// Per offer tile (by index), the upper-case codes it may be called by: empty for a
    /// tile only its letter names (one of another player, or a letter alone).
    pub codes: Vec<Vec<String>>,
    /// Each colour's name, lower case, and its letter.
    pub colours: Vec<(String, char)>,
}

impl TileWords {
    /// Letters only, for `offer` tiles.
    pub fn letters(offer: usize) -> TileWords {
        TileWords {
            codes: vec![Vec::new(); offer],
            colours: Vec::new(),
        }
    }

    fn offer(&self) -> usize {
        self.codes.len()
    }

    /// The last letter of the offer, for refusals.
    fn last(&self) -> char {
        letter(u8::try_from(self.offer().saturating_sub(1)).unwrap_or(0))
    }

    /// A word of colours (`RG-`, `rgb`, `red-green`, `red/green/blue`) as a tile code,
    /// upper case, with `-` for a missing road.
    fn code_of(&self, word: &str) -> Option<String> {
        let upper = word.to_ascii_uppercase();
        let letters: Vec<char> = self.colours.iter().map(|(_, l)| *l).collect();
        if upper.chars().count() == 3 && upper.chars().all(|c| c == '-' || letters.contains(&c)) {
            return Some(upper);
        }
        let lower = word.to_ascii_lowercase();
        let named: Option<Vec<char>> = lower
            .split(['-', '/', '+'])
            .map(|name| {
                self.colours
                    .iter()
                    .find(|(colour, _)| colour == name)
                    .map(|(_, l)| *l)
            })
            .collect();
        match named {
            Some(mut code) if (2..=3).contains(&code.len()) => {
                if code.len() == 2 {
                    code.push('-');
                }
                Some(code.into_iter().collect())
            }
            _ => None,
        }
    }

    /// The offer tiles a word names: its letter, or its colours.
    fn lookup(&self, word: &str) -> Vec<u8> {
        let mut chars = word.chars();
        if let (Some(first), None) = (chars.next(), chars.next()) {
            let first = first.to_ascii_uppercase();
            if !first.is_ascii_uppercase() {
                return Vec::new();
            }
            return u8::try_from(u32::from(first) - u32::from('A'))
                .ok()
                .filter(|&index| usize::from(index) < self.offer())
                .into_iter()
                .collect();
        }
        let Some(code) = self.code_of(word) else {
            return Vec::new();
        };
        (0..self.offer())
            .filter(|&i| self.codes[i].contains(&code))
            .filter_map(|i| u8::try_from(i).ok())
            .collect()
    }
}

/// A part of a message: as the player wrote it (for refusals), and lower case.
struct Part {
    written: String,
    lower: String,
}

/// Splits a message into its parts: `;` and new lines.
fn parts(text: &str) -> Vec<Part> {
    text.split([';', '\n'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| Part {
            written: part.to_string(),
            lower: part.to_ascii_lowercase(),
        })
        .collect()
}

/// Reads a card choice.
pub fn parse_card(text: &str, highest: u8) -> Result<u8, RuleError> {
    let accepted = format!("a card from 0 to {highest}, e.g. `card 2`: how many of your chits go to the improvement track this round");
    let joined: Vec<String> = parts(text).into_iter().map(|p| p.lower).collect();
    // `card3` is `card 3`.
    let spaced = joined.join(" ").replace("card", " card ");
    let words: Vec<&str> = spaced
        .split_whitespace()
        .filter(|w| !matches!(*w, "card" | "choose" | "play" | "pick"))
        .collect();
    match words.as_slice() {
        [number] => match number.parse::<u8>() {
            Ok(card) if card <= highest => Ok(card),
            _ => Err(refused(
                format!(
                    "`{}` is not a card: the cards are 0 to {highest}",
                    text.trim()
                ),
                &accepted,
            )),
        },
        _ => Err(refused(
            format!("`{}` is not a card choice", text.trim()),
            &accepted,
        )),
    }
}

/// Reads a bid or a pass, for the offer `words` names.
pub fn parse_bid(text: &str, words: &TileWords) -> Result<Move, RuleError> {
    let last = words.last();
    let accepted = format!(
        "`bid N on X` for tiles A to {last}, several separated by commas (e.g. `bid 2 on A, 1 on C`), or `pass`"
    );
    let all: Vec<Part> = parts(text);
    let joined: String = all
        .iter()
        .map(|p| p.lower.as_str())
        .collect::<Vec<_>>()
        .join(",");
    if joined
        .split([',', ' '])
        .all(|w| w.is_empty() || w == "pass")
        && joined.contains("pass")
    {
        return Ok(Move::Pass);
    }
    let mut bids: Vec<(u8, u8)> = Vec::new();
    // Items: parts split at commas and `and`; an item may hold several bids written
    // one after the other (`bid 2 on A 1 on C`).
    let items: Vec<String> = all
        .iter()
        .flat_map(|part| {
            part.written
                .split(',')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .flat_map(|item| {
            item.split_whitespace()
                .collect::<Vec<_>>()
                .split(|w| w.eq_ignore_ascii_case("and") || *w == "&")
                .map(|ws| ws.join(" "))
                .collect::<Vec<_>>()
        })
        .map(|item| item.trim().to_string())
        .filter(|item| !item.is_empty())
        .collect();
    for item in items {
        let tokens: Vec<&str> = item
            .split_whitespace()
            .filter(|w| {
                !matches!(
                    w.to_ascii_lowercase().as_str(),
                    "bid" | "on" | "chits" | "chit" | "tile"
                )
            })
            .collect();
        if tokens.is_empty() || tokens.len() % 2 == 1 {
            return Err(refused(
                format!("`{item}` is not a bid: each bid is a number of chits and a tile"),
                &accepted,
            ));
        }
        for pair in tokens.chunks(2) {
            let [a, b] = pair else { continue };
            let (tile_word, chits) = match (a.parse::<u8>(), b.parse::<u8>()) {
                (Ok(chits), Err(_)) => (*b, chits),
                (Err(_), Ok(chits)) => (*a, chits),
                _ => {
                    return Err(refused(
                        format!("`{item}` is not a bid: each bid is a number of chits and a tile"),
                        &accepted,
                    ))
                }
            };
            let tile = match words.lookup(tile_word).as_slice() {
                [tile] => *tile,
                [] => {
                    return Err(refused(
                        format!(
                            "`{item}`: there is no tile `{tile_word}` in the offer, A to {last}"
                        ),
                        &accepted,
                    ))
                }
                several => {
                    let names: Vec<String> =
                        several.iter().map(|&t| letter(t).to_string()).collect();
                    return Err(refused(
                        format!(
                            "`{tile_word}` is tiles {} of the offer",
                            names.join(" and ")
                        ),
                        "one of them by its letter",
                    ));
                }
            };
            if chits == 0 {
                return Err(refused(format!("`{item}` bids no chits"), &accepted));
            }
            if bids.iter().any(|(t, _)| *t == tile) {
                return Err(refused(
                    format!("tile {} is bid on twice", letter(tile)),
                    "one amount per tile",
                ));
            }
            bids.push((tile, chits));
        }
    }
    if bids.is_empty() {
        return Err(refused(
            format!("`{}` is not a bid", text.trim()),
            &accepted,
        ));
    }
    bids.sort_unstable();
    Ok(Move::Bid(bids))
}

/// Why the words of one placing step do not read as one, for a refusal.
fn step_problem(words: &[&str], tiles: &TileWords, side: u8) -> String {
    let last_row = row_name(side.saturating_sub(1));
    let mut problems = Vec::new();
    let Some((first, rest)) = words.split_first() else {
        return "it names no tile".into();
    };
    if tiles.lookup(first).is_empty() {
        problems.push(format!(
            "`{first}` is not a tile you won (tiles are A to {})",
            tiles.last()
        ));
    }
    match rest.first() {
        None => problems.push("it names no space: `place X at C5 r1`".into()),
        Some(cell) => {
            if Cell::parse(cell, side).is_none() {
                let letters: String = cell.chars().take_while(char::is_ascii_alphabetic).collect();
                problems.push(match parse_row_name(&letters) {
                    Some(r) if r < side => format!(
                        "`{cell}` is not a space: row {name} runs from {name}1 to {name}{}",
                        2 * u32::from(r) + 1,
                        name = row_name(r)
                    ),
                    _ => format!("`{cell}` is not a space: rows are A to {last_row}, e.g. C5"),
                });
            }
        }
    }
    match rest.get(1..) {
        Some([turn]) if turn_of(turn).is_none() => problems.push(format!(
            "`{turn}` is not a turn: r0, r1 or r2 (steps clockwise)"
        )),
        Some(extra) if extra.len() > 1 => {
            problems.push(format!("`{}` is more than a turn", extra.join(" ")))
        }
        _ => {}
    }
    if problems.is_empty() {
        "it does not read as `place X at C5 r1` or `discard X`".into()
    } else {
        problems.join("; ")
    }
}

/// A turn written `r1`, `1`: 0 to 2.
fn turn_of(word: &str) -> Option<u8> {
    let lower = word.to_ascii_lowercase();
    lower
        .trim_start_matches('r')
        .parse::<u8>()
        .ok()
        .filter(|r| *r < 3)
}

/// Reads a placing turn, for the tiles `tiles` names in an area of `side`.
pub fn parse_place(text: &str, tiles: &TileWords, side: u8) -> Result<Move, RuleError> {
    let accepted = "`place X at C5 r1` (tile, space, turns clockwise 0 to 2) or `discard X` for each tile you won, separated by `;`";
    let mut steps: Vec<Step> = Vec::new();
    for part in parts(text) {
        let words: Vec<&str> = part
            .written
            .split_whitespace()
            .filter(|w| {
                !matches!(
                    w.to_ascii_lowercase().as_str(),
                    "place" | "at" | "on" | "tile" | "rotation" | "rot" | "turn" | "turned"
                )
            })
            .collect();
        // A tile named by its colours is the first copy not yet named in the turn:
        // the copies of a design are the same tile (T18).
        let tile_named = |word: &str| {
            tiles
                .lookup(word)
                .into_iter()
                .find(|&tile| !steps.iter().any(|s| s.tile() == tile))
                .or_else(|| tiles.lookup(word).first().copied())
        };
        let step = match words.as_slice() {
            [discard, x] if discard.eq_ignore_ascii_case("discard") => {
                tile_named(x).map(|tile| Step::Discard { tile })
            }
            [x, cell, rest @ ..] if rest.len() <= 1 => {
                let rotation = match rest {
                    [] => Some(0),
                    [r] => turn_of(r),
                    _ => None,
                };
                match (tile_named(x), Cell::parse(cell, side), rotation) {
                    (Some(tile), Some(cell), Some(rotation)) => Some(Step::Place {
                        tile,
                        cell,
                        rotation,
                    }),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(step) = step else {
            let why = match words.as_slice() {
                [discard, x] if discard.eq_ignore_ascii_case("discard") => format!(
                    "`{x}` is not a tile you won (tiles are A to {})",
                    tiles.last()
                ),
                _ => step_problem(&words, tiles, side),
            };
            return Err(refused(
                format!("`{}` is not a placement: {why}", part.written),
                accepted,
            ));
        };
        // Each tile won is placed or discarded once: a tile named again is refused at
        // once, so a turn holds at most one step per tile of the offer.
        if steps.iter().any(|s: &Step| s.tile() == step.tile()) {
            return Err(refused(
                format!("tile {} is named twice", letter(step.tile())),
                "each tile you won once, placed or discarded",
            ));
        }
        steps.push(step);
    }
    if steps.is_empty() {
        return Err(refused(
            format!("`{}` places nothing", text.trim()),
            accepted,
        ));
    }
    Ok(Move::Place(steps))
}

/// The canonical text of a move.
pub fn canonical(mv: &Move) -> String {
    match mv {
        Move::Card(card) => format!("card {card}"),
        Move::Pass => "pass".to_string(),
        Move::Bid(bids) => {
            let items: Vec<String> = bids
                .iter()
                .map(|(tile, chits)| format!("{chits} on {}", letter(*tile)))
                .collect();
            format!("bid {}", items.join(", "))
        }
        Move::Place(steps) => steps
            .iter()
            .map(|step| match step {
                Step::Place {
                    tile,
                    cell,
                    rotation,
                } => format!("place {} at {} r{rotation}", letter(*tile), cell.name()),
                Step::Discard { tile } => format!("discard {}", letter(*tile)),
            })
            .collect::<Vec<_>>()
            .join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_read_forgivingly_and_written_canonically() {
        assert_eq!(parse_card(" Card 3 ", 5), Ok(3));
        assert_eq!(parse_card("choose 0", 5), Ok(0));
        assert!(parse_card("card 6", 5).is_err());
        let seven = TileWords::letters(7);
        let bid = parse_bid("Bid 2 on c, 1 on A", &seven).expect("a bid");
        assert_eq!(canonical(&bid), "bid 1 on A, 2 on C");
        assert_eq!(parse_bid("A 1; c 2", &seven), Ok(bid.clone()));
        assert_eq!(
            canonical(&parse_bid(&canonical(&bid), &seven).expect("reads back")),
            canonical(&bid)
        );
        assert_eq!(parse_bid(" PASS ", &seven), Ok(Move::Pass));
        assert!(
            parse_bid("bid 2 on H", &seven).is_err(),
            "no tile H among 7"
        );
        assert!(parse_bid("bid 1 on A, 2 on A", &seven).is_err());
        assert!(parse_bid("bid 0 on A", &seven).is_err());
        let place = parse_place("place a at c5 r1\ndiscard B; D C4", &seven, 9).expect("placing");
        assert_eq!(
            canonical(&place),
            "place A at C5 r1; discard B; place D at C4 r0"
        );
        assert_eq!(parse_place(&canonical(&place), &seven, 9), Ok(place));
        assert!(parse_place("place A at Z9", &seven, 9).is_err());
        assert!(parse_place("place A at C5 r3", &seven, 9).is_err());
        let error = parse_place("place A at C5 r1; discard a", &seven, 9).expect_err("A twice");
        assert!(error.problem.contains("tile A is named twice"), "{error}");
    }

    /// Issue 18: what a player plainly means is read; a refusal quotes the move as it
    /// was written and says what in it is wrong.
    #[test]
    fn plain_meanings_are_read_and_refusals_say_why() {
        assert_eq!(parse_card("card3", 5), Ok(3));
        assert_eq!(parse_card("Card5", 5), Ok(5));
        let seven = TileWords::letters(7);
        let both = Ok(Move::Bid(vec![(0, 2), (2, 1)]));
        assert_eq!(parse_bid("2 on A and 1 on C", &seven), both);
        assert_eq!(parse_bid("bid 2 on A 1 on C", &seven), both);
        assert_eq!(parse_bid("bid 2 on A, and 1 on C", &seven), both);
        // Tiles by their colours, where one tile of the offer has them.
        let words = TileWords {
            codes: vec![
                vec!["RG-".into(), "-RG".into(), "G-R".into()],
                vec!["YBP".into(), "BPY".into(), "PYB".into()],
                vec!["RG-".into(), "-RG".into(), "G-R".into()],
            ],
            colours: ["red", "yellow", "green", "blue", "purple"]
                .iter()
                .map(|n| n.to_string())
                .zip("RYGBP".chars())
                .collect(),
        };
        assert_eq!(
            parse_bid("bid 2 on ybp", &words),
            Ok(Move::Bid(vec![(1, 2)]))
        );
        assert_eq!(
            parse_bid("bid 1 on blue-purple-yellow", &words),
            Ok(Move::Bid(vec![(1, 1)]))
        );
        let error = parse_bid("bid 2 on red-green", &words).expect_err("two copies");
        assert!(error.problem.contains("tiles A and C"), "{error}");
        // Placing: a design won twice names the copies in turn.
        let placed = parse_place("place RG- at C5; place red-green at C4 r1", &words, 9);
        assert_eq!(
            placed.map(|mv| canonical(&mv)),
            Ok("place A at C5 r0; place C at C4 r1".to_string())
        );
        // Refusals: the move as written, and why.
        let error = parse_bid("Bid 2 on Q", &seven).expect_err("no tile Q");
        assert!(
            error.problem.contains("`Bid 2 on Q`") && error.problem.contains("no tile `Q`"),
            "{error}"
        );
        let error = parse_place("Place A at A2", &seven, 9).expect_err("no A2");
        assert!(
            error.problem.contains("`Place A at A2` is not a placement")
                && error.problem.contains("row A runs from A1 to A1"),
            "{error}"
        );
        let error = parse_place("place A at C5 r3", &seven, 9).expect_err("r3");
        assert!(
            error.problem.contains("`r3` is not a turn: r0, r1 or r2"),
            "{error}"
        );
        let error = parse_place("place A at Z9", &seven, 9).expect_err("no row Z");
        assert!(error.problem.contains("rows are A to I"), "{error}");
        let error = parse_place("place A", &seven, 9).expect_err("no space");
        assert!(error.problem.contains("names no space"), "{error}");
    }
}
