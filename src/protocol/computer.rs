//! The computer player as the log sees it: `crate::bot::choose`, a pure
//! function from a game to a move, computed identically on every phone, so
//! that a computer turn needs no message and every phone can check it.

use serde::{Deserialize, Serialize};

use super::digest::{Digest, Domain};
use super::header::{Seat, Setup};
use crate::bot::{self, Level};
use crate::rules::{Colour, Game, Move};

/// A computer player's level, in the header's encoding.
#[derive(Serialize, Deserialize)]
#[serde(remote = "Level")]
pub(crate) enum LevelDef {
    Easy,
    Medium,
    Hard,
}

/// The seed the computer player gets for the move at log index `index`:
/// from the game id, so that it is the same on every phone and differs
/// between games.
fn seed(game: &Digest, index: u32) -> u64 {
    let mut bytes = game.0.to_vec();
    bytes.extend_from_slice(&index.to_le_bytes());
    let digest = Digest::of(Domain::Bot, &bytes);
    let mut first = [0; 8];
    first.copy_from_slice(&digest.0[..8]);
    u64::from_le_bytes(first)
}

/// The computer's move for `seat` in `game` at log index `index`: at the
/// seat's level for a computer seat, at the header's stand-in level for a
/// player who is absent, left, or whose turn timer ran out.
pub(crate) fn computer_move(setup: &Setup, game: &Game, seat: Colour, index: u32) -> Option<Move> {
    let header = &setup.signed.header;
    let level = match header.seats[seat.index()] {
        Some(Seat::Computer { level }) => level,
        _ => header.stand_in,
    };
    bot::choose(game, level, seed(&setup.game, index))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every phone derives the same seeds: pinned to what this build
    /// derives, so that a change must come with a new `PROTOCOL_VERSION`.
    #[test]
    fn the_computer_players_seeds_are_pinned() {
        let seeds: Vec<u64> = (0..4).map(|i| seed(&Digest([7; 32]), i)).collect();
        assert_eq!(
            (crate::protocol::header::PROTOCOL_VERSION, seeds),
            (
                8,
                vec![
                    9243659647466352910,
                    2923151759879553046,
                    14088962886894809865,
                    12735362863277676586
                ]
            ),
            "the seeds changed: bump PROTOCOL_VERSION and pin the new values"
        );
    }
}
