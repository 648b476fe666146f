//! clovece: the Central-European Ludo ("Človeče, nehnevaj sa", "Mensch ärgere
//! Dich nicht") for phones on one Wi-Fi, with no server.
//!
//! The crate is layered so that dependencies point one way, each layer
//! using only those before it:
//!
//! - [`rules`]: the pure, deterministic rules engine.
//! - [`bot`]: the computer players; [`notation`]: the JSON positions of
//!   the command line (`clovece moves`, `replay`, `bot`).
//! - [`protocol`]: the signed, replicated game log with commit-reveal dice,
//!   transport-agnostic.
//! - [`net`]: libp2p (finding phones, rooms, the byte channel).
//! - [`lobby`]: rooms before a game; [`stats`]: win rates kept on the
//!   phone; [`app`]: the Slint UI's controllers.
//!
//! Beside them, [`platform`] hides what differs between desktops, Android
//! and iOS, [`durable`] replaces a saved file whole or not at all (the
//! game log, the identity, statistics and settings alike), and
//! [`bench`](mod@bench) holds the workloads `clovece bench` and the
//! criterion benches measure.

// The module overviews name the private modules too, as a map for whoever
// works on the code: `cargo doc --document-private-items` links them.
#![allow(rustdoc::private_intra_doc_links)]

pub mod app;
pub mod bench;
pub mod bot;
pub mod durable;
pub mod lobby;
pub mod net;
pub mod notation;
pub mod platform;
pub mod protocol;
pub mod rules;
pub mod stats;
