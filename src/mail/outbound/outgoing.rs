//! One message ready to send, as the outbox keeps it: envelope and the whole formatted
//! message. Below the outbox and the notices kept of what was sent, which both hold it.

use serde::{Deserialize, Serialize};

use super::capability::NoticeId;

/// One message ready to send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outgoing {
    /// Envelope sender.
    pub from: String,
    /// Envelope recipients.
    pub to: Vec<String>,
    /// The whole formatted message (RFC 5322, 7-bit clean as lettre writes it).
    pub message: String,
}

impl Outgoing {
    /// The message's Subject header, decoded.
    pub fn subject(&self) -> String {
        mail_parser::MessageParser::default()
            .parse_headers(self.message.as_bytes())
            .and_then(|parsed| parsed.subject().map(str::to_string))
            .unwrap_or_default()
    }

    /// Our notice id, when the message is a notice of ours (a turn notice, a reply).
    pub fn notice(&self) -> Option<NoticeId> {
        notice_of(&self.message)
    }

    /// The subject as the referee is shown it, by mail or on standard error (which
    /// cron mails): a reply code in it, the recipient's alone, reads `(hidden)`.
    pub fn shown_subject(&self) -> String {
        let subject = self.subject();
        match self.notice() {
            Some(notice) if !notice.code.is_empty() => subject.replace(&notice.code, "(hidden)"),
            _ => subject,
        }
    }
}

/// The header that marks a notice carrying news held for its reader (the moves since
/// their last mail): such a notice is never dropped for a later one, which does not
/// carry that news again.
pub(crate) const CARRIES_NEWS: &str = "X-Pbem-Carries-News";

impl Outgoing {
    /// This message, marked as carrying news held for its reader ([`CARRIES_NEWS`]).
    #[must_use]
    pub fn carrying_news(mut self) -> Outgoing {
        self.message = format!("{CARRIES_NEWS}: yes\r\n{}", self.message);
        self
    }

    /// Whether the message carries news held for its reader.
    pub fn carries_news(&self) -> bool {
        let headers = self.message.split("\r\n\r\n").next().unwrap_or_default();
        headers.lines().any(|line| {
            line.split_once(':')
                .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case(CARRIES_NEWS))
        })
    }
}

/// Our notice id of a composed message, read from its Message-ID header.
pub(crate) fn notice_of(message: &str) -> Option<NoticeId> {
    let headers = message.split("\r\n\r\n").next()?;
    headers.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("message-id")
            .then(|| NoticeId::parse(value.trim().trim_matches(['<', '>'])))
            .flatten()
    })
}
