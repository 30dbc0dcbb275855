//! The move language: what players write, read forgivingly, and its canonical text.
//!
//! - `card 3` (also `choose 3`, `choose card 3`): the card chosen face down.
//! - `bid 2 on A, 1 on C` (also `2 on A`, `A 2`; several tiles in one message): the
//!   chits placed on tiles of the offer.
//! - `pass`.
//! - `place A at C5 r1; place D at C4 r0; discard F` (also `place A C5 1`,
//!   `A at C5 rotation 1`; a missing rotation is r0): tiles won, each named once,
//!   placed in order; the record keeps them in one order (T18,
//!   `Rules::as_recorded`).

use crate::engine::rules::RuleError;
use crate::grid::triangle::Cell;

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

/// The offer index a letter names, if it names one of `offer` tiles.
fn tile_of(word: &str, offer: usize) -> Option<u8> {
    let mut chars = word.chars();
    let first = chars.next()?.to_ascii_uppercase();
    if chars.next().is_some() || !first.is_ascii_uppercase() {
        return None;
    }
    let index = u8::try_from(u32::from(first) - u32::from('A')).ok()?;
    (usize::from(index) < offer).then_some(index)
}

/// Splits a message into its parts: `;`, new lines and (inside a bid) commas.
fn parts(text: &str) -> Vec<String> {
    text.split([';', '\n'])
        .map(|part| part.trim().to_ascii_lowercase())
        .filter(|part| !part.is_empty())
        .collect()
}

/// Reads a card choice.
pub fn parse_card(text: &str, highest: u8) -> Result<u8, RuleError> {
    let accepted = format!("a card from 0 to {highest}, e.g. `card 2`: how many of your chits go to the improvement track this round");
    let words: Vec<String> = parts(text)
        .join(" ")
        .split_whitespace()
        .filter(|w| !matches!(*w, "card" | "choose" | "play" | "pick"))
        .map(str::to_string)
        .collect();
    match words.as_slice() {
        [number] => match number.parse::<u8>() {
            Ok(card) if card <= highest => Ok(card),
            _ => Err(refused(
                format!("`{}` is not a card", text.trim()),
                &accepted,
            )),
        },
        _ => Err(refused(
            format!("`{}` is not a card choice", text.trim()),
            &accepted,
        )),
    }
}

/// Reads a bid or a pass, for an offer of `offer` tiles.
pub fn parse_bid(text: &str, offer: usize) -> Result<Move, RuleError> {
    let last = letter(u8::try_from(offer.saturating_sub(1)).unwrap_or(0));
    let accepted = format!(
        "`bid N on X` for tiles A to {last}, several separated by commas (e.g. `bid 2 on A, 1 on C`), or `pass`"
    );
    let joined = parts(text).join(",");
    if joined
        .split([',', ' '])
        .all(|w| w.is_empty() || w == "pass")
        && joined.contains("pass")
    {
        return Ok(Move::Pass);
    }
    let mut bids: Vec<(u8, u8)> = Vec::new();
    for item in joined.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let words: Vec<&str> = item
            .split_whitespace()
            .filter(|w| !matches!(*w, "bid" | "on" | "chits" | "chit" | "tile"))
            .collect();
        let (tile, chits) = match words.as_slice() {
            [a, b] => match (tile_of(a, offer), tile_of(b, offer), a.parse(), b.parse()) {
                (_, Some(tile), Ok(chits), _) | (Some(tile), _, _, Ok(chits)) => (tile, chits),
                _ => return Err(refused(format!("`{item}` is not a bid"), &accepted)),
            },
            _ => return Err(refused(format!("`{item}` is not a bid"), &accepted)),
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
    if bids.is_empty() {
        return Err(refused(
            format!("`{}` is not a bid", text.trim()),
            &accepted,
        ));
    }
    bids.sort_unstable();
    Ok(Move::Bid(bids))
}

/// Reads a placing turn, for an offer of `offer` tiles in an area of `side`.
pub fn parse_place(text: &str, offer: usize, side: u8) -> Result<Move, RuleError> {
    let accepted = "`place X at C5 r1` (tile, space, turns clockwise 0 to 2) or `discard X` for each tile you won, separated by `;`";
    let mut steps = Vec::new();
    for part in parts(text) {
        let words: Vec<&str> = part
            .split_whitespace()
            .filter(|w| {
                !matches!(
                    *w,
                    "place" | "at" | "tile" | "rotation" | "rot" | "turn" | "turned"
                )
            })
            .collect();
        let step = match words.as_slice() {
            ["discard", x] => tile_of(x, offer).map(|tile| Step::Discard { tile }),
            [x, cell, rest @ ..] if rest.len() <= 1 => {
                let rotation = match rest {
                    [] => Some(0),
                    [r] => r
                        .trim_start_matches('r')
                        .parse::<u8>()
                        .ok()
                        .filter(|r| *r < 3),
                    _ => None,
                };
                match (tile_of(x, offer), Cell::parse(cell, side), rotation) {
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
            return Err(refused(format!("`{part}` is not a placement"), accepted));
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
        let bid = parse_bid("Bid 2 on c, 1 on A", 7).expect("a bid");
        assert_eq!(canonical(&bid), "bid 1 on A, 2 on C");
        assert_eq!(parse_bid("A 1; c 2", 7), Ok(bid.clone()));
        assert_eq!(
            canonical(&parse_bid(&canonical(&bid), 7).expect("reads back")),
            canonical(&bid)
        );
        assert_eq!(parse_bid(" PASS ", 7), Ok(Move::Pass));
        assert!(parse_bid("bid 2 on H", 7).is_err(), "no tile H among 7");
        assert!(parse_bid("bid 1 on A, 2 on A", 7).is_err());
        assert!(parse_bid("bid 0 on A", 7).is_err());
        let place = parse_place("place a at c5 r1\ndiscard B; D C4", 7, 9).expect("placing");
        assert_eq!(
            canonical(&place),
            "place A at C5 r1; discard B; place D at C4 r0"
        );
        assert_eq!(parse_place(&canonical(&place), 7, 9), Ok(place));
        assert!(parse_place("place A at Z9", 7, 9).is_err());
        assert!(parse_place("place A at C5 r3", 7, 9).is_err());
        let error = parse_place("place A at C5 r1; discard a", 7, 9).expect_err("A twice");
        assert!(error.problem.contains("tile A is named twice"), "{error}");
    }
}
