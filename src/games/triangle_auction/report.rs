//! What a turn did (`Rules::report`) and how the game ended (`Rules::game_end`).
//!
//! Rules do no I/O, so a report is worked out from the states before and after the
//! turn and the move. A card is chosen face down: until it opens on its owner's first
//! bidding turn (T6), only its owner's lines name it.

use super::moves::{letter, Move, Step};
use super::play::Score;
use super::state::{Bid, Offer, Phase, State};
use super::text::{and_list, capitalised, plural, rank_name};
use super::TriangleAuction;
use crate::engine::rules::{score_changes, GameEnd, ReportLine, Rules, Seat};
use crate::grid::triangle::{rotated, Cell, EDGE_NAMES_DOWN, EDGE_NAMES_UP};

/// The widest report line the game writes (names aside): with the two columns
/// `pbem show` indents it by, a board's 78.
const REPORT_WIDTH: usize = 76;

pub(crate) fn name_of(names: &[String], seat: usize) -> String {
    names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| format!("seat {seat}"))
}

impl TriangleAuction {
    /// An offer tile in words: "A (RG-)".
    pub(crate) fn offer_tile(&self, offer: &[Offer], index: u8) -> String {
        match offer.get(usize::from(index)) {
            Some(slot) => format!("{} ({})", letter(index), self.tile_code(slot.tile)),
            None => letter(index).to_string(),
        }
    }

    /// The roads of a tile with `outlets` (by cell edge) on `cell`: "red left, green
    /// bottom".
    pub(crate) fn roads_text(&self, cell: Cell, outlets: [Option<u8>; 3]) -> String {
        let edges = if cell.points_up() {
            EDGE_NAMES_UP
        } else {
            EDGE_NAMES_DOWN
        };
        outlets
            .iter()
            .zip(edges)
            .filter_map(|(outlet, edge)| {
                let colour = self.colour_names.get(usize::from((*outlet)?))?;
                Some(format!("{colour} {edge}"))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The lines of `Rules::report`.
    pub(crate) fn turn_report(
        &self,
        before: &State,
        seat: Seat,
        mv: &Move,
        after: &State,
        names: &[String],
    ) -> Vec<ReportLine> {
        let mut lines = Vec::new();
        match mv {
            Move::Card(card) => self.card_report(before, seat, *card, after, names, &mut lines),
            Move::Bid(_) | Move::Pass => {
                self.bid_report(before, seat, mv, after, names, &mut lines);
            }
            Move::Place(steps) => self.place_report(before, seat, steps, after, names, &mut lines),
        }
        lines.extend(score_changes(
            &self.score_totals(before),
            &self.score_totals(after),
            names,
        ));
        if after.phase != before.phase || after.round != before.round {
            self.round_report(before, after, names, &mut lines);
        }
        lines
    }

    fn score_totals(&self, state: &State) -> Vec<i64> {
        (0..state.players.len())
            .map(|seat| self.score(state, seat).total)
            .collect()
    }

    /// A card chosen face down: everyone reads that it was chosen, only its owner
    /// which it is (T5).
    fn card_report(
        &self,
        before: &State,
        seat: Seat,
        card: u8,
        after: &State,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        let who = name_of(names, seat);
        let chosen = after.players.iter().filter(|p| p.chosen).count();
        lines.push(ReportLine::everyone(format!(
            "{who} has chosen a card, face down ({chosen} of {} chosen)",
            after.players.len()
        )));
        let to_bid = self.chits_in_hand.saturating_sub(card);
        let now = before.players[seat].improvement;
        let reaches = now.saturating_add(card).min(self.improvement_track);
        lines.push(ReportLine::only(
            seat,
            format!(
                "{who}'s card, face down: card {card} (improvement {now} -> {reaches} when it opens; {to_bid} to bid)",
            ),
        ));
    }

    fn bid_report(
        &self,
        before: &State,
        seat: Seat,
        mv: &Move,
        after: &State,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        let who = name_of(names, seat);
        let was = &before.players[seat];
        let mut hand = was.hand;
        if was.revealed.is_none() {
            // The card opens now (T6): the full state knows it; should a report ever
            // be asked of the public state, the state after tells it (unless the
            // auction ended and a new round cleared it).
            let card = was
                .card
                .or(after.players[seat].revealed)
                .unwrap_or_default();
            hand = hand.saturating_sub(card);
            let chits = match card {
                0 => "nothing".to_string(),
                _ => plural(usize::from(card), "chit", "chits"),
            };
            lines.push(ReportLine::everyone(format!(
                "{who}'s card opens: card {card}, {chits} to the improvement track"
            )));
            let from = was.improvement;
            let to = from.saturating_add(card).min(self.improvement_track);
            if to != from {
                let rank = |space: u8| {
                    4 - self
                        .improvement_steps
                        .iter()
                        .filter(|&&step| space >= step)
                        .count()
                        .min(4)
                };
                let mut text = format!("{who}: improvement {from} -> {to}");
                if to == self.improvement_track && u16::from(from) + u16::from(card) > u16::from(to)
                {
                    text.push_str(" (the end)");
                }
                if rank(to) != rank(from) {
                    text.push_str(&format!(", now scoring the {} colour", rank_name(rank(to))));
                }
                lines.push(ReportLine::everyone(text));
            }
        }
        match mv {
            Move::Pass => {
                let text = if self.can_claim(before, seat, hand) {
                    format!("{who} passed")
                } else {
                    format!(
                        "{who} passed: with {} no tile can be claimed",
                        plural(usize::from(hand), "chit", "chits")
                    )
                };
                lines.push(ReportLine::everyone(text));
            }
            Move::Bid(bids) => {
                for &(tile, chits) in bids {
                    let what = self.offer_tile(&before.offer, tile);
                    let amount = plural(usize::from(chits), "chit", "chits");
                    let earlier = before.offer.get(usize::from(tile)).and_then(|o| o.bid);
                    match earlier {
                        None => lines.push(ReportLine::everyone(format!(
                            "{who} bid {amount} on {what}"
                        ))),
                        Some(Bid {
                            seat: owner,
                            chits: theirs,
                        }) => {
                            let owner = usize::from(owner);
                            let them = name_of(names, owner);
                            lines.push(ReportLine::everyone(format!(
                                "{who} bid {amount} on {what}, outbidding {them}'s {theirs}"
                            )));
                            let mut text = format!(
                                "{them} was outbid on {}: {} back to {them}'s hand",
                                letter(tile),
                                plural(usize::from(theirs), "chit goes", "chits go")
                            );
                            if matches!(after.phase, Phase::Bidding { .. }) {
                                if let Some(owner) = after.players.get(owner) {
                                    text.push_str(&format!(" (now {})", owner.hand));
                                }
                            }
                            lines.push(ReportLine::everyone(text));
                        }
                    }
                    hand = hand.saturating_sub(chits);
                }
                lines.push(ReportLine::everyone(format!(
                    "{who} has {} left in hand",
                    plural(usize::from(hand), "chit", "chits")
                )));
            }
            Move::Card(_) | Move::Place(_) => {}
        }
        if let Phase::Bidding { seat: next } = after.phase {
            self.passed_over(after, seat, usize::from(next), names, lines);
        }
    }

    /// The players the turn passed from `seat` to `next` skipped (T9).
    fn passed_over(
        &self,
        state: &State,
        seat: Seat,
        next: Seat,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        let players = state.players.len();
        let mut stuck = Vec::new();
        let mut passed = Vec::new();
        let mut at = (seat + 1) % players;
        while at != next && at != seat {
            let hand = state.players[at].hand;
            if self.can_claim(state, at, hand) {
                passed.push(name_of(names, at));
            } else {
                stuck.push(name_of(names, at));
            }
            at = (at + 1) % players;
        }
        if !stuck.is_empty() {
            lines.push(ReportLine::everyone(format!(
                "Passed over, as they can claim no tile: {}",
                and_list(&stuck)
            )));
        }
        if !passed.is_empty() {
            lines.push(ReportLine::everyone(format!(
                "Passed over, as they passed since the last bid: {}",
                and_list(&passed)
            )));
        }
    }

    fn place_report(
        &self,
        before: &State,
        seat: Seat,
        steps: &[Step],
        after: &State,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        let who = name_of(names, seat);
        let mut still: Vec<u8> = before.players[seat].won.clone();
        for step in steps {
            match *step {
                Step::Place {
                    tile,
                    cell,
                    rotation,
                } => {
                    let roads = before
                        .offer
                        .get(usize::from(tile))
                        .and_then(|slot| self.tiles.get(usize::from(slot.tile)))
                        .map(|t| self.roads_text(cell, rotated(t.outlets, rotation)))
                        .unwrap_or_default();
                    lines.push(ReportLine::everyone(format!(
                        "{who} placed {} at {} r{rotation}: {roads}",
                        self.offer_tile(&before.offer, tile),
                        cell.name()
                    )));
                    still.retain(|&w| w != tile);
                }
                Step::Discard { tile } => {
                    lines.push(ReportLine::everyone(format!(
                        "{who} discarded {}: it fits nowhere in {who}'s area",
                        self.offer_tile(&before.offer, tile)
                    )));
                    still.retain(|&w| w != tile);
                }
            }
        }
        // The scoring tracks (T13) and the enclosed areas: areas outlive the round,
        // so the state after tells them even when the next round has begun.
        let old = self.score(before, seat);
        let new = self.score(after, seat);
        let changes: Vec<String> = (0..5)
            .filter(|&c| old.counts[c] != new.counts[c])
            .map(|c| {
                format!(
                    "{} {} -> {}",
                    self.letters.get(c).copied().unwrap_or('?'),
                    old.counts[c],
                    new.counts[c]
                )
            })
            .collect();
        if !changes.is_empty() {
            lines.push(ReportLine::everyone(format!(
                "{who}'s symbols: {}",
                changes.join(", ")
            )));
        }
        if new.enclosed != old.enclosed {
            lines.push(ReportLine::everyone(format!(
                "{who}: enclosed areas {} -> {}",
                old.enclosed, new.enclosed
            )));
        }
        if !still.is_empty() {
            let left: Vec<String> = still
                .iter()
                .map(|&w| self.offer_tile(&before.offer, w))
                .collect();
            lines.push(ReportLine::everyone(format!(
                "{who} still has {} to place",
                and_list(&left)
            )));
        }
    }

    /// The end of the auction, of the round and of the game, as far as the turn
    /// reached them.
    fn round_report(
        &self,
        before: &State,
        after: &State,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        if matches!(before.phase, Phase::Cards) && matches!(after.phase, Phase::Bidding { .. }) {
            if let Phase::Bidding { seat } = after.phase {
                lines.push(ReportLine::everyone(format!(
                    "Every card is chosen: {}, the starting player, bids first",
                    name_of(names, usize::from(seat))
                )));
            }
            return;
        }
        if matches!(before.phase, Phase::Bidding { .. })
            && !matches!(after.phase, Phase::Bidding { .. })
        {
            self.auction_end(before, after, names, lines);
        }
        if after.round != before.round {
            lines.push(ReportLine::everyone(format!(
                "Round {} begins: {} has the starting-player card; {} chits each",
                after.round,
                name_of(names, usize::from(after.starting)),
                self.chits_in_hand
            )));
            lines.push(ReportLine::everyone(format!(
                "{} drawn face up; {} left in the pile",
                plural(after.offer.len(), "tile", "tiles"),
                after.pile.len()
            )));
            // The offer in lines a report shows whole, each telling a draw.
            let mut text = format!("Round {}'s offer:", after.round);
            for (index, slot) in after.offer.iter().enumerate() {
                let item = format!(
                    " {}:{}",
                    letter(u8::try_from(index).unwrap_or(u8::MAX)),
                    self.tile_code(slot.tile)
                );
                if text.len() + item.len() > REPORT_WIDTH {
                    lines.push(ReportLine::everyone(text).drawn());
                    text = format!("Round {}'s offer, continued:", after.round);
                }
                text.push_str(&item);
            }
            lines.push(ReportLine::everyone(text).drawn());
        } else if after.phase == Phase::Over && before.phase != Phase::Over {
            let winners: Vec<String> = Rules::winners(self, after)
                .into_iter()
                .map(|seat| name_of(names, seat))
                .collect();
            let text = match winners.len() {
                1 => format!("winner: {}", and_list(&winners)),
                _ => format!("winners, sharing the win: {}", and_list(&winners)),
            };
            lines.push(ReportLine::everyone(format!(
                "The game is over after round {}; {text}",
                before.round
            )));
        }
    }

    /// Who won which tile and for how much, and what became of the others (T10).
    fn auction_end(
        &self,
        before: &State,
        after: &State,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        // The offer as the auction closed: `before` with the last turn's bids.
        let closing: Vec<Option<Bid>> = before
            .offer
            .iter()
            .enumerate()
            .map(|(index, slot)| {
                match after.phase {
                    // Placing keeps the round's offer with its bids; an auction that
                    // ends otherwise ended on a pass, which changed no bid.
                    Phase::Placing => after.offer.get(index).and_then(|o| o.bid),
                    _ => slot.bid,
                }
            })
            .collect();
        lines.push(ReportLine::everyone("The auction is over"));
        for (index, bid) in closing.iter().enumerate() {
            let (Some(bid), Ok(index)) = (bid, u8::try_from(index)) else {
                continue;
            };
            lines.push(ReportLine::everyone(format!(
                "{} won {} for {}",
                name_of(names, usize::from(bid.seat)),
                self.offer_tile(&before.offer, index),
                plural(usize::from(bid.chits), "chit", "chits")
            )));
        }
        let unclaimed: Vec<String> = closing
            .iter()
            .enumerate()
            .filter(|(_, bid)| bid.is_none())
            .map(|(index, _)| {
                let index = u8::try_from(index).unwrap_or(u8::MAX);
                format!(
                    "{}:{}",
                    letter(index),
                    self.tile_code(before.offer[usize::from(index)].tile)
                )
            })
            .collect();
        if !unclaimed.is_empty() {
            let fate = if self.return_unclaimed {
                "back into the pile"
            } else {
                "discarded"
            };
            lines.push(ReportLine::everyone(format!(
                "Unclaimed, {fate}: {}",
                unclaimed.join(" ")
            )));
        }
        if after.phase == Phase::Placing {
            let placing: Vec<String> = (0..after.players.len())
                .filter(|&s| !after.players[s].won.is_empty())
                .map(|s| name_of(names, s))
                .collect();
            lines.push(ReportLine::everyone(format!(
                "Now placing the tiles won: {}",
                and_list(&placing)
            )));
        }
    }

    /// Why the game ended and who won, a sentence without its period (T15, T17).
    pub(crate) fn ending(&self, state: &State, names: &[String]) -> String {
        let scores: Vec<Score> = (0..state.players.len())
            .map(|seat| self.score(state, seat))
            .collect();
        let rounds = format!("all {} rounds are played", self.rounds);
        let Some(best) = scores.iter().map(|s| s.total).max() else {
            return rounds;
        };
        let top: Vec<usize> = (0..scores.len())
            .filter(|&s| scores[s].total == best)
            .collect();
        let who = |seats: &[usize]| {
            and_list(&seats.iter().map(|&s| name_of(names, s)).collect::<Vec<_>>())
        };
        let points = plural(usize::try_from(best).unwrap_or(0), "point", "points");
        if let [winner] = top[..] {
            return format!(
                "{rounds}, and {} wins with the most points, {points}",
                who(&[winner])
            );
        }
        // T17: the most enclosed areas, then the furthest on the improvement track.
        let most_enclosed = top.iter().map(|&s| scores[s].enclosed).max().unwrap_or(0);
        let by_enclosed: Vec<usize> = top
            .iter()
            .copied()
            .filter(|&s| scores[s].enclosed == most_enclosed)
            .collect();
        let tied = format!("{rounds}; {} tie on {points}", who(&top));
        if let [winner] = by_enclosed[..] {
            return format!(
                "{tied}, and {} wins with the most enclosed areas, {most_enclosed} (T17)",
                who(&[winner])
            );
        }
        let furthest = by_enclosed
            .iter()
            .map(|&s| state.players[s].improvement)
            .max()
            .unwrap_or(0);
        let by_track: Vec<usize> = by_enclosed
            .iter()
            .copied()
            .filter(|&s| state.players[s].improvement == furthest)
            .collect();
        if let [winner] = by_track[..] {
            return format!(
                "{tied}; {} also tie on enclosed areas, {most_enclosed}, and {} wins as the furthest on the improvement track, {furthest} (T17)",
                who(&by_enclosed),
                who(&[winner])
            );
        }
        format!(
            "{tied}; {} also tie on enclosed areas ({most_enclosed}) and on the improvement track ({furthest}), and share the win (T17)",
            who(&by_track)
        )
    }

    /// `Rules::game_end`: why, and each player's score part by part (T15, T16).
    pub(crate) fn end_of_game(&self, state: &State, names: &[String]) -> GameEnd {
        let breakdown = (0..state.players.len())
            .map(|seat| self.score_lines(state, seat))
            .collect();
        GameEnd {
            reason: self.ending(state, names),
            breakdown,
        }
    }

    /// A player's score part by part; the parts that score end in "N points".
    pub(crate) fn score_lines(&self, state: &State, seat: Seat) -> Vec<String> {
        let score = self.score(state, seat);
        let colour = |c: usize| self.colour_names.get(c).map_or("?", String::as_str);
        let counts: Vec<String> = (0..5)
            .map(|c| format!("{} {}", colour(c), score.raw[c]))
            .collect();
        let capped: Vec<String> = (0..5)
            .filter(|&c| score.raw[c] != score.counts[c])
            .map(|c| format!("{} {}", colour(c), score.counts[c]))
            .collect();
        let improvement = state.players[seat].improvement;
        let rule = match self.improvement_steps.get(3 - score.rank.min(3)) {
            Some(step) if score.rank < 4 => {
                format!("from {step}, the {} colour scores", rank_name(score.rank))
            }
            _ => format!(
                "below {}, the least colour scores",
                self.improvement_steps.first().copied().unwrap_or(0)
            ),
        };
        let scored: Vec<&str> = (0..5)
            .filter(|&c| i64::from(score.counts[c]) == score.colour_points)
            .map(colour)
            .collect();
        let points = |n: i64| plural(usize::try_from(n).unwrap_or(0), "point", "points");
        let colour_line = match scored[..] {
            [one] => format!(
                "{} colour, {one} with {}: {}",
                capitalised(rank_name(score.rank)),
                score.colour_points,
                points(score.colour_points)
            ),
            _ => format!(
                "{} colour, {} tied at {}: {}",
                capitalised(rank_name(score.rank)),
                and_list(&scored.iter().map(|c| (*c).to_string()).collect::<Vec<_>>()),
                score.colour_points,
                points(score.colour_points)
            ),
        };
        let enclosed = i64::try_from(score.enclosed).unwrap_or(0);
        let mut lines = vec![format!("Symbols: {}", counts.join(", "))];
        if !capped.is_empty() {
            let cap = self.track_cap.unwrap_or_default();
            lines.push(format!("Counted at most {cap}: {}", capped.join(", ")));
        }
        lines.extend([
            format!("Improvement {improvement}: {rule}"),
            colour_line,
            format!("Areas enclosed by roads: {}", points(enclosed)),
            format!("Total: {}", points(score.total)),
        ]);
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::{Audience, Viewer};
    use crate::engine::DrawStream;

    fn names() -> Vec<String> {
        ["Ann", "Bob", "Cid", "Dee"]
            .iter()
            .map(|n| (*n).to_string())
            .collect()
    }

    /// Over whole random games: every turn reports something; a card is named only
    /// to its owner until it opens; the lines that tell a draw are the new offers;
    /// the scores line comes exactly when a score changed; at the end each player's
    /// parts add up to their score.
    #[test]
    fn every_turn_of_random_games_reports_what_it_did() {
        let rules = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Default::default())
            .expect("built-in data");
        let names = names();
        for seed in 0..4 {
            let mut chance = DrawStream::for_testing(seed);
            let mut picker = DrawStream::for_testing(seed + 100);
            let mut state = rules.setup(&names, &mut chance).expect("setup");
            while !rules.is_over(&state) {
                let waiting = rules.to_move(&state);
                let seat = waiting[picker.index(waiting.len() as u32) as usize];
                let mv = rules
                    .sample_move(&state, seat, &mut picker)
                    .expect("a move");
                let next = rules
                    .apply(&state, seat, &mv, &mut chance)
                    .expect("applies");
                let lines = rules.report(&state, seat, &mv, &next, &names);
                assert!(!lines.is_empty(), "{mv:?}");
                if let Move::Card(card) = mv {
                    let secret = format!("card {card}");
                    for line in &lines {
                        let private = line.audience == Audience::Seat(seat);
                        assert_eq!(line.text.contains(&secret), private, "{}", line.text);
                    }
                    assert!(lines
                        .iter()
                        .any(|l| l.seen_by(Viewer::Player((seat + 1) % 4))));
                }
                for line in &lines {
                    assert_eq!(
                        line.tells_draw,
                        line.text.contains("'s offer: "),
                        "{}",
                        line.text
                    );
                }
                let changed = rules.scores(&state) != rules.scores(&next);
                let told = lines.iter().any(|l| l.text.starts_with("Scores: "));
                assert_eq!(changed, told, "{lines:?}");
                state = next;
            }
            let end = rules.game_end(&state, &names);
            assert!(
                end.reason.starts_with("all 8 rounds are played"),
                "{}",
                end.reason
            );
            for (seat, lines) in end.breakdown.iter().enumerate() {
                let points = |line: &str| -> Option<i64> {
                    let number = line
                        .strip_suffix(" points")
                        .or_else(|| line.strip_suffix(" point"))?;
                    number.rsplit(' ').next()?.parse().ok()
                };
                let parts: i64 = lines
                    .iter()
                    .filter(|l| !l.starts_with("Total"))
                    .filter_map(|l| points(l))
                    .sum();
                let total = lines
                    .iter()
                    .find(|l| l.starts_with("Total"))
                    .and_then(|l| points(l));
                assert_eq!(parts, rules.scores(&state)[seat], "{lines:?}");
                assert_eq!(total, Some(parts), "{lines:?}");
                assert!(lines.iter().all(|l| l.len() <= 70), "{lines:?}");
            }
        }
    }
}
