//! Slice names made comparable between two traces: the numbers and hex ids that differ from
//! run to run (vsync ids, tids, addresses) become `N`, by Perfetto's own rule for it
//! (`__intrinsic_strip_hex` with the minimum length of two that its slice name
//! standardisation uses, [`crate::analysis::slice_name::strip_hex`]): a lone digit stays.

use crate::analysis::slice_name::strip_hex_as;

/// `DrawFrames 1253256` -> `DrawFrames N`, `Lock contention (owner tid: 4711)` ->
/// `Lock contention (owner tid: N)`, `0x7f3a9c` -> `0xN`.
pub fn normalise_slice_name(name: &str) -> String {
    strip_hex_as(name, 2, "N")
}

#[cfg(test)]
mod tests {
    use super::normalise_slice_name as n;

    #[test]
    fn numbers_and_hex_ids_become_n() {
        // The examples of the issue, and Perfetto's word rule: a run of hex digits counts
        // when it starts a word and holds a decimal digit (or follows 0x).
        assert_eq!(n("DrawFrames 1253256"), "DrawFrames N");
        assert_eq!(n("Choreographer#doFrame 98765"), "Choreographer#doFrame N");
        assert_eq!(n("binder transaction"), "binder transaction");
        assert_eq!(n("inflate"), "inflate");
        assert_eq!(
            n("Lock contention (owner tid: 4711)"),
            "Lock contention (owner tid: N)"
        );
        assert_eq!(n("buffer 0x7f3a9c"), "buffer 0xN");
        assert_eq!(n("id=3fa2b1"), "id=N");
        // A lone digit is no id (Perfetto's minimum length is two).
        assert_eq!(n("Thread 7"), "Thread 7");
        // Words of letters that happen to be hex digits stay.
        assert_eq!(n("cafe bed"), "cafe bed");
        assert_eq!(n("decode"), "decode");
    }
}
