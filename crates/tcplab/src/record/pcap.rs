//! Classic libpcap files with synthesized Ethernet/IPv4/TCP/UDP headers, so Wireshark,
//! tshark, tcpdump and tcptrace read simulated traffic as they read real captures.
//!
//! Format: the libpcap file format (global header, then a record header and the
//! captured bytes per packet), link type Ethernet, microsecond or nanosecond
//! timestamps. Headers carry valid IPv4 and TCP/UDP checksums; the payload is zeros,
//! stored up to the snapshot length (`snaplen`) like any truncated capture. TCP headers
//! carry the timestamp and SACK options of the flows that use them ([`TcpOptions`]).

use crate::sim::Time;
use std::io::{self, Write};

const LINKTYPE_ETHERNET: u32 = 1;
const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
pub const ETHERNET_HEADER: usize = 14;
pub const IPV4_HEADER: usize = 20;
pub const TCP_HEADER: usize = 20;
pub const UDP_HEADER: usize = 8;
const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;

/// TCP flag bits.
pub const TCP_PSH: u8 = 0x08;
pub const TCP_ACK: u8 = 0x10;

/// Writes a pcap stream: the global header at creation, then one record per frame.
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    nanos: bool,
    /// Frames written.
    pub packets: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Starts a capture; `nanos` selects nanosecond timestamps (libpcap's 0xa1b23c4d
    /// magic), otherwise microseconds (the classic format every tool reads).
    pub fn new(mut out: W, snaplen: u32, nanos: bool) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&(if nanos { MAGIC_NANOS } else { MAGIC_MICROS }).to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // GMT offset
        h.extend_from_slice(&0u32.to_le_bytes()); // timestamp accuracy
        h.extend_from_slice(&snaplen.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            snaplen,
            nanos,
            packets: 0,
        })
    }

    /// Writes one frame seen at simulated time `t`: `headers` are its first bytes, the
    /// rest up to `wire_len` is zero payload, stored up to the snapshot length.
    pub fn write_frame(&mut self, t: Time, headers: &[u8], wire_len: usize) -> io::Result<()> {
        let wire_len = wire_len.max(headers.len());
        let caplen = wire_len.min(self.snaplen as usize);
        let ns = t.nanos();
        let (secs, frac) = if self.nanos {
            (ns / 1_000_000_000, ns % 1_000_000_000)
        } else {
            (ns / 1_000_000_000, (ns % 1_000_000_000) / 1000)
        };
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&(secs as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&(frac as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&(caplen as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&(wire_len as u32).to_le_bytes());
        self.out.write_all(&rec)?;
        let from_headers = caplen.min(headers.len());
        self.out.write_all(&headers[..from_headers])?;
        let mut zeros = caplen - from_headers;
        const ZERO: [u8; 512] = [0; 512];
        while zeros > 0 {
            let n = zeros.min(ZERO.len());
            self.out.write_all(&ZERO[..n])?;
            zeros -= n;
        }
        self.packets += 1;
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The addresses of one frame: link-layer hop and IP/port endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addresses {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
}

/// A node's IPv4 address: 10.x.y.z from its index + 1 (so node 0 is 10.0.0.1).
pub fn node_ip(node: u32) -> [u8; 4] {
    let n = node + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// A node's MAC address: locally administered, 02:00 followed by its index + 1.
pub fn node_mac(node: u32) -> [u8; 6] {
    let n = (node + 1).to_be_bytes();
    [0x02, 0x00, n[0], n[1], n[2], n[3]]
}

/// The TCP fields of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpFields {
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
}

/// The TCP options of a segment, in the order and with the padding Linux writes them
/// (`tcp_options_write`: NOP, NOP, then the 10-byte timestamp option; NOP, NOP, then the
/// SACK option), so each starts on a 4-byte boundary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpOptions<'a> {
    /// RFC 7323 TSval and TSecr.
    pub timestamps: Option<(u32, u32)>,
    /// RFC 2018 blocks as (left edge, right edge) sequence numbers, a D-SACK block first
    /// (RFC 2883).
    pub sack: &'a [(u32, u32)],
}

const TCPOPT_NOP: u8 = 1;
const TCPOPT_SACK: u8 = 5;
const TCPOPT_TIMESTAMP: u8 = 8;

impl TcpOptions<'_> {
    /// Bytes the options take, a multiple of 4.
    fn wire_len(&self) -> usize {
        let sack = if self.sack.is_empty() {
            0
        } else {
            4 + 8 * self.sack.len()
        };
        self.timestamps.map_or(0, |_| 12) + sack
    }

    /// Appends the options' bytes to `buf`; their length is a multiple of 4.
    fn write(&self, buf: &mut Vec<u8>) {
        if let Some((val, ecr)) = self.timestamps {
            buf.extend_from_slice(&[TCPOPT_NOP, TCPOPT_NOP, TCPOPT_TIMESTAMP, 10]);
            buf.extend_from_slice(&val.to_be_bytes());
            buf.extend_from_slice(&ecr.to_be_bytes());
        }
        if !self.sack.is_empty() {
            let len = 2 + 8 * self.sack.len();
            buf.extend_from_slice(&[TCPOPT_NOP, TCPOPT_NOP, TCPOPT_SACK, len as u8]);
            for &(left, right) in self.sack {
                buf.extend_from_slice(&left.to_be_bytes());
                buf.extend_from_slice(&right.to_be_bytes());
            }
        }
    }
}

/// One's-complement sum of 16-bit words (RFC 1071), folded by [`finish`].
fn sum16(mut acc: u32, bytes: &[u8]) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

fn finish(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

fn ethernet_ipv4(buf: &mut Vec<u8>, a: &Addresses, proto: u8, ip_len: usize, ip_id: u16) {
    buf.clear();
    buf.extend_from_slice(&a.dst_mac);
    buf.extend_from_slice(&a.src_mac);
    buf.extend_from_slice(&0x0800u16.to_be_bytes());
    let ip_start = buf.len();
    buf.push(0x45); // version 4, 5-word header
    buf.push(0);
    buf.extend_from_slice(&(ip_len as u16).to_be_bytes());
    buf.extend_from_slice(&ip_id.to_be_bytes());
    buf.extend_from_slice(&0x4000u16.to_be_bytes()); // don't fragment
    buf.push(64); // TTL
    buf.push(proto);
    buf.extend_from_slice(&[0, 0]);
    buf.extend_from_slice(&a.src_ip);
    buf.extend_from_slice(&a.dst_ip);
    let c = finish(sum16(0, &buf[ip_start..]));
    buf[ip_start + 10..ip_start + 12].copy_from_slice(&c.to_be_bytes());
}

/// The pseudo-header sum of TCP/UDP checksums (RFC 793, RFC 768).
fn pseudo_sum(a: &Addresses, proto: u8, l4_len: usize) -> u32 {
    let mut acc = sum16(0, &a.src_ip);
    acc = sum16(acc, &a.dst_ip);
    acc + proto as u32 + l4_len as u32
}

/// Writes the headers of a TCP segment with `options` carrying `payload` zero bytes into
/// `buf` and returns the frame's length on the wire.
pub fn tcp_frame(
    buf: &mut Vec<u8>,
    a: &Addresses,
    t: &TcpFields,
    options: &TcpOptions,
    payload: usize,
    ip_id: u16,
) -> usize {
    let tcp_header = TCP_HEADER + options.wire_len();
    let l4_len = tcp_header + payload;
    ethernet_ipv4(buf, a, IPPROTO_TCP, IPV4_HEADER + l4_len, ip_id);
    let start = buf.len();
    buf.extend_from_slice(&a.src_port.to_be_bytes());
    buf.extend_from_slice(&a.dst_port.to_be_bytes());
    buf.extend_from_slice(&t.seq.to_be_bytes());
    buf.extend_from_slice(&t.ack.to_be_bytes());
    buf.push(((tcp_header / 4) as u8) << 4); // data offset in 4-byte words
    buf.push(t.flags);
    buf.extend_from_slice(&t.window.to_be_bytes());
    buf.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    options.write(buf);
    debug_assert_eq!(
        buf.len() - start,
        tcp_header,
        "options as long as announced"
    );
    // Zero payload adds nothing to the sum.
    let c = finish(sum16(pseudo_sum(a, IPPROTO_TCP, l4_len), &buf[start..]));
    buf[start + 16..start + 18].copy_from_slice(&c.to_be_bytes());
    ETHERNET_HEADER + IPV4_HEADER + l4_len
}

/// Writes the headers of a UDP datagram carrying `payload` zero bytes into `buf` and
/// returns the frame's length on the wire.
pub fn udp_frame(buf: &mut Vec<u8>, a: &Addresses, payload: usize, ip_id: u16) -> usize {
    let l4_len = UDP_HEADER + payload;
    ethernet_ipv4(buf, a, IPPROTO_UDP, IPV4_HEADER + l4_len, ip_id);
    let start = buf.len();
    buf.extend_from_slice(&a.src_port.to_be_bytes());
    buf.extend_from_slice(&a.dst_port.to_be_bytes());
    buf.extend_from_slice(&(l4_len as u16).to_be_bytes());
    buf.extend_from_slice(&[0, 0]);
    let c = match finish(sum16(pseudo_sum(a, IPPROTO_UDP, l4_len), &buf[start..])) {
        0 => 0xffff, // RFC 768: a computed zero is sent as all ones
        c => c,
    };
    buf[start + 6..start + 8].copy_from_slice(&c.to_be_bytes());
    ETHERNET_HEADER + IPV4_HEADER + l4_len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs() -> Addresses {
        Addresses {
            src_mac: node_mac(0),
            dst_mac: node_mac(1),
            src_ip: node_ip(0),
            dst_ip: node_ip(1),
            src_port: 10000,
            dst_port: 5001,
        }
    }

    /// A checksum over data that includes its own checksum field sums to 0xffff.
    fn verifies(acc: u32) -> bool {
        finish(acc) == 0
    }

    #[test]
    fn ip_and_tcp_checksums_verify() {
        let mut buf = Vec::new();
        let a = addrs();
        let tcp = TcpFields {
            seq: 123_456,
            ack: 7,
            flags: TCP_ACK,
            window: 65535,
        };
        let wire = tcp_frame(&mut buf, &a, &tcp, &TcpOptions::default(), 1000, 42);
        assert_eq!(wire, 14 + 20 + 20 + 1000);
        assert_eq!(buf.len(), 54);
        assert!(verifies(sum16(0, &buf[14..34])), "IPv4 header checksum");
        assert!(
            verifies(sum16(pseudo_sum(&a, 6, 1020), &buf[34..])),
            "TCP checksum"
        );
        assert_eq!(
            u16::from_be_bytes([buf[16], buf[17]]),
            1040,
            "IP total length"
        );
    }

    #[test]
    fn options_are_padded_and_counted_in_the_header() {
        let mut buf = Vec::new();
        let a = addrs();
        let tcp = TcpFields {
            seq: 1,
            ack: 2,
            flags: TCP_ACK,
            window: 100,
        };
        let blocks = [(5000, 6000), (8000, 9000)];
        let options = TcpOptions {
            timestamps: Some((0x0102_0304, 0x0506_0708)),
            sack: &blocks,
        };
        let wire = tcp_frame(&mut buf, &a, &tcp, &options, 0, 1);
        // 20 + 12 (timestamps) + 4 + 16 (two blocks).
        assert_eq!(wire, 14 + 20 + 52);
        assert_eq!(buf.len(), wire);
        assert_eq!(buf[46] >> 4, 13, "data offset: 52 bytes");
        assert_eq!(&buf[54..58], &[1, 1, 8, 10]);
        assert_eq!(&buf[58..62], &[1, 2, 3, 4], "TSval");
        assert_eq!(&buf[66..70], &[1, 1, 5, 18], "SACK kind and length");
        assert_eq!(u32::from_be_bytes(buf[78..82].try_into().unwrap()), 8000);
        assert!(verifies(sum16(pseudo_sum(&a, 6, 52), &buf[34..])));
    }

    #[test]
    fn udp_checksum_verifies() {
        let mut buf = Vec::new();
        let a = addrs();
        let wire = udp_frame(&mut buf, &a, 972, 1);
        assert_eq!(wire, 14 + 1000);
        assert!(verifies(sum16(pseudo_sum(&a, 17, 980), &buf[34..])));
    }

    #[test]
    fn records_are_truncated_to_the_snapshot_length() {
        let mut out = Vec::new();
        let mut w = PcapWriter::new(&mut out, 96, false).unwrap();
        let mut buf = Vec::new();
        let wire = udp_frame(&mut buf, &addrs(), 972, 1);
        w.write_frame(Time(1_500_000_123), &buf, wire).unwrap();
        assert_eq!(w.packets, 1);
        assert_eq!(out.len(), 24 + 16 + 96);
        assert_eq!(&out[0..4], &0xa1b2c3d4u32.to_le_bytes());
        let field = |i: usize| u32::from_le_bytes(out[i..i + 4].try_into().unwrap());
        assert_eq!((field(24), field(28)), (1, 500_000), "1.500000123 s in us");
        assert_eq!((field(32), field(36)), (96, 1014), "caplen, wire length");
    }
}
