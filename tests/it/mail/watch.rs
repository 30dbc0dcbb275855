//! The README's cron lines over a week, and `pbem watch` on a Maildir doing what
//! they do, deadlines included.

use super::*;

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
    let referee_mails = host.to_referee().len();
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
        .map(crate::support::KillOnDrop)
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
    let next = crate::support::to_move(&view);
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
    let player = crate::support::to_move(&host.view());
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

/// A fault with one game's message makes `pbem watch` pause for nobody: it is logged
/// once (and once more when it ends), never "trying again", and a move for the other
/// game delivered meanwhile is applied at the next poll.
#[test]
fn watch_makes_no_pause_for_one_games_fault_and_logs_it_once() {
    let host = Host::new();
    host.start_game();
    let maildir = host.maildir();
    let broken = host.games().join("broken.json");
    std::fs::write(
        &broken,
        "{\"format\": \"pbem.game/3\", \"genesis\": {\"id\"",
    )
    .expect("write");
    deliver_at(
        &maildir,
        "1764000001.M1P1.mx",
        "From: Carol <carol@example.net>\r\nTo: referee@pbem.example\r\n\
Subject: [pbem row-0badf11e] pass\r\nMessage-ID: <held-w@example.net>\r\n\r\npass\r\n",
        1_764_000_001,
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
        .map(crate::support::KillOnDrop)
        .expect("runs");
    let logged = || std::fs::read_to_string(&log).unwrap_or_default();
    let wait_for = |what: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !what() {
            assert!(std::time::Instant::now() < deadline, "{}", logged());
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_for(&|| logged().contains("held back:"));
    // Some rounds pass with the message held.
    std::thread::sleep(Duration::from_secs(3));
    let (player, text) = host.first_move();
    let from = address(&player);
    deliver_at(
        &maildir,
        "1764000002.M2P2.mx",
        &gmail_reply(&host.notice_for(&from), &from, &text, "watch-free"),
        1_764_000_002,
    );
    let delivered = std::time::Instant::now();
    wait_for(&|| host.view()["head"]["turn"] == 1);
    assert!(
        delivered.elapsed() < Duration::from_secs(5),
        "applied after {:?}: {}",
        delivered.elapsed(),
        logged()
    );
    std::fs::remove_file(&broken).expect("mended");
    wait_for(&|| logged().contains("nothing is held back any more"));
    // SAFETY: kill has no preconditions; a process already gone is harmless.
    unsafe {
        libc::kill(watch.id() as i32, libc::SIGTERM);
    }
    assert!(watch.wait().expect("waits").success());
    let said = logged();
    assert_eq!(said.matches("held back:").count(), 1, "{said}");
    assert!(!said.contains("trying again"), "{said}");
    assert_eq!(host.held_notices(), 1, "{said}");
}
