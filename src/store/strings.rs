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

/// The strings are stored once, back to back; the index holds only ids and hashes them by
/// the text they point at. Interning is on every imported slice's path, and 4-byte entries
/// over one buffer keep its lookups in cache where boxed keys did not.
#[derive(Default)]
pub struct StringPool {
    text: String,
    /// `ends[i]` is where string `i` stops in `text`; it starts where string `i - 1` stopped.
    ends: Vec<usize>,
    index: hashbrown::HashTable<StrId>,
}

#[inline]
fn hash_of(s: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(s)
}

/// String `id` of a pool's parts (a free function so the index can rehash while it is borrowed).
#[inline]
fn text_of<'a>(text: &'a str, ends: &[usize], id: StrId) -> &'a str {
    let i = id.index() as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &text[start..ends[i]]
}

impl StringPool {
    pub fn intern(&mut self, s: &str) -> StrId {
        let hash = hash_of(s);
        let (text, ends) = (&mut self.text, &mut self.ends);
        let entry = self.index.entry(
            hash,
            |&id| text_of(text, ends, id) == s,
            |&id| hash_of(text_of(text, ends, id)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => *e.get(),
            hashbrown::hash_table::Entry::Vacant(e) => {
                let id = StrId::from_index(ends.len() as u32);
                text.push_str(s);
                ends.push(text.len());
                e.insert(id);
                id
            }
        }
    }

    pub fn get(&self, id: StrId) -> &str {
        text_of(&self.text, &self.ends, id)
    }

    pub fn lookup(&self, s: &str) -> Option<StrId> {
        let (text, ends) = (&self.text, &self.ends);
        self.index
            .find(hash_of(s), |&id| text_of(text, ends, id) == s)
            .copied()
    }

    /// Every string, in id order: the n-th is `StrId::from_index(n)`'s (for per-name tables
    /// indexed by [`StrId::index`]).
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len() as u32).map(|i| self.get(StrId::from_index(i)))
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many strings (the index grows and rehashes several times), with prefixes of one
    /// another, the empty string and multi-byte text: every id reads back its own text, a
    /// second intern gives the first id, and lookup finds exactly what was interned.
    #[test]
    fn ids_read_back_their_text_across_growth() {
        let mut texts: Vec<String> = vec![String::new(), "é".into(), "éé".into(), "a".into()];
        texts.extend((0..5000).map(|i| format!("binder transaction {i}")));
        texts.extend((0..50).map(|i| "x".repeat(i)));
        let mut pool = StringPool::default();
        let mut ids = Vec::new();
        let mut seen = std::collections::HashMap::new();
        for t in &texts {
            let id = pool.intern(t);
            assert_eq!(*seen.entry(t.clone()).or_insert(id), id, "{t:?}");
            ids.push(id);
        }
        assert_eq!(pool.len(), seen.len());
        for (t, &id) in texts.iter().zip(&ids) {
            assert_eq!(pool.get(id), t);
            assert_eq!(pool.intern(t), id);
            assert_eq!(pool.lookup(t), Some(id));
        }
        assert_eq!(pool.len(), seen.len(), "a second intern must not add");
        assert_eq!(pool.lookup("binder transaction 5000"), None);
        assert_eq!(pool.lookup("binder transaction"), None);
        let listed: Vec<&str> = pool.iter().collect();
        for (i, s) in listed.iter().enumerate() {
            assert_eq!(pool.get(StrId::from_index(i as u32)), *s);
        }
        assert_eq!(listed.len(), pool.len());
    }
}
