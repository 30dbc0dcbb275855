//! Lists the mail intake's phrase tables (`src/mail/intake/phrases/*.toml`, one per
//! language) for the library to compile in, so that adding a language is adding its
//! file: writes `OUT_DIR/phrases.rs`, the tables' file names and texts in file-name
//! order (`include_str!` of each, so a changed table is compiled in again).

use std::error::Error;
use std::path::Path;
use std::{env, fs};

fn main() -> Result<(), Box<dyn Error>> {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR")?).join("src/mail/intake/phrases");
    // A directory is watched whole: a table added, removed or changed runs this again.
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut tables = Vec::new();
    for entry in fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "toml") {
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .ok_or_else(|| format!("{}: not a UTF-8 file name", path.display()))?
                .to_string();
            let full = path
                .to_str()
                .ok_or_else(|| format!("{}: not a UTF-8 path", path.display()))?
                .to_string();
            tables.push((name, full));
        }
    }
    if tables.is_empty() {
        return Err(format!("no phrase tables (*.toml) in {}", dir.display()).into());
    }
    tables.sort();
    let mut out = String::from(
        "/// The phrase tables, `(file name, text)`, in file-name order (written by build.rs).\n\
         const TABLES: &[(&str, &str)] = &[\n",
    );
    for (name, full) in &tables {
        out.push_str(&format!("    ({name:?}, include_str!({full:?})),\n"));
    }
    out.push_str("];\n");
    fs::write(Path::new(&env::var("OUT_DIR")?).join("phrases.rs"), out)?;
    Ok(())
}
