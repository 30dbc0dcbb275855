//! Mail out: reply codes and notice ids, messages built with lettre, the outbox that
//! keeps them until they are sent, the notices kept of what was sent, and the
//! transports (SMTP, sendmail, a folder) with the settings they are read from.

pub mod capability;
pub mod compose;
pub mod outbox;
pub mod outgoing;
pub mod sent;
pub(crate) mod server_url;
pub mod transport;
