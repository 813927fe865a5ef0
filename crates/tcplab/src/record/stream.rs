//! Time series streamed out of a running simulation.
//!
//! Sampled series grow with the simulated duration (one row per flow, monitored link and
//! algorithm variable per sample). A [`SeriesSink`] receives them in chunks while the run
//! goes on, so a long run's memory stays flat; the store writes the chunks to disk.

use super::wifi::ApQueueSeries;
use super::{CcSeries, FlowSeries, QueueSeries, QueueVarSeries};

/// Rows a chunk collects before it is handed to the sink, by default: a few MB of columns.
pub const DEFAULT_CHUNK_ROWS: usize = 1 << 16;

/// The sampled rows produced since the last hand-over, one field per series table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesChunk {
    pub flow_series: FlowSeries,
    pub queue_series: QueueSeries,
    pub cc_series: CcSeries,
    pub queue_vars: QueueVarSeries,
    pub ap_queue: ApQueueSeries,
}

impl SeriesChunk {
    /// Rows held, over every table.
    pub fn rows(&self) -> usize {
        self.flow_series.time.len()
            + self.queue_series.time.len()
            + self.cc_series.time.len()
            + self.queue_vars.time.len()
            + self.ap_queue.time.len()
    }

    /// Appends another chunk's rows (a sink that collects everything, for tests).
    pub fn append(&mut self, mut other: SeriesChunk) {
        let (a, b) = (&mut self.flow_series, &mut other.flow_series);
        a.time.append(&mut b.time);
        a.flow.append(&mut b.flow);
        a.cwnd.append(&mut b.cwnd);
        a.ssthresh.append(&mut b.ssthresh);
        a.srtt.append(&mut b.srtt);
        a.in_flight.append(&mut b.in_flight);
        a.bytes_delivered.append(&mut b.bytes_delivered);
        let (a, b) = (&mut self.queue_series, &mut other.queue_series);
        a.time.append(&mut b.time);
        a.link.append(&mut b.link);
        a.packets.append(&mut b.packets);
        a.bytes.append(&mut b.bytes);
        let (a, b) = (&mut self.cc_series, &mut other.cc_series);
        a.time.append(&mut b.time);
        a.flow.append(&mut b.flow);
        a.name.append(&mut b.name);
        a.value.append(&mut b.value);
        let (a, b) = (&mut self.queue_vars, &mut other.queue_vars);
        a.time.append(&mut b.time);
        a.link.append(&mut b.link);
        a.name.append(&mut b.name);
        a.value.append(&mut b.value);
        let (a, b) = (&mut self.ap_queue, &mut other.ap_queue);
        a.time.append(&mut b.time);
        a.bss.append(&mut b.bss);
        a.data.append(&mut b.data);
        a.acks.append(&mut b.acks);
    }
}

/// Where a run's series go while it runs. Chunks arrive in time order; the last one when
/// the run ends. An error stops the streaming, and the run then fails with it as an output
/// error (the run's other records are not returned, so nothing half-written is used).
pub trait SeriesSink: Send {
    fn write(&mut self, chunk: SeriesChunk) -> Result<(), String>;
}

/// Buffers a run's samples and hands them to the sink, if there is one, every `chunk_rows`
/// rows. Without a sink the buffer keeps everything (the in-memory records).
pub(crate) struct SeriesBuffer {
    pub rows: SeriesChunk,
    sink: Option<Box<dyn SeriesSink>>,
    chunk_rows: usize,
    error: Option<String>,
}

impl SeriesBuffer {
    pub fn in_memory() -> Self {
        SeriesBuffer {
            rows: SeriesChunk::default(),
            sink: None,
            chunk_rows: usize::MAX,
            error: None,
        }
    }

    pub fn stream_to(&mut self, sink: Box<dyn SeriesSink>, chunk_rows: usize) {
        self.sink = Some(sink);
        self.chunk_rows = chunk_rows.max(1);
    }

    /// Hands the buffered rows over once a chunk is full (after every sample).
    pub fn after_sample(&mut self) {
        if self.rows.rows() >= self.chunk_rows {
            self.hand_over();
        }
    }

    /// The end of the run: the last rows go to the sink; returns the rows kept in memory
    /// (everything without a sink, nothing with one) or the sink's error.
    pub fn finish(mut self) -> Result<SeriesChunk, String> {
        if self.sink.is_some() {
            self.hand_over();
        }
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.rows),
        }
    }

    fn hand_over(&mut self) {
        let chunk = std::mem::take(&mut self.rows);
        if self.error.is_some() {
            return; // streaming stopped at the first error: drop the rows
        }
        if let Some(sink) = &mut self.sink {
            if let Err(e) = sink.write(chunk) {
                self.error = Some(e);
            }
        }
    }
}
