//! Converts each game's built-in rules data (`games/*.toml`) to JSON in OUT_DIR.
//!
//! Every move parses its game's rules data, and a JSON parse of the same values is
//! several times faster than a TOML one; see `engine::rules::BuiltInData`. The TOML
//! stays the source: it is what game files record and hash.

use std::error::Error;
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let games = Path::new("games");
    println!("cargo:rerun-if-changed={}", games.display());
    std::fs::create_dir_all(out.join("games"))?;
    for entry in std::fs::read_dir(games)? {
        let path = entry?.path();
        if path.extension().is_none_or(|ext| ext != "toml") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path)?;
        let value: toml::Value =
            toml::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?;
        let json = out.join("games").join(
            path.with_extension("json")
                .file_name()
                .ok_or("a file name")?,
        );
        std::fs::write(json, serde_json::to_string(&value)?)?;
    }
    Ok(())
}
