//! A game's mail through a real SMTP server: whole games, forged, stale and repeated
//! messages, reminders and deadlines, the referee's own moves and templates, signed
//! heads and receipts, joining by reply, long replies and questions.

use super::*;

fn outlook_reply(notice: &Mail, from: &str, text: &str, id: &str) -> String {
    replies::outlook_reply(&REFEREE, &notice.notice(), from, text, id)
}

fn apple_reply(notice: &Mail, from: &str, text: &str, id: &str) -> String {
    replies::apple_reply(&REFEREE, &notice.notice(), from, text, id)
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
    // Each mover's confirmation answers their own reply: it comes with their next
    // turn notice, or the end.
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
    // Nobody but the players and the referee is mailed: never the stranger, nor the
    // forger's address.
    assert!(
        mails.iter().all(|m| {
            [address(&first), address(second)].contains(&m.to) || m.to == "referee@pbem.example"
        }),
        "{:?}",
        mails.iter().map(|m| &m.to).collect::<Vec<_>>()
    );
    // The game's mail, that is all but the referee's day's message (which names no
    // game, so that it is never read as a move when it comes back).
    for mail in mails.iter().filter(|m| m.to != "referee@pbem.example") {
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
        1,
        "the next player's notice waits (the mover's confirmation comes with their next)"
    );
    host.smtp.resume();
    let (ok, out) = host.run(host.pbem().args(["outbox", "flush"]).arg(host.file()));
    assert!(ok, "{out}");
    let mails = host.mails();
    assert_eq!(mails.len(), delivered_at_start + 1);
    let next = host.view()["to_move"][0]
        .as_str()
        .expect("player")
        .to_string();
    assert!(mails
        .iter()
        .any(|m| m.to == address(&next) && m.subject.contains("Turn 2: your move")));
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

/// Every mail carries the signed head of the record it was sent after; the mover's
/// confirmation, which comes with their next turn notice, carries their own record's
/// hash as a receipt.
#[test]
fn every_mail_carries_the_signed_head_and_the_mover_a_receipt() {
    let host = Host::new();
    host.start_game();
    let head = || {
        host.view()["head"]["hash"]
            .as_str()
            .expect("hash")
            .to_string()
    };
    let genesis = head();
    for mail in host.mails() {
        assert!(mail.text.contains(&genesis), "{}", mail.subject);
    }
    let (player, text) = host.first_move();
    let notice = host.notice_for(&address(&player));
    let before = host.mails().len();
    assert!(host
        .inbox(&gmail_reply(&notice, &address(&player), &text, "receipt-1"))
        .starts_with("applied"));
    let receipt = head();
    let after: Vec<Mail> = host.mails().into_iter().skip(before).collect();
    // One mail per turn of one's own: the mover's confirmation waits for their next.
    assert_eq!(after.len(), 1, "the next player's notice alone");
    assert!(after[0].to != address(&player), "{}", after[0].subject);
    assert!(after[0].text.contains(&receipt), "{}", after[0].text);
    // The other moves; the first mover's next turn notice confirms their move with its
    // receipt, and carries the new head.
    let (other, text) = host.first_move();
    let notice = host.notice_for(&address(&other));
    let before = host.mails().len();
    assert!(host
        .inbox(&gmail_reply(&notice, &address(&other), &text, "receipt-2"))
        .starts_with("applied"));
    let after: Vec<Mail> = host.mails().into_iter().skip(before).collect();
    assert_eq!(after.len(), 1, "the first mover's turn notice alone");
    let confirmation = squeezed(&after[0].text);
    assert_eq!(after[0].to, address(&player));
    assert!(
        confirmation.contains(&format!("Your receipt, the hash of your record: {receipt}")),
        "{}",
        after[0].text
    );
    assert!(confirmation.contains(&head()), "{}", after[0].text);
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
