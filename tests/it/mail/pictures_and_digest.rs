//! The board's picture in each reader's mail, turned off and on, and the daily
//! digest that holds the others' moves until the next mail or a day.

use super::*;

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

    // A move by reply: the other's notice, with the board as its reader sees it (the
    // mover's confirmation comes with their next mail).
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
        1,
        "{:?}",
        after.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    assert_eq!(after[0].to, address(second));
    assert_eq!(
        picture_of(&after[0]),
        Some(shown_png(&host, second)),
        "{}",
        after[0].subject
    );

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
    let to_first = reply_to(second);
    assert_eq!(to_first.len(), 1);
    assert_eq!(
        picture_of(&to_first[0]),
        Some(shown_png(&host, &first)),
        "{}",
        to_first[0].subject
    );
    let to_second = reply_to(&first);
    assert_eq!(to_second.len(), 1);
    assert_eq!(to_second[0].to, address(second));
    assert_eq!(picture_of(&to_second[0]), None, "{}", to_second[0].text);
    assert!(
        !to_second[0].text.contains("board.png"),
        "{}",
        to_second[0].text
    );
    assert!(
        to_second[0].text.contains("hand ("),
        "the board is in the text: {}",
        to_second[0].text
    );

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
    let mails = reply_to(second);
    assert_eq!(mails.len(), 1);
    assert_eq!(picture_of(&mails[0]), None, "{}", mails[0].subject);
    let (ok, out) = host.run(
        host.pbem()
            .arg("pictures")
            .arg(host.file())
            .args(["on", "--player", "Nobody"]),
    );
    assert!(!ok && out.contains("no player"), "{out}");
    let (ok, out) = host.run(host.pbem().arg("pictures").arg(host.file()).arg("on"));
    assert!(ok, "{out}");
    let mails = reply_to(&first);
    assert_eq!(mails.len(), 1);
    assert!(picture_of(&mails[0]).is_some(), "{}", mails[0].subject);

    // `pictures = false` in config.toml: none in any game.
    std::fs::write(
        host.dir.path().join("keyring/config.toml"),
        "[mail]\npictures = false\n",
    )
    .expect("config");
    let mails = reply_to(second);
    assert_eq!(mails.len(), 1);
    assert_eq!(picture_of(&mails[0]), None, "{}", mails[0].subject);
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
    // Bob asks for every move's mail as it happens.
    let (report, answer) = reply("Bob", "digest off");
    assert!(report.contains("digest off"), "{report}");
    assert!(
        answer[0].subject.contains("Digest off"),
        "{}",
        answer[0].subject
    );

    // Turn 1 and 2: Ann and Bob choose face down while Cat is still to choose. Bob,
    // who asked for every move, hears of Ann's at once; Cat hears of neither yet, and
    // Ann not of Bob's.
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

    // And back to the default: nothing between her own turns, and a pass of reminders
    // sends her no digest of what is held however long it waits.
    let (report, answer) = reply("Cat", "digest turn");
    assert!(report.contains("digest turn"), "{report}");
    assert!(
        answer[0].subject.contains("Digest turn"),
        "{}",
        answer[0].subject
    );
    assert!(
        squeezed(&answer[0].text).contains("one mail for each turn of yours"),
        "{}",
        answer[0].text
    );
    let mut held_for_cat = 0;
    for _ in 0..12 {
        let mover = host.view()["to_move"][0]
            .as_str()
            .expect("a player")
            .to_string();
        let mails = play(&mover);
        let to_cat = to(&mails, "Cat");
        // Her own move and the others' are held; only her turn notices come.
        assert!(
            to_cat.iter().all(|m| m.subject.contains("your move")),
            "{:?}",
            to_cat.iter().map(|m| &m.subject).collect::<Vec<_>>()
        );
        if to_cat.is_empty() {
            // Something is held for her now: a pass of reminders days later sends her
            // no digest of it.
            held_for_cat += 1;
            let (out, mails) = remind(now + 3 * DAY);
            assert!(to(&mails, "Cat").is_empty(), "{out}");
            break;
        }
    }
    assert!(held_for_cat > 0, "some move held for Cat");
}
