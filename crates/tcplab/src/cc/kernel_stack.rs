//! A seeded random stand-in for Linux's TCP stack, for the conformance vectors of the
//! kernel ports ([`super::kernel_vectors`]): it calls an algorithm's hooks in the order
//! `net/ipv4/tcp_input.c` does and writes the windows where the kernel writes them, and
//! logs every hook call with the state before it and the windows after it.
//!
//! What it draws: ACKs of one segment or several (stretch ACKs: delayed ACKs, lost or
//! compressed ACKs), with an RTT sample or without one (Karn's rule); duplicate ACKs, some
//! with a SACK RTT sample; fast retransmits after three duplicates, with recovery (PRR's
//! windows, partial ACKs, further duplicates) ending in `cwnd = ssthresh` or an undo;
//! timeouts from any state, repeated ones while the first is being repaired, and undone
//! ones; application-limited stretches and single ACKs that are not cwnd-limited, with an
//! idle restart (`CA_EVENT_TX_START`) after some. RTT samples come from a bottleneck
//! whose queue holds the part of the window beyond the pipe plus cross traffic that
//! drifts up and down, with jitter and the occasional route change, so delay-based rules
//! see queues build and drain. All times are whole microseconds and the smoothed RTT is
//! the kernel's (1/8 us units), as a port sees them.
//!
//! The kernel's socket holds whole windows; a port keeps fractional shadows and, when
//! the stack writes a window, adopts it at its next hook (`tl_sync` in bpf/tl_common.h):
//! a written value equal to the shadow's integer part leaves the shadow alone, and a
//! cwnd equal to ssthresh's integer part takes ssthresh's fraction. [`KernelStack::write`]
//! gives the simulator the windows as the port reads them.

use super::{
    AckEvent, AckSample, CaEvent, CaState, CcState, CongestionControl, LossInfo, LossKind,
};
use crate::sim::{RngStream, Time};
use std::fmt::Write as _;

/// The kernel's "infinite" ssthresh, and the simulator's unset one.
const KERNEL_INFINITE: u32 = 0x7fff_ffff;
const UNSET_SSTHRESH: f64 = 1e9;

/// The kernel's `enum tcp_ca_state` numbers.
fn ca_state_number(s: CaState) -> u8 {
    match s {
        CaState::Open => 0,
        CaState::Disorder => 1,
        CaState::Recovery => 3,
        CaState::Loss => 4,
    }
}

fn window(v: f64) -> String {
    if v >= 1e8 {
        "inf".to_string()
    } else {
        format!("{v:.6}")
    }
}

/// How often each event happens; drawn once per trace so traces differ in character.
struct Rates {
    loss: f64,
    timeout: f64,
    dupack: f64,
    stretch: f64,
    no_sample: f64,
    undo: f64,
    app_limited: f64,
    not_limited: f64,
}

/// The path the RTT samples come from.
struct Path {
    base_us: f64,
    /// Queueing delay per packet (the bottleneck's service time), us.
    per_packet_us: f64,
    /// Packets the pipe holds without queueing.
    pipe: f64,
    /// Cross traffic queued, packets, and its current drift per ACK.
    cross: f64,
    drift: f64,
    jitter_us: f64,
    /// Samples left in a quiet stretch: no jitter, cross traffic still, so the RTT
    /// follows the window alone and equal windows give equal RTTs (ties for the rules).
    quiet: u32,
}

impl Path {
    fn sample(&mut self, rng: &mut RngStream, cwnd: f64) -> u64 {
        if self.quiet > 0 {
            self.quiet -= 1;
            let queued = (cwnd.floor() - self.pipe).max(0.0) + self.cross;
            return (self.base_us + queued * self.per_packet_us).round() as u64;
        }
        if rng.bernoulli(0.01) {
            self.quiet = 20 + rng.below(200) as u32;
        }
        if rng.bernoulli(0.03) {
            self.drift = rng.uniform_range(-0.4, 0.4) * rng.uniform();
        }
        if rng.bernoulli(0.002) {
            self.base_us *= rng.uniform_range(0.85, 1.15); // a route change
        }
        self.cross = (self.cross + self.drift + rng.uniform_range(-0.2, 0.2)).clamp(0.0, 60.0);
        let queued = (cwnd - self.pipe).max(0.0) + self.cross;
        let rtt = self.base_us + queued * self.per_packet_us + rng.uniform() * self.jitter_us;
        if rng.bernoulli(0.004) {
            0 // a sample of 0 us (possible on a fast path; not a BaseRTT)
        } else {
            rtt.round() as u64
        }
    }
}

/// The stack, the algorithm it drives and the log of hook calls.
pub struct KernelStack {
    cc: Box<dyn CongestionControl>,
    st: CcState,
    rng: RngStream,
    rates: Rates,
    path: Path,
    /// Smoothed RTT in 1/8 us (the kernel's `srtt_us`).
    srtt8: u64,
    dupacks: u32,
    /// The end of the current loss episode (`high_seq`).
    high_seq: u32,
    /// What an undo restores (`prior_cwnd`, `prior_ssthresh`); the episode's fate.
    prior_cwnd: u32,
    prior_ssthresh: u32,
    undo_due: bool,
    /// Retransmission timer expired since the last ACK of new data (`icsk_retransmits`).
    retransmitting: bool,
    /// ACKs left in the current application-limited stretch.
    app_limited_left: u32,
    lines: String,
}

impl KernelStack {
    /// A connection from its first segment, the stack's choices drawn from `seed`.
    pub fn new(cc: Box<dyn CongestionControl>, seed: u64) -> Self {
        let mut rng = RngStream::new(seed, "kernel-stack");
        let initial_cwnd = [2.0, 4.0, 10.0][rng.below(3) as usize];
        let initial_ssthresh = if rng.bernoulli(0.5) {
            UNSET_SSTHRESH
        } else {
            (8 + rng.below(56)) as f64
        };
        let mut st = CcState::new(initial_cwnd, initial_ssthresh, 1000, 1_000_000);
        st.cwnd_limited = true;
        let base_us = rng.uniform_range(5_000.0, 150_000.0).round();
        let pipe = rng.uniform_range(4.0, 60.0);
        let rates = Rates {
            loss: rng.uniform_range(0.002, 0.012),
            timeout: rng.uniform_range(0.002, 0.006),
            dupack: rng.uniform_range(0.005, 0.04),
            stretch: rng.uniform_range(0.0, 0.4),
            no_sample: rng.uniform_range(0.01, 0.1),
            undo: rng.uniform_range(0.1, 0.4),
            app_limited: rng.uniform_range(0.003, 0.015),
            not_limited: rng.uniform_range(0.0, 0.03),
        };
        let path = Path {
            base_us,
            per_packet_us: base_us / pipe,
            pipe,
            cross: 0.0,
            drift: 0.0,
            jitter_us: base_us * rng.uniform_range(0.0, 0.03),
            quiet: 0,
        };
        KernelStack {
            cc,
            st,
            rng,
            rates,
            path,
            srtt8: 0,
            dupacks: 0,
            high_seq: 0,
            prior_cwnd: 0,
            prior_ssthresh: 0,
            undo_due: false,
            retransmitting: false,
            app_limited_left: 0,
            lines: String::new(),
        }
    }

    /// Runs `events` events after `init` and returns the log.
    pub fn run(mut self, events: u32) -> String {
        self.hook("init", "-".into(), |cc, st| cc.init(st));
        self.top_up();
        for _ in 0..events {
            self.event();
        }
        self.lines
    }

    /// Calls one hook, logging the state before it and the windows after it.
    fn hook(
        &mut self,
        op: &str,
        arg: String,
        f: impl FnOnce(&mut dyn CongestionControl, &mut CcState),
    ) {
        let pre = self.st.clone();
        f(self.cc.as_mut(), &mut self.st);
        self.st.cwnd = self.st.cwnd.max(1.0);
        self.log(op, &arg, &pre);
    }

    fn log(&mut self, op: &str, arg: &str, pre: &CcState) {
        let _ = writeln!(
            self.lines,
            "{op} {arg} {} {} {} {} {} {} {} {} {}",
            pre.snd_una,
            pre.snd_nxt,
            pre.srtt.nanos(),
            u8::from(pre.cwnd_limited),
            ca_state_number(pre.ca_state),
            window(pre.cwnd),
            window(pre.ssthresh),
            window(self.st.cwnd),
            window(self.st.ssthresh)
        );
    }

    fn set_state(&mut self, new: CaState) {
        let arg = ca_state_number(new).to_string();
        self.hook("set_state", arg, |cc, st| cc.set_state(st, new));
        self.st.ca_state = new;
    }

    fn cwnd_event(&mut self, event: CaEvent) {
        let arg = match event {
            CaEvent::TxStart => "0",
            CaEvent::CompleteCwr => "2",
            CaEvent::Loss => "3",
        };
        self.hook("cwnd_event", arg.into(), |cc, st| cc.cwnd_event(st, event));
    }

    fn pkts_acked(&mut self, acked: u32, rtt_us: Option<u64>) {
        let rtt = rtt_us.map(Time::from_micros);
        let arg = rtt_us.map_or("-1".to_string(), |r| r.to_string());
        self.hook("pkts_acked", arg, |cc, st| {
            cc.in_ack_event(
                st,
                &AckEvent {
                    ack: st.snd_una,
                    newly_acked: acked,
                    duplicate: acked == 0,
                },
            );
            cc.pkts_acked(st, &AckSample { acked, rtt });
        });
    }

    fn cong_avoid(&mut self, acked: u32) {
        self.hook("cong_avoid", acked.to_string(), |cc, st| {
            cc.cong_avoid(st, acked)
        });
    }

    /// The stack writes whole windows into the socket (`None`: unchanged); the simulator
    /// gets them as the port reads them back (`tl_sync`).
    fn write(&mut self, cwnd: Option<u32>, ssthresh: Option<u32>) {
        if let Some(s) = ssthresh {
            if s >= 0xffff {
                self.st.ssthresh = UNSET_SSTHRESH;
            } else if f64::from(s) != self.st.ssthresh.floor() {
                self.st.ssthresh = f64::from(s);
            }
        }
        if let Some(c) = cwnd {
            let c = c.max(1);
            if f64::from(c) != self.st.cwnd.floor() {
                self.st.cwnd = if self.st.ssthresh < UNSET_SSTHRESH
                    && f64::from(c) == self.st.ssthresh.floor()
                {
                    self.st.ssthresh
                } else {
                    f64::from(c)
                };
            }
        }
    }

    fn socket_cwnd(&self) -> u32 {
        self.st.cwnd.floor() as u32
    }

    fn socket_ssthresh(&self) -> u32 {
        if self.st.ssthresh >= UNSET_SSTHRESH {
            KERNEL_INFINITE
        } else {
            self.st.ssthresh.floor() as u32
        }
    }

    /// Linux `tcp_current_ssthresh`: at least 3/4 of cwnd unless the window is being reduced.
    fn current_ssthresh(&self) -> u32 {
        let (c, s) = (self.socket_cwnd(), self.socket_ssthresh());
        if self.st.ca_state == CaState::Recovery {
            s
        } else {
            s.max((c >> 1) + (c >> 2))
        }
    }

    /// Sends new data up to the window (or the application's smaller amount).
    fn top_up(&mut self) {
        let wnd = self.socket_cwnd().max(1);
        let allowed = if self.app_limited_left > 0 {
            ((f64::from(wnd) * self.rng.uniform_range(0.2, 0.9)) as u32).max(1)
        } else {
            wnd
        };
        let target = self.st.snd_una + allowed;
        if self.st.snd_nxt < target {
            self.st.snd_nxt = target;
        }
        if self.st.snd_nxt == self.st.snd_una {
            self.st.snd_nxt += 1;
        }
        self.st.in_flight = self.st.snd_nxt - self.st.snd_una;
    }

    fn rtt_sample(&mut self) -> u64 {
        let r = self.path.sample(&mut self.rng, self.st.cwnd);
        // Linux `tcp_rtt_estimator`: srtt += (m - srtt) / 8, kept in 1/8 us.
        self.srtt8 = if self.srtt8 == 0 {
            r.max(1) << 3
        } else {
            (self.srtt8 + r).saturating_sub(self.srtt8 >> 3).max(1)
        };
        self.st.srtt = Time::from_nanos(self.srtt8 * 125);
        self.st.latest_rtt = Time::from_micros(r);
        self.st.min_rtt = self.st.min_rtt.min(self.st.latest_rtt);
        r
    }

    /// An RTT sample with probability `p` (else Karn's rule left none).
    fn maybe_sample(&mut self, p: f64) -> Option<u64> {
        if self.rng.bernoulli(p) {
            Some(self.rtt_sample())
        } else {
            None
        }
    }

    /// One event: an ACK (new, stretch or duplicate) or a timeout, by the state.
    fn event(&mut self) {
        self.st.now += Time::from_micros((self.path.base_us / self.st.cwnd.max(1.0)) as u64 + 1);
        self.update_limits();
        if self.rng.bernoulli(self.rates.timeout) {
            return self.timeout();
        }
        match self.st.ca_state {
            CaState::Open | CaState::Disorder => {
                // A loss starts a run of duplicates, which goes on with probability 0.7
                // (three make a fast retransmit); reordering gives single ones.
                let duplicate = self.rng.bernoulli(self.rates.loss)
                    || (self.dupacks > 0 && self.rng.bernoulli(0.7))
                    || self.rng.bernoulli(self.rates.dupack);
                if duplicate {
                    self.duplicate_ack();
                } else {
                    self.new_ack();
                }
            }
            CaState::Recovery => self.recovery_ack(),
            CaState::Loss => self.loss_ack(),
        }
    }

    /// Application-limited stretches (more often in slow start, which is short), single
    /// ACKs that are not cwnd-limited, and an idle restart after some stretches.
    fn update_limits(&mut self) {
        if self.app_limited_left > 0 {
            self.app_limited_left -= 1;
            if self.app_limited_left == 0 && self.rng.bernoulli(0.5) {
                self.cwnd_event(CaEvent::TxStart);
            }
        } else if self
            .rng
            .bernoulli(self.rates.app_limited * if self.st.in_slow_start() { 4.0 } else { 1.0 })
        {
            self.app_limited_left = 5 + self.rng.below(120) as u32;
        }
        self.st.cwnd_limited =
            self.app_limited_left == 0 && !self.rng.bernoulli(self.rates.not_limited);
    }

    /// Segments a new ACK covers: one, or several for a stretch ACK.
    fn acked_count(&mut self) -> u32 {
        let outstanding = self.st.snd_nxt - self.st.snd_una;
        let k = if self.rng.bernoulli(self.rates.stretch) {
            2 + self.rng.below(7) as u32
        } else {
            1
        };
        k.min(outstanding).max(1)
    }

    fn advance(&mut self, sample_p: f64) -> (u32, Option<u64>) {
        let k = self.acked_count();
        self.st.snd_una += k;
        self.st.snd_nxt = self.st.snd_nxt.max(self.st.snd_una);
        self.st.in_flight = self.st.snd_nxt - self.st.snd_una;
        (k, self.maybe_sample(sample_p))
    }

    /// An ACK of new data in Open or Disorder: `pkts_acked`, back to Open (Linux
    /// `tcp_try_to_open`), `cong_avoid`.
    fn new_ack(&mut self) {
        let (k, rtt) = self.advance(1.0 - self.rates.no_sample);
        self.dupacks = 0;
        self.pkts_acked(k, rtt);
        if self.st.ca_state == CaState::Disorder {
            self.set_state(CaState::Open);
        }
        self.cong_avoid(k);
        self.top_up();
    }

    /// A duplicate ACK (SACKing one segment, perhaps with its RTT): Disorder, then fast
    /// retransmit at the third (Linux `tcp_enter_recovery`); before that the SACKed
    /// segment counts for growth as in `tcp_cong_control`.
    fn duplicate_ack(&mut self) {
        self.dupacks += 1;
        let rtt = self.maybe_sample(0.5);
        self.pkts_acked(0, rtt);
        if self.st.ca_state == CaState::Open {
            self.set_state(CaState::Disorder);
        }
        if self.dupacks >= 3 {
            self.enter_recovery();
        } else {
            self.cong_avoid(1);
        }
    }

    fn enter_recovery(&mut self) {
        self.prior_ssthresh = self.current_ssthresh();
        self.prior_cwnd = self.socket_cwnd();
        self.high_seq = self.st.snd_nxt;
        self.undo_due = self.rng.bernoulli(self.rates.undo);
        self.ssthresh(LossKind::FastRetransmit);
        self.set_state(CaState::Recovery);
        self.prr();
    }

    /// The loss response: ssthresh from the algorithm; the port keeps its own fraction.
    fn ssthresh(&mut self, kind: LossKind) {
        let info = LossInfo {
            kind,
            seq: self.st.snd_una,
            already_retransmitted: self.rng.bernoulli(0.3),
            sent_at: self.st.now,
        };
        let arg = if kind == LossKind::Timeout {
            "timeout"
        } else {
            "dupack"
        };
        let pre = self.st.clone();
        let ret = self.cc.ssthresh(&self.st, &info).max(1.0);
        self.st.ssthresh = ret;
        self.log("ssthresh", arg, &pre);
    }

    /// PRR's window during recovery, near ssthresh (Linux `tcp_cwnd_reduction`).
    fn prr(&mut self) {
        let target = self.st.ssthresh.floor().min(f64::from(self.prior_cwnd)) as i64;
        let c = target + self.rng.below(3) as i64 - 1;
        self.write(Some(c.max(1) as u32), None);
    }

    /// An ACK in Recovery: partial ACK or another duplicate; recovery ends with the ACK
    /// that covers high_seq, with an undo or cwnd = ssthresh.
    fn recovery_ack(&mut self) {
        if self.rng.bernoulli(0.3) {
            let rtt = self.maybe_sample(0.3);
            self.pkts_acked(0, rtt);
            return self.prr();
        }
        let (k, rtt) = self.advance(0.5);
        self.pkts_acked(k, rtt);
        if self.st.snd_una < self.high_seq {
            self.prr();
            return self.top_up();
        }
        // Linux `tcp_try_undo_recovery`, then `tcp_end_cwnd_reduction`.
        self.dupacks = 0;
        if self.undo_due {
            self.undo();
            self.set_state(CaState::Open);
        } else {
            self.set_state(CaState::Open);
            let s = self.socket_ssthresh();
            self.write(Some(s), None);
        }
        self.cwnd_event(CaEvent::CompleteCwr);
        self.cong_avoid(k);
        self.top_up();
    }

    /// Linux `tcp_undo_cwnd_reduction`: cwnd from `undo_cwnd`, ssthresh back to the prior
    /// value if that is larger. The log line's arg is `prior_cwnd/prior_ssthresh`.
    fn undo(&mut self) {
        let pre = self.st.clone();
        let ret = self.cc.undo_cwnd(&self.st, f64::from(self.prior_cwnd));
        let s = self.prior_ssthresh.max(self.socket_ssthresh());
        self.write(None, Some(s));
        self.write(Some(ret.floor() as u32), None);
        let arg = format!("{}/{}", self.prior_cwnd, self.prior_ssthresh);
        self.log("undo_cwnd", &arg, &pre);
        self.undo_due = false;
    }

    /// An ACK while repairing a timeout (Loss state): retransmissions mostly without RTT
    /// samples; slow start goes on (`cong_avoid` runs in Loss); back to Open when
    /// high_seq is covered, undone if the timeout was spurious.
    fn loss_ack(&mut self) {
        if self.rng.bernoulli(0.15) {
            self.pkts_acked(0, None);
            return self.cong_avoid(1);
        }
        let (k, rtt) = self.advance(0.2);
        self.retransmitting = false;
        self.pkts_acked(k, rtt);
        if self.st.snd_una >= self.high_seq {
            if self.undo_due {
                self.undo();
            }
            self.set_state(CaState::Open);
        }
        self.cong_avoid(k);
        self.top_up();
    }

    /// Linux `tcp_enter_loss`: a new episode unless one is being repaired (ssthresh, then
    /// `CA_EVENT_LOSS`); cwnd = in_flight + 1 (1: everything is marked lost); Loss.
    fn timeout(&mut self) {
        let new_episode = self.st.ca_state <= CaState::Disorder
            || self.st.snd_una >= self.high_seq
            || (self.st.ca_state == CaState::Loss && !self.retransmitting);
        if new_episode {
            self.prior_ssthresh = self.current_ssthresh();
            self.prior_cwnd = self.socket_cwnd();
            self.undo_due = self.rng.bernoulli(self.rates.undo / 2.0);
            self.ssthresh(LossKind::Timeout);
            self.cwnd_event(CaEvent::Loss);
        }
        self.write(Some(1), None);
        self.dupacks = 0;
        self.high_seq = self.st.snd_nxt;
        self.retransmitting = true;
        self.set_state(CaState::Loss);
        self.top_up();
    }
}
