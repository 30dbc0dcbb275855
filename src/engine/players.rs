//! Seats the referee's machine plays: a player genesis lists with the address
//! `bot:NAME/VERSION` (`bot:search/1`) is a built-in player, whose moves the referee
//! makes and the audit plays again. The engine names such a player ([`BotId`]) and
//! asks for its move through [`BotPlayers`]; the players themselves live above it
//! (`src/bots/`), and each game's driver is handed them where the games are listed.

use super::chance::DrawStream;
use super::rules::{Rules, Seat};

/// A built-in player as genesis names it after `bot:`: its name and version
/// (`search/1`), or its name alone (`search`) in files written before bots had
/// versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotId {
    pub name: String,
    pub version: Option<u32>,
}

impl BotId {
    /// Reads `NAME` or `NAME/VERSION` (the text after `bot:`): the name as written but
    /// for the white space around it, the version a decimal number from 1.
    ///
    /// # Errors
    /// An empty name, or a version that is not such a number, in words.
    pub fn parse(text: &str) -> Result<BotId, String> {
        let (name, version) = match text.rsplit_once('/') {
            Some((name, version)) => (name.trim(), Some(version.trim())),
            None => (text.trim(), None),
        };
        if name.is_empty() || name.contains('/') {
            return Err(format!(
                "`bot:{text}` names no bot: write bot:NAME, as in bot:search"
            ));
        }
        let version = match version {
            None => None,
            Some(digits) => Some(
                digits
                    .parse::<u32>()
                    .ok()
                    .filter(|&v| v >= 1 && digits.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(|| {
                        format!(
                            "`bot:{text}` has no version a bot has: write bot:NAME/VERSION with a version from 1, as in bot:search/1, or bot:NAME alone for this pbem's current version"
                        )
                    })?,
            ),
        };
        Ok(BotId {
            name: name.to_string(),
            version,
        })
    }

    /// Whether `self`, as genesis names it, is the bot `played` (a name and version this
    /// machine plays): the same name in any case, and the same version or none.
    pub fn is(&self, played: &BotId) -> bool {
        self.name.eq_ignore_ascii_case(&played.name)
            && self.version.is_none_or(|v| Some(v) == played.version)
    }
}

impl std::fmt::Display for BotId {
    /// `NAME/VERSION`, or `NAME` without a version: what genesis writes after `bot:`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.version {
            Some(version) => write!(f, "{}/{version}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// A bot this machine does not play: no bot of that name, or not that version of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotPlayed;

/// The built-in players the referee's machine plays in games of `R`, handed to a
/// game's driver from above (pbem's are `BuiltIn` in `src/bots/`). The driver asks them
/// for the move of a bot's seat (the mail loop's `OpenGame::bot_move`) and, in the
/// audit, for the move the bot makes from each position one of its records was made
/// in.
pub trait BotPlayers<R: Rules>: Sync {
    /// Every bot played, each at the one version this machine has of it, in the order
    /// refusals list them.
    fn known(&self) -> Vec<BotId>;

    /// The move text `bot` sends for `seat` in the position `state`, its every choice
    /// (and every draw it imagines) from `rng` alone; `None` when it has no move.
    /// `state` is the full state: an implementation gives the bot only what the seat
    /// may see ([`Rules::seat_state`] and the seat's legal moves). A `bot` without a
    /// version (a file written before bots had versions) is played at the version
    /// this machine has.
    ///
    /// # Errors
    /// [`NotPlayed`] for a bot this machine does not have.
    fn play(
        &self,
        bot: &BotId,
        rules: &R,
        state: &R::State,
        seat: Seat,
        rng: &mut DrawStream,
    ) -> Result<Option<String>, NotPlayed>;
}

/// The bot of `bots` (those a machine plays) that `asked` (as genesis or `--player`
/// names it) is.
///
/// # Errors
/// None is: in words, with the bots there are.
pub fn find<'a>(asked: &BotId, bots: &'a [BotId]) -> Result<&'a BotId, String> {
    if let Some(bot) = bots.iter().find(|bot| asked.is(bot)) {
        return Ok(bot);
    }
    if bots.is_empty() {
        return Err(format!(
            "no built-in player takes a seat here, and so not {asked}"
        ));
    }
    match bots
        .iter()
        .find(|bot| bot.name.eq_ignore_ascii_case(&asked.name))
    {
        Some(bot) => Err(format!("this pbem has no bot {asked}; it has {bot}")),
        None => Err(format!(
            "there is no bot {:?}; the bots are {}",
            asked.name,
            bots.iter()
                .map(|bot| bot.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The bots `known` as a person reads them: `random/1, greedy/1, search/1`.
pub fn listed(known: &[BotId]) -> String {
    if known.is_empty() {
        return "none".to_string();
    }
    known
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_is_named_with_or_without_its_version() {
        let search = |version| BotId {
            name: "search".into(),
            version,
        };
        assert_eq!(BotId::parse("search/1"), Ok(search(Some(1))));
        assert_eq!(BotId::parse(" search "), Ok(search(None)));
        assert_eq!(
            BotId::parse("search/12").map(|b| b.to_string()),
            Ok("search/12".into())
        );
        for wrong in [
            "",
            "/1",
            "search/",
            "search/0",
            "search/+1",
            "search/x",
            "a/b/1",
        ] {
            assert!(BotId::parse(wrong).is_err(), "{wrong:?}");
        }
        assert!(search(None).is(&search(Some(1))));
        assert!(BotId::parse("Search/1").is_ok_and(|b| b.is(&search(Some(1)))));
        assert!(!search(Some(7)).is(&search(Some(1))));
        assert_eq!(listed(&[search(Some(1))]), "search/1");
    }
}
