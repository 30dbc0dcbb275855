//! pbem: a turn processor for board games played by email.

pub mod engine;
pub mod games;
pub mod grid;
pub mod ops;
pub mod cli;
