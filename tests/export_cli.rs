//! `frameprobe export` writes a SQLite file other tools can open, with the same answers as
//! `frameprobe query`.

mod common;

#[test]
fn export_writes_a_readable_database() {
    let out = std::env::temp_dir().join(format!("frameprobe-export-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let sample = common::sample_trace();
    let r = common::run(&[
        "export",
        sample.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let conn = rusqlite::Connection::open(&out).unwrap();
    let n: i64 = conn
        .query_row(
            "SELECT count(*) FROM actual_frame_timeline_slice",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let via_query = common::query_csv(&sample, "SELECT count(*) FROM actual_frame_timeline_slice");
    assert_eq!(n.to_string(), via_query[1][0]);
    let threads: i64 = conn
        .query_row(
            "SELECT count(*) FROM thread WHERE name = 'RenderThread'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(threads, 1);
    // Refuses to overwrite without --force.
    let again = common::run(&[
        "export",
        sample.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    let forced = common::run(&[
        "export",
        sample.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]);
    assert!(forced.status.success());
    std::fs::remove_file(&out).unwrap();
}

#[test]
fn query_formats_and_nulls() {
    let s = common::sample_trace();
    let sql = "SELECT 1 AS a, NULL AS b, 'x,\"y\"' AS c, 2.5 AS d";
    let csv = String::from_utf8(
        common::run(&["query", s.to_str().unwrap(), sql, "--format", "csv"]).stdout,
    )
    .unwrap();
    assert_eq!(csv, "a,b,c,d\n1,,\"x,\"\"y\"\"\",2.500000\n");
    let json: serde_json::Value = serde_json::from_slice(
        &common::run(&["query", s.to_str().unwrap(), sql, "--format", "json"]).stdout,
    )
    .unwrap();
    assert_eq!(json["columns"], serde_json::json!(["a", "b", "c", "d"]));
    assert_eq!(
        json["rows"][0],
        serde_json::json!({"a": 1, "b": null, "c": "x,\"y\"", "d": 2.5})
    );
    let table =
        String::from_utf8(common::run(&["query", s.to_str().unwrap(), sql]).stdout).unwrap();
    assert!(table.contains("NULL") && table.contains("(1 row)"));
    // SQL from a file and from standard input.
    let f = std::env::temp_dir().join(format!("frameprobe-q-{}.sql", std::process::id()));
    std::fs::write(&f, "SELECT count(*) AS n FROM process;").unwrap();
    let from_file = common::run(&[
        "query",
        s.to_str().unwrap(),
        "--file",
        f.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(String::from_utf8(from_file.stdout)
        .unwrap()
        .starts_with("n\n"));
    let bad = common::run(&["query", s.to_str().unwrap(), "SELECT * FROM no_such_table"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no_such_table"));
}
