//! SRED (Ott, Lakshman & Wong, "SRED: Stabilized RED", INFOCOM 1999): a queue that
//! scales its drop probability by the number of active flows its zombie list
//! ([`super::zombie`]) estimates without per-flow state.

use super::zombie::{Arrival, DropFunction, ZombieList, ZombieQueue};
use crate::config::{SredSpec, SredVariant};
use crate::net::DropCause;
use crate::sim::RngStream;

/// A SRED queue (SRED section III): the zombie-list FIFO with SRED's drop function.
pub type Sred = ZombieQueue<SredSpec>;

/// SRED section III: on the instantaneous queue `q` against the buffer size B,
/// `p_sred = p_max` for `B/3 <= q`, `p_max/4` for `B/6 <= q < B/3`, else 0.
fn p_sred(p_max: f64, qlen: usize, limit: usize) -> f64 {
    let b = limit as f64;
    let q = qlen as f64;
    if q >= b / 3.0 {
        p_max
    } else if q >= b / 6.0 {
        p_max / 4.0
    } else {
        0.0
    }
}

impl DropFunction for SredSpec {
    fn kind(&self) -> &'static str {
        "sred"
    }

    fn zombie_list(&self) -> ZombieList {
        ZombieList::with_gain(self.zombies, self.replace_p, self.alpha)
    }

    /// `p_zap = p_sred * min(1, 1/(256 P)^2)`, times `(1 + Hit/P)` in full SRED.
    fn early_drop(&self, a: &Arrival, rng: &mut RngStream) -> Option<DropCause> {
        let p = a.hit_freq;
        let mut p_zap = p_sred(self.p_max, a.qlen, a.limit);
        if p_zap <= 0.0 {
            return None;
        }
        if p > 0.0 {
            p_zap *= (1.0 / (256.0 * p)).powi(2).min(1.0);
        }
        if a.hit && self.variant == SredVariant::Full {
            p_zap *= 1.0 + 1.0 / p;
        }
        rng.bernoulli(p_zap.min(1.0)).then_some(DropCause::AqmEarly)
    }
}
