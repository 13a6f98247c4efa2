//! The device description beyond the build: the kernel's name and version string and the
//! SoC / hardware / manufacturer fields of SystemInfo (metadata keys as trace_processor names
//! them), and the GPUs of a GpuInfo packet (field 128). The trust grade reads them to tell
//! an emulator or a software renderer from a phone.

use crate::protos;
use crate::store::{MetaValue, Store};
use crate::trace::wire::{repeated, slots};

pub fn device_metadata(store: &mut Store, info: &protos::SystemInfo) {
    let mut set = |key: &str, v: &Option<String>| {
        if let Some(v) = v {
            store.set_metadata(key, MetaValue::Str(v.clone()));
        }
    };
    if let Some(u) = &info.utsname {
        set("system_name", &u.sysname);
        set("system_version", &u.version);
    }
    set(
        "android_device_manufacturer",
        &info.android_device_manufacturer,
    );
    set("android_soc_model", &info.android_soc_model);
    set("android_guest_soc_model", &info.android_guest_soc_model);
    set("android_hardware_revision", &info.android_hardware_revision);
}

/// GpuInfo.gpus: name (1), vendor (2), model (3), architecture (4), each non-empty string.
pub fn gpu_info(store: &mut Store, data: &[u8]) {
    for gpu in repeated(data, 1) {
        let f = slots::<5>(gpu.as_bytes());
        let parts: Vec<String> = f[1..]
            .iter()
            .flatten()
            .map(|v| v.as_string_lossy().trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if !parts.is_empty() {
            store.trace_info.gpus.push(parts.join(" / "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::Msg;

    #[test]
    fn gpu_strings_and_device_fields() {
        let mut s = Store::default();
        let gpus = Msg::default()
            .msg(1, Msg::default().str(1, "SwiftShader").str(2, "Google"))
            .msg(1, Msg::default());
        gpu_info(&mut s, &gpus.0);
        assert_eq!(s.trace_info.gpus, ["SwiftShader / Google"]);
        let info = protos::SystemInfo {
            android_soc_model: Some("ranchu".into()),
            utsname: Some(protos::Utsname {
                sysname: Some("Linux".into()),
                version: Some("#1 SMP PREEMPT".into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        device_metadata(&mut s, &info);
        let str_of = |k: &str| match s.metadata.get(k) {
            Some(MetaValue::Str(v)) => Some(v.clone()),
            _ => None,
        };
        assert_eq!(str_of("android_soc_model").as_deref(), Some("ranchu"));
        assert_eq!(str_of("system_name").as_deref(), Some("Linux"));
        assert_eq!(str_of("system_version").as_deref(), Some("#1 SMP PREEMPT"));
        assert_eq!(str_of("android_hardware_revision"), None);
    }
}
