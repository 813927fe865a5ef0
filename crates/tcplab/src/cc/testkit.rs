//! A scripted sender for unit tests: it acknowledges segments one per ACK with a chosen
//! RTT and calls an algorithm's hooks in the order [`crate::tcp::TcpSender`] does, so a
//! window rule can be checked against its source without a network.

use super::{
    AckEvent, AckSample, CaEvent, CaState, CcState, CongestionControl, LossInfo, LossKind,
};
use crate::sim::Time;

pub struct Pipe {
    pub st: CcState,
}

impl Pipe {
    /// A sender with `cwnd` segments outstanding.
    pub fn new(cwnd: f64, ssthresh: f64) -> Pipe {
        let mut st = CcState::new(cwnd, ssthresh, 1000, 1_000_000);
        st.snd_nxt = cwnd.floor() as u32;
        st.in_flight = st.snd_nxt;
        Pipe { st }
    }

    pub fn init(&mut self, cc: &mut dyn CongestionControl) {
        cc.init(&mut self.st);
    }

    /// The next ACK: one segment acknowledged, measured `rtt`. The window is refilled
    /// afterwards, as a cwnd-limited bulk sender would.
    pub fn ack(&mut self, cc: &mut dyn CongestionControl, rtt: Time) {
        let st = &mut self.st;
        st.snd_una += 1;
        st.in_flight = st.snd_nxt - st.snd_una;
        st.latest_rtt = rtt;
        st.min_rtt = st.min_rtt.min(rtt);
        // RFC 6298 smoothing with gain 1/8, enough for algorithms that read srtt.
        st.srtt = if st.srtt == Time::ZERO {
            rtt
        } else {
            Time((st.srtt.0 * 7 + rtt.0) / 8)
        };
        st.cwnd_limited = true;
        let ack = st.snd_una;
        cc.in_ack_event(
            st,
            &AckEvent {
                ack,
                newly_acked: 1,
                duplicate: false,
            },
        );
        cc.pkts_acked(
            st,
            &AckSample {
                acked: 1,
                rtt: Some(rtt),
            },
        );
        cc.cong_avoid(st, 1);
        st.cwnd = st.cwnd.max(1.0);
        st.snd_nxt = st.snd_nxt.max(st.snd_una + st.cwnd.floor() as u32);
        st.in_flight = st.snd_nxt - st.snd_una;
    }

    /// One round trip: every segment outstanding now is acknowledged, the ACKs spread
    /// evenly over `rtt`, each measuring `rtt`.
    pub fn round(&mut self, cc: &mut dyn CongestionControl, rtt: Time) {
        let n = self.st.in_flight.max(1);
        let step = Time(rtt.0 / n as u64);
        for _ in 0..n {
            self.st.now += step;
            self.ack(cc, rtt);
        }
    }

    /// A loss repaired by one fast recovery: returns the algorithm's ssthresh and leaves
    /// cwnd at it, as the sender does when recovery completes.
    pub fn loss(&mut self, cc: &mut dyn CongestionControl) -> f64 {
        let info = LossInfo {
            kind: LossKind::FastRetransmit,
            seq: self.st.snd_una,
            already_retransmitted: false,
            sent_at: Time::ZERO,
        };
        let ss = cc.ssthresh(&self.st, &info).max(1.0);
        self.st.ssthresh = ss;
        cc.set_state(&mut self.st, CaState::Recovery);
        self.st.ca_state = CaState::Recovery;
        self.st.cwnd = ss;
        cc.set_state(&mut self.st, CaState::Open);
        self.st.ca_state = CaState::Open;
        cc.cwnd_event(&mut self.st, CaEvent::CompleteCwr);
        ss
    }

    /// The value an algorithm reports for one of its plotted variables.
    pub fn var(cc: &dyn CongestionControl, name: &str) -> f64 {
        let mut out = Vec::new();
        cc.variables(&mut out);
        out.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("variable {name} not reported"))
    }
}
