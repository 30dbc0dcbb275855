//! `pbem audit`: everything an outsider can check, turn by turn.
//!
//! Signatures of every record, the hash chain, the seed against its commitment, every
//! draw re-derived, every move replayed and every state hash compared. Each failure
//! names the record; the report passes only when nothing failed.

use std::fmt::Write as _;

use super::chance::DrawStream;
use super::derive::{setup_key, state_hash_of};
use super::error::EngineError;
use super::fairness::{
    sealed_commitment, RecordingChance, ReplayChance, ReplayMismatch, Scope, Seed, TurnDraws,
};
use super::file::{hashes, Draw, UndoStep, Version};
use super::keyring::Keyring;
use super::players::{find as find_bot, listed, BotId, BotPlayers};
use super::rounds::ruled_round;
use super::rules::{Chance, Rules};
use super::session::Game;
use super::signature::signatures_hold;
use super::undo::{undo_line, Effect, Ledger};
use crate::basics::digest::{hash_from_hex, to_hex, Hash};

impl<R: Rules> Game<R> {
    /// Checks everything that can be checked and reports turn by turn. The moves of
    /// bots' seats are not checked against their bots: see [`Game::audit_played`].
    pub fn audit(&self, keyring: Option<&Keyring>) -> AuditReport {
        audit(self, keyring, None)
    }

    /// [`Game::audit`], with every move of a bot's seat played again by `bots` (those
    /// the referee's machine plays) where the game keys them on the seed.
    pub fn audit_played(
        &self,
        keyring: Option<&Keyring>,
        bots: Option<&dyn BotPlayers<R>>,
    ) -> AuditReport {
        audit(self, keyring, bots)
    }
}

/// The outcome of an audit.
#[derive(Debug, Clone, Default)]
pub struct AuditReport {
    /// One line per check, in order, for people.
    pub lines: Vec<String>,
    /// What failed; empty when the audit passes.
    pub problems: Vec<String>,
    /// Whether draws were re-derived from the seed (false before the reveal without the
    /// referee's keyring).
    pub draws_derived: bool,
    /// The hashes of the chain as the file records them: genesis (turn 0), then each
    /// record by turn.
    pub chain: Vec<(u64, String)>,
    /// What could not be checked without the seed (hidden draws, sealed moves not yet
    /// opened, the moves of bots' seats), which the reveal at the end makes
    /// checkable. Not a failure.
    pub pending: Vec<String>,
    /// What this pbem cannot check at all, seed or not (the moves of a bot's seat
    /// whose bot it does not play). Not a failure.
    pub unchecked: Vec<String>,
}

impl AuditReport {
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    fn ok(&mut self, line: String) {
        self.lines.push(line);
    }

    fn fail(&mut self, line: String) {
        self.lines.push(format!("FAILED {line}"));
        self.problems.push(line);
    }

    /// Requires the chain to hold `head`, a hash a player holds from a notice or a
    /// receipt (its first 16 or more hexadecimal digits will do): a file that does not
    /// was rolled back past it, or is another game. A failure when it does not.
    pub fn require_head(&mut self, head: &str) {
        let wanted = head.trim().to_ascii_lowercase();
        let usable = wanted.len() >= 16 && wanted.bytes().all(|b| b.is_ascii_hexdigit());
        let found: Vec<u64> = self
            .chain
            .iter()
            .filter(|(_, hash)| usable && hash.starts_with(&wanted))
            .map(|(turn, _)| *turn)
            .collect();
        match found.as_slice() {
            [turn] => self.ok(format!("head {wanted} is record {turn} of this chain")),
            _ if !usable => self.fail(format!(
                "--head {head:?} is not a hash; give the head a mail showed, 16 to 64 hexadecimal digits"
            )),
            [] => self.fail(format!(
                "head {wanted} is not in this file's chain: the file was rolled back past it (or is another game); every player's mail since then holds the signed records it lacks"
            )),
            _ => self.fail(format!(
                "head {wanted} matches several records; give more of its digits"
            )),
        }
    }

    /// The whole report as text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            let _ = writeln!(out, "{line}");
        }
        if self.passed() && !self.pending.is_empty() {
            let _ = writeln!(
                out,
                "audit passed for everything checkable before the reveal; pending until the seed is revealed (the end of the game reveals it): {}",
                self.pending.join("; ")
            );
        } else if self.passed() {
            let _ = writeln!(out, "audit passed");
        } else {
            let _ = writeln!(out, "audit FAILED: {} problem(s)", self.problems.len());
        }
        if !self.unchecked.is_empty() {
            let _ = writeln!(
                out,
                "not checked by this pbem: {}",
                self.unchecked.join("; ")
            );
        }
        out
    }
}

/// Where a turn's draws come from in an audit: derived from the seed (and compared with
/// the record), or taken from the record when the seed is still secret.
enum AuditChance<'a> {
    Derived(Box<RecordingChance<'a>>),
    Recorded(ReplayChance<'a>),
}

impl Chance for AuditChance<'_> {
    fn draw(&mut self, n: u32, visibility: super::rules::Visibility) -> u32 {
        match self {
            AuditChance::Derived(chance) => chance.draw(n, visibility),
            AuditChance::Recorded(chance) => chance.draw(n, visibility),
        }
    }
}

impl AuditChance<'_> {
    /// `None` when the draws made match the record, else what differed.
    fn verdict(self, recorded: &[Draw]) -> Option<String> {
        match self {
            AuditChance::Derived(chance) if chance.draws == recorded => None,
            AuditChance::Derived(chance) => Some(format!(
                "its draws are not the ones the seed gives (recorded {}, derived {})",
                describe(recorded),
                describe(&chance.draws)
            )),
            AuditChance::Recorded(chance) => chance.finish().err().map(|m| {
                format!(
                    "its draws do not replay: {}",
                    super::fairness::mismatch_text(&m)
                )
            }),
        }
    }
}

fn describe(draws: &[Draw]) -> String {
    format!("[{}]", super::file::draws_text(draws))
}

/// The chance of one turn: derived from the seed with the turn's draw key when there
/// is one, else the recorded draws.
fn chance_for<'a>(
    seed: Option<(&'a Seed, Hash)>,
    scope: &'a Scope,
    turn: u64,
    recorded: &'a [Draw],
) -> AuditChance<'a> {
    match seed {
        Some((seed, key)) => AuditChance::Derived(Box::new(RecordingChance::new(
            TurnDraws { seed, scope, turn },
            key,
        ))),
        None => AuditChance::Recorded(ReplayChance::new(recorded, None)),
    }
}

impl AuditChance<'_> {
    /// Whether replaying stopped at a hidden draw the seed alone opens.
    fn waits_for_seed(&self) -> bool {
        matches!(
            self,
            AuditChance::Recorded(chance)
                if matches!(chance.mismatch, Some(ReplayMismatch::Sealed { .. }))
        )
    }
}

/// A seat a built-in player takes, as the audit checks its moves.
struct BotSeat {
    /// The bot as genesis names it after `bot:` (`search/1`): part of its key.
    named: String,
    bot: BotId,
    /// Whether each of its moves is played again: the game keys them on the seed, and
    /// the bots given to the audit play this one.
    checked: bool,
}

/// The seats bots take, by seat, each reported in a line; `None` for a person's.
fn bot_seats<R: Rules>(
    game: &Game<R>,
    bots: Option<&dyn BotPlayers<R>>,
    seeded: bool,
    report: &mut AuditReport,
) -> Vec<Option<BotSeat>> {
    let known = bots.map(|bots| bots.known()).unwrap_or_default();
    let mut seats = Vec::new();
    for player in &game.file.genesis.players {
        let Some(named) = player.bot() else {
            seats.push(None);
            continue;
        };
        let name = &player.name;
        let bot = match BotId::parse(named) {
            Ok(bot) => bot,
            Err(error) => {
                report.ok(format!(
                    "{name}'s seat is a bot's, but {error}: its moves are not checked against one"
                ));
                report
                    .unchecked
                    .push(format!("the moves of {name}'s seat (bot:{named})"));
                seats.push(None);
                continue;
            }
        };
        let keyed = game.bot_keyed(&bot);
        let played = find_bot(&bot, &known).is_ok();
        if !keyed {
            report.ok(format!(
                "{name}'s seat is the bot {bot}'s: {}, its moves were chosen with randomness from the system, which nobody can play again; they are checked as any move is",
                if bot.version.is_none() {
                    "named without a version"
                } else {
                    "in this file's format"
                }
            ));
        } else if !played {
            report.ok(format!(
                "{name}'s seat is the bot {bot}'s, which this pbem does not play (it plays {}): its moves are not checked against the bot; a pbem with {bot} can check them",
                listed(&known)
            ));
            report
                .unchecked
                .push(format!("the moves of {name}'s seat against the bot {bot}"));
        } else if seeded {
            report.ok(format!(
                "{name}'s seat is the bot {bot}'s: each of its moves is played again by the bot, with the key the seed gives, and compared"
            ));
        } else {
            report.ok(format!(
                "{name}'s seat is the bot {bot}'s: its moves are played again by the bot once the seed is known"
            ));
        }
        seats.push(Some(BotSeat {
            named: named.to_string(),
            bot,
            checked: keyed && played,
        }));
    }
    seats
}

/// Whether `text`, the move of the bot's seat `seat` recorded as `turn` in the position
/// `before` (`ledger` the ledger with that record read), is the move the rules force
/// there or the one the bot makes there with its key: what the record then is, in a
/// few words.
///
/// # Errors
/// What the bot would have played instead, in words.
fn check_bot_move<R: Rules>(
    game: &Game<R>,
    bots: &dyn BotPlayers<R>,
    seed: &Seed,
    seat_of_bot: &BotSeat,
    (ledger, before): (&Ledger, &R::State),
    (turn, seat): (u64, usize),
    text: &str,
) -> Result<&'static str, String> {
    let rules = &game.rules;
    // As the record would hold it: the rules' text of the move as it is recorded.
    let understood = |sent: &str| {
        rules
            .parse_move(before, seat, sent)
            .and_then(|mv| rules.as_recorded(before, seat, mv))
            .map(|mv| rules.canonical_text(&mv))
    };
    // The referee makes a move the rules force before asking the bot.
    if let Some(forced) = rules.forced_move(before, seat) {
        if understood(&rules.canonical_text(&forced)).is_ok_and(|forced| forced == text) {
            return Ok("the move the rules force");
        }
    }
    let bot = &seat_of_bot.bot;
    let key = game
        .bot_key(seed, ledger, (turn, seat), &seat_of_bot.named)
        .map_err(|error| format!("the key of the bot {bot}'s move does not derive: {error}"))?;
    let chosen = bots
        .play(bot, rules, before, seat, &mut DrawStream::new(key))
        .map_err(|_| format!("the bot {bot} is not played here"))?;
    match chosen {
        None => Err(format!(
            "the bot {bot} makes no move from this position, yet its seat's record holds one"
        )),
        Some(chosen) => match understood(&chosen) {
            Ok(chosen) if chosen == text => Ok("the bot's own move"),
            Ok(chosen) => Err(format!(
                "it is not the move the bot {bot} makes from this position with its key: the bot would have played {chosen:?}"
            )),
            Err(error) => Err(format!(
                "the bot {bot}'s move from this position ({chosen:?}) does not read: {error}"
            )),
        },
    }
}

pub(crate) fn audit<R: Rules>(
    game: &Game<R>,
    keyring: Option<&Keyring>,
    bots: Option<&dyn BotPlayers<R>>,
) -> AuditReport {
    let mut report = AuditReport::default();
    if let Err(error) = audit_into(game, keyring, bots, &mut report) {
        report.fail(format!("audit stopped: {error}"));
    }
    report
}

fn audit_into<R: Rules>(
    game: &Game<R>,
    keyring: Option<&Keyring>,
    bots: Option<&dyn BotPlayers<R>>,
    report: &mut AuditReport,
) -> Result<(), EngineError> {
    let file = &game.file;
    let genesis = &file.genesis;
    report.chain = std::iter::once((0, genesis.hash.clone()))
        .chain(file.records.iter().map(|r| (r.turn, r.hash.clone())))
        .collect();
    let id = genesis.id.as_str();
    let key = game.referee_key()?;
    report.ok(format!(
        "game {id} ({}), {} players, {} records, rules data matches its hash",
        genesis.game,
        genesis.players.len(),
        file.records.len()
    ));

    match super::invitation::check_joined(genesis) {
        Ok(Some(invitation)) => {
            report.ok(format!(
                "the players joined invitation {invitation}: its seed commitment came before their words, which genesis holds in seat order (each player checks their own):"
            ));
            let own = genesis.entropy.len().saturating_sub(genesis.players.len());
            for entry in &genesis.entropy[own..] {
                report.ok(format!("    {entry}"));
            }
        }
        Ok(None) => {}
        Err(error) => report.fail(format!("genesis: {error}")),
    }
    let seed = match game.seed(keyring) {
        Ok(Some(seed)) => {
            let source = if file.seed.is_some() {
                "revealed in the file"
            } else {
                "from the referee's keyring"
            };
            report.ok(format!(
                "seed {source}: matches the commitment; every draw is re-derived"
            ));
            report.draws_derived = true;
            if game.version.marks_rounds() {
                match game.derived_id(&seed) {
                    Ok(derived) if derived == *id => {
                        report.ok(format!("game id {id}: derived from the seed and genesis"))
                    }
                    Ok(derived) => report.fail(format!(
                        "genesis: the game id {id} is not the one the seed and genesis give ({derived})"
                    )),
                    Err(error) => report.fail(format!("genesis: {error}")),
                }
            }
            Some(seed)
        }
        Ok(None) => {
            report.ok("seed not revealed yet: draws are replayed as recorded; they can be re-derived after the reveal".into());
            None
        }
        Err(error) => {
            report.fail(format!("seed: {error}"));
            None
        }
    };

    // Bots' seats: whose moves are played again, and with what.
    let bot_seats = bot_seats(game, bots, seed.is_some(), report);
    // The bots' moves replayed that wait for the seed to be played again, by turn.
    let mut bots_pending: Vec<u64> = Vec::new();

    // Genesis: hash, signature, setup draws, state.
    let body = game.genesis_body()?;
    let scope = game.scope()?;
    let keyed = seed
        .as_ref()
        .map(|seed| (seed, setup_key(game.version, seed, id, &body)));
    let mut chance = chance_for(keyed, &scope, 0, &genesis.draws);
    let setup = game.rules.setup(&game.names, &mut chance);
    let mut problems = Vec::new();
    // Set once replaying needs what only the seed opens: from there the moves wait for
    // the reveal, while hashes, signatures and openings are still checked.
    let mut pending: Option<String> = None;
    // `None` only while pending: no move is replayed from then on.
    let mut state = None;
    if chance.waits_for_seed() {
        pending = Some("the setup's hidden draws and every move after them".into());
    } else {
        let setup = setup?;
        if let Some(problem) = chance.verdict(&genesis.draws) {
            problems.push(problem);
        }
        let after = state_hash_of(&game.rules.public_state(&setup))?;
        if to_hex(&after) != genesis.state_hash {
            problems.push("the setup does not produce the recorded state".into());
        }
        state = Some(setup);
    }
    let recorded_state = hex_field_or_zero(&genesis.state_hash);
    let genesis_hash = hashes::genesis(&body, &genesis.draws, &recorded_state);
    let mut prev = match hash_from_hex(&genesis.hash) {
        Some(hash) if Some(hash) == genesis_hash => hash,
        _ => {
            problems.push("genesis does not match its hash".into());
            genesis_hash.unwrap_or([0; 32])
        }
    };
    // The chain of record hashes first, so that every signature can be checked in one
    // batch; the moves are replayed in order after that.
    let mut opened = std::collections::BTreeSet::new();
    let mut chain = Vec::with_capacity(file.records.len());
    let mut broken = None;
    for (expected_turn, record) in (1..).zip(&file.records) {
        match game.record_hash(record, expected_turn, chain.last().unwrap_or(&prev)) {
            Ok(hash) => chain.push(hash),
            Err(error) => {
                broken = Some(error);
                break;
            }
        }
    }
    let signed: Vec<(Hash, &str)> = std::iter::once((prev, genesis.signature.as_str()))
        .chain(
            chain
                .iter()
                .copied()
                .zip(file.records.iter().map(|r| r.signature.as_str())),
        )
        .collect();
    let holds = signatures_hold(&key, &signed);
    if !holds[0] {
        problems.push("the referee's signature does not verify".into());
    }
    conclude(
        report,
        "genesis",
        &format!("{} setup draw(s)", genesis.draws.len()),
        problems,
    );

    // Steps of taking back moves are checked from the records alone; an undo returns
    // to the position after an earlier record, so positions are kept where one does.
    let mut ledger = Ledger::new(game.names.len());
    let restores = file
        .records
        .iter()
        .any(|r| r.undo.is_some_and(|u| u.step == UndoStep::Undo));
    let mut positions: Vec<Option<R::State>> = Vec::new();
    if restores {
        positions.push(state.clone());
    }
    // Format 3: the seats awaited before each move, by turn, to check the rounds the
    // records mark against the rules.
    let mut awaited_before: std::collections::BTreeMap<
        u64,
        (super::rules::RoundLabel, Vec<usize>),
    > = std::collections::BTreeMap::new();
    for (index, (expected_turn, record)) in (1..).zip(&file.records).enumerate() {
        let mut problems = Vec::new();
        let label = format!("turn {expected_turn} ({})", record.player);
        let Some(&computed) = chain.get(index) else {
            if let Some(error) = broken.take() {
                report.fail(format!("{label}: {error}"));
            }
            return Ok(());
        };
        if to_hex(&computed) != record.hash {
            problems.push("its contents do not match its hash".into());
        }
        if !holds[index + 1] {
            problems.push("the referee's signature does not verify".into());
        }
        let seat = game.seat_of(&record.player)?;
        // The round the rules give a move here, checked before the ledger reads it.
        let ruled_round = match state.as_ref().filter(|_| pending.is_none()) {
            Some(before) if game.version.marks_rounds() && record.undo.is_none() => {
                let now = (game.rules.round_label(before), game.rules.to_move(before));
                let before_last = ledger
                    .last_standing()
                    .and_then(|(last, _, _)| awaited_before.get(&last));
                let ruled = ruled_round(&ledger, &now, before_last, record.turn, seat);
                awaited_before.insert(record.turn, now);
                Some(ruled)
            }
            _ => None,
        };
        if let Some(ruled) = ruled_round.filter(|ruled| *ruled != record.round) {
            problems.push(format!(
                "it marks {}, the rules make it {}",
                round_words(record.round),
                round_words(ruled)
            ));
        }
        let effect = match ledger.step(record.turn, seat, record) {
            Ok(effect) => effect,
            Err(refused) => {
                problems.push(format!(
                    "it takes back moves as the game did not allow: {}",
                    refused.problem
                ));
                Effect::Unchanged
            }
        };
        if let Some(undo) = record.undo {
            // The position it leaves: the one before it, or the one it returns to.
            let (expected_hash, restored) = match effect {
                Effect::Restore { after } => (
                    match after {
                        0 => Some(genesis.state_hash.as_str()),
                        n => file
                            .records
                            .get(n as usize - 1)
                            .map(|r| r.state_hash.as_str()),
                    },
                    positions.get(after as usize).cloned().flatten(),
                ),
                _ => (
                    match index {
                        0 => Some(genesis.state_hash.as_str()),
                        i => file.records.get(i - 1).map(|r| r.state_hash.as_str()),
                    },
                    state.clone(),
                ),
            };
            if expected_hash != Some(record.state_hash.as_str()) {
                problems.push("it does not leave the position it names".into());
            }
            if state
                .as_ref()
                .filter(|_| pending.is_none())
                .is_some_and(|s| game.rules.is_over(s))
            {
                problems.push("it comes after the end of the game".into());
            }
            if pending.is_none() {
                state = restored;
            }
            if restores {
                positions.push(state.clone());
            }
            conclude(report, &label, &undo_line(&record.player, undo), problems);
            prev = computed;
            continue;
        }
        problems.extend(check_openings(game, seed.as_ref(), index, &mut opened));
        // Format 4: a seat's second move of a round carries the seat's moves of the
        // round as one (checked against the rules on replay), any other move none.
        let earlier_in_round = (game.version == Version::V4)
            .then(|| game.earlier_in_round(&ledger, record.turn, seat))
            .flatten();
        if game.version == Version::V4 {
            match (earlier_in_round, &record.combined) {
                (Some(earlier), None) => problems.push(format!(
                    "it is {}'s second move of the round (after turn {earlier}) but carries no combined move",
                    record.player
                )),
                (None, Some(_)) => problems.push(format!(
                    "it carries a combined move but is {}'s first move of the round",
                    record.player
                )),
                _ => {}
            }
        }
        // The move: in clear, or sealed and opened by the seed or a later record. Its
        // text is never printed while it could still be a secret.
        let text = match game.move_of(seed.as_ref(), record) {
            Ok(text) => text,
            Err(error) => {
                problems.push(error.to_string());
                None
            }
        };
        let shown = match (&record.sealed, &text) {
            (None, _) => format!("{:?}", record.move_text),
            (Some(_), _) => match game.opening_of(record.turn) {
                Some(opening) => format!("a sealed move, opened: {:?}", opening.move_text),
                None => "a sealed move".to_string(),
            },
        };
        let mut detail = format!("{shown}, {} draw(s)", record.draws.len());
        // Sealed exactly where the rules seal the move: a sealed move where they seal
        // none would hide a move from the players until the reveal, a move in clear
        // where they seal one would show a choice made face down.
        if let Some(before) = state.as_ref().filter(|_| pending.is_none()) {
            match (game.rules.is_sealed(before, seat), record.is_sealed()) {
                (false, true) => {
                    problems.push("it holds a sealed move where the rules seal none".into())
                }
                (true, false) => {
                    problems.push("it holds a move in clear where the rules seal it".into())
                }
                _ => {}
            }
        }
        match (state.as_ref().filter(|_| pending.is_none()), text) {
            (None, _) => detail.push_str("; replay pending"),
            (Some(_), None) => {
                pending = Some(format!(
                    "turn {} ({}'s sealed move) and every move after it",
                    record.turn, record.player
                ));
                detail.push_str("; replay pending");
            }
            (Some(before), Some(text)) => {
                let seat = game.seat_of(&record.player)?;
                // A bot's seat: the move must be the one its bot makes here.
                let bot_seat = bot_seats.get(seat).and_then(Option::as_ref);
                match (bot_seat.filter(|bot| bot.checked), bots, &seed) {
                    (Some(bot_seat), Some(bots), Some(seed)) => match check_bot_move(
                        game,
                        bots,
                        seed,
                        bot_seat,
                        (&ledger, before),
                        (record.turn, seat),
                        &text,
                    ) {
                        Ok(what) => {
                            let _ = write!(detail, "; {what}");
                        }
                        Err(problem) => problems.push(problem),
                    },
                    (Some(_), Some(_), None) => bots_pending.push(record.turn),
                    _ => {}
                }
                let keyed = match &seed {
                    Some(seed) if game.version == Version::V3 => Some((
                        seed,
                        game.draw_key_v3(seed, &ledger, (record.turn, &record.player, &text))?,
                    )),
                    Some(seed) if game.version == Version::V4 => {
                        let entry = record.combined.as_deref().unwrap_or(&text);
                        let history =
                            game.history_v4(seed, &ledger, (record.turn, &record.player, entry))?;
                        if record.history.as_deref() != Some(to_hex(&history).as_str()) {
                            problems.push(
                                "its standing history is not the one the seed and the standing moves give"
                                    .into(),
                            );
                        }
                        Some((seed, seed.draw_key_v4(&body, &history)))
                    }
                    Some(seed) => Some((
                        seed,
                        game.draw_key(
                            seed,
                            record.turn,
                            &prev,
                            &record.player,
                            &text,
                            record.is_sealed(),
                        )?,
                    )),
                    None => None,
                };
                let mut chance = chance_for(keyed, &scope, record.turn, &record.draws);
                let replayed = game.rules.parse_move(before, seat, &text).and_then(|mv| {
                    if let Some(problem) = not_as_recorded(game, before, seat, &text, &mv)? {
                        problems.push(problem);
                    }
                    if let Some(earlier) = earlier_in_round {
                        if let Some(problem) =
                            not_combined(game, before, (seat, record), earlier, &mv)?
                        {
                            problems.push(problem);
                        }
                    }
                    let opens = game.rules.opens(before, seat, &mv);
                    let next = game.rules.apply(before, seat, &mv, &mut chance)?;
                    Ok((next, opens))
                });
                // A hidden draw without the seed gives a stand-in pick, so what the
                // rules made of it (even an error) says nothing.
                let waits = chance.waits_for_seed();
                match replayed {
                    _ if waits => {
                        pending = Some(format!(
                            "turn {}'s hidden draws and every move after them",
                            record.turn
                        ));
                        detail.push_str("; replay pending");
                    }
                    Ok((next, opens)) => {
                        if let Some(problem) = chance.verdict(&record.draws) {
                            problems.push(problem);
                        }
                        if let Some(problem) = opened_as_ruled(game, record, &opens, index) {
                            problems.push(problem);
                        }
                        let after = to_hex(&state_hash_of(&game.rules.public_state(&next))?);
                        if after != record.state_hash {
                            problems.push("the move does not produce the recorded state".into());
                        }
                        state = Some(next);
                    }
                    Err(error) => problems.push(format!("the move does not replay: {error}")),
                }
            }
        }
        if restores {
            positions.push(state.clone().filter(|_| pending.is_none()));
        }
        conclude(report, &label, &detail, problems);
        prev = computed;
    }

    if !bots_pending.is_empty() {
        let turns: Vec<String> = bots_pending.iter().map(u64::to_string).collect();
        let what = format!(
            "the moves of bots' seats (turn {}) played again by their bots",
            turns.join(", ")
        );
        report.ok(format!("PENDING until the seed is revealed: {what}"));
        report.pending.push(what);
    }
    if let Some(what) = pending {
        report.ok(format!(
            "PENDING until the seed is revealed: {what}; the stored state's hash is the one the head signs"
        ));
        report.pending.push(what);
        let cached = to_hex(&state_hash_of(&file.state)?);
        let head = file
            .records
            .last()
            .map_or(&genesis.state_hash, |record| &record.state_hash);
        if cached != *head {
            report.fail("the stored state is not the state the last record names".into());
        }
        return Ok(());
    }
    let Some(state) = state else {
        // The replay stopped at a move that did not replay, reported above.
        return Ok(());
    };
    let cached = to_hex(&state_hash_of(&file.state)?);
    let replayed = to_hex(&state_hash_of(&game.rules.public_state(&state))?);
    if cached == replayed {
        report.ok("stored state equals the replayed state".into());
    } else {
        report.fail("the stored state is not the replayed state".into());
    }
    if game.rules.is_over(&state) && file.seed.is_none() {
        report.fail("the game is over but the seed has not been revealed in the file".into());
    }
    Ok(())
}

/// A hash field as bytes, or zeros when it is not hex (the hash comparison then fails
/// and says so).
fn hex_field_or_zero(text: &str) -> Hash {
    hash_from_hex(text).unwrap_or([0; 32])
}

/// Checks the openings record `index` carries: each names an earlier sealed record
/// not opened before, its move matches the commitment with its salt, and with the seed
/// the salt is the one derived. `opened` collects the turns opened so far.
fn check_openings<R: Rules>(
    game: &Game<R>,
    seed: Option<&Seed>,
    index: usize,
    opened: &mut std::collections::BTreeSet<u64>,
) -> Vec<String> {
    let records = &game.file.records;
    let record = &records[index];
    let mut problems = Vec::new();
    for opening in &record.opens {
        let target = opening
            .turn
            .checked_sub(1)
            .and_then(|i| records.get(i as usize))
            .filter(|target| target.turn < record.turn);
        let Some(sealed) = target.and_then(|target| target.sealed.as_ref()) else {
            problems.push(format!(
                "it opens turn {}, which is no earlier sealed move",
                opening.turn
            ));
            continue;
        };
        if !opened.insert(opening.turn) {
            problems.push(format!("it opens turn {} a second time", opening.turn));
        }
        let salt = hex_field_or_zero(&opening.salt);
        if hash_from_hex(&sealed.commit) != Some(sealed_commitment(&salt, &opening.move_text)) {
            problems.push(format!(
                "its opening of turn {} does not match that move's commitment",
                opening.turn
            ));
        }
        if let Some((seed, scope)) = seed.zip(game.scope().ok()) {
            if seed.seal_salt_in(&scope, opening.turn) != salt {
                problems.push(format!(
                    "its opening of turn {} has a salt the seed does not give",
                    opening.turn
                ));
            }
        }
    }
    problems
}

/// Whether the record opens exactly the sealed moves the rules open: every sealed move
/// not opened before of the seats `opens` names.
fn opened_as_ruled<R: Rules>(
    game: &Game<R>,
    record: &super::file::Record,
    opens: &[usize],
    index: usize,
) -> Option<String> {
    let earlier = &game.file.records[..index];
    let opened_before: std::collections::BTreeSet<u64> = earlier
        .iter()
        .flat_map(|r| r.opens.iter().map(|o| o.turn))
        .collect();
    let expected: Vec<u64> = earlier
        .iter()
        .filter(|r| r.is_sealed() && !opened_before.contains(&r.turn))
        .filter(|r| {
            game.seat_of(&r.player)
                .is_ok_and(|seat| opens.contains(&seat))
        })
        .map(|r| r.turn)
        .collect();
    let actual: Vec<u64> = record.opens.iter().map(|o| o.turn).collect();
    (expected != actual).then(|| {
        format!("it opens the sealed moves of turns {actual:?}, the rules open those of turns {expected:?}")
    })
}

/// Whether a record's move text is the one a move made now would be recorded as: the
/// rules' canonical text of the move it reads as (formats 3 and 4: a move is drawn on
/// as recorded, so a spelling the rules would not write could have been chosen for its
/// draws), and in format 4 also in its recorded form (the triangle auction's one order
/// of a placing turn; format 3 files were written before that rule and replay as
/// played). `None` when it is, or the format predates the rule.
///
/// # Errors
/// None; the rules' refusal of the recorded form is a finding, returned as such.
fn not_as_recorded<R: Rules>(
    game: &Game<R>,
    before: &R::State,
    seat: usize,
    text: &str,
    mv: &R::Move,
) -> Result<Option<String>, super::rules::RuleError> {
    let recorded = match game.version {
        Version::V1 | Version::V2 => return Ok(None),
        Version::V3 => game.rules.canonical_text(mv),
        Version::V4 => match game.rules.as_recorded(before, seat, mv.clone()) {
            Ok(recorded) => game.rules.canonical_text(&recorded),
            Err(error) => return Ok(Some(format!("its move cannot be recorded: {error}"))),
        },
    };
    Ok((recorded != text).then(|| {
        format!("its move {text:?} is not the rules' recorded text of that move, {recorded:?}")
    }))
}

/// Format 4: whether a seat's second move of a round carries what the rules make of
/// the seat's moves of the round as one (its `combined`). `earlier` is the turn of the
/// seat's move before it in the round.
///
/// # Errors
/// None; what does not combine is a finding, returned as such.
fn not_combined<R: Rules>(
    game: &Game<R>,
    before: &R::State,
    (seat, record): (usize, &super::file::Record),
    earlier: u64,
    mv: &R::Move,
) -> Result<Option<String>, super::rules::RuleError> {
    let earlier_text = earlier
        .checked_sub(1)
        .and_then(|at| game.file.records.get(at as usize))
        .map(|earlier| game.entry_text(None, earlier));
    let Some(Ok(Some(earlier_text))) = earlier_text else {
        return Ok(Some(format!(
            "turn {earlier}, which it follows in the round, does not read"
        )));
    };
    let combined = match game.rules.combine(before, seat, &earlier_text, mv) {
        Ok(together) => game.rules.canonical_text(&together),
        Err(error) => {
            return Ok(Some(format!(
                "its move does not combine with turn {earlier}: {error}"
            )))
        }
    };
    Ok((record.combined.as_deref() != Some(combined.as_str())).then(|| {
        format!(
            "its combined move {:?} is not what the rules make of the seat's moves of the round, {combined:?}",
            record.combined.as_deref().unwrap_or("")
        )
    }))
}

/// A round marker in words.
fn round_words(round: Option<u64>) -> String {
    match round {
        Some(round) => format!("round {round}"),
        None => "no round".to_string(),
    }
}

fn conclude(report: &mut AuditReport, label: &str, detail: &str, problems: Vec<String>) {
    if problems.is_empty() {
        report.ok(format!("{label}: ok, {detail}"));
    } else {
        for problem in problems {
            report.fail(format!("{label}: {problem}"));
        }
    }
}
