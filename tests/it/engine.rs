//! The engine on whole games, in process: every random game's file audits, replay
//! reproduces the stored state, and each record's draws are the seed's.

use pbem::basics::digest::sha256;
use pbem::engine::chance::DrawStream;
use pbem::engine::driver::{pick, GameDriver, OpenGame};
use pbem::engine::fairness::Seed;
use pbem::engine::keyring::Keyring;
use pbem::engine::roster::parse_player;
use pbem::engine::session::NewGame;
use proptest::prelude::*;

fn driver() -> &'static dyn GameDriver {
    pbem::games::find("right-of-way").expect("registered")
}

/// A game file's bytes opened for questions.
fn open(bytes: &[u8], keyring: Option<&Keyring>) -> Box<dyn OpenGame> {
    pbem::ops::open_bytes(bytes, keyring, false).expect("a game file")
}

/// The audit of a game file's bytes, as `pbem audit` opens them (the chain is the
/// audit's to check, record by record).
fn audit_of(bytes: &[u8], keyring: Option<&Keyring>) -> pbem::engine::audit::AuditReport {
    pbem::engine::driver::open_to_audit_with(bytes, keyring, pbem::ops::driver)
        .expect("a game file")
        .audit()
}

/// A move on a game file's bytes, as `pbem apply` makes it: the game after it.
fn apply(
    bytes: &[u8],
    keyring: &Keyring,
    player: &str,
    text: &str,
) -> Result<(Box<dyn OpenGame>, pbem::engine::driver::MoveOutcome), pbem::ops::OpsError> {
    let mut game = pbem::ops::open_bytes(bytes, Some(keyring), true)?;
    let outcome = game.apply(keyring, player, text)?;
    Ok((game, outcome))
}

/// Plays up to `turns` random turns in memory; returns the file bytes after each.
fn play(seed: [u8; 32], picks: u64, turns: usize, keyring: &Keyring) -> Vec<Vec<u8>> {
    let request = NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob <bob@example.org>")],
        seed: Some(Seed(seed)),
        ..NewGame::default()
    };
    let mut bytes = driver().create(request, keyring).expect("create");
    let mut history = vec![bytes.clone()];
    let mut picker = DrawStream::for_testing(picks);
    for _ in 0..turns {
        let view = open(&bytes, None).view(None, None).expect("view");
        if view["over"] == true {
            break;
        }
        let player = view["to_move"][0].as_str().expect("a player").to_string();
        let text = pick(
            &open(&bytes, None).legal(&player).expect("legal"),
            &mut picker,
        )
        .expect("a move");
        let (next, outcome) = apply(&bytes, keyring, &player, &text).expect("a legal move applies");
        assert_eq!(outcome.player, player);
        bytes = next.bytes().to_vec();
        history.push(bytes.clone());
    }
    history
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_games_audit_and_replay(seed in any::<[u8; 32]>(), picks in any::<u64>()) {
        let dir = tempfile::tempdir().expect("dir");
        let keyring = Keyring::at(dir.path());
        let history = play(seed, picks, 400, &keyring);
        let last = history.last().expect("a file");
        let view = open(last, None).view(None, None).expect("view");
        prop_assert_eq!(&view["over"], &serde_json::Value::Bool(true), "a game ends within 400 turns");
        // An outsider's audit after the reveal re-derives every draw.
        let report = open(last, None).audit();
        prop_assert!(report.passed(), "{}", report.render());
        prop_assert!(report.draws_derived);
        // Every past position replays to the state that was stored at that time.
        for (turn, earlier) in history.iter().enumerate().step_by(7) {
            let stored = open(earlier, None).view(None, None).expect("view");
            let replayed = open(last, None).view(None, Some(turn as u64)).expect("replay");
            prop_assert_eq!(stored, replayed);
        }
    }
}

#[test]
fn the_referee_audits_before_the_reveal_with_the_keyring() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    let history = play([3; 32], 3, 10, &keyring);
    let bytes = history.last().expect("a file");
    let with_keyring = open(bytes, Some(&keyring)).audit();
    assert!(
        with_keyring.passed() && with_keyring.draws_derived,
        "{}",
        with_keyring.render()
    );
    let outsider = open(bytes, None).audit();
    assert!(
        outsider.passed() && !outsider.draws_derived,
        "{}",
        outsider.render()
    );
}

#[test]
fn a_forged_draw_is_caught_once_the_seed_is_known() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    let history = play([4; 32], 4, 30, &keyring);
    let bytes = history.last().expect("a file");
    let mut file: serde_json::Value = serde_json::from_slice(bytes).expect("json");
    // Find a record with a draw of more than one outcome and change its pick, as a
    // referee who wanted another tile would have to.
    let records = file["records"].as_array_mut().expect("records");
    let (turn, draw) = records
        .iter_mut()
        .find_map(|record| {
            let turn = record["turn"].as_u64()?;
            let draw = record["draws"]
                .as_array_mut()?
                .iter_mut()
                .find(|d| d["of"].as_u64() > Some(1))?;
            Some((turn, draw))
        })
        .expect("some record drew");
    let pick = draw["pick"].as_u64().expect("pick");
    let of = draw["of"].as_u64().expect("of");
    draw["pick"] = serde_json::json!((pick + 1) % of);
    let forged = serde_json::to_vec(&file).expect("json");
    let report = audit_of(&forged, Some(&keyring));
    assert!(!report.passed());
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.starts_with(&format!("turn {turn} "))),
        "{}",
        report.render()
    );
}

#[test]
fn a_new_game_needs_a_new_seed_in_the_keyring() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    let request = NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob")],
        seed: Some(Seed([5; 32])),
        ..NewGame::default()
    };
    driver().create(request.clone(), &keyring).expect("create");
    let error = driver()
        .create(request, &keyring)
        .expect_err("the same game twice");
    assert!(error.to_string().contains("already exists"), "{error}");
}

#[test]
fn bad_player_lists_are_refused_with_a_way_forward() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    for (players, says) in [
        (vec!["Ann", "ann"], "names must differ"),
        (vec!["Ann", ""], "not a usable player name"),
        (vec!["Ann"], ""),
        (vec!["A", "B", "C", "D", "E"], ""),
    ] {
        let request = NewGame {
            players: players.iter().map(|p| parse_player(p)).collect(),
            ..NewGame::default()
        };
        let Err(error) = driver().create(request, &keyring) else {
            panic!("{players:?} must be refused");
        };
        assert!(error.to_string().contains(says), "{error}");
    }
}

/// The fast path of `apply` (a file this keyring verified and wrote: only the head is
/// read) writes exactly the bytes of the full path (every record parsed and checked).
#[test]
fn the_fast_path_writes_what_the_full_path_writes() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path().join("keyring"));
    let file = dir.path().join("game.json");
    let request = NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob")],
        seed: Some(Seed([6; 32])),
        ..NewGame::default()
    };
    pbem::ops::new_game("right-of-way", request, &keyring, &file).expect("new");
    let mut picker = DrawStream::for_testing(6);
    let mut fast_taken = 0;
    for _ in 0..40 {
        let bytes = std::fs::read(&file).expect("read");
        let view = open(&bytes, None).view(None, None).expect("view");
        if view["over"] == true {
            break;
        }
        let player = view["to_move"][0].as_str().expect("player").to_string();
        let text = pick(
            &open(&bytes, None).legal(&player).expect("legal"),
            &mut picker,
        )
        .expect("a move");
        // Full path: without the keyring's note of the file's digest.
        let id = view["id"].as_str().expect("id");
        let note = dir.path().join("keyring/verified").join(id);
        let remembered = std::fs::read(&note).expect("pbem noted the digest");
        std::fs::remove_file(&note).expect("remove");
        let (full, _) = apply(&bytes, &keyring, &player, &text).expect("full path");
        std::fs::write(&note, remembered).expect("restore");
        let (fast, _) = apply(&bytes, &keyring, &player, &text).expect("fast path");
        // The fast path appended to the bytes it read; the full path wrote them anew.
        assert!(!fast.read_whole() && full.read_whole());
        assert_eq!(
            String::from_utf8(fast.bytes().to_vec()).expect("utf-8"),
            String::from_utf8(full.bytes().to_vec()).expect("utf-8")
        );
        assert_eq!(fast.digest(), sha256(fast.bytes()));
        assert_eq!(full.digest(), fast.digest());
        pbem::ops::apply_move(&file, &keyring, &player, &text).expect("apply");
        fast_taken += 1;
    }
    assert!(fast_taken >= 20);
    assert!(open(&std::fs::read(&file).expect("read"), Some(&keyring))
        .audit()
        .passed());
}

/// A note in the keyring never vouches for other bytes: a changed file takes the full
/// path and its tampering is found.
#[test]
fn the_fast_path_never_vouches_for_changed_bytes() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path().join("keyring"));
    let file = dir.path().join("game.json");
    let request = NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob")],
        seed: Some(Seed([8; 32])),
        ..NewGame::default()
    };
    pbem::ops::new_game("right-of-way", request, &keyring, &file).expect("new");
    let mut picker = DrawStream::for_testing(8);
    for _ in 0..4 {
        let bytes = std::fs::read(&file).expect("read");
        let view = open(&bytes, None).view(None, None).expect("view");
        let player = view["to_move"][0].as_str().expect("player").to_string();
        let text = pick(
            &open(&bytes, None).legal(&player).expect("legal"),
            &mut picker,
        )
        .expect("a move");
        pbem::ops::apply_move(&file, &keyring, &player, &text).expect("apply");
    }
    let text = std::fs::read_to_string(&file).expect("read");
    let view = open(text.as_bytes(), None).view(None, None).expect("view");
    let player = view["to_move"][0].as_str().expect("player").to_string();
    let legal = open(text.as_bytes(), None).legal(&player).expect("legal");
    let record_two = text.lines().nth(4).expect("record 2");
    let altered = record_two.replacen("\"move\":\"", "\"move\":\" ", 1);
    assert_ne!(altered, record_two);
    std::fs::write(&file, text.replacen(record_two, &altered, 1)).expect("write");
    let bytes = std::fs::read(&file).expect("read");
    // Nothing is shown from it either.
    let Err(error) = pbem::ops::open_bytes(&bytes, None, false) else {
        panic!("a tampered file must not be shown");
    };
    assert!(error.to_string().contains("record 2"), "{error}");
    let Err(error) = apply(&bytes, &keyring, &player, &legal[0].text) else {
        panic!("a tampered file must be refused");
    };
    assert!(error.to_string().contains("record 2"), "{error}");
}
