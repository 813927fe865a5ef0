//! SRED (Ott, Lakshman & Wong, "SRED: Stabilized RED", INFOCOM 1999): a zombie list that
//! estimates the number of active flows without per-flow state, and the SRED queue that
//! scales its drop probability by that estimate.
//!
//! The zombie list is also the detector of ZL-RED (003 section 6.1.1, [`super::zlred`]).

use super::{DropTail, Queue};
use crate::net::{DropCause, FlowId, Packet};
use crate::sim::{RngStream, Time};

/// One remembered flow ("zombie") with its hit counter and last hit time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zombie {
    pub flow: FlowId,
    /// Hits since the zombie was (re)written.
    pub count: u32,
    /// Arrival time of its most recent packet.
    pub last_seen: Time,
}

/// SRED's zombie list and hit-frequency estimate (SRED section II; 003 section 6.1.1).
///
/// While the list has room every arrival is added as a new zombie. Once it is full, each
/// arrival is compared with one zombie drawn uniformly at random: the same flow is a
/// *hit* (the zombie's count goes up); otherwise the zombie is overwritten by the
/// arrival's flow with probability `replace_p`. The hit frequency is the EWMA
/// `P(t) = (1 - alpha) P(t-1) + alpha Hit(t)` over arrivals; with N flows of equal rate
/// each holds about M/N zombies, so `P ~ 1/N` and `1/P(t)` estimates N.
#[derive(Clone, Debug)]
pub struct ZombieList {
    zombies: Vec<Zombie>,
    capacity: usize,
    replace_p: f64,
    alpha: f64,
    hit_freq: f64,
}

impl ZombieList {
    /// `capacity` is SRED's M (1000 in both papers), `replace_p` its p (0.25), `alpha`
    /// the estimator's gain (SRED suggests p/M, so the estimate's memory matches the
    /// list's, which turns over about once every M/p arrivals).
    pub fn new(capacity: usize, replace_p: f64, alpha: f64) -> Self {
        ZombieList {
            zombies: Vec::with_capacity(capacity),
            capacity: capacity.max(1),
            replace_p,
            alpha,
            hit_freq: 0.0,
        }
    }

    /// Processes an arrival of `flow`; returns `Hit(t)` and updates `P(t)`.
    pub fn observe(&mut self, flow: FlowId, now: Time, rng: &mut RngStream) -> bool {
        let hit = if self.zombies.len() < self.capacity {
            self.zombies.push(Zombie {
                flow,
                count: 0,
                last_seen: now,
            });
            false
        } else {
            let z = &mut self.zombies[rng.below(self.capacity as u64) as usize];
            if z.flow == flow {
                z.count += 1;
                z.last_seen = now;
                true
            } else {
                if rng.bernoulli(self.replace_p) {
                    *z = Zombie {
                        flow,
                        count: 0,
                        last_seen: now,
                    };
                }
                false
            }
        };
        let h = if hit { 1.0 } else { 0.0 };
        self.hit_freq = (1.0 - self.alpha) * self.hit_freq + self.alpha * h;
        hit
    }

    /// The hit frequency `P(t)`.
    pub fn hit_freq(&self) -> f64 {
        self.hit_freq
    }

    /// `1/P(t)`, the estimated number of active flows (NaN before the first hit).
    pub fn flows_estimate(&self) -> f64 {
        if self.hit_freq > 0.0 {
            1.0 / self.hit_freq
        } else {
            f64::NAN
        }
    }

    pub fn zombies(&self) -> &[Zombie] {
        &self.zombies
    }
}

/// Which SRED drop function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SredVariant {
    /// "Simple SRED": `p_zap = p_sred(q) * min(1, 1/(256 P(t))^2)`.
    Simple,
    /// "Full SRED": simple SRED times `(1 + Hit(t)/P(t))`, so flows that hit often
    /// (misbehaving ones) lose more.
    Full,
}

/// SRED's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SredParams {
    pub zombies: usize,
    pub replace_p: f64,
    pub alpha: f64,
    /// SRED's p_max (0.15 in the paper).
    pub p_max: f64,
    pub variant: SredVariant,
}

/// A SRED queue. Its drop function works on the instantaneous queue `q` against the
/// buffer size B: `p_sred = p_max` for `B/3 <= q`, `p_max/4` for `B/6 <= q < B/3`, else 0
/// (SRED section III).
pub struct Sred {
    fifo: DropTail,
    list: ZombieList,
    params: SredParams,
    rng: RngStream,
}

impl Sred {
    pub fn new(
        params: SredParams,
        limit_packets: usize,
        limit_bytes: Option<u64>,
        rng: RngStream,
    ) -> Self {
        Sred {
            fifo: DropTail::new(limit_packets, limit_bytes),
            list: ZombieList::new(params.zombies, params.replace_p, params.alpha),
            params,
            rng,
        }
    }

    pub fn zombie_list(&self) -> &ZombieList {
        &self.list
    }

    fn p_sred(&self) -> f64 {
        let b = self.fifo.limit_packets() as f64;
        let q = self.fifo.len() as f64;
        if q >= b / 3.0 {
            self.params.p_max
        } else if q >= b / 6.0 {
            self.params.p_max / 4.0
        } else {
            0.0
        }
    }
}

impl Queue for Sred {
    fn enqueue(&mut self, pkt: Packet, now: Time) -> Result<(), DropCause> {
        let hit = self.list.observe(pkt.flow, now, &mut self.rng);
        let p = self.list.hit_freq();
        let mut p_zap = self.p_sred();
        if p_zap > 0.0 {
            if p > 0.0 {
                p_zap *= (1.0 / (256.0 * p)).powi(2).min(1.0);
            }
            if hit && self.params.variant == SredVariant::Full {
                p_zap *= 1.0 + 1.0 / p;
            }
            if self.rng.bernoulli(p_zap.min(1.0)) {
                return Err(DropCause::AqmEarly);
            }
        }
        if self.fifo.would_overflow(&pkt) {
            return Err(DropCause::BufferOverflow);
        }
        self.fifo.push(pkt);
        Ok(())
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        self.fifo.dequeue(now)
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
        "sred"
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("hit_freq", self.list.hit_freq()));
        out.push(("flows_estimate", self.list.flows_estimate()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `n` arrivals from `flows` equal-rate flows in random order and returns the
    /// mean of 1/P(t) over the second half (after the list has filled and settled).
    fn settled_estimate(flows: u32, n: u32, seed: u64) -> f64 {
        let m = 1000;
        let mut list = ZombieList::new(m, 0.25, 0.25 / m as f64);
        let mut rng = RngStream::new(seed, "zombie");
        let mut order = RngStream::new(seed, "arrivals");
        let mut sum = 0.0;
        for i in 0..n {
            let f = order.below(flows as u64) as u32;
            list.observe(f, Time::ZERO, &mut rng);
            if i >= n / 2 {
                sum += list.flows_estimate();
            }
        }
        sum / (n - n / 2) as f64
    }

    #[test]
    fn inverse_hit_frequency_settles_near_the_number_of_flows() {
        for n_flows in [2u32, 5, 10] {
            let est = settled_estimate(n_flows, 200_000, 3);
            println!("zombie list, {n_flows} flows: mean 1/P = {est:.3}");
            assert!(
                (est - n_flows as f64).abs() < 0.1 * n_flows as f64,
                "{n_flows} flows: 1/P settled at {est}"
            );
        }
    }

    #[test]
    fn a_heavy_flow_hits_more_often_than_a_light_one() {
        let m = 1000;
        let mut list = ZombieList::new(m, 0.25, 0.25 / m as f64);
        let mut rng = RngStream::new(1, "zombie");
        let mut order = RngStream::new(1, "arrivals");
        let (mut heavy, mut light) = ((0u32, 0u32), (0u32, 0u32));
        for _ in 0..100_000 {
            // Flow 0 sends half the packets; flows 1..=5 share the other half.
            let f = if order.bernoulli(0.5) {
                0
            } else {
                1 + order.below(5) as u32
            };
            let hit = list.observe(f, Time::ZERO, &mut rng) as u32;
            if f == 0 {
                heavy = (heavy.0 + hit, heavy.1 + 1);
            } else {
                light = (light.0 + hit, light.1 + 1);
            }
        }
        let rate = |(h, n): (u32, u32)| h as f64 / n as f64;
        // Hit probability is the flow's share of the list: about 1/2 against 1/10.
        assert!(
            rate(heavy) > 0.4 && rate(light) < 0.15,
            "{heavy:?} {light:?}"
        );
    }
}
