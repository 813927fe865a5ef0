//! Checks of a CBR flow's rate and size and of on/off schedules.

use super::flows::{CbrTraffic, FlowSpec, StartSpec, Traffic};
use super::ConfigError;

type Check = Result<(), ConfigError>;

fn err(field: impl Into<String>, msg: impl Into<String>) -> ConfigError {
    ConfigError::new(field, msg)
}

/// Checks the ranges of a CBR flow's rate and datagram size, and the flow's schedule
/// (which keys each kind takes is the schema's, [`super::flows`]).
pub(super) fn validate_traffic(field: &str, f: &FlowSpec, duration: f64) -> Check {
    if let Traffic::Cbr(CbrTraffic { rate, packet_size }) = &f.traffic {
        if !(rate.0.is_finite() && (1.0..=1e13).contains(&rate.0)) {
            return Err(err(
                format!("{field}.rate"),
                format!("{} is not allowed; a rate must be 1 b/s to 10 Tb/s", rate.0),
            ));
        }
        if let Some(s) = packet_size {
            if !(28..=65_535).contains(s) {
                return Err(err(
                    format!("{field}.packet_size"),
                    format!(
                        "{s} is not allowed; a datagram is 28 (IPv4 + UDP headers) to 65535 bytes"
                    ),
                ));
            }
        }
    }
    validate_schedule(field, f, duration)
}

fn validate_schedule(field: &str, f: &FlowSpec, duration: f64) -> Check {
    if f.schedule.is_empty() {
        return Ok(());
    }
    if f.start != StartSpec::default() || f.stop.is_some() {
        let which = if f.stop.is_some() { "stop" } else { "start" };
        return Err(err(
            format!("{field}.{which}"),
            "a flow with a schedule takes its start and stop from the schedule; remove start and stop",
        ));
    }
    let mut previous_off = 0.0;
    for (i, [on, off]) in f.schedule.iter().enumerate() {
        let at = format!("{field}.schedule[{i}]");
        if !(on.0.is_finite() && on.0 >= previous_off && on.0 <= duration) {
            return Err(err(
                at,
                format!(
                    "[{}, {}] does not start within the run ({duration} s) at or after the previous interval's end ({previous_off} s)",
                    on.0, off.0
                ),
            ));
        }
        if !(off.0.is_finite() && off.0 > on.0) {
            return Err(err(
                at,
                format!("[{}, {}]: the end must come after the start", on.0, off.0),
            ));
        }
        previous_off = off.0;
    }
    Ok(())
}
