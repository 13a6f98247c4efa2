//! Jank tags through the FrameTimeline importer, on frames where the display rule, the
//! surface rule and the present type give different answers (Perfetto's documented rules:
//! a display frame is Self Jank only for SurfaceFlinger/display reasons; a surface frame is
//! Self Jank for app reasons, Other Jank for SurfaceFlinger/display reasons, Buffer Stuffing
//! for that bit alone, and Dropped Frame when SurfaceFlinger dropped it, whatever its bits).

mod common;

use common::pb::{int, msg, remove_trace, trace_packet, write_trace, Value};

/// A TracePacket holding one FrameTimelineEvent (field 76) with `event` as oneof `which`.
fn ft(ts: u64, which: u32, event: &[u8]) -> Vec<u8> {
    let e = msg(&[(which, Value::Bytes(event))]);
    trace_packet(&msg(&[
        (8, Value::Varint(ts)),
        (76, Value::Bytes(&e)),
        (10, Value::Varint(1)),
    ]))
}

/// ActualDisplayFrameStart (oneof 2): cookie 1, token 2, pid 3, present_type 4, jank_type 7.
fn display(cookie: i64, token: i64, present: i64, jank: i64) -> Vec<u8> {
    ft(
        1_000,
        2,
        &msg(&[
            (1, int(cookie)),
            (2, int(token)),
            (3, int(100)),
            (4, int(present)),
            (7, int(jank)),
        ]),
    )
}

/// ActualSurfaceFrameStart (oneof 4): cookie 1, token 2, display_frame_token 3, pid 4,
/// layer_name 5, present_type 6, jank_type 9.
fn surface(cookie: i64, token: i64, present: i64, jank: i64) -> Vec<u8> {
    ft(
        1_000,
        4,
        &msg(&[
            (1, int(cookie)),
            (2, int(token)),
            (3, int(10)),
            (4, int(200)),
            (5, Value::Bytes(b"app#0")),
            (6, int(present)),
            (9, int(jank)),
        ]),
    )
}

/// FrameEnd (oneof 5): cookie 1.
fn end(cookie: i64) -> Vec<u8> {
    ft(2_000, 5, &msg(&[(1, int(cookie))]))
}

#[test]
fn display_and_surface_frames_follow_their_own_rules() {
    const ON_TIME: i64 = 1;
    const LATE: i64 = 2;
    const DROPPED: i64 = 4;
    const NONE: i64 = 1;
    const PREDICTION_ERROR: i64 = 4;
    const APP_DEADLINE_MISSED: i64 = 64;
    const BUFFER_STUFFING: i64 = 128;
    let mut t = Vec::new();
    // Display frames (tokens 10..13).
    t.extend(display(1, 10, LATE, APP_DEADLINE_MISSED)); // not SF's fault: No Jank
    t.extend(display(2, 11, ON_TIME, BUFFER_STUFFING)); // No Jank for a display frame
    t.extend(display(3, 12, LATE, PREDICTION_ERROR)); // SF's own: Self Jank
                                                      // Surface frames (tokens 20..24).
    t.extend(surface(4, 20, DROPPED, NONE)); // dropped: Dropped Frame
    t.extend(surface(5, 21, LATE, BUFFER_STUFFING)); // Buffer Stuffing
    t.extend(surface(6, 22, LATE, PREDICTION_ERROR)); // Other Jank
    t.extend(surface(7, 23, LATE, APP_DEADLINE_MISSED | BUFFER_STUFFING)); // Self Jank
    t.extend(surface(8, 24, ON_TIME, NONE)); // No Jank
    for cookie in 1..=8 {
        t.extend(end(cookie));
    }
    let trace = write_trace("ft-tags", "tags.perfetto-trace", &t);
    let rows = common::query_csv(
        &trace,
        "select coalesce(surface_frame_token, display_frame_token), jank_tag \
         from actual_frame_timeline_slice order by 1",
    );
    remove_trace(&trace);
    let expected = [
        ["10", "No Jank"],
        ["11", "No Jank"],
        ["12", "Self Jank"],
        ["20", "Dropped Frame"],
        ["21", "Buffer Stuffing"],
        ["22", "Other Jank"],
        ["23", "Self Jank"],
        ["24", "No Jank"],
    ];
    assert_eq!(
        rows[1..],
        expected.map(|r| r.map(String::from).to_vec()),
        "{rows:?}"
    );
}
