//! How long a receiver's ACK takes to leave after the segment that calls for it
//! (`[tcp] ack_latency`): not at all, a fixed time, or a time drawn anew for each ACK.
//!
//! A host's receive path does not answer in constant time. The test bed's receiver sends
//! the ACK of a pair of segments 8 to 100 us after the second one, depending on whether the
//! kernel sends it from the softirq or after the application's read (docs/kernel.md, "The
//! receiver's ACK latency"). A constant delay locks the simulator's ACK clock to one phase of
//! the bottleneck's service, where that spread does not: with a fixed 75 us the simulated
//! CUBIC lost a second segment one RTT into half of its recoveries at the base point of
//! `linux/conformance`, the kernel in none of its.

use crate::config::DelaySpec;
use crate::net::Jitter;
use crate::sim::{RngStream, Time};

#[derive(Clone, Debug)]
pub enum AckDelay {
    /// The ACK leaves at once.
    None,
    Fixed(Time),
    /// Drawn for each ACK from the receiver's own random stream (`ack_latency:<flow>`).
    Drawn(Jitter),
}

impl AckDelay {
    /// The delay of a (validated) spec; a distribution draws from a placeholder stream until
    /// [`Self::set_stream`] names the flow's.
    pub fn new(spec: Option<&DelaySpec>) -> Self {
        match spec {
            None => AckDelay::None,
            Some(DelaySpec::Fixed(s)) => match Time::from_secs_f64(s.0) {
                Time::ZERO => AckDelay::None,
                t => AckDelay::Fixed(t),
            },
            Some(DelaySpec::Drawn(j)) => {
                AckDelay::Drawn(Jitter::new(j, RngStream::new(0, "ack_latency")))
            }
        }
    }

    /// Draws from `rng` from now on (only a drawn delay uses it).
    pub fn set_stream(&mut self, rng: RngStream) {
        if let AckDelay::Drawn(j) = self {
            j.set_stream(rng);
        }
    }

    /// The delay of the next ACK; None: it leaves at once.
    pub fn next(&mut self) -> Option<Time> {
        match self {
            AckDelay::None => None,
            AckDelay::Fixed(t) => Some(*t),
            AckDelay::Drawn(j) => Some(j.draw()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::jitter::UniformJitter;
    use crate::config::{JitterSpec, Seconds};

    #[test]
    fn a_zero_or_missing_latency_is_none_and_a_fixed_one_is_always_the_same() {
        assert!(AckDelay::new(None).next().is_none());
        assert!(AckDelay::new(Some(&DelaySpec::Fixed(Seconds(0.0))))
            .next()
            .is_none());
        let mut fixed = AckDelay::new(Some(&DelaySpec::Fixed(Seconds(75e-6))));
        assert_eq!(fixed.next(), Some(Time::from_micros(75)));
        assert_eq!(fixed.next(), Some(Time::from_micros(75)));
    }

    /// Draws spread over the distribution, and a flow's stream gives its own sequence,
    /// the same for the same name.
    #[test]
    fn a_drawn_latency_varies_within_its_range_on_the_flows_stream() {
        let spec = DelaySpec::Drawn(JitterSpec::Uniform(UniformJitter {
            max: Seconds(100e-6),
        }));
        let draws = |name: &str| {
            let mut d = AckDelay::new(Some(&spec));
            d.set_stream(RngStream::new(7, name));
            (0..200).map(|_| d.next().unwrap()).collect::<Vec<_>>()
        };
        let a = draws("ack_latency:f0");
        assert!(a.iter().all(|t| *t <= Time::from_micros(100)));
        assert!(
            a.iter().any(|t| *t < Time::from_micros(20))
                && a.iter().any(|t| *t > Time::from_micros(80))
        );
        assert_eq!(a, draws("ack_latency:f0"));
        assert_ne!(a, draws("ack_latency:f1"));
    }
}
