//! Interned data of packet sequences (TracePacket.interned_data): messages such as event
//! names, categories and debug annotation names, referred to by the later packets of their
//! sequence through an interning id (`iid`, field 1 of every interned message).
//!
//! As in trace_processor, the table belongs to an *interval* of a sequence: clearing the
//! incremental state starts an empty interval, a packet loss starts one holding a copy of the
//! previous table (packets tokenized before the loss keep seeing the old one). Events carry
//! the interval they were tokenized in and look their names up at parse time, so an entry
//! interned later in the same interval is visible to them, as in trace_processor.

use rustc_hash::FxHashMap;

use super::wire::Fields;

/// Where one interned message lives in [`InternedData::bytes`].
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    len: u32,
}

/// An interval's table: (InternedData field number, iid) -> message.
type Table = FxHashMap<(u32, u64), Span>;

#[derive(Default)]
pub struct InternedData {
    bytes: Vec<u8>,
    intervals: Vec<Table>,
}

/// The interning id is field 1 of every interned message.
const IID_FIELD: u32 = 1;
/// The value of string-like interned messages (EventName, EventCategory, ...) is field 2.
const STRING_FIELD: u32 = 2;

/// The interning id of an interned message, None when it has none (such a message is
/// refused).
pub fn iid_of(message: &[u8]) -> Option<u64> {
    Fields::new(message)
        .map_while(Result::ok)
        .find(|(id, _)| *id == IID_FIELD)
        .map(|(_, v)| v.as_u64())
}

impl InternedData {
    /// Starts an interval, empty or holding a copy of `inherit`'s table; returns its id.
    pub fn new_interval(&mut self, inherit: Option<u32>) -> u32 {
        let table = inherit
            .and_then(|i| self.intervals.get(i as usize))
            .cloned()
            .unwrap_or_default();
        self.intervals.push(table);
        (self.intervals.len() - 1) as u32
    }

    /// Interns one message under `field` (its InternedData field number). A message
    /// without an iid is refused (false). An iid already present keeps its first message:
    /// producers must not change an interned value within an interval.
    pub fn add(&mut self, interval: u32, field: u32, message: &[u8]) -> bool {
        let Some(iid) = iid_of(message) else {
            return false;
        };
        let Some(table) = self.intervals.get_mut(interval as usize) else {
            return false;
        };
        if let std::collections::hash_map::Entry::Vacant(slot) = table.entry((field, iid)) {
            slot.insert(Span {
                start: self.bytes.len(),
                len: message.len() as u32,
            });
            self.bytes.extend_from_slice(message);
        }
        true
    }

    /// The message interned as `iid` under `field`.
    pub fn get(&self, interval: u32, field: u32, iid: u64) -> Option<&[u8]> {
        let span = self.intervals.get(interval as usize)?.get(&(field, iid))?;
        Some(&self.bytes[span.start..span.start + span.len as usize])
    }

    /// The value (field 2) of a string-like interned message; empty when it has none.
    pub fn string(&self, interval: u32, field: u32, iid: u64) -> Option<&[u8]> {
        let msg = self.get(interval, field, iid)?;
        Some(
            Fields::new(msg)
                .map_while(Result::ok)
                .find(|(id, _)| *id == STRING_FIELD)
                .map(|(_, v)| v.as_bytes())
                .unwrap_or(&[]),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::{put_field, Value};

    fn name(iid: u64, s: &str) -> Vec<u8> {
        let mut m = Vec::new();
        put_field(&mut m, 1, Value::Varint(iid));
        put_field(&mut m, 2, Value::Bytes(s.as_bytes()));
        m
    }

    #[test]
    fn first_message_for_an_iid_wins_within_an_interval() {
        let mut d = InternedData::default();
        let i = d.new_interval(None);
        assert!(d.add(i, 2, &name(1, "a")));
        assert!(d.add(i, 2, &name(1, "b")));
        assert_eq!(d.string(i, 2, 1), Some(&b"a"[..]));
        // Another field number is another table.
        assert_eq!(d.string(i, 1, 1), None);
    }

    #[test]
    fn loss_copies_the_table_and_clear_empties_it() {
        let mut d = InternedData::default();
        let first = d.new_interval(None);
        d.add(first, 2, &name(7, "x"));
        let after_loss = d.new_interval(Some(first));
        assert_eq!(d.string(after_loss, 2, 7), Some(&b"x"[..]));
        // Writes after the loss do not leak back into the earlier interval.
        d.add(after_loss, 2, &name(8, "y"));
        assert_eq!(d.string(first, 2, 8), None);
        let cleared = d.new_interval(None);
        assert_eq!(d.string(cleared, 2, 7), None);
    }

    #[test]
    fn message_without_iid_is_refused() {
        let mut d = InternedData::default();
        let i = d.new_interval(None);
        let mut m = Vec::new();
        put_field(&mut m, 2, Value::Bytes(b"no id"));
        assert!(!d.add(i, 2, &m));
    }
}
