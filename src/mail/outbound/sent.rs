//! What pbem sent: the text of each notice, kept beside its game, so that a reply is
//! read against the notice it answers ([`intake::read_message_answering`]) rather
//! than against lists of what mail clients write around a quote.
//!
//! Every message staged in a game's outbox whose Message-ID is one of ours
//! ([`NoticeId`]: turn notices, confirmations, refusals, previews, lists of moves,
//! undo and absence mail, reminders) is kept as `sent-<turn>-<key>.json` in the game's
//! archive folder (`game.json.mail/`), private and written atomically like the rest
//! of it: its text body, cut at [`intake::MAX_NOTICE_BYTES`], and its sender. `key`
//! is the start of the SHA-256 of the Message-ID, so a reply's In-Reply-To finds its
//! notice without a listing. Only the newest [`MAX_KEPT`] notices of a game are
//! kept, the oldest turns going first: a reply answers one of the last few notices,
//! and a reply to a notice no longer kept is read as if none were.

use std::fs;
use std::path::{Path, PathBuf};

use mail_parser::MessageParser;

use super::capability::NoticeId;
use super::outgoing::Outgoing;
use crate::basics::digest::{sha256, to_hex};
use crate::basics::store::{self, Access};
use crate::mail::intake::{self, Incoming, SentNotice};
use crate::mail::MailError;

/// The most notices kept per game: with six players, the notices of about twenty
/// moves.
pub const MAX_KEPT: usize = 128;
/// How many ids of a reply's References are looked up, newest first, when its
/// In-Reply-To names no notice kept.
const MAX_REFERENCES_LOOKED_UP: usize = 8;
/// A kept file larger than this is not one of ours (a notice is cut at
/// [`intake::MAX_NOTICE_BYTES`]), and is not read.
const MAX_FILE_BYTES: u64 = 4 * intake::MAX_NOTICE_BYTES as u64;

/// The notices kept for one game.
#[derive(Debug, Clone)]
pub struct SentNotices {
    dir: PathBuf,
}

impl SentNotices {
    /// The notices of a game file, in its archive folder.
    pub fn beside(game_file: &Path) -> SentNotices {
        let mut name = game_file.file_name().unwrap_or_default().to_os_string();
        name.push(".mail");
        SentNotices {
            dir: game_file.with_file_name(name),
        }
    }

    /// The notices of the game whose outbox is `outbox_dir` (`game.json.outbox`);
    /// `None` for an outbox that is not beside a game.
    pub fn of_outbox(outbox_dir: &Path) -> Option<SentNotices> {
        let name = outbox_dir.file_name()?.to_str()?;
        let game = name.strip_suffix(".outbox")?;
        (!game.is_empty()).then(|| SentNotices::beside(&outbox_dir.with_file_name(game)))
    }

    /// Keeps the text of each of `messages` that is a notice of ours, then drops the
    /// oldest beyond [`MAX_KEPT`].
    ///
    /// # Errors
    /// The archive folder cannot be written.
    pub fn keep(&self, messages: &[Outgoing]) -> Result<(), MailError> {
        let mut kept = false;
        for message in messages {
            let Some((id, notice)) = notice_of(message) else {
                continue;
            };
            let Some(path) = self.path_of(&id) else {
                continue;
            };
            let bytes = serde_json::to_vec(&notice).map_err(|error| {
                MailError::Config(format!("cannot keep the text of a notice: {error}"))
            })?;
            store::create_private_dir(&self.dir).map_err(MailError::io(&self.dir))?;
            // Lost in a crash, a reply to it is read by the rules that need no notice.
            store::write_atomic_unsynced(&path, &bytes, Access::Private)?;
            kept = true;
        }
        if kept {
            self.prune()?;
        }
        Ok(())
    }

    /// The notice `incoming` answers, when it was kept: the one its In-Reply-To
    /// names, else the newest of its References that was.
    pub fn answered(&self, incoming: &Incoming) -> Option<SentNotice> {
        incoming
            .in_reply_to
            .iter()
            .chain(
                incoming
                    .references
                    .iter()
                    .rev()
                    .take(MAX_REFERENCES_LOOKED_UP),
            )
            .find_map(|id| self.find(id))
    }

    /// Reads `raw` again against the notice it answers, when that notice was kept;
    /// `incoming` (as read without it) otherwise.
    pub fn reread(&self, raw: &[u8], incoming: Incoming) -> Incoming {
        match self.answered(&incoming) {
            Some(notice) => intake::read_message_answering(raw, Some(&notice)).unwrap_or(incoming),
            None => incoming,
        }
    }

    /// The notice kept under a Message-ID.
    pub fn find(&self, message_id: &str) -> Option<SentNotice> {
        let path = self.path_of(message_id)?;
        // A planted link or fifo is never opened, and only a small file is read.
        if !store::is_regular_file(&path) {
            return None;
        }
        serde_json::from_slice(&store::read_limited(&path, MAX_FILE_BYTES).ok()?).ok()
    }

    /// `sent-<turn>-<key>.json`, for a Message-ID of ours.
    fn path_of(&self, message_id: &str) -> Option<PathBuf> {
        let id = message_id
            .trim()
            .trim_start_matches('<')
            .trim_end_matches('>');
        let notice = NoticeId::parse(id)?;
        let key = to_hex(&sha256(id.to_ascii_lowercase().as_bytes())[..8]);
        Some(self.dir.join(format!("sent-{:08}-{key}.json", notice.turn)))
    }

    /// Drops the oldest notices beyond [`MAX_KEPT`] (names sort by turn), and what a
    /// killed write of one left.
    fn prune(&self) -> Result<(), MailError> {
        let listing = fs::read_dir(&self.dir).map_err(MailError::io(&self.dir))?;
        let mut kept = Vec::new();
        for entry in listing.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(".sent-") && name.contains(".tmp-") {
                let _ = fs::remove_file(entry.path());
            } else if name.starts_with("sent-") && name.ends_with(".json") {
                kept.push(name);
            }
        }
        kept.sort();
        let excess = kept.len().saturating_sub(MAX_KEPT);
        for name in &kept[..excess] {
            let path = self.dir.join(name);
            fs::remove_file(&path).map_err(MailError::io(&path))?;
            crate::basics::crash::step();
        }
        Ok(())
    }
}

/// The Message-ID and the notice of a composed message, when its id is one of ours.
fn notice_of(message: &Outgoing) -> Option<(String, SentNotice)> {
    let parsed = MessageParser::default().parse(message.message.as_bytes())?;
    let id = parsed.message_id()?.to_string();
    NoticeId::parse(&id)?;
    let text = parsed.body_text(0)?.replace("\r\n", "\n");
    let mut end = text.len().min(intake::MAX_NOTICE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let sender = parsed.from().and_then(|from| from.first());
    let notice = SentNotice {
        text: text[..end].to_string(),
        from_name: sender.and_then(|s| s.name()).map(str::to_string),
        from_address: sender.and_then(|s| s.address()).map(str::to_string),
    };
    Some((id, notice))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(turn: u64, seat: usize, text: &str) -> Outgoing {
        let id = NoticeId {
            game_id: "row-1".into(),
            turn,
            seat,
            kind: "turn".into(),
            code: "abcdefgh".into(),
        };
        Outgoing {
            from: "referee@example.org".into(),
            to: vec!["ann@example.org".into()],
            message: format!(
                "From: Referee <referee@example.org>\r\nSubject: x\r\nMessage-ID: <{}>\r\n\r\n{text}\r\n",
                id.render("example.org")
            ),
        }
    }

    fn id(turn: u64, seat: usize) -> String {
        format!("pbem.row-1.{turn}.{seat}.turn.abcdefgh@example.org")
    }

    #[test]
    fn a_notice_is_kept_private_and_found_by_its_id() {
        let dir = tempfile::tempdir().expect("dir");
        let game = dir.path().join("game.json");
        let outbox = dir.path().join("game.json.outbox");
        let sent = SentNotices::of_outbox(&outbox).expect("beside a game");
        let other = Outgoing {
            message: "Message-ID: <CAF123@mail.gmail.com>\r\n\r\nnot ours\r\n".into(),
            ..notice(1, 0, "")
        };
        sent.keep(&[notice(3, 1, "Bob, it is your turn (turn 3)."), other])
            .expect("kept");
        let found = SentNotices::beside(&game)
            .find(&format!("<{}>", id(3, 1)))
            .expect("found");
        assert_eq!(found.text.trim_end(), "Bob, it is your turn (turn 3).");
        assert_eq!(found.from_name.as_deref(), Some("Referee"));
        assert_eq!(found.from_address.as_deref(), Some("referee@example.org"));
        assert_eq!(sent.find(&id(3, 0)), None);
        assert_eq!(sent.find("CAF123@mail.gmail.com"), None);
        let files: Vec<_> = fs::read_dir(dir.path().join("game.json.mail"))
            .expect("the archive folder")
            .flatten()
            .collect();
        assert_eq!(files.len(), 1, "only our notice");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = files[0].metadata().expect("stat").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(SentNotices::of_outbox(&dir.path().join("elsewhere")).is_none());
    }

    #[test]
    fn only_the_newest_notices_are_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let sent = SentNotices::beside(&dir.path().join("game.json"));
        for turn in 1..=(MAX_KEPT as u64 + 10) {
            sent.keep(&[notice(turn, 0, "x")]).expect("kept");
        }
        assert!(sent.find(&id(10, 0)).is_none(), "the oldest turns go first");
        assert!(sent.find(&id(11, 0)).is_some());
        assert!(sent.find(&id(MAX_KEPT as u64 + 10, 0)).is_some());
    }

    #[test]
    fn a_reply_finds_the_notice_it_answers() {
        let dir = tempfile::tempdir().expect("dir");
        let sent = SentNotices::beside(&dir.path().join("game.json"));
        sent.keep(&[notice(2, 0, "second"), notice(4, 0, "fourth")])
            .expect("kept");
        let raw = format!(
            "From: ann@example.org\r\nSubject: Re: x\r\nIn-Reply-To: <CAF@mail.gmail.com>\r\nReferences: <{}> <{}> <CAF@mail.gmail.com>\r\n\r\npass\r\n",
            id(2, 0),
            id(4, 0)
        );
        let incoming = intake::read_message(raw.as_bytes()).expect("a message");
        let found = sent.answered(&incoming).expect("by its references");
        assert_eq!(found.text.trim_end(), "fourth");
    }
}
