//! The code generated from `app.slint`: the window, the screens and the
//! adapter globals that `clovece::app` wires to the game.
//!
//! A crate of its own so that the release build can optimise it for size
//! (`Cargo.toml`'s `[profile.release.package.clovece-ui]`): at opt-level 3
//! with the rest of clovece it made the binary 3.4 MB larger than at "z"
//! (docs/performance.md), and nothing in it is a hot loop (the rules engine
//! and the bots stay at opt-level 3).

#![allow(clippy::all, clippy::pedantic, missing_docs)]

slint::include_modules!();
