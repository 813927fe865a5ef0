//! The TCP sender: windows, retransmission timer and loss recovery.
//!
//! Two recovery engines share the sending, timing and RTT machinery here:
//! - NS-2's one-way agents (this file): Tahoe, Reno (RFC 5681) and NewReno (RFC 6582) on
//!   cumulative ACKs, go-back-N after a timeout;
//! - a scoreboard of every outstanding segment (scoreboard.rs) with SACK, RFC 6675 or PRR
//!   recovery, RACK-TLP and undo, as Linux recovers (recovery.rs).
//!
//! The window rules are delegated to a [`CongestionControl`]. Segments are numbered from 0.

use super::pacing::{self, Pacer};
use super::rack::Rack;
use super::rate::RateEstimator;
use super::sack::AckOptions;
use super::scoreboard::{Scoreboard, EVER_RETRANS, PUSHED};
use super::timer::{Fired, LazyTimer};
use super::tso_defer;
use super::TcpConfig;
use crate::cc::{
    AckEvent, AckSample, CaEvent, CaState, CcState, CongestionControl, LossInfo, LossKind, LossTag,
    ProbePoint, RateSample, Recovery, RetransmitProbe,
};
use crate::config::{AppPush, PartialAckTimer, WindowGrowth};
use crate::net::{FlowId, NodeId, Packet, PacketKind};
use crate::rto::RtoEstimator;
use crate::sim::Time;

/// Bytes of one skb a bulk writer queues: the device's 64 KB GSO limit less the room Linux
/// keeps for headers (`sk_gso_max_size`, `tcp_xmit_size_goal`).
const GSO_MAX_BYTES: u32 = 65_536 - 321;

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
    /// Tail loss probes sent (RFC 8985 section 7).
    pub loss_probes: u64,
    /// Window reductions undone because D-SACKs or timestamps proved them spurious.
    pub undos: u64,
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

/// What the one retransmission timer is counting down to (Linux multiplexes `icsk_pending`
/// the same way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TimerKind {
    Rto,
    /// RACK's reordering window (RFC 8985 section 6.3).
    Reorder,
    /// A tail loss probe (RFC 8985 section 7.2).
    Probe,
}

pub struct TcpSender {
    pub flow: FlowId,
    src: NodeId,
    dst: NodeId,
    pub(super) cfg: TcpConfig,
    pub(super) cc: Box<dyn CongestionControl>,
    pub(super) recovery: Recovery,
    pub(super) st: CcState,
    pub(super) snd_una: u32,
    pub(super) snd_nxt: u32,
    pub(super) snd_max: u32,
    /// Segments the application has made available (`u32::MAX` for bulk).
    pub(super) app_limit: u32,
    /// The application's whole transfer, restored by `resume` after a `stop`.
    app_total: u32,
    /// Payload of the last segment of a finite transfer.
    last_payload: u32,
    pub(super) sb: Scoreboard,
    pub(super) dupacks: u32,
    in_fast_recovery: bool,
    first_partial_ack: bool,
    /// RFC 6582 `recover`: one past the highest segment sent when recovery began.
    recover: Option<u32>,
    /// New ACKs seen since the last retransmission (for Vegas's checks), 0 when idle.
    acks_since_retransmit: u8,
    pub(super) rto: RtoEstimator,
    /// Linux `rtt_seq`: the RTO estimator's round ends when data sent after it is acked.
    pub(super) rtt_seq: u32,
    pub(super) timer: LazyTimer,
    pub(super) timer_kind: TimerKind,
    started: bool,
    /// Scoreboard recovery: Linux `high_seq`, the end of the current loss episode.
    pub(super) high_seq: u32,
    /// PRR (RFC 6937) and undo state: the window and threshold before the reduction.
    pub(super) prior_cwnd: f64,
    pub(super) prior_ssthresh: f64,
    pub(super) prr_delivered: u32,
    pub(super) prr_out: u32,
    /// Undo (Linux `undo_marker`, `undo_retrans`, `retrans_stamp`).
    pub(super) undo_marker: Option<u32>,
    pub(super) undo_retrans: i64,
    pub(super) retrans_stamp: Option<Time>,
    pub(super) rack: Rack,
    /// The tail loss probe outstanding: `snd_max` when it was sent and whether it was a
    /// retransmission (Linux `tlp_high_seq`, `tlp_retrans`).
    pub(super) tlp_high_seq: Option<u32>,
    pub(super) tlp_retrans: bool,
    /// Segments sent while handling the current event (for `max_burst`).
    event_sends: u32,
    /// TSO deferral held new data back at the last opportunity while cwnd was the smaller
    /// window: the flow counts as cwnd-limited (Linux `is_cwnd_limited`).
    held_by_cwnd: bool,
    /// The timestamp the latest ACK echoed (RFC 7323 TSecr).
    pub(super) latest_echo: Time,
    pub stats: SenderStats,
    /// Loss responses made since the world last took them (it drains them after every
    /// call, into the `losses` table).
    pub losses: Vec<LossRecord>,
    /// Packets to transmit, drained by the world after every call.
    pub outbox: Vec<Packet>,
    timer_request: Option<Time>,
    /// The algorithm sets cwnd and the pacing rate through `cong_control`
    /// ([`CongestionControl::controls_rate`]), so the sender's own window rules stand aside.
    pub(super) rate_driven: bool,
    /// Pacing (pacing.rs), for a flow that is rate-driven or has the `pacing` option.
    pub(super) pacer: Option<Pacer>,
    /// Delivery-rate estimation (rate.rs), for a paced flow.
    pub(super) rate: Option<Box<RateEstimator>>,
    /// A pacing wake-up the world must schedule, if the last call asked for one.
    pace_request: Option<Time>,
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
        let initial_cwnd = cfg.initial_cwnd.min(cfg.rwnd as f64);
        let mut st = CcState::new(initial_cwnd, cfg.initial_ssthresh, cfg.mss, cfg.rwnd);
        st.rto = cfg.initial_rto;
        st.ack_stride = if cfg.delayed_ack { 2 } else { 1 };
        st.pacing_quantum = cfg.pacing_quantum;
        let rate_driven = cc.controls_rate();
        let paced = rate_driven || cfg.pacing;
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
            sb: Scoreboard::with_capacity(64),
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
            )
            .with_kind(cfg.rto_estimator),
            rtt_seq: 0,
            timer: LazyTimer::default(),
            timer_kind: TimerKind::Rto,
            started: false,
            high_seq: 0,
            prior_cwnd: 0.0,
            prior_ssthresh: 0.0,
            prr_delivered: 0,
            prr_out: 0,
            undo_marker: None,
            undo_retrans: -1,
            retrans_stamp: None,
            rack: Rack::default(),
            tlp_high_seq: None,
            tlp_retrans: false,
            event_sends: 0,
            held_by_cwnd: false,
            latest_echo: Time::ZERO,
            stats: SenderStats::default(),
            losses: Vec::new(),
            outbox: Vec::with_capacity(8),
            timer_request: None,
            rate_driven,
            pacer: paced.then(|| Pacer::new(cfg.pacing_unit, cfg.pacing_quantum, cfg.mss)),
            rate: paced.then(Box::default),
            pace_request: None,
            cfg: cfg.clone(),
        }
    }

    /// Whether the connection uses RFC 7323 timestamps (pcap traces show the option).
    pub fn timestamps(&self) -> bool {
        self.cfg.timestamps
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

    /// A time at which the world must deliver a pacing event, if the last call asked.
    pub fn take_pace_request(&mut self) -> Option<Time> {
        self.pace_request.take()
    }

    /// The algorithm's variables, then for a paced flow its delivery rate (once measured)
    /// and pacing rate (once limited), bytes of payload per second as Linux's `tcp_info`.
    pub fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        self.cc.variables(out);
        if let Some(rate) = &self.rate {
            if let Some(v) = rate.delivery_rate(self.cfg.mss) {
                out.push(("delivery_rate", v));
            }
            if self.st.pacing_rate.is_finite() {
                out.push(("pacing_rate", self.st.pacing_rate));
            }
        }
    }

    /// The application starts: initialise the algorithm and send the first window. A
    /// later call, after [`stop`](Self::stop), resumes (an on/off schedule).
    pub fn start(&mut self, now: Time) {
        self.event_sends = 0;
        if self.started {
            self.resume(now);
            return;
        }
        self.started = true;
        self.refresh(now);
        self.cc.init(&mut self.st);
        self.clamp_cwnd();
        self.cc.cwnd_event(&mut self.st, CaEvent::TxStart);
        self.send(now);
        self.mark_pushes(0, false);
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
        // The application writes into an empty send queue (Linux checks then).
        self.check_app_limited();
        self.refresh(now);
        if self.snd_nxt == self.snd_una {
            self.cc.cwnd_event(&mut self.st, CaEvent::TxStart);
        }
        self.send(now);
    }

    #[inline]
    pub(super) fn refresh(&mut self, now: Time) {
        self.st.now = now;
        self.st.snd_una = self.snd_una;
        self.st.snd_nxt = self.snd_nxt;
        self.st.in_flight = self.flight();
        self.st.srtt = self.rto.srtt();
        self.st.rto = self.rto.rto();
        if let Some(r) = &self.rate {
            // (A flow that estimates rates paces too.)
            self.st.pacing_next = self.pacer.as_ref().map_or(Time::ZERO, Pacer::next_send);
            self.st.delivered = r.delivered;
            self.st.delivered_time = r.delivered_time;
            self.st.lost = r.lost;
            self.st.app_limited = r.app_limited;
        }
    }

    pub(super) fn set_ca_state(&mut self, s: CaState) {
        if self.st.ca_state != s {
            self.cc.set_state(&mut self.st, s);
            self.st.ca_state = s;
        }
    }

    /// A timeout's `TCP_CA_Loss`: Linux's `tcp_enter_loss` calls `tcp_set_ca_state` on every
    /// timeout, and that calls the algorithm's `set_state` even when the state is Loss
    /// already (CUBIC's `bictcp_reset` then runs again). The scoreboard (Linux) path only.
    pub(super) fn enter_loss_state(&mut self) {
        self.cc.set_state(&mut self.st, CaState::Loss);
        self.st.ca_state = CaState::Loss;
    }

    pub(super) fn arm_timer(&mut self, now: Time) {
        self.arm(TimerKind::Rto, now + self.rto.rto());
    }

    pub(super) fn arm(&mut self, kind: TimerKind, at: Time) {
        self.timer_kind = kind;
        if let Some(at) = self.timer.set(at) {
            self.timer_request = Some(at);
        }
    }

    pub(super) fn transmit(&mut self, seq: u32, now: Time) {
        let retransmit = seq < self.snd_max;
        if let Some(r) = &mut self.rate {
            r.on_send(seq, now, retransmit, self.sb.is_empty());
        }
        let flags = if retransmit {
            self.sb.retransmitted(seq, now);
            self.stats.retransmissions += 1;
            let pushed = self.sb.get(seq).is_some_and(|s| s.has(PUSHED));
            Packet::RETRANSMIT | if pushed { Packet::PUSH } else { 0 }
        } else {
            self.sb.push(now);
            self.snd_max = seq + 1;
            if self.ends_the_application_data(seq) {
                self.sb.mark_pushed(seq);
                Packet::PUSH
            } else {
                0
            }
        };
        let payload = if seq + 1 == self.app_limit && self.total_segments().is_some() {
            self.last_payload
        } else {
            self.cfg.mss
        };
        self.stats.segments_sent += 1;
        self.event_sends += 1;
        self.st.last_send = now;
        if let Some(opens) = self.pacer.as_ref().map(|p| p.opens_packet(now)) {
            let goal = if opens { self.gso_packet_segs() } else { 0 };
            let rate = self.st.pacing_rate;
            if let Some(p) = &mut self.pacer {
                p.on_send(now, payload, rate, goal);
            }
        }
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
            flags,
            rwnd: 0,
        });
        if !self.timer.is_armed() {
            self.arm_timer(now);
        }
    }

    /// Sends what the window allows with the flow's recovery engine.
    pub(super) fn send(&mut self, now: Time) {
        if self.uses_scoreboard() {
            self.send_from_scoreboard(now);
        } else {
            self.try_send(now);
        }
    }

    /// How many more segments may go out back to back in response to the current event
    /// (NS-2's `maxburst_`, counting retransmissions too).
    pub(super) fn burst_limit(&self) -> u32 {
        self.max_burst().saturating_sub(self.event_sends)
    }

    /// The configured `max_burst` (0 in the configuration: no limit).
    fn max_burst(&self) -> u32 {
        match self.cfg.max_burst {
            0 => u32::MAX,
            n => n,
        }
    }

    /// Sends new (or, after go-back-N, previously sent) segments while the window allows.
    #[inline(always)]
    fn try_send(&mut self, now: Time) {
        // `as u32` rounds toward zero (negatives and NaN to 0): the floor here, without
        // the library call `f64::floor` is on targets without SSE4.1.
        let wnd = (self.st.effective_window() as u32).max(1);
        let mut budget = self.burst_limit();
        if self.cfg.tso_defer {
            let in_flight = self.snd_nxt - self.snd_una;
            let cwnd_room = (self.st.cwnd as u32).max(1).saturating_sub(in_flight);
            let rwnd_room = self.st.rwnd.saturating_sub(in_flight);
            budget = budget.min(self.deferral_allowance(now, cwnd_room, rwnd_room));
        }
        while self.snd_nxt < self.app_limit
            && self.snd_nxt < self.snd_una.saturating_add(wnd)
            && budget > 0
            && !self.pacing_holds(now)
        {
            self.transmit(self.snd_nxt, now);
            self.snd_nxt += 1;
            budget -= 1;
        }
        if self.snd_nxt >= self.app_limit {
            self.check_app_limited();
        }
    }

    /// Whether pacing holds the next segment back at `now`; if so, asks for a wake-up at
    /// its slot. Asked last, when the window would let the segment go.
    #[inline]
    pub(super) fn pacing_holds(&mut self, now: Time) -> bool {
        match &self.pacer {
            Some(p) if !p.may_send(now) => self.hold_for_pacing(),
            _ => false,
        }
    }

    /// Pacing holds the next segment back: a wake-up at its slot. (Kept out of line: the
    /// send loops of flows that do not pace stay as small as they were.)
    #[inline(never)]
    fn hold_for_pacing(&mut self) -> bool {
        if let Some(at) = self.pacer.as_mut().and_then(Pacer::request_wakeup) {
            self.pace_request = Some(at);
        }
        true
    }

    /// Handles the pacing event scheduled for `at`: sends what the window allows.
    #[inline(never)]
    pub fn on_pace_timer(&mut self, at: Time, now: Time) {
        self.event_sends = 0;
        if self.pacer.as_mut().is_some_and(|p| p.on_wakeup(at)) {
            let sent_before = self.outbox.len();
            self.send(now);
            self.mark_pushes(sent_before, false);
        }
    }

    /// The application has nothing more to send: if the window is open and every lost
    /// segment was resent, the coming rate samples are application-limited (draft-cheng
    /// section 3.4; Linux `tcp_rate_check_app_limited`).
    #[inline(never)]
    pub(super) fn check_app_limited(&mut self) {
        let in_flight = self.flight();
        let window_open = (in_flight as f64) < self.st.cwnd && self.sb.lost <= self.sb.retrans;
        if let Some(r) = self.rate.as_deref_mut().filter(|_| window_open) {
            r.mark_app_limited(in_flight);
        }
    }

    /// `n` segments were marked lost; `on_ack` when it happened while processing an ACK,
    /// whose rate sample then counts them (Linux counts `tp->lost` from timers too, but
    /// a sample's losses only from its ACK).
    pub(super) fn note_lost(&mut self, n: u32, on_ack: bool) {
        if let Some(r) = &mut self.rate {
            if on_ack {
                r.on_lost(n);
            } else {
                r.lost += n as u64;
            }
            self.st.lost = r.lost;
        }
    }

    /// The end of an ACK for rate estimation and pacing: the rate sample (Linux
    /// `tcp_rate_gen`), then for a rate-driven algorithm its `cong_control`, unless the
    /// ACK is older than `snd_una` (`current` false), whose sample is dropped as Linux
    /// does. Returns whether the algorithm set the window, which the caller's own rules
    /// then leave alone.
    #[inline]
    pub(super) fn control_rate(
        &mut self,
        now: Time,
        rtt: Option<Time>,
        prior_in_flight: u32,
        current: bool,
    ) -> bool {
        self.rate.is_some() && self.sample_rate(now, rtt, prior_in_flight, current)
    }

    /// [`control_rate`](Self::control_rate) for a flow that estimates rates (out of line,
    /// as [`hold_for_pacing`](Self::hold_for_pacing)).
    #[inline(never)]
    fn sample_rate(
        &mut self,
        now: Time,
        rtt: Option<Time>,
        prior_in_flight: u32,
        current: bool,
    ) -> bool {
        let Some(r) = self.rate.as_deref_mut() else {
            return false;
        };
        let rs: RateSample = r.sample(now, self.st.min_rtt, rtt, prior_in_flight);
        if !self.rate_driven || !current {
            return false;
        }
        self.refresh(now);
        self.cc.cong_control(&mut self.st, &rs);
        if let Some(r) = &mut self.rate {
            r.app_limited = self.st.app_limited;
        }
        true
    }

    /// Linux `tcp_update_pacing_rate`, after the window rules of an algorithm that does not
    /// set the pacing rate itself.
    #[inline]
    pub(super) fn update_default_pacing(&mut self) {
        if self.pacer.is_some() && !self.rate_driven {
            self.set_default_pacing_rate();
        }
    }

    #[inline(never)]
    fn set_default_pacing_rate(&mut self) {
        self.st.pacing_rate = pacing::default_rate(&self.st, self.sb.len());
    }

    /// Segments in flight: the scoreboard's pipe (RFC 6675, Linux `tcp_packets_in_flight`),
    /// or for NS-2's agents everything between `snd_una` and `snd_nxt`.
    fn flight(&self) -> u32 {
        if self.uses_scoreboard() {
            self.sb.in_flight()
        } else {
            self.snd_nxt - self.snd_una
        }
    }

    /// Recovery on the scoreboard (RFC 6675, PRR), else NS-2's agents.
    pub(super) fn uses_scoreboard(&self) -> bool {
        self.recovery.uses_scoreboard()
    }

    /// Whether the sender is using its whole congestion window (RFC 7661; Linux
    /// `tcp_is_cwnd_limited`), judged before an ACK shrinks the flight.
    fn cwnd_limited(&self) -> bool {
        let cwnd = self.st.cwnd as u32; // the floor (see try_send)
        let flight = self.flight();
        cwnd <= self.st.rwnd
            && (flight >= cwnd || self.held_by_cwnd || self.st.in_slow_start() && flight * 2 > cwnd)
    }

    /// The segments an ACK counts for window growth: one per ACK (NS-2's `opencwnd`), or
    /// those it covers, at most RFC 3465's L if one is set.
    pub(super) fn growth_credit(&self, acked: u32) -> u32 {
        match self.cfg.window_growth {
            WindowGrowth::PerAck => 1,
            WindowGrowth::Bytes if self.cfg.abc_limit > 0 => acked.min(self.cfg.abc_limit),
            WindowGrowth::Bytes => acked,
        }
    }

    /// The window never exceeds what the receiver allows (cwnd above rwnd could never be
    /// used, and would burst out when rwnd opens: RFC 7661 section 4's concern; Linux
    /// bounds it with `snd_cwnd_clamp`) and is at least one segment (RFC 5681 section 3.1's
    /// loss window).
    pub(super) fn clamp_cwnd(&mut self) {
        self.st.cwnd = self.st.cwnd.min(self.st.rwnd as f64).max(1.0);
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
        if let (Some(first), Some(last)) = (self.sb.front(), self.sb.back()) {
            prefetch(first);
            prefetch(last);
        }
        prefetch_addr(self.outbox.as_ptr() as *const u8);
    }

    /// The new segment `seq` is the last of a finite transfer, whose application's last
    /// write ends with PSH (`app_push` "burst" or "gso").
    fn ends_the_application_data(&self, seq: u32) -> bool {
        self.cfg.app_push != AppPush::None && self.total_segments() == Some(seq + 1)
    }

    /// `app_push = "burst"`: marks with PSH the last new segment that the ACK just
    /// handled sent, if it sent two or more (the outbox holds them from `from` on). An
    /// approximation of Linux's rule (`"gso"`, below): the test bed's sender ends 99 % of its
    /// bursts of two or four with PSH but only 1-3 % of its single segments and bursts of
    /// three or five (docs/kernel.md, "Where the bed's PSH comes from").
    #[inline(never)]
    fn push_at_burst_end(&mut self, from: usize) {
        let mut fresh = self.outbox[from..]
            .iter_mut()
            .rev()
            .filter(|p| p.is_data() && !p.retransmit());
        if let (Some(last), Some(_)) = (fresh.next(), fresh.next()) {
            last.flags |= Packet::PUSH;
            self.sb.mark_pushed(last.seq);
        }
    }

    /// Marks PSH on the new segments just sent (the outbox from `from` on) as `app_push`
    /// says: "gso" at every transmission, "burst" only on what an ACK triggered. Inlined so
    /// that the ns2 path ("none") pays one comparison per ACK, not a call.
    #[inline(always)]
    fn mark_pushes(&mut self, from: usize, ack_triggered: bool) {
        match self.cfg.app_push {
            AppPush::Gso => self.push_gso_packets(from),
            AppPush::Burst if ack_triggered => self.push_at_burst_end(from),
            AppPush::Burst | AppPush::None => {}
        }
    }

    /// `app_push = "gso"`: the new segments just sent (the outbox from `from` on) leave as
    /// GSO packets, and the last segment of every packet of two or more carries PSH (Linux
    /// `__tcp_transmit_skb`); every other segment of a packet says that more follow
    /// (`GSO_MORE`). Linux cuts each packet off the head of its 64 KB write-queue
    /// skb as it sends (`tcp_mss_split_point`): at most the size goal and half the window,
    /// never across an skb's end, so a packet starts where the last transmission stopped.
    #[inline(never)]
    fn push_gso_packets(&mut self, from: usize) {
        let cap = self.gso_packet_segs();
        let skb = self.skb_segs();
        // The open packet: its last segment's outbox index, that segment and its length.
        let mut open: Option<(usize, u32, u32)> = None;
        for i in from..self.outbox.len() {
            let p = &self.outbox[i];
            if !p.is_data() || p.retransmit() {
                continue;
            }
            let seq = p.seq;
            match open {
                Some((prev, last, len))
                    if seq == last + 1 && len < cap && !seq.is_multiple_of(skb) =>
                {
                    self.outbox[prev].flags |= Packet::GSO_MORE;
                    open = Some((i, seq, len + 1));
                }
                _ => {
                    self.close_gso_packet(open);
                    open = Some((i, seq, 1));
                }
            }
        }
        self.close_gso_packet(open);
    }

    /// PSH on the last segment of a GSO packet (outbox index, segment, length) of two or more.
    fn close_gso_packet(&mut self, packet: Option<(usize, u32, u32)>) {
        if let Some((i, seq, _)) = packet.filter(|&(_, _, len)| len >= 2) {
            self.outbox[i].flags |= Packet::PUSH;
            self.sb.mark_pushed(seq);
        }
    }

    /// Segments of one skb a bulk writer queues (`tcp_xmit_size_goal`: 64 KB, at most half
    /// the receiver's window).
    fn skb_segs(&self) -> u32 {
        (GSO_MAX_BYTES / self.cfg.mss.max(1))
            .min(self.st.rwnd / 2)
            .max(1)
    }

    /// Segments of one GSO packet: the size goal, at most half the window (Linux
    /// `tcp_cwnd_test`'s quota, which `tcp_mss_split_point` cuts packets to), and at most
    /// `max_burst` when one is set: a packet's segments leave back to back, so a larger one
    /// would break the configured limit (a paced flow at 50 Mb/s has a goal of 4 segments).
    fn gso_packet_segs(&self) -> u32 {
        self.gso_segs()
            .min(((self.st.cwnd as u32) / 2).max(1))
            .min(self.max_burst())
    }

    /// Linux's GSO size goal in segments (`tcp_tso_autosize`): the pacing rate's bytes per
    /// 2^-10 s (`sk_pacing_shift` 10), plus 64 KB >> (min RTT in us >> 9) on paths of under
    /// 16 ms (`tcp_tso_rtt_log` 9, Linux >= 5.18), at least `tcp_min_tso_segs` (2), at most 64.
    fn gso_segs(&self) -> u32 {
        let rate = if self.st.pacing_rate.is_finite() && self.st.pacing_rate > 0.0 {
            self.st.pacing_rate
        } else {
            pacing::default_rate(&self.st, self.sb.len())
        };
        if !rate.is_finite() {
            return 2; // no RTT measured yet
        }
        let mut bytes = rate / 1024.0;
        let rtt_log = (self.st.min_rtt.nanos() / 1000) >> 9;
        if self.st.min_rtt != Time::MAX && rtt_log < 32 {
            bytes += f64::from(65_536u32 >> rtt_log);
        }
        let per_shift = bytes.min(f64::from(GSO_MAX_BYTES)) / f64::from(self.st.mss.max(1));
        (per_shift as u32).clamp(2, 64)
    }

    /// How many of the new segments that the congestion window (`cwnd_room`) and the
    /// receiver's (`rwnd_room`) let out may leave now: all of them, unless `tso_defer` holds
    /// some back for an ACK due soon (tso_defer.rs). Records whether that left the flow
    /// cwnd-limited. A paced flow sends at its slots instead (tcp/pacing.rs).
    #[inline(never)]
    pub(super) fn deferral_allowance(&mut self, now: Time, cwnd_room: u32, rwnd_room: u32) -> u32 {
        let room = cwnd_room.min(rwnd_room);
        if self.pacer.is_some() {
            return room;
        }
        let srtt = self.rto.srtt();
        let skb_segs = self.skb_segs();
        let cwnd = self.st.cwnd as u32;
        let allowed = tso_defer::allowance(&tso_defer::DeferView {
            recovering: self.st.ca_state >= CaState::Recovery,
            since_last_send: Time(now.0.saturating_sub(self.st.last_send.0)),
            room,
            max_segs: self.gso_segs(),
            unsent: self.app_limit.saturating_sub(self.snd_nxt),
            skb_segs,
            head_segs: skb_segs - self.snd_nxt % skb_segs,
            half_cwnd: (cwnd / 2).max(1),
            window: cwnd.min(self.st.rwnd),
            head_ack_due: self.sb.front().map(|s| s.sent_at + srtt),
            now,
            srtt,
            ends_transfer: self.app_total != u32::MAX && self.app_limit == self.app_total,
        });
        self.held_by_cwnd = tso_defer::held_by_cwnd(allowed, room, cwnd_room, rwnd_room);
        allowed
    }

    /// Processes an ACK from the receiver, with its SACK option if it carries one.
    pub fn on_ack(&mut self, now: Time, pkt: &Packet, options: Option<&AckOptions>) {
        let sent_before = self.outbox.len();
        self.handle_ack(now, pkt, options);
        self.mark_pushes(sent_before, true);
    }

    fn handle_ack(&mut self, now: Time, pkt: &Packet, options: Option<&AckOptions>) {
        self.event_sends = 0;
        self.stats.acks_received += 1;
        self.st.rwnd = pkt.rwnd.max(1);
        let ack = pkt.ack;
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore (RFC 9293 3.10.7.4)
        }
        self.st.cwnd_limited = self.cwnd_limited();
        if self.uses_scoreboard() {
            self.on_ack_scoreboard(now, pkt, options);
        } else {
            let prior_in_flight = if self.rate.is_some() {
                self.flight()
            } else {
                0
            };
            let mut rtt = None;
            if ack > self.snd_una {
                rtt = self.on_new_ack(now, ack);
            } else if ack == self.snd_una && self.snd_una < self.snd_max {
                self.on_dupack(now, ack);
            }
            if !self.control_rate(now, rtt, prior_in_flight, ack >= self.snd_una) {
                self.update_default_pacing();
            }
            self.try_send(now);
        }
        self.clamp_cwnd();
    }

    /// RTT samples of one ACK: `rtt` for the RTO estimator and the flow's statistics,
    /// `cc_rtt` for the algorithm's view (latest and minimum RTT). Linux takes the first
    /// from the oldest segment acknowledged and the second from the newest (`seq_rtt_us`,
    /// `ca_rtt_us`); NS-2's agents use one sample for both.
    pub(super) fn rtt_sample(&mut self, rtt: Time, cc_rtt: Time) {
        let round_ended = self.snd_una > self.rtt_seq;
        if round_ended {
            self.rtt_seq = self.snd_max;
        }
        self.rto.sample(rtt, round_ended);
        self.st.latest_rtt = cc_rtt;
        self.st.min_rtt = self.st.min_rtt.min(cc_rtt);
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum += rtt.as_secs_f64();
    }

    /// Returns the RTT sample the ACK gave, if any.
    fn on_new_ack(&mut self, now: Time, ack: u32) -> Option<Time> {
        let newly = ack - self.snd_una;
        let mut restart_timer = true;
        // Karn's rule (RFC 6298 section 3): no sample when the ACK covers a retransmitted
        // segment; otherwise time the newest segment acknowledged.
        let acked = match self.rate.as_deref_mut() {
            None => self.sb.advance(ack),
            Some(r) => {
                let acked = self.sb.advance_visiting(ack, |q, _| r.on_delivered(q));
                r.trim(ack);
                acked
            }
        };
        let rtt = if acked.retransmitted {
            None
        } else {
            acked.last_sent.map(|t| now - t)
        };
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        if let Some(r) = rtt {
            self.rtt_sample(r, r);
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
                if !self.rate_driven {
                    self.st.cwnd = self.st.ssthresh.max(1.0);
                }
                self.set_ca_state(CaState::Open);
                self.cc.cwnd_event(&mut self.st, CaEvent::CompleteCwr);
            } else {
                // RFC 6582 step 4: partial ACK: retransmit the next hole, deflate by the
                // amount acknowledged and add back one segment; reset the timer on the first.
                self.note_lost(1, true);
                self.transmit(self.snd_una, now);
                if !self.rate_driven {
                    self.st.cwnd = (self.st.cwnd - newly as f64 + 1.0).max(1.0);
                }
                let first = std::mem::take(&mut self.first_partial_ack);
                restart_timer =
                    first || self.cfg.partial_ack_timer == PartialAckTimer::SlowButSteady;
            }
        } else {
            if !self.rate_driven {
                let credit = self.growth_credit(newly);
                self.cc.cong_avoid(&mut self.st, credit);
                self.st.cwnd = self.st.cwnd.max(1.0);
            }
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
        rtt
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
            if !self.rate_driven {
                self.st.cwnd += 1.0;
            }
            return;
        }
        // RFC 6582 section 3.2 step 1 and section 4 (NS-2's `bugfix_`: highest_ack_ >
        // recover_; Linux holds its state "until something *above* high_seq is ACKed"): a
        // new fast retransmit only once the ACK goes beyond everything outstanding at the
        // previous loss response. After a timeout, the duplicates that go-back-N provokes
        // for segments the receiver already holds carry exactly that ACK, so they never
        // start a fast retransmit of a segment that was not lost.
        if self.dupacks == self.cfg.dupack_threshold && self.recover.is_none_or(|r| ack > r) {
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
        let Some(seg) = self.sb.get(self.snd_una).copied() else {
            return;
        };
        let probe = RetransmitProbe {
            point,
            seq: self.snd_una,
            sent_at: seg.sent_at,
            already_retransmitted: seg.has(EVER_RETRANS),
        };
        self.refresh(now);
        if self.cc.retransmit_check(&self.st, &probe) {
            self.loss_response(now, LossKind::EarlyRetransmit);
        }
    }

    /// The algorithm's loss context for segment `seq`.
    pub(super) fn loss_info(&self, kind: LossKind, seq: u32, now: Time) -> LossInfo {
        let (already_retransmitted, sent_at) = self
            .sb
            .get(seq)
            .map_or((false, now), |s| (s.has(EVER_RETRANS), s.sent_at));
        LossInfo {
            kind,
            seq,
            already_retransmitted,
            sent_at,
        }
    }

    pub(super) fn record_loss(&mut self, now: Time, seq: u32, kind: LossKind, cwnd_before: f64) {
        self.losses.push(LossRecord {
            time: now,
            seq,
            kind,
            cwnd_before,
            ssthresh_after: self.st.ssthresh,
            tag: self.cc.loss_tag(),
        });
    }

    /// Fast (or early) retransmit of `snd_una` and the window reduction of the recovery mode.
    fn loss_response(&mut self, now: Time, kind: LossKind) {
        let seq = self.snd_una;
        let info = self.loss_info(kind, seq, now);
        self.refresh(now);
        let cwnd_before = self.st.cwnd;
        let ssthresh = self.cc.ssthresh(&self.st, &info);
        self.st.ssthresh = ssthresh.max(1.0);
        self.recover = Some(self.snd_max);
        self.note_lost(1, true);
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
            _ => {
                // RFC 5681 step 3: cwnd = ssthresh + the segments known to have left.
                if !self.rate_driven {
                    self.st.cwnd = self.st.ssthresh + self.dupacks as f64;
                }
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
        self.record_loss(now, seq, kind, cwnd_before);
    }

    /// Handles the retransmission timer event scheduled for `at`.
    pub fn on_timer(&mut self, at: Time, now: Time) {
        self.event_sends = 0;
        match self.timer.fire(at, now) {
            Fired::Stale => {}
            Fired::Rearm(t) => self.timer_request = Some(t),
            Fired::Expired => match self.timer_kind {
                TimerKind::Rto if self.uses_scoreboard() => self.on_timeout_scoreboard(now),
                TimerKind::Rto => self.on_timeout(now),
                TimerKind::Reorder => self.on_reorder_timer(now),
                TimerKind::Probe => self.on_probe_timer(now),
            },
        }
        self.clamp_cwnd();
    }

    /// A timeout with data outstanding (else none): counts it and returns the segment to
    /// resend, the algorithm's loss context and the window before the response.
    pub(super) fn begin_timeout(&mut self, now: Time) -> Option<(u32, LossInfo, f64)> {
        if self.sb.is_empty() {
            return None;
        }
        self.stats.timeouts += 1;
        let seq = self.snd_una;
        let info = self.loss_info(LossKind::Timeout, seq, now);
        self.refresh(now);
        Some((seq, info, self.st.cwnd))
    }

    /// RFC 6298 section 5.4-5.6 and RFC 5681 eq. (4): back off, collapse the window and
    /// go back to the oldest unacknowledged segment.
    fn on_timeout(&mut self, now: Time) {
        let Some((seq, info, cwnd_before)) = self.begin_timeout(now) else {
            return;
        };
        // A timeout during fast recovery keeps the threshold already reduced for this loss
        // episode (as Linux's tcp_enter_loss does) instead of halving the inflated window.
        if !self.in_fast_recovery {
            self.st.ssthresh = self.cc.ssthresh(&self.st, &info).max(1.0);
        }
        self.cc.cwnd_event(&mut self.st, CaEvent::Loss);
        self.st.cwnd = self.cc.cwnd_after_timeout().max(1.0);
        self.in_fast_recovery = false;
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        self.note_lost(self.snd_max - self.snd_una, false);
        self.set_ca_state(CaState::Loss);
        self.rto.back_off();
        self.snd_nxt = self.snd_una;
        self.transmit(seq, now);
        self.snd_nxt = seq + 1;
        self.acks_since_retransmit = 1;
        self.arm_timer(now);
        self.record_loss(now, seq, LossKind::Timeout, cwnd_before);
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

    fn ack(n: u32) -> Packet {
        super::super::test_support::ack(n, Time::ZERO)
    }

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
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
        s.on_ack(ms(100), &ack(1), None); // segment 1 is lost
        s.on_ack(ms(101), &ack(1), None);
        s.on_ack(ms(102), &ack(1), None);
        assert_eq!(*probes.lock().unwrap(), [DupAck(1), DupAck(2)]);
        s.on_ack(ms(103), &ack(1), None); // the third starts fast retransmit instead
        assert_eq!(s.stats.fast_retransmits, 1);
        probes.lock().unwrap().clear();
        // The retransmission's ACK reveals a second hole at 5 and ends Reno's recovery;
        // a second fast retransmit in the same window is not allowed (5 < recover), so
        // only the probes can repair it before a timeout.
        s.on_ack(ms(200), &ack(5), None);
        for i in 0..4 {
            s.on_ack(ms(201 + i), &ack(5), None);
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
        s.on_ack(ms(100), &ack(1), None); // RTT 100 ms: RTO 300 ms, timer due at 400 ms
        let due = s
            .take_timer_request()
            .expect("timer moved earlier than 1 s");
        assert_eq!(due, ms(400));
        for t in [300, 301, 302] {
            s.on_ack(ms(t), &ack(1), None);
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        // At 400 ms the retransmission sent at 302 ms cannot have been acknowledged yet.
        s.on_timer(due, ms(400));
        assert_eq!(s.stats.timeouts, 0);
        assert_eq!(s.take_timer_request(), Some(ms(602)));
    }

    /// A Reno sender (1000-byte segments) that marks PSH as `app_push` says, started at
    /// time 0 with 4 segments of window and `total` bytes to send (None: bulk); its first
    /// window's (seq, PSH) in the second element.
    fn pushing_sender(
        app_push: AppPush,
        initial_ssthresh: f64,
        total: Option<u64>,
    ) -> (TcpSender, Vec<(u32, bool)>) {
        let cfg = TcpConfig {
            initial_cwnd: 4.0,
            initial_ssthresh,
            app_push,
            ..TcpConfig::default()
        };
        let cc = Box::new(Reno::new(Recovery::Reno));
        let mut s = TcpSender::new(0, 0, 1, &cfg, cc, Recovery::Reno, total);
        s.start(Time::ZERO);
        let first = sent(&mut s);
        (s, first)
    }

    /// The segments sent since the last call: (seq, PSH).
    fn sent(s: &mut TcpSender) -> Vec<(u32, bool)> {
        s.outbox.drain(..).map(|p| (p.seq, p.push())).collect()
    }

    #[test]
    fn an_ack_triggered_burst_ends_with_psh_and_a_single_segment_carries_none() {
        // Slow start (per-ACK growth): each ACK of one segment sends two new ones.
        let (mut s, first) = pushing_sender(AppPush::Burst, 1e9, None);
        assert_eq!(first, [(0, false), (1, false), (2, false), (3, false)]);
        s.on_ack(ms(100), &ack(1), None);
        assert_eq!(sent(&mut s), [(4, false), (5, true)]);
        // Congestion avoidance (cwnd 4 > ssthresh 2): an ACK of one sends one.
        let (mut s, _) = pushing_sender(AppPush::Burst, 2.0, None);
        s.on_ack(ms(100), &ack(1), None);
        assert_eq!(sent(&mut s), [(4, false)]);
        // "none": no PSH at all.
        let (mut s, _) = pushing_sender(AppPush::None, 1e9, None);
        s.on_ack(ms(100), &ack(1), None);
        assert_eq!(sent(&mut s), [(4, false), (5, false)]);
    }

    /// Linux cuts GSO packets where the sender stands, not at multiples in sequence space:
    /// after a transmission of three (a packet of two and one of one), the next pair is a
    /// packet of its own and ends with PSH.
    #[test]
    fn gso_packets_start_where_the_last_transmission_stopped() {
        let (mut s, _) = pushing_sender(AppPush::Gso, 1e9, None);
        s.on_ack(ms(100), &ack(2), None);
        assert_eq!(sent(&mut s), [(4, false), (5, true), (6, false)]);
        s.on_ack(ms(101), &ack(3), None);
        assert_eq!(sent(&mut s), [(7, false), (8, true)]);
    }

    #[test]
    fn gso_marks_the_last_segment_of_every_whole_two_segment_skb() {
        // Slow start: the first window is two whole skbs, each ACK's pair another.
        let (mut s, first) = pushing_sender(AppPush::Gso, 1e9, None);
        assert_eq!(first, [(0, false), (1, true), (2, false), (3, true)]);
        s.on_ack(ms(100), &ack(1), None);
        assert_eq!(sent(&mut s), [(4, false), (5, true)]);
        // Congestion avoidance: one segment per ACK splits every skb, and Linux forces PSH
        // only on packets of more than one segment: none carries it.
        let (mut s, _) = pushing_sender(AppPush::Gso, 2.0, None);
        s.on_ack(ms(100), &ack(1), None);
        s.on_ack(ms(101), &ack(2), None);
        assert_eq!(sent(&mut s), [(4, false), (5, false)]);
        // A finite transfer's last segment ends the application's data.
        let (_, first) = pushing_sender(AppPush::Gso, 1e9, Some(2500));
        assert_eq!(first, [(0, false), (1, true), (2, true)]);
    }

    /// Every segment of a GSO packet but its last says that more follow (what a host's
    /// round-robin egress keeps together); single segments and other push rules say nothing.
    #[test]
    fn gso_packets_mark_every_segment_but_their_last_as_continued() {
        fn continued(s: &mut TcpSender) -> Vec<(u32, bool)> {
            s.outbox.drain(..).map(|p| (p.seq, p.gso_more())).collect()
        }
        let (mut s, _) = pushing_sender(AppPush::Gso, 1e9, None);
        s.on_ack(ms(100), &ack(2), None);
        assert_eq!(continued(&mut s), [(4, true), (5, false), (6, false)]);
        let (mut s, _) = pushing_sender(AppPush::Burst, 1e9, None);
        s.on_ack(ms(100), &ack(1), None);
        assert_eq!(continued(&mut s), [(4, false), (5, false)]);
    }

    #[test]
    fn a_retransmission_keeps_its_psh_and_a_transfer_ends_with_one() {
        let (mut s, _) = pushing_sender(AppPush::Burst, 1e9, None);
        s.on_ack(ms(100), &ack(1), None);
        assert_eq!(sent(&mut s), [(4, false), (5, true)]);
        // A timeout resends everything outstanding (go-back-N), each with its own flag.
        let due = s.take_timer_request().expect("the retransmission timer");
        s.on_timer(due, due);
        assert_eq!(s.stats.timeouts, 1);
        for n in 2..5 {
            s.on_ack(due + ms(100 + u64::from(n)), &ack(n), None);
        }
        let resent: Vec<_> = sent(&mut s).into_iter().filter(|&(q, _)| q <= 5).collect();
        assert!(resent.contains(&(5, true)), "{resent:?}");
        assert!(resent.iter().all(|&(q, p)| p == (q == 5)), "{resent:?}");
        // A finite transfer: its last segment ends the application's data.
        let (_, first) = pushing_sender(AppPush::Burst, 1e9, Some(2500));
        assert_eq!(first, [(0, false), (1, false), (2, true)]);
        let (_, first) = pushing_sender(AppPush::None, 1e9, Some(2500));
        assert_eq!(first, [(0, false), (1, false), (2, false)]);
    }
}
