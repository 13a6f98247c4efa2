//! Framing of the `Trace` stream: `repeated TracePacket packet = 1`, read packet by packet
//! with bounded memory. Whole-file gzip is recognised by its magic; `-` is standard input.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use thiserror::Error;

/// Largest single packet accepted. Perfetto's writers chunk packets far below this; a larger
/// length prefix is corruption, and refusing it keeps a bad prefix from asking for gigabytes.
pub const MAX_PACKET_BYTES: u64 = 256 << 20;

/// Cap on what one `compressed_packets` / `zstd_compressed_packets` blob may expand to.
pub const MAX_DECOMPRESSED_BYTES: u64 = 128 << 20;

#[derive(Debug, Error)]
pub enum ReadError {
    /// The file could not be opened; `reason` is one short phrase ("no such file").
    #[error("{reason}")]
    Open { path: String, reason: String },
    #[error("I/O error at byte offset {offset}: {}", io_reason(source))]
    Io { offset: u64, source: io::Error },
    #[error("the input is empty (0 bytes): no trace packets to read")]
    Empty,
    #[error("no trace packets in the input ({bytes} bytes read)")]
    NoPackets { bytes: u64 },
    #[error("not a Perfetto trace: {0}")]
    NotATrace(String),
    #[error("trace truncated at byte offset {offset}: packet {index} declares {declared} bytes but the input ends after {available}")]
    Truncated {
        offset: u64,
        index: u64,
        declared: u64,
        available: u64,
    },
    #[error("corrupt trace at byte offset {offset} (packet {index}): {what}")]
    Corrupt {
        offset: u64,
        index: u64,
        what: String,
    },
    #[error("decompression budget of {limit} bytes used up at byte offset {offset} of the decompressed input (raise it with --max-decompressed-bytes)")]
    BudgetExhausted { offset: u64, limit: u64 },
}

impl ReadError {
    /// Offset of the damage, for errors that happen after a good prefix.
    pub fn offset(&self) -> Option<u64> {
        match self {
            ReadError::Io { offset, .. }
            | ReadError::Truncated { offset, .. }
            | ReadError::Corrupt { offset, .. }
            | ReadError::BudgetExhausted { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// An I/O error as a short phrase, without the "(os error N)" Rust appends.
pub fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        io::ErrorKind::IsADirectory => "it is a directory".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error ") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}

/// Where packets come from: a file (with its size, for progress) or standard input.
pub struct TraceSource {
    pub name: String,
    pub size: Option<u64>,
    /// The whole input is gzip or zstd: every byte read is a decompressed byte.
    pub compressed: bool,
    reader: Box<dyn BufRead + Send>,
}

impl TraceSource {
    pub fn open(path: &Path) -> Result<Self, ReadError> {
        let name = path.display().to_string();
        let open_error = |reason: String| ReadError::Open {
            path: name.clone(),
            reason,
        };
        let (raw, size): (Box<dyn Read + Send>, Option<u64>) = if name == "-" {
            (Box::new(io::stdin()), None)
        } else {
            let f = File::open(path).map_err(|e| open_error(io_reason(&e)))?;
            let meta = f.metadata().ok();
            // Opening a directory succeeds on Linux; reading it does not.
            if meta.as_ref().is_some_and(|m| m.is_dir()) {
                return Err(open_error("it is a directory".into()));
            }
            let size = meta.filter(|m| m.is_file()).map(|m| m.len());
            (Box::new(f), size)
        };
        Self::from_reader(name, size, raw)
    }

    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Self, ReadError> {
        let size = Some(bytes.len() as u64);
        Self::from_reader(name.to_string(), size, Box::new(io::Cursor::new(bytes)))
    }

    fn from_reader(
        name: String,
        size: Option<u64>,
        raw: Box<dyn Read + Send>,
    ) -> Result<Self, ReadError> {
        let mut buffered = BufReader::with_capacity(1 << 20, raw);
        let head = buffered
            .fill_buf()
            .map_err(|source| ReadError::Io { offset: 0, source })?;
        let (reader, compressed): (Box<dyn BufRead + Send>, bool) =
            if head.starts_with(&[0x1f, 0x8b]) {
                let dec = flate2::bufread::MultiGzDecoder::new(buffered);
                (Box::new(BufReader::with_capacity(1 << 20, dec)), true)
            } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
                let dec = zstd::stream::read::Decoder::with_buffer(buffered)
                    .map_err(|source| ReadError::Io { offset: 0, source })?;
                (Box::new(BufReader::with_capacity(1 << 20, dec)), true)
            } else {
                (Box::new(buffered), false)
            };
        Ok(TraceSource {
            name,
            size,
            compressed,
            reader,
        })
    }
}

/// Yields the bytes of each top-level packet in file order.
pub struct PacketReader {
    src: TraceSource,
    offset: u64,
    index: u64,
    buf: Vec<u8>,
    /// Bytes of the source's buffer lent out as the last packet, consumed at the next call.
    lent: usize,
    /// For compressed input: the decompressed offset the budget allows reading up to.
    stop_at: Option<u64>,
}

/// One packet as read: its bytes, where it started and its position in the file.
pub struct RawPacket<'a> {
    pub bytes: &'a [u8],
    pub offset: u64,
    pub index: u64,
    /// Offset just past the packet.
    pub end: u64,
}

impl PacketReader {
    pub fn new(src: TraceSource) -> Self {
        PacketReader {
            src,
            offset: 0,
            index: 0,
            buf: Vec::new(),
            lent: 0,
            stop_at: None,
        }
    }

    pub fn source_name(&self) -> &str {
        &self.src.name
    }

    pub fn source_size(&self) -> Option<u64> {
        self.src.size
    }

    /// Whether the whole input is decompressed as it is read (gzip / zstd file).
    pub fn decompressing(&self) -> bool {
        self.src.compressed
    }

    /// Bytes consumed so far (of the decompressed stream for gzip input).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// For compressed input: read no further than this decompressed offset; going past it
    /// ends the input with [`ReadError::BudgetExhausted`]. Ignored for plain input.
    pub fn set_stop_at(&mut self, offset: u64) {
        if self.src.compressed {
            self.stop_at = Some(offset);
        }
    }

    /// Refuses to read the next `n` bytes when they would go past the budget.
    fn check_budget(&self, n: u64) -> Result<(), ReadError> {
        match self.stop_at {
            Some(stop) if self.offset.saturating_add(n) > stop => Err(ReadError::BudgetExhausted {
                offset: self.offset,
                limit: stop,
            }),
            _ => Ok(()),
        }
    }

    /// Reads a varint from the stream; `Ok(None)` at a clean end of input.
    fn read_varint(&mut self) -> Result<Option<u64>, ReadError> {
        let mut value = 0u64;
        let mut shift = 0u32;
        let start = self.offset;
        loop {
            let mut byte = [0u8; 1];
            match self.src.reader.read(&mut byte) {
                Ok(0) => {
                    if shift == 0 {
                        return Ok(None);
                    }
                    return Err(ReadError::Truncated {
                        offset: start,
                        index: self.index,
                        declared: 0,
                        available: self.offset - start,
                    });
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(ReadError::Io {
                        offset: self.offset,
                        source,
                    })
                }
            }
            self.offset += 1;
            value |= ((byte[0] & 0x7f) as u64) << shift;
            if byte[0] & 0x80 == 0 {
                return Ok(Some(value));
            }
            shift += 7;
            if shift >= 64 {
                return Err(ReadError::Corrupt {
                    offset: start,
                    index: self.index,
                    what: "varint longer than 10 bytes".into(),
                });
            }
        }
    }

    fn skip(&mut self, n: u64, field_start: u64) -> Result<(), ReadError> {
        self.check_budget(n)?;
        let copied =
            io::copy(&mut (&mut self.src.reader).take(n), &mut io::sink()).map_err(|source| {
                ReadError::Io {
                    offset: self.offset,
                    source,
                }
            })?;
        self.offset += copied;
        if copied < n {
            return Err(ReadError::Truncated {
                offset: field_start,
                index: self.index,
                declared: n,
                available: copied,
            });
        }
        Ok(())
    }

    /// Zero bytes between packets (padding) read as (field 0, varint 0) pairs, which
    /// trace_processor skips one pair at a time like any unknown varint field. They are
    /// skipped here a buffer at a time; an odd zero left before other data is read the slow
    /// way, so the pairing stays exactly trace_processor's.
    fn skip_zero_pairs(&mut self) -> Result<(), ReadError> {
        loop {
            let buf = self.src.reader.fill_buf().map_err(|source| ReadError::Io {
                offset: self.offset,
                source,
            })?;
            let zeros = buf.iter().take_while(|&&b| b == 0).count();
            let pairs = zeros & !1;
            if pairs == 0 {
                return Ok(());
            }
            let whole_buffer = zeros == buf.len();
            self.check_budget(pairs as u64)?;
            self.src.reader.consume(pairs);
            self.offset += pairs as u64;
            if !whole_buffer {
                return Ok(());
            }
        }
    }

    /// The first bytes decide whether this is a trace at all: an empty input, or one whose
    /// first byte is not the tag of `Trace.packet`, is refused with a description of what
    /// it looks like.
    fn check_start(&mut self) -> Result<(), ReadError> {
        let head = self
            .src
            .reader
            .fill_buf()
            .map_err(|source| ReadError::Io { offset: 0, source })?;
        match head.first() {
            None => Err(ReadError::Empty),
            Some(0x0a) => Ok(()),
            Some(_) => Err(ReadError::NotATrace(super::sniff::describe(head))),
        }
    }

    /// The next packet, `Ok(None)` at the end of the input.
    pub fn next_packet(&mut self) -> Result<Option<RawPacket<'_>>, ReadError> {
        self.src.reader.consume(std::mem::take(&mut self.lent));
        if self.offset == 0 {
            self.check_start()?;
        }
        loop {
            if self.offset > 0 {
                self.skip_zero_pairs()?;
            }
            // Past the budget: stop before the next field (equal is a clean end).
            self.check_budget(0)?;
            let field_start = self.offset;
            let Some(tag) = self.read_varint()? else {
                return Ok(None);
            };
            let field = tag >> 3;
            let wire_type = tag & 7;
            if field_start == 0 && (field != 1 || wire_type != 2) {
                return Err(ReadError::NotATrace(format!(
                    "the first field is {field} with wire type {wire_type}, expected a TracePacket (field 1, length-delimited)"
                )));
            }
            match wire_type {
                0 => {
                    if self.read_varint()?.is_none() {
                        return Ok(None);
                    }
                }
                1 => self.skip(8, field_start)?,
                5 => self.skip(4, field_start)?,
                2 => {
                    let Some(len) = self.read_varint()? else {
                        return Err(ReadError::Truncated {
                            offset: field_start,
                            index: self.index,
                            declared: 0,
                            available: 0,
                        });
                    };
                    if field != 1 {
                        self.skip(len, field_start)?;
                        continue;
                    }
                    if len > MAX_PACKET_BYTES {
                        return Err(ReadError::Corrupt {
                            offset: field_start,
                            index: self.index,
                            what: format!(
                                "packet length {len} exceeds the {MAX_PACKET_BYTES}-byte limit"
                            ),
                        });
                    }
                    self.check_budget(len)?;
                    let index = self.index;
                    // A packet whole in the source's buffer is lent from it, not copied.
                    let at = self.offset;
                    let io = |source| ReadError::Io { offset: at, source };
                    if self.src.reader.fill_buf().map_err(io)?.len() as u64 >= len {
                        self.lent = len as usize;
                        self.offset += len;
                        self.index += 1;
                        // The buffer is not empty (or the packet is), so this reads nothing.
                        let buffered = self.src.reader.fill_buf().map_err(io)?;
                        return Ok(Some(RawPacket {
                            bytes: &buffered[..self.lent],
                            offset: field_start,
                            index,
                            end: self.offset,
                        }));
                    }
                    self.buf.clear();
                    // read_to_end grows the buffer as data arrives, so a lying length
                    // prefix costs at most what the input really holds.
                    let got = (&mut self.src.reader)
                        .take(len)
                        .read_to_end(&mut self.buf)
                        .map_err(|source| ReadError::Io {
                            offset: self.offset,
                            source,
                        })? as u64;
                    self.offset += got;
                    if got < len {
                        return Err(ReadError::Truncated {
                            offset: field_start,
                            index: self.index,
                            declared: len,
                            available: got,
                        });
                    }
                    self.index += 1;
                    return Ok(Some(RawPacket {
                        bytes: &self.buf,
                        offset: field_start,
                        index,
                        end: self.offset,
                    }));
                }
                _ => {
                    return Err(ReadError::Corrupt {
                        offset: field_start,
                        index: self.index,
                        what: format!("invalid wire type {wire_type} for field {field}"),
                    })
                }
            }
        }
    }
}

#[derive(Debug, Error)]
pub enum DecompressError {
    #[error("expands beyond the {limit}-byte limit (decompression bomb?)")]
    TooLarge { limit: u64 },
    #[error("corrupt compressed data: {0}")]
    Corrupt(io::Error),
}

/// Expands a `compressed_packets` (zlib/deflate) or `zstd_compressed_packets` blob, refusing
/// output beyond `limit` bytes.
pub fn decompress(data: &[u8], zstd: bool, limit: u64) -> Result<Vec<u8>, DecompressError> {
    let mut out = Vec::new();
    let res = if zstd {
        zstd::stream::read::Decoder::new(data).and_then(|d| d.take(limit + 1).read_to_end(&mut out))
    } else {
        flate2::read::ZlibDecoder::new(data)
            .take(limit + 1)
            .read_to_end(&mut out)
    };
    res.map_err(DecompressError::Corrupt)?;
    if out.len() as u64 > limit {
        return Err(DecompressError::TooLarge { limit });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(packets: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in packets {
            out.push(0x0a);
            let mut n = p.len() as u64;
            loop {
                let b = (n & 0x7f) as u8;
                n >>= 7;
                if n == 0 {
                    out.push(b);
                    break;
                }
                out.push(b | 0x80);
            }
            out.extend_from_slice(p);
        }
        out
    }

    fn read_all(bytes: Vec<u8>) -> (Vec<Vec<u8>>, Option<ReadError>) {
        let mut r = PacketReader::new(TraceSource::from_bytes("t", bytes).unwrap());
        let mut got = Vec::new();
        loop {
            match r.next_packet() {
                Ok(Some(p)) => got.push(p.bytes.to_vec()),
                Ok(None) => return (got, None),
                Err(e) => return (got, Some(e)),
            }
        }
    }

    #[test]
    fn reads_packets_in_order() {
        let (got, err) = read_all(frame(&[b"ab", b"", b"cde"]));
        assert!(err.is_none());
        assert_eq!(got, vec![b"ab".to_vec(), vec![], b"cde".to_vec()]);
    }

    /// Packets up to 300 KB across many 1 MB buffer refills, some lent from the reader's
    /// buffer and some copied where they cross its end: each comes back whole, at its own
    /// offset. Cut inside a late packet, the ones before it are kept and the cut is named.
    #[test]
    fn packets_read_whole_across_buffer_refills() {
        let mut rng = crate::rng::Rng::new(19);
        let packets: Vec<Vec<u8>> = (0..60)
            .map(|i| {
                let len = match i % 3 {
                    0 => rng.range(0, 40),
                    _ => rng.range(1_000, 300_000),
                } as usize;
                (0..len).map(|j| (i * 7 + j * 13) as u8).collect()
            })
            .collect();
        let refs: Vec<&[u8]> = packets.iter().map(|p| p.as_slice()).collect();
        let bytes = frame(&refs);
        let mut r = PacketReader::new(TraceSource::from_bytes("t", bytes.clone()).unwrap());
        let mut at = 0u64;
        let mut spans = Vec::new();
        for (i, want) in packets.iter().enumerate() {
            let p = r.next_packet().unwrap().expect("a packet");
            assert_eq!((p.index, p.offset), (i as u64, at), "packet {i}");
            assert!(p.bytes == want.as_slice(), "packet {i}: other bytes");
            spans.push((p.offset, p.end));
            at = p.end;
        }
        assert!(r.next_packet().unwrap().is_none());
        assert_eq!(r.offset(), bytes.len() as u64);

        let last = packets.len() - 2;
        let (start, end) = spans[last];
        let cut = (start + (end - start) / 2) as usize;
        let (got, err) = read_all(bytes[..cut].to_vec());
        assert_eq!(got.len(), last);
        assert!(got.iter().zip(&packets).all(|(a, b)| a == b));
        assert!(matches!(err, Some(ReadError::Truncated { index, .. }) if index == last as u64));
    }

    #[test]
    fn truncation_keeps_the_complete_packets_and_names_the_offset() {
        let mut bytes = frame(&[b"abc", b"defgh"]);
        bytes.truncate(bytes.len() - 2);
        let (got, err) = read_all(bytes);
        assert_eq!(got, vec![b"abc".to_vec()]);
        match err {
            Some(ReadError::Truncated {
                offset,
                index,
                declared,
                available,
            }) => {
                assert_eq!((offset, index, declared, available), (5, 1, 5, 3));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn huge_length_prefix_is_refused_without_allocating() {
        // field 1, length 2^40
        let bytes = vec![0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 1, 2, 3];
        let (got, err) = read_all(bytes);
        assert!(got.is_empty());
        assert!(matches!(err, Some(ReadError::Corrupt { offset: 0, .. })));
    }

    #[test]
    fn garbage_is_not_a_trace() {
        let (_, err) = read_all(vec![0xff, 0x13, 0x00, 0x42]);
        assert!(matches!(err, Some(ReadError::NotATrace(_))));
    }

    #[test]
    fn empty_input_is_its_own_error() {
        let (_, err) = read_all(Vec::new());
        assert!(matches!(err, Some(ReadError::Empty)));
    }

    #[test]
    fn text_formats_are_named() {
        let (_, err) = read_all(b"{\"traceEvents\":[]}".to_vec());
        match err {
            Some(ReadError::NotATrace(m)) => assert!(m.contains("JSON trace"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn zero_padding_is_skipped_in_pairs() {
        // An even run of zeros is (field 0, varint 0) pairs: the packet after it is read.
        let mut bytes = frame(&[b"ab"]);
        bytes.extend(vec![0u8; 3 << 20]);
        bytes.extend(frame(&[b"cd"]));
        let (got, err) = read_all(bytes);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got, vec![b"ab".to_vec(), b"cd".to_vec()]);
        // An odd run leaves a field-0 tag whose varint value is the next packet's tag byte
        // (0x0a): trace_processor's pairing swallows it, and the rest is skipped as fields.
        let mut odd = frame(&[b"ab"]);
        odd.extend(vec![0u8; 5]);
        odd.extend(frame(&[b"cd"]));
        let (got, _) = read_all(odd);
        assert_eq!(got, vec![b"ab".to_vec()]);
        // Padding to the end of the input is a clean end.
        let mut tail = frame(&[b"ab"]);
        tail.extend(vec![0u8; (1 << 20) + 2]);
        let (got, err) = read_all(tail);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn a_compressed_input_stops_at_its_budget() {
        let mut plain = frame(&[b"first"]);
        plain.extend(vec![0u8; 64 << 20]);
        plain.extend(frame(&[b"after the padding"]));
        let z = zstd::encode_all(&plain[..], 1).unwrap();
        let mut r = PacketReader::new(TraceSource::from_bytes("t", z).unwrap());
        assert!(r.decompressing());
        r.set_stop_at(1 << 20);
        assert_eq!(r.next_packet().unwrap().unwrap().bytes, b"first");
        match r.next_packet() {
            Err(ReadError::BudgetExhausted { limit, .. }) => assert_eq!(limit, 1 << 20),
            other => panic!("unexpected {:?}", other.map(|p| p.map(|p| p.offset))),
        }
        // Plain input ignores the limit: nothing is decompressed.
        let mut r = PacketReader::new(TraceSource::from_bytes("t", plain).unwrap());
        r.set_stop_at(1);
        assert!(r.next_packet().unwrap().is_some());
        assert_eq!(
            r.next_packet().unwrap().unwrap().bytes,
            b"after the padding"
        );
    }

    #[test]
    fn open_errors_are_one_phrase() {
        let e = TraceSource::open(Path::new("/nonexistent/x.pftrace"))
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "no such file or directory");
        let e = TraceSource::open(&std::env::temp_dir()).err().unwrap();
        assert_eq!(e.to_string(), "it is a directory");
    }

    #[test]
    fn gzip_input_is_recognised() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&frame(&[b"xyz"])).unwrap();
        let (got, err) = read_all(enc.finish().unwrap());
        assert!(err.is_none());
        assert_eq!(got, vec![b"xyz".to_vec()]);
    }

    #[test]
    fn decompression_bomb_is_refused() {
        use std::io::Write;
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&vec![0u8; 4 << 20]).unwrap();
        let blob = enc.finish().unwrap();
        assert!(matches!(
            decompress(&blob, false, 1 << 20),
            Err(DecompressError::TooLarge { .. })
        ));
        assert_eq!(decompress(&blob, false, 8 << 20).unwrap().len(), 4 << 20);
    }
}
