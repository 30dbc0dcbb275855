//! Someone else's text quoted back: in an error, on a terminal or in a log, what a
//! player or a file wrote is shown capped, so a refused megabyte is not echoed whole
//! (filling a terminal, a cron mail or a mail server's bounce).

/// The most characters of one quoted piece of someone's text (a word of a move, a
/// player's name) an error shows; the rest is left out, and its length said.
pub const QUOTE_CHARS: usize = 200;

/// The most characters of a whole error message about someone's text.
pub const MESSAGE_CHARS: usize = 2000;

/// `text` as it is when it has at most `max` characters; else its first `max`, an
/// ellipsis and how many characters it has in all.
pub fn shortened(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push_str(&format!("… ({count} characters in all)"));
    out
}

/// A problem a rule found, every piece between backticks (which is how rules quote
/// what the player sent) at most [`QUOTE_CHARS`], and the whole at most
/// [`MESSAGE_CHARS`]: the rules quote words of the move freely, and a move may be a
/// megabyte of one word.
pub fn with_short_quotes(text: &str) -> String {
    if text.chars().count() <= QUOTE_CHARS {
        return text.to_string();
    }
    let mut out = String::new();
    // What to say after the closing backtick of a quote that was cut.
    let mut after_quote: Option<String> = None;
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
            if let Some(note) = after_quote.take() {
                out.push_str(&note);
            }
        }
        let count = part.chars().count();
        if i % 2 == 1 && count > QUOTE_CHARS {
            out.extend(part.chars().take(QUOTE_CHARS));
            out.push('…');
            after_quote = Some(format!(" ({count} characters in all)"));
        } else {
            out.push_str(part);
        }
    }
    if let Some(note) = after_quote {
        out.push_str(&note);
    }
    shortened(&out, MESSAGE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_and_long_text_is_cut_with_its_length() {
        assert_eq!(shortened("pass", 10), "pass");
        assert_eq!(shortened("abcdef", 3), "abc… (6 characters in all)");
        assert_eq!(shortened("ééé", 2), "éé… (3 characters in all)");
    }

    #[test]
    fn a_long_quote_is_cut_inside_its_backticks() {
        let word = "x".repeat(1_000_000);
        let problem = format!("`{word}` is not a card");
        let short = with_short_quotes(&problem);
        assert_eq!(
            short,
            format!(
                "`{}…` (1000000 characters in all) is not a card",
                "x".repeat(QUOTE_CHARS)
            )
        );
        // Short quotes and text outside quotes are untouched.
        let fine = format!("`card 9` is not a card; {}", "y".repeat(300));
        assert_eq!(with_short_quotes(&fine), fine);
        // An unclosed quote, and a message too long however it is quoted.
        let open = format!("`{word}");
        assert!(with_short_quotes(&open).ends_with("… (1000000 characters in all)"));
        let plain = "z".repeat(10 * MESSAGE_CHARS);
        assert!(with_short_quotes(&plain).chars().count() < MESSAGE_CHARS + 40);
    }
}
