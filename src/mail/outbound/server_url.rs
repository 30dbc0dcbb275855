//! The URLs that name the referee's mail servers: `smtp[s]://` to send through and
//! `imap[s]://` to read from, `scheme://[user[:password]@]host[:port][/path][?k=v&...]`.
//! Each transport reads the parts it has; this module only splits them, and never
//! shows the password (an error names the host alone).

use std::net::IpAddr;

/// A server URL split into its parts, each percent-decoded.
pub(crate) struct ServerUrl {
    /// Lower case.
    pub scheme: String,
    pub user: Option<String>,
    pub password: Option<String>,
    pub host: String,
    pub port: Option<u16>,
    /// Without its leading and trailing `/`; empty when there is none.
    pub path: String,
    /// `?name=value` pairs in order, names in lower case.
    pub query: Vec<(String, String)>,
}

impl ServerUrl {
    /// Splits `spec`; `invalid` builds the error from why it is not valid and the host
    /// as written (never the user or password).
    pub fn parse<E>(spec: &str, invalid: impl Fn(&str, &str) -> E) -> Result<ServerUrl, E> {
        let (scheme, rest) = spec.split_once("://").unwrap_or(("", spec));
        // The user and password end at the last '@', so a password (or a user that is
        // an address) may hold '@', '/' or '?'.
        let (userinfo, rest) = match rest.rsplit_once('@') {
            Some((userinfo, rest)) => (Some(userinfo), rest),
            None => (None, rest),
        };
        let (hostport, tail) = rest
            .find(['/', '?'])
            .map_or((rest, ""), |at| rest.split_at(at));
        let invalid = |why: &str| invalid(why, hostport);
        let (host, port) = if let Some(bracketed) = hostport.strip_prefix('[') {
            let (host, after) = bracketed
                .split_once(']')
                .ok_or_else(|| invalid("an unclosed ["))?;
            (host.to_string(), after.strip_prefix(':'))
        } else {
            match hostport.rsplit_once(':') {
                Some((host, port)) => (host.to_string(), Some(port)),
                None => (hostport.to_string(), None),
            }
        };
        if host.is_empty() {
            return Err(invalid("no host"));
        }
        let port = port
            .map(|p| {
                p.parse::<u16>()
                    .map_err(|_| invalid("the port is not a number"))
            })
            .transpose()?;
        let (path, query) = tail.split_once('?').unwrap_or((tail, ""));
        let path = decode(path.trim_matches('/')).map_err(|_| invalid("the path is not UTF-8"))?;
        let mut pairs = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            pairs.push((name.to_ascii_lowercase(), value.to_string()));
        }
        let (user, password) = match userinfo {
            None => (None, None),
            Some(info) => {
                let (user, password) = match info.split_once(':') {
                    Some((user, password)) => (user, Some(password)),
                    None => (info, None),
                };
                let user = decode(user).map_err(|_| invalid("the user is not UTF-8"))?;
                let password = password
                    .map(|p| decode(p).map_err(|_| invalid("the password is not UTF-8")))
                    .transpose()?;
                (Some(user).filter(|u| !u.is_empty()), password)
            }
        };
        Ok(ServerUrl {
            scheme: scheme.to_ascii_lowercase(),
            user,
            password,
            host,
            port,
            path,
            query: pairs,
        })
    }
}

/// `host:port` as messages show a server (`[::1]:25` for an IPv6 address).
pub(crate) fn shown_host(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Whether `host` is this machine.
pub(crate) fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Percent-decoding of a URL part (`%40` is `@`).
fn decode(text: &str) -> Result<String, std::string::FromUtf8Error> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out)
}

/// The password as it may come back in a server's words: as sent, IMAP-quoted (as
/// LOGIN sends it: `"Pa\"ss\\wo rd"`), as Rust debug-quotes it, and base64 as AUTHENTICATE
/// PLAIN and LOGIN send it (unpadded, so a form with its padding is blanked too);
/// longest first, so that a form holding another is blanked whole.
pub(crate) fn password_forms(user: &str, password: &str) -> Vec<String> {
    use base64::Engine as _;
    if password.is_empty() {
        return Vec::new();
    }
    let quoted = password.replace('\\', "\\\\").replace('"', "\\\"");
    let debug = format!("{password:?}");
    let debug = debug[1..debug.len() - 1].to_string();
    let mut forms = vec![password.to_string(), quoted, debug];
    for payload in [
        password.to_string(),
        format!("\0{user}\0{password}"),
        format!("{user}\0{user}\0{password}"),
    ] {
        let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(payload);
        forms.push(encoded);
    }
    forms.sort_by_key(|form| std::cmp::Reverse(form.len()));
    forms.dedup();
    forms
}

/// `text` with every form of the password blanked out, each form also wherever it is
/// written percent-encoded, whole or in part, in either case of hex (`S3cr%22et`,
/// `S3cr%22et%5cpw`, `%53%33...`), or form-encoded with `+` for a space: as a server
/// or a URL may echo it.
pub(crate) fn without_password(text: &str, forms: &[String]) -> String {
    forms.iter().fold(text.to_string(), |text, form| {
        blank_encoded(&text, form.as_bytes())
    })
}

/// `text` with every run that spells `form` (each byte as itself, as `%XX`, or a space
/// as `+`) made `********`.
fn blank_encoded(text: &str, form: &[u8]) -> String {
    if form.is_empty() {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match spelled_at(bytes, at, form) {
            Some(end) => {
                out.extend_from_slice(b"********");
                at = end;
            }
            None => {
                out.push(bytes[at]);
                at += 1;
            }
        }
    }
    // Only whole runs of ASCII (a form is matched byte by byte) were replaced, by ASCII.
    String::from_utf8(out)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// Where a spelling of `form` that starts at `start` of `text` ends, if one does.
fn spelled_at(text: &[u8], start: usize, form: &[u8]) -> Option<usize> {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut at = start;
    for &wanted in form {
        let here = *text.get(at)?;
        if here == wanted {
            at += 1;
        } else if here == b'%'
            && text
                .get(at + 1)
                .and_then(|&b| hex(b))
                .zip(text.get(at + 2).and_then(|&b| hex(b)))
                == Some((u32::from(wanted >> 4), u32::from(wanted & 0xf)))
        {
            at += 3;
        } else if here == b'+' && wanted == b' ' {
            at += 1;
        } else {
            return None;
        }
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(spec: &str) -> ServerUrl {
        ServerUrl::parse(spec, |why, host| format!("{why} ({host})")).expect("valid")
    }

    #[test]
    fn a_user_that_is_an_address_and_a_password_with_at_signs() {
        let url =
            parse("IMAPS://ref@example.org:p@ss/w?rd@imap.example.org:993/Games%20In?tls=None");
        assert_eq!(url.scheme, "imaps");
        assert_eq!(url.user.as_deref(), Some("ref@example.org"));
        assert_eq!(url.password.as_deref(), Some("p@ss/w?rd"));
        assert_eq!(url.host, "imap.example.org");
        assert_eq!(url.port, Some(993));
        assert_eq!(url.path, "Games In");
        assert_eq!(url.query, vec![("tls".to_string(), "None".to_string())]);
        let url = parse("imap://ref%40example.org@[::1]/INBOX");
        assert_eq!(url.user.as_deref(), Some("ref@example.org"));
        assert_eq!((url.host.as_str(), url.port), ("::1", None));
        assert!(is_loopback(&url.host));
        assert_eq!(shown_host(&url.host, 143), "[::1]:143");
    }

    #[test]
    fn a_password_echoed_percent_encoded_in_any_way_is_blanked() {
        let password = "S3cr\"et\\pw-1 x";
        let forms = password_forms("ref", password);
        for echoed in [
            "535 bad S3cr%22et%5Cpw-1%20x",
            "535 bad S3cr%22et%5cpw-1+x",
            "535 bad %53%33%63%72%22%65%74%5C%70%77%2D%31%20%78",
            "url smtp://ref:S3cr%22et%5Cpw-1%20x@mail.example.org",
            "535 bad S3cr\"et\\pw-1 x",
        ] {
            let shown = without_password(echoed, &forms);
            assert!(shown.contains("********"), "{shown}");
            assert!(
                !shown.contains("S3cr") && !shown.contains("%53%33"),
                "{shown}"
            );
        }
        // Text around it is kept, multi-byte characters included.
        assert_eq!(
            without_password("é S3cr%22et%5Cpw-1%20x ü", &forms),
            "é ******** ü"
        );
    }

    #[test]
    fn errors_name_the_host_and_never_the_password() {
        for (spec, why) in [
            ("imaps://u:secret@/INBOX", "no host"),
            ("imaps://u:secret@host:99999", "the port is not a number"),
            ("imaps://u:secret@[::1", "an unclosed ["),
        ] {
            let error = ServerUrl::parse(spec, |why, host| format!("{why} ({host})"))
                .err()
                .expect(spec);
            assert!(error.starts_with(why), "{error}");
            assert!(!error.contains("secret"), "{error}");
        }
    }
}
