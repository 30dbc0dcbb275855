//! Reply capabilities and player tokens: short codes derived from the referee's mail
//! secret, so a player proves who they are by replying to their own notice (the code
//! rides in the Message-ID, which replies cite, and in the subject) or by quoting the
//! token line their welcome mail gave them. Codes are never stored; they are derived.

use crate::basics::digest::Fields;
use crate::engine::Seat;

/// 32 letters and digits without look-alikes (no l, o, 0, 1): 5 bits each.
const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
const CODE_LENGTH: usize = 10;

/// The secret behind the codes of one keyring.
pub struct MailSecret([u8; 32]);

impl std::fmt::Debug for MailSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MailSecret(..)")
    }
}

impl MailSecret {
    /// Derived from the referee's signing key, domain-separated, so there is nothing
    /// more to back up.
    pub fn from_key(key: &ed25519_dalek::SigningKey) -> MailSecret {
        MailSecret(Fields::keyed(&key.to_bytes(), "pbem/v1/mail-secret").finish())
    }

    #[cfg(test)]
    pub fn for_testing(byte: u8) -> MailSecret {
        MailSecret([byte; 32])
    }

    fn code(&self, fields: Fields<hmac::Hmac<sha2::Sha256>>) -> String {
        let digest = fields.finish();
        let mut bits: u64 = u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"));
        let mut out = String::with_capacity(CODE_LENGTH);
        for _ in 0..CODE_LENGTH {
            out.push(ALPHABET[(bits >> 59) as usize] as char);
            bits <<= 5;
        }
        out
    }

    /// The code that proves a reply to the notice of `turn` comes from `seat`.
    pub fn reply_code(&self, game_id: &str, seat: Seat, turn: u64) -> String {
        self.code(
            Fields::keyed(&self.0, "pbem/v1/reply-code")
                .text(game_id)
                .u32(seat as u32)
                .u64(turn),
        )
    }

    /// What identifies one message whatever Message-ID it is delivered under: its
    /// sender, the moment its client sent it (the Date header, in Unix seconds) and
    /// the words of its move. Keyed, so that the archive, which keeps it, does not
    /// give away a sealed move by a guess at its few possible words.
    pub fn message_fingerprint(&self, sender: &str, sent_at: i64, words: &str) -> String {
        let digest = Fields::keyed(&self.0, "pbem/v1/message-fingerprint")
            .text(sender)
            .bytes(&sent_at.to_be_bytes())
            .text(words)
            .finish();
        crate::basics::digest::to_hex(&digest[..16])
    }

    /// [`MailSecret::message_fingerprint`] of a reply that answers the notice of
    /// `turn` to `seat` (its reply code proves which): a reply to another notice, such
    /// as the same move sent again for the next turn or after a take-back (every
    /// notice after a change of the game is for a later turn), is another message even
    /// when its Date, which may have no seconds, and its words are the same.
    pub fn reply_fingerprint(
        &self,
        sender: &str,
        sent_at: i64,
        words: &str,
        seat: Seat,
        turn: u64,
    ) -> String {
        let digest = Fields::keyed(&self.0, "pbem/v1/reply-fingerprint")
            .text(sender)
            .bytes(&sent_at.to_be_bytes())
            .text(words)
            .u32(seat as u32)
            .u64(turn)
            .finish();
        crate::basics::digest::to_hex(&digest[..16])
    }

    /// What the archive keeps of a sealed move in place of its text: a keyed digest of
    /// its words, which tells a resent move from a new one without telling anyone who
    /// reads the archive's index what was chosen (a plain hash of `card 3` would be
    /// found by trying the few cards there are).
    pub fn sealed_move_tag(&self, game_id: &str, words: &str) -> String {
        crate::basics::digest::to_hex(
            &Fields::keyed(&self.0, "pbem/v1/sealed-move")
                .text(game_id)
                .text(words)
                .finish(),
        )
    }

    /// A player's standing token for messages that are not replies.
    pub fn token(&self, game_id: &str, seat: Seat) -> String {
        self.code(
            Fields::keyed(&self.0, "pbem/v1/player-token")
                .text(game_id)
                .u32(seat as u32),
        )
        .to_ascii_uppercase()
    }
}

/// The parts of a pbem Message-ID: `pbem.<game>.<turn>.<seat>.<kind>.<code>@<domain>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeId {
    pub game_id: String,
    pub turn: u64,
    pub seat: Seat,
    pub kind: String,
    pub code: String,
}

impl NoticeId {
    /// The Message-ID (without angle brackets).
    pub fn render(&self, domain: &str) -> String {
        format!(
            "pbem.{}.{}.{}.{}.{}@{}",
            self.game_id, self.turn, self.seat, self.kind, self.code, domain
        )
    }

    /// Reads one of ours back; `None` for any other id.
    pub fn parse(message_id: &str) -> Option<NoticeId> {
        let local = message_id
            .trim()
            .trim_start_matches('<')
            .split('@')
            .next()?;
        let mut parts = local.split('.');
        if parts.next()? != "pbem" {
            return None;
        }
        let game_id = parts.next()?.to_ascii_lowercase();
        let turn = parts.next()?.parse().ok()?;
        let seat = parts.next()?.parse().ok()?;
        let kind = parts.next()?.to_string();
        let code = parts.next()?.to_ascii_lowercase();
        parts.next().is_none().then_some(NoticeId {
            game_id,
            turn,
            seat,
            kind,
            code,
        })
    }
}

/// The Message-ID of `seat`'s welcome to a game: the root every later message of the
/// game to that player refers to, so a mail client shows one thread hanging from a
/// message the player has (an id no message carries would leave the thread hanging
/// from nothing). The welcome is the notice of the first turn (records 0, so turn 1).
pub fn thread_root(secret: &MailSecret, game_id: &str, seat: Seat, domain: &str) -> String {
    NoticeId {
        game_id: game_id.to_string(),
        turn: 1,
        seat,
        kind: WELCOME.to_string(),
        code: secret.reply_code(game_id, seat, 1),
    }
    .render(domain)
}

/// The kind of a welcome's notice id.
pub const WELCOME: &str = "welcome";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_differ_by_game_seat_turn_and_secret() {
        let secret = MailSecret::for_testing(1);
        let code = secret.reply_code("row-1", 0, 5);
        assert_eq!(code.len(), CODE_LENGTH);
        assert_eq!(code, secret.reply_code("row-1", 0, 5));
        for other in [
            secret.reply_code("row-2", 0, 5),
            secret.reply_code("row-1", 1, 5),
            secret.reply_code("row-1", 0, 6),
            MailSecret::for_testing(2).reply_code("row-1", 0, 5),
        ] {
            assert_ne!(other, code);
        }
        assert_ne!(secret.token("row-1", 0), secret.token("row-1", 1));
    }

    #[test]
    fn notice_ids_round_trip() {
        let id = NoticeId {
            game_id: "row-7f3a2b1c".into(),
            turn: 12,
            seat: 1,
            kind: "turn".into(),
            code: "k3j9xq2mfa".into(),
        };
        let text = id.render("example.org");
        assert_eq!(NoticeId::parse(&text), Some(id.clone()));
        assert_eq!(NoticeId::parse(&format!("<{text}>")), Some(id));
        assert_eq!(NoticeId::parse("CAF=abc@mail.gmail.com"), None);
    }
}
