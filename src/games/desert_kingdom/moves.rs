//! The move language, squares A1..H8:
//!
//! - `discover C4`: draw a tile from the bag for an empty square;
//! - `road D5`: a road on a desert or grass square;
//! - `activate C3 to C4` (also `activate C3 C4`), optionally `prefer oasis, city`:
//!   explore from a face-up tile into an empty square next to it; the preference
//!   list (at most 8 tiles) chooses among the tiles drawn, saving the second message,
//!   and is recorded with only the entries that can decide (D19,
//!   `DesertKingdom::as_recorded`);
//! - `city E5`: play the city tile of the setup;
//! - `take grass` (also `grass`, or `take grass for C4` naming the activation's
//!   square): the tile chosen of those an activation drew;
//! - `pay` (also `turn in`) or `keep`: a band of barbarians at your city, you holding
//!   a treasure, turn one in (the band occupies the city) or keep it (the city falls),
//!   option `treasures=ask` (D13);
//! - `resign`.

use super::board::Square;
use super::state::{Kind, Phase, State};
use crate::engine::rules::RuleError;

/// One player's whole turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    Discover(Square),
    Road(Square),
    Activate {
        from: Square,
        to: Square,
        prefer: Vec<Kind>,
    },
    City(Square),
    /// The tile kept of those an activation drew for `at` (the square is the phase's:
    /// the text may name it, the canonical text leaves it out).
    Take {
        kind: Kind,
        at: Square,
    },
    /// A city's owner turns in a treasure to the band at it (`pay`), or keeps it and
    /// loses the city (`keep`).
    Placate {
        pay: bool,
    },
    Resign,
}

fn square(word: &str, accepted: &str) -> Result<Square, RuleError> {
    Square::parse(word)
        .ok_or_else(|| RuleError::new(format!("`{word}` is not a square A1 to H8"), accepted))
}

const KINDS: &str = "oasis, city, mine, grass, desert, mountain, treasure or barbarian";

const TURN: &str = "`discover C4`, `road D5`, `activate C3 to C4` (optionally `prefer oasis, city`), `city E5` or `resign`";

/// Reads a move for the phase `state` is in.
pub fn parse(state: &State, text: &str) -> Result<Move, RuleError> {
    let lower = text.trim().to_ascii_lowercase().replace([';', '\n'], " ");
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| {
            !w.is_empty() && !matches!(*w, "to" | "into" | "at" | "on" | "for" | "the" | "tile")
        })
        .collect();
    if words == ["resign"] {
        return Ok(Move::Resign);
    }
    match &state.phase {
        Phase::Choosing {
            square: for_square, ..
        } => {
            let (word, named) = match words.as_slice() {
                ["take" | "choose" | "keep", word] | [word] => (*word, None),
                ["take" | "choose" | "keep", word, at] | [word, at] => (*word, Some(*at)),
                _ => ("", None),
            };
            let kind = Kind::parse(word).ok_or_else(|| {
                // The example is one of the tiles drawn (the public state, which holds
                // none, gives no example).
                let accepted = match state.drawn.first() {
                    Some(first) => format!(
                        "`take` and one of the tiles you drew ({}), e.g. `take {}`",
                        state
                            .drawn
                            .iter()
                            .map(|k| k.name())
                            .collect::<Vec<_>>()
                            .join(", "),
                        first.name()
                    ),
                    None => "`take` and one of the tiles you drew".to_string(),
                };
                RuleError::new(format!("`{}` is not a tile to take", text.trim()), accepted)
            })?;
            if let Some(named) = named {
                let accepted = format!(
                    "`take {}` (the tiles are for {})",
                    kind.name(),
                    for_square.name()
                );
                if square(named, &accepted)? != *for_square {
                    return Err(RuleError::new(
                        format!(
                            "the tiles you drew are for {}, not {}",
                            for_square.name(),
                            named.to_ascii_uppercase()
                        ),
                        accepted,
                    ));
                }
            }
            Ok(Move::Take {
                kind,
                at: *for_square,
            })
        }
        Phase::Turn { .. } => match words.as_slice() {
            ["discover", at] => Ok(Move::Discover(square(at, TURN)?)),
            ["road" | "build", at] => Ok(Move::Road(square(at, TURN)?)),
            ["city", at] => Ok(Move::City(square(at, TURN)?)),
            ["activate", from, to, rest @ ..] => {
                let prefer = match rest {
                    [] => Vec::new(),
                    // Longer than the kinds of tile, a list can only repeat itself: a
                    // bound, so a move cannot carry text without end (D19).
                    ["prefer", kinds @ ..] if kinds.len() > Kind::ALL.len() => {
                        return Err(RuleError::new(
                            format!("the preference list names {} tiles", kinds.len()),
                            format!(
                                "at most {} tiles, each once, the one you want most first, from {}; e.g. `activate C3 to C4 prefer oasis, city`",
                                Kind::ALL.len(),
                                KINDS
                            ),
                        ))
                    }
                    ["prefer", kinds @ ..] if !kinds.is_empty() => kinds
                        .iter()
                        .map(|k| {
                            Kind::parse(k).ok_or_else(|| {
                                RuleError::new(
                                    format!("`{k}` is not a tile"),
                                    KINDS,
                                )
                            })
                        })
                        .collect::<Result<_, _>>()?,
                    _ => {
                        return Err(RuleError::new(
                            format!("`{}` is not an activation", text.trim()),
                            "`activate C3 to C4`, optionally followed by `prefer oasis, city`",
                        ))
                    }
                };
                Ok(Move::Activate {
                    from: square(from, TURN)?,
                    to: square(to, TURN)?,
                    prefer,
                })
            }
            // `take grass` (or a tile alone) answers an activation that left a choice.
            ["take" | "choose" | "keep", ..] | [_] if is_choice(&words) => Err(RuleError::new(
                format!(
                    "`{}`: you have no drawn tiles to choose from (`take` answers an activation that left you a choice)",
                    text.trim()
                ),
                TURN,
            )),
            _ => Err(RuleError::new(
                format!("`{}` is not a move", text.trim()),
                TURN,
            )),
        },
        Phase::Defending { city, .. } => match words.as_slice() {
            ["pay"] | ["turn", "in"] | ["turn", "in", "treasure" | "a"] | ["turn", "in", "a", "treasure"] => {
                Ok(Move::Placate { pay: true })
            }
            ["keep"] | ["keep", "treasure"] => Ok(Move::Placate { pay: false }),
            _ => Err(RuleError::new(
                format!(
                    "`{}` is not an answer to the barbarians at {}",
                    text.trim(),
                    city.name()
                ),
                format!(
                    "`pay` (turn in a treasure: the band occupies {}, which stays yours) or `keep` (keep the treasure: {} falls)",
                    city.name(),
                    city.name()
                ),
            )),
        },
        Phase::Over => Err(RuleError::new("the game is over", "no more moves")),
    }
}

/// Whether `words` read as the choice of a drawn tile: `take grass`, `grass`.
fn is_choice(words: &[&str]) -> bool {
    match words {
        ["take" | "choose" | "keep", ..] => true,
        // `city` alone is more likely the city tile without its square.
        [word] => *word != "city" && Kind::parse(word).is_some(),
        _ => false,
    }
}

/// The squares a move's text names, in order (`activate C3 to C4`: C3, C4): what a
/// board marks for the last move, whatever phase the game is in now.
pub fn squares_named(text: &str) -> Vec<Square> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter_map(Square::parse)
        .collect()
}

/// The canonical text of a move.
pub fn canonical(mv: &Move) -> String {
    match mv {
        Move::Discover(at) => format!("discover {}", at.name()),
        Move::Road(at) => format!("road {}", at.name()),
        Move::City(at) => format!("city {}", at.name()),
        Move::Activate { from, to, prefer } if prefer.is_empty() => {
            format!("activate {} to {}", from.name(), to.name())
        }
        Move::Activate { from, to, prefer } => format!(
            "activate {} to {} prefer {}",
            from.name(),
            to.name(),
            prefer
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        // The square is left out: a move's text keys its draws (docs/FAIRNESS.md), and
        // recorded games that say `take grass` must draw as they did.
        Move::Take { kind, .. } => format!("take {}", kind.name()),
        Move::Placate { pay: true } => "pay".to_string(),
        Move::Placate { pay: false } => "keep".to_string(),
        Move::Resign => "resign".to_string(),
    }
}
