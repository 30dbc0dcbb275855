//! Secret draft: a small card game that exists to exercise everything hidden the engine
//! supports, not to be fun. pbem does not ship it.
//!
//! - Setup: a deck of cards 1..=`cards`; each player is dealt 2 cards by hidden draws.
//! - Each round, every player at once chooses a card of their hand face down
//!   (`choose 7`, a sealed move). The last choice made deals each player who chose
//!   (in seat order, before the last round, while the deck lasts) two cards face
//!   down as a private offer. Then, in seat order, each player `reveal`s: that opens
//!   their sealed choice, whose value is added to their score. With two offered, the
//!   same player then keeps one (`keep first` or `keep second`, `keep 9` accepted): it
//!   joins their hand, the other goes back into the deck unseen. A single offered
//!   card joins the hand when its player reveals.
//! - After `rounds` rounds (or once nobody holds a card) the highest score wins; ties
//!   are shared.
//!
//! The kept card is named by its place in the offer, never its value, in the record:
//! the offer is two hidden draws in random order, so which place a player keeps tells
//! nobody anything, while `keep 9` in the log would tell everyone a card of their hand.

use pbem::engine::{
    BoardContext, Chance, Deadline, GameView, LegalMove, Options, RuleError, Rules, Seat, Viewer,
    Visibility,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The rules: a deck size and a number of rounds.
pub struct SecretDraft {
    cards: u32,
    rounds: u32,
}

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Phase {
    /// Every player holding a card chooses one face down.
    Choose,
    /// `seat` turns their choice up.
    Reveal { seat: Seat },
    /// `seat` keeps one of the two cards offered to them.
    Keep { seat: Seat },
    /// The game has ended.
    Over,
}

/// One player's part of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// Cards held, rising; hidden (empty in the public state).
    pub hand: Vec<u32>,
    /// How many cards are held: public.
    pub hand_size: usize,
    /// The card chosen face down this round, until revealed; hidden (sealed).
    pub choice: Option<u32>,
    /// Whether a card was chosen this round: public ("has chosen").
    pub chosen: bool,
    /// The card revealed this round: public.
    pub shown: Option<u32>,
    /// Cards offered after revealing, in the order drawn; hidden.
    pub offer: Vec<u32>,
    /// How many cards are offered: public.
    pub offer_size: usize,
    /// Every card revealed so far, in order: public.
    pub played: Vec<u32>,
    pub score: i64,
}

/// The whole state; [`Rules::public_state`] empties the hidden parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// The round being played, from 1.
    pub round: u32,
    pub phase: Phase,
    /// The cards left in the deck, rising; hidden (its order is made by each draw).
    pub deck: Vec<u32>,
    pub deck_size: usize,
    pub players: Vec<Player>,
}

/// One player's whole turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// Choose this card of the hand, face down.
    Choose(u32),
    /// Turn the chosen card up.
    Reveal,
    /// Keep the offered card at this place (0: the first drawn).
    Keep(usize),
}

const PLACES: [&str; 2] = ["first", "second"];

impl Table {
    /// Keeps the public counts in step with the hidden lists they count.
    fn sync(&mut self) {
        self.deck_size = self.deck.len();
        for player in &mut self.players {
            player.hand_size = player.hand.len();
            player.offer_size = player.offer.len();
        }
    }

    /// The seats still to choose this round.
    fn choosers(&self) -> Vec<Seat> {
        (0..self.players.len())
            .filter(|&s| !self.players[s].chosen && self.players[s].hand_size > 0)
            .collect()
    }
}

/// Draws one card of the deck face down.
fn deal(deck: &mut Vec<u32>, chance: &mut dyn Chance) -> u32 {
    // The deck is never empty here: callers draw at most its size.
    let size = u32::try_from(deck.len()).unwrap_or(u32::MAX);
    deck.remove(chance.draw(size, Visibility::Hidden) as usize)
}

fn refusal(problem: impl Into<String>, example: Option<String>) -> RuleError {
    let accepted = match example {
        Some(example) => format!("e.g. `{example}`"),
        None => "wait for your turn".to_string(),
    };
    RuleError::new(problem, accepted)
}

fn list(cards: &[u32]) -> String {
    if cards.is_empty() {
        return "none".to_string();
    }
    cards
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl SecretDraft {
    /// After `seat` revealed (and kept, if offered two): the next to reveal, or the
    /// next round, or the end.
    fn advance(&self, table: &mut Table, seat: Seat) {
        if let Some(next) = (seat + 1..table.players.len()).find(|&s| table.players[s].chosen) {
            table.phase = Phase::Reveal { seat: next };
            return;
        }
        table.round += 1;
        for player in &mut table.players {
            player.chosen = false;
            player.shown = None;
        }
        let anyone_holds = table.players.iter().any(|p| !p.hand.is_empty());
        table.phase = if table.round > self.rounds || !anyone_holds {
            Phase::Over
        } else {
            Phase::Choose
        };
    }

    fn seat_panel(&self, table: &Table, seat: Seat, viewer: Viewer) -> Map<String, Value> {
        let player = &table.players[seat];
        let mut panel = Map::new();
        panel.insert("hand_size".into(), json!(player.hand_size));
        panel.insert("chosen".into(), json!(player.chosen));
        panel.insert("shown".into(), json!(player.shown));
        panel.insert("offer_size".into(), json!(player.offer_size));
        panel.insert("played".into(), json!(player.played));
        if sees(viewer, seat) {
            panel.insert("hand".into(), json!(player.hand));
            panel.insert("choice".into(), json!(player.choice));
            panel.insert("offer".into(), json!(player.offer));
        }
        panel
    }
}

/// Whether `viewer` may see `seat`'s hidden cards.
fn sees(viewer: Viewer, seat: Seat) -> bool {
    match viewer {
        Viewer::Public => false,
        Viewer::Player(own) => own == seat,
        Viewer::Referee => true,
    }
}

impl Rules for SecretDraft {
    type State = Table;
    type Move = Move;

    const NAME: &'static str = "secret-draft";
    const OPTIONS: &'static [(&'static str, &'static str)] = &[("cards", "12"), ("rounds", "3")];
    const HAS_HIDDEN_STATE: bool = true;

    fn from_options(options: &Options) -> Result<Self, RuleError> {
        let number = |name: &str, range: std::ops::RangeInclusive<u32>| {
            let text = options.get(name).map_or("", String::as_str);
            text.parse::<u32>()
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| {
                    RuleError::new(
                        format!("{name} `{text}` is out of range"),
                        format!(
                            "a number from {} to {}, e.g. `--option {name}={}`",
                            range.start(),
                            range.end(),
                            range.start()
                        ),
                    )
                })
        };
        Ok(SecretDraft {
            cards: number("cards", 4..=60)?,
            rounds: number("rounds", 1..=10)?,
        })
    }

    fn options(&self) -> Options {
        Options::from([
            ("cards".to_string(), self.cards.to_string()),
            ("rounds".to_string(), self.rounds.to_string()),
        ])
    }

    fn setup(&self, players: &[String], chance: &mut dyn Chance) -> Result<Table, RuleError> {
        if !(2..=4).contains(&players.len()) {
            return Err(RuleError::new(
                "secret draft is for 2 to 4 players",
                "two to four --player",
            ));
        }
        if (self.cards as usize) < 2 * players.len() {
            return Err(RuleError::new(
                format!("{} cards cannot deal 2 to each player", self.cards),
                format!("`--option cards={}` or more", 2 * players.len()),
            ));
        }
        let mut deck: Vec<u32> = (1..=self.cards).collect();
        let mut seats = Vec::new();
        for _ in players {
            let mut hand = vec![deal(&mut deck, chance), deal(&mut deck, chance)];
            hand.sort_unstable();
            seats.push(Player {
                hand,
                hand_size: 0,
                choice: None,
                chosen: false,
                shown: None,
                offer: Vec::new(),
                offer_size: 0,
                played: Vec::new(),
                score: 0,
            });
        }
        let mut table = Table {
            round: 1,
            phase: Phase::Choose,
            deck,
            deck_size: 0,
            players: seats,
        };
        table.sync();
        Ok(table)
    }

    fn to_move(&self, state: &Table) -> Vec<Seat> {
        match state.phase {
            Phase::Choose => state.choosers(),
            Phase::Reveal { seat } | Phase::Keep { seat } => vec![seat],
            Phase::Over => Vec::new(),
        }
    }

    fn is_over(&self, state: &Table) -> bool {
        state.phase == Phase::Over
    }

    fn parse_move(&self, state: &Table, seat: Seat, text: &str) -> Result<Move, RuleError> {
        let lower = text.to_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        let example = || self.example_move(state, seat);
        match words.as_slice() {
            ["choose" | "play" | "pick", card] => card
                .parse::<u32>()
                .map(Move::Choose)
                .map_err(|_| refusal(format!("`{card}` is not a card number"), example())),
            ["reveal" | "open" | "show"] => Ok(Move::Reveal),
            ["keep", what] => {
                if let Some(place) = PLACES.iter().position(|p| p == what) {
                    return Ok(Move::Keep(place));
                }
                if let Some(place) = ["1st", "2nd"].iter().position(|p| p == what) {
                    return Ok(Move::Keep(place));
                }
                // A card value is read as its place in the player's own offer.
                let offer = state.players.get(seat).map(|p| p.offer.as_slice());
                let card = what.parse::<u32>().ok();
                match (card, offer) {
                    (Some(card), Some(offer)) if offer.contains(&card) => Ok(Move::Keep(
                        offer.iter().position(|&c| c == card).unwrap_or(0),
                    )),
                    _ => Err(refusal(
                        format!("`{what}` is not a card offered to you"),
                        example(),
                    )),
                }
            }
            _ => Err(refusal(
                format!("`{}` is not a move", text.trim()),
                example(),
            )),
        }
    }

    fn canonical_text(&self, mv: &Move) -> String {
        match mv {
            Move::Choose(card) => format!("choose {card}"),
            Move::Reveal => "reveal".to_string(),
            Move::Keep(place) => format!("keep {}", PLACES[(*place).min(1)]),
        }
    }

    fn apply(
        &self,
        state: &Table,
        seat: Seat,
        mv: &Move,
        chance: &mut dyn Chance,
    ) -> Result<Table, RuleError> {
        if !self.to_move(state).contains(&seat) {
            return Err(refusal("it is not your turn", None));
        }
        let example = || self.example_move(state, seat);
        let mut next = state.clone();
        match (state.phase, *mv) {
            (Phase::Choose, Move::Choose(card)) => {
                let player = &mut next.players[seat];
                let Some(at) = player.hand.iter().position(|&c| c == card) else {
                    return Err(refusal(
                        format!("{card} is not in your hand ({})", list(&player.hand)),
                        example(),
                    ));
                };
                player.hand.remove(at);
                player.choice = Some(card);
                player.chosen = true;
                // The last choice of the round deals the offers, in seat order: the
                // engine keys the draws of a sealed round's last move on all its moves
                // in seat order, so the state after the round is the same whatever
                // order the choices came in.
                if next.choosers().is_empty() {
                    if next.round < self.rounds {
                        for seat in 0..next.players.len() {
                            if next.players[seat].chosen {
                                let count = next.deck.len().min(2);
                                let offer: Vec<u32> =
                                    (0..count).map(|_| deal(&mut next.deck, chance)).collect();
                                next.players[seat].offer = offer;
                            }
                        }
                    }
                    let first = (0..next.players.len()).find(|&s| next.players[s].chosen);
                    next.phase = first.map_or(Phase::Over, |seat| Phase::Reveal { seat });
                }
            }
            (Phase::Reveal { .. }, Move::Reveal) => {
                let player = &mut next.players[seat];
                let card = player.choice.take().unwrap_or(0);
                player.shown = Some(card);
                player.played.push(card);
                player.score += i64::from(card);
                if player.offer.len() == 2 {
                    next.phase = Phase::Keep { seat };
                } else {
                    // A single card offered (the deck ran out) needs no choice.
                    let single = std::mem::take(&mut player.offer);
                    player.hand.extend(single);
                    player.hand.sort_unstable();
                    self.advance(&mut next, seat);
                }
            }
            (Phase::Keep { .. }, Move::Keep(place)) if place < 2 => {
                let player = &mut next.players[seat];
                let kept = player.offer[place];
                let back = player.offer[1 - place];
                player.offer.clear();
                player.hand.push(kept);
                player.hand.sort_unstable();
                next.deck.push(back);
                next.deck.sort_unstable();
                self.advance(&mut next, seat);
            }
            _ => {
                return Err(refusal(
                    format!(
                        "`{}` is not a move you can make now",
                        self.canonical_text(mv)
                    ),
                    example(),
                ))
            }
        }
        next.sync();
        Ok(next)
    }

    fn legal_moves(&self, state: &Table, seat: Seat) -> Vec<LegalMove> {
        if !self.to_move(state).contains(&seat) {
            return Vec::new();
        }
        let entry = |mv: Move, kind: &str, card: Option<u32>| {
            let mut details = Map::new();
            if let Some(card) = card {
                details.insert("card".into(), json!(card));
            }
            LegalMove {
                text: self.canonical_text(&mv),
                kind: kind.to_string(),
                details,
            }
        };
        let player = &state.players[seat];
        match state.phase {
            Phase::Choose => player
                .hand
                .iter()
                .map(|&c| entry(Move::Choose(c), "choose", Some(c)))
                .collect(),
            Phase::Reveal { .. } => vec![entry(Move::Reveal, "reveal", player.choice)],
            Phase::Keep { .. } => player
                .offer
                .iter()
                .enumerate()
                .map(|(place, &c)| entry(Move::Keep(place), "keep", Some(c)))
                .collect(),
            Phase::Over => Vec::new(),
        }
    }

    fn sample_move(&self, state: &Table, seat: Seat, rng: &mut dyn Chance) -> Option<Move> {
        if !self.to_move(state).contains(&seat) {
            return None;
        }
        let player = &state.players[seat];
        match state.phase {
            Phase::Choose => {
                let count = u32::try_from(player.hand.len()).ok().filter(|&n| n > 0)?;
                Some(Move::Choose(
                    player.hand[rng.draw(count, Visibility::Public) as usize],
                ))
            }
            Phase::Reveal { .. } => Some(Move::Reveal),
            Phase::Keep { .. } => Some(Move::Keep(rng.draw(2, Visibility::Public) as usize)),
            Phase::Over => None,
        }
    }

    fn deadline_move(&self, state: &Table, seat: Seat, choice: Deadline) -> Option<Move> {
        // The game has no forfeit: a player kept waiting for is played for, cautiously.
        if choice == Deadline::Forfeit || !self.to_move(state).contains(&seat) {
            return None;
        }
        match state.phase {
            Phase::Choose => state.players[seat].hand.first().copied().map(Move::Choose),
            Phase::Reveal { .. } => Some(Move::Reveal),
            Phase::Keep { .. } => Some(Move::Keep(0)),
            Phase::Over => None,
        }
    }

    fn example_move(&self, state: &Table, seat: Seat) -> Option<String> {
        self.deadline_move(state, seat, Deadline::Skip)
            .map(|mv| self.canonical_text(&mv))
    }

    fn scores(&self, state: &Table) -> Vec<i64> {
        state.players.iter().map(|p| p.score).collect()
    }

    fn winners(&self, state: &Table) -> Vec<Seat> {
        if !self.is_over(state) {
            return Vec::new();
        }
        let scores = self.scores(state);
        let best = scores.iter().copied().max().unwrap_or(0);
        (0..scores.len()).filter(|&s| scores[s] == best).collect()
    }

    fn is_sealed(&self, state: &Table, _seat: Seat) -> bool {
        state.phase == Phase::Choose
    }

    fn opens(&self, _state: &Table, seat: Seat, mv: &Move) -> Vec<Seat> {
        match mv {
            Move::Reveal => vec![seat],
            Move::Choose(_) | Move::Keep(_) => Vec::new(),
        }
    }

    fn public_state(&self, state: &Table) -> Table {
        let mut public = state.clone();
        public.deck.clear();
        for player in &mut public.players {
            player.hand.clear();
            player.choice = None;
            player.offer.clear();
        }
        public
    }

    fn view(&self, state: &Table, viewer: Viewer, _names: &[String]) -> GameView {
        let mut fields = Map::new();
        fields.insert("round".into(), json!(state.round));
        fields.insert("rounds".into(), json!(self.rounds));
        fields.insert("phase".into(), json!(state.phase));
        fields.insert("deck_size".into(), json!(state.deck_size));
        if viewer == Viewer::Referee {
            fields.insert("deck".into(), json!(state.deck));
        }
        GameView {
            players: (0..state.players.len())
                .map(|seat| self.seat_panel(state, seat, viewer))
                .collect(),
            fields,
        }
    }

    fn board(&self, state: &Table, context: &BoardContext<'_>) -> String {
        let (viewer, names) = (context.viewer, context.names);
        let mut out = match state.phase {
            Phase::Over => format!("Secret draft: over after {} rounds.\n", self.rounds),
            Phase::Choose => format!(
                "Secret draft, round {} of {}: everyone chooses a card face down.\n",
                state.round, self.rounds
            ),
            Phase::Reveal { .. } => format!(
                "Secret draft, round {} of {}: the choices are turned up.\n",
                state.round, self.rounds
            ),
            Phase::Keep { .. } => format!(
                "Secret draft, round {} of {}: a player keeps a card.\n",
                state.round, self.rounds
            ),
        };
        out.push_str(&format!("Deck: {} cards.\n\n", state.deck_size));
        for (seat, player) in state.players.iter().enumerate() {
            let name: String = names
                .get(seat)
                .map_or("?", String::as_str)
                .chars()
                .take(24)
                .collect();
            out.push_str(&format!(
                "{name}: score {}; played {}\n",
                player.score,
                list(&player.played)
            ));
            let own = sees(viewer, seat);
            if own {
                out.push_str(&format!("  hand: {}\n", list(&player.hand)));
            } else {
                out.push_str(&format!("  hand: {} cards, face down\n", player.hand_size));
            }
            let choice = match (player.shown, player.choice, player.chosen) {
                (Some(card), _, _) => format!("shown {card}"),
                (None, Some(card), _) if own => format!("{card}, face down"),
                (None, _, true) => "made, face down".to_string(),
                (None, _, false) => "not yet made".to_string(),
            };
            out.push_str(&format!("  choice: {choice}\n"));
            if player.offer_size > 0 {
                if own {
                    out.push_str(&format!(
                        "  offer: {} (keep first or keep second)\n",
                        list(&player.offer)
                    ));
                } else {
                    out.push_str(&format!(
                        "  offer: {} cards, face down\n",
                        player.offer_size
                    ));
                }
            }
        }
        out.push_str(
            "\nchoose N: play card N of your hand face down.  reveal: turn it up.\n\
             keep first|second: keep one of the two cards offered to you.\n",
        );
        out
    }
}
