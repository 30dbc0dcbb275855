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

use mail_parser::decoders::html::html_to_text;
use mail_parser::{HeaderValue, MessageParser, MimeHeaders, PartType};
use serde::{Deserialize, Serialize};

/// The longest raw message read: 4 MiB. A longer one is refused with
/// [`IntakeError::TooLarge`] without being parsed. A move by mail is a few lines;
/// this leaves room for replies quoting long HTML threads and small attachments.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// How much of the decoded body is examined: the first 64 KiB (after an HTML body is
/// converted to text). The move is at the top of a reply, or below a quote.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// How much of an HTML body is converted to text: the first 512 KiB. Mail clients
/// write much more markup than text (Outlook's style sheets alone can take tens of
/// KiB), so this is well above [`MAX_BODY_BYTES`]; converting is linear but not free.
pub const MAX_HTML_BYTES: usize = 512 * 1024;

/// How many of the player's own lines (not blank, not quoted, counting signature
/// lines) are read: 100. A turn is a few lines.
pub const MAX_OWN_LINES: usize = 100;

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

/// What pbem sent in the notice a reply answers: the notice's text body and who it
/// came from. The referee keeps it when the notice is sent and hands it to
/// [`read_message_answering`], which then knows the quote when it sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentNotice {
    /// The text body as sent (at most [`MAX_NOTICE_BYTES`] of it are used).
    pub text: String,
    /// The sender's display name (`Referee`).
    #[serde(default)]
    pub from_name: Option<String>,
    /// The sender's address (`referee@example.org`).
    #[serde(default)]
    pub from_address: Option<String>,
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
    })
}

/// Reads only the header of a message too long to read whole (more than
/// [`MAX_MESSAGE_BYTES`]), so that its sender can be told why it was not read: who
/// sent it, for which game, in answer to which notice. The result has no move and
/// `oversized` set. Only the first [`MAX_BODY_BYTES`] are looked at; `None` when no
/// mail header ends within them.
pub fn read_header(raw: &[u8]) -> Option<Incoming> {
    let start = &raw[..raw.len().min(MAX_BODY_BYTES)];
    let end = start
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| at + 4)
        .or_else(|| start.windows(2).position(|w| w == b"\n\n").map(|at| at + 2))?;
    let mut incoming = read_message(&start[..end]).ok()?;
    incoming.oversized = true;
    Some(incoming)
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

/// True for a reply or token code: 6 to 32 ASCII letters and digits.
fn is_code(code: &str) -> bool {
    (6..=32).contains(&code.len()) && code.chars().all(|c| c.is_ascii_alphanumeric())
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

/// A decoded body: its text, whether it came from HTML, and whether it was cut at
/// [`MAX_BODY_BYTES`].
struct Body {
    text: String,
    html: bool,
    cut: bool,
}

/// The body as text.
///
/// The first text part wins; an HTML part is used when there is no text part, or
/// when the text part is blank (some clients send an empty text/plain alternative).
/// Plain text is cut at [`MAX_BODY_BYTES`] before it is unflowed; HTML is cut at
/// [`MAX_HTML_BYTES`], converted, and its text cut at [`MAX_BODY_BYTES`] by
/// [`extract`].
fn body_text(message: &mail_parser::Message<'_>) -> Body {
    let plain = message.text_part(0).and_then(|part| match &part.body {
        PartType::Text(text) => {
            let flowed = part.content_type().is_some_and(|ct| {
                attribute(ct, "format").is_some_and(|f| f.eq_ignore_ascii_case("flowed"))
            });
            let delsp = part.content_type().is_some_and(|ct| {
                attribute(ct, "delsp").is_some_and(|d| d.eq_ignore_ascii_case("yes"))
            });
            let (text, cut) = cap_text(text, MAX_BODY_BYTES);
            let text = normalize_newlines(text);
            let text = if flowed { unflow(&text, delsp) } else { text };
            Some((text, cut))
        }
        _ => None,
    });
    if let Some((text, cut)) = plain.filter(|(text, _)| !text.trim().is_empty()) {
        return Body {
            text,
            html: false,
            cut,
        };
    }
    // With no text part, mail-parser lists the HTML part among the text bodies too,
    // so look in both places.
    let html = message
        .text_part(0)
        .into_iter()
        .chain(message.html_part(0))
        .find_map(|part| match &part.body {
            PartType::Html(html) => Some(html.as_ref()),
            _ => None,
        });
    match html {
        Some(html) => {
            let mut end = html.len().min(MAX_HTML_BYTES);
            while !html.is_char_boundary(end) {
                end -= 1;
            }
            Body {
                text: html_body_to_text(&html[..end]),
                html: true,
                cut: end < html.len(),
            }
        }
        None => Body {
            text: String::new(),
            html: false,
            cut: false,
        },
    }
}

/// The first `limit` bytes of a text at most, ending at a line end: a line the limit
/// cuts is left out. True when something was cut.
fn cap_text(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let end = head.rfind(['\n', '\r']).unwrap_or(0);
    (&text[..end], true)
}

/// A Content-Type attribute by name, ignoring the case of the name.
fn attribute<'a>(ct: &'a mail_parser::ContentType<'_>, name: &str) -> Option<&'a str> {
    ct.attributes()?
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
        .map(|a| a.value.as_ref())
}

fn normalize_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Joins the soft line breaks of RFC 3676 `format=flowed` text.
///
/// A line ending in a space continues on the next line of the same quote depth,
/// except the signature separator `-- `. Space-stuffing is undone. Quote markers
/// are written back as `> ` so the quote rule still sees them.
fn unflow(text: &str, delsp: bool) -> String {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut continues = false;
    for line in text.split('\n') {
        let depth = line.chars().take_while(|&c| c == '>').count();
        let content = &line[depth..];
        let content = content.strip_prefix(' ').unwrap_or(content);
        let soft = content.ends_with(' ') && content != "-- ";
        let content = if soft && delsp {
            &content[..content.len() - 1]
        } else {
            content
        };
        match out.last_mut() {
            Some((last_depth, last)) if continues && *last_depth == depth => {
                last.push_str(content);
            }
            _ => out.push((depth, content.to_string())),
        }
        continues = soft;
    }
    out.into_iter()
        .map(|(depth, content)| {
            if depth == 0 {
                content
            } else {
                format!("{} {content}", ">".repeat(depth))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Private-use characters marking HTML structure through mail-parser's
/// `html_to_text`, which only breaks lines at `<br>` and `</p>` and drops
/// blockquotes' meaning. Without them `<div>place …</div><div>buy …</div>` (how
/// Gmail, Apple Mail and Outlook on the web write lines) would run together.
const BLOCK_MARK: char = '\u{E000}';
const QUOTE_OPEN_MARK: char = '\u{E001}';
const QUOTE_CLOSE_MARK: char = '\u{E002}';
/// Marks a `<p>` that starts a paragraph (a blank line before it): every `<p>` but
/// Outlook's `<p class="MsoNormal">`, which Word writes for each line.
const PARAGRAPH_MARK: char = '\u{E003}';

/// Converts an HTML body to plain text lines, with blockquotes as `> ` lines. Runs
/// of blank lines are written as one.
fn html_body_to_text(html: &str) -> String {
    let marked = mark_html_blocks(html);
    let text = html_to_text(&marked);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut line_quoted = false;
    let mut depth = 0usize;
    // A soft break ends the current line only if something is on it, so nested
    // blocks do not produce runs of blank lines; a real <br> ends a line, except
    // the one right after a soft break already ended it (`x</p>` is one line, but
    // `x</div><div><br></div>` is a line and a blank line).
    let mut absorb_newline = false;
    let finish = |lines: &mut Vec<String>, line: &mut String, quoted: bool| {
        let content = line.trim();
        let blank = content.is_empty();
        if !(blank && lines.last().is_some_and(String::is_empty)) {
            lines.push(if quoted && !blank {
                format!("> {content}")
            } else {
                content.to_string()
            });
        }
        line.clear();
    };
    for c in text.chars() {
        match c {
            '\n' => {
                if absorb_newline && line.trim().is_empty() {
                    line.clear();
                } else {
                    finish(&mut lines, &mut line, line_quoted);
                }
                absorb_newline = false;
                line_quoted = depth > 0;
            }
            BLOCK_MARK | QUOTE_OPEN_MARK | QUOTE_CLOSE_MARK | PARAGRAPH_MARK => {
                // A block of only `&nbsp;` (`<div>&nbsp;</div>`) is a blank line.
                if !line.trim().is_empty() || line.contains('\u{a0}') {
                    finish(&mut lines, &mut line, line_quoted);
                    absorb_newline = true;
                } else {
                    line.clear();
                    absorb_newline = false;
                }
                if c == QUOTE_OPEN_MARK {
                    depth += 1;
                } else if c == QUOTE_CLOSE_MARK {
                    depth = depth.saturating_sub(1);
                } else if c == PARAGRAPH_MARK && lines.last().is_some_and(|l| !l.is_empty()) {
                    lines.push(String::new());
                    // The `</p>` before this paragraph has already been absorbed.
                    absorb_newline = true;
                }
                line_quoted = depth > 0;
            }
            _ => line.push(c),
        }
    }
    if !line.trim().is_empty() {
        finish(&mut lines, &mut line, line_quoted);
    }
    lines.join("\n")
}

/// Inserts the structure markers before block-level tags (see [`BLOCK_MARK`]), and
/// keeps the line breaks of `<pre>` text (Thunderbird's signature is
/// `<pre class="moz-signature">-- \nAnn</pre>`) as `<br>`, in one pass: each tag is
/// read up to its name, and a `<p>` tag up to its end or the next `<`.
fn mark_html_blocks(html: &str) -> String {
    const BLOCKS: [&str; 16] = [
        "div", "p", "li", "ul", "ol", "tr", "table", "hr", "pre", "h1", "h2", "h3", "h4", "h5",
        "h6", "center",
    ];
    let mut out = String::with_capacity(html.len() + html.len() / 16);
    let mut rest = html;
    let mut pre_depth = 0usize;
    let mut after_tag = false;
    let mut copy = |out: &mut String, segment: &str, pre_depth: usize| {
        // A segment after a tag starts with the rest of that tag, up to its `>`.
        let text_from = if after_tag {
            segment.find('>').map_or(segment.len(), |k| k + 1)
        } else {
            0
        };
        after_tag = true;
        out.push_str(&segment[..text_from]);
        if pre_depth > 0 {
            out.push_str(&segment[text_from..].replace('\n', "<br>"));
        } else {
            out.push_str(&segment[text_from..]);
        }
    };
    while let Some(pos) = rest.find('<') {
        copy(&mut out, &rest[..pos], pre_depth);
        let tag = &rest[pos + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            // Tag names are short; a long run of letters is not one worth reading.
            .take(16)
            .collect::<String>()
            .to_ascii_lowercase();
        // The markers are written as HTML numeric references, which html_to_text
        // decodes back to the characters; written raw, they could be glued to
        // the neighbouring word's token and lose the surrounding space.
        let mark = match name.as_str() {
            "blockquote" if closing => Some(QUOTE_CLOSE_MARK),
            "blockquote" => Some(QUOTE_OPEN_MARK),
            "p" if !closing => {
                let end = tag.find(['>', '<']).unwrap_or(tag.len());
                let word = tag[..end].to_ascii_lowercase().contains("msonormal");
                Some(if word { BLOCK_MARK } else { PARAGRAPH_MARK })
            }
            name if BLOCKS.contains(&name) => Some(BLOCK_MARK),
            _ => None,
        };
        if name == "pre" {
            pre_depth = if closing {
                pre_depth.saturating_sub(1)
            } else {
                pre_depth + 1
            };
        }
        if let Some(mark) = mark {
            out.push_str(&format!(" &#{}; ", u32::from(mark)));
        }
        out.push('<');
        rest = tag;
    }
    copy(&mut out, rest, pre_depth);
    out
}

/// The result of reading a decoded body.
struct Extracted {
    move_text: String,
    dropped: Vec<String>,
    token: Option<String>,
    truncated: bool,
}

/// How many non-blank lines of a signature (below `-- ` or a tagline) are listed.
const MAX_SIGNATURE_LINES: usize = 10;
/// How many trailing sign-off paragraphs may be dropped.
const MAX_SIGN_OFF_PARAGRAPHS: usize = 3;
/// The most lines a sign-off paragraph has.
const MAX_SIGN_OFF_LINES: usize = 4;
/// The longest line of a sign-off paragraph, in characters.
const MAX_SIGN_OFF_CHARS: usize = 60;
/// The longest attribution, in characters (Gmail's with a long name and address).
const MAX_ATTRIBUTION_CHARS: usize = 300;
/// How many lines one attribution may be wrapped over.
const MAX_ATTRIBUTION_LINES: usize = 3;
/// How many blank lines may separate an attribution from the quote below it.
const QUOTE_LOOKAHEAD: usize = 5;
/// How many lines a reply header block spans at most.
const HEADER_WINDOW: usize = 8;
/// How many lines after a separator line are looked at for a reply header.
const SEPARATOR_LOOKAHEAD: usize = 3;
/// The longest client tagline, in characters, a trailing link aside.
const MAX_TAGLINE_CHARS: usize = 60;

/// Cleans one line: invisible characters HTML mail introduces are removed or made
/// plain spaces, and trailing whitespace is trimmed. HTML lines also lose their
/// leading whitespace, which HTML rendering ignores anyway.
fn clean_line(line: &str, from_html: bool) -> String {
    let cleaned: String = line
        .chars()
        .filter_map(|c| match c {
            // Non-breaking spaces separate words like spaces do; dropping them would
            // glue words together.
            '\u{00A0}' | '\u{202F}' | '\u{2007}' => Some(' '),
            // Zero-width characters and the soft hyphen are invisible.
            '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}' => None,
            _ => Some(c),
        })
        .collect();
    let trimmed = cleaned.trim_end();
    if from_html {
        trimmed.trim_start().to_string()
    } else {
        trimmed.to_string()
    }
}

/// One of the player's own lines, and whether a paragraph break (a blank line or a
/// quote) separates it from the own line before it.
struct OwnLine {
    text: String,
    new_paragraph: bool,
}

/// Reads a decoded body by the rules of the module documentation, with no notice
/// known.
fn extract(body: &str, from_html: bool, already_cut: bool, names: &Names) -> Extracted {
    extract_answering(body, from_html, already_cut, names, None)
}

/// Reads a decoded body by the rules of the module documentation, in one pass over
/// its lines with a bounded look-ahead at each; with the notice the reply answers,
/// its quote (found first, in one bounded pass) and the attribution above it are
/// passed over as quoted lines are.
fn extract_answering(
    body: &str,
    from_html: bool,
    already_cut: bool,
    names: &Names,
    notice: Option<&Notice>,
) -> Extracted {
    let (body, cut_here) = cap_text(body, MAX_BODY_BYTES);
    let body_cut = already_cut || cut_here;
    let lines: Vec<String> = normalize_newlines(body)
        .split('\n')
        .map(|line| clean_line(line, from_html))
        .collect();

    let mut own: Vec<OwnLine> = Vec::new();
    let mut signature: Vec<String> = Vec::new();
    let mut token = None;
    let mut new_paragraph = false;
    // Whether something ended the player's text before the end of what was read.
    let mut ended = false;
    let mut truncated = false;
    let mut last_was_quote = false;
    let quote = notice.and_then(|notice| find_quote(&lines, notice));
    // How many of the player's lines stand above the notice's quote, once reached.
    let mut own_above_quote = None;
    let mut i = 0;
    while i < lines.len() {
        if let Some(quote) = quote.as_ref().filter(|q| (q.top..=q.end).contains(&i)) {
            own_above_quote.get_or_insert(own.len());
            if !quote.quoted && !own.is_empty() {
                // Nothing marks this quote but its text: as below a reply header, what
                // follows it is the earlier mail.
                ended = true;
                break;
            }
            new_paragraph = true;
            last_was_quote = true;
            i = quote.end + 1;
            continue;
        }
        let line = lines[i].as_str();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            new_paragraph = true;
            i += 1;
            continue;
        }
        if is_quoted(line) {
            new_paragraph = true;
            last_was_quote = true;
            i += 1;
            continue;
        }
        last_was_quote = false;
        if let Some(code) = token_line(trimmed) {
            token = token.or(code);
            i += 1;
            continue;
        }
        if is_end_marker(trimmed) || starts_reply_block(&lines, i) {
            ended = true;
            break;
        }
        if trimmed == "--" || is_client_tagline(trimmed) {
            let from = if trimmed == "--" { i + 1 } else { i };
            signature = signature_block(&lines, from);
            ended = true;
            break;
        }
        if let Some(len) = attribution_at(&lines, i) {
            if !own.is_empty() && !quote_follows(&lines, i + len) {
                ended = true;
                break;
            }
            new_paragraph = true;
            i += len;
            continue;
        }
        if is_separator_rule(trimmed)
            && next_non_blank(&lines, i + 1, SEPARATOR_LOOKAHEAD)
                .is_some_and(|next| attribution_at(&lines, next).is_some())
        {
            i += 1;
            continue;
        }
        if own.len() == MAX_OWN_LINES {
            truncated = true;
            ended = true;
            break;
        }
        own.push(OwnLine {
            text: line.to_string(),
            new_paragraph: new_paragraph && !own.is_empty(),
        });
        new_paragraph = false;
        i += 1;
    }
    // A body cut inside the quote below the player's text lost only more quote.
    let cut_in_trailing_quote = last_was_quote && !own.is_empty();
    if body_cut && !ended && !cut_in_trailing_quote {
        truncated = true;
    }

    // A paragraph right above the notice's quote may be a tagline of the player's own.
    let ends_at_quote = own_above_quote.is_some_and(|above| above == own.len());
    let mut dropped = greeting(&mut own);
    dropped.append(&mut sign_offs(&mut own, names, ends_at_quote));
    dropped.append(&mut signature);

    // A token quoted from the notice, or below a cut, still identifies the reply.
    let token = token.or_else(|| {
        lines
            .iter()
            .find_map(|line| token_line(line.trim_start_matches([' ', '>']).trim()))
            .flatten()
    });

    let move_text = own
        .iter()
        .map(|line| line.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Extracted {
        move_text,
        dropped,
        token,
        truncated,
    }
}

/// The signature lines from `start`: non-blank lines up to a quote, an attribution
/// or a reply header, at most [`MAX_SIGNATURE_LINES`], each trimmed.
fn signature_block(lines: &[String], start: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(start) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if is_quoted(line)
            || out.len() == MAX_SIGNATURE_LINES
            || starts_reply_block(lines, i)
            || attribution_at(lines, i).is_some()
        {
            break;
        }
        if token_line(trimmed).is_none() {
            out.push(trimmed.to_string());
        }
    }
    out
}

/// Removes the trailing sign-off paragraphs from the player's lines (see the module
/// documentation) and returns them, in message order, each line trimmed. With
/// `ends_at_quote` (the player's text ends right above the quote of the notice the
/// reply answers), the last paragraph may also be a tagline of the player's own.
fn sign_offs(own: &mut Vec<OwnLine>, names: &Names, ends_at_quote: bool) -> Vec<String> {
    let mut dropped: Vec<String> = Vec::new();
    for round in 0..MAX_SIGN_OFF_PARAGRAPHS {
        let len = own.len();
        // The last paragraph starts at the last line after a break; only the last
        // few lines are looked at, so this is constant work.
        let Some(start) = (len.saturating_sub(MAX_SIGN_OFF_LINES)..len)
            .rev()
            .find(|&k| own[k].new_paragraph)
        else {
            break;
        };
        let tagline = round == 0 && ends_at_quote && is_own_tagline(&own[start..]);
        if !tagline && !is_sign_off(&own[start..], names) {
            break;
        }
        let mut paragraph: Vec<String> = own
            .drain(start..)
            .map(|line| line.text.trim().to_string())
            .collect();
        paragraph.append(&mut dropped);
        dropped = paragraph;
    }
    dropped
}

fn is_sign_off(paragraph: &[OwnLine], names: &Names) -> bool {
    let Some((first, rest)) = paragraph.split_first() else {
        return false;
    };
    if paragraph.len() > MAX_SIGN_OFF_LINES
        || paragraph
            .iter()
            .any(|line| line.text.trim().chars().count() > MAX_SIGN_OFF_CHARS)
    {
        return false;
    }
    let first = first.text.trim();
    (is_closing_line(first) || names.is_name_line(first))
        && rest.iter().all(|line| {
            let line = line.text.trim();
            names.is_name_line(line)
                || is_closing_line(line)
                || is_contact_line(line)
                || is_plain_words(line)
        })
}

/// Closing phrases, lowercased, as a sign-off paragraph starts with them.
const CLOSING_PHRASES: &[&str] = &[
    // English
    "thanks",
    "thank you",
    "thanks a lot",
    "many thanks",
    "thx",
    "cheers",
    "regards",
    "kind regards",
    "best regards",
    "warm regards",
    "warmest regards",
    "kindest regards",
    "best wishes",
    "all the best",
    "best",
    "sincerely",
    "yours",
    "yours sincerely",
    "yours truly",
    "take care",
    "bye",
    "see you",
    "good luck",
    "have fun",
    "greetings",
    "talk soon",
    // German
    "danke",
    "vielen dank",
    "danke schön",
    "dankeschön",
    "mit freundlichen grüßen",
    "mit freundlichen grüssen",
    "freundliche grüße",
    "freundliche grüsse",
    "viele grüße",
    "viele grüsse",
    "liebe grüße",
    "liebe grüsse",
    "beste grüße",
    "beste grüsse",
    "schöne grüße",
    "schöne grüsse",
    "herzliche grüße",
    "herzliche grüsse",
    "grüße",
    "grüsse",
    "gruß",
    "gruss",
    "mfg",
    "lg",
    "vg",
    "bis bald",
    "tschüss",
    "ciao",
    // French
    "merci",
    "merci beaucoup",
    "cordialement",
    "bien cordialement",
    "bien à vous",
    "amicalement",
    "amitiés",
    "bises",
    "bonne journée",
    "bonne soirée",
    "à bientôt",
    "salutations",
    "sincères salutations",
    // Spanish
    "gracias",
    "muchas gracias",
    "saludos",
    "un saludo",
    "saludos cordiales",
    "atentamente",
    "un abrazo",
    "abrazos",
    "hasta luego",
    // Italian
    "grazie",
    "grazie mille",
    "saluti",
    "cordiali saluti",
    "distinti saluti",
    "un saluto",
    "a presto",
    // Portuguese
    "obrigado",
    "obrigada",
    "abraço",
    "abraços",
    "atenciosamente",
    "cumprimentos",
    "saudações",
    "até logo",
    "beijos",
    // Dutch
    "bedankt",
    "dank je",
    "dank je wel",
    "dank u",
    "dank u wel",
    "groeten",
    "groetjes",
    "met vriendelijke groet",
    "met vriendelijke groeten",
    "vriendelijke groet",
    "vriendelijke groeten",
    "mvg",
    "tot ziens",
    // Swedish, Danish, Norwegian
    "tack",
    "tack så mycket",
    "hälsningar",
    "med vänliga hälsningar",
    "vänliga hälsningar",
    "vänlig hälsning",
    "mvh",
    "ha det bra",
    "tak",
    "mange tak",
    "takk",
    "tusen takk",
    "hilsen",
    "venlig hilsen",
    "med venlig hilsen",
    "vennlig hilsen",
    "med vennlig hilsen",
    "kærlig hilsen",
    // Finnish
    "kiitos",
    "terveisin",
    "ystävällisin terveisin",
    "parhain terveisin",
    // Polish
    "dzięki",
    "dziękuję",
    "pozdrawiam",
    "pozdrowienia",
    "serdecznie pozdrawiam",
    "z poważaniem",
    // Czech
    "díky",
    "děkuji",
    "s pozdravem",
    "zdravím",
    // Russian, Ukrainian
    "спасибо",
    "с уважением",
    "всего доброго",
    "всего хорошего",
    "удачи",
    "пока",
    "дякую",
    "з повагою",
    // Hungarian, Turkish, Greek
    "köszönöm",
    "üdvözlettel",
    "teşekkürler",
    "saygılarımla",
    "ευχαριστώ",
    "φιλικά",
    // Japanese, Chinese, Korean
    "よろしくお願いします",
    "よろしくお願いいたします",
    "よろしくお願い致します",
    "ありがとうございます",
    "ありがとう",
    "以上",
    "谢谢",
    "謝謝",
    "此致",
    "祝好",
    "감사합니다",
];

/// Lowercased, with leading dashes and tildes and trailing punctuation, emoji and
/// spaces removed, and inner whitespace collapsed: `— Ann :)` is `ann`.
fn normalize_phrase(line: &str) -> String {
    let line = line.trim_start_matches(['-', '–', '—', '~', '*', ' ']);
    let line = line.trim_end_matches(|c: char| !c.is_alphanumeric());
    line.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A known closing phrase, alone or followed by a few words with no digit and no `;`.
fn is_closing_line(line: &str) -> bool {
    if line.chars().count() > MAX_SIGN_OFF_CHARS {
        return false;
    }
    let normalized = normalize_phrase(line);
    CLOSING_PHRASES.iter().any(|phrase| {
        let Some(rest) = normalized.strip_prefix(phrase) else {
            return false;
        };
        if rest.is_empty() {
            return true;
        }
        // "thanksgiving" is not "thanks".
        if rest.starts_with(char::is_alphanumeric) {
            return false;
        }
        !rest.contains(';')
            && !rest.chars().any(|c| c.is_ascii_digit())
            && rest.split_whitespace().count() <= 4
    })
}

/// An e-mail or web address, or a phone number.
fn is_contact_line(line: &str) -> bool {
    if has_address(line) || line.contains("://") || line.to_lowercase().starts_with("www.") {
        return true;
    }
    let digits = line.chars().filter(char::is_ascii_digit).count();
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    digits >= 6 && letters <= 10 && !line.contains(';') && !has_cell_word(line)
}

/// Two or more words with none of the marks of a move (see the module docs).
fn is_plain_words(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(first) = words.first() else {
        return false;
    };
    let lowercase_first = first.chars().all(|c| c.is_ascii_lowercase());
    let short_capitals = words.iter().any(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        !word.is_empty()
            && word.chars().count() <= 5
            && word.chars().all(|c| c.is_ascii_uppercase() || c == ',')
    });
    words.len() >= 2
        && !line.contains(';')
        && !has_cell_word(line)
        && !lowercase_first
        && !short_capitals
}

/// True when a letter and a digit touch (`C5`, `e9`, `4D`): how board cells look.
fn has_cell_word(line: &str) -> bool {
    let mut previous: Option<char> = None;
    line.chars().any(|c| {
        let touch = previous.is_some_and(|p| {
            (p.is_ascii_alphabetic() && c.is_ascii_digit())
                || (p.is_ascii_digit() && c.is_ascii_alphabetic())
        });
        previous = Some(c);
        touch
    })
}

/// The sender's names, lowercased: the display name, its words, and the local part
/// of the address and its words (each word at least 2 characters).
#[derive(Debug, Default)]
struct Names {
    full: Option<String>,
    words: Vec<String>,
}

impl Names {
    fn of(display_name: Option<&str>, address: Option<&str>) -> Names {
        let mut names = Names::default();
        let mut add = |word: &str| {
            let word = word
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if word.chars().count() >= 2
                && word.chars().any(char::is_alphabetic)
                && !names.words.contains(&word)
            {
                names.words.push(word);
            }
        };
        if let Some(name) = display_name {
            name.split(|c: char| c.is_whitespace() || matches!(c, ',' | '"' | '(' | ')'))
                .for_each(&mut add);
        }
        if let Some(local) = address.and_then(|a| a.split('@').next()) {
            add(local);
            local.split(['.', '_', '-', '+']).for_each(&mut add);
        }
        names.full = display_name
            .map(normalize_phrase)
            .filter(|full| !full.is_empty());
        names
    }

    /// A line that is only the sender's name (or some of its words), optionally after
    /// a dash or tilde: `Ann`, `Ann Archer`, `- Ann`, `~ann`.
    fn is_name_line(&self, line: &str) -> bool {
        if line.chars().count() > MAX_SIGN_OFF_CHARS {
            return false;
        }
        let normalized = normalize_phrase(line);
        if normalized.is_empty() {
            return false;
        }
        if self.full.as_deref() == Some(normalized.as_str()) {
            return true;
        }
        let words: Vec<&str> = normalized
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .collect();
        !words.is_empty()
            && words.len() <= 4
            && words.iter().all(|w| self.words.iter().any(|n| n == w))
    }
}

/// How much of a sent notice's text is matched against a reply: the first 16 KiB. A
/// notice (a board, a report, the words of a turn) is a few KiB.
pub const MAX_NOTICE_BYTES: usize = 16 * 1024;
/// The fewest words, in order, that make a quote of the notice (besides spanning two
/// of its lines): fewer could be a move the player copied from it.
const MIN_QUOTE_WORDS: usize = 8;
/// A quote begins with one of the notice's first this many words.
const NOTICE_START_WORDS: usize = 24;
/// How many words in a row begin a quote.
const START_ANCHOR_WORDS: usize = 4;
/// How many words in a row take a quote up again after a word that differs.
const RESYNC_ANCHOR_WORDS: usize = 3;
/// How many of the notice's words a quote may leave out at one place.
const RESYNC_NOTICE_WORDS: usize = 16;
/// How many words of one quoted line may differ from the notice (a client's mark).
const RESYNC_REPLY_WORDS: usize = 2;
/// Comparisons allowed per word of the reply and the notice: finding the quote is
/// bounded whatever the message holds; past it, the message is read without it.
const MATCH_WORK_PER_WORD: usize = 32;
/// How many lines of a quoted block above the notice's first line (a quoted
/// attribution) are looked at.
const QUOTE_BLOCK_LOOKBACK: usize = 8;
/// The most attribution lines above the notice's quote (a wrapped attribution, or a
/// header block and a rule).
const MAX_ATTRIBUTION_BLOCK: usize = 6;
/// The longest greeting line, in characters.
const MAX_GREETING_CHARS: usize = 60;
/// The most words after a greeting's opening word.
const MAX_GREETING_WORDS: usize = 6;
/// The most lines of a tagline of the player's own.
const MAX_OWN_TAGLINE_LINES: usize = 2;
/// The longest line of a tagline of the player's own, in characters.
const MAX_OWN_TAGLINE_CHARS: usize = 120;

/// A sent notice made ready for matching: its words in order (lowercased, quote marks
/// and spacing aside), the line of each, and who sent it.
#[derive(Debug)]
struct Notice {
    words: Vec<String>,
    lines: Vec<usize>,
    /// Per line: how many `>` it starts with (a wrapped line of ours may start with
    /// one), so that a reply's quote marks are counted beyond the notice's own.
    depths: Vec<usize>,
    /// The sender's display name, lowercased, spaces collapsed.
    from_name: Option<String>,
    /// The sender's address, lowercased.
    from_address: Option<String>,
}

impl Notice {
    fn of(sent: &SentNotice) -> Notice {
        let (text, _) = cap_text(&sent.text, MAX_NOTICE_BYTES);
        let mut words = Vec::new();
        let mut lines = Vec::new();
        let mut depths = Vec::new();
        for (k, line) in normalize_newlines(text).split('\n').enumerate() {
            let line = clean_line(line, false);
            depths.push(quote_depth(&line));
            for word in words_of(&line) {
                words.push(word);
                lines.push(k);
            }
        }
        let from_name = sent
            .from_name
            .as_deref()
            .map(|name| name.split_whitespace().collect::<Vec<_>>().join(" "))
            .map(|name| name.to_lowercase())
            .filter(|name| name.chars().count() >= 2);
        let from_address = sent
            .from_address
            .as_deref()
            .map(|address| address.trim().to_lowercase())
            .filter(|address| address.contains('@'));
        Notice {
            words,
            lines,
            depths,
            from_name,
            from_address,
        }
    }

    /// Whether a lowercased line holds the notice sender's address, and whether it
    /// holds their display name as whole words.
    fn names_sender(&self, lower: &str) -> (bool, bool) {
        let address = self
            .from_address
            .as_deref()
            .is_some_and(|address| lower.contains(address));
        let name = self.from_name.as_deref().is_some_and(|name| {
            let line = lower.split_whitespace().collect::<Vec<_>>().join(" ");
            line.match_indices(name).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + name.len()..].chars().next();
                !before.is_some_and(char::is_alphanumeric)
                    && !after.is_some_and(char::is_alphanumeric)
            })
        });
        (address, name)
    }
}

/// The words of a line for matching: quote marks (`>`, `|`) and spacing aside,
/// lowercased.
fn words_of(line: &str) -> impl Iterator<Item = String> + '_ {
    line.trim_start_matches(|c: char| c == '>' || c == '|' || c.is_whitespace())
        .split_whitespace()
        .map(str::to_lowercase)
}

/// How many `>` a line starts with (spaces between them aside).
fn quote_depth(line: &str) -> usize {
    line.chars()
        .take_while(|&c| c == '>' || c.is_whitespace())
        .filter(|&c| c == '>')
        .count()
}

/// Where a reply quotes the notice it answers: the lines from `top` (the attribution
/// above the quote, or the quote's first line) to `end`, and whether the quote is
/// marked as one (`>` lines) or only by its text.
#[derive(Debug, PartialEq, Eq)]
struct QuoteSpan {
    top: usize,
    end: usize,
    quoted: bool,
}

/// The reply's words in order, with the line of each.
struct ReplyWords {
    words: Vec<String>,
    lines: Vec<usize>,
    /// Per line: whether it is a quoted (`>`) line.
    quoted: Vec<bool>,
    /// Per line: how many `>` it starts with.
    depths: Vec<usize>,
}

impl ReplyWords {
    /// Whether reply word `i` stands quoted beyond notice word `j`: on a line with
    /// more `>` marks than the notice's line has of its own.
    fn quoted_beyond(&self, notice: &Notice, i: usize, j: usize) -> bool {
        self.depths[self.lines[i]] > notice.depths[notice.lines[j]]
    }
}

/// Finds the quote of the notice in a reply's lines (see "Reading against the notice"
/// in the module documentation): the first place where the notice's first words
/// begin a run of its text, in order, of at least [`MIN_QUOTE_WORDS`] words over two
/// of its lines; then the attribution lines right above it.
///
/// Linear in the size of the reply and the notice: every comparison is counted
/// against a budget of [`MATCH_WORK_PER_WORD`] per word, and past it no quote is
/// found.
fn find_quote(lines: &[String], notice: &Notice) -> Option<QuoteSpan> {
    let n = notice.words.len();
    if n < MIN_QUOTE_WORDS {
        return None;
    }
    let mut reply = ReplyWords {
        words: Vec::new(),
        lines: Vec::new(),
        quoted: lines.iter().map(|line| is_quoted(line)).collect(),
        depths: lines.iter().map(|line| quote_depth(line)).collect(),
    };
    for (k, line) in lines.iter().enumerate() {
        for word in words_of(line) {
            reply.words.push(word);
            reply.lines.push(k);
        }
    }
    let mut budget = MATCH_WORK_PER_WORD * (reply.words.len() + n) + 1024;
    // The notice's first words, each a possible start, by the word.
    let mut starts: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for s in 0..NOTICE_START_WORDS.min(n + 1 - START_ANCHOR_WORDS) {
        starts.entry(notice.words[s].as_str()).or_default().push(s);
    }
    for r in 0..reply.words.len() {
        let Some(candidates) = starts.get(reply.words[r].as_str()) else {
            continue;
        };
        for &s in candidates {
            budget = budget.checked_sub(START_ANCHOR_WORDS)?;
            let anchored = (0..START_ANCHOR_WORDS).all(|k| {
                reply
                    .words
                    .get(r + k)
                    .is_some_and(|w| *w == notice.words[s + k])
            });
            if !anchored {
                continue;
            }
            if let Some((first, end, quoted)) = align(&reply, notice, r, s, &mut budget) {
                let top = attribution_above(lines, &reply.quoted, first, quoted, notice);
                return Some(QuoteSpan { top, end, quoted });
            }
            if budget == 0 {
                return None;
            }
        }
    }
    None
}

/// Follows the notice's text through the reply from reply word `r` and notice word
/// `s`, as long as the reply's lines keep the quoting of the first one. Returns the
/// whole lines it covers (the first and the last), when they make a quote, and
/// whether it is marked as one.
fn align(
    reply: &ReplyWords,
    notice: &Notice,
    r: usize,
    s: usize,
    budget: &mut usize,
) -> Option<(usize, usize, bool)> {
    let quoted = reply.quoted_beyond(notice, r, s);
    let (mut i, mut j) = (r, s);
    let mut matched = 0;
    let mut last = r;
    let mut two_lines = false;
    while i < reply.words.len() && j < notice.words.len() {
        // A quote marked with `>` ends at the player's own line below it, and a quote
        // marked by nothing ends at a `>` line: inline answers are never taken in.
        if reply.quoted_beyond(notice, i, j) != quoted {
            break;
        }
        *budget = budget.checked_sub(1)?;
        if reply.words[i] == notice.words[j] {
            matched += 1;
            last = i;
            two_lines |= notice.lines[j] != notice.lines[s];
            i += 1;
            j += 1;
            continue;
        }
        match resync(reply, notice, i, j, reply.lines[last], budget) {
            Some((skip_reply, skip_notice)) => {
                i += skip_reply;
                j += skip_notice;
            }
            None => break,
        }
    }
    if matched < MIN_QUOTE_WORDS || !two_lines {
        return None;
    }
    // Whole lines only: a line the quote begins or ends inside is left to the other
    // rules (the attribution above, or the player's own text).
    let starts_inside = r > 0 && reply.lines[r - 1] == reply.lines[r];
    let first = reply.lines[r] + usize::from(starts_inside);
    let ends_inside = reply.lines.get(last + 1) == Some(&reply.lines[last]);
    let end = reply.lines[last].checked_sub(usize::from(ends_inside))?;
    (first <= end).then_some((first, end, quoted))
}

/// Where the notice's text is taken up again after reply word `i` differs from
/// notice word `j`: leaving out up to [`RESYNC_NOTICE_WORDS`] of the notice's words,
/// and up to [`RESYNC_REPLY_WORDS`] of the reply's, these only on the line of the
/// last word that matched (a client's mark inside a quoted line, never a line of the
/// player's own).
fn resync(
    reply: &ReplyWords,
    notice: &Notice,
    i: usize,
    j: usize,
    line: usize,
    budget: &mut usize,
) -> Option<(usize, usize)> {
    let reply_skips = (0..RESYNC_REPLY_WORDS)
        .take_while(|&d| reply.lines.get(i + d) == Some(&line))
        .count();
    for skip_reply in 0..=reply_skips {
        for skip_notice in 0..=RESYNC_NOTICE_WORDS {
            if skip_reply == 0 && skip_notice == 0 {
                continue;
            }
            *budget = budget.checked_sub(1)?;
            let (a, b) = (i + skip_reply, j + skip_notice);
            let anchored = (0..RESYNC_ANCHOR_WORDS).all(|k| {
                matches!((reply.words.get(a + k), notice.words.get(b + k)), (Some(x), Some(y)) if x == y)
            });
            if anchored {
                return Some((skip_reply, skip_notice));
            }
        }
    }
    None
}

/// The first line of the attribution above a quote that begins at line `first`: a
/// quoted attribution in the same quoted block, then, after up to a few blank lines,
/// up to [`MAX_ATTRIBUTION_BLOCK`] lines that each read as part of an attribution.
fn attribution_above(
    lines: &[String],
    quoted: &[bool],
    first: usize,
    is_quoted_block: bool,
    notice: &Notice,
) -> usize {
    let mut top = first;
    if is_quoted_block {
        let mut k = first;
        while k > 0
            && first - k < QUOTE_BLOCK_LOOKBACK
            && (quoted[k - 1] || lines[k - 1].trim().is_empty())
        {
            k -= 1;
        }
        top = (k..first).find(|&x| quoted[x]).unwrap_or(first);
    }
    let mut k = top;
    while k > 0 && top - k < QUOTE_LOOKAHEAD - 1 && lines[k - 1].trim().is_empty() {
        k -= 1;
    }
    let mut block = k;
    while block > 0
        && k - block < MAX_ATTRIBUTION_BLOCK
        && is_attribution_line(&lines[block - 1], notice)
    {
        block -= 1;
    }
    if block < k {
        block
    } else {
        top
    }
}

/// A line that is part of an attribution or reply header right above the notice's
/// quote (see the module documentation): a rule, a line with the notice sender's
/// address, their name with a date, a time, a colon, a `<` or a "wrote" verb, an
/// attribution, or a reply-header line. Never a quoted line, a note, or a line with
/// a `;` or (but for the sender's address) a board cell.
fn is_attribution_line(line: &str, notice: &Notice) -> bool {
    let trimmed = line.trim();
    if trimmed.is_empty()
        || is_quoted(line)
        || trimmed.chars().count() > MAX_ATTRIBUTION_CHARS
        || trimmed.contains(';')
    {
        return false;
    }
    let lower = trimmed.to_lowercase();
    if lower.starts_with("note:") || token_line(trimmed).is_some() {
        return false;
    }
    if is_rule_line(trimmed) {
        return true;
    }
    let (address, name) = notice.names_sender(&lower);
    if address {
        return true;
    }
    if name
        && (has_year(trimmed)
            || has_time(trimmed)
            || ends_with_colon(trimmed)
            || trimmed.ends_with('<')
            || VERBS.iter().any(|verb| lower.contains(verb))
            || starts_like_attribution(trimmed))
    {
        return true;
    }
    !has_cell_word(trimmed) && (is_attribution(trimmed, true) || header_kind(trimmed).is_some())
}

/// A rule (five or more of `=`, `-`, `_`, `*`, `~` or a long dash), or text between
/// rules of three or more (`==== Message du 23/11/2026 10:02 ====`).
fn is_rule_line(trimmed: &str) -> bool {
    let rule = |c: &char| matches!(c, '=' | '-' | '_' | '*' | '~' | '—' | '–' | '─');
    let total = trimmed.chars().count();
    let lead = trimmed.chars().take_while(rule).count();
    if lead == total {
        return total >= 5;
    }
    let trail = trimmed.chars().rev().take_while(rule).count();
    lead >= 3 && trail >= 3 && !has_cell_word(trimmed)
}

/// The words the referee answers without a move, and the move that passes: a line
/// starting with one is never a greeting or a tagline.
const REFEREE_WORDS: &[&str] = &[
    "pass", "undo", "agree", "decline", "preview", "moves", "away", "back", "resign", "confirm",
    "note",
];

fn is_referee_word(word: &str) -> bool {
    let word = word
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    REFEREE_WORDS.contains(&word.as_str())
}

/// Greetings, lowercased, as the first line of a message starts with them.
pub const GREETINGS: &[&str] = &[
    // English
    "hi",
    "hello",
    "hey",
    "hiya",
    "howdy",
    "dear",
    "good morning",
    "good afternoon",
    "good evening",
    "greetings",
    // German
    "hallo",
    "moin",
    "servus",
    "guten morgen",
    "guten tag",
    "guten abend",
    "liebe",
    "lieber",
    "sehr geehrte",
    "sehr geehrter",
    "grüezi",
    "grüß gott",
    // French
    "bonjour",
    "bonsoir",
    "salut",
    "coucou",
    "cher",
    "chère",
    "chers",
    // Italian
    "ciao",
    "salve",
    "buongiorno",
    "buonasera",
    "caro",
    "cara",
    "gentile",
    // Spanish, Portuguese
    "hola",
    "buenos días",
    "buenas tardes",
    "buenas noches",
    "buenas",
    "estimado",
    "estimada",
    "querido",
    "querida",
    "olá",
    "oi",
    "bom dia",
    "boa tarde",
    "boa noite",
    "prezado",
    "prezada",
    // Dutch
    "hoi",
    "goedemorgen",
    "goedemiddag",
    "goedenavond",
    "beste",
    // Swedish, Danish, Norwegian, Finnish
    "hej",
    "hejsan",
    "hei",
    "heippa",
    "god morgon",
    "god morgen",
    "god dag",
    "kære",
    "kjære",
    "moi",
    "moikka",
    "terve",
    "hyvää huomenta",
    "hyvää päivää",
    // Polish, Czech
    "cześć",
    "dzień dobry",
    "witam",
    "witaj",
    "drogi",
    "droga",
    "ahoj",
    "dobrý den",
    "milý",
    "milá",
    // Russian, Ukrainian
    "привет",
    "здравствуйте",
    "здравствуй",
    "добрый день",
    "доброе утро",
    "добрый вечер",
    "уважаемый",
    "уважаемая",
    "привіт",
    "вітаю",
    "добрий день",
    // Hungarian, Turkish, Greek
    "szia",
    "sziasztok",
    "helló",
    "jó napot",
    "kedves",
    "merhaba",
    "selam",
    "sayın",
    "γεια σας",
    "γεια σου",
    "γεια",
    "καλημέρα",
    // Japanese, Chinese, Korean
    "こんにちは",
    "おはようございます",
    "こんばんは",
    "お疲れ様です",
    "你好",
    "您好",
    "안녕하세요",
];

/// Removes a greeting from the start of the player's lines (see the module
/// documentation) and returns it: the first line, when it is one and more of the
/// player's text follows.
fn greeting(own: &mut Vec<OwnLine>) -> Vec<String> {
    if own.len() < 2 || !is_greeting(own[0].text.trim()) {
        return Vec::new();
    }
    let line = own.remove(0).text.trim().to_string();
    own[0].new_paragraph = false;
    vec![line]
}

/// A greeting: a known opening ("Hi", "Dear", "Bonjour", "Привет", …) alone or with
/// a few words after it ("Hi Bob... I mean referee,"), ending in `,`, `!`, `.`, `:`
/// or `…` when more than two words follow; no `;`, no board cell, no group of
/// capitals such as `E,NW`, and none of the referee's words (`pass`, `undo`, …).
fn is_greeting(line: &str) -> bool {
    if line.chars().count() > MAX_GREETING_CHARS || line.contains(';') || has_cell_word(line) {
        return false;
    }
    let lower = line.to_lowercase();
    let Some(rest) = GREETINGS.iter().find_map(|greeting| {
        lower
            .strip_prefix(greeting)
            .filter(|rest| !rest.starts_with(char::is_alphanumeric))
    }) else {
        return false;
    };
    let words: Vec<&str> = rest
        .split_whitespace()
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .collect();
    let capitals = line.split_whitespace().any(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        word.contains(',') && word.chars().all(|c| c.is_ascii_uppercase() || c == ',')
    });
    let ending = line
        .trim_end_matches(|c: char| !c.is_alphanumeric() && !",!.:…".contains(c))
        .ends_with([',', '!', '.', ':', '…']);
    words.len() <= MAX_GREETING_WORDS
        && !capitals
        && !words.iter().any(|word| is_referee_word(word))
        && (ending || words.len() <= 2)
}

/// A tagline of the player's own ("Sent from my iPhone 15 Pro Max. Please excuse
/// typos, autocorrect and brevity."), as the paragraph right above the notice's quote
/// may be: at most two lines of at most 120 characters, each three or more words
/// with none of the marks of a move, not starting with one of the referee's words.
fn is_own_tagline(paragraph: &[OwnLine]) -> bool {
    !paragraph.is_empty()
        && paragraph.len() <= MAX_OWN_TAGLINE_LINES
        && paragraph.iter().all(|line| {
            let line = line.text.trim();
            line.chars().count() <= MAX_OWN_TAGLINE_CHARS
                && line.split_whitespace().count() >= 3
                && is_plain_words(line)
                && !line.split_whitespace().next().is_some_and(is_referee_word)
        })
}

fn is_end_marker(trimmed: &str) -> bool {
    ["end", "--end--", "#end", "."]
        .iter()
        .any(|marker| trimmed.eq_ignore_ascii_case(marker))
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

/// The index of the first non-blank line among `lines[from..from + within]`.
fn next_non_blank(lines: &[String], from: usize, within: usize) -> Option<usize> {
    (from..lines.len().min(from + within)).find(|&j| !lines[j].trim().is_empty())
}

/// True when the first non-blank line from `from` (within a few) is quoted.
fn quote_follows(lines: &[String], from: usize) -> bool {
    next_non_blank(lines, from, QUOTE_LOOKAHEAD).is_some_and(|j| is_quoted(&lines[j]))
}

/// `Some(code)` for a `pbem-token:` line (`Some(None)` when its code is missing or
/// malformed: the line is still not part of the move), `None` for other lines.
fn token_line(trimmed: &str) -> Option<Option<String>> {
    let head: String = trimmed.chars().take(32).collect::<String>().to_lowercase();
    let rest = head.strip_prefix("pbem")?.trim_start();
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let rest = rest.strip_prefix("token")?.trim_start();
    rest.strip_prefix(':')?;
    // Take the code from the original line, to keep its case.
    let colon = trimmed.find(':')?;
    let code = trimmed[colon + 1..].trim();
    Some(is_code(code).then(|| code.to_string()))
}

/// A client's tagline: "Sent from my iPhone", "Get Outlook for Android<https://…>".
fn is_client_tagline(trimmed: &str) -> bool {
    /// Lowercased beginnings of taglines, in many languages.
    const PREFIXES: &[&str] = &[
        "sent from my ",
        "sent from outlook",
        "sent from mail for ",
        "sent from yahoo mail",
        "sent from samsung",
        "sent from proton",
        "sent with proton",
        "sent from the ",
        "sent from gmail",
        "sent from aol",
        "sent via ",
        "sent using ",
        "get outlook for ",
        "von meinem ",
        "gesendet von ",
        "gesendet vom ",
        "gesendet mit ",
        "envoyé de mon ",
        "envoyé depuis ",
        "envoyé à partir de ",
        "envoyé avec ",
        "télécharger outlook pour ",
        "enviado desde ",
        "enviado de mi ",
        "enviado de meu ",
        "enviado do meu ",
        "enviado a partir do ",
        "obtener outlook para ",
        "inviato da ",
        "inviato dal mio ",
        "scarica outlook per ",
        "отправлено с ",
        "отправлено из ",
        "wysłane z ",
        "wysłano z ",
        "lähetetty ",
        "skickat från ",
        "sendt fra ",
        "verzonden vanaf ",
        "verzonden vanuit ",
        "verzonden met ",
        "verstuurd vanaf ",
        "odesláno z ",
        "odoslané z ",
        "στάλθηκε από ",
        "trimis de pe ",
        "发自我的",
        "从我的",
        "來自我的",
    ];
    /// Lowercased endings of taglines that put the client first.
    const SUFFIXES: &[&str] = &["から送信", "에서 보냄", "dan gönderildi"];
    // Outlook's mobile apps append a link: "Get Outlook for iOS<https://aka.ms/o0ukef>".
    let text = match trimmed.find("<http") {
        Some(pos) if trimmed.ends_with('>') => trimmed[..pos].trim_end(),
        _ => trimmed,
    };
    if text.chars().count() > MAX_TAGLINE_CHARS {
        return false;
    }
    let lower = text.to_lowercase();
    PREFIXES.iter().any(|p| lower.starts_with(p)) || SUFFIXES.iter().any(|s| lower.ends_with(s))
}

/// The kind of a reply header line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Header {
    From,
    Date,
    To,
    Subject,
}

/// Header labels of reply blocks, lowercased, in the languages mail clients use.
const FROM_LABELS: &[&str] = &[
    "from",
    "von",
    "de",
    "da",
    "van",
    "fra",
    "från",
    "od",
    "от",
    "lähettäjä",
    "feladó",
    "kimden",
    "absender",
    "afzender",
    "remitente",
    "mittente",
    "expéditeur",
    "差出人",
    "发件人",
    "寄件者",
    "보낸 사람",
];
const DATE_LABELS: &[&str] = &[
    "sent",
    "date",
    "gesendet",
    "datum",
    "envoyé",
    "envoyé le",
    "date d'envoi",
    "skickat",
    "sendt",
    "dato",
    "verzonden",
    "verstuurd",
    "enviado",
    "enviada",
    "enviado el",
    "enviado em",
    "enviada em",
    "fecha",
    "inviato",
    "data",
    "wysłano",
    "wysłane",
    "data wysłania",
    "отправлено",
    "дата",
    "odesláno",
    "lähetetty",
    "päivämäärä",
    "elküldve",
    "dátum",
    "gönderildi",
    "tarih",
    "送信日時",
    "日付",
    "发送时间",
    "日期",
    "傳送時間",
    "날짜",
    "보낸 날짜",
];
const TO_LABELS: &[&str] = &[
    "to",
    "an",
    "à",
    "a",
    "til",
    "till",
    "aan",
    "para",
    "per",
    "do",
    "кому",
    "komu",
    "vastaanottaja",
    "címzett",
    "kime",
    "宛先",
    "收件人",
    "받는 사람",
];
const SUBJECT_LABELS: &[&str] = &[
    "subject",
    "betreff",
    "objet",
    "sujet",
    "ämne",
    "emne",
    "onderwerp",
    "asunto",
    "assunto",
    "oggetto",
    "temat",
    "тема",
    "předmět",
    "aihe",
    "tárgy",
    "konu",
    "件名",
    "主题",
    "主旨",
    "제목",
];

/// The header label a line starts with (`From:`, `*Sent:*`, `Objet :`, `Envoyé le :`,
/// `件名：`), lowercased: at most 3 words and 24 characters before the colon.
fn label(trimmed: &str) -> Option<String> {
    let line = trimmed.trim_start_matches('*');
    let colon = line.find([':', '：'])?;
    let name = line[..colon].trim_end().trim_end_matches('*').trim();
    if name.is_empty() || name.chars().count() > 24 || name.split_whitespace().count() > 3 {
        return None;
    }
    Some(name.to_lowercase())
}

fn header_kind(trimmed: &str) -> Option<Header> {
    let label = label(trimmed)?;
    let label = label.as_str();
    if FROM_LABELS.contains(&label) {
        Some(Header::From)
    } else if DATE_LABELS.contains(&label) {
        Some(Header::Date)
    } else if TO_LABELS.contains(&label) {
        Some(Header::To)
    } else if SUBJECT_LABELS.contains(&label) {
        Some(Header::Subject)
    } else {
        None
    }
}

/// True when line `i` starts a reply block: a titled rule ("Original Message"), a
/// forward introduction, a header block, or a separator line right above one of
/// these.
fn starts_reply_block(lines: &[String], i: usize) -> bool {
    let trimmed = lines[i].trim();
    if is_original_message_rule(trimmed) || is_forward_intro(trimmed) {
        return true;
    }
    if is_separator_rule(trimmed) {
        return next_non_blank(lines, i + 1, SEPARATOR_LOOKAHEAD).is_some_and(|next| {
            is_header_block(lines, next) || is_original_message_rule(lines[next].trim())
        });
    }
    is_header_block(lines, i)
}

/// A `From:`, `Date:` or `Subject:` line with, within [`HEADER_WINDOW`] lines (no
/// quoted line between), a From, a Subject, and a Date or To line.
fn is_header_block(lines: &[String], i: usize) -> bool {
    if !matches!(
        header_kind(lines[i].trim()),
        Some(Header::From | Header::Date | Header::Subject)
    ) {
        return false;
    }
    let (mut from, mut date, mut to, mut subject) = (false, false, false, false);
    for line in lines.iter().skip(i).take(HEADER_WINDOW) {
        if is_quoted(line) {
            break;
        }
        match header_kind(line.trim()) {
            Some(Header::From) => from = true,
            Some(Header::Date) => date = true,
            Some(Header::To) => to = true,
            Some(Header::Subject) => subject = true,
            None => {}
        }
    }
    from && subject && (date || to)
}

/// Five or more of the same `_`, `-`, `=` (or a box-drawing or em dash): a line
/// clients draw above a reply header.
fn is_separator_rule(trimmed: &str) -> bool {
    let mut chars = trimmed.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    matches!(first, '_' | '-' | '=' | '—' | '─')
        && trimmed.chars().count() >= 5
        && chars.all(|c| c == first)
}

/// A rule with a title: "-----Original Message-----", "---------- Forwarded message
/// ---------", and the same in other languages.
fn is_original_message_rule(trimmed: &str) -> bool {
    const TITLES: &[&str] = &[
        "original message",
        "forwarded message",
        "reply message",
        "ursprüngliche nachricht",
        "original-nachricht",
        "originalnachricht",
        "weitergeleitete nachricht",
        "message d'origine",
        "message original",
        "message transféré",
        "mensaje original",
        "mensaje reenviado",
        "messaggio originale",
        "messaggio inoltrato",
        "mensagem original",
        "mensagem encaminhada",
        "oorspronkelijk bericht",
        "origineel bericht",
        "doorgestuurd bericht",
        "ursprungligt meddelande",
        "vidarebefordrat meddelande",
        "oprindelig besked",
        "oprindelig meddelelse",
        "videresendt besked",
        "videresendt meddelelse",
        "opprinnelig melding",
        "videresendt melding",
        "alkuperäinen viesti",
        "välitetty viesti",
        "wiadomość oryginalna",
        "oryginalna wiadomość",
        "przekazana wiadomość",
        "původní zpráva",
        "původní e-mail",
        "přeposlaná zpráva",
        "исходное сообщение",
        "пересылаемое сообщение",
        "оригинальное сообщение",
        "eredeti üzenet",
        "orijinal ileti",
        "αρχικό μήνυμα",
        "原始邮件",
        "原始郵件",
        "転送されたメッセージ",
        "元のメッセージ",
        "원본 메시지",
    ];
    let is_rule_char = |c: char| matches!(c, '-' | '=' | '_' | '—' | '–' | '─' | '*');
    let lead = trimmed
        .chars()
        .take_while(|&c| is_rule_char(c) || c.is_whitespace())
        .filter(|&c| is_rule_char(c))
        .count();
    if lead < 2 || trimmed.chars().count() > 80 {
        return false;
    }
    let inner = trimmed
        .trim_matches(|c: char| is_rule_char(c) || c.is_whitespace())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    TITLES.contains(&inner.as_str())
}

/// Apple Mail's and others' introduction of a forwarded message.
fn is_forward_intro(trimmed: &str) -> bool {
    const INTROS: &[&str] = &[
        "begin forwarded message:",
        "anfang der weitergeleiteten nachricht:",
        "début du message réexpédié:",
        "début du message transféré:",
        "inicio del mensaje reenviado:",
        "inizio messaggio inoltrato:",
        "início da mensagem reencaminhada:",
        "begin doorgestuurd bericht:",
        "vidarebefordrat mejl:",
    ];
    if trimmed.chars().count() > 50 {
        return false;
    }
    let lower = trimmed.to_lowercase().replace(" :", ":");
    INTROS.contains(&lower.as_str())
}

/// Openings of attributions that start with a word rather than a date.
const OPENINGS: &[&str] = &[
    "On ",
    "Le ",
    "Am ",
    "El ",
    "Il ",
    "In data ",
    "Em ",
    "Op ",
    "Den ",
    "På ",
    "W dniu ",
    "Dnia ",
    "Dne ",
    "Στις ",
    "在",
];

/// The "wrote" verbs of attributions, lowercased.
const VERBS: &[&str] = &[
    "wrote",
    "writes",
    "schrieb",
    "écrit",
    "escribió",
    "scritto",
    "schreef",
    "skrev",
    "escreveu",
    "napisał",
    "pisze",
    "napsal",
    "kirjoitti",
    "пишет",
    "написал",
    "писал",
    "написав",
    "пише",
    "写道",
    "寫道",
    "書きました",
    "のメッセージ",
    "のメール",
    "작성",
    "írta",
    "yazdı",
    "έγραψε",
    "a scris",
    "napisao",
    "napisal",
    "kirjutas",
];

/// How many lines (1 to [`MAX_ATTRIBUTION_LINES`]) the attribution starting at line
/// `i` takes, if one does.
///
/// Clients wrap long attributions (Gmail at about 78 columns), so the address, the
/// verb and the colon may be on the next lines. A line is joined with the next ones
/// only when it starts like an attribution (an opening word, a date, an e-mail
/// address, or a `<` at its end where the address was wrapped), never with a line
/// that starts one of its own or has a board cell in it (`C5`), and the joined text
/// must be an attribution by its own words (a verb, or an address and a date), not
/// merely by a quote below it.
fn attribution_at(lines: &[String], i: usize) -> Option<usize> {
    let first = lines[i].trim();
    if first.len() > MAX_ATTRIBUTION_CHARS * 4 {
        return None;
    }
    if is_attribution(first, quote_follows(lines, i + 1)) {
        return Some(1);
    }
    let wrapped_start =
        starts_like_attribution(first) || has_address(first) || first.ends_with('<');
    if ends_with_colon(first) || !wrapped_start {
        return None;
    }
    let mut joined = first.to_string();
    for k in 1..MAX_ATTRIBUTION_LINES {
        let next = lines.get(i + k)?.trim();
        if next.is_empty()
            || is_quoted(next)
            || starts_own_attribution(next)
            || has_cell_word(next)
            || joined.len() + next.len() > MAX_ATTRIBUTION_CHARS * 4
        {
            return None;
        }
        joined.push(' ');
        joined.push_str(next);
        let by_its_words = if ends_with_colon(next) {
            is_attribution(&joined, false)
        } else {
            is_attribution(&joined, quote_follows(lines, i + k + 1))
        };
        if by_its_words {
            return Some(k + 1);
        }
        if ends_with_colon(next) {
            return None;
        }
    }
    None
}

fn ends_with_colon(text: &str) -> bool {
    text.ends_with(':') || text.ends_with('：')
}

/// An opening word or a date, as an attribution starts.
fn starts_like_attribution(text: &str) -> bool {
    OPENINGS.iter().any(|opening| text.starts_with(opening)) || starts_with_date(text)
}

/// A line that starts an attribution of its own: an opening word, or a date and
/// an attribution by its own words ("10:02):", the end of a wrapped one, is not).
fn starts_own_attribution(text: &str) -> bool {
    OPENINGS.iter().any(|opening| text.starts_with(opening))
        || (starts_with_date(text) && is_attribution(text, false))
}

/// True for an attribution (see the module docs); `quote_follows` tells whether
/// quoted lines follow it.
fn is_attribution(text: &str, quote_follows: bool) -> bool {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_ATTRIBUTION_CHARS {
        return false;
    }
    let opening = OPENINGS.iter().any(|opening| text.starts_with(opening));
    let Some(body) = text
        .strip_suffix(':')
        .or_else(|| text.strip_suffix('：'))
        .map(str::trim_end)
    else {
        // English clients also write "On … wrote" with no colon.
        return opening && quote_follows && text.to_lowercase().ends_with(" wrote");
    };
    // The verb may be followed by the name ("Am … schrieb Referee:"), so look for it
    // in the tail of the line rather than right before the colon.
    let tail: String = {
        let chars: Vec<char> = body.chars().collect();
        chars[chars.len().saturating_sub(60)..]
            .iter()
            .collect::<String>()
            .to_lowercase()
    };
    let verb = VERBS.iter().any(|verb| tail.contains(verb));
    let address = has_address(body);
    let dated = starts_with_date(body);
    (verb && (opening || address || dated || quote_follows))
        || (address && (dated || quote_follows))
}

/// An e-mail address somewhere in the text: `@` between a name and a domain.
fn has_address(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(3).any(|w| {
        w[1] == '@'
            && (w[0].is_alphanumeric() || matches!(w[0], '.' | '_' | '-' | '+'))
            && w[2].is_alphanumeric()
    })
}

/// True when the text starts with a date: a digit, or a word of at most 5 letters
/// (a weekday such as "Mon,", "pon.,", "пн,", "ma") and then a digit; and has a year
/// (1900 to 2099) or a time (`10:00`, `10.00`) somewhere.
fn starts_with_date(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    let starts = match chars.peek() {
        Some(c) if c.is_ascii_digit() => true,
        Some(c) if c.is_alphabetic() => {
            let mut letters = 0;
            while chars.peek().is_some_and(|c| c.is_alphabetic()) {
                letters += 1;
                chars.next();
            }
            while chars.peek().is_some_and(|&c| c == '.' || c == ',') {
                chars.next();
            }
            let mut spaces = 0;
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                spaces += 1;
                chars.next();
            }
            letters <= 5 && spaces > 0 && chars.peek().is_some_and(char::is_ascii_digit)
        }
        _ => false,
    };
    starts && (has_year(text) || has_time(text))
}

/// A run of exactly four digits from 1900 to 2099.
fn has_year(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit = |k: usize| bytes.get(k).is_some_and(u8::is_ascii_digit);
    (0..bytes.len().saturating_sub(3)).any(|k| {
        (k == 0 || !digit(k - 1))
            && (0..4).all(|d| digit(k + d))
            && !digit(k + 4)
            && (bytes[k..k + 2] == *b"19" || bytes[k..k + 2] == *b"20")
    })
}

/// One or two digits, `:` or `.`, two digits: `10:02`, `9.30`.
fn has_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit = |k: usize| bytes.get(k).is_some_and(u8::is_ascii_digit);
    (1..bytes.len()).any(|k| {
        matches!(bytes[k], b':' | b'.')
            && digit(k - 1)
            && digit(k + 1)
            && digit(k + 2)
            && !digit(k + 3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(body: &str) -> String {
        extract_move_text(body)
    }

    fn read(body: &str) -> Extracted {
        extract(body, false, false, &Names::default())
    }

    /// Extracts with Ann Archer <ann.archer@example.org> as the sender.
    fn read_from_ann(body: &str) -> Extracted {
        let names = Names::of(Some("Ann Archer"), Some("ann.archer@example.org"));
        extract(body, false, false, &names)
    }

    const MOVE: &str = "place E,NW at C5";

    #[test]
    fn quoted_lines_are_dropped() {
        assert_eq!(
            strip("place E,NW at C5\n> quoted\n  >> deeper\nbuy D4"),
            "place E,NW at C5\nbuy D4"
        );
    }

    #[test]
    fn attribution_without_a_quote_below_ends_the_move() {
        let body = "place E,NW at C5\n\nOn Mon, 23 Nov 2026 at 10:02, Referee <r@example.org> wrote:\n\nnot quoted but after\n";
        assert_eq!(strip(body), "place E,NW at C5");
    }

    #[test]
    fn attribution_with_a_quote_below_is_dropped_with_it_and_reading_goes_on() {
        let body = "On Mon, 23 Nov 2026, Referee wrote:\n> Your move\n> Reply above\nplace E,NW at C5\n> Example: pass\nbuy D4 with I\n";
        let extracted = read(body);
        assert_eq!(extracted.move_text, "place E,NW at C5\nbuy D4 with I");
        assert!(extracted.dropped.is_empty());
    }

    #[test]
    fn wrapped_attribution_is_dropped() {
        let body = "place E,NW at C5\nOn Mon, 23 Nov 2026 at 10:02, Referee of the Right of Way Club <\nreferee@example.org> wrote:\nleftover";
        assert_eq!(strip(body), "place E,NW at C5");
        // Over three lines, then a quote.
        let body = "place E,NW at C5\n\nOn Mon, 23 Nov 2026 at 10:02, The Referee of the\nRight of Way Club <\nreferee@example.org> wrote:\n\n> Your move\n";
        assert_eq!(strip(body), "place E,NW at C5");
    }

    #[test]
    fn german_and_french_attributions_are_dropped() {
        assert_eq!(
            strip("buy D4 with I\nAm 23.11.2026 um 10:02 schrieb Referee:\n> x"),
            "buy D4 with I"
        );
        assert_eq!(
            strip(
                "buy D4 with I\nLe lun. 23 nov. 2026 à 10:02, Referee <r@example.org> a écrit :\nx"
            ),
            "buy D4 with I"
        );
        assert_eq!(
            strip("buy D4 with I\nLe lun. 23 nov. 2026 à 10:02, Referee <r@example.org> a\nécrit\u{a0}:\nx"),
            "buy D4 with I"
        );
    }

    /// Every attribution form: on top of a quote, after the move (top-posting), and
    /// before it (bottom-posting).
    #[test]
    fn attributions_in_many_languages_and_shapes() {
        let forms = [
            "On Mon, 23 Nov 2026 at 10:02, Referee <r@x.org> wrote:",
            "On Mon, Nov 23, 2026 at 10:00 AM Referee <r@x.org> wrote",
            "On 23/11/2026 10:02, Referee wrote:",
            "Referee <r@x.org> wrote:",
            "Referee wrote:",
            "Am Mo., 23. Nov. 2026 um 10:02 Uhr schrieb Referee <r@x.org>:",
            "Am 23.11.2026 um 10:02 schrieb Referee:",
            "Referee <r@x.org> schrieb:",
            "Le lun. 23 nov. 2026 à 10:02, Referee <r@x.org> a écrit :",
            "El lun, 23 nov 2026 a las 10:02, Referee (<r@x.org>) escribió:",
            "Il giorno lun 23 nov 2026 alle ore 10:02 Referee <r@x.org> ha scritto:",
            "In data 23/11/2026 10:02, Referee ha scritto:",
            "Em seg., 23 de nov. de 2026 às 10:02, Referee <r@x.org> escreveu:",
            "Op ma 23 nov 2026 om 10:02 schreef Referee <r@x.org>:",
            "Den mån 23 nov. 2026 kl 10:02 skrev Referee <r@x.org>:",
            "Den 23.11.2026 10:02, skrev Referee:",
            "man. 23. nov. 2026 kl. 10.02 skrev Referee <r@x.org>:",
            "23 nov. 2026 kl. 10:02 skrev Referee <r@x.org>:",
            "ma 23.11.2026 klo 10.02 Referee <r@x.org> kirjoitti:",
            "Referee <r@x.org> kirjoitti:",
            "pon., 23 lis 2026 o 10:02 Referee <r@x.org> napisał(a):",
            "W dniu 23.11.2026 o 10:02, Referee napisał(a):",
            "W dniu 23 listopada 2026 10:02 użytkownik Referee <r@x.org> napisał:",
            "W dniu 23.11.2026 o 10:02, Referee pisze:",
            "po 23. 11. 2026 v 10:02 odesílatel Referee <r@x.org> napsal:",
            "Dne 23.11.2026 v 10:02 Referee napsal(a):",
            "пн, 23 нояб. 2026 г. в 10:02, Referee <r@x.org>:",
            "23.11.2026 10:02, Referee пишет:",
            "Referee написал(а):",
            "2026年11月23日(月) 10:02 Referee <r@x.org>:",
            "2026/11/23 10:02、Referee <r@x.org>のメール:",
            "Referee さんは書きました:",
            "Referee <r@x.org> 于2026年11月23日周一 10:02写道：",
            "在 2026年11月23日，10:02，Referee <r@x.org> 写道：",
            "2026년 11월 23일 (월) 오전 10:02, Referee <r@x.org>님이 작성:",
            "2017-11-24 16:32 GMT+01:00 Name <a@b.org>:",
            "Referee <referee@example.org>:",
            "Mon, 23 Nov 2026 10:02:00 +0100 от Referee <r@x.org>:",
            "23.11.2026, 10:02, \"Referee\" <r@x.org>:",
            "Referee <r@x.org> ezt írta (időpont: 2026. nov. 23., H, 10:02):",
            "Referee <r@x.org>, 23 Kas 2026 Pzt, 10:02 tarihinde şunu yazdı:",
            "Στις Δευ 23 Νοε 2026 στις 10:02, ο/η Referee <r@x.org> έγραψε:",
        ];
        for form in forms {
            let top = format!("{MOVE}\n\n{form}\n\n> Your move, Ann.\n> Example: pass\n");
            assert_eq!(strip(&top), MOVE, "top-posted under {form:?}");
            let bottom = format!("{form}\n> Your move, Ann.\n>\n\n{MOVE}\n");
            assert_eq!(strip(&bottom), MOVE, "bottom-posted under {form:?}");
        }
    }

    /// Forms certain enough to cut a top-posted reply even with the earlier message
    /// unquoted below them.
    #[test]
    fn attributions_that_cut_without_a_quote() {
        for form in [
            "On Mon, 23 Nov 2026 at 10:02, Referee <r@x.org> wrote:",
            "Am 23.11.2026 um 10:02 schrieb Referee:",
            "In data 23/11/2026 10:02, Referee ha scritto:",
            "ma 23.11.2026 klo 10.02 Referee <r@x.org> kirjoitti:",
            "пн, 23 нояб. 2026 г. в 10:02, Referee <r@x.org>:",
            "23.11.2026 10:02, Referee пишет:",
            "2026年11月23日(月) 10:02 Referee <r@x.org>:",
            "2017-11-24 16:32 GMT+01:00 Name <a@b.org>:",
            "man. 23. nov. 2026 kl. 10.02 skrev Referee <r@x.org>:",
        ] {
            let body = format!("{MOVE}\n\n{form}\n\nYour move, Ann.\nExample: pass\n");
            assert_eq!(strip(&body), MOVE, "{form:?}");
        }
        // Wrapped over two lines without an opening word, as Gmail writes in Finnish.
        let finnish = format!(
            "{MOVE}\n\nma 23.11.2026 klo 10.02 Referee of the Right of Way Club\n<referee@example.org> kirjoitti:\n\nYour move"
        );
        assert_eq!(strip(&finnish), MOVE);
        let date_first = format!(
            "{MOVE}\n\n2026-11-23 10:02 GMT+01:00 Referee of the Right of Way Club <\nreferee@example.org>:\n\nYour move"
        );
        assert_eq!(strip(&date_first), MOVE);
    }

    /// What a player writes as a move is never taken for anything else.
    #[test]
    fn move_lines_are_never_attributions_taglines_or_headers() {
        let lines = [
            "place E,NW at C5",
            "buy D4 with I",
            "buy D4 with I paying C",
            "discard Y,I",
            "discard C,V extra-garbage",
            "place NE,SW at E9; discard Y",
            "pass",
            "resign",
            "city C5",
            "On",
            "On C5:",
            "Le C5",
            "Den 5",
            "23 C5",
            "A7:",
            "place E,W at A7",
            "from: C5",
            "Sent",
            "x",
        ];
        for line in lines {
            assert!(!is_attribution(line, true), "{line:?}");
            assert!(!is_client_tagline(line), "{line:?}");
            assert!(!is_original_message_rule(line), "{line:?}");
            assert!(!is_closing_line(line), "{line:?}");
            let body = format!("{line}\n> quoted\n{line}\n\n{line}\n");
            assert_eq!(
                read_from_ann(&body).move_text,
                format!("{line}\n{line}\n{line}"),
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_line_starting_with_on_is_kept_when_not_an_attribution() {
        assert_eq!(
            strip("On second thought:\nplace E,NW at C5"),
            "On second thought:\nplace E,NW at C5"
        );
        // Joined with the next line it would read as one; a line ending in a colon
        // is complete, and a line starting its own attribution is not joined.
        assert_eq!(
            strip("On second thought:\nBo wrote:\nplace E,NW at C5"),
            "On second thought:\nBo wrote:\nplace E,NW at C5"
        );
        assert_eq!(
            strip("On Monday I am away\nOn Mon, 23 Nov 2026, Referee <r@x.org> wrote:\n> x"),
            "On Monday I am away"
        );
    }

    #[test]
    fn outlook_header_block_is_cut() {
        let body = "place NE,SW at E9\n\nFrom: Referee <r@example.org>\nSent: Monday, 23 November 2026 10:02\nTo: Ann\nSubject: Turn 13\n\nold notice";
        assert_eq!(strip(body), "place NE,SW at E9");
        let body =
            "place NE,SW at E9\n-----Original Message-----\nFrom: Referee\nSent: today\nSubject: x";
        assert_eq!(strip(body), "place NE,SW at E9");
        let body = "place NE,SW at E9\n________________________________\nVon: Referee\nGesendet: Montag\nAn: Ann\nBetreff: Zug 13\nalt";
        assert_eq!(strip(body), "place NE,SW at E9");
        let body = "place NE,SW at E9\n\n*From:* Referee\n*Date:* Mon\n*Subject:* x\n";
        assert_eq!(strip(body), "place NE,SW at E9");
    }

    #[test]
    fn header_blocks_in_many_languages_and_orders() {
        let blocks = [
            "De : Referee <r@x.org>\nEnvoyé : lundi 23 novembre 2026 10:02\nÀ : Élodie\nObjet : Tour 16",
            "De : Referee <r@x.org>\nEnvoyé le : lundi 23 novembre 2026 10:02\nÀ : Élodie\nObjet : Tour 16",
            "Fra: Referee <r@x.org>\nSendt: 23. november 2026 10:02\nTil: Mette\nEmne: Tur 16",
            "Fra: Referee <r@x.org>\nDato: 23. november 2026 kl. 10.02\nTil: Mette\nEmne: Tur 16",
            "Från: Referee <r@x.org>\nSkickat: den 23 november 2026 10:02\nTill: Björn\nÄmne: Drag 13",
            "От: Referee <r@x.org>\nОтправлено: 23 ноября 2026 г. 10:02\nКому: Иван\nТема: Ход 12",
            "От: Referee <r@x.org>\nДата: 23 ноября 2026 г., 10:02\nКому: Иван\nТема: Ход 12",
            "De: Referee <r@x.org>\nEnviado: lunes, 23 de noviembre de 2026 10:02\nPara: Lucía\nAsunto: Turno 12",
            "Da: Referee <r@x.org>\nInviato: lunedì 23 novembre 2026 10:02\nA: Giulia\nOggetto: Turno 12",
            "De: Referee <r@x.org>\nEnviado: segunda-feira, 23 de novembro de 2026 10:02\nPara: João\nAssunto: Turno 12",
            "Van: Referee <r@x.org>\nVerzonden: maandag 23 november 2026 10:02\nAan: Sanne\nOnderwerp: Beurt 12",
            "Od: Referee <r@x.org>\nWysłano: poniedziałek, 23 listopada 2026 10:02\nDo: Kasia\nTemat: Tura 12",
            "Od: Referee <r@x.org>\nOdesláno: pondělí 23. listopadu 2026 10:02\nKomu: Petr\nPředmět: Tah 12",
            "Lähettäjä: Referee <r@x.org>\nLähetetty: maanantai 23. marraskuuta 2026 10.02\nVastaanottaja: Mikko\nAihe: Vuoro 12",
            "差出人: Referee <r@x.org>\n送信日時: 2026年11月23日 10:02\n宛先: Yuki\n件名: Turn 12",
            "发件人: Referee <r@x.org>\n发送时间: 2026年11月23日 10:02\n收件人: Wei\n主题: Turn 12",
            // Hotmail and GMX put the date first.
            "Date: Mon, 23 Nov 2026 10:02:00 +0100\nSubject: Turn 12\nFrom: referee@x.org\nTo: ann@hotmail.com",
            "Gesendet: Montag, 23. November 2026 um 10:02 Uhr\nVon: \"Referee\" <r@x.org>\nAn: dieter@gmx.de\nBetreff: Zug 12",
        ];
        for block in blocks {
            let body = format!("{MOVE}\n\n{block}\n\nYour move, Ann.\n");
            assert_eq!(strip(&body), MOVE, "{block:?}");
            for rule in ["________________________________", "=====", "-----"] {
                let body = format!("{MOVE}\n\n{rule}\n{block}\n\nYour move, Ann.\n");
                assert_eq!(strip(&body), MOVE, "{rule} {block:?}");
            }
        }
    }

    #[test]
    fn a_from_line_alone_is_not_a_header_block() {
        assert_eq!(
            strip("from: C5\nplace E,NW at C5"),
            "from: C5\nplace E,NW at C5"
        );
        assert_eq!(
            strip("From: Ann\nSubject: my move\nplace E,NW at C5"),
            "From: Ann\nSubject: my move\nplace E,NW at C5"
        );
    }

    #[test]
    fn underscore_rule_alone_is_kept() {
        assert_eq!(
            strip("place E,NW at C5\n__________\nbuy D4"),
            "place E,NW at C5\n__________\nbuy D4"
        );
    }

    #[test]
    fn titled_rules_in_many_languages_end_the_move() {
        for rule in [
            "-----Original Message-----",
            "-------- Original Message --------",
            "----- Forwarded Message -----",
            "---------- Forwarded message ---------",
            "-----Ursprüngliche Nachricht-----",
            "-------- Original-Nachricht --------",
            "-------- Message d'origine --------",
            "-----Oprindelig besked-----",
            "-------- Oprindelig besked --------",
            "-----Opprinnelig melding-----",
            "-----Ursprungligt meddelande-----",
            "-----Alkuperäinen viesti-----",
            "-----Mensaje original-----",
            "-----Messaggio originale-----",
            "-----Mensagem original-----",
            "-----Oorspronkelijk bericht-----",
            "-----Wiadomość oryginalna-----",
            "-----Původní zpráva-----",
            "-----Исходное сообщение-----",
            "-------- Пересылаемое сообщение --------",
            "------------------\u{a0}原始邮件\u{a0}------------------",
            "------- Original Message -------",
            "Begin forwarded message:",
        ] {
            let body = format!("{MOVE}\n\n{rule}\nold text\n");
            assert_eq!(strip(&body), MOVE, "{rule:?}");
        }
    }

    #[test]
    fn signature_and_everything_after_it_is_dropped_and_listed() {
        let extracted = read("place E,NW at C5\n-- \nAnn\nbuy D4");
        assert_eq!(extracted.move_text, "place E,NW at C5");
        assert_eq!(extracted.dropped, ["Ann", "buy D4"]);
        assert_eq!(strip("place E,NW at C5\n--\nAnn"), "place E,NW at C5");
        // Only the exact separator counts.
        assert_eq!(
            strip("place E,NW at C5\n--- \nbuy D4"),
            "place E,NW at C5\n---\nbuy D4"
        );
        // The signature ends at the quote, and is at most 10 lines long.
        let long: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let extracted = read(&format!("{MOVE}\n-- \n{long}> quoted\n"));
        assert_eq!(extracted.move_text, MOVE);
        assert_eq!(extracted.dropped.len(), 10);
        let extracted = read(&format!(
            "{MOVE}\n-- \nAnn\n\nOn Mon, 23 Nov 2026, Referee wrote:\nold\n"
        ));
        assert_eq!(extracted.dropped, ["Ann"]);
    }

    #[test]
    fn client_taglines_end_the_move() {
        for tagline in [
            "Sent from my iPhone",
            "Sent from my Samsung Galaxy smartphone.",
            "Get Outlook for Android",
            "Get Outlook for iOS<https://aka.ms/o0ukef>",
            "Sent from Yahoo Mail on Android",
            "Sent from Mail for Windows",
            "Sent with Proton Mail secure email.",
            "Von meinem iPhone gesendet",
            "Gesendet von Outlook für Android",
            "Gesendet von Outlook für Android<https://aka.ms/AAb9ysg>",
            "Envoyé de mon iPad",
            "Envoyé à partir de Outlook pour iOS",
            "Télécharger Outlook pour Android<https://aka.ms/ghei36>",
            "Enviado desde mi iPhone",
            "Enviado do meu iPhone",
            "Inviato da iPhone",
            "Отправлено с iPhone",
            "Отправлено из мобильной Почты Mail.ru",
            "Wysłane z iPhone'a",
            "Lähetetty iPhonesta",
            "Skickat från min iPhone",
            "Sendt fra min iPhone",
            "Verzonden vanaf mijn iPhone",
            "Odesláno z iPhonu",
            "iPhoneから送信",
            "发自我的iPhone",
            "iPhone에서 보냄",
        ] {
            let body = format!("place E,NW at C5\n\n{tagline}\n\n> On Mon, Referee wrote:\n> x");
            let extracted = read(&body);
            assert_eq!(extracted.move_text, "place E,NW at C5", "{tagline:?}");
            assert_eq!(extracted.dropped, [tagline], "{tagline:?}");
        }
        // A longer line that merely starts the same way is the player's.
        let long = "Sent via the referee: place E,NW at C5 because the other cell is blocked by Bo";
        assert_eq!(strip(long), long);
        // Header labels are not taglines.
        assert!(!is_client_tagline("Lähetetty: 23.11.2026"));
        assert!(!is_client_tagline("Gesendet: Montag"));
    }

    #[test]
    fn end_markers_end_the_move() {
        for marker in [
            "end", "END", "End", "--end--", "--END--", "#end", "#END", ".", "  end  ",
        ] {
            let body = format!("place E,NW at C5\n{marker}\nthanks, bye");
            let extracted = read(&body);
            assert_eq!(extracted.move_text, "place E,NW at C5", "marker {marker:?}");
            assert!(extracted.dropped.is_empty(), "marker {marker:?}");
        }
        assert_eq!(
            strip("place E,NW at C5\nthe end\n"),
            "place E,NW at C5\nthe end"
        );
    }

    #[test]
    fn sign_off_paragraphs_are_dropped_and_listed() {
        let cases: [(&str, &[&str]); 14] = [
            ("Kind regards,\nAnn", &["Kind regards,", "Ann"]),
            ("Thanks!", &["Thanks!"]),
            ("Thanks!\n\nAnn", &["Thanks!", "Ann"]),
            ("Cheers", &["Cheers"]),
            (
                "Thanks for the game!\n- Ann",
                &["Thanks for the game!", "- Ann"],
            ),
            (
                "Mit freundlichen Grüßen\nAnn Archer",
                &["Mit freundlichen Grüßen", "Ann Archer"],
            ),
            (
                "Cordialement,\nAnn Archer\nann.archer@example.org",
                &["Cordialement,", "Ann Archer", "ann.archer@example.org"],
            ),
            ("Saludos", &["Saludos"]),
            ("Pozdrawiam\nAnn", &["Pozdrawiam", "Ann"]),
            ("С уважением,\nAnn Archer", &["С уважением,", "Ann Archer"]),
            ("よろしくお願いします。", &["よろしくお願いします。"]),
            ("Ann", &["Ann"]),
            (
                "Ann Archer\nRight of Way Club, Leeds\n+44 113 496 0000",
                &["Ann Archer", "Right of Way Club, Leeds", "+44 113 496 0000"],
            ),
            (
                "Best,\nAnn\n\nSent from my iPhone",
                &["Best,", "Ann", "Sent from my iPhone"],
            ),
        ];
        for (tail, dropped) in cases {
            let body = format!("{MOVE}\nbuy D4 with I\n\n{tail}\n\n> Your move\n");
            let extracted = read_from_ann(&body);
            assert_eq!(
                extracted.move_text,
                format!("{MOVE}\nbuy D4 with I"),
                "{tail:?}"
            );
            assert_eq!(extracted.dropped, dropped, "{tail:?}");
        }
    }

    #[test]
    fn sign_offs_that_might_hold_a_move_are_kept() {
        for tail in [
            // Not after a blank line.
            "\nThanks!",
            // A move-like line in the paragraph.
            "\n\nThanks\npass",
            "\n\nThanks\ndiscard Y,I",
            "\n\nThanks,\nplace NE,SW at E9",
            "\n\nCheers\nBuy D4",
            "\n\nThanks; pass",
            "\n\nThanks, place NE,SW at E9",
            // Too long a paragraph, or too long a line.
            "\n\nThanks\nAnn\nAnn\nAnn\nAnn",
            "\n\nThanks for the game, I really enjoyed the last turns very much",
            // Not a closing phrase, not the sender's name.
            "\n\nBo",
            "\n\nThanksgiving",
        ] {
            let body = format!("{MOVE}{tail}");
            let extracted = read_from_ann(&body);
            let expected: Vec<&str> = body.lines().filter(|l| !l.is_empty()).collect();
            assert_eq!(extracted.move_text, expected.join("\n"), "{tail:?}");
            assert!(extracted.dropped.is_empty(), "{tail:?}");
        }
        // The only paragraph is never dropped, even if it is a closing phrase.
        let extracted = read_from_ann("Thanks!\n");
        assert_eq!(extracted.move_text, "Thanks!");
        assert!(extracted.dropped.is_empty());
        // With no sender known, a name is not recognised.
        assert_eq!(strip(&format!("{MOVE}\n\nAnn")), format!("{MOVE}\nAnn"));
    }

    /// The issue's example: a turn is read whole; nothing is cut from it.
    #[test]
    fn a_turn_with_a_bad_last_line_is_read_whole() {
        let extracted =
            read_from_ann("place E,W at A7\ndiscard C,V extra-garbage\n\n> Your move\n");
        assert_eq!(
            extracted.move_text,
            "place E,W at A7\ndiscard C,V extra-garbage"
        );
        assert!(extracted.dropped.is_empty());
    }

    #[test]
    fn token_line_is_dropped_and_read() {
        for line in [
            "pbem-token: 7QX2M4P9KD",
            "PBEM-TOKEN:7QX2M4P9KD",
            "  Pbem-Token :   7QX2M4P9KD  ",
            "pbem token: 7QX2M4P9KD",
        ] {
            let extracted = read(&format!("{line}\nplace E,NW at C5"));
            assert_eq!(extracted.move_text, "place E,NW at C5", "{line:?}");
            assert_eq!(extracted.token.as_deref(), Some("7QX2M4P9KD"), "{line:?}");
        }
        let malformed = read("pbem-token: no!\nplace E,NW at C5");
        assert_eq!(malformed.move_text, "place E,NW at C5");
        assert_eq!(malformed.token, None);
    }

    #[test]
    fn quoted_token_is_found_when_the_player_wrote_none() {
        let extracted = read("place E,NW at C5\n\n> pbem-token: AbC123xyz\n");
        assert_eq!(extracted.move_text, "place E,NW at C5");
        assert_eq!(extracted.token.as_deref(), Some("AbC123xyz"));
    }

    #[test]
    fn blank_lines_and_trailing_whitespace_are_removed() {
        assert_eq!(
            strip("\n\n  \nplace E,NW at C5   \n\n  buy D4\t\n\n"),
            "place E,NW at C5\n  buy D4"
        );
    }

    #[test]
    fn invisible_characters_are_cleaned() {
        assert_eq!(
            strip("\u{feff}place\u{a0}E,NW at\u{200b} C5\n\u{a0}\n"),
            "place E,NW at C5"
        );
        assert_eq!(strip("place E,NW at C5\n\u{a0}end"), "place E,NW at C5");
    }

    #[test]
    fn several_actions_keep_their_separators() {
        assert_eq!(
            strip("place NE,SW at E9; discard Y\r\nbuy D4 with I\r\n"),
            "place NE,SW at E9; discard Y\nbuy D4 with I"
        );
    }

    #[test]
    fn flowed_soft_breaks_are_joined_but_not_the_signature() {
        assert_eq!(
            unflow("place NE,SW at E9; \ndiscard Y\n-- \nAnn", false),
            "place NE,SW at E9; discard Y\n-- \nAnn"
        );
        assert_eq!(
            unflow("place NE,SW at E9;  \ndiscard Y", true),
            "place NE,SW at E9; discard Y"
        );
        assert_eq!(
            unflow(" From here\n> a \n> b\nc", false),
            "From here\n> a b\nc"
        );
    }

    #[test]
    fn html_blocks_become_lines_and_blockquotes_become_quotes() {
        let html = "<div dir=\"ltr\"><div>place E,NW at C5</div><div>buy D4 with I</div></div>\
                    <div class=\"gmail_quote\"><blockquote>Your move<br>Ann</blockquote></div>after";
        assert_eq!(
            html_body_to_text(html),
            "place E,NW at C5\nbuy D4 with I\n> Your move\n> Ann\nafter"
        );
        assert_eq!(
            extract(&html_body_to_text(html), true, false, &Names::default()).move_text,
            "place E,NW at C5\nbuy D4 with I\nafter"
        );
        assert_eq!(
            html_body_to_text("<p>a&nbsp;b</p><p>&nbsp;</p><p>c</p>"),
            "a\u{a0}b\n\nc"
        );
        assert_eq!(html_body_to_text("a<br><br>b"), "a\n\nb");
        // Lines of preformatted text stay lines; a tag's own newlines do not count.
        assert_eq!(
            html_body_to_text("<p>x</p><pre\nclass=\"moz-signature\">-- \nAnn\n</pre>\ny\nz"),
            "x\n--\nAnn\ny z"
        );
        // Paragraphs are separated by a blank line, Outlook's lines are not.
        assert_eq!(
            html_body_to_text("<p>a</p><p>b</p><p class=MsoNormal>c</p><p class=MsoNormal>d</p>"),
            "a\n\nb\nc\nd"
        );
        assert_eq!(
            html_body_to_text("<div>a</div><div><br></div><div>b</div>"),
            "a\n\nb"
        );
        assert_eq!(
            html_body_to_text("<div>a</div>\n<div>&nbsp;</div>\n<div>b</div>"),
            "a\n\nb"
        );
    }

    /// Mail.ru and Yandex write a bare attribution right above an HTML blockquote.
    #[test]
    fn bare_attribution_above_an_html_blockquote() {
        for html in [
            "<p>place E,NW at C5</p><p>Thanks,<br>Ann</p><br><br>Mon, 23 Nov 2026 10:02:00 +0100 от Referee &lt;r@x.org&gt;:<br>\n<blockquote style=\"border-left:1px solid #0857A6\"><div>Your move</div></blockquote>",
            "<p>place E,NW at C5<br /><br />Thanks,<br />Ann<br /><br />23.11.2026, 10:02, \"Referee\" &lt;<a href=\"mailto:r@x.org\">r@x.org</a>&gt;:</p><blockquote> Your move<br /> Example: pass</blockquote>",
        ] {
            let names = Names::of(Some("Ann Archer"), Some("ann@x.org"));
            let extracted = extract(&html_body_to_text(html), true, false, &names);
            assert_eq!(extracted.move_text, "place E,NW at C5", "{html}");
            assert_eq!(extracted.dropped, ["Thanks,", "Ann"], "{html}");
        }
    }

    #[test]
    fn the_body_is_cut_at_a_line_end() {
        assert_eq!(cap_text("abc\ndef", 10), ("abc\ndef", false));
        assert_eq!(cap_text("abc\ndef", 5), ("abc", true));
        assert_eq!(cap_text("abcdef", 3), ("", true));
        // Never inside a character.
        assert_eq!(cap_text("é\néé", 4), ("é", true));
    }

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

    // Large inputs. Their speed is measured by hand, not here (no test asserts time):
    // these check what is kept when every line is the worst kind for some rule.

    #[test]
    fn ten_thousand_junk_lines_stop_at_the_line_limit() {
        let junk: String = (0..10_000).map(|n| format!("junk line {n}\n")).collect();
        let extracted = read(&format!("{MOVE}\n{junk}"));
        assert!(extracted.truncated);
        let lines: Vec<&str> = extracted.move_text.lines().collect();
        assert_eq!(lines.len(), MAX_OWN_LINES);
        assert_eq!(lines[0], MOVE);
        assert_eq!(lines[1], "junk line 0");
    }

    #[test]
    fn a_hundred_thousand_rule_lines_are_read_to_the_limits() {
        let rules = "__________\n".repeat(100_000);
        let extracted = read(&format!("{MOVE}\n{rules}"));
        assert!(extracted.truncated);
        assert_eq!(extracted.move_text.lines().count(), MAX_OWN_LINES);
        // Long rules, each looking ahead for a header block, all quoted but one.
        let rules = "> ____________________\n".repeat(100_000);
        let extracted = read(&format!("{MOVE}\n____________________\n{rules}"));
        assert_eq!(extracted.move_text, format!("{MOVE}\n____________________"));
        // Cut inside the quote below the player's text: not truncated.
        assert!(!extracted.truncated);
    }

    #[test]
    fn ten_thousand_quoted_lines_above_a_bottom_posted_move() {
        let quote = "> x\n".repeat(10_000);
        let extracted = read_from_ann(&format!(
            "On Mon, 23 Nov 2026, Referee wrote:\n{quote}\n{MOVE}\n\nThanks!\n"
        ));
        assert_eq!(extracted.move_text, MOVE);
        assert_eq!(extracted.dropped, ["Thanks!"]);
        assert!(!extracted.truncated);
        // A quote longer than what is read hides the move: truncated, not applied.
        let quote = "> a longer quoted line\n".repeat(10_000);
        let extracted = read(&format!("{quote}\n{MOVE}\n"));
        assert_eq!(extracted.move_text, "");
        assert!(extracted.truncated);
    }

    #[test]
    fn lines_that_each_start_a_look_ahead_are_read_to_the_limits() {
        // Attributions and blank lines, alternating: each is dropped on its own.
        let body = "Referee <r@x.org>:\n\n> q\n".repeat(2_000);
        let extracted = read(&format!("{body}{MOVE}"));
        assert_eq!(extracted.move_text, MOVE);
        // Lines that could start a wrapped attribution, each joined with the next.
        let body = "On a\n".repeat(20_000);
        let extracted = read(&body);
        assert!(extracted.truncated);
        assert_eq!(extracted.move_text.lines().count(), MAX_OWN_LINES);
        // Header labels, never three kinds together.
        let body = "From: a\nTo: b\n".repeat(10_000);
        let extracted = read(&body);
        assert!(extracted.truncated);
        assert_eq!(extracted.move_text.lines().count(), MAX_OWN_LINES);
        // Sign-off candidates: only the last few lines are looked at.
        let body = format!("{MOVE}\n{}", "\nThanks\n".repeat(10_000));
        let extracted = read(&body);
        assert!(extracted.truncated);
        // One very long line.
        let extracted = read(&"x".repeat(1_000_000));
        assert_eq!(extracted.move_text, "");
        assert!(extracted.truncated);
    }

    #[test]
    fn html_with_many_tags_is_converted_whole() {
        let html = format!(
            "<div>{MOVE}</div>{}<blockquote>{}</blockquote>",
            "<div></div>".repeat(100_000),
            "<p>old</p>".repeat(100_000)
        );
        let text = html_body_to_text(&html);
        let extracted = extract(&text, true, false, &Names::default());
        assert_eq!(extracted.move_text, MOVE);
        assert!(!extracted.truncated);
    }

    // Reading against the notice a reply answers.

    /// A turn notice, as the referee sends it.
    const NOTICE: &str = r"Ann, it is your turn (turn 3).

Bo played turn 2:

    place N,S at D5

What it did:
  - Bo placed I (N,S) at D5: cost 1, profit 2, net +1

       __      __
    __/C4\__/D4\__
   /B4\__/C5\__/E4\
   \__/  \__/  \__/

Reply to this mail with your whole turn at the top, for example:

    place E,NW at C5

Other replies: `moves` lists your moves; `undo` asks to take back your last
move; a line `note: ...` goes to the others.
";

    /// A refusal, which quotes what the player sent.
    const REFUSAL: &str = "Ann, there is no cell `Z99` on this board.

You sent:

    place E,W at A7
    discard C,V extra-garbage

A move that is legal for you right now:

    place E,NW at C5

Reply to this mail with your corrected turn at the top: the reference in the
subject proves the reply is yours.
";

    /// What Ann's move is in these tests, on two lines.
    const TURN: &str = "place E,NW at C5\nbuy D4 with I";

    fn sent(text: &str) -> Notice {
        Notice::of(&SentNotice {
            text: text.to_string(),
            from_name: Some("Referee".into()),
            from_address: Some("Referee@Example.org".into()),
        })
    }

    /// Reads Ann's reply to `notice`, the notice known.
    fn answering(body: &str, notice: &str) -> Extracted {
        let names = Names::of(Some("Ann Archer"), Some("ann.archer@example.org"));
        extract_answering(body, false, false, &names, Some(&sent(notice)))
    }

    fn prefixed(prefix: &str, text: &str) -> String {
        text.lines()
            .map(|line| format!("{prefix}{line}").trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The notice as clients quote it: marked (`> `, `> > `, `| `), unmarked,
    /// indented, re-wrapped at 40 columns, or with each paragraph on one line.
    fn quoting_styles(notice: &str) -> Vec<(&'static str, String)> {
        let words: Vec<&str> = notice.split_whitespace().collect();
        let mut rewrapped = vec![String::new()];
        for word in words {
            let last = rewrapped.last_mut().expect("a line");
            if !last.is_empty() && last.len() + word.len() >= 40 {
                rewrapped.push(word.to_string());
            } else {
                if !last.is_empty() {
                    last.push(' ');
                }
                last.push_str(word);
            }
        }
        let joined: Vec<String> = notice
            .split("\n\n")
            .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        vec![
            ("quoted", prefixed("> ", notice)),
            ("quoted twice", prefixed("> > ", notice)),
            ("bar", prefixed("| ", notice)),
            ("unmarked", notice.trim_end().to_string()),
            ("indented", prefixed("    ", notice)),
            ("re-wrapped", prefixed("> ", &rewrapped.join("\n"))),
            ("joined", joined.join("\n\n")),
        ]
    }

    #[test]
    fn the_notice_is_its_quote_in_any_quoting_style() {
        // An attribution no list knows: the sender's name and a date.
        let attribution = "Referee a répondu le 23/11/2026 à 10:02";
        for (style, quote) in quoting_styles(NOTICE) {
            let top = answering(&format!("{TURN}\n\n{attribution}\n\n{quote}\n"), NOTICE);
            assert_eq!(top.move_text, TURN, "top-posted, {style}");
            assert!(top.dropped.is_empty(), "top-posted, {style}");
            let bottom = answering(&format!("{attribution}\n{quote}\n\n{TURN}\n"), NOTICE);
            assert_eq!(bottom.move_text, TURN, "bottom-posted, {style}");
            // Without the notice, the unmarked quote is the player's text.
            if !style.contains("quoted") {
                let blind = read(&format!("{TURN}\n\n{attribution}\n\n{quote}\n"));
                assert_ne!(blind.move_text, TURN, "{style}");
            }
        }
    }

    #[test]
    fn attributions_right_above_the_quote_are_dropped_unlisted() {
        for attribution in [
            "==== Message du 23/11/2026 10:02 ====",
            "-------- Message d'origine --------",
            "________________________________",
            "from: Referee <referee@example.org>",
            "От: Referee\nОтправлено: 23 ноября 2026 г. 10:02\nКому: Ann",
            "On Mon, Nov 23, 2026 at 10:02 AM Referee of the Right of Way Club <\nreferee@example.org> wrote",
            "Op ma 23 nov 2026 om 10:02 schreef Referee van de Right of Way-club uit Utrecht <\nreferee@example.org>:",
            "Il giorno lun 23 nov 2026 alle ore 10:02 Referee of the Right of Way Club <\nreferee@example.org> ha scritto:",
            "Referee a répondu le 23/11/2026 à 10:02",
            "Referee wrote:",
        ] {
            for quote in [prefixed("> ", NOTICE), NOTICE.to_string()] {
                let body = format!("{TURN}\n\nThanks!\n\n{attribution}\n\n{quote}\n");
                let extracted = answering(&body, NOTICE);
                assert_eq!(extracted.move_text, TURN, "{attribution:?}");
                assert_eq!(extracted.dropped, ["Thanks!"], "{attribution:?}");
            }
        }
    }

    /// What the player writes right above the quote is theirs, unless it is plainly an
    /// attribution: a move, a date of their own, a note, a label with a cell.
    #[test]
    fn the_players_lines_right_above_the_quote_are_kept() {
        for line in [
            "pass",
            "buy D4 with I",
            "place E,W at A7; discard C",
            "away until 2026-12-01",
            "from: C5",
            "note: mail me at referee@example.org",
            "To the referee: sorry for the delay",
            "Ann Archer <ann.archer@example.org>",
            "--end",
        ] {
            for quote in [prefixed("> ", NOTICE), NOTICE.to_string()] {
                let body = format!("{TURN}\n{line}\n\n{quote}\n");
                let extracted = answering(&body, NOTICE);
                assert_eq!(extracted.move_text, format!("{TURN}\n{line}"), "{line:?}");
            }
        }
    }

    /// A player who copies the example, or pastes a line of the notice, is not quoting
    /// it: a quote begins where the notice begins and runs over two of its lines.
    #[test]
    fn a_move_copied_from_the_notice_is_not_its_quote() {
        for body in [
            "place E,NW at C5",
            "place E,NW at C5\nplace N,S at D5",
            "Ann, it is your turn (turn 3).\nplace E,NW at C5",
            "Reply to this mail with your whole turn at the top, for example: place E,NW at C5",
        ] {
            let extracted = answering(body, NOTICE);
            assert_eq!(extracted.move_text, body, "{body:?}");
            let quoted = format!("{body}\n\n> {}", NOTICE.replace('\n', "\n> "));
            assert_eq!(answering(&quoted, NOTICE).move_text, body, "{body:?}");
        }
    }

    /// A refusal quotes the refused turn; a corrected turn written with the same lines,
    /// above or below the quote, is read whole, never taken for part of the quote.
    #[test]
    fn a_corrected_turn_that_repeats_the_refused_lines_is_read_whole() {
        let attribution = "On Mon, 23 Nov 2026 at 10:02, Referee <referee@example.org> wrote:";
        for turn in [
            "place E,W at A7\ndiscard C,V",
            "place E,W at A7\ndiscard C,V extra-garbage",
            "place E,NW at C5",
        ] {
            for (style, quote) in quoting_styles(REFUSAL) {
                let top = answering(&format!("{turn}\n\n{attribution}\n\n{quote}\n"), REFUSAL);
                assert_eq!(top.move_text, turn, "top-posted, {style}");
                if style == "unmarked" || style == "indented" || style == "bar" {
                    // Text below an unmarked quote is more of the quote, whatever it is
                    // (as below an Outlook header block); a turn there is refused.
                    continue;
                }
                let bottom = answering(&format!("{attribution}\n{quote}\n\n{turn}\n"), REFUSAL);
                assert_eq!(bottom.move_text, turn, "bottom-posted, {style}");
            }
        }
    }

    /// With the notice known, answers between quoted parts are still read, even one
    /// that repeats the notice's own words.
    #[test]
    fn answers_between_quoted_parts_are_read_with_the_notice_known() {
        let quote: Vec<String> = NOTICE.lines().map(|l| format!("> {l}")).collect();
        let (head, tail) = quote.split_at(17);
        for answer in ["pass", "place E,NW at C5", "    place E,NW at C5"] {
            let body = format!(
                "On Mon, 23 Nov 2026, Referee wrote:\n{}\n{answer}\n{}\n",
                head.join("\n"),
                tail.join("\n")
            );
            assert_eq!(answering(&body, NOTICE).move_text, answer, "{body}");
        }
    }

    /// A notice line of ours may start with `>` where a long line was wrapped (the
    /// desert kingdom's legend): only marks beyond the notice's own count as quoting.
    #[test]
    fn a_notice_line_that_starts_with_a_quote_mark_is_still_the_notice() {
        let notice = "Ann, it is your turn (turn 3).\n\nx a city the barbarians destroyed,\n> where they enter (until a tile lies face down).\n\nReply to this mail with your whole turn at the top.\n";
        for quote in [notice.to_string(), prefixed("> ", notice)] {
            let top = answering(&format!("{TURN}\n\nReferee wrote\n\n{quote}"), notice);
            assert_eq!(top.move_text, TURN, "{quote}");
            let bottom = answering(&format!("Referee wrote:\n{quote}\n{TURN}\n"), notice);
            assert_eq!(bottom.move_text, TURN, "{quote}");
        }
    }

    #[test]
    fn an_unmarked_quote_ends_a_top_posted_turn() {
        let body = format!("{TURN}\n\n{NOTICE}\n\nFrom: Bo\nmore of the thread\n");
        assert_eq!(answering(&body, NOTICE).move_text, TURN);
        // And a bottom-posted one begins below it.
        let body = format!("==== Message du 23/11/2026 ====\n{NOTICE}\n{TURN}\n");
        assert_eq!(answering(&body, NOTICE).move_text, TURN);
    }

    #[test]
    fn greetings_are_dropped_and_listed() {
        for greeting in [
            "Hi,",
            "Hi",
            "Hello referee!",
            "Hi Bob... I mean referee,",
            "Dear Referee,",
            "Good morning, referee.",
            "Hallo zusammen,",
            "Bonjour à tous,",
            "Ciao!",
            "Hola árbitro:",
            "Hej hej",
            "Привет!",
            "Cześć,",
            "こんにちは、レフェリー",
        ] {
            for gap in ["\n", "\n\n"] {
                let extracted = read_from_ann(&format!("{greeting}{gap}{TURN}\n\nThanks!\n"));
                assert_eq!(extracted.move_text, TURN, "{greeting:?}");
                assert_eq!(extracted.dropped, [greeting, "Thanks!"], "{greeting:?}");
            }
        }
    }

    #[test]
    fn greetings_that_might_hold_a_move_are_kept() {
        for first in [
            "Hey, pass",
            "Hello, place E,NW at C5",
            "Hi all, discard Y,I,",
            "Hi; pass",
            "Hello there my good friend how are you doing today,",
            "Highway E,NW at C5",
            "Dear me, I forgot what I wanted to play today and why,",
        ] {
            let body = format!("{first}\n{TURN}");
            assert_eq!(read_from_ann(&body).move_text, body, "{first:?}");
        }
        // A greeting alone is the message: it is not dropped.
        assert_eq!(read_from_ann("Hi!\n").move_text, "Hi!");
    }

    /// A paragraph right above the notice's quote with none of the marks of a move is a
    /// tagline of the player's own: left out and listed.
    #[test]
    fn a_tagline_of_the_players_own_right_above_the_quote() {
        let quote = prefixed("> ", NOTICE);
        let tagline = "Typed on a phone somewhere in Leeds, please forgive the brevity";
        let extracted = answering(&format!("{TURN}\n\n{tagline}\n\n{quote}\n"), NOTICE);
        assert_eq!(extracted.move_text, TURN);
        assert_eq!(extracted.dropped, [tagline]);
        // Not without the notice, and not when the paragraph could be a move, or is
        // all there is, or is not where the player's text ends.
        for (body, notice) in [
            (format!("{TURN}\n\n{tagline}\n\n{quote}\n"), None),
            (
                format!("{TURN}\n\nDiscard I then pass\n\n{quote}\n"),
                Some(NOTICE),
            ),
            (
                format!("{TURN}\n\nPass on the bidding please\n\n{quote}\n"),
                Some(NOTICE),
            ),
            (
                format!("{TURN}\n\nBuy the city tile at D4\n\n{quote}\n"),
                Some(NOTICE),
            ),
            (format!("{tagline}\n\n{quote}\n"), Some(NOTICE)),
            (
                format!("{TURN}\n\n{tagline}\n\n{quote}\n\npass\n"),
                Some(NOTICE),
            ),
        ] {
            let names = Names::of(Some("Ann Archer"), Some("ann.archer@example.org"));
            let notice = notice.map(sent);
            let extracted = extract_answering(&body, false, false, &names, notice.as_ref());
            assert!(extracted.dropped.is_empty(), "{body}");
            let own: Vec<&str> = body
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('>'))
                .collect();
            assert_eq!(extracted.move_text, own.join("\n"), "{body}");
        }
    }

    /// Finding the quote is bounded work whatever the message and the notice hold.
    #[test]
    fn matching_is_bounded_in_hostile_messages() {
        // The notice's first line, again and again: never a quote (one line of it).
        let body = format!(
            "{}{TURN}\n",
            "Ann, it is your turn (turn 3).\n".repeat(8_000)
        );
        let extracted = answering(&body, NOTICE);
        assert!(extracted.truncated);
        // A notice of one repeated word on one line, a reply of nothing else: every
        // start runs far, and the budget stops the search.
        let notice = "a ".repeat(2_000);
        let reply = "a a a a a a a a a a\n".repeat(3_000);
        let lines: Vec<String> = reply.lines().map(str::to_string).collect();
        assert_eq!(find_quote(&lines, &sent(&notice)), None);
        // The notice quoted many times over: the first quote is found.
        let body = format!("{TURN}\n\n{}", prefixed("> ", &NOTICE.repeat(60)));
        let extracted = answering(&body, NOTICE);
        assert_eq!(extracted.move_text, TURN);
    }
}
