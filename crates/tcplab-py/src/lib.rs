//! Python bindings: `tcplab._engine.run(toml_text, seed)` returns the records as a dict of
//! column dicts (NumPy arrays for numbers, lists for strings), ready for Arrow and pandas.
//! The columns come from the record structs' own definitions (tcplab::record::columns):
//! nothing here names a table's fields.

mod describe;

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;
use std::sync::{Arc, Mutex};
use tcplab::record::{
    Column, Columns, DiscardSeries, RunRecords, SeriesChunk, SeriesSink, DEFAULT_CHUNK_ROWS,
};
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

/// One column as Python gets it: a NumPy array of numbers or booleans, a list of str (or of
/// pairs of numbers).
fn column_to_py(py: Python<'_>, column: Column) -> PyResult<Bound<'_, PyAny>> {
    Ok(match column {
        Column::F64(v) => v.into_pyarray(py).into_any(),
        Column::U32(v) => v.into_pyarray(py).into_any(),
        Column::U64(v) => v.into_pyarray(py).into_any(),
        Column::I64(v) => v.into_pyarray(py).into_any(),
        Column::Bool(v) => v.into_pyarray(py).into_any(),
        Column::Text(v) => v.into_pyobject(py)?,
        Column::Label(v) => v.into_pyobject(py)?,
        Column::F64Pair(v) => v
            .into_iter()
            .map(|p| p.to_vec())
            .collect::<Vec<_>>()
            .into_pyobject(py)?,
    })
}

/// A table as a dict of columns, in the record struct's field order.
fn table_to_py(py: Python<'_>, columns: Columns) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (name, column) in columns {
        d.set_item(name, column_to_py(py, column)?)?;
    }
    Ok(d)
}

/// A one-row table as a dict of Python values (the run's meta data).
fn row_to_py(py: Python<'_>, columns: Columns) -> PyResult<Bound<'_, PyDict>> {
    fn first<'py, T: IntoPyObjectExt<'py>>(
        py: Python<'py>,
        v: Vec<T>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match v.into_iter().next() {
            Some(x) => x.into_bound_py_any(py),
            None => Err(SimulationError::new_err("a one-row table without its row")),
        }
    }
    let d = PyDict::new(py);
    for (name, column) in columns {
        let value = match column {
            Column::F64(v) => first(py, v)?,
            Column::U32(v) => first(py, v)?,
            Column::U64(v) => first(py, v)?,
            Column::I64(v) => first(py, v)?,
            Column::Bool(v) => first(py, v)?,
            Column::Text(v) => first(py, v)?,
            Column::Label(v) => first(py, v)?,
            Column::F64Pair(v) => first(py, v.into_iter().map(|p| p.to_vec()).collect())?,
        };
        d.set_item(name, value)?;
    }
    Ok(d)
}

/// The streamable tables (`series`, `queues`, `cc_vars`, `queue_vars`, `ap_queue`,
/// `events`, `losses`) of a chunk, set into `out`.
fn series_to_py<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyDict>,
    chunk: SeriesChunk,
) -> PyResult<()> {
    for (name, columns) in chunk.into_tables() {
        out.set_item(name, table_to_py(py, columns)?)?;
    }
    Ok(())
}

/// Every table of a run (None for those it did not produce) and its `meta` dict.
fn records_to_py(py: Python<'_>, r: RunRecords) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    let (meta, tables) = r.into_tables();
    for (name, columns) in tables {
        match columns {
            Some(columns) => out.set_item(name, table_to_py(py, columns)?)?,
            None => out.set_item(name, py.None())?,
        }
    }
    out.set_item("meta", row_to_py(py, meta)?)?;
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

/// Validates a scenario document (parses it and builds its world without running it);
/// returns its canonical TOML (every default written out).
#[pyfunction]
fn validate(scenario: &str) -> PyResult<String> {
    tcplab::validate_scenario(scenario)
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
    tcplab::cc::registry::names()
}

/// What this engine build supports, for experiments that need a mechanism by name.
#[pyfunction]
fn capabilities<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    use tcplab::config::{JitterSpec, LossSpec, QueueSpec, Topology};
    let d = PyDict::new(py);
    d.set_item("cc", tcplab::cc::registry::names())?;
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
