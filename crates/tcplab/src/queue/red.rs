//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993; "F&J" below) and the constant-probability
//! form that Hasegawa et al. analyse (003 section 4.1.2).
//!
//! Both share F&J's average queue estimator ([`AverageQueue`]); they differ in how the
//! average becomes a drop probability ([`RedRule`]). Every early drop carries
//! [`DropCause::AqmEarly`]; a full buffer still drops with [`DropCause::BufferOverflow`].

use super::{DropTail, Queue};
use crate::config::{RedConstSpec, RedMode, RedSpec};
use crate::net::{DropCause, Packet};
use crate::sim::{RngStream, Time};

/// What the two REDs differ in: how the average becomes the probability of dropping an
/// arrival. Each is implemented by its parameter table, which the queue keeps.
pub trait RedRule: Send {
    /// Short name for records.
    const KIND: &'static str;
    /// Average queue (packets, of `mean_packet_size` in byte mode) below which nothing
    /// is dropped early.
    fn min_th(&self) -> f64;
    /// Weight of the newest sample in the average, F&J's `w_q`.
    fn w_q(&self) -> f64;
    /// Bytes of a typical packet: the idle correction's transmission time `s` (F&J
    /// section 4) and the unit of the byte-mode queue.
    fn mean_packet_size(&self) -> u32;
    fn mode(&self) -> RedMode;
    /// The probability of dropping an arrival of `size` bytes at average `avg` (at least
    /// `min_th`), given F&J's `count` (which the rule may step); `None`: the average is
    /// above the region of probabilistic drops and every arrival is dropped.
    fn arrival_probability(&self, avg: f64, size: u32, count: &mut i64) -> Option<f64>;
}

/// F&J figure 2: `p_b` rises linearly from 0 at `min_th` to `max_p` at `max_th`; the count
/// of packets since the last drop spreads drops evenly (section 7). `gentle` (Floyd 2000):
/// between `max_th` and `2 max_th`, `p_b` rises linearly from `max_p` to 1 instead of
/// jumping to 1. `wait` is NS-2's option ([`spaced_probability`]).
impl RedRule for RedSpec {
    const KIND: &'static str = "red";

    fn min_th(&self) -> f64 {
        self.min_th
    }

    fn w_q(&self) -> f64 {
        self.w_q
    }

    fn mean_packet_size(&self) -> u32 {
        self.mean_packet_size
    }

    fn mode(&self) -> RedMode {
        self.mode
    }

    fn arrival_probability(&self, avg: f64, size: u32, count: &mut i64) -> Option<f64> {
        let RedSpec {
            min_th,
            max_th,
            max_p,
            ..
        } = *self;
        let mut p_b = if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if self.gentle && avg < 2.0 * max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            return None;
        };
        if self.mode == RedMode::Bytes {
            p_b *= size as f64 / self.max_packet_size as f64;
        }
        *count += 1;
        Some(spaced_probability(p_b, *count as f64, self.wait))
    }
}

/// 003 section 4.1.2: every arrival is dropped with probability `p` while the average lies
/// at or above `min_th` (and every arrival at or above `max_th`, if given). No count-based
/// spacing: drops are independent, as the analysis assumes.
impl RedRule for RedConstSpec {
    const KIND: &'static str = "red_const";

    fn min_th(&self) -> f64 {
        self.min_th
    }

    fn w_q(&self) -> f64 {
        self.w_q
    }

    fn mean_packet_size(&self) -> u32 {
        self.mean_packet_size
    }

    fn mode(&self) -> RedMode {
        RedMode::Packets
    }

    fn arrival_probability(&self, avg: f64, _size: u32, _count: &mut i64) -> Option<f64> {
        (avg < self.max_th.unwrap_or(f64::INFINITY)).then_some(self.p)
    }
}

/// F&J's average queue size: an EWMA updated on every arrival, decayed over idle periods
/// as if `m` small packets had arrived to an empty queue (figure 2: "if the queue is
/// empty, m <- f(time - q_time); avg <- (1 - w_q)^m avg").
#[derive(Clone, Debug, PartialEq)]
pub struct AverageQueue {
    w_q: f64,
    /// Transmission time of a typical small packet on the link, seconds (F&J's `s`).
    s: f64,
    avg: f64,
    /// Start of the current idle period (F&J's `q_time`), if the link is idle.
    idle_since: Option<Time>,
}

impl AverageQueue {
    pub fn new(w_q: f64, mean_packet_size: u32, rate_bps: u64) -> Self {
        AverageQueue {
            w_q,
            s: mean_packet_size as f64 * 8.0 / rate_bps.max(1) as f64,
            avg: 0.0,
            idle_since: Some(Time::ZERO),
        }
    }

    /// Updates the average for an arrival that finds `q` waiting at `now`.
    pub fn on_arrival(&mut self, q: f64, now: Time) -> f64 {
        match self.idle_since {
            Some(t0) => {
                let m = now.saturating_sub(t0).as_secs_f64() / self.s;
                self.avg *= (1.0 - self.w_q).powf(m);
                // Until the arrival is stored the link stays idle, from now on.
                self.idle_since = Some(now);
            }
            None => self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q,
        }
        self.avg
    }

    /// The arrival was stored: the idle period is over.
    pub fn busy(&mut self) {
        self.idle_since = None;
    }

    /// The link found nothing to send at `now`: an idle period starts.
    pub fn idle(&mut self, now: Time) {
        if self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
    }

    pub fn value(&self) -> f64 {
        self.avg
    }
}

/// A RED queue (standard, [`RedSpec`], or constant-probability, [`RedConstSpec`]) in
/// front of a FIFO with hard limits.
pub struct Red<R> {
    fifo: DropTail,
    rule: R,
    avg: AverageQueue,
    /// F&J's `count`, kept as in their figure 2: -1 while the average is below `min_th`,
    /// incremented on each arrival before `p_a` is computed, 0 after a drop. So after a
    /// drop the gap to the next one is uniform on 1..1/p_b - 1 and the long-run drop
    /// fraction at a steady average is 2 p_b (section 7 describes the gap as uniform on
    /// 1..1/p_b, a difference of one packet).
    count: i64,
    rng: RngStream,
}

impl<R: RedRule> Red<R> {
    /// `limit_packets`/`limit_bytes` are the buffer's hard limits; `rate_bps` is the
    /// link's rate (for the idle correction).
    pub fn new(
        rule: R,
        limit_packets: usize,
        limit_bytes: Option<u64>,
        rate_bps: u64,
        rng: RngStream,
    ) -> Self {
        Red {
            fifo: DropTail::new(limit_packets, limit_bytes),
            avg: AverageQueue::new(rule.w_q(), rule.mean_packet_size(), rate_bps),
            rule,
            count: -1,
            rng,
        }
    }

    /// The current average queue.
    pub fn average(&self) -> f64 {
        self.avg.value()
    }

    fn instantaneous(&self) -> f64 {
        match self.rule.mode() {
            RedMode::Packets => self.fifo.len() as f64,
            RedMode::Bytes => self.fifo.bytes() as f64 / self.rule.mean_packet_size() as f64,
        }
    }

    /// Decides whether an arrival of `size` bytes is dropped early, given the average.
    fn early_drop(&mut self, avg: f64, size: u32) -> bool {
        if avg < self.rule.min_th() {
            self.count = -1;
            return false;
        }
        let Some(p_a) = self.rule.arrival_probability(avg, size, &mut self.count) else {
            self.count = 0;
            return true;
        };
        let drop = self.rng.bernoulli(p_a);
        if drop {
            self.count = 0;
        }
        drop
    }
}

/// F&J section 7: the per-arrival probability `p_a` that makes drops roughly evenly
/// spaced, from `p_b` and the packets since the last drop; `wait` is NS-2's variant.
pub fn spaced_probability(p_b: f64, count: f64, wait: bool) -> f64 {
    let cp = count * p_b;
    if !wait {
        if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        0.0
    } else if cp < 2.0 {
        p_b / (2.0 - cp)
    } else {
        1.0
    }
}

impl<R: RedRule> Queue for Red<R> {
    fn enqueue(&mut self, pkt: Packet, now: Time) -> Result<(), DropCause> {
        let q = self.instantaneous();
        let avg = self.avg.on_arrival(q, now);
        if self.early_drop(avg, pkt.size) {
            return Err(DropCause::AqmEarly);
        }
        self.fifo.enqueue(pkt, now)?;
        self.avg.busy();
        Ok(())
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let p = self.fifo.dequeue(now);
        if p.is_none() {
            self.avg.idle(now);
        }
        p
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.fifo.for_each(f)
    }

    fn kind(&self) -> &'static str {
        R::KIND
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("avg", self.avg.value()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;

    const RATE: u64 = 10_000_000;

    /// RED with the defaults (thresholds 5 and 15, w_q 0.002, packets, 500 and 1500 bytes).
    fn standard(max_p: f64, gentle: bool) -> RedSpec {
        RedSpec {
            max_p,
            gentle,
            ..RedSpec::default()
        }
    }

    /// Constant-probability RED above 5 packets without an upper threshold.
    fn constant(p: f64) -> RedConstSpec {
        RedConstSpec {
            p,
            min_th: 5.0,
            max_th: None,
            w_q: 0.002,
            mean_packet_size: 500,
        }
    }

    /// An arrival at an idle link goes through `offer_idle` with the time the link fell
    /// idle; the average then decays over the idle period exactly as when the link asked
    /// the queue at that time (as it did before arrivals at idle links took the shortcut).
    #[test]
    fn offer_idle_decays_the_average_from_when_the_link_fell_idle() {
        let build = || {
            Red::new(
                standard(0.1, false),
                100,
                None,
                RATE,
                RngStream::new(3, "red"),
            )
        };
        let busy = |red: &mut Red<RedSpec>| {
            for i in 0..40u64 {
                let _ = red.enqueue(pkt(1000), Time::from_micros(i));
            }
            // Drain it, the last packet leaving at 1 ms (its transmission ends later).
            for _ in 0..red.len() {
                red.dequeue(Time::from_millis(1)).unwrap();
            }
        };
        let (fell_idle, arrival) = (Time::from_millis(2), Time::from_millis(50));
        let mut asked_then = build();
        busy(&mut asked_then);
        assert!(asked_then.dequeue(fell_idle).is_none());
        asked_then.enqueue(pkt(1000), arrival).unwrap();
        assert!(asked_then.dequeue(arrival).is_some());

        let mut shortcut = build();
        busy(&mut shortcut);
        let out = shortcut.offer_idle(pkt(1000), Some(fell_idle), arrival);
        assert!(out.unwrap().is_some());
        assert_eq!(shortcut.average(), asked_then.average());

        // Without the notice the link would count as busy until the arrival and the
        // average would not decay.
        let mut unnoticed = build();
        busy(&mut unnoticed);
        unnoticed.offer_idle(pkt(1000), None, arrival).unwrap();
        assert_ne!(unnoticed.average(), asked_then.average());
    }

    /// `rule` with its average frozen (w_q = 0).
    trait Frozen {
        fn frozen(self) -> Self;
    }

    impl Frozen for RedSpec {
        fn frozen(self) -> Self {
            RedSpec { w_q: 0.0, ..self }
        }
    }

    impl Frozen for RedConstSpec {
        fn frozen(self) -> Self {
            RedConstSpec { w_q: 0.0, ..self }
        }
    }

    /// Offers `n` arrivals with the average held at `avg` and one packet always waiting,
    /// and returns the fraction dropped early.
    fn drop_fraction_at<R: RedRule + Frozen + Clone>(rule: &R, avg: f64, n: u32) -> f64 {
        let mut red = Red::new(
            rule.clone().frozen(),
            1000,
            None,
            RATE,
            RngStream::new(11, "red-test"),
        );
        red.avg.avg = avg;
        red.avg.busy();
        let mut drops = 0;
        let mut t = Time::ZERO;
        for _ in 0..n {
            t += Time::from_micros(100);
            match red.enqueue(pkt(1000), t) {
                Ok(()) => {
                    red.dequeue(t);
                }
                Err(c) => {
                    assert_eq!(c, DropCause::AqmEarly);
                    drops += 1;
                }
            }
        }
        assert!((red.average() - avg).abs() < 1e-12, "the average was held");
        drops as f64 / n as f64
    }

    /// The long-run drop fraction of the count-based rule, computed independently from
    /// the formula: drops are a renewal process whose gap X has P(X > k) =
    /// prod_{j=1..k} (1 - p_a(j)), so the fraction is 1 / E[X].
    fn expected_fraction(p_b: f64) -> f64 {
        let mut survive = 1.0;
        let mut mean_gap = 0.0;
        let mut k = 0.0;
        while survive > 1e-15 {
            mean_gap += survive;
            k += 1.0;
            survive *= 1.0 - spaced_probability(p_b, k, false);
        }
        1.0 / mean_gap
    }

    #[test]
    fn drop_fraction_follows_the_formula_for_held_averages() {
        let params = standard(0.1, false);
        for avg in [3.0, 5.0, 7.0, 10.0, 14.0] {
            let measured = drop_fraction_at(&params, avg, 100_000);
            let p_b = if avg < 5.0 {
                0.0
            } else {
                0.1 * (avg - 5.0) / 10.0
            };
            let expected = if p_b == 0.0 {
                0.0
            } else {
                expected_fraction(p_b)
            };
            println!(
                "RED avg {avg}: p_b {p_b:.3}, drop fraction {measured:.5}, formula {expected:.5}"
            );
            // Drops are nearly periodic, so the fraction's error is far below binomial.
            assert!(
                (measured - expected).abs() <= 0.03 * expected + 1e-4,
                "avg {avg}: measured {measured}, expected {expected} (p_b {p_b})"
            );
        }
        assert_eq!(drop_fraction_at(&params, 15.0, 1000), 1.0);
        assert_eq!(drop_fraction_at(&params, 40.0, 1000), 1.0);
    }

    #[test]
    fn gentle_ramps_from_max_p_to_one_between_max_th_and_twice_max_th() {
        let params = standard(0.1, true);
        for avg in [15.0, 20.0, 25.0] {
            let p_b = 0.1 + 0.9 * (avg - 15.0) / 15.0;
            let measured = drop_fraction_at(&params, avg, 50_000);
            let expected = expected_fraction(p_b);
            assert!(
                (measured - expected).abs() <= 0.03 * expected,
                "avg {avg}: measured {measured}, expected {expected}"
            );
        }
        assert_eq!(drop_fraction_at(&params, 30.0, 1000), 1.0);
    }

    #[test]
    fn constant_profile_drops_independently_with_p_above_min_th() {
        let params = constant(1.0 / 30.0);
        assert_eq!(drop_fraction_at(&params, 4.9, 10_000), 0.0);
        for avg in [5.0, 50.0, 500.0] {
            let n = 200_000;
            let measured = drop_fraction_at(&params, avg, n);
            let p: f64 = 1.0 / 30.0;
            let sigma = (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (measured - p).abs() < 4.0 * sigma,
                "avg {avg}: measured {measured}, expected {p}"
            );
        }
        // An upper threshold drops every arrival from there on.
        let capped = RedConstSpec {
            max_th: Some(20.0),
            ..params
        };
        assert_eq!(drop_fraction_at(&capped, 20.0, 1000), 1.0);
    }

    #[test]
    fn byte_mode_scales_the_probability_by_packet_size() {
        let params = RedSpec {
            mode: RedMode::Bytes,
            ..standard(0.1, false)
        };
        // At average 10, p_b = 0.05; 1000-byte packets against a 1500-byte reference
        // scale it by 2/3 before the count spaces the drops.
        let measured = drop_fraction_at(&params, 10.0, 100_000);
        let expected = expected_fraction(0.05 * 1000.0 / 1500.0);
        assert!(
            (measured - expected).abs() <= 0.03 * expected,
            "measured {measured}, expected {expected}"
        );
    }

    /// A reference EWMA written from F&J figure 2, against which the queue's own average
    /// is compared arrival by arrival over busy and idle periods.
    #[test]
    fn average_follows_the_ewma_with_idle_correction() {
        let w = 0.05;
        let mean_size = 500u32;
        let params = RedSpec {
            w_q: w,
            min_th: 1000.0,
            max_th: 2000.0,
            ..standard(0.1, false)
        };
        let mut red = Red::new(params, 1000, None, RATE, RngStream::new(1, "x"));
        let s = mean_size as f64 * 8.0 / RATE as f64;
        let mut reference = 0.0f64;
        let mut idle_since = Some(0.0f64);
        let mut rng = RngStream::new(5, "script");
        let mut t = 0.0f64;
        for step in 0..5_000 {
            t += rng.uniform_range(0.0, 0.002);
            let now = Time::from_secs_f64(t);
            let t_ns = now.as_secs_f64();
            // Bursts of arrivals, then drain completely (an idle period), repeatedly.
            if (step / 50) % 2 == 0 {
                let q = red.len() as f64;
                match idle_since {
                    Some(t0) => reference *= (1.0 - w).powf((t_ns - t0) / s),
                    None => reference = (1.0 - w) * reference + w * q,
                }
                idle_since = None;
                red.enqueue(pkt(1000), now).unwrap();
                assert!(
                    (red.average() - reference).abs() < 1e-9 * (1.0 + reference),
                    "step {step}: {} vs {reference}",
                    red.average()
                );
            } else if red.dequeue(now).is_none() && idle_since.is_none() {
                idle_since = Some(t_ns);
            }
        }
        assert!(reference > 1.0, "the script built a queue");
    }
}
