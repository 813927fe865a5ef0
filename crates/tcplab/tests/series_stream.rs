//! Streaming the sampled series, the event log and the loss responses to a sink (issue 8):
//! the chunks put together are exactly the tables a run keeps in memory, the run's other
//! records do not change, and a sink's error fails the run.

use std::sync::{Arc, Mutex};
use tcplab::record::{DiscardSeries, RunRecords, SeriesChunk, SeriesSink};
use tcplab::{build_world, run_scenario, RunError};

/// Star of 003 with a RED bottleneck (queue series and RED's variables), Vegas beside Reno
/// (Vegas's variables), sampled every 10 ms.
const WIRED: &str = r#"
[simulation]
duration = 3
sample_interval = 0.01
[topology]
kind = "star"
senders = 2
bottleneck = { rate = "1.5Mbps", delay = "5ms", buffer = 50, queue = { kind = "red", min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002 } }
access = { rate = "10Mbps", delay = "1.5ms", buffer = 1000 }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
[[flows]]
src = "s1"
dst = "d0"
cc = "vegas"
"#;

/// A WLAN (the AP-queue series) with two uplink flows, and the per-event log.
const WLAN: &str = r#"
[simulation]
duration = 1
sample_interval = 0.01
event_log = true
[topology]
kind = "wlan"
stations = 2
[[flows]]
src = "w0"
dst = "h0"
cc = "newreno"
[[flows]]
src = "w1"
dst = "h0"
cc = "newreno"
"#;

/// Collects every chunk and counts them.
#[derive(Clone, Default)]
struct Collect(Arc<Mutex<(SeriesChunk, usize)>>);

impl SeriesSink for Collect {
    fn write(&mut self, chunk: SeriesChunk) -> Result<(), String> {
        let mut got = self.0.lock().unwrap();
        got.0.append(chunk);
        got.1 += 1;
        Ok(())
    }
}

fn series_of(r: &RunRecords) -> SeriesChunk {
    SeriesChunk {
        flow_series: r.flow_series.clone(),
        queue_series: r.queue_series.clone(),
        cc_series: r.cc_series.clone(),
        queue_vars: r.queue_vars.clone(),
        ap_queue: r.wifi.ap_queue.clone(),
        events: r.events.clone().unwrap_or_default(),
        losses: r.losses.clone(),
    }
}

/// Debug text, for equality: an unclassified loss's `cc_value` is NaN.
fn text(chunk: &SeriesChunk) -> String {
    format!("{chunk:?}")
}

fn streamed(doc: &str, chunk_rows: usize) -> (RunRecords, SeriesChunk, usize) {
    let sink = Collect::default();
    let mut world = build_world(doc, None, None).unwrap();
    world.stream_series(Box::new(sink.clone()), chunk_rows);
    let records = world.run().unwrap();
    let (chunk, n) = std::mem::take(&mut *sink.0.lock().unwrap());
    (records, chunk, n)
}

#[test]
fn streamed_chunks_are_the_in_memory_series() {
    for doc in [WIRED, WLAN] {
        let in_memory = run_scenario(doc, None).unwrap();
        let expected = series_of(&in_memory);
        assert!(expected.flow_series.time.len() >= 100);
        for chunk_rows in [1, 37, 1 << 20] {
            let (records, got, chunks) = streamed(doc, chunk_rows);
            assert_eq!(text(&got), text(&expected), "chunk_rows = {chunk_rows}");
            assert_eq!(series_of(&records).rows(), 0, "streamed rows are not kept");
            assert_eq!(records.flows, in_memory.flows);
            assert_eq!(records.links, in_memory.links);
            assert_eq!(records.meta, in_memory.meta);
            if chunk_rows == 1 << 20 {
                assert_eq!(
                    chunks, 1,
                    "a run smaller than a chunk is handed over at the end"
                );
            } else {
                assert!(chunks > 2, "{chunks} chunks of {chunk_rows} rows");
            }
        }
    }
    let wired = series_of(&run_scenario(WIRED, None).unwrap());
    assert!(!wired.queue_series.time.is_empty() && !wired.queue_vars.time.is_empty());
    assert!(
        !wired.losses.time.is_empty(),
        "the wired run has loss responses"
    );
    assert!(!wired.cc_series.time.is_empty());
    assert!(!series_of(&run_scenario(WLAN, None).unwrap())
        .ap_queue
        .time
        .is_empty());
}

/// Fails on its third chunk.
struct FailThird(usize);

impl SeriesSink for FailThird {
    fn write(&mut self, _: SeriesChunk) -> Result<(), String> {
        self.0 += 1;
        if self.0 == 3 {
            return Err("disk full".into());
        }
        Ok(())
    }
}

#[test]
fn a_failing_sink_fails_the_run() {
    let mut world = build_world(WIRED, None, None).unwrap();
    world.stream_series(Box::new(FailThird(0)), 50);
    match world.run() {
        Err(RunError::Output(m)) => assert!(m.contains("disk full"), "{m}"),
        other => panic!("expected an output error, got {other:?}"),
    }
}

#[test]
fn discarded_series_leave_the_summaries_unchanged() {
    for doc in [WIRED, WLAN] {
        let in_memory = run_scenario(doc, None).unwrap();
        let mut world = build_world(doc, None, None).unwrap();
        world.stream_series(Box::new(DiscardSeries), 1);
        let records = world.run().unwrap();
        assert_eq!(series_of(&records).rows(), 0);
        assert_eq!(records.flows, in_memory.flows);
        assert_eq!(records.links, in_memory.links);
        assert_eq!(records.wifi.ifaces, in_memory.wifi.ifaces);
        assert_eq!(records.meta, in_memory.meta);
    }
}
