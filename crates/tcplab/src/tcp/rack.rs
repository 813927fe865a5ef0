//! RACK's record of the most recently delivered transmission (RFC 8985 section 6.1;
//! Linux `struct tcp_rack`).

use crate::sim::Time;

#[derive(Clone, Copy, Debug)]
pub struct Rack {
    /// Send time and end of the most recently sent segment known delivered
    /// (`RACK.xmit_ts`, `RACK.end_seq`).
    pub xmit_ts: Time,
    pub end_seq: u32,
    /// Its RTT (`RACK.rtt`).
    pub rtt: Time,
    /// New delivery information since the last loss detection (Linux `rack.advanced`).
    pub advanced: bool,
    /// Multiplier of the reordering window, raised by D-SACKs (RFC 8985 section 6.2 step
    /// 4; Linux `reo_wnd_steps`).
    pub reo_wnd_steps: u32,
    /// The receiver saw reordering (a D-SACK), so the window is not zeroed in recovery.
    pub reordering_seen: bool,
    /// `snd_max` when the window last grew: at most one step per round trip.
    pub dsack_round_end: u32,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: Time::ZERO,
            end_seq: 0,
            rtt: Time::ZERO,
            advanced: false,
            reo_wnd_steps: 1,
            reordering_seen: false,
            dsack_round_end: 0,
        }
    }
}

impl Rack {
    /// RFC 8985 section 6.2 step 2 (Linux `tcp_rack_advance`): segment `seq`, last sent at
    /// `sent_at`, was delivered. A retransmitted segment delivered sooner than the
    /// minimum RTT may be the original's ACK, so it does not count.
    pub fn advance(
        &mut self,
        seq: u32,
        sent_at: Time,
        retransmitted: bool,
        now: Time,
        min_rtt: Time,
    ) {
        let rtt = now - sent_at;
        if retransmitted && rtt < min_rtt {
            return;
        }
        self.rtt = rtt;
        if sent_at > self.xmit_ts || (sent_at == self.xmit_ts && seq + 1 > self.end_seq) {
            self.xmit_ts = sent_at;
            self.end_seq = seq + 1;
        }
        self.advanced = true;
    }

    /// RFC 8985 section 6.2 step 4 (Linux `tcp_rack_reo_wnd`): no settling time before
    /// reordering is seen once in recovery or once `dupthresh` segments are SACKed;
    /// otherwise a quarter of the minimum RTT per step, at most SRTT.
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked: u32,
        dupthresh: u32,
        min_rtt: Time,
        srtt: Time,
    ) -> Time {
        if !self.reordering_seen && (in_recovery || sacked >= dupthresh) {
            return Time::ZERO;
        }
        let quarter = if min_rtt == Time::MAX {
            Time::ZERO
        } else {
            Time(min_rtt.nanos() / 4)
        };
        Time(quarter.nanos().saturating_mul(self.reo_wnd_steps as u64)).min(srtt)
    }

    /// A D-SACK arrived (RFC 8985 section 6.2 step 4): widen the window by one step,
    /// at most once per round trip.
    pub fn on_dsack(&mut self, snd_una: u32, snd_max: u32) {
        self.reordering_seen = true;
        if snd_una >= self.dsack_round_end {
            self.reo_wnd_steps = (self.reo_wnd_steps + 1).min(255);
            self.dsack_round_end = snd_max;
        }
    }

    /// Whether a segment sent at `sent_at` (ending at `seq + 1`) went out before the
    /// most recently delivered one (RFC 8985 `RACK_sent_after`).
    pub fn sent_before(&self, seq: u32, sent_at: Time) -> bool {
        sent_at < self.xmit_ts || (sent_at == self.xmit_ts && seq + 1 < self.end_seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reordering_window_is_zero_in_recovery_until_reordering_is_seen() {
        let mut r = Rack::default();
        let ms = Time::from_millis;
        assert_eq!(r.reo_wnd(true, 0, 3, ms(40), ms(50)), Time::ZERO);
        assert_eq!(r.reo_wnd(false, 1, 3, ms(40), ms(50)), ms(10));
        r.on_dsack(0, 10);
        assert_eq!(r.reo_wnd(true, 5, 3, ms(40), ms(50)), ms(20));
        r.on_dsack(5, 20); // same round: no second step
        assert_eq!(r.reo_wnd(true, 5, 3, ms(40), ms(50)), ms(20));
    }

    #[test]
    fn ambiguous_retransmission_does_not_advance() {
        let mut r = Rack::default();
        let ms = Time::from_millis;
        r.advance(3, ms(100), true, ms(110), ms(40));
        assert!(!r.advanced);
        r.advance(3, ms(100), false, ms(150), ms(40));
        assert_eq!((r.xmit_ts, r.end_seq, r.rtt), (ms(100), 4, ms(50)));
        assert!(r.sent_before(2, ms(90)));
        assert!(!r.sent_before(5, ms(120)));
    }
}
