//! Incoming mail: every message a referee's mail system hands to pbem gets an outcome
//! and an archive entry. A message for a game is answered (applied, refused, stale,
//! already applied, not a player); the player is told when someone else tried to move
//! for them. Mail that matches no game is kept but never answered: its sender may be
//! forged, and an answer would be backscatter.
//!
//! Exactly once: a message is archived under its Message-ID once handled, and a note
//! (`pending-<key>` in the archive) spans its handling. A run killed between applying
//! the move and archiving it leaves the note; the retry sees that the move reached the
//! game file and finishes the archive entry instead of answering "already applied".
//! A copy delivered under another Message-ID is the same message when its sender,
//! Date, move words and the notice its reply code answers are (its fingerprint, kept
//! in the entry and the note). A reply to another notice is never a copy: the same
//! move sent for the next turn, or again after a take-back (which makes a new record,
//! so every later notice is for a later turn), is a new message, whatever its Date,
//! which RFC 5322 lets end at the minute.
//!
//! A message too long to read is answered from its header alone: a proven player is
//! told the limit. A player's text that ends in a question mark is answered with
//! where the game stands ([`super::for_referee`]), never taken for a move.
//!
//! Only trouble on the referee's side (no keyring, a game signed by another key, a file
//! that cannot be read or written, a lock held too long) is an error; the caller exits
//! so the mail server keeps the message and retries.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::archive::{self, message_key, Archive, Entry, Notes, Throttle};
use super::for_referee::{self, UNMATCHED, UNMATCHED_MESSAGES};
use super::mailer::{game_id_of, roster, Origin, Referee, Roster};
use crate::basics::store;
use crate::engine::characters::{is_refused, Lines};
use crate::engine::driver::OpenGame;
use crate::engine::error::EngineError;
use crate::engine::file::UndoStep;
use crate::engine::invitation::{is_invitation, Invitation, Joined, MAX_ENTROPY_CHARS};
use crate::mail::inbound::commands::{self, Request};
use crate::mail::inbound::in_order::{wanted_game, Handled, Receiver};
use crate::mail::intake::{self, Incoming};
use crate::mail::outbound::capability::NoticeId;
use crate::mail::outbound::compose;
use crate::mail::outbound::outbox::Outbox;
use crate::mail::outbound::outgoing::Outgoing;
use crate::mail::outbound::sent::SentNotices;
use crate::mail::outbound::transport::address_of;
use crate::mail::MailError;
use crate::ops::OpsError;
use crate::words;

/// At most one "someone tried to move for you" per player per this many seconds: each
/// forged message is archived, but a stranger must not be able to flood a player.
pub const TRIED_INTERVAL: u64 = 6 * 3600;
/// How much of a message that matches no game is archived (the rest is cut off): a
/// stranger's mail must not fill the referee's disk.
const UNMATCHED_KEPT: usize = 256 * 1024;

/// What the report and the archive say of a sealed move in place of its text.
const SEALED: &str = "a sealed move, face down until it opens";

/// The most characters of a refusal's problem, which may quote the move.
const PROBLEM_CHARS: usize = 1000;

fn entry(incoming: Option<&Incoming>, outcome: &str, detail: &str) -> Entry {
    Entry {
        file: String::new(),
        message_id: incoming.and_then(|m| m.message_id.clone()),
        from: incoming.and_then(|m| m.from_address.clone()),
        subject: incoming.map(|m| m.subject.clone()).unwrap_or_default(),
        outcome: outcome.to_string(),
        detail: detail.to_string(),
        at: crate::mail::clock::now(),
        move_text: incoming
            .map(|m| m.move_text.clone())
            .filter(|text| !text.is_empty()),
        turn: None,
        fingerprint: None,
        sealed_move: None,
    }
}

/// Keeps a message in a game's archive as much as its outcome asks: whole when it
/// changed something, its header alone when not; of strangers' mail only the newest
/// [`archive::STRANGERS_KEPT`] entries.
fn keep_bounded(archive: &Archive, raw: &[u8], kept: Entry) -> Result<(), MailError> {
    let strangers = archive::is_strangers(&kept.outcome);
    let bytes = match archive::changed_something(&kept.outcome) {
        true => raw,
        false => archive::header_only(raw),
    };
    archive.keep(bytes, kept)?;
    if strangers {
        archive.keep_newest_of(archive::is_strangers, archive::STRANGERS_KEPT)?;
    }
    Ok(())
}

/// Whether an engine error is about the message (answered to its sender) rather than
/// the referee's files or keyring (an error, so the mail server retries).
fn is_about_the_move(error: &EngineError) -> bool {
    matches!(
        error,
        EngineError::Refused(_)
            | EngineError::UnknownPlayer { .. }
            | EngineError::NotYourTurn { .. }
            | EngineError::GameOver
            | EngineError::Closed
            | EngineError::Usage(_)
            | EngineError::NeedsConfirmation { .. }
            | EngineError::Undo(_)
    )
}

/// What was wrong with a move and what would be accepted, in a player's words: a
/// player reads mail and runs no program, so where the rules' words (written for the
/// command line too) point to a pbem command, the mail says what to reply instead.
fn problem_and_remedy(error: &EngineError) -> (String, String) {
    let (problem, accepted) = match error {
        EngineError::Refused(rule) => (rule.problem.clone(), rule.accepted.clone()),
        EngineError::Undo(refused) => (refused.problem.clone(), capitalised(&refused.accepted)),
        EngineError::NeedsConfirmation { reason, understood } => (
            reason.clone(),
            format!("To make the move as it stands, reply with:\n\n    confirm {understood}"),
        ),
        EngineError::GameOver => (
            "the game is over; no more moves are accepted".to_string(),
            "The game-over mail has the result.".to_string(),
        ),
        EngineError::Closed => (
            "the game's seed has been revealed, so it is closed to moves".to_string(),
            String::new(),
        ),
        other => (other.to_string(), String::new()),
    };
    (for_players(&problem), for_players(&accepted))
}

/// The words of the command line a refusal may carry, and what a player reads in
/// their place.
const COMMAND_WORDS: &[(&str, &str)] = &[
    ("see `pbem legal`", "reply `moves` for the list"),
    (
        "`pbem show` has the final scores",
        "the game-over mail has the final scores",
    ),
    ("`pbem show` has the result", "the game-over mail has it"),
];

/// Rules' words made mail's: no pbem command named (see [`COMMAND_WORDS`]).
fn for_players(text: &str) -> String {
    COMMAND_WORDS
        .iter()
        .fold(text.to_string(), |text, (cli, mail)| {
            text.replace(cli, mail)
        })
}

/// A sentence's first letter in capitals, and a full stop at its end.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    let first: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    let mut out = format!("{first}{}", chars.as_str());
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// A player's text as a refusal quotes it: every line indented, so that no line of
/// it is wrapped or read as the refusal's own words.
fn quoted(text: &str) -> String {
    words::quoted_lines(text, QUOTED_LINE_CHARS, intake::MAX_OWN_LINES)
}

/// The most characters of one line of a player's text a refusal quotes back.
const QUOTED_LINE_CHARS: usize = 500;

/// A move's words, for telling a resend from a new move: case, spacing and the choice
/// between `;` and a new line do not matter.
fn same_words(a: &str, b: &str) -> bool {
    words(a) == words(b)
}

/// A move's words as [`same_words`] compares them, one space between each.
fn words(text: &str) -> String {
    text.to_lowercase()
        .replace(['\n', ';'], " ; ")
        .split_whitespace()
        .filter(|word| *word != ";")
        .collect::<Vec<_>>()
        .join(" ")
}

impl Receiver for Referee {
    fn receive(&self, games: &Path, raw: &[u8]) -> Result<Handled, MailError> {
        Referee::receive(self, games, raw)
    }

    fn held(&self, games: &Path, held: &[Vec<u8>], fault: &MailError) {
        // The messages are held back whether or not the referee can be told now; a
        // later pass tells them once this works.
        let _ = self.tell_referee_held(games, held, fault);
    }
}

impl Referee {
    /// Handles one raw incoming message for the games in `games`: finds the game,
    /// checks who sent it and for which turn, applies the move or refuses it, answers,
    /// archives the message with its outcome, and then (without the game's lock) sends
    /// what waits in the game's outbox.
    ///
    /// # Errors
    /// Only for trouble on the referee's side; every problem with the message is an
    /// outcome, answered by mail where there is someone to answer.
    pub fn receive(&self, games: &Path, raw: &[u8]) -> Result<Handled, MailError> {
        let incoming = match intake::read_message(raw) {
            Ok(incoming) => incoming,
            // Too long to read: its header still says who sent it and for which game,
            // so a player can be told (a move with a photo attached, say).
            Err(error) => match (&error, intake::read_header(raw)) {
                (intake::IntakeError::TooLarge { .. }, Some(header)) => header,
                _ => return self.unmatched(games, raw, None, "unreadable", error.to_string()),
            },
        };
        if for_referee::is_our_own(&incoming, &self.domain()) {
            // The referee's address is the mailbox pbem reads: what pbem sent there
            // comes back. Kept, never reported on, so it makes no loop.
            let detail = "pbem's own message to the referee; kept".to_string();
            return self.unmatched(games, raw, Some(&incoming), "own", detail);
        }
        if let Some(mark) = &incoming.automatic {
            // A vacation responder, a bounce, a list: never answered, never a move,
            // though it may cite a notice and quote its reply code (RFC 3834).
            let game = wanted_game(&incoming)
                .map(|id| format!(" about game {}", words::inert(&id, 80)))
                .unwrap_or_default();
            let detail = format!(
                "an automatic message{game} ({mark}); kept for the referee, not answered and not read as a move"
            );
            let handled = self.unmatched(games, raw, Some(&incoming), "automatic", detail)?;
            self.tell_referee_later(games);
            return Ok(handled);
        }
        let Some(path) = self.find_game(games, &incoming)? else {
            let handled = if let Some(game_id) = self.game_elsewhere(&incoming) {
                // Ours, with a reply code this referee made, for a game not here: a
                // second games folder reading the same mailbox, or a game moved away.
                let detail = format!(
                    "a reply to a notice of game {game_id}, which is not in {}: does another games folder read this mailbox, or was the game moved? Kept for the referee, not answered",
                    games.display()
                );
                self.unmatched(games, raw, Some(&incoming), "other-folder", detail)?
            } else if self.answer_unmatched_player(games, &incoming)? {
                let detail = "a player's message that names no game; told where their games stand, and kept for the referee".to_string();
                self.unmatched(games, raw, Some(&incoming), "status", detail)?
            } else {
                let detail = "no game here matches this message (no [pbem ...] subject tag or reply reference of one); kept for the referee, not answered".to_string();
                self.unmatched(games, raw, Some(&incoming), "no-game", detail)?
            };
            self.tell_referee_later(games);
            return Ok(handled);
        };
        let handled = {
            let _lock = store::lock(&path)?;
            // The game known, the message is read again against the notice it answers.
            let incoming = SentNotices::beside(&path).reread(raw, incoming);
            self.receive_locked(&path, raw, &incoming)?
        };
        self.try_flush(&Outbox::beside(&path));
        if for_referee::is_for_the_referee(&handled.outcome) {
            self.tell_referee_later(games);
        }
        Ok(handled)
    }

    /// Tells the referee of mail only they should read, if a day has passed since
    /// they were last told. The message at hand is handled and kept whatever happens
    /// here: what fails is told by the next run, or by `pbem remind`.
    fn tell_referee_later(&self, games: &Path) {
        let _ = self.tell_referee(games);
    }

    /// Keeps a message that belongs to no game, unanswered.
    fn unmatched(
        &self,
        games: &Path,
        raw: &[u8],
        incoming: Option<&Incoming>,
        outcome: &str,
        detail: String,
    ) -> Result<Handled, MailError> {
        let archive = Archive::at(games.join(UNMATCHED));
        let _lock = store::lock(archive.dir())?;
        archive.keep(
            &raw[..raw.len().min(UNMATCHED_KEPT)],
            entry(incoming, outcome, &detail),
        )?;
        archive.keep_newest(UNMATCHED_MESSAGES)?;
        Ok(Handled {
            outcome: outcome.to_string(),
            detail,
            game: None,
        })
    }

    /// The game id of a notice of this referee's that a message answers (its reply
    /// code holds), for a message no game here matches.
    fn game_elsewhere(&self, incoming: &Incoming) -> Option<String> {
        incoming
            .in_reply_to
            .iter()
            .chain(&incoming.references)
            .filter_map(|id| NoticeId::parse(id))
            .find(|id| self.secret.reply_code(&id.game_id, id.seat, id.turn) == id.code)
            .map(|id| words::inert(&id.game_id, 80))
    }

    /// The game a message belongs to: by its subject tag, else by the ids it cites.
    /// Only regular files are read: a link or a fifo planted among the games is passed
    /// over.
    ///
    /// # Errors
    /// No game matches and a file among the games cannot be read as one (cut short,
    /// half written by another tool, unreadable): the message may be that game's, so
    /// filing it as matching no game would lose it. It is a fault on the referee's
    /// side; the mail server retries, and the message is handled once the file is
    /// mended.
    fn find_game(&self, games: &Path, incoming: &Incoming) -> Result<Option<PathBuf>, MailError> {
        let Some(wanted) = wanted_game(incoming) else {
            return Ok(None);
        };
        let mut unreadable = None;
        for path in super::games::game_files(games)? {
            let id = store::read(&path).ok().and_then(|bytes| game_id_of(&bytes));
            match id {
                Some(id) if id.eq_ignore_ascii_case(&wanted) => return Ok(Some(path)),
                Some(_) => {}
                None => unreadable = unreadable.or(Some(path)),
            }
        }
        match unreadable {
            // The fault names no part of the message: it is told to the referee once
            // per fault, however many messages (and whatever tags) it holds.
            Some(path) => Err(MailError::Config(format!(
                "{} cannot be read as a game file, and no other game here is the one a message names; the message is left for the mail server to deliver again once the file is mended (or moved out of {})",
                path.display(),
                games.display()
            ))),
            None => Ok(None),
        }
    }

    /// An answer to `incoming`. With `reply_to`, the answer is to a player's seat and
    /// hangs in their thread; with the turn a reply would answer, it carries that
    /// seat's reply code in its subject and id, so the player can answer it with a
    /// move (a refusal, a preview, a list of moves).
    fn reply_mail(
        &self,
        template: &str,
        context: &serde_json::Value,
        address: &str,
        incoming: &Incoming,
        kind: &str,
        reply_to: Option<(usize, Option<u64>)>,
    ) -> Result<Outgoing, MailError> {
        let game_id = context["id"].as_str().unwrap_or("none");
        // A reply's id is unique per incoming message: derived from its id (or hash).
        let seed = incoming
            .message_id
            .clone()
            .unwrap_or_else(|| incoming.subject.clone());
        let tag = crate::basics::digest::to_hex(&crate::basics::digest::sha256(seed.as_bytes()));
        let mut context = context.clone();
        let message_id = match reply_to {
            Some((seat, Some(turn))) => {
                let code = self.secret.reply_code(game_id, seat, turn);
                context["code"] = json!(code);
                NoticeId {
                    game_id: game_id.to_string(),
                    turn,
                    seat,
                    kind: format!("{kind}-{}", &tag[..12]),
                    code,
                }
                .render(&self.domain())
            }
            _ => format!("pbem.{game_id}.re.{kind}.{}@{}", &tag[..16], self.domain()),
        };
        let (subject, body) = self.templates.render_mail(template, &context)?;
        compose::build(
            &self.settings,
            compose::Draft {
                to_name: context["player"].as_str().unwrap_or(address),
                to_address: address,
                subject,
                body,
                message_id,
                // A player's answer hangs in their thread; a stranger has none.
                thread_root: reply_to.map(|(seat, _)| {
                    crate::mail::outbound::capability::thread_root(
                        &self.secret,
                        game_id,
                        seat,
                        &self.domain(),
                    )
                }),
                answers: incoming.message_id.as_deref(),
                enclosed: compose::Enclosed::default(),
            },
        )
    }

    fn receive_locked(
        &self,
        path: &Path,
        raw: &[u8],
        incoming: &Incoming,
    ) -> Result<Handled, MailError> {
        // Of a message too long to read, the archive keeps the start (its header).
        let raw = match incoming.oversized {
            true => &raw[..raw.len().min(UNMATCHED_KEPT)],
            false => raw,
        };
        let bytes = store::read(path)?;
        let mut game = match crate::ops::open_bytes(&bytes, Some(&self.keyring), true) {
            Ok(game) => game,
            // A game still waiting for its players: only then is the file read again.
            Err(_) if is_invitation(&bytes) => {
                return self.receive_join(path, raw, incoming, &bytes)
            }
            Err(error) => return Err(error.into()),
        };
        let archive = Archive::beside(path);
        let roster = roster(game.as_ref())?;
        self.check_key(path, &roster)?;
        let records = roster.records.len() as u64;
        self.repair(path, records)?;
        let handled = |outcome: &str, detail: String| Handled {
            outcome: outcome.to_string(),
            detail,
            game: Some(path.to_path_buf()),
        };

        let mut key = message_key(incoming.message_id.as_deref(), raw);
        if let Some(id) = &incoming.message_id {
            if let Some(earlier) = archive.find(id)? {
                // Delivered again, or a run was killed after archiving it: done already.
                archive.finish_pending(&key)?;
                let detail = format!("this message was already handled ({})", earlier.outcome);
                return Ok(handled("duplicate", detail));
            }
        }
        let fingerprint = self.fingerprint(&roster, incoming);
        if let Some(other) = fingerprint
            .as_deref()
            .and_then(|fingerprint| archive.pending_fingerprint(fingerprint))
        {
            // A run handling a first copy of this message (delivered under another
            // Message-ID) was killed: this copy finishes what it began.
            key = other;
        }
        let key = key;
        let begun = archive.pending(&key);
        archive.begin_pending(&key, begun.unwrap_or(records), fingerprint.as_deref())?;
        let entry = |incoming: Option<&Incoming>, outcome: &str, detail: &str| Entry {
            fingerprint: fingerprint.clone(),
            ..entry(incoming, outcome, detail)
        };

        let base = self.context(&game.view(None, None)?, &roster);
        let finish_entry = |kept: Entry, replies: Vec<Outgoing>| -> Result<Handled, MailError> {
            let outbox = Outbox::beside(path);
            let staged = outbox.stage(records, &replies)?;
            outbox.commit(&staged)?;
            let (outcome, detail) = (kept.outcome.clone(), kept.detail.clone());
            keep_bounded(&archive, raw, kept)?;
            archive.finish_pending(&key)?;
            Ok(handled(&outcome, detail))
        };
        let finish = |outcome: &str, detail: String, replies: Vec<Outgoing>| {
            finish_entry(entry(Some(incoming), outcome, &detail), replies)
        };
        // A refusal quotes what was sent and, to a player, carries their reply code
        // for the next turn, so that replying to it with a better move works.
        let refusal = |seat_name: &str,
                       address: &str,
                       headline: &str,
                       problem: &str,
                       accepted: &str,
                       example: &str,
                       kind: &str,
                       seat: Option<usize>| {
            let mut context = base.clone();
            // The name may be a stranger's address, and the problem may quote the move.
            context["player"] = json!(words::inert(seat_name, words::FOREIGN_LINE_CHARS));
            context["headline"] = json!(headline);
            context["problem"] = json!(words::inert(problem, PROBLEM_CHARS));
            context["accepted"] = json!(accepted);
            context["example"] = json!(example);
            context["sent"] = json!(quoted(&incoming.move_text));
            let reply_to = seat.map(|seat| (seat, Some(records + 1)));
            self.reply_mail(
                "move-refused.txt",
                &context,
                address,
                incoming,
                kind,
                reply_to,
            )
        };

        let sender = incoming.from_address.clone().unwrap_or_default();
        let sender_seat = roster
            .players
            .iter()
            .position(|p| p.mail_address().is_some_and(|e| address_of(e) == sender));
        let proof = self.proof(&roster, incoming);
        let mut throttle = Throttle::load(&archive)?;
        let now = crate::mail::clock::now();

        let (seat, turn) = match (proof, sender_seat) {
            (Some((seat, turn)), Some(from)) if seat == from => (seat, turn),
            (Some((seat, _)), _) | (None, Some(seat)) => {
                // A claim on a player's turn without that player's proof, or a proof
                // sent from someone else's address: refused, and the player is told
                // (not more often than TRIED_INTERVAL).
                let player = &roster.players[seat];
                let mut replies = Vec::new();
                if let Some(address) = player.mail_address() {
                    if throttle.allow("tried", address, now, TRIED_INTERVAL) {
                        let mut context = base.clone();
                        context["player"] = json!(player.name);
                        // Nothing the sender wrote is quoted: it may be anyone's.
                        context["own_address"] = json!(sender_seat == Some(seat));
                        replies.push(self.reply_mail(
                            "someone-tried.txt",
                            &context,
                            address,
                            incoming,
                            "tried",
                            Some((seat, None)),
                        )?);
                        throttle.save(&archive)?;
                    }
                }
                let detail = format!("no proof that this message comes from {}", player.name);
                return finish("forged", detail, replies);
            }
            (None, None) => {
                // A stranger is never answered: the sender may be forged, and an
                // answer would let anyone who knows the tag make the referee mail
                // anyone. The referee hears of it in the day's message.
                let detail = format!(
                    "{} is not a player of this game; kept for the referee, not answered",
                    words::inert(&sender, words::FOREIGN_LINE_CHARS)
                );
                return finish("not-a-player", detail, Vec::new());
            }
        };

        if let Some(earlier) = self.handled_before(&archive, fingerprint.as_deref())? {
            // The same message delivered again under another Message-ID (a forwarder,
            // a mail server's retry): it was written once, for one turn, and is
            // handled once; its sender had their answer.
            let detail = format!(
                "this message was already handled ({}), delivered as {}",
                earlier.outcome,
                earlier.message_id.as_deref().unwrap_or("another message")
            );
            return finish("duplicate", detail, Vec::new());
        }

        let player = &roster.players[seat];
        let address = player.mail_address().unwrap_or_default().to_string();
        let text = incoming.move_text.trim();
        // A move that is legal for the player now, for refusals (none when it is not
        // their turn).
        let example = |game: &dyn OpenGame| -> Result<String, MailError> {
            Ok(game.example(&player.name)?.unwrap_or_default())
        };
        let refuse = |game: &dyn OpenGame,
                      headline: &str,
                      problem: &str,
                      accepted: &str,
                      kind: &str,
                      outcome: &str| {
            let reply = refusal(
                &player.name,
                &address,
                headline,
                problem,
                accepted,
                &example(game)?,
                kind,
                Some(seat),
            )?;
            finish(outcome, problem.to_string(), vec![reply])
        };
        // A sealed move is kept out of the index and the report (which cron may mail
        // on): its keyed tag stands in for it, for telling a resend from a new move.
        let applied = |turn: u64, detail: String, sealed: bool| -> Result<Handled, MailError> {
            let mut applied = entry(Some(incoming), "applied", &detail);
            applied.turn = Some(turn);
            if sealed {
                applied.sealed_move = applied
                    .move_text
                    .take()
                    .map(|text| self.secret.sealed_move_tag(&roster.id, &words(&text)));
            }
            archive.keep(raw, applied)?;
            archive.finish_pending(&key)?;
            Ok(handled("applied", detail))
        };

        if let Some((done, recorded)) = self.applied_before(&archive, &roster, begun, seat)? {
            // This very message's move reached the file before a run handling it died:
            // finish its archive entry; its notices were staged with it.
            // A sealed move's record has no text yet.
            let sealed = recorded.is_empty();
            let shown = if sealed { SEALED } else { recorded.as_str() };
            return applied(done, format!("turn {done}: {shown}"), sealed);
        }
        if incoming.oversized {
            return refuse(
                game.as_ref(),
                "Message too long",
                &format!(
                    "your message is longer than {} MiB, the most a message to the referee can be, so it was not read (a photo or another attachment?)",
                    intake::MAX_MESSAGE_BYTES / (1024 * 1024)
                ),
                "Send your move alone, as plain text without attachments, in a reply to this message.",
                "too-large",
                "too-large",
            );
        }
        let today = crate::mail::clock::now() / 86_400;
        let message = match commands::read(text, today) {
            Ok(message) => message,
            Err(misused) => {
                return refuse(
                    game.as_ref(),
                    "Not understood",
                    &misused.problem,
                    &misused.accepted,
                    "refused",
                    "refused",
                )
            }
        };
        if !message.notes.is_empty() {
            // Kept before anything else happens, so the notices of this very move
            // carry them; once per message, whatever retries.
            Notes::add(&archive, &key, &player.name, &message.notes)?;
        }
        let answer = |template: &str, kind: &str, context: serde_json::Value| {
            self.reply_mail(
                template,
                &context,
                &address,
                incoming,
                kind,
                Some((seat, Some(records + 1))),
            )
        };
        let mut context = base.clone();
        context["player"] = json!(player.name);
        let text = match message.request {
            Request::Move(text) => text,
            Request::Nothing if !message.notes.is_empty() => {
                let notes: Vec<String> = message
                    .notes
                    .iter()
                    .map(|note| words::inert(note, commands::MAX_NOTE_CHARS))
                    .collect();
                context["notes"] = json!(notes);
                let reply = answer("note-kept.txt", "note", context)?;
                return finish("noted", "a note for the next notice".into(), vec![reply]);
            }
            Request::Nothing => {
                let reply = refusal(
                    &player.name,
                    &address,
                    "No move found",
                    "no move was found at the top of your message",
                    "Write your whole turn above the quoted text.",
                    &example(game.as_ref())?,
                    "empty",
                    Some(seat),
                )?;
                return finish("refused", "no move in the message".into(), vec![reply]);
            }
            Request::Preview(text) => {
                return match game.preview(&player.name, &text) {
                    Ok(preview) => {
                        context["understood"] = json!(preview.understood);
                        context["preview"] = json!(crate::ops::preview_text(&preview).trim_end());
                        // The board as it would stand after the move; a move that
                        // draws has no outcome to show yet, so it gets the board now.
                        let board = match &preview.board_after {
                            Some(after) => self.with_legend(game.as_ref(), after),
                            None => self.personal(game.as_ref(), &player.name)?.0,
                        };
                        context["board"] = json!(board.trim_end());
                        context["board_after"] = json!(preview.board_after.is_some());
                        let reply = answer("preview.txt", "preview", context)?;
                        if preview.sealed {
                            let mut kept =
                                entry(Some(incoming), "previewed", "a preview of a sealed move");
                            kept.move_text = None;
                            return finish_entry(kept, vec![reply]);
                        }
                        finish("previewed", preview.understood.clone(), vec![reply])
                    }
                    Err(error) if is_about_the_move(&error) => {
                        let (problem, accepted) = problem_and_remedy(&error);
                        refuse(
                            game.as_ref(),
                            "Preview refused",
                            &problem,
                            &accepted,
                            "refused",
                            "refused",
                        )
                    }
                    Err(error) => Err(crate::ops::OpsError::from(error).into()),
                };
            }
            Request::Moves(filter) => {
                let moves = game
                    .moves_text(&player.name, &filter)
                    .map_err(crate::ops::OpsError::from)?;
                let words: Vec<String> = filter
                    .at
                    .iter()
                    .map(|at| format!("at {at}"))
                    .chain(filter.tile.iter().map(|tile| format!("tile {tile}")))
                    .collect();
                context["filter"] = json!(words.join(", "));
                context["moves"] = json!(moves.map(|text| text.trim_end().to_string()));
                let reply = answer("moves.txt", "moves", context)?;
                return finish("moves", "the list of moves".into(), vec![reply]);
            }
            Request::Away { until_day } => {
                return self
                    .absence(path, &roster, seat, Some(until_day), &base, incoming)
                    .and_then(|replies| {
                        let detail =
                            format!("away until {}", crate::mail::clock::date_text(until_day));
                        finish("away", detail, replies)
                    });
            }
            Request::Back => {
                return self
                    .absence(path, &roster, seat, None, &base, incoming)
                    .and_then(|replies| finish("back", "back".into(), replies));
            }
            Request::Pictures { on } => {
                let archive = Archive::beside(path);
                let mut pictures = archive::Pictures::load(&archive)?;
                if on {
                    pictures.seats_off.remove(&seat);
                } else {
                    pictures.seats_off.insert(seat);
                }
                pictures.save(&archive)?;
                context["on"] = json!(on);
                // Whether the referee keeps them off anyway, for the whole game or all.
                context["game_off"] = json!(pictures.game_off || !self.settings().pictures_on());
                let reply = answer("pictures.txt", "pictures", context)?;
                let detail = if on { "pictures on" } else { "pictures off" };
                return finish("pictures", detail.into(), vec![reply]);
            }
            Request::Digest(delivery) => {
                let archive = Archive::beside(path);
                let mut digests = archive::Digests::load(&archive)?;
                digests.set(seat, delivery);
                digests.save(&archive)?;
                let word = match delivery {
                    archive::Delivery::Daily => "daily",
                    archive::Delivery::WithMyTurn => "turn",
                    archive::Delivery::EveryMove => "off",
                };
                context["delivery"] = json!(word);
                // What is held goes with the next run of reminders once given up.
                let held = archive::Waiting::load(&archive)?
                    .held
                    .get(&seat)
                    .map_or(0, Vec::len);
                context["held"] = json!(held);
                let reply = answer("digest-set.txt", "digest", context)?;
                return finish("digest", format!("digest {word}"), vec![reply]);
            }
            Request::Undo | Request::Agree | Request::Decline => {
                let word = match message.request {
                    Request::Agree => UndoStep::Agree,
                    Request::Decline => UndoStep::Decline,
                    _ => UndoStep::Undo,
                };
                let answers = incoming.message_id.as_deref();
                let ignored = [incoming.dropped.as_slice(), &message.left_out].concat();
                let taken = self.take_back_opened(
                    path,
                    game.as_mut(),
                    &player.name,
                    word,
                    answers,
                    &ignored,
                );
                return match taken {
                    Ok(outcome) => {
                        let detail = crate::ops::undo_text(&outcome)
                            .trim_end()
                            .replace('\n', "; ");
                        let mut kept = entry(Some(incoming), "undo", &detail);
                        kept.turn = outcome.added.last().map(|(turn, _, _)| *turn);
                        archive.keep(raw, kept)?;
                        archive.finish_pending(&key)?;
                        Ok(handled("undo", detail))
                    }
                    Err(MailError::Ops(OpsError::Engine(error))) if is_about_the_move(&error) => {
                        let (problem, accepted) = problem_and_remedy(&error);
                        refuse(
                            game.as_ref(),
                            "Cannot take back",
                            &problem,
                            &accepted,
                            "refused",
                            "refused",
                        )
                    }
                    Err(error) => Err(error),
                };
            }
        };
        if for_referee::is_question(&text) {
            let context = self.question_answer(game.as_ref(), path, seat, &context)?;
            let reply = answer("question.txt", "question", context)?;
            let detail = "a question, answered with where the game stands; kept for the referee";
            return finish("question", detail.into(), vec![reply]);
        }
        let text = text.as_str();
        // Moves this player made since the notice the message answers.
        let since = roster.records.iter().find(|(t, name, _)| {
            *t >= turn && name.eq_ignore_ascii_case(&player.name) && !roster.not_moves.contains(t)
        });
        if let Some((done, _, recorded)) = since {
            let resent = same_words(recorded, text)
                || archive.entries()?.iter().any(|e| {
                    e.outcome == "applied"
                        && e.turn == Some(*done)
                        && (e.move_text.as_deref().is_some_and(|m| same_words(m, text))
                            || e.sealed_move.as_deref().is_some_and(|tag| {
                                tag == self.secret.sealed_move_tag(&roster.id, &words(text))
                            }))
                });
            // What to do next is the refusal's own closing words (reply to it when it
            // is the player's turn, else wait for the notice): one instruction only.
            let accepted = "";
            return if resent {
                let problem = format!(
                    "your move for turn {} was already applied",
                    roster.move_number(*done)
                );
                refuse(
                    game.as_ref(),
                    "Already applied",
                    &problem,
                    accepted,
                    "duplicate",
                    "duplicate",
                )
            } else {
                let problem = format!(
                    "you already moved for turn {}; this message answers an old notice",
                    roster.move_number(*done)
                );
                refuse(
                    game.as_ref(),
                    "That turn is over",
                    &problem,
                    accepted,
                    "stale",
                    "stale",
                )
            };
        }
        if incoming.truncated {
            // Reading stopped at a limit while the player's text went on: applying what
            // was read could apply part of a turn.
            return refuse(
                game.as_ref(),
                "Move refused",
                "your message is longer than a turn can be, so it was not read to its end",
                &format!(
                    "Send your whole turn in at most {} lines above any quoted text.",
                    intake::MAX_OWN_LINES
                ),
                "refused",
                "refused",
            );
        }

        // The whole turn as written, or nothing: never a part of it.
        let origin = Origin::Mail(incoming.message_id.as_deref());
        match self.apply_opened(
            path,
            game.as_mut(),
            &player.name,
            text,
            &incoming.dropped,
            origin,
        ) {
            Ok(outcome) => {
                let shown = if outcome.sealed {
                    SEALED
                } else {
                    outcome.understood.as_str()
                };
                applied(
                    outcome.turn,
                    format!("turn {}: {shown}", outcome.turn),
                    outcome.sealed,
                )
            }
            Err(MailError::Ops(OpsError::Engine(error))) if is_about_the_move(&error) => {
                let (problem, accepted) = problem_and_remedy(&error);
                let headline = match error {
                    EngineError::NeedsConfirmation { .. } => "Please confirm",
                    _ => "Move refused",
                };
                refuse(
                    game.as_ref(),
                    headline,
                    &problem,
                    &accepted,
                    "refused",
                    "refused",
                )
            }
            Err(other) => Err(other),
        }
    }

    /// A message for a game still waiting for its players: a player's reply to the
    /// invitation is their join, their words being what they wrote (or, for an empty
    /// reply, the message's id). Only a reply that proves its player (the invitation's
    /// reply code or the player's token, from the player's own address) joins; anything
    /// else is kept and not answered, since the game has not begun.
    fn receive_join(
        &self,
        path: &Path,
        raw: &[u8],
        incoming: &Incoming,
        bytes: &[u8],
    ) -> Result<Handled, MailError> {
        let archive = Archive::beside(path);
        let invitation = Invitation::parse(bytes)?;
        let genesis = &invitation.genesis;
        if genesis.referee_key != self.public_key() {
            return Err(MailError::Config(format!(
                "{} (invitation {}) was signed by another referee key than the one in {}; set PBEM_HOME to the keyring that made it",
                path.display(),
                genesis.id,
                self.keyring.home().display()
            )));
        }
        let done = |outcome: &str, detail: String| -> Result<Handled, MailError> {
            keep_bounded(&archive, raw, entry(Some(incoming), outcome, &detail))?;
            Ok(Handled {
                outcome: outcome.to_string(),
                detail,
                game: Some(path.to_path_buf()),
            })
        };
        if let Some(id) = &incoming.message_id {
            if let Some(earlier) = archive.find(id)? {
                return Ok(Handled {
                    outcome: "duplicate".into(),
                    detail: format!("this message was already handled ({})", earlier.outcome),
                    game: Some(path.to_path_buf()),
                });
            }
        }
        let players = &genesis.players;
        let sender = incoming.from_address.clone().unwrap_or_default();
        let from = players
            .iter()
            .position(|p| p.mail_address().is_some_and(|e| address_of(e) == sender));
        let code_holds = |seat: usize, code: &str| {
            self.secret.reply_code(&genesis.id, seat, 0) == code.to_ascii_lowercase()
        };
        let cited = incoming
            .in_reply_to
            .iter()
            .chain(&incoming.references)
            .filter_map(|id| NoticeId::parse(id))
            .find(|id| {
                id.game_id.eq_ignore_ascii_case(&genesis.id)
                    && id.turn == 0
                    && id.seat < players.len()
                    && code_holds(id.seat, &id.code)
            })
            .map(|id| id.seat);
        let by_subject = incoming
            .subject_code
            .as_deref()
            .and_then(|code| (0..players.len()).find(|&seat| code_holds(seat, code)));
        let by_token = incoming.token.as_deref().and_then(|token| {
            (0..players.len()).find(|&seat| {
                self.secret
                    .token(&genesis.id, seat)
                    .eq_ignore_ascii_case(token.trim())
            })
        });
        let Some(seat) = cited
            .or(by_subject)
            .or(by_token)
            .filter(|&s| Some(s) == from)
        else {
            let detail = match from {
                Some(seat) => format!(
                    "no proof that this message comes from {}",
                    players[seat].name
                ),
                None => format!("{sender} is not a player of this game"),
            };
            return done(
                if from.is_some() {
                    "forged"
                } else {
                    "not-a-player"
                },
                detail,
            );
        };
        let name = players[seat].name.clone();
        // Read forgivingly, as the words are only mixed into the draws: a character a
        // typed join would be refused for (`pbem join`) is made a space, as the
        // intake makes the invisible characters mail clients add.
        let spaced: String = incoming
            .move_text
            .chars()
            .map(|c| {
                if is_refused(c, Lines::Several) {
                    ' '
                } else {
                    c
                }
            })
            .collect();
        let written: String = spaced
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(MAX_ENTROPY_CHARS)
            .collect();
        let words = if written.is_empty() {
            format!("mail {}", message_key(incoming.message_id.as_deref(), raw))
        } else {
            written
        };
        match self.join_locked(path, &name, &words) {
            Ok(joined) => match joined.joined {
                Joined::Already(_) => done("duplicate", format!("{name} had joined already")),
                Joined::Waiting(_) => done("joined", format!("{name} joined")),
                Joined::Complete => done(
                    "joined",
                    format!("{name} joined, the last to: the game has begun"),
                ),
            },
            Err(MailError::Ops(OpsError::Engine(error))) if is_about_the_move(&error) => {
                done("refused", error.to_string())
            }
            Err(other) => Err(other),
        }
    }

    /// Marks `seat` away until the end of day `until_day` (or back, with `None`), and
    /// tells every player: the absent one that it is noted, the others that
    /// reminders and the deadline wait for them.
    fn absence(
        &self,
        path: &Path,
        roster: &Roster,
        seat: usize,
        until_day: Option<u64>,
        base: &serde_json::Value,
        incoming: &Incoming,
    ) -> Result<Vec<Outgoing>, MailError> {
        let archive = Archive::beside(path);
        let mut waiting = archive::Waiting::load(&archive)?;
        match until_day {
            Some(day) => waiting.away.insert(seat, (day + 1) * 86_400),
            None => waiting.away.remove(&seat),
        };
        waiting.save(&archive)?;
        let absent = &roster.players[seat].name;
        let records = roster.records.len() as u64;
        let mut replies = Vec::new();
        for (reader, player) in roster.players.iter().enumerate() {
            let mut context = base.clone();
            context["player"] = json!(player.name);
            context["absent"] = json!(absent);
            context["back"] = json!(until_day.is_none());
            context["until"] = json!(until_day.map(crate::mail::clock::date_text));
            let code = self.secret.reply_code(&roster.id, reader, records + 1);
            let id = NoticeId {
                game_id: roster.id.clone(),
                turn: records + 1,
                seat: reader,
                kind: format!("away{}", crate::mail::clock::now()),
                code,
            };
            let answers = (reader == seat)
                .then_some(incoming.message_id.as_deref())
                .flatten();
            replies.extend(self.draft("away.txt", &context, player, id, answers, None)?);
        }
        Ok(replies)
    }

    /// The record this message's own move became, when a run that began handling it
    /// (with `begun` records) applied it and died before archiving it: the record after
    /// `begun` is by the message's seat, and no other message is archived as its maker.
    fn applied_before(
        &self,
        archive: &Archive,
        roster: &Roster,
        begun: Option<u64>,
        seat: usize,
    ) -> Result<Option<(u64, String)>, MailError> {
        let Some(begun) = begun else {
            return Ok(None);
        };
        let Some((turn, name, recorded)) = roster.records.iter().find(|r| r.0 == begun + 1) else {
            return Ok(None);
        };
        if !name.eq_ignore_ascii_case(&roster.players[seat].name) {
            return Ok(None);
        }
        let claimed = archive
            .entries()?
            .iter()
            .any(|e| e.outcome == "applied" && e.turn == Some(*turn));
        Ok((!claimed).then(|| (*turn, recorded.clone())))
    }

    /// The entry of a message with this fingerprint that proved its sender: one
    /// refused as forged must not stand for the player's own.
    fn handled_before(
        &self,
        archive: &Archive,
        fingerprint: Option<&str>,
    ) -> Result<Option<Entry>, MailError> {
        let Some(fingerprint) = fingerprint else {
            return Ok(None);
        };
        Ok(archive.entries()?.into_iter().find(|e| {
            e.fingerprint.as_deref() == Some(fingerprint)
                && !matches!(e.outcome.as_str(), "forged" | "not-a-player")
        }))
    }

    /// The message's fingerprint, when it says who sent it and when: with the notice
    /// its reply code answers, when it has one, so that only a copy of a reply to the
    /// same notice is the same message.
    fn fingerprint(&self, roster: &Roster, incoming: &Incoming) -> Option<String> {
        let sender = incoming.from_address.as_deref()?;
        let sent_at = incoming.date?;
        let words = words(&incoming.move_text);
        Some(match self.notice_answered(roster, incoming) {
            Some((seat, turn)) => self
                .secret
                .reply_fingerprint(sender, sent_at, &words, seat, turn),
            // A token proves a player but no notice: Date and words are all there is.
            None => self.secret.message_fingerprint(sender, sent_at, &words),
        })
    }

    /// The seat and notice turn a message proves: a reply code in the ids it cites or in
    /// its subject, or a player token in its body.
    fn proof(&self, roster: &Roster, incoming: &Incoming) -> Option<(usize, u64)> {
        let records = roster.records.len() as u64;
        self.notice_answered(roster, incoming).or_else(|| {
            let token = incoming.token.as_deref()?;
            (0..roster.players.len())
                .find(|&seat| {
                    self.secret
                        .token(&roster.id, seat)
                        .eq_ignore_ascii_case(token.trim())
                })
                .map(|seat| (seat, records + 1))
        })
    }

    /// The seat and turn of the notice a message answers, as its reply code proves it:
    /// in the ids it cites, else in its subject.
    fn notice_answered(&self, roster: &Roster, incoming: &Incoming) -> Option<(usize, u64)> {
        let records = roster.records.len() as u64;
        let ours = |seat: usize, turn: u64, code: &str| {
            seat < roster.players.len()
                && turn >= 1
                && turn <= records + 1
                && self.secret.reply_code(&roster.id, seat, turn) == code.to_ascii_lowercase()
        };
        let cited = incoming
            .in_reply_to
            .iter()
            .chain(&incoming.references)
            .filter_map(|id| NoticeId::parse(id))
            .filter(|id| id.game_id.eq_ignore_ascii_case(&roster.id))
            .filter(|id| ours(id.seat, id.turn, &id.code))
            // Every reply cites the player's welcome (the thread's root) as well as
            // the notice it answers: the newest notice cited is the one answered.
            .max_by_key(|id| id.turn)
            .map(|id| (id.seat, id.turn));
        if cited.is_some() {
            return cited;
        }
        let code = incoming.subject_code.as_deref()?;
        (1..=records + 1).rev().find_map(|turn| {
            (0..roster.players.len())
                .find_map(|seat| ours(seat, turn, code).then_some((seat, turn)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_words_are_the_same_move_whatever_the_spacing() {
        assert!(same_words(
            "place E,W at A7; discard C",
            "PLACE e,w  at a7\ndiscard c"
        ));
        assert!(same_words("pass", " pass ;"));
        assert!(!same_words("place E,W at A7", "place E,W at A8"));
    }
}
