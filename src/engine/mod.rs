//! The game-agnostic core: rules contract, chance source, records, signatures, replay,
//! audit, the keyring and the file store.

pub mod audit;
mod bot_key;
pub mod chance;
pub mod driver;
pub mod fairness;
pub mod file;
pub mod invitation;
pub mod keyring;
pub mod players;
pub mod rules;
pub mod session;
pub mod undo;

pub use chance::{index_from_stream, DrawStream};
pub use rules::{
    declared_options, grouped_moves, page_section, score_changes, Audience, BoardContext, Chance,
    Deadline, GameEnd, GameView, LastMove, LegalMove, MoveFilter, Options, ReportLine, RoundLabel,
    RuleError, Rules, Seat, Viewer, Visibility, MOVES_HEADING, SUMMARY_HEADING,
};
