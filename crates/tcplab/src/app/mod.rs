//! Applications: when a flow offers data, and how much.

pub mod cbr;

pub use cbr::CbrSource;

use crate::config::{FlowSpec, Seconds, StartSpec};
use crate::sim::{RngStream, Time};

/// A flow's application: bulk (always has data) or a file of `bytes`, offering data
/// during its on periods. A plain flow has one period, from its start until its stop
/// (or the end of the run); an on/off schedule has several.
#[derive(Clone, Debug, PartialEq)]
pub struct AppSchedule {
    /// On periods in time order: (on, off); `None` = until the end of the run.
    pub periods: Vec<(Time, Option<Time>)>,
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
            periods: vec![(Time::from_secs_f64(start), stop.map(Time::from_secs_f64))],
            bytes,
        }
    }

    /// An on/off schedule: the flow offers data only within the given [on, off]
    /// intervals (validated: non-empty, in order, not overlapping).
    pub fn from_schedule(schedule: &[[Seconds; 2]], bytes: Option<u64>) -> Self {
        AppSchedule {
            periods: schedule
                .iter()
                .map(|[on, off]| (Time::from_secs_f64(on.0), Some(Time::from_secs_f64(off.0))))
                .collect(),
            bytes,
        }
    }

    /// The application of a flow entry: its schedule if it has one, else its start
    /// (drawn from the flow's stream if random) and stop.
    pub fn for_flow(spec: &FlowSpec, rng: &mut RngStream) -> Self {
        let bytes = spec.traffic.bytes();
        if spec.schedule.is_empty() {
            Self::resolve(&spec.start, spec.stop.map(|t| t.0), bytes, rng)
        } else {
            Self::from_schedule(&spec.schedule, bytes)
        }
    }

    /// When the flow first offers data.
    pub fn start(&self) -> Time {
        self.periods.first().map_or(Time::ZERO, |p| p.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_start_lies_in_range_and_is_reproducible() {
        let spec = StartSpec::Uniform {
            uniform: [Seconds(0.0), Seconds(25.0)],
        };
        let a = AppSchedule::resolve(&spec, None, None, &mut RngStream::new(3, "flow:x"));
        let b = AppSchedule::resolve(&spec, None, None, &mut RngStream::new(3, "flow:x"));
        assert_eq!(a, b);
        assert!(a.start() <= Time::from_secs_f64(25.0));
    }

    #[test]
    fn schedule_gives_one_period_per_interval() {
        let s = AppSchedule::from_schedule(
            &[
                [Seconds(250.0), Seconds(500.0)],
                [Seconds(750.0), Seconds(1000.0)],
            ],
            None,
        );
        assert_eq!(s.start(), Time::from_secs_f64(250.0));
        assert_eq!(
            s.periods[1],
            (
                Time::from_secs_f64(750.0),
                Some(Time::from_secs_f64(1000.0))
            )
        );
    }
}
