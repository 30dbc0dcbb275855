//! Time in mail: now (which PBEM_NOW may set), days as `YYYY-MM-DD`, and times in UTC
//! as people and programs read them. Shared by mail in, mail out and the referee's loop.

/// Now, in Unix seconds. PBEM_NOW overrides it, so reminders can be tested and a
/// referee can replay a cron run.
pub fn now() -> u64 {
    if let Some(now) = std::env::var("PBEM_NOW").ok().and_then(|v| v.parse().ok()) {
        return now;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A time as people read it: `2025-11-23 09:05 UTC`.
pub fn utc_text(seconds: u64) -> String {
    format!(
        "{} {:02}:{:02} UTC",
        date_text(seconds / 86_400),
        seconds % 86_400 / 3_600,
        seconds % 3_600 / 60
    )
}

/// A time as programs read it (RFC 3339): `2025-11-23T09:05:00Z`.
pub fn utc_rfc3339(seconds: u64) -> String {
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        date_text(seconds / 86_400),
        seconds % 86_400 / 3_600,
        seconds % 3_600 / 60,
        seconds % 60
    )
}

/// The day number (days since 1970-01-01) of a `YYYY-MM-DD` date; `None` for anything
/// else or a day the calendar does not have.
pub fn day_of(text: &str) -> Option<u64> {
    let mut parts = text.trim().trim_end_matches(['.', ',']).split('-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: i64 = parts.next()?.parse().ok()?;
    let day: i64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(1970..=9999).contains(&year) || !(1..=12).contains(&month) {
        return None;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if day < 1 || day > month_days[(month - 1) as usize] {
        return None;
    }
    // Days from the civil date (the proleptic Gregorian calendar), counted from
    // 0000-03-01 so that the leap day ends a year.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    u64::try_from(era * 146_097 + day_of_era - 719_468).ok()
}

/// `YYYY-MM-DD` of a day number.
pub fn date_text(day: u64) -> String {
    let z = i64::try_from(day).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: u64 = 20_415; // 2025-11-23

    #[test]
    fn dates_read_and_write_back_across_leap_years() {
        assert_eq!(day_of("1970-01-01"), Some(0));
        assert_eq!(date_text(TODAY), "2025-11-23");
        assert_eq!(day_of("2025-11-23"), Some(TODAY));
        assert_eq!(
            day_of("2024-02-29").map(date_text).as_deref(),
            Some("2024-02-29")
        );
        for bad in [
            "2025-02-29",
            "2025-13-01",
            "2025-00-10",
            "25-11-23",
            "tomorrow",
            "",
        ] {
            assert_eq!(day_of(bad), None, "{bad}");
        }
        for day in (0..40_000).step_by(7) {
            assert_eq!(day_of(&date_text(day)), Some(day));
        }
    }

    #[test]
    fn times_are_written_in_utc() {
        assert_eq!(utc_text(1_763_888_700), "2025-11-23 09:05 UTC");
        assert_eq!(utc_rfc3339(1_763_888_707), "2025-11-23T09:05:07Z");
    }
}
