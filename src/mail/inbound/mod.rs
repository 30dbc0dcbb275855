//! Mail in: a player's words read as commands, and the mailboxes messages are taken
//! from (a Maildir, an IMAP mailbox), in the order they arrived, each handed to the
//! referee's loop. Messages are parsed by [`crate::mail::intake`].

pub mod commands;
pub mod imap;
pub mod in_order;
pub mod maildir;
