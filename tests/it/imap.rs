//! A referee with an ordinary mailbox: players' replies read from a real IMAP server,
//! a dovecot instance of the test's own (Debian's dovecot programs started with
//! `dovecot -c FILE`, its configuration, users, certificates, state and mail in a
//! temporary directory, listening on 127.0.0.1 on free ports). Its certificate is
//! signed by a CA the test makes and gives to pbem with `ca_file`, never put in the
//! system's trust store. Replies are delivered to the referee's mailbox by dovecot's
//! own delivery agent (dovecot-lda), as a mail server hands them over; pbem's notices
//! go out by SMTP to aiosmtpd on loopback.
//!
//! Along a whole game, passes of `pbem inbox --imap` and `pbem watch` are killed at
//! random and replies are delivered twice; every move is applied exactly once. `pbem watch` takes mail
//! as it arrives by IDLE, survives the server dropping its connection and going away
//! for a while, refuses to run twice for one folder, and stops on SIGTERM. A wrong password and a server whose CA
//! pbem was not given are answered with errors that say what to do, and never show
//! the password.
//!
//! Faults of the server, of the network and of pbem's own progress file are in
//! `imap/faults.rs`.
//!
//! It leaves the machine as it found it, and checks that it did (the same check as
//! the postfix test: nothing under /etc written, the machine's own mail servers not
//! touched). It needs root (dovecot's master process runs as root), Debian's
//! dovecot-imapd (.ci/run installs it); without them it says "skipped"
//! on standard error, and with PBEM_REQUIRE_DOVECOT=1 (.ci/run sets it as root) it
//! fails instead.

#![cfg(target_os = "linux")]

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::postfix::{account, free_port, set_mode, Snapshot};
use super::replies;
use super::support::{quiet_move, read_mail, test_key, to_move, KillOnDrop, Smtp};

mod faults;

const SEED: &str = "5151515151515151515151515151515151515151515151515151515151515151";
const DOVECOT: &str = "/usr/sbin/dovecot";
const DOVEADM: &str = "/usr/bin/doveadm";
const LDA: &str = "/usr/lib/dovecot/dovecot-lda";
pub(super) const USER: &str = "ref";
pub(super) const PASSWORD: &str = "app-password-7f3k";
const REFEREE: replies::Referee = replies::Referee {
    name: "Referee",
    address: "ref@pbem.test",
};
const WAIT: Duration = Duration::from_secs(30);

fn cannot_run() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (dovecot's master process runs as root)".into());
    }
    for tool in [DOVECOT, DOVEADM, LDA] {
        if !Path::new(tool).exists() {
            return Some(format!(
                "{tool} is missing (Debian: apt-get install dovecot-imapd; .ci/run does as root)"
            ));
        }
    }
    for user in ["dovecot", "dovenull", "nobody"] {
        if account(user).is_none() {
            return Some(format!(
                "no user {user} (Debian's dovecot-core package adds it)"
            ));
        }
    }
    None
}

/// The instance, or None (said on standard error) when it cannot run here and is not
/// required to.
pub(super) fn dovecot_or_skip(test: &str) -> Option<Dovecot> {
    if let Some(why) = cannot_run() {
        assert!(
            !std::env::var("PBEM_REQUIRE_DOVECOT").is_ok_and(|v| v == "1"),
            "{test}: required, but {why}"
        );
        eprintln!("{test}: skipped: {why}");
        return None;
    }
    Some(Dovecot::start())
}

/// The test's own dovecot and the referee's keyring, games and outgoing mail, all in
/// one temporary directory. Dropping it stops that dovecot, checks the machine, and
/// removes the directory.
pub(super) struct Dovecot {
    pub(super) dir: tempfile::TempDir,
    pub(super) imaps: u16,
    imap: u16,
    pub(super) smtp: Smtp,
    machine: Snapshot,
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        self.stop();
        if !std::thread::panicking() {
            let changes = self.machine.changes(&Snapshot::take());
            assert!(changes.is_empty(), "the machine changed: {changes:#?}");
        }
    }
}

impl Dovecot {
    fn start() -> Dovecot {
        let machine = Snapshot::take();
        let dir = tempfile::Builder::new()
            .prefix("pbem-dovecot-")
            .tempdir()
            .expect("a temporary directory");
        // dovecot's login processes and nobody (who owns the mail) must reach inside.
        set_mode(dir.path(), 0o755);
        for sub in ["run", "mail", "games", "keyring"] {
            std::fs::create_dir(dir.path().join(sub)).expect("a folder");
        }
        let nobody = account("nobody").expect("nobody");
        std::os::unix::fs::chown(dir.path().join("mail"), Some(nobody.uid), Some(nobody.gid))
            .expect("chown");
        let certs = crate::transport::make_certificates(&dir.path().join("ca"));
        std::fs::write(
            dir.path().join("users"),
            format!("{USER}:{{PLAIN}}{PASSWORD}::::::\n"),
        )
        .expect("users");
        let smtp = Smtp::start(&dir.path().join("delivered"));
        let dovecot = Dovecot {
            imaps: free_port(),
            imap: free_port(),
            smtp,
            machine,
            dir,
        };
        let root = dovecot.dir.path().display().to_string();
        let conf = format!(
            "base_dir = {root}/run\n\
             instance_name = pbem-test-{pid}\n\
             state_dir = {root}/run/state\n\
             protocols = imap\n\
             listen = 127.0.0.1\n\
             log_path = {root}/dovecot.log\n\
             verbose_proctitle = yes\n\
             ssl = yes\n\
             ssl_cert = <{cert}\n\
             ssl_key = <{key}\n\
             ssl_min_protocol = TLSv1.2\n\
             disable_plaintext_auth = yes\n\
             auth_mechanisms = plain login\n\
             passdb {{\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u {root}/users\n}}\n\
             userdb {{\n  driver = static\n  args = uid=nobody gid={gid} home={root}/mail/%u\n}}\n\
             mail_location = maildir:~/Maildir\n\
             service imap-login {{\n  chroot =\n  inet_listener imap {{\n    port = {imap}\n  }}\n  inet_listener imaps {{\n    port = {imaps}\n    ssl = yes\n  }}\n}}\n\
             service anvil {{\n  chroot =\n}}\n",
            pid = std::process::id(),
            cert = certs.cert.display(),
            key = certs.key.display(),
            gid = nobody.gid,
            imap = dovecot.imap,
            imaps = dovecot.imaps,
        );
        std::fs::write(dovecot.conf(), conf).expect("dovecot.conf");
        dovecot.launch();
        test_key(&dovecot.home());
        dovecot.configure(
            &format!("imaps://{USER}@localhost:{}/INBOX", dovecot.imaps),
            Some(&certs.ca),
        );
        dovecot
    }

    /// Starts the instance and waits until it listens.
    fn launch(&self) {
        // Its master goes on in the background with whatever it was given as standard
        // output: not a pipe, which would never end.
        let started = crate::support::on_machine_clock(&mut Command::new(DOVECOT))
            .arg("-c")
            .arg(self.conf())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("dovecot runs");
        assert!(started.success(), "dovecot: {started}: {}", self.log());
        let deadline = Instant::now() + WAIT;
        while std::net::TcpStream::connect(("127.0.0.1", self.imaps)).is_err() {
            assert!(
                Instant::now() < deadline,
                "dovecot does not listen: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the instance and waits until its master is gone.
    fn stop(&self) {
        let _ = crate::support::on_machine_clock(&mut Command::new(DOVEADM))
            .arg("-c")
            .arg(self.conf())
            .arg("stop")
            .output();
        let master = self.dir.path().join("run/master.pid");
        let deadline = Instant::now() + Duration::from_secs(10);
        while master.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("dovecot.conf")
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("dovecot.log")).unwrap_or_default()
    }

    pub(super) fn home(&self) -> PathBuf {
        self.dir.path().join("keyring")
    }

    pub(super) fn games(&self) -> PathBuf {
        self.dir.path().join("games")
    }

    fn game_file(&self) -> PathBuf {
        self.games().join("ann-bob.json")
    }

    /// The referee's config.toml: SMTP to aiosmtpd, the mailbox at `imap`. The board's
    /// picture is left out of the mail: these tests are about taking mail in, and
    /// drawing a picture for every notice would be most of a whole game's time.
    fn configure(&self, imap: &str, ca_file: Option<&Path>) {
        let ca = ca_file
            .map(|path| format!("ca_file = {:?}\n", path.display().to_string()))
            .unwrap_or_default();
        std::fs::write(
            self.home().join("config.toml"),
            format!(
                "[mail]\nsmtp = \"smtp://127.0.0.1:{}\"\nfrom = \"Referee <ref@pbem.test>\"\nimap = \"{imap}\"\npictures = false\n{ca}",
                self.smtp.port
            ),
        )
        .expect("config.toml");
    }

    fn pbem(&self) -> Command {
        self.referee_env(Command::new(assert_cmd::cargo::cargo_bin("pbem")))
    }

    /// `command` with the referee's environment: keyring and IMAP password.
    pub(super) fn referee_env(&self, mut command: Command) -> Command {
        command
            .env("PBEM_HOME", self.home())
            .env("PBEM_IMAP_PASSWORD", PASSWORD)
            .env_remove("PBEM_SMTP")
            .env_remove("PBEM_IMAP")
            .env_remove("PBEM_NOW");
        command
    }

    fn run(&self, command: &mut Command) -> Output {
        command.output().expect("pbem runs")
    }

    fn inbox(&self) -> Output {
        self.run(
            self.pbem()
                .args(["inbox", "--imap", "--games"])
                .arg(self.games()),
        )
    }

    /// Hands a message to the referee's mailbox as the mail server would.
    pub(super) fn deliver(&self, from: &str, raw: &str) {
        let mut lda = crate::support::on_machine_clock(&mut Command::new(LDA))
            .arg("-c")
            .arg(self.conf())
            .args(["-d", USER, "-f", from])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("dovecot-lda runs");
        lda.stdin
            .take()
            .expect("stdin")
            .write_all(raw.as_bytes())
            .expect("the message");
        let output = lda.wait_with_output().expect("waits");
        assert!(
            output.status.success(),
            "dovecot-lda: {}{}",
            text(&output),
            self.log()
        );
    }

    fn start_game(&self) {
        let output = self.run(
            self.pbem()
                .args(["new", "right-of-way", "--seed", SEED, "--mail"])
                .args([
                    "--player",
                    "Ann <ann@pbem.test>",
                    "--player",
                    "Bob <bob@pbem.test>",
                ])
                .arg("--out")
                .arg(self.game_file()),
        );
        assert!(output.status.success(), "{}", text(&output));
        assert!(
            text(&output).contains("message(s) sent"),
            "{}",
            text(&output)
        );
    }

    fn view(&self) -> Value {
        let output = self.run(
            self.pbem()
                .arg("show")
                .arg(self.game_file())
                .args(["--format", "json"]),
        );
        assert!(output.status.success(), "{}", text(&output));
        serde_json::from_slice(&output.stdout).expect("json")
    }

    fn turn(&self) -> u64 {
        self.view()["head"]["turn"].as_u64().expect("a turn")
    }

    /// The move `player` makes now: one that draws nothing, else the first legal.
    fn a_move(&self, player: &str) -> String {
        let output = self.run(
            self.pbem()
                .arg("legal")
                .arg(self.game_file())
                .args(["--player", player, "--format", "json"]),
        );
        let legal: Vec<Value> = serde_json::from_slice(&output.stdout).expect("json");
        let quiet = legal
            .iter()
            .any(|e| e["kind"] == "place" && e["profit"] == e["cost"]);
        if quiet {
            quiet_move(&legal)
        } else {
            legal[0]["move"].as_str().expect("a move").to_string()
        }
    }

    /// The newest turn notice that asks `player` to move, as delivered.
    fn turn_notice(&self, player: &str) -> (String, String, String, String) {
        let address = format!("{}@pbem.test", player.to_ascii_lowercase());
        let deadline = Instant::now() + WAIT;
        loop {
            let found = self
                .smtp
                .delivered()
                .into_iter()
                .filter_map(|(_, raw)| {
                    let message = mail_parser::MessageParser::default().parse(&raw)?;
                    let (to, subject, body) = read_mail(&raw);
                    let id = message.message_id()?.to_string();
                    let references = message
                        .header_raw("References")
                        .map(|v| v.trim().to_string())
                        .unwrap_or_default();
                    (to == address && subject.contains("your move"))
                        .then_some((subject, id, references, body))
                })
                .max_by_key(|(subject, ..)| turn_in(subject));
            if let Some(notice) = found.filter(|(subject, ..)| turn_in(subject) == self.turn() + 1)
            {
                return notice;
            }
            if Instant::now() >= deadline {
                let subjects: Vec<String> = self
                    .smtp
                    .delivered()
                    .iter()
                    .map(|(_, raw)| read_mail(raw))
                    .map(|(to, subject, _)| format!("{to}: {subject}"))
                    .collect();
                panic!(
                    "no turn notice for {player} at turn {}: {subjects:#?}",
                    self.turn()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A reply to `player`'s turn notice, in the shape of one client or another.
    fn reply(&self, player: &str, move_text: &str, id: &str) -> String {
        let (subject, message_id, references, body) = self.turn_notice(player);
        let notice = replies::Notice {
            subject: &subject,
            message_id: &message_id,
            references: &references,
            text: &body,
        };
        let from = format!("{}@pbem.test", player.to_ascii_lowercase());
        type Shape = fn(&replies::Referee, &replies::Notice, &str, &str, &str) -> String;
        let shapes: [Shape; 3] = [
            replies::gmail_reply,
            replies::outlook_reply,
            replies::apple_reply,
        ];
        let shape = shapes[id.len() % shapes.len()];
        shape(&REFEREE, &notice, &from, move_text, id)
    }

    /// `pbem watch` on the games folder, its standard error to `watch.log`.
    fn watch(&self) -> KillOnDrop {
        self.watch_with(&[])
    }

    /// `pbem watch` with `options` besides.
    fn watch_with(&self, options: &[&str]) -> KillOnDrop {
        let log = std::fs::File::create(self.dir.path().join("watch.log")).expect("log");
        self.pbem()
            .arg("watch")
            .args(options)
            .arg("--games")
            .arg(self.games())
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0)
            .spawn()
            .map(KillOnDrop)
            .expect("pbem watch runs")
    }

    fn watch_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("watch.log")).unwrap_or_default()
    }

    fn wait_for_turn(&self, turn: u64, what: &str) {
        let deadline = Instant::now() + WAIT;
        while self.turn() < turn {
            assert!(
                Instant::now() < deadline,
                "{what}: turn {turn} never came; watch said:\n{}",
                self.watch_log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The turn number a notice's subject names ("Turn 12: your move").
fn turn_in(subject: &str) -> u64 {
    subject
        .split("Turn ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn sigterm(child: &Child) {
    // SAFETY: kill has no preconditions; a process already gone is harmless.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
}

/// How a whole game's mail is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// `pbem inbox --imap` after each reply, as cron runs it; passes and watches
    /// killed at random besides.
    Passes,
    /// One `pbem watch` all along, killed at random and started again.
    Watch,
}

/// Plays a whole game by replies delivered to the referee's mailbox, some of them
/// twice, read as `reader` says; checks that every move was applied exactly once.
fn whole_game(dovecot: &Dovecot, reader: Reader) {
    dovecot.start_game();
    let mut picker = pbem::engine::DrawStream::new([7; 32]);
    let mut replies_sent = 0u64;
    let mut watch = (reader == Reader::Watch).then(|| dovecot.watch());
    while !dovecot.view()["over"].as_bool().unwrap_or(true) {
        let turn = dovecot.turn();
        let player = to_move(&dovecot.view());
        let move_text = dovecot.a_move(&player);
        let id = format!("imap-{turn}-{}", player.to_ascii_lowercase());
        let reply = dovecot.reply(&player, &move_text, &id);
        let from = format!("{}@pbem.test", player.to_ascii_lowercase());
        dovecot.deliver(&from, &reply);
        replies_sent += 1;
        if turn.is_multiple_of(3) {
            // The same reply delivered again, as a mail server retrying does.
            dovecot.deliver(&from, &reply);
        }
        let pause = Duration::from_millis(u64::from(picker.index(400)));
        match (reader, watch.as_mut()) {
            (Reader::Watch, Some(running)) => {
                if turn % 2 == 1 {
                    // Killed at a random moment (before, during or after the move),
                    // and started again, as systemd does.
                    std::thread::sleep(pause);
                    let _ = running.kill();
                    let _ = running.wait();
                    *running = dovecot.watch();
                }
                dovecot.wait_for_turn(turn + 1, &format!("turn {turn}"));
            }
            _ => {
                if turn % 2 == 1 {
                    // A pass, or a watch, killed at a random moment.
                    let mut run = if turn % 4 == 1 {
                        dovecot
                            .pbem()
                            .args(["inbox", "--imap", "--games"])
                            .arg(dovecot.games())
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .spawn()
                            .map(KillOnDrop)
                            .expect("pbem runs")
                    } else {
                        dovecot.watch()
                    };
                    std::thread::sleep(pause);
                    let _ = run.kill();
                    let _ = run.wait();
                }
                let output = dovecot.inbox();
                assert!(
                    output.status.success(),
                    "turn {turn}: {}\ndovecot's log:\n{}",
                    text(&output),
                    dovecot.log()
                );
            }
        }
        assert_eq!(dovecot.turn(), turn + 1, "turn {turn}");
    }
    if let Some(running) = watch.as_mut() {
        sigterm(running);
        let status = running.wait().expect("waits");
        assert!(status.success(), "{status}: {}", dovecot.watch_log());
    }
    assert!(replies_sent > 10, "{replies_sent}");
    // Every message is done: a pass more applies nothing and says nothing.
    let output = dovecot.inbox();
    assert!(
        output.status.success() && output.stdout.is_empty(),
        "{}",
        text(&output)
    );
    let audit = dovecot.run(dovecot.pbem().arg("audit").arg(dovecot.game_file()));
    assert!(audit.status.success(), "{}", text(&audit));
    // Each reply was applied once: one record per reply, no more.
    assert_eq!(dovecot.turn(), replies_sent);
    let state = std::fs::read_to_string(dovecot.games().join(".pbem-imap.state")).expect("state");
    assert!(!state.contains(PASSWORD), "{state}");
}

#[test]
fn a_whole_game_by_imap_passes_applies_every_move_once_through_kills_and_copies() {
    if let Some(dovecot) = dovecot_or_skip("imap whole game by passes") {
        whole_game(&dovecot, Reader::Passes);
    }
}

#[test]
fn a_whole_game_by_one_watch_applies_every_move_once_through_kills_and_copies() {
    if let Some(dovecot) = dovecot_or_skip("imap whole game by watch") {
        whole_game(&dovecot, Reader::Watch);
    }
}

#[test]
fn watch_takes_mail_as_it_arrives_through_a_dropped_connection_and_an_outage_and_stops_on_sigterm()
{
    let Some(dovecot) = dovecot_or_skip("imap watch") else {
        return;
    };
    dovecot.start_game();
    let mut watch = dovecot.watch();
    // A second watch for the same folder refuses, once the first holds it.
    let deadline = Instant::now() + WAIT;
    while !dovecot.watch_log().contains("watching") {
        assert!(Instant::now() < deadline, "the watch did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = dovecot.run(
        dovecot
            .pbem()
            .args(["watch", "--games"])
            .arg(dovecot.games()),
    );
    assert!(!second.status.success());
    assert!(
        text(&second).contains("another pbem watch is running"),
        "{}",
        text(&second)
    );

    for round in 0..5 {
        let turn = dovecot.turn();
        let player = to_move(&dovecot.view());
        let move_text = dovecot.a_move(&player);
        let id = format!("watch-{turn}");
        let reply = dovecot.reply(&player, &move_text, &id);
        if round == 2 {
            // The server drops every connection of the referee's (as a restart or a
            // timeout does); the watch connects again and misses nothing.
            let kicked = crate::support::on_machine_clock(&mut Command::new(DOVEADM))
                .arg("-c")
                .arg(dovecot.conf())
                .args(["kick", USER])
                .output()
                .expect("doveadm runs");
            assert!(kicked.status.success(), "{}", text(&kicked));
        }
        if round == 3 {
            // The server goes away for a while (an outage): the watch tries again,
            // waiting longer each time, and takes the mail once it is back.
            dovecot.stop();
            std::thread::sleep(Duration::from_secs(3));
            dovecot.launch();
        }
        dovecot.deliver(
            &format!("{}@pbem.test", player.to_ascii_lowercase()),
            &reply,
        );
        dovecot.wait_for_turn(turn + 1, &format!("round {round}"));
    }
    let log = dovecot.watch_log();
    assert!(log.contains("applied: turn 1:"), "{log}");
    // Dropped while in IDLE or in the middle of a pass, depending on timing.
    assert!(log.contains("; connecting again"), "{log}");

    sigterm(&watch);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = watch.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "watch did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}: {}", dovecot.watch_log());
    assert!(
        dovecot.watch_log().trim_end().ends_with("stopped"),
        "{}",
        dovecot.watch_log()
    );
    assert!(!dovecot.watch_log().contains(PASSWORD));
}

/// A server tells of new mail once, at the end of whatever command runs when it
/// arrives. Mail that came while `watch` handled the message before is therefore
/// known before IDLE starts, and IDLE must not wait for news it already has.
#[test]
fn mail_told_of_before_idle_ends_the_wait_at_once() {
    let Some(dovecot) = dovecot_or_skip("imap news before idle") else {
        return;
    };
    let mut settings = pbem::mail::outbound::transport::MailSettings::load(&dovecot.home(), None)
        .expect("the referee's settings");
    let password_file = dovecot.dir.path().join("imap-password");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).expect("password file");
    settings.password_file = Some(password_file);
    let mailbox =
        pbem::mail::inbound::imap::ImapMailbox::from_settings(&settings).expect("the mailbox");
    let mut opened = mailbox.connect().expect("connects");
    assert!(opened.idle, "dovecot has IDLE");

    // Nothing new: IDLE waits its time.
    let started = Instant::now();
    opened.idle_for(Duration::from_secs(2)).expect("idles");
    assert!(
        started.elapsed() >= Duration::from_millis(1900),
        "{:?}",
        started.elapsed()
    );

    dovecot.deliver(
        "ann@pbem.test",
        "From: Ann <ann@pbem.test>\r\nTo: ref@pbem.test\r\nSubject: hello\r\n\
         Message-ID: <news-before-idle@pbem.test>\r\nDate: Thu, 26 Nov 2026 12:00:00 +0000\r\n\r\nhello\r\n",
    );
    // Any command now (here NOOP) carries the server's word of the new message.
    opened.session.noop().expect("noop");
    let started = Instant::now();
    opened.idle_for(WAIT).expect("idles");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "IDLE waited {:?} for mail the server had already told of",
        started.elapsed()
    );
    let _ = opened.session.logout();
}

#[test]
fn starttls_a_wrong_password_and_an_unknown_ca_are_answered_clearly() {
    let Some(dovecot) = dovecot_or_skip("imap errors") else {
        return;
    };
    dovecot.start_game();
    let ca = dovecot.dir.path().join("ca/ca.pem");
    // STARTTLS on the plain port, with the same CA: a pass works.
    dovecot.configure(
        &format!("imap://{USER}@127.0.0.1:{}/INBOX", dovecot.imap),
        Some(&ca),
    );
    let output = dovecot.inbox();
    assert!(output.status.success(), "{}", text(&output));

    let wrong = dovecot.run(
        dovecot
            .pbem()
            .env("PBEM_IMAP_PASSWORD", "not-the-password")
            .args(["inbox", "--imap", "--games"])
            .arg(dovecot.games()),
    );
    assert_eq!(wrong.status.code(), Some(75), "{}", text(&wrong));
    let said = text(&wrong);
    assert!(said.contains("refused the login of ref"), "{said}");
    assert!(said.contains("PBEM_IMAP_PASSWORD"), "{said}");
    // No mail server keeps anything here: the messages wait in the mailbox.
    assert!(said.contains("stay in the IMAP mailbox"), "{said}");
    assert!(!said.contains("mail server keeps"), "{said}");
    assert!(
        !said.contains("not-the-password") && !said.contains(PASSWORD),
        "{said}"
    );

    // Without the CA, the server's certificate is not trusted: said, with the remedy.
    dovecot.configure(
        &format!("imaps://{USER}@localhost:{}/INBOX", dovecot.imaps),
        None,
    );
    let untrusted = dovecot.inbox();
    assert_eq!(untrusted.status.code(), Some(75), "{}", text(&untrusted));
    let said = text(&untrusted);
    assert!(
        said.contains("TLS failed") && said.contains("ca_file"),
        "{said}"
    );

    // A password in the URL is refused before anything is sent.
    dovecot.configure(
        &format!(
            "imaps://{USER}:{PASSWORD}@localhost:{}/INBOX",
            dovecot.imaps
        ),
        Some(&ca),
    );
    let in_url = dovecot.inbox();
    let said = text(&in_url);
    assert!(
        !in_url.status.success() && said.contains("holds a password"),
        "{said}"
    );
    assert!(!said.contains(PASSWORD), "{said}");
}

/// A full disk: the watch cannot write the move, says so, waits and tries again, and
/// applies the move once there is room, exactly once. The games are on a small
/// file system mounted in a mount namespace of the watch's own (`unshare -m`), so the
/// machine's mounts never change; the test reaches it through `/proc/PID/root`.
#[test]
fn watch_waits_out_a_full_disk_and_loses_nothing() {
    let Some(dovecot) = dovecot_or_skip("imap full disk") else {
        return;
    };
    dovecot.start_game();
    let small = dovecot.dir.path().join("small");
    std::fs::create_dir(&small).expect("small");
    let script = format!(
        "mount -t tmpfs -o size=4m pbem-small {small} && cp -a {games}/. {small}/ && exec \"$0\" watch --games {small}",
        small = small.display(),
        games = dovecot.games().display(),
    );
    // unshare runs sh in a mount namespace of its own; sh mounts, copies the games in
    // and becomes pbem ("$0").
    let mut watch = dovecot
        .referee_env(Command::new("unshare"))
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .arg(assert_cmd::cargo::cargo_bin("pbem"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dovecot.dir.path().join("watch.log")).expect("log"))
        .spawn()
        .map(KillOnDrop)
        .expect("unshare runs");
    let inside = PathBuf::from(format!("/proc/{}/root", watch.id()))
        .join(small.strip_prefix("/").expect("absolute"));
    let game = inside.join("ann-bob.json");
    let deadline = Instant::now() + WAIT;
    while !dovecot.watch_log().contains("watching") {
        if let Some(status) = watch.try_wait().expect("wait") {
            // No mount namespace here (a container without the right): said, not failed.
            eprintln!("imap full disk: skipped: {status}: {}", dovecot.watch_log());
            return;
        }
        assert!(Instant::now() < deadline, "{}", dovecot.watch_log());
        std::thread::sleep(Duration::from_millis(50));
    }
    let show_turn = || {
        let output = dovecot.run(
            dovecot
                .pbem()
                .arg("show")
                .arg(&game)
                .args(["--format", "json"]),
        );
        assert!(output.status.success(), "{}", text(&output));
        let view: Value = serde_json::from_slice(&output.stdout).expect("json");
        (view["head"]["turn"].as_u64().expect("turn"), to_move(&view))
    };
    let (turn, player) = show_turn();
    // Fill the small file system.
    let filler = inside.join("filler");
    {
        let mut file = std::fs::File::create(&filler).expect("filler");
        let block = vec![0u8; 64 * 1024];
        while file.write_all(&block).is_ok() {}
    }
    let output = dovecot.run(
        dovecot
            .pbem()
            .arg("legal")
            .arg(&game)
            .args(["--player", &player, "--format", "json"]),
    );
    let legal: Vec<Value> = serde_json::from_slice(&output.stdout).expect("json");
    let move_text = legal[0]["move"].as_str().expect("a move").to_string();
    let reply = dovecot.reply(&player, &move_text, "full-disk");
    dovecot.deliver(
        &format!("{}@pbem.test", player.to_ascii_lowercase()),
        &reply,
    );
    let deadline = Instant::now() + WAIT;
    // Held back, as one game's fault is: tried again, mail for other games not waiting.
    while !dovecot.watch_log().contains("inbox: held back: ") {
        assert!(Instant::now() < deadline, "{}", dovecot.watch_log());
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(show_turn().0, turn, "nothing applied on a full disk");
    std::fs::remove_file(&filler).expect("room again");
    let deadline = Instant::now() + Duration::from_secs(60);
    while show_turn().0 == turn {
        assert!(Instant::now() < deadline, "{}", dovecot.watch_log());
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(show_turn().0, turn + 1, "{}", dovecot.watch_log());
    // The log line follows the move (once the message is marked done).
    let deadline = Instant::now() + WAIT;
    while !dovecot.watch_log().contains(": applied: ") {
        assert!(Instant::now() < deadline, "{}", dovecot.watch_log());
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = dovecot.watch_log();
    assert_eq!(log.matches(": applied: ").count(), 1, "{log}");
    assert!(log.contains("cannot write"), "{log}");
    sigterm(&watch);
    let status = watch.wait().expect("waits");
    assert!(status.success(), "{status}: {}", dovecot.watch_log());
}
