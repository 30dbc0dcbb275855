//! Every standing move reaches every player exactly once, on every path its news can
//! take: a player's mail, a move the referee enters, a forfeit past the deadline, the
//! day's digest, held news going with a later mail, a game the referee closes; with
//! the mail server going down and coming back at random, and every pass killed at
//! every one of its write points (`PBEM_CRASH_AFTER`, debug builds) and then done
//! again the way a referee or a mail server would.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::ExitStatusExt;

use super::*;

/// Random games played: each pass of each is killed at every write point it has.
const GAMES: u64 = 1;
/// Passes that may change the game, at most, before the referee closes it.
const STEPS: usize = 7;
const PLAYERS: [&str; 3] = ["Ann", "Bob", "Cat"];
const HOUR: u64 = 3_600;

/// One run of pbem that may tell players of a move.
#[derive(Debug, Clone)]
enum Pass {
    /// A player's message (a move, or a word like `digest daily`), with their token.
    Mail { raw: String },
    /// The referee enters a move for a player, with mail.
    Apply { player: String, text: String },
    /// The cron run: reminders, the deadline (forfeit past it), the day's digests.
    Remind { forfeit: bool },
    /// `pbem outbox flush`.
    Flush,
    /// `pbem reveal --force --mail`: the referee closes the game.
    Close,
}

struct Watched {
    host: Host,
    tokens: BTreeMap<String, String>,
    /// The report of each standing move as each player reads it, once looked up:
    /// (player, record) gives the report's lines run together as mail shows them.
    needles: std::cell::RefCell<BTreeMap<(String, u64), String>>,
}

/// A copy of everything a pass may change: the games folder, the keyring (which
/// remembers each game's newest file) and the names of the mail delivered so far.
struct Snapshot {
    dir: tempfile::TempDir,
    /// Each delivered mail's file, bytes and time (the order mail is read in).
    delivered: BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)>,
}

impl Watched {
    fn records(&self) -> u64 {
        self.host.view()["head"]["turn"]
            .as_u64()
            .expect("head turn")
    }

    fn over(&self) -> bool {
        self.host.view()["over"] == true
    }

    fn run_pass(&self, pass: &Pass, crash_after: Option<u64>) -> std::process::Output {
        let host = &self.host;
        let mut command = host.pbem();
        if let Some(k) = crash_after {
            command.env("PBEM_CRASH_AFTER", k.to_string());
        }
        match pass {
            Pass::Mail { raw } => return super::super::support::inbox(command, &host.games(), raw),
            Pass::Apply { player, text } => command
                .arg("apply")
                .arg(host.file())
                .args(["--player", player, "--move", text, "--mail"]),
            Pass::Remind { forfeit } => {
                command
                    .args(["remind", "--after", "1d", "--games"])
                    .arg(host.games());
                if *forfeit {
                    command.args(["--limit", "2d", "--then", "forfeit"]);
                }
                &mut command
            }
            Pass::Flush => command.args(["outbox", "flush"]).arg(host.file()),
            Pass::Close => command
                .args(["reveal", "--force", "--mail"])
                .arg(host.file()),
        };
        command.output().expect("runs")
    }

    /// What the referee or the mail server does after a run was killed: the message
    /// delivered again; the command run again (an `apply` only when its move is not
    /// in the file, else the outbox sent).
    fn recover(&self, pass: &Pass, records_before: u64) {
        let again = match pass {
            Pass::Apply { .. } if self.records() > records_before => Pass::Flush,
            other => other.clone(),
        };
        let output = self.run_pass(&again, None);
        assert_ne!(
            output.status.signal(),
            Some(6),
            "{again:?} run again is not killed"
        );
    }

    fn snapshot(&self) -> Snapshot {
        let dir = tempfile::tempdir().expect("dir");
        for part in ["games", "keyring"] {
            copy_tree(&self.host.dir.path().join(part), &dir.path().join(part));
        }
        let delivered = self
            .delivered_files()
            .into_iter()
            .map(|file| {
                let bytes = std::fs::read(&file).expect("read");
                let time = std::fs::metadata(&file)
                    .and_then(|m| m.modified())
                    .expect("mtime");
                (file, (bytes, time))
            })
            .collect();
        Snapshot { dir, delivered }
    }

    fn restore(&self, snapshot: &Snapshot) {
        for part in ["games", "keyring"] {
            let here = self.host.dir.path().join(part);
            std::fs::remove_dir_all(&here).expect("remove");
            copy_tree(&snapshot.dir.path().join(part), &here);
        }
        let now = self.delivered_files();
        for file in &now {
            if !snapshot.delivered.contains_key(file) {
                std::fs::remove_file(file).expect("remove a delivered mail");
            }
        }
        for (file, (bytes, time)) in &snapshot.delivered {
            if !now.contains(file) {
                std::fs::write(file, bytes).expect("put a delivered mail back");
                let back = std::fs::File::options()
                    .write(true)
                    .open(file)
                    .expect("open");
                back.set_modified(*time).expect("mtime");
            }
        }
    }

    fn delivered_files(&self) -> BTreeSet<PathBuf> {
        ["new", "cur"]
            .iter()
            .filter_map(|sub| std::fs::read_dir(self.host.smtp.maildir.join(sub)).ok())
            .flatten()
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.path())
            .collect()
    }

    /// Every mail that went out or is still to go: delivered, waiting in the outbox or
    /// set aside there.
    fn all_mail(&self) -> Vec<Mail> {
        let mut mails = self.host.mails();
        let outbox = self.host.games().join("game.json.outbox");
        if let Ok(listing) = std::fs::read_dir(&outbox) {
            for entry in listing.flatten() {
                let path = entry.path();
                let name = path.to_string_lossy();
                if name.ends_with(".mail") || name.ends_with(".refused") {
                    let json: Value =
                        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
                    let raw = json["message"].as_str().expect("message");
                    mails.push(read(raw.as_bytes()));
                }
            }
        }
        mails
    }

    /// The report of record `record` as `player` reads it, as mail runs it together.
    fn needle(&self, player: &str, record: u64) -> String {
        let key = (player.to_string(), record);
        if let Some(needle) = self.needles.borrow().get(&key) {
            return needle.clone();
        }
        let output = self
            .host
            .pbem()
            .arg("show")
            .arg(self.host.file())
            .args([
                "--as",
                player,
                "--turn",
                &record.to_string(),
                "--format",
                "json",
            ])
            .output()
            .expect("runs");
        let view: Value = serde_json::from_slice(&output.stdout).expect("json");
        let lines: Vec<String> = view["report"]
            .as_array()
            .expect("a report")
            .iter()
            .map(|line| format!("- {}", line.as_str().expect("a line")))
            .collect();
        let needle = squeezed(&lines.join(" "));
        self.needles.borrow_mut().insert(key, needle.clone());
        needle
    }

    /// For each player and each standing move, how many mails tell them of it.
    fn told(&self) -> BTreeMap<(String, u64), usize> {
        let records = self.records();
        let mails: Vec<(String, String)> = self
            .all_mail()
            .into_iter()
            .map(|m| (m.to, squeezed(&m.text)))
            .collect();
        let mut told = BTreeMap::new();
        for player in PLAYERS {
            let needles: Vec<String> = (1..=records).map(|r| self.needle(player, r)).collect();
            for (i, needle) in needles.iter().enumerate() {
                // A report that is part of another's would be counted in its mail too.
                assert!(
                    needles
                        .iter()
                        .enumerate()
                        .all(|(j, other)| i == j || !other.contains(needle.as_str())),
                    "record {} as {player} reads it is told in another's words: {needle}",
                    i + 1
                );
                let count = mails
                    .iter()
                    .filter(|(to, text)| *to == address(player) && text.contains(needle.as_str()))
                    .count();
                told.insert((player.to_string(), i as u64 + 1), count);
            }
        }
        told
    }

    /// Runs `pass` once whole, then again from the same start killed after each of its
    /// write points in turn and done again: each time the game file ends the same and
    /// every player is told of every move as often as in the whole run, never twice.
    /// Leaves the table as the whole run left it.
    fn run_killed_everywhere(&self, pass: &Pass) -> usize {
        let start = self.snapshot();
        let records_before = self.records();
        let output = self.run_pass(pass, None);
        assert_ne!(output.status.signal(), Some(6), "{pass:?}");
        let whole_file = self.host.file_bytes();
        let whole_told = self.told();
        for (key, count) in &whole_told {
            assert!(*count <= 1, "{key:?} told {count} times after {pass:?}");
        }
        let end = self.snapshot();
        let mut points = 0;
        for k in 1.. {
            self.restore(&start);
            let output = self.run_pass(pass, Some(k));
            if output.status.signal() != Some(6) {
                break;
            }
            points += 1;
            self.recover(pass, records_before);
            assert!(
                self.host.file_bytes() == whole_file,
                "{pass:?} killed after write {k}: the game file differs from the whole run's"
            );
            assert_eq!(
                self.told(),
                whole_told,
                "{pass:?} killed after write {k}, then done again"
            );
        }
        self.restore(&end);
        points
    }

    fn to_move(&self) -> Option<String> {
        self.host.view()["to_move"][0].as_str().map(str::to_string)
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let kind = entry.file_type().expect("type");
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn every_standing_move_reaches_every_player_once_through_faults_and_kills() {
    if !cfg!(debug_assertions) {
        eprintln!("skipped: crash points exist in debug builds only");
        return;
    }
    for case in 0..GAMES {
        let mut picker = pbem::engine::DrawStream::for_testing(0x5eed_0000 + case);
        let host = Host::new();
        let mut now = 1_800_000_000 + case * 1_000_000;
        host.set_clock(now);
        let mut new = host.pbem();
        new.args(["new", "desert-kingdom"]);
        for player in PLAYERS {
            new.args(["--player", &format!("{player} <{}>", address(player))]);
        }
        let (ok, out) = host.run(
            new.args(["--seed", SEED, "--mail", "--out"])
                .arg(host.file()),
        );
        assert!(ok, "{out}");
        let tokens = PLAYERS
            .iter()
            .map(|p| (p.to_string(), token_of(&host, &address(p))))
            .collect();
        let mut table = Watched {
            host,
            tokens,
            needles: Default::default(),
        };
        let tag = table.host.tag();
        let mut points = 0;
        let mut message = 0;
        let mut mail = |table: &Watched, player: &str, text: &str| {
            message += 1;
            let raw = token_message(
                &tag,
                &table.tokens[player],
                &address(player),
                text,
                &format!("case{case}-{message}"),
            );
            Pass::Mail { raw }
        };
        // Each player's choice of mail: the default, the day's digest, or every move.
        for player in PLAYERS {
            let word = ["", "digest daily", "digest off"][picker.index(3) as usize];
            if !word.is_empty() {
                points += table.run_killed_everywhere(&mail(&table, player, word));
            }
        }
        let mut down = false;
        let mut changes = 0;
        while changes < STEPS && !table.over() {
            now += u64::from(1 + picker.index(6)) * HOUR;
            let pass = match picker.index(20) {
                0..=7 => {
                    let player = table.to_move().expect("a player to move");
                    let text = table.host.legal(&player)[0].clone();
                    changes += 1;
                    mail(&table, &player, &text)
                }
                8..=11 => {
                    let player = table.to_move().expect("a player to move");
                    let text = table.host.legal(&player)[0].clone();
                    changes += 1;
                    Pass::Apply { player, text }
                }
                12..=14 => {
                    now += u64::from(12 + picker.index(36)) * HOUR;
                    changes += 1;
                    Pass::Remind {
                        forfeit: picker.index(3) == 0,
                    }
                }
                15..=16 => {
                    if down {
                        table.host.smtp.resume();
                    } else {
                        table.host.smtp.stop();
                    }
                    down = !down;
                    continue;
                }
                _ => Pass::Flush,
            };
            table.host.set_clock(now);
            points += table.run_killed_everywhere(&pass);
        }
        if !table.over() {
            points += table.run_killed_everywhere(&Pass::Close);
        }
        // The server back, the outbox sent and a day later the cron run: everything
        // held is out.
        if down {
            table.host.smtp.resume();
        }
        table.host.set_clock(now + 2 * 86_400);
        for pass in [Pass::Flush, Pass::Remind { forfeit: false }] {
            let output = table.run_pass(&pass, None);
            assert!(output.status.success(), "{pass:?}: {output:?}");
        }
        assert!(table.run_pass(&Pass::Flush, None).status.success());
        let told = table.told();
        let records = table.records();
        assert!(records >= 3, "case {case}: {records} records");
        assert!(points > 30, "case {case}: killed at {points} points only");
        for ((player, record), count) in &told {
            assert_eq!(
                *count, 1,
                "case {case}: {player} told of record {record} {count} times"
            );
        }
        let outbox = table.host.games().join("game.json.outbox");
        let left: Vec<_> = std::fs::read_dir(&outbox)
            .map(|l| l.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(
            left.iter()
                .all(|name| name.to_string_lossy().starts_with('.')
                    || name.to_string_lossy().ends_with(".lock")),
            "case {case}: left in the outbox: {left:?}"
        );
        eprintln!("case {case}: {records} records, killed at {points} write points");
        table.host.smtp.stop();
    }
}
