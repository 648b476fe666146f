//! The deterministic rules engine: pure Rust, no I/O, no floats, no
//! randomness (dice values come in from outside), no hash-map iteration.
//! The same inputs give the same outputs on every platform, which is what
//! lets every phone of a game run it in lockstep.
//!
//! - [`board`]: colours, seats, dice and places, shared by all rule sets.
//! - [`classic`]: the classic rules with their house rules and the Croatian
//!   preset.
//! - [`opening`]: how the first player is chosen.

pub mod board;
pub mod classic;
pub mod opening;

pub use board::{Colour, Die, Place, Seats};
pub use classic::HouseRules;
pub use opening::FirstPlayer;
