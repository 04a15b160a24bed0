//! Calendar periods of cost reports: the local day, week and month a moment falls in, as ccusage
//! names them ("2026-01-05", the week's first day "2026-01-04", "2026-01").
use chrono::{Datelike, NaiveDate, Weekday};

use super::day::LocalDays;
use crate::model::Timestamp;
use crate::options::Period;

impl Period {
    /// The period holding local date `d`, as its key.
    pub fn key_of_date(self, d: NaiveDate) -> String {
        match self {
            Period::Day => d.format("%Y-%m-%d").to_string(),
            Period::Week(start) => week_start(d, start).format("%Y-%m-%d").to_string(),
            Period::Month => d.format("%Y-%m").to_string(),
        }
    }

    /// The period `t` falls in, on the calendar of `zone`.
    pub fn key(self, zone: &LocalDays, t: &Timestamp) -> String {
        self.key_of_date(zone.local(t).date())
    }

    /// The first day of the period holding `d`.
    pub fn first_day(self, d: NaiveDate) -> NaiveDate {
        match self {
            Period::Day => d,
            Period::Week(start) => week_start(d, start),
            Period::Month => d.with_day(1).expect("every month has a first day"),
        }
    }

    /// The first day of the period after the one holding `d`.
    pub fn next(self, d: NaiveDate) -> NaiveDate {
        let first = self.first_day(d);
        match self {
            Period::Day => first + chrono::Days::new(1),
            Period::Week(_) => first + chrono::Days::new(7),
            Period::Month => first + chrono::Months::new(1),
        }
    }

    /// The periods holding `from` to `to` on the calendar of `zone`: each one's key and first
    /// moment, in order, then the first moment of the period after them (keyed "").
    pub fn starts(
        self,
        zone: &LocalDays,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Vec<(String, Timestamp)> {
        let mut out = Vec::new();
        let mut d = self.first_day(from);
        while d <= to {
            out.push((self.key_of_date(d), zone.start_of(d)));
            d = self.next(d);
        }
        out.push((String::new(), zone.start_of(d)));
        out
    }

    /// The first day of the period `n` periods before the one holding `d`.
    pub fn back(self, d: NaiveDate, n: u32) -> NaiveDate {
        let first = self.first_day(d);
        match self {
            Period::Day => first - chrono::Days::new(n as u64),
            Period::Week(_) => first - chrono::Days::new(7 * n as u64),
            Period::Month => first - chrono::Months::new(n),
        }
    }
}

/// The last day on or before `d` that is a `start`.
pub fn week_start(d: NaiveDate, start: Weekday) -> NaiveDate {
    let back = (7 + d.weekday().num_days_from_sunday() - start.num_days_from_sunday()) % 7;
    d - chrono::Days::new(back as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Env;
    use crate::model::parse_time_str;
    use crate::options::{parse_date, weekday};

    fn date(s: &str) -> NaiveDate {
        parse_date(s).unwrap()
    }

    #[test]
    fn weeks_start_on_the_day_asked() {
        // 2026-01-07 is a Wednesday.
        let wed = date("2026-01-07");
        assert_eq!(week_start(wed, Weekday::Sun), date("2026-01-04"));
        assert_eq!(week_start(wed, Weekday::Mon), date("2026-01-05"));
        assert_eq!(week_start(wed, Weekday::Wed), wed);
        assert_eq!(week_start(wed, Weekday::Thu), date("2026-01-01"));
        assert_eq!(Period::Week(Weekday::Sat).key_of_date(wed), "2026-01-03");
        assert_eq!(Period::Month.key_of_date(wed), "2026-01");
        assert_eq!(weekday("Monday"), Some(Weekday::Mon));
        assert_eq!(weekday("someday"), None);
    }

    #[test]
    fn periods_back() {
        let d = date("2026-03-31");
        assert_eq!(Period::Day.back(d, 0), d);
        assert_eq!(Period::Day.back(d, 2), date("2026-03-29"));
        assert_eq!(Period::Week(Weekday::Sun).back(d, 1), date("2026-03-22"));
        assert_eq!(Period::Month.back(d, 1), date("2026-02-01"));
        assert_eq!(Period::Month.back(d, 3), date("2025-12-01"));
    }

    #[test]
    fn periods_and_their_first_moments() {
        let ny = LocalDays::named("America/New_York").unwrap();
        let days = Period::Day.starts(&ny, date("2026-03-07"), date("2026-03-09"));
        let keys: Vec<&str> = days.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["2026-03-07", "2026-03-08", "2026-03-09", ""]);
        // The day summer time starts is 23 hours long.
        let hours: Vec<i64> = (days.windows(2))
            .map(|w| (w[1].1 - w[0].1).num_hours())
            .collect();
        assert_eq!(hours, [24, 23, 24]);
        for (key, at) in &days[..3] {
            assert_eq!(Period::Day.key(&ny, at), *key);
        }
        let months = Period::Month.starts(&ny, date("2025-12-31"), date("2026-02-01"));
        let keys: Vec<&str> = months.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["2025-12", "2026-01", "2026-02", ""]);
        assert_eq!(months[3].1, ny.start_of(date("2026-03-01")));
        let weeks = Period::Week(Weekday::Mon).starts(&ny, date("2026-01-07"), date("2026-01-12"));
        let keys: Vec<&str> = weeks.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["2026-01-05", "2026-01-12", ""]);
    }

    #[test]
    fn dates_in_both_spellings() {
        assert_eq!(parse_date("20260105"), parse_date("2026-01-05"));
        assert!(parse_date("2026-1-5").is_none());
        assert!(parse_date("20261305").is_none());
        assert!(parse_date("yesterday").is_none());
    }

    #[test]
    fn keys_follow_the_zone() {
        let t = parse_time_str("2026-01-03T23:30:00Z").unwrap(); // a Saturday in UTC
        let utc = LocalDays::named("UTC").unwrap();
        let tokyo = LocalDays::named("Asia/Tokyo").unwrap();
        let week = Period::Week(Weekday::Sun);
        assert_eq!(week.key(&utc, &t), "2025-12-28");
        assert_eq!(week.key(&tokyo, &t), "2026-01-04"); // Sunday morning in Tokyo
        assert_eq!(
            Period::Month.key(&LocalDays::named("America/New_York").unwrap(), &t),
            "2026-01"
        );
        let env = LocalDays::new(&Env::from_pairs([("TZ", "Asia/Tokyo")]));
        assert_eq!(Period::Day.key(&env, &t), "2026-01-04");
        assert!(LocalDays::named("No/Such_Zone").is_none());
    }

    #[test]
    fn local_midnight_as_a_moment() {
        let ny = LocalDays::named("America/New_York").unwrap();
        let at = |s: &str| crate::model::to_iso(&ny.start_of(date(s)));
        assert_eq!(at("2026-01-05"), "2026-01-05T05:00:00.000Z");
        assert_eq!(at("2026-07-05"), "2026-07-05T04:00:00.000Z");
        // The day summer time starts (at 02:00) and the day it ends still start at midnight.
        assert_eq!(at("2026-03-08"), "2026-03-08T05:00:00.000Z");
        assert_eq!(at("2026-11-01"), "2026-11-01T04:00:00.000Z");
        // Santiago moves its clocks at midnight: 2026-09-06 starts at 01:00 local.
        let scl = LocalDays::named("America/Santiago").unwrap();
        let t = scl.start_of(date("2026-09-06"));
        assert_eq!(scl.local(&t).date(), date("2026-09-06"));
        assert!(scl.local(&(t - chrono::Duration::seconds(1))).date() < date("2026-09-06"));
    }
}
