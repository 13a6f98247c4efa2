//! Argument sets (trace_processor's `args` table): key/value bags attached to rows by
//! `arg_set_id`. Identical sets share one id, as in trace_processor.

use super::strings::{StrId, StringPool};

#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    Int(i64),
    UInt(u64),
    Str(StrId),
    Real(f64),
    Bool(bool),
    /// An address (debug annotation pointer values); shown as hex.
    Pointer(u64),
    /// A key without a value (e.g. an empty proto message in reflected args).
    Null,
}

impl ArgValue {
    pub fn type_name(&self) -> &'static str {
        match self {
            ArgValue::Int(_) => "int",
            ArgValue::UInt(_) => "uint",
            ArgValue::Str(_) => "string",
            ArgValue::Real(_) => "real",
            ArgValue::Bool(_) => "bool",
            ArgValue::Pointer(_) => "pointer",
            ArgValue::Null => "null",
        }
    }

    fn hash_key(&self) -> (u8, u64) {
        match *self {
            ArgValue::Int(v) => (0, v as u64),
            ArgValue::UInt(v) => (1, v),
            ArgValue::Str(s) => (2, s.index() as u64),
            ArgValue::Real(v) => (3, v.to_bits()),
            ArgValue::Bool(v) => (4, v as u64),
            ArgValue::Pointer(v) => (5, v),
            ArgValue::Null => (6, 0),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Arg {
    pub flat_key: StrId,
    pub key: StrId,
    pub value: ArgValue,
}

#[derive(Default)]
pub struct ArgTable {
    /// All args, grouped by set; `sets[i]` is the range of set `i` in `args`.
    pub args: Vec<Arg>,
    pub sets: Vec<(u32, u32)>,
    /// Set ids by the hash of their (key, value) pairs, compared against `args` itself: a
    /// copy of every set as its own key doubled the args' memory (docs/speed.md).
    dedup: hashbrown::HashTable<ArgSetId>,
    /// Each set's hash, so that the dedup table grows without reading every set back.
    hashes: Vec<u64>,
}

pub type ArgSetId = u32;

/// An arg as dedup compares it: (key, (value type tag, value bits)).
type ArgKey = (StrId, (u8, u64));

fn set_hash(set: impl Iterator<Item = ArgKey>) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    for k in set {
        k.hash(&mut h);
    }
    h.finish()
}

/// Set `id`'s args (a free function so the dedup table can rehash while it is borrowed).
fn stored<'a>(args: &'a [Arg], sets: &[(u32, u32)], id: ArgSetId) -> &'a [Arg] {
    let (a, b) = sets[id as usize];
    &args[a as usize..b as usize]
}

fn arg_key(a: &Arg) -> ArgKey {
    (a.key, a.value.hash_key())
}

impl ArgTable {
    /// Stores a set and returns its id (the id of an identical earlier set when there is one).
    pub fn insert_set(&mut self, args: Vec<(StrId, ArgValue)>) -> Option<ArgSetId> {
        self.insert(args.iter().map(|(k, v)| (*k, *k, v)))
    }

    /// Like [`insert_set`](Self::insert_set) for args whose flat key differs from their key
    /// (array elements: flat key `args`, key `args[0]`). Entries are (flat_key, key, value).
    pub fn insert_set_with_flat_keys(
        &mut self,
        args: Vec<(StrId, StrId, ArgValue)>,
    ) -> Option<ArgSetId> {
        self.insert(args.iter().map(|(f, k, v)| (*f, *k, v)))
    }

    /// Both of the above, reading the caller's set in place (flat key, key, value).
    fn insert<'v>(
        &mut self,
        args: impl Iterator<Item = (StrId, StrId, &'v ArgValue)> + Clone,
    ) -> Option<ArgSetId> {
        // An empty set is no set.
        args.clone().next()?;
        // The flat key only differs for array elements, whose key is unique anyway.
        let key = |(_, k, v): (StrId, StrId, &ArgValue)| (k, v.hash_key());
        let hash = set_hash(args.clone().map(key));
        let (all, sets) = (&self.args, &self.sets);
        let same = |&id: &ArgSetId| {
            stored(all, sets, id)
                .iter()
                .map(arg_key)
                .eq(args.clone().map(key))
        };
        if let Some(&id) = self.dedup.find(hash, same) {
            return Some(id);
        }
        let id = self.sets.len() as u32;
        let start = self.args.len() as u32;
        for (flat_key, key, value) in args {
            self.args.push(Arg {
                flat_key,
                key,
                value: value.clone(),
            });
        }
        self.sets.push((start, self.args.len() as u32));
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.dedup
            .insert_unique(hash, id, |&id| hashes[id as usize]);
        Some(id)
    }

    pub fn set(&self, id: ArgSetId) -> &[Arg] {
        stored(&self.args, &self.sets, id)
    }

    pub fn get(&self, id: Option<ArgSetId>, key: StrId) -> Option<&ArgValue> {
        self.set(id?)
            .iter()
            .find(|a| a.key == key)
            .map(|a| &a.value)
    }

    pub fn get_by_name<'a>(
        &'a self,
        strings: &StringPool,
        id: Option<ArgSetId>,
        key: &str,
    ) -> Option<&'a ArgValue> {
        let k = strings.lookup(key)?;
        self.get(id, k)
    }
}

/// Collects args for one row before they are stored.
#[derive(Default)]
pub struct ArgsBuilder {
    pub args: Vec<(StrId, ArgValue)>,
}

impl ArgsBuilder {
    pub fn add_all(&mut self, args: Vec<(StrId, ArgValue)>) -> &mut Self {
        for (k, v) in args {
            self.add(k, v);
        }
        self
    }

    pub fn add(&mut self, key: StrId, value: ArgValue) -> &mut Self {
        if let Some(slot) = self.args.iter_mut().find(|(k, _)| *k == key) {
            slot.1 = value;
        } else {
            self.args.push((key, value));
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(pool: &mut StringPool, keys: &[&str]) -> Vec<StrId> {
        keys.iter().map(|k| pool.intern(k)).collect()
    }

    #[test]
    fn identical_sets_share_an_id_and_any_difference_makes_a_new_one() {
        let mut pool = StringPool::default();
        let k = ids(&mut pool, &["a", "b"]);
        let mut t = ArgTable::default();
        let base = vec![(k[0], ArgValue::Int(1)), (k[1], ArgValue::Str(k[0]))];
        let first = t.insert_set(base.clone()).unwrap();
        assert_eq!(t.insert_set(base.clone()), Some(first));
        let variants = [
            vec![(k[0], ArgValue::Int(2)), (k[1], ArgValue::Str(k[0]))],
            // Same bits, another type.
            vec![(k[0], ArgValue::UInt(1)), (k[1], ArgValue::Str(k[0]))],
            vec![(k[1], ArgValue::Int(1)), (k[1], ArgValue::Str(k[0]))],
            // Same pairs in another order: args keep their order, so another set.
            vec![(k[1], ArgValue::Str(k[0])), (k[0], ArgValue::Int(1))],
            // A prefix of the first set.
            vec![(k[0], ArgValue::Int(1))],
        ];
        let mut seen = vec![first];
        for v in variants {
            let id = t.insert_set(v.clone()).unwrap();
            assert!(!seen.contains(&id), "{v:?} took an existing id");
            assert_eq!(t.insert_set(v), Some(id));
            seen.push(id);
        }
        assert_eq!(t.insert_set(Vec::new()), None);
        assert_eq!(t.get(Some(first), k[0]), Some(&ArgValue::Int(1)));
    }

    #[test]
    fn sets_are_found_again_after_the_table_grows() {
        let mut pool = StringPool::default();
        let k = ids(&mut pool, &["frame_number", "layer_name"]);
        let mut t = ArgTable::default();
        let set = |i: i64| vec![(k[0], ArgValue::Int(i)), (k[1], ArgValue::Int(i % 7))];
        let first: Vec<_> = (0..5_000).map(|i| t.insert_set(set(i)).unwrap()).collect();
        assert_eq!(t.sets.len(), 5_000);
        for i in (0..5_000).rev() {
            assert_eq!(t.insert_set(set(i)), Some(first[i as usize]));
        }
        assert_eq!((t.sets.len(), t.args.len()), (5_000, 10_000));
    }
}
