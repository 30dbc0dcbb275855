//! pbem: a turn processor for board games played by email.

pub mod basics;
pub mod bots;
pub mod cli;
pub mod demo;
pub mod engine;
pub mod games;
pub mod grid;
pub mod mail;
pub mod ops;
pub mod replay;
pub mod simulate;
pub mod words;
