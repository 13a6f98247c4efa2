//! The `slice` row, packed to 32 bytes: a 1 GB trace holds millions of slices (issue 19).
//! Depth and the distance back to the parent share one word; the category, which only
//! TrackEvent and a few kernel slices carry, is a column of its own that stays empty
//! until a slice has one. A parent too far back for the word is kept in a side map, so
//! every value stays exact; read the parent and category through the [`Store`].

use rustc_hash::FxHashMap;

use super::args::ArgSetId;
use super::strings::StrId;
use super::{OptId, SliceId, Store, TrackId};

#[derive(Debug, Clone, Default)]
pub struct SliceRow {
    pub ts: i64,
    pub dur: i64,
    pub track_id: TrackId,
    pub name: Option<StrId>,
    pub arg_set_id: OptId,
    nesting: Nesting,
}

impl SliceRow {
    pub fn depth(&self) -> u32 {
        self.nesting.depth()
    }
}

/// A slice as the importers give it, before packing.
#[derive(Debug, Clone, Default)]
pub struct NewSlice {
    pub ts: i64,
    pub dur: i64,
    pub track_id: TrackId,
    pub category: Option<StrId>,
    pub name: Option<StrId>,
    /// At most [`MAX_DEPTH`].
    pub depth: u32,
    /// An earlier slice.
    pub parent_id: Option<SliceId>,
    pub arg_set_id: Option<ArgSetId>,
}

const DEPTH_BITS: u32 = 10;
/// The deepest nesting a row can hold (the slice tracker stops at 512).
pub const MAX_DEPTH: u32 = (1 << DEPTH_BITS) - 1;
/// `id - parent_id` in the upper bits: 0 for no parent, [`FAR`] when it is in the side map.
const FAR: u32 = u32::MAX >> DEPTH_BITS;

/// Depth in the low bits, distance back to the parent in the high ones.
#[derive(Debug, Clone, Copy, Default)]
struct Nesting(u32);

impl Nesting {
    fn depth(self) -> u32 {
        self.0 & MAX_DEPTH
    }
    fn distance(self) -> u32 {
        self.0 >> DEPTH_BITS
    }
}

/// The columns of the slices that do not fit in their rows.
#[derive(Debug, Clone, Default)]
pub struct SliceExtras {
    /// By slice id; empty until the first slice with a category, None-padded after.
    categories: Vec<Option<StrId>>,
    /// Parents at least [`FAR`] slices back, by slice id.
    far_parents: FxHashMap<SliceId, SliceId>,
}

impl Store {
    /// Appends a slice and returns its id.
    pub fn push_slice(&mut self, s: NewSlice) -> SliceId {
        let id = self.slices.len() as SliceId;
        assert!(s.depth <= MAX_DEPTH, "slice depth {} too large", s.depth);
        let distance = match s.parent_id {
            None => 0,
            Some(p) => {
                debug_assert!(p < id, "parent {p} of slice {id} comes after it");
                let d = id.wrapping_sub(p);
                if (1..FAR).contains(&d) {
                    d
                } else {
                    self.slice_extras.far_parents.insert(id, p);
                    FAR
                }
            }
        };
        let extras = &mut self.slice_extras;
        if s.category.is_some() || !extras.categories.is_empty() {
            extras.categories.resize(id as usize, None);
            extras.categories.push(s.category);
        }
        self.slices.push(SliceRow {
            ts: s.ts,
            dur: s.dur,
            track_id: s.track_id,
            name: s.name,
            arg_set_id: s.arg_set_id.into(),
            nesting: Nesting(distance << DEPTH_BITS | s.depth),
        });
        id
    }

    pub fn slice_parent(&self, id: SliceId) -> Option<SliceId> {
        match self.slices[id as usize].nesting.distance() {
            0 => None,
            FAR => self.slice_extras.far_parents.get(&id).copied(),
            d => Some(id - d),
        }
    }

    pub fn slice_category(&self, id: SliceId) -> Option<StrId> {
        let c = self.slice_extras.categories.get(id as usize);
        c.copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_32_bytes() {
        // ts, dur: 16; track, name, arg set, nesting: 16.
        assert_eq!(std::mem::size_of::<SliceRow>(), 32);
    }

    #[test]
    fn depth_parent_and_category_read_back_as_given() {
        let mut s = Store::default();
        let cat = s.intern("gfx");
        let given = |id: u32| NewSlice {
            ts: id as i64,
            dur: -1,
            depth: id % (MAX_DEPTH + 1),
            // Near parents, the first slice as everyone's parent (far once past FAR), none.
            parent_id: match id % 3 {
                0 => id.checked_sub(1),
                1 if id > 0 => Some(0),
                _ => None,
            },
            // No category at first, then some.
            category: (id > 5 && id.is_multiple_of(2)).then_some(cat),
            ..Default::default()
        };
        let n = FAR + 10;
        for id in 0..n {
            assert_eq!(s.push_slice(given(id)), id);
        }
        for id in (0..n).step_by(7).chain(n - 20..n) {
            let g = given(id);
            assert_eq!(s.slices[id as usize].depth(), g.depth, "slice {id}");
            assert_eq!(s.slice_parent(id), g.parent_id, "slice {id}");
            assert_eq!(s.slice_category(id), g.category, "slice {id}");
        }
        assert_eq!(
            s.slice_parent(FAR + 1),
            Some(0),
            "a parent beyond the packed distance"
        );
        assert!(!s.slice_extras.far_parents.is_empty());
    }
}
