//! Durations as people write them in flags and config files: `3d`, `12h`, `30m`,
//! `90s`, `500ms`, or a bare number in a unit the caller chooses.

use std::time::Duration;

/// Reads `text` as a number and a unit (`ms`, `s`, `m`, `h`, `d`, or their words); a
/// bare number counts in `bare` units.
///
/// # Errors
/// Not a number with one of those units, said with the forms accepted.
pub fn parse(text: &str, bare: Duration) -> Result<Duration, String> {
    let text = text.trim();
    let at = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(at);
    let wrong = || format!("{text:?} is not a duration; write 3d, 12h, 30m, 90s or 500ms");
    let number: u32 = number.parse().map_err(|_| wrong())?;
    let unit = match unit.trim() {
        "" => bare,
        "ms" => Duration::from_millis(1),
        "s" | "sec" | "seconds" => Duration::from_secs(1),
        "m" | "min" | "minutes" => Duration::from_secs(60),
        "h" | "hour" | "hours" => Duration::from_secs(3_600),
        "d" | "day" | "days" => Duration::from_secs(86_400),
        _ => return Err(wrong()),
    };
    Ok(unit * number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_bare_numbers() {
        let day = Duration::from_secs(86_400);
        assert_eq!(parse("3d", day), Ok(day * 3));
        assert_eq!(parse("12h", day), Ok(Duration::from_secs(43_200)));
        assert_eq!(parse(" 2 ", day), Ok(day * 2));
        assert_eq!(
            parse("30", Duration::from_secs(1)),
            Ok(Duration::from_secs(30))
        );
        assert_eq!(parse("500ms", day), Ok(Duration::from_millis(500)));
        assert_eq!(parse("2 minutes", day), Ok(Duration::from_secs(120)));
        for bad in ["soon", "", "3w", "-1d", "1.5h"] {
            assert!(parse(bad, day).is_err(), "{bad:?}");
        }
    }
}
