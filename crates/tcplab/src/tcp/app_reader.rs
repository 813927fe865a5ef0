//! The receiving application (`[tcp] app_read`): when it reads what has arrived.
//!
//! A Linux receiver sends the ACK a second unacknowledged segment calls for from the softirq
//! only if the data not yet read leaves the advertised window whole
//! (`__tcp_ack_snd_check`); otherwise the ACK waits until the application has read
//! (`tcp_cleanup_rbuf`). An application blocked in `select` or `recv` wakes some tens of
//! microseconds after data becomes readable and then reads everything queued, so segments that
//! arrive meanwhile share one ACK. On the test bed (Linux 6.18, a Python reader) 81 % of Reno's
//! receiver's ACKs at 0.5 % loss and 97 % at the base point left right after a read, which came
//! 56 us (median over five runs) after data became readable (docs/kernel.md, "The receiver's
//! reads, and Reno in whole segments").
//!
//! The simulator's default reader reads at once, so an ACK never waits for it.

use super::ack_delay::AckDelay;
use super::timer::{Fired, LazyTimer};
use crate::config::DelaySpec;
use crate::sim::{RngStream, Time};

#[derive(Clone, Debug)]
pub struct AppReader {
    /// How long after data becomes readable the application reads it.
    latency: AckDelay,
    /// The read the application will make, if it has been woken.
    wake: LazyTimer,
    /// In-order segments that have arrived and are not read yet.
    unread: u32,
}

/// What a receiver timer event means for the reader.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadEvent {
    /// The application reads everything queued now.
    Read,
    /// Not the reader's event.
    Stale,
}

impl AppReader {
    /// The reader a (validated) `app_read` spec describes; None: the application reads at
    /// once (no spec, or zero).
    pub fn new(spec: Option<&DelaySpec>) -> Option<Self> {
        let latency = AckDelay::new(spec);
        (!matches!(latency, AckDelay::None)).then_some(AppReader {
            latency,
            wake: LazyTimer::default(),
            unread: 0,
        })
    }

    /// Draws the read latency from `rng` from now on (only a distribution uses it).
    pub fn set_stream(&mut self, rng: RngStream) {
        self.latency.set_stream(rng);
    }

    /// `segments` new in-order segments became readable at `now`. Wakes the application if
    /// it is not already about to read; returns the time to schedule its read at, if new.
    pub fn on_readable(&mut self, now: Time, segments: u32) -> Option<Time> {
        self.unread += segments;
        if self.wake.is_armed() {
            return None;
        }
        let latency = self.latency.next().unwrap_or(Time::ZERO);
        self.wake.set(now + latency)
    }

    /// In-order segments not read yet.
    pub fn unread(&self) -> u32 {
        self.unread
    }

    /// Handles a receiver timer event scheduled for `at`.
    pub fn on_timer(&mut self, at: Time, now: Time) -> ReadEvent {
        match self.wake.fire(at, now) {
            Fired::Expired => {
                self.unread = 0;
                ReadEvent::Read
            }
            Fired::Rearm(_) => {
                debug_assert!(
                    false,
                    "a read is never postponed, so its event is never early"
                );
                ReadEvent::Stale
            }
            Fired::Stale => ReadEvent::Stale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Seconds;

    fn reader(us: f64) -> AppReader {
        AppReader::new(Some(&DelaySpec::Fixed(Seconds(us * 1e-6)))).expect("a reader")
    }

    #[test]
    fn no_or_zero_latency_is_a_reader_that_reads_at_once() {
        assert!(AppReader::new(None).is_none());
        assert!(AppReader::new(Some(&DelaySpec::Fixed(Seconds(0.0)))).is_none());
    }

    /// The first readable segment wakes the application; what arrives before it reads is
    /// read with it; the next segment wakes it anew.
    #[test]
    fn one_read_takes_everything_that_arrived_before_it() {
        let mut r = reader(60.0);
        let t0 = Time::from_micros(1000);
        let at = r.on_readable(t0, 1).expect("woken");
        assert_eq!(at, Time::from_micros(1060));
        assert_eq!(r.on_readable(Time::from_micros(1020), 1), None);
        assert_eq!(r.on_readable(Time::from_micros(1040), 2), None);
        assert_eq!(r.unread(), 4);
        assert_eq!(r.on_timer(Time::from_micros(999), at), ReadEvent::Stale);
        assert_eq!(r.on_timer(at, at), ReadEvent::Read);
        assert_eq!(r.unread(), 0);
        assert_eq!(r.on_timer(at, at), ReadEvent::Stale, "one read per wake-up");
        let next = r
            .on_readable(Time::from_micros(1200), 1)
            .expect("woken again");
        assert_eq!(next, Time::from_micros(1260));
    }
}
