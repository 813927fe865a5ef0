//! Python bindings: `tcplab._engine.run(toml_text, seed)` returns the records as a dict of
//! column dicts (NumPy arrays for numbers, lists for strings), ready for pandas.

mod describe;

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};
use tcplab::net::{DropCause, DropCounts};
use tcplab::record::{DiscardSeries, RunRecords, SeriesChunk, SeriesSink, DEFAULT_CHUNK_ROWS};
use tcplab::{ConfigError, RunError};

create_exception!(
    _engine,
    ScenarioError,
    PyValueError,
    "A scenario document is invalid. args: (field, message)."
);
create_exception!(
    _engine,
    SimulationError,
    PyRuntimeError,
    "The engine found an internal inconsistency (a bug)."
);
create_exception!(
    _engine,
    OutputError,
    PyOSError,
    "Output the scenario asks for (pcap traces) could not be written."
);

fn config_err(e: ConfigError) -> PyErr {
    ScenarioError::new_err((e.field, e.message))
}

fn run_err(e: RunError) -> PyErr {
    match e {
        RunError::Config(c) => config_err(c),
        RunError::Conservation(m) => SimulationError::new_err(m),
        RunError::Output(m) => OutputError::new_err(m),
        RunError::Interrupted => PyKeyboardInterrupt::new_err("the run was interrupted"),
    }
}

/// Builds a column dict: `cols!(py, d, "name" => vec, ...)`.
macro_rules! set {
    ($d:expr, $py:expr, $name:expr, $v:expr) => {
        $d.set_item($name, $v.into_pyarray($py))?
    };
}

fn drops_columns<'py>(
    d: &Bound<'py, PyDict>,
    py: Python<'py>,
    prefix: &str,
    counts: &[DropCounts],
) -> PyResult<()> {
    for cause in DropCause::ALL {
        let v: Vec<u64> = counts.iter().map(|c| c.get(cause)).collect();
        set!(d, py, format!("{prefix}{}", cause.name()), v);
    }
    Ok(())
}

/// The streamable tables (`series`, `queues`, `cc_vars`, `queue_vars`, `ap_queue`,
/// `events`, `losses`) of a chunk or of a whole run, set into `out`.
fn series_to_py<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyDict>,
    chunk: SeriesChunk,
) -> PyResult<()> {
    let s = PyDict::new(py);
    let fs = chunk.flow_series;
    set!(s, py, "time", fs.time);
    set!(s, py, "flow", fs.flow);
    set!(s, py, "cwnd", fs.cwnd);
    set!(s, py, "ssthresh", fs.ssthresh);
    set!(s, py, "srtt", fs.srtt);
    set!(s, py, "in_flight", fs.in_flight);
    set!(s, py, "bytes_delivered", fs.bytes_delivered);
    out.set_item("series", s)?;

    let q = PyDict::new(py);
    let qs = chunk.queue_series;
    set!(q, py, "time", qs.time);
    set!(q, py, "link", qs.link);
    set!(q, py, "packets", qs.packets);
    set!(q, py, "bytes", qs.bytes);
    out.set_item("queues", q)?;

    let c = PyDict::new(py);
    let cs = chunk.cc_series;
    set!(c, py, "time", cs.time);
    set!(c, py, "flow", cs.flow);
    c.set_item("name", cs.name)?;
    set!(c, py, "value", cs.value);
    out.set_item("cc_vars", c)?;

    let qv = PyDict::new(py);
    let qvs = chunk.queue_vars;
    set!(qv, py, "time", qvs.time);
    set!(qv, py, "link", qvs.link);
    qv.set_item("name", qvs.name)?;
    set!(qv, py, "value", qvs.value);
    out.set_item("queue_vars", qv)?;

    let aq = PyDict::new(py);
    let aqs = chunk.ap_queue;
    set!(aq, py, "time", aqs.time);
    set!(aq, py, "bss", aqs.bss);
    set!(aq, py, "data", aqs.data);
    set!(aq, py, "acks", aqs.acks);
    out.set_item("ap_queue", aq)?;

    let e = PyDict::new(py);
    let ev = chunk.events;
    set!(e, py, "time", ev.time);
    e.set_item("event", ev.event)?;
    set!(e, py, "flow", ev.flow);
    e.set_item("kind", ev.kind)?;
    set!(e, py, "seq", ev.seq);
    set!(e, py, "ack", ev.ack);
    set!(e, py, "link", ev.link);
    e.set_item("cause", ev.cause)?;
    set!(e, py, "retransmit", ev.retransmit);
    set!(e, py, "size", ev.size);
    out.set_item("events", e)?;

    let lo = PyDict::new(py);
    let le = chunk.losses;
    set!(lo, py, "time", le.time);
    set!(lo, py, "flow", le.flow);
    set!(lo, py, "seq", le.seq);
    lo.set_item("kind", le.kind)?;
    set!(lo, py, "cwnd_before", le.cwnd_before);
    set!(lo, py, "ssthresh_after", le.ssthresh_after);
    lo.set_item("cc_label", le.cc_label)?;
    set!(lo, py, "cc_value", le.cc_value);
    lo.set_item("true_cause", le.true_cause)?;
    out.set_item("losses", lo)?;
    Ok(())
}

fn records_to_py<'py>(py: Python<'py>, r: RunRecords) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let event_log = r.events.is_some();
    let series = SeriesChunk {
        flow_series: r.flow_series,
        queue_series: r.queue_series,
        cc_series: r.cc_series,
        queue_vars: r.queue_vars,
        ap_queue: r.wifi.ap_queue,
        events: r.events.unwrap_or_default(),
        losses: r.losses,
    };
    series_to_py(py, &out, series)?;
    if !event_log {
        out.set_item("events", py.None())?;
    }

    let meta = PyDict::new(py);
    meta.set_item("seed", r.meta.seed)?;
    meta.set_item("duration", r.meta.duration)?;
    meta.set_item("measure", r.meta.measure.to_vec())?;
    meta.set_item("events_processed", r.meta.events_processed)?;
    meta.set_item("packets_delivered", r.meta.packets_delivered)?;
    meta.set_item("engine_version", r.meta.engine_version)?;
    out.set_item("meta", meta)?;

    let f = PyDict::new(py);
    let fl = &r.flows;
    set!(f, py, "id", fl.iter().map(|x| x.id).collect::<Vec<_>>());
    f.set_item(
        "name",
        fl.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
    )?;
    f.set_item("cc", fl.iter().map(|x| x.cc.clone()).collect::<Vec<_>>())?;
    f.set_item(
        "recovery",
        fl.iter().map(|x| x.recovery.clone()).collect::<Vec<_>>(),
    )?;
    f.set_item("src", fl.iter().map(|x| x.src.clone()).collect::<Vec<_>>())?;
    f.set_item("dst", fl.iter().map(|x| x.dst.clone()).collect::<Vec<_>>())?;
    set!(
        f,
        py,
        "start",
        fl.iter().map(|x| x.start).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "goodput_bps",
        fl.iter().map(|x| x.goodput_bps).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "bytes_delivered",
        fl.iter().map(|x| x.bytes_delivered).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "segments_sent",
        fl.iter().map(|x| x.segments_sent).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "retransmissions",
        fl.iter().map(|x| x.retransmissions).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "timeouts",
        fl.iter().map(|x| x.timeouts).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "fast_retransmits",
        fl.iter().map(|x| x.fast_retransmits).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "early_retransmits",
        fl.iter().map(|x| x.early_retransmits).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "dupacks",
        fl.iter().map(|x| x.dupacks).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "loss_probes",
        fl.iter().map(|x| x.loss_probes).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "undos",
        fl.iter().map(|x| x.undos).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "acks_sent",
        fl.iter().map(|x| x.acks_sent).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "acks_received",
        fl.iter().map(|x| x.acks_received).collect::<Vec<_>>()
    );
    drops_columns(
        &f,
        py,
        "data_drops_",
        &fl.iter().map(|x| x.data_drops).collect::<Vec<_>>(),
    )?;
    drops_columns(
        &f,
        py,
        "ack_drops_",
        &fl.iter().map(|x| x.ack_drops).collect::<Vec<_>>(),
    )?;
    set!(
        f,
        py,
        "acks_lost",
        fl.iter().map(|x| x.ack_drops.total()).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "mean_rtt",
        fl.iter().map(|x| x.mean_rtt).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "min_rtt",
        fl.iter().map(|x| x.min_rtt).collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "completion_time",
        fl.iter()
            .map(|x| x.completion_time.unwrap_or(f64::NAN))
            .collect::<Vec<_>>()
    );
    set!(
        f,
        py,
        "final_cwnd",
        fl.iter().map(|x| x.final_cwnd).collect::<Vec<_>>()
    );
    out.set_item("flows", f)?;

    let u = PyDict::new(py);
    let us = &r.udp_flows;
    set!(u, py, "id", us.iter().map(|x| x.id).collect::<Vec<_>>());
    u.set_item(
        "name",
        us.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
    )?;
    u.set_item("src", us.iter().map(|x| x.src.clone()).collect::<Vec<_>>())?;
    u.set_item("dst", us.iter().map(|x| x.dst.clone()).collect::<Vec<_>>())?;
    set!(
        u,
        py,
        "start",
        us.iter().map(|x| x.start).collect::<Vec<_>>()
    );
    set!(
        u,
        py,
        "rate_bps",
        us.iter().map(|x| x.rate_bps).collect::<Vec<_>>()
    );
    set!(
        u,
        py,
        "packet_size",
        us.iter().map(|x| x.packet_size).collect::<Vec<_>>()
    );
    set!(
        u,
        py,
        "datagrams_sent",
        us.iter().map(|x| x.datagrams_sent).collect::<Vec<_>>()
    );
    set!(
        u,
        py,
        "datagrams_received",
        us.iter().map(|x| x.datagrams_received).collect::<Vec<_>>()
    );
    set!(
        u,
        py,
        "bytes_received",
        us.iter().map(|x| x.bytes_received).collect::<Vec<_>>()
    );
    set!(
        u,
        py,
        "throughput_bps",
        us.iter().map(|x| x.throughput_bps).collect::<Vec<_>>()
    );
    drops_columns(
        &u,
        py,
        "drops_",
        &us.iter().map(|x| x.drops).collect::<Vec<_>>(),
    )?;
    out.set_item("udp_flows", u)?;

    let tr = PyDict::new(py);
    tr.set_item(
        "link",
        r.traces.iter().map(|x| x.link.clone()).collect::<Vec<_>>(),
    )?;
    tr.set_item(
        "file",
        r.traces.iter().map(|x| x.file.clone()).collect::<Vec<_>>(),
    )?;
    set!(
        tr,
        py,
        "packets",
        r.traces.iter().map(|x| x.packets).collect::<Vec<_>>()
    );
    out.set_item("traces", tr)?;

    let w = PyDict::new(py);
    let ws = &r.wifi.ifaces;
    w.set_item(
        "name",
        ws.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
    )?;
    set!(w, py, "bss", ws.iter().map(|x| x.bss).collect::<Vec<_>>());
    set!(
        w,
        py,
        "is_ap",
        ws.iter().map(|x| x.is_ap).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "distance",
        ws.iter().map(|x| x.distance).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "enqueued",
        ws.iter().map(|x| x.enqueued).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "attempts",
        ws.iter().map(|x| x.attempts).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "rts_attempts",
        ws.iter().map(|x| x.rts_attempts).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "acked",
        ws.iter().map(|x| x.acked).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "acked_bytes",
        ws.iter().map(|x| x.acked_bytes).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "failures",
        ws.iter().map(|x| x.failures).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "retries",
        ws.iter().map(|x| x.retries).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "collisions",
        ws.iter().map(|x| x.collisions).collect::<Vec<_>>()
    );
    drops_columns(
        &w,
        py,
        "data_drops_",
        &ws.iter().map(|x| x.drops_data).collect::<Vec<_>>(),
    )?;
    drops_columns(
        &w,
        py,
        "ack_drops_",
        &ws.iter().map(|x| x.drops_ack).collect::<Vec<_>>(),
    )?;
    set!(
        w,
        py,
        "discarded_after_delivery",
        ws.iter()
            .map(|x| x.discarded_after_delivery)
            .collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "duplicates_received",
        ws.iter().map(|x| x.duplicates_received).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "delay_mean",
        ws.iter().map(|x| x.delay_mean).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "delay_std",
        ws.iter().map(|x| x.delay_std).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "delay_max",
        ws.iter().map(|x| x.delay_max).collect::<Vec<_>>()
    );
    set!(
        w,
        py,
        "max_queue",
        ws.iter().map(|x| x.max_queue).collect::<Vec<_>>()
    );
    out.set_item("wifi", w)?;

    if let Some(fr) = r.wifi.frames {
        let fd = PyDict::new(py);
        set!(fd, py, "time", fr.time);
        set!(fd, py, "iface", fr.iface);
        set!(fd, py, "delay", fr.delay);
        set!(fd, py, "attempts", fr.attempts);
        out.set_item("frames", fd)?;
    } else {
        out.set_item("frames", py.None())?;
    }

    let l = PyDict::new(py);
    let ls = &r.links;
    set!(l, py, "id", ls.iter().map(|x| x.id).collect::<Vec<_>>());
    l.set_item(
        "name",
        ls.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
    )?;
    l.set_item(
        "queue",
        ls.iter().map(|x| x.queue.clone()).collect::<Vec<_>>(),
    )?;
    set!(
        l,
        py,
        "rate_bps",
        ls.iter().map(|x| x.rate_bps).collect::<Vec<_>>()
    );
    set!(
        l,
        py,
        "delay",
        ls.iter().map(|x| x.delay).collect::<Vec<_>>()
    );
    set!(
        l,
        py,
        "packets_sent",
        ls.iter().map(|x| x.packets_sent).collect::<Vec<_>>()
    );
    set!(
        l,
        py,
        "bytes_sent",
        ls.iter().map(|x| x.bytes_sent).collect::<Vec<_>>()
    );
    set!(
        l,
        py,
        "utilization",
        ls.iter().map(|x| x.utilization).collect::<Vec<_>>()
    );
    set!(
        l,
        py,
        "mean_queue",
        ls.iter().map(|x| x.mean_queue).collect::<Vec<_>>()
    );
    set!(
        l,
        py,
        "max_queue",
        ls.iter().map(|x| x.max_queue).collect::<Vec<_>>()
    );
    drops_columns(
        &l,
        py,
        "drops_",
        &ls.iter().map(|x| x.drops).collect::<Vec<_>>(),
    )?;
    out.set_item("links", l)?;

    Ok(out)
}

/// Runs a scenario document (TOML text). `seed` overrides the document's; `out_dir`
/// is where pcap traces the scenario asks for are written. With `series_sink`, an object
/// with methods `begin(link_names)` and `write(tables)`, the sampled series are handed to
/// it in chunks of about `chunk_rows` rows while the run goes on (each chunk a dict of
/// column dicts, like the run's own tables) and the returned series tables are empty.
///
/// With `keep_series` false and no sink, those tables are dropped as they are sampled
/// (returned empty), so the run's memory does not grow with its duration.
///
/// The run gives Python's signal handlers a chance to run every few tens of milliseconds,
/// so Ctrl-C stops it: the exception a handler raises (KeyboardInterrupt) ends the run
/// and is raised here, and no records are returned.
#[pyfunction]
#[pyo3(signature = (scenario, seed=None, out_dir=None, series_sink=None, chunk_rows=DEFAULT_CHUNK_ROWS, keep_series=true))]
fn run<'py>(
    py: Python<'py>,
    scenario: &str,
    seed: Option<u64>,
    out_dir: Option<std::path::PathBuf>,
    series_sink: Option<Py<PyAny>>,
    chunk_rows: usize,
    keep_series: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let text = scenario.to_owned();
    let raised = Raised::default();
    let (hook_raised, sink_raised) = (raised.clone(), raised.clone());
    let records = py.detach(move || {
        let mut world = tcplab::build_world(&text, seed, out_dir.as_deref())?;
        world.interrupt_with(Box::new(move || hook_raised.check_signals()));
        if let Some(target) = series_sink {
            let sink = PySeriesSink::begin(target, world.link_names(), sink_raised)
                .map_err(|e| RunError::Output(format!("time series: {e}")))?;
            world.stream_series(Box::new(sink), chunk_rows);
        } else if !keep_series {
            world.stream_series(Box::new(DiscardSeries), DEFAULT_CHUNK_ROWS);
        }
        world.run()
    });
    match records {
        Ok(records) => records_to_py(py, records),
        // What a signal handler or the sink raised explains the failure best.
        Err(e) => Err(raised.take().unwrap_or_else(|| run_err(e))),
    }
}

/// A Python exception raised while the run went on, to be raised when it ends: by a signal
/// handler (KeyboardInterrupt for Ctrl-C), or by the series sink when it is not an
/// `Exception` (KeyboardInterrupt, SystemExit: the sink's own errors are output errors).
#[derive(Clone, Default)]
struct Raised(Arc<Mutex<Option<PyErr>>>);

impl Raised {
    /// Runs Python's pending signal handlers; true (stop the run) if one raised, or if
    /// something was raised before.
    fn check_signals(&self) -> bool {
        if self.0.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return true;
        }
        Python::attach(|py| match py.check_signals() {
            Ok(()) => false,
            Err(e) => {
                self.0
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(e);
                true
            }
        })
    }

    /// Keeps `err` if it must reach the caller as it is (see the type's doc); false if it
    /// is an ordinary error.
    fn keep(&self, py: Python<'_>, err: &PyErr) -> bool {
        if err.is_instance_of::<PyException>(py) {
            return false;
        }
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| err.clone_ref(py));
        true
    }

    fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// A Python object receiving a run's series chunks (see [`run`]).
struct PySeriesSink {
    target: Py<PyAny>,
    raised: Raised,
}

impl PySeriesSink {
    fn begin(target: Py<PyAny>, link_names: Vec<String>, raised: Raised) -> Result<Self, String> {
        Python::attach(|py| {
            let begun = target.call_method1(py, "begin", (link_names,));
            begun.map(drop).map_err(|e| {
                raised.keep(py, &e);
                e.to_string()
            })
        })?;
        Ok(PySeriesSink { target, raised })
    }
}

impl SeriesSink for PySeriesSink {
    fn write(&mut self, chunk: SeriesChunk) -> Result<(), String> {
        Python::attach(|py| {
            let tables = PyDict::new(py);
            let written = series_to_py(py, &tables, chunk)
                .and_then(|()| self.target.call_method1(py, "write", (tables,)).map(drop));
            written.map_err(|e| {
                self.raised.keep(py, &e);
                e.to_string()
            })
        })
    }
}

/// Validates a scenario document; returns its canonical TOML (every default written out).
#[pyfunction]
fn validate(scenario: &str) -> PyResult<String> {
    tcplab::parse_scenario(scenario)
        .map(|s| s.to_toml())
        .map_err(config_err)
}

/// 000 table 1 as the engine's NewVegas produces it: per round W_old, alpha, beta, Delta, W.
#[pyfunction]
fn newvegas_table1() -> Vec<[f64; 5]> {
    tcplab::cc::newvegas::table1_trace()
}

/// Names of the congestion-control algorithms the engine knows.
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    tcplab::cc::ALGORITHMS.to_vec()
}

/// What this engine build supports, for experiments that need a mechanism by name.
#[pyfunction]
fn capabilities<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    use tcplab::config::{JitterSpec, LossSpec, QueueSpec, Topology};
    let d = PyDict::new(py);
    d.set_item("cc", tcplab::cc::ALGORITHMS.to_vec())?;
    d.set_item("queue", QueueSpec::KINDS.to_vec())?;
    d.set_item("topology", Topology::KINDS.to_vec())?;
    d.set_item("loss", LossSpec::KINDS.to_vec())?;
    d.set_item("jitter", JitterSpec::KINDS.to_vec())?;
    d.set_item("traffic", vec!["tcp", "cbr", "schedule", "pcap"])?;
    Ok(d)
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(newvegas_table1, m)?)?;
    m.add_function(wrap_pyfunction!(capabilities, m)?)?;
    m.add_function(wrap_pyfunction!(describe::topology, m)?)?;
    m.add_function(wrap_pyfunction!(describe::schema, m)?)?;
    m.add_function(wrap_pyfunction!(describe::cc_parameters, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("OutputError", m.py().get_type::<OutputError>())?;
    m.add("ENGINE_VERSION", tcplab::ENGINE_VERSION)?;
    // The git commit the engine was built from ("" outside a checkout; see build.rs).
    m.add("ENGINE_COMMIT", env!("TCPLAB_ENGINE_COMMIT"))?;
    m.add("DEFAULT_CHUNK_ROWS", DEFAULT_CHUNK_ROWS)?;
    Ok(())
}
