//! `pbem audit`: everything an outsider can check, turn by turn.
//!
//! Signatures of every record, the hash chain, the seed against its commitment, every
//! draw re-derived, every move replayed and every state hash compared. Each failure
//! names the record; the report passes only when nothing failed.

use std::fmt::Write as _;

use super::digest::{hash_from_hex, to_hex, Hash};
use super::fairness::{RecordingChance, ReplayChance, Seed, TurnDraws};
use super::file::{hashes, Draw};
use super::keyring::Keyring;
use super::rules::{Chance, Rules};
use super::session::{signatures_hold, state_hash_of, EngineError, Game};

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
        if self.passed() {
            let _ = writeln!(out, "audit passed");
        } else {
            let _ = writeln!(out, "audit FAILED: {} problem(s)", self.problems.len());
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
                    super::session::mismatch_text(&m)
                )
            }),
        }
    }
}

fn describe(draws: &[Draw]) -> String {
    format!("[{}]", super::file::draws_text(draws))
}

fn chance_for<'a>(
    seed: Option<&'a Seed>,
    game_id: &'a str,
    turn: u64,
    anchor: &Hash,
    player: &str,
    move_text: &str,
    recorded: &'a [Draw],
) -> AuditChance<'a> {
    match seed {
        Some(seed) => AuditChance::Derived(Box::new(RecordingChance::new(
            TurnDraws {
                seed,
                game_id,
                turn,
            },
            anchor,
            player,
            move_text,
        ))),
        None => AuditChance::Recorded(ReplayChance::new(recorded, None)),
    }
}

pub(crate) fn audit<R: Rules>(game: &Game<R>, keyring: Option<&Keyring>) -> AuditReport {
    let mut report = AuditReport::default();
    if let Err(error) = audit_into(game, keyring, &mut report) {
        report.fail(format!("audit stopped: {error}"));
    }
    report
}

fn audit_into<R: Rules>(
    game: &Game<R>,
    keyring: Option<&Keyring>,
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

    // Genesis: hash, signature, setup draws, state.
    let body = game.genesis_body()?;
    let mut chance = chance_for(seed.as_ref(), id, 0, &body, "", "", &genesis.draws);
    let mut state = game.rules.setup(&game.names, &mut chance)?;
    let mut problems = Vec::new();
    if let Some(problem) = chance.verdict(&genesis.draws) {
        problems.push(problem);
    }
    let after = state_hash_of(&game.rules.public_state(&state))?;
    if to_hex(&after) != genesis.state_hash {
        problems.push("the setup does not produce the recorded state".into());
    }
    let genesis_hash = hashes::genesis(&body, &genesis.draws, &after);
    let mut prev = match hash_from_hex(&genesis.hash) {
        Some(hash) if Some(hash) == genesis_hash => hash,
        _ => {
            problems.push("genesis does not match its hash".into());
            genesis_hash.unwrap_or([0; 32])
        }
    };
    // The chain of record hashes first, so that every signature can be checked in one
    // batch; the moves are replayed in order after that.
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
        let mut chance = chance_for(
            seed.as_ref(),
            id,
            record.turn,
            &prev,
            &record.player,
            &record.move_text,
            &record.draws,
        );
        let next = game
            .rules
            .parse_move(&state, seat, &record.move_text)
            .and_then(|mv| game.rules.apply(&state, seat, &mv, &mut chance));
        match next {
            Ok(next) => {
                if let Some(problem) = chance.verdict(&record.draws) {
                    problems.push(problem);
                }
                let after = to_hex(&state_hash_of(&game.rules.public_state(&next))?);
                if after != record.state_hash {
                    problems.push("the move does not produce the recorded state".into());
                }
                state = next;
            }
            Err(error) => problems.push(format!("the move does not replay: {error}")),
        }
        let detail = format!("{:?}, {} draw(s)", record.move_text, record.draws.len());
        conclude(report, &label, &detail, problems);
        prev = computed;
    }

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

fn conclude(report: &mut AuditReport, label: &str, detail: &str, problems: Vec<String>) {
    if problems.is_empty() {
        report.ok(format!("{label}: ok, {detail}"));
    } else {
        for problem in problems {
            report.fail(format!("{label}: {problem}"));
        }
    }
}
