//! The replay page's verifier (templates/verify.js) in headless Chromium: its verdict on
//! a game file is `pbem audit`'s (whether it passes, and the first record that fails)
//! on every seed game's demo, on the fixtures of every format, on byte flips and on
//! tampers the referee's key signed again; its ChaCha20 meets RFC 8439 and its
//! derivations the golden vectors of docs/FAIRNESS.md; the exported page shows its own
//! verdict, and checks a file dropped on it or chosen the same way.
//!
//! Many files are verified in one Chromium launch: a test page holding verify.js and
//! the files, which writes every verdict into its DOM.
//!
//! Needs Debian's `chromium`; without it each test says "skipped" on standard error,
//! with PBEM_REQUIRE_BROWSER=1 it fails.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::Value;

use super::support::{self, Table, CHROMIUM};

/// Whether Chromium is here; when it is not, the test is skipped, or fails under
/// PBEM_REQUIRE_BROWSER=1.
pub(crate) fn browser(what: &str) -> bool {
    if Path::new(CHROMIUM).exists() {
        return true;
    }
    assert!(
        !std::env::var("PBEM_REQUIRE_BROWSER").is_ok_and(|v| v == "1"),
        "PBEM_REQUIRE_BROWSER=1, but there is no {CHROMIUM}"
    );
    let _ = writeln!(std::io::stderr(), "skipped: {what}: no {CHROMIUM}");
    false
}

/// The text of the element `id` in a DOM Chromium dumped, and its opening tag.
pub(crate) fn element(dom: &str, id: &str) -> (String, String) {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in the page"));
    let open = dom[..at].rfind('<').expect("a tag");
    let close = at + dom[at..].find('>').expect("its tag closes");
    let tag = dom[open..=close].to_string();
    let end = close + 1 + dom[close + 1..].find("</").expect("it ends");
    let text = dom[close + 1..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    (tag, text)
}

fn attribute(tag: &str, name: &str) -> String {
    let from = tag
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + name.len()
        + 2;
    tag[from..from + tag[from..].find('"').expect("it ends")].to_string()
}

pub(crate) fn dump(page: &Path, dir: &Path) -> String {
    let output = support::chromium(
        page,
        dir,
        &[
            "--dump-dom".to_string(),
            "--virtual-time-budget=600000".to_string(),
        ],
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `script` (an async function's body, which sees `PbemVerify` and `files`, the
/// files' bytes, and returns a JSON value) in a page of its own with verify.js; what it
/// returned.
fn in_browser(files: &[Vec<u8>], script: &str) -> Value {
    let dir = tempfile::tempdir().expect("a folder");
    let encoded: Vec<String> = files
        .iter()
        .map(|f| base64::engine::general_purpose::STANDARD.encode(f))
        .collect();
    let page = format!(
        r#"<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'">
</head><body>
<script>{verify}</script>
<script id="files" type="application/json">{files}</script>
<script>
(async function () {{
  var files = JSON.parse(document.getElementById("files").textContent).map(function (b) {{
    var binary = atob(b);
    var out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) {{ out[i] = binary.charCodeAt(i); }}
    return out;
  }});
  var result;
  try {{
    result = await (async function () {{ {script} }})();
  }} catch (e) {{
    result = {{ error: String(e) + " " + e.stack }};
  }}
  var pre = document.createElement("pre");
  pre.id = "results";
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
}})();
</script></body></html>"#,
        verify = pbem::replay::VERIFY_JS,
        files = serde_json::to_string(&encoded).expect("json"),
    );
    let path = dir.path().join("verify.html");
    std::fs::write(&path, page).expect("write");
    let (_, text) = element(&dump(&path, dir.path()), "results");
    let value: Value = serde_json::from_str(&text).expect("the results are JSON");
    assert!(value.get("error").is_none(), "{value}");
    value
}

/// Every file's verdict in the browser: passed, revealed, the record that fails (0:
/// genesis; null: the file as a whole), why.
fn verdicts(files: &[Vec<u8>]) -> Vec<Value> {
    in_browser(
        files,
        "var out = [];
         for (var i = 0; i < files.length; i++) {
           var v = await PbemVerify.verify(files[i]);
           out.push({ ok: v.ok, revealed: !!v.revealed, record: v.failed ? v.failed.record : null,
                      why: v.failed ? v.failed.why : null, text: v.text });
         }
         return out;",
    )
    .as_array()
    .expect("a list")
    .clone()
}

/// `pbem audit --public` of a file: whether it passes, and the first record its report
/// names as failing (0 for genesis or the seed; `None` when it names none, or refuses
/// the file whole).
fn audit(path: &Path) -> (bool, Option<u64>) {
    match pbem::ops::audit(path, None) {
        Err(_) => (false, None),
        Ok(report) => {
            let first = report
                .lines
                .iter()
                .find_map(|l| l.strip_prefix("FAILED "))
                .and_then(|l| {
                    if let Some(rest) = l.strip_prefix("turn ") {
                        rest.split_whitespace().next()?.parse().ok()
                    } else if l.starts_with("genesis") || l.starts_with("seed") {
                        Some(0)
                    } else {
                        None
                    }
                });
            (report.passed(), first)
        }
    }
}

/// Verifies `files` (name, bytes) in the browser and with `pbem audit`, and requires
/// the same verdict: the browser never passes a file the audit refuses, passes every
/// file it passes, and names the first failing record the audit names. How many the
/// audit refused.
fn agree(dir: &Path, files: &[(String, Vec<u8>)]) -> usize {
    // pbem's audits run beside the browser's, on the other core.
    let (browser, audits) = std::thread::scope(|scope| {
        let audits = scope.spawn(|| {
            files
                .iter()
                .enumerate()
                .map(|(i, (_, bytes))| {
                    let path = dir.join(format!("file-{i}.json"));
                    std::fs::write(&path, bytes).expect("write");
                    audit(&path)
                })
                .collect::<Vec<_>>()
        });
        let browser = verdicts(&files.iter().map(|(_, b)| b.clone()).collect::<Vec<_>>());
        (browser, audits.join().expect("the audits"))
    });
    assert_eq!(browser.len(), files.len());
    let mut refused = 0;
    for (((name, _), verdict), (passed, first)) in files.iter().zip(&browser).zip(audits) {
        assert_eq!(
            verdict["ok"].as_bool(),
            Some(passed),
            "{name}: pbem audit {}, the browser {verdict}",
            if passed { "passes it" } else { "refuses it" }
        );
        if !passed {
            refused += 1;
            if let Some(first) = first {
                assert_eq!(
                    verdict["record"].as_u64(),
                    Some(first),
                    "{name}: pbem audit fails record {first} first, the browser {verdict}"
                );
            }
        }
    }
    refused
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("a fixture")
}

const FIXTURES: [&str; 7] = [
    "format1/right-of-way-12-turns.json",
    "format2/triangle-auction-9-turns.json",
    "format2/triangle-auction-finished.json",
    "format2/triangle-auction-placed-in-another-order.json",
    "desert-kingdom/revision-1/game-14-turns.json",
    "desert-kingdom/revision-1/game-14-turns-then.json",
    "names/desert-kingdom-refused-names.json",
];

#[test]
fn the_browser_agrees_with_pbem_audit_on_every_game_and_fixture() {
    if !browser("the verifier on every game") {
        return;
    }
    let started = std::time::Instant::now();
    let table = Table::new();
    let mut files = Vec::new();
    for (game, players) in [
        ("right-of-way", "2"),
        ("triangle-auction", "3"),
        ("desert-kingdom", "4"),
    ] {
        let demo = table.demo_in(game, players, &table.dir.path().join(game));
        let file = std::fs::read(demo).expect("the demo");
        files.push((game.to_string(), file));
    }
    for path in FIXTURES {
        files.push((path.to_string(), fixture(path)));
    }
    // Revealed games of formats 1 and 3, so that their draw keys are derived again: the
    // format-1 fixture revealed early, and the format-3 one played to its end.
    let format_1 = Table::new();
    format_1.format_1_game();
    let (ok, out) = format_1.run(&["reveal", "--force"]);
    assert!(ok, "{out}");
    files.push((
        "format 1, revealed".into(),
        std::fs::read(format_1.file()).expect("the file"),
    ));
    let format_3 = Table::new();
    let then: Value = serde_json::from_slice(&fixture(
        "desert-kingdom/revision-1/game-14-turns-then.json",
    ))
    .expect("json");
    let text = |v: &Value| v.as_str().expect("a text").to_string();
    format_3.fixture_game(
        "desert-kingdom/revision-1/game-14-turns.json",
        &text(&then["game_id"]),
        &text(&then["seed"]),
    );
    let moves: Vec<(String, String)> = then["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| (text(&m[0]), text(&m[1])))
        .collect();
    format_3.apply_all(&moves);
    files.push((
        "format 3, played to its end".into(),
        std::fs::read(format_3.file()).expect("the file"),
    ));
    let refused = agree(table.dir.path(), &files);
    // The one fixture that is no game file (it has a key of its own) is the one refused.
    assert_eq!(refused, 1);
    let browser = verdicts(&[
        files[1].1.clone(),
        files[3].1.clone(),
        files[files.len() - 2].1.clone(),
        files[files.len() - 1].1.clone(),
    ]);
    for (verdict, revealed) in browser.iter().zip([true, false, true, true]) {
        assert_eq!(verdict["revealed"], revealed, "{verdict}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "{} files verified alike in {:?}",
        files.len(),
        started.elapsed()
    );
}

/// Each of `bytes`' positions in `range`, `step` apart, with its lowest bit flipped.
fn flips(
    name: &str,
    bytes: &[u8],
    range: std::ops::Range<usize>,
    step: usize,
) -> Vec<(String, Vec<u8>)> {
    range
        .step_by(step)
        .map(|at| {
            let mut changed = bytes.to_vec();
            changed[at] ^= 1;
            (format!("{name} with byte {at} flipped"), changed)
        })
        .collect()
}

/// Each integer `0` of `bytes` (after a `:`, `[` or `,`, before a `,`, `]` or `}`)
/// written `-0` instead, one file each.
fn negative_zeros(name: &str, bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    (1..bytes.len().saturating_sub(1))
        .filter(|&at| {
            bytes[at] == b'0'
                && matches!(bytes[at - 1], b':' | b'[' | b',')
                && matches!(bytes[at + 1], b',' | b']' | b'}')
        })
        .map(|at| {
            let mut changed = bytes[..at].to_vec();
            changed.push(b'-');
            changed.extend_from_slice(&bytes[at..]);
            (format!("{name} with the 0 at {at} written -0"), changed)
        })
        .collect()
}

/// A two-player Right of Way game with steps of taking back (an undo at once, an ask
/// declined, an ask agreed and its undo), revealed early: its file.
fn game_with_take_backs(table: &Table) -> Vec<u8> {
    table.new_game(&"11".repeat(32));
    let quiet = |player: &str| support::quiet_move(&table.legal(player));
    let first = support::to_move(&table.view());
    let second = if first == "Ann" { "Bob" } else { "Ann" };
    assert!(table.apply(&first, &quiet(&first)).0);
    assert!(table.run(&["undo", "--player", first.as_str()]).0);
    assert!(table.apply(&first, &quiet(&first)).0);
    assert!(table.apply(second, &quiet(second)).0);
    for (who, answer) in [
        (first.as_str(), None),
        (second, Some("--decline")),
        (first.as_str(), None),
        (second, Some("--agree")),
    ] {
        let mut args = vec!["undo", "--player", who];
        args.extend(answer);
        let (ok, out) = table.run(&args);
        assert!(ok, "{out}");
    }
    let (ok, out) = table.run(&["reveal", "--force"]);
    assert!(ok, "{out}");
    std::fs::read(table.file()).expect("the file")
}

/// A Right of Way game the players joined (`pbem new --join`), revealed: its file.
fn joined_game(table: &Table) -> Vec<u8> {
    table.test_key();
    let output = table
        .pbem()
        .args(["new", "right-of-way", "--player", "Ann", "--player", "Bob"])
        .args(["--seed", &"2e".repeat(32), "--join", "--out"])
        .arg(table.file())
        .output()
        .expect("runs");
    assert!(output.status.success());
    for (player, words) in [("Bob", "seven swans"), ("Ann", "blue heron")] {
        let (ok, out) = table.run(&["join", "--player", player, "--entropy", words]);
        assert!(ok, "{out}");
    }
    let (ok, out) = table.run(&["reveal", "--force"]);
    assert!(ok, "{out}");
    std::fs::read(table.file()).expect("the file")
}

/// The stored state's bytes in a file pbem wrote: after `\n"state":`, before `}\n`.
fn state_text(bytes: &[u8]) -> String {
    let text = std::str::from_utf8(bytes).expect("utf-8");
    let at = text.rfind("\n\"state\":").expect("the state") + 9;
    text[at..text.len() - 2].to_string()
}

/// `file` in pbem's layout ("The game file" in docs/FAIRNESS.md), its keys in any
/// order (serde_json's), with the stored state's bytes `state` as they were.
fn written(file: &Value, state: &str) -> Vec<u8> {
    let mut out = format!(
        "{{\"format\":{},\n\"genesis\":{},\n\"records\":[\n",
        file["format"], file["genesis"]
    );
    let records: Vec<String> = file["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(Value::to_string)
        .collect();
    out.push_str(&records.join(",\n"));
    out.push_str(&format!(
        "\n],\n\"seed\":{},\n\"state\":{state}}}\n",
        file["seed"]
    ));
    out.into_bytes()
}

fn signing_key(home: &Path) -> ed25519_dalek::SigningKey {
    let hex = std::fs::read_to_string(home.join("referee.key")).expect("the key");
    let bytes = pbem::basics::digest::hash_from_hex(hex.trim()).expect("hex");
    ed25519_dalek::SigningKey::from_bytes(&bytes)
}

/// Genesis hashed and signed again after a change, then every record.
fn resign_all(file: &mut Value, key: &ed25519_dalek::SigningKey) {
    use ed25519_dalek::Signer;
    use pbem::basics::digest::{hash_from_hex, to_hex};
    use pbem::engine::file::{hashes, Draw};
    let body = support::genesis_body(file);
    let draws: Vec<Draw> = serde_json::from_value(file["genesis"]["draws"].clone()).expect("draws");
    let state = hash_from_hex(file["genesis"]["state_hash"].as_str().expect("hex")).expect("hash");
    let hash = hashes::genesis(&body, &draws, &state).expect("a hash");
    file["genesis"]["hash"] = to_hex(&hash).into();
    file["genesis"]["signature"] = base64::engine::general_purpose::STANDARD
        .encode(key.sign(&hash).to_bytes())
        .into();
    support::resign(file, key);
}

#[test]
fn tampered_files_are_refused_as_pbem_audit_refuses_them() {
    if !browser("the verifier on tampered files") {
        return;
    }
    let started = std::time::Instant::now();
    let mut files = Vec::new();

    // Byte flips: of a short format-2 game with sealed moves and openings, before the
    // reveal, every 7th byte of the whole file; and every byte of a format-4 game's
    // records and state, with steps of taking back (the flips found pbem's own audit
    // panicking on an undo record of turn 0).
    let short = fixture("format2/triangle-auction-9-turns.json");
    files.extend(flips("format2", &short, 0..short.len(), 7));
    let undo_table = Table::new();
    let undone = game_with_take_backs(&undo_table);
    let records_at = undone
        .windows(11)
        .position(|w| w == b"\"records\":[")
        .expect("records");
    files.extend(flips("take-backs", &undone, records_at..undone.len(), 1));
    // Every integer 0 written `-0`: JSON allows it, and both read it as no integer.
    files.extend(negative_zeros("take-backs", &undone));

    // Tampers the referee's key signed again: only the checks of draws, boxes, rounds
    // and the ledger can refuse them.
    let demo = Table::new();
    let demo_file = demo.demo("triangle-auction", "3");
    let key = signing_key(&demo.home());
    let demo_bytes = std::fs::read(&demo_file).expect("the demo");
    let demo_state = state_text(&demo_bytes);
    let original: Value = serde_json::from_slice(&demo_bytes).expect("json");
    let records = original["records"].as_array().expect("records").clone();
    let find = |what: &dyn Fn(&Value) -> bool| records.iter().position(what).expect("a record");
    let mut tampers: Vec<(String, Value)> = Vec::new();
    let picked = find(&|r| {
        r["draws"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d.get("pick").is_some()))
    });
    let mut file = original.clone();
    let draw = file["records"][picked]["draws"]
        .as_array_mut()
        .expect("draws")
        .iter_mut()
        .find(|d| d.get("pick").is_some())
        .expect("a pick");
    let (of, pick) = (
        draw["of"].as_u64().expect("n"),
        draw["pick"].as_u64().expect("i"),
    );
    if of > 1 {
        draw["pick"] = ((pick + 1) % of).into();
        tampers.push(("a pick changed".into(), file));
    }
    let sealed = find(&|r| r.get("sealed").is_some());
    let mut file = original.clone();
    let boxed = file["records"][sealed]["sealed"]["box"]
        .as_str()
        .expect("base64")
        .to_string();
    let first = if boxed.starts_with('A') { "B" } else { "A" };
    file["records"][sealed]["sealed"]["box"] = format!("{first}{}", &boxed[1..]).into();
    tampers.push(("a sealed box edited".into(), file));
    // Two moves in clear of one round, by two seats, swapped.
    let swap = (1..records.len() - 1)
        .find(|&i| {
            let (a, b) = (&records[i], &records[i + 1]);
            a.get("move").is_some()
                && b.get("move").is_some()
                && a["round"].is_u64()
                && a["round"] == b["round"]
                && a["round"].as_u64() != a["turn"].as_u64()
                && a["player"] != b["player"]
                && a.get("combined").is_none()
                && b.get("combined").is_none()
        })
        .expect("a round of moves in clear");
    let mut file = original.clone();
    let list = file["records"].as_array_mut().expect("records");
    list.swap(swap, swap + 1);
    list[swap]["turn"] = (swap as u64 + 1).into();
    list[swap + 1]["turn"] = (swap as u64 + 2).into();
    tampers.push(("two moves of a round swapped".into(), file));
    let continuing = find(&|r| {
        r["round"].is_u64()
            && r["round"].as_u64() != r["turn"].as_u64()
            && r.get("combined").is_none()
    });
    let mut file = original.clone();
    let turn = file["records"][continuing]["turn"].clone();
    file["records"][continuing]["round"] = turn;
    tampers.push(("a round marker changed".into(), file));
    let opening = find(&|r| r.get("opens").is_some());
    let mut file = original.clone();
    let salt = file["records"][opening]["opens"][0]["salt"]
        .as_str()
        .expect("hex")
        .to_string();
    file["records"][opening]["opens"][0]["salt"] = format!(
        "{}{}",
        if salt.starts_with('0') { '1' } else { '0' },
        &salt[1..]
    )
    .into();
    tampers.push(("an opening's salt changed".into(), file));
    for (what, mut file) in tampers {
        support::resign(&mut file, &key);
        files.push((what, written(&file, &demo_state)));
    }

    // A hidden draw's commit changed: the desert kingdom draws face down.
    let dk = Table::new();
    let dk_bytes = std::fs::read(dk.demo("desert-kingdom", "3")).expect("the demo");
    let mut file: Value = serde_json::from_slice(&dk_bytes).expect("json");
    let committed = file["records"]
        .as_array()
        .expect("records")
        .iter()
        .position(|r| {
            r["draws"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d.get("commit").is_some()))
        })
        .expect("a hidden draw");
    let draw = file["records"][committed]["draws"]
        .as_array_mut()
        .expect("draws")
        .iter_mut()
        .find(|d| d.get("commit").is_some())
        .expect("a commit");
    let commit = draw["commit"].as_str().expect("hex").to_string();
    draw["commit"] = format!(
        "{}{}",
        if commit.starts_with('0') { '1' } else { '0' },
        &commit[1..]
    )
    .into();
    support::resign(&mut file, &signing_key(&dk.home()));
    files.push((
        "a hidden draw's commit changed".into(),
        written(&file, &state_text(&dk_bytes)),
    ));

    // A step of taking back changed: the agreement declined, so the undo it allowed is
    // one nobody agreed to.
    let undo_key = signing_key(&undo_table.home());
    let undo_file: Value = serde_json::from_slice(&undone).expect("json");
    let undo_state = state_text(&undone);
    let agreed = undo_file["records"]
        .as_array()
        .expect("records")
        .iter()
        .position(|r| r["undo"]["step"] == "agree")
        .expect("an agreement");
    let mut file = undo_file.clone();
    file["records"][agreed]["undo"]["step"] = "decline".into();
    support::resign(&mut file, &undo_key);
    files.push((
        "an agreement turned into a refusal".into(),
        written(&file, &undo_state),
    ));
    let mut file = undo_file.clone();
    file["records"][agreed + 1]["undo"]["turn"] = 1.into();
    support::resign(&mut file, &undo_key);
    files.push((
        "an undo of another turn".into(),
        written(&file, &undo_state),
    ));

    // The joining words of two players swapped, and one player's changed, in a genesis
    // signed again.
    let joined_table = Table::new();
    let joined_bytes = joined_game(&joined_table);
    let joined_state = state_text(&joined_bytes);
    let joined: Value = serde_json::from_slice(&joined_bytes).expect("json");
    let joined_key = signing_key(&joined_table.home());
    let entropy = joined["genesis"]["entropy"]
        .as_array()
        .expect("entropy")
        .clone();
    let n = entropy.len();
    let words = |e: &Value| {
        e.as_str()
            .expect("words")
            .split_once(": ")
            .expect("a name")
            .1
            .to_string()
    };
    let mut swapped = joined.clone();
    swapped["genesis"]["entropy"][n - 2] = format!("Ann: {}", words(&entropy[n - 1])).into();
    swapped["genesis"]["entropy"][n - 1] = format!("Bob: {}", words(&entropy[n - 2])).into();
    let mut changed = joined.clone();
    changed["genesis"]["entropy"][n - 1] = format!("Bob: {} too", words(&entropy[n - 1])).into();
    for (what, mut file) in [
        ("joining words swapped", swapped),
        ("joining words changed", changed),
    ] {
        resign_all(&mut file, &joined_key);
        files.push((what.into(), written(&file, &joined_state)));
    }
    // The untouched files pass, so the refusals above are the tampers'.
    files.push(("the game with take-backs".into(), undone.clone()));
    files.push((
        "the joined game, written again".into(),
        written(&joined, &joined_state),
    ));
    files.push((
        "the demo, written again".into(),
        written(&original, &demo_state),
    ));

    let dir = tempfile::tempdir().expect("a folder");
    let refused = agree(dir.path(), &files);
    // Every change is refused; the three untouched files pass.
    assert_eq!(refused, files.len() - 3);
    let _ = writeln!(
        std::io::stderr(),
        "{} files ({refused} refused) verified alike in {:?}",
        files.len(),
        started.elapsed()
    );
}

/// The golden vectors' lines, as docs/FAIRNESS.md gives them.
fn golden_lines() -> Vec<String> {
    let doc = std::fs::read_to_string(format!("{}/docs/FAIRNESS.md", env!("CARGO_MANIFEST_DIR")))
        .expect("the document");
    let section = &doc[doc.find("## Golden vectors").expect("the section")..];
    let block = &section[section.find("```text\n").expect("the block") + 8..];
    block[..block.find("```").expect("it ends")]
        .lines()
        .map(str::to_string)
        .collect()
}

/// The golden vectors computed in the browser, from verify.js's functions and the
/// inputs docs/FAIRNESS.md names; and RFC 8439's block (2.3.2) and encryption (2.4.2).
const VECTORS: &str = r#"
  var P = PbemVerify, out = [];
  var key32 = new Uint8Array(32).map(function (_, k) { return k; });
  var rfc = {
    block: P.hex(P.chacha20Block(key32, 1, P.unhex("000000090000004a00000000"))),
    encrypted: P.hex(P.chacha20Xor(key32, 1, P.unhex("000000000000004a00000000"), P.utf8("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.")))
  };
  var hexw = function (w) { return ("0000000" + w.toString(16)).slice(-8); };
  var z = new P.Stream(new Uint8Array(32));
  out.push("chacha zero key: " + [z.next(), z.next(), z.next(), z.next()].map(hexw).join(" "));
  var s7 = new P.Stream(new Uint8Array(32).fill(7));
  out.push("sampler key 07: [" + [61, 54, 53, 6, 2, 1000, 3, 1].map(function (n) { return P.index(s7, n); }).join(", ") + "]");
  var half = 2147483649, i = 0;
  while (new P.Stream(await P.H("pbem/test/skip", [P.u32(i)])).next() < half) { i++; }
  for (const n of [half, 3 * 1073741824]) {
    var st = new P.Stream(await P.H("pbem/test/skip", [P.u32(i)]));
    var picks = [];
    for (var k = 0; k < 8; k++) { picks.push(P.index(st, n)); }
    out.push("skip i " + i + " n " + n + ": picks [" + picks.join(", ") + "] words " + st.taken);
  }
  var seed = key32, G = "row-0a1b2c3d", A = await P.H("anchor"), B = await P.H("body"), K = new Uint8Array(32).fill(0x11);
  var key = await P.hmacKey(seed);
  out.push("seed commitment G: " + P.hex(await P.H("pbem/v1/seed-commitment", [P.str(G), seed])));
  var v1key = function (t, anchor, player, move) { return P.HMAC(key, "pbem/v1/draw", [P.str(G), P.u64(t), anchor, P.str(player), P.str(move)]); };
  out.push('v1 key G turn 3 A Ann "place E,W at E5": ' + P.hex(await v1key(3, A, "Ann", "place E,W at E5")));
  var byId = new P.Keyed(1, key, G, null), byBody = new P.Keyed(3, key, null, B);
  var salts = [[0, 0, 6, 5], [7, 1, 54, 17], [Math.pow(2, 40), Math.pow(2, 31), 1000, 999]];
  for (const [t, j, n, p] of salts) {
    var sj = await byId.salt(t, j);
    out.push("v1 salt G t " + t + " j " + j + ": " + P.hex(sj) + " commit of pick " + p + " of " + n + ": " + P.hex(await P.hiddenCommit(sj, n, p)));
  }
  async function listed(keyed, turn, k, asked) {
    var st = new P.Stream(k), o = [];
    for (var j = 0; j < asked.length; j++) {
      var n = asked[j][0], pick = P.index(st, n);
      o.push(asked[j][1] ? '{"of":' + n + ',"commit":"' + P.hex(await P.hiddenCommit(await keyed.salt(turn, j), n, pick)) + '"}' : '{"of":' + n + ',"pick":' + pick + '}');
    }
    return "[" + o.join(",") + "]";
  }
  var mixed1 = [[6, false], [54, true], [2, false], [1000, true], [1, true]];
  var mixed2 = [[6, true], [4, false], [1000, true], [2147483649, false]];
  out.push('v1 turn draws G turn 4 key (G, 4, A, Bob, "pass"): ' + await listed(byId, 4, await v1key(4, A, "Bob", "pass"), mixed1));
  var moves = [["Ann", "bid 3"], ["Bob", "pass"], ["Cy", "bid 5 \u2660"]];
  var v2key = function (t, anchor, ms) { return P.HMAC(key, "pbem/v2/draw", [P.str(G), P.u64(t), anchor].concat(P.movesField(ms))); };
  for (const k of [0, 1, 3]) { out.push("v2 key G turn 7 A k " + k + ": " + P.hex(await v2key(7, A, moves.slice(0, k)))); }
  out.push('v2 turn draws G turn 9 key (G, 9, A, Ann "choose 2", Bob "choose 1"): ' + await listed(byId, 9, await v2key(9, A, [["Ann", "choose 2"], ["Bob", "choose 1"]]), mixed2));
  var texts = [[5, "bid 3"], [6, "0123456789abcdef".repeat(4)], [Math.pow(2, 40), "bid 3 \u2660 f\u00fcr Zo\u00eb"]];
  async function seals(keyed, name) {
    for (const [t, m] of texts) {
      var s = await keyed.sealSalt(t), k = await keyed.sealKey(t), plain = P.utf8(m);
      var padded = new Uint8Array((Math.floor(plain.length / 64) + 1) * 64);
      padded.set(plain);
      var ks = new P.Stream(k).bytes(padded.length);
      var box = padded.map(function (b, x) { return b ^ ks[x]; });
      if (P.openBox(k, box) !== m) { throw new Error("a box does not open to its text"); }
      out.push(name + ' seal turn ' + t + ' "' + m + '": salt ' + P.hex(s) + ' key ' + P.hex(k) + ' commit ' + P.hex(await P.sealedCommit(s, m)) + ' box ' + P.toBase64(box));
    }
  }
  await seals(byId, "v2 G");
  out.push("v3 setup key B: " + P.hex(await P.HMAC(key, "pbem/v3/setup", [B])));
  var v3key = function (anchor, ms) { return P.HMAC(key, "pbem/v3/draw", [B, anchor].concat(P.movesField(ms))); };
  var one = await v3key(A, [["Ann", "place E,W at E5"]]);
  out.push('v3 key B A Ann "place E,W at E5": ' + P.hex(one));
  var cards = [["Ann", "card 2"], ["Bob", "card 1"], ["Cat", "card 5"]];
  out.push('v3 key B A Ann "card 2" Bob "card 1" Cat "card 5": ' + P.hex(await v3key(A, cards)));
  out.push('v3 turn draws B turn 4 key (B, A, Ann "place E,W at E5"): ' + await listed(byBody, 4, one, mixed2));
  for (const [t, j, n, p] of salts) {
    var sb = await byBody.salt(t, j);
    out.push("v3 salt B t " + t + " j " + j + ": " + P.hex(sb) + " commit of pick " + p + " of " + n + ": " + P.hex(await P.hiddenCommit(sb, n, p)));
  }
  await seals(byBody, "v3 B");
  var g = { game: "right-of-way", engine: "pbem 0.1.0", players: [{ name: "Ann", email: "ann@example.org" }, { name: "Bob" }],
            options: { setup: "hexagon" }, rules_hash: P.hex(await P.sha256(new Uint8Array(0))), draw_algorithm: "pbem-draw/3" };
  g.id = await P.gameId(seed, g, K, []);
  out.push("game id: " + g.id);
  g.seed_commitment = P.hex(await P.H("pbem/v1/seed-commitment", [P.str(g.id), seed]));
  out.push("seed commitment of that id: " + g.seed_commitment);
  var body = await P.genesisBody("pbem.game/3", 3, g, [], "", K);
  out.push("genesis body: " + P.hex(body));
  out.push("invitation hash: " + P.hex(await P.H("pbem/v2/invitation", [body])));
  var rec = { n: 3, player: "Ann", move: "place E,W at E5", round: 2, opens: [], draws: [{ of: 6, pick: 3 }], state_hash: P.hex(B) };
  out.push("record: " + P.hex(await P.recordHash(3, g.id, rec, A)));
  var h1 = await P.HMAC(key, "pbem/v4/history", [B, A].concat(P.movesField([["Ann", "place E,W at E5"]])));
  out.push('v4 history B A Ann "place E,W at E5": ' + P.hex(h1));
  out.push('v4 history B A Ann "card 2" Bob "card 1" Cat "card 5": ' + P.hex(await P.HMAC(key, "pbem/v4/history", [B, A].concat(P.movesField(cards)))));
  var k4 = await P.HMAC(key, "pbem/v4/draw", [B, h1]);
  out.push("v4 key B H1: " + P.hex(k4));
  out.push("v4 turn draws B turn 4 key (B, H1): " + await listed(byBody, 4, k4, mixed2));
  var rec4 = Object.assign({}, rec, { move: "place D at C4 r0", combined: "place A at C5 r1; place D at C4 r0", history: P.hex(h1) });
  out.push("record v4: " + P.hex(await P.recordHash(4, g.id, rec4, A)));
  out.push('v4 bot key B H1 seat 2 n 1 "search/1": ' + P.hex(await P.HMAC(key, "pbem/v4/bot", [B, h1, P.u32(2), P.u32(1), P.str("search/1")])));
  return { rfc: rfc, lines: out };
"#;

#[test]
fn the_browsers_chacha20_and_derivations_meet_rfc_8439_and_the_golden_vectors() {
    if !browser("the golden vectors in the browser") {
        return;
    }
    let result = in_browser(&[], VECTORS);
    // RFC 8439, 2.3.2: the block of key 00..1f, counter 1, nonce 00:00:00:09:00:00:00:4a:00:00:00:00.
    assert_eq!(
        result["rfc"]["block"],
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
    );
    // RFC 8439, 2.4.2: the sunscreen text encrypted, counter 1, nonce ..00:4a:00:00:00:00.
    assert_eq!(
        result["rfc"]["encrypted"],
        "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d"
    );
    let lines: Vec<String> = result["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l.as_str().expect("a line").to_string())
        .collect();
    assert_eq!(lines, golden_lines());
}

/// `pbem export FILE --html OUT`, the public's page, which must be written.
fn export(table: &Table, file: &Path, out: &Path) {
    let output = super::export::export(table, file, out, None);
    assert!(output.status.success(), "{output:?}");
}

/// What the injected script does: drops a changed copy of the page's own game file on
/// the drop zone, then chooses the intact one with the file input, noting each verdict.
const DROP: &str = r##"<script>
window.pbemUnpacked("game-file").then(function (own) {
  var changed = own.slice();
  var at = new TextDecoder().decode(own).lastIndexOf('"hash":"') + 8;
  changed[at] = changed[at] === 0x30 ? 0x31 : 0x30;
  var box = document.getElementById("dropped-verification");
  var seen = [];
  function wait(then) {
    if (box.getAttribute("data-state") === "running" || !box.getAttribute("data-state")) { setTimeout(function () { wait(then); }, 20); return; }
    seen.push({ state: box.getAttribute("data-state"), record: box.getAttribute("data-record"), text: box.textContent });
    then();
  }
  function done() {
    var pre = document.createElement("pre");
    pre.id = "dropped";
    pre.textContent = JSON.stringify(seen);
    document.body.appendChild(pre);
  }
  var drop = new DataTransfer();
  drop.items.add(new File([changed], "changed.json"));
  document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: drop, bubbles: true, cancelable: true }));
  wait(function () {
    var choose = document.getElementById("choose");
    var chosen = new DataTransfer();
    chosen.items.add(new File([own], "intact.json"));
    choose.files = chosen.files;
    box.setAttribute("data-state", "");
    choose.dispatchEvent(new Event("change"));
    wait(done);
  });
});
</script>"##;

#[test]
fn the_exported_page_verifies_itself_and_any_file_dropped_on_it() {
    if !browser("the exported page's own verdict") {
        return;
    }
    let started = std::time::Instant::now();
    let table = Table::new();
    let file = table.demo("desert-kingdom", "3");
    let dir = tempfile::tempdir().expect("a folder");
    let page: PathBuf = dir.path().join("replay.html");
    export(&table, &file, &page);
    let html = std::fs::read_to_string(&page).expect("the page");
    // It carries the file's bytes exactly as pbem wrote them (packed: raw DEFLATE in
    // base64).
    let (_, carried) = element(&html, "game-file");
    let bytes = std::fs::read(&file).expect("the file");
    let packed = base64::engine::general_purpose::STANDARD
        .decode(carried.trim())
        .expect("base64");
    let mut unpacked = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::DeflateDecoder::new(packed.as_slice()),
        &mut unpacked,
    )
    .expect("raw DEFLATE");
    assert_eq!(unpacked, bytes);
    assert!(
        html.contains("default-src 'none'"),
        "the policy forbids loading anything"
    );
    let dom = dump(&page, dir.path());
    let (tag, text) = element(&dom, "verification");
    assert_eq!(attribute(&tag, "data-state"), "verified", "{text}");
    let records = serde_json::from_slice::<Value>(&bytes).expect("json")["records"]
        .as_array()
        .expect("records")
        .len();
    assert!(
        text.starts_with(&format!("Verified in this browser: {records} records, ")),
        "{text}"
    );
    assert!(text.contains("signed by key "), "{text}");
    assert!(
        text.contains("pbem audit"),
        "it says what it leaves to the audit: {text}"
    );

    // Dropped and chosen files go through the same verification.
    let driven = dir.path().join("driven.html");
    let at = html.rfind("</body>").expect("the body ends");
    std::fs::write(&driven, format!("{}{DROP}{}", &html[..at], &html[at..])).expect("write");
    let dom = dump(&driven, dir.path());
    let (_, seen) = element(&dom, "dropped");
    let seen: Value = serde_json::from_str(&seen).expect("json");
    assert_eq!(seen[0]["state"], "failed", "{seen}");
    assert_eq!(
        seen[0]["record"],
        records.to_string(),
        "the last record's hash: {seen}"
    );
    assert!(seen[0]["text"]
        .as_str()
        .expect("text")
        .starts_with("changed.json: NOT verified: Record "));
    assert_eq!(seen[1]["state"], "verified", "{seen}");

    // A game still being played: what waits for the seed is pending, not failed.
    let playing = Table::new();
    playing.start("desert-kingdom", &["Ann", "Bob", "Cat"], &"e0".repeat(32));
    for _ in 0..4 {
        let (player, text) = playing.first_move();
        assert!(playing.apply(&player, &text).0);
    }
    let pending = dir.path().join("pending.html");
    export(&playing, &playing.file(), &pending);
    let dom = dump(&pending, dir.path());
    let (tag, text) = element(&dom, "verification");
    assert_eq!(attribute(&tag, "data-state"), "pending", "{text}");
    assert!(
        text.contains("Pending until the seed is revealed"),
        "{text}"
    );
    assert!(text.contains("4 records"), "{text}");
    let _ = writeln!(
        std::io::stderr(),
        "pages verified in {:?}",
        started.elapsed()
    );
}
