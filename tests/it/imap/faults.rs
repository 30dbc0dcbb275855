//! pbem against an IMAP server that fails it, and against its own progress file gone
//! wrong. The server is the test's dovecot (see the parent module): its process stopped
//! (SIGSTOP) in the middle of an IDLE, or all of it stopped, so that nothing answers
//! and nothing says so; or, for a password echoed back, a server of a few lines here
//! that refuses every login with what it was sent. The progress file
//! (`.pbem-imap.state`) is edited as a hand or a fault could leave it, or replaced by
//! a fifo, as is its lock.
//!
//! Stopped processes are continued when a test ends, however it ends.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;

use super::*;

/// `timeout` (for every IMAP read and write) in the referee's config.toml.
fn set_timeout(dovecot: &Dovecot, timeout: &str) {
    let config = dovecot.home().join("config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config.toml");
    text.push_str(&format!("timeout = \"{timeout}\"\n"));
    std::fs::write(&config, text).expect("config.toml");
}

/// The processes of the test's dovecot: its master and every process it started.
fn dovecot_processes(dovecot: &Dovecot) -> Vec<i32> {
    // Written by the master once it has gone into the background, which may be after
    // it listens.
    let deadline = Instant::now() + WAIT;
    let master: i32 = loop {
        let pid = std::fs::read_to_string(dovecot.dir.path().join("run/master.pid"));
        if let Some(pid) = pid.ok().and_then(|pid| pid.trim().parse().ok()) {
            break pid;
        }
        assert!(
            Instant::now() < deadline,
            "no master.pid: {}",
            dovecot.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut all = vec![master];
    all.extend(children_of(master));
    all
}

/// The processes whose parent is `parent` (from /proc/PID/stat: the field after the
/// state, itself after the command's name in parentheses).
fn children_of(parent: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<i32>().ok())
                    == Some(parent)
            })
        })
        .collect()
}

/// The dovecot process serving a client that is in IDLE (its title says so:
/// `verbose_proctitle`).
fn imap_in_idle(dovecot: &Dovecot) -> Option<i32> {
    dovecot_processes(dovecot).into_iter().find(|pid| {
        let title = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let title = String::from_utf8_lossy(&title);
        title.contains("imap") && title.contains("IDLE")
    })
}

/// Processes stopped with SIGSTOP, continued when this is dropped.
struct Stopped(Vec<i32>);

impl Stopped {
    fn new(pids: Vec<i32>) -> Stopped {
        for pid in &pids {
            // SAFETY: kill has no preconditions; these are the test's own processes.
            unsafe {
                libc::kill(*pid, libc::SIGSTOP);
            }
        }
        Stopped(pids)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        for pid in &self.0 {
            // SAFETY: as above.
            unsafe {
                libc::kill(*pid, libc::SIGCONT);
            }
        }
    }
}

/// `pbem`, which must end within `limit` (a fifo once made it wait for ever).
fn run_for(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(KillOnDrop)
        .expect("pbem runs");
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "pbem did not end within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // What it said is short: the pipes held it all while it ran.
    let read = |pipe: Option<&mut dyn Read>| {
        let mut bytes = Vec::new();
        if let Some(pipe) = pipe {
            pipe.read_to_end(&mut bytes).expect("its output");
        }
        bytes
    };
    let stdout = read(child.stdout.as_mut().map(|pipe| pipe as &mut dyn Read));
    let stderr = read(child.stderr.as_mut().map(|pipe| pipe as &mut dyn Read));
    Output {
        status,
        stdout,
        stderr,
    }
}

/// The pass had nothing to say: `pbem inbox --imap` exits 0 and prints nothing on
/// standard error.
fn quiet_pass(dovecot: &Dovecot) -> Output {
    let output = dovecot.inbox();
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "{}",
        text(&output)
    );
    output
}

#[test]
fn watch_says_when_the_server_stops_answering_in_idle_and_connects_again() {
    let Some(dovecot) = dovecot_or_skip("imap server stopped in IDLE") else {
        return;
    };
    set_timeout(&dovecot, "2s");
    dovecot.start_game();
    // A round every 10 minutes: only the end of each IDLE can tell the server is gone.
    let mut watch = dovecot.watch_with(&["--poll", "10m", "--idle-check", "2s"]);
    let deadline = Instant::now() + WAIT;
    let server = loop {
        if let Some(pid) = imap_in_idle(&dovecot) {
            break pid;
        }
        assert!(
            Instant::now() < deadline,
            "no IDLE: {}",
            dovecot.watch_log()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let turn = dovecot.turn();
    let player = to_move(&dovecot.view());
    let reply = dovecot.reply(&player, &dovecot.a_move(&player), "stopped-in-idle");
    // The connection stays up (the kernel answers for the process), and nothing is said.
    let stopped = Stopped::new(vec![server]);
    let sent = Instant::now();
    dovecot.deliver(
        &format!("{}@pbem.test", player.to_ascii_lowercase()),
        &reply,
    );
    dovecot.wait_for_turn(turn + 1, "a move sent while the server was stopped");
    let took = sent.elapsed();
    let log = dovecot.watch_log();
    // An IDLE of 2 s at most, 2 s for the answer to its end, a new connection, a pass.
    assert!(took < Duration::from_secs(15), "{took:?}: {log}");
    assert!(
        log.contains(&format!(
            "timed out: localhost:{} did not answer within 2 s; connecting again",
            dovecot.imaps
        )),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            "imap: connected again to imaps://ref@localhost:{}/INBOX",
            dovecot.imaps
        )),
        "{log}"
    );
    eprintln!("imap server stopped in IDLE: the move applied {took:?} after it was sent");
    drop(stopped);
    sigterm(&watch);
    let status = watch.wait().expect("waits");
    assert!(status.success(), "{status}: {}", dovecot.watch_log());
    assert!(!dovecot.watch_log().contains(PASSWORD));
}

#[test]
fn a_server_that_does_not_answer_is_said_to_have_timed_out() {
    let Some(dovecot) = dovecot_or_skip("imap server not answering") else {
        return;
    };
    set_timeout(&dovecot, "1s");
    // All of it stopped: a connection is still taken (by the kernel), never answered.
    let stopped = Stopped::new(dovecot_processes(&dovecot));
    let started = Instant::now();
    let output = dovecot.inbox();
    let took = started.elapsed();
    let said = text(&output);
    assert_eq!(output.status.code(), Some(75), "{said}");
    assert!(
        said.contains(&format!(
            "timed out: localhost:{} did not answer within 1 s",
            dovecot.imaps
        )),
        "{said}"
    );
    // Neither the system's word for a timeout, nor a certificate to look at.
    for misleading in [
        "os error",
        "temporarily unavailable",
        "ca_file",
        "certificate",
    ] {
        assert!(!said.contains(misleading), "{misleading}: {said}");
    }
    assert!(took < Duration::from_secs(10), "{took:?}");
    drop(stopped);
    quiet_pass(&dovecot);
}

/// The referee's progress in the mailbox, as `.pbem-imap.state` keeps it.
fn progress(dovecot: &Dovecot) -> (String, Value) {
    let text = std::fs::read_to_string(dovecot.games().join(".pbem-imap.state")).expect("state");
    let states: serde_json::Map<String, Value> = serde_json::from_str(&text).expect("json");
    assert_eq!(states.len(), 1, "{text}");
    states.into_iter().next().expect("one mailbox")
}

fn next_uid(dovecot: &Dovecot) -> u64 {
    progress(dovecot).1["next"].as_u64().expect("next")
}

/// The file as a hand (or a fault) could leave it: `next` and `done` as given.
fn set_progress(dovecot: &Dovecot, next: u64, done: &[u64]) {
    let (key, mut kept) = progress(dovecot);
    kept["next"] = next.into();
    kept["done"] = done.into();
    let text = serde_json::json!({ key: kept }).to_string();
    std::fs::write(dovecot.games().join(".pbem-imap.state"), text).expect("state");
}

/// The reply of the player to move, with a move of theirs, delivered.
fn send_move(dovecot: &Dovecot, id: &str) {
    let player = to_move(&dovecot.view());
    let reply = dovecot.reply(&player, &dovecot.a_move(&player), id);
    dovecot.deliver(
        &format!("{}@pbem.test", player.to_ascii_lowercase()),
        &reply,
    );
}

/// A pass that says why it does not trust the progress file, and reads the mailbox
/// from its start: the move waiting is applied, and nothing twice.
fn pass_reading_again(dovecot: &Dovecot, turn: u64, wrong: &str) {
    let output = dovecot.inbox();
    let said = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{wrong}: {}", text(&output));
    let state = dovecot.games().join(".pbem-imap.state");
    assert!(
        said.starts_with(&format!("imap: {}", state.display())) && said.contains(wrong),
        "{wrong}: {said}"
    );
    assert!(
        said.contains("reading the mailbox from its start"),
        "{said}"
    );
    assert_eq!(said.lines().count(), 1, "{said}");
    assert_eq!(dovecot.turn(), turn, "{wrong}: {}", text(&output));
    // Said once: the file was put right at once.
    quiet_pass(dovecot);
}

#[test]
fn a_progress_file_that_cannot_be_right_is_said_and_the_mailbox_read_again() {
    let Some(dovecot) = dovecot_or_skip("imap progress file") else {
        return;
    };
    dovecot.start_game();
    send_move(&dovecot, "progress-1");
    let first = quiet_pass(&dovecot);
    assert_eq!(dovecot.turn(), 1, "{}", text(&first));

    // `next` beyond the mailbox's UIDNEXT: every message up to it would be passed over.
    send_move(&dovecot, "progress-2");
    set_progress(&dovecot, 500, &[]);
    pass_reading_again(
        &dovecot,
        2,
        "`next` is 500, but the mailbox's next message will be UID 3 (UIDNEXT)",
    );

    // The waiting message listed as done.
    send_move(&dovecot, "progress-3");
    let waiting = next_uid(&dovecot);
    set_progress(&dovecot, waiting, &[waiting]);
    pass_reading_again(
        &dovecot,
        3,
        &format!("lists UID {waiting}, not above `next` ({waiting})"),
    );

    // `next` of 0, which the server refuses to list from ("Invalid messageset").
    send_move(&dovecot, "progress-4");
    set_progress(&dovecot, 0, &[]);
    pass_reading_again(&dovecot, 4, "`next` is 0, and UIDs begin at 1");

    // A `done` UID the mailbox has not given yet: mail to come would be passed over.
    send_move(&dovecot, "progress-5");
    let waiting = next_uid(&dovecot);
    set_progress(&dovecot, waiting, &[waiting + 50]);
    pass_reading_again(
        &dovecot,
        5,
        &format!(
            "lists UID {}, but the mailbox's next message will be UID {}",
            waiting + 50,
            waiting + 1
        ),
    );

    // Not JSON at all.
    send_move(&dovecot, "progress-6");
    std::fs::write(dovecot.games().join(".pbem-imap.state"), "{ \"imaps:").expect("state");
    pass_reading_again(&dovecot, 6, "is not pbem's record of what it read");

    // A waiting message listed as done above a message that is not held back: as a
    // fault could leave it, and nothing in the file tells. The pass reads everything
    // else again and, since nothing is held, trusts that list no longer: the next
    // pass reads the message.
    send_move(&dovecot, "progress-7");
    let waiting = next_uid(&dovecot);
    set_progress(&dovecot, 1, &[waiting]);
    for _ in 0..2 {
        let output = dovecot.inbox();
        assert!(output.status.success(), "{}", text(&output));
    }
    assert_eq!(dovecot.turn(), 7);
    quiet_pass(&dovecot);

    // A fifo in place of the file, then of its lock: said, never waited on.
    let state = dovecot.games().join(".pbem-imap.state");
    let lock = dovecot.games().join(".pbem-imap.state.lock");
    for (fifo, said) in [
        (
            &state,
            format!(
                "{} is a fifo (named pipe), not a regular file: it is where pbem keeps what it has read of the IMAP mailbox; remove it",
                state.display()
            ),
        ),
        (
            &lock,
            format!(
                "{} is a fifo (named pipe), not a regular file; it is only a lock: remove it, and pbem makes it again",
                lock.display()
            ),
        ),
    ] {
        let _ = std::fs::remove_file(fifo);
        let made = Command::new("mkfifo").arg(fifo).status().expect("mkfifo");
        assert!(made.success());
        let output = run_for(
            dovecot
                .pbem()
                .args(["inbox", "--imap", "--games"])
                .arg(dovecot.games()),
            Duration::from_secs(20),
        );
        let told = text(&output);
        assert_eq!(output.status.code(), Some(75), "{told}");
        assert!(told.contains(&said) && !told.contains("cannot lock"), "{told}");
        std::fs::remove_file(fifo).expect("the fifo");
    }
    // Without the file, the mailbox is read again from its start: nothing is new.
    let output = dovecot.inbox();
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(dovecot.turn(), 7);
    let audit = dovecot.run(dovecot.pbem().arg("audit").arg(dovecot.game_file()));
    assert!(audit.status.success(), "{}", text(&audit));
}

#[test]
fn a_password_the_server_echoes_is_blanked_in_every_form() {
    use base64::Engine as _;
    // Quotes, a backslash and a space: IMAP sends it quoted as "Pa\"ss\\wo rd".
    let password = r#"Pa"ss\wo rd"#;
    let plain = base64::engine::general_purpose::STANDARD.encode(format!("\0ref\0{password}"));
    let login = base64::engine::general_purpose::STANDARD.encode(password);
    let dir = tempfile::tempdir().expect("dir");
    let home = dir.path().join("keyring");
    let games = dir.path().join("games");
    std::fs::create_dir(&home).expect("keyring");
    std::fs::create_dir(&games).expect("games");
    test_key(&home);
    // A server that refuses every login, saying back what it was sent, and the
    // password as AUTHENTICATE PLAIN and LOGIN would have sent it, and as it is.
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("address").port();
    let echoed = format!("AUTHENTICATE PLAIN {plain}, AUTHENTICATE LOGIN {login}, or {password}");
    let server = std::thread::spawn(move || {
        for client in listener.incoming().take(2) {
            let mut client = client.expect("a client");
            client
                .set_read_timeout(Some(Duration::from_secs(20)))
                .expect("timeout");
            client
                .write_all(b"* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN AUTH=LOGIN] echo ready\r\n")
                .expect("greeting");
            let mut line = String::new();
            BufReader::new(&client).read_line(&mut line).expect("login");
            let (tag, command) = line.trim_end().split_once(' ').unwrap_or(("*", ""));
            client
                .write_all(
                    format!("{tag} NO [AUTHENTICATIONFAILED] refused {command} (not {echoed})\r\n")
                        .as_bytes(),
                )
                .expect("answer");
        }
    });
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[mail]\nsmtp = \"smtp://127.0.0.1:9\"\nfrom = \"Referee <ref@pbem.test>\"\nimap = \"imap://ref@127.0.0.1:{port}/INBOX?tls=none\"\n"
        ),
    )
    .expect("config.toml");
    let pbem = |args: &[&str]| {
        let output = Command::new(assert_cmd::cargo::cargo_bin("pbem"))
            .args(args)
            .arg("--games")
            .arg(&games)
            .env("PBEM_HOME", &home)
            .env("PBEM_IMAP_PASSWORD", password)
            .env_remove("PBEM_SMTP")
            .env_remove("PBEM_IMAP")
            .output()
            .expect("pbem runs");
        assert_eq!(output.status.code(), Some(75), "{}", text(&output));
        text(&output)
    };
    for said in [pbem(&["inbox", "--imap"]), pbem(&["watch", "--once"])] {
        assert!(
            said.contains("refused the login of ref")
                && said.contains("LOGIN \"ref\" \"********\""),
            "{said}"
        );
        for form in [
            password,
            r#"Pa\"ss\\wo rd"#,
            plain.trim_end_matches('='),
            login.trim_end_matches('='),
        ] {
            assert!(!said.contains(form), "{form} shown: {said}");
        }
    }
    server.join().expect("the server");
}
