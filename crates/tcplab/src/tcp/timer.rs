//! A restartable timer that schedules few events.
//!
//! Restarting a timer on every ACK would push one event per ACK. Instead the timer keeps
//! its deadline and has at most one event pending; when that event fires early (the
//! deadline moved later), the owner re-arms it for the new deadline.

use crate::sim::Time;

#[derive(Clone, Debug, Default)]
pub struct LazyTimer {
    deadline: Option<Time>,
    scheduled: Option<Time>,
}

/// What the owner must do after a timer event.
#[derive(Debug, PartialEq, Eq)]
pub enum Fired {
    /// The deadline passed: run the timeout.
    Expired,
    /// Not yet: schedule an event at this time.
    Rearm(Time),
    /// A stale or cancelled event: nothing to do.
    Stale,
}

impl LazyTimer {
    /// Sets the deadline. Returns a time to schedule an event at, if one is needed.
    pub fn set(&mut self, deadline: Time) -> Option<Time> {
        self.deadline = Some(deadline);
        match self.scheduled {
            Some(s) if s <= deadline => None,
            _ => {
                self.scheduled = Some(deadline);
                Some(deadline)
            }
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Handles an event scheduled for `at`, fired at `now`.
    pub fn fire(&mut self, at: Time, now: Time) -> Fired {
        if self.scheduled != Some(at) {
            return Fired::Stale;
        }
        self.scheduled = None;
        match self.deadline {
            None => Fired::Stale,
            Some(d) if d <= now => {
                self.deadline = None;
                Fired::Expired
            }
            Some(d) => {
                self.scheduled = Some(d);
                Fired::Rearm(d)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_later_need_no_new_event() {
        let mut t = LazyTimer::default();
        assert_eq!(t.set(Time(10)), Some(Time(10)));
        assert_eq!(t.set(Time(20)), None);
        assert_eq!(t.fire(Time(10), Time(10)), Fired::Rearm(Time(20)));
        assert_eq!(t.fire(Time(20), Time(20)), Fired::Expired);
        assert!(!t.is_armed());
    }

    #[test]
    fn earlier_deadline_schedules_and_old_event_is_stale() {
        let mut t = LazyTimer::default();
        t.set(Time(20));
        assert_eq!(t.set(Time(5)), Some(Time(5)));
        assert_eq!(t.fire(Time(5), Time(5)), Fired::Expired);
        assert_eq!(t.fire(Time(20), Time(20)), Fired::Stale);
    }

    #[test]
    fn cancelled_timer_does_not_expire() {
        let mut t = LazyTimer::default();
        t.set(Time(5));
        t.cancel();
        assert_eq!(t.fire(Time(5), Time(5)), Fired::Stale);
    }
}
