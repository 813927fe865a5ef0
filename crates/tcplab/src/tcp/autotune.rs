//! The receiver's advertised window as Linux grows it (`tcp_rmem` defaults, an application
//! that reads at once): it opens at 64 KB, and two mechanisms widen it while data arrives.
//! - `tcp_grow_window`: each in-order segment raises the window's soft limit
//!   (`rcv_ssthresh`) by two segments, up to the clamp the buffer allows.
//! - Dynamic right-sizing (`tcp_rcv_space_adjust`): once per receiver RTT the clamp becomes
//!   twice what was received in that RTT, plus 16 segments, plus twice the growth over the
//!   RTT before (so a window that keeps doubling is not held back), up to `tcp_rmem[2]`.
//!
//! The receiver's RTT: Linux takes it from the timestamp echo (`tcp_rcv_rtt_measure_ts`);
//! here it is twice the segment's one-way delay (its send time travels with it), the
//! smallest seen kept, which equals the round trip on a path whose two directions have the
//! same delay. Until the first right-sizing the clamp stays at its initial value, which is
//! what limits a flow's first RTTs on a Linux receiver: slow start cannot put more than
//! 64 KB in flight before the window has grown (measured on the test bed: 65,000 to 65,536
//! bytes advertised for the first three RTTs of a 10 Mb/s, 40 ms path, then growth of about
//! two segments per segment received).

use crate::sim::Time;

/// Linux's initial window: `tcp_rmem[1]` = 131072 bytes of buffer, half of it window.
pub const INITIAL_WINDOW_BYTES: u64 = 65_536;
/// Linux's largest receive buffer by default (`tcp_rmem[2]` = 6 MB), half of it window.
pub const MAX_WINDOW_BYTES: u64 = 3 << 20;

#[derive(Clone, Debug)]
pub struct ReceiveWindow {
    mss: u64,
    /// Never above this (the scenario's `rwnd`, bytes).
    limit: u64,
    /// The buffer's window (`window_clamp`).
    clamp: u64,
    /// The window's soft limit (`rcv_ssthresh`).
    soft: u64,
    /// Bytes received in the last measured RTT (`rcvq_space.space`), and where and when
    /// the present measurement began.
    space: u64,
    space_seq: u64,
    space_time: Time,
    /// The receiver's RTT estimate (`rcv_rtt_est`).
    rtt: Option<Time>,
}

impl ReceiveWindow {
    /// `limit`: the scenario's advertised window in bytes (the clamp never exceeds it).
    pub fn new(mss: u32, limit: u64) -> Self {
        let mss = u64::from(mss);
        let initial = INITIAL_WINDOW_BYTES.min(limit);
        ReceiveWindow {
            mss,
            limit: limit.min(MAX_WINDOW_BYTES),
            // `tcp_select_initial_window` rounds the first window down to whole segments.
            clamp: initial,
            soft: initial / mss * mss,
            // `tcp_init_buffer_space`: the first measurement expects an initial window.
            space: 10 * mss,
            space_seq: 0,
            space_time: Time::ZERO,
            rtt: None,
        }
    }

    /// In-order data up to byte `received` (cumulative) has arrived at `now`, in a segment
    /// of `payload` bytes sent at `sent`, and has been read by the application. Returns
    /// whether the window's soft limit had room to grow (see [`Self::has_room`]).
    pub fn on_in_order(&mut self, now: Time, sent: Time, received: u64, payload: u64) -> bool {
        let room = self.has_room(payload);
        // tcp_grow_window: two segments per full-sized segment received.
        self.soft = (self.soft + 2 * self.mss).min(self.clamp);
        let sample = Time(2 * now.saturating_sub(sent).nanos());
        self.rtt = Some(self.rtt.map_or(sample, |r| r.min(sample)));
        self.adjust_space(now, received);
        room
    }

    /// Linux `tcp_grow_window`'s test: room = min(window_clamp, tcp_space) - rcv_ssthresh > 0,
    /// where `tcp_space` is the buffer's window less what is queued and not yet read, i.e.
    /// the segment being processed (`payload` bytes; the application reads after the ACK
    /// decision). The soft limit itself keeps growing up to the clamp (the simulator's window
    /// model); only this test counts the unread segment.
    fn has_room(&self, payload: u64) -> bool {
        self.soft + payload < self.clamp
    }

    /// tcp_rcv_space_adjust: at most once per receiver RTT, size the buffer to twice what
    /// arrived in it (and more while that grows).
    fn adjust_space(&mut self, now: Time, received: u64) {
        let Some(rtt) = self.rtt else { return };
        if now.saturating_sub(self.space_time) < rtt {
            return;
        }
        let copied = received - self.space_seq;
        if copied > self.space {
            let mut window = 2 * copied + 16 * self.mss;
            let grow = window * (copied - self.space) / self.space;
            window += 2 * grow;
            self.clamp = self.clamp.max(window.min(self.limit));
            self.space = copied;
        }
        self.space_seq = received;
        self.space_time = now;
    }

    /// The window to advertise, bytes.
    pub fn window_bytes(&self) -> u64 {
        self.soft.min(self.clamp)
    }

    /// The window to advertise in whole segments (at least one).
    pub fn window_segments(&self) -> u32 {
        (self.window_bytes() / self.mss).clamp(1, u64::from(u32::MAX)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    /// Feeds `n` segments spread over RTT `k` (40 ms, each 20 ms on its way) to a receiver
    /// that has received `received` bytes; returns the bytes received after them.
    fn round(w: &mut ReceiveWindow, k: u64, n: u64, mut received: u64) -> u64 {
        for i in 0..n {
            received += 1000;
            let now = ms(20 + 40 * k) + Time(ms(40).nanos() * i / n);
            w.on_in_order(now, now.saturating_sub(ms(20)), received, 1000);
        }
        received
    }

    /// The window at the end of each of `rtts` RTTs of `per_rtt(k)` segments.
    fn feed(w: &mut ReceiveWindow, per_rtt: impl Fn(u64) -> u64, rtts: u64) -> Vec<u32> {
        let mut received = 0;
        (0..rtts)
            .map(|k| {
                received = round(w, k, per_rtt(k), received);
                w.window_segments()
            })
            .collect()
    }

    #[test]
    fn opens_at_64_kb_and_holds_until_the_receiver_has_an_rtt() {
        let w = ReceiveWindow::new(1000, 100_000 * 1000);
        assert_eq!(
            w.window_segments(),
            65,
            "65,536 bytes rounded down to whole segments"
        );
        let mut w = ReceiveWindow::new(1000, 100_000 * 1000);
        // A slow start limited by the window: 10, 20, 40, then what the window allows.
        let (mut windows, mut next, mut received) = (vec![], 10, 0);
        for k in 0..8 {
            received = round(&mut w, k, next, received);
            windows.push(w.window_segments());
            next = (2 * next).min(u64::from(w.window_segments()));
        }
        assert_eq!(
            windows[0], 65,
            "an initial window's data widens nothing: {windows:?}"
        );
        assert!(
            windows[7] > 500,
            "right-sizing lets it double per RTT: {windows:?}"
        );
    }

    #[test]
    fn a_steady_flow_is_never_held_by_the_window() {
        let mut w = ReceiveWindow::new(1000, 100_000 * 1000);
        let windows = feed(&mut w, |_| 47, 30);
        assert!(windows[3..].iter().all(|&x| x >= 2 * 47), "{windows:?}");
    }

    #[test]
    fn never_above_the_scenarios_window_or_linuxs_buffer() {
        let mut w = ReceiveWindow::new(1000, 80 * 1000);
        let windows = feed(&mut w, |k| 10 << k.min(6), 12);
        assert!(windows.iter().all(|&x| x <= 80), "{windows:?}");
        let mut big = ReceiveWindow::new(1000, u64::MAX);
        let windows = feed(&mut big, |k| 10 << k.min(14), 20);
        assert!(windows
            .iter()
            .all(|&x| u64::from(x) * 1000 <= MAX_WINDOW_BYTES));
    }
}
