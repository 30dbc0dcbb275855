//! Replies read as the player meant them: each test plays a game by mail through
//! `pbem inbox` (mail delivered to a folder), answers the turn notice it actually
//! received in the shape one mail client writes, and checks that the move is applied
//! whole, and that what was left out is named to the player.

use std::path::PathBuf;
use std::process::Command;

use mail_parser::MessageParser;
use serde_json::Value;

use super::replies::{self, Notice};

const SEED: &str = "3333333333333333333333333333333333333333333333333333333333333333";

/// A delivered message, read back.
#[derive(Debug, Clone)]
struct Mail {
    to: String,
    subject: String,
    message_id: String,
    references: String,
    text: String,
    /// The turn and kind of our notice id (`pbem.<game>.<turn>.<seat>.<kind>.<code>`).
    turn: u64,
    kind: String,
}

impl Mail {
    fn notice(&self) -> Notice<'_> {
        Notice {
            subject: &self.subject,
            message_id: &self.message_id,
            references: &self.references,
            text: &self.text,
        }
    }
}

/// A game by mail between two players, with a referee of a given name and address.
struct Game {
    dir: tempfile::TempDir,
    referee_name: String,
    referee_address: String,
}

impl Game {
    fn start(referee_name: &str, referee_address: &str, players: [&str; 2]) -> Game {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("games")).expect("games");
        super::support::test_key(&dir.path().join("keyring"));
        let game = Game {
            dir,
            referee_name: referee_name.to_string(),
            referee_address: referee_address.to_string(),
        };
        let mut new = game.pbem();
        new.args(["new", "right-of-way"]);
        for name in players {
            new.args(["--player", &format!("{name} <{}>", address(name))]);
        }
        let output = new
            .args(["--seed", SEED, "--mail", "--out"])
            .arg(game.file())
            .output()
            .expect("runs");
        assert!(output.status.success(), "{output:?}");
        game
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("games/game.json")
    }

    fn pbem(&self) -> Command {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("pbem"));
        command
            .env("PBEM_HOME", self.dir.path().join("keyring"))
            .env(
                "PBEM_SMTP",
                format!("folder:{}", self.dir.path().join("delivered").display()),
            )
            .env(
                "PBEM_FROM",
                format!("{} <{}>", self.referee_name, self.referee_address),
            )
            .env_remove("PBEM_NOW");
        command
    }

    fn referee(&self) -> replies::Referee<'_> {
        replies::Referee {
            name: &self.referee_name,
            address: &self.referee_address,
        }
    }

    fn view(&self) -> Value {
        let output = self
            .pbem()
            .arg("show")
            .arg(self.file())
            .args(["--format", "json"])
            .output()
            .expect("runs");
        serde_json::from_slice(&output.stdout).expect("json")
    }

    /// Who is to move, and the first move `pbem legal` lists for them.
    fn first_move(&self) -> (String, String) {
        let player = self.view()["to_move"][0]
            .as_str()
            .expect("a player")
            .to_string();
        let text = self.legal(&player)[0]["move"]
            .as_str()
            .expect("a move")
            .to_string();
        (player, text)
    }

    /// The player to move and a first move of theirs that draws nothing, so that it
    /// may be taken back.
    fn quiet_first_move(&self) -> (String, String) {
        let (player, _) = self.first_move();
        let text = crate::support::quiet_move(&self.legal(&player));
        (player, text)
    }

    /// `pbem legal --format json` for `player`.
    fn legal(&self, player: &str) -> Vec<Value> {
        let output = self
            .pbem()
            .arg("legal")
            .arg(self.file())
            .args(["--player", player, "--format", "json"])
            .output()
            .expect("runs");
        serde_json::from_slice(&output.stdout).expect("json")
    }

    /// Every message delivered so far.
    fn mails(&self) -> Vec<Mail> {
        let Ok(listing) = std::fs::read_dir(self.dir.path().join("delivered")) else {
            return Vec::new();
        };
        listing
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "eml"))
            .map(|path| read(&std::fs::read(path).expect("a delivered message")))
            .collect()
    }

    /// The newest mail of a kind (`turn`, `made`, `own`: the confirmation of their move)
    /// to `address`.
    fn newest(&self, address: &str, kind: &str) -> Mail {
        self.mails()
            .into_iter()
            .filter(|m| m.to == address && m.kind == kind)
            .max_by_key(|m| m.turn)
            .unwrap_or_else(|| panic!("no {kind} mail to {address}"))
    }

    /// The confirmation of `player`'s last move: it comes with their next turn notice,
    /// so the other player moves first (by a plain reply to their notice).
    fn confirmation_of(&self, player: &str) -> Mail {
        let other = self.view()["to_move"][0]
            .as_str()
            .expect("the other player")
            .to_string();
        assert_ne!(other, player);
        let text = self.legal(&other)[0]["move"]
            .as_str()
            .expect("a move")
            .to_string();
        let to = address(&other);
        let notice = self.newest(&to, "turn");
        let report = self.inbox(&replies::gmail_reply(
            &self.referee(),
            &notice.notice(),
            &to,
            &text,
            "the-other-moves",
        ));
        assert!(report.starts_with("applied"), "{report}");
        self.newest(&address(player), "turn")
    }

    /// The move of the last message archived, as it was read.
    fn archived_move(&self) -> Option<String> {
        let index =
            std::fs::read_to_string(self.dir.path().join("games/game.json.mail/index.jsonl"))
                .expect("the archive");
        let last: Value = serde_json::from_str(index.lines().last()?).expect("an entry");
        last["move_text"].as_str().map(str::to_string)
    }

    /// Feeds one raw message to `pbem inbox`; returns what it printed.
    fn inbox(&self, raw: &str) -> String {
        let output = super::support::inbox(self.pbem(), &self.dir.path().join("games"), raw);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(0), "{text}");
        text
    }
}

fn address(name: &str) -> String {
    format!("{}@example.org", name.to_ascii_lowercase())
}

fn read(raw: &[u8]) -> Mail {
    let message = MessageParser::default().parse(raw).expect("a message");
    let message_id = message.message_id().unwrap_or_default().to_string();
    let mut parts = message_id.split('@').next().unwrap_or_default().split('.');
    let turn = parts.nth(2).and_then(|t| t.parse().ok()).unwrap_or(0);
    let kind = parts.nth(1).unwrap_or_default().to_string();
    Mail {
        to: message
            .to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_string(),
        subject: message.subject().unwrap_or_default().to_string(),
        message_id,
        references: message
            .header_raw("References")
            .map(|v| v.trim().to_string())
            .unwrap_or_default(),
        // As a client shows it: lines, whatever ended them on the wire.
        text: message
            .body_text(0)
            .map(|t| t.replace("\r\n", "\n"))
            .unwrap_or_default(),
        turn,
        kind,
    }
}

/// Starts a game, has the player to move answer their turn notice with a reply
/// `build` makes from that notice (given the player's address and their move), and
/// checks that exactly the move was read and applied, and that the mover's
/// confirmation names `left_out` (the lines read as not part of the move, `{player}`
/// standing for the mover's name), or names nothing.
fn reply_is_applied(
    referee: (&str, &str),
    players: [&str; 2],
    build: impl Fn(&Game, &Mail, &str, &str) -> String,
    left_out: &[&str],
) {
    let game = Game::start(referee.0, referee.1, players);
    let (player, text) = game.first_move();
    let from = address(&player);
    let notice = game.newest(&from, "turn");
    assert!(notice.text.contains("it is your turn"), "{}", notice.text);
    let raw = build(&game, &notice, &from, &text);
    let report = game.inbox(&raw);
    assert!(report.starts_with("applied"), "{report}\n\n{raw}");
    assert_eq!(game.view()["turn"], 1, "{report}");
    // Read exactly as the player wrote it: the archive keeps the move as read.
    assert_eq!(
        game.archived_move().as_deref(),
        Some(text.as_str()),
        "{raw}"
    );
    let confirmation = game.confirmation_of(&player);
    let named = confirmation
        .text
        .split("Left out of your message as not part of the move: ")
        .nth(1)
        .map(|rest| {
            rest.split("\n\n")
                .next()
                .unwrap_or_default()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        });
    let expected = (!left_out.is_empty()).then(|| {
        left_out
            .iter()
            .map(|line| line.replace("{player}", &player))
            .collect::<Vec<_>>()
            .join(" / ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    });
    assert_eq!(named, expected, "{}", confirmation.text);
}

/// Gmail wraps a long Italian attribution after the `<`; the address below it has a
/// digit next to a letter, which a move's cell has too.
#[test]
fn gmail_italian_attribution_wrapped_over_two_lines() {
    reply_is_applied(
        ("Arbitro del circolo Right of Way", "arbitro2@pbem.example"),
        ["Giulia", "Marco"],
        |game, notice, from, text| {
            let referee = game.referee();
            let attribution = format!(
                "Il giorno lun 23 nov 2026 alle ore 10:00 {} <\n{}> ha scritto:",
                referee.name, referee.address
            );
            replies::gmail_wrapped_reply(&notice.notice(), from, text, "it-1", &attribution)
        },
        &[],
    );
}

/// A Dutch attribution wrapped under a long name: its verb is far from its end.
#[test]
fn gmail_dutch_attribution_wrapped_over_two_lines() {
    reply_is_applied(
        (
            "Scheidsrechter van de Right of Way-club",
            "referee@pbem.example",
        ),
        ["Sanne", "Daan"],
        |game, notice, from, text| {
            let referee = game.referee();
            let attribution = format!(
                "Op ma 23 nov 2026 om 10:00 schreef {} <\n{}>:",
                referee.name, referee.address
            );
            replies::gmail_wrapped_reply(&notice.notice(), from, text, "nl-1", &attribution)
        },
        &[],
    );
}

#[test]
fn gmail_norwegian_attribution_wrapped_over_two_lines() {
    reply_is_applied(
        (
            "Dommeren i Right of Way-klubben Bergen",
            "dommer1@pbem.example",
        ),
        ["Mette", "Ola"],
        |game, notice, from, text| {
            let referee = game.referee();
            let attribution = format!(
                "man. 23. nov. 2026 kl. 10:00 skrev {} <\n{}>:",
                referee.name, referee.address
            );
            replies::gmail_wrapped_reply(&notice.notice(), from, text, "no-1", &attribution)
        },
        &[],
    );
}

/// "On ... Referee <...> wrote", no colon, and the original below it not quoted.
#[test]
fn english_attribution_without_a_colon_above_the_original() {
    reply_is_applied(
        ("Referee", "referee@pbem.example"),
        ["Ann", "Bob"],
        |game, notice, from, text| {
            replies::no_colon_unquoted_reply(&game.referee(), &notice.notice(), from, text, "en-1")
        },
        &[],
    );
}

#[test]
fn mailru_lowercase_from_line_above_the_quote() {
    reply_is_applied(
        ("Referee", "referee@pbem.example"),
        ["Olga", "Ivan"],
        |game, notice, from, text| {
            replies::mailru_from_line_reply(&game.referee(), &notice.notice(), from, text, "ru-1")
        },
        &[],
    );
}

#[test]
fn french_webmail_message_du_separator_above_the_quote() {
    reply_is_applied(
        ("Arbitre", "arbitre@pbem.example"),
        ["Elodie", "Hugo"],
        |_, notice, from, text| replies::message_du_reply(&notice.notice(), from, text, "fr-1"),
        &[],
    );
}

#[test]
fn thunderbird_underscores_above_the_quote() {
    reply_is_applied(
        ("Referee", "referee@pbem.example"),
        ["Dieter", "Jonas"],
        |_, notice, from, text| replies::underscores_reply(&notice.notice(), from, text, "tb-1"),
        &[],
    );
}

/// A tagline of the player's own, too long to be taken for a client's: it stands right
/// above the quote, so it is left out, and named.
#[test]
fn iphone_custom_tagline_above_the_quote() {
    let tagline = "Sent from my iPhone 15 Pro Max. Please excuse typos, autocorrect and brevity.";
    reply_is_applied(
        ("Referee", "referee@pbem.example"),
        ["Cleo", "Bob"],
        |game, notice, from, text| {
            replies::iphone_tagline_reply(
                &game.referee(),
                &notice.notice(),
                from,
                text,
                "ios-1",
                tagline,
            )
        },
        &[tagline],
    );
}

/// Windows Mail: a Russian header block with no subject line, the original unquoted.
#[test]
fn windows_mail_russian_header_block_without_a_blockquote() {
    reply_is_applied(
        ("Referee", "referee@pbem.example"),
        ["Olga", "Ivan"],
        |game, notice, from, text| {
            let name = notice.text.split(',').next().unwrap_or_default();
            let text = format!("{text}\n\nСпасибо,\n{name}");
            replies::windows_mail_reply(&game.referee(), &notice.notice(), from, &text, "wm-1")
        },
        &["Спасибо,", "{player}"],
    );
}

#[test]
fn a_greeting_above_the_move_is_left_out_and_named() {
    reply_is_applied(
        ("Referee", "referee@pbem.example"),
        ["Ann", "Bob"],
        |game, notice, from, text| {
            replies::gmail_reply(
                &game.referee(),
                &notice.notice(),
                from,
                &format!("Hi Bob... I mean referee,\n\n{text}"),
                "hi-1",
            )
        },
        &["Hi Bob... I mean referee,"],
    );
}

/// `undo` and an apology below it, in reply to the notice the move answered: the move
/// is taken back (nobody else has moved since), and the apology is named as left out.
#[test]
fn undo_followed_by_an_apology_takes_the_move_back() {
    let game = Game::start("Referee", "referee@pbem.example", ["Ann", "Bob"]);
    let (player, text) = game.quiet_first_move();
    let from = address(&player);
    let notice = game.newest(&from, "turn");
    let report = game.inbox(&replies::gmail_reply(
        &game.referee(),
        &notice.notice(),
        &from,
        &text,
        "undo-0",
    ));
    assert!(report.starts_with("applied"), "{report}");
    // Answered at once by nobody (the confirmation waits for the player's next mail):
    // the player replies to the notice their move answered.
    let report = game.inbox(&replies::gmail_reply(
        &game.referee(),
        &notice.notice(),
        &from,
        "undo\n\nSorry, I clicked too fast.",
        "undo-1",
    ));
    assert!(report.starts_with("undo"), "{report}");
    assert_eq!(game.view()["to_move"][0], player.as_str());
    let done = game.newest(&from, "undo-done");
    assert!(
        done.text
            .contains(&format!("Taken back at {player}'s request")),
        "{}",
        done.text
    );
    assert!(
        done.text
            .contains("Left out of your message: Sorry, I clicked too fast."),
        "{}",
        done.text
    );
    // Only the one whose word it was is told what was left out of their mail.
    let other = if player == "Ann" { "Bob" } else { "Ann" };
    let to_other = game.newest(&address(other), "undo-done");
    assert!(!to_other.text.contains("Left out"), "{}", to_other.text);
}
