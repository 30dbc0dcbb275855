//! Composing mail: a notice's words (rendered by the templates of `words`) built into
//! a threaded message with lettre, its board's picture and the game file beside them.

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart};
use lettre::Message;

use super::outgoing::Outgoing;
use super::transport::MailSettings;
use crate::mail::MailError;

/// One message to compose.
pub struct Draft<'a> {
    pub to_name: &'a str,
    pub to_address: &'a str,
    pub subject: String,
    pub body: String,
    /// Our Message-ID, without brackets.
    pub message_id: String,
    /// The message this one's thread hangs from, one the recipient has (their
    /// welcome to the game); `None` for a message that is itself a root.
    pub thread_root: Option<String>,
    /// The incoming message this answers, if any.
    pub answers: Option<&'a str>,
    /// What goes with the text (none for most mail).
    pub enclosed: Enclosed,
}

/// What a mail carries besides its text.
#[derive(Debug, Default)]
pub struct Enclosed {
    /// A file to attach (name, bytes): the signed game file, for audits.
    pub attachment: Option<(String, Vec<u8>)>,
    /// The board as this reader may see it, a PNG shown inline (the text names it as
    /// [`PICTURE_NAME`]).
    pub picture: Option<Vec<u8>>,
    /// A page to attach (name, HTML): the game's replay page, at its end.
    pub page: Option<(String, String)>,
}

/// The file name of a mail's board picture, as the text part names it.
pub const PICTURE_NAME: &str = "board.png";

/// Builds the message: plain text for every client, the same in an HTML `<pre>` so
/// that clients which show plain text in a proportional font still line the board up,
/// the board's picture (when given) shown above that text and kept beside both as an
/// inline part, and the game file attached when asked.
///
/// # Errors
/// An address that does not parse.
pub fn build(settings: &MailSettings, draft: Draft<'_>) -> Result<Outgoing, MailError> {
    let bad = |what: &str| MailError::Config(format!("{what} is not a usable mail address"));
    let from: Mailbox = settings
        .from_line()
        .parse()
        .map_err(|_| bad(&settings.from_line()))?;
    let to_address = draft
        .to_address
        .parse()
        .map_err(|_| bad(draft.to_address))?;
    let to = Mailbox::new(Some(draft.to_name.to_string()), to_address);
    let root = draft.thread_root.map(|root| format!("<{root}>"));
    let answers = draft.answers.map(|incoming| format!("<{incoming}>"));
    // An answer replies to the message it answers, anything else to the root.
    let in_reply_to = answers.clone().or_else(|| root.clone());
    let references: Vec<String> = root.into_iter().chain(answers).collect();
    // The picture's Content-ID is the message's own, so no two mails share one.
    let picture_id = format!("board.{}", draft.message_id);
    let Enclosed {
        attachment,
        picture,
        page,
    } = draft.enclosed;
    let image = match &picture {
        Some(_) => format!(
            "<p><img src=\"cid:{}\" alt=\"The board\" style=\"max-width: 100%; height: auto\"></p>",
            escape_html(&picture_id)
        ),
        None => String::new(),
    };
    let html = format!(
        "<html><body>{image}<pre style=\"font-family: monospace\">{}</pre></body></html>\n",
        escape_html(&draft.body)
    );
    let alternative = MultiPart::alternative_plain_html(draft.body.clone(), html);
    // text/plain and text/html as alternatives, and the picture beside them in one
    // multipart/related: the HTML shows it by its Content-ID, a text-only client lists
    // it as the board.png the text names.
    let content = match picture {
        Some(png) => {
            let kind =
                ContentType::parse("image/png").map_err(|e| MailError::Config(e.to_string()))?;
            MultiPart::related().multipart(alternative).singlepart(
                Attachment::new_inline_with_name(picture_id, PICTURE_NAME.to_string())
                    .body(png, kind),
            )
        }
        None => alternative,
    };
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(draft.subject)
        .message_id(Some(format!("<{}>", draft.message_id)))
        // The clock every date of pbem's comes from (PBEM_NOW sets it for a test).
        .date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(crate::mail::clock::now()));
    if let Some(in_reply_to) = in_reply_to {
        builder = builder
            .in_reply_to(in_reply_to)
            .references(references.join(" "));
    }
    let message = if attachment.is_none() && page.is_none() {
        builder.multipart(content)
    } else {
        let mut mixed = MultiPart::mixed().multipart(content);
        if let Some((name, bytes)) = attachment {
            let json = ContentType::parse("application/json")
                .map_err(|e| MailError::Config(e.to_string()))?;
            mixed = mixed.singlepart(Attachment::new(name).body(bytes, json));
        }
        if let Some((name, html)) = page {
            let kind = ContentType::parse("text/html; charset=utf-8")
                .map_err(|e| MailError::Config(e.to_string()))?;
            mixed = mixed.singlepart(Attachment::new(name).body(html, kind));
        }
        builder.multipart(mixed)
    }
    .map_err(|error| MailError::Config(format!("cannot build the message: {error}")))?;
    Ok(Outgoing {
        from: settings.from_address(),
        to: vec![draft.to_address.to_string()],
        message: String::from_utf8_lossy(&message.formatted()).into_owned(),
    })
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
