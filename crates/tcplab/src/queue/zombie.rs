//! SRED's zombie list (Ott, Lakshman & Wong, "SRED: Stabilized RED", INFOCOM 1999,
//! section II) and the FIFO built around it that SRED ([`super::sred`]) and ZL-RED
//! ([`super::zlred`], 003 section 6.1) share: every arrival updates the list, then the
//! queue's own drop function decides on an early drop, then the buffer limit applies.

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

    /// A list of `zombies` entries (SRED's M) and replacement probability `replace_p`
    /// (its p), with the estimator's gain `alpha` or by default `replace_p / zombies`.
    pub fn with_gain(zombies: u32, replace_p: f64, alpha: Option<f64>) -> Self {
        let zombies = zombies as usize;
        ZombieList::new(
            zombies,
            replace_p,
            alpha.unwrap_or(replace_p / zombies as f64),
        )
    }

    pub fn zombies(&self) -> &[Zombie] {
        &self.zombies
    }
}

/// What a zombie-list queue sees of one arrival when it decides on an early drop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    /// Packets the arrival finds queued.
    pub qlen: usize,
    /// The buffer size in packets.
    pub limit: usize,
    /// `Hit(t)`: the arrival matched the zombie it was compared with.
    pub hit: bool,
    /// `P(t)`, already updated by this arrival.
    pub hit_freq: f64,
}

/// The part in which SRED and ZL-RED differ: the early-drop decision. Each is implemented
/// by its parameter table, which the queue keeps.
pub trait DropFunction: Send {
    /// Short name for records.
    fn kind(&self) -> &'static str;
    /// The zombie list its parameters describe.
    fn zombie_list(&self) -> ZombieList;
    /// The cause of an early drop of this arrival, or `None` to admit it (subject to the
    /// buffer limit).
    fn early_drop(&self, arrival: &Arrival, rng: &mut RngStream) -> Option<DropCause>;
}

/// A FIFO whose arrivals feed a zombie list and pass a drop function `F`.
pub struct ZombieQueue<F> {
    fifo: DropTail,
    list: ZombieList,
    drop: F,
    rng: RngStream,
}

impl<F: DropFunction> ZombieQueue<F> {
    pub fn new(drop: F, limit_packets: usize, limit_bytes: Option<u64>, rng: RngStream) -> Self {
        ZombieQueue {
            fifo: DropTail::new(limit_packets, limit_bytes),
            list: drop.zombie_list(),
            drop,
            rng,
        }
    }

    pub fn zombie_list(&self) -> &ZombieList {
        &self.list
    }
}

impl<F: DropFunction> Queue for ZombieQueue<F> {
    fn enqueue(&mut self, pkt: Packet, now: Time) -> Result<(), DropCause> {
        let hit = self.list.observe(pkt.flow, now, &mut self.rng);
        let arrival = Arrival {
            qlen: self.fifo.len(),
            limit: self.fifo.limit_packets(),
            hit,
            hit_freq: self.list.hit_freq(),
        };
        if let Some(cause) = self.drop.early_drop(&arrival, &mut self.rng) {
            return Err(cause);
        }
        self.fifo.enqueue(pkt, now)
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
        self.drop.kind()
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
