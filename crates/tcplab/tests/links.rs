//! The wired transmitter (issue 8): a packet's arrival at the far end is scheduled when
//! its transmission starts, and a link schedules a completion event (`LinkDone`) only
//! while packets wait in its queue.

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

/// At every instant: a link has a completion pending exactly when packets wait in its
/// queue, the completion is not in the past, and a link that owes its queue an idle
/// notice has nothing waiting. Checked at irregular steps through a run with queueing,
/// buffer overflows and random loss in both directions, with conservation at each step.
#[test]
fn a_link_schedules_a_completion_exactly_while_packets_wait() {
    let lossy = r#", loss = { model = "bernoulli", p = 0.01 }, reverse = { loss = { model = "bernoulli", p = 0.01, applies_to = "acks" } }"#;
    let scenario = parse_scenario(&dumbbell(lossy, "", 4.0, TWO_FLOWS)).unwrap();
    let mut world = World::build(&scenario).unwrap();
    let (mut t, mut waited, mut steps) = (Time::ZERO, 0, 0);
    while t < Time::from_secs_f64(4.0) {
        t += Time::from_nanos(370_001 + (steps % 7) * 50_003);
        world.advance_to(t);
        steps += 1;
        for l in &world.links {
            let waiting = !l.queue.is_empty();
            assert_eq!(l.done_pending, waiting, "{} at {t}", l.name);
            if l.done_pending {
                assert!(l.busy_until >= world.now, "{} at {t}", l.name);
            }
            assert!(!(l.idle_unseen && waiting), "{} at {t}", l.name);
            waited += waiting as u32;
        }
        for (data, acks) in world.conservation() {
            assert!(data.holds() && acks.holds(), "at {t}: {data:?} {acks:?}");
        }
    }
    assert!(
        waited > 100,
        "the bottleneck queued packets ({waited} samples)"
    );
    let rec = world.run().unwrap();
    let bottleneck = rec.links.iter().find(|l| l.name == "r0->r1").unwrap();
    assert!(bottleneck.drops.get(tcplab::net::DropCause::BufferOverflow) > 0);
    assert!(bottleneck.drops.get(tcplab::net::DropCause::RandomLoss) > 0);
}

/// With one flow and a window of one packet nothing ever waits for a transmitter, so the run costs one
/// event per hop (three per packet delivered) plus a few timer events, against six when
/// every transmission also scheduled its own end.
#[test]
fn packets_that_never_wait_cost_one_event_per_hop() {
    let one_flow = "[[flows]]\nsrc = \"s0\"\ndst = \"d0\"\ncc = \"reno\"";
    let scenario = parse_scenario(&dumbbell("", "[tcp]\nrwnd = 1", 5.0, one_flow)).unwrap();
    let mut world = World::build(&scenario).unwrap();
    world.advance_to(Time::from_secs_f64(5.0));
    let events = world.events_processed();
    let rec = world.run().unwrap();
    let delivered = rec.meta.packets_delivered;
    assert!(delivered > 300, "{delivered} packets delivered");
    assert!(rec.links.iter().all(|l| l.max_queue == 0));
    let per_packet = events as f64 / delivered as f64;
    assert!(
        (3.0..3.1).contains(&per_packet),
        "{events} events for {delivered} packets: {per_packet:.3} per packet"
    );
}
