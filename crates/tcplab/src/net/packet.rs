//! Packets: small `Copy` values, so the hot path never allocates.

use crate::sim::Time;

pub type FlowId = u32;
pub type NodeId = u32;
pub type LinkId = u32;

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PacketKind {
    /// A TCP segment with payload.
    Data = 0,
    /// A pure TCP acknowledgement.
    Ack = 1,
    /// A UDP datagram.
    Datagram = 2,
}

impl PacketKind {
    pub fn name(self) -> &'static str {
        match self {
            PacketKind::Data => "data",
            PacketKind::Ack => "ack",
            PacketKind::Datagram => "datagram",
        }
    }
}

/// One packet on the wire. Sequence numbers count packets (as NS-2's one-way TCP does);
/// byte sequence numbers for traces are `seq * mss`.
///
/// 48 bytes without padding (checked below): a scheduler lane entry (time, sequence,
/// event) is then one 64-byte cache line, and copies of it are whole 16-byte moves
/// rather than pieces around padding, which the CPU cannot forward from store to load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    /// Numbered in order of creation, modulo 2^32: unique among the packets that can
    /// meet (an 802.11 receiver compares it with the previous frame of the same sender
    /// to discard duplicates; pcap traces use its low 16 bits as the IP ID).
    pub uid: u32,
    pub flow: FlowId,
    pub kind: PacketKind,
    pub src: NodeId,
    pub dst: NodeId,
    /// Index of the next hop in the flow's path (source routing: one array lookup per hop).
    pub hop: u16,
    /// Data: the segment number. Ack: the segment number that triggered it.
    pub seq: u32,
    /// Ack: the next segment the receiver expects (cumulative).
    pub ack: u32,
    /// Bytes on the wire, headers included.
    pub size: u32,
    /// Application bytes carried. An ACK carries none; its field holds the number of its
    /// options in the receiver's log (tcp/sack.rs), 0 when it has none.
    pub payload: u32,
    /// When the sender sent this transmission (data) or the echoed send time (ack).
    pub stamp: Time,
    /// Data: [`Packet::RETRANSMIT`], [`Packet::PUSH`] and [`Packet::GSO_MORE`] (one byte,
    /// so the packet stays 48 bytes).
    pub flags: u8,
    /// Ack: the receiver's advertised window, in packets.
    pub rwnd: u32,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 48);

impl Packet {
    /// Data: this transmission is a retransmission.
    pub const RETRANSMIT: u8 = 1;
    /// Data: the segment carries TCP's PSH flag, the end of an application write.
    pub const PUSH: u8 = 2;
    /// Data: the next segment of the flow belongs to the same GSO packet as this one (set
    /// by senders that build GSO packets, `app_push = "gso"`): a host's egress that takes
    /// turns between flows keeps a GSO packet's segments together (queue/round_robin.rs).
    pub const GSO_MORE: u8 = 4;

    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }

    /// Application bytes carried (an ACK's `payload` field numbers its options).
    pub fn app_bytes(&self) -> u32 {
        if self.kind == PacketKind::Ack {
            0
        } else {
            self.payload
        }
    }

    pub fn retransmit(&self) -> bool {
        self.flags & Packet::RETRANSMIT != 0
    }

    pub fn push(&self) -> bool {
        self.flags & Packet::PUSH != 0
    }

    pub fn gso_more(&self) -> bool {
        self.flags & Packet::GSO_MORE != 0
    }

    /// An ACK's number in its receiver's option log (0: no options).
    pub fn options_id(&self) -> u32 {
        if self.kind == PacketKind::Ack {
            self.payload
        } else {
            0
        }
    }
}

/// Why a packet was dropped. Every drop carries one, so loss classification can be
/// scored against ground truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DropCause {
    /// The queue was full (tail drop).
    BufferOverflow = 0,
    /// Random loss on a link (Bernoulli or Gilbert-Elliott).
    RandomLoss = 1,
    /// An active queue manager dropped early (RED, SRED, ZL-RED first step).
    AqmEarly = 2,
    /// ZL-RED's second-step drop (003 section 6).
    ZlRedSecondStep = 3,
    /// A wireless frame exceeded the MAC retry limit.
    WirelessRetryLimit = 4,
}

impl DropCause {
    pub const ALL: [DropCause; 5] = [
        DropCause::BufferOverflow,
        DropCause::RandomLoss,
        DropCause::AqmEarly,
        DropCause::ZlRedSecondStep,
        DropCause::WirelessRetryLimit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropCause::BufferOverflow => "buffer_overflow",
            DropCause::RandomLoss => "random_loss",
            DropCause::AqmEarly => "aqm_early",
            DropCause::ZlRedSecondStep => "zlred_second_step",
            DropCause::WirelessRetryLimit => "wireless_retry_limit",
        }
    }

    /// Whether the drop signals congestion (as opposed to a transmission error).
    pub fn is_congestion(self) -> bool {
        matches!(
            self,
            DropCause::BufferOverflow | DropCause::AqmEarly | DropCause::ZlRedSecondStep
        )
    }
}

/// Counters indexed by drop cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounts(pub [u64; DropCause::ALL.len()]);

impl DropCounts {
    pub fn add(&mut self, cause: DropCause) {
        self.0[cause as usize] += 1;
    }
    pub fn get(&self, cause: DropCause) -> u64 {
        self.0[cause as usize]
    }
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}
