//! Reader for `dumpsys gfxinfo [<pkg>] framestats` text.
//!
//! A dump holds one `** Graphics info for pid N [name] **` section per process (one for a
//! package dump, dozens for a whole-device dump). Inside, HWUI prints a summary for the
//! process, then per window (Android 10+) a `Window: NAME` line, the window's summary and a
//! `---PROFILEDATA---` block: a header line naming the columns, then one comma-separated
//! row of FrameInfo values per frame still in the 120-entry ring buffer.
//!
//! Columns are matched by header name, because the set differs between releases (14 to 25
//! columns). One exception, the header pitfall of Android 12–14: their name list says
//! `FrameDeadline,FrameInterval,FrameStartTime` while the values follow HWUI's enum order
//! (deadline, start time, interval). See [`StartIntervalOrder`] for how it is resolved.
//!
//! Damage (truncated or non-numeric rows, unknown columns, blocks without an end marker)
//! is reported as [`Diagnostic`]s naming the line; the rest of the dump is still read.

use super::frame_info::{FrameInfo, FrameInfoIndex};
use super::jank_type::JankType;
use super::GfxinfoError;

const BLOCK_MARKER: &str = "---PROFILEDATA---";

/// HWUI prints at most [`FIELD_COUNT`](super::frame_info::FIELD_COUNT) columns; a header
/// naming more than this is not one (a 10^6-column line would otherwise become 10^6
/// "unknown column" warnings).
pub const MAX_COLUMNS: usize = 64;

/// Cells are nanosecond timestamps, durations or ids: a magnitude above 2^61 ns (73 years)
/// is not something HWUI wrote, and refusing it keeps every sum and difference of a row's
/// cells inside i64. `OldestInputEvent` alone may hold i64::MAX, HWUI's "no input" value.
pub const MAX_CELL_MAGNITUDE: i64 = 1 << 61;

/// Row-level warnings kept per block; the rest are counted in one summary line.
pub const ROW_DIAGNOSTICS_PER_BLOCK: usize = 20;

/// Columns without which a row cannot be replayed.
pub const REQUIRED_COLUMNS: [FrameInfoIndex; 7] = [
    FrameInfoIndex::IntendedVsync,
    FrameInfoIndex::Vsync,
    FrameInfoIndex::SyncQueued,
    FrameInfoIndex::SyncStart,
    FrameInfoIndex::IssueDrawCommandsStart,
    FrameInfoIndex::SwapBuffers,
    FrameInfoIndex::FrameCompleted,
];

/// A problem found while reading, with the 1-based line it is about (0: the whole input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

/// [`decode`] taking the bytes: valid UTF-8 without a BOM (the common case) becomes the
/// text without a copy, which matters for dumps of hundreds of megabytes.
pub fn decode_owned(bytes: Vec<u8>) -> String {
    let plain_utf8 = !bytes.starts_with(&[0xFF, 0xFE])
        && !bytes.starts_with(&[0xFE, 0xFF])
        && !bytes.starts_with(&[0xEF, 0xBB, 0xBF])
        && !looks_like_utf16(&bytes);
    if plain_utf8 {
        match String::from_utf8(bytes) {
            Ok(s) => return s,
            Err(e) => return decode(e.as_bytes()),
        }
    }
    decode(&bytes)
}

/// No BOM: ASCII text in UTF-16 has a zero in every other byte.
fn looks_like_utf16(bytes: &[u8]) -> bool {
    let sample = &bytes[..bytes.len().min(4096) & !1];
    sample.len() >= 8 && sample.contains(&0)
}

/// Text of a dump file: UTF-8 (with or without BOM) or UTF-16 (a PowerShell `>` redirect
/// writes UTF-16LE with a BOM). Invalid sequences become U+FFFD; never fails.
pub fn decode(bytes: &[u8]) -> String {
    fn utf16(bytes: &[u8], little: bool) -> String {
        let units = bytes.chunks_exact(2).map(|c| {
            if little {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, true);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, false);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    // No BOM: ASCII text in UTF-16 has a zero in every other byte.
    let sample = &bytes[..bytes.len().min(4096) & !1];
    if sample.len() >= 8 {
        let zeros_at = |parity: usize| {
            sample
                .iter()
                .skip(parity)
                .step_by(2)
                .filter(|b| **b == 0)
                .count()
        };
        let half = sample.len() / 2;
        if zeros_at(1) * 10 >= half * 9 && zeros_at(0) == 0 {
            return utf16(bytes, true);
        }
        if zeros_at(0) * 10 >= half * 9 && zeros_at(1) == 0 {
            return utf16(bytes, false);
        }
    }
    String::from_utf8_lossy(bytes).into_owned()
}

/// HWUI's printed summary (`ProfileData::dump`). Every field is optional: releases and
/// vendors print different subsets (some omit the percentile lines).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintedSummary {
    /// Line of the first summary line.
    pub line: usize,
    pub stats_since_ns: Option<u64>,
    pub total_frames: Option<u32>,
    pub janky_frames: Option<u32>,
    pub janky_frames_legacy: Option<u32>,
    /// 50th, 90th, 95th, 99th percentile (ms).
    pub percentiles_ms: [Option<u32>; 4],
    /// `Number <type>: N`, indexed like [`JankType::ALL`].
    pub jank_types: [Option<u32>; JankType::COUNT],
    /// `HISTOGRAM:` as (label ms, count).
    pub histogram: Option<Vec<(u32, u32)>>,
    pub gpu_percentiles_ms: [Option<u32>; 4],
    pub gpu_histogram: Option<Vec<(u32, u32)>>,
    /// "Note: Data has been filtered!": the device ran with filterOutTestOverhead.
    pub filtered: bool,
}

pub const PERCENTILES: [u32; 4] = [50, 90, 95, 99];

impl PrintedSummary {
    pub fn jank_type(&self, t: JankType) -> Option<u32> {
        self.jank_types[t as usize]
    }

    /// Reads one summary line into `self`; false if the line is not a summary line.
    fn absorb(&mut self, line: &str) -> bool {
        fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
            s.trim().parse().ok()
        }
        fn leading<T: std::str::FromStr>(s: &str) -> Option<T> {
            let digits: String = s
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        }
        fn histogram(s: &str) -> Vec<(u32, u32)> {
            s.split_whitespace()
                .filter_map(|e| {
                    let (ms, count) = e.split_once("ms=")?;
                    Some((ms.parse().ok()?, count.parse().ok()?))
                })
                .collect()
        }
        if line.starts_with("Note: Data has been filtered") {
            self.filtered = true;
        } else if let Some(v) = line.strip_prefix("Stats since:") {
            self.stats_since_ns = leading(v);
        } else if let Some(v) = line.strip_prefix("Total frames rendered:") {
            self.total_frames = num(v);
        } else if let Some(v) = line.strip_prefix("Janky frames (legacy):") {
            self.janky_frames_legacy = leading(v);
        } else if let Some(v) = line.strip_prefix("Janky frames:") {
            self.janky_frames = leading(v);
        } else if let Some(v) = line.strip_prefix("GPU HISTOGRAM:") {
            self.gpu_histogram = Some(histogram(v));
        } else if let Some(v) = line.strip_prefix("HISTOGRAM:") {
            self.histogram = Some(histogram(v));
        } else if let Some(v) = line.strip_prefix("Number ") {
            let Some((name, value)) = v.rsplit_once(':') else {
                return false;
            };
            // Android 6 previews called the RenderThread type "Slow draw".
            let found = JankType::ALL.into_iter().find(|t| t.hwui_name() == name);
            let Some(t) = found.or((name == "Slow draw").then_some(JankType::SlowRt)) else {
                return false;
            };
            self.jank_types[t as usize] = num(value);
        } else if let Some((p, rest)) = line.split_once("th ") {
            let Some(slot) = PERCENTILES.iter().position(|x| x.to_string() == p) else {
                return false;
            };
            if let Some(v) = rest.strip_prefix("gpu percentile:") {
                self.gpu_percentiles_ms[slot] = leading(v);
            } else if let Some(v) = rest.strip_prefix("percentile:") {
                self.percentiles_ms[slot] = leading(v);
            } else {
                return false;
            }
        } else {
            return false;
        }
        true
    }
}

/// How the two columns named FrameStartTime and FrameInterval were assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartIntervalOrder {
    /// The header does not have both columns.
    NotApplicable,
    /// Values are where the names say.
    AsNamed { decided_by_data: bool },
    /// The column named FrameInterval holds the frame start time and vice versa (the
    /// Android 12–14 name list).
    Swapped { decided_by_data: bool },
}

/// The header of a block, resolved to FrameInfo fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnLayout {
    /// The names as printed.
    pub names: Vec<String>,
    /// The field each cell position holds (None: unknown or duplicate column).
    pub fields: Vec<Option<FrameInfoIndex>>,
    pub start_interval: StartIntervalOrder,
}

impl ColumnLayout {
    fn from_header(line: usize, header: &str, diags: &mut Vec<Diagnostic>) -> Self {
        let names = split_cells(header)
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>();
        let mut fields: Vec<Option<FrameInfoIndex>> = Vec::with_capacity(names.len());
        for (pos, name) in names.iter().enumerate() {
            let field = FrameInfoIndex::from_name(name);
            match field {
                None => diags.push(Diagnostic {
                    line,
                    message: format!("unknown column {:?} (position {}) ignored", name, pos + 1),
                }),
                Some(f) if fields.contains(&Some(f)) => {
                    diags.push(Diagnostic {
                        line,
                        message: format!(
                            "column {name:?} appears twice; position {} ignored",
                            pos + 1
                        ),
                    });
                    fields.push(None);
                    continue;
                }
                Some(_) => {}
            }
            fields.push(field);
        }
        Self {
            names,
            fields,
            start_interval: StartIntervalOrder::NotApplicable,
        }
    }

    pub fn position(&self, field: FrameInfoIndex) -> Option<usize> {
        self.fields.iter().position(|f| *f == Some(field))
    }

    pub fn has(&self, field: FrameInfoIndex) -> bool {
        self.position(field).is_some()
    }

    pub fn missing_required(&self) -> Vec<FrameInfoIndex> {
        REQUIRED_COLUMNS
            .into_iter()
            .filter(|f| !self.has(*f))
            .collect()
    }

    /// The record of one row: fields the header lacks stay 0.
    pub fn frame_info(&self, row: &Row) -> FrameInfo {
        let mut frame = FrameInfo::new();
        for (field, value) in self.fields.iter().zip(&row.cells) {
            if let Some(field) = field {
                frame.set(*field, *value);
            }
        }
        frame
    }

    /// The header pitfall. HWUI prints its columns in `FrameInfoIndex` order, and in every
    /// release that has both fields the enum puts FrameStartTime before FrameInterval; only
    /// the Android 12–14 *name list* says `FrameInterval,FrameStartTime`. The data decides:
    /// FrameStartTime is a timestamp next to IntendedVsync, FrameInterval a vsync period
    /// (~16.7/11.1/8.3 ms), so in each row the column whose value is closer to
    /// IntendedVsync is FrameStartTime. The majority of rows wins; without rows (or on a
    /// tie) the enum order decides: the first of the two positions is FrameStartTime.
    fn resolve_start_interval(&mut self, rows: &[Row], line: usize, diags: &mut Vec<Diagnostic>) {
        let (Some(named_start), Some(named_interval), Some(iv)) = (
            self.position(FrameInfoIndex::FrameStartTime),
            self.position(FrameInfoIndex::FrameInterval),
            self.position(FrameInfoIndex::IntendedVsync),
        ) else {
            return;
        };
        let (mut as_named, mut swapped) = (0usize, 0usize);
        for row in rows {
            let distance = |pos: usize| row.cells[pos].abs_diff(row.cells[iv]);
            match distance(named_start).cmp(&distance(named_interval)) {
                std::cmp::Ordering::Less => as_named += 1,
                std::cmp::Ordering::Greater => swapped += 1,
                std::cmp::Ordering::Equal => {}
            }
        }
        let swap = if as_named != swapped {
            if as_named > 0 && swapped > 0 {
                diags.push(Diagnostic {
                    line,
                    message: format!(
                        "FrameStartTime/FrameInterval columns are ambiguous ({as_named} rows \
                         fit the names, {swapped} fit them swapped); going with the majority"
                    ),
                });
            }
            swapped > as_named
        } else {
            named_interval < named_start
        };
        let decided_by_data = as_named != swapped;
        self.start_interval = if swap {
            self.fields[named_start] = Some(FrameInfoIndex::FrameInterval);
            self.fields[named_interval] = Some(FrameInfoIndex::FrameStartTime);
            StartIntervalOrder::Swapped { decided_by_data }
        } else {
            StartIntervalOrder::AsNamed { decided_by_data }
        };
    }
}

/// One data row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub line: usize,
    pub cells: Vec<i64>,
}

/// One `---PROFILEDATA---` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileBlock {
    pub open_line: usize,
    pub header_line: Option<usize>,
    pub close_line: Option<usize>,
    /// None when the header is missing or lacks required columns (see `problem`).
    pub columns: Option<ColumnLayout>,
    /// The rows that parsed, in dump order (oldest first).
    pub rows: Vec<Row>,
    /// Data lines that were skipped (truncated, non-numeric, ...).
    pub bad_rows: usize,
    /// Why the block cannot be replayed, if it cannot.
    pub problem: Option<String>,
}

/// Where a window's printed summary came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummarySource {
    /// The summary after the `Window:` line (Android 10+).
    Window,
    /// The process summary, used when the process has a single block and no `Window:` lines
    /// (Android 6–9 print no per-window summary).
    Process,
}

/// A window: one PROFILEDATA block and what the dump says about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowDump {
    pub process: Option<String>,
    pub pid: Option<u32>,
    pub name: String,
    pub summary: Option<PrintedSummary>,
    pub summary_source: Option<SummarySource>,
    pub block: ProfileBlock,
}

/// A parsed dump.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dump {
    pub windows: Vec<WindowDump>,
    pub diagnostics: Vec<Diagnostic>,
    pub line_count: usize,
}

/// Whether a header line holds more than [`MAX_COLUMNS`] names (without splitting it all).
fn too_many_columns(header: &str) -> bool {
    header
        .bytes()
        .filter(|&b| b == b',')
        .take(MAX_COLUMNS + 1)
        .count()
        > MAX_COLUMNS
}

/// Whether `v` is a value HWUI can have written in the column holding `field`.
fn cell_in_range(field: Option<FrameInfoIndex>, v: i64) -> bool {
    (-MAX_CELL_MAGNITUDE..=MAX_CELL_MAGNITUDE).contains(&v)
        || (field == Some(FrameInfoIndex::OldestInputEvent) && v == i64::MAX)
}

fn split_cells(line: &str) -> Vec<&str> {
    let mut cells: Vec<&str> = line.split(',').map(str::trim).collect();
    // HWUI ends every header and row with a comma.
    if cells.last().is_some_and(|c| c.is_empty()) {
        cells.pop();
    }
    cells
}

fn parse_process_line(line: &str) -> Option<(Option<u32>, String)> {
    let rest = line.strip_prefix("** Graphics info for pid ")?;
    let (pid, rest) = rest.split_once(' ')?;
    let name = rest.strip_prefix('[')?.split_once(']')?.0;
    Some((pid.parse().ok(), name.to_string()))
}

/// `\tpkg/Activity/android.view.ViewRootImpl@1720d3b (visibility=0)`: the window a block
/// belongs to on releases without `Window:` lines.
fn parse_view_root_line(line: &str) -> Option<String> {
    if !line.contains("(visibility=") {
        return None;
    }
    let (name, _) = line.split_once("/android.view.ViewRootImpl@")?;
    Some(name.trim().to_string())
}

fn looks_like_row(line: &str) -> bool {
    line.starts_with(|c: char| c.is_ascii_digit() || c == '-')
}

#[derive(Default)]
struct ProcessCtx {
    pid: Option<u32>,
    name: Option<String>,
    summary: Option<PrintedSummary>,
    first_window: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SummaryTarget {
    None,
    Process,
    Window,
}

struct Parser {
    dump: Dump,
    process: ProcessCtx,
    target: SummaryTarget,
    window: Option<String>,
    window_summary: Option<PrintedSummary>,
    view_root: Option<String>,
    /// Diagnostics beyond [`MAX_DIAGNOSTICS`], counted only.
    diagnostics_dropped: usize,
}

/// Diagnostics kept for a whole dump; a hostile one could otherwise produce millions.
pub const MAX_DIAGNOSTICS: usize = 1000;

impl Parser {
    fn diag(&mut self, line: usize, message: impl Into<String>) {
        if self.dump.diagnostics.len() >= MAX_DIAGNOSTICS {
            self.diagnostics_dropped += 1;
            return;
        }
        self.dump.diagnostics.push(Diagnostic {
            line,
            message: message.into(),
        });
    }

    fn diags(&mut self, diags: Vec<Diagnostic>) {
        for d in diags {
            self.diag(d.line, d.message);
        }
    }

    /// Lends the process summary to its only block when the release printed no per-window
    /// summary.
    fn end_process(&mut self) {
        let windows = &mut self.dump.windows[self.process.first_window..];
        if let ([only], Some(summary)) = (windows, self.process.summary.take()) {
            if only.summary.is_none() {
                only.summary = Some(summary);
                only.summary_source = Some(SummarySource::Process);
            }
        }
    }

    fn start_process(&mut self, pid: Option<u32>, name: Option<String>) {
        self.end_process();
        self.process = ProcessCtx {
            pid,
            name,
            summary: None,
            first_window: self.dump.windows.len(),
        };
        self.target = SummaryTarget::Process;
        self.window = None;
        self.window_summary = None;
        self.view_root = None;
    }

    fn summary_line(&mut self, lineno: usize, text: &str) -> bool {
        let slot = match self.target {
            SummaryTarget::None => return false,
            SummaryTarget::Process => &mut self.process.summary,
            SummaryTarget::Window => &mut self.window_summary,
        };
        let had = slot.is_some();
        let mut summary = slot.take().unwrap_or_else(|| PrintedSummary {
            line: lineno,
            ..PrintedSummary::default()
        });
        let absorbed = summary.absorb(text);
        if absorbed || had {
            *slot = Some(summary);
        }
        absorbed
    }

    fn push_block(&mut self, block: ProfileBlock) {
        let name = self
            .window
            .take()
            .or_else(|| self.view_root.take())
            .or_else(|| self.process.name.clone())
            .unwrap_or_else(|| "(unnamed)".to_string());
        let summary = self.window_summary.take();
        self.dump.windows.push(WindowDump {
            process: self.process.name.clone(),
            pid: self.process.pid,
            name,
            summary_source: summary.as_ref().map(|_| SummarySource::Window),
            summary,
            block,
        });
        self.target = SummaryTarget::None;
    }

    /// Reads a block starting after its opening marker; returns the index of the first line
    /// not consumed.
    fn block(&mut self, lines: &[&str], open: usize) -> usize {
        let mut block = ProfileBlock {
            open_line: open + 1,
            header_line: None,
            close_line: None,
            columns: None,
            rows: Vec::new(),
            bad_rows: 0,
            problem: None,
        };
        let mut i = open + 1;
        while i < lines.len() && lines[i].trim().is_empty() {
            i += 1;
        }
        match lines.get(i).map(|l| l.trim()) {
            Some(h) if h != BLOCK_MARKER && !looks_like_row(h) && too_many_columns(h) => {
                let message = format!(
                    "header names more than {MAX_COLUMNS} columns (HWUI prints at most {}); block skipped",
                    super::frame_info::FIELD_COUNT
                );
                self.diag(i + 1, message.clone());
                block.problem = Some(message);
                block.header_line = Some(i + 1);
                i += 1;
            }
            Some(h) if h != BLOCK_MARKER && !looks_like_row(h) => {
                let mut diags = Vec::new();
                block.columns = Some(ColumnLayout::from_header(i + 1, h, &mut diags));
                block.header_line = Some(i + 1);
                self.diags(diags);
                i += 1;
            }
            _ => {
                block.problem = Some(format!(
                    "PROFILEDATA block at line {} has no header line",
                    open + 1
                ));
                self.diag(
                    open + 1,
                    "PROFILEDATA block has no header line; block skipped",
                );
            }
        }

        while i < lines.len() {
            let text = lines[i].trim();
            let lineno = i + 1;
            if text == BLOCK_MARKER {
                block.close_line = Some(lineno);
                i += 1;
                break;
            }
            if text.is_empty() {
                i += 1;
                continue;
            }
            if !looks_like_row(text) {
                // The block ended without its closing marker (cut or spliced dump).
                break;
            }
            if let Some(columns) = &block.columns {
                match parse_row(text, lineno, columns, block.header_line.unwrap_or(0)) {
                    Ok(row) => block.rows.push(row),
                    Err(message) => {
                        block.bad_rows += 1;
                        if block.bad_rows <= ROW_DIAGNOSTICS_PER_BLOCK {
                            self.diag(lineno, message);
                        }
                    }
                }
            } else {
                block.bad_rows += 1;
            }
            i += 1;
        }
        if block.columns.is_some() && block.bad_rows > ROW_DIAGNOSTICS_PER_BLOCK {
            self.diag(
                open + 1,
                format!(
                    "{} more unreadable rows in the PROFILEDATA block opened here were skipped (not listed)",
                    block.bad_rows - ROW_DIAGNOSTICS_PER_BLOCK
                ),
            );
        }
        if block.close_line.is_none() {
            // Name the line that ended the block, or the last line at end of input.
            let at = if i < lines.len() { i + 1 } else { lines.len() };
            self.diag(
                at,
                format!(
                    "PROFILEDATA block opened at line {} has no closing marker (dump cut \
                     short?); using the {} rows read",
                    open + 1,
                    block.rows.len()
                ),
            );
        }

        if let Some(mut columns) = block.columns.take() {
            let missing = columns.missing_required();
            if missing.is_empty() {
                let mut diags = Vec::new();
                columns.resolve_start_interval(
                    &block.rows,
                    block.header_line.unwrap_or(0),
                    &mut diags,
                );
                self.diags(diags);
                block.columns = Some(columns);
            } else {
                let names: Vec<&str> = missing.iter().map(|f| f.name()).collect();
                let message = format!(
                    "header lacks required column(s) {}; block skipped",
                    names.join(", ")
                );
                self.diag(block.header_line.unwrap_or(open + 1), message.clone());
                block.problem = Some(message);
                block.rows.clear();
            }
        }
        self.push_block(block);
        i
    }
}

fn parse_row(
    text: &str,
    lineno: usize,
    columns: &ColumnLayout,
    header: usize,
) -> Result<Row, String> {
    let cells = split_cells(text);
    let want = columns.names.len();
    if cells.len() < want {
        return Err(format!(
            "truncated row: {} of the {} cells the header (line {header}) names; row skipped",
            cells.len(),
            want
        ));
    }
    if cells.len() > want {
        return Err(format!(
            "row has {} cells but the header (line {header}) names {}; row skipped",
            cells.len(),
            want
        ));
    }
    let mut values = Vec::with_capacity(want);
    for (pos, cell) in cells.iter().enumerate() {
        match cell.parse::<i64>() {
            Ok(v) if !cell_in_range(columns.fields[pos], v) => {
                return Err(format!(
                "column {} ({}) holds {v}, beyond ±2^61 ns, which HWUI does not write; row skipped",
                pos + 1,
                columns.names[pos],
            ))
            }
            Ok(v) => values.push(v),
            Err(_) => {
                return Err(format!(
                    "column {} ({}) is not an integer: {:?}; row skipped",
                    pos + 1,
                    columns.names[pos],
                    cell
                ))
            }
        }
    }
    Ok(Row {
        line: lineno,
        cells: values,
    })
}

/// Parses a decoded dump. Fails only when there is no PROFILEDATA block at all.
pub fn parse(text: &str) -> Result<Dump, GfxinfoError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut p = Parser {
        dump: Dump {
            line_count: lines.len(),
            ..Dump::default()
        },
        process: ProcessCtx::default(),
        target: SummaryTarget::None,
        window: None,
        window_summary: None,
        view_root: None,
        diagnostics_dropped: 0,
    };
    let mut summaries_seen = 0usize;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let text = raw.trim();
        let lineno = i + 1;
        if text == BLOCK_MARKER {
            i = p.block(&lines, i);
            continue;
        }
        if text.starts_with("Applications Graphics Acceleration Info") {
            p.start_process(None, None);
            p.target = SummaryTarget::None;
        } else if let Some((pid, name)) = parse_process_line(text) {
            p.start_process(pid, Some(name));
        } else if let Some(name) = text.strip_prefix("Window: ") {
            p.window = Some(name.trim().to_string());
            p.window_summary = None;
            p.target = SummaryTarget::Window;
        } else if text.starts_with("Profile data in ms") {
            if p.target == SummaryTarget::Process {
                p.target = SummaryTarget::None;
            }
        } else if let Some(name) = parse_view_root_line(raw) {
            p.view_root = Some(name);
        } else if p.summary_line(lineno, text) && text.starts_with("Total frames rendered") {
            summaries_seen += 1;
        }
        i += 1;
    }
    p.end_process();
    p.dump.diagnostics.sort_by_key(|d| d.line);
    if p.diagnostics_dropped > 0 {
        p.dump.diagnostics.push(Diagnostic {
            line: 0,
            message: format!(
                "{} more warnings not listed (only the first {MAX_DIAGNOSTICS} are)",
                p.diagnostics_dropped
            ),
        });
    }

    if p.dump.windows.is_empty() {
        let hint = if summaries_seen > 0 {
            format!(
                "; it has {summaries_seen} printed summaries but no frame rows, so it was \
                 not captured with `framestats`"
            )
        } else {
            String::new()
        };
        return Err(GfxinfoError::NoProfileData {
            lines: lines.len(),
            hint,
        });
    }
    Ok(p.dump)
}

#[cfg(test)]
mod tests;
