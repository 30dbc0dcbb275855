//! Who plays a game: the checks a list of players passes before a game is made of it
//! (usable names that no reader could take for one another; one plain address each;
//! bots the referee's machine plays), and reading a player given as `Name <email>`.
//!
//! The checks of a new game's names are stricter than the reading of a game file's
//! ([`check_distinct_names`]): a file written before a check was added must still be
//! read, audited and played on as it was.

use unicode_script::{Script, UnicodeScript};
use unicode_security::{skeleton, MixedScript};

use super::characters::{described, first_refused, is_refused, Lines, REFUSED_KINDS};
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
        check_name(&player.name)?;
        let name = player.name.trim();
        if looks_alike(name, REFEREE) {
            return Err(EngineError::Usage(format!(
                "{name:?} is, or looks like, the name `pbem show --as` uses for the referee's view; give the player another name"
            )));
        }
        if let Some(first) = players[..i].iter().position(|p| named_alike(&p.name, name)) {
            return Err(EngineError::Usage(format!(
                "two players are called {:?} and {name:?} (seats {} and {}); names must differ, ignoring case",
                players[first].name.trim(),
                first + 1,
                i + 1
            )));
        }
        if let Some(first) = players[..i].iter().position(|p| looks_alike(&p.name, name)) {
            return Err(EngineError::Usage(look_alike_error(
                players[first].name.trim(),
                name,
                (first + 1, i + 1),
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

/// Refuses a name no player may have: empty or showing nothing, holding a character of
/// [`NAME_REFUSED`] or one that [`is_refused`], or mixing scripts in letters that
/// look alike (see [`disguised_letter`]).
fn check_name(name: &str) -> Result<()> {
    let name_as_given = name;
    let name = name.trim();
    let shown = |name: &str| crate::basics::echo::shortened(name, crate::basics::echo::QUOTE_CHARS);
    let example = "as in --player \"Ann <ann@example.org>\"";
    // Before trimming: a line separator or a tab at an end is refused as one inside
    // is, not dropped unseen.
    if let Some((place, c)) = first_refused(name_as_given, Lines::One) {
        return Err(EngineError::Usage(format!(
            "{:?} is not a usable player name: it holds {} (character {place}), which shows nothing itself but can change how the text around it is shown; {REFUSED_KINDS}; use letters, digits, spaces and other punctuation, {example}",
            shown(name_as_given),
            described(c)
        )));
    }
    if !name.is_empty() && appearance(name).is_empty() {
        // Shown by code point, as the name itself would show nothing in the error.
        let mut held: Vec<String> = Vec::new();
        for c in name.chars().map(described) {
            if held.len() < 3 && !held.contains(&c) {
                held.push(c);
            }
        }
        return Err(EngineError::Usage(format!(
            "{:?} is not a usable player name: it shows nothing ({}); use letters, digits, spaces and other punctuation, {example}",
            shown(name),
            held.join(", ")
        )));
    }
    if name.is_empty() || name.contains(NAME_REFUSED) {
        return Err(EngineError::Usage(format!(
            "{:?} is not a usable player name: it may not be empty or hold [ ] ` < > ; use letters, digits, spaces and other punctuation, {example}",
            shown(name)
        )));
    }
    if let Some(disguised) = disguised_letter(name) {
        return Err(EngineError::Usage(format!(
            "{:?} is not a usable player name: it mixes {} and {} letters that look alike ({} looks like the {} {:?}), so it could pass for a name it is not; write a name in one script (\"Анна\", \"José\" and \"李雷\" are each taken)",
            shown(name),
            disguised.own.full_name(),
            disguised.drawn_as.full_name(),
            described(disguised.letter),
            disguised.drawn_as.full_name(),
            disguised.drawn,
        )));
    }
    Ok(())
}

/// A letter of one script in a name that reads as a letter of another script the same
/// name uses.
struct Disguised {
    letter: char,
    own: Script,
    /// What it reads as (its confusables prototype, Unicode's UTS #39), and in which
    /// script.
    drawn: String,
    drawn_as: Script,
}

/// The first letter of `name` disguised as a letter of another script that `name`
/// also uses: the Cyrillic `а` of "Аnn" is drawn as the Latin `a`, so the name passes
/// for the Latin "Ann". A name in one script (UTS #39's resolved script set, in which
/// Han with kana or with Hangul count as one) has none, whatever it looks like; and
/// scripts mixed in letters no other script has (Latin with Han) pass too.
fn disguised_letter(name: &str) -> Option<Disguised> {
    if name.is_single_script() {
        return None;
    }
    // Digits, punctuation and combining marks belong to every script.
    let of_a_script =
        |script: &Script| !matches!(script, Script::Common | Script::Inherited | Script::Unknown);
    let used: Vec<Script> = name
        .chars()
        .map(|c| c.script())
        .filter(of_a_script)
        .collect();
    name.chars().find_map(|letter| {
        let own = letter.script();
        if !of_a_script(&own) {
            return None;
        }
        let drawn: String = skeleton(letter.encode_utf8(&mut [0; 4])).collect();
        let mut scripts = drawn.chars().map(|c| c.script()).filter(of_a_script);
        let drawn_as = scripts.next()?;
        let disguised =
            drawn_as != own && scripts.all(|s| s == drawn_as) && used.contains(&drawn_as);
        disguised.then_some(Disguised {
            letter,
            own,
            drawn,
            drawn_as,
        })
    })
}

/// How a name looks, for telling look-alikes apart: its confusables skeleton (UTS #39,
/// which also drops the characters that show nothing), in lower case, white space
/// made one space. Taken of the name as written and of the name in lower case, so
/// that `WiII` (capital I) looks like `Will`, and `WILL` like `will` too.
fn appearances(name: &str) -> [String; 2] {
    let seen = |text: &str| {
        let drawn: String = skeleton(text).collect();
        drawn
            .to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let name = name.trim();
    [seen(name), seen(&name.to_lowercase())]
}

/// How `name` looks as written (see [`appearances`]); empty when it shows nothing.
fn appearance(name: &str) -> String {
    let [written, _] = appearances(name);
    written
}

/// Whether a reader could take one name for the other: they look the same, ignoring
/// case ([`appearances`]).
fn looks_alike(a: &str, b: &str) -> bool {
    let ([a_written, a_lower], [b_written, b_lower]) = (appearances(a), appearances(b));
    a_written == b_written || a_lower == b_lower
}

/// The error for two names that look alike (`seats`, counted from 1), naming the
/// characters that differ where the two are of one length.
fn look_alike_error(first: &str, second: &str, seats: (usize, usize)) -> String {
    let shown = |name: &str| crate::basics::echo::shortened(name, crate::basics::echo::QUOTE_CHARS);
    let differing: Vec<String> = if first.chars().count() == second.chars().count() {
        first
            .chars()
            .zip(second.chars())
            .filter(|(a, b)| a != b)
            .take(3)
            .map(|(a, b)| format!("{} for {}", described(b), described(a)))
            .collect()
    } else {
        Vec::new()
    };
    let how = if differing.is_empty() {
        String::new()
    } else {
        format!(" ({})", differing.join(", "))
    };
    format!(
        "the players {:?} and {:?} (seats {} and {}) have names that look alike{how}: they differ only in case or in characters drawn alike, so a reader could take one for the other; give one of them a name that looks different, as --player \"Ann <ann@example.org>\" --player \"Bob <bob@example.org>\"",
        shown(first),
        shown(second),
        seats.0,
        seats.1
    )
}

/// That no two players of a genesis (of a game file or an invitation) are named
/// alike, as a game's `seat_of` compares names: a record names its seat by its
/// player's name, and a command names a player the same way. Looser than
/// [`check_players`], and kept so: a file whose names a new game would refuse (alike to
/// the eye, or holding invisible characters) was accepted when it was made, and must
/// still be read, audited and played on.
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
        && !email
            .chars()
            .any(|c| c.is_whitespace() || is_refused(c, Lines::One))
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

/// Reads `Name` or `Name <email>`. White space at either end of the name is dropped,
/// but for the characters a name may not hold ([`is_refused`]: a tab, a line
/// separator), which stay for [`check_players`] to refuse and name.
pub fn parse_player(text: &str) -> PlayerEntry {
    let trim = |name: &str| {
        name.trim_matches(|c: char| c.is_whitespace() && !is_refused(c, Lines::One))
            .to_string()
    };
    match text.split_once('<') {
        Some((name, rest)) => PlayerEntry {
            name: trim(name),
            // Kept even when empty: `Ann <>` is refused as no address, not read as none.
            email: Some(rest.trim_end().trim_end_matches('>').trim().to_string()),
        },
        None => PlayerEntry {
            name: trim(text),
            email: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The characters of each kind a name may not hold: those refused in any text, and
    /// a tab, which a name of one line may not hold either.
    fn refused() -> Vec<char> {
        crate::engine::characters::REFUSED_SAMPLES
            .into_iter()
            .chain(['\t'])
            .collect()
    }

    fn players(names: &[&str]) -> Vec<PlayerEntry> {
        names.iter().map(|name| parse_player(name)).collect()
    }

    fn refusal(names: &[&str]) -> String {
        match check_players(&players(names), &[]) {
            Ok(()) => panic!("{names:?} were taken"),
            Err(error) => error.to_string(),
        }
    }

    proptest! {
        /// Any name with a refused character anywhere in it is refused, naming the
        /// character by its code point and saying where it is.
        #[test]
        fn a_name_with_an_invisible_character_is_refused(
            name in "[A-Z][a-z]{0,8}( [A-Z][a-z]{1,8})?",
            c in prop::sample::select(refused()),
            at in any::<prop::sample::Index>(),
        ) {
            let mut chars: Vec<char> = name.chars().collect();
            let place = at.index(chars.len() + 1);
            chars.insert(place, c);
            let with: String = chars.into_iter().collect();
            let error = refusal(&[&with, "Zed"]);
            let code = format!("U+{:04X}", u32::from(c));
            prop_assert!(error.contains(&code), "{}", error);
            prop_assert!(!error.contains(c), "{:?}", error);
        }

        /// A name wholly in one script is taken, whichever script.
        #[test]
        fn a_name_in_one_script_is_taken(
            name in prop_oneof![
                "[A-Z][a-zà-öø-ÿ]{1,8}",
                "[А-Я][а-я]{1,8}",
                "[Α-ΡΣ-Ω][α-ω]{1,8}",
                "[\u{4E00}-\u{4FFF}]{1,4}",
                "[\u{3041}-\u{3096}\u{4E00}-\u{4FFF}]{1,6}",
                "[\u{AC00}-\u{D7A3}]{1,4}",
                "[\u{05D0}-\u{05EA}]{2,8}",
                "[\u{0627}-\u{064A}]{2,8}",
            ],
        ) {
            prop_assume!(!name.eq_ignore_ascii_case(REFEREE) && !name.eq_ignore_ascii_case("Zed"));
            prop_assert!(check_players(&players(&[&name, "Zed"]), &[]).is_ok(), "{}", name);
        }

        /// A name written again with look-alikes for some letters (a digit zero for
        /// an o, a capital I for an l, Cyrillic letters in a name otherwise Cyrillic,
        /// other case) is refused beside it, naming both.
        #[test]
        fn a_name_written_with_look_alikes_is_refused_beside_it(
            name in "[a-z]{1,8}",
            how in 0..4usize,
        ) {
            let alike: String = match how {
                0 => name.replace('o', "0").replace('l', "I"),
                1 => name.to_uppercase(),
                2 => name.replace('m', "rn"),
                _ => name.chars().map(|c| match c {
                    'a' => 'а', 'e' => 'е', 'o' => 'о', 'p' => 'р', 'c' => 'с', 'x' => 'х',
                    'y' => 'у', other => other,
                }).collect(),
            };
            prop_assume!(name != REFEREE);
            let error = refusal(&[&name, &alike]);
            // Alike to the first name, or (Cyrillic letters among Latin) alike within.
            let both = error.contains(&format!("{name:?}")) || error.contains("mixes");
            prop_assert!(both && error.contains(&format!("{alike:?}")), "{}", error);
        }
    }

    #[test]
    fn names_mixing_scripts_in_letters_alike_are_refused() {
        // Cyrillic а, А, е, В, о, р and Greek Α, ο among Latin letters.
        for name in ["Аnn", "Annа", "Pеter", "Ann Вор", "Αnn", "Bοb"] {
            let error = refusal(&[name]);
            assert!(
                error.contains("mixes") && error.contains("one script"),
                "{error}"
            );
        }
        // Mixed, but in letters no other script of the name has.
        for name in [
            "Ann 李雷",
            "Léa 山田",
            "Ann Lee",
            "O'Brien-Smith",
            "Jose\u{301}",
            "Zoë 2",
        ] {
            assert!(check_players(&players(&[name]), &[]).is_ok(), "{name}");
        }
    }

    #[test]
    fn names_that_show_nothing_or_look_like_the_referee_are_refused() {
        // A Hangul filler and a combining grapheme joiner show nothing, and are not
        // format characters.
        for name in ["\u{3164}", "\u{3164}\u{34F}\u{3164}"] {
            assert!(refusal(&[name]).contains("shows nothing (U+3164 HANGUL FILLER"));
        }
        for name in ["REFEREE", "Referee", "refere\u{0435}"] {
            let error = refusal(&[name]);
            assert!(
                error.contains("referee's view") || error.contains("mixes"),
                "{name}: {error}"
            );
        }
        assert!(refusal(&["Ann", "Ann\u{34F}"]).contains("look alike"));
    }

    /// A genesis is read as before: names a new game would refuse, alike or holding
    /// invisible characters, pass the file's own check, which refuses only names equal
    /// but for ASCII case and white space at the ends.
    #[test]
    fn a_file_with_names_a_new_game_refuses_is_read_as_before() {
        let names = [
            "Ann",
            "Ann\u{200B}",
            "Bo\u{202E}b",
            "Аnn",
            "Will",
            "WiII",
            "Zoë",
            "ZOË",
        ];
        assert!(check_players(&players(&names), &[]).is_err());
        assert!(check_distinct_names(&players(&names)).is_ok());
        assert!(check_distinct_names(&players(&["Ann", " ANN"])).is_err());
    }
}
