//! Tables shorten long layer names in the middle (`…`) to fit the terminal (60 characters in a
//! pipe); `--wide`, JSON and CSV keep them whole.

mod common;

fn stdout(args: &[&str]) -> String {
    let out = common::run(args);
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn long_layer_names_are_shortened_in_tables_only() {
    let Some(dir) = common::shared("traces", "long_layer_names_are_shortened_in_tables_only")
    else {
        return;
    };
    let t = dir.join("androidx_api35_startup_cold_classinit.perfetto-trace");
    let t = t.to_str().unwrap();
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "analyze",
        t,
        "-p",
        "system_server",
        "--format",
        "json",
    ]))
    .unwrap();
    let layers: Vec<String> = json["processes"][0]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["layer"].as_str().map(String::from))
        .collect();
    let long: Vec<&String> = layers.iter().filter(|l| l.chars().count() > 60).collect();
    assert!(
        !long.is_empty(),
        "system_server draws layers with names over 60 characters"
    );

    let table = stdout(&["analyze", t, "-p", "system_server"]);
    let wide = stdout(&["analyze", t, "-p", "system_server", "--wide"]);
    for l in &long {
        assert!(!table.contains(l.as_str()), "{l} whole in the table");
        assert!(wide.contains(l.as_str()), "{l} not whole with --wide");
        // The table shows its first 30 and last 29 characters around the ellipsis.
        let c: Vec<char> = l.chars().collect();
        let shown: String = c[..30]
            .iter()
            .chain(['…'].iter())
            .chain(c[c.len() - 29..].iter())
            .collect();
        assert!(table.contains(&shown), "{shown} in the table");
    }
    let frames = stdout(&["frames", t, "-p", "system_server"]);
    assert!(long.iter().all(|l| !frames.contains(l.as_str())));
    let csv = stdout(&["frames", t, "-p", "system_server", "--format", "csv"]);
    assert!(long.iter().all(|l| csv.contains(l.as_str())));
}

/// With the terminal width in COLUMNS, names shrink just enough for every table row to fit,
/// and stay whole when the terminal is wide enough.
#[test]
fn tables_fit_the_terminal_width() {
    let Some(dir) = common::shared("traces", "tables_fit_the_terminal_width") else {
        return;
    };
    let t = dir.join("androidx_api35_startup_cold_classinit.perfetto-trace");
    let t = t.to_str().unwrap();
    let run = |columns: &str| {
        let out = std::process::Command::new(common::bin())
            .args(["analyze", t, "-p", "system_server"])
            .env("COLUMNS", columns)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let rows = |s: &str| -> usize {
        s.lines()
            .filter(|l| l.contains(" | "))
            .map(|l| l.chars().count())
            .max()
            .unwrap()
    };
    let wide = run("1000");
    assert!(
        rows(&wide) > 300,
        "system_server's layer table is wider than 300 columns"
    );
    assert!(
        !wide.contains('…'),
        "a 1000-column terminal shows every name whole"
    );
    for columns in [260, 300] {
        let fitted = run(&columns.to_string());
        assert!(
            rows(&fitted) <= columns,
            "rows wider than {columns}:\n{fitted}"
        );
        assert!(fitted.contains('…'));
    }
}
