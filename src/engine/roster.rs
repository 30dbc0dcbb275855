//! Who plays a game: the checks a list of players passes before a game is made of it
//! (usable, distinct names; one plain address each; bots the referee's machine plays),
//! and reading a player given as `Name <email>`.

use super::error::{EngineError, Result};
use super::file::PlayerEntry;
use super::players::{find as find_bot, BotId};

/// The viewer name that stands for the referee (`pbem show --as referee`), who sees
/// everything; no player may be called so.
pub const REFEREE: &str = "referee";

/// Characters no player name may hold: `<` `>` `;` would break a mail header, and
/// `[` `]` and the backtick could close the code block a forum post shows the
/// board in (`[/code]`, a ``` fence), letting a name rewrite the post.
pub const NAME_REFUSED: [char; 6] = ['<', '>', ';', '[', ']', '`'];

/// Checks a list of players before a game is made of it: usable, distinct names, for
/// each address one plain address of its own, and for each seat a built-in player
/// takes (`bot:NAME` or `bot:NAME/VERSION`) one of `bots`, those the referee's machine
/// plays.
///
/// # Errors
/// The first problem, with what would be accepted.
pub fn check_players(players: &[PlayerEntry], bots: &[BotId]) -> Result<()> {
    for (i, player) in players.iter().enumerate() {
        let name = player.name.trim();
        if name.is_empty() || name.contains(NAME_REFUSED) || name.chars().any(char::is_control) {
            return Err(EngineError::Usage(format!(
                "{:?} is not a usable player name: it may not be empty or hold [ ] ` < > ; or control characters; use letters, digits, spaces and other punctuation, as in --player \"Ann <ann@example.org>\"",
                crate::basics::echo::shortened(&player.name, crate::basics::echo::QUOTE_CHARS)
            )));
        }
        if name.eq_ignore_ascii_case(REFEREE) {
            return Err(EngineError::Usage(format!(
                "{name:?} is the name `pbem show --as` uses for the referee's view; give the player another name"
            )));
        }
        if players[..i].iter().any(|p| named_alike(&p.name, name)) {
            return Err(EngineError::Usage(format!(
                "two players are called {name:?}; names must differ"
            )));
        }
        if let Some(bot) = player.bot() {
            // A seat a built-in player takes: it must be one of `bots`, at the version
            // there is. Several seats may take the same bot.
            BotId::parse(bot)
                .and_then(|asked| find_bot(&asked, bots).map(|_| ()))
                .map_err(|error| {
                    EngineError::Usage(format!(
                        "{error}: give a bot's seat as --player \"{name} <bot:search>\", which the game records with the version this pbem has (bot:search/1)"
                    ))
                })?;
        } else if let Some(email) = &player.email {
            check_address(name, email)?;
            let shared = players[..i].iter().any(|p| {
                p.email
                    .as_deref()
                    .is_some_and(|other| other.eq_ignore_ascii_case(email))
            });
            if shared {
                return Err(EngineError::Usage(format!(
                    "two players have the address {email}; each player needs an address of their own, because replies are matched to players by it"
                )));
            }
        }
    }
    Ok(())
}

/// `players` as a new game records them: each seat a built-in player takes named
/// `bot:NAME/VERSION`, with the version of it `bots` holds (`bot:search` becomes
/// `bot:search/1`), so the game says which bot, as it chooses now, plays it. The
/// players must have passed [`check_players`] with the same `bots`.
pub(crate) fn with_bot_versions(mut players: Vec<PlayerEntry>, bots: &[BotId]) -> Vec<PlayerEntry> {
    for player in &mut players {
        let played = player
            .bot()
            .and_then(|text| BotId::parse(text).ok())
            .and_then(|asked| find_bot(&asked, bots).ok());
        if let Some(bot) = played {
            player.email = Some(format!("{}{bot}", super::file::BOT_ADDRESS));
        }
    }
    players
}

/// Whether two players' names are one as `pbem new` and a game's `seat_of` compare
/// them: equal but for ASCII case and white space at either end.
fn named_alike(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// That no two players of a genesis (of a game file or an invitation) are named
/// alike, as [`check_players`] compares names: a record names its seat by its player's
/// name, and a command names a player the same way.
///
/// # Errors
/// Two players named alike.
pub fn check_distinct_names(players: &[PlayerEntry]) -> Result<()> {
    for (i, player) in players.iter().enumerate() {
        if let Some(first) = players[..i]
            .iter()
            .position(|p| named_alike(&p.name, &player.name))
        {
            return Err(EngineError::Malformed(format!(
                "two players are called {:?} (seats {} and {}); a record names its seat by its player's name, so names must differ, ignoring case",
                crate::basics::echo::shortened(&player.name, crate::basics::echo::QUOTE_CHARS),
                first + 1,
                i + 1
            )));
        }
    }
    Ok(())
}

/// One plain address (an RFC 5322 addr-spec such as `ann@example.org`): never a second
/// address, a display name, a comment or a header line smuggled in with it, because
/// the address is signed into genesis and written into mail headers.
fn check_address(name: &str, email: &str) -> Result<()> {
    let plain = !email.is_empty()
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && !email.contains(['<', '>', ',', ';', '"', '(', ')'])
        && email.parse::<lettre::Address>().is_ok();
    if plain {
        Ok(())
    } else {
        Err(EngineError::Usage(format!(
            "{:?} is not one mail address; give each player as --player \"{} <{}@example.org>\", one plain address between the angle brackets",
            crate::basics::echo::shortened(email, crate::basics::echo::QUOTE_CHARS),
            name,
            name.to_ascii_lowercase().replace(' ', ".")
        )))
    }
}

/// Reads `Name` or `Name <email>`.
pub fn parse_player(text: &str) -> PlayerEntry {
    match text.split_once('<') {
        Some((name, rest)) => PlayerEntry {
            name: name.trim().to_string(),
            // Kept even when empty: `Ann <>` is refused as no address, not read as none.
            email: Some(rest.trim_end().trim_end_matches('>').trim().to_string()),
        },
        None => PlayerEntry {
            name: text.trim().to_string(),
            email: None,
        },
    }
}
