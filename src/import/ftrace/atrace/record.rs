//! The atrace text grammar written into `trace_marker` by Android's `ATRACE_*` macros and
//! by the vendor kernel drivers that imitate it, parsed the way trace_processor does.
//!
//! ```text
//! B|tgid|name            begin a thread slice (the name is the whole rest, '|' included)
//! E|tgid                 end the innermost thread slice (tgid may be missing)
//! S|tgid|name|cookie     begin an async slice on a track named after the slice
//! F|tgid|name|cookie     end it
//! I|tgid|name            instant on the thread
//! N|tgid|track|name      instant on a named process track
//! G|tgid|track|name|cookie   begin an async slice on a named process track
//! H|tgid|track|[name|]cookie end it
//! C|tgid|name|value[|category]   counter (integer values only)
//! ```
//! Fields are split on '|' and on NUL; trailing newlines and NULs are ignored. Everything
//! borrows from the input: parsing never allocates.

/// One well-formed record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record<'a> {
    Begin {
        tgid: u32,
        name: &'a str,
    },
    /// `tgid` is 0 when the writer left it out (older Android, Flutter).
    End {
        tgid: u32,
    },
    AsyncBegin {
        tgid: u32,
        name: &'a str,
        cookie: i64,
    },
    AsyncEnd {
        tgid: u32,
        name: &'a str,
        cookie: i64,
    },
    Instant {
        tgid: u32,
        name: &'a str,
    },
    TrackInstant {
        tgid: u32,
        track: &'a str,
        name: &'a str,
    },
    TrackBegin {
        tgid: u32,
        track: &'a str,
        name: &'a str,
        cookie: i64,
    },
    TrackEnd {
        tgid: u32,
        track: &'a str,
        cookie: i64,
    },
    Counter {
        tgid: u32,
        name: &'a str,
        value: i64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed<'a> {
    Record(Record<'a>),
    /// Recognised but deliberately ignored (clock sync markers); not an error.
    Unsupported,
    /// Not an atrace record; counted as `systrace_parse_failure`.
    Malformed,
}

/// What a `B` record with nothing after the tgid is called.
pub const EMPTY_SLICE_NAME: &str = "[empty slice name]";

/// Splits on '|' and NUL the way trace_processor's reader does: a field ends at the
/// separator, which is consumed, and reading past the end yields empty fields.
struct Fields<'a> {
    s: &'a str,
    off: usize,
}

impl<'a> Fields<'a> {
    fn next(&mut self) -> &'a str {
        let start = self.off.min(self.s.len());
        let end = self.s.as_bytes()[start..]
            .iter()
            .position(|&b| b == b'|' || b == 0)
            .map_or(self.s.len(), |p| start + p);
        self.off = end + 1;
        &self.s[start..end]
    }

    /// Everything after the fields read so far (separators included).
    fn rest(&self) -> &'a str {
        self.s.get(self.off..).unwrap_or("")
    }
}

pub fn parse(input: &str) -> Parsed<'_> {
    match parse_plain_begin_or_end(input) {
        Some(rec) => Parsed::Record(rec),
        None => parse_by_fields(input),
    }
}

/// [`parse`] for any record, field by field.
fn parse_by_fields(input: &str) -> Parsed<'_> {
    let s = input.trim_end_matches(['\n', '\0']);
    let mut f = Fields { s, off: 0 };
    let phase = match f.next().as_bytes().first() {
        Some(&b) => b,
        None => return Parsed::Malformed,
    };
    let tgid_field = f.next();
    let tgid_opt = c_str_to_u32(tgid_field);
    let tgid = tgid_opt.unwrap_or(0);
    let has_tgid = tgid_opt.is_some();
    let rec = match phase {
        b'B' if has_tgid => {
            let rest = f.rest();
            Record::Begin {
                tgid,
                name: if rest.is_empty() {
                    EMPTY_SLICE_NAME
                } else {
                    rest
                },
            }
        }
        b'E' => Record::End { tgid },
        b'S' | b'F' => {
            let name = f.next();
            let cookie = c_str_to_i64(f.next());
            match cookie {
                Some(cookie) if has_tgid && !name.is_empty() => {
                    if phase == b'S' {
                        Record::AsyncBegin { tgid, name, cookie }
                    } else {
                        Record::AsyncEnd { tgid, name, cookie }
                    }
                }
                _ => return Parsed::Malformed,
            }
        }
        b'I' => {
            let name = f.next();
            if !has_tgid || name.is_empty() {
                return Parsed::Malformed;
            }
            Record::Instant { tgid, name }
        }
        b'N' => {
            let track = f.next();
            let name = f.next();
            if !has_tgid || track.is_empty() || name.is_empty() {
                return Parsed::Malformed;
            }
            Record::TrackInstant { tgid, track, name }
        }
        b'C' => {
            let name = f.next();
            match c_str_to_i64(f.next()) {
                Some(value) if has_tgid && !name.is_empty() => {
                    Record::Counter { tgid, name, value }
                }
                _ => return Parsed::Malformed,
            }
        }
        b'G' => {
            let track = f.next();
            let name = f.next();
            match c_str_to_i64(f.next()) {
                Some(cookie) if has_tgid && !track.is_empty() && !name.is_empty() => {
                    Record::TrackBegin {
                        tgid,
                        track,
                        name,
                        cookie,
                    }
                }
                _ => return Parsed::Malformed,
            }
        }
        b'H' => {
            // Both `H|tgid|track|cookie` and `H|tgid|track|name|cookie` are in use.
            let track = f.next();
            let third = f.next();
            let fourth = f.next();
            let cookie_field = if fourth.is_empty() { third } else { fourth };
            match c_str_to_i64(cookie_field) {
                Some(cookie) if has_tgid && !track.is_empty() => Record::TrackEnd {
                    tgid,
                    track,
                    cookie,
                },
                _ => return Parsed::Malformed,
            }
        }
        _ if s.starts_with("trace_event_clock_sync:") => return Parsed::Unsupported,
        _ => return Parsed::Malformed,
    };
    Parsed::Record(rec)
}

/// Most records are `B|tgid|name` and `E|tgid` with a plain decimal tgid, ending in
/// newlines: read here in one pass, the same as [`parse`] reads them. None for
/// anything else, which takes the general path (a sign, spaces, ten digits or more, a NUL
/// after the tgid, more fields after an end's tgid).
fn parse_plain_begin_or_end(input: &str) -> Option<Record<'_>> {
    // Nine digits cannot overflow a u32, so no saturation to mirror.
    const MAX_DIGITS: usize = 9;
    // Writers end records with a newline: trimmed bytewise (both are ASCII, so the cut
    // stays on a character boundary) as the general path trims them.
    let mut end = input.len();
    while end > 0 && matches!(input.as_bytes()[end - 1], b'\n' | 0) {
        end -= 1;
    }
    let input = &input[..end];
    let b = input.as_bytes();
    if b.get(1) != Some(&b'|') {
        return None;
    }
    let phase = b[0];
    // An index loop: the iterator chain it replaced cost three times the instructions.
    let (mut tgid, mut after) = (0u32, 2);
    while let Some(&d) = b.get(after).filter(|d| d.is_ascii_digit()) {
        if after - 2 == MAX_DIGITS {
            return None;
        }
        tgid = tgid * 10 + u32::from(d - b'0');
        after += 1;
    }
    if after == 2 {
        return None;
    }
    match (phase, b.get(after)) {
        (b'E', None) => Some(Record::End { tgid }),
        (b'B', Some(&b'|')) => {
            let rest = &input[after + 1..];
            Some(Record::Begin {
                tgid,
                name: if rest.is_empty() {
                    EMPTY_SLICE_NAME
                } else {
                    rest
                },
            })
        }
        _ => None,
    }
}

/// The digits of a C integer literal as `strtol`/`strtoul` read them: optional leading
/// whitespace and sign, then at least one decimal digit, and nothing after them.
/// Returns (negative, magnitude saturated at u64::MAX, overflowed).
fn c_digits(s: &str) -> Option<(bool, u64, bool)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut negative = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        negative = b[i] == b'-';
        i += 1;
    }
    let digits_start = i;
    let mut mag: u64 = 0;
    let mut overflow = false;
    while i < b.len() && b[i].is_ascii_digit() {
        match mag
            .checked_mul(10)
            .and_then(|m| m.checked_add((b[i] - b'0') as u64))
        {
            Some(m) => mag = m,
            None => overflow = true,
        }
        i += 1;
    }
    if i == digits_start || i != b.len() {
        return None;
    }
    Some((negative, mag, overflow))
}

/// `strtoul` then a cast to 32 bits: "-1" is 4294967295 and out-of-range values saturate
/// before the cast, as trace_processor's tgid parsing does.
pub fn c_str_to_u32(s: &str) -> Option<u32> {
    let (negative, mag, overflow) = c_digits(s)?;
    let v = if overflow {
        u64::MAX
    } else if negative {
        mag.wrapping_neg()
    } else {
        mag
    };
    Some(v as u32)
}

/// `strtoll`: saturates at the i64 range.
pub fn c_str_to_i64(s: &str) -> Option<i64> {
    let (negative, mag, overflow) = c_digits(s)?;
    Some(if negative {
        if overflow || mag > 1u64 << 63 {
            i64::MIN
        } else {
            (mag as i64).wrapping_neg()
        }
    } else if overflow || mag > i64::MAX as u64 {
        i64::MAX
    } else {
        mag as i64
    })
}

/// `strtol` then a cast to 32 bits (the sysprop and LMK fields are parsed this way).
pub fn c_str_to_i32(s: &str) -> Option<i32> {
    c_str_to_i64(s).map(|v| v as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(s: &str) -> Record<'_> {
        match parse(s) {
            Parsed::Record(r) => r,
            other => panic!("{s:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn begin_takes_the_whole_rest_as_name() {
        assert_eq!(
            rec("B|1636|pokeUserActivity"),
            Record::Begin {
                tgid: 1636,
                name: "pokeUserActivity"
            }
        );
        // Names keep '|' and commas: only the first two fields are split off.
        assert_eq!(
            rec("B|10|section1,2|a|b\n"),
            Record::Begin {
                tgid: 10,
                name: "section1,2|a|b"
            }
        );
        assert_eq!(
            rec("B|10|Choreographer#doFrame - resynced to 1 in 32.8ms\n\0"),
            Record::Begin {
                tgid: 10,
                name: "Choreographer#doFrame - resynced to 1 in 32.8ms"
            }
        );
    }

    #[test]
    fn begin_without_name_gets_placeholder() {
        for s in ["B|7", "B|7|", "B|7|\n"] {
            assert_eq!(
                rec(s),
                Record::Begin {
                    tgid: 7,
                    name: EMPTY_SLICE_NAME
                },
                "{s:?}"
            );
        }
    }

    #[test]
    fn begin_needs_a_numeric_tgid() {
        assert_eq!(parse("B||name"), Parsed::Malformed);
        assert_eq!(parse("B|12x|name"), Parsed::Malformed);
        assert_eq!(parse("Binder transaction"), Parsed::Malformed);
    }

    #[test]
    fn end_tolerates_missing_tgid() {
        assert_eq!(rec("E|1636"), Record::End { tgid: 1636 });
        assert_eq!(rec("E"), Record::End { tgid: 0 });
        assert_eq!(rec("E\n"), Record::End { tgid: 0 });
        assert_eq!(rec("E|junk"), Record::End { tgid: 0 });
        assert_eq!(rec("E|5|ignored"), Record::End { tgid: 5 });
    }

    #[test]
    fn async_begin_and_end() {
        assert_eq!(
            rec("S|1636|frame_capture|123"),
            Record::AsyncBegin {
                tgid: 1636,
                name: "frame_capture",
                cookie: 123
            }
        );
        assert_eq!(
            rec("F|1636|frame_capture|-456\n"),
            Record::AsyncEnd {
                tgid: 1636,
                name: "frame_capture",
                cookie: -456
            }
        );
        assert_eq!(
            rec("S|1|launching: com.android.chrome|0"),
            Record::AsyncBegin {
                tgid: 1,
                name: "launching: com.android.chrome",
                cookie: 0
            }
        );
    }

    #[test]
    fn async_needs_name_and_integer_cookie() {
        assert_eq!(parse("S|1|name"), Parsed::Malformed);
        assert_eq!(parse("S|1|name|"), Parsed::Malformed);
        assert_eq!(parse("S|1||5"), Parsed::Malformed);
        assert_eq!(parse("F|1|name|abc"), Parsed::Malformed);
        assert_eq!(parse("S||name|5"), Parsed::Malformed);
        // A '|' inside an async name shifts the cookie: not a valid record.
        assert_eq!(parse("S|1|a|b|5"), Parsed::Malformed);
    }

    #[test]
    fn instants() {
        assert_eq!(
            rec("I|4820|instant"),
            Record::Instant {
                tgid: 4820,
                name: "instant"
            }
        );
        assert_eq!(parse("I|4820|"), Parsed::Malformed);
        assert_eq!(
            rec("N|1938|track_name|instant_name"),
            Record::TrackInstant {
                tgid: 1938,
                track: "track_name",
                name: "instant_name"
            }
        );
        assert_eq!(parse("N|1938|track_name"), Parsed::Malformed);
        assert_eq!(parse("N|1938||name"), Parsed::Malformed);
    }

    #[test]
    fn track_async_begin_and_both_end_forms() {
        assert_eq!(
            rec("G|1339|track_name|slice_name|789"),
            Record::TrackBegin {
                tgid: 1339,
                track: "track_name",
                name: "slice_name",
                cookie: 789
            }
        );
        assert_eq!(
            rec("H|6890|track_name|slice_name|135"),
            Record::TrackEnd {
                tgid: 6890,
                track: "track_name",
                cookie: 135
            }
        );
        assert_eq!(
            rec("H|6890|track_name|135"),
            Record::TrackEnd {
                tgid: 6890,
                track: "track_name",
                cookie: 135
            }
        );
        assert_eq!(parse("G|1|track|name"), Parsed::Malformed);
        assert_eq!(parse("G|1|track||5"), Parsed::Malformed);
        assert_eq!(parse("H|1||5"), Parsed::Malformed);
        assert_eq!(parse("H|1|track|name|"), Parsed::Malformed);
    }

    #[test]
    fn counters() {
        assert_eq!(
            rec("C|1636|wq:monitor|0"),
            Record::Counter {
                tgid: 1636,
                name: "wq:monitor",
                value: 0
            }
        );
        // Chromium appends a category group, which is ignored.
        assert_eq!(
            rec("C|3209|TransfersBytesPendingOnDisk-value|-12|Blob"),
            Record::Counter {
                tgid: 3209,
                name: "TransfersBytesPendingOnDisk-value",
                value: -12
            }
        );
        assert_eq!(parse("C|1|name|1.5"), Parsed::Malformed);
        assert_eq!(parse("C|1|name|"), Parsed::Malformed);
        assert_eq!(parse("C|1||3"), Parsed::Malformed);
    }

    #[test]
    fn junk_is_malformed_but_clock_sync_is_only_unsupported() {
        assert_eq!(parse(""), Parsed::Malformed);
        assert_eq!(parse("\n"), Parsed::Malformed);
        assert_eq!(parse("|B|1|x"), Parsed::Malformed);
        assert_eq!(
            parse("event: abc xyz =0x34 clk id = 019\n"),
            Parsed::Malformed
        );
        assert_eq!(parse("another random print message\n"), Parsed::Malformed);
        assert_eq!(
            parse("trace_event_clock_sync: parent_ts=123.0\n"),
            Parsed::Unsupported
        );
    }

    #[test]
    fn phase_is_the_first_character_of_the_first_field() {
        assert_eq!(rec("Bogus|3|x"), Record::Begin { tgid: 3, name: "x" });
    }

    #[test]
    fn nul_separates_fields() {
        assert_eq!(
            rec("C|5\0name\x007"),
            Record::Counter {
                tgid: 5,
                name: "name",
                value: 7
            }
        );
    }

    #[test]
    fn c_integer_parsing() {
        assert_eq!(c_str_to_u32("42"), Some(42));
        assert_eq!(c_str_to_u32(" 42"), Some(42));
        assert_eq!(c_str_to_u32("+42"), Some(42));
        assert_eq!(c_str_to_u32("-1"), Some(u32::MAX));
        assert_eq!(c_str_to_u32("99999999999999999999999"), Some(u32::MAX));
        assert_eq!(c_str_to_u32("42 "), None);
        assert_eq!(c_str_to_u32(""), None);
        assert_eq!(c_str_to_u32("-"), None);
        assert_eq!(c_str_to_u32("0x10"), None);
        assert_eq!(c_str_to_i64("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(c_str_to_i64("-9223372036854775809"), Some(i64::MIN));
        assert_eq!(c_str_to_i64("9223372036854775808"), Some(i64::MAX));
        assert_eq!(c_str_to_i64("-17"), Some(-17));
        assert_eq!(c_str_to_i32("4294967297"), Some(1));
        assert_eq!(c_str_to_i32("-900"), Some(-900));
    }

    /// The one-pass reader of `B` and `E` records agrees with the field-by-field one on
    /// whatever it accepts, and accepts the common forms.
    #[test]
    fn plain_begins_and_ends_read_as_by_fields() {
        for (s, want) in [
            (
                "B|1636|pokeUserActivity",
                Record::Begin {
                    tgid: 1636,
                    name: "pokeUserActivity",
                },
            ),
            (
                "B|7|a|b,c",
                Record::Begin {
                    tgid: 7,
                    name: "a|b,c",
                },
            ),
            (
                "B|123456789|",
                Record::Begin {
                    tgid: 123_456_789,
                    name: EMPTY_SLICE_NAME,
                },
            ),
            ("E|1636", Record::End { tgid: 1636 }),
            ("E|693\n", Record::End { tgid: 693 }),
            (
                "B|821|HIDL::IHealth::getCapacity::client\n",
                Record::Begin {
                    tgid: 821,
                    name: "HIDL::IHealth::getCapacity::client",
                },
            ),
            ("B|5|x\0\n\0", Record::Begin { tgid: 5, name: "x" }),
        ] {
            assert_eq!(parse_plain_begin_or_end(s), Some(want), "{s:?}");
            assert_eq!(parse_by_fields(s), Parsed::Record(want), "{s:?}");
        }
        for s in [
            "E|1636|x",
            "B|1234567890|x",
            "B|+1|x",
            "B| 1|x",
            "E|",
            "B|1\0|x",
            "E|\n",
            "\n",
        ] {
            assert_eq!(parse_plain_begin_or_end(s), None, "{s:?}");
        }
        let alphabet = b"BEC|0123456789 -+\n\0x\xe9";
        let mut rng = crate::rng::Rng::new(3);
        let mut accepted = 0;
        for _ in 0..50_000 {
            let mut t = String::from(if rng.chance(0.5) { "B|" } else { "E|" });
            for _ in 0..rng.range(0, 14) {
                let c = alphabet[rng.range(0, alphabet.len() as i64 - 1) as usize];
                t.push(if c.is_ascii() { c as char } else { 'é' });
            }
            if let Some(rec) = parse_plain_begin_or_end(&t) {
                accepted += 1;
                assert_eq!(Parsed::Record(rec), parse_by_fields(&t), "{t:?}");
            }
        }
        assert!(
            accepted > 1000,
            "only {accepted} random records took the one-pass path"
        );
    }
}
