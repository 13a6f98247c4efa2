//! `analyze` hands the frame database the ids of its slices, found among the slices it
//! looks up by name (`NamedSlices`) instead of by the database's own pass over every slice:
//! both must give the same slices, CUJ markers included, or the Perfetto frame stats and CUJ
//! boundaries would change.

mod common;

use frameprobe::analysis::named_slices::NamedSlices;
use frameprobe::import::load;
use frameprobe::store::sqlite::frame_db_slice_ids;

#[test]
fn the_named_slices_hold_every_slice_of_the_frame_database() {
    let mut traces = vec![common::sample_trace()];
    if let Some(dir) = common::shared("traces", "frame_db_slices") {
        let mut real: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "perfetto-trace"))
            .collect();
        real.sort();
        assert!(!real.is_empty(), "no real traces");
        traces.extend(real);
    }
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
