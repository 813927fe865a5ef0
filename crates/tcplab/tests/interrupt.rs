//! Stopping a run from outside (issue 17): the interrupt hook is asked while the run goes
//! on, a hook that says stop ends it with `RunError::Interrupted` long before its end, and
//! one that never does leaves the records exactly as without a hook.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tcplab::world::POLL_INTERVAL;
use tcplab::{build_world, run_scenario, RunError};

/// One Reno flow; `{duration}` simulated seconds.
const ONE_FLOW: &str = r#"
[simulation]
duration = {duration}
sample_interval = 0.1
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = 50 }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"#;

fn scenario(duration: f64) -> String {
    ONE_FLOW.replace("{duration}", &duration.to_string())
}

#[test]
fn a_hook_that_says_stop_ends_a_long_run_early() {
    // A million simulated seconds: hours of wall time if it were not stopped.
    let mut world = build_world(&scenario(1e6), None, None).unwrap();
    let asked = Arc::new(AtomicU64::new(0));
    let counter = asked.clone();
    let started = Instant::now();
    world.interrupt_with(Box::new(move || {
        counter.fetch_add(1, Ordering::Relaxed) >= 2
    }));
    match world.run() {
        Err(RunError::Interrupted) => {}
        Err(e) => panic!("expected an interruption, got {e}"),
        Ok(_) => panic!("the run ignored its interrupt hook"),
    }
    assert_eq!(
        asked.load(Ordering::Relaxed),
        3,
        "the hook is not asked after it said stop"
    );
    // Three calls at least POLL_INTERVAL apart: the hook is not called on every event.
    assert!(started.elapsed() >= 3 * POLL_INTERVAL);
    assert!(started.elapsed() < Duration::from_secs(600));
}

#[test]
fn a_hook_that_never_says_stop_changes_nothing() {
    let text = scenario(20.0);
    let plain = run_scenario(&text, None).unwrap();
    let mut world = build_world(&text, None, None).unwrap();
    world.interrupt_with(Box::new(|| false));
    let hooked = world.run().unwrap();
    assert_eq!(format!("{plain:?}"), format!("{hooked:?}"));
}
