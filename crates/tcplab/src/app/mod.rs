//! Applications: when a flow offers data, and how much.

use crate::config::StartSpec;
use crate::sim::{RngStream, Time};

/// A flow's application: bulk (always has data) or a file of `bytes`, active from
/// `start` until `stop`.
#[derive(Clone, Debug, PartialEq)]
pub struct AppSchedule {
    pub start: Time,
    pub stop: Option<Time>,
    pub bytes: Option<u64>,
}

impl AppSchedule {
    /// Resolves a start specification; a random start draws from the flow's own stream.
    pub fn resolve(
        start: &StartSpec,
        stop: Option<f64>,
        bytes: Option<u64>,
        rng: &mut RngStream,
    ) -> Self {
        let start = match start {
            StartSpec::At(t) => t.0,
            StartSpec::Uniform { uniform: [a, b] } => rng.uniform_range(a.0, b.0),
        };
        AppSchedule {
            start: Time::from_secs_f64(start),
            stop: stop.map(Time::from_secs_f64),
            bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Seconds;

    #[test]
    fn uniform_start_lies_in_range_and_is_reproducible() {
        let spec = StartSpec::Uniform {
            uniform: [Seconds(0.0), Seconds(25.0)],
        };
        let a = AppSchedule::resolve(&spec, None, None, &mut RngStream::new(3, "flow:x"));
        let b = AppSchedule::resolve(&spec, None, None, &mut RngStream::new(3, "flow:x"));
        assert_eq!(a, b);
        assert!(a.start <= Time::from_secs_f64(25.0));
    }
}
