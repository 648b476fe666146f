//! The computer player as the log sees it: a pure function from a game to a
//! move, computed identically on every phone, so that a computer turn needs
//! no message and every phone can check it.

use serde::{Deserialize, Serialize};

use super::digest::{Digest, Domain};
use crate::rules::{Game, Move};

/// How well a computer seat plays. Stands in for `crate::bot::Level` until
/// the computer players are merged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Level {
    Easy,
    #[default]
    Medium,
    Hard,
}

/// The computer player: the move `level` plays in `game` with the game's
/// shared randomness `seed`; `None` when no move is due. It must be pure and
/// deterministic, since every phone runs it and checks the others' results.
pub type Choose = fn(game: &Game, level: Level, seed: u64) -> Option<Move>;

/// A stand-in computer player for tests and simulations until
/// `crate::bot::choose` is merged: always the first legal move.
pub fn first_legal_move(game: &Game, _level: Level, _seed: u64) -> Option<Move> {
    game.legal_moves().first().copied()
}

/// The seed a computer player gets for the move at log index `index`: from
/// the game id, so that it is the same on every phone and differs between
/// games.
pub(crate) fn seed(game: &Digest, index: u32) -> u64 {
    let mut bytes = game.0.to_vec();
    bytes.extend_from_slice(&index.to_le_bytes());
    let digest = Digest::of(Domain::Bot, &bytes);
    let mut first = [0; 8];
    first.copy_from_slice(&digest.0[..8]);
    u64::from_le_bytes(first)
}
