//! `analyze` hands the frame database the ids of its slices, found among the slices it
//! looks up by name (`NamedSlices`) instead of by the database's own pass over every slice:
//! both must give the same slices, CUJ markers included, or the Perfetto frame stats and CUJ
//! boundaries would change.

mod common;

use frameprobe::analysis::named_slices::NamedSlices;
use frameprobe::import::load;
use frameprobe::store::sqlite::frame_db_slice_ids;

/// The real traces in `../shared/traces`, sorted (none without it).
fn shared_traces() -> Vec<std::path::PathBuf> {
    let Some(dir) = common::shared("traces", "frame_db_slices") else {
        return Vec::new();
    };
    let mut real: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "perfetto-trace"))
        .collect();
    real.sort();
    assert!(!real.is_empty(), "no real traces");
    real
}

#[test]
fn the_named_slices_hold_every_slice_of_the_frame_database() {
    let mut traces = vec![common::sample_trace()];
    traces.extend(shared_traces());
    let mut cuj_slices = 0;
    for t in &traces {
        let store = load(t, frameprobe::single_trace::analysis_load_options())
            .unwrap()
            .store;
        let every = frame_db_slice_ids(&store, 0..store.slices.len() as u32);
        let among_named = NamedSlices::collect(&store).frame_db_ids(&store);
        assert_eq!(among_named, every, "{}", t.display());
        assert!(!every.is_empty(), "{}: no frame slices", t.display());
        cuj_slices += every
            .iter()
            .filter(|&&id| {
                let name = store.slices[id as usize].name.map(|n| store.str(n));
                name.is_some_and(|n| n.starts_with("J<") || n.starts_with("FT#"))
            })
            .count();
    }
    if common::shared_root().join("traces").exists() {
        assert!(cuj_slices > 0, "no trace had CUJ slices to compare");
    }
}

/// The frame database writes only the slice and frame timeline columns the stdlib frame and
/// CUJ modules read (`write_frame_slices`, `write_frame_table_keys`): every table those
/// modules build must come out the same as on a database holding every table and column, or
/// a module reading a column the frame database leaves NULL would change the Perfetto frame
/// stats and CUJ boundaries.
#[test]
fn frame_db_reads_only_the_columns_it_writes() {
    use frameprobe::analysis::{perfetto_stats, stdlib};
    use frameprobe::store::sqlite::{to_connection, ExportOptions};
    use rusqlite::types::Value;

    // The planted-causes trace has a CUJ with frames inside it; the shared traces have none.
    let cuj = common::temp_file(
        "frame-db",
        "cuj.pftrace",
        &frameprobe_tools::synth::causes::generate(true).bytes,
    );
    let mut traces = vec![common::sample_trace(), cuj.clone()];
    traces.extend(shared_traces());
    let boundary = stdlib::cuj_frame_boundary_module().unwrap();
    let tables: Vec<&str> = [
        stdlib::module_named("android.frames.timeline").unwrap(),
        stdlib::module_named("android.cujs.base").unwrap(),
        boundary,
    ]
    .iter()
    .flat_map(|m| m.tables.iter().copied())
    .collect();
    let rows = |c: &rusqlite::Connection, t: &str| -> Vec<Vec<Value>> {
        let mut st = c.prepare(&format!("SELECT * FROM {t}")).unwrap();
        let n = st.column_count();
        st.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let (mut frames, mut cuj_frames) = (0, 0);
    for t in &traces {
        let store = load(t, frameprobe::single_trace::analysis_load_options())
            .unwrap()
            .store;
        let small = perfetto_stats::frame_db(&store, None).unwrap();
        let full = to_connection(&store, ExportOptions::default()).unwrap();
        for c in [&small, &full] {
            stdlib::ensure_module(c, boundary).unwrap();
        }
        for table in &tables {
            let (a, b) = (rows(&small, table), rows(&full, table));
            assert_eq!(a, b, "{}: {table}", t.display());
            match *table {
                "android_frames" => frames += a.len(),
                "_extended_frame_boundary" => cuj_frames += a.len(),
                _ => {}
            }
        }
    }
    assert!(frames > 0, "no trace had stdlib frames to compare");
    assert!(cuj_frames > 0, "no trace had CUJ frames to compare");
    let _ = std::fs::remove_file(&cuj);
}
