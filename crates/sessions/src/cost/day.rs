//! The local calendar day of a moment, for `groupBy: 'day'`. "Local" is the time zone of the
//! calling process: its `TZ` as captured in the call's `Env` snapshot (a zone name such as
//! "Europe/Berlin" or a POSIX rule such as "EST5EDT", read with tz-rs), else the system zone
//! (/etc/localtime on Unix, the OS setting elsewhere). An unusable `TZ` means UTC, as in libc.
use chrono::{Duration, Local, NaiveDate, NaiveDateTime, TimeZone};

use crate::env::Env;
use crate::model::Timestamp;

pub struct LocalDays {
    zone: Zone,
}

#[derive(Debug)]
enum Zone {
    Tz(tz::TimeZone),
    /// The OS zone through chrono, where there is no tz database to read (Windows).
    #[cfg_attr(unix, allow(dead_code))]
    System,
}

impl LocalDays {
    pub fn new(env: &Env) -> Self {
        let zone = match env.var("TZ") {
            Some(spec) => {
                Zone::Tz(tz::TimeZone::from_posix_tz(spec).unwrap_or_else(|_| tz::TimeZone::utc()))
            }
            None => system_zone(),
        };
        LocalDays { zone }
    }

    /// The zone named `name` (IANA, such as "Europe/Berlin", or a POSIX rule); `None` when there
    /// is no such zone.
    pub fn named(name: &str) -> Option<Self> {
        let zone = tz::TimeZone::from_posix_tz(name).ok()?;
        Some(LocalDays {
            zone: Zone::Tz(zone),
        })
    }

    /// What the days depend on (the zone's rules), to tell whether they may have changed.
    pub fn fingerprint(&self) -> String {
        format!("{:?}", self.zone)
    }

    /// "YYYY-MM-DD" of `t` on the local calendar.
    pub fn day(&self, t: &Timestamp) -> String {
        self.local(t).format("%Y-%m-%d").to_string()
    }

    /// The local date and time of `t`.
    pub fn local(&self, t: &Timestamp) -> NaiveDateTime {
        match &self.zone {
            Zone::Tz(z) => (*t + Duration::seconds(self.offset_secs(z, t))).naive_utc(),
            Zone::System => t.with_timezone(&Local).naive_local(),
        }
    }

    fn offset_secs(&self, z: &tz::TimeZone, t: &Timestamp) -> i64 {
        z.find_local_time_type(t.timestamp())
            .map(|l| l.ut_offset())
            .unwrap_or(0) as i64
    }

    /// The first moment of local date `d` (a day that starts in a summer-time gap starts at the
    /// gap's end).
    pub fn start_of(&self, d: NaiveDate) -> Timestamp {
        let midnight = d.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc();
        match &self.zone {
            Zone::Tz(z) => {
                // The offset in force a day either side brackets the one at midnight.
                let guess = midnight - Duration::seconds(self.offset_secs(z, &midnight));
                let at = midnight - Duration::seconds(self.offset_secs(z, &guess));
                if self.local(&at).date() == d {
                    at
                } else {
                    guess
                }
            }
            Zone::System => Local
                .from_local_datetime(&midnight.naive_utc())
                .earliest()
                .map(|t| t.with_timezone(&chrono::Utc))
                .unwrap_or(midnight),
        }
    }
}

#[cfg(unix)]
fn system_zone() -> Zone {
    // Read /etc/localtime ourselves rather than through chrono, which would call getenv("TZ")
    // on a worker thread.
    tz::TimeZone::local()
        .map(Zone::Tz)
        .unwrap_or(Zone::Tz(tz::TimeZone::utc()))
}

#[cfg(not(unix))]
fn system_zone() -> Zone {
    Zone::System
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::parse_time_str;

    #[test]
    fn days_follow_tz() {
        let t = parse_time_str("2025-03-01T23:30:00Z").unwrap();
        let day = |tz: &str| LocalDays::new(&Env::from_pairs([("TZ", tz)])).day(&t);
        assert_eq!(day("UTC"), "2025-03-01");
        assert_eq!(day("Asia/Tokyo"), "2025-03-02"); // +9
        assert_eq!(day("America/New_York"), "2025-03-01"); // -5
        assert_eq!(day("EST5EDT"), "2025-03-01");
        assert_eq!(day("JST-9"), "2025-03-02");
        assert_eq!(day("No/Such_Zone"), "2025-03-01");
        // Summer time: 2025-07-01T03:30Z is still June 30 in New York (-4), not with -5 either.
        let s = parse_time_str("2025-07-01T03:30:00Z").unwrap();
        let ny = LocalDays::new(&Env::from_pairs([("TZ", "America/New_York")]));
        assert_eq!(ny.day(&s), "2025-06-30");
    }
}
