//! Taking players' messages from an IMAP mailbox: a hosted mailbox with an app
//! password, as `pbem inbox --imap` and `pbem watch` read it.
//!
//! The mailbox is named in `PBEM_HOME/config.toml` as `imap = "imaps://user@host/INBOX"`
//! under `[mail]` (`imaps://`: TLS from the first byte; `imap://`: STARTTLS, or nothing
//! is sent; `imap://...?tls=none`: plain text, only to a server on this machine). The
//! password comes from PBEM_IMAP_PASSWORD, else from the first line of `password_file`;
//! never from the command line or the URL, and no message or error shows it, in any
//! form a server might echo it (as sent, IMAP-quoted, or base64 as AUTHENTICATE sends
//! it). The system's trust store and `ca_file` are trusted, as for SMTP.
//!
//! Every read and write waits at most `timeout`; one that waits longer says "timed out:
//! HOST did not answer within N s". The socket has TCP keepalive, and `watch` ends each
//! IDLE within `--idle-check` and requires the server to answer its DONE in time
//! ([`Opened::idle_for`]): a server stopped or a network gone quiet says nothing, and
//! would otherwise be waited on until the next round.
//!
//! Arrival order is UID order: a server gives each message of a mailbox a UID greater
//! than any before it (RFC 3501, 2.3.1.1). A pass handles, in that order, every message
//! it has not handled before ([`super::in_order`]). Messages are read with `BODY.PEEK`,
//! so reading changes nothing; once handled, mail for a game is flagged `\Seen`, mail
//! for no game is left unread for the referee, as in a Maildir.
//!
//! What is done is kept in the games folder, in `.pbem-imap.state` (JSON; not `.json`,
//! which names a game): for each mailbox its UIDVALIDITY, `next` (every UID below it is
//! done) and `done` (UIDs above it handled while a fault held the one at `next` back;
//! trusted only while that one waits, then read again, so that a wrong entry there
//! delays a message, never loses it). It is written after each message; a pass killed between handling a
//! message and writing it handles the message again, and the archive, which knows
//! every Message-ID handled, answers nothing twice. For the same reason the mailbox is
//! read again from its start, safely, when its UIDVALIDITY changed (its server rebuilt
//! it) or the file says what cannot be (a `next` or a `done` UID the mailbox has not
//! given yet (UIDNEXT), a `done` UID not above `next`, a file that is not JSON): that
//! is said (on standard error, in the watch's log), never passed over in silence. One
//! pass at a time per games folder (`.pbem-imap.state.lock`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use imap::extensions::idle::{SetReadTimeout, WaitOutcome};
use imap::types::UnsolicitedResponse;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

use super::in_order::Handled;
use super::in_order::Receiver;
use super::in_order::{handle_in_order, Mailbox};
use crate::basics::store::{self, StoreError};
use crate::mail::intake::MAX_MESSAGE_BYTES;
use crate::mail::outbound::server_url::{self, password_forms, without_password, ServerUrl};
use crate::mail::outbound::transport::{MailSettings, DEFAULT_TIMEOUT, MAX_CA_FILE_BYTES};
use crate::mail::MailError;

/// The file, in the games folder, of what each mailbox's passes have done.
pub const STATE_FILE: &str = ".pbem-imap.state";

/// How long a connection may be silent before TCP asks the server whether it is still
/// there, and how often it asks then: a server gone without a word (its machine off,
/// the network cut) is then noticed within minutes even in a long IDLE, and routers
/// that forget quiet connections keep this one.
const KEEPALIVE_AFTER: Duration = Duration::from_secs(60);
const KEEPALIVE_EVERY: Duration = Duration::from_secs(15);

/// What a pass says of the progress file when it cannot trust it.
const READ_AGAIN: &str = "reading the mailbox from its start (a message handled before is known from its game's archive, and nothing is applied or answered twice)";

/// How an IMAP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Security {
    /// `imaps://`: TLS from the first byte.
    Implicit,
    /// `imap://`: STARTTLS, or nothing is sent.
    StartTls,
    /// `imap://...?tls=none`: plain text, to a server on this machine only.
    None,
}

/// An IMAP mailbox to read, from its URL and the referee's settings.
pub struct ImapMailbox {
    host: String,
    port: u16,
    user: String,
    password: String,
    mailbox: String,
    security: Security,
    ca_file: Option<PathBuf>,
    timeout: Duration,
}

impl fmt::Debug for ImapMailbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.shown())
    }
}

/// An open, logged-in connection with the mailbox selected.
pub type Session = imap::Session<Stream>;

/// A connection [`ImapMailbox::connect`] opened.
pub struct Opened {
    pub session: Session,
    /// The mailbox's UIDVALIDITY.
    pub validity: u32,
    /// The connection's socket, for a signal handler to shut it down.
    pub socket: std::os::fd::RawFd,
    /// Whether the server has IDLE (RFC 2177).
    pub idle: bool,
    /// The mailbox's UIDNEXT as it was selected, when the server said it.
    uid_next: Option<u32>,
    /// How the stream's last read or write ended.
    last: Arc<Mutex<LastIo>>,
    teller: Teller,
}

impl Opened {
    /// Waits in IDLE until the mailbox changes or `wait` has passed, then makes sure
    /// the server still answers; returns whether it told of a change (at once when it
    /// already had, before the IDLE).
    ///
    /// # Errors
    /// The connection failed, was shut down to stop the wait, or the server did not
    /// answer the end of the IDLE within the timeout: a server whose process is stopped,
    /// or a network gone quiet, says nothing of it, and the wait is where it shows.
    pub fn idle_for(&mut self, wait: Duration) -> Result<bool, MailError> {
        // A server tells of new mail once, at the end of whatever command runs when
        // it arrives (a FETCH or STORE of the pass before); the client keeps that
        // aside. IDLE reports only what comes later, so mail that arrived during
        // the pass would wait for the poll interval.
        let told_of_news = self.session.take_all_unsolicited().any(|response| {
            matches!(
                response,
                UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_)
            )
        });
        if told_of_news {
            return Ok(true);
        }
        // A socket refuses a timeout of zero.
        let wait = wait.max(Duration::from_millis(100));
        let outcome = {
            let mut idle = self.session.idle();
            idle.timeout(wait).keepalive(false);
            idle.wait_while(imap::extensions::idle::stop_on_any)
            // Dropped here: the client sends DONE and reads the server's answer, but
            // keeps any failure of that to itself.
        };
        let outcome = outcome.map_err(|error| self.teller.failed("IDLE failed", &error))?;
        // So the stream says: its last read was of that answer.
        let last = self.last.lock().map_or(LastIo::Done, |last| last.clone());
        let why = match last {
            LastIo::Done => return Ok(outcome == WaitOutcome::MailboxChanged),
            LastIo::TimedOut => self.teller.timed_out(),
            LastIo::Closed => "the server closed the connection".to_string(),
            LastIo::Failed(why) => why,
        };
        Err(self.teller.said("no answer to the end of IDLE", &why))
    }
}

impl ImapMailbox {
    /// The mailbox of `settings` (`imap` under `[mail]`, or PBEM_IMAP).
    ///
    /// # Errors
    /// No mailbox is set, its URL is not valid, or there is no password.
    pub fn from_settings(settings: &MailSettings) -> Result<ImapMailbox, MailError> {
        let spec = settings.imap.as_deref().ok_or_else(|| {
            MailError::Config(
                "no IMAP mailbox is set: add imap = \"imaps://user@host/INBOX\" under [mail] in PBEM_HOME/config.toml (or set PBEM_IMAP)".into(),
            )
        })?;
        let password = std::env::var("PBEM_IMAP_PASSWORD")
            .ok()
            .filter(|v| !v.is_empty())
            .map_or_else(|| settings.password_from_file(), |p| Ok(Some(p)))?;
        ImapMailbox::parse(spec, password, settings)
    }

    /// Reads `imap[s]://user@host[:port][/MAILBOX][?tls=none]`.
    fn parse(
        spec: &str,
        password: Option<String>,
        settings: &MailSettings,
    ) -> Result<ImapMailbox, MailError> {
        let invalid = |why: &str, shown: &str| {
            MailError::Config(format!(
                "the IMAP URL for {shown} is not valid ({why}); write it as imaps://user@host/INBOX, or imap://user@host:143/INBOX for STARTTLS"
            ))
        };
        let url = ServerUrl::parse(spec, invalid)?;
        let invalid = |why: &str| invalid(why, &url.host);
        let mut tls = None;
        for (name, value) in &url.query {
            match name.as_str() {
                "tls" => tls = Some(value.to_ascii_lowercase()),
                _ => return Err(invalid("the only option is ?tls=none")),
            }
        }
        let (security, default_port) =
            match (url.scheme.as_str(), tls.as_deref()) {
                ("imaps", None) => (Security::Implicit, 993),
                ("imap", None | Some("required")) => (Security::StartTls, 143),
                ("imap", Some("none")) => (Security::None, 143),
                _ => return Err(invalid(
                    "the scheme is imaps (TLS) or imap (STARTTLS, or ?tls=none on this machine)",
                )),
            };
        let port = url.port.unwrap_or(default_port);
        let shown = server_url::shown_host(&url.host, port);
        if url.password.is_some() {
            return Err(MailError::Config(format!(
                "the IMAP URL for {shown} holds a password: take it out, and put it in PBEM_IMAP_PASSWORD or in a file named by password_file under [mail]"
            )));
        }
        let user = url.user.clone().ok_or_else(|| invalid("no user"))?;
        let password = password.ok_or_else(|| {
            MailError::Config(format!(
                "no password for the IMAP mailbox at {shown}: set PBEM_IMAP_PASSWORD, or name a file holding it with password_file under [mail]"
            ))
        })?;
        if security == Security::None && !server_url::is_loopback(&url.host) {
            return Err(MailError::Config(format!(
                "?tls=none would send the password for {shown} in clear: it is only for a server on this machine; use imaps:// or imap:// (STARTTLS)"
            )));
        }
        Ok(ImapMailbox {
            host: url.host.clone(),
            port,
            user,
            password,
            mailbox: Some(url.path.clone())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| "INBOX".into()),
            security,
            ca_file: settings.ca_file.clone(),
            timeout: settings.timeout.unwrap_or(DEFAULT_TIMEOUT),
        })
    }

    /// The mailbox as messages show it: `imaps://user@host:993/INBOX`, no password.
    pub fn shown(&self) -> String {
        let scheme = match self.security {
            Security::Implicit => "imaps",
            Security::StartTls | Security::None => "imap",
        };
        format!(
            "{scheme}://{}@{}/{}",
            self.user,
            server_url::shown_host(&self.host, self.port),
            self.mailbox
        )
    }

    fn teller(&self) -> Teller {
        Teller {
            server: server_url::shown_host(&self.host, self.port),
            timeout: self.timeout,
            secrets: password_forms(&self.user, &self.password),
        }
    }

    /// Connects, secures the connection as the URL asks, logs in and selects the
    /// mailbox; every step waits at most the settings' timeout.
    ///
    /// # Errors
    /// The server cannot be reached, TLS fails, the login is refused (the error names
    /// the user and server, never the password) or the mailbox does not exist.
    pub fn connect(&self) -> Result<Opened, MailError> {
        self.connect_checked().map_err(|(_, error)| error)
    }

    /// [`ImapMailbox::connect`], its error with whether the server was not reached or
    /// did not answer in time (`true`) rather than refused what pbem was set up to do
    /// (TLS not trusted, the login, the mailbox): `pbem setup` says which.
    ///
    /// # Errors
    /// As [`ImapMailbox::connect`].
    pub fn connect_checked(&self) -> Result<Opened, (bool, MailError)> {
        // Not reached, or no answer: the connection, not the settings' words.
        let gone =
            |error: &imap::Error| matches!(error, imap::Error::Io(_) | imap::Error::ConnectionLost);
        let unreachable = |error: MailError| (true, error);
        let setup = |error: MailError| (false, error);
        let teller = self.teller();
        let tcp = self
            .tcp()
            .map_err(|e| unreachable(teller.said("cannot connect", &teller.io(&e))))?;
        let socket = std::os::fd::AsRawFd::as_raw_fd(&tcp);
        let last = Arc::new(Mutex::new(LastIo::Done));
        let mut client = match self.security {
            Security::Implicit => imap::Client::new(self.tls(tcp, &last, &teller)?),
            Security::StartTls | Security::None => imap::Client::new(Stream {
                inner: Inner::Plain(tcp),
                timeout: self.timeout,
                last: Arc::clone(&last),
            }),
        };
        client
            .read_greeting()
            .map_err(|e| unreachable(teller.failed("no greeting", &e)))?;
        if self.security == Security::StartTls {
            let offered = client
                .capabilities()
                .map_err(|e| (gone(&e), teller.failed("cannot read its capabilities", &e)))?
                .has_str("STARTTLS");
            if !offered {
                return Err(setup(teller.blanked(format!(
                    "IMAP {} does not offer STARTTLS, and the password is never sent in clear: use imaps:// (port 993)",
                    teller.server
                ))));
            }
            let plain = client
                .into_inner()
                .map_err(|e| (gone(&e), teller.failed("STARTTLS failed", &e)))?;
            let Inner::Plain(mut tcp) = plain.inner else {
                return Err(setup(
                    teller.said("STARTTLS failed", "the connection is already secured"),
                ));
            };
            start_tls(&mut tcp)
                .map_err(|e| setup(teller.said("STARTTLS failed", &teller.io(&e))))?;
            client = imap::Client::new(self.tls(tcp, &last, &teller)?);
            // STARTTLS is not greeted again (RFC 3501, 6.2.1).
            client.greeting_read = true;
        }
        let mut session = client.login(&self.user, &self.password).map_err(|(e, _)| {
            (
                gone(&e),
                teller.blanked(format!(
                    "IMAP {} refused the login of {}: {}; check the user in the imap URL and the password in PBEM_IMAP_PASSWORD or password_file",
                    teller.server,
                    self.user,
                    teller.imap(&e)
                )),
            )
        })?;
        let selected = session.select(&self.mailbox).map_err(|e| {
            (
                gone(&e),
                teller.failed(&format!("cannot open the mailbox {:?}", self.mailbox), &e),
            )
        })?;
        let idle = session
            .capabilities()
            .map(|capabilities| capabilities.has_str("IDLE"))
            .unwrap_or(false);
        Ok(Opened {
            session,
            validity: selected.uid_validity.unwrap_or(0),
            socket,
            idle,
            uid_next: selected.uid_next,
            last,
            teller,
        })
    }

    /// The server as messages show it, `host:port`.
    pub fn server(&self) -> String {
        server_url::shown_host(&self.host, self.port)
    }

    /// The user the mailbox is logged in as.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The mailbox's name (`INBOX`).
    pub fn mailbox(&self) -> &str {
        &self.mailbox
    }

    /// `text` with the password blanked in every form a server may echo it in.
    pub fn blanked(&self, text: &str) -> String {
        without_password(text, &self.teller().secrets)
    }

    /// Whether `spec` is an IMAP URL pbem reads, as `imap` under `[mail]` would be:
    /// its form alone, without a password.
    ///
    /// # Errors
    /// It is not, said as [`ImapMailbox::from_settings`] says it.
    pub fn check_url(spec: &str) -> Result<(), MailError> {
        // Any password does to read the form: it is neither sent nor shown.
        ImapMailbox::parse(spec, Some("-".into()), &MailSettings::default()).map(drop)
    }

    fn tcp(&self) -> std::io::Result<TcpStream> {
        let mut last = None;
        for address in (self.host.as_str(), self.port).to_socket_addrs()? {
            match TcpStream::connect_timeout(&address, self.timeout) {
                Ok(tcp) => {
                    tcp.set_read_timeout(Some(self.timeout))?;
                    tcp.set_write_timeout(Some(self.timeout))?;
                    let keepalive = socket2::TcpKeepalive::new().with_time(KEEPALIVE_AFTER);
                    #[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd"))]
                    let keepalive = keepalive.with_interval(KEEPALIVE_EVERY);
                    socket2::SockRef::from(&tcp).set_tcp_keepalive(&keepalive)?;
                    return Ok(tcp);
                }
                Err(error) => last = Some(error),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("the host has no address")))
    }

    /// `tcp` secured by TLS, the server's certificate checked against the system's
    /// trust store and `ca_file`.
    fn tls(
        &self,
        tcp: TcpStream,
        last: &Arc<Mutex<LastIo>>,
        teller: &Teller,
    ) -> Result<Stream, (bool, MailError)> {
        let config = self
            .tls_config()
            .map_err(|e| (false, MailError::Config(e)))?;
        let name = ServerName::try_from(self.host.clone()).map_err(|e| {
            (
                false,
                MailError::Config(format!("IMAP host {}: {e}", self.host)),
            )
        })?;
        let connection = rustls::ClientConnection::new(config, name)
            .map_err(|e| (false, teller.said("cannot set up TLS", &e.to_string())))?;
        let mut stream = rustls::StreamOwned::new(connection, tcp);
        // Handshake now, so a certificate not trusted is named as such.
        while stream.conn.is_handshaking() {
            stream
                .conn
                .complete_io(&mut stream.sock)
                .map_err(|error| {
                    if is_timeout(&error) {
                        return (true, teller.said("TLS failed", &teller.timed_out()));
                    }
                    let trust = match &self.ca_file {
                        Some(path) => {
                            format!("the system's trust store or ca_file {}", path.display())
                        }
                        None => "the system's trust store".into(),
                    };
                    (false, teller.said("TLS failed", &format!(
                        "{error}; if its certificate is not signed by a CA in {trust}, name that CA's PEM file with ca_file under [mail]"
                    )))
                })?;
        }
        Ok(Stream {
            inner: Inner::Tls(Box::new(stream)),
            timeout: self.timeout,
            last: Arc::clone(last),
        })
    }

    fn tls_config(&self) -> Result<Arc<rustls::ClientConfig>, String> {
        let mut roots = rustls::RootCertStore::empty();
        for certificate in rustls_native_certs::load_native_certs().certs {
            // A system certificate rustls cannot use is left out, as lettre does.
            let _ = roots.add(certificate);
        }
        if let Some(path) = &self.ca_file {
            let pem = store::read_limited(path, MAX_CA_FILE_BYTES)
                .map_err(|error| format!("cannot read ca_file {}: {error}", path.display()))?;
            let mut added = 0;
            for certificate in CertificateDer::pem_slice_iter(&pem) {
                let certificate = certificate
                    .map_err(|e| format!("ca_file {} is not valid PEM: {e}", path.display()))?;
                roots
                    .add(certificate)
                    .map_err(|e| format!("ca_file {}: {e}", path.display()))?;
                added += 1;
            }
            if added == 0 {
                return Err(format!(
                    "ca_file {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                    path.display()
                ));
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("cannot set up TLS: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Arc::new(config))
    }

    /// One pass: handles every message of the mailbox not handled before, in the
    /// order they arrived, for the games in `games`; returns how many were handled.
    /// What the pass has to say of its progress file (one that cannot be right, and
    /// is therefore not trusted) goes to `note`, one line each.
    ///
    /// # Errors
    /// The server cannot be reached or used, the state cannot be kept, or a fault on
    /// the referee's side with a message; what was not handled waits for the next pass.
    pub fn process(
        &self,
        referee: &dyn Receiver,
        games: &Path,
        report: &mut dyn FnMut(&str, &Handled),
        note: &mut dyn FnMut(&str),
    ) -> Result<usize, MailError> {
        let mut opened = self.connect()?;
        let result = self.process_in(&mut opened, referee, games, report, note, &|| false);
        let _ = opened.session.logout();
        result
    }

    /// [`ImapMailbox::process`] on a connection already open (as `watch` keeps one),
    /// stopping between two messages once `stop` says so.
    ///
    /// # Errors
    /// As [`ImapMailbox::process`].
    pub fn process_in(
        &self,
        opened: &mut Opened,
        referee: &dyn Receiver,
        games: &Path,
        report: &mut dyn FnMut(&str, &Handled),
        note: &mut dyn FnMut(&str),
        stop: &dyn Fn() -> bool,
    ) -> Result<usize, MailError> {
        let teller = opened.teller.clone();
        let validity = opened.validity;
        let state_path = games.join(STATE_FILE);
        let _lock = lock_state(&state_path)?;
        let key = self.shown();
        let fresh = Progress {
            validity,
            next: 1,
            done: Vec::new(),
        };
        // Set when the file is not trusted for this mailbox: it is then written at once,
        // so that what was wrong is said once, not on every pass.
        let mut distrusted = false;
        let mut states = match read_states(&state_path)? {
            Ok(states) => states,
            Err(why) => {
                distrusted = true;
                note(&format!(
                    "{} is not pbem's record of what it read ({why}); {READ_AGAIN}",
                    state_path.display()
                ));
                BTreeMap::new()
            }
        };
        let mut progress = match states.remove(&key) {
            None => fresh.clone(),
            Some(kept) if kept.validity != validity => {
                distrusted = true;
                note(&format!(
                    "the mailbox {key} is not the one {} knows (its UIDVALIDITY is {validity}, was {}: its server rebuilt it); {READ_AGAIN}",
                    state_path.display(),
                    kept.validity
                ));
                fresh.clone()
            }
            Some(kept) => kept,
        };
        // What no server could make true is not even sent (`UID 0:*` is refused).
        if let Some(wrong) = progress.impossible(None) {
            distrusted = true;
            note(&wrong_progress(&state_path, &key, &wrong));
            progress = fresh.clone();
        }
        let mut found = list_from(&mut opened.session, progress.next, &state_path, &teller)?;
        // `n:*` always names the last message, even below n: no UID above it exists.
        let mut uid_next = opened
            .uid_next
            .max(found.iter().max().map(|uid| uid.saturating_add(1)));
        if progress.impossible(uid_next).is_some() {
            // The UIDNEXT of a connection kept open (a watch's) may be old: asked
            // anew before the file is called wrong. Not asked otherwise: STATUS is for
            // mailboxes not selected (RFC 3501, 6.3.10).
            if let Ok(status) = opened.session.status(&self.mailbox, "(UIDNEXT)") {
                opened.uid_next = opened.uid_next.max(status.uid_next);
                uid_next = uid_next.max(status.uid_next);
            }
        }
        if let Some(wrong) = progress.impossible(uid_next) {
            distrusted = true;
            note(&wrong_progress(&state_path, &key, &wrong));
            progress = fresh;
            found = list_from(&mut opened.session, progress.next, &state_path, &teller)?;
        }
        if distrusted {
            states.insert(key.clone(), progress.clone());
            write_states(&state_path, &states)?;
        }
        if !found.contains(&progress.next) {
            // The message held back is gone (deleted): what was listed done while it
            // waited is read again rather than trusted ([`Progress::after_pass`]).
            progress.done.clear();
        }
        let waiting: BTreeSet<u32> = found
            .into_iter()
            .filter(|uid| *uid >= progress.next && progress.done.binary_search(uid).is_err())
            .collect();
        let mut mailbox = Folder {
            session: &mut opened.session,
            pending: waiting.clone(),
            handled: BTreeSet::new(),
            last: waiting.last().copied().unwrap_or(0),
            found: progress,
            states: &mut states,
            key: &key,
            state_path: &state_path,
            teller,
        };
        handle_in_order(referee, games, &mut mailbox, waiting, report, stop)
    }
}

/// The UIDs of the mailbox from `from` on (and its last message, whatever its UID).
fn list_from(
    session: &mut Session,
    from: u32,
    state_path: &Path,
    teller: &Teller,
) -> Result<Vec<u32>, MailError> {
    session
        .uid_search(format!("UID {from}:*"))
        .map(|found| found.into_iter().collect())
        .map_err(|error| match error {
            // Refused as a command (the server's own words may be as short as "Invalid
            // messageset"): the UID came from the progress file.
            imap::Error::Bad(_) | imap::Error::No(_) => teller.said(
                &format!(
                    "cannot list the messages from UID {from} on, where {} says to go on",
                    state_path.display()
                ),
                &format!(
                    "{}; if that file was edited or damaged, remove it: the mailbox is then read from its start, and the games' archives answer nothing twice",
                    teller.imap(&error)
                ),
            ),
            error => teller.failed("cannot list the messages", &error),
        })
}

/// The lock of the progress file, a fifo or the like in its place named as such.
fn lock_state(path: &Path) -> Result<store::FileLock, MailError> {
    store::lock(path).map_err(|error| match error {
        StoreError::NotRegular { path: bad, kind, .. } if bad == path => MailError::Config(
            format!(
                "{} is {kind}, not a regular file: it is where pbem keeps what it has read of the IMAP mailbox; remove it, and the mailbox is read again from its start (the games' archives answer nothing twice)",
                path.display()
            ),
        ),
        error => error.into(),
    })
}

/// The line that says a mailbox's progress cannot be trusted.
fn wrong_progress(path: &Path, key: &str, wrong: &str) -> String {
    format!(
        "{} cannot be right for {key}: {wrong}; {READ_AGAIN}",
        path.display()
    )
}

/// What the passes have done in one mailbox.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Progress {
    /// The mailbox's UIDVALIDITY: UIDs mean nothing under another.
    validity: u32,
    /// Every UID below this is done.
    next: u32,
    /// UIDs above `next` that are done, sorted; `next` itself is not done, but held
    /// back by a fault.
    done: Vec<u32>,
}

impl Progress {
    /// The progress a pass leaves, `self` being what it began with: it has handled
    /// `handled`, not (yet) `pending` (held back by a fault, or not reached), and its
    /// highest UID is `last`. `next` moves up to the first pending.
    ///
    /// What `self` lists done stands only while the message it was kept for (the one
    /// at `next`, held back) still waits. Once that is handled, the list is read again
    /// rather than trusted: nothing could tell a wrong entry (a hand, a fault), and it
    /// would pass a message over for good; read again, a message truly done comes out
    /// as handled before.
    fn after_pass(&self, handled: &BTreeSet<u32>, pending: &BTreeSet<u32>, last: u32) -> Progress {
        let held = pending.contains(&self.next);
        let mut next = pending
            .first()
            .copied()
            .unwrap_or_else(|| last.saturating_add(1));
        let listed: &[u32] = if held { &self.done } else { &[] };
        if !held {
            if let Some(first) = self.done.first() {
                next = next.min(*first);
            }
        }
        let next = next.max(self.next);
        let done: BTreeSet<u32> = handled
            .iter()
            .chain(listed)
            .copied()
            .filter(|uid| *uid > next)
            .collect();
        Progress {
            validity: self.validity,
            next,
            done: done.into_iter().collect(),
        }
    }

    /// What this progress says that cannot be true of a mailbox whose UIDNEXT (the
    /// UID its next message will have) is `uid_next`, when known: `None` when nothing.
    /// pbem never writes such a file; kept, it would pass over mail for good.
    fn impossible(&self, uid_next: Option<u32>) -> Option<String> {
        if self.next == 0 {
            return Some("its `next` is 0, and UIDs begin at 1".into());
        }
        if let Some(pair) = self.done.windows(2).find(|pair| pair[0] >= pair[1]) {
            return Some(format!(
                "its `done` is not in increasing order ({} before {})",
                pair[0], pair[1]
            ));
        }
        if let Some(first) = self.done.first().filter(|first| **first <= self.next) {
            return Some(format!(
                "its `done` lists UID {first}, not above `next` ({}): a message waiting there would be passed over",
                self.next
            ));
        }
        let uid_next = uid_next?;
        if self.next > uid_next {
            return Some(format!(
                "its `next` is {}, but the mailbox's next message will be UID {uid_next} (UIDNEXT): the messages to come, up to UID {}, would be passed over",
                self.next,
                self.next - 1
            ));
        }
        if let Some(last) = self.done.last().filter(|last| **last >= uid_next) {
            return Some(format!(
                "its `done` lists UID {last}, but the mailbox's next message will be UID {uid_next} (UIDNEXT): that message would be passed over"
            ));
        }
        None
    }
}

/// The progress of each mailbox, or why the file is not such a record.
///
/// # Errors
/// The file cannot be read.
fn read_states(path: &Path) -> Result<Result<BTreeMap<String, Progress>, String>, MailError> {
    match store::read_text_limited(path, store::MAX_SMALL_FILE_BYTES) {
        Ok(text) => Ok(serde_json::from_str(&text).map_err(|error| error.to_string())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Ok(BTreeMap::new())),
        // Not UTF-8, or larger than pbem ever writes it: no more pbem's than JSON that
        // does not parse.
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::InvalidData | std::io::ErrorKind::FileTooLarge
            ) =>
        {
            Ok(Err(error.to_string()))
        }
        Err(error) => Err(MailError::io(path)(error)),
    }
}

fn write_states(path: &Path, states: &BTreeMap<String, Progress>) -> Result<(), MailError> {
    let text = serde_json::to_string_pretty(states)
        .map_err(|e| MailError::Config(format!("cannot write {}: {e}", path.display())))?;
    // Not synced: a state lost to a crash only makes the next pass handle a message
    // again, which the archive answers as already handled.
    store::write_atomic_unsynced(path, text.as_bytes(), store::Access::Private)?;
    Ok(())
}

/// The messages of a pass, filed as each is handled.
struct Folder<'a> {
    session: &'a mut Session,
    /// The UIDs of this pass not handled yet.
    pending: BTreeSet<u32>,
    /// The UIDs this pass handled.
    handled: BTreeSet<u32>,
    /// The highest UID of this pass.
    last: u32,
    /// The progress the pass began with.
    found: Progress,
    states: &'a mut BTreeMap<String, Progress>,
    key: &'a str,
    state_path: &'a Path,
    teller: Teller,
}

impl Mailbox for Folder<'_> {
    type Message = u32;

    fn read(&mut self, uid: &u32) -> Result<Vec<u8>, MailError> {
        // At most one byte more than pbem reads: a photo of 20 MB is never fetched whole.
        let fetched = self
            .session
            .uid_fetch(
                uid.to_string(),
                format!("BODY.PEEK[]<0.{}>", MAX_MESSAGE_BYTES + 1),
            )
            .map_err(|e| {
                self.teller
                    .failed(&format!("cannot fetch message {uid}"), &e)
            })?;
        let body = fetched
            .iter()
            .find(|fetch| fetch.uid == Some(*uid))
            .or_else(|| fetched.iter().next())
            .and_then(|fetch| fetch.body())
            .unwrap_or_default();
        Ok(body.to_vec())
    }

    fn file(&mut self, uid: &u32, handled: &Handled) -> Result<String, MailError> {
        if handled.game.is_some() {
            // Mail for no game stays unread: the referee's to read.
            self.session
                .uid_store(uid.to_string(), "+FLAGS.SILENT (\\Seen)")
                .map_err(|e| {
                    self.teller
                        .failed(&format!("cannot flag message {uid}"), &e)
                })?;
        }
        self.pending.remove(uid);
        self.handled.insert(*uid);
        let progress = self
            .found
            .after_pass(&self.handled, &self.pending, self.last);
        self.states.insert(self.key.to_string(), progress);
        write_states(self.state_path, self.states)?;
        Ok(format!("UID {uid}"))
    }
}

/// Asks for TLS on a plain connection whose greeting and capabilities were read. By
/// hand: the IMAP client runs STARTTLS only with TLS of its own choosing, which would
/// trust neither `ca_file` nor pbem's timeouts.
fn start_tls(tcp: &mut TcpStream) -> std::io::Result<()> {
    const TAG: &str = "pbem-tls";
    tcp.write_all(format!("{TAG} STARTTLS\r\n").as_bytes())?;
    loop {
        // Byte by byte, so that nothing of what follows is read here.
        let mut line = Vec::new();
        let mut byte = [0u8];
        while line.last() != Some(&b'\n') {
            if tcp.read(&mut byte)? == 0 {
                return Err(std::io::Error::other("the server closed the connection"));
            }
            line.push(byte[0]);
            if line.len() > 8192 {
                return Err(std::io::Error::other("the server's answer is too long"));
            }
        }
        let line = String::from_utf8_lossy(&line);
        if let Some(status) = line.strip_prefix(TAG) {
            let status = status.trim();
            return if status
                .get(..2)
                .is_some_and(|s| s.eq_ignore_ascii_case("OK"))
            {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "the server answered {status}"
                )))
            };
        }
    }
}

/// How a mailbox's faults are told: the server named, a timeout said as one (not as
/// the system's "Resource temporarily unavailable"), and the password blanked in every
/// form a server might echo it. Every [`MailError::Receive`] of this module is made
/// here.
#[derive(Clone)]
struct Teller {
    /// `host:port`.
    server: String,
    timeout: Duration,
    /// The password's forms, longest first ([`password_forms`]).
    secrets: Vec<String>,
}

impl Teller {
    /// `IMAP host:port: what: why`, for an error of the IMAP client.
    fn failed(&self, what: &str, error: &imap::Error) -> MailError {
        self.said(what, &self.imap(error))
    }

    /// `IMAP host:port: what: why`.
    fn said(&self, what: &str, why: &str) -> MailError {
        self.blanked(format!("IMAP {}: {what}: {why}", self.server))
    }

    fn blanked(&self, text: String) -> MailError {
        MailError::Receive(without_password(&text, &self.secrets))
    }

    /// An error of the IMAP client in words: a timeout or a closed connection as such.
    fn imap(&self, error: &imap::Error) -> String {
        match error {
            imap::Error::Io(error) => self.io(error),
            imap::Error::ConnectionLost => "the server closed the connection".into(),
            error => error.to_string(),
        }
    }

    fn io(&self, error: &std::io::Error) -> String {
        if is_timeout(error) {
            self.timed_out()
        } else {
            error.to_string()
        }
    }

    fn timed_out(&self) -> String {
        format!(
            "timed out: {} did not answer within {} s",
            self.server,
            self.timeout.as_secs_f64()
        )
    }
}

/// Whether a read or write gave up waiting (a socket's timeout is EAGAIN on Linux).
fn is_timeout(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// A connection to an IMAP server, plain or under TLS, with the timeout every read and
/// write waits at most (IDLE sets its own, and gives this one back after).
pub struct Stream {
    inner: Inner,
    timeout: Duration,
    /// How the last read or write ended, for [`Opened::idle_for`]: the IMAP client
    /// reads the server's answer to the end of an IDLE as it drops it, and keeps what
    /// went wrong there to itself.
    last: Arc<Mutex<LastIo>>,
}

enum Inner {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

/// How a read or write ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LastIo {
    Done,
    TimedOut,
    /// The server closed the connection (a read of nothing).
    Closed,
    Failed(String),
}

impl Stream {
    fn note<T>(&self, result: &std::io::Result<T>, closed: bool) {
        let outcome = match result {
            Ok(_) if closed => LastIo::Closed,
            Ok(_) => LastIo::Done,
            Err(error) if is_timeout(error) => LastIo::TimedOut,
            Err(error) => LastIo::Failed(error.to_string()),
        };
        if let Ok(mut last) = self.last.lock() {
            *last = outcome;
        }
    }

    fn socket(&self) -> &TcpStream {
        match &self.inner {
            Inner::Plain(tcp) => tcp,
            Inner::Tls(tls) => &tls.sock,
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = match &mut self.inner {
            Inner::Plain(tcp) => tcp.read(buf),
            Inner::Tls(tls) => tls.read(buf),
        };
        let closed = matches!(read, Ok(0)) && !buf.is_empty();
        self.note(&read, closed);
        read
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = match &mut self.inner {
            Inner::Plain(tcp) => tcp.write(buf),
            Inner::Tls(tls) => tls.write(buf),
        };
        self.note(&written, false);
        written
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let flushed = match &mut self.inner {
            Inner::Plain(tcp) => tcp.flush(),
            Inner::Tls(tls) => tls.flush(),
        };
        self.note(&flushed, false);
        flushed
    }
}

impl SetReadTimeout for Stream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> imap::Result<()> {
        // No timeout at all is never set: a server that stops answering must not hang
        // pbem for ever.
        self.socket()
            .set_read_timeout(Some(timeout.unwrap_or(self.timeout)))
            .map_err(imap::Error::Io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mailbox(spec: &str) -> Result<ImapMailbox, MailError> {
        ImapMailbox::parse(spec, Some("s3cret".into()), &MailSettings::default())
    }

    #[test]
    fn urls_read_as_a_referee_writes_them() {
        let read = mailbox("imaps://ref@example.org@imap.example.org/Games").expect("valid");
        assert_eq!(
            read.shown(),
            "imaps://ref@example.org@imap.example.org:993/Games"
        );
        assert_eq!(read.security, Security::Implicit);
        let read = mailbox("imap://ref@mail.example.org").expect("valid");
        assert_eq!(read.shown(), "imap://ref@mail.example.org:143/INBOX");
        assert_eq!(read.security, Security::StartTls);
        let read = mailbox("imap://ref@127.0.0.1:1143/INBOX?tls=none").expect("valid");
        assert_eq!(read.security, Security::None);
        assert!(!format!("{read:?}").contains("s3cret"));
    }

    #[test]
    fn a_password_never_goes_in_clear_nor_in_the_url() {
        for (spec, expected) in [
            ("imap://ref@mail.example.org/INBOX?tls=none", "in clear"),
            (
                "imaps://ref:hunter2@mail.example.org/INBOX",
                "holds a password",
            ),
            ("imaps://mail.example.org/INBOX", "no user"),
            ("pop3://ref@mail.example.org", "the scheme is imaps"),
        ] {
            let error = mailbox(spec).expect_err(spec).to_string();
            assert!(error.contains(expected), "{spec}: {error}");
            assert!(
                !error.contains("hunter2") && !error.contains("s3cret"),
                "{error}"
            );
        }
        let error = ImapMailbox::parse(
            "imaps://ref@mail.example.org",
            None,
            &MailSettings::default(),
        )
        .expect_err("no password");
        assert!(error.to_string().contains("PBEM_IMAP_PASSWORD"), "{error}");
    }

    /// A pass over `found`, in order, where `held` are held back by a fault: the
    /// progress written after each message, the last one returned.
    fn pass(start: &Progress, found: &[u32], held: &[u32]) -> Progress {
        let waiting: BTreeSet<u32> = found
            .iter()
            .copied()
            .filter(|uid| *uid >= start.next && !start.done.contains(uid))
            .collect();
        let last = waiting.last().copied().unwrap_or(0);
        let mut pending = waiting.clone();
        let mut handled = BTreeSet::new();
        let mut now = start.clone();
        for uid in waiting.iter().filter(|uid| !held.contains(uid)) {
            pending.remove(uid);
            handled.insert(*uid);
            now = start.after_pass(&handled, &pending, last);
            // What pbem writes, it can read back.
            assert_eq!(now.impossible(Some(last + 1)), None, "{now:?}");
        }
        now
    }

    fn progress(next: u32, done: &[u32]) -> Progress {
        Progress {
            validity: 7,
            next,
            done: done.to_vec(),
        }
    }

    #[test]
    fn progress_moves_past_what_is_done_and_keeps_what_a_fault_skipped() {
        // A pass finds 3, 4, 5 and 6; 4 is held back by a fault, the others handled.
        let after = pass(&progress(1, &[]), &[3, 4, 5, 6], &[4]);
        assert_eq!(after, progress(4, &[5, 6]));
        // Held back again, with 9 arrived since: 5 and 6 are still done.
        let again = pass(&after, &[4, 5, 6, 9], &[4]);
        assert_eq!(again, progress(4, &[5, 6, 9]));
        // Nothing held: all done.
        assert_eq!(
            pass(&progress(1, &[]), &[3, 4, 5, 6], &[]),
            progress(7, &[])
        );
    }

    #[test]
    fn what_was_listed_done_is_read_again_once_the_message_held_is_not() {
        // 4 is handled at last (and 9 arrived since): 5 and 6 were listed done while 4
        // was held. Read again rather than trusted: a wrong entry there (nothing could
        // tell) would pass a message over for good.
        let after = pass(&progress(4, &[5, 6]), &[4, 5, 6, 9], &[]);
        assert_eq!(after, progress(5, &[9]));
        // The next pass reads them (as handled before, if they were); and so on.
        let after = pass(&after, &[5, 6, 9], &[]);
        assert_eq!(after, progress(7, &[]));
        assert_eq!(pass(&after, &[9], &[]), progress(10, &[]));
        // A waiting message listed as done, above one handled: read by the next pass.
        let after = pass(&progress(1, &[3]), &[1, 2, 3, 4, 5], &[]);
        assert_eq!(after, progress(3, &[4, 5]));
        assert_eq!(pass(&after, &[3, 4, 5], &[]), progress(4, &[]));
    }

    #[test]
    fn a_progress_that_cannot_be_is_told() {
        for (wrong, uid_next, said) in [
            (progress(0, &[]), None, "`next` is 0"),
            (progress(3, &[5, 4]), None, "not in increasing order (5 before 4)"),
            (progress(3, &[5, 5]), None, "not in increasing order (5 before 5)"),
            (progress(3, &[3]), None, "lists UID 3, not above `next` (3)"),
            (progress(3, &[2, 5]), None, "lists UID 2, not above `next` (3)"),
            (
                progress(500, &[]),
                Some(13),
                "`next` is 500, but the mailbox's next message will be UID 13 (UIDNEXT): the messages to come, up to UID 499, would be passed over",
            ),
            (
                progress(3, &[4, 13]),
                Some(13),
                "lists UID 13, but the mailbox's next message will be UID 13",
            ),
        ] {
            let told = wrong.impossible(uid_next).expect("impossible");
            assert!(told.contains(said), "{told}");
        }
        assert_eq!(progress(13, &[]).impossible(Some(13)), None);
        assert_eq!(progress(3, &[4, 12]).impossible(Some(13)), None);
        // Without the UIDNEXT, only what no mailbox could make true.
        assert_eq!(progress(500, &[501]).impossible(None), None);
    }

    #[test]
    fn an_echoed_password_is_blanked_in_every_form() {
        use base64::Engine as _;
        let password = r#"Pa"ss\wo rd"#;
        let forms = password_forms("ref", password);
        let plain = base64::engine::general_purpose::STANDARD.encode(format!("\0ref\0{password}"));
        let login = base64::engine::general_purpose::STANDARD.encode(password);
        for echoed in [
            format!("NO [AUTHENTICATIONFAILED] bad password {password}"),
            r#"NO [AUTHENTICATIONFAILED] LOGIN "ref" "Pa\"ss\\wo rd" refused"#.to_string(),
            format!("BAD AUTHENTICATE PLAIN {plain} refused"),
            format!("NO {login}"),
            format!("Unexpected Response: Data {password:?}"),
        ] {
            let shown = without_password(&echoed, &forms);
            assert!(shown.contains("********"), "{shown}");
            for secret in [
                password,
                r#"Pa\"ss\\wo rd"#,
                plain.trim_end_matches('='),
                login.trim_end_matches('='),
            ] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
            // Nor any run of it long enough to tell: every quoted or encoded form was
            // blanked whole, not cut in two.
            assert!(!shown.contains("ss\\"), "{shown}");
        }
        assert_eq!(
            without_password(
                "NO [AUTHENTICATIONFAILED] bad password s3cret",
                &password_forms("ref", "s3cret")
            ),
            "NO [AUTHENTICATIONFAILED] bad password ********"
        );
        assert!(password_forms("ref", "").is_empty());
    }

    #[test]
    fn a_timeout_is_said_as_one() {
        let teller = ImapMailbox::parse(
            "imaps://ref@imap.example.org/INBOX",
            Some("s3cret".into()),
            &MailSettings::default(),
        )
        .expect("valid")
        .teller();
        let timed_out = imap::Error::Io(std::io::Error::from(std::io::ErrorKind::WouldBlock));
        let error = teller
            .failed("cannot list the messages", &timed_out)
            .to_string();
        assert_eq!(
            error,
            "IMAP imap.example.org:993: cannot list the messages: timed out: imap.example.org:993 did not answer within 15 s"
        );
        let lost = teller
            .failed("IDLE failed", &imap::Error::ConnectionLost)
            .to_string();
        assert!(lost.ends_with("the server closed the connection"), "{lost}");
    }
}
