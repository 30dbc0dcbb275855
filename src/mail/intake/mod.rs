//! Reading one incoming player message: raw bytes in, what pbem needs out.
//!
//! [`read_message`] is a pure function (no I/O): the referee pipes each raw message
//! into pbem, and this module turns it into an [`Incoming`]: the threading headers
//! that bind a reply to the notice it answers, the capability codes a reply brings
//! back (a subject tag and code, or a `pbem-token:` line), and the move itself.
//!
//! All MIME work (multipart, transfer encodings, charsets, RFC 2047 headers, HTML to
//! text) is done by `mail-parser`. What this module adds is the forgiving part: it
//! finds the player's own words in a reply by dropping what mail clients add around
//! them (quotes, attributions, reply header blocks, signatures, taglines), honouring
//! an explicit end marker, and cleaning the invisible characters HTML mail leaves
//! behind. It never guesses at the move itself: the referee applies
//! [`Incoming::move_text`] whole or refuses it whole, and tells the player which
//! lines were left out ([`Incoming::dropped`]).
//!
//! pbem knows what it sent. When the referee has kept the notice a reply answers,
//! [`read_message_answering`] (pure too) is given its text ([`SentNotice`]): text
//! that matches the notice, in whatever quoting style, is the quote, and the lines
//! between it and the player's words that name the notice's sender, give a date, or
//! draw a rule are its attribution, in whatever language and shape the client wrote
//! them (see "Reading against the notice"). Without it ([`read_message`]: older
//! games, new messages with a token, a reply whose notice is no longer kept), the
//! rules below find the quote by its marks and its attribution by its words.
//!
//! The words these rules look for in each language (greetings, closing phrases,
//! clients' taglines, the labels of reply headers, the titles of their rules, the
//! openings and verbs of attributions) are data: one table per language in
//! `src/mail/intake/phrases/` (`en.toml`, `de.toml`, …), compiled in. A language is
//! added by adding its table.
//!
//! # Limits
//!
//! Reading is linear in the size of the message, and bounded:
//!
//! * a raw message longer than [`MAX_MESSAGE_BYTES`] (4 MiB) is refused with
//!   [`IntakeError::TooLarge`] before it is parsed;
//! * only the first [`MAX_HTML_BYTES`] (512 KiB) of an HTML body are converted to
//!   text;
//! * only the first [`MAX_BODY_BYTES`] (64 KiB) of the decoded text are examined
//!   (for HTML, of the text it converts to); a line cut in the middle is left out;
//! * only the first [`MAX_OWN_LINES`] (100) of the player's own lines are read;
//! * of a notice the reply answers, only the first [`MAX_NOTICE_BYTES`] (16 KiB) are
//!   matched, and finding its quote takes at most 32 comparisons per word of the
//!   reply and of the notice (each start and each word followed counts): past that
//!   budget, which only a message built to exhaust it reaches, the reply is read as
//!   if no notice were known.
//!
//! When a limit stops reading while the player's text may still go on,
//! [`Incoming::truncated`] is set: the move may be incomplete and must not be
//! applied. (A body cut inside a quote that follows the player's text is not
//! truncated: what follows a quote at the end of a reply is more quote.)
//!
//! # The rules
//!
//! An HTML body is made lines first: block elements (`<div>`, `<p>`, `<li>`, `<tr>`,
//! …) and `<br>` end lines; a `<p>` starts a new paragraph, after a blank line
//! (except Outlook's `<p class="MsoNormal">`, which Word writes for every line);
//! `<div><br></div>` and `<div>&nbsp;</div>` are blank lines; `<pre>` text keeps its
//! lines; a `<blockquote>` becomes lines starting with `> `.
//!
//! Each line is cleaned first: zero-width characters and the soft hyphen are removed,
//! non-breaking spaces become spaces, trailing whitespace is trimmed (and, for a body
//! read from HTML, leading whitespace too). Then the lines are read in order:
//!
//! 1. a blank line separates paragraphs and is never part of the move;
//! 2. a quoted line (starting with `>` after optional spaces; an HTML blockquote
//!    becomes such lines) is dropped;
//! 3. a `pbem-token:` line is dropped (its code goes to [`Incoming::token`]);
//! 4. an end marker line (`end`, `--end--`, `#end` or `.`, any case) ends the
//!    player's text; what follows is ignored and not listed;
//! 5. a signature separator (a line `-- ` or `--`) ends the player's text; the
//!    signature below it (up to 10 non-blank lines, until a quote, an attribution or
//!    a reply header) is listed in `dropped`;
//! 6. a client's tagline on a line of its own ("Sent from my iPhone", "Get Outlook
//!    for Android", "Gesendet von Outlook für Android", "Envoyé à partir de Outlook
//!    pour iOS", "Enviado desde mi iPhone", "Inviato da iPhone", "Sent from Yahoo
//!    Mail on Android", "Отправлено с iPhone", "Wysłane z iPhone'a", "Lähetetty
//!    iPhonesta", "Skickat från min iPhone", "Sendt fra min iPhone", "iPhoneから送信"
//!    and similar, at most 60 characters, a trailing `<https://…>` link aside) ends
//!    the player's text like a signature separator, and is listed in `dropped` with
//!    the lines below it;
//! 7. a reply header ends the player's text; what follows is the earlier message and
//!    is not listed. A reply header is:
//!    * a rule with a title, such as `-----Original Message-----`,
//!      `-------- Original Message --------`, `----- Forwarded Message -----`,
//!      `---------- Forwarded message ---------`, `-----Oprindelig besked-----`,
//!      `-----Opprinnelig melding-----`, `-----Ursprungligt meddelande-----`,
//!      `-------- Original-Nachricht --------`, `-----Исходное сообщение-----`,
//!      `------------------ 原始邮件 ------------------` and their like in other
//!      languages, or Apple Mail's "Begin forwarded message:";
//!    * a header block: within 8 lines, a `From:` line, a `Subject:` line, and a
//!      `Sent:`/`Date:` or `To:` line, in any order (Hotmail and GMX put the date
//!      first), the block starting at its first `From:`, `Date:` or `Subject:` line.
//!      The labels are recognised in English, German, French (`De :`, `Envoyé :`,
//!      `Envoyé le :`, `À :`, `Objet :`), Spanish, Italian, Portuguese, Dutch,
//!      Swedish, Danish and Norwegian (`Fra:`, `Sendt:`, `Dato:`, `Til:`, `Emne:`),
//!      Finnish, Polish, Czech, Russian (`От:`, `Отправлено:`, `Кому:`, `Тема:`,
//!      `Дата:`), Hungarian, Turkish, Japanese, Chinese and Korean, with or without
//!      `*bold*` marks. A lone `From:` line is not a header block;
//!    * a separator line (five or more `_`, `-` or `=`) right above such a rule or
//!      header block (up to 2 blank lines between);
//! 8. an attribution (see below), also wrapped over up to three lines: when quoted
//!    lines follow it (after up to 4 blank lines), it is dropped with its quote and
//!    reading goes on below the quote, so a bottom-posted move and answers written
//!    between quoted parts are read; when no quoted line follows, it ends the
//!    player's text if they have written something above it (top-posting: the
//!    earlier message follows unmarked), and is just dropped otherwise. A separator
//!    line right above an attribution is dropped with it;
//! 9. any other line is the player's own.
//!
//! An attribution is a line ending in `:` (or `：`) that is no longer than 300
//! characters, and either
//! * starts with a known opening ("On ", "Le ", "Am ", "El ", "Il ", "In data ",
//!   "Em ", "Op ", "Den ", "På ", "W dniu ", "Dnia ", "Dne ", "Στις ", "在") and has a
//!   "wrote" verb in its last 60 characters (wrote, schrieb, a écrit, escribió,
//!   ha scritto, escreveu, schreef, skrev, kirjoitti, napisał, pisze, napsal, пишет,
//!   написал, 写道, 書きました, のメッセージ, 작성, írta, yazdı, έγραψε, …);
//! * or has such a verb and an e-mail address, or starts with a date, or is followed
//!   by quoted lines ("Referee <r@x.org> kirjoitti:", "23.11.2026 10:00, Referee
//!   пишет:", "Referee さんは書きました:", "Referee <r@x.org> 于2026年11月23日周一
//!   10:00写道：");
//! * or has an e-mail address and starts with a date ("2017-11-24 16:32 GMT+01:00
//!   Name <a@b>:", "2026年11月23日(月) 10:00 Referee <r@x.org>:", "пн, 23 нояб. 2026
//!   г. в 10:00, Referee <r@x.org>:", "man. 23. nov. 2026 kl. 10:00 skrev Referee
//!   <r@x.org>:"), or is followed by quoted lines (a bare `Name <addr>:` line, and
//!   what Mail.ru and Yandex write above an HTML blockquote: "23.11.2026, 10:00,
//!   "Referee" <r@x.org>:").
//!
//! A wrapped attribution is read by joining a line with the next one or two, only
//! when the line starts like an attribution (an opening word, a date, an e-mail
//! address, or a `<` at its end where the address was wrapped), never with a line
//! that starts an attribution of its own (an opening word, or a date and the rest of
//! an attribution) or has a board cell in it (`C5`); and the joined text must be an
//! attribution by its own words (a verb, or an address and a date), not merely by a
//! quote below it.
//!
//! English attributions are also recognised without the colon ("On Mon, Nov 23, 2026
//! at 10:00 AM Referee <r@x.org> wrote") when quoted lines follow. "Starts with a
//! date" means: a digit, or a word of at most 5 letters (a weekday such as "Mon,",
//! "pon.,", "пн,", "ma") and then a digit; and somewhere a year (1900-2099) or a
//! time (`10:00`, `10.00`). A line a player writes as a move (`place E,NW at C5`,
//! `buy D4 with I`, `discard Y,I`, `pass`) has none of these shapes.
//!
//! # Reading against the notice
//!
//! With the notice a reply answers known, its quote is found before the rules above
//! are applied, and its lines, with the attribution above them, are passed over as
//! quoted lines are (rule 2).
//!
//! The lines of both are compared as words: a line's quote marks (any run of `>`,
//! `|` and spaces at its start) and its spacing aside, lowercased, so a quote re-wrapped
//! to another width, joined into long lines by an HTML client, indented, or marked
//! with `> `, `> > ` or `| ` matches the notice as well as one copied as it was. The
//! quote is the first place in the reply where one of the notice's first 24 words
//! begins a run of 4 of its words, followed as far as the reply keeps to the notice's
//! text in order: a word that differs is passed over when 3 words in a row match
//! again after leaving out up to 16 of the notice's words, or up to 2 words on the
//! same line of the reply (a link a client rewrote). Such a run is the quote when it
//! has at least 8 words over at least two of the notice's lines, and it is kept to
//! whole lines of the reply. A quote begins where the notice begins, so a move the
//! player copied from the notice (its example, a line of a refusal that repeats their
//! last turn) is never taken for one; and a run keeps the quoting of its first line
//! (counting only the `>` marks beyond those the notice's own line starts with): a
//! quote marked with `>` ends at the player's first unmarked line (an answer written
//! between quoted parts is read, even one that repeats the notice's words), an
//! unmarked quote at the first marked one.
//!
//! Right above the quote (above a quoted attribution in the same quoted block, and
//! past up to 4 blank lines) stand up to 6 lines of attribution, passed over and not
//! listed: each line, read upwards until one is not, is
//!
//! * a rule (five or more `=`, `-`, `_`, `*`, `~` or long dashes), or text between
//!   rules of three or more (`==== Message du 23/11/2026 10:02 ====`);
//! * a line with the notice sender's address (`from: Referee <referee@example.org>`,
//!   `referee@example.org> ha scritto:`);
//! * a line with the sender's display name and a date or time, a colon or `<` at its
//!   end, a "wrote" verb or an attribution's opening word ("On Mon, Nov 23, 2026 at
//!   10:00 AM Referee wrote", "Op ma 23 nov 2026 om 10:00 schreef Referee van de
//!   club <");
//! * or, with no board cell in it, an attribution as above, or a reply header line in
//!   any of the languages above (`От: Referee`, `Отправлено: …`, `Кому: Ann`, with or
//!   without a subject line);
//!
//! and never a quoted line, a `note:` or `pbem-token:` line, or a line with a `;`. So
//! what the player writes right above the quote (`pass`, `away until 2026-12-01`,
//! `from: C5`) stays theirs.
//!
//! A quote marked by nothing but its text ends the player's text when they have
//! written something above it (top-posting: what follows is the earlier mail, as
//! below a reply header); otherwise reading goes on below it (bottom-posting).
//!
//! When the player's text ends right above the quote, its last paragraph may be a
//! tagline of the player's own ("Sent from my iPhone 15 Pro Max. Please excuse typos,
//! autocorrect and brevity."): it is listed in `dropped` like a sign-off when it
//! follows a blank line with some of the player's text above it, and has at most 2
//! lines of at most 120 characters, each of three or more words with none of the
//! marks of a move (as for sign-offs below), not starting with one of the referee's
//! words (`pass`, `undo`, `agree`, `decline`, `preview`, `moves`, `away`, `back`,
//! `resign`, `confirm`, `note`).
//!
//! # Greetings
//!
//! The first of the player's lines is a greeting, moved to `dropped`, when more of
//! their text follows it and it starts with a known greeting ("Hi", "Hello", "Dear",
//! "Good morning", "Hallo", "Bonjour", "Ciao", "Hola", "Olá", "Hoi", "Hej", "Hei",
//! "Moi", "Cześć", "Ahoj", "Привет", "Здравствуйте", "Szia", "Merhaba", "Γεια σας",
//! "こんにちは", "你好", "안녕하세요", … in many languages) followed by at most 6
//! words, ending in `,`, `!`, `.`, `:` or `…` unless at most 2 words follow ("Hi",
//! "Hi Bob... I mean referee,", "Dear Referee,", "Hej hej"). A line of at most 60
//! characters, with no `;`, no board cell, no group of capitals such as `E,NW`, and
//! none of the referee's words: "Hey, pass" and "Hello, place E,NW at C5" stay in the
//! move.
//!
//! # Sign-offs
//!
//! After the lines are read, trailing paragraphs of the player's own text that are
//! clearly not a move are moved to `dropped`, up to three of them, last first. A
//! paragraph qualifies only when all of this holds:
//!
//! * it follows a blank line (or a quote) and some of the player's text is above it;
//! * it has at most 4 lines of at most 60 characters each;
//! * its first line is either a known closing phrase ("Thanks!", "Thank you",
//!   "Cheers", "Kind regards,", "Best,", "Mit freundlichen Grüßen", "Viele Grüße",
//!   "Cordialement", "Bien à vous", "Saludos", "Un saludo", "Cordiali saluti",
//!   "Abraços", "Met vriendelijke groet", "Med vänliga hälsningar", "Med venlig
//!   hilsen", "Ystävällisin terveisin", "Pozdrawiam", "S pozdravem", "С уважением",
//!   "Спасибо", "よろしくお願いします", "谢谢", "감사합니다", … in many languages),
//!   alone or followed by at most 4 words with no digit and no `;` ("Thanks, Ann",
//!   "Thanks for the game!"), or the sender's name (their display name, a word of it
//!   such as the first name, or the local part of their address, optionally after a
//!   dash);
//! * each further line is the sender's name, a closing phrase, contact details (an
//!   e-mail or web address, a phone number), or two or more words with none of the
//!   marks of a move: no `;`, no letter next to a digit (a cell such as `C5`), no
//!   word of only capitals and commas up to 5 characters (`Y,I`, `NW`), and no
//!   lowercase first word (`place`, `discard`).
//!
//! Everything else stays in the move, so a turn is never shortened: a last paragraph
//! of "Thanks" and "pass" is kept whole (and refused whole if it is not a move), and
//! so is "Pozdrawiam," above "Kasia" when the sender's names do not include Kasia.
//!
//! # The result
//!
//! [`Incoming::move_text`] is the player's own non-blank lines joined with `\n`:
//! nothing is ever added, every line is one the player sent. [`Incoming::dropped`]
//! lists, in message order, the greeting, the sign-off paragraphs (and a tagline of
//! the player's own), then the signature or tagline lines; quoted text, attributions,
//! reply headers, and what follows an end marker are not listed (the player knows
//! they are there).

mod attribution;
mod automatic;
mod html;
mod lines;
mod mime;
mod notice;
mod phrases;
mod reply;
mod sign_off;
#[cfg(test)]
mod testing;

use mail_parser::{HeaderValue, MessageParser};
use serde::{Deserialize, Serialize};

use lines::is_code;
use mime::body_text;
use notice::Notice;
use reply::{extract, extract_answering};
use sign_off::Names;

pub use mime::{MAX_BODY_BYTES, MAX_HTML_BYTES};
pub use notice::{SentNotice, MAX_NOTICE_BYTES};
pub use phrases::GREETINGS;
pub use reply::MAX_OWN_LINES;

/// The longest raw message read: 4 MiB. A longer one is refused with
/// [`IntakeError::TooLarge`] without being parsed. A move by mail is a few lines;
/// this leaves room for replies quoting long HTML threads and small attachments.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// What pbem needs from one incoming message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incoming {
    /// The message's own Message-ID, without angle brackets.
    pub message_id: Option<String>,
    /// The sender's address only, lowercased (`ann.archer@gmail.com`).
    pub from_address: Option<String>,
    /// The sender's display name, decoded (`Björn Åkesson`).
    pub from_name: Option<String>,
    /// The subject, decoded from RFC 2047 encoded words; empty when missing.
    pub subject: String,
    /// Message ids from In-Reply-To, without angle brackets, in header order.
    pub in_reply_to: Vec<String>,
    /// Message ids from References, without angle brackets, in header order.
    pub references: Vec<String>,
    /// The game id from a subject tag such as `[pbem row-7f3a2b1c]`, as written.
    ///
    /// The `pbem` keyword matches in any case and the tag may sit anywhere in the
    /// subject, so it survives `Re:`, `AW:`, `Fwd:` and similar prefixes. The id keeps
    /// the case it was written in; compare it case-insensitively if ids allow that.
    pub game_tag: Option<String>,
    /// A reply code written in the subject as `(ref CODE)`, CODE being 6 to 32 ASCII
    /// letters and digits.
    pub subject_code: Option<String>,
    /// The code from a `pbem-token: CODE` line in the body (any case, any spacing).
    ///
    /// The player's own text is searched first, then the quoted and cut-off parts, so
    /// a token the notice carried comes back with a reply that quotes it.
    pub token: Option<String>,
    /// The player's move: their own non-blank lines only, joined with `\n` (see the
    /// module docs). Apply it whole or refuse it whole.
    pub move_text: String,
    /// The player's own unquoted lines left out of `move_text` because they are
    /// clearly not a move: sign-off paragraphs ("Kind regards,\nAnn"), a paragraph
    /// that is only the sender's name, a signature below `-- `, a client's tagline
    /// ("Sent from my iPhone"). In message order, each trimmed. Quoted text and
    /// attributions are not listed. Tell the player about them.
    #[serde(default)]
    pub dropped: Vec<String>,
    /// True when a limit ([`MAX_BODY_BYTES`], [`MAX_OWN_LINES`]) stopped reading
    /// while the player's text may have gone on: `move_text` may be incomplete, so
    /// refuse it rather than apply a part of a turn.
    #[serde(default)]
    pub truncated: bool,
    /// True when the move was read from an HTML part (no usable text/plain part).
    pub body_was_html: bool,
    /// The Date header, in Unix seconds: when the sender's client sent the message.
    /// A copy delivered again keeps it, whatever Message-ID it is given.
    #[serde(default)]
    pub date: Option<i64>,
    /// True when only the header was read: the message is longer than
    /// [`MAX_MESSAGE_BYTES`] ([`read_header`]). It has no move.
    #[serde(default)]
    pub oversized: bool,
    /// Why the message was sent by a machine (a vacation responder, a bounce, a list),
    /// as the mark found says it; `None` for a person's. Such a message is never
    /// answered and never read as a move (RFC 3834).
    #[serde(default)]
    pub automatic: Option<String>,
}

/// Why raw bytes could not be read as a mail message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntakeError {
    /// Nothing but whitespace was received.
    #[error("the message is empty; expected a mail message starting with header lines such as `From: ann@example.org`")]
    Empty,
    /// More bytes than [`MAX_MESSAGE_BYTES`]; refused before parsing.
    #[error("the message is {size} bytes long, more than the {limit} bytes pbem reads; send your move in a short reply without attachments")]
    TooLarge {
        /// The size of the raw message in bytes.
        size: usize,
        /// The limit, [`MAX_MESSAGE_BYTES`].
        limit: usize,
    },
    /// The bytes do not start with header lines at all.
    #[error("not a mail message: no header lines were found; a mail message starts with lines such as `From: ann@example.org`, then a blank line, then the body")]
    NoHeaders,
    /// Header-like lines were found, but none of the fields every mail carries.
    #[error("not a mail message: none of From, To, Date, Subject or Message-ID is present (the first line reads {first_line:?})")]
    NoMailHeaders {
        /// The first line of the input, lossily decoded and shortened, to show what
        /// was received instead.
        first_line: String,
    },
}

/// Reads one raw mail message (as piped in by the referee's mail system).
///
/// Takes the first text/plain part, or the HTML body converted to text when there
/// is none (or when the text/plain part is blank), in any transfer encoding and
/// charset `mail-parser` knows, and extracts the move as described in the module
/// documentation.
///
/// # Errors
///
/// Returns [`IntakeError`] when the bytes are more than [`MAX_MESSAGE_BYTES`], are
/// empty, have no header lines, or carry none of the header fields every mail
/// message has (From, To, Date, Subject, Message-ID). A real message with no text
/// at all is not an error: its `move_text` is empty.
///
/// # Example
///
/// ```
/// let raw = "From: Ann <Ann@Example.org>\r\n\
///            Subject: Re: [pbem row-7f3a2b1c] Turn 12 (ref k3j9xq2mfa)\r\n\
///            \r\n\
///            place E,NW at C5\r\n\
///            \r\n\
///            Thanks!\r\n\
///            Ann\r\n\
///            \r\n\
///            > Your move, Ann.\r\n";
/// let incoming = pbem::mail::intake::read_message(raw.as_bytes()).expect("a message");
/// assert_eq!(incoming.from_address.as_deref(), Some("ann@example.org"));
/// assert_eq!(incoming.game_tag.as_deref(), Some("row-7f3a2b1c"));
/// assert_eq!(incoming.subject_code.as_deref(), Some("k3j9xq2mfa"));
/// assert_eq!(incoming.move_text, "place E,NW at C5");
/// assert_eq!(incoming.dropped, ["Thanks!", "Ann"]);
/// ```
pub fn read_message(raw: &[u8]) -> Result<Incoming, IntakeError> {
    read_message_answering(raw, None)
}

/// Reads one raw mail message as [`read_message`] does, knowing the notice it
/// answers when `notice` is given: the notice's text, in whatever quoting style the
/// reply has it, is the quote, and the attribution lines right above it are dropped
/// with it (see "Reading against the notice" in the module documentation). With
/// `None`, this is [`read_message`].
///
/// # Errors
///
/// As for [`read_message`].
pub fn read_message_answering(
    raw: &[u8],
    notice: Option<&SentNotice>,
) -> Result<Incoming, IntakeError> {
    if raw.len() > MAX_MESSAGE_BYTES {
        return Err(IntakeError::TooLarge {
            size: raw.len(),
            limit: MAX_MESSAGE_BYTES,
        });
    }
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(IntakeError::Empty);
    }
    let message = MessageParser::default()
        .parse(raw)
        .ok_or(IntakeError::NoHeaders)?;
    if message.headers().is_empty() {
        return Err(IntakeError::NoHeaders);
    }
    // mail-parser is deliberately lenient and will read almost any bytes as some
    // header lines; a message must carry at least one of the fields every mail has.
    let has_mail_header = message.from().is_some()
        || message.to().is_some()
        || message.date().is_some()
        || message.subject().is_some()
        || message.message_id().is_some();
    if !has_mail_header {
        return Err(IntakeError::NoMailHeaders {
            first_line: first_line(raw),
        });
    }

    let sender = message.from().and_then(|from| from.first());
    let from_address = sender
        .and_then(|addr| addr.address())
        .map(|address| address.trim().to_lowercase())
        .filter(|address| !address.is_empty());
    let from_name = sender
        .and_then(|addr| addr.name())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty());
    let subject = message.subject().unwrap_or_default().to_string();
    let automatic = automatic::automatic(&message, from_address.as_deref());

    let body = body_text(&message);
    let names = Names::of(from_name.as_deref(), from_address.as_deref());
    let notice = notice.map(Notice::of);
    let extracted = extract_answering(&body.text, body.html, body.cut, &names, notice.as_ref());

    Ok(Incoming {
        message_id: message.message_id().and_then(clean_id),
        from_address,
        from_name,
        game_tag: game_tag(&subject),
        subject_code: subject_code(&subject),
        subject,
        in_reply_to: ids(message.in_reply_to()),
        references: ids(message.references()),
        token: extracted.token,
        move_text: extracted.move_text,
        dropped: extracted.dropped,
        truncated: extracted.truncated,
        body_was_html: body.html,
        date: message.date().map(mail_parser::DateTime::to_timestamp),
        oversized: false,
        automatic,
    })
}

/// Reads only the header of a message too long to read whole (more than
/// [`MAX_MESSAGE_BYTES`]), so that its sender can be told why it was not read: who
/// sent it, for which game, in answer to which notice. The result has no move and
/// `oversized` set. Only the first [`MAX_BODY_BYTES`] are looked at; `None` when no
/// mail header ends within them.
pub fn read_header(raw: &[u8]) -> Option<Incoming> {
    let end = header_end(raw, MAX_BODY_BYTES)?;
    let mut incoming = read_message(&raw[..end]).ok()?;
    incoming.oversized = true;
    Some(incoming)
}

/// Where the header of a raw message ends (after the blank line that ends it), if it
/// ends within its first `limit` bytes.
pub fn header_end(raw: &[u8], limit: usize) -> Option<usize> {
    let start = &raw[..raw.len().min(limit)];
    start
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| at + 4)
        .or_else(|| start.windows(2).position(|w| w == b"\n\n").map(|at| at + 2))
}

/// Extracts the move from an already decoded plain-text body, with the same rules
/// [`read_message`] applies (see the module documentation; with no sender known, a
/// paragraph is not recognised as the sender's name).
///
/// Useful for text that did not arrive as mail, such as a forum post.
pub fn extract_move_text(body: &str) -> String {
    extract(body, false, false, &Names::default()).move_text
}

/// The first line of some bytes, for an error message: lossy, control characters
/// escaped by the `{:?}` formatting of the error, and shortened.
fn first_line(raw: &[u8]) -> String {
    const MAX_CHARS: usize = 60;
    const MAX_BYTES: usize = 4096;
    let text = String::from_utf8_lossy(&raw[..raw.len().min(MAX_BYTES)]);
    let line = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default();
    let mut short: String = line.chars().take(MAX_CHARS).collect();
    if line.chars().count() > MAX_CHARS {
        short.push('…');
    }
    short
}

/// A message id without angle brackets or surrounding space; `None` when empty.
fn clean_id(id: &str) -> Option<String> {
    let id = id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    (!id.is_empty()).then(|| id.to_string())
}

/// The message ids of an In-Reply-To or References header, in order.
fn ids(value: &HeaderValue<'_>) -> Vec<String> {
    match value {
        HeaderValue::Text(id) => clean_id(id).into_iter().collect(),
        HeaderValue::TextList(list) => list.iter().filter_map(|id| clean_id(id)).collect(),
        _ => Vec::new(),
    }
}

/// The game id from the first `[pbem ID]` tag in a subject.
fn game_tag(subject: &str) -> Option<String> {
    let mut rest = subject;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            break;
        };
        let mut words = after[..close].split_whitespace();
        if let (Some(keyword), Some(id), None) = (words.next(), words.next(), words.next()) {
            let id_chars_ok = id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if keyword.eq_ignore_ascii_case("pbem") && id_chars_ok {
                return Some(id.to_string());
            }
        }
        rest = after;
    }
    None
}

/// The code from the first well-formed `(ref CODE)` in a subject.
fn subject_code(subject: &str) -> Option<String> {
    let mut rest = subject;
    while let Some(open) = rest.find('(') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(')') else {
            break;
        };
        let mut words = after[..close].split_whitespace();
        if let (Some(keyword), Some(code), None) = (words.next(), words.next(), words.next()) {
            if keyword.eq_ignore_ascii_case("ref") && is_code(code) {
                return Some(code.to_string());
            }
        }
        rest = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_tag_and_code() {
        let subject = "AW: Fwd: RE: [PBEM row-7f3a2b1c] Turn 12: your move, Ann (ref k3j9xq2mfa)";
        assert_eq!(game_tag(subject).as_deref(), Some("row-7f3a2b1c"));
        assert_eq!(subject_code(subject).as_deref(), Some("k3j9xq2mfa"));
        assert_eq!(game_tag("[ext] [pbem  g1 ]").as_deref(), Some("g1"));
        assert_eq!(game_tag("[pbem] [pbem a b] [pbemx y]"), None);
        assert_eq!(
            subject_code("(ref short) (REF abcdef) "),
            Some("abcdef".to_string())
        );
        assert_eq!(subject_code("(ref abc-def1)"), None);
        assert_eq!(subject_code(&format!("(ref {})", "a".repeat(33))), None);
    }
}
