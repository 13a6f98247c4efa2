//! TraceStats (TracePacket field 35): the tracing service's own counters, written at the end
//! of the trace. Stored under trace_processor's stat names and severities (`traced_*`,
//! `traced_buf_*` indexed by buffer); the trust grade reads the ones that mean lost data.
//! The per-writer loss attribution (which needs the writer's sequence) is not mirrored.

use crate::store::{Severity, Store};
use crate::trace::wire::{repeated, slots};

use Severity::{DataLoss, Info};

/// TraceStats fields: (field number, stat name, severity).
const SERVICE: [(usize, &str, Severity); 11] = [
    (2, "traced_producers_connected", Info),
    (3, "traced_producers_seen", Info),
    (4, "traced_data_sources_registered", Info),
    (5, "traced_data_sources_seen", Info),
    (6, "traced_tracing_sessions", Info),
    (7, "traced_total_buffers", Info),
    (8, "traced_chunks_discarded", Info),
    (9, "traced_patches_discarded", Info),
    (12, "traced_flushes_requested", Info),
    (13, "traced_flushes_succeeded", Info),
    (14, "traced_flushes_failed", DataLoss),
];

/// TraceStats.BufferStats fields, in trace_processor's order.
const BUFFER: [(usize, &str, Severity); 20] = [
    (12, "traced_buf_buffer_size", Info),
    (1, "traced_buf_bytes_written", Info),
    (13, "traced_buf_bytes_overwritten", Info),
    (14, "traced_buf_bytes_read", Info),
    (15, "traced_buf_padding_bytes_written", Info),
    (16, "traced_buf_padding_bytes_cleared", Info),
    (2, "traced_buf_chunks_written", Info),
    (10, "traced_buf_chunks_rewritten", Info),
    (3, "traced_buf_chunks_overwritten", Info),
    (18, "traced_buf_chunks_discarded", Info),
    (17, "traced_buf_chunks_read", Info),
    (20, "traced_buf_chunks_relocated", Info),
    (11, "traced_buf_chunks_committed_out_of_order", Info),
    (4, "traced_buf_write_wrap_count", Info),
    (5, "traced_buf_patches_succeeded", Info),
    (6, "traced_buf_patches_failed", DataLoss),
    (7, "traced_buf_readaheads_succeeded", Info),
    (8, "traced_buf_readaheads_failed", Info),
    (9, "traced_buf_abi_violations", DataLoss),
    (19, "traced_buf_trace_writer_packet_loss", DataLoss),
];

const FINAL_FLUSH_SUCCEEDED: u64 = 1;
const FINAL_FLUSH_FAILED: u64 = 2;

/// Stats whose non-zero value means data the trace should hold is missing (ring buffer
/// overwrites, a full DISCARD buffer, failed patches and flushes, writer packet loss).
pub const LOSS_STATS: [&str; 7] = [
    "traced_buf_chunks_overwritten",
    "traced_buf_chunks_discarded",
    "traced_buf_patches_failed",
    "traced_buf_abi_violations",
    "traced_buf_trace_writer_packet_loss",
    "traced_flushes_failed",
    "traced_final_flush_failed",
];

pub fn trace_stats(store: &mut Store, data: &[u8]) {
    let top = slots::<16>(data);
    for (field, name, sev) in SERVICE {
        let v = top[field].map_or(0, |v| v.as_i64());
        store.stat_set(name, -1, sev, "", v);
    }
    match top[15].map(|v| v.as_u64()) {
        Some(FINAL_FLUSH_SUCCEEDED) => {
            store.stat_add("traced_final_flush_succeeded", -1, Info, "", 1)
        }
        Some(FINAL_FLUSH_FAILED) => store.stat_add(
            "traced_final_flush_failed",
            -1,
            DataLoss,
            "The final flush of the trace failed: the data sources' last events may be missing.",
            1,
        ),
        _ => {}
    }
    for (i, buf) in repeated(data, 1).enumerate() {
        let b = slots::<21>(buf.as_bytes());
        for (field, name, sev) in BUFFER {
            let v = b[field].map_or(0, |v| v.as_i64());
            store.stat_set(name, i as i64, sev, "", v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::Msg;

    #[test]
    fn service_and_buffer_stats_under_trace_processors_names() {
        let msg = Msg::default()
            .msg(1, Msg::default().int(12, 4096).int(3, 7).int(18, 2))
            .msg(1, Msg::default().int(12, 1024))
            .int(2, 5)
            .int(14, 1)
            .int(15, 2);
        let mut s = Store::default();
        trace_stats(&mut s, &msg.0);
        let v = |n: &str, i: i64| s.stats.get(&(n, i)).map(|e| (e.value, e.severity));
        assert_eq!(v("traced_buf_buffer_size", 0), Some((4096, Info)));
        assert_eq!(v("traced_buf_buffer_size", 1), Some((1024, Info)));
        assert_eq!(v("traced_buf_chunks_overwritten", 0), Some((7, Info)));
        assert_eq!(v("traced_buf_chunks_discarded", 0), Some((2, Info)));
        // Fields the packet lacks read 0, as protozero's defaults do.
        assert_eq!(v("traced_buf_chunks_overwritten", 1), Some((0, Info)));
        assert_eq!(v("traced_producers_connected", -1), Some((5, Info)));
        assert_eq!(v("traced_flushes_failed", -1), Some((1, DataLoss)));
        assert_eq!(v("traced_final_flush_failed", -1), Some((1, DataLoss)));
        assert_eq!(v("traced_final_flush_succeeded", -1), None);
    }

    #[test]
    fn a_second_packet_overwrites_set_stats() {
        let mut s = Store::default();
        trace_stats(&mut s, &Msg::default().int(8, 3).0);
        trace_stats(&mut s, &Msg::default().int(8, 5).0);
        assert_eq!(s.stat_value("traced_chunks_discarded"), 5);
    }
}
