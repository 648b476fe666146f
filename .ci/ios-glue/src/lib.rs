//! clovece's `src/platform`, compiled on its own: its only uses of the
//! rest of the crate are Android's entry point, which iOS does not build,
//! the bounds of `net::seen` and the data folder of `durable`, which need
//! nothing else of it.
#[path = "../../../src/platform/mod.rs"]
pub mod platform;

#[path = "../../../src/net/seen.rs"]
pub mod seen;

#[path = "../../../src/durable.rs"]
pub mod durable;

pub mod net {
    pub use crate::seen;
}
