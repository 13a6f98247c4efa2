//! Android releases and API levels: the public release -> API level table, trace_processor's
//! narrower mapping (which fills the `android_sdk_version` metadata from the build
//! fingerprint), and the fingerprint's parts.

/// The parts of a build fingerprint trace_processor uses. The CDD format is
/// `BRAND/PRODUCT/DEVICE:RELEASE/ID/INCREMENTAL:TYPE/TAGS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint<'a> {
    pub release: &'a str,
    pub incremental: &'a str,
}

/// Splits a fingerprint the way trace_processor does: `None` unless the release, the id and
/// the incremental are all delimited.
pub fn parse_fingerprint(fp: &str) -> Option<Fingerprint<'_>> {
    let colon = fp.find(':')?;
    let after_colon = &fp[colon + 1..];
    let release_end = after_colon.find('/')?;
    let release = &after_colon[..release_end];
    let after_release = &after_colon[release_end + 1..];
    let id_end = after_release.find('/')?;
    let after_id = &after_release[id_end + 1..];
    let incremental_end = after_id.find(':')?;
    Some(Fingerprint {
        release,
        incremental: &after_id[..incremental_end],
    })
}

/// API level of a public Android release string as devices report it (Build.VERSION.RELEASE:
/// "7.0", "7.1.2", "8.1.0", "13", "4.4W.2"). Android 12L reports "12" and is read as 31.
pub fn sdk_for_release(release: &str) -> Option<u32> {
    let mut parts = release.split('.');
    let major: u32 = parts.next()?.parse().ok()?;
    if major >= 9 {
        // From Android 9 on, the release is the major version alone.
        return match major {
            9 => Some(28),
            10 => Some(29),
            11 => Some(30),
            12 => Some(31),
            13 => Some(33),
            14 => Some(34),
            15 => Some(35),
            16 => Some(36),
            _ => None,
        };
    }
    let minor_text = parts.next().unwrap_or("0");
    // 4.4W (Wear) is its own API level.
    if major == 4 && minor_text.starts_with("4W") {
        return Some(20);
    }
    let minor: u32 = minor_text.parse().ok()?;
    let patch: u32 = match parts.next() {
        Some(p) => p.parse().ok()?,
        None => 0,
    };
    Some(match (major, minor) {
        (1, 0) => 1,
        (1, 1) => 2,
        (1, 5) => 3,
        (1, 6) => 4,
        (2, 0) if patch == 0 => 5,
        (2, 0) => 6,
        (2, 1) => 7,
        (2, 2) => 8,
        (2, 3) if patch <= 2 => 9,
        (2, 3) => 10,
        (3, 0) => 11,
        (3, 1) => 12,
        (3, 2) => 13,
        (4, 0) if patch <= 2 => 14,
        (4, 0) => 15,
        (4, 1) => 16,
        (4, 2) => 17,
        (4, 3) => 18,
        (4, 4) => 19,
        (5, 0) => 21,
        (5, 1) => 22,
        (6, 0) => 23,
        (7, 0) => 24,
        (7, 1) => 25,
        (8, 0) => 26,
        (8, 1) => 27,
        _ => return None,
    })
}

/// The API level trace_processor derives from a fingerprint's release: preview releases
/// starting with "S" or "T" are 31, and only these exact strings are known (so "8.1.0" or
/// "13" give nothing).
pub fn trace_processor_sdk_for_release(release: &str) -> Option<u32> {
    const KNOWN: &[&str] = &[
        "12", "11", "10", "9", "8.1", "8.0", "7.1", "7.0", "6.0", "5.1", "5.1.1", "5.0", "5.0.1",
        "5.0.2",
    ];
    if release.starts_with('S') || release.starts_with('T') {
        return Some(31);
    }
    if KNOWN.contains(&release) {
        return sdk_for_release(release);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_parts_follow_the_cdd_format() {
        let fp =
            parse_fingerprint("google/bullhead/bullhead:7.0/NRD91N/3318108:userdebug/dev-keys");
        assert_eq!(
            fp,
            Some(Fingerprint {
                release: "7.0",
                incremental: "3318108"
            })
        );
        let fp = parse_fingerprint("google/coral/coral:12/SP1A.210812.015/7679548:userdebug/k");
        assert_eq!(fp.map(|f| f.release), Some("12"));
        // Without the incremental's closing colon trace_processor gives up.
        assert_eq!(parse_fingerprint("google/x/x:7.0/NRD91N/3318108"), None);
        assert_eq!(parse_fingerprint("no colon at all"), None);
    }

    #[test]
    fn public_release_table() {
        assert_eq!(sdk_for_release("7.0"), Some(24));
        assert_eq!(sdk_for_release("7.1.2"), Some(25));
        assert_eq!(sdk_for_release("8.0.0"), Some(26));
        assert_eq!(sdk_for_release("8.1.0"), Some(27));
        assert_eq!(sdk_for_release("9"), Some(28));
        assert_eq!(sdk_for_release("12"), Some(31));
        assert_eq!(sdk_for_release("13"), Some(33));
        assert_eq!(sdk_for_release("15"), Some(35));
        assert_eq!(sdk_for_release("4.4W.2"), Some(20));
        assert_eq!(sdk_for_release("4.4.4"), Some(19));
        assert_eq!(sdk_for_release("4.0.4"), Some(15));
        assert_eq!(sdk_for_release("4.0.2"), Some(14));
        assert_eq!(sdk_for_release("2.3.3"), Some(10));
        assert_eq!(sdk_for_release("2.0.1"), Some(6));
        assert_eq!(sdk_for_release("5.1.1"), Some(22));
        assert_eq!(sdk_for_release("Tiramisu"), None);
        assert_eq!(sdk_for_release("99"), None);
        assert_eq!(sdk_for_release(""), None);
    }

    #[test]
    fn trace_processor_knows_fewer_releases() {
        assert_eq!(trace_processor_sdk_for_release("7.0"), Some(24));
        assert_eq!(trace_processor_sdk_for_release("5.0.2"), Some(21));
        assert_eq!(trace_processor_sdk_for_release("S"), Some(31));
        assert_eq!(trace_processor_sdk_for_release("Tiramisu"), Some(31));
        assert_eq!(trace_processor_sdk_for_release("8.1.0"), None);
        assert_eq!(trace_processor_sdk_for_release("7.1.2"), None);
        assert_eq!(trace_processor_sdk_for_release("13"), None);
    }
}
