//! Documents on their way to tantivy's indexing threads, held to a number of bytes. tantivy
//! queues up to ten thousand documents, and a document here is a whole session: a build that
//! reads sessions faster than it indexes them would otherwise hold most of a home's text at once.
use std::sync::{Arc, Condvar, Mutex};

use tantivy::schema::document::{Document, Value};
use tantivy::TantivyDocument;

/// The bytes of text queued, and the most it may hold.
pub struct Gate {
    queued: Mutex<usize>,
    freed: Condvar,
    limit: usize,
}

/// A document queued: its bytes count against the gate until tantivy has indexed it and drops
/// it.
pub struct Queued {
    doc: TantivyDocument,
    _held: Held,
}

struct Held {
    gate: Arc<Gate>,
    bytes: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut queued = self.gate.lock();
        *queued -= self.bytes;
        self.gate.freed.notify_all();
    }
}

impl Gate {
    pub fn new(limit: usize) -> Arc<Gate> {
        Arc::new(Gate {
            queued: Mutex::new(0),
            freed: Condvar::new(),
            limit,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, usize> {
        self.queued.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `doc`, to be handed to the writer once the documents queued before it leave room for it
    /// (one larger than the limit goes alone).
    pub fn admit(self: &Arc<Gate>, doc: TantivyDocument) -> Queued {
        let bytes = text_bytes(&doc);
        let mut queued = self.lock();
        while *queued > 0 && *queued + bytes > self.limit {
            queued = self.freed.wait(queued).unwrap_or_else(|e| e.into_inner());
        }
        *queued += bytes;
        Queued {
            doc,
            _held: Held {
                gate: self.clone(),
                bytes,
            },
        }
    }

    /// The bytes queued now.
    #[cfg(test)]
    fn queued(&self) -> usize {
        *self.lock()
    }
}

fn text_bytes(doc: &TantivyDocument) -> usize {
    doc.iter_fields_and_values()
        .map(|(_, v)| v.as_str().map_or(8, str::len))
        .sum()
}

impl Document for Queued {
    type Value<'a> = <TantivyDocument as Document>::Value<'a>;
    type FieldsValuesIter<'a> = <TantivyDocument as Document>::FieldsValuesIter<'a>;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        self.doc.iter_fields_and_values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tantivy::schema::{Schema, TEXT};

    fn doc_of(bytes: usize) -> TantivyDocument {
        let mut b = Schema::builder();
        let text = b.add_text_field("text", TEXT);
        let mut d = TantivyDocument::new();
        d.add_text(text, "x".repeat(bytes));
        d
    }

    #[test]
    fn a_document_waits_until_those_before_it_leave_room_for_it() {
        let gate = Gate::new(100);
        let first = gate.admit(doc_of(60));
        assert_eq!(gate.queued(), 60);
        let (send, admitted) = std::sync::mpsc::channel();
        let waiting = {
            let gate = gate.clone();
            std::thread::spawn(move || send.send(gate.admit(doc_of(60))).unwrap())
        };
        assert!(admitted.recv_timeout(Duration::from_millis(200)).is_err());
        drop(first);
        let second = admitted.recv_timeout(Duration::from_secs(5)).unwrap();
        waiting.join().unwrap();
        assert_eq!(gate.queued(), 60);
        drop(second);
        // One larger than the limit goes when nothing is queued.
        let large = gate.admit(doc_of(500));
        assert_eq!(gate.queued(), 500);
        drop(large);
        assert_eq!(gate.queued(), 0);
    }
}
