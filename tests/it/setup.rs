//! `pbem setup`: the referee's config.toml written into a keyring folder that does not
//! exist yet, and checked end to end against servers of the test's own on loopback:
//! aiosmtpd to send through, and the private dovecot of tests/it/imap.rs to read the
//! test mail back from (what aiosmtpd receives is handed to dovecot's delivery agent,
//! as a mail server would). A wrong password, a port nobody listens on and a config
//! that would change without --force are each answered with what to fix, and never
//! with the password. PBEM_HOME is always a temporary folder.

#![cfg(target_os = "linux")]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::imap::{dovecot_or_skip, Dovecot, PASSWORD, USER};

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o777
}

/// pbem with `home` as its keyring and no mail settings from the environment.
fn pbem(home: &Path) -> Command {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("pbem"));
    command.env("PBEM_HOME", home);
    for name in [
        "PBEM_SMTP",
        "PBEM_IMAP",
        "PBEM_FROM",
        "PBEM_SMTP_PASSWORD",
        "PBEM_IMAP_PASSWORD",
        "PBEM_NOW",
    ] {
        command.env_remove(name);
    }
    command
}

/// A password file of the referee's, 0600.
fn password_file(dir: &Path, password: &str) -> std::path::PathBuf {
    let path = dir.join("mail-password");
    std::fs::write(&path, format!("{password}\n")).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    path
}

/// Runs `command` while every message aiosmtpd receives is handed on to the referee's
/// dovecot mailbox, as the referee's mail server would deliver it.
fn relayed(dovecot: &Dovecot, command: &mut Command) -> Output {
    let done = AtomicBool::new(false);
    // Listed before pbem starts: whatever it sends is handed on.
    let mut handed: std::collections::BTreeSet<String> = dovecot
        .smtp
        .delivered()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    std::thread::scope(|scope| {
        let done = &done;
        scope.spawn(move || {
            while !done.load(Ordering::Relaxed) {
                for (name, raw) in dovecot.smtp.delivered() {
                    if handed.insert(name) {
                        dovecot.deliver("ref@pbem.test", &String::from_utf8_lossy(&raw));
                    }
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let output = command.output().expect("pbem runs");
        done.store(true, Ordering::Relaxed);
        output
    })
}

fn setup_args(dovecot: &Dovecot, password: &Path) -> Vec<String> {
    [
        "setup",
        "--from",
        "Referee <ref@pbem.test>",
        "--smtp",
        &format!("smtp://127.0.0.1:{}", dovecot.smtp.port),
        "--imap",
        &format!("imaps://{USER}@localhost:{}/INBOX", dovecot.imaps),
        "--password-file",
        &password.display().to_string(),
        "--ca-file",
        &dovecot.dir.path().join("ca/ca.pem").display().to_string(),
        "--timeout",
        "10s",
        "--wait",
        "20s",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn setup_writes_the_config_into_a_new_folder_and_the_test_mail_arrives() {
    let Some(dovecot) = dovecot_or_skip("setup_writes_the_config") else {
        return;
    };
    let home = dovecot.dir.path().join("fresh/pbem");
    let password = password_file(dovecot.dir.path(), PASSWORD);
    let output = relayed(&dovecot, pbem(&home).args(setup_args(&dovecot, &password)));
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert_eq!(mode(&home), 0o700, "{said}");
    assert_eq!(mode(&home.join("config.toml")), 0o600);
    for line in [
        &format!("made {}", home.display()),
        &format!("ok: SMTP 127.0.0.1:{} answered EHLO", dovecot.smtp.port),
        &format!(
            "ok: IMAP localhost:{} accepted the login of {USER} and opened INBOX; it has IDLE",
            dovecot.imaps
        ),
        "ok: a test mail went from ref@pbem.test to ref@pbem.test",
        "ok: the test mail arrived in imaps://ref@localhost:",
        "all checks passed",
    ] {
        assert!(said.contains(line), "{line}: {said}");
    }
    assert!(!said.contains(PASSWORD), "{said}");
    // In the mailbox, the test mail is read (dovecot's Maildir keeps flags in names).
    let cur = dovecot.dir.path().join(format!("mail/{USER}/Maildir/cur"));
    let seen: Vec<String> = std::fs::read_dir(&cur)
        .expect("the mailbox")
        .filter_map(Result::ok)
        .filter(|entry| {
            std::fs::read_to_string(entry.path()).is_ok_and(|m| m.contains("pbem setup: test mail"))
        })
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        seen.len() == 1
            && seen[0]
                .rsplit_once(":2,")
                .is_some_and(|(_, flags)| flags.contains('S')),
        "{seen:?}"
    );
    let config = std::fs::read_to_string(home.join("config.toml")).expect("config");
    assert!(config.contains("ca_file = "), "{config}");
    assert!(
        config.contains("from = \"Referee <ref@pbem.test>\""),
        "{config}"
    );

    // Checked again alone, with another table added by hand: nothing written.
    std::fs::write(
        home.join("config.toml"),
        format!("{config}\n[deadlines]\n# mine\n"),
    )
    .expect("write");
    let before = std::fs::read(home.join("config.toml")).expect("read");
    let output = relayed(
        &dovecot,
        pbem(&home).args(["setup", "--check", "--wait", "20s"]),
    );
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("the test mail arrived"), "{said}");
    assert_eq!(
        std::fs::read(home.join("config.toml")).expect("read"),
        before
    );

    // The intake takes both test mails for pbem's own: kept, answered to nobody.
    super::support::test_key(&home);
    let sent_before = dovecot.smtp.delivered().len();
    let output = pbem(&home)
        .args(["inbox", "--imap", "--games"])
        .arg(dovecot.games())
        .output()
        .expect("pbem runs");
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "",
        "{}",
        text(&output)
    );
    let kept =
        std::fs::read_to_string(dovecot.games().join("unmatched.mail/index.jsonl")).expect("kept");
    assert_eq!(kept.matches("\"own\"").count(), 2, "{kept}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        dovecot.smtp.delivered().len(),
        sent_before,
        "nothing answered"
    );
}

#[test]
fn setup_names_a_wrong_password_and_a_server_not_reached_with_the_fix() {
    let Some(dovecot) = dovecot_or_skip("setup_names_a_wrong_password") else {
        return;
    };
    let home = dovecot.dir.path().join("fresh/pbem");
    let wrong = "wr0ng-Passw0rd";
    let password = password_file(dovecot.dir.path(), wrong);
    let output = relayed(&dovecot, pbem(&home).args(setup_args(&dovecot, &password)));
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    let failed = said
        .lines()
        .find(|line| line.starts_with("FAILED: IMAP"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(failed.contains("refused the login of ref"), "{failed}");
    assert!(
        failed.contains(&format!("the first line of {}", password.display())),
        "{failed}"
    );
    assert!(!said.contains(wrong) && !said.contains(PASSWORD), "{said}");

    // The right password, and a port nobody listens on: try again later (75).
    password_file(dovecot.dir.path(), PASSWORD);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let output = relayed(
        &dovecot,
        pbem(&home).args([
            "setup",
            "--force",
            "--imap",
            &format!("imaps://{USER}@localhost:{port}/INBOX"),
        ]),
    );
    let said = text(&output);
    assert_eq!(output.status.code(), Some(75), "{said}");
    let failed = said
        .lines()
        .find(|line| line.starts_with("FAILED: IMAP"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(failed.contains(&format!("localhost:{port}")), "{failed}");
    assert!(failed.contains("check the host and port"), "{failed}");
    assert!(said.contains("ok: SMTP"), "{said}");
}

#[test]
fn an_existing_config_is_kept_without_force_and_other_tables_always() {
    let dir = tempfile::tempdir().expect("dir");
    let home = dir.path().join("pbem");
    std::fs::create_dir(&home).expect("dir");
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let config = format!(
        "# the referee's own words\n[mail]\nfrom = \"ref@pbem.test\" # me\nsmtp = \"smtp://127.0.0.1:{port}\"\ntimeout = \"2s\"\n\n[deadlines]\nturn = \"3d\"\n"
    );
    let path = home.join("config.toml");
    std::fs::write(&path, &config).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");

    // Another value for a key it has: the difference shown, nothing written.
    let output = pbem(&home)
        .args(["setup", "--from", "Other <other@pbem.test>"])
        .output()
        .expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("-from = \"ref@pbem.test\" # me"), "{said}");
    assert!(
        said.contains("+from = \"Other <other@pbem.test>\" # me"),
        "{said}"
    );
    assert!(said.contains("--force"), "{said}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), config);

    // With --force: that key changed, every other byte kept; then checked, and the
    // SMTP server is not there: try again later.
    let output = pbem(&home)
        .args(["setup", "--force", "--from", "Other <other@pbem.test>"])
        .output()
        .expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(75), "{said}");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        config.replace(
            "from = \"ref@pbem.test\"",
            "from = \"Other <other@pbem.test>\""
        )
    );
    assert!(
        said.lines().any(
            |line| line.starts_with(&format!("FAILED: SMTP 127.0.0.1:{port}: "))
                && line.contains("check the host and port")
        ),
        "{said}"
    );

    // A folder others may read is refused, and so is a config.toml.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let output = pbem(&home)
        .args(["setup", "--check"])
        .output()
        .expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("chmod 600 {}", path.display())),
        "{said}"
    );
}

#[test]
fn a_refused_smtp_login_names_the_password_file_and_never_the_password() {
    let dir = tempfile::tempdir().expect("dir");
    let certs = super::transport::make_certificates(&dir.path().join("certs"));
    let right = "r1ght-Pass:word";
    let server = super::transport::Server::start(
        dir.path(),
        &certs,
        "starttls",
        Some(("ann@pbem.test", right, "PLAIN,LOGIN")),
    );
    let home = dir.path().join("pbem");
    let wrong = "wr0ng-Pass:word";
    let password = password_file(dir.path(), wrong);
    let args = |password: &Path| {
        vec![
            "setup".to_string(),
            "--force".into(),
            "--from".into(),
            "Ann <ann@pbem.test>".into(),
            "--smtp".into(),
            format!(
                "smtp://ann%40pbem.test@localhost:{}?tls=required",
                server.port
            ),
            "--password-file".into(),
            password.display().to_string(),
            "--ca-file".into(),
            certs.ca.display().to_string(),
        ]
    };
    // The CA not given yet: the certificate is not trusted, and the fix names ca_file.
    let untrusted = args(&password);
    let output = pbem(&home)
        .args(&untrusted[..untrusted.len() - 2])
        .output()
        .expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    let failed = said
        .lines()
        .find(|line| line.starts_with("FAILED: "))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        failed.contains("TLS") && failed.contains("--ca-file"),
        "{failed}"
    );

    let output = pbem(&home).args(args(&password)).output().expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "ok: SMTP localhost:{} answered EHLO (STARTTLS)",
            server.port
        )),
        "{said}"
    );
    let failed = said
        .lines()
        .find(|line| line.starts_with("FAILED: "))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        failed.contains("did not accept the login of ann@pbem.test"),
        "{failed}"
    );
    assert!(
        failed.contains(&format!("the first line of {}", password.display())),
        "{failed}"
    );
    assert!(
        !said.contains("Pass:word") && !said.contains("Pass%3Aword"),
        "{said}"
    );
    assert!(server.received().is_empty(), "no test mail without a login");

    let password = password_file(dir.path(), right);
    let output = pbem(&home).args(args(&password)).output().expect("runs");
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("ok: SMTP localhost:"), "{said}");
    assert!(
        said.contains("accepted the login of ann@pbem.test"),
        "{said}"
    );
    assert!(!said.contains("Pass:word"), "{said}");
    let received = server.received();
    assert_eq!(received.len(), 1, "{said}");
    assert!(
        received[0].1.contains("pbem setup: test mail"),
        "{}",
        received[0].1
    );
    assert!(
        received[0].1.contains("Message-ID: <pbem.setup."),
        "{}",
        received[0].1
    );
}
