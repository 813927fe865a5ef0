//! A `[[flows]]` entry: one or more identical flows, each TCP (with its congestion control
//! and loss recovery) or UDP at a constant bit rate (with its rate and datagram size).
//!
//! The engine reads [`FlowSpec`], whose [`Traffic`] says what the flows carry, so a TCP
//! flow always has its algorithm and a CBR flow its rate. The document keeps its flat form
//! (`kind = "cbr"` beside the other keys, the TCP keys optional): serde reads and writes
//! the entry through [`FlowTable`], whose conversion to a `FlowSpec` is where a key of
//! the other kind, a TCP flow without `cc` and a CBR flow without `rate` are refused.

use super::tagged::at_path;
use super::units::{Rate, Seconds};
use super::{CcSpec, Recovery, TcpOptions};
use serde::{Deserialize, Serialize};

/// One or more identical flows, and what they carry.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(try_from = "FlowTable", into = "FlowTable")]
pub struct FlowSpec {
    /// Name used in records and to seed the flow's random stream (default `flow<i>`).
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// Number of identical flows this entry stands for.
    pub count: u32,
    pub start: StartSpec,
    /// When the application stops offering new data (default: never).
    pub stop: Option<Seconds>,
    /// `[on, off]` intervals that replace `start` and `stop` (the key is explained on
    /// [`FlowTable`]).
    pub schedule: Vec<[Seconds; 2]>,
    pub traffic: Traffic,
}

/// What a flow carries (a TCP flow's options boxed: the variants' sizes differ tenfold).
#[derive(Clone, Debug, PartialEq)]
pub enum Traffic {
    Tcp(Box<TcpTraffic>),
    Cbr(CbrTraffic),
}

/// A TCP connection: its congestion control, loss recovery, transfer size and options.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpTraffic {
    pub cc: CcSpec,
    /// `None`: the stack's or else the algorithm's own.
    pub recovery: Option<Recovery>,
    /// `None`: a bulk transfer.
    pub bytes: Option<u64>,
    /// This flow's own options, over the scenario's `[tcp]` defaults.
    pub tcp: TcpOptions,
}

/// UDP datagrams at a constant bit rate.
#[derive(Clone, Debug, PartialEq)]
pub struct CbrTraffic {
    /// Bits per second on the wire.
    pub rate: Rate,
    /// Bytes per datagram on the wire as the document gives it; `None` is
    /// [`DEFAULT_CBR_PACKET_SIZE`] (and stays unwritten in the canonical document).
    pub packet_size: Option<u32>,
}

/// Default datagram size of a CBR flow, bytes.
pub const DEFAULT_CBR_PACKET_SIZE: u32 = 1000;

impl CbrTraffic {
    /// Bytes per datagram on the wire.
    pub fn packet_size(&self) -> u32 {
        self.packet_size.unwrap_or(DEFAULT_CBR_PACKET_SIZE)
    }
}

impl Traffic {
    /// The document's `kind` of this traffic.
    pub fn kind(&self) -> FlowKind {
        match self {
            Traffic::Tcp(_) => FlowKind::Tcp,
            Traffic::Cbr(_) => FlowKind::Cbr,
        }
    }

    /// Bytes to transfer, for a TCP flow given a size; `None`: as long as it runs.
    pub fn bytes(&self) -> Option<u64> {
        match self {
            Traffic::Tcp(t) => t.bytes,
            Traffic::Cbr(_) => None,
        }
    }
}

impl FlowSpec {
    /// The name of the `k`-th flow of entry `index`: `name` (default `flow<index>`), with
    /// `.k` appended when the entry stands for more than one flow.
    pub fn flow_name(&self, index: usize, k: u32) -> String {
        let base = self.base_name(index);
        if self.count > 1 {
            format!("{base}.{k}")
        } else {
            base
        }
    }

    /// `name`, or `flow<index>` if it is not set.
    pub fn base_name(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("flow{index}"))
    }
}

/// When a flow starts: a fixed time or uniformly at random in a range.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum StartSpec {
    At(Seconds),
    Uniform { uniform: [Seconds; 2] },
}

/// A table is the uniform form, anything else a time; each keeps its own error message
/// (serde's untagged enums say only "data did not match any variant").
impl<'de> Deserialize<'de> for StartSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Uniform {
            uniform: [Seconds; 2],
        }
        match toml::Value::deserialize(d)? {
            table @ toml::Value::Table(_) => super::tagged::variant(table)
                .map(|u: Uniform| StartSpec::Uniform { uniform: u.uniform }),
            time => Seconds::deserialize(time)
                .map(StartSpec::At)
                .map_err(serde::de::Error::custom),
        }
    }
}

impl Default for StartSpec {
    fn default() -> Self {
        StartSpec::At(Seconds(0.0))
    }
}

/// The `kind` of a flow entry.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// A TCP connection (the default).
    #[default]
    Tcp,
    /// UDP datagrams at a constant bit rate (`rate`, `packet_size`).
    Cbr,
}

impl FlowKind {
    fn is_tcp(&self) -> bool {
        *self == FlowKind::Tcp
    }
}

/// A `[[flows]]` entry as the document writes it: every key of either kind, flat, in the
/// order the canonical document (the store's key) has always written them.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowTable {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    src: String,
    dst: String,
    /// tcp (default) or cbr.
    #[serde(default, skip_serializing_if = "FlowKind::is_tcp")]
    kind: FlowKind,
    /// Congestion control of a TCP flow (required for TCP): a name, or
    /// `{ name = "...", <parameters> }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cc: Option<CcSpec>,
    /// Loss recovery: tahoe, reno, newreno, rfc6675 or prr (default: the algorithm's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    recovery: Option<Recovery>,
    #[serde(default = "default_count")]
    count: u32,
    #[serde(default)]
    start: StartSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stop: Option<Seconds>,
    /// Transfer exactly this many bytes and record the completion time (default: bulk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
    /// Written for every flow (an empty table for a CBR flow), as the canonical document
    /// always has.
    #[serde(default)]
    tcp: TcpOptions,
    /// CBR: bits per second of datagrams on the wire (required for CBR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rate: Option<Rate>,
    /// CBR: bytes per datagram on the wire, IPv4 and UDP headers (28) included
    /// (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    packet_size: Option<u32>,
    /// On/off schedule: the flow offers data only within these `[on, off]` intervals
    /// (seconds, in order, not overlapping); replaces `start` and `stop`. A TCP flow
    /// that turns off stops offering new data (what is outstanding is still delivered
    /// and repaired) and on turning on again resumes with the state it had (cwnd, RTT
    /// estimates), as an NS-2 FTP source stopped and restarted on the same agent. A CBR
    /// flow sends a datagram at each on time and every interval after it, none at or
    /// after the off time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    schedule: Vec<[Seconds; 2]>,
}

fn default_count() -> u32 {
    1
}

impl TryFrom<FlowTable> for FlowSpec {
    /// A message carrying the key it is about ([`at_path`]).
    type Error = String;

    fn try_from(t: FlowTable) -> Result<FlowSpec, String> {
        let traffic = match t.kind {
            FlowKind::Tcp => {
                let cbr_only = [
                    ("rate", t.rate.is_some()),
                    ("packet_size", t.packet_size.is_some()),
                ];
                if let Some((key, _)) = cbr_only.iter().find(|(_, set)| *set) {
                    return Err(at_path(
                        key,
                        "applies to CBR flows only; add kind = \"cbr\" or remove it",
                    ));
                }
                let cc = t.cc.ok_or_else(|| {
                    at_path(
                        "cc",
                        "missing; a TCP flow needs a congestion control, e.g. cc = \"reno\" \
                         (`tcplab algorithms` lists them)",
                    )
                })?;
                Traffic::Tcp(Box::new(TcpTraffic {
                    cc,
                    recovery: t.recovery,
                    bytes: t.bytes,
                    tcp: t.tcp,
                }))
            }
            FlowKind::Cbr => {
                let tcp_only = [
                    ("cc", t.cc.is_some()),
                    ("recovery", t.recovery.is_some()),
                    ("bytes", t.bytes.is_some()),
                    ("tcp", t.tcp != TcpOptions::default()),
                ];
                if let Some((key, _)) = tcp_only.iter().find(|(_, set)| *set) {
                    return Err(at_path(
                        key,
                        "applies to TCP flows only; a CBR flow takes rate and packet_size",
                    ));
                }
                let rate = t.rate.ok_or_else(|| {
                    at_path("rate", "missing; a CBR flow needs a rate, e.g. \"500kbps\"")
                })?;
                Traffic::Cbr(CbrTraffic {
                    rate,
                    packet_size: t.packet_size,
                })
            }
        };
        Ok(FlowSpec {
            name: t.name,
            src: t.src,
            dst: t.dst,
            count: t.count,
            start: t.start,
            stop: t.stop,
            schedule: t.schedule,
            traffic,
        })
    }
}

impl From<FlowSpec> for FlowTable {
    fn from(f: FlowSpec) -> FlowTable {
        let mut t = FlowTable {
            name: f.name,
            src: f.src,
            dst: f.dst,
            kind: f.traffic.kind(),
            cc: None,
            recovery: None,
            count: f.count,
            start: f.start,
            stop: f.stop,
            bytes: None,
            tcp: TcpOptions::default(),
            rate: None,
            packet_size: None,
            schedule: f.schedule,
        };
        match f.traffic {
            Traffic::Tcp(tcp) => {
                t.cc = Some(tcp.cc);
                t.recovery = tcp.recovery;
                t.bytes = tcp.bytes;
                t.tcp = tcp.tcp;
            }
            Traffic::Cbr(cbr) => {
                t.rate = Some(cbr.rate);
                t.packet_size = cbr.packet_size;
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_scenario;

    fn flows(entries: &str) -> Result<Vec<FlowSpec>, (String, String)> {
        let doc = format!(
            "[simulation]\nduration = 2\n[topology]\nkind = \"dumbbell\"\npairs = 2\n\
             bottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n{entries}"
        );
        (parse_scenario(&doc).map(|s| s.flows)).map_err(|e| (e.field, e.message))
    }

    const TCP: &str = "[[flows]]\nsrc = \"s0\"\ndst = \"d0\"\ncc = \"vegas\"\nbytes = 5000\n";
    const CBR: &str = "[[flows]]\nsrc = \"s1\"\ndst = \"d1\"\nkind = \"cbr\"\nrate = \"500kbps\"\n";

    #[test]
    fn a_flow_is_tcp_with_its_algorithm_or_cbr_with_its_rate() {
        let f = flows(&format!("{TCP}{CBR}")).unwrap();
        let Traffic::Tcp(tcp) = &f[0].traffic else {
            panic!("{:?}", f[0])
        };
        assert_eq!((tcp.cc.name.as_str(), tcp.bytes), ("vegas", Some(5000)));
        assert_eq!(f[0].traffic.bytes(), Some(5000));
        let Traffic::Cbr(cbr) = &f[1].traffic else {
            panic!("{:?}", f[1])
        };
        assert_eq!(
            (cbr.rate.0, cbr.packet_size()),
            (500e3, DEFAULT_CBR_PACKET_SIZE)
        );
        assert_eq!(f[1].traffic.kind(), FlowKind::Cbr);
        assert_eq!(f[1].traffic.bytes(), None);
    }

    /// A key of the other kind, or the one a kind cannot go without, is refused at its
    /// own path.
    #[test]
    fn keys_of_the_other_kind_and_missing_ones_are_named() {
        let refused = |entry: &str, field: &str, says: &str| {
            let (f, m) = flows(entry).expect_err(entry);
            assert_eq!(f, field, "{entry}: {m}");
            assert!(m.contains(says), "{entry}: {m}");
        };
        let cbr_only = "applies to CBR flows only";
        refused(&format!("{TCP}rate = 1e6\n"), "flows[0].rate", cbr_only);
        refused(
            &format!("{TCP}packet_size = 100\n"),
            "flows[0].packet_size",
            cbr_only,
        );
        let tcp_only = "applies to TCP flows only";
        refused(&format!("{CBR}cc = \"reno\"\n"), "flows[0].cc", tcp_only);
        refused(
            &format!("{CBR}recovery = \"prr\"\n"),
            "flows[0].recovery",
            tcp_only,
        );
        refused(&format!("{CBR}bytes = 10\n"), "flows[0].bytes", tcp_only);
        refused(
            &format!("{CBR}tcp = {{ mss = 500 }}\n"),
            "flows[0].tcp",
            tcp_only,
        );
        refused(
            &CBR.replace("rate = \"500kbps\"\n", ""),
            "flows[0].rate",
            "missing",
        );
        refused(
            &TCP.replace("cc = \"vegas\"\n", ""),
            "flows[0].cc",
            "missing",
        );
        refused(
            &format!("{TCP}{TCP}{CBR}bytes = 1\n"),
            "flows[2].bytes",
            tcp_only,
        );
    }

    /// The canonical document (the store's key) writes an entry as it always has: the
    /// keys in one order, `kind` only for CBR, an empty `tcp` table for CBR, and an unset
    /// `packet_size` or `recovery` left out.
    #[test]
    fn the_canonical_document_keeps_its_form() {
        let f = flows(&format!("{TCP}{CBR}")).unwrap();
        #[derive(Serialize)]
        struct Doc<'a> {
            flows: &'a [FlowSpec],
        }
        let text = toml::to_string(&Doc { flows: &f }).unwrap();
        let expected = "[[flows]]\nsrc = \"s0\"\ndst = \"d0\"\ncount = 1\nstart = 0.0\n\
                        bytes = 5000\n\n[flows.cc]\nname = \"vegas\"\n\n[flows.tcp]\n\n\
                        [[flows]]\nsrc = \"s1\"\ndst = \"d1\"\nkind = \"cbr\"\ncount = 1\n\
                        start = 0.0\nrate = 500000.0\n\n[flows.tcp]\n";
        assert_eq!(text, expected);
    }
}
