//! What the tokenizer hands the parse stage for one TrackEvent, packed into the sorter's
//! byte arena so that a queued event costs a few bytes of queue plus its own size: the
//! values worked out from sequence state (each present only when known), the TrackEvent
//! message, then the extra counter values as (track uuid, value) pairs.

/// Sequence-state values of one event.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Header {
    /// TrackEventDefaults.track_uuid of the sequence.
    pub default_track_uuid: Option<u64>,
    /// pid and tid of the sequence's ThreadDescriptor.
    pub thread: Option<(i64, i64)>,
    pub thread_ts: Option<i64>,
    pub thread_instructions: Option<i64>,
    /// Absolute value of a TYPE_COUNTER event.
    pub counter_value: Option<f64>,
}

const DEFAULT_TRACK: u8 = 1;
const THREAD: u8 = 2;
const THREAD_TS: u8 = 4;
const THREAD_INSTRUCTIONS: u8 = 8;
const COUNTER_VALUE: u8 = 16;

/// Writes the header and the event; extra counters are appended with [`push_extra`].
pub fn encode(out: &mut Vec<u8>, h: &Header, event: &[u8]) {
    out.clear();
    out.extend_from_slice(&(event.len() as u32).to_le_bytes());
    let flags = [
        (h.default_track_uuid.is_some(), DEFAULT_TRACK),
        (h.thread.is_some(), THREAD),
        (h.thread_ts.is_some(), THREAD_TS),
        (h.thread_instructions.is_some(), THREAD_INSTRUCTIONS),
        (h.counter_value.is_some(), COUNTER_VALUE),
    ]
    .iter()
    .filter(|(set, _)| *set)
    .fold(0u8, |acc, (_, bit)| acc | bit);
    out.push(flags);
    let mut put = |v: u64| out.extend_from_slice(&v.to_le_bytes());
    if let Some(u) = h.default_track_uuid {
        put(u);
    }
    if let Some((pid, tid)) = h.thread {
        put(pid as u64);
        put(tid as u64);
    }
    if let Some(t) = h.thread_ts {
        put(t as u64);
    }
    if let Some(i) = h.thread_instructions {
        put(i as u64);
    }
    if let Some(c) = h.counter_value {
        put(c.to_bits());
    }
    out.extend_from_slice(event);
}

pub fn push_extra(out: &mut Vec<u8>, uuid: u64, value: f64) {
    out.extend_from_slice(&uuid.to_le_bytes());
    out.extend_from_slice(&value.to_le_bytes());
}

/// Splits a payload into header, event and extra counter pairs (16 bytes each); None when
/// it is not one [`encode`] wrote.
pub fn decode(payload: &[u8]) -> Option<(Header, &[u8], &[u8])> {
    let len = u32::from_le_bytes(payload.get(..4)?.try_into().ok()?) as usize;
    let flags = *payload.get(4)?;
    let mut at = 5;
    let mut take = |set: u8| -> Option<Option<u64>> {
        if flags & set == 0 {
            return Some(None);
        }
        let v = u64::from_le_bytes(payload.get(at..at + 8)?.try_into().ok()?);
        at += 8;
        Some(Some(v))
    };
    let mut h = Header {
        default_track_uuid: take(DEFAULT_TRACK)?,
        ..Default::default()
    };
    if let Some(pid) = take(THREAD)? {
        let tid = take(THREAD)?.unwrap_or(0);
        h.thread = Some((pid as i64, tid as i64));
    }
    h.thread_ts = take(THREAD_TS)?.map(|v| v as i64);
    h.thread_instructions = take(THREAD_INSTRUCTIONS)?.map(|v| v as i64);
    h.counter_value = take(COUNTER_VALUE)?.map(f64::from_bits);
    let event = payload.get(at..at + len)?;
    Some((h, event, &payload[at + len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_and_without_optional_values() {
        let mut buf = Vec::new();
        for h in [
            Header::default(),
            Header {
                default_track_uuid: Some(7),
                thread: Some((10, -1)),
                thread_ts: Some(5),
                thread_instructions: None,
                counter_value: Some(2.5),
            },
        ] {
            encode(&mut buf, &h, b"event");
            push_extra(&mut buf, 3, 1.5);
            let (got, event, extra) = decode(&buf).unwrap();
            assert_eq!(got, h);
            assert_eq!(event, b"event");
            assert_eq!(extra.len(), 16);
        }
        assert!(decode(&[1, 0]).is_none());
    }
}
