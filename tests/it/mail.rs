//! The mail loop end to end: a real SMTP server on loopback (aiosmtpd, which .ci/run
//! installs), real processes, replies shaped like real mail clients' replies.

use std::io::Write;

use std::net::TcpListener;

use std::path::{Path, PathBuf};

use std::process::{Child, Command, Stdio};

use std::time::{Duration, Instant};

use mail_parser::{MessageParser, MimeHeaders};

use serde_json::Value;

mod bots;
mod copies;
mod delivery;
mod faults;
mod invisible;
mod news;
mod outbox;
mod pictures_and_digest;
mod watch;

const SEED: &str = "3333333333333333333333333333333333333333333333333333333333333333";

/// aiosmtpd on a free loopback port, delivering into a Maildir; it refuses the
/// addresses of `refused` with 550 (tests/support/refusing_mailbox.py).
struct Smtp {
    port: u16,
    maildir: PathBuf,
    refused: Vec<String>,
    child: Option<Child>,
}

impl Smtp {
    fn refusing(maildir: &Path, refused: &[&str]) -> Smtp {
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("a free port")
            .local_addr()
            .expect("addr")
            .port();
        let mut smtp = Smtp {
            port,
            maildir: maildir.to_path_buf(),
            refused: refused.iter().map(|a| a.to_string()).collect(),
            child: None,
        };
        smtp.resume();
        smtp
    }

    fn resume(&mut self) {
        let mut command = Command::new("python3");
        command.args([
            "-m",
            "aiosmtpd",
            "-n",
            "-l",
            &format!("127.0.0.1:{}", self.port),
        ]);
        if self.refused.is_empty() {
            command.args(["-c", "aiosmtpd.handlers.Mailbox"]);
        } else {
            command
                .env(
                    "PYTHONPATH",
                    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support"),
                )
                .args(["-c", "refusing_mailbox.RefusingMailbox"]);
        }
        let child = command
            .arg(&self.maildir)
            .args(&self.refused)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "aiosmtpd did not start; install it with `python3 -m pip install aiosmtpd` (.ci/run does)"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message delivered so far, oldest first, as raw bytes.
    fn delivered(&self) -> Vec<Vec<u8>> {
        let mut files: Vec<(std::time::SystemTime, String, PathBuf)> = ["new", "cur"]
            .iter()
            .filter_map(|sub| std::fs::read_dir(self.maildir.join(sub)).ok())
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| {
                let modified = e.metadata().and_then(|m| m.modified()).expect("mtime");
                (
                    modified,
                    e.file_name().to_string_lossy().into_owned(),
                    e.path(),
                )
            })
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|(_, _, path)| std::fs::read(path).expect("read"))
            .collect()
    }
}

impl Drop for Smtp {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A delivered message, read with mail-parser.
#[derive(Debug, Clone)]
struct Mail {
    to: String,
    subject: String,
    message_id: String,
    in_reply_to: String,
    references: String,
    text: String,
    html: Option<String>,
    raw: String,
}

fn read(raw: &[u8]) -> Mail {
    let message = MessageParser::default().parse(raw).expect("a message");
    let header = |name: &str| {
        message
            .header_raw(name)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    Mail {
        to: message
            .to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_string(),
        subject: message.subject().unwrap_or_default().to_string(),
        message_id: message.message_id().unwrap_or_default().to_string(),
        in_reply_to: header("In-Reply-To"),
        references: header("References"),
        text: message
            .body_text(0)
            .map(|t| t.into_owned())
            .unwrap_or_default(),
        html: message.body_html(0).map(|t| t.into_owned()),
        raw: String::from_utf8_lossy(raw).into_owned(),
    }
}

struct Host {
    dir: tempfile::TempDir,
    smtp: Smtp,
    /// The clock every command of this host runs by (PBEM_NOW), once a test sets one;
    /// the machine's clock until then.
    clock: std::cell::Cell<Option<u64>>,
}

impl Host {
    fn new() -> Host {
        Host::refusing(&[])
    }

    /// A host whose SMTP server refuses mail to `refused` for good (550).
    fn refusing(refused: &[&str]) -> Host {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("games")).expect("games");
        // Boards, mail and reply codes repeat, for the snapshots.
        super::support::test_key(&dir.path().join("keyring"));
        let smtp = Smtp::refusing(&dir.path().join("delivered"), refused);
        Host {
            dir,
            smtp,
            clock: std::cell::Cell::new(None),
        }
    }

    fn games(&self) -> PathBuf {
        self.dir.path().join("games")
    }

    fn file(&self) -> PathBuf {
        self.games().join("game.json")
    }

    fn pbem(&self) -> Command {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("pbem"));
        command
            .env("PBEM_HOME", self.dir.path().join("keyring"))
            .env("PBEM_SMTP", self.smtp.url())
            .env("PBEM_FROM", "Referee <referee@pbem.example>")
            .env_remove("PBEM_NOW");
        if let Some(now) = self.clock.get() {
            command.env("PBEM_NOW", now.to_string());
        }
        command
    }

    /// Runs every later command at `now` (Unix seconds), the game's clock included: a
    /// test that needs days to pass sets the whole clock it uses.
    fn set_clock(&self, now: u64) {
        self.clock.set(Some(now));
    }

    fn run(&self, command: &mut Command) -> (bool, String) {
        let output = command.output().expect("runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.success(), text)
    }

    fn start_game(&self) {
        let (ok, out) = self.run(
            self.pbem()
                .args([
                    "new",
                    "right-of-way",
                    "--player",
                    "Ann <ann@example.org>",
                    "--player",
                    "Bob <bob@example.org>",
                ])
                .args(["--seed", SEED, "--mail", "--out"])
                .arg(self.file()),
        );
        assert!(ok, "{out}");
    }

    /// [`Host::start_game`] while the SMTP server is down: the game is made and all
    /// its mail waits in the outbox, so `pbem new --mail` exits 75.
    fn start_game_while_mail_is_down(&self) {
        let (ok, out) = self.run(
            self.pbem()
                .args(["new", "right-of-way"])
                .args(["--player", "Ann <ann@example.org>"])
                .args(["--player", "Bob <bob@example.org>"])
                .args(["--seed", SEED, "--mail", "--out"])
                .arg(self.file()),
        );
        assert!(!ok && out.contains("exit status 75"), "{out}");
        assert!(out.contains("outbox flush"), "{out}");
        assert!(self.file().exists(), "{out}");
    }

    /// Who is to move, and the first move `pbem legal` lists for them.
    fn first_move(&self) -> (String, String) {
        let player = self.view()["to_move"][0]
            .as_str()
            .expect("a player")
            .to_string();
        let text = self.legal(&player)[0].clone();
        (player, text)
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

    fn legal(&self, player: &str) -> Vec<String> {
        self.legal_entries(player)
            .iter()
            .map(|e| e["move"].as_str().expect("text").to_string())
            .collect()
    }

    /// `pbem legal --format json` for `player`.
    fn legal_entries(&self, player: &str) -> Vec<Value> {
        let output = self
            .pbem()
            .arg("legal")
            .arg(self.file())
            .args(["--player", player, "--format", "json"])
            .output()
            .expect("runs");
        let list: Value = serde_json::from_slice(&output.stdout).expect("json");
        list.as_array().expect("list").clone()
    }

    /// Feeds one raw message to `pbem inbox` on standard input; returns its report.
    fn inbox(&self, raw: &str) -> String {
        let (code, text) = self.inbox_with(raw, &[]);
        assert_eq!(code, Some(0), "{text}");
        text
    }

    /// The game's subject tag, `[pbem ID]`.
    fn tag(&self) -> String {
        format!("[pbem {}]", self.view()["id"].as_str().expect("id"))
    }

    /// The index of the game's archive of received messages, one line each.
    fn archive_index(&self) -> String {
        std::fs::read_to_string(self.games().join("game.json.mail/index.jsonl")).expect("archive")
    }

    fn mails(&self) -> Vec<Mail> {
        self.smtp.delivered().iter().map(|raw| read(raw)).collect()
    }

    /// Every mail to the referee's own address, oldest first.
    fn to_referee(&self) -> Vec<Mail> {
        self.mails()
            .into_iter()
            .filter(|m| m.to == REFEREE.address)
            .collect()
    }

    /// How many mails told the referee of a message held back by a fault.
    fn held_notices(&self) -> usize {
        self.to_referee()
            .iter()
            .filter(|m| m.subject.contains("held back"))
            .count()
    }

    /// The newest turn notice to `address`.
    fn notice_for(&self, address: &str) -> Mail {
        self.mails()
            .into_iter()
            .rev()
            .find(|m| m.to == address && m.subject.contains("your move"))
            .expect("a turn notice")
    }
}

fn address(name: &str) -> String {
    format!("{}@example.org", name.to_ascii_lowercase())
}

use super::replies::{self, Notice};

const REFEREE: replies::Referee = replies::Referee {
    name: "Referee",
    address: "referee@pbem.example",
};

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

fn gmail_reply(notice: &Mail, from: &str, text: &str, id: &str) -> String {
    replies::gmail_reply(&REFEREE, &notice.notice(), from, text, id)
}

fn token_message(tag: &str, token: &str, from: &str, text: &str, id: &str) -> String {
    replies::token_message(&REFEREE, tag, token, from, text, id)
}

fn token_of(host: &Host, address: &str) -> String {
    let welcome = host
        .mails()
        .into_iter()
        .find(|m| m.to == address && m.subject.contains("Welcome"))
        .expect("a welcome mail");
    welcome
        .text
        .lines()
        .find_map(|l| l.trim().strip_prefix("pbem-token: ").map(str::to_string))
        .expect("a token line")
}

fn check_outgoing(mail: &Mail, tag: &str) {
    assert!(
        mail.subject.starts_with(tag),
        "stable subject tag: {}",
        mail.subject
    );
    // The subject's header line fits 78 columns, the reply code right after the tag.
    assert!(
        format!("Subject: {}", mail.subject).chars().count() <= 78,
        "too long: {}",
        mail.subject
    );
    if let Some(at) = mail.subject.find("(ref ") {
        assert_eq!(at, tag.len() + 1, "the reply code early: {}", mail.subject);
    }
    // Threaded from the player's welcome, a message they have; the welcome is the root.
    // The invitation (and what comes before the game starts) and mail to a stranger
    // (who has no welcome) begin no thread of the game.
    let before_the_game = mail.subject.contains("invited") || mail.subject.contains("You joined");
    if before_the_game || !mail.to.ends_with("@example.org") {
        assert!(
            !mail.references.contains(".welcome."),
            "{}",
            mail.references
        );
    } else if mail.subject.contains("Welcome") {
        assert!(
            mail.references.is_empty() && mail.in_reply_to.is_empty(),
            "the root: {}",
            mail.references
        );
    } else {
        let root = mail
            .references
            .split_whitespace()
            .next()
            .unwrap_or_default();
        let id = &tag[6..tag.len() - 1];
        assert!(
            root.starts_with(&format!("<pbem.{id}.1.")) && root.contains(".welcome."),
            "threaded from the welcome: {}",
            mail.references
        );
        assert!(!mail.in_reply_to.is_empty());
    }
    // A player runs no program: no mail to one names a pbem command.
    assert!(
        !mail.text.contains("`pbem "),
        "a command in {:?}: {}",
        mail.subject,
        mail.text
    );
    for line in mail.text.lines() {
        assert!(
            line.chars().count() <= 78,
            "too wide in {:?}: {line:?}",
            mail.subject
        );
    }
    assert!(
        mail.html.as_deref().is_some_and(|h| h.contains("<pre")),
        "the board in a fixed font"
    );
    assert!(
        mail.raw.lines().all(|l| l.len() <= 998),
        "RFC 5322 line length"
    );
}

impl Host {
    /// Feeds one raw message to `pbem inbox` with these extra environment variables;
    /// returns the exit status and what it printed.
    fn inbox_with(&self, raw: &str, env: &[(&str, &str)]) -> (Option<i32>, String) {
        let mut command = self.pbem();
        for (key, value) in env {
            command.env(key, value);
        }
        let output = super::support::inbox(command, &self.games(), raw);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.code(), text)
    }

    fn maildir(&self) -> PathBuf {
        let maildir = self.dir.path().join("incoming");
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(maildir.join(sub)).expect("maildir");
        }
        maildir
    }

    fn inbox_maildir(&self) -> Command {
        let mut command = self.pbem();
        command
            .args(["inbox", "--games"])
            .arg(self.games())
            .arg("--maildir")
            .arg(self.maildir())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    }
}

impl Host {
    /// `pbem new --join --mail` of a Right of Way game for Ann and Bob (both with an
    /// address), with `extra` arguments: the invitation mailed to each.
    fn invite(&self, extra: &[&str]) {
        let (ok, out) = self.run(
            self.pbem()
                .args(["new", "right-of-way"])
                .args(["--player", "Ann <ann@example.org>"])
                .args(["--player", "Bob <bob@example.org>"])
                .args(extra)
                .args(["--seed", SEED, "--join", "--mail", "--out"])
                .arg(self.file()),
        );
        assert!(ok, "{out}");
    }

    /// The invitation mailed to `to`.
    fn invitation_to(&self, to: &str) -> Mail {
        self.mails()
            .into_iter()
            .find(|m| m.to == to && m.subject.contains("invited"))
            .expect("an invitation")
    }
}

/// The start of a game the players joined shows every player the words genesis
/// records for everyone, the referee's own and the invitation's hash, so each can see
/// that their words are the ones they sent: a referee who put other words in genesis
/// would have to show them. One player joins by reply, the last by `pbem join --mail`.
#[test]
fn every_welcome_of_a_joined_game_shows_the_words_as_recorded() {
    let host = Host::new();
    host.invite(&["--entropy", "referee dice 7"]);
    let invitation_to = |to: &str| host.invitation_to(to);
    let ann = invitation_to("ann@example.org");
    let out = host.inbox(&gmail_reply(
        &ann,
        "ann@example.org",
        "Blue  heron 42",
        "<join-ann@example.org>",
    ));
    assert!(out.contains("joined"), "{out}");
    let (ok, out) = host.run(host.pbem().arg("join").arg(host.file()).args([
        "--player",
        "Bob",
        "--entropy",
        "seven \t  swans",
        "--mail",
    ]));
    assert!(ok && out.contains("has begun"), "{out}");

    let game: Value =
        serde_json::from_str(&std::fs::read_to_string(host.file()).expect("the game"))
            .expect("json");
    let genesis = &game["genesis"];
    assert_eq!(
        genesis["entropy"],
        serde_json::json!(["referee dice 7", "Ann: Blue heron 42", "Bob: seven swans"])
    );
    let hash = genesis["invitation"].as_str().expect("an invitation hash");
    let welcomes: Vec<Mail> = host
        .mails()
        .into_iter()
        .filter(|m| m.subject.contains("Welcome"))
        .collect();
    assert_eq!(welcomes.len(), 2);
    let tag = host.tag();
    for welcome in &welcomes {
        check_outgoing(welcome, &tag);
        let name = if welcome.to == "ann@example.org" {
            "Ann"
        } else {
            "Bob"
        };
        for part in [
            "THE WORDS IN THE DICE".to_string(),
            "  - Ann: Blue heron 42\n".to_string(),
            "  - Bob: seven swans\n".to_string(),
            "  - referee dice 7\n".to_string(),
            format!("the words shown for {name} must be exactly those you sent"),
            format!("    {hash}\n"),
        ] {
            assert!(welcome.text.contains(&part), "{part}: {}", welcome.text);
        }
        // The same hash as the player's invitation showed.
        assert!(invitation_to(&welcome.to).text.contains(hash));
    }
    let ann_welcome = welcomes
        .iter()
        .find(|m| m.to == "ann@example.org")
        .expect("Ann's welcome");
    insta::assert_snapshot!("welcome_of_a_joined_game", snapshot_text(ann_welcome));

    // The JSON view gives tools the same words.
    let view = host.view();
    assert_eq!(
        view["joined"],
        serde_json::json!([
            {"name": "Ann", "words": "Blue heron 42"},
            {"name": "Bob", "words": "seven swans"},
        ])
    );
    assert_eq!(view["invitation"], hash);
}

/// A mail as a snapshot keeps it: subject and text, with every player's secret (the
/// token) and reply code replaced, so no snapshot holds a capability.
fn snapshot_text(mail: &Mail) -> String {
    snapshot_of(&mail.subject, &mail.text)
}

/// A mail as its snapshot holds it: subject and text, the player's token and reply
/// code (capabilities, though of a test key) replaced by placeholders.
fn snapshot_of(subject: &str, body: &str) -> String {
    let mut text = format!("Subject: {subject}\n\n{body}");
    for line in body.lines() {
        if let Some(token) = line.trim().strip_prefix("pbem-token: ") {
            text = text.replace(token, "[token]");
        }
    }
    if let Some(code) = subject
        .split("(ref ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
    {
        text = text.replace(code, "[code]");
    }
    without_times(&text)
}

/// `text` with each time a mail names (`2026-11-27 23:07 UTC`: when a held move was
/// made) as `[when]`: the games these tests play run on the clock.
fn without_times(text: &str) -> String {
    const SHAPE: &[u8] = b"0000-00-00 00:00 UTC";
    let bytes = text.as_bytes();
    let fits = |at: usize| {
        bytes.len() >= at + SHAPE.len()
            && SHAPE.iter().zip(&bytes[at..]).all(|(shape, byte)| {
                if *shape == b'0' {
                    byte.is_ascii_digit()
                } else {
                    shape == byte
                }
            })
    };
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < bytes.len() {
        if fits(at) {
            out.push_str("[when]");
            at += SHAPE.len();
        } else {
            let next = text[at..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[at..at + next]);
            at += next;
        }
    }
    out
}

impl Host {
    /// The mail delivered since `before` mails had been.
    fn mails_since(&self, before: usize) -> Vec<Mail> {
        self.mails().into_iter().skip(before).collect()
    }

    fn file_bytes(&self) -> Vec<u8> {
        std::fs::read(self.file()).expect("game file")
    }
}

#[test]
fn players_preview_list_moves_correct_refusals_and_pass_notes_by_reply() {
    let host = Host::new();
    host.start_game();
    let welcomes: Vec<Mail> = host
        .mails()
        .into_iter()
        .filter(|m| m.subject.contains("Welcome"))
        .collect();
    assert_eq!(welcomes.len(), 2);
    for welcome in &welcomes {
        // Every player's welcome: the rules in brief, the move language, an example,
        // the tag and token for a new message, and every reply word.
        for part in [
            "THE GAME IN BRIEF",
            "WRITING MOVES",
            "pbem-token: ",
            "[pbem row-",
            "preview MOVE",
            "undo",
            "away until DATE",
            "note: TEXT",
        ] {
            assert!(welcome.text.contains(part), "{part}: {}", welcome.text);
        }
        let example = ["could be:\n\n    ", "could look like:\n\n    "]
            .iter()
            .find_map(|marker| welcome.text.split(marker).nth(1))
            .and_then(|rest| rest.lines().next())
            .unwrap_or_default();
        assert!(example.starts_with("place "), "{}", welcome.text);
        // Nobody joined with words: nothing to check, so no such section.
        assert!(
            !welcome.text.contains("THE WORDS IN THE DICE")
                && !welcome.text.contains("must be exactly those you sent"),
            "{}",
            welcome.text
        );
    }
    let view = host.view();
    assert!(view.get("joined").is_none() && view.get("invitation").is_none());
    let (player, _) = host.first_move();
    let other = if player == "Ann" { "Bob" } else { "Ann" };
    let from = address(&player);
    let second = welcomes
        .iter()
        .find(|m| m.to == address(other))
        .expect("the second player's welcome");
    insta::assert_snapshot!("welcome_of_the_second_player", snapshot_text(second));

    // `moves`: a short list, by reply to the turn notice; nothing changes.
    let notice = host.notice_for(&from);
    let before = host.file_bytes();
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(&notice, &from, "moves", "moves-1"));
    assert!(report.starts_with("moves"), "{report}");
    let answer = host.mails_since(sent).pop().expect("an answer");
    assert!(answer.subject.contains("Your moves"), "{}", answer.subject);
    assert!(answer.subject.contains("(ref "), "{}", answer.subject);
    assert!(answer.text.lines().count() < 60, "{}", answer.text);
    assert_eq!(host.file_bytes(), before);
    insta::assert_snapshot!("moves", snapshot_text(&answer));

    // `moves CELL`: only the moves at that cell.
    let legal = host.legal(&player);
    let cell = legal[0]
        .split(" at ")
        .nth(1)
        .and_then(|rest| rest.split([';', ' ']).next())
        .expect("a cell")
        .to_string();
    let sent = host.mails().len();
    host.inbox(&gmail_reply(
        &notice,
        &from,
        &format!("moves {cell}"),
        "moves-2",
    ));
    let answer = host.mails_since(sent).pop().expect("an answer");
    assert!(
        answer.subject.contains(&format!("at {cell}")),
        "{}",
        answer.subject
    );
    assert!(answer.text.contains(&cell), "{}", answer.text);

    // `preview MOVE`: what it would do, nothing recorded, no draw made. A move that
    // draws nothing, so the preview can show the board after it.
    let chosen = crate::support::quiet_move(&host.legal_entries(&player));
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(
        &notice,
        &from,
        &format!("preview {chosen}"),
        "preview-1",
    ));
    assert!(report.starts_with("previewed"), "{report}");
    let answer = host.mails_since(sent).pop().expect("an answer");
    assert!(
        answer.text.contains("Nothing was recorded"),
        "{}",
        answer.text
    );
    assert!(
        answer.text.contains(&format!("    {chosen}")),
        "{}",
        answer.text
    );
    assert_eq!(host.file_bytes(), before, "a preview changes nothing");
    // The board is the one after the move: the row of the cell it places on holds the
    // new highway, which the notice's row (the board before) does not.
    let row = chosen
        .split(" at ")
        .nth(1)
        .and_then(|cell| cell.get(..1))
        .map(|letter| format!("{letter}  "))
        .expect("a placement's row");
    let row_a = |text: &str| {
        text.lines()
            .find(|line| line.starts_with(&row))
            .map(str::to_string)
            .expect("the board's row of the placement")
    };
    assert!(
        answer
            .text
            .contains("The board as it would stand after the move:"),
        "{}",
        answer.text
    );
    assert_ne!(row_a(&answer.text), row_a(&notice.text), "{}", answer.text);
    insta::assert_snapshot!("preview", snapshot_text(&answer));

    // A refused move is quoted, and the refusal carries a reply code: answering it
    // with a better move (and a note for the table) is the turn.
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(&notice, &from, "place E,W at Z99", "bad-1"));
    assert!(report.starts_with("refused"), "{report}");
    let refusal = host.mails_since(sent).pop().expect("a refusal");
    assert!(refusal.subject.contains("(ref "), "{}", refusal.subject);
    assert!(
        refusal.text.contains("You sent:\n\n    place E,W at Z99"),
        "{}",
        refusal.text
    );
    assert!(!refusal.text.contains("pbem legal"), "{}", refusal.text);
    insta::assert_snapshot!("refusal", snapshot_text(&refusal));
    assert_eq!(host.file_bytes(), before);
    // The rules' own words point to `pbem legal`, which a player cannot run: the
    // mail says what to reply instead.
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(
        &notice,
        &from,
        &format!("place E,NE,NW,W at {cell}"),
        "bad-2",
    ));
    assert!(report.starts_with("refused"), "{report}");
    let other_refusal = host.mails_since(sent).pop().expect("a refusal");
    let text = squeezed(&other_refusal.text);
    assert!(text.contains("reply `moves` for the list"), "{text}");
    assert!(!text.contains("`pbem "), "{text}");
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(
        &refusal,
        &from,
        &format!("{chosen}\nnote: good luck, {other}!"),
        "fixed-1",
    ));
    assert!(report.starts_with("applied"), "{report}");
    assert!(
        !host.archive_index().contains("\"forged\""),
        "{}",
        host.archive_index()
    );
    let after = host.mails_since(sent);
    let to_other = after
        .iter()
        .find(|m| m.to == address(other))
        .expect("the other player's notice");
    assert!(
        to_other.text.contains(&format!(
            "Notes from the table:\n  {player}: good luck, {other}!"
        )),
        "{}",
        to_other.text
    );
    // The mover's confirmation waits for their next turn notice.
    assert!(after.iter().all(|m| m.to != from), "{after:?}");
    // The note went with that notice, and only once: not back to its writer with
    // their confirmation either.
    let (player2, text2) = host.first_move();
    let notice2 = host.notice_for(&address(&player2));
    let sent = host.mails().len();
    host.inbox(&gmail_reply(&notice2, &address(&player2), &text2, "move-2"));
    assert!(host
        .mails_since(sent)
        .iter()
        .all(|m| !m.text.contains("good luck")));
}

#[test]
fn an_absent_player_is_not_reminded_and_their_deadline_waits() {
    let host = Host::new();
    let start = 1_795_000_000_u64; // 2026-11-18, for the game and every command
    host.set_clock(start);
    host.start_game();
    let (player, _) = host.first_move();
    let from = address(&player);
    let notice = host.notice_for(&from);
    let at = |days: u64| (start + days * 86_400).to_string();
    let today = start / 86_400;
    let back = pbem_date(today + 10);
    let sent = host.mails().len();
    let (code, report) = host.inbox_with(
        &gmail_reply(&notice, &from, &format!("away until {back}"), "away-1"),
        &[("PBEM_NOW", &at(0))],
    );
    assert_eq!(code, Some(0), "{report}");
    assert!(report.starts_with("away"), "{report}");
    let told = host.mails_since(sent);
    assert_eq!(told.len(), 2, "both players are told");
    let other = told
        .iter()
        .find(|m| m.to != from)
        .expect("the other's mail");
    insta::assert_snapshot!("away", snapshot_text(other));
    for mail in &told {
        assert!(
            mail.subject
                .contains(&format!("{player} is away until {back}")),
            "{}",
            mail.subject
        );
    }
    let remind = |days: u64, then: &[&str]| {
        let (ok, out) = host.run(
            host.pbem()
                .env("PBEM_NOW", at(days))
                .args(["remind", "--games"])
                .arg(host.games())
                .args(["--after", "1d"])
                .args(then),
        );
        assert!(ok, "{out}");
        out
    };
    let before = host.file_bytes();
    // Away: neither a reminder nor the deadline, however long the wait.
    let out = remind(5, &["--limit", "3d", "--then", "forfeit"]);
    assert!(out.is_empty(), "nobody to remind: {out}");
    assert_eq!(host.file_bytes(), before);
    // Back after the date: reminded, and the deadline counts from the return.
    let out = remind(12, &["--limit", "3d", "--then", "forfeit"]);
    assert!(out.contains(&format!("reminded {player}")), "{out}");
    assert_eq!(
        host.file_bytes(),
        before,
        "the clock restarted at the return"
    );
}

/// The text of the first `text/html` attachment of a raw message.
fn html_attachment(raw: &[u8]) -> Option<String> {
    let message = mail_parser::MessageParser::default().parse(raw)?;
    let page = message
        .attachments()
        .find(|part| part.is_content_type("text", "html"))
        .map(|part| String::from_utf8_lossy(part.contents()).into_owned());
    page
}

/// How many records of the game at `file` each player made (`pbem log`'s third column).
fn records_by_player(file: &Path, home: &Path) -> std::collections::BTreeMap<String, usize> {
    let output = Command::new(assert_cmd::cargo::cargo_bin("pbem"))
        .env("PBEM_HOME", home)
        .arg("log")
        .arg(file)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let mut made = std::collections::BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        if let ("turn", Some(player)) = (
            line.split_whitespace().next().unwrap_or_default(),
            line.split_whitespace().nth(2),
        ) {
            *made.entry(player.to_string()).or_default() += 1;
        }
    }
    made
}

/// `YYYY-MM-DD` of a day number.
fn pbem_date(day: u64) -> String {
    pbem::mail::clock::date_text(day)
}

/// Text with its white space squeezed, so a line wrapped in a mail still matches.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The bytes of mail each player got over the game each test below plays, measured by
/// this test at the commit before mail was held for one's own turn (dff4ec7), when
/// every move sent every player a message: the budget is at most half of it.
const BYTES_BEFORE: &[(&str, &str, usize)] = &[
    ("right-of-way", "ann@example.org", 4_288_247),
    ("right-of-way", "bob@example.org", 4_336_248),
    ("desert-kingdom", "ann@example.org", 2_469_043),
    ("desert-kingdom", "bob@example.org", 2_478_834),
    ("triangle-auction", "ann@example.org", 6_701_287),
    ("triangle-auction", "bob@example.org", 6_621_642),
    ("triangle-auction", "cat@example.org", 6_692_232),
];

/// A whole game of `game` by mail, played once and checked two ways. Every turn's
/// report reaches exactly the players who may see it, by their next mail: each mail
/// carries every line of every turn's report since the reader's last mail that the
/// reader may read, and no line only another may read (the first turn notice and the
/// game-over mail as a player reads them, snapshotted). And the mail per player is
/// measured: one message per turn of their own (their turn notices, the welcome and
/// the end; the rest is held for the next), no message larger than a board, some words
/// and the board's picture, and at most half the bytes of mail each player got when
/// every move sent everyone a message ([`BYTES_BEFORE`]).
fn by_mail_reports_reach_whom_they_may_and_the_mail_is_measured(game: &str, names: &[&str]) {
    let seed = SEED;
    let mut reports = 0;
    let mut private = 0;
    let (mut first_notice, mut game_over, mut first_page) = (None, None, None);
    // The last turn whose report each reader's mail has carried.
    let mut told = std::collections::BTreeMap::<String, u64>::new();
    let mut last_turn = 0;
    // Each player's records (their moves, those made for them included), by name.
    let mut own_records = std::collections::BTreeMap::<String, usize>::new();
    let (moves, figures) = super::support::play_by_mail_measured(
        game,
        names,
        seed,
        11,
        None,
        |sent| {
            if sent.subject.contains("Reminder") {
                return;
            }
            if sent.subject.contains("your move") && first_notice.is_none() {
                first_notice = Some(snapshot_of(sent.subject, sent.body));
            }
            if sent.subject.contains("The game is over") && sent.to == address(names[0]) {
                game_over = Some(snapshot_of(sent.subject, sent.body));
            }
            let reader = names
                .iter()
                .find(|name| address(name) == sent.to)
                .expect("a player's mail");
            if sent.subject.contains("The game is over") {
                // Each player's end carries their own replay page, and the page
                // carries the game file as it stands, which it verifies.
                let page = html_attachment(sent.raw).expect("the replay page attached");
                let data = super::export::unpacked(&page, "game");
                assert!(
                    data.contains(&format!("{reader}'s view")),
                    "{game}: {reader}"
                );
                let file = super::export::unpacked(&page, "game-file");
                assert_eq!(file.as_bytes(), std::fs::read(sent.file).expect("the file"));
                if *reader == names[0] {
                    first_page = Some(page);
                }
            }
            // A picture goes where it shows the reader something new: in these games
            // without moves face down, after a move of another's, and at the end;
            // not after the reader's own (a second step of their turn).
            let over = sent.subject.contains("The game is over");
            last_turn = last_turn.max(sent.turn);
            if over && own_records.is_empty() {
                own_records = records_by_player(sent.file, sent.home);
            }
            if game != "triangle-auction" && (over || sent.subject.contains("your move")) {
                assert_eq!(
                    sent.body.contains("board.png"),
                    over || *reader != sent.mover,
                    "{game}: {reader} after {}'s move: {}",
                    sent.mover,
                    sent.subject
                );
            }
            let body = squeezed(sent.body);
            let since = told.insert(reader.to_string(), sent.turn).unwrap_or(0);
            for turn in since + 1..=sent.turn {
                let seen = sent.report_as(reader, turn);
                for line in &seen {
                    assert!(
                        body.contains(&squeezed(line)),
                        "{game} turn {turn}: {reader} may read {line:?}, missing from their mail after turn {}:\n{}",
                        sent.turn,
                        sent.body
                    );
                    reports += 1;
                }
                for line in sent.report_as("referee", turn) {
                    if !seen.contains(&line) {
                        private += 1;
                        assert!(
                            !body.contains(&squeezed(&line)),
                            "{game} turn {turn}: {reader} may not read {line:?}:\n{}",
                            sent.body
                        );
                    }
                }
            }
        },
    );
    assert!(reports > 0, "{game}: no report reached anyone");
    for name in names {
        assert_eq!(
            told.get(*name).copied(),
            Some(last_turn),
            "{game}: {name}'s mail carried the reports up to the last turn"
        );
    }
    // The mails of a turn and of the end, as a player reads them.
    insta::assert_snapshot!(
        format!("{game}_first_turn_notice"),
        first_notice.expect("a turn notice")
    );
    insta::assert_snapshot!(
        format!("{game}_game_over"),
        game_over.expect("the game-over mail")
    );
    if game == "desert-kingdom" {
        assert!(
            private > 0,
            "{game}: a hidden draw is reported to its drawer only"
        );
    }
    // The first player opens their end mail's page in a browser, offline: the game is
    // verified there.
    let page = first_page.expect("the end's replay page");
    if super::verify_page::browser("the end mail's replay page") {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("game.html");
        std::fs::write(&path, &page).expect("write");
        let dom = super::verify_page::dump(&path, dir.path());
        let (tag, text) = super::verify_page::element(&dom, "verification");
        assert!(
            tag.contains("data-state=\"verified\""),
            "{game}: {tag} {text}"
        );
        assert!(
            text.starts_with("Verified in this browser"),
            "{game}: {text}"
        );
    }

    assert_eq!(figures.len(), names.len(), "{figures:?}");
    for (to, mail) in &figures {
        let before = BYTES_BEFORE
            .iter()
            .find(|(g, t, _)| *g == game && t == to)
            .map(|(_, _, bytes)| *bytes)
            .expect("measured before");
        println!(
            "{game}, {moves} moves by mail: {to} got {} messages, {} bytes ({} KiB, {} bytes each); {} turn notices, {} pictures; {:.1}% of the {} bytes before",
            mail.count,
            mail.bytes,
            mail.bytes / 1024,
            mail.bytes / mail.count,
            mail.turn_notices,
            mail.pictures,
            100.0 * mail.bytes as f64 / before as f64,
            before,
        );
        // One message per turn of one's own at most, besides the welcome and the end:
        // their turn notices, and news of a move the rules made for them.
        let name = names
            .iter()
            .find(|name| address(name) == *to)
            .expect("a player");
        let own = own_records.get(*name).copied().unwrap_or(0);
        assert!(mail.count <= own + 2, "{to}: {mail:?}, {own} records");
        assert!(mail.count >= mail.turn_notices + 2, "{to}: {mail:?}");
        assert!(2 * mail.bytes <= before, "{to}: {mail:?}, before {before}");
        // A message is a board and some words, twice (text and HTML), and the
        // board's picture (a PNG of 256 colours, base64 in the mail): never more.
        assert!(mail.bytes / mail.count < 96 * 1024, "{mail:?}");
    }
}

#[test]
fn right_of_way_by_mail_reaches_whom_it_may_and_is_measured() {
    by_mail_reports_reach_whom_they_may_and_the_mail_is_measured("right-of-way", &["Ann", "Bob"]);
}

#[test]
fn triangle_auction_by_mail_reaches_whom_it_may_and_is_measured() {
    by_mail_reports_reach_whom_they_may_and_the_mail_is_measured(
        "triangle-auction",
        &["Ann", "Bob", "Cat"],
    );
}

#[test]
fn desert_kingdom_by_mail_reaches_whom_it_may_and_is_measured() {
    by_mail_reports_reach_whom_they_may_and_the_mail_is_measured("desert-kingdom", &["Ann", "Bob"]);
}

impl Host {
    fn quiet_move(&self, player: &str) -> String {
        super::support::quiet_move(&self.legal_entries(player))
    }
}

#[test]
fn a_move_is_taken_back_by_reply_once_the_other_player_agrees() {
    let host = Host::new();
    host.start_game();
    let (first, _) = host.first_move();
    let second = if first == "Ann" { "Bob" } else { "Ann" };
    let (first_address, second_address) = (address(&first), address(second));
    // Nothing to take back yet: the first notice does not offer it.
    assert!(
        !host.notice_for(&first_address).text.contains("`undo`"),
        "{}",
        host.notice_for(&first_address).text
    );
    let quiet = host.quiet_move(&first);
    let report = host.inbox(&gmail_reply(
        &host.notice_for(&first_address),
        &first_address,
        &quiet,
        "undo-m1",
    ));
    assert!(report.starts_with("applied"), "{report}");
    let quiet2 = host.quiet_move(second);
    let report = host.inbox(&gmail_reply(
        &host.notice_for(&second_address),
        &second_address,
        &quiet2,
        "undo-m2",
    ));
    assert!(report.starts_with("applied"), "{report}");
    // Now the first player has a move standing that drew nothing: offered.
    assert!(
        squeezed(&host.notice_for(&first_address).text)
            .contains("`undo` asks to take back your last move"),
        "{}",
        host.notice_for(&first_address).text
    );

    // Nobody asked: `agree` is refused, with a reply code, and nothing changes.
    let before = host.file_bytes();
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(
        &host.notice_for(&first_address),
        &first_address,
        "agree",
        "undo-a0",
    ));
    assert!(report.starts_with("refused"), "{report}");
    let refusal = host.mails_since(sent).pop().expect("a refusal");
    assert!(
        refusal.text.contains("nobody has asked"),
        "{}",
        refusal.text
    );
    assert!(refusal.subject.contains("(ref "), "{}", refusal.subject);
    assert_eq!(host.file_bytes(), before);

    // The first player asks; the other is asked to agree, by a mail they can answer.
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(
        &host.notice_for(&first_address),
        &first_address,
        "undo",
        "undo-u1",
    ));
    assert!(report.starts_with("undo"), "{report}");
    let asked = host.mails_since(sent);
    assert_eq!(asked.len(), 2, "one mail to each player");
    let to_second = asked
        .iter()
        .find(|m| m.to == second_address)
        .expect("the request to the other player");
    assert!(
        to_second
            .subject
            .contains(&format!("{first} asks to take back turn 1")),
        "{}",
        to_second.subject
    );
    assert!(to_second.text.contains("reply to this mail with `agree`"));
    assert!(to_second
        .text
        .contains(&format!("turn 1, {first}: {quiet}")));
    assert!(to_second
        .text
        .contains(&format!("turn 2, {second}: {quiet2}")));
    insta::assert_snapshot!("undo_asked", snapshot_text(to_second));
    let to_first = asked.iter().find(|m| m.to == first_address).expect("mail");
    assert!(to_first
        .text
        .contains(&format!("Waiting for {second} to agree")));

    // The other agrees by replying to that mail: both moves are taken back, both
    // players are told, and the first gets their turn notice again.
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(to_second, &second_address, "agree", "undo-a1"));
    assert!(report.starts_with("undo"), "{report}");
    let done = host.mails_since(sent);
    assert!(
        done.iter()
            .filter(|m| m.subject.contains("Turn 1 was taken back"))
            .count()
            == 2,
        "{:?}",
        done.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    assert!(
        done.iter()
            .any(|m| m.to == first_address && m.subject.contains("your move")),
        "{:?}",
        done.iter().map(|m| (&m.to, &m.subject)).collect::<Vec<_>>()
    );
    let view = host.view();
    assert_eq!(view["to_move"][0], first.as_str());
    assert_eq!(
        view["turn"], 5,
        "two moves, the request, the answer, the undo"
    );
    // Turns do not jump: with both moves taken back the game is at turn 1 again
    // (the file's records go on counting; players count the moves standing).
    let again = done
        .iter()
        .find(|m| m.to == first_address && m.subject.contains("your move"))
        .expect("the first player's notice");
    assert!(
        again.subject.contains("Turn 1: your move"),
        "{}",
        again.subject
    );
    // The first player's notice of turn 3 is void, and their undo mail says so; the
    // other player had no notice to void.
    let void = |to: &str| {
        done.iter()
            .find(|m| m.to == to && m.subject.contains("was taken back"))
            .map(|m| squeezed(&m.text))
            .expect("the undo mail")
    };
    assert!(
        void(&first_address).contains("your turn notice of turn 3 is void"),
        "{}",
        void(&first_address)
    );
    assert!(!void(&second_address).contains("is void"));

    // The first player's move by reply to that notice is taken, not "already moved".
    let sent = host.mails().len();
    let report = host.inbox(&gmail_reply(
        &host.notice_for(&first_address),
        &first_address,
        &quiet,
        "undo-m3",
    ));
    assert!(report.starts_with("applied"), "{report}");
    let next = host
        .mails_since(sent)
        .into_iter()
        .find(|m| m.to == second_address && m.subject.contains("your move"))
        .expect("the other player's notice");
    assert!(
        next.subject.contains("Turn 2: your move"),
        "{}",
        next.subject
    );
    // One numbering everywhere the player reads: the board under it counts the moves
    // standing too, not the file's records (six by now).
    assert!(next.text.contains("After turn 1: "), "{}", next.text);
    assert!(!next.text.contains("turn 6"), "{}", next.text);
    // The confirmation of the other's move, held for their next mail, went with the
    // move when it was taken back: never confirmed later.
    assert!(!next.text.contains("your move (applied)"), "{}", next.text);
    assert!(!next.text.contains("Since your last mail"), "{}", next.text);
    let (ok, out) = host.run(host.pbem().args(["audit", "--public"]).arg(host.file()));
    assert!(ok, "{out}");
}

/// Writes a message into the Maildir's `new/` with the given modification time (the
/// time a delivery agent finished writing it).
fn deliver_at(maildir: &Path, name: &str, raw: &str, seconds: u64) {
    let path = maildir.join("new").join(name);
    std::fs::write(&path, raw).expect("write");
    let file = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    file.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(seconds))
        .expect("mtime");
}

impl Host {
    /// A game of Dan, whose address the server refuses for good, and Ann, started while
    /// the server was down: its welcome to Dan waits at the head of the outbox, before
    /// Ann's mail.
    fn start_game_with_a_dead_address(&mut self) {
        self.smtp.stop();
        let (ok, out) = self.run(
            self.pbem()
                .args(["new", "right-of-way"])
                .args(["--player", "Dan <dead@example.org>"])
                .args(["--player", "Ann <ann@example.org>"])
                .args(["--seed", SEED, "--mail", "--out"])
                .arg(self.file()),
        );
        // Made, with all its mail waiting: not done, so exit 75.
        assert!(!ok && out.contains("exit status 75"), "{out}");
        assert!(self.file().exists(), "{out}");
        self.smtp.resume();
    }

    /// `pbem outbox list FILE --format json`.
    fn outbox_list(&self) -> Vec<Value> {
        let output = self
            .pbem()
            .args(["outbox", "list"])
            .arg(self.file())
            .args(["--format", "json"])
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let list: Value = serde_json::from_slice(&output.stdout).expect("json");
        list.as_array().expect("a list").clone()
    }

    /// Runs a command; returns whether it succeeded, its standard output and error.
    fn run_apart(&self, command: &mut Command) -> (bool, String, String) {
        let output = command.output().expect("runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// Every file of the game's outbox with its bytes.
    fn outbox_files(&self) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> =
            std::fs::read_dir(self.games().join("game.json.outbox"))
                .expect("outbox")
                .map(|e| {
                    let e = e.expect("entry");
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).expect("read"),
                    )
                })
                .collect();
        files.sort();
        files
    }
}

impl Host {
    /// A right-of-way game by mail between Ann and a bot, Robo (`--player "Robo
    /// <bot:search>"`), with the tests' seed and key. With this seed Robo moves first,
    /// as soon as the game is made.
    fn start_game_with_a_bot(&self) {
        let (ok, out) = self.run(
            self.pbem()
                .args(["new", "right-of-way"])
                .args(["--player", "Ann <ann@example.org>"])
                .args(["--player", "Robo <bot:search>"])
                .args(["--seed", SEED, "--mail", "--out"])
                .arg(self.file()),
        );
        assert!(ok, "{out}");
    }

    /// The game file as JSON.
    fn file_json(&self) -> Value {
        serde_json::from_slice(&self.file_bytes()).expect("json")
    }

    /// Ann's first legal move, sent by mail; the referee then plays Robo's. The move.
    fn ann_moves_by_mail(&self) -> String {
        assert_eq!(self.view()["to_move"], serde_json::json!(["Ann"]));
        let text = self.legal("Ann")[0].clone();
        let token = token_of(self, "ann@example.org");
        let raw = token_message(&self.tag(), &token, "ann@example.org", &text, "ann-1");
        let report = self.inbox(&raw);
        assert!(report.starts_with("applied"), "{report}");
        // The run says what the referee played unasked after it.
        assert!(
            report.contains("game.json: Robo (a built-in player) moved: turn 2: "),
            "{report}"
        );
        text
    }
}
