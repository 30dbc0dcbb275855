//! A whole game hosted through a real mail server, as README's "Host a game by email"
//! says: Debian's postfix on loopback with local delivery, local users for the referee
//! and two players, the referee's `~/.forward` and crontab lines taken from README,
//! replies written as mail clients write them and submitted to postfix over SMTP, and
//! notices sent back with STARTTLS to postfix, whose certificate is signed by a CA
//! that only the system's trust store holds. A second leg switches the referee to
//! Maildir delivery read by the cron line, sending with `smtp = "sendmail"`.
//!
//! It needs root and postfix (.ci/run installs it). It changes the machine: postfix's
//! configuration (loopback only; local delivery only; nothing leaves the machine), the
//! users pbemref, pbemann and pbembob, and a test CA, limited by name constraints to
//! localhost and 127.0.0.0/8 and whose key is deleted once it has signed, in the
//! system's trust store. Without root or postfix it says "skipped" on standard error;
//! with PBEM_REQUIRE_POSTFIX=1 (.ci/run sets it as root) it fails instead.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use mail_parser::MessageParser;
use serde_json::Value;

use super::replies;

const SEED: &str = "4444444444444444444444444444444444444444444444444444444444444444";
const DOMAIN: &str = "pbem.test";
const REFEREE: &str = "pbemref";
const PLAYERS: [(&str, &str); 2] = [("Ann", "pbemann"), ("Bob", "pbembob")];
/// The test's own postfix files, beside its configuration.
const CONF_DIR: &str = "/etc/postfix/pbem-test";
const LOG: &str = "/var/log/postfix-pbem-test.log";
const MARK: &str = "# written by pbem's end-to-end test (tests/it/postfix.rs)";
/// Moves made through `.forward`; the rest of the game goes through the Maildir.
const FORWARD_TURNS: u64 = 12;
/// The longest wait for one delivery.
const WAIT: Duration = Duration::from_secs(30);

fn home(user: &str) -> PathBuf {
    Path::new("/home").join(user)
}

fn address(user: &str) -> String {
    format!("{user}@{DOMAIN}")
}

fn output_text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs a command; panics with its output (and postfix's state) when it fails.
fn run(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    let text = output_text(&output);
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{text}\n{}",
        output.status,
        diagnosis()
    );
    text
}

/// Why the test cannot run here, if it cannot.
fn cannot_run() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (it configures postfix and adds users)".into());
    }
    for tool in [
        "/usr/sbin/postfix",
        "/usr/sbin/postconf",
        "/usr/sbin/update-ca-certificates",
        "/usr/sbin/useradd",
        "/usr/sbin/runuser",
    ] {
        if !Path::new(tool).exists() {
            return Some(format!(
                "{tool} is missing (Debian: apt-get install postfix ca-certificates; .ci/run does as root)"
            ));
        }
    }
    if Command::new("openssl").arg("version").output().is_err() {
        return Some("openssl is missing (Debian: apt-get install openssl)".into());
    }
    let main_cf = std::fs::read_to_string("/etc/postfix/main.cf").unwrap_or_default();
    if !main_cf.is_empty() && !main_cf.contains(MARK) && !required() {
        return Some(
            "/etc/postfix/main.cf is this machine's own; set PBEM_REQUIRE_POSTFIX=1 to let the test replace it (it keeps a copy as main.cf.before-pbem-test)"
                .into(),
        );
    }
    None
}

fn required() -> bool {
    std::env::var("PBEM_REQUIRE_POSTFIX").is_ok_and(|v| v == "1")
}

/// postfix's log, queue and the referee's archive, for a failure's message.
fn diagnosis() -> String {
    let log = std::fs::read_to_string(LOG).unwrap_or_else(|e| format!("({LOG}: {e})"));
    let tail: Vec<&str> = log.lines().rev().take(60).collect();
    let queue = Command::new("/usr/sbin/postqueue")
        .arg("-p")
        .output()
        .map(|o| output_text(&o))
        .unwrap_or_default();
    let mut archive = String::new();
    for entry in std::fs::read_dir(home(REFEREE).join("games"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let index = entry.path().join("index.jsonl");
        if let Ok(text) = std::fs::read_to_string(&index) {
            let last: Vec<&str> = text.lines().rev().take(5).collect();
            archive.push_str(&format!("{}:\n{}\n", index.display(), last.join("\n")));
        }
        if entry.path().extension().is_some_and(|e| e == "outbox") {
            let waiting: Vec<String> = std::fs::read_dir(entry.path())
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            archive.push_str(&format!("{}: {waiting:?}\n", entry.path().display()));
        }
    }
    let mut subjects = String::new();
    for user in [REFEREE, PLAYERS[0].1, PLAYERS[1].1] {
        let list: Vec<String> = maildir_messages(&home(user).join("Maildir"))
            .into_iter()
            .map(|(_, m)| m.subject)
            .collect();
        subjects.push_str(&format!("{user}'s Maildir: {list:#?}\n"));
    }
    format!(
        "--- postfix log ({LOG}), newest last ---\n{}\n--- postqueue -p ---\n{queue}\n--- the referee's games folder ---\n{archive}--- mailboxes ---\n{subjects}",
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    )
}

/// A delivered message, read with mail-parser.
#[derive(Debug, Clone)]
struct Mail {
    subject: String,
    message_id: String,
    references: String,
    received: String,
    text: String,
}

fn read_mail(raw: &[u8]) -> Mail {
    let message = MessageParser::default().parse(raw).expect("a message");
    let header = |name: &str| {
        message
            .header_raw(name)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    Mail {
        subject: message.subject().unwrap_or_default().to_string(),
        message_id: message.message_id().unwrap_or_default().to_string(),
        references: header("References"),
        received: header("Received"),
        text: message
            .body_text(0)
            .map(|t| t.into_owned())
            .unwrap_or_default(),
    }
}

/// Every message in a Maildir (new and cur), by file name.
fn maildir_messages(maildir: &Path) -> Vec<(String, Mail)> {
    let mut found: Vec<(String, Mail)> = ["new", "cur"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(maildir.join(sub)).ok())
        .flatten()
        .flatten()
        .filter_map(|e| {
            let raw = std::fs::read(e.path()).ok()?;
            Some((
                e.file_name().to_string_lossy().into_owned(),
                read_mail(&raw),
            ))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// Waits for a message to `user` whose subject contains `wanted`.
fn wait_for_mail(user: &str, wanted: &str) -> Mail {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some((_, mail)) = maildir_messages(&home(user).join("Maildir"))
            .into_iter()
            .find(|(_, m)| m.subject.contains(wanted))
        {
            return mail;
        }
        assert!(
            Instant::now() < deadline,
            "no mail {wanted:?} for {user} within {WAIT:?}\n{}",
            diagnosis()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Submits a message to postfix on 127.0.0.1:25, as another mail server would.
fn submit(from: &str, to: &str, message: &str) {
    let stream = TcpStream::connect(("127.0.0.1", 25)).expect("postfix listens on port 25");
    stream.set_read_timeout(Some(WAIT)).expect("timeout");
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    let mut expect = |code: &str| loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("an SMTP reply");
        assert!(
            line.starts_with(code),
            "postfix answered {line:?}, not {code}\n{}",
            diagnosis()
        );
        if line.as_bytes().get(3) != Some(&b'-') {
            break;
        }
    };
    expect("220");
    let mut say = |line: &str| {
        writer
            .write_all(format!("{line}\r\n").as_bytes())
            .expect("write");
    };
    say("EHLO mx.players.example");
    expect("250");
    say(&format!("MAIL FROM:<{from}>"));
    expect("250");
    say(&format!("RCPT TO:<{to}>"));
    expect("250");
    say("DATA");
    expect("354");
    let normalized = message.replace("\r\n", "\n");
    let mut data = String::new();
    for line in normalized.trim_end_matches('\n').split('\n') {
        if line.starts_with('.') {
            data.push('.');
        }
        data.push_str(line);
        data.push_str("\r\n");
    }
    data.push_str(".\r\n");
    say(data.trim_end_matches("\r\n"));
    expect("250");
    say("QUIT");
    expect("221");
}

/// Where the players' replies go: the referee user's address.
const TO_REFEREE: replies::Referee = replies::Referee {
    name: "pbem referee",
    address: "pbemref@pbem.test",
};

impl Mail {
    fn notice(&self) -> replies::Notice<'_> {
        replies::Notice {
            subject: &self.subject,
            message_id: &self.message_id,
            references: &self.references,
            text: &self.text,
        }
    }
}

/// The lines README gives for `ref`, written for `pbemref`.
fn from_readme(pick: impl Fn(&str) -> bool, what: &str) -> Vec<String> {
    let readme = include_str!("../../README.md");
    let section = readme
        .split("## Host a game by email")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has the section \"Host a game by email\"");
    // Only lines of code blocks, not of the prose around them.
    let lines: Vec<String> = section
        .split("```")
        .skip(1)
        .step_by(2)
        .flat_map(str::lines)
        .map(str::trim)
        .filter(|l| pick(l))
        .map(|l| l.replace("/home/ref/", &format!("/home/{REFEREE}/")))
        .collect();
    assert!(!lines.is_empty(), "README shows {what}");
    lines
}

/// A command run as a user with the environment of a mail server's pipe or cron.
fn as_user(user: &str, program: &str) -> Command {
    let mut command = Command::new("/usr/sbin/runuser");
    command.args(["-u", user, "--", "env", "-i"]);
    command.arg(format!("HOME=/home/{user}"));
    command.args([
        &format!("USER={user}"),
        &format!("LOGNAME={user}"),
        "SHELL=/bin/sh",
        "PATH=/usr/bin:/bin",
    ]);
    command.arg(program);
    command
}

/// pbem as the referee, from the folder README installs it to.
fn referee_pbem() -> Command {
    let mut command = as_user(REFEREE, "env");
    command
        .arg(format!("PBEM_HOME=/home/{REFEREE}/.pbem"))
        .arg(home(REFEREE).join(".cargo/bin/pbem"));
    command
}

fn game_file() -> PathBuf {
    home(REFEREE).join("games/ann-bob.json")
}

/// The game's public view.
fn view() -> Value {
    let output = run(referee_pbem()
        .arg("show")
        .arg(game_file())
        .args(["--format", "json"]));
    serde_json::from_str(&output).expect("json")
}

fn legal(player: &str) -> Vec<String> {
    let output = run(referee_pbem()
        .arg("legal")
        .arg(game_file())
        .args(["--player", player, "--format", "json"]));
    let list: Value = serde_json::from_str(&output).expect("json");
    list.as_array()
        .expect("a list")
        .iter()
        .map(|e| e["move"].as_str().expect("text").to_string())
        .collect()
}

fn records() -> usize {
    std::fs::read(game_file())
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|file| file["records"].as_array().map(Vec::len))
        .unwrap_or(0)
}

fn wait_for_records(count: usize) {
    let deadline = Instant::now() + WAIT;
    while records() < count {
        assert!(
            Instant::now() < deadline,
            "the game did not reach {count} records within {WAIT:?}\n{}",
            diagnosis()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(records(), count, "exactly one move per reply");
}

fn write_as(user: &str, path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    run(Command::new("chown")
        .arg(format!("{user}:{user}"))
        .arg(path));
}

/// Stops postfix at the end if the test started it.
struct Postfix {
    started: bool,
}

impl Drop for Postfix {
    fn drop(&mut self) {
        if self.started {
            let _ = Command::new("/usr/sbin/postfix").arg("stop").output();
        }
    }
}

/// postfix for loopback only and local delivery into Maildir/, with STARTTLS offered
/// with a certificate signed by a new test CA that goes into the system's store.
fn set_up_postfix() -> Postfix {
    let main_cf = Path::new("/etc/postfix/main.cf");
    let before = Path::new("/etc/postfix/main.cf.before-pbem-test");
    if main_cf.exists()
        && !std::fs::read_to_string(main_cf)
            .unwrap_or_default()
            .contains(MARK)
        && !before.exists()
    {
        std::fs::copy(main_cf, before).expect("keep the machine's main.cf");
        let _ = std::fs::copy(
            "/etc/postfix/master.cf",
            "/etc/postfix/master.cf.before-pbem-test",
        );
    }
    std::fs::create_dir_all(CONF_DIR).expect("conf dir");
    let scratch = tempfile::tempdir().expect("dir");
    let certs = crate::transport::make_certificates(scratch.path());
    for (from, to) in [(&certs.cert, "server.pem"), (&certs.key, "server.key")] {
        std::fs::copy(from, Path::new(CONF_DIR).join(to)).expect("copy");
    }
    run(Command::new("chmod").args(["600", &format!("{CONF_DIR}/server.key")]));
    std::fs::copy(
        &certs.ca,
        "/usr/local/share/ca-certificates/pbem-test-ca.crt",
    )
    .expect("the CA into the system's store");
    run(Command::new("/usr/sbin/update-ca-certificates").arg("--fresh"));

    let config = format!(
        "{MARK}
# Loopback only, local delivery only: mail for any other domain bounces.
compatibility_level = 3.6
myhostname = mail.{DOMAIN}
mydomain = {DOMAIN}
myorigin = $mydomain
mydestination = {DOMAIN}, mail.{DOMAIN}, localhost
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
relayhost =
default_transport = error:this test server delivers locally only
relay_transport = error:this test server delivers locally only
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
smtpd_peername_lookup = no
alias_maps =
alias_database =
home_mailbox = Maildir/
mailbox_size_limit = 0
biff = no
append_dot_mydomain = no
in_flow_delay = 0
smtpd_tls_cert_file = {CONF_DIR}/server.pem
smtpd_tls_key_file = {CONF_DIR}/server.key
smtpd_tls_security_level = may
smtpd_tls_received_header = yes
smtpd_tls_loglevel = 1
smtp_tls_security_level = none
maillog_file = {LOG}
"
    );
    std::fs::write(main_cf, config).expect("main.cf");
    // Nothing left queued by an earlier run may reach the new mailboxes.
    let _ = Command::new("/usr/sbin/postsuper")
        .args(["-d", "ALL"])
        .output();
    // Debian runs most services chrooted; started by hand, without Debian's init
    // script copying files into the chroot, they must not be.
    run(Command::new("/usr/sbin/postconf").args(["-F", "*/*/chroot = n"]));
    let running = Command::new("/usr/sbin/postfix")
        .arg("status")
        .output()
        .is_ok_and(|o| o.status.success());
    if running {
        run(Command::new("/usr/sbin/postfix").arg("stop"));
    }
    run(Command::new("/usr/sbin/postfix").arg("start"));
    let deadline = Instant::now() + WAIT;
    while TcpStream::connect(("127.0.0.1", 25)).is_err() {
        assert!(
            Instant::now() < deadline,
            "postfix does not listen on 127.0.0.1:25\n{}",
            diagnosis()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Postfix { started: !running }
}

/// The referee and players as local users, their mail and the referee's files new.
fn set_up_users() {
    for user in [REFEREE, PLAYERS[0].1, PLAYERS[1].1] {
        let known = Command::new("id")
            .arg(user)
            .output()
            .is_ok_and(|o| o.status.success());
        if !known {
            run(Command::new("/usr/sbin/useradd").args([
                "--create-home",
                "--shell",
                "/bin/sh",
                "--comment",
                "pbem end-to-end test",
                user,
            ]));
        }
        let dir = home(user);
        std::fs::create_dir_all(&dir).expect("home");
        for leftover in ["Maildir", "games", ".pbem", ".cargo", ".forward"] {
            let path = dir.join(leftover);
            if path.is_dir() {
                std::fs::remove_dir_all(&path).expect("clean");
            } else if path.exists() {
                std::fs::remove_file(&path).expect("clean");
            }
        }
        run(Command::new("chown")
            .arg(format!("{user}:{user}"))
            .arg(&dir));
    }
    let referee = home(REFEREE);
    for dir in [".cargo/bin", ".pbem", "games"] {
        std::fs::create_dir_all(referee.join(dir)).expect("dir");
    }
    // README: `cargo install --locked --path .` puts pbem in ~/.cargo/bin.
    let installed = referee.join(".cargo/bin/pbem");
    std::fs::copy(assert_cmd::cargo::cargo_bin("pbem"), &installed).expect("install pbem");
    run(Command::new("chmod").args(["700", &format!("/home/{REFEREE}/.pbem")]));
    run(Command::new("chown")
        .args(["-R", &format!("{REFEREE}:{REFEREE}")])
        .arg(&referee));
}

fn configure_referee(smtp: &str) {
    write_as(
        REFEREE,
        &home(REFEREE).join(".pbem/config.toml"),
        &format!(
            "[mail]\nsmtp = \"{smtp}\"\nfrom = \"pbem referee <{}>\"\n",
            address(REFEREE)
        ),
    );
}

fn token_of(user: &str) -> String {
    let welcome = wait_for_mail(user, "Welcome");
    welcome
        .text
        .lines()
        .find_map(|l| l.trim().strip_prefix("pbem-token: ").map(str::to_string))
        .expect("a token line in the welcome")
}

#[test]
fn a_whole_game_through_postfix_by_forward_then_maildir_and_cron() {
    if let Some(reason) = cannot_run() {
        assert!(
            !required(),
            "PBEM_REQUIRE_POSTFIX=1, but the end-to-end test through postfix cannot run: {reason}"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the end-to-end test through postfix (tests/it/postfix.rs): {reason}"
        );
        return;
    }
    assert_eq!(TO_REFEREE.address, address(REFEREE));
    let started = Instant::now();
    set_up_users();
    let _postfix = set_up_postfix();

    // Leg one: STARTTLS to postfix on localhost, the certificate checked against the
    // system's store alone; incoming mail piped by the README's .forward line.
    configure_referee("smtp://localhost:25");
    let forward = from_readme(|l| l.starts_with("\"|env PBEM_HOME="), "a .forward line");
    write_as(
        REFEREE,
        &home(REFEREE).join(".forward"),
        &format!("{}\n", forward[0]),
    );
    let players: Vec<String> = PLAYERS
        .iter()
        .map(|(name, user)| format!("{name} <{}>", address(user)))
        .collect();
    run(referee_pbem()
        .args([
            "new",
            "right-of-way",
            "--player",
            &players[0],
            "--player",
            &players[1],
        ])
        .args(["--seed", SEED, "--mail", "--out"])
        .arg(game_file()));
    let id = view()["id"].as_str().expect("an id").to_string();
    let tag = format!("[pbem {id}]");
    let user_of = |name: &str| {
        PLAYERS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, u)| *u)
            .expect("a player")
    };
    let tokens: Vec<String> = PLAYERS.iter().map(|(_, user)| token_of(user)).collect();

    let cron = from_readme(
        |l| l.starts_with("PBEM_HOME=") || (l.contains("pbem inbox") && l.contains("--maildir")),
        "the crontab lines",
    );
    let cron_env = cron
        .iter()
        .find(|l| l.starts_with("PBEM_HOME="))
        .expect("README's crontab sets PBEM_HOME")
        .clone();
    let cron_command = cron
        .iter()
        .find(|l| l.contains("--maildir"))
        .map(|l| l.split_whitespace().skip(5).collect::<Vec<_>>().join(" "))
        .expect("README's crontab line");

    let mut picker = pbem::engine::DrawStream::for_testing(11);
    let mut sent: Vec<(String, String)> = Vec::new();
    let mut turn: u64 = 0;
    loop {
        let state = view();
        if state["over"] == true {
            break;
        }
        assert!(turn < 400, "the game ends");
        let player = state["to_move"][0].as_str().expect("a player").to_string();
        let user = user_of(&player);
        let from = address(user);
        let notice = wait_for_mail(user, &format!("Turn {}: your move, {player}", turn + 1));
        if turn == 0 {
            assert!(
                notice.received.contains("using TLS"),
                "pbem sent with STARTTLS: {}",
                notice.received
            );
        }
        let choices = legal(&player);
        let text = choices[picker.index(choices.len() as u32) as usize].clone();
        let reply_id = format!("postfix-{turn}");
        let seat = PLAYERS
            .iter()
            .position(|(n, _)| *n == player)
            .expect("seat");
        let raw = match turn % 4 {
            0 => replies::gmail_reply(&TO_REFEREE, &notice.notice(), &from, &text, &reply_id),
            1 => replies::outlook_reply(&TO_REFEREE, &notice.notice(), &from, &text, &reply_id),
            2 => replies::apple_reply(&TO_REFEREE, &notice.notice(), &from, &text, &reply_id),
            _ => replies::token_message(&TO_REFEREE, &tag, &tokens[seat], &from, &text, &reply_id),
        };
        if turn == FORWARD_TURNS {
            // Leg two: no .forward, so postfix delivers to ~/Maildir; the README's cron
            // line reads it; notices go out through sendmail, found outside cron's PATH.
            std::fs::remove_file(home(REFEREE).join(".forward")).expect("no .forward");
            configure_referee("sendmail");
        }
        submit(&from, &address(REFEREE), &raw);
        if turn >= FORWARD_TURNS {
            let deadline = Instant::now() + WAIT;
            let new = home(REFEREE).join("Maildir/new");
            while std::fs::read_dir(&new).map_or(true, |mut d| d.next().is_none()) {
                assert!(
                    Instant::now() < deadline,
                    "no delivery to the referee's Maildir within {WAIT:?}\n{}",
                    diagnosis()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            let mut cron_run = as_user(REFEREE, "env");
            cron_run
                .arg(&cron_env)
                .args(["/bin/sh", "-c", &cron_command]);
            let report = run(&mut cron_run);
            assert!(
                report.contains("1 message(s) processed"),
                "turn {turn}: {report}"
            );
        }
        turn += 1;
        wait_for_records(turn as usize);
        sent.push((player, text));
    }
    // Notices up to the first move of leg two went out with STARTTLS; later ones
    // through sendmail, which postfix stamps with the sending user's id.
    let mut checked = (0, 0);
    for (_, user) in PLAYERS {
        for (_, mail) in maildir_messages(&home(user).join("Maildir")) {
            let Some(number) = mail
                .subject
                .split("Turn ")
                .nth(1)
                .and_then(|rest| rest.split(':').next())
                .and_then(|n| n.parse::<u64>().ok())
                .filter(|_| mail.subject.contains("your move"))
            else {
                continue;
            };
            if number <= FORWARD_TURNS + 1 {
                assert!(
                    mail.received.contains("using TLS"),
                    "{}: {}",
                    mail.subject,
                    mail.received
                );
                checked.0 += 1;
            } else {
                assert!(
                    mail.received.contains("from userid"),
                    "{}: {}",
                    mail.subject,
                    mail.received
                );
                checked.1 += 1;
            }
        }
    }
    assert!(checked.0 > 0 && checked.1 > 0, "{checked:?}");
    assert!(turn > FORWARD_TURNS, "both legs played: {turn} turns");

    // The file holds exactly the moves sent, in order, and audits.
    let file: Value =
        serde_json::from_slice(&std::fs::read(game_file()).expect("game file")).expect("json");
    let recorded: Vec<(String, String)> = file["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| {
            (
                r["player"].as_str().unwrap_or_default().to_string(),
                r["move"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(recorded.len(), sent.len());
    for ((player, text), (was_player, was_text)) in sent.iter().zip(&recorded) {
        assert_eq!(player, was_player);
        assert_eq!(text.trim(), was_text.trim());
    }
    let audit = run(referee_pbem().arg("audit").arg(game_file()));
    assert!(!audit.is_empty());
    let index = std::fs::read_to_string(home(REFEREE).join("games/ann-bob.json.mail/index.jsonl"))
        .expect("the archive");
    assert_eq!(
        index.lines().filter(|l| l.contains("\"applied\"")).count(),
        sent.len(),
        "{index}"
    );
    for (_, user) in PLAYERS {
        let over = wait_for_mail(user, "The game is over");
        assert!(over.text.contains(SEED), "the seed is revealed at the end");
    }
    let _ = writeln!(
        std::io::stderr(),
        "postfix end-to-end: {} turns ({FORWARD_TURNS} by .forward, {} by Maildir and cron) in {:.1} s",
        sent.len(),
        sent.len() as u64 - FORWARD_TURNS,
        started.elapsed().as_secs_f64()
    );
}
