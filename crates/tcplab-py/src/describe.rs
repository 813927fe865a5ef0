//! What a scenario describes, without running it: the network its topology expands to
//! (`tcplab validate` prints it), from the same expansion the engine builds its world from;
//! and what a scenario may say: every key of the schema (the documentation is tested
//! against it).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tcplab::net::topology::expand;

/// Validates a scenario document and returns its network: `nodes` (names), `links` (one
/// dict per link direction, in the order the engine numbers them: name, from, to,
/// rate_bps, delay_s, buffer, buffer_bytes, queue, loss, jitter; absent settings are None)
/// and `wlans` (one dict per 802.11 BSS: ap, stations, rate_bps, ap_buffer, ap_queue,
/// station_buffer).
#[pyfunction]
pub fn topology<'py>(py: Python<'py>, scenario: &str) -> PyResult<Bound<'py, PyDict>> {
    let s = tcplab::parse_scenario(scenario).map_err(super::config_err)?;
    let g = expand(&s.topology);
    let out = PyDict::new(py);
    out.set_item("nodes", &g.nodes)?;
    let links = PyList::empty(py);
    for l in &g.links {
        let d = PyDict::new(py);
        d.set_item("name", &l.name)?;
        d.set_item("from", &g.nodes[l.from])?;
        d.set_item("to", &g.nodes[l.to])?;
        d.set_item("rate_bps", l.rate.0)?;
        d.set_item("delay_s", l.delay.0)?;
        d.set_item("buffer", l.buffer)?;
        d.set_item("buffer_bytes", l.buffer_bytes)?;
        d.set_item("queue", l.queue.kind())?;
        d.set_item("loss", l.loss.as_ref().map(|x| x.kind()))?;
        d.set_item("jitter", l.jitter.as_ref().map(|x| x.kind()))?;
        links.append(d)?;
    }
    out.set_item("links", links)?;
    let wlans = PyList::empty(py);
    for w in &g.wlans {
        let d = PyDict::new(py);
        let names: Vec<&str> = w.nodes.iter().map(|&n| g.nodes[n].as_str()).collect();
        d.set_item("ap", names[0])?;
        d.set_item("stations", &names[1..])?;
        d.set_item("rate_bps", w.spec.mac.rate.0)?;
        d.set_item("ap_buffer", w.spec.ap_buffer)?;
        d.set_item("ap_queue", w.spec.ap_queue.kind())?;
        d.set_item("station_buffer", w.spec.station_buffer)?;
        wlans.append(d)?;
    }
    out.set_item("wlans", wlans)?;
    Ok(out)
}

/// Every table of the scenario schema: a list of dicts with `path` (`tcp`, `flows[]`,
/// `queue(kind=red)`, ...; see `tcplab::config::keys`), `keys` and `choices` (key -> the
/// names its value may take).
#[pyfunction]
pub fn schema<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for t in tcplab::config::keys::schema() {
        let d = PyDict::new(py);
        d.set_item("path", t.path)?;
        d.set_item("keys", t.keys)?;
        let choices = PyDict::new(py);
        for (key, names) in t.choices {
            choices.set_item(key, names)?;
        }
        d.set_item("choices", choices)?;
        out.append(d)?;
    }
    Ok(out)
}

/// Every congestion-control parameter set (see `tcplab::cc::catalog`): a list of dicts with
/// `name` (the struct), `algorithms` (empty: every algorithm) and `params`, each a dict of
/// `key`, `doc`, `values` (pairs of a name and its meaning) and `defaults` (one per
/// algorithm of the set).
#[pyfunction]
pub fn cc_parameters<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for set in tcplab::cc::catalog::catalog() {
        let d = PyDict::new(py);
        d.set_item("name", set.name)?;
        d.set_item("algorithms", set.algorithms)?;
        let params = PyList::empty(py);
        for p in set.params {
            let pd = PyDict::new(py);
            pd.set_item("key", p.key)?;
            pd.set_item("doc", p.doc)?;
            pd.set_item("values", p.values)?;
            let defaults = PyList::empty(py);
            for v in &p.defaults {
                defaults.append(toml_to_py(py, v)?)?;
            }
            pd.set_item("defaults", defaults)?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        out.append(d)?;
    }
    Ok(out)
}

fn toml_to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => s.into_pyobject(py)?.into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => f.into_pyobject(py)?.into_any(),
        toml::Value::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
        other => other.to_string().into_pyobject(py)?.into_any(),
    })
}
