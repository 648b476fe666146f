//! clovece's `src/platform`, compiled on its own: its only uses of the
//! rest of the crate are Android's entry point, which iOS does not build,
//! and the bounds of `net::seen`, which has no dependencies.
#[path = "../../../src/platform/mod.rs"]
pub mod platform;

#[path = "../../../src/net/seen.rs"]
pub mod seen;

pub mod net {
    pub use crate::seen;
}
