//! A short fuzz campaign on every test run: mutated traces never panic the reader, the
//! importers or the analysis. (`frameprobe-fuzz` runs long campaigns.)

#[test]
fn mutated_traces_never_panic() {
    let mut seeds = frameprobe_tools::fuzz::generated_seeds();
    seeds.push(
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/scroll_60hz.perfetto-trace"
        ))
        .unwrap(),
    );
    let (n, findings) = frameprobe_tools::fuzz::campaign(&seeds, 400, 7);
    assert_eq!(n, 400);
    let msgs: Vec<_> = findings
        .iter()
        .map(|(i, m, _)| format!("#{i}: {m}"))
        .collect();
    assert!(findings.is_empty(), "panics: {msgs:?}");
}
