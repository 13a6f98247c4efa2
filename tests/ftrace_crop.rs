//! ftrace events older than `tracing_started` are dropped, as trace_processor does, and counted
//! in the `ftrace_packet_before_tracing_start` stat (one per dropped event).

mod common;

use common::pb::{ftrace_packet, print_event, remove_trace, service_event, write_trace};

const TRACING_STARTED: u32 = 2;

#[test]
fn events_before_tracing_started_are_dropped_and_counted() {
    // Tracing starts at 1000. Three events come before it (two in one bundle, one in another
    // on a second CPU) and two after: by hand, 3 dropped and one slice, "kept", from 1100.
    let mut t = service_event(1000, TRACING_STARTED);
    t.extend(ftrace_packet(
        0,
        &[print_event(100, 1, "B|1|early"), print_event(200, 1, "E|1")],
        &[],
    ));
    t.extend(ftrace_packet(1, &[print_event(300, 1, "B|1|early2")], &[]));
    t.extend(ftrace_packet(
        0,
        &[
            print_event(1100, 1, "B|1|kept"),
            print_event(1200, 1, "E|1"),
        ],
        &[],
    ));
    let trace = write_trace("ftrace-crop", "crop.perfetto-trace", &t);
    let slices = common::query_csv(&trace, "select name, ts, dur from slice order by ts");
    let stat = common::query_csv(
        &trace,
        "select idx, severity, value from stats where name = 'ftrace_packet_before_tracing_start'",
    );
    remove_trace(&trace);
    assert_eq!(
        slices[1..],
        [["kept", "1100", "100"]].map(|r| r.map(String::from).to_vec())
    );
    assert_eq!(
        stat[1..],
        [["", "info", "3"]].map(|r| r.map(String::from).to_vec())
    );
}
