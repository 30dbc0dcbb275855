//! The referee's mail loop: a new game's welcome and the notices after every move.
//! Incoming messages are answered in [`super::receive`], deadlines kept in
//! [`super::deadlines`]. Everything that changes a game happens under the game file's
//! lock, with its mail staged in the outbox before the game file is replaced (see
//! [`crate::mail::outbound::outbox`]); mail is sent only after that lock is released, so a slow mail
//! server never holds up a game.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{json, Value};

use super::archive::{Archive, Delivery, Digests, Held, Notes, OwnMove, Pictured, Waiting};
use crate::basics::digest::{sha256, to_hex};
use crate::basics::store;
use crate::engine::driver::{MoveOutcome, OpenGame, UndoOutcome};
use crate::engine::error::EngineError;
use crate::engine::file::UndoStep;
use crate::engine::file::{FileText, PlayerEntry};
use crate::engine::invitation::Invitation;
use crate::engine::keyring::Keyring;
use crate::engine::session::NewGame;
use crate::engine::{page_section, Deadline, Viewer, MOVES_HEADING, SUMMARY_HEADING};
use crate::mail::outbound::capability::{thread_root, MailSecret, NoticeId, WELCOME};
use crate::mail::outbound::compose::{self, Draft, Enclosed};
use crate::mail::outbound::outbox::{self, Flushed, Listed, Outbox, SetAside};
use crate::mail::outbound::outgoing::Outgoing;
use crate::mail::outbound::transport::{address_of, MailSettings};
use crate::mail::MailError;
use crate::ops::{self, JoinDone, WrittenWith};
use crate::words::{self, Templates};

/// The most characters of a player's note relayed to the others ("Name: text").
const NOTE_LINE_CHARS: usize = crate::mail::inbound::commands::MAX_NOTE_CHARS + 100;
/// The most characters of a move as sent that a notice shows.
const SENT_CHARS: usize = 2000;

/// The players and log of a game file, read without its state.
pub(crate) struct Roster {
    pub(crate) id: String,
    pub(crate) game: String,
    pub(crate) players: Vec<PlayerEntry>,
    /// Turn, player and move text of every record (empty for a sealed move not yet
    /// opened).
    pub(crate) records: Vec<(u64, String, String)>,
    /// Turns of the records that are no move standing: steps of taking back moves, and
    /// the moves they took back. A player's reply is never "already moved" for these.
    pub(crate) not_moves: Vec<u64>,
    pub(crate) seed: Option<String>,
    /// The public key that signed the game, as in the file.
    pub(crate) referee_key: String,
}

impl Roster {
    /// The moves standing: records less the steps of taking back and the moves they
    /// took back. Players number turns by it, so an undo never makes turns jump (the
    /// records, and the reply codes keyed on them, go on counting).
    pub(crate) fn standing(&self) -> u64 {
        self.records
            .iter()
            .filter(|(turn, _, _)| !self.not_moves.contains(turn))
            .count() as u64
    }

    /// The turn players know record `record` by: the moves standing up to it.
    pub(crate) fn move_number(&self, record: u64) -> u64 {
        self.records
            .iter()
            .filter(|(turn, _, _)| *turn <= record && !self.not_moves.contains(turn))
            .count() as u64
    }
}

/// Held notices as the templates read them (`earlier.part`): each with when, in UTC.
pub(crate) fn earlier(held: &[Held]) -> Value {
    held.iter()
        .map(|item| {
            let mut value = json!(item);
            value["when"] = json!(crate::mail::clock::utc_text(item.at));
            value
        })
        .collect()
}

/// The seats a view says are to move.
pub(crate) fn seats_to_move(view: &Value, roster: &Roster) -> Vec<usize> {
    view["to_move"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|name| roster.players.iter().position(|p| p.name == name))
        .collect()
}

pub(crate) fn roster(game: &dyn OpenGame) -> Result<Roster, MailError> {
    let genesis = game.genesis();
    let public = game.public_records()?;
    let not_moves = public
        .iter()
        .filter(|r| r.undo.is_some() || r.taken_back)
        .map(|r| r.turn)
        .collect();
    let records = public
        .into_iter()
        .map(|r| (r.turn, r.player, r.move_text.unwrap_or_default()))
        .collect();
    Ok(Roster {
        id: genesis.id.clone(),
        game: genesis.game.clone(),
        players: genesis.players.clone(),
        records,
        not_moves,
        seed: game.seed_revealed().map(str::to_string),
        referee_key: genesis.referee_key.clone(),
    })
}

/// The id of the game in a file's bytes (a game file, or the invitation to one);
/// `None` when they are neither.
pub(crate) fn game_id_of(bytes: &[u8]) -> Option<String> {
    match FileText::parse(bytes) {
        Ok(text) => Some(text.genesis.id),
        Err(_) => Invitation::parse(bytes).ok().map(|i| i.genesis.id),
    }
}

/// The number of records in a file's bytes (none in an invitation).
fn records_in(bytes: &[u8]) -> Result<u64, MailError> {
    match FileText::parse(bytes) {
        Ok(text) => Ok(text.records.len() as u64),
        Err(_) if crate::engine::invitation::is_invitation(bytes) => Ok(0),
        Err(error) => Err(error.into()),
    }
}

/// Who entered a move, for the words its notices use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin<'a> {
    /// The player's own mail; its Message-ID, when it has one, is what their
    /// confirmation answers.
    Mail(Option<&'a str>),
    /// The referee typed it in (`pbem apply --mail`): the player did not send it.
    Referee,
    /// Past the deadline, the referee's choice made for the player.
    Deadline(Deadline),
    /// The rules left the player no choice, so it was made for them.
    Forced,
    /// The built-in player that takes the seat chose it (`Bot <bot:search>`).
    Bot,
}

impl Origin<'_> {
    /// The word templates test (`entered`): mail, referee, skip, forfeit, forced or
    /// bot.
    fn word(self) -> &'static str {
        match self {
            Origin::Mail(_) => "mail",
            Origin::Referee => "referee",
            Origin::Deadline(Deadline::Skip) => "skip",
            Origin::Deadline(Deadline::Forfeit) => "forfeit",
            Origin::Forced => "forced",
            Origin::Bot => "bot",
        }
    }
}

/// The turn notices a step of taking back may make void: the seats to move before
/// it, and the turn their notices named.
struct Void {
    seats: Vec<usize>,
    turn: u64,
}

/// Why notices go out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Occasion {
    /// A new game: every player's welcome.
    Welcome,
    /// A move was made.
    Move,
    /// Moves were taken back.
    TakenBack,
}

/// The referee: keyring, settings and templates.
pub struct Referee {
    pub(crate) keyring: Keyring,
    pub(crate) settings: MailSettings,
    pub(crate) templates: Templates,
    pub(crate) secret: MailSecret,
    /// The public half of the keyring's signing key, base64 as game files write it.
    public_key: String,
    /// Messages set aside while sending behind a move ([`Referee::try_flush`]), with
    /// their game files, for the command to say ([`Referee::take_refused`]).
    refused: Mutex<Vec<(PathBuf, Listed)>>,
    /// The moves made unasked (a built-in player's, one the rules forced) since the
    /// last [`Referee::take_unasked`], with their game files, for the command's log.
    unasked: Mutex<Vec<(PathBuf, String)>>,
}

/// The template of the referee's notice of a message refused for good.
const REFUSED_NOTICE: &str = "referee-bounced.txt";

impl Referee {
    /// # Errors
    /// The keyring has no usable signing key.
    /// The settings this referee mails with (and reads an IMAP mailbox with).
    pub fn settings(&self) -> &MailSettings {
        &self.settings
    }

    pub fn new(keyring: Keyring, settings: MailSettings) -> Result<Referee, MailError> {
        use base64::Engine as _;
        let key = keyring.signing_key().map_err(EngineError::from)?;
        let secret = MailSecret::from_key(&key);
        let public_key =
            base64::engine::general_purpose::STANDARD.encode(key.verifying_key().to_bytes());
        let templates = Templates::new(settings.templates.as_deref());
        Ok(Referee {
            keyring,
            settings,
            templates,
            secret,
            public_key,
            refused: Mutex::new(Vec::new()),
            unasked: Mutex::new(Vec::new()),
        })
    }

    /// Refuses a game another keyring signed: its players' codes would not verify, so
    /// every genuine move would look forged. A referee's set-up fault, not the players'.
    pub(crate) fn check_key(&self, path: &Path, roster: &Roster) -> Result<(), MailError> {
        if roster.referee_key == self.public_key {
            return Ok(());
        }
        Err(MailError::Config(format!(
            "{} (game {}) was signed by another referee key than the one in {}; set PBEM_HOME to the keyring that created the game",
            path.display(),
            roster.id,
            self.keyring.home().display()
        )))
    }

    pub fn keyring(&self) -> &Keyring {
        &self.keyring
    }

    /// The public half of this referee's signing key, base64 as files write it.
    pub(crate) fn public_key(&self) -> &str {
        &self.public_key
    }

    pub(crate) fn domain(&self) -> String {
        self.settings.domain()
    }

    /// The context every template shares, from the game's public view.
    pub(crate) fn context(&self, view: &Value, roster: &Roster) -> Value {
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
            // The turn as players number it (see `Roster::standing`); `head_turn` is
            // the record the signed head belongs to.
            "turn": roster.standing() + u64::from(view["over"] != true),
            "to_move": ops::joined_names(&view["to_move"]),
            "over": view["over"],
            "winners": ops::joined_names(&view["winners"]),
            "winner_count": view["winners"].as_array().map_or(0, Vec::len),
            "players": players,
            "seed": roster.seed,
            "status": view["status"],
            "head": view["head"]["hash"],
            "head_turn": view["head"]["turn"],
        })
    }

    /// The board (with its legend) and an example move for one player: a move legal
    /// now when it is their turn, else one they could make were it their turn.
    pub(crate) fn personal(
        &self,
        game: &dyn OpenGame,
        name: &str,
    ) -> Result<(String, String), MailError> {
        let board = self.with_legend(game, &game.board(Some(name), None)?);
        let example = match game.example(name)? {
            Some(example) => example,
            None => game.example_any(name)?.unwrap_or_default(),
        };
        Ok((board, example))
    }

    /// A board followed by the game's legend.
    pub(crate) fn with_legend(&self, game: &dyn OpenGame, board: &str) -> String {
        let legend = game.legend();
        if legend.trim().is_empty() {
            board.to_string()
        } else {
            format!("{}\n\n{}", board.trim_end(), legend.trim_end())
        }
    }

    pub(crate) fn draft(
        &self,
        template: &str,
        context: &Value,
        player: &PlayerEntry,
        id: NoticeId,
        answers: Option<&str>,
        attachment: Option<(String, Vec<u8>)>,
    ) -> Result<Option<Outgoing>, MailError> {
        let enclosed = Enclosed {
            attachment,
            ..Enclosed::default()
        };
        self.draft_enclosing(template, context, player, id, answers, enclosed)
    }

    /// [`Referee::draft`] with what goes in the mail besides its text: the signed game
    /// file, the board's picture for its reader.
    pub(crate) fn draft_enclosing(
        &self,
        template: &str,
        context: &Value,
        player: &PlayerEntry,
        id: NoticeId,
        answers: Option<&str>,
        enclosed: Enclosed,
    ) -> Result<Option<Outgoing>, MailError> {
        let Some(address) = player.mail_address() else {
            return Ok(None);
        };
        let (subject, body) = self.templates.render_mail(template, context)?;
        // The welcome is the thread's root, and mail before it (the invitation, the
        // confirmation of a join) comes before any thread.
        let root = (id.turn > 0 && id.kind != WELCOME)
            .then(|| thread_root(&self.secret, &id.game_id, id.seat, &self.domain()));
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
                enclosed,
            },
        )
        .map(Some)
    }

    /// The board as `player` (at `seat`) may see it now, as a PNG: `None` when they
    /// have no address, pictures are off (for every game, this game or them), or the
    /// picture cannot be drawn here (no font): the text tells the board whole anyway,
    /// so a move never waits on a picture.
    ///
    /// `sent` is the picture each seat was last sent, with the records of `roster`:
    /// with `only_new`, a picture that would show the reader nothing new is left out
    /// (the text still shows the board): the same drawing as their last picture, or
    /// one changed since only by their own moves, which they know. One that goes is
    /// remembered there.
    pub(crate) fn picture(
        &self,
        game: &dyn OpenGame,
        (player, seat): (&PlayerEntry, usize),
        pictures: &super::archive::Pictures,
        (sent, roster, only_new): (&mut BTreeMap<usize, Pictured>, &Roster, bool),
    ) -> Option<Vec<u8>> {
        if player.mail_address().is_none()
            || !self.settings.pictures_on()
            || !pictures.wanted_by(seat)
        {
            return None;
        }
        let last = sent.get(&seat);
        let others_moved = last.is_none_or(|last| {
            roster
                .records
                .iter()
                .any(|(record, mover, _)| *record > last.records && *mover != player.name)
        });
        if only_new && !others_moved {
            return None;
        }
        let svg = game.board_svg(Some(&player.name), None).ok()?;
        // The picture is a function of the drawing: the same drawing, the same picture,
        // known without drawing it.
        let drawing = to_hex(&sha256(svg.as_bytes())[..16]);
        if only_new && last.is_some_and(|last| last.drawing == drawing) {
            return None;
        }
        let png = crate::grid::raster::png_of_svg(&svg).ok()?;
        let records = roster.records.len() as u64;
        sent.insert(seat, Pictured { drawing, records });
        Some(png)
    }

    /// The signed game file as an attachment, if the referee attaches it to notices.
    fn attachment(&self, path: &Path, bytes: &[u8]) -> Option<(String, Vec<u8>)> {
        self.settings
            .attach_game
            .then(|| self.game_file_attachment(path, bytes))
    }

    pub(crate) fn game_file_attachment(&self, path: &Path, bytes: &[u8]) -> (String, Vec<u8>) {
        let name = path
            .file_name()
            .map_or("game.json".into(), |n| n.to_string_lossy().into_owned());
        (name, bytes.to_vec())
    }

    /// The notices after a move (or at the start): your-turn to whoever is to move,
    /// move-made to the others, game-over to all at the end.
    fn notices(
        &self,
        path: &Path,
        game: &dyn OpenGame,
        last: Option<(&MoveOutcome, &str, &[String], Origin<'_>)>,
        occasion: Occasion,
    ) -> Result<(Vec<Outgoing>, Waiting), MailError> {
        let welcome = occasion == Occasion::Welcome;
        let bytes = game.bytes();
        let roster = roster(game)?;
        let view = game.view(None, None)?;
        let base = self.context(&view, &roster);
        let records = roster.records.len() as u64;
        let to_move = seats_to_move(&view, &roster);
        let over = view["over"] == true;
        let mover = last.and_then(|(outcome, _, _, _)| {
            roster
                .players
                .iter()
                .position(|p| p.name.eq_ignore_ascii_case(&outcome.player))
        });
        // Each seat's clock runs from its own notice: a seat still owing a move since an
        // earlier notice is not sent "your move" again.
        let mut waiting = if welcome {
            Waiting::default()
        } else {
            Waiting::load(&Archive::beside(path))?
        };
        if occasion == Occasion::TakenBack {
            // The position changed under everyone's feet: whoever is to move now is
            // sent a notice of it, and their clock starts again. The held mail of
            // the moves taken back is void: the step's own mail names those moves.
            waiting.seats.clear();
            let standing = roster.standing();
            for held in waiting.held.values_mut() {
                held.retain(|item| item.turn <= standing);
            }
            waiting.held.retain(|_, held| !held.is_empty());
        }
        let now = crate::mail::clock::now();
        let mut notify = waiting.advance(&to_move, mover, records + 1, now);
        // A seat whose move the rules force is not asked for it: the referee makes it
        // at once (`play_unasked`), and it is told with what else is held for them.
        if !over && !welcome {
            if let Some((forced, _)) = game.forced_move()? {
                notify.retain(|&seat| {
                    roster
                        .players
                        .get(seat)
                        .is_none_or(|player| player.name != forced)
                });
            }
        }
        let notes = if welcome {
            Notes::default()
        } else {
            Notes::load(&Archive::beside(path))?
        };
        let game_end = game.game_end()?;
        let pictures = if welcome {
            super::archive::Pictures::default()
        } else {
            super::archive::Pictures::load(&Archive::beside(path))?
        };
        let digests = if welcome {
            Digests::default()
        } else {
            Digests::load(&Archive::beside(path))?
        };
        let page = game.rules_page();
        // The words the setup was drawn with, as genesis records them: the welcome
        // shows them so each player can see their own are what they sent. Absent for
        // a game started at once, whose welcome then has no such section.
        let joined = if welcome {
            ops::joined_words(game.genesis())
        } else {
            None
        };
        // At the end, each player with an address gets the replay page of their view
        // (made together: the audit and the log they share once). None when they
        // cannot be made here; the signed file is the record.
        let mut replay_pages = if over {
            replay_pages(game, &roster)
        } else {
            BTreeMap::new()
        };
        let mut out = Vec::new();
        for (seat, player) in roster.players.iter().enumerate() {
            let (board, example) = self.personal(game, &player.name)?;
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
            // Players' own words, relayed: one inert line each.
            let notes: Vec<String> = notes
                .for_reader(&player.name)
                .iter()
                .map(|note| words::inert(note, NOTE_LINE_CHARS))
                .collect();
            context["notes"] = json!(notes);
            // The mover's confirmation answers the mail their move came in.
            let mut answering = None;
            if let Some((outcome, sent, ignored, origin)) = last {
                context["entered"] = json!(origin.word());
                if let (Origin::Mail(Some(id)), true) = (origin, player.name == outcome.player) {
                    answering = Some(id);
                }
                let reader = Viewer::Player(seat);
                let report: Vec<&str> = outcome
                    .report
                    .iter()
                    .filter(|line| line.seen_by(reader))
                    .map(|line| line.text.as_str())
                    .collect();
                context["report"] = json!(report);
                context["made_turn"] = json!(roster.move_number(outcome.turn));
                context["mover"] = json!(outcome.player);
                context["sealed"] = json!(outcome.sealed);
                // The move as sent and the lines left out of it are the player's
                // words: inert, one line (a template may show them anywhere).
                let sent = words::inert(
                    &sent.trim().lines().collect::<Vec<_>>().join("; "),
                    SENT_CHARS,
                );
                if player.name == outcome.player {
                    context["move"] = json!(sent);
                    context["understood"] = json!(outcome.understood);
                    let ignored: Vec<String> = ignored
                        .iter()
                        .map(|line| words::inert(line, words::FOREIGN_LINE_CHARS))
                        .collect();
                    context["ignored"] = json!(ignored.join(" / "));
                    context["receipt"] = json!(outcome.receipt);
                } else if outcome.sealed {
                    // Never the text of a sealed move: a referee's own template could
                    // print any field it is given.
                    context["understood"] =
                        json!(format!("{} has chosen, face down", outcome.player));
                } else {
                    context["move"] = json!(sent);
                    context["understood"] = json!(outcome.understood);
                }
            }
            // A move that does not ask this reader to move is held for their next
            // mail (the default, `digest turn`: one mail per turn of their own, which
            // carries the confirmation of their last move and what happened since),
            // or their day's digest (`digest daily`: their own confirmation still goes
            // at once), unless they asked for every move's mail (`digest off`). Their
            // turn notice and the end always go at once.
            //
            // A move the referee made for the reader (by hand, or past a deadline) is
            // news to them, not the confirmation of what they sent: it goes at once.
            // One the rules forced waits like their own: they were never asked for it.
            let reads_own_move = last.is_some_and(|(outcome, ..)| outcome.player == player.name);
            let made_for_them = reads_own_move
                && last.is_some_and(|(.., origin)| {
                    matches!(origin, Origin::Referee | Origin::Deadline(_))
                });
            let delivery = digests.delivery(seat);
            let immediate = over
                || notify.contains(&seat)
                || made_for_them
                || delivery == Delivery::EveryMove
                || (reads_own_move && delivery == Delivery::Daily);
            if let (Some((outcome, _, _, origin)), false, Some(_)) =
                (last, immediate, player.mail_address())
            {
                let text = |key: &str| context[key].as_str().unwrap_or_default().to_string();
                let report = context["report"]
                    .as_array()
                    .map(|lines| {
                        lines
                            .iter()
                            .filter_map(Value::as_str)
                            .map(String::from)
                            .collect()
                    })
                    .unwrap_or_default();
                waiting.held.entry(seat).or_default().push(Held {
                    at: now,
                    turn: roster.move_number(outcome.turn),
                    mover: outcome.player.clone(),
                    entered: origin.word().to_string(),
                    understood: if outcome.sealed && !reads_own_move {
                        String::new()
                    } else {
                        text("understood")
                    },
                    sealed: outcome.sealed,
                    report,
                    notes,
                    own: reads_own_move.then(|| OwnMove {
                        receipt: outcome.receipt.clone(),
                        ignored: text("ignored"),
                        answers: answering.map(str::to_string),
                    }),
                });
                continue;
            }
            // Whatever mail goes to this reader now carries what was held for them.
            let mut held_answers = None;
            if over || notify.contains(&seat) || last.is_some() {
                if let Some(held) = waiting.held.remove(&seat) {
                    context["earlier"] = earlier(&held);
                    // The confirmation of the reader's last move answers their mail.
                    held_answers = held
                        .iter()
                        .rev()
                        .find_map(|item| item.own.as_ref()?.answers.clone());
                }
            }
            let answering = answering.or(held_answers.as_deref());
            // A turn notice that reports a move (the last one, or those held for the
            // reader) is the only word the reader gets of it: the outbox never drops
            // it for a later notice, which does not report it again.
            let carries_news =
                last.is_some() || context.get("earlier").is_some_and(|e| !e.is_null());
            let mark = |message: Option<Outgoing>| {
                message.map(|m| if carries_news { m.carrying_news() } else { m })
            };
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
                context["summary"] = json!(page_section(page, SUMMARY_HEADING));
                context["syntax"] = json!(page_section(page, MOVES_HEADING));
                context["example_now"] = json!(to_move.contains(&seat));
                if let Some(words) = &joined {
                    let players: Vec<Value> = words
                        .players
                        .iter()
                        .map(|(name, words)| {
                            let words = words::inert(words, words::FOREIGN_LINE_CHARS);
                            json!({"name": name, "words": words})
                        })
                        .collect();
                    context["joined"] = json!(players);
                    context["referee_entropy"] = json!(words.referee);
                    context["invitation"] = json!(words.invitation);
                }
                out.extend(self.draft(
                    "welcome.txt",
                    &context,
                    player,
                    notice(WELCOME),
                    None,
                    None,
                )?);
            }
            // The board's picture goes with the mail that shows the board: the turn
            // notice, the confirmation and the others' notices of a move, the end.
            // A picture that would show the reader nothing new is left out, except
            // at the end: the game-over mail is the one a player keeps.
            let picture = (over || notify.contains(&seat) || last.is_some())
                .then(|| {
                    let sent = (&mut waiting.pictured, &roster, !over);
                    self.picture(game, (player, seat), &pictures, sent)
                })
                .flatten();
            if picture.is_some() {
                context["picture"] = json!(compose::PICTURE_NAME);
            }
            if over {
                context["turn"] = json!(roster.standing());
                if let Some(end) = &game_end {
                    context["reason"] = json!(end.reason);
                    if let Some(list) = context["players"].as_array_mut() {
                        for (entry, lines) in list.iter_mut().zip(&end.breakdown) {
                            entry["breakdown"] = json!(lines);
                        }
                    }
                }
                // The end of a game always carries the signed file: with its seed
                // revealed, anyone can now audit every draw. And the replay page as
                // this player may see it, which checks that file in their browser:
                // a record that proves itself, kept with the mail.
                let attachment = Some(self.game_file_attachment(path, bytes));
                let page = replay_pages
                    .remove(player.name.as_str())
                    .map(|page| (replay_file_name(path), page));
                if let Some((name, _)) = &page {
                    context["replay"] = json!(name);
                }
                out.extend(self.draft_enclosing(
                    "game-over.txt",
                    &context,
                    player,
                    notice("over"),
                    answering,
                    Enclosed {
                        attachment,
                        picture,
                        page,
                    },
                )?);
            } else if notify.contains(&seat) {
                context["code"] = json!(code);
                // `undo` is offered only where it would be taken.
                context["undo"] = json!(game.may_take_back(&player.name)?);
                let attachment = self.attachment(path, bytes);
                out.extend(mark(self.draft_enclosing(
                    "your-turn.txt",
                    &context,
                    player,
                    notice("turn"),
                    answering,
                    Enclosed {
                        attachment,
                        picture,
                        page: None,
                    },
                )?));
            } else if last.is_some() {
                context["turn"] = json!(roster.standing());
                let kind = if reads_own_move {
                    outbox::OWN_MOVE
                } else {
                    "made"
                };
                out.extend(self.draft_enclosing(
                    "move-made.txt",
                    &context,
                    player,
                    notice(kind),
                    answering,
                    Enclosed {
                        picture,
                        ..Enclosed::default()
                    },
                )?);
            }
        }
        Ok((out, waiting))
    }

    /// Repairs what a run killed while changing the game at `path` (which now has
    /// `records` records) left: the mail and the waits of a change that reached the
    /// game file are made ready, those of one that did not are dropped. Called under
    /// the game's lock by everything that reads the waits or sends the mail.
    ///
    /// # Errors
    /// The outbox or the archive cannot be read or changed.
    pub(crate) fn repair(&self, path: &Path, records: u64) -> Result<(), MailError> {
        let archive = Archive::beside(path);
        Waiting::recover(&archive, records)?;
        // Mail that changes no game is ready once the waits it was written with are.
        let generation = Waiting::load(&archive)?.generation;
        Outbox::beside(path).recover_to(records, generation)
    }

    /// Creates a game file at `out` and mails its welcome and first turn notice: the
    /// mail is staged before the file is written and made ready after it, so a game
    /// never exists without its mail. Sending happens later ([`Referee::flush`]): when
    /// it fails, the game stands and its mail waits in the outbox.
    ///
    /// # Errors
    /// No mail transport is configured (checked before anything is written), the game
    /// refuses the request, `out` exists, or a file cannot be written.
    pub fn create(&self, game: &str, request: NewGame, out: &Path) -> Result<usize, MailError> {
        self.settings.transport()?;
        let driver = ops::driver(game)?;
        let _lock = ops::lock_new(out)?;
        let bytes = driver.create(request, &self.keyring)?;
        let game = ops::open_bytes(&bytes, Some(&self.keyring), false)?;
        let (mail, waiting) = self.notices(out, game.as_ref(), None, Occasion::Welcome)?;
        let outbox = Outbox::beside(out);
        let archive = Archive::beside(out);
        // Nothing staged can belong to a game that does not exist yet.
        self.repair(out, 0)?;
        outbox.drop_staged()?;
        let staged = outbox.stage(0, &mail)?;
        let waits = waiting.stage(&archive, 0)?;
        ops::write_new_game(out, &bytes, &self.keyring)?;
        outbox.commit(&staged)?;
        Waiting::commit_staged(&archive, &waits)?;
        // A bot to move first moves now.
        let mut game = ops::open_bytes(&bytes, Some(&self.keyring), true)?;
        self.play_unasked(out, game.as_mut())?;
        Ok(mail.len())
    }

    /// Writes an invitation at `out` (`pbem new --join --mail`) and mails it to every
    /// player, staged before the file is written as a new game's welcome is. A reply
    /// to it is the player's join ([`Referee::join`]).
    ///
    /// # Errors
    /// As for [`Referee::create`].
    pub fn invite(&self, game: &str, request: NewGame, out: &Path) -> Result<usize, MailError> {
        self.settings.transport()?;
        let driver = ops::driver(game)?;
        let _lock = ops::lock_new(out)?;
        let bytes = driver.invite(request, &self.keyring)?;
        let invitation = Invitation::parse(&bytes)?;
        let genesis = &invitation.genesis;
        let waiting = invitation.waiting().join(", ");
        let mut mail = Vec::new();
        for (seat, player) in genesis.players.iter().enumerate() {
            let others: Vec<&str> = genesis
                .players
                .iter()
                .filter(|p| p.name != player.name)
                .map(|p| p.name.as_str())
                .collect();
            let code = self.secret.reply_code(&genesis.id, seat, 0);
            let context = json!({
                "tag": format!("[pbem {}]", genesis.id),
                "id": genesis.id,
                "game": genesis.game,
                "player": player.name,
                "others": others.join(", "),
                "code": code,
                "commitment": genesis.seed_commitment,
                "invitation": genesis.hash,
                "waiting": waiting,
            });
            let id = NoticeId {
                game_id: genesis.id.clone(),
                turn: 0,
                seat,
                kind: "invite".into(),
                code,
            };
            mail.extend(self.draft("invitation.txt", &context, player, id, None, None)?);
        }
        let outbox = Outbox::beside(out);
        outbox.recover(0)?;
        outbox.drop_staged()?;
        let staged = outbox.stage(0, &mail)?;
        store::create_new(out, &bytes)?;
        outbox.commit(&staged)?;
        Ok(mail.len())
    }

    /// A player joins the invitation at `path` with their words; the last to join
    /// starts the game, whose welcome and first turn notice are staged before the game
    /// file replaces the invitation. A player who joined before changes nothing.
    ///
    /// # Errors
    /// As for [`ops::join`].
    pub fn join(&self, path: &Path, player: &str, words: &str) -> Result<JoinDone, MailError> {
        let path = &store::resolve(path);
        let _lock = store::lock(path)?;
        self.join_locked(path, player, words)
    }

    /// [`Referee::join`] under the lock the caller holds.
    pub(crate) fn join_locked(
        &self,
        path: &Path,
        player: &str,
        words: &str,
    ) -> Result<JoinDone, MailError> {
        let done = ops::join_bytes(path, &store::read(path)?, &self.keyring, player, words)?;
        let Some(bytes) = &done.file else {
            return Ok(done);
        };
        let outbox = Outbox::beside(path);
        let archive = Archive::beside(path);
        self.repair(path, 0)?;
        let (mail, waiting) = if done.started {
            let game = ops::open_bytes(bytes, Some(&self.keyring), false)?;
            let (mail, waiting) = self.notices(path, game.as_ref(), None, Occasion::Welcome)?;
            (mail, Some(waiting))
        } else {
            (self.joined_mail(&done, player)?, None)
        };
        let staged = outbox.stage(0, &mail)?;
        let waits = match &waiting {
            Some(waiting) => Some(waiting.stage(&archive, 0)?),
            None => None,
        };
        ops::write_joined(path, &done, &self.keyring)?;
        outbox.commit(&staged)?;
        if let Some(waits) = waits {
            Waiting::commit_staged(&archive, &waits)?;
        }
        if done.started {
            // A bot to move first moves now.
            let mut game = ops::open_bytes(bytes, Some(&self.keyring), true)?;
            self.play_unasked(path, game.as_mut())?;
        }
        Ok(done)
    }

    /// The confirmation of a join that leaves others to join.
    fn joined_mail(&self, done: &JoinDone, player: &str) -> Result<Vec<Outgoing>, MailError> {
        let genesis = &done.invitation.genesis;
        let Some(seat) = genesis
            .players
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(player.trim()))
        else {
            return Ok(Vec::new());
        };
        let entry = &genesis.players[seat];
        let words = done
            .invitation
            .joined
            .iter()
            .find(|j| j.player == entry.name)
            .map(|j| j.entropy.clone())
            .unwrap_or_default();
        let context = json!({
            "tag": format!("[pbem {}]", genesis.id),
            "id": genesis.id,
            "game": genesis.game,
            "player": entry.name,
            "words": words::inert(&words, words::FOREIGN_LINE_CHARS),
            "waiting": done.invitation.waiting().join(", "),
        });
        let code = self.secret.reply_code(&genesis.id, seat, 0);
        let id = NoticeId {
            game_id: genesis.id.clone(),
            turn: 0,
            seat,
            kind: format!("joined{}", done.invitation.joined.len()),
            code,
        };
        Ok(self
            .draft("joined.txt", &context, entry, id, None, None)?
            .into_iter()
            .collect())
    }

    /// Applies a move and stages its mail, all or nothing: the mail is written to the
    /// outbox before the game file, and made sendable only after it. Nothing is sent
    /// here ([`Referee::flush`] sends, without the game's lock).
    ///
    /// # Errors
    /// A refused move (nothing changes), or a file that cannot be written.
    pub fn apply(
        &self,
        path: &Path,
        player: &str,
        move_text: &str,
    ) -> Result<MoveOutcome, MailError> {
        let mut mail = MoveMail::new(self, move_text, &[], Origin::Referee);
        ops::apply_move_with(path, &self.keyring, player, move_text, &mut mail)
    }

    /// [`Referee::apply`] on the game file at `path` as the caller opened it (with this
    /// referee's keyring, under the lock it holds); `ignored` lists the lines of the
    /// player's message that were left out as not part of the move, and `origin` says
    /// who entered it, for its notices.
    pub(crate) fn apply_opened(
        &self,
        path: &Path,
        game: &mut dyn OpenGame,
        player: &str,
        move_text: &str,
        ignored: &[String],
        origin: Origin<'_>,
    ) -> Result<MoveOutcome, MailError> {
        let mut mail = MoveMail::new(self, move_text, ignored, origin);
        ops::apply_opened(path, game, &self.keyring, player, move_text, &mut mail)
    }

    /// Makes now the next move nobody needs to be asked for, recorded as its player's
    /// and mailed like any move, rather than waited for: a move the rules leave a
    /// player no choice about, or the move of a seat a built-in player takes (`Bot
    /// <bot:search>`), which sees only what its seat may see. Each such move leads to
    /// the next, until a person is to move or the game ends. Should the game refuse
    /// it (say, while an undo is asked), the seat is waited for as usual.
    fn play_unasked(&self, path: &Path, game: &mut dyn OpenGame) -> Result<(), MailError> {
        let next = match game.forced_move()? {
            Some((player, text)) => Some((player, text, Origin::Forced)),
            None => self
                .bot_move(game)?
                .map(|(player, text)| (player, text, Origin::Bot)),
        };
        if let Some((player, text, origin)) = next {
            let by = match origin {
                Origin::Bot => "a built-in player",
                _ => "forced by the rules",
            };
            match self.apply_opened(path, game, &player, &text, &[], origin) {
                Ok(outcome) => {
                    // A sealed move's words stay out of the log, which cron may mail on.
                    let shown = if outcome.sealed {
                        "a sealed move"
                    } else {
                        outcome.understood.as_str()
                    };
                    let line = format!("{player} ({by}) moved: turn {}: {shown}", outcome.turn);
                    if let Ok(mut unasked) = self.unasked.lock() {
                        unasked.push((path.to_path_buf(), line));
                    }
                }
                Err(MailError::Ops(_)) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// The moves made unasked since the last call (see [`Referee::play_unasked`]),
    /// with their game files, oldest first.
    pub fn take_unasked(&self) -> Vec<(PathBuf, String)> {
        self.unasked
            .lock()
            .map(|mut unasked| std::mem::take(&mut *unasked))
            .unwrap_or_default()
    }

    /// The move of the first seat a built-in player takes that is to move now, with
    /// its player's name: the bots of the game's driver choose it, with the stream
    /// the game gives them (docs/FAIRNESS.md, "Bots' seats"). A seat whose bot this
    /// pbem does not play (another version of it) is the referee's to see to.
    fn bot_move(&self, game: &dyn OpenGame) -> Result<Option<(String, String)>, MailError> {
        for player in &roster(game)?.players {
            if player.bot().is_none() {
                continue;
            }
            match game.bot_move(&player.name) {
                Ok(Some(text)) => return Ok(Some((player.name.clone(), text))),
                Ok(None) => {}
                Err(EngineError::BotNotPlayed(refusal)) => return Err(MailError::Config(refusal)),
                Err(error) => return Err(error.into()),
            }
        }
        Ok(None)
    }

    /// `player`'s word about taking back moves, with its mail: every player is told of
    /// a request, each answer and the undo; those whose agreement is awaited are asked
    /// for it; after an undo whoever is to move gets their turn notice. Staged and
    /// written as a move is ([`Referee::apply`]).
    ///
    /// # Errors
    /// A word the game does not allow now (nothing changes), or a file that cannot be
    /// written.
    pub fn take_back(
        &self,
        path: &Path,
        player: &str,
        word: UndoStep,
    ) -> Result<UndoOutcome, MailError> {
        let mut mail = UndoMail::new(self, None, &[]);
        ops::take_back_with(path, &self.keyring, player, word, &mut mail)
    }

    /// [`Referee::take_back`] on the game file at `path` as the caller opened it, under
    /// the lock it holds; `answers` is the Message-ID of the player's mail, if any, and
    /// `ignored` the lines of it left out as not part of the word.
    pub(crate) fn take_back_opened(
        &self,
        path: &Path,
        game: &mut dyn OpenGame,
        player: &str,
        word: UndoStep,
        answers: Option<&str>,
        ignored: &[String],
    ) -> Result<UndoOutcome, MailError> {
        let mut mail = UndoMail::new(self, answers, ignored);
        ops::take_back_opened(path, game, &self.keyring, player, word, &mut mail)
    }

    /// The mail of a step of taking back, one to every player; the one who gave the
    /// word is told which lines of their mail were left out (`ignored`), and, once
    /// moves are taken back, those whose turn notice it made void are told so.
    fn undo_mail(
        &self,
        game: &dyn OpenGame,
        outcome: &UndoOutcome,
        answers: Option<&str>,
        ignored: &[String],
        void: &Void,
    ) -> Result<Vec<Outgoing>, MailError> {
        let roster = roster(game)?;
        let base = self.context(&game.view(None, None)?, &roster);
        let records = roster.records.len() as u64;
        let (by, step) = match outcome.added.first() {
            Some((_, by, step)) => (by.clone(), *step),
            None => return Ok(Vec::new()),
        };
        let step = match (step, outcome.done) {
            (_, true) => "done",
            (UndoStep::Ask, _) => "asked",
            (UndoStep::Agree, _) => "agreed",
            (UndoStep::Decline, _) => "declined",
            (UndoStep::Undo, _) => "done",
        };
        // The moves taken back are the last ones standing: players know them by the
        // turns after the moves that stay.
        let taken: Vec<u64> = outcome.moves.iter().map(|(turn, _, _)| *turn).collect();
        let stays = roster
            .records
            .iter()
            .filter(|(turn, _, _)| !roster.not_moves.contains(turn) && !taken.contains(turn))
            .count() as u64;
        let moves: Vec<Value> = outcome
            .moves
            .iter()
            .zip(stays + 1..)
            .map(|((_, player, text), turn)| json!({"turn": turn, "player": player, "text": text}))
            .collect();
        let mut out = Vec::new();
        for (seat, player) in roster.players.iter().enumerate() {
            let mut context = base.clone();
            context["player"] = json!(player.name);
            context["step"] = json!(step);
            context["by"] = json!(by);
            context["asked_by"] = json!(outcome.asked_by);
            context["takes_back"] = json!(if taken.is_empty() {
                roster.move_number(outcome.from)
            } else {
                stays + 1
            });
            if outcome.done && void.seats.contains(&seat) {
                context["void_turn"] = json!(void.turn);
            }
            context["moves"] = json!(moves);
            context["agreed"] = json!(outcome.agreed.join(", "));
            context["waiting_for"] = json!(outcome.waiting_for.join(", "));
            context["asked"] = json!(outcome.waiting_for.contains(&player.name));
            context["to_move"] = json!(outcome.to_move.join(", "));
            let code = self.secret.reply_code(&roster.id, seat, records + 1);
            context["code"] = json!(code);
            let id = NoticeId {
                game_id: roster.id.clone(),
                turn: records + 1,
                seat,
                kind: format!("undo-{step}"),
                code,
            };
            if player.name == by {
                context["ignored"] = json!(ignored.join(" / "));
            }
            let answering = (player.name == by).then_some(answers).flatten();
            out.extend(self.draft("undo.txt", &context, player, id, answering, None)?);
        }
        Ok(out)
    }

    /// Sends what waits in a game's outbox. The game's lock is held only to repair an
    /// interrupted move, never while talking to the mail server. A message refused for
    /// good is set aside and the referee told of it by mail (see [`crate::mail::outbound::outbox`]).
    ///
    /// # Errors
    /// No transport configured, or the outbox cannot be read.
    pub fn flush(&self, path: &Path) -> Result<Flushed, MailError> {
        let transport = self.settings.transport()?;
        let path = &store::resolve(path);
        let outbox = Outbox::beside(path);
        {
            let _lock = store::lock(path)?;
            if let Ok(bytes) = store::read(path) {
                self.repair(path, records_in(&bytes)?)?;
            }
        }
        outbox.flush(&transport, &|id, aside| {
            self.refusal_notice(path, id, aside)
        })
    }

    /// Sends what waits in the outboxes of `files`, then, with a games folder, its
    /// referee's outbox ([`Referee::flush_referee_mail`], labelled
    /// `FOLDER/referee.outbox`): what `pbem outbox flush` and `pbem watch` both do.
    /// Returns each outbox's label with what its flush did, or why it could not
    /// (no transport, an outbox that cannot be read): one outbox's trouble does not
    /// keep the others' mail from going.
    pub fn flush_each(
        &self,
        files: &[PathBuf],
        folder: Option<&Path>,
    ) -> Vec<(PathBuf, Result<Flushed, MailError>)> {
        let mut flushed: Vec<_> = files
            .iter()
            .map(|file| (file.clone(), self.flush(file)))
            .collect();
        if let Some(dir) = folder {
            flushed.push((dir.join("referee.outbox"), self.flush_referee_mail(dir)));
        }
        flushed
    }

    /// Sends what waits in an outbox, after the game's lock is released; what fails
    /// waits for `pbem outbox flush`, what is refused for good is set aside (and kept
    /// for [`Referee::take_refused`]).
    pub(crate) fn try_flush(&self, outbox: &Outbox) {
        let Ok(transport) = self.settings.transport() else {
            return;
        };
        let game = outbox.game_file();
        let notice = |id: &str, aside: &SetAside| self.refusal_notice(&game, id, aside);
        if let Ok(flushed) = outbox.flush(&transport, &notice) {
            if let Ok(mut refused) = self.refused.lock() {
                refused.extend(flushed.refused.into_iter().map(|m| (game.clone(), m)));
            }
        }
    }

    /// The messages set aside while sending behind moves since the last call, with
    /// their game files.
    pub fn take_refused(&self) -> Vec<(PathBuf, Listed)> {
        self.refused
            .lock()
            .map(|mut refused| std::mem::take(&mut *refused))
            .unwrap_or_default()
    }

    /// The referee's notice of a message set aside as `id` in the outbox of
    /// `game_file`: to the referee's own address, which message to whom and the
    /// server's answer; never its body, which may hold a player's token or reply code.
    /// None for mail to the referee, whose notice would go where that mail could not.
    pub(crate) fn refusal_notice(
        &self,
        game_file: &Path,
        id: &str,
        aside: &SetAside,
    ) -> Result<Option<Outgoing>, MailError> {
        let referee = self.settings.from_address();
        if aside.outgoing.to.iter().any(|to| address_of(to) == referee) {
            return Ok(None);
        }
        let game_id = store::read(game_file)
            .ok()
            .and_then(|bytes| game_id_of(&bytes))
            .unwrap_or_else(|| {
                game_file
                    .file_stem()
                    .map_or("game".into(), |stem| stem.to_string_lossy().into_owned())
            });
        let shown = std::path::absolute(game_file).unwrap_or_else(|_| game_file.to_path_buf());
        let context = json!({
            "id": game_id,
            "game_file": shown.display().to_string(),
            "message": id,
            "to": aside.outgoing.to.join(", "),
            "subject": aside.outgoing.shown_subject(),
            "reason": aside.reason,
            "refused_at": crate::mail::clock::utc_text(aside.refused_at),
        });
        let (subject, body) = self.templates.render_mail(REFUSED_NOTICE, &context)?;
        let domain = self.domain();
        let digest = crate::basics::digest::sha256(
            format!("{game_id}/{id}/{}", aside.refused_at).as_bytes(),
        );
        // Not a notice id of ours (no turn, seat or code): a reply to it, or the notice
        // itself coming back to the referee's mailbox, is mail for no game.
        let message_id = format!(
            "pbem.{game_id}.refused.{}@{domain}",
            &crate::basics::digest::to_hex(&digest)[..16]
        );
        compose::build(
            &self.settings,
            Draft {
                to_name: &self.settings.from_name(),
                to_address: &referee,
                subject,
                body,
                message_id,
                // To the referee, who has no welcome: a thread of its own.
                thread_root: None,
                answers: None,
                enclosed: Enclosed::default(),
            },
        )
        .map(Some)
    }
}

/// The mail of a move, written with it ([`ops::WrittenWith`]): its notices staged in
/// the outbox and the players' waits in the archive before the game file is replaced,
/// made ready after it; then the moves nobody needs to be asked for.
struct MoveMail<'a> {
    referee: &'a Referee,
    /// The move as sent, and the lines of the player's message left out of it.
    move_text: &'a str,
    ignored: &'a [String],
    origin: Origin<'a>,
    /// The outbox's staged files and the staged waits, once staged.
    staged: Option<(Vec<PathBuf>, PathBuf)>,
}

impl<'a> MoveMail<'a> {
    fn new(
        referee: &'a Referee,
        move_text: &'a str,
        ignored: &'a [String],
        origin: Origin<'a>,
    ) -> MoveMail<'a> {
        MoveMail {
            referee,
            move_text,
            ignored,
            origin,
            staged: None,
        }
    }
}

impl WrittenWith<MoveOutcome> for MoveMail<'_> {
    type Error = MailError;

    fn before(&mut self, path: &Path, game: &dyn OpenGame) -> Result<(), MailError> {
        self.referee.repair(path, game.turns())
    }

    fn stage(
        &mut self,
        path: &Path,
        game: &dyn OpenGame,
        outcome: &MoveOutcome,
    ) -> Result<(), MailError> {
        let (mail, waiting) = self.referee.notices(
            path,
            game,
            Some((outcome, self.move_text, self.ignored, self.origin)),
            Occasion::Move,
        )?;
        let staged = Outbox::beside(path).stage(outcome.turn, &mail)?;
        let waits = waiting.stage(&Archive::beside(path), outcome.turn)?;
        self.staged = Some((staged, waits));
        Ok(())
    }

    fn commit(
        &mut self,
        path: &Path,
        game: &mut dyn OpenGame,
        _outcome: &MoveOutcome,
    ) -> Result<(), MailError> {
        crate::basics::crash::point("after-game-write");
        if let Some((staged, waits)) = self.staged.take() {
            Outbox::beside(path).commit(&staged)?;
            crate::basics::crash::point("after-mail-commit");
            // The notes went out with these notices: committing the waits forgets them.
            Waiting::commit_staged(&Archive::beside(path), &waits)?;
        }
        self.referee.play_unasked(path, game)
    }
}

/// The mail of a step of taking back moves, written with it ([`ops::WrittenWith`]) as
/// a move's is ([`MoveMail`]).
struct UndoMail<'a> {
    referee: &'a Referee,
    /// The Message-ID of the player's mail, if any, and the lines of it left out.
    answers: Option<&'a str>,
    ignored: &'a [String],
    /// The turn notices the word may make void, read before it.
    void: Option<Void>,
    /// The outbox's staged files and the staged waits (after an undo), once staged.
    staged: Option<(Vec<PathBuf>, Option<PathBuf>)>,
}

impl<'a> UndoMail<'a> {
    fn new(referee: &'a Referee, answers: Option<&'a str>, ignored: &'a [String]) -> UndoMail<'a> {
        UndoMail {
            referee,
            answers,
            ignored,
            void: None,
            staged: None,
        }
    }
}

impl WrittenWith<UndoOutcome> for UndoMail<'_> {
    type Error = MailError;

    fn before(&mut self, path: &Path, game: &dyn OpenGame) -> Result<(), MailError> {
        self.referee.repair(path, game.turns())?;
        // Who is to move before the word, and the turn their notice named: should the
        // word take moves back, those notices are void, and their readers are told.
        let before = roster(game)?;
        self.void = Some(Void {
            seats: seats_to_move(&game.view(None, None)?, &before),
            turn: before.standing() + 1,
        });
        Ok(())
    }

    fn stage(
        &mut self,
        path: &Path,
        game: &dyn OpenGame,
        outcome: &UndoOutcome,
    ) -> Result<(), MailError> {
        let void = self.void.take().unwrap_or(Void {
            seats: Vec::new(),
            turn: 0,
        });
        let referee = self.referee;
        let mut mail = referee.undo_mail(game, outcome, self.answers, self.ignored, &void)?;
        let waiting = if outcome.done {
            let (notices, waiting) = referee.notices(path, game, None, Occasion::TakenBack)?;
            mail.extend(notices);
            Some(waiting)
        } else {
            None
        };
        let staged = Outbox::beside(path).stage(game.turns(), &mail)?;
        let waits = match &waiting {
            Some(waiting) => Some(waiting.stage(&Archive::beside(path), game.turns())?),
            None => None,
        };
        self.staged = Some((staged, waits));
        Ok(())
    }

    fn commit(
        &mut self,
        path: &Path,
        game: &mut dyn OpenGame,
        outcome: &UndoOutcome,
    ) -> Result<(), MailError> {
        if let Some((staged, waits)) = self.staged.take() {
            Outbox::beside(path).commit(&staged)?;
            if let Some(waits) = waits {
                Waiting::commit_staged(&Archive::beside(path), &waits)?;
            }
        }
        let referee = self.referee;
        if outcome.done {
            // Whoever is to move now may be a bot, or have no choice.
            referee.play_unasked(path, game)?;
        } else if let Some(bot) = roster(game)?
            .players
            .iter()
            .find(|p| p.bot().is_some() && outcome.waiting_for.contains(&p.name))
        {
            // A built-in player agrees to every undo it is asked for: a person's
            // slip is theirs to take back, and a bot has no stake in refusing.
            match referee.take_back_opened(path, game, &bot.name, UndoStep::Agree, None, &[]) {
                Ok(_) | Err(MailError::Ops(_)) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }
}

/// Each player with an address, with the replay page of their view (made together:
/// the audit and the log they share once). Empty when they cannot be made here: the
/// signed file is the record.
pub(crate) fn replay_pages<'a>(
    game: &dyn OpenGame,
    roster: &'a Roster,
) -> BTreeMap<&'a str, String> {
    let readers: Vec<&str> = roster
        .players
        .iter()
        .filter(|player| player.mail_address().is_some())
        .map(|player| player.name.as_str())
        .collect();
    let viewers: Vec<Option<&str>> = readers.iter().copied().map(Some).collect();
    crate::replay::pages(game, &viewers)
        .map(|pages| readers.into_iter().zip(pages).collect())
        .unwrap_or_default()
}

/// The file name of a game's replay page in mail: the game file's, `.html` for its
/// extension (`ann-bob.json` gives `ann-bob.html`).
pub(crate) fn replay_file_name(path: &Path) -> String {
    path.file_stem().map_or("game".into(), |stem| {
        format!("{}.html", stem.to_string_lossy())
    })
}
