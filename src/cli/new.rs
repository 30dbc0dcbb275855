use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};

use crate::engine::fairness::Seed;
use crate::engine::roster::parse_player;
use crate::engine::session::NewGame;
use crate::engine::Options;
use crate::ops;

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
    // Before anything is written, and before a key is made for a new keyring: a bot's
    // seat must name one of the game's built-in players (the game records it with the
    // version this pbem plays).
    let played = ops::driver(&args.game)?.bots();
    crate::engine::roster::check_players(&request.players, &played)?;
    let bots = request.players.iter().filter(|p| p.bot().is_some()).count();
    if bots > 0 {
        // A bot moves when the referee's mail loop sees it is to move; an invitation
        // waits for every player's own words, which a bot has none of.
        anyhow::ensure!(
            args.mail && !args.join,
            "a bot takes a seat only in a game started at once by mail: pbem new GAME --mail --player \"Ann <ann@example.org>\" --player \"Bot <bot:search>\" ... (without --join)"
        );
        anyhow::ensure!(
            bots < request.players.len(),
            "every seat is a bot's: `pbem simulate` plays such games; a game by mail needs at least one person"
        );
    }
    let keyring = super::keyring()?;
    if args.mail {
        // The one command that may create the referee's key; then the mail settings are
        // checked before anything is written, and the welcome mail is staged with the
        // game, so a failure to send leaves a game whose mail waits in its outbox.
        keyring.create_signing_key()?;
        let referee = args.mail_args.referee()?;
        let count = if args.join {
            let count = referee.invite(&args.game, request, &args.out)?;
            report_invited(&args.out)?;
            count
        } else {
            let count = referee.create(&args.game, request, &args.out)?;
            report_created(&args.out)?;
            count
        };
        outln!("mail: {count} message(s) in the outbox");
        super::mail::flush_and_report(&referee, &args.out);
    } else if args.join {
        ops::new_invitation(&args.game, request, &keyring, &args.out)?;
        report_invited(&args.out)?;
    } else {
        ops::new_game(&args.game, request, &keyring, &args.out)?;
        report_created(&args.out)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn report_invited(out: &std::path::Path) -> anyhow::Result<()> {
    let invitation =
        crate::engine::invitation::Invitation::parse(&crate::basics::store::read(out)?)?;
    let genesis = &invitation.genesis;
    outln!(
        "invited the players of {} game {} in {} (seed commitment {}); waiting for {} to join: pbem join {} --player NAME --entropy WORDS",
        genesis.game,
        genesis.id,
        out.display(),
        genesis.seed_commitment,
        invitation.waiting().join(", "),
        out.display()
    );
    Ok(())
}

fn report_created(out: &std::path::Path) -> anyhow::Result<()> {
    let game = ops::open(out, None)?;
    let view = game.view(None, None)?;
    outln!(
        "created {} game {} in {}; to move: {}",
        game.name(),
        view["id"].as_str().unwrap_or("?"),
        out.display(),
        names(&view["to_move"])
    );
    Ok(())
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
