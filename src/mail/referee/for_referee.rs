//! Mail only the referee should read, and answers to players who ask where a game
//! stands.
//!
//! Messages that match no game (a stranger, a bounce, a player writing afresh instead
//! of replying to a notice) are kept in `unmatched.mail/` beside the games. The
//! referee hears of them, and of the questions players asked in their games, in one
//! short message a day at most ([`Referee::tell_referee`]), sent to the referee's own
//! address (`from`). It names each message (when, from, subject, what pbem made of it,
//! where it is kept) and never quotes its words: a stranger's text must not pass for
//! pbem's. The message is one of pbem's own (its Message-ID says so), so when the
//! referee's address is the mailbox pbem reads, it is filed as such and never
//! reported on.
//!
//! A player who asks ("is it my turn soon?") is answered with where the game stands;
//! a player who wrote to the referee without naming a game is told where each of
//! their games stands, at most once a day, without a reply code (the sender of such a
//! message is not proven; the answer goes to the player's own address and tells only
//! what every player may know).

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::archive::{self, Archive, Entry, Throttle, Waiting};
use super::mailer::{roster, seats_to_move, Referee};
use crate::basics::store::{self, Access};
use crate::engine::file::FileText;
use crate::mail::intake::Incoming;
use crate::mail::outbound::compose::{self, Draft, Enclosed};
use crate::mail::outbound::outbox::{Flushed, Outbox};
use crate::mail::outbound::transport::address_of;
use crate::mail::MailError;
use crate::words;

/// At most one message to the referee per this many seconds.
pub const REFEREE_INTERVAL: u64 = 24 * 3600;
/// At most one "where your games stand" per address per this many seconds.
pub const STATUS_INTERVAL: u64 = 24 * 3600;
/// The folder beside the games for mail that matches no game.
pub(crate) const UNMATCHED: &str = "unmatched.mail";
/// How many messages that match no game are kept (the newest; each cut at 256 KiB,
/// so at most 256 MiB): older ones are removed as new ones come, and the referee's
/// message about such mail says how many were.
pub const UNMATCHED_MESSAGES: usize = 1000;
/// The outbox of the mail to the referee, beside the games.
pub(crate) const REFEREE_OUTBOX: &str = "referee.outbox";
/// How much of a subject or an address a message to the referee shows.
const SHOWN_CHARS: usize = 100;
/// The most messages one message to the referee lists (the newest).
const LISTED_MOST: usize = 50;
/// How many held messages the referee was told of are remembered, so as not to be
/// told again: far more than a mailbox holds back at once.
const HELD_REMEMBERED: usize = 1000;

/// How many faults that held mail back are remembered, each with when the referee
/// was last told of it.
const FAULTS_REMEMBERED: usize = 100;

/// What the referee was told of mail held back: per fault (a digest of its text).
#[derive(Debug, Default, Serialize, Deserialize)]
struct HeldTold {
    faults: std::collections::BTreeMap<String, FaultTold>,
}

/// When the referee was last told of one fault, and which messages it held then.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FaultTold {
    /// Unix seconds of the last message about it.
    sent: u64,
    /// The keys (`message_key`) of the messages named, oldest first.
    messages: Vec<String>,
}

/// When the referee was last told, and up to which archived message.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Told {
    /// Unix seconds of the last message to the referee.
    sent: u64,
    /// The archive time of the newest message it reported.
    until: u64,
    /// The number of the newest message for no game reported (its file's number in
    /// `unmatched.mail/`); 0 in a file written before it was kept.
    #[serde(default)]
    unmatched_through: u64,
    /// How many messages for no game had been removed from `unmatched.mail/` to keep
    /// the newest [`UNMATCHED_MESSAGES`], when it was sent.
    #[serde(default)]
    removed: u64,
}

/// Whether a player's text asks rather than moves: its last line ends in a question
/// mark. No move of any game ends in one.
pub(crate) fn is_question(text: &str) -> bool {
    text.lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .is_some_and(|line| line.trim_end().ends_with(['?', '？']))
}

/// Whether a message is pbem's own come back (the referee's address is the mailbox
/// pbem reads): its Message-ID is one pbem makes.
pub(crate) fn is_our_own(incoming: &Incoming, domain: &str) -> bool {
    incoming.message_id.as_deref().is_some_and(|id| {
        id.starts_with("pbem.")
            && id
                .rsplit_once('@')
                .is_some_and(|(_, at)| at.eq_ignore_ascii_case(domain))
    })
}

/// A Unix time as `2026-11-25 14:03 UTC`.
fn when(seconds: u64) -> String {
    format!(
        "{} {:02}:{:02} UTC",
        crate::mail::clock::date_text(seconds / 86_400),
        seconds % 86_400 / 3600,
        seconds % 3600 / 60
    )
}

/// Whether a game's archive entry is told to the referee in the day's message: a
/// player's question, and what a stranger or a forger sent.
pub(crate) fn is_for_the_referee(outcome: &str) -> bool {
    outcome == "question" || archive::is_strangers(outcome)
}

/// What pbem made of a message, for the referee.
fn what(entry: &Entry) -> String {
    match entry.outcome.as_str() {
        "no-game" => "matches no game; not answered".to_string(),
        "not-a-player" => "from an address that plays no part in the game it names; not answered".to_string(),
        "forged" => "claims a player's turn without their proof; refused, and the player told (at most once in 6 hours)".to_string(),
        "automatic" => format!("sent by a machine; not answered. {}", words::inert(&entry.detail, 300)),
        "unreadable" => format!("could not be read: {}", words::inert(&entry.detail, 200)),
        "question" => "a player's question; answered with where the game stands".to_string(),
        "status" => "a player's message naming no game; told where their games stand".to_string(),
        "other-folder" => format!(
            "a reply to pbem's notice of a game not in this folder; not answered. {}",
            words::inert(&entry.detail, 300)
        ),
        other => format!("{other}: {}", words::inert(&entry.detail, 200)),
    }
}

impl Referee {
    /// Tells the referee, in one message, of the mail that only they should read and
    /// that came since they were last told: what matched no game, and the questions
    /// players asked. At most once per [`REFEREE_INTERVAL`]; nothing when there is
    /// nothing new. The message waits in `referee.outbox/` beside the games until
    /// sent.
    ///
    /// # Errors
    /// The archives cannot be read, or the message cannot be composed or kept.
    pub fn tell_referee(&self, games: &Path) -> Result<(), MailError> {
        let unmatched = Archive::at(games.join(UNMATCHED));
        let outbox = Outbox::at(games.join(REFEREE_OUTBOX));
        {
            let _lock = store::lock(unmatched.dir())?;
            // A game's stranger may be the first mail for the referee: the folder
            // that remembers what they were told may not be there yet.
            store::create_private_dir(unmatched.dir()).map_err(MailError::io(unmatched.dir()))?;
            let told_path = unmatched.dir().join("told.json");
            // Missing or unreadable, the referee has not been told yet: told now.
            let told: Told = store::read_limited(&told_path, store::MAX_SMALL_FILE_BYTES)
                .ok()
                .and_then(|bytes| serde_json::from_slice(&bytes).ok())
                .unwrap_or_default();
            let now = crate::mail::clock::now();
            if told.sent != 0 && now.saturating_sub(told.sent) < REFEREE_INTERVAL {
                return Ok(());
            }
            // Mail for no game by its number in the folder, which only grows: many
            // messages come within one second.
            let new_here = |e: &Entry| match told.unmatched_through {
                0 => e.at > told.until,
                through => archive::file_number(&e.file).is_some_and(|n| n > through),
            };
            let unmatched_entries = unmatched.entries()?;
            let unmatched_through = unmatched_entries
                .last()
                .and_then(|e| archive::file_number(&e.file))
                .unwrap_or(told.unmatched_through);
            let mut items: Vec<(Entry, String)> = unmatched_entries
                .into_iter()
                .filter(|e| new_here(e) && e.outcome != "own")
                .map(|e| {
                    let kept = format!("{UNMATCHED}/{}", e.file);
                    (e, kept)
                })
                .collect();
            for path in super::games::game_files(games)? {
                let archive = Archive::beside(&path);
                let folder = archive
                    .dir()
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                // A game's archive that cannot be read is that game's fault, told of
                // when its mail is held back: it must not silence this message.
                items.extend(
                    archive
                        .entries()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|e| e.at > told.until && is_for_the_referee(&e.outcome))
                        .map(|e| {
                            let kept = format!("{folder}/{}", e.file);
                            (e, kept)
                        }),
                );
            }
            if items.is_empty() {
                return Ok(());
            }
            items.sort_by_key(|(e, _)| e.at);
            let until = items.iter().map(|(e, _)| e.at).max().unwrap_or(told.until);
            // The newest LISTED_MOST: a flood of strangers' mail makes one short message.
            let more = items.len().saturating_sub(LISTED_MOST);
            let listed: Vec<Value> = items[more..]
                .iter()
                .map(|(e, kept)| {
                    json!({
                        "when": when(e.at),
                        "what": what(e),
                        "from": words::inert(e.from.as_deref().unwrap_or("(no sender)"), SHOWN_CHARS),
                        // Only a proven player's words are shown: a stranger's subject
                        // could make this message carry their text.
                        "subject": (e.outcome == "question")
                            .then(|| words::inert(&e.subject, SHOWN_CHARS)),
                        "kept": kept,
                    })
                })
                .collect();
            let removed = unmatched.keep_newest(UNMATCHED_MESSAGES)?;
            let context = json!({
                "count": items.len(),
                "items": listed,
                "more": more,
                "removed": removed.saturating_sub(told.removed),
                "kept_most": UNMATCHED_MESSAGES,
            });
            let told = Told {
                sent: now,
                until,
                unmatched_through,
                removed,
            };
            let id = format!("pbem.referee.{now}");
            self.stage_for_referee(&outbox, "for-referee.txt", &context, &id, &told_path, &told)?;
        }
        self.try_flush(&outbox);
        Ok(())
    }

    /// Tells the referee that the messages `held` (their headers) are held back by
    /// `fault`, a fault on their side: at once for the first messages a fault holds,
    /// then at most once per [`REFEREE_INTERVAL`] while it lasts, each time naming
    /// every message it holds that they were not told of yet (`held.json` in
    /// `unmatched.mail/` remembers which, per fault). However many messages a fault
    /// holds (a stranger's flood while a game file is cut short), the referee gets one
    /// message a day about it. The message waits in `referee.outbox/` beside the
    /// games until sent. It names each message by its date and sender, never its
    /// subject or words.
    ///
    /// # Errors
    /// The record of what was told cannot be read or written, or the message cannot
    /// be composed or kept.
    pub(crate) fn tell_referee_held(
        &self,
        games: &Path,
        held: &[Vec<u8>],
        fault: &MailError,
    ) -> Result<(), MailError> {
        let fault_text = fault.to_string();
        let fault_key =
            crate::basics::digest::to_hex(&crate::basics::digest::sha256(fault_text.as_bytes()))
                [..16]
                .to_string();
        let unmatched = Archive::at(games.join(UNMATCHED));
        let outbox = Outbox::at(games.join(REFEREE_OUTBOX));
        {
            let _lock = store::lock(unmatched.dir())?;
            store::create_private_dir(unmatched.dir()).map_err(MailError::io(unmatched.dir()))?;
            let told_path = unmatched.dir().join("held.json");
            // Unreadable (or of an older version), it is started again: a second word
            // to the referee at worst.
            let mut told: HeldTold = store::read_limited(&told_path, store::MAX_SMALL_FILE_BYTES)
                .ok()
                .and_then(|bytes| serde_json::from_slice(&bytes).ok())
                .unwrap_or_default();
            let now = crate::mail::clock::now();
            let this = told.faults.entry(fault_key.clone()).or_default();
            let messages: Vec<(String, Option<Incoming>)> = held
                .iter()
                .map(|raw| {
                    let incoming = crate::mail::intake::read_header(raw)
                        .or_else(|| crate::mail::intake::read_message(raw).ok());
                    let key = super::archive::message_key(
                        incoming.as_ref().and_then(|m| m.message_id.as_deref()),
                        raw,
                    );
                    (key, incoming)
                })
                .collect();
            let new: Vec<&(String, Option<Incoming>)> = messages
                .iter()
                .filter(|(key, _)| !this.messages.contains(key))
                .collect();
            let due = this.sent == 0 || now.saturating_sub(this.sent) >= REFEREE_INTERVAL;
            if new.is_empty() || !due {
                return Ok(());
            }
            this.sent = now;
            this.messages.extend(new.iter().map(|(key, _)| key.clone()));
            let excess = this.messages.len().saturating_sub(HELD_REMEMBERED);
            this.messages.drain(..excess);
            while told.faults.len() > FAULTS_REMEMBERED {
                let oldest = told
                    .faults
                    .iter()
                    .min_by_key(|(_, fault)| fault.sent)
                    .map(|(k, _)| k.clone());
                oldest.and_then(|k| told.faults.remove(&k));
            }
            let shown =
                |text: Option<&str>| words::inert(text.unwrap_or("(no sender)"), SHOWN_CHARS);
            let more = new.len().saturating_sub(LISTED_MOST);
            let listed: Vec<Value> = new[..new.len() - more]
                .iter()
                .map(|(_, incoming)| {
                    let incoming = incoming.as_ref();
                    json!({
                        "date": incoming.and_then(|m| m.date).and_then(|d| u64::try_from(d).ok()).map(when),
                        "from": shown(incoming.and_then(|m| m.from_address.as_deref())),
                    })
                })
                .collect();
            let game = new
                .iter()
                .find_map(|(_, m)| {
                    m.as_ref()
                        .and_then(crate::mail::inbound::in_order::wanted_game)
                })
                .map(|id| words::inert(&id, 80));
            let context = json!({
                "fault": words::inert(&fault_text, 2000),
                "game": game,
                "when": when(now),
                "messages": listed,
                "more": more,
                "count": new.len(),
            });
            let id = format!("pbem.held.{fault_key}.{now}");
            self.stage_for_referee(
                &outbox,
                "referee-held.txt",
                &context,
                &id,
                &told_path,
                &told,
            )?;
        }
        self.try_flush(&outbox);
        Ok(())
    }

    /// Composes `template` to the referee's own address (Message-ID `id` at pbem's
    /// domain, so that it is filed as pbem's own should it come back) and makes it
    /// ready in `outbox` together with `record`, written to `record_path`: staged,
    /// the record written, then committed, so that a run killed between them sends
    /// it on recovery rather than never. The caller holds the lock of
    /// `unmatched.mail/`.
    fn stage_for_referee(
        &self,
        outbox: &Outbox,
        template: &str,
        context: &Value,
        id: &str,
        record_path: &Path,
        record: &impl Serialize,
    ) -> Result<(), MailError> {
        let (subject, body) = self.templates.render_mail(template, context)?;
        let message = compose::build(
            &self.settings,
            Draft {
                to_name: &self.settings.from_name(),
                to_address: &self.settings.from_address(),
                subject,
                body,
                message_id: format!("{id}@{}", self.domain()),
                thread_root: None,
                answers: None,
                enclosed: Enclosed::default(),
            },
        )?;
        // Left staged by a run killed here: made ready now.
        outbox.recover(u64::MAX)?;
        let staged = outbox.stage(0, &[message])?;
        let bytes = serde_json::to_vec(record).map_err(|error| {
            MailError::Config(format!("cannot store {}: {error}", record_path.display()))
        })?;
        store::write_atomic(record_path, &bytes, Access::Private)?;
        outbox.commit(&staged)?;
        Ok(())
    }

    /// Sends what waits in the outbox of mail to the referee and of answers to
    /// players' messages that named no game (`referee.outbox/` beside the games), as
    /// [`Referee::flush`] does for a game's.
    ///
    /// # Errors
    /// No transport is configured, or the outbox cannot be read.
    pub fn flush_referee_mail(&self, games: &Path) -> Result<Flushed, MailError> {
        let transport = self.settings.transport()?;
        let outbox = Outbox::at(games.join(REFEREE_OUTBOX));
        {
            // What a killed run staged is made ready, under the lock it staged under.
            let _lock = store::lock(&games.join(UNMATCHED))?;
            outbox.recover(u64::MAX)?;
        }
        let label = outbox.game_file();
        outbox.flush(&transport, &|id, aside| {
            self.refusal_notice(&label, id, aside)
        })
    }

    /// The answer to a player's question in a game: where it stands for them, with
    /// their reply code when it is their turn.
    pub(crate) fn question_answer(
        &self,
        game: &dyn crate::engine::driver::OpenGame,
        path: &Path,
        seat: usize,
        base: &Value,
    ) -> Result<Value, MailError> {
        let view = game.view(None, None)?;
        let roster = roster(game)?;
        let to_move = seats_to_move(&view, &roster);
        let waiting = Waiting::load(&Archive::beside(path))?;
        let waited = to_move
            .iter()
            .filter_map(|seat| waiting.seats.get(seat))
            .map(|wait| wait.since)
            .min();
        let mut context = base.clone();
        context["player"] = json!(roster.players[seat].name);
        context["your_turn"] = json!(to_move.contains(&seat));
        context["waiting_for"] = json!(waited.map(|since| super::deadlines::how_long(
            crate::mail::clock::now().saturating_sub(since)
        )));
        Ok(context)
    }

    /// Answers a message that matches no game from a player of games here: where
    /// each of their games stands, once per [`STATUS_INTERVAL`] per address. Returns
    /// whether it did.
    ///
    /// # Errors
    /// A game or the archive cannot be read, or the answer cannot be composed.
    pub(crate) fn answer_unmatched_player(
        &self,
        games: &Path,
        incoming: &Incoming,
    ) -> Result<bool, MailError> {
        let Some(sender) = incoming.from_address.as_deref() else {
            return Ok(false);
        };
        let mut name = None;
        let mut listed = Vec::new();
        for path in super::games::game_files(games)? {
            let Ok(bytes) = store::read(&path) else {
                continue;
            };
            let Ok(text) = FileText::parse(&bytes) else {
                continue;
            };
            let plays = text
                .genesis
                .players
                .iter()
                .position(|p| p.mail_address().is_some_and(|e| address_of(e) == sender));
            let Some(seat) = plays else {
                continue;
            };
            let Ok(game) = crate::ops::open_bytes(&bytes, Some(&self.keyring), true) else {
                continue;
            };
            let view = game.view(None, None)?;
            let roster = roster(game.as_ref())?;
            let to_move = seats_to_move(&view, &roster);
            let state = if view["over"] == true {
                "the game is over".to_string()
            } else if to_move.contains(&seat) {
                format!("your turn (turn {})", roster.records.len() + 1)
            } else {
                format!(
                    "{} to move (turn {})",
                    crate::ops::joined_names(&view["to_move"]),
                    roster.records.len() + 1
                )
            };
            name.get_or_insert_with(|| roster.players[seat].name.clone());
            listed.push(json!({
                "tag": format!("[pbem {}]", roster.id),
                "game": roster.game,
                "state": state,
            }));
        }
        let Some(name) = name else {
            return Ok(false);
        };
        let unmatched = Archive::at(games.join(UNMATCHED));
        let outbox = Outbox::at(games.join(REFEREE_OUTBOX));
        {
            let _lock = store::lock(unmatched.dir())?;
            let mut throttle = Throttle::load(&unmatched)?;
            if !throttle.allow("status", sender, crate::mail::clock::now(), STATUS_INTERVAL) {
                return Ok(false);
            }
            let context = json!({"player": name, "games": listed});
            let (subject, body) = self.templates.render_mail("questions.txt", &context)?;
            let domain = self.domain();
            let tag = crate::basics::digest::to_hex(&crate::basics::digest::sha256(
                incoming
                    .message_id
                    .as_deref()
                    .unwrap_or(&incoming.subject)
                    .as_bytes(),
            ));
            let message = compose::build(
                &self.settings,
                Draft {
                    to_name: &name,
                    to_address: sender,
                    subject,
                    body,
                    message_id: format!("pbem.status.{}@{domain}", &tag[..16]),
                    thread_root: None,
                    answers: incoming.message_id.as_deref(),
                    enclosed: Enclosed::default(),
                },
            )?;
            outbox.recover(u64::MAX)?;
            let staged = outbox.stage(0, &[message])?;
            throttle.save(&unmatched)?;
            outbox.commit(&staged)?;
        }
        self.try_flush(&outbox);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_ends_in_a_question_mark_and_no_move_does() {
        assert!(is_question("is it my turn soon?"));
        assert!(is_question("Hi,\nwhen does Bob move?\n\n"));
        assert!(!is_question("place E,W at A7"));
        assert!(!is_question("pass"));
        assert!(!is_question(""));
    }
}
