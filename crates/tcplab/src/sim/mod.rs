//! Simulation kernel: time, the event scheduler and random streams.

mod heap;
pub mod prefetch;
pub mod rng;
pub mod scheduler;
pub mod time;

pub use rng::{Drand48, RngStream};
pub use scheduler::{Ahead, Due, Scheduler};
pub use time::Time;
