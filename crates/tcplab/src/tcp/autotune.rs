//! The receiver's advertised window as Linux 6.18 grows it (`tcp_rmem` defaults, an
//! application that reads at once): it opens at 64 KB, and two mechanisms widen it while
//! data arrives.
//! - `tcp_grow_window`: each in-order segment raises the window's soft limit
//!   (`rcv_ssthresh`) by two segments, up to the clamp the buffer allows.
//! - Dynamic right-sizing (`tcp_rcv_space_adjust`, `tcp_rcvbuf_grow`): once per receiver
//!   RTT, if more arrived in that RTT (n) than in the largest before (o), the clamp becomes
//!   2n plus twice 2n (n - o) / o, so that a sender in slow start may double its rate.
//!   Measured on the test bed (6.18): three successive right-sizings of a slow start gave
//!   182,400, 186,667 and 438,900 bytes of window, each what this rule gives to the byte
//!   (186,666 here: the kernel rounds through the buffer size and its scaling ratio; the
//!   16 extra segments of kernels before 6.16 are gone).
//!
//! The receiver's RTT: Linux takes it from the timestamp echo (`tcp_rcv_rtt_measure_ts`):
//! a sample spans the receiver's ACK, the sender and the segment's way back, queue
//! included. Here a sample is the segment's one-way delay (its send time travels with it)
//! plus the smallest one-way delay seen (the ACK's way, on a path whose two directions have
//! the same delay). With timestamps a smaller sample replaces the estimate and a larger one
//! moves it by an eighth (`tcp_rcv_rtt_update`, win_dep 0), so the estimate follows the
//! queue up as slow start fills it (bed: 41 ms at the first right-sizing, 99 ms at the end
//! of a 2-BDP slow start); without them only the minimum counts (win_dep 1). Until the
//! first right-sizing the clamp stays at its initial value, which is what limits a flow's
//! first RTTs on a Linux receiver: slow start cannot put more than 64 KB in flight before
//! the window has grown (measured on the test bed: 65,000 to 65,536 bytes advertised for
//! the first three RTTs of a 10 Mb/s, 40 ms path, then growth of about two segments per
//! segment received).

use crate::sim::Time;

/// Linux's initial receive buffer, `tcp_rmem[1]`.
pub const INITIAL_BUFFER_BYTES: u64 = 131_072;
/// Linux's initial window: half the initial buffer (`TCP_DEFAULT_SCALING_RATIO`).
pub const INITIAL_WINDOW_BYTES: u64 = INITIAL_BUFFER_BYTES / 2;
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
    /// The smallest one-way delay seen: the ACK's way back in an RTT sample.
    min_one_way: Option<Time>,
    /// RTT samples come from timestamps (smoothed), else only the minimum counts.
    timestamps: bool,
    /// The clamp the first full-sized segment sets, if the receive memory per segment is
    /// modelled (see [`Self::new`]); taken when that segment arrives.
    measured_clamp: Option<u64>,
    /// The measured clamp was below the window already offered: only then can the offer
    /// shrink, and Linux's rule against shrinking it applies (`receiver.rs`).
    pub lowered: bool,
}

impl ReceiveWindow {
    /// `limit`: the scenario's advertised window in bytes (the clamp never exceeds it);
    /// `timestamps`: whether the connection carries them (how the receiver's RTT is kept);
    /// `truesize`: the receive memory a full-sized segment takes (`[tcp] rcv_truesize`).
    /// Linux >= 6.5 (`tcp_measure_rcv_mss`) measures `scaling_ratio` = payload / truesize in
    /// 256ths on the first full-sized segment and sets the clamp to the buffer times it
    /// (`tcp_set_window_clamp`, which lowers the soft limit with it); until then the window
    /// is half the buffer. On the test bed (1000-byte segments) the window fell from 63 to
    /// 56 units of 1 KB within the first RTTs: a ratio of 112-113, a truesize of 2,246-2,285
    /// bytes (docs/kernel.md).
    pub fn new(mss: u32, limit: u64, timestamps: bool, truesize: Option<u32>) -> Self {
        let mss = u64::from(mss);
        let initial = INITIAL_WINDOW_BYTES.min(limit);
        let measured_clamp = truesize.map(|t| {
            let ratio = ((mss << 8) / u64::from(t.max(1))).clamp(1, 255);
            ((INITIAL_BUFFER_BYTES * ratio) >> 8).min(limit)
        });
        ReceiveWindow {
            measured_clamp,
            lowered: false,
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
            min_one_way: None,
            timestamps,
        }
    }

    /// In-order data up to byte `received` (cumulative) has arrived at `now`, in a segment
    /// sent at `sent`, with `unread` bytes (that segment's included) not yet read by the
    /// application. Returns whether the window's soft limit had room to grow (see
    /// [`Self::has_room`]).
    pub fn on_in_order(&mut self, now: Time, sent: Time, received: u64, unread: u64) -> bool {
        if let Some(clamp) = self.measured_clamp.take() {
            self.set_clamp(clamp);
        }
        let room = self.has_room(unread);
        // tcp_grow_window: two segments per full-sized segment received.
        self.soft = (self.soft + 2 * self.mss).min(self.clamp);
        self.sample_rtt(now.saturating_sub(sent));
        self.adjust_space(now, received);
        room
    }

    /// One RTT sample from a segment that took `one_way` to arrive (module doc).
    fn sample_rtt(&mut self, one_way: Time) {
        let back = *self.min_one_way.get_or_insert(one_way);
        self.min_one_way = Some(back.min(one_way));
        let sample = one_way + self.min_one_way.unwrap_or(back);
        self.rtt = Some(match self.rtt {
            Some(r) if sample >= r && self.timestamps => Time(r.0 + (sample.0 - r.0) / 8),
            Some(r) if sample >= r => r,
            _ => sample,
        });
    }

    /// Linux `tcp_grow_window`'s test: room = min(window_clamp, tcp_space) - rcv_ssthresh > 0,
    /// where `tcp_space` is the buffer's window less what is queued and not yet read (`unread`
    /// bytes: at least the segment being processed, which the application reads after the
    /// ACK decision). The soft limit itself keeps growing up to the clamp (the simulator's
    /// window model); only this test counts the unread data.
    fn has_room(&self, unread: u64) -> bool {
        self.soft + unread < self.clamp
    }

    /// Linux `tcp_set_window_clamp`: a lower clamp lowers the soft limit and the expected
    /// data per RTT with it; a higher one leaves them.
    fn set_clamp(&mut self, clamp: u64) {
        if clamp < self.clamp {
            self.lowered = self.soft > clamp;
            self.soft = self.soft.min(clamp);
            self.space = self.space.min(clamp);
        }
        self.clamp = clamp;
    }

    /// tcp_rcv_space_adjust: at most once per receiver RTT, size the buffer to twice what
    /// arrived in it, and more while that grows (`tcp_rcvbuf_grow`, 6.18).
    fn adjust_space(&mut self, now: Time, received: u64) {
        let Some(rtt) = self.rtt else { return };
        if now.saturating_sub(self.space_time) < rtt {
            return;
        }
        let copied = received - self.space_seq;
        if copied > self.space {
            let mut window = 2 * copied;
            window += 2 * (window * (copied - self.space) / self.space);
            self.clamp = self.clamp.max(window.min(self.limit));
            self.space = copied;
        }
        self.space_seq = received;
        self.space_time = now;
    }

    /// The RTT Linux's SACK compression holds ACKs for a twentieth of: the smaller of the
    /// receiver's estimate and its smoothed RTT, which for a receiver is its handshake's,
    /// the path's base RTT; the estimate never falls below that, so here it is twice the
    /// smallest one-way delay (None before the first segment).
    pub fn base_rtt(&self) -> Option<Time> {
        self.min_one_way.map(|d| d + d)
    }

    /// The buffer's window (Linux `window_clamp`), bytes: the free space with nothing queued.
    pub fn clamp_bytes(&self) -> u64 {
        self.clamp
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
        let w = ReceiveWindow::new(1000, 100_000 * 1000, true, None);
        assert_eq!(
            w.window_segments(),
            65,
            "65,536 bytes rounded down to whole segments"
        );
        let mut w = ReceiveWindow::new(1000, 100_000 * 1000, true, None);
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

    /// The test bed's receiver (Linux 6.18) in a 2-BDP slow start: the receive space went
    /// 10,000 -> 24,000 -> 40,000 -> 77,000 bytes at three right-sizings, and the buffer
    /// to 420,670, 430,508 and 1,012,237 bytes, the windows 182,400, 186,667 and 438,900 at
    /// its scaling ratio of 111/256 (`ss -tmi` at the receiver, docs/kernel.md).
    #[test]
    fn right_sizing_follows_linux_6_18_on_the_bed() {
        let mut w = ReceiveWindow::new(1000, 100_000 * 1000, true, None);
        w.rtt = Some(ms(40));
        let mut clamps = vec![];
        for (k, received) in [24_000, 64_000, 141_000].into_iter().enumerate() {
            w.adjust_space(ms(40 * (k as u64 + 1)), received);
            clamps.push(w.clamp);
        }
        assert_eq!(clamps, [182_400, 186_666, 438_900]);
    }

    /// With timestamps a sample above the estimate moves it by an eighth, so the
    /// estimate climbs with a growing queue; without, only the minimum counts.
    #[test]
    fn the_receivers_rtt_follows_the_queue_only_with_timestamps() {
        let mut smoothed = ReceiveWindow::new(1000, 100_000 * 1000, true, None);
        let mut minimum = ReceiveWindow::new(1000, 100_000 * 1000, false, None);
        for w in [&mut smoothed, &mut minimum] {
            for i in 0..100u64 {
                // One-way delay 20 ms, then a queue growing to 30 ms more.
                w.sample_rtt(ms(20) + Time::from_micros(300 * i));
            }
        }
        assert_eq!(
            minimum.rtt,
            Some(ms(40)),
            "twice the smallest one-way delay"
        );
        let r = smoothed.rtt.unwrap();
        assert!(
            r > ms(65) && r < ms(70),
            "behind the last sample, 69.7 ms: {r:?}"
        );
        smoothed.sample_rtt(ms(20));
        assert_eq!(smoothed.rtt, Some(ms(40)), "a smaller sample replaces it");
    }

    #[test]
    fn a_steady_flow_is_never_held_by_the_window() {
        let mut w = ReceiveWindow::new(1000, 100_000 * 1000, true, None);
        let windows = feed(&mut w, |_| 47, 30);
        assert!(windows[3..].iter().all(|&x| x >= 2 * 47), "{windows:?}");
    }

    #[test]
    fn never_above_the_scenarios_window_or_linuxs_buffer() {
        let mut w = ReceiveWindow::new(1000, 80 * 1000, true, None);
        let windows = feed(&mut w, |k| 10 << k.min(6), 12);
        assert!(windows.iter().all(|&x| x <= 80), "{windows:?}");
        let mut big = ReceiveWindow::new(1000, u64::MAX, true, None);
        let windows = feed(&mut big, |k| 10 << k.min(14), 20);
        assert!(windows
            .iter()
            .all(|&x| u64::from(x) * 1000 <= MAX_WINDOW_BYTES));
    }

    /// With the receive memory per segment modelled, the first segment sets the clamp to
    /// the buffer times payload / truesize (in Linux's 256ths) and the soft limit follows it
    /// down; a ratio above a half raises the clamp and leaves the soft limit.
    #[test]
    fn the_first_segment_scales_the_window_by_payload_over_truesize() {
        let mut w = ReceiveWindow::new(1000, 100_000 * 1000, true, Some(2290));
        assert_eq!(
            w.window_bytes(),
            65_000,
            "half the buffer until data arrives"
        );
        w.on_in_order(ms(20), ms(0), 1000, 1000);
        // 1000 * 256 / 2290 = 111 (256ths): 131,072 * 111 / 256 = 56,832 bytes.
        assert_eq!((w.clamp_bytes(), w.window_bytes()), (56_832, 56_832));
        let mut wide = ReceiveWindow::new(1448, 100_000 * 1448, true, Some(2304));
        wide.on_in_order(ms(20), ms(0), 1448, 1448);
        // 1448 * 256 / 2304 = 160: a clamp of 81,920 bytes; the soft limit grows to it.
        assert_eq!(wide.clamp_bytes(), 81_920);
        assert_eq!(wide.window_bytes(), 65_160 + 2 * 1448);
        let mut plain = ReceiveWindow::new(1000, 100_000 * 1000, true, None);
        plain.on_in_order(ms(20), ms(0), 1000, 1000);
        assert_eq!(
            plain.clamp_bytes(),
            INITIAL_WINDOW_BYTES,
            "without it, half the buffer"
        );
    }
}
