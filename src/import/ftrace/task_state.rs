//! sched_switch `prev_state` to trace_processor's `end_state` strings ("R", "R+", "S", "D",
//! "DK", "I", ...). The raw bitmask's upper bits moved between kernel versions, so decoding
//! needs the kernel version from SystemInfo (4.4 when the trace does not say).

/// A kernel `major.minor` version; ordering is lexicographic.
pub type KernelVersion = (u32, u32);

/// What traces without a kernel version are assumed to run (as trace_processor does).
const DEFAULT_KERNEL: KernelVersion = (4, 4);

// Kernel-independent flags: the low six bits keep their scheduler values.
const INTERRUPTIBLE: u16 = 0x0001;
const UNINTERRUPTIBLE: u16 = 0x0002;
const STOPPED: u16 = 0x0004;
const TRACED: u16 = 0x0008;
const EXIT_DEAD: u16 = 0x0010;
const EXIT_ZOMBIE: u16 = 0x0020;
// Flags whose raw bit depends on the kernel version.
const PARKED: u16 = 0x0040;
const TASK_DEAD: u16 = 0x0080;
const WAKE_KILL: u16 = 0x0100;
const WAKING: u16 = 0x0200;
const NO_LOAD: u16 = 0x0400;
// Synthetic states that are not scheduler flags.
const IDLE: u16 = 0x4000;
const PREEMPTED: u16 = 0x8000;

/// Letters in output order, as in the kernel's sched_switch format string.
const LETTERS: [(u16, u8); 12] = [
    (INTERRUPTIBLE, b'S'),
    (UNINTERRUPTIBLE, b'D'),
    (STOPPED, b'T'),
    (TRACED, b't'),
    (EXIT_DEAD, b'X'),
    (EXIT_ZOMBIE, b'Z'),
    (PARKED, b'P'),
    (TASK_DEAD, b'x'),
    (WAKE_KILL, b'K'),
    (WAKING, b'W'),
    (NO_LOAD, b'N'),
    (IDLE, b'I'),
];

/// Parses `utsname.release` the way trace_processor does: only for sysname "Linux", the
/// numbers before the first and second dots.
pub fn parse_kernel_version(sysname: &str, release: &str) -> Option<KernelVersion> {
    if sysname != "Linux" || release.is_empty() {
        return None;
    }
    let (major, rest) = match release.find('.') {
        Some(i) => (&release[..i], &release[i + 1..]),
        None => (release, release),
    };
    let minor = rest.split('.').next().unwrap_or(rest);
    Some((parse_u32(major)?, parse_u32(minor)?))
}

fn parse_u32(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Decodes the raw `prev_state` into version-independent flags; `None` when the value is
/// not a valid state for this kernel.
fn parse_flags(raw: u16, version: Option<KernelVersion>) -> Option<u16> {
    let version = version.unwrap_or(DEFAULT_KERNEL);
    let mut flags = raw & 0x3f;
    if version >= (4, 14) {
        // 4.14+ reports TASK_REPORT bits; 0x80 is REPORT_TASK_IDLE, 0x100 preemption.
        if raw & 0x40 != 0 {
            flags |= PARKED;
        }
        if raw & 0x80 != 0 {
            flags |= IDLE;
        }
        if raw & 0x100 != 0 {
            flags |= PREEMPTED;
        }
        if raw & 0xfe00 != 0 {
            return None;
        }
        return Some(flags);
    }
    // Older kernels report the full scheduler bitmask, in the pre-4.14 bit layout.
    for (bit, flag) in [
        (0x40, TASK_DEAD),
        (0x80, WAKE_KILL),
        (0x100, WAKING),
        (0x200, PARKED),
        (0x400, NO_LOAD),
    ] {
        if raw & bit != 0 {
            flags |= flag;
        }
    }
    if flags == UNINTERRUPTIBLE | NO_LOAD {
        flags = IDLE;
    }
    // TASK_STATE_MAX (preemption) is 0x1000 from 4.8 (TASK_NEW exists), 0x800 before.
    let preempt_bit = if version >= (4, 8) { 0x1000 } else { 0x800 };
    if raw & preempt_bit != 0 {
        flags |= PREEMPTED;
    }
    Some(flags)
}

/// The `end_state` string for a raw `prev_state`, or `None` when it is invalid.
/// Writes into `buf` (no allocation) and returns the used prefix.
pub fn end_state_str(raw: u16, version: Option<KernelVersion>, buf: &mut [u8; 16]) -> Option<&str> {
    let flags = parse_flags(raw, version)?;
    let mut n = 0;
    if flags & !PREEMPTED == 0 {
        buf[0] = b'R';
        n = 1;
        if flags & PREEMPTED != 0 {
            buf[1] = b'+';
            n = 2;
        }
    } else {
        for (flag, c) in LETTERS {
            if flags & flag != 0 {
                buf[n] = c;
                n += 1;
            }
        }
    }
    // trace_processor keeps at most three letters (a 4-byte, NUL-terminated buffer).
    let n = n.min(3);
    std::str::from_utf8(&buf[..n]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(raw: u16, v: Option<KernelVersion>) -> Option<String> {
        let mut buf = [0u8; 16];
        end_state_str(raw, v, &mut buf).map(str::to_string)
    }

    #[test]
    fn runnable_and_sleep_states() {
        let v = Some((5, 10));
        assert_eq!(s(0, v).as_deref(), Some("R"));
        assert_eq!(s(1, v).as_deref(), Some("S"));
        assert_eq!(s(2, v).as_deref(), Some("D"));
        assert_eq!(s(0x20, v).as_deref(), Some("Z"));
        assert_eq!(s(0x10, v).as_deref(), Some("X"));
    }

    #[test]
    fn preemption_bit_depends_on_kernel() {
        assert_eq!(s(0x100, Some((5, 4))).as_deref(), Some("R+"));
        assert_eq!(s(0x1000, Some((4, 9))).as_deref(), Some("R+"));
        // Default (4.4): preemption is 0x800, and 0x100 means TASK_WAKING.
        assert_eq!(s(0x800, None).as_deref(), Some("R+"));
        assert_eq!(s(0x100, None).as_deref(), Some("W"));
    }

    #[test]
    fn idle_and_parked_by_kernel() {
        // 4.14+: 0x80 is REPORT_TASK_IDLE, 0x40 parked.
        assert_eq!(s(0x80, Some((4, 14))).as_deref(), Some("I"));
        assert_eq!(s(0x40, Some((6, 1))).as_deref(), Some("P"));
        // Before 4.14: D|NOLOAD is idle, 0x40 is TASK_DEAD, 0x80 WAKEKILL.
        assert_eq!(s(0x402, None).as_deref(), Some("I"));
        assert_eq!(s(0x40, None).as_deref(), Some("x"));
        assert_eq!(s(0x82, None).as_deref(), Some("DK"));
    }

    #[test]
    fn invalid_high_bits_on_new_kernels() {
        assert_eq!(s(0x200, Some((5, 15))), None);
        assert_eq!(s(0x8000, Some((4, 19))), None);
    }

    #[test]
    fn at_most_three_letters() {
        // S|D|T|t would be "SDTt"; trace_processor's buffer keeps three.
        assert_eq!(s(0x0f, Some((5, 10))).as_deref(), Some("SDT"));
    }

    #[test]
    fn kernel_version_parsing() {
        assert_eq!(
            parse_kernel_version("Linux", "5.10.107-android13-4"),
            Some((5, 10))
        );
        assert_eq!(parse_kernel_version("Linux", "6.1"), Some((6, 1)));
        assert_eq!(parse_kernel_version("Darwin", "5.10"), None);
        assert_eq!(parse_kernel_version("Linux", ""), None);
        assert_eq!(parse_kernel_version("Linux", "x.1"), None);
    }
}
