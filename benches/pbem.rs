//! `cargo bench`: the figures the project promises.
//!
//! - `apply/pbem-apply-process`: one whole `pbem apply` process on a mid-game file, next
//!   to `apply/dd-fsync-floor`, a process that only reads the same file and writes it
//!   back durably (`dd conv=fsync`): the physical floor. Target: within 2x.
//! - `audit/pbem-audit-process`: the audit of a complete game. Target: within 3x of one
//!   apply.
//! - `random-games/right-of-way`: complete random games on one core. Target: at least
//!   2,000 per second.
//! - `inbox/maildir-moves`: messages per second through `pbem inbox --maildir`.
//! - `simulate/GAME-BOT`: complete games per second of `pbem simulate` on one thread,
//!   every seat played by BOT (random, greedy): what a bot costs.
//!
//! `PBEM_BENCH_BIN=path cargo bench` measures another build of pbem (a static one, say).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

use pbem::engine::chance::DrawStream;
use pbem::engine::fairness::Seed;
use pbem::engine::keyring::Keyring;
use pbem::engine::session::{parse_player, NewGame};
use pbem::engine::{Options, Rules};
use pbem::games::desert_kingdom::DesertKingdom;
use pbem::games::right_of_way::RightOfWay;
use pbem::games::triangle_auction::TriangleAuction;
use pbem::ops;

/// The binary measured: this build's, or another build of the same source named by
/// PBEM_BENCH_BIN (a statically linked build, say: README's "Faster starts").
fn pbem_bin() -> std::ffi::OsString {
    std::env::var_os("PBEM_BENCH_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_pbem").into())
}

struct Fixture {
    _dir: tempfile::TempDir,
    home: PathBuf,
    mid_game: PathBuf,
    complete: PathBuf,
    next_player: String,
    next_move: String,
}

/// Plays `turns` random turns (all of them when `None`) of a new game in `dir`.
fn play(dir: &Path, keyring: &Keyring, name: &str, seed_byte: u8, turns: Option<usize>) -> PathBuf {
    let file = dir.join(name);
    let request = NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob")],
        seed: Some(Seed([seed_byte; 32])),
        ..NewGame::default()
    };
    ops::new_game("right-of-way", request, keyring, &file).expect("a new game");
    let mut picker = DrawStream::for_testing(u64::from(seed_byte));
    let mut played = 0;
    while turns.is_none_or(|limit| played < limit) {
        let view = ops::view(&file, None, None, None).expect("view");
        if view["over"] == true {
            break;
        }
        let player = view["to_move"][0].as_str().expect("a player").to_string();
        let legal = ops::legal(&file, &player, Some(keyring)).expect("legal");
        let text = pbem::engine::driver::pick(&legal, &mut picker).expect("a move");
        ops::apply_move(&file, keyring, &player, &text).expect("apply");
        played += 1;
    }
    file
}

fn fixture() -> Fixture {
    let dir =
        tempfile::tempdir_in(std::env::var_os("PBEM_BENCH_DIR").unwrap_or_else(|| ".".into()))
            .expect("a temporary folder");
    let home = dir.path().join("keyring");
    // A fixed referee key, as the tests use: the setup's draws depend on genesis, which
    // names the key, so with it every run of the benchmarks plays the same games and
    // measures the same move.
    std::fs::create_dir_all(&home).expect("keyring folder");
    std::fs::write(home.join("referee.key"), "42".repeat(32)).expect("a bench key");
    let keyring = Keyring::at(&home);
    let mid_game = play(dir.path(), &keyring, "mid.json", 1, Some(60));
    let complete = play(dir.path(), &keyring, "complete.json", 2, None);
    let view = ops::view(&mid_game, None, None, None).expect("view");
    let next_player = view["to_move"][0].as_str().expect("a player").to_string();
    let next_move = ops::legal(&mid_game, &next_player, None).expect("legal")[0]
        .text
        .clone();
    Fixture {
        _dir: dir,
        home,
        mid_game,
        complete,
        next_player,
        next_move,
    }
}

fn run(command: &mut Command) {
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("runs");
    assert!(status.success());
}

fn bench_apply(c: &mut Criterion, fixture: &Fixture) {
    let mut group = c.benchmark_group("apply");
    group.measurement_time(Duration::from_secs(8));
    let work = fixture.mid_game.with_file_name("work.json");
    let copy = fixture.mid_game.with_file_name("copy.json");
    let size = std::fs::metadata(&fixture.mid_game).expect("size").len();
    // The referee's note that the mid-game file is the one it last verified and wrote:
    // restored before each run, as it stands after a real previous move.
    let id = ops::view(&fixture.mid_game, None, None, None).expect("view")["id"]
        .as_str()
        .expect("id")
        .to_string();
    let note = fixture.home.join("verified").join(id);
    let noted = std::fs::read(&note).expect("pbem noted the file it wrote");
    eprintln!(
        "mid-game file: {size} bytes; the move measured: {} plays {:?}",
        fixture.next_player, fixture.next_move
    );
    // pbem finds its keyring the way a referee's shell or cron line gives it, inherited;
    // passing it with Command::env instead would charge pbem, and not dd, for the
    // environment this process builds for each spawn (about 0.1 ms here).
    std::env::set_var("PBEM_HOME", &fixture.home);
    // Before every run of either process: the mid-game file and the keyring's note of it
    // restored, as they stand after a real previous move, and synced, so that neither
    // process is charged for writing back what the setup wrote.
    let restore = || {
        std::fs::copy(&fixture.mid_game, &work).expect("copy");
        std::fs::File::open(&work)
            .and_then(|f| f.sync_all())
            .expect("sync");
        std::fs::write(&note, &noted).expect("note");
        std::fs::File::open(&note)
            .and_then(|f| f.sync_all())
            .expect("sync");
    };
    let dd = || {
        run(Command::new("dd")
            .arg(format!("if={}", work.display()))
            .arg(format!("of={}", copy.display()))
            .arg("conv=fsync")
            .arg("status=none"));
    };
    group.bench_function("dd-fsync-floor", |b| {
        b.iter_batched(restore, |()| dd(), BatchSize::PerIteration);
    });
    group.bench_function("pbem-apply-process", |b| {
        b.iter_batched(
            restore,
            |()| {
                run(Command::new(pbem_bin()).arg("apply").arg(&work).args([
                    "--player",
                    &fixture.next_player,
                    "--move",
                    &fixture.next_move,
                ]));
            },
            BatchSize::PerIteration,
        );
    });
    // The floor as the previous benchmark took it: dd run after dd, with no setup.
    group.bench_function("dd-fsync-back-to-back", |b| b.iter(dd));
    group.finish();
    std::env::remove_var("PBEM_HOME");
}

fn bench_audit(c: &mut Criterion, fixture: &Fixture) {
    let mut group = c.benchmark_group("audit");
    group.measurement_time(Duration::from_secs(8));
    let records = ops::view(&fixture.complete, None, None, None).expect("view")["turn"].clone();
    eprintln!(
        "complete game: {records} records, {} bytes",
        std::fs::metadata(&fixture.complete).expect("size").len()
    );
    group.bench_function("pbem-audit-process", |b| {
        b.iter(|| {
            run(Command::new(pbem_bin())
                .arg("audit")
                .arg("--public")
                .arg(&fixture.complete))
        });
    });
    group.bench_function("audit-in-process", |b| {
        b.iter(|| {
            let report = ops::audit(&fixture.complete, None).expect("audit");
            assert!(report.passed());
        });
    });
    group.finish();
}

/// A random complete game of any game, in process, with the rules' own random moves:
/// the seat to move is picked at random where several are (sealed choices).
fn random_game<R: Rules>(rules: &R, players: usize, seed: u64) -> usize {
    let mut chance = DrawStream::for_testing(seed);
    let mut picker = DrawStream::for_testing(seed ^ 0x5eed);
    let names: Vec<String> = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][..players]
        .iter()
        .map(|n| n.to_string())
        .collect();
    let mut state = rules.setup(&names, &mut chance).expect("setup");
    let mut turns = 0;
    while !rules.is_over(&state) {
        let waiting = rules.to_move(&state);
        let seat = match waiting.len() {
            1 => waiting[0],
            count => waiting[picker.index(count as u32) as usize],
        };
        let mv = rules
            .sample_move(&state, seat, &mut picker)
            .expect("a legal move");
        state = rules
            .apply(&state, seat, &mv, &mut chance)
            .expect("a sampled move is legal");
        turns += 1;
    }
    turns
}

fn bench_random_games(c: &mut Criterion) {
    let right_of_way =
        RightOfWay::from_data(RightOfWay::DEFAULT_DATA, &Options::new()).expect("rules");
    let triangle_auction =
        TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Options::new()).expect("rules");
    let mut group = c.benchmark_group("random-games");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0;
    group.bench_function("right-of-way", |b| {
        b.iter(|| {
            seed += 1;
            random_game(&right_of_way, 2, seed)
        });
    });
    let desert_kingdom =
        DesertKingdom::from_data(DesertKingdom::DEFAULT_DATA, &Options::new()).expect("rules");
    for players in [2, 6] {
        group.bench_function(format!("desert-kingdom-{players}"), |b| {
            b.iter(|| {
                seed += 1;
                random_game(&desert_kingdom, players, seed)
            });
        });
    }
    for players in [3, 5] {
        group.bench_function(format!("triangle-auction-{players}"), |b| {
            b.iter(|| {
                seed += 1;
                random_game(&triangle_auction, players, seed)
            });
        });
    }
    group.finish();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// `pbem inbox --maildir` on a Maildir of MESSAGES moves, each a real message with the
/// player's token, sent on through a folder transport.
fn bench_inbox(c: &mut Criterion) {
    const MESSAGES: usize = 40;
    let dir =
        tempfile::tempdir_in(std::env::var_os("PBEM_BENCH_DIR").unwrap_or_else(|| ".".into()))
            .expect("a temporary folder");
    // Play the game once to learn a legal sequence of moves...
    let scout = Keyring::at(dir.path().join("scout"));
    let request = || NewGame {
        players: vec![
            parse_player("Ann <ann@example.org>"),
            parse_player("Bob <bob@example.org>"),
        ],
        seed: Some(Seed([9; 32])),
        ..NewGame::default()
    };
    let scouted = dir.path().join("scouted.json");
    ops::new_game("right-of-way", request(), &scout, &scouted).expect("new");
    let mut moves = Vec::new();
    for _ in 0..MESSAGES {
        let view = ops::view(&scouted, None, None, None).expect("view");
        let player = view["to_move"][0].as_str().expect("a player").to_string();
        let text = ops::legal(&scouted, &player, None).expect("legal")[0]
            .text
            .clone();
        ops::apply_move(&scouted, &scout, &player, &text).expect("apply");
        moves.push((player, text));
    }
    // ...then set up the same game (same seed, same referee key) to be played by mail.
    let template = dir.path().join("template");
    let keyring = Keyring::at(template.join("keyring"));
    std::fs::create_dir_all(template.join("keyring")).expect("keyring");
    std::fs::copy(
        dir.path().join("scout/referee.key"),
        template.join("keyring/referee.key"),
    )
    .expect("key");
    std::fs::create_dir_all(template.join("games")).expect("games");
    let game = template.join("games/game.json");
    ops::new_game("right-of-way", request(), &keyring, &game).expect("new");
    let id = ops::view(&game, None, None, None).expect("view")["id"]
        .as_str()
        .expect("id")
        .to_string();
    let secret = pbem::mail::capability::MailSecret::from_key(&keyring.signing_key().expect("key"));
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(template.join("maildir").join(sub)).expect("maildir");
    }
    for (n, (player, text)) in moves.iter().enumerate() {
        let seat = usize::from(player != "Ann");
        let address = format!("{}@example.org", player.to_lowercase());
        let message = format!(
            "From: {player} <{address}>\r\nTo: referee@example.org\r\nSubject: [pbem {id}] move\r\n\
Message-ID: <bench-{n}@example.org>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n\
Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n\r\npbem-token: {}\r\n",
            secret.token(&id, seat)
        );
        std::fs::write(template.join(format!("maildir/new/{n:06}.bench")), message)
            .expect("message");
    }
    let work = dir.path().join("work");
    let mut group = c.benchmark_group("inbox");
    group.throughput(Throughput::Elements(MESSAGES as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("maildir-moves", |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_dir_all(&work);
                copy_dir(&template, &work);
                delivered_in_name_order(&work.join("maildir/new"));
            },
            |()| {
                let output = Command::new(pbem_bin())
                    .env("PBEM_HOME", work.join("keyring"))
                    .env(
                        "PBEM_SMTP",
                        format!("folder:{}", work.join("sent").display()),
                    )
                    .env("PBEM_FROM", "Referee <referee@example.org>")
                    .args(["inbox", "--games"])
                    .arg(work.join("games"))
                    .arg("--maildir")
                    .arg(work.join("maildir"))
                    .output()
                    .expect("runs");
                assert!(output.status.success());
                let applied = String::from_utf8_lossy(&output.stdout)
                    .matches(": applied:")
                    .count();
                assert_eq!(
                    applied,
                    MESSAGES,
                    "{}",
                    String::from_utf8_lossy(&output.stdout)
                );
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

/// Gives the messages of a Maildir folder modification times in the order of their
/// names, as one delivery after another would: `inbox` handles them in the order they
/// arrived, and a copy made the folder's files in no particular order.
fn delivered_in_name_order(folder: &Path) {
    let mut names: Vec<PathBuf> = std::fs::read_dir(folder)
        .expect("the folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    names.sort();
    for (n, path) in names.iter().enumerate() {
        let file = std::fs::File::options()
            .write(true)
            .open(path)
            .expect("a message");
        file.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(1_795_000_000 + n as u64))
            .expect("its time");
    }
}

/// `pbem simulate`'s games per second on one thread, each bot in every seat.
fn bench_simulate(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (game, players) in [
        ("right-of-way", 2),
        ("triangle-auction", 3),
        ("desert-kingdom", 2),
    ] {
        for bot in pbem::bots::Bot::ALL {
            // Few games an iteration: greedy weighs every move it may make.
            let games = match bot {
                pbem::bots::Bot::Random => 20,
                _ => 2,
            };
            group.throughput(Throughput::Elements(games as u64));
            let mut seed = 0u8;
            group.bench_function(format!("{game}-{bot}"), |b| {
                b.iter(|| {
                    seed = seed.wrapping_add(1);
                    let sim = pbem::simulate::Simulation {
                        game: game.to_string(),
                        bots: vec![bot; players],
                        games,
                        options: Options::new(),
                        seed: [seed; 32],
                        threads: 1,
                    };
                    pbem::simulate::run(&sim, &|| {}).expect("a simulation")
                });
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let fixture = fixture();
    bench_random_games(c);
    bench_simulate(c);
    bench_apply(c, &fixture);
    bench_audit(c, &fixture);
    bench_inbox(c);
}

criterion_group!(pbem_benches, benches);
criterion_main!(pbem_benches);
