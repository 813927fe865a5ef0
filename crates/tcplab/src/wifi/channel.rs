//! The shared half-duplex medium of one BSS: which frames are on the air, what each
//! interface senses (physical carrier sense) and which frame its receiver is locked onto.
//!
//! Propagation delay is taken as zero: at the distances of a BSS (<= 100 m, < 0.34 us) it
//! is far below the 9 us slot, whose definition already budgets for it (9.2.10). Frames
//! that start in the same backoff slot therefore overlap exactly, and whether any of them
//! is decoded is decided by the capture rule (see [`super::propagation`]).

use super::phy::OfdmRate;
use super::propagation::{dbm_to_mw, survives};
use super::IfaceId;
use crate::sim::Time;

/// What a frame on the air is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Data,
    Ack,
    Rts,
    Cts,
}

/// A frame on the air.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AirFrame {
    pub id: u64,
    pub kind: FrameKind,
    pub src: IfaceId,
    pub dst: IfaceId,
    pub start: Time,
    pub end: Time,
    /// Duration field: how long after its end the frame reserves the medium (NAV).
    pub nav: Time,
    pub rate: OfdmRate,
    /// Uid of the packet a data frame carries (duplicate detection at the receiver).
    pub uid: u64,
    /// Whether another frame was on the air at some point during this one.
    pub overlapped: bool,
}

/// The receiver's hold on one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
struct RxLock {
    frame: u64,
    start: Time,
    power_mw: f64,
    /// Still decodable: its power has exceeded interference + noise by the capture
    /// threshold at every instant so far.
    ok: bool,
}

/// One interface's view of the medium.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Medium {
    /// Frames of other interfaces on the air that are above the carrier-sense threshold.
    pub sensed: u16,
    pub transmitting: bool,
    /// When the medium last became idle here (physical carrier sense).
    pub idle_since: Time,
    /// Virtual carrier sense: the medium is reserved until then (9.2.5.4).
    pub nav_until: Time,
    /// The last frame this interface began to receive was not decoded: the next idle
    /// period starts with EIFS rather than DIFS (9.2.3.4).
    pub last_rx_failed: bool,
    rx: Option<RxLock>,
}

impl Medium {
    /// Physically idle: nothing sensed and not transmitting.
    pub fn is_idle(&self) -> bool {
        self.sensed == 0 && !self.transmitting
    }
}

/// The outcome of a frame at one interface that had locked onto it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reception {
    pub at: IfaceId,
    pub decoded: bool,
}

/// The medium of one BSS.
pub struct Channel {
    n: usize,
    /// Received power, mW, at `rx` of a frame sent by `tx`: `power[tx * n + rx]`.
    power: Vec<f64>,
    /// Minimum power (mW) at which a frame is sensed and a receiver locks onto it.
    cs_mw: f64,
    noise_mw: f64,
    capture_ratio: f64,
    cca_time: Time,
    air: Vec<AirFrame>,
    pub media: Vec<Medium>,
    next_id: u64,
}

impl Channel {
    /// A channel among `n` interfaces with the given power matrix (mW, `power[tx * n + rx]`).
    pub fn new(
        n: usize,
        power: Vec<f64>,
        cs_mw: f64,
        noise_mw: f64,
        capture_ratio: f64,
        cca_time: Time,
    ) -> Self {
        assert_eq!(power.len(), n * n, "power matrix must be n x n");
        Channel {
            n,
            power,
            cs_mw,
            noise_mw,
            capture_ratio,
            cca_time,
            air: Vec::with_capacity(8),
            media: vec![Medium::default(); n],
            next_id: 0,
        }
    }

    pub fn power(&self, tx: IfaceId, rx: IfaceId) -> f64 {
        self.power[tx as usize * self.n + rx as usize]
    }

    /// Whether `rx` senses frames sent by `tx` (carrier sense).
    pub fn sensed_by(&self, tx: IfaceId, rx: IfaceId) -> bool {
        self.power(tx, rx) >= self.cs_mw
    }

    /// Frames on the air now.
    pub fn air(&self) -> &[AirFrame] {
        &self.air
    }

    /// Power at `rx` of every frame on the air except `except`, mW.
    fn interference(&self, rx: IfaceId, except: u64) -> f64 {
        self.air
            .iter()
            .filter(|f| f.id != except && f.src != rx)
            .map(|f| self.power(f.src, rx))
            .sum()
    }

    fn decodable(&self, signal: f64, rx: IfaceId, frame: u64) -> bool {
        survives(
            signal,
            self.interference(rx, frame),
            self.noise_mw,
            self.capture_ratio,
        )
    }

    /// Puts a frame on the air at `now`. Interfaces whose medium turns busy (including the
    /// sender, if it was idle) are appended to `busy`.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        &mut self,
        now: Time,
        kind: FrameKind,
        src: IfaceId,
        dst: IfaceId,
        duration: Time,
        nav: Time,
        rate: OfdmRate,
        uid: u64,
        busy: &mut Vec<IfaceId>,
    ) -> AirFrame {
        let id = self.next_id;
        self.next_id += 1;
        let overlapped = !self.air.is_empty();
        for f in &mut self.air {
            f.overlapped = true;
        }
        let frame = AirFrame {
            id,
            kind,
            src,
            dst,
            start: now,
            end: now + duration,
            nav,
            rate,
            uid,
            overlapped,
        };
        self.air.push(frame);

        let me = &mut self.media[src as usize];
        if me.is_idle() {
            busy.push(src);
        }
        me.transmitting = true;
        // Half duplex: transmitting abandons any reception in progress.
        me.rx = None;

        for x in 0..self.n as IfaceId {
            if x == src {
                continue;
            }
            let p = self.power(src, x);
            if self.sensed_by(src, x) {
                let m = &mut self.media[x as usize];
                if m.is_idle() {
                    busy.push(x);
                }
                m.sensed += 1;
            }
            let m = &self.media[x as usize];
            if m.transmitting {
                continue;
            }
            let lock = match m.rx {
                None if p >= self.cs_mw => Some(RxLock {
                    frame: id,
                    start: now,
                    power_mw: p,
                    ok: self.decodable(p, x, id),
                }),
                None => None,
                // A stronger frame starting within the CCA window of the one locked onto
                // takes the receiver over (the receiver had not yet synchronised); a later
                // one never does, as in NS-2.
                Some(l) if now <= l.start + self.cca_time && p > l.power_mw => Some(RxLock {
                    frame: id,
                    start: now,
                    power_mw: p,
                    ok: self.decodable(p, x, id),
                }),
                Some(l) => Some(RxLock {
                    ok: l.ok && self.decodable(l.power_mw, x, l.frame),
                    ..l
                }),
            };
            self.media[x as usize].rx = lock;
        }
        frame
    }

    /// Takes frame `id` off the air at `now`. Interfaces that were locked onto it get a
    /// [`Reception`]; those whose medium turns idle (the sender included) go to `idle`.
    pub fn end(
        &mut self,
        now: Time,
        id: u64,
        receptions: &mut Vec<Reception>,
        idle: &mut Vec<IfaceId>,
    ) -> Option<AirFrame> {
        let pos = self.air.iter().position(|f| f.id == id)?;
        let frame = self.air.swap_remove(pos);
        let src = frame.src;
        {
            let me = &mut self.media[src as usize];
            me.transmitting = false;
            if me.is_idle() {
                me.idle_since = now;
                idle.push(src);
            }
        }
        for x in 0..self.n as IfaceId {
            if x == src {
                continue;
            }
            let sensed = self.sensed_by(src, x);
            let m = &mut self.media[x as usize];
            if let Some(l) = m.rx.filter(|l| l.frame == id) {
                m.rx = None;
                let decoded = l.ok && l.power_mw >= dbm_to_mw(frame.rate.sensitivity_dbm());
                m.last_rx_failed = !decoded;
                receptions.push(Reception { at: x, decoded });
            }
            if sensed {
                m.sensed -= 1;
                if m.is_idle() {
                    m.idle_since = now;
                    idle.push(x);
                }
            }
        }
        Some(frame)
    }

    /// Whether a frame of `kind` from `src` to `dst` is on the air now.
    pub fn carrying(&self, kind: FrameKind, src: IfaceId, dst: IfaceId) -> bool {
        self.air
            .iter()
            .any(|f| f.kind == kind && f.src == src && f.dst == dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate() -> OfdmRate {
        OfdmRate::from_bps(54e6).unwrap()
    }

    /// Puts a DATA frame at 54 Mb/s without NAV on the air.
    fn data(
        ch: &mut Channel,
        at: Time,
        src: IfaceId,
        dst: IfaceId,
        duration: Time,
        uid: u64,
        busy: &mut Vec<IfaceId>,
    ) -> AirFrame {
        ch.start(
            at,
            FrameKind::Data,
            src,
            dst,
            duration,
            Time(0),
            rate(),
            uid,
            busy,
        )
    }

    /// Three interfaces; 0 hears 1 at 1e-5 mW and 2 at 1e-7 mW (20 dB apart).
    fn channel() -> Channel {
        let mut power = vec![1e-6; 9];
        power[3] = 1e-5; // tx 1 -> rx 0
        power[6] = 1e-7; // tx 2 -> rx 0
        Channel::new(3, power, 1e-9, 1e-12, 10.0, Time::from_micros(4))
    }

    #[test]
    fn single_frame_is_decoded_and_medium_goes_busy_then_idle() {
        let mut ch = channel();
        let mut busy = Vec::new();
        let f = data(&mut ch, Time(0), 1, 0, Time(100), 7, &mut busy);
        busy.sort();
        assert_eq!(busy, vec![0, 1, 2]);
        assert!(!ch.media[0].is_idle());
        let (mut rx, mut idle) = (Vec::new(), Vec::new());
        ch.end(Time(100), f.id, &mut rx, &mut idle).unwrap();
        assert!(rx.contains(&Reception {
            at: 0,
            decoded: true
        }));
        assert_eq!(ch.media[0].idle_since, Time(100));
        assert!(!ch.media[0].last_rx_failed);
        assert_eq!(idle.len(), 3);
    }

    #[test]
    fn stronger_of_two_simultaneous_frames_is_captured() {
        let mut ch = channel();
        let mut busy = Vec::new();
        // The weak frame starts first, the strong one in the same instant: capture.
        let weak = data(&mut ch, Time(0), 2, 0, Time(100), 1, &mut busy);
        let strong = data(&mut ch, Time(0), 1, 0, Time(100), 2, &mut busy);
        let (mut rx, mut idle) = (Vec::new(), Vec::new());
        ch.end(Time(100), weak.id, &mut rx, &mut idle);
        assert!(
            !rx.iter().any(|r| r.at == 0),
            "receiver switched to the strong frame"
        );
        let f = ch.end(Time(100), strong.id, &mut rx, &mut idle).unwrap();
        assert!(f.overlapped);
        assert!(rx.contains(&Reception {
            at: 0,
            decoded: true
        }));
    }

    #[test]
    fn equal_frames_collide_and_observers_use_eifs() {
        // 0 and 1 transmit at the same power to 2: neither survives at 2.
        let mut ch = Channel::new(3, vec![1e-6; 9], 1e-9, 1e-12, 10.0, Time(4000));
        let mut busy = Vec::new();
        let a = data(&mut ch, Time(0), 0, 2, Time(100), 1, &mut busy);
        let b = data(&mut ch, Time(0), 1, 2, Time(100), 2, &mut busy);
        let (mut rx, mut idle) = (Vec::new(), Vec::new());
        ch.end(Time(100), a.id, &mut rx, &mut idle);
        ch.end(Time(100), b.id, &mut rx, &mut idle);
        assert_eq!(
            rx,
            vec![Reception {
                at: 2,
                decoded: false
            }]
        );
        assert!(ch.media[2].last_rx_failed);
        // The transmitters were not receiving: no EIFS for them.
        assert!(!ch.media[0].last_rx_failed);
    }

    #[test]
    fn later_stronger_frame_does_not_capture() {
        let mut ch = channel();
        let mut busy = Vec::new();
        let weak = data(&mut ch, Time(0), 2, 0, Time(100_000), 1, &mut busy);
        // Starts 10 us later, beyond the 4 us CCA window: the weak frame is destroyed and
        // the receiver stays on it.
        let strong = data(&mut ch, Time(10_000), 1, 0, Time(100_000), 2, &mut busy);
        let (mut rx, mut idle) = (Vec::new(), Vec::new());
        ch.end(Time(100_000), weak.id, &mut rx, &mut idle);
        assert_eq!(
            rx,
            vec![Reception {
                at: 0,
                decoded: false
            }]
        );
        rx.clear();
        ch.end(Time(110_000), strong.id, &mut rx, &mut idle);
        assert!(!rx.iter().any(|r| r.at == 0));
    }
}
