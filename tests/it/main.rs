//! One integration-test binary (faster to build than one per file).

mod cli;
mod engine;
mod fairness;
mod right_of_way;
