//! The TCP sender: windows, retransmission timer and loss recovery.
//!
//! Loss recovery follows RFC 5681 (Reno), RFC 6582 (NewReno) and classic Tahoe; the
//! window rules are delegated to a [`CongestionControl`]. Segments are numbered from 0.

use super::rto::RtoEstimator;
use super::timer::{Fired, LazyTimer};
use super::TcpConfig;
use crate::cc::{
    AckEvent, AckSample, CaEvent, CaState, CcState, CongestionControl, LossInfo, LossKind, LossTag,
    ProbePoint, Recovery, RetransmitProbe,
};
use crate::config::PartialAckTimer;
use crate::net::{FlowId, NodeId, Packet, PacketKind};
use crate::sim::Time;
use std::collections::VecDeque;

/// Per-segment bookkeeping, kept for every segment between `snd_una` and `snd_max`.
#[derive(Clone, Copy, Debug)]
struct SegInfo {
    sent_at: Time,
    retransmitted: bool,
}

/// Counters reported per flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub early_retransmits: u64,
    pub dupacks: u64,
    pub acks_received: u64,
    pub rtt_samples: u64,
    pub rtt_sum: f64,
}

/// One loss response, with the algorithm's own classification if it makes one. The
/// world matches the true cause from its drop log when the response is made.
#[derive(Clone, Debug, PartialEq)]
pub struct LossRecord {
    pub time: Time,
    pub seq: u32,
    pub kind: LossKind,
    pub cwnd_before: f64,
    pub ssthresh_after: f64,
    pub tag: Option<LossTag>,
}

pub struct TcpSender {
    pub flow: FlowId,
    src: NodeId,
    dst: NodeId,
    cfg: TcpConfig,
    cc: Box<dyn CongestionControl>,
    recovery: Recovery,
    st: CcState,
    snd_una: u32,
    snd_nxt: u32,
    snd_max: u32,
    /// Segments the application has made available (`u32::MAX` for bulk).
    app_limit: u32,
    /// The application's whole transfer, restored by `resume` after a `stop`.
    app_total: u32,
    /// Payload of the last segment of a finite transfer.
    last_payload: u32,
    segs: VecDeque<SegInfo>,
    dupacks: u32,
    in_fast_recovery: bool,
    first_partial_ack: bool,
    /// RFC 6582 `recover`: one past the highest segment sent when recovery began.
    recover: Option<u32>,
    /// New ACKs seen since the last retransmission (for Vegas's checks), 0 when idle.
    acks_since_retransmit: u8,
    rto: RtoEstimator,
    timer: LazyTimer,
    started: bool,
    pub stats: SenderStats,
    /// Loss responses made since the world last took them (it drains them after every
    /// call, into the `losses` table).
    pub losses: Vec<LossRecord>,
    /// Packets to transmit, drained by the world after every call.
    pub outbox: Vec<Packet>,
    timer_request: Option<Time>,
}

impl TcpSender {
    pub fn new(
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        cfg: &TcpConfig,
        cc: Box<dyn CongestionControl>,
        recovery: Recovery,
        total_bytes: Option<u64>,
    ) -> Self {
        let (app_limit, last_payload) = match total_bytes {
            None => (u32::MAX, cfg.mss),
            Some(b) => {
                let segs = b.div_ceil(cfg.mss as u64).min(u32::MAX as u64 - 1) as u32;
                let last = (b - (segs as u64 - 1) * cfg.mss as u64) as u32;
                (segs, last)
            }
        };
        let mut st = CcState::new(cfg.initial_cwnd, cfg.initial_ssthresh, cfg.mss, cfg.rwnd);
        st.rto = cfg.initial_rto;
        st.ack_stride = if cfg.delayed_ack { 2 } else { 1 };
        TcpSender {
            flow,
            src,
            dst,
            cc,
            recovery,
            st,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_limit,
            app_total: app_limit,
            last_payload,
            segs: VecDeque::with_capacity(64),
            dupacks: 0,
            in_fast_recovery: false,
            first_partial_ack: false,
            recover: None,
            acks_since_retransmit: 0,
            rto: RtoEstimator::new(
                cfg.min_rto,
                cfg.max_rto,
                cfg.initial_rto,
                cfg.clock_granularity,
            ),
            timer: LazyTimer::default(),
            started: false,
            stats: SenderStats::default(),
            losses: Vec::new(),
            outbox: Vec::with_capacity(8),
            timer_request: None,
            cfg: cfg.clone(),
        }
    }

    pub fn state(&self) -> &CcState {
        &self.st
    }

    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    pub fn recovery(&self) -> Recovery {
        self.recovery
    }

    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }

    /// Segments of a finite transfer, if it is one.
    pub fn total_segments(&self) -> Option<u32> {
        (self.app_limit != u32::MAX).then_some(self.app_limit)
    }

    pub fn last_payload(&self) -> u32 {
        self.last_payload
    }

    /// A time at which the world must deliver a timer event, if the last call set one.
    pub fn take_timer_request(&mut self) -> Option<Time> {
        self.timer_request.take()
    }

    /// The application starts: initialise the algorithm and send the first window. A
    /// later call, after [`stop`](Self::stop), resumes (an on/off schedule).
    pub fn start(&mut self, now: Time) {
        if self.started {
            self.resume(now);
            return;
        }
        self.started = true;
        self.refresh(now);
        self.cc.init(&mut self.st);
        self.cc.cwnd_event(&mut self.st, CaEvent::TxStart);
        self.try_send(now);
    }

    /// The application stops offering new data; outstanding data is still delivered.
    pub fn stop(&mut self, _now: Time) {
        self.app_limit = self.app_limit.min(self.snd_max);
    }

    /// The application offers data again after a stop. The connection keeps its state
    /// (cwnd, ssthresh, RTT estimates), as an NS-2 FTP source restarted on the same agent;
    /// the algorithm hears `TxStart` if nothing was in flight (Linux signals
    /// `CA_EVENT_TX_START` on the first send after idle).
    fn resume(&mut self, now: Time) {
        self.app_limit = self.app_total;
        self.refresh(now);
        if self.snd_nxt == self.snd_una {
            self.cc.cwnd_event(&mut self.st, CaEvent::TxStart);
        }
        self.try_send(now);
    }

    fn refresh(&mut self, now: Time) {
        self.st.now = now;
        self.st.snd_una = self.snd_una;
        self.st.snd_nxt = self.snd_nxt;
        self.st.in_flight = self.snd_nxt - self.snd_una;
        self.st.srtt = self.rto.srtt();
        self.st.rto = self.rto.rto();
    }

    fn set_ca_state(&mut self, s: CaState) {
        if self.st.ca_state != s {
            self.cc.set_state(&mut self.st, s);
            self.st.ca_state = s;
        }
    }

    fn arm_timer(&mut self, now: Time) {
        if let Some(at) = self.timer.set(now + self.rto.rto()) {
            self.timer_request = Some(at);
        }
    }

    fn seg(&self, seq: u32) -> Option<&SegInfo> {
        self.segs.get((seq - self.snd_una) as usize)
    }

    fn transmit(&mut self, seq: u32, now: Time) {
        let retransmit = seq < self.snd_max;
        if retransmit {
            let i = (seq - self.snd_una) as usize;
            self.segs[i] = SegInfo {
                sent_at: now,
                retransmitted: true,
            };
            self.stats.retransmissions += 1;
        } else {
            self.segs.push_back(SegInfo {
                sent_at: now,
                retransmitted: false,
            });
            self.snd_max = seq + 1;
        }
        let payload = if seq + 1 == self.app_limit && self.total_segments().is_some() {
            self.last_payload
        } else {
            self.cfg.mss
        };
        self.stats.segments_sent += 1;
        self.outbox.push(Packet {
            uid: 0,
            flow: self.flow,
            kind: PacketKind::Data,
            src: self.src,
            dst: self.dst,
            hop: 0,
            seq,
            ack: 0,
            size: payload + self.cfg.header_bytes,
            payload,
            stamp: now,
            retransmit,
            rwnd: 0,
        });
        if !self.timer.is_armed() {
            self.arm_timer(now);
        }
    }

    /// Sends new (or, after go-back-N, previously sent) segments while the window allows.
    fn try_send(&mut self, now: Time) {
        // `as u32` rounds toward zero (negatives and NaN to 0): the floor here, without
        // the library call `f64::floor` is on targets without SSE4.1.
        let wnd = (self.st.effective_window() as u32).max(1);
        while self.snd_nxt < self.app_limit && self.snd_nxt < self.snd_una.saturating_add(wnd) {
            self.transmit(self.snd_nxt, now);
            self.snd_nxt += 1;
        }
    }

    /// Whether the sender is using its whole congestion window (RFC 7661; Linux
    /// `tcp_is_cwnd_limited`), judged before an ACK shrinks the flight.
    fn cwnd_limited(&self) -> bool {
        let cwnd = self.st.cwnd as u32; // the floor (see try_send)
        let flight = self.snd_nxt - self.snd_una;
        cwnd <= self.st.rwnd && (flight >= cwnd || self.st.in_slow_start() && flight * 2 > cwnd)
    }

    /// Prefetches what processing an ACK reaches through pointers: the algorithm's state,
    /// both ends of the segment list and the outbox (world/prefetch.rs). It reads only
    /// this struct's own fields, which the caller has prefetched a little earlier.
    #[inline(always)]
    pub fn prefetch_buffers(&self) {
        use crate::sim::prefetch::{prefetch, prefetch_addr};
        let cc = &*self.cc as *const dyn CongestionControl as *const u8;
        prefetch_addr(cc);
        if std::mem::size_of_val(&*self.cc) > 64 {
            prefetch_addr(cc.wrapping_add(64));
        }
        if let (Some(first), Some(last)) = (self.segs.front(), self.segs.back()) {
            prefetch(first);
            prefetch(last);
        }
        prefetch_addr(self.outbox.as_ptr() as *const u8);
    }

    /// Processes an ACK from the receiver.
    pub fn on_ack(&mut self, now: Time, pkt: &Packet) {
        self.stats.acks_received += 1;
        self.st.rwnd = pkt.rwnd.max(1);
        let ack = pkt.ack;
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore (RFC 9293 3.10.7.4)
        }
        self.st.cwnd_limited = self.cwnd_limited();
        if ack > self.snd_una {
            self.on_new_ack(now, ack);
        } else if ack == self.snd_una && self.snd_una < self.snd_max {
            self.on_dupack(now, ack);
        }
        self.try_send(now);
    }

    fn on_new_ack(&mut self, now: Time, ack: u32) {
        let newly = ack - self.snd_una;
        let mut restart_timer = true;
        // Karn's rule (RFC 6298 section 3): no sample when the ACK covers a retransmitted
        // segment; otherwise time the newest segment acknowledged.
        let covers_retransmission = self.segs.range(..newly as usize).any(|s| s.retransmitted);
        let rtt = if covers_retransmission {
            None
        } else {
            self.seg(ack - 1).map(|s| now - s.sent_at)
        };
        self.segs.drain(..newly as usize);
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        if let Some(r) = rtt {
            self.rto.sample(r);
            self.st.latest_rtt = r;
            self.st.min_rtt = self.st.min_rtt.min(r);
            self.stats.rtt_samples += 1;
            self.stats.rtt_sum += r.as_secs_f64();
        }
        self.dupacks = 0;
        self.refresh(now);
        self.cc.in_ack_event(
            &mut self.st,
            &AckEvent {
                ack,
                newly_acked: newly,
                duplicate: false,
            },
        );
        self.cc
            .pkts_acked(&mut self.st, &AckSample { acked: newly, rtt });

        if self.in_fast_recovery {
            let full = self.recovery == Recovery::Reno || self.recover.is_none_or(|r| ack >= r);
            if full {
                // RFC 5681 step 6 / RFC 6582 step 3: deflate to ssthresh and leave recovery.
                self.in_fast_recovery = false;
                self.st.cwnd = self.st.ssthresh.max(1.0);
                self.set_ca_state(CaState::Open);
                self.cc.cwnd_event(&mut self.st, CaEvent::CompleteCwr);
            } else {
                // RFC 6582 step 4: partial ACK: retransmit the next hole, deflate by the
                // amount acknowledged and add back one segment; reset the timer on the first.
                self.transmit(self.snd_una, now);
                self.st.cwnd = (self.st.cwnd - newly as f64 + 1.0).max(1.0);
                let first = std::mem::take(&mut self.first_partial_ack);
                restart_timer =
                    first || self.cfg.partial_ack_timer == PartialAckTimer::SlowButSteady;
            }
        } else {
            self.cc.cong_avoid(&mut self.st, newly);
            self.st.cwnd = self.st.cwnd.max(1.0);
            if self.st.ca_state == CaState::Disorder
                || (self.st.ca_state == CaState::Loss && self.recover.is_none_or(|r| ack >= r))
            {
                self.set_ca_state(CaState::Open);
            }
        }

        if self.acks_since_retransmit > 0 {
            let n = self.acks_since_retransmit;
            self.acks_since_retransmit = if n >= 2 { 0 } else { n + 1 };
            self.probe(now, ProbePoint::NewAckAfterRetransmit(n));
        }
        // RFC 6298 section 5.2/5.3: stop the timer when all is acknowledged, else restart;
        // except that RFC 6582 (section 3.2 step 5, the "impatient" variant of section 4)
        // restarts it only on the first partial ACK of a recovery, so a window with many
        // holes ends in a timeout rather than repairing one hole per round trip for seconds.
        if self.snd_una == self.snd_max {
            self.timer.cancel();
        } else if restart_timer {
            self.arm_timer(now);
        }
    }

    fn on_dupack(&mut self, now: Time, ack: u32) {
        self.dupacks += 1;
        self.stats.dupacks += 1;
        self.refresh(now);
        self.cc.in_ack_event(
            &mut self.st,
            &AckEvent {
                ack,
                newly_acked: 0,
                duplicate: true,
            },
        );
        if self.in_fast_recovery {
            // RFC 5681 step 4: each further duplicate inflates the window by one segment.
            self.st.cwnd += 1.0;
            return;
        }
        // RFC 6582 section 3.2 step 1 (also NS-2 Reno's bugfix): a new fast retransmit
        // only once the ACK covers what was outstanding at the previous one.
        if self.dupacks == self.cfg.dupack_threshold && self.recover.is_none_or(|r| ack >= r) {
            self.loss_response(now, LossKind::FastRetransmit);
            return;
        }
        if self.dupacks < self.cfg.dupack_threshold && self.st.ca_state == CaState::Open {
            self.set_ca_state(CaState::Disorder);
        }
        // Vegas checks the oldest segment's fine-grained timer "when a duplicate ACK is
        // received" (000 section 2.2.3, 002 section 2; NS-2 on every one), which also
        // repairs a second loss of a window after fast recovery has ended.
        self.probe(now, ProbePoint::DupAck(self.dupacks));
    }

    /// Asks the algorithm whether to retransmit the oldest segment early (Vegas).
    fn probe(&mut self, now: Time, point: ProbePoint) {
        if self.snd_una >= self.snd_max {
            return;
        }
        let Some(seg) = self.seg(self.snd_una).copied() else {
            return;
        };
        let probe = RetransmitProbe {
            point,
            seq: self.snd_una,
            sent_at: seg.sent_at,
            already_retransmitted: seg.retransmitted,
        };
        self.refresh(now);
        if self.cc.retransmit_check(&self.st, &probe) {
            self.loss_response(now, LossKind::EarlyRetransmit);
        }
    }

    /// Fast (or early) retransmit of `snd_una` and the window reduction of the recovery mode.
    fn loss_response(&mut self, now: Time, kind: LossKind) {
        let seq = self.snd_una;
        let (already, sent_at) = self
            .seg(seq)
            .map_or((false, now), |s| (s.retransmitted, s.sent_at));
        self.refresh(now);
        let cwnd_before = self.st.cwnd;
        let ssthresh = self.cc.ssthresh(
            &self.st,
            &LossInfo {
                kind,
                seq,
                already_retransmitted: already,
                sent_at,
            },
        );
        self.st.ssthresh = ssthresh.max(1.0);
        self.recover = Some(self.snd_max);
        match kind {
            LossKind::EarlyRetransmit => self.stats.early_retransmits += 1,
            _ => self.stats.fast_retransmits += 1,
        }
        match self.recovery {
            Recovery::Tahoe => {
                // Tahoe: slow start from one segment, resending everything after the hole.
                self.st.cwnd = 1.0;
                self.snd_nxt = self.snd_una;
                self.set_ca_state(CaState::Loss);
                self.transmit(seq, now);
                self.snd_nxt = seq + 1;
            }
            Recovery::Reno | Recovery::NewReno => {
                // RFC 5681 step 3: cwnd = ssthresh + the segments known to have left.
                self.st.cwnd = self.st.ssthresh + self.dupacks as f64;
                self.in_fast_recovery = true;
                self.first_partial_ack = true;
                self.set_ca_state(CaState::Recovery);
                self.transmit(seq, now);
            }
        }
        // Restart the retransmission timer for the retransmission, as NS-2
        // (`reset_rtx_timer` in Reno's and Vegas's dupack actions), BSD and Linux do;
        // otherwise the timer still counts from the last new ACK and can expire before
        // the retransmission could have been acknowledged.
        self.arm_timer(now);
        self.acks_since_retransmit = 1;
        self.losses.push(LossRecord {
            time: now,
            seq,
            kind,
            cwnd_before,
            ssthresh_after: self.st.ssthresh,
            tag: self.cc.loss_tag(),
        });
    }

    /// Handles the retransmission timer event scheduled for `at`.
    pub fn on_timer(&mut self, at: Time, now: Time) {
        match self.timer.fire(at, now) {
            Fired::Stale => {}
            Fired::Rearm(t) => self.timer_request = Some(t),
            Fired::Expired => self.on_timeout(now),
        }
    }

    /// RFC 6298 section 5.4-5.6 and RFC 5681 eq. (4): back off, collapse the window and
    /// go back to the oldest unacknowledged segment.
    fn on_timeout(&mut self, now: Time) {
        if self.snd_una >= self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        let seq = self.snd_una;
        let (already, sent_at) = self
            .seg(seq)
            .map_or((false, now), |s| (s.retransmitted, s.sent_at));
        self.refresh(now);
        let cwnd_before = self.st.cwnd;
        // A timeout during fast recovery keeps the threshold already reduced for this loss
        // episode (as Linux's tcp_enter_loss does) instead of halving the inflated window.
        if !self.in_fast_recovery {
            let info = LossInfo {
                kind: LossKind::Timeout,
                seq,
                already_retransmitted: already,
                sent_at,
            };
            self.st.ssthresh = self.cc.ssthresh(&self.st, &info).max(1.0);
        }
        self.cc.cwnd_event(&mut self.st, CaEvent::Loss);
        self.st.cwnd = self.cc.cwnd_after_timeout().max(1.0);
        self.in_fast_recovery = false;
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        self.set_ca_state(CaState::Loss);
        self.rto.back_off();
        self.snd_nxt = self.snd_una;
        self.transmit(seq, now);
        self.snd_nxt = seq + 1;
        self.acks_since_retransmit = 1;
        self.arm_timer(now);
        self.losses.push(LossRecord {
            time: now,
            seq,
            kind: LossKind::Timeout,
            cwnd_before,
            ssthresh_after: self.st.ssthresh,
            tag: self.cc.loss_tag(),
        });
        self.try_send(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::reno::Reno;
    use std::sync::{Arc, Mutex};

    /// Reno's window rules, recording every retransmission probe.
    struct Probed {
        inner: Reno,
        probes: Arc<Mutex<Vec<ProbePoint>>>,
    }

    impl CongestionControl for Probed {
        fn name(&self) -> &'static str {
            "probed"
        }
        fn ssthresh(&mut self, st: &CcState, loss: &LossInfo) -> f64 {
            self.inner.ssthresh(st, loss)
        }
        fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
            self.inner.cong_avoid(st, acked)
        }
        fn retransmit_check(&mut self, _st: &CcState, probe: &RetransmitProbe) -> bool {
            self.probes.lock().unwrap().push(probe.point);
            false
        }
    }

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    fn ack(n: u32) -> Packet {
        Packet {
            uid: 0,
            flow: 0,
            kind: PacketKind::Ack,
            src: 1,
            dst: 0,
            hop: 0,
            seq: n.saturating_sub(1),
            ack: n,
            size: 40,
            payload: 0,
            stamp: Time::ZERO,
            retransmit: false,
            rwnd: 1000,
        }
    }

    /// A Reno sender with 10 segments in flight from time 0.
    fn sender() -> (TcpSender, Arc<Mutex<Vec<ProbePoint>>>) {
        let probes = Arc::new(Mutex::new(Vec::new()));
        let cc = Probed {
            inner: Reno::new(Recovery::Reno),
            probes: probes.clone(),
        };
        let cfg = TcpConfig {
            initial_cwnd: 10.0,
            ..TcpConfig::default()
        };
        let mut s = TcpSender::new(0, 0, 1, &cfg, Box::new(cc), Recovery::Reno, None);
        s.start(Time::ZERO);
        (s, probes)
    }

    #[test]
    fn every_duplicate_ack_outside_recovery_is_probed() {
        use ProbePoint::*;
        let (mut s, probes) = sender();
        s.on_ack(ms(100), &ack(1)); // segment 1 is lost
        s.on_ack(ms(101), &ack(1));
        s.on_ack(ms(102), &ack(1));
        assert_eq!(*probes.lock().unwrap(), [DupAck(1), DupAck(2)]);
        s.on_ack(ms(103), &ack(1)); // the third starts fast retransmit instead
        assert_eq!(s.stats.fast_retransmits, 1);
        probes.lock().unwrap().clear();
        // The retransmission's ACK reveals a second hole at 5 and ends Reno's recovery;
        // a second fast retransmit in the same window is not allowed (5 < recover), so
        // only the probes can repair it before a timeout.
        s.on_ack(ms(200), &ack(5));
        for i in 0..4 {
            s.on_ack(ms(201 + i), &ack(5));
        }
        assert_eq!(
            *probes.lock().unwrap(),
            [
                NewAckAfterRetransmit(1),
                DupAck(1),
                DupAck(2),
                DupAck(3),
                DupAck(4)
            ]
        );
        assert_eq!(s.stats.fast_retransmits, 1);
    }

    #[test]
    fn fast_retransmit_restarts_the_retransmission_timer() {
        let (mut s, _) = sender();
        s.on_ack(ms(100), &ack(1)); // RTT 100 ms: RTO 300 ms, timer due at 400 ms
        let due = s
            .take_timer_request()
            .expect("timer moved earlier than 1 s");
        assert_eq!(due, ms(400));
        for t in [300, 301, 302] {
            s.on_ack(ms(t), &ack(1));
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        // At 400 ms the retransmission sent at 302 ms cannot have been acknowledged yet.
        s.on_timer(due, ms(400));
        assert_eq!(s.stats.timeouts, 0);
        assert_eq!(s.take_timer_request(), Some(ms(602)));
    }
}
