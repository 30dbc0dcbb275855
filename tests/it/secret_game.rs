//! Hidden draws, sealed choices opened later and a private draw-then-choose step, with
//! the test game secret-draft (tests/games/secret): played through the engine, the
//! command line (the example `pbem-test-games`, pbem with the tests' games added) and
//! the mail loop. Nothing may show a sealed choice or another player's hidden cards
//! before its time: not the file, a view, the log or another player's mail.

#[path = "../games/secret/mod.rs"]
mod secret;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use pbem::engine::fairness::Seed;
use pbem::engine::file::FileText;
use pbem::engine::keyring::Keyring;
use pbem::engine::roster::parse_player;
use pbem::engine::session::{Game, NewGame};
use pbem::engine::{Chance, DrawStream, Rules, Seat};
use serde_json::Value;

use secret::{Move, Phase, SecretDraft, Table};

const SEED_BYTE: u8 = 0x5d;

fn seed_hex() -> String {
    format!("{SEED_BYTE:02x}").repeat(32)
}

fn names(count: usize) -> Vec<String> {
    ["Ann", "Bob", "Cy", "Di", "Eve"][..count]
        .iter()
        .map(|n| n.to_string())
        .collect()
}

fn address(name: &str) -> String {
    format!("{}@example.org", name.to_ascii_lowercase())
}

/// Whether `text` holds `word card` as such ("choose 1" is not in "choose 12").
fn mentions(text: &str, word: &str, card: u32) -> bool {
    let needle = format!("{word} {card}");
    text.match_indices(&needle).any(|(at, _)| {
        !text[at + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// The same move written as a careless player would.
fn sloppy(text: &str) -> String {
    format!("  {}  ", text.to_uppercase().replace(' ', "   "))
}

/// The full state of a game file, replayed with the seed the test knows.
fn referee_state(bytes: &[u8], seed: &Seed) -> Table {
    let file = FileText::parse(bytes)
        .expect("the file parses")
        .game_file::<Table>()
        .expect("a secret-draft file");
    let game = Game::<SecretDraft>::from_file(file).expect("the game loads");
    game.replay(Some(seed), None)
        .expect("the game replays")
        .state
}

/// The secrets of a position: who holds what face down.
struct Secrets {
    /// (seat, card) of every sealed, not yet revealed choice.
    sealed: Vec<(Seat, u32)>,
}

impl Secrets {
    fn of(state: &Table) -> Secrets {
        Secrets {
            sealed: state
                .players
                .iter()
                .enumerate()
                .filter_map(|(seat, p)| p.choice.map(|card| (seat, card)))
                .collect(),
        }
    }

    /// Fails if `text`, shown to `viewer` (None: anyone), holds another seat's sealed
    /// choice as a move.
    fn assert_not_in(&self, text: &str, viewer: Option<Seat>, what: &str) {
        for &(seat, card) in &self.sealed {
            if Some(seat) != viewer {
                assert!(
                    !mentions(text, "choose", card),
                    "{what} shows seat {seat}'s sealed choice {card}:\n{text}"
                );
            }
        }
    }
}

/// The lines of `name`'s panel in a board: its name line and the indented lines below.
fn panel<'a>(board: &'a str, name: &str) -> Vec<&'a str> {
    let head = format!("{name}: score");
    let mut lines = board
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(&head));
    let mut out = Vec::new();
    if let Some(first) = lines.next() {
        out.push(first);
        out.extend(lines.take_while(|l| l.starts_with("  ")));
    }
    out
}

/// Checks an ASCII board shown to `viewer` (None: the public): another seat's hand,
/// offer and choice appear only as counts and "face down"; the viewer's own appear.
fn check_board(board: &str, state: &Table, names: &[String], viewer: Option<Seat>) {
    for (seat, name) in names.iter().enumerate() {
        let lines = panel(board, name);
        assert!(
            !lines.is_empty(),
            "{name}'s panel is on the board:\n{board}"
        );
        let player = &state.players[seat];
        for line in &lines[1..] {
            let line = line.trim_start();
            let own = viewer == Some(seat);
            if let Some(rest) = line.strip_prefix("hand: ") {
                if own {
                    let listed = player
                        .hand
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ");
                    let expected = if listed.is_empty() { "none" } else { &listed };
                    assert_eq!(rest, expected, "{name} sees their own hand:\n{board}");
                } else {
                    assert_eq!(
                        rest,
                        format!("{} cards, face down", player.hand.len()),
                        "{name}'s hand is hidden from {viewer:?}:\n{board}"
                    );
                }
            } else if let Some(rest) = line.strip_prefix("offer: ") {
                if !own {
                    assert_eq!(
                        rest,
                        format!("{} cards, face down", player.offer.len()),
                        "{name}'s offer is hidden from {viewer:?}:\n{board}"
                    );
                }
            } else if let Some(rest) = line.strip_prefix("choice: ") {
                if !own {
                    assert!(
                        rest == "not yet made"
                            || rest == "made, face down"
                            || rest.starts_with("shown "),
                        "{name}'s choice is hidden from {viewer:?}: {rest:?}\n{board}"
                    );
                }
            }
        }
    }
}

/// Checks a JSON view shown to `viewer` (None: the public).
fn check_view(view: &Value, state: &Table, viewer: Option<Seat>) {
    let players = view["players"].as_array().expect("players");
    for (seat, entry) in players.iter().enumerate() {
        let player = &state.players[seat];
        if viewer == Some(seat) {
            assert_eq!(entry["hand"], serde_json::json!(player.hand), "own hand");
            assert_eq!(
                entry["choice"],
                serde_json::json!(player.choice),
                "own choice"
            );
            assert_eq!(entry["offer"], serde_json::json!(player.offer), "own offer");
        } else {
            for key in ["hand", "choice", "offer"] {
                assert!(
                    entry.get(key).is_none(),
                    "seat {seat}'s {key} is shown to {viewer:?}: {entry}"
                );
            }
            assert_eq!(entry["hand_size"], player.hand.len());
            assert_eq!(entry["chosen"], player.chosen);
        }
    }
    assert!(view.get("deck").is_none(), "the deck is hidden: {view}");
    assert_eq!(view["deck_size"], state.deck.len());
}

/// Checks the game file's bytes: only the public state, hidden draws as commitments.
fn check_file(bytes: &[u8], state: &Table, secrets: &Secrets, over: bool) {
    let text = String::from_utf8_lossy(bytes);
    secrets.assert_not_in(&text, None, "the game file");
    assert!(
        !(1..=60).any(|card| mentions(&text, "keep", card)),
        "a kept card is named in the file"
    );
    if !over {
        assert!(
            !text.contains("\"pick\""),
            "every draw of this game is hidden until the end:\n{text}"
        );
    }
    let file: Value = serde_json::from_slice(bytes).expect("the file is JSON");
    let stored = &file["state"];
    assert_eq!(
        stored["deck"],
        serde_json::json!([]),
        "the deck is not stored"
    );
    for (seat, entry) in stored["players"]
        .as_array()
        .expect("players")
        .iter()
        .enumerate()
    {
        assert_eq!(entry["hand"], serde_json::json!([]), "seat {seat}'s hand");
        assert_eq!(entry["choice"], Value::Null, "seat {seat}'s choice");
        assert_eq!(entry["offer"], serde_json::json!([]), "seat {seat}'s offer");
        assert_eq!(entry["chosen"], state.players[seat].chosen);
    }
}

// --- The rules through the engine ------------------------------------------------

fn request(count: usize, seed: u8) -> NewGame {
    NewGame {
        players: names(count).iter().map(|n| parse_player(n)).collect(),
        seed: Some(Seed([seed; 32])),
        ..NewGame::default()
    }
}

/// Plays one random game of `count` players to its end; returns the moves made.
fn random_game(count: usize, seed: u8) -> usize {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    let mut game = Game::<SecretDraft>::create(request(count, seed), &keyring).expect("starts");
    let seed = Seed([seed; 32]);
    let mut state = game.replay(Some(&seed), None).expect("replays").state;
    let mut picker = DrawStream::for_testing(u64::from(seed.0[0]) + count as u64);
    let mut moves = 0;
    while !game.rules.is_over(&state) {
        let waiting = game.rules.to_move(&state);
        assert!(!waiting.is_empty(), "stuck after {moves} moves: {state:?}");
        let seat =
            waiting[picker.draw(waiting.len() as u32, pbem::engine::Visibility::Public) as usize];
        let mv = game
            .rules
            .sample_move(&state, seat, &mut picker)
            .expect("a seat to move has a move");
        let text = game.rules.canonical_text(&mv);
        let text = if moves % 2 == 0 { sloppy(&text) } else { text };
        let name = game.names[seat].clone();
        let applied = game.apply(&keyring, &name, &text).expect("a legal move");
        state = applied.state;
        moves += 1;
        assert!(moves < 200, "the game ends");
        let bytes = game.file.to_bytes().expect("bytes");
        check_file(&bytes, &state, &Secrets::of(&state), applied.over);
        if moves == 2 * count {
            let outsider = game.audit(None);
            assert!(outsider.passed(), "mid-game: {}", outsider.render());
        }
    }
    let report = game.audit(Some(&keyring));
    assert!(report.passed(), "{}", report.render());
    let outsider = game.audit(None);
    assert!(outsider.passed(), "{}", outsider.render());
    assert!(!game.rules.winners(&state).is_empty());
    moves
}

#[test]
fn random_games_of_two_three_and_four_end_and_audit() {
    for count in 2..=4 {
        for seed in [1u8, 2, 3] {
            let moves = random_game(count, seed);
            assert!(moves >= 3 * count, "{count} players: {moves} moves");
        }
    }
}

#[test]
fn the_rules_refuse_wrong_setups_and_moves() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    assert!(Game::<SecretDraft>::create(request(1, 4), &keyring).is_err());
    assert!(Game::<SecretDraft>::create(request(5, 4), &keyring).is_err());
    let mut small = request(4, 4);
    small.options.insert("cards".into(), "7".into());
    assert!(Game::<SecretDraft>::create(small, &keyring).is_err());

    let mut game = Game::<SecretDraft>::create(request(2, 4), &keyring).expect("starts");
    let state = game
        .replay(Some(&Seed([4; 32])), None)
        .expect("replays")
        .state;
    let held = state.players[0].hand.clone();
    let missing = (1..=12)
        .find(|c| !held.contains(c))
        .expect("a card Ann lacks");
    let before = game.file.to_bytes().expect("bytes");
    let refused = game
        .apply(&keyring, "Ann", &format!("choose {missing}"))
        .err()
        .expect("a card not held is refused")
        .to_string();
    assert!(refused.contains("e.g. `choose"), "{refused}");
    assert!(game.apply(&keyring, "Ann", "reveal").is_err());
    assert!(game.apply(&keyring, "Ann", "keep first").is_err());
    assert_eq!(game.file.to_bytes().expect("bytes"), before);
    assert!(game.rules.is_sealed(&state, 0) && game.rules.is_sealed(&state, 1));
    assert_eq!(
        game.rules
            .parse_move(&state, 0, &format!(" Choose   {} ", held[0]))
            .map(|mv| game.rules.canonical_text(&mv))
            .expect("parses"),
        format!("choose {}", held[0])
    );
}

/// The same move spelt two ways makes the same record and the same draws; a round of
/// sealed choices made in another order ends in the same state, offers included.
#[test]
fn spelling_and_order_do_not_change_records_or_draws() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    let game = Game::<SecretDraft>::create(request(2, 6), &keyring).expect("starts");
    let seed = Seed([6; 32]);
    let state = game.replay(Some(&seed), None).expect("replays").state;
    let (ann, bob) = (state.players[0].hand[1], state.players[1].hand[0]);
    let last = |game: &Game<SecretDraft>| {
        let record = game.file.records.last().expect("a record").clone();
        (
            record.move_text,
            record.draws,
            record.state_hash,
            record.hash,
        )
    };

    let mut plain = fork_at(&game);
    plain
        .apply(&keyring, "Ann", &format!("choose {ann}"))
        .expect("Ann");
    let round = plain
        .apply(&keyring, "Bob", &format!("choose {bob}"))
        .expect("Bob");
    assert_eq!(round.state.phase, Phase::Reveal { seat: 0 });
    assert_eq!(
        round.state.players[0].offer.len(),
        2,
        "the last choice deals"
    );

    let mut careless = fork_at(&game);
    careless
        .apply(&keyring, "Ann", &format!("\tchoose\t{ann}\n"))
        .expect("Ann");
    let again = careless
        .apply(&keyring, "Bob", &format!(" CHOOSE  {bob} "))
        .expect("Bob");
    assert_eq!(again.understood, format!("choose {bob}"));
    assert_eq!(
        last(&careless),
        last(&plain),
        "the same record, the same draws"
    );
    assert_eq!(again.state, round.state);

    let mut reversed = fork_at(&game);
    reversed
        .apply(&keyring, "Bob", &format!("choose {bob}"))
        .expect("Bob first");
    let other_order = reversed
        .apply(&keyring, "Ann", &format!("choose {ann}"))
        .expect("Ann second");
    assert_eq!(
        other_order.state, round.state,
        "the same offers whatever order the sealed choices came in"
    );

    let revealed = plain.apply(&keyring, "Ann", "  REVEAL ").expect("reveals");
    assert_eq!(revealed.understood, "reveal");
    assert_eq!(revealed.state.phase, Phase::Keep { seat: 0 });
    assert_eq!(revealed.state.players[0].shown, Some(ann));

    // The kept card by its value or its place: the same record, which names the place.
    let offer = revealed.state.players[0].offer.clone();
    let mut by_value = fork_at(&plain);
    let kept = by_value
        .apply(&keyring, "Ann", &format!("Keep {}", offer[1]))
        .expect("keeps by value");
    assert_eq!(kept.understood, "keep second");
    let mut by_place = fork_at(&plain);
    by_place
        .apply(&keyring, "Ann", "keep second")
        .expect("keeps by place");
    assert_eq!(last(&by_value), last(&by_place));
    assert!(kept.state.players[0].hand.contains(&offer[1]));
    assert!(kept.state.deck.contains(&offer[0]));
}

fn fork_at(game: &Game<SecretDraft>) -> Game<SecretDraft> {
    let bytes = game.file.to_bytes().expect("bytes");
    let file = FileText::parse(&bytes)
        .expect("parses")
        .game_file::<Table>()
        .expect("file");
    Game::<SecretDraft>::from_file(file).expect("loads")
}

// --- The command line ---------------------------------------------------------------

/// pbem with the tests' games: the example `cargo test` builds beside the test binary
/// (`target/<profile>/deps/` holds the test, `target/<profile>/examples/` the example).
/// `cargo test --test it` builds no example, so it runs whatever example was built last.
fn test_games_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let bin = profile
        .join("examples")
        .join(format!("pbem-test-games{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: `cargo test` builds it; `cargo test --test it` alone does not \
         (run `cargo build --examples` first)",
        bin.display()
    );
    bin
}

/// A game of secret-draft on disk, with its keyring.
struct Cli {
    dir: tempfile::TempDir,
    names: Vec<String>,
    seed: Seed,
}

impl Cli {
    fn home(&self) -> PathBuf {
        self.dir.path().join("keyring")
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("game.json")
    }

    fn pbem(&self) -> Command {
        let mut command = Command::new(test_games_bin());
        command
            .env("PBEM_HOME", self.home())
            .current_dir(self.dir.path());
        command
    }

    /// Runs a command; returns (success, stdout, stderr).
    fn run(command: &mut Command) -> (bool, String, String) {
        let output = command.output().expect("runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// Output of a command that must succeed.
    fn ok(&self, args: &[&str]) -> String {
        let (ok, out, err) = Cli::run(self.pbem().args(args));
        assert!(ok, "pbem {args:?} failed: {err}{out}");
        out
    }

    fn show(&self, viewer: Option<&str>, json: bool) -> String {
        let file = self.file().to_string_lossy().into_owned();
        let mut args = vec!["show", file.as_str()];
        if let Some(viewer) = viewer {
            args.extend(["--as", viewer]);
        }
        if json {
            args.extend(["--format", "json"]);
        }
        self.ok(&args)
    }

    fn state(&self) -> Table {
        referee_state(&std::fs::read(self.file()).expect("file"), &self.seed)
    }

    /// Everything a player or an outsider can see now, checked against the state.
    fn check_secrecy(&self, state: &Table, over: bool) {
        let secrets = Secrets::of(state);
        let bytes = std::fs::read(self.file()).expect("file");
        check_file(&bytes, state, &secrets, over);
        let file = self.file().to_string_lossy().into_owned();
        let log = self.ok(&["log", &file]);
        secrets.assert_not_in(&log, None, "the log");
        assert!(
            !(1..=60).any(|card| mentions(&log, "keep", card)),
            "the log names a kept card:\n{log}"
        );
        let mut viewers: Vec<Option<Seat>> = vec![None];
        viewers.extend((0..self.names.len()).map(Some));
        for viewer in viewers {
            let name = viewer.map(|seat| self.names[seat].as_str());
            let json = self.show(name, true);
            secrets.assert_not_in(&json, viewer, "a JSON view");
            check_view(
                &serde_json::from_str(&json).expect("the view is JSON"),
                state,
                viewer,
            );
            let board = self.show(name, false);
            secrets.assert_not_in(&board, viewer, "a board");
            check_board(&board, state, &self.names, viewer);
            assert!(board.lines().all(|l| l.chars().count() <= 78), "{board}");
        }
    }
}

#[test]
fn a_whole_game_through_the_command_line_keeps_every_secret_until_its_time() {
    let cli = Cli {
        dir: tempfile::tempdir().expect("dir"),
        names: names(3),
        seed: Seed([SEED_BYTE; 32]),
    };
    let key = cli.home().join("referee.key");
    std::fs::create_dir_all(cli.home()).expect("keyring folder");
    std::fs::write(&key, format!("{}\n", "42".repeat(32))).expect("a test key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let file = cli.file().to_string_lossy().into_owned();
    let seed = seed_hex();
    cli.ok(&[
        "new",
        "secret-draft",
        "--player",
        "Ann <ann@example.org>",
        "--player",
        "Bob <bob@example.org>",
        "--player",
        "Cy <cy@example.org>",
        "--seed",
        &seed,
        "--out",
        &file,
    ]);
    let empty_home = cli.dir.path().join("nobody");
    std::fs::create_dir_all(&empty_home).expect("an empty keyring folder");
    let rules = SecretDraft::from_options(&pbem::engine::Options::from([
        ("cards".to_string(), "12".to_string()),
        ("rounds".to_string(), "3".to_string()),
    ]))
    .expect("rules");

    let mut state = cli.state();
    cli.check_secrecy(&state, false);
    let mut picker = DrawStream::for_testing(11);
    let mut chosen_cards = BTreeSet::new();
    let mut moves = 0;
    let mut audited_mid_game = false;
    while !rules.is_over(&state) {
        let waiting = rules.to_move(&state);
        // Sealed choices arrive last seat first, so the order differs from seat order.
        let seat = *waiting.last().expect("someone is to move");
        let name = cli.names[seat].clone();
        let mv = rules
            .sample_move(&state, seat, &mut picker)
            .expect("a move");
        let canonical = rules.canonical_text(&mv);
        let legal = cli.ok(&["legal", &file, "--player", &name, "--format", "json"]);
        let legal: Value = serde_json::from_str(&legal).expect("legal is JSON");
        assert!(
            legal
                .as_array()
                .expect("a list")
                .iter()
                .any(|entry| entry["move"] == canonical.as_str()),
            "{canonical} is legal for {name}: {legal}"
        );
        // The kept card by its value: the record must still name only its place.
        let text = match mv {
            Move::Keep(place) => format!("keep {}", state.players[seat].offer[place]),
            Move::Choose(card) => {
                chosen_cards.insert(card);
                sloppy(&canonical)
            }
            Move::Reveal => canonical.clone(),
        };
        let (ok, out, err) = Cli::run(
            cli.pbem()
                .args(["apply", &file, "--player", &name, "--move", &text]),
        );
        assert!(ok, "{name} {text:?}: {err}");
        let after = cli.state();
        let secrets = Secrets::of(&after);
        secrets.assert_not_in(&out, Some(seat), "apply's output");
        secrets.assert_not_in(&err, Some(seat), "apply's output");
        if let Move::Choose(_) = mv {
            let log = cli.ok(&["log", &file]);
            assert!(
                log.contains("has chosen"),
                "the log says only that a sealed choice was made:\n{log}"
            );
        }
        if let Move::Reveal = mv {
            let view: Value =
                serde_json::from_str(&cli.show(None, true)).expect("the view is JSON");
            // The round may have ended with this reveal, so look at the cards played.
            let played = view["players"][seat]["played"].as_array().expect("played");
            assert_eq!(
                played.last(),
                state.players[seat].choice.map(Value::from).as_ref(),
                "the opened choice is public"
            );
        }
        state = after;
        moves += 1;
        assert!(moves < 100, "the game ends");
        cli.check_secrecy(&state, rules.is_over(&state));

        if !audited_mid_game && matches!(state.phase, Phase::Keep { .. }) {
            audited_mid_game = true;
            // Anyone, without the keyring, can audit a game in progress: the hidden
            // draws and sealed moves are pending, not failures.
            let (ok, out, err) = Cli::run(
                cli.pbem()
                    .env("PBEM_HOME", &empty_home)
                    .args(["audit", &file]),
            );
            assert!(ok, "mid-game audit without the keyring: {out}{err}");
            assert!(out.contains("pending"), "{out}");
            assert!(!out.contains("FAILED"), "{out}");
            // Without the keyring the public view works; anything that needs the
            // hidden state says so, never that the file was altered.
            let (ok, _, err) = Cli::run(
                cli.pbem()
                    .env("PBEM_HOME", &empty_home)
                    .args(["show", &file]),
            );
            assert!(ok, "{err}");
            for args in [
                vec!["show", file.as_str(), "--as", "Ann"],
                vec!["show", file.as_str(), "--as", "referee"],
                vec!["show", file.as_str(), "--turn", "1"],
                vec!["legal", file.as_str(), "--player", "Ann"],
            ] {
                let (ok, out, err) = Cli::run(cli.pbem().env("PBEM_HOME", &empty_home).args(&args));
                assert!(!ok, "{args:?}: {out}");
                assert!(
                    err.contains("needs the referee's keyring"),
                    "{args:?}: {err}"
                );
                assert!(!err.contains("altered"), "{args:?}: {err}");
            }
            // The referee sees everything.
            let view: Value = serde_json::from_str(&cli.show(Some("referee"), true))
                .expect("the referee's view is JSON");
            for (seat, player) in state.players.iter().enumerate() {
                assert_eq!(
                    view["players"][seat]["hand"],
                    serde_json::json!(player.hand)
                );
                assert_eq!(
                    view["players"][seat]["offer"],
                    serde_json::json!(player.offer)
                );
            }
            assert_eq!(view["deck"], serde_json::json!(state.deck));
        }
    }
    assert!(audited_mid_game, "some reveal offered two cards");
    let (ok, out, err) = Cli::run(
        cli.pbem()
            .env("PBEM_HOME", &empty_home)
            .args(["audit", &file]),
    );
    assert!(
        ok,
        "the audit of a finished game passes for anyone: {out}{err}"
    );
    assert!(!out.contains("FAILED"), "{out}");
    let log = cli.ok(&["log", &file]);
    for card in &chosen_cards {
        assert!(
            mentions(&log, "choose", *card),
            "the log of a finished game shows every choice ({card}):\n{log}"
        );
    }
}

// --- The mail loop --------------------------------------------------------------------

use crate::support::{read_mail, Smtp};

#[test]
fn a_whole_game_by_mail_shows_each_player_only_their_own_secrets() {
    let dir = tempfile::tempdir().expect("dir");
    let games = dir.path().join("games");
    std::fs::create_dir_all(&games).expect("games");
    let file = games.join("game.json");
    let smtp = Smtp::start(&dir.path().join("delivered"));
    let pbem = || {
        let mut command = Command::new(test_games_bin());
        command
            .env("PBEM_HOME", dir.path().join("keyring"))
            .env("PBEM_SMTP", format!("smtp://127.0.0.1:{}", smtp.port))
            .env("PBEM_FROM", "Referee <referee@pbem.example>")
            .env_remove("PBEM_NOW");
        command
    };
    let seed = Seed([SEED_BYTE; 32]);
    let names = names(3);
    let (ok, out, err) = Cli::run(
        pbem()
            .args(["new", "secret-draft"])
            .args(["--player", "Ann <ann@example.org>"])
            .args(["--player", "Bob <bob@example.org>"])
            .args(["--player", "Cy <cy@example.org>"])
            .args(["--seed", &seed_hex(), "--mail", "--out"])
            .arg(&file),
    );
    assert!(ok, "{out}{err}");
    let id = serde_json::from_slice::<Value>(&std::fs::read(&file).expect("file")).expect("JSON")
        ["genesis"]["id"]
        .as_str()
        .expect("an id")
        .to_string();
    let tag = format!("[pbem {id}]");
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut tokens = Vec::new();
    for (name, raw) in smtp.delivered() {
        seen.insert(name);
        let (to, _, text) = read_mail(&raw);
        if let Some(token) = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("pbem-token: "))
        {
            tokens.push((to, token.to_string()));
        }
    }
    let token_of = |address: &str| {
        tokens
            .iter()
            .find(|(to, _)| to == address)
            .map(|(_, token)| token.clone())
            .expect("a welcome mail with a token")
    };
    let referee = super::replies::Referee {
        name: "Referee",
        address: "referee@pbem.example",
    };
    let rules = SecretDraft::from_options(&pbem::engine::Options::from([
        ("cards".to_string(), "12".to_string()),
        ("rounds".to_string(), "3".to_string()),
    ]))
    .expect("rules");
    let mut state = referee_state(&std::fs::read(&file).expect("file"), &seed);
    let mut picker = DrawStream::for_testing(23);
    let mut moves = 0;
    let mut boards_checked = 0;
    // Sealed choices whose confirmation has not reached their chooser yet, by seat.
    let mut unconfirmed = std::collections::BTreeMap::<Seat, String>::new();
    while !rules.is_over(&state) {
        let waiting = rules.to_move(&state);
        let seat =
            waiting[picker.draw(waiting.len() as u32, pbem::engine::Visibility::Public) as usize];
        let name = &names[seat];
        let from = address(name);
        let mv = rules
            .sample_move(&state, seat, &mut picker)
            .expect("a move");
        let text = rules.canonical_text(&mv);
        let raw = super::replies::token_message(
            &referee,
            &tag,
            &token_of(&from),
            &from,
            &text,
            &format!("move-{moves}"),
        );
        let output = crate::support::inbox(pbem(), &games, &raw);
        let report = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success() && report.starts_with("applied"),
            "{name} {text:?}: {report}"
        );
        let after = referee_state(&std::fs::read(&file).expect("file"), &seed);
        let secrets = Secrets::of(&after);
        let over = rules.is_over(&after);
        // Seats that owed a move before this one and still do were told already: no
        // second "your move" (their deadline runs from their own notice).
        let still_owing: Vec<Seat> = rules
            .to_move(&after)
            .into_iter()
            .filter(|s| *s != seat && waiting.contains(s))
            .collect();
        if let Move::Choose(_) = mv {
            unconfirmed.insert(seat, text.clone());
        }
        for (mail_name, raw) in smtp.delivered() {
            if !seen.insert(mail_name) {
                continue;
            }
            let (to, subject, body) = read_mail(&raw);
            let reader = names.iter().position(|n| address(n) == to);
            let whole = format!("{subject}\n{body}");
            if let Some(reader) = reader.filter(|r| still_owing.contains(r)) {
                assert!(
                    !subject.contains("your move"),
                    "{} was sent \"your move\" again after {name}'s move: {subject}",
                    names[reader]
                );
            }
            if !over {
                secrets.assert_not_in(&whole, reader, &format!("mail to {to}"));
                if body
                    .lines()
                    .any(|l| l.trim_start().starts_with("Ann: score"))
                {
                    check_board(&body, &after, &names, reader);
                    boards_checked += 1;
                }
            }
            // The confirmation of a sealed choice comes with its chooser's next mail
            // (never to anyone else: `assert_not_in` above).
            if let Some(chooser) = reader {
                if let Some(choice) = unconfirmed.remove(&chooser) {
                    assert!(
                        whole.contains(&choice),
                        "{}'s next mail confirms their sealed choice `{choice}`:\n{whole}",
                        names[chooser]
                    );
                }
            }
        }

        state = after;
        moves += 1;
        assert!(moves < 100, "the game ends");
    }
    assert!(
        unconfirmed.is_empty(),
        "every sealed choice confirmed by the end: {unconfirmed:?}"
    );
    // About one mail a move (one per turn of each player's own), each with a board.
    assert!(
        2 * boards_checked > moves,
        "the mail shows boards ({boards_checked} checked in {moves} moves)"
    );
    let (ok, out, err) = Cli::run(pbem().args(["audit", "--public"]).arg(&file));
    assert!(ok, "{out}{err}");
}

/// `pbem demo --players N` plays any game with built-in players: a game with hidden
/// state and sealed moves, for each player count it takes, ends and audits, and the
/// demo's move list never prints a sealed choice.
#[test]
fn the_demo_plays_the_test_game_for_two_to_four_players() {
    for count in 2..=4 {
        let dir = tempfile::tempdir().expect("dir");
        let output = std::process::Command::new(test_games_bin())
            .args(["demo", "--game", "secret-draft", "--every", "0"])
            .args(["--players", &count.to_string(), "--dir"])
            .arg(dir.path().join("demo"))
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(text.contains("audit passed"), "{text}");
        // The moves as the demo printed them while the game went on (the audit at the
        // end, after the reveal, may quote every choice).
        let played = text.split("The final position").next().unwrap_or_default();
        let moves: Vec<&str> = played.lines().filter(|l| l.starts_with("turn ")).collect();
        assert!(
            moves.iter().any(|l| l.contains("(a sealed choice)")),
            "{text}"
        );
        assert!(!moves.iter().any(|l| l.contains("choose")), "{text}");
        // Every seat played.
        for name in &pbem::demo::PLAYER_NAMES[..count] {
            assert!(moves.iter().any(|l| l.contains(name)), "{name}: {text}");
        }
    }
}
