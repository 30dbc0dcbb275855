//! A whole game hosted through a real mail server, as README's "Host a game by email"
//! says, on a postfix instance of the test's own: Debian's postfix programs started
//! with `postfix -c DIR`, on a configuration, queue, data directory and log in a
//! temporary directory, listening on 127.0.0.1 on a free port, delivering to the
//! domain pbem.test only and relaying nothing. Replies written as mail clients write
//! them are submitted to it over SMTP; pbem's notices go back to it with STARTTLS, its
//! certificate signed by a CA the test makes (its key deleted once it has signed,
//! limited by name constraints to localhost and 127.0.0.0/8) and given to pbem with
//! `ca_file`, not put in the system's trust store.
//!
//! Leg one feeds the referee's mail to the README's `.forward` line; leg two delivers
//! it to a Maildir read by the README's crontab line, and pbem sends with plain SMTP
//! (`?tls=none`, for a server on this machine). Along the way a reply is refused by
//! the referee's side for a while (pbem exits 75 and postfix delivers it again
//! later), messages are delivered twice, and a reply too large for pbem to read
//! arrives; each move is still applied exactly once.
//!
//! The test adds no user. The referee and the players are addresses of the private
//! instance, which its alias table maps to Maildirs in the temporary directory or,
//! for the referee in leg one, to the README's `.forward` line. postfix reads a
//! `.forward` in the home of a system user only, so that route cannot be taken
//! literally without adding one; the alias entry is its closest equivalent: the same
//! line, quotes and all, run by the same delivery agent (local(8)) through /bin/sh,
//! exit 75 deferring the message, but with the privileges of `nobody` (default_privs)
//! rather than the referee's own, so the referee's folders belong to nobody.
//! `smtp = "sendmail"` is not tested: the instance's sendmail hands mail to the
//! set-gid postdrop, which accepts another configuration directory only when the
//! machine's own main.cf lists it (alternate_config_directories).
//!
//! It leaves the machine as it found it, and checks that it did: nothing under /etc is
//! written (postfix's configuration, the users, the trust store), the machine's own
//! postfix (running or not, on port 25 or not) and its queue are not touched, and the
//! private postfix is stopped and the temporary directory removed at the end, after a
//! failure too. So it may run on a referee's own mail server. It needs root
//! (postfix's master process runs as root) and Debian's postfix (.ci/run
//! installs it). Without them it says "skipped" on standard error; with
//! PBEM_REQUIRE_POSTFIX=1 (.ci/run sets it as root) it fails instead.

#![cfg(target_os = "linux")]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use mail_parser::MessageParser;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::replies;

const SEED: &str = "4444444444444444444444444444444444444444444444444444444444444444";
const DOMAIN: &str = "pbem.test";
const REFEREE: &str = "pbemref";
const PLAYERS: [(&str, &str); 2] = [("Ann", "pbemann"), ("Bob", "pbembob")];
/// An address of the instance's domain that it refuses at RCPT time (550 User
/// unknown), as a provider refuses a mailbox that was closed.
const DEAD: &str = "pbemgone";
/// Moves made through `.forward`; the rest of the game goes through the Maildir.
const FORWARD_TURNS: u64 = 12;
/// The turn (counted from 0) whose reply first meets a referee's side pbem cannot
/// read, so that pbem exits 75 and postfix keeps the reply and delivers it again.
const DEFERRED_TURN: u64 = 2;
/// Turns whose reply is delivered twice, once through `.forward` and once through the
/// Maildir.
const REPLAYED_TURNS: [u64; 2] = [4, FORWARD_TURNS + 2];
/// Turns preceded by a reply too large for pbem to read, in each leg.
const OVERSIZED_TURNS: [u64; 2] = [6, FORWARD_TURNS + 4];
/// Turns whose reply, proven by the player's token, is delivered again with a new
/// Message-ID (a forwarder's copy) once its move is in, in each leg.
const COPIED_TURNS: [u64; 2] = [7, FORWARD_TURNS + 3];
/// The turn before which a stranger at the dead address writes to the referee, who
/// answers no stranger (an answer would be refused for good).
const DEAD_TURN: u64 = 3;
/// Turns of leg two whose cron runs are killed at random moments before one is left
/// to finish.
const KILLED_TURNS: [u64; 3] = [FORWARD_TURNS + 1, FORWARD_TURNS + 5, FORWARD_TURNS + 6];
/// More than pbem reads of one message (4 MiB), less than the instance accepts.
const OVERSIZED_BYTES: usize = 5 * 1024 * 1024;
/// The longest wait for one delivery.
const WAIT: Duration = Duration::from_secs(30);
const POSTFIX: &str = "/usr/sbin/postfix";
const POSTCONF: &str = "/usr/sbin/postconf";

fn address(user: &str) -> String {
    format!("{user}@{DOMAIN}")
}

fn output_text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A user's ids, as `getent passwd` gives them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Account {
    pub uid: u32,
    pub gid: u32,
}

pub(super) fn account(name: &str) -> Option<Account> {
    let output = Command::new("getent")
        .args(["passwd", name])
        .output()
        .ok()?;
    let line = String::from_utf8_lossy(&output.stdout).into_owned();
    let fields: Vec<&str> = line.trim().split(':').collect();
    Some(Account {
        uid: fields.get(2)?.parse().ok()?,
        gid: fields.get(3)?.parse().ok()?,
    })
}

fn group_exists(name: &str) -> bool {
    Command::new("getent")
        .args(["group", name])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Why the test cannot run here, if it cannot.
fn cannot_run() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (postfix's master process runs as root)".into());
    }
    for tool in [POSTFIX, POSTCONF] {
        if !Path::new(tool).exists() {
            return Some(format!(
                "{tool} is missing (Debian: apt-get install postfix; .ci/run does as root)"
            ));
        }
    }
    // The instance runs as the users the Debian package adds, and delivers as nobody.
    if account("postfix").is_none() || !group_exists("postdrop") {
        return Some(
            "no user postfix or group postdrop (Debian's postfix package adds them)".into(),
        );
    }
    if account("nobody").is_none() {
        return Some("no user nobody to deliver the mail as".into());
    }
    None
}

fn required() -> bool {
    std::env::var("PBEM_REQUIRE_POSTFIX").is_ok_and(|v| v == "1")
}

/// What a test of a private mail server must leave as it found it: postfix's and
/// dovecot's system configuration, the accounts, the trust store, and the machine's
/// own postfix and dovecot, running (as which process) or not. Files are kept as kind, mode, owner and a hash of their contents.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Snapshot(BTreeMap<String, String>);

impl Snapshot {
    pub(super) fn take() -> Snapshot {
        let mut found = BTreeMap::new();
        for dir in [
            "/etc/postfix",
            "/etc/dovecot",
            "/etc/ssl/certs",
            "/usr/local/share/ca-certificates",
        ] {
            describe_tree(Path::new(dir), &mut found);
        }
        for file in [
            "/etc/passwd",
            "/etc/group",
            "/etc/shadow",
            "/etc/gshadow",
            "/etc/aliases",
            "/etc/mailname",
            "/etc/ca-certificates.conf",
        ] {
            found.insert(file.to_string(), describe(Path::new(file)));
        }
        found.insert("the machine's own postfix".into(), system_postfix());
        found.insert("the machine's own dovecot".into(), system_dovecot());
        Snapshot(found)
    }

    pub(super) fn changes(&self, after: &Snapshot) -> Vec<String> {
        let absent = "absent".to_string();
        let names: BTreeSet<&String> = self.0.keys().chain(after.0.keys()).collect();
        names
            .into_iter()
            .filter(|name| self.0.get(*name) != after.0.get(*name))
            .map(|name| {
                format!(
                    "{name}: was {}, now {}",
                    self.0.get(name).unwrap_or(&absent),
                    after.0.get(name).unwrap_or(&absent)
                )
            })
            .collect()
    }
}

fn describe(path: &Path) -> String {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return "absent".into();
    };
    let owner = format!(
        "mode {:o}, owner {}:{}",
        meta.mode() & 0o7777,
        meta.uid(),
        meta.gid()
    );
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).unwrap_or_default();
        format!("link to {}", target.display())
    } else if meta.is_dir() {
        format!("folder, {owner}")
    } else {
        match std::fs::read(path) {
            Ok(bytes) => format!("file, {owner}, sha256 {:x}", Sha256::digest(&bytes)),
            Err(e) => format!("file, {owner}, unreadable: {e}"),
        }
    }
}

fn describe_tree(path: &Path, found: &mut BTreeMap<String, String>) {
    found.insert(path.display().to_string(), describe(path));
    let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    for entry in std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|_| is_dir)
    {
        describe_tree(&entry.path(), found);
    }
}

/// The machine's own postfix: the process id of its master, when it runs.
fn system_postfix() -> String {
    // Where its main.cf puts its queue; postconf only reads the file.
    let queue = Command::new(POSTCONF)
        .args(["-h", "queue_directory"])
        .env_remove("MAIL_CONFIG")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|q| !q.is_empty())
        .unwrap_or_else(|| "/var/spool/postfix".into());
    let pid = std::fs::read_to_string(Path::new(&queue).join("pid/master.pid"))
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok());
    match pid {
        Some(pid)
            if std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == "master") =>
        {
            format!("running, master process {pid}")
        }
        _ => "not running".into(),
    }
}

/// The machine's own dovecot: the process id of its master, when it runs (its base
/// directory is Debian's default; the tests' instances have their own).
fn system_dovecot() -> String {
    let pid = std::fs::read_to_string("/run/dovecot/master.pid")
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok());
    match pid {
        Some(pid) if Path::new(&format!("/proc/{pid}")).exists() => {
            format!("running, master process {pid}")
        }
        _ => "not running".into(),
    }
}

/// Processes of the instance whose configuration is in `conf`: postfix passes that
/// directory to every process it starts, down to the commands local(8) runs, in
/// MAIL_CONFIG.
fn processes_of(conf: &Path) -> Vec<u32> {
    let wanted = format!("MAIL_CONFIG={}", conf.display());
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            environ
                .split(|b| *b == 0)
                .any(|var| var == wanted.as_bytes())
                .then_some(pid)
        })
        .collect()
}

pub(super) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("addr")
        .port()
}

pub(super) fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("chmod {}: {e}", path.display()));
}

/// A delivered message, read with mail-parser.
#[derive(Debug, Clone)]
struct Mail {
    subject: String,
    message_id: String,
    references: String,
    received: String,
    text: String,
}

fn read_mail(raw: &[u8]) -> Mail {
    let message = MessageParser::default().parse(raw).expect("a message");
    let header = |name: &str| {
        message
            .header_raw(name)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    Mail {
        subject: message.subject().unwrap_or_default().to_string(),
        message_id: message.message_id().unwrap_or_default().to_string(),
        references: header("References"),
        received: header("Received"),
        text: message
            .body_text(0)
            .map(|t| t.into_owned())
            .unwrap_or_default(),
    }
}

/// Every message in a Maildir (new and cur), by file name.
fn maildir_messages(maildir: &Path) -> Vec<(String, Mail)> {
    let mut found: Vec<(String, Mail)> = ["new", "cur"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(maildir.join(sub)).ok())
        .flatten()
        .flatten()
        .filter_map(|e| {
            let raw = std::fs::read(e.path()).ok()?;
            Some((
                e.file_name().to_string_lossy().into_owned(),
                read_mail(&raw),
            ))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// Where the players' replies go: the referee's address.
const TO_REFEREE: replies::Referee = replies::Referee {
    name: "pbem referee",
    address: "pbemref@pbem.test",
};

impl Mail {
    fn notice(&self) -> replies::Notice<'_> {
        replies::Notice {
            subject: &self.subject,
            message_id: &self.message_id,
            references: &self.references,
            text: &self.text,
        }
    }
}

/// A reply as Gmail writes it with a photo of the board attached: more than pbem
/// reads of one message, so it cannot be taken as a move whatever it says.
fn oversized_reply(notice: &Mail, from: &str, text: &str, id: &str) -> String {
    let line = "A".repeat(76);
    let lines = OVERSIZED_BYTES / (line.len() + 2) + 1;
    let mut photo = String::with_capacity(lines * (line.len() + 2));
    for _ in 0..lines {
        photo.push_str(&line);
        photo.push_str("\r\n");
    }
    format!(
        "From: Player <{from}>\r\nTo: {name} <{referee}>\r\nSubject: Re: {subject}\r\n\
Message-ID: <{id}@mail.gmail.com>\r\nIn-Reply-To: <{mid}>\r\nReferences: {refs} <{mid}>\r\n\
Date: Mon, 23 Nov 2026 10:02:00 +0000\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"000000000000m1\"\r\n\r\n\
--000000000000m1\r\nContent-Type: text/plain; charset=\"UTF-8\"\r\n\r\n{text}\r\n\r\n\
On Mon, 23 Nov 2026 at 10:00, {name} <{referee}> wrote:\r\n\r\n{quoted}\r\n\r\n\
--000000000000m1\r\nContent-Type: image/jpeg; name=\"board.jpg\"\r\n\
Content-Disposition: attachment; filename=\"board.jpg\"\r\nContent-Transfer-Encoding: base64\r\n\r\n\
{photo}--000000000000m1--\r\n",
        name = TO_REFEREE.name,
        referee = TO_REFEREE.address,
        subject = notice.subject,
        mid = notice.message_id,
        refs = notice.references,
        quoted = replies::quote(&notice.text),
    )
}

/// Where the referee's mail goes: README's two ways in.
#[derive(Debug, Clone, Copy)]
enum Route {
    /// To the `.forward` line's command.
    Forward,
    /// To the referee's Maildir, for the crontab line.
    Maildir,
}

/// An SMTP conversation, as another mail server holds it.
struct Dialogue {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Dialogue {
    /// The server's next answer, when it starts with `code`; else the answer, as an
    /// error naming what it answered.
    fn expect(&mut self, what: &str, code: &str) -> Result<String, String> {
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            self.reader
                .read_line(&mut line)
                .map_err(|e| format!("{what}: {e}"))?;
            if line.is_empty() {
                return Err(format!("{what}: the server closed the connection"));
            }
            answer.push_str(&line);
            if line.as_bytes().get(3) != Some(&b'-') {
                break;
            }
        }
        if answer.starts_with(code) {
            Ok(answer)
        } else {
            Err(format!("{what}: {}", answer.trim_end()))
        }
    }

    fn say(&mut self, line: &str, what: &str, code: &str) -> Result<String, String> {
        self.writer
            .write_all(format!("{line}\r\n").as_bytes())
            .map_err(|e| format!("{what}: {e}"))?;
        self.expect(what, code)
    }
}

/// The test's own postfix instance and the mail folders it delivers to, all in one
/// temporary directory. Dropping it stops that postfix and removes the directory,
/// after a failed assertion too.
struct Postfix {
    dir: tempfile::TempDir,
    /// Where its smtpd listens on 127.0.0.1.
    port: u16,
    /// Whom the referee's and the players' mail is delivered as, and the referee's
    /// commands run as.
    nobody: Account,
}

impl Drop for Postfix {
    fn drop(&mut self) {
        let conf = self.conf();
        // `postfix -c` with no main.cf there would not fall back to the machine's
        // own, but nothing need run at all before the configuration is written.
        if conf.join("main.cf").exists() {
            let _ = crate::support::on_machine_clock(&mut Command::new(POSTFIX))
                .arg("-c")
                .arg(&conf)
                .arg("stop")
                .output();
        }
        // postfix stop ends the master and its children; a command local(8) started
        // may outlive them, and must not write into the directory as it goes.
        for pid in processes_of(&conf) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .output();
        }
    }
}

impl Postfix {
    /// Makes the instance's configuration, certificates and mail folders, and starts
    /// it with the referee's mail going to `.forward`'s line.
    fn start() -> Postfix {
        let dir = tempfile::Builder::new()
            .prefix("pbem-postfix-")
            .tempdir()
            .expect("a temporary directory");
        // postfix's daemons and nobody must reach what is inside.
        set_mode(dir.path(), 0o755);
        let postfix = Postfix {
            dir,
            port: free_port(),
            nobody: account("nobody").expect("nobody"),
        };
        // data_directory is left for postfix to make: it must belong to its mail_owner.
        for sub in ["postfix", "queue", "log", "home"] {
            let path = postfix.dir.path().join(sub);
            std::fs::create_dir(&path).expect("a folder");
            set_mode(&path, 0o755);
        }
        for user in [REFEREE, PLAYERS[0].1, PLAYERS[1].1, "postmaster"] {
            let home = postfix.home(user);
            std::fs::create_dir(&home).expect("a home");
            postfix.give_to_nobody(&home);
        }
        let certs = crate::transport::make_certificates(&postfix.dir.path().join("ca"));
        let (cert, key) = (
            postfix.conf().join("server.pem"),
            postfix.conf().join("server.key"),
        );
        std::fs::copy(&certs.cert, &cert).expect("the certificate");
        std::fs::copy(&certs.key, &key).expect("the key");
        // smtpd reads its key as root before it drops privileges.
        set_mode(&key, 0o600);
        postfix.install_referee(&certs.ca);

        std::fs::write(postfix.conf().join("main.cf"), postfix.main_cf()).expect("main.cf");
        std::fs::write(postfix.conf().join("master.cf"), postfix.master_cf()).expect("master.cf");
        postfix.write_aliases(Route::Forward);
        postfix.control("start");
        postfix.wait_until_listening();
        postfix
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("postfix")
    }

    fn log_file(&self) -> PathBuf {
        self.dir.path().join("log/maillog")
    }

    fn home(&self, user: &str) -> PathBuf {
        self.dir.path().join("home").join(user)
    }

    fn maildir(&self, user: &str) -> PathBuf {
        self.home(user).join("Maildir")
    }

    fn main_cf(&self) -> String {
        let root = self.dir.path().display();
        let conf = self.conf();
        let conf = conf.display();
        format!(
            "# pbem's end-to-end test (tests/it/postfix.rs): a postfix instance of its own,
# started with postfix -c; nothing of it is the machine's.
compatibility_level = 3.6
queue_directory = {root}/queue
data_directory = {root}/data
mail_owner = postfix
setgid_group = postdrop
# Its own log: not the machine's syslog or mail.log.
maillog_file = {root}/log/maillog
maillog_file_prefixes = {root}/log
myhostname = mail.{DOMAIN}
mydomain = {DOMAIN}
myorigin = $mydomain
# Loopback only, the test's domain only: mail for any other domain bounces.
mydestination = {DOMAIN}
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
relayhost =
default_transport = error:this test server delivers locally only
relay_transport = error:this test server delivers locally only
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
smtpd_peername_lookup = no
# No system users: every address is an alias (texthash: needs no postmap), delivered
# to a Maildir or a command as default_privs. Any other address is refused at RCPT
# time, 550 User unknown.
alias_maps = texthash:{conf}/aliases
alias_database =
local_recipient_maps = $alias_maps
smtpd_reject_unlisted_recipient = yes
default_privs = nobody
allow_mail_to_commands = alias
allow_mail_to_files = alias
# More than pbem reads of one message, so that a larger one reaches pbem.
message_size_limit = 16777216
mailbox_size_limit = 0
biff = no
append_dot_mydomain = no
in_flow_delay = 0
# A message pbem asked to keep (exit 75) is delivered again within seconds.
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
smtpd_tls_cert_file = {conf}/server.pem
smtpd_tls_key_file = {conf}/server.key
smtpd_tls_security_level = may
smtpd_tls_received_header = yes
smtpd_tls_loglevel = 1
smtp_tls_security_level = none
"
        )
    }

    /// The services the test needs, none chrooted (nothing is copied into a chroot
    /// for an instance started by hand), smtpd on the test's own port.
    fn master_cf(&self) -> String {
        format!(
            "# service type private unpriv chroot wakeup maxproc command
127.0.0.1:{port} inet n - n - - smtpd
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
tlsmgr unix - - n 1000? 1 tlsmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
flush unix n - n 1000? 0 flush
proxymap unix - - n - - proxymap
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
local unix - n n - - local
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
",
            port = self.port
        )
    }

    /// Runs `postfix -c CONF action`.
    fn control(&self, action: &str) -> String {
        self.run(
            crate::support::on_machine_clock(&mut Command::new(POSTFIX))
                .arg("-c")
                .arg(self.conf())
                .arg(action),
        )
    }

    fn wait_until_listening(&self) {
        let deadline = Instant::now() + WAIT;
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "postfix does not listen on 127.0.0.1:{}\n{}",
                self.port,
                self.diagnosis()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Points the referee's address at `route` and the players' at their Maildirs.
    fn write_aliases(&self, route: Route) {
        let referee = match route {
            Route::Forward => self.forward_line(),
            Route::Maildir => format!("{}/", self.maildir(REFEREE).display()),
        };
        let mut table = format!("{REFEREE} {referee}\n");
        for user in [PLAYERS[0].1, PLAYERS[1].1, "postmaster"] {
            table.push_str(&format!("{user} {}/\n", self.maildir(user).display()));
        }
        std::fs::write(self.conf().join("aliases"), table).expect("the aliases");
    }

    /// Sends the referee's mail to `route` from now on. texthash: tables are read when
    /// a process starts, so postfix is restarted: a reload would leave the next
    /// delivery to a process that may still know the old table.
    fn route_referee(&self, route: Route) {
        self.write_aliases(route);
        self.control("stop");
        self.control("start");
        self.wait_until_listening();
    }

    /// One SMTP transaction: the queue id postfix gave the message, or the first
    /// answer that is not the one expected, as an error (a 550 to RCPT for an unknown
    /// address, say).
    fn session(&self, from: &str, to: &str, message: &str) -> Result<String, String> {
        let stream = TcpStream::connect(("127.0.0.1", self.port))
            .map_err(|e| format!("connect to 127.0.0.1:{}: {e}", self.port))?;
        stream
            .set_read_timeout(Some(WAIT))
            .map_err(|e| e.to_string())?;
        let mut smtp = Dialogue {
            reader: BufReader::new(stream.try_clone().map_err(|e| e.to_string())?),
            writer: stream,
        };
        let normalized = message.replace("\r\n", "\n");
        let mut data = String::with_capacity(normalized.len() + normalized.len() / 32);
        for line in normalized.trim_end_matches('\n').split('\n') {
            if line.starts_with('.') {
                data.push('.');
            }
            data.push_str(line);
            data.push_str("\r\n");
        }
        data.push('.');
        let result = smtp
            .expect("the greeting", "220")
            .and_then(|_| smtp.say("EHLO mx.players.example", "EHLO", "250"))
            .and_then(|_| smtp.say(&format!("MAIL FROM:<{from}>"), "MAIL FROM", "250"))
            .and_then(|_| smtp.say(&format!("RCPT TO:<{to}>"), "RCPT TO", "250"))
            .and_then(|_| smtp.say("DATA", "DATA", "354"))
            .and_then(|_| smtp.say(&data, "the message", "250"));
        let _ = smtp.say("QUIT", "QUIT", "221");
        // "250 2.0.0 Ok: queued as 4F2A81234"
        result.and_then(|answer| {
            answer
                .split_whitespace()
                .last()
                .filter(|_| answer.contains("queued as"))
                .map(str::to_string)
                .ok_or_else(|| format!("the message: no queue id in {answer:?}"))
        })
    }

    /// Submits a message to the instance, as another mail server would; the queue
    /// id postfix gave it.
    fn submit(&self, from: &str, to: &str, message: &str) -> String {
        self.session(from, to, message).unwrap_or_else(|refused| {
            panic!(
                "postfix refused a message from {from} to {to}: {refused}\n{}",
                self.diagnosis()
            )
        })
    }

    /// The same message delivered again, Message-ID and all, as a mail server does
    /// when it delivered it and went down before noting that it had; taken by pbem as
    /// `deliver_to_referee` has it taken.
    fn replay(&self, route: Route, from: &str, message: &str) {
        self.deliver_to_referee(route, from, message);
    }

    /// What the instance answers when a message is sent to `user`: the queue id when
    /// it takes it, else its refusal.
    fn answer_for(&self, user: &str) -> Result<String, String> {
        self.session(
            "pbemref@pbem.test",
            &address(user),
            "From: pbemref@pbem.test\r\nSubject: is anyone there\r\n\r\nJust asking.\r\n",
        )
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.log_file()).unwrap_or_default()
    }

    /// Waits until the log shows an attempt to deliver the message postfix queued as
    /// `queue_id` that ended with `status` (sent, deferred).
    fn wait_for_delivery(&self, queue_id: &str, status: &str) {
        let start = format!(" {queue_id}: to=<");
        let status = format!("status={status} ");
        let deadline = Instant::now() + WAIT;
        while !self
            .log()
            .lines()
            .any(|l| l.contains(&start) && l.contains(&status))
        {
            assert!(
                Instant::now() < deadline,
                "no delivery of {queue_id} with {status}within {WAIT:?}\n{}",
                self.diagnosis()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// postfix's log and queue, the referee's archive and the mailboxes, for a
    /// failure's message.
    fn diagnosis(&self) -> String {
        let log = self.log();
        let tail: Vec<&str> = log.lines().rev().take(60).collect();
        let mut queue = String::new();
        for sub in ["incoming", "active", "deferred", "hold", "corrupt"] {
            let mut ids = Vec::new();
            list_files(&self.dir.path().join("queue").join(sub), &mut ids);
            queue.push_str(&format!("{sub}: {ids:?}\n"));
        }
        // Why each deferred message waits: postfix keeps it as text in defer/.
        let mut reasons = Vec::new();
        list_files(&self.dir.path().join("queue/defer"), &mut reasons);
        for path in reasons {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let reason: Vec<&str> = text.lines().filter(|l| l.starts_with("reason=")).collect();
            queue.push_str(&format!("{}: {reason:?}\n", path.display()));
        }
        let mut archive = String::new();
        for entry in std::fs::read_dir(self.home(REFEREE).join("games"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let index = entry.path().join("index.jsonl");
            if let Ok(text) = std::fs::read_to_string(&index) {
                let last: Vec<&str> = text.lines().rev().take(5).collect();
                archive.push_str(&format!("{}:\n{}\n", index.display(), last.join("\n")));
            }
            if entry.path().extension().is_some_and(|e| e == "outbox") {
                let waiting: Vec<String> = std::fs::read_dir(entry.path())
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                archive.push_str(&format!("{}: {waiting:?}\n", entry.path().display()));
            }
        }
        let mut subjects = String::new();
        for user in [REFEREE, PLAYERS[0].1, PLAYERS[1].1, "postmaster"] {
            let list: Vec<String> = maildir_messages(&self.maildir(user))
                .into_iter()
                .map(|(_, m)| m.subject)
                .collect();
            subjects.push_str(&format!("{user}'s Maildir: {list:#?}\n"));
        }
        format!(
            "--- postfix log ({}), newest last ---\n{}\n--- queue ---\n{queue}--- the referee's games folder ---\n{archive}--- mailboxes ---\n{subjects}",
            self.log_file().display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )
    }

    /// Runs a command; panics with its output (and postfix's state) when it fails.
    fn run(&self, command: &mut Command) -> String {
        let output = command
            .output()
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        let text = output_text(&output);
        assert!(
            output.status.success(),
            "{command:?} failed ({}):\n{text}\n{}",
            output.status,
            self.diagnosis()
        );
        text
    }

    fn give_to_nobody(&self, path: &Path) {
        std::os::unix::fs::chown(path, Some(self.nobody.uid), Some(self.nobody.gid))
            .unwrap_or_else(|e| panic!("chown {}: {e}", path.display()));
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
            for entry in std::fs::read_dir(path).expect("a folder").flatten() {
                self.give_to_nobody(&entry.path());
            }
        }
    }

    fn write_as_nobody(&self, path: &Path, text: &str) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self.give_to_nobody(path);
    }

    /// The referee's home as README sets it up: pbem where `cargo install` puts it,
    /// the keyring's folder, the games folder, and the test CA's certificate as the
    /// `ca_file` README's example names.
    fn install_referee(&self, ca: &Path) {
        let referee = self.home(REFEREE);
        for dir in [".cargo/bin", ".pbem", "games"] {
            std::fs::create_dir_all(referee.join(dir)).expect("a folder");
        }
        std::fs::copy(
            assert_cmd::cargo::cargo_bin("pbem"),
            referee.join(".cargo/bin/pbem"),
        )
        .expect("install pbem");
        std::fs::copy(ca, referee.join(".pbem/private-ca.pem")).expect("the CA's certificate");
        set_mode(&referee.join(".pbem"), 0o700);
        self.give_to_nobody(&referee);
    }

    /// The referee's config.toml. The board's picture is left out of the mail: the
    /// test is about the mail's way through postfix, and drawing a picture for every
    /// notice would be most of the game's time.
    fn configure_referee(&self, smtp: &str) {
        let pbem_home = self.home(REFEREE).join(".pbem");
        self.write_as_nobody(
            &pbem_home.join("config.toml"),
            &format!(
                "[mail]\nsmtp = \"{smtp}\"\nfrom = \"pbem referee <{}>\"\nca_file = \"{}\"\npictures = false\n",
                address(REFEREE),
                pbem_home.join("private-ca.pem").display()
            ),
        );
    }

    /// The lines README gives for `ref`, written for the referee's home here.
    fn readme_lines(&self, pick: impl Fn(&str) -> bool, what: &str) -> Vec<String> {
        let readme = include_str!("../../README.md");
        let section = readme
            .split("## Host a game by email")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("README has the section \"Host a game by email\"");
        let home = format!("{}/", self.home(REFEREE).display());
        // Only lines of code blocks, not of the prose around them.
        let lines: Vec<String> = section
            .split("```")
            .skip(1)
            .step_by(2)
            .flat_map(str::lines)
            .map(str::trim)
            .filter(|l| pick(l))
            .map(|l| l.replace("/home/ref/", &home))
            .collect();
        assert!(!lines.is_empty(), "README shows {what}");
        lines
    }

    /// README's `~/.forward` line, quotes and all, as an alias table takes it.
    fn forward_line(&self) -> String {
        self.readme_lines(|l| l.starts_with("\"|env PBEM_HOME="), "a .forward line")[0].clone()
    }

    /// A command run as the referee (nobody) with the environment of cron: HOME, the
    /// user's names, sh, and a PATH without ~/.cargo/bin or /usr/sbin.
    fn as_referee(&self, program: &str) -> Command {
        let home = self.home(REFEREE);
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("HOME", &home)
            .env("USER", "nobody")
            .env("LOGNAME", "nobody")
            .env("SHELL", "/bin/sh")
            .env("PATH", "/usr/bin:/bin")
            .current_dir(&home)
            .uid(self.nobody.uid)
            .gid(self.nobody.gid);
        command
    }

    /// pbem as the referee, from the folder README installs it to.
    fn referee_pbem(&self) -> Command {
        let home = self.home(REFEREE);
        let mut command = self.as_referee(&home.join(".cargo/bin/pbem").display().to_string());
        command.env("PBEM_HOME", home.join(".pbem"));
        command
    }

    /// README's crontab line, run as cron runs it: through sh, with the crontab's
    /// PBEM_HOME line, as the referee.
    fn cron_run(&self) -> String {
        self.run(&mut self.cron_command())
    }

    /// The command of README's crontab line, as cron runs it.
    fn cron_command(&self) -> Command {
        let cron = self.readme_lines(
            |l| {
                l.starts_with("PBEM_HOME=") || (l.contains("pbem inbox") && l.contains("--maildir"))
            },
            "the crontab lines",
        );
        let (name, value) = cron
            .iter()
            .find_map(|l| l.split_once('=').filter(|(name, _)| *name == "PBEM_HOME"))
            .expect("README's crontab sets PBEM_HOME");
        let line = cron
            .iter()
            .find(|l| l.contains("--maildir"))
            .map(|l| l.split_whitespace().skip(5).collect::<Vec<_>>().join(" "))
            .expect("README's crontab line");
        let mut command = self.as_referee("/bin/sh");
        command.env(name, value).args(["-c", &line]);
        command
    }

    /// README's crontab line killed at random moments, `times` times, the way a
    /// machine going down or an impatient referee stops it.
    fn killed_cron_runs(&self, picker: &mut pbem::engine::DrawStream, times: u32) {
        for _ in 0..times {
            let mut run = self
                .cron_command()
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .process_group(0)
                .spawn()
                .expect("the cron line runs");
            std::thread::sleep(Duration::from_millis(u64::from(picker.index(120))));
            // The whole group: sh and the pbem it started.
            // SAFETY: kill has no preconditions; a group already gone is harmless.
            unsafe {
                libc::kill(-(run.id() as i32), libc::SIGKILL);
            }
            let _ = run.wait();
        }
    }

    fn game_file(&self) -> PathBuf {
        self.home(REFEREE).join("games/ann-bob.json")
    }

    /// The game's public view.
    fn view(&self) -> Value {
        let output = self.run(
            self.referee_pbem()
                .arg("show")
                .arg(self.game_file())
                .args(["--format", "json"]),
        );
        serde_json::from_str(&output).expect("json")
    }

    fn legal(&self, player: &str) -> Vec<String> {
        let output = self.run(
            self.referee_pbem()
                .arg("legal")
                .arg(self.game_file())
                .args(["--player", player, "--format", "json"]),
        );
        let list: Value = serde_json::from_str(&output).expect("json");
        list.as_array()
            .expect("a list")
            .iter()
            .map(|e| e["move"].as_str().expect("text").to_string())
            .collect()
    }

    fn records(&self) -> usize {
        std::fs::read(self.game_file())
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .and_then(|file| file["records"].as_array().map(Vec::len))
            .unwrap_or(0)
    }

    fn wait_for_records(&self, count: usize) {
        let deadline = Instant::now() + WAIT;
        while self.records() < count {
            assert!(
                Instant::now() < deadline,
                "the game did not reach {count} records within {WAIT:?}\n{}",
                self.diagnosis()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(self.records(), count, "exactly one move per reply");
    }

    /// Waits for a message to `user` whose subject contains `wanted`.
    fn wait_for_mail(&self, user: &str, wanted: &str) -> Mail {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some((_, mail)) = maildir_messages(&self.maildir(user))
                .into_iter()
                .find(|(_, m)| m.subject.contains(wanted))
            {
                return mail;
            }
            assert!(
                Instant::now() < deadline,
                "no mail {wanted:?} for {user} within {WAIT:?}\n{}",
                self.diagnosis()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Delivers `message` from `from` to the referee and has pbem take it whichever
    /// way the mail goes: through `.forward` (postfix has run the line, and pbem took
    /// the message) or through the Maildir (postfix has put it there, and the crontab
    /// line has read it).
    fn deliver_to_referee(&self, route: Route, from: &str, message: &str) {
        let queue_id = self.submit(from, &address(REFEREE), message);
        self.wait_for_delivery(&queue_id, "sent");
        if let Route::Maildir = route {
            let report = self.cron_run();
            assert!(report.contains("1 message(s) processed"), "{report}");
        }
    }

    fn token_of(&self, user: &str) -> String {
        let welcome = self.wait_for_mail(user, "Welcome");
        welcome
            .text
            .lines()
            .find_map(|l| l.trim().strip_prefix("pbem-token: ").map(str::to_string))
            .expect("a token line in the welcome")
    }
}

fn list_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.path().is_dir() {
            list_files(&entry.path(), found);
        } else {
            found.push(entry.path());
        }
    }
}

#[test]
fn a_whole_game_through_a_private_postfix_by_forward_then_maildir_and_cron() {
    if let Some(reason) = cannot_run() {
        assert!(
            !required(),
            "PBEM_REQUIRE_POSTFIX=1, but the end-to-end test through postfix cannot run: {reason}"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the end-to-end test through postfix (tests/it/postfix.rs): {reason}"
        );
        return;
    }
    assert_eq!(TO_REFEREE.address, address(REFEREE));
    let before = Snapshot::take();
    let started = Instant::now();
    let postfix = Postfix::start();
    let (dir, conf) = (postfix.dir.path().to_path_buf(), postfix.conf());
    let turns = play(&postfix);
    drop(postfix);

    let left: Vec<u32> = processes_of(&conf);
    assert!(
        left.is_empty(),
        "processes of the test's postfix still run: {left:?}"
    );
    assert!(!dir.exists(), "{} is left behind", dir.display());
    let changes = before.changes(&Snapshot::take());
    assert!(
        changes.is_empty(),
        "the test changed the machine:\n{}",
        changes.join("\n")
    );
    let _ = writeln!(
        std::io::stderr(),
        "postfix end-to-end: {turns} turns ({FORWARD_TURNS} by .forward, {} by Maildir and cron) in {:.1} s",
        turns - FORWARD_TURNS,
        started.elapsed().as_secs_f64()
    );
}

/// The game, from `pbem new` to its end; the number of moves made.
fn play(postfix: &Postfix) -> u64 {
    // The instance refuses an unknown address while the SMTP transaction is under
    // way, as a player's closed mailbox is refused.
    let refused = postfix
        .answer_for(DEAD)
        .expect_err("a dead address is refused");
    assert!(
        refused.starts_with("RCPT TO: 550") && refused.contains("User unknown"),
        "{refused}"
    );
    if let Err(refused) = postfix.answer_for("postmaster") {
        panic!("postmaster is refused: {refused}");
    }

    // Leg one: STARTTLS to postfix on localhost, the certificate checked against the
    // system's store and the ca_file; incoming mail piped by the README's .forward line.
    let mut route = Route::Forward;
    postfix.configure_referee(&format!("smtp://localhost:{}", postfix.port));
    let players: Vec<String> = PLAYERS
        .iter()
        .map(|(name, user)| format!("{name} <{}>", address(user)))
        .collect();
    postfix.run(
        postfix
            .referee_pbem()
            .args([
                "new",
                "right-of-way",
                "--player",
                &players[0],
                "--player",
                &players[1],
            ])
            .args(["--seed", SEED, "--mail", "--out"])
            .arg(postfix.game_file()),
    );
    let id = postfix.view()["id"].as_str().expect("an id").to_string();
    let tag = format!("[pbem {id}]");
    let user_of = |name: &str| {
        PLAYERS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, u)| *u)
            .expect("a player")
    };
    let tokens: Vec<String> = PLAYERS
        .iter()
        .map(|(_, user)| postfix.token_of(user))
        .collect();

    let mut picker = pbem::engine::DrawStream::for_testing(11);
    let mut sent: Vec<(String, String)> = Vec::new();
    let mut turn: u64 = 0;
    loop {
        let state = postfix.view();
        if state["over"] == true {
            break;
        }
        assert!(turn < 400, "the game ends");
        let player = state["to_move"][0].as_str().expect("a player").to_string();
        let user = user_of(&player);
        let from = address(user);
        let notice =
            postfix.wait_for_mail(user, &format!("Turn {}: your move, {player}", turn + 1));
        if turn == 0 {
            assert!(
                notice.received.contains("using TLS"),
                "pbem sent with STARTTLS: {}",
                notice.received
            );
        }
        let choices = postfix.legal(&player);
        let text = choices[picker.index(choices.len() as u32) as usize].clone();
        let reply_id = format!("postfix-{turn}");
        let seat = PLAYERS
            .iter()
            .position(|(n, _)| *n == player)
            .expect("seat");
        let raw = match turn % 4 {
            0 => replies::gmail_reply(&TO_REFEREE, &notice.notice(), &from, &text, &reply_id),
            1 => replies::outlook_reply(&TO_REFEREE, &notice.notice(), &from, &text, &reply_id),
            2 => replies::apple_reply(&TO_REFEREE, &notice.notice(), &from, &text, &reply_id),
            _ => replies::token_message(&TO_REFEREE, &tag, &tokens[seat], &from, &text, &reply_id),
        };
        if turn == FORWARD_TURNS {
            // Leg two: the referee's mail goes to ~/Maildir and the README's cron line
            // reads it; notices go out by plain SMTP, as README allows for a server on
            // this machine.
            route = Route::Maildir;
            postfix.route_referee(route);
            postfix.configure_referee(&format!("smtp://127.0.0.1:{}?tls=none", postfix.port));
        }
        if turn == DEAD_TURN {
            // A stranger whose mailbox is gone writes in the game's thread: nobody
            // answers them, and the game's own mail goes on (the next notices below
            // arrive).
            let stranger = format!(
                "From: Gone <{dead}>\r\nTo: {referee}\r\nSubject: Re: {tag} may I play?\r\n\
Message-ID: <dead-{turn}@{DOMAIN}>\r\nDate: {date}\r\n\r\nplace E,W at A1\r\n",
                dead = address(DEAD),
                referee = address(REFEREE),
                date = replies::sent_at("dead"),
            );
            postfix.deliver_to_referee(route, &address(DEAD), &stranger);
        }
        if OVERSIZED_TURNS.contains(&turn) {
            // Too large for pbem to read: it moves nothing, pbem takes it (postfix
            // does not keep delivering it), and the player is told the limit.
            let big = oversized_reply(&notice, &from, &text, &format!("{reply_id}-big"));
            assert!(big.len() > OVERSIZED_BYTES);
            postfix.deliver_to_referee(route, &from, &big);
            assert_eq!(
                postfix.records(),
                turn as usize,
                "turn {turn}: the oversized reply moved nothing"
            );
            let told = postfix.wait_for_mail(user, "Message too long");
            assert!(told.text.contains("4 MiB"), "{}", told.text);
        }
        if KILLED_TURNS.contains(&turn) {
            // The reply reaches the Maildir; the cron line is killed again and again
            // at random moments, then left to finish.
            let queue_id = postfix.submit(&from, &address(REFEREE), &raw);
            postfix.wait_for_delivery(&queue_id, "sent");
            postfix.killed_cron_runs(&mut picker, 6);
            postfix.cron_run();
        } else if turn == DEFERRED_TURN {
            // pbem cannot read its keyring (a fault on the referee's side): it exits
            // 75, postfix keeps the reply, and delivers it again once pbem can.
            let keyring = postfix.home(REFEREE).join(".pbem");
            set_mode(&keyring, 0o000);
            let queue_id = postfix.submit(&from, &address(REFEREE), &raw);
            postfix.wait_for_delivery(&queue_id, "deferred");
            assert_eq!(
                postfix.records(),
                turn as usize,
                "a deferred reply moved nothing"
            );
            set_mode(&keyring, 0o700);
            postfix.wait_for_delivery(&queue_id, "sent");
        } else {
            postfix.deliver_to_referee(route, &from, &raw);
        }
        turn += 1;
        postfix.wait_for_records(turn as usize);
        if REPLAYED_TURNS.contains(&(turn - 1)) {
            // Delivered again: answered or not, it is not a second move.
            postfix.replay(route, &from, &raw);
            postfix.wait_for_records(turn as usize);
        }
        if COPIED_TURNS.contains(&(turn - 1)) {
            // A copy under a new Message-ID, once the move is in and the other player
            // may have moved: the same message, not the player's next move.
            assert_eq!(turn % 4, 0, "a token message: proven by no reply code");
            let copy = raw.replace(&format!("<{reply_id}@"), &format!("<{reply_id}-copy@"));
            assert_ne!(copy, raw);
            postfix.deliver_to_referee(route, &from, &copy);
            postfix.wait_for_records(turn as usize);
        }
        sent.push((player, text));
    }
    // Notices up to the first move of leg two went out with STARTTLS, later ones
    // without.
    let mut checked = (0, 0);
    for (_, user) in PLAYERS {
        for (_, mail) in maildir_messages(&postfix.maildir(user)) {
            let Some(number) = mail
                .subject
                .split("Turn ")
                .nth(1)
                .and_then(|rest| rest.split(':').next())
                .and_then(|n| n.parse::<u64>().ok())
                .filter(|_| mail.subject.contains("your move"))
            else {
                continue;
            };
            let tls = mail.received.contains("using TLS");
            if number <= FORWARD_TURNS + 1 {
                assert!(tls, "{}: {}", mail.subject, mail.received);
                checked.0 += 1;
            } else {
                assert!(
                    !tls && mail.received.contains("with ESMTP"),
                    "{}: {}",
                    mail.subject,
                    mail.received
                );
                checked.1 += 1;
            }
        }
    }
    assert!(checked.0 > 0 && checked.1 > 0, "{checked:?}");
    assert!(turn > FORWARD_TURNS, "both legs played: {turn} turns");

    // The file holds exactly the moves sent, in order, and audits.
    let file: Value =
        serde_json::from_slice(&std::fs::read(postfix.game_file()).expect("game file"))
            .expect("json");
    let recorded: Vec<(String, String)> = file["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| {
            (
                r["player"].as_str().unwrap_or_default().to_string(),
                r["move"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(recorded.len(), sent.len());
    for ((player, text), (was_player, was_text)) in sent.iter().zip(&recorded) {
        assert_eq!(player, was_player);
        assert_eq!(text.trim(), was_text.trim());
    }
    let audit = postfix.run(postfix.referee_pbem().arg("audit").arg(postfix.game_file()));
    assert!(!audit.is_empty());
    let index = std::fs::read_to_string(
        postfix
            .home(REFEREE)
            .join("games/ann-bob.json.mail/index.jsonl"),
    )
    .expect("the archive");
    assert_eq!(
        index.lines().filter(|l| l.contains("\"applied\"")).count(),
        sent.len(),
        "{index}"
    );
    for (_, user) in PLAYERS {
        let over = postfix.wait_for_mail(user, "The game is over");
        assert!(over.text.contains(SEED), "the seed is revealed at the end");
    }
    // The stranger at the dead address was not answered: nothing of theirs waits or
    // was set aside, and their message is kept, its header alone, for the referee.
    let list = postfix.run(
        postfix
            .referee_pbem()
            .args(["outbox", "list", "--format", "json", "--games"])
            .arg(postfix.home(REFEREE).join("games")),
    );
    let listed: Value = serde_json::from_str(&list).expect("json");
    assert_eq!(listed.as_array().map(Vec::len), Some(0), "{list}");
    let games = postfix.home(REFEREE).join("games");
    let archive = std::fs::read_dir(&games)
        .expect("the games")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().ends_with(".json.mail"))
        .expect("the game's archive");
    let index = std::fs::read_to_string(archive.join("index.jsonl")).expect("its index");
    let stranger = index
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("an entry"))
        .find(|entry| entry["from"] == address(DEAD))
        .expect("the stranger's message is kept");
    assert_eq!(stranger["outcome"], "not-a-player", "{stranger}");
    let kept = std::fs::read_to_string(archive.join(stranger["file"].as_str().expect("file")))
        .expect("its header");
    assert!(
        kept.contains("may I play?") && !kept.contains("place E,W at A1"),
        "{kept}"
    );
    turn
}
