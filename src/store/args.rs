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
    dedup: rustc_hash::FxHashMap<Vec<ArgKey>, u32>,
}

pub type ArgSetId = u32;

/// An arg as a hashable dedup key: (key, (value type tag, value bits)).
type ArgKey = (StrId, (u8, u64));

impl ArgTable {
    /// Stores a set and returns its id (the id of an identical earlier set when there is one).
    pub fn insert_set(&mut self, args: Vec<(StrId, ArgValue)>) -> Option<ArgSetId> {
        self.insert_set_with_flat_keys(args.into_iter().map(|(k, v)| (k, k, v)).collect())
    }

    /// Like [`insert_set`](Self::insert_set) for args whose flat key differs from their key
    /// (array elements: flat key `args`, key `args[0]`). Entries are (flat_key, key, value).
    pub fn insert_set_with_flat_keys(
        &mut self,
        args: Vec<(StrId, StrId, ArgValue)>,
    ) -> Option<ArgSetId> {
        if args.is_empty() {
            return None;
        }
        // The flat key only differs for array elements, whose key is unique anyway.
        let key: Vec<_> = args.iter().map(|(_, k, v)| (*k, v.hash_key())).collect();
        if let Some(&id) = self.dedup.get(&key) {
            return Some(id);
        }
        let id = self.sets.len() as u32;
        let start = self.args.len() as u32;
        for (flat_key, key, value) in args {
            self.args.push(Arg {
                flat_key,
                key,
                value,
            });
        }
        self.sets.push((start, self.args.len() as u32));
        self.dedup.insert(key, id);
        Some(id)
    }

    pub fn set(&self, id: ArgSetId) -> &[Arg] {
        let (a, b) = self.sets[id as usize];
        &self.args[a as usize..b as usize]
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
