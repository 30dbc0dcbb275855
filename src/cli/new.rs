use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};

use crate::engine::fairness::Seed;
use crate::engine::keyring::Keyring;
use crate::engine::roster::parse_player;
use crate::engine::session::NewGame;
use crate::engine::Options;
use crate::mail::referee::Started;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game to play
    #[arg(help = game_help())]
    game: String,
    /// A player, as NAME or "Name <email>", in seat order; repeat for each player.
    /// In a game by mail, "Name <bot:BOT>" gives the seat to a built-in player (random,
    /// greedy or search), whose moves the referee makes as soon as it is to move; the
    /// game records it with its version (bot:search/1)
    #[arg(long = "player", value_name = "NAME", required = true)]
    players: Vec<String>,
    /// A rule option, KEY=VALUE (see docs/rules/GAME.md); repeat as needed
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Fix the game's seed (64 hex digits) instead of taking one from the system
    #[arg(long, value_name = "HEX64")]
    seed: Option<String>,
    /// Entropy contributed by a player, mixed into every draw; repeat as needed
    #[arg(long = "entropy", value_name = "TEXT")]
    entropy: Vec<String>,
    /// Where to write the new game file (must not exist)
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Mail every player a welcome, and the first player their turn notice (with
    /// --join: mail every player the invitation, whose replies are their joins)
    #[arg(long)]
    mail: bool,
    /// Commit the seed first and let every player join with words of their own before
    /// the setup is drawn (`pbem join`, or a reply to the invitation by mail), so that
    /// nobody, the referee included, can choose the setup
    #[arg(long)]
    join: bool,
    #[command(flatten)]
    mail_args: super::mail::MailArgs,
}

/// The help of a game argument: every registered game, so a new one appears by itself.
pub(super) fn game_help() -> String {
    format!("The game to play: {}", crate::games::names().join(", "))
}

/// The `--option KEY=VALUE` arguments as options (also `pbem simulate`'s).
pub(super) fn parse_options(given: &[String]) -> anyhow::Result<Options> {
    let mut options = Options::new();
    for option in given {
        let Some((key, value)) = option.split_once('=') else {
            bail!("--option {option:?} is not KEY=VALUE; for example --option setup=draft");
        };
        options.insert(key.trim().to_string(), value.trim().to_string());
    }
    Ok(options)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let options = parse_options(&args.options)?;
    let seed = match &args.seed {
        Some(text) => Some(Seed::from_hex(text).with_context(|| {
            "--seed takes exactly 64 hexadecimal digits (32 bytes), for example --seed 00112233…".to_string()
        })?),
        None => None,
    };
    let request = NewGame {
        players: args.players.iter().map(|p| parse_player(p)).collect(),
        options,
        seed,
        entropy: args.entropy,
        ..NewGame::default()
    };
    let mailing = args.mail.then(|| args.mail_args.mailing());
    let made = crate::mail::referee::new_game(
        Keyring::from_env,
        &args.game,
        request,
        &args.out,
        args.join,
        mailing.as_ref(),
    )?;
    match &made.done.started {
        Started::Invited(invitation) => {
            let genesis = &invitation.genesis;
            outln!(
                "invited the players of {} game {} in {} (seed commitment {}); waiting for {} to join: pbem join {} --player NAME --entropy WORDS",
                genesis.game,
                genesis.id,
                args.out.display(),
                genesis.seed_commitment,
                invitation.waiting().join(", "),
                args.out.display()
            );
        }
        Started::Created(game) => {
            outln!(
                "created {} game {} in {}; to move: {}",
                game.game,
                game.id,
                args.out.display(),
                names(&game.to_move)
            );
        }
    }
    if let Some(count) = made.done.staged {
        outln!("mail: {count} message(s) in the outbox");
    }
    // The players know of the game only by mail: a game made but not announced is
    // not done, so a script or cron line sees it (and `pbem outbox flush` finishes).
    if super::mail::report_sent(&args.out, made.sent) {
        return Err(anyhow::Error::new(super::TemporaryFailure {
            cause: anyhow::anyhow!(
                "the game is made in {}, but not all of its players have been told",
                args.out.display()
            ),
            then: "the mail waits in the game's outbox: `pbem outbox flush` sends it",
        }));
    }
    Ok(ExitCode::SUCCESS)
}

/// A JSON list of names, joined for people; "nobody" for none.
pub(super) fn names(list: &serde_json::Value) -> String {
    let names = crate::ops::joined_names(list);
    if names.is_empty() {
        "nobody".to_string()
    } else {
        names
    }
}
