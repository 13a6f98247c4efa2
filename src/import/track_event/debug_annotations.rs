//! DebugAnnotations flattened into args as trace_processor flattens them, under `debug.`:
//! names (interned or inline) have `.`, `[` and `]` replaced by `_`; dictionaries nest
//! their entries (`debug.a.b`); arrays index their elements in the key only
//! (`debug.a[0]`, flat key `debug.a`), and an element that added nothing (an empty array)
//! does not use up an index. NestedValue (the legacy nested form) follows the same rules.

use super::args::{ArgsSink, KeyPath};
use super::decode::interned as iid;
use crate::store::args::ArgValue;
use crate::store::Store;
use crate::trace::interned::InternedData;
use crate::trace::wire::Fields;

/// Why an annotation (or part of it) was not imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// Bad name or string iid, no name: trace_processor's parser errors.
    Invalid,
    /// A proto_value (typed proto payload): frameprobe has no descriptors for it.
    ProtoValue,
}

/// Everything the walk needs besides the output.
pub struct Context<'a> {
    pub interned: &'a InternedData,
    pub interval: u32,
}

/// Depth beyond which nesting is not followed (malformed or hostile input).
const MAX_DEPTH: usize = 64;

/// Adds one top-level annotation under `path` (which holds `debug`). Returns the first
/// problem met; what could be read is kept.
pub fn add(
    cx: &Context<'_>,
    store: &mut Store,
    sink: &mut ArgsSink,
    path: &mut KeyPath,
    annotation: &[u8],
) -> Result<(), Problem> {
    let mut problem = None;
    let mark = path.mark();
    match name(cx, annotation) {
        Ok(n) => {
            path.push_field(&n);
            annotation_value(cx, store, sink, path, annotation, 0, &mut problem);
        }
        Err(p) => problem = Some(p),
    }
    path.restore(mark);
    problem.map_or(Ok(()), Err)
}

fn sanitize(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw)
        .chars()
        .map(|c| if matches!(c, '.' | '[' | ']') { '_' } else { c })
        .collect()
}

fn name(cx: &Context<'_>, annotation: &[u8]) -> Result<String, Problem> {
    let mut name_iid = None;
    let mut name = None;
    for (id, v) in Fields::new(annotation).map_while(Result::ok) {
        match id {
            1 => name_iid = Some(v.as_u64()),
            10 => name = Some(v.as_bytes()),
            _ => {}
        }
    }
    match (name_iid.filter(|&i| i != 0), name) {
        (Some(i), _) => cx
            .interned
            .string(cx.interval, iid::DEBUG_ANNOTATION_NAMES, i)
            .map(sanitize)
            .ok_or(Problem::Invalid),
        (None, Some(n)) => Ok(sanitize(n)),
        (None, None) => Err(Problem::Invalid),
    }
}

/// The value fields of a DebugAnnotation, as trace_processor checks them (first present
/// wins, in this order).
#[derive(Default)]
struct Annotation<'a> {
    bool_value: Option<bool>,
    uint_value: Option<u64>,
    int_value: Option<i64>,
    double_value: Option<f64>,
    string_value: Option<&'a [u8]>,
    string_value_iid: Option<u64>,
    pointer_value: Option<u64>,
    legacy_json_value: Option<&'a [u8]>,
    nested_value: Option<&'a [u8]>,
    has_proto_value: bool,
    has_dict: bool,
    has_array: bool,
}

fn decode(bytes: &[u8]) -> Annotation<'_> {
    let mut a = Annotation::default();
    for (id, v) in Fields::new(bytes).map_while(Result::ok) {
        match id {
            2 => a.bool_value = Some(v.as_bool()),
            3 => a.uint_value = Some(v.as_u64()),
            4 => a.int_value = Some(v.as_i64()),
            5 => a.double_value = Some(f64::from_bits(v.as_u64())),
            6 => a.string_value = Some(v.as_bytes()),
            17 => a.string_value_iid = Some(v.as_u64()),
            7 => a.pointer_value = Some(v.as_u64()),
            9 => a.legacy_json_value = Some(v.as_bytes()),
            8 => a.nested_value = Some(v.as_bytes()),
            14 => a.has_proto_value = true,
            11 => a.has_dict = true,
            12 => a.has_array = true,
            _ => {}
        }
    }
    a
}

/// Writes the value of the annotation at `path`; returns whether it added any arg.
fn annotation_value(
    cx: &Context<'_>,
    store: &mut Store,
    sink: &mut ArgsSink,
    path: &mut KeyPath,
    bytes: &[u8],
    depth: usize,
    problem: &mut Option<Problem>,
) -> bool {
    if depth > MAX_DEPTH {
        problem.get_or_insert(Problem::Invalid);
        return false;
    }
    let a = decode(bytes);
    if a.has_dict {
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            if id != 11 {
                continue;
            }
            let entry = v.as_bytes();
            let n = match name(cx, entry) {
                Ok(n) => n,
                Err(p) => {
                    problem.get_or_insert(p);
                    continue;
                }
            };
            let mark = path.mark();
            path.push_field(&n);
            annotation_value(cx, store, sink, path, entry, depth + 1, problem);
            path.restore(mark);
        }
        return true;
    }
    if a.has_array {
        let array_key = store.intern(&path.key);
        let mut index = sink.next_array_index(array_key);
        let mut added = false;
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            if id != 12 {
                continue;
            }
            let mark = path.mark();
            path.push_index(index);
            let child = annotation_value(cx, store, sink, path, v.as_bytes(), depth + 1, problem);
            path.restore(mark);
            if child {
                index = sink.increment_array_index(array_key);
                added = true;
            }
        }
        return added;
    }
    let value = if let Some(b) = a.bool_value {
        ArgValue::Bool(b)
    } else if let Some(u) = a.uint_value {
        ArgValue::UInt(u)
    } else if let Some(i) = a.int_value {
        ArgValue::Int(i)
    } else if let Some(d) = a.double_value {
        ArgValue::Real(d)
    } else if let Some(s) = a.string_value {
        ArgValue::Str(store.intern(&String::from_utf8_lossy(s)))
    } else if let Some(i) = a.string_value_iid {
        match cx
            .interned
            .string(cx.interval, iid::DEBUG_ANNOTATION_STRING_VALUES, i)
        {
            Some(s) => ArgValue::Str(store.intern(&String::from_utf8_lossy(s))),
            None => {
                problem.get_or_insert(Problem::Invalid);
                return false;
            }
        }
    } else if let Some(p) = a.pointer_value {
        ArgValue::Pointer(p)
    } else if let Some(json) = a.legacy_json_value {
        return super::json::add(store, sink, path, json);
    } else if a.has_proto_value {
        problem.get_or_insert(Problem::ProtoValue);
        return true;
    } else if let Some(nested) = a.nested_value {
        return nested_value(store, sink, path, nested, depth + 1, problem);
    } else {
        return false;
    };
    let (flat, key) = path.intern(store);
    sink.add(flat, key, value);
    true
}

/// DebugAnnotation.NestedValue: a scalar, a dictionary (parallel key and value lists) or
/// an array.
fn nested_value(
    store: &mut Store,
    sink: &mut ArgsSink,
    path: &mut KeyPath,
    bytes: &[u8],
    depth: usize,
    problem: &mut Option<Problem>,
) -> bool {
    if depth > MAX_DEPTH {
        problem.get_or_insert(Problem::Invalid);
        return false;
    }
    let mut ty = 0;
    let (mut b, mut i, mut d, mut s) = (None, None, None, None);
    for (id, v) in Fields::new(bytes).map_while(Result::ok) {
        match id {
            1 => ty = v.as_i32(),
            5 => i = Some(v.as_i64()),
            6 => d = Some(f64::from_bits(v.as_u64())),
            7 => b = Some(v.as_bool()),
            8 => s = Some(v.as_bytes()),
            _ => {}
        }
    }
    match ty {
        // DICT
        1 => {
            let keys: Vec<&[u8]> = Fields::new(bytes)
                .map_while(Result::ok)
                .filter(|(id, _)| *id == 2)
                .map(|(_, v)| v.as_bytes())
                .collect();
            let values: Vec<&[u8]> = Fields::new(bytes)
                .map_while(Result::ok)
                .filter(|(id, _)| *id == 3)
                .map(|(_, v)| v.as_bytes())
                .collect();
            if keys.len() != values.len() {
                problem.get_or_insert(Problem::Invalid);
                return false;
            }
            for (k, v) in keys.into_iter().zip(values) {
                let mark = path.mark();
                path.push_field(&sanitize(k));
                nested_value(store, sink, path, v, depth + 1, problem);
                path.restore(mark);
            }
            true
        }
        // ARRAY
        2 => {
            let array_key = store.intern(&path.key);
            let mut index = sink.next_array_index(array_key);
            let mut added = false;
            for (id, v) in Fields::new(bytes).map_while(Result::ok) {
                if id != 4 {
                    continue;
                }
                let mark = path.mark();
                path.push_index(index);
                let child = nested_value(store, sink, path, v.as_bytes(), depth + 1, problem);
                path.restore(mark);
                if child {
                    index = sink.increment_array_index(array_key);
                    added = true;
                }
            }
            added
        }
        _ => {
            let value = if let Some(b) = b {
                ArgValue::Bool(b)
            } else if let Some(i) = i {
                ArgValue::Int(i)
            } else if let Some(d) = d {
                ArgValue::Real(d)
            } else if let Some(s) = s {
                ArgValue::Str(store.intern(&String::from_utf8_lossy(s)))
            } else {
                return false;
            };
            let (flat, key) = path.intern(store);
            sink.add(flat, key, value);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::{put_field, Value};

    fn named(name: &str, rest: &[u8]) -> Vec<u8> {
        let mut m = Vec::new();
        put_field(&mut m, 10, Value::Bytes(name.as_bytes()));
        m.extend_from_slice(rest);
        m
    }

    fn int(v: i64) -> Vec<u8> {
        let mut m = Vec::new();
        put_field(&mut m, 4, Value::Varint(v as u64));
        m
    }

    fn run(annotation: &[u8]) -> Vec<(String, String, ArgValue)> {
        let mut store = Store::default();
        let interned = InternedData::default();
        let cx = Context {
            interned: &interned,
            interval: 0,
        };
        let mut sink = ArgsSink::default();
        let mut path = KeyPath::default();
        path.push_field("debug");
        let _ = add(&cx, &mut store, &mut sink, &mut path, annotation);
        assert_eq!(path.key, "debug");
        sink.args
            .iter()
            .map(|(f, k, v)| {
                (
                    store.str(*f).to_string(),
                    store.str(*k).to_string(),
                    v.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn scalars_and_sanitized_names() {
        let got = run(&named("a.b[c]", &int(-3)));
        assert_eq!(
            got,
            [(
                "debug.a_b_c_".into(),
                "debug.a_b_c_".into(),
                ArgValue::Int(-3)
            )]
        );
        let mut p = Vec::new();
        put_field(&mut p, 7, Value::Varint(0x1234));
        assert_eq!(run(&named("ptr", &p))[0].2, ArgValue::Pointer(0x1234));
    }

    #[test]
    fn dict_nests_and_array_indexes_skip_empty_elements() {
        // {controller: {line: 94, file: "x"}}
        let mut dict = Vec::new();
        put_field(&mut dict, 11, Value::Bytes(&named("line", &int(94))));
        let mut s = Vec::new();
        put_field(&mut s, 6, Value::Bytes(b"x"));
        put_field(&mut dict, 11, Value::Bytes(&named("file", &s)));
        let got = run(&named("controller", &dict));
        let keys: Vec<_> = got.iter().map(|g| g.1.as_str()).collect();
        assert_eq!(keys, ["debug.controller.line", "debug.controller.file"]);

        // [1, [], 2]: the empty inner array takes no index.
        let mut arr = Vec::new();
        put_field(&mut arr, 12, Value::Bytes(&int(1)));
        let mut empty = Vec::new();
        put_field(&mut empty, 12, Value::Bytes(&[]));
        // An array whose only element has no value adds nothing.
        let mut inner = Vec::new();
        put_field(&mut inner, 12, Value::Bytes(&[]));
        put_field(&mut arr, 12, Value::Bytes(&inner));
        put_field(&mut arr, 12, Value::Bytes(&int(2)));
        let got = run(&named("list", &arr));
        let keys: Vec<_> = got.iter().map(|g| (g.0.as_str(), g.1.as_str())).collect();
        assert_eq!(
            keys,
            [
                ("debug.list", "debug.list[0]"),
                ("debug.list", "debug.list[1]")
            ]
        );
        assert_eq!(got[1].2, ArgValue::Int(2));
    }

    #[test]
    fn nested_value_dict_and_array() {
        // NestedValue {DICT, keys [k], values [ARRAY [5, 6]]}
        let mut five = Vec::new();
        put_field(&mut five, 5, Value::Varint(5));
        let mut six = Vec::new();
        put_field(&mut six, 5, Value::Varint(6));
        let mut arr = Vec::new();
        put_field(&mut arr, 1, Value::Varint(2));
        put_field(&mut arr, 4, Value::Bytes(&five));
        put_field(&mut arr, 4, Value::Bytes(&six));
        let mut dict = Vec::new();
        put_field(&mut dict, 1, Value::Varint(1));
        put_field(&mut dict, 2, Value::Bytes(b"k"));
        put_field(&mut dict, 3, Value::Bytes(&arr));
        let mut a = Vec::new();
        put_field(&mut a, 8, Value::Bytes(&dict));
        let got = run(&named("n", &a));
        let keys: Vec<_> = got.iter().map(|g| (g.1.as_str(), g.2.clone())).collect();
        assert_eq!(
            keys,
            [
                ("debug.n.k[0]", ArgValue::Int(5)),
                ("debug.n.k[1]", ArgValue::Int(6))
            ]
        );
    }

    #[test]
    fn missing_name_is_a_problem() {
        let mut store = Store::default();
        let interned = InternedData::default();
        let cx = Context {
            interned: &interned,
            interval: 0,
        };
        let mut sink = ArgsSink::default();
        let mut path = KeyPath::default();
        assert_eq!(
            add(&cx, &mut store, &mut sink, &mut path, &int(1)),
            Err(Problem::Invalid)
        );
        assert!(sink.args.is_empty());
    }
}
