//! `cargo bench`: the figures the project promises, and, after them, a summary of
//! this run's medians as the targets' ratios.
//!
//! - `apply/GAME-POINT/pbem-apply-process`: one whole `pbem apply` process, for every
//!   game at its largest number of players, early (before turn 6) and late (before its
//!   last move), and late again with 5,000 game files beside it; next to
//!   `apply/GAME-POINT/dd-fsync-floor`, a process that only reads the same file and
//!   writes it back durably (`dd conv=fsync`): the physical floor. Target: within 2x.
//!   The two run in turn, and the summary's ratio is of the pairs so measured.
//! - `audit/GAME/pbem-audit-process`: the referee's audit of each complete game.
//!   Target: within 3x of one (late) apply.
//! - `random-games/GAME-PLAYERS`: complete random games on one core, every game at its
//!   largest number of players. Target: at least 2,000 per second.
//! - `inbox/maildir-moves`: messages per second through `pbem inbox --maildir`.
//! - `simulate/GAME-BOT`: complete games per second of `pbem simulate` on one thread,
//!   every seat played by BOT (random, greedy, search): what a bot costs.
//!
//! `PBEM_BENCH_BIN=path cargo bench` measures another build of pbem (a static one, say).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

use pbem::engine::chance::DrawStream;
use pbem::engine::fairness::Seed;
use pbem::engine::keyring::Keyring;
use pbem::engine::roster::parse_player;
use pbem::engine::session::NewGame;
use pbem::engine::{Options, Rules};
use pbem::games::desert_kingdom::DesertKingdom;
use pbem::games::right_of_way::RightOfWay;
use pbem::games::triangle_auction::TriangleAuction;
use pbem::ops;

/// The programs measured, each run from a copy in the benchmark's folder, made as
/// `cargo install` makes one: pbem (this build's, or another build of the same source
/// named by PBEM_BENCH_BIN: a statically linked one, say, README's "Faster starts") and
/// dd, the floor.
///
/// Why copies: how a program's file came to be in memory changes how fast it runs. The
/// same bytes moved 7% slower from the file the linker wrote than from such a copy, and
/// dd 2% slower from its installed file than from its copy (a move of the triangle
/// auction, and the floor, 100 runs of each in turn). A referee runs an installed pbem,
/// and the two programs are measured alike.
struct Programs {
    pbem: PathBuf,
    dd: PathBuf,
}

fn install_programs(folder: &Path) -> Programs {
    let build = std::env::var_os("PBEM_BENCH_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_pbem")), PathBuf::from);
    let dd = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("dd"))
        .find(|path| path.is_file())
        .expect("dd on the PATH");
    std::fs::create_dir_all(folder).expect("a folder for the programs");
    let install = |from: &Path, name: &str| {
        let to = folder.join(name);
        std::fs::copy(from, &to).expect("a copy of a program");
        to
    };
    Programs {
        pbem: install(&build, "pbem"),
        dd: install(&dd, "dd"),
    }
}

/// Where the benchmarks write their files: PBEM_BENCH_DIR, or the working folder.
fn bench_dir() -> PathBuf {
    std::env::var_os("PBEM_BENCH_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from)
}

/// The games measured, each at its largest number of players.
const GAMES: [(&str, usize); 3] = [
    ("right-of-way", 2),
    ("triangle-auction", 5),
    ("desert-kingdom", 6),
];

/// How many other game files stand beside the crowded game: a referee's whole folder.
const CROWD: usize = 5_000;

/// A game file as it stood before one move, with the keyring's notes of it as a real
/// previous move left them, and that move.
struct Point {
    bytes: Vec<u8>,
    /// Each note of the keyring (verified, state) and its bytes.
    notes: Vec<(PathBuf, Vec<u8>)>,
    player: String,
    text: String,
    turn: usize,
}

/// One game played to its end at its largest number of players: a point early (before
/// turn 6) and one late (before the last move), and the complete file.
struct Played {
    game: &'static str,
    early: Point,
    late: Point,
    complete: PathBuf,
}

struct Fixture {
    dir: tempfile::TempDir,
    programs: Programs,
    home: PathBuf,
    played: Vec<Played>,
}

/// The keyring's notes of game `id`, as they stand.
fn notes_of(home: &Path, id: &str) -> Vec<(PathBuf, Vec<u8>)> {
    ["verified", "states"]
        .iter()
        .map(|folder| home.join(folder).join(id))
        .filter_map(|path| std::fs::read(&path).ok().map(|bytes| (path, bytes)))
        .collect()
}

/// Plays a new game of `game` with `players` to its end in `dir` by random legal moves.
fn play(dir: &Path, home: &Path, game: &'static str, players: usize, seed_byte: u8) -> Played {
    let keyring = Keyring::at(home);
    let file = dir.join(format!("{game}.json"));
    let request = NewGame {
        players: ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][..players]
            .iter()
            .map(|name| parse_player(name))
            .collect(),
        seed: Some(Seed([seed_byte; 32])),
        ..NewGame::default()
    };
    ops::new_game(game, request, &keyring, &file).expect("a new game");
    let id = ops::view(&file, None, None, None).expect("view")["id"]
        .as_str()
        .expect("id")
        .to_string();
    let mut picker = DrawStream::for_testing(u64::from(seed_byte));
    let mut points = Vec::new();
    loop {
        let view = ops::view(&file, None, None, None).expect("view");
        if view["over"] == true {
            break;
        }
        let player = view["to_move"][0].as_str().expect("a player").to_string();
        let legal = ops::legal(&file, &player, Some(&keyring)).expect("legal");
        let text = pbem::engine::driver::pick(&legal, &mut picker).expect("a move");
        points.push(Point {
            bytes: std::fs::read(&file).expect("read"),
            notes: notes_of(home, &id),
            player: player.clone(),
            text: text.clone(),
            turn: points.len(),
        });
        ops::apply_move(&file, &keyring, &player, &text).expect("apply");
    }
    let late = points.pop().expect("a game of more than one move");
    let early = points.swap_remove(5);
    Played {
        game,
        early,
        late,
        complete: file,
    }
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir_in(bench_dir()).expect("a temporary folder");
    let home = dir.path().join("keyring");
    // A fixed referee key, as the tests use: the setup's draws depend on genesis, which
    // names the key, so with it every run of the benchmarks plays the same games and
    // measures the same move.
    std::fs::create_dir_all(&home).expect("keyring folder");
    std::fs::write(home.join("referee.key"), "42".repeat(32)).expect("a bench key");
    let played = GAMES
        .iter()
        .enumerate()
        .map(|(n, &(game, players))| play(dir.path(), &home, game, players, n as u8 + 1))
        .collect();
    let programs = install_programs(&dir.path().join("bin"));
    Fixture {
        dir,
        programs,
        home,
        played,
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

/// Writes `bytes` to `path` and syncs it, so that nothing measured after pays for it.
fn write_synced(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).expect("write");
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .expect("sync");
}

/// Runs `command` to its successful end and says how long it took.
fn timed(command: &mut Command) -> Duration {
    let started = Instant::now();
    run(command);
    started.elapsed()
}

/// Each point's pairs of (floor, apply) times, measured one right after the other.
type Pairs = BTreeMap<String, Vec<(Duration, Duration)>>;

/// `pbem apply` of each game's early and late move, each next to the floor of its
/// file: a process that reads it and writes it back durably (`dd conv=fsync`); and the
/// late move of the first game again in a folder of [`CROWD`] other game files.
///
/// The two processes run in turn, each on the file freshly restored: every iteration
/// of either benchmark runs the other process too, untimed, so that both are measured
/// under the same load, and the apply benchmark keeps each of its (floor, apply) pairs
/// for the summary's ratio. The floor alone moved by half from one run to another on a
/// shared machine; measured in pairs, the ratio moves with neither.
fn bench_apply(c: &mut Criterion, fixture: &Fixture) -> Pairs {
    let mut group = c.benchmark_group("apply");
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(5));
    // pbem finds its keyring the way a referee's shell or cron line gives it, inherited;
    // passing it with Command::env instead would charge pbem, and not dd, for the
    // environment this process builds for each spawn (about 0.1 ms here).
    std::env::set_var("PBEM_HOME", &fixture.home);
    let alone = fixture.dir.path().join("alone");
    let crowded = fixture.dir.path().join("crowded");
    std::fs::create_dir_all(&alone).expect("folder");
    std::fs::create_dir_all(&crowded).expect("folder");
    for n in 0..CROWD {
        std::fs::hard_link(
            &fixture.played[0].complete,
            crowded.join(format!("game-{n:04}.json")),
        )
        .expect("a game beside");
    }
    let mut pairs = Pairs::new();
    let mut measure = |name: String, folder: &Path, point: &Point| {
        let work = folder.join("work.json");
        let copy = folder.join("copy.json");
        eprintln!(
            "{name}: before turn {}, file {} bytes; {} plays {:?}",
            point.turn + 1,
            point.bytes.len(),
            point.player,
            point.text
        );
        // Before every run of either process: the file and the keyring's notes of it
        // restored, as they stand after a real previous move, and synced, so that
        // neither process is charged for writing back what the setup wrote.
        let restore = || {
            write_synced(&work, &point.bytes);
            for (path, bytes) in &point.notes {
                write_synced(path, bytes);
            }
        };
        let floor = || {
            restore();
            timed(
                Command::new(&fixture.programs.dd)
                    .arg(format!("if={}", work.display()))
                    .arg(format!("of={}", copy.display()))
                    .arg("conv=fsync")
                    .arg("status=none"),
            )
        };
        let apply = || {
            restore();
            timed(
                Command::new(&fixture.programs.pbem)
                    .arg("apply")
                    .arg(&work)
                    .args(["--player", &point.player, "--move", &point.text]),
            )
        };
        group.bench_function(format!("{name}/dd-fsync-floor"), |b| {
            b.iter_custom(|iterations| {
                (0..iterations)
                    .map(|_| {
                        apply();
                        floor()
                    })
                    .sum()
            });
        });
        let mut paired = Vec::new();
        group.bench_function(format!("{name}/pbem-apply-process"), |b| {
            b.iter_custom(|iterations| {
                (0..iterations)
                    .map(|_| {
                        let pair = (floor(), apply());
                        paired.push(pair);
                        pair.1
                    })
                    .sum()
            });
        });
        pairs.insert(name, paired);
    };
    for played in &fixture.played {
        measure(format!("{}-early", played.game), &alone, &played.early);
        measure(format!("{}-late", played.game), &alone, &played.late);
    }
    for played in &fixture.played {
        measure(
            format!("{}-late-beside-{CROWD}", played.game),
            &crowded,
            &played.late,
        );
    }
    group.finish();
    std::env::remove_var("PBEM_HOME");
    pairs
}

/// `pbem audit` (the referee's, with the keyring) of each complete game.
fn bench_audit(c: &mut Criterion, fixture: &Fixture) {
    let mut group = c.benchmark_group("audit");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));
    for played in &fixture.played {
        let records = ops::view(&played.complete, None, None, None).expect("view")["turn"].clone();
        eprintln!(
            "{} complete: {records} records, {} bytes",
            played.game,
            std::fs::metadata(&played.complete).expect("size").len()
        );
        group.bench_function(format!("{}/pbem-audit-process", played.game), |b| {
            b.iter(|| {
                run(Command::new(&fixture.programs.pbem)
                    .env("PBEM_HOME", &fixture.home)
                    .arg("audit")
                    .arg(&played.complete))
            });
        });
    }
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
    let desert_kingdom =
        DesertKingdom::from_data(DesertKingdom::DEFAULT_DATA, &Options::new()).expect("rules");
    let mut group = c.benchmark_group("random-games");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(5));
    let mut seed = 0;
    group.bench_function("right-of-way-2", |b| {
        b.iter(|| {
            seed += 1;
            random_game(&right_of_way, 2, seed)
        });
    });
    group.bench_function("triangle-auction-5", |b| {
        b.iter(|| {
            seed += 1;
            random_game(&triangle_auction, 5, seed)
        });
    });
    group.bench_function("desert-kingdom-6", |b| {
        b.iter(|| {
            seed += 1;
            random_game(&desert_kingdom, 6, seed)
        });
    });
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
fn bench_inbox(c: &mut Criterion, pbem: &Path) {
    const MESSAGES: usize = 40;
    let dir = tempfile::tempdir_in(bench_dir()).expect("a temporary folder");
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
    let secret = pbem::mail::outbound::capability::MailSecret::from_key(
        &keyring.signing_key().expect("key"),
    );
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
                let output = Command::new(pbem)
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
    let started = std::time::SystemTime::now();
    let fixture = fixture();
    bench_random_games(c);
    bench_simulate(c);
    let pairs = bench_apply(c, &fixture);
    bench_audit(c, &fixture);
    bench_inbox(c, &fixture.programs.pbem);
    summary(started, &pairs);
}

/// Where criterion keeps its estimates: CRITERION_HOME, else `criterion` in the target
/// folder (CARGO_TARGET_DIR, else the one this benchmark was built in).
fn criterion_folder() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(home.into());
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(target).join("criterion"));
    }
    // target/release/deps/pbem-HASH
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("criterion"))
}

/// The median time in seconds criterion measured for `group/id` in this run (an
/// estimate written after `started`); `None` when it was not measured (filtered out).
fn median(started: std::time::SystemTime, group: &str, id: &str) -> Option<f64> {
    // Criterion names a benchmark's folder by its id with each '/' made '_'.
    let path = criterion_folder()?
        .join(group)
        .join(id.replace('/', "_"))
        .join("new/estimates.json");
    let written = std::fs::metadata(&path).ok()?.modified().ok()?;
    if written < started {
        return None;
    }
    let estimates: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    Some(estimates["median"]["point_estimate"].as_f64()? / 1e9)
}

/// The median of some durations, in seconds; `None` for none.
fn median_of(mut times: Vec<Duration>) -> Option<f64> {
    times.sort_unstable();
    let middle = times.len() / 2;
    let median = match times.len() {
        0 => return None,
        n if n % 2 == 1 => times[middle],
        _ => (times[middle - 1] + times[middle]) / 2,
    };
    Some(median.as_secs_f64())
}

/// The targets as ratios of this run's medians: apply against its floor at every
/// point (from the pairs measured one right after the other: the target's measure;
/// then from criterion's two estimates), the audit against one (late) apply, random
/// games per second per core.
fn summary(started: std::time::SystemTime, pairs: &Pairs) {
    let shown = |value: Option<f64>, unit: &str| {
        value.map_or("not measured".to_string(), |v| format!("{v:.2}{unit}"))
    };
    eprintln!("\nSummary (medians of this run; the machine may be shared):");
    let mut points: Vec<String> = Vec::new();
    for (game, _) in GAMES {
        points.push(format!("{game}-early"));
        points.push(format!("{game}-late"));
    }
    for (game, _) in GAMES {
        points.push(format!("{game}-late-beside-{CROWD}"));
    }
    for point in &points {
        let paired = pairs.get(point).map(Vec::as_slice).unwrap_or_default();
        let floor = median_of(paired.iter().map(|pair| pair.0).collect());
        let apply = median_of(paired.iter().map(|pair| pair.1).collect());
        let estimated_floor = median(started, "apply", &format!("{point}/dd-fsync-floor"));
        let estimated_apply = median(started, "apply", &format!("{point}/pbem-apply-process"));
        let ratio = |apply: Option<f64>, floor: Option<f64>| {
            shown(floor.zip(apply).map(|(floor, apply)| apply / floor), "x")
        };
        eprintln!(
            "  apply {point}: {} / floor {} = {} over {} pairs (target <= 2x); criterion's medians: {} / {} = {}",
            shown(apply.map(|s| s * 1e3), " ms"),
            shown(floor.map(|s| s * 1e3), " ms"),
            ratio(apply, floor),
            paired.len(),
            shown(estimated_apply.map(|s| s * 1e3), " ms"),
            shown(estimated_floor.map(|s| s * 1e3), " ms"),
            ratio(estimated_apply, estimated_floor),
        );
    }
    for (game, _) in GAMES {
        let audit = median(started, "audit", &format!("{game}/pbem-audit-process"));
        let apply = median(started, "apply", &format!("{game}-late/pbem-apply-process"));
        eprintln!(
            "  audit {game}: {} / late apply = {} (target <= 3x)",
            shown(audit.map(|s| s * 1e3), " ms"),
            shown(audit.zip(apply).map(|(a, b)| a / b), "x")
        );
    }
    for (game, players) in GAMES {
        let game_time = median(started, "random-games", &format!("{game}-{players}"));
        eprintln!(
            "  random games {game}-{players}: {} per second on one core (target >= 2000)",
            shown(game_time.map(|s| 1.0 / s), "")
        );
    }
}

criterion_group!(pbem_benches, benches);
criterion_main!(pbem_benches);
