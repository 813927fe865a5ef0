//! Wired transmitters (issue 8): a packet's arrival at the far end is scheduled when its
//! transmission starts. A plain-FIFO (DropTail) link knows that start on arrival and
//! schedules the arrival at once (or, in a lane other links use, holds the packet until
//! its start); a link with another discipline schedules a completion (`LinkDone`) only
//! while packets wait in its queue.

use tcplab::net::DropCause;
use tcplab::sim::Time;
use tcplab::{parse_scenario, World};

const TWO_FLOWS: &str = r#"
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
[[flows]]
src = "s1"
dst = "d1"
cc = "newreno"
start = 0.05
"#;

const ONE_FLOW: &str = "[[flows]]\nsrc = \"s0\"\ndst = \"d0\"\ncc = \"reno\"";

const RED: &str = r#", queue = { kind = "red", min_th = 5, max_th = 15 }"#;

const LOSSY: &str = r#", loss = { model = "bernoulli", p = 0.01 }, reverse = { loss = { model = "bernoulli", p = 0.01, applies_to = "acks" } }"#;

fn dumbbell(bottleneck_extra: &str, tcp: &str, duration: f64, flows: &str) -> String {
    format!(
        r#"
[simulation]
duration = {duration}
sample_interval = 0
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 20 {bottleneck_extra} }}
access = {{ rate = "100Mbps", delay = "1ms", buffer = 1000 }}
{tcp}
{flows}
"#
    )
}

/// Steps through a run at irregular intervals and checks every link's transmitter state
/// and conservation at each step; returns how many (step, link) pairs had packets
/// waiting at a plain-FIFO link, held there, and waiting at another link.
fn check_transmitters(text: &str, duration: f64) -> (u32, u32, u32) {
    let mut world = World::build(&parse_scenario(text).unwrap()).unwrap();
    let (mut t, mut steps, mut waited, mut held) = (Time::ZERO, 0, (0, 0), 0);
    while t < Time::from_secs_f64(duration) {
        t += Time::from_nanos(370_001 + (steps % 7) * 50_003);
        world.advance_to(t);
        steps += 1;
        let now = world.now;
        for l in &mut world.links {
            if l.fifo.is_some() {
                // The boxed queue is unused; the backlog holds the packets that have not
                // started by now, in order of start, all before the transmitter is free;
                // the last of them may be held, with a completion pending to send them.
                l.catch_up(now);
                assert!(l.queue.is_empty(), "{} at {t}", l.name);
                let starts: Vec<Time> = l.backlog.starts().collect();
                // (A token bucket releases packets together: equal starts.)
                let in_order = |w: &[Time]| w[0] < w[1] || (l.burst > Time::ZERO && w[0] == w[1]);
                assert!(starts.windows(2).all(in_order), "{} at {t}", l.name);
                assert!(starts.iter().all(|&s| now < s && s < l.busy_until));
                assert!(l.backlog.held.len() <= starts.len(), "{} at {t}", l.name);
                assert_eq!(
                    l.done_pending,
                    !l.backlog.held.is_empty(),
                    "{} at {t}",
                    l.name
                );
                assert!(l.queue_len() as u64 <= l.stats.max_queue);
                waited.0 += !starts.is_empty() as u32;
                held += !l.backlog.held.is_empty() as u32;
            } else {
                // A completion is pending exactly while packets wait, and not in the past.
                let waiting = !l.queue.is_empty();
                assert_eq!(l.done_pending, waiting, "{} at {t}", l.name);
                assert!(!l.done_pending || l.busy_until >= now, "{} at {t}", l.name);
                assert!(!(l.idle_unseen && waiting), "{} at {t}", l.name);
                waited.1 += waiting as u32;
            }
        }
        for (data, acks) in world.conservation() {
            assert!(data.holds() && acks.holds(), "at {t}: {data:?} {acks:?}");
        }
    }
    let rec = world.run().unwrap();
    let bottleneck = rec.links.iter().find(|l| l.name == "r0->r1").unwrap();
    assert!(bottleneck.drops.get(DropCause::RandomLoss) > 0);
    assert!(bottleneck.drops.total() > bottleneck.drops.get(DropCause::RandomLoss));
    (waited.0, held, waited.1)
}

/// DropTail everywhere: queueing, tail drops and random loss in both directions. The
/// bottleneck schedules waiting packets on arrival; the two identical access links share
/// their lanes and hold theirs until they start.
#[test]
fn fifo_links_schedule_each_packet_on_arrival_or_hold_it() {
    let (fifo, held, other) = check_transmitters(&dumbbell(LOSSY, "", 4.0, TWO_FLOWS), 4.0);
    assert!(fifo > 100, "the bottleneck queued packets ({fifo} samples)");
    assert!(held > 0, "the access links held packets");
    assert_eq!(other, 0);
}

/// A token-bucket bottleneck (`burst`): the same invariants, its packets never held.
#[test]
fn a_token_bucket_link_keeps_the_transmitter_invariants() {
    let text = dumbbell(&format!(r#", burst = "3ms"{LOSSY}"#), "", 4.0, TWO_FLOWS);
    let (fifo, held, other) = check_transmitters(&text, 4.0);
    assert!(fifo > 100, "the bottleneck queued packets ({fifo} samples)");
    assert!(held > 0, "the access links held packets");
    assert_eq!(other, 0);
}

/// One lossy flow leaves the bottleneck idle between its bursts: with a token bucket the
/// bursts pass it back to back, so its RTT samples are shorter and less of its data waits,
/// while the link never carries more than its rate.
#[test]
fn a_token_bucket_lets_bursts_after_idle_through() {
    let run = |extra: &str| {
        let text = dumbbell(&format!("{extra}{LOSSY}"), "", 20.0, ONE_FLOW);
        World::build(&parse_scenario(&text).unwrap())
            .unwrap()
            .run()
            .unwrap()
    };
    let (plain, bucket) = (run(""), run(r#", burst = "3ms""#));
    let (fp, fb) = (&plain.flows[0], &bucket.flows[0]);
    assert!(
        fb.mean_rtt < fp.mean_rtt - 1e-4,
        "{} vs {}",
        fb.mean_rtt,
        fp.mean_rtt
    );
    let link =
        |r: &tcplab::RunRecords| r.links.iter().find(|l| l.name == "r0->r1").unwrap().clone();
    assert!(link(&bucket).mean_queue < link(&plain).mean_queue);
    assert!(link(&bucket).utilization <= 1.0 + 1e-9);
    assert!(fb.goodput_bps < 10e6);
}

/// A token bucket needs a DropTail queue, and a slack from 0 to 10 s.
#[test]
fn a_token_bucket_is_refused_where_it_has_no_meaning() {
    let error = |extra: &str| {
        let text = dumbbell(extra, "", 1.0, ONE_FLOW);
        match parse_scenario(&text) {
            Err(e) => e,
            Ok(s) => World::build(&s).err().expect("the scenario is invalid"),
        }
    };
    let e = error(&format!(r#", burst = "1ms"{RED}"#));
    assert_eq!(e.field, "topology.bottleneck.burst");
    assert!(
        e.message.contains("DropTail") && e.message.contains("red"),
        "{}",
        e.message
    );
    let e = error(r#", burst = "-1ms""#);
    assert_eq!(e.field, "topology.bottleneck.burst");
    assert!(e.message.contains("between 0 and 10 s"), "{}", e.message);
    let e = error(r#", reverse = { burst = "11s" }"#);
    assert_eq!(e.field, "topology.bottleneck.reverse.burst");
    // The reverse direction inherits the slack: an AQM there is blamed on the key written.
    let e = error(
        r#", burst = "1ms", reverse = { queue = { kind = "red", min_th = 5, max_th = 15 } }"#,
    );
    assert_eq!(e.field, "topology.bottleneck.burst");
    assert!(e.message.contains("r1->r0"), "{}", e.message);
    let e = error(
        r#", reverse = { burst = "1ms", queue = { kind = "red", min_th = 5, max_th = 15 } }"#,
    );
    assert_eq!(e.field, "topology.bottleneck.reverse.burst");
}

/// A RED bottleneck (with DropTail access links): early drops and random loss.
#[test]
fn an_aqm_link_schedules_a_completion_exactly_while_packets_wait() {
    let text = dumbbell(&format!("{RED}{LOSSY}"), "", 4.0, TWO_FLOWS);
    let (_, _, other) = check_transmitters(&text, 4.0);
    assert!(
        other > 100,
        "the bottleneck queued packets ({other} samples)"
    );
}

/// Events per packet delivered and the largest bottleneck queue of a run.
fn events_per_packet(text: &str, duration: f64) -> (f64, u64) {
    let mut world = World::build(&parse_scenario(text).unwrap()).unwrap();
    world.advance_to(Time::from_secs_f64(duration));
    let events = world.events_processed();
    let rec = world.run().unwrap();
    let delivered = rec.meta.packets_delivered;
    assert!(delivered > 300, "{delivered} packets delivered");
    let max_queue = rec.links.iter().map(|l| l.max_queue).max().unwrap();
    (events as f64 / delivered as f64, max_queue)
}

/// Every packet costs one event per hop (three per packet delivered) plus a few timer
/// events, against six when every transmission also scheduled its own end: with one
/// flow and a window of one packet (nothing ever waits), and with two bulk flows on
/// DropTail links (packets wait at the bottleneck, but their start is known on arrival;
/// the few held at the access links add an event each). A RED bottleneck adds a
/// completion event for each packet that waits there.
#[test]
fn a_packet_costs_one_event_per_hop() {
    let (per_packet, max_queue) =
        events_per_packet(&dumbbell("", "[tcp]\nrwnd = 1", 5.0, ONE_FLOW), 5.0);
    assert_eq!(max_queue, 0);
    assert!(
        (3.0..3.1).contains(&per_packet),
        "{per_packet:.3} events per packet"
    );

    let (per_packet, max_queue) = events_per_packet(&dumbbell("", "", 5.0, TWO_FLOWS), 5.0);
    assert!(max_queue > 10);
    assert!(
        (3.0..3.1).contains(&per_packet),
        "{per_packet:.3} events per packet"
    );

    let (per_packet, max_queue) = events_per_packet(&dumbbell(RED, "", 5.0, TWO_FLOWS), 5.0);
    assert!(max_queue > 5);
    assert!(per_packet > 3.2, "{per_packet:.3} events per packet");
}
