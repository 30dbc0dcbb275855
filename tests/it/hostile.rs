//! Hostile files and input on the command line: what a planted fifo, device or link
//! in place of a game file, a careless umask, a huge move or a sealed move by mail
//! must not do. Every command runs as a process, with a time limit and (where an old
//! pbem would read without end) a memory limit, so a regression fails instead of
//! hanging or exhausting the machine.

use std::io::Read as _;
use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::support::{inbox, read_mail, Smtp, Table};

const SEED: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/// How long a refusal may take: it reads nothing, so far less than this.
const PROMPTLY: Duration = Duration::from_secs(10);

/// What a run printed and how it ended; `None` as the status when it had to be killed.
struct Ran {
    status: Option<i32>,
    stderr: String,
    took: Duration,
}

/// Runs `pbem ARGS` in `table`'s folder through `sh -c` with a shell prefix (`umask
/// 000`, a memory limit, a redirection of standard input), killed after [`PROMPTLY`].
fn run_limited(table: &Table, prefix: &str, args: &[&str], stdin: &str) -> Ran {
    let pbem = assert_cmd::cargo::cargo_bin("pbem");
    let quoted: Vec<String> = args
        .iter()
        .map(|arg| format!("'{}'", arg.replace('\'', "'\\''")))
        .collect();
    let script = format!(
        "{prefix}; exec '{}' {} {stdin}",
        pbem.display(),
        quoted.join(" ")
    );
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .env("PBEM_HOME", table.home())
        .current_dir(table.dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status.code();
        }
        if start.elapsed() > PROMPTLY {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = start.elapsed();
    let mut stderr = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    Ran {
        status,
        stderr,
        took,
    }
}

/// At most 2 GiB of address space: far more than any command needs, far less than
/// reading a device without bound would take.
const MEMORY: &str = "ulimit -v 2097152";

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
    assert!(std::fs::symlink_metadata(path)
        .expect("made")
        .file_type()
        .is_fifo());
}

/// Every command that reads a game file, on `file`.
fn every_reader(file: &str) -> Vec<Vec<String>> {
    let commands: [&[&str]; 6] = [
        &["show", file],
        &["show", file, "--format", "json"],
        &["legal", file, "--player", "Ann"],
        &["log", file],
        &["audit", file],
        &["apply", file, "--player", "Ann", "--move", "pass"],
    ];
    commands
        .iter()
        .map(|args| args.iter().map(|a| a.to_string()).collect())
        .collect()
}

#[test]
fn a_fifo_as_the_game_file_is_refused_at_once_by_every_command() {
    let table = Table::new();
    table.new_game(SEED);
    mkfifo(&table.dir.path().join("fifo.json"));
    for args in every_reader("fifo.json") {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run_limited(&table, "true", &args, "");
        assert!(
            ran.status.is_some(),
            "`pbem {}` hung on a fifo (killed after {:?})",
            args.join(" "),
            ran.took
        );
        assert_eq!(ran.status, Some(1), "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("fifo.json")
                && ran.stderr.contains("a fifo")
                && ran.stderr.contains("not a regular file"),
            "{args:?}: {}",
            ran.stderr
        );
    }
}

#[test]
fn a_link_to_a_device_or_a_folder_is_refused_without_reading() {
    let table = Table::new();
    table.new_game(SEED);
    let folder = table.dir.path().join("a-folder");
    std::fs::create_dir(&folder).expect("mkdir");
    let folder = folder.to_string_lossy().into_owned();
    for (name, target, kind) in [
        ("zero.json", "/dev/zero", "a character device"),
        ("random.json", "/dev/urandom", "a character device"),
        ("folder.json", folder.as_str(), "a folder"),
    ] {
        std::os::unix::fs::symlink(target, table.dir.path().join(name)).expect("link");
        for args in every_reader(name) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let ran = run_limited(&table, MEMORY, &args, "");
            assert_eq!(ran.status, Some(1), "{args:?}: {}", ran.stderr);
            assert!(
                ran.stderr.contains(kind) && ran.stderr.contains("not a regular file"),
                "{args:?}: {}",
                ran.stderr
            );
            assert!(ran.took < PROMPTLY, "{args:?} took {:?}", ran.took);
        }
        // Nothing was made beside a device (no `/dev/zero.lock`).
        if target.starts_with("/dev/") {
            assert!(!Path::new(&format!("{target}.lock")).exists());
        }
    }
}

#[test]
fn a_file_over_the_bound_is_refused_before_it_is_read() {
    let table = Table::new();
    table.new_game(SEED);
    // Sparse: 64 MiB and one byte, written in no time.
    let huge = table.dir.path().join("huge.json");
    let file = std::fs::File::create(&huge).expect("create");
    file.set_len(64 * 1024 * 1024 + 1).expect("grow");
    let ran = run_limited(&table, MEMORY, &["show", "huge.json"], "");
    assert_eq!(ran.status, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("huge.json") && ran.stderr.contains("64 MiB"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_move_on_standard_input_is_read_only_up_to_the_most_a_move_may_be() {
    let table = Table::new();
    table.new_game(SEED);
    let before = std::fs::read(table.file()).expect("read");
    let player = super::support::to_move(&table.view());
    let ran = run_limited(
        &table,
        MEMORY,
        &["apply", "game.json", "--player", &player, "--move", "-"],
        "< /dev/zero",
    );
    assert_eq!(ran.status, Some(1), "{}", ran.stderr);
    assert!(ran.stderr.contains("16384 bytes"), "{}", ran.stderr);
    assert_eq!(std::fs::read(table.file()).expect("read"), before);
}

#[test]
fn apply_through_a_link_replaces_the_target_and_keeps_the_link() {
    let table = Table::new();
    table.new_game(SEED);
    // The game lives in a folder of its own; the referee reaches it by a link.
    let real = table.dir.path().join("real");
    std::fs::create_dir(&real).expect("mkdir");
    let target = real.join("game.json");
    std::fs::rename(table.file(), &target).expect("move");
    std::fs::remove_file(table.dir.path().join("game.json.lock")).ok();
    std::os::unix::fs::symlink("real/game.json", table.file()).expect("link");
    let (player, text) = table.first_move();
    let (ok, out) = table.apply(&player, &text);
    assert!(ok, "{out}");
    let link = std::fs::symlink_metadata(table.file()).expect("the link");
    assert!(link.file_type().is_symlink(), "the link was replaced");
    let moved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&target).expect("target")).expect("json");
    assert_eq!(moved["records"].as_array().expect("records").len(), 1);
    // One game, one lock, whatever name it is reached by: beside the target.
    assert!(real.join("game.json.lock").exists());
    assert!(!table.dir.path().join("game.json.lock").exists());
    let (passed, report) = table.audit(false);
    assert!(passed, "{report}");
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o777
}

#[test]
fn the_game_files_mode_is_pbems_not_the_umasks_and_a_rewrite_keeps_it() {
    let table = Table::new();
    table.test_key();
    let ran = run_limited(
        &table,
        "umask 000",
        &[
            "new",
            "right-of-way",
            "--player",
            "Ann",
            "--player",
            "Bob",
            "--seed",
            SEED,
            "--out",
            "game.json",
        ],
        "",
    );
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(mode(&table.file()), 0o644);
    // A referee who narrowed it keeps it narrowed across moves.
    std::fs::set_permissions(table.file(), std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let (player, text) = table.first_move();
    let ran = run_limited(
        &table,
        "umask 000",
        &["apply", "game.json", "--player", &player, "--move", &text],
        "",
    );
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(mode(&table.file()), 0o640);
    // The keyring's files stay the owner's.
    for entry in walk(&table.home()) {
        if entry.is_file() {
            assert_eq!(mode(&entry), 0o600, "{}", entry.display());
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("list").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_huge_refused_move_or_name_is_not_echoed_whole() {
    let table = Table::new();
    table.new_game(SEED);
    let before = std::fs::read(table.file()).expect("read");
    let player = super::support::to_move(&table.view());
    let stderr_of = |args: &[&str], stdin: &str| {
        let output = table
            .pbem()
            .arg("apply")
            .arg(table.file())
            .args(args)
            .write_stdin(stdin.to_string())
            .output()
            .expect("runs");
        assert!(!output.status.success(), "{args:?} was taken");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            stderr.len() < 4096,
            "{args:?}: {} bytes on stderr: {}…",
            stderr.len(),
            stderr.chars().take(300).collect::<String>()
        );
        stderr
    };
    // A megabyte move, as a move, a preview, and of a player who is not to move.
    let huge = format!("place {}\n", "x".repeat(1_000_000));
    for args in [
        vec!["--player", &player, "--move", "-"],
        vec!["--player", &player, "--preview", "--move", "-"],
    ] {
        let stderr = stderr_of(&args, &huge);
        assert!(stderr.contains("16384"), "{stderr}");
    }
    // Under the bound of a move, one long word the rules quote back, and a long name.
    let long = format!("place {}", "y".repeat(15_000));
    let name = "z".repeat(100_000);
    for args in [
        vec!["--player", &player, "--move", &long],
        vec!["--player", &player, "--preview", "--move", &long],
        vec!["--player", &name, "--move", "pass"],
    ] {
        let stderr = stderr_of(&args, "");
        assert!(stderr.contains("characters in all"), "{stderr}");
    }
    assert_eq!(std::fs::read(table.file()).expect("read"), before);
}

/// A triangle auction's cards are sealed: after a card by mail, neither the report
/// `pbem inbox` prints (which cron mails on) nor the archive's index holds it, while the
/// mover's own confirmation still says what they chose.
#[test]
fn a_sealed_card_by_mail_is_in_neither_the_report_nor_the_index() {
    let dir = tempfile::tempdir().expect("dir");
    let games = dir.path().join("games");
    std::fs::create_dir_all(&games).expect("games");
    let file = games.join("game.json");
    let home = dir.path().join("keyring");
    super::support::test_key(&home);
    let smtp = Smtp::start(&dir.path().join("delivered"));
    let pbem = || {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("pbem"));
        command
            .env("PBEM_HOME", &home)
            .env("PBEM_SMTP", format!("smtp://127.0.0.1:{}", smtp.port))
            .env("PBEM_FROM", "Referee <referee@pbem.example>")
            .env_remove("PBEM_NOW");
        command
    };
    let output = pbem()
        .args(["new", "triangle-auction"])
        .args(["--player", "Ann <ann@example.org>"])
        .args(["--player", "Bob <bob@example.org>"])
        .args(["--player", "Cid <cid@example.org>"])
        .args(["--seed", SEED, "--mail", "--out"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Ann's turn notice, to reply to (its reference proves the reply hers).
    let mut notice = None;
    let mut seen = std::collections::BTreeSet::new();
    for (name, raw) in smtp.delivered() {
        seen.insert(name);
        let message = mail_parser::MessageParser::default()
            .parse(&raw)
            .expect("a message");
        let (to, subject, text) = read_mail(&raw);
        if to == "ann@example.org" && subject.contains("your move") {
            let references = message
                .header_raw("References")
                .unwrap_or_default()
                .trim()
                .to_string();
            let id = message.message_id().unwrap_or_default().to_string();
            notice = Some((subject, id, references, text));
        }
    }
    let (subject, message_id, references, text) = notice.expect("Ann's turn notice");
    let notice = super::replies::Notice {
        subject: &subject,
        message_id: &message_id,
        references: &references,
        text: &text,
    };
    let referee = super::replies::Referee {
        name: "Referee",
        address: "referee@pbem.example",
    };
    // Ann asks for every move's mail as it happens, so that her confirmation comes at
    // once (by default it would wait for her next turn notice).
    let raw = super::replies::gmail_reply(
        &referee,
        &notice,
        "ann@example.org",
        "digest off",
        "sealed-digest",
    );
    let output = inbox(pbem(), &games, &raw);
    assert!(output.status.success(), "{output:?}");
    for (name, _) in smtp.delivered() {
        seen.insert(name);
    }
    // A card other than 0, whose text appears nowhere else ("card 0" could be a
    // board's words).
    let card = "card 4";
    let raw =
        super::replies::gmail_reply(&referee, &notice, "ann@example.org", card, "sealed-card-1");
    let output = inbox(pbem(), &games, &raw);
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() && report.starts_with("applied"),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !report.contains(card),
        "the report shows the card: {report}"
    );
    let index = std::fs::read_to_string(games.join("game.json.mail/index.jsonl")).expect("index");
    assert!(!index.contains(card), "the index holds the card: {index}");
    // Ann's own confirmation names her card; nobody else's mail does.
    let mut confirmed = false;
    for (name, raw) in smtp.delivered() {
        if !seen.insert(name) {
            continue;
        }
        let (to, _, text) = read_mail(&raw);
        if to == "ann@example.org" {
            confirmed |= text.contains(card);
        } else {
            assert!(!text.contains(card), "mail to {to}: {text}");
        }
    }
    assert!(confirmed, "Ann is told what she chose");
    // The same card sent again is known as already applied, from the index's tag.
    let again =
        super::replies::gmail_reply(&referee, &notice, "ann@example.org", card, "sealed-card-2");
    let output = inbox(pbem(), &games, &again);
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(report.contains("was already applied"), "{report}");
    assert!(!report.contains(card), "{report}");
}
