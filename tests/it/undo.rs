//! Taking back moves through the command line: at once when nobody moved since, with
//! every other player's consent otherwise, never a move that drew; every step a signed
//! record the audit replays, and a step the game did not allow caught even when the
//! referee's key signed it.

use ed25519_dalek::SigningKey;
use serde_json::Value;

use super::support::{to_move, Table};

const SEED: &str = "1111111111111111111111111111111111111111111111111111111111111111";

impl Table {
    fn quiet_move(&self, player: &str) -> String {
        super::support::quiet_move(&self.legal(player))
    }

    fn undo(&self, player: &str, answer: Option<&str>) -> (bool, String) {
        let mut args = vec!["undo", "--player", player];
        args.extend(answer);
        self.run(&args)
    }

    fn file_json(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.file()).expect("file")).expect("json")
    }

    fn bytes(&self) -> Vec<u8> {
        std::fs::read(self.file()).expect("file")
    }
}

fn other(player: &str) -> &'static str {
    if player == "Ann" {
        "Bob"
    } else {
        "Ann"
    }
}

#[test]
fn a_move_is_taken_back_at_once_or_with_every_other_players_consent() {
    let table = Table::new();
    table.new_game(SEED);
    let first = to_move(&table.view());
    let second = other(&first);
    let start = table.file_json()["state"].clone();

    // Nobody moved since: taken back at once, and the game stands as before it.
    let quiet = table.quiet_move(&first);
    assert!(table.apply(&first, &quiet).0);
    assert_eq!(
        table.file_json()["records"][0]["draws"],
        Value::Array(vec![])
    );
    let (ok, out) = table.undo(&first, None);
    assert!(ok, "{out}");
    assert!(out.contains("took back turn 1"), "{out}");
    let file = table.file_json();
    assert_eq!(file["state"], start, "the position before the move");
    assert_eq!(file["records"][1]["undo"]["step"], "undo");
    assert_eq!(to_move(&table.view()), first);
    assert_eq!(table.view()["turn"], 2, "one turn number: records so far");

    // The same move again, then the other player's: now the first must ask.
    assert!(table.apply(&first, &quiet).0);
    let before_second = table.file_json()["state"].clone();
    let quiet2 = table.quiet_move(second);
    assert!(table.apply(second, &quiet2).0);
    let (ok, out) = table.undo(&first, None);
    assert!(ok, "{out}");
    assert!(out.contains("asks to take back turn 3"), "{out}");
    assert!(
        out.contains(&format!("waiting for {second} to agree")),
        "{out}"
    );

    // Words the game does not allow change nothing, byte for byte.
    let bytes = table.bytes();
    for (who, answer, says) in [
        (
            first.as_str(),
            Some("--agree"),
            "you asked to take back the move yourself",
        ),
        (first.as_str(), None, "you have already asked"),
        (second, None, "waiting for answers"),
    ] {
        let (ok, out) = table.undo(who, answer);
        assert!(!ok, "{who} {answer:?}: {out}");
        assert!(out.contains(says), "{out}");
        assert_eq!(table.bytes(), bytes);
    }

    // Declined: the moves stand, and a request can be made again.
    let (ok, out) = table.undo(second, Some("--decline"));
    assert!(ok, "{out}");
    assert!(out.contains("declines"), "{out}");
    let bytes = table.bytes();
    let (ok, out) = table.undo(second, Some("--agree"));
    assert!(!ok && out.contains("nobody has asked"), "{out}");
    assert_eq!(table.bytes(), bytes);

    // Asked again and agreed: both moves are taken back.
    assert!(table.undo(&first, None).0);
    let (ok, out) = table.undo(second, Some("--agree"));
    assert!(ok, "{out}");
    assert!(out.contains("took back turn 3"), "{out}");
    assert!(out.contains("took back turn 4"), "{out}");
    let file = table.file_json();
    let steps: Vec<&str> = file["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["undo"]["step"].as_str())
        .collect();
    assert_eq!(steps, ["undo", "ask", "decline", "ask", "agree", "undo"]);
    assert_ne!(file["state"], before_second);
    assert_eq!(file["state"], start);
    assert_eq!(to_move(&table.view()), first);

    // The log keeps every record and marks what was taken back.
    let log = table
        .pbem()
        .arg("log")
        .arg(table.file())
        .output()
        .expect("runs");
    let log = String::from_utf8_lossy(&log.stdout).into_owned();
    assert_eq!(log.matches("(taken back)").count(), 3, "{log}");
    assert!(
        log.contains(&format!("{second} agrees to take back turn 3")),
        "{log}"
    );

    // The audit replays it all, with the keyring and without.
    let (ok, report) = table.audit(false);
    assert!(ok, "{report}");
    let (ok, report) = table.audit(true);
    assert!(ok, "{report}");

    // The game goes on from there.
    assert!(table.apply(&first, &quiet).0);
}

#[test]
fn a_move_that_drew_is_never_taken_back() {
    let table = Table::new();
    table.new_game(SEED);
    let first = to_move(&table.view());
    let gain = table.drawing_move(&first);
    assert!(table.apply(&first, &gain).0);
    assert_ne!(
        table.file_json()["records"][0]["draws"],
        Value::Array(vec![])
    );
    let bytes = table.bytes();
    let (ok, out) = table.undo(&first, None);
    assert!(!ok, "{out}");
    assert!(out.contains("turn 1 drew"), "{out}");
    assert!(out.contains("send your next move"), "{out}");
    assert_eq!(table.bytes(), bytes);

    // Nor a quiet move, when a later move that drew would go with it.
    let second = other(&first);
    let table = Table::new();
    table.new_game(SEED);
    let quiet = table.quiet_move(&first);
    assert!(table.apply(&first, &quiet).0);
    let gain = table.drawing_move(second);
    assert!(table.apply(second, &gain).0);
    let bytes = table.bytes();
    let (ok, out) = table.undo(&first, None);
    assert!(!ok && out.contains("turn 2"), "{out}");
    assert_eq!(table.bytes(), bytes);
}

/// Appends `record` (every field but the chain's) to the file, hashed and signed with
/// the tests' referee key, as a referee who cheats would.
fn append_signed(table: &Table, mut record: Value) {
    let mut file = table.file_json();
    let records = file["records"].as_array_mut().expect("records");
    record["turn"] = (records.len() as u64 + 1).into();
    records.push(record);
    super::support::resign(&mut file, &SigningKey::from_bytes(&[0x42; 32]));
    std::fs::write(table.file(), serde_json::to_vec(&file).expect("json")).expect("write");
}

#[test]
fn the_audit_refuses_an_undo_the_players_did_not_allow_though_the_referee_signed_it() {
    let table = Table::new();
    table.new_game(SEED);
    let first = to_move(&table.view());
    let second = other(&first);
    let quiet = table.quiet_move(&first);
    assert!(table.apply(&first, &quiet).0);
    let quiet2 = table.quiet_move(second);
    assert!(table.apply(second, &quiet2).0);
    let genesis_state = table.file_json()["genesis"]["state_hash"].clone();
    let honest = table.bytes();
    // An undo of turn 1 nobody agreed to, signed with the referee's own key.
    append_signed(
        &table,
        serde_json::json!({
            "player": first, "undo": {"step": "undo", "turn": 1}, "draws": [],
            "state_hash": genesis_state,
        }),
    );
    let (ok, report) = table.audit(true);
    assert!(!ok, "{report}");
    assert!(
        report.contains("takes back moves as the game did not allow"),
        "{report}"
    );
    assert!(
        report.contains("other players have moved since turn 1"),
        "{report}"
    );

    // And an undo that names the wrong position, after a proper request.
    std::fs::write(table.file(), &honest).expect("write");
    let (ok, out) = table.undo(&first, None);
    assert!(ok, "{out}");
    let (ok, out) = table.undo(second, Some("--agree"));
    assert!(ok, "{out}");
    let (ok, report) = table.audit(true);
    assert!(ok, "{report}");
    let mut file = table.file_json();
    let records = file["records"].as_array_mut().expect("records");
    let undo = records.pop().expect("the undo");
    std::fs::write(table.file(), serde_json::to_vec(&file).expect("json")).expect("write");
    let after_first = file["records"][0]["state_hash"].clone();
    let mut wrong = undo.clone();
    wrong["state_hash"] = after_first;
    append_signed(&table, wrong);
    let (ok, report) = table.audit(true);
    assert!(!ok, "{report}");
    assert!(
        report.contains("does not leave the position it names"),
        "{report}"
    );
}
