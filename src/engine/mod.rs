//! The game-agnostic core: rules contract, chance source, records, signatures, replay,
//! audit, the keyring and the file store.

pub mod audit;
mod bot_key;
pub mod chance;
pub mod characters;
pub mod derive;
pub mod driver;
pub mod erased;
pub mod error;
pub mod fairness;
pub mod file;
pub mod invitation;
pub mod keyring;
pub mod move_text;
pub mod players;
pub mod roster;
pub mod rounds;
pub mod rules;
pub mod session;
mod signature;
pub mod undo;

pub use chance::{index_from_stream, DrawStream};
pub use rules::{
    declared_options, grouped_moves, page_section, score_changes, Audience, BoardContext, Chance,
    Deadline, GameEnd, GameView, LastMove, LegalMove, MoveFilter, Options, ReportLine, RoundLabel,
    RuleError, Rules, Seat, Viewer, Visibility, MOVES_HEADING, SUMMARY_HEADING,
};
