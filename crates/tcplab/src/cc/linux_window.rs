//! The window arithmetic of Linux's `tcp_cong.c` that its congestion modules call, in
//! whole segments as the kernel keeps them (`u32 snd_cwnd`, `snd_ssthresh`,
//! `snd_cwnd_cnt`). Shared by the modules that follow a kernel module rule for rule
//! (`variant = "linux"` of the Vegas family and of CUBIC).

use super::CcState;

/// `snd_cwnd` as Linux's integer (a port keeps the window integral; a fraction left by the
/// sender is dropped, as the kernel would never have had it).
pub fn cwnd_of(st: &CcState) -> u64 {
    st.cwnd.max(0.0).floor() as u64
}

/// `snd_ssthresh` as an integer (the default "unlimited" is above any window).
pub fn ssthresh_of(st: &CcState) -> u64 {
    st.ssthresh.clamp(0.0, u32::MAX as f64).floor() as u64
}

/// `tcp_reno_ssthresh`: half the integer window (a shift), at least 2 segments. Its callers
/// (`tcp_init_cwnd_reduction`, `tcp_enter_loss`) clear `snd_cwnd_cnt`: reset [`AiCredit`].
pub fn tcp_reno_ssthresh(st: &CcState) -> u64 {
    (cwnd_of(st) >> 1).max(2)
}

/// `tcp_slow_start`: cwnd grows by the segments acknowledged, up to ssthresh; returns
/// the acknowledgements not used.
pub fn slow_start(st: &mut CcState, acked: u32) -> u32 {
    let cwnd = cwnd_of(st);
    let grown = (cwnd + acked as u64).min(ssthresh_of(st)).max(cwnd);
    st.cwnd = grown as f64;
    acked - (grown - cwnd) as u32
}

/// The common start of Linux's `cong_avoid` hooks (`tcp_reno_cong_avoid`,
/// `cubictcp_cong_avoid`): nothing unless the window is the limit (`tcp_is_cwnd_limited`),
/// then slow start; returns the acknowledgements left for congestion avoidance, or None
/// when there is no congestion avoidance to do (outside slow start even none acknowledged
/// goes on: `tcp_cong_avoid_ai` may spend credit it holds).
pub fn after_slow_start(st: &mut CcState, acked: u32) -> Option<u32> {
    if !st.cwnd_limited {
        return None;
    }
    if !st.in_slow_start() {
        return Some(acked);
    }
    match slow_start(st, acked) {
        0 => None,
        left => Some(left),
    }
}

/// `snd_cwnd_cnt`, the credit of additive increase. Linux clears it when a window
/// reduction starts (`tcp_init_cwnd_reduction`) and on a timeout (`tcp_enter_loss`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AiCredit(pub u32);

impl AiCredit {
    /// `tcp_cong_avoid_ai`: one segment per `w` acknowledged; credit gathered at a larger
    /// window is spent gently (one segment, then the count restarts).
    pub fn grow(&mut self, st: &mut CcState, w: u32, acked: u32) {
        let w = w.max(1);
        let mut cwnd = cwnd_of(st);
        if self.0 >= w {
            self.0 = 0;
            cwnd += 1;
        }
        self.0 += acked;
        if self.0 >= w {
            let delta = self.0 / w;
            self.0 -= delta * w;
            cwnd += delta as u64;
        }
        st.cwnd = cwnd as f64;
    }
}

/// A window-limited state of `cwnd` and `ssthresh` segments, for the ports' tests.
#[cfg(test)]
pub fn limited_state(cwnd: f64, ssthresh: f64) -> CcState {
    let mut st = CcState::new(cwnd, ssthresh, 1000, 1_000_000);
    st.cwnd_limited = true;
    st
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cwnd: f64, ssthresh: f64) -> CcState {
        limited_state(cwnd, ssthresh)
    }

    #[test]
    fn congestion_avoidance_gets_what_slow_start_leaves() {
        let mut st = state(10.0, 12.0);
        assert_eq!(after_slow_start(&mut st, 5), Some(3));
        assert_eq!(
            after_slow_start(&mut st, 0),
            Some(0),
            "out of slow start it goes on"
        );
        let mut st = state(10.0, 20.0);
        assert_eq!(
            after_slow_start(&mut st, 5),
            None,
            "all spent in slow start"
        );
        assert_eq!(st.cwnd, 15.0);
        st.cwnd_limited = false;
        assert_eq!(
            after_slow_start(&mut st, 5),
            None,
            "not the limit: no growth"
        );
        assert_eq!(st.cwnd, 15.0);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut st = state(10.0, 12.0);
        assert_eq!(slow_start(&mut st, 5), 3);
        assert_eq!(st.cwnd, 12.0);
    }

    #[test]
    fn additive_increase_counts_whole_windows() {
        let mut credit = AiCredit::default();
        let mut st = state(4.0, 4.0);
        for _ in 0..3 {
            credit.grow(&mut st, 4, 1);
        }
        assert_eq!(st.cwnd, 4.0);
        credit.grow(&mut st, 4, 1);
        assert_eq!(st.cwnd, 5.0, "the fourth ACK of a 4-segment window");
        // Credit from a larger window: spent as one segment.
        credit.0 = 9;
        credit.grow(&mut st, 5, 1);
        assert_eq!((st.cwnd, credit.0), (6.0, 1));
        // A stretch ACK of several windows' worth.
        credit.grow(&mut st, 3, 7);
        assert_eq!((st.cwnd, credit.0), (8.0, 2));
    }
}
