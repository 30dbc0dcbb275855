//! Where outgoing mail goes: SMTP (STARTTLS or TLS, and login), a sendmail command, or
//! a folder of .eml files for dry runs. Chosen by `--smtp`, PBEM_SMTP, or
//! `smtp = "..."` in PBEM_HOME/config.toml, in that order.
//!
//! SMTP servers are verified against the system's trust store (on Debian,
//! /etc/ssl/certs, kept by `update-ca-certificates`) plus the `ca_file` of `[mail]`.
//! Every connection, command and sendmail run is bounded by a timeout
//! ([`DEFAULT_TIMEOUT`], or `timeout` in `[mail]`).
//!
//! Transport specs may hold a password (`smtp://user:token@host:587`); it can also come
//! from PBEM_SMTP_PASSWORD or `password_file`. It is never printed: [`Transport`]'s
//! Debug and every error show the host only, and it is never passed to a command.
//!
//! A failure to send is one of two kinds. An SMTP server's refusal for good (a 5xx
//! answer) of a recipient or of the message itself is [`MailError::Refused`]: sending
//! that message again will not help, and it must not hold up the mail behind it.
//! Anything else (no connection, a timeout, TLS, a refused login or sender, a 4xx
//! answer, a failed sendmail command) is [`MailError::Send`]: it is about every
//! message alike, so the caller stops and tries again later.

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use lettre::address::Envelope;
use lettre::transport::file::FileTransport;
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
use lettre::transport::smtp::client::{Certificate, SmtpConnection, TlsParameters};
use lettre::transport::smtp::commands::{Data, Mail, Rcpt};
use lettre::transport::smtp::extension::{ClientId, Extension, MailBodyParameter, MailParameter};
use lettre::{Address, Transport as _};

use super::server_url::{self, ServerUrl};
use crate::basics::store;
use crate::mail::MailError;

/// The most of a `ca_file` pbem reads: a system's whole bundle of certificates is
/// a few hundred KB.
pub(crate) const MAX_CA_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// How long pbem waits for an SMTP server to accept a connection or answer a command,
/// and for a sendmail command to finish, unless `timeout` in `[mail]` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);

/// Where `sendmail` is looked for after PATH: a mail server's pipe and cron give
/// commands a PATH without /usr/sbin.
pub const SENDMAIL_PLACES: &[&str] = &[
    "/usr/sbin/sendmail",
    "/usr/lib/sendmail",
    "/usr/bin/sendmail",
    "/usr/local/sbin/sendmail",
];

/// What a transport is built with besides its spec.
#[derive(Clone, Default)]
pub struct Options {
    /// A PEM file of CA certificates trusted besides the system's.
    pub ca_file: Option<PathBuf>,
    /// Connect, command and sendmail timeout ([`DEFAULT_TIMEOUT`] when `None`).
    pub timeout: Option<Duration>,
    /// The SMTP password when the URL names a user but no password.
    pub password: Option<String>,
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("ca_file", &self.ca_file)
            .field("timeout", &self.timeout)
            .field("password", &self.password.as_ref().map(|_| "(hidden)"))
            .finish()
    }
}

/// A way to send mail.
pub enum Transport {
    Smtp(Box<Smtp>),
    Sendmail(Sendmail),
    Folder(PathBuf),
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Smtp(smtp) => write!(f, "SMTP to {}", smtp.shown_host()),
            Transport::Sendmail(Sendmail { command: None, .. }) => f.write_str("sendmail"),
            Transport::Sendmail(Sendmail {
                command: Some(path),
                ..
            }) => write!(f, "sendmail ({})", path.display()),
            Transport::Folder(dir) => write!(f, "the folder {}", dir.display()),
        }
    }
}

/// How an SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// `smtps://`: TLS from the first byte.
    Implicit,
    /// `?tls=required`: STARTTLS, or nothing is sent.
    StartTls,
    /// `smtp://` (or `?tls=opportunistic`): STARTTLS when the server offers it.
    Opportunistic,
    /// `?tls=none`: plain text, for a server on this machine.
    None,
}

/// An SMTP server to send through, read from its URL.
pub struct Smtp {
    pub host: String,
    pub port: u16,
    pub security: Security,
    user: Option<String>,
    password: Option<String>,
    hello: Option<String>,
    ca_file: Option<PathBuf>,
    timeout: Duration,
    /// Built on first use: loading the system's trust store costs a few milliseconds
    /// that a run with nothing to send should not pay.
    tls: OnceLock<TlsParameters>,
}

/// Why one message did not go (see the module documentation).
enum NotSent {
    /// About every message alike: stop, keep the order, try again later.
    Stop(String),
    /// Refused for good: these recipients did not get it (the others did), and the
    /// server's answer.
    Refused {
        recipients: Vec<String>,
        answer: String,
    },
}

/// Why a check of a mail server (`pbem setup`) failed, in words without the password.
#[derive(Debug)]
pub enum CheckError {
    /// The server was not reached, or did not answer in time: a wrong host or port, or
    /// the server or the network down (trying again later may do).
    Unreachable(String),
    /// The server answered, but refused what pbem was set up to do (TLS not trusted, a
    /// login refused, a mailbox missing), or the settings are not usable.
    Setup(String),
}

impl CheckError {
    /// What went wrong, whichever it was.
    pub fn into_text(self) -> String {
        match self {
            CheckError::Unreachable(text) | CheckError::Setup(text) => text,
        }
    }
}

/// An SMTP connection greeted and secured by [`Smtp::check_greeting`].
pub struct Greeted {
    connection: SmtpConnection,
    /// "TLS", "STARTTLS" or "no TLS".
    pub secured: &'static str,
}

impl Smtp {
    fn shown_host(&self) -> String {
        server_url::shown_host(&self.host, self.port)
    }

    /// Whether the server is this machine.
    fn is_loopback(&self) -> bool {
        server_url::is_loopback(&self.host)
    }

    /// Reads `smtp[s]://[user[:password]@]host[:port][/ehlo-name][?tls=...]`.
    fn parse(spec: &str, options: &Options) -> Result<Smtp, MailError> {
        let invalid = |why: &str, shown: &str| {
            MailError::Config(format!(
                "the SMTP URL for {shown} is not valid ({why}); write it as smtp://host, smtp://user:password@host:587?tls=required or smtps://user:password@host"
            ))
        };
        let url = ServerUrl::parse(spec, invalid)?;
        let invalid = |why: &str| invalid(why, &url.host);
        let hello = Some(url.path.clone()).filter(|p| !p.is_empty());
        let mut tls = None;
        for (name, value) in &url.query {
            match name.as_str() {
                "tls" => tls = Some(value.to_ascii_lowercase()),
                _ => {
                    return Err(invalid(
                        "the only option is ?tls=required, ?tls=opportunistic or ?tls=none",
                    ))
                }
            }
        }
        let (scheme, host, port, user) = (
            url.scheme.as_str(),
            url.host.clone(),
            url.port,
            url.user.clone(),
        );
        let password = url.password.clone();
        let password = password.or_else(|| options.password.clone());
        let (security, default_port) = match (scheme, tls.as_deref()) {
            ("smtps", None) => (Security::Implicit, 465),
            ("smtp", None) => (Security::Opportunistic, 25),
            ("smtp", Some("required")) => (Security::StartTls, 587),
            ("smtp", Some("opportunistic")) => (Security::Opportunistic, 587),
            ("smtp", Some("none")) => (Security::None, 25),
            _ => {
                return Err(invalid(
                    "the scheme is smtp or smtps; ?tls= is required, opportunistic or none",
                ))
            }
        };
        let mut smtp = Smtp {
            host,
            port: port.unwrap_or(default_port),
            security,
            user,
            password,
            hello,
            ca_file: options.ca_file.clone(),
            timeout: options.timeout.unwrap_or(DEFAULT_TIMEOUT),
            tls: OnceLock::new(),
        };
        if smtp.user.is_some() && smtp.password.is_none() {
            return Err(MailError::Config(format!(
                "the SMTP URL for {} names a user but no password: put it in the URL, in PBEM_SMTP_PASSWORD, or in a file named by password_file under [mail]",
                smtp.shown_host()
            )));
        }
        if smtp.user.is_some() && !smtp.is_loopback() {
            // A password never crosses the network in clear: STARTTLS becomes required.
            match smtp.security {
                Security::Opportunistic => smtp.security = Security::StartTls,
                Security::None => {
                    return Err(MailError::Config(format!(
                        "?tls=none would send the password for {} in clear; use ?tls=required or smtps://",
                        smtp.shown_host()
                    )))
                }
                Security::Implicit | Security::StartTls => {}
            }
        }
        Ok(smtp)
    }

    fn tls_parameters(&self) -> Result<TlsParameters, String> {
        let mut builder = TlsParameters::builder(self.host.clone());
        if let Some(path) = &self.ca_file {
            let pem = store::read_limited(path, MAX_CA_FILE_BYTES)
                .map_err(|error| format!("cannot read ca_file {}: {error}", path.display()))?;
            if !pem.windows(27).any(|w| w == b"-----BEGIN CERTIFICATE-----") {
                return Err(format!(
                    "ca_file {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                    path.display()
                ));
            }
            let certificate = Certificate::from_pem(&pem)
                .map_err(|error| format!("ca_file {} is not valid PEM: {error}", path.display()))?;
            builder = builder.add_root_certificate(certificate);
        }
        builder
            .build_rustls()
            .map_err(|error| format!("cannot set up TLS: {error}"))
    }

    fn tls(&self) -> Result<&TlsParameters, String> {
        if let Some(built) = self.tls.get() {
            return Ok(built);
        }
        let built = self.tls_parameters()?;
        Ok(self.tls.get_or_init(|| built))
    }

    /// A connection greeted, secured as the URL asks, and logged in. lettre's own
    /// transport does the same, but sends a message in one step that cannot tell a
    /// refused recipient from a refused login or sender.
    fn connect(&self) -> Result<SmtpConnection, String> {
        let mut connection = self.greet().map_err(CheckError::into_text)?;
        self.log_in(&mut connection)
            .map_err(CheckError::into_text)?;
        Ok(connection)
    }

    /// A connection greeted (EHLO) and secured as the URL asks, not logged in yet.
    fn greet(&self) -> Result<SmtpConnection, CheckError> {
        let hello = self
            .hello
            .clone()
            .map_or_else(ClientId::default, ClientId::Domain);
        let wrapper = match self.security {
            Security::Implicit => Some(self.tls().map_err(CheckError::Setup)?),
            _ => None,
        };
        let explain = |error: lettre::transport::smtp::Error| self.checked(&error);
        let mut connection = SmtpConnection::connect(
            (self.host.as_str(), self.port),
            Some(self.timeout),
            &hello,
            wrapper,
            None,
        )
        .map_err(explain)?;
        let starttls = match self.security {
            Security::StartTls => true,
            Security::Opportunistic => connection.can_starttls(),
            Security::Implicit | Security::None => false,
        };
        if starttls {
            let parameters = self.tls().map_err(CheckError::Setup)?;
            connection.starttls(parameters, &hello).map_err(explain)?;
        }
        Ok(connection)
    }

    /// Logs in on a greeted connection, when the URL names a user.
    fn log_in(&self, connection: &mut SmtpConnection) -> Result<(), CheckError> {
        if let (Some(user), Some(password)) = (&self.user, &self.password) {
            let credentials = Credentials::new(user.clone(), password.clone());
            connection
                .auth(DEFAULT_MECHANISMS, &credentials)
                .map_err(|error| match error.status() {
                    Some(_) => CheckError::Setup(self.explain_login(user, &error)),
                    None => self.checked(&error),
                })?;
        }
        Ok(())
    }

    /// For `pbem setup`: connects, greets and secures the connection as the URL asks,
    /// and says how it is secured ("TLS", "STARTTLS" or "no TLS").
    ///
    /// # Errors
    /// The server was not reached or did not answer in time, or TLS failed.
    pub fn check_greeting(&self) -> Result<Greeted, CheckError> {
        let connection = self.greet()?;
        let secured = match self.security {
            Security::Implicit => "TLS",
            _ if connection.is_encrypted() => "STARTTLS",
            _ => "no TLS",
        };
        Ok(Greeted {
            connection,
            secured,
        })
    }

    /// For `pbem setup`: logs in on the connection [`Smtp::check_greeting`] opened
    /// (nothing to do when the URL names no user), then says goodbye.
    ///
    /// # Errors
    /// The login was refused, or the server stopped answering.
    pub fn check_login(&self, mut greeted: Greeted) -> Result<(), CheckError> {
        let result = self.log_in(&mut greeted.connection);
        greeted.connection.abort();
        result
    }

    /// `host:port`, as every message shows the server.
    pub fn server(&self) -> String {
        self.shown_host()
    }

    /// The user the URL names, if any.
    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// `text` with this server's password blanked in every form.
    pub fn blanked(&self, text: &str) -> String {
        self.without_password(text)
    }

    fn send(&self, envelope: &Envelope, raw: &[u8]) -> Result<(), NotSent> {
        let mut connection = self.connect().map_err(NotSent::Stop)?;
        let result = self.transact(&mut connection, envelope, raw);
        // QUIT, whatever happened: the connection is not used again.
        connection.abort();
        result
    }

    /// One mail transaction: MAIL, RCPT for each recipient, DATA. A refusal of the
    /// sender is about every message (stop); a recipient refused for good is left out
    /// and the message goes to the others; a message refused for good at DATA is
    /// refused for all its recipients.
    fn transact(
        &self,
        connection: &mut SmtpConnection,
        envelope: &Envelope,
        raw: &[u8],
    ) -> Result<(), NotSent> {
        let stop = |error: lettre::transport::smtp::Error| NotSent::Stop(self.explain(&error));
        let everyone: Vec<String> = envelope.to().iter().map(ToString::to_string).collect();
        let utf8 = connection
            .server_info()
            .supports_feature(Extension::SmtpUtfEight);
        let sender = envelope.from().map(ToString::to_string).unwrap_or_default();
        if !sender.is_ascii() && !utf8 {
            return Err(NotSent::Stop(format!(
                "{} does not take the non-ASCII sender address {sender} (no SMTPUTF8)",
                self.shown_host()
            )));
        }
        let mut parameters = Vec::new();
        if utf8 && !(sender.is_ascii() && everyone.iter().all(|to| to.is_ascii())) {
            parameters.push(MailParameter::SmtpUtfEight);
        }
        if !raw.is_ascii() {
            if !connection
                .server_info()
                .supports_feature(Extension::EightBitMime)
            {
                return Err(NotSent::Refused {
                    recipients: everyone,
                    answer: "the server takes no 8-bit message (no 8BITMIME)".into(),
                });
            }
            parameters.push(MailParameter::Body(MailBodyParameter::EightBitMime));
        }
        connection
            .command(Mail::new(envelope.from().cloned(), parameters))
            .map_err(stop)?;
        let mut refused: Vec<(String, String)> = Vec::new();
        for to in envelope.to() {
            let shown = to.to_string();
            if !shown.is_ascii() && !utf8 {
                refused.push((
                    shown,
                    "the server takes no non-ASCII address (no SMTPUTF8)".into(),
                ));
                continue;
            }
            match connection.command(Rcpt::new(to.clone(), Vec::new())) {
                Ok(_) => {}
                Err(error) if is_refused_for_good(&error) => {
                    refused.push((shown, self.answer(&error)));
                }
                Err(error) => return Err(stop(error)),
            }
        }
        let answers = || match refused.as_slice() {
            [(_, answer)] => answer.clone(),
            all => all
                .iter()
                .map(|(to, answer)| format!("{to}: {answer}"))
                .collect::<Vec<_>>()
                .join("; "),
        };
        if refused.len() == everyone.len() {
            return Err(NotSent::Refused {
                recipients: everyone,
                answer: answers(),
            });
        }
        let whole_message = |error: lettre::transport::smtp::Error| {
            if is_refused_for_good(&error) {
                NotSent::Refused {
                    recipients: everyone.clone(),
                    answer: self.answer(&error),
                }
            } else {
                stop(error)
            }
        };
        connection.command(Data).map_err(whole_message)?;
        connection.message(raw).map_err(whole_message)?;
        if refused.is_empty() {
            return Ok(());
        }
        Err(NotSent::Refused {
            recipients: refused.iter().map(|(to, _)| to.clone()).collect(),
            answer: answers(),
        })
    }

    /// The server's answer to a command, as it said it (code and text, on one line and
    /// not too long), without the password.
    fn answer(&self, error: &lettre::transport::smtp::Error) -> String {
        let text = match (error.status(), std::error::Error::source(error)) {
            (Some(code), Some(said)) => format!("{code} {said}"),
            _ => error.to_string(),
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = if text.chars().count() > 300 {
            format!("{}...", text.chars().take(300).collect::<String>())
        } else {
            text
        };
        self.without_password(&text)
    }

    /// `text` with the password blanked in every form a server may echo it in: as
    /// sent, quoted, or base64 as AUTH PLAIN and LOGIN send it.
    fn without_password(&self, text: &str) -> String {
        match &self.password {
            Some(password) => {
                let user = self.user.as_deref().unwrap_or_default();
                server_url::without_password(text, &server_url::password_forms(user, password))
            }
            None => text.to_string(),
        }
    }

    /// A refused login, in words a referee can act on: it is the referee's setup, not
    /// the message, so the mail waits (lettre calls any 5xx "permanent"), and the
    /// user and password are what to check. Never the password itself.
    fn explain_login(&self, user: &str, error: &lettre::transport::smtp::Error) -> String {
        if error.status().is_none() {
            return self.explain(error);
        }
        format!(
            "{} did not accept the login of {user}: it answered {}; check the user in the SMTP URL and the password (PBEM_SMTP_PASSWORD, or the first line of password_file under [mail]; many hosted mailboxes want an app password)",
            self.shown_host(),
            self.answer(error)
        )
    }

    /// [`Smtp::explain`], with whether the server was not reached (or did not answer
    /// in time) rather than refused what pbem was set up to do: a wrong host or port
    /// looks the same as a server that is down, so both are said.
    fn checked(&self, error: &lettre::transport::smtp::Error) -> CheckError {
        let text = self.explain(error);
        let words = error.to_string().to_ascii_lowercase();
        let tls = error.is_tls() || words.contains("certificate") || words.contains("handshake");
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
        let mut io = false;
        while let Some(cause) = source {
            io |= cause.downcast_ref::<std::io::Error>().is_some();
            source = cause.source();
        }
        if io && !tls {
            CheckError::Unreachable(text)
        } else {
            CheckError::Setup(text)
        }
    }

    /// What went wrong, in words a referee can act on, without the password.
    fn explain(&self, error: &lettre::transport::smtp::Error) -> String {
        let host = self.shown_host();
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
        let mut timed_out = false;
        while let Some(cause) = source {
            if let Some(io) = cause.downcast_ref::<std::io::Error>() {
                timed_out |= matches!(
                    io.kind(),
                    std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                );
            }
            source = cause.source();
        }
        let text = if timed_out {
            format!(
                "timed out: {host} did not answer within {} s ({error})",
                self.timeout.as_secs_f64()
            )
        } else if error.is_tls() || {
            // A handshake refused by rustls comes as a network error.
            let words = error.to_string().to_ascii_lowercase();
            words.contains("certificate") || words.contains("handshake")
        } {
            let trust = match &self.ca_file {
                Some(path) => format!("the system's trust store or {}", path.display()),
                None => "the system's trust store".to_string(),
            };
            format!(
                "{error}; TLS with {host} failed: if its certificate is not signed by a CA in {trust}, add that CA with update-ca-certificates or name its PEM file with ca_file under [mail] (a self-signed server certificate is not a CA: sign it with one)"
            )
        } else {
            error.to_string()
        };
        self.without_password(&text)
    }
}

/// Whether a negative answer to RCPT or DATA refuses this message for good: a 5xx,
/// unless it says the server will not take mail from pbem at all (a login required,
/// relaying denied). Those are the referee's setup, alike for every message: setting
/// each message aside would empty the queue, so they stop the sending instead.
fn is_refused_for_good(error: &lettre::transport::smtp::Error) -> bool {
    if !error.is_permanent() {
        return false;
    }
    let said = error.to_string().to_ascii_lowercase();
    let login_required = error.status().is_some_and(|code| code.to_string() == "530");
    !(login_required || said.contains("relay"))
}

/// A sendmail command: named, or looked for in PATH and then in [`SENDMAIL_PLACES`].
pub struct Sendmail {
    pub command: Option<PathBuf>,
    timeout: Duration,
}

impl Sendmail {
    /// The command to run, or what was looked at.
    fn find(&self) -> Result<PathBuf, String> {
        match &self.command {
            Some(path) => Ok(path.clone()),
            None => find_sendmail(std::env::var_os("PATH"), SENDMAIL_PLACES),
        }
    }

    /// Runs `sendmail -i -f FROM -- TO...` with the message on standard input.
    fn send(&self, envelope: &Envelope, raw: &[u8]) -> Result<(), String> {
        let path = self.find()?;
        let shown = path.display().to_string();
        let (mut reader, writer) =
            std::io::pipe().map_err(|error| format!("cannot run {shown}: {error}"))?;
        let writer_too = writer
            .try_clone()
            .map_err(|error| format!("cannot run {shown}: {error}"))?;
        let mut command = Command::new(&path);
        command.arg("-i");
        if let Some(from) = envelope.from() {
            command.arg("-f").arg(from);
        }
        command
            .arg("--")
            .args(envelope.to().iter().map(ToString::to_string))
            .stdin(Stdio::piped())
            .stdout(writer)
            .stderr(writer_too);
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot run {shown}: {error}"))?;
        // The pipe's write ends now belong to the child alone, so reading ends when it
        // (and whatever it started) is done.
        drop(command);
        let (sent, output) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = reader.read_to_end(&mut text);
            let _ = sent.send(text);
        });
        if let Some(mut stdin) = child.stdin.take() {
            let message = raw.to_vec();
            // A command that exits without reading its input is judged by its exit
            // status, not by the broken pipe.
            std::thread::spawn(move || {
                let _ = stdin.write_all(&message);
            });
        }
        let deadline = Instant::now() + self.timeout;
        let mut pause = Duration::from_millis(1);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(25));
                }
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "timed out: {shown} did not finish within {} s and was stopped",
                        self.timeout.as_secs_f64()
                    ));
                }
                Err(error) => return Err(format!("cannot wait for {shown}: {error}")),
            }
        };
        // What it said; something it left running may hold the pipe open, so not long.
        let text = output
            .recv_timeout(Duration::from_secs(1))
            .unwrap_or_default();
        if status.success() {
            return Ok(());
        }
        let said = String::from_utf8_lossy(&text);
        let gist: String = said
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" / ");
        let gist = if gist.chars().count() > 300 {
            format!("{}...", gist.chars().take(300).collect::<String>())
        } else {
            gist
        };
        Err(if gist.is_empty() {
            format!("{shown} failed ({status})")
        } else {
            format!("{shown} failed ({status}): {gist}")
        })
    }
}

/// The first executable `sendmail` in the folders of `path_var`, else in `places`.
fn find_sendmail(path_var: Option<std::ffi::OsString>, places: &[&str]) -> Result<PathBuf, String> {
    let in_path: Vec<PathBuf> = path_var
        .as_ref()
        .map(|paths| {
            std::env::split_paths(paths)
                .filter(|dir| dir.is_absolute())
                .map(|dir| dir.join("sendmail"))
                .collect()
        })
        .unwrap_or_default();
    in_path
        .into_iter()
        .chain(places.iter().map(PathBuf::from))
        .find(|path| is_executable(path))
        .ok_or_else(|| {
            format!(
                "no sendmail command found in PATH ({}) nor at {}; install a mail server (Debian: apt-get install postfix) or name the command: sendmail:/path/to/sendmail",
                path_var.unwrap_or_default().to_string_lossy(),
                places.join(", ")
            )
        })
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

impl Transport {
    /// Reads a transport spec with no `[mail]` options: see [`Transport::with_options`].
    ///
    /// # Errors
    /// A spec of none of the accepted forms.
    pub fn parse(spec: &str) -> Result<Transport, MailError> {
        Transport::with_options(spec, &Options::default())
    }

    /// Reads a transport spec: `smtp://[user[:password]@]host[:port][?tls=...]`
    /// (STARTTLS when offered; `?tls=required` insists on it, `?tls=none` never tries
    /// it), `smtps://...` (TLS from the start), `sendmail` (looked for in PATH, then in
    /// [`SENDMAIL_PLACES`]) or `sendmail:/path/to/sendmail`, `folder:DIR`. With a user,
    /// STARTTLS is required unless the server is this machine.
    ///
    /// # Errors
    /// A spec of none of these forms, or a user with no password.
    pub fn with_options(spec: &str, options: &Options) -> Result<Transport, MailError> {
        let spec = spec.trim();
        let timeout = options.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let lower = spec.to_ascii_lowercase();
        if lower.starts_with("smtp://") || lower.starts_with("smtps://") {
            return Ok(Transport::Smtp(Box::new(Smtp::parse(spec, options)?)));
        }
        if spec == "sendmail" {
            return Ok(Transport::Sendmail(Sendmail {
                command: None,
                timeout,
            }));
        }
        if let Some(command) = spec.strip_prefix("sendmail:") {
            return Ok(Transport::Sendmail(Sendmail {
                command: Some(PathBuf::from(command)),
                timeout,
            }));
        }
        if let Some(dir) = spec.strip_prefix("folder:") {
            return Ok(Transport::Folder(PathBuf::from(dir)));
        }
        Err(MailError::Config(
            "a mail transport is smtp://host, smtp://user:password@host:587?tls=required, smtps://..., sendmail, sendmail:/path or folder:DIR".into(),
        ))
    }

    /// Sends one message, already formatted, to `to` with envelope sender `from`.
    ///
    /// # Errors
    /// [`MailError::Refused`] when an SMTP server refused it for good for some or all
    /// of `to` (it went to the others), or a recipient is no address at all;
    /// [`MailError::Send`] when the server, command or folder failed or did not answer
    /// in time, [`MailError::Config`] for a sender that is no address: the message is
    /// then still wherever the caller kept it.
    pub fn send_raw(&self, from: &str, to: &[String], raw: &[u8]) -> Result<(), MailError> {
        let transport = format!("{self:?}");
        let parse = |text: &str| text.parse::<Address>().ok();
        let Some(sender) = parse(from) else {
            return Err(MailError::Config(format!("{from:?} is not a mail address")));
        };
        let Some(recipients) = to.iter().map(|t| parse(t)).collect::<Option<Vec<_>>>() else {
            // No server would take it, today or later.
            let bad: Vec<&String> = to.iter().filter(|t| parse(t).is_none()).collect();
            return Err(MailError::Refused {
                transport,
                recipients: to.to_vec(),
                answer: format!("{bad:?} is not a mail address"),
            });
        };
        let envelope = Envelope::new(Some(sender), recipients)
            .map_err(|error| MailError::Config(format!("no envelope: {error}")))?;
        let failed = |error: String| MailError::Send {
            transport: transport.clone(),
            error,
        };
        match self {
            Transport::Smtp(smtp) => smtp
                .send(&envelope, raw)
                .map_err(|not_sent| match not_sent {
                    NotSent::Stop(error) => failed(error),
                    NotSent::Refused { recipients, answer } => MailError::Refused {
                        transport: transport.clone(),
                        recipients,
                        answer,
                    },
                }),
            // A sendmail command queues the message and mails any bounce itself, so
            // its failure is about the command or the machine, never one recipient.
            Transport::Sendmail(sendmail) => sendmail.send(&envelope, raw).map_err(failed),
            Transport::Folder(dir) => {
                std::fs::create_dir_all(dir).map_err(|error| failed(error.to_string()))?;
                FileTransport::new(dir)
                    .send_raw(&envelope, raw)
                    .map(drop)
                    .map_err(|error| failed(error.to_string()))
            }
        }
    }
}

/// The referee's mail settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailSettings {
    /// The transport spec ([`Transport::with_options`]).
    pub smtp: Option<String>,
    /// The referee's address, as `Name <address>` or an address.
    pub from: Option<String>,
    /// A folder of templates that replace the built-in ones, file by file.
    pub templates: Option<PathBuf>,
    /// Attach the signed game file to every turn notice, so any player can audit.
    #[serde(default)]
    pub attach_game: bool,
    /// `pictures = false` leaves the board's picture out of every game's mail; by
    /// default turn notices, confirmations and the end mail carry it (see
    /// [`MailSettings::pictures_on`]), unless a game or a player turned them off.
    pub pictures: Option<bool>,
    /// A PEM file of CA certificates to trust besides the system's trust store.
    pub ca_file: Option<PathBuf>,
    /// A file holding the SMTP password (its first line), for a URL with a user and no
    /// password; PBEM_SMTP_PASSWORD wins over it. The IMAP mailbox's password too,
    /// unless PBEM_IMAP_PASSWORD is set.
    pub password_file: Option<PathBuf>,
    /// The IMAP mailbox players' mail is read from (`inbox --imap`, `watch`):
    /// `imaps://user@host/INBOX`.
    pub imap: Option<String>,
    /// The SMTP connect and command timeout, and a sendmail run's: `15s`, `2m`, or a
    /// number of seconds.
    #[serde(default, deserialize_with = "timeout_setting")]
    pub timeout: Option<Duration>,
}

/// Reads `timeout = "30s"`, `"2m"` or `30` (seconds).
fn timeout_setting<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Duration>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Value {
        Seconds(u64),
        Text(String),
    }
    let value = <Option<Value> as serde::Deserialize>::deserialize(deserializer)?;
    match value {
        None => Ok(None),
        Some(Value::Seconds(seconds)) => Ok(Some(Duration::from_secs(seconds))),
        Some(Value::Text(text)) => parse_timeout(&text)
            .map(Some)
            .map_err(serde::de::Error::custom),
    }
}

/// `15s`, `2m`, `500ms` or a bare number of seconds; more than zero.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let duration = crate::basics::duration::parse(text, Duration::from_secs(1)).map_err(|_| {
        format!(
            "timeout {:?} is not a duration; write 15s, 2m or 500ms",
            text.trim()
        )
    })?;
    if duration.is_zero() {
        return Err(format!("timeout {:?} must be more than zero", text.trim()));
    }
    Ok(duration)
}

#[derive(serde::Deserialize, Default)]
struct ConfigFile {
    #[serde(default)]
    mail: MailSettings,
}

impl MailSettings {
    /// Whether mail may carry the board's picture at all.
    pub fn pictures_on(&self) -> bool {
        self.pictures != Some(false)
    }

    /// Settings from `PBEM_HOME/config.toml` (`[mail]` table), then PBEM_SMTP and
    /// PBEM_FROM over them, then `smtp` (a command-line flag) over all.
    ///
    /// # Errors
    /// The config file exists but is not valid.
    pub fn load(home: &Path, smtp: Option<&str>) -> Result<MailSettings, MailError> {
        let path = home.join("config.toml");
        let mut settings = match store::read_text_limited(&path, store::MAX_SMALL_FILE_BYTES) {
            Ok(text) => MailSettings::from_config(&text, &path)?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => MailSettings::default(),
            // A config that is there but unreadable (a fifo, a folder, too large) is a
            // fault to fix, not a reason to mail with other settings.
            Err(error) => return Err(MailError::io(&path)(error)),
        };
        if let Some(value) = std::env::var("PBEM_SMTP").ok().filter(|v| !v.is_empty()) {
            settings.smtp = Some(value);
        }
        if let Some(value) = std::env::var("PBEM_FROM").ok().filter(|v| !v.is_empty()) {
            settings.from = Some(value);
        }
        if let Some(value) = std::env::var("PBEM_IMAP").ok().filter(|v| !v.is_empty()) {
            settings.imap = Some(value);
        }
        if let Some(value) = smtp {
            settings.smtp = Some(value.to_string());
        }
        Ok(settings)
    }

    /// The `[mail]` table of `text`, the config file at `path` (named in errors), as
    /// it is written: no variable of the environment over it.
    ///
    /// # Errors
    /// The text is not a valid config file.
    pub fn from_config(text: &str, path: &Path) -> Result<MailSettings, MailError> {
        toml::from_str::<ConfigFile>(text)
            .map(|config| config.mail)
            .map_err(|error| {
                MailError::Config(format!(
                    "{} is not valid: {}",
                    path.display(),
                    error.message()
                ))
            })
    }

    /// The SMTP password from PBEM_SMTP_PASSWORD, else from `password_file`.
    fn password(&self) -> Result<Option<String>, MailError> {
        if let Some(value) = std::env::var("PBEM_SMTP_PASSWORD")
            .ok()
            .filter(|v| !v.is_empty())
        {
            return Ok(Some(value));
        }
        self.password_from_file()
    }

    /// The first line of `password_file`, if one is named.
    pub(crate) fn password_from_file(&self) -> Result<Option<String>, MailError> {
        let Some(path) = &self.password_file else {
            return Ok(None);
        };
        let text =
            store::read_text_limited(path, store::MAX_SMALL_FILE_BYTES).map_err(|error| {
                MailError::Config(format!(
                    "cannot read password_file {}: {error}",
                    path.display()
                ))
            })?;
        let line = text.lines().next().unwrap_or_default().to_string();
        if line.is_empty() {
            return Err(MailError::Config(format!(
                "password_file {} is empty",
                path.display()
            )));
        }
        Ok(Some(line))
    }

    /// The transport to send with.
    ///
    /// # Errors
    /// None is configured, the spec is not valid, or a password file cannot be read.
    pub fn transport(&self) -> Result<Transport, MailError> {
        match &self.smtp {
            Some(spec) => Transport::with_options(
                spec,
                &Options {
                    ca_file: self.ca_file.clone(),
                    timeout: self.timeout,
                    password: self.password()?,
                },
            ),
            None => Err(MailError::Config(
                "no mail transport: pass --smtp URL, set PBEM_SMTP, or put smtp = \"...\" under [mail] in PBEM_HOME/config.toml (folder:DIR for a dry run)".into(),
            )),
        }
    }

    /// The referee's From line.
    pub fn from_line(&self) -> String {
        self.from
            .clone()
            .unwrap_or_else(|| "pbem referee <referee@localhost>".to_string())
    }

    /// The referee's name from their From line (`Name <address>`), for mail to
    /// themselves; "referee" when it names none.
    pub fn from_name(&self) -> String {
        let line = self.from_line();
        line.split('<')
            .next()
            .map(|name| name.trim().trim_matches('"'))
            .filter(|name| !name.is_empty() && !name.contains('@'))
            .unwrap_or("referee")
            .to_string()
    }

    /// The referee's bare address (envelope sender).
    pub fn from_address(&self) -> String {
        address_of(&self.from_line())
    }

    /// The domain used in Message-IDs.
    pub fn domain(&self) -> String {
        let address = self.from_address();
        address
            .rsplit_once('@')
            .map_or("localhost".to_string(), |(_, d)| d.to_string())
    }
}

/// The address in `Name <address>` or a bare address, lowercase.
pub fn address_of(line: &str) -> String {
    let inner = match (line.rfind('<'), line.rfind('>')) {
        (Some(open), Some(close)) if open < close => &line[open + 1..close],
        _ => line,
    };
    inner.trim().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smtp(spec: &str) -> Smtp {
        match Transport::parse(spec).expect("valid") {
            Transport::Smtp(smtp) => *smtp,
            other => panic!("not SMTP: {other:?}"),
        }
    }

    #[test]
    fn an_echoed_password_is_blanked_in_every_form() {
        use base64::Engine as _;
        let smtp = smtp("smtp://ann:s3cr%22et@mail.example.org:587?tls=required");
        let plain = base64::engine::general_purpose::STANDARD.encode("\0ann\0s3cr\"et");
        let login = base64::engine::general_purpose::STANDARD.encode("s3cr\"et");
        for echoed in [
            "535 5.7.8 bad password s3cr\"et".to_string(),
            format!("535 5.7.8 AUTH PLAIN {plain} refused"),
            format!("535 5.7.8 {login}"),
            r#"535 "s3cr\"et""#.to_string(),
        ] {
            let shown = smtp.without_password(&echoed);
            for secret in [
                "s3cr",
                plain.trim_end_matches('='),
                login.trim_end_matches('='),
            ] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
        }
    }

    #[test]
    fn hosts_never_carry_credentials() {
        let transport =
            Transport::parse("smtp://ann:s3cret@mail.example.org:587?tls=required").expect("valid");
        assert_eq!(format!("{transport:?}"), "SMTP to mail.example.org:587");
        let transport = Transport::parse("smtp://ann:s3cret@127.0.0.1:2525").expect("valid");
        assert!(!format!("{transport:?}").contains("s3cret"));
        let error = Transport::parse("smtp://ann:s3cret@mail.example.org:port").expect_err("bad");
        assert!(!error.to_string().contains("s3cret"), "{error}");
        assert!(
            error.to_string().contains("mail.example.org:port"),
            "{error}"
        );
        let options = Options {
            password: Some("s3cret".into()),
            ..Options::default()
        };
        assert!(!format!("{options:?}").contains("s3cret"));
    }

    #[test]
    fn urls_say_how_to_secure_the_connection() {
        let plain = smtp("smtp://mail.example.org");
        assert_eq!(
            (plain.host.as_str(), plain.port, plain.security),
            ("mail.example.org", 25, Security::Opportunistic)
        );
        let required = smtp("smtp://mail.example.org?tls=required");
        assert_eq!(
            (required.port, required.security),
            (587, Security::StartTls)
        );
        let implicit = smtp("smtps://mail.example.org");
        assert_eq!(
            (implicit.port, implicit.security),
            (465, Security::Implicit)
        );
        let none = smtp("smtp://127.0.0.1:2525?tls=none");
        assert_eq!((none.port, none.security), (2525, Security::None));
        let v6 = smtp("smtp://[::1]:2525");
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 2525));
        assert!(v6.is_loopback());
        // A password never crosses the network in clear.
        let login = smtp("smtp://ann:tok@mail.example.org:587");
        assert_eq!(login.security, Security::StartTls);
        let local = smtp("smtp://ann:tok@localhost:25");
        assert_eq!(local.security, Security::Opportunistic);
        assert!(Transport::parse("smtp://ann:tok@mail.example.org?tls=none").is_err());
        assert!(Transport::parse("smtp://mail.example.org?tls=maybe").is_err());
        assert!(Transport::parse("smtp://mail.example.org?starttls=yes").is_err());
        assert!(Transport::parse("smtp://:25").is_err());
    }

    #[test]
    fn users_and_passwords_are_percent_decoded_and_may_come_from_elsewhere() {
        let encoded =
            smtp("smtp://ref%40example.org:p%2Fa%3Fss%25@mail.example.org/ehlo.example.org");
        assert_eq!(encoded.user.as_deref(), Some("ref@example.org"));
        assert_eq!(encoded.password.as_deref(), Some("p/a?ss%"));
        assert_eq!(encoded.hello.as_deref(), Some("ehlo.example.org"));
        let raw = smtp("smtp://ref@example.org:pa/ss?@mail.example.org:587");
        assert_eq!(raw.user.as_deref(), Some("ref@example.org"));
        assert_eq!(raw.password.as_deref(), Some("pa/ss?"));
        assert_eq!((raw.host.as_str(), raw.port), ("mail.example.org", 587));
        let error =
            Transport::parse("smtp://ref%40example.org@mail.example.org").expect_err("no password");
        assert!(error.to_string().contains("PBEM_SMTP_PASSWORD"), "{error}");
        let options = Options {
            password: Some("from-elsewhere".into()),
            ..Options::default()
        };
        match Transport::with_options("smtp://ref%40example.org@mail.example.org", &options) {
            Ok(Transport::Smtp(smtp)) => {
                assert_eq!(smtp.password.as_deref(), Some("from-elsewhere"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn specs_are_read_or_refused_with_the_accepted_forms() {
        assert!(matches!(
            Transport::parse("folder:/tmp/out"),
            Ok(Transport::Folder(_))
        ));
        assert!(matches!(
            Transport::parse("sendmail"),
            Ok(Transport::Sendmail(Sendmail { command: None, .. }))
        ));
        assert!(matches!(
            Transport::parse("sendmail:/usr/sbin/sendmail"),
            Ok(Transport::Sendmail(Sendmail {
                command: Some(_),
                ..
            }))
        ));
        let error = Transport::parse("pigeon://coop").expect_err("refused");
        assert!(error.to_string().contains("smtp://"));
    }

    #[cfg(unix)]
    #[test]
    fn sendmail_is_looked_for_in_path_then_in_the_usual_places() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let bin = dir.path().join("bin");
        let sbin = dir.path().join("sbin");
        for folder in [&bin, &sbin] {
            std::fs::create_dir_all(folder).expect("dir");
        }
        let place = sbin.join("sendmail");
        std::fs::write(&place, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&place, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let places = [place.to_str().expect("utf-8")];
        // Not in PATH (as in a mail server's pipe or cron): found in the usual place.
        let found = find_sendmail(Some(bin.clone().into_os_string()), &places).expect("found");
        assert_eq!(found, place);
        // In PATH: PATH wins. A file that is not executable is passed over.
        let in_path = bin.join("sendmail");
        std::fs::write(&in_path, "#!/bin/sh\n").expect("write");
        assert_eq!(
            find_sendmail(Some(bin.clone().into_os_string()), &places).expect("found"),
            place
        );
        std::fs::set_permissions(&in_path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert_eq!(
            find_sendmail(Some(bin.clone().into_os_string()), &places).expect("found"),
            in_path
        );
        // Nowhere: the error says where it looked.
        let error = find_sendmail(Some("/nonexistent".into()), &["/nonexistent/sbin/sendmail"])
            .expect_err("none");
        assert!(error.contains("/nonexistent/sbin/sendmail"), "{error}");
        assert!(error.contains("PATH (/nonexistent)"), "{error}");
    }

    #[test]
    fn timeouts_are_read_in_seconds_minutes_or_milliseconds() {
        assert_eq!(parse_timeout("15s"), Ok(Duration::from_secs(15)));
        assert_eq!(parse_timeout("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_timeout("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_timeout("30"), Ok(Duration::from_secs(30)));
        assert!(parse_timeout("0s").is_err());
        assert!(parse_timeout("soon").is_err());
    }

    #[test]
    fn settings_come_from_the_config_file_and_the_flag_wins() {
        let home = tempfile::tempdir().expect("dir");
        std::fs::write(
            home.path().join("config.toml"),
            "[mail]\nsmtp = \"folder:/tmp/out\"\nfrom = \"Ref <Ref@Example.org>\"\nattach_game = true\nca_file = \"/etc/pbem/ca.pem\"\ntimeout = \"5s\"\n",
        )
        .expect("config");
        let settings = MailSettings::load(home.path(), None).expect("loads");
        if std::env::var_os("PBEM_SMTP").is_none() {
            assert_eq!(settings.smtp.as_deref(), Some("folder:/tmp/out"));
        }
        assert!(settings.attach_game);
        assert_eq!(settings.ca_file, Some(PathBuf::from("/etc/pbem/ca.pem")));
        assert_eq!(settings.timeout, Some(Duration::from_secs(5)));
        if std::env::var_os("PBEM_FROM").is_none() {
            assert_eq!(settings.from_address(), "ref@example.org");
            assert_eq!(settings.domain(), "example.org");
        }
        let flagged = MailSettings::load(home.path(), Some("sendmail")).expect("loads");
        assert_eq!(flagged.smtp.as_deref(), Some("sendmail"));
        std::fs::write(home.path().join("config.toml"), "[mail]\ntimeout = 20\n").expect("config");
        let settings = MailSettings::load(home.path(), None).expect("loads");
        assert_eq!(settings.timeout, Some(Duration::from_secs(20)));
        std::fs::write(
            home.path().join("config.toml"),
            "[mail]\ntimeout = \"soon\"\n",
        )
        .expect("config");
        let error = MailSettings::load(home.path(), None).expect_err("refused");
        assert!(error.to_string().contains("15s"), "{error}");
        std::fs::write(home.path().join("config.toml"), "[mail]\nsmtp = 3\n").expect("config");
        let error = MailSettings::load(home.path(), None).expect_err("refused");
        assert!(error.to_string().contains("config.toml"), "{error}");
    }

    #[test]
    fn a_password_file_gives_the_password_and_is_never_shown() {
        if std::env::var_os("PBEM_SMTP_PASSWORD").is_some() {
            return;
        }
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("smtp-password");
        std::fs::write(&file, "t0ken-in-a-file\n").expect("write");
        let settings = MailSettings {
            smtp: Some("smtp://ref%40example.org@127.0.0.1:9".into()),
            password_file: Some(file.clone()),
            ..MailSettings::default()
        };
        match settings.transport().expect("valid") {
            Transport::Smtp(smtp) => {
                assert_eq!(smtp.password.as_deref(), Some("t0ken-in-a-file"));
            }
            other => panic!("{other:?}"),
        }
        let missing = MailSettings {
            password_file: Some(dir.path().join("none")),
            ..settings
        };
        let error = missing.transport().expect_err("unreadable");
        assert!(error.to_string().contains("password_file"), "{error}");
    }

    #[test]
    fn addresses_are_found_in_from_lines() {
        assert_eq!(address_of("Referee <Ref@Example.org>"), "ref@example.org");
        assert_eq!(address_of("ref@example.org"), "ref@example.org");
    }
}
