//! The benchmark suite's scenario files (bench/scenarios, docs/performance.md): they are
//! valid documents, and scenario (d) is the WLAN preset with 004's set-up, which the ns-3
//! program bench/ns3/wlan.cc rebuilds from the same file.

use tcplab::config::{Topology, Traffic};
use tcplab::parse_scenario;

fn bench_file(name: &str) -> String {
    let path = format!(
        "{}/../../bench/scenarios/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

#[test]
fn every_suite_scenario_is_valid() {
    for name in ["a.toml", "b.toml", "c.toml", "d.toml"] {
        if let Err(e) = parse_scenario(&bench_file(name)) {
            panic!("bench/scenarios/{name}: {e}");
        }
    }
}

#[test]
fn scenario_d_spells_out_the_wlan_preset_defaults() {
    let d = parse_scenario(&bench_file("d.toml")).expect("valid");
    let preset = parse_scenario(
        "[simulation]\nduration = 1\n[topology]\nkind = \"wlan\"\nstations = 16\n\
         [[flows]]\nsrc = \"w0\"\ndst = \"h0\"\ncc = \"newreno\"\n",
    )
    .expect("valid");
    let (Topology::Wlan(w), Topology::Wlan(defaults)) = (&d.topology, &preset.topology) else {
        panic!("scenario (d) is not a wlan topology");
    };
    // The file names every value the ns-3 program reads; they are 004's set-up, which is
    // what the preset's defaults are.
    assert_eq!(w, defaults);
    assert_eq!(d.flows.len(), 16);
    for (i, f) in d.flows.iter().enumerate() {
        assert_eq!(
            (f.src.as_str(), f.dst.as_str()),
            (format!("w{i}").as_str(), "h0")
        );
        let Traffic::Tcp(tcp) = &f.traffic else {
            panic!("flow {i} is not TCP")
        };
        assert_eq!(tcp.cc.name, "newreno");
        assert_eq!(f.count, 1);
    }
}
