//! What the Debian package ships besides the binary: man pages and shell completions
//! generated from the command line, and the systemd user unit of `pbem watch`, with
//! every asset the package metadata names made by `.ci/package` or in the tree.

use std::path::Path;
use std::process::Command;

fn pbem() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("pbem"))
}

#[test]
fn a_man_page_for_pbem_and_each_command_that_man_reads() {
    let dir = tempfile::tempdir().expect("dir");
    let output = pbem()
        .arg("manpages")
        .arg(dir.path())
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for page in [
        "pbem",
        "pbem-watch",
        "pbem-inbox",
        "pbem-outbox-flush",
        "pbem-apply",
    ] {
        let path = dir.path().join(format!("{page}.1"));
        let text = std::fs::read_to_string(&path).expect(page);
        assert!(
            text.starts_with(".ie") || text.contains(".TH"),
            "{page}: {text}"
        );
    }
    let watch = std::fs::read_to_string(dir.path().join("pbem-watch.1")).expect("watch");
    assert!(
        watch.contains("\\-\\-games") && watch.contains("\\-\\-once"),
        "{watch}"
    );
    // Rendered by man where it is installed (Debian's man-db), without a warning.
    if Path::new("/usr/bin/man").exists() {
        let shown = Command::new("man")
            .arg("-l")
            .arg(dir.path().join("pbem-watch.1"))
            .env("MANPAGER", "cat")
            // man-db's seccomp sandbox kills a process that a preloaded library (such
            // as faketime, which runs the suite on another date) makes call more.
            .env("MAN_DISABLE_SECCOMP", "1")
            .env("MANWIDTH", "80")
            .output()
            .expect("man runs");
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(shown.status.success() && text.contains("--poll"), "{text}");
    }
}

#[test]
fn completion_scripts_every_shell_takes() {
    let dir = tempfile::tempdir().expect("dir");
    for (shell, checker) in [("bash", Some("bash")), ("zsh", None), ("fish", None)] {
        let output = pbem().args(["completions", shell]).output().expect("runs");
        assert!(output.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            script.contains("watch") && script.contains("inbox"),
            "{shell}: {script}"
        );
        if let Some(checker) = checker {
            let path = dir.path().join(shell);
            std::fs::write(&path, &script).expect("write");
            let checked = Command::new(checker)
                .arg("-n")
                .arg(&path)
                .output()
                .expect(checker);
            assert!(
                checked.status.success(),
                "{shell}: {}",
                String::from_utf8_lossy(&checked.stderr)
            );
        }
    }
    let refused = pbem().args(["completions", "tcsh"]).output().expect("runs");
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn the_package_names_assets_that_exist_or_that_its_script_makes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest: toml::Value =
        toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml"))
            .expect("toml");
    let assets = manifest["package"]["metadata"]["deb"]["assets"]
        .as_array()
        .expect("assets");
    let script = std::fs::read_to_string(root.join(".ci/package")).expect(".ci/package");
    let mut made = 0;
    for asset in assets {
        let source = asset[0].as_str().expect("a source");
        if source.starts_with("target/") {
            // Made by the build or by .ci/package.
            let folder = source.rsplit_once('/').map_or(source, |(dir, _)| dir);
            assert!(
                source == "target/dist/pbem" || script.contains(folder),
                "{source} is made by nothing"
            );
            made += 1;
        } else {
            let pattern = source.trim_end_matches("*.md").trim_end_matches('*');
            assert!(root.join(pattern).exists(), "{source} is missing");
        }
    }
    assert!(made >= 5, "{made}");
    let unit = std::fs::read_to_string(root.join("docs/systemd/pbem-watch.service")).expect("unit");
    assert!(
        unit.contains("\nExecStart=/usr/bin/pbem watch --games %h/games\n"),
        "{unit}"
    );
    assert!(unit.contains("\nWantedBy=default.target\n"), "{unit}");
}
