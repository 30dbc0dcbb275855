//! The referee's state cache (the keyring's state note): on random games of every game,
//! the state a move starts from when the note is used is exactly the state a replay
//! gives, at every turn, and a move made from the note writes the same bytes as one
//! made by replaying the game; a note that is missing, torn, altered, stale, of another
//! format or of another game costs only the replay. A move from the note reads only
//! the latest records, a window that does not grow with the game; steps of taking
//! back moves on the way make it read the whole file until they are behind it.

use std::fs;
use std::path::{Path, PathBuf};

use pbem::basics::digest::sha256;
use pbem::engine::chance::DrawStream;
use pbem::engine::driver::pick;
use pbem::engine::fairness::Seed;
use pbem::engine::file::{FileText, UndoStep};
use pbem::engine::keyring::Keyring;
use pbem::engine::roster::parse_player;
use pbem::engine::session::{Game, NewGame};
use pbem::engine::Rules;
use pbem::games::desert_kingdom::DesertKingdom;
use pbem::games::right_of_way::RightOfWay;
use pbem::games::triangle_auction::TriangleAuction;
use pbem::ops;

/// The most records a move from the note may read, in any game at any length: what a
/// round of simultaneous moves and the move before it take.
const WINDOW_MOST: u64 = 20;

/// The most moves after a step of taking back that may still read the whole file: the
/// rest of a round of simultaneous moves it interrupted, and one more.
const ROUND_MOST: usize = 12;

/// Two keyrings with the same key and seeds: one keeps its notes, the other loses its
/// state notes before every move (the replay path).
struct Referees {
    _dir: tempfile::TempDir,
    cached: Keyring,
    replaying: Keyring,
    cached_file: PathBuf,
    replayed_file: PathBuf,
}

fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("folder");
    for entry in fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).expect("copy");
        }
    }
}

fn new_game(game: &str, players: usize, seed_byte: u8) -> Referees {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let home = dir.path().join("cached");
    fs::create_dir_all(&home).expect("keyring");
    fs::write(home.join("referee.key"), "42".repeat(32)).expect("a key");
    let cached = Keyring::at(&home);
    let names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"];
    let request = NewGame {
        players: names[..players].iter().map(|n| parse_player(n)).collect(),
        seed: Some(Seed([seed_byte; 32])),
        ..NewGame::default()
    };
    let cached_file = dir.path().join("cached.json");
    ops::new_game(game, request, &cached, &cached_file).expect("a new game");
    let replaying_home = dir.path().join("replaying");
    copy_folder(&home, &replaying_home);
    let replayed_file = dir.path().join("replayed.json");
    fs::copy(&cached_file, &replayed_file).expect("copy");
    Referees {
        _dir: dir,
        cached,
        replaying: Keyring::at(replaying_home),
        cached_file,
        replayed_file,
    }
}

/// The full state after the last record, by replaying the whole file with the seed.
fn replayed<R: Rules>(bytes: &[u8], seed: &Seed) -> R::State {
    let file = FileText::parse(bytes)
        .expect("parses")
        .game_file()
        .expect("reads");
    Game::<R>::from_file(file)
        .expect("a game")
        .replay(Some(seed), None)
        .expect("replays")
        .state
}

/// What happens to the cached referee's state note before a move, turn by turn: mostly
/// nothing (the note is used), sometimes damaged in one of the ways a cache may be.
fn damage(note: &Path, turn: usize, other_game_note: &[u8]) {
    let Ok(bytes) = fs::read(note) else {
        return;
    };
    match turn % 13 {
        3 => fs::write(note, &bytes[..bytes.len() / 2]).expect("truncated"),
        5 => {
            let mut flipped = bytes.clone();
            let last = flipped.len() - 2;
            flipped[last] ^= 0x01;
            fs::write(note, flipped).expect("altered");
        }
        7 => fs::write(
            note,
            String::from_utf8_lossy(&bytes).replacen("pbem.state-cache/2", "pbem.state-cache/9", 1),
        )
        .expect("another format"),
        9 => fs::write(note, other_game_note).expect("another game's note"),
        10 => fs::remove_file(note).expect("lost"),
        _ => {}
    }
}

/// A step of taking back moves on both referees: both refuse it, leaving the files as
/// they were, or both write the same bytes.
fn take_back_on_both(referees: &Referees, game: &str, player: &str) -> bool {
    let before = fs::read(&referees.cached_file).expect("read");
    let cached = ops::take_back(
        &referees.cached_file,
        &referees.cached,
        player,
        UndoStep::Undo,
    );
    let _ = fs::remove_dir_all(referees.replaying.home().join("states"));
    let replaying = ops::take_back(
        &referees.replayed_file,
        &referees.replaying,
        player,
        UndoStep::Undo,
    );
    assert_eq!(
        cached.as_ref().map(|_| ()).map_err(ToString::to_string),
        replaying.as_ref().map(|_| ()).map_err(ToString::to_string),
        "{game}: {player}'s undo"
    );
    let after = fs::read(&referees.cached_file).expect("read");
    if cached.is_err() {
        assert_eq!(after, before, "{game}: a refused undo changed the file");
    }
    assert_eq!(
        after,
        fs::read(&referees.replayed_file).expect("read"),
        "{game}: {player}'s undo wrote other bytes than by replay"
    );
    cached.is_ok()
}

/// Plays a random game to its end (or `cap` moves) on both referees, checking at every
/// turn that the note holds the replayed state and that both files are the same bytes;
/// now and then a player takes back their last move, or asks to. Returns the moves
/// played and the most records a move from the note read, [`ROUND_MOST`] moves or more
/// after a step of taking back.
fn check_game<R: Rules>(game: &str, players: usize, seed_byte: u8, cap: usize) -> (usize, u64) {
    let referees = new_game(game, players, seed_byte);
    let seed = Seed([seed_byte; 32]);
    let id = ops::view(&referees.cached_file, None, None, None).expect("view")["id"]
        .as_str()
        .expect("id")
        .to_string();
    let note = referees.cached.home().join("states").join(&id);
    // A well-formed note of another game (a different file, so another digest).
    let other = new_game(game, players, seed_byte.wrapping_add(1));
    let mut picker = DrawStream::for_testing(u64::from(seed_byte));
    let mut played = 0;
    let mut used = 0;
    let mut widest = 0;
    let mut since_undo = usize::MAX;
    let mut movers: Vec<String> = Vec::new();
    let mut other_note = Vec::new();
    while played < cap {
        let view = ops::view(&referees.cached_file, None, None, None).expect("view");
        if view["over"] == true {
            break;
        }
        // Now and then the last mover takes back their move (refused where it drew,
        // was sealed or opened sealed moves), or an earlier mover asks to.
        let took_back = match (played % 11, movers.as_slice()) {
            (4, [.., last]) => take_back_on_both(&referees, game, last),
            (8, [.., earlier, _]) => take_back_on_both(&referees, game, earlier),
            _ => false,
        };
        if took_back {
            since_undo = 0;
        }
        let view = ops::view(&referees.cached_file, None, None, None).expect("view");
        let player = view["to_move"][0].as_str().expect("a player").to_string();
        let legal =
            ops::legal(&referees.cached_file, &player, Some(&referees.cached)).expect("legal");
        let text = pick(&legal, &mut picker).expect("a move");
        damage(&note, played, &other_note);
        let before = fs::read(&referees.cached_file).expect("read");
        let opened = ops::open_bytes(&before, Some(&referees.cached), true).expect("opens");
        if !opened.read_whole() {
            used += 1;
            // A step of taking back stays in the window until the round it
            // interrupted is over: those moves read the whole file.
            if since_undo >= ROUND_MOST {
                widest = widest.max(opened.records_read());
            }
        }
        since_undo = since_undo.saturating_add(1);
        drop(opened);
        ops::apply_move(&referees.cached_file, &referees.cached, &player, &text)
            .expect("the move, from the note or by replay");
        let _ = fs::remove_dir_all(referees.replaying.home().join("states"));
        ops::apply_move(&referees.replayed_file, &referees.replaying, &player, &text)
            .expect("the move by replay");
        played += 1;
        movers.push(player);
        let bytes = fs::read(&referees.cached_file).expect("read");
        assert_eq!(
            bytes,
            fs::read(&referees.replayed_file).expect("read"),
            "{game}: turn {played}: the move from the note wrote other bytes than by replay"
        );
        let note_kept = referees.cached.remembered_state(&id, &sha256(&bytes));
        // What the next move starts from: the note's state, or, in a game that hides
        // nothing, the file's own (and no note is kept).
        let kept: R::State = if R::HAS_HIDDEN_STATE {
            let note_kept = note_kept.expect("a note for the file just written");
            let note: serde_json::Value =
                serde_json::from_slice(&note_kept).expect("the note reads as JSON");
            serde_json::from_value(note["state"].clone()).expect("the note holds a state")
        } else {
            assert!(
                note_kept.is_none(),
                "{game}: a note for a game that hides nothing"
            );
            let file = FileText::parse(&bytes).expect("parses");
            file.game_file::<R::State>().expect("reads").state
        };
        assert_eq!(
            kept,
            replayed::<R>(&bytes, &seed),
            "{game}: turn {played}: the state a move starts from is not the replayed state"
        );
        if played == 1 && R::HAS_HIDDEN_STATE {
            // Written now, after the other game's first move: its note, whole.
            let view = ops::view(&other.cached_file, None, None, None).expect("view");
            let player = view["to_move"][0].as_str().expect("a player").to_string();
            let legal =
                ops::legal(&other.cached_file, &player, Some(&other.cached)).expect("legal");
            let text = pick(&legal, &mut picker).expect("a move");
            ops::apply_move(&other.cached_file, &other.cached, &player, &text).expect("applies");
            let other_id = ops::view(&other.cached_file, None, None, None).expect("view")["id"]
                .as_str()
                .expect("id")
                .to_string();
            other_note =
                fs::read(other.cached.home().join("states").join(other_id)).expect("its note");
        }
    }
    assert!(
        used * 2 > played,
        "{game}: the note was used on only {used} of {played} moves"
    );
    let audit = ops::audit(&referees.cached_file, Some(&referees.cached)).expect("audits");
    assert!(audit.passed(), "{game}: {:?}", audit.problems);
    eprintln!("{game}, {players} players: {played} moves, {used} from the note, at most {widest} records read");
    (played, widest)
}

#[test]
fn right_of_way_moves_from_the_file_alone_are_the_replayed_moves() {
    // Right of Way hides nothing: its file's state is the full state, and no note is
    // kept; a move reads the head alone.
    let (played, widest) = check_game::<RightOfWay>("right-of-way", 2, 4, 400);
    assert!(played > 20, "{played}");
    assert_eq!(widest, 1);
}

#[test]
fn triangle_auction_moves_from_the_note_are_the_replayed_moves() {
    for (players, seed) in [(5, 11), (3, 12)] {
        let (played, widest) =
            check_game::<TriangleAuction>("triangle-auction", players, seed, 400);
        assert!(played > 20, "{played}");
        // A round of sealed choices, its placements and the move before it, however
        // long the game.
        assert!(widest <= WINDOW_MOST, "{widest} records read");
    }
}

#[test]
fn desert_kingdom_moves_from_the_note_are_the_replayed_moves() {
    for (players, seed) in [(6, 21), (2, 22)] {
        let (played, widest) = check_game::<DesertKingdom>("desert-kingdom", players, seed, 400);
        assert!(played > 20, "{played}");
        assert!(widest <= WINDOW_MOST, "{widest} records read");
    }
}

/// Plays `moves` random moves of a new game on both referees, one move a run on the
/// replaying one, and runs of three moves on one opened file on the other (as a
/// forced or a bot's move follows a player's in one run by mail): after each run the
/// files are the same bytes, and the file audits.
fn moves_in_one_run_write_what_runs_of_one_write(game: &str, players: usize, seed_byte: u8) {
    let referees = new_game(game, players, seed_byte);
    let mut picker = DrawStream::for_testing(u64::from(seed_byte));
    let mut runs = 0;
    'game: for _ in 0..15 {
        // The first move of a run takes the fast path: the file this keyring wrote.
        let bytes = fs::read(&referees.cached_file).expect("read");
        let mut opened = ops::open_bytes(&bytes, Some(&referees.cached), true).expect("opens");
        for _ in 0..3 {
            let view = ops::view(&referees.replayed_file, None, None, None).expect("view");
            if view["over"] == true {
                break 'game;
            }
            let player = view["to_move"][0].as_str().expect("a player").to_string();
            let legal = ops::legal(&referees.replayed_file, &player, Some(&referees.replaying))
                .expect("legal");
            let text = pick(&legal, &mut picker).expect("a move");
            opened
                .apply(&referees.cached, &player, &text)
                .expect("a move on the file opened");
            let _ = fs::remove_dir_all(referees.replaying.home().join("states"));
            ops::apply_move(&referees.replayed_file, &referees.replaying, &player, &text)
                .expect("a move a run");
        }
        ops::write_game(&referees.cached_file, opened.as_ref(), &referees.cached).expect("write");
        runs += 1;
        assert_eq!(
            fs::read(&referees.cached_file).expect("read"),
            fs::read(&referees.replayed_file).expect("read"),
            "{game}: run {runs}: moves in one run wrote other bytes than a run a move"
        );
        let audit = ops::audit(&referees.cached_file, Some(&referees.cached)).expect("audits");
        assert!(audit.passed(), "{game}: run {runs}: {:?}", audit.problems);
    }
    assert!(runs >= 5, "{game}: {runs} runs");
}

#[test]
fn several_moves_in_one_run_write_what_a_run_a_move_writes() {
    moves_in_one_run_write_what_runs_of_one_write("right-of-way", 2, 31);
    moves_in_one_run_write_what_runs_of_one_write("triangle-auction", 5, 32);
    moves_in_one_run_write_what_runs_of_one_write("desert-kingdom", 6, 33);
}
