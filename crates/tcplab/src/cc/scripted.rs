//! A scripted sender for unit tests: feeds an algorithm ACKs with chosen RTT samples and
//! losses in the order [`crate::tcp::TcpSender`] calls its hooks (`in_ack_event`,
//! `pkts_acked`, then `cong_avoid`), keeping a window's worth of segments outstanding, so
//! that a window rule can be checked against its source without a network.
//!
//! Two notions of a round are offered: [`Script::round_trip`] acknowledges everything
//! outstanding, spread over one RTT (a fluid pipe, for time-based rules such as CUBIC's),
//! and [`Script::round`] acknowledges until the algorithm's own round ends, as in
//! [`super::round::RoundTracker`]: with the ACK of the first segment sent after the
//! previous round ended.

use super::{
    AckEvent, AckSample, CaEvent, CaState, CcState, CongestionControl, LossInfo, LossKind,
};
use crate::sim::Time;

pub struct Script {
    pub st: CcState,
    /// The segment whose ACK ends the current round.
    round_beg: u32,
    /// Send time of every segment, by number.
    sent_at: Vec<Time>,
}

impl Script {
    /// A sender with nothing sent yet; [`Script::start`] sends the first window.
    pub fn new(cwnd: f64, ssthresh: f64) -> Self {
        let mut st = CcState::new(cwnd, ssthresh, 1000, 1_000_000);
        st.cwnd_limited = true;
        Script {
            st,
            round_beg: 0,
            sent_at: Vec::new(),
        }
    }

    /// Initialises the algorithm and sends the first window.
    pub fn start(&mut self, cc: &mut dyn CongestionControl) {
        cc.init(&mut self.st);
        self.round_beg = self.st.snd_nxt;
        self.top_up();
    }

    /// Refills the window, as a cwnd-limited bulk sender would.
    fn top_up(&mut self) {
        let wnd = self.st.cwnd.floor() as u32;
        let limit = self.st.snd_una + wnd;
        while self.st.snd_nxt < limit {
            self.sent_at.push(self.st.now);
            self.st.snd_nxt += 1;
        }
        self.st.in_flight = self.st.snd_nxt - self.st.snd_una;
    }

    /// One ACK of one new segment, arriving 1 ms after the previous event.
    pub fn ack(&mut self, cc: &mut dyn CongestionControl, rtt: Option<Time>) {
        self.ack_after(cc, Time::from_millis(1), rtt);
    }

    /// One ACK of one new segment, arriving `gap` after the previous event.
    pub fn ack_after(&mut self, cc: &mut dyn CongestionControl, gap: Time, rtt: Option<Time>) {
        self.st.now += gap;
        self.st.snd_una += 1;
        self.st.in_flight = self.st.snd_nxt - self.st.snd_una;
        if let Some(r) = rtt {
            self.st.latest_rtt = r;
            self.st.min_rtt = self.st.min_rtt.min(r);
            // RFC 6298 smoothing with gain 1/8, enough for algorithms that read srtt.
            self.st.srtt = if self.st.srtt == Time::ZERO {
                r
            } else {
                Time((7 * self.st.srtt.nanos() + r.nanos()) / 8)
            };
        }
        let ack = self.st.snd_una;
        cc.in_ack_event(
            &mut self.st,
            &AckEvent {
                ack,
                newly_acked: 1,
                duplicate: false,
            },
        );
        cc.pkts_acked(&mut self.st, &AckSample { acked: 1, rtt });
        if self.st.ca_state != CaState::Recovery {
            cc.cong_avoid(&mut self.st, 1);
            self.st.cwnd = self.st.cwnd.max(1.0);
        }
        if self.st.snd_una > self.round_beg {
            self.round_beg = self.st.snd_nxt;
        }
        self.top_up();
    }

    /// One round trip of a fluid pipe: every segment outstanding now is acknowledged, the
    /// ACKs spread evenly over `rtt`, each measuring `rtt`.
    pub fn round_trip(&mut self, cc: &mut dyn CongestionControl, rtt: Time) {
        let n = self.st.in_flight.max(1);
        let gap = Time(rtt.0 / n as u64);
        for _ in 0..n {
            self.ack_after(cc, gap, Some(rtt));
        }
    }

    /// ACKs with sample `rtt` until one ends the algorithm's current round; returns how
    /// many ACKs that took.
    pub fn round(&mut self, cc: &mut dyn CongestionControl, rtt: Time) -> u32 {
        self.round_with(cc, |_| rtt)
    }

    /// Like [`Script::round`], with the sample of the `i`-th ACK of the round from `rtt(i)`.
    pub fn round_with(&mut self, cc: &mut dyn CongestionControl, rtt: impl Fn(u32) -> Time) -> u32 {
        let beg = self.round_beg;
        let mut n = 0;
        while self.st.snd_una <= beg {
            self.ack(cc, Some(rtt(n)));
            n += 1;
        }
        n
    }

    /// ACKs still to come in the current round, the round-ending one included.
    pub fn acks_left_in_round(&self) -> u32 {
        self.round_beg + 1 - self.st.snd_una
    }

    /// A loss response for the oldest outstanding segment, applied as the sender does:
    /// ssthresh from the algorithm, then (for fast retransmit) cwnd = ssthresh after
    /// recovery, or the algorithm's post-timeout window. Returns the new ssthresh.
    pub fn loss(&mut self, cc: &mut dyn CongestionControl, kind: LossKind) -> f64 {
        let seq = self.st.snd_una;
        let info = LossInfo {
            kind,
            seq,
            already_retransmitted: false,
            sent_at: self
                .sent_at
                .get(seq as usize)
                .copied()
                .unwrap_or(Time::ZERO),
        };
        let ssthresh = cc.ssthresh(&self.st, &info).max(1.0);
        self.st.ssthresh = ssthresh;
        match kind {
            LossKind::Timeout => {
                cc.cwnd_event(&mut self.st, CaEvent::Loss);
                self.st.cwnd = cc.cwnd_after_timeout();
                cc.set_state(&mut self.st, CaState::Loss);
                self.st.ca_state = CaState::Loss;
            }
            _ => {
                cc.set_state(&mut self.st, CaState::Recovery);
                self.st.ca_state = CaState::Recovery;
                self.st.cwnd = ssthresh;
            }
        }
        if let Some(t) = self.sent_at.get_mut(seq as usize) {
            *t = self.st.now;
        }
        self.round_beg = self.st.snd_nxt;
        ssthresh
    }

    /// Leaves recovery (the ACK of the retransmission arrived) and starts a new round; after
    /// a fast recovery the algorithm hears `CompleteCwr`, as from the sender.
    pub fn recover(&mut self, cc: &mut dyn CongestionControl) {
        let after_fast_recovery = self.st.ca_state == CaState::Recovery;
        cc.set_state(&mut self.st, CaState::Open);
        self.st.ca_state = CaState::Open;
        if after_fast_recovery {
            cc.cwnd_event(&mut self.st, CaEvent::CompleteCwr);
        }
        self.round_beg = self.st.snd_nxt;
    }

    /// A loss repaired by one fast recovery: returns the algorithm's ssthresh and leaves
    /// cwnd at it, as the sender does when recovery completes.
    pub fn fast_recovery(&mut self, cc: &mut dyn CongestionControl) -> f64 {
        let ssthresh = self.loss(cc, LossKind::FastRetransmit);
        self.recover(cc);
        ssthresh
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

/// A first loss of segment 0, sent at time zero, for calling `ssthresh` directly.
pub fn fresh_loss(kind: LossKind) -> LossInfo {
    LossInfo {
        kind,
        seq: 0,
        already_retransmitted: false,
        sent_at: Time::ZERO,
    }
}
