//! The replay page (`pbem export FILE --html OUT`): one HTML file that needs nothing
//! outside itself, for the public, a player or (after the end) the referee, each
//! seeing no more than `pbem show` shows them; and in headless Chromium, every turn
//! reachable by keyboard, slider and buttons, each showing the board `pbem show
//! --format svg --turn N` draws, with no error on the console. Screenshots (desktop and
//! phone) are kept under the target folder's test artifacts.
//!
//! The browser test needs Debian's `chromium` (.ci/run installs it as root); without
//! it the test says "skipped" on standard error, with PBEM_REQUIRE_BROWSER=1 it fails.

use std::io::Write as _;
use std::path::Path;

use base64::Engine as _;
use serde_json::Value;

use super::support::{self, picture_texts, png_size, to_move, Table, CHROMIUM};

const SEED: &str = "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0";

pub(crate) fn export(
    table: &Table,
    file: &Path,
    out: &Path,
    viewer: Option<&str>,
) -> std::process::Output {
    let mut command = table.pbem();
    command.arg("export").arg(file).arg("--html").arg(out);
    if let Some(viewer) = viewer {
        command.args(["--as", viewer]);
    }
    command.output().expect("runs")
}

fn svg_texts_of(table: &Table, file: &Path, turn: u64, viewer: Option<&str>) -> Vec<String> {
    let mut command = table.pbem();
    command
        .arg("show")
        .arg(file)
        .args(["--format", "svg", "--turn", &turn.to_string()]);
    if let Some(viewer) = viewer {
        command.args(["--as", viewer]);
    }
    let output = command.output().expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    picture_texts(&String::from_utf8(output.stdout).expect("text"))
}

/// The page reaches for nothing outside itself: no address but the SVG namespace, no
/// script, style or font from elsewhere, and a policy that forbids them.
fn assert_self_contained(page: &str, what: &str) {
    let without_namespace = page.replace("http://www.w3.org/2000/svg", "");
    for outside in [
        "http://",
        "https://",
        "<script src",
        "<link",
        "@import",
        "url(",
    ] {
        assert!(
            !without_namespace.contains(outside),
            "{what}: the page reaches outside ({outside})"
        );
    }
    assert!(page.contains("default-src 'none'"), "{what}: no policy");
}

#[test]
fn every_game_exports_a_page_for_each_viewer_and_the_referees_only_after_the_end() {
    for (game, players) in [
        ("right-of-way", "2"),
        ("triangle-auction", "3"),
        ("desert-kingdom", "3"),
    ] {
        let table = Table::new();
        let file = table.demo(game, players);
        let view: Value = serde_json::from_slice(
            &table
                .pbem()
                .arg("show")
                .arg(&file)
                .args(["--format", "json"])
                .output()
                .expect("runs")
                .stdout,
        )
        .expect("json");
        let first = view["players"][0]["name"]
            .as_str()
            .expect("a name")
            .to_string();
        for viewer in [None, Some(first.as_str()), Some("referee")] {
            let out = table.dir.path().join("page.html");
            let output = export(&table, &file, &out, viewer);
            assert!(
                output.status.success(),
                "{game} {viewer:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            let page = std::fs::read_to_string(&out).expect("the page");
            assert_self_contained(&page, game);
            let data = unpacked(&page, "game");
            assert!(data.contains(&first), "{game}");
            assert!(data.contains("\"turns\""), "{game}: the replay's data");
            eprintln!(
                "{game} ({players} players), {viewer:?}: {} bytes",
                page.len()
            );
        }
    }

    // A game still being played: the referee's page would show what players may not
    // see yet, so it is refused and nothing is written; a player's page is theirs alone.
    let table = Table::new();
    table.start("desert-kingdom", &["Ann", "Bob", "Cat"], SEED);
    for _ in 0..6 {
        let view = table.view();
        let player = to_move(&view);
        let legal = table.legal(&player);
        let text = legal[0]["move"].as_str().expect("a move").to_string();
        let (applied, said) = table.apply(&player, &text);
        assert!(applied, "{said}");
    }
    let out = table.dir.path().join("referee.html");
    let output = export(&table, &table.file(), &out, Some("referee"));
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("once the game is over"));
    assert!(!out.exists());
    let out = table.dir.path().join("ann.html");
    let output = export(&table, &table.file(), &out, Some("Ann"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&out)
        .expect("the page")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600, "a player's page is private");
    // Ann's page tells what Ann's board tells at every turn, and Bob's what his does:
    // each player's own drawn tiles, if any, differ between the two.
    let ann = unpacked(&std::fs::read_to_string(&out).expect("the page"), "game");
    let bob_out = table.dir.path().join("bob.html");
    assert!(export(&table, &table.file(), &bob_out, Some("Bob"))
        .status
        .success());
    let bob = unpacked(
        &std::fs::read_to_string(&bob_out).expect("the page"),
        "game",
    );
    for turn in 0..=6 {
        for text in svg_texts_of(&table, &table.file(), turn, Some("Ann")) {
            let escaped = serde_json::to_string(&pbem::grid::svg::escape(&text)).expect("json");
            let escaped = escaped.trim_matches('"');
            assert!(
                ann.contains(escaped),
                "turn {turn}: {text:?} not in Ann's page"
            );
        }
    }
    let only_ann: Vec<String> = (0..=6)
        .flat_map(|turn| svg_texts_of(&table, &table.file(), turn, Some("Ann")))
        .filter(|text| {
            !(0..=6)
                .any(|turn| svg_texts_of(&table, &table.file(), turn, Some("Bob")).contains(text))
        })
        .collect();
    for text in &only_ann {
        let escaped = pbem::grid::svg::escape(text);
        assert!(
            !bob.contains(&format!(">{escaped}<")),
            "Bob's page shows Ann's {text:?}"
        );
    }
}

/// What the injected script does: goes to the first turn with Home, then through every
/// turn with the right arrow, noting what each shows, then tries Page Up, the slider,
/// the buttons and End; errors on the page are collected.
const DRIVER: &str = r##"<script>
// The replay starts once the page has unpacked its data.
document.addEventListener("pbem-replay-ready", function () {
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  var logError = console.error;
  console.error = function () { errors.push(Array.prototype.join.call(arguments, " ")); logError.apply(console, arguments); };
  function key(k) { document.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true })); }
  function turn() { return parseInt(document.body.getAttribute("data-turn"), 10); }
  function texts() {
    return Array.prototype.map.call(document.querySelectorAll("#board svg text"), function (t) { return t.textContent; });
  }
  var verdict = { start: turn(), turns: [], errors: errors };
  var last = parseInt(document.getElementById("slider").max, 10);
  key("Home");
  for (var t = 0; t <= last; t++) {
    verdict.turns.push({
      turn: turn(),
      label: document.getElementById("turn-label").textContent,
      texts: texts(),
      move: document.getElementById("move").textContent
    });
    key("ArrowRight");
  }
  verdict.after_end = turn();
  key("PageUp"); verdict.page_up = turn();
  var slider = document.getElementById("slider");
  slider.value = "7"; slider.dispatchEvent(new Event("input")); verdict.slider = turn();
  document.getElementById("prev").click(); verdict.prev = turn();
  document.getElementById("last").click(); verdict.last = turn();
  document.getElementById("first").click(); verdict.first = turn();
  document.getElementById("next").click(); verdict.next = turn();
  key("End"); verdict.end = turn();
  var pre = document.createElement("pre");
  pre.id = "verdict";
  pre.textContent = JSON.stringify(verdict);
  document.body.appendChild(pre);
});
</script>"##;

/// The text of the `<script id=ID>` payload of a replay page, unpacked (raw DEFLATE in
/// base64, as src/replay.rs packs it).
pub(crate) fn unpacked(page: &str, id: &str) -> String {
    let at = page
        .find(&format!("<script id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let start = at + page[at..].find('>').expect("its tag closes") + 1;
    let end = start + page[start..].find("</script>").expect("it ends");
    let packed = base64::engine::general_purpose::STANDARD
        .decode(page[start..end].trim())
        .expect("base64");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::DeflateDecoder::new(packed.as_slice()),
        &mut text,
    )
    .expect("raw DEFLATE of UTF-8");
    text
}

/// `page` with `script` run after the page's own.
fn with_script(page: &str, script: &str) -> String {
    let at = page.rfind("</body>").expect("the page's body ends");
    format!("{}{script}{}", &page[..at], &page[at..])
}

#[test]
fn a_long_game_replays_turn_by_turn_in_a_browser() {
    if !Path::new(CHROMIUM).exists() {
        assert!(
            !std::env::var("PBEM_REQUIRE_BROWSER").is_ok_and(|v| v == "1"),
            "PBEM_REQUIRE_BROWSER=1, but there is no {CHROMIUM}"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the replay page in a browser: no {CHROMIUM}"
        );
        return;
    }
    let table = Table::new();
    // The longest of the demo games: five players in the triangle auction.
    let file = table.demo("triangle-auction", "5");
    let out = table.dir.path().join("replay.html");
    let output = export(&table, &file, &out, None);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let page = std::fs::read_to_string(&out).expect("the page");
    assert_self_contained(&page, "triangle-auction");
    let log = String::from_utf8(
        table
            .pbem()
            .arg("log")
            .arg(&file)
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("text");
    let records: Vec<&str> = log.lines().filter(|l| l.starts_with("turn ")).collect();
    let turns = records.len() as u64;
    let _ = writeln!(
        std::io::stderr(),
        "replay page of a {turns}-turn game: {} bytes",
        page.len()
    );
    assert!(turns >= 100, "a long game: {turns}");
    assert!(
        page.len() < 1024 * 1024,
        "{} bytes for {turns} turns",
        page.len()
    );

    let dir = tempfile::tempdir().expect("a folder");
    let driven = dir.path().join("driven.html");
    std::fs::write(&driven, with_script(&page, DRIVER)).expect("write");
    let output = support::chromium(
        &driven,
        dir.path(),
        &[
            "--dump-dom".to_string(),
            // The page unpacks its data before it shows a turn: time for that.
            "--virtual-time-budget=60000".to_string(),
            "--enable-logging=stderr".to_string(),
            "--v=0".to_string(),
        ],
    );
    let console = String::from_utf8_lossy(&output.stderr);
    for line in console.lines().filter(|l| l.contains("CONSOLE")) {
        assert!(
            !line.contains("Uncaught") && !line.contains("rror"),
            "on the console: {line}"
        );
    }
    let dom = String::from_utf8_lossy(&output.stdout);
    let start = dom.find("id=\"verdict\"").expect("the verdict");
    let start = start + dom[start..].find('>').expect("its tag closes") + 1;
    let end = start + dom[start..].find("</pre>").expect("the verdict ends");
    let verdict: Value = serde_json::from_str(
        &dom[start..end]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
    .expect("the verdict is JSON");
    assert_eq!(
        verdict["errors"],
        serde_json::json!([]),
        "errors on the page"
    );
    assert_eq!(verdict["start"], turns, "the page opens at the last turn");
    let shown = verdict["turns"].as_array().expect("turns");
    assert_eq!(shown.len() as u64, turns + 1);
    for (turn, entry) in shown.iter().enumerate() {
        let turn = turn as u64;
        assert_eq!(entry["turn"], turn);
        assert_eq!(entry["label"], format!("Turn {turn} of {turns}"));
        // The board each turn shows is the one pbem show draws for it.
        let expected = svg_texts_of(&table, &file, turn, None);
        let texts: Vec<String> = entry["texts"]
            .as_array()
            .expect("texts")
            .iter()
            .map(|t| t.as_str().expect("a text").to_string())
            .collect();
        assert_eq!(texts, expected, "turn {turn}");
        if turn > 0 {
            let mover = records[turn as usize - 1]
                .split_whitespace()
                .nth(2)
                .expect("a mover");
            let told = entry["move"].as_str().expect("the move");
            assert!(
                told.starts_with(&format!("{mover}: ")),
                "turn {turn}: {told}"
            );
        }
    }
    assert_eq!(verdict["after_end"], turns, "no turn after the last");
    assert_eq!(verdict["page_up"], turns - 10);
    assert_eq!(verdict["slider"], 7);
    assert_eq!(verdict["prev"], 6);
    assert_eq!(verdict["last"], turns);
    assert_eq!(verdict["first"], 0);
    assert_eq!(verdict["next"], 1);
    assert_eq!(verdict["end"], turns);

    // Screenshots at the middle of the game, on a desktop and a phone.
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay");
    std::fs::create_dir_all(&shots).expect("the screenshot folder");
    let middle = turns / 2;
    let to_middle = format!(
        "<script>document.getElementById(\"first\").click(); for (var i = 0; i < {middle}; i++) document.getElementById(\"next\").click();</script>"
    );
    let positioned = dir.path().join("middle.html");
    std::fs::write(&positioned, with_script(&page, &to_middle)).expect("write");
    for (name, width, height) in [("desktop", 1200u32, 900u32), ("phone", 390, 844)] {
        let shot = shots.join(format!("{name}.png"));
        let _ = std::fs::remove_file(&shot);
        support::chromium(
            &positioned,
            dir.path(),
            &[
                format!("--window-size={width},{height}"),
                format!("--screenshot={}", shot.display()),
            ],
        );
        let png = std::fs::read(&shot).expect("the screenshot");
        assert_eq!(png_size(&png), (width, height), "{name}");
        let _ = writeln!(std::io::stderr(), "screenshot: {}", shot.display());
    }
}
