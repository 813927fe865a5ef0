//! Packet traces: which link directions to capture into pcap files, and their checks.

use super::ConfigError;
use serde::{Deserialize, Serialize};
use std::path::{Component, Path};

/// Where on a link direction a tap sees packets.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TapPoint {
    /// Every packet offered to the link, when it is offered, including those its queue
    /// or loss model then drops (a capture on the sending interface).
    #[default]
    Entry,
    /// Every packet that reaches the far end, when it arrives (a capture on the
    /// receiving interface).
    Exit,
}

/// Timestamp resolution of a pcap file.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PcapResolution {
    /// Microseconds: the classic format every tool reads (default).
    #[default]
    Us,
    /// Nanoseconds (libpcap 1.5+, Wireshark).
    Ns,
}

/// `[[simulation.pcap]]`: capture one link direction into a pcap file.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// The link direction, by name: "r0->r1".
    pub link: String,
    /// File name, relative to the output directory the caller gives.
    pub file: String,
    /// entry (default) or exit.
    #[serde(default)]
    pub at: TapPoint,
    /// Bytes stored per packet (default 128: all headers; 65535 stores whole packets).
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
    /// us (default) or ns.
    #[serde(default)]
    pub resolution: PcapResolution,
}

fn default_snaplen() -> u32 {
    128
}

/// Checks the taps' files; their links are looked up where the world is built.
pub(super) fn validate_pcap(taps: &[PcapSpec]) -> Result<(), ConfigError> {
    for (i, t) in taps.iter().enumerate() {
        let field = format!("simulation.pcap[{i}]");
        let path = Path::new(&t.file);
        let plain = !t.file.is_empty()
            && path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !plain {
            return Err(ConfigError::new(
                format!("{field}.file"),
                format!(
                    "{:?} is not allowed; give a relative path inside the output directory (no \"..\", not absolute)",
                    t.file
                ),
            ));
        }
        if taps[..i].iter().any(|o| o.file == t.file) {
            return Err(ConfigError::new(
                format!("{field}.file"),
                format!(
                    "{:?} is used by another tap; each tap needs its own file",
                    t.file
                ),
            ));
        }
        if !(1..=262_144).contains(&t.snaplen) {
            return Err(ConfigError::new(
                format!("{field}.snaplen"),
                format!("{} is not allowed; 1 to 262144 bytes", t.snaplen),
            ));
        }
    }
    Ok(())
}
