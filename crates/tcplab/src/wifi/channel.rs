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
    pub uid: u32,
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
    /// Whether `rx` senses `tx` (power at or above the carrier-sense threshold), same layout.
    sensed: Vec<bool>,
    /// Whether a frame from `tx` is decodable at `rx` with nothing else on the air (power
    /// at least the capture ratio above the noise), same layout.
    clean: Vec<bool>,
    noise_mw: f64,
    capture_ratio: f64,
    cca_time: Time,
    /// Minimum input sensitivity of each rate in mW, by [`OfdmRate::index`]: converted
    /// once here rather than for every receiver of every frame.
    sensitivity_mw: [f64; 8],
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
        let mut sensitivity_mw = [0.0; 8];
        for r in OfdmRate::all() {
            sensitivity_mw[r.index()] = dbm_to_mw(r.sensitivity_dbm());
        }
        // Nobody senses its own frames (it knows it is transmitting).
        let sensed = (0..n * n)
            .map(|k| k / n != k % n && power[k] >= cs_mw)
            .collect();
        let clean = power
            .iter()
            .map(|&p| survives(p, 0.0, noise_mw, capture_ratio))
            .collect();
        Channel {
            n,
            power,
            sensed,
            clean,
            noise_mw,
            capture_ratio,
            cca_time,
            sensitivity_mw,
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
        self.sensed[tx as usize * self.n + rx as usize]
    }

    /// Frames on the air now.
    pub fn air(&self) -> &[AirFrame] {
        &self.air
    }

    /// Whether `frame`, received at `signal` mW by `rx`, survives every other frame on the
    /// air.
    fn decodable(&self, signal: f64, rx: IfaceId, frame: u64) -> bool {
        let interference: f64 = self
            .air
            .iter()
            .filter(|f| f.id != frame && f.src != rx)
            .map(|f| self.power(f.src, rx))
            .sum();
        survives(signal, interference, self.noise_mw, self.capture_ratio)
    }

    /// Puts a frame on the air at `now`: the sender transmits, every interface that senses
    /// it counts one more carrier, and idle receivers lock onto it.
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
        uid: u32,
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
        me.transmitting = true;
        // Half duplex: transmitting abandons any reception in progress.
        me.rx = None;

        let row = src as usize * self.n..(src as usize + 1) * self.n;
        if !overlapped {
            // Alone on the air: nobody else transmits or is locked onto another frame, and
            // nothing interferes.
            let (sensed, clean, power) = (
                &self.sensed[row.clone()],
                &self.clean[row.clone()],
                &self.power[row],
            );
            for (x, m) in self.media.iter_mut().enumerate() {
                if !sensed[x] {
                    continue;
                }
                debug_assert!(m.rx.is_none() && !m.transmitting);
                m.sensed += 1;
                m.rx = Some(RxLock {
                    frame: id,
                    start: now,
                    power_mw: power[x],
                    ok: clean[x],
                });
            }
            // The `clean` table is the capture rule with no interference.
            debug_assert!((0..self.n as IfaceId).filter(|&x| x != src).all(|x| {
                self.clean[src as usize * self.n + x as usize]
                    == self.decodable(self.power(src, x), x, id)
            }));
            return frame;
        }
        let mut media = std::mem::take(&mut self.media);
        for (x, m) in media.iter_mut().enumerate() {
            if x == src as usize {
                continue;
            }
            let sensed = self.sensed[row.start + x];
            m.sensed += sensed as u16;
            if m.transmitting {
                continue;
            }
            let p = self.power[row.start + x];
            let x = x as IfaceId;
            m.rx = match m.rx {
                None if sensed => Some(RxLock {
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
        }
        self.media = media;
        frame
    }

    /// Takes frame `id` off the air at `now`. Interfaces whose medium turns idle note when;
    /// those that were locked onto the frame note whether they decoded it (EIFS), and
    /// those that decoded a frame addressed to another set their NAV from its duration
    /// field (virtual carrier sense, 9.2.5.4). Returns the frame and, if its addressee
    /// was locked onto it, the addressee's [`Reception`].
    pub fn end(&mut self, now: Time, id: u64) -> Option<(AirFrame, Option<Reception>)> {
        let pos = self.air.iter().position(|f| f.id == id)?;
        let frame = self.air.swap_remove(pos);
        let src = frame.src;
        let sensitivity = self.sensitivity_mw[frame.rate.index()];
        {
            let me = &mut self.media[src as usize];
            me.transmitting = false;
            if me.is_idle() {
                me.idle_since = now;
            }
        }
        let dst = frame.dst as usize;
        let nav_until = now + frame.nav;
        let mut reception = None;
        let row = src as usize * self.n..(src as usize + 1) * self.n;
        let sensed = &self.sensed[row.clone()];
        if !frame.overlapped {
            // Alone on the air from start to end: every interface that senses it locked
            // onto it at its start (with the `clean` verdict) and held on, and none but
            // the sender transmitted meanwhile.
            let (clean, power) = (&self.clean[row.clone()], &self.power[row]);
            for (x, m) in self.media.iter_mut().enumerate() {
                if !sensed[x] {
                    continue;
                }
                debug_assert!(m.rx.is_some_and(|l| l.frame == id) && !m.transmitting);
                let decoded = clean[x] && power[x] >= sensitivity;
                m.rx = None;
                m.last_rx_failed = !decoded;
                if x == dst {
                    reception = Some(Reception {
                        at: x as IfaceId,
                        decoded,
                    });
                } else if decoded {
                    m.nav_until = m.nav_until.max(nav_until);
                }
                m.sensed -= 1;
                if m.sensed == 0 {
                    m.idle_since = now;
                }
            }
            return Some((frame, reception));
        }
        for (x, (m, &sensed)) in self.media.iter_mut().zip(sensed).enumerate() {
            if x == src as usize {
                continue;
            }
            if let Some(l) = m.rx.filter(|l| l.frame == id) {
                m.rx = None;
                let decoded = l.ok && l.power_mw >= sensitivity;
                m.last_rx_failed = !decoded;
                if x == dst {
                    reception = Some(Reception {
                        at: x as IfaceId,
                        decoded,
                    });
                } else if decoded {
                    m.nav_until = m.nav_until.max(nav_until);
                }
            }
            if sensed {
                m.sensed -= 1;
                if m.is_idle() {
                    m.idle_since = now;
                }
            }
        }
        Some((frame, reception))
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

    /// Puts a DATA frame at 54 Mb/s with `nav` on the air.
    #[allow(clippy::too_many_arguments)]
    fn data_nav(
        ch: &mut Channel,
        at: Time,
        src: IfaceId,
        dst: IfaceId,
        duration: Time,
        nav: Time,
        uid: u32,
    ) -> AirFrame {
        ch.start(at, FrameKind::Data, src, dst, duration, nav, rate(), uid)
    }

    /// Puts a DATA frame at 54 Mb/s without NAV on the air.
    fn data(
        ch: &mut Channel,
        at: Time,
        src: IfaceId,
        dst: IfaceId,
        duration: Time,
        uid: u32,
    ) -> AirFrame {
        data_nav(ch, at, src, dst, duration, Time(0), uid)
    }

    /// Three interfaces; 0 hears 1 at 1e-5 mW and 2 at 1e-7 mW (20 dB apart).
    fn channel() -> Channel {
        let mut power = vec![1e-6; 9];
        power[3] = 1e-5; // tx 1 -> rx 0
        power[6] = 1e-7; // tx 2 -> rx 0
        Channel::new(3, power, 1e-9, 1e-12, 10.0, Time::from_micros(4))
    }

    fn decoded_at(at: IfaceId, decoded: bool) -> Option<Reception> {
        Some(Reception { at, decoded })
    }

    #[test]
    fn single_frame_is_decoded_and_medium_goes_busy_then_idle() {
        let mut ch = channel();
        let f = data(&mut ch, Time(0), 1, 0, Time(100), 7);
        assert!((0..3).all(|i| !ch.media[i].is_idle()));
        let (_, rx) = ch.end(Time(100), f.id).unwrap();
        assert_eq!(rx, decoded_at(0, true));
        assert!((0..3).all(|i| ch.media[i].is_idle() && ch.media[i].idle_since == Time(100)));
        assert!(!ch.media[0].last_rx_failed);
        assert!(ch.end(Time(100), f.id).is_none(), "ended once");
    }

    #[test]
    fn overhearers_that_decode_set_their_nav() {
        let mut ch = channel();
        let f = data_nav(&mut ch, Time(0), 1, 0, Time(100), Time(44), 7);
        ch.end(Time(100), f.id).unwrap();
        // Interface 2 decoded a frame for 0: reserved until 100 + 44. The addressee and
        // the sender keep their NAV.
        assert_eq!(ch.media[2].nav_until, Time(144));
        assert_eq!(ch.media[0].nav_until, Time(0));
        assert_eq!(ch.media[1].nav_until, Time(0));
    }

    #[test]
    fn stronger_of_two_simultaneous_frames_is_captured() {
        let mut ch = channel();
        // The weak frame starts first, the strong one in the same instant: capture.
        let weak = data(&mut ch, Time(0), 2, 0, Time(100), 1);
        let strong = data(&mut ch, Time(0), 1, 0, Time(100), 2);
        let (_, rx) = ch.end(Time(100), weak.id).unwrap();
        assert_eq!(rx, None, "receiver switched to the strong frame");
        let (f, rx) = ch.end(Time(100), strong.id).unwrap();
        assert!(f.overlapped);
        assert_eq!(rx, decoded_at(0, true));
    }

    #[test]
    fn equal_frames_collide_and_observers_use_eifs() {
        // 0 and 1 transmit at the same power to 2: neither survives at 2.
        let mut ch = Channel::new(3, vec![1e-6; 9], 1e-9, 1e-12, 10.0, Time(4000));
        let a = data(&mut ch, Time(0), 0, 2, Time(100), 1);
        let b = data(&mut ch, Time(0), 1, 2, Time(100), 2);
        let (_, rx_a) = ch.end(Time(100), a.id).unwrap();
        let (_, rx_b) = ch.end(Time(100), b.id).unwrap();
        // The receiver locked onto the first frame only.
        assert_eq!((rx_a, rx_b), (decoded_at(2, false), None));
        assert!(ch.media[2].last_rx_failed);
        // The transmitters were not receiving: no EIFS for them.
        assert!(!ch.media[0].last_rx_failed);
    }

    #[test]
    fn later_stronger_frame_does_not_capture() {
        let mut ch = channel();
        let weak = data(&mut ch, Time(0), 2, 0, Time(100_000), 1);
        // Starts 10 us later, beyond the 4 us CCA window: the weak frame is destroyed and
        // the receiver stays on it.
        let strong = data(&mut ch, Time(10_000), 1, 0, Time(100_000), 2);
        let (_, rx) = ch.end(Time(100_000), weak.id).unwrap();
        assert_eq!(rx, decoded_at(0, false));
        assert!(
            !ch.media[0].is_idle(),
            "the strong frame is still on the air"
        );
        let (_, rx) = ch.end(Time(110_000), strong.id).unwrap();
        assert_eq!(rx, None);
    }
}
