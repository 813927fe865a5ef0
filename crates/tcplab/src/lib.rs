//! tcplab: a deterministic packet-level simulator for TCP congestion-control research.
//!
//! A run goes scenario document -> [`config::parse_scenario`] (the schema and what the
//! document alone decides) -> [`world::World::build`] (everything else: validating is
//! building, [`validate_scenario`]) -> [`world::World::run`] -> [`record::RunRecords`].
//! See docs/ARCHITECTURE.md; `scripts/module-cycles.py` shows the modules' layers.

pub mod app;
pub mod cc;
pub mod config;
pub mod net;
pub mod queue;
pub mod record;
pub mod rto;
pub mod sim;
pub mod tcp;
pub mod wifi;
pub mod world;

pub use config::{parse_scenario, ConfigError, Scenario};
pub use record::RunRecords;
pub use world::{
    build_world, run_scenario, run_scenario_with_output, validate_scenario, RunError, World,
};

/// Version of the engine, part of every result's cache key.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
