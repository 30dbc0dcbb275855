//! Build steps:
//!
//! - Each game's built-in rules data (`games/*.toml`) is converted to JSON in OUT_DIR.
//!   Every move parses its game's rules data, and a JSON parse of the same values is
//!   several times faster than a TOML one; see `engine::rules::BuiltInData`. The TOML
//!   stays the source: it is what game files record and hash.
//! - On Linux with glibc, gcc's unwinder is linked statically, as `gcc -static-libgcc`
//!   does. std links the shared one (libgcc_s) for panics and backtraces; loading it,
//!   with the CPU probing its constructor does, costs every pbem process about 0.15 ms,
//!   a tenth of a whole `pbem apply`.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() -> Result<(), Box<dyn Error>> {
    convert_rules_data()?;
    link_unwinder_statically();
    Ok(())
}

fn convert_rules_data() -> Result<(), Box<dyn Error>> {
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
        let name = path.with_extension("json");
        let json = out
            .join("games")
            .join(name.file_name().ok_or("a file name")?);
        std::fs::write(json, serde_json::to_string(&value)?)?;
    }
    Ok(())
}

/// Links `libgcc_eh.a` ahead of std's `-lgcc_s`, so that the linker (which drops shared
/// libraries nothing needs) leaves libgcc_s out. Where the C toolchain has no
/// `libgcc_eh.a` (an LLVM-only system, say) nothing changes.
fn link_unwinder_statically() {
    let target = |key: &str| std::env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") != "linux" || target("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
    let found = Command::new(linker)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
        .is_some_and(|path| path.is_absolute() && path.is_file());
    if found {
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
}
