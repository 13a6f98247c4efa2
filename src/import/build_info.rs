//! The device build: `android_build_fingerprint`, `android_incremental_build` and
//! `android_sdk_version` metadata as trace_processor fills them from SystemInfo (the SDK
//! version from SystemInfo, else from the fingerprint's release).
//!
//! One addition: an `ro.build.version.sdk` AndroidSystemProperty, which trace_processor
//! ignores, is used before the fingerprint. traced only records `debug.tracing.*`
//! properties, so real traces never carry it and the metadata stays trace_processor's.

use crate::store::android_version::{parse_fingerprint, trace_processor_sdk_for_release};
use crate::store::{MetaValue, Store};

pub const SDK_PROPERTY: &str = "ro.build.version.sdk";

#[derive(Default)]
pub struct BuildInfo {
    system_info_sdk: bool,
    property_sdk: Option<i64>,
    fingerprint_sdk: Option<i64>,
}

impl BuildInfo {
    /// The build fields of one SystemInfo packet.
    pub fn system_info(&mut self, store: &mut Store, sdk: Option<u64>, fingerprint: Option<&str>) {
        if let Some(fp) = fingerprint {
            store.set_metadata("android_build_fingerprint", MetaValue::Str(fp.to_string()));
            if let Some(parts) = parse_fingerprint(fp) {
                store.set_metadata(
                    "android_incremental_build",
                    MetaValue::Str(parts.incremental.to_string()),
                );
                self.fingerprint_sdk =
                    trace_processor_sdk_for_release(parts.release).map(i64::from);
            }
        }
        if let Some(v) = sdk {
            self.system_info_sdk = true;
            store.set_metadata("android_sdk_version", MetaValue::Int(v as i64));
        }
    }

    /// An `ro.build.version.sdk` property value; anything but a positive integer is ignored.
    pub fn sdk_property(&mut self, value: &str) {
        if let Ok(v) = value.trim().parse::<i64>() {
            if v > 0 {
                self.property_sdk = Some(v);
            }
        }
    }

    /// At the end of the trace: without a SystemInfo SDK version, the property's, else the
    /// fingerprint's.
    pub fn finish(&mut self, store: &mut Store) {
        if self.system_info_sdk {
            return;
        }
        if let Some(v) = self.property_sdk.or(self.fingerprint_sdk) {
            store.set_metadata("android_sdk_version", MetaValue::Int(v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEXUS_5X: &str = "google/bullhead/bullhead:7.0/NRD91N/3318108:userdebug/dev-keys";

    fn resolve(f: impl FnOnce(&mut BuildInfo, &mut Store)) -> Store {
        let mut store = Store::default();
        let mut b = BuildInfo::default();
        f(&mut b, &mut store);
        b.finish(&mut store);
        store
    }

    #[test]
    fn system_info_sdk_wins() {
        let s = resolve(|b, s| {
            b.sdk_property("30");
            b.system_info(s, Some(33), Some(NEXUS_5X));
        });
        assert_eq!(s.metadata_int("android_sdk_version"), Some(33));
    }

    #[test]
    fn fingerprint_release_gives_the_sdk_and_incremental() {
        let s = resolve(|b, s| b.system_info(s, None, Some(NEXUS_5X)));
        assert_eq!(s.metadata_int("android_sdk_version"), Some(24));
        assert!(matches!(
            s.metadata.get("android_incremental_build"),
            Some(MetaValue::Str(v)) if v == "3318108"
        ));
    }

    #[test]
    fn property_comes_before_the_fingerprint() {
        let s = resolve(|b, s| {
            b.system_info(s, None, Some(NEXUS_5X));
            b.sdk_property("25");
        });
        assert_eq!(s.metadata_int("android_sdk_version"), Some(25));
    }

    #[test]
    fn releases_trace_processor_does_not_know_leave_it_unset() {
        let s = resolve(|b, s| {
            b.system_info(
                s,
                None,
                Some("google/c/c:13/TQ3A/10216780:user/release-keys"),
            );
            b.sdk_property("not a number");
        });
        assert_eq!(s.metadata_int("android_sdk_version"), None);
    }
}
