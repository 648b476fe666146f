//! clovece's `src/platform`, compiled on its own: its only use of the
//! rest of the crate is Android's entry point, which iOS does not build.
#[path = "../../../src/platform/mod.rs"]
pub mod platform;
