//! The heads of the index's documents (source, field lengths, which session, its dates), read in
//! one pass and held by the scope of a snapshot (`lookup::Scope`): a word in most sessions finds
//! tens of thousands of documents, and ranking them needs no more of each. A client that lives
//! keeps its scope while nothing changes, so its broad searches look these up in memory rather
//! than stepping through the SQLite file and copying every summary to return a few.
use rusqlite::Connection;
use rustc_hash::FxHashSet as HashSet;

use super::codec::{self, HeadRef};
use super::lookup::{corrupt, DocId, SourceId};
use super::store::Fault;
use crate::model::Timestamp;
use crate::query::fields::FIELDS;

/// Every document of one generation of the index, in id order.
#[derive(Default)]
pub struct Heads {
    rows: Vec<Head>,
    /// The agents' names and session ids of `rows`, one after another.
    text: String,
}

/// A document's head.
#[derive(Clone, Copy)]
pub struct Head {
    pub id: DocId,
    pub source: SourceId,
    /// Whether its source is searched by the scope (else it is passed over, as it is unread).
    pub searched: bool,
    pub lengths: [u64; FIELDS],
    pub head: HeadOf,
}

/// Which session a document is and its dates, as a few numbers: a match carries its own copy,
/// and its head is read without a second look at its row (`Heads::head_ref`).
#[derive(Clone, Copy)]
pub struct HeadOf {
    /// Where its agent's name begins, where it ends and its session id begins, and where that
    /// ends, in `Heads::text`.
    text: [u32; 3],
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl Heads {
    /// Every document of the index `conn` is open on (in its read transaction), those of the
    /// sources `searched` marked.
    pub fn read(conn: &Connection, searched: &HashSet<SourceId>) -> Result<Heads, Fault> {
        let mut st =
            conn.prepare_cached("SELECT id, source, lengths, summary FROM doc ORDER BY id")?;
        let mut heads = Heads::default();
        heads.read_rows(st.query([])?, searched)?;
        Ok(heads)
    }

    /// These heads once the documents of the sources `changed` were written again, as `read`
    /// would read them: the others' copied, theirs read.
    pub fn updated(
        &self,
        conn: &Connection,
        changed: &HashSet<SourceId>,
        searched: &HashSet<SourceId>,
    ) -> Result<Heads, Fault> {
        let mut now = Heads::default();
        let mut st =
            conn.prepare_cached("SELECT id, source, lengths, summary FROM doc WHERE source = ?1")?;
        for source in changed {
            now.read_rows(st.query([source])?, searched)?;
        }
        now.rows.sort_unstable_by_key(|h| h.id);
        let mut out = Heads {
            rows: Vec::with_capacity(self.rows.len() + now.rows.len()),
            text: String::with_capacity(self.text.len()),
        };
        let kept = self.rows.iter().filter(|h| !changed.contains(&h.source));
        let mut read = now.rows.iter().peekable();
        for h in kept {
            while let Some(n) = read.next_if(|n| n.id < h.id) {
                out.push_copy(n, &now)?;
            }
            out.push_copy(h, self)?;
        }
        for n in read {
            out.push_copy(n, &now)?;
        }
        Ok(out)
    }

    /// Read a head from each of `rows` (id, source, lengths, summary).
    fn read_rows(
        &mut self,
        mut rows: rusqlite::Rows<'_>,
        searched: &HashSet<SourceId>,
    ) -> Result<(), Fault> {
        while let Some(r) = rows.next()? {
            let source: SourceId = r.get(1)?;
            let lengths = codec::decode_lengths(r.get_ref(2)?.as_blob()?).map_err(|_| corrupt())?;
            let h = codec::summary_head_ref(r.get_ref(3)?.as_blob()?).map_err(|_| corrupt())?;
            let head = Head {
                id: r.get(0)?,
                source,
                searched: searched.contains(&source),
                lengths,
                head: self.held(&h)?,
            };
            self.rows.push(head);
        }
        Ok(())
    }

    /// `h`, a row of `of`, with its text copied into these heads.
    fn push_copy(&mut self, h: &Head, of: &Heads) -> Result<(), Fault> {
        let head = self.held(&of.head_ref(&h.head))?;
        self.rows.push(Head { head, ..*h });
        Ok(())
    }

    /// A head's numbers, its text written into these heads.
    fn held(&mut self, h: &HeadRef<'_>) -> Result<HeadOf, Fault> {
        let start = end(&self.text)?;
        self.text.push_str(h.agent);
        let agent_end = end(&self.text)?;
        self.text.push_str(h.session_id);
        Ok(HeadOf {
            text: [start, agent_end, end(&self.text)?],
            created_at: h.created_at,
            updated_at: h.updated_at,
        })
    }

    /// The rows of `docs` (in ascending order), in that order: `None` for a document the index
    /// does not hold.
    pub fn rows_of<'a>(
        &'a self,
        docs: impl Iterator<Item = DocId> + 'a,
    ) -> impl Iterator<Item = Option<u32>> + 'a {
        // One walk along the rows, whether the documents are few or most of them.
        let mut at = 0usize;
        docs.map(move |doc| {
            while self.rows.get(at).is_some_and(|h| h.id < doc) {
                at += 1;
            }
            (self.rows.get(at).is_some_and(|h| h.id == doc)).then_some(at as u32)
        })
    }

    pub fn row(&self, row: u32) -> &Head {
        &self.rows[row as usize]
    }

    /// A document's head (one of these heads' rows), as a stored summary's
    /// (`codec::summary_head_ref`).
    pub fn head_ref(&self, h: &HeadOf) -> HeadRef<'_> {
        let [start, agent_end, id_end] = h.text.map(|at| at as usize);
        HeadRef {
            agent: &self.text[start..agent_end],
            session_id: &self.text[agent_end..id_end],
            created_at: h.created_at,
            updated_at: h.updated_at,
        }
    }
}

/// Where `text` ends, as a row keeps it.
fn end(text: &str) -> Result<u32, Fault> {
    u32::try_from(text.len())
        .map_err(|_| Fault::Unusable("too many sessions to hold their heads".into()))
}
