//! Legacy JSON debug annotation values flattened into args (trace_processor's
//! AddJsonValueToArgs): object members nest as `key.member`, array elements as `key[i]`
//! (each non-null element takes the next index), nulls are skipped, numbers are integers
//! when they parse as one and reals otherwise. Malformed JSON stops the walk; what was read
//! before the damage is kept.

use super::args::{ArgsSink, KeyPath};
use crate::store::args::ArgValue;
use crate::store::Store;

const MAX_DEPTH: usize = 64;

/// Adds the JSON text under `path`. Returns true: the annotation counts as having a value
/// even when nothing could be read, as in trace_processor.
pub fn add(store: &mut Store, sink: &mut ArgsSink, path: &mut KeyPath, json: &[u8]) -> bool {
    let text = String::from_utf8_lossy(json);
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let _ = p.value(store, sink, path, 0);
    true
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

enum Leaf {
    Null,
    Bool(bool),
    Int(i64),
    Real(f64),
    Str(String),
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// Parses one value at `path`, adding its leaves.
    fn value(
        &mut self,
        store: &mut Store,
        sink: &mut ArgsSink,
        path: &mut KeyPath,
        depth: usize,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'{' => {
                self.i += 1;
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    let key = match self.leaf()? {
                        Leaf::Str(k) => k,
                        _ => return None,
                    };
                    self.expect(b':')?;
                    let mark = path.mark();
                    path.push_field(&key);
                    let r = self.value(store, sink, path, depth + 1);
                    path.restore(mark);
                    r?;
                    match self.peek()? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.i += 1;
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(());
                }
                let array_key = store.intern(&path.key);
                loop {
                    self.ws();
                    let is_null = self.s[self.i..].starts_with(b"null");
                    let mark = path.mark();
                    if is_null {
                        self.leaf()?;
                    } else {
                        path.push_index(sink.next_array_index(array_key));
                        sink.increment_array_index(array_key);
                        let r = self.value(store, sink, path, depth + 1);
                        path.restore(mark);
                        r?;
                    }
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            _ => {
                let v = match self.leaf()? {
                    Leaf::Null => return Some(()),
                    Leaf::Bool(b) => ArgValue::Bool(b),
                    Leaf::Int(i) => ArgValue::Int(i),
                    Leaf::Real(r) => ArgValue::Real(r),
                    Leaf::Str(s) => ArgValue::Str(store.intern(&s)),
                };
                let (flat, key) = path.intern(store);
                sink.add(flat, key, v);
                Some(())
            }
        }
    }

    fn leaf(&mut self) -> Option<Leaf> {
        let c = self.peek()?;
        if c == b'"' {
            return self.string().map(Leaf::Str);
        }
        for (word, leaf) in [
            (&b"null"[..], Leaf::Null),
            (b"true", Leaf::Bool(true)),
            (b"false", Leaf::Bool(false)),
        ] {
            if self.s[self.i..].starts_with(word) {
                self.i += word.len();
                return Some(leaf);
            }
        }
        let start = self.i;
        while self.i < self.s.len()
            && matches!(
                self.s[self.i],
                b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
            )
        {
            self.i += 1;
        }
        let num = std::str::from_utf8(&self.s[start..self.i]).ok()?;
        if let Ok(i) = num.parse::<i64>() {
            return Some(Leaf::Int(i));
        }
        num.parse::<f64>().ok().map(Leaf::Real)
    }

    fn string(&mut self) -> Option<String> {
        self.i += 1; // opening quote
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.s.get(self.i)?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = std::str::from_utf8(self.s.get(self.i..self.i + 4)?).ok()?;
                            self.i += 4;
                            let ch = char::from_u32(u32::from_str_radix(hex, 16).ok()?)
                                .unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_nest_arrays_index_and_nulls_vanish() {
        let mut store = Store::default();
        let mut sink = ArgsSink::default();
        let mut path = KeyPath::default();
        path.push_field("debug");
        path.push_field("data");
        add(
            &mut store,
            &mut sink,
            &mut path,
            br#"{"a": 1, "b": [true, null, 2.5, "x\"y"], "c": null}"#,
        );
        let got: Vec<_> = sink
            .args
            .iter()
            .map(|(f, k, v)| {
                (
                    store.str(*f).to_string(),
                    store.str(*k).to_string(),
                    v.clone(),
                )
            })
            .collect();
        let x = store.intern("x\"y");
        assert_eq!(
            got,
            [
                (
                    "debug.data.a".into(),
                    "debug.data.a".into(),
                    ArgValue::Int(1)
                ),
                (
                    "debug.data.b".into(),
                    "debug.data.b[0]".into(),
                    ArgValue::Bool(true)
                ),
                (
                    "debug.data.b".into(),
                    "debug.data.b[1]".into(),
                    ArgValue::Real(2.5)
                ),
                (
                    "debug.data.b".into(),
                    "debug.data.b[2]".into(),
                    ArgValue::Str(x)
                ),
            ]
        );
        assert_eq!(path.key, "debug.data");
    }

    #[test]
    fn a_bare_scalar_is_one_arg_and_garbage_adds_nothing() {
        let mut store = Store::default();
        let mut sink = ArgsSink::default();
        let mut path = KeyPath::default();
        path.push_field("v");
        add(&mut store, &mut sink, &mut path, b"42");
        assert_eq!(sink.args.len(), 1);
        sink.clear();
        add(&mut store, &mut sink, &mut path, b"{\"a\": ");
        assert!(sink.args.is_empty());
    }
}
