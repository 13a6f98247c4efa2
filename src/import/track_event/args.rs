//! Args of one track event (trace_processor's ArgsTracker inserter plus the proto-to-args
//! reflection it uses for TrackEvent fields): (flat key, key, value) triples where a later
//! value for a key replaces the earlier one in place, array indexes per key, and nested
//! messages flattened into dotted keys (`a.b`, `a.list[2]`, flat key `a.list`).

use super::chrome::{Field, Kind};
use crate::store::args::ArgValue;
use crate::store::strings::StrId;
use crate::store::Store;
use crate::trace::wire::{Fields, PackedVarints, Value};

#[derive(Default)]
pub struct ArgsSink {
    pub args: Vec<(StrId, StrId, ArgValue)>,
    /// Next free index of the arrays built under each key.
    array_index: Vec<(StrId, usize)>,
}

impl ArgsSink {
    pub fn clear(&mut self) {
        self.args.clear();
        self.array_index.clear();
    }

    /// Adds an arg; a key already present takes the new value.
    pub fn add(&mut self, flat_key: StrId, key: StrId, value: ArgValue) {
        match self.args.iter_mut().find(|a| a.1 == key) {
            Some(slot) => {
                slot.0 = flat_key;
                slot.2 = value;
            }
            None => self.args.push((flat_key, key, value)),
        }
    }

    /// Adds an arg unless its key is already present.
    pub fn add_if_absent(&mut self, key: StrId, value: ArgValue) {
        if !self.args.iter().any(|a| a.1 == key) {
            self.args.push((key, key, value));
        }
    }

    pub fn next_array_index(&mut self, key: StrId) -> usize {
        self.array_index
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |(_, i)| *i)
    }

    /// Advances the array under `key` and returns its next free index.
    pub fn increment_array_index(&mut self, key: StrId) -> usize {
        match self.array_index.iter_mut().find(|(k, _)| *k == key) {
            Some((_, i)) => {
                *i += 1;
                *i
            }
            None => {
                self.array_index.push((key, 1));
                1
            }
        }
    }
}

/// A key under construction: the flat key (no array indexes) and the key.
#[derive(Default)]
pub struct KeyPath {
    pub flat: String,
    pub key: String,
}

impl KeyPath {
    /// Marks the current lengths, to return to with [`KeyPath::restore`].
    pub fn mark(&self) -> (usize, usize) {
        (self.flat.len(), self.key.len())
    }

    pub fn restore(&mut self, mark: (usize, usize)) {
        self.flat.truncate(mark.0);
        self.key.truncate(mark.1);
    }

    /// Enters a dictionary entry or message field: `.name` on both keys.
    pub fn push_field(&mut self, name: &str) {
        for s in [&mut self.flat, &mut self.key] {
            if !s.is_empty() {
                s.push('.');
            }
            s.push_str(name);
        }
    }

    /// Enters an array element: `[index]` on the key only.
    pub fn push_index(&mut self, index: usize) {
        use std::fmt::Write;
        let _ = write!(self.key, "[{index}]");
    }

    pub fn intern(&self, store: &mut Store) -> (StrId, StrId) {
        let flat = store.intern(&self.flat);
        let key = if self.key == self.flat {
            flat
        } else {
            store.intern(&self.key)
        };
        (flat, key)
    }
}

/// Reflects one field of a message into args: scalars become values (enums their names),
/// messages are walked (an empty one is a NULL arg), repeated fields are indexed per field
/// within their message. Fields the schema does not know are counted in `unknown`.
pub fn reflect_field(
    store: &mut Store,
    sink: &mut ArgsSink,
    path: &mut KeyPath,
    field: &Field,
    value: Value<'_>,
    index: Option<usize>,
    unknown: &mut u32,
) {
    let mark = path.mark();
    path.push_field(field.name);
    if let Some(i) = index {
        path.push_index(i);
    }
    match field.kind {
        Kind::Message(fields) => {
            reflect_message(store, sink, path, fields, value.as_bytes(), unknown)
        }
        kind => {
            let (flat, key) = path.intern(store);
            let v = scalar(store, kind, value);
            sink.add(flat, key, v);
        }
    }
    path.restore(mark);
}

fn reflect_message(
    store: &mut Store,
    sink: &mut ArgsSink,
    path: &mut KeyPath,
    fields: &[Field],
    bytes: &[u8],
    unknown: &mut u32,
) {
    if bytes.is_empty() {
        let (flat, key) = path.intern(store);
        sink.add(flat, key, ArgValue::Null);
        return;
    }
    // Repeated fields count their elements per field number within this message.
    let mut counts: Vec<(u32, usize)> = Vec::new();
    let mut next_index = |number: u32| -> usize {
        match counts.iter_mut().find(|(n, _)| *n == number) {
            Some((_, c)) => {
                *c += 1;
                *c - 1
            }
            None => {
                counts.push((number, 1));
                0
            }
        }
    };
    for (id, v) in Fields::new(bytes).map_while(Result::ok) {
        let Some(f) = fields.iter().find(|f| f.number == id) else {
            *unknown += 1;
            continue;
        };
        let packed = f.repeated
            && matches!(v, Value::Bytes(_))
            && !matches!(f.kind, Kind::Message(_) | Kind::Str);
        if packed {
            let packed_values: Vec<Value<'_>> = match f.kind {
                Kind::Fixed64 => v
                    .as_bytes()
                    .chunks_exact(8)
                    .map(|c| Value::Fixed64(u64::from_le_bytes(c.try_into().expect("8"))))
                    .collect(),
                _ => PackedVarints::new(v.as_bytes())
                    .map(Value::Varint)
                    .collect(),
            };
            for pv in packed_values {
                let i = next_index(id);
                reflect_field(store, sink, path, f, pv, Some(i), unknown);
            }
        } else {
            let i = f.repeated.then(|| next_index(id));
            reflect_field(store, sink, path, f, v, i, unknown);
        }
    }
}

fn scalar(store: &mut Store, kind: Kind, v: Value<'_>) -> ArgValue {
    match kind {
        Kind::Int32 => ArgValue::Int(v.as_i32() as i64),
        Kind::Int64 => ArgValue::Int(v.as_i64()),
        Kind::UInt32 => ArgValue::UInt(v.as_u32() as u64),
        Kind::UInt64 | Kind::Fixed64 => ArgValue::UInt(v.as_u64()),
        Kind::Bool => ArgValue::Bool(v.as_bool()),
        Kind::Str => ArgValue::Str(store.intern(&v.as_string_lossy())),
        Kind::Enum(values) => {
            let n = v.as_i32();
            let name = values.iter().find(|(k, _)| *k == n).map(|(_, s)| *s);
            match name {
                Some(s) => ArgValue::Str(store.intern(s)),
                None => ArgValue::Str(store.intern(&n.to_string())),
            }
        }
        Kind::Message(_) => ArgValue::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::track_event::chrome;
    use crate::trace::wire::put_field;

    fn keys(store: &Store, sink: &ArgsSink) -> Vec<(String, String, String)> {
        sink.args
            .iter()
            .map(|(f, k, v)| {
                let v = match v {
                    ArgValue::Str(s) => store.str(*s).to_string(),
                    other => format!("{other:?}"),
                };
                (store.str(*f).to_string(), store.str(*k).to_string(), v)
            })
            .collect()
    }

    #[test]
    fn enums_become_names_and_unknown_values_their_number() {
        let mut store = Store::default();
        let mut sink = ArgsSink::default();
        let mut path = KeyPath::default();
        let mut m = Vec::new();
        put_field(&mut m, 1, Value::Varint(5));
        put_field(&mut m, 2, Value::Varint(999));
        let f = chrome::REFLECTED
            .iter()
            .find(|f| f.name == "sequence_manager_task")
            .unwrap();
        let mut unknown = 0;
        reflect_field(
            &mut store,
            &mut sink,
            &mut path,
            f,
            Value::Bytes(&m),
            None,
            &mut unknown,
        );
        let got = keys(&store, &sink);
        assert_eq!(got[0].1, "sequence_manager_task.priority");
        assert_eq!(got[0].2, "NORMAL_PRIORITY");
        assert_eq!(got[1].2, "999");
        assert_eq!(unknown, 0);
        assert!(path.key.is_empty());
    }

    #[test]
    fn repeated_fields_are_indexed_and_empty_messages_are_null() {
        let mut store = Store::default();
        let mut sink = ArgsSink::default();
        let mut path = KeyPath::default();
        let mut m = Vec::new();
        put_field(&mut m, 1, Value::Varint(7));
        put_field(&mut m, 1, Value::Varint(8));
        put_field(&mut m, 9, Value::Varint(1));
        let f = chrome::REFLECTED
            .iter()
            .find(|f| f.name == "chrome_active_processes")
            .unwrap();
        let mut unknown = 0;
        reflect_field(
            &mut store,
            &mut sink,
            &mut path,
            f,
            Value::Bytes(&m),
            None,
            &mut unknown,
        );
        let got = keys(&store, &sink);
        assert_eq!(
            got.iter()
                .map(|g| (g.0.as_str(), g.1.as_str()))
                .collect::<Vec<_>>(),
            [
                (
                    "chrome_active_processes.pid",
                    "chrome_active_processes.pid[0]"
                ),
                (
                    "chrome_active_processes.pid",
                    "chrome_active_processes.pid[1]"
                )
            ]
        );
        assert_eq!(unknown, 1);
        sink.clear();
        reflect_field(
            &mut store,
            &mut sink,
            &mut path,
            f,
            Value::Bytes(&[]),
            None,
            &mut unknown,
        );
        assert_eq!(sink.args[0].2, ArgValue::Null);
    }

    #[test]
    fn later_value_for_a_key_replaces_in_place() {
        let mut store = Store::default();
        let (a, b) = (store.intern("a"), store.intern("b"));
        let mut sink = ArgsSink::default();
        sink.add(a, a, ArgValue::Int(1));
        sink.add(b, b, ArgValue::Int(2));
        sink.add(a, a, ArgValue::Int(3));
        sink.add_if_absent(b, ArgValue::Int(4));
        assert_eq!(
            sink.args,
            [(a, a, ArgValue::Int(3)), (b, b, ArgValue::Int(2))]
        );
        assert_eq!(sink.next_array_index(a), 0);
        assert_eq!(sink.increment_array_index(a), 1);
        assert_eq!(sink.next_array_index(a), 1);
    }
}
