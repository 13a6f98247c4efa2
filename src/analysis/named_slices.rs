//! The slices several readers look up by name (frame slices, CUJ slices, launch markers,
//! scroll steps), found in one pass over the slice rows. Each reader used to pass over every row
//! itself, about 6.5 ms each on the 202 MB benchmark trace (docs/speed.md, "CPU, eleventh
//! round"). The tests here are deliberately loose: every reader still applies its own exact
//! rule to the candidates, so a test only has to accept everything its readers accept.

use crate::analysis::interactions::{is_launch_marker, SCROLL_SLICES};
use crate::store::sqlite::frame_db_slice_ids;
use crate::store::{SliceId, Store};

/// What a reader looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// `Choreographer#doFrame*` and `DrawFrame*`, in any ASCII case: the frame index and
    /// cause chains match them by prefix, Macrobenchmark by a case-insensitive LIKE.
    FrameSlice,
    /// CUJ slices and their FrameTracker markers (`J<…>`, `FT#…`), for the frame database.
    Cuj,
    /// The launch markers of `android.startup.startups`.
    Launch,
    /// Scroll steps (`RV Scroll`).
    Scroll,
}

const ALL: [Named; 4] = [Named::FrameSlice, Named::Cuj, Named::Launch, Named::Scroll];

impl Named {
    fn accepts(self, name: &str) -> bool {
        match self {
            Named::FrameSlice => {
                has_prefix_ignoring_case(name, "Choreographer#doFrame")
                    || has_prefix_ignoring_case(name, "DrawFrame")
            }
            Named::Cuj => name.starts_with("J<") || name.starts_with("FT#"),
            Named::Launch => is_launch_marker(name),
            Named::Scroll => SCROLL_SLICES.contains(&name),
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

fn has_prefix_ignoring_case(name: &str, prefix: &str) -> bool {
    name.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// Per [`Named`], the ids of the slices whose names it accepts, in id order (the order
/// of a pass over the slice rows).
#[derive(Debug, Default)]
pub struct NamedSlices {
    ids: [Vec<SliceId>; ALL.len()],
}

impl NamedSlices {
    pub fn collect(store: &Store) -> Self {
        // Each distinct name is tested once; the pass then reads one byte per slice name.
        let wanted_by: Vec<u8> = store
            .strings
            .iter()
            .map(|name| {
                ALL.iter()
                    .filter(|w| w.accepts(name))
                    .fold(0, |bits, w| bits | w.bit())
            })
            .collect();
        let mut out = NamedSlices::default();
        for (id, s) in store.slices.iter().enumerate() {
            let Some(name) = s.name else { continue };
            let bits = wanted_by[name.index() as usize];
            if bits == 0 {
                continue;
            }
            for w in ALL.into_iter().filter(|w| bits & w.bit() != 0) {
                out.ids[w as usize].push(id as SliceId);
            }
        }
        out
    }

    /// The candidates for `what`, in id order.
    pub fn ids(&self, what: Named) -> &[SliceId] {
        &self.ids[what as usize]
    }

    /// The frame database's slices ([`frame_db_slice_ids`]), found among the frame and CUJ
    /// slices instead of by a pass over every slice.
    pub fn frame_db_ids(&self, store: &Store) -> Vec<SliceId> {
        let candidates = [Named::FrameSlice, Named::Cuj].map(|n| self.ids(n).iter().copied());
        frame_db_slice_ids(store, candidates.into_iter().flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewSlice;

    fn store_with(names: &[&str]) -> Store {
        let mut s = Store::with_thread_tracks(&[10]);
        for (i, n) in names.iter().enumerate() {
            let name = Some(s.intern(n));
            s.push_slice(NewSlice {
                ts: i as i64 * 10,
                dur: 5,
                name,
                ..Default::default()
            });
        }
        s
    }

    #[test]
    fn each_reader_gets_every_slice_its_rule_could_accept_in_order() {
        let s = store_with(&[
            "Choreographer#doFrame 12",
            "RV Scroll",
            "drawframe 12",
            "launchingActivity#3",
            "DrawFrames 13",
            "Choreographer#doFrame - resynced to 14",
            "Choreographer#doFram",
            "RV Scroll!",
            "launchingActivity#3:completed:com.example",
            "launching: com.example",
            "inflate",
            "J<SHADE_EXPAND_COLLAPSE>",
            "FT#layerId#0",
        ]);
        let named = NamedSlices::collect(&s);
        assert_eq!(named.ids(Named::FrameSlice), &[0, 2, 4, 5]);
        assert_eq!(named.ids(Named::Cuj), &[11, 12]);
        assert_eq!(named.ids(Named::Scroll), &[1]);
        assert_eq!(named.ids(Named::Launch), &[3, 8, 9]);
    }

    #[test]
    fn a_name_shorter_than_the_prefix_or_split_inside_a_character_is_no_match() {
        assert!(!has_prefix_ignoring_case("Draw", "DrawFrame"));
        assert!(!has_prefix_ignoring_case("DrawFram\u{e9}", "DrawFrame"));
        assert!(has_prefix_ignoring_case("DRAWFRAME", "DrawFrame"));
    }
}
