//! Why an operation of the engine failed: [`EngineError`] and its [`Result`], with the
//! errors of the keyring and of taking back moves that it wraps. The bottom of the
//! engine: it imports nothing of the engine but the rules' own error.

use std::path::PathBuf;

use super::rules::RuleError;

/// Why an operation on a game file failed. Messages say what was wrong and what would
/// be accepted; none carries a secret.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Refused(#[from] RuleError),
    #[error("the game file is not valid: {0}")]
    Malformed(String),
    #[error("the game file has been altered: {0}; restore it from a copy (every player's mail carries the signed head) and run `pbem audit`")]
    Tampered(String),
    #[error("no player is called {name:?}; the players are {players}")]
    UnknownPlayer { name: String, players: String },
    #[error("it is not {name}'s turn; waiting for {waiting}, whose turn notice will come first")]
    NotYourTurn { name: String, waiting: String },
    #[error("the game is over; no more moves are accepted (`pbem show` has the result)")]
    GameOver,
    #[error("the seed of this game has been revealed (`pbem reveal`), so anyone could predict its draws; it is closed to moves (start a new game with `pbem new`)")]
    Closed,
    #[error(transparent)]
    Keyring(#[from] KeyringError),
    #[error("this keyring's signing key is not the one that signed the game; set PBEM_HOME to the referee's keyring")]
    WrongKey,
    #[error("the seed in the keyring does not match the game's commitment; set PBEM_HOME to the keyring that created the game")]
    WrongSeed,
    #[error("{0} needs the referee's keyring, which holds the game's seed; run it where PBEM_HOME is the keyring that created the game (anyone can once the game ends and the seed is revealed)")]
    NeedsKeyring(String),
    #[error("{0}")]
    Usage(String),
    /// The fast path of a move read only the latest records, and the move needs an
    /// earlier one: the caller reads the whole file and makes the move again.
    #[error("the move needs {0}, before the records read; read the whole file")]
    BeyondWindow(String),
    /// A step of taking back moves the game does not allow now.
    #[error(transparent)]
    Undo(UndoRefused),
    /// A bot's seat is to move, and the referee's machine does not play its bot.
    #[error("{0}")]
    BotNotPlayed(String),
    /// The rules ask the player to confirm the move before it is made.
    #[error("{reason}; to make it as it stands, send it again starting with `confirm`: confirm {understood}")]
    NeedsConfirmation { reason: String, understood: String },
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;

/// Problems with the keyring. Messages name files, never their contents.
#[derive(Debug, thiserror::Error)]
pub enum KeyringError {
    #[error("cannot read or write the keyring at {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the keyring file {path} is not 64 hexadecimal digits; restore it from a backup")]
    Malformed { path: PathBuf },
    #[error("no seed for game {game_id} in the keyring at {home}; set PBEM_HOME to the keyring that created the game")]
    NoSeed { game_id: String, home: PathBuf },
    #[error(
        "a seed for game {game_id} already exists in the keyring; choose another game or keyring"
    )]
    SeedExists { game_id: String },
    #[error("no platform data folder is known here; set PBEM_HOME")]
    NoHome,
    #[error("there is no referee signing key in {home}; set PBEM_HOME to the referee's keyring (`pbem new` creates a key in a new keyring)")]
    NoKey { home: PathBuf },
    #[error("{game_id:?} is not a game id (letters, digits and '-', at most 64); the game file is not one pbem wrote")]
    BadGameId { game_id: String },
    #[error("the operating system gave no random bytes: {0}")]
    Entropy(String),
}

/// Why a step of taking back is refused: what was wrong, and what would be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{problem}; {accepted}")]
pub struct UndoRefused {
    pub problem: String,
    pub accepted: String,
}
