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
    /// Ids of `'static` strings by address ([`StringPool::intern_static`]).
    statics: rustc_hash::FxHashMap<(usize, usize), StrId>,
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

    /// [`StringPool::intern`] for the keys and enum names importers attach to every event:
    /// looked up by address in a map of a few dozen entries that stays in cache, where the
    /// pool's own index (one entry per string of the trace) misses. A string's first intern
    /// goes through the pool, so ids keep their order.
    pub fn intern_static(&mut self, s: &'static str) -> StrId {
        let key = (s.as_ptr() as usize, s.len());
        if let Some(&id) = self.statics.get(&key) {
            return id;
        }
        let id = self.intern(s);
        self.statics.insert(key, id);
        id
    }

    /// The id of `n`'s decimal text (frame numbers and tokens name slices), written on the
    /// stack instead of a `String` per event.
    pub fn intern_int(&mut self, n: i64) -> StrId {
        self.intern(itoa::Buffer::new().format(n))
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

    /// Numbers interned from the stack are the same strings as their `to_string()`, at the
    /// edges of i64 and across every digit count.
    #[test]
    fn interned_numbers_are_their_decimal_text() {
        let mut rng = crate::rng::Rng::new(7);
        let mut ns = vec![0, 1, -1, 9, 10, -10, i64::MAX, i64::MIN, i64::MIN + 1];
        for d in 0..19 {
            let p = 10i64.pow(d);
            ns.extend([p, p - 1, -p, 1 - p]);
        }
        ns.extend((0..1000).map(|_| rng.next_u64() as i64));
        let mut pool = StringPool::default();
        for n in ns {
            let id = pool.intern_int(n);
            assert_eq!(pool.get(id), n.to_string());
            assert_eq!(pool.intern(&n.to_string()), id, "{n}");
        }
    }

    /// A static string gets the id its text has in the pool, whether the text was interned
    /// before or after, and two literals of the same text share it.
    #[test]
    fn static_strings_share_the_pools_ids() {
        let mut pool = StringPool::default();
        let before = pool.intern("Layer name");
        let owned = String::from("frame_number");
        assert_eq!(pool.intern_static("Layer name"), before);
        let first = pool.intern_static("frame_number");
        assert_eq!(pool.intern(&owned), first);
        assert_eq!(pool.intern_static("frame_number"), first);
        let other: &'static str = Box::leak(owned.into_boxed_str());
        assert_eq!(pool.intern_static(other), first);
        assert_eq!(pool.len(), 2);
        assert_ne!(pool.intern_static("frame_numbe"), first);
    }

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
