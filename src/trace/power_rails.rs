//! PowerRails packets carry many energy samples, each stamped in milliseconds of BOOTTIME.
//! Like ftrace bundles they are cut up before sorting (as trace_processor does): the
//! tokenizer hands the rail descriptors to the importers at once and sorts one event per
//! sample, whose payload is an [`EnergySample`] in the small encoding below.

use super::wire::{put_field, repeated, slots, Value};

/// PowerRails field numbers.
const RAIL_DESCRIPTOR: u32 = 1;
const ENERGY_DATA: u32 = 2;
const SESSION_UUID: u32 = 3;

/// One EnergyData of a PowerRails packet, with what its importer needs from the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnergySample {
    pub session_uuid: u64,
    /// The rail, as numbered by the session's descriptors.
    pub index: u32,
    /// Energy in microwatt-seconds since the rail's counter started.
    pub energy: u64,
    /// The timestamp of the packet the sample came in (in the trace clock).
    pub packet_ts: i64,
}

impl EnergySample {
    /// Writes the sorted payload (varint fields 1..=4 in declaration order).
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_field(out, 1, Value::Varint(self.session_uuid));
        put_field(out, 2, Value::Varint(self.index as u64));
        put_field(out, 3, Value::Varint(self.energy));
        put_field(out, 4, Value::Varint(self.packet_ts as u64));
    }

    pub fn decode(buf: &[u8]) -> Self {
        let f = slots::<5>(buf);
        let n = |i: usize| f[i].map_or(0, |v| v.as_u64());
        EnergySample {
            session_uuid: n(1),
            index: n(2) as u32,
            energy: n(3),
            packet_ts: n(4) as i64,
        }
    }
}

/// The session of a PowerRails packet (0 when absent).
pub fn session_uuid(power_rails: &[u8]) -> u64 {
    slots::<4>(power_rails)[SESSION_UUID as usize].map_or(0, |v| v.as_u64())
}

/// The RailDescriptor messages of a PowerRails packet.
pub fn descriptors(power_rails: &[u8]) -> impl Iterator<Item = &[u8]> {
    repeated(power_rails, RAIL_DESCRIPTOR).map(|v| v.as_bytes())
}

/// The samples of a PowerRails packet, each with its own timestamp in nanoseconds of BOOTTIME
/// when it has one (`None`: the packet's timestamp applies).
pub fn samples(
    power_rails: &[u8],
    packet_ts: i64,
) -> impl Iterator<Item = (Option<i64>, EnergySample)> + '_ {
    let session_uuid = session_uuid(power_rails);
    repeated(power_rails, ENERGY_DATA).map(move |v| {
        let [_, index, timestamp_ms, energy] = slots::<4>(v.as_bytes());
        let sample = EnergySample {
            session_uuid,
            index: index.map_or(0, |v| v.as_u32()),
            energy: energy.map_or(0, |v| v.as_u64()),
            packet_ts,
        };
        let boot_ns = timestamp_ms.map(|ms| (ms.as_u64() as i64).wrapping_mul(1_000_000));
        (boot_ns, sample)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::Msg;

    #[test]
    fn samples_carry_session_own_timestamp_and_packet_timestamp() {
        let data = Msg::default()
            .msg(ENERGY_DATA, Msg::default().int(1, 4).int(2, 3).int(3, 333))
            .msg(ENERGY_DATA, Msg::default().int(1, 3).int(3, 999))
            .int(SESSION_UUID, 7);
        let got: Vec<_> = samples(&data.0, 3_000_005).collect();
        let s = |index, energy| EnergySample {
            session_uuid: 7,
            index,
            energy,
            packet_ts: 3_000_005,
        };
        // timestamp_ms 3 is 3 ms of BOOTTIME; the second sample has none.
        assert_eq!(got, [(Some(3_000_000), s(4, 333)), (None, s(3, 999))]);
        let mut buf = Vec::new();
        got[0].1.encode(&mut buf);
        assert_eq!(EnergySample::decode(&buf), got[0].1);
    }
}
