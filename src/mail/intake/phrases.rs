//! The phrase tables: how mail in each language greets, signs off, marks a reply and
//! quotes, as data. One TOML file per language in `phrases/` (`en.toml`, `de.toml`,
//! …) holds every kind of phrase below; build.rs compiles every file there into the
//! binary, and they are read once, at first use, into one list per kind: the files in
//! the order of their names, each one's phrases in the order written. Adding a
//! language is adding its file.
//!
//! Which file a phrase comes from never changes what is read: every kind but the
//! greetings is only asked whether some phrase matches, and of the greetings the first
//! that matches is taken, which the tests keep the same as the longest that matches (a
//! greeting that begins another as a whole word, as "buenas" begins "buenas tardes",
//! is in the same file and comes after it).
//!
//! Every phrase is lowercase, as the text it is compared with is lowercased first, but
//! the openings of attributions, which are compared as written ("On ", "Le ").

use std::sync::LazyLock;

use serde::Deserialize;

include!(concat!(env!("OUT_DIR"), "/phrases.rs"));

/// One language's table, as its file holds it. Every kind is required (an empty list
/// where the language has none) and no other key is allowed: a table that differs is
/// refused, so a kind misspelt or left out is a test failure, not phrases silently
/// missing.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    greetings: Vec<String>,
    closings: Vec<String>,
    tagline: Tagline,
    header: HeaderLabels,
    reply_header: ReplyHeader,
    attribution: Attribution,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Tagline {
    starts: Vec<String>,
    ends: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderLabels {
    from: Vec<String>,
    date: Vec<String>,
    to: Vec<String>,
    subject: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplyHeader {
    titles: Vec<String>,
    forward_intros: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Attribution {
    openings: Vec<String>,
    verbs: Vec<String>,
}

/// The phrases of every language, one list per kind.
#[derive(Debug, Default)]
pub(super) struct Phrases {
    /// Greetings, lowercased, as the first line of a message starts with them.
    pub(super) greetings: Vec<&'static str>,
    /// Closing phrases, lowercased, as a sign-off paragraph starts with them.
    pub(super) closings: Vec<&'static str>,
    /// Lowercased beginnings of client taglines ("sent from my ").
    pub(super) tagline_starts: Vec<&'static str>,
    /// Lowercased endings of taglines that put the client first ("から送信").
    pub(super) tagline_ends: Vec<&'static str>,
    /// Header labels of reply blocks, lowercased, by the header they name.
    pub(super) from_labels: Vec<&'static str>,
    pub(super) date_labels: Vec<&'static str>,
    pub(super) to_labels: Vec<&'static str>,
    pub(super) subject_labels: Vec<&'static str>,
    /// Titles of rules above an earlier message, lowercased ("original message").
    pub(super) titles: Vec<&'static str>,
    /// Introductions of a forwarded message, lowercased, with their colon.
    pub(super) forward_intros: Vec<&'static str>,
    /// Openings of attributions that start with a word rather than a date, as written.
    pub(super) openings: Vec<&'static str>,
    /// The "wrote" verbs of attributions, lowercased.
    pub(super) verbs: Vec<&'static str>,
}

impl Phrases {
    /// The phrases of some tables, in their order.
    fn of(tables: &'static [Table]) -> Phrases {
        fn add(list: &mut Vec<&'static str>, phrases: &'static [String]) {
            list.extend(phrases.iter().map(String::as_str));
        }
        let mut phrases = Phrases::default();
        for table in tables {
            add(&mut phrases.greetings, &table.greetings);
            add(&mut phrases.closings, &table.closings);
            add(&mut phrases.tagline_starts, &table.tagline.starts);
            add(&mut phrases.tagline_ends, &table.tagline.ends);
            add(&mut phrases.from_labels, &table.header.from);
            add(&mut phrases.date_labels, &table.header.date);
            add(&mut phrases.to_labels, &table.header.to);
            add(&mut phrases.subject_labels, &table.header.subject);
            add(&mut phrases.titles, &table.reply_header.titles);
            add(
                &mut phrases.forward_intros,
                &table.reply_header.forward_intros,
            );
            add(&mut phrases.openings, &table.attribution.openings);
            add(&mut phrases.verbs, &table.attribution.verbs);
        }
        phrases
    }
}

fn read_table(text: &str) -> Result<Table, toml::de::Error> {
    toml::from_str(text)
}

/// The tables, read. Every one is compiled into the binary and the tests read each,
/// so none is refused here; one that were would be left out, rather than stop the
/// referee reading mail.
static TABLES_READ: LazyLock<Vec<Table>> = LazyLock::new(|| {
    TABLES
        .iter()
        .filter_map(|(_, text)| read_table(text).ok())
        .collect()
});

/// The phrases of every table, read at first use.
pub(super) static PHRASES: LazyLock<Phrases> = LazyLock::new(|| Phrases::of(&TABLES_READ));

/// Greetings, lowercased, as the first line of a message starts with them: those of
/// every language's phrase table.
pub static GREETINGS: LazyLock<&'static [&'static str]> =
    LazyLock::new(|| PHRASES.greetings.as_slice());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_is_read_with_every_kind() {
        assert!(TABLES.iter().any(|(name, _)| *name == "en.toml"));
        for (name, text) in TABLES {
            if let Err(error) = read_table(text) {
                panic!("phrases/{name}: {error}");
            }
        }
        assert_eq!(TABLES_READ.len(), TABLES.len());
    }

    #[test]
    fn a_table_with_a_kind_missing_or_unknown_is_refused() {
        let (_, english) = TABLES
            .iter()
            .find(|(name, _)| *name == "en.toml")
            .expect("the English table");
        assert!(read_table(english).is_ok());
        let missing = english.replacen("closings =", "closing =", 1);
        assert!(read_table(&missing).is_err());
        let unknown = format!("farewells = []\n{english}");
        assert!(read_table(&unknown).is_err());
        assert!(read_table("greetings = [\"hi\"]\n").is_err());
    }

    #[test]
    fn phrases_are_lowercase_and_not_blank_but_openings_are_as_written() {
        let lowercase = [
            ("greetings", &PHRASES.greetings),
            ("closings", &PHRASES.closings),
            ("tagline starts", &PHRASES.tagline_starts),
            ("tagline ends", &PHRASES.tagline_ends),
            ("from labels", &PHRASES.from_labels),
            ("date labels", &PHRASES.date_labels),
            ("to labels", &PHRASES.to_labels),
            ("subject labels", &PHRASES.subject_labels),
            ("titles", &PHRASES.titles),
            ("forward intros", &PHRASES.forward_intros),
            ("verbs", &PHRASES.verbs),
        ];
        for (kind, phrases) in lowercase {
            assert!(!phrases.is_empty(), "no {kind}");
            for phrase in phrases {
                assert!(!phrase.trim().is_empty(), "a blank one among {kind}");
                assert_eq!(*phrase, phrase.to_lowercase(), "{kind}: {phrase:?}");
            }
        }
        assert!(!PHRASES.openings.is_empty());
        assert!(PHRASES.openings.iter().all(|o| !o.trim().is_empty()));
    }

    /// The first greeting that matches is the longest: one that begins another as a
    /// whole word is in the same table, after it. So the order of the tables does not
    /// matter.
    #[test]
    fn a_greeting_that_begins_another_comes_after_it_in_the_same_table() {
        let greetings: Vec<(usize, usize, &str)> = TABLES_READ
            .iter()
            .enumerate()
            .flat_map(|(t, table)| {
                table
                    .greetings
                    .iter()
                    .enumerate()
                    .map(move |(k, g)| (t, k, g.as_str()))
            })
            .collect();
        for &(t, k, short) in &greetings {
            for &(u, m, long) in &greetings {
                let begins = long
                    .strip_prefix(short)
                    .is_some_and(|rest| rest.starts_with(|c: char| !c.is_alphanumeric()));
                if begins {
                    assert!(
                        t == u && m < k,
                        "{short:?} begins {long:?}: it must come after it in the same table"
                    );
                }
            }
        }
        assert_eq!(*GREETINGS, PHRASES.greetings.as_slice());
    }
}
