//! What tests of the command line share, for any registered game: a temporary folder
//! with a keyring and a game file, and the commands run on them.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

/// A temporary folder with a keyring and a game file path.
pub struct Table {
    pub dir: tempfile::TempDir,
}

impl Table {
    pub fn new() -> Table {
        Table {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("keyring")
    }

    pub fn file(&self) -> PathBuf {
        self.dir.path().join("game.json")
    }

    pub fn pbem(&self) -> Command {
        let mut command = Command::cargo_bin("pbem").expect("the pbem binary");
        command
            .env("PBEM_HOME", self.home())
            .current_dir(self.dir.path());
        command
    }

    /// A finished demo game of `game` between `players` built-in players, in this
    /// folder with its keyring (as `pbem demo --dir` leaves it); its file.
    pub fn demo(&self, game: &str, players: &str) -> PathBuf {
        self.demo_in(game, players, self.dir.path())
    }

    /// [`Table::demo`] in the folder `dir` (made if missing), with its own keyring.
    pub fn demo_in(&self, game: &str, players: &str, dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir).expect("a folder");
        let output = self
            .pbem()
            .args([
                "demo",
                "--game",
                game,
                "--players",
                players,
                "--every",
                "0",
                "--dir",
            ])
            .arg(dir)
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{game}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        dir.join(format!("{game}.json"))
    }

    /// A two-player right-of-way game (Ann, with an address, and Bob) with a fixed
    /// seed and a fixed referee key, so boards repeat.
    pub fn new_game(&self, seed: &str) -> &Table {
        self.start("right-of-way", &["Ann <ann@example.org>", "Bob"], seed)
    }

    /// A game of `game` for `players` (as `--player` takes them, in seat order), with a
    /// fixed seed and a fixed referee key (the setup's draws depend on genesis, which
    /// names the key), so a test of any registered game repeats.
    pub fn start(&self, game: &str, players: &[&str], seed: &str) -> &Table {
        self.test_key();
        let mut command = self.pbem();
        command.args(["new", game]);
        for player in players {
            command.args(["--player", player]);
        }
        command
            .args(["--seed", seed, "--out"])
            .arg(self.file())
            .assert()
            .success();
        self
    }

    /// The tests' fixed referee key in the keyring, unless one is there.
    pub fn test_key(&self) {
        test_key(&self.home());
    }

    /// A Right of Way game twelve turns in, in the first file format (`pbem.game/1`, as
    /// the pbem before sealed moves wrote it), with the tests' key and its seed (`1f…`)
    /// in the keyring.
    pub fn format_1_game(&self) {
        self.fixture_game(
            "format1/right-of-way-12-turns.json",
            "row-541c88cb",
            &"1f".repeat(32),
        );
    }

    /// A game file written earlier (`fixture`, under tests/fixtures/) as this table's
    /// file, with the tests' key and the game's seed in the keyring.
    pub fn fixture_game(&self, fixture: &str, game_id: &str, seed_hex: &str) {
        self.test_key();
        let path = format!("{}/tests/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
        std::fs::copy(path, self.file()).expect("copy the fixture");
        let seeds = self.home().join("seeds");
        std::fs::create_dir_all(&seeds).expect("seeds folder");
        std::fs::write(
            seeds.join(format!("{game_id}.seed")),
            format!("{seed_hex}\n"),
        )
        .expect("seed");
    }

    /// Who is to move, and the first move `pbem legal` lists for them.
    pub fn first_move(&self) -> (String, String) {
        let mover = to_move(&self.view());
        let text = self.legal(&mover)[0]["move"]
            .as_str()
            .expect("a move text")
            .to_string();
        (mover, text)
    }

    pub fn view(&self) -> Value {
        let output = self
            .pbem()
            .arg("show")
            .arg(self.file())
            .args(["--format", "json"])
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("the view is JSON")
    }

    pub fn legal(&self, player: &str) -> Vec<Value> {
        let output = self
            .pbem()
            .arg("legal")
            .arg(self.file())
            .args(["--player", player, "--format", "json"])
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let list: Value = serde_json::from_slice(&output.stdout).expect("legal is JSON");
        list.as_array().expect("a list").clone()
    }

    /// Applies a move; returns (success, stderr).
    pub fn apply(&self, player: &str, text: &str) -> (bool, String) {
        let output = self
            .pbem()
            .arg("apply")
            .arg(self.file())
            .args(["--player", player, "--move", text])
            .output()
            .expect("runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// The file's last record, as written.
    pub fn last_record(&self) -> Value {
        let file: Value =
            serde_json::from_slice(&std::fs::read(self.file()).expect("read")).expect("json");
        file["records"]
            .as_array()
            .and_then(|records| records.last())
            .expect("a record")
            .clone()
    }

    pub fn audit(&self, public: bool) -> (bool, String) {
        let mut command = self.pbem();
        command.arg("audit").arg(self.file());
        if public {
            command.arg("--public");
        }
        let output = command.output().expect("runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    }
}

/// The tests' fixed referee key in the keyring at `home`, unless one is there: with a
/// fixed seed, a game's setup (keyed on genesis, which names the key), its mail and
/// reply codes then repeat from run to run.
pub fn test_key(home: &Path) {
    let key = home.join("referee.key");
    if !key.exists() {
        std::fs::create_dir_all(home).expect("keyring folder");
        std::fs::write(&key, format!("{}\n", "42".repeat(32))).expect("a test key");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        }
    }
}

/// Hashes and signs every record of `file` again with `key` (each `prev` the hash of
/// the record before), as a referee who rewrites history would: whatever the file
/// then holds, only the rules of the game can refuse it.
pub fn resign(file: &mut Value, key: &ed25519_dalek::SigningKey) {
    use base64::Engine as _;
    use ed25519_dalek::Signer;
    use pbem::basics::digest::{hash_from_hex, to_hex};
    use pbem::engine::file::{hashes, Record, Version};
    let id = file["genesis"]["id"].as_str().expect("id").to_string();
    let version = Version::of(file["format"].as_str().expect("format")).expect("a format");
    let mut prev = hash_from_hex(file["genesis"]["hash"].as_str().expect("hex")).expect("hash");
    for record in file["records"].as_array_mut().expect("records") {
        record["prev"] = to_hex(&prev).into();
        record["hash"] = "".into();
        record["signature"] = "".into();
        let parsed: Record = serde_json::from_value(record.clone()).expect("a record");
        let after = hash_from_hex(&parsed.state_hash).expect("hash");
        let hash = hashes::record(version, &id, &parsed, &prev, &after).expect("hashes");
        record["hash"] = to_hex(&hash).into();
        record["signature"] = base64::engine::general_purpose::STANDARD
            .encode(key.sign(&hash).to_bytes())
            .into();
        prev = hash;
    }
}

/// The genesis body hash of a game file of format 3 or 4: the scope of its salts.
pub fn genesis_body(file: &Value) -> [u8; 32] {
    use base64::Engine as _;
    use pbem::basics::digest::hash_from_hex;
    use pbem::engine::file::{hashes, Genesis, Version};
    let genesis: Genesis = serde_json::from_value(file["genesis"].clone()).expect("genesis");
    let version = Version::of(file["format"].as_str().expect("format")).expect("a format");
    let key: [u8; 32] = base64::engine::general_purpose::STANDARD
        .decode(&genesis.referee_key)
        .expect("base64")
        .try_into()
        .expect("32 bytes");
    let commitment = hash_from_hex(&genesis.seed_commitment).expect("hex");
    let rules_hash = hash_from_hex(&genesis.rules_hash).expect("hex");
    hashes::genesis_body(version, &genesis, &key, &commitment, &rules_hash)
}

/// The first Right of Way move in `legal` (`pbem legal --format json`) that neither
/// draws nor discards: a placement whose profit pays exactly its cost, which can be
/// taken back.
pub fn quiet_move(legal: &[Value]) -> String {
    legal
        .iter()
        .find(|e| e["kind"] == "place" && e["profit"] == e["cost"])
        .and_then(|e| e["move"].as_str())
        .expect("a placement that draws nothing")
        .to_string()
}

/// The first player the view names as to move.
pub fn to_move(view: &Value) -> String {
    view["to_move"][0]
        .as_str()
        .expect("someone is to move")
        .to_string()
}

/// Everyone a game view says is to move (several in a round of sealed choices).
pub fn all_to_move(view: &Value) -> Vec<String> {
    view["to_move"]
        .as_array()
        .expect("list")
        .iter()
        .map(|p| p.as_str().expect("name").to_string())
        .collect()
}

/// aiosmtpd on a free loopback port, delivering into a Maildir (as tests/it/mail.rs).
pub struct Smtp {
    pub port: u16,
    maildir: PathBuf,
    child: Child,
}

impl Smtp {
    pub fn start(maildir: &Path) -> Smtp {
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("a free port")
            .local_addr()
            .expect("addr")
            .port();
        let child = Process::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "aiosmtpd did not start; `python3 -m pip install aiosmtpd` (.ci/run does)"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Smtp {
            port,
            maildir: maildir.to_path_buf(),
            child,
        }
    }

    /// Every message delivered so far, by file name (unique per message).
    pub fn delivered(&self) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = ["new", "cur"]
            .iter()
            .filter_map(|sub| std::fs::read_dir(self.maildir.join(sub)).ok())
            .flatten()
            .filter_map(Result::ok)
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).expect("read"),
                )
            })
            .collect();
        files.sort();
        files
    }
}

impl Drop for Smtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// (recipient, subject, plain text) of a delivered message.
pub fn read_mail(raw: &[u8]) -> (String, String, String) {
    let message = mail_parser::MessageParser::default()
        .parse(raw)
        .expect("a message");
    let to = message
        .to()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .unwrap_or_default()
        .to_string();
    let subject = message.subject().unwrap_or_default().to_string();
    let text = message
        .body_text(0)
        .map(|t| t.into_owned())
        .unwrap_or_default();
    (to, subject, text)
}

/// The turn a notice is about, from its Message-ID (`pbem.GAME.TURN.SEAT.KIND.CODE@...`,
/// TURN the one awaited): one less. None for a message without such an id.
pub fn notice_turn(raw: &[u8]) -> Option<u64> {
    let message = mail_parser::MessageParser::default().parse(raw)?;
    let id = message.message_id()?;
    let awaited: u64 = id.split('.').nth(2)?.parse().ok()?;
    awaited.checked_sub(1)
}

/// Runs `command` (a pbem with its environment set) as `pbem inbox --games GAMES` with
/// one raw message on standard input, as a mail server's pipe does; returns the output.
pub fn inbox(mut command: Process, games: &Path, raw: &str) -> std::process::Output {
    use std::io::Write as _;
    let mut child = command
        .args(["inbox", "--games"])
        .arg(games)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(raw.as_bytes())
        .expect("write");
    child.wait_with_output().expect("waits")
}

/// A message a game sent during a game by mail, with the move that caused it.
pub struct Sent<'a> {
    /// The game's public view after the move (and any move the referee made at once
    /// after it: a forced move).
    pub after: &'a Value,
    /// The turn the mail is about: the move's, or that of a move the referee made at
    /// once after it (read from the mail's Message-ID, which names the turn awaited).
    pub turn: u64,
    /// The turn of the player's move: `turn` is later in the mail of a move the
    /// referee made at once after it.
    pub move_turn: u64,
    /// Who moved, and the move as they sent it.
    pub mover: &'a str,
    pub text: &'a str,
    /// The recipient's address, the subject and the plain text.
    pub to: &'a str,
    pub subject: &'a str,
    pub body: &'a str,
    /// The message as delivered.
    pub raw: &'a [u8],
    /// The game file and the referee's keyring, to ask pbem about the game.
    pub file: &'a Path,
    pub home: &'a Path,
}

impl Sent<'_> {
    /// The report of turn `turn` as `viewer` may read it (with the referee's keyring).
    pub fn report_as(&self, viewer: &str, turn: u64) -> Vec<String> {
        let mut pbem = Process::new(assert_cmd::cargo::cargo_bin("pbem"));
        pbem.env("PBEM_HOME", self.home);
        report_shown(&mut pbem, self.file, Some(viewer), turn as usize)
    }
}

/// `pbem show --format json --as VIEWER --turn N`'s report lines (VIEWER `None`: the
/// public's).
pub fn report_shown(
    pbem: &mut Process,
    file: &Path,
    viewer: Option<&str>,
    turn: usize,
) -> Vec<String> {
    pbem.arg("show")
        .arg(file)
        .args(["--format", "json", "--turn", &turn.to_string()]);
    if let Some(viewer) = viewer {
        pbem.args(["--as", viewer]);
    }
    let output = pbem.output().expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let view: Value = serde_json::from_slice(&output.stdout).expect("json");
    view["report"]
        .as_array()
        .expect("a report")
        .iter()
        .map(|line| line.as_str().expect("a line").to_string())
        .collect()
}

/// Plays a whole game of `game` by mail: a real SMTP server on loopback, `pbem new
/// --mail`, then every move a player's message (their token) fed to `pbem inbox`,
/// chosen at random from what `pbem legal` offers the player (the referee's command).
/// `each` sees every message sent after each move; returns the number of moves. The
/// board's picture is left out of every mail (`pictures = false` in the referee's
/// config.toml): these games are for tests that read the mail's words, and drawing
/// a picture for every notice is most of a game's time. The words are the same but
/// for the paragraph that names the picture; [`play_by_mail_measured`] keeps it.
pub fn play_by_mail_text_only(
    game: &str,
    names: &[&str],
    seed: &str,
    picks: u64,
    each: impl FnMut(&Sent<'_>),
) -> usize {
    play_by_mail_as(game, names, seed, picks, Pictures::Off, None, each).0
}

/// Whether a game by mail draws the board's picture in its mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pictures {
    On,
    Off,
}

/// The mail one player got in a game: every message, and the ones that ask them to
/// move ("your move"), with their sizes as sent (bytes of the whole message).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MailFigures {
    pub count: usize,
    pub bytes: usize,
    pub turn_notices: usize,
    /// Messages with the board's picture.
    pub pictures: usize,
}

/// A whole game by mail as [`play_by_mail_text_only`] plays it, but with the board's
/// picture in every mail, returning besides the number of moves the mail each address
/// got over the whole game (the welcome included), by address. A name written `Name
/// <bot:BOT>` is a seat a built-in player takes. With `digest`, every player first
/// asks for it by reply (`digest daily`, `digest off`); without, they get the
/// default, one mail per turn of their own.
pub fn play_by_mail_measured(
    game: &str,
    names: &[&str],
    seed: &str,
    picks: u64,
    digest: Option<&str>,
    each: impl FnMut(&Sent<'_>),
) -> (usize, std::collections::BTreeMap<String, MailFigures>) {
    play_by_mail_as(game, names, seed, picks, Pictures::On, digest, each)
}

/// [`play_by_mail_measured`], with or without the board's picture in the mail.
pub fn play_by_mail_as(
    game: &str,
    names: &[&str],
    seed: &str,
    picks: u64,
    pictures: Pictures,
    digest: Option<&str>,
    mut each: impl FnMut(&Sent<'_>),
) -> (usize, std::collections::BTreeMap<String, MailFigures>) {
    let dir = tempfile::tempdir().expect("dir");
    let games = dir.path().join("games");
    std::fs::create_dir_all(&games).expect("games");
    let file = games.join("game.json");
    let smtp = Smtp::start(&dir.path().join("delivered"));
    // With the fixed key and seed, the game and its mail repeat (for snapshots).
    test_key(&dir.path().join("keyring"));
    if pictures == Pictures::Off {
        std::fs::write(
            dir.path().join("keyring").join("config.toml"),
            "[mail]\npictures = false\n",
        )
        .expect("config");
    }
    let pbem = || {
        let mut command = Process::new(assert_cmd::cargo::cargo_bin("pbem"));
        command
            .env("PBEM_HOME", dir.path().join("keyring"))
            .env("PBEM_SMTP", format!("smtp://127.0.0.1:{}", smtp.port))
            .env("PBEM_FROM", "Referee <referee@pbem.example>")
            .env_remove("PBEM_NOW");
        command
    };
    let address = |name: &str| format!("{}@example.org", name.to_ascii_lowercase());
    let json = |command: &mut Process| -> Value {
        let output = command.output().expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    // "Name <bot:BOT>" is a seat a built-in player takes: no mail, no replies.
    let humans: Vec<&str> = names.iter().copied().filter(|n| !n.contains('<')).collect();
    let mut new = pbem();
    new.args(["new", game]);
    for name in names {
        if name.contains('<') {
            new.args(["--player", name]);
        } else {
            new.args(["--player", &format!("{name} <{}>", address(name))]);
        }
    }
    let output = new
        .args(["--seed", seed, "--mail", "--out"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let view = || json(pbem().arg("show").arg(&file).args(["--format", "json"]));
    let tag = format!("[pbem {}]", view()["id"].as_str().expect("id"));
    let mut seen = std::collections::BTreeSet::new();
    let mut tokens = std::collections::BTreeMap::new();
    for (name, raw) in smtp.delivered() {
        seen.insert(name);
        let (to, _, text) = read_mail(&raw);
        if let Some(token) = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("pbem-token: "))
        {
            tokens.insert(to, token.to_string());
        }
    }
    let referee = super::replies::Referee {
        name: "Referee",
        address: "referee@pbem.example",
    };
    if let Some(digest) = digest {
        for name in &humans {
            let from = address(name);
            let raw = super::replies::token_message(
                &referee,
                &tag,
                &tokens[&from],
                &from,
                &format!("digest {digest}"),
                &format!("{game}-digest-{name}"),
            );
            let output = inbox(pbem(), &games, &raw);
            assert!(output.status.success(), "{name}: digest {digest}");
        }
    }
    let mut picker = pbem::engine::DrawStream::for_testing(picks);
    let mut moves = 0;
    loop {
        let shown = view();
        if shown["over"] == true {
            break;
        }
        let waiting = all_to_move(&shown);
        let player = waiting[picker.index(waiting.len() as u32) as usize].clone();
        assert!(
            humans.contains(&player.as_str()),
            "{player} is a bot's seat and should have moved: {shown}"
        );
        let legal = json(
            pbem()
                .arg("legal")
                .arg(&file)
                .args(["--player", &player, "--format", "json"]),
        );
        let legal = legal.as_array().expect("a list");
        let text = legal[picker.index(legal.len() as u32) as usize]["move"]
            .as_str()
            .expect("a move")
            .to_string();
        let from = address(&player);
        let raw = super::replies::token_message(
            &referee,
            &tag,
            &tokens[&from],
            &from,
            &text,
            &format!("{game}-{moves}"),
        );
        let output = inbox(pbem(), &games, &raw);
        let report = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success() && report.starts_with("applied"),
            "{player} `{text}`: {report}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let after = view();
        for (name, raw) in smtp.delivered() {
            if !seen.insert(name) {
                continue;
            }
            let (to, subject, body) = read_mail(&raw);
            let turn = notice_turn(&raw).unwrap_or_else(|| after["turn"].as_u64().expect("turn"));
            each(&Sent {
                after: &after,
                turn,
                move_turn: shown["turn"].as_u64().expect("turn") + 1,
                mover: &player,
                text: &text,
                to: &to,
                subject: &subject,
                body: &body,
                raw: &raw,
                file: &file,
                home: &dir.path().join("keyring"),
            });
        }
        moves += 1;
        assert!(moves < 3000, "the game ends");
    }
    let mut figures = std::collections::BTreeMap::<String, MailFigures>::new();
    for (_, raw) in smtp.delivered() {
        let (to, subject, _) = read_mail(&raw);
        let entry = figures.entry(to).or_default();
        entry.count += 1;
        entry.bytes += raw.len();
        if subject.contains("your move") {
            entry.turn_notices += 1;
        }
        if raw
            .windows(b"image/png".len())
            .any(|window| window == b"image/png")
        {
            entry.pictures += 1;
        }
    }
    let output = pbem()
        .args(["audit", "--public"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    (moves, figures)
}

/// Plays a random complete game of `R` through the engine, as the referee would (the
/// tests' key, the seed `seed_hex`), each move the rules' own random move or, one time
/// in `skip_one_in`, the move the referee plays past a deadline: the move list (player,
/// canonical text) and the full state at the end. For recording games as fixtures.
pub fn random_recorded_game<R: pbem::engine::Rules>(
    format: Option<pbem::engine::file::Version>,
    names: &[String],
    seed_hex: &str,
    picks: u64,
    skip_one_in: u32,
) -> (Vec<(String, String)>, R::State) {
    use pbem::engine::fairness::Seed;
    use pbem::engine::keyring::Keyring;
    use pbem::engine::roster::parse_player;
    use pbem::engine::session::{Game, NewGame};
    use pbem::engine::{Deadline, DrawStream};

    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    std::fs::write(
        dir.path().join("referee.key"),
        format!("{}\n", "42".repeat(32)),
    )
    .expect("key");
    let seed = Seed::from_hex(seed_hex).expect("seed");
    let request = NewGame {
        players: names.iter().map(|n| parse_player(n)).collect(),
        seed: Some(seed.clone()),
        format,
        ..NewGame::default()
    };
    let mut game = Game::<R>::create(request, &keyring).expect("create");
    let mut picker = DrawStream::for_testing(picks);
    let mut moves = Vec::new();
    loop {
        let state = game.replay(Some(&seed), None).expect("replay").state;
        if game.rules.is_over(&state) {
            return (moves, state);
        }
        let waiting = game.rules.to_move(&state);
        let seat = waiting[picker.index(waiting.len() as u32) as usize];
        let mv = if picker.index(skip_one_in) == 0 {
            game.rules.deadline_move(&state, seat, Deadline::Skip)
        } else {
            game.rules.sample_move(&state, seat, &mut picker)
        }
        .expect("a move");
        let text = game.rules.canonical_text(&mv);
        game.apply(&keyring, &names[seat], &text).expect("applies");
        moves.push((names[seat].clone(), text));
    }
}

/// A recorded game replayed move by move through the command line, in the format it
/// was recorded in (its draws are that format's) and under the rules data
/// `rules_data` it was recorded with (an earlier revision of the game's rules; `None`:
/// this pbem's own): the game made as `pbem new` made it then (the tests' key, the
/// seed), then every move by `pbem apply`. The table it leaves, at the end.
pub fn replay_recorded_under(
    game: &str,
    players: &[String],
    seed: &str,
    moves: &[(String, String)],
    (format, rules_data): (pbem::engine::file::Version, Option<&str>),
) -> Table {
    use pbem::engine::fairness::Seed;
    use pbem::engine::keyring::Keyring;
    use pbem::engine::roster::parse_player;
    use pbem::engine::session::NewGame;
    let table = Table::new();
    table.test_key();
    let keyring = Keyring::at(table.home());
    let request = NewGame {
        players: players.iter().map(|p| parse_player(p)).collect(),
        seed: Some(Seed::from_hex(seed).expect("a seed")),
        format: Some(format),
        rules_data: rules_data.map(str::to_string),
        ..NewGame::default()
    };
    let bytes = pbem::ops::driver(game)
        .expect("a game")
        .create(request, &keyring)
        .expect("created");
    std::fs::write(table.file(), &bytes).expect("write");
    table.apply_all(moves);
    table
}

/// A game recorded under format 3's draws (the desert kingdom's recorded games)
/// replayed move by move through the command line, in format 3: the table it leaves,
/// at the end.
pub fn replay_recorded(
    game: &str,
    players: &[String],
    seed: &str,
    moves: &[(String, String)],
) -> Table {
    use pbem::engine::file::Version;
    replay_recorded_under(game, players, seed, moves, (Version::V3, None))
}

/// Runs docs/reference/pbem_draw.py, the independent implementation of
/// docs/FAIRNESS.md, with `args`.
pub fn reference(args: &[&str]) -> std::process::Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference/pbem_draw.py");
    Process::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs (CI installs it)")
}

impl Table {
    /// Runs `pbem COMMAND FILE ARGS...` (`args[0]` the command): whether it succeeded,
    /// and what it printed, standard output then standard error.
    pub fn run(&self, args: &[&str]) -> (bool, String) {
        let output = self
            .pbem()
            .arg(args[0])
            .arg(self.file())
            .args(&args[1..])
            .output()
            .expect("runs");
        (
            output.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        )
    }

    /// Applies a move that must be taken, checks that the file then audits, and gives
    /// the record it wrote.
    pub fn apply_audited(&self, player: &str, text: &str) -> Value {
        let (ok, error) = self.apply(player, text);
        assert!(ok, "{text}: {error}");
        let (passed, report) = self.audit(false);
        assert!(passed, "{report}");
        self.last_record()
    }

    /// Applies each (player, move) in order, each of which must be taken.
    pub fn apply_all(&self, moves: &[(String, String)]) {
        for (player, text) in moves {
            let (ok, error) = self.apply(player, text);
            assert!(ok, "{player} `{text}`: {error}");
        }
    }

    /// The first Right of Way placement `player` may make that draws (a gain).
    pub fn drawing_move(&self, player: &str) -> String {
        self.legal(player)
            .iter()
            .find(|e| {
                e["kind"] == "place"
                    && e["profit"].as_i64().unwrap_or(0) > e["cost"].as_i64().unwrap_or(0)
            })
            .and_then(|e| e["move"].as_str())
            .expect("a placement that draws")
            .to_string()
    }

    /// `pbem show --as NAME`: the board a player is mailed, checked to keep within 78
    /// columns without trailing spaces.
    pub fn board_as(&self, name: &str) -> String {
        let output = self
            .pbem()
            .arg("show")
            .arg(self.file())
            .args(["--as", name])
            .output()
            .expect("runs");
        let board = String::from_utf8(output.stdout).expect("utf-8");
        for line in board.lines() {
            assert!(line.chars().count() <= 78, "too wide: {line:?}");
            assert_eq!(line, line.trim_end());
        }
        board
    }
}

/// A child process (a long-running `pbem watch`, say) killed and reaped when dropped,
/// so that a test that fails midway leaves no process behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl std::ops::Deref for KillOnDrop {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

/// The texts of a board picture's `<text>` elements, unescaped, in document order.
pub fn picture_texts(svg: &str) -> Vec<String> {
    picture_texts_sized(svg)
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}

/// [`picture_texts`] with each one's `font-size` as written.
pub fn picture_texts_sized(svg: &str) -> Vec<(String, String)> {
    svg.split("<text ")
        .skip(1)
        .filter_map(|element| {
            let size = element.find("font-size=\"")? + 11;
            let size = element[size..size + element[size..].find('"')?].to_string();
            let start = element.find('>')? + 1;
            let end = element.find("</text>")?;
            let text = element[start..end]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&");
            Some((size, text))
        })
        .collect()
}

/// A picture's size in its own units (the root element's width and height).
pub fn picture_size(svg: &str) -> (f64, f64) {
    let root = &svg[..svg.find('>').expect("a root element")];
    let attribute = |name: &str| -> f64 {
        let from = root.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
        let to = from + root[from..].find('"').expect("a closing quote");
        root[from..to].parse().expect("a number")
    };
    (attribute("width"), attribute("height"))
}

/// Pixels per unit of a board picture's SVG in its PNG.
pub const PNG_SCALE: f64 = pbem::grid::raster::PNG_SCALE as f64;

/// A PNG's width and height in pixels, from its IHDR chunk.
pub fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG signature");
    assert_eq!(&png[12..16], b"IHDR");
    let number = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    (number(16), number(20))
}

/// Debian's Chromium, for the tests of pages in a browser.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Chromium's longest run for one page.
const BROWSER_WAIT: Duration = Duration::from_secs(90);

/// Runs headless Chromium on `page` with a fresh profile in `dir` and `extra`
/// arguments, and waits for it (at most [`BROWSER_WAIT`]); what it printed.
pub fn chromium(page: &Path, dir: &Path, extra: &[String]) -> std::process::Output {
    let profile = tempfile::tempdir_in(dir).expect("a profile folder");
    let child = Process::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=800,600",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    // Its output is read while it runs: a page's whole DOM fills a pipe, and Chromium
    // would wait for a reader that waits for it to end.
    let pid = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    let output = match finished.recv_timeout(BROWSER_WAIT) {
        Ok(output) => output.expect("chromium's output"),
        Err(_) => {
            // SAFETY: kill has no preconditions; the process is ours.
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
            panic!(
                "chromium did not finish {} within {BROWSER_WAIT:?}",
                page.display()
            );
        }
    };
    assert!(
        output.status.success(),
        "chromium failed on {}: {}",
        page.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `command` on the machine's own clock: a mail server a test runs keeps one clock in
/// all its processes, whatever clock the test's own environment preloads (faketime,
/// which runs the suite on another date, would reach the server's master but not
/// the children it starts with a clean environment, and the server would see its
/// time jump). pbem, which the tests run on either, must work with a server on any.
pub fn on_machine_clock(command: &mut Process) -> &mut Process {
    for variable in [
        "LD_PRELOAD",
        "FAKETIME",
        "FAKETIME_NO_CACHE",
        "FAKETIME_DONT_FAKE_MONOTONIC",
        "DONT_FAKE_MONOTONIC",
    ] {
        command.env_remove(variable);
    }
    command
}
