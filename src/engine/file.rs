//! The game file schema: the only module that knows its fields and its layout, and the
//! one place that reads and writes it. Version in `format`.
//!
//! The file is public and self-contained: genesis, an append-only log of signed records,
//! the seed once revealed, and a cache of the public state after the last record.
//! It never holds a secret: the seed appears only as a commitment until the reveal.
//!
//! Reading is [`FileText::parse`], one serde parse of the whole file: genesis, the seed
//! and the format are read there; the records and the state stay as the JSON text they
//! are in the file until a caller reads them ([`FileText::game_file`] reads all of it).
//! Writing is [`GameFile::to_bytes`]: one line for genesis, one per record, one for the
//! seed and one for the state, so the file stays readable, diffs by record, and a record
//! can be appended to the bytes of a file in that layout ([`FileText::appendable`]).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::error::{EngineError, Result};
use super::rules::Options;
use crate::basics::digest::{Fields, Hash};

/// The value of `format` this version writes.
pub const FORMAT: &str = "pbem.game/4";
/// The first format, which this version still reads, checks and plays on: no sealed
/// moves, draws keyed by `pbem-draw/1`.
pub const FORMAT_V1: &str = "pbem.game/1";
/// The second format, still read, checked and played on: sealed moves, draws keyed by
/// `pbem-draw/2`.
pub const FORMAT_V2: &str = "pbem.game/2";
/// The third format, still read, checked and played on: rounds marked, draws keyed on
/// the hash of the last record standing before a round, `pbem-draw/3`.
pub const FORMAT_V3: &str = "pbem.game/3";
/// The value of `draw_algorithm` this version writes: the derivation in
/// docs/FAIRNESS.md.
pub const DRAW_ALGORITHM: &str = "pbem-draw/4";
/// The draw algorithm of files in [`FORMAT_V3`].
pub const DRAW_ALGORITHM_V3: &str = "pbem-draw/3";
/// The draw algorithm of files in [`FORMAT_V1`].
pub const DRAW_ALGORITHM_V1: &str = "pbem-draw/1";
/// The draw algorithm of files in [`FORMAT_V2`].
pub const DRAW_ALGORITHM_V2: &str = "pbem-draw/2";

/// The file formats this version reads: what each changes is in docs/FAIRNESS.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// `pbem.game/1` with `pbem-draw/1`: every move in clear, draws keyed on the
    /// previous record's hash and the move.
    V1,
    /// `pbem.game/2` with `pbem-draw/2`: sealed moves and their openings, draws keyed
    /// on the public state a turn starts from and the moves it resolves in seat order.
    V2,
    /// `pbem.game/3` with `pbem-draw/3`: rounds of simultaneous moves marked in the
    /// file (sealed or in clear), draws keyed on the last move standing before the
    /// round (so moves taken back change no draw) and the round's moves in seat order,
    /// every derivation bound to the whole genesis.
    V3,
    /// `pbem.game/4` with `pbem-draw/4`: as format 3, but a record's draws are keyed on
    /// the standing history (a keyed chain over the standing rounds, each round's
    /// moves by seat, a seat's several moves in a round as one combined move) that each
    /// move record carries as `history`, never on a record hash: so what was taken back
    /// on the way, the order a round's moves arrived in and a move's spelling change no
    /// later draw.
    V4,
}

impl Version {
    /// The version a `format` value names, if this pbem reads it.
    pub fn of(format: &str) -> Option<Version> {
        match format {
            FORMAT_V1 => Some(Version::V1),
            FORMAT_V2 => Some(Version::V2),
            FORMAT_V3 => Some(Version::V3),
            FORMAT => Some(Version::V4),
            _ => None,
        }
    }

    /// The version whose `draw_algorithm` this is.
    pub fn of_draw_algorithm(algorithm: &str) -> Option<Version> {
        [Version::V1, Version::V2, Version::V3, Version::V4]
            .into_iter()
            .find(|version| version.draw_algorithm() == algorithm)
    }

    /// The version of a game made from a genesis (or an invitation) with this
    /// `draw_algorithm`: format 3, or format 2 for an invitation written before it.
    ///
    /// # Errors
    /// A draw algorithm no new game is made in.
    pub fn of_new_game(algorithm: &str) -> Result<Version> {
        Version::of_draw_algorithm(algorithm)
            .filter(|version| version.seals())
            .ok_or_else(|| {
                EngineError::Malformed(format!(
                    "draw_algorithm {algorithm:?} is not one a new game is made in ({DRAW_ALGORITHM:?}, {DRAW_ALGORITHM_V3:?} or {DRAW_ALGORITHM_V2:?})"
                ))
            })
    }

    /// The `draw_algorithm` that goes with the format.
    pub fn draw_algorithm(self) -> &'static str {
        match self {
            Version::V1 => DRAW_ALGORITHM_V1,
            Version::V2 => DRAW_ALGORITHM_V2,
            Version::V3 => DRAW_ALGORITHM_V3,
            Version::V4 => DRAW_ALGORITHM,
        }
    }

    pub fn format(self) -> &'static str {
        match self {
            Version::V1 => FORMAT_V1,
            Version::V2 => FORMAT_V2,
            Version::V3 => FORMAT_V3,
            Version::V4 => FORMAT,
        }
    }

    /// Whether the format records sealed moves, openings and steps of taking back.
    pub fn seals(self) -> bool {
        self != Version::V1
    }

    /// Whether the format marks rounds of simultaneous moves and binds every keyed
    /// derivation to the whole genesis body (formats 3 and 4).
    pub fn marks_rounds(self) -> bool {
        matches!(self, Version::V3 | Version::V4)
    }
}

/// A whole game file, generic over the game's state type. Read through [`FileText`].
///
/// Unknown fields are refused everywhere in the schema: a renamed key (`"seed"` spelt
/// otherwise, say) would otherwise read as an absent one and pass unnoticed. The state
/// belongs to the game, whose type may ignore keys it does not know: the reader checks
/// that the stored state is exactly what the game's state reads back as.
#[derive(Debug, Clone, Serialize)]
pub struct GameFile<S> {
    pub format: String,
    pub genesis: Genesis,
    pub records: Vec<Record>,
    /// The game's seed in hex, once revealed (at the end of the game or by `pbem reveal`).
    pub seed: Option<String>,
    /// The public state after the last record: a cache that replay must reproduce.
    pub state: S,
}

/// A game file as read from its bytes: every key checked against the schema, genesis,
/// the seed and the format read, the records and the state kept as their JSON text in
/// the bytes, for the caller to read as far as it needs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileText<'a> {
    format: String,
    pub genesis: Genesis,
    #[serde(borrow)]
    pub records: Vec<&'a RawValue>,
    pub seed: Option<String>,
    #[serde(borrow)]
    pub state: &'a RawValue,
}

/// The format version a file declares, checked against its genesis's draw algorithm.
///
/// # Errors
/// A format this pbem does not read, or a draw algorithm that is not the format's.
pub fn version_of(format: &str, genesis: &Genesis) -> Result<Version> {
    let version = Version::of(format).ok_or_else(|| {
        EngineError::Malformed(format!(
            "format {format:?} is not one this pbem reads ({FORMAT:?}, {FORMAT_V2:?} or {FORMAT_V1:?}); a newer pbem may read it"
        ))
    })?;
    if genesis.draw_algorithm != version.draw_algorithm() {
        return Err(EngineError::Malformed(format!(
            "draw_algorithm {:?} is not that of format {format:?} ({:?})",
            genesis.draw_algorithm,
            version.draw_algorithm()
        )));
    }
    Ok(version)
}

fn malformed(what: &str, error: &serde_json::Error) -> EngineError {
    EngineError::Malformed(format!("{what}: {error}"))
}

impl<'a> FileText<'a> {
    /// Reads a game file.
    ///
    /// # Errors
    /// Not JSON, a key the schema does not have or a missing one, or a format this
    /// version does not read.
    pub fn parse(bytes: &'a [u8]) -> Result<FileText<'a>> {
        let text: FileText = serde_json::from_slice(bytes)
            .map_err(|error| malformed("not a pbem game file", &error))?;
        text.version()?;
        Ok(text)
    }

    /// The file's format version, checked against its draw algorithm.
    ///
    /// # Errors
    /// A format this pbem does not read, or a draw algorithm that is not the format's.
    pub fn version(&self) -> Result<Version> {
        version_of(&self.format, &self.genesis)
    }

    /// Record `turn` (numbered from 1).
    ///
    /// # Errors
    /// No such record, or one that does not read as a record.
    pub fn record(&self, turn: usize) -> Result<Record> {
        let raw = turn
            .checked_sub(1)
            .and_then(|index| self.records.get(index))
            .ok_or_else(|| EngineError::Malformed(format!("there is no record {turn}")))?;
        serde_json::from_str(raw.get())
            .map_err(|error| malformed(&format!("record {turn}"), &error))
    }

    /// Every record, in order.
    ///
    /// # Errors
    /// A record that does not read as a record.
    pub fn read_records(&self) -> Result<Vec<Record>> {
        (1..=self.records.len())
            .map(|turn| self.record(turn))
            .collect()
    }

    /// The stored state as the game's state type reads it, without checking that it
    /// holds nothing more: only for bytes this referee wrote itself.
    ///
    /// # Errors
    /// It does not read as the game's state.
    pub fn state_as_read<S: DeserializeOwned>(&self) -> Result<S> {
        serde_json::from_str(self.state.get())
            .map_err(|error| malformed("the stored state", &error))
    }

    /// The stored state, which must be exactly what the game's state reads back as: a
    /// key the state's type does not have (which serde skips unless the type refuses
    /// unknown fields) or a value it reads in another form is refused, as an unknown
    /// key anywhere else in the file is.
    ///
    /// # Errors
    /// It does not read as the game's state, or holds more than it.
    pub fn state<S: Serialize + DeserializeOwned>(&self) -> Result<S> {
        let state: S = self.state_as_read()?;
        let stored = self.state.get();
        let written = serde_json::to_string(&state)
            .map_err(|error| malformed("the state does not serialize", &error))?;
        // What pbem writes is compact and in the type's own order: equal text is the
        // common case, and settles it.
        if written != stored {
            // A key given twice would read as its last value in what follows: refused,
            // as it is everywhere else in the file.
            serde_json::from_str::<Distinct>(stored)
                .map_err(|error| malformed("the stored state", &error))?;
            let stored: Value = serde_json::from_str(stored)
                .map_err(|error| malformed("the stored state", &error))?;
            let read: Value = serde_json::from_str(&written)
                .map_err(|error| malformed("the state does not serialize", &error))?;
            if let Some(difference) = first_difference(&stored, &read, "state") {
                return Err(EngineError::Malformed(format!(
                    "the stored state is not what the game's state reads back as: {difference}"
                )));
            }
        }
        Ok(state)
    }

    /// The whole file, every record and the state read and checked against the schema.
    ///
    /// # Errors
    /// As for [`FileText::record`] and [`FileText::state`].
    pub fn game_file<S: Serialize + DeserializeOwned>(self) -> Result<GameFile<S>> {
        let records = self.read_records()?;
        let state = self.state()?;
        Ok(GameFile {
            format: self.format,
            genesis: self.genesis,
            records,
            seed: self.seed,
            state,
        })
    }

    /// When `bytes` (the bytes this was read from) are laid out exactly as
    /// [`GameFile::to_bytes`] writes this file, where a new record goes: the bytes up
    /// to the end of the last record stay, and the new record, seed and state follow.
    /// `None` for any other layout.
    pub fn appendable(&self, bytes: &'a [u8]) -> Option<Appendable<'a>> {
        let mut tail = Vec::with_capacity(self.state.get().len() + 96);
        write_tail(&mut tail, &self.seed, self.state.get()).ok()?;
        let kept = bytes.len().checked_sub(tail.len())?;
        let (kept, rest) = bytes.split_at(kept);
        if rest != tail.as_slice() {
            return None;
        }
        // The last record (where serde found it in `bytes`) ends where the tail starts,
        // on its own line; with no record, the list opens there.
        let in_place = match self.records.last() {
            Some(last) => {
                let text = last.get().as_bytes();
                let start = (text.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
                let before = kept.get(..start)?;
                start + text.len() == kept.len()
                    && before.ends_with(if self.records.len() == 1 {
                        b"[\n"
                    } else {
                        b",\n"
                    })
            }
            None => kept.ends_with(RECORDS),
        };
        in_place.then_some(Appendable {
            kept,
            first: self.records.is_empty(),
        })
    }
}

/// A game file's bytes up to the end of its last record, to which a record can be
/// appended (see [`FileText::appendable`]): the kept bytes, then [`record_line`] and
/// [`append_tail`], are exactly what [`GameFile::to_bytes`] writes for the file with
/// that record.
#[derive(Debug, Clone, Copy)]
pub struct Appendable<'a> {
    pub kept: &'a [u8],
    /// Whether the record appended is the file's first.
    pub first: bool,
}

/// A record as it goes after the records before it (the first of a file or another),
/// on a line of its own: what stays when the next record is appended.
///
/// # Errors
/// Something does not serialize.
pub fn record_line(first: bool, record: &Record) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(1024);
    out.extend_from_slice(if first { b"\n" } else { b",\n" });
    serde_json::to_writer(&mut out, record).map_err(unserializable)?;
    Ok(out)
}

/// Appends what follows the records to `out`: their list's end, the seed and `state`.
///
/// # Errors
/// The state does not serialize.
pub fn append_tail<S: Serialize>(
    out: &mut Vec<u8>,
    seed: &Option<String>,
    state: &S,
) -> Result<()> {
    write_tail(out, seed, &to_json(state)?)
}

/// What opens the list of records (each on a line of its own).
const RECORDS: &[u8] = b",\n\"records\":[";

fn unserializable(error: serde_json::Error) -> EngineError {
    EngineError::Malformed(format!("the game does not serialize: {error}"))
}

fn to_json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(unserializable)
}

/// What follows the records: their list's end, the seed and the state (already JSON).
fn write_tail(out: &mut Vec<u8>, seed: &Option<String>, state: &str) -> Result<()> {
    out.extend_from_slice(b"\n],\n\"seed\":");
    serde_json::to_writer(&mut *out, seed).map_err(unserializable)?;
    out.extend_from_slice(b",\n\"state\":");
    out.extend_from_slice(state.as_bytes());
    out.extend_from_slice(b"}\n");
    Ok(())
}

impl<S: Serialize> GameFile<S> {
    /// The file's bytes: one line for genesis, one per record, one for the seed and one
    /// for the state.
    ///
    /// # Errors
    /// Something does not serialize.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let state = to_json(&self.state)?;
        let mut out = Vec::with_capacity(1024 * (self.records.len() + 8) + state.len());
        out.extend_from_slice(b"{\"format\":");
        serde_json::to_writer(&mut out, &self.format).map_err(unserializable)?;
        out.extend_from_slice(b",\n\"genesis\":");
        serde_json::to_writer(&mut out, &self.genesis).map_err(unserializable)?;
        out.extend_from_slice(RECORDS);
        for (i, record) in self.records.iter().enumerate() {
            out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
            serde_json::to_writer(&mut out, record).map_err(unserializable)?;
        }
        write_tail(&mut out, &self.seed, &state)?;
        Ok(out)
    }
}

/// Where two JSON values first differ, for a message; `None` when they are equal.
fn first_difference(stored: &Value, read: &Value, path: &str) -> Option<String> {
    match (stored, read) {
        (Value::Object(stored), Value::Object(read)) => {
            if let Some(key) = stored.keys().find(|key| !read.contains_key(*key)) {
                return Some(format!("{path}.{key} is not part of the game's state"));
            }
            if let Some(key) = read.keys().find(|key| !stored.contains_key(*key)) {
                return Some(format!("{path}.{key} is missing"));
            }
            stored.iter().find_map(|(key, value)| {
                first_difference(value, &read[key], &format!("{path}.{key}"))
            })
        }
        (Value::Array(stored), Value::Array(read)) if stored.len() == read.len() => stored
            .iter()
            .zip(read)
            .enumerate()
            .find_map(|(i, (stored, read))| {
                first_difference(stored, read, &format!("{path}[{i}]"))
            }),
        _ if stored == read => None,
        _ => Some(format!(
            "{path} is {stored}, which the game reads back as {read}"
        )),
    }
}

/// Any JSON value whose objects each name a key once: serde reads a key given twice in
/// a map as its last value, and a file must never be read two ways.
struct Distinct;

impl<'de> Deserialize<'de> for Distinct {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DistinctVisitor)
    }
}

struct DistinctVisitor;

impl<'de> serde::de::Visitor<'de> for DistinctVisitor {
    type Value = Distinct;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Distinct, E> {
        Ok(Distinct)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Distinct, E> {
        Ok(Distinct)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Distinct, E> {
        Ok(Distinct)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Distinct, E> {
        Ok(Distinct)
    }

    fn visit_str<E>(self, _: &str) -> Result<Distinct, E> {
        Ok(Distinct)
    }

    fn visit_unit<E>(self) -> Result<Distinct, E> {
        Ok(Distinct)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Distinct, A::Error> {
        while seq.next_element::<Distinct>()?.is_some() {}
        Ok(Distinct)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Distinct, A::Error> {
        let mut keys = std::collections::BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the key {key:?} is given twice"
                )));
            }
            map.next_value::<Distinct>()?;
        }
        Ok(Distinct)
    }
}

/// Genesis's options: a JSON object of strings, each key once (a key given twice is
/// refused, never read as either value).
fn distinct_options<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Options, D::Error> {
    struct OptionsVisitor;
    impl<'de> serde::de::Visitor<'de> for OptionsVisitor {
        type Value = Options;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object of option names and string values")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Options, A::Error> {
            let mut options = Options::new();
            while let Some((key, value)) = map.next_entry::<String, String>()? {
                if options.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!(
                        "the option {key:?} is given twice"
                    )));
                }
                options.insert(key, value);
            }
            Ok(options)
        }
    }
    deserializer.deserialize_map(OptionsVisitor)
}

/// A player as listed at the start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// What an address starts with for a seat a built-in player takes (`bot:search`).
pub const BOT_ADDRESS: &str = "bot:";

impl PlayerEntry {
    /// The built-in player that takes this seat (`Bot <bot:search>` gives `search`),
    /// if one does.
    pub fn bot(&self) -> Option<&str> {
        self.email.as_deref()?.strip_prefix(BOT_ADDRESS)
    }

    /// The address mail for this player goes to: none for a player without one or a
    /// seat a bot takes.
    pub fn mail_address(&self) -> Option<&str> {
        self.email.as_deref().filter(|_| self.bot().is_none())
    }
}

/// Everything fixed before the first move, signed by the referee.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Genesis {
    pub game: String,
    pub id: String,
    pub engine: String,
    pub players: Vec<PlayerEntry>,
    #[serde(deserialize_with = "distinct_options")]
    pub options: Options,
    /// SHA-256 of `rules_data`, hex.
    pub rules_hash: String,
    /// The rules data (components, option defaults) the game is played with.
    pub rules_data: String,
    /// The referee's Ed25519 public key, base64.
    pub referee_key: String,
    /// Commitment to the 32-byte seed, hex (docs/FAIRNESS.md).
    pub seed_commitment: String,
    pub draw_algorithm: String,
    /// Entropy contributed by players at the start, mixed into every draw; in a game
    /// the players joined (`pbem new --join`), followed by one entry per player, in
    /// seat order, `NAME: TEXT`, what they sent when they joined.
    #[serde(default)]
    pub entropy: Vec<String>,
    /// The hash of the invitation the players joined (format 2, `pbem new --join`);
    /// empty, and not written, for a game started at once.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub invitation: String,
    /// Draws made by the setup (city layout, opening hands).
    pub draws: Vec<Draw>,
    /// Hash of the public state after setup, hex.
    pub state_hash: String,
    /// The genesis hash, hex: what record 1 names as `prev`.
    pub hash: String,
    /// The referee's signature over the genesis hash, base64.
    pub signature: String,
}

/// One move: who, what, when, what it drew, and the chain that binds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// 1-based: the record number, which is also the turn the move was made for.
    pub turn: u64,
    pub player: String,
    /// The move as the rules understood it (its canonical text, every default filled
    /// in); files written before that rule hold the text as submitted. Empty, and not
    /// written, for a sealed move.
    #[serde(rename = "move", default, skip_serializing_if = "String::is_empty")]
    pub move_text: String,
    /// A sealed move (format 2): its commitment and its encrypted text, in place of
    /// `move`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<SealedMove>,
    /// A step of taking back moves (format 2), in place of a move: asked, agreed,
    /// declined or done (docs/FAIRNESS.md, "Taking back moves").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<UndoRecord>,
    /// Format 3: the first record of the round of simultaneous moves this move belongs
    /// to (its own turn for the round's first move); left out for a move made alone
    /// (docs/FAIRNESS.md, "Rounds").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u64>,
    /// Format 4: on a move that is not its seat's first standing move of its round,
    /// that seat's moves of the round so far as one move, in the rules' canonical text
    /// (docs/FAIRNESS.md, "Combined moves"); left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combined: Option<String>,
    /// Format 4: on every move, the standing history up to and including this move
    /// (docs/FAIRNESS.md, "The standing history"), hex: a keyed hash, which keys the
    /// record's draws; left out on a step of taking back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<String>,
    /// Sealed moves of earlier records this record opens (format 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opens: Vec<Opening>,
    pub draws: Vec<Draw>,
    /// Hash of the previous record (the genesis hash for turn 1), hex.
    pub prev: String,
    /// Hash of the public state after this move, hex.
    pub state_hash: String,
    /// This record's hash, hex.
    pub hash: String,
    /// The referee's signature over `hash`, base64.
    pub signature: String,
}

impl Record {
    /// Whether the record's move is sealed.
    pub fn is_sealed(&self) -> bool {
        self.sealed.is_some()
    }

    /// Whether the record is a move (in clear or sealed), not a step of taking back.
    pub fn is_move(&self) -> bool {
        self.undo.is_none()
    }

    /// Checks the fields the format allows: in format 1 every move is in clear; in
    /// format 2 a record holds a move in clear or a sealed one, never both or neither.
    ///
    /// # Errors
    /// A record of a shape its format does not have.
    pub fn check_shape(&self, version: Version) -> Result<()> {
        let round = match self.round {
            Some(_) if !version.marks_rounds() => {
                Some("marks a round, which only formats 3 and 4 have")
            }
            Some(_) if self.undo.is_some() => Some("takes back moves but also marks a round"),
            Some(round) if round == 0 || round > self.turn => {
                Some("marks a round that does not begin at it or before it")
            }
            _ => None,
        };
        let history = match (&self.history, &self.combined) {
            (Some(_), _) | (_, Some(_)) if version != Version::V4 => {
                Some("holds a standing history or a combined move, which only format 4 has")
            }
            (Some(_), _) | (_, Some(_)) if self.undo.is_some() => {
                Some("takes back moves but also holds a standing history or a combined move")
            }
            (None, _) if version == Version::V4 && self.undo.is_none() => {
                Some("is a move without its standing history")
            }
            (_, Some(_)) if self.sealed.is_some() => {
                Some("is sealed but holds a combined move in clear")
            }
            (_, Some(combined)) if combined.is_empty() => Some("holds an empty combined move"),
            _ => None,
        };
        let problem =
            round
                .or(history)
                .or(match (version, &self.sealed, self.move_text.is_empty()) {
                    (Version::V1, _, _) if self.undo.is_some() => {
                        Some("takes back moves, which format 1 cannot")
                    }
                    (_, None, true) if version.seals() && self.undo.is_some() => {
                        (!self.opens.is_empty() || !self.draws.is_empty())
                            .then_some("takes back moves but also opens or draws")
                    }
                    _ if version.seals() && self.undo.is_some() => {
                        Some("takes back moves but also holds a move")
                    }
                    (Version::V1, Some(_), _) => {
                        Some("holds a sealed move, which format 1 has not")
                    }
                    (Version::V1, None, _) if !self.opens.is_empty() => {
                        Some("opens sealed moves, which format 1 has not")
                    }
                    (_, None, true) => Some("holds no move"),
                    (_, Some(_), false) => Some("holds both a move and a sealed move"),
                    _ => None,
                });
        match problem {
            Some(problem) => Err(EngineError::Malformed(format!(
                "record {} {problem}",
                self.turn
            ))),
            None => Ok(()),
        }
    }
}

/// What a record that takes back moves does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UndoStep {
    /// The player asks to take back their last move standing and the moves after it.
    Ask,
    /// Another player agrees to the request.
    Agree,
    /// Another player declines it: the request ends.
    Decline,
    /// The moves are taken back: the game stands as it did before them.
    Undo,
}

impl UndoStep {
    /// The step's name as the file writes it and its hash binds it.
    pub fn name(self) -> &'static str {
        match self {
            UndoStep::Ask => "ask",
            UndoStep::Agree => "agree",
            UndoStep::Decline => "decline",
            UndoStep::Undo => "undo",
        }
    }
}

/// A step of taking back moves as the file holds it: `{"step": "ask", "turn": 12}`,
/// `turn` being the first record taken back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoRecord {
    pub step: UndoStep,
    pub turn: u64,
}

/// A sealed move as the file holds it (docs/FAIRNESS.md, "Sealed moves").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealedMove {
    /// The salted commitment to the move's text, hex.
    pub commit: String,
    /// The move's text, padded and encrypted under a key derived from the seed, base64.
    #[serde(rename = "box")]
    pub sealed_box: String,
}

/// An earlier record's sealed move, opened: its text and the salt of its commitment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Opening {
    /// The record whose sealed move this opens.
    pub turn: u64,
    /// The sealed move's text.
    #[serde(rename = "move")]
    pub move_text: String,
    /// The salt of its commitment, hex.
    pub salt: String,
}

/// One outcome of the chance source, as the file shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Draw {
    /// An index `pick` in `0..of`, in clear.
    Public { of: u32, pick: u32 },
    /// An index in `0..of`, known only through a salted commitment until the reveal.
    Hidden { of: u32, commit: String },
}

impl std::fmt::Display for Draw {
    /// `pick/of`, or `?/of` for a hidden draw.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Draw::Public { of, pick } => write!(f, "{pick}/{of}"),
            Draw::Hidden { of, .. } => write!(f, "?/{of}"),
        }
    }
}

/// Draws as `pick/of` separated by spaces; "none" for none.
pub fn draws_text(draws: &[Draw]) -> String {
    if draws.is_empty() {
        return "none".to_string();
    }
    draws
        .iter()
        .map(Draw::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

impl Draw {
    pub fn range(&self) -> u32 {
        match self {
            Draw::Public { of, .. } | Draw::Hidden { of, .. } => *of,
        }
    }
}

/// The hashes of docs/FAIRNESS.md, in one place.
pub mod hashes {
    use super::*;
    use crate::basics::digest::hash_from_hex;

    /// Feeds a list of draws: a count, then per draw a kind byte, the range and the pick
    /// (public) or the 32-byte commitment (hidden).
    fn draws<D: crate::basics::digest::Sink>(
        mut fields: Fields<D>,
        draws: &[Draw],
    ) -> Option<Fields<D>> {
        let count = u32::try_from(draws.len()).ok()?;
        fields = fields.u32(count);
        for draw in draws {
            fields = match draw {
                Draw::Public { of, pick } => fields.u8(0).u32(*of).u32(*pick),
                Draw::Hidden { of, commit } => fields.u8(1).u32(*of).fixed(&hash_from_hex(commit)?),
            };
        }
        Some(fields)
    }

    /// The genesis body: everything in genesis but draws, state, hash and signature.
    /// Setup draws are keyed by it, so it cannot depend on them.
    pub fn genesis_body(
        version: Version,
        genesis: &Genesis,
        referee_key: &[u8; 32],
        commitment: &Hash,
        rules_hash: &Hash,
    ) -> Hash {
        let mut fields = Fields::hash("pbem/v1/genesis-body")
            .text(version.format())
            .text(&genesis.game)
            .text(&genesis.id)
            .text(&genesis.engine)
            .u32(genesis.players.len() as u32);
        for player in &genesis.players {
            fields = fields
                .text(&player.name)
                .text(player.email.as_deref().unwrap_or(""));
        }
        fields = fields.u32(genesis.options.len() as u32);
        for (key, value) in &genesis.options {
            fields = fields.text(key).text(value);
        }
        fields = fields
            .fixed(rules_hash)
            .fixed(referee_key)
            .fixed(commitment)
            .text(&genesis.draw_algorithm)
            .u32(genesis.entropy.len() as u32);
        for contribution in &genesis.entropy {
            fields = fields.text(contribution);
        }
        if version.seals() {
            fields = fields.text(&genesis.invitation);
        }
        fields.finish()
    }

    /// The genesis hash: the body, the setup draws and the state after setup.
    pub fn genesis(body: &Hash, setup_draws: &[Draw], state_hash: &Hash) -> Option<Hash> {
        let fields = Fields::hash("pbem/v1/genesis").fixed(body);
        Some(draws(fields, setup_draws)?.fixed(state_hash).finish())
    }

    /// A record's hash: `pbem/v1/record` in format 1, `pbem/v2/record` (which also
    /// binds a sealed move and the openings) in format 2. `None` when a hex or base64
    /// field is malformed, or a format-1 record has format-2 fields.
    pub fn record(
        version: Version,
        game_id: &str,
        record: &Record,
        prev: &Hash,
        state_hash: &Hash,
    ) -> Option<Hash> {
        let domain = match version {
            Version::V1 => "pbem/v1/record",
            Version::V2 => "pbem/v2/record",
            Version::V3 => "pbem/v3/record",
            Version::V4 => "pbem/v4/record",
        };
        let mut fields = Fields::hash(domain)
            .text(game_id)
            .u64(record.turn)
            .fixed(prev)
            .text(&record.player);
        if record.round.is_some() && !version.marks_rounds() {
            return None;
        }
        if (record.history.is_some() || record.combined.is_some()) && version != Version::V4 {
            return None;
        }
        fields = match (version, &record.sealed) {
            (Version::V1, _) if record.undo.is_some() => return None,
            (Version::V1, None) if record.opens.is_empty() => fields.text(&record.move_text),
            (Version::V1, _) => return None,
            (_, None) => match record.undo {
                Some(undo) => fields.u8(2).text(undo.step.name()).u64(undo.turn),
                None => fields.u8(0).text(&record.move_text),
            },
            (_, Some(sealed)) => {
                use base64::Engine as _;
                let sealed_box = base64::engine::general_purpose::STANDARD
                    .decode(&sealed.sealed_box)
                    .ok()?;
                fields
                    .u8(1)
                    .fixed(&hash_from_hex(&sealed.commit)?)
                    .bytes(&sealed_box)
            }
        };
        if version.marks_rounds() {
            fields = fields.u64(record.round.unwrap_or(0));
        }
        if version == Version::V4 {
            fields = match &record.combined {
                Some(combined) => fields.u8(1).text(combined),
                None => fields.u8(0),
            };
            fields = match &record.history {
                Some(history) => fields.u8(1).fixed(&hash_from_hex(history)?),
                None => fields.u8(0),
            };
        }
        if version.seals() {
            fields = fields.u32(u32::try_from(record.opens.len()).ok()?);
            for opening in &record.opens {
                fields = fields
                    .u64(opening.turn)
                    .text(&opening.move_text)
                    .fixed(&hash_from_hex(&opening.salt)?);
            }
        }
        Some(draws(fields, &record.draws)?.fixed(state_hash).finish())
    }

    /// The hash of a state: its compact JSON as pbem writes it.
    pub fn state(json: &[u8]) -> Hash {
        Fields::hash("pbem/v1/state").bytes(json).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_with_an_unknown_key_is_refused() {
        let good: Draw = serde_json::from_str(r#"{"of":6,"pick":2}"#).expect("a draw");
        assert_eq!(good, Draw::Public { of: 6, pick: 2 });
        for bad in [
            r#"{"of":6,"pick":2,"x":1}"#,
            r#"{"of":6,"commit":"00","x":1}"#,
            r#"{"of":6,"pick":2,"commit":"00"}"#,
        ] {
            assert!(serde_json::from_str::<Draw>(bad).is_err(), "{bad}");
        }
    }

    /// A game state whose type, like many, ignores keys it does not know.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Toy {
        cells: Vec<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        score: Score,
    }

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Score {
        points: u32,
    }

    fn genesis() -> Genesis {
        Genesis {
            game: "toy".into(),
            id: "t-1".into(),
            engine: "pbem test".into(),
            players: vec![PlayerEntry {
                name: "Ann".into(),
                email: None,
            }],
            options: Options::new(),
            rules_hash: "00".into(),
            rules_data: "a = 1\n".into(),
            referee_key: "key".into(),
            seed_commitment: "00".into(),
            draw_algorithm: DRAW_ALGORITHM.into(),
            entropy: Vec::new(),
            invitation: String::new(),
            draws: vec![Draw::Public { of: 3, pick: 1 }],
            state_hash: "00".into(),
            hash: "00".into(),
            signature: "sig".into(),
        }
    }

    fn record(turn: u64) -> Record {
        Record {
            turn,
            player: "Ann".into(),
            move_text: format!("move {turn}\nsecond line \"quoted\""),
            sealed: None,
            undo: None,
            round: None,
            combined: None,
            history: None,
            opens: Vec::new(),
            draws: vec![Draw::Hidden {
                of: 9,
                commit: "ab".into(),
            }],
            prev: "00".into(),
            state_hash: "00".into(),
            hash: format!("{turn:02}"),
            signature: "sig".into(),
        }
    }

    fn file(records: u64) -> GameFile<Toy> {
        GameFile {
            format: FORMAT.into(),
            genesis: genesis(),
            records: (1..=records).map(record).collect(),
            seed: (records > 1).then(|| "5eed".to_string()),
            state: Toy {
                cells: vec![1, 2, u8::try_from(records).expect("small")],
                note: None,
                score: Score { points: 7 },
            },
        }
    }

    #[test]
    fn what_is_written_reads_back_whole() {
        for records in 0..3 {
            let written = file(records);
            let bytes = written.to_bytes().expect("bytes");
            let read: GameFile<Toy> = FileText::parse(&bytes)
                .expect("parses")
                .game_file()
                .expect("reads");
            assert_eq!(read.to_bytes().expect("bytes"), bytes);
            assert_eq!(read.state, written.state);
            assert_eq!(read.records.len() as u64, records);
        }
    }

    #[test]
    fn a_record_appended_to_the_bytes_read_gives_the_bytes_written() {
        for records in 0..4 {
            let bytes = file(records).to_bytes().expect("bytes");
            let text = FileText::parse(&bytes).expect("parses");
            let appendable = text.appendable(&bytes).expect("pbem's own layout");
            let next = file(records + 1);
            let mut added = record_line(appendable.first, &record(records + 1)).expect("line");
            append_tail(&mut added, &next.seed, &next.state).expect("tail");
            let whole = [appendable.kept, &added].concat();
            assert_eq!(
                String::from_utf8(whole).expect("utf-8"),
                String::from_utf8(next.to_bytes().expect("bytes")).expect("utf-8")
            );
        }
    }

    #[test]
    fn another_layout_is_not_appended_to() {
        let bytes = file(2).to_bytes().expect("bytes");
        let value: Value = serde_json::from_slice(&bytes).expect("json");
        for other in [
            serde_json::to_vec(&value).expect("json"),
            serde_json::to_vec_pretty(&value).expect("json"),
            String::from_utf8(bytes.clone())
                .expect("utf-8")
                .replace("},\n{", "}, \n{")
                .into_bytes(),
            [bytes.as_slice(), b"\n"].concat(),
        ] {
            let text = FileText::parse(&other).expect("still a game file");
            assert!(text.appendable(&other).is_none());
        }
    }

    #[test]
    fn the_stored_state_must_be_what_the_state_reads_back_as() {
        let bytes = String::from_utf8(file(1).to_bytes().expect("bytes")).expect("utf-8");
        let read = |text: &str| {
            FileText::parse(text.as_bytes())
                .expect("parses")
                .game_file::<Toy>()
                .map(|_| ())
        };
        read(&bytes).expect("as written");
        // Reformatted (keys sorted, spaces added): the same values.
        let value: Value = serde_json::from_str(&bytes).expect("json");
        read(&serde_json::to_string_pretty(&value).expect("json")).expect("reformatted");
        for (from, to, says) in [
            (
                "\"state\":{",
                "\"state\":{\"zzz\":1,",
                "state.zzz is not part",
            ),
            (
                "\"points\":7",
                "\"points\":7,\"bonus\":[]",
                "state.score.bonus is not part",
            ),
            (
                "\"score\":",
                "\"note\":null,\"score\":",
                "state.note is not part",
            ),
            (
                "\"cells\":[1,2,1]",
                "\"cells\":[1,2,1.0]",
                "the stored state",
            ),
        ] {
            let changed = bytes.replacen(from, to, 1);
            assert_ne!(changed, bytes);
            let error = read(&changed).expect_err(to).to_string();
            assert!(error.contains(says), "{to}: {error}");
        }
        // What the fast path reads is not checked: it is read only from bytes this
        // referee wrote itself.
        let changed = bytes.replacen("\"state\":{", "\"state\":{\"zzz\":1,", 1);
        let text = FileText::parse(changed.as_bytes()).expect("parses");
        assert!(text.state_as_read::<Toy>().is_ok());
        assert!(text.state::<Toy>().is_err());
    }

    #[test]
    fn unknown_keys_and_other_formats_are_refused() {
        let bytes = String::from_utf8(file(1).to_bytes().expect("bytes")).expect("utf-8");
        for (from, to) in [
            ("\"seed\":", "\"sead\":null,\"seed\":"),
            ("\"turn\":1,", "\"turn\":1,\"extra\":0,"),
            ("{\"game\":", "{\"x\":0,\"game\":"),
            ("pbem.game/4", "pbem.game/5"),
        ] {
            let changed = bytes.replacen(from, to, 1);
            assert_ne!(changed, bytes);
            let result =
                FileText::parse(changed.as_bytes()).and_then(|text| text.game_file::<Toy>());
            assert!(result.is_err(), "{to}");
        }
    }
}
