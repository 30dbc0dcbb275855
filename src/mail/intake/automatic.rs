//! Whether a message was sent by a machine rather than a person: a vacation
//! responder's reply, a bounce (or a bounce of a bounce), a read receipt, a mailing
//! list's or a bulk sender's mail. RFC 3834 asks that such a message never be
//! answered automatically, and none of them is a move, though a vacation reply cites
//! the notice it answers and may quote its reply code back. The referee keeps it and
//! is told of it; its sender hears nothing.
//!
//! The marks looked for, each from the header alone:
//! - `Auto-Submitted:` with any value but `no` (RFC 3834: `auto-replied`,
//!   `auto-generated`, `auto-notified`);
//! - `Precedence:` `bulk`, `junk`, `list` or `auto_reply` (what responders set and
//!   read before RFC 3834, and still do);
//! - `X-Autoreply`, `X-Autorespond` or `X-Autoresponder`, which some responders add
//!   instead;
//! - a report (`multipart/report`, RFC 6522: delivery status notifications and
//!   message disposition notifications, the read receipts), or `X-Failed-Recipients`
//!   (Exim's bounces);
//! - an empty envelope sender, `Return-Path: <>`, which every bounce has (RFC 5321
//!   4.5.5) once the receiving server has written it down;
//! - a sender whose local part is `mailer-daemon` or `postmaster`;
//! - `List-Id` (RFC 2919): a list's copy, which RFC 3834 says not to answer either.

use mail_parser::{Message, MimeHeaders};

/// Why `message` is an automatic message (the mark found, as the referee is told it),
/// or `None` for a person's.
pub(super) fn automatic(message: &Message<'_>, from_address: Option<&str>) -> Option<String> {
    let raw = |name: &'static str| message.header_raw(name).map(str::trim);
    if let Some(value) = raw("Auto-Submitted") {
        let keyword = value.split(';').next().unwrap_or_default().trim();
        if !keyword.eq_ignore_ascii_case("no") {
            return Some(format!("Auto-Submitted: {}", shown(keyword)));
        }
    }
    if let Some(value) = raw("Precedence") {
        let value = value.to_ascii_lowercase();
        if ["bulk", "junk", "list", "auto_reply"].contains(&value.as_str()) {
            return Some(format!("Precedence: {value}"));
        }
    }
    for name in ["X-Autoreply", "X-Autorespond", "X-Autoresponder"] {
        if raw(name).is_some() {
            return Some(format!("{name} header"));
        }
    }
    if let Some(kind) = message.content_type() {
        let report = kind.ctype().eq_ignore_ascii_case("multipart")
            && kind
                .subtype()
                .is_some_and(|s| s.eq_ignore_ascii_case("report"));
        if report {
            let report_type = kind
                .attribute("report-type")
                .map_or_else(|| "report".to_string(), shown);
            return Some(format!("a report ({report_type})"));
        }
    }
    if raw("X-Failed-Recipients").is_some() {
        return Some("a bounce (X-Failed-Recipients)".to_string());
    }
    if raw("Return-Path").is_some_and(|path| path.replace(char::is_whitespace, "") == "<>") {
        return Some("a bounce (Return-Path: <>)".to_string());
    }
    if let Some(local) = from_address.and_then(|address| address.split('@').next()) {
        if local.eq_ignore_ascii_case("mailer-daemon") || local.eq_ignore_ascii_case("postmaster") {
            return Some(format!("a bounce (from {local})"));
        }
    }
    if raw("List-Id").is_some() {
        return Some("a mailing list's copy (List-Id)".to_string());
    }
    None
}

/// A header value as the referee is told it: a short, plain word.
fn shown(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(40)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::MessageParser;

    fn why(header: &str) -> Option<String> {
        let raw = format!(
            "From: Ann <ann@example.org>\r\nSubject: Re: [pbem row-1] Turn 3\r\n{header}\r\nplace E,W at C5\r\n"
        );
        let message = MessageParser::default()
            .parse(raw.as_bytes())
            .expect("parsed");
        let from = message
            .from()
            .and_then(|f| f.first())
            .and_then(|a| a.address())
            .map(str::to_lowercase);
        automatic(&message, from.as_deref())
    }

    #[test]
    fn every_mark_of_a_machine_is_read_and_a_persons_mail_has_none() {
        for (header, said) in [
            (
                "Auto-Submitted: auto-replied\r\n",
                "Auto-Submitted: auto-replied",
            ),
            (
                "Auto-Submitted: Auto-Generated; owner-email=\"x@y\"\r\n",
                "Auto-Submitted: Auto-Generated",
            ),
            ("Precedence: bulk\r\n", "Precedence: bulk"),
            ("Precedence: JUNK\r\n", "Precedence: junk"),
            ("Precedence: auto_reply\r\n", "Precedence: auto_reply"),
            ("X-Autoreply: yes\r\n", "X-Autoreply header"),
            ("X-Autorespond: on vacation\r\n", "X-Autorespond header"),
            (
                "Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n",
                "a report (delivery-status)",
            ),
            (
                "X-Failed-Recipients: bob@example.org\r\n",
                "a bounce (X-Failed-Recipients)",
            ),
            ("Return-Path: <>\r\n", "a bounce (Return-Path: <>)"),
            (
                "List-Id: Games <games.example.org>\r\n",
                "a mailing list's copy (List-Id)",
            ),
        ] {
            assert_eq!(why(header).as_deref(), Some(said), "{header}");
        }
        for person in [
            "",
            "Auto-Submitted: no\r\n",
            "Precedence: first-class\r\n",
            "Return-Path: <ann@example.org>\r\n",
            "Content-Type: text/plain; charset=utf-8\r\n",
        ] {
            assert_eq!(why(person), None, "{person}");
        }
    }

    #[test]
    fn a_bounce_from_the_mailer_daemon_is_one() {
        let raw = "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\nSubject: Undelivered Mail Returned to Sender\r\n\r\nbody\r\n";
        let message = MessageParser::default()
            .parse(raw.as_bytes())
            .expect("parsed");
        assert_eq!(
            automatic(&message, Some("mailer-daemon@mx.example.org")).as_deref(),
            Some("a bounce (from mailer-daemon)")
        );
    }
}
