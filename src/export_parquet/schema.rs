//! Each column's Parquet type. The CSV columns keep their names and order; their types are
//! read off how `report::analyze_csv` writes each cell (integers, milliseconds as decimals,
//! 0/1 verdicts, text), and an empty cell is a null.

use super::Table;

/// Bumped when a column is removed, renamed or changes type or meaning (adding a column
/// does not bump it); written as the `schema_version` column and the
/// `frameprobe.schema_version` key of every file's metadata.
pub const SCHEMA_VERSION: i64 = 1;

/// A column's value type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int64,
    Double,
    Boolean,
    Text,
}

/// The columns before the CSV's in both tables: the schema, the trace and its device.
pub const TRACE_COLUMNS: [(&str, Kind); 7] = [
    ("schema_version", Kind::Int64),
    ("trace_id", Kind::Text),
    ("trace_path", Kind::Text),
    ("android_build_fingerprint", Kind::Text),
    ("android_sdk_version", Kind::Int64),
    ("android_device_manufacturer", Kind::Text),
    ("android_soc_model", Kind::Text),
];

/// The type of a CSV column of `table`; None for a column this schema does not know yet.
pub fn csv_kind(table: Table, name: &str) -> Option<Kind> {
    match table {
        Table::Frames => frames_kind(name),
        Table::Summary => summary_kind(name),
    }
}

fn frames_kind(name: &str) -> Option<Kind> {
    Some(match name {
        "pid" | "frame_id" | "ts" | "display_frame_token" | "missed_vsyncs" => Kind::Int64,
        "ts_rel_ms" | "dur_ms" | "ui_ms" | "cpu_ms" | "overrun_ms" | "gpu_wait_ms" | "sf_ms"
        | "budget_ms" | "vsync_period_ms" | "refresh_hz" | "primary_cause_ms"
        | "cause_window_ms" => Kind::Double,
        "on_time_finish"
        | "janky"
        | "hwui_janky"
        | "hwui_janky_legacy"
        | "ft_janky"
        | "stdlib_was_jank"
        | "hwui_deadline_janky"
        | "mb_counted"
        | "mb_late"
        | "vitals_slow"
        | "vitals_frozen"
        | "over_budget" => Kind::Boolean,
        "process" | "layer" | "jank_tag" | "jank_type" | "present_type" | "buffer_confidence"
        | "hwui_jank_types" | "budget_source" | "mb_why_not" | "rules" | "disagreement"
        | "primary_cause" => Kind::Text,
        _ => return None,
    })
}

fn summary_kind(name: &str) -> Option<Kind> {
    // The generated families: a distribution's percentiles, the top causes, and each
    // definition's count and denominator.
    let top_cause = name
        .strip_prefix("top_cause_")
        .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()));
    Some(match (name, top_cause) {
        (_, Some("")) => Kind::Text,
        (_, Some("_ms")) => Kind::Double,
        (_, Some("_frames")) => Kind::Int64,
        ("process" | "layer" | "trust" | "refresh_hz", None) => Kind::Text,
        ("janky_pct", None) => Kind::Double,
        (
            "pid"
            | "frames"
            | "frames_with_timeline"
            | "janky"
            | "self_jank"
            | "other_jank"
            | "dropped"
            | "buffer_stuffing"
            | "deadline_missed"
            | "slow_frames"
            | "longest_janky_streak"
            | "metric_version"
            | "disagreeing_frames",
            None,
        ) => Kind::Int64,
        (n, None) if is_percentile(n) => Kind::Double,
        (n, None) if n.ends_with("_count") || n.ends_with("_of") => Kind::Int64,
        _ => return None,
    })
}

fn is_percentile(name: &str) -> bool {
    ["ui_ms_", "cpu_ms_", "overrun_ms_"].iter().any(|m| {
        name.strip_prefix(m)
            .is_some_and(|p| ["p50", "p90", "p95", "p99", "max"].contains(&p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyze, AnalyzeOptions};
    use crate::report::analyze_csv::{frames_rows, layers_rows};

    /// The CSV header the renderers write (an empty trace still has the full header).
    fn csv_header(table: Table) -> Vec<String> {
        let opts = AnalyzeOptions {
            all_frames: true,
            ..Default::default()
        };
        let r = analyze(&crate::store::Store::default(), &opts, "empty");
        let rows = match table {
            Table::Frames => frames_rows(&r),
            Table::Summary => layers_rows(&r),
        };
        rows[0].clone()
    }

    /// docs/parquet.md's `| \`name\` | TYPE | ...` rows under `heading`, in order.
    fn documented(heading: &str) -> Vec<(String, String)> {
        let doc = include_str!("../../docs/parquet.md");
        let start = doc.find(heading).expect(heading) + heading.len();
        let section = doc[start..].split("\n## ").next().unwrap_or("");
        section
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
                Some((name.to_string(), cells.get(2)?.to_string()))
            })
            .collect()
    }

    /// A kind as docs/parquet.md names it.
    fn doc_name(k: Kind) -> &'static str {
        match k {
            Kind::Int64 => "INT64",
            Kind::Double => "DOUBLE",
            Kind::Boolean => "BOOLEAN",
            Kind::Text => "STRING",
        }
    }

    fn schema(table: Table) -> Vec<(String, String)> {
        csv_header(table)
            .into_iter()
            .map(|n| {
                let kind = csv_kind(table, &n).unwrap_or_else(|| panic!("{n} has no type"));
                (n, doc_name(kind).to_string())
            })
            .collect()
    }

    /// Every column the writer emits is documented with its type, in order, and the doc
    /// lists no column that does not exist.
    #[test]
    fn every_column_is_documented_with_its_type() {
        let shared: Vec<_> = TRACE_COLUMNS
            .iter()
            .map(|(n, k)| (n.to_string(), doc_name(*k).to_string()))
            .collect();
        assert_eq!(documented("## Columns in both tables"), shared);
        assert_eq!(documented("## Table frames"), schema(Table::Frames));
        assert_eq!(documented("## Table summary"), schema(Table::Summary));
        let doc = include_str!("../../docs/parquet.md");
        assert!(doc.contains(&format!("This is schema version {SCHEMA_VERSION}.")));
    }
}
