//! Flags shared by the commands that send mail, the mail settings they give, and what
//! such a command says of the mail it sent.

use std::path::PathBuf;

use crate::mail::outbound::outbox::{Flushed, Listed};
use crate::mail::referee::Mailing;
use crate::mail::MailError;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct MailArgs {
    /// Mail transport: smtp://user:token@host:587?tls=required, smtps://..., sendmail, or
    /// folder:DIR for a dry run (default: PBEM_SMTP, then PBEM_HOME/config.toml)
    #[arg(long, value_name = "URL")]
    pub smtp: Option<String>,
    /// A folder of templates that replace the built-in ones, file by file
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// Attach the signed game file to turn notices, so any player can audit
    #[arg(long)]
    pub attach_game: bool,
}

impl MailArgs {
    /// The mail settings these flags give.
    pub fn mailing(&self) -> Mailing {
        Mailing {
            smtp: self.smtp.clone(),
            templates: self.templates.clone(),
            attach_game: self.attach_game,
        }
    }
}

/// Says what sending a game's outbox did; failure to send is not an error (the mail
/// waits), only reported, as is mail refused for good (set aside). Nothing without
/// mail. Returns whether mail still waits in the outbox, not sent.
pub fn report_sent(file: &std::path::Path, sent: Option<Result<Flushed, MailError>>) -> bool {
    let Some(sent) = sent else {
        return false;
    };
    let waiting = !matches!(&sent, Ok(flushed) if flushed.waiting == 0);
    match sent {
        Ok(flushed) => {
            for message in &flushed.refused {
                report_refused(file, message);
            }
            if flushed.waiting == 0 {
                outln!("mail: {} message(s) sent", flushed.sent);
            } else {
                errln!(
                    "mail: {} sent, {} waiting in the outbox{}; `pbem outbox flush` retries",
                    flushed.sent,
                    flushed.waiting,
                    flushed.error.map(|e| format!(" ({e})")).unwrap_or_default()
                );
            }
        }
        Err(error) => errln!("mail: nothing sent: {:#}", anyhow::Error::new(error)),
    }
    waiting
}

/// Says on standard error that a message of `file`'s outbox was refused for good and
/// set aside (the referee is also told by mail).
pub fn report_refused(file: &std::path::Path, message: &Listed) {
    errln!(
        "{}: mail to {} refused for good, set aside as {} ({}): {}; `pbem outbox retry` or `drop` it",
        file.display(),
        message.to.join(", "),
        message.id,
        message.subject,
        message.reason.as_deref().unwrap_or_default()
    );
}

/// Reads a duration in seconds such as `3d`, `12h`, `30m` or `90s` (a bare number is
/// days).
pub fn parse_duration(text: &str) -> Result<u64, String> {
    crate::basics::duration::parse(text, std::time::Duration::from_secs(86_400))
        .map(|d| d.as_secs())
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations() {
        assert_eq!(super::parse_duration("3d"), Ok(259_200));
        assert_eq!(super::parse_duration("12h"), Ok(43_200));
        assert_eq!(super::parse_duration("2"), Ok(172_800));
        assert!(super::parse_duration("soon").is_err());
    }
}
