//! The mail loop end to end: a real SMTP server on loopback (aiosmtpd, which .ci/run
//! installs), real processes, replies shaped like real mail clients' replies.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mail_parser::{MessageParser, MimeHeaders};
use serde_json::Value;

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
        Host { dir, smtp }
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
        command
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

fn outlook_reply(notice: &Mail, from: &str, text: &str, id: &str) -> String {
    replies::outlook_reply(&REFEREE, &notice.notice(), from, text, id)
}

fn apple_reply(notice: &Mail, from: &str, text: &str, id: &str) -> String {
    replies::apple_reply(&REFEREE, &notice.notice(), from, text, id)
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

#[test]
fn a_whole_game_by_mail_through_real_smtp() {
    let host = Host::new();
    host.start_game();
    let tag = host.tag();
    let mut picker = pbem::engine::DrawStream::for_testing(7);
    let mut turn = 0;
    loop {
        let view = host.view();
        if view["over"] == true {
            break;
        }
        let player = view["to_move"][0].as_str().expect("a player").to_string();
        let from = address(&player);
        let legal = host.legal(&player);
        let text = legal[picker.index(legal.len() as u32) as usize].clone();
        let notice = host.notice_for(&from);
        assert!(
            notice.subject.contains(&format!("Turn {}", turn + 1)),
            "{}",
            notice.subject
        );
        let id = format!("reply-{turn}");
        let raw = match turn % 4 {
            0 => gmail_reply(&notice, &from, &text, &id),
            1 => outlook_reply(&notice, &from, &text, &id),
            2 => apple_reply(&notice, &from, &text, &id),
            _ => token_message(&tag, &token_of(&host, &from), &from, &text, &id),
        };
        let report = host.inbox(&raw);
        assert!(
            report.starts_with("applied"),
            "turn {turn} ({text:?}): {report}"
        );
        turn += 1;
        assert_eq!(host.view()["turn"], turn);
        assert!(turn < 400, "the game ends");
    }
    let mails = host.mails();
    for mail in &mails {
        check_outgoing(mail, &tag);
        // The root is the welcome this very player got.
        let welcome = mails
            .iter()
            .find(|m| m.to == mail.to && m.subject.contains("Welcome"))
            .expect("a welcome");
        if mail.message_id != welcome.message_id {
            assert!(
                mail.references
                    .starts_with(&format!("<{}>", welcome.message_id)),
                "{} / {}",
                mail.references,
                welcome.message_id
            );
        }
    }
    // Each mover's confirmation answers their own reply.
    for done in 0..turn {
        let reply = format!("<reply-{done}@");
        assert!(
            mails
                .iter()
                .any(|m| m.in_reply_to.starts_with(&reply) && m.references.contains(&reply)),
            "no mail answers reply {done}"
        );
    }
    // The end: both players get the final scores and the revealed seed.
    for name in ["ann", "bob"] {
        let over = mails
            .iter()
            .find(|m| {
                m.to == format!("{name}@example.org") && m.subject.contains("The game is over")
            })
            .expect("a game-over mail");
        assert!(
            over.text.contains(SEED),
            "the seed is revealed in the game-over mail"
        );
    }
    let (ok, report) = host.run(host.pbem().args(["audit", "--public"]).arg(host.file()));
    assert!(ok, "{report}");
    // Every message received is archived with its outcome.
    let index = host.archive_index();
    assert_eq!(
        index.lines().filter(|l| l.contains("\"applied\"")).count(),
        turn
    );
}

#[test]
fn forged_stale_and_duplicate_messages_change_nothing_and_are_answered() {
    let host = Host::new();
    host.start_game();
    let tag = host.tag();
    let first = host.view()["to_move"][0]
        .as_str()
        .expect("player")
        .to_string();
    let second = if first == "Ann" { "Bob" } else { "Ann" };
    let notice = host.notice_for(&address(&first));
    let text = host.legal(&first)[0].clone();
    let before = std::fs::read(host.file()).expect("file");

    // No capability, the player's address: refused, and the player told.
    let plain = format!(
        "From: {}\r\nTo: referee@pbem.example\r\nSubject: {tag} move\r\nMessage-ID: <forged-1@example.org>\r\n\r\n{text}\r\n",
        address(&first)
    );
    assert!(host.inbox(&plain).starts_with("forged"));
    // The other player replying to this player's notice: refused.
    let stolen = gmail_reply(&notice, &address(second), &text, "stolen-1");
    assert!(host.inbox(&stolen).starts_with("forged"));
    // A stranger holding a forwarded notice: its capability is not theirs.
    let forwarded = gmail_reply(&notice, "mallory@example.net", &text, "stranger-1");
    assert!(host.inbox(&forwarded).starts_with("forged"));
    // A stranger with no proof at all.
    let stranger = plain
        .replace(&address(&first), "mallory@example.net")
        .replace("forged-1", "stranger-2");
    assert!(host.inbox(&stranger).starts_with("not-a-player"));
    // An illegal move, properly proven.
    let illegal = gmail_reply(&notice, &address(&first), "place E,W at Z99", "illegal-1");
    assert!(host.inbox(&illegal).starts_with("refused"));
    assert_eq!(
        std::fs::read(host.file()).expect("file"),
        before,
        "nothing changed"
    );

    // The real move, delivered twice, then resent with a new Message-ID.
    let good = gmail_reply(&notice, &address(&first), &text, "good-1");
    assert!(host.inbox(&good).starts_with("applied"));
    let after = std::fs::read(host.file()).expect("file");
    assert!(host.inbox(&good).starts_with("duplicate"));
    let resent = gmail_reply(&notice, &address(&first), &text, "good-2");
    assert!(host.inbox(&resent).starts_with("duplicate"));
    // A different move in reply to the old notice: stale.
    let other = host
        .legal(second)
        .first()
        .cloned()
        .unwrap_or_else(|| "pass".into());
    let stale = gmail_reply(&notice, &address(&first), &other, "old-1");
    assert!(host.inbox(&stale).starts_with("stale"));
    assert_eq!(
        std::fs::read(host.file()).expect("file"),
        after,
        "nothing changed"
    );

    let mails = host.mails();
    let to_first: Vec<&Mail> = mails.iter().filter(|m| m.to == address(&first)).collect();
    assert!(to_first
        .iter()
        .any(|m| m.subject.contains("Someone tried to move for you")));
    assert!(to_first
        .iter()
        .any(|m| m.subject.contains("Move refused") && m.text.contains("legal for you right now")));
    assert!(to_first
        .iter()
        .any(|m| m.subject.contains("Already applied")));
    let over = to_first
        .iter()
        .find(|m| m.subject.contains("That turn is over"))
        .expect("the stale reply's refusal");
    // One instruction: it is not the player's turn, so they are told to wait, never
    // also to reply to this mail or to their notice.
    let words = squeezed(&over.text);
    assert!(
        words.contains("It is not your turn now: your turn notice will come when it is."),
        "{}",
        over.text
    );
    assert!(
        !words.contains("Reply to this mail") && !words.contains("Reply to your latest"),
        "{}",
        over.text
    );
    assert!(mails
        .iter()
        .any(|m| m.to == "mallory@example.net" && m.subject.contains("not a player")));
    for mail in &mails {
        check_outgoing(mail, &tag);
    }
}

#[test]
fn stopping_the_smtp_server_mid_game_loses_nothing() {
    let mut host = Host::new();
    host.start_game();
    let delivered_at_start = host.mails().len();
    assert_eq!(delivered_at_start, 3, "two welcomes and one turn notice");
    host.smtp.stop();
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let report = host.inbox(&gmail_reply(
        &notice,
        &address(&player),
        &text,
        "while-down",
    ));
    assert!(report.starts_with("applied"), "{report}");
    assert_eq!(
        host.view()["turn"],
        1,
        "the move is applied even though mail cannot go out"
    );
    let outbox: Vec<_> = std::fs::read_dir(host.games().join("game.json.outbox"))
        .expect("outbox")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "mail"))
        .collect();
    assert_eq!(
        outbox.len(),
        2,
        "the next player's notice and the mover's confirmation wait"
    );
    host.smtp.resume();
    let (ok, out) = host.run(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok, "{out}");
    let mails = host.mails();
    assert_eq!(mails.len(), delivered_at_start + 2);
    let next = host.view()["to_move"][0]
        .as_str()
        .expect("player")
        .to_string();
    assert!(mails
        .iter()
        .any(|m| m.to == address(&next) && m.subject.contains("Turn 2: your move")));
}

#[test]
fn a_maildir_is_processed_once_even_by_two_runs_at_once() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let maildir = host.dir.path().join("incoming");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).expect("maildir");
    }
    std::fs::write(
        maildir.join("new/1.a"),
        gmail_reply(&notice, &address(&player), &text, "m1"),
    )
    .expect("write");
    std::fs::write(
        maildir.join("new/2.b"),
        gmail_reply(&notice, &address(&player), &text, "m2"),
    )
    .expect("write");
    let runs: Vec<Child> = (0..2)
        .map(|_| {
            host.pbem()
                .args(["inbox", "--games"])
                .arg(host.games())
                .arg("--maildir")
                .arg(&maildir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawns")
        })
        .collect();
    for run in runs {
        assert!(run.wait_with_output().expect("waits").status.success());
    }
    assert_eq!(host.view()["turn"], 1, "applied exactly once");
    assert_eq!(
        std::fs::read_dir(maildir.join("new")).expect("new").count(),
        0
    );
    let seen = filed_in(&maildir);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.iter().all(|n| n.ends_with(":2,S")), "{seen:?}");
    let index = host.archive_index();
    assert_eq!(index.lines().count(), 2);
    assert_eq!(
        index.lines().filter(|l| l.contains("\"applied\"")).count(),
        1
    );
}

#[test]
fn reminders_go_to_whoever_keeps_the_game_waiting_once_per_interval() {
    let host = Host::new();
    host.start_game();
    let player = host.view()["to_move"][0]
        .as_str()
        .expect("player")
        .to_string();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_secs();
    let remind = |at: u64| {
        host.run(
            host.pbem()
                .env("PBEM_NOW", at.to_string())
                .args(["remind", "--after", "3d", "--games"])
                .arg(host.games()),
        )
    };
    let (ok, out) = remind(now + 86_400);
    assert!(ok && out.is_empty(), "nobody to remind: {out}");
    let (ok, out) = remind(now + 4 * 86_400);
    assert!(ok && out.contains(&format!("reminded {player}")), "{out}");
    let (_, out) = remind(now + 5 * 86_400);
    assert!(out.is_empty(), "once per interval: {out}");
    let (_, out) = remind(now + 8 * 86_400);
    assert!(out.contains(&format!("reminded {player}")), "{out}");
    let reminders: Vec<Mail> = host
        .mails()
        .into_iter()
        .filter(|m| m.subject.contains("Reminder"))
        .collect();
    assert_eq!(reminders.len(), 2);
    assert!(reminders.iter().all(|m| m.to == address(&player)));
    // Without a limit there is no deadline, and the reminder says so.
    assert!(
        reminders[0]
            .text
            .contains("The referee has set no deadline: the game waits for you."),
        "{}",
        reminders[0].text
    );
    // A reply to the reminder is a valid move.
    let text = host.legal(&player)[0].clone();
    let report = host.inbox(&gmail_reply(
        &reminders[1],
        &address(&player),
        &text,
        "after-reminder",
    ));
    assert!(report.starts_with("applied"), "{report}");
}

#[test]
fn forum_formats_wrap_the_board() {
    let host = Host::new();
    host.start_game();
    let (ok, bbcode) = host.run(
        host.pbem()
            .arg("show")
            .arg(host.file())
            .args(["--format", "bbcode"]),
    );
    assert!(ok);
    assert!(
        bbcode.contains("[code]") && bbcode.contains("[/code]"),
        "{bbcode}"
    );
    let (ok, markdown) = host.run(
        host.pbem()
            .arg("show")
            .arg(host.file())
            .args(["--format", "markdown"]),
    );
    assert!(ok);
    assert!(markdown.contains("```text"), "{markdown}");
    for text in [bbcode, markdown] {
        assert!(text.lines().all(|l| l.chars().count() <= 78));
    }
}

#[test]
fn past_the_limit_the_referee_skips_only_where_allowed_or_forfeits() {
    let host = Host::new();
    host.start_game();
    let player = host.view()["to_move"][0]
        .as_str()
        .expect("player")
        .to_string();
    let other = if player == "Ann" { "Bob" } else { "Ann" };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_secs();
    let remind = |at: u64, then: &str| {
        host.run(
            host.pbem()
                .env("PBEM_NOW", at.to_string())
                .args([
                    "remind", "--after", "3d", "--limit", "10d", "--then", then, "--games",
                ])
                .arg(host.games()),
        )
    };
    // A reminder names the deadline (ten days from the notice) and what follows it.
    let (ok, out) = remind(now + 4 * 86_400, "forfeit");
    assert!(ok && out.contains(&format!("reminded {player}")), "{out}");
    let reminder = host
        .mails()
        .into_iter()
        .rev()
        .find(|m| m.subject.contains("Reminder"))
        .expect("a reminder");
    let day = |seconds: u64| pbem_date(seconds / 86_400);
    let deadline = reminder
        .text
        .split("The deadline is ")
        .nth(1)
        .expect("the deadline")
        .to_string();
    assert!(
        deadline.starts_with(&day(now + 10 * 86_400))
            || deadline.starts_with(&day(now + 10 * 86_400 - 60)),
        "{}",
        reminder.text
    );
    assert!(
        squeezed(&reminder.text).contains("Past it, the referee enters your forfeit for you."),
        "{}",
        reminder.text
    );
    // Skipping is not allowed while a placement is legal: the player is only reminded,
    // and told so.
    let (ok, out) = remind(now + 11 * 86_400, "skip");
    let reminder = host
        .mails()
        .into_iter()
        .rev()
        .find(|m| m.subject.contains("Reminder"))
        .expect("a reminder");
    assert!(
        squeezed(&reminder.text).contains("the rules allow the referee no move for you now"),
        "{}",
        reminder.text
    );
    assert!(ok && out.contains(&format!("reminded {player}")), "{out}");
    assert_eq!(host.view()["turn"], 0);
    // Forfeit: the referee submits the player's resignation; the game ends.
    let (ok, out) = remind(now + 12 * 86_400, "forfeit");
    assert!(
        ok && out.contains("past the deadline, played `resign`"),
        "{out}"
    );
    let view = host.view();
    assert_eq!(view["over"], true);
    assert_eq!(view["winners"], serde_json::json!([other]));
    let over: Vec<Mail> = host
        .mails()
        .into_iter()
        .filter(|m| m.subject.contains("The game is over"))
        .collect();
    assert_eq!(over.len(), 2, "both players learn the result");
    // Both are told it was a forfeit past the deadline, not a move the player made.
    for mail in &over {
        let text = squeezed(&mail.text);
        assert!(
            text.contains(&format!("{player} let the deadline pass and forfeited")),
            "{}",
            mail.text
        );
        assert!(!text.contains("The last move"), "{}", mail.text);
    }
    let (ok, report) = host.run(host.pbem().args(["audit", "--public"]).arg(host.file()));
    assert!(ok, "{report}");
}

#[test]
fn a_move_the_referee_entered_says_so_to_every_player() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let other = if player == "Ann" { "Bob" } else { "Ann" };
    let sent = host.mails().len();
    let (ok, out) = host.run(
        host.pbem()
            .arg("apply")
            .arg(host.file())
            .args(["--player", &player, "--move", &text, "--mail"]),
    );
    assert!(ok, "{out}");
    let after = host.mails_since(sent);
    let own = after
        .iter()
        .find(|m| m.to == address(&player))
        .expect("the mover's notice");
    let own_text = squeezed(&own.text);
    assert!(
        own_text.contains("The referee entered this move for you; it did not come from your mail."),
        "{}",
        own.text
    );
    assert!(!own_text.contains("Your move was applied"), "{}", own.text);
    let theirs = after
        .iter()
        .find(|m| m.to == address(other))
        .expect("the other player's notice");
    assert!(
        squeezed(&theirs.text).contains(&format!("The referee entered {player}'s move of turn 1:")),
        "{}",
        theirs.text
    );
}

#[test]
fn a_referees_own_templates_and_the_attached_game_file() {
    let host = Host::new();
    let own = host.dir.path().join("my-templates");
    std::fs::create_dir_all(&own).expect("dir");
    std::fs::write(
        own.join("your-turn.txt"),
        "Subject: {{ tag }} Du bist dran, {{ player }} (ref {{ code }})\n\nZug {{ turn }}.\n\n{{ board }}\n",
    )
    .expect("template");
    let (ok, out) = host.run(
        host.pbem()
            .args([
                "new",
                "right-of-way",
                "--player",
                "Ann <ann@example.org>",
                "--player",
                "Bob <bob@example.org>",
            ])
            .args(["--seed", SEED, "--mail", "--attach-game", "--templates"])
            .arg(&own)
            .arg("--out")
            .arg(host.file()),
    );
    assert!(ok, "{out}");
    let mails = host.mails();
    let notice = mails
        .iter()
        .find(|m| m.subject.contains("Du bist dran"))
        .expect("the referee's wording");
    assert!(notice.text.starts_with("Zug 1."), "{}", notice.text);
    // Templates not in the folder keep the built-in text.
    assert!(mails
        .iter()
        .any(|m| m.subject.contains("Welcome to right-of-way")));
    // The signed game file rides along, and audits.
    let message = MessageParser::default()
        .parse(notice.raw.as_bytes())
        .expect("parse");
    // The board's picture is a part too; the game file is the JSON one.
    let attachment = message
        .attachments()
        .find(|part| part.is_content_type("application", "json"))
        .expect("the game file attached");
    let attached = host.dir.path().join("attached.json");
    std::fs::write(&attached, attachment.contents()).expect("write");
    let (ok, report) = host.run(host.pbem().args(["audit", "--public"]).arg(&attached));
    assert!(ok, "{report}");
    // A reply to the reworded notice still proves the player.
    let (player, text) = host.first_move();
    assert!(host
        .inbox(&apple_reply(notice, &address(&player), &text, "own-1"))
        .starts_with("applied"));
}

#[test]
fn a_message_for_no_game_is_kept_and_never_answered() {
    let host = Host::new();
    host.start_game();
    let delivered = host.mails().len();
    let stray = "From: Carol <carol@example.net>\r\nTo: referee@pbem.example\r\n\
Subject: [pbem row-00000000] my move\r\nMessage-ID: <stray-1@example.net>\r\n\r\nplace E,W at E9\r\n";
    let report = host.inbox(stray);
    assert!(report.starts_with("no-game"), "{report}");
    let untagged = "From: Dan <dan@example.net>\r\nTo: referee@pbem.example\r\n\
Subject: hello\r\nMessage-ID: <stray-2@example.net>\r\n\r\nbuy cheap pills\r\n";
    assert!(host.inbox(untagged).starts_with("no-game"));
    // Its sender may be forged: an answer would be backscatter. Only the referee hears
    // of it.
    let sent = host.mails();
    assert!(
        sent[delivered..]
            .iter()
            .all(|m| m.to == "referee@pbem.example"),
        "nothing was sent to the senders"
    );
    let index =
        std::fs::read_to_string(host.games().join("unmatched.mail/index.jsonl")).expect("kept");
    assert!(index.contains("stray-1@example.net") && index.contains("stray-2@example.net"));
    let (ok, out) = host.run(
        host.pbem()
            .args(["outbox", "flush", "--games"])
            .arg(host.games()),
    );
    assert!(ok, "nothing is left waiting: {out}");
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

/// Every run of `inbox --maildir` killed at a random moment, again and again: each
/// message is still handled exactly once (applied once, archived once, filed once).
#[test]
fn killed_maildir_runs_lose_nothing_and_apply_nothing_twice() {
    let host = Host::new();
    host.start_game();
    let tag = host.tag();
    let maildir = host.maildir();
    let mut picker = pbem::engine::DrawStream::for_testing(11);
    let moves = 8;
    let mut written = 0;
    let mut ids = Vec::new();
    for round in 0..300 {
        let turn = host.view()["turn"].as_u64().expect("turn");
        if turn == moves {
            break;
        }
        if written == turn {
            // The next move, once the one before it is in: a token message, and a
            // stranger's message beside it.
            let player = host.view()["to_move"][0]
                .as_str()
                .expect("player")
                .to_string();
            let from = address(&player);
            let text = host.legal(&player)[0].clone();
            let id = format!("move-{turn}");
            let raw = token_message(&tag, &token_of(&host, &from), &from, &text, &id);
            std::fs::write(maildir.join(format!("new/{round:04}.move")), raw).expect("write");
            let junk = format!(
                "From: spam@example.net\r\nSubject: {tag} hi\r\nMessage-ID: <junk-{turn}@example.net>\r\n\r\nbuy now\r\n"
            );
            std::fs::write(maildir.join(format!("new/{round:04}.junk")), junk).expect("write");
            ids.push(format!("{id}@example.org"));
            ids.push(format!("junk-{turn}@example.net"));
            written += 1;
        }
        let mut run = host.inbox_maildir().spawn().expect("spawns");
        if round % 5 != 4 {
            // Killed anywhere in its work: claiming, reading, applying, archiving,
            // mailing, filing (a run here takes some tens of milliseconds).
            let delay = picker.index(150);
            std::thread::sleep(Duration::from_millis(u64::from(delay)));
            let _ = run.kill();
        }
        let _ = run.wait();
    }
    // One last run that is left to finish.
    assert!(host.inbox_maildir().status().expect("runs").success());
    assert_eq!(host.view()["turn"], moves, "every move applied, once");
    let filed = filed_in(&maildir);
    assert_eq!(filed.len(), ids.len(), "{filed:?}");
    assert!(filed.iter().all(|name| name.ends_with(":2,S")), "{filed:?}");
    assert_eq!(
        std::fs::read_dir(maildir.join("new")).expect("new").count(),
        0
    );
    let index = host.archive_index();
    for id in &ids {
        let times = index
            .lines()
            .filter(|line| line.contains(id.as_str()))
            .count();
        assert_eq!(times, 1, "{id} archived {times} times:\n{index}");
    }
    assert_eq!(
        index.lines().filter(|l| l.contains("\"applied\"")).count(),
        moves as usize
    );
    // Whoever is to move is waited for since their own notice, whatever the kills.
    let waits: Value = serde_json::from_slice(
        &std::fs::read(host.games().join("game.json.mail/waiting.json")).expect("waits"),
    )
    .expect("json");
    let seats = waits["seats"].as_object().expect("seats");
    assert_eq!(seats.len(), 1, "{waits}");
    assert_eq!(
        seats.values().next().expect("a wait")["turn"],
        moves + 1,
        "{waits}"
    );
    let (ok, report) = host.run(host.pbem().arg("audit").arg(host.file()));
    assert!(ok, "{report}");
}

/// Faults on the referee's side exit 75 (EX_TEMPFAIL), so the mail server keeps the
/// player's message and retries; nothing is created, applied or answered.
#[test]
fn referee_side_faults_exit_75_and_change_nothing() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let reply = gmail_reply(&notice, &address(&player), &text, "fault-1");
    let before = std::fs::read(host.file()).expect("file");
    let delivered = host.mails().len();

    // A `.forward` pipe without PBEM_HOME: the default keyring has no key. No key is
    // made, no "forged" verdict reaches anyone.
    let empty = tempfile::tempdir().expect("dir");
    let empty_home = empty.path().join("pbem");
    let (code, out) = host.inbox_with(
        &reply,
        &[("PBEM_HOME", empty_home.to_str().expect("utf-8"))],
    );
    assert_eq!(code, Some(75), "{out}");
    assert!(out.contains("PBEM_HOME"), "{out}");
    assert!(
        !empty_home.join("referee.key").exists(),
        "no key was created"
    );

    // The keyring of another referee: the game is not theirs.
    let other = tempfile::tempdir().expect("dir");
    std::fs::write(
        other.path().join("referee.key"),
        format!("{}\n", "77".repeat(32)),
    )
    .expect("key");
    let (code, out) = host.inbox_with(
        &reply,
        &[("PBEM_HOME", other.path().to_str().expect("utf-8"))],
    );
    assert_eq!(code, Some(75), "{out}");
    assert!(out.contains("another referee key"), "{out}");

    // A bad config file.
    let keyring = host.dir.path().join("keyring");
    std::fs::write(keyring.join("config.toml"), "[mail]\nsmpt = 1\n").expect("config");
    let (code, out) = host.inbox_with(&reply, &[]);
    assert_eq!(code, Some(75), "{out}");
    assert!(out.contains("config.toml"), "{out}");
    std::fs::remove_file(keyring.join("config.toml")).expect("rm");

    // The game held by a stuck process.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(host.games().join("game.json.lock"))
        .expect("lock file");
    lock.lock().expect("locked");
    let (code, out) = host.inbox_with(&reply, &[("PBEM_LOCK_TIMEOUT", "1")]);
    assert_eq!(code, Some(75), "{out}");
    assert!(out.contains("still locked"), "{out}");
    drop(lock);

    assert_eq!(
        std::fs::read(host.file()).expect("file"),
        before,
        "nothing applied"
    );
    assert_eq!(host.mails().len(), delivered, "nothing answered");
    assert!(!host.games().join("game.json.mail/index.jsonl").exists());
    // Once the referee's side is mended, the same message is applied.
    assert!(host.inbox(&reply).starts_with("applied"));
}

/// A turn is applied whole or refused whole: never a part of it.
#[test]
fn a_mailed_turn_is_applied_whole_or_refused_whole() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let before = std::fs::read(host.file()).expect("file");
    let tail = format!("{text}\ndiscard C,V extra-garbage");
    let report = host.inbox(&gmail_reply(&notice, &address(&player), &tail, "part-1"));
    assert!(report.starts_with("refused"), "{report}");
    let junk: String = (0..10_000).map(|i| format!("zz{i} qq\n")).collect();
    let long = format!("{text}\n{junk}");
    let report = host.inbox(&gmail_reply(&notice, &address(&player), &long, "part-2"));
    assert!(report.starts_with("refused"), "{report}");
    assert_eq!(std::fs::read(host.file()).expect("file"), before);
    let refusals = host
        .mails()
        .into_iter()
        .filter(|m| m.to == address(&player) && m.subject.contains("Move refused"))
        .count();
    assert_eq!(refusals, 2);
}

/// A stranger's Subject, encoded so that it decodes to line breaks, a line separator
/// and a bidirectional override, is shown in the player's "someone tried" mail as one
/// quoted line: none of it becomes a line of the referee's own words.
#[test]
fn a_strangers_subject_never_becomes_lines_of_the_referees_mail() {
    use base64::Engine as _;
    let host = Host::new();
    host.start_game();
    let first = host.view()["to_move"][0]
        .as_str()
        .expect("player")
        .to_string();
    let notice = host.notice_for(&address(&first));
    let text = host.legal(&first)[0].clone();
    let injected =
        "hello\r\n\r\nYour move WAS applied; reply resign\u{2028}Sincerely, the referee\u{202E}";
    let encoded = base64::engine::general_purpose::STANDARD.encode(injected);
    let forged = format!(
        "From: mallory@example.net\r\nTo: referee@pbem.example\r\nSubject: =?utf-8?b?{encoded}?=\r\n\
Message-ID: <inject-1@example.net>\r\nIn-Reply-To: <{id}>\r\nReferences: <{id}>\r\n\
Date: Mon, 23 Nov 2026 10:02:00 +0000\r\n\r\n{text}\r\n",
        id = notice.message_id
    );
    assert!(host.inbox(&forged).starts_with("forged"));
    let tried = host
        .mails()
        .into_iter()
        .find(|m| m.to == address(&first) && m.subject.contains("Someone tried"))
        .expect("the player is told");
    let body = &tried.text;
    assert!(
        !body.lines().any(
            |line| line.trim_start().starts_with("Your move WAS applied")
                || line.trim_start().starts_with("Sincerely")
        ),
        "{body}"
    );
    assert!(!body.contains(['\u{2028}', '\u{202E}', '\r']), "{body:?}");
    // The stranger's words are there, on the one indented line that quotes them.
    assert!(
        body.lines()
            .any(|line| line.starts_with("    Subject: hello Your move WAS applied")),
        "{body}"
    );
}

/// A stranger sending forged moves again and again: each is archived, the player is
/// told once per interval.
#[test]
fn someone_tried_notices_are_rate_limited() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    for n in 0..5 {
        let forged = gmail_reply(
            &notice,
            "mallory@example.net",
            &text,
            &format!("mallory-{n}"),
        );
        assert!(host.inbox(&forged).starts_with("forged"));
    }
    let told = host
        .mails()
        .into_iter()
        .filter(|m| m.subject.contains("Someone tried to move for you"))
        .count();
    assert_eq!(told, 1);
    let index = host.archive_index();
    assert_eq!(
        index.lines().filter(|l| l.contains("\"forged\"")).count(),
        5
    );
    // After the interval, the player is told again.
    let later = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_secs()
        + pbem::mail::TRIED_INTERVAL
        + 60)
        .to_string();
    let forged = gmail_reply(&notice, "mallory@example.net", &text, "mallory-late");
    let (code, out) = host.inbox_with(&forged, &[("PBEM_NOW", &later)]);
    assert_eq!(code, Some(0), "{out}");
    let told = host
        .mails()
        .into_iter()
        .filter(|m| m.subject.contains("Someone tried to move for you"))
        .count();
    assert_eq!(told, 2);
}

/// A mail server that accepts connections and never answers: the game's lock is free
/// while pbem waits on it, so other moves go on.
#[test]
fn a_hung_mail_server_never_holds_the_game() {
    let host = Host::new();
    host.start_game();
    let hung = TcpListener::bind("127.0.0.1:0").expect("a port");
    let hung_url = format!("smtp://{}", hung.local_addr().expect("addr"));
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let reply = gmail_reply(&notice, &address(&player), &text, "hung-1");
    let mut child = host
        .pbem()
        .env("PBEM_SMTP", &hung_url)
        .args(["inbox", "--games"])
        .arg(host.games())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(reply.as_bytes())
        .expect("write");
    // Wait until the move is in and pbem is talking to the hung server.
    let (_connection, _) = hung.accept().expect("pbem connects");
    assert_eq!(host.view()["turn"], 1);
    let next = host.view()["to_move"][0]
        .as_str()
        .expect("player")
        .to_string();
    let next_move = host.legal(&next)[0].clone();
    let (ok, out) = host.run(
        host.pbem()
            .env("PBEM_LOCK_TIMEOUT", "5")
            .arg("apply")
            .arg(host.file())
            .args(["--player", &next, "--move", &next_move]),
    );
    assert!(ok, "the game is not held while mail waits: {out}");
    assert!(
        child.try_wait().expect("status").is_none(),
        "the first run is still waiting for the hung server"
    );
    assert_eq!(host.view()["turn"], 2);
    drop(hung);
    drop(_connection);
    let _ = child.kill();
    let _ = child.wait();
}

/// Hostile things planted among the games: a fifo is never opened (it would block
/// forever), and what pbem writes for mail is private whatever the umask.
#[cfg(unix)]
#[test]
fn planted_files_are_skipped_and_mail_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let host = Host::new();
    host.start_game();
    let fifo = host.games().join("aaa.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let reply = gmail_reply(&notice, &address(&player), &text, "private-1");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(r#"umask 000; exec "$0" inbox --games "$1""#)
        .arg(assert_cmd::cargo::cargo_bin("pbem"))
        .arg(host.games())
        .env("PBEM_HOME", host.dir.path().join("keyring"))
        .env("PBEM_SMTP", host.smtp.url())
        .env("PBEM_FROM", "Referee <referee@pbem.example>")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(reply.as_bytes())
        .expect("write");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("status").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("pbem opened the fifo among the games and blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    assert!(
        String::from_utf8_lossy(&output.stdout).starts_with("applied"),
        "{output:?}"
    );
    let mode = |path: &Path| std::fs::metadata(path).expect("stat").permissions().mode() & 0o777;
    for folder in ["game.json.mail", "game.json.outbox"] {
        let dir = host.games().join(folder);
        assert_eq!(mode(&dir), 0o700, "{folder}");
        for entry in std::fs::read_dir(&dir).expect("list").flatten() {
            assert_eq!(mode(&entry.path()), 0o600, "{}", entry.path().display());
        }
    }
}

/// `pbem new` refuses an address that is not one plain address before anything is
/// written; a mail outage after the game is made leaves the game and its mail waiting.
#[test]
fn new_refuses_smuggled_addresses_and_survives_a_mail_outage() {
    let mut host = Host::new();
    for bad in [
        "Ann <a@b.org>\r\nBcc: evil@x.org",
        "Ann <a@b.org>, Eve <e@x.org>",
        "Ann <a@b.org> <e@x.org>",
        "Ann <>",
        "Ann <not an address>",
    ] {
        let (ok, out) = host.run(
            host.pbem()
                .args([
                    "new",
                    "right-of-way",
                    "--player",
                    bad,
                    "--player",
                    "Bob <bob@example.org>",
                ])
                .args(["--mail", "--out"])
                .arg(host.file()),
        );
        assert!(!ok, "{bad:?} accepted: {out}");
        assert!(out.contains("mail address"), "{out}");
        assert!(!host.file().exists(), "{bad:?}: nothing written");
        assert!(
            !host.dir.path().join("keyring/seeds").exists(),
            "{bad:?}: no seed stored"
        );
    }
    host.smtp.stop();
    let (ok, out) = host.run(
        host.pbem()
            .args(["new", "right-of-way", "--player", "Ann <ann@example.org>"])
            .args([
                "--player",
                "Bob <bob@example.org>",
                "--seed",
                SEED,
                "--mail",
                "--out",
            ])
            .arg(host.file()),
    );
    assert!(ok, "the game stands though mail cannot go out: {out}");
    assert!(out.contains("outbox flush"), "{out}");
    host.smtp.resume();
    let (ok, out) = host.run(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok, "{out}");
    assert_eq!(
        host.mails().len(),
        3,
        "two welcomes and the first turn notice"
    );
}

/// Every mail carries the signed head of the record it was sent after; the mover's
/// confirmation carries their own record's hash as a receipt.
#[test]
fn every_mail_carries_the_signed_head_and_the_mover_a_receipt() {
    let host = Host::new();
    host.start_game();
    let genesis = host.view()["head"]["hash"]
        .as_str()
        .expect("hash")
        .to_string();
    for mail in host.mails() {
        assert!(mail.text.contains(&genesis), "{}", mail.subject);
    }
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let before = host.mails().len();
    assert!(host
        .inbox(&gmail_reply(&notice, &address(&player), &text, "receipt-1"))
        .starts_with("applied"));
    let head = host.view()["head"]["hash"]
        .as_str()
        .expect("hash")
        .to_string();
    let after: Vec<Mail> = host.mails().into_iter().skip(before).collect();
    assert_eq!(
        after.len(),
        2,
        "the next notice and the mover's confirmation"
    );
    for mail in &after {
        assert!(mail.text.contains(&head), "{}: {}", mail.subject, mail.text);
    }
    let confirmation = after
        .iter()
        .find(|m| m.to == address(&player))
        .expect("the mover's confirmation");
    assert!(
        confirmation.text.contains("Your receipt"),
        "{}",
        confirmation.text
    );
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

/// `pbem new --join --mail`: the invitation (with the seed's commitment) goes to every
/// player first; each one's reply is their join, their words going into the game's
/// draws; only the player's own reply counts; the last join starts the game, with its
/// welcome and first turn notice, and its genesis holds everyone's words.
#[test]
fn players_join_by_replying_to_the_invitation_and_the_last_starts_the_game() {
    let host = Host::new();
    host.invite(&[]);
    let invitation_to = |to: &str| host.invitation_to(to);
    let (ann, bob) = (
        invitation_to("ann@example.org"),
        invitation_to("bob@example.org"),
    );
    let tag = ann.subject.split(']').next().expect("a tag").to_string() + "]";
    check_outgoing(&ann, &tag);
    let invitation = std::fs::read_to_string(host.file()).expect("the invitation");
    let committed: Value = serde_json::from_str(&invitation).expect("json");
    let commitment = committed["genesis"]["seed_commitment"]
        .as_str()
        .expect("commitment");
    assert!(ann.text.contains(commitment), "{}", ann.text);
    // The game has not begun: nothing shows it yet.
    let (ok, out) = host.run(host.pbem().arg("show").arg(host.file()));
    assert!(!ok && out.contains("waiting for Ann, Bob"), "{out}");

    // Bob answering Ann's invitation joins nobody.
    let forged = gmail_reply(
        &ann,
        "bob@example.org",
        "I join for Ann",
        "<join-forged@example.org>",
    );
    assert!(host.inbox(&forged).contains("forged"));
    assert_eq!(
        std::fs::read_to_string(host.file()).expect("read"),
        invitation
    );

    let out = host.inbox(&gmail_reply(
        &ann,
        "ann@example.org",
        "Blue  heron 42",
        "<join-ann@example.org>",
    ));
    assert!(out.contains("joined"), "{out}");
    assert!(host.mails().iter().any(|m| m.to == "ann@example.org"
        && m.subject.contains("You joined")
        && m.text.contains("Blue heron 42")));
    // The same message again, and a second join, change nothing.
    assert!(host
        .inbox(&gmail_reply(
            &ann,
            "ann@example.org",
            "Blue  heron 42",
            "<join-ann@example.org>"
        ))
        .contains("duplicate"));
    assert!(host
        .inbox(&gmail_reply(
            &ann,
            "ann@example.org",
            "other words",
            "<join-ann-2@example.org>"
        ))
        .contains("duplicate"));
    let (ok, out) = host.run(host.pbem().arg("show").arg(host.file()));
    assert!(!ok && out.contains("waiting for Bob"), "{out}");

    let out = host.inbox(&gmail_reply(
        &bob,
        "bob@example.org",
        "seven swans",
        "<join-bob@example.org>",
    ));
    assert!(out.contains("the game has begun"), "{out}");
    let game: Value =
        serde_json::from_str(&std::fs::read_to_string(host.file()).expect("the game"))
            .expect("json");
    let genesis = &game["genesis"];
    assert_eq!(genesis["seed_commitment"].as_str(), Some(commitment));
    assert_eq!(
        genesis["entropy"],
        serde_json::json!(["Ann: Blue heron 42", "Bob: seven swans"])
    );
    assert_eq!(genesis["invitation"], committed["genesis"]["hash"]);
    for to in ["ann@example.org", "bob@example.org"] {
        assert!(host
            .mails()
            .iter()
            .any(|m| m.to == to && m.subject.contains("Welcome")));
    }
    let first = host.view()["to_move"][0]
        .as_str()
        .expect("a player")
        .to_string();
    let notice = host.notice_for(&address(&first));
    check_outgoing(&notice, &tag);
    let (ok, report) = host.run(host.pbem().arg("audit").arg(host.file()));
    assert!(
        ok && report.contains("the players joined invitation"),
        "{report}"
    );
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
    text
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
    let own = after
        .iter()
        .find(|m| m.to == from)
        .expect("the mover's confirmation");
    assert!(!own.text.contains("Notes from the table"), "{}", own.text);
    // The note went with that notice, and only once.
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
    host.start_game();
    let (player, _) = host.first_move();
    let from = address(&player);
    let notice = host.notice_for(&from);
    let start = 1_795_000_000_u64; // 2026-11-18
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

/// `YYYY-MM-DD` of a day number.
fn pbem_date(day: u64) -> String {
    pbem::mail::clock::date_text(day)
}

/// Text with its white space squeezed, so a line wrapped in a mail still matches.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The mail each player gets over a whole game of each game, played by mail: how many
/// messages and how many bytes (as delivered), printed for the record (run with
/// `--nocapture`). The triangle auction, whose three players hear of two others' moves
/// between their own, is played again with every player on the daily digest (`digest
/// daily`): what it saves when the game is played within a day, so that everything
/// held comes with each player's next mail (a slower game adds at most one digest a
/// day to a player who got no other mail that day). In a game of two, the other's move
/// is almost always one's turn notice, and the digest has little to gather.
/// A whole game of `game` by mail, played once and checked two ways. Every turn's
/// report reaches exactly the players who may see it: each mail carries every line
/// of the turn's report its reader may read and no line only another may read (the
/// first turn notice and the game-over mail as a player reads them, snapshotted).
/// And the mail per player is measured: no message is larger than a board, some words
/// and the board's picture; with three players, the same game with the daily digest
/// sends fewer messages and bytes and every turn notice still.
fn by_mail_reports_reach_whom_they_may_and_the_mail_is_measured(game: &str, names: &[&str]) {
    let seed = SEED;
    let mut reports = 0;
    let mut private = 0;
    let (mut first_notice, mut game_over) = (None, None);
    let (moves, figures) =
        super::support::play_by_mail_measured(game, names, seed, 11, false, |sent| {
            if sent.subject.contains("Reminder") {
                return;
            }
            if sent.subject.contains("your move") && first_notice.is_none() {
                first_notice = Some(snapshot_of(sent.subject, sent.body));
            }
            if sent.subject.contains("The game is over") && sent.to == address(names[0]) {
                game_over = Some(snapshot_of(sent.subject, sent.body));
            }
            let turn = sent.turn;
            let reader = names
                .iter()
                .find(|name| address(name) == sent.to)
                .expect("a player's mail");
            let seen = sent.report_as(reader, turn);
            let body = squeezed(sent.body);
            for line in &seen {
                assert!(
                    body.contains(&squeezed(line)),
                    "{game} turn {turn}: {reader} may read {line:?}, missing from:\n{}",
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
        });
    assert!(reports > 0, "{game}: no report reached anyone");
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

    assert_eq!(figures.len(), names.len(), "{figures:?}");
    for (to, mail) in &figures {
        println!(
            "{game}, {moves} moves by mail: {to} got {} messages, {} bytes ({} KiB, {} bytes each); {} turn notices",
            mail.count,
            mail.bytes,
            mail.bytes / 1024,
            mail.bytes / mail.count,
            mail.turn_notices,
        );
        // A message is a board and some words, twice (text and HTML), and the
        // board's picture (a PNG of 256 colours, base64 in the mail): never more.
        assert!(mail.bytes / mail.count < 96 * 1024, "{mail:?}");
    }
    if names.len() < 3 {
        return;
    }
    let (digest_moves, digested) =
        super::support::play_by_mail_measured(game, names, seed, 11, true, |_| {});
    assert_eq!(moves, digest_moves, "the same game");
    for (to, mail) in &figures {
        let with_digest = &digested[to];
        println!(
            "{game}, with the daily digest: {to} got {} messages, {} bytes ({} KiB), saving {} messages and {} KiB",
            with_digest.count,
            with_digest.bytes,
            with_digest.bytes / 1024,
            mail.count as i64 - with_digest.count as i64,
            (mail.bytes as i64 - with_digest.bytes as i64) / 1024,
        );
        // Every turn notice still comes, as it happens; the rest is gathered.
        assert_eq!(with_digest.turn_notices, mail.turn_notices, "{to}");
        assert!(
            with_digest.count < mail.count,
            "{to}: {with_digest:?} {mail:?}"
        );
        assert!(
            with_digest.bytes < mail.bytes,
            "{to}: {with_digest:?} {mail:?}"
        );
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
    let (ok, out) = host.run(host.pbem().args(["audit", "--public"]).arg(host.file()));
    assert!(ok, "{out}");
}

// Unattended for months: faults that must neither stall a game nor lose a move.

/// A game file that cannot be read (cut short, half written by another tool) is a
/// fault on the referee's side: `inbox` exits 75, nothing is filed as matching no
/// game, and the same message is applied once the file is mended.
#[test]
fn a_game_file_cut_short_is_a_fault_and_the_move_applies_once_it_is_mended() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let reply = gmail_reply(&notice, &address(&player), &text, "mended-1");
    let whole = std::fs::read(host.file()).expect("file");
    std::fs::write(host.file(), &whole[..whole.len() / 2]).expect("cut short");

    let (code, out) = host.inbox_with(&reply, &[]);
    assert_eq!(code, Some(75), "{out}");
    assert!(out.contains("cannot be read as a game file"), "{out}");
    assert!(
        !host.games().join("unmatched.mail").exists(),
        "nothing is filed as matching no game"
    );

    std::fs::write(host.file(), &whole).expect("mended");
    let report = host.inbox(&reply);
    assert!(report.starts_with("applied"), "{report}");
    assert_eq!(host.view()["turn"], 1);
}

/// The names of the files in a Maildir's `cur/`, sorted.
fn filed_in(maildir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(maildir.join("cur"))
        .expect("cur")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
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

/// A Maildir is handled in the order messages arrived, not in the order of their
/// names: a player's `moves` sent a second after their move is answered for the
/// position after it.
#[test]
fn maildir_messages_are_handled_in_the_order_they_arrived() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let from = address(&player);
    let notice = host.notice_for(&from);
    let maildir = host.maildir();
    // Names as two delivery programs write them: the later one sorts first.
    deliver_at(
        &maildir,
        "1764000002.M512P901.mx",
        &gmail_reply(&notice, &from, &text, "order-move"),
        1_764_000_002,
    );
    deliver_at(
        &maildir,
        "1764000001.R9f3a.mx",
        &gmail_reply(&notice, &from, "moves", "order-moves"),
        1_764_000_003,
    );
    let output = host
        .inbox_maildir()
        .stdout(Stdio::piped())
        .output()
        .expect("runs");
    assert!(output.status.success());
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    let handled: Vec<&str> = report.lines().collect();
    assert!(
        handled[0].starts_with("1764000002.M512P901.mx: applied")
            && handled[1].starts_with("1764000001.R9f3a.mx: moves"),
        "{report}"
    );
    let index = host.archive_index();
    let outcomes: Vec<&str> = index
        .lines()
        .map(|line| {
            if line.contains("\"applied\"") {
                "applied"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(outcomes, ["applied", "other"], "{index}");
}

/// A fault with one game's message (its file cannot be read) holds back that game's
/// messages only: another game's move in the same Maildir is applied, the run exits 75,
/// and the held messages are handled, in order, once the file is mended.
#[test]
fn a_fault_with_one_game_holds_back_only_that_games_mail() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let from = address(&player);
    let notice = host.notice_for(&from);
    let maildir = host.maildir();
    let broken = host.games().join("broken.json");
    std::fs::write(
        &broken,
        "{\"format\": \"pbem.game/3\", \"genesis\": {\"id\"",
    )
    .expect("write");
    let stray = |id: &str| {
        format!(
            "From: Carol <carol@example.net>\r\nTo: referee@pbem.example\r\n\
Subject: [pbem row-0badf11e] {id}\r\nMessage-ID: <{id}@example.net>\r\n\r\npass\r\n"
        )
    };
    deliver_at(&maildir, "1.held-first", &stray("held-1"), 1_764_000_001);
    deliver_at(
        &maildir,
        "2.move",
        &gmail_reply(&notice, &from, &text, "free-move"),
        1_764_000_002,
    );
    deliver_at(&maildir, "3.held-second", &stray("held-2"), 1_764_000_003);

    let output = host
        .inbox_maildir()
        .stderr(Stdio::piped())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(75));
    assert!(String::from_utf8_lossy(&output.stderr).contains("broken.json"));
    assert_eq!(host.view()["turn"], 1, "the other game's move is applied");
    let mut claimed = filed_in(&maildir);
    claimed.retain(|name| name.ends_with(".processing"));
    assert_eq!(
        claimed,
        ["1.held-first.processing", "3.held-second.processing"]
    );
    assert!(!host.games().join("unmatched.mail").exists());

    std::fs::remove_file(&broken).expect("mended by moving it away");
    assert!(host.inbox_maildir().status().expect("runs").success());
    let index =
        std::fs::read_to_string(host.games().join("unmatched.mail/index.jsonl")).expect("kept");
    let first = index.find("held-1@").expect("first kept");
    let second = index.find("held-2@").expect("second kept");
    assert!(first < second, "{index}");
    // Mail for no game is the referee's to read: filed unread, mail for a game seen.
    let filed = filed_in(&maildir);
    assert_eq!(filed, ["1.held-first:2,", "2.move:2,S", "3.held-second:2,"]);
}

/// A run killed once a move's mail is committed, before the waits are written, still
/// leaves every player their notice: the next player's wait starts from their own
/// notice, and after their move the first player is told it is their turn again, with
/// a reply code, rather than "a move was made".
#[test]
fn a_run_killed_between_the_mail_and_the_waits_leaves_no_player_untold() {
    if !cfg!(debug_assertions) {
        eprintln!("skipped: crash points exist in debug builds only");
        return;
    }
    for point in ["after-game-write", "after-mail-commit"] {
        let host = Host::new();
        host.start_game();
        let (first, text) = host.first_move();
        let first_address = address(&first);
        let reply = gmail_reply(
            &host.notice_for(&first_address),
            &first_address,
            &text,
            "killed-1",
        );
        let (code, out) = host.inbox_with(&reply, &[("PBEM_CRASH_AT", point)]);
        assert_ne!(code, Some(0), "{point}: the run was stopped: {out}");
        assert_eq!(host.view()["turn"], 1, "{point}: the move is in the file");

        // The mail server delivers the message again.
        let report = host.inbox(&reply);
        assert!(report.starts_with("applied"), "{point}: {report}");
        let second = host.view()["to_move"][0]
            .as_str()
            .expect("second")
            .to_string();
        let second_address = address(&second);
        let waits: Value = serde_json::from_slice(
            &std::fs::read(host.games().join("game.json.mail/waiting.json")).expect("waits"),
        )
        .expect("json");
        let seats = waits["seats"].as_object().expect("seats");
        assert_eq!(
            seats.len(),
            1,
            "{point}: only {second} is waited for: {waits}"
        );
        assert_eq!(
            seats.values().next().expect("a wait")["turn"],
            2,
            "{point}: {waits}"
        );

        let before = host.mails().len();
        let text = host.legal(&second)[0].clone();
        let report = host.inbox(&gmail_reply(
            &host.notice_for(&second_address),
            &second_address,
            &text,
            "killed-2",
        ));
        assert!(report.starts_with("applied"), "{point}: {report}");
        let told = host.mails_since(before);
        let notice = told
            .iter()
            .find(|m| m.to == first_address)
            .expect("the first player is told");
        assert!(
            notice.subject.contains("your move"),
            "{point}: {first} gets their turn notice, not {:?}",
            notice.subject
        );
    }
}

/// A message proven by its player's token and delivered again under a new Message-ID
/// (a forwarder, a mail server's retry) is the same message: it is not applied again
/// as the player's next move, whose turn it was never written for.
#[test]
fn a_token_message_delivered_again_under_a_new_id_is_not_a_new_move() {
    let host = Host::new();
    host.start_game();
    let tag = host.tag();
    let (first, text) = host.first_move();
    let first_address = address(&first);
    let raw = token_message(
        &tag,
        &token_of(&host, &first_address),
        &first_address,
        &text,
        "once-1",
    );
    assert!(host.inbox(&raw).starts_with("applied"));
    let (second, reply) = host.first_move();
    let second_address = address(&second);
    let report = host.inbox(&gmail_reply(
        &host.notice_for(&second_address),
        &second_address,
        &reply,
        "once-2",
    ));
    assert!(report.starts_with("applied"), "{report}");
    assert_eq!(host.view()["to_move"][0], first.as_str());

    let before = host.mails().len();
    let copy = raw.replace("<once-1@", "<once-1-resent@");
    let report = host.inbox(&copy);
    assert!(report.starts_with("duplicate"), "{report}");
    assert!(report.contains("once-1@"), "names the first copy: {report}");
    assert_eq!(host.view()["turn"], 2, "nothing applied");
    assert_eq!(host.mails().len(), before, "its sender had their answer");
    // The copy is archived too: delivered yet again, it is known by its own id.
    assert!(host.archive_index().contains("once-1-resent@"));
    assert!(host.inbox(&copy).starts_with("duplicate"));

    // A new message with the same words, written later, is a new move.
    let later = token_message(
        &tag,
        &token_of(&host, &first_address),
        &first_address,
        &text,
        "once-3",
    );
    assert!(!host.inbox(&later).starts_with("duplicate"));
}

/// A player's reply longer than pbem reads (a move with a photo attached) is answered:
/// what the limit is and to send the move alone. Nothing changes in the game.
#[test]
fn a_reply_too_long_to_read_is_answered_with_the_limit() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let from = address(&player);
    let notice = host.notice_for(&from);
    let reply = gmail_reply(&notice, &from, &text, "photo-1");
    // The same reply with a 5 MiB photo attached, as a client sends it.
    let boundary = "000000000000photo";
    let (head, body) = reply.split_once("\r\n\r\n").expect("a header");
    let head = head.replace(
        "Content-Type: multipart/alternative; boundary=\"000000000000b1\"",
        &format!("Content-Type: multipart/mixed; boundary=\"{boundary}\""),
    );
    // About 5 MiB of picture, which base64 makes about 7 MiB.
    let photo = "/9j/4AAQSkZJRgABAQEASABIAAD".repeat(7 * 1024 * 1024 / 27);
    let photo: String = photo
        .as_bytes()
        .chunks(76)
        .map(|line| format!("{}\r\n", String::from_utf8_lossy(line)))
        .collect();
    let raw = format!(
        "{head}\r\n\r\n--{boundary}\r\nContent-Type: multipart/alternative; boundary=\"000000000000b1\"\r\n\r\n{body}\r\n\
--{boundary}\r\nContent-Type: image/jpeg; name=\"board.jpg\"\r\nContent-Disposition: attachment; filename=\"board.jpg\"\r\n\
Content-Transfer-Encoding: base64\r\n\r\n{photo}--{boundary}--\r\n"
    );
    assert!(raw.len() > 5 * 1024 * 1024);
    let before = host.file_bytes();
    let sent = host.mails().len();

    let report = host.inbox(&raw);
    assert!(report.starts_with("too-large"), "{report}");
    assert_eq!(host.file_bytes(), before, "nothing changed");
    let answers = host.mails_since(sent);
    assert_eq!(answers.len(), 1, "{answers:?}");
    let answer = &answers[0];
    assert_eq!(answer.to, from);
    assert!(
        answer.subject.contains("Message too long"),
        "{}",
        answer.subject
    );
    let text_of_answer = answer.text.replace('\n', " ");
    assert!(text_of_answer.contains("4 MiB"), "{}", answer.text);
    assert!(
        text_of_answer.contains("Send your move alone"),
        "{}",
        answer.text
    );
    // The answer carries the reply code: replying to it with the move alone works.
    let report = host.inbox(&gmail_reply(answer, &from, &text, "photo-2"));
    assert!(report.starts_with("applied"), "{report}");
    // The archive keeps the start of the long message, not all of it.
    let kept: u64 = std::fs::read_dir(host.games().join("game.json.mail"))
        .expect("archive")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("too-large"))
        .map(|e| e.metadata().expect("meta").len())
        .sum();
    assert!(kept > 0 && kept <= 256 * 1024, "{kept}");
}

/// Mail only the referee should read (a stranger's, a bounce) is not filed silently:
/// the referee hears of it in one short message a day at most, which names each
/// message and quotes none of it, and which, come back to the mailbox pbem reads,
/// is filed as pbem's own and starts no loop.
#[test]
fn the_referee_hears_once_a_day_of_mail_that_matches_no_game() {
    let host = Host::new();
    host.start_game();
    let referee = "referee@pbem.example";
    let day = 1_795_600_000u64;
    let at = |seconds: u64| seconds.to_string();
    let for_referee = |host: &Host| -> Vec<Mail> {
        host.mails()
            .into_iter()
            .filter(|m| m.to == referee)
            .collect()
    };
    let bounce = "From: MAILER-DAEMON@mx.example.org (Mail Delivery System)\r\nTo: referee@pbem.example\r\n\
Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <bounce-1@mx.example.org>\r\n\
Auto-Submitted: auto-replied\r\n\r\nI'm sorry to have to inform you that your message could not be delivered.\r\n";
    let (code, out) = host.inbox_with(bounce, &[("PBEM_NOW", &at(day))]);
    assert_eq!(code, Some(0), "{out}");
    let told = for_referee(&host);
    assert_eq!(
        told.len(),
        1,
        "{:?}",
        told.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    assert!(
        told[0].text.contains("mailer-daemon@mx.example.org"),
        "{}",
        told[0].text
    );
    assert!(told[0].text.contains("Undelivered Mail Returned to Sender"));
    assert!(told[0].text.contains("unmatched.mail/"), "{}", told[0].text);
    assert!(
        !told[0].text.contains("sorry to have to inform"),
        "no words of it"
    );

    // A stranger's mail the same day waits for the next message; its subject's
    // encoded line breaks stay on one line.
    let stranger = "From: Mallory <mallory@example.net>\r\nTo: referee@pbem.example\r\n\
Subject: =?utf-8?b?aGVsbG8NCg0KWW91ciBtb3ZlIFdBUyBhcHBsaWVk?=\r\nMessage-ID: <stranger-1@example.net>\r\n\r\nbuy now\r\n";
    let (code, _) = host.inbox_with(stranger, &[("PBEM_NOW", &at(day + 3600))]);
    assert_eq!(code, Some(0));
    assert_eq!(for_referee(&host).len(), 1, "at most once a day");

    // The next day's cron run tells of it.
    let (ok, out) = host.run(
        host.pbem()
            .env("PBEM_NOW", at(day + 86_400 + 60))
            .args(["remind", "--after", "3d", "--games"])
            .arg(host.games()),
    );
    assert!(ok, "{out}");
    let told = for_referee(&host);
    assert_eq!(told.len(), 2);
    let text = &told[1].text;
    assert!(text.contains("mallory@example.net"), "{text}");
    assert!(!text.contains("mailer-daemon"), "told once: {text}");
    assert!(
        text.lines()
            .any(|line| line.contains("Subject: hello Your move WAS applied")),
        "{text}"
    );
    assert!(
        !text.lines().any(|line| line.starts_with("Your move")),
        "{text}"
    );

    // The referee's address is the mailbox pbem reads: its own message comes back.
    let (code, out) = host.inbox_with(&told[1].raw, &[("PBEM_NOW", &at(day + 3 * 86_400))]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("own"), "{out}");
    let (ok, _) = host.run(
        host.pbem()
            .env("PBEM_NOW", at(day + 4 * 86_400))
            .args(["remind", "--after", "3d", "--games"])
            .arg(host.games()),
    );
    assert!(ok);
    assert_eq!(for_referee(&host).len(), 2, "nothing new to tell: no loop");
}

/// A player's question gets a useful answer: by reply in their game, where it stands
/// (and that it is passed on); written afresh naming no game, where each of their
/// games stands, once a day. Neither is taken for a move.
#[test]
fn a_players_question_is_answered_with_where_the_game_stands() {
    let host = Host::new();
    host.start_game();
    let (first, _) = host.first_move();
    let (second, _) = {
        let view = host.view();
        let names: Vec<String> = view["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| p["name"].as_str().expect("name").to_string())
            .collect();
        let other = names.into_iter().find(|n| *n != first).expect("another");
        (other, ())
    };
    let second_address = address(&second);
    let notice = host
        .mails()
        .into_iter()
        .find(|m| m.to == second_address && m.subject.contains("Welcome"))
        .expect("a welcome");
    let before = host.mails().len();
    let report = host.inbox(&gmail_reply(
        &notice,
        &second_address,
        "Is it my turn soon?",
        "asked-1",
    ));
    assert!(report.starts_with("question"), "{report}");
    assert_eq!(host.view()["turn"], 0, "no move");
    let answers: Vec<Mail> = host
        .mails_since(before)
        .into_iter()
        .filter(|m| m.to == second_address)
        .collect();
    assert_eq!(answers.len(), 1);
    let text = answers[0].text.replace('\n', " ");
    assert!(text.contains(&format!("{first} to move")), "{text}");
    assert!(text.contains("as soon as it is your turn"), "{text}");

    // Written afresh, naming no game.
    let fresh = format!(
        "From: {second} <{second_address}>\r\nTo: referee@pbem.example\r\nSubject: hello\r\n\
Message-ID: <asked-2@example.org>\r\nDate: Mon, 23 Nov 2026 11:00:00 +0000\r\n\r\nwhen do we play?\r\n"
    );
    let before = host.mails().len();
    let report = host.inbox(&fresh);
    assert!(report.starts_with("status"), "{report}");
    let answers = host.mails_since(before);
    let answer = answers
        .iter()
        .find(|m| m.to == second_address)
        .expect("answered");
    assert!(answer.text.contains(&host.tag()), "{}", answer.text);
    assert!(
        answer.text.contains(&format!("{first} to move")),
        "{}",
        answer.text
    );
    assert!(
        !answer.subject.contains("(ref "),
        "no reply code for an unproven sender"
    );
    // Once a day.
    let again = fresh.replace("asked-2@", "asked-3@");
    assert!(host.inbox(&again).starts_with("no-game"));
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
        assert!(ok, "{out}");
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

/// A message the server refuses for good (550) is set aside, the referee told
/// once, and the mail behind it goes out; `outbox flush` then exits 0.
#[test]
fn mail_refused_for_good_is_set_aside_and_the_rest_goes_out() {
    let mut host = Host::refusing(&["dead@example.org", "stranger@example.net"]);
    host.start_game_with_a_dead_address();
    let (ok, out, err) = host.run_apart(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok, "nothing waits behind the refused mail: {out}{err}");
    assert!(err.contains("refused for good"), "{err}");
    assert!(err.contains("dead@example.org"), "{err}");
    let mails = host.mails();
    assert!(
        mails
            .iter()
            .any(|m| m.to == "ann@example.org" && m.subject.contains("Welcome")),
        "Ann got her welcome: {:?}",
        mails
            .iter()
            .map(|m| (&m.to, &m.subject))
            .collect::<Vec<_>>()
    );
    let refused = host.outbox_list();
    assert!(!refused.is_empty());
    for entry in &refused {
        assert_eq!(entry["state"], "refused", "{entry}");
        assert_eq!(
            entry["to"],
            serde_json::json!(["dead@example.org"]),
            "{entry}"
        );
        assert!(
            entry["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("550") && r.contains("User unknown")),
            "{entry}"
        );
        for key in ["game", "id", "subject", "since"] {
            assert!(entry[key].is_string(), "{key}: {entry}");
        }
    }
    let told: Vec<Mail> = host
        .mails()
        .into_iter()
        .filter(|m| m.to == "referee@pbem.example")
        .collect();
    assert_eq!(told.len(), refused.len(), "one notice per refused message");
    let welcome = refused
        .iter()
        .find(|e| e["subject"].as_str().is_some_and(|s| s.contains("Welcome")))
        .expect("Dan's welcome was refused");
    let id = welcome["id"].as_str().expect("id");
    let notice = told
        .iter()
        .find(|m| m.text.contains(id))
        .expect("the notice of the welcome");
    assert!(
        notice.subject.contains("dead@example.org"),
        "{}",
        notice.subject
    );
    assert!(
        !notice.subject.contains("[pbem"),
        "mail for no game: {}",
        notice.subject
    );
    assert!(notice.text.contains("User unknown"), "{}", notice.text);
    assert!(notice.text.contains("pbem outbox retry"), "{}", notice.text);
    assert!(
        !notice.text.contains("pbem-token"),
        "never the refused message's body: {}",
        notice.text
    );

    // Nothing to do: nothing said, nobody told again.
    let delivered = host.mails().len();
    let (ok, out, err) = host.run_apart(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok && out.is_empty() && err.is_empty(), "{out}{err}");
    assert_eq!(host.mails().len(), delivered);

    // A reply to a stranger, sent behind the handling of their message, is set aside
    // too, and `inbox` says so.
    let stray = format!(
        "From: Eve <stranger@example.net>\r\nTo: referee@pbem.example\r\n\
Subject: {} my move\r\nMessage-ID: <stray-17@example.net>\r\n\r\npass\r\n",
        host.tag()
    );
    let (code, out) = host.inbox_with(&stray, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("not-a-player"), "{out}");
    assert!(
        out.contains("stranger@example.net refused for good"),
        "{out}"
    );
    // And a move mailed with `apply --mail`: its notice to Dan is set aside, Ann's goes.
    let (player, text) = host.first_move();
    let before = host.mails().len();
    let (ok, out, err) = host.run_apart(
        host.pbem()
            .arg("apply")
            .arg(host.file())
            .args(["--player", &player, "--move", &text, "--mail"]),
    );
    assert!(ok, "{out}{err}");
    assert!(err.contains("dead@example.org refused for good"), "{err}");
    assert!(
        host.mails_since(before)
            .iter()
            .any(|m| m.to == "ann@example.org"),
        "Ann got the notice of the move"
    );
    let listed = host.outbox_list();
    assert!(listed.iter().all(|e| e["state"] == "refused"), "{listed:?}");
    let told: Vec<Mail> = host
        .mails()
        .into_iter()
        .filter(|m| m.to == "referee@pbem.example")
        .collect();
    assert_eq!(told.len(), listed.len(), "one notice per refused message");
    // The reply codes in the subjects of Dan's refused notices stay Dan's: neither
    // listed nor told.
    let codes: Vec<String> = host
        .outbox_files()
        .iter()
        .filter(|(name, _)| name.ends_with(".refused"))
        .filter_map(|(_, bytes)| {
            let aside: Value = serde_json::from_slice(bytes).expect("json");
            let message = aside["message"].as_str()?.to_string();
            let rest = message.split("(ref ").nth(1)?;
            Some(rest.split(')').next()?.to_string())
        })
        .collect();
    assert!(!codes.is_empty(), "{listed:?}");
    assert!(
        listed
            .iter()
            .filter_map(|e| e["subject"].as_str())
            .any(|s| s.contains("(ref (hidden))")),
        "{listed:?}"
    );
    let shown = serde_json::to_string(&listed).expect("json");
    for code in &codes {
        assert!(!shown.contains(code.as_str()), "{code} listed: {shown}");
    }
    for mail in &told {
        for code in &codes {
            assert!(
                !mail.raw.contains(code.as_str()),
                "{code} in {}\n{}",
                mail.subject,
                mail.text
            );
        }
    }
}

/// `outbox drop` removes exactly the messages named, and refuses an unknown
/// one, naming those there are, with the outbox left as it was.
#[test]
fn outbox_drop_removes_exactly_the_named_message() {
    let mut host = Host::new();
    host.smtp.stop();
    host.start_game();
    let listed = host.outbox_list();
    let ids: Vec<String> = listed
        .iter()
        .map(|e| e["id"].as_str().expect("id").to_string())
        .collect();
    assert_eq!(
        ids.len(),
        3,
        "two welcomes and a turn notice wait: {listed:?}"
    );
    assert!(listed.iter().all(|e| e["state"] == "waiting"));
    let before = host.outbox_files();
    let (ok, out, err) = host.run_apart(
        host.pbem()
            .args(["outbox", "drop"])
            .arg(host.file())
            .args([ids[0].as_str(), "00000000-000099.mail"]),
    );
    assert!(!ok, "{out}");
    assert!(err.contains("00000000-000099.mail"), "{err}");
    for id in &ids {
        assert!(err.contains(id.as_str()), "lists what there is: {err}");
    }
    assert_eq!(host.outbox_files(), before, "nothing dropped");
    let (ok, out, err) = host.run_apart(
        host.pbem()
            .args(["outbox", "drop"])
            .arg(host.file())
            .arg(&ids[1]),
    );
    assert!(ok, "{out}{err}");
    let after = host.outbox_files();
    let kept: Vec<_> = before
        .into_iter()
        .filter(|(name, _)| *name != ids[1])
        .collect();
    assert_eq!(after, kept, "only {} went", ids[1]);
    host.smtp.resume();
    let (ok, out) = host.run(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok, "{out}");
    assert_eq!(host.mails().len(), 2);
}

/// Cron mails whatever a run prints, to the Maildir `inbox` reads. Runs that
/// did nothing print nothing, and mail for no game (cron's own report) is filed without
/// a word; runs that did something say what.
#[test]
fn runs_that_did_nothing_print_nothing() {
    let host = Host::new();
    host.start_game();
    let maildir = host.maildir();
    let quiet = |command: &mut Command, what: &str| {
        let (ok, out, err) = host.run_apart(command);
        assert!(ok, "{what}: {out}{err}");
        assert!(out.is_empty() && err.is_empty(), "{what} said: {out}{err}");
    };
    let inbox = || {
        let mut command = host.pbem();
        command
            .args(["inbox", "--games"])
            .arg(host.games())
            .arg("--maildir")
            .arg(&maildir);
        command
    };
    quiet(&mut inbox(), "inbox with no new mail");
    quiet(
        host.pbem().args(["outbox", "flush"]).arg(host.file()),
        "flush with nothing to send",
    );
    quiet(
        host.pbem()
            .args(["outbox", "flush", "--games"])
            .arg(host.games()),
        "flush of a folder with nothing to send",
    );
    quiet(
        host.pbem()
            .args(["remind", "--after", "3d", "--games"])
            .arg(host.games()),
        "remind with nobody to remind",
    );
    // Cron's report of a run: mail for no game, filed without a word.
    std::fs::write(
        maildir.join("new/1.cron"),
        "From: Cron Daemon <root@pbem.example>\r\nTo: referee@pbem.example\r\n\
Subject: Cron <ref@host> pbem inbox\r\nMessage-ID: <cron-1@pbem.example>\r\n\r\n\
1.move: applied: turn 1\r\n",
    )
    .expect("write");
    quiet(&mut inbox(), "inbox with only cron's report");
    assert_eq!(
        std::fs::read_dir(maildir.join("new")).expect("new").count(),
        0
    );

    // A run that did something says so.
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    std::fs::write(
        maildir.join("new/2.move"),
        gmail_reply(&notice, &address(&player), &text, "quiet-1"),
    )
    .expect("write");
    let (ok, out, _) = host.run_apart(&mut inbox());
    assert!(ok, "{out}");
    assert!(out.contains("2.move: applied"), "{out}");
    assert!(out.contains("1 message(s) processed"), "{out}");
}

/// A flush that sent something, or leaves something waiting, says so.
#[test]
fn a_flush_that_sent_says_so() {
    let mut host = Host::new();
    host.smtp.stop();
    host.start_game();
    let (ok, out, _) = host.run_apart(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(!ok, "mail waits: {out}");
    assert!(out.contains("0 sent, 3 waiting"), "{out}");
    host.smtp.resume();
    let (ok, out, err) = host.run_apart(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok, "{out}{err}");
    assert!(out.contains("3 sent, 0 waiting"), "{out}");
    assert!(err.is_empty(), "{err}");
}

/// A recipient refused for good is left out and the others get the message; a
/// refused sender is about every message, so it stops the sending instead.
#[test]
fn a_refused_recipient_is_left_out_and_a_refused_sender_stops() {
    use pbem::mail::outbound::transport::Transport;
    use pbem::mail::MailError;
    let host = Host::refusing(&["dead@example.org", "referee@pbem.example"]);
    let transport = Transport::parse(&host.smtp.url()).expect("valid");
    let message = "From: referee@pbem.example\r\nSubject: [pbem row-1] hello\r\n\r\nhello\r\n";
    let to = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let error = transport
        .send_raw(
            "ref@pbem.example",
            &to(&["ann@example.org", "dead@example.org"]),
            message.as_bytes(),
        )
        .expect_err("one refused");
    match &error {
        MailError::Refused {
            recipients, answer, ..
        } => {
            assert_eq!(recipients, &to(&["dead@example.org"]));
            assert!(answer.starts_with("550 5.1.1"), "{answer}");
        }
        other => panic!("{other}"),
    }
    let mails = host.mails();
    assert_eq!(mails.len(), 1, "Ann got it");
    assert!(mails[0].raw.contains("hello"));
    let error = transport
        .send_raw(
            "referee@pbem.example",
            &to(&["ann@example.org"]),
            message.as_bytes(),
        )
        .expect_err("sender refused");
    assert!(
        matches!(&error, MailError::Send { error, .. } if error.contains("553")),
        "{error}"
    );
    assert_eq!(host.mails().len(), 1);
}

/// The README's referee set-up, run by cron for a week: `inbox --maildir`, `outbox
/// flush` and `remind` on the README's lines, cron mailing whatever a run prints into
/// the very Maildir `inbox` reads, and the referee's own mail (the daily message,
/// notices of refused mail) landing there too. Moves come in for three days, then
/// nothing: the mail dies down instead of feeding itself.
#[test]
fn a_week_of_the_readmes_cron_lines_makes_no_mail_loop() {
    let host = Host::new();
    host.start_game();
    let maildir = host.maildir();
    let start = 1_795_600_000u64;
    let mut arrived = 0u64;
    let mut deliver = |raw: &str, now: u64| {
        arrived += 1;
        deliver_at(&maildir, &format!("{now}.M{arrived}.mx"), raw, now);
    };
    // Mail the SMTP server took for the referee goes to the referee's Maildir.
    let mut forwarded = std::collections::BTreeSet::new();
    let mut cron_mails: Vec<u64> = Vec::new();
    let mut moves_sent = 0;
    for hour in 0..7 * 24u64 {
        let now = start + hour * 3600;
        if hour < 72 && hour % 6 == 2 {
            let (player, text) = host.first_move();
            let from = address(&player);
            let reply = gmail_reply(&host.notice_for(&from), &from, &text, &format!("w{hour}"));
            deliver(&reply, now);
            moves_sent += 1;
        }
        if hour == 30 {
            deliver(
                "From: Mallory <mallory@example.net>\r\nTo: referee@pbem.example\r\n\
Subject: cheap watches\r\nMessage-ID: <spam-30@example.net>\r\n\r\nbuy now\r\n",
                now,
            );
        }
        let mut runs = vec![
            vec!["inbox", "--maildir", "MAILDIR", "--games", "GAMES"],
            vec!["outbox", "flush", "--games", "GAMES"],
        ];
        if hour % 24 == 9 {
            runs.push(vec![
                "remind", "--games", "GAMES", "--after", "3d", "--limit", "14d", "--then", "wait",
            ]);
        }
        for args in runs {
            let mut command = host.pbem();
            command.env("PBEM_NOW", now.to_string());
            for arg in args {
                match arg {
                    "MAILDIR" => command.arg(&maildir),
                    "GAMES" => command.arg(host.games()),
                    word => command.arg(word),
                };
            }
            let output = command.output().expect("runs");
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            if !printed.is_empty() {
                // What cron does with a job's output: mails it to the crontab's owner.
                cron_mails.push(hour);
                let cron = format!(
                    "From: root@referee.example (Cron Daemon)\r\nTo: ref@referee.example\r\n\
Subject: Cron <ref@referee> pbem {hour}\r\nMessage-ID: <cron-{hour}-{}@referee.example>\r\n\
Auto-Submitted: auto-generated\r\n\r\n{printed}",
                    cron_mails.len()
                );
                deliver(&cron, now + 1);
            }
            for mail in host.mails() {
                if mail.to == "referee@pbem.example" && forwarded.insert(mail.message_id.clone()) {
                    deliver(&mail.raw, now + 2);
                }
            }
        }
    }
    assert_eq!(host.view()["turn"], moves_sent, "every move applied, once");
    // Each cron mail reports something that happened: a move, a reminder, the day's
    // message; none reports another cron mail.
    let last_day = cron_mails.iter().filter(|&&hour| hour >= 6 * 24).count();
    assert!(
        cron_mails.len() as u64 <= 2 * moves_sent + 8 && last_day <= 2,
        "cron mailed at hours {cron_mails:?}"
    );
    let referee_mails = host
        .mails()
        .iter()
        .filter(|m| m.to == "referee@pbem.example")
        .count();
    assert!(
        referee_mails <= 8,
        "{referee_mails} mails to the referee in a week"
    );
    eprintln!(
        "a week of cron: {moves_sent} moves, cron mailed at hours {cron_mails:?}, {referee_mails} mails to the referee"
    );
}

/// `pbem watch --once` is one round of what the cron lines do: a Maildir move applied
/// and its notices sent, then nothing said by a round with nothing to do (cron mails
/// what a run prints). A long-running `pbem watch --maildir` polls, takes a move
/// delivered while it runs, refuses to run twice for one folder, and stops on SIGTERM.
#[test]
fn watch_on_a_maildir_does_what_the_cron_lines_do() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let from = address(&player);
    let notice = host.notice_for(&from);
    let maildir = host.maildir();
    deliver_at(
        &maildir,
        "1764000001.M1P1.mx",
        &gmail_reply(&notice, &from, &text, "watch-once"),
        1_764_000_001,
    );
    let once = |host: &Host| {
        host.pbem()
            .args(["watch", "--once", "--games"])
            .arg(host.games())
            .arg("--maildir")
            .arg(&maildir)
            .output()
            .expect("runs")
    };
    let output = once(&host);
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{said}");
    assert!(said.contains(": applied: turn 1:"), "{said}");
    assert_eq!(host.view()["head"]["turn"], 1);
    let output = once(&host);
    assert!(output.status.success());
    assert!(
        output.stdout.is_empty() && output.stderr.is_empty(),
        "{output:?}"
    );

    let log = host.dir.path().join("watch.log");
    let mut watch = host
        .pbem()
        .args(["watch", "--poll", "1s", "--games"])
        .arg(host.games())
        .arg("--maildir")
        .arg(&maildir)
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .map(super::support::KillOnDrop)
        .expect("runs");
    // The watch holds its folder once it says it is watching.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("watching")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the watch did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = once(&host);
    assert!(!second.status.success());
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("another pbem watch is running"),
        "{second:?}"
    );
    let view = host.view();
    let next = super::support::to_move(&view);
    let next_from = address(&next);
    let next_notice = host.notice_for(&next_from);
    let next_move = host.legal(&next)[0].clone();
    deliver_at(
        &maildir,
        "1764000002.M2P2.mx",
        &gmail_reply(&next_notice, &next_from, &next_move, "watch-poll"),
        1_764_000_002,
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while host.view()["head"]["turn"] != 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: kill has no preconditions; a process already gone is harmless.
    unsafe {
        libc::kill(watch.id() as i32, libc::SIGTERM);
    }
    let status = watch.wait().expect("waits");
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success(), "{status}: {said}");
    assert!(said.contains(": applied: turn 2:"), "{said}");
    assert!(said.trim_end().ends_with("stopped"), "{said}");
}

/// `pbem watch` reminds and applies the deadline from `[deadlines]` in config.toml,
/// as `pbem remind --after 3d --limit 14d --then forfeit` does from cron.
#[test]
fn watch_applies_the_deadlines_of_the_config() {
    let host = Host::new();
    host.start_game();
    let player = super::support::to_move(&host.view());
    std::fs::write(
        host.dir.path().join("keyring/config.toml"),
        "[deadlines]\nafter = \"3d\"\nlimit = \"14d\"\nthen = \"forfeit\"\n",
    )
    .expect("config.toml");
    let maildir = host.maildir();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_secs();
    let round = |at: u64| {
        let output = host
            .pbem()
            .env("PBEM_NOW", at.to_string())
            .args(["watch", "--once", "--games"])
            .arg(host.games())
            .arg("--maildir")
            .arg(&maildir)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    assert_eq!(round(now + 86_400), "", "nobody to remind yet");
    let said = round(now + 4 * 86_400);
    assert!(
        said.contains("deadlines: ") && said.contains(&format!("reminded {player}")),
        "{said}"
    );
    assert!(host
        .mails()
        .iter()
        .any(|m| m.subject.contains("Reminder") && m.to == address(&player)));
    let said = round(now + 15 * 86_400);
    assert!(said.contains("deadlines: "), "{said}");
    assert_eq!(host.view()["over"], true, "{said}");
}

/// The board's picture (a PNG, `image/png` with a Content-ID) in `mail`, if any; the
/// HTML part must show it by that Content-ID and the text part name it.
fn picture_of(mail: &Mail) -> Option<Vec<u8>> {
    let message = MessageParser::default()
        .parse(mail.raw.as_bytes())
        .expect("a message");
    let part = message
        .parts
        .iter()
        .find(|part| part.is_content_type("image", "png"))?;
    let id = part.content_id().expect("the picture's Content-ID");
    let html = mail
        .html
        .as_deref()
        .expect("an HTML part beside the picture");
    assert!(html.contains(&format!("src=\"cid:{id}\"")), "{html}");
    assert!(
        squeezed(&mail.text).contains("as a picture, board.png"),
        "{}",
        mail.text
    );
    Some(part.contents().to_vec())
}

/// `pbem show --format png --as NAME` now.
fn shown_png(host: &Host, name: &str) -> Vec<u8> {
    let output = host
        .pbem()
        .arg("show")
        .arg(host.file())
        .args(["--format", "png", "--as", name])
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// Every turn notice, confirmation and the end mail carry their reader's board as a
/// picture the HTML shows and the text names, the same picture `pbem show --format
/// png --as NAME` draws; a player turns theirs off (and on) by reply, the referee a
/// whole game with `pbem pictures`, or every game in config.toml.
#[test]
fn board_mail_carries_its_readers_picture_until_turned_off() {
    let host = Host::new();
    host.start_game();
    let (first, _) = host.first_move();
    let second = if first == "Ann" { "Bob" } else { "Ann" };
    let notice = host.notice_for(&address(&first));
    assert_eq!(
        picture_of(&notice),
        Some(shown_png(&host, &first)),
        "the first notice"
    );

    // A move by reply: the mover's confirmation and the other's notice, each with the
    // board as its reader sees it.
    let reply_to = |player: &str| {
        let notice = host.notice_for(&address(player));
        let text = host.legal(player)[0].clone();
        let sent = host.mails().len();
        host.inbox(&gmail_reply(
            &notice,
            &address(player),
            &text,
            &format!("p{sent}"),
        ));
        host.mails_since(sent)
    };
    let after = reply_to(&first);
    assert_eq!(
        after.len(),
        2,
        "{:?}",
        after.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    for mail in &after {
        let reader = if mail.to == address(&first) {
            &first
        } else {
            second
        };
        assert_eq!(
            picture_of(mail),
            Some(shown_png(&host, reader)),
            "{}",
            mail.subject
        );
    }

    // The second player turns pictures off by reply: answered without a picture, and
    // their mail comes without one while the first player's still has it.
    let notice = host.notice_for(&address(second));
    let sent = host.mails().len();
    host.inbox(&gmail_reply(
        &notice,
        &address(second),
        "pictures off",
        "off1",
    ));
    let answer = host.mails_since(sent);
    assert_eq!(answer.len(), 1);
    assert!(
        answer[0].subject.contains("Pictures off"),
        "{}",
        answer[0].subject
    );
    assert!(
        squeezed(&answer[0].text).contains("text only"),
        "{}",
        answer[0].text
    );
    assert_eq!(picture_of(&answer[0]), None);
    for mail in reply_to(second) {
        if mail.to == address(second) {
            assert_eq!(picture_of(&mail), None, "{}", mail.text);
            assert!(!mail.text.contains("board.png"), "{}", mail.text);
            assert!(
                mail.text.contains("hand ("),
                "the board is in the text: {}",
                mail.text
            );
        } else {
            assert!(picture_of(&mail).is_some(), "{}", mail.subject);
        }
    }

    // The referee turns them off for the game: nobody gets one, even after asking.
    let (ok, out) = host.run(host.pbem().arg("pictures").arg(host.file()).arg("off"));
    assert!(ok, "{out}");
    let (ok, out) = host.run(
        host.pbem()
            .arg("pictures")
            .arg(host.file())
            .args(["on", "--player", second]),
    );
    assert!(ok && out.contains("off for the whole game"), "{out}");
    for mail in reply_to(&first) {
        assert_eq!(picture_of(&mail), None, "{}", mail.subject);
    }
    let (ok, out) = host.run(
        host.pbem()
            .arg("pictures")
            .arg(host.file())
            .args(["on", "--player", "Nobody"]),
    );
    assert!(!ok && out.contains("no player"), "{out}");
    let (ok, out) = host.run(host.pbem().arg("pictures").arg(host.file()).arg("on"));
    assert!(ok, "{out}");
    for mail in reply_to(second) {
        assert!(picture_of(&mail).is_some(), "{}", mail.subject);
    }

    // `pictures = false` in config.toml: none in any game.
    std::fs::write(
        host.dir.path().join("keyring/config.toml"),
        "[mail]\npictures = false\n",
    )
    .expect("config");
    for mail in reply_to(&first) {
        assert_eq!(picture_of(&mail), None, "{}", mail.subject);
    }
}

/// The turns a mail lists under "Since your last mail": each held move's number.
fn turns_held_in(mail: &Mail) -> Vec<u64> {
    let Some((_, earlier)) = mail.text.split_once("Since your last mail") else {
        return Vec::new();
    };
    earlier
        .lines()
        .filter_map(|line| line.strip_prefix("Turn "))
        .filter_map(|rest| rest.split_once(", ")?.0.parse().ok())
        .collect()
}

#[test]
fn a_daily_digest_holds_the_others_moves_until_the_next_mail_or_a_day() {
    const DAY: u64 = 86_400;
    let host = Host::new();
    let (ok, out) = host.run(
        host.pbem()
            .args(["new", "triangle-auction"])
            .args(["--player", "Ann <ann@example.org>"])
            .args(["--player", "Bob <bob@example.org>"])
            .args(["--player", "Cat <cat@example.org>"])
            .args(["--seed", SEED, "--mail", "--out"])
            .arg(host.file()),
    );
    assert!(ok, "{out}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_secs();
    let reply = |player: &str, text: &str| {
        let sent = host.mails().len();
        let report = host.inbox(&gmail_reply(
            &host.notice_for(&address(player)),
            &address(player),
            text,
            &format!("d{sent}"),
        ));
        (report, host.mails_since(sent))
    };
    let play = |player: &str| {
        let text = host.legal(player)[0].clone();
        let (report, mails) = reply(player, &text);
        assert!(report.starts_with("applied"), "{player} `{text}`: {report}");
        mails
    };
    let to = |mails: &[Mail], player: &str| -> Vec<Mail> {
        mails
            .iter()
            .filter(|m| m.to == address(player))
            .cloned()
            .collect()
    };
    let remind = |at: u64| {
        let sent = host.mails().len();
        let (ok, out) = host.run(
            host.pbem()
                .env("PBEM_NOW", at.to_string())
                .args(["remind", "--after", "30d", "--games"])
                .arg(host.games()),
        );
        assert!(ok, "{out}");
        (out, host.mails_since(sent))
    };

    // Ann and Cat ask for a digest: each is answered at once.
    for player in ["Ann", "Cat"] {
        let (report, answer) = reply(player, "digest daily");
        assert!(report.contains("digest"), "{report}");
        assert_eq!(answer.len(), 1, "{report}");
        assert!(
            answer[0].subject.contains("Digest daily"),
            "{}",
            answer[0].subject
        );
        assert!(
            squeezed(&answer[0].text).contains("digest off"),
            "{}",
            answer[0].text
        );
    }
    let (_, answer) = reply("Bob", "digest weekly");
    assert!(
        squeezed(&answer[0].text).contains("digest daily"),
        "{}",
        answer[0].text
    );

    // Turn 1 and 2: Ann and Bob choose face down while Cat is still to choose. Bob,
    // who asked for nothing, hears of Ann's at once; Cat hears of neither yet, and Ann
    // not of Bob's.
    let mails = play("Ann");
    assert!(to(&mails, "Cat").is_empty(), "{:?}", to(&mails, "Cat"));
    assert_eq!(to(&mails, "Bob").len(), 1);
    assert_eq!(
        to(&mails, "Ann").len(),
        1,
        "Ann's own move is confirmed at once"
    );
    let mails = play("Bob");
    assert!(to(&mails, "Cat").is_empty() && to(&mails, "Ann").is_empty());

    // Not a day yet: nothing. A day after the first held move: one digest each, with
    // what was held, the board and its picture, and nothing twice.
    let (out, mails) = remind(now + 3_600);
    assert!(out.is_empty() && mails.is_empty(), "{out}");
    let (out, mails) = remind(now + DAY + 60);
    assert!(out.contains("digest of 2 moves to Cat"), "{out}");
    assert!(out.contains("digest of 1 move to Ann"), "{out}");
    let cat = to(&mails, "Cat");
    assert_eq!(cat.len(), 1, "{out}");
    assert!(
        cat[0].subject.contains("Digest: 2 moves since"),
        "{}",
        cat[0].subject
    );
    assert_eq!(turns_held_in(&cat[0]), [1, 2], "{}", cat[0].text);
    assert!(
        cat[0].text.contains("Ann has chosen, face down"),
        "{}",
        cat[0].text
    );
    assert!(!cat[0].text.contains("(ref "), "a digest asks for no reply");
    assert!(picture_of(&cat[0]).is_some());
    assert_eq!(turns_held_in(&to(&mails, "Ann")[0]), [2]);
    assert!(to(&mails, "Bob").is_empty());
    let (out, mails) = remind(now + DAY + 120);
    assert!(out.is_empty() && mails.is_empty(), "{out}");

    // Then the game goes on, whoever is to move: a player on the digest never gets a
    // mail of another's move alone, and any mail they get (their turn notice, their
    // confirmation) carries every move held since their last mail, once, in order.
    // Cat gives the digest up as soon as something is held for her: told how much,
    // and the next pass sends it at once.
    let mut held: std::collections::BTreeMap<&str, Vec<u64>> =
        [("Ann", vec![]), ("Cat", vec![])].into();
    let mut carried = 0;
    for made in 3..=40 {
        let mover = host.view()["to_move"][0]
            .as_str()
            .expect("a player")
            .to_string();
        let mails = play(&mover);
        for (reader, list) in held.iter_mut() {
            let theirs = to(&mails, reader);
            if *reader == mover {
                assert_eq!(theirs.len(), 1, "{made}: {mover}'s confirmation");
            }
            for mail in &theirs {
                assert!(
                    *reader == mover || mail.subject.contains("your move"),
                    "{made}: {reader} got {}",
                    mail.subject
                );
                assert_eq!(&turns_held_in(mail), list, "{made}: {}", mail.text);
                carried += list.len();
                list.clear();
            }
            if theirs.is_empty() {
                list.push(made);
            }
        }
        if carried > 0 && held.get("Cat").is_some_and(|list| !list.is_empty()) {
            break;
        }
    }
    assert!(carried > 0, "some held move came with a later mail");
    let waiting = held.remove("Cat").expect("Cat");
    assert!(!waiting.is_empty(), "something held for Cat");
    let (report, answer) = reply("Cat", "digest off");
    assert!(report.contains("digest"), "{report}");
    assert!(
        answer[0].subject.contains("Digest off"),
        "{}",
        answer[0].subject
    );
    assert!(
        squeezed(&answer[0].text).contains(&format!("The {} move", waiting.len())),
        "{}",
        answer[0].text
    );
    let (out, mails) = remind(now);
    assert!(out.contains("to Cat"), "{out}");
    assert_eq!(turns_held_in(&to(&mails, "Cat")[0]), waiting);
    // From now on, Cat hears of each move as it happens.
    let mover = host.view()["to_move"][0]
        .as_str()
        .expect("a player")
        .to_string();
    assert_ne!(mover, "Cat");
    let mails = play(&mover);
    assert_eq!(to(&mails, "Cat").len(), 1);
    assert!(turns_held_in(&to(&mails, "Cat")[0]).is_empty());
}

/// Two people play a three-player game by mail, the third seat a built-in player's:
/// the referee makes the bot's moves as soon as it is to move (the harness asserts a
/// bot is never left to move), signed and recorded as the bot's, the people are told
/// of them like any move, nobody mails the bot, the game ends and its audit passes
/// (the harness audits the finished file).
#[test]
fn a_bot_takes_a_seat_in_a_game_by_mail() {
    for (game, bot) in [
        ("triangle-auction", "Robo <bot:greedy>"),
        ("desert-kingdom", "Robo <bot:search>"),
    ] {
        let mut told = 0;
        let mut robo_records = 0;
        let names = ["Ann", bot, "Bob"];
        let (moves, figures) = super::support::play_by_mail_as(
            game,
            &names,
            SEED,
            5,
            super::support::Pictures::Off,
            false,
            |sent| {
                assert!(
                    !sent.to.starts_with("bot:"),
                    "mail to the bot: {}",
                    sent.subject
                );
                if sent.body.contains("Robo played") || sent.body.contains("Robo has chosen") {
                    told += 1;
                }
                if sent.subject.contains("The game is over") && sent.to == "ann@example.org" {
                    let output = Command::new(assert_cmd::cargo::cargo_bin("pbem"))
                        .env("PBEM_HOME", sent.home)
                        .arg("log")
                        .arg(sent.file)
                        .output()
                        .expect("runs");
                    let log = String::from_utf8_lossy(&output.stdout).into_owned();
                    robo_records = log
                        .lines()
                        .filter(|line| line.starts_with("turn") && line.contains(" Robo "))
                        .count();
                }
            },
        );
        // Only the people got mail, and they made the moves the harness counts.
        assert_eq!(
            figures.keys().collect::<Vec<_>>(),
            ["ann@example.org", "bob@example.org"]
        );
        assert!(moves > 0);
        assert!(robo_records > 0, "{game}: Robo made no move");
        assert!(told > 0, "{game}: nobody was told of Robo's moves");
        println!("{game}: the people made {moves} moves, Robo {robo_records}; {told} notices told of Robo's");
    }
}

#[test]
fn a_bot_seat_is_refused_where_it_could_not_play() {
    let host = Host::new();
    let new = |players: &[&str], extra: &[&str]| {
        let mut command = host.pbem();
        command.args(["new", "triangle-auction"]);
        for player in players {
            command.args(["--player", player]);
        }
        command.args(extra).arg("--out").arg(host.file());
        host.run(&mut command)
    };
    let people = ["Ann <ann@example.org>", "Bob <bob@example.org>"];
    let (ok, out) = new(&[people[0], people[1], "Robo <bot:clever>"], &["--mail"]);
    assert!(!ok && out.contains("random, greedy, search"), "{out}");
    let (ok, out) = new(&[people[0], people[1], "Robo <bot:search>"], &[]);
    assert!(!ok && out.contains("--mail"), "{out}");
    let (ok, out) = new(
        &[people[0], people[1], "Robo <bot:search>"],
        &["--mail", "--join"],
    );
    assert!(!ok && out.contains("without --join"), "{out}");
    let (ok, out) = new(
        &["R1 <bot:random>", "R2 <bot:random>", "R3 <bot:greedy>"],
        &["--mail"],
    );
    assert!(!ok && out.contains("pbem simulate"), "{out}");
    assert!(!host.file().exists(), "nothing written");
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
        text
    }
}

/// The records of a game file, as JSON.
fn records_of(file: &Value) -> Vec<Value> {
    file["records"].as_array().expect("records").clone()
}

/// A bot's seat chooses its move with a stream keyed from the seed and the game, never
/// from the system: the same game, played by mail in two places to the bot's move,
/// gives the bot the same moves (so a referee could run it again and again and never
/// get another), and a new game names the bot with its version in genesis.
#[test]
fn a_bots_seat_is_named_with_its_version_and_its_move_never_changes() {
    let mut played = Vec::new();
    for _ in 0..2 {
        let host = Host::new();
        host.start_game_with_a_bot();
        let players = host.file_json()["genesis"]["players"].clone();
        assert_eq!(
            players,
            serde_json::json!([
                {"name": "Ann", "email": "ann@example.org"},
                {"name": "Robo", "email": "bot:search/1"}
            ])
        );
        host.ann_moves_by_mail();
        let records = records_of(&host.file_json());
        let players: Vec<&str> = records
            .iter()
            .map(|r| r["player"].as_str().expect("a player"))
            .collect();
        // Who starts is the setup's draw: Robo's move follows Ann's either way.
        assert!(
            players == ["Robo", "Ann", "Robo"] || players == ["Ann", "Robo"],
            "{players:?}"
        );
        assert_eq!(host.view()["to_move"], serde_json::json!(["Ann"]));
        let (ok, report) = host.run(host.pbem().arg("audit").arg(host.file()));
        assert!(
            ok && report.contains(&format!("turn {} (Robo): ok", players.len()))
                && report.contains("the bot's own move"),
            "{report}"
        );
        played.push(records);
    }
    // The whole records: the moves, their draws, hashes and signatures.
    assert_eq!(played[0], played[1]);
}

/// A referee who replaces a bot's move by another legal move of its seat, hashed and
/// signed with their key as pbem would, is caught by the audit once it has the seed
/// (the referee's keyring, or the seed revealed in the file): it names the record and
/// the move the bot would have played. Before the reveal an outsider's audit reports
/// the check as pending. The file the referee did not touch passes.
#[test]
fn a_bots_move_replaced_by_another_fails_the_audit_once_the_seed_is_known() {
    let host = Host::new();
    host.start_game_with_a_bot();
    // The game before Ann's move, beside the games folder (the referee's own copy).
    let forged = host.dir.path().join("forged.json");
    std::fs::write(&forged, host.file_bytes()).expect("copy");
    let ann = host.ann_moves_by_mail();
    let untouched = host.file_json();
    let records = records_of(&untouched);
    let bots = records.last().expect("Robo's record");
    assert_eq!(bots["player"], "Robo");
    let turn = bots["turn"].as_u64().expect("a turn");
    let bots_move = bots["move"].as_str().expect("Robo's move").to_string();
    // Robo's turns: the last, and the first too when the setup drew Robo to start.
    let robos = records
        .iter()
        .filter(|record| record["player"] == "Robo")
        .map(|record| record["turn"].to_string())
        .collect::<Vec<_>>()
        .join(", ");

    // The referee makes Ann's move again on the copy (the same record, byte for byte),
    // then another legal move for Robo.
    let apply = |player: &str, text: &str| {
        let (ok, out) = host.run(
            host.pbem()
                .arg("apply")
                .arg(&forged)
                .args(["--player", player, "--move", text]),
        );
        assert!(ok, "{out}");
    };
    apply("Ann", &ann);
    let read = |path: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
    };
    assert_eq!(records_of(&read(&forged)), records[..records.len() - 1]);
    let output = host
        .pbem()
        .arg("legal")
        .arg(&forged)
        .args(["--player", "Robo", "--format", "json"])
        .output()
        .expect("runs");
    let legal: Value = serde_json::from_slice(&output.stdout).expect("json");
    let other = legal
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|entry| entry["move"].as_str())
        .find(|text| *text != bots_move)
        .expect("another legal move")
        .to_string();
    apply("Robo", &other);
    let replaced = records_of(&read(&forged));
    assert_eq!(replaced.len(), records.len());
    assert_eq!(replaced[..records.len() - 1], records[..records.len() - 1]);
    assert_ne!(replaced.last().map(|r| &r["move"]), Some(&bots["move"]));

    let audit = |path: &Path, public: bool| {
        let mut command = host.pbem();
        command.arg("audit").arg(path);
        if public {
            command.arg("--public");
        }
        host.run(&mut command)
    };
    let caught = format!(
        "FAILED turn {turn} (Robo): it is not the move the bot search/1 makes from this position with its key: the bot would have played {bots_move:?}"
    );
    // With the referee's keyring, before the reveal.
    let (ok, report) = audit(&forged, false);
    assert!(!ok && report.contains(&caught), "{report}");
    let (ok, report) = audit(&host.file(), false);
    assert!(ok, "{report}");
    // An outsider before the reveal: pending, not failed.
    for path in [&forged, &host.file()] {
        let (ok, report) = audit(path, true);
        assert!(
            ok && report.contains("pending until the seed is revealed")
                && report.contains(&format!(
                    "the moves of bots' seats (turn {robos}) played again by their bots"
                )),
            "{report}"
        );
    }
    // Anyone, once the seed is in the file.
    for path in [&forged, &host.file()] {
        let (ok, out) = host.run(host.pbem().args(["reveal", "--force"]).arg(path));
        assert!(ok, "{out}");
    }
    let (ok, report) = audit(&forged, true);
    assert!(!ok && report.contains(&caught), "{report}");
    assert_eq!(
        report
            .lines()
            .filter(|line| line.starts_with("FAILED"))
            .count(),
        1,
        "only the bot's record fails: {report}"
    );
    let (ok, report) = audit(&host.file(), true);
    assert!(
        ok && report.contains(&format!("turn {turn} (Robo): ok"))
            && report.contains("the bot's own move"),
        "{report}"
    );
}

/// A right-of-way game between Ann and Robo, whose genesis names Robo's bot as the
/// engine records `bots` (a pbem that has them would), with Ann to move first; written
/// to the host's game file.
fn game_naming(host: &Host, bots: &[pbem::engine::players::BotId]) {
    use pbem::engine::fairness::Seed;
    use pbem::engine::keyring::Keyring;
    use pbem::engine::roster::parse_player;
    use pbem::engine::session::{Game, NewGame};
    use pbem::engine::Rules;
    use pbem::games::right_of_way::RightOfWay;
    let keyring = Keyring::at(host.dir.path().join("keyring"));
    // A seed with Ann to move first, so that the bot's turn comes after a move by mail.
    let game = (0..=u8::MAX)
        .map(|byte| {
            let request = NewGame {
                players: vec![
                    parse_player("Ann <ann@example.org>"),
                    parse_player("Robo <bot:search>"),
                ],
                seed: Some(Seed([byte; 32])),
                ..NewGame::default()
            };
            Game::<RightOfWay>::create_played(request, &keyring, bots).expect("create")
        })
        .find(|game| game.rules.to_move(&game.file.state) == [0])
        .expect("a seed with Ann first");
    std::fs::write(host.file(), game.file.to_bytes().expect("bytes")).expect("write");
}

/// A game written before bots had versions (`bot:search` in genesis, as the engine
/// writes it for a bot without one) is played as it always was: the bot moves, with
/// randomness from the system, and the audit passes, saying why it cannot play those
/// moves again.
#[test]
fn a_bot_named_without_a_version_is_played_as_before() {
    use pbem::engine::players::BotId;
    let host = Host::new();
    let before = [BotId {
        name: "search".into(),
        version: None,
    }];
    game_naming(&host, &before);
    assert_eq!(
        host.file_json()["genesis"]["players"][1]["email"],
        "bot:search"
    );
    let (ann, text) = host.first_move();
    assert_eq!(ann, "Ann");
    let (ok, out) = host.run(
        host.pbem()
            .arg("apply")
            .arg(host.file())
            .args(["--player", "Ann", "--move", &text, "--mail"]),
    );
    assert!(ok, "{out}");
    let records = records_of(&host.file_json());
    assert_eq!(records.len(), 2);
    assert_eq!(records[1]["player"], "Robo");
    let (ok, report) = host.run(host.pbem().arg("audit").arg(host.file()));
    assert!(
        ok && report.contains("Robo's seat is the bot search's: named without a version, its moves were chosen with randomness from the system"),
        "{report}"
    );
}

/// A game whose genesis names a version of a bot this pbem does not have (`search/7`,
/// from a later pbem, made here with the engine as that pbem would) still reads and
/// takes its people's moves; the referee's machine refuses to play the bot's seat,
/// saying which bots it plays, and the audit passes, saying it cannot check that
/// seat's moves.
#[test]
fn a_bot_version_this_pbem_lacks_is_refused_and_its_moves_not_checked() {
    use pbem::engine::players::BotId;
    let host = Host::new();
    let later = [BotId {
        name: "search".into(),
        version: Some(7),
    }];
    game_naming(&host, &later);
    assert_eq!(
        host.file_json()["genesis"]["players"][1]["email"],
        "bot:search/7"
    );
    let (ann, text) = host.first_move();
    assert_eq!(ann, "Ann");
    let (ok, out) = host.run(
        host.pbem()
            .arg("apply")
            .arg(host.file())
            .args(["--player", "Ann", "--move", &text, "--mail"]),
    );
    assert!(
        !ok && out.contains(
            "Robo's seat is played by bot:search/7, and this pbem does not play search/7"
        ) && out.contains("(it plays random/1, greedy/1, search/1)"),
        "{out}"
    );
    // Ann's move stands; the bot's seat waits.
    assert_eq!(records_of(&host.file_json()).len(), 1);
    assert_eq!(host.view()["to_move"], serde_json::json!(["Robo"]));
    let (ok, report) = host.run(host.pbem().arg("audit").arg(host.file()));
    assert!(
        ok && report.contains(
            "not checked by this pbem: the moves of Robo's seat against the bot search/7"
        ),
        "{report}"
    );
}
