//! Replies to a pbem notice in the shapes real mail clients write them, for the tests
//! that feed mail to pbem: over SMTP on loopback (`mail`) and through postfix
//! (`postfix`).

/// What a reply needs of the notice it answers.
pub struct Notice<'a> {
    pub subject: &'a str,
    pub message_id: &'a str,
    pub references: &'a str,
    pub text: &'a str,
}

/// The referee the replies go to.
pub struct Referee<'a> {
    pub name: &'a str,
    pub address: &'a str,
}

/// The Date a client writes on the message `id`: a moment of 23 Nov 2026 from the
/// id, so every message has its own, as real messages do, and the same id always
/// gets the same.
pub fn sent_at(id: &str) -> String {
    let seconds = id.bytes().fold(0u32, |hash, byte| {
        hash.wrapping_mul(31).wrapping_add(u32::from(byte))
    }) % 86_400;
    format!(
        "Mon, 23 Nov 2026 {:02}:{:02}:{:02} +0000",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

pub fn quote(text: &str) -> String {
    text.lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Quoted-printable as RFC 2045 has it: '=', non-ASCII and a line's trailing space
/// escaped, lines soft-broken before 76 columns, CRLF line ends.
pub fn quoted_printable(text: &str) -> String {
    let mut out = String::new();
    for line in text.split('\n') {
        let mut encoded = String::new();
        let bytes = line.as_bytes();
        for (i, &byte) in bytes.iter().enumerate() {
            let last = i + 1 == bytes.len();
            let piece = if byte == b'='
                || !(byte == b' ' || byte.is_ascii_graphic())
                || (last && byte == b' ')
            {
                format!("={byte:02X}")
            } else {
                (byte as char).to_string()
            };
            if encoded.len() + piece.len() > 75 {
                out.push_str(&encoded);
                out.push_str("=\r\n");
                encoded.clear();
            }
            encoded.push_str(&piece);
        }
        out.push_str(&encoded);
        out.push_str("\r\n");
    }
    out
}

/// Gmail: multipart/alternative, reply on top, the notice quoted below.
pub fn gmail_reply(to: &Referee, notice: &Notice, from: &str, text: &str, id: &str) -> String {
    let html_move = text.replace('\n', "</div><div>");
    format!(
        "From: Player <{from}>\r\nTo: {name} <{referee}>\r\nSubject: Re: {subject}\r\n\
Message-ID: <{id}@mail.gmail.com>\r\nIn-Reply-To: <{mid}>\r\nReferences: {refs} <{mid}>\r\n\
Date: {date}\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/alternative; boundary=\"000000000000b1\"\r\n\r\n\
--000000000000b1\r\nContent-Type: text/plain; charset=\"UTF-8\"\r\n\r\n{text}\r\n\r\n\
On Mon, 23 Nov 2026 at 10:00, {name} <{referee}> wrote:\r\n\r\n{quoted}\r\n\r\n\
--000000000000b1\r\nContent-Type: text/html; charset=\"UTF-8\"\r\n\r\n\
<div dir=\"ltr\"><div>{html_move}</div></div><br><div class=\"gmail_quote\">On Mon, 23 Nov 2026 at 10:00, {name} wrote:<br>\
<blockquote class=\"gmail_quote\">{html_quote}</blockquote></div>\r\n--000000000000b1--\r\n",
        name = to.name,
        referee = to.address,
        date = sent_at(id),
        subject = notice.subject,
        mid = notice.message_id,
        refs = notice.references,
        quoted = quote(notice.text),
        html_quote = notice.text.replace('\n', "<br>"),
    )
}

/// Outlook: HTML only, quoted-printable, a sign-off, then the header block of the
/// notice.
pub fn outlook_reply(to: &Referee, notice: &Notice, from: &str, text: &str, id: &str) -> String {
    let body = format!(
        "<html><body><p>{}</p><p>Kind regards</p><div><hr><b>From:</b> {} &lt;{}&gt;<br>\
<b>Sent:</b> Monday, November 23, 2026 10:00<br><b>To:</b> {from}<br><b>Subject:</b> {}</div><pre>{}</pre></body></html>",
        text.replace('\n', "<br>"),
        to.name,
        to.address,
        notice.subject,
        notice.text
    );
    format!(
        "From: Player <{from}>\r\nTo: {referee}\r\nSubject: RE: {subject}\r\n\
Message-ID: <{id}@outlook.example>\r\nIn-Reply-To: <{mid}>\r\nReferences: <{mid}>\r\n\
Date: {date}\r\nMIME-Version: 1.0\r\n\
Content-Type: text/html; charset=\"utf-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{qp}\r\n",
        referee = to.address,
        subject = notice.subject,
        mid = notice.message_id,
        qp = quoted_printable(&body),
        date = sent_at(id),
    )
}

/// Apple Mail: quoted-printable text/plain with a signature, threaded by the subject's
/// code only (no In-Reply-To, as when a client drops it).
pub fn apple_reply(to: &Referee, notice: &Notice, from: &str, text: &str, id: &str) -> String {
    format!(
        "From: Player <{from}>\r\nTo: {referee}\r\nSubject: Re: {subject}\r\n\
Message-ID: <{id}@icloud.example>\r\nDate: {date}\r\nMIME-Version: 1.0 (Mac OS X Mail 16.0)\r\n\
Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{body}",
        referee = to.address,
        subject = notice.subject,
        date = sent_at(id),
        body = quoted_printable(&format!(
            "{text}\n\n-- \nSent from my Mac\n\n> On 23 Nov 2026, at 10:00, {} <{}> wrote:\n>\n{}",
            to.name,
            to.address,
            quote(notice.text)
        )),
    )
}

/// A new message (not a reply) with the player's token line; its Message-ID is
/// `<id@the sender's domain>`.
pub fn token_message(
    to: &Referee,
    tag: &str,
    token: &str,
    from: &str,
    text: &str,
    id: &str,
) -> String {
    let domain = from.rsplit_once('@').map_or("example.org", |(_, d)| d);
    format!(
        "From: {from}\r\nTo: {referee}\r\nSubject: {tag} my move\r\nMessage-ID: <{id}@{domain}>\r\n\
Date: {date}\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n{text}\r\npbem-token: {token}\r\n",
        referee = to.address,
        date = sent_at(id),
    )
}

/// Text as HTML writes it: `&`, `<` and `>` escaped.
pub fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A reply with one text part (plain or HTML, UTF-8, quoted-printable), threaded to
/// the notice it answers; `mailer` names the client in an `X-Mailer` header.
pub fn reply_with_body(
    notice: &Notice,
    from: &str,
    id: &str,
    mailer: &str,
    html: bool,
    body: &str,
) -> String {
    let domain = from.rsplit_once('@').map_or("example.org", |(_, d)| d);
    format!(
        "From: Player <{from}>\r\nSubject: Re: {subject}\r\nMessage-ID: <{id}@{domain}>\r\n\
In-Reply-To: <{mid}>\r\nReferences: {refs} <{mid}>\r\nDate: Mon, 23 Nov 2026 10:07:00 +0100\r\n\
X-Mailer: {mailer}\r\nMIME-Version: 1.0\r\nContent-Type: text/{kind}; charset=utf-8\r\n\
Content-Transfer-Encoding: quoted-printable\r\n\r\n{qp}",
        subject = notice.subject,
        mid = notice.message_id,
        refs = notice.references,
        kind = if html { "html" } else { "plain" },
        qp = quoted_printable(body),
    )
}

/// Gmail with its attribution as the client wrapped it (`attribution` holds the line
/// breaks): the move on top, then the attribution, then the notice quoted with `> `.
pub fn gmail_wrapped_reply(
    notice: &Notice,
    from: &str,
    text: &str,
    id: &str,
    attribution: &str,
) -> String {
    let body = format!("{text}\n\n{attribution}\n\n{}\n", quote(notice.text));
    reply_with_body(notice, from, id, "Gmail", false, &body)
}

/// An HTML reply that writes the English attribution without its colon and puts the
/// original below it in a bordered `<div>`, not a blockquote: nothing marks it quoted.
pub fn no_colon_unquoted_reply(
    to: &Referee,
    notice: &Notice,
    from: &str,
    text: &str,
    id: &str,
) -> String {
    let lines: String = text
        .lines()
        .map(|line| format!("<div>{}</div>", escape_html(line)))
        .collect();
    let body = format!(
        "<html><body>{lines}<div><br></div>\
<div>On Mon, Nov 23, 2026 at 10:00 AM {} &lt;{}&gt; wrote</div>\
<div style=\"border-left:1px solid #ccc;padding-left:8px\"><pre>{}</pre></div></body></html>",
        escape_html(to.name),
        to.address,
        escape_html(notice.text)
    );
    reply_with_body(notice, from, id, "Mobile Mail 4.2", true, &body)
}

/// A Mail.ru-style reply: a lowercase `from:` line, with the referee's address, right
/// above the quote.
pub fn mailru_from_line_reply(
    to: &Referee,
    notice: &Notice,
    from: &str,
    text: &str,
    id: &str,
) -> String {
    let body = format!(
        "{text}\n\n\nfrom: {} <{}>\n{}\n",
        to.name,
        to.address,
        quote(notice.text)
    );
    reply_with_body(notice, from, id, "Mail.Ru Mailer 1.0", false, &body)
}

/// A French webmail: the original under a `==== Message du ... ====` separator.
pub fn message_du_reply(notice: &Notice, from: &str, text: &str, id: &str) -> String {
    let body = format!(
        "{text}\n\n==== Message du 23/11/2026 10:00 ====\n\n{}\n",
        quote(notice.text)
    );
    reply_with_body(notice, from, id, "Webmail 2.9", false, &body)
}

/// Thunderbird: a line of underscores above the quote, with no attribution.
pub fn underscores_reply(notice: &Notice, from: &str, text: &str, id: &str) -> String {
    let body = format!(
        "{text}\n\n________________________________\n\n{}\n",
        quote(notice.text)
    );
    reply_with_body(notice, from, id, "Thunderbird 128.5", false, &body)
}

/// iPhone Mail with a tagline of the player's own: then the attribution and the
/// notice, all quoted.
pub fn iphone_tagline_reply(
    to: &Referee,
    notice: &Notice,
    from: &str,
    text: &str,
    id: &str,
    tagline: &str,
) -> String {
    let body = format!(
        "{text}\n\n{tagline}\n\n> On 23 Nov 2026, at 10:00, {} <{}> wrote:\n> \n{}\n",
        to.name,
        to.address,
        quote(notice.text)
    );
    reply_with_body(notice, from, id, "iPhone Mail (22B83)", false, &body)
}

/// Windows Mail: HTML, the player's lines, then a header block in Russian above a
/// border (From, Sent and To, no subject) and the original below, not a blockquote.
pub fn windows_mail_reply(
    to: &Referee,
    notice: &Notice,
    from: &str,
    text: &str,
    id: &str,
) -> String {
    let lines: String = text
        .lines()
        .map(|line| {
            if line.is_empty() {
                "<div><br></div>".to_string()
            } else {
                format!("<div>{}</div>", escape_html(line))
            }
        })
        .collect();
    let body = format!(
        "<html><head><meta name=\"generator\" content=\"Windows Mail 17.5.9600.20498\"></head>\
<body dir=\"ltr\"><div data-externalstyle=\"false\" dir=\"ltr\">{lines}\
<div data-signatureblock=\"true\"><div><br></div><div><br></div></div>\
<div style=\"padding-top: 5px; border-top-color: rgb(229, 229, 229); border-top-width: 1px; border-top-style: solid;\">\
<div><font style=\"line-height: 15pt;\"><b>От:</b>&nbsp;<a href=\"mailto:{address}\">{name}</a><br>\
<b>Отправлено:</b>&nbsp;понедельник, 23 ноября 2026 г. 10:00<br>\
<b>Кому:</b>&nbsp;<a href=\"mailto:{from}\">{from}</a></font></div></div><div><br></div>\
<div dir=\"\"><pre>{original}</pre></div></div></body></html>",
        address = to.address,
        name = escape_html(to.name),
        original = escape_html(notice.text),
    );
    reply_with_body(notice, from, id, "Windows Mail", true, &body)
}
