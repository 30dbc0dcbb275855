//! Revealing the seed into the file before the game's end.

use super::Game;
use crate::engine::error::{EngineError, KeyringError, Result};
use crate::engine::keyring::Keyring;
use crate::engine::rules::Rules;

impl<R: Rules> Game<R> {
    /// Reveals the seed into the file (the end of a game does this by itself).
    ///
    /// # Errors
    /// No seed in the keyring, or one that does not match.
    pub fn reveal(&mut self, keyring: &Keyring) -> Result<()> {
        self.check_chain()?;
        let seed = self.seed(Some(keyring))?.ok_or_else(|| {
            EngineError::Keyring(KeyringError::NoSeed {
                game_id: self.file.genesis.id.clone(),
                home: keyring.home().to_path_buf(),
            })
        })?;
        self.file.seed = Some(seed.to_hex());
        Ok(())
    }
}
