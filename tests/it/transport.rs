//! Sending mail to servers like real ones: STARTTLS and TLS verified against a CA made
//! for the test, login over TLS, a server that never answers, sendmail commands that
//! fail or hang. The SMTP server is aiosmtpd (tests/support/smtp_server.py).

use std::io::BufRead;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pbem::mail::outbound::transport::{Options, Transport};

/// A CA made for the test, and a certificate for localhost and 127.0.0.1 signed by it.
/// The CA may only sign for localhost and 127.0.0.0/8 (name constraints).
pub struct Certificates {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Makes the test CA and server certificate in `dir` (rcgen; the CA's key is never
/// written). Both are valid from 2000 to 2099, so that no test depends on the day it
/// runs, nor on which clock a server or pbem reads (faketime moves some of them).
pub fn make_certificates(dir: &Path) -> Certificates {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, CidrSubnet, DnType,
        ExtendedKeyUsagePurpose, GeneralSubtree, IsCa, KeyPair, KeyUsagePurpose, NameConstraints,
    };
    std::fs::create_dir_all(dir).expect("dir");
    let valid = |params: &mut CertificateParams| {
        params.not_before = rcgen::date_time_ymd(2000, 1, 1);
        params.not_after = rcgen::date_time_ymd(2099, 12, 31);
    };
    // A name of its own: a CA of another run (the one in the system's store, say) must
    // not be taken for this one.
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    ca.distinguished_name.push(
        DnType::CommonName,
        format!("pbem test CA {}-{nanos}", std::process::id()),
    );
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca.name_constraints = Some(NameConstraints {
        permitted_subtrees: vec![
            GeneralSubtree::DnsName("localhost".into()),
            GeneralSubtree::IpAddress(CidrSubnet::V4([127, 0, 0, 0], [255, 0, 0, 0])),
        ],
        excluded_subtrees: Vec::new(),
    });
    valid(&mut ca);
    let ca =
        CertifiedIssuer::self_signed(ca, KeyPair::generate().expect("a CA key")).expect("the CA");
    let mut server = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
        .expect("server params");
    server
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    server.is_ca = IsCa::ExplicitNoCa;
    server.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    valid(&mut server);
    let key = KeyPair::generate().expect("a server key");
    let cert = server.signed_by(&key, &ca).expect("the server certificate");
    let certificates = Certificates {
        ca: dir.join("ca.pem"),
        cert: dir.join("server.pem"),
        key: dir.join("server.key"),
    };
    std::fs::write(&certificates.ca, ca.pem()).expect("ca.pem");
    std::fs::write(&certificates.cert, cert.pem()).expect("server.pem");
    std::fs::write(&certificates.key, key.serialize_pem()).expect("server.key");
    certificates
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("addr")
        .port()
}

/// tests/support/smtp_server.py on a free loopback port.
pub(super) struct Server {
    pub(super) port: u16,
    out: PathBuf,
    child: Child,
}

impl Server {
    pub(super) fn start(
        dir: &Path,
        certs: &Certificates,
        mode: &str,
        auth: Option<(&str, &str, &str)>,
    ) -> Server {
        let port = free_port();
        let out = dir.join(format!("received-{port}"));
        let mut command = Command::new("python3");
        command
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/smtp_server.py"))
            .args(["--port", &port.to_string(), "--mode", mode])
            .arg("--out")
            .arg(&out)
            .arg("--cert")
            .arg(&certs.cert)
            .arg("--key")
            .arg(&certs.key);
        if let Some((user, password, mechanisms)) = auth {
            command.args([
                "--user",
                user,
                "--password",
                password,
                "--mechanisms",
                mechanisms,
            ]);
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read");
        assert_eq!(
            line.trim(),
            "ready",
            "the test SMTP server did not start; it needs aiosmtpd (`python3 -m pip install aiosmtpd`, .ci/run does)"
        );
        Server { port, out, child }
    }

    /// How each message came: tls, user, mechanism, from, to.
    pub(super) fn received(&self) -> Vec<(serde_json::Value, String)> {
        let mut found = Vec::new();
        for n in 1.. {
            let Ok(json) = std::fs::read(self.out.join(format!("{n}.json"))) else {
                break;
            };
            let message = std::fs::read_to_string(self.out.join(format!("{n}.eml"))).expect("eml");
            found.push((serde_json::from_slice(&json).expect("json"), message));
        }
        found
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const MESSAGE: &str = "From: Referee <referee@pbem.test>\r\nTo: ann@pbem.test\r\nSubject: [pbem row-1] Turn 1\r\n\r\nYour move.\r\n";

fn send(spec: &str, options: &Options) -> Result<(), String> {
    Transport::with_options(spec, options)
        .map_err(|e| e.to_string())?
        .send_raw(
            "referee@pbem.test",
            &["ann@pbem.test".to_string()],
            MESSAGE.as_bytes(),
        )
        .map_err(|e| e.to_string())
}

fn with_ca(certs: &Certificates) -> Options {
    Options {
        ca_file: Some(certs.ca.clone()),
        timeout: Some(Duration::from_secs(10)),
        password: None,
    }
}

#[test]
fn starttls_when_offered_verified_with_ca_file_and_login_over_it() {
    let dir = tempfile::tempdir().expect("dir");
    let certs = make_certificates(&dir.path().join("certs"));
    let server = Server::start(
        dir.path(),
        &certs,
        "starttls",
        Some(("ann@pbem.test", "pa:ss/w?rd", "PLAIN")),
    );
    // smtp:// without ?tls: STARTTLS because the server offers it; AUTH PLAIN over it.
    let url = format!(
        "smtp://ann%40pbem.test:pa%3Ass%2Fw%3Frd@localhost:{}",
        server.port
    );
    send(&url, &with_ca(&certs)).expect("sent");
    let received = server.received();
    assert_eq!(received.len(), 1);
    let (how, message) = &received[0];
    assert_eq!(how["tls"], true, "{how}");
    assert_eq!(how["user"], "ann@pbem.test", "{how}");
    assert_eq!(how["mechanism"], "PLAIN", "{how}");
    assert_eq!(how["to"], serde_json::json!(["ann@pbem.test"]));
    assert!(message.contains("Your move."));

    // The same URL without the CA: the certificate is not trusted, and the error says
    // what to do, without the password.
    let options = Options {
        ca_file: None,
        ..with_ca(&certs)
    };
    let error = send(&url, &options).expect_err("an unknown issuer");
    assert!(error.contains("ca_file"), "{error}");
    assert!(
        error.contains(&format!("localhost:{}", server.port)),
        "{error}"
    );
    assert!(
        !error.contains("pa:ss") && !error.contains("pa%3Ass"),
        "{error}"
    );
    assert_eq!(server.received().len(), 1, "nothing sent unverified");
}

#[test]
fn starttls_required_with_login_and_a_password_from_elsewhere() {
    let dir = tempfile::tempdir().expect("dir");
    let certs = make_certificates(&dir.path().join("certs"));
    let server = Server::start(
        dir.path(),
        &certs,
        "starttls",
        Some(("ref", "t0ken", "LOGIN")),
    );
    let options = Options {
        password: Some("t0ken".into()),
        ..with_ca(&certs)
    };
    let url = format!("smtp://ref@127.0.0.1:{}?tls=required", server.port);
    send(&url, &options).expect("sent");
    let received = server.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].0["tls"], true);
    assert_eq!(received[0].0["mechanism"], "LOGIN");
    // A wrong password: refused, and the error does not repeat it.
    let options = Options {
        password: Some("wr0ng-t0ken".into()),
        ..with_ca(&certs)
    };
    let error = send(&url, &options).expect_err("refused");
    assert!(error.contains("535"), "the server's refusal: {error}");
    assert!(
        error.starts_with("could not send through"),
        "a refused login is about every message: it stops the sending, never sets one aside: {error}"
    );
    assert!(!error.contains("wr0ng-t0ken"), "{error}");
    assert!(
        error.contains(&format!("127.0.0.1:{}", server.port)),
        "{error}"
    );
    // It says what to check, and never calls the refusal "permanent": the mail waits.
    assert!(!error.to_ascii_lowercase().contains("permanent"), "{error}");
    assert!(error.contains("did not accept the login of ref"), "{error}");
    assert!(
        error.contains("password_file") && error.contains("PBEM_SMTP_PASSWORD"),
        "{error}"
    );
    assert!(error.contains("stays in the outbox"), "{error}");
}

#[test]
fn smtps_is_tls_from_the_first_byte() {
    let dir = tempfile::tempdir().expect("dir");
    let certs = make_certificates(&dir.path().join("certs"));
    let server = Server::start(
        dir.path(),
        &certs,
        "smtps",
        Some(("ref", "t0ken", "PLAIN,LOGIN")),
    );
    send(
        &format!("smtps://ref:t0ken@localhost:{}", server.port),
        &with_ca(&certs),
    )
    .expect("sent");
    let received = server.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].0["tls"], true);
    assert_eq!(received[0].0["user"], "ref");
}

#[test]
fn a_server_without_starttls_gets_plain_mail_but_required_tls_sends_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let certs = make_certificates(&dir.path().join("certs"));
    let server = Server::start(dir.path(), &certs, "plain", None);
    send(
        &format!("smtp://127.0.0.1:{}", server.port),
        &with_ca(&certs),
    )
    .expect("sent");
    assert_eq!(server.received()[0].0["tls"], false);
    let error = send(
        &format!("smtp://127.0.0.1:{}?tls=required", server.port),
        &with_ca(&certs),
    )
    .expect_err("no STARTTLS");
    assert!(error.contains("STARTTLS"), "{error}");
    assert_eq!(server.received().len(), 1);
}

#[test]
fn a_server_that_never_answers_times_out() {
    // Accepts connections (the kernel does, from the backlog) and never says a word.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let options = Options {
        timeout: Some(Duration::from_secs(1)),
        ..Options::default()
    };
    let started = Instant::now();
    let error = send(&format!("smtp://127.0.0.1:{port}"), &options).expect_err("no answer");
    assert!(error.contains("timed out"), "{error}");
    assert!(error.contains(&format!("127.0.0.1:{port}")), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    drop(listener);
}

#[cfg(unix)]
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

#[cfg(unix)]
#[test]
fn a_sendmail_command_gets_the_envelope_and_its_failures_are_named() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("out");
    let good = script(
        dir.path(),
        "good-sendmail",
        &format!("echo \"$@\" > {0}.args\ncat > {0}.eml", out.display()),
    );
    send(&format!("sendmail:{}", good.display()), &Options::default()).expect("sent");
    assert_eq!(
        std::fs::read_to_string(out.with_extension("args"))
            .expect("args")
            .trim(),
        "-i -f referee@pbem.test -- ann@pbem.test"
    );
    assert_eq!(
        std::fs::read_to_string(out.with_extension("eml")).expect("eml"),
        MESSAGE
    );

    let failing = script(
        dir.path(),
        "failing-sendmail",
        "cat >/dev/null\necho 'postdrop: warning: queue full' >&2\nexit 75",
    );
    let error = send(
        &format!("sendmail:{}", failing.display()),
        &Options::default(),
    )
    .expect_err("fails");
    assert!(error.contains(&failing.display().to_string()), "{error}");
    assert!(error.contains("75"), "{error}");
    assert!(error.contains("queue full"), "{error}");

    let missing = dir.path().join("no-such-sendmail");
    let error = send(
        &format!("sendmail:{}", missing.display()),
        &Options::default(),
    )
    .expect_err("missing");
    assert!(error.contains(&missing.display().to_string()), "{error}");

    let hanging = script(dir.path(), "hanging-sendmail", "exec sleep 60");
    let options = Options {
        timeout: Some(Duration::from_secs(1)),
        ..Options::default()
    };
    let started = Instant::now();
    let error = send(&format!("sendmail:{}", hanging.display()), &options).expect_err("hangs");
    assert!(error.contains("timed out"), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
