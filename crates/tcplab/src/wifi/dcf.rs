//! The backoff procedure of the DCF (802.11-1999 9.2.4, 9.2.5.2): one interface's
//! contention window, backoff counter and the instant its counter will reach zero.
//!
//! The counter counts idle slots that start `IFS` (DIFS, EIFS or PIFS) after the medium
//! became idle; it is frozen while the medium is busy and resumes after the next IFS. A
//! slot ends before the station can sense a carrier that began less than the CCA time
//! earlier, so stations whose counters reach zero in the same slot collide.

use crate::sim::{RngStream, Time};

/// The place in the event order of a countdown's end (see [`Contention::key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ticket {
    seq: u64,
    /// Whether an event for it is in the scheduler.
    scheduled: bool,
}

/// One interface's contention state.
#[derive(Clone, Debug)]
pub struct Contention {
    pub cw_min: u32,
    pub cw_max: u32,
    /// Current contention window: the counter is drawn uniformly from [0, cw].
    pub cw: u32,
    /// Remaining backoff slots; `None` when the interface is not contending.
    backoff: Option<u32>,
    /// Start of the first slot of the current idle period, while counting.
    count_from: Time,
    /// When the counter reaches zero, while counting.
    access_at: Option<Time>,
    /// Bumped whenever a scheduled access is cancelled, so stale timer events are ignored.
    gen: u32,
    /// The scheduler's sequence number for the current countdown, once it has one; gone
    /// with the countdown.
    ticket: Option<Ticket>,
    /// When false the interface never draws a random backoff (an option for the AP).
    random: bool,
}

impl Contention {
    pub fn new(cw_min: u32, cw_max: u32, random: bool) -> Self {
        Contention {
            cw_min,
            cw_max,
            cw: cw_min,
            backoff: None,
            count_from: Time::ZERO,
            access_at: None,
            gen: 0,
            ticket: None,
            random,
        }
    }

    pub fn is_contending(&self) -> bool {
        self.backoff.is_some()
    }

    pub fn backoff(&self) -> Option<u32> {
        self.backoff
    }

    pub fn gen(&self) -> u32 {
        self.gen
    }

    pub fn access_at(&self) -> Option<Time> {
        self.access_at
    }

    /// Gives the countdown of generation `gen` its scheduler sequence number, if it is
    /// still the current one.
    pub fn set_ticket(&mut self, gen: u32, seq: u64) {
        if gen == self.gen && self.access_at.is_some() {
            self.ticket = Some(Ticket {
                seq,
                scheduled: false,
            });
        }
    }

    /// When the current countdown ends and its sequence number, once it has one: the key
    /// of its Access event.
    pub fn key(&self) -> Option<(Time, u64)> {
        Some((self.access_at?, self.ticket?.seq))
    }

    /// Marks the current countdown's event as scheduled; returns false if it already was.
    pub fn mark_scheduled(&mut self) -> bool {
        match self.ticket.as_mut() {
            Some(t) if !t.scheduled => {
                t.scheduled = true;
                true
            }
            _ => false,
        }
    }

    /// Draws a backoff counter uniformly from [0, CW] (9.2.4).
    pub fn draw(&mut self, rng: &mut RngStream) {
        let k = if self.random {
            rng.below(self.cw as u64 + 1) as u32
        } else {
            0
        };
        self.backoff = Some(k);
    }

    /// Contends with a zero counter: a frame that finds the medium idle may go as soon as
    /// the medium has been idle for the IFS (9.2.5.1).
    pub fn start_without_backoff(&mut self) {
        self.backoff = Some(0);
    }

    /// The medium is idle and the first slot starts at `from`: returns the instant the
    /// counter reaches zero (and the generation to put on the timer), if contending.
    pub fn resume(&mut self, from: Time, slot: Time) -> Option<(Time, u32)> {
        let k = self.backoff?;
        self.gen = self.gen.wrapping_add(1);
        self.ticket = None;
        self.count_from = from;
        let at = from + Time(k as u64 * slot.0);
        self.access_at = Some(at);
        Some((at, self.gen))
    }

    /// A carrier started at `t`. Returns true if this interface's counter reaches zero
    /// before it can sense that carrier (it transmits in the same slot); otherwise the
    /// counter is reduced by the slots that ended idle and frozen.
    pub fn freeze(&mut self, t: Time, cca: Time, slot: Time) -> bool {
        let Some(at) = self.access_at else {
            return false;
        };
        let sensed = t + cca;
        if at <= sensed {
            return true;
        }
        let k = self.backoff.unwrap_or(0);
        let elapsed = if sensed >= self.count_from {
            ((sensed - self.count_from).0 / slot.0) as u32
        } else {
            0
        };
        self.backoff = Some(k.saturating_sub(elapsed));
        self.access_at = None;
        self.ticket = None;
        self.gen = self.gen.wrapping_add(1);
        false
    }

    /// Whether a timer of generation `gen` firing at `now` is the live access.
    pub fn is_access(&self, now: Time, gen: u32) -> bool {
        self.gen == gen && self.access_at == Some(now)
    }

    /// The counter reached zero and the interface takes the medium.
    pub fn granted(&mut self) {
        self.backoff = None;
        self.access_at = None;
        self.ticket = None;
    }

    /// Stops counting without taking the medium (e.g. while waiting for a response).
    pub fn pause(&mut self) {
        if self.access_at.take().is_some() {
            self.gen = self.gen.wrapping_add(1);
        }
        self.ticket = None;
    }

    /// After a successful exchange or a discarded frame, CW returns to CWmin (9.2.4).
    pub fn reset_cw(&mut self) {
        self.cw = self.cw_min;
    }

    /// After a failed attempt, CW = 2 CW + 1 up to CWmax (9.2.4: the next value of the
    /// series 2^k - 1).
    pub fn double_cw(&mut self) {
        self.cw = (2 * self.cw + 1).min(self.cw_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLOT: Time = Time::from_micros(9);
    const CCA: Time = Time::from_micros(4);

    fn us(v: u64) -> Time {
        Time::from_micros(v)
    }

    #[test]
    fn counter_freezes_after_whole_idle_slots_and_resumes() {
        let mut c = Contention::new(15, 1023, true);
        c.backoff = Some(5);
        let (at, _) = c.resume(us(34), SLOT).unwrap();
        assert_eq!(at, us(34 + 45));
        // Busy from 34 + 2 slots + 3 us (sensed at +7 us): two slots ended idle.
        assert!(!c.freeze(us(34 + 18 + 3), CCA, SLOT));
        assert_eq!(c.backoff(), Some(3));
        assert_eq!(c.access_at(), None);
        let (at, _) = c.resume(us(500), SLOT).unwrap();
        assert_eq!(at, us(500 + 27));
    }

    #[test]
    fn carrier_in_the_same_slot_is_not_sensed() {
        let mut c = Contention::new(15, 1023, true);
        c.backoff = Some(2);
        let (at, gen) = c.resume(us(0), SLOT).unwrap();
        // Another station starts 2 us before our slot ends: we still transmit.
        assert!(c.freeze(at - us(2), CCA, SLOT));
        assert!(c.is_access(at, gen));
        // But one that starts 5 us before is sensed in time.
        let mut c = Contention::new(15, 1023, true);
        c.backoff = Some(2);
        let (at, gen) = c.resume(us(0), SLOT).unwrap();
        assert!(!c.freeze(at - us(5), CCA, SLOT));
        assert!(!c.is_access(at, gen));
        assert_eq!(c.backoff(), Some(1));
    }

    #[test]
    fn busy_before_the_ifs_ends_costs_no_slot() {
        let mut c = Contention::new(15, 1023, true);
        c.backoff = Some(4);
        c.resume(us(34), SLOT);
        assert!(!c.freeze(us(16), CCA, SLOT));
        assert_eq!(c.backoff(), Some(4));
    }

    #[test]
    fn a_ticket_lives_as_long_as_its_countdown() {
        let mut c = Contention::new(15, 1023, true);
        c.backoff = Some(3);
        let (at, gen) = c.resume(us(34), SLOT).unwrap();
        assert_eq!(c.key(), None, "no number yet");
        c.set_ticket(gen, 7);
        assert_eq!(c.key(), Some((at, 7)));
        assert!(c.mark_scheduled());
        assert!(!c.mark_scheduled(), "scheduled once");
        // A carrier in the last slot does not stop the countdown: the key stays.
        assert!(c.freeze(at - us(2), CCA, SLOT));
        assert_eq!(c.key(), Some((at, 7)));
        // One sensed in time freezes it, and the ticket goes with it.
        let mut d = c.clone();
        assert!(!d.freeze(us(40), CCA, SLOT));
        assert_eq!(d.key(), None);
        // A number for an older countdown is refused.
        let (_, gen2) = d.resume(us(100), SLOT).unwrap();
        d.set_ticket(gen, 8);
        assert_eq!(d.key(), None);
        d.set_ticket(gen2, 9);
        assert_eq!(d.key().map(|k| k.1), Some(9));
        d.pause();
        assert_eq!(d.key(), None);
        c.granted();
        assert_eq!(c.key(), None);
    }

    #[test]
    fn window_doubles_to_cwmax_and_resets() {
        let mut c = Contention::new(15, 1023, true);
        let seq: Vec<u32> = (0..7)
            .map(|_| {
                c.double_cw();
                c.cw
            })
            .collect();
        assert_eq!(seq, vec![31, 63, 127, 255, 511, 1023, 1023]);
        c.reset_cw();
        assert_eq!(c.cw, 15);
    }

    #[test]
    fn draws_stay_within_the_window() {
        let mut c = Contention::new(15, 1023, true);
        let mut rng = RngStream::new(1, "dcf-test");
        let mut seen = [false; 16];
        for _ in 0..2000 {
            c.draw(&mut rng);
            let k = c.backoff().unwrap();
            assert!(k <= 15);
            seen[k as usize] = true;
        }
        assert!(seen.iter().all(|&s| s), "every value 0..=15 is drawn");
        let mut fixed = Contention::new(15, 1023, false);
        fixed.draw(&mut rng);
        assert_eq!(fixed.backoff(), Some(0));
    }
}
