//! Making a game: a new one at once, or by invitation and the players' joining; its
//! genesis, the setup's draws and the game id.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;

use super::{Game, NewGame};
use crate::basics::digest::{sha256, to_hex};
use crate::engine::derive::{game_id_v3, hex_field, id_prefix, scope_of, setup_key, state_hash};
use crate::engine::error::{EngineError, Result};
use crate::engine::fairness::{RecordingChance, Seed, TurnDraws};
use crate::engine::file::{hashes, GameFile, Genesis, Version};
use crate::engine::invitation::Invitation;
use crate::engine::keyring::{random_bytes, Keyring};
use crate::engine::players::BotId;
use crate::engine::roster::{check_players, with_bot_versions};
use crate::engine::rules::Rules;
use crate::engine::signature::sign;

impl<R: Rules> Game<R> {
    /// Starts a game: fixes and commits the seed, runs the setup, signs genesis.
    ///
    /// # Errors
    /// Bad options or player count, or a keyring that cannot be written.
    pub fn create(request: NewGame, keyring: &Keyring) -> Result<Game<R>> {
        Self::create_played(request, keyring, &[])
    }

    /// [`Game::create`] with seats that the built-in players `bots` (those the
    /// referee's machine plays, each at its version) may take: a player given as
    /// `bot:NAME` or `bot:NAME/VERSION` names one, and genesis records it as
    /// `bot:NAME/VERSION`.
    ///
    /// # Errors
    /// As for [`Game::create`]; a bot's seat not one of `bots`.
    pub fn create_played(request: NewGame, keyring: &Keyring, bots: &[BotId]) -> Result<Game<R>> {
        let (rules, genesis, seed) = Self::prepare(request, keyring, bots)?;
        let game = Self::found(rules, genesis, &seed, keyring)?;
        keyring.store_seed(&game.file.genesis.id, &seed)?;
        Ok(game)
    }

    /// Invites the players to a game (`pbem new --join`): genesis as it will be but for
    /// the players' entropy and the setup, with the seed committed and stored now,
    /// before any player contributes; the setup waits for every player to join.
    ///
    /// # Errors
    /// As for [`Game::create`].
    pub fn invite(request: NewGame, keyring: &Keyring) -> Result<Invitation> {
        // A bot has no words of its own to join with: no seat of an invitation is one.
        let (rules, genesis, seed) = Self::prepare(request, keyring, &[])?;
        // The player count and options are checked now, not when the last one joins:
        // a setup with stand-in draws, thrown away.
        let names: Vec<String> = genesis.players.iter().map(|p| p.name.clone()).collect();
        rules.setup(
            &names,
            &mut crate::engine::chance::DrawStream::for_testing(0),
        )?;
        let key = keyring.signing_key()?;
        let invitation = Invitation::sign(genesis, &key)?;
        keyring.store_seed(&invitation.genesis.id, &seed)?;
        Ok(invitation)
    }

    /// The game an invitation becomes once every player has joined: its genesis with
    /// the players' entropy, in seat order, after the referee's, and the invitation's
    /// hash; the setup's draws keyed on that.
    ///
    /// # Errors
    /// A tampered invitation, players still to join, or the keyring without the seed.
    pub fn accept(invitation: &Invitation, keyring: &Keyring) -> Result<Game<R>> {
        invitation.check()?;
        let waiting = invitation.waiting();
        if !waiting.is_empty() {
            return Err(EngineError::Usage(format!(
                "{} still to join; the game starts when every player has",
                waiting.join(", ")
            )));
        }
        let genesis = invitation.genesis_of_game()?;
        let rules = R::from_data(&genesis.rules_data, &genesis.options)?;
        let seed = keyring.seed(&genesis.id)?;
        if to_hex(&seed.commitment(&genesis.id)) != genesis.seed_commitment {
            return Err(EngineError::WrongSeed);
        }
        Self::found(rules, genesis, &seed, keyring)
    }

    /// The rules, a genesis without setup, hash or signature, and the seed of a new
    /// game whose bots' seats `bots` may take.
    fn prepare(
        mut request: NewGame,
        keyring: &Keyring,
        bots: &[BotId],
    ) -> Result<(R, Genesis, Seed)> {
        let rules_data = request
            .rules_data
            .clone()
            .unwrap_or_else(|| R::DEFAULT_DATA.to_string());
        let rules = R::from_data(&rules_data, &request.options)?;
        if request.players.is_empty() {
            return Err(EngineError::Usage(
                "a game needs players; give each with --player NAME".into(),
            ));
        }
        check_players(&request.players, bots)?;
        // Genesis holds them, and every player's welcome shows them.
        for value in &request.entropy {
            crate::engine::move_text::plain("an --entropy value", value)?;
        }
        request.players = with_bot_versions(std::mem::take(&mut request.players), bots);
        let seed = match request.seed {
            Some(seed) => seed,
            None => Seed(random_bytes()?),
        };
        let version = request.format.unwrap_or(Version::V4);
        if !version.seals() {
            return Err(EngineError::Usage(format!(
                "a new game is made in {}, {} or {}",
                Version::V4.format(),
                Version::V3.format(),
                Version::V2.format()
            )));
        }
        let key = keyring.create_signing_key()?;
        let referee_key = key.verifying_key().to_bytes();
        let rules_hash = sha256(rules_data.as_bytes());
        let options = rules.options();
        // The id is derived from the seed and what is fixed with it, so a fixed seed
        // and key give a reproducible game, while the same seed in another keyring or
        // for other players does not give the same id (and so the same commitment);
        // four bytes of a hash reveal nothing usable about the seed.
        let id = match version {
            Version::V3 | Version::V4 => game_id_v3(
                &seed,
                R::NAME,
                &referee_key,
                &request.players,
                &options,
                &rules_hash,
                &request.entropy,
            ),
            _ => {
                let id_hash = crate::basics::digest::Fields::hash("pbem/v1/game-id")
                    .fixed(&seed.0)
                    .finish();
                format!("{}-{}", id_prefix(R::NAME), &to_hex(&id_hash)[..8])
            }
        };
        let commitment = seed.commitment(&id);
        let genesis = Genesis {
            game: R::NAME.to_string(),
            id,
            engine: format!("pbem {}", env!("CARGO_PKG_VERSION")),
            players: request.players,
            options,
            rules_hash: to_hex(&rules_hash),
            rules_data,
            referee_key: BASE64.encode(referee_key),
            seed_commitment: to_hex(&commitment),
            draw_algorithm: version.draw_algorithm().to_string(),
            entropy: request.entropy,
            invitation: String::new(),
            draws: Vec::new(),
            state_hash: String::new(),
            hash: String::new(),
            signature: String::new(),
        };
        Ok((rules, genesis, seed))
    }

    /// Runs the setup of a prepared genesis, keyed on its body, and signs it.
    fn found(rules: R, mut genesis: Genesis, seed: &Seed, keyring: &Keyring) -> Result<Game<R>> {
        // Format 3 for every new game; an invitation made before it becomes the
        // format-2 game its draw algorithm promised.
        let version = Version::of_new_game(&genesis.draw_algorithm)?;
        let key = keyring.signing_key()?;
        let referee_key = key.verifying_key().to_bytes();
        let commitment = hex_field("seed_commitment", &genesis.seed_commitment)?;
        let rules_hash = hex_field("rules_hash", &genesis.rules_hash)?;
        let body = hashes::genesis_body(version, &genesis, &referee_key, &commitment, &rules_hash);
        let names: Vec<String> = genesis.players.iter().map(|p| p.name.clone()).collect();
        let id = genesis.id.clone();
        let scope = scope_of(version, &id, &body);
        let turn = TurnDraws {
            seed,
            scope: &scope,
            turn: 0,
        };
        let setup = setup_key(version, seed, &id, &body);
        let mut chance = RecordingChance::new(turn, setup);
        let state = rules.setup(&names, &mut chance)?;
        let public = rules.public_state(&state);
        let after = state_hash(&public)?;
        let hash = hashes::genesis(&body, &chance.draws, &after)
            .ok_or_else(|| EngineError::Malformed("a setup draw is malformed".into()))?;
        genesis.draws = chance.draws;
        genesis.state_hash = to_hex(&after);
        genesis.hash = to_hex(&hash);
        genesis.signature = sign(&key, &hash);
        Ok(Game {
            rules,
            names,
            version,
            file: GameFile {
                format: version.format().to_string(),
                genesis,
                records: Vec::new(),
                seed: None,
                state: public,
            },
        })
    }

    /// The game id format 3 derives from `seed` and genesis (docs/FAIRNESS.md, "The
    /// game id"), for the audit to compare with the one genesis names.
    ///
    /// # Errors
    /// A malformed genesis.
    pub(crate) fn derived_id(&self, seed: &Seed) -> Result<String> {
        let genesis = &self.file.genesis;
        let own = if genesis.invitation.is_empty() {
            genesis.entropy.len()
        } else {
            genesis.entropy.len().saturating_sub(genesis.players.len())
        };
        Ok(game_id_v3(
            seed,
            &genesis.game,
            &self.referee_key_bytes()?,
            &genesis.players,
            &genesis.options,
            &hex_field("rules_hash", &genesis.rules_hash)?,
            &genesis.entropy[..own],
        ))
    }
}
