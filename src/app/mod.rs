//! The app: the Slint UI of `ui/` and the Rust behind it.
//!
//! Following Slint's own model projects, the `.slint` files hold only the
//! UI, with one exported adapter global per screen; [`adapter`] wires those
//! globals to plain-Rust controllers ([`offline`], [`settings`]) that are
//! tested without a window.
//!
//! - [`geometry`]: where each place of the rules is drawn.
//! - [`offline`]: a game on this device (against the computer or pass and
//!   play).
//! - [`computer`]: the computer's choice of move.
//! - [`dice`]: the die of offline games.
//! - [`settings`]: the player's settings and where they are kept.

mod adapter;
pub mod computer;
pub mod dice;
pub mod geometry;
pub mod offline;
pub mod settings;

/// The code generated from `ui/app.slint`.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod ui {
    slint::include_modules!();
}

pub use adapter::{App, AppError, COMPUTER_PACE, RESULT_DELAY};

/// Opens the app window with the player's settings and OS-seeded dice, and
/// runs until it is closed.
pub fn run() -> Result<(), AppError> {
    let file = settings::SettingsFile::platform()?;
    let dice = dice::Dice::from_os().map_err(AppError::Randomness)?;
    App::new(file, dice)?.run()
}
