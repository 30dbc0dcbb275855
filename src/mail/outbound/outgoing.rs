//! One message ready to send, as the outbox keeps it: envelope and the whole formatted
//! message. Below the outbox and the notices kept of what was sent, which both hold it.

use serde::{Deserialize, Serialize};

use super::capability::NoticeId;

/// The header that marks a turn notice reporting a move (the last one, or those held
/// for its reader since their last mail): the outbox never drops such a notice for a
/// later one, which does not report those moves again.
pub(crate) const CARRIES_NEWS: &str = "X-Pbem-Carries-News";

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

    /// This message, marked as reporting a move to its reader ([`CARRIES_NEWS`]).
    #[must_use]
    pub fn carrying_news(mut self) -> Outgoing {
        self.message = format!("{CARRIES_NEWS}: yes\r\n{}", self.message);
        self
    }

    /// Whether the message reports a move to its reader.
    pub fn carries_news(&self) -> bool {
        header_fields(&self.message).any(|(name, _)| name.eq_ignore_ascii_case(CARRIES_NEWS))
    }
}

/// The (name, value) of each header line of a message as pbem composed it (one line
/// each, as the fields read here are written).
fn header_fields(message: &str) -> impl Iterator<Item = (&str, &str)> {
    let headers = message.split("\r\n\r\n").next().unwrap_or_default();
    headers.lines().filter_map(|line| {
        let (name, value) = line.split_once(':')?;
        Some((name.trim(), value.trim()))
    })
}

/// Our notice id of a composed message, read from its Message-ID header.
pub(crate) fn notice_of(message: &str) -> Option<NoticeId> {
    header_fields(message).find_map(|(name, value)| {
        name.eq_ignore_ascii_case("message-id")
            .then(|| NoticeId::parse(value.trim_matches(['<', '>'])))
            .flatten()
    })
}
