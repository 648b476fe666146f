//! Keeping the screen on while the app shows a room or a game.
//!
//! A phone turns its screen off after a short idle time (30 s on many),
//! and the app is then paused ([`super::lifecycle`]). During a board game
//! that is wrong: the phone lies on the table between its player's turns,
//! a round of four players can take longer than the timeout, and a host's
//! room must stay on screen (its QR code, its listing among the nearby
//! rooms) while friends look for it. So the app asks for the screen to
//! stay on while a room or a game is shown, as game apps do, and leaves
//! the phone's own timeout to every other screen.

use super::PlatformError;

/// The operating system's switch for the screen's idle timeout.
pub trait ScreenTimeout: Send {
    /// `true`: the screen stays on while the app is in the foreground;
    /// `false`: it goes off after the phone's usual idle time.
    fn keep_on(&mut self, on: bool) -> Result<(), PlatformError>;
}

/// A desktop, whose screen saver is its user's business.
#[derive(Debug, Default)]
pub struct NoTimeout;

impl ScreenTimeout for NoTimeout {
    fn keep_on(&mut self, _on: bool) -> Result<(), PlatformError> {
        Ok(())
    }
}
