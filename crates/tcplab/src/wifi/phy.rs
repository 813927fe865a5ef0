//! IEEE 802.11a OFDM timing (IEEE Std 802.11a-1999, clause 17).
//!
//! A PPDU is the PLCP preamble (16 us) and SIGNAL field (4 us) followed by OFDM symbols of
//! 4 us, each carrying N_DBPS data bits at the frame's rate; the DATA part holds the 16-bit
//! SERVICE field, the MPDU and 6 tail bits, padded to whole symbols (17.4.3, TXTIME).

use crate::sim::Time;

/// PLCP preamble: short and long training sequences (17.3.3).
pub const PREAMBLE: Time = Time::from_micros(16);
/// SIGNAL field: one BPSK symbol carrying rate and length (17.3.4).
pub const SIGNAL: Time = Time::from_micros(4);
/// One OFDM symbol including its guard interval (17.3.2.3, T_SYM).
pub const SYMBOL: Time = Time::from_micros(4);
/// SERVICE field bits that precede the MPDU in the DATA part (17.3.5.1).
pub const SERVICE_BITS: u32 = 16;
/// Convolutional-code tail bits that end the DATA part (17.3.5.2).
pub const TAIL_BITS: u32 = 6;
/// aPHY-RX-START-Delay of the OFDM PHY (17.4.4): part of the ACK and CTS timeouts.
pub const RX_START_DELAY: Time = Time::from_micros(25);

/// MAC header of a data frame (frame control, duration, three addresses, sequence control:
/// 24 bytes, 7.2.2 of 802.11-1999) plus the 4-byte FCS. The 8-byte LLC/SNAP header is not
/// modelled, as in NS-2's 802.11 MAC: the MSDU is the IP packet.
pub const DATA_OVERHEAD_BYTES: u32 = 28;
/// ACK frame: frame control, duration, receiver address, FCS (7.2.1.3).
pub const ACK_BYTES: u32 = 14;
/// CTS frame: same layout as the ACK (7.2.1.2).
pub const CTS_BYTES: u32 = 14;
/// RTS frame: frame control, duration, receiver and transmitter addresses, FCS (7.2.1.1).
pub const RTS_BYTES: u32 = 20;

/// One of the eight 802.11a data rates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OfdmRate {
    mbps: u32,
}

impl OfdmRate {
    /// The mandatory rate every 802.11a station decodes; EIFS is defined with an ACK at it.
    pub const LOWEST: OfdmRate = OfdmRate { mbps: 6 };
    /// Every rate of table 78 (17.3.2.2), in Mb/s.
    pub const ALL_MBPS: [u32; 8] = [6, 9, 12, 18, 24, 36, 48, 54];

    /// The rate of `bps` bits per second, if it is one of the eight 802.11a rates.
    pub fn from_bps(bps: f64) -> Option<OfdmRate> {
        Self::ALL_MBPS
            .iter()
            .find(|&&m| (m as f64 * 1e6 - bps).abs() < 1.0)
            .map(|&mbps| OfdmRate { mbps })
    }

    pub fn mbps(self) -> u32 {
        self.mbps
    }

    /// Position of this rate in [`OfdmRate::ALL_MBPS`], for per-rate tables.
    pub fn index(self) -> usize {
        Self::ALL_MBPS
            .iter()
            .position(|&m| m == self.mbps)
            .expect("one of the eight rates")
    }

    /// Every rate, in the order of [`OfdmRate::ALL_MBPS`].
    pub fn all() -> impl Iterator<Item = OfdmRate> {
        Self::ALL_MBPS.iter().map(|&mbps| OfdmRate { mbps })
    }

    /// Data bits per OFDM symbol, N_DBPS (table 78): 4 us symbols, so Mb/s times 4.
    pub fn bits_per_symbol(self) -> u32 {
        self.mbps * 4
    }

    /// Minimum input sensitivity for this rate, dBm (table 91, 17.3.10.1).
    pub fn sensitivity_dbm(self) -> f64 {
        match self.mbps {
            6 => -82.0,
            9 => -81.0,
            12 => -79.0,
            18 => -77.0,
            24 => -74.0,
            36 => -70.0,
            48 => -66.0,
            _ => -65.0,
        }
    }
}

/// Air time of a PPDU carrying an MPDU of `mpdu_bytes` at `rate` (17.4.3):
/// preamble + SIGNAL + 4 us * ceil((16 + 8 * bytes + 6) / N_DBPS).
pub fn ppdu_time(mpdu_bytes: u32, rate: OfdmRate) -> Time {
    let bits = SERVICE_BITS + 8 * mpdu_bytes + TAIL_BITS;
    let symbols = bits.div_ceil(rate.bits_per_symbol()) as u64;
    Time(PREAMBLE.0 + SIGNAL.0 + symbols * SYMBOL.0)
}

/// The timing constants of one BSS, resolved from the scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhyTiming {
    /// Rate of data frames (004 table I: 54 Mb/s; no rate adaptation).
    pub data_rate: OfdmRate,
    /// Rate of control responses (ACK, CTS) and of RTS: a basic rate (9.6).
    pub basic_rate: OfdmRate,
    pub slot: Time,
    pub sifs: Time,
    pub difs: Time,
    /// A carrier that starts less than this before a station's backoff slot ends is not yet
    /// sensed by it (802.11a 17.3.10.5: CCA within 4 us), so the two frames collide.
    pub cca_time: Time,
}

impl PhyTiming {
    /// PIFS = SIFS + slot (9.2.3.2).
    pub fn pifs(&self) -> Time {
        self.sifs + self.slot
    }

    /// Air time of a data frame carrying an IP packet of `ip_bytes`.
    pub fn data_time(&self, ip_bytes: u32) -> Time {
        ppdu_time(ip_bytes + DATA_OVERHEAD_BYTES, self.data_rate)
    }

    pub fn ack_time(&self) -> Time {
        ppdu_time(ACK_BYTES, self.basic_rate)
    }

    pub fn cts_time(&self) -> Time {
        ppdu_time(CTS_BYTES, self.basic_rate)
    }

    pub fn rts_time(&self) -> Time {
        ppdu_time(RTS_BYTES, self.basic_rate)
    }

    /// ACKTimeout and CTSTimeout: SIFS + slot + aPHY-RX-START-Delay (9.2.8, 9.2.5.7 of
    /// 802.11-2007). A response that has not started by then will not come.
    pub fn response_timeout(&self) -> Time {
        self.sifs + self.slot + RX_START_DELAY
    }

    /// EIFS for a station whose normal IFS is `ifs`: SIFS + the time of an ACK at the lowest
    /// mandatory rate + IFS (9.2.3.4), so a station that could not decode a frame leaves
    /// room for the ACK it may have missed.
    pub fn eifs(&self, ifs: Time) -> Time {
        self.sifs + ppdu_time(ACK_BYTES, OfdmRate::LOWEST) + ifs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(m: u32) -> OfdmRate {
        OfdmRate::from_bps(m as f64 * 1e6).unwrap()
    }

    #[test]
    fn rates_are_the_eight_of_802_11a() {
        assert!(OfdmRate::from_bps(11e6).is_none());
        assert_eq!(rate(54).bits_per_symbol(), 216);
        assert_eq!(rate(6).bits_per_symbol(), 24);
        for (i, r) in OfdmRate::all().enumerate() {
            assert_eq!(r.index(), i);
        }
    }

    #[test]
    fn ppdu_times_follow_txtime_formula() {
        // 1500-byte IP packet: 1528-byte MPDU, 12246 bits, 57 symbols at 54 Mb/s.
        assert_eq!(ppdu_time(1528, rate(54)), Time::from_micros(20 + 57 * 4));
        // ACK (14 bytes, 134 bits): 2 symbols at 24 Mb/s, 6 symbols at 6 Mb/s.
        assert_eq!(ppdu_time(14, rate(24)), Time::from_micros(28));
        assert_eq!(ppdu_time(14, rate(6)), Time::from_micros(44));
    }

    #[test]
    fn interframe_spaces_of_table_i() {
        let t = PhyTiming {
            data_rate: rate(54),
            basic_rate: rate(24),
            slot: Time::from_micros(9),
            sifs: Time::from_micros(16),
            difs: Time::from_micros(34),
            cca_time: Time::from_micros(4),
        };
        assert_eq!(t.pifs(), Time::from_micros(25));
        assert_eq!(t.eifs(t.difs), Time::from_micros(16 + 44 + 34));
        assert_eq!(t.response_timeout(), Time::from_micros(50));
        assert_eq!(t.data_time(1040), ppdu_time(1068, rate(54)));
    }
}
