//! What counts once across sessions, decided over every session of an agent before any of them
//! is added up (a first pass notes, a second pass keeps):
//! - a session found twice (in two roots) counts in its copy updated last, as `list` keeps it;
//! - a response recorded in several sessions counts in one. Claude Code's `--resume` and
//!   `--fork-session` (in older versions) start the new transcript by replaying the old one, and a
//!   side question replays the main conversation in a sidechain: the same response, with the same
//!   `message.id`, is then in two files. Within a session the adapter counts each response once;
//!   across sessions it is done here. Of the copies, the one kept is the most complete (most
//!   tokens: streamed partials carry fewer), then the one not in a sidechain, then the one not
//!   copied from another session (the request belongs to the session that made it), then the
//!   one in the session that started first. The others are taken out of their session's usage
//!   and requests.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::model::{remove_usage_at, SessionSummary, Timestamp};

/// One copy of a response, 16 bytes (a home holds hundreds of thousands): its key, then how
/// good it is (tokens, whether in the main chain, whether its own session's) and where (the
/// session's number).
#[derive(Clone, Copy)]
struct Copy {
    key: u64,
    /// Tokens (30 bits, saturated) << 33 | main chain << 32 | not copied << 31 | session (31 bits).
    rank: u64,
}

const SESSION_BITS: u64 = (1 << 31) - 1;

impl Copy {
    fn session(&self) -> u64 {
        self.rank & SESSION_BITS
    }
}

/// The two passes over one agent's sessions, which come in the same order both times.
#[derive(Default)]
pub struct Replays {
    /// The first pass's count of sessions; the second pass counts them again.
    seen: u64,
    /// The first pass's count of requests.
    requests: usize,
    taken: u64,
    /// Per session id (hashed): the copy kept, as (updated, session number).
    ids: HashMap<u64, (Timestamp, u64)>,
    /// When each session started, by number (the original goes before its replays).
    started: Vec<Timestamp>,
    copies: Vec<Copy>,
    /// (session number, key) of every copy of a response that does not count.
    dropped: HashSet<(u64, u64)>,
    settled: bool,
}

fn id_key(s: &SessionSummary) -> u64 {
    xxhash_rust::xxh3::xxh3_64(s.session_id.as_bytes())
}

impl Replays {
    /// First pass: note a session.
    pub fn note(&mut self, s: &SessionSummary) {
        let n = self.seen;
        self.seen += 1;
        let id = self.ids.entry(id_key(s)).or_insert((s.updated_at, n));
        if s.updated_at > id.0 {
            *id = (s.updated_at, n);
        }
        self.started.push(s.created_at);
        self.requests += s.requests.len();
        for r in s.requests.iter().filter(|r| r.key != 0) {
            let tokens = r.tokens.total().min((1 << 30) - 1);
            let (main, own) = (!r.sidechain as u64, !r.replayed as u64);
            self.copies.push(Copy {
                key: r.key,
                rank: tokens << 33 | main << 32 | own << 31 | (n & SESSION_BITS),
            });
        }
    }

    /// How many requests the first pass saw (room for them all, to a caller that keeps them).
    pub fn requests(&self) -> usize {
        self.requests
    }

    /// Between the passes: choose the copies kept.
    fn settle(&mut self) {
        self.settled = true;
        let kept: HashSet<u64> = self.ids.values().map(|&(_, n)| n).collect();
        let mut copies = std::mem::take(&mut self.copies);
        copies.retain(|c| kept.contains(&c.session()));
        copies.sort_unstable_by_key(|c| c.key);
        let started = &self.started;
        // Best first: most tokens, main chain, its own session's, the session started first,
        // then seen first.
        let order = |c: &Copy| {
            let n = c.session();
            (std::cmp::Reverse(c.rank >> 31), started[n as usize], n)
        };
        for group in copies
            .chunk_by(|a, b| a.key == b.key)
            .filter(|g| g.len() > 1)
        {
            let best = group
                .iter()
                .min_by_key(|c| order(c))
                .expect("a group is not empty");
            for c in group.iter().filter(|c| c.session() != best.session()) {
                self.dropped.insert((c.session(), c.key));
            }
        }
        self.started = Vec::new();
    }

    /// Second pass: `s` as it counts, or `None` when another copy of the session counts instead.
    pub fn keep(&mut self, mut s: SessionSummary) -> Option<SessionSummary> {
        if !self.settled {
            self.settle();
        }
        let n = self.taken;
        self.taken += 1;
        if self
            .ids
            .get(&id_key(&s))
            .is_some_and(|&(_, kept)| kept != n)
        {
            return None;
        }
        if !self.dropped.is_empty() {
            let mut i = 0;
            while i < s.requests.len() {
                let r = s.requests[i];
                if r.key != 0 && self.dropped.contains(&(n & SESSION_BITS, r.key)) {
                    s.requests.remove(i);
                    remove_usage_at(
                        &mut s.usage,
                        r.model,
                        &r.tokens,
                        r.native_cost_usd,
                        Some(r.at),
                    );
                } else {
                    i += 1;
                }
            }
        }
        Some(s)
    }
}

/// Both passes over summaries already in memory.
pub fn keep_all(summaries: Vec<SessionSummary>) -> Vec<SessionSummary> {
    let mut r = Replays::default();
    summaries.iter().for_each(|s| r.note(s));
    summaries.into_iter().filter_map(|s| r.keep(s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{add_usage_at, parse_time_str, Request, Tokens};

    fn session(id: &str, created: &str, requests: &[(u64, &str, u64, bool)]) -> SessionSummary {
        replaying(id, created, requests, false)
    }

    /// A session whose requests are all copied from another one when `replayed`.
    fn replaying(
        id: &str,
        created: &str,
        requests: &[(u64, &str, u64, bool)],
        replayed: bool,
    ) -> SessionSummary {
        let t = parse_time_str(created).unwrap();
        let mut s = SessionSummary::new("claude", id, t, t);
        for &(key, at, output, sidechain) in requests {
            let at = parse_time_str(at).unwrap();
            let tokens = Tokens {
                input: 10,
                output,
                ..Default::default()
            };
            add_usage_at(&mut s.usage, "m", &tokens, None, Some(at));
            s.requests.push(Request {
                at,
                model: 0,
                key,
                tokens,
                native_cost_usd: None,
                sidechain,
                replayed,
            });
        }
        s
    }

    fn keys(s: &SessionSummary) -> Vec<u64> {
        s.requests.iter().map(|r| r.key).collect()
    }

    #[test]
    fn a_replayed_response_counts_once_in_the_original() {
        let v = keep_all(vec![
            // The resumed session replays response 1 and adds response 3.
            session(
                "resumed",
                "2026-01-02T10:00:00Z",
                &[
                    (1, "2026-01-01T10:00:05Z", 50, false),
                    (3, "2026-01-02T10:00:05Z", 70, false),
                ],
            ),
            session(
                "original",
                "2026-01-01T10:00:00Z",
                &[
                    (1, "2026-01-01T10:00:05Z", 50, false),
                    (2, "2026-01-01T10:05:00Z", 60, false),
                    (0, "2026-01-01T10:06:00Z", 5, false),
                ],
            ),
            // Never deduplicated: requests without an id.
            session(
                "other",
                "2026-01-03T10:00:00Z",
                &[(0, "2026-01-01T10:06:00Z", 5, false)],
            ),
        ]);
        assert_eq!(keys(&v[0]), vec![3]);
        assert_eq!(keys(&v[1]), vec![1, 2, 0]);
        assert_eq!(keys(&v[2]), vec![0]);
        // The usage follows: the resumed session keeps only its own response.
        assert_eq!(v[0].usage[0].tokens.output, 70);
        assert_eq!(v[0].usage[0].slices.len(), 1);
        assert_eq!(v[1].usage[0].tokens.output, 115);
    }

    #[test]
    fn the_most_complete_copy_and_the_main_chain_win() {
        let v = keep_all(vec![
            session(
                "a",
                "2026-01-01T10:00:00Z",
                &[(1, "2026-01-01T10:00:05Z", 1, false)],
            ),
            session(
                "b",
                "2026-01-02T10:00:00Z",
                &[(1, "2026-01-01T10:00:05Z", 90, false)],
            ),
            session(
                "c",
                "2026-01-03T10:00:00Z",
                &[(2, "2026-01-01T11:00:00Z", 9, true)],
            ),
            session(
                "d",
                "2026-01-04T10:00:00Z",
                &[(2, "2026-01-01T11:00:00Z", 9, false)],
            ),
        ]);
        let counts: Vec<usize> = v.iter().map(|s| s.requests.len()).collect();
        assert_eq!(counts, vec![0, 1, 0, 1]);
        assert!(v[0].usage[0].tokens.is_zero());
        assert!(v[0].usage[0].slices.is_empty());
    }

    #[test]
    fn a_copy_never_wins_over_its_own_session() {
        // An older `--resume` replays the parent under the parent's times: both start alike.
        let at = "2026-01-01T10:00:05Z";
        let v = keep_all(vec![
            replaying(
                "a-resumed",
                "2026-01-01T10:00:00Z",
                &[(1, at, 9, false)],
                true,
            ),
            session("z-original", "2026-01-01T10:00:00Z", &[(1, at, 9, false)]),
        ]);
        assert_eq!((v[0].requests.len(), v[1].requests.len()), (0, 1));
    }

    #[test]
    fn a_session_found_twice_counts_once_in_its_latest_copy() {
        let mut older = session(
            "s",
            "2026-01-01T10:00:00Z",
            &[(1, "2026-01-01T10:00:05Z", 5, false)],
        );
        let mut newer = older.clone();
        newer.updated_at = parse_time_str("2026-01-05T10:00:00Z").unwrap();
        older.title = "older".into();
        newer.title = "newer".into();
        let v = keep_all(vec![older, newer]);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].title, "newer");
        // Its responses are not taken for replays of its other copy.
        assert_eq!(keys(&v[0]), vec![1]);
    }
}
