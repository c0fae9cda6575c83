//! When a row's facts were last checked, and whether that is long enough ago to check
//! again (`clients.toml` fields `verified` and `verified_against`).

use std::fmt;

/// A row older than this many days is stale: `clients` asks for a re-check.
pub const STALE_AFTER_DAYS: i64 = 90;

/// The row field `verified`: a date (`"2026-12-01"`, checked against the client's docs or
/// program that day), `false` (the facts come only from a secondary source), or `true` (an
/// undated confirmation, as older override files and user tables write it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verified {
    On(Date),
    Undated,
    Unverified,
}

impl Verified {
    /// Parse the row field (a bool, or a date string).
    pub(crate) fn from_field(field: &VerifiedField) -> Result<Verified, String> {
        match field {
            VerifiedField::Flag(true) => Ok(Verified::Undated),
            VerifiedField::Flag(false) => Ok(Verified::Unverified),
            VerifiedField::Date(text) => Date::parse(text).map(Verified::On).ok_or_else(|| {
                format!("`verified = \"{text}\"` is not a date: write `verified = \"YYYY-MM-DD\"` (or `false`)")
            }),
        }
    }

    /// `false` only for rows whose facts come from a secondary source.
    pub fn confirmed(self) -> bool {
        !matches!(self, Verified::Unverified)
    }

    /// The day of the last check, when the row has one.
    pub fn date(self) -> Option<Date> {
        match self {
            Verified::On(d) => Some(d),
            _ => None,
        }
    }

    /// Checked more than [`STALE_AFTER_DAYS`] before `today`.
    pub fn stale(self, today: Date) -> bool {
        self.date()
            .is_some_and(|d| today.days() - d.days() > STALE_AFTER_DAYS)
    }
}

/// The row field as written.
#[derive(Debug, Clone, serde::Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub(crate) enum VerifiedField {
    Flag(bool),
    Date(String),
}

impl Default for VerifiedField {
    fn default() -> Self {
        VerifiedField::Flag(true)
    }
}

/// A calendar day (proleptic Gregorian, UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    year: i64,
    month: u32,
    day: u32,
}

impl Date {
    /// `YYYY-MM-DD`, nothing else.
    pub fn parse(text: &str) -> Option<Date> {
        let b = text.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let num = |s: &str| -> Option<u32> {
            s.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| s.parse().ok())
                .flatten()
        };
        let (year, month, day) = (num(&text[..4])?, num(&text[5..7])?, num(&text[8..])?);
        let date = Date {
            year: i64::from(year),
            month,
            day,
        };
        ((1..=12).contains(&month) && (1..=date.month_len()).contains(&day)).then_some(date)
    }

    fn month_len(self) -> u32 {
        match self.month {
            2 if self.year % 4 == 0 && (self.year % 100 != 0 || self.year % 400 == 0) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    pub fn days(self) -> i64 {
        let m = i64::from(self.month);
        let y = if m <= 2 { self.year - 1 } else { self.year };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The day `days` after 1970-01-01 (`civil_from_days`).
    pub fn from_days(days: i64) -> Date {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Date {
            year,
            month: u32::try_from(month).unwrap_or(1),
            day: u32::try_from(day).unwrap_or(1),
        }
    }

    /// Today (UTC) by the system clock; `MCPCTL_TODAY=YYYY-MM-DD` pins it (tests, and
    /// asking "what will be stale by then").
    pub fn today() -> Date {
        if let Some(date) = std::env::var("MCPCTL_TODAY")
            .ok()
            .and_then(|t| Date::parse(&t))
        {
            return date;
        }
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Date::from_days(i64::try_from(secs / 86_400).unwrap_or(0))
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_round_trip_and_reject_non_days() {
        for text in ["1970-01-01", "2026-12-01", "2024-02-29", "2000-02-29"] {
            assert_eq!(Date::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Date::parse("1970-01-01").unwrap().days(), 0);
        assert_eq!(Date::parse("2026-12-01").unwrap().days(), 20_788);
        for bad in [
            "2026-13-01",
            "2026-02-29",
            "1900-02-29",
            "2026-1-01",
            "26-12-01",
            "2026-12-0x",
            "",
        ] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_row_is_stale_after_ninety_days() {
        let on = |t: &str| Verified::On(Date::parse(t).unwrap());
        let today = Date::parse("2027-03-01").unwrap();
        assert!(!on("2026-12-01").stale(today), "90 days");
        assert!(on("2026-11-30").stale(today), "91 days");
        assert!(!Verified::Undated.stale(today));
        assert!(!Verified::Unverified.stale(today));
        assert!(!Verified::Unverified.confirmed());
        assert!(
            Verified::from_field(&VerifiedField::Date("yesterday".into()))
                .unwrap_err()
                .contains("YYYY-MM-DD")
        );
    }
}
