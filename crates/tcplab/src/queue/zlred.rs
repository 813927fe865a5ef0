//! ZL-RED, "Zombie Listed RED" (Hasegawa, Kurata & Murata, 003 section 6.1.2): SRED's
//! zombie list detects flows that take more than their share (TCP Reno beside Vegas)
//! and a two-step drop punishes them.
//!
//! Step 1 (eqs. 25-27): `p' = 0` below `th_min`, `p_min` for `th_min <= qlen < th_max`,
//! `p_max` from `th_max` on, where `qlen` is the instantaneous queue an arrival finds;
//! the arrival is dropped with `p1 = p' (1 + Hit(t)/P(t))` ([`DropCause::AqmEarly`]).
//! Step 2 (eq. 28): a packet that survived step 1 is dropped with
//! `p2 = hit_drop / (1 + P(t))` when it hit the zombie list and `qlen P(t) >= 2`
//! ([`DropCause::ZlRedSecondStep`]); `hit_drop = 0` turns step 2 off (fig. 11).

use super::zombie::{Arrival, DropFunction, ZombieList, ZombieQueue};
use crate::config::ZlRedSpec;
use crate::net::DropCause;
use crate::sim::RngStream;

/// A ZL-RED queue: the zombie-list FIFO with ZL-RED's two-step drop function.
pub type ZlRed = ZombieQueue<ZlRedSpec>;

/// Eq. (25) for an arrival that finds `qlen` packets in a buffer of `buffer`.
fn p_prime(s: &ZlRedSpec, qlen: f64, buffer: usize) -> f64 {
    if qlen < s.min_th {
        0.0
    } else if qlen < s.max_th_for(buffer as u32) {
        s.p_min
    } else {
        s.p_max
    }
}

/// Eqs. (26)-(28): the step-1 and step-2 probabilities for an arrival that finds `qlen`
/// packets, with hit indicator `hit` and hit frequency `p_hit` (already updated by it).
pub fn zlred_probabilities(
    p_prime: f64,
    hit: bool,
    p_hit: f64,
    qlen: f64,
    hit_drop: f64,
) -> (f64, f64) {
    let hit_term = if hit { 1.0 / p_hit } else { 0.0 };
    let p1 = (p_prime * (1.0 + hit_term)).min(1.0);
    let p2 = if hit && qlen * p_hit >= 2.0 {
        (hit_drop / (1.0 + p_hit)).min(1.0)
    } else {
        0.0
    };
    (p1, p2)
}

impl DropFunction for ZlRedSpec {
    fn kind(&self) -> &'static str {
        "zl_red"
    }

    fn zombie_list(&self) -> ZombieList {
        ZombieList::with_gain(self.zombies, self.replace_p, self.alpha)
    }

    /// Step 1, then step 2 for an arrival that survived step 1.
    fn early_drop(&self, a: &Arrival, rng: &mut RngStream) -> Option<DropCause> {
        let qlen = a.qlen as f64;
        let (p1, p2) = zlred_probabilities(
            p_prime(self, qlen, a.limit),
            a.hit,
            a.hit_freq,
            qlen,
            self.hit_drop,
        );
        if rng.bernoulli(p1) {
            Some(DropCause::AqmEarly)
        } else if rng.bernoulli(p2) {
            Some(DropCause::ZlRedSecondStep)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;
    use crate::queue::Queue;
    use crate::sim::Time;

    #[test]
    fn probabilities_follow_eqs_26_to_28() {
        // No hit: p1 = p', no second step.
        assert_eq!(
            zlred_probabilities(0.02, false, 0.2, 50.0, 0.8),
            (0.02, 0.0)
        );
        // Hit with P = 0.2: p1 = p'(1 + 5) and p2 = 0.8 / 1.2 since 50 * 0.2 >= 2.
        let (p1, p2) = zlred_probabilities(0.02, true, 0.2, 50.0, 0.8);
        assert!((p1 - 0.12).abs() < 1e-12 && (p2 - 0.8 / 1.2).abs() < 1e-12);
        // Hit, but qlen P < 2: no second step.
        assert_eq!(zlred_probabilities(0.0, true, 0.2, 9.0, 0.8).1, 0.0);
        // p1 is a probability.
        assert_eq!(zlred_probabilities(0.1, true, 0.01, 0.0, 0.0).0, 1.0);
    }

    #[test]
    fn step_function_of_eq_25() {
        let q = ZlRedSpec {
            p_min: 0.02,
            p_max: 0.1,
            min_th: 5.0,
            max_th: Some(60.0),
            ..ZlRedSpec::default()
        };
        assert_eq!(p_prime(&q, 4.0, 1000), 0.0);
        assert_eq!(p_prime(&q, 5.0, 1000), 0.02);
        assert_eq!(p_prime(&q, 59.0, 1000), 0.02);
        assert_eq!(p_prime(&q, 60.0, 1000), 0.1);
        // Without max_th it is 0.6 times the buffer.
        let default = ZlRedSpec { max_th: None, ..q };
        assert_eq!(p_prime(&default, 59.0, 90), 0.1);
        assert_eq!(p_prime(&default, 59.0, 1000), 0.02);
    }

    #[test]
    fn a_lone_flow_on_a_long_queue_meets_the_second_step() {
        // One flow always hits once the list is full (P -> 1), so with a queue of 20
        // packets step 2 drops with probability hit_drop / (1 + P) ~ 0.4.
        let mut q = ZlRed::new(
            ZlRedSpec {
                zombies: 10,
                replace_p: 0.25,
                alpha: Some(0.05),
                p_min: 0.0,
                p_max: 0.0,
                min_th: 5.0,
                max_th: Some(60.0),
                hit_drop: 0.8,
            },
            1000,
            None,
            RngStream::new(2, "q"),
        );
        let mut second = 0;
        let n = 20_000;
        for i in 0..n {
            if q.len() < 20 {
                let _ = q.enqueue(pkt(1000), Time::ZERO);
                continue;
            }
            match q.enqueue(pkt(1000), Time::ZERO) {
                Err(DropCause::ZlRedSecondStep) => second += 1,
                Err(c) => panic!("unexpected drop {c:?} at {i}"),
                Ok(()) => {
                    q.dequeue(Time::ZERO);
                }
            }
        }
        let frac = second as f64 / n as f64;
        assert!((frac - 0.4).abs() < 0.03, "second-step fraction {frac}");
    }
}
