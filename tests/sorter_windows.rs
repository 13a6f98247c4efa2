//! The sorter's windowed extraction (trace_processor's): after every second flush, a
//! read-buffer event hands on what was pushed before the *previous* read-buffer event. An
//! event older than something already handed on is dropped and counted.

mod common;

use common::pb::{ftrace_packet, print_event, remove_trace, service_event, write_trace};

const FLUSH: u32 = 3;
const READ_BUFFER: u32 = 4;

fn slices_and_drops(bytes: &[u8], test: &str) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let trace = write_trace(test, "windows.perfetto-trace", bytes);
    let slices = common::query_csv(&trace, "select name, ts from slice order by ts");
    let drops = common::query_csv(
        &trace,
        "select value from stats where name = 'sorter_push_event_out_of_order'",
    );
    remove_trace(&trace);
    (slices, drops)
}

#[test]
fn one_flush_per_read_buffer_extracts_nothing_early() {
    // a (ts 200) is pushed; flush, read-buffer; flush, read-buffer; then b (ts 150).
    // Each read-buffer follows a single flush, so nothing is handed on early: b, pushed last,
    // still sorts before a and nothing is dropped.
    let mut t = ftrace_packet(0, &[print_event(200, 1, "B|1|a")], &[]);
    t.extend(service_event(210, FLUSH));
    t.extend(service_event(220, READ_BUFFER));
    t.extend(service_event(230, FLUSH));
    t.extend(service_event(240, READ_BUFFER));
    t.extend(ftrace_packet(
        0,
        &[
            print_event(150, 1, "B|1|b"),
            print_event(300, 1, "E|1"),
            print_event(310, 1, "E|1"),
        ],
        &[],
    ));
    let (slices, drops) = slices_and_drops(&t, "sorter-window-keep");
    assert_eq!(
        slices[1..],
        [["b", "150"], ["a", "200"]].map(|r| r.map(String::from).to_vec())
    );
    assert_eq!(drops.len(), 1, "no out-of-order drop: {drops:?}");
}

#[test]
fn events_older_than_an_extracted_window_are_dropped() {
    // flush, flush, read-buffer: the limit is set after a; flush, flush, read-buffer: a is
    // handed on. b (ts 150) then arrives older than a and is dropped.
    let mut t = ftrace_packet(0, &[print_event(200, 1, "B|1|a")], &[]);
    for ts in [210, 215] {
        t.extend(service_event(ts, FLUSH));
    }
    t.extend(service_event(220, READ_BUFFER));
    for ts in [230, 235] {
        t.extend(service_event(ts, FLUSH));
    }
    t.extend(service_event(240, READ_BUFFER));
    t.extend(ftrace_packet(
        0,
        &[print_event(150, 1, "B|1|b"), print_event(300, 1, "E|1")],
        &[],
    ));
    let (slices, drops) = slices_and_drops(&t, "sorter-window-drop");
    assert_eq!(
        slices[1..],
        [["a", "200"]].map(|r| r.map(String::from).to_vec())
    );
    assert_eq!(drops[1..], [["1".to_string()]]);
}
