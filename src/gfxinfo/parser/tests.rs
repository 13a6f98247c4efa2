use super::*;
use crate::gfxinfo::frame_info::FrameInfoIndex as I;

/// Android 13–14 header: the names say FrameInterval before FrameStartTime.
const H23: &str = "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,\
AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,\
SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,\
QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,\
CommandSubmissionCompleted,";

/// A 23-column row in HWUI's value order (deadline, start time, interval).
fn row23(iv: i64) -> String {
    let v = [
        0,
        7,
        iv,
        iv,
        0,
        iv + 1_000_000,
        iv + 1_100_000,
        iv + 1_200_000,
        iv + 2_000_000,
        iv + 16_666_667, // FrameDeadline
        iv + 900_000,    // FrameStartTime (printed under "FrameInterval")
        16_666_667,      // FrameInterval (printed under "FrameStartTime")
        iv + 3_000_000,  // SyncQueued
        iv + 3_100_000,  // SyncStart
        iv + 4_000_000,  // IssueDrawCommandsStart
        iv + 6_000_000,  // SwapBuffers
        iv + 8_000_000,  // FrameCompleted
        200_000,         // DequeueBufferDuration
        300_000,         // QueueBufferDuration
        iv + 7_500_000,  // GpuCompleted
        iv + 8_000_000,  // SwapBuffersCompleted
        0,               // DisplayPresentTime
        iv + 6_000_000,  // CommandSubmissionCompleted
    ];
    let mut s = v.map(|x| x.to_string()).join(",");
    s.push(',');
    s
}

const IV: i64 = 25_821_299_661_779;

fn package_dump(rows: &[String]) -> String {
    format!(
        "Applications Graphics Acceleration Info:\n\
         Uptime: 1 Realtime: 1\n\
         \n\
         ** Graphics info for pid 1955 [com.example] **\n\
         \n\
         Stats since: 100ns\n\
         Total frames rendered: 9\n\
         Janky frames: 1 (11.11%)\n\
         \n\
         Profile data in ms:\n\
         \n\
         \tcom.example/com.example.Main/android.view.ViewRootImpl@1634b91 (visibility=0)\n\
         Window: com.example/com.example.Main\n\
         Stats since: 25821584679461ns\n\
         Total frames rendered: 2\n\
         Janky frames: 1 (50.00%)\n\
         Janky frames (legacy): 2 (100.00%)\n\
         50th percentile: 13ms\n\
         90th percentile: 73ms\n\
         95th percentile: 150ms\n\
         99th percentile: 550ms\n\
         Number Missed Vsync: 6\n\
         Number High input latency: 39\n\
         Number Slow UI thread: 7\n\
         Number Slow bitmap uploads: 0\n\
         Number Slow issue draw commands: 2\n\
         Number Frame deadline missed: 8\n\
         Number Frame deadline missed (legacy): 9\n\
         HISTOGRAM: 5ms=0 6ms=1 150ms=2\n\
         50th gpu percentile: 5ms\n\
         90th gpu percentile: 7ms\n\
         95th gpu percentile: 7ms\n\
         99th gpu percentile: 11ms\n\
         GPU HISTOGRAM: 1ms=0 4ms=14 4950ms=1\n\
         \n\
         \n\
         \n\
         ---PROFILEDATA---\n\
         {H23}\n\
         {}\n\
         ---PROFILEDATA---\n\
         \n\
         \n\
         View hierarchy:\n\
         \n\
         \x20 com.example/com.example.Main/android.view.ViewRootImpl@1634b91\n\
         \x20 57 views, 71.25 kB of render nodes\n",
        rows.join("\n")
    )
}

#[test]
fn decode_handles_utf16le_with_bom_and_crlf() {
    let text = "Window: X\r\n---PROFILEDATA---\r\n";
    let mut bytes = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    let decoded = decode(&bytes);
    assert_eq!(decoded, text);
    let lines: Vec<&str> = decoded.lines().collect();
    assert_eq!(lines, vec!["Window: X", "---PROFILEDATA---"]);
}

#[test]
fn decode_handles_utf16_without_bom_and_utf8_bom() {
    let text = "Applications Graphics Acceleration Info:\n";
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    assert_eq!(decode(&le), text);
    assert_eq!(decode(&be), text);
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(text.as_bytes());
    assert_eq!(decode(&bom), text);
    assert_eq!(decode(text.as_bytes()), text);
    // Invalid UTF-8 does not fail.
    assert!(decode(&[b'a', 0xFF, b'b']).contains('a'));
}

#[test]
fn package_dump_yields_one_window_with_its_summary_and_rows() {
    let dump = parse(&package_dump(&[row23(IV), row23(IV + 16_666_667)])).unwrap();
    assert!(dump.diagnostics.is_empty(), "{:?}", dump.diagnostics);
    assert_eq!(dump.windows.len(), 1);
    let w = &dump.windows[0];
    assert_eq!(w.name, "com.example/com.example.Main");
    assert_eq!(w.process.as_deref(), Some("com.example"));
    assert_eq!(w.pid, Some(1955));
    assert_eq!(w.summary_source, Some(SummarySource::Window));
    let s = w.summary.as_ref().unwrap();
    assert_eq!(s.stats_since_ns, Some(25_821_584_679_461));
    assert_eq!(s.total_frames, Some(2));
    assert_eq!(s.janky_frames, Some(1));
    assert_eq!(s.janky_frames_legacy, Some(2));
    assert_eq!(s.percentiles_ms, [Some(13), Some(73), Some(150), Some(550)]);
    assert_eq!(s.jank_type(JankType::MissedVsync), Some(6));
    assert_eq!(s.jank_type(JankType::HighInputLatency), Some(39));
    assert_eq!(s.jank_type(JankType::SlowUi), Some(7));
    assert_eq!(s.jank_type(JankType::SlowSync), Some(0));
    assert_eq!(s.jank_type(JankType::SlowRt), Some(2));
    assert_eq!(s.jank_type(JankType::MissedDeadline), Some(8));
    assert_eq!(s.jank_type(JankType::MissedDeadlineLegacy), Some(9));
    assert_eq!(s.histogram, Some(vec![(5, 0), (6, 1), (150, 2)]));
    assert_eq!(s.gpu_percentiles_ms, [Some(5), Some(7), Some(7), Some(11)]);
    assert_eq!(s.gpu_histogram, Some(vec![(1, 0), (4, 14), (4950, 1)]));
    let b = &w.block;
    assert_eq!(b.rows.len(), 2);
    assert_eq!(b.close_line.map(|c| c - b.open_line), Some(4));
    assert_eq!(b.rows[0].line, b.open_line + 2);
}

#[test]
fn header_pitfall_is_detected_from_the_data() {
    // Under "FrameInterval" the rows hold iv+0.9 ms (a timestamp next to IntendedVsync),
    // under "FrameStartTime" 16666667 (a period): the values are swapped against the names.
    let dump = parse(&package_dump(&[row23(IV), row23(IV + 16_666_667)])).unwrap();
    let b = &dump.windows[0].block;
    let cols = b.columns.as_ref().unwrap();
    assert_eq!(
        cols.start_interval,
        StartIntervalOrder::Swapped {
            decided_by_data: true
        }
    );
    assert_eq!(cols.position(I::FrameStartTime), Some(10));
    assert_eq!(cols.position(I::FrameInterval), Some(11));
    let f = cols.frame_info(&b.rows[0]);
    assert_eq!(f.get(I::FrameInterval), 16_666_667);
    assert_eq!(f.get(I::FrameStartTime), IV + 900_000);
    assert_eq!(f.get(I::FrameDeadline), IV + 16_666_667);
}

#[test]
fn later_header_with_start_time_before_interval_is_taken_as_named() {
    // Later AOSP prints "FrameDeadline,FrameStartTime,FrameInterval", matching the values.
    let header = H23.replace(
        "FrameDeadline,FrameInterval,FrameStartTime",
        "FrameDeadline,FrameStartTime,FrameInterval",
    );
    let text = package_dump(&[row23(IV)]).replace(H23, &header);
    let dump = parse(&text).unwrap();
    let cols = dump.windows[0].block.columns.as_ref().unwrap();
    assert_eq!(
        cols.start_interval,
        StartIntervalOrder::AsNamed {
            decided_by_data: true
        }
    );
    let f = cols.frame_info(&dump.windows[0].block.rows[0]);
    assert_eq!(f.get(I::FrameInterval), 16_666_667);
}

#[test]
fn header_pitfall_without_rows_follows_hwui_enum_order() {
    // No data to look at: the first of the two positions is FrameStartTime (enum order),
    // so the Android 12–14 names are swapped.
    let dump = parse(&package_dump(&[])).unwrap();
    let cols = dump.windows[0].block.columns.as_ref().unwrap();
    assert_eq!(
        cols.start_interval,
        StartIntervalOrder::Swapped {
            decided_by_data: false
        }
    );
    assert!(dump.windows[0].block.rows.is_empty());
}

#[test]
fn whole_device_dump_keeps_processes_and_windows_apart() {
    // Two processes; the second has two windows, one of them with an empty block. An
    // Android 9-style process (no Window: lines) takes its name from the ViewRootImpl line
    // and lends the process summary to its single block.
    let h16 = "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,\
AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,\
SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,";
    let r16 = "0,1000000000,1000000000,9223372036854775807,0,1000100000,1000200000,1000300000,\
1000400000,1000500000,1000600000,1000700000,1000800000,1000900000,0,0,";
    let text = format!(
        "** Graphics info for pid 10 [old.app] **\n\
         Stats since: 5ns\n\
         Total frames rendered: 1\n\
         Janky frames: 0 (0.00%)\n\
         Profile data in ms:\n\
         \told.app/old.app.Main/android.view.ViewRootImpl@5d5eb6 (visibility=0)\n\
         \tDraw\tPrepare\tProcess\tExecute\n\
         \t50.00\t0.17\t3.02\t1.35\n\
         \n\
         ---PROFILEDATA---\n{h16}\n{r16}\n---PROFILEDATA---\n\
         \n\
         ** Graphics info for pid 20 [new.app] **\n\
         Total frames rendered: 40\n\
         Profile data in ms:\n\
         Window: new.app/new.app.A\n\
         Total frames rendered: 1\n\
         ---PROFILEDATA---\n{H23}\n{}\n---PROFILEDATA---\n\
         Window: Toast\n\
         Total frames rendered: 0\n\
         ---PROFILEDATA---\n{H23}\n---PROFILEDATA---\n",
        row23(IV)
    );
    let dump = parse(&text).unwrap();
    assert!(dump.diagnostics.is_empty(), "{:?}", dump.diagnostics);
    let names: Vec<(&str, Option<&str>, Option<u32>)> = dump
        .windows
        .iter()
        .map(|w| (w.name.as_str(), w.process.as_deref(), w.pid))
        .collect();
    assert_eq!(
        names,
        vec![
            ("old.app/old.app.Main", Some("old.app"), Some(10)),
            ("new.app/new.app.A", Some("new.app"), Some(20)),
            ("Toast", Some("new.app"), Some(20)),
        ]
    );
    assert_eq!(dump.windows[0].summary_source, Some(SummarySource::Process));
    assert_eq!(
        dump.windows[0].summary.as_ref().unwrap().total_frames,
        Some(1)
    );
    assert_eq!(
        dump.windows[0]
            .block
            .columns
            .as_ref()
            .unwrap()
            .start_interval,
        StartIntervalOrder::NotApplicable
    );
    assert_eq!(
        dump.windows[1].summary.as_ref().unwrap().total_frames,
        Some(1)
    );
    assert_eq!(dump.windows[2].block.rows.len(), 0);
    assert_eq!(
        dump.windows[2].summary.as_ref().unwrap().total_frames,
        Some(0)
    );
}

#[test]
fn bad_rows_are_reported_by_line_and_skipped() {
    let good = row23(IV);
    let truncated = good.split(',').take(12).collect::<Vec<_>>().join(",");
    let non_numeric = good.replacen(&format!("{}", IV + 3_100_000), "12abc", 1);
    let extra = format!("{good}5,");
    let text = package_dump(&[
        good.clone(),
        truncated,
        non_numeric,
        extra,
        row23(IV + 33_333_334),
    ]);
    let dump = parse(&text).unwrap();
    let b = &dump.windows[0].block;
    assert_eq!(b.rows.len(), 2);
    assert_eq!(b.bad_rows, 3);
    let first = b.rows[0].line;
    let lines: Vec<usize> = dump.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![first + 1, first + 2, first + 3]);
    assert!(dump.diagnostics[0]
        .message
        .contains("truncated row: 12 of the 23"));
    assert!(dump.diagnostics[1]
        .message
        .contains("column 14 (SyncStart) is not an integer: \"12abc\""));
    assert!(dump.diagnostics[2].message.contains("24 cells"));
    assert_eq!(
        dump.diagnostics[0].to_string(),
        format!("line {}: {}", first + 1, dump.diagnostics[0].message)
    );
}

#[test]
fn unknown_columns_are_reported_and_ignored() {
    // A vendor variant replaces CommandSubmissionCompleted with MetaDataFps.
    let header = H23.replace("CommandSubmissionCompleted", "MetaDataFps");
    let text = package_dump(&[row23(IV)]).replace(H23, &header);
    let dump = parse(&text).unwrap();
    assert_eq!(dump.diagnostics.len(), 1);
    assert!(dump.diagnostics[0]
        .message
        .contains("unknown column \"MetaDataFps\" (position 23)"));
    let b = &dump.windows[0].block;
    assert_eq!(Some(dump.diagnostics[0].line), b.header_line);
    let cols = b.columns.as_ref().unwrap();
    assert!(!cols.has(I::CommandSubmissionCompleted));
    assert_eq!(b.rows.len(), 1);
}

#[test]
fn block_without_required_columns_is_reported_and_others_still_read() {
    let broken = "---PROFILEDATA---\nFlags,Vsync,Foo,\n0,1,2,\n---PROFILEDATA---\n";
    let text = format!("{broken}\n{}", package_dump(&[row23(IV)]));
    let dump = parse(&text).unwrap();
    assert_eq!(dump.windows.len(), 2);
    let problem = dump.windows[0].block.problem.as_deref().unwrap();
    assert!(problem.contains("IntendedVsync"), "{problem}");
    assert!(dump.windows[0].block.rows.is_empty());
    assert!(dump
        .diagnostics
        .iter()
        .any(|d| d.line == 2 && d.message.contains("required column")));
    assert_eq!(dump.windows[1].block.rows.len(), 1);
}

#[test]
fn block_cut_short_keeps_its_rows() {
    let text = format!(
        "Window: w\n---PROFILEDATA---\n{H23}\n{}\n{}\n",
        row23(IV),
        row23(IV + 16_666_667)
    );
    let dump = parse(&text).unwrap();
    assert_eq!(dump.windows[0].block.rows.len(), 2);
    assert_eq!(dump.windows[0].block.close_line, None);
    assert_eq!(dump.diagnostics.len(), 1);
    assert!(dump.diagnostics[0].message.contains("no closing marker"));
    assert!(dump.diagnostics[0].message.contains("opened at line 2"));
}

#[test]
fn block_followed_by_text_without_end_marker_ends_there() {
    let text = format!(
        "Window: a\n---PROFILEDATA---\n{H23}\n{}\nWindow: b\n---PROFILEDATA---\n{H23}\n{}\n---PROFILEDATA---\n",
        row23(IV),
        row23(IV)
    );
    let dump = parse(&text).unwrap();
    let names: Vec<&str> = dump.windows.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b"]);
    assert_eq!(dump.diagnostics.len(), 1);
    assert_eq!(dump.diagnostics[0].line, 5);
}

#[test]
fn block_without_header_is_reported() {
    let text = "Window: a\n---PROFILEDATA---\n---PROFILEDATA---\n";
    let dump = parse(text).unwrap();
    assert!(dump.windows[0].block.problem.is_some());
    assert_eq!(dump.diagnostics[0].line, 2);
}

#[test]
fn dump_without_profiledata_is_an_error_that_says_why() {
    let text = "** Graphics info for pid 1 [a] **\nTotal frames rendered: 3\nJanky frames: 0\n";
    let err = parse(text).unwrap_err().to_string();
    assert!(
        err.contains("no `---PROFILEDATA---` block in 3 lines"),
        "{err}"
    );
    assert!(err.contains("1 printed summaries"), "{err}");
    assert!(err.contains("framestats"), "{err}");
}

#[test]
fn summary_parser_ignores_unrelated_lines() {
    let mut s = PrintedSummary::default();
    assert!(!s.absorb("Pipeline=Skia (OpenGL)"));
    assert!(!s.absorb("Number of things: 3"));
    assert!(!s.absorb("12th percentile: 3ms"));
    assert!(s.absorb("  Number Slow draw: 4".trim()));
    assert_eq!(s.jank_type(JankType::SlowRt), Some(4));
    assert!(s.absorb("Janky frames (legacy): 35 (18.62%)"));
    assert_eq!(s.janky_frames, None);
    assert_eq!(s.janky_frames_legacy, Some(35));
}

#[test]
fn filtered_data_note_is_kept_with_the_window_summary() {
    // JankTracker::dumpData prints the note between the Window: line and the summary when
    // filterOutTestOverhead moved the legacy frame start to HandleInputStart.
    let text = package_dump(&[row23(IV)]).replace(
        "Window: com.example/com.example.Main\n",
        "Window: com.example/com.example.Main\nNote: Data has been filtered!\n",
    );
    let dump = parse(&text).unwrap();
    let s = dump.windows[0].summary.as_ref().unwrap();
    assert!(s.filtered);
    assert_eq!(s.total_frames, Some(2));
    let plain = parse(&package_dump(&[row23(IV)])).unwrap();
    assert!(!plain.windows[0].summary.as_ref().unwrap().filtered);
}
