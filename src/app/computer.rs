//! The computer's choice of move, behind one function so that the
//! controller does not care who decides.
//!
//! PLACEHOLDER until `crate::bot` is merged: it plays the first legal move
//! at every level. Switch the body of [`choose`] (and [`Level`]) to
//! `crate::bot` once it exists on `main`.

use crate::rules::{Game, Move};

/// How well the computer plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Level {
    Easy,
    #[default]
    Medium,
    Hard,
}

impl Level {
    /// Every level, easiest first (the order of the level picker).
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];
}

/// The move the computer plays at `level`; `None` when no move is due.
/// `seed` stands for the game's randomness (unused by the placeholder).
pub fn choose(game: &Game, _level: Level, _seed: u64) -> Option<Move> {
    game.legal_moves().first().copied()
}
