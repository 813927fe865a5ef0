//! Pcap taps on link directions: the scenario names them, the caller gives the output
//! directory ([`World::open_traces`]); nothing is written unless both happen.
//!
//! Each simulated packet becomes an Ethernet/IPv4/TCP or UDP frame (record/pcap.rs).
//! Nodes get addresses 10.x.y.z (node index + 1). A TCP flow's sender uses port
//! 10000 + (id mod 55000) and its receiver port 5001; byte sequence numbers are
//! `ISN + 1 + segment * mss` (ACKs: `ISN + 1 + min(ack * mss, transfer size)`), with a
//! fixed ISN per flow, so tools see the real sequence and acknowledgement numbers. A
//! flow with timestamps shows the RFC 7323 option on every segment (a millisecond clock
//! per host with a fixed offset per flow; world/wire_stamps.rs), and its ACKs show their
//! SACK blocks and D-SACKs in bytes.

use super::link::Link;
use super::wire_stamps::{ts_clock, WireStamps};
use super::{Flow, RunError, World};
use crate::config::{PcapResolution, PcapSpec, TapPoint};
use crate::net::{LinkId, Packet, PacketKind};
use crate::record::pcap::{
    node_ip, node_mac, tcp_frame, udp_frame, Addresses, PcapWriter, TcpFields, TcpOptions, TCP_ACK,
    TCP_PSH,
};
use crate::record::TraceRecord;
use crate::sim::Time;
use crate::tcp::sack::AckOptions;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

const RECEIVER_PORT: u16 = 5001;

struct Tap {
    link: LinkId,
    at: TapPoint,
    file: String,
    writer: PcapWriter<BufWriter<File>>,
}

/// What a frame needs to know about its flow.
struct FlowWire {
    mss: u64,
    /// Bytes of a finite transfer (caps the final ACK number).
    total_bytes: Option<u64>,
    isn_sender: u32,
    isn_receiver: u32,
    port: u16,
    /// The timestamp clocks' offsets, sender and receiver (None: no timestamps).
    ts_offsets: Option<(u32, u32)>,
}

impl FlowWire {
    /// The byte sequence number of segment boundary `seg` of the sender's stream (a
    /// finite transfer ends at its last byte).
    fn sender_seq(&self, seg: u32) -> u32 {
        let bytes = seg as u64 * self.mss;
        let bytes = self.total_bytes.map_or(bytes, |t| bytes.min(t));
        self.isn_sender.wrapping_add(1).wrapping_add(bytes as u32)
    }
}

/// The taps of a run.
#[derive(Default)]
pub(super) struct Traces {
    /// Taps the scenario asks for, until the caller opens them.
    requested: Vec<(LinkId, PcapSpec)>,
    taps: Vec<Tap>,
    flows: Vec<FlowWire>,
    buf: Vec<u8>,
    /// SACK blocks of the frame being built, in bytes.
    sack: Vec<(u32, u32)>,
    /// The timestamp fields that exist only on the wire.
    stamps: WireStamps,
    /// The first write error; later writes are skipped and the run reports it.
    error: Option<String>,
    /// What each tap wrote, once the run has finished.
    records: Vec<TraceRecord>,
}

/// A fixed, well-spread initial sequence number per flow and side.
fn isn(flow: u32, side: u32) -> u32 {
    (flow as u64 * 2 + side as u64 + 1)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(17) as u32
}

impl Traces {
    /// Taps requested by the scenario, by resolved link id.
    pub(super) fn requested(taps: Vec<(LinkId, PcapSpec)>) -> Self {
        Traces {
            requested: taps,
            ..Default::default()
        }
    }

    pub(super) fn active(&self) -> bool {
        !self.taps.is_empty()
    }

    pub(super) fn take_records(&mut self) -> Vec<TraceRecord> {
        std::mem::take(&mut self.records)
    }

    /// `p` leaves its endpoint at `now` (its wire-only timestamp field is fixed now).
    #[cold]
    #[inline(never)]
    pub(super) fn sent(&mut self, p: &Packet, now: Time) {
        if let Some((_, receiver)) = self.flows.get(p.flow as usize).and_then(|f| f.ts_offsets) {
            self.stamps.sent(p, now, receiver);
        }
    }

    /// `p` reached its endpoint.
    #[cold]
    #[inline(never)]
    pub(super) fn delivered(&mut self, p: &Packet) {
        self.stamps.delivered(p);
    }

    /// `p` was dropped on the way.
    #[cold]
    #[inline(never)]
    pub(super) fn dropped(&mut self, p: &Packet) {
        self.stamps.forget(p);
    }

    /// Writes `p`, seen at `t` on `link` at point `at`, to every tap there; `sack` is
    /// the SACK option of an ACK.
    pub(super) fn capture(
        &mut self,
        link: &Link,
        at: TapPoint,
        p: &Packet,
        t: Time,
        sack: Option<&AckOptions>,
    ) {
        if self.error.is_some() {
            return;
        }
        for i in 0..self.taps.len() {
            if self.taps[i].link != link.id || self.taps[i].at != at {
                continue;
            }
            let wire_len = self.frame(link, p, sack);
            let tap = &mut self.taps[i];
            if let Err(e) = tap.writer.write_frame(t, &self.buf, wire_len) {
                self.error = Some(format!("writing {}: {e}", tap.file));
                return;
            }
        }
    }

    /// Builds the headers of `p` as it crosses `link` into `self.buf`; returns the
    /// frame's length on the wire.
    fn frame(&mut self, link: &Link, p: &Packet, sack: Option<&AckOptions>) -> usize {
        let flow = self.flows.get(p.flow as usize);
        let port = flow.map_or(10_000, |f| f.port);
        let (src_port, dst_port) = if p.kind == PacketKind::Ack {
            (RECEIVER_PORT, port)
        } else {
            (port, RECEIVER_PORT)
        };
        let a = Addresses {
            src_mac: node_mac(link.from),
            dst_mac: node_mac(link.to),
            src_ip: node_ip(p.src),
            dst_ip: node_ip(p.dst),
            src_port,
            dst_port,
        };
        let ip_id = p.uid as u16;
        let Some(f) = flow else {
            return udp_frame(&mut self.buf, &a, p.payload as usize, ip_id);
        };
        let fields = match p.kind {
            PacketKind::Datagram => {
                return udp_frame(&mut self.buf, &a, p.payload as usize, ip_id);
            }
            PacketKind::Data => TcpFields {
                seq: f.sender_seq(p.seq),
                ack: f.isn_receiver.wrapping_add(1),
                flags: if p.push() { TCP_ACK | TCP_PSH } else { TCP_ACK },
                window: u16::MAX,
            },
            PacketKind::Ack => TcpFields {
                seq: f.isn_receiver.wrapping_add(1),
                ack: f.sender_seq(p.ack),
                flags: TCP_ACK,
                window: (p.rwnd as u64 * f.mss).min(u16::MAX as u64) as u16,
            },
        };
        // RFC 7323: a data segment's TSval is its send time and an ACK's TSecr the send
        // time it echoes (the packet's stamp either way, on the sender's clock).
        let timestamps = f.ts_offsets.map(|(sender, _)| {
            let own = ts_clock(p.stamp, sender);
            let other = self.stamps.field(p);
            if p.kind == PacketKind::Ack {
                (other, own)
            } else {
                (own, other)
            }
        });
        self.sack.clear();
        if let Some(o) = sack {
            let edges = |&(start, end): &(u32, u32)| (f.sender_seq(start), f.sender_seq(end));
            self.sack.extend(o.blocks().iter().map(edges));
        }
        let options = TcpOptions {
            timestamps,
            sack: &self.sack,
        };
        tcp_frame(
            &mut self.buf,
            &a,
            &fields,
            &options,
            p.app_bytes() as usize,
            ip_id,
        )
    }
}

/// The SACK option an ACK of `flows` carries, read from its receiver's log (not consumed:
/// the sender reads it when the ACK arrives).
fn sack_option<'a>(flows: &'a [Flow], p: &Packet) -> Option<&'a AckOptions> {
    match p.options_id() {
        0 => None,
        id => flows.get(p.flow as usize)?.receiver.options.peek(id),
    }
}

impl World {
    /// Writes `p` to the taps at `at` of link `l` (out of line: most runs have none).
    #[cold]
    #[inline(never)]
    pub(super) fn capture(&mut self, l: LinkId, at: TapPoint, p: &Packet, t: Time) {
        let sack = sack_option(&self.flows, p);
        self.traces.capture(&self.links[l as usize], at, p, t, sack);
    }

    /// Opens the pcap files the scenario asks for (`simulation.pcap`) under `dir`,
    /// creating directories as needed. A run of a scenario with taps fails unless this
    /// was called.
    pub fn open_traces(&mut self, dir: &Path) -> Result<(), RunError> {
        self.traces.flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mss = f.sender.state().mss as u64;
                FlowWire {
                    mss,
                    total_bytes: f
                        .sender
                        .total_segments()
                        .map(|n| (n as u64 - 1) * mss + f.sender.last_payload() as u64),
                    isn_sender: isn(i as u32, 0),
                    isn_receiver: isn(i as u32, 1),
                    port: 10_000 + (i % 55_000) as u16,
                    ts_offsets: f
                        .sender
                        .timestamps()
                        .then(|| (isn(i as u32, 2), isn(i as u32, 3))),
                }
            })
            .collect();
        for (link, spec) in std::mem::take(&mut self.traces.requested) {
            let path = dir.join(&spec.file);
            let io_err = |e: std::io::Error| {
                RunError::Output(format!("cannot create {}: {e}", path.display()))
            };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io_err)?;
            }
            let file = File::create(&path).map_err(io_err)?;
            let writer = PcapWriter::new(
                BufWriter::with_capacity(1 << 16, file),
                spec.snaplen,
                spec.resolution == PcapResolution::Ns,
            )
            .map_err(io_err)?;
            self.traces.taps.push(Tap {
                link,
                at: spec.at,
                file: spec.file,
                writer,
            });
        }
        // UDP flows need only their port; they take ids after the TCP flows.
        for i in self.flows.len()..self.flows.len() + self.udp_flows.len() {
            self.traces.flows.push(FlowWire {
                mss: 1,
                total_bytes: None,
                isn_sender: 0,
                isn_receiver: 0,
                port: 10_000 + (i % 55_000) as u16,
                ts_offsets: None,
            });
        }
        Ok(())
    }

    /// Fails if the scenario asked for traces that were never opened.
    pub(super) fn check_traces_opened(&self) -> Result<(), RunError> {
        match self.traces.requested.first() {
            Some((_, spec)) => Err(RunError::Output(format!(
                "the scenario asks for pcap traces (simulation.pcap, e.g. {:?}) but no output directory was given",
                spec.file
            ))),
            None => Ok(()),
        }
    }

    /// Flushes every tap; reports the first write error of the run.
    pub(super) fn finish_traces(&mut self) -> Result<(), RunError> {
        if let Some(e) = self.traces.error.take() {
            return Err(RunError::Output(e));
        }
        for tap in &mut self.traces.taps {
            tap.writer
                .flush()
                .map_err(|e| RunError::Output(format!("writing {}: {e}", tap.file)))?;
            self.traces.records.push(TraceRecord {
                link: self.links[tap.link as usize].name.clone(),
                file: tap.file.clone(),
                packets: tap.writer.packets,
            });
        }
        Ok(())
    }
}
