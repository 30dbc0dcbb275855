//! The referee's mail loop: a new game's welcome, the notices after every move, every
//! incoming message answered, reminders. Everything that changes a game happens under
//! the game file's lock, with its mail staged in the outbox before the game file is
//! replaced (see [`super::outbox`]).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::archive::{self, Archive, Entry, Wait, Waiting};
use super::capability::{thread_root, MailSecret, NoticeId};
use super::compose::{self, Draft, Templates};
use super::intake::{self, Incoming};
use super::outbox::{Flushed, Outbox, Outgoing};
use super::transport::{address_of, MailSettings};
use super::MailError;
use crate::engine::driver::{GameDriver, MoveOutcome};
use crate::engine::file::{GameFile, PlayerEntry};
use crate::engine::keyring::Keyring;
use crate::engine::session::EngineError;
use crate::engine::store;
use crate::engine::Deadline;
use crate::ops::{self, OpsError};

/// The players and log of a game file, read without its state.
struct Roster {
    id: String,
    game: String,
    players: Vec<PlayerEntry>,
    records: Vec<(u64, String, String)>,
    seed: Option<String>,
}

fn roster(bytes: &[u8]) -> Result<Roster, MailError> {
    let file: GameFile<serde::de::IgnoredAny> =
        serde_json::from_slice(bytes).map_err(|error| EngineError::Malformed(error.to_string()))?;
    Ok(Roster {
        id: file.genesis.id,
        game: file.genesis.game,
        players: file.genesis.players,
        records: file
            .records
            .into_iter()
            .map(|r| (r.turn, r.player, r.move_text))
            .collect(),
        seed: file.seed,
    })
}

/// What happened to an incoming message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handled {
    /// applied, refused, stale, duplicate, forged, not-a-player, no-game, unreadable.
    pub outcome: String,
    pub detail: String,
    pub game: Option<PathBuf>,
}

/// The referee: keyring, settings and templates.
pub struct Referee {
    keyring: Keyring,
    settings: MailSettings,
    templates: Templates,
    secret: MailSecret,
}

impl Referee {
    /// # Errors
    /// The keyring has no usable signing key.
    pub fn new(keyring: Keyring, settings: MailSettings) -> Result<Referee, MailError> {
        let secret = MailSecret::from_keyring(&keyring).map_err(EngineError::from)?;
        let templates = Templates::new(settings.templates.as_deref());
        Ok(Referee {
            keyring,
            settings,
            templates,
            secret,
        })
    }

    pub fn keyring(&self) -> &Keyring {
        &self.keyring
    }

    fn domain(&self) -> String {
        self.settings.domain()
    }

    /// The context every template shares, from the game's public view.
    fn context(&self, view: &Value, roster: &Roster) -> Value {
        let players: Vec<Value> = view["players"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|p| json!({"name": p["name"], "score": p["score"]}))
                    .collect()
            })
            .unwrap_or_default();
        json!({
            "tag": format!("[pbem {}]", roster.id),
            "id": roster.id,
            "game": roster.game,
            "turn": view["turn"].as_u64().unwrap_or(0) + u64::from(view["over"] != true),
            "to_move": ops::joined_names(&view["to_move"]),
            "over": view["over"],
            "winners": ops::joined_names(&view["winners"]),
            "winner_count": view["winners"].as_array().map_or(0, Vec::len),
            "players": players,
            "seed": roster.seed,
        })
    }

    /// The board and a legal example for one player.
    fn personal(
        &self,
        driver: &dyn GameDriver,
        bytes: &[u8],
        name: &str,
    ) -> Result<(String, String), MailError> {
        let board = driver.board(bytes, Some(name), None, Some(&self.keyring))?;
        let example = driver.example(bytes, name)?.unwrap_or_default();
        Ok((board, example))
    }

    fn draft(
        &self,
        template: &str,
        context: &Value,
        player: &PlayerEntry,
        id: NoticeId,
        answers: Option<&str>,
        attachment: Option<(String, Vec<u8>)>,
    ) -> Result<Option<Outgoing>, MailError> {
        let Some(address) = &player.email else {
            return Ok(None);
        };
        let (subject, body) = self.templates.render_mail(template, context)?;
        let root = thread_root(&id.game_id, &self.domain());
        let message_id = id.render(&self.domain());
        compose::build(
            &self.settings,
            Draft {
                to_name: &player.name,
                to_address: address,
                subject,
                body,
                message_id,
                thread_root: root,
                answers,
                attachment,
            },
        )
        .map(Some)
    }

    fn attachment(&self, path: &Path, bytes: &[u8]) -> Option<(String, Vec<u8>)> {
        self.settings.attach_game.then(|| {
            let name = path
                .file_name()
                .map_or("game.json".into(), |n| n.to_string_lossy().into_owned());
            (name, bytes.to_vec())
        })
    }

    /// The notices after a move (or at the start): your-turn to whoever is to move,
    /// move-made to the others, game-over to all at the end.
    fn notices(
        &self,
        path: &Path,
        bytes: &[u8],
        last: Option<(&MoveOutcome, &str)>,
        welcome: bool,
    ) -> Result<(Vec<Outgoing>, Vec<usize>), MailError> {
        let driver = ops::driver(&crate::engine::driver::game_name(bytes)?)?;
        let roster = roster(bytes)?;
        let view = driver.view(bytes, None, None, None)?;
        let base = self.context(&view, &roster);
        let records = roster.records.len() as u64;
        let to_move: Vec<String> = view["to_move"]
            .as_array()
            .map(|l| {
                l.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let over = view["over"] == true;
        let mut out = Vec::new();
        let mut waiting = Vec::new();
        for (seat, player) in roster.players.iter().enumerate() {
            let (board, example) = self.personal(driver, bytes, &player.name)?;
            let mut context = base.clone();
            let others: Vec<&str> = roster
                .players
                .iter()
                .filter(|p| p.name != player.name)
                .map(|p| p.name.as_str())
                .collect();
            context["player"] = json!(player.name);
            context["others"] = json!(others.join(", "));
            context["board"] = json!(board.trim_end());
            context["example"] = json!(example);
            if let Some((outcome, sent)) = last {
                context["mover"] = json!(outcome.player);
                context["move"] = json!(sent.trim());
                context["understood"] = json!(outcome.understood);
            }
            let code = self.secret.reply_code(&roster.id, seat, records + 1);
            let notice = |kind: &str| NoticeId {
                game_id: roster.id.clone(),
                turn: records + 1,
                seat,
                kind: kind.to_string(),
                code: code.clone(),
            };
            if welcome {
                context["token"] = json!(self.secret.token(&roster.id, seat));
                out.extend(self.draft(
                    "welcome.txt",
                    &context,
                    player,
                    notice("welcome"),
                    None,
                    None,
                )?);
            }
            if over {
                context["turn"] = json!(records);
                let attachment = self.attachment(path, bytes);
                out.extend(self.draft(
                    "game-over.txt",
                    &context,
                    player,
                    notice("over"),
                    None,
                    attachment,
                )?);
            } else if to_move.contains(&player.name) {
                context["code"] = json!(code);
                let attachment = self.attachment(path, bytes);
                out.extend(self.draft(
                    "your-turn.txt",
                    &context,
                    player,
                    notice("turn"),
                    None,
                    attachment,
                )?);
                waiting.push(seat);
            } else if last.is_some() {
                context["turn"] = json!(records);
                out.extend(self.draft(
                    "move-made.txt",
                    &context,
                    player,
                    notice("made"),
                    None,
                    None,
                )?);
            }
        }
        Ok((out, waiting))
    }

    fn record_waits(&self, path: &Path, records: u64, seats: &[usize]) -> Result<(), MailError> {
        let archive = Archive::beside(path);
        let mut waiting = Waiting::load(&archive)?;
        waiting.seats.clear();
        let now = archive::now();
        for &seat in seats {
            waiting.seats.insert(
                seat,
                Wait {
                    turn: records + 1,
                    since: now,
                    reminded: None,
                },
            );
        }
        waiting.save(&archive)
    }

    /// Mails a new game's welcome and first turn notice.
    ///
    /// # Errors
    /// The game file cannot be read, or the outbox written.
    pub fn announce(&self, path: &Path) -> Result<usize, MailError> {
        let _lock = store::lock(path)?;
        let bytes = store::read(path)?;
        let (mail, waiting) = self.notices(path, &bytes, None, true)?;
        let records = roster(&bytes)?.records.len() as u64;
        let outbox = Outbox::beside(path);
        let staged = outbox.stage(records, &mail)?;
        outbox.commit(&staged)?;
        self.record_waits(path, records, &waiting)?;
        Ok(mail.len())
    }

    /// Applies a move and stages its mail, all or nothing: the mail is written to the
    /// outbox before the game file, and made sendable only after it.
    ///
    /// # Errors
    /// A refused move (nothing changes), or a file that cannot be written.
    pub fn apply(
        &self,
        path: &Path,
        player: &str,
        move_text: &str,
    ) -> Result<MoveOutcome, MailError> {
        let _lock = store::lock(path)?;
        self.apply_locked(path, player, move_text)
    }

    fn apply_locked(
        &self,
        path: &Path,
        player: &str,
        move_text: &str,
    ) -> Result<MoveOutcome, MailError> {
        let (bytes, driver) = ops::load(path)?;
        let outbox = Outbox::beside(path);
        outbox.recover(roster(&bytes)?.records.len() as u64)?;
        let (updated, outcome) = driver.apply(&bytes, &self.keyring, player, move_text)?;
        let (mail, waiting) =
            self.notices(path, &updated.to_vec(), Some((&outcome, move_text)), false)?;
        let staged = outbox.stage(outcome.turn, &mail)?;
        ops::write_game(path, &updated, &outcome.game_id, &self.keyring)?;
        outbox.commit(&staged)?;
        self.record_waits(path, outcome.turn, &waiting)?;
        Ok(outcome)
    }

    /// Sends what waits in a game's outbox.
    ///
    /// # Errors
    /// No transport configured, or the outbox cannot be read.
    pub fn flush(&self, path: &Path) -> Result<Flushed, MailError> {
        let transport = self.settings.transport()?;
        let _lock = store::lock(path)?;
        let outbox = Outbox::beside(path);
        if let Ok(bytes) = store::read(path) {
            outbox.recover(roster(&bytes)?.records.len() as u64)?;
        }
        outbox.flush(&transport)
    }

    /// Sends the answers to messages that matched no game in `games`.
    ///
    /// # Errors
    /// No transport configured, or the outbox cannot be read.
    pub fn flush_unmatched(&self, games: &Path) -> Result<Flushed, MailError> {
        let transport = self.settings.transport()?;
        let _lock = store::lock(&games.join("unmatched"))?;
        Outbox::at(games.join("unmatched.outbox")).flush(&transport)
    }

    /// Handles one raw incoming message for the games in `games`: finds the game,
    /// checks who sent it and for which turn, applies the move or refuses it, answers,
    /// and archives the message with its outcome.
    ///
    /// # Errors
    /// Only for trouble with the referee's own files; every problem with the message is
    /// an outcome, answered by mail.
    pub fn receive(&self, games: &Path, raw: &[u8]) -> Result<Handled, MailError> {
        let incoming = match intake::read_message(raw) {
            Ok(incoming) => incoming,
            Err(error) => {
                let archive = Archive::at(games.join("unmatched.mail"));
                let detail = error.to_string();
                archive.keep(raw, entry(None, "unreadable", &detail))?;
                return Ok(Handled {
                    outcome: "unreadable".into(),
                    detail,
                    game: None,
                });
            }
        };
        let Some(path) = self.find_game(games, &incoming)? else {
            let archive = Archive::at(games.join("unmatched.mail"));
            let detail = "no game matches this message; reply to a turn notice, keeping the [pbem ...] tag in the subject".to_string();
            if let Some(address) = &incoming.from_address {
                let context = json!({
                    "tag": "[pbem]", "player": incoming.from_name.clone().unwrap_or_else(|| address.clone()),
                    "headline": "No game found", "problem": "no game of this referee matches your message",
                    "accepted": "Reply to your latest turn notice and keep the [pbem ...] tag in the subject.",
                });
                let reply =
                    self.reply_mail("move-refused.txt", &context, address, &incoming, "nogame")?;
                let _lock = store::lock(&games.join("unmatched"))?;
                let outbox = Outbox::at(games.join("unmatched.outbox"));
                let staged = outbox.stage(0, &[reply])?;
                outbox.commit(&staged)?;
                self.try_flush(&outbox);
            }
            archive.keep(raw, entry(Some(&incoming), "no-game", &detail))?;
            return Ok(Handled {
                outcome: "no-game".into(),
                detail,
                game: None,
            });
        };
        // The lock is held through the flush too: two runs sending the same outbox at
        // once could otherwise both send a message before either removes it.
        let _lock = store::lock(&path)?;
        let handled = self.receive_locked(&path, raw, &incoming)?;
        self.try_flush(&Outbox::beside(&path));
        Ok(handled)
    }

    fn try_flush(&self, outbox: &Outbox) {
        // Sending is best effort here: what fails waits in the outbox for a flush.
        if let Ok(transport) = self.settings.transport() {
            let _ = outbox.flush(&transport);
        }
    }

    /// The game a message belongs to: by its subject tag, else by the ids it cites.
    fn find_game(&self, games: &Path, incoming: &Incoming) -> Result<Option<PathBuf>, MailError> {
        let cited = incoming
            .in_reply_to
            .iter()
            .chain(&incoming.references)
            .find_map(|id| NoticeId::parse(id))
            .map(|id| id.game_id);
        let Some(wanted) = incoming.game_tag.clone().or(cited) else {
            return Ok(None);
        };
        let listing = std::fs::read_dir(games).map_err(MailError::io(games))?;
        for entry in listing {
            let path = entry.map_err(MailError::io(games))?.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            if let Ok(found) = roster(&bytes) {
                if found.id.eq_ignore_ascii_case(&wanted) {
                    return Ok(Some(path));
                }
            }
        }
        Ok(None)
    }

    fn reply_mail(
        &self,
        template: &str,
        context: &Value,
        address: &str,
        incoming: &Incoming,
        kind: &str,
    ) -> Result<Outgoing, MailError> {
        let (subject, body) = self.templates.render_mail(template, context)?;
        let game_id = context["id"].as_str().unwrap_or("none");
        // A reply's id is unique per incoming message: derived from its id (or hash).
        let seed = incoming
            .message_id
            .clone()
            .unwrap_or_else(|| incoming.subject.clone());
        let tag = crate::engine::digest::to_hex(&crate::engine::digest::sha256(seed.as_bytes()));
        let message_id = format!("pbem.{game_id}.re.{kind}.{}@{}", &tag[..16], self.domain());
        compose::build(
            &self.settings,
            Draft {
                to_name: context["player"].as_str().unwrap_or(address),
                to_address: address,
                subject,
                body,
                message_id,
                thread_root: thread_root(game_id, &self.domain()),
                answers: incoming.message_id.as_deref(),
                attachment: None,
            },
        )
    }

    fn receive_locked(
        &self,
        path: &Path,
        raw: &[u8],
        incoming: &Incoming,
    ) -> Result<Handled, MailError> {
        let archive = Archive::beside(path);
        let (bytes, driver) = ops::load(path)?;
        let roster = roster(&bytes)?;
        let records = roster.records.len() as u64;
        Outbox::beside(path).recover(records)?;
        let base = self.context(&driver.view(&bytes, None, None, None)?, &roster);
        let finish =
            |outcome: &str, detail: String, replies: Vec<Outgoing>| -> Result<Handled, MailError> {
                let outbox = Outbox::beside(path);
                let staged = outbox.stage(records, &replies)?;
                outbox.commit(&staged)?;
                archive.keep(raw, entry(Some(incoming), outcome, &detail))?;
                Ok(Handled {
                    outcome: outcome.to_string(),
                    detail,
                    game: Some(path.to_path_buf()),
                })
            };
        let refusal = |seat_name: &str,
                       address: &str,
                       headline: &str,
                       problem: &str,
                       accepted: &str,
                       example: &str,
                       kind: &str| {
            let mut context = base.clone();
            context["player"] = json!(seat_name);
            context["headline"] = json!(headline);
            context["problem"] = json!(problem);
            context["accepted"] = json!(accepted);
            context["example"] = json!(example);
            self.reply_mail("move-refused.txt", &context, address, incoming, kind)
        };

        if let Some(id) = &incoming.message_id {
            if let Some(earlier) = archive.find(id)? {
                let detail = format!("this message was already received ({})", earlier.outcome);
                return finish("duplicate", detail, Vec::new());
            }
        }

        let sender = incoming.from_address.clone().unwrap_or_default();
        let sender_seat = roster
            .players
            .iter()
            .position(|p| p.email.as_deref().is_some_and(|e| address_of(e) == sender));
        let proof = self.proof(&roster, incoming);

        let (seat, turn) = match (proof, sender_seat) {
            (Some((seat, turn)), Some(from)) if seat == from => (seat, turn),
            (Some((seat, _)), _) | (None, Some(seat)) => {
                // A claim on a player's turn without that player's proof, or a proof
                // sent from someone else's address: refused, and the player is told.
                let player = &roster.players[seat];
                let mut context = base.clone();
                context["player"] = json!(player.name);
                context["sender"] = json!(sender);
                context["subject"] = json!(incoming.subject);
                let mut replies = Vec::new();
                if let Some(address) = &player.email {
                    replies.push(self.reply_mail(
                        "someone-tried.txt",
                        &context,
                        address,
                        incoming,
                        "tried",
                    )?);
                }
                let detail = format!("no proof that this message comes from {}", player.name);
                return finish("forged", detail, replies);
            }
            (None, None) => {
                let detail = format!("{sender} is not a player of this game");
                let mut replies = Vec::new();
                if !sender.is_empty() {
                    replies.push(refusal(
                        &sender,
                        &sender,
                        "You are not a player of this game",
                        &format!(
                            "this address ({sender}) is not one of the players of {}",
                            roster.id
                        ),
                        "Only the players' own replies to their turn notices are accepted.",
                        "",
                        "notplayer",
                    )?);
                }
                return finish("not-a-player", detail, replies);
            }
        };

        let player = &roster.players[seat];
        let address = player.email.clone().unwrap_or_default();
        let text = incoming.move_text.trim();
        // Moves this player made since the notice the message answers.
        let since: Vec<&(u64, String, String)> = roster
            .records
            .iter()
            .filter(|(t, name, _)| *t >= turn && name.eq_ignore_ascii_case(&player.name))
            .collect();
        if let Some((done, _, earlier)) = since.first() {
            let (outcome, headline, problem) = if earlier.trim() == text {
                (
                    "duplicate",
                    "Already applied",
                    format!("your move for turn {done} was already applied"),
                )
            } else {
                (
                    "stale",
                    "That turn is over",
                    format!(
                        "you already moved for turn {done}; this message answers an old notice"
                    ),
                )
            };
            let (_, example) = self.personal(driver, &bytes, &player.name)?;
            let accepted = if example.is_empty() {
                "There is nothing for you to do now; wait for your next turn notice.".to_string()
            } else {
                "Reply to your latest turn notice.".to_string()
            };
            let reply = refusal(
                &player.name,
                &address,
                headline,
                &problem,
                &accepted,
                &example,
                outcome,
            )?;
            return finish(outcome, problem, vec![reply]);
        }
        if text.is_empty() {
            let (_, example) = self.personal(driver, &bytes, &player.name)?;
            let reply = refusal(
                &player.name,
                &address,
                "No move found",
                "no move was found at the top of your message",
                "Write your whole turn above the quoted text.",
                &example,
                "empty",
            )?;
            return finish("refused", "no move in the message".into(), vec![reply]);
        }

        match self.apply_forgiving(path, &player.name, text) {
            Ok(outcome) => {
                archive.keep(
                    raw,
                    entry(
                        Some(incoming),
                        "applied",
                        &format!("turn {}: {}", outcome.turn, outcome.understood),
                    ),
                )?;
                Ok(Handled {
                    outcome: "applied".into(),
                    detail: format!("turn {}: {}", outcome.turn, outcome.understood),
                    game: Some(path.to_path_buf()),
                })
            }
            Err(MailError::Ops(OpsError::Engine(error))) => {
                let (problem, accepted) = match &error {
                    EngineError::Refused(rule) => (rule.problem.clone(), rule.accepted.clone()),
                    other => (other.to_string(), String::new()),
                };
                let (_, example) = self.personal(driver, &bytes, &player.name)?;
                let reply = refusal(
                    &player.name,
                    &address,
                    "Move refused",
                    &problem,
                    &accepted,
                    &example,
                    "refused",
                )?;
                finish("refused", problem, vec![reply])
            }
            Err(other) => Err(other),
        }
    }

    /// Applies the move; if it is refused and has lines after the first, tries again
    /// without trailing lines (a sign-off such as "Kind regards" that no signature
    /// marker announced). The lines left out are named in the confirmation, which
    /// echoes the move as understood.
    fn apply_forgiving(
        &self,
        path: &Path,
        player: &str,
        text: &str,
    ) -> Result<MoveOutcome, MailError> {
        let lines: Vec<&str> = text.lines().collect();
        let first_error = match self.apply_locked(path, player, text) {
            Ok(outcome) => return Ok(outcome),
            Err(MailError::Ops(OpsError::Engine(EngineError::Refused(rule)))) => rule,
            Err(other) => return Err(other),
        };
        for keep in (1..lines.len()).rev() {
            let shorter = lines[..keep].join("\n");
            match self.apply_locked(path, player, &shorter) {
                Ok(mut outcome) => {
                    outcome.understood = format!(
                        "{}\n    (ignored: {})",
                        outcome.understood,
                        lines[keep..].join(" / ")
                    );
                    return Ok(outcome);
                }
                Err(MailError::Ops(OpsError::Engine(EngineError::Refused(_)))) => continue,
                Err(other) => return Err(other),
            }
        }
        Err(EngineError::Refused(first_error).into())
    }

    /// The seat and notice turn a message proves: a reply code in the ids it cites or in
    /// its subject, or a player token in its body.
    fn proof(&self, roster: &Roster, incoming: &Incoming) -> Option<(usize, u64)> {
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
            .find(|id| ours(id.seat, id.turn, &id.code))
            .map(|id| (id.seat, id.turn));
        if cited.is_some() {
            return cited;
        }
        if let Some(code) = &incoming.subject_code {
            for turn in (1..=records + 1).rev() {
                for seat in 0..roster.players.len() {
                    if ours(seat, turn, code) {
                        return Some((seat, turn));
                    }
                }
            }
        }
        let token = incoming.token.as_deref()?;
        (0..roster.players.len())
            .find(|&seat| {
                self.secret
                    .token(&roster.id, seat)
                    .eq_ignore_ascii_case(token.trim())
            })
            .map(|seat| (seat, records + 1))
    }

    /// Mails a reminder to each player who has kept a game in `games` waiting longer
    /// than `after` seconds, at most once per `after`; past `deadline` (seconds since
    /// the turn notice, with the referee's choice), skips the player's turn where the
    /// rules allow it, or submits their forfeit, and mails everyone as after any move.
    ///
    /// # Errors
    /// Trouble with the referee's own files.
    pub fn remind(
        &self,
        games: &Path,
        after: u64,
        deadline: Option<(u64, Deadline)>,
    ) -> Result<Vec<(PathBuf, String)>, MailError> {
        let now = archive::now();
        let mut reminded = Vec::new();
        let listing = std::fs::read_dir(games).map_err(MailError::io(games))?;
        let mut paths: Vec<PathBuf> = listing
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for path in paths {
            let _lock = store::lock(&path)?;
            let Ok((bytes, driver)) = ops::load(&path) else {
                continue;
            };
            let roster = roster(&bytes)?;
            let archive = Archive::beside(&path);
            let mut waiting = Waiting::load(&archive)?;
            if let Some((limit, choice)) = deadline {
                let overdue = waiting.seats.iter().find(|(_, wait)| {
                    now.saturating_sub(wait.since) >= limit
                        && wait.turn == roster.records.len() as u64 + 1
                });
                if let Some((&seat, _)) = overdue {
                    let name = roster
                        .players
                        .get(seat)
                        .map(|p| p.name.clone())
                        .unwrap_or_default();
                    if let Some(text) = driver.deadline_move(&bytes, &name, choice)? {
                        // The referee's move for the player: recorded as theirs, mailed
                        // to everyone like any move.
                        let outcome = self.apply_locked(&path, &name, &text)?;
                        reminded.push((
                            path.clone(),
                            format!("{name}: past the deadline, played `{}`", outcome.understood),
                        ));
                        self.try_flush(&Outbox::beside(&path));
                        continue;
                    }
                }
            }
            let mut mail = Vec::new();
            let base = self.context(&driver.view(&bytes, None, None, None)?, &roster);
            for (&seat, wait) in waiting.seats.iter_mut() {
                let last = wait.reminded.unwrap_or(wait.since);
                if now.saturating_sub(last) < after || wait.turn != roster.records.len() as u64 + 1
                {
                    continue;
                }
                let Some(player) = roster.players.get(seat) else {
                    continue;
                };
                let (board, example) = self.personal(driver, &bytes, &player.name)?;
                let mut context = base.clone();
                context["player"] = json!(player.name);
                context["board"] = json!(board.trim_end());
                context["example"] = json!(example);
                context["code"] = json!(self.secret.reply_code(&roster.id, seat, wait.turn));
                context["waiting_days"] = json!(now.saturating_sub(wait.since) / 86_400);
                let id = NoticeId {
                    game_id: roster.id.clone(),
                    turn: wait.turn,
                    seat,
                    kind: format!("remind{now}"),
                    code: self.secret.reply_code(&roster.id, seat, wait.turn),
                };
                if let Some(message) =
                    self.draft("reminder.txt", &context, player, id, None, None)?
                {
                    mail.push(message);
                    reminded.push((path.clone(), format!("reminded {}", player.name)));
                }
                wait.reminded = Some(now);
            }
            if !mail.is_empty() {
                let outbox = Outbox::beside(&path);
                let staged = outbox.stage(roster.records.len() as u64, &mail)?;
                outbox.commit(&staged)?;
                waiting.save(&archive)?;
                self.try_flush(&outbox);
            }
        }
        Ok(reminded)
    }
}

fn entry(incoming: Option<&Incoming>, outcome: &str, detail: &str) -> Entry {
    Entry {
        file: String::new(),
        message_id: incoming.and_then(|m| m.message_id.clone()),
        from: incoming.and_then(|m| m.from_address.clone()),
        subject: incoming.map(|m| m.subject.clone()).unwrap_or_default(),
        outcome: outcome.to_string(),
        detail: detail.to_string(),
        at: archive::now(),
    }
}
