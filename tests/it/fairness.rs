//! Golden vectors: they pin `pbem-draw/1` (docs/FAIRNESS.md). If one of these changes,
//! old games can no longer be audited: that is a new draw algorithm, not a fix. The
//! values were cross-checked against docs/reference/pbem_draw.py, an independent
//! implementation from the specification, which the last test runs.

use std::process::Command;

use pbem::engine::digest::{to_hex, Fields};
use pbem::engine::fairness::{hidden_commitment, Seed};
use pbem::engine::DrawStream;

const GAME: &str = "row-0a1b2c3d";

fn seed() -> Seed {
    Seed(core::array::from_fn(|i| i as u8))
}

fn rust_vectors() -> Vec<String> {
    let mut zero = DrawStream::new([0; 32]);
    let words: Vec<String> = (0..4)
        .map(|_| format!("{:08x}", zero.next_word()))
        .collect();
    let mut stream = DrawStream::new([7; 32]);
    let picks: Vec<u32> = [61, 54, 53, 6, 2, 1000, 3, 1]
        .iter()
        .map(|&n| stream.index(n))
        .collect();
    let seed = seed();
    let anchor = Fields::hash("anchor").finish();
    let salt = seed.salt(GAME, 3, 1);
    vec![
        words.join(" "),
        format!("{picks:?}"),
        to_hex(&seed.commitment(GAME)),
        to_hex(&seed.draw_key(GAME, 3, &anchor, "Ann", "place E,W at E5")),
        to_hex(&salt),
        to_hex(&hidden_commitment(&salt, 54, 17)),
    ]
}

#[test]
fn golden_vectors_hold() {
    assert_eq!(
        rust_vectors(),
        [
            // RFC 8439's ChaCha20 block for the zero key and nonce, as words.
            "ade0b876 903df1a0 e56a5d40 28bd8653",
            "[0, 25, 34, 2, 0, 676, 1, 0]",
            "6e9aadff1b1bb726954e9c45cc9e2c8e0471a442c48030593f12e7376484f78d",
            "a607e8f52f231fc7c29370b6a0c9994ccd67030185e17205f94d9af1a7ce601e",
            "2295bca99b430841842bb7846297dc3cfc1347337953b091f80921d05d8af272",
            "3e72d2e18ef191b333ad279dc77fdf83bc1f4168953cf48087e69670b35e020a",
        ]
    );
}

#[test]
fn the_independent_reference_implementation_agrees() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference/pbem_draw.py");
    let output = Command::new("python3")
        .arg(script)
        .output()
        .expect("python3 runs (CI installs it)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<String> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines, rust_vectors());
}

#[test]
fn a_draw_key_depends_on_every_input() {
    let seed = seed();
    let anchor = Fields::hash("anchor").finish();
    let base = seed.draw_key(GAME, 3, &anchor, "Ann", "place E,W at E5");
    let other_anchor = Fields::hash("other").finish();
    for variant in [
        seed.draw_key("row-0a1b2c3e", 3, &anchor, "Ann", "place E,W at E5"),
        seed.draw_key(GAME, 4, &anchor, "Ann", "place E,W at E5"),
        seed.draw_key(GAME, 3, &other_anchor, "Ann", "place E,W at E5"),
        seed.draw_key(GAME, 3, &anchor, "Bob", "place E,W at E5"),
        seed.draw_key(GAME, 3, &anchor, "Ann", "place E,W at E5 "),
        Seed([9; 32]).draw_key(GAME, 3, &anchor, "Ann", "place E,W at E5"),
    ] {
        assert_ne!(variant, base);
    }
}
