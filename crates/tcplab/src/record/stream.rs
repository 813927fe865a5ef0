//! Time series streamed out of a running simulation.
//!
//! Sampled series grow with the simulated duration (one row per flow, monitored link and
//! algorithm variable per sample), the per-event log much faster, and the loss table by
//! one row per loss response (thousands per simulated second with thousands of flows). A
//! [`SeriesSink`] receives them in chunks while the run goes on, so a long run's memory
//! stays flat; the store writes the chunks to disk.

use super::columns::{ColumnTable, Columns};
use super::wifi::ApQueueSeries;
use super::{CcSeries, EventLog, FlowSeries, LossEvents, QueueSeries, QueueVarSeries};

/// Rows a chunk collects before it is handed to the sink, by default: a few MB of columns.
pub const DEFAULT_CHUNK_ROWS: usize = 1 << 16;

/// Declares [`SeriesChunk`]: each field a series table and its name in the results.
macro_rules! series_chunk {
    ($($(#[$doc:meta])* $field:ident: $ty:ty => $table:literal,)+) => {
        /// The sampled rows produced since the last hand-over, one field per series table.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct SeriesChunk {
            $($(#[$doc])* pub $field: $ty,)+
        }

        impl SeriesChunk {
            /// Rows held, over every table.
            pub fn rows(&self) -> usize {
                0 $(+ self.$field.len())+
            }

            /// Appends another chunk's rows (a sink that collects everything, for tests).
            pub fn append(&mut self, mut other: SeriesChunk) {
                $(self.$field.append(&mut other.$field);)+
            }

            /// The chunk's tables by their names in the results (`series`, `queues`, ...).
            pub fn into_tables(self) -> Vec<(&'static str, Columns)> {
                vec![$(($table, self.$field.into_columns()),)+]
            }
        }
    };
}

series_chunk! {
    flow_series: FlowSeries => "series",
    queue_series: QueueSeries => "queues",
    cc_series: CcSeries => "cc_vars",
    queue_vars: QueueVarSeries => "queue_vars",
    ap_queue: ApQueueSeries => "ap_queue",
    /// The per-event log (empty unless the scenario keeps one).
    events: EventLog => "events",
    /// The loss responses made since the last hand-over, each with its true cause: one
    /// row per response, so they grow with the run (with thousands of flows, by megabytes
    /// per simulated minute).
    losses: LossEvents => "losses",
}

/// Where a run's series go while it runs. Chunks arrive in time order; the last one when
/// the run ends. An error stops the streaming, and the run then fails with it as an output
/// error (the run's other records are not returned, so nothing half-written is used).
pub trait SeriesSink: Send {
    fn write(&mut self, chunk: SeriesChunk) -> Result<(), String>;
}

/// Drops every chunk: for a caller that wants only the run's summaries (the flow table of
/// `tcplab run` without an output directory), so that its memory does not grow with the
/// simulated duration or the sampling rate.
pub struct DiscardSeries;

impl SeriesSink for DiscardSeries {
    fn write(&mut self, _: SeriesChunk) -> Result<(), String> {
        Ok(())
    }
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

    /// Hands the buffered rows over once a chunk is full (after every sample, and after
    /// loss records).
    pub fn after_rows(&mut self) {
        if self.rows.rows() >= self.chunk_rows {
            self.hand_over();
        }
    }

    /// As [`after_rows`](Self::after_rows), after an event-log row (which come many
    /// per sample, or without any samples).
    pub fn after_event(&mut self) {
        if self.rows.events.time.len() >= self.chunk_rows {
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
