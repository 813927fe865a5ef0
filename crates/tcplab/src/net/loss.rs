//! Random loss on a link direction.

use super::packet::{Packet, PacketKind};
use crate::config::GilbertElliottSpec;
use crate::sim::{Drand48, RngStream};

/// Which packets a loss model may drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossTarget {
    Data,
    Acks,
    Both,
}

impl LossTarget {
    pub fn applies_to(self, kind: PacketKind) -> bool {
        match self {
            LossTarget::Both => true,
            LossTarget::Data => kind != PacketKind::Ack,
            LossTarget::Acks => kind == PacketKind::Ack,
        }
    }
}

/// A loss process. Each link direction owns one with its own random stream.
#[derive(Clone, Debug)]
pub enum LossProcess {
    /// Independent loss with probability `p` per packet.
    Bernoulli { p: f64 },
    /// Gilbert-Elliott bursts: see [`GilbertElliott`].
    GilbertElliott(GilbertElliott),
}

/// A two-state Markov chain (Gilbert 1960, Elliott 1963) stepped once per packet the
/// model applies to: from Good to Bad with probability `p`, from Bad to Good with
/// probability `r`; the packet is then lost with `loss_good` or `loss_bad` of the state
/// it finds. With `loss_good = 0` and `loss_bad = 1` (Gilbert's model) the mean loss rate
/// is `p / (p + r)` and the mean burst of consecutive losses `1 / r`.
#[derive(Clone, Debug, PartialEq)]
pub struct GilbertElliott {
    pub p: f64,
    pub r: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    /// The current state.
    pub bad: bool,
}

impl GilbertElliott {
    /// A chain whose first state is drawn from the stationary distribution, so that
    /// short runs are not biased toward the Good state.
    pub fn new(p: f64, r: f64, loss_good: f64, loss_bad: f64, rng: &mut RngStream) -> Self {
        let pi_bad = if p + r > 0.0 { p / (p + r) } else { 0.0 };
        GilbertElliott {
            p,
            r,
            loss_good,
            loss_bad,
            bad: rng.bernoulli(pi_bad),
        }
    }

    /// The chain's (p, r, loss_good, loss_bad) of a (validated) scenario spec.
    pub fn params_of(g: &GilbertElliottSpec) -> (f64, f64, f64, f64) {
        let (p, r) = match (g.mean_loss, g.mean_burst) {
            (Some(l), Some(b)) => Self::from_means(l, b),
            _ => (g.p.unwrap_or(0.0), g.r.unwrap_or(1.0)),
        };
        (p, r, g.loss_good.unwrap_or(0.0), g.loss_bad.unwrap_or(1.0))
    }

    /// (p, r) of Gilbert's model with the given mean loss rate and mean burst length
    /// (`mean_burst >= 1`, `mean_loss < 1`).
    pub fn from_means(mean_loss: f64, mean_burst: f64) -> (f64, f64) {
        let r = 1.0 / mean_burst;
        (r * mean_loss / (1.0 - mean_loss), r)
    }

    /// The long-run fraction of packets lost.
    pub fn mean_loss(&self) -> f64 {
        let pi_bad = if self.p + self.r > 0.0 {
            self.p / (self.p + self.r)
        } else {
            0.0
        };
        pi_bad * self.loss_bad + (1.0 - pi_bad) * self.loss_good
    }

    /// Steps the chain for one packet and says whether that packet is lost.
    fn next(&mut self, rng: &mut RngStream) -> bool {
        let flip = if self.bad { self.r } else { self.p };
        if rng.bernoulli(flip) {
            self.bad = !self.bad;
        }
        rng.bernoulli(if self.bad {
            self.loss_bad
        } else {
            self.loss_good
        })
    }
}

/// A loss model bound to its random stream.
#[derive(Clone, Debug)]
pub struct LossModel {
    pub process: LossProcess,
    pub target: LossTarget,
    pub rng: RngStream,
    /// Bernoulli draws from POSIX `drand48` instead of `rng` (`stream = "drand48"`).
    pub drand48: Option<Drand48>,
}

impl LossModel {
    /// Decides whether `pkt` is lost. Packets the model does not target draw nothing, so
    /// the data stream's losses do not depend on the ACK traffic.
    pub fn drops(&mut self, pkt: &Packet) -> bool {
        if !self.target.applies_to(pkt.kind) {
            return false;
        }
        match &mut self.process {
            LossProcess::Bernoulli { p } => match self.drand48.as_mut() {
                // As the test bed's delay element: one draw per packet, lost below p.
                Some(d) => d.uniform() < *p,
                None => self.rng.bernoulli(*p),
            },
            LossProcess::GilbertElliott(ge) => ge.next(&mut self.rng),
        }
    }

    /// Discards `n` draws of a Bernoulli model's stream, as packets the model never sees
    /// would have taken them (`skip`).
    pub fn skip(&mut self, n: u64) {
        for _ in 0..n {
            match self.drand48.as_mut() {
                Some(d) => {
                    d.uniform();
                }
                None => {
                    self.rng.uniform();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;

    /// Loss rate and mean burst (runs of consecutive losses) over `n` data packets.
    fn measure(model: &mut LossModel, n: u32) -> (f64, f64) {
        let (mut lost, mut bursts, mut in_burst) = (0u32, 0u32, false);
        for _ in 0..n {
            let l = model.drops(&pkt(1000));
            lost += l as u32;
            if l && !in_burst {
                bursts += 1;
            }
            in_burst = l;
        }
        (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
    }

    fn gilbert(mean_loss: f64, mean_burst: f64, seed: u64) -> LossModel {
        let mut rng = RngStream::new(seed, "loss:test");
        let (p, r) = GilbertElliott::from_means(mean_loss, mean_burst);
        LossModel {
            process: LossProcess::GilbertElliott(GilbertElliott::new(p, r, 0.0, 1.0, &mut rng)),
            target: LossTarget::Data,
            rng,
            drand48: None,
        }
    }

    #[test]
    fn gilbert_loss_rate_and_burst_length_match_the_parameters() {
        for (loss, burst) in [(0.01, 1.0), (0.01, 3.0), (0.05, 2.0), (0.2, 8.0)] {
            let (measured_loss, measured_burst) = measure(&mut gilbert(loss, burst, 7), 2_000_000);
            assert!(
                (measured_loss - loss).abs() < 0.05 * loss,
                "loss {loss} burst {burst}: measured loss {measured_loss}"
            );
            assert!(
                (measured_burst - burst).abs() < 0.05 * burst,
                "loss {loss} burst {burst}: measured burst {measured_burst}"
            );
        }
    }

    #[test]
    fn elliott_states_with_partial_loss_give_the_stationary_mean() {
        let mut rng = RngStream::new(3, "loss:ge");
        let ge = GilbertElliott::new(0.02, 0.1, 0.001, 0.3, &mut rng);
        let expected = ge.mean_loss();
        let mut model = LossModel {
            process: LossProcess::GilbertElliott(ge),
            target: LossTarget::Both,
            rng,
            drand48: None,
        };
        let (measured, _) = measure(&mut model, 2_000_000);
        assert!(
            (measured - expected).abs() < 0.05 * expected,
            "{measured} vs {expected}"
        );
    }

    /// With `stream = "drand48"` a link drops exactly the packets whose drand48 draw (the
    /// test bed's, same seed) falls below p, after the skipped draws.
    #[test]
    fn a_drand48_stream_drops_the_packets_the_test_bed_drops() {
        let bernoulli = |seed: u64, skip: u64| {
            let mut m = LossModel {
                process: LossProcess::Bernoulli { p: 0.3 },
                target: LossTarget::Data,
                rng: RngStream::new(seed, "loss:x"),
                drand48: Some(Drand48::new(seed)),
            };
            m.skip(skip);
            (0..200).map(|_| m.drops(&pkt(1000))).collect::<Vec<_>>()
        };
        let mut bed = Drand48::new(3);
        let draws: Vec<bool> = (0..202).map(|_| bed.uniform() < 0.3).collect();
        assert_eq!(bernoulli(3, 0), draws[..200]);
        assert_eq!(bernoulli(3, 2), draws[2..]);
        assert_ne!(bernoulli(3, 0), bernoulli(4, 0));
    }

    #[test]
    fn acks_do_not_step_a_data_only_chain() {
        let mut model = gilbert(0.5, 10.0, 1);
        let before = model.rng.clone().next_u64();
        let ack = Packet {
            kind: PacketKind::Ack,
            ..pkt(40)
        };
        for _ in 0..100 {
            assert!(!model.drops(&ack));
        }
        assert_eq!(
            model.rng.next_u64(),
            before,
            "no draws for packets not targeted"
        );
    }
}
