//! The bottom layer: what every other layer may use and which uses nothing of pbem's.
//! Domain-separated hashing (`digest`), files read within bounds and written atomically
//! under a lock (`store`), someone else's text quoted in an error (`echo`), durations as
//! people write them (`duration`), and the crash points of the recovery tests (`crash`).

pub mod crash;
pub mod digest;
pub mod duration;
pub mod echo;
pub mod store;
