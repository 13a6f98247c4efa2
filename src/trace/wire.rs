//! A zero-copy protobuf wire-format scanner for the hot paths (trace framing, packet
//! headers, ftrace bundles). Message bodies that are not hot are decoded with prost.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WireError {
    #[error("truncated varint at byte {0}")]
    Varint(usize),
    #[error(
        "field length {len} at byte {at} runs past the end of its message ({avail} bytes left)"
    )]
    Length { at: usize, len: u64, avail: usize },
    #[error("unsupported wire type {wire_type} at byte {at}")]
    WireType { at: usize, wire_type: u8 },
    #[error("truncated fixed-size field at byte {0}")]
    Fixed(usize),
    #[error("field number {field} at byte {at} is above protobuf's maximum (2^29 - 1)")]
    FieldNumber { at: usize, field: u64 },
}

/// The largest field number protobuf allows. trace_processor's decoder truncates a larger
/// one to 32 bits (so 2^32 + 50 would read as field 50); frameprobe treats it as damage.
pub const MAX_FIELD_NUMBER: u64 = (1 << 29) - 1;

/// One field as it appears on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
}

impl<'a> Value<'a> {
    pub fn as_u64(&self) -> u64 {
        match *self {
            Value::Varint(v) | Value::Fixed64(v) => v,
            Value::Fixed32(v) => v as u64,
            Value::Bytes(_) => 0,
        }
    }
    pub fn as_i64(&self) -> i64 {
        self.as_u64() as i64
    }
    /// int32 fields are sign-extended to 64 bits on the wire; truncation recovers them.
    pub fn as_i32(&self) -> i32 {
        self.as_u64() as i32
    }
    pub fn as_u32(&self) -> u32 {
        self.as_u64() as u32
    }
    pub fn as_bool(&self) -> bool {
        self.as_u64() != 0
    }
    pub fn as_bytes(&self) -> &'a [u8] {
        match *self {
            Value::Bytes(b) => b,
            _ => &[],
        }
    }
    pub fn as_str(&self) -> &'a str {
        utf8(self.as_bytes()).unwrap_or("")
    }
    /// Strings the way Perfetto reads them: invalid UTF-8 is replaced, not dropped.
    pub fn as_string_lossy(&self) -> std::borrow::Cow<'a, str> {
        String::from_utf8_lossy(self.as_bytes())
    }
}

/// `str::from_utf8`, with a fast path for ASCII, which nearly every trace string is: on the
/// short strings of prints and names the ASCII test is about three times cheaper than the
/// full validation.
#[inline]
pub fn utf8(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if bytes.is_ascii() {
        // SAFETY: ASCII is valid UTF-8.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes)
    }
}

/// Decodes a varint starting at `pos`; returns the value and the position after it.
/// At most ten bytes are read; a tenth byte with its continuation bit set is an error.
#[inline]
pub fn read_varint(buf: &[u8], pos: usize) -> Result<(u64, usize), WireError> {
    // Tags and small values are one byte; timestamps and ids take up to eight, decoded
    // from one word without a loop.
    match buf.get(pos..pos.wrapping_add(8)) {
        Some(w) => {
            let word = u64::from_le_bytes(w.try_into().unwrap_or_default());
            if word & 0x80 == 0 {
                return Ok((word & 0x7f, pos + 1));
            }
            // One bit per byte whose continuation bit is clear: the lowest is the last byte.
            let ends = !word & 0x8080_8080_8080_8080;
            if ends == 0 {
                return read_varint_bytewise(buf, pos);
            }
            let len = (ends.trailing_zeros() + 1) / 8;
            Ok((compact_varint_word(word, len), pos + len as usize))
        }
        None => read_varint_bytewise(buf, pos),
    }
}

/// The value of the `len`-byte (1..=8) varint in the low bytes of `word`: the seven payload
/// bits of each byte, packed together.
#[inline]
fn compact_varint_word(word: u64, len: u32) -> u64 {
    let w = word & (u64::MAX >> (64 - 8 * len));
    let w = (w & 0x007f_007f_007f_007f) | ((w & 0x7f00_7f00_7f00_7f00) >> 1);
    let w = (w & 0x0000_3fff_0000_3fff) | ((w & 0x3fff_0000_3fff_0000) >> 2);
    (w & 0x0000_0000_0fff_ffff) | ((w & 0x0fff_ffff_0000_0000) >> 4)
}

/// The plain decoder: within eight bytes of the end, and for varints of nine or ten bytes.
fn read_varint_bytewise(buf: &[u8], pos: usize) -> Result<(u64, usize), WireError> {
    let mut value: u64 = 0;
    let mut shift = 0u32;
    let mut i = pos;
    while i < buf.len() && shift < 64 {
        let b = buf[i];
        value |= ((b & 0x7f) as u64) << shift;
        i += 1;
        if b & 0x80 == 0 {
            return Ok((value, i));
        }
        shift += 7;
    }
    Err(WireError::Varint(pos))
}

/// Appends `v` as a varint (for writers: the generator, the benchmark, tests).
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends one field in wire format.
pub fn put_field(out: &mut Vec<u8>, field: u32, v: Value<'_>) {
    let tag = (field as u64) << 3;
    match v {
        Value::Varint(x) => {
            put_varint(out, tag);
            put_varint(out, x);
        }
        Value::Fixed64(x) => {
            put_varint(out, tag | 1);
            out.extend_from_slice(&x.to_le_bytes());
        }
        Value::Fixed32(x) => {
            put_varint(out, tag | 5);
            out.extend_from_slice(&x.to_le_bytes());
        }
        Value::Bytes(b) => {
            put_varint(out, tag | 2);
            put_varint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
    }
}

/// Iterates over the fields of one message. Stops (returning an error once) at the first
/// malformed field; everything before it has been handed out.
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    failed: bool,
}

impl<'a> Fields<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Fields {
            buf,
            pos: 0,
            failed: false,
        }
    }

    /// Offset of the next field inside the message.
    pub fn position(&self) -> usize {
        self.pos
    }

    // Inlined into the hot loops (ftrace bundles and events): as a call, moving the large
    // Result in and out cost about as much as decoding the field.
    #[inline(always)]
    fn next_field(&mut self) -> Result<(u32, Value<'a>), WireError> {
        let start = self.pos;
        let (tag, p) = read_varint(self.buf, self.pos)?;
        if tag >> 3 > MAX_FIELD_NUMBER {
            return Err(WireError::FieldNumber {
                at: start,
                field: tag >> 3,
            });
        }
        let field = (tag >> 3) as u32;
        let wire_type = (tag & 7) as u8;
        let (value, next) = match wire_type {
            0 => {
                let (v, p2) = read_varint(self.buf, p)?;
                (Value::Varint(v), p2)
            }
            1 => {
                let b = self.buf.get(p..p + 8).ok_or(WireError::Fixed(start))?;
                (
                    Value::Fixed64(u64::from_le_bytes(b.try_into().unwrap())),
                    p + 8,
                )
            }
            2 => {
                let (len, p2) = read_varint(self.buf, p)?;
                let avail = self.buf.len() - p2;
                if len > avail as u64 {
                    return Err(WireError::Length {
                        at: start,
                        len,
                        avail,
                    });
                }
                let end = p2 + len as usize;
                (Value::Bytes(&self.buf[p2..end]), end)
            }
            5 => {
                let b = self.buf.get(p..p + 4).ok_or(WireError::Fixed(start))?;
                (
                    Value::Fixed32(u32::from_le_bytes(b.try_into().unwrap())),
                    p + 4,
                )
            }
            _ => {
                return Err(WireError::WireType {
                    at: start,
                    wire_type,
                })
            }
        };
        if field == 0 {
            return Err(WireError::WireType {
                at: start,
                wire_type,
            });
        }
        self.pos = next;
        Ok((field, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Value<'a>), WireError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.buf.len() {
            return None;
        }
        match self.next_field() {
            Ok(f) => Some(Ok(f)),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Iterates over a packed repeated varint field.
pub struct PackedVarints<'a> {
    buf: &'a [u8],
    pos: usize,
    pub error: bool,
}

impl<'a> PackedVarints<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        PackedVarints {
            buf,
            pos: 0,
            error: false,
        }
    }
}

impl Iterator for PackedVarints<'_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        if self.pos >= self.buf.len() {
            return None;
        }
        match read_varint(self.buf, self.pos) {
            Ok((v, p)) => {
                self.pos = p;
                Some(v)
            }
            Err(_) => {
                self.error = true;
                self.pos = self.buf.len();
                None
            }
        }
    }
}

/// The singular fields of a small message by field number (`N` slots, later occurrences
/// winning as protobuf's do); `None` when absent. Fields numbered `N` or above are skipped,
/// and damage ends the scan quietly.
pub fn slots<const N: usize>(buf: &[u8]) -> [Option<Value<'_>>; N] {
    let mut out = [None; N];
    for (id, v) in Fields::new(buf).map_while(Result::ok) {
        if let Some(slot) = out.get_mut(id as usize) {
            *slot = Some(v);
        }
    }
    out
}

/// The values of field `id` of a message, in wire order (a repeated field, unpacked).
pub fn repeated(buf: &[u8], id: u32) -> impl Iterator<Item = Value<'_>> {
    Fields::new(buf)
        .map_while(Result::ok)
        .filter(move |(i, _)| *i == id)
        .map(|(_, v)| v)
}

/// Builds a message field by field (for tests that hand-make packets).
#[cfg(test)]
#[derive(Default, Clone)]
pub(crate) struct Msg(pub Vec<u8>);

#[cfg(test)]
impl Msg {
    pub fn int(mut self, field: u32, v: i64) -> Self {
        put_field(&mut self.0, field, Value::Varint(v as u64));
        self
    }
    pub fn fixed32(mut self, field: u32, v: u32) -> Self {
        put_field(&mut self.0, field, Value::Fixed32(v));
        self
    }
    pub fn str(mut self, field: u32, s: &str) -> Self {
        put_field(&mut self.0, field, Value::Bytes(s.as_bytes()));
        self
    }
    pub fn msg(mut self, field: u32, m: Msg) -> Self {
        put_field(&mut self.0, field, Value::Bytes(&m.0));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoder the word-at-a-time one must agree with, byte by byte as the format
    /// defines it.
    fn reference_varint(buf: &[u8], pos: usize) -> Result<(u64, usize), WireError> {
        let mut value = 0u64;
        for (k, &b) in buf.iter().skip(pos).take(10).enumerate() {
            value |= u64::from(b & 0x7f).checked_shl(7 * k as u32).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok((value, pos + k + 1));
            }
        }
        Err(WireError::Varint(pos))
    }

    #[test]
    fn text_is_accepted_exactly_when_it_is_utf8() {
        let cases: [&[u8]; 9] = [
            b"",
            b"B|1234|Choreographer#doFrame 123456",
            "B|1|caf\u{e9} \u{1f600}".as_bytes(),
            b"E|1\xff",
            b"\xc3",
            b"B|1|\xc3\x28",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80 too large",
            b"\x7f\x00 ascii controls",
        ];
        for bytes in cases {
            assert_eq!(
                utf8(bytes).map_err(|e| e.valid_up_to()),
                std::str::from_utf8(bytes).map_err(|e| e.valid_up_to()),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn varints_of_every_length_decode_near_and_far_from_the_end() {
        let values = [
            0,
            1,
            127,
            128,
            300,
            (1 << 14) - 1,
            1 << 14,
            (1 << 49) + 12345,
            (1 << 56) - 1,
            1 << 56,
            (1 << 63) - 1,
            1 << 63,
            u64::MAX,
        ];
        for v in values {
            let mut enc = Vec::new();
            put_varint(&mut enc, v);
            for tail in [0usize, 1, 7, 8, 12] {
                let mut buf = vec![0xaa];
                buf.extend_from_slice(&enc);
                buf.extend(std::iter::repeat_n(0xff, tail));
                assert_eq!(
                    read_varint(&buf, 1),
                    Ok((v, 1 + enc.len())),
                    "{v} tail {tail}"
                );
            }
            // Cut short anywhere, it is an error at its start, never a value.
            for cut in 0..enc.len() {
                assert_eq!(read_varint(&enc[..cut], 0), Err(WireError::Varint(0)));
            }
        }
    }

    #[test]
    fn varint_decoding_matches_the_bytewise_definition_on_arbitrary_bytes() {
        // Random bytes biased toward continuation bits, so that long and overlong (eleven
        // byte) varints and truncations all occur; a fixed seed keeps the test repeatable.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..20_000 {
            let len = (next() % 24) as usize;
            let biased = round % 2 == 1;
            let buf: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    (r as u8) | if biased && r >> 61 != 0 { 0x80 } else { 0 }
                })
                .collect();
            for pos in 0..=len {
                assert_eq!(
                    read_varint(&buf, pos),
                    reference_varint(&buf, pos),
                    "{buf:?} at {pos}"
                );
            }
        }
    }

    #[test]
    fn reads_each_wire_type() {
        // field 1 varint 150, field 2 bytes "hi", field 3 fixed32 1, field 4 fixed64 2
        let buf = [
            0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1d, 1, 0, 0, 0, 0x21, 2, 0, 0, 0, 0, 0, 0,
            0,
        ];
        let fields: Vec<_> = Fields::new(&buf).collect::<Result<_, _>>().unwrap();
        assert_eq!(fields[0], (1, Value::Varint(150)));
        assert_eq!(fields[1], (2, Value::Bytes(b"hi")));
        assert_eq!(fields[2], (3, Value::Fixed32(1)));
        assert_eq!(fields[3], (4, Value::Fixed64(2)));
    }

    #[test]
    fn length_past_end_is_an_error_not_a_panic() {
        let buf = [0x12, 0x7f, b'a'];
        let mut it = Fields::new(&buf);
        assert!(matches!(
            it.next(),
            Some(Err(WireError::Length {
                at: 0,
                len: 127,
                avail: 1
            }))
        ));
        assert!(it.next().is_none());
    }

    #[test]
    fn field_numbers_above_2_pow_29_are_damage_not_aliases() {
        // Field 2^32 + 50 (length-delimited) would be compressed_packets if truncated to u32.
        let mut buf = Vec::new();
        put_varint(&mut buf, (((1u64 << 32) + 50) << 3) | 2);
        buf.extend_from_slice(&[1, 0xaa]);
        let mut it = Fields::new(&buf);
        assert_eq!(
            it.next(),
            Some(Err(WireError::FieldNumber {
                at: 0,
                field: (1 << 32) + 50
            }))
        );
        // 2^29 - 1 is the largest valid field number.
        let mut ok = Vec::new();
        put_field(&mut ok, MAX_FIELD_NUMBER as u32, Value::Varint(7));
        assert_eq!(
            Fields::new(&ok).next(),
            Some(Ok((MAX_FIELD_NUMBER as u32, Value::Varint(7))))
        );
        let mut over = Vec::new();
        put_varint(&mut over, (MAX_FIELD_NUMBER + 1) << 3);
        over.push(7);
        assert!(matches!(
            Fields::new(&over).next(),
            Some(Err(WireError::FieldNumber { .. }))
        ));
    }

    #[test]
    fn negative_int32_round_trips() {
        let (v, _) = read_varint(
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            0,
        )
        .unwrap();
        assert_eq!(Value::Varint(v).as_i32(), -1);
    }
}
