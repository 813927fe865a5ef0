//! 802.11 WLAN scenarios (issue 5): the DCF MAC against Bianchi's saturation model, TCP
//! over the 802.11a timing, and the uplink/downlink effects of 004 section II-B.

use tcplab::sim::Time;
use tcplab::wifi::harness::saturation;
use tcplab::wifi::{MacConfig, Radio};

// ---------------------------------------------------------------------------------------
// Bianchi's model, written here from the paper (G. Bianchi, "Performance analysis of the
// IEEE 802.11 distributed coordination function", IEEE JSAC 18(3), 2000), independently of
// the simulator: only the 802.11a constants are shared, and they are restated below.

/// 802.11a PPDU air time in microseconds for an MPDU of `bytes` at `mbps` (17.4.3).
fn ofdm_us(bytes: u32, mbps: u32) -> f64 {
    let bits = 16 + 8 * bytes + 6;
    let per_symbol = 4 * mbps;
    20.0 + 4.0 * bits.div_ceil(per_symbol) as f64
}

/// Transmission probability tau and conditional collision probability p of n saturated
/// stations: eq. (7), tau = 2 / (1 + W + p W sum_{k<m} (2p)^k) (the same expression with
/// the (1 - 2p) factor cancelled), and eq. (9), p = 1 - (1 - tau)^(n-1); solved by
/// bisection on p.
fn bianchi_tau_p(n: usize, w: f64, m: i32) -> (f64, f64) {
    let tau_of = |p: f64| {
        let sum: f64 = (0..m).map(|k| (2.0 * p).powi(k)).sum();
        2.0 / (1.0 + w + p * w * sum)
    };
    let excess = |p: f64| p - (1.0 - (1.0 - tau_of(p)).powi(n as i32 - 1));
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if excess(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let p = 0.5 * (lo + hi);
    (tau_of(p), p)
}

/// Saturation throughput, eq. (13): S = Ps Ptr E[P] / ((1 - Ptr) sigma + Ptr Ps Ts +
/// Ptr (1 - Ps) Tc), in bits per second.
fn bianchi_throughput(n: usize, payload_bits: f64, sigma: f64, ts: f64, tc: f64) -> f64 {
    let (tau, _) = bianchi_tau_p(n, 16.0, 6);
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    ps * ptr * payload_bits / ((1.0 - ptr) * sigma + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

/// The model with 004 table I: W = CWmin + 1 = 16, m = 6 (CWmax + 1 = 1024 = 2^6 W),
/// slot 9 us, SIFS 16 us, DIFS 34 us, 54 Mb/s DATA, ACK at 24 Mb/s, zero propagation delay.
/// Payload: a 1500-byte IP packet (UDP) in a 1528-byte MPDU (24-byte MAC header + 4-byte
/// FCS, no LLC/SNAP). Ts = DATA + SIFS + ACK + DIFS (eq. 17, basic access). For Tc the
/// stations that hear a collision defer EIFS = SIFS + ACK at 6 Mb/s + DIFS after it
/// (802.11 9.2.3.4) rather than Bianchi's DIFS, so Tc = DATA + EIFS.
fn model_802_11a(n: usize) -> f64 {
    let data = ofdm_us(1528, 54);
    let ack = ofdm_us(14, 24);
    let eifs = 16.0 + ofdm_us(14, 6) + 34.0;
    let ts = data + 16.0 + ack + 34.0;
    let tc = data + eifs;
    bianchi_throughput(n, 1500.0 * 8.0, 9e-6, ts * 1e-6, tc * 1e-6)
}

#[test]
fn bianchi_model_sanity() {
    // One station never collides: tau = 2 / (W + 1).
    let (tau, p) = bianchi_tau_p(1, 16.0, 6);
    assert!((tau - 2.0 / 17.0).abs() < 1e-12 && p.abs() < 1e-9);
    // More stations: more collisions, lower tau.
    let (t10, p10) = bianchi_tau_p(10, 16.0, 6);
    let (t50, p50) = bianchi_tau_p(50, 16.0, 6);
    assert!(p50 > p10 && t50 < t10);
}

#[test]
fn saturation_throughput_matches_bianchi_within_5_percent() {
    for (n, secs) in [
        (1, 4.0),
        (2, 4.0),
        (5, 4.0),
        (10, 4.0),
        (20, 4.0),
        (50, 4.0),
    ] {
        let sim = saturation(
            MacConfig::table_i(),
            &Radio::default(),
            n,
            4.0,
            1500,
            Time::from_secs_f64(0.5),
            Time::from_secs_f64(0.5 + secs),
            7,
        );
        let model = model_802_11a(n);
        let (_, p) = bianchi_tau_p(n, 16.0, 6);
        let err = sim.throughput_bps / model - 1.0;
        eprintln!(
            "n={n:>2} sim {:.3} Mb/s model {:.3} Mb/s err {:+.2}% p sim {:.3} model {:.3}",
            sim.throughput_bps / 1e6,
            model / 1e6,
            100.0 * err,
            sim.failure_ratio,
            p
        );
        assert!(err.abs() < 0.05, "n = {n}: {err:+.3}");
    }
}

// ---------------------------------------------------------------------------------------
// Scenarios through the whole engine.

use tcplab::net::DropCause;
use tcplab::record::RunRecords;
use tcplab::wifi::harness::{bss_with_stations, Harness};
use tcplab::wifi::{MacEvent, AP};
use tcplab::{parse_scenario, run_scenario, validate_scenario};

#[path = "common/wlan_doc.rs"]
mod wlan_doc;
use wlan_doc::{reno_flows, wlan};

fn run(text: &str) -> RunRecords {
    run_scenario(text, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Mean number of TCP ACKs in the AP queue from `from` seconds on.
fn mean_ap_acks(r: &RunRecords, from: f64) -> f64 {
    let q = &r.wifi.ap_queue;
    let v: Vec<f64> = (0..q.time.len())
        .filter(|&i| q.time[i] >= from)
        .map(|i| q.acks[i] as f64)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Analytical goodput of one uplink TCP flow over 802.11a (004 table I): per 1000-byte
/// segment the station sends a DATA frame of 1040 + 28 bytes (40 symbols at 54 Mb/s,
/// 180 us) and the AP a TCP ACK of 40 + 28 bytes (3 symbols, 32 us); each frame waits
/// DIFS + a mean backoff of CWmin/2 = 7.5 slots and is followed by SIFS + MAC ACK (28 us
/// at 24 Mb/s). Per segment: 2 (34 + 67.5 + 16 + 28) + 180 + 32 = 503 us, so
/// 8000 bits / 503 us = 15.9 Mb/s. (Backoffs of the two senders overlap, so the MAC can
/// do slightly better; collisions between them cost a little.)
fn one_flow_analytic_bps() -> f64 {
    let data = ofdm_us(1040 + 28, 54);
    let tcp_ack = ofdm_us(40 + 28, 54);
    let mac_ack = ofdm_us(14, 24);
    let per_frame = 34.0 + 7.5 * 9.0 + 16.0 + mac_ack;
    8000.0 / ((2.0 * per_frame + data + tcp_ack) * 1e-6)
}

#[test]
fn one_uplink_reno_flow_reaches_the_80211a_capacity() {
    // rwnd 1000 packets, above the path's ~400-packet BDP, so the station's queue never
    // overflows and the flow is limited by the MAC alone.
    let r = run(&wlan(
        20.0,
        5.0,
        "stations = 1",
        "[tcp]\nrwnd = 1000",
        &reno_flows(1, 0),
    ));
    let f = &r.flows[0];
    let analytic = one_flow_analytic_bps();
    let err = f.goodput_bps / analytic - 1.0;
    eprintln!(
        "one uplink flow: {:.3} Mb/s, analytic {:.3} Mb/s ({:+.1}%)",
        f.goodput_bps / 1e6,
        analytic / 1e6,
        100.0 * err
    );
    assert!(err.abs() < 0.10, "{err:+.3}");
    // The MAC records agree with TCP: every segment crossed the station's interface and
    // every TCP ACK the AP's.
    let (w0, ap) = (r.wifi.iface("w0").unwrap(), r.wifi.iface("ap").unwrap());
    assert!(w0.acked >= f.bytes_delivered / 1000);
    assert!(ap.acked >= f.acks_received);
    let min_delay = (34.0 + ofdm_us(1068, 54) + 16.0 + ofdm_us(14, 24)) * 1e-6;
    assert!(w0.delay_mean >= min_delay && w0.delay_max >= w0.delay_mean);
}

#[test]
fn downlink_flow_crosses_the_ap_queue() {
    let r = run(&wlan(
        5.0,
        1.0,
        "stations = 2\nframe_log = true",
        "[tcp]\nrwnd = 1000",
        "[[flows]]\nsrc = \"h0\"\ndst = \"w1\"\ncc = \"reno\"\n",
    ));
    assert!(r.flows[0].goodput_bps > 1e6, "{}", r.flows[0].goodput_bps);
    let ap = r.wifi.iface("ap").unwrap();
    let w1 = r.wifi.iface("w1").unwrap();
    assert!(ap.acked > 0 && w1.acked > 0);
    assert_eq!(r.wifi.iface("w0").unwrap().attempts, 0);
    let frames = r.wifi.frames.as_ref().expect("frame log asked for");
    assert_eq!(frames.time.len() as u64, ap.acked + w1.acked);
    // Data frames from the AP take at least DATA + SIFS + ACK (less than DIFS before it
    // when the frame arrives while a post-backoff is already counting down).
    let ap_index = r.wifi.ifaces.iter().position(|i| i.is_ap).unwrap() as u32;
    let floor = (ofdm_us(1068, 54) + 16.0 + ofdm_us(14, 24)) * 1e-6 - 1e-12;
    assert!(
        frames.iter_ap(ap_index).all(|d| d >= floor),
        "an AP frame faster than the PHY allows"
    );
}

trait ApDelays {
    fn iter_ap(&self, ap: u32) -> Box<dyn Iterator<Item = f64> + '_>;
}

impl ApDelays for tcplab::record::wifi::FrameDelays {
    fn iter_ap(&self, ap: u32) -> Box<dyn Iterator<Item = f64> + '_> {
        Box::new(
            self.iface
                .iter()
                .zip(&self.delay)
                .filter(move |(&i, _)| i == ap)
                .map(|(_, &d)| d),
        )
    }
}

#[test]
fn sixteen_uplink_flows_fill_the_ap_with_acks_and_starve_some() {
    // 004 section II-B.2: the AP gets the same share of transmission opportunities as one
    // station but carries the ACKs of all 16 flows, so its queue fills with ACKs and drops
    // them; flows that lose a whole window of ACKs time out and stay starved.
    let r = run(&wlan(10.0, 4.0, "stations = 16", "", &reno_flows(16, 0)));
    let ap = r.wifi.iface("ap").unwrap();
    let acks_dropped: u64 = r
        .flows
        .iter()
        .map(|f| f.ack_drops.get(DropCause::BufferOverflow))
        .sum();
    assert_eq!(acks_dropped, ap.ack_drops.get(DropCause::BufferOverflow));
    assert!(acks_dropped > 1000, "{acks_dropped}");
    let occupancy = mean_ap_acks(&r, 4.0);
    assert!(occupancy > 90.0, "mean ACKs at the AP {occupancy}");
    let jain = r.jain_index();
    let timeouts: u64 = r.flows.iter().map(|f| f.timeouts).sum();
    eprintln!("16 uplink: Jain {jain:.3}, ACK drops {acks_dropped}, timeouts {timeouts}");
    assert!(timeouts >= 16, "{timeouts}");
    assert!(jain < 0.8, "{jain}");

    // The contrast that shows the cause: an AP that takes the medium PIFS after every busy
    // period (no backoff) never builds an ACK queue, and the same flows share far better.
    let drained = run(&wlan(
        10.0,
        4.0,
        "stations = 16\nap_access = \"pifs\"\nap_backoff = false",
        "",
        &reno_flows(16, 0),
    ));
    let ap = drained.wifi.iface("ap").unwrap();
    assert_eq!(ap.ack_drops.get(DropCause::BufferOverflow), 0);
    assert!(mean_ap_acks(&drained, 4.0) < 10.0);
    let jain_drained = drained.jain_index();
    eprintln!("16 uplink, AP without backoff: Jain {jain_drained:.3}");
    assert!(jain_drained > jain + 0.25, "{jain_drained} vs {jain}");
}

#[test]
fn downlink_flows_lose_to_uplink_flows_at_the_ap() {
    // 004 section II-B.3: the AP drops uplink ACKs (no effect on the uplink senders) and
    // downlink data (which halves the downlink windows).
    let r = run(&wlan(10.0, 4.0, "stations = 16", "", &reno_flows(8, 8)));
    let mean = |up: bool| {
        let g: Vec<f64> = r
            .flows
            .iter()
            .filter(|f| f.name.starts_with("up") == up)
            .map(|f| f.goodput_bps)
            .collect();
        g.iter().sum::<f64>() / g.len() as f64
    };
    let (up, down) = (mean(true), mean(false));
    eprintln!(
        "8+8: uplink {:.3} Mb/s, downlink {:.3} Mb/s",
        up / 1e6,
        down / 1e6
    );
    assert!(up > 4.0 * down, "uplink {up}, downlink {down}");
    let ap = r.wifi.iface("ap").unwrap();
    assert!(ap.data_drops.get(DropCause::BufferOverflow) > 0);
}

#[test]
fn near_station_gets_more_than_far_one_through_capture() {
    // Two saturated stations at 1 m and 10 m: when their frames collide the AP decodes
    // the near one (20 dB stronger, capture threshold 10 dB), so only the far one backs
    // off further.
    let bss = bss_with_stations(
        MacConfig::table_i(),
        &Radio::default(),
        &[1.0, 10.0],
        100,
        3,
    );
    let mut h = Harness::new(bss);
    let mut delivered = [0u64; 3];
    for i in [1, 2] {
        for _ in 0..2 {
            let p = h.datagram(i, AP, 1500);
            h.enqueue(i, p).unwrap();
        }
    }
    h.run_until(Time::from_secs_f64(3.0), |h, ev| {
        let from = match ev {
            MacEvent::Delivered { from, .. } => {
                delivered[from as usize] += 1;
                from
            }
            MacEvent::Dropped { from, .. } => from,
        };
        let p = h.datagram(from, AP, 1500);
        h.enqueue(from, p).unwrap();
    });
    let (near, far) = (h.bss.stats(1).clone(), h.bss.stats(2).clone());
    eprintln!(
        "near {} frames ({} collisions), far {} ({} collisions)",
        delivered[1], near.collisions, delivered[2], far.collisions
    );
    assert!(near.collisions > 100 && near.failures == 0, "{near:?}");
    assert_eq!(far.failures, far.collisions);
    assert!(delivered[1] as f64 > 1.05 * delivered[2] as f64);
}

#[test]
fn runs_are_deterministic() {
    let text = wlan(2.0, 0.0, "stations = 3", "", &reno_flows(2, 1));
    // Compared as text: loss records hold NaN, which is not equal to itself.
    assert_eq!(format!("{:?}", run(&text)), format!("{:?}", run(&text)));
}

#[test]
fn bad_wlan_settings_are_named() {
    let base = |topology: &str| wlan(1.0, 0.0, topology, "", &reno_flows(1, 0));
    let cases = [
        ("stations = 0", "topology.stations"),
        ("stations = 2\ndistances = [1.0]", "topology.distances"),
        ("stations = 2\ndistance = -1", "topology.distance"),
        ("stations = 1\nap_buffer = 0", "topology.ap_buffer"),
        (
            "stations = 1\n[topology.mac]\nrate = \"11Mbps\"",
            "topology.mac.rate",
        ),
        (
            "stations = 1\n[topology.mac]\ndifs = \"10us\"",
            "topology.mac.difs",
        ),
        (
            "stations = 1\n[topology.mac]\ncw_min = 31\ncw_max = 15",
            "topology.mac.cw_max",
        ),
        (
            "stations = 1\n[topology.mac]\nretry_limit = 0",
            "topology.mac.retry_limit",
        ),
        // serde loses the path inside the internally tagged topology; the key is named.
        (
            "stations = 1\n[topology.mac]\nslots = 3",
            "unknown field `slots`",
        ),
        (
            "stations = 1\n[topology.radio]\ncapture_threshold_db = -3",
            "topology.radio.capture_threshold_db",
        ),
        ("stations = 1\nap_access = \"sifs\"", "topology"),
    ];
    for (topology, field) in cases {
        let e = validate_scenario(&base(topology)).expect_err(topology);
        assert!(
            e.to_string().contains(field),
            "{topology:?}: {e} does not name {field}"
        );
    }
    // A flow between two nodes that exist but names a missing station.
    let e = validate_scenario(&wlan(1.0, 0.0, "stations = 2", "", &reno_flows(3, 0))).unwrap_err();
    assert!(e.to_string().contains("w2"), "{e}");
    // The AP queue takes any queue discipline a link takes.
    validate_scenario(&base("stations = 1\nap_queue = { kind = \"droptail\" }")).unwrap();
}

#[test]
fn wlan_document_round_trips_through_canonical_toml() {
    let s = parse_scenario(&wlan(
        1.0,
        0.0,
        "stations = 2\ndistances = [1.0, 10.0]\nap_access = \"pifs\"\nrts_cts = true\n[topology.mac]\ncw_min = 31",
        "",
        &reno_flows(1, 1),
    ))
    .unwrap();
    let again = parse_scenario(&s.to_toml()).unwrap_or_else(|e| panic!("{e}\n{}", s.to_toml()));
    assert_eq!(s, again);
}

/// Two saturated stations 40 m on either side of the AP; with the carrier-sense threshold
/// at -60 dBm they hear the AP (-58.8 dBm) but not each other (-64.9 dBm at 80 m).
fn hidden_pair(rts_cts: bool, cs_threshold_dbm: f64) -> tcplab::wifi::harness::Saturation {
    let cfg = MacConfig {
        rts_cts,
        ..MacConfig::table_i()
    };
    let radio = Radio {
        cs_threshold_dbm,
        ..Radio::default()
    };
    saturation(
        cfg,
        &radio,
        2,
        40.0,
        1500,
        Time::from_secs_f64(0.2),
        Time::from_secs_f64(2.2),
        5,
    )
}

#[test]
fn hidden_stations_collide_more_and_rts_cts_helps() {
    let heard = hidden_pair(false, -82.0);
    let hidden = hidden_pair(false, -60.0);
    let hidden_rts = hidden_pair(true, -60.0);
    eprintln!(
        "heard {:.2} Mb/s p {:.3}; hidden {:.2} Mb/s p {:.3}; hidden + RTS/CTS {:.2} Mb/s p {:.3}",
        heard.throughput_bps / 1e6,
        heard.failure_ratio,
        hidden.throughput_bps / 1e6,
        hidden.failure_ratio,
        hidden_rts.throughput_bps / 1e6,
        hidden_rts.failure_ratio
    );
    // Both hidden stations keep getting frames through (no one waits forever).
    assert!(hidden.throughput_bps > 1e6);
    assert!(hidden.failure_ratio > 2.0 * heard.failure_ratio);
    assert!(hidden_rts.throughput_bps > hidden.throughput_bps);
}
