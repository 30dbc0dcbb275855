//! What a player's own text may hold where it becomes part of a game, through the real
//! binary: names at `pbem new` (a game at once and an invitation), the words of
//! `pbem join`, and moves at `pbem apply`. Refused text names the character (by code
//! point and name) or the two names that look alike, exits non-zero and leaves every
//! file as it was; a game file written before these checks still loads, audits and
//! plays on.

use std::collections::BTreeMap;
use std::path::Path;

use super::support::{to_move, Table};

const SEED: &str = "7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e7a3e";

/// The invisible characters of each kind the checks refuse: the right-to-left
/// override, the zero-width space, the line and paragraph separators, the four bidi
/// isolates, and one each of a left-to-right mark, the byte order mark, the zero-width
/// joiner and a control character (escape).
const INVISIBLE: [char; 12] = [
    '\u{202E}', '\u{200B}', '\u{2028}', '\u{2029}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
    '\u{200E}', '\u{FEFF}', '\u{200D}', '\u{1B}',
];

/// Every file under `dir`, with its bytes: what a refused command must leave as it was.
/// But for the lock beside a game file (`FILE.lock`, empty), which a command that may
/// write takes before it reads the file, and leaves.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "lock") {
                continue;
            } else {
                let bytes = std::fs::read(&path).expect("a file");
                found.insert(path.display().to_string(), bytes);
            }
        }
    }
    found
}

/// `U+202E`, as errors name a character.
fn code(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// Runs `pbem new right-of-way` (with `--join`: the invitation) for `players`;
/// returns whether it succeeded and what it printed on standard error.
fn new(table: &Table, players: &[&str], join: bool) -> (bool, String) {
    let mut command = table.pbem();
    command.args(["new", "right-of-way"]);
    for player in players {
        command.args(["--player", player]);
    }
    if join {
        command.arg("--join");
    }
    let output = command
        .args(["--seed", SEED, "--out"])
        .arg(table.file())
        .output()
        .expect("pbem runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `pbem new` refuses `players`, at once and as an invitation, with an error holding
/// every piece of `says`, none of the refused characters themselves, and no file
/// written or changed.
fn refused_at_new(players: &[&str], says: &[&str]) {
    for join in [false, true] {
        let table = Table::new();
        table.test_key();
        let before = files(table.dir.path());
        let (ok, err) = new(&table, players, join);
        assert!(!ok, "{players:?} (join: {join}) was accepted");
        for piece in says {
            assert!(err.contains(piece), "{players:?}: {piece:?} not in {err}");
        }
        assert!(
            !err.chars().any(|c| INVISIBLE.contains(&c)),
            "the error carries the character itself: {err:?}"
        );
        assert_eq!(
            files(table.dir.path()),
            before,
            "{players:?}: a file changed"
        );
    }
}

#[test]
fn names_with_invisible_characters_are_refused_at_new() {
    for c in INVISIBLE {
        for name in [format!("Ann{c}"), format!("A{c}nn"), format!("{c}Ann")] {
            refused_at_new(
                &[&name, "Bob"],
                &["not a usable player name", &code(c), "as in --player"],
            );
        }
    }
    // Named too, where Unicode names it.
    refused_at_new(&["Ann\u{202E}", "Bob"], &["U+202E RIGHT-TO-LEFT OVERRIDE"]);
    refused_at_new(&["Ann\u{200B}", "Bob"], &["U+200B ZERO WIDTH SPACE"]);
    refused_at_new(&["Ann\u{2066}x", "Bob"], &["U+2066 LEFT-TO-RIGHT ISOLATE"]);
    // In an address too: it is written into mail headers.
    refused_at_new(
        &["Ann <ann\u{202E}@example.org>", "Bob"],
        &["not one mail address"],
    );
}

#[test]
fn a_name_mixing_scripts_in_letters_alike_is_refused_at_new() {
    // A Cyrillic а (U+0430) and А (U+0410) among Latin letters; a Cyrillic word drawn
    // in Latin look-alikes beside a Latin one.
    for name in ["Аnn", "Annа", "Ann Вор"] {
        refused_at_new(
            &[name, "Bob"],
            &[
                "not a usable player name",
                "mixes Cyrillic and Latin",
                "one script",
            ],
        );
    }
    refused_at_new(&["Аnn", "Bob"], &["U+0410 CYRILLIC CAPITAL LETTER A"]);
}

#[test]
fn names_that_look_alike_are_refused_at_new() {
    for (first, second, differing) in [
        // Latin and Cyrillic, each name in one script.
        (
            "Bop",
            "Вор",
            "U+0412 CYRILLIC CAPITAL LETTER VE for U+0042 LATIN CAPITAL LETTER B",
        ),
        (
            "Will",
            "WiII",
            "U+0049 LATIN CAPITAL LETTER I for U+006C LATIN SMALL LETTER L",
        ),
        (
            "Bob",
            "B0b",
            "U+0030 DIGIT ZERO for U+006F LATIN SMALL LETTER O",
        ),
        ("Zoë", "ZOË", "U+00CB LATIN CAPITAL LETTER E WITH DIAERESIS"),
        ("Kim", "Kirn", ""),
        (
            "Ann Lee",
            "Ann\u{A0}Lee",
            "U+00A0 NO-BREAK SPACE for U+0020 SPACE",
        ),
    ] {
        refused_at_new(
            &[first, second],
            &[
                &format!("{first:?} and {second:?} (seats 1 and 2) have names that look alike"),
                differing,
            ],
        );
    }
    // A third seat alike to the first.
    refused_at_new(
        &["Bop", "Sue", "Вор"],
        &["\"Bop\" and \"Вор\" (seats 1 and 3)"],
    );
}

#[test]
fn names_each_in_one_script_are_taken_at_new() {
    let table = Table::new();
    table.start(
        "desert-kingdom",
        &["Анна", "José", "李雷", "山田 はなこ", "김민수", "Ζωή"],
        SEED,
    );
    let view = table.view();
    let names = player_names(&view);
    assert_eq!(
        names,
        ["Анна", "José", "李雷", "山田 はなこ", "김민수", "Ζωή"]
    );
    // And as an invitation, joined by one of them.
    let table = Table::new();
    table.test_key();
    let (ok, err) = new(&table, &["Анна", "李雷 Lei"], true);
    assert!(ok, "{err}");
    table
        .pbem()
        .arg("join")
        .arg(table.file())
        .args(["--player", "Анна", "--entropy", "синяя цапля 42"])
        .assert()
        .success();
}

#[test]
fn words_with_invisible_characters_are_refused_at_join() {
    let table = Table::new();
    table.test_key();
    let (ok, err) = new(&table, &["Ann", "Bob"], true);
    assert!(ok, "{err}");
    let before = files(table.dir.path());
    for c in INVISIBLE {
        for words in [format!("blue heron{c} 42"), format!("{c}blue heron")] {
            let output = table
                .pbem()
                .arg("join")
                .arg(table.file())
                .args(["--player", "Ann", "--entropy", &words])
                .output()
                .expect("pbem runs");
            let err = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success(), "{words:?} was taken");
            assert!(
                err.contains(&code(c))
                    && err.contains("in the words")
                    && err.contains("without it"),
                "{words:?}: {err}"
            );
            assert!(!err.chars().any(|c| INVISIBLE.contains(&c)), "{err:?}");
            assert_eq!(files(table.dir.path()), before, "{words:?}: a file changed");
        }
    }
    // A name given with one is no player's: refused, and not echoed as it is.
    let output = table
        .pbem()
        .arg("join")
        .arg(table.file())
        .args(["--player", "Ann\u{202E}", "--entropy", "blue heron"])
        .output()
        .expect("pbem runs");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && !err.contains('\u{202E}'),
        "{err:?}"
    );
    assert_eq!(files(table.dir.path()), before);
}

#[test]
fn moves_with_invisible_characters_are_refused_and_the_file_is_unchanged() {
    let table = Table::new();
    table.new_game(SEED);
    let (mover, text) = table.first_move();
    let before = files(table.dir.path());
    for c in INVISIBLE {
        let (first, rest) = text.split_once(' ').expect("a move of several words");
        // After the first word, in place of a space, and at the end.
        for sent in [
            format!("{first}{c} {rest}"),
            format!("{first}{c}{rest}"),
            format!("{text}{c}"),
        ] {
            for preview in [false, true] {
                let mut command = table.pbem();
                command
                    .arg("apply")
                    .arg(table.file())
                    .args(["--player", &mover, "--move", &sent]);
                if preview {
                    command.arg("--preview");
                }
                let output = command.output().expect("pbem runs");
                let err = String::from_utf8_lossy(&output.stderr);
                assert!(!output.status.success(), "{sent:?} was applied");
                assert!(
                    err.contains(&code(c)) && err.contains("in the move"),
                    "{sent:?}: {err}"
                );
                assert!(!err.chars().any(|c| INVISIBLE.contains(&c)), "{err:?}");
                assert_eq!(files(table.dir.path()), before, "{sent:?}: a file changed");
            }
        }
    }
    let (ok, err) = table.apply(&mover, &format!("{text}\u{202E}"));
    assert!(
        !ok && err.contains("U+202E RIGHT-TO-LEFT OVERRIDE"),
        "{err}"
    );
    // New lines still separate a move's actions.
    let (ok, err) = table.apply(&mover, &format!("{text}\n"));
    assert!(ok, "{err}");
}

/// A game whose names `pbem new` now refuses (written by the pbem before the check:
/// a right-to-left override, a zero-width space, a line separator, bidi isolates, a
/// Cyrillic а in a Latin name, and two names alike) still loads, audits, shows, logs,
/// replays as a page and takes moves: the reading of a file did not change.
#[test]
fn a_game_whose_names_new_games_refuse_still_loads_audits_and_plays_on() {
    let table = Table::new();
    table.fixture_game(
        "names/desert-kingdom-refused-names.json",
        "dk-3e470030",
        SEED,
    );
    let (ok, report) = table.audit(false);
    assert!(ok, "{report}");
    for args in [
        vec!["show"],
        vec!["log"],
        vec!["export", "--html", "game.html"],
    ] {
        let output = table
            .pbem()
            .arg(args[0])
            .arg(table.file())
            .args(&args[1..])
            .output()
            .expect("pbem runs");
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let view = table.view();
    let names = player_names(&view);
    assert_eq!(
        names,
        [
            "Ann",
            "Ann\u{200B}",
            "Bo\u{202E}b",
            "Аnn",
            "Cy\u{2028}Dee",
            "\u{2066}Eve\u{2069}"
        ]
    );
    // Two more moves, by whoever is to move, and the audit still passes.
    for _ in 0..2 {
        let mover = to_move(&table.view());
        let text = table.legal(&mover)[0]["move"]
            .as_str()
            .expect("a move")
            .to_string();
        let (ok, err) = table.apply(&mover, &text);
        assert!(ok, "{mover:?}: {err}");
    }
    let (ok, report) = table.audit(false);
    assert!(ok, "{report}");
}

/// The players' names as a view lists them, in seat order.
fn player_names(view: &serde_json::Value) -> Vec<&str> {
    view["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["name"].as_str().expect("a name"))
        .collect()
}
