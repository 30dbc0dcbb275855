//! The referee's loop: a game's notices after every change, incoming messages
//! answered, deadlines and reminders, daily digests, mail for the referee, and `watch`
//! doing all of it round after round. The archive beside each game keeps what it
//! needs between runs.

pub mod actions;
pub mod archive;
mod closing;
mod deadlines;
mod digest;
mod for_referee;
pub mod games;
pub mod mailer;
mod receive;
pub mod watch;

pub use actions::{
    apply, close, flush_outboxes, inbox, join, list_outboxes, new_game, remind, take_back, Begun,
    Inbox, Mailed, Mailing, NewDone, Received, Reminded, Started,
};
pub use digest::DIGEST_AFTER;
pub use for_referee::{REFEREE_INTERVAL, STATUS_INTERVAL};
pub use mailer::Referee;
pub use receive::TRIED_INTERVAL;
