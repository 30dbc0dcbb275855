//! Faults on either side of the mail: runs at once or killed, exit 75, turns applied
//! whole or not at all, strangers and planted files, mail outages, cut game files,
//! the order of a Maildir, and mail that matches no game.

use super::*;

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
    let players = |mails: &[Mail]| {
        mails
            .iter()
            .filter(|m| m.to != "referee@pbem.example")
            .count()
    };
    assert_eq!(
        players(&host.mails()),
        players(&host.mails()[..delivered]),
        "no player answered"
    );
    // The referee hears once of each fault a run with their key met (the game of
    // another key, the lock held); without a key or with a bad config, pbem has no
    // referee to mail as.
    let told = host.mails()[delivered..]
        .iter()
        .filter(|m| m.to == "referee@pbem.example" && m.subject.contains("held back"))
        .count();
    assert_eq!(told, 2);
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
    // Nothing of what the sender wrote is repeated: their sender may be anyone.
    assert!(
        !body.contains("hello") && !body.contains("WAS applied") && !body.contains("mallory"),
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
    // The game stands, but nobody knows of it yet: not done, so exit 75.
    assert!(!ok, "{out}");
    assert!(
        host.file().exists(),
        "the game stands though mail cannot go out"
    );
    assert!(out.contains("outbox flush"), "{out}");
    assert!(out.contains("exit status 75"), "{out}");
    assert!(!out.contains("mail server keeps"), "{out}");
    host.smtp.resume();
    let (ok, out) = host.run(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok, "{out}");
    assert_eq!(
        host.mails().len(),
        3,
        "two welcomes and the first turn notice"
    );
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

    for _ in 0..2 {
        let (code, out) = host.inbox_with(&reply, &[]);
        assert_eq!(code, Some(75), "{out}");
        assert!(out.contains("cannot be read as a game file"), "{out}");
        assert!(out.contains("a mail server keeps the message"), "{out}");
    }
    assert!(
        !host.games().join("unmatched.mail/index.jsonl").exists(),
        "nothing is filed as matching no game"
    );
    let told = host.to_referee();
    assert_eq!(
        told.len(),
        1,
        "the referee is told once, not at every retry"
    );
    assert!(told[0].subject.contains("held back"), "{}", told[0].subject);

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
    assert!(!host.games().join("unmatched.mail/index.jsonl").exists());

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

/// A fault with one of a player's games holds back that game's mail only. With a
/// second game's archive not a folder and a game file cut short in the folder, the
/// player's reply in that second game and a stranger's unproven mail `From:` the
/// player naming an unknown game are held, while the player's move in the first game
/// is applied, pass after pass. The referee is told by mail once for each held
/// message, however many passes retry it, and once mended the held reply applies.
#[test]
fn a_players_moves_are_held_only_by_the_fault_of_the_game_they_are_for() {
    let host = Host::new();
    host.start_game();
    let other = host.games().join("other.json");
    let (ok, out) = host.run(
        host.pbem()
            .args(["new", "right-of-way"])
            .args(["--player", "Ann <ann@example.org>"])
            .args(["--player", "Bob <bob@example.org>"])
            .args(["--seed", &"4".repeat(64), "--mail", "--out"])
            .arg(&other),
    );
    assert!(ok, "{out}");
    let (player, text) = host.first_move();
    let from = address(&player);
    let other_id = {
        let output = host
            .pbem()
            .arg("show")
            .arg(&other)
            .args(["--format", "json"])
            .output()
            .expect("runs");
        let view: Value = serde_json::from_slice(&output.stdout).expect("json");
        view["id"].as_str().expect("id").to_string()
    };
    // The player's token in the other game, from their welcome to it.
    let other_token = host
        .mails()
        .into_iter()
        .find(|m| m.to == from && m.subject.contains(&other_id) && m.subject.contains("Welcome"))
        .and_then(|m| {
            m.text
                .lines()
                .find_map(|l| l.trim().strip_prefix("pbem-token: ").map(str::to_string))
        })
        .expect("a token");
    let notice = host
        .mails()
        .into_iter()
        .rev()
        .find(|m| m.to == from && !m.subject.contains(&other_id) && m.subject.contains("your move"))
        .expect("the first game's notice");
    // The referee's side: the other game's archive is a file, and a game file is cut
    // short.
    let archive = host.games().join("other.json.mail");
    std::fs::remove_dir_all(&archive).ok();
    std::fs::write(&archive, "not a folder").expect("write");
    let broken = host.games().join("broken.json");
    std::fs::write(
        &broken,
        "{\"format\": \"pbem.game/3\", \"genesis\": {\"id\"",
    )
    .expect("write");

    let maildir = host.maildir();
    deliver_at(
        &maildir,
        "1.other-game",
        &token_message(
            &format!("[pbem {other_id}]"),
            &other_token,
            &from,
            "moves",
            "held-other",
        ),
        1_764_000_001,
    );
    let forged = format!(
        "From: {player} <{from}>\r\nTo: referee@pbem.example\r\n\
Subject: [pbem row-0badf11e] pass\r\nMessage-ID: <held-forged@example.net>\r\n\
Date: Mon, 23 Nov 2026 10:07 +0000\r\n\r\npass\r\n"
    );
    deliver_at(&maildir, "2.forged", &forged, 1_764_000_002);
    deliver_at(
        &maildir,
        "3.move",
        &gmail_reply(&notice, &from, &text, "free-move"),
        1_764_000_003,
    );
    let referee_told = || {
        let mut told = host.to_referee();
        told.retain(|m| m.subject.contains("held back"));
        told
    };
    for pass in 0..2 {
        let output = host
            .inbox_maildir()
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        let said = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(75), "pass {pass}: {said}");
        assert!(said.contains("2 message(s) held back wait"), "{said}");
        assert!(said.contains("stay in the Maildir"), "{said}");
        assert!(!said.contains("mail server keeps"), "{said}");
        assert_eq!(
            host.view()["turn"],
            1,
            "pass {pass}: the free move is applied once"
        );
        let told = referee_told();
        assert_eq!(told.len(), 2, "pass {pass}: once per held message");
        assert!(
            told.iter()
                .any(|m| m.text.contains("not a folder") || m.text.contains("other.json.mail")),
            "{:?}",
            told.iter().map(|m| &m.text).collect::<Vec<_>>()
        );
        assert!(told.iter().any(|m| m.text.contains("broken.json")));
        for mail in &told {
            assert!(!mail.subject.contains("[pbem"), "{}", mail.subject);
            assert!(!mail.text.contains(&text), "never the message's words");
        }
    }
    let mut claimed = filed_in(&maildir);
    claimed.retain(|name| name.ends_with(".processing"));
    assert_eq!(claimed, ["1.other-game.processing", "2.forged.processing"]);

    std::fs::remove_file(&archive).expect("mended");
    std::fs::remove_file(&broken).expect("moved away");
    let output = host.inbox_maildir().output().expect("runs");
    assert!(output.status.success());
    let index = std::fs::read_to_string(archive.join("index.jsonl")).expect("kept");
    assert!(
        index.contains("held-other@") && index.contains("\"moves\""),
        "the held reply is answered once mended: {index}"
    );
    assert_eq!(referee_told().len(), 2, "nothing more to tell");
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
    // Named as a machine's, by the mark that says so; never by its subject.
    assert!(
        told[0].text.contains("sent by a machine")
            && told[0].text.contains("Auto-Submitted: auto-replied"),
        "{}",
        told[0].text
    );
    assert!(!told[0].text.contains("Undelivered Mail Returned to Sender"));
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
        !text.contains("hello") && !text.contains("WAS applied"),
        "a stranger's subject is not shown: {text}"
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

/// A flood of mail that matches no game is bounded: the newest 1,000 messages are
/// kept, the older ones removed as new ones come, and the referee's next message says
/// how many were removed and lists only the newest 50, however many came within one
/// second.
#[test]
fn a_flood_of_mail_for_no_game_keeps_the_newest_thousand_and_the_referee_is_told() {
    let host = Host::new();
    host.start_game();
    let day = 1_795_600_000u64;
    let maildir = host.maildir();
    let flood = 1_010u64;
    for n in 0..flood {
        let raw = format!(
            "From: seller{n}@spam.example\r\nTo: referee@pbem.example\r\nSubject: offer {n}\r\n\
Message-ID: <flood-{n}@spam.example>\r\n\r\nbuy now\r\n"
        );
        deliver_at(&maildir, &format!("{n:05}.flood"), &raw, 1_764_000_000 + n);
    }
    let output = host
        .inbox_maildir()
        .env("PBEM_NOW", day.to_string())
        .output()
        .expect("runs");
    assert!(output.status.success());
    let unmatched = host.games().join("unmatched.mail");
    let kept = std::fs::read_dir(&unmatched)
        .expect("kept")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".eml"))
        })
        .count();
    assert_eq!(kept, 1000);
    let index = std::fs::read_to_string(unmatched.join("index.jsonl")).expect("index");
    assert_eq!(index.lines().count(), 1000);
    assert!(index.lines().next().expect("a line").contains("flood-10@"));
    let for_referee = || host.to_referee();
    assert_eq!(for_referee().len(), 1, "told of the first at once");

    let (ok, out) = host.run(
        host.pbem()
            .env("PBEM_NOW", (day + 86_400 + 60).to_string())
            .args(["remind", "--after", "3d", "--games"])
            .arg(host.games()),
    );
    assert!(ok, "{out}");
    let told = for_referee();
    assert_eq!(told.len(), 2);
    let text = squeezed(&told[1].text);
    assert!(
        told[1].subject.contains("1000 message(s)"),
        "{}",
        told[1].subject
    );
    assert!(
        text.contains("The newest 50 are listed; the 950 before them"),
        "{text}"
    );
    assert_eq!(told[1].text.matches("From:").count(), 50);
    assert!(
        text.contains("seller1009@spam.example") && !text.contains("seller959@"),
        "{text}"
    );
    assert!(
        text.contains("unmatched.mail keeps the newest 1000 messages that match no game: 10 older one(s) were removed"),
        "{text}"
    );
    assert!(told[1].text.lines().all(|line| line.chars().count() <= 78));
}

/// A second games folder reading the same mailbox is noticed: a reply to a notice of
/// this referee's, for a game that is not in the folder, is kept unanswered as
/// `other-folder`, and the referee's message about mail for no game names it so.
#[test]
fn a_reply_for_a_game_of_another_folder_is_named_for_the_referee() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let from = address(&player);
    let reply = gmail_reply(&host.notice_for(&from), &from, &text, "elsewhere-1");
    let second = host.dir.path().join("second-games");
    std::fs::create_dir_all(&second).expect("folder");
    let mut pbem = host.pbem();
    pbem.env("PBEM_FROM", "Rita Ref <referee@pbem.example>");
    let output = super::super::support::inbox(pbem, &second, &reply);
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{report}");
    assert!(report.starts_with("other-folder"), "{report}");
    assert!(report.contains("another games folder"), "{report}");
    assert_eq!(host.view()["turn"], 0, "nothing applied");
    let told = host.to_referee();
    assert_eq!(told.len(), 1);
    // Addressed to the referee by the name they configured.
    assert!(
        told[0]
            .raw
            .contains("To: \"Rita Ref\" <referee@pbem.example>"),
        "{}",
        told[0].raw
    );
    assert!(
        squeezed(&told[0].text).contains("a reply to pbem's notice of a game not in this folder"),
        "{}",
        told[0].text
    );
    // The folder the game is in takes the same reply as ever.
    assert!(host.inbox(&reply).starts_with("applied"));
}

/// Size of a folder's files, all the way down.
fn folder_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| {
            let path = entry.path();
            if path.is_dir() {
                folder_bytes(&path)
            } else {
                entry.metadata().map_or(0, |m| m.len())
            }
        })
        .sum()
}

/// A flood of forged senders with a real game's tag, some of them large, and
/// auto-replies of every kind to a real notice (reply code and all): nobody but the
/// players and the referee is ever mailed, no automatic message is answered or read
/// as a move, the game's archive grows by headers alone, and the referee hears of it
/// all in one message.
#[test]
fn a_flood_of_strangers_and_machines_makes_the_referee_mail_nobody() {
    let host = Host::new();
    let day = 1_796_000_000u64;
    host.set_clock(day);
    host.start_game();
    let (player, text) = host.first_move();
    let from = address(&player);
    let notice = host.notice_for(&from);
    let before = host.file_bytes();
    let mails_before = host.mails().len();
    let archive = host.games().join("game.json.mail");
    let archive_before = folder_bytes(&archive);
    let tag = host.tag();
    let strangers = 120;
    for n in 0..strangers {
        // Every fifth one large: 3 MiB of a stranger's text.
        let body = if n % 5 == 0 {
            "visit https://spam.example/\r\n".repeat(100_000)
        } else {
            "visit https://spam.example/\r\n".to_string()
        };
        let raw = format!(
            "From: Someone {n} <victim{n}@elsewhere.example>\r\nTo: referee@pbem.example\r\n\
Subject: Re: {tag} Turn 1 https://spam.example/{n}\r\nMessage-ID: <flood-{n}@elsewhere.example>\r\n\
Date: Mon, 30 Nov 2026 10:00:00 +0000\r\n\r\n{body}"
        );
        let (code, out) = host.inbox_with(&raw, &[]);
        assert_eq!(code, Some(0), "{out}");
        assert!(out.starts_with("not-a-player"), "{out}");
    }
    // Auto-replies from the player's own address, quoting the notice's reply code
    // in the subject and citing the notice: each kind a responder or server writes.
    let reply = gmail_reply(&notice, &from, &text, "auto");
    let (head, rest) = reply.split_once("\r\n").expect("a header");
    for (n, mark) in [
        "Auto-Submitted: auto-replied",
        "Auto-Submitted: auto-generated",
        "Precedence: bulk",
        "Precedence: junk",
        "X-Autoreply: yes",
        "X-Autorespond: on holiday",
        "Return-Path: <>",
        "X-Failed-Recipients: bob@example.org",
        "List-Id: Games <games.example.org>",
    ]
    .iter()
    .enumerate()
    {
        let raw = format!(
            "{head}\r\n{mark}\r\n{}",
            rest.replace("auto@", &format!("auto{n}@"))
        );
        let (code, out) = host.inbox_with(&raw, &[]);
        assert_eq!(code, Some(0), "{mark}: {out}");
        assert!(out.starts_with("automatic"), "{mark}: {out}");
        assert_eq!(host.file_bytes(), before, "{mark}: never read as a move");
    }
    let sent = host.mails_since(mails_before);
    let players = [address("Ann"), address("Bob")];
    assert!(
        sent.iter()
            .all(|m| m.to == "referee@pbem.example" || players.contains(&m.to)),
        "{:?}",
        sent.iter().map(|m| &m.to).collect::<Vec<_>>()
    );
    assert!(
        sent.iter().all(|m| !players.contains(&m.to)),
        "no player is answered for a machine or told of strangers"
    );
    let to_referee: Vec<&Mail> = sent
        .iter()
        .filter(|m| m.to == "referee@pbem.example")
        .collect();
    assert_eq!(
        to_referee.len(),
        1,
        "one message a day: {:?}",
        to_referee
            .iter()
            .take(3)
            .map(|m| &m.subject)
            .collect::<Vec<_>>()
    );
    assert!(
        !to_referee[0].text.contains("spam.example"),
        "nothing a stranger wrote: {}",
        to_referee[0].text
    );
    // 24 messages of 3 MiB came; the archive grew by headers (under 32 KiB each).
    let grown = folder_bytes(&archive) - archive_before;
    assert!(grown < (strangers as u64) * 4096, "grew by {grown} bytes");
    assert_eq!(host.file_bytes(), before);
}
