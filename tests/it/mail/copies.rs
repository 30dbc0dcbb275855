//! A copy of a reply, delivered again under another Message-ID, is handled once; a new
//! reply is never taken for a copy, even when its Date (which RFC 5322 lets end at
//! the minute) and its words are those of an earlier reply of the same player.

use super::*;

/// One minute, without seconds, as a script or a terse client dates every message.
const ONE_MINUTE: &str = "Mon, 23 Nov 2026 10:07 +0000";

/// A Gmail-shaped reply to `notice`, dated [`ONE_MINUTE`] whatever its id.
fn reply_in_one_minute(notice: &Mail, from: &str, text: &str, id: &str) -> String {
    let raw = gmail_reply(notice, from, text, id);
    let date = format!("Date: {}\r\n", replies::sent_at(id));
    assert!(raw.contains(&date));
    raw.replace(&date, &format!("Date: {ONE_MINUTE}\r\n"))
}

/// The same message as delivered again by a forwarder: another Message-ID, the rest
/// the same.
fn copy_of(raw: &str, id: &str) -> String {
    let copied = raw.replace(
        &format!("<{id}@mail.gmail.com>"),
        &format!("<{id}-copy@forwarder.example>"),
    );
    assert_ne!(copied, raw);
    copied
}

impl Host {
    /// `pbem new --mail` of `game` for `names` (each with an address).
    fn start(&self, game: &str, names: &[&str]) {
        let mut new = self.pbem();
        new.args(["new", game]);
        for name in names {
            new.args(["--player", &format!("{name} <{}>", address(name))]);
        }
        let (ok, out) = self.run(
            new.args(["--seed", SEED, "--mail", "--out"])
                .arg(self.file()),
        );
        assert!(ok, "{out}");
    }

    /// The newest mail to `to` whose subject has `words`.
    fn newest_to(&self, to: &str, words: &str) -> Option<Mail> {
        self.mails()
            .into_iter()
            .rev()
            .find(|m| m.to == to && m.subject.contains(words))
    }
}

/// Plays `moves` moves of `game` (or to its end) by replies to each player's newest
/// turn notice, every reply dated the same minute, a player repeating their last
/// move's words whenever those are legal again (`discover C2` turn after turn). Every
/// reply is applied, and a copy of each, under another Message-ID, is answered as
/// one and changes nothing. Once, from `undo_at` on, the mover takes their move back
/// and sends it again, the same words in the same minute: it is applied again.
/// With `repeats`, the game must have offered a player the same words again.
fn one_minute_of_replies(
    game: &str,
    names: &[&str],
    picks: u64,
    moves: usize,
    undo_at: usize,
    repeats: bool,
) {
    let host = Host::new();
    std::fs::write(
        host.dir.path().join("keyring/config.toml"),
        "[mail]\npictures = false\n",
    )
    .expect("config");
    host.start(game, names);
    let mut picker = pbem::engine::DrawStream::for_testing(picks);
    let mut last: std::collections::BTreeMap<String, String> = Default::default();
    let mut undone = false;
    let mut repeated = 0;
    for step in 0..moves {
        let view = host.view();
        if view["over"] == true {
            break;
        }
        let waiting = crate::support::all_to_move(&view);
        let player = waiting[picker.index(waiting.len() as u32) as usize].clone();
        let legal = host.legal(&player);
        let text = match last.get(&player) {
            Some(before) if legal.contains(before) => {
                repeated += 1;
                before.clone()
            }
            _ => legal[picker.index(legal.len() as u32) as usize].clone(),
        };
        let from = address(&player);
        let notice = host.newest_to(&from, "your move").expect("a turn notice");
        let id = format!("{game}-{step}");
        let reply = reply_in_one_minute(&notice, &from, &text, &id);
        let report = host.inbox(&reply);
        assert!(
            report.starts_with("applied"),
            "step {step}, {player} `{text}`: {report}"
        );
        last.insert(player.clone(), text.clone());
        let applied = host.file_bytes();
        let report = host.inbox(&copy_of(&reply, &id));
        assert!(report.starts_with("duplicate"), "step {step}: {report}");
        assert_eq!(host.file_bytes(), applied, "a copy changes nothing");

        // From `undo_at` on, until a take-back is allowed (not after a draw, say).
        if step >= undo_at && !undone {
            let ask = format!("{id}-undo");
            let notice = host.newest_to(&from, "your move").expect("a turn notice");
            // A notice sent after the move (its maker still to move) offers `undo`
            // exactly when it is taken.
            let current = crate::support::all_to_move(&host.view()).contains(&player);
            let offered = squeezed(&notice.text).contains("`undo` asks to take back");
            let report = host.inbox(&reply_in_one_minute(&notice, &from, "undo", &ask));
            if current {
                assert_eq!(
                    offered,
                    report.starts_with("undo"),
                    "{report}\n{}",
                    notice.text
                );
            }
            if !report.starts_with("undo") {
                continue;
            }
            // Where the others must agree, each does, by reply to the request.
            for other in names.iter().filter(|n| **n != player) {
                let to = address(other);
                if let Some(asked) = host.newest_to(&to, "asks to take back") {
                    let id = format!("{id}-agree-{other}");
                    host.inbox(&reply_in_one_minute(&asked, &to, "agree", &id));
                }
            }
            let view = host.view();
            let again = view["to_move"]
                .as_array()
                .is_some_and(|list| list.iter().any(|p| p == player.as_str()))
                && host.legal(&player).contains(&text);
            if !again {
                continue;
            }
            let notice = host.newest_to(&from, "your move").expect("a notice");
            let resent = format!("{id}-again");
            let report = host.inbox(&reply_in_one_minute(&notice, &from, &text, &resent));
            assert!(
                report.starts_with("applied"),
                "{player} `{text}` sent again after the take-back: {report}"
            );
            undone = true;
        }
    }
    assert!(
        repeated > 0 || !repeats,
        "{game}: no move was sent twice in the same words"
    );
    assert!(undone, "{game}: no move was taken back and sent again");
    let (ok, out) = host.run(host.pbem().args(["audit", "--public"]).arg(host.file()));
    assert!(ok, "{out}");
}

#[test]
fn replies_in_the_same_minute_with_the_same_words_are_each_applied_and_copies_once() {
    // The desert kingdom offers the same words turn after turn (`discover C2`).
    one_minute_of_replies("desert-kingdom", &["Ann", "Bob"], 7, 26, 4, true);
    // Right of way's moves name new places; it has the take-back by reply.
    one_minute_of_replies("right-of-way", &["Ann", "Bob"], 3, 14, 2, false);
}
