//! Loss recovery on the scoreboard, in the order Linux's `tcp_ack` works: SACK and D-SACK
//! processing, the cumulative ACK, RTT samples, loss detection (RACK, RFC 8985, or RFC
//! 6675's DupThresh rule; without SACK the oldest segment after three duplicates), the
//! congestion state machine with undo, then the window (PRR, RFC 6937, or RFC 6675) and
//! sending: lost segments first, then new data. Timeouts mark everything outstanding lost
//! and slow-start through it without go-back-N; tail loss probes (RFC 8985 section 7)
//! and RACK's reordering timer share the retransmission timer.

use super::sack::AckOptions;
use super::scoreboard::EVER_RETRANS;
use super::sender::{TcpSender, TimerKind};
use crate::cc::{AckEvent, AckSample, CaEvent, CaState, LossKind, Recovery};
use crate::net::Packet;
use crate::sim::Time;

/// Linux's TCP_TIMEOUT_MIN (2 jiffies at HZ=1000): the slack added to RACK's timer and
/// to a probe timeout with more than one segment outstanding.
const TIMEOUT_MIN: Time = Time::from_millis(2);

/// What one ACK told the sender.
#[derive(Default)]
struct AckFacts {
    /// Segments newly SACKed or cumulatively acknowledged (Linux `acked_sacked`).
    delivered: u32,
    /// Segments the cumulative ACK moved past (Linux `pkts_acked`).
    cumulative: u32,
    /// The ACK carried a D-SACK.
    dsack: bool,
}

impl TcpSender {
    pub(super) fn on_ack_scoreboard(
        &mut self,
        now: Time,
        pkt: &Packet,
        options: Option<&AckOptions>,
    ) {
        let ack = pkt.ack;
        let prior_una = self.snd_una;
        let prior_in_flight = self.sb.in_flight();
        if self.cfg.timestamps {
            self.latest_echo = pkt.stamp;
        }
        let mut facts = AckFacts::default();
        let mut sack_rtt: (Option<Time>, Option<Time>) = (None, None);
        if let Some(o) = options.filter(|_| self.cfg.sack) {
            self.process_sack(now, o, ack, &mut facts, &mut sack_rtt);
        }
        let advanced = ack > self.snd_una;
        let mut seq_rtt = None;
        let mut ca_rtt = None;
        if advanced {
            // Linux `tcp_clean_rtx_queue`: RACK and the rate estimator learn from every
            // segment newly acked.
            let (rack, min_rtt) = (&mut self.rack, self.st.min_rtt);
            let mut rate = self.rate.as_deref_mut();
            let acked = self.sb.advance_visiting(ack, |q, s| {
                rack.advance(q, s.sent_at, s.has(EVER_RETRANS), now, min_rtt);
                if let Some(r) = rate.as_mut() {
                    r.on_delivered(q);
                }
            });
            if let Some(r) = rate {
                r.trim(ack);
            }
            facts.delivered += acked.newly;
            facts.cumulative = ack - prior_una;
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.dupacks = 0;
            if !acked.retransmitted {
                seq_rtt = acked.first_sent.map(|t| now - t);
                ca_rtt = acked.last_sent.map(|t| now - t);
            }
        } else if ack == self.snd_una && !self.sb.is_empty() && facts.delivered == 0 {
            self.dupacks += 1;
            self.stats.dupacks += 1;
        }
        // Linux `tcp_ack_update_rtt`: the cumulative sample, else the SACKed one, else
        // (RFC 7323 RTTM) the echoed timestamp of an ACK that advances.
        if seq_rtt.is_none() {
            seq_rtt = sack_rtt.0;
            ca_rtt = sack_rtt.1;
        }
        if seq_rtt.is_none() && self.cfg.timestamps && advanced && pkt.stamp <= now {
            seq_rtt = Some(now - pkt.stamp);
            ca_rtt = seq_rtt;
        }
        if let Some(r) = seq_rtt {
            self.rtt_sample(r, ca_rtt.unwrap_or(r));
        }
        self.refresh(now);
        self.cc.in_ack_event(
            &mut self.st,
            &AckEvent {
                ack,
                newly_acked: facts.cumulative,
                duplicate: !advanced && facts.delivered == 0 && self.snd_una < self.snd_max,
            },
        );
        if advanced || ca_rtt.is_some() {
            let sample = AckSample {
                acked: facts.cumulative,
                rtt: ca_rtt,
            };
            self.cc.pkts_acked(&mut self.st, &sample);
        }
        self.process_tlp_ack(now, ack, advanced, &facts);
        // Linux `tcp_ack` sets the transmission timer (RTO or probe) before loss detection,
        // which may replace it with RACK's reordering timer.
        if advanced {
            self.set_xmit_timer(now);
        }

        let newly_lost = self.detect_losses(now, advanced);
        self.note_lost(newly_lost, true);
        self.congestion_state(now, ack, advanced, newly_lost);
        self.refresh(now);
        // Linux `tcp_cong_control`: the algorithm's own `cong_control`, else PRR in
        // recovery or growth, then the default pacing rate. An old ACK (below snd_una)
        // goes no further than SACK processing in Linux; its sample is dropped.
        if !self.control_rate(now, ca_rtt, prior_in_flight, ack >= prior_una) {
            match self.st.ca_state {
                _ if self.rate_driven => {}
                CaState::Recovery => self.reduce_cwnd(facts.delivered, newly_lost, advanced),
                _ if advanced => {
                    let credit = self.growth_credit(facts.delivered);
                    self.cc.cong_avoid(&mut self.st, credit);
                }
                _ => {}
            }
            self.update_default_pacing();
        }
        self.clamp_cwnd();
        self.send_from_scoreboard(now);
        if self.sb.is_empty() {
            self.timer.cancel();
        }
    }

    /// SACK blocks (RFC 2018) and a leading D-SACK block (RFC 2883 section 4).
    fn process_sack(
        &mut self,
        now: Time,
        o: &AckOptions,
        ack: u32,
        facts: &mut AckFacts,
        sack_rtt: &mut (Option<Time>, Option<Time>),
    ) {
        for (i, &(start, end)) in o.blocks().iter().enumerate() {
            if i == 0 && o.dsack {
                facts.dsack = true;
                self.on_dsack(start, end);
                continue;
            }
            let from = start.max(ack).max(self.snd_una);
            for q in from..end.min(self.snd_max) {
                let Some(before) = self.sb.sack(q) else {
                    continue;
                };
                facts.delivered += 1;
                if let Some(r) = &mut self.rate {
                    r.on_delivered(q);
                }
                let re = before.has(EVER_RETRANS);
                self.rack
                    .advance(q, before.sent_at, re, now, self.st.min_rtt);
                if !re {
                    // Linux `first_sackt` / `last_sackt`: RTT of the SACKed data.
                    let r = now - before.sent_at;
                    sack_rtt.0 = Some(sack_rtt.0.map_or(r, |x: Time| x.max(r)));
                    sack_rtt.1 = Some(sack_rtt.1.map_or(r, |x: Time| x.min(r)));
                }
            }
        }
    }

    /// A D-SACK: one copy of the segments it names was unnecessary. Within the current
    /// undo episode it counts against the retransmissions (Linux `tcp_check_dsack`);
    /// RACK widens its reordering window.
    fn on_dsack(&mut self, start: u32, end: u32) {
        if self.cfg.rack {
            self.rack.on_dsack(self.snd_una, self.snd_max);
        }
        if let Some(marker) = self.undo_marker {
            if end > marker && self.undo_retrans > 0 {
                self.undo_retrans -= (end - start.max(marker)) as i64;
                self.undo_retrans = self.undo_retrans.max(0);
            }
        }
    }

    /// Marks lost segments; returns how many were newly marked.
    fn detect_losses(&mut self, now: Time, advanced: bool) -> u32 {
        if self.sb.is_empty() {
            return 0;
        }
        if !self.cfg.sack {
            // Linux `tcp_newreno_mark_lost`: without SACK the oldest segment is lost after
            // `dupthresh` duplicates, and again after each partial ACK in recovery. An ACK
            // that reaches `high_seq` is not partial: it ends recovery (Linux checks the
            // exit first), and the oldest segment then is new data still in flight.
            let head_lost = self
                .sb
                .get(self.snd_una)
                .is_some_and(|s| s.has(super::scoreboard::LOST));
            let partial = advanced && self.snd_una < self.high_seq;
            let due = (self.st.ca_state < CaState::Recovery
                && self.dupacks >= self.cfg.dupack_threshold)
                || (self.st.ca_state == CaState::Recovery && partial);
            if due && !head_lost {
                return u32::from(self.sb.mark_lost(self.snd_una));
            }
            return 0;
        }
        if self.cfg.rack {
            if !self.rack.advanced {
                return 0;
            }
            self.rack.advanced = false;
            return self.rack_detect_loss(now);
        }
        self.sb.mark_lost_by_dupthresh(self.cfg.dupack_threshold)
    }

    /// RFC 8985 section 6.2 step 5 (Linux `tcp_rack_detect_loss`): a segment sent before
    /// the most recently delivered one is lost once its RTT exceeds RACK.rtt plus the
    /// reordering window; for the others the reordering timer waits the longest time left.
    fn rack_detect_loss(&mut self, now: Time) -> u32 {
        let in_recovery = self.st.ca_state >= CaState::Recovery;
        let reo_wnd = self.rack.reo_wnd(
            in_recovery,
            self.sb.sacked,
            self.cfg.dupack_threshold,
            self.st.min_rtt,
            self.rto.srtt(),
        );
        // Segments never retransmitted were sent in sequence order, so beyond RACK.end_seq
        // only retransmitted ones can have been sent earlier.
        let end = if self.sb.retrans > 0 {
            self.snd_max
        } else {
            self.rack.end_seq
        };
        let deadline = self.rack.rtt + reo_wnd;
        let mut wait = Time::ZERO;
        let mut n = 0;
        for q in self.snd_una..end.min(self.snd_max) {
            use super::scoreboard::{LOST, RETRANS, SACKED};
            let Some(&s) = self.sb.get(q) else {
                break;
            };
            if s.has(SACKED)
                || (s.has(LOST) && !s.has(RETRANS))
                || !self.rack.sent_before(q, s.sent_at)
            {
                continue;
            }
            let age = now - s.sent_at;
            if age >= deadline {
                n += u32::from(self.sb.mark_lost(q));
            } else {
                wait = wait.max(deadline - age);
            }
        }
        if wait > Time::ZERO {
            self.arm(TimerKind::Reorder, now + wait + TIMEOUT_MIN);
        }
        n
    }

    /// The congestion state machine (Linux `tcp_fastretrans_alert`): the end of an episode
    /// (with undo if it proved spurious), D-SACK undo, and entering recovery.
    fn congestion_state(&mut self, now: Time, _ack: u32, advanced: bool, _newly_lost: u32) {
        // Without SACK the episode holds until something above `high_seq` is acknowledged
        // (Linux `tcp_try_undo_recovery`; RFC 6582 section 4): duplicates that resent data
        // the receiver already holds provoke must not start a fast retransmit.
        let ended = if self.cfg.sack {
            self.snd_una >= self.high_seq
        } else {
            self.snd_una > self.high_seq
        };
        match self.st.ca_state {
            CaState::Recovery | CaState::Loss if ended && advanced => {
                let was = self.st.ca_state;
                if !self.try_undo(now) {
                    if was == CaState::Recovery {
                        // RFC 6937 / Linux `tcp_end_cwnd_reduction`: leave at ssthresh,
                        // unless the algorithm sets the window itself.
                        if !self.rate_driven {
                            self.st.cwnd = self.st.ssthresh;
                        }
                        self.cc.cwnd_event(&mut self.st, CaEvent::CompleteCwr);
                    }
                    self.set_ca_state(CaState::Open);
                }
            }
            _ => {}
        }
        let all_dsacked = self.cfg.undo && self.undo_marker.is_some() && self.undo_retrans == 0;
        if self.st.ca_state == CaState::Recovery && all_dsacked {
            // Linux `tcp_try_undo_dsack` in recovery: every retransmission so far was
            // D-SACKed.
            self.undo(now);
        }
        if self.st.ca_state <= CaState::Disorder {
            if all_dsacked && self.undo_marker.is_some() {
                // The same after the episode ended (a late D-SACK).
                self.undo(now);
            }
            if self.sb.lost > 0 {
                self.enter_recovery(now);
            } else if self.sb.sacked > 0
                || self.sb.retrans > 0
                || (!self.cfg.sack && self.dupacks > 0)
            {
                // Linux `tcp_try_keep_open`: SACKed or retransmitted data outstanding (for
                // a peer without SACK, duplicate ACKs stand for SACKs).
                self.set_ca_state(CaState::Disorder);
            } else {
                self.set_ca_state(CaState::Open);
            }
        }
    }

    /// Linux `tcp_enter_recovery` and `tcp_init_cwnd_reduction`.
    fn enter_recovery(&mut self, now: Time) {
        let seq = self.sb.next_lost(self.snd_una).unwrap_or(self.snd_una);
        let kind = if self.dupacks >= self.cfg.dupack_threshold
            || self.sb.sacked >= self.cfg.dupack_threshold
        {
            LossKind::FastRetransmit
        } else {
            LossKind::Rack
        };
        let info = self.loss_info(kind, seq, now);
        self.refresh(now);
        let cwnd_before = self.st.cwnd;
        self.start_undo_episode();
        self.prior_cwnd = self.st.cwnd;
        self.st.ssthresh = self.cc.ssthresh(&self.st, &info).max(1.0);
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.high_seq = self.snd_max;
        self.tlp_high_seq = None;
        self.stats.fast_retransmits += 1;
        self.set_ca_state(CaState::Recovery);
        if self.recovery == Recovery::Rfc6675 && !self.rate_driven {
            // RFC 6675 section 5 step 4.2.
            self.st.cwnd = self.st.ssthresh;
        }
        self.record_loss(now, seq, kind, cwnd_before);
    }

    /// Linux `tcp_init_undo`: the window and threshold to restore if this episode proves
    /// spurious (the threshold as Linux's `tcp_current_ssthresh`: at least 3/4 of cwnd).
    /// The first retransmission's time is forgotten only when no retransmission is
    /// outstanding (Linux `tcp_enter_recovery`/`tcp_enter_loss` zero `retrans_stamp` only
    /// then, `tcp_any_retrans_done`): an episode whose lost segment was already resent in
    /// the previous one has no retransmission of its own, and would otherwise count as
    /// "nothing was retransmitted" (`tcp_packet_delayed`) and undo the cut for a real loss.
    fn start_undo_episode(&mut self) {
        self.prior_ssthresh = self.st.ssthresh.max(0.75 * self.st.cwnd);
        self.undo_marker = Some(self.snd_una);
        self.undo_retrans = if self.sb.retrans > 0 {
            self.sb.retrans as i64
        } else {
            -1
        };
        if self.sb.retrans == 0 {
            self.retrans_stamp = None;
        }
    }

    /// Linux `tcp_may_undo` (`tcp_packet_delayed`): every retransmission was D-SACKed, or
    /// the ACK that ends the episode echoes a timestamp from before the first
    /// retransmission (Eifel, RFC 3522), so the originals arrived.
    fn try_undo(&mut self, now: Time) -> bool {
        if !self.cfg.undo || self.undo_marker.is_none() {
            return false;
        }
        let delayed = match self.retrans_stamp {
            None => true,
            Some(first) => self.cfg.timestamps && self.latest_echo < first,
        };
        if self.undo_retrans == 0 || delayed {
            self.undo(now);
            return true;
        }
        false
    }

    /// Linux `tcp_undo_cwnd_reduction`: restore the window (the algorithm's `undo_cwnd`)
    /// and the threshold, forget the loss marks, and return to Open.
    fn undo(&mut self, now: Time) {
        self.refresh(now);
        self.st.cwnd = self.cc.undo_cwnd(&self.st, self.prior_cwnd).max(1.0);
        if self.prior_ssthresh > self.st.ssthresh {
            self.st.ssthresh = self.prior_ssthresh;
        }
        self.undo_marker = None;
        self.stats.undos += 1;
        self.set_ca_state(CaState::Open);
    }

    /// PRR (RFC 6937 section 3, as Linux's `tcp_cwnd_reduction`): while the pipe is above
    /// ssthresh send in proportion to what is delivered (ssthresh / prior cwnd); below it,
    /// slow-start back towards ssthresh, one extra segment per ACK that advances without
    /// new losses (PRR-SSRB). RFC 6675 recovery keeps cwnd = ssthresh instead.
    fn reduce_cwnd(&mut self, delivered: u32, newly_lost: u32, advanced: bool) {
        if self.recovery != Recovery::Prr || self.rate_driven {
            return;
        }
        if delivered == 0 && self.prr_out > 0 {
            return;
        }
        self.prr_delivered += delivered;
        let in_flight = self.sb.in_flight() as i64;
        let ssthresh = self.st.ssthresh as i64;
        let delta = ssthresh - in_flight;
        let prior = (self.prior_cwnd as i64).max(1);
        let mut sndcnt = if delta < 0 {
            (ssthresh * self.prr_delivered as i64 + prior - 1) / prior - self.prr_out as i64
        } else {
            let mut n = (self.prr_delivered as i64 - self.prr_out as i64).max(delivered as i64);
            if advanced && newly_lost == 0 {
                n += 1;
            }
            n.min(delta)
        };
        // A fast retransmit goes out on entering recovery.
        if self.prr_out == 0 {
            sndcnt = sndcnt.max(1);
        }
        self.st.cwnd = (in_flight + sndcnt.max(0)) as f64;
    }

    /// RFC 8985 section 7.4 (Linux `tcp_process_tlp_ack`): the probe's episode ends; a
    /// retransmitted probe whose ACK goes beyond it without a D-SACK repaired a real loss,
    /// which reduces the window once.
    fn process_tlp_ack(&mut self, now: Time, ack: u32, advanced: bool, facts: &AckFacts) {
        let Some(high) = self.tlp_high_seq else {
            return;
        };
        if ack < high {
            return;
        }
        if !self.tlp_retrans || facts.dsack {
            self.tlp_high_seq = None;
        } else if ack > high {
            self.tlp_high_seq = None;
            let info = self.loss_info(LossKind::LossProbe, high.saturating_sub(1), now);
            self.refresh(now);
            let before = self.st.cwnd;
            self.start_undo_episode();
            self.prior_cwnd = self.st.cwnd;
            self.st.ssthresh = self.cc.ssthresh(&self.st, &info).max(1.0);
            if !self.rate_driven {
                self.st.cwnd = self.st.ssthresh;
            }
            self.cc.cwnd_event(&mut self.st, CaEvent::CompleteCwr);
            self.record_loss(now, high.saturating_sub(1), LossKind::LossProbe, before);
        } else if !advanced && facts.delivered == 0 {
            self.tlp_high_seq = None;
        }
    }

    /// Linux `tcp_set_xmit_timer`: a tail loss probe if one may be scheduled, else the RTO.
    fn set_xmit_timer(&mut self, now: Time) {
        if self.sb.is_empty() {
            self.timer.cancel();
            return;
        }
        if !self.schedule_probe(now) {
            self.arm_timer(now);
        }
    }

    /// RFC 8985 section 7.2 (Linux `tcp_schedule_loss_probe`): in Open or Disorder with
    /// SACK, a probe 2 SRTT after the last send, plus the minimum RTO when one segment is
    /// outstanding (a delayed ACK may hold its answer back), never later than the RTO.
    fn schedule_probe(&mut self, now: Time) -> bool {
        if !self.cfg.tlp
            || !self.cfg.sack
            || self.st.ca_state > CaState::Disorder
            || self.tlp_high_seq.is_some()
        {
            return false;
        }
        let srtt = self.rto.srtt();
        if srtt == Time::ZERO {
            // No RTT sample yet (Linux has one from the handshake, which is not
            // simulated): the RTO alone.
            return false;
        }
        let pto = if self.sb.len() == 1 {
            srtt + srtt + self.cfg.min_rto
        } else {
            srtt + srtt + TIMEOUT_MIN
        };
        let rto_at = self.rto_deadline(now);
        self.arm(TimerKind::Probe, (now + pto).min(rto_at));
        true
    }

    /// When the RTO would expire: one RTO after the oldest outstanding segment was sent
    /// (Linux `tcp_rearm_rto` after a probe or reordering timer), but not before now.
    fn rto_deadline(&self, now: Time) -> Time {
        let sent = self.sb.front().map_or(now, |s| s.sent_at);
        (sent + self.rto.rto()).max(now)
    }

    pub(super) fn on_probe_timer(&mut self, now: Time) {
        if self.sb.is_empty() {
            return;
        }
        self.refresh(now);
        if self.st.ca_state > CaState::Disorder || self.tlp_high_seq.is_some() {
            let at = self.rto_deadline(now);
            self.arm(TimerKind::Rto, at);
            return;
        }
        // RFC 8985 section 7.3: new data if the application and receiver allow, else the
        // highest outstanding segment again.
        self.stats.loss_probes += 1;
        let rwnd_end = self.snd_una.saturating_add(self.st.rwnd);
        if self.snd_nxt < self.app_limit && self.snd_nxt < rwnd_end {
            self.transmit(self.snd_nxt, now);
            self.snd_nxt += 1;
            self.tlp_retrans = false;
        } else {
            let last = self.snd_max - 1;
            if self
                .sb
                .get(last)
                .is_some_and(|s| !s.has(super::scoreboard::SACKED))
            {
                self.note_retransmission(now);
                self.transmit(last, now);
            }
            self.tlp_retrans = true;
        }
        self.tlp_high_seq = Some(self.snd_max);
        self.arm_timer(now);
    }

    pub(super) fn on_reorder_timer(&mut self, now: Time) {
        self.refresh(now);
        let lost = self.rack_detect_loss(now);
        self.note_lost(lost, false);
        if lost > 0 && self.st.ca_state <= CaState::Disorder {
            self.enter_recovery(now);
            self.reduce_cwnd(1, 0, false);
        }
        if self.timer_kind != TimerKind::Reorder || !self.timer.is_armed() {
            let at = self.rto_deadline(now);
            self.arm(TimerKind::Rto, at);
        }
        self.send_from_scoreboard(now);
    }

    /// Linux `tcp_enter_loss` and `tcp_retransmit_timer`: a new episode unless one is
    /// under way (its reduced threshold stays), everything outstanding and not SACKed is
    /// lost, cwnd one segment (the algorithm's choice), back off, and retransmit.
    pub(super) fn on_timeout_scoreboard(&mut self, now: Time) {
        let Some((seq, info, cwnd_before)) = self.begin_timeout(now) else {
            return;
        };
        let new_episode = self.st.ca_state <= CaState::Disorder
            || self.snd_una >= self.high_seq
            || (self.st.ca_state == CaState::Loss && self.rto.backoff() == 0);
        if new_episode {
            self.start_undo_episode();
            self.prior_cwnd = self.st.cwnd;
            self.st.ssthresh = self.cc.ssthresh(&self.st, &info).max(1.0);
            self.cc.cwnd_event(&mut self.st, CaEvent::Loss);
        }
        let lost = self.sb.mark_all_lost(true);
        self.note_lost(lost, false);
        self.st.cwnd = self.cc.cwnd_after_timeout().max(1.0);
        self.high_seq = self.snd_max;
        self.dupacks = 0;
        self.tlp_high_seq = None;
        self.enter_loss_state();
        self.rto.back_off();
        self.record_loss(now, seq, LossKind::Timeout, cwnd_before);
        self.refresh(now);
        self.send_from_scoreboard(now);
        self.arm_timer(now);
    }

    fn note_retransmission(&mut self, now: Time) {
        self.retrans_stamp.get_or_insert(now);
        if self.undo_marker.is_some() {
            self.undo_retrans = self.undo_retrans.max(0) + 1;
        }
    }

    /// Sends while the pipe is below cwnd: segments deemed lost first (Linux
    /// `tcp_xmit_retransmit_queue`), then new data within the receiver's window.
    pub(super) fn send_from_scoreboard(&mut self, now: Time) {
        let cwnd = (self.st.cwnd as u32).max(1);
        let mut budget = self.burst_limit();
        let mut cursor = self.snd_una;
        while budget > 0 && self.sb.in_flight() < cwnd {
            let Some(q) = self.sb.next_lost(cursor) else {
                break;
            };
            if self.pacing_holds(now) {
                return; // Linux paces retransmissions too (`tcp_xmit_retransmit_queue`)
            }
            let head = q == self.snd_una;
            self.note_retransmission(now);
            self.transmit(q, now);
            if self.st.ca_state == CaState::Recovery {
                self.prr_out += 1;
            }
            if head && self.timer_kind != TimerKind::Reorder {
                self.arm_timer(now);
            }
            cursor = q + 1;
            budget -= 1;
        }
        let rwnd_end = self.snd_una.saturating_add(self.st.rwnd);
        if self.cfg.tso_defer {
            let cwnd_room = cwnd.saturating_sub(self.sb.in_flight());
            let rwnd_room = rwnd_end.saturating_sub(self.snd_nxt);
            budget = budget.min(self.deferral_allowance(now, cwnd_room, rwnd_room));
        }
        while budget > 0
            && self.sb.in_flight() < cwnd
            && self.snd_nxt < self.app_limit
            && self.snd_nxt < rwnd_end
            && !self.pacing_holds(now)
        {
            let first = self.sb.is_empty();
            self.transmit(self.snd_nxt, now);
            self.snd_nxt += 1;
            if self.st.ca_state == CaState::Recovery {
                self.prr_out += 1;
            }
            if first || self.timer_kind == TimerKind::Probe {
                self.set_xmit_timer(now);
            }
            budget -= 1;
        }
        if self.snd_nxt >= self.app_limit {
            self.check_app_limited();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sack::AckOptions;
    use super::super::test_support::ack;
    use super::super::TcpConfig;
    use super::*;
    use crate::cc::reno::Reno;
    use crate::config::{Stack, TcpOptions};

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    /// A started Reno sender with PRR and the `linux` profile under `options`.
    fn started_reno(options: TcpOptions) -> TcpSender {
        let cfg = TcpConfig::from_options(&TcpOptions {
            stack: Some(Stack::Linux),
            ..options
        });
        let mut s = TcpSender::new(
            0,
            0,
            1,
            &cfg,
            Box::new(Reno::new(Recovery::Prr)),
            Recovery::Prr,
            None,
        );
        s.start(Time::ZERO);
        s
    }

    /// A Reno sender with the `linux` profile and 10 segments in flight from time 0. TSO
    /// deferral is off: these tests follow what each ACK sends (a_room_of_one_waits below
    /// has it on).
    fn sender() -> TcpSender {
        let mut s = started_reno(TcpOptions {
            tso_defer: Some(false),
            ..TcpOptions::default()
        });
        assert_eq!(s.outbox.len(), 10);
        s.outbox.clear();
        s
    }

    fn sacks(blocks: &[(u32, u32)], dsack: bool) -> AckOptions {
        let mut o = AckOptions {
            dsack,
            ..AckOptions::default()
        };
        for (i, &b) in blocks.iter().enumerate() {
            o.blocks[i] = b;
        }
        o.len = blocks.len() as u8;
        o
    }

    fn sent(s: &mut TcpSender) -> Vec<(u32, bool)> {
        s.outbox
            .drain(..)
            .map(|p| (p.seq, p.retransmit()))
            .collect()
    }

    /// TSO deferral (the linux profile's default): a SACK that frees room for one segment,
    /// less than a GSO packet, while the oldest segment's ACK is due, sends nothing; the
    /// next frees a second, and both leave together (Linux `tcp_tso_should_defer`).
    #[test]
    fn a_room_of_one_waits_for_the_next_ack_under_tso_deferral() {
        let mut s = started_reno(TcpOptions::default());
        s.outbox.clear();
        s.on_ack(ms(100), &ack(1, Time::ZERO), None);
        assert_eq!(
            sent(&mut s),
            [(10, false), (11, false)],
            "a whole GSO packet"
        );
        let at = Time::from_micros(100_500);
        s.on_ack(at, &ack(1, Time::ZERO), Some(&sacks(&[(2, 3)], false)));
        assert_eq!(sent(&mut s), [], "room for one: the next ACK is due");
        let at = Time::from_micros(101_000);
        s.on_ack(at, &ack(1, Time::ZERO), Some(&sacks(&[(2, 4)], false)));
        assert_eq!(sent(&mut s), [(12, false), (13, false)]);
    }

    /// One segment lost of a window: RACK marks it once three segments sent at the same
    /// time are SACKed (the reordering window is zero from DupThresh on), PRR sends the
    /// retransmission at once, and recovery ends at ssthresh with nothing else resent.
    #[test]
    fn a_single_loss_is_repaired_by_one_retransmission() {
        let mut s = sender();
        s.on_ack(ms(100), &ack(1, Time::ZERO), None);
        assert_eq!(sent(&mut s), [(10, false), (11, false)]);
        // Segment 1 is lost; 2, 3 and 4 arrive. Each SACK frees room for new data.
        s.on_ack(ms(101), &ack(1, Time::ZERO), Some(&sacks(&[(2, 3)], false)));
        assert_eq!(s.st.ca_state, CaState::Disorder);
        assert_eq!(s.timer_kind, TimerKind::Reorder, "RACK waits min_rtt / 4");
        assert_eq!(sent(&mut s), [(12, false)]);
        s.on_ack(ms(102), &ack(1, Time::ZERO), Some(&sacks(&[(2, 4)], false)));
        assert_eq!(s.stats.fast_retransmits, 0);
        assert_eq!(sent(&mut s), [(13, false)]);
        s.on_ack(ms(103), &ack(1, Time::ZERO), Some(&sacks(&[(2, 5)], false)));
        assert_eq!(s.st.ca_state, CaState::Recovery);
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.st.ssthresh, 5.5, "Reno halves the window of 11");
        assert_eq!(
            sent(&mut s),
            [(1, true)],
            "PRR: the retransmission, nothing more"
        );
        // Everything arrives: recovery ends at ssthresh; one retransmission in all.
        s.on_ack(ms(201), &ack(s.snd_max, ms(103)), None);
        assert_eq!(s.st.ca_state, CaState::Open);
        // cwnd = ssthresh, then (as Linux, `tcp_may_raise_cwnd`) this ACK's growth: ten
        // segments acknowledged in congestion avoidance, 10 / 5.5 more.
        assert!(
            (s.st.cwnd - (5.5 + 10.0 / 5.5)).abs() < 1e-9,
            "{}",
            s.st.cwnd
        );
        assert_eq!(s.stats.retransmissions, 1);
        assert_eq!(s.losses.len(), 1);
    }

    /// RFC 2883 section 4 / Linux `tcp_try_undo_dsack`: when the receiver reports the
    /// retransmission as a duplicate, the reduction was spurious and is undone.
    #[test]
    fn a_dsack_of_every_retransmission_undoes_the_reduction() {
        let mut s = sender();
        s.on_ack(ms(100), &ack(1, Time::ZERO), None);
        for (t, hi) in [(101, 3), (102, 4), (103, 5)] {
            s.on_ack(ms(t), &ack(1, Time::ZERO), Some(&sacks(&[(2, hi)], false)));
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        let before = s.prior_cwnd;
        // Segment 1 was only delayed: the original arrives, then the retransmission,
        // which the receiver reports as a duplicate.
        s.on_ack(ms(110), &ack(5, ms(0)), None);
        assert_eq!(s.st.ca_state, CaState::Recovery);
        s.on_ack(ms(205), &ack(5, ms(0)), Some(&sacks(&[(1, 2)], true)));
        assert_eq!(s.stats.undos, 1);
        assert_eq!(s.st.cwnd, before);
        assert_eq!(s.st.ca_state, CaState::Open);
    }

    /// A rate-driven algorithm whose cwnd grows by one segment per ACK, recovery or not,
    /// so that new data goes out during recovery.
    struct Growing;

    impl crate::cc::CongestionControl for Growing {
        fn name(&self) -> &'static str {
            "growing"
        }
        fn ssthresh(&mut self, st: &crate::cc::CcState, _: &crate::cc::LossInfo) -> f64 {
            st.ssthresh
        }
        fn cong_avoid(&mut self, _: &mut crate::cc::CcState, _: u32) {}
        fn controls_rate(&self) -> bool {
            true
        }
        fn cong_control(&mut self, st: &mut crate::cc::CcState, _: &crate::cc::RateSample) {
            st.cwnd += 1.0;
        }
    }

    /// Without SACK the ACK that reaches `high_seq` is not a partial ACK: the oldest
    /// segment outstanding then is new data in flight, not a hole, so nothing is marked
    /// lost and no second recovery starts; recovery ends with an ACK above `high_seq`.
    #[test]
    fn without_sack_the_ack_ending_recovery_marks_nothing_lost() {
        let cfg = TcpConfig::from_options(&TcpOptions {
            stack: Some(Stack::Linux),
            sack: Some(false),
            ..TcpOptions::default()
        });
        let mut s = TcpSender::new(0, 0, 1, &cfg, Box::new(Growing), Recovery::Prr, None);
        s.start(Time::ZERO);
        s.on_ack(ms(100), &ack(1, Time::ZERO), None);
        // Segment 1 is lost: three duplicates, each letting one new segment go.
        for t in [101, 102, 103] {
            s.on_ack(ms(t), &ack(1, Time::ZERO), None);
        }
        assert_eq!(s.st.ca_state, CaState::Recovery);
        assert_eq!(s.stats.fast_retransmits, 1);
        let high_seq = s.high_seq;
        assert!(s.snd_max > high_seq, "new data sent in recovery");
        // The retransmission fills the hole: the ACK reaches high_seq exactly.
        s.on_ack(ms(200), &ack(high_seq, ms(103)), None);
        assert_eq!(s.sb.lost, 0);
        assert_eq!(s.stats.fast_retransmits, 1, "no spurious second recovery");
        s.on_ack(ms(201), &ack(high_seq + 1, ms(103)), None);
        assert_eq!(s.st.ca_state, CaState::Open);
        assert_eq!(s.stats.fast_retransmits, 1);
    }

    /// Without SACK, after a timeout, the ACK that reaches `high_seq` does not end the
    /// episode (Linux holds it until something above is acknowledged): the duplicates that
    /// resent segments provoke start no fast retransmit of data still in flight.
    #[test]
    fn without_sack_duplicates_after_a_timeout_start_no_fast_retransmit() {
        let mut s = started_reno(TcpOptions {
            sack: Some(false),
            ..TcpOptions::default()
        });
        let rto = s.take_timer_request().expect("RTO armed");
        s.on_timer(rto, rto);
        assert_eq!((s.st.ca_state, s.high_seq), (CaState::Loss, 10));
        // Only segment 0 was missing: its retransmission brings the ACK to high_seq.
        s.on_ack(rto + ms(100), &ack(10, rto), None);
        assert_eq!(s.st.ca_state, CaState::Loss, "held at high_seq");
        assert!(s.snd_max > 10, "new data goes out");
        for t in [101, 102, 103] {
            s.on_ack(rto + ms(t), &ack(10, rto), None);
        }
        assert_eq!(s.stats.fast_retransmits, 0);
        s.on_ack(rto + ms(150), &ack(11, rto), None);
        assert_eq!(s.st.ca_state, CaState::Open);
    }

    /// Linux `tcp_enter_loss` calls the algorithm's `set_state(TCP_CA_Loss)` on every
    /// timeout, also one that finds the state Loss already: Linux's CUBIC forgets W_max
    /// (`bictcp_reset`) each time, after `ssthresh` has just set it.
    #[test]
    fn every_timeout_tells_the_algorithm_it_enters_loss() {
        let cfg = TcpConfig::from_options(&TcpOptions {
            stack: Some(Stack::Linux),
            ..TcpOptions::default()
        });
        let params = crate::cc::cubic::CubicParams {
            variant: crate::cc::cubic::CubicVariant::Linux,
            ..Default::default()
        };
        let cubic = crate::cc::cubic::build(params);
        let mut s = TcpSender::new(0, 0, 1, &cfg, cubic, Recovery::Prr, None);
        s.start(Time::ZERO);
        s.outbox.clear();
        let w_max = |s: &TcpSender| {
            let mut vars = Vec::new();
            s.cc().variables(&mut vars);
            vars.iter().find(|(n, _)| *n == "w_max").unwrap().1
        };
        let rto = s.take_timer_request().expect("RTO armed");
        s.on_timer(rto, rto);
        assert_eq!((s.st.ca_state, w_max(&s)), (CaState::Loss, 0.0));
        // The retransmission is acknowledged (a valid sample: the backoff ends), the rest
        // is not; the next timeout finds the state still Loss.
        s.on_ack(rto + ms(100), &ack(1, rto), None);
        assert_eq!(s.st.ca_state, CaState::Loss);
        s.outbox.clear();
        let again = s.take_timer_request().expect("RTO re-armed");
        s.on_timer(again, again);
        assert_eq!(s.stats.timeouts, 2);
        assert_eq!(w_max(&s), 0.0, "reset again, not the window ssthresh saw");
    }

    /// Linux `tcp_enter_loss`: a timeout marks what is outstanding lost and resends it in
    /// slow start, segment by segment, never going back over SACKed data.
    #[test]
    fn a_timeout_resends_only_what_was_not_sacked() {
        let mut s = sender();
        let rto = s.take_timer_request().expect("RTO armed");
        assert_eq!(rto, Time::from_secs_f64(1.0));
        s.on_timer(rto, rto);
        assert_eq!((s.st.ca_state, s.stats.timeouts), (CaState::Loss, 1));
        assert_eq!(s.st.cwnd, 1.0);
        assert_eq!(sent(&mut s), [(0, true)]);
        // Segment 0 and the SACKed 4..7 count as delivered: slow start from 1 to 5
        // (Linux grows by `acked_sacked`), and the lost ones go out, skipping 4..7.
        s.on_ack(rto + ms(100), &ack(1, rto), Some(&sacks(&[(4, 7)], false)));
        assert_eq!(s.st.cwnd, 5.0);
        assert_eq!(
            sent(&mut s),
            [(1, true), (2, true), (3, true), (7, true), (8, true)]
        );
        assert_eq!(s.stats.timeouts, 1);
    }
}
