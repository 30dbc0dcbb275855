//! Where outgoing mail goes: SMTP (with STARTTLS or TLS and login), a sendmail
//! command, or a folder of .eml files for dry runs. Chosen by `--smtp`, PBEM_SMTP, or
//! `smtp = "..."` in PBEM_HOME/config.toml, in that order.
//!
//! Transport specs may hold a password (`smtp://user:token@host:587`); they are never
//! printed: [`Transport`]'s Debug and every error show the host only.

use std::fmt;
use std::path::{Path, PathBuf};

use lettre::address::Envelope;
use lettre::transport::file::FileTransport;
use lettre::transport::sendmail::SendmailTransport;
use lettre::transport::smtp::SmtpTransport;
use lettre::{Address, Transport as _};

use super::MailError;

/// A way to send mail.
pub enum Transport {
    Smtp {
        transport: Box<SmtpTransport>,
        host: String,
    },
    Sendmail(SendmailTransport),
    Folder(PathBuf),
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Smtp { host, .. } => write!(f, "SMTP to {host}"),
            Transport::Sendmail(_) => f.write_str("sendmail"),
            Transport::Folder(dir) => write!(f, "the folder {}", dir.display()),
        }
    }
}

/// The host part of an SMTP URL, for messages: no user, no password.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    rest.split(['/', '?']).next().unwrap_or(rest).to_string()
}

impl Transport {
    /// Reads a transport spec: `smtp://[user:pass@]host[:port][?tls=required]`,
    /// `smtps://...`, `sendmail` or `sendmail:/path/to/sendmail`, `folder:DIR`.
    ///
    /// # Errors
    /// A spec of none of these forms, or an SMTP URL lettre does not accept.
    pub fn parse(spec: &str) -> Result<Transport, MailError> {
        let spec = spec.trim();
        if spec.starts_with("smtp://") || spec.starts_with("smtps://") {
            let host = host_of(spec);
            let transport = SmtpTransport::from_url(spec)
                .map_err(|_| MailError::Config(format!("the SMTP URL for {host} is not valid; write it as smtp://user:password@host:587?tls=required or smtps://user:password@host")))?
                .build();
            return Ok(Transport::Smtp {
                transport: Box::new(transport),
                host,
            });
        }
        if spec == "sendmail" {
            return Ok(Transport::Sendmail(SendmailTransport::new()));
        }
        if let Some(command) = spec.strip_prefix("sendmail:") {
            return Ok(Transport::Sendmail(SendmailTransport::new_with_command(
                command,
            )));
        }
        if let Some(dir) = spec.strip_prefix("folder:") {
            return Ok(Transport::Folder(PathBuf::from(dir)));
        }
        Err(MailError::Config(
            "a mail transport is smtp://user:password@host:587?tls=required, smtps://..., sendmail, sendmail:/path or folder:DIR".into(),
        ))
    }

    /// Sends one message, already formatted, to `to` with envelope sender `from`.
    ///
    /// # Errors
    /// The server, command or folder refused it; the message is then still wherever
    /// the caller kept it.
    pub fn send_raw(&self, from: &str, to: &[String], raw: &[u8]) -> Result<(), MailError> {
        let parse = |text: &str| {
            text.parse::<Address>()
                .map_err(|_| MailError::Config(format!("{text:?} is not a mail address")))
        };
        let recipients = to.iter().map(|t| parse(t)).collect::<Result<Vec<_>, _>>()?;
        let envelope = Envelope::new(Some(parse(from)?), recipients)
            .map_err(|error| MailError::Config(format!("no envelope: {error}")))?;
        let failed = |error: String| MailError::Send {
            transport: format!("{self:?}"),
            error,
        };
        match self {
            Transport::Smtp { transport, .. } => transport
                .send_raw(&envelope, raw)
                .map(drop)
                .map_err(|error| failed(error.to_string())),
            Transport::Sendmail(transport) => transport
                .send_raw(&envelope, raw)
                .map_err(|error| failed(error.to_string())),
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
    /// The transport spec ([`Transport::parse`]).
    pub smtp: Option<String>,
    /// The referee's address, as `Name <address>` or an address.
    pub from: Option<String>,
    /// A folder of templates that replace the built-in ones, file by file.
    pub templates: Option<PathBuf>,
    /// Attach the signed game file to every turn notice, so any player can audit.
    #[serde(default)]
    pub attach_game: bool,
}

#[derive(serde::Deserialize, Default)]
struct ConfigFile {
    #[serde(default)]
    mail: MailSettings,
}

impl MailSettings {
    /// Settings from `PBEM_HOME/config.toml` (`[mail]` table), then PBEM_SMTP and
    /// PBEM_FROM over them, then `smtp` (a command-line flag) over all.
    ///
    /// # Errors
    /// The config file exists but is not valid.
    pub fn load(home: &Path, smtp: Option<&str>) -> Result<MailSettings, MailError> {
        let path = home.join("config.toml");
        let mut settings = match std::fs::read_to_string(&path) {
            Ok(text) => {
                toml::from_str::<ConfigFile>(&text)
                    .map_err(|error| {
                        MailError::Config(format!(
                            "{} is not valid: {}",
                            path.display(),
                            error.message()
                        ))
                    })?
                    .mail
            }
            Err(_) => MailSettings::default(),
        };
        if let Some(value) = std::env::var("PBEM_SMTP").ok().filter(|v| !v.is_empty()) {
            settings.smtp = Some(value);
        }
        if let Some(value) = std::env::var("PBEM_FROM").ok().filter(|v| !v.is_empty()) {
            settings.from = Some(value);
        }
        if let Some(value) = smtp {
            settings.smtp = Some(value.to_string());
        }
        Ok(settings)
    }

    /// The transport to send with.
    ///
    /// # Errors
    /// None is configured, or the spec is not valid.
    pub fn transport(&self) -> Result<Transport, MailError> {
        match &self.smtp {
            Some(spec) => Transport::parse(spec),
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

    #[test]
    fn hosts_never_carry_credentials() {
        assert_eq!(
            host_of("smtp://ann:s3cret@mail.example.org:587?tls=required"),
            "mail.example.org:587"
        );
        assert_eq!(host_of("smtps://mail.example.org"), "mail.example.org");
        let transport = Transport::parse("smtp://ann:s3cret@127.0.0.1:2525").expect("valid");
        assert!(!format!("{transport:?}").contains("s3cret"));
    }

    #[test]
    fn specs_are_read_or_refused_with_the_accepted_forms() {
        assert!(matches!(
            Transport::parse("folder:/tmp/out"),
            Ok(Transport::Folder(_))
        ));
        assert!(matches!(
            Transport::parse("sendmail"),
            Ok(Transport::Sendmail(_))
        ));
        let error = Transport::parse("pigeon://coop").expect_err("refused");
        assert!(error.to_string().contains("smtp://"));
    }

    #[test]
    fn settings_come_from_the_config_file_and_the_flag_wins() {
        let home = tempfile::tempdir().expect("dir");
        std::fs::write(
            home.path().join("config.toml"),
            "[mail]\nsmtp = \"folder:/tmp/out\"\nfrom = \"Ref <Ref@Example.org>\"\nattach_game = true\n",
        )
        .expect("config");
        let settings = MailSettings::load(home.path(), None).expect("loads");
        if std::env::var_os("PBEM_SMTP").is_none() {
            assert_eq!(settings.smtp.as_deref(), Some("folder:/tmp/out"));
        }
        assert!(settings.attach_game);
        if std::env::var_os("PBEM_FROM").is_none() {
            assert_eq!(settings.from_address(), "ref@example.org");
            assert_eq!(settings.domain(), "example.org");
        }
        let flagged = MailSettings::load(home.path(), Some("sendmail")).expect("loads");
        assert_eq!(flagged.smtp.as_deref(), Some("sendmail"));
        std::fs::write(home.path().join("config.toml"), "[mail]\nsmtp = 3\n").expect("config");
        let error = MailSettings::load(home.path(), None).expect_err("refused");
        assert!(error.to_string().contains("config.toml"), "{error}");
    }

    #[test]
    fn addresses_are_found_in_from_lines() {
        assert_eq!(address_of("Referee <Ref@Example.org>"), "ref@example.org");
        assert_eq!(address_of("ref@example.org"), "ref@example.org");
    }
}
