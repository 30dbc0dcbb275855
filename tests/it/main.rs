//! One integration-test binary (faster to build than one per file).

mod cli;
mod client_replies;
mod desert_kingdom;
mod engine;
mod export;
mod fairness;
mod forum;
mod hostile;
mod imap;
mod layers;
mod mail;
mod mail_intake;
mod new_game;
mod package;
mod postfix;
mod replies;
mod right_of_way;
mod secret_game;
mod simulate;
mod standing;
mod state_cache;
mod support;
mod transport;
mod triangle_auction;
mod trust;
mod undo;
