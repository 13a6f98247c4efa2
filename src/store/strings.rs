//! String interning: every name in the store is stored once and referred to by id.

use std::num::NonZeroU32;

/// An interned string, by its index in the pool. Held off by one in a `NonZeroU32` so that
/// `Option<StrId>` is 4 bytes: rows hold millions of optional names. Hashing and ordering go
/// by the index.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct StrId(NonZeroU32);

impl StrId {
    pub fn from_index(i: u32) -> StrId {
        StrId(NonZeroU32::MIN.saturating_add(i))
    }

    pub fn index(self) -> u32 {
        self.0.get() - 1
    }
}

impl Default for StrId {
    fn default() -> Self {
        StrId::from_index(0)
    }
}

impl std::fmt::Debug for StrId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StrId({})", self.index())
    }
}

impl std::hash::Hash for StrId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index().hash(state)
    }
}

impl PartialOrd for StrId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for StrId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index().cmp(&other.index())
    }
}

#[derive(Default)]
pub struct StringPool {
    strings: Vec<Box<str>>,
    index: rustc_hash::FxHashMap<Box<str>, StrId>,
}

impl StringPool {
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = StrId::from_index(self.strings.len() as u32);
        self.strings.push(s.into());
        self.index.insert(s.into(), id);
        id
    }

    pub fn get(&self, id: StrId) -> &str {
        &self.strings[id.index() as usize]
    }

    pub fn lookup(&self, s: &str) -> Option<StrId> {
        self.index.get(s).copied()
    }

    /// Every string, in id order: the n-th is `StrId::from_index(n)`'s (for per-name tables
    /// indexed by [`StrId::index`]).
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.strings.iter().map(|s| &**s)
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}
