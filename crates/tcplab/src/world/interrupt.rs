//! Stopping a run from outside (Ctrl-C) between two events.
//!
//! A run can take hours of wall time, and a signal handler cannot stop Rust code; so the
//! event loop asks a hook, at a bounded interval of wall time, whether to stop. The hook
//! may be slow (the Python bindings take the interpreter's lock to run its signal
//! handlers), so it is called at most every [`POLL_INTERVAL`]; the clock is read only
//! every [`POLL_EVENTS`] events, from the event counter the scheduler keeps anyway, so
//! the per-event cost is one mask and one branch.

use std::time::{Duration, Instant};

/// Events between two looks at the clock (a power of two: the check is a mask of the
/// event counter). 1024 events take well under a millisecond in most runs, and about
/// 0.2 s at most when every event samples 10000 flows.
pub const POLL_EVENTS: u64 = 1 << 10;

/// Wall time between two calls of the hook.
pub const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Asked between events whether the run should stop (true: stop now).
pub type InterruptHook = Box<dyn FnMut() -> bool + Send>;

pub(crate) struct Interrupt {
    hook: InterruptHook,
    last: Instant,
    /// Whether the hook asked to stop.
    pub requested: bool,
}

impl Interrupt {
    pub fn new(hook: InterruptHook) -> Self {
        Interrupt {
            hook,
            last: Instant::now(),
            requested: false,
        }
    }

    /// Called after each event with the number of events processed so far; true once the
    /// hook asked to stop.
    #[inline]
    pub fn poll(&mut self, events_processed: u64) -> bool {
        if events_processed & (POLL_EVENTS - 1) != 0 {
            return false;
        }
        self.poll_clock()
    }

    #[cold]
    #[inline(never)]
    fn poll_clock(&mut self) -> bool {
        let now = Instant::now();
        if now.duration_since(self.last) >= POLL_INTERVAL {
            self.last = now;
            self.requested = (self.hook)();
        }
        self.requested
    }
}
