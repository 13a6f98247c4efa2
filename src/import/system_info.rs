//! The device description beyond the build: the kernel's name and version string and the
//! SoC / hardware / manufacturer fields of SystemInfo (metadata keys as trace_processor names
//! them), the GPUs of a GpuInfo packet (field 128) and the CPUs of a CpuInfo packet (field
//! 67). The trust grade reads the first two to tell an emulator or a software renderer from
//! a phone; frame causes read the CPUs' capacities and frequencies to name their clusters.

use crate::protos;
use crate::store::trace_info::CpuDescription;
use crate::store::{MetaValue, Store};
use crate::trace::wire::{repeated, slots, Fields, PackedVarints, Value};

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

/// CpuInfo.cpus (1), one per CPU in CPU order: frequencies (2, the scaling_available_frequencies,
/// packed or not) and capacity (3). A later CpuInfo replaces an earlier one, as
/// trace_processor's `SetCpuInfo` overwrites the CPU's row.
pub fn cpu_info(store: &mut Store, data: &[u8]) {
    let mut cpus = Vec::new();
    for cpu in repeated(data, 1) {
        let mut d = CpuDescription::default();
        let mut max = |f: u64| {
            let f = f as u32;
            d.max_freq_khz = Some(d.max_freq_khz.map_or(f, |m| m.max(f)));
        };
        for (id, v) in Fields::new(cpu.as_bytes()).map_while(Result::ok) {
            match (id, v) {
                (2, Value::Varint(f)) => max(f),
                (2, Value::Bytes(b)) => PackedVarints::new(b).for_each(&mut max),
                (3, Value::Varint(c)) => d.capacity = Some(c as u32),
                _ => {}
            }
        }
        cpus.push(d);
    }
    if !cpus.is_empty() {
        store.trace_info.cpus = cpus;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::{put_field, Msg};

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

    #[test]
    fn cpus_with_capacity_and_highest_frequency() {
        let mut s = Store::default();
        let mut packed = Vec::new();
        for f in [300_000u64, 1_800_000, 900_000] {
            crate::trace::wire::put_varint(&mut packed, f);
        }
        let mut cpu1 = Msg::default().int(3, 1024).0;
        put_field(&mut cpu1, 2, Value::Bytes(&packed));
        let info = Msg::default()
            .msg(
                1,
                Msg::default()
                    .str(1, "AArch64 Processor")
                    .int(2, 300_000)
                    .int(2, 1_200_000)
                    .int(3, 160),
            )
            .msg(1, Msg(cpu1))
            .msg(1, Msg::default());
        cpu_info(&mut s, &info.0);
        assert_eq!(
            s.trace_info.cpus,
            [
                CpuDescription {
                    capacity: Some(160),
                    max_freq_khz: Some(1_200_000)
                },
                CpuDescription {
                    capacity: Some(1024),
                    max_freq_khz: Some(1_800_000)
                },
                CpuDescription::default(),
            ]
        );
    }
}
