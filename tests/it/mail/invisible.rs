//! Invisible characters that reorder or split text, in what players send by mail: a
//! move holding one is refused by reply, naming it, with the file unchanged; a join's
//! words have it made a space.

use super::*;

#[test]
fn a_move_by_mail_with_an_invisible_character_is_refused_by_reply() {
    let host = Host::new();
    host.start_game();
    let (player, text) = host.first_move();
    let from = address(&player);
    let notice = host.notice_for(&from);
    let (first, rest) = text.split_once(' ').expect("a move of several words");
    for (n, (c, named)) in [
        ('\u{202E}', "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ('\u{2066}', "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ('\u{2028}', "U+2028 LINE SEPARATOR"),
    ]
    .into_iter()
    .enumerate()
    {
        let before = host.file_bytes();
        let sent = host.mails().len();
        let report = host.inbox(&gmail_reply(
            &notice,
            &from,
            &format!("{first}{c} {rest}"),
            &format!("invisible-{n}"),
        ));
        assert!(report.starts_with("refused"), "{report}");
        let answer = host.mails_since(sent).pop().expect("an answer");
        assert!(answer.text.contains(named), "{}", answer.text);
        assert!(!answer.text.contains(c), "{:?}", answer.text);
        assert_eq!(host.file_bytes(), before, "{named}");
    }
    // The same move without it is taken.
    let report = host.inbox(&gmail_reply(&notice, &from, &text, "visible"));
    assert!(report.starts_with("applied"), "{report}");
}

#[test]
fn a_join_by_mail_has_invisible_characters_in_its_words_made_spaces() {
    let host = Host::new();
    host.invite(&[]);
    let ann = host.invitation_to("ann@example.org");
    let out = host.inbox(&gmail_reply(
        &ann,
        "ann@example.org",
        "blue\u{202E}heron\u{2066}42",
        "<join-ann@example.org>",
    ));
    assert!(out.contains("joined"), "{out}");
    let invitation: Value =
        serde_json::from_slice(&host.file_bytes()).expect("the invitation is JSON");
    assert_eq!(
        invitation["joined"],
        serde_json::json!([{"player": "Ann", "entropy": "blue heron 42"}])
    );
}
