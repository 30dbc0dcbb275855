//! The outbox: mail refused for good set aside, a message dropped by name, quiet
//! runs, flushes, and refused recipients and senders.

use super::*;

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
    let told = host.to_referee();
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

    // A stranger is answered by nobody: nothing to set aside.
    let stray = format!(
        "From: Eve <stranger@example.net>\r\nTo: referee@pbem.example\r\n\
Subject: {} my move\r\nMessage-ID: <stray-17@example.net>\r\n\r\npass\r\n",
        host.tag()
    );
    let before = host.mails().len();
    let (code, out) = host.inbox_with(&stray, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("not-a-player"), "{out}");
    assert!(!out.contains("stranger@example.net refused"), "{out}");
    assert!(
        host.mails_since(before)
            .iter()
            .all(|m| m.to != "stranger@example.net"),
        "the stranger is not answered"
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
    // Besides the notices of refused mail, the referee hears of the stranger once, in
    // the day's message.
    let (daily, told): (Vec<Mail>, Vec<Mail>) = host
        .to_referee()
        .into_iter()
        .partition(|m| m.subject.contains("message(s) for the referee"));
    assert_eq!(daily.len(), 1, "{daily:?}");
    assert!(
        daily[0].text.contains("stranger@example.net"),
        "{}",
        daily[0].text
    );
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
    host.start_game_while_mail_is_down();
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
    host.start_game_while_mail_is_down();
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

/// With the server down, the referee enters a move for each player in turn
/// (`apply --mail`): each player's turn notice reporting the other's move is
/// replaced by a later notice before it can go. Once the server is back, every
/// player has been told of every move the other made, each exactly once.
#[test]
fn moves_entered_while_the_server_is_down_each_reach_the_other_player_once() {
    let mut host = Host::new();
    host.start_game();
    let start = host.mails().len();
    host.smtp.stop();
    // Each move with its first report line (what it did, as both players read it).
    let mut made: Vec<(String, String)> = Vec::new();
    for _ in 0..4 {
        let (player, text) = host.first_move();
        let (ok, out) = host.run(
            host.pbem()
                .arg("apply")
                .arg(host.file())
                .args(["--player", &player, "--move", &text, "--mail"]),
        );
        assert!(out.contains("waiting in the outbox"), "{ok} {out}");
        let report = out
            .lines()
            .map(str::trim)
            .find(|line| line.starts_with(&format!("{player} placed")))
            .unwrap_or_else(|| panic!("a report line: {out}"))
            .to_string();
        made.push((player, report));
    }
    host.smtp.resume();
    let (ok, out) = host.run(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok, "{out}");
    let mails = host.mails_since(start);
    for (mover, report) in &made {
        let other = if mover == "Ann" { "Bob" } else { "Ann" };
        let telling = mails
            .iter()
            .filter(|m| m.to == address(other) && squeezed(&m.text).contains(report.as_str()))
            .count();
        assert_eq!(
            telling,
            1,
            "{other} told of `{report}`: {:#?}",
            mails
                .iter()
                .filter(|m| m.to == address(other))
                .map(|m| (&m.subject, &m.text))
                .collect::<Vec<_>>()
        );
    }
}
