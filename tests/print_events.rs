//! Print events (atrace) as trace_processor reads them. The loading thread queues a print as
//! its pid and text alone (`Sorter::push_print`); these are the envelope's rules that this
//! must keep: the text is the print's last `buf` field, the kernel address beside it is
//! skipped, the fields may come in any order before the payload, and a print without a pid
//! is dropped and counted.

mod common;

use common::pb::{ftrace_packet, msg, print_event, remove_trace, write_trace, Value};

fn rows(r: &[&[&str]]) -> Vec<Vec<String>> {
    r.iter()
        .map(|row| row.iter().map(|c| c.to_string()).collect())
        .collect()
}

#[test]
fn a_print_is_its_last_buf_on_the_thread_of_its_pid() {
    // ip (1), then buf (2) twice: "B|5|second" is the text.
    let print = msg(&[
        (1, Value::Varint(0xffff_ffc0_1234_5678)),
        (2, Value::Bytes(b"B|5|first")),
        (2, Value::Bytes(b"B|5|second")),
    ]);
    // pid before timestamp: the order of the envelope's fields does not matter.
    let reordered = msg(&[
        (2, Value::Varint(6)),
        (1, Value::Varint(150)),
        (3, Value::Bytes(&print)),
    ]);
    let t = ftrace_packet(
        0,
        &[
            reordered,
            print_event(400, 6, "E|5"),
            print_event(500, 7, "B|5|other"),
        ],
        &[],
    );
    let trace = write_trace("print-events-last-buf", "last-buf.perfetto-trace", &t);
    let slices = common::query_csv(
        &trace,
        "select s.name, s.ts, s.dur, t.tid from slice s join thread_track tt on s.track_id = tt.id \
         join thread t using (utid) order by s.ts",
    );
    remove_trace(&trace);
    assert_eq!(
        slices[1..],
        rows(&[&["second", "150", "250", "6"], &["other", "500", "-1", "7"]])
    );
}

#[test]
fn a_print_without_a_pid_is_dropped_and_counted() {
    let print = msg(&[(2, Value::Bytes(b"B|5|orphan"))]);
    let no_pid = msg(&[(1, Value::Varint(100)), (3, Value::Bytes(&print))]);
    let t = ftrace_packet(0, &[no_pid, print_event(200, 6, "B|5|kept")], &[]);
    let trace = write_trace("print-events-no-pid", "no-pid.perfetto-trace", &t);
    let slices = common::query_csv(&trace, "select name, ts from slice order by ts");
    let stat = common::query_csv(
        &trace,
        "select value from stats where name = 'ftrace_missing_pid'",
    );
    remove_trace(&trace);
    assert_eq!(slices[1..], rows(&[&["kept", "200"]]));
    assert_eq!(stat[1..], rows(&[&["1"]]));
}
