//! clovece: the Central-European Ludo ("Človeče, nehnevaj sa", "Mensch ärgere
//! Dich nicht") for phones on one Wi-Fi, with no server.
//!
//! The crate is layered so that dependencies point one way:
//! [`rules`] (pure, deterministic engine) ← [`notation`] (the JSON position
//! notation of `clovece moves` / `clovece replay`) and, in later layers, the
//! computer players, the game log, networking, rooms and the UI. Beside
//! them, [`platform`] hides what differs between desktops, Android and iOS.

pub mod app;
pub mod bench;
pub mod bot;
pub mod lobby;
pub mod net;
pub mod notation;
pub mod platform;
pub mod protocol;
pub mod rules;
pub mod stats;
