//! Setup, applying a turn, building cost and profit, and scoring.

use super::moves::{Action, DiscardItem, Move};
use super::state::{Cell, City, FaceDown, Highway, PlayerState, State};
use super::{RightOfWay, SetupKind, HAND_SIZE, NO_CELL};
use crate::engine::rules::{Chance, RuleError, Seat, Visibility};
use crate::grid::hex::opposite;

/// What a turn did, for `legal_moves` details and for writing the canonical text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TurnReport {
    pub cost: i64,
    pub profit: i64,
    /// The discards actually made to cover a loss, explicit.
    pub discards: Vec<DiscardItem>,
    /// The purchase as made: (tile, paying).
    pub bought: Option<(u8, Vec<u8>)>,
    /// Whether tiles were drawn before a purchase that came after the placement (then
    /// the purchase's default tile depends on the draw and is left to `apply`).
    pub drew_before_buy: bool,
}

/// One purchase as written: `None` tiles take the defaults, which leave one tile of
/// the `reserve` kind (the placement's, when the purchase comes first).
struct Purchase<'a> {
    cell: u16,
    tile: Option<u8>,
    paying: Option<&'a [u8]>,
    reserve: Option<u8>,
}

/// A loss to cover: who, how much, and the tiles of this turn that may not go (R17).
#[derive(Clone, Copy)]
struct Loss {
    me: u8,
    need: usize,
    placed: u16,
    bought: Option<u16>,
}

/// A chance source for dry runs: always the first index. Its draws are never kept.
struct FirstIndex;

impl Chance for FirstIndex {
    fn draw(&mut self, _n: u32, _visibility: Visibility) -> u32 {
        0
    }
}

fn draw_tile(player: &mut PlayerState, chance: &mut dyn Chance) -> bool {
    let Ok(len) = u32::try_from(player.stack.len()) else {
        return false;
    };
    if len == 0 {
        return false;
    }
    let index = chance.draw(len, Visibility::Public) as usize;
    let kind = player.stack.remove(index.min(player.stack.len() - 1));
    player.add_to_hand(kind);
    true
}

/// The discards a turn names, in order: those the player wrote, and those a resolved
/// move carries written out.
pub(crate) fn discards_named(actions: &[Action]) -> Vec<DiscardItem> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Discard(items) | Action::DefaultDiscard(items) => Some(items.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The topmost face-down tile of `me` on a cell that may be discarded: the tile bought
/// this turn (the top of the bought cell's stack) may not.
fn row_position(c: &Cell, me: u8, cell: u16, bought: Option<u16>) -> Option<usize> {
    let len = c.row.len();
    (0..len)
        .rev()
        .find(|&p| c.row[p].owner == me && !(Some(cell) == bought && p + 1 == len))
}

impl RightOfWay {
    pub(crate) fn setup_game(
        &self,
        players: usize,
        chance: &mut dyn Chance,
    ) -> Result<State, RuleError> {
        if !(2..=4).contains(&players) {
            return Err(RuleError::new(
                format!("right-of-way is for 2 to 4 players, not {players}"),
                "two players (the rulebook's count), or three or four (a ruling)",
            ));
        }
        let mut cells = vec![Cell::empty(); self.hexes.len()];
        let mut state = State {
            cells: Vec::new(),
            players: (0..players)
                .map(|_| PlayerState {
                    stack: self.stack_template.clone(),
                    hand: Vec::new(),
                    discards: 0,
                })
                .collect(),
            city_stack: Vec::new(),
            drawn_city: None,
            setup: false,
            to_move: 0,
            first: 0,
            ended_by: None,
            final_turns: 0,
            over: false,
            resigned: None,
            turn: 0,
        };
        match &self.setup {
            SetupKind::Map(cities) => {
                for (cell, &city) in cells.iter_mut().zip(cities) {
                    cell.city = city;
                }
            }
            SetupKind::Hexagon | SetupKind::Draft => {
                // The city stack in canonical order: dollar tiles first, then plain,
                // without the centre tile (placed first, by itself).
                let mut dollar = self.dollar_tiles;
                let mut plain = self.city_tiles - self.dollar_tiles;
                if self.centre_dollar {
                    dollar -= 1;
                } else {
                    plain -= 1;
                }
                let mut stack: Vec<bool> = std::iter::repeat_n(true, dollar as usize)
                    .chain(std::iter::repeat_n(false, plain as usize))
                    .collect();
                cells[self.centre as usize].city = if self.centre_dollar {
                    City::Dollar
                } else {
                    City::Plain
                };
                if self.setup == SetupKind::Hexagon {
                    for (i, cell) in cells.iter_mut().enumerate() {
                        if i == self.centre as usize || stack.is_empty() {
                            continue;
                        }
                        let pick = chance.draw(stack.len() as u32, Visibility::Public) as usize;
                        cell.city = if stack.remove(pick) {
                            City::Dollar
                        } else {
                            City::Plain
                        };
                    }
                } else {
                    state.setup = true;
                    if !stack.is_empty() {
                        let pick = chance.draw(stack.len() as u32, Visibility::Public) as usize;
                        state.drawn_city = Some(stack.remove(pick));
                    }
                    state.city_stack = stack;
                }
            }
        }
        state.cells = cells;
        if !state.setup || state.drawn_city.is_none() {
            state.setup = false;
            self.deal(&mut state, chance);
        }
        Ok(state)
    }

    /// Hands of five, seat by seat, then the first player by the rulebook's order.
    fn deal(&self, state: &mut State, chance: &mut dyn Chance) {
        for p in &mut state.players {
            for _ in 0..HAND_SIZE {
                draw_tile(p, chance);
            }
        }
        let hands: Vec<Vec<u8>> = state.players.iter().map(|p| p.hand.clone()).collect();
        let tied = self.first_player_candidates(&hands);
        let first = if tied.len() > 1 {
            // A full tie: a public draw among the tied players (a ruling).
            tied[chance.draw(tied.len() as u32, Visibility::Public) as usize % tied.len()]
        } else {
            tied.first().copied().unwrap_or(0)
        };
        state.first = first as u8;
        state.to_move = first as u8;
    }

    /// The seats that may start by the rulebook's order: the lowest sum of connections,
    /// then the fewest sixes, fives, and so on. More than one only on a full tie.
    pub fn first_player_candidates(&self, hands: &[Vec<u8>]) -> Vec<usize> {
        let keys: Vec<Vec<u32>> = hands.iter().map(|h| self.first_player_key(h)).collect();
        let best = keys.iter().min().cloned().unwrap_or_default();
        (0..keys.len()).filter(|&i| keys[i] == best).collect()
    }

    /// Lower is earlier: the sum of connections, then the count of sixes, fives, ...
    pub fn first_player_key(&self, hand: &[u8]) -> Vec<u32> {
        let mut key = vec![0u32; 7];
        for &k in hand {
            let c = self.kinds[k as usize].connections();
            key[0] += c;
            key[(7 - c as usize).min(6)] += 1;
        }
        key
    }

    /// Building cost and profit of a highway with `edges` on `cell`, before it is placed.
    pub fn cost_profit(&self, state: &State, cell: u16, edges: u8) -> (i64, i64) {
        let c = &state.cells[cell as usize];
        let cost = if c.is_dollar() {
            i64::from(edges.count_ones())
        } else {
            0
        };
        let mut profit = 0;
        let nbs = &self.neighbours[cell as usize];
        for (i, &n) in nbs.iter().enumerate() {
            if edges & (1 << i) == 0 || n == NO_CELL {
                continue;
            }
            let other = &state.cells[n as usize];
            if other.is_dollar() {
                profit += 1;
            }
            if other
                .highway
                .is_some_and(|h| h.edges & (1 << opposite(i)) != 0)
            {
                profit += 1;
            }
        }
        (cost, profit)
    }

    /// Whether every connection of the highway on `cell` meets a neighbour's connection.
    pub fn fully_connected(&self, state: &State, cell: u16) -> bool {
        let Some(h) = state.cells[cell as usize].highway else {
            return false;
        };
        let nbs = &self.neighbours[cell as usize];
        (0..6).all(|i| {
            h.edges & (1 << i) == 0
                || (nbs[i] != NO_CELL
                    && state.cells[nbs[i] as usize]
                        .highway
                        .is_some_and(|o| o.edges & (1 << opposite(i)) != 0))
        })
    }

    pub(crate) fn victory_points(&self, state: &State) -> Vec<i64> {
        let mut scores = vec![0i64; state.players.len()];
        for (i, c) in state.cells.iter().enumerate() {
            if let Some(h) = c.highway {
                if self.fully_connected(state, i as u16) {
                    scores[h.owner as usize] += i64::from(h.edges.count_ones());
                }
            }
        }
        scores
    }

    /// Whether `seat` may put a highway on `cell` (ignoring the hand).
    pub(crate) fn placeable(&self, state: &State, seat: u8, cell: usize) -> bool {
        let c = &state.cells[cell];
        c.is_city() && c.highway.is_none() && c.row_holder().is_none_or(|o| o == seat)
    }

    /// Whether a draft tile may go on `cell`: an empty frame cell next to the city.
    pub(crate) fn city_spot(&self, state: &State, cell: usize) -> bool {
        !state.cells[cell].is_city()
            && self.neighbours[cell]
                .iter()
                .any(|&n| n != NO_CELL && state.cells[n as usize].is_city())
    }

    /// A move that is legal now, for error messages and notices: `pass` exactly when
    /// the player must pass (R22), else [`RightOfWay::first_turn`] with its discards.
    pub(crate) fn example(&self, state: &State, seat: Seat) -> String {
        if state.over {
            return "nothing: the game is over".into();
        }
        if state.setup {
            return (0..state.cells.len())
                .find(|&i| self.city_spot(state, i))
                .map_or_else(
                    || "pass".into(),
                    |i| format!("city {}", self.label(i as u16)),
                );
        }
        let s = seat.min(state.players.len().saturating_sub(1));
        if self.must_pass(state, s) {
            return "pass".into();
        }
        match self
            .best_turn(state, s as u8)
            .or_else(|| self.first_turn(state, s as u8))
        {
            Some(mv) => self.move_text(&mv),
            None => "pass".into(),
        }
    }

    /// Fills in the documented defaults (face-down tile, price, discards) by a dry run,
    /// so the canonical text is explicit. Refuses what `apply` would refuse.
    pub(crate) fn resolve(&self, state: &State, seat: Seat, mv: Move) -> Result<Move, RuleError> {
        self.resolve_knowing(state, seat, mv, None)
    }

    /// [`RightOfWay::resolve`], given R15's answer for `state` when the caller knows it
    /// (see [`RightOfWay::play_knowing`]).
    pub(crate) fn resolve_knowing(
        &self,
        state: &State,
        seat: Seat,
        mv: Move,
        every_loses: Option<bool>,
    ) -> Result<Move, RuleError> {
        let (after, report) = self.play_knowing(state, seat, &mv, None, every_loses)?;
        let Move::Turn(actions) = mv else {
            return Ok(mv);
        };
        let named = discards_named(&actions).len();
        // Tiles given up together go in the order the defaults take them (R31): which
        // was named first changes nothing, so it must not change the text.
        let mut discards = report.discards.clone();
        discards.sort_by_key(|item| self.discard_rank(item));
        let mut out = Vec::new();
        let mut placed = false;
        for a in actions {
            match a {
                Action::Discard(_) | Action::DefaultDiscard(_) => {}
                Action::Buy { cell, tile, paying } => {
                    if placed && report.drew_before_buy {
                        // Its defaults depend on the tiles drawn: left as written.
                        out.push(Action::Buy {
                            cell,
                            tile,
                            paying: paying.map(|p| self.in_default_order(p)),
                        });
                    } else if let Some((tile, paying)) = &report.bought {
                        out.push(Action::Buy {
                            cell,
                            tile: Some(*tile),
                            paying: Some(self.in_default_order(paying.clone())),
                        });
                    }
                }
                Action::Place { .. } => {
                    placed = true;
                    out.push(a);
                    if report.discards.len() > named {
                        out.push(Action::DefaultDiscard(discards.clone()));
                    } else if !discards.is_empty() {
                        out.push(Action::Discard(discards.clone()));
                    }
                }
            }
        }
        Ok(Move::Turn(
            self.purchase_first(state, seat, &out, &after, every_loses)
                .unwrap_or(out),
        ))
    }

    /// Hand tiles in the order the defaults take them: fewest connections first, then
    /// table order.
    fn in_default_order(&self, mut tiles: Vec<u8>) -> Vec<u8> {
        tiles.sort_by_key(|&k| self.hand_rank(k));
        tiles
    }

    fn hand_rank(&self, kind: u8) -> (u32, u8) {
        let connections = self
            .kinds
            .get(kind as usize)
            .map_or(u32::MAX, |k| k.connections());
        (connections, kind)
    }

    /// A tile given up for a loss, in the order the defaults take them (R15): hand
    /// tiles, then face-down tiles by cell, then placed highways by cell.
    fn discard_rank(&self, item: &DiscardItem) -> (u8, (u32, u16)) {
        match *item {
            DiscardItem::Hand(k) => {
                let (connections, kind) = self.hand_rank(k);
                (0, (connections, u16::from(kind)))
            }
            DiscardItem::Row(cell) => (1, (0, cell)),
            DiscardItem::Placed(cell) => (2, (0, cell)),
        }
    }

    /// The resolved turn `out` with its purchase moved before the placement, when it
    /// is written after it and that order is accepted and leaves the same position
    /// `after` (R31): a purchase elsewhere that names its tiles, after a placement
    /// that leaves it the same hand to pay with. `None` when nothing moves.
    fn purchase_first(
        &self,
        state: &State,
        seat: Seat,
        out: &[Action],
        after: &State,
        every_loses: Option<bool>,
    ) -> Option<Vec<Action>> {
        let place = out.iter().position(|a| matches!(a, Action::Place { .. }))?;
        // Only a purchase whose tiles are all named: defaults choose from the hand as
        // it is at the purchase, which the placement changes. A free city tile's price
        // is nothing, named or not.
        let buy = out.iter().position(|a| match a {
            Action::Buy {
                cell,
                tile: Some(_),
                paying,
            } => {
                paying.is_some()
                    || state
                        .cells
                        .get(usize::from(*cell))
                        .is_some_and(|c| c.row.is_empty())
            }
            _ => false,
        })?;
        if buy < place {
            return None;
        }
        let mut first = out.to_vec();
        let purchase = first.remove(buy);
        first.insert(0, purchase);
        let (moved, _) = self
            .play_knowing(state, seat, &Move::Turn(first.clone()), None, every_loses)
            .ok()?;
        (moved == *after).then_some(first)
    }

    /// Applies a move to a copy of `before` and returns it. With `chance` absent (a
    /// dry run) draws take the first index.
    pub(crate) fn play(
        &self,
        before: &State,
        seat: Seat,
        mv: &Move,
        chance: Option<&mut dyn Chance>,
    ) -> Result<(State, TurnReport), RuleError> {
        self.play_knowing(before, seat, mv, chance, None)
    }

    /// [`RightOfWay::play`], given whether every placement loses in `before` (R15) when
    /// the caller has worked it out already (`legal` asks once for all its entries);
    /// `None` works it out when a loss needs it.
    pub(crate) fn play_knowing(
        &self,
        before: &State,
        seat: Seat,
        mv: &Move,
        chance: Option<&mut dyn Chance>,
        every_loses: Option<bool>,
    ) -> Result<(State, TurnReport), RuleError> {
        let mut first = FirstIndex;
        let chance: &mut dyn Chance = match chance {
            Some(c) => c,
            None => &mut first,
        };
        if before.over {
            return Err(RuleError::new(
                "the game is over",
                "no more moves; `pbem show` has the final scores",
            ));
        }
        if seat >= before.players.len() || seat != before.to_move as usize {
            return Err(RuleError::new(
                format!("it is not seat {seat}'s turn"),
                format!("a move from seat {}, whose turn it is", before.to_move),
            ));
        }
        let me = seat as u8;
        let mut state = before.clone();
        let report = match mv {
            Move::City(cell) => {
                self.play_city(&mut state, *cell, chance)?;
                TurnReport::default()
            }
            Move::Resign => {
                state.resigned = Some(me);
                state.over = true;
                TurnReport::default()
            }
            Move::Pass => {
                if before.setup {
                    return Err(RuleError::new(
                        "nobody passes while the city is being built",
                        format!(
                            "place the drawn city tile, e.g. `{}`",
                            self.example(before, seat)
                        ),
                    ));
                }
                if !self.must_pass(before, seat) {
                    return Err(RuleError::new(
                        "you may only pass when no turn can place a tile, and you can place one",
                        format!(
                            "a turn that places a tile (buying another player's right-of-way first if need be), e.g. `{}`; see `pbem legal`",
                            self.example(before, seat)
                        ),
                    ));
                }
                self.end_turn(&mut state, me, chance, false);
                TurnReport::default()
            }
            Move::Turn(actions) => {
                if before.setup {
                    return Err(RuleError::new(
                        "the city is still being built",
                        format!(
                            "place the drawn city tile, e.g. `{}`",
                            self.example(before, seat)
                        ),
                    ));
                }
                let report =
                    self.play_turn(before, &mut state, me, actions, chance, every_loses)?;
                self.end_turn(&mut state, me, chance, true);
                report
            }
        };
        Ok((state, report))
    }

    fn play_city(
        &self,
        state: &mut State,
        cell: u16,
        chance: &mut dyn Chance,
    ) -> Result<(), RuleError> {
        if !state.setup {
            return Err(RuleError::new(
                "the city is complete",
                format!(
                    "a highway turn such as `{}`",
                    self.example(state, state.to_move as usize)
                ),
            ));
        }
        let i = cell as usize;
        if i >= state.cells.len() || !self.city_spot(state, i) {
            return Err(RuleError::new(
                format!("{} is not a free cell next to the city", self.label(cell)),
                format!(
                    "an empty cell within {} steps of the centre that touches a city tile, e.g. `{}`",
                    self.radius,
                    self.example(state, state.to_move as usize)
                ),
            ));
        }
        let dollar = state.drawn_city.take().unwrap_or(false);
        state.cells[i].city = if dollar { City::Dollar } else { City::Plain };
        if state.city_stack.is_empty() {
            state.setup = false;
            self.deal(state, chance);
        } else {
            let pick = chance.draw(state.city_stack.len() as u32, Visibility::Public) as usize;
            state.drawn_city = Some(
                state
                    .city_stack
                    .remove(pick.min(state.city_stack.len() - 1)),
            );
            state.to_move = ((state.to_move as usize + 1) % state.players.len()) as u8;
        }
        Ok(())
    }

    /// A highway turn on `state`, a copy of `before` (whose examples the refusals give).
    fn play_turn(
        &self,
        before: &State,
        state: &mut State,
        me: u8,
        actions: &[Action],
        chance: &mut dyn Chance,
        known_loses: Option<bool>,
    ) -> Result<TurnReport, RuleError> {
        let seat = me as usize;
        let places = actions
            .iter()
            .filter(|a| matches!(a, Action::Place { .. }))
            .count();
        let buys = actions
            .iter()
            .filter(|a| matches!(a, Action::Buy { .. }))
            .count();
        if places != 1 {
            return Err(RuleError::new(
                if places == 0 {
                    "a turn must place exactly one highway tile"
                } else {
                    "a turn places only one highway tile"
                },
                format!(
                    "one placement, with at most one purchase before or after it, e.g. `{}`",
                    self.example(before, seat)
                ),
            ));
        }
        if buys > 1 {
            return Err(RuleError::new(
                "a turn buys at most one right-of-way",
                format!("one purchase, e.g. {}", self.example_buy(before, seat)),
            ));
        }
        let wanted = discards_named(actions);
        // R15 asks whether every placement loses as the turn begins; only a loss the
        // hand cannot pay needs the answer.
        let every_loses = || known_loses.unwrap_or_else(|| self.every_placement_loses(before, me));
        let mut report = TurnReport::default();
        let mut bought_cell = None;
        let mut placed = false;
        for action in actions {
            match action {
                Action::Buy { cell, tile, paying } => {
                    // A purchase before the placement leaves the placement's tile alone
                    // when it picks default tiles.
                    let reserve = actions.iter().find_map(|a| match a {
                        Action::Place { edges, .. } if !placed => self.kind_of_edges(*edges),
                        _ => None,
                    });
                    report.bought = Some(self.buy(
                        before,
                        state,
                        me,
                        Purchase {
                            cell: *cell,
                            tile: *tile,
                            paying: paying.as_deref(),
                            reserve,
                        },
                    )?);
                    bought_cell = Some(*cell);
                }
                Action::Place { cell, edges } => {
                    placed = true;
                    let (cost, profit) = self.place(before, state, me, *cell, *edges)?;
                    report.cost = cost;
                    report.profit = profit;
                    let net = profit - cost;
                    if net < 0 {
                        report.discards = self.cover_loss(
                            before,
                            state,
                            Loss {
                                me,
                                need: (-net) as usize,
                                placed: *cell,
                                bought: bought_cell,
                            },
                            &wanted,
                            &every_loses,
                        )?;
                    } else {
                        if !wanted.is_empty() {
                            return Err(RuleError::new(
                                format!("this placement has no loss (result ${net}), so nothing is discarded"),
                                format!("the same turn without `discard`: `{}`", self.move_text(&Move::Turn(actions.iter().filter(|a| !matches!(a, Action::Discard(_) | Action::DefaultDiscard(_))).cloned().collect()))),
                            ));
                        }
                        for _ in 0..net {
                            if draw_tile(&mut state.players[seat], chance) {
                                report.drew_before_buy = true;
                            }
                        }
                    }
                }
                Action::Discard(_) | Action::DefaultDiscard(_) => {}
            }
        }
        Ok(report)
    }

    fn buy(
        &self,
        before: &State,
        state: &mut State,
        me: u8,
        purchase: Purchase<'_>,
    ) -> Result<(u8, Vec<u8>), RuleError> {
        let Purchase {
            cell,
            tile,
            paying,
            reserve,
        } = purchase;
        let seat = me as usize;
        let example_buy = || self.example_buy(before, seat);
        let c = &state.cells[cell as usize];
        if !c.is_city() {
            return Err(RuleError::new(
                format!("{} is not a city tile", self.label(cell)),
                format!(
                    "a free city tile or another player's right-of-way, e.g. {}",
                    example_buy()
                ),
            ));
        }
        if c.highway.is_some() {
            return Err(RuleError::new(
                format!("{} already has a highway", self.label(cell)),
                format!(
                    "a free city tile or another player's right-of-way, e.g. {}",
                    example_buy()
                ),
            ));
        }
        if c.row_holder() == Some(me) {
            return Err(RuleError::new(
                format!("you already hold the right-of-way on {}", self.label(cell)),
                format!(
                    "a free city tile or another player's right-of-way, e.g. {}",
                    example_buy()
                ),
            ));
        }
        let height = c.row.len();
        let hand = &state.players[seat].hand;
        if hand.len() < height + 2 {
            return Err(RuleError::new(
                format!(
                    "buying {} takes {} tile(s) from your hand and may not use your last one; you hold {}",
                    self.label(cell),
                    height + 1,
                    hand.len()
                ),
                format!("a purchase you can afford keeping one tile, e.g. {}, or no purchase", example_buy()),
            ));
        }
        let mut remaining = hand.clone();
        // Defaults choose among the hand without one tile of the reserved kind.
        let pool = |remaining: &Vec<u8>| -> Vec<u8> {
            let mut pool = remaining.clone();
            if let Some(p) = reserve.and_then(|k| pool.iter().position(|&h| h == k)) {
                pool.remove(p);
            }
            pool
        };
        let take = |remaining: &mut Vec<u8>, k: u8, what: &str| -> Result<(), RuleError> {
            match remaining.iter().position(|&h| h == k) {
                Some(i) => {
                    remaining.remove(i);
                    Ok(())
                }
                None => Err(RuleError::new(
                    format!(
                        "you have no {} left in hand for {what}",
                        self.kinds[k as usize].name
                    ),
                    format!(
                        "tiles from your hand ({})",
                        self.hand_text(&state.players[seat].hand)
                    ),
                )),
            }
        };
        let tile = match tile {
            Some(k) => {
                take(&mut remaining, k, "the face-down tile")?;
                k
            }
            None => {
                // Default: the hand tile with the fewest connections (kinds are in data
                // order, which lists fewer connections first).
                let k = self.cheapest(&pool(&remaining));
                take(&mut remaining, k, "the face-down tile")?;
                k
            }
        };
        let price: Vec<u8> = match paying {
            Some(p) => {
                if p.len() != height {
                    return Err(RuleError::new(
                        format!("the right-of-way on {} costs {height} discarded tile(s), {} given", self.label(cell), p.len()),
                        format!("exactly {height} tile(s) after `paying` (or none named, for the default)"),
                    ));
                }
                for &k in p {
                    take(&mut remaining, k, "the price")?;
                }
                p.to_vec()
            }
            None => {
                let mut p = Vec::new();
                for _ in 0..height {
                    let k = self.cheapest(&pool(&remaining));
                    take(&mut remaining, k, "the price")?;
                    p.push(k);
                }
                p
            }
        };
        let player = &mut state.players[seat];
        player.hand = remaining;
        player.discards += height as u32;
        state.cells[cell as usize].row.push(FaceDown {
            owner: me,
            kind: tile,
        });
        Ok((tile, price))
    }

    /// The kind with the fewest connections in a list (first in data order on ties).
    pub(crate) fn cheapest(&self, tiles: &[u8]) -> u8 {
        tiles
            .iter()
            .copied()
            .min_by_key(|&k| (self.kinds[k as usize].connections(), k))
            .unwrap_or(0)
    }

    pub(crate) fn hand_text(&self, hand: &[u8]) -> String {
        if hand.is_empty() {
            return "empty".into();
        }
        hand.iter()
            .map(|&k| self.kinds[k as usize].name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn place(
        &self,
        before: &State,
        state: &mut State,
        me: u8,
        cell: u16,
        edges: u8,
    ) -> Result<(i64, i64), RuleError> {
        let seat = me as usize;
        let label = self.label(cell);
        let Some(kind) = self.kind_of_edges(edges) else {
            return Err(RuleError::new(
                format!("no highway tile has the edges {}", Self::edges_text(edges)),
                format!(
                    "edges of a tile in your hand ({}), e.g. `{}`",
                    self.hand_text(&state.players[seat].hand),
                    self.example(before, seat)
                ),
            ));
        };
        let c = &state.cells[cell as usize];
        let refuse = |problem: String| {
            Err(RuleError::new(
                problem,
                format!("a free city tile or one where you hold the right-of-way, e.g. `{}`; see `pbem legal`", self.example(before, seat)),
            ))
        };
        if !c.is_city() {
            return refuse(format!("{label} is not a city tile"));
        }
        if c.highway.is_some() {
            return refuse(format!("{label} already has a highway"));
        }
        if let Some(holder) = c.row_holder().filter(|&h| h != me) {
            return refuse(format!(
                "player {} holds the right-of-way on {label}",
                char::from(b'A' + holder)
            ));
        }
        if !state.players[seat].hand.contains(&kind) {
            return Err(RuleError::new(
                format!(
                    "the edges {} need a {} tile and your hand is {}",
                    Self::edges_text(edges),
                    self.kinds[kind as usize].name,
                    self.hand_text(&state.players[seat].hand)
                ),
                format!(
                    "edges one of your tiles can take, e.g. `{}`; see `pbem legal`",
                    self.example(before, seat)
                ),
            ));
        }
        let (cost, profit) = self.cost_profit(state, cell, edges);
        state.players[seat].take_from_hand(kind);
        // Building on one's own right-of-way: the face-down tiles go to their owners'
        // discard stacks.
        let row = std::mem::take(&mut state.cells[cell as usize].row);
        for t in row {
            state.players[t.owner as usize].discards += 1;
        }
        state.cells[cell as usize].highway = Some(Highway {
            owner: me,
            kind,
            edges,
        });
        Ok((cost, profit))
    }

    /// Covers a loss (R15). A loss the hand can pay is paid from the hand: the tiles
    /// named, then those with the fewest connections. A loss beyond the hand is allowed
    /// only when every placement of this turn loses; then the whole hand goes, and
    /// placed and face-down tiles pay the rest: those named, then face-down tiles (cell
    /// order), then placed highways (cell order); never the tiles placed or bought this
    /// turn (R17). What nothing covers lapses (R18).
    fn cover_loss(
        &self,
        before: &State,
        state: &mut State,
        loss: Loss,
        wanted: &[DiscardItem],
        every_loses: &dyn Fn() -> bool,
    ) -> Result<Vec<DiscardItem>, RuleError> {
        let Loss {
            me,
            need,
            placed,
            bought,
        } = loss;
        let seat = me as usize;
        let hand = state.players[seat].hand.len();
        if wanted.len() > need {
            return Err(RuleError::new(
                format!(
                    "the loss is ${need} but {} discards are named",
                    wanted.len()
                ),
                format!(
                    "at most {need} discard(s), e.g. `discard {}`",
                    self.hand_text(&state.players[seat].hand[..need.min(hand)])
                        .replace(' ', ",")
                ),
            ));
        }
        let (from_hand, from_board): (Vec<DiscardItem>, Vec<DiscardItem>) = wanted
            .iter()
            .partition(|item| matches!(item, DiscardItem::Hand(_)));
        let shortfall = need.saturating_sub(hand);
        if shortfall == 0 && !from_board.is_empty() {
            return Err(RuleError::new(
                format!(
                    "your hand can pay this loss of ${need}, so no placed or face-down tile may go"
                ),
                format!(
                    "{need} tile(s) from your hand ({}), or none named for the default",
                    self.hand_text(&state.players[seat].hand)
                ),
            ));
        }
        if shortfall > 0 && !every_loses() {
            return Err(RuleError::new(
                format!(
                    "this placement's loss of ${need} is more than the {hand} tile(s) left in your hand, and placed and face-down tiles pay a loss only when every placement you can make loses"
                ),
                format!(
                    "a placement without a loss, or one your hand can pay, e.g. `{}`; see `pbem legal`",
                    self.example(before, seat)
                ),
            ));
        }
        if from_board.len() > shortfall {
            return Err(RuleError::new(
                format!(
                    "your hand pays ${hand} of the loss of ${need}, so only {shortfall} placed or face-down tile(s) may go, not {}",
                    from_board.len()
                ),
                format!(
                    "at most {shortfall} of `placed <CELL>` and `row <CELL>`; the hand tiles go first"
                ),
            ));
        }
        let mut done = Vec::new();
        for &item in &from_hand {
            self.discard_one(state, me, item, placed, bought)?;
            done.push(item);
        }
        while done.len() < need && !state.players[seat].hand.is_empty() {
            let item = DiscardItem::Hand(self.cheapest(&state.players[seat].hand));
            self.discard_one(state, me, item, placed, bought)?;
            done.push(item);
        }
        for &item in &from_board {
            self.discard_one(state, me, item, placed, bought)?;
            done.push(item);
        }
        while done.len() < need {
            let Some(item) = self.default_discard(state, me, placed, bought) else {
                break;
            };
            self.discard_one(state, me, item, placed, bought)?;
            done.push(item);
        }
        Ok(done)
    }

    fn default_discard(
        &self,
        state: &State,
        me: u8,
        placed: u16,
        bought: Option<u16>,
    ) -> Option<DiscardItem> {
        let hand = &state.players[me as usize].hand;
        if !hand.is_empty() {
            return Some(DiscardItem::Hand(self.cheapest(hand)));
        }
        for (i, c) in state.cells.iter().enumerate() {
            if row_position(c, me, i as u16, bought).is_some() {
                return Some(DiscardItem::Row(i as u16));
            }
        }
        for (i, c) in state.cells.iter().enumerate() {
            if i as u16 != placed && c.highway.is_some_and(|h| h.owner == me) {
                return Some(DiscardItem::Placed(i as u16));
            }
        }
        None
    }

    fn discard_one(
        &self,
        state: &mut State,
        me: u8,
        item: DiscardItem,
        placed: u16,
        bought: Option<u16>,
    ) -> Result<(), RuleError> {
        let seat = me as usize;
        match item {
            DiscardItem::Hand(k) => {
                if !state.players[seat].take_from_hand(k) {
                    return Err(RuleError::new(
                        format!(
                            "you have no {} in hand to discard",
                            self.kinds[k as usize].name
                        ),
                        format!(
                            "tiles from your hand ({}), `placed <CELL>` or `row <CELL>`",
                            self.hand_text(&state.players[seat].hand)
                        ),
                    ));
                }
            }
            DiscardItem::Placed(cell) => {
                let c = &mut state.cells[cell as usize];
                if cell == placed || c.highway.is_none_or(|h| h.owner != me) {
                    return Err(RuleError::new(
                        format!("you cannot discard a highway on {}", self.label(cell)),
                        "one of your highways placed in an earlier turn, e.g. `discard placed <CELL>`",
                    ));
                }
                c.highway = None;
            }
            DiscardItem::Row(cell) => {
                let c = &mut state.cells[cell as usize];
                let Some(pos) = row_position(c, me, cell, bought) else {
                    return Err(RuleError::new(
                        format!("you have no face-down tile on {} that you may discard", self.label(cell)),
                        "a face-down tile of yours placed in an earlier turn, e.g. `discard row <CELL>`",
                    ));
                };
                c.row.remove(pos);
            }
        }
        state.players[seat].discards += 1;
        Ok(())
    }

    /// The end of a turn: an empty hand draws one tile; a used-up player starts the
    /// final turns; the game ends after them or when nobody can place a tile any more;
    /// else the turn passes on.
    fn end_turn(&self, state: &mut State, me: u8, chance: &mut dyn Chance, placed: bool) {
        let n = state.players.len();
        let seat = me as usize;
        if placed {
            state.turn += 1;
        }
        if state.players[seat].hand.is_empty() {
            draw_tile(&mut state.players[seat], chance);
        }
        let used_up = state.players[seat].hand.is_empty() && state.players[seat].stack.is_empty();
        if state.ended_by.is_some() {
            state.final_turns = state.final_turns.saturating_sub(1);
            if state.final_turns == 0 {
                state.over = true;
            }
        } else if used_up {
            state.ended_by = Some(me);
            state.final_turns = (n - 1) as u8;
        }
        // Nobody can place a tile any more, so nothing can change: the game is over
        // (R20, R22). Only a player's own turn changes that player's hand, and passing
        // changes nothing, so a round of passes would only confirm it.
        if !state.over && (0..n).all(|s| !self.can_place(state, s)) {
            state.over = true;
        }
        if !state.over {
            state.to_move = ((seat + 1) % n) as u8;
        }
    }
}
