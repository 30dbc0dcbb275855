//! The moves as a person reads them (`Rules::moves_text`): short, grouped by the
//! phase of the round (card, bid, place) with what each costs, narrowed to one tile
//! or one space on request. The JSON list (`legal`) stays complete; this is what a
//! player reads in mail.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::moves::{canonical, letter, Move, Step};
use super::state::{Phase, State};
use super::text::{and_list, plural, rank_name};
use super::TriangleAuction;
use crate::engine::rules::{MoveFilter, Rules, Seat};
use crate::grid::canvas::wrap_words as wrapped;
use crate::grid::triangle::{rotated, row_name, Cell, Outlets};

/// How many placements the list of one tile shows one per line.
const PLACEMENTS_SHOWN: usize = 16;

/// What a filter word names, in this game's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Wanted {
    /// A tile of this round's offer, by its letter.
    Offer(u8),
    /// A space of the player's area.
    Space(Cell),
    /// A tile by its colours ("RG-"), as the offer shows it or turned.
    Code(String),
    /// A card, by its number.
    Card(u8),
}

/// What the filter asks for, read.
#[derive(Debug, Default)]
struct Wish {
    space: Option<Cell>,
    /// Offer tiles the filter names (by letter or by colours); None for any.
    tiles: Option<Vec<u8>>,
    card: Option<u8>,
}

impl TriangleAuction {
    fn read_word(&self, word: &str, state: &State) -> Option<Wanted> {
        let word = word.trim();
        let upper = word.to_ascii_uppercase();
        if let [byte @ b'A'..=b'Z'] = upper.as_bytes() {
            let index = byte - b'A';
            return (usize::from(index) < state.offer.len()).then_some(Wanted::Offer(index));
        }
        if let Some(cell) = Cell::parse(word, self.side) {
            return Some(Wanted::Space(cell));
        }
        if let Ok(card) = word.parse::<u8>() {
            return (card <= self.highest_card).then_some(Wanted::Card(card));
        }
        let is_code = upper.chars().count() == 3
            && upper.chars().all(|c| c == '-' || self.letters.contains(&c));
        is_code.then_some(Wanted::Code(upper))
    }

    /// Whether an offer tile is written `code`, as shown or turned.
    fn has_code(&self, tile: u8, code: &str) -> bool {
        let Some(design) = self.tiles.get(usize::from(tile)) else {
            return false;
        };
        (0..3).any(|turn| {
            let turned = super::tiles::Tile {
                outlets: rotated(design.outlets, turn),
            };
            turned.code(&self.letters) == code
        })
    }

    /// What the spaces of the area and the tiles are called, for a filter not read.
    fn what_is_accepted(&self, state: &State) -> String {
        let last_row = row_name(self.side - 1);
        let last = letter(u8::try_from(state.offer.len().max(1) - 1).unwrap_or(0));
        format!(
            "A space is a row letter and a number, A1 to {last_row}{}; a tile is\n\
             a letter of this round's offer, A to {last}, or its colours, like RG-;\n\
             a card is its number, 0 to {}.\n",
            2 * u32::from(self.side) - 1,
            self.highest_card
        )
    }

    /// `Rules::moves_text`.
    pub(crate) fn moves_listing(
        &self,
        state: &State,
        seat: Seat,
        filter: &MoveFilter,
        names: &[String],
    ) -> String {
        if state.phase == Phase::Over {
            return "The game is over: there are no moves.\n".into();
        }
        if !self.to_move(state).contains(&seat) {
            return "It is not your turn: there are no moves for you now.\n".into();
        }
        let mut wish = Wish::default();
        for word in [&filter.at, &filter.tile].into_iter().flatten() {
            let tiles = |matching: Vec<u8>| Some(matching);
            match self.read_word(word, state) {
                Some(Wanted::Space(cell)) => wish.space = Some(cell),
                Some(Wanted::Card(card)) => wish.card = Some(card),
                Some(Wanted::Offer(index)) => wish.tiles = tiles(vec![index]),
                Some(Wanted::Code(code)) => {
                    wish.tiles = tiles(
                        (0..state.offer.len())
                            .filter_map(|i| u8::try_from(i).ok())
                            .filter(|&i| self.has_code(state.offer[usize::from(i)].tile, &code))
                            .collect(),
                    );
                }
                None => {
                    let mut out = format!(
                        "`{}` is neither a space of your area, a tile of the offer nor a card.\n",
                        word.trim()
                    );
                    out.push_str(&self.what_is_accepted(state));
                    return out;
                }
            }
        }
        match state.phase {
            Phase::Cards => self.card_listing(state, seat, &wish),
            Phase::Bidding { .. } => self.bid_listing(state, seat, &wish, names),
            Phase::Placing => self.place_listing(state, seat, &wish),
            Phase::Over => String::new(),
        }
    }

    /// The cards, each with where it takes the player on the improvement track and
    /// the chits left to bid with.
    fn card_listing(&self, state: &State, seat: Seat, wish: &Wish) -> String {
        let now = state.players[seat].improvement;
        let rank = |space: u8| {
            4 - self
                .improvement_steps
                .iter()
                .filter(|&&step| space >= step)
                .count()
                .min(4)
        };
        let mut out = String::new();
        if wish.space.is_some() || wish.tiles.is_some() {
            out.push_str(
                "Now every player chooses a card: tiles are bid on and spaces filled\n\
                 later in the round. Your cards:\n",
            );
        } else {
            let _ = writeln!(
                out,
                "Choose a card, face down: its chits go up the improvement track when it\n\
                 opens on your first turn in the auction; you bid with the rest of {}.\n\
                 You are on {now}: your {} colour scores.",
                self.chits_in_hand,
                rank_name(rank(now))
            );
        }
        for card in 0..=self.highest_card {
            if wish.card.is_some_and(|wanted| wanted != card) {
                continue;
            }
            let to = now.saturating_add(card).min(self.improvement_track);
            let scores = if rank(to) == rank(now) {
                String::new()
            } else {
                format!(" (your {} colour scores)", rank_name(rank(to)))
            };
            let _ = writeln!(
                out,
                "  `card {card}`  improvement {now} -> {to}{scores}, {} to bid",
                plural(
                    usize::from(self.chits_in_hand.saturating_sub(card)),
                    "chit",
                    "chits"
                )
            );
        }
        let offer: Vec<String> = (0..state.offer.len())
            .filter_map(|i| u8::try_from(i).ok())
            .map(|i| self.offer_tile(&state.offer, i))
            .map(|t| t.replace(" (", " ").replace(')', ""))
            .collect();
        out.push_str(&wrapped("On offer this round:", &offer, 2));
        out
    }

    /// Every tile of the offer with what claiming it takes and where it would fit,
    /// or, for one tile, every bid on it.
    fn bid_listing(&self, state: &State, seat: Seat, wish: &Wish, names: &[String]) -> String {
        let player = &state.players[seat];
        let hand = self.hand_to_bid(state, seat);
        let area = self.area_map(&player.area);
        let mut out = String::new();
        match (player.revealed, player.card) {
            (None, Some(card)) => {
                let _ = writeln!(
                    out,
                    "You bid with {}: your card {card} opens with this turn.",
                    plural(usize::from(hand), "chit", "chits")
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "You bid with {}.",
                    plural(usize::from(hand), "chit", "chits")
                );
            }
        }
        if wish.card.is_some() {
            out.push_str("The cards are chosen for this round: now the auction.\n");
        }
        let shown: Vec<usize> = (0..state.offer.len())
            .filter(|&i| {
                wish.tiles
                    .as_ref()
                    .is_none_or(|tiles| tiles.iter().any(|&t| usize::from(t) == i))
            })
            .collect();
        if shown.is_empty() {
            out.push_str("No tile of the offer has those colours.\n");
            out.push_str(&self.narrow_bids(state, seat));
            return out;
        }
        if wish.tiles.is_none() && wish.space.is_none() {
            out.push_str(
                "Bid on one tile or several in one message, e.g. `bid 2 on A, 1 on C`:\n\
                 more chits than are on a tile outbid them; never on your own.\n",
            );
        }
        let _ = writeln!(out, "  Tile   On it     To claim  Fits your area");
        let mut claims = 0;
        for index in shown {
            let slot = &state.offer[index];
            let Ok(tile) = u8::try_from(index) else {
                continue;
            };
            let holder = match slot.bid {
                None => "free".to_string(),
                Some(bid) if usize::from(bid.seat) == seat => format!("yours: {}", bid.chits),
                Some(bid) => format!(
                    "{}: {}",
                    names.get(usize::from(bid.seat)).map_or("?", String::as_str),
                    bid.chits
                ),
            };
            let cost = self.claim_cost(state, seat, index);
            let claim = match cost {
                None => "-".to_string(),
                Some(chits) if chits > hand => format!("{chits}: short"),
                Some(chits) => {
                    claims += 1;
                    plural(usize::from(chits), "chit", "chits")
                }
            };
            let fits = match wish.space {
                Some(cell) => {
                    let turns = self.turns_at(&area, slot.tile, cell);
                    if turns.is_empty() {
                        format!("not at {}", cell.name())
                    } else {
                        format!("at {} {}", cell.name(), turns.join(" "))
                    }
                }
                None => self.fits_text(&area, slot.tile),
            };
            let _ = writeln!(
                out,
                "  {} {}  {holder:<9} {claim:<9} {fits}",
                letter(tile),
                self.tile_code(slot.tile)
            );
            if wish.tiles.is_some() {
                if let Some(from) = cost.filter(|&c| c <= hand) {
                    let id = letter(tile);
                    let bids = if from == hand {
                        format!("`bid {from} on {id}`")
                    } else {
                        format!("`bid {from} on {id}` to `bid {hand} on {id}`")
                    };
                    let _ = writeln!(out, "    bids: {bids}");
                }
                if wish.space.is_none() && !area.is_empty() {
                    let spaces = self.spaces_text(&area, slot.tile);
                    if !spaces.is_empty() {
                        out.push_str(&wrapped("    fits at:", &spaces, 4));
                    }
                }
            }
        }
        if claims == 0 {
            out.push_str("You can claim none of these now.\n");
        }
        if self.may_pass(state, seat, hand) {
            out.push_str("Or `pass`.\n");
        } else {
            out.push_str("You can claim a tile, so you bid: passing is not allowed now.\n");
        }
        if wish.tiles.is_none() {
            out.push_str(&self.narrow_bids(state, seat));
        }
        out
    }

    fn narrow_bids(&self, state: &State, seat: Seat) -> String {
        let tile = (0..state.offer.len())
            .find(|&i| self.claim_cost(state, seat, i).is_some())
            .and_then(|i| u8::try_from(i).ok())
            .unwrap_or(0);
        format!(
            "Narrow: `moves {}` (one tile: every bid, every space it fits).\n",
            letter(tile)
        )
    }

    /// Where a tile fits in an area, in a few words.
    fn fits_text(&self, area: &BTreeMap<Cell, Outlets>, tile: u8) -> String {
        if area.is_empty() {
            return "any space: your first tile".to_string();
        }
        let mut spaces: Vec<Cell> = self
            .placements(area, tile)
            .into_iter()
            .map(|(cell, _)| cell)
            .collect();
        spaces.dedup();
        match spaces.len() {
            0 => "nowhere now".to_string(),
            n => format!("at {}", plural(n, "space", "spaces")),
        }
    }

    /// The rotations of `tile` that fit on `cell`, as `r0`, `r2`.
    fn turns_at(&self, area: &BTreeMap<Cell, Outlets>, tile: u8, cell: Cell) -> Vec<String> {
        (0..3u8)
            .filter(|&rotation| self.fits(area, tile, cell, rotation))
            .map(|rotation| format!("r{rotation}"))
            .collect()
    }

    /// Every space a tile fits, with its rotations: "G10 r0 r2,".
    fn spaces_text(&self, area: &BTreeMap<Cell, Outlets>, tile: u8) -> Vec<String> {
        let mut by_space: Vec<(Cell, Vec<u8>)> = Vec::new();
        for (cell, rotation) in self.placements(area, tile) {
            match by_space.last_mut() {
                Some((at, turns)) if *at == cell => turns.push(rotation),
                _ => by_space.push((cell, vec![rotation])),
            }
        }
        let count = by_space.len();
        by_space
            .iter()
            .enumerate()
            .map(|(i, (cell, turns))| {
                let turns: Vec<String> = turns.iter().map(|r| format!("r{r}")).collect();
                let comma = if i + 1 < count { "," } else { "" };
                format!("{} {}{comma}", cell.name(), turns.join(" "))
            })
            .collect()
    }

    /// The outlets of `tile` turned `rotation`, by cell edge.
    fn turned(&self, tile: u8, rotation: u8) -> Outlets {
        rotated(
            self.tiles
                .get(usize::from(tile))
                .map_or([None; 3], |t| t.outlets),
            rotation,
        )
    }

    /// The tiles won still to place, each with the spaces it fits; or, narrowed, each
    /// placement at one space or of one tile with the text to send.
    fn place_listing(&self, state: &State, seat: Seat, wish: &Wish) -> String {
        let player = &state.players[seat];
        let area = self.area_map(&player.area);
        let mine: Vec<String> = player
            .won
            .iter()
            .map(|&w| self.offer_tile(&state.offer, w))
            .collect();
        let mut out = String::new();
        let won: Vec<u8> = match &wish.tiles {
            None => player.won.clone(),
            Some(tiles) => {
                let wanted: Vec<u8> = player
                    .won
                    .iter()
                    .copied()
                    .filter(|w| tiles.contains(w))
                    .collect();
                if wanted.is_empty() {
                    let words: Vec<String> = format!("{}.", and_list(&mine))
                        .split(' ')
                        .map(str::to_string)
                        .collect();
                    out.push_str(&wrapped(
                        "That is not a tile you won and still hold; yours to place:",
                        &words,
                        2,
                    ));
                    out.push_str(&self.narrow_places(state, seat));
                    return out;
                }
                wanted
            }
        };
        if wish.tiles.is_none() && wish.space.is_none() {
            let _ = writeln!(out, "To place: {}.", and_list(&mine));
            out.push_str(if self.dead_ends {
                "Place each where one of its roads meets a road of its colour and every\n\
                 road that meets another meets one of its colour.\n"
            } else {
                "Place each where one of its roads meets a road of its colour and every\n\
                 outlet meets one of its colour.\n"
            });
            out.push_str(if self.discards_in_any_order {
                "Discard only a tile that fits nowhere, even after your other tiles.\n"
            } else {
                "Discard only a tile that fits nowhere.\n"
            });
            if let Some(example) = self.example(state, seat) {
                let _ = writeln!(
                    out,
                    "Several in one message, in order, e.g.:\n    {}",
                    canonical(&example)
                );
            }
            if area.is_empty() {
                match self.start {
                    Some(start) => {
                        let _ = writeln!(
                            out,
                            "Your area is empty: the first tile you place goes on {}, the\n\
                             middle of an area no road can ever leave, any turn; every later\n\
                             one must join its road.",
                            start.name()
                        );
                    }
                    None => out.push_str(
                        "Your area is empty: the first tile you place goes on any space, any\n\
                         turn; every later one must join its road. A road that leaves across\n\
                         the area's border can never go on: the middle leaves the most room.\n",
                    ),
                }
            }
        }
        if wish.card.is_some() {
            out.push_str("The cards are chosen for this round: now the placing.\n");
        }
        if let Some(cell) = wish.space {
            out.push_str(&self.at_space(state, &area, &won, cell));
        } else {
            for index in won {
                let tile = state.offer[usize::from(index)].tile;
                out.push_str(&self.tile_places(
                    state,
                    &area,
                    (index, tile),
                    &state.players[seat].won,
                    wish.tiles.is_some(),
                ));
            }
        }
        if wish.tiles.is_none() && wish.space.is_none() {
            out.push_str("Each list is where a tile fits now: placing one opens new spaces.\n");
        }
        out.push_str(&self.narrow_places(state, seat));
        out
    }

    /// Where one tile won fits: spaces with their turns, or every placement in full.
    fn tile_places(
        &self,
        state: &State,
        area: &BTreeMap<Cell, Outlets>,
        (index, tile): (u8, u8),
        held: &[u8],
        full: bool,
    ) -> String {
        let what = self.offer_tile(&state.offer, index);
        let id = letter(index);
        if area.is_empty() {
            let centre = self
                .best_placement(area, tile)
                .map_or_else(|| "G7".to_string(), |(cell, _)| cell.name());
            if self.start.is_some() {
                return format!(
                    "{what}: at {centre}, any turn, e.g. `place {id} at {centre} r0`\n"
                );
            }
            return format!("{what}: any space, any turn, e.g. `place {id} at {centre} r0`\n");
        }
        let fits = self.placements(area, tile);
        if fits.is_empty() {
            return match self.discard_block(state, area, index, held) {
                Some(block) => {
                    let first: Vec<String> = block
                        .first
                        .iter()
                        .map(|&(other, cell, rotation)| {
                            format!("place {} at {} r{rotation}", letter(other), cell.name())
                        })
                        .collect();
                    format!(
                        "{what} fits nowhere now, but after `{}` it fits at {} r{}: keep it\n",
                        first.join("; "),
                        block.cell.name(),
                        block.rotation
                    )
                }
                None => format!("{what} fits nowhere now: `discard {id}`\n"),
            };
        }
        if !full {
            let spaces = self.spaces_text(area, tile);
            return wrapped(
                &format!(
                    "{what} fits at {}:",
                    plural(spaces.len(), "space", "spaces")
                ),
                &spaces,
                4,
            );
        }
        let mut out = format!(
            "{what} fits {} (r = steps turned clockwise; its roads):\n",
            plural(fits.len(), "way", "ways")
        );
        for &(cell, rotation) in fits.iter().take(PLACEMENTS_SHOWN) {
            let text = canonical(&Move::Place(vec![Step::Place {
                tile: index,
                cell,
                rotation,
            }]));
            let _ = writeln!(
                out,
                "  {text:<20} {}",
                self.roads_text(cell, self.turned(tile, rotation))
            );
        }
        if fits.len() > PLACEMENTS_SHOWN {
            let _ = writeln!(
                out,
                "  ... and {} more: `moves SPACE` lists one space",
                fits.len() - PLACEMENTS_SHOWN
            );
        }
        out
    }

    /// Every tile won (of `won`) that fits at `cell`, each turn with the text to send,
    /// or why it does not.
    fn at_space(
        &self,
        state: &State,
        area: &BTreeMap<Cell, Outlets>,
        won: &[u8],
        cell: Cell,
    ) -> String {
        let mut out = String::new();
        let shape = if cell.points_up() {
            "points up: edges left, right, bottom"
        } else {
            "points down: edges top, right, left"
        };
        let _ = writeln!(out, "{} ({shape}):", cell.name());
        for &index in won {
            let tile = state.offer[usize::from(index)].tile;
            let what = self.offer_tile(&state.offer, index);
            let mut any = false;
            for rotation in 0..3u8 {
                if self.fits(area, tile, cell, rotation) {
                    any = true;
                    let text = canonical(&Move::Place(vec![Step::Place {
                        tile: index,
                        cell,
                        rotation,
                    }]));
                    let _ = writeln!(
                        out,
                        "  {text:<20} {}",
                        self.roads_text(cell, self.turned(tile, rotation))
                    );
                }
            }
            if !any {
                let why = self
                    .placement_problem(area, tile, cell, 0)
                    .unwrap_or_default();
                let words: Vec<String> = why.split(' ').map(str::to_string).collect();
                out.push_str(&wrapped(
                    &format!("  {what} does not fit there:"),
                    &words,
                    4,
                ));
            }
        }
        out
    }

    fn narrow_places(&self, state: &State, seat: Seat) -> String {
        let player = &state.players[seat];
        let area = self.area_map(&player.area);
        let Some(&index) = player.won.first() else {
            return String::new();
        };
        let tile = state.offer[usize::from(index)].tile;
        let space = self
            .best_placement(&area, tile)
            .map_or_else(|| "G7".to_string(), |(cell, _)| cell.name());
        format!(
            "Narrow: `moves {space}` (one space: each tile, each turn), `moves {}` (one tile).\n",
            letter(index)
        )
    }
}
