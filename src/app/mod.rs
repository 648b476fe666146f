//! The app: the Slint UI of `ui/` and the Rust behind it.
//!
//! Following Slint's own model projects, the `.slint` files hold only the
//! UI, with one exported adapter global per screen; [`adapter`] wires those
//! globals to plain-Rust controllers ([`offline`], [`settings`]) that are
//! tested without a window.
//!
//! - [`geometry`]: where each place of the rules is drawn.
//! - [`board`]: the board of a game, offline or online: which piece a tap
//!   moves, and the Matfyz questions.
//! - [`offline`]: a game on this device (against the computer or pass and
//!   play); [`local`]: that game kept in the data folder, to outlive the
//!   app.
//! - [`matfyz`]: what the board needs to know about the Matfyz rules
//!   (shared pieces, and the choices a move can leave to the player).
//! - [`dice`]: the die of offline games.
//! - [`fairness`]: the roll history and dice statistics of a game.
//! - [`leave`]: what leaving a game costs.
//! - [`online`]: an online game's session on its network thread;
//!   `online_adapter`: the online screens wired to it.
//! - [`online_game`]: an online game's board, from the replicated log.
//! - [`room`]: the room screen (host or guest) before an online game.
//! - [`invite`]: invitations, the host's list and the invited phone's
//!   inbox; `invite_adapter`: their screens; `announce`: a node announced
//!   nearby.
//! - [`resume`]: online games kept to be resumed after the app was closed;
//!   `resume_adapter`: Home's offer of one.
//! - [`qr`]: the room's QR code as a pixel-sharp picture.
//! - [`settings`]: the player's settings and where they are kept;
//!   [`choices`]: the setup screens' last choices, kept with them.
//! - [`turn_clock`]: the turn timer of pass-and-play games.
//! - [`join`]: joining a room by its code or ticket link.
//! - [`nearby`]: the nearby rooms list, live, with its filters.
//! - [`scan`]: the host's QR code, by camera or picture file.
//! - [`statistics`]: this player's games, wins and dice.
//! - `rows`: a list on the screen brought up to date row by row.

mod adapter;
mod announce;
pub mod board;
pub mod choices;
pub mod dice;
pub mod fairness;
pub mod geometry;
pub mod invite;
mod invite_adapter;
pub mod join;
pub mod leave;
pub mod local;
pub mod matfyz;
pub mod nearby;
pub mod offline;
pub mod online;
mod online_adapter;
pub mod online_game;
pub mod qr;
pub mod resume;
mod resume_adapter;
pub mod room;
mod rows;
pub mod scan;
pub mod settings;
pub mod statistics;
pub mod turn_clock;

/// The code generated from `ui/app.slint` (the `clovece-ui` crate).
pub use clovece_ui as ui;

pub use adapter::{App, AppError, COMPUTER_PACE, HANDOVER, RESULT_DELAY, Services};

/// Opens the app window with the player's settings and OS-seeded dice, and
/// runs until it is closed.
pub fn run() -> Result<(), AppError> {
    // On iOS the app is this binary (ios/project.yml); Android enters
    // through `android_main` instead.
    #[cfg(target_os = "ios")]
    let platform = crate::platform::Platform::ios();
    #[cfg(not(target_os = "ios"))]
    let platform = crate::platform::Platform::desktop();
    run_on(platform)
}

/// Runs the app on `platform` (a phone's services, or a desktop's): its
/// settings live in the platform's data folder when it names one.
pub fn run_on(platform: crate::platform::Platform) -> Result<(), AppError> {
    let file = match &platform.data_dir {
        Some(folder) => settings::SettingsFile::in_folder(folder),
        None => settings::SettingsFile::platform()?,
    };
    let dice = dice::Dice::from_os().map_err(AppError::Randomness)?;
    let services = Services {
        lifecycle: platform.lifecycle,
        browsing: nearby::Browsing::default(),
        discovery: platform.discovery,
    };
    App::with_services(file, dice, services)?.run()
}
