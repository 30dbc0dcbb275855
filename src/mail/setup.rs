//! `pbem setup`: the referee's mail settings written to `PBEM_HOME/config.toml`, and
//! checked end to end the way the real commands will use them.
//!
//! Writing: the keyring folder is made 0700 when missing; a folder or config.toml that
//! is a link, or that others may read, is refused (the folder holds the signing key,
//! the file may hold a password). An existing config.toml keeps every byte but the
//! `[mail]` keys given (toml_edit): a key it lacks is added, a key it has with another
//! value is changed only with `force`, and either way the difference is shown. The
//! file is written atomically, 0600.
//!
//! Checking: the folder and file, `from`, the password file's mode, then SMTP
//! (connect, EHLO, TLS as the URL says, login) and IMAP (connect, login, the mailbox,
//! IDLE), each with one line, `ok` or what failed and how to fix it; then a test mail
//! from `from` to the referee's own address, waited for in the IMAP mailbox and marked
//! read there. Its Message-ID is `pbem.setup.TOKEN@DOMAIN`, the referee's domain: the
//! intake (`inbox --imap`, `watch`) takes any `pbem.` Message-ID of that domain for
//! pbem's own mail come back (`for_referee::is_our_own`), and keeps it without an
//! answer and without telling the referee of it.
//!
//! No line shows a password, in any form a server may echo it: what the transports
//! say is blanked by them, and a password in an SMTP URL is blanked from the diff.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use toml_edit::{DocumentMut, Item, Value};

use crate::basics::store::{self, Access};
use crate::mail::inbound::imap::ImapMailbox;
use crate::mail::outbound::server_url::{password_forms, without_password, ServerUrl};
use crate::mail::outbound::transport::{address_of, CheckError, MailSettings, Options, Transport};
use crate::mail::MailError;

/// The file `setup` writes, in PBEM_HOME.
pub const CONFIG_FILE: &str = "config.toml";

/// How long `setup` waits by default for its test mail to arrive.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(60);

/// How often the mailbox is looked at while the test mail is waited for.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// The `[mail]` keys given to `setup`; `None` leaves a key as it is.
#[derive(Debug, Default, Clone)]
pub struct Keys {
    pub from: Option<String>,
    pub smtp: Option<String>,
    pub imap: Option<String>,
    pub password_file: Option<PathBuf>,
    pub ca_file: Option<PathBuf>,
    /// As config.toml writes it: `15s`, `2m`.
    pub timeout: Option<String>,
}

impl Keys {
    /// Whether any key is given.
    pub fn any(&self) -> bool {
        self.from.is_some()
            || self.smtp.is_some()
            || self.imap.is_some()
            || self.password_file.is_some()
            || self.ca_file.is_some()
            || self.timeout.is_some()
    }
}

/// What writing config.toml did.
#[derive(Debug)]
pub struct Wrote {
    pub path: PathBuf,
    /// Whether the keyring folder was made, 0700.
    pub made_home: bool,
    pub change: Change,
}

/// How config.toml compares with the keys given, and what was done.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// There was none: written.
    Created,
    /// It already said so: not written.
    Unchanged,
    /// Keys it lacked were added, all else kept: the difference.
    Added(String),
    /// `force`: keys it had were changed, all else kept: the difference.
    Replaced(String),
    /// Keys it has would change and `force` was not given: not written; the difference.
    Kept(String),
}

/// Writes the `keys` into `home`'s config.toml, making `home` (0700) when missing.
///
/// # Errors
/// A key is not valid (said as the commands that read it say it), the folder or file
/// is a link or may be read by others, the existing file is not valid, or the file
/// cannot be written.
pub fn write_config(home: &Path, keys: &Keys, force: bool) -> Result<Wrote, MailError> {
    let made_home = match std::fs::symlink_metadata(home) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            store::create_private_dir(home).map_err(MailError::io(home))?;
            true
        }
        Err(error) => return Err(MailError::io(home)(error)),
        Ok(_) => {
            private_folder(home).map_err(MailError::Config)?;
            false
        }
    };
    let path = home.join(CONFIG_FILE);
    let _lock = store::lock(&path)?;
    let before = match std::fs::symlink_metadata(&path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(MailError::io(&path)(error)),
        Ok(_) => {
            private_file(&path, "chmod 600").map_err(MailError::Config)?;
            Some(
                store::read_text_limited(&path, store::MAX_SMALL_FILE_BYTES)
                    .map_err(MailError::io(&path))?,
            )
        }
    };
    let given = given_values(keys)?;
    let (after, replaced) = merged(before.as_deref(), &given, &path)?;
    // What the commands will read must read: the whole file as they parse it, and each
    // URL as its transport does.
    let settings = MailSettings::from_config(&after, &path)?;
    check_values(&settings)?;
    let change = match &before {
        None => Change::Created,
        Some(before) if *before == after => Change::Unchanged,
        Some(before) => {
            let diff = difference(before, &after, &settings, &path);
            match (replaced, force) {
                (false, _) => Change::Added(diff),
                (true, true) => Change::Replaced(diff),
                (true, false) => Change::Kept(diff),
            }
        }
    };
    if matches!(
        change,
        Change::Created | Change::Added(_) | Change::Replaced(_)
    ) {
        store::write_atomic(&path, after.as_bytes(), Access::Private)?;
    }
    Ok(Wrote {
        path,
        made_home,
        change,
    })
}

/// The keys given as config.toml's strings, in the order a new file lists them; paths
/// made absolute, since the commands that read them run from anywhere (cron, systemd).
fn given_values(keys: &Keys) -> Result<Vec<(&'static str, String)>, MailError> {
    let path_text = |name: &str, path: &Path| -> Result<String, MailError> {
        let absolute = std::path::absolute(path).map_err(MailError::io(path))?;
        absolute.to_str().map(str::to_string).ok_or_else(|| {
            MailError::Config(format!(
                "--{name} {} is not UTF-8, which config.toml cannot hold; name a path in UTF-8",
                path.display()
            ))
        })
    };
    let mut given = Vec::new();
    let texts = [
        ("from", &keys.from),
        ("smtp", &keys.smtp),
        ("imap", &keys.imap),
    ];
    for (name, value) in texts {
        if let Some(value) = value {
            given.push((name, value.trim().to_string()));
        }
    }
    if let Some(path) = &keys.password_file {
        given.push(("password_file", path_text("password-file", path)?));
    }
    if let Some(path) = &keys.ca_file {
        given.push(("ca_file", path_text("ca-file", path)?));
    }
    if let Some(timeout) = &keys.timeout {
        given.push(("timeout", timeout.trim().to_string()));
    }
    Ok(given)
}

/// `before` (none: a new file) with the `[mail]` keys given set, every other byte
/// kept; and whether a key it had is given another value.
fn merged(
    before: Option<&str>,
    given: &[(&'static str, String)],
    path: &Path,
) -> Result<(String, bool), MailError> {
    let text = before.unwrap_or(
        "# The referee's mail settings: `pbem setup` writes them, `pbem setup --check` checks them.\n[mail]\n",
    );
    let mut document: DocumentMut = text.parse().map_err(|error: toml_edit::TomlError| {
        MailError::Config(format!(
            "{} is not valid TOML: {}",
            path.display(),
            error.message()
        ))
    })?;
    let mail = document
        .entry("mail")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .ok_or_else(|| {
            MailError::Config(format!(
                "mail in {} is not a table: write it as [mail], or move it aside",
                path.display()
            ))
        })?;
    let mut replaced = false;
    for (name, value) in given {
        match mail.get_mut(name) {
            Some(Item::Value(old)) => {
                if old.as_str() == Some(value.as_str()) {
                    continue;
                }
                replaced = true;
                let decor = old.decor().clone();
                let mut new = Value::from(value.as_str());
                *new.decor_mut() = decor;
                *old = new;
            }
            Some(_) => {
                return Err(MailError::Config(format!(
                    "{name} under [mail] in {} is not a value: write it as {name} = \"...\"",
                    path.display()
                )))
            }
            None => {
                mail.insert(name, toml_edit::value(value.as_str()));
            }
        }
    }
    Ok((document.to_string(), replaced))
}

/// Each value read as the commands read it: the sender an address, the SMTP and IMAP
/// URLs of forms their transports take.
fn check_values(settings: &MailSettings) -> Result<(), MailError> {
    if let Some(from) = &settings.from {
        if address_of(from).parse::<lettre::Address>().is_err() {
            return Err(MailError::Config(format!(
                "from {from:?} names no mail address; write it as \"Referee <referee@example.org>\" or referee@example.org"
            )));
        }
    }
    if let Some(smtp) = &settings.smtp {
        // Any password does to read the URL's form: it is neither sent nor shown.
        let options = Options {
            password: Some("-".into()),
            ..Options::default()
        };
        Transport::with_options(smtp, &options)?;
    }
    if let Some(imap) = &settings.imap {
        ImapMailbox::check_url(imap)?;
    }
    Ok(())
}

/// The lines that differ between `before` and `after`, with any password of their
/// SMTP URLs blanked.
fn difference(before: &str, after: &str, settings: &MailSettings, path: &Path) -> String {
    let old = MailSettings::from_config(before, path).ok();
    // An IMAP URL with a password is refused, but one may be in the file as it was.
    let urls = |s: MailSettings| [s.smtp, s.imap];
    let forms: Vec<String> = old
        .into_iter()
        .chain([settings.clone()])
        .flat_map(urls)
        .flatten()
        .filter_map(|spec| ServerUrl::parse(&spec, |_, _| ()).ok())
        .flat_map(|url| match (url.user, url.password) {
            (user, Some(password)) => password_forms(&user.unwrap_or_default(), &password),
            _ => Vec::new(),
        })
        .collect();
    // Blanked once the lines are compared: two passwords blanked alike would compare
    // equal, and a changed password would show no difference.
    let shown = path.display().to_string();
    let diff = similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(1)
        .header(&format!("{shown} (now)"), &format!("{shown} (given)"))
        .to_string();
    without_password(&diff, &forms)
}

/// Why `dir` is no place for the referee's key, if it is not: a link, not a folder, or
/// open to others.
fn private_folder(dir: &Path) -> Result<u32, String> {
    let shown = dir.display();
    let metadata = std::fs::symlink_metadata(dir)
        .map_err(|error| format!("cannot look at PBEM_HOME {shown}: {error}"))?;
    if metadata.file_type().is_symlink() {
        return Err(format!(
            "PBEM_HOME {shown} is a symbolic link: pbem does not keep the referee's key behind a link someone could point elsewhere; set PBEM_HOME to the folder itself"
        ));
    }
    if !metadata.is_dir() {
        return Err(format!(
            "PBEM_HOME {shown} is not a folder; move it aside, or set PBEM_HOME to another path"
        ));
    }
    let mode = mode_of(&metadata);
    if mode & 0o077 != 0 {
        return Err(format!(
            "PBEM_HOME {shown} may be read by others (mode {mode:03o}), and it holds the referee's signing key: chmod 700 {shown}"
        ));
    }
    Ok(mode)
}

/// Why `path` is no file to keep a secret in, if it is not: a link, not a regular
/// file, or open to others (`fix` makes it private).
fn private_file(path: &Path, fix: &str) -> Result<u32, String> {
    let shown = path.display();
    let metadata =
        std::fs::symlink_metadata(path).map_err(|error| format!("cannot read {shown}: {error}"))?;
    if metadata.file_type().is_symlink() {
        return Err(format!(
            "{shown} is a symbolic link: pbem does not read its settings or secrets through a link someone could point elsewhere; put the file itself there"
        ));
    }
    if !metadata.is_file() {
        return Err(format!("{shown} is not a regular file; put a file there"));
    }
    let mode = mode_of(&metadata);
    if mode & 0o077 != 0 {
        return Err(format!(
            "{shown} may be read by others (mode {mode:03o}): {fix} {shown}"
        ));
    }
    Ok(mode)
}

#[cfg(unix)]
fn mode_of(metadata: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o777
}

#[cfg(not(unix))]
fn mode_of(_metadata: &std::fs::Metadata) -> u32 {
    0o600
}

/// What a check is asked to do besides the settings.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Where the test mail goes: the referee's own address (`from`) when `None`.
    pub to: Option<String>,
    /// How long the test mail is waited for in the IMAP mailbox.
    pub wait: Duration,
}

/// One step of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Ok(String),
    Failed {
        what: String,
        fix: String,
        /// Not reached or no answer in time (trying again later may do), rather than
        /// settings to change.
        unreachable: bool,
    },
}

/// How a whole check went.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// A step failed because of the settings.
    pub failed: bool,
    /// A step failed because a server was not reached or did not answer in time.
    pub unreachable: bool,
}

/// Says each line and keeps the tally.
struct Steps<'a> {
    say: &'a mut dyn FnMut(&Line),
    checked: Checked,
}

impl Steps<'_> {
    fn ok(&mut self, text: String) {
        (self.say)(&Line::Ok(text));
    }

    fn failed(&mut self, what: String, fix: String) {
        self.checked.failed = true;
        (self.say)(&Line::Failed {
            what,
            fix,
            unreachable: false,
        });
    }

    fn unreachable(&mut self, what: String, fix: String) {
        self.checked.unreachable = true;
        (self.say)(&Line::Failed {
            what,
            fix,
            unreachable: true,
        });
    }
}

/// Checks the settings of `home` end to end, one [`Line`] per step to `say`: the
/// folder, config.toml, `from`, the password file, SMTP, IMAP, and a test mail sent
/// and waited for.
pub fn check(home: &Path, options: &CheckOptions, say: &mut dyn FnMut(&Line)) -> Checked {
    let mut steps = Steps {
        say,
        checked: Checked::default(),
    };
    let Some(settings) = check_files(home, &mut steps) else {
        return steps.checked;
    };
    let Some(from) = check_from(&settings, &mut steps) else {
        return steps.checked;
    };
    check_password_file(&settings, &mut steps);
    let transport = check_smtp(&settings, &mut steps);
    let mut mailbox = check_imap(&settings, &mut steps);
    if let Some(transport) = transport {
        let to = options.to.clone().unwrap_or_else(|| from.clone());
        if let Some(sent) = send_test(&settings, &transport, &from, &to, &mut steps) {
            match (&mut mailbox, &transport) {
                (_, Transport::Folder(_)) => {}
                (Some((mailbox, opened)), _) if address_of(&to) == from => {
                    wait_for(mailbox, opened, &sent, options.wait, &mut steps);
                }
                (Some(_), _) => steps.ok(format!(
                    "the test mail went to {to}, not the referee's own address: not waited for in the IMAP mailbox"
                )),
                (None, _) => {}
            }
        }
    }
    if let Some((_, opened)) = &mut mailbox {
        let _ = opened.session.logout();
    }
    steps.checked
}

/// The folder and config.toml private, and the settings as the commands read them.
fn check_files(home: &Path, steps: &mut Steps<'_>) -> Option<MailSettings> {
    let shown = home.display();
    match std::fs::symlink_metadata(home) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            steps.failed(
                format!("PBEM_HOME {shown} does not exist"),
                "`pbem setup --from ADDRESS --smtp URL` makes it and writes config.toml there (or set PBEM_HOME to the referee's folder)".into(),
            );
            return None;
        }
        _ => match private_folder(home) {
            Ok(mode) => steps.ok(format!(
                "PBEM_HOME {shown} is the referee's alone (mode {mode:03o})"
            )),
            Err(why) => steps.failed(why, "then run `pbem setup --check` again".into()),
        },
    }
    let path = home.join(CONFIG_FILE);
    let present = std::fs::symlink_metadata(&path).is_ok();
    if present {
        if let Err(why) = private_file(&path, "chmod 600") {
            steps.failed(why, "then run `pbem setup --check` again".into());
        }
    }
    match MailSettings::load(home, None) {
        Ok(settings) => {
            if present {
                steps.ok(format!("{} reads", path.display()));
            } else {
                steps.ok(format!(
                    "there is no {}: the settings are PBEM_SMTP, PBEM_FROM and PBEM_IMAP alone",
                    path.display()
                ));
            }
            Some(settings)
        }
        Err(error) => {
            steps.failed(
                error.to_string(),
                "correct it, or write its [mail] keys with `pbem setup --force --from ... --smtp ...`".into(),
            );
            None
        }
    }
}

/// The referee's address, from `from`.
fn check_from(settings: &MailSettings, steps: &mut Steps<'_>) -> Option<String> {
    let Some(from) = &settings.from else {
        steps.failed(
            "no `from` under [mail] (nor PBEM_FROM): players' mail would come from referee@localhost".into(),
            "`pbem setup --from \"Referee <referee@example.org>\"`".into(),
        );
        return None;
    };
    let address = settings.from_address();
    if address.parse::<lettre::Address>().is_err() {
        steps.failed(
            format!("from {from:?} names no mail address"),
            "`pbem setup --force --from \"Referee <referee@example.org>\"`".into(),
        );
        return None;
    }
    steps.ok(format!("mail goes out from {address}"));
    Some(address)
}

/// The password file, when one is named: a private regular file with a first line.
fn check_password_file(settings: &MailSettings, steps: &mut Steps<'_>) {
    let Some(path) = &settings.password_file else {
        return;
    };
    let shown = path.display();
    let fix = format!(
        "put the password alone on its first line, typed rather than left in the shell's history: (umask 077; read -rs pw && printf '%s\\n' \"$pw\" > {shown})"
    );
    if std::fs::symlink_metadata(path).is_err() {
        steps.failed(format!("password_file {shown} does not exist"), fix);
        return;
    }
    match private_file(path, "chmod 600") {
        Err(why) => steps.failed(why, "then run `pbem setup --check` again".into()),
        Ok(mode) => match settings.password_from_file() {
            Ok(_) => steps.ok(format!(
                "password_file {shown} is private (mode {mode:03o})"
            )),
            Err(error) => steps.failed(error.to_string(), fix),
        },
    }
}

/// The fix for settings a transport refused before it was used.
fn settings_fix(error: &MailError, key: &str, variable: &str) -> String {
    if error.to_string().contains("password") {
        format!(
            "give the password as the first line of the file password_file names (`pbem setup --password-file PATH`), or in {variable}"
        )
    } else {
        format!("correct {key} under [mail]: `pbem setup --force --{key} URL`")
    }
}

/// Where the SMTP password comes from, as a sentence's end.
fn smtp_password_source(settings: &MailSettings, spec: &str) -> String {
    let in_url = ServerUrl::parse(spec, |_, _| ())
        .ok()
        .is_some_and(|url| url.password.is_some());
    if in_url {
        "the password in the smtp URL".into()
    } else if std::env::var("PBEM_SMTP_PASSWORD").is_ok_and(|v| !v.is_empty()) {
        "PBEM_SMTP_PASSWORD".into()
    } else {
        password_file_source(settings)
    }
}

/// Where the IMAP password comes from.
fn imap_password_source(settings: &MailSettings) -> String {
    if std::env::var("PBEM_IMAP_PASSWORD").is_ok_and(|v| !v.is_empty()) {
        "PBEM_IMAP_PASSWORD".into()
    } else {
        password_file_source(settings)
    }
}

fn password_file_source(settings: &MailSettings) -> String {
    match &settings.password_file {
        Some(path) => format!("the first line of {}", path.display()),
        None => "nowhere (no password_file under [mail])".into(),
    }
}

const UNREACHABLE_FIX: &str = "check the host and port in the URL; if they are right, the server or the network is down: try again later with `pbem setup --check`";

/// The transport, its server greeted and logged in to where it is SMTP.
fn check_smtp(settings: &MailSettings, steps: &mut Steps<'_>) -> Option<Transport> {
    let Some(spec) = &settings.smtp else {
        steps.failed(
            "no `smtp` under [mail] (nor PBEM_SMTP): pbem cannot send mail".into(),
            "`pbem setup --smtp smtps://USER@HOST` (a hosted mailbox), or --smtp sendmail (a mail server on this machine)".into(),
        );
        return None;
    };
    let transport = match settings.transport() {
        Ok(transport) => transport,
        Err(error) => {
            let fix = settings_fix(&error, "smtp", "PBEM_SMTP_PASSWORD");
            steps.failed(error.to_string(), fix);
            return None;
        }
    };
    let smtp = match &transport {
        Transport::Smtp(smtp) => smtp,
        Transport::Sendmail(_) => {
            steps.ok(format!(
                "mail goes out through {transport:?}; the test mail checks it"
            ));
            return Some(transport);
        }
        Transport::Folder(dir) => {
            steps.ok(format!(
                "mail goes into the folder {} (a dry run): nothing reaches anyone",
                dir.display()
            ));
            return Some(transport);
        }
    };
    let server = smtp.server();
    // Every line names the server, which lettre's own words may not.
    let named = |why: &str| {
        let why = smtp.blanked(why);
        if why.contains(&server) {
            why
        } else {
            format!("SMTP {server}: {why}")
        }
    };
    let greeted = match smtp.check_greeting() {
        Ok(greeted) => greeted,
        Err(CheckError::Unreachable(why)) => {
            steps.unreachable(named(&why), UNREACHABLE_FIX.into());
            return None;
        }
        Err(CheckError::Setup(why)) => {
            steps.failed(
                named(&why),
                "name the PEM file of the CA that signed the server's certificate: `pbem setup --ca-file PATH`".into(),
            );
            return None;
        }
    };
    steps.ok(format!("SMTP {server} answered EHLO ({})", greeted.secured));
    let user = smtp.user().map(str::to_string);
    match (smtp.check_login(greeted), user) {
        (Ok(()), Some(user)) => steps.ok(format!("SMTP {server} accepted the login of {user}")),
        (Ok(()), None) => steps.ok(format!(
            "SMTP {server} is used without a login (the URL names no user)"
        )),
        (Err(CheckError::Unreachable(why)), _) => {
            steps.unreachable(named(&why), UNREACHABLE_FIX.into());
            return None;
        }
        (Err(CheckError::Setup(why)), _) => {
            steps.failed(
                named(&why),
                format!(
                    "the password was read from {}",
                    smtp_password_source(settings, spec)
                ),
            );
            return None;
        }
    }
    Some(transport)
}

/// The IMAP mailbox, logged in to and selected, when one is set.
fn check_imap(
    settings: &MailSettings,
    steps: &mut Steps<'_>,
) -> Option<(ImapMailbox, crate::mail::inbound::imap::Opened)> {
    settings.imap.as_ref()?;
    let mailbox = match ImapMailbox::from_settings(settings) {
        Ok(mailbox) => mailbox,
        Err(error) => {
            let fix = settings_fix(&error, "imap", "PBEM_IMAP_PASSWORD");
            steps.failed(error.to_string(), fix);
            return None;
        }
    };
    let server = mailbox.server();
    match mailbox.connect_checked() {
        Ok(opened) => {
            let idle = if opened.idle {
                "it has IDLE: `pbem watch` takes mail as it arrives"
            } else {
                "it has no IDLE: `pbem watch` looks every --poll"
            };
            steps.ok(format!(
                "IMAP {server} accepted the login of {} and opened {}; {idle}",
                mailbox.user(),
                mailbox.mailbox()
            ));
            Some((mailbox, opened))
        }
        Err((true, error)) => {
            steps.unreachable(mailbox.blanked(&error.to_string()), UNREACHABLE_FIX.into());
            None
        }
        Err((false, error)) => {
            let text = mailbox.blanked(&error.to_string());
            let fix = if text.contains("login") {
                format!(
                    "the password was read from {}",
                    imap_password_source(settings)
                )
            } else if text.contains("TLS") {
                "name the PEM file of the CA that signed the server's certificate: `pbem setup --ca-file PATH`".into()
            } else if text.contains("mailbox") {
                format!(
                    "name a mailbox the server has at the end of the imap URL (imaps://USER@HOST/INBOX); {} was asked for",
                    mailbox.mailbox()
                )
            } else {
                "correct imap under [mail]: `pbem setup --force --imap URL`".into()
            };
            steps.failed(text, fix);
            None
        }
    }
}

/// A test mail sent: its Message-ID (without brackets).
fn send_test(
    settings: &MailSettings,
    transport: &Transport,
    from: &str,
    to: &str,
    steps: &mut Steps<'_>,
) -> Option<String> {
    let token = crate::engine::keyring::random_bytes()
        .map(|bytes| crate::basics::digest::to_hex(&bytes[..8]))
        .unwrap_or_else(|_| format!("{}", crate::mail::clock::now()));
    let message_id = format!("pbem.setup.{token}@{}", settings.domain());
    let subject = format!("pbem setup: test mail {token}");
    let mut body = String::new();
    let _ = write!(
        body,
        "`pbem setup` sent this to check that mail from {from} goes out and comes in.\n\n\
         pbem's intake (`pbem inbox --imap`, `pbem watch`) takes it for pbem's own\n\
         message: it is kept, never answered. You may delete it.\n"
    );
    let built = (|| {
        lettre::Message::builder()
            .from(settings.from_line().parse().ok()?)
            .to(to.parse().ok()?)
            .subject(&subject)
            .message_id(Some(format!("<{message_id}>")))
            .body(body)
            .ok()
    })();
    let Some(message) = built else {
        steps.failed(
            format!("no test mail can be written from {from} to {to}"),
            "give addresses of the form referee@example.org (--to, and from under [mail])".into(),
        );
        return None;
    };
    match transport.send_raw(from, &[to.to_string()], &message.formatted()) {
        Ok(()) => {
            steps.ok(format!(
                "a test mail went from {from} to {to} ({subject:?})"
            ));
            Some(message_id)
        }
        Err(error) => {
            let text = error.to_string();
            let fix = format!(
                "the server must take mail from {from} for {to}: is {from} the address of the account the smtp URL logs in as?"
            );
            if text.contains("timed out") {
                steps.unreachable(text, UNREACHABLE_FIX.into());
            } else {
                steps.failed(text, fix);
            }
            None
        }
    }
}

/// Waits for the test mail in the mailbox, then marks it read.
fn wait_for(
    mailbox: &ImapMailbox,
    opened: &mut crate::mail::inbound::imap::Opened,
    message_id: &str,
    wait: Duration,
    steps: &mut Steps<'_>,
) {
    let started = Instant::now();
    let shown = mailbox.shown();
    let query = format!("HEADER Message-ID \"{message_id}\"");
    loop {
        // NOOP first: a server tells of new mail at the end of a command.
        let found = opened
            .session
            .noop()
            .and_then(|()| opened.session.uid_search(&query));
        match found {
            Ok(uids) if !uids.is_empty() => {
                let list: Vec<String> = uids.iter().map(ToString::to_string).collect();
                let flagged = opened
                    .session
                    .uid_store(list.join(","), "+FLAGS.SILENT (\\Seen)");
                let after = started.elapsed().as_secs();
                match flagged {
                    Ok(_) => steps.ok(format!(
                        "the test mail arrived in {shown} within {} s and is marked read; `pbem inbox --imap` and `pbem watch` keep it as pbem's own, unanswered",
                        after.max(1)
                    )),
                    Err(error) => steps.failed(
                        mailbox.blanked(&format!(
                            "the test mail arrived in {shown}, but could not be marked read: {error}"
                        )),
                        "the login must be allowed to change flags in the mailbox".into(),
                    ),
                }
                return;
            }
            Ok(_) => {}
            Err(error) => {
                steps.unreachable(
                    mailbox.blanked(&format!(
                        "IMAP {}: stopped answering while the test mail was waited for: {error}",
                        mailbox.server()
                    )),
                    UNREACHABLE_FIX.into(),
                );
                return;
            }
        }
        if started.elapsed() >= wait {
            steps.failed(
                format!(
                    "the test mail did not arrive in {shown} within {} s",
                    wait.as_secs()
                ),
                "check that mail to the referee's address is delivered to that mailbox (not to a spam folder, not to another account); a slow server: --wait 5m".into(),
            );
            return;
        }
        std::thread::sleep(LOOK_EVERY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Keys {
        Keys {
            from: Some("Referee <ref@example.org>".into()),
            smtp: Some("smtps://ref%40example.org@mail.example.org".into()),
            imap: Some("imaps://ref%40example.org@mail.example.org/INBOX".into()),
            password_file: Some("/home/ref/.pbem-password".into()),
            ..Keys::default()
        }
    }

    #[test]
    fn a_new_config_has_every_key_given_and_reads() {
        let home = tempfile::tempdir().expect("dir");
        let home = home.path().join("pbem");
        let wrote = write_config(&home, &keys(), false).expect("written");
        assert!(wrote.made_home);
        assert_eq!(wrote.change, Change::Created);
        let text = std::fs::read_to_string(home.join(CONFIG_FILE)).expect("read");
        let settings = MailSettings::from_config(&text, &home).expect("reads");
        assert_eq!(settings.from.as_deref(), Some("Referee <ref@example.org>"));
        assert_eq!(
            settings.password_file,
            Some(PathBuf::from("/home/ref/.pbem-password"))
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
            assert_eq!(mode(&home), 0o700);
            assert_eq!(mode(&home.join(CONFIG_FILE)), 0o600);
        }
    }

    #[test]
    fn other_tables_and_comments_are_kept_byte_for_byte() {
        let before = "# mine\n[deadlines]\nturn = \"3d\" # three days\n\n[mail]\nfrom = \"a@example.org\" # me\npictures = false\n\n[other]\nx = 1\n";
        let given = vec![
            ("from", "b@example.org".to_string()),
            ("ca_file", "/etc/ca.pem".to_string()),
        ];
        let (after, replaced) = merged(Some(before), &given, Path::new("c")).expect("merged");
        assert!(replaced);
        assert_eq!(
            after,
            "# mine\n[deadlines]\nturn = \"3d\" # three days\n\n[mail]\nfrom = \"b@example.org\" # me\npictures = false\nca_file = \"/etc/ca.pem\"\n\n[other]\nx = 1\n"
        );
        let (same, replaced) = merged(Some(before), &[], Path::new("c")).expect("merged");
        assert_eq!((same.as_str(), replaced), (before, false));
    }

    #[test]
    fn a_changed_key_needs_force_and_the_difference_hides_the_password() {
        let home = tempfile::tempdir().expect("dir");
        let home = home.path().join("pbem");
        let first = Keys {
            smtp: Some("smtps://ref:s3cret-word@mail.example.org".into()),
            ..keys()
        };
        write_config(&home, &first, false).expect("written");
        let before = std::fs::read(home.join(CONFIG_FILE)).expect("read");
        let second = Keys {
            smtp: Some("smtps://ref:other-s3cret@mail.example.org".into()),
            ..Keys::default()
        };
        let wrote = write_config(&home, &second, false).expect("compared");
        let Change::Kept(diff) = &wrote.change else {
            panic!("{wrote:?}");
        };
        assert!(!diff.contains("s3cret"), "{diff}");
        assert!(diff.contains("-smtp") && diff.contains("+smtp"), "{diff}");
        assert_eq!(std::fs::read(home.join(CONFIG_FILE)).expect("read"), before);
        let wrote = write_config(&home, &second, true).expect("written");
        assert!(matches!(wrote.change, Change::Replaced(_)), "{wrote:?}");
        let wrote = write_config(&home, &second, false).expect("same");
        assert_eq!(wrote.change, Change::Unchanged);
    }

    #[test]
    fn values_are_read_as_the_commands_read_them() {
        let dir = tempfile::tempdir().expect("dir");
        let home = dir.path().join("pbem");
        for (keys, said) in [
            (
                Keys {
                    smtp: Some("pigeon://coop".into()),
                    ..Keys::default()
                },
                "smtp://",
            ),
            (
                Keys {
                    imap: Some("imaps://ref:pw@host/INBOX".into()),
                    ..Keys::default()
                },
                "holds a password",
            ),
            (
                Keys {
                    timeout: Some("soon".into()),
                    ..Keys::default()
                },
                "15s",
            ),
            (
                Keys {
                    from: Some("nobody".into()),
                    ..Keys::default()
                },
                "names no mail address",
            ),
        ] {
            let error = write_config(&home, &keys, false).expect_err("refused");
            assert!(error.to_string().contains(said), "{error}");
            assert!(!home.join(CONFIG_FILE).exists());
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_or_file_others_may_read_or_a_link_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let open = dir.path().join("open");
        std::fs::create_dir(&open).expect("dir");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let error = write_config(&open, &keys(), false).expect_err("refused");
        assert!(error.to_string().contains("chmod 700"), "{error}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&open, &link).expect("link");
        let error = write_config(&link, &keys(), false).expect_err("refused");
        assert!(error.to_string().contains("symbolic link"), "{error}");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        std::fs::write(open.join(CONFIG_FILE), "[mail]\n").expect("write");
        std::fs::set_permissions(
            open.join(CONFIG_FILE),
            std::fs::Permissions::from_mode(0o644),
        )
        .expect("chmod");
        let error = write_config(&open, &keys(), false).expect_err("refused");
        assert!(error.to_string().contains("chmod 600"), "{error}");
    }
}
